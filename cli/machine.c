/* Machine assembly and boot for the CLI; see cli/machine.h. */
#include "cli/machine.h"
#include "emu/paging_env.h"
#include "mmu/paging_dump.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "devices/loader.h"
#include "devices/multiboot.h"
#include "emu/canonical.h"
#include "emu/cpu_model.h"
#include "mmu/segment.h"

#define BIOS_MAX (16u << 20)

static bool fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return false;
}

static void stop_cpu(void *opaque, int status)
{
	struct cpu *cpu = opaque;
	cpu->stop_requested = true;   /* cpu_run() returns ST_STOP after this instruction */
}

static void ram_written(void *opaque, uint64_t pa, unsigned size)
{
	cpu_notify_phys_write(opaque, pa, size);
}

/* Multiboot 3.2 "Machine state" as QEMU's option ROM (pc-bios/optionrom/
 * multiboot.S) leaves it: EAX magic, EBX info, ECX the entry point (it jumps
 * through ECX), CS=0x08 flat 32-bit code, DS/ES/FS/GS/SS=0x10 flat data,
 * CR0 = PE (it writes 1; ET reads as 1, SDM Vol.3 2.5), paging off, EFLAGS.IF=0
 * (CLI) and DF=0 (CLD), A20 enabled (hvemu has no A20 gate). GDTR points at a
 * copy of the ROM's GDT in guest RAM. */
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

bool machine_setup(struct machine *m, const struct machine_config *cfg, char *err,
		   size_t errlen)
{
	memset(m, 0, sizeof(*m));
	if (!cfg->kernel && !cfg->bios && !cfg->has_entry)
		return fail(err, errlen, "nothing to run: give --kernel, --bios, or --load with --entry");
	if (cfg->has_entry && cfg->kernel)
		return fail(err, errlen, "--entry applies to --load images, not to a multiboot --kernel");
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
	if (!physmem_init(&m->mem, cfg->ram_size))
		return fail(err, errlen, "cannot allocate %llu MiB of guest RAM",
			    (unsigned long long)(cfg->ram_size >> 20));

	iobus_init(&m->io);
	uart_init(&m->uart, UART_COM1_BASE, cfg->serial);
	debug_exit_init(&m->dexit, DEBUG_EXIT_PORT, stop_cpu, &m->cpu);
	post_port_init(&m->post, NULL, NULL);
	if (!uart_register(&m->uart, &m->io) || !debug_exit_register(&m->dexit, &m->io) ||
	    !post_port_register(&m->post, &m->io))
		return fail(err, errlen, "internal error: device ports overlap");

	cpu_init(&m->cpu, cfg->model, &m->mem, &m->io);
	m->cpu_ready = true;
	m->cpu.icount_limit = cfg->max_insns;
	m->cpu.tlb_uncached = cfg->tlb_uncached;
	m->dump_pt = cfg->dump_pt;
	m->mem.on_ram_write = ram_written;
	m->mem.on_ram_write_opaque = &m->cpu;
	/* Always attached: a triple fault is reported even without --trace. */
	trace_init(&m->trace, stderr);
	trace_attach(&m->trace, &m->cpu, cfg->trace);

	uint8_t *data;
	size_t size;
	if (cfg->bios) {
		if (!loader_read_file(cfg->bios, BIOS_MAX, &data, &size, err, errlen))
			return false;
		bool ok = loader_load_bios(&m->mem, data, size, err, errlen);
		free(data);
		if (!ok)
			return false;
	}
	for (unsigned i = 0; i < cfg->n_loads; i++) {
		if (!loader_read_file(cfg->loads[i].path, (size_t)cfg->ram_size, &data, &size, err, errlen))
			return false;
		bool ok = loader_load_flat(&m->mem, data, size, cfg->loads[i].addr, err, errlen);
		free(data);
		if (!ok)
			return false;
		if (cfg->entry64 && cfg->loads[i].addr < E64_END && cfg->loads[i].addr + size > 0x8000)
			return fail(err, errlen, "--load at 0x%llx overlaps the --entry64 stack and page tables (8000H-16FFFH)",
				    (unsigned long long)cfg->loads[i].addr);
	}
	if (cfg->kernel) {
		struct multiboot_boot boot;
		if (!loader_read_file(cfg->kernel, (size_t)cfg->ram_size, &data, &size, err, errlen))
			return false;
		char why[256];
		bool ok = multiboot_load(&m->mem, data, size, cfg->kernel, cfg->cmdline ? cfg->cmdline : "",
					 &boot, why, sizeof(why));
		free(data);
		if (!ok)
			return fail(err, errlen, "%s: %s", cfg->kernel, why);
		enter_multiboot(&m->cpu, &m->mem, &boot);
	} else if (cfg->entry64) {
		enter_long64(&m->cpu, &m->mem, cfg->entry);
	} else if (cfg->has_entry) {
		enter_real(&m->cpu, cfg->entry);
	}
	/* else: the BIOS runs from the reset vector F000:FFF0 that cpu_init() set. */
	return true;
}

void machine_destroy(struct machine *m)
{
	if (m->cpu_ready) {
		cpu_destroy(&m->cpu);
		trace_destroy(&m->trace);
	}
	physmem_destroy(&m->mem);
	m->cpu_ready = false;
}

static void report(struct machine *m, const char *what, uint64_t ip)
{
	struct cpu *cpu = &m->cpu;
	fprintf(stderr, "hvemu: %s at %04x:%08llx after %llu instructions", what,
		cpu->seg[SR_CS].selector, (unsigned long long)ip, (unsigned long long)cpu->icount);
	if (m->post.written)
		fprintf(stderr, " (last POST code 0x%02x)", m->post.last);
	fputc('\n', stderr);
}

int machine_run(struct machine *m)
{
	struct cpu *cpu = &m->cpu;
	status_t st = cpu_run(cpu);
	if (m->uart.out)
		fflush(m->uart.out);
	if (m->dump_pt == DUMP_PT_EXIT || (m->dump_pt == DUMP_PT_SHUTDOWN && st == ST_SHUTDOWN)) {
		struct paging_env env = cpu_paging_env(cpu);
		paging_dump(&env, stderr);
	}
	switch (st) {
	case ST_STOP:
		if (m->dexit.exited)
			return m->dexit.status;
		if (cpu->icount_limit && cpu->icount >= cpu->icount_limit) {
			report(m, "instruction limit reached", cpu->rip);
			return EXIT_INSN_LIMIT;
		}
		report(m, "stopped for no known reason", cpu->rip);
		return EXIT_EMULATOR;
	case ST_SHUTDOWN:
		report(m, "triple fault (shutdown)", cpu->insn_start);
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
