/* The translator (issue 18): runs of pure register instructions become host
 * code that keeps the guest's registers in the host's.
 *
 * A block's instructions call each other (emu/threaded.h). A run of two or
 * more consecutive instructions of the forms emu/jit.c knows -- the register
 * fast forms of MOV, ADD/OR/AND/SUB/XOR/CMP, TEST, INC/DEC, SHL/SHR/SAR by an
 * immediate count that writes the flags, and MOV of an immediate to a 32- or
 * 64-bit register -- becomes one host function put in place of the run's
 * first thread handler. It loads the guest registers the run uses, computes
 * in host registers, stores back those it wrote and the lazy flags record
 * (emu/flags.h) exactly as the thread forms would leave it, and tail-calls the
 * next instruction's thread handler.
 *
 * Why that keeps every rule: each instruction of such a run is pure (it
 * cannot fault, read rIP or time, or set attention), so nothing can look at
 * the machine between two of them; instruction counting, deadlines and the
 * end of the block stay the block's (its end slot counts), and single steps,
 * tracing and deadlines inside a block run the exec forms, not this code. The
 * block-versus-single-step fuzzer (fuzz/blockdiff_fuzz.c) and
 * tests/unit/test_jit.c hold the two equal.
 *
 * x86-64 hosts only; elsewhere, or where the host refuses executable memory,
 * blocks run as they did without it.
 */
#ifndef HVEMU_EMU_JIT_H
#define HVEMU_EMU_JIT_H

#include <stdbool.h>

#include "emu/icache.h"

/* A block is translated on its JIT_HOT_ENTRIES-th entry (icache.jit_hot):
 * most of a kernel's blocks run a few times during its boot, and translating
 * them costs about what their thread forms would. */
#define JIT_HOT_ENTRIES 16

/* Translate the runs of b, a block in its slot of ic (not the uncached scratch
 * block). Its code replaces what the slot held. */
void jit_translate_block(struct icache *ic, struct block *b);

/* Count an entry into b and translate it on the one that makes it hot. */
static inline void jit_enter(struct icache *ic, struct block *b)
{
	if (__builtin_expect(b->heat != 0, 0) && --b->heat == 0)
		jit_translate_block(ic, b);
}

/* The runs translated since the cache was made (for tests and profiles). */
unsigned long jit_runs_translated(const struct icache *ic);

/* Forget every translation (icache_flush: no block refers to one any more). */
void jit_flush(struct icache *ic);

/* Free the code of ic (icache_destroy). */
void jit_release(struct icache *ic);

#endif
