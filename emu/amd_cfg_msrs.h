/* AMD's model-specific configuration registers (C001_xxxxH): the ones Linux,
 * KVM and Xen read or write on a family-17h part (the hardware configuration,
 * the memory-map and I/O range registers, SMM's TSeg, the OS-visible
 * workarounds, the P-state registers and the core's configuration registers
 * LS_CFG, IC_CFG, DC_CFG, FP_CFG, DE_CFG). Which of them a CPU has is its
 * model's data (struct cpu_model.amd_cfg): every row is a register with its
 * value after RESET, the bits software may change and the bits that must be
 * zero (MBZ: a 1 is #GP(0), APM2 1.x conventions); the other bits are
 * reserved: they read as their RESET value and a write leaves them. The rows
 * and their sources are emu/amd_cfg_msrs.c. An Intel model has none of them. */
#ifndef HVEMU_EMU_AMD_CFG_MSRS_H
#define HVEMU_EMU_AMD_CFG_MSRS_H

#include <stdbool.h>
#include <stdint.h>

struct cpu;

#define AMD_CFG_MAX 32             /* rows a model may have (bits of `written`) */

/* What sets a row apart from plain storage. */
enum {
	AMD_CFG_READ_ONLY = 1u << 0,   /* WRMSR is #GP(0), whatever the value */
	AMD_CFG_PHYS_ADDR = 1u << 1,   /* writable bits at or above MAXPHYADDR are MBZ */
	AMD_CFG_PSTATE0 = 1u << 2,     /* RESET value: P0 at the TSC's rate (HWCR.TscFreqSel) */
};

struct amd_cfg_msr {
	uint32_t index;
	const char *name;              /* the PPR's mnemonic */
	uint64_t reset;                /* value after RESET */
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

/* Family 17h (Zen; the PPR for family 17h models 00h-0Fh, 54945). */
extern const struct amd_cfg_set amd_cfg_fam17h;

/* The CPU's copy: what software wrote, row by row. A row not yet written
 * since RESET reads its RESET value (cpu_reset() clears `written`). */
struct amd_cfg_state {
	uint32_t written;              /* bit i: value[i] holds row i */
	uint64_t value[AMD_CFG_MAX];
};

/* MSRC001_0015 HWCR bits other MSRs depend on. */
#define AMD_HWCR_SMMLOCK        (1ull << 0)
#define AMD_HWCR_MCSTATUSWREN   (1ull << 18)  /* MCi_STATUS writable with non-zero values */
#define AMD_HWCR_TSCFREQSEL     (1ull << 24)  /* the TSC counts at the P0 frequency */

#define MSR_AMD_SYSCFG   0xc0010010u
#define MSR_AMD_HWCR     0xc0010015u
#define MSR_AMD_TOP_MEM  0xc001001au
#define MSR_AMD_TOP_MEM2 0xc001001du
#define MSR_AMD_NB_CFG   0xc001001fu
#define MSR_AMD_PSTATE_DEF0 0xc0010064u
#define MSR_AMD_DE_CFG   0xc0011029u
#define MSR_AMD_FP_CFG   0xc0011028u
#define MSR_AMD_LS_CFG   0xc0011020u

/* The MSR table's hooks (emu/msr.c): whether the CPU's model has the MSR ECX
 * names, its value, and a write (false: #GP(0)). */
bool amd_cfg_exists(const struct cpu *cpu);
uint64_t amd_cfg_read(struct cpu *cpu);
bool amd_cfg_write(struct cpu *cpu, uint64_t v);

/* The current value of one of the model's rows by index (0 if it has none):
 * for the bits other registers depend on (HWCR.McStatusWrEn). */
uint64_t amd_cfg_value(const struct cpu *cpu, uint32_t index);

#endif
