/* Check suite for the FPU/SSE state (emu/fpu_state.h, emu/xsave.c, emu/x87.c,
 * emu/sse.c): FXSAVE image byte offsets against SDM Vol.1 Table 10-2, tag word
 * abridging (10.5.1.1), XCR0 rules (Vol.2 XSETBV, Vol.1 13.3), RESET state (Vol.3
 * Table 9-1), and short real-mode programs run on a CPU over a fake physmem
 * (bytes assembled with GNU as, source beside each); SSE floating point
 * (emu/sse_fp.c): results, MXCSR flags, DAZ/FTZ, #XM/#UD ordering. */
#include <string.h>

#include "emu/flags.h"
#include "emu/fpu_state.h"
#include "machine_fixture.h"
#include "suite_runner.h"

#define CODE_BASE 0x1000
#define DATA_BASE 0x2000
#define HANDLERS  0x3000      /* vector v: one HLT at HANDLERS + 4*v */

/* Real mode over 1 MiB, CS:IP = 0:CODE_BASE; the IVT sends vector v to the HLT
 * at HANDLERS + 4*v. */
static void real_mode_machine_of(struct test_machine *m, const struct cpu_model *model)
{
	machine_init_bare(m, model, 1u << 20);
	struct cpu *c = &m->cpu;
	for (unsigned v = 0; v < 32; v++) {
		physmem_write(&m->pm, v * 4, 4, (uint32_t)(HANDLERS + v * 4));
		physmem_write(&m->pm, HANDLERS + v * 4, 1, 0xf4);
	}
	c->seg[SR_CS].selector = 0;
	c->seg[SR_CS].base = 0;
	seg_refresh(&c->seg[SR_CS]);
	c->rip = CODE_BASE;
	c->regs[R_SP] = 0x8000;
	c->idtr.limit = 0x3ff;
}
static void real_mode_machine(struct test_machine *m, const char *model)
{
	real_mode_machine_of(m, model_named(model));
}

/* Run code to HLT; returns the vector whose handler halted, or -1. */
static int run(struct test_machine *m, const uint8_t *code, size_t len)
{
	struct cpu *c = &m->cpu;
	physmem_write_bytes(&m->pm, CODE_BASE, code, len);
	cpu_notify_phys_write(c, CODE_BASE, (unsigned)len);
	c->rip = CODE_BASE;
	c->icount_limit = c->icount + 200;
	status_t st = cpu_run(c);
	ck_assert_int_eq(st, ST_HALT);
	uint64_t lin = c->seg[SR_CS].base + c->rip - 1;
	if (lin >= HANDLERS && lin < HANDLERS + 32 * 4)
		return (int)((lin - HANDLERS) / 4);
	return -1;
}
#define RUN(m, ...) run((m), (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

START_TEST(reset_state)
{
	struct test_machine m;
	real_mode_machine(&m, "core2");
	/* SDM Vol.3 9.1.1 Table 9-1. */
	ck_assert_uint_eq(m.cpu.fpu.fcw, 0x0040);
	ck_assert_uint_eq(m.cpu.fpu.fsw, 0);
	ck_assert_uint_eq(m.cpu.fpu.ftw, 0x5555);
	ck_assert_uint_eq(m.cpu.fpu.mxcsr, 0x1f80);
	ck_assert_uint_eq(m.cpu.xcr0, 1);
	machine_free(&m);
}
END_TEST

START_TEST(fxsave_offsets)
{
	struct fpu_state f;
	fpu_reset(&f);
	fpu_init_x87(&f);
	f.fcw = 0x027f;
	f.fsw = 6u << 11;                 /* TOP = 6 */
	f.ftw = 0x1fff;                   /* R7 valid, R6 zero, others empty */
	f.r[7] = (struct fpu_reg){ 0x8000000000000000ull, 0x3fff };
	f.r[6] = (struct fpu_reg){ 0, 0 };
	f.fop = 0x1ee;
	f.fip = 0x12345678;
	f.fcs = 0x0008;
	f.fdp = 0x9abcdef0;
	f.fds = 0x0010;
	f.mxcsr = 0x9f80;
	for (unsigned i = 0; i < 16; i++)
		memset(f.xmm[i].b, 0x40 + i, 16);

	uint8_t img[512];
	memset(img, 0xa5, sizeof(img));
	fxsave_to_image(&f, (struct fxsave_area *)img, 8, 0, XSTATE_X87 | XSTATE_SSE);
	/* SDM Vol.1 Table 10-2, byte by byte. */
	ck_assert_uint_eq(img[0] | img[1] << 8, 0x027f);          /* FCW */
	ck_assert_uint_eq(img[2] | img[3] << 8, 0x3000);          /* FSW */
	ck_assert_uint_eq(img[4], 0xc0);                          /* abridged FTW */
	ck_assert_uint_eq(img[6] | img[7] << 8, 0x1ee);           /* FOP */
	ck_assert_uint_eq(img[8] | img[9] << 8 | img[10] << 16 | (uint32_t)img[11] << 24, 0x12345678);
	ck_assert_uint_eq(img[12] | img[13] << 8, 0x0008);        /* FCS */
	ck_assert_uint_eq(img[16] | img[17] << 8 | img[18] << 16 | (uint32_t)img[19] << 24, 0x9abcdef0);
	ck_assert_uint_eq(img[20] | img[21] << 8, 0x0010);        /* FDS */
	ck_assert_uint_eq(img[24] | img[25] << 8, 0x9f80);        /* MXCSR */
	ck_assert_uint_eq(img[28] | img[29] << 8, 0xffff);        /* MXCSR_MASK */
	for (unsigned i = 0; i < 10; i++)
		ck_assert_uint_eq(img[32 + i], 0);                    /* ST0 = +0.0 */
	ck_assert_uint_eq(img[48 + 7], 0x80);                     /* ST1 J bit */
	ck_assert_uint_eq(img[48 + 8] | img[48 + 9] << 8, 0x3fff);
	ck_assert_uint_eq(img[160], 0x40);                        /* XMM0 */
	ck_assert_uint_eq(img[272 + 15], 0x47);                   /* XMM7 */
	ck_assert_uint_eq(img[288], 0xa5);                        /* XMM8: not in 32-bit modes */
	ck_assert_uint_eq(img[464], 0xa5);                        /* available to software */

	/* 64-bit format (REX.W): FIP and FDP 8 bytes at 8 and 16 (Table 10-3). */
	f.fip = 0x1122334455667788ull;
	fxsave_to_image(&f, (struct fxsave_area *)img, 16, 1, XSTATE_X87 | XSTATE_SSE);
	ck_assert_uint_eq(img[8], 0x88);
	ck_assert_uint_eq(img[15], 0x11);
	ck_assert_uint_eq(img[400], 0x4f);                        /* XMM15 */

	/* Round trip, then a reserved MXCSR bit is refused with nothing loaded. */
	struct fpu_state g;
	memset(&g, 0, sizeof(g));
	ck_assert(fxsave_from_image(&g, (struct fxsave_area *)img, 16, 1, XSTATE_X87 | XSTATE_SSE));
	ck_assert_uint_eq(g.ftw, 0x1fff);
	ck_assert_uint_eq(g.r[7].sexp, 0x3fff);
	ck_assert_uint_eq(g.mxcsr, 0x9f80);
	img[26] = 1;                                              /* MXCSR bit 16 */
	g.mxcsr = 0x1f80;
	ck_assert(!fxsave_from_image(&g, (struct fxsave_area *)img, 16, 1, XSTATE_X87 | XSTATE_SSE));
	ck_assert_uint_eq(g.mxcsr, 0x1f80);
}
END_TEST

START_TEST(tags)
{
	struct fpu_reg r[8];
	memset(r, 0, sizeof(r));
	r[1] = (struct fpu_reg){ 0x8000000000000000ull, 0x3fff };   /* valid */
	r[2] = (struct fpu_reg){ 0xc000000000000000ull, 0x7fff };   /* NaN: special */
	r[3] = (struct fpu_reg){ 1, 0 };                            /* denormal: special */
	r[4] = (struct fpu_reg){ 0x4000000000000000ull, 0x3fff };   /* unnormal: special */
	ck_assert_uint_eq(fpu_tag_of(&r[0]), TAG_ZERO);
	ck_assert_uint_eq(fpu_tag_of(&r[1]), TAG_VALID);
	ck_assert_uint_eq(fpu_tag_of(&r[2]), TAG_SPECIAL);
	ck_assert_uint_eq(fpu_tag_of(&r[3]), TAG_SPECIAL);
	ck_assert_uint_eq(fpu_tag_of(&r[4]), TAG_SPECIAL);
	ck_assert_uint_eq(fpu_tag_abridge(0xffff), 0);
	ck_assert_uint_eq(fpu_tag_abridge(0x5555), 0xff);
	ck_assert_uint_eq(fpu_tag_abridge(0x3fff), 0x00 | 0x80 | 0x00);   /* only R7 tagged 00 */
	/* Expand: empty where the bit is clear, else from the contents. */
	ck_assert_uint_eq(fpu_tag_expand(0x1f, r), 0xfc00 | 2u << 8 | 2u << 6 | 2u << 4 | 0u << 2 | 1u);
}
END_TEST

START_TEST(xcr0_rules)
{
	ck_assert(xcr0_valid(1, XSTATE_SUPPORTED));
	ck_assert(xcr0_valid(3, XSTATE_SUPPORTED));
	ck_assert(!xcr0_valid(0, XSTATE_SUPPORTED));     /* x87 bit must be 1 */
	ck_assert(!xcr0_valid(2, XSTATE_SUPPORTED));
	ck_assert(xcr0_valid(7, XSTATE_SUPPORTED));      /* AVX implemented */
	ck_assert(!xcr0_valid(7, XSTATE_X87 | XSTATE_SSE)); /* a model without AVX */
	ck_assert(!xcr0_valid(5, 7));                    /* AVX without SSE */
	ck_assert(xcr0_valid(7, 7));
	ck_assert(!xcr0_valid(1ull << 32 | 1, XSTATE_SUPPORTED));
}
END_TEST

START_TEST(x87_program)
{
	struct test_machine m;
	real_mode_machine(&m, "core2");
	/* fninit; fld1; fld1; faddp; fstpl [0x2000]; fnstsw [0x2010]; hlt */
	ck_assert_int_eq(RUN(&m, 0xdb, 0xe3, 0xd9, 0xe8, 0xd9, 0xe8, 0xde, 0xc1, 0xdd, 0x1e, 0x00, 0x20,
			     0xdd, 0x3e, 0x10, 0x20, 0xf4), -1);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA_BASE, 8), 0x4000000000000000ull);   /* 2.0 */
	ck_assert_uint_eq(physmem_read(&m.pm, DATA_BASE + 0x10, 2), 0);                /* TOP 0, no flags */
	ck_assert_uint_eq(m.cpu.fpu.ftw, 0xffff);
	/* CR0.TS: fld1 -> #NM (SDM Vol.3 2.5 Table 2-2). */
	m.cpu.cr0 |= CR0_TS;
	ck_assert_int_eq(RUN(&m, 0xd9, 0xe8, 0xf4), 7);
	machine_free(&m);
}
END_TEST

/* ---- the x87 (emu/x87.c, x87_env.c, x87_host.c): values from the SDM ---- */

#define J 0x8000000000000000ull      /* the integer bit */
#define CW_NEAR 0x037f

static struct fpu_reg st_of(const struct fpu_state *f, unsigned i) { return f->r[((f->fsw >> 11) + i) & 7]; }

/* Push a value as FLD would (tag from the contents). */
static void x87_push(struct fpu_state *f, uint64_t mant, uint16_t sexp)
{
	unsigned top = ((f->fsw >> 11) - 1u) & 7;
	f->fsw = (uint16_t)((f->fsw & ~FSW_TOP_MASK) | top << 11);
	f->r[top] = (struct fpu_reg){ mant, sexp };
	f->ftw = (uint16_t)((f->ftw & ~(3u << 2 * top)) | fpu_tag_of(&f->r[top]) << 2 * top);
}

static void x87_fresh(struct fpu_state *f, uint16_t fcw)
{
	fpu_init_x87(f);
	f->fcw = fcw;
}

#define ck_st(f, i, m, e) do { \
	struct fpu_reg r_ = st_of((f), (i)); \
	ck_assert_uint_eq(r_.mant, (m)); \
	ck_assert_uint_eq(r_.sexp, (e)); \
} while (0)

START_TEST(x87_constants)
{
	/* SDM Vol.1 8.3.8: FLDPI, FLDL2T, FLDL2E, FLDLG2 and FLDLN2 load the
	 * constant rounded to 64 bits by RC (the P6 family and later); the bits
	 * past the 64th: pi C4C6.., log2(10) 492B.., log2(e) BE87.., log10(2)
	 * 8F89.., ln(2) C9E3..: only log2(10) rounds down to nearest. */
	static const struct { uint8_t modrm; uint16_t sexp; uint64_t down; bool nearest_up; } k[] = {
		{ 0xeb, 0x4000, 0xc90fdaa22168c234ull, true },     /* FLDPI */
		{ 0xe9, 0x4000, 0xd49a784bcd1b8afeull, false },    /* FLDL2T */
		{ 0xea, 0x3fff, 0xb8aa3b295c17f0bbull, true },     /* FLDL2E */
		{ 0xec, 0x3ffd, 0x9a209a84fbcff798ull, true },     /* FLDLG2 */
		{ 0xed, 0x3ffe, 0xb17217f7d1cf79abull, true },     /* FLDLN2 */
	};
	struct test_machine m;
	real_mode_machine(&m, "core2");
	struct fpu_state *f = &m.cpu.fpu;
	for (unsigned rc = 0; rc < 4; rc++)
		for (unsigned i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
			x87_fresh(f, (uint16_t)(CW_NEAR | rc << 10));
			ck_assert_int_eq(RUN(&m, 0xd9, k[i].modrm, 0xf4), -1);
			bool up = rc == 2 || (rc == 0 && k[i].nearest_up);
			ck_st(f, 0, k[i].down + up, k[i].sexp);
		}
	/* FLD1 and FLDZ are exact. */
	x87_fresh(f, CW_NEAR);
	ck_assert_int_eq(RUN(&m, 0xd9, 0xe8, 0xd9, 0xee, 0xf4), -1);
	ck_st(f, 0, 0, 0);
	ck_st(f, 1, J, 0x3fff);
	ck_assert_uint_eq(f->ftw, 0x1fff);                         /* R7 valid, R6 zero */
	machine_free(&m);
}
END_TEST

START_TEST(x87_bcd)
{
	struct test_machine m;
	real_mode_machine(&m, "core2");
	struct fpu_state *f = &m.cpu.fpu;
	/* FBSTP [2000H] (DF 36 00 20): 1234.0 -> digits 34 12, sign byte 0
	 * (SDM Vol.1 4.7, Figure 4-10). */
	x87_fresh(f, CW_NEAR);
	x87_push(f, 0x9a40000000000000ull, 0x4009);
	ck_assert_int_eq(RUN(&m, 0xdf, 0x36, 0x00, 0x20, 0xf4), -1);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA_BASE, 8), 0x1234);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA_BASE + 8, 2), 0);
	ck_assert_uint_eq(f->ftw, 0xffff);                          /* popped */
	/* -1234.0: sign in byte 9 bit 7. */
	x87_push(f, 0x9a40000000000000ull, 0xc009);
	ck_assert_int_eq(RUN(&m, 0xdf, 0x36, 0x00, 0x20, 0xf4), -1);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA_BASE + 8, 2), 0x8000);
	/* 2.5 rounds to nearest even: 2, with #P (SDM Vol.2 FBSTP). */
	x87_push(f, 0xa000000000000000ull, 0x4000);
	ck_assert_int_eq(RUN(&m, 0xdf, 0x36, 0x00, 0x20, 0xf4), -1);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA_BASE, 8), 2);
	ck_assert_uint_eq(f->fsw & FSW_EXC, FSW_PE);
	/* 10^18 needs 19 digits: #IA; masked, the packed BCD indefinite
	 * FFFFC000000000000000H is stored (SDM Vol.2 FBSTP, Vol.1 4.8.3.7). FILD
	 * m64int [2010H] (DF 2E 10 20) loads it. */
	x87_fresh(f, CW_NEAR);
	physmem_write(&m.pm, DATA_BASE + 0x10, 8, 1000000000000000000ull);
	ck_assert_int_eq(RUN(&m, 0xdf, 0x2e, 0x10, 0x20, 0xdf, 0x36, 0x00, 0x20, 0xf4), -1);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA_BASE, 8), 0xc000000000000000ull);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA_BASE + 8, 2), 0xffff);
	ck_assert_uint_eq(f->fsw & FSW_EXC, FSW_IE);
	/* Unmasked, nothing is stored and nothing popped (SDM Vol.1 8.5.1.2). */
	physmem_write(&m.pm, DATA_BASE, 8, 0x5555);
	x87_fresh(f, CW_NEAR & ~FCW_IM);
	ck_assert_int_eq(RUN(&m, 0xdf, 0x2e, 0x10, 0x20, 0xdf, 0x36, 0x00, 0x20, 0xf4), -1);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA_BASE, 8), 0x5555);
	ck_assert_uint_eq(f->fsw & (FSW_IE | FSW_ES | FSW_B), FSW_IE | FSW_ES | FSW_B);
	ck_assert_uint_eq(f->ftw, 0x3fff);
	/* FBLD [2020H] (DF 26 20 20) of 18 nines: 999999999999999999.0 = DE0B6B3A763FFFFH << 4,
	 * exponent 59. */
	x87_fresh(f, CW_NEAR);
	physmem_write(&m.pm, DATA_BASE + 0x20, 8, 0x9999999999999999ull);
	physmem_write(&m.pm, DATA_BASE + 0x28, 2, 0x0099);
	ck_assert_int_eq(RUN(&m, 0xdf, 0x26, 0x20, 0x20, 0xf4), -1);
	ck_st(f, 0, 0xde0b6b3a763ffffull << 4, 16383 + 59);
	machine_free(&m);
}
END_TEST

START_TEST(x87_reductions)
{
	struct test_machine m;
	real_mode_machine(&m, "core2");
	struct fpu_state *f = &m.cpu.fpu;
	/* FXTRACT (D9 F4) of +0.0: #Z; masked, ST(1) = -inf and ST(0) = +0.0
	 * (SDM Vol.2 FXTRACT). */
	x87_fresh(f, CW_NEAR);
	x87_push(f, 0, 0);
	ck_assert_int_eq(RUN(&m, 0xd9, 0xf4, 0xf4), -1);
	ck_st(f, 0, 0, 0);
	ck_st(f, 1, J, 0xffff);
	ck_assert_uint_eq(f->fsw & FSW_EXC, FSW_ZE);
	/* FXTRACT of 12.0 = 1.5 * 2^3: ST(0) = 1.5, ST(1) = 3.0. */
	x87_fresh(f, CW_NEAR);
	x87_push(f, 0xc000000000000000ull, 0x4002);
	ck_assert_int_eq(RUN(&m, 0xd9, 0xf4, 0xf4), -1);
	ck_st(f, 0, 0xc000000000000000ull, 0x3fff);
	ck_st(f, 1, 0xc000000000000000ull, 0x4000);
	/* FPREM (D9 F8): 7 rem 3 = 1, quotient 2 = 010b: C0 = Q2 = 0, C3 = Q1 = 1,
	 * C1 = Q0 = 0, C2 = 0 (complete) (SDM Vol.2 FPREM). */
	x87_fresh(f, CW_NEAR);
	x87_push(f, 0xc000000000000000ull, 0x4000);                /* 3 */
	x87_push(f, 0xe000000000000000ull, 0x4001);                /* 7 */
	ck_assert_int_eq(RUN(&m, 0xd9, 0xf8, 0xf4), -1);
	ck_st(f, 0, J, 0x3fff);
	ck_assert_uint_eq(f->fsw & (FSW_C0 | FSW_C1 | FSW_C2 | FSW_C3), FSW_C3);
	/* 2^100 rem 3: exponents 64 or more apart, only a partial remainder: C2 = 1. */
	x87_fresh(f, CW_NEAR);
	x87_push(f, 0xc000000000000000ull, 0x4000);
	x87_push(f, J, 16383 + 100);
	ck_assert_int_eq(RUN(&m, 0xd9, 0xf8, 0xf4), -1);
	ck_assert_uint_eq(f->fsw & FSW_C2, FSW_C2);
	/* FPREM1 (D9 F5): 8 rem 3 rounds the quotient to nearest: 3, remainder -1;
	 * Q1 = C3 = 1, Q0 = C1 = 1 (SDM Vol.2 FPREM1). */
	x87_fresh(f, CW_NEAR);
	x87_push(f, 0xc000000000000000ull, 0x4000);
	x87_push(f, J, 0x4002);
	ck_assert_int_eq(RUN(&m, 0xd9, 0xf5, 0xf4), -1);
	ck_st(f, 0, J, 0xbfff);
	ck_assert_uint_eq(f->fsw & (FSW_C0 | FSW_C1 | FSW_C2 | FSW_C3), FSW_C3 | FSW_C1);
	/* FSCALE (D9 FD): 1.5 * 2^trunc(3.75) = 12.0 (SDM Vol.2 FSCALE: ST(1) is
	 * truncated toward 0). */
	x87_fresh(f, CW_NEAR);
	x87_push(f, 0xf000000000000000ull, 0x4000);                /* 3.75 */
	x87_push(f, 0xc000000000000000ull, 0x3fff);                /* 1.5 */
	ck_assert_int_eq(RUN(&m, 0xd9, 0xfd, 0xf4), -1);
	ck_st(f, 0, 0xc000000000000000ull, 0x4002);
	/* FRNDINT (D9 FC) by RC = up: 2.25 -> 3.0. */
	x87_fresh(f, CW_NEAR | 2u << 10);
	x87_push(f, 0x9000000000000000ull, 0x4000);
	ck_assert_int_eq(RUN(&m, 0xd9, 0xfc, 0xf4), -1);
	ck_st(f, 0, 0xc000000000000000ull, 0x4000);
	machine_free(&m);
}
END_TEST

START_TEST(x87_transcendental)
{
	struct test_machine m;
	real_mode_machine(&m, "core2");
	struct fpu_state *f = &m.cpu.fpu;
	/* FSIN, FCOS, FPTAN, FSINCOS of 2^64, outside -2^63..+2^63: C2 = 1, ST(0)
	 * unchanged, nothing pushed (SDM Vol.2 FSIN, FCOS, FPTAN, FSINCOS). */
	static const uint8_t trig[] = { 0xfe, 0xff, 0xf2, 0xfb };
	for (unsigned i = 0; i < sizeof(trig); i++) {
		x87_fresh(f, CW_NEAR);
		x87_push(f, J, 16383 + 64);
		ck_assert_int_eq(RUN(&m, 0xd9, trig[i], 0xf4), -1);
		ck_assert_uint_eq(f->fsw & (FSW_C2 | FSW_TOP_MASK), FSW_C2 | 7u << 11);
		ck_st(f, 0, J, 16383 + 64);
	}
	/* FPTAN of +0: tan = +0, then 1.0 pushed, C2 = 0. */
	x87_fresh(f, CW_NEAR);
	x87_push(f, 0, 0);
	ck_assert_int_eq(RUN(&m, 0xd9, 0xf2, 0xf4), -1);
	ck_st(f, 0, J, 0x3fff);
	ck_st(f, 1, 0, 0);
	ck_assert_uint_eq(f->fsw & FSW_C2, 0);
	/* FSINCOS of +0: ST(1) = sin = +0, ST(0) = cos = 1.0. */
	x87_fresh(f, CW_NEAR);
	x87_push(f, 0, 0);
	ck_assert_int_eq(RUN(&m, 0xd9, 0xfb, 0xf4), -1);
	ck_st(f, 0, J, 0x3fff);
	ck_st(f, 1, 0, 0);
	/* FYL2X (D9 F1): 3 * log2(8) = 9, popped once. */
	x87_fresh(f, CW_NEAR);
	x87_push(f, 0xc000000000000000ull, 0x4000);
	x87_push(f, J, 0x4002);
	ck_assert_int_eq(RUN(&m, 0xd9, 0xf1, 0xf4), -1);
	ck_st(f, 0, 0x9000000000000000ull, 0x4002);
	ck_assert_uint_eq((f->fsw >> 11) & 7, 7);
	/* F2XM1 (D9 F0) of 1.0: 2^1 - 1 = 1.0; FYL2XP1 (D9 F9) of +0 with ST(1) =
	 * 5: 5 * log2(1 + 0) = +0; FPATAN (D9 F3) of ST(1) = +0, ST(0) = 1: +0. */
	x87_fresh(f, CW_NEAR);
	x87_push(f, J, 0x3fff);
	ck_assert_int_eq(RUN(&m, 0xd9, 0xf0, 0xf4), -1);
	ck_st(f, 0, J, 0x3fff);
	x87_fresh(f, CW_NEAR);
	x87_push(f, 0xa000000000000000ull, 0x4001);
	x87_push(f, 0, 0);
	ck_assert_int_eq(RUN(&m, 0xd9, 0xf9, 0xf4), -1);
	ck_st(f, 0, 0, 0);
	x87_fresh(f, CW_NEAR);
	x87_push(f, 0, 0);
	x87_push(f, J, 0x3fff);
	ck_assert_int_eq(RUN(&m, 0xd9, 0xf3, 0xf4), -1);
	ck_st(f, 0, 0, 0);
	machine_free(&m);
}
END_TEST

START_TEST(x87_exceptions)
{
	struct test_machine m;
	real_mode_machine(&m, "core2");
	struct fpu_state *f = &m.cpu.fpu;
	m.cpu.cr0 |= CR0_NE;
	/* FMUL ST(0), ST(0) (D8 C8) of the largest finite value with #O unmasked:
	 * the result is stored with its exponent reduced by 24576 (6000H, SDM Vol.1
	 * 8.5.4.2): (2 - 2^-63)^2 is below 4, biased exponent 0BFFEH, so 5FFEH; OE
	 * and PE (rounded), ES and B set. */
	x87_fresh(f, CW_NEAR & ~FCW_OM);
	x87_push(f, ~0ull, 0x7ffe);
	ck_assert_int_eq(RUN(&m, 0xd8, 0xc8, 0xf4), -1);
	ck_assert_uint_eq(st_of(f, 0).sexp, 0x5ffe);
	ck_assert_uint_eq(f->fsw & (FSW_EXC | FSW_ES | FSW_B), FSW_OE | FSW_PE | FSW_ES | FSW_B);
	/* The next waiting instruction (FNOP, D9 D0) reports it: #MF with CR0.NE =
	 * 1 (SDM Vol.1 8.6); FNCLEX (DB E2) does not wait. */
	ck_assert_int_eq(RUN(&m, 0xd9, 0xd0, 0xf4), 16);
	ck_assert_int_eq(RUN(&m, 0xdb, 0xe2, 0xd9, 0xd0, 0xf4), -1);
	/* With CR0.NE = 0 hvemu models IGNNE# asserted: no exception (emu/fpu.h). */
	m.cpu.cr0 &= ~(uint64_t)CR0_NE;
	x87_push(f, ~0ull, 0x7ffe);
	ck_assert_int_eq(RUN(&m, 0xd8, 0xc8, 0xd9, 0xd0, 0x9b, 0xf4), -1);
	m.cpu.cr0 |= CR0_NE;
	/* FDIV ST(0), ST(1) (D8 F1) by zero with #Z unmasked: ST(0) unchanged. */
	x87_fresh(f, CW_NEAR & ~FCW_ZM);
	x87_push(f, 0, 0);
	x87_push(f, J, 0x3fff);
	ck_assert_int_eq(RUN(&m, 0xd8, 0xf1, 0xf4), -1);
	ck_st(f, 0, J, 0x3fff);
	ck_assert_uint_eq(f->fsw & FSW_EXC, FSW_ZE);
	/* FSTP m32fp [2000H] (D9 1E 00 20) of an SNaN, #IA unmasked: memory and
	 * stack unchanged (SDM Vol.1 8.5.1.2). Masked: the QNaN 7FE00000H, popped. */
	physmem_write(&m.pm, DATA_BASE, 4, 0x12345678);
	x87_fresh(f, CW_NEAR & ~FCW_IM);
	x87_push(f, 0xa000000000000000ull, 0x7fff);
	ck_assert_int_eq(RUN(&m, 0xd9, 0x1e, 0x00, 0x20, 0xf4), -1);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA_BASE, 4), 0x12345678);
	ck_assert_uint_eq((f->fsw >> 11) & 7, 7);
	f->fcw = CW_NEAR;
	f->fsw &= (uint16_t)~(FSW_EXC | FSW_ES | FSW_B);
	ck_assert_int_eq(RUN(&m, 0xd9, 0x1e, 0x00, 0x20, 0xf4), -1);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA_BASE, 4), 0x7fe00000);
	ck_assert_uint_eq(f->ftw, 0xffff);
	/* Stack faults (SDM Vol.1 8.5.1.1): FADD ST(0), ST(1) (D8 C1) with ST(1)
	 * empty: IE and SF, C1 = 0, ST(0) = the indefinite. FPTAN with ST(7) in
	 * use: IE and SF with C1 = 1. */
	x87_fresh(f, CW_NEAR);
	x87_push(f, J, 0x3fff);
	ck_assert_int_eq(RUN(&m, 0xd8, 0xc1, 0xf4), -1);
	ck_assert_uint_eq(f->fsw & (FSW_EXC | FSW_SF | FSW_C1), FSW_IE | FSW_SF);
	ck_st(f, 0, 0xc000000000000000ull, 0xffff);
	x87_fresh(f, CW_NEAR);
	for (unsigned i = 0; i < 8; i++)
		x87_push(f, J, 0x3fff);
	ck_assert_int_eq(RUN(&m, 0xd9, 0xf2, 0xf4), -1);
	ck_assert_uint_eq(f->fsw & (FSW_EXC | FSW_SF | FSW_C1), FSW_IE | FSW_SF | FSW_C1);
	machine_free(&m);
}
END_TEST

/* core2 reporting SSE3 (CPUID.01H:ECX[0]), for FISTTP. */
static struct cpu_model sse3_model;
static struct cpuid_leaf sse3_leaves[64];
static const struct cpu_model *core2_sse3(void)
{
	const struct cpu_model *base = model_named("core2");
	ck_assert_uint_le(base->cpuid_count, 64);
	sse3_model = *base;
	memcpy(sse3_leaves, base->cpuid, base->cpuid_count * sizeof(sse3_leaves[0]));
	for (unsigned i = 0; i < base->cpuid_count; i++)
		if (sse3_leaves[i].leaf == 1)
			sse3_leaves[i].ecx |= 1;
	sse3_model.cpuid = sse3_leaves;
	return &sse3_model;
}

/* EMMS (SDM Vol.2 EMMS): all tags empty; #UD with CR0.EM, #NM with CR0.TS.
 * PREFETCH/PREFETCHW (0F 0D /0, /1; APM3): a hint, no access even to an
 * address beyond the segment limit; the register form is #UD. */
START_TEST(emms_and_prefetch)
{
	struct test_machine m;
	machine_init(&m, "epyc-lite");
	x87_fresh(&m.cpu.fpu, CW_NEAR);
	x87_push(&m.cpu.fpu, J, 0x3fff);
	ck_assert_uint_ne(m.cpu.fpu.ftw, 0xffff);
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x77), ST_OK);
	ck_assert_uint_eq(m.cpu.fpu.ftw, 0xffff);
	m.cpu.cr0 |= CR0_TS;
	assert_fault(&m, EXEC(&m, 0x0f, 0x77), EXC_NM, 0);
	m.cpu.cr0 = (m.cpu.cr0 & ~(uint64_t)CR0_TS) | CR0_EM;
	assert_ud(&m, EXEC(&m, 0x0f, 0x77));
	m.cpu.cr0 &= ~(uint64_t)CR0_EM;
	m.cpu.regs[R_AX] = 0xfffffff0u;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x0d, 0x08), ST_OK);       /* PREFETCHW [EAX] */
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x0d, 0x00), ST_OK);       /* PREFETCH [EAX] */
	assert_ud(&m, EXEC(&m, 0x0f, 0x0d, 0xc8));                 /* register form */
	machine_free(&m);
}
END_TEST

START_TEST(x87_gates)
{
	struct test_machine m;
	/* FISTTP m16int [2000H] (DF 0E 00 20): #UD without SSE3 (SDM Vol.2 FISTTP);
	 * pentium has the x87 but not SSE3. */
	real_mode_machine(&m, "pentium");
	x87_fresh(&m.cpu.fpu, CW_NEAR);
	x87_push(&m.cpu.fpu, 0xad00000000000000ull, 0xc000);       /* -2.703125 */
	ck_assert_int_eq(RUN(&m, 0xdf, 0x0e, 0x00, 0x20, 0xf4), 6);
	machine_free(&m);
	/* With SSE3: truncated whatever RC says (here nearest): -2, popped; PE. */
	real_mode_machine_of(&m, core2_sse3());
	x87_fresh(&m.cpu.fpu, CW_NEAR);
	x87_push(&m.cpu.fpu, 0xad00000000000000ull, 0xc000);
	ck_assert_int_eq(RUN(&m, 0xdf, 0x0e, 0x00, 0x20, 0xf4), -1);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA_BASE, 2), 0xfffe);
	ck_assert_uint_eq(m.cpu.fpu.ftw, 0xffff);
	ck_assert_uint_eq(m.cpu.fpu.fsw & FSW_EXC, FSW_PE);
	machine_free(&m);
	/* FCMOVB (DA C1) and FCOMI (DB F1) need CMOV: #UD on the pentium model. */
	real_mode_machine(&m, "pentium");
	x87_fresh(&m.cpu.fpu, CW_NEAR);
	x87_push(&m.cpu.fpu, J, 0x3fff);
	x87_push(&m.cpu.fpu, J, 0x3fff);
	ck_assert_int_eq(RUN(&m, 0xda, 0xc1, 0xf4), 6);
	ck_assert_int_eq(RUN(&m, 0xdb, 0xf1, 0xf4), 6);
	machine_free(&m);
	real_mode_machine(&m, "core2");
	struct fpu_state *f = &m.cpu.fpu;
	x87_fresh(f, CW_NEAR);
	x87_push(f, J, 0x4000);                                     /* 2 */
	x87_push(f, J, 0x3fff);                                     /* 1 */
	ck_assert_int_eq(RUN(&m, 0xdb, 0xf1, 0xf4), -1);            /* FCOMI: 1 < 2 -> CF */
	ck_assert_uint_eq(cpu_get_flags(&m.cpu) & FLAGS_ARITH, FLAG_CF);
	ck_assert_int_eq(RUN(&m, 0xda, 0xc1, 0xf4), -1);            /* FCMOVB ST(0), ST(1): taken */
	ck_st(f, 0, J, 0x4000);
	/* Reserved cells (SDM Vol.2 Table A-10 D9 D1, Table A-9 D9 /1 m): #UD, even
	 * with an unmasked exception pending (as the host); #NM first with CR0.TS. */
	m.cpu.cr0 |= CR0_NE;
	ck_assert_int_eq(RUN(&m, 0xd9, 0xd1, 0xf4), 6);
	ck_assert_int_eq(RUN(&m, 0xd9, 0x0e, 0x00, 0x20, 0xf4), 6);
	f->fsw |= FSW_ZE | FSW_ES | FSW_B;
	f->fcw &= (uint16_t)~FCW_ZM;
	ck_assert_int_eq(RUN(&m, 0xd9, 0xd1, 0xf4), 6);
	ck_assert_int_eq(RUN(&m, 0xd9, 0xd0, 0xf4), 16);
	m.cpu.cr0 |= CR0_TS;
	ck_assert_int_eq(RUN(&m, 0xd9, 0xd1, 0xf4), 7);
	m.cpu.cr0 &= ~(uint64_t)CR0_TS;
	/* FNENI, FNDISI, FNSETPM (DB E0, E1, E4): no-ops that neither wait nor
	 * become the last instruction (FIP unchanged). */
	uint64_t fip = f->fip;
	ck_assert_int_eq(RUN(&m, 0xdb, 0xe0, 0xdb, 0xe1, 0xdb, 0xe4, 0xf4), -1);
	ck_assert_uint_eq(f->fip, fip);
	machine_free(&m);
}
END_TEST

/* Run code at CS:IP = 1000H:0100H (linear 10100H) with DS = F000H. */
static void run_far(struct test_machine *m, const uint8_t *code, size_t len)
{
	struct cpu *c = &m->cpu;
	physmem_write_bytes(&m->pm, 0x10100, code, len);
	cpu_notify_phys_write(c, 0x10100, (unsigned)len);
	c->seg[SR_CS].selector = 0x1000;
	c->seg[SR_CS].base = 0x10000;
	seg_refresh(&c->seg[SR_CS]);
	c->seg[SR_DS].selector = 0xf000;
	c->seg[SR_DS].base = 0xf0000;
	seg_refresh(&c->seg[SR_DS]);
	c->rip = 0x100;
	c->icount_limit = c->icount + 50;
	ck_assert_int_eq(cpu_run(c), ST_HALT);
	ck_assert_uint_eq(c->rip, 0x100 + len);
}
#define RUN_FAR(m, ...) run_far((m), (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

START_TEST(x87_env_real_mode)
{
	struct test_machine m;
	real_mode_machine(&m, "core2");
	/* fninit; fld qword [2000H] (DD 06 00 20) at 1000H:0100H; fnstenv [2100H]
	 * (D9 36 00 21); o32 fnstenv [2200H] (66 D9 36 00 22); fnsave [2300H]
	 * (DD 36 00 23); hlt. The FLD is at linear 10102H, its operand at F2000H,
	 * FOP = 5 << 8 | 06H. */
	physmem_write(&m.pm, 0xf2000, 8, 0x3ff0000000000000ull);   /* 1.0 */
	RUN_FAR(&m, 0xdb, 0xe3, 0xdd, 0x06, 0x00, 0x20, 0xd9, 0x36, 0x00, 0x21, 0x66, 0xd9, 0x36, 0x00, 0x22,
		0xdd, 0x36, 0x00, 0x23, 0xf4);
	/* SDM Vol.1 Figure 8-12, 16-bit real mode: FCW FSW FTW, IP[15:0],
	 * IP[19:16] in 15:12 with FOP, DP[15:0], DP[19:16] in 15:12. */
	static const uint16_t env16[7] = { 0x037f, 0x3800, 0x3fff, 0x0102, 0x1506, 0x2000, 0xf000 };
	for (unsigned i = 0; i < 7; i++)
		ck_assert_uint_eq(physmem_read(&m.pm, 0xf2100 + 2 * i, 2), env16[i]);
	/* Figure 8-10, 32-bit real mode: IP[31:16] and DP[31:16] in bits 27:12. */
	static const uint32_t env32[7] = { 0xffff037f, 0xffff3800, 0xffff3fff, 0xffff0102, 0x00001506,
					   0xffff2000, 0x0000f000 };
	for (unsigned i = 0; i < 7; i++)
		ck_assert_uint_eq(physmem_read(&m.pm, 0xf2200 + 4 * i, 4), env32[i]);
	/* FNSAVE: the 16-bit environment, then ST(0) = 1.0; then FNINIT. */
	ck_assert_uint_eq(physmem_read(&m.pm, 0xf2300 + 6, 2), 0x0102);
	ck_assert_uint_eq(physmem_read(&m.pm, 0xf2300 + 14, 8), J);
	ck_assert_uint_eq(physmem_read(&m.pm, 0xf2300 + 22, 2), 0x3fff);
	ck_assert_uint_eq(m.cpu.fpu.ftw, 0xffff);
	/* FRSTOR [2300H] (DD 26 00 23) then FNSTENV [2400H]: the same 14 bytes: the
	 * linear pointers survive the round trip; the tag of R7 comes from its
	 * contents even if the image says otherwise (written as "zero" here). */
	physmem_write(&m.pm, 0xf2300 + 4, 2, 0x7fff);
	RUN_FAR(&m, 0xdd, 0x26, 0x00, 0x23, 0xd9, 0x36, 0x00, 0x24, 0xf4);
	for (unsigned i = 0; i < 7; i++)
		ck_assert_uint_eq(physmem_read(&m.pm, 0xf2400 + 2 * i, 2), env16[i]);
	ck_assert_uint_eq(m.cpu.fpu.fip, 0x10102);
	ck_assert_uint_eq(m.cpu.fpu.fcs, 0);
	/* o32 fldenv [2200H] (66 D9 26 00 22): the 32-bit image too. */
	RUN_FAR(&m, 0xdb, 0xe3, 0x66, 0xd9, 0x26, 0x00, 0x22, 0xf4);
	ck_assert_uint_eq(m.cpu.fpu.fip, 0x10102);
	ck_assert_uint_eq(m.cpu.fpu.fdp, 0xf2000);
	ck_assert_uint_eq(m.cpu.fpu.fop, 0x506);
	ck_assert_uint_eq(m.cpu.fpu.ftw, 0x3fff);
	machine_free(&m);
}
END_TEST

START_TEST(sse_gates)
{
	struct test_machine m;
	real_mode_machine(&m, "core2");
	/* pxor xmm0, xmm0 (66 0F EF C0); hlt: CR4.OSFXSR = 0 -> #UD. */
	ck_assert_int_eq(RUN(&m, 0x66, 0x0f, 0xef, 0xc0, 0xf4), 6);
	m.cpu.cr4 |= CR4_OSFXSR;
	memset(m.cpu.fpu.xmm[0].b, 0xff, 16);
	ck_assert_int_eq(RUN(&m, 0x66, 0x0f, 0xef, 0xc0, 0xf4), -1);
	ck_assert_uint_eq(m.cpu.fpu.xmm[0].q[0] | m.cpu.fpu.xmm[0].q[1], 0);
	/* movaps xmm0, [0x2008] (0F 28 06 08 20): misaligned -> #GP. */
	ck_assert_int_eq(RUN(&m, 0x0f, 0x28, 0x06, 0x08, 0x20, 0xf4), 13);
	/* The pentium model has no SSE: #UD whatever CR4 says. */
	machine_free(&m);
	real_mode_machine(&m, "pentium");
	m.cpu.cr4 |= CR4_OSFXSR;
	ck_assert_int_eq(RUN(&m, 0x66, 0x0f, 0xef, 0xc0, 0xf4), 6);
	machine_free(&m);
}
END_TEST

START_TEST(xgetbv_ecx)
{
	struct test_machine m;
	real_mode_machine(&m, "skylake-lite");
	m.cpu.cr4 |= CR4_OSXSAVE;
	/* xgetbv (0F 01 D0); hlt. ECX = 0: XCR0 (1 after RESET). */
	m.cpu.regs[R_CX] = 0;
	ck_assert_int_eq(RUN(&m, 0x0f, 0x01, 0xd0, 0xf4), -1);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 1);
	/* ECX = 1 reads XINUSE AND XCR0 where CPUID.(EAX=0DH,ECX=1):EAX[2] says
	 * so (skylake-lite: every enabled component counts as in use, emu/xsave.c);
	 * ECX = 2 is #GP(0) (SDM Vol.2 XGETBV). */
	uint32_t leaf[4];
	cpu_model_cpuid(m.cpu.model, 0xd, 1, leaf);
	ck_assert_uint_eq(leaf[0] & 4, 4);
	m.cpu.regs[R_CX] = 1;
	ck_assert_int_eq(RUN(&m, 0x0f, 0x01, 0xd0, 0xf4), -1);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 1);
	m.cpu.regs[R_CX] = 2;
	ck_assert_int_eq(RUN(&m, 0x0f, 0x01, 0xd0, 0xf4), 13);
	/* Without CR4.OSXSAVE: #UD. */
	m.cpu.cr4 &= ~(uint64_t)CR4_OSXSAVE;
	m.cpu.regs[R_CX] = 0;
	ck_assert_int_eq(RUN(&m, 0x0f, 0x01, 0xd0, 0xf4), 6);
	machine_free(&m);
	/* A model without it (nehalem-lite): ECX = 1 is #GP(0). */
	real_mode_machine(&m, "nehalem-lite");
	m.cpu.cr4 |= CR4_OSXSAVE;
	cpu_model_cpuid(m.cpu.model, 0xd, 1, leaf);
	ck_assert_uint_eq(leaf[0] & 4, 0);
	m.cpu.regs[R_CX] = 1;
	ck_assert_int_eq(RUN(&m, 0x0f, 0x01, 0xd0, 0xf4), 13);
	machine_free(&m);
}
END_TEST

/* ---- SSE floating point (emu/sse_fp.c) ---- */

static uint32_t f32(float v) { uint32_t u; memcpy(&u, &v, 4); return u; }
static uint64_t f64(double v) { uint64_t u; memcpy(&u, &v, 8); return u; }
#define SNAN32 0x7f800001u
#define QNAN32 0x7fc00000u

static void sse_machine(struct test_machine *m)
{
	real_mode_machine(m, "core2");
	m->cpu.cr4 |= CR4_OSFXSR | CR4_OSXMMEXCPT;
}

START_TEST(sse_arith)
{
	struct test_machine m;
	sse_machine(&m);
	struct fpu_state *f = &m.cpu.fpu;
	/* addss xmm0, xmm1 (F3 0F 58 C1): low element only, upper kept. */
	f->xmm[0].d[0] = f32(1.0f); f->xmm[0].d[1] = 0x12345678;
	f->xmm[1].d[0] = f32(2.0f); f->xmm[1].d[1] = 0xdeadbeef;
	ck_assert_int_eq(RUN(&m, 0xf3, 0x0f, 0x58, 0xc1, 0xf4), -1);
	ck_assert_uint_eq(f->xmm[0].d[0], f32(3.0f));
	ck_assert_uint_eq(f->xmm[0].d[1], 0x12345678);
	ck_assert_uint_eq(f->mxcsr, MXCSR_RESET);
	/* divsd xmm0, xmm1 (F2 0F 5E C1): 1/3 is inexact -> PE; RC = toward zero
	 * gives the truncated quotient 0x3FD5555555555555 (SDM Vol.1 4.8.4). */
	f->xmm[0].q[0] = f64(1.0); f->xmm[1].q[0] = f64(3.0);
	f->mxcsr = MXCSR_RESET | (3u << 13);
	ck_assert_int_eq(RUN(&m, 0xf2, 0x0f, 0x5e, 0xc1, 0xf4), -1);
	ck_assert_uint_eq(f->xmm[0].q[0], 0x3fd5555555555555ull);
	ck_assert_uint_eq(f->mxcsr, MXCSR_RESET | (3u << 13) | MXCSR_PE);
	/* sqrtps xmm0, xmm1 (0F 51 C1): every lane; sqrt(-1) = QNaN indefinite with IE. */
	f->mxcsr = MXCSR_RESET;
	f->xmm[1].d[0] = f32(4.0f); f->xmm[1].d[1] = f32(-1.0f);
	f->xmm[1].d[2] = f32(9.0f); f->xmm[1].d[3] = f32(0.0f);
	ck_assert_int_eq(RUN(&m, 0x0f, 0x51, 0xc1, 0xf4), -1);
	ck_assert_uint_eq(f->xmm[0].d[0], f32(2.0f));
	ck_assert_uint_eq(f->xmm[0].d[1], 0xffc00000u);           /* SDM Vol.1 4.8.3.7 indefinite */
	ck_assert_uint_eq(f->xmm[0].d[2], f32(3.0f));
	ck_assert_uint_eq(f->xmm[0].d[3], 0);
	ck_assert_uint_eq(f->mxcsr, MXCSR_RESET | MXCSR_IE);
	/* NaN propagation (SDM Vol.1 Table 4-7): SNaN in the first source and a QNaN
	 * in the second -> the first source's NaN, quieted: 7FC00001H, with IE. */
	f->mxcsr = MXCSR_RESET;
	f->xmm[0].d[0] = SNAN32; f->xmm[1].d[0] = QNAN32 | 5;
	ck_assert_int_eq(RUN(&m, 0xf3, 0x0f, 0x58, 0xc1, 0xf4), -1);
	ck_assert_uint_eq(f->xmm[0].d[0], 0x7fc00001u);
	ck_assert_uint_eq(f->mxcsr, MXCSR_RESET | MXCSR_IE);
	/* minss with a QNaN second operand returns the second operand (SDM Vol.2 MINSS). */
	f->mxcsr = MXCSR_RESET;
	f->xmm[0].d[0] = f32(1.0f); f->xmm[1].d[0] = QNAN32;
	ck_assert_int_eq(RUN(&m, 0xf3, 0x0f, 0x5d, 0xc1, 0xf4), -1);
	ck_assert_uint_eq(f->xmm[0].d[0], QNAN32);
	ck_assert_uint_eq(f->mxcsr, MXCSR_RESET | MXCSR_IE);
	machine_free(&m);
}
END_TEST

START_TEST(sse_exceptions)
{
	struct test_machine m;
	sse_machine(&m);
	struct fpu_state *f = &m.cpu.fpu;
	/* divss xmm0, xmm1 by zero, masked: +inf and ZE. */
	f->xmm[0].d[0] = f32(1.0f); f->xmm[1].d[0] = 0;
	ck_assert_int_eq(RUN(&m, 0xf3, 0x0f, 0x5e, 0xc1, 0xf4), -1);
	ck_assert_uint_eq(f->xmm[0].d[0], 0x7f800000u);
	ck_assert_uint_eq(f->mxcsr, MXCSR_RESET | MXCSR_ZE);
	/* Unmasked ZM: #XM (CR4.OSXMMEXCPT = 1), destination unchanged, ZE set
	 * (SDM Vol.1 11.5.3.2). */
	f->xmm[0].d[0] = f32(1.0f);
	f->mxcsr = MXCSR_RESET & ~(MXCSR_ZE << MXCSR_MASK_SHIFT);
	ck_assert_int_eq(RUN(&m, 0xf3, 0x0f, 0x5e, 0xc1, 0xf4), 19);
	ck_assert_uint_eq(f->xmm[0].d[0], f32(1.0f));
	ck_assert_uint_eq(f->mxcsr & MXCSR_FLAGS, MXCSR_ZE);
	/* The same with CR4.OSXMMEXCPT = 0: #UD (SDM Vol.3 6.15 interrupt 19). */
	m.cpu.cr4 &= ~(uint64_t)CR4_OSXMMEXCPT;
	ck_assert_int_eq(RUN(&m, 0xf3, 0x0f, 0x5e, 0xc1, 0xf4), 6);
	m.cpu.cr4 |= CR4_OSXMMEXCPT;
	/* Pre-computation first: addps with lane 0 SNaN (IM unmasked) and lane 1
	 * overflowing: IE only, no OE/PE, nothing stored (11.5.3.2 steps 1-3). */
	f->mxcsr = MXCSR_RESET & ~((MXCSR_IE | MXCSR_OE) << MXCSR_MASK_SHIFT);
	f->xmm[0].d[0] = SNAN32; f->xmm[0].d[1] = 0x7f7fffffu;    /* FLT_MAX */
	f->xmm[1].d[0] = f32(1.0f); f->xmm[1].d[1] = 0x7f7fffffu;
	ck_assert_int_eq(RUN(&m, 0x0f, 0x58, 0xc1, 0xf4), 19);
	ck_assert_uint_eq(f->mxcsr & MXCSR_FLAGS, MXCSR_IE);
	ck_assert_uint_eq(f->xmm[0].d[1], 0x7f7fffffu);
	/* Only the overflow unmasked: IE masked, so the post-computation step runs:
	 * IE|OE recorded (masked IE too), #XM, nothing stored; no PE, since the
	 * unbounded-exponent sum FLT_MAX + FLT_MAX is exact (SDM Vol.1 4.9.1.6). */
	f->mxcsr = MXCSR_RESET & ~(MXCSR_OE << MXCSR_MASK_SHIFT);
	ck_assert_int_eq(RUN(&m, 0x0f, 0x58, 0xc1, 0xf4), 19);
	ck_assert_uint_eq(f->mxcsr & MXCSR_FLAGS, MXCSR_IE | MXCSR_OE);
	ck_assert_uint_eq(f->xmm[0].d[0], SNAN32);
	/* Underflow: 2^-126 * 0.5 = 2^-127 is tiny but exact. Masked: the denormal
	 * 00400000H and no flag; unmasked: UE and #XM regardless of inexactness
	 * (SDM Vol.1 4.9.1.5). */
	f->mxcsr = MXCSR_RESET;
	f->xmm[0].d[0] = 0x00800000u; f->xmm[1].d[0] = f32(0.5f);
	ck_assert_int_eq(RUN(&m, 0xf3, 0x0f, 0x59, 0xc1, 0xf4), -1);
	ck_assert_uint_eq(f->xmm[0].d[0], 0x00400000u);
	ck_assert_uint_eq(f->mxcsr, MXCSR_RESET);
	f->xmm[0].d[0] = 0x00800000u;
	f->mxcsr = MXCSR_RESET & ~(uint32_t)MXCSR_UM;
	ck_assert_int_eq(RUN(&m, 0xf3, 0x0f, 0x59, 0xc1, 0xf4), 19);
	ck_assert_uint_eq(f->mxcsr & MXCSR_FLAGS, MXCSR_UE);
	ck_assert_uint_eq(f->xmm[0].d[0], 0x00800000u);
	/* FTZ with UM masked: +0.0 with UE and PE (SDM Vol.1 10.2.3.3). */
	f->mxcsr = MXCSR_RESET | MXCSR_FTZ;
	ck_assert_int_eq(RUN(&m, 0xf3, 0x0f, 0x59, 0xc1, 0xf4), -1);
	ck_assert_uint_eq(f->xmm[0].d[0], 0);
	ck_assert_uint_eq(f->mxcsr & MXCSR_FLAGS, MXCSR_UE | MXCSR_PE);
	/* DAZ: a denormal source is +0.0 (SDM Vol.1 10.2.3.4): 00400000H * 1.0 = 0. */
	f->mxcsr = MXCSR_RESET | MXCSR_DAZ;
	f->xmm[0].d[0] = 0x00400000u; f->xmm[1].d[0] = f32(1.0f);
	ck_assert_int_eq(RUN(&m, 0xf3, 0x0f, 0x59, 0xc1, 0xf4), -1);
	ck_assert_uint_eq(f->xmm[0].d[0], 0);
	/* Without DAZ the same operand raises DE (denormal operand). */
	f->mxcsr = MXCSR_RESET;
	f->xmm[0].d[0] = 0x00400000u;
	ck_assert_int_eq(RUN(&m, 0xf3, 0x0f, 0x59, 0xc1, 0xf4), -1);
	ck_assert_uint_eq(f->xmm[0].d[0], 0x00400000u);
	ck_assert_uint_eq(f->mxcsr & MXCSR_FLAGS, MXCSR_DE);
	machine_free(&m);
}
END_TEST

START_TEST(sse_compare_convert)
{
	struct test_machine m;
	sse_machine(&m);
	struct fpu_state *f = &m.cpu.fpu;
	/* ucomiss xmm0, xmm1 (0F 2E C1): less -> CF; unordered -> ZF PF CF; QNaN is
	 * not invalid for UCOMISS but is for COMISS (SDM Vol.2 COMISS). */
	f->xmm[0].d[0] = f32(1.0f); f->xmm[1].d[0] = f32(2.0f);
	m.cpu.rflags |= FLAG_OF | FLAG_SF | FLAG_AF;
	ck_assert_int_eq(RUN(&m, 0x0f, 0x2e, 0xc1, 0xf4), -1);
	ck_assert_uint_eq(m.cpu.rflags & FLAGS_ARITH, FLAG_CF);
	f->xmm[1].d[0] = QNAN32;
	ck_assert_int_eq(RUN(&m, 0x0f, 0x2e, 0xc1, 0xf4), -1);
	ck_assert_uint_eq(m.cpu.rflags & FLAGS_ARITH, FLAG_ZF | FLAG_PF | FLAG_CF);
	ck_assert_uint_eq(f->mxcsr, MXCSR_RESET);
	ck_assert_int_eq(RUN(&m, 0x0f, 0x2f, 0xc1, 0xf4), -1);
	ck_assert_uint_eq(f->mxcsr, MXCSR_RESET | MXCSR_IE);
	/* cmpltpd xmm0, xmm1 (66 0F C2 C1 01): all ones where less. */
	f->mxcsr = MXCSR_RESET;
	f->xmm[0].q[0] = f64(1.0); f->xmm[0].q[1] = f64(5.0);
	f->xmm[1].q[0] = f64(2.0); f->xmm[1].q[1] = f64(5.0);
	ck_assert_int_eq(RUN(&m, 0x66, 0x0f, 0xc2, 0xc1, 0x01, 0xf4), -1);
	ck_assert_uint_eq(f->xmm[0].q[0], ~0ull);
	ck_assert_uint_eq(f->xmm[0].q[1], 0);
	/* cvttss2si eax, xmm1 (F3 0F 2C C1): 1e10 is out of range -> 80000000H, IE. */
	f->xmm[1].d[0] = f32(1e10f);
	ck_assert_int_eq(RUN(&m, 0xf3, 0x0f, 0x2c, 0xc1, 0xf4), -1);
	ck_assert_uint_eq((uint32_t)m.cpu.regs[R_AX], 0x80000000u);
	ck_assert_uint_eq(f->mxcsr, MXCSR_RESET | MXCSR_IE);
	/* cvtss2si eax, xmm1 rounds by RC: 2.5 -> 2 (nearest even), PE; cvttss2si -> 2. */
	f->mxcsr = MXCSR_RESET;
	f->xmm[1].d[0] = f32(-2.5f);
	ck_assert_int_eq(RUN(&m, 0xf3, 0x0f, 0x2d, 0xc1, 0xf4), -1);
	ck_assert_uint_eq((uint32_t)m.cpu.regs[R_AX], (uint32_t)-2);
	ck_assert_uint_eq(f->mxcsr, MXCSR_RESET | MXCSR_PE);
	f->mxcsr = MXCSR_RESET | (1u << 13);                     /* RC down */
	ck_assert_int_eq(RUN(&m, 0xf3, 0x0f, 0x2d, 0xc1, 0xf4), -1);
	ck_assert_uint_eq((uint32_t)m.cpu.regs[R_AX], (uint32_t)-3);
	/* cvtsi2sd xmm2, eax (F2 0F 2A D0): exact; upper half kept. */
	f->mxcsr = MXCSR_RESET;
	m.cpu.regs[R_AX] = (uint32_t)-7;
	f->xmm[2].q[1] = 0x1111;
	ck_assert_int_eq(RUN(&m, 0xf2, 0x0f, 0x2a, 0xd0, 0xf4), -1);
	ck_assert_uint_eq(f->xmm[2].q[0], f64(-7.0));
	ck_assert_uint_eq(f->xmm[2].q[1], 0x1111);
	ck_assert_uint_eq(f->mxcsr, MXCSR_RESET);
	/* cvtsd2ss xmm3, xmm2 (F2 0F 5A DA); cvtps2pd xmm4, xmm3 (0F 5A E3). */
	ck_assert_int_eq(RUN(&m, 0xf2, 0x0f, 0x5a, 0xda, 0x0f, 0x5a, 0xe3, 0xf4), -1);
	ck_assert_uint_eq(f->xmm[3].d[0], f32(-7.0f));
	ck_assert_uint_eq(f->xmm[4].q[0], f64(-7.0));
	/* cvtpd2ps xmm5, xmm4 (66 0F 5A EC): upper two dwords zeroed. */
	f->xmm[5].q[1] = ~0ull;
	ck_assert_int_eq(RUN(&m, 0x66, 0x0f, 0x5a, 0xec, 0xf4), -1);
	ck_assert_uint_eq(f->xmm[5].d[0], f32(-7.0f));
	ck_assert_uint_eq(f->xmm[5].q[1], 0);
	/* movmskps eax, xmm5 (0F 50 C5); unpcklps xmm5, xmm3 (0F 14 EB); movhlps
	 * xmm6, xmm0 (0F 12 F0). */
	ck_assert_int_eq(RUN(&m, 0x0f, 0x50, 0xc5, 0xf4), -1);
	ck_assert_uint_eq(m.cpu.regs[R_AX] & 0xffffffff, 0x1);
	f->xmm[5].d[1] = 0x55;
	ck_assert_int_eq(RUN(&m, 0x0f, 0x14, 0xeb, 0xf4), -1);
	ck_assert_uint_eq(f->xmm[5].d[0], f32(-7.0f));
	ck_assert_uint_eq(f->xmm[5].d[1], f->xmm[3].d[0]);
	ck_assert_uint_eq(f->xmm[5].d[2], 0x55);
	f->xmm[6].q[1] = 0x77;
	ck_assert_int_eq(RUN(&m, 0x0f, 0x12, 0xf0, 0xf4), -1);
	ck_assert_uint_eq(f->xmm[6].q[0], f->xmm[0].q[1]);
	ck_assert_uint_eq(f->xmm[6].q[1], 0x77);
	machine_free(&m);
}
END_TEST

static Suite *fpu_suite(void)
{
	Suite *s = suite_create("fpu");
	TCase *t = tcase_create("state");
	tcase_add_test(t, reset_state);
	tcase_add_test(t, fxsave_offsets);
	tcase_add_test(t, tags);
	tcase_add_test(t, emms_and_prefetch);
	tcase_add_test(t, xcr0_rules);
	suite_add_tcase(s, t);
	t = tcase_create("run");
	tcase_add_test(t, x87_program);
	tcase_add_test(t, x87_constants);
	tcase_add_test(t, x87_bcd);
	tcase_add_test(t, x87_reductions);
	tcase_add_test(t, x87_transcendental);
	tcase_add_test(t, x87_exceptions);
	tcase_add_test(t, x87_gates);
	tcase_add_test(t, x87_env_real_mode);
	tcase_add_test(t, sse_gates);
	tcase_add_test(t, xgetbv_ecx);
	tcase_add_test(t, sse_arith);
	tcase_add_test(t, sse_exceptions);
	tcase_add_test(t, sse_compare_convert);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(fpu_suite());
}
