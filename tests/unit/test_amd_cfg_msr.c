/* Check suite for emu/amd_cfg_msrs.c: AMD's family-17h configuration MSRs on
 * epyc-lite. Every row reads its RESET value, keeps its writable bits,
 * ignores its reserved ones and faults (#GP(0), nothing changed) on a 1 in
 * an MBZ bit or a write to a read-only register; RESET restores the values.
 * The bits kernels depend on: DE_CFG[1], LS_CFG[10] and FP_CFG[9] read back
 * as written (Linux's and Xen's read-back checks), HWCR.TscFreqSel is
 * read-only 1 and SmmLock a lock, HWCR.McStatusWrEn lets MCi_STATUS take a
 * non-zero value (PPR MSRC001_0015), TOP_MEM's address stops at MAXPHYADDR
 * (APM2 7.9.4), SYSCFG's memory-encryption bits are MBZ without SME (APM2
 * 3.2.1). The Intel models and the family-10h model have none of them. */
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

static void wr_ok(struct test_machine *m, uint32_t index, uint64_t v)
{
	ck_assert_msg(wrmsr(m, index, v) == ST_OK, "WRMSR %#x <- %#llx faulted", index,
		      (unsigned long long)v);
}

/* A write that must fault and leave the register as it was. */
static void wr_gp(struct test_machine *m, uint32_t index, uint64_t v)
{
	uint64_t before = rd(m, index);
	assert_gp0(m, wrmsr(m, index, v));
	ck_assert_uint_eq(rd(m, index), before);
}

static const struct amd_cfg_msr *row(uint32_t index)
{
	for (unsigned i = 0; i < amd_cfg_fam17h.count; i++)
		if (amd_cfg_fam17h.rows[i].index == index)
			return &amd_cfg_fam17h.rows[i];
	ck_abort_msg("no row %#x", index);
	return NULL;
}

/* PStateDef0 at the fixture's TSC rate (1 GHz unless the machine sets one):
 * CpuFid = MHz / 25 with CpuDfsId 8, PstateEn. */
static uint64_t pstate0_at(const struct test_machine *m)
{
	uint64_t hz = m->cpu.tsc_hz ? m->cpu.tsc_hz : 1000000000ull;
	return (1ull << 63) | (8ull << 8) | (hz / 25000000u);
}

START_TEST(absent_on_other_models)
{
	static const char *const others[] = { "skylake-lite", "core2", "nehalem-lite", "icelake-lite",
					      "opteron-g3", "pentium" };
	for (unsigned k = 0; k < sizeof(others) / sizeof(others[0]); k++) {
		struct test_machine m;
		uint64_t v;
		machine_init(&m, others[k]);
		for (unsigned i = 0; i < amd_cfg_fam17h.count; i++) {
			uint32_t index = amd_cfg_fam17h.rows[i].index;
			assert_gp0(&m, rdmsr(&m, index, &v));
			assert_gp0(&m, wrmsr(&m, index, 0));
		}
		machine_free(&m);
	}
}
END_TEST

/* Each row: its RESET value; the writable bits go in and come out; the
 * reserved ones keep their RESET value; each MBZ bit alone is #GP(0). */
START_TEST(rows_reset_writable_mbz)
{
	struct test_machine m;
	machine_init(&m, "epyc-lite");
	uint64_t phys = (1ull << m.cpu.maxphyaddr) - 1;
	for (unsigned i = 0; i < amd_cfg_fam17h.count; i++) {
		const struct amd_cfg_msr *r = &amd_cfg_fam17h.rows[i];
		uint64_t reset = (r->flags & AMD_CFG_PSTATE0) ? pstate0_at(&m) : r->reset;
		ck_assert_msg(rd(&m, r->index) == reset, "%s RESET value", r->name);
		if (r->flags & AMD_CFG_READ_ONLY) {
			wr_gp(&m, r->index, reset);
			continue;
		}
		uint64_t writable = r->writable;
		uint64_t mbz = r->mbz;
		if (r->flags & AMD_CFG_PHYS_ADDR) {
			mbz |= writable & ~phys;
			writable &= phys;
		}
		writable &= ~r->write_once;      /* the locks: their own test */
		uint64_t reserved = ~(writable | mbz | r->write_once);
		wr_ok(&m, r->index, writable | (reset & r->write_once));
		ck_assert_msg(rd(&m, r->index) == ((reset & ~writable) | writable), "%s all writable set",
			      r->name);
		wr_ok(&m, r->index, reserved & ~reset);     /* reserved bits flipped, writable cleared */
		ck_assert_msg(rd(&m, r->index) == (reset & ~writable), "%s reserved bits kept", r->name);
		for (unsigned b = 0; b < 64; b++)
			if (mbz & (1ull << b))
				wr_gp(&m, r->index, 1ull << b);
	}
	/* RESET: every row its RESET value again. */
	cpu_reset(&m.cpu);
	for (unsigned i = 0; i < amd_cfg_fam17h.count; i++) {
		const struct amd_cfg_msr *r = &amd_cfg_fam17h.rows[i];
		uint64_t reset = (r->flags & AMD_CFG_PSTATE0) ? pstate0_at(&m) : r->reset;
		ck_assert_uint_eq(amd_cfg_value(&m.cpu, r->index), reset);
	}
	machine_free(&m);
}
END_TEST

/* What Linux 6.1 and Xen 4.17 do at boot, and what they read back. */
START_TEST(kernel_read_back)
{
	struct test_machine m;
	machine_init(&m, "epyc-lite");
	/* init_amd(): msr_set_bit(DE_CFG, 1), LFENCE dispatch serializing;
	 * Xen's amd_init_lfence() reads it back. */
	wr_ok(&m, MSR_AMD_DE_CFG, rd(&m, MSR_AMD_DE_CFG) | (1ull << 1));
	ck_assert_uint_eq(rd(&m, MSR_AMD_DE_CFG) & (1ull << 1), 1ull << 1);
	/* SSBD on family 17h: LS_CFG[10] set, read back, cleared. */
	wr_ok(&m, MSR_AMD_LS_CFG, rd(&m, MSR_AMD_LS_CFG) | (1ull << 10));
	ck_assert_uint_eq(rd(&m, MSR_AMD_LS_CFG), 1ull << 10);
	wr_ok(&m, MSR_AMD_LS_CFG, rd(&m, MSR_AMD_LS_CFG) & ~(1ull << 10));
	ck_assert_uint_eq(rd(&m, MSR_AMD_LS_CFG), 0);
	/* The Zen1 FP-DSS fix: FP_CFG[9]. */
	wr_ok(&m, MSR_AMD_FP_CFG, rd(&m, MSR_AMD_FP_CFG) | (1ull << 9));
	ck_assert_uint_eq(rd(&m, MSR_AMD_FP_CFG), 1ull << 9);
	/* arch/x86/pci/amd_bus.c: NB_CFG.EnableCf8ExtCfg (46). */
	wr_ok(&m, MSR_AMD_NB_CFG, rd(&m, MSR_AMD_NB_CFG) | (1ull << 46));
	ck_assert_uint_eq(rd(&m, MSR_AMD_NB_CFG), 1ull << 46);
	/* The MTRR code clears SYSCFG.MtrrFixDramModEn if firmware left it. */
	wr_ok(&m, MSR_AMD_SYSCFG, (1ull << 19) | (1ull << 18));
	wr_ok(&m, MSR_AMD_SYSCFG, rd(&m, MSR_AMD_SYSCFG) & ~(1ull << 19));
	ck_assert_uint_eq(rd(&m, MSR_AMD_SYSCFG), 1ull << 18);
	machine_free(&m);
}
END_TEST

/* HWCR (PPR MSRC001_0015): INVDWBINVD and TscFreqSel after RESET; TscFreqSel
 * stays 1; SmmLock and EffFreqReadOnlyLock stay 1 once written 1. */
START_TEST(hwcr_bits)
{
	struct test_machine m;
	machine_init(&m, "epyc-lite");
	ck_assert_uint_eq(rd(&m, MSR_AMD_HWCR), (1ull << 4) | AMD_HWCR_TSCFREQSEL);
	wr_ok(&m, MSR_AMD_HWCR, 0);
	ck_assert_uint_eq(rd(&m, MSR_AMD_HWCR), AMD_HWCR_TSCFREQSEL);
	wr_ok(&m, MSR_AMD_HWCR, AMD_HWCR_SMMLOCK | (1ull << 27));
	wr_ok(&m, MSR_AMD_HWCR, 0);
	ck_assert_uint_eq(rd(&m, MSR_AMD_HWCR), AMD_HWCR_SMMLOCK | (1ull << 27) | AMD_HWCR_TSCFREQSEL);
	machine_free(&m);
}
END_TEST

/* MC1_STATUS (405H): a non-zero write faults while HWCR.McStatusWrEn = 0
 * and is taken while it is 1 (Linux's mce/amd.c and Xen's MCE injection set
 * it around such writes); 0 is always taken. */
START_TEST(mc_status_write_enable)
{
	struct test_machine m;
	machine_init(&m, "epyc-lite");
	const uint32_t mc1_status = 0x405;
	wr_gp(&m, mc1_status, 0x8000000000000001ull);
	wr_ok(&m, MSR_AMD_HWCR, rd(&m, MSR_AMD_HWCR) | AMD_HWCR_MCSTATUSWREN);
	wr_ok(&m, mc1_status, 0x8000000000000001ull);
	ck_assert_uint_eq(rd(&m, mc1_status), 0x8000000000000001ull);
	wr_ok(&m, MSR_AMD_HWCR, rd(&m, MSR_AMD_HWCR) & ~AMD_HWCR_MCSTATUSWREN);
	wr_gp(&m, mc1_status, 2);
	wr_ok(&m, mc1_status, 0);
	ck_assert_uint_eq(rd(&m, mc1_status), 0);
	machine_free(&m);
}
END_TEST

/* Address registers (APM2 7.9.2, 7.9.4): TOP_MEM keeps 51:23 below
 * MAXPHYADDR, ignores 22:0, faults on a bit at or above MAXPHYADDR; an IORR
 * faults on a reserved bit. */
START_TEST(address_registers)
{
	struct test_machine m;
	machine_init(&m, "epyc-lite");
	ck_assert_uint_eq(m.cpu.maxphyaddr, 40);
	wr_ok(&m, MSR_AMD_TOP_MEM, 0x10000000ull | 0x7fffff);
	ck_assert_uint_eq(rd(&m, MSR_AMD_TOP_MEM), 0x10000000ull);
	wr_gp(&m, MSR_AMD_TOP_MEM, 1ull << 40);
	wr_gp(&m, MSR_AMD_TOP_MEM2, 1ull << 52);
	wr_ok(&m, MSR_AMD_TOP_MEM2, 0x120000000ull);
	ck_assert_uint_eq(rd(&m, MSR_AMD_TOP_MEM2), 0x120000000ull);
	wr_ok(&m, 0xc0010016, 0xfe000000ull | (1u << 4) | (1u << 3));     /* IORR_BASE0 */
	ck_assert_uint_eq(rd(&m, 0xc0010016), 0xfe000000ull | 0x18);
	wr_gp(&m, 0xc0010016, 1u << 5);
	wr_gp(&m, 0xc0010017, 1u << 10);                                   /* IORR_MASK0 */
	wr_gp(&m, MSR_AMD_SYSCFG, 1ull << 23);                             /* no SME */
	machine_free(&m);
}
END_TEST

/* The P-state registers: P0 alone, at the TSC's rate; the limit and the
 * status are read-only; PstateCmd is kept. */
START_TEST(pstates)
{
	struct test_machine m;
	machine_init(&m, "epyc-lite");
	ck_assert_uint_eq(rd(&m, MSR_AMD_PSTATE_DEF0), pstate0_at(&m));
	for (uint32_t i = 1; i < 8; i++)
		ck_assert_uint_eq(rd(&m, MSR_AMD_PSTATE_DEF0 + i) >> 63, 0);
	ck_assert_uint_eq(rd(&m, 0xc0010061), 0);
	wr_gp(&m, 0xc0010061, 0);
	wr_gp(&m, 0xc0010063, 0);
	wr_ok(&m, 0xc0010062, 2);
	ck_assert_uint_eq(rd(&m, 0xc0010062), 2);
	ck_assert_uint_eq(rd(&m, 0xc0010063), 0);
	ck_assert_uint_eq(row(0xc0010062)->writable, 7);
	/* A 2.2 GHz TSC: CpuFid 58H (2200 / 25). */
	m.cpu.tsc_hz = 2200000000ull;
	ck_assert_uint_eq(rd(&m, MSR_AMD_PSTATE_DEF0), (1ull << 63) | 0x800 | 0x58);
	machine_free(&m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("amd_cfg_msr");
	TCase *t = tcase_create("fam17h");
	tcase_add_test(t, absent_on_other_models);
	tcase_add_test(t, rows_reset_writable_mbz);
	tcase_add_test(t, kernel_read_back);
	tcase_add_test(t, hwcr_bits);
	tcase_add_test(t, mc_status_write_enable);
	tcase_add_test(t, address_registers);
	tcase_add_test(t, pstates);
	suite_add_tcase(s, t);
	return run_suite(s);
}
