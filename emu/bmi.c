/* BMI1 and BMI2 (SDM Vol.2 ANDN, BEXTR, BLSI, BLSMSK, BLSR, BZHI, PDEP, PEXT,
 * RORX, SARX/SHLX/SHRX; MULX is in emu/multiprecision.c): VEX-encoded
 * instructions on general registers, 32 bits or, with VEX.W1 in 64-bit mode,
 * 64 (the decoder sets insn.size, VEX.L = 1 matches no row: #UD). Operands:
 * G is ModRM.reg, E ModRM.r/m, B VEX.vvvv (emu/isa/bitmanip.isa).
 *
 * Undefined flags (AF and PF everywhere; SF for BEXTR): measured on an Intel
 * host (tests/diff -m bmi compares them), every flag the SDM leaves undefined
 * is cleared. hvemu clears them for both vendors: AMD's APM3 leaves them "U"
 * too and no AMD measurement is at hand. */
#include "emu/flags.h"
#include "emu/operand.h"
#include "emu/vex.h"
#include "isa_handlers.h"

/* SF and ZF of a result of size bytes. */
static inline uint64_t sign_zero(uint64_t r, unsigned size)
{
	return ((r >> (size * 8 - 1)) & 1 ? FLAG_SF : 0) | (r ? 0 : FLAG_ZF);
}

/* The E operand (register or memory) after the mode check. */
static inline status_t CHECKED bmi_source(struct cpu *cpu, const struct insn *in, uint64_t *out)
{
	status_t st = vex_gpr_check(cpu);
	if (st != ST_OK)
		return st;
	return rm_read(cpu, in, in->size, out);
}

/* SDM Vol.2 ANDN: DEST = NOT SRC1 AND SRC2; "SF and ZF are updated based on
 * result. OF and CF flags are cleared." */
status_t op_andn(struct cpu *cpu, const struct insn *in)
{
	uint64_t s2;
	status_t st = bmi_source(cpu, in, &s2);
	if (st != ST_OK)
		return st;
	uint64_t r = ~vreg_read(cpu, in, in->size) & s2 & size_mask(in->size);
	greg_write(cpu, in, in->size, r);
	flags_update(cpu, FLAGS_ARITH, sign_zero(r, in->size));
	return ST_OK;
}

/* SDM Vol.2 BEXTR: START = SRC2[7:0], LEN = SRC2[15:8]; the bits of SRC1 from
 * START, LEN of them, zero-extended; nothing when START is past the operand.
 * "ZF is updated based on the result. CF and OF flags are cleared." */
status_t op_bextr(struct cpu *cpu, const struct insn *in)
{
	uint64_t s1;
	status_t st = bmi_source(cpu, in, &s1);
	if (st != ST_OK)
		return st;
	uint64_t ctl = vreg_read(cpu, in, in->size);
	unsigned start = ctl & 0xff, len = (ctl >> 8) & 0xff, bits = in->size * 8;
	uint64_t r = 0;
	if (start < bits) {
		r = s1 >> start;
		if (len < 64)
			r &= (1ull << len) - 1;
	}
	greg_write(cpu, in, in->size, r);
	flags_update(cpu, FLAGS_ARITH, r ? 0 : FLAG_ZF);
	return ST_OK;
}

enum bls_op { BLS_RESET, BLS_MASK, BLS_ISOLATE };

/* BLSR/BLSMSK/BLSI (VEX.0F38 F3 /1, /2, /3): the destination is VEX.vvvv.
 * SDM Vol.2: BLSR "ZF and SF ... based on the result. CF is set if the source
 * is zero. OF flag is cleared"; BLSMSK "SF ... based on the result. CF is set
 * if the source is zero. ZF and OF flags are cleared"; BLSI "If the source is
 * zero CF is cleared, otherwise it is set. ZF and SF ... based on the result.
 * OF flag is cleared." */
static inline status_t bls(struct cpu *cpu, const struct insn *in, enum bls_op op)
{
	uint64_t s;
	status_t st = bmi_source(cpu, in, &s);
	if (st != ST_OK)
		return st;
	unsigned size = in->size;
	uint64_t r, f;
	switch (op) {
	case BLS_RESET:
		r = (s - 1) & s;
		f = sign_zero(r, size) | (s ? 0 : FLAG_CF);
		break;
	case BLS_MASK:
		r = ((s - 1) ^ s) & size_mask(size);
		f = (sign_zero(r, size) & FLAG_SF) | (s ? 0 : FLAG_CF);
		break;
	default:
		r = (0 - s) & s;
		f = sign_zero(r, size) | (s ? FLAG_CF : 0);
		break;
	}
	vreg_write(cpu, in, size, r);
	flags_update(cpu, FLAGS_ARITH, f);
	return ST_OK;
}

status_t op_blsr(struct cpu *cpu, const struct insn *in) { return bls(cpu, in, BLS_RESET); }
status_t op_blsmsk(struct cpu *cpu, const struct insn *in) { return bls(cpu, in, BLS_MASK); }
status_t op_blsi(struct cpu *cpu, const struct insn *in) { return bls(cpu, in, BLS_ISOLATE); }

/* SDM Vol.2 BZHI: N = SRC2[7:0]; below the operand width the bits of SRC1 from
 * N up are cleared, else SRC1 is copied and CF is set ("CF := 1 if N >
 * OperandSize - 1"). "ZF, CF and SF flags are updated based on the result. OF
 * flag is cleared." */
status_t op_bzhi(struct cpu *cpu, const struct insn *in)
{
	uint64_t s1;
	status_t st = bmi_source(cpu, in, &s1);
	if (st != ST_OK)
		return st;
	unsigned n = vreg_read(cpu, in, in->size) & 0xff, bits = in->size * 8;
	uint64_t r = n < bits ? s1 & ((1ull << n) - 1) : s1;
	greg_write(cpu, in, in->size, r);
	flags_update(cpu, FLAGS_ARITH, sign_zero(r, in->size) | (n < bits ? 0 : FLAG_CF));
	return ST_OK;
}

/* SDM Vol.2 PDEP: the low bits of SRC1 go, in order, to the positions of the
 * set bits of the mask (SRC2, r/m); PEXT: the bits of SRC1 at the mask's set
 * bits are packed into the low bits. No flags change. */
static status_t pdep_pext(struct cpu *cpu, const struct insn *in, bool deposit)
{
	uint64_t mask;
	status_t st = bmi_source(cpu, in, &mask);
	if (st != ST_OK)
		return st;
	uint64_t s = vreg_read(cpu, in, in->size), r = 0;
	/* bit walks the packed (low) side, low the mask's set bits in order. */
	for (uint64_t bit = 1; mask; bit <<= 1) {
		uint64_t low = mask & (0 - mask);
		if (deposit ? (s & bit) : (s & low))
			r |= deposit ? low : bit;
		mask ^= low;
	}
	greg_write(cpu, in, in->size, r);
	return ST_OK;
}

status_t op_pdep(struct cpu *cpu, const struct insn *in) { return pdep_pext(cpu, in, true); }
status_t op_pext(struct cpu *cpu, const struct insn *in) { return pdep_pext(cpu, in, false); }

/* SDM Vol.2 RORX: rotate right by imm8 modulo the operand width, "This
 * instruction does not read or write the arithmetic flags." */
status_t op_rorx(struct cpu *cpu, const struct insn *in)
{
	uint64_t s;
	status_t st = bmi_source(cpu, in, &s);
	if (st != ST_OK)
		return st;
	unsigned bits = in->size * 8, n = (unsigned)in->imm & (bits - 1);
	uint64_t r = n ? (s >> n | s << (bits - n)) & size_mask(in->size) : s;
	greg_write(cpu, in, in->size, r);
	return ST_OK;
}

enum shiftx_op { SHIFTX_SAR, SHIFTX_SHL, SHIFTX_SHR };

/* SDM Vol.2 SARX/SHLX/SHRX (VEX.0F38 F7 with pp F3/66/F2): SRC1 (r/m) shifted
 * by SRC2 (VEX.vvvv) modulo 32 or 64; no flags change. */
static inline status_t shiftx(struct cpu *cpu, const struct insn *in, enum shiftx_op op)
{
	uint64_t s;
	status_t st = bmi_source(cpu, in, &s);
	if (st != ST_OK)
		return st;
	unsigned size = in->size, n = (unsigned)vreg_read(cpu, in, size) & (size * 8 - 1);
	uint64_t r = op == SHIFTX_SAR ? (uint64_t)(sign_extend(s, size) >> n) : op == SHIFTX_SHL ? s << n : s >> n;
	greg_write(cpu, in, size, r & size_mask(size));
	return ST_OK;
}

status_t op_sarx(struct cpu *cpu, const struct insn *in) { return shiftx(cpu, in, SHIFTX_SAR); }
status_t op_shlx(struct cpu *cpu, const struct insn *in) { return shiftx(cpu, in, SHIFTX_SHL); }
status_t op_shrx(struct cpu *cpu, const struct insn *in) { return shiftx(cpu, in, SHIFTX_SHR); }
