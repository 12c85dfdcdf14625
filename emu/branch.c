/* Near control transfers: Jcc, JMP, CALL, RET, LOOP/LOOPcc, JrCXZ.
 *
 * cpu->rip already holds the address of the next instruction, so relative
 * targets are rip + displacement. branch_near() truncates the target to the
 * operand size and applies the CS limit (or the canonical check in 64-bit mode)
 * and raises #GP(0); on ST_FAULT the core puts RIP back, and these handlers make
 * sure nothing else (rSP, rCX) has changed by then.
 */
#include "emu/canonical.h"
#include "emu/flags.h"
#include "emu/operand.h"
#include "emu/fast_forms.h"
#include "emu/threaded.h"
#include "isa_handlers.h"

/* Jcc with any condition, out of line so that the loop-closing case below
 * needs no stack frame. */
static __attribute__((noinline)) status_t jcc_general(struct cpu *cpu, const struct insn *in)
{
	if (!flags_cond_slow(cpu, in->opcode & 15))
		return ST_OK;
	return branch_near(cpu, cpu->rip + in->imm, in->osize);
}

/* Jcc rel8 (70-7F) and rel16/32 (0F 80-8F): the low nibble is the condition
 * (SDM Vol.2 Jcc; conditions SDM Vol.1 Appendix B). JE/JNE after a recorded
 * operation (ZF is "result == 0": results are stored masked) to a target within
 * a 32-bit CS limit is the common case, decided here. */
status_t op_jcc(struct cpu *cpu, const struct insn *in)
{
	unsigned cc = in->opcode & 15;
	if ((cc >> 1) != 2 || cpu->lazy.op == LAZY_NONE)
		return jcc_general(cpu, in);
	if ((cpu->lazy.result == 0) == (cc & 1))
		return ST_OK;
	uint64_t target = cpu->rip + in->imm;
	if (cpu->mode == MODE_LONG64) {
		/* 64-bit operand size; a non-canonical target is #GP(0). */
		if (!addr_canonical(cpu, target))
			return jcc_general(cpu, in);
	} else {
		/* SDM Vol.2 Jcc: beyond the CS limit is #GP(0). */
		target = in->osize == 4 ? (uint32_t)target : (uint16_t)target;
		if (target > cpu->seg[SR_CS].limit)
			return jcc_general(cpu, in);
	}
	cpu->rip = target;
	return ST_OK;
}

/* JMP rel8/rel16/rel32 (EB, E9). */
status_t op_jmp(struct cpu *cpu, const struct insn *in)
{
	return branch_near(cpu, cpu->rip + in->imm, in->osize);
}

/* A relative target checked as branch_near() checks it, without raising:
 * false where it would fault. */
static inline bool near_target_ok(const struct cpu *cpu, uint64_t *target, unsigned osize)
{
	if (cpu->mode == MODE_LONG64) {
		if (osize != 8)
			*target &= size_mask(osize);
		return addr_canonical(cpu, *target);
	}
	*target &= size_mask(osize);
	return *target <= cpu->seg[SR_CS].limit;
}

/* Jcc and JMP rel in a threaded run: when they do not fault, rIP is all they
 * change, so they set only that and go on to the next block. A branch back to
 * the start of its own block needs no target check: the block was fetched
 * from there in this context (a loop). A target that faults runs the handler
 * as a step, out of line so that the common case needs no stack frame. */
static __attribute__((noinline)) status_t thr_branch_step(struct cpu *cpu, const struct insn *in)
{
	insn_step_begin(cpu, in);
	status_t st = in->exec(cpu, in);
	if (st != ST_OK)
		return st;
	return thread_next_block(cpu, in + 1);
}

static inline status_t thr_branch_to(struct cpu *cpu, const struct insn *in, uint64_t next)
{
	uint64_t target = next + in->imm;
	if (in->osize != 8)
		target &= size_mask(in->osize);
	if (target != cpu->block_ip && !near_target_ok(cpu, &target, in->osize))
		return thr_branch_step(cpu, in);
	cpu->rip = target;
	return thread_next_block(cpu, in + 1);
}

/* Jcc with its condition fixed when the block was formed (insn_thread_form):
 * one handler per condition, flags_cond_known inline. */
#define THR_JCC_CC(cc)                                                                  \
	static __attribute__((flatten)) status_t thr_jcc_##cc(struct cpu *cpu, const struct insn *in) \
	{                                                                               \
		uint64_t next = insn_next_ip(cpu, in);                                  \
		if (!flags_cond_known(cpu, cc)) {                                       \
			cpu->rip = next;                                                \
			return thread_next_block(cpu, in + 1);                          \
		}                                                                       \
		return thr_branch_to(cpu, in, next);                                    \
	}
THR_JCC_CC(0) THR_JCC_CC(1) THR_JCC_CC(2) THR_JCC_CC(3) THR_JCC_CC(4) THR_JCC_CC(5) THR_JCC_CC(6) THR_JCC_CC(7)
THR_JCC_CC(8) THR_JCC_CC(9) THR_JCC_CC(10) THR_JCC_CC(11) THR_JCC_CC(12) THR_JCC_CC(13) THR_JCC_CC(14) THR_JCC_CC(15)
#undef THR_JCC_CC

const insn_handler thr_jcc_by_cc[16] = {
	thr_jcc_0, thr_jcc_1, thr_jcc_2, thr_jcc_3, thr_jcc_4, thr_jcc_5, thr_jcc_6, thr_jcc_7,
	thr_jcc_8, thr_jcc_9, thr_jcc_10, thr_jcc_11, thr_jcc_12, thr_jcc_13, thr_jcc_14, thr_jcc_15,
};

__attribute__((flatten)) status_t thr_jmp(struct cpu *cpu, const struct insn *in)
{
	return thr_branch_to(cpu, in, insn_next_ip(cpu, in));
}

/* JMP r/m (FF /4): absolute target from register or memory. */
status_t op_jmp_E(struct cpu *cpu, const struct insn *in)
{
	uint64_t target;
	status_t st = rm_read(cpu, in, in->osize, &target);
	if (st != ST_OK)
		return st;
	return branch_near(cpu, target, in->osize);
}

/* Common tail of CALL: SDM Vol.2 CALL (near) checks the target against the CS
 * limit before pushing the return address; then Push(rIP). */
static status_t call_to(struct cpu *cpu, uint64_t target, unsigned osize)
{
	uint64_t ret = cpu->rip;
	status_t st = branch_near(cpu, target, osize);
	if (st != ST_OK)
		return st;
	return push(cpu, osize, ret & size_mask(osize));
}

/* CALL rel16/rel32 (E8). */
status_t op_call(struct cpu *cpu, const struct insn *in)
{
	return call_to(cpu, cpu->rip + in->imm, in->osize);
}

/* CALL r/m (FF /2). */
status_t op_call_E(struct cpu *cpu, const struct insn *in)
{
	uint64_t target;
	status_t st = rm_read(cpu, in, in->osize, &target);
	if (st != ST_OK)
		return st;
	return call_to(cpu, target, in->osize);
}

/* RET (C3) and RET imm16 (C2): pop the return address, then release imm16 more
 * bytes (SDM Vol.2 RET). rSP moves only once the target passed its check. */
status_t op_ret(struct cpu *cpu, const struct insn *in)
{
	uint64_t target;
	status_t st = stack_read(cpu, 0, in->osize, &target);
	if (st != ST_OK)
		return st;
	st = branch_near(cpu, target, in->osize);
	if (st != ST_OK)
		return st;
	uint64_t release = in->opcode == 0xc2 ? (in->imm & 0xffff) : 0;
	stack_adjust(cpu, (int64_t)(in->osize + release));
	return ST_OK;
}

/* CALL rel32 and RET in 64-bit mode: their thread handlers do the common case
 * inline (a canonical target, the stack slot in the TLB) and go on to the next
 * block; anything else runs the handler above as a step (thr_branch_step),
 * which keeps the order of the checks (the target before the push, SDM Vol.2
 * CALL). */
__attribute__((flatten)) status_t thr_call(struct cpu *cpu, const struct insn *in)
{
	if (__builtin_expect(in->osize == 8, 1)) {
		uint64_t next = insn_next_ip(cpu, in), target = next + in->imm;
		uint64_t sp = cpu->regs[R_SP] - 8;
		uint8_t *p;
		if (addr_canonical(cpu, target) &&
		    (p = mem_fast(cpu, SR_SS, sp, 8, SEG_PERM_WRITE, TLB_WRITE)) != NULL) {
			host_store(p, 8, next);
			cpu->regs[R_SP] = sp;
			cpu->rip = target;
			return thread_next_block(cpu, in + 1);
		}
	}
	return thr_branch_step(cpu, in);
}

__attribute__((flatten)) status_t thr_ret(struct cpu *cpu, const struct insn *in)
{
	if (__builtin_expect(in->osize == 8 && in->opcode == 0xc3, 1)) {
		uint64_t sp = cpu->regs[R_SP];
		uint8_t *p = mem_fast(cpu, SR_SS, sp, 8, SEG_PERM_READ, TLB_READ);
		uint64_t target;
		if (p && addr_canonical(cpu, target = host_load(p, 8))) {
			cpu->regs[R_SP] = sp + 8;
			cpu->rip = target;
			return thread_next_block(cpu, in + 1);
		}
	}
	return thr_branch_step(cpu, in);
}

/* LOOP (E2), LOOPE (E1), LOOPNE (E0): decrement the count register, chosen by the
 * address size (CX/ECX/RCX), without touching flags; branch if it is not zero
 * (and ZF matches for E1/E0) (SDM Vol.2 LOOP/LOOPcc). */
status_t op_loop(struct cpu *cpu, const struct insn *in)
{
	unsigned as = in->asize;
	uint64_t count = (cpu->regs[R_CX] - 1) & size_mask(as);
	bool taken = count != 0;
	if (taken && in->opcode != 0xe2) {
		bool zf = flags_cond(cpu, 4);   /* cc 4 = Z */
		taken = in->opcode == 0xe1 ? zf : !zf;
	}
	if (taken) {
		status_t st = branch_near(cpu, cpu->rip + in->imm, in->osize);
		if (st != ST_OK)
			return st;
	}
	reg_write(cpu, R_CX, as, false, count);
	return ST_OK;
}

/* JCXZ/JECXZ/JRCXZ (E3): branch if the address-size count register is zero. */
status_t op_jcxz(struct cpu *cpu, const struct insn *in)
{
	if (cpu->regs[R_CX] & size_mask(in->asize))
		return ST_OK;
	return branch_near(cpu, cpu->rip + in->imm, in->osize);
}
