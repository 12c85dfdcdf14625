/* Data movement: MOV in all its forms, MOVZX/MOVSX, LEA, XCHG, CBW/CWD, the stack
 * (PUSH/POP, PUSHA/POPA, ENTER/LEAVE), XLAT, NOP, and the condition-code moves
 * SETcc/CMOVcc. None of these changes the arithmetic flags (SDM Vol.2, "Flags
 * Affected: None" for each).
 *
 * Multi-value stack operations read or write through stack_read/stack_write at
 * offsets first and move rSP last, so a fault leaves the registers untouched
 * (SDM Vol.3 6.5: faults are reported with the state before the instruction).
 */
#include "emu/flags.h"
#include "emu/operand.h"
#include "emu/quirks.h"
#include "emu/fast_forms.h"
#include "emu/threaded.h"
#include "isa_handlers.h"

/* --- MOV --- */

status_t op_mov_EG(struct cpu *cpu, const struct insn *in)
{
	uint64_t v = greg_read(cpu, in, in->size);
	if (!in->mem) {
		reg_write(cpu, in->rm, in->size, in->rex != 0, v);
		return ST_OK;
	}
	return rm_write(cpu, in, in->size, v);
}

status_t op_mov_GE(struct cpu *cpu, const struct insn *in)
{
	uint64_t v;
	if (!in->mem) {
		v = reg_read(cpu, in->rm, in->size, in->rex != 0);
	} else {
		status_t st = rm_read(cpu, in, in->size, &v);
		if (st != ST_OK)
			return st;
	}
	greg_write(cpu, in, in->size, v);
	return ST_OK;
}

/* E <- v in a thread handler: a register, or a store that hits in the TLB;
 * else a step. */
static inline __attribute__((always_inline)) status_t thr_store_E(struct cpu *cpu, const struct insn *in, uint64_t v)
{
	if (!in->mem) {
		reg_write(cpu, in->rm, in->size, in->rex != 0, v);
		return insn_next(cpu, in);
	}
	uint8_t *p = mem_fast(cpu, in->seg, thread_ea(cpu, in), in->size, SEG_PERM_WRITE, TLB_WRITE);
	if (__builtin_expect(p == NULL, 0))
		return thread_step(cpu, in);
	host_store(p, in->size, v);
	return insn_next(cpu, in);
}

/* Their thread handlers, for the sizes and forms the fast forms below leave to
 * the rows' handlers (byte and word moves: a decompressor's output, a
 * structure's flags): pure with a register operand or an access that hits in
 * the TLB, as the fast forms are; a step otherwise. */
__attribute__((flatten)) status_t thr_mov_EG(struct cpu *cpu, const struct insn *in)
{
	return thr_store_E(cpu, in, greg_read(cpu, in, in->size));
}

__attribute__((flatten)) status_t thr_mov_GE(struct cpu *cpu, const struct insn *in)
{
	uint64_t v;
	if (!in->mem) {
		v = reg_read(cpu, in->rm, in->size, in->rex != 0);
	} else {
		uint8_t *p = mem_fast(cpu, in->seg, thread_ea(cpu, in), in->size, SEG_PERM_READ, TLB_READ);
		if (__builtin_expect(p == NULL, 0))
			return thread_step(cpu, in);
		v = host_load(p, in->size);
	}
	greg_write(cpu, in, in->size, v);
	return insn_next(cpu, in);
}

/* MOV with a 32- or 64-bit memory operand (decode-time fast forms,
 * emu/fast_forms.h): the same as op_mov_GE/op_mov_EG with the size constant. */
#define MOV_MEM_FORMS(bits, size)                                                        \
	status_t op_mov_GE_m##bits(struct cpu *cpu, const struct insn *in)              \
	{                                                                                \
		uint64_t v;                                                              \
		status_t st = mem_read(cpu, in->seg, insn_ea(cpu, in), size, &v);        \
		if (st == ST_OK)                                                         \
			cpu->regs[in->reg] = v;   /* a 32-bit load zero-extends */       \
		return st;                                                               \
	}                                                                                \
	status_t op_mov_EG_m##bits(struct cpu *cpu, const struct insn *in)              \
	{                                                                                \
		return mem_write(cpu, in->seg, insn_ea(cpu, in), size, cpu->regs[in->reg]); \
	}
MOV_MEM_FORMS(32, 4)
MOV_MEM_FORMS(64, 8)
/* Their thread handlers: an access that hits in the TLB (mem_fast) sets no
 * attention (stores to code and watched pages never hit, emu/memory.c) and
 * reads neither rIP nor time, so it runs as a pure form; anything else runs as
 * a step, from the start (emu/threaded.h). */
#define MOV_MEM_THREADED(bits, size)                                                     \
	__attribute__((flatten))                                                         \
	status_t thr_mov_GE_m##bits(struct cpu *cpu, const struct insn *in)             \
	{                                                                                \
		uint8_t *p = mem_fast(cpu, in->seg, thread_ea(cpu, in), size, SEG_PERM_READ, TLB_READ); \
		if (__builtin_expect(p != NULL, 1)) {                                    \
			cpu->regs[in->reg] = host_load(p, size);                         \
			return insn_next(cpu, in);                                       \
		}                                                                        \
		return thread_step(cpu, in);                                             \
	}                                                                                \
	__attribute__((flatten))                                                         \
	status_t thr_mov_EG_m##bits(struct cpu *cpu, const struct insn *in)             \
	{                                                                                \
		uint8_t *p = mem_fast(cpu, in->seg, thread_ea(cpu, in), size, SEG_PERM_WRITE, TLB_WRITE); \
		if (__builtin_expect(p != NULL, 1)) {                                    \
			host_store(p, size, cpu->regs[in->reg]);                         \
			return insn_next(cpu, in);                                       \
		}                                                                        \
		return thread_step(cpu, in);                                             \
	}
MOV_MEM_THREADED(32, 4)
MOV_MEM_THREADED(64, 8)

/* MOV between 32- or 64-bit registers (decode-time fast forms, emu/fast_forms.h);
 * a 32-bit write clears bits 63:32 (SDM Vol.1 3.4.1.1). */
status_t op_mov_EG_r32(struct cpu *cpu, const struct insn *in)
{
	cpu->regs[in->rm] = (uint32_t)cpu->regs[in->reg];
	return ST_OK;
}
status_t op_mov_EG_r64(struct cpu *cpu, const struct insn *in)
{
	cpu->regs[in->rm] = cpu->regs[in->reg];
	return ST_OK;
}
status_t op_mov_GE_r32(struct cpu *cpu, const struct insn *in)
{
	cpu->regs[in->reg] = (uint32_t)cpu->regs[in->rm];
	return ST_OK;
}
status_t op_mov_GE_r64(struct cpu *cpu, const struct insn *in)
{
	cpu->regs[in->reg] = cpu->regs[in->rm];
	return ST_OK;
}
THREADED_PURE(mov_EG_r32) THREADED_PURE(mov_EG_r64) THREADED_PURE(mov_GE_r32) THREADED_PURE(mov_GE_r64)

status_t op_mov_EI(struct cpu *cpu, const struct insn *in)
{
	return rm_write(cpu, in, in->size, in->imm & size_mask(in->size));
}

/* Its thread handler: pure with a register operand or a store that hits in the
 * TLB (thr_store_E). */
__attribute__((flatten)) status_t thr_mov_EI(struct cpu *cpu, const struct insn *in)
{
	return thr_store_E(cpu, in, in->imm & size_mask(in->size));
}

/* B0+r / B8+r: the register is in the opcode; with REX.W the immediate is 64 bits. */
status_t op_mov_ZI(struct cpu *cpu, const struct insn *in)
{
	reg_write(cpu, in->reg, in->size, in->rex != 0, in->imm);
	return ST_OK;
}
THREADED_PURE(mov_ZI)

/* A0/A1: accumulator <- seg:moffs. The offset has the address size (SDM Vol.2
 * MOV, note on moffs); the segment is DS unless overridden. */
status_t op_mov_AO(struct cpu *cpu, const struct insn *in)
{
	unsigned size = in->size;
	uint64_t v;
	status_t st = mem_read(cpu, in->seg, in->imm & size_mask(in->asize), size, &v);
	if (st != ST_OK)
		return st;
	reg_write(cpu, R_AX, size, false, v);
	return ST_OK;
}

/* A2/A3: seg:moffs <- accumulator; the first operand (moffs) carries the size. */
status_t op_mov_OA(struct cpu *cpu, const struct insn *in)
{
	unsigned size = in->size;
	return mem_write(cpu, in->seg, in->imm & size_mask(in->asize), size,
			 reg_read(cpu, R_AX, size, false));
}

/* 0F B6/B7 and 0F BE/BF: the source is a byte (B6/BE) or a word (B7/BF). */
static inline status_t movx(struct cpu *cpu, const struct insn *in, bool sign)
{
	unsigned ssize = (in->opcode & 1) ? 2 : 1;
	uint64_t v;
	status_t st = rm_read(cpu, in, ssize, &v);
	if (st != ST_OK)
		return st;
	greg_write(cpu, in, in->size, sign ? (uint64_t)sign_extend(v, ssize) : v);
	return ST_OK;
}

status_t op_movzx(struct cpu *cpu, const struct insn *in) { return movx(cpu, in, false); }
status_t op_movsx(struct cpu *cpu, const struct insn *in) { return movx(cpu, in, true); }
/* Their thread handlers: the register form is pure, and so is the memory form
 * whose read hits in the TLB, as MOV's above (a decompressor's byte loads);
 * anything else runs as a step. */
static inline __attribute__((always_inline)) status_t thr_movx(struct cpu *cpu, const struct insn *in, bool sign)
{
	unsigned ssize = (in->opcode & 1) ? 2 : 1;
	uint64_t v;
	if (!in->mem) {
		v = reg_read(cpu, in->rm, ssize, in->rex != 0);
	} else {
		uint8_t *p = mem_fast(cpu, in->seg, thread_ea(cpu, in), ssize, SEG_PERM_READ, TLB_READ);
		if (__builtin_expect(p == NULL, 0))
			return thread_step(cpu, in);
		v = host_load(p, ssize);
	}
	greg_write(cpu, in, in->size, sign ? (uint64_t)sign_extend(v, ssize) : v);
	return insn_next(cpu, in);
}
__attribute__((flatten)) status_t thr_movzx(struct cpu *cpu, const struct insn *in) { return thr_movx(cpu, in, false); }
__attribute__((flatten)) status_t thr_movsx(struct cpu *cpu, const struct insn *in) { return thr_movx(cpu, in, true); }

/* LEA: the effective address, computed at the address size, then truncated or
 * zero-extended to the operand size (SDM Vol.2 LEA, Table 3-53). The register
 * form has no row in datamove.isa and is #UD there. */
status_t op_lea(struct cpu *cpu, const struct insn *in)
{
	greg_write(cpu, in, in->size, insn_ea(cpu, in));
	return ST_OK;
}
/* Pure only without RIP-relative addressing (emu/fast_forms.c). */
THREADED_PURE(lea)

/* XCHG E,G (86/87). With memory it is locked implicitly (SDM Vol.2 XCHG); here
 * that means: the memory write happens before the register changes. */
status_t op_xchg(struct cpu *cpu, const struct insn *in)
{
	unsigned size = in->size;
	uint64_t g = greg_read(cpu, in, size), e;
	status_t st = rm_read(cpu, in, size, &e);
	if (st != ST_OK)
		return st;
	st = rm_write(cpu, in, size, g);
	if (st != ST_OK)
		return st;
	greg_write(cpu, in, size, e);
	return ST_OK;
}

/* 90+r: XCHG eAX, reg. 90 itself (reg 0, no REX.B) is NOP, also with F3 (PAUSE):
 * SDM Vol.2 NOP/XCHG: "XCHG (E)AX, (E)AX (encoded instruction byte is 90H) is an
 * alias for NOP regardless of data size prefixes" — in 64-bit mode it does not
 * zero-extend RAX. */
status_t op_xchg_Z(struct cpu *cpu, const struct insn *in)
{
	if (in->reg == R_AX)
		return ST_OK;
	unsigned size = in->size;
	bool rex = in->rex != 0;
	uint64_t a = reg_read(cpu, R_AX, size, false), r = reg_read(cpu, in->reg, size, rex);
	reg_write(cpu, R_AX, size, false, r);
	reg_write(cpu, in->reg, size, rex, a);
	return ST_OK;
}

/* 0F 1F /r: the multi-byte NOP. The ModRM operand is never accessed (SDM Vol.2 NOP). */
status_t op_nop(struct cpu *cpu, const struct insn *in)
{
	(void)cpu;
	(void)in;
	return ST_OK;
}
THREADED_PURE(nop)

/* CBW/CWDE/CDQE (98): sign-extend the lower half of the accumulator into it. */
status_t op_cbw(struct cpu *cpu, const struct insn *in)
{
	unsigned half = in->osize / 2;
	reg_write(cpu, R_AX, in->osize, false,
		  (uint64_t)sign_extend(cpu->regs[R_AX], half));
	return ST_OK;
}

/* CWD/CDQ/CQO (99): rDX = the sign of rAX, replicated. */
status_t op_cwd(struct cpu *cpu, const struct insn *in)
{
	bool neg = (cpu->regs[R_AX] >> (in->osize * 8 - 1)) & 1;
	reg_write(cpu, R_DX, in->osize, false, neg ? ~0ull : 0);
	return ST_OK;
}

/* XLAT (D7): AL = seg:[rBX + zero-extended AL], at the address size (SDM Vol.2 XLAT). */
status_t op_xlat(struct cpu *cpu, const struct insn *in)
{
	uint64_t off = (cpu->regs[R_BX] + (cpu->regs[R_AX] & 0xff)) & size_mask(in->asize);
	uint64_t v;
	status_t st = mem_read(cpu, in->seg, off, 1, &v);
	if (st != ST_OK)
		return st;
	reg_write(cpu, R_AX, 1, false, v);
	return ST_OK;
}

/* --- SETcc / CMOVcc (SDM Vol.1 Appendix B for the conditions) --- */

status_t op_setcc(struct cpu *cpu, const struct insn *in)
{
	uint64_t v = flags_cond(cpu, in->opcode & 15);
	if (!in->mem) {
		reg_write(cpu, in->rm, 1, in->rex != 0, v);
		return ST_OK;
	}
	return rm_write(cpu, in, 1, v);
}

/* CMOVcc: the source is read whatever the condition (a memory source faults even
 * when no move happens: SDM Vol.2 CMOVcc). A 32-bit CMOV in 64-bit mode writes
 * (zero-extends) the destination even when the condition is false. */
status_t op_cmovcc(struct cpu *cpu, const struct insn *in)
{
	uint64_t v;
	status_t st = rm_read(cpu, in, in->size, &v);
	if (st != ST_OK)
		return st;
	if (flags_cond(cpu, in->opcode & 15))
		greg_write(cpu, in, in->size, v);
	else if (in->size == 4 && cpu_is_mode64(cpu))
		greg_write(cpu, in, 4, greg_read(cpu, in, 4));
	return ST_OK;
}
THREADED_PURE_REG(setcc) THREADED_PURE_REG(cmovcc)

/* --- the stack --- */

/* PUSH reg (50+r). PUSH rSP pushes the value before the decrement (SDM Vol.2
 * PUSH: "the value of the SP register as it existed before"). */
status_t op_push_Z(struct cpu *cpu, const struct insn *in)
{
	return push(cpu, in->osize, reg_read(cpu, in->reg, in->osize, in->rex != 0));
}

/* POP reg (58+r). POP rSP: the popped value wins over the increment (SDM Vol.2
 * POP: "POP ESP increments the stack pointer before data ... is written"). */
status_t op_pop_Z(struct cpu *cpu, const struct insn *in)
{
	uint64_t v;
	status_t st = pop(cpu, in->osize, &v);
	if (st != ST_OK)
		return st;
	reg_write(cpu, in->reg, in->osize, in->rex != 0, v);
	return ST_OK;
}

/* The stack's fast case for a PUSH or POP of size bytes: 8 (64-bit mode), or
 * 4 with a 32-bit stack (SS.B, SDM Vol.3 3.4.5); otherwise the address size of
 * rSP is not the operand size, and the generic handler runs. */
static inline bool stack_is_operand_sized(const struct cpu *cpu, unsigned size)
{
	return size == 8 || (size == 4 && cpu->mode != MODE_LONG64 && (cpu->seg[SR_SS].attr & SEG_DB));
}

/* Their thread handlers: pure when the stack slot hits in the TLB (as the MOV
 * forms above), a step from the start otherwise. */
__attribute__((flatten)) status_t thr_push_Z(struct cpu *cpu, const struct insn *in)
{
	unsigned size = in->osize;
	if (__builtin_expect(stack_is_operand_sized(cpu, size), 1)) {
		uint64_t sp = (cpu->regs[R_SP] - size) & size_mask(size);
		uint8_t *p = mem_fast(cpu, SR_SS, sp, size, SEG_PERM_WRITE, TLB_WRITE);
		if (__builtin_expect(p != NULL, 1)) {
			host_store(p, size, cpu->regs[in->reg]);   /* PUSH rSP: the old value */
			cpu->regs[R_SP] = sp;
			return insn_next(cpu, in);
		}
	}
	return thread_step(cpu, in);   /* out of line: the fast path needs no frame */
}

__attribute__((flatten)) status_t thr_pop_Z(struct cpu *cpu, const struct insn *in)
{
	unsigned size = in->osize;
	if (__builtin_expect(stack_is_operand_sized(cpu, size), 1)) {
		uint64_t sp = cpu->regs[R_SP] & size_mask(size);
		uint8_t *p = mem_fast(cpu, SR_SS, sp, size, SEG_PERM_READ, TLB_READ);
		if (__builtin_expect(p != NULL, 1)) {
			uint64_t v = host_load(p, size);
			cpu->regs[R_SP] = (sp + size) & size_mask(size);
			cpu->regs[in->reg] = v;                     /* POP rSP: the value wins */
			return insn_next(cpu, in);
		}
	}
	return thread_step(cpu, in);   /* out of line: the fast path needs no frame */
}

/* PUSH imm (68/6A): the immediate, sign-extended to the operand size. */
status_t op_push_I(struct cpu *cpu, const struct insn *in)
{
	return push(cpu, in->osize, in->imm & size_mask(in->osize));
}

/* PUSH r/m (FF /6): the address uses rSP before the push. */
status_t op_push_E(struct cpu *cpu, const struct insn *in)
{
	uint64_t v;
	status_t st = rm_read(cpu, in, in->osize, &v);
	if (st != ST_OK)
		return st;
	return push(cpu, in->osize, v);
}

/* POP r/m (8F /0). SDM Vol.2 POP: "If the ESP register is used as a base register
 * for addressing a destination operand in memory, the POP instruction computes
 * the effective address of the operand after it increments the ESP register."
 * rSP is moved before the store and put back if the store faults. */
status_t op_pop_E(struct cpu *cpu, const struct insn *in)
{
	uint64_t v, old_sp = cpu->regs[R_SP];
	status_t st = stack_read(cpu, 0, in->osize, &v);
	if (st != ST_OK)
		return st;
	stack_adjust(cpu, in->osize);
	st = rm_write(cpu, in, in->osize, v);
	if (st != ST_OK)
		cpu->regs[R_SP] = old_sp;
	return st;
}

/* PUSHA/PUSHAD (60): AX, CX, DX, BX, the original SP, BP, SI, DI (SDM Vol.2 PUSHA). */
status_t op_pusha(struct cpu *cpu, const struct insn *in)
{
	unsigned sz = in->osize;
	static const uint8_t order[8] = { R_AX, R_CX, R_DX, R_BX, R_SP, R_BP, R_SI, R_DI };
	for (unsigned i = 0; i < 8; i++) {
		status_t st = stack_write(cpu, (uint64_t)-(int64_t)((i + 1) * sz), sz,
					  reg_read(cpu, order[i], sz, false));
		if (st != ST_OK)
			return st;
	}
	stack_adjust(cpu, -(int64_t)(8 * sz));
	return ST_OK;
}

/* POPA/POPAD (61): DI, SI, BP, (skip SP), BX, DX, CX, AX (SDM Vol.2 POPA). All
 * eight slots are read before any register changes. */
status_t op_popa(struct cpu *cpu, const struct insn *in)
{
	unsigned sz = in->osize;
	static const uint8_t order[8] = { R_DI, R_SI, R_BP, R_SP, R_BX, R_DX, R_CX, R_AX };
	uint64_t v[8];
	for (unsigned i = 0; i < 8; i++) {
		status_t st = stack_read(cpu, (uint64_t)i * sz, sz, &v[i]);
		if (st != ST_OK)
			return st;
	}
	for (unsigned i = 0; i < 8; i++)
		if (order[i] != R_SP)
			reg_write(cpu, order[i], sz, false, v[i]);
	stack_adjust(cpu, 8 * sz);
	return ST_OK;
}

/* ENTER's stack accesses in the order of the SDM Vol.2 ENTER pseudo-code: push
 * rBP; copy the enclosing frame pointers from [rBP - i*size] (i = 1..L-1, the
 * address at the stack-address size); push FrameTemp when L > 0. With probe set,
 * only the checks are made (writes are probed, reads are done and dropped), so
 * the caller can fault before anything is written. */
static status_t enter_frame(struct cpu *cpu, unsigned sz, unsigned level, uint64_t frame_temp,
			    bool probe)
{
	uint64_t amask = size_mask(stack_asize(cpu));
	uint64_t sp = cpu->regs[R_SP] & amask, bp = cpu->regs[R_BP];
	uint64_t slots = level ? level + 1 : 1;
	for (uint64_t k = 0; k < slots; k++) {
		uint64_t v = k == 0 ? bp : frame_temp;
		status_t st;
		if (k > 0 && k < level) {
			st = mem_read(cpu, SR_SS, (bp - k * sz) & amask, sz, &v);
			if (st != ST_OK)
				return st;
		}
		uint64_t slot = (sp - (k + 1) * sz) & amask;
		st = probe ? mem_probe_write(cpu, SR_SS, slot, sz)
			   : mem_write(cpu, SR_SS, slot, sz, v & size_mask(sz));
		if (st != ST_OK)
			return st;
	}
	return ST_OK;
}

/* ENTER imm16, imm8 (C8), SDM Vol.2 ENTER Operation. The nesting level L is imm8
 * MOD 32. FrameTemp is the stack pointer after the push of rBP taken at the
 * operand size, whatever the stack size: RSP, ESP (all 32 bits, also on a 16-bit
 * stack, where only SP moves) or SP; rBP = FrameTemp at the operand size, and
 * the stack pointer drops by imm16 at the stack-address size.
 * SDM Vol.2 ENTER, Protected Mode Exceptions: #SS(0) "if the new value in the
 * SP or ESP register is outside the stack segment limit", #PF "if a page fault
 * occurs": the final stack location must be writable (as a write of the
 * operand size, the check Bochs also makes), so it is probed after the pushes'
 * own checks. Every access is checked before the first write, so a fault
 * leaves registers and memory as they were (SDM Vol.3 6.5). */
status_t op_enter(struct cpu *cpu, const struct insn *in)
{
	unsigned sz = in->osize, as = stack_asize(cpu);
	unsigned level = in->imm2 % 32;
	uint64_t amask = size_mask(as);
	uint64_t sp = cpu->regs[R_SP] & amask;
	uint64_t pushed_sp = (cpu->regs[R_SP] & ~amask) | ((sp - sz) & amask);
	uint64_t frame_temp = pushed_sp & size_mask(sz);
	if (cpu_quirk(cpu, QK_QEMU_ENTER_FRAMETEMP_STACK_SIZE))
		frame_temp = (sp - sz) & amask & size_mask(sz);
	uint64_t slots = level ? level + 1 : 1;
	uint64_t new_sp = (sp - slots * sz - (in->imm & 0xffff)) & amask;

	status_t st;
	if (cpu_quirk(cpu, QK_BOCHS_ENTER_WRITES_FIRST)) {
		/* The quirk: the frame is written as it is checked, then the final
		 * stack location; a fault leaves what was written. */
		st = enter_frame(cpu, sz, level, frame_temp, false);
		if (st == ST_OK)
			st = mem_probe_write(cpu, SR_SS, new_sp, sz);
	} else {
		st = enter_frame(cpu, sz, level, frame_temp, true);
		if (st == ST_OK && !cpu_quirk(cpu, QK_QEMU_ENTER_NO_FINAL_CHECK))
			st = mem_probe_write(cpu, SR_SS, new_sp, sz);
		if (st == ST_OK)
			st = enter_frame(cpu, sz, level, frame_temp, false);
	}
	if (st != ST_OK)
		return st;
	reg_write(cpu, R_BP, sz, false, frame_temp);
	reg_write(cpu, R_SP, as, false, new_sp);
	return ST_OK;
}

/* LEAVE (C9): rSP = rBP (at the stack-address size), then pop rBP (SDM Vol.2 LEAVE). */
status_t op_leave(struct cpu *cpu, const struct insn *in)
{
	unsigned sz = in->osize, as = stack_asize(cpu);
	uint64_t bp = cpu->regs[R_BP] & size_mask(as), v;
	status_t st = mem_read(cpu, SR_SS, bp, sz, &v);
	if (st != ST_OK)
		return st;
	reg_write(cpu, R_SP, as, false, (bp + sz) & size_mask(as));
	reg_write(cpu, R_BP, sz, false, v);
	return ST_OK;
}
