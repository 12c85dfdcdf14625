/* The AMD model-specific configuration registers that kernels and
 * hypervisors read or write at boot on the AMD models (Linux, KVM and Xen on
 * families 10h to 17h): the K8-era system ones and the family 10h+ core
 * configuration ("chicken bit") registers. Sources: AMD BKDG for Family 10h
 * (31116) and PPR for Family 17h Model 01h (54945), the MSRC001_xxxx
 * sections, cited by register name; APM2 7.9 (SYSCFG, TOP_MEM, TOP_MEM2).
 *
 *   C001_0010 SYSCFG: MtrrFixDramEn[18], MtrrFixDramModEn[19],
 *     MtrrVarDramEn[20], MtrrTom2En[21], Tom2ForceMemTypeWB[22] writable;
 *     reset 0 (no firmware ran; hvemu's memory types change no access).
 *   C001_0015 HWCR: INVDWBINVD[4] and TscFreqSel[24] read 1 (the TSC runs
 *     at the P0 rate, hvemu's --insn-rate); writable only the bits with no
 *     architectural effect here: TlbCacheDis[3], IgnneEm[8],
 *     SmiSpCycDis[13], RsmSpCycDis[14], LockTscToCurrentP0[21], CpbDis[25],
 *     EffFreqCntMwait[26], EffFreqReadOnlyLock[27], IRPerfEn[30] (no
 *     IRPerfCount MSR is advertised). MonMwaitDis, Wrap32Dis, McStatusWrEn
 *     and SmmLock, which would change instructions or the MCA banks, read 0
 *     and ignore writes.
 *   C001_001A TOP_MEM: RAM's end below 4 GiB, bits 47:23 writable (8 MiB
 *     units); C001_001D TOP_MEM2: 0 (no RAM above 4 GiB), bits 47:23.
 *   C001_001F NB_CFG: 0; EnableCf8ExtCfg[46] reads 0 and is ignored: the
 *     host bridge has no extended configuration space through CF8h.
 *   C001_1020 LS_CFG, C001_1021 IC_CFG, C001_1022 DC_CFG, C001_1023
 *     TW_CFG (BU_CFG on family 10h), C001_1028 FP_CFG, C001_1029 DE_CFG,
 *     C001_102A BU_CFG2: the microarchitecture's tuning and erratum bits,
 *     which change nothing in an emulator; reset 0, every bit keeps what is
 *     written, so a kernel's read-back (DE_CFG's LFENCE_SERIALIZE[1], FP_CFG's
 *     Zen1 denormal fix[9]) sees its write.
 * A bit that is not writable keeps its value on a write (the registers'
 * reserved bits are not #GP conditions in the BKDG/PPR); an MSR the model's
 * family lacks, or an Intel model, is #GP(0) (emu/msr.c). What the CPU holds
 * is the difference from the reset value, so a zeroed struct cpu (cpu_reset)
 * reads every reset value. */
#ifndef HVEMU_EMU_AMD_CFG_MSRS_H
#define HVEMU_EMU_AMD_CFG_MSRS_H

#include <stdbool.h>
#include <stdint.h>

struct cpu;

#define MSR_AMD_SYSCFG   0xc0010010u
#define MSR_AMD_HWCR     0xc0010015u
#define MSR_AMD_TOP_MEM  0xc001001au
#define MSR_AMD_TOP_MEM2 0xc001001du
#define MSR_AMD_NB_CFG   0xc001001fu
#define MSR_AMD_LS_CFG   0xc0011020u
#define MSR_AMD_IC_CFG   0xc0011021u
#define MSR_AMD_DC_CFG   0xc0011022u
#define MSR_AMD_TW_CFG   0xc0011023u
#define MSR_AMD_FP_CFG   0xc0011028u
#define MSR_AMD_DE_CFG   0xc0011029u
#define MSR_AMD_BU_CFG2  0xc001102au
#define AMD_CFG_MSR_COUNT 12

#define HWCR_INVDWBINVD (1ull << 4)
#define HWCR_TSC_FREQ_SEL (1ull << 24)

/* The MSR table's rows (emu/msr.c): X(index, name) for each register. */
#define AMD_CFG_MSRS(X) \
	X(MSR_AMD_SYSCFG, "SYSCFG") X(MSR_AMD_HWCR, "HWCR") X(MSR_AMD_TOP_MEM, "TOP_MEM") \
	X(MSR_AMD_TOP_MEM2, "TOP_MEM2") X(MSR_AMD_NB_CFG, "NB_CFG") X(MSR_AMD_LS_CFG, "LS_CFG") \
	X(MSR_AMD_IC_CFG, "IC_CFG") X(MSR_AMD_DC_CFG, "DC_CFG") X(MSR_AMD_TW_CFG, "TW_CFG") \
	X(MSR_AMD_FP_CFG, "FP_CFG") X(MSR_AMD_DE_CFG, "DE_CFG") X(MSR_AMD_BU_CFG2, "BU_CFG2")

/* Whether this CPU has the register ECX names (an AMD model of family 10h or
 * later); RDMSR and WRMSR of it (a write never faults). */
bool amd_cfg_exists(const struct cpu *cpu);
uint64_t amd_cfg_read(struct cpu *cpu);
bool amd_cfg_write(struct cpu *cpu, uint64_t v);

#endif
