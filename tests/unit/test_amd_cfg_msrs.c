/* Check suite for emu/amd_cfg_msrs.c: the AMD configuration MSRs exist on
 * the AMD models (family 10h and 17h) and are #GP(0) on the Intel ones; their
 * reset values (HWCR's INVDWBINVD and TscFreqSel, TOP_MEM at RAM's end, the
 * rest 0), the writable bits, the bits that keep their value, and a
 * processor RESET bringing the reset values back (BKDG 31116 / PPR 54945,
 * MSRC001_0010/0015/001A/001D/001F, MSRC001_1020-102A). */
#include <check.h>
#include <string.h>

#include "emu/amd_cfg_msrs.h"
#include "emu/cpu_model.h"
#include "machine_fixture.h"
#include "suite_runner.h"

static status_t rdmsr(struct test_machine *m, uint32_t index, uint64_t *v)
{
	m->cpu.regs[R_CX] = index;
	status_t st = EXEC(m, 0x0f, 0x32);
	*v = (m->cpu.regs[R_DX] << 32) | (uint32_t)m->cpu.regs[R_AX];
	return st;
}

static uint64_t rd(struct test_machine *m, uint32_t index)
{
	uint64_t v;
	ck_assert_int_eq(rdmsr(m, index, &v), ST_OK);
	return v;
}

static const uint32_t all[] = { MSR_AMD_SYSCFG, MSR_AMD_HWCR, MSR_AMD_TOP_MEM, MSR_AMD_TOP_MEM2,
				 MSR_AMD_NB_CFG, MSR_AMD_LS_CFG, MSR_AMD_IC_CFG, MSR_AMD_DC_CFG,
				 MSR_AMD_TW_CFG, MSR_AMD_FP_CFG, MSR_AMD_DE_CFG, MSR_AMD_BU_CFG2 };

START_TEST(absent_on_intel)
{
	static const char *const intel[] = { "skylake-lite", "core2", "pentium" };
	for (unsigned k = 0; k < 3; k++) {
		struct test_machine m;
		uint64_t v;
		machine_init_model(&m, cpu_model_find(intel[k]));
		for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
			assert_gp0(&m, rdmsr(&m, all[i], &v));
			assert_gp0(&m, wrmsr(&m, all[i], 0));
		}
		machine_free(&m);
	}
}
END_TEST

START_TEST(reset_values_and_writes)
{
	static const char *const amd[] = { "epyc-lite", "opteron-g3" };
	for (unsigned k = 0; k < 2; k++) {
		struct test_machine m;
		machine_init_model(&m, cpu_model_find(amd[k]));
		ck_assert_uint_eq(rd(&m, MSR_AMD_HWCR), HWCR_INVDWBINVD | HWCR_TSC_FREQ_SEL);
		ck_assert_uint_eq(rd(&m, MSR_AMD_TOP_MEM), m.pm.ram_size & 0xffffff800000ull);
		ck_assert_uint_eq(rd(&m, MSR_AMD_TOP_MEM2), 0);
		ck_assert_uint_eq(rd(&m, MSR_AMD_SYSCFG), 0);
		ck_assert_uint_eq(rd(&m, MSR_AMD_NB_CFG), 0);
		/* HWCR: IRPerfEn[30] and CpbDis[25] take a write; TscFreqSel,
		 * INVDWBINVD stay 1 and MonMwaitDis[9] stays 0. */
		ck_assert_int_eq(wrmsr(&m, MSR_AMD_HWCR, 1ull << 30 | 1ull << 25 | 1ull << 9), ST_OK);
		ck_assert_uint_eq(rd(&m, MSR_AMD_HWCR), HWCR_INVDWBINVD | HWCR_TSC_FREQ_SEL | 1ull << 30 | 1ull << 25);
		/* SYSCFG: bits 22:18. */
		ck_assert_int_eq(wrmsr(&m, MSR_AMD_SYSCFG, ~0ull), ST_OK);
		ck_assert_uint_eq(rd(&m, MSR_AMD_SYSCFG), 0x1full << 18);
		/* TOP_MEM: bits 47:23 only. */
		ck_assert_int_eq(wrmsr(&m, MSR_AMD_TOP_MEM, 0x80123456ull), ST_OK);
		ck_assert_uint_eq(rd(&m, MSR_AMD_TOP_MEM), 0x80000000ull);
		/* NB_CFG's EnableCf8ExtCfg is not offered: it reads 0. */
		ck_assert_int_eq(wrmsr(&m, MSR_AMD_NB_CFG, 1ull << 46), ST_OK);
		ck_assert_uint_eq(rd(&m, MSR_AMD_NB_CFG), 0);
		/* The core configuration registers keep what is written. */
		ck_assert_int_eq(wrmsr(&m, MSR_AMD_DE_CFG, 1ull << 1), ST_OK);
		ck_assert_uint_eq(rd(&m, MSR_AMD_DE_CFG), 1ull << 1);
		ck_assert_int_eq(wrmsr(&m, MSR_AMD_FP_CFG, 1ull << 9), ST_OK);
		ck_assert_uint_eq(rd(&m, MSR_AMD_FP_CFG), 1ull << 9);
		ck_assert_int_eq(wrmsr(&m, MSR_AMD_LS_CFG, 0x8000000000000400ull), ST_OK);
		ck_assert_uint_eq(rd(&m, MSR_AMD_LS_CFG), 0x8000000000000400ull);
		/* Neighbours that are not in the set are #GP(0). */
		uint64_t v;
		assert_gp0(&m, rdmsr(&m, 0xc0011024, &v));
		assert_gp0(&m, rdmsr(&m, 0xc001102b, &v));
		/* RESET: the reset values again. */
		cpu_reset(&m.cpu);
		ck_assert_uint_eq(rd(&m, MSR_AMD_HWCR), HWCR_INVDWBINVD | HWCR_TSC_FREQ_SEL);
		ck_assert_uint_eq(rd(&m, MSR_AMD_TOP_MEM), m.pm.ram_size & 0xffffff800000ull);
		ck_assert_uint_eq(rd(&m, MSR_AMD_DE_CFG), 0);
		machine_free(&m);
	}
}
END_TEST

/* TOP_MEM: RAM's end in 8 MiB units (bits 47:23), rounded down. */
START_TEST(top_mem_is_ram_end)
{
	static const uint32_t sizes[] = { 48u << 20, (100u << 20) + 4096, 8u << 20 };
	static const uint64_t want[] = { 48u << 20, 96u << 20, 8u << 20 };
	for (unsigned i = 0; i < 3; i++) {
		struct test_machine m;
		machine_init_bare(&m, cpu_model_find("epyc-lite"), sizes[i]);
		m.cpu.regs[R_CX] = MSR_AMD_TOP_MEM;
		ck_assert(amd_cfg_exists(&m.cpu));
		ck_assert_uint_eq(amd_cfg_read(&m.cpu), want[i]);
		machine_free(&m);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("amd_cfg_msrs");
	TCase *t = tcase_create("msrs");
	tcase_add_test(t, absent_on_intel);
	tcase_add_test(t, reset_values_and_writes);
	tcase_add_test(t, top_mem_is_ram_end);
	suite_add_tcase(s, t);
	return run_suite(s);
}
