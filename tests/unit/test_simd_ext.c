/* Check suite for the SSE3..SHA extensions' rules the host-differential run
 * cannot reach from user mode (emu/ssse3.c, sse3.c, sse4.c, sse4_fp.c,
 * sse_string.c, crypto.c): #UD on a model without the CPUID feature, the
 * legacy-SSE 16-byte alignment #GP(0) where the instruction page requires it
 * and its absence where it does not (SDM Vol.2 Table 2-21 "Type 4" and the
 * exceptions of each page), the CR0/CR4 gates of the XMM and MMX forms (SDM
 * Vol.3 2.5 Table 2-2), and unmasked SIMD floating-point exceptions (#XM, #UD
 * without CR4.OSXMMEXCPT; SDM Vol.1 11.5.3). Tests as rows. */
#include <string.h>

#include "emu/flags.h"
#include "emu/fpu_state.h"
#include "machine_fixture.h"
#include "suite_runner.h"

#define DATA 0x20000u
#define NONE (-1)

/* 32-bit protected mode, CR4.OSFXSR|OSXMMEXCPT, CR0.NE; EAX = the operand address. */
static void simd_machine(struct test_machine *m, const char *model, uint32_t addr)
{
	machine_init(m, model);
	m->cpu.cr4 |= CR4_OSFXSR | CR4_OSXMMEXCPT;
	m->cpu.cr0 |= CR0_NE;
	fpu_init_x87(&m->cpu.fpu);
	m->cpu.regs[R_AX] = addr;
}

static int vector_of(struct test_machine *m, status_t st)
{
	if (st == ST_OK)
		return NONE;
	ck_assert_int_eq(st, ST_FAULT);
	return m->cpu.event.vector;
}

/* One instruction, ModRM [EAX] or a register form, on a model. */
static const struct row {
	const char *name, *model;
	uint8_t len, bytes[8];
	uint32_t addr;
	int vector;
} rows[] = {
	/* alignment: SDM Vol.2 Table 2-21 (Type 4) vs. the pages that waive it */
	{ "PTEST m128 misaligned: #GP(0)", "skylake-lite", 5, { 0x66, 0x0f, 0x38, 0x17, 0x00 }, DATA + 8, EXC_GP },
	{ "PTEST m128 aligned", "skylake-lite", 5, { 0x66, 0x0f, 0x38, 0x17, 0x00 }, DATA, NONE },
	{ "PSHUFB xmm, m128 misaligned: #GP(0)", "skylake-lite", 5, { 0x66, 0x0f, 0x38, 0x00, 0x00 }, DATA + 8, EXC_GP },
	{ "PSHUFB mm, m64 misaligned: no #GP", "skylake-lite", 4, { 0x0f, 0x38, 0x00, 0x00 }, DATA + 1, NONE },
	{ "HADDPS m128 misaligned: #GP(0)", "skylake-lite", 4, { 0xf2, 0x0f, 0x7c, 0x00 }, DATA + 4, EXC_GP },
	{ "MOVSHDUP m128 misaligned: #GP(0)", "skylake-lite", 4, { 0xf3, 0x0f, 0x16, 0x00 }, DATA + 4, EXC_GP },
	{ "MOVDDUP m64 misaligned: no #GP", "skylake-lite", 4, { 0xf2, 0x0f, 0x12, 0x00 }, DATA + 4, NONE },
	{ "LDDQU misaligned: no #GP (SDM LDDQU)", "skylake-lite", 4, { 0xf2, 0x0f, 0xf0, 0x00 }, DATA + 8, NONE },
	{ "PMOVSXBW m64 misaligned: no #GP", "skylake-lite", 5, { 0x66, 0x0f, 0x38, 0x20, 0x00 }, DATA + 1, NONE },
	{ "MOVNTDQA misaligned: #GP(0)", "skylake-lite", 5, { 0x66, 0x0f, 0x38, 0x2a, 0x00 }, DATA + 8, EXC_GP },
	{ "ROUNDSS m32 misaligned: no #GP", "skylake-lite", 6, { 0x66, 0x0f, 0x3a, 0x0a, 0x00, 0x04 }, DATA + 2, NONE },
	{ "ROUNDPS m128 misaligned: #GP(0)", "skylake-lite", 6, { 0x66, 0x0f, 0x3a, 0x08, 0x00, 0x04 }, DATA + 2, EXC_GP },
	{ "PCMPESTRI m128 misaligned: no #GP (SDM 4.1)", "skylake-lite", 6, { 0x66, 0x0f, 0x3a, 0x61, 0x00, 0x0c },
	  DATA + 1, NONE },
	{ "AESENC m128 misaligned: #GP(0)", "skylake-lite", 5, { 0x66, 0x0f, 0x38, 0xdc, 0x00 }, DATA + 8, EXC_GP },
	{ "PCLMULQDQ m128 misaligned: #GP(0)", "skylake-lite", 6, { 0x66, 0x0f, 0x3a, 0x44, 0x00, 0x11 }, DATA + 4,
	  EXC_GP },
	{ "SHA1MSG1 m128 misaligned: #GP(0)", "icelake-lite", 4, { 0x0f, 0x38, 0xc9, 0x00 }, DATA + 4, EXC_GP },
	/* CPUID gating (the rows' feature column) */
	{ "pentium: no SSE3: HADDPS #UD", "pentium", 4, { 0xf2, 0x0f, 0x7c, 0xc1 }, 0, EXC_UD },
	{ "pentium: no SSE2: MOVNTI #UD", "pentium", 3, { 0x0f, 0xc3, 0x00 }, DATA, EXC_UD },
	{ "core2: MOVNTI runs", "core2", 3, { 0x0f, 0xc3, 0x00 }, DATA, NONE },
	{ "opteron-g3: SSE3 HADDPS runs", "opteron-g3", 4, { 0xf2, 0x0f, 0x7c, 0xc1 }, 0, NONE },
	{ "opteron-g3: no SSSE3: PSHUFB mm #UD", "opteron-g3", 4, { 0x0f, 0x38, 0x00, 0xc1 }, 0, EXC_UD },
	{ "core2: SSSE3 PSHUFB xmm runs", "core2", 5, { 0x66, 0x0f, 0x38, 0x00, 0xc1 }, 0, NONE },
	{ "core2: no SSE4.1: PTEST #UD", "core2", 5, { 0x66, 0x0f, 0x38, 0x17, 0xc1 }, 0, EXC_UD },
	{ "core2: no SSE4.2: PCMPISTRI #UD", "core2", 6, { 0x66, 0x0f, 0x3a, 0x63, 0xc1, 0 }, 0, EXC_UD },
	{ "nehalem-lite: PCMPISTRI runs", "nehalem-lite", 6, { 0x66, 0x0f, 0x3a, 0x63, 0xc1, 0 }, 0, NONE },
	{ "nehalem-lite: no AES: AESENC #UD", "nehalem-lite", 5, { 0x66, 0x0f, 0x38, 0xdc, 0xc1 }, 0, EXC_UD },
	{ "nehalem-lite: no PCLMULQDQ: #UD", "nehalem-lite", 6, { 0x66, 0x0f, 0x3a, 0x44, 0xc1, 0 }, 0, EXC_UD },
	{ "skylake-lite: AESENC runs", "skylake-lite", 5, { 0x66, 0x0f, 0x38, 0xdc, 0xc1 }, 0, NONE },
	{ "skylake-lite: no SHA: SHA256RNDS2 #UD", "skylake-lite", 4, { 0x0f, 0x38, 0xcb, 0xc1 }, 0, EXC_UD },
	{ "epyc-lite: SHA256RNDS2 runs", "epyc-lite", 4, { 0x0f, 0x38, 0xcb, 0xc1 }, 0, NONE },
};

START_TEST(row)
{
	const struct row *r = &rows[_i];
	struct test_machine m;
	simd_machine(&m, r->model, r->addr);
	int v = vector_of(&m, exec(&m, r->bytes, r->len));
	if (v != r->vector)
		ck_abort_msg("%s: vector %d, want %d", r->name, v, r->vector);
	machine_free(&m);
}
END_TEST

/* SDM Vol.3 2.5 Table 2-2: the XMM forms need CR4.OSFXSR and take no #MF;
 * the MMX forms of SSSE3 are MMX instructions (emu/mmx.c): no OSFXSR, #UD
 * with CR0.EM, #MF for a pending x87 exception, and TOP = 0 after. */
START_TEST(gates)
{
	struct test_machine m;
	simd_machine(&m, "skylake-lite", DATA);
	m.cpu.cr4 &= ~(uint64_t)CR4_OSFXSR;
	assert_ud(&m, EXEC(&m, 0x66, 0x0f, 0x38, 0x00, 0xc1));     /* pshufb xmm0, xmm1 */
	m.cpu.fpu.fsw = 3u << FSW_TOP_SHIFT;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x38, 0x00, 0xc1), ST_OK);  /* pshufb mm0, mm1 */
	ck_assert_uint_eq(m.cpu.fpu.fsw & FSW_TOP_MASK, 0);
	ck_assert_uint_eq(m.cpu.fpu.r[0].sexp, 0xffff);
	m.cpu.cr4 |= CR4_OSFXSR;
	m.cpu.fpu.fsw = FSW_ES | FSW_IE;
	assert_fault(&m, EXEC(&m, 0x0f, 0x38, 0x1c, 0xc1), EXC_MF, 0);   /* pabsb mm0, mm1 */
	ck_assert_int_eq(EXEC(&m, 0x66, 0x0f, 0x38, 0x1c, 0xc1), ST_OK);  /* pabsb xmm0, xmm1 */
	m.cpu.fpu.fsw = 0;
	m.cpu.cr0 |= CR0_EM;
	assert_ud(&m, EXEC(&m, 0x0f, 0x38, 0x1c, 0xc1));
	assert_ud(&m, EXEC(&m, 0x66, 0x0f, 0x38, 0x1c, 0xc1));
	m.cpu.cr0 = (m.cpu.cr0 & ~(uint64_t)CR0_EM) | CR0_TS;
	assert_fault(&m, EXEC(&m, 0x66, 0x0f, 0x3a, 0x44, 0xc1, 0x00), EXC_NM, 0);   /* pclmulqdq */
	machine_free(&m);
}
END_TEST

/* SDM Vol.2 ROUNDSS: precision is signalled unless imm8[3]; unmasked it is #XM
 * (SDM Vol.1 11.5.3) and the destination is unchanged; without
 * CR4.OSXMMEXCPT #UD. HADDPS: an SNaN is an invalid operation. */
START_TEST(simd_fp_exceptions)
{
	struct test_machine m;
	simd_machine(&m, "skylake-lite", DATA);
	m.cpu.fpu.mxcsr = MXCSR_RESET & ~(uint32_t)(MXCSR_PE << MXCSR_MASK_SHIFT);   /* PM = 0 */
	m.cpu.fpu.xmm[1].d[0] = 0x3fc00000;        /* 1.5 */
	m.cpu.fpu.xmm[0].d[0] = 0x12345678;
	assert_fault(&m, EXEC(&m, 0x66, 0x0f, 0x3a, 0x0a, 0xc1, 0x00), EXC_XM, 0);   /* roundss xmm0, xmm1, 0 */
	ck_assert_uint_eq(m.cpu.fpu.xmm[0].d[0], 0x12345678);
	ck_assert_uint_ne(m.cpu.fpu.mxcsr & MXCSR_PE, 0);
	ck_assert_int_eq(EXEC(&m, 0x66, 0x0f, 0x3a, 0x0a, 0xc1, 0x08), ST_OK);       /* imm8[3]: suppressed */
	ck_assert_uint_eq(m.cpu.fpu.xmm[0].d[0], 0x40000000);                        /* 2.0: nearest even */
	ck_assert_int_eq(EXEC(&m, 0x66, 0x0f, 0x3a, 0x0a, 0xc1, 0x09), ST_OK);       /* down */
	ck_assert_uint_eq(m.cpu.fpu.xmm[0].d[0], 0x3f800000);
	m.cpu.fpu.mxcsr = MXCSR_RESET & ~(uint32_t)(MXCSR_IE << MXCSR_MASK_SHIFT);   /* IM = 0 */
	m.cpu.fpu.xmm[1].d[0] = 0x7f800001;        /* SNaN */
	m.cpu.cr4 &= ~(uint64_t)CR4_OSXMMEXCPT;
	assert_ud(&m, EXEC(&m, 0xf2, 0x0f, 0x7c, 0xc1));                              /* haddps xmm0, xmm1 */
	ck_assert_uint_ne(m.cpu.fpu.mxcsr & MXCSR_IE, 0);
	machine_free(&m);
}
END_TEST

/* 64-bit mode: REX.R/B reach XMM8-15, REX.W makes PEXTRD/PINSRD the quadword
 * forms (SDM Vol.2 PEXTRB/PEXTRD/PEXTRQ, PINSRB/PINSRD/PINSRQ); a byte or
 * dword register destination is zero-extended to 64 bits; the MMX forms of
 * SSSE3 ignore REX.R/B (SDM Vol.2 2.2.1.2). */
START_TEST(rex_forms)
{
	struct test_machine m;
	simd_machine(&m, "skylake-lite", DATA);
	activate(&m);
	to64(&m);
	m.cpu.cr4 |= CR4_OSFXSR;
	union xmm_reg *x = m.cpu.fpu.xmm;
	x[9].q[0] = 0x1111222233334444ull;
	x[9].q[1] = 0x5555666677778888ull;
	m.cpu.regs[R_AX] = ~0ull;
	ck_assert_int_eq(EXEC(&m, 0x66, 0x4c, 0x0f, 0x3a, 0x16, 0xc8, 0x01), ST_OK);  /* pextrq rax, xmm9, 1 */
	ck_assert_uint_eq(m.cpu.regs[R_AX], 0x5555666677778888ull);
	m.cpu.regs[R_AX] = ~0ull;
	ck_assert_int_eq(EXEC(&m, 0x66, 0x44, 0x0f, 0x3a, 0x14, 0xc8, 0x0f), ST_OK);  /* pextrb eax, xmm9, 15 */
	ck_assert_uint_eq(m.cpu.regs[R_AX], 0x55);
	m.cpu.regs[12] = 0xfedcba9876543210ull;
	ck_assert_int_eq(EXEC(&m, 0x66, 0x4d, 0x0f, 0x3a, 0x22, 0xcc, 0x00), ST_OK);  /* pinsrq xmm9, r12, 0 */
	ck_assert_uint_eq(x[9].q[0], 0xfedcba9876543210ull);
	ck_assert_uint_eq(x[9].q[1], 0x5555666677778888ull);
	ck_assert_int_eq(EXEC(&m, 0x66, 0x45, 0x0f, 0x3a, 0x20, 0xcc, 0x08), ST_OK);  /* pinsrb xmm9, r12d, 8 */
	ck_assert_uint_eq(x[9].b[8], 0x10);
	/* PCMPESTRI: REX.W takes the lengths from RAX/RDX (SDM 4.1.1); EAX = 5
	 * alone would make 5 valid bytes, RAX = 1_0000_0005H saturates to 16. */
	memset(x[1].b, 'a', 16);
	memset(x[2].b, 'b', 16);
	m.cpu.regs[R_AX] = 0x100000005ull;
	m.cpu.regs[R_DX] = 16;
	ck_assert_int_eq(EXEC(&m, 0x66, 0x48, 0x0f, 0x3a, 0x61, 0xca, 0x18), ST_OK);  /* pcmpestri xmm1, xmm2, 18H */
	ck_assert_uint_eq(m.cpu.regs[R_CX], 0);              /* equal each, negated: every byte differs */
	ck_assert_uint_eq(cpu_get_flags(&m.cpu) & (FLAG_SF | FLAG_ZF), 0);
	ck_assert_int_eq(EXEC(&m, 0x66, 0x0f, 0x3a, 0x61, 0xca, 0x18), ST_OK);        /* EAX = 5 */
	ck_assert_uint_eq(cpu_get_flags(&m.cpu) & FLAG_SF, FLAG_SF);
	x[3].q[0] = 0x0102030405060708ull;
	m.cpu.fpu.r[3].mant = 0x0102030405060708ull;
	ck_assert_int_eq(EXEC(&m, 0x45, 0x0f, 0x38, 0x1c, 0xdb), ST_OK);              /* pabsb mm3, mm3 (REX.RB) */
	ck_assert_uint_eq(m.cpu.fpu.r[3].mant, 0x0102030405060708ull);
	ck_assert_uint_eq(m.cpu.fpu.r[3].sexp, 0xffff);
	machine_free(&m);
}
END_TEST

/* Known answers: FIPS-197 Appendix C.1 (AES-128) through AESKEYGENASSIST
 * (the key schedule of the Intel AES-NI white paper, Figure 19) and AESENC /
 * AESENCLAST, then back with AESIMC and AESDEC / AESDECLAST. */
static const uint8_t pt[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
				0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
static const uint8_t ct[16] = { 0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
				0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a };

START_TEST(aes_fips197)
{
	static const uint8_t rcon[10] = { 1, 2, 4, 8, 16, 32, 64, 128, 0x1b, 0x36 };
	struct test_machine m;
	simd_machine(&m, "skylake-lite", DATA);
	union xmm_reg *x = m.cpu.fpu.xmm, keys[11];
	for (unsigned i = 0; i < 16; i++)
		keys[0].b[i] = (uint8_t)i;
	for (unsigned r = 0; r < 10; r++) {
		x[1] = keys[r];
		ck_assert_int_eq(EXEC(&m, 0x66, 0x0f, 0x3a, 0xdf, 0xd1, rcon[r]), ST_OK);   /* aeskeygenassist xmm2, xmm1 */
		uint32_t t = x[2].d[3], k[4];
		memcpy(k, keys[r].d, 16);
		k[0] ^= t;
		k[1] ^= k[0];
		k[2] ^= k[1];
		k[3] ^= k[2];
		memcpy(keys[r + 1].d, k, 16);
	}
	memcpy(x[0].b, pt, 16);
	for (unsigned i = 0; i < 16; i++)
		x[0].b[i] ^= keys[0].b[i];
	for (unsigned r = 1; r <= 10; r++) {
		x[1] = keys[r];
		ck_assert_int_eq(EXEC(&m, 0x66, 0x0f, 0x38, r < 10 ? 0xdc : 0xdd, 0xc1), ST_OK);
	}
	ck_assert_mem_eq(x[0].b, ct, 16);
	for (unsigned i = 0; i < 16; i++)                       /* the equivalent inverse cipher */
		x[0].b[i] ^= keys[10].b[i];
	for (unsigned r = 9; r >= 1; r--) {
		x[3] = keys[r];
		ck_assert_int_eq(EXEC(&m, 0x66, 0x0f, 0x38, 0xdb, 0xcb), ST_OK);           /* aesimc xmm1, xmm3 */
		ck_assert_int_eq(EXEC(&m, 0x66, 0x0f, 0x38, 0xde, 0xc1), ST_OK);           /* aesdec xmm0, xmm1 */
	}
	x[1] = keys[0];
	ck_assert_int_eq(EXEC(&m, 0x66, 0x0f, 0x38, 0xdf, 0xc1), ST_OK);                  /* aesdeclast */
	ck_assert_mem_eq(x[0].b, pt, 16);
	machine_free(&m);
}
END_TEST

static Suite *simd_ext_suite(void)
{
	Suite *s = suite_create("simd_ext");
	TCase *t = tcase_create("rules");
	tcase_add_loop_test(t, row, 0, (int)(sizeof(rows) / sizeof(rows[0])));
	tcase_add_test(t, gates);
	tcase_add_test(t, simd_fp_exceptions);
	tcase_add_test(t, rex_forms);
	tcase_add_test(t, aes_fips197);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(simd_ext_suite());
}
