/* The two-operand integer ALU: ADD/OR/ADC/SBB/AND/SUB/XOR/CMP, TEST, INC/DEC,
 * NOT/NEG and the read-modify-write exchanges XADD, CMPXCHG, CMPXCHG8B.
 *
 * Flags are recorded lazily (emu/flags.h). Width is a run-time size (1/2/4/8),
 * never a copy per width. Each (operation, operand form) pair is its own small
 * handler so the operation is a compile-time constant inside it; the forms are
 *   EG: E op= G (00, 01, 08...)   GE: G op= E (02, 03...)
 *   AI: AL/eAX op= imm (04, 05)   EI: E op= imm (80-83)
 * Memory destinations are read, computed, written, and only then do flags and
 * registers change, so a fault on the write leaves the instruction undone. With
 * one CPU, LOCK needs nothing more than that.
 */
#include "emu/cpu_model.h"
#include "emu/flags.h"
#include "emu/operand.h"
#include "emu/fast_forms.h"
#include "emu/threaded.h"
#include "isa_handlers.h"

enum alu_op { ALU_ADD, ALU_OR, ALU_ADC, ALU_SBB, ALU_AND, ALU_SUB, ALU_XOR, ALU_CMP };

/* CF for ADC/SBB/INC/DEC without a call for the producers that dominate loops.
 * Valid because every lazy producer (this file, string.c) stores its operands
 * and result already masked to the operand size; flags_cf() covers the rest. */
static inline uint64_t cf_now(struct cpu *cpu)
{
	const struct lazy_flags *l = &cpu->lazy;
	/* Tests rather than a jump table: in a loop the same one is taken. */
	if (l->op == LAZY_ADD)
		return l->result < l->src1;
	if (l->op == LAZY_SUB)
		return l->src1 < l->src2;
	if (l->op == LAZY_LOGIC)
		return 0;
	if (l->op == LAZY_INC || l->op == LAZY_DEC)
		return l->aux;
	if (l->op == LAZY_NONE)
		return cpu->rflags & FLAG_CF;
	return flags_cf(cpu);
}

/* a op b at size bytes; records the flags and returns the masked result
 * (for CMP the difference, which the caller does not store). SDM Vol.2 ADD, OR,
 * ADC, SBB, AND, SUB, XOR, CMP: OF/SF/ZF/AF/CF/PF "set according to the result";
 * the logic ops clear OF and CF. */
static inline uint64_t alu_compute(struct cpu *cpu, enum alu_op op, unsigned size,
				   uint64_t a, uint64_t b)
{
	uint64_t m = size_mask(size), r, c;
	unsigned lg = log2_size(size);
	a &= m;
	b &= m;
	switch (op) {
	case ALU_ADD:
		r = (a + b) & m;
		flags_lazy(cpu, LAZY_ADD, lg, r, a, b);
		break;
	case ALU_ADC:
		c = cf_now(cpu);
		r = (a + b + c) & m;
		flags_lazy(cpu, LAZY_ADC, lg, r, a, b);
		cpu->lazy.aux = c;
		break;
	case ALU_SUB:
	case ALU_CMP:
		r = (a - b) & m;
		flags_lazy(cpu, LAZY_SUB, lg, r, a, b);
		break;
	case ALU_SBB:
		c = cf_now(cpu);
		r = (a - b - c) & m;
		flags_lazy(cpu, LAZY_SBB, lg, r, a, b);
		cpu->lazy.aux = c;
		break;
	case ALU_OR:
		r = a | b;
		flags_lazy(cpu, LAZY_LOGIC, lg, r, a, b);
		break;
	case ALU_AND:
		r = a & b;
		flags_lazy(cpu, LAZY_LOGIC, lg, r, a, b);
		break;
	default: /* ALU_XOR */
		r = a ^ b;
		flags_lazy(cpu, LAZY_LOGIC, lg, r, a, b);
		break;
	}
	return r;
}

/* The E operand: registers inline (the hot path), memory through the MMU. */
static inline status_t e_read(struct cpu *cpu, const struct insn *in, unsigned size,
			      uint64_t *v)
{
	if (!in->mem) {
		*v = reg_read(cpu, in->rm, size, in->rex != 0);
		return ST_OK;
	}
	return rm_read(cpu, in, size, v);
}

static inline status_t e_write(struct cpu *cpu, const struct insn *in, unsigned size,
			       uint64_t v)
{
	if (!in->mem) {
		reg_write(cpu, in->rm, size, in->rex != 0, v);
		return ST_OK;
	}
	return rm_write(cpu, in, size, v);
}

/* E op= src with a memory E. Kept out of line so that the register forms
 * compile to a few instructions. Flags are recorded only after the write
 * succeeded: a faulting write must not change them. */
static __attribute__((noinline)) status_t alu_to_mem(struct cpu *cpu, const struct insn *in,
						     enum alu_op op, uint64_t src)
{
	unsigned size = in->size;
	uint64_t d;
	status_t st = rm_read(cpu, in, size, &d);
	if (st != ST_OK)
		return st;
	if (op == ALU_CMP) {
		(void)alu_compute(cpu, op, size, d, src);
		return ST_OK;
	}
	struct lazy_flags saved = cpu->lazy;
	uint64_t r = alu_compute(cpu, op, size, d, src);
	struct lazy_flags now = cpu->lazy;
	cpu->lazy = saved;
	st = rm_write(cpu, in, size, r);
	if (st == ST_OK)
		cpu->lazy = now;
	return st;
}

/* E op= src. 32-bit register operands, the common case, take a path where the
 * width is a constant. */
static inline status_t alu_to_e(struct cpu *cpu, const struct insn *in, enum alu_op op,
				uint64_t src)
{
	if (__builtin_expect(in->mem, 0))
		return alu_to_mem(cpu, in, op, src);
	if (in->size == 4) {
		uint64_t r = alu_compute(cpu, op, 4, (uint32_t)cpu->regs[in->rm], src);
		if (op != ALU_CMP)
			cpu->regs[in->rm] = r;      /* 32-bit writes zero-extend (SDM Vol.1 3.4.1.1) */
		return ST_OK;
	}
	unsigned size = in->size;
	bool rex = in->rex != 0;
	uint64_t r = alu_compute(cpu, op, size, reg_read(cpu, in->rm, size, rex), src);
	if (op != ALU_CMP)
		reg_write(cpu, in->rm, size, rex, r);
	return ST_OK;
}

static inline status_t alu_eg(struct cpu *cpu, const struct insn *in, enum alu_op op)
{
	if (!in->mem && in->size == 4) {
		uint64_t r = alu_compute(cpu, op, 4, (uint32_t)cpu->regs[in->rm],
					 (uint32_t)cpu->regs[in->reg]);
		if (op != ALU_CMP)
			cpu->regs[in->rm] = r;
		return ST_OK;
	}
	return alu_to_e(cpu, in, op, greg_read(cpu, in, in->size));
}

static inline status_t alu_ei(struct cpu *cpu, const struct insn *in, enum alu_op op)
{
	return alu_to_e(cpu, in, op, in->imm);
}

static inline status_t alu_ge(struct cpu *cpu, const struct insn *in, enum alu_op op)
{
	unsigned size = in->size;
	uint64_t s;
	if (!in->mem && size == 4) {
		uint64_t r = alu_compute(cpu, op, 4, (uint32_t)cpu->regs[in->reg],
					 (uint32_t)cpu->regs[in->rm]);
		if (op != ALU_CMP)
			cpu->regs[in->reg] = r;
		return ST_OK;
	}
	status_t st = e_read(cpu, in, size, &s);
	if (st != ST_OK)
		return st;
	uint64_t r = alu_compute(cpu, op, size, greg_read(cpu, in, size), s);
	if (op != ALU_CMP)
		greg_write(cpu, in, size, r);
	return ST_OK;
}

static inline status_t alu_ai(struct cpu *cpu, const struct insn *in, enum alu_op op)
{
	unsigned size = in->size;
	uint64_t r = alu_compute(cpu, op, size, reg_read(cpu, R_AX, size, false), in->imm);
	if (op != ALU_CMP)
		reg_write(cpu, R_AX, size, false, r);
	return ST_OK;
}

/* dst op= src on registers of a constant size (4 or 8; a 32-bit result clears
 * bits 63:32, SDM Vol.1 3.4.1.1): the decode-time fast forms (emu/fast_forms.h). */
static inline status_t alu_reg(struct cpu *cpu, enum alu_op op, unsigned size, unsigned dst, uint64_t src)
{
	uint64_t d = size == 4 ? (uint32_t)cpu->regs[dst] : cpu->regs[dst];
	uint64_t r = alu_compute(cpu, op, size, d, size == 4 ? (uint32_t)src : src);
	if (op != ALU_CMP)
		cpu->regs[dst] = r;
	return ST_OK;
}

/* One handler per (operation, form): name pasting only, no control flow hidden. */
#define ALU_HANDLERS(name, op)                                                        \
	status_t op_##name##_EG(struct cpu *cpu, const struct insn *in) { return alu_eg(cpu, in, op); } \
	status_t op_##name##_GE(struct cpu *cpu, const struct insn *in) { return alu_ge(cpu, in, op); } \
	status_t op_##name##_AI(struct cpu *cpu, const struct insn *in) { return alu_ai(cpu, in, op); } \
	status_t op_##name##_EI(struct cpu *cpu, const struct insn *in) { return alu_ei(cpu, in, op); }
#define ALU_REG_FORMS(name, op, sz, w)                                                \
	status_t op_##name##_EG_##w(struct cpu *cpu, const struct insn *in)          \
	{ return alu_reg(cpu, op, sz, in->rm, cpu->regs[in->reg]); }                    \
	status_t op_##name##_GE_##w(struct cpu *cpu, const struct insn *in)          \
	{ return alu_reg(cpu, op, sz, in->reg, cpu->regs[in->rm]); }                    \
	status_t op_##name##_EI_##w(struct cpu *cpu, const struct insn *in)          \
	{ return alu_reg(cpu, op, sz, in->rm, in->imm); }                                \
	THREADED_PURE(name##_EG_##w) THREADED_PURE(name##_GE_##w) THREADED_PURE(name##_EI_##w)
#define ALU_FAST_FORMS(name, op) ALU_REG_FORMS(name, op, 4, r32) ALU_REG_FORMS(name, op, 8, r64)

ALU_HANDLERS(add, ALU_ADD)
ALU_HANDLERS(or, ALU_OR)
ALU_HANDLERS(adc, ALU_ADC)
ALU_HANDLERS(sbb, ALU_SBB)
ALU_HANDLERS(and, ALU_AND)
ALU_HANDLERS(sub, ALU_SUB)
ALU_HANDLERS(xor, ALU_XOR)
ALU_HANDLERS(cmp, ALU_CMP)
ALU_FAST_FORMS(add, ALU_ADD)
ALU_FAST_FORMS(or, ALU_OR)
ALU_FAST_FORMS(and, ALU_AND)
ALU_FAST_FORMS(sub, ALU_SUB)
ALU_FAST_FORMS(xor, ALU_XOR)
ALU_FAST_FORMS(cmp, ALU_CMP)
ALU_FAST_FORMS(adc, ALU_ADC)
ALU_FAST_FORMS(sbb, ALU_SBB)

/* The register fast forms without their flags, for a threaded run in which the
 * next instruction replaces all six status flags before anything can read
 * them (emu/fast_forms.c insns_drop_dead_flags). ADC/SBB read CF: none. */
static inline void alu_reg_flagless(struct cpu *cpu, enum alu_op op, unsigned size, unsigned dst, uint64_t src)
{
	uint64_t d = cpu->regs[dst], r;
	switch (op) {
	case ALU_ADD: r = d + src; break;
	case ALU_OR:  r = d | src; break;
	case ALU_AND: r = d & src; break;
	case ALU_SUB: r = d - src; break;
	case ALU_XOR: r = d ^ src; break;
	default: return;   /* CMP: nothing but flags */
	}
	cpu->regs[dst] = size == 4 ? (uint32_t)r : r;   /* SDM Vol.1 3.4.1.1 */
}
#define ALU_FLAGLESS_FORMS(name, op, sz, w)                                             \
	status_t thr_##name##_EG_##w##_nf(struct cpu *cpu, const struct insn *in)      \
	{ alu_reg_flagless(cpu, op, sz, in->rm, cpu->regs[in->reg]); return insn_next(cpu, in); } \
	status_t thr_##name##_GE_##w##_nf(struct cpu *cpu, const struct insn *in)      \
	{ alu_reg_flagless(cpu, op, sz, in->reg, cpu->regs[in->rm]); return insn_next(cpu, in); } \
	status_t thr_##name##_EI_##w##_nf(struct cpu *cpu, const struct insn *in)      \
	{ alu_reg_flagless(cpu, op, sz, in->rm, (uint64_t)in->imm); return insn_next(cpu, in); }
#define ALU_FLAGLESS(name, op) ALU_FLAGLESS_FORMS(name, op, 4, r32) ALU_FLAGLESS_FORMS(name, op, 8, r64)
ALU_FLAGLESS(add, ALU_ADD)
ALU_FLAGLESS(or, ALU_OR)
ALU_FLAGLESS(and, ALU_AND)
ALU_FLAGLESS(sub, ALU_SUB)
ALU_FLAGLESS(xor, ALU_XOR)
ALU_FLAGLESS(cmp, ALU_CMP)

/* With a 32- or 64-bit memory operand (decode-time fast forms): the exec forms
 * are the rows' handlers; the thread forms do the access inline when it hits
 * in the TLB, as the MOV forms do (emu/datamove.c): a read for G op= [m] and
 * CMP [m], G; a write hit for [m] op= src, which reads first (a translation
 * and a segment that allow the write allow the read). */
#define ALU_MEM_THREAD_E(fn, op, sz, src)                                              \
	__attribute__((flatten)) status_t thr_##fn(struct cpu *cpu, const struct insn *in) \
	{                                                                               \
		uint8_t *p = mem_fast(cpu, in->seg, thread_ea(cpu, in), sz,             \
				      op == ALU_CMP ? SEG_PERM_READ : SEG_PERM_WRITE,   \
				      op == ALU_CMP ? TLB_READ : TLB_WRITE);            \
		if (__builtin_expect(p != NULL, 1)) {                                   \
			uint64_t r = alu_compute(cpu, op, sz, host_load(p, sz), (src));  \
			if (op != ALU_CMP)                                              \
				host_store(p, sz, r);                                   \
			return insn_next(cpu, in);                                      \
		}                                                                       \
		return thread_step(cpu, in);                                            \
	}
#define ALU_MEM_THREAD_G(fn, op, sz)                                                   \
	__attribute__((flatten)) status_t thr_##fn(struct cpu *cpu, const struct insn *in) \
	{                                                                               \
		uint8_t *p = mem_fast(cpu, in->seg, thread_ea(cpu, in), sz, SEG_PERM_READ, TLB_READ); \
		if (__builtin_expect(p != NULL, 1)) {                                   \
			(void)alu_reg(cpu, op, sz, in->reg, host_load(p, sz));          \
			return insn_next(cpu, in);                                      \
		}                                                                       \
		return thread_step(cpu, in);                                            \
	}
#define ALU_MEM_FORMS(name, op, sz, w)                                                 \
	status_t op_##name##_EG_##w(struct cpu *cpu, const struct insn *in) { return alu_eg(cpu, in, op); } \
	status_t op_##name##_GE_##w(struct cpu *cpu, const struct insn *in) { return alu_ge(cpu, in, op); } \
	status_t op_##name##_EI_##w(struct cpu *cpu, const struct insn *in) { return alu_ei(cpu, in, op); } \
	ALU_MEM_THREAD_E(name##_EG_##w, op, sz, cpu->regs[in->reg])                     \
	ALU_MEM_THREAD_E(name##_EI_##w, op, sz, in->imm)                                \
	ALU_MEM_THREAD_G(name##_GE_##w, op, sz)
#define ALU_MEM_FAST_FORMS(name, op) ALU_MEM_FORMS(name, op, 4, m32) ALU_MEM_FORMS(name, op, 8, m64)
ALU_MEM_FAST_FORMS(add, ALU_ADD)
ALU_MEM_FAST_FORMS(or, ALU_OR)
ALU_MEM_FAST_FORMS(adc, ALU_ADC)
ALU_MEM_FAST_FORMS(sbb, ALU_SBB)
ALU_MEM_FAST_FORMS(and, ALU_AND)
ALU_MEM_FAST_FORMS(sub, ALU_SUB)
ALU_MEM_FAST_FORMS(xor, ALU_XOR)
ALU_MEM_FAST_FORMS(cmp, ALU_CMP)
/* The rows' own handlers meet the byte and 16-bit forms (and the A,I ones,
 * always registers): pure with a register operand. */
#define ALU_THREADED(name)                                                            \
	THREADED_PURE_REG(name##_EG) THREADED_PURE_REG(name##_GE) THREADED_PURE_REG(name##_EI) \
	THREADED_PURE(name##_AI)
ALU_THREADED(add) ALU_THREADED(or) ALU_THREADED(adc) ALU_THREADED(sbb)
ALU_THREADED(and) ALU_THREADED(sub) ALU_THREADED(xor) ALU_THREADED(cmp)

/* TEST: AND without storing (SDM Vol.2 TEST). Forms 84/85 (E,G), A8/A9 (A,I),
 * F6/F7 /0 and /1 (E,I; /1 is an alias the SDM lists in Appendix A, Table A-6). */
static inline status_t test_e(struct cpu *cpu, const struct insn *in, uint64_t src)
{
	uint64_t d;
	status_t st = e_read(cpu, in, in->size, &d);
	if (st != ST_OK)
		return st;
	(void)alu_compute(cpu, ALU_AND, in->size, d, src);
	return ST_OK;
}

status_t op_test_EG(struct cpu *cpu, const struct insn *in)
{
	return test_e(cpu, in, greg_read(cpu, in, in->size));
}

status_t op_test_EI(struct cpu *cpu, const struct insn *in)
{
	return test_e(cpu, in, in->imm);
}

/* TEST with two 32- or 64-bit registers (decode-time fast forms). */
status_t op_test_EG_r32(struct cpu *cpu, const struct insn *in)
{
	(void)alu_compute(cpu, ALU_AND, 4, (uint32_t)cpu->regs[in->rm], (uint32_t)cpu->regs[in->reg]);
	return ST_OK;
}

status_t op_test_EG_r64(struct cpu *cpu, const struct insn *in)
{
	(void)alu_compute(cpu, ALU_AND, 8, cpu->regs[in->rm], cpu->regs[in->reg]);
	return ST_OK;
}
THREADED_PURE(test_EG_r32) THREADED_PURE(test_EG_r64)
/* Flagless (see alu_reg_flagless): TEST has no other effect. */
status_t thr_test_EG_r32_nf(struct cpu *cpu, const struct insn *in) { return insn_next(cpu, in); }
status_t thr_test_EG_r64_nf(struct cpu *cpu, const struct insn *in) { return insn_next(cpu, in); }

status_t op_test_AI(struct cpu *cpu, const struct insn *in)
{
	(void)alu_compute(cpu, ALU_AND, in->size, reg_read(cpu, R_AX, in->size, false), in->imm);
	return ST_OK;
}

/* INC/DEC: ADD/SUB 1 that leaves CF alone (SDM Vol.2 INC, DEC: "The CF flag is
 * not affected"). The old CF is captured in lazy.aux. */
static inline void incdec_flags(struct cpu *cpu, unsigned size, uint64_t res, uint64_t d,
				bool dec)
{
	uint64_t cf = cf_now(cpu);
	flags_lazy(cpu, dec ? LAZY_DEC : LAZY_INC, log2_size(size), res, d, 1);
	cpu->lazy.aux = cf;
}

/* The E operand form (FE/FF /0 /1). */
static inline status_t incdec_e(struct cpu *cpu, const struct insn *in, bool dec)
{
	unsigned size = in->size;
	uint64_t d;
	status_t st = e_read(cpu, in, size, &d);
	if (st != ST_OK)
		return st;
	uint64_t res = (dec ? d - 1 : d + 1) & size_mask(size);
	st = e_write(cpu, in, size, res);
	if (st != ST_OK)
		return st;
	incdec_flags(cpu, size, res, d, dec);
	return ST_OK;
}

/* The register-in-opcode form (40+r / 48+r), 16 or 32 bits. */
static __attribute__((noinline)) status_t incdec_r16(struct cpu *cpu, const struct insn *in, bool dec)
{
	uint64_t d = reg_read(cpu, in->reg, 2, false);
	uint64_t res = (dec ? d - 1 : d + 1) & 0xffff;
	reg_write(cpu, in->reg, 2, false, res);
	incdec_flags(cpu, 2, res, d, dec);
	return ST_OK;
}

static inline status_t incdec_r(struct cpu *cpu, const struct insn *in, bool dec)
{
	if (in->size != 4)
		return incdec_r16(cpu, in, dec);
	uint64_t d = (uint32_t)cpu->regs[in->reg];
	uint64_t res = (uint32_t)(dec ? d - 1 : d + 1);
	cpu->regs[in->reg] = res;
	incdec_flags(cpu, 4, res, d, dec);
	return ST_OK;
}

/* FE/FF /0 /1: the E operand. */
status_t op_inc(struct cpu *cpu, const struct insn *in) { return incdec_e(cpu, in, false); }
status_t op_dec(struct cpu *cpu, const struct insn *in) { return incdec_e(cpu, in, true); }

/* INC/DEC of a 32- or 64-bit register r (decode-time fast forms). */
static inline status_t incdec_reg(struct cpu *cpu, unsigned r, unsigned size, bool dec)
{
	uint64_t d = size == 4 ? (uint32_t)cpu->regs[r] : cpu->regs[r];
	uint64_t res = dec ? d - 1 : d + 1;
	if (size == 4)
		res = (uint32_t)res;
	cpu->regs[r] = res;
	incdec_flags(cpu, size, res, d, dec);
	return ST_OK;
}
status_t op_inc_r32(struct cpu *cpu, const struct insn *in) { return incdec_reg(cpu, in->rm, 4, false); }
status_t op_inc_r64(struct cpu *cpu, const struct insn *in) { return incdec_reg(cpu, in->rm, 8, false); }
status_t op_dec_r32(struct cpu *cpu, const struct insn *in) { return incdec_reg(cpu, in->rm, 4, true); }
status_t op_dec_r64(struct cpu *cpu, const struct insn *in) { return incdec_reg(cpu, in->rm, 8, true); }
/* 40+r / 48+r (not in 64-bit mode, where they are REX): the register in the opcode. */
status_t op_inc_r(struct cpu *cpu, const struct insn *in) { return incdec_r(cpu, in, false); }
status_t op_dec_r(struct cpu *cpu, const struct insn *in) { return incdec_r(cpu, in, true); }
THREADED_PURE(inc_r32) THREADED_PURE(inc_r64) THREADED_PURE(dec_r32) THREADED_PURE(dec_r64)
THREADED_PURE(inc_r) THREADED_PURE(dec_r)
/* 40+r / 48+r with a 32-bit operand: the FF /0 /1 register forms. */
status_t op_inc_r_r32(struct cpu *cpu, const struct insn *in) { return incdec_reg(cpu, in->reg, 4, false); }
status_t op_dec_r_r32(struct cpu *cpu, const struct insn *in) { return incdec_reg(cpu, in->reg, 4, true); }
THREADED_PURE(inc_r_r32) THREADED_PURE(dec_r_r32)
/* Flagless (see alu_reg_flagless). */
#define INCDEC_FLAGLESS(name, r, sz, delta)                                             \
	status_t thr_##name##_nf(struct cpu *cpu, const struct insn *in)               \
	{                                                                               \
		uint64_t v = cpu->regs[in->r] + (uint64_t)(delta);                     \
		cpu->regs[in->r] = sz == 4 ? (uint32_t)v : v;                           \
		return insn_next(cpu, in);                                              \
	}
INCDEC_FLAGLESS(inc_r32, rm, 4, 1) INCDEC_FLAGLESS(inc_r64, rm, 8, 1)
INCDEC_FLAGLESS(dec_r32, rm, 4, -1) INCDEC_FLAGLESS(dec_r64, rm, 8, -1)
INCDEC_FLAGLESS(inc_r_r32, reg, 4, 1) INCDEC_FLAGLESS(dec_r_r32, reg, 4, -1)
#undef INCDEC_FLAGLESS

/* NOT (F6/F7 /2): no flags (SDM Vol.2 NOT: "None"). */
status_t op_not(struct cpu *cpu, const struct insn *in)
{
	uint64_t d;
	status_t st = e_read(cpu, in, in->size, &d);
	if (st != ST_OK)
		return st;
	return e_write(cpu, in, in->size, ~d & size_mask(in->size));
}

/* NEG (F6/F7 /3): 0 - E; SDM Vol.2 NEG: CF = 0 if the source is 0, else 1; the
 * others by the result. */
status_t op_neg(struct cpu *cpu, const struct insn *in)
{
	uint64_t d, m = size_mask(in->size);
	status_t st = e_read(cpu, in, in->size, &d);
	if (st != ST_OK)
		return st;
	uint64_t r = (0 - d) & m;
	st = e_write(cpu, in, in->size, r);
	if (st != ST_OK)
		return st;
	flags_lazy(cpu, LAZY_NEG, log2_size(in->size), r, d & m, 0);
	return ST_OK;
}
THREADED_PURE_REG(not) THREADED_PURE_REG(neg)
THREADED_PURE_REG(test_EG) THREADED_PURE_REG(test_EI) THREADED_PURE(test_AI)

/* XADD (0F C0/C1): TEMP = SRC + DEST; SRC = DEST; DEST = TEMP (SDM Vol.2 XADD).
 * The destination is written first so a fault leaves the register operand intact;
 * with both operands one register, the sum wins as in the SDM's order. */
status_t op_xadd(struct cpu *cpu, const struct insn *in)
{
	unsigned size = in->size;
	uint64_t d, s = greg_read(cpu, in, size);
	status_t st = e_read(cpu, in, size, &d);
	if (st != ST_OK)
		return st;
	struct lazy_flags saved = cpu->lazy;
	uint64_t sum = alu_compute(cpu, ALU_ADD, size, d, s);
	struct lazy_flags now = cpu->lazy;
	cpu->lazy = saved;
	if (in->mem) {
		st = rm_write(cpu, in, size, sum);
		if (st != ST_OK)
			return st;
		greg_write(cpu, in, size, d);
	} else {
		greg_write(cpu, in, size, d);
		reg_write(cpu, in->rm, size, in->rex != 0, sum);
	}
	cpu->lazy = now;
	return ST_OK;
}

/* CMPXCHG (0F B0/B1): compare the accumulator with DEST; equal: ZF=1, DEST=SRC;
 * else ZF=0, accumulator=DEST. Flags as CMP accumulator, DEST. SDM Vol.2 CMPXCHG:
 * "the destination operand is written back if the comparison fails" — a memory
 * destination always sees a write (and its faults) before the accumulator moves. */
status_t op_cmpxchg(struct cpu *cpu, const struct insn *in)
{
	unsigned size = in->size;
	uint64_t d, acc = reg_read(cpu, R_AX, size, false);
	status_t st = e_read(cpu, in, size, &d);
	if (st != ST_OK)
		return st;
	bool equal = (acc & size_mask(size)) == d;
	/* SDM pseudo-code: "ELSE ... accumulator <- TEMP; DEST <- TEMP". The write
	 * back is a memory write cycle; a register destination is left untouched
	 * when the comparison fails, so a 32-bit one is not zero-extended in 64-bit
	 * mode (both vendors' hardware; found by tests/diff host-diff-64). */
	if (equal || in->mem) {
		st = e_write(cpu, in, size, equal ? greg_read(cpu, in, size) : d);
		if (st != ST_OK)
			return st;
	}
	if (!equal)
		reg_write(cpu, R_AX, size, false, d);
	(void)alu_compute(cpu, ALU_CMP, size, acc, d);
	return ST_OK;
}

/* CMPXCHG8B m64 (0F C7 /1): compare EDX:EAX with m64; equal: ZF=1, m64=ECX:EBX;
 * else ZF=0, EDX:EAX=m64 and m64 is written back unchanged (SDM Vol.2
 * CMPXCHG8B/CMPXCHG16B: "the destination operand is written back if the
 * comparison fails"). Only ZF changes. With REX.W it is CMPXCHG16B on
 * RDX:RAX / RCX:RBX, whose operand must be 16-byte aligned or #GP(0), and
 * which is #UD when CPUID.01H:ECX.CMPXCHG16B[13] = 0 (SDM Vol.2 CMPXCHG16B). */
status_t op_cmpxchg8b(struct cpu *cpu, const struct insn *in)
{
	bool wide = (in->rex & 8) != 0;
	unsigned half = wide ? 8 : 4;
	if (wide && !cpu_model_has(cpu->model, 1, 2, 13))
		return cpu_raise(cpu, EXC_UD);
	uint64_t m = size_mask(half), ea = insn_ea(cpu, in), lo, hi;
	if (wide && (ea & 15))
		return cpu_raise_err(cpu, EXC_GP, 0);
	status_t st = mem_read(cpu, in->seg, ea, half, &lo);
	if (st == ST_OK)
		st = mem_read(cpu, in->seg, (ea + half) & size_mask(in->asize), half, &hi);
	if (st != ST_OK)
		return st;
	bool equal = lo == (cpu->regs[R_AX] & m) && hi == (cpu->regs[R_DX] & m);
	uint64_t nlo = equal ? cpu->regs[R_BX] & m : lo, nhi = equal ? cpu->regs[R_CX] & m : hi;
	/* Both halves are checked writable before either is stored. */
	st = mem_probe_write(cpu, in->seg, (ea + half) & size_mask(in->asize), half);
	if (st == ST_OK)
		st = mem_write(cpu, in->seg, ea, half, nlo);
	if (st == ST_OK)
		st = mem_write(cpu, in->seg, (ea + half) & size_mask(in->asize), half, nhi);
	if (st != ST_OK)
		return st;
	if (!equal) {
		reg_write(cpu, R_AX, half, false, lo);
		reg_write(cpu, R_DX, half, false, hi);
	}
	flags_update(cpu, FLAG_ZF, equal ? FLAG_ZF : 0);
	return ST_OK;
}
