/* Check suite for emu/amd_cfg_msrs.c: the AMD configuration MSRs exist on
 * the AMD models (family 10h and 17h, the P-state registers on 17h only) and
 * are #GP(0) on the Intel ones; their reset values (HWCR's INVDWBINVD and
 * TscFreqSel, TOP_MEM at RAM's end, PStateDef0 at the TSC's rate, the rest
 * 0), the writable bits, the reserved bits that keep their value, the MBZ
 * bits and read-only registers that fault (nothing changed), and a processor
 * RESET bringing the reset values back (APM2 3.2.1, 7.9; BKDG 31116 / PPR
 * 54945, MSRC001_xxxx). What kernels read back (DE_CFG[1], LS_CFG[10],
 * FP_CFG[9], SYSCFG's MtrrFixDramModEn) and HWCR.McStatusWrEn gating
 * MCi_STATUS. */
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
	static const char *const intel[] = { "skylake-lite", "core2", "pentium", "nehalem-lite",
					     "icelake-lite" };
	for (unsigned k = 0; k < 5; k++) {
		struct test_machine m;
		uint64_t v;
		machine_init_model(&m, cpu_model_find(intel[k]));
		for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
			assert_gp0(&m, rdmsr(&m, all[i], &v));
			assert_gp0(&m, wrmsr(&m, all[i], 0));
		}
		for (unsigned i = 0; i < amd_cfg_fam17h.count; i++) {
			assert_gp0(&m, rdmsr(&m, amd_cfg_fam17h.rows[i].index, &v));
			assert_gp0(&m, wrmsr(&m, amd_cfg_fam17h.rows[i].index, 0));
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

/* PStateDef0 at the machine's TSC rate (1 GHz unless it sets one): CpuFid =
 * MHz / 25 with CpuDfsId 8, PstateEn. */
static uint64_t pstate0_at(const struct test_machine *m)
{
	uint64_t hz = m->cpu.tsc_hz ? m->cpu.tsc_hz : 1000000000ull;
	return (1ull << 63) | (8ull << 8) | (hz / 25000000u);
}

static uint64_t reset_of(const struct test_machine *m, const struct amd_cfg_msr *r)
{
	if (r->flags & AMD_CFG_PSTATE0)
		return pstate0_at(m);
	if (r->flags & AMD_CFG_RAM_BELOW_4G)
		return m->pm.ram_size & r->writable;
	return r->reset;
}

/* Every row of each AMD model: its RESET value; the writable bits go in and
 * come out; the reserved ones keep their value when flipped; each MBZ bit
 * alone (for an address field, each bit at or above MAXPHYADDR) is #GP(0);
 * a read-only register faults on any write. The family-17h-only rows are
 * absent from the family-10h model. Then RESET. */
START_TEST(every_row)
{
	static const char *const amd[] = { "epyc-lite", "opteron-g3" };
	for (unsigned k = 0; k < 2; k++) {
		struct test_machine m;
		uint64_t v;
		machine_init_model(&m, cpu_model_find(amd[k]));
		const struct amd_cfg_set *set = m.cpu.model->amd_cfg;
		ck_assert_ptr_eq(set, k == 0 ? &amd_cfg_fam17h : &amd_cfg_fam10h);
		uint64_t phys = (1ull << m.cpu.maxphyaddr) - 1;
		for (unsigned i = 0; i < set->count; i++) {
			const struct amd_cfg_msr *r = &set->rows[i];
			uint64_t reset = reset_of(&m, r);
			ck_assert_msg(rd(&m, r->index) == reset, "%s RESET value", r->name);
			if (r->flags & AMD_CFG_READ_ONLY) {
				wr_gp(&m, r->index, reset);
				continue;
			}
			uint64_t writable = r->writable, mbz = r->mbz;
			if (r->flags & AMD_CFG_PHYS_ADDR) {
				mbz |= writable & ~phys;
				writable &= phys;
			}
			uint64_t reserved = ~(writable | mbz);
			wr_ok(&m, r->index, writable);
			ck_assert_msg(rd(&m, r->index) == ((reset & ~writable) | writable), "%s writable",
				      r->name);
			wr_ok(&m, r->index, reserved & ~reset);
			ck_assert_msg(rd(&m, r->index) == (reset & ~writable), "%s reserved kept", r->name);
			for (unsigned b = 0; b < 64; b++)
				if (mbz & (1ull << b))
					wr_gp(&m, r->index, 1ull << b);
		}
		for (unsigned i = 0; i < amd_cfg_fam17h.count; i++)
			if (!amd_cfg_row(set, amd_cfg_fam17h.rows[i].index))
				assert_gp0(&m, rdmsr(&m, amd_cfg_fam17h.rows[i].index, &v));
		cpu_reset(&m.cpu);
		for (unsigned i = 0; i < set->count; i++)
			ck_assert_uint_eq(amd_cfg_value(&m.cpu, set->rows[i].index), reset_of(&m, &set->rows[i]));
		machine_free(&m);
	}
}
END_TEST

/* What Linux 6.1 and Xen 4.17 do at boot on epyc-lite, and read back. */
START_TEST(kernel_read_back)
{
	struct test_machine m;
	machine_init_model(&m, cpu_model_find("epyc-lite"));
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
	/* The MTRR code clears SYSCFG.MtrrFixDramModEn if firmware left it. */
	wr_ok(&m, MSR_AMD_SYSCFG, (1ull << 19) | (1ull << 18));
	wr_ok(&m, MSR_AMD_SYSCFG, rd(&m, MSR_AMD_SYSCFG) & ~(1ull << 19));
	ck_assert_uint_eq(rd(&m, MSR_AMD_SYSCFG), 1ull << 18);
	machine_free(&m);
}
END_TEST

/* MC1_STATUS (405H): a non-zero write faults while HWCR.McStatusWrEn = 0
 * and is taken while it is 1 (PPR MSRC001_0015; Linux's mce/amd.c and Xen's
 * MCE injection set it around such writes); 0 is always taken. */
START_TEST(mc_status_write_enable)
{
	static const char *const amd[] = { "epyc-lite", "opteron-g3" };
	for (unsigned k = 0; k < 2; k++) {
		struct test_machine m;
		machine_init_model(&m, cpu_model_find(amd[k]));
		const uint32_t mc1_status = 0x405;
		wr_gp(&m, mc1_status, 0x8000000000000001ull);
		wr_ok(&m, MSR_AMD_HWCR, rd(&m, MSR_AMD_HWCR) | HWCR_MC_STATUS_WR_EN);
		wr_ok(&m, mc1_status, 0x8000000000000001ull);
		ck_assert_uint_eq(rd(&m, mc1_status), 0x8000000000000001ull);
		wr_ok(&m, MSR_AMD_HWCR, rd(&m, MSR_AMD_HWCR) & ~HWCR_MC_STATUS_WR_EN);
		wr_gp(&m, mc1_status, 2);
		wr_ok(&m, mc1_status, 0);
		ck_assert_uint_eq(rd(&m, mc1_status), 0);
		machine_free(&m);
	}
}
END_TEST

/* Address registers (APM2 7.9.2, 7.9.4) on epyc-lite (40 physical bits):
 * TOP_MEM keeps 51:23 below MAXPHYADDR, keeps its reserved 22:0, faults on a
 * bit at or above MAXPHYADDR; an IORR faults on a reserved bit. */
START_TEST(address_registers)
{
	struct test_machine m;
	machine_init_model(&m, cpu_model_find("epyc-lite"));
	ck_assert_uint_eq(m.cpu.maxphyaddr, 40);
	wr_ok(&m, MSR_AMD_TOP_MEM, 0x10000000ull | 0x7fffff);
	ck_assert_uint_eq(rd(&m, MSR_AMD_TOP_MEM), 0x10000000ull);
	wr_gp(&m, MSR_AMD_TOP_MEM, 1ull << 40);
	wr_gp(&m, MSR_AMD_TOP_MEM2, 1ull << 52);
	wr_ok(&m, MSR_AMD_TOP_MEM2, 0x120000000ull);
	ck_assert_uint_eq(rd(&m, MSR_AMD_TOP_MEM2), 0x120000000ull);
	wr_ok(&m, MSR_AMD_IORR_BASE0, 0xfe000000ull | (1u << 4) | (1u << 3));
	ck_assert_uint_eq(rd(&m, MSR_AMD_IORR_BASE0), 0xfe000000ull | 0x18);
	wr_gp(&m, MSR_AMD_IORR_BASE0, 1u << 5);
	wr_gp(&m, MSR_AMD_IORR_BASE0 + 1, 1u << 10);                    /* IORR_MASK0 */
	machine_free(&m);
}
END_TEST

/* The P-state registers of epyc-lite: P0 alone, at the TSC's rate; the
 * limit and the status are read-only; PstateCmd is kept. */
START_TEST(pstates)
{
	struct test_machine m;
	machine_init_model(&m, cpu_model_find("epyc-lite"));
	ck_assert_uint_eq(rd(&m, MSR_AMD_PSTATE_DEF0), pstate0_at(&m));
	for (uint32_t i = 1; i < 8; i++)
		ck_assert_uint_eq(rd(&m, MSR_AMD_PSTATE_DEF0 + i) >> 63, 0);
	ck_assert_uint_eq(rd(&m, MSR_AMD_PSTATE_CUR_LIM), 0);
	wr_gp(&m, MSR_AMD_PSTATE_CUR_LIM, 0);
	wr_gp(&m, MSR_AMD_PSTATE_STAT, 0);
	wr_ok(&m, MSR_AMD_PSTATE_CTL, 2);
	ck_assert_uint_eq(rd(&m, MSR_AMD_PSTATE_CTL), 2);
	ck_assert_uint_eq(rd(&m, MSR_AMD_PSTATE_STAT), 0);
	/* A 2.2 GHz TSC: CpuFid 58H (2200 / 25). */
	m.cpu.tsc_hz = 2200000000ull;
	ck_assert_uint_eq(rd(&m, MSR_AMD_PSTATE_DEF0), (1ull << 63) | 0x800 | 0x58);
	machine_free(&m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("amd_cfg_msrs");
	TCase *t = tcase_create("msrs");
	tcase_add_test(t, absent_on_intel);
	tcase_add_test(t, reset_values_and_writes);
	tcase_add_test(t, top_mem_is_ram_end);
	tcase_add_test(t, every_row);
	tcase_add_test(t, kernel_read_back);
	tcase_add_test(t, mc_status_write_enable);
	tcase_add_test(t, address_registers);
	tcase_add_test(t, pstates);
	suite_add_tcase(s, t);
	return run_suite(s);
}
