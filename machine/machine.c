/* Machine assembly, boot and the reboot loop; see machine/machine.h. */
#include "machine/machine.h"

#include <stdlib.h>
#include <string.h>

#include "devices/bios_data_area.h"
#include "devices/kernel_image.h"
#include "devices/linux_boot.h"
#include "devices/loader.h"
#include "devices/fw_cfg_linux.h"
#include "devices/fw_cfg_multiboot.h"
#include "devices/multiboot.h"
#include "devices/pvh.h"
#include "devices/q35.h"
#include "emu/canonical.h"
#include "emu/cpu_model.h"
#include "emu/event_step.h"
#include "emu/insn.h"
#include "emu/quirks.h"
#include "machine/bare_machine.h"
#include "machine/boot_entry.h"
#include "machine/fail.h"
#include "machine/reboot.h"

#define BIOS_MAX (16u << 20)

/* A reset or power-off request (machine/pc_boot.h): the CPU running now stops
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

/* The machine's virtual time is the running CPU's (devices/clock.h, and the
 * schedule in machine/smp.h): its timers are that CPU's DEADLINE_MACHINE source. */
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

/* The --kernel as loaded: its format and where its loader put things. */
struct machine_kernel {
	enum kernel_format format;
	struct multiboot_boot multiboot;
	struct linux_boot bzimage;
	struct pvh_boot pvh;
};

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

char *machine_module_file(const char *module)
{
	return strndup(module, strcspn(module, " "));
}

bool machine_config_check(const struct machine_config *cfg, char *err, size_t errlen)
{
	if (!cfg->kernel && !cfg->bios && !cfg->has_entry)
		return fail(err, errlen, "nothing to run: give --kernel, --bios, or --load with --entry");
	if (cfg->has_entry && (cfg->kernel || cfg->bios))
		return fail(err, errlen, "--entry applies to --load images, not to a --kernel or --bios");
	if (cfg->has_entry && !cfg->n_loads)
		return fail(err, errlen, "--entry needs a --load image");
	/* RAM below 4 GiB ends where q35's ECAM window starts (devices/q35.h). */
	if (cfg->chipset == PC_Q35 && cfg->ram_size > Q35_ECAM_BASE)
		return fail(err, errlen, "--machine q35 has at most %lluM of RAM: its PCIe ECAM window starts at 0x%x",
			    (unsigned long long)(Q35_ECAM_BASE >> 20), Q35_ECAM_BASE);
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
		loader_release_file(data, size);
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

/* Add [start, end) to fixed[] as what, after checking that it overlaps none
 * of fixed[0..first) (what was there before the kernel: the firmware). */
static bool add_fixed(struct placed *fixed, unsigned *n_fixed, unsigned first, uint64_t start, uint64_t end,
		      const char *what, char *err, size_t errlen)
{
	struct placed *p = &fixed[(*n_fixed)++];
	*p = (struct placed){ .start = start, .end = end };
	snprintf(p->what, sizeof(p->what), "%s", what);
	for (unsigned j = 0; j < first; j++)
		if (overlaps(p->start, p->end, fixed[j].start, fixed[j].end))
			return fail(err, errlen, "%s (0x%llx-0x%llx) overlaps %s (0x%llx-0x%llx)", p->what,
				    (unsigned long long)p->start, (unsigned long long)p->end - 1, fixed[j].what,
				    (unsigned long long)fixed[j].start, (unsigned long long)fixed[j].end - 1);
	return true;
}

/* Read the --module files into mods[] (data[] holds what to free, all NULL
 * on entry): false with the reason in err. */
static bool read_modules(const struct machine_config *cfg, struct multiboot_module *mods, uint8_t **data,
			 char *err, size_t errlen)
{
	char why[512];
	for (unsigned i = 0; i < cfg->n_modules; i++) {
		char *path = machine_module_file(cfg->modules[i]);
		if (!path)
			return fail(err, errlen, "out of memory");
		bool read = loader_read_file(path, (size_t)cfg->ram_size, &data[i], &mods[i].size, why, sizeof(why));
		free(path);
		if (!read)
			return fail(err, errlen, "--module '%s': %s", cfg->modules[i], why);
		mods[i].data = data[i];
		mods[i].string = cfg->modules[i];
	}
	return true;
}

/* Read the --module files, load the multiboot kernel (image, size) and them,
 * and add what they occupy to fixed[] (what --load images must stay clear
 * of), after checking that none of it overlaps what is there already (the
 * ACPI tables). */
static bool load_multiboot(struct machine *m, const struct machine_config *cfg, const uint8_t *image,
			   size_t size, struct multiboot_boot *boot, struct placed *fixed, unsigned *n_fixed,
			   char *err, size_t errlen)
{
	struct multiboot_module mods[MB_MAX_MODULES];
	uint8_t *data[MB_MAX_MODULES] = { 0 };
	bool ok = false;
	char why[512];
	if (cfg->initrd) {
		fail(err, errlen, "%s is a Multiboot kernel: give its modules with --module, --initrd is for Linux",
		     cfg->kernel);
		goto out;
	}
	if (!read_modules(cfg, mods, data, err, errlen))
		goto out;
	if (!multiboot_load(&m->mem, image, size, cfg->kernel, cfg->cmdline ? cfg->cmdline : "",
			    mods, cfg->n_modules, boot, why, sizeof(why))) {
		fail(err, errlen, "%s: %s", cfg->kernel, why);
		goto out;
	}
	unsigned first = *n_fixed;
	for (unsigned i = 0; i < boot->n_ranges; i++) {
		char what[96];
		describe_range(cfg, boot, i, what, sizeof(what));
		if (!add_fixed(fixed, n_fixed, first, boot->range[i].start, boot->range[i].end, what, err, errlen))
			goto out;
	}
	ok = true;
out:
	for (unsigned i = 0; i < MB_MAX_MODULES; i++)
		loader_release_file(data[i], data[i] ? mods[i].size : 0);
	return ok;
}

/* Load a Linux kernel (image, size) of format fmt, a bzImage or a PVH ELF,
 * with the --initrd file and the command line, and add what they occupy to
 * fixed[] as load_multiboot() does. */
static bool load_linux(struct machine *m, const struct machine_config *cfg, enum kernel_format fmt,
		       const uint8_t *image, size_t size, struct machine_kernel *k, struct placed *fixed,
		       unsigned *n_fixed, char *err, size_t errlen)
{
	if (cfg->n_modules)
		return fail(err, errlen, "%s is a Linux %s: give its initrd with --initrd, --module is for Multiboot",
			    cfg->kernel, kernel_format_name(fmt));
	uint8_t *initrd = NULL;
	size_t initrd_size = 0;
	char why[512];
	if (cfg->initrd && !loader_read_file(cfg->initrd, (size_t)cfg->ram_size, &initrd, &initrd_size, why,
					     sizeof(why)))
		return fail(err, errlen, "--initrd: %s", why);
	const char *cmdline = cfg->cmdline ? cfg->cmdline : "";
	uint64_t rsdp = m->boot.acpi_built ? m->boot.acpi.rsdp : 0;
	uint64_t start, end, rd_start, rd_end, low_start, low_end;
	bool ok;
	if (fmt == KERNEL_BZIMAGE) {
		ok = linux_load_bzimage(&m->mem, image, size, cmdline, initrd, initrd_size, rsdp, &k->bzimage, why,
					sizeof(why));
		start = k->bzimage.kernel_start, end = k->bzimage.kernel_end;
		rd_start = k->bzimage.initrd_start, rd_end = k->bzimage.initrd_end;
		low_start = k->bzimage.low_start, low_end = k->bzimage.low_end;
	} else {
		ok = pvh_load(&m->mem, image, size, cmdline, initrd, initrd_size, rsdp, &k->pvh, why, sizeof(why));
		start = k->pvh.image_start, end = k->pvh.image_end;
		rd_start = k->pvh.module_start, rd_end = k->pvh.module_end;
		low_start = k->pvh.low_start, low_end = k->pvh.low_end;
	}
	loader_release_file(initrd, initrd_size);
	if (!ok)
		return fail(err, errlen, "%s: %s", cfg->kernel, why);
	char what[96];
	unsigned first = *n_fixed;
	snprintf(what, sizeof(what), "the kernel %s", cfg->kernel);
	if (!add_fixed(fixed, n_fixed, first, start, end, what, err, errlen) ||
	    !add_fixed(fixed, n_fixed, first, low_start, low_end, "the Linux boot data", err, errlen))
		return false;
	snprintf(what, sizeof(what), "the initrd %s", cfg->initrd ? cfg->initrd : "");
	return !cfg->initrd || add_fixed(fixed, n_fixed, first, rd_start, rd_end, what, err, errlen);
}

/* Read the --kernel file and load it by its format (devices/kernel_image.h). */
static bool load_kernel(struct machine *m, const struct machine_config *cfg, struct machine_kernel *k,
			struct placed *fixed, unsigned *n_fixed, char *err, size_t errlen)
{
	uint8_t *image;
	size_t size;
	if (!loader_read_file(cfg->kernel, (size_t)cfg->ram_size, &image, &size, err, errlen))
		return false;
	k->format = kernel_format_of(image, size);
	bool ok;
	switch (k->format) {
	case KERNEL_MULTIBOOT:
		ok = load_multiboot(m, cfg, image, size, &k->multiboot, fixed, n_fixed, err, errlen);
		break;
	case KERNEL_BZIMAGE:
	case KERNEL_PVH:
		ok = load_linux(m, cfg, k->format, image, size, k, fixed, n_fixed, err, errlen);
		break;
	default: {
		/* Neither Linux nor PVH: the multiboot loader's reason (no header
		 * or a bad checksum) says what is missing. */
		char why[256];
		multiboot_find_header(image, size, why, sizeof(why));
		ok = fail(err, errlen, "%s: not a kernel hvemu boots: %s, no Linux boot protocol header "
			  "(\"HdrS\" at 0x202), no PVH ELF note", cfg->kernel, why);
		break;
	}
	}
	loader_release_file(image, size);
	return ok;
}

/* A Linux kernel (image, size) of format fmt, its --initrd and --cmdline as
 * fw_cfg items: a bzImage for linuxboot_dma.bin (devices/fw_cfg_linux.h), a
 * PVH vmlinux for pvh.bin (devices/fw_cfg_pvh.h; its image goes to RAM in
 * load_and_enter()). */
static bool firmware_linux(struct machine *m, const struct machine_config *cfg, enum kernel_format fmt,
			   const uint8_t *image, size_t size, const uint8_t *rom, size_t rom_size, char *err,
			   size_t errlen)
{
	uint8_t *initrd = NULL;
	size_t initrd_size = 0;
	char why[512];
	if (cfg->n_modules)
		return fail(err, errlen, "%s is a Linux %s: give its initrd with --initrd, --module is for Multiboot",
			    cfg->kernel, kernel_format_name(fmt));
	if (cfg->initrd && !loader_read_file(cfg->initrd, (size_t)cfg->ram_size, &initrd, &initrd_size, why,
					     sizeof(why)))
		return fail(err, errlen, "--initrd: %s", why);
	const char *cmdline = cfg->cmdline ? cfg->cmdline : "";
	bool ok = fmt == KERNEL_BZIMAGE
			  ? fw_cfg_add_linux(&m->boot.fw_cfg, cfg->ram_size, image, size, initrd, initrd_size, cmdline,
					     rom, rom_size, why, sizeof(why))
			  : fw_cfg_add_pvh(&m->boot.fw_cfg, cfg->ram_size, image, size, initrd, initrd_size, cmdline,
					   rom, rom_size, &m->firmware_image, why, sizeof(why));
	if (!ok)
		fail(err, errlen, "%s: %s", cfg->kernel, why);
	loader_release_file(initrd, initrd_size);
	return ok;
}

/* The Multiboot kernel (image, size), its --module files and --cmdline as
 * fw_cfg items for multiboot_dma.bin (devices/fw_cfg_multiboot.h). */
static bool firmware_multiboot(struct machine *m, const struct machine_config *cfg, const uint8_t *image,
			       size_t size, const uint8_t *rom, size_t rom_size, char *err, size_t errlen)
{
	struct multiboot_module mods[MB_MAX_MODULES];
	uint8_t *data[MB_MAX_MODULES] = { 0 };
	char why[512];
	bool ok;
	if (cfg->initrd)
		ok = fail(err, errlen, "%s is a Multiboot kernel: give its modules with --module, --initrd is for "
			  "Linux", cfg->kernel);
	else
		ok = read_modules(cfg, mods, data, err, errlen) &&
		     (fw_cfg_add_multiboot(&m->boot.fw_cfg, cfg->ram_size, image, size, cfg->kernel,
					   cfg->cmdline ? cfg->cmdline : "", mods, cfg->n_modules, rom, rom_size,
					   why, sizeof(why)) ||
		      fail(err, errlen, "%s: %s", cfg->kernel, why));
	for (unsigned i = 0; i < MB_MAX_MODULES; i++)
		loader_release_file(data[i], data[i] ? mods[i].size : 0);
	return ok;
}

/* --firmware with --kernel (QEMU's -kernel through its option ROMs): the
 * kernel goes to fw_cfg with the ROM of its format, from Debian's
 * qemu-system-data; the firmware loads it, nothing is loaded here. */
static bool firmware_kernel(struct machine *m, const struct machine_config *cfg, char *err, size_t errlen)
{
	uint8_t *image = NULL, *rom = NULL;
	size_t size, rom_size = 0;
	if (!loader_read_file(cfg->kernel, (size_t)cfg->ram_size, &image, &size, err, errlen))
		return false;
	enum kernel_format fmt = kernel_format_of(image, size);
	static const char *const rom_of[] = {
		[KERNEL_BZIMAGE] = MACHINE_OPTION_ROMS "linuxboot_dma.bin",
		[KERNEL_MULTIBOOT] = MACHINE_OPTION_ROMS "multiboot_dma.bin",
		[KERNEL_PVH] = MACHINE_OPTION_ROMS "pvh.bin",
	};
	bool ok;
	if (fmt != KERNEL_BZIMAGE && fmt != KERNEL_MULTIBOOT && fmt != KERNEL_PVH)
		ok = fail(err, errlen, "%s: not a kernel the firmware boots: no Multiboot header, no Linux boot "
			  "protocol header (\"HdrS\" at 0x202), no PVH ELF note", cfg->kernel);
	else
		ok = loader_read_file(rom_of[fmt], 0x10000, &rom, &rom_size, err, errlen);
	if (ok && fmt == KERNEL_MULTIBOOT)
		ok = firmware_multiboot(m, cfg, image, size, rom, rom_size, err, errlen);
	else if (ok)
		ok = firmware_linux(m, cfg, fmt, image, size, rom, rom_size, err, errlen);
	loader_release_file(image, size);
	loader_release_file(rom, rom_size);
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
	struct machine_kernel kernel;
	bool direct = cfg->kernel && !cfg->firmware;   /* else the firmware loads it */
	/* A kernel started without firmware still finds what a BIOS leaves
	 * below 1 MiB (devices/bios_data_area.h); the kernel's own bytes win. */
	if (direct && !cfg->bios)
		bios_data_area_write(&m->mem);
	if (direct && !load_kernel(m, cfg, &kernel, fixed, &n_fixed, err, errlen))
		return false;
	if (m->firmware_image.bytes)
		physmem_write_bytes(&m->mem, m->firmware_image.start, m->firmware_image.bytes,
				    m->firmware_image.len);
	if (cfg->entry64)
		fixed[n_fixed++] = (struct placed){ .start = 0x8000, .end = BOOT_E64_END,
						    .what = "the --entry64 stack and page tables" };
	if (!load_flat_images(m, cfg, fixed, n_fixed, err, errlen))
		return false;
	if (direct && kernel.format == KERNEL_MULTIBOOT)
		boot_enter_multiboot(&m->cpu, &m->mem, &kernel.multiboot);
	else if (direct && kernel.format == KERNEL_BZIMAGE)
		boot_enter_linux32(&m->cpu, &m->mem, &kernel.bzimage);
	else if (direct)
		boot_enter_pvh(&m->cpu, &m->mem, &kernel.pvh);
	else if (cfg->entry64)
		boot_enter_long64(&m->cpu, &m->mem, cfg->entry);
	else if (cfg->has_entry)
		boot_enter_real(&m->cpu, cfg->entry);
	if (!cfg->bios)
		smp_firmware_handoff(m);    /* the BSP's APIC as firmware leaves it */
	return true;
}

/* A guest's reset (README "Exit status", --no-reboot): the hardware as at
 * power-on (machine/reboot.h), then the BIOS's copy below 1 MiB restored from the
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
		loader_release_file(data, size);
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
	if (!machine_config_check(cfg, err, errlen))
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
	    !post_port_register(&m->post, &m->io) || !vga_register(&m->vga, &m->io) ||
	    (cfg->debugcon && !debugcon_register(&m->debugcon, &m->io)))
		return fail(err, errlen, "internal error: device ports overlap");

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
	/* A device wrote RAM: every CPU drops what it decoded there (through the
	 * BSP's ring of CPUs). */
	m->mem.on_ram_write = machine_ram_written;
	m->mem.on_ram_write_opaque = &m->cpu;
	/* Always attached: a triple fault is reported even without --trace. */
	trace_init(&m->trace, stderr);
	trace_attach(&m->trace, &m->cpu, cfg->trace);
	/* The other CPUs, the local APICs and the I/O APIC (machine/smp.c). */
	if (!smp_setup(m, cfg, err, errlen))
		return false;
	for (unsigned i = 0; i < m->smp.n; i++) {
		struct cpu *c = m->smp.cpu[i];
		c->deadlines[DEADLINE_MACHINE] = (struct deadline){ .at = UINT64_MAX, .fire = clock_due,
								    .ctx = m };
		c->tsc_hz = m->clock.hz;       /* RDTSC counts instructions: CPUID 15H/16H */
		/* A device access's bus cycle at this rate; --insn-rate starts at 1 MHz,
		 * where it is the instruction's own tick. */
		c->io_access_ticks = (uint32_t)(m->clock.hz / (1000000000u / IO_BUS_CYCLE_NS) - 1);
		c->quirks = quirk_set_for_model(cfg->quirks, cfg->model);
		/* The CPU model's hypervisor extension gets its model on every CPU
		 * (machine/hypervisor.h): CPUID reports it from here on. */
		if (!hv_create(&m->hv[i], c, cfg->model, c->quirks))
			return fail(err, errlen, "out of memory for the %s model", hv_name(cfg->model));
		if (cfg->perturb_exits && !hv_perturb_exits(&m->hv[i], cfg->perturb_seed + i))
			return fail(err, errlen, "--perturb-exits needs a CPU model with SVM or VMX ('%s' has neither)",
				    cfg->model->name);
	}
	struct rtc_config rtc = { .start = cfg->rtc_base.year ? cfg->rtc_base : RTC_DEFAULT_START,
				  .ram_size = cfg->ram_size, .cpus = m->smp.n };
	if (!pc_legacy_setup(&m->pc, &m->cpu, &m->mem, &m->io, &m->clock, &rtc))
		return fail(err, errlen, "internal error: interrupt controller or timer ports overlap");
	/* With local APICs the 8259A reaches the CPUs through LINT0, the ISA
	 * IRQs the I/O APIC's pins as well (machine/smp.c). */
	smp_wire_legacy(m);
	/* COM1's interrupt is ISA IRQ4 (as the ACPI/BIOS tables of a PC say). */
	m->uart.irq = (struct irq_line){ pc_legacy_gsi_set, &m->pc, 4 };

	/* The boot-contract devices, and what the machine is made of for fw_cfg
	 * and ACPI: the CPUs and their APICs as smp_setup() built them; each
	 * device's set-up adds itself. */
	if (!pc_boot_devices(&m->boot, cfg->chipset, &m->cpu, &m->io, &m->mem))
		return fail(err, errlen, "internal error: device ports overlap");
	m->boot.stop = stop_running_cpu;
	m->boot.stop_ctx = m;
	/* The boot devices' quirks (emu/quirks.def: the devices see flags only). */
	m->boot.pci.config_address_all_bits = cfg->quirks & QUIRK_BIT(QK_QEMU_PCI_CONFIG_ADDRESS_ALL_BITS);
	m->boot.i8042.system_flag_apart = cfg->quirks & QUIRK_BIT(QK_QEMU_KBD_SYSTEM_FLAG_APART);
	for (unsigned gsi = 0; gsi < PC_TESTDEV_IRQS; gsi++)
		m->boot.gsi[gsi] = (struct irq_line){ pc_legacy_gsi_set, &m->pc, gsi };
	/* The 8042's outputs are ISA IRQ1 (keyboard) and IRQ12 (auxiliary), levels
	 * as its output buffer holds their data (devices/i8042.h). */
	m->boot.i8042.irq1 = (struct irq_line){ pc_legacy_gsi_set, &m->pc, 1 };
	m->boot.i8042.irq12 = (struct irq_line){ pc_legacy_gsi_set, &m->pc, 12 };
	/* The chipset's power management (PIIX4 00:01.3 or ICH9 00:1F.0), its
	 * SCI on ISA IRQ 9. */
	if (!pc_boot_add_pm(&m->boot, &m->clock, &m->io))
		return fail(err, errlen, "internal error: the ACPI PM ports overlap");
	m->desc.chipset = cfg->chipset;
	m->desc.acpi_pm = true;
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
		loader_release_file(data, size);
		if (!ok)
			return false;
		m->bios_size = size;
	}
	/* The firmware data: fw_cfg always, ACPI tables unless a BIOS brings its own. */
	if (!pc_boot_firmware(&m->boot, &m->mem, &m->desc, cfg->bios != NULL, err, errlen))
		return false;
	if (cfg->firmware && cfg->kernel && !firmware_kernel(m, cfg, err, errlen))
		return false;
	return load_and_enter(m, cfg, err, errlen);
}

void machine_destroy(struct machine *m)
{
	free(m->firmware_image.bytes);
	m->firmware_image.bytes = NULL;
	pc_boot_destroy(&m->boot);
	if (m->cpu_ready) {
		for (unsigned i = 0; i < MACHINE_MAX_CPUS; i++) {
			hv_destroy(&m->hv[i]);
		}
		smp_destroy(m);
		cpu_destroy(&m->cpu);
		trace_destroy(&m->trace);
	}
	physmem_destroy(&m->mem);
	m->cpu_ready = false;
}


status_t machine_run(struct machine *m, const volatile sig_atomic_t *stop)
{
	clock_gettime(CLOCK_MONOTONIC, &m->host_start);
	for (;;) {
		status_t st = smp_run(m, stop);
		/* A reset request ends the turn; unless --no-reboot, the machine
		 * restarts and the run goes on (a debug exit or a stop request in
		 * the same instruction wins). */
		if (st != ST_STOP || m->boot.requested.what != POWER_RESET || m->no_reboot || m->dexit.exited ||
		    *stop)
			return st;
		if (!reboot(m, m->reboot_error, sizeof(m->reboot_error))) {
			m->reboot_failed = true;
			return st;
		}
		m->reboots++;
	}
}
