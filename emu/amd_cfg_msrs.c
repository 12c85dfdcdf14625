/* The AMD configuration MSRs as rows; see emu/amd_cfg_msrs.h.
 *
 * Who touches them on Zen: Linux 6.1 (the MTRR code reads SYSCFG and, with
 * Tom2En, TOP_MEM2; arch/x86/pci/amd_bus.c sets NB_CFG's EnableCf8ExtCfg;
 * init_amd() sets DE_CFG[1] and FP_CFG[9] and caches LS_CFG for SSBD;
 * mce/amd.c toggles HWCR.McStatusWrEn), Xen 4.17 (the same, plus LS_CFG[10]
 * written and read back for SSBD, DE_CFG read back for a dispatch-serializing
 * LFENCE, FP_CFG read unguarded, the P-state definitions for its frequency
 * line) and KVM (SYSCFG, OSVW). The core configuration registers
 * (LS/IC/DC/TW/FP/DE_CFG, BU_CFG2) hold the microarchitecture's tuning and
 * erratum bits, which the BKDG/PPR mostly leave undescribed and which change
 * nothing in an emulator (its LFENCE always serializes, it speculates
 * nothing): every bit keeps what is written, so a kernel's read-back sees
 * its write. */
#include "emu/amd_cfg_msrs.h"

#include "devices/bus.h"
#include "devices/clock.h"
#include "emu/cpu.h"
#include "emu/cpu_model.h"

#define B(n) (1ull << (n))
/* Bits hi..lo set. */
#define FIELD(hi, lo) ((~0ull >> (63 - (hi))) & ~(B(lo) - 1))

/* APM2 3.2.1: MtrrFixDramEn (18), MtrrFixDramModEn (19), MtrrVarDramEn (20),
 * MtrrTom2En (21), Tom2ForceMemTypeWB (22). After RESET 0: no firmware ran,
 * and hvemu's memory types change no access. */
#define SYSCFG_WRITABLE FIELD(22, 18)

/* HWCR (BKDG 31116 and PPR 54945, MSRC001_0015): INVDWBINVD (4) and
 * TscFreqSel (24) read 1 (the TSC runs at the P0 rate). Writable: the bits
 * with no architectural effect here, TlbCacheDis (3), IgnneEm (8),
 * SmiSpCycDis (13), RsmSpCycDis (14), LockTscToCurrentP0 (21), CpbDis (25),
 * EffFreqCntMwait (26), EffFreqReadOnlyLock (27), IRPerfEn (30; no
 * IRPerfCount MSR is advertised), and McStatusWrEn (18), which the
 * machine-check banks honour. MonMwaitDis, Wrap32Dis and SmmLock, which
 * would change instructions or SMM, read 0. */
#define HWCR_WRITABLE (B(3) | B(8) | B(13) | B(14) | HWCR_MC_STATUS_WR_EN | B(21) | B(25) | \
		       B(26) | B(27) | B(30))

/* APM2 7.9.2: IORRBase PhysBase 51:12, RdMem 4, WrMem 3; IORRMask PhysMask
 * 51:12, V 11; every other bit MBZ. */
#define IORR_BASE_WRITABLE (FIELD(51, 12) | B(4) | B(3))
#define IORR_MASK_WRITABLE (FIELD(51, 12) | B(11))

/* APM2 7.9.4: TOM 51:23 (8-MiB granular); 22:0 reserved, 63:52 MBZ. */
#define TOP_MEM_WRITABLE FIELD(51, 23)

/* BKDG/PPR MSRC001_0112/0113: the TSeg base 47:17; its mask 47:17 with
 * TMTypeDram 14:12, AMTypeDram 10:8, TValid 1, AValid 0. hvemu has no SMM:
 * they only hold what is written. */
#define SMM_ADDR_WRITABLE FIELD(47, 17)
#define SMM_MASK_WRITABLE (FIELD(47, 17) | FIELD(14, 12) | FIELD(10, 8) | B(1) | B(0))

/* PPR 54945 MSRC001_0064..006B PStateDef: CpuFid 7:0, CpuDfsId 13:8, CpuVid
 * 21:14, IddValue 29:22, IddDiv 31:30, PstateEn 63. */
#define PSTATE_DEF_WRITABLE (B(63) | FIELD(31, 0))

#define ROW(idx, nm, rst, wr, z, fl) \
	{ .index = (idx), .name = (nm), .reset = (rst), .writable = (wr), .mbz = (z), .flags = (fl) }

/* The registers both families have, with the same layout. */
#define COMMON_ROWS \
	ROW(MSR_AMD_SYSCFG, "SYSCFG", 0, SYSCFG_WRITABLE, 0, 0), \
	ROW(MSR_AMD_HWCR, "HWCR", HWCR_INVDWBINVD | HWCR_TSC_FREQ_SEL, HWCR_WRITABLE, 0, 0), \
	ROW(MSR_AMD_IORR_BASE0, "IORR_BASE0", 0, IORR_BASE_WRITABLE, ~IORR_BASE_WRITABLE, \
	    AMD_CFG_PHYS_ADDR), \
	ROW(MSR_AMD_IORR_BASE0 + 1, "IORR_MASK0", 0, IORR_MASK_WRITABLE, ~IORR_MASK_WRITABLE, \
	    AMD_CFG_PHYS_ADDR), \
	ROW(MSR_AMD_IORR_BASE0 + 2, "IORR_BASE1", 0, IORR_BASE_WRITABLE, ~IORR_BASE_WRITABLE, \
	    AMD_CFG_PHYS_ADDR), \
	ROW(MSR_AMD_IORR_BASE0 + 3, "IORR_MASK1", 0, IORR_MASK_WRITABLE, ~IORR_MASK_WRITABLE, \
	    AMD_CFG_PHYS_ADDR), \
	ROW(MSR_AMD_TOP_MEM, "TOP_MEM", 0, TOP_MEM_WRITABLE, FIELD(63, 52), \
	    AMD_CFG_PHYS_ADDR | AMD_CFG_RAM_BELOW_4G), \
	ROW(MSR_AMD_TOP_MEM2, "TOP_MEM2", 0, TOP_MEM_WRITABLE, FIELD(63, 52), AMD_CFG_PHYS_ADDR), \
	/* NB_CFG: EnableCf8ExtCfg (46) is not offered (no extended \
	 * configuration space through CF8h): it reads 0 like the rest. */ \
	ROW(MSR_AMD_NB_CFG, "NB_CFG", 0, 0, 0, 0), \
	ROW(MSR_AMD_SMM_ADDR, "SMM_ADDR", 0, SMM_ADDR_WRITABLE, 0, 0), \
	ROW(MSR_AMD_SMM_MASK, "SMM_MASK", 0, SMM_MASK_WRITABLE, 0, 0), \
	/* OSVW_ID_Length 15:0 and the status bits, which firmware fills; 0: \
	 * no OS-visible workaround is reported. */ \
	ROW(MSR_AMD_OSVW_ID_LENGTH, "OSVW_ID_Length", 0, FIELD(15, 0), 0, 0), \
	ROW(MSR_AMD_OSVW_STATUS, "OSVW_Status", 0, ~0ull, 0, 0), \
	ROW(MSR_AMD_LS_CFG, "LS_CFG", 0, ~0ull, 0, 0), \
	ROW(MSR_AMD_IC_CFG, "IC_CFG", 0, ~0ull, 0, 0), \
	ROW(MSR_AMD_DC_CFG, "DC_CFG", 0, ~0ull, 0, 0), \
	ROW(MSR_AMD_TW_CFG, "TW_CFG", 0, ~0ull, 0, 0), \
	ROW(MSR_AMD_FP_CFG, "FP_CFG", 0, ~0ull, 0, 0), \
	ROW(MSR_AMD_DE_CFG, "DE_CFG", 0, ~0ull, 0, 0), \
	ROW(MSR_AMD_BU_CFG2, "BU_CFG2", 0, ~0ull, 0, 0)

static const struct amd_cfg_msr fam10h_rows[] = {
	COMMON_ROWS,
};

static const struct amd_cfg_msr fam17h_rows[] = {
	COMMON_ROWS,
	/* PPR 54945 MSRC001_0061-0063: PStateCurLim (CurPstateLimit 2:0,
	 * PstateMaxVal 6:4) and PStateStat (CurPstate 2:0) are read-only;
	 * PStateCtl's PstateCmd 2:0 asks for a P-state. hvemu's part has P0
	 * alone, so the limit, the maximum and the current state stay 0. */
	ROW(MSR_AMD_PSTATE_CUR_LIM, "PStateCurLim", 0, 0, 0, AMD_CFG_READ_ONLY),
	ROW(MSR_AMD_PSTATE_CTL, "PStateCtl", 0, FIELD(2, 0), 0, 0),
	ROW(MSR_AMD_PSTATE_STAT, "PStateStat", 0, 0, 0, AMD_CFG_READ_ONLY),
	ROW(MSR_AMD_PSTATE_DEF0, "PStateDef0", 0, PSTATE_DEF_WRITABLE, 0, AMD_CFG_PSTATE0),
	ROW(MSR_AMD_PSTATE_DEF0 + 1, "PStateDef1", 0, PSTATE_DEF_WRITABLE, 0, 0),
	ROW(MSR_AMD_PSTATE_DEF0 + 2, "PStateDef2", 0, PSTATE_DEF_WRITABLE, 0, 0),
	ROW(MSR_AMD_PSTATE_DEF0 + 3, "PStateDef3", 0, PSTATE_DEF_WRITABLE, 0, 0),
	ROW(MSR_AMD_PSTATE_DEF0 + 4, "PStateDef4", 0, PSTATE_DEF_WRITABLE, 0, 0),
	ROW(MSR_AMD_PSTATE_DEF0 + 5, "PStateDef5", 0, PSTATE_DEF_WRITABLE, 0, 0),
	ROW(MSR_AMD_PSTATE_DEF0 + 6, "PStateDef6", 0, PSTATE_DEF_WRITABLE, 0, 0),
	ROW(MSR_AMD_PSTATE_DEF0 + 7, "PStateDef7", 0, PSTATE_DEF_WRITABLE, 0, 0),
};
_Static_assert(sizeof(fam17h_rows) / sizeof(fam17h_rows[0]) <= AMD_CFG_MAX, "rows fit the state");

const struct amd_cfg_set amd_cfg_fam10h = {
	fam10h_rows, sizeof(fam10h_rows) / sizeof(fam10h_rows[0]),
};
const struct amd_cfg_set amd_cfg_fam17h = {
	fam17h_rows, sizeof(fam17h_rows) / sizeof(fam17h_rows[0]),
};

const struct amd_cfg_msr *amd_cfg_row(const struct amd_cfg_set *set, uint32_t index)
{
	if (!set || (index >> 16) != 0xc001)
		return NULL;
	for (unsigned i = 0; i < set->count; i++)
		if (set->rows[i].index == index)
			return &set->rows[i];
	return NULL;
}

/* The CPU's row for index, -1 if its model has none. */
static int row_of(const struct cpu *cpu, uint32_t index)
{
	const struct amd_cfg_set *set = cpu->model ? cpu->model->amd_cfg : NULL;
	const struct amd_cfg_msr *r = amd_cfg_row(set, index);
	return r ? (int)(r - set->rows) : -1;
}

/* PStateDef0 after RESET: enabled, at the TSC's rate (HWCR.TscFreqSel = 1:
 * the TSC counts at P0). PPR 54945 MSRC001_0064: CoreCOF = CpuFid / CpuDfsId
 * * 200 MHz, CpuDfsId 8 dividing by 1, so CpuFid = MHz / 25 (10H to FFH).
 * hvemu has no voltage or current: CpuVid, IddValue and IddDiv stay 0. */
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
	if (r->flags & AMD_CFG_PSTATE0)
		return pstate0(cpu);
	if (r->flags & AMD_CFG_RAM_BELOW_4G) {   /* in whole 8 MiB units */
		uint64_t ram = cpu->mem->ram_size < B(32) ? cpu->mem->ram_size : B(32);
		return ram & r->writable;
	}
	return r->reset;
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

/* WRMSR: a read-only register or a 1 in an MBZ bit is #GP(0) (for an APM2
 * 7.9 address field also a bit at or above MAXPHYADDR); otherwise the
 * writable bits take the new value and the others keep theirs. */
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
		mbz |= r->writable & ~(B(cpu->maxphyaddr) - 1);
	if (v & mbz)
		return false;
	cpu->amd_cfg.value[i] = (v & r->writable) | (row_value(cpu, i) & ~r->writable);
	cpu->amd_cfg.written |= 1u << i;
	return true;
}

uint64_t amd_cfg_value(const struct cpu *cpu, uint32_t index)
{
	int i = row_of(cpu, index);
	return i < 0 ? 0 : row_value(cpu, i);
}
