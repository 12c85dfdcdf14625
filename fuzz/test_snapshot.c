/* fuzz/snapshot.c: a restore puts RAM and the CPU back, and leaves no
 * translation or decoded block of the run before it behind. Each case runs a
 * 32-bit paged guest, restores, changes what a stale cache would hide (the
 * way a fuzzer writes its next input: into RAM, without telling the CPU) and
 * runs again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/bus.h"
#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "fuzz/snapshot.h"

#define RAM_SIZE (1u << 20)
#define GDT 0x1000u
#define PD 0x2000u
#define PT 0x3000u
#define CODE 0x10000u
#define P1 0x20000u                /* what linear LIN maps first */
#define P2 0x21000u                /* ... and after the PTE changes */
#define LIN 0x30000u
#define OUT 0x31000u               /* a data page the guest stores to */

static int failures;

static void check(bool ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
	if (!ok)
		failures++;
}

static uint64_t descriptor(uint32_t base, uint32_t limit, unsigned access, unsigned flags)
{
	return (limit & 0xffffull) | ((uint64_t)(base & 0xffffff) << 16) | ((uint64_t)access << 40) |
	       ((uint64_t)((limit >> 16) & 0xf) << 48) | ((uint64_t)flags << 52) | ((uint64_t)(base >> 24) << 56);
}

/* Write RAM as a fuzzer's input does after a restore: bytes and the dirty
 * bit, no notification to the CPU (its caches must already be empty). */
static void raw_write(struct snapshot *s, uint32_t pa, const void *src, size_t len)
{
	memcpy(s->pm->ram + pa, src, len);
	for (uint32_t p = pa >> 12; p <= (pa + (uint32_t)len - 1) >> 12; p++)
		s->dirty[p / 64] |= 1ull << (p % 64);
}

static status_t run(struct cpu *cpu)
{
	cpu->icount_limit = cpu->icount + 1000;
	return cpu_run(cpu);
}

int main(void)
{
	static struct physmem pm;
	static struct iobus io;
	static struct cpu cpu;
	static struct snapshot snap;
	const struct cpu_model *model = cpu_model_find("epyc-lite");
	if (!model || !physmem_init(&pm, RAM_SIZE))
		return 1;
	iobus_init(&io);
	cpu_init(&cpu, model, &pm, &io);

	physmem_write(&pm, GDT + 0x08, 8, descriptor(0, 0xfffff, 0x9b, 0xc));
	physmem_write(&pm, GDT + 0x10, 8, descriptor(0, 0xfffff, 0x93, 0xc));
	physmem_write(&pm, PD, 4, PT | 0x23);
	for (uint32_t i = 0; i < 256; i++)
		physmem_write(&pm, PT + i * 4, 4, (i << 12) | 0x63);
	physmem_write(&pm, PT + (LIN >> 12) * 4, 4, P1 | 0x63);
	physmem_write(&pm, P1, 4, 0x11111111);
	physmem_write(&pm, P2, 4, 0x22222222);
	/* mov eax, [LIN]; mov [OUT], eax; hlt */
	static const uint8_t code_a[] = { 0xa1, LIN & 0xff, (LIN >> 8) & 0xff, LIN >> 16, 0,
					  0xa3, OUT & 0xff, (OUT >> 8) & 0xff, OUT >> 16, 0, 0xf4 };
	/* mov eax, 12345678h; hlt */
	static const uint8_t code_b[] = { 0xb8, 0x78, 0x56, 0x34, 0x12, 0xf4 };
	memcpy(pm.ram + CODE, code_a, sizeof(code_a));

	cpu.cr0 |= CR0_PE | CR0_PG;
	cpu.cr3 = PD;
	seg_load_descriptor(&cpu.seg[SR_CS], 0x08, physmem_read(&pm, GDT + 0x08, 8));
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			seg_load_descriptor(&cpu.seg[s], 0x10, physmem_read(&pm, GDT + 0x10, 8));
	cpu.gdtr = (struct dtr){ .base = GDT, .limit = 0x17 };
	cpu.rip = CODE;
	cpu_update_mode(&cpu);
	if (!snapshot_take(&snap, &cpu, &pm, NULL, 0))
		return 1;

	/* 1: stores through the TLB's fast path are undone, the CPU is back. */
	status_t st = run(&cpu);
	check(st == ST_HALT && (uint32_t)cpu.regs[R_AX] == 0x11111111, "first run reads P1 through LIN");
	st = run(&cpu);            /* again: now every access hits the TLB and the block cache */
	check(physmem_read(&pm, OUT, 4) == 0x11111111, "the guest stored to OUT");
	snapshot_restore(&snap);
	check(!snapshot_ram_differs(&snap), "restore: RAM equals the snapshot");
	check(cpu.rip == CODE && cpu.regs[R_AX] == 0 && !cpu.halted, "restore: rIP, EAX, halted as taken");

	/* 2: a translation cached before the restore must not survive it. */
	uint32_t pte = P2 | 0x63;
	raw_write(&snap, PT + (LIN >> 12) * 4, &pte, 4);
	st = run(&cpu);
	check(st == ST_HALT && (uint32_t)cpu.regs[R_AX] == 0x22222222, "new PTE after restore: LIN reads P2 (no stale TLB entry)");
	snapshot_restore(&snap);
	check(!snapshot_ram_differs(&snap), "restore: the PTE is back");

	/* 3: a block decoded before the restore must not survive it. */
	raw_write(&snap, CODE, code_b, sizeof(code_b));
	st = run(&cpu);
	check(st == ST_HALT && (uint32_t)cpu.regs[R_AX] == 0x12345678, "new code after restore runs (no stale decoded block)");
	snapshot_restore(&snap);
	check(!snapshot_ram_differs(&snap), "restore: the code is back");
	st = run(&cpu);
	check(st == ST_HALT && (uint32_t)cpu.regs[R_AX] == 0x11111111, "and the old code runs again");

	snapshot_free(&snap);
	cpu_destroy(&cpu);
	physmem_destroy(&pm);
	return failures ? 1 : 0;
}
