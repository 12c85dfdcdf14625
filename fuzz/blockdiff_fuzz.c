/* Fuzz target and differential test of the decoded-instruction cache: the
 * input's code runs in two machines alike (fuzz_machine.h), A through blocks
 * and their links as any guest runs, B one instruction at a time (cpu.one_step,
 * the run loop's path for TF, tracing and MTF, which neither follows links
 * nor runs more than one instruction of a block). After every stretch of a
 * length the input decides, every architectural register and all of RAM must
 * be equal in A and B; a difference aborts with what differed. What the cache
 * keeps must never be visible: SDM Vol.3 11.6 (a store to code is seen when
 * the code next runs), 4.10 (fetches use the current translation).
 *
 * Inputs are cpu_fuzz's (its seeds, real code, are this target's seed corpus
 * too), run in real mode and in 32-bit protected mode. Besides the copy at
 * 10000H, the first COPY_BYTES of the input also lie at two places that make
 * cached blocks go stale: X, DISTANCE bytes before the end of page 16000H, so
 * that an instruction crosses into the next page, and Y near the end of page
 * 18000H, whose first byte shares X's cache set, all of whose other ways hold
 * blocks of code that never runs (icache_crowd_set): X's block and Y's take
 * turns in one slot, as in a direct-mapped cache. The handlers restart the
 * code at X and Y in turn (after the first, third, ... event), and EBX/EDI/ESI
 * point at X, Y and 10000H (DS = ES = 1000H in real mode), so that stores
 * through them rewrite code that ran before.
 *
 * Input: byte 0 picks DISTANCE (1 + byte 0 % 16) and seeds the stretch
 * lengths; all bytes are the code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/flags.h"
#include "emu/icache.h"
#include "fuzz/fuzz.h"
#include "fuzz/fuzz_machine.h"

#define INSN_LIMIT 512
#define COPY_BYTES 64u
#define PAGE_X 0x16000u
#define PAGE_Y 0x18000u   /* as 16000H, bit 12 clear: it holds addresses of every set X can have */

/* X and Y for this input; Y's first byte is the last of its page of X's set
 * (emu/icache.h icache_set_of). */
static void stale_places(const uint8_t *data, size_t size, uint32_t *x, uint32_t *y)
{
	unsigned distance = 1 + (size ? data[0] : 0) % 16;
	*x = PAGE_X + PAGE_SIZE - distance;
	*y = PAGE_Y + PAGE_SIZE - 1;
	while (icache_set_of(*y) != icache_set_of(*x))
		(*y)--;
}

/* Load the input into m in mode, with the copies, restarts and pointers. */
static void load(struct fuzz_machine *m, enum fuzz_mode mode, const uint8_t *data, size_t size)
{
	uint32_t x, y;
	stale_places(data, size, &x, &y);
	fuzz_machine_load(m, mode, data, size);
	size_t n = size < COPY_BYTES ? size : COPY_BYTES;
	memcpy(m->pm.ram + x, data, n);
	memcpy(m->pm.ram + y, data, n);
	fuzz_machine_set_restarts(m, mode, x, y);
	icache_crowd_set(m->cpu.icache, x, 0x80000);   /* no code runs from there on */
	struct cpu *c = &m->cpu;
	uint32_t base = mode == FUZZ_REAL ? FUZZ_CODE_ADDR : 0;
	if (mode == FUZZ_REAL) {
		seg_load_real(&c->seg[SR_DS], FUZZ_CODE_ADDR >> 4);
		seg_load_real(&c->seg[SR_ES], FUZZ_CODE_ADDR >> 4);
	}
	c->regs[R_BX] = x - base;
	c->regs[R_DI] = y - base;
	c->regs[R_SI] = FUZZ_CODE_ADDR - base;
}

static bool same_segment(const struct segment *a, const struct segment *b)
{
	return a->selector == b->selector && a->attr == b->attr && a->limit == b->limit && a->base == b->base;
}

/* Report the first difference between A and B, or return true. */
static bool same_state(struct fuzz_machine *a, struct fuzz_machine *b, status_t sa, status_t sb)
{
	struct cpu *p = &a->cpu, *q = &b->cpu;
	flags_materialize(p);
	flags_materialize(q);
	const char *what = NULL;
	if (sa != sb)
		what = "run status";
	else if (p->icount != q->icount)
		what = "instruction count";
	else if (memcmp(p->regs, q->regs, sizeof(p->regs)))
		what = "GPRs";
	else if (p->rip != q->rip)
		what = "RIP";
	else if (p->rflags != q->rflags)
		what = "RFLAGS";
	else if (p->cr0 != q->cr0 || p->cr2 != q->cr2 || p->cr3 != q->cr3 || p->cr4 != q->cr4 ||
		 p->cr8 != q->cr8 || p->xcr0 != q->xcr0 || p->efer != q->efer)
		what = "control registers";
	else if (memcmp(p->dr, q->dr, sizeof(p->dr)))
		what = "debug registers";
	else if (p->cpl != q->cpl || p->mode != q->mode || p->halted != q->halted || p->shadow != q->shadow)
		what = "CPL, mode, halt or shadow";
	else if (p->gdtr.base != q->gdtr.base || p->gdtr.limit != q->gdtr.limit ||
		 p->idtr.base != q->idtr.base || p->idtr.limit != q->idtr.limit)
		what = "GDTR/IDTR";
	else if (!same_segment(&p->ldtr, &q->ldtr) || !same_segment(&p->tr, &q->tr))
		what = "LDTR/TR";
	else if (memcmp(&p->fpu, &q->fpu, sizeof(p->fpu)))
		what = "x87/SSE state";
	else if (memcmp(a->pm.ram, b->pm.ram, a->pm.ram_size))
		what = "RAM";
	for (unsigned s = 0; !what && s < SR_COUNT; s++)
		if (!same_segment(&p->seg[s], &q->seg[s]))
			what = "segment registers";
	if (!what)
		return true;
	fprintf(stderr, "blockdiff: %s differ: cached status %d icount %llu rip %#llx, stepped status %d "
		"icount %llu rip %#llx\n", what, (int)sa, (unsigned long long)p->icount,
		(unsigned long long)p->rip, (int)sb, (unsigned long long)q->icount, (unsigned long long)q->rip);
	for (unsigned r = 0; r < 16; r++)
		if (p->regs[r] != q->regs[r])
			fprintf(stderr, "  reg %u: cached %#llx stepped %#llx\n", r,
				(unsigned long long)p->regs[r], (unsigned long long)q->regs[r]);
	for (uint32_t i = 0; i < a->pm.ram_size; i++)
		if (a->pm.ram[i] != b->pm.ram[i]) {
			fprintf(stderr, "  first RAM difference at %#x: cached %#x stepped %#x\n", i,
				a->pm.ram[i], b->pm.ram[i]);
			break;
		}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_machine a, b;
	static bool ready;
	if (!ready) {
		fuzz_machine_init(&a);
		fuzz_machine_init(&b);
		ready = true;
	}
	static const enum fuzz_mode modes[] = { FUZZ_REAL, FUZZ_PROT32 };
	for (unsigned i = 0; i < 2; i++) {
		load(&a, modes[i], data, size);
		load(&b, modes[i], data, size);
		b.cpu.one_step = true;
		uint32_t lengths = size ? data[0] * 0x9e3779b9u + (uint32_t)size : 1;
		uint64_t at = 0;
		for (;;) {
			/* Stretches of 1..64 instructions: many block boundaries and
			 * links inside each, a comparison after each. */
			lengths = lengths * 1103515245u + 12345u;
			at += 1 + (lengths >> 16) % 64;
			if (at > INSN_LIMIT)
				at = INSN_LIMIT;
			status_t sa = fuzz_machine_run(&a, at), sb = fuzz_machine_run(&b, at);
			fuzz_check_status("blockdiff_fuzz", sa);
			if (!same_state(&a, &b, sa, sb))
				abort();
			if (sa != ST_STOP || at >= INSN_LIMIT)
				break;
		}
	}
	return 0;
}
