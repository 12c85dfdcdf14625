/* SSE/SSE2 floating point as C compilers emit it: results bit-exact against
 * values worked out from IEEE 754 / the SDM (rounding by MXCSR.RC, NaN
 * propagation SDM Vol.1 Table 4-7, QNaN indefinite 4.8.3.7, integer indefinite
 * 4.2.2), MXCSR flags, DAZ/FTZ (10.2.3.3-4), the pre- then post-computation
 * order of unmasked exceptions with the destination unchanged (11.5.3.2), #XM
 * with CR4.OSXMMEXCPT and #UD without (Vol.3 6.15), (U)COMIS EFLAGS, CMPcc
 * predicates, conversions, and the MOVSS/MOVSD/MOVHPS/MOVLPS/MOVHLPS/MOVLHPS/
 * UNPCK/SHUFPD/MOVMSK moves. Skipped without CPUID SSE2. */
#include "lib/guest.h"

#define CR4_OSXMMEXCPT (1u << 10)
/* MXCSR: flags 5:0, DAZ 6, masks 12:7, RC 14:13, FTZ 15 (SDM Vol.1 Figure 10-3). */
#define IE 0x01
#define DE 0x02
#define ZE 0x04
#define OE 0x08
#define UE 0x10
#define PE 0x20
#define MX 0x1f80                     /* all masked, nearest */
#define DAZ 0x40
#define FTZ 0x8000
#define RC_DOWN (1u << 13)
#define RC_UP (2u << 13)
#define RC_ZERO (3u << 13)
#define UNMASK(f) (MX & ~((f) << 7))
#define EFL_CF 0x01
#define EFL_PF 0x04
#define EFL_ZF 0x40
#define EFL_ARITH 0x8d5
#define NO_DE "TCG does not report the denormal-operand flag"

/* The operands: XMM0 := sf_a, XMM1 := sf_b, EAX := sf_gpr, MXCSR := sf_mxin;
 * then the instruction; afterwards sf_a := XMM0, sf_gpr := EAX, sf_mx := MXCSR,
 * sf_fl := EFLAGS. */
uint8_t sf_a[16] __attribute__((aligned(16)));
uint8_t sf_b[16] __attribute__((aligned(16)));
uint32_t sf_gpr, sf_mxin, sf_mx, sf_fl;

#define DEF(name, insn) \
	static void name(void *arg) \
	{ \
		(void)arg; \
		__asm__ volatile("ldmxcsr sf_mxin\n\tmovaps sf_a, %%xmm0\n\tmovaps sf_b, %%xmm1\n\t" \
				 "movl sf_gpr, %%eax\n\tmovl $0x8d5, %%edx\n\tpushl %%edx\n\tpopfl\n\t" \
				 MARK insn "\n\tpushfl\n\tpopl sf_fl\n\tmovl %%eax, sf_gpr" \
				 ::: "eax", "edx", "memory", "cc"); \
	}

/* Run fn under MXCSR mx; returns the vector of a fault or NO_FAULT. */
static int run(trap_fn fn, uint32_t mx)
{
	sf_mxin = mx;
	int v = trap_catch(fn, 0);
	__asm__ volatile("movaps %%xmm0, sf_a\n\tstmxcsr sf_mx" ::: "memory");
	return v;
}

static void a32(unsigned i, uint32_t v) { gmemcpy(sf_a + 4 * i, &v, 4); }
static void b32(unsigned i, uint32_t v) { gmemcpy(sf_b + 4 * i, &v, 4); }
static void a64(unsigned i, uint64_t v) { gmemcpy(sf_a + 8 * i, &v, 8); }
static void b64(unsigned i, uint64_t v) { gmemcpy(sf_b + 8 * i, &v, 8); }
static uint32_t r32(unsigned i) { uint32_t v; gmemcpy(&v, sf_a + 4 * i, 4); return v; }
static uint32_t r64hi(unsigned i) { return r32(2 * i + 1); }
static uint32_t r64lo(unsigned i) { return r32(2 * i); }
static uint32_t flags(void) { return sf_mx & 0x3f; }

DEF(addss, "addss %%xmm1, %%xmm0")
DEF(addps, "addps %%xmm1, %%xmm0")
DEF(subpd, "subpd %%xmm1, %%xmm0")
DEF(mulps, "mulps %%xmm1, %%xmm0")
DEF(mulss, "mulss %%xmm1, %%xmm0")
DEF(divsd, "divsd %%xmm1, %%xmm0")
DEF(divss, "divss %%xmm1, %%xmm0")
DEF(sqrtsd, "sqrtsd %%xmm1, %%xmm0")
DEF(sqrtss, "sqrtss %%xmm1, %%xmm0")
DEF(minss, "minss %%xmm1, %%xmm0")
DEF(maxss, "maxss %%xmm1, %%xmm0")
DEF(minsd, "minsd %%xmm1, %%xmm0")
DEF(maxpd, "maxpd %%xmm1, %%xmm0")
DEF(cmpeqps, "cmpps $0, %%xmm1, %%xmm0")
DEF(cmpltps, "cmpps $1, %%xmm1, %%xmm0")
DEF(cmpunordps, "cmpps $3, %%xmm1, %%xmm0")
DEF(cmpnleps, "cmpps $6, %%xmm1, %%xmm0")
DEF(cmplesd, "cmpsd $2, %%xmm1, %%xmm0")
DEF(ucomiss, "ucomiss %%xmm1, %%xmm0")
DEF(comiss, "comiss %%xmm1, %%xmm0")
DEF(ucomisd, "ucomisd %%xmm1, %%xmm0")
DEF(cvtsi2ss, "cvtsi2ss %%eax, %%xmm0")
DEF(cvtsi2sd, "cvtsi2sd %%eax, %%xmm0")
DEF(cvttss2si, "cvttss2si %%xmm1, %%eax")
DEF(cvtss2si, "cvtss2si %%xmm1, %%eax")
DEF(cvttsd2si, "cvttsd2si %%xmm1, %%eax")
DEF(cvtsd2si, "cvtsd2si %%xmm1, %%eax")
DEF(cvtsd2ss, "cvtsd2ss %%xmm1, %%xmm0")
DEF(cvtss2sd, "cvtss2sd %%xmm1, %%xmm0")
DEF(cvtpd2dq, "cvtpd2dq %%xmm1, %%xmm0")
DEF(cvttpd2dq, "cvttpd2dq %%xmm1, %%xmm0")
DEF(cvtdq2pd, "cvtdq2pd %%xmm1, %%xmm0")
DEF(cvtdq2ps, "cvtdq2ps %%xmm1, %%xmm0")
DEF(cvtps2dq, "cvtps2dq %%xmm1, %%xmm0")
DEF(cvttps2dq, "cvttps2dq %%xmm1, %%xmm0")
DEF(cvtps2pd, "cvtps2pd %%xmm1, %%xmm0")
DEF(cvtpd2ps, "cvtpd2ps %%xmm1, %%xmm0")
DEF(andnpd, "andnpd %%xmm1, %%xmm0")
DEF(movss_ld, "movss sf_b, %%xmm0")
DEF(movsd_rr, "movsd %%xmm1, %%xmm0")
DEF(movhps_ld, "movhps sf_b, %%xmm0")
DEF(movlpd_ld, "movlpd sf_b+8, %%xmm0")
DEF(movhps_st, "movhps %%xmm0, sf_b")
DEF(movlpd_st, "movlpd %%xmm0, sf_b+8")
DEF(movhlps, "movhlps %%xmm1, %%xmm0")
DEF(movlhps, "movlhps %%xmm1, %%xmm0")
DEF(unpcklps, "unpcklps %%xmm1, %%xmm0")
DEF(unpckhpd, "unpckhpd %%xmm1, %%xmm0")
DEF(shufpd, "shufpd $1, %%xmm1, %%xmm0")
DEF(movmskps, "movmskps %%xmm1, %%eax")
DEF(movmskpd, "movmskpd %%xmm1, %%eax")

static void clear(void)
{
	gmemset(sf_a, 0, 16);
	gmemset(sf_b, 0, 16);
	sf_gpr = 0;
}

static void test_arith(void)
{
	clear();
	a32(0, 0x3fc00000); a32(1, 0x11111111); b32(0, 0x40100000);        /* 1.5, 2.25 */
	run(addss, MX);
	check("ADDSS 1.5 + 2.25 = 3.75", r32(0), 0x40700000);
	check("ADDSS keeps the upper elements", r32(1), 0x11111111);
	check("ADDSS exact: no flag", flags(), 0);

	a64(0, 0x4014000000000000ull); a64(1, 0x3ff0000000000000ull);     /* 5.0, 1.0 */
	b64(0, 0x3fe0000000000000ull); b64(1, 0x4008000000000000ull);     /* 0.5, 3.0 */
	run(subpd, MX);
	check("SUBPD lane 0: 4.5", r64hi(0), 0x40120000);
	check("SUBPD lane 1: -2.0", r64hi(1), 0xc0000000);

	a32(0, 0x40000000); a32(1, 0x40400000); a32(2, 0xbf800000); a32(3, 0x3f000000);
	b32(0, 0x40800000); b32(1, 0x3f000000); b32(2, 0xbf800000); b32(3, 0x3f000000);
	run(mulps, MX);
	check("MULPS 2*4", r32(0), 0x41000000);
	check("MULPS 3*0.5", r32(1), 0x3fc00000);
	check("MULPS -1*-1", r32(2), 0x3f800000);
	check("MULPS 0.5*0.5", r32(3), 0x3e800000);

	/* 1/3 = 0.0101..b: nearest and toward zero/down give ...5555, up gives ...5556. */
	static const struct { uint32_t rc; uint32_t lo; const char *name; } rcs[] = {
		{ 0, 0x55555555, "DIVSD 1/3 RC nearest" }, { RC_DOWN, 0x55555555, "DIVSD 1/3 RC down" },
		{ RC_UP, 0x55555556, "DIVSD 1/3 RC up" }, { RC_ZERO, 0x55555555, "DIVSD 1/3 RC zero" },
	};
	for (unsigned i = 0; i < 4; i++) {
		a64(0, 0x3ff0000000000000ull); b64(0, 0x4008000000000000ull);
		run(divsd, MX | rcs[i].rc);
		check(rcs[i].name, r64lo(0), rcs[i].lo);
		check("  high half 3FD55555H, PE", (r64hi(0) ^ 0x3fd55555) | (flags() ^ PE), 0);
	}
	b64(0, 0x4000000000000000ull);
	run(sqrtsd, MX);
	check("SQRTSD 2.0 = 3FF6A09E667F3BCDH (low)", r64lo(0), 0x667f3bcd);
	check("SQRTSD 2.0 (high)", r64hi(0), 0x3ff6a09e);
	check("SQRTSD 2.0: PE", flags(), PE);
	b32(0, 0xbf800000);
	run(sqrtss, MX);
	check("SQRTSS -1 = QNaN indefinite FFC00000H", r32(0), 0xffc00000);
	check("SQRTSS -1: IE", flags(), IE);
	a32(0, 0x3f800000); b32(0, 0);
	run(divss, MX);
	check("DIVSS 1/0 = +inf, ZE", (r32(0) ^ 0x7f800000) | (flags() ^ ZE), 0);
}

static void test_nan_minmax(void)
{
	clear();
	/* SDM Vol.1 Table 4-7 and Vol.2 ADDPS: a QNaN source propagates; an SNaN is
	 * quieted with IE; two QNaNs give the first source's; inf - inf is the
	 * indefinite with IE. */
	a32(0, 0x7fc00011); b32(0, 0x3f800000);
	a32(1, 0x3f800000); b32(1, 0x7f800022);
	a32(2, 0x7fc00033); b32(2, 0x7fc00044);
	a32(3, 0x7f800000); b32(3, 0xff800000);
	run(addps, MX);
	check("ADDPS QNaN + 1 = the QNaN", r32(0), 0x7fc00011);
	check("ADDPS 1 + SNaN = the SNaN quieted", r32(1), 0x7fc00022);
	check_quirk("ADDPS QNaN + QNaN = the first source's", r32(2), 0x7fc00033,
		    "TCG returns the second source's QNaN");
	check("ADDPS +inf + -inf = indefinite", r32(3), 0xffc00000);
	check("ADDPS: IE", flags(), IE);

	/* MINSS/MAXSS (SDM Vol.2): both zeros or any NaN -> the second operand;
	 * a NaN (QNaN too) is invalid. */
	clear();
	a32(0, 0); b32(0, 0x80000000);
	run(minss, MX);
	check("MINSS(+0, -0) = -0 (second operand)", r32(0), 0x80000000);
	a32(0, 0x80000000); b32(0, 0);
	run(maxss, MX);
	check("MAXSS(-0, +0) = +0 (second operand)", r32(0), 0);
	check("MIN/MAX of zeros: no flag", flags(), 0);
	a64(0, 0x7ff8000000000000ull); b64(0, 0x3ff0000000000000ull);
	run(minsd, MX);
	check("MINSD(QNaN, 1.0) = 1.0 (second operand)", r64hi(0), 0x3ff00000);
	check("MINSD with a QNaN: IE", flags(), IE);
	a64(0, 0x3ff0000000000000ull); a64(1, 0xc000000000000000ull);
	b64(0, 0xbff0000000000000ull); b64(1, 0x7ff8000000000001ull);
	run(maxpd, MX);
	check("MAXPD(1, -1) = 1", r64hi(0), 0x3ff00000);
	check("MAXPD(-2, QNaN) = the QNaN", (r64lo(1) ^ 1) | (r64hi(1) ^ 0x7ff80000), 0);
}

static void test_compare(void)
{
	clear();
	/* A = {1, QNaN, 3, 2}, B = {1, 1, 2, 3} (SDM Vol.2 CMPPS Table 3-7). */
	static const uint32_t av[4] = { 0x3f800000, 0x7fc00000, 0x40400000, 0x40000000 };
	static const uint32_t bv[4] = { 0x3f800000, 0x3f800000, 0x40000000, 0x40400000 };
	static const struct { trap_fn fn; const char *name; uint32_t mask; uint32_t flags; } c[] = {
		{ cmpeqps, "CMPEQPS (quiet)", 0x1, 0 },
		{ cmpltps, "CMPLTPS (signals on QNaN)", 0x8, IE },
		{ cmpunordps, "CMPUNORDPS", 0x2, 0 },
		{ cmpnleps, "CMPNLEPS (unordered is true)", 0x6, IE },
	};
	for (unsigned k = 0; k < 4; k++) {
		for (unsigned i = 0; i < 4; i++)
			a32(i, av[i]), b32(i, bv[i]);
		run(c[k].fn, MX);
		uint32_t m = 0, ok = 1;
		for (unsigned i = 0; i < 4; i++) {
			m |= (r32(i) == 0xffffffffu) << i;
			ok &= r32(i) == 0 || r32(i) == 0xffffffffu;
		}
		check(c[k].name, m | (ok ? 0 : 0x100), c[k].mask);
		check("  flags", flags(), c[k].flags);
	}
	a64(0, 0x4000000000000000ull); a64(1, 0x1234); b64(0, 0x4000000000000000ull);
	run(cmplesd, MX);
	check("CMPLESD 2 <= 2: all ones, upper kept", r32(0) & r32(1) & (r64lo(1) == 0x1234 ? ~0u : 0), ~0u);

	/* (U)COMISS/SD: ZF PF CF = 000 greater, 001 less, 100 equal, 111 unordered;
	 * OF SF AF := 0 (SDM Vol.2 UCOMISS). */
	static const struct { uint32_t a, b, fl; const char *name; } u[] = {
		{ 0x3f800000, 0x40000000, EFL_CF, "UCOMISS 1 < 2: CF" },
		{ 0x40000000, 0x3f800000, 0, "UCOMISS 2 > 1: none" },
		{ 0x40000000, 0x40000000, EFL_ZF, "UCOMISS 2 == 2: ZF" },
		{ 0x7fc00000, 0x40000000, EFL_ZF | EFL_PF | EFL_CF, "UCOMISS QNaN: ZF PF CF" },
	};
	for (unsigned k = 0; k < 4; k++) {
		a32(0, u[k].a); b32(0, u[k].b);
		run(ucomiss, MX);
		check(u[k].name, sf_fl & EFL_ARITH, u[k].fl);
	}
	check("UCOMISS QNaN: no IE", flags(), 0);
	run(comiss, MX);
	check("COMISS QNaN: IE", flags(), IE);
	a32(0, 0x7f800001);
	run(ucomiss, MX);
	check("UCOMISS SNaN: IE", flags(), IE);
	a64(0, 0xbff0000000000000ull); b64(0, 0xbff0000000000000ull);
	run(ucomisd, MX);
	check("UCOMISD -1 == -1: ZF", sf_fl & EFL_ARITH, EFL_ZF);
}

static void test_convert(void)
{
	clear();
	sf_gpr = 16777217;                        /* 2^24 + 1: not a float */
	run(cvtsi2ss, MX);
	check("CVTSI2SS 2^24+1 -> 2^24 (nearest even)", r32(0), 0x4b800000);
	check("  PE", flags(), PE);
	sf_gpr = (uint32_t)-7;
	a64(1, 0x5555);
	run(cvtsi2sd, MX);
	check("CVTSI2SD -7 (high)", r64hi(0), 0xc01c0000);
	check("CVTSI2SD -7: exact, upper kept", r64lo(0) | flags() | (r64lo(1) ^ 0x5555), 0);

	b32(0, 0xc0200000);                       /* -2.5 */
	run(cvttss2si, MX);
	check("CVTTSS2SI -2.5 = -2", sf_gpr, (uint32_t)-2);
	run(cvtss2si, MX);
	check("CVTSS2SI -2.5 nearest even = -2", sf_gpr, (uint32_t)-2);
	run(cvtss2si, MX | RC_DOWN);
	check("CVTSS2SI -2.5 RC down = -3", sf_gpr, (uint32_t)-3);
	check("  PE", flags(), PE);
	b64(0, 0x41e65a0bc0000000ull);            /* 3e9: beyond int32 */
	run(cvttsd2si, MX);
	check("CVTTSD2SI 3e9 = integer indefinite", sf_gpr, 0x80000000u);
	check("  IE", flags(), IE);
	b64(0, 0xc00c000000000000ull);            /* -3.5 */
	run(cvtsd2si, MX);
	check("CVTSD2SI -3.5 nearest even = -4", sf_gpr, (uint32_t)-4);

	b64(0, 0x7e37e43c8800759cull);            /* 1e300 */
	run(cvtsd2ss, MX);
	check("CVTSD2SS 1e300 = +inf", r32(0), 0x7f800000);
	check("  OE PE", flags(), OE | PE);
	b64(0, 0x01a56e1fc2f8f359ull);            /* 1e-300 */
	run(cvtsd2ss, MX);
	check("CVTSD2SS 1e-300 = +0", r32(0), 0);
	check("  UE PE (tiny and inexact)", flags(), UE | PE);
	b32(0, 1);                                /* smallest denormal float */
	run(cvtss2sd, MX);
	check("CVTSS2SD 2^-149 = 36A00000 00000000H", r64hi(0) | (r64lo(0) ? 1 : 0), 0x36a00000);
	check_quirk("  DE (denormal operand)", flags(), DE, NO_DE);

	b64(0, 0x3ff8000000000000ull); b64(1, 0xc004000000000000ull);     /* 1.5, -2.5 */
	gmemset(sf_a, 0xee, 16);
	run(cvtpd2dq, MX);
	check("CVTPD2DQ {1.5, -2.5} = {2, -2}", (r32(0) ^ 2) | (r32(1) ^ (uint32_t)-2), 0);
	check("CVTPD2DQ upper half zeroed", r32(2) | r32(3), 0);
	run(cvttpd2dq, MX);
	check("CVTTPD2DQ {1.5, -2.5} = {1, -2}", (r32(0) ^ 1) | (r32(1) ^ (uint32_t)-2), 0);
	b32(0, 3); b32(1, (uint32_t)-4);
	run(cvtdq2pd, MX);
	check("CVTDQ2PD {3, -4}", (r64hi(0) ^ 0x40080000) | (r64hi(1) ^ 0xc0100000), 0);
	b32(0, 16777217); b32(1, 1); b32(2, 0); b32(3, (uint32_t)-1);
	run(cvtdq2ps, MX);
	check("CVTDQ2PS lanes", (r32(0) ^ 0x4b800000) | (r32(1) ^ 0x3f800000) | r32(2) |
	      (r32(3) ^ 0xbf800000), 0);
	check("  PE", flags(), PE);
	b32(0, 0x40200000); b32(1, 0x40600000); b32(2, 0xbf000000); b32(3, 0x501502f9);
	run(cvtps2dq, MX);                        /* 2.5, 3.5, -0.5, 1e10 */
	check("CVTPS2DQ {2.5, 3.5, -0.5} = {2, 4, 0}", (r32(0) ^ 2) | (r32(1) ^ 4) | r32(2), 0);
	check("CVTPS2DQ 1e10 = indefinite", r32(3), 0x80000000u);
	check("  IE PE", flags(), IE | PE);
	run(cvttps2dq, MX);
	check("CVTTPS2DQ {2.5, 3.5} = {2, 3}", (r32(0) ^ 2) | (r32(1) ^ 3), 0);
	b32(0, 0x3fc00000); b32(1, 0xc0000000);
	run(cvtps2pd, MX);
	check("CVTPS2PD {1.5, -2}", (r64hi(0) ^ 0x3ff80000) | (r64hi(1) ^ 0xc0000000), 0);
	b64(0, 0x3ff8000000000000ull); b64(1, 0x7e37e43c8800759cull);
	gmemset(sf_a, 0xee, 16);
	run(cvtpd2ps, MX);
	check("CVTPD2PS {1.5, 1e300} = {1.5f, inf}", (r32(0) ^ 0x3fc00000) | (r32(1) ^ 0x7f800000), 0);
	check("CVTPD2PS upper half zeroed", r32(2) | r32(3), 0);
	check("  OE PE", flags(), OE | PE);
}

static void test_daz_ftz(void)
{
	clear();
	/* 2^-126 * 0.5 = 2^-127: tiny but exact, so masked underflow reports nothing. */
	a32(0, 0x00800000); b32(0, 0x3f000000);
	run(mulss, MX);
	check("MULSS 2^-126 * 0.5 = denormal 00400000H", r32(0), 0x00400000);
	check("  exact tiny: no UE (masked)", flags(), 0);
	a32(0, 0x00800000); b32(0, 0x3f400000);   /* * 0.75: tiny and inexact */
	run(mulss, MX);
	check("MULSS 2^-126 * 0.75 (nearest even)", r32(0), 0x00600000);
	check("  exact in the denormal format: no flag", flags(), 0);
	a32(0, 0x00800001); b32(0, 0x3f000000);
	run(mulss, MX);
	check("MULSS (2^-126 + ulp) * 0.5 rounds to even", r32(0), 0x00400000);
	check("  tiny and inexact: UE PE", flags(), UE | PE);
	a32(0, 0x00800001);
	run(mulss, MX | FTZ);
	check("FTZ: the tiny result is +0", r32(0), 0);
	check("FTZ: UE PE", flags(), UE | PE);
	a32(0, 0x00400000); b32(0, 0x3f800000);
	run(mulss, MX);
	check("MULSS denormal * 1 keeps it", r32(0), 0x00400000);
	check_quirk("  DE (denormal operand)", flags(), DE, NO_DE);
	a32(0, 0x00400000);
	run(mulss, MX | DAZ);
	check("DAZ: the denormal operand is +0", r32(0), 0);
	a32(0, 0x80400000);
	run(mulss, MX | DAZ);
	check("DAZ: a negative denormal is -0", r32(0), 0x80000000);
}

static void test_unmasked(void)
{
	clear();
	uint32_t cr4;
	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	/* Unmasked ZE: #XM, destination unchanged, ZE set (SDM Vol.1 11.5.3.2). */
	a32(0, 0x3f800000); b32(0, 0);
	check("DIVSS 1/0 with ZM = 0 -> #XM", run(divss, UNMASK(ZE)), 19);
	check("  destination unchanged", r32(0), 0x3f800000);
	check("  ZE", flags(), ZE);
	__asm__ volatile("mov %0, %%cr4" :: "r"(cr4 & ~CR4_OSXMMEXCPT));
	check("... with CR4.OSXMMEXCPT = 0 -> #UD (SDM Vol.3 6.15)", run(divss, UNMASK(ZE)), 6);
	__asm__ volatile("mov %0, %%cr4" :: "r"(cr4));
	check("masked again: no fault", run(divss, MX), NO_FAULT);

	/* Lane 0 SNaN, lane 1 overflow: an unmasked pre-computation exception stops
	 * the instruction before overflow is looked for. */
	a32(0, 0x7f800001); b32(0, 0x3f800000);
	a32(1, 0x7f7fffff); b32(1, 0x7f7fffff);
	check("ADDPS SNaN/overflow, IM OM unmasked -> #XM", run(addps, UNMASK(IE | OE)), 19);
	check("  only IE (pre-computation)", flags(), IE);
	check("  destination unchanged", (r32(0) ^ 0x7f800001) | (r32(1) ^ 0x7f7fffff), 0);
	check("ADDPS, only OM unmasked -> #XM", run(addps, UNMASK(OE)), 19);
	/* FLT_MAX + FLT_MAX = 2^129 exactly: no inexact result, no PE (SDM Vol.1
	 * 4.9.1.6; measured on an AMD EPYC host). */
	check("  IE (masked) and OE, no PE (exact)", flags(), IE | OE);
	check("  destination unchanged", r32(1), 0x7f7fffff);

	/* Unmasked underflow reports a tiny result even when exact (4.9.1.5). */
	a32(0, 0x00800000); b32(0, 0x3f000000);
	check("MULSS exact tiny, UM = 0 -> #XM", run(mulss, UNMASK(UE)), 19);
	check("  UE", flags(), UE);
	check("  destination unchanged", r32(0), 0x00800000);
	a64(0, 0x3ff0000000000000ull); b64(0, 0x4008000000000000ull);
	check("DIVSD 1/3, PM = 0 -> #XM", run(divsd, UNMASK(PE)), 19);
	check("  PE, destination unchanged", flags() | (r64hi(0) ^ 0x3ff00000), PE);
	a32(0, 0x00400000); b32(0, 0x3f800000);
	check("MULSS denormal operand, DM = 0 -> #XM", run(mulss, UNMASK(DE)), 19);
	check("  DE", flags(), DE);
	b32(0, 0x7fc00000);
	sf_gpr = 0x1234;
	check("CVTTSS2SI QNaN, IM = 0 -> #XM", run(cvttss2si, UNMASK(IE)), 19);
	check("  EAX unchanged", sf_gpr, 0x1234);
}

static void test_moves(void)
{
	clear();
	for (unsigned i = 0; i < 4; i++)
		a32(i, 0xa0 + i), b32(i, 0xb0 + i);
	run(movss_ld, MX);
	check("MOVSS xmm, m32 zeroes bits 127:32", (r32(0) ^ 0xb0) | r32(1) | r32(2) | r32(3), 0);
	for (unsigned i = 0; i < 4; i++)
		a32(i, 0xa0 + i);
	run(movsd_rr, MX);
	check("MOVSD xmm, xmm merges the low quadword", (r32(0) ^ 0xb0) | (r32(1) ^ 0xb1) |
	      (r32(2) ^ 0xa2) | (r32(3) ^ 0xa3), 0);
	for (unsigned i = 0; i < 4; i++)
		a32(i, 0xa0 + i);
	run(movhps_ld, MX);
	check("MOVHPS xmm, m64: high := memory", (r32(0) ^ 0xa0) | (r32(2) ^ 0xb0) | (r32(3) ^ 0xb1), 0);
	run(movlpd_ld, MX);
	check("MOVLPD xmm, m64: low := memory", (r32(0) ^ 0xb2) | (r32(1) ^ 0xb3) | (r32(2) ^ 0xb0), 0);
	for (unsigned i = 0; i < 4; i++)
		a32(i, 0xa0 + i);
	run(movhps_st, MX);
	run(movlpd_st, MX);
	{
		uint32_t m[4];
		gmemcpy(m, sf_b, 16);
		check("MOVHPS m64, xmm / MOVLPD m64, xmm store one quadword each",
		      (m[0] ^ 0xa2) | (m[1] ^ 0xa3) | (m[2] ^ 0xa0) | (m[3] ^ 0xa1), 0);
	}
	for (unsigned i = 0; i < 4; i++)
		b32(i, 0xb0 + i);
	run(movhlps, MX);
	check("MOVHLPS: low := source high", (r32(0) ^ 0xb2) | (r32(1) ^ 0xb3) | (r32(2) ^ 0xa2), 0);
	run(movlhps, MX);
	check("MOVLHPS: high := source low", (r32(0) ^ 0xb2) | (r32(2) ^ 0xb0) | (r32(3) ^ 0xb1), 0);
	for (unsigned i = 0; i < 4; i++)
		a32(i, 0xa0 + i);
	run(unpcklps, MX);
	check("UNPCKLPS {a0, b0, a1, b1}", (r32(0) ^ 0xa0) | (r32(1) ^ 0xb0) | (r32(2) ^ 0xa1) |
	      (r32(3) ^ 0xb1), 0);
	for (unsigned i = 0; i < 4; i++)
		a32(i, 0xa0 + i);
	run(unpckhpd, MX);
	check("UNPCKHPD {a.hi, b.hi}", (r32(0) ^ 0xa2) | (r32(1) ^ 0xa3) | (r32(2) ^ 0xb2) |
	      (r32(3) ^ 0xb3), 0);
	for (unsigned i = 0; i < 4; i++)
		a32(i, 0xa0 + i);
	run(shufpd, MX);
	check("SHUFPD 1: {a.hi, b.lo}", (r32(0) ^ 0xa2) | (r32(2) ^ 0xb0), 0);
	b32(0, 0x80000000); b32(1, 0); b32(2, 0xffffffff); b32(3, 0x7fffffff);
	run(movmskps, MX);
	check("MOVMSKPS", sf_gpr, 0x5);
	run(movmskpd, MX);
	check("MOVMSKPD", sf_gpr, 0x0);
	b32(1, 0x80000000);
	run(movmskpd, MX);
	check("MOVMSKPD lane 0 negative", sf_gpr, 0x1);
	/* fabs() as compilers emit it: ANDNPD with the sign mask as destination. */
	a64(0, 0x8000000000000000ull); a64(1, 0x8000000000000000ull);
	b64(0, 0xc000000000000000ull); b64(1, 0x3ff0000000000000ull);
	run(andnpd, MX);
	check("ANDNPD sign-mask, {-2, 1} = {2, 1}", (r64hi(0) ^ 0x40000000) | (r64hi(1) ^ 0x3ff00000), 0);
}

void guest_main(void)
{
	uint32_t a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	if (!((d >> 26) & 1)) {
		skip_all("CPUID.01H:EDX.SSE2 = 0");
	}
	uint32_t cr0, cr4;
	__asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
	__asm__ volatile("mov %0, %%cr0" :: "r"((cr0 | (1u << 1)) & ~((1u << 2) | (1u << 3))));
	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	__asm__ volatile("mov %0, %%cr4" :: "r"(cr4 | (1u << 9) | CR4_OSXMMEXCPT));
	test_arith();
	test_nan_minmax();
	test_compare();
	test_convert();
	test_daz_ftz();
	if (!skip_quirk("unmasked SIMD floating-point exceptions -> #XM/#UD",
			"TCG does not raise SIMD floating-point exceptions"))
		test_unmasked();
	test_moves();
	tap_finish();
}
