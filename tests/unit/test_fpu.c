/* Check suite for the FPU/SSE state (emu/fpu_state.h, emu/xsave.c, emu/x87.c,
 * emu/sse.c): FXSAVE image byte offsets against SDM Vol.1 Table 10-2, tag word
 * abridging (10.5.1.1), XCR0 rules (Vol.2 XSETBV, Vol.1 13.3), RESET state (Vol.3
 * Table 9-1), and short real-mode programs run on a CPU over a fake physmem
 * (bytes assembled with GNU as, source beside each); SSE floating point
 * (emu/sse_fp.c): results, MXCSR flags, DAZ/FTZ, #XM/#UD ordering. */
#include <string.h>

#include "emu/fpu_state.h"
#include "machine_fixture.h"
#include "suite_runner.h"

#define CODE_BASE 0x1000
#define DATA_BASE 0x2000
#define HANDLERS  0x3000      /* vector v: one HLT at HANDLERS + 4*v */

/* Real mode over 1 MiB, CS:IP = 0:CODE_BASE; the IVT sends vector v to the HLT
 * at HANDLERS + 4*v. */
static void real_mode_machine(struct test_machine *m, const char *model)
{
	machine_init_bare(m, model_named(model), 1u << 20);
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
	ck_assert(!xcr0_valid(7, XSTATE_SUPPORTED));     /* AVX not supported */
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
	/* ECX = 1 needs CPUID.(EAX=0DH,ECX=1):EAX[2], which no model advertises:
	 * #GP(0) (SDM Vol.2 XGETBV). */
	uint32_t leaf[4];
	cpu_model_cpuid(m.cpu.model, 0xd, 1, leaf);
	ck_assert_uint_eq(leaf[0] & 4, 0);
	m.cpu.regs[R_CX] = 1;
	ck_assert_int_eq(RUN(&m, 0x0f, 0x01, 0xd0, 0xf4), 13);
	/* Without CR4.OSXSAVE: #UD. */
	m.cpu.cr4 &= ~(uint64_t)CR4_OSXSAVE;
	m.cpu.regs[R_CX] = 0;
	ck_assert_int_eq(RUN(&m, 0x0f, 0x01, 0xd0, 0xf4), 6);
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
	tcase_add_test(t, xcr0_rules);
	suite_add_tcase(s, t);
	t = tcase_create("run");
	tcase_add_test(t, x87_program);
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
