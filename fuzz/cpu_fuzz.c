/* Fuzz target: the input is guest code, run in a small machine twice -- once in
 * real mode and once in flat 32-bit protected mode at CPL 0 -- for a bounded
 * number of instructions. Whatever the bytes do (fault, reload descriptor
 * tables, enable paging with a garbage CR3, write over their own code, I/O to
 * nothing) is an architectural event: the host must not crash, hang or touch
 * memory outside guest RAM. A run ends by HLT, shutdown (triple fault), the
 * instruction limit, or an instruction hvemu does not model (ST_UNSUPPORTED).
 *
 * One machine serves every input: between runs cpu_reset() empties the TLB and
 * the decoded-instruction cache at the cost of what the last run used, so an
 * input costs its own instructions, not a fresh 6 MiB cache.
 *
 * Guest-physical layout (1 MiB of RAM):
 *   0x00000  real-mode IVT: every vector -> 0000:0500
 *   0x00500  HLT (real-mode and protected-mode exception handlers)
 *   0x00800  GDT: null, flat code32 (0x08), flat data32 (0x10), code16 (0x18),
 *            data16 (0x20)
 *   0x01000  IDT: 256 32-bit interrupt gates -> 0x08:0x00000500
 *   0x08000  initial stack top
 *   0x10000  guest code (the input, at most CODE_MAX bytes)
 *   the rest of RAM from 0x01800 up: HLT (F4)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/bus.h"
#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "fuzz/fuzz.h"

#define RAM_SIZE (1u << 20)
#define CODE_ADDR 0x10000u
#define CODE_MAX 0x4000u
#define HANDLER_ADDR 0x500u
#define GDT_ADDR 0x800u
#define IDT_ADDR 0x1000u
#define TABLES_END (IDT_ADDR + 256 * 8)
#define STACK_TOP 0x8000u
/* A REP chunk (up to 4096 iterations) counts as one instruction, so a run does
 * at most 1M string iterations: over unclaimed memory, element by element,
 * that takes a second with libFuzzer's instrumentation (at 1000 instructions
 * the fuzzer found half as many inputs in the same time). */
#define INSN_LIMIT 256

/* Descriptor from base, byte-granular-or-4K limit and the access/flags bytes
 * (SDM Vol.3 3.4.5, Figure 3-8). */
static uint64_t descriptor(uint32_t base, uint32_t limit, unsigned access, unsigned flags)
{
	return (limit & 0xffffull) | ((uint64_t)(base & 0xffffff) << 16) |
	       ((uint64_t)access << 40) | ((uint64_t)((limit >> 16) & 0xf) << 48) |
	       ((uint64_t)flags << 52) | ((uint64_t)(base >> 24) << 56);
}

static void ram_written(void *opaque, uint64_t pa, unsigned size)
{
	cpu_notify_phys_write(opaque, pa, size);
}

/* The IVT, the handler, the GDT and the IDT, in zeroed RAM. */
static void build_tables(struct physmem *pm)
{
	memset(pm->ram, 0, pm->ram_size);
	for (unsigned v = 0; v < 256; v++)
		physmem_write(pm, v * 4, 4, HANDLER_ADDR);            /* 0000:0500 */
	pm->ram[HANDLER_ADDR] = 0xf4;                                 /* HLT */
	static const struct { unsigned sel, access, flags; uint32_t limit; } gdt[] = {
		{ 0x08, 0x9b, 0xc, 0xfffff },   /* code32, DPL0, G=1 D=1 */
		{ 0x10, 0x93, 0xc, 0xfffff },   /* data32 */
		{ 0x18, 0x9b, 0x0, 0xffff },    /* code16 */
		{ 0x20, 0x93, 0x0, 0xffff },    /* data16 */
	};
	for (unsigned i = 0; i < sizeof(gdt) / sizeof(gdt[0]); i++)
		physmem_write(pm, GDT_ADDR + gdt[i].sel, 8,
			      descriptor(0, gdt[i].limit, gdt[i].access, gdt[i].flags));
	for (unsigned v = 0; v < 256; v++) {
		/* 32-bit interrupt gate, present, DPL 3 so INT n works from any ring
		 * (SDM Vol.3 6.11, Figure 6-2). */
		uint64_t gate = (HANDLER_ADDR & 0xffff) | (0x08ull << 16) | (0xeeull << 40) |
				((uint64_t)(HANDLER_ADDR >> 16) << 48);
		physmem_write(pm, IDT_ADDR + v * 8, 8, gate);
	}
}

/* RAM as every run starts: the tables (tables[], saved from build_tables()),
 * the input's code, and HLT (F4) bytes everywhere else, so that code which runs
 * off its end or jumps outside it stops at once instead of spending the
 * instruction limit on 00 00 (ADD [BX+SI],AL). */
static void build_memory(struct physmem *pm, const uint8_t *tables, const uint8_t *code, size_t size)
{
	memcpy(pm->ram, tables, TABLES_END);
	memset(pm->ram + TABLES_END, 0xf4, pm->ram_size - TABLES_END);
	memcpy(pm->ram + CODE_ADDR, code, size);
}

/* Run the prepared CPU, then detach it from the memory it watched (the next
 * input's set-up writes RAM behind its back, and the reset forgets all). */
static status_t run(struct cpu *cpu, struct physmem *pm)
{
	pm->on_ram_write = ram_written;
	pm->on_ram_write_opaque = cpu;
	cpu->icount_limit = INSN_LIMIT;
	status_t st = cpu_run(cpu);
	pm->on_ram_write = NULL;
	pm->on_ram_write_opaque = NULL;
	return st;
}

static void check_status(status_t st)
{
	switch (st) {
	case ST_HALT: case ST_SHUTDOWN: case ST_STOP: case ST_UNSUPPORTED:
		return;
	default:
		/* ST_OK, ST_FAULT and ST_VMEXIT never leave cpu_run(). */
		fprintf(stderr, "cpu_fuzz: cpu_run returned %d\n", (int)st);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The machine lives as long as the process (the fuzzer's). */
	static struct physmem pm;
	static struct iobus io;
	static struct cpu cpu;
	static uint8_t tables[TABLES_END];
	static bool ready;

	if (!ready) {
		if (!physmem_init(&pm, RAM_SIZE))
			abort();
		build_tables(&pm);
		memcpy(tables, pm.ram, TABLES_END);
		iobus_init(&io);
		cpu_init(&cpu, cpu_model_count ? cpu_models[0] : NULL, &pm, &io);
		ready = true;
	}
	if (size > CODE_MAX)
		size = CODE_MAX;

	/* Real mode: CS = 0x1000 (base 0x10000), SS:SP = 0000:8000. */
	build_memory(&pm, tables, data, size);
	cpu_reset(&cpu);
	seg_load_real(&cpu.seg[SR_CS], CODE_ADDR >> 4);
	cpu.rip = 0;
	cpu.regs[R_SP] = STACK_TOP;
	cpu_update_mode(&cpu);
	check_status(run(&cpu, &pm));

	/* Flat 32-bit protected mode, CPL 0 (what a multiboot kernel sees), with a
	 * GDT and an IDT the code may use or replace. */
	build_memory(&pm, tables, data, size);
	cpu_reset(&cpu);
	cpu.cr0 |= CR0_PE;
	seg_load_descriptor(&cpu.seg[SR_CS], 0x08, physmem_read(&pm, GDT_ADDR + 0x08, 8));
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			seg_load_descriptor(&cpu.seg[s], 0x10, physmem_read(&pm, GDT_ADDR + 0x10, 8));
	cpu.gdtr.base = GDT_ADDR;
	cpu.gdtr.limit = 0x27;
	cpu.idtr.base = IDT_ADDR;
	cpu.idtr.limit = 256 * 8 - 1;
	cpu.cpl = 0;
	cpu.rip = CODE_ADDR;
	cpu.regs[R_SP] = STACK_TOP;
	cpu_update_mode(&cpu);
	check_status(run(&cpu, &pm));
	return 0;
}
