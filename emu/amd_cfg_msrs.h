/* The AMD model-specific configuration registers (C001_xxxxH) that kernels
 * and hypervisors read or write at boot on the AMD models: Linux 6.1, KVM and
 * Xen 4.17 on families 10h and 17h. Which of them a CPU has is its model's
 * data (struct cpu_model.amd_cfg: opteron-g3 the family-10h set, epyc-lite
 * the family-17h one); an Intel model has none (#GP(0), emu/msr.c). Every
 * register is a row: its value after RESET, the bits software may change,
 * the bits that must be zero (MBZ: a 1 is #GP(0)) and the lock bits; every
 * other bit is reserved: it keeps its value on a write (the BKDG and PPR
 * define no fault for those). The rows and their sources (APM2 (24593) 3.2.1
 * and 7.9; BKDG for family 10h (31116) and PPR for family 17h models
 * 00h-0Fh (54945), "MSRC001_xxxx") are emu/amd_cfg_msrs.c:
 *
 *   SYSCFG, HWCR, IORR_BASE/MASK0-1, TOP_MEM, TOP_MEM2, NB_CFG, SMM_ADDR,
 *   SMM_MASK, OSVW_ID_Length, OSVW_Status, LS_CFG, IC_CFG, DC_CFG, TW_CFG,
 *   FP_CFG, DE_CFG, BU_CFG2 (both families); PStateCurLim, PStateCtl,
 *   PStateStat, PStateDef0-7 (family 17h, whose encoding they use).
 *
 * Values that depend on the machine: TOP_MEM reads RAM's end below 4 GiB (as
 * the firmware leaves it), PStateDef0 the P0 frequency that the TSC counts
 * at (HWCR.TscFreqSel = 1). A bit whose effect hvemu does not model
 * (HWCR.MonMwaitDis, Wrap32Dis, SmmLock; NB_CFG.EnableCf8ExtCfg, the host
 * bridge having no extended configuration space through CF8h) is not
 * writable: it reads 0. HWCR.McStatusWrEn is, and the machine-check banks
 * honour it (emu/msr.c). */
#ifndef HVEMU_EMU_AMD_CFG_MSRS_H
#define HVEMU_EMU_AMD_CFG_MSRS_H

#include <stdbool.h>
#include <stdint.h>

struct cpu;

#define MSR_AMD_SYSCFG   0xc0010010u
#define MSR_AMD_HWCR     0xc0010015u
#define MSR_AMD_IORR_BASE0 0xc0010016u   /* BASE0, MASK0, BASE1, MASK1 */
#define MSR_AMD_TOP_MEM  0xc001001au
#define MSR_AMD_TOP_MEM2 0xc001001du
#define MSR_AMD_NB_CFG   0xc001001fu
#define MSR_AMD_PSTATE_CUR_LIM 0xc0010061u
#define MSR_AMD_PSTATE_CTL  0xc0010062u
#define MSR_AMD_PSTATE_STAT 0xc0010063u
#define MSR_AMD_PSTATE_DEF0 0xc0010064u  /* ... PStateDef7 at C001_006BH */
#define MSR_AMD_SMM_ADDR 0xc0010112u
#define MSR_AMD_SMM_MASK 0xc0010113u
#define MSR_AMD_OSVW_ID_LENGTH 0xc0010140u
#define MSR_AMD_OSVW_STATUS 0xc0010141u
#define MSR_AMD_LS_CFG   0xc0011020u
#define MSR_AMD_IC_CFG   0xc0011021u
#define MSR_AMD_DC_CFG   0xc0011022u
#define MSR_AMD_TW_CFG   0xc0011023u
#define MSR_AMD_FP_CFG   0xc0011028u
#define MSR_AMD_DE_CFG   0xc0011029u
#define MSR_AMD_BU_CFG2  0xc001102au

/* HWCR bits other code and the tests name. */
#define HWCR_INVDWBINVD      (1ull << 4)
#define HWCR_MC_STATUS_WR_EN (1ull << 18)  /* MCi_STATUS writable with non-zero values */
#define HWCR_TSC_FREQ_SEL    (1ull << 24)  /* the TSC counts at the P0 frequency */

#define AMD_CFG_MAX 32             /* rows a set may have (bits of `written`) */

/* What sets a row apart from plain storage. */
enum {
	AMD_CFG_READ_ONLY = 1u << 0,   /* WRMSR is #GP(0), whatever the value */
	AMD_CFG_PHYS_ADDR = 1u << 1,   /* writable bits at or above MAXPHYADDR are MBZ */
	AMD_CFG_RAM_BELOW_4G = 1u << 2, /* RESET value: RAM's end below 4 GiB (TOP_MEM) */
	AMD_CFG_PSTATE0 = 1u << 3,     /* RESET value: P0 at the TSC's rate (family 17h) */
};

struct amd_cfg_msr {
	uint32_t index;
	const char *name;              /* the BKDG's/PPR's mnemonic */
	uint64_t reset;                /* value after RESET (unless a flag computes it) */
	uint64_t writable;             /* bits WRMSR changes */
	uint64_t mbz;                  /* bits whose 1 is #GP(0) */
	uint64_t write_once;           /* writable bits that stay 1 until RESET (locks) */
	unsigned flags;                /* AMD_CFG_* */
};

/* A model's set of rows (struct cpu_model.amd_cfg). */
struct amd_cfg_set {
	const struct amd_cfg_msr *rows;
	unsigned count;
};

extern const struct amd_cfg_set amd_cfg_fam10h;   /* BKDG 31116 */
extern const struct amd_cfg_set amd_cfg_fam17h;   /* PPR 54945 */

/* The CPU's copy: what software wrote, row by row. A row not written since
 * RESET reads its RESET value; cpu_reset()'s zeroing clears `written`. */
struct amd_cfg_state {
	uint32_t written;              /* bit i: value[i] holds row i */
	uint64_t value[AMD_CFG_MAX];
};

/* The MSR table's hooks (emu/msr.c): whether the CPU's model has the MSR ECX
 * names, its value, and a write (false: #GP(0)). */
bool amd_cfg_exists(const struct cpu *cpu);
uint64_t amd_cfg_read(struct cpu *cpu);
bool amd_cfg_write(struct cpu *cpu, uint64_t v);

/* The current value of the model's register index (0 if it has none): for
 * the bits other registers depend on (HWCR.McStatusWrEn). */
uint64_t amd_cfg_value(const struct cpu *cpu, uint32_t index);

/* The model's row for index, NULL if none (for tests and --cpu help). */
const struct amd_cfg_msr *amd_cfg_row(const struct amd_cfg_set *set, uint32_t index);

#endif
