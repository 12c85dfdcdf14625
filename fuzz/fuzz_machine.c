/* The fuzz targets' guest machine (fuzz_machine.h). */
#include "fuzz/fuzz_machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/cpu_model.h"
#include "emu/icache.h"
#include "machine/boot_entry.h"

#define HANDLER_REAL 0x500u
#define HANDLER_ERR32 0x540u       /* pops the error code, then HANDLER_32 */
#define HANDLER_32 0x543u
#define GDT_ADDR 0x800u
#define IDT_ADDR 0x1000u

/* Real mode, at 0000:0500 (frame: IP, CS, FLAGS at SS:SP):
 *   push bp; mov bp, sp; push bx
 *   mov bx, cs:[4f0]; inc bx; mov cs:[4f0], bx
 *   test bl, 1; jz skip
 *   test bl, 2; mov bx, cs:[4f4]; jz 1f; mov bx, cs:[4f8]
 *   1: mov [bp+2], bx; mov word [bp+4], 1000h; jmp out
 *   skip: inc word [bp+2]
 *   out: pop bx; pop bp; iret */
static const uint8_t handler_real[] = {
	0x55, 0x89, 0xe5, 0x53, 0x2e, 0x8b, 0x1e, 0xf0, 0x04, 0x43, 0x2e, 0x89, 0x1e, 0xf0, 0x04,
	0xf6, 0xc3, 0x01, 0x74, 0x19, 0xf6, 0xc3, 0x02, 0x2e, 0x8b, 0x1e, 0xf4, 0x04, 0x74, 0x05,
	0x2e, 0x8b, 0x1e, 0xf8, 0x04, 0x89, 0x5e, 0x02, 0xc7, 0x46, 0x04, 0x00, 0x10, 0xeb, 0x03,
	0xff, 0x46, 0x02, 0x5b, 0x5d, 0xcf,
};

/* Protected mode, at 0540 (with an error code) / 0543 (frame: EIP, CS,
 * EFLAGS at SS:ESP; SDM Vol.3 6.12.1):
 *   add esp, 4; push ebx
 *   mov ebx, ss:[4f0]; inc ebx; mov ss:[4f0], ebx
 *   test bl, 1; jz skip
 *   test bl, 2; mov ebx, ss:[4f4]; jz 1f; mov ebx, ss:[4f8]
 *   1: mov [esp+4], ebx; mov dword [esp+8], 8; jmp out
 *   skip: inc dword [esp+4]
 *   out: pop ebx; iret */
static const uint8_t handler_32[] = {
	0x83, 0xc4, 0x04, 0x53, 0x36, 0x8b, 0x1d, 0xf0, 0x04, 0x00, 0x00, 0x43, 0x36, 0x89, 0x1d,
	0xf0, 0x04, 0x00, 0x00, 0xf6, 0xc3, 0x01, 0x74, 0x21, 0xf6, 0xc3, 0x02, 0x36, 0x8b, 0x1d,
	0xf4, 0x04, 0x00, 0x00, 0x74, 0x07, 0x36, 0x8b, 0x1d, 0xf8, 0x04, 0x00, 0x00, 0x89, 0x5c,
	0x24, 0x04, 0xc7, 0x44, 0x24, 0x08, 0x08, 0x00, 0x00, 0x00, 0xeb, 0x04, 0xff, 0x44, 0x24,
	0x04, 0x5b, 0xcf,
};

/* Descriptor from base, byte-granular-or-4K limit and the access/flags bytes
 * (SDM Vol.3 3.4.5, Figure 3-8). */
static uint64_t descriptor(uint32_t base, uint32_t limit, unsigned access, unsigned flags)
{
	return (limit & 0xffffull) | ((uint64_t)(base & 0xffffff) << 16) |
	       ((uint64_t)access << 40) | ((uint64_t)((limit >> 16) & 0xf) << 48) |
	       ((uint64_t)flags << 52) | ((uint64_t)(base >> 24) << 56);
}

/* Does the exception push an error code (SDM Vol.3 6.3.1 Table 6-1)? */
static bool pushes_error(unsigned v)
{
	return v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21;
}

/* The IVT, the handlers, the GDT and the IDT, below FUZZ_TABLES_END (the
 * rest of that RAM zeroed). */
static void build_tables(struct physmem *pm)
{
	memset(pm->ram, 0, FUZZ_TABLES_END);
	for (unsigned v = 0; v < 256; v++)
		physmem_write(pm, v * 4, 4, HANDLER_REAL);            /* 0000:0500 */
	memcpy(pm->ram + HANDLER_REAL, handler_real, sizeof(handler_real));
	memcpy(pm->ram + HANDLER_ERR32, handler_32, sizeof(handler_32));
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
		uint32_t h = pushes_error(v) ? HANDLER_ERR32 : HANDLER_32;
		uint64_t gate = (h & 0xffff) | (0x08ull << 16) | (0xeeull << 40) | ((uint64_t)(h >> 16) << 48);
		physmem_write(pm, IDT_ADDR + v * 8, 8, gate);
	}
}

void fuzz_machine_init(struct fuzz_machine *m)
{
	if (!bare_machine_init(m, cpu_model_count ? cpu_models[0] : NULL, FUZZ_RAM_SIZE))
		abort();
	/* An input's code runs a few times: translated from its first entry,
	 * or the translator would meet none of it. */
	m->cpu.icache->jit_hot = 1;
}

void fuzz_machine_set_restarts(struct fuzz_machine *m, enum fuzz_mode mode, uint32_t first, uint32_t second)
{
	uint32_t base = mode == FUZZ_REAL ? FUZZ_CODE_ADDR : 0;
	physmem_write(&m->pm, FUZZ_RESTART_ADDR, 4, first - base);
	physmem_write(&m->pm, FUZZ_RESTART_ADDR + 4, 4, second - base);
}

void fuzz_machine_load(struct fuzz_machine *m, enum fuzz_mode mode, const uint8_t *code, size_t size)
{
	struct physmem *pm = &m->pm;
	struct cpu *cpu = &m->cpu;
	if (size > FUZZ_CODE_MAX)
		size = FUZZ_CODE_MAX;
	/* HLT (F4) everywhere but the tables and the code, so that code which
	 * runs off its end or jumps outside it stops at once instead of spending
	 * the instruction limit on 00 00 (ADD [BX+SI],AL). */
	build_tables(pm);
	memset(pm->ram + FUZZ_TABLES_END, 0xf4, pm->ram_size - FUZZ_TABLES_END);
	memcpy(pm->ram + FUZZ_CODE_ADDR, code, size);
	fuzz_machine_set_restarts(m, mode, FUZZ_CODE_ADDR, FUZZ_CODE_ADDR);
	cpu_reset(cpu);
	if (mode == FUZZ_REAL) {
		/* CS = 0x1000 (base 0x10000), IP = 0, SS:SP = 0000:8000. */
		boot_enter_real(cpu, FUZZ_CODE_ADDR);
	} else {
		/* Flat 32-bit protected mode, CPL 0 (what a multiboot kernel sees),
		 * with a GDT and an IDT the code may use or replace. */
		boot_enter_prot32(cpu, pm, GDT_ADDR, 0x27, 0x08, 0x10, FUZZ_CODE_ADDR);
		cpu->idtr.base = IDT_ADDR;
		cpu->idtr.limit = 256 * 8 - 1;
	}
	cpu->regs[R_SP] = FUZZ_STACK_TOP;
	cpu_update_mode(cpu);
}

status_t fuzz_machine_run(struct fuzz_machine *m, uint64_t limit)
{
	/* Detached again after the run: the next input's set-up writes RAM
	 * behind the CPU's back, and the reset forgets all. */
	bare_machine_watch_stores(m, true);
	m->cpu.icount_limit = limit;
	status_t st = cpu_run(&m->cpu);
	bare_machine_watch_stores(m, false);
	return st;
}

void fuzz_check_status(const char *target, status_t st)
{
	switch (st) {
	case ST_HALT: case ST_SHUTDOWN: case ST_STOP: case ST_UNSUPPORTED:
		return;
	default:
		/* ST_OK, ST_FAULT and ST_VMEXIT never leave cpu_run(). */
		fprintf(stderr, "%s: cpu_run returned %d\n", target, (int)st);
		abort();
	}
}
