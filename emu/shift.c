/* Shifts and rotates: ROL/ROR/RCL/RCR/SHL(SAL)/SHR/SAR (C0/C1/D0-D3) and the
 * double shifts SHLD/SHRD (0F A4/A5/AC/AD). Flags are computed eagerly.
 *
 * Common rules (SDM Vol.2 SAL/SAR/SHL/SHR, RCL/RCR/ROL/ROR, SHLD, SHRD):
 *  - the count is masked to 5 bits (6 with a 64-bit operand);
 *  - a masked count of 0 changes no flags (and, for memory, writes nothing),
 *    but a 32-bit register destination is still written: in 64-bit mode its
 *    upper half is cleared (SDM Vol.1 3.4.1.1; measured on the host by
 *    tests/diff host-diff-64; FEX's hardware-derived SHRD tests expect it too);
 *  - OF is defined only for 1-bit shifts; for larger counts both vendors
 *    produce the same formula as for 1 bit applied to the final result (CF xor
 *    the result's MSB for left shifts, the result's two top bits xor-ed for right
 *    shifts); measured on AMD (EPYC host probe), and Bochs models Intel the same;
 *  - AF after a shift with a non-zero count is undefined: AMD sets it (measured
 *    on the host), Intel is modelled as clearing it (Bochs, QEMU).
 */
#include "emu/cpu_model.h"
#include "emu/flags.h"
#include "emu/fast_forms.h"
#include "emu/operand.h"
#include "emu/threaded.h"
#include "isa_handlers.h"

enum shift_op { SH_ROL, SH_ROR, SH_RCL, SH_RCR, SH_SHL, SH_SHR, SH_SAR };

static inline uint64_t msb(uint64_t v, unsigned bits)
{
	return (v >> (bits - 1)) & 1;
}

/* The undefined AF of a shift with a non-zero count (see the file comment). */
static inline uint64_t shift_af(const struct cpu *cpu)
{
	return cpu_is_amd(cpu) ? FLAG_AF : 0;
}

/* Count operand: 1 for D0/D1, CL for D2/D3, imm8 for C0/C1 (and the Ib forms of
 * SHLD/SHRD); CL for 0F A5/AD. Masked per SDM Vol.2 SAL/SHL: "The count is masked
 * to 5 bits (or 6 bits with a 64-bit operand)". */
static inline unsigned shift_count(const struct cpu *cpu, const struct insn *in)
{
	unsigned c;
	if (in->map == 1)
		c = (in->opcode & 1) ? (unsigned)cpu->regs[R_CX] : (unsigned)in->imm;
	else if (in->opcode == 0xd0 || in->opcode == 0xd1)
		c = 1;
	else if (in->opcode == 0xd2 || in->opcode == 0xd3)
		c = (unsigned)cpu->regs[R_CX];
	else
		c = (unsigned)in->imm;
	return c & (in->size == 8 ? 0x3f : 0x1f);
}

/* Compute op on v (size bytes) by count c != 0. Returns the result; *flags gets
 * the new arithmetic flags and *mask the ones that change. */
static uint64_t shift_compute(struct cpu *cpu, enum shift_op op, unsigned size, uint64_t v,
			      unsigned c, uint64_t *flags, uint64_t *mask)
{
	unsigned w = size * 8;
	uint64_t m = size_mask(size), r, cf, of;
	v &= m;

	switch (op) {
	case SH_ROL: {
		/* SDM Vol.2 ROL: rotate by (count mod size); CF = LSB of the result. */
		unsigned t = c % w;
		r = t ? ((v << t) | (v >> (w - t))) & m : v;
		cf = r & 1;
		of = msb(r, w) ^ cf;
		*mask = FLAG_CF | FLAG_OF;
		break;
	}
	case SH_ROR: {
		unsigned t = c % w;
		r = t ? ((v >> t) | (v << (w - t))) & m : v;
		cf = msb(r, w);
		of = msb(r, w) ^ msb(r, w - 1);
		*mask = FLAG_CF | FLAG_OF;
		break;
	}
	case SH_RCL: {
		/* SDM Vol.2 RCL: through CF, a (w+1)-bit rotate; the count is taken
		 * mod 9 (8-bit) or mod 17 (16-bit). */
		unsigned t = w == 8 ? c % 9 : w == 16 ? c % 17 : c;
		uint64_t old_cf = flags_cf(cpu);
		if (t == 0) {
			r = v;
			cf = old_cf;
		} else {
			r = ((v << t) | (old_cf << (t - 1)) | (t > 1 ? v >> (w + 1 - t) : 0)) & m;
			cf = (v >> (w - t)) & 1;
		}
		of = msb(r, w) ^ cf;
		*mask = FLAG_CF | FLAG_OF;
		break;
	}
	case SH_RCR: {
		unsigned t = w == 8 ? c % 9 : w == 16 ? c % 17 : c;
		uint64_t old_cf = flags_cf(cpu);
		if (t == 0) {
			r = v;
			cf = old_cf;
		} else {
			r = ((v >> t) | (old_cf << (w - t)) | (t > 1 ? v << (w + 1 - t) : 0)) & m;
			cf = (v >> (t - 1)) & 1;
		}
		/* SDM: for 1 bit OF = MSB(DEST) xor CF before the rotate, which is the
		 * xor of the result's two top bits. */
		of = msb(r, w) ^ msb(r, w - 1);
		*mask = FLAG_CF | FLAG_OF;
		break;
	}
	case SH_SHL:
		/* Counts past the width (8/16-bit) shift everything out: CF = 0. */
		r = c < 64 ? (v << c) & m : 0;
		cf = c <= w ? (v >> (w - c)) & 1 : 0;
		of = msb(r, w) ^ cf;
		*mask = FLAGS_ARITH;
		break;
	case SH_SHR:
		r = v >> c;
		cf = (v >> (c - 1)) & 1;
		/* SDM Vol.2 SHR: for 1 bit, OF = MSB of the original operand. */
		of = msb(r, w) ^ msb(r, w - 1);
		*mask = FLAGS_ARITH;
		break;
	default: { /* SH_SAR */
		int64_t sv = sign_extend(v, size);
		r = (uint64_t)(sv >> (c > 63 ? 63 : c)) & m;
		cf = (uint64_t)(sv >> (c - 1 > 63 ? 63 : c - 1)) & 1;
		of = 0;                     /* SDM Vol.2 SAR: OF cleared for 1-bit shifts */
		*mask = FLAGS_ARITH;
		break;
	}
	}
	uint64_t f = (cf ? FLAG_CF : 0) | (of ? FLAG_OF : 0);
	if (*mask == FLAGS_ARITH)
		f |= flags_szp(r, size) | shift_af(cpu);
	*flags = f;
	return r;
}

/* The write of a masked count of 0 (see the file comment). */
static inline status_t count_zero(struct cpu *cpu, const struct insn *in, uint64_t v)
{
	return !in->mem && in->size == 4 ? rm_write(cpu, in, 4, v) : ST_OK;
}

static inline status_t shift_exec(struct cpu *cpu, const struct insn *in, enum shift_op op)
{
	unsigned size = in->size;
	unsigned c = shift_count(cpu, in);
	uint64_t v;
	status_t st = rm_read(cpu, in, size, &v);
	if (st != ST_OK)
		return st;
	if (c == 0)
		return count_zero(cpu, in, v);
	if (op >= SH_SHL) {
		/* Shifts set all six flags from (value, count, result): recorded lazily
		 * (emu/flags.c), like the ALU operations. */
		uint64_t m = size_mask(size), r;
		v &= m;
		if (op == SH_SHL)
			r = c < 64 ? (v << c) & m : 0;
		else if (op == SH_SHR)
			r = v >> c;
		else
			r = (uint64_t)(sign_extend(v, size) >> (c > 63 ? 63 : c)) & m;
		st = rm_write(cpu, in, size, r);
		if (st != ST_OK)
			return st;
		flags_lazy(cpu, op == SH_SHL ? LAZY_SHL : op == SH_SHR ? LAZY_SHR : LAZY_SAR,
			   (unsigned)__builtin_ctz(size), r, v, c);
		return ST_OK;
	}
	uint64_t f, mask;
	uint64_t r = shift_compute(cpu, op, size, v, c, &f, &mask);
	st = rm_write(cpu, in, size, r);
	if (st != ST_OK)
		return st;
	flags_update(cpu, mask, f);
	return ST_OK;
}

/* v (zero-extended from size bytes) shifted by c (1..size*8-1) as SHL, SHR or
 * SAR; a 32-bit result clears bits 63:32 (SDM Vol.1 3.4.1.1). */
static inline uint64_t shift_value(enum shift_op op, unsigned size, uint64_t v, unsigned c)
{
	if (op == SH_SHL)
		return size == 4 ? (uint32_t)(v << c) : v << c;
	if (op == SH_SHR)
		return v >> c;
	return size == 4 ? (uint32_t)((int32_t)v >> c) : (uint64_t)((int64_t)v >> c);
}

/* SHL/SHR/SAR of a 32- or 64-bit register (decode-time fast forms,
 * emu/fast_forms.h): shift_exec() with the width a constant, recorded lazily
 * the same way, and the write of a masked count of 0 (count_zero()). */
static inline status_t shift_reg(struct cpu *cpu, const struct insn *in, enum shift_op op, unsigned size)
{
	unsigned c = shift_count(cpu, in);
	uint64_t *reg = &cpu->regs[in->rm];
	if (c == 0) {
		if (size == 4)
			*reg = (uint32_t)*reg;
		return ST_OK;
	}
	uint64_t v = size == 4 ? (uint32_t)*reg : *reg, r = shift_value(op, size, v, c);
	*reg = r;
	flags_lazy(cpu, op == SH_SHL ? LAZY_SHL : op == SH_SHR ? LAZY_SHR : LAZY_SAR,
		   size == 4 ? 2 : 3, r, v, c);
	return ST_OK;
}
#define SHIFT_REG_FORMS(name, op)                                                        \
	status_t op_##name##_r32(struct cpu *cpu, const struct insn *in) { return shift_reg(cpu, in, op, 4); } \
	status_t op_##name##_r64(struct cpu *cpu, const struct insn *in) { return shift_reg(cpu, in, op, 8); } \
	THREADED_PURE(name##_r32) THREADED_PURE(name##_r64)
SHIFT_REG_FORMS(shl, SH_SHL)
SHIFT_REG_FORMS(shr, SH_SHR)
SHIFT_REG_FORMS(sar, SH_SAR)

/* The same without the flags, for a threaded run in which the next
 * instruction replaces them all first (emu/fast_forms.c). A count of 0
 * shifts nothing (and a 32-bit one still clears bits 63:32). */
static inline status_t shift_reg_flagless(struct cpu *cpu, const struct insn *in, enum shift_op op, unsigned size)
{
	unsigned c = shift_count(cpu, in);
	uint64_t v = size == 4 ? (uint32_t)cpu->regs[in->rm] : cpu->regs[in->rm];
	cpu->regs[in->rm] = c ? shift_value(op, size, v, c) : v;
	return insn_next(cpu, in);
}
#define SHIFT_FLAGLESS(name, op)                                                         \
	status_t thr_##name##_r32_nf(struct cpu *cpu, const struct insn *in) { return shift_reg_flagless(cpu, in, op, 4); } \
	status_t thr_##name##_r64_nf(struct cpu *cpu, const struct insn *in) { return shift_reg_flagless(cpu, in, op, 8); }
SHIFT_FLAGLESS(shl, SH_SHL)
SHIFT_FLAGLESS(shr, SH_SHR)
SHIFT_FLAGLESS(sar, SH_SAR)

/* Group 2 with an immediate count that is not 0 after masking: such a shift
 * writes every status flag (SDM Vol.2 SAL/SAR/SHL/SHR "Flags Affected"; the
 * ones left undefined take the model's values), reading none. */
bool shift_writes_flags(const struct insn *in)
{
	unsigned mask = in->size == 8 ? 0x3f : 0x1f;
	return in->map == 0 && (in->opcode == 0xd1 || (in->opcode == 0xc1 && ((unsigned)in->imm & mask) != 0));
}

status_t op_rol(struct cpu *cpu, const struct insn *in) { return shift_exec(cpu, in, SH_ROL); }
status_t op_ror(struct cpu *cpu, const struct insn *in) { return shift_exec(cpu, in, SH_ROR); }
THREADED_PURE_REG(rol) THREADED_PURE_REG(ror)
status_t op_rcl(struct cpu *cpu, const struct insn *in) { return shift_exec(cpu, in, SH_RCL); }
status_t op_rcr(struct cpu *cpu, const struct insn *in) { return shift_exec(cpu, in, SH_RCR); }
/* /4 SHL and /6 SAL: SDM Vol.2 SAL/SAR/SHL/SHR: "SAL and SHL perform the same operation". */
status_t op_shl(struct cpu *cpu, const struct insn *in)
{
	return shift_exec(cpu, in, SH_SHL);
}
status_t op_shr(struct cpu *cpu, const struct insn *in)
{
	return shift_exec(cpu, in, SH_SHR);
}
status_t op_sar(struct cpu *cpu, const struct insn *in)
{
	return shift_exec(cpu, in, SH_SAR);
}

/* SHLD/SHRD: shift the destination, filling from the source register. SDM Vol.2
 * SHLD/SHRD: "If the count is greater than the operand size, the result is
 * undefined" (possible only for 16-bit operands, count 17-31). Intel is modelled
 * as shifting through the 48-bit dest:src:dest (Bochs); AMD fills with the source
 * repeated (dest:src:src for SHLD, src:src:dest for SHRD) and reports CF = 0, and
 * for SHLD OF = 0 (measured on the host). */
static inline status_t double_shift(struct cpu *cpu, const struct insn *in, bool left)
{
	unsigned size = in->size, w = size * 8;
	unsigned c = shift_count(cpu, in);
	uint64_t m = size_mask(size), d, s = greg_read(cpu, in, size), r, cf, of;
	status_t st = rm_read(cpu, in, size, &d);
	if (st != ST_OK)
		return st;
	if (c == 0)
		return count_zero(cpu, in, d);

	if (c > w) {
		/* 16-bit operand, count 17..31. */
		bool amd = cpu_is_amd(cpu);
		uint64_t hi = amd && !left ? s : d, lo = amd && left ? s : d;
		uint64_t wide = (hi << 32) | (s << 16) | lo;
		if (left) {
			r = (wide << c >> 32) & m;
			cf = amd ? 0 : (wide >> (48 - c)) & 1;
			of = amd ? 0 : msb(r, w) ^ cf;
		} else {
			r = (wide >> c) & m;
			cf = amd ? 0 : (wide >> (c - 1)) & 1;
			of = msb(r, w) ^ msb(r, w - 1);
		}
	} else if (left) {
		r = ((d << c) | (c < 64 ? s >> (w - c) : 0)) & m;
		cf = (d >> (w - c)) & 1;
		/* 1-bit: OF = sign change, i.e. CF xor the result's MSB. AMD gives
		 * OF = CF for a 16-bit SHLD by exactly 16 (measured on the host). */
		of = cpu_is_amd(cpu) && w == 16 && c == 16 ? cf : msb(r, w) ^ cf;
	} else {
		r = ((d >> c) | (s << (w - c))) & m;
		cf = (d >> (c - 1)) & 1;
		of = msb(r, w) ^ msb(r, w - 1);
	}
	st = rm_write(cpu, in, size, r);
	if (st != ST_OK)
		return st;
	flags_update(cpu, FLAGS_ARITH, (cf ? FLAG_CF : 0) | (of ? FLAG_OF : 0) |
					       flags_szp(r, size) | shift_af(cpu));
	return ST_OK;
}

status_t op_shld(struct cpu *cpu, const struct insn *in) { return double_shift(cpu, in, true); }
status_t op_shrd(struct cpu *cpu, const struct insn *in) { return double_shift(cpu, in, false); }
