/* SSE/SSE2 floating point, the part C compilers emit for float and double code
 * (the x86-64 ABI passes and computes FP values in XMM registers): ADD, SUB, MUL,
 * DIV, MIN, MAX, SQRT in the PS/PD/SS/SD forms, CMPccPS/PD/SS/SD, (U)COMISS/SD,
 * CVTSI2SS/SD, CVT(T)SS2SI, CVT(T)SD2SI and the packed and scalar conversions
 * between single, double and dword integers (SDM Vol.1 ch. 10-11, Vol.2
 * instruction pages). Data moves and logic are in emu/sse.c.
 *
 * The host's SSE unit is the oracle (hvemu targets x86-64 hosts, as emu/x87.c
 * does with the host x87): every operation runs as the same host instruction,
 * under a host MXCSR holding the guest's RC, DAZ and FTZ with all exceptions
 * masked, and the host's MXCSR flags say which conditions occurred in any
 * element. Results, NaN propagation, DAZ/FTZ and the masked flags are therefore
 * bit-exact. What the guest's masks then decide (pre- vs post-computation
 * exceptions, destination left unchanged, #XM or #UD) is done in fp_commit.
 * The host must implement MXCSR.DAZ (its FXSAVE MXCSR_MASK bit 6; current x86-64
 * processors do, or LDMXCSR faults in hvemu itself); the cost is
 * an LDMXCSR/STMXCSR pair around each guest FP instruction.
 *
 * Not modelled (#UD): RCPPS/RCPSS/RSQRTPS/RSQRTSS, whose results are
 * implementation-specific approximations (SDM Vol.2 RCPSS: "relative error ...
 * less than or equal to 1.5 * 2^-12"), so the host's would not be the selected
 * CPU model's. The MMX-operand conversions (CVTPI2PS ..) are in emu/mmx.c over
 * sse_fp_convert (emu/sse_fp_ops.h).
 */
#include <string.h>

#include "emu/flags.h"
#include "emu/fpu.h"
#include "emu/operand.h"
#include "emu/sse_fp_ops.h"
#include "isa_handlers.h"

#if !defined(__x86_64__)
#error "emu/sse_fp.c computes with the host SSE unit: x86-64 hosts only"
#endif


/* Element layout of an instruction: packed/scalar single/double. The order is
 * the column order of FP_OPS. */
enum form { F_PS, F_PD, F_SS, F_SD };
_Static_assert(F_PS == (int)SFF_PS && F_PD == (int)SFF_PD && F_SS == (int)SFF_SS && F_SD == (int)SFF_SD,
	       "enum form is enum sse_fp_form");

/* The elements an instruction writes, for the tininess check of an unmasked
 * underflow: count and single/double. */
enum shape { SH_NONE, SH_S1, SH_S2, SH_S4, SH_D1, SH_D2 };

/* Host mnemonics of the two-operand operations, one row per operation and one
 * column per form. The CMPcc rows are in predicate order (imm8 0-7, SDM Vol.2
 * CMPPS Table 3-7). */
#define FP_OPS(X) \
	X(SQRT,     "sqrtps",     "sqrtpd",     "sqrtss",     "sqrtsd") \
	X(ADD,      "addps",      "addpd",      "addss",      "addsd") \
	X(MUL,      "mulps",      "mulpd",      "mulss",      "mulsd") \
	X(SUB,      "subps",      "subpd",      "subss",      "subsd") \
	X(MIN,      "minps",      "minpd",      "minss",      "minsd") \
	X(DIV,      "divps",      "divpd",      "divss",      "divsd") \
	X(MAX,      "maxps",      "maxpd",      "maxss",      "maxsd") \
	X(CMPEQ,    "cmpeqps",    "cmpeqpd",    "cmpeqss",    "cmpeqsd") \
	X(CMPLT,    "cmpltps",    "cmpltpd",    "cmpltss",    "cmpltsd") \
	X(CMPLE,    "cmpleps",    "cmplepd",    "cmpless",    "cmplesd") \
	X(CMPUNORD, "cmpunordps", "cmpunordpd", "cmpunordss", "cmpunordsd") \
	X(CMPNEQ,   "cmpneqps",   "cmpneqpd",   "cmpneqss",   "cmpneqsd") \
	X(CMPNLT,   "cmpnltps",   "cmpnltpd",   "cmpnltss",   "cmpnltsd") \
	X(CMPNLE,   "cmpnleps",   "cmpnlepd",   "cmpnless",   "cmpnlesd") \
	X(CMPORD,   "cmpordps",   "cmpordpd",   "cmpordss",   "cmpordsd")

/* The xmm-to-xmm conversions: host mnemonic, source bytes in memory, written
 * elements. */
#define CVT_OPS(X) \
	X(CVTPS2PD,  "cvtps2pd",  8,  SH_NONE) \
	X(CVTPD2PS,  "cvtpd2ps",  16, SH_S2) \
	X(CVTSS2SD,  "cvtss2sd",  4,  SH_NONE) \
	X(CVTSD2SS,  "cvtsd2ss",  8,  SH_S1) \
	X(CVTDQ2PS,  "cvtdq2ps",  16, SH_NONE) \
	X(CVTPS2DQ,  "cvtps2dq",  16, SH_NONE) \
	X(CVTTPS2DQ, "cvttps2dq", 16, SH_NONE) \
	X(CVTDQ2PD,  "cvtdq2pd",  8,  SH_NONE) \
	X(CVTPD2DQ,  "cvtpd2dq",  16, SH_NONE) \
	X(CVTTPD2DQ, "cvttpd2dq", 16, SH_NONE)

enum host_op {
#define X(name, ps, pd, ss, sd) HOP_##name##_PS, HOP_##name##_PD, HOP_##name##_SS, HOP_##name##_SD,
	FP_OPS(X)
#undef X
#define X(name, mn, bytes, shape) HOP_##name,
	CVT_OPS(X)
#undef X
};

typedef uint8_t vec128 __attribute__((vector_size(16)));

/* One host instruction under MXCSR csr, with the host's own MXCSR saved before
 * and restored after it, all in one asm statement so the compiler cannot move
 * the operation outside the window. out gets the host MXCSR after it. Register
 * outputs are early-clobber: they are written before the last memory operands
 * ([out], [save]) are used, so they must not share a register with an address. */
#define HOST_PRE "stmxcsr %[save]\n\tldmxcsr %[in]\n\t"
#define HOST_POST "\n\tstmxcsr %[out]\n\tldmxcsr %[save]"
#define HOST_XX(mn) __asm__ volatile(HOST_PRE mn " %[s], %[d]" HOST_POST \
	: [d] "+x"(d), [out] "=m"(out), [save] "+m"(save) : [s] "x"(s), [in] "m"(csr))
#define HOST_GX(text) __asm__ volatile(HOST_PRE text HOST_POST \
	: [d] "+x"(d), [out] "=m"(out), [save] "+m"(save) : [g] "r"(g), [in] "m"(csr))
#define HOST_XG(text) __asm__ volatile(HOST_PRE text HOST_POST \
	: [g] "=&r"(g), [out] "=m"(out), [save] "+m"(save) : [s] "x"(s), [in] "m"(csr))
#define HOST_CMP(text) __asm__ volatile(HOST_PRE text "\n\tsetz %[z]\n\tsetp %[p]\n\tsetc %[c]" HOST_POST \
	: [z] "=&q"(z), [p] "=&q"(p), [c] "=&q"(c), [out] "=m"(out), [save] "+m"(save) \
	: [d] "x"(d), [s] "x"(s), [in] "m"(csr))

/* dst := op(dst, src) on the host; returns the condition flags it raised. */
static uint32_t host_xx(enum host_op op, uint32_t csr, union xmm_reg *dst, const union xmm_reg *src)
{
	vec128 d, s;
	uint32_t out = 0, save = 0;
	memcpy(&d, dst, 16);
	memcpy(&s, src, 16);
	switch (op) {
#define X(name, ps, pd, ss, sd) \
	case HOP_##name##_PS: HOST_XX(ps); break; \
	case HOP_##name##_PD: HOST_XX(pd); break; \
	case HOP_##name##_SS: HOST_XX(ss); break; \
	case HOP_##name##_SD: HOST_XX(sd); break;
	FP_OPS(X)
#undef X
#define X(name, mn, bytes, shape) case HOP_##name: HOST_XX(mn); break;
	CVT_OPS(X)
#undef X
	}
	memcpy(dst, &d, 16);
	return out & MXCSR_FLAGS;
}

/* CVTSI2SS/SD: which = 2 * double + wide (64-bit integer source). */
static uint32_t host_int2fp(unsigned which, uint32_t csr, union xmm_reg *dst, uint64_t g)
{
	vec128 d;
	uint32_t out = 0, save = 0;
	memcpy(&d, dst, 16);
	switch (which) {
	case 0: HOST_GX("cvtsi2ssl %k[g], %[d]"); break;
	case 1: HOST_GX("cvtsi2ssq %[g], %[d]"); break;
	case 2: HOST_GX("cvtsi2sdl %k[g], %[d]"); break;
	default: HOST_GX("cvtsi2sdq %[g], %[d]"); break;
	}
	memcpy(dst, &d, 16);
	return out & MXCSR_FLAGS;
}

/* CVT(T)SS2SI / CVT(T)SD2SI: which = 4 * truncate + 2 * double + wide. */
static uint32_t host_fp2int(unsigned which, uint32_t csr, const union xmm_reg *src, uint64_t *res)
{
	vec128 s;
	uint64_t g = 0;
	uint32_t out = 0, save = 0;
	memcpy(&s, src, 16);
	switch (which) {
	case 0: HOST_XG("cvtss2si %[s], %k[g]"); break;
	case 1: HOST_XG("cvtss2si %[s], %q[g]"); break;
	case 2: HOST_XG("cvtsd2si %[s], %k[g]"); break;
	case 3: HOST_XG("cvtsd2si %[s], %q[g]"); break;
	case 4: HOST_XG("cvttss2si %[s], %k[g]"); break;
	case 5: HOST_XG("cvttss2si %[s], %q[g]"); break;
	case 6: HOST_XG("cvttsd2si %[s], %k[g]"); break;
	default: HOST_XG("cvttsd2si %[s], %q[g]"); break;
	}
	*res = (which & 1) ? g : (uint32_t)g;
	return out & MXCSR_FLAGS;
}

/* (U)COMISS/SD: which = 2 * double + signalling (COMIS*). *fl gets ZF|PF|CF. */
static uint32_t host_comi(unsigned which, uint32_t csr, const union xmm_reg *dst,
			  const union xmm_reg *src, uint64_t *fl)
{
	vec128 d, s;
	uint8_t z = 0, p = 0, c = 0;
	uint32_t out = 0, save = 0;
	memcpy(&d, dst, 16);
	memcpy(&s, src, 16);
	switch (which) {
	case 0: HOST_CMP("ucomiss %[s], %[d]"); break;
	case 1: HOST_CMP("comiss %[s], %[d]"); break;
	case 2: HOST_CMP("ucomisd %[s], %[d]"); break;
	default: HOST_CMP("comisd %[s], %[d]"); break;
	}
	*fl = (z ? FLAG_ZF : 0) | (p ? FLAG_PF : 0) | (c ? FLAG_CF : 0);
	return out & MXCSR_FLAGS;
}

/* ---- the guest's view ---- */

/* The host MXCSR for a guest MXCSR: RC, DAZ and FTZ, every exception masked,
 * flags clear. FTZ only acts on masked underflow (SDM Vol.1 10.2.3.3), so with
 * UM = 0 the host computes the unflushed result the tininess check needs. */
static uint32_t host_csr(uint32_t mxcsr)
{
	uint32_t csr = (mxcsr & (MXCSR_RC | MXCSR_DAZ | MXCSR_FTZ)) | MXCSR_MASKS;
	if (!(mxcsr & MXCSR_UM))
		csr &= ~(uint32_t)MXCSR_FTZ;
	return csr;
}

/* Underflow unmasked: the host, masked, flags UE only for results both tiny and
 * inexact; the guest must report every nonzero tiny result (SDM Vol.1 4.9.1.5,
 * 11.5.2.5). A tiny exact result is a denormal in the destination. */
static inline bool is_denormal(uint64_t v, bool dbl)
{
	return dbl ? (v & 0x7ff0000000000000ull) == 0 && (v & 0x000fffffffffffffull)
		   : (v & 0x7f800000u) == 0 && (v & 0x007fffffu);
}

static bool has_denormal(const union xmm_reg *r, enum shape sh)
{
	unsigned n = 0;
	bool dbl = false;
	switch (sh) {
	case SH_NONE: return false;
	case SH_S1: n = 1; break;
	case SH_S2: n = 2; break;
	case SH_S4: n = 4; break;
	case SH_D1: n = 1; dbl = true; break;
	case SH_D2: n = 2; dbl = true; break;
	}
	for (unsigned i = 0; i < n; i++)
		if (is_denormal(dbl ? r->q[i] : r->d[i], dbl))
			return true;
	return false;
}

/* The element as a value of the same sign with exponent 0 (in [1, 2)):
 * an exact scaling; denormals are normalized. Zeros, infinities and NaNs as
 * they are. */
static uint64_t significand(uint64_t v, bool dbl)
{
	unsigned mbits = dbl ? 52 : 23;
	uint64_t mmask = (1ull << mbits) - 1, emax = dbl ? 0x7ff : 0xff;
	uint64_t e = (v >> mbits) & emax, m = v & mmask;
	if (e == emax || (e == 0 && m == 0))
		return v;
	if (e == 0) {
		while (!(m >> mbits))
			m <<= 1;
		m &= mmask;
	}
	return (v & ~(mmask | emax << mbits)) | (emax >> 1) << mbits | m;
}

static uint64_t elem(const union xmm_reg *x, unsigned i, bool dbl) { return dbl ? x->q[i] : x->d[i]; }
static void set_elem(union xmm_reg *x, unsigned i, bool dbl, uint64_t v)
{
	if (dbl)
		x->q[i] = v;
	else
		x->d[i] = (uint32_t)v;
}

/* With underflow or overflow unmasked the instruction stops, and PE says
 * whether the result rounded with an unbounded exponent is inexact (SDM Vol.1
 * 4.9.1.6: "If an inexact result occurs along with unmasked overflow or
 * underflow ... the PE flag [is] set"; on the host, as singles:
 * (1 + 2^-10)^2 * 2^-140 raises UE alone, 1E-30 * 1E-15 UE and PE,
 * 2^100 * 2^100 and FLT_MAX + FLT_MAX OE alone), not whether the denormal or
 * overflowed value of the masked host computation is. So the n elements of
 * d op s (scalar: the scalar host form of ADD, SUB, MUL, DIV or the conversion
 * from double to single) are redone one by one. An element out of range is
 * redone from its operands' significands (an exact scaling after which the
 * result is normal), a sum from its operands scaled down by 4. A tiny sum
 * is exact: both operands are multiples of the smallest denormal. Returns the
 * PE flag of the whole instruction. */
static uint32_t unbounded_pe(enum host_op scalar, bool src_dbl, bool res_dbl, unsigned n, uint32_t mx,
			     const union xmm_reg *d, const union xmm_reg *s)
{
	bool addsub = scalar == HOP_ADD_SS || scalar == HOP_ADD_SD || scalar == HOP_SUB_SS || scalar == HOP_SUB_SD;
	uint32_t csr = host_csr(mx), pe = 0;
	for (unsigned i = 0; i < n; i++) {
		union xmm_reg x = { .q = { 0, 0 } }, y = { .q = { 0, 0 } };
		set_elem(&x, 0, src_dbl, elem(d, i, src_dbl));
		set_elem(&y, 0, src_dbl, elem(s, i, src_dbl));
		uint32_t f = host_xx(scalar, csr, &x, &y);
		uint64_t r = elem(&x, 0, res_dbl);
		bool tiny = !(mx & MXCSR_UM) && ((f & MXCSR_UE) || is_denormal(r, res_dbl));
		bool huge = !(mx & MXCSR_OM) && (f & MXCSR_OE);
		if (!tiny && !huge) {
			pe |= f & MXCSR_PE;
		} else if (addsub && huge) {
			/* An overflowing sum: both operands scaled down by 4, exact
			 * unless one is that small, and then the sum is inexact. */
			unsigned mbits = src_dbl ? 52 : 23;
			uint64_t emax = src_dbl ? 0x7ff : 0xff, v[2] = { elem(d, i, src_dbl), elem(s, i, src_dbl) };
			bool lost = false;
			for (unsigned k = 0; k < 2; k++) {
				if (((v[k] >> mbits) & emax) > 2)
					v[k] -= 2ull << mbits;
				else
					lost |= (v[k] & (src_dbl ? ~0ull >> 1 : 0x7fffffffu)) != 0;
			}
			x = y = (union xmm_reg){ .q = { 0, 0 } };
			set_elem(&x, 0, src_dbl, v[0]);
			set_elem(&y, 0, src_dbl, v[1]);
			pe |= lost ? MXCSR_PE : host_xx(scalar, csr, &x, &y) & MXCSR_PE;
		} else if (!addsub) {
			x = y = (union xmm_reg){ .q = { 0, 0 } };
			set_elem(&x, 0, src_dbl, significand(elem(d, i, src_dbl), src_dbl));
			set_elem(&y, 0, src_dbl, significand(elem(s, i, src_dbl), src_dbl));
			pe |= host_xx(scalar, csr, &x, &y) & MXCSR_PE;
		}
	}
	return pe;
}

/* SDM Vol.3 6.15 (interrupt 19): an unmasked SIMD floating-point exception is
 * #XM with CR4.OSXMMEXCPT = 1 and #UD without it (SDM Vol.1 11.5.3.2 step 2). */
static status_t simd_fault(struct cpu *cpu)
{
	return cpu_raise(cpu, (cpu->cr4 & CR4_OSXMMEXCPT) ? EXC_XM : EXC_UD);
}

/* Fold the conditions exc (all elements ORed) into MXCSR in the two steps of
 * SDM Vol.1 11.5.3: an unmasked pre-computation condition (IE, DE, ZE) records
 * the pre-computation flags and stops the instruction before any post-computation
 * condition is looked for; otherwise every flag is recorded and any unmasked one
 * stops it. A stopped instruction changes no destination. ST_OK: store it. */
static status_t fp_commit(struct cpu *cpu, uint32_t exc)
{
	uint32_t *mx = &cpu->fpu.mxcsr;
	uint32_t unmasked = ~(*mx >> MXCSR_MASK_SHIFT) & MXCSR_FLAGS;
	uint32_t pre = exc & (MXCSR_IE | MXCSR_DE | MXCSR_ZE);
	if (pre & unmasked) {
		*mx |= pre;
		return simd_fault(cpu);
	}
	*mx |= exc;
	if (exc & unmasked)
		return simd_fault(cpu);
	return ST_OK;
}

/* The source operand: an XMM register, or n bytes of memory (16: a legacy-SSE
 * 128-bit operand, 16-byte aligned or #GP(0), SDM Vol.1 11.4.1; scalar and
 * 64-bit operands have no alignment rule). The rest of *out is zero. */
static status_t read_src(struct cpu *cpu, const struct insn *in, unsigned n, union xmm_reg *out)
{
	if (!in->mem) {
		*out = cpu->fpu.xmm[in->rm];
		return ST_OK;
	}
	memset(out, 0, sizeof(*out));
	return fpu_mem_read(cpu, in, insn_ea(cpu, in), out->b, n, n == 16 ? 16 : 0);
}

static const enum shape form_shape[] = { [F_PS] = SH_S4, [F_PD] = SH_D2, [F_SS] = SH_S1, [F_SD] = SH_D1 };
static const unsigned form_bytes[] = { [F_PS] = 16, [F_PD] = 16, [F_SS] = 4, [F_SD] = 8 };

/* 0F 2E UCOMIS*, 0F 2F COMIS*: ZF, PF, CF from the comparison (unordered: all
 * three set); OF, SF, AF cleared (SDM Vol.2 COMISS/UCOMISS). UCOMIS* signals
 * invalid for an SNaN only, COMIS* for any NaN. */
status_t sse_fp_comi(struct cpu *cpu, bool dbl, bool signalling, const union xmm_reg *d, const union xmm_reg *s)
{
	uint64_t fl;
	uint32_t exc = host_comi((dbl ? 2u : 0u) + signalling, host_csr(cpu->fpu.mxcsr), d, s, &fl);
	status_t st = fp_commit(cpu, exc);
	if (st == ST_OK)
		flags_update(cpu, FLAGS_ARITH, fl);
	return st;
}

/* 0F 51 SQRT, 58 ADD, 59 MUL, 5C SUB, 5D MIN, 5E DIV, 5F MAX, C2 CMPcc, 2E/2F
 * (U)COMIS in the form the mandatory prefix selects. Scalar forms keep the
 * destination's upper elements (the host instruction does the same). */
static status_t fp_arith(struct cpu *cpu, const struct insn *in, enum form form)
{
	bool dbl = form == F_PD || form == F_SD;
	status_t st = sse_gate(cpu, true, dbl ? CPUID_SSE2 : CPUID_SSE);
	if (st != ST_OK)
		return st;
	union xmm_reg s;
	st = read_src(cpu, in, form_bytes[form], &s);
	if (st != ST_OK)
		return st;
	if (in->opcode == 0x2e || in->opcode == 0x2f)
		return sse_fp_comi(cpu, dbl, in->opcode == 0x2f, &cpu->fpu.xmm[in->reg], &s);
	union xmm_reg d = cpu->fpu.xmm[in->reg];
	/* C2: the legacy-SSE encoding's predicate is imm8[2:0] (SDM Vol.2 CMPPS). */
	uint32_t exc = sse_fp_arith(cpu, in->opcode, (unsigned)in->imm & 7, (enum sse_fp_form)form, &d, &s);
	st = fp_commit(cpu, exc);
	if (st == ST_OK)
		cpu->fpu.xmm[in->reg] = d;
	return st;
}

uint32_t sse_fp_arith(struct cpu *cpu, unsigned opcode, unsigned pred, enum sse_fp_form sform,
		      union xmm_reg *dst, const union xmm_reg *src)
{
	enum form form = (enum form)sform;
	bool dbl = form == F_PD || form == F_SD;
	const union xmm_reg s = *src, d0 = *dst;
	enum host_op op;
	bool may_underflow = false;  /* MIN/MAX/SQRT/CMP never underflow (SDM Vol.1 11.5.2.5 list) */
	switch (opcode) {
	case 0x51: op = HOP_SQRT_PS; break;
	case 0x58: op = HOP_ADD_PS; may_underflow = true; break;
	case 0x59: op = HOP_MUL_PS; may_underflow = true; break;
	case 0x5c: op = HOP_SUB_PS; may_underflow = true; break;
	case 0x5d: op = HOP_MIN_PS; break;
	case 0x5e: op = HOP_DIV_PS; may_underflow = true; break;
	case 0x5f: op = HOP_MAX_PS; break;
	default:
		op = HOP_CMPEQ_PS + 4 * (pred & 7);
		break;
	}
	uint32_t mx = cpu->fpu.mxcsr;
	union xmm_reg d = d0;
	uint32_t exc = host_xx(op + form, host_csr(mx), &d, &s);
	if (may_underflow && !(mx & MXCSR_UM) && has_denormal(&d, form_shape[form]))
		exc |= MXCSR_UE;
	if (may_underflow && (((exc & MXCSR_UE) && !(mx & MXCSR_UM)) || ((exc & MXCSR_OE) && !(mx & MXCSR_OM)))) {
		static const unsigned elems[] = { [F_PS] = 4, [F_PD] = 2, [F_SS] = 1, [F_SD] = 1 };
		enum host_op scalar = op + (dbl ? F_SD : F_SS);
		exc = (exc & ~MXCSR_PE) | unbounded_pe(scalar, dbl, dbl, elems[form], mx, &d0, &s);
	}
	*dst = d;
	return exc;
}

/* The VEX forms' 32 predicates (SDM Vol.2 CMPPS Table 3-1; VCMPPS imm8[4:0]) from
 * the legacy ones: the host's CMPEQ, CMPLT (both ways round) and CMPUNORD
 * element masks, combined; bit 4 swaps signalling and quiet. A signalling
 * predicate raises IE for any NaN operand, as CMPLT does, a quiet one for an
 * SNaN only, as CMPEQ does; both raise DE for denormal operands. */
uint32_t sse_fp_vcmp(struct cpu *cpu, unsigned pred, enum sse_fp_form sform, union xmm_reg *dst,
		     const union xmm_reg *src)
{
	enum form form = (enum form)sform;
	uint32_t csr = host_csr(cpu->fpu.mxcsr);
	union xmm_reg eq = *dst, lt = *dst, gt = *src, un = *dst, r = *dst;
	uint32_t qexc = host_xx(HOP_CMPEQ_PS + form, csr, &eq, src);
	uint32_t sexc = host_xx(HOP_CMPLT_PS + form, csr, &lt, src);
	(void)host_xx(HOP_CMPLT_PS + form, csr, &gt, dst);
	(void)host_xx(HOP_CMPUNORD_PS + form, csr, &un, src);
	/* Signalling: 1, 2, 5, 6, 9, 10, 13, 14 (the _OS/_US ones), bit 4 flips it. */
	bool signalling = ((0x6666u >> (pred & 15)) & 1) ^ ((pred >> 4) & 1);
	unsigned n = form == F_PS ? 4 : form == F_PD ? 2 : 1;
	bool dbl = form == F_PD || form == F_SD;
	for (unsigned i = 0; i < n; i++) {
		bool e = elem(&eq, i, dbl) != 0, l = elem(&lt, i, dbl) != 0;
		bool g = elem(&gt, i, dbl) != 0, u = elem(&un, i, dbl) != 0, t;
		switch (pred & 15) {
		case 0:  t = e; break;                  /* EQ_OQ */
		case 1:  t = l; break;                  /* LT_OS */
		case 2:  t = l || e; break;             /* LE_OS */
		case 3:  t = u; break;                  /* UNORD_Q */
		case 4:  t = !e; break;                 /* NEQ_UQ */
		case 5:  t = !l; break;                 /* NLT_US */
		case 6:  t = !(l || e); break;          /* NLE_US */
		case 7:  t = !u; break;                 /* ORD_Q */
		case 8:  t = e || u; break;             /* EQ_UQ */
		case 9:  t = l || u; break;             /* NGE_US */
		case 10: t = !g; break;                 /* NGT_US */
		case 11: t = false; break;              /* FALSE_OQ */
		case 12: t = !e && !u; break;           /* NEQ_OQ */
		case 13: t = g || e; break;             /* GE_OS */
		case 14: t = g; break;                  /* GT_OS */
		default: t = true; break;               /* TRUE_UQ */
		}
		set_elem(&r, i, dbl, t ? ~0ull : 0);
	}
	*dst = r;
	return signalling ? sexc : qexc;
}

status_t op_fp_ps(struct cpu *cpu, const struct insn *in) { return fp_arith(cpu, in, F_PS); }
status_t op_fp_pd(struct cpu *cpu, const struct insn *in) { return fp_arith(cpu, in, F_PD); }
status_t op_fp_ss(struct cpu *cpu, const struct insn *in) { return fp_arith(cpu, in, F_SS); }
status_t op_fp_sd(struct cpu *cpu, const struct insn *in) { return fp_arith(cpu, in, F_SD); }

/* ---- conversions ---- */

struct cvt_info {
	uint8_t bytes;             /* memory source size */
	uint8_t shape;             /* elements that can underflow */
};
static const struct cvt_info cvt_info[] = {
#define X(name, mn, n, sh) [HOP_##name] = { n, sh },
	CVT_OPS(X)
#undef X
};

/* d := the conversion op of s (d's other elements kept, as the host
 * instruction keeps them); the flags, with unmasked underflow counting tiny
 * exact results and PE the unbounded result's, as fp_arith. */
static uint32_t cvt_xx(struct cpu *cpu, enum host_op op, union xmm_reg *d, const union xmm_reg *s)
{
	const struct cvt_info *ci = &cvt_info[op];
	uint32_t mx = cpu->fpu.mxcsr;
	const union xmm_reg d0 = *d;
	uint32_t exc = host_xx(op, host_csr(mx), d, s);
	if (!(mx & MXCSR_UM) && has_denormal(d, (enum shape)ci->shape))
		exc |= MXCSR_UE;
	bool narrows = op == HOP_CVTPD2PS || op == HOP_CVTSD2SS;
	if (narrows && (((exc & MXCSR_UE) && !(mx & MXCSR_UM)) || ((exc & MXCSR_OE) && !(mx & MXCSR_OM))))
		exc = (exc & ~MXCSR_PE) | unbounded_pe(HOP_CVTSD2SS, true, false, op == HOP_CVTPD2PS ? 2 : 1, mx,
						       &d0, s);
	return exc;
}

/* 5A/5B/E6 with the mandatory prefix (SDM Vol.2 Table A-3): all SSE2. */
static status_t cvt(struct cpu *cpu, const struct insn *in, enum host_op op)
{
	status_t st = sse_gate(cpu, true, CPUID_SSE2);
	if (st != ST_OK)
		return st;
	const struct cvt_info *ci = &cvt_info[op];
	union xmm_reg s;
	st = read_src(cpu, in, ci->bytes, &s);
	if (st != ST_OK)
		return st;
	union xmm_reg d = cpu->fpu.xmm[in->reg];
	uint32_t exc = cvt_xx(cpu, op, &d, &s);
	st = fp_commit(cpu, exc);
	if (st == ST_OK)
		cpu->fpu.xmm[in->reg] = d;
	return st;
}

/* NP 0F 5A CVTPS2PD, NP 0F 5B CVTDQ2PS. */
status_t op_cvt_np(struct cpu *cpu, const struct insn *in)
{
	return cvt(cpu, in, in->opcode == 0x5a ? HOP_CVTPS2PD : HOP_CVTDQ2PS);
}
/* 66 0F 5A CVTPD2PS, 66 0F 5B CVTPS2DQ, 66 0F E6 CVTTPD2DQ. */
status_t op_cvt_66(struct cpu *cpu, const struct insn *in)
{
	return cvt(cpu, in, in->opcode == 0x5a ? HOP_CVTPD2PS : in->opcode == 0x5b ? HOP_CVTPS2DQ : HOP_CVTTPD2DQ);
}
/* F3 0F 5A CVTSS2SD, F3 0F 5B CVTTPS2DQ, F3 0F E6 CVTDQ2PD. */
status_t op_cvt_f3(struct cpu *cpu, const struct insn *in)
{
	return cvt(cpu, in, in->opcode == 0x5a ? HOP_CVTSS2SD : in->opcode == 0x5b ? HOP_CVTTPS2DQ : HOP_CVTDQ2PD);
}
/* F2 0F 5A CVTSD2SS, F2 0F E6 CVTPD2DQ. */
status_t op_cvt_f2(struct cpu *cpu, const struct insn *in)
{
	return cvt(cpu, in, in->opcode == 0x5a ? HOP_CVTSD2SS : HOP_CVTPD2DQ);
}

/* The integer width of CVTSI2S* / CVT(T)S*2SI: 64 bits with REX.W (64-bit mode
 * only, REX is not decoded elsewhere), otherwise 32 (SDM Vol.2 CVTSI2SS). */
static unsigned int_bytes(const struct insn *in) { return (in->rex & 8) ? 8 : 4; }

/* F3 0F 2A CVTSI2SS (SSE), F2 0F 2A CVTSI2SD (SSE2): xmm[31:0] or [63:0] :=
 * the integer r/m32 or r/m64 converted under MXCSR.RC; the rest unchanged. */
status_t op_cvtsi2s(struct cpu *cpu, const struct insn *in)
{
	bool dbl = in->rep == REP_F2;
	status_t st = sse_gate(cpu, true, dbl ? CPUID_SSE2 : CPUID_SSE);
	if (st != ST_OK)
		return st;
	unsigned n = int_bytes(in);
	uint64_t v;
	st = rm_read(cpu, in, n, &v);
	if (st != ST_OK)
		return st;
	union xmm_reg d = cpu->fpu.xmm[in->reg];
	uint32_t exc = host_int2fp(2u * dbl + (n == 8), host_csr(cpu->fpu.mxcsr), &d, v);
	st = fp_commit(cpu, exc);
	if (st == ST_OK)
		cpu->fpu.xmm[in->reg] = d;
	return st;
}

/* F3 0F 2D CVTSS2SI, F3 0F 2C CVTTSS2SI (SSE), F2 0F 2D CVTSD2SI, F2 0F 2C
 * CVTTSD2SI (SSE2): r32/r64 := the scalar converted (rounded by MXCSR.RC, or
 * truncated); NaN or out of range gives the integer indefinite 80..00H with IE. */
status_t op_cvts2si(struct cpu *cpu, const struct insn *in)
{
	bool dbl = in->rep == REP_F2;
	status_t st = sse_gate(cpu, true, dbl ? CPUID_SSE2 : CPUID_SSE);
	if (st != ST_OK)
		return st;
	union xmm_reg s;
	st = read_src(cpu, in, dbl ? 8 : 4, &s);
	if (st != ST_OK)
		return st;
	unsigned n = int_bytes(in);
	uint64_t v;
	unsigned which = 4u * (in->opcode == 0x2c) + 2u * dbl + (n == 8);
	uint32_t exc = host_fp2int(which, host_csr(cpu->fpu.mxcsr), &s, &v);
	st = fp_commit(cpu, exc);
	if (st == ST_OK)
		greg_write(cpu, in, n, v);
	return st;
}

/* ---- for the later extensions' floating point (emu/sse_fp_ops.h) ---- */

uint32_t sse_fp_packed(struct cpu *cpu, enum sse_fp_op op, bool dbl, union xmm_reg *a, const union xmm_reg *b)
{
	static const enum host_op ops[] = { [SFP_ADD] = HOP_ADD_PS, [SFP_SUB] = HOP_SUB_PS, [SFP_MUL] = HOP_MUL_PS };
	enum host_op hop = ops[op] + (dbl ? F_PD : F_PS);
	uint32_t mx = cpu->fpu.mxcsr;
	union xmm_reg x = *a;
	uint32_t exc = host_xx(hop, host_csr(mx), &x, b);
	/* As fp_arith: unmasked underflow counts tiny exact results, and with
	 * unmasked underflow or overflow PE is the unbounded result's. */
	if (!(mx & MXCSR_UM) && has_denormal(&x, dbl ? SH_D2 : SH_S4))
		exc |= MXCSR_UE;
	if (((exc & MXCSR_UE) && !(mx & MXCSR_UM)) || ((exc & MXCSR_OE) && !(mx & MXCSR_OM)))
		exc = (exc & ~MXCSR_PE) | unbounded_pe(ops[op] + (dbl ? F_SD : F_SS), dbl, dbl, dbl ? 2 : 4, mx, a, b);
	*a = x;
	return exc;
}

status_t sse_fp_commit(struct cpu *cpu, uint32_t exc)
{
	return fp_commit(cpu, exc);
}

uint32_t sse_fp_cvt(struct cpu *cpu, enum sse_fp_cvt k, union xmm_reg *d, const union xmm_reg *s)
{
	static const enum host_op ops[] = {
		[SFC_DQ2PS] = HOP_CVTDQ2PS, [SFC_PS2DQ] = HOP_CVTPS2DQ, [SFC_TPS2DQ] = HOP_CVTTPS2DQ,
		[SFC_DQ2PD] = HOP_CVTDQ2PD, [SFC_PD2DQ] = HOP_CVTPD2DQ, [SFC_TPD2DQ] = HOP_CVTTPD2DQ,
		[SFC_PS2PD] = HOP_CVTPS2PD, [SFC_PD2PS] = HOP_CVTPD2PS, [SFC_SS2SD] = HOP_CVTSS2SD,
		[SFC_SD2SS] = HOP_CVTSD2SS,
	};
	return cvt_xx(cpu, ops[k], d, s);
}

uint32_t sse_fp_int2fp(struct cpu *cpu, bool dbl, bool wide, union xmm_reg *d, uint64_t v)
{
	return host_int2fp(2u * dbl + wide, host_csr(cpu->fpu.mxcsr), d, v);
}

uint32_t sse_fp_fp2int(struct cpu *cpu, bool truncate, bool dbl, bool wide, const union xmm_reg *s, uint64_t *res)
{
	return host_fp2int(4u * truncate + 2u * dbl + wide, host_csr(cpu->fpu.mxcsr), s, res);
}

uint32_t sse_fp_convert(struct cpu *cpu, enum sse_fp_cvt k, union xmm_reg *d, const union xmm_reg *s)
{
	static const enum host_op ops[] = {
		[SFC_DQ2PS] = HOP_CVTDQ2PS, [SFC_PS2DQ] = HOP_CVTPS2DQ, [SFC_TPS2DQ] = HOP_CVTTPS2DQ,
		[SFC_DQ2PD] = HOP_CVTDQ2PD, [SFC_PD2DQ] = HOP_CVTPD2DQ, [SFC_TPD2DQ] = HOP_CVTTPD2DQ,
	};
	return host_xx(ops[k], host_csr(cpu->fpu.mxcsr), d, s);
}
