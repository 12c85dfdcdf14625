/* Threaded dispatch: a block's instructions call each other.
 *
 * Run from a block (emu/run.c run_block_threaded), an instruction's `thread`
 * handler does its work and then jumps to the next instruction's `thread`
 * handler itself (a tail call), so that between two instructions there is no
 * loop, no status test and no bookkeeping that nothing reads. The block's
 * extra last slot ends the chain (thread_end / thread_end_fallthrough).
 *
 * Two kinds of thread handler:
 *   pure   register-only forms that cannot fault, read neither rIP nor time
 *          and cannot set attention (register MOV, ALU and shifts, LEA without
 *          RIP): they skip rIP, the instruction's start and the time entirely.
 *          A MOV with memory is pure on a TLB hit and a step otherwise;
 *   step   everything else: rIP, the instruction's start and the running
 *          instruction are stored first (from the block's start and the
 *          instruction's offset in it), exactly as the loop in run_block
 *          stores them, and the chain stops after a status other than ST_OK
 *          or a set attention. cpu->cur_insn then tells where it stopped.
 * rIP is therefore only up to date where it is read: in a step handler, and at
 * the block's end. Single steps, tracing and deadlines inside a block use the
 * loop of emu/run.c, which runs the same `exec` semantics. */
#ifndef HVEMU_EMU_THREADED_H
#define HVEMU_EMU_THREADED_H

#include "emu/insn.h"
#include "emu/operand.h"

/* Go on to the next instruction of the block. */
static inline status_t insn_next(struct cpu *cpu, const struct insn *in)
{
	const struct insn *next = in + 1;
	return next->thread(cpu, next);
}

/* rIP after in, during a threaded run (where cpu->rip is not kept). */
static inline uint64_t insn_next_ip(const struct cpu *cpu, const struct insn *in)
{
	return (cpu->block_ip + in->offset + in->len) & cpu->block_ip_mask;
}

/* Before a step handler's semantics: what run_block stores for every
 * instruction (cpu->block_ip and block_ip_mask are the block's). */
static inline void insn_step_begin(struct cpu *cpu, const struct insn *in)
{
	uint64_t start = (cpu->block_ip + in->offset) & cpu->block_ip_mask;
	cpu->cur_insn = in;
	cpu->insn_start = start;
	cpu->rip = (start + in->len) & cpu->block_ip_mask;
}

/* After them: stop the block on a fault, a VM exit, a halt... or attention
 * (cur_insn: the first instruction not retired), else go on. */
static inline status_t insn_step_end(struct cpu *cpu, const struct insn *in, status_t st)
{
	if (__builtin_expect(st != ST_OK || cpu->attention != 0, 0)) {
		cpu->cur_insn = st == ST_OK ? in + 1 : in;
		return st;
	}
	return insn_next(cpu, in);
}

/* insn_ea() during a threaded run. */
static inline uint64_t thread_ea(const struct cpu *cpu, const struct insn *in)
{
	return insn_ea_at(cpu, in, in->base == REG_RIP ? insn_next_ip(cpu, in) : 0);
}

/* The generic step handler: any instruction's exec (emu/run.c). */
status_t thread_step(struct cpu *cpu, const struct insn *in);
/* The chain's ends: after a step handler (rIP is set) and after a pure one
 * (rIP is the block's end). */
status_t thread_end(struct cpu *cpu, const struct insn *in);
status_t thread_end_fallthrough(struct cpu *cpu, const struct insn *in);
/* The run is past the end slot `end` of its block, rIP set: go on to the next
 * block by one of the block's links, threaded, when the run loop would do just
 * that (emu/run.c); else return to it. */
status_t thread_next_block(struct cpu *cpu, const struct insn *end);

/* The thread handler of a handler with its own: thr_NAME for op_NAME, defined
 * beside it so that the semantics inline into it (flatten: op_NAME and what it
 * calls, but no noinline slow path). Name pasting only. Other step forms go
 * through thread_step. */
#define THREADED_PURE(name)                                                    \
	__attribute__((flatten))                                               \
	status_t thr_##name(struct cpu *cpu, const struct insn *in)            \
	{                                                                      \
		(void)op_##name(cpu, in);                                      \
		return insn_next(cpu, in);                                     \
	}

/* The thread handler of a handler whose register form is pure (no fault, no
 * attention, neither rIP nor time read: a register operand is all it touches)
 * and whose memory form is a step. */
#define THREADED_PURE_REG(name)                                                \
	__attribute__((flatten))                                               \
	status_t thr_##name(struct cpu *cpu, const struct insn *in)            \
	{                                                                      \
		if (__builtin_expect(!in->mem, 1)) {                           \
			(void)op_##name(cpu, in);                              \
			return insn_next(cpu, in);                             \
		}                                                              \
		return thread_step(cpu, in);                                   \
	}

#endif
