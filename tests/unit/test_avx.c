/* Check suite for AVX (emu/avx.c, emu/avx_sse.c, emu/xsave.c, emu/cpuid.c):
 * the rules the host-differential run (host_diff -m avx) cannot reach from
 * user mode or does not vary: the state gate of every VEX SIMD instruction
 * (SDM Vol.2 2.5 Table 2-18: real and virtual-8086 mode, CR4.OSXSAVE, XCR0,
 * CR0.TS), alignment of exception type 1 against the others, VEX.128 zeroing
 * against legacy SSE preserving bits 255:128 (SDM Vol.2 2.3.10), the rows'
 * VEX.L and vvvv rules and CPUID gating, XSETBV's bit 2 rule, the YMM_Hi128
 * component of XSAVE/XRSTOR/XSAVEOPT/XSAVEC, the compacted XRSTOR and CPUID
 * leaf 0DH (SDM Vol.1 13). */
#include <string.h>

#include "emu/fpu_state.h"
#include "machine_fixture.h"
#include "suite_runner.h"

#define DATA 0x20000u

/* 32-bit protected mode with the OS's side of AVX done: CR4.OSFXSR and
 * OSXSAVE, XCR0 = x87|SSE|AVX (SDM Vol.1 13.3, 14.3). */
static void avx_machine(struct test_machine *m, const char *model)
{
	machine_init(m, model);
	m->cpu.cr4 |= CR4_OSFXSR | CR4_OSXSAVE;
	m->cpu.xcr0 = XSTATE_X87 | XSTATE_SSE | XSTATE_AVX;
}

static void fill_ymm(struct cpu *c)
{
	for (unsigned r = 0; r < 16; r++)
		for (unsigned i = 0; i < 16; i++) {
			c->fpu.xmm[r].b[i] = (uint8_t)(r * 16 + i);
			c->fpu.ymm_hi[r].b[i] = (uint8_t)(0x80 + r * 16 + i);
		}
}

static bool hi_zero(const struct cpu *c, unsigned r)
{
	return c->fpu.ymm_hi[r].q[0] == 0 && c->fpu.ymm_hi[r].q[1] == 0;
}

/* vaddps xmm0, xmm1, xmm2 (C5 F0 58 C2) under each state gate. */
START_TEST(state_gate)
{
	struct test_machine m;
	avx_machine(&m, "skylake-lite");
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xf0, 0x58, 0xc2), ST_OK);
	/* Table 2-18: "#UD If CR4.OSXSAVE[bit 18]=0." */
	m.cpu.cr4 &= ~(uint64_t)CR4_OSXSAVE;
	assert_ud(&m, EXEC(&m, 0xc5, 0xf0, 0x58, 0xc2));
	m.cpu.cr4 |= CR4_OSXSAVE;
	/* "If XCR0[2:1] != 11b": SSE enabled without AVX, and neither. */
	m.cpu.xcr0 = XSTATE_X87 | XSTATE_SSE;
	assert_ud(&m, EXEC(&m, 0xc5, 0xf0, 0x58, 0xc2));
	m.cpu.xcr0 = XSTATE_X87;
	assert_ud(&m, EXEC(&m, 0xc5, 0xf0, 0x58, 0xc2));
	m.cpu.xcr0 = XSTATE_X87 | XSTATE_SSE | XSTATE_AVX;
	/* "#NM If CR0.TS[bit 3]=1." */
	m.cpu.cr0 |= CR0_TS;
	assert_fault(&m, EXEC(&m, 0xc5, 0xf0, 0x58, 0xc2), EXC_NM, 0);
	assert_fault(&m, EXEC(&m, 0xc5, 0xfc, 0x28, 0xc1), EXC_NM, 0);   /* vmovaps ymm0, ymm1 */
	m.cpu.cr0 &= ~(uint64_t)CR0_TS;
	/* CR0.EM and CR4.OSFXSR gate legacy SSE only. */
	m.cpu.cr0 |= CR0_EM;
	m.cpu.cr4 &= ~(uint64_t)CR4_OSFXSR;
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xf0, 0x58, 0xc2), ST_OK);
	assert_ud(&m, EXEC(&m, 0x0f, 0x58, 0xc1));                         /* addps: legacy */
	machine_free(&m);
}
END_TEST

/* Table 2-18: "#UD ... Real-Address Mode" and "Virtual 8086 Mode" for a VEX
 * prefix, whatever CR4 and XCR0 say. */
START_TEST(real_and_v86)
{
	struct test_machine m;
	machine_init_bare(&m, model_named("skylake-lite"), RAM_SIZE);
	m.cpu.cr4 |= CR4_OSFXSR | CR4_OSXSAVE;
	m.cpu.xcr0 = 7;
	ck_assert_int_eq(m.cpu.mode, MODE_REAL);
	assert_ud(&m, EXEC(&m, 0xc5, 0xf0, 0x58, 0xc2));
	machine_free(&m);

	avx_machine(&m, "skylake-lite");
	cpu_set_flags(&m.cpu, FLAG_VM | FLAG_IOPL);
	cpu_update_mode(&m.cpu);
	ck_assert_int_eq(m.cpu.mode, MODE_V86);
	assert_ud(&m, EXEC(&m, 0xc5, 0xf0, 0x58, 0xc2));
	machine_free(&m);
}
END_TEST

/* Exception type 1 (VMOVAPS, VMOVNTDQ...) checks alignment to the operand's
 * width, #GP(0); type 4 (VADDPS m, VMOVUPS) checks none, unlike legacy SSE's
 * 16-byte rule (SDM Vol.2 2.5.1 Tables 2-18, 2-21; Vol.1 14.9). */
START_TEST(alignment)
{
	struct test_machine m;
	avx_machine(&m, "skylake-lite");
	m.cpu.regs[R_AX] = DATA + 16;                                     /* 16- not 32-aligned */
	assert_gp0(&m, EXEC(&m, 0xc5, 0xfc, 0x28, 0x00));                  /* vmovaps ymm0, [eax] */
	assert_gp0(&m, EXEC(&m, 0xc5, 0xfd, 0xe7, 0x00));                  /* vmovntdq [eax], ymm0 */
	assert_gp0(&m, EXEC(&m, 0xc5, 0xfd, 0x7f, 0x00));                  /* vmovdqa [eax], ymm0 */
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xf8, 0x28, 0x00), ST_OK);         /* vmovaps xmm0, [eax] */
	m.cpu.regs[R_AX] = DATA + 8;
	assert_gp0(&m, EXEC(&m, 0xc5, 0xf8, 0x28, 0x00));                  /* vmovaps xmm0, [eax] */
	m.cpu.regs[R_AX] = DATA + 3;
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xfc, 0x10, 0x00), ST_OK);         /* vmovups ymm0, [eax] */
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xf4, 0x58, 0x00), ST_OK);         /* vaddps ymm0, ymm1, [eax] */
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xf1, 0xef, 0x00), ST_OK);         /* vpxor xmm0, xmm1, [eax] */
	assert_gp0(&m, EXEC(&m, 0x0f, 0x58, 0x00));                        /* addps xmm0, [eax] */
	m.cpu.regs[R_AX] = DATA + 32;
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xfc, 0x28, 0x00), ST_OK);
	machine_free(&m);
}
END_TEST

/* SDM Vol.2 2.3.10: VEX.128 zeroes bits 255:128 of its destination; a legacy
 * SSE instruction leaves them. The scalar forms take bits 127:32 (or 127:64)
 * from VEX.vvvv (SDM Vol.2 ADDSS), whatever VEX.L (LIG). */
START_TEST(upper_bits)
{
	struct test_machine m;
	avx_machine(&m, "skylake-lite");
	fill_ymm(&m.cpu);
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x58, 0xc1), ST_OK);               /* addps xmm0, xmm1 */
	ck_assert_uint_eq(m.cpu.fpu.ymm_hi[0].b[0], 0x80);
	ck_assert_int_eq(EXEC(&m, 0x66, 0x0f, 0xef, 0xd3), ST_OK);         /* pxor xmm2, xmm3 */
	ck_assert_uint_eq(m.cpu.fpu.ymm_hi[2].b[0], 0xa0);
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xf0, 0x58, 0xc2), ST_OK);         /* vaddps xmm0, xmm1, xmm2 */
	ck_assert(hi_zero(&m.cpu, 0));
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xe1, 0xef, 0xd4), ST_OK);         /* vpxor xmm2, xmm3, xmm4 */
	ck_assert(hi_zero(&m.cpu, 2));
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xe1, 0xef, 0xec), ST_OK);         /* vpxor xmm5, xmm3, xmm4 */
	ck_assert(hi_zero(&m.cpu, 5));
	ck_assert_uint_eq(m.cpu.fpu.xmm[5].b[0], 0x30 ^ 0x40);
	/* VEX.256: bits 255:128 computed, here the XOR of the upper halves. */
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xf4, 0x57, 0xf7), ST_OK);         /* vxorps ymm6, ymm1, ymm7 */
	ck_assert_uint_eq(m.cpu.fpu.ymm_hi[6].b[0], 0x90 ^ 0xf0);
	/* vaddss xmm3, xmm1, xmm2, VEX.L = 1: upper elements from xmm1, 255:128 zeroed. */
	fill_ymm(&m.cpu);
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xf6, 0x58, 0xda), ST_OK);
	ck_assert_uint_eq(m.cpu.fpu.xmm[3].d[1], m.cpu.fpu.xmm[1].d[1]);
	ck_assert_uint_eq(m.cpu.fpu.xmm[3].q[1], m.cpu.fpu.xmm[1].q[1]);
	ck_assert(hi_zero(&m.cpu, 3));
	/* VMOVSS from memory zeroes everything above the element. */
	fill_ymm(&m.cpu);
	m.cpu.regs[R_AX] = DATA;
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xfa, 0x10, 0x18), ST_OK);         /* vmovss xmm3, [eax] */
	ck_assert_uint_eq(m.cpu.fpu.xmm[3].d[1], 0);
	ck_assert(hi_zero(&m.cpu, 3));
	machine_free(&m);
}
END_TEST

/* The rows' encoding rules (emu/isa/avx.isa, emu/decode.c): "VEX.L must be 0"
 * forms are #UD with VEX.L = 1; vvvv must be 1111b where unused (SDM Vol.2
 * 2.3.6); the 256-bit integer forms need AVX2, every form AVX. */
START_TEST(encodings_and_features)
{
	struct test_machine m;
	avx_machine(&m, "skylake-lite");
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xf9, 0x6e, 0xc0), ST_OK);         /* vmovd xmm0, eax */
	assert_ud(&m, EXEC(&m, 0xc5, 0xfd, 0x6e, 0xc0));                   /* ... VEX.L = 1 */
	assert_ud(&m, EXEC(&m, 0xc5, 0xfe, 0x7e, 0xc1));                   /* vmovq xmm0, xmm1, VEX.L = 1 */
	m.cpu.regs[R_AX] = DATA;
	assert_ud(&m, EXEC(&m, 0xc5, 0xf4, 0x12, 0x00));                   /* vmovlps VEX.L = 1 */
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xf0, 0x12, 0x00), ST_OK);         /* vmovlps xmm0, xmm1, [eax] */
	assert_ud(&m, EXEC(&m, 0xc5, 0xf0, 0x28, 0xc1));                   /* vmovaps, vvvv = 0001b */
	assert_ud(&m, EXEC(&m, 0xc5, 0xf4, 0x51, 0xc1));                   /* vsqrtps, vvvv = 0001b */
	/* A 66/F2/F3/LOCK prefix before VEX is #UD (SDM Vol.2 2.3.2). */
	assert_ud(&m, EXEC(&m, 0x66, 0xc5, 0xf0, 0x58, 0xc2));
	assert_ud(&m, EXEC(&m, 0xf3, 0xc5, 0xf0, 0x58, 0xc2));
	assert_ud(&m, EXEC(&m, 0xf0, 0xc5, 0xf0, 0x58, 0xc2));
	/* skylake-lite has AVX2: VEX.256 VPADDB runs. */
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xf5, 0xfc, 0xc2), ST_OK);
	machine_free(&m);
	/* Without AVX2 (skylake-lite,-avx2): VEX.256 VPADDB is #UD, its VEX.128
	 * form and the 256-bit FP forms (AVX) run. */
	char err[128];
	const struct cpu_model *no_avx2 = cpu_model_parse("skylake-lite,-avx2", err, sizeof(err));
	ck_assert_msg(no_avx2 != NULL, "%s", err);
	machine_init_model(&m, no_avx2);
	m.cpu.cr4 |= CR4_OSFXSR | CR4_OSXSAVE;
	m.cpu.xcr0 = XSTATE_X87 | XSTATE_SSE | XSTATE_AVX;
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xf1, 0xfc, 0xc2), ST_OK);
	assert_ud(&m, EXEC(&m, 0xc5, 0xf5, 0xfc, 0xc2));
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xf5, 0x58, 0xc2), ST_OK);         /* vaddpd ymm: AVX */
	machine_free(&m);
	cpu_model_release(no_avx2);
	/* A model without AVX: #UD whatever the state says. */
	avx_machine(&m, "nehalem-lite");
	assert_ud(&m, EXEC(&m, 0xc5, 0xf0, 0x58, 0xc2));
	machine_free(&m);
}
END_TEST

/* CPUID: AVX (1:ECX[28]) on the models whose parts have it; leaf 0DH: XCR0 bit
 * 2 supported, EBX the size for XCR0 (SDM Vol.2 CPUID leaf 0DH), subleaf 2 the
 * component's size and offset (SDM Vol.1 13.2, Table 13-1). */
static void cpuid(struct test_machine *m, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	m->cpu.regs[R_AX] = leaf;
	m->cpu.regs[R_CX] = sub;
	ck_assert_int_eq(EXEC(m, 0x0f, 0xa2), ST_OK);
	out[0] = (uint32_t)m->cpu.regs[R_AX];
	out[1] = (uint32_t)m->cpu.regs[R_BX];
	out[2] = (uint32_t)m->cpu.regs[R_CX];
	out[3] = (uint32_t)m->cpu.regs[R_DX];
}

START_TEST(cpuid_leaves)
{
	static const char *const with[] = { "skylake-lite", "icelake-lite", "epyc-lite" };
	static const char *const without[] = { "core2", "nehalem-lite" };
	uint32_t r[4];
	struct test_machine m;
	for (unsigned i = 0; i < 3; i++) {
		avx_machine(&m, with[i]);
		cpuid(&m, 1, 0, r);
		ck_assert(r[2] >> 28 & 1);
		cpuid(&m, 0xd, 0, r);
		ck_assert_uint_eq(r[0], 7);
		ck_assert_uint_eq(r[1], 832);
		ck_assert_uint_eq(r[2], 832);
		m.cpu.xcr0 = 3;
		cpuid(&m, 0xd, 0, r);
		ck_assert_uint_eq(r[1], 576);
		cpuid(&m, 0xd, 2, r);
		ck_assert_uint_eq(r[0], 256);
		ck_assert_uint_eq(r[1], 576);
		cpuid(&m, 0xd, 1, r);
		ck_assert_uint_eq(r[0], 7);                                /* XSAVEOPT, XSAVEC, XGETBV1 */
		ck_assert_uint_eq(r[1], 576);                              /* compacted, XCR0 = 3 */
		m.cpu.xcr0 = 7;
		cpuid(&m, 0xd, 1, r);
		ck_assert_uint_eq(r[1], 832);
		machine_free(&m);
	}
	for (unsigned i = 0; i < 2; i++) {
		machine_init(&m, without[i]);
		cpuid(&m, 1, 0, r);
		ck_assert(!(r[2] >> 28 & 1));
		cpuid(&m, 0xd, 0, r);
		ck_assert_uint_eq(r[0], 3);
		ck_assert_uint_eq(r[1], 576);
		machine_free(&m);
	}
}
END_TEST

/* XSETBV (SDM Vol.2 XSETBV; Vol.1 13.3): bit 2 without bit 1 is #GP(0); a bit
 * the model's CPUID.(EAX=0DH,ECX=0):EAX lacks is #GP(0). */
static status_t xsetbv(struct test_machine *m, uint64_t v)
{
	m->cpu.regs[R_CX] = 0;
	m->cpu.regs[R_AX] = (uint32_t)v;
	m->cpu.regs[R_DX] = v >> 32;
	return EXEC(m, 0x0f, 0x01, 0xd1);
}

START_TEST(xsetbv_rules)
{
	struct test_machine m;
	avx_machine(&m, "skylake-lite");
	m.cpu.xcr0 = 1;
	ck_assert_int_eq(xsetbv(&m, 7), ST_OK);
	ck_assert_uint_eq(m.cpu.xcr0, 7);
	assert_gp0(&m, xsetbv(&m, 5));
	assert_gp0(&m, xsetbv(&m, 6));
	assert_gp0(&m, xsetbv(&m, 0xf));
	ck_assert_uint_eq(m.cpu.xcr0, 7);
	machine_free(&m);
	machine_init(&m, "nehalem-lite");
	m.cpu.cr4 |= CR4_OSXSAVE;
	assert_gp0(&m, xsetbv(&m, 7));
	ck_assert_int_eq(xsetbv(&m, 3), ST_OK);
	machine_free(&m);
}
END_TEST

static uint64_t rd64(struct test_machine *m, uint32_t a)
{
	uint64_t v;
	memcpy(&v, m->pm.ram + a, 8);
	return v;
}

/* XSAVE/XSAVEOPT write YMM_Hi128 at 576 with XSTATE_BV[2] (RFBM[2] = 1); XRSTOR
 * loads it when XSTATE_BV[2] = 1 and zeroes it (its init state) when 0, and
 * leaves it with RFBM[2] = 0 (SDM Vol.1 13.5.3, 13.7, 13.8.1). Outside 64-bit
 * mode only YMM0-7 (SDM Vol.1 13.13). FXSAVE/FXRSTOR do not touch it. */
START_TEST(xsave_component2)
{
	struct test_machine m;
	avx_machine(&m, "skylake-lite");
	fill_ymm(&m.cpu);
	memset(m.pm.ram + DATA, 0xee, 1024);
	memset(m.pm.ram + DATA + 512, 0, 64);                              /* the XSAVE header */
	m.cpu.regs[R_BX] = DATA;
	m.cpu.regs[R_AX] = 7;
	m.cpu.regs[R_DX] = 0;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xae, 0x23), ST_OK);               /* xsave [ebx] */
	ck_assert_uint_eq(rd64(&m, DATA + 512) & 7, 7);
	ck_assert_uint_eq(rd64(&m, DATA + 576), m.cpu.fpu.ymm_hi[0].q[0]);
	ck_assert_uint_eq(rd64(&m, DATA + 576 + 7 * 16 + 8), m.cpu.fpu.ymm_hi[7].q[1]);
	ck_assert_uint_eq(rd64(&m, DATA + 576 + 8 * 16), 0xeeeeeeeeeeeeeeeeull);   /* YMM8: not in 32-bit mode */
	/* XRSTOR with XSTATE_BV[2] = 1 loads the saved halves. */
	memset(m.cpu.fpu.ymm_hi, 0x11, sizeof(m.cpu.fpu.ymm_hi));
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xae, 0x2b), ST_OK);               /* xrstor [ebx] */
	ck_assert_uint_eq(m.cpu.fpu.ymm_hi[3].b[0], 0x80 + 3 * 16);
	ck_assert_uint_eq(m.cpu.fpu.ymm_hi[9].b[0], 0x11);                 /* YMM9: untouched */
	/* XSTATE_BV[2] = 0: the init state, zeros. */
	m.pm.ram[DATA + 512] = 3;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xae, 0x2b), ST_OK);
	ck_assert(hi_zero(&m.cpu, 3));
	/* RFBM[2] = 0: left alone. */
	memset(m.cpu.fpu.ymm_hi, 0x22, sizeof(m.cpu.fpu.ymm_hi));
	m.cpu.regs[R_AX] = 3;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xae, 0x2b), ST_OK);
	ck_assert_uint_eq(m.cpu.fpu.ymm_hi[3].b[0], 0x22);
	/* XSAVEOPT: as XSAVE here. */
	m.cpu.regs[R_AX] = 7;
	memset(m.pm.ram + DATA + 576, 0, 256);
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xae, 0x33), ST_OK);               /* xsaveopt [ebx] */
	ck_assert_uint_eq(rd64(&m, DATA + 576 + 16), 0x2222222222222222ull);
	ck_assert_uint_eq(rd64(&m, DATA + 512) & 4, 4);
	/* FXSAVE/FXRSTOR: YMM_Hi128 untouched (SDM Vol.1 10.5.1 and 13.13). */
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xae, 0x03), ST_OK);               /* fxsave [ebx] */
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xae, 0x0b), ST_OK);               /* fxrstor [ebx] */
	ck_assert_uint_eq(m.cpu.fpu.ymm_hi[5].b[0], 0x22);
	/* An XRSTOR whose AVX part is past the DS limit: #GP(0), and the x87 and
	 * SSE parts it read first are not loaded either. */
	m.pm.ram[DATA + 160] ^= 0xff;                                      /* saved XMM0 differs */
	m.cpu.seg[SR_DS].limit = DATA + 600;
	seg_refresh(&m.cpu.seg[SR_DS]);
	uint8_t xmm0 = m.cpu.fpu.xmm[0].b[0];
	assert_gp0(&m, EXEC(&m, 0x0f, 0xae, 0x2b));
	ck_assert_uint_eq(m.cpu.fpu.xmm[0].b[0], xmm0);
	m.pm.ram[DATA + 512] = 3;                                          /* XSTATE_BV[2] = 0: not read */
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xae, 0x2b), ST_OK);
	ck_assert_uint_eq(m.cpu.fpu.xmm[0].b[0], (uint8_t)(xmm0 ^ 0xff));
	ck_assert(hi_zero(&m.cpu, 5));
	machine_free(&m);
	/* No XSAVEOPT in CPUID.(EAX=0DH,ECX=1):EAX[0]: #UD. */
	machine_init(&m, "nehalem-lite");
	m.cpu.cr4 |= CR4_OSXSAVE | CR4_OSFXSR;
	m.cpu.regs[R_BX] = DATA;
	assert_ud(&m, EXEC(&m, 0x0f, 0xae, 0x33));
	machine_free(&m);
}
END_TEST

static void wr64(struct test_machine *m, uint32_t a, uint64_t v) { memcpy(m->pm.ram + a, &v, 8); }

/* XSAVEC (SDM Vol.1 13.10, Vol.2 XSAVEC): XSTATE_BV := RFBM AND XINUSE,
 * XCOMP_BV := RFBM | bit 63, the rest of the header untouched, MXCSR only with
 * RFBM[1]; the compacted XRSTOR's header rules and its MXCSR init (13.8.2). */
START_TEST(xsavec_compacted)
{
	struct test_machine m;
	avx_machine(&m, "skylake-lite");
	fill_ymm(&m.cpu);
	m.cpu.fpu.mxcsr = 0x1fa0;
	memset(m.pm.ram + DATA, 0xee, 1024);
	m.cpu.regs[R_BX] = DATA;
	m.cpu.regs[R_AX] = 7;
	m.cpu.regs[R_DX] = 0;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xc7, 0x23), ST_OK);               /* xsavec [ebx] */
	ck_assert_uint_eq(rd64(&m, DATA + 512), 7);
	ck_assert_uint_eq(rd64(&m, DATA + 520), 0x8000000000000007ull);
	ck_assert_uint_eq(rd64(&m, DATA + 528), 0xeeeeeeeeeeeeeeeeull);    /* header 63:16 untouched */
	ck_assert_uint_eq(rd64(&m, DATA + 576 + 16), m.cpu.fpu.ymm_hi[1].q[0]);
	ck_assert_uint_eq(rd64(&m, DATA + 24) & 0xffffffff, 0x1fa0);
	/* RFBM = x87|AVX: no MXCSR (it goes with SSE only), XSTATE_BV = 5. */
	memset(m.pm.ram + DATA, 0xee, 1024);
	m.cpu.regs[R_AX] = 5;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xc7, 0x23), ST_OK);
	ck_assert_uint_eq(rd64(&m, DATA + 512), 5);
	ck_assert_uint_eq(rd64(&m, DATA + 520), 0x8000000000000005ull);
	ck_assert_uint_eq(rd64(&m, DATA + 24), 0xeeeeeeeeeeeeeeeeull);
	/* The compacted XRSTOR: header bytes 63:16 must be zero. */
	m.cpu.regs[R_AX] = 7;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xc7, 0x23), ST_OK);
	assert_gp0(&m, EXEC(&m, 0x0f, 0xae, 0x2b));
	memset(m.pm.ram + DATA + 528, 0, 48);
	memset(m.cpu.fpu.ymm_hi, 0, sizeof(m.cpu.fpu.ymm_hi));
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xae, 0x2b), ST_OK);
	ck_assert_uint_eq(m.cpu.fpu.ymm_hi[1].b[0], 0x90);
	ck_assert_uint_eq(m.cpu.fpu.mxcsr, 0x1fa0);
	/* XSTATE_BV[1] = 0: SSE to its init state and MXCSR to 1F80H. */
	wr64(&m, DATA + 512, 5);
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xae, 0x2b), ST_OK);
	ck_assert_uint_eq(m.cpu.fpu.mxcsr, 0x1f80);
	ck_assert_uint_eq(m.cpu.fpu.xmm[2].q[0], 0);
	/* XSTATE_BV with a bit XCOMP_BV lacks; XCOMP_BV with a bit XCR0 lacks. */
	wr64(&m, DATA + 520, 0x8000000000000003ull);
	wr64(&m, DATA + 512, 7);
	assert_gp0(&m, EXEC(&m, 0x0f, 0xae, 0x2b));
	wr64(&m, DATA + 520, 0x800000000000000full);
	assert_gp0(&m, EXEC(&m, 0x0f, 0xae, 0x2b));
	/* The standard form still refuses a nonzero XCOMP_BV[62:0]. */
	wr64(&m, DATA + 520, 7);
	assert_gp0(&m, EXEC(&m, 0x0f, 0xae, 0x2b));
	machine_free(&m);
	/* Without CPUID.(EAX=0DH,ECX=1):EAX[1]: XSAVEC #UD, the compacted XRSTOR #GP(0). */
	machine_init(&m, "nehalem-lite");
	m.cpu.cr4 |= CR4_OSXSAVE | CR4_OSFXSR;
	m.cpu.xcr0 = 3;
	m.cpu.regs[R_BX] = DATA;
	m.cpu.regs[R_AX] = 3;
	m.cpu.regs[R_DX] = 0;
	assert_ud(&m, EXEC(&m, 0x0f, 0xc7, 0x23));
	memset(m.pm.ram + DATA, 0, 1024);
	wr64(&m, DATA + 24, 0x1f80);
	wr64(&m, DATA + 512, 3);
	wr64(&m, DATA + 520, 0x8000000000000003ull);
	assert_gp0(&m, EXEC(&m, 0x0f, 0xae, 0x2b));
	machine_free(&m);
}
END_TEST

/* In 64-bit mode XSAVE covers YMM8-15 too; a fault on the AVX part of an
 * XRSTOR changes nothing. */
START_TEST(xsave_64)
{
	struct test_machine m;
	avx_machine(&m, "skylake-lite");
	activate(&m);
	to64(&m);
	m.cpu.cr4 |= CR4_OSFXSR | CR4_OSXSAVE;
	fill_ymm(&m.cpu);
	m.cpu.regs[R_BX] = DATA;
	m.cpu.regs[R_AX] = 7;
	m.cpu.regs[R_DX] = 0;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xae, 0x23), ST_OK);
	ck_assert_uint_eq(rd64(&m, DATA + 576 + 15 * 16), m.cpu.fpu.ymm_hi[15].q[0]);
	ck_assert_int_eq(EXEC(&m, 0xc5, 0x7c, 0x28, 0xc1), ST_OK);         /* vmovaps ymm8, ymm1 */
	ck_assert_uint_eq(m.cpu.fpu.ymm_hi[8].b[0], 0x90);
	/* vaddps ymm9, ymm10, ymm11 (C4 41 2C 58 CB): VEX.R, VEX.B and vvvv[3]
	 * reach registers 8-15 (SDM Vol.2 2.3.5). */
	for (unsigned i = 0; i < 4; i++) {
		m.cpu.fpu.xmm[10].d[i] = m.cpu.fpu.ymm_hi[10].d[i] = 0x3f800000;       /* 1.0 */
		m.cpu.fpu.xmm[11].d[i] = m.cpu.fpu.ymm_hi[11].d[i] = 0x40000000;       /* 2.0 */
	}
	ck_assert_int_eq(EXEC(&m, 0xc4, 0x41, 0x2c, 0x58, 0xcb), ST_OK);
	ck_assert_uint_eq(m.cpu.fpu.xmm[9].d[0], 0x40400000);
	ck_assert_uint_eq(m.cpu.fpu.ymm_hi[9].d[3], 0x40400000);
	/* A REX prefix before VEX is #UD (SDM Vol.2 2.3.2). */
	assert_ud(&m, EXEC(&m, 0x40, 0xc4, 0x41, 0x2c, 0x58, 0xcb));
	assert_ud(&m, EXEC(&m, 0xf2, 0xc4, 0x41, 0x2c, 0x58, 0xcb));
	machine_free(&m);
}
END_TEST

static Suite *avx_suite(void)
{
	Suite *s = suite_create("avx");
	TCase *t = tcase_create("rules");
	tcase_add_test(t, state_gate);
	tcase_add_test(t, real_and_v86);
	tcase_add_test(t, alignment);
	tcase_add_test(t, upper_bits);
	tcase_add_test(t, encodings_and_features);
	tcase_add_test(t, cpuid_leaves);
	tcase_add_test(t, xsetbv_rules);
	tcase_add_test(t, xsave_component2);
	tcase_add_test(t, xsave_64);
	tcase_add_test(t, xsavec_compacted);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(avx_suite());
}
