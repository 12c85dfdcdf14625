/* Arithmetic flags, evaluated lazily.
 *
 * A flag-setting ALU operation records (op, size, result, sources) in cpu->lazy;
 * the six status flags are computed only when something reads them (Jcc, PUSHF,
 * an exception). Instructions whose flags are awkward to express lazily (BCD,
 * rotates, MUL/IMUL on a model that keeps SF/ZF/AF/PF) compute them eagerly
 * with flags_update(). */
#ifndef HVEMU_EMU_FLAGS_H
#define HVEMU_EMU_FLAGS_H

#include "emu/cpu.h"

enum lazy_op {
	LAZY_NONE,                 /* rflags already holds the status flags */
	LAZY_ADD,                  /* result = src1 + src2 */
	LAZY_ADC,                  /* result = src1 + src2 + aux(carry in) */
	LAZY_SUB,                  /* result = src1 - src2 (also CMP) */
	LAZY_SBB,                  /* result = src1 - src2 - aux(borrow in) */
	LAZY_LOGIC,                /* AND/OR/XOR/TEST: CF=OF=0, AF undefined (model) */
	LAZY_INC,                  /* result = src1 + 1; aux = preserved CF */
	LAZY_DEC,                  /* result = src1 - 1; aux = preserved CF */
	LAZY_NEG,                  /* result = 0 - src1 */
	LAZY_SHL,                  /* result = src1 << src2 (count 1..63, masked) */
	LAZY_SHR,                  /* result = src1 >> src2 (logical) */
	LAZY_SAR,                  /* result = src1 >> src2 (arithmetic) */
	LAZY_MUL,                  /* result = low half of a product; aux = CF = OF;
				      SF/ZF/PF of result, AF = 0 (emu/muldiv.c) */
};

/* lazy.size of an operand of size bytes (1, 2, 4, 8). */
static inline unsigned log2_size(unsigned size)
{
	return (unsigned)__builtin_ctz(size);
}

static inline void flags_lazy(struct cpu *cpu, enum lazy_op op, unsigned size,
			      uint64_t result, uint64_t src1, uint64_t src2)
{
	cpu->lazy.op = (uint8_t)op;
	cpu->lazy.size = (uint8_t)size;
	cpu->lazy.result = result;
	cpu->lazy.src1 = src1;
	cpu->lazy.src2 = src2;
}

/* Fold the lazy flags into cpu->rflags (then lazy.op == LAZY_NONE). */
void flags_materialize(struct cpu *cpu);

/* Replace the flags in mask with those of values (e.g. FLAG_CF|FLAG_OF). */
static inline void flags_update(struct cpu *cpu, uint64_t mask, uint64_t values)
{
	/* Replacing all six status flags needs nothing from the lazy record. */
	if (cpu->lazy.op != LAZY_NONE) {
		if ((mask & FLAGS_ARITH) == FLAGS_ARITH)
			cpu->lazy.op = LAZY_NONE;
		else
			flags_materialize(cpu);
	}
	cpu->rflags = (cpu->rflags & ~mask) | (values & mask);
}

/* Current CF, the one flag read on hot paths (ADC/SBB/RCL/RCR). */
bool flags_cf(struct cpu *cpu);

/* Condition code cc (0-15) as in Jcc/SETcc/CMOVcc (SDM Vol.1 Appendix B). */
bool flags_cond_slow(struct cpu *cpu, unsigned cc);
static inline bool flags_cond(struct cpu *cpu, unsigned cc)
{
	/* E/NE after any recorded operation: ZF is "result == 0" (results are
	 * stored masked to the operand size). The loop-closing case, kept inline. */
	if ((cc >> 1) == 2 && cpu->lazy.op != LAZY_NONE)
		return (cpu->lazy.result == 0) != (cc & 1);
	return flags_cond_slow(cpu, cc);
}

/* A condition known when the code is decoded (cc a constant: one copy per
 * condition, emu/branch.c's Jcc forms), so the test of each branch site is
 * its own: Z and S after any recorded operation, and after CMP/SUB and the
 * logic ops every condition but O and P, are answered inline (SDM Vol.1
 * Appendix B, Table B-1; the same answers as flags_cond_slow's), anything
 * else out of line. */
static inline __attribute__((always_inline)) bool flags_cond_known(struct cpu *cpu, unsigned cc)
{
	const struct lazy_flags *l = &cpu->lazy;
	unsigned test = (cc >> 1) & 7, bits = 8u << l->size;
	bool neg = cc & 1;
	if (test == 0 || test == 5 || l->op == LAZY_NONE)    /* O, P, or folded flags */
		return flags_cond_slow(cpu, cc);
	uint64_t m = ~0ull >> (64 - bits), r = l->result;   /* results are stored masked */
	bool sign = (r >> (bits - 1)) & 1;
	/* Z and S after any recorded operation: its result (a loop's DEC/JNZ). */
	if (test == 2)
		return (r == 0) != neg;
	if (test == 4)
		return sign != neg;
	if (l->op == LAZY_SUB) {
		uint64_t a = l->src1 & m, b = l->src2 & m;
		int64_t sa = (int64_t)(a << (64 - bits)) >> (64 - bits), sb = (int64_t)(b << (64 - bits)) >> (64 - bits);
		switch (test) {
		case 1: return (a < b) != neg;               /* B */
		case 3: return (a <= b) != neg;              /* BE */
		case 6: return (sa < sb) != neg;             /* L */
		default: return (sa <= sb) != neg;           /* LE */
		}
	}
	if (l->op == LAZY_LOGIC) {
		/* CF = OF = 0: B is false, BE is Z, L is S, LE is Z or S. */
		switch (test) {
		case 1: return neg;
		case 3: return (r == 0) != neg;
		case 6: return sign != neg;
		default: return (r == 0 || sign) != neg;
		}
	}
	return flags_cond_slow(cpu, cc);
}

/* PF: set when the low byte of the result has an even number of one bits. */
static inline uint64_t flags_parity(uint64_t result)
{
	return __builtin_parity((unsigned)(result & 0xff)) ? 0 : FLAG_PF;
}

/* ZF, SF and PF of a result of size bytes. */
static inline uint64_t flags_szp(uint64_t result, unsigned size)
{
	uint64_t m = size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
	uint64_t f = flags_parity(result);
	if (!(result & m))
		f |= FLAG_ZF;
	if ((result >> (size * 8 - 1)) & 1)
		f |= FLAG_SF;
	return f;
}

#endif
