/* Check suite for MMX (emu/mmx.c): the rules the host-differential run cannot
 * reach from user mode: the CR0.EM/CR0.TS/pending-x87 gates and the CPUID
 * gating (SDM Vol.3 2.5 Table 2-2; SDM Vol.1 9.5.2; Vol.2 exception tables),
 * the aliasing with the x87 registers as FNSTENV and FXSAVE show it (SDM
 * Vol.1 9.5.1 Table 9-2, 10.5.1), and the 64-bit MOVQ forms. */
#include <string.h>

#include "emu/fpu_state.h"
#include "machine_fixture.h"
#include "suite_runner.h"

#define DATA 0x20000u

/* A copy of a model with CPUID.01H:EDX bits cleared. */
static struct cpu_model cut_model;
static struct cpuid_leaf cut_leaves[64];
static const struct cpu_model *without_edx1(const char *name, uint32_t bits)
{
	const struct cpu_model *base = model_named(name);
	ck_assert_uint_le(base->cpuid_count, 64);
	cut_model = *base;
	memcpy(cut_leaves, base->cpuid, base->cpuid_count * sizeof(cut_leaves[0]));
	for (unsigned i = 0; i < base->cpuid_count; i++)
		if (cut_leaves[i].leaf == 1)
			cut_leaves[i].edx &= ~bits;
	cut_model.cpuid = cut_leaves;
	return &cut_model;
}

static void mmx_machine(struct test_machine *m)
{
	machine_init(m, "skylake-lite");
	m->cpu.cr0 |= CR0_NE;
	fpu_init_x87(&m->cpu.fpu);
}

/* movq mm0, mm1 (0F 6F C1) under each gate. */
START_TEST(gates)
{
	struct test_machine m;
	mmx_machine(&m);
	/* CR4.OSFXSR is not needed for the MMX forms (SDM Vol.3 13.1.3 names
	 * only the SSE/SSE2 instructions). */
	m.cpu.cr4 &= ~(uint64_t)CR4_OSFXSR;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x6f, 0xc1), ST_OK);
	/* SDM Vol.3 2.5 Table 2-2: CR0.EM = 1 -> #UD (not #NM as for the x87). */
	m.cpu.cr0 |= CR0_EM;
	assert_ud(&m, EXEC(&m, 0x0f, 0x6f, 0xc1));
	assert_ud(&m, EXEC(&m, 0x0f, 0x77));                       /* EMMS */
	/* CR0.TS = 1 -> #NM. */
	m.cpu.cr0 = (m.cpu.cr0 & ~(uint64_t)CR0_EM) | CR0_TS;
	assert_fault(&m, EXEC(&m, 0x0f, 0x6f, 0xc1), EXC_NM, 0);
	assert_fault(&m, EXEC(&m, 0x0f, 0x77), EXC_NM, 0);
	m.cpu.cr0 &= ~(uint64_t)CR0_TS;
	/* SDM Vol.1 9.5.2 / Vol.2 PADDB "#MF If there is a pending FPU exception":
	 * nothing changes, TOP included. */
	m.cpu.fpu.fsw = FSW_ES | FSW_IE | 5u << FSW_TOP_SHIFT;
	m.cpu.fpu.ftw = 0xffff;
	m.cpu.fpu.r[0].mant = 1;
	assert_fault(&m, EXEC(&m, 0x0f, 0x6f, 0xc1), EXC_MF, 0);
	assert_fault(&m, EXEC(&m, 0x0f, 0x77), EXC_MF, 0);
	ck_assert_uint_eq(m.cpu.fpu.r[0].mant, 1);
	ck_assert_uint_eq(m.cpu.fpu.fsw >> FSW_TOP_SHIFT & 7, 5);
	ck_assert_uint_eq(m.cpu.fpu.ftw, 0xffff);
	machine_free(&m);
}
END_TEST

/* The CPUID gating of the rows (emu/isa/mmx.isa feature column). */
START_TEST(cpuid_gates)
{
	struct test_machine m;
	/* pentium (P54C): no MMX -> #UD (SDM Vol.2 PADDB "#UD ... If
	 * CPUID.01H:EDX.MMX[bit 23] = 0" is implied by the feature flag column). */
	machine_init(&m, "pentium");
	assert_ud(&m, EXEC(&m, 0x0f, 0xfc, 0xc1));                 /* paddb mm0, mm1 */
	assert_ud(&m, EXEC(&m, 0x0f, 0x77));                       /* emms */
	machine_free(&m);
	/* MMX without SSE: PADDB runs, the SSE additions are #UD. */
	machine_init_model(&m, without_edx1("skylake-lite", 1u << 25 | 1u << 26));
	fpu_init_x87(&m.cpu.fpu);
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xfc, 0xc1), ST_OK);
	assert_ud(&m, EXEC(&m, 0x0f, 0x70, 0xc1, 0x1b));          /* pshufw */
	assert_ud(&m, EXEC(&m, 0x0f, 0xe0, 0xc1));                /* pavgb mm */
	assert_ud(&m, EXEC(&m, 0x0f, 0xd4, 0xc1));                /* paddq mm (SSE2) */
	machine_free(&m);
	/* MOVQ2DQ is an SSE2 instruction with an XMM operand: CR4.OSFXSR = 0 -> #UD. */
	mmx_machine(&m);
	m.cpu.cr4 &= ~(uint64_t)CR4_OSFXSR;
	assert_ud(&m, EXEC(&m, 0xf3, 0x0f, 0xd6, 0xc1));          /* movq2dq xmm0, mm1 */
	m.cpu.cr4 |= CR4_OSFXSR;
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x0f, 0xd6, 0xc1), ST_OK);
	machine_free(&m);
}
END_TEST

/* SDM Vol.1 9.5.1 Table 9-2: a write sets bits 79:64 of the physical register,
 * any MMX instruction sets TOP = 0 and every tag valid; EMMS empties the tags
 * (and TOP is 0). FNSTENV shows the tags the contents give (10.5.1.1). */
START_TEST(aliasing)
{
	struct test_machine m;
	mmx_machine(&m);
	m.cpu.fpu.fsw = 3u << FSW_TOP_SHIFT;
	m.cpu.fpu.r[5] = (struct fpu_reg){ 0, 0 };                 /* +0.0: "zero" once valid */
	m.cpu.regs[R_AX] = 0x89abcdefu;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x6e, 0xd8), ST_OK);       /* movd mm3, eax */
	ck_assert_uint_eq(m.cpu.fpu.r[3].mant, 0x89abcdefu);      /* physical R3, whatever TOP was */
	ck_assert_uint_eq(m.cpu.fpu.r[3].sexp, 0xffff);
	ck_assert_uint_eq(m.cpu.fpu.fsw & FSW_TOP_MASK, 0);
	/* R3 special (exponent 7FFFH), R5 zero; no register empty. */
	ck_assert_uint_eq(m.cpu.fpu.ftw >> 6 & 3, TAG_SPECIAL);
	ck_assert_uint_eq(m.cpu.fpu.ftw >> 10 & 3, TAG_ZERO);
	ck_assert_uint_eq(fpu_tag_abridge(m.cpu.fpu.ftw), 0xff);
	/* A read (movd ecx, mm3) switches too. */
	m.cpu.fpu.fsw = 6u << FSW_TOP_SHIFT;
	m.cpu.fpu.ftw = 0xffff;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x7e, 0xd9), ST_OK);
	ck_assert_uint_eq(m.cpu.regs[R_CX], 0x89abcdefu);
	ck_assert_uint_eq(m.cpu.fpu.fsw & FSW_TOP_MASK, 0);
	ck_assert_uint_eq(fpu_tag_abridge(m.cpu.fpu.ftw), 0xff);
	/* fnstenv [DATA] (D9 35 disp32): the tag word at byte 8 of the 32-bit image. */
	ck_assert_int_eq(EXEC(&m, 0xd9, 0x35, 0x00, 0x00, 0x02, 0x00), ST_OK);
	uint64_t v;
	v = physmem_read(&m.pm, DATA + 8, 2);
	ck_assert_uint_eq(v, m.cpu.fpu.ftw);
	v = physmem_read(&m.pm, DATA + 4, 2);
	ck_assert_uint_eq(v >> FSW_TOP_SHIFT & 7, 0);
	/* EMMS: all empty, TOP 0, registers unchanged. */
	m.cpu.fpu.fsw = 2u << FSW_TOP_SHIFT;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x77), ST_OK);
	ck_assert_uint_eq(m.cpu.fpu.ftw, 0xffff);
	ck_assert_uint_eq(m.cpu.fpu.fsw & FSW_TOP_MASK, 0);
	ck_assert_uint_eq(m.cpu.fpu.r[3].mant, 0x89abcdefu);
	machine_free(&m);
}
END_TEST

/* FXSAVE (SDM Vol.1 10.5.1 Table 10-2): ST0/MM0..ST7/MM7 at byte 32 + 16i
 * hold the MMX values with bits 79:64 all ones; the abridged tag says valid. */
START_TEST(fxsave_image)
{
	struct test_machine m;
	mmx_machine(&m);
	physmem_write(&m.pm, DATA + 0x400, 8, 0x0123456789abcdefull);
	m.cpu.fpu.fsw = 4u << FSW_TOP_SHIFT;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x6f, 0x15, 0x00, 0x04, 0x02, 0x00), ST_OK);   /* movq mm2, [DATA+400H] */
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xae, 0x05, 0x00, 0x00, 0x02, 0x00), ST_OK);   /* fxsave [DATA] */
	uint64_t v;
	v = physmem_read(&m.pm, DATA + 32 + 16 * 2, 8);
	ck_assert_uint_eq(v, 0x0123456789abcdefull);
	v = physmem_read(&m.pm, DATA + 32 + 16 * 2 + 8, 2);
	ck_assert_uint_eq(v, 0xffff);
	v = physmem_read(&m.pm, DATA + 4, 1);
	ck_assert_uint_eq(v, 0xff);
	v = physmem_read(&m.pm, DATA + 2, 2);
	ck_assert_uint_eq(v >> FSW_TOP_SHIFT & 7, 0);
	machine_free(&m);
}
END_TEST

/* 64-bit mode: REX.W 0F 6E/7E are MOVQ mm, r/m64 and MOVQ r/m64, mm (kvm-unit-
 * tests' emulator test: movq %rax, %mm0); REX.R/B do not extend MMX numbers. */
START_TEST(movq_64)
{
	struct test_machine m;
	mmx_machine(&m);
	activate(&m);
	to64(&m);
	m.cpu.regs[R_AX] = 0xfedcba9876543210ull;
	ck_assert_int_eq(EXEC(&m, 0x48, 0x0f, 0x6e, 0xc0), ST_OK);  /* movq mm0, rax */
	ck_assert_uint_eq(m.cpu.fpu.r[0].mant, 0xfedcba9876543210ull);
	ck_assert_int_eq(EXEC(&m, 0x4d, 0x0f, 0x7e, 0xc1), ST_OK);  /* movq r9, mm0 (REX.R ignored) */
	ck_assert_uint_eq(m.cpu.regs[9], 0xfedcba9876543210ull);
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x7e, 0xc2), ST_OK);        /* movd edx, mm0: zero-extended */
	ck_assert_uint_eq(m.cpu.regs[R_DX], 0x76543210u);
	machine_free(&m);
}
END_TEST

static Suite *mmx_suite(void)
{
	Suite *s = suite_create("mmx");
	TCase *t = tcase_create("rules");
	tcase_add_test(t, gates);
	tcase_add_test(t, cpuid_gates);
	tcase_add_test(t, aliasing);
	tcase_add_test(t, fxsave_image);
	tcase_add_test(t, movq_64);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(mmx_suite());
}
