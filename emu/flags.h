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
