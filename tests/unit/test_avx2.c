/* Check suite for the VEX-only AVX/AVX2, FMA and F16C rows (emu/avx_permute.c,
 * avx_mask.c, avx_gather.c, fma.c, f16c.c): the rules the host-differential
 * run (tests/diff, -m avx2) cannot reach from user mode or with its random
 * operands: the encodings a row does not take (#UD), the gathers' register
 * rules and VSIB forms, a gather and masked moves stopped by a segment limit
 * midway, VZEROUPPER/VZEROALL outside 64-bit mode, the AVX state gate, and
 * CPUID gating. Tests as rows where they are rows. */
#include <string.h>

#include "emu/fpu_state.h"
#include "machine_fixture.h"
#include "suite_runner.h"

#define DATA 0x20000u
#define NONE (-1)

/* skylake-lite reporting AVX (CPUID.01H:ECX[28]), which the VEX forms of SSE
 * bring (another part of issue 21); or nehalem-lite, which has none of it. */
static const struct cpu_model *avx_model(bool avx)
{
	static struct cpuid_leaf leaves[64];
	static struct cpu_model m;
	const struct cpu_model *base = model_named(avx ? "skylake-lite" : "nehalem-lite");
	ck_assert_uint_le(base->cpuid_count, 64);
	m = *base;
	memcpy(leaves, base->cpuid, base->cpuid_count * sizeof(leaves[0]));
	for (unsigned i = 0; avx && i < base->cpuid_count; i++)
		if (leaves[i].leaf == 1)
			leaves[i].ecx |= 1u << 28;
	m.cpuid = leaves;
	return &m;
}

/* 32-bit protected mode with the AVX state enabled as an OS would: CR4.OSFXSR,
 * OSXMMEXCPT, OSXSAVE and XCR0 = x87 | SSE | AVX (set directly). EAX = DATA. */
static void avx_machine(struct test_machine *m, bool avx)
{
	machine_init_model(m, avx_model(avx));
	m->cpu.cr4 |= CR4_OSFXSR | CR4_OSXMMEXCPT | CR4_OSXSAVE;
	m->cpu.cr0 |= CR0_NE;
	m->cpu.xcr0 = XSTATE_X87 | XSTATE_SSE | XSTATE_AVX;
	m->cpu.fpu.mxcsr = MXCSR_RESET;
	m->cpu.regs[R_AX] = DATA;
}

static int vector_of(struct test_machine *m, status_t st)
{
	if (st == ST_OK)
		return NONE;
	ck_assert_int_eq(st, ST_FAULT);
	return m->cpu.event.vector;
}

/* One instruction in 32-bit mode (VEX: C4 R̄X̄B̄mmmmm W v̄v̄v̄v̄ L pp). */
static const struct row {
	const char *name;
	bool avx;                  /* the model reports AVX (else nehalem-lite) */
	uint8_t len, bytes[8];
	int vector;
} rows[] = {
	/* VEX.L and VEX.W a row does not take: no row, #UD (each page's
	 * "#UD If VEX.L = 0" / "If VEX.W = 1") */
	{ "VPERMQ ymm, ymm, imm8 runs", true, 6, { 0xc4, 0xe3, 0xfd, 0x00, 0xc1, 0x1b }, NONE },
	/* (an encoding no row takes decodes without its immediate: #UD) */
	{ "VPERMQ with VEX.L = 0: #UD", true, 5, { 0xc4, 0xe3, 0xf9, 0x00, 0xc1 }, EXC_UD },
	{ "VPERMQ with VEX.W = 0: #UD", true, 5, { 0xc4, 0xe3, 0x7d, 0x00, 0xc1 }, EXC_UD },
	{ "VBROADCASTSD xmm (VEX.L = 0): #UD", true, 5, { 0xc4, 0xe2, 0x79, 0x19, 0x00 }, EXC_UD },
	{ "VINSERTF128 with VEX.L = 0: #UD", true, 5, { 0xc4, 0xe3, 0x71, 0x18, 0xc2 }, EXC_UD },
	{ "VCVTPH2PS with VEX.W = 1: #UD", true, 5, { 0xc4, 0xe2, 0xf9, 0x13, 0xc1 }, EXC_UD },
	{ "VCVTPH2PS xmm, xmm runs", true, 5, { 0xc4, 0xe2, 0x79, 0x13, 0xc1 }, NONE },
	{ "VFMADD132PS ymm runs", true, 5, { 0xc4, 0xe2, 0x75, 0x98, 0xc2 }, NONE },
	{ "VFMADD132SS with VEX.L = 1 runs (LIG)", true, 5, { 0xc4, 0xe2, 0x75, 0x99, 0xc2 }, NONE },
	/* SDM Vol.2 2.3.6: no VEX.vvvv operand, vvvv != 1111b: #UD */
	{ "VBROADCASTSS with vvvv = 1: #UD", true, 5, { 0xc4, 0xe2, 0x71, 0x18, 0x00 }, EXC_UD },
	{ "VBROADCASTSS xmm, m32 runs", true, 5, { 0xc4, 0xe2, 0x79, 0x18, 0x00 }, NONE },
	/* VMASKMOV and VPBROADCASTB: register forms; VMASKMOV has none */
	{ "VMASKMOVPS register form: #UD", true, 5, { 0xc4, 0xe2, 0x71, 0x2c, 0xc0 }, EXC_UD },
	/* gathers: SDM Vol.2 VGATHERDPS "#UD If any pair of the index, mask, or
	 * destination registers are the same"; VSIB needs a SIB (2.3.12) and a
	 * 32/64-bit address size */
	{ "VGATHERDPS xmm1, [eax+xmm3*4], xmm2 runs", true, 6, { 0xc4, 0xe2, 0x69, 0x92, 0x0c, 0x98 }, NONE },
	{ "VGATHERDPS destination = index: #UD", true, 6, { 0xc4, 0xe2, 0x69, 0x92, 0x0c, 0x88 }, EXC_UD },
	{ "VGATHERDPS destination = mask: #UD", true, 6, { 0xc4, 0xe2, 0x71, 0x92, 0x0c, 0x98 }, EXC_UD },
	{ "VGATHERDPS mask = index: #UD", true, 6, { 0xc4, 0xe2, 0x69, 0x92, 0x0c, 0x90 }, EXC_UD },
	{ "VPGATHERDD without SIB (rm = 000): #UD", true, 5, { 0xc4, 0xe2, 0x69, 0x90, 0x08 }, EXC_UD },
	{ "VPGATHERDD register form: #UD", true, 5, { 0xc4, 0xe2, 0x69, 0x90, 0xc8 }, EXC_UD },
	{ "VPGATHERDD with a 16-bit address size: #UD", true, 6, { 0x67, 0xc4, 0xe2, 0x69, 0x90, 0x0c }, EXC_UD },
	{ "VPGATHERDD index 100b is XMM4, not \"none\": runs", true, 6, { 0xc4, 0xe2, 0x69, 0x90, 0x0c, 0xa0 }, NONE },
	{ "VPGATHERDD index 100b = destination XMM4: #UD", true, 6, { 0xc4, 0xe2, 0x69, 0x90, 0x24, 0xa0 }, EXC_UD },
	/* CPUID gating (the rows' feature column): nehalem-lite has no AVX2,
	 * FMA, F16C or AVX */
	{ "nehalem-lite: no AVX2: VPERMQ #UD", false, 6, { 0xc4, 0xe3, 0xfd, 0x00, 0xc1, 0x1b }, EXC_UD },
	{ "nehalem-lite: no FMA: VFMADD132PS #UD", false, 5, { 0xc4, 0xe2, 0x75, 0x98, 0xc2 }, EXC_UD },
	{ "nehalem-lite: no F16C: VCVTPH2PS #UD", false, 5, { 0xc4, 0xe2, 0x79, 0x13, 0xc1 }, EXC_UD },
	{ "nehalem-lite: no AVX: VZEROUPPER #UD", false, 3, { 0xc5, 0xf8, 0x77 }, EXC_UD },
};

START_TEST(row)
{
	const struct row *r = &rows[_i];
	struct test_machine m;
	avx_machine(&m, r->avx);
	int v = vector_of(&m, exec(&m, r->bytes, r->len));
	if (v != r->vector)
		ck_abort_msg("%s: vector %d, want %d", r->name, v, r->vector);
	machine_free(&m);
}
END_TEST

/* SDM Vol.2 Table 2-18 (avx_gate, emu/avx.h) on these rows: #UD with
 * CR4.OSXSAVE = 0 or XCR0[2:1] != 11b, #NM with CR0.TS; a gather's register
 * rule comes first (a property of the encoding). */
START_TEST(state_gate)
{
	struct test_machine m;
	avx_machine(&m, true);
	m.cpu.xcr0 = XSTATE_X87 | XSTATE_SSE;
	assert_ud(&m, EXEC(&m, 0xc4, 0xe3, 0xfd, 0x00, 0xc1, 0x1b));         /* vpermq */
	m.cpu.xcr0 |= XSTATE_AVX;
	m.cpu.cr4 &= ~(uint64_t)CR4_OSXSAVE;
	assert_ud(&m, EXEC(&m, 0xc4, 0xe2, 0x79, 0x13, 0xc1));               /* vcvtph2ps */
	m.cpu.cr4 |= CR4_OSXSAVE;
	m.cpu.cr0 |= CR0_TS;
	assert_fault(&m, EXEC(&m, 0xc4, 0xe2, 0x75, 0x98, 0xc2), EXC_NM, 0); /* vfmadd132ps */
	assert_fault(&m, EXEC(&m, 0xc5, 0xf8, 0x77), EXC_NM, 0);             /* vzeroupper */
	assert_ud(&m, EXEC(&m, 0xc4, 0xe2, 0x69, 0x92, 0x0c, 0x88));         /* gather, dst = index */
	machine_free(&m);
}
END_TEST

/* DS with a byte-granular limit: an access past DATA + limit is #GP(0) (SDM
 * Vol.3 5.3), the fault a 32-bit guest gets midway through a gather. */
static void limit_ds(struct test_machine *m, uint32_t limit)
{
	seg_load_descriptor(&m->cpu.seg[SR_DS], SEL_DATA, make_desc(0, DATA + limit, 0x93, 0x4));
}

static void put32(struct test_machine *m, uint32_t a, uint32_t v) { physmem_write(&m->pm, a, 4, v); }

/* SDM Vol.2 VGATHERDPS: elements in order, each mask element cleared as it
 * completes; a fault midway leaves the completed elements loaded and their
 * mask elements clear, the others all ones (the mask normalized first); a
 * restart completes the rest and clears the whole mask. */
START_TEST(gather_fault_midway)
{
	struct test_machine m;
	avx_machine(&m, true);
	limit_ds(&m, 0xff);
	static const uint32_t idx[4] = { 0, 1, 100, 2 };     /* element 2 at DATA + 400: past the limit */
	for (unsigned i = 0; i < 4; i++) {
		m.cpu.fpu.xmm[3].d[i] = idx[i];
		m.cpu.fpu.xmm[2].d[i] = 0x80000000u | i;             /* all enabled */
		m.cpu.fpu.xmm[1].d[i] = 0xdead0000u | i;
		put32(&m, DATA + 4 * idx[i], 0x1000u + i);
	}
	m.cpu.fpu.ymm_hi[1].q[0] = m.cpu.fpu.ymm_hi[2].q[0] = 0x5555;
	/* vgatherdps xmm1, [eax+xmm3*4], xmm2 */
	assert_gp0(&m, EXEC(&m, 0xc4, 0xe2, 0x69, 0x92, 0x0c, 0x98));
	ck_assert_uint_eq(m.cpu.fpu.xmm[1].d[0], 0x1000);
	ck_assert_uint_eq(m.cpu.fpu.xmm[1].d[1], 0x1001);
	ck_assert_uint_eq(m.cpu.fpu.xmm[1].d[2], 0xdead0002u);   /* not reached */
	ck_assert_uint_eq(m.cpu.fpu.xmm[1].d[3], 0xdead0003u);   /* above the fault: not loaded */
	ck_assert_uint_eq(m.cpu.fpu.xmm[2].d[0], 0);
	ck_assert_uint_eq(m.cpu.fpu.xmm[2].d[1], 0);
	ck_assert_uint_eq(m.cpu.fpu.xmm[2].d[2], 0xffffffffu);
	ck_assert_uint_eq(m.cpu.fpu.xmm[2].d[3], 0xffffffffu);
	ck_assert_uint_eq(m.cpu.fpu.ymm_hi[2].q[0], 0);           /* VEX.128 mask: 255:128 zeroed */
	/* The restart with the segment widened completes elements 2 and 3. */
	limit_ds(&m, 0xfff);
	ck_assert_int_eq(EXEC(&m, 0xc4, 0xe2, 0x69, 0x92, 0x0c, 0x98), ST_OK);
	ck_assert_uint_eq(m.cpu.fpu.xmm[1].d[2], 0x1002);
	ck_assert_uint_eq(m.cpu.fpu.xmm[1].d[3], 0x1003);
	ck_assert_uint_eq(m.cpu.fpu.xmm[2].q[0] | m.cpu.fpu.xmm[2].q[1], 0);
	ck_assert_uint_eq(m.cpu.fpu.ymm_hi[1].q[0], 0);
	/* A disabled element is neither loaded nor accessed: no fault. */
	limit_ds(&m, 0xff);
	m.cpu.fpu.xmm[1].d[2] = 0x77;
	m.cpu.fpu.xmm[2].d[0] = 0x80000000u;
	ck_assert_int_eq(EXEC(&m, 0xc4, 0xe2, 0x69, 0x92, 0x0c, 0x98), ST_OK);
	ck_assert_uint_eq(m.cpu.fpu.xmm[1].d[2], 0x77);
	machine_free(&m);
}
END_TEST

/* SDM Vol.2 VMASKMOV: "Faults will not occur due to referencing any memory
 * location if the corresponding mask bit for that memory location is 0"; a
 * masked-off element is zero in a load's destination and unwritten by a
 * store; an enabled element past the limit faults with nothing changed. */
START_TEST(maskmov_masked_off_no_fault)
{
	struct test_machine m;
	avx_machine(&m, true);
	limit_ds(&m, 0xff);
	m.cpu.regs[R_AX] = DATA + 0xf8;                       /* elements 0, 1 inside; 2, 3 past the limit */
	put32(&m, DATA + 0xf8, 0x11);
	put32(&m, DATA + 0xfc, 0x22);
	m.cpu.fpu.xmm[2] = (union xmm_reg){ .d = { 0x80000000u, 0x80000000u, 0x7fffffffu, 0 } };
	m.cpu.fpu.xmm[1] = (union xmm_reg){ .d = { 9, 9, 9, 9 } };
	/* vmaskmovps xmm1, xmm2, [eax] */
	ck_assert_int_eq(EXEC(&m, 0xc4, 0xe2, 0x69, 0x2c, 0x08), ST_OK);
	ck_assert_uint_eq(m.cpu.fpu.xmm[1].d[0], 0x11);
	ck_assert_uint_eq(m.cpu.fpu.xmm[1].d[1], 0x22);
	ck_assert_uint_eq(m.cpu.fpu.xmm[1].d[2] | m.cpu.fpu.xmm[1].d[3], 0);
	m.cpu.fpu.xmm[2].d[3] = 0x80000000u;
	m.cpu.fpu.xmm[1].d[0] = 9;
	assert_gp0(&m, EXEC(&m, 0xc4, 0xe2, 0x69, 0x2c, 0x08));
	ck_assert_uint_eq(m.cpu.fpu.xmm[1].d[0], 9);              /* unchanged */
	/* vmaskmovps [eax], xmm2, xmm1: the enabled element past the limit
	 * faults before any element is written */
	m.cpu.fpu.xmm[1] = (union xmm_reg){ .d = { 0xa, 0xb, 0xc, 0xd } };
	assert_gp0(&m, EXEC(&m, 0xc4, 0xe2, 0x69, 0x2e, 0x08));
	ck_assert_uint_eq(physmem_read(&m.pm, DATA + 0xf8, 4), 0x11);
	m.cpu.fpu.xmm[2].d[3] = 0;
	m.cpu.fpu.xmm[2].d[1] = 0;
	ck_assert_int_eq(EXEC(&m, 0xc4, 0xe2, 0x69, 0x2e, 0x08), ST_OK);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA + 0xf8, 4), 0xa);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA + 0xfc, 4), 0x22);                               /* masked off: unwritten */
	machine_free(&m);
}
END_TEST

/* SDM Vol.2 VZEROUPPER/VZEROALL: "In Compatibility and legacy 32-bit mode
 * only the lower 8 registers are modified." */
START_TEST(vzero_32bit)
{
	struct test_machine m;
	avx_machine(&m, true);
	for (unsigned i = 0; i < 16; i++) {
		m.cpu.fpu.xmm[i].q[0] = 0x100 + i;
		m.cpu.fpu.ymm_hi[i].q[1] = 0x200 + i;
	}
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xf8, 0x77), ST_OK);      /* vzeroupper */
	ck_assert_uint_eq(m.cpu.fpu.ymm_hi[7].q[1], 0);
	ck_assert_uint_eq(m.cpu.fpu.xmm[7].q[0], 0x107);
	ck_assert_uint_eq(m.cpu.fpu.ymm_hi[8].q[1], 0x208);
	m.cpu.fpu.ymm_hi[0].q[1] = 1;
	ck_assert_int_eq(EXEC(&m, 0xc5, 0xfc, 0x77), ST_OK);      /* vzeroall */
	ck_assert_uint_eq(m.cpu.fpu.xmm[0].q[0] | m.cpu.fpu.ymm_hi[0].q[1], 0);
	ck_assert_uint_eq(m.cpu.fpu.xmm[8].q[0], 0x108);
	ck_assert_uint_eq(m.cpu.fpu.ymm_hi[8].q[1], 0x208);
	machine_free(&m);
}
END_TEST

/* An unmasked SIMD floating-point exception of FMA/F16C (SDM Vol.1 11.5.3):
 * #XM (CR4.OSXMMEXCPT) or #UD, the destination unchanged, the flag set. */
START_TEST(unmasked_fp)
{
	struct test_machine m;
	avx_machine(&m, true);
	m.cpu.fpu.xmm[1].d[0] = 0x7f800001u;                      /* SNaN */
	m.cpu.fpu.xmm[0].d[0] = 0x3f800000u;
	m.cpu.fpu.xmm[2].d[0] = 0x3f800000u;
	m.cpu.fpu.mxcsr = MXCSR_RESET & ~(uint32_t)(MXCSR_IE << MXCSR_MASK_SHIFT);
	/* vfmadd231ss xmm0, xmm1, xmm2 */
	assert_fault(&m, EXEC(&m, 0xc4, 0xe2, 0x71, 0xb9, 0xc2), EXC_XM, 0);
	ck_assert_uint_eq(m.cpu.fpu.xmm[0].d[0], 0x3f800000u);
	ck_assert_uint_eq(m.cpu.fpu.mxcsr & MXCSR_FLAGS, MXCSR_IE);
	m.cpu.cr4 &= ~(uint64_t)CR4_OSXMMEXCPT;
	assert_ud(&m, EXEC(&m, 0xc4, 0xe2, 0x71, 0xb9, 0xc2));
	/* vcvtps2ph xmm3, xmm1, 0: the SNaN again, masked: a quiet NaN, IE */
	m.cpu.fpu.mxcsr = MXCSR_RESET;
	ck_assert_int_eq(EXEC(&m, 0xc4, 0xe3, 0x79, 0x1d, 0xcb, 0x00), ST_OK);
	ck_assert_uint_eq(m.cpu.fpu.xmm[3].w[0], 0x7e00);
	ck_assert_uint_eq(m.cpu.fpu.mxcsr & MXCSR_FLAGS, MXCSR_IE);
	machine_free(&m);
}
END_TEST

static Suite *avx2_suite(void)
{
	Suite *s = suite_create("avx2");
	TCase *t = tcase_create("rules");
	tcase_add_loop_test(t, row, 0, sizeof(rows) / sizeof(rows[0]));
	tcase_add_test(t, state_gate);
	tcase_add_test(t, gather_fault_midway);
	tcase_add_test(t, maskmov_masked_off_no_fault);
	tcase_add_test(t, vzero_32bit);
	tcase_add_test(t, unmasked_fp);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(avx2_suite());
}
