/* SSSE3 (SDM Vol.2 instruction pages; opcode map Table A-4, 0F 38 and 0F 3A):
 * PSHUFB, PHADDW/D/SW, PHSUBW/D/SW, PMADDUBSW, PMULHRSW, PSIGNB/W/D,
 * PABSB/W/D and PALIGNR, each in an MMX form (no prefix, 64-bit operands,
 * emu/mmx.c's gate and state switch) and an XMM form (66, 128-bit operands,
 * 16-byte aligned memory). One handler per form; the operation is chosen by
 * the opcode, the element count by the width.
 */
#include <string.h>

#include "emu/simd_operand.h"
#include "isa_handlers.h"

static inline int64_t sat(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static inline int64_t elem_s(const union xmm_reg *x, unsigned i, unsigned w)
{
	switch (w) {
	case 1: return (int8_t)x->b[i];
	case 2: return (int16_t)x->w[i];
	default: return (int32_t)x->d[i];
	}
}
static inline void elem_set(union xmm_reg *x, unsigned i, unsigned w, uint64_t v)
{
	switch (w) {
	case 1: x->b[i] = (uint8_t)v; break;
	case 2: x->w[i] = (uint16_t)v; break;
	default: x->d[i] = (uint32_t)v; break;
	}
}

/* 0F 38 01-03, 05-07: horizontal add/subtract of adjacent pairs; the
 * destination's pairs fill the low half of the result, the source's the high
 * half (SDM Vol.2 PHADDW). 03/07 saturate to signed words. */
static void horizontal(uint8_t op, unsigned n, const union xmm_reg *d, const union xmm_reg *s, union xmm_reg *r)
{
	unsigned w = (op & 3) == 2 ? 4 : 2, half = n / w / 2;
	bool sub = op >= 5, saturate = (op & 3) == 3;
	for (unsigned i = 0; i < 2 * half; i++) {
		const union xmm_reg *x = i < half ? d : s;
		unsigned k = 2 * (i % half);
		int64_t a = elem_s(x, k, w), b = elem_s(x, k + 1, w);
		int64_t v = sub ? a - b : a + b;
		elem_set(r, i, w, (uint64_t)(saturate ? sat(v, INT16_MIN, INT16_MAX) : v));
	}
}

/* The SSSE3 operations on n bytes: r := d op s. */
static void ssse3(uint8_t op, unsigned n, const union xmm_reg *d, const union xmm_reg *s, union xmm_reg *r)
{
	switch (op) {
	case 0x00:      /* PSHUFB: byte i := 0 if s[i] bit 7, else d[s[i] mod n] */
		for (unsigned i = 0; i < n; i++)
			r->b[i] = (s->b[i] & 0x80) ? 0 : d->b[s->b[i] & (n - 1)];
		break;
	case 0x04:      /* PMADDUBSW: unsigned d bytes x signed s bytes, pairs summed, saturated */
		for (unsigned i = 0; i < n / 2; i++)
			r->w[i] = (uint16_t)sat((int64_t)d->b[2 * i] * (int8_t)s->b[2 * i] +
						(int64_t)d->b[2 * i + 1] * (int8_t)s->b[2 * i + 1], INT16_MIN, INT16_MAX);
		break;
	case 0x0b:      /* PMULHRSW: ((d * s >> 14) + 1) >> 1, the low 16 bits */
		for (unsigned i = 0; i < n / 2; i++)
			r->w[i] = (uint16_t)(((((int32_t)(int16_t)d->w[i] * (int16_t)s->w[i]) >> 14) + 1) >> 1);
		break;
	case 0x08: case 0x09: case 0x0a: {   /* PSIGNB/W/D: d negated, zeroed or kept by s's sign */
		unsigned w = 1u << (op - 8);
		for (unsigned i = 0; i < n / w; i++) {
			int64_t v = elem_s(s, i, w), x = elem_s(d, i, w);
			elem_set(r, i, w, (uint64_t)(v < 0 ? -x : v == 0 ? 0 : x));
		}
		break;
	}
	case 0x1c: case 0x1d: case 0x1e: {   /* PABSB/W/D: |s| as unsigned (80H stays 80H) */
		unsigned w = 1u << (op - 0x1c);
		for (unsigned i = 0; i < n / w; i++) {
			int64_t v = elem_s(s, i, w);
			elem_set(r, i, w, (uint64_t)(v < 0 ? -v : v));
		}
		break;
	}
	default:
		horizontal(op, n, d, s, r);
		break;
	}
}

static status_t ssse3_form(struct cpu *cpu, const struct insn *in, bool mmx)
{
	struct simd_args a;
	status_t st = simd_load(cpu, in, mmx, mmx ? 8 : 16, SIMD_ALIGNED, &a);
	if (st != ST_OK)
		return st;
	union xmm_reg r = { .q = { 0, 0 } };
	ssse3(in->opcode, simd_bytes(&a), &a.d, &a.s, &r);
	simd_store(cpu, in, &a, &r);
	return ST_OK;
}
status_t op_ssse3_mm(struct cpu *cpu, const struct insn *in) { return ssse3_form(cpu, in, true); }
status_t op_ssse3_xmm(struct cpu *cpu, const struct insn *in) { return ssse3_form(cpu, in, false); }

/* 0F 3A 0F PALIGNR: the concatenation dest:src (dest high) shifted right by
 * imm8 bytes, the low n bytes kept; zeros beyond 2n (SDM Vol.2 PALIGNR). */
static status_t palignr(struct cpu *cpu, const struct insn *in, bool mmx)
{
	struct simd_args a;
	status_t st = simd_load(cpu, in, mmx, mmx ? 8 : 16, SIMD_ALIGNED, &a);
	if (st != ST_OK)
		return st;
	unsigned n = simd_bytes(&a), sh = (unsigned)in->imm & 0xff;
	uint8_t cat[32];
	memcpy(cat, a.s.b, n);
	memcpy(cat + n, a.d.b, n);
	union xmm_reg r = { .q = { 0, 0 } };
	for (unsigned i = 0; i < n; i++)
		r.b[i] = i + sh < 2 * n ? cat[i + sh] : 0;
	simd_store(cpu, in, &a, &r);
	return ST_OK;
}
status_t op_palignr_mm(struct cpu *cpu, const struct insn *in) { return palignr(cpu, in, true); }
status_t op_palignr_xmm(struct cpu *cpu, const struct insn *in) { return palignr(cpu, in, false); }
