/* Machine assembly and boot for the CLI; see cli/machine.h. */
#include "machine/machine.h"
#include "machine/fail.h"
#include "machine/reboot.h"
#include "emu/paging_env.h"
#include "mmu/paging_dump.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "devices/loader.h"
#include "devices/multiboot.h"
#include "emu/canonical.h"
#include "emu/cpu_model.h"
#include "emu/event_step.h"
#include "emu/insn.h"
#include "mmu/segment.h"

#define BIOS_MAX (16u << 20)

/* A reset or power-off request (cli/pc_boot.h): the CPU running now stops
 * after its instruction (cpu_run() returns ST_STOP). */
static void stop_running_cpu(void *opaque)
{
	cpu_request_stop(smp_current(opaque));
}

/* A write to isa-debug-exit: the same, the value is the device's to keep. */
static void stop_cpu(void *opaque, uint32_t value)
{
	(void)value;
	stop_running_cpu(opaque);
}

/* A device wrote RAM: every CPU drops what it decoded there (through the
 * BSP's ring of CPUs, emu/memory.c). */
static void ram_written(void *opaque, uint64_t pa, unsigned size)
{
	struct machine *m = opaque;
	cpu_notify_phys_write(&m->cpu, pa, size);
}

/* The machine's virtual time is the running CPU's (devices/clock.h, and the
 * schedule in cli/smp.h): its timers are that CPU's DEADLINE_MACHINE source. */
static uint64_t clock_now(void *opaque)
{
	return cpu_now(smp_current(opaque));
}

static void clock_deadline_changed(void *opaque, uint64_t next)
{
	struct cpu *cpu = smp_current(opaque);
	/* A device armed a timer while an instruction runs (an OUT to the PIT):
	 * the running block must not run past it. */
	if (next < cpu->deadline)
		cpu_attend(cpu, ATT_EVENT);
	cpu_set_deadline(cpu, DEADLINE_MACHINE, next);
}

/* --realtime: the host's monotonic time since the run started, in ns. */
static uint64_t host_elapsed_ns(const struct machine *m)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	int64_t s = (int64_t)(t.tv_sec - m->host_start.tv_sec);
	int64_t ns = s * 1000000000 + (t.tv_nsec - m->host_start.tv_nsec);
	return ns > 0 ? (uint64_t)ns : 0;
}

/* --realtime: before the timers due at virtual tick `now` fire, sleep until the
 * host has run as long since the start, so an idle guest (HLT skips ahead to
 * the next timer) keeps pace with the wall clock. Only the host sleeps:
 * virtual time is what it would be without pacing, and a run slower than the
 * host's clock is not hurried. A signal cuts the sleep short. */
static void pace(struct machine *m, uint64_t now)
{
	uint64_t want = (uint64_t)((vclock_u128)now * 1000000000u / m->clock.hz);
	uint64_t have = host_elapsed_ns(m);
	if (want <= have)
		return;
	uint64_t wait = want - have;
	struct timespec ts = { .tv_sec = (time_t)(wait / 1000000000u), .tv_nsec = (long)(wait % 1000000000u) };
	nanosleep(&ts, NULL);
}

static void clock_due(void *opaque, struct cpu *cpu)
{
	struct machine *m = opaque;
	uint64_t now = cpu_now(cpu);
	if (m->realtime)
		pace(m, now);
	vclock_run_due(&m->clock, now);
}

/* Multiboot 3.2 "Machine state" as QEMU's option ROM (pc-bios/optionrom/
 * multiboot.S) leaves it: EAX magic, EBX info, ECX the entry point (it jumps
 * through ECX), CS=0x08 flat 32-bit code, DS/ES/FS/GS/SS=0x10 flat data,
 * CR0 = PE (it writes 1; ET reads as 1, SDM Vol.3 2.5), paging off, EFLAGS.IF=0
 * (CLI) and DF=0 (CLD), A20 enabled (port 0x92 reads 02H, devices/reset.h).
 * GDTR points at a copy of the ROM's GDT in guest RAM, after the image with the
 * rest of the information (devices/multiboot.h). */
static void enter_multiboot(struct cpu *cpu, struct physmem *pm, const struct multiboot_boot *b)
{
	uint64_t code = physmem_read(pm, b->gdt_addr + MB_GDT_CODE_SEL, 8);
	uint64_t data = physmem_read(pm, b->gdt_addr + MB_GDT_DATA_SEL, 8);
	cpu->regs[R_AX] = MB_BOOT_MAGIC;
	cpu->regs[R_BX] = b->info_addr;
	cpu->regs[R_CX] = b->entry;
	cpu->cr0 = CR0_PE | CR0_ET;
	seg_load_descriptor(&cpu->seg[SR_CS], MB_GDT_CODE_SEL, code);
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			seg_load_descriptor(&cpu->seg[s], MB_GDT_DATA_SEL, data);
	cpu->gdtr.base = b->gdt_addr;
	cpu->gdtr.limit = b->gdt_limit;
	cpu_set_flags(cpu, FLAG_FIXED1);
	cpu->rip = b->entry;
	cpu_update_mode(cpu);
	tlb_flush_all(&cpu->tlb);
}

/* A flat image entered in real mode with CS:IP naming the linear entry
 * (CS = the 64 KiB-aligned segment, as a boot sector sees 0000:7C00). */
static void enter_real(struct cpu *cpu, uint64_t entry)
{
	seg_load_real(&cpu->seg[SR_CS], (uint16_t)((entry >> 4) & 0xf000));
	cpu->rip = entry & 0xffff;
	cpu_update_mode(cpu);
}

/* --entry64: a direct 64-bit start for test guests. IA-32e mode is active
 * (EFER.LME = LMA = 1, CR0 = PE|ET|PG, CR4.PAE; SDM Vol.3 9.8.5) with identity
 * page tables for the first 4 GiB in 2 MiB pages (SDM Vol.3 4.5, Table 4-17),
 * all supervisor read/write/execute, placed in low RAM:
 *   10000H PML4, 11000H PDPT, 12000H-15FFFH four page directories,
 *   16000H GDT: 08H flat 64-bit code (L=1), 10H flat data;
 * CS = 08H, DS/ES/SS/FS/GS = 10H, RSP = 10000H (growing down below the tables),
 * RFLAGS = 2, no IDT (IDTR limit 0: the guest installs its own). */
#define E64_PML4 0x10000u
#define E64_PDPT 0x11000u
#define E64_PD   0x12000u
#define E64_GDT  0x16000u
#define E64_END  0x17000u

static void enter_long64(struct cpu *cpu, struct physmem *pm, uint64_t entry)
{
	physmem_write(pm, E64_PML4, 8, E64_PDPT | 3);
	for (unsigned i = 1; i < 512; i++)
		physmem_write(pm, E64_PML4 + i * 8, 8, 0);
	for (unsigned i = 0; i < 512; i++)
		physmem_write(pm, E64_PDPT + i * 8, 8, i < 4 ? (E64_PD + i * 0x1000u) | 3 : 0);
	for (unsigned i = 0; i < 4 * 512; i++)
		physmem_write(pm, E64_PD + i * 8, 8, ((uint64_t)i << 21) | 0x83);   /* P RW PS */
	/* SDM Vol.3 3.4.5: code 9BH with L=1 (flags AH), data 93H with G/B (flags CH). */
	uint64_t code = 0x00af9b000000ffffull, data = 0x00cf93000000ffffull;
	physmem_write(pm, E64_GDT, 8, 0);
	physmem_write(pm, E64_GDT + 8, 8, code);
	physmem_write(pm, E64_GDT + 16, 8, data);
	cpu->gdtr.base = E64_GDT;
	cpu->gdtr.limit = 23;
	cpu->idtr.base = 0;
	cpu->idtr.limit = 0;
	cpu->cr3 = E64_PML4;
	cpu->cr4 = CR4_PAE;
	cpu->efer = EFER_LME | EFER_LMA;
	cpu->cr0 = CR0_PE | CR0_ET | CR0_PG;
	seg_load_descriptor(&cpu->seg[SR_CS], 0x08, code);
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			seg_load_descriptor(&cpu->seg[s], 0x10, data);
	cpu->cpl = 0;
	cpu->regs[R_SP] = E64_PML4;
	cpu_set_flags(cpu, FLAG_FIXED1);
	cpu->rip = entry;
	cpu_update_mode(cpu);
	tlb_flush_all(&cpu->tlb);
}

/* A guest-physical range [start, end) something is loaded into, and its name
 * for error messages. */
struct placed {
	uint64_t start, end;
	char what[96];
};

static bool overlaps(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	return a0 < b1 && b0 < a1;
}

/* The file of a --module "FILE ARGS": up to the first space, as QEMU splits
 * an -initrd entry (hw/i386/multiboot.c). A malloc'ed copy, NULL if out of
 * memory. */
static char *module_file(const char *module)
{
	return strndup(module, strcspn(module, " "));
}

/* Refuse an output that is one of the inputs: opening it for writing would
 * truncate the file before it is read. Compared by device and inode, so other
 * spellings of a path and hard links are caught; an output that does not exist
 * yet cannot be an input. */
static bool output_clear(const struct machine_config *cfg, const char *option, const char *out, char *err,
			 size_t errlen)
{
	struct stat os, is;
	if (stat(out, &os) != 0)
		return true;
	const char *inputs[MACHINE_MAX_LOADS + 2];
	unsigned n = 0;
	if (cfg->kernel)
		inputs[n++] = cfg->kernel;
	if (cfg->bios)
		inputs[n++] = cfg->bios;
	for (unsigned i = 0; i < cfg->n_loads; i++)
		inputs[n++] = cfg->loads[i].path;
	for (unsigned i = 0; i < n; i++)
		if (stat(inputs[i], &is) == 0 && is.st_dev == os.st_dev && is.st_ino == os.st_ino)
			return fail(err, errlen, "%s%s is the input '%s'; writing it would destroy it",
				    option, out, inputs[i]);
	for (unsigned i = 0; i < cfg->n_modules; i++) {
		char *path = module_file(cfg->modules[i]);
		bool same = path && stat(path, &is) == 0 && is.st_dev == os.st_dev && is.st_ino == os.st_ino;
		if (same)
			fail(err, errlen, "%s%s is the module '%s'; writing it would destroy it",
			     option, out, path);
		free(path);
		if (same)
			return false;
	}
	return true;
}

/* The canonical name of a path that may not exist yet: its folder resolved
 * (symbolic links, "..", other spellings) and its last component. False if
 * the folder cannot be resolved. */
static bool canonical_output(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	char dir[4096], real[4096];
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (!realpath(dir, real))
		return false;
	snprintf(out, len, "%s/%s", real, slash ? slash + 1 : path);
	return true;
}

/* Whether two output paths name one file: the same inode if both exist, else
 * the same canonical name (the second write would replace the first). */
static bool same_output(const char *a, const char *b)
{
	struct stat sa, sb;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	char ca[8192], cb[8192];
	if (!canonical_output(a, ca, sizeof(ca)) || !canonical_output(b, cb, sizeof(cb)))
		return !strcmp(a, b);
	return !strcmp(ca, cb);
}

/* Options the parser cannot see through: what must hold between them. */
static bool config_check(const struct machine_config *cfg, char *err, size_t errlen)
{
	if (!cfg->kernel && !cfg->bios && !cfg->has_entry)
		return fail(err, errlen, "nothing to run: give --kernel, --bios, or --load with --entry");
	if (cfg->has_entry && (cfg->kernel || cfg->bios))
		return fail(err, errlen, "--entry applies to --load images, not to a --kernel or --bios");
	if (cfg->has_entry && !cfg->n_loads)
		return fail(err, errlen, "--entry needs a --load image");
	if (cfg->entry64) {
		/* CPUID.80000001H:EDX.LM[29]. */
		if (!cpu_model_has(cfg->model, 0x80000001, 3, 29))
			return fail(err, errlen, "--entry64 needs a CPU model with long mode (e.g. --cpu skylake-lite)");
		if (!canonical_bits(cfg->entry, 48))      /* the 4-level tables it builds */
			return fail(err, errlen, "--entry64 0x%llx is not a canonical address",
				    (unsigned long long)cfg->entry);
	} else if (cfg->has_entry && cfg->entry >= 0x100000)
		return fail(err, errlen, "--entry 0x%llx is not reachable in real mode (must be below 1 MiB)",
			    (unsigned long long)cfg->entry);
	if (cfg->serial_path && !output_clear(cfg, "--serial file:", cfg->serial_path, err, errlen))
		return false;
	if (cfg->serial_path && cfg->screenshot && same_output(cfg->serial_path, cfg->screenshot))
		return fail(err, errlen, "--serial file:%s and --screenshot %s are one file; the screenshot would "
			    "replace the serial log", cfg->serial_path, cfg->screenshot);
	if (cfg->screenshot && (!output_clear(cfg, "--screenshot ", cfg->screenshot, err, errlen) ||
				!display_screenshot_writable(cfg->screenshot, err, errlen)))
		return false;
	return true;
}

/* Load the --load images after the kernel and the BIOS (fixed[0..n_fixed)),
 * refusing any that overlaps one of those or an earlier --load: one would
 * silently overwrite the other. */
static bool load_flat_images(struct machine *m, const struct machine_config *cfg,
			     struct placed *fixed, unsigned n_fixed, char *err, size_t errlen)
{
	struct placed done[MACHINE_MAX_LOADS];
	bool entry_inside = false;
	for (unsigned i = 0; i < cfg->n_loads; i++) {
		const struct flat_load *l = &cfg->loads[i];
		uint8_t *data;
		size_t size;
		if (!loader_read_file(l->path, (size_t)cfg->ram_size, &data, &size, err, errlen))
			return false;
		uint64_t end = l->addr + size;
		struct placed *p = &done[i];
		*p = (struct placed){ .start = l->addr, .end = end };
		snprintf(p->what, sizeof(p->what), "--load %s@0x%llx", l->path, (unsigned long long)l->addr);
		bool ok = loader_load_flat(&m->mem, data, size, l->addr, err, errlen);
		free(data);
		if (!ok)
			return false;
		for (unsigned j = 0; j < n_fixed + i; j++) {
			const struct placed *q = j < n_fixed ? &fixed[j] : &done[j - n_fixed];
			if (overlaps(p->start, p->end, q->start, q->end))
				return fail(err, errlen, "%s (0x%llx-0x%llx) overlaps %s (0x%llx-0x%llx)", p->what,
					    (unsigned long long)p->start, (unsigned long long)end - 1, q->what,
					    (unsigned long long)q->start, (unsigned long long)q->end - 1);
		}
		entry_inside |= cfg->entry >= p->start && cfg->entry < p->end;
	}
	if (cfg->has_entry && !entry_inside)
		return fail(err, errlen, "%s 0x%llx is not inside any --load image", cfg->entry64 ? "--entry64" : "--entry",
			    (unsigned long long)cfg->entry);
	return true;
}

/* What a range the multiboot loader wrote holds, for error messages. */
static void describe_range(const struct machine_config *cfg, const struct multiboot_boot *boot,
			   unsigned i, char *what, size_t len)
{
	switch (boot->range[i].kind) {
	case MB_RANGE_SEGMENT:
		snprintf(what, len, "a segment of %s", cfg->kernel);
		break;
	case MB_RANGE_INFO:
		snprintf(what, len, "the multiboot information of %s", cfg->kernel);
		break;
	case MB_RANGE_MODULE:
		snprintf(what, len, "module %u ('%s')", boot->range[i].index, cfg->modules[boot->range[i].index]);
		break;
	}
}

/* Read the --module files, load the kernel and them, and add what they
 * occupy to fixed[] (what --load images must stay clear of), after checking
 * that none of it overlaps what is there already (the ACPI tables). */
static bool load_kernel(struct machine *m, const struct machine_config *cfg, struct multiboot_boot *boot,
			struct placed *fixed, unsigned *n_fixed, char *err, size_t errlen)
{
	struct multiboot_module mods[MB_MAX_MODULES];
	uint8_t *data[MB_MAX_MODULES + 1] = { 0 };
	unsigned n_read = 0;
	bool ok = false;
	char why[512];
	for (; n_read < cfg->n_modules; n_read++) {
		char *path = module_file(cfg->modules[n_read]);
		if (!path) {
			fail(err, errlen, "out of memory");
			goto out;
		}
		bool read = loader_read_file(path, (size_t)cfg->ram_size, &data[n_read], &mods[n_read].size,
					     why, sizeof(why));
		free(path);
		if (!read) {
			fail(err, errlen, "--module '%s': %s", cfg->modules[n_read], why);
			goto out;
		}
		mods[n_read].data = data[n_read];
		mods[n_read].string = cfg->modules[n_read];
	}
	size_t size;
	if (!loader_read_file(cfg->kernel, (size_t)cfg->ram_size, &data[n_read], &size, err, errlen))
		goto out;
	if (!multiboot_load(&m->mem, data[n_read], size, cfg->kernel, cfg->cmdline ? cfg->cmdline : "",
			    mods, cfg->n_modules, boot, why, sizeof(why))) {
		fail(err, errlen, "%s: %s", cfg->kernel, why);
		goto out;
	}
	unsigned first = *n_fixed;
	for (unsigned i = 0; i < boot->n_ranges; i++) {
		struct placed *p = &fixed[(*n_fixed)++];
		*p = (struct placed){ .start = boot->range[i].start, .end = boot->range[i].end };
		describe_range(cfg, boot, i, p->what, sizeof(p->what));
		for (unsigned j = 0; j < first; j++)
			if (overlaps(p->start, p->end, fixed[j].start, fixed[j].end)) {
				fail(err, errlen, "%s (0x%llx-0x%llx) overlaps %s (0x%llx-0x%llx)", p->what,
				     (unsigned long long)p->start, (unsigned long long)p->end - 1, fixed[j].what,
				     (unsigned long long)fixed[j].start, (unsigned long long)fixed[j].end - 1);
				goto out;
			}
	}
	ok = true;
out:
	for (unsigned i = 0; i < MB_MAX_MODULES + 1; i++)
		free(data[i]);
	return ok;
}

/* What the images must stay clear of that is there before them: the BIOS's
 * copy below 1 MiB and the ACPI tables; the count. */
static unsigned firmware_ranges(const struct machine *m, struct placed *fixed)
{
	unsigned n = 0;
	if (m->bios_size) {
		uint64_t low = m->bios_size < BIOS_ISA_WINDOW ? m->bios_size : BIOS_ISA_WINDOW;
		fixed[n++] = (struct placed){ .start = 0x100000 - low, .end = 0x100000,
					      .what = "the BIOS below 1 MiB" };
	}
	if (m->boot.acpi_built)
		fixed[n++] = (struct placed){ .start = m->boot.acpi.rsdp, .end = m->boot.acpi.end,
					      .what = "the ACPI tables" };
	return n;
}

/* Load the kernel, its modules and the --load images, and enter them: at
 * power-on and again after a guest's reset, over the RAM the guest left (as
 * QEMU's -kernel loads its kernel again on a reboot); a BIOS starts at the
 * reset vector F000:FFF0 that cpu_init() or cpu_reset() set. */
static bool load_and_enter(struct machine *m, const struct machine_config *cfg, char *err, size_t errlen)
{
	struct placed fixed[MB_MAX_RANGES + 3];
	unsigned n_fixed = firmware_ranges(m, fixed);
	struct multiboot_boot boot;
	if (cfg->kernel && !load_kernel(m, cfg, &boot, fixed, &n_fixed, err, errlen))
		return false;
	if (cfg->entry64)
		fixed[n_fixed++] = (struct placed){ .start = 0x8000, .end = E64_END,
						    .what = "the --entry64 stack and page tables" };
	if (!load_flat_images(m, cfg, fixed, n_fixed, err, errlen))
		return false;
	if (cfg->kernel)
		enter_multiboot(&m->cpu, &m->mem, &boot);
	else if (cfg->entry64)
		enter_long64(&m->cpu, &m->mem, cfg->entry);
	else if (cfg->has_entry)
		enter_real(&m->cpu, cfg->entry);
	if (!cfg->bios)
		smp_firmware_handoff(m);    /* the BSP's APIC as firmware leaves it */
	return true;
}

/* A guest's reset (README "Exit status", --no-reboot): the hardware as at
 * power-on (cli/reboot.h), then the BIOS's copy below 1 MiB restored from the
 * image (its ROM at the top of memory cannot change), or the kernel and images
 * loaded and entered again. False with a reason in err when a file can no
 * longer be read. */
static bool reboot(struct machine *m, char *err, size_t errlen)
{
	const struct machine_config *cfg = m->cfg;
	reboot_reset_hardware(m);
	if (cfg->bios) {
		uint8_t *data;
		size_t size;
		if (!loader_read_file(cfg->bios, BIOS_MAX, &data, &size, err, errlen))
			return false;
		bool same = size == m->bios_size;
		if (same)
			loader_copy_bios_low(&m->mem, data, size);
		free(data);
		if (!same)
			return fail(err, errlen, "the BIOS %s changed size during the run", cfg->bios);
	}
	return load_and_enter(m, cfg, err, errlen);
}

bool machine_setup(struct machine *m, const struct machine_config *cfg, char *err,
		   size_t errlen)
{
	memset(m, 0, sizeof(*m));
	m->cfg = cfg;
	m->no_reboot = cfg->no_reboot;
	if (!config_check(cfg, err, errlen))
		return false;
	if (!physmem_init(&m->mem, cfg->ram_size))
		return fail(err, errlen, "cannot allocate %llu MiB of guest RAM",
			    (unsigned long long)(cfg->ram_size >> 20));

	iobus_init(&m->io);
	uart_init(&m->uart, UART_COM1_BASE, cfg->serial);
	debug_exit_init(&m->dexit, DEBUG_EXIT_PORT, stop_cpu, m);
	post_port_init(&m->post, NULL, NULL);
	/* The VGA's text buffer is RAM (the CPU's fast path reaches it); the
	 * smallest --mem (2M) covers it. */
	if (cfg->ram_size < VGA_TEXT_BASE + VGA_TEXT_SIZE)
		return fail(err, errlen, "internal error: RAM too small for the VGA text buffer");
	vga_init(&m->vga, m->mem.ram + VGA_TEXT_BASE, &m->clock);
	if (!uart_register(&m->uart, &m->io) || !debug_exit_register(&m->dexit, &m->io) ||
	    !post_port_register(&m->post, &m->io) || !vga_register(&m->vga, &m->io))
		return fail(err, errlen, "internal error: device ports overlap");
	for (unsigned i = 0; i < cfg->n_keys; i++) {
		char why[256];
		if (!key_script_add(&m->keys, cfg->keys[i], why, sizeof(why)))
			return fail(err, errlen, "bad --keys: %s", why);
	}

	cpu_init(&m->cpu, cfg->model, &m->mem, &m->io);
	m->cpu_ready = true;
	vclock_init(&m->clock, cfg->insn_rate ? cfg->insn_rate : VCLOCK_DEFAULT_HZ);
	m->clock.now = clock_now;
	m->clock.now_ctx = m;
	m->clock.deadline_changed = clock_deadline_changed;
	m->clock.deadline_ctx = m;
	m->realtime = cfg->realtime;
	m->cpu.icount_limit = cfg->max_insns;
	m->cpu.tlb_uncached = cfg->tlb_uncached;
	m->dump_pt = cfg->dump_pt;
	m->mem.on_ram_write = ram_written;
	m->mem.on_ram_write_opaque = m;
	/* Always attached: a triple fault is reported even without --trace. */
	trace_init(&m->trace, stderr);
	trace_attach(&m->trace, &m->cpu, cfg->trace);
	/* The other CPUs, the local APICs and the I/O APIC (cli/smp.c). */
	if (!smp_setup(m, cfg, err, errlen))
		return false;
	exit_watch_init(&m->watch, &cfg->watch, stderr);
	for (unsigned i = 0; i < m->smp.n; i++) {
		struct cpu *c = m->smp.cpu[i];
		c->deadlines[DEADLINE_MACHINE] = (struct deadline){ .at = UINT64_MAX, .fire = clock_due,
								    .ctx = m };
		c->tsc_hz = m->clock.hz;       /* RDTSC counts instructions: CPUID 15H/16H */
		/* A model with SVM gets the SVM model on every CPU (svm/svm.h):
		 * CPUID reports SVM from here on. */
		if (cfg->model && cfg->model->hv_ext == HV_EXT_SVM) {
			m->svm[i] = svm_create(c, cfg->svm_quirks);
			if (!m->svm[i])
				return fail(err, errlen, "out of memory for the SVM model");
		}
		exit_watch_attach(&m->watch, c);
	}
	struct rtc_config rtc = { .start = cfg->rtc_base.year ? cfg->rtc_base : RTC_DEFAULT_START,
				  .ram_size = cfg->ram_size, .cpus = m->smp.n };
	if (!pc_legacy_setup(&m->pc, &m->cpu, &m->mem, &m->io, &m->clock, &rtc))
		return fail(err, errlen, "internal error: interrupt controller or timer ports overlap");
	/* With local APICs the 8259A reaches the CPUs through LINT0, the ISA
	 * IRQs the I/O APIC's pins as well (cli/smp.c). */
	smp_wire_legacy(m);

	/* The boot-contract devices, and what the machine is made of for fw_cfg
	 * and ACPI: the CPUs and their APICs as smp_setup() built them; each
	 * device's set-up adds itself. */
	if (!pc_boot_devices(&m->boot, &m->cpu, &m->io, &m->mem))
		return fail(err, errlen, "internal error: device ports overlap");
	m->boot.stop = stop_running_cpu;
	m->boot.stop_ctx = m;
	for (unsigned gsi = 0; gsi < PC_TESTDEV_IRQS; gsi++)
		m->boot.gsi[gsi] = (struct irq_line){ pc_legacy_gsi_set, &m->pc, gsi };
	/* The 8042's outputs are ISA IRQ1 (keyboard) and IRQ12 (auxiliary), levels
	 * as its output buffer holds their data (devices/i8042.h). */
	m->boot.i8042.irq1 = (struct irq_line){ pc_legacy_gsi_set, &m->pc, 1 };
	m->boot.i8042.irq12 = (struct irq_line){ pc_legacy_gsi_set, &m->pc, 12 };
	key_script_start(&m->keys, &m->clock, &m->boot.i8042);
	m->desc.keyboard = true;   /* the 8042 and its keyboard, in pc_boot_devices */
	m->desc.vga = true;        /* VGA text mode, above */
	m->desc.n_cpus = m->desc.max_cpus = m->smp.n;
	m->desc.lapic = m->smp.has_apic;
	m->desc.ioapic = m->smp.has_apic;     /* built with the local APICs (smp_setup) */
	m->desc.pic = true;
	m->desc.rtc = true;
	m->desc.rtc_century = RTC_CENTURY;
	m->desc.hpet = true;
	m->desc.hpet_block_id = (uint32_t)hpet_gcap_id();
	/* IA-PC HPET 1.0a 3.2.4: the minimum periodic tick, in counter ticks;
	 * QEMU's machine says 128 too. */
	m->desc.hpet_min_tick = 128;

	if (cfg->bios) {
		uint8_t *data;
		size_t size;
		if (!loader_read_file(cfg->bios, BIOS_MAX, &data, &size, err, errlen))
			return false;
		bool ok = loader_load_bios(&m->mem, data, size, err, errlen);
		free(data);
		if (!ok)
			return false;
		m->bios_size = size;
	}
	/* The firmware data: fw_cfg always, ACPI tables unless a BIOS brings its own. */
	if (!pc_boot_firmware(&m->boot, &m->mem, &m->desc, !cfg->bios, err, errlen))
		return false;
	if (!load_and_enter(m, cfg, err, errlen))
		return false;

	/* Outputs last: nothing is truncated unless the run is about to start
	 * (the window first: it may fail, and truncates nothing). */
	if (!display_open(&m->display, cfg->display, cfg->screenshot, &m->vga, &m->boot.i8042, &m->clock, &m->cpu,
			  err, errlen))
		return false;
	if (cfg->serial_path) {
		m->serial_file = fopen(cfg->serial_path, "w");
		if (!m->serial_file)
			return fail(err, errlen, "cannot open serial output '%s': %s", cfg->serial_path,
				    strerror(errno));
		m->uart.out = m->serial_file;
		m->serial_path = cfg->serial_path;
	}
	return true;
}

void machine_destroy(struct machine *m)
{
	/* The window and the key timers first: cancelling a timer tells the CPU. */
	display_close(&m->display);
	key_script_free(&m->keys);
	pc_boot_destroy(&m->boot);
	if (m->cpu_ready) {
		for (unsigned i = 0; i < MACHINE_MAX_CPUS; i++) {
			svm_destroy(m->svm[i]);
			m->svm[i] = NULL;
		}
		smp_destroy(m);
		cpu_destroy(&m->cpu);
		trace_destroy(&m->trace);
		exit_watch_destroy(&m->watch);
	}
	physmem_destroy(&m->mem);
	m->cpu_ready = false;
	if (m->serial_file)
		fclose(m->serial_file);
	m->serial_file = NULL;
}

static void report(struct machine *m, const char *what, uint64_t ip)
{
	struct cpu *cpu = smp_current(m);
	fprintf(stderr, "hvemu: %s at %04x:%08llx after %llu instructions", what,
		cpu->seg[SR_CS].selector, (unsigned long long)ip, (unsigned long long)cpu->icount);
	if (m->smp.n > 1)
		fprintf(stderr, " (CPU %u)", cpu->apic_id);
	if (m->post.written)
		fprintf(stderr, " (last POST code 0x%02x)", m->post.last);
	fputc('\n', stderr);
}

/* --- SIGINT, SIGTERM, SIGHUP, SIGUSR2 (and SIGUSR1 without --display text) --- */

/* The signals that stop the run as Ctrl-C does: where the CPU was is reported
 * and the serial output flushed, where their default action would kill hvemu
 * with the guest's last unterminated line still in its buffer. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR2 };
#define N_STOP_SIGNALS (sizeof(stop_signals) / sizeof(stop_signals[0]))

/* The machine whose CPUs the handler stops, and the signal that stopped it.
 * The handler only stores: the signal number, and the stop requests (atomic
 * ORs into the attention words the run loop checks after every instruction). */
static _Atomic(struct machine *) signal_machine;
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
	struct machine *m = atomic_load(&signal_machine);
	if (m)
		for (unsigned i = 0; i < m->smp.n; i++)
			cpu_request_stop(m->smp.cpu[i]);
}

/* The previous actions, restored after the run; [N_STOP_SIGNALS] is SIGUSR1's. */
struct saved_signals {
	struct sigaction old[N_STOP_SIGNALS + 1];
	bool usr1;                 /* SIGUSR1 was set to be ignored */
};

/* Install the handlers for one run. SA_RESETHAND: a second signal finds the
 * default action and kills at once, for a run that does not stop. SIGUSR1
 * prints the screen with --display text (cli/display.c catches it); without,
 * it has no use and is ignored rather than killing the run. */
static void catch_stop_signals(struct machine *m, struct saved_signals *saved)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sa.sa_flags = SA_RESETHAND | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	stop_signal = 0;
	atomic_store(&signal_machine, m);
	for (unsigned i = 0; i < N_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &sa, &saved->old[i]);
	saved->usr1 = m->display.kind != DISPLAY_TEXT;
	if (saved->usr1) {
		struct sigaction ign;
		memset(&ign, 0, sizeof(ign));
		ign.sa_handler = SIG_IGN;
		sigemptyset(&ign.sa_mask);
		sigaction(SIGUSR1, &ign, &saved->old[N_STOP_SIGNALS]);
	}
}

static void release_stop_signals(const struct saved_signals *saved)
{
	for (unsigned i = 0; i < N_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &saved->old[i], NULL);
	if (saved->usr1)
		sigaction(SIGUSR1, &saved->old[N_STOP_SIGNALS], NULL);
	atomic_store(&signal_machine, NULL);
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	case SIGUSR2: return "SIGUSR2";
	default: return "a signal";
	}
}

/* Where a signal stopped the run: the next instruction, the count, POST. */
static void report_signal(struct machine *m, int sig)
{
	struct cpu *cpu = smp_current(m);
	fprintf(stderr, "hvemu: stopped by %s after %llu instructions, ", signal_name(sig),
		(unsigned long long)cpu->icount);
	if (m->post.written)
		fprintf(stderr, "last POST code 0x%02x, ", m->post.last);
	else
		fputs("no POST code written, ", stderr);
	fputs("next instruction at ", stderr);
	trace_print_site(&m->trace, cpu, cpu->rip);
}

/* isa-debug-exit: the status is (V<<1)|1, but the OS keeps its low 8 bits, so
 * for V >= 128 the shell sees another value (V = 128 gives 1, a "pass"). */
static int debug_exit_result(const struct debug_exit *d)
{
	uint32_t v = d->value;
	int status = debug_exit_status(d);
	if (v >= 128)
		fprintf(stderr, "hvemu: warning: the guest wrote %u (0x%02x) to isa-debug-exit; the status "
			"(V<<1)|1 = %llu does not fit in 8 bits, so the exit status will be %d, which reads as V = %d%s\n",
			v, v, ((unsigned long long)v << 1) | 1, status, status >> 1,
			status == 1 ? " (a pass)" : "");
	return status;
}

/* Why cpu_run() returned st: the report on stderr and the exit status. */
static int run_status(struct machine *m, status_t st)
{
	struct cpu *cpu = smp_current(m);    /* the CPU that ended the run */
	switch (st) {
	case ST_STOP:
		if (m->dexit.exited)
			return debug_exit_result(&m->dexit);
		if (exit_watch_livelocked(&m->watch)) {
			exit_watch_report_livelock(&m->watch);
			return EXIT_LIVELOCK;
		}
		if (m->reboot_failed)
			return EXIT_EMULATOR;
		if (m->boot.requested.what) {
			char what[160];
			bool reset = m->boot.requested.what == POWER_RESET;
			snprintf(what, sizeof(what), "%s requested through %s", reset ? "reset" : "power-off",
				 m->boot.requested.source);
			report(m, what, cpu->rip);
			return reset ? EXIT_RESET : EXIT_POWER_OFF;
		}
		if (m->display.closed) {
			report(m, "stopped: the display window was closed", cpu->rip);
			return EXIT_SIGNAL;
		}
		if (stop_signal) {
			report_signal(m, stop_signal);
			return EXIT_SIGNAL;
		}
		if (m->smp.limit && cpu->icount >= m->smp.limit) {
			report(m, "instruction limit reached", cpu->rip);
			return EXIT_INSN_LIMIT;
		}
		report(m, "stopped for no known reason", cpu->rip);
		return EXIT_EMULATOR;
	case ST_SHUTDOWN:
		report(m, "triple fault (shutdown)", cpu->insn_start);
		trace_print_fault_chain(&m->trace, cpu);
		return EXIT_SHUTDOWN;
	case ST_HALT:
		report(m, (cpu_get_flags(cpu) & FLAG_IF) ? "HLT with no interrupt source"
							 : "HLT with interrupts disabled", cpu->rip);
		return EXIT_HALTED;
	case ST_UNSUPPORTED:
		if (m->trace.note)
			fprintf(stderr, "hvemu: unsupported: %s, after %llu instructions at ",
				m->trace.note, (unsigned long long)cpu->icount);
		else
			fprintf(stderr, "hvemu: unsupported instruction after %llu instructions at ",
				(unsigned long long)cpu->icount);
		trace_print_site(&m->trace, cpu, cpu->insn_start);
		return EXIT_EMULATOR;
	default:
		report(m, "unexpected VM exit with no hypervisor model", cpu->rip);
		return EXIT_EMULATOR;
	}
}

int machine_run(struct machine *m)
{
	struct saved_signals saved;
	catch_stop_signals(m, &saved);
	clock_gettime(CLOCK_MONOTONIC, &m->host_start);
	status_t st;
	for (;;) {
		st = smp_run(m, &stop_signal);
		/* A reset request ends the turn; unless --no-reboot, the machine
		 * restarts and the run goes on (a debug exit or a signal in the same
		 * instruction wins). */
		if (st != ST_STOP || m->boot.requested.what != POWER_RESET || m->no_reboot || m->dexit.exited ||
		    stop_signal)
			break;
		char err[512];
		if (!reboot(m, err, sizeof(err))) {
			fprintf(stderr, "hvemu: error: cannot restart after the guest's reset: %s\n", err);
			m->reboot_failed = true;
			break;
		}
		m->reboots++;
	}
	release_stop_signals(&saved);
	struct cpu *cpu = smp_current(m);    /* the CPU that ended the run */
	bool serial_lost = false;
	int serial_errno = 0;
	if (m->uart.out) {
		errno = 0;
		serial_lost = fflush(m->uart.out) != 0 || ferror(m->uart.out);
		serial_errno = errno;
	}
	if (m->dump_pt == DUMP_PT_EXIT || (m->dump_pt == DUMP_PT_SHUTDOWN && st == ST_SHUTDOWN)) {
		struct paging_env env = cpu_paging_env(cpu);
		paging_dump(&env, stderr);
	}
	display_finish(&m->display);
	int status = run_status(m, st);
	exit_watch_report_stats(&m->watch, cpu_now(cpu));
	/* The guest's log is the run's result as much as its status. */
	if (!serial_lost)
		return status;
	fprintf(stderr, "hvemu: error: serial output to %s was lost: %s\n", m->serial_path ? m->serial_path : "stdout",
		serial_errno ? strerror(serial_errno) : "a write failed");
	return EXIT_EMULATOR;
}
