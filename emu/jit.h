/* The translator (issue 18): runs of a block's instructions become host code
 * that keeps the guest's registers in the host's.
 *
 * A block's instructions call each other (emu/threaded.h). A run of the
 * forms emu/jit.c knows -- register MOV, ALU, TEST, INC/DEC, NOT/NEG, shifts
 * by an immediate (ALU, TEST and shifts on bytes and words too), LEA,
 * MOVZX/MOVSX/MOVSXD, IMUL whose flags are dead, ADC/SBB, SETcc and CMOVcc
 * (on the flags of the run's own setter), loads and stores of every size at
 * every address shape, ALU with a memory source or destination, CMP/TEST
 * with memory, MOV of an immediate, PUSH/POP and NOP, RDTSC/RDTSCP, PAUSE
 * and the fences (32- and 64-bit code) -- becomes one host function put in place of the run's first thread
 * handler. It loads the guest registers the run uses, computes in host
 * registers, looks the TLB up inline (once for a group of accesses through
 * one base, emu/jit.c), stores back those it wrote and the lazy
 * flags record (emu/flags.h) exactly as the thread forms would leave it, and
 * goes on to the next instruction's thread handler. A run that reaches its
 * block's end also takes the block's Jcc, JMP, fall-through, or (64-bit
 * code) CALL/RET, and goes on to the next block itself: by a direct link
 * once its link has held there (the link's tests as immediates in the code,
 * a jump into the next block's code with the registers handed over in host
 * registers), else by the link's tests as emu/run.c makes them.
 *
 * Why that keeps every rule: each instruction of such a run is pure where it
 * runs translated (it cannot fault or set attention: an access that would
 * fault, cross a page or miss, a time read that CR4.TSD or a guest's
 * intercepts may concern, leaves the run first for its own handler), so
 * nothing can look at the machine between two of them; the time it reads
 * is the block's count plus its place in the block, as cpu_now's; counting,
 * deadlines and links are the block's as the thread forms keep them, and
 * single steps, tracing and deadlines inside a block run the exec forms, not
 * this code. tests/unit/test_jit.c and fuzz/blockdiff_fuzz.c hold the two
 * equal.
 *
 * A block is translated when it has proved hot (JIT_HOT_ENTRIES); its code
 * goes into one area, packed, until it is full and the decoded cache starts
 * again. x86-64 hosts only; elsewhere, or where the host refuses executable
 * memory, blocks run as they did without it.
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
 * block), for code at CPL 3 (user) or not: a run made for the one leaves at
 * once under the other, for the thread forms. */
void jit_translate_block(struct icache *ic, struct block *b, bool user);

/* Count an entry into b at CPL cpl and translate it on the one that makes it
 * hot, for that CPL's kind. */
static inline void jit_enter(struct icache *ic, struct block *b, unsigned cpl)
{
	if (__builtin_expect(b->heat != 0, 0) && --b->heat == 0)
		jit_translate_block(ic, b, cpl == 3);
}

/* Write direct link i of b's translated end (its code at at) from b's link i,
 * where the block it leads to has translated code: called by that code when
 * the link held and the direct one did not (emu/jit.c emit_direct); map: the
 * guest registers' host registers there. */
struct cpu;
void jit_link_direct(struct cpu *cpu, const struct block *b, unsigned i, uint8_t *at, const uint8_t *map);
/* The runs translated since the cache was made, and the side exits their code
 * took (an access the TLB did not answer inline): for tests and profiles. */
unsigned long jit_runs_translated(const struct icache *ic);
unsigned long jit_side_exits(const struct icache *ic);
unsigned long jit_direct_links(const struct icache *ic);
/* Runs that go straight into the next run of their block (emu/jit.c join_runs). */
unsigned long jit_joined_runs(const struct icache *ic);

/* Forget every translation (icache_flush: no block refers to one any more). */
void jit_flush(struct icache *ic);

/* Free the code of ic (icache_destroy). */
void jit_release(struct icache *ic);

#endif
