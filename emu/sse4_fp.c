/* SSE4.1 floating point (SDM Vol.2 instruction pages): ROUNDPS/PD/SS/SD and
 * the dot products DPPS/DPPD.
 *
 * ROUND* is computed here exactly: an element is an integer times a power of
 * two, so rounding it to an integer is integer arithmetic on its significand
 * and the result converts back without error. DPPS/DPPD are the products and
 * sums of their "Operation" sections, each an IEEE multiplication or addition
 * (emu/sse_fp_ops.h), with flags as those operations raise them.
 */
#include <string.h>

#include "emu/simd_operand.h"
#include "emu/sse_fp_ops.h"
#include "isa_handlers.h"

/* One element rounded to an integer in the same format (SDM Vol.2 ROUNDPS,
 * Table 4-18 for the rounding modes: 0 nearest even, 1 down, 2 up, 3 toward
 * zero). An SNaN becomes its QNaN with IE; NaNs and infinities and values
 * already integral stay; with DAZ a denormal is a zero of its sign (SDM Vol.1
 * 10.2.3.4). *inexact says whether the result differs from the element. */
static uint64_t round_elem(uint64_t v, bool dbl, unsigned rc, bool daz, uint32_t *exc, bool *inexact)
{
	unsigned mbits = dbl ? 52 : 23, bias = dbl ? 1023 : 127;
	uint64_t emax = dbl ? 0x7ff : 0xff, mmask = (1ull << mbits) - 1;
	uint64_t sign = v & (1ull << (dbl ? 63 : 31)), e = (v >> mbits) & emax, m = v & mmask;
	if (e == emax) {
		if (m && !(m >> (mbits - 1))) {         /* SNaN: quieted, IE */
			*exc |= MXCSR_IE;
			return v | 1ull << (mbits - 1);
		}
		return v;
	}
	if (e == 0 && daz)
		return sign;
	if (e >= bias + mbits)
		return v;                               /* |v| >= 2^mbits: integral */
	uint64_t sig = e ? m | 1ull << mbits : m;
	unsigned shift = (unsigned)(bias + mbits - (e ? e : 1));   /* v = sig * 2^-shift */
	uint64_t q = shift < 64 ? sig >> shift : 0;
	uint64_t rem = shift < 64 ? sig & ((1ull << shift) - 1) : sig;
	uint64_t halfway = shift < 64 ? 1ull << (shift - 1) : 0;
	*inexact = rem != 0;
	if (rem) {
		bool up;
		switch (rc) {
		case 0:  up = shift < 64 && (rem > halfway || (rem == halfway && (q & 1))); break;
		case 1:  up = sign != 0; break;
		case 2:  up = sign == 0; break;
		default: up = false; break;
		}
		q += up;
	}
	uint64_t r;
	if (dbl) {
		double x = (double)q;
		memcpy(&r, &x, 8);
	} else {
		float x = (float)q;
		uint32_t u;
		memcpy(&u, &x, 4);
		r = u;
	}
	return r | sign;
}

/* 66 0F 3A 08 ROUNDPS, 09 ROUNDPD (m128 aligned), 0A ROUNDSS, 0B ROUNDSD
 * (m32/m64, the destination's other elements kept): imm8[1:0] the rounding
 * mode unless imm8[2] (then MXCSR.RC); imm8[3] suppresses the precision
 * exception. Only invalid (SNaN) and precision are signalled (SDM Vol.2
 * ROUNDPS "SIMD Floating-Point Exceptions"). */
status_t op_round(struct cpu *cpu, const struct insn *in)
{
	bool dbl = in->opcode & 1, scalar = in->opcode >= 0x0a;
	unsigned w = dbl ? 8 : 4, n = scalar ? 1 : 16 / w;
	struct simd_args a;
	status_t st = simd_load(cpu, in, false, scalar ? w : 16, SIMD_ALIGNED, &a);
	if (st != ST_OK)
		return st;
	uint32_t mx = cpu->fpu.mxcsr, exc = 0;
	unsigned rc = (in->imm & 4) ? (mx & MXCSR_RC) >> 13 : in->imm & 3;
	union xmm_reg r = scalar ? a.d : a.s;
	for (unsigned i = 0; i < n; i++) {
		uint64_t v = 0;
		bool inexact = false;
		memcpy(&v, a.s.b + i * w, w);
		v = round_elem(v, dbl, rc, mx & MXCSR_DAZ, &exc, &inexact);
		if (inexact && !(in->imm & 8))
			exc |= MXCSR_PE;
		memcpy(r.b + i * w, &v, w);
	}
	st = sse_fp_commit(cpu, exc);
	if (st == ST_OK)
		simd_store(cpu, in, &a, &r);
	return st;
}

/* 66 0F 3A 40 DPPS, 41 DPPD: the products of the elements imm8[7:4] selects
 * (the others +0.0), summed pairwise ((p0 + p1) + (p2 + p3) for DPPS), the sum
 * written to the elements imm8[3:0] selects, +0.0 to the others (SDM Vol.2
 * DPPS "Operation"). */
status_t op_dp(struct cpu *cpu, const struct insn *in)
{
	bool dbl = in->opcode == 0x41;
	struct simd_args a;
	status_t st = simd_load(cpu, in, false, 16, SIMD_ALIGNED, &a);
	if (st != ST_OK)
		return st;
	unsigned n = dbl ? 2 : 4;
	union xmm_reg p = { .q = { 0, 0 } }, q = { .q = { 0, 0 } };
	for (unsigned i = 0; i < n; i++) {
		if (!((in->imm >> (4 + i)) & 1))
			continue;
		if (dbl) {
			p.q[i] = a.d.q[i];
			q.q[i] = a.s.q[i];
		} else {
			p.d[i] = a.d.d[i];
			q.d[i] = a.s.d[i];
		}
	}
	uint32_t exc = sse_fp_packed(cpu, SFP_MUL, dbl, &p, &q);
	/* The sums as a tree over all lanes, each lane its own order of the same
	 * additions; which NaN a lane returns shows it (measured on an Intel
	 * host, as the host-differential run compares it): DPPD lane i is
	 * p[i] + p[i^1]; DPPS lane i is u[i] + u[i^2] with u[i] = p[i^1] + p[i].
	 * All lanes add the same values, so the flags are those of one. */
	union xmm_reg sum;
	if (dbl) {
		union xmm_reg t = { .q = { p.q[1], p.q[0] } };
		sum = p;
		exc |= sse_fp_packed(cpu, SFP_ADD, true, &sum, &t);
	} else {
		union xmm_reg u = { .d = { p.d[1], p.d[0], p.d[3], p.d[2] } };
		exc |= sse_fp_packed(cpu, SFP_ADD, false, &u, &p);
		union xmm_reg t = { .d = { u.d[2], u.d[3], u.d[0], u.d[1] } };
		sum = u;
		exc |= sse_fp_packed(cpu, SFP_ADD, false, &sum, &t);
	}
	union xmm_reg r = { .q = { 0, 0 } };
	for (unsigned i = 0; i < n; i++) {
		if (!((in->imm >> i) & 1))
			continue;
		if (dbl)
			r.q[i] = sum.q[i];
		else
			r.d[i] = sum.d[i];
	}
	st = sse_fp_commit(cpu, exc);
	if (st == ST_OK)
		simd_store(cpu, in, &a, &r);
	return st;
}
