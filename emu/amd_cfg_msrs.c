/* AMD's configuration MSRs as rows; see emu/amd_cfg_msrs.h.
 *
 * The set is the one real software touches on Zen: Linux 6.1 (the MTRR code
 * reads SYSCFG and TOP_MEM2, arch/x86/pci/amd_bus.c sets NB_CFG's
 * EnableCf8ExtCfg, init_amd() sets DE_CFG[1] and FP_CFG[9] and caches LS_CFG
 * for SSBD, the machine-check code toggles HWCR.McStatusWrEn), Xen 4.17 (the
 * same, plus LS_CFG[10] written and read back for SSBD, DE_CFG read back for
 * a dispatch-serializing LFENCE, the P-state definitions for its frequency
 * line) and KVM (SYSCFG, OSVW). Layouts: APM2 (24593) 3.2.1 SYSCFG, 7.9.2
 * IORRs, 7.9.4 TOP_MEM/TOP_MEM2; the rest the PPR for family 17h models
 * 00h-0Fh (54945), "MSRC001_xxxx". Where the PPR calls a field only
 * "Reserved" (no MBZ), a write leaves it: software is told to write back what
 * it read, and no fault is defined. The core configuration registers
 * (LS/IC/DC/FP/DE_CFG) hold implementation bits the PPR leaves undescribed
 * apart from the few AMD's guidance names; hvemu keeps all 64 bits as written
 * and none changes what it executes (its LFENCE always serializes, it
 * speculates nothing). */
#include "emu/amd_cfg_msrs.h"

#include "devices/clock.h"
#include "emu/cpu.h"
#include "emu/cpu_model.h"

#define B(n) (1ull << (n))
/* Bits hi..lo set. */
#define FIELD(hi, lo) ((~0ull >> (63 - (hi))) & ~(B(lo) - 1))

/* APM2 3.2.1: MtrrFixDramEn (18), MtrrFixDramModEn (19),
 * MtrrVarDramEn (20), MtrrTom2En (21), Tom2ForceMemTypeWB (22); 23 and up are
 * the memory-encryption controls, MBZ on a part that does not report SME
 * (CPUID 8000001FH, which epyc-lite does not have). 17:0 reserved. */
#define SYSCFG_WRITABLE FIELD(22, 18)
#define SYSCFG_MBZ      FIELD(63, 23)

/* PPR MSRC001_0015 HWCR: SmmLock 0 (a lock: 1 until RESET), SlowFence 1,
 * TlbCacheDis 3, INVDWBINVD 4 (1 after RESET), AllowFerrOnNe 7, IgnneEm 8,
 * MonMwaitDis 9, MonMwaitUserEn 10, SmiSpCycDis 13, RsmSpCycDis 14, Wrap32Dis
 * 17, McStatusWrEn 18, IoCfgGpFault 20, LockTscToCurrentP0 21, TscFreqSel 24
 * (read-only 1: the TSC counts at the P0 frequency), CpbDis 25,
 * EffFreqCntMwait 26, EffFreqReadOnlyLock 27 (a lock), IRPerfEn 30. */
#define HWCR_WRITABLE (B(0) | B(1) | B(3) | B(4) | B(7) | B(8) | B(9) | B(10) | B(13) | \
		       B(14) | B(17) | B(18) | B(20) | B(21) | B(25) | B(26) | B(27) | B(30))
#define HWCR_RESET    (B(4) | AMD_HWCR_TSCFREQSEL)
#define HWCR_LOCKS    (AMD_HWCR_SMMLOCK | B(27))

/* APM2 7.9.2: IORRBase PhysBase 51:12, RdMem 4, WrMem 3;
 * IORRMask PhysMask 51:12, V 11; every other bit MBZ. */
#define IORR_BASE_WRITABLE (FIELD(51, 12) | B(4) | B(3))
#define IORR_MASK_WRITABLE (FIELD(51, 12) | B(11))

/* APM2 7.9.4: TOM 51:23 (8-MiB granular); 22:0 reserved,
 * 63:52 MBZ. */
#define TOP_MEM_WRITABLE FIELD(51, 23)

/* PPR MSRC001_0112/0113: the TSeg base 51:17; its mask 51:17 with TMTypeDram
 * 14:12, AMTypeDram 10:8, TValid 1, AValid 0. */
#define SMM_ADDR_WRITABLE FIELD(51, 17)
#define SMM_MASK_WRITABLE (FIELD(51, 17) | FIELD(14, 12) | FIELD(10, 8) | B(1) | B(0))

/* PPR MSRC001_0064..006B PStateDef: CpuFid 7:0, CpuDfsId 13:8, CpuVid 21:14,
 * IddValue 29:22, IddDiv 31:30, PstateEn 63. */
#define PSTATE_DEF_WRITABLE (B(63) | FIELD(31, 0))

#define ROW(idx, nm, rst, wr, z, fl) \
	{ .index = (idx), .name = (nm), .reset = (rst), .writable = (wr), .mbz = (z), .flags = (fl) }

static const struct amd_cfg_msr fam17h_rows[] = {
	ROW(MSR_AMD_SYSCFG, "SYSCFG", 0, SYSCFG_WRITABLE, SYSCFG_MBZ, 0),
	{ .index = MSR_AMD_HWCR, .name = "HWCR", .reset = HWCR_RESET, .writable = HWCR_WRITABLE,
	  .write_once = HWCR_LOCKS },
	ROW(0xc0010016, "IORR_BASE0", 0, IORR_BASE_WRITABLE, ~IORR_BASE_WRITABLE, AMD_CFG_PHYS_ADDR),
	ROW(0xc0010017, "IORR_MASK0", 0, IORR_MASK_WRITABLE, ~IORR_MASK_WRITABLE, AMD_CFG_PHYS_ADDR),
	ROW(0xc0010018, "IORR_BASE1", 0, IORR_BASE_WRITABLE, ~IORR_BASE_WRITABLE, AMD_CFG_PHYS_ADDR),
	ROW(0xc0010019, "IORR_MASK1", 0, IORR_MASK_WRITABLE, ~IORR_MASK_WRITABLE, AMD_CFG_PHYS_ADDR),
	ROW(MSR_AMD_TOP_MEM, "TOP_MEM", 0, TOP_MEM_WRITABLE, FIELD(63, 52), AMD_CFG_PHYS_ADDR),
	ROW(MSR_AMD_TOP_MEM2, "TOP_MEM2", 0, TOP_MEM_WRITABLE, FIELD(63, 52), AMD_CFG_PHYS_ADDR),
	/* PPR MSRC001_001F NB_CFG: EnableCf8ExtCfg 46 (CF8h's bits 27:24 address
	 * extended configuration space), InitApicIdCpuIdLo 54. */
	ROW(MSR_AMD_NB_CFG, "NB_CFG", 0, B(46) | B(54), 0, 0),
	/* PPR MSRC001_0061-0063: PStateCurLim (CurPstateLimit 2:0, PstateMaxVal
	 * 6:4) and PStateStat (CurPstate 2:0) are read-only; PStateCtl's
	 * PstateCmd 2:0 asks for a P-state. hvemu's part has P0 alone, so the
	 * limit, the maximum and the current state all stay 0. */
	ROW(0xc0010061, "PStateCurLim", 0, 0, 0, AMD_CFG_READ_ONLY),
	ROW(0xc0010062, "PStateCtl", 0, FIELD(2, 0), 0, 0),
	ROW(0xc0010063, "PStateStat", 0, 0, 0, AMD_CFG_READ_ONLY),
	ROW(MSR_AMD_PSTATE_DEF0, "PStateDef0", 0, PSTATE_DEF_WRITABLE, 0, AMD_CFG_PSTATE0),
	ROW(0xc0010065, "PStateDef1", 0, PSTATE_DEF_WRITABLE, 0, 0),
	ROW(0xc0010066, "PStateDef2", 0, PSTATE_DEF_WRITABLE, 0, 0),
	ROW(0xc0010067, "PStateDef3", 0, PSTATE_DEF_WRITABLE, 0, 0),
	ROW(0xc0010068, "PStateDef4", 0, PSTATE_DEF_WRITABLE, 0, 0),
	ROW(0xc0010069, "PStateDef5", 0, PSTATE_DEF_WRITABLE, 0, 0),
	ROW(0xc001006a, "PStateDef6", 0, PSTATE_DEF_WRITABLE, 0, 0),
	ROW(0xc001006b, "PStateDef7", 0, PSTATE_DEF_WRITABLE, 0, 0),
	ROW(0xc0010112, "SMM_ADDR", 0, SMM_ADDR_WRITABLE, 0, AMD_CFG_PHYS_ADDR),
	ROW(0xc0010113, "SMM_MASK", 0, SMM_MASK_WRITABLE, 0, AMD_CFG_PHYS_ADDR),
	/* PPR MSRC001_0140/0141: OSVW_ID_Length 15:0 and the status bits, which
	 * firmware fills; 0: no OS-visible workaround is reported. */
	ROW(0xc0010140, "OSVW_ID_Length", 0, FIELD(15, 0), 0, 0),
	ROW(0xc0010141, "OSVW_Status", 0, ~0ull, 0, 0),
	/* The core's configuration registers (PPR MSRC001_1020-1029). AMD's
	 * guidance names LS_CFG[10] (SSBD on family 17h), DE_CFG[1] (LFENCE
	 * dispatch serializing) and FP_CFG[9] (the Zen1 FP-DSS fix); kernels
	 * set them and read them back. */
	ROW(MSR_AMD_LS_CFG, "LS_CFG", 0, ~0ull, 0, 0),
	ROW(0xc0011021, "IC_CFG", 0, ~0ull, 0, 0),
	ROW(0xc0011022, "DC_CFG", 0, ~0ull, 0, 0),
	ROW(MSR_AMD_FP_CFG, "FP_CFG", 0, ~0ull, 0, 0),
	ROW(MSR_AMD_DE_CFG, "DE_CFG", 0, ~0ull, 0, 0),
};
_Static_assert(sizeof(fam17h_rows) / sizeof(fam17h_rows[0]) <= AMD_CFG_MAX, "rows fit the state");

const struct amd_cfg_set amd_cfg_fam17h = {
	fam17h_rows, sizeof(fam17h_rows) / sizeof(fam17h_rows[0]),
};

/* The row of the model's set for index, -1 if none. */
static int row_of(const struct cpu *cpu, uint32_t index)
{
	const struct amd_cfg_set *set = cpu->model ? cpu->model->amd_cfg : NULL;

	if (!set || (index >> 16) != 0xc001)
		return -1;
	for (unsigned i = 0; i < set->count; i++)
		if (set->rows[i].index == index)
			return (int)i;
	return -1;
}

/* PStateDef0 after RESET: enabled, at the TSC's rate (HWCR.TscFreqSel = 1:
 * the TSC counts at P0). PPR MSRC001_0064: CoreCOF = CpuFid / CpuDfsId *
 * 200 MHz with CpuDfsId 8 meaning "divide by 1", so CpuFid = MHz / 25 (10H
 * to FFH). hvemu has no voltage or current: CpuVid, IddValue and IddDiv
 * stay 0. */
static uint64_t pstate0(const struct cpu *cpu)
{
	uint64_t hz = cpu->tsc_hz ? cpu->tsc_hz : VCLOCK_DEFAULT_HZ;
	uint64_t fid = hz / 25000000u;

	if (fid < 0x10)
		fid = 0x10;
	if (fid > 0xff)
		fid = 0xff;
	return B(63) | (8ull << 8) | fid;
}

static uint64_t row_reset(const struct cpu *cpu, const struct amd_cfg_msr *r)
{
	return (r->flags & AMD_CFG_PSTATE0) ? pstate0(cpu) : r->reset;
}

static uint64_t row_value(const struct cpu *cpu, int i)
{
	if (cpu->amd_cfg.written & (1u << i))
		return cpu->amd_cfg.value[i];
	return row_reset(cpu, &cpu->model->amd_cfg->rows[i]);
}

bool amd_cfg_exists(const struct cpu *cpu)
{
	return row_of(cpu, (uint32_t)cpu->regs[R_CX]) >= 0;
}

uint64_t amd_cfg_read(struct cpu *cpu)
{
	int i = row_of(cpu, (uint32_t)cpu->regs[R_CX]);
	return i < 0 ? 0 : row_value(cpu, i);
}

/* WRMSR: a read-only register or a 1 in an MBZ bit is #GP(0) (for an address
 * field also a bit at or above MAXPHYADDR, APM2 7.9.2/7.9.4); otherwise the
 * writable bits take the new value, the reserved and read-only ones keep
 * theirs, and a set lock bit stays set. */
bool amd_cfg_write(struct cpu *cpu, uint64_t v)
{
	int i = row_of(cpu, (uint32_t)cpu->regs[R_CX]);
	if (i < 0)
		return false;
	const struct amd_cfg_msr *r = &cpu->model->amd_cfg->rows[i];
	uint64_t mbz = r->mbz;

	if (r->flags & AMD_CFG_READ_ONLY)
		return false;
	if (r->flags & AMD_CFG_PHYS_ADDR)
		mbz |= r->writable & ~((1ull << cpu->maxphyaddr) - 1);
	if (v & mbz)
		return false;
	uint64_t old = row_value(cpu, i);
	cpu->amd_cfg.value[i] = (v & r->writable & ~mbz) | (old & ~r->writable) | (old & r->write_once);
	cpu->amd_cfg.written |= 1u << i;
	return true;
}

uint64_t amd_cfg_value(const struct cpu *cpu, uint32_t index)
{
	int i = row_of(cpu, index);
	return i < 0 ? 0 : row_value(cpu, i);
}
