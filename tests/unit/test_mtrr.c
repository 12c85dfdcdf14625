/* Check suite for emu/mtrr.c: the MTRR MSRs exist with CPUID.1:EDX.MTRR
 * (--cpu MODEL,+mtrr) and not without it, IA32_MTRRCAP reads VCNT/FIX/WC and
 * is read-only, and every write with a reserved bit or an undefined memory
 * type is #GP(0) (SDM Vol.3 12.11.1-12.11.3). */
#include <check.h>
#include <string.h>

#include "emu/cpu_model.h"
#include "emu/mtrr.h"
#include "machine_fixture.h"
#include "suite_runner.h"

static status_t rdmsr(struct test_machine *m, uint32_t index, uint64_t *v)
{
	m->cpu.regs[R_CX] = index;
	status_t st = EXEC(m, 0x0f, 0x32);
	*v = (m->cpu.regs[R_DX] << 32) | (uint32_t)m->cpu.regs[R_AX];
	return st;
}

static const struct cpu_model *with_mtrr(const char *spec)
{
	char err[200];
	const struct cpu_model *cm = cpu_model_parse(spec, err, sizeof(err));
	ck_assert_msg(cm, "%s", err);
	return cm;
}

START_TEST(absent_without_cpuid_bit)
{
	struct test_machine m;
	uint64_t v;
	const struct cpu_model *cm = with_mtrr("skylake-lite,-mtrr");
	machine_init_model(&m, cm);
	assert_gp0(&m, rdmsr(&m, MSR_MTRRCAP, &v));
	assert_gp0(&m, rdmsr(&m, MSR_MTRR_DEF_TYPE, &v));
	assert_gp0(&m, wrmsr(&m, 0x200, 6));
	machine_free(&m);
	cpu_model_release(cm);
}
END_TEST

START_TEST(registers_and_checks)
{
	static const char *const specs[] = { "skylake-lite,+mtrr", "epyc-lite,+mtrr" };
	for (unsigned k = 0; k < 2; k++) {
		struct test_machine m;
		uint64_t v;
		const struct cpu_model *cm = with_mtrr(specs[k]);
		machine_init_model(&m, cm);
		ck_assert_int_eq(rdmsr(&m, MSR_MTRRCAP, &v), ST_OK);
		ck_assert_uint_eq(v, MTRR_VCNT | MTRRCAP_FIX | MTRRCAP_WC);
		assert_gp0(&m, wrmsr(&m, MSR_MTRRCAP, v));
		/* Power-on: E and the valid flags clear (12.11.5). */
		ck_assert_int_eq(rdmsr(&m, MSR_MTRR_DEF_TYPE, &v), ST_OK);
		ck_assert_uint_eq(v, 0);
		ck_assert_int_eq(wrmsr(&m, MSR_MTRR_DEF_TYPE, MTRR_DEF_E | MTRR_DEF_FE | 6), ST_OK);
		ck_assert_int_eq(rdmsr(&m, MSR_MTRR_DEF_TYPE, &v), ST_OK);
		ck_assert_uint_eq(v, MTRR_DEF_E | MTRR_DEF_FE | 6);
		assert_gp0(&m, wrmsr(&m, MSR_MTRR_DEF_TYPE, 2));          /* reserved type */
		assert_gp0(&m, wrmsr(&m, MSR_MTRR_DEF_TYPE, 7));
		assert_gp0(&m, wrmsr(&m, MSR_MTRR_DEF_TYPE, 1u << 9));    /* reserved bit */
		/* Fixed ranges: eight type bytes each. */
		static const uint32_t fixed[] = { 0x250, 0x258, 0x259, 0x268, 0x26f };
		for (unsigned i = 0; i < 5; i++) {
			ck_assert_int_eq(wrmsr(&m, fixed[i], 0x0606060605040100ull), ST_OK);
			ck_assert_int_eq(rdmsr(&m, fixed[i], &v), ST_OK);
			ck_assert_uint_eq(v, 0x0606060605040100ull);
			assert_gp0(&m, wrmsr(&m, fixed[i], 0x0306060606060606ull));
		}
		assert_gp0(&m, rdmsr(&m, 0x251, &v));                     /* not an MTRR */
		/* Variable ranges 0..VCNT-1 at 200H + 2n; the next pair is absent. */
		uint64_t top = 1ull << m.cpu.maxphyaddr;
		ck_assert_int_eq(wrmsr(&m, 0x20e, 0x80000000ull | 6), ST_OK);
		ck_assert_int_eq(wrmsr(&m, 0x20f, ((top - 1) & ~0x7fffffffull) | MTRR_PHYSMASK_V), ST_OK);
		ck_assert_int_eq(rdmsr(&m, 0x20f, &v), ST_OK);
		ck_assert_uint_eq(v, ((top - 1) & ~0x7fffffffull) | MTRR_PHYSMASK_V);
		assert_gp0(&m, wrmsr(&m, 0x200, 0x100 | 6));               /* bits 11:8 reserved */
		assert_gp0(&m, wrmsr(&m, 0x200, top | 6));                 /* above MAXPHYADDR */
		assert_gp0(&m, wrmsr(&m, 0x200, 3));                       /* reserved type */
		assert_gp0(&m, wrmsr(&m, 0x201, 1));                       /* bits 10:0 reserved */
		assert_gp0(&m, rdmsr(&m, 0x210, &v));
		machine_free(&m);
		cpu_model_release(cm);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mtrr");
	TCase *t = tcase_create("msrs");
	tcase_add_test(t, absent_without_cpuid_bit);
	tcase_add_test(t, registers_and_checks);
	suite_add_tcase(s, t);
	return run_suite(s);
}
