/* Multiplication and division: MUL/IMUL/DIV/IDIV (F6/F7 /4-/7), IMUL Gv,Ev
 * (0F AF) and IMUL Gv,Ev,imm (69/6B). A multiply's flags are lazy where the
 * model takes SF/ZF/PF from the low result (LAZY_MUL), a division's eager.
 *
 * Products and dividends are up to 128 bits wide; GCC's unsigned __int128 holds
 * them (marked __extension__ for -Wpedantic).
 */
#include "emu/cpu_model.h"
#include "emu/flags.h"
#include "emu/operand.h"
#include "emu/fast_forms.h"
#include "emu/threaded.h"
#include "isa_handlers.h"

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 s128;

/* Flags after a multiply whose (low) result is lo and whose CF=OF is overflow.
 * SDM Vol.2 MUL/IMUL: "The SF, ZF, AF, and PF flags are undefined."
 * Intel (and any model with QUIRK_MUL_SZP_FROM_LOW), as Bochs and QEMU model it:
 * SF/ZF/PF from the low result, AF = 0. AMD: SF/ZF/AF/PF are left unchanged
 * (measured on the EPYC host for MUL and IMUL). */
static void mul_flags(struct cpu *cpu, uint64_t lo, unsigned size, bool overflow)
{
	bool szp_low = !cpu_is_amd(cpu) || (cpu->model->quirks & QUIRK_MUL_SZP_FROM_LOW);
	if (szp_low) {
		/* Every status flag follows from lo and overflow: lazily. */
		flags_lazy(cpu, LAZY_MUL, log2_size(size), lo, 0, 0);
		cpu->lazy.aux = overflow;
	} else {
		flags_update(cpu, FLAG_CF | FLAG_OF, overflow ? FLAG_CF | FLAG_OF : 0);
	}
}

/* Write the double-width result hi:lo of size bytes each: AX for bytes (AH:AL),
 * else rDX:rAX (SDM Vol.2 MUL, Table "MUL Results"). */
static void write_wide(struct cpu *cpu, unsigned size, uint64_t lo, uint64_t hi)
{
	if (size == 1) {
		reg_write(cpu, R_AX, 2, false, (lo & 0xff) | ((hi & 0xff) << 8));
	} else {
		reg_write(cpu, R_AX, size, false, lo);
		reg_write(cpu, R_DX, size, false, hi);
	}
}

/* MUL r/m: unsigned accumulator * source. CF = OF = upper half non-zero. */
status_t op_mul(struct cpu *cpu, const struct insn *in)
{
	unsigned size = in->size, w = size * 8;
	uint64_t s, m = size_mask(size);
	status_t st = rm_read(cpu, in, size, &s);
	if (st != ST_OK)
		return st;
	u128 p = (u128)(cpu->regs[R_AX] & m) * (u128)(s & m);
	uint64_t lo = (uint64_t)p & m, hi = (uint64_t)(p >> w) & m;
	write_wide(cpu, size, lo, hi);
	mul_flags(cpu, lo, size, hi != 0);
	return ST_OK;
}

/* IMUL r/m (one operand): signed; CF = OF = the product does not fit the low half
 * (SDM Vol.2 IMUL). */
status_t op_imul1(struct cpu *cpu, const struct insn *in)
{
	unsigned size = in->size, w = size * 8;
	uint64_t s, m = size_mask(size);
	status_t st = rm_read(cpu, in, size, &s);
	if (st != ST_OK)
		return st;
	s128 p = (s128)sign_extend(cpu->regs[R_AX], size) * (s128)sign_extend(s, size);
	uint64_t lo = (uint64_t)p & m, hi = (uint64_t)((u128)p >> w) & m;
	write_wide(cpu, size, lo, hi);
	mul_flags(cpu, lo, size, p != (s128)sign_extend(lo, size));
	return ST_OK;
}

/* dest = truncated signed product; CF = OF = the truncation lost information. */
static inline status_t imul_trunc(struct cpu *cpu, const struct insn *in, uint64_t b)
{
	unsigned size = in->size;
	uint64_t a;
	status_t st = rm_read(cpu, in, size, &a);
	if (st != ST_OK)
		return st;
	s128 p = (s128)sign_extend(a, size) * (s128)sign_extend(b, size);
	uint64_t lo = (uint64_t)p & size_mask(size);
	greg_write(cpu, in, size, lo);
	mul_flags(cpu, lo, size, p != (s128)sign_extend(lo, size));
	return ST_OK;
}

/* IMUL Gv, Ev (0F AF). */
status_t op_imul_GE(struct cpu *cpu, const struct insn *in)
{
	return imul_trunc(cpu, in, greg_read(cpu, in, in->size));
}

/* IMUL Gv, Ev with 32- or 64-bit registers (decode-time fast forms): the
 * product of that signed type, overflow for CF = OF. */
#define IMUL_REG_FORM(w, stype, utype, size)                                            \
	status_t op_imul_GE_##w(struct cpu *cpu, const struct insn *in)               \
	{                                                                               \
		stype r;                                                                \
		bool overflow = __builtin_mul_overflow((stype)cpu->regs[in->reg],       \
						       (stype)cpu->regs[in->rm], &r);   \
		cpu->regs[in->reg] = (utype)r;                                          \
		mul_flags(cpu, (utype)r, size, overflow);                               \
		return ST_OK;                                                           \
	}
IMUL_REG_FORM(r32, int32_t, uint32_t, 4)
IMUL_REG_FORM(r64, int64_t, uint64_t, 8)
#undef IMUL_REG_FORM
THREADED_PURE(imul_GE_r32) THREADED_PURE(imul_GE_r64) THREADED_PURE_REG(imul_GE)

/* IMUL Gv, Ev, Iz/Ibs (69, 6B). */
status_t op_imul_GEI(struct cpu *cpu, const struct insn *in)
{
	return imul_trunc(cpu, in, in->imm);
}
THREADED_PURE_REG(imul_GEI)

/* SDM Vol.2 DIV/IDIV: "The CF, OF, SF, ZF, AF, and PF flags are undefined."
 * AMD (measured on the host, DIV and IDIV, all sizes): CF and OF unchanged,
 * AF = 1, SF = ZF = PF = 0. Intel is modelled as leaving them all unchanged, as
 * Bochs and QEMU do. */
static void div_flags(struct cpu *cpu)
{
	if (cpu_is_amd(cpu))
		flags_update(cpu, FLAG_SF | FLAG_ZF | FLAG_AF | FLAG_PF, FLAG_AF);
}

/* The dividend: AX for bytes, else rDX:rAX. */
static inline u128 dividend(const struct cpu *cpu, unsigned size)
{
	if (size == 1)
		return cpu->regs[R_AX] & 0xffff;
	uint64_t m = size_mask(size);
	return ((u128)(cpu->regs[R_DX] & m) << (size * 8)) | (cpu->regs[R_AX] & m);
}

/* Store quotient and remainder: AL/AH for bytes, else rAX/rDX. */
static void write_divide(struct cpu *cpu, unsigned size, uint64_t q, uint64_t r)
{
	if (size == 1) {
		reg_write(cpu, R_AX, 2, false, (q & 0xff) | ((r & 0xff) << 8));
	} else {
		reg_write(cpu, R_AX, size, false, q);
		reg_write(cpu, R_DX, size, false, r);
	}
}

/* DIV r/m: unsigned; #DE if the divisor is 0 or the quotient does not fit
 * (SDM Vol.2 DIV: "IF SRC = 0 THEN #DE", "IF temp > FFH THEN #DE"). */
status_t op_div(struct cpu *cpu, const struct insn *in)
{
	unsigned size = in->size;
	uint64_t s, m = size_mask(size);
	status_t st = rm_read(cpu, in, size, &s);
	if (st != ST_OK)
		return st;
	s &= m;
	if (s == 0)
		return cpu_raise(cpu, EXC_DE);
	u128 n = dividend(cpu, size);
	u128 q = n / s;
	if (q > m)
		return cpu_raise(cpu, EXC_DE);
	write_divide(cpu, size, (uint64_t)q, (uint64_t)(n % s));
	div_flags(cpu);
	return ST_OK;
}

/* IDIV r/m: signed, quotient truncated toward zero, remainder with the
 * dividend's sign; #DE on a zero divisor or a quotient outside the signed range
 * (SDM Vol.2 IDIV). The most negative dividend / -1 is the overflow case and is
 * caught by the range check before it could trap on the host. */
status_t op_idiv(struct cpu *cpu, const struct insn *in)
{
	unsigned size = in->size, w = size * 8;
	uint64_t s;
	status_t st = rm_read(cpu, in, size, &s);
	if (st != ST_OK)
		return st;
	int64_t d = sign_extend(s, size);
	if (d == 0)
		return cpu_raise(cpu, EXC_DE);
	u128 raw = dividend(cpu, size);
	/* Sign-extend the 2w-bit dividend to 128 bits. */
	s128 n = (s128)(raw << (128 - 2 * w)) >> (128 - 2 * w);
	s128 max = ((s128)1 << (w - 1)) - 1, min = -max - 1;
	s128 q;
	if (d == -1) {
		/* Negate in unsigned arithmetic: -(-2^127) must not overflow on the
		 * host; it wraps to -2^127 and fails the range check below. */
		q = (s128)((u128)0 - (u128)n);
	} else {
		q = n / d;
	}
	if (q > max || q < min)
		return cpu_raise(cpu, EXC_DE);
	s128 r = n - q * d;
	write_divide(cpu, size, (uint64_t)q, (uint64_t)r);
	div_flags(cpu);
	return ST_OK;
}
