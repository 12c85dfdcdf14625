/* The rest of the x87 (SDM Vol.1 ch. 8, Vol.2): the constants rounded by RC
 * (8.3.8), packed BCD (FBSTP/FBLD, 4.7 and the BCD indefinite), FXTRACT of 0,
 * FPREM/FPREM1 quotient bits and partial remainders, FSIN/FPTAN beyond 2^63,
 * FSCALE, FISTTP (only with CPUID.01H:ECX.SSE3), FCMOVcc/FCOMI (only with
 * CMOV), the unmasked #O response (8.5.4.2), the environment images in every
 * operand size and mode (8.1.10, Figures 8-9..8-12: protected, real and
 * virtual-8086 mode), FNSTENV's masking, the last-instruction pointers (8.1.8,
 * 8.1.9), reserved encodings, and #MF versus CR0.NE = 0 (8.7). */
#include "lib/guest.h"
#include "lib/v86.h"

static uint32_t cr0(void) { uint32_t v; __asm__ volatile("mov %%cr0, %0" : "=r"(v)); return v; }
static void set_cr0(uint32_t v) { __asm__ volatile("mov %0, %%cr0" :: "r"(v)); }
#define CR0_MP (1u << 1)
#define CR0_EM (1u << 2)
#define CR0_TS (1u << 3)
#define CR0_NE (1u << 5)

static uint16_t fnstsw(void) { uint16_t v; __asm__ volatile("fnstsw %%ax" : "=a"(v)); return v; }
static void fldcw(uint16_t v) { __asm__ volatile("fldcw %0" :: "m"(v)); }
#define C0 0x0100u
#define C1 0x0200u
#define C2 0x0400u
#define C3 0x4000u
#define CC (C0 | C1 | C2 | C3)

/* ST(0) as an 80-bit image, popped: significand high/low words and sign/exponent. */
struct f80 { uint32_t lo, hi; uint16_t se; };
static struct f80 pop80(void)
{
	uint8_t t[10];
	struct f80 r;
	__asm__ volatile("fstpt %0" : "=m"(t));
	gmemcpy(&r.lo, t, 4);
	gmemcpy(&r.hi, t + 4, 4);
	gmemcpy(&r.se, t + 8, 2);
	return r;
}
static void push80(uint32_t hi, uint32_t lo, uint16_t se)
{
	uint8_t t[10];
	gmemcpy(t, &lo, 4);
	gmemcpy(t + 4, &hi, 4);
	gmemcpy(t + 8, &se, 2);
	__asm__ volatile("fldt %0" :: "m"(t));
}
static void check80(const char *name, struct f80 v, uint32_t hi, uint32_t lo, uint16_t se)
{
	check(name, v.hi, hi);
	check(name, v.lo, lo);
	check(name, v.se, se);
}

/* The last-instruction pointers and the images' reserved bits, which QEMU
 * TCG does not model as the SDM describes them (no FOP, FIP of the last x87
 * instruction with a memory operand, segment:offset in real-mode images,
 * zeros in the reserved halves). */
#define QEMU_PTRS "QEMU TCG: no FOP, FIP/FDP not as the SDM records them"
static void check_ptr(const char *name, uint32_t got, uint32_t expected)
{
	check_quirk(name, got, expected, QEMU_PTRS);
}

/* ---- constants (SDM Vol.1 8.3.8) ---- */

static void test_constants(void)
{
	/* pi = C90FDAA2 2168C234 C4C6..: nearest and up round up, down and chop
	 * truncate. log2(10) = D49A784B CD1B8AFE 492B..: only up rounds up. */
	static const struct { uint16_t rc; uint32_t pi_lo, l2t_lo; } k[] = {
		{ 0, 0x2168c235, 0xcd1b8afe }, { 1, 0x2168c234, 0xcd1b8afe },
		{ 2, 0x2168c235, 0xcd1b8aff }, { 3, 0x2168c234, 0xcd1b8afe },
	};
	for (unsigned i = 0; i < 4; i++) {
		__asm__ volatile("fninit");
		fldcw((uint16_t)(0x037f | k[i].rc << 10));
		__asm__ volatile("fldpi");
		struct f80 v = pop80();
		check("FLDPI rounded by RC: high", v.hi, 0xc90fdaa2);
		check("FLDPI rounded by RC: low", v.lo, k[i].pi_lo);
		__asm__ volatile("fldl2t");
		v = pop80();
		check("FLDL2T rounded by RC: low", v.lo, k[i].l2t_lo);
		check("FLDL2T exponent", v.se, 0x4000);
	}
	__asm__ volatile("fninit; fldln2");
	check80("FLDLN2 nearest: B17217F7 D1CF79AC", pop80(), 0xb17217f7, 0xd1cf79ac, 0x3ffe);
	__asm__ volatile("fldlg2");
	check80("FLDLG2 nearest: 9A209A84 FBCFF799", pop80(), 0x9a209a84, 0xfbcff799, 0x3ffd);
	__asm__ volatile("fldl2e");
	check80("FLDL2E nearest: B8AA3B29 5C17F0BC", pop80(), 0xb8aa3b29, 0x5c17f0bc, 0x3fff);
}

/* ---- packed BCD (SDM Vol.1 4.7, Figure 4-10; Vol.2 FBLD, FBSTP) ---- */

static void test_bcd(void)
{
	uint8_t b[10];
	int32_t v = -1234;
	__asm__ volatile("fninit; fildl %1; fbstp %0" : "=m"(b) : "m"(v));
	check("FBSTP -1234: digits 34 12", rd16(b, 0), 0x1234);
	check("FBSTP -1234: bytes 2-5 zero", rd32(b, 2), 0);
	check("FBSTP -1234: sign byte 80H", b[9], 0x80);
	check("FBSTP popped (TOP = 0)", (fnstsw() >> 11) & 7, 0);
	/* 10^18 needs 19 digits: #IA, masked: the BCD indefinite FFFFC000000000000000H. */
	uint64_t big = 1000000000000000000ull;
	__asm__ volatile("fninit; fildll %1; fbstp %0" : "=m"(b) : "m"(big));
	check("FBSTP 10^18: indefinite bytes 0-3", rd32(b, 0), 0);
	check("FBSTP 10^18: indefinite bytes 4-7", rd32(b, 4), 0xc0000000);
	check("FBSTP 10^18: indefinite bytes 8-9", rd16(b, 8), 0xffff);
	check("FBSTP 10^18: IE", fnstsw() & 0x3f, 0x01);
	/* 2.5 rounds to nearest even: 2, #P. */
	double h = 2.5;
	__asm__ volatile("fninit; fldl %1; fbstp %0" : "=m"(b) : "m"(h));
	check("FBSTP 2.5 -> 02 (nearest even)", b[0], 0x02);
	check("FBSTP 2.5: PE", fnstsw() & 0x3f, 0x20);
	/* FBLD of 18 nines: 999999999999999999 = DE0B6B3A763FFFFH. */
	uint8_t nines[10] = { 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x80 };
	uint64_t q;
	__asm__ volatile("fninit; fbld %1; fistpll %0" : "=m"(q) : "m"(nines));
	check("FBLD -(18 nines), FISTP m64: high", (uint32_t)(q >> 32), 0xf21f494c);
	check("FBLD -(18 nines), FISTP m64: low", (uint32_t)q, 0x589c0001);
}

/* ---- FXTRACT, FPREM, FPREM1, FSCALE (SDM Vol.2) ---- */

static void test_reductions(void)
{
	__asm__ volatile("fninit; fldz; fxtract");
	uint16_t sw = fnstsw();
	check_quirk("FXTRACT of +0: ZE (#Z)", sw & 0x3f, 0x04, "QEMU TCG before 6.0 returned no #Z");
	check80("FXTRACT of +0: ST(0) = +0", pop80(), 0, 0, 0);
	check80("FXTRACT of +0: ST(1) = -inf", pop80(), 0x80000000, 0, 0xffff);
	int32_t three = 3, seven = 7, eight = 8;
	__asm__ volatile("fninit; fildl %0; fildl %1; fprem" :: "m"(three), "m"(seven));
	sw = fnstsw();
	check("FPREM 7 rem 3: quotient 2 -> C3 (Q1) only, C2 = 0", sw & CC, C3);
	check80("FPREM 7 rem 3 = 1", pop80(), 0x80000000, 0, 0x3fff);
	__asm__ volatile("fninit; fildl %0; fildl %1; fprem1" :: "m"(three), "m"(eight));
	sw = fnstsw();
	check_quirk("FPREM1 8 rem 3: quotient 3 -> C3 (Q1) and C1 (Q0)", sw & CC, C3 | C1,
		    "QEMU TCG leaves the quotient bits of FPREM1 clear");
	check80("FPREM1 8 rem 3 = -1", pop80(), 0x80000000, 0, 0xbfff);
	/* 2^100 rem 3: exponents differ by 64 or more: a partial remainder, C2 = 1. */
	__asm__ volatile("fninit; fildl %0" :: "m"(three));
	push80(0x80000000, 0, 16383 + 100);
	__asm__ volatile("fprem");
	check("FPREM 2^100 rem 3: partial (C2 = 1)", fnstsw() & C2, C2);
	/* FSCALE: 1.5 * 2^trunc(-2.5) = 0.375. */
	double m25 = -2.5, one5 = 1.5;
	__asm__ volatile("fninit; fldl %0; fldl %1; fscale" :: "m"(m25), "m"(one5));
	check80("FSCALE 1.5 by -2.5 (truncated to -2) = 0.375", pop80(), 0xc0000000, 0, 0x3ffd);
	__asm__ volatile("fninit");
}

/* ---- the transcendentals' range (SDM Vol.2 FSIN, FCOS, FPTAN, FSINCOS) ---- */

static void test_trig(void)
{
	__asm__ volatile("fninit");
	push80(0x80000000, 0, 16383 + 64);
	__asm__ volatile("fsin");
	uint16_t sw = fnstsw();
	check("FSIN 2^64: C2 = 1 (out of range)", sw & C2, C2);
	check("FSIN 2^64: nothing pushed (TOP = 7)", (sw >> 11) & 7, 7);
	check80("FSIN 2^64: ST(0) unchanged", pop80(), 0x80000000, 0, 16383 + 64);
	push80(0x80000000, 0, 16383 + 64);
	__asm__ volatile("fptan");
	check("FPTAN 2^64: C2 = 1, nothing pushed", fnstsw() & (C2 | 0x3800), C2 | 0x3800);
	__asm__ volatile("fninit; fldz; fptan");
	check("FPTAN 0: C2 = 0, two values (TOP = 6)", fnstsw() & (C2 | 0x3800), 0x3000);
	check80("FPTAN 0: 1.0 pushed", pop80(), 0x80000000, 0, 0x3fff);
	check80("FPTAN 0: tan 0 = +0", pop80(), 0, 0, 0);
	__asm__ volatile("fninit; fldz; fsincos");
	check80("FSINCOS 0: ST(0) = cos = 1.0", pop80(), 0x80000000, 0, 0x3fff);
	check80("FSINCOS 0: ST(1) = sin = +0", pop80(), 0, 0, 0);
	__asm__ volatile("fninit");
}

/* ---- CPUID-gated forms ---- */

static volatile uint16_t fisttp_out;
static void do_fisttp(void *p) { (void)p; __asm__ volatile(MARK "fisttps %0" : "=m"(fisttp_out)); }
static volatile uint32_t fcomi_flags;
static void do_fcmov(void *p) { (void)p; __asm__ volatile("stc\n\t" MARK "fcmovb %%st(1), %%st" ::: "cc"); }
static void do_fcomi(void *p)
{
	(void)p;
	uint32_t fl;
	__asm__ volatile(MARK "fcomi %%st(1), %%st\n\tpushfl\n\tpopl %0" : "=r"(fl) :: "cc");
	fcomi_flags = fl;
}

static void test_cpuid_gated(void)
{
	uint32_t a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	double v = -2.75;
	__asm__ volatile("fninit; fldl %0" :: "m"(v));
	if (c & 1) {
		/* SDM Vol.2 FISTTP: truncation whatever RC says. */
		expect_no_fault("FISTTP with SSE3 runs", do_fisttp, 0);
		check("FISTTP -2.75 -> -2 (chop)", fisttp_out, 0xfffe);
	} else {
		check_quirk("FISTTP without SSE3: #UD", (uint32_t)trap_catch(do_fisttp, 0), 6,
			    "QEMU TCG runs FISTTP whatever CPUID says");
	}
	__asm__ volatile("fninit; fld1; fldz");
	if (d & (1u << 15)) {
		expect_no_fault("FCOMI with CMOV runs", do_fcomi, 0);
		check("FCOMI 0 vs 1: CF", fcomi_flags & 0x45, 0x01);
		expect_no_fault("FCMOVB with CMOV runs", do_fcmov, 0);
		check80("FCMOVB (CF = 1) moved ST(1)", pop80(), 0x80000000, 0, 0x3fff);
	} else {
		expect_fault("FCOMI without CMOV: #UD", do_fcomi, 0, 6, -1);
		expect_fault("FCMOVB without CMOV: #UD", do_fcmov, 0, 6, -1);
	}
	__asm__ volatile("fninit");
}

/* ---- environment images in protected mode (SDM Vol.1 Figures 8-9, 8-11) ---- */

static double one = 1.0;
static uint8_t env[108];

static void test_env_pm(void)
{
	uint32_t fld_at;
	/* FLD m64fp with a disp32 operand: FOP = 5 << 8 | ModRM 05H. */
	__asm__ volatile("fninit\n\tmovl $1f, %0\n1:\tfldl one\n\tfnstenv env" : "=r"(fld_at) :: "memory");
	check_ptr("FNSTENV: FCW (upper half ones)", rd32(env, 0), 0xffff037f);
	check("FNSTENV: FCW", rd16(env, 0), 0x037f);
	check("FNSTENV: FSW TOP = 7", rd16(env, 4), 0x3800);
	check("FNSTENV: FTW R7 valid", rd16(env, 8), 0x3fff);
	check_ptr("FNSTENV: FIP = the FLD", rd32(env, 12), fld_at);
	check("FNSTENV: FCS", rd16(env, 16), SEL_KCODE);
	check_ptr("FNSTENV: FOP = 505H", rd16(env, 18) & 0x7ff, 0x505);
	check_ptr("FNSTENV: FDP = its operand", rd32(env, 20), (uint32_t)&one);
	check("FNSTENV: FDS", rd16(env, 24), SEL_KDATA);
	/* 16-bit operand size: 14 bytes, no FOP. */
	gmemset(env, 0xa5, sizeof(env));
	__asm__ volatile("fninit\n\tmovl $1f, %0\n1:\tfldl one\n\tdata16 fnstenv env" : "=r"(fld_at) :: "memory");
	check_ptr("o16 FNSTENV: FIP[15:0]", rd16(env, 6), fld_at & 0xffff);
	check("o16 FNSTENV: FCS", rd16(env, 8), SEL_KCODE);
	check_ptr("o16 FNSTENV: FDP[15:0]", rd16(env, 10), (uint32_t)&one & 0xffff);
	check("o16 FNSTENV: FDS", rd16(env, 12), SEL_KDATA);
	check("o16 FNSTENV: 14 bytes only", env[14], 0xa5);
	/* o16 FNSAVE: 14 + 80 bytes, ST(0) at 14; then FNINIT; o16 FRSTOR back. */
	gmemset(env, 0xa5, sizeof(env));
	__asm__ volatile("fninit\n\tfld1\n\tfldz\n\tdata16 fnsave env" ::: "memory");
	check("o16 FNSAVE: ST(1) = 1.0 at 24", rd16(env, 14 + 10 + 8), 0x3fff);
	check("o16 FNSAVE: 94 bytes only", env[94], 0xa5);
	check("o16 FNSAVE then FNINIT: FSW = 0", fnstsw(), 0);
	__asm__ volatile("data16 frstor env" ::: "memory");
	check("o16 FRSTOR: TOP back to 6", (fnstsw() >> 11) & 7, 6);
	/* The loaded tag word only says "empty": R7 tagged zero in the image, but it
	 * holds 1.0, so FNSTENV reports it valid (SDM Vol.1 8.1.7). */
	__asm__ volatile("fninit\n\tfld1\n\tfnstenv env" ::: "memory");
	env[9] = 0x7f;                     /* R7 tag 01b (zero) */
	__asm__ volatile("fldenv env\n\tfnstenv env" ::: "memory");
	check_quirk("FLDENV tag 'zero' on 1.0: stored back as valid", rd16(env, 8), 0x3fff,
		    "QEMU TCG stores the tags it was given");
	__asm__ volatile("fninit");
}

/* ---- FNSTENV's masking, pending exceptions, CR0.NE (SDM Vol.1 8.6, 8.7) ---- */

static void do_fwait(void *p) { (void)p; __asm__ volatile(MARK "fwait"); }
static void do_fnop(void *p) { (void)p; __asm__ volatile(MARK "fnop"); }

static void test_pending(void)
{
	/* Unmasked overflow: the result's exponent is reduced by 24576 (6000H)
	 * and stored (SDM Vol.1 8.5.4.2): (2 - 2^-63)^2 has biased exponent
	 * 0BFFEH, stored as 5FFEH. */
	__asm__ volatile("fninit");
	fldcw(0x0377);                                  /* OM = 0 */
	push80(0xffffffff, 0xffffffff, 0x7ffe);
	__asm__ volatile("fmul %st(0), %st");
	uint16_t sw = fnstsw();
	check("unmasked #O: OE, PE, ES, B", sw & 0x80bf, 0x80a8);
	/* FNSAVE does not wait: ST(0) without #MF; FRSTOR (after FNSAVE's FNINIT
	 * nothing is pending) brings the state back, exception included. */
	__asm__ volatile("fnsave env\n\tfrstor env" ::: "memory");
	check_quirk("unmasked #O: exponent adjusted by 6000H", rd16(env, 28 + 8) & 0x7fff, 0x5ffe,
		    "QEMU TCG stores infinity");
	__asm__ volatile("fnstenv env" ::: "memory");
	/* FNSTENV masked everything: nothing pending, FWAIT runs; FLDENV brings the
	 * unmasked flag back and the next waiting instruction reports it. */
	if (!skip_quirk("FNSTENV ends the pending exception", "QEMU TCG keeps it pending")) {
		expect_no_fault("after FNSTENV: FWAIT runs", do_fwait, 0);
		__asm__ volatile("fldenv env" ::: "memory");
		expect_fault("after FLDENV: FNOP -> #MF", do_fnop, 0, 16, -1);
	}
	/* CR0.NE = 0: the PC-style FERR#/IGNNE# path; hvemu models IGNNE# asserted,
	 * QEMU raises IRQ 13 at the interrupt controller (masked here: IF = 0). */
	uint32_t c = cr0();
	set_cr0(c & ~CR0_NE);
	__asm__ volatile("fldenv env" ::: "memory");
	expect_no_fault("CR0.NE = 0: FWAIT with a pending exception continues", do_fwait, 0);
	set_cr0(c);
	__asm__ volatile("fnclex");
	expect_no_fault("after FNCLEX: FWAIT runs", do_fwait, 0);
	__asm__ volatile("fninit");
}

/* ---- last-instruction pointers (SDM Vol.1 8.1.8, 8.1.9) ---- */

static void test_pointers(void)
{
	uint32_t nop_at;
	uint16_t cw;
	__asm__ volatile("fninit\n\tfldl one\n\tmovl $1f, %0\n1:\tfnop\n\tfnstcw %1\n\tfnstenv env"
			 : "=r"(nop_at), "=m"(cw) :: "memory");
	check_ptr("FNOP is the last instruction (FIP)", rd32(env, 12), nop_at);
	check_ptr("FNOP: FOP = 1D0H", rd16(env, 18) & 0x7ff, 0x1d0);
	check_ptr("FNOP leaves FDP (no memory operand)", rd32(env, 20), (uint32_t)&one);
	__asm__ volatile("fninit");
	__asm__ volatile("fnstenv env" ::: "memory");
	check_ptr("FNINIT clears FIP", rd32(env, 12), 0);
	check_ptr("FNINIT clears FOP", rd16(env, 18) & 0x7ff, 0);
}

/* ---- real-address and virtual-8086 images (SDM Vol.1 Figures 8-10, 8-12) ---- */

/* At 1700H:0000H (linear 17000H): mov ax, 1000H; mov ds, ax; fninit;
 * fld qword [0100H] (DD 06, at IP 0007H: linear 17007H; operand at 10100H);
 * fnstenv [0200H]; o32 fnstenv [0300H]; fninit; retf. */
static const uint8_t real_code[] = {
	0xb8, 0x00, 0x10, 0x8e, 0xd8, 0xdb, 0xe3, 0xdd, 0x06, 0x00, 0x01, 0xd9, 0x36, 0x00, 0x02,
	0x66, 0xd9, 0x36, 0x00, 0x03, 0xdb, 0xe3, 0xcb,
};
/* In virtual-8086 mode at V86_CS:0 (linear 6000H): mov ax, 0700H; mov ds, ax;
 * fninit; fld qword [0100H] (at 6007H, operand at 7100H); fnstenv [0200H];
 * o32 fnstenv [0300H]; fninit; hlt (#GP ends the run). */
static const uint8_t v86_code[] = {
	0xb8, 0x00, 0x07, 0x8e, 0xd8, 0xdb, 0xe3, 0xdd, 0x06, 0x00, 0x01, 0xd9, 0x36, 0x00, 0x02,
	0x66, 0xd9, 0x36, 0x00, 0x03, 0xdb, 0xe3, 0xf4,
};

static void check_real_images(const char *mode, uint32_t data, uint32_t fip)
{
	const uint8_t *e16 = (const uint8_t *)(data + 0x200), *e32 = (const uint8_t *)(data + 0x300);
	uint32_t fdp = data + 0x100;
	gprintf("# %s mode images\n", mode);
	/* Figure 8-12: IP[15:0]; IP[19:16] in bits 15:12 with FOP; DP likewise. */
	check("16-bit: FCW", rd16(e16, 0), 0x037f);
	check_ptr("16-bit: FIP[15:0]", rd16(e16, 6), fip & 0xffff);
	check_ptr("16-bit: FIP[19:16], FOP 506H", rd16(e16, 8), ((fip >> 4) & 0xf000) | 0x506);
	check_ptr("16-bit: FDP[15:0]", rd16(e16, 10), fdp & 0xffff);
	check_ptr("16-bit: FDP[19:16]", rd16(e16, 12), (fdp >> 4) & 0xf000);
	/* Figure 8-10: IP[31:16] and DP[31:16] in bits 27:12. */
	check_ptr("32-bit: FIP[15:0]", rd16(e32, 12), fip & 0xffff);
	check_ptr("32-bit: FIP[31:16], FOP", rd32(e32, 16), ((fip & 0xffff0000) >> 4) | 0x506);
	check_ptr("32-bit: FDP[15:0]", rd16(e32, 20), fdp & 0xffff);
	check_ptr("32-bit: FDP[31:16]", rd32(e32, 24), (fdp & 0xffff0000) >> 4);
}

static void test_env_real(void)
{
	gmemcpy((void *)0x17000, real_code, sizeof(real_code));
	gmemset((void *)0x10200, 0, 0x200);
	*(volatile uint64_t *)0x10100 = 0x3ff0000000000000ull;
	realmode_call(0, 0x1700, 0);
	check_real_images("real-address", 0x10000, 0x17007);
	*(volatile uint64_t *)0x7100 = 0x3ff0000000000000ull;
	gmemset((void *)0x7200, 0, 0x200);
	check("v8086: the run ends at HLT with #GP", v86_run(v86_code, sizeof(v86_code), 0), 13);
	check_real_images("virtual-8086", 0x7000, (V86_CS << 4) + 7);
}

/* ---- reserved encodings (SDM Vol.2 Tables A-7..A-22, blank cells) ---- */

static void do_reserved(void *p) { (void)p; __asm__ volatile(MARK ".byte 0xd9, 0xd1"); }
static void do_reserved_mem(void *p) { (void)p; __asm__ volatile(MARK ".byte 0xd9, 0x08" :: "a"(env)); }

static void test_reserved(void)
{
	__asm__ volatile("fninit");
	expect_fault("D9 D1 (reserved): #UD", do_reserved, 0, 6, -1);
	expect_fault("D9 /1 m (reserved): #UD", do_reserved_mem, 0, 6, -1);
	uint32_t c = cr0();
	set_cr0(c | CR0_TS);
	check("D9 D1 with CR0.TS: #NM before #UD", (uint32_t)trap_catch(do_reserved, 0), 7);
	set_cr0(c);
	__asm__ volatile("clts");
}

void guest_main(void)
{
	uint32_t a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	check("CPUID.1:EDX.FPU", d & 1, 1);
	set_cr0((cr0() | CR0_MP | CR0_NE) & ~(CR0_EM | CR0_TS));
	test_constants();
	test_bcd();
	test_reductions();
	test_trig();
	test_cpuid_gated();
	test_env_pm();
	test_pending();
	test_pointers();
	test_env_real();
	test_reserved();
	tap_finish();
}
