/* FMA (emu/isa/fma.isa; SDM Vol.2 VFMADD*, VFMSUB*, VFNMADD*, VFNMSUB*,
 * VFMADDSUB*, VFMSUBADD*; SDM Vol.1 14.5): a*b + c with a single rounding.
 *
 * Every form runs as the same host instruction (emu/avx_host.h), with the
 * guest's destination, VEX.vvvv and r/m operands in the host instruction's
 * same three places, so results, the NaN an operation returns (which depends
 * on the operand's place, not on the multiplication order) and the masked
 * flags are the hardware's bit for bit. A VEX.128 packed form runs as the
 * 256-bit host form with zero upper halves (0 * 0 + 0 raises nothing); a
 * scalar form as the host's scalar form, which keeps the destination's bits
 * 127:esize. What the guest's masks then decide is done here as emu/sse_fp.c
 * does it: an unmasked underflow counts tiny exact results, and with unmasked
 * underflow or overflow PE is the inexactness of the result rounded with an
 * unbounded exponent (SDM Vol.1 4.9.1.6), found per element from exact
 * scalings of the operands (fma_unbounded_pe). */
#include <stdio.h>
#include <string.h>

#include "emu/avx.h"
#include "emu/avx_host.h"
#include "emu/sse_fp_ops.h"
#include "isa_handlers.h"

/* The host instruction "mn reg2, reg1, reg0" on d (reg0, read and written),
 * s2 (reg1) and s3 (reg2) under MXCSR csr; r names the registers (ymm or
 * xmm). The host's MXCSR is saved and restored inside the same statement;
 * VZEROUPPER leaves the host's upper halves clean for its SSE code. */
#define HOST_PRE "stmxcsr %[save]\n\tldmxcsr %[in]\n\t"
#define HOST_POST "\n\tstmxcsr %[out]\n\tldmxcsr %[save]\n\tvzeroupper"
#define FMA_HOST(mn, r) __asm__ volatile(HOST_PRE \
	"vmovdqu %[d], %%" r "0\n\tvmovdqu %[s2], %%" r "1\n\tvmovdqu %[s3], %%" r "2\n\t" \
	mn " %%" r "2, %%" r "1, %%" r "0\n\tvmovdqu %%" r "0, %[d]" HOST_POST \
	: [d] "+m"(*d), [out] "=m"(out), [save] "+m"(save) : [s2] "m"(*s2), [s3] "m"(*s3), [in] "m"(csr) \
	: "xmm0", "xmm1", "xmm2")

/* The opcodes (VEX.66.0F38, SDM Vol.2 Table A-4): low nibble the operation,
 * high nibble the operand order (9: 132, A: 213, B: 231). */
#define FMA_ORDERS(X, lo, name) X(0x90 | (lo), name "132") X(0xa0 | (lo), name "213") X(0xb0 | (lo), name "231")
#define FMA_PACKED(X) FMA_ORDERS(X, 0x6, "vfmaddsub") FMA_ORDERS(X, 0x7, "vfmsubadd") \
	FMA_ORDERS(X, 0x8, "vfmadd") FMA_ORDERS(X, 0xa, "vfmsub") FMA_ORDERS(X, 0xc, "vfnmadd") \
	FMA_ORDERS(X, 0xe, "vfnmsub")
#define FMA_SCALAR(X) FMA_ORDERS(X, 0x9, "vfmadd") FMA_ORDERS(X, 0xb, "vfmsub") \
	FMA_ORDERS(X, 0xd, "vfnmadd") FMA_ORDERS(X, 0xf, "vfnmsub")

static bool is_scalar(unsigned opcode) { return (opcode & 9) == 9; }

/* d := the guest instruction opcode (dbl: VEX.W1) on the host; returns the
 * flags it raised. */
static uint32_t host_fma(unsigned opcode, bool dbl, uint32_t csr, union ymm_reg *d, const union ymm_reg *s2,
			 const union ymm_reg *s3)
{
	uint32_t out = 0, save = 0;
	switch (opcode) {
#define X(op, mn) case op: if (dbl) FMA_HOST(mn "pd", "ymm"); else FMA_HOST(mn "ps", "ymm"); break;
	FMA_PACKED(X)
#undef X
#define X(op, mn) case op: if (dbl) FMA_HOST(mn "sd", "xmm"); else FMA_HOST(mn "ss", "xmm"); break;
	FMA_SCALAR(X)
#undef X
	default: break;
	}
	return out & MXCSR_FLAGS;
}

/* d := s2 * s3 + d, the low element, on the host (VFMADD231SS/SD). */
static uint32_t host_fma231(bool dbl, uint32_t csr, union ymm_reg *d, const union ymm_reg *s2,
			    const union ymm_reg *s3)
{
	uint32_t out = 0, save = 0;
	if (dbl)
		FMA_HOST("vfmadd231sd", "xmm");
	else
		FMA_HOST("vfmadd231ss", "xmm");
	return out & MXCSR_FLAGS;
}

/* ---- the unbounded-exponent PE ---- */

struct fmt {
	unsigned mbits;            /* stored significand bits: 23 / 52 */
	int bias, emax;            /* exponent bias, all-ones exponent */
	uint64_t sign;
};
static const struct fmt fmt_s = { 23, 127, 0xff, 1ull << 31 }, fmt_d = { 52, 1023, 0x7ff, 1ull << 63 };

static uint64_t frac_of(const struct fmt *f, uint64_t v) { return v & ((1ull << f->mbits) - 1); }
static int bexp_of(const struct fmt *f, uint64_t v) { return (int)((v >> f->mbits) & (uint64_t)f->emax); }
static bool is_zero(const struct fmt *f, uint64_t v) { return (v & ~f->sign) == 0; }
static bool is_denormal(const struct fmt *f, uint64_t v) { return bexp_of(f, v) == 0 && frac_of(f, v); }

/* A finite nonzero value's unbiased exponent and its fraction normalized
 * (denormals shifted up); returns the exponent. */
static int normalize(const struct fmt *f, uint64_t v, uint64_t *frac)
{
	int e = bexp_of(f, v);
	uint64_t m = frac_of(f, v);
	if (e == 0) {
		e = 1;
		while (!(m >> f->mbits)) {
			m <<= 1;
			e--;
		}
		m &= (1ull << f->mbits) - 1;
	}
	*frac = m;
	return e - f->bias;
}

/* v with its exponent made e (a normal value: an exact power-of-2 scaling). */
static uint64_t with_exp(const struct fmt *f, uint64_t v, int e)
{
	uint64_t m;
	(void)normalize(f, v, &m);
	return (v & f->sign) | (uint64_t)(e + f->bias) << f->mbits | m;
}

static union ymm_reg lone(bool dbl, uint64_t v)
{
	union ymm_reg r = { .q = { 0, 0, 0, 0 } };
	if (dbl)
		r.q[0] = v;
	else
		r.d[0] = (uint32_t)v;
	return r;
}

/* Whether x * y + z (finite, of the format) rounded to its precision with an
 * unbounded exponent is inexact: MXCSR_PE or 0. With DAZ a denormal operand
 * is zero. When one term is below the other's last significant bit by more
 * than a rounding can absorb the sum is inexact (unless that term is zero);
 * otherwise the operands are scaled by powers of two so the larger term is
 * near 1, which is exact and leaves the sum's significand as it was, and the
 * host computes that. */
static uint32_t exact_sum_pe(bool dbl, bool daz, uint64_t x, uint64_t y, uint64_t z)
{
	const struct fmt *f = dbl ? &fmt_d : &fmt_s;
	int p = (int)f->mbits + 1;
	if (daz) {
		x = is_denormal(f, x) ? x & f->sign : x;
		y = is_denormal(f, y) ? y & f->sign : y;
		z = is_denormal(f, z) ? z & f->sign : z;
	}
	if (is_zero(f, x) || is_zero(f, y))
		return 0;                          /* the sum is z (or a zero) */
	uint64_t m;
	int e = normalize(f, x, &m) + normalize(f, y, &m);
	union ymm_reg a = lone(dbl, with_exp(f, x, 0)), b, c;
	if (is_zero(f, z)) {
		b = lone(dbl, with_exp(f, y, 0));
		c = lone(dbl, z);
	} else {
		int ez = normalize(f, z, &m), gap = e - ez;
		if (gap > 2 * p + 3 || gap < -(p + 3))
			return MXCSR_PE;
		b = lone(dbl, with_exp(f, y, gap >= 0 ? 0 : gap));
		c = lone(dbl, with_exp(f, z, gap >= 0 ? -gap : 0));
	}
	return host_fma231(dbl, MXCSR_MASKS, &c, &a, &b) & MXCSR_PE;
}

static uint64_t elem(const union ymm_reg *r, unsigned i, bool dbl) { return dbl ? r->q[i] : r->d[i]; }

/* The PE flag of an instruction that raised unmasked underflow or overflow:
 * each element as the scalar x * y + z of its operation (the product's and
 * the addend's signs applied), computed alone; an element that is tiny or
 * overflows gets the unbounded result's inexactness, the others their own. */
static uint32_t fma_unbounded_pe(unsigned opcode, bool dbl, unsigned n, uint32_t mx, const union ymm_reg *d,
				 const union ymm_reg *s2, const union ymm_reg *s3)
{
	const struct fmt *f = dbl ? &fmt_d : &fmt_s;
	const union ymm_reg *x, *y, *z;
	switch (opcode >> 4) {
	case 0x9: x = d, y = s3, z = s2; break;       /* 132: dst * src3 + src2 */
	case 0xa: x = s2, y = d, z = s3; break;       /* 213: src2 * dst + src3 */
	default: x = s2, y = s3, z = d; break;        /* 231: src2 * src3 + dst */
	}
	unsigned op = opcode & 0xf;
	uint32_t csr = avx_host_csr(mx), pe = 0;
	for (unsigned i = 0; i < n; i++) {
		bool neg_product = op >= 0xc;
		bool sub = op == 0xa || op == 0xb || op == 0xe || op == 0xf ||
			   (op == 0x6 && !(i & 1)) || (op == 0x7 && (i & 1));
		uint64_t xv = elem(x, i, dbl) ^ (neg_product ? f->sign : 0), yv = elem(y, i, dbl);
		uint64_t zv = elem(z, i, dbl) ^ (sub ? f->sign : 0);
		union ymm_reg r = lone(dbl, zv), a = lone(dbl, xv), b = lone(dbl, yv);
		uint32_t fl = host_fma231(dbl, csr, &r, &a, &b);
		bool tiny = !(mx & MXCSR_UM) && ((fl & MXCSR_UE) || is_denormal(f, elem(&r, 0, dbl)));
		bool huge = !(mx & MXCSR_OM) && (fl & MXCSR_OE);
		pe |= tiny || huge ? exact_sum_pe(dbl, mx & MXCSR_DAZ, xv, yv, zv) : fl & MXCSR_PE;
	}
	return pe;
}

/* ---- the instructions ---- */

static bool host_fma_ok(void)
{
	static int ok = -1;
	if (ok < 0) {
		ok = avx_host_has(12);
		if (!ok)
			fprintf(stderr, "hvemu: the host has no FMA unit: the guest's FMA instructions are #UD\n");
	}
	return ok;
}

/* SDM Vol.2 VFMADD132PS etc. (exception type 2, scalar forms type 3; no
 * alignment rule): packed forms on the VEX.L width, scalar forms on the
 * lowest element (VEX.L ignored, the memory operand the element's size).
 * dbl: VEX.W1. The destination is written only when no unmasked exception
 * stops the instruction (SDM Vol.1 11.5.3). */
static status_t fma_insn(struct cpu *cpu, const struct insn *in, bool dbl)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	if (!host_fma_ok())
		return cpu_raise(cpu, EXC_UD);
	bool scalar = is_scalar(in->opcode);
	unsigned esize = dbl ? 8 : 4, bytes = scalar ? esize : avx_bytes(in);
	union ymm_reg d, s2, s3;
	st = avx_read_w(cpu, in, bytes, 0, &s3);
	if (st != ST_OK)
		return st;
	ymm_get(cpu, in->reg, &d);
	ymm_get(cpu, in->vvvv, &s2);
	if (!scalar && bytes == 16)
		d.x[1] = s2.x[1] = s3.x[1] = (union xmm_reg){ .q = { 0, 0 } };
	uint32_t mx = cpu->fpu.mxcsr;
	union ymm_reg r = d;
	uint32_t exc = host_fma(in->opcode, dbl, avx_host_csr(mx), &r, &s2, &s3);
	unsigned n = scalar ? 1 : bytes / esize;
	const struct fmt *f = dbl ? &fmt_d : &fmt_s;
	for (unsigned i = 0; i < n && !(mx & MXCSR_UM); i++)
		if (is_denormal(f, elem(&r, i, dbl)))
			exc |= MXCSR_UE;
	if (((exc & MXCSR_UE) && !(mx & MXCSR_UM)) || ((exc & MXCSR_OE) && !(mx & MXCSR_OM)))
		exc = (exc & ~(uint32_t)MXCSR_PE) | fma_unbounded_pe(in->opcode, dbl, n, mx, &d, &s2, &s3);
	st = sse_fp_commit(cpu, exc);
	if (st == ST_OK)
		ymm_put(cpu, in->reg, &r, scalar ? 16 : bytes);
	return st;
}

status_t op_fma_s(struct cpu *cpu, const struct insn *in) { return fma_insn(cpu, in, false); }
status_t op_fma_d(struct cpu *cpu, const struct insn *in) { return fma_insn(cpu, in, true); }
