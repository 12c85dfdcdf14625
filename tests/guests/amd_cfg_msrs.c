/* AMD's configuration MSRs as kernels use them at boot (emu/amd_cfg_msrs.h):
 *   family 17h and 10h: HWCR reads INVDWBINVD and TscFreqSel (BKDG/PPR
 *     MSRC001_0015), TscFreqSel stays 1; the read-modify-writes Linux 6.1 and
 *     Xen 4.17 do read back what they wrote: DE_CFG[1] (LFENCE dispatch
 *     serializing), LS_CFG[10] (SSBD on family 17h), FP_CFG[9] (the Zen1
 *     FP-DSS fix), SYSCFG's MtrrFixDramModEn cleared (APM2 3.2.1); TOP_MEM
 *     holds 8-MiB units and faults (#GP) on a bit at or above MAXPHYADDR, an
 *     IORR on a reserved bit (APM2 7.9.2, 7.9.4); with MCA, a non-zero
 *     MC1_STATUS write faults unless HWCR.McStatusWrEn is set;
 *   family 17h: PStateDef0 enabled, PStateCurLim/PStateStat read-only (PPR
 *     MSRC001_0061-0064);
 *   Intel: none of them (#GP).
 * QEMU TCG models none of these registers and reads unknown MSRs as 0: its
 * differences are marked as known deviations. */
#include "lib/guest.h"
#include "lib/msr_catch.h"

static const char tcg[] = "QEMU TCG has no AMD configuration MSRs (reads 0, ignores writes)";


#define SYSCFG   0xc0010010u
#define HWCR     0xc0010015u
#define IORR_BASE0 0xc0010016u
#define TOP_MEM  0xc001001au
#define PSTATE_CUR_LIM 0xc0010061u
#define PSTATE_STAT 0xc0010063u
#define PSTATE_DEF0 0xc0010064u
#define LS_CFG   0xc0011020u
#define FP_CFG   0xc0011028u
#define DE_CFG   0xc0011029u

static const uint32_t all[] = { SYSCFG, HWCR, IORR_BASE0, TOP_MEM, 0xc001001du, 0xc001001fu,
				0xc0010112u, 0xc0010140u, LS_CFG, 0xc0011021u, 0xc0011022u,
				FP_CFG, DE_CFG, PSTATE_DEF0 };

/* Sets bit (0-63) of msr as Linux's msr_set_bit() does and reads it back. */
static void set_and_read_back(const char *name, uint32_t msr, unsigned bit)
{
	check_quirk(name, (uint32_t)rd(msr), (uint32_t)NO_FAULT, tcg);
	uint32_t lo = msr_lo, hi = msr_hi;
	if (bit < 32)
		lo |= 1u << bit;
	else
		hi |= 1u << (bit - 32);
	check_quirk("  set", (uint32_t)wr(msr, hi, lo), (uint32_t)NO_FAULT, tcg);
	(void)rd(msr);
	check_quirk("  reads back set", bit < 32 ? msr_lo >> bit & 1 : msr_hi >> (bit - 32) & 1, 1, tcg);
}

static void amd(uint32_t family, uint32_t phys_bits, int mca)
{
	check_quirk("HWCR readable", (uint32_t)rd(HWCR), (uint32_t)NO_FAULT, tcg);
	check_quirk("HWCR: INVDWBINVD (4) and TscFreqSel (24)", msr_lo & 0x01000010u, 0x01000010u, tcg);
	check_quirk("HWCR: write 0", (uint32_t)wr(HWCR, 0, 0), (uint32_t)NO_FAULT, tcg);
	(void)rd(HWCR);
	check_quirk("  TscFreqSel still 1", msr_lo & (1u << 24), 1u << 24, tcg);

	set_and_read_back("DE_CFG: LFENCE serializing (1)", DE_CFG, 1);
	set_and_read_back("FP_CFG: bit 9", FP_CFG, 9);
	if (family == 0x17)
		set_and_read_back("LS_CFG: SSBD (10)", LS_CFG, 10);

	check_quirk("SYSCFG: MtrrFixDramEn, MtrrFixDramModEn", (uint32_t)wr(SYSCFG, 0, 3u << 18),
		    (uint32_t)NO_FAULT, tcg);
	(void)rd(SYSCFG);
	check_quirk("  cleared MtrrFixDramModEn",
		    (uint32_t)wr(SYSCFG, msr_hi, msr_lo & ~(1u << 19)), (uint32_t)NO_FAULT, tcg);
	(void)rd(SYSCFG);
	check_quirk("  reads MtrrFixDramEn alone", msr_lo & (0x1fu << 18), 1u << 18, tcg);
	(void)wr(SYSCFG, 0, 0);

	check_quirk("TOP_MEM: 256 MiB", (uint32_t)wr(TOP_MEM, 0, 0x10000000u), (uint32_t)NO_FAULT, tcg);
	(void)rd(TOP_MEM);
	check_quirk("  reads back", msr_lo, 0x10000000u, tcg);
	if (phys_bits >= 32 && phys_bits < 52) {
		uint32_t hi = 1u << (phys_bits - 32);
		check_quirk("TOP_MEM: a bit at MAXPHYADDR -> #GP", (uint32_t)wr(TOP_MEM, hi, 0), 13, tcg);
	}
	check_quirk("IORR_BASE0: reserved bit 5 -> #GP", (uint32_t)wr(IORR_BASE0, 0, 1u << 5), 13, tcg);

	if (family == 0x17) {
		check_quirk("PStateDef0 readable", (uint32_t)rd(PSTATE_DEF0), (uint32_t)NO_FAULT, tcg);
		check_quirk("  PstateEn (63)", msr_hi >> 31, 1, tcg);
		note("PStateDef0 CpuFid 0x%x CpuDfsId 0x%x", msr_lo & 0xff, (msr_lo >> 8) & 0x3f);
		check_quirk("PStateCurLim read-only -> #GP", (uint32_t)wr(PSTATE_CUR_LIM, 0, 0), 13, tcg);
		check_quirk("PStateStat read-only -> #GP", (uint32_t)wr(PSTATE_STAT, 0, 0), 13, tcg);
	}

	if (mca) {
		static const char why[] = "QEMU 7.2 TCG takes non-zero MCi_STATUS writes";
		check_quirk("MC1_STATUS: non-zero -> #GP", (uint32_t)wr(0x405, 0, 1), 13, why);
		check_quirk("HWCR: McStatusWrEn (18)", (uint32_t)wr(HWCR, 0, 1u << 18), (uint32_t)NO_FAULT, tcg);
		check("  MC1_STATUS takes a non-zero value", (uint32_t)wr(0x405, 0, 1), (uint32_t)NO_FAULT);
		check("  MC1_STATUS back to 0", (uint32_t)wr(0x405, 0, 0), (uint32_t)NO_FAULT);
		(void)wr(HWCR, 0, 0);
		check_quirk("  McStatusWrEn clear: non-zero -> #GP again", (uint32_t)wr(0x405, 0, 1), 13, why);
	}
}

void guest_main(void)
{
	uint32_t r[4];
	cpuid(0, r);
	int is_amd = r[1] == 0x68747541u;              /* "Auth" */
	int is_intel = r[1] == 0x756e6547u;            /* "Genu" */
	cpuid(1, r);
	uint32_t family = (r[0] >> 8) & 0xf;
	if (family == 0xf)
		family += (r[0] >> 20) & 0xff;     /* the extended family (APM3 E.3.2) */
	int mca = (r[3] & (1u << 14)) && (r[3] & (1u << 7));
	if (!(r[3] & (1u << 5)))
		skip_all("no RDMSR/WRMSR (CPUID.1:EDX.MSR = 0)");
	uint32_t phys_bits = 36;
	cpuid(0x80000000, r);
	if (r[0] >= 0x80000008) {
		cpuid(0x80000008, r);
		phys_bits = r[0] & 0xff;
	}
	note("%s family %xh, %u physical address bits", is_amd ? "AMD" : is_intel ? "Intel" : "other",
	     family, phys_bits);
	if (is_intel) {
		for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
			check_quirk("Intel: no AMD configuration MSR -> #GP", (uint32_t)rd(all[i]), 13, tcg);
			check_quirk("  nor a write", (uint32_t)wr(all[i], 0, 0), 13, tcg);
		}
	} else if (is_amd && (family == 0x10 || family == 0x17)) {
		amd(family, phys_bits, mca);
	} else {
		skip_all("not an Intel part nor an AMD family 10h/17h one");
	}
}
