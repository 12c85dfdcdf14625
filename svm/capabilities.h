/* SVM capability reporting and enabling (APM2 15.4, 15.30; APM3 CPUID
 * Fn8000_000A): the feature bits, the SVM MSRs and the rules that gate
 * EFER.SVME and VMRUN. The mirror of vmx/capabilities.h.
 *
 * No CPU-model values here: which features a model has is data in the CPU
 * models; this header only names the bits and applies the rules.
 */
#ifndef HVEMU_SVM_CAPABILITIES_H
#define HVEMU_SVM_CAPABILITIES_H

#include <stdbool.h>
#include <stdint.h>

/* SVM MSRs (APM2 15.30). VM_CR and VM_HSAVE_PA are also MSR_VM_CR and
 * MSR_VM_HSAVE_PA in mmu/x86.h (the unit test checks they agree); svm/
 * keeps its own names so it needs no header from below. */
#define SVM_MSR_TSC_RATIO          0xc0000104u  /* guest TSC ratio, 8.32 fixed point (15.30.5) */
#define SVM_MSR_VM_CR              0xc0010114u  /* 15.30.1 */
#define SVM_MSR_IGNNE              0xc0010115u  /* 15.30.2 */
#define SVM_MSR_SMM_CTL            0xc0010116u  /* 15.30.3 */
#define SVM_MSR_VM_HSAVE_PA        0xc0010117u  /* host save area, 4 KB aligned (15.30.4) */

/* VM_CR (APM2 15.30.1). */
#define SVM_VM_CR_DPD              (1ull << 0)   /* debug port disable */
#define SVM_VM_CR_R_INIT           (1ull << 1)   /* INIT is redirected to #SX */
#define SVM_VM_CR_DIS_A20M         (1ull << 2)
#define SVM_VM_CR_LOCK             (1ull << 3)   /* SVMDIS is read-only */
#define SVM_VM_CR_SVMDIS           (1ull << 4)   /* EFER.SVME cannot be set */

/* EFER.SVME (bit 12, APM2 15.4) is EFER_SVME in mmu/x86.h. */

/* CPUID Fn8000_000A: EAX = SVM revision, EBX = number of ASIDs, EDX = these
 * feature bits (APM3 Appendix E, Fn8000_000A_EDX). */
enum svm_feature {
	SVM_FEAT_NP = 0,                   /* nested paging */
	SVM_FEAT_LBR_VIRT = 1,
	SVM_FEAT_SVM_LOCK = 2,             /* SVML: VM_CR.LOCK and SVMDIS */
	SVM_FEAT_NRIP_SAVE = 3,            /* nRIP written on #VMEXIT */
	SVM_FEAT_TSC_RATE_MSR = 4,
	SVM_FEAT_VMCB_CLEAN = 5,
	SVM_FEAT_FLUSH_BY_ASID = 6,        /* TLB_CONTROL 3 and 7 */
	SVM_FEAT_DECODE_ASSISTS = 7,
	SVM_FEAT_PAUSE_FILTER = 10,
	SVM_FEAT_PAUSE_FILTER_THRESHOLD = 12,
	SVM_FEAT_AVIC = 13,
	SVM_FEAT_VMSAVE_VIRT = 15,
	SVM_FEAT_VGIF = 16,
	SVM_FEAT_GMET = 17,
	SVM_FEAT_X2AVIC = 18,
	SVM_FEAT_SSS_CHECK = 19,
	SVM_FEAT_SPEC_CTRL = 20,
	SVM_FEAT_ROGPT = 21,
	SVM_FEAT_HOST_MCE_OVERRIDE = 23,
	SVM_FEAT_TLBI_CTL = 24,            /* INVLPGB/TLBSYNC hypervisor enable */
	SVM_FEAT_VNMI = 25,
	SVM_FEAT_IBS_VIRT = 26,
};

static inline bool svm_has(uint32_t cpuid_8000000a_edx, enum svm_feature f)
{
	return (cpuid_8000000a_edx >> f) & 1u;
}

/* May software set EFER.SVME? Not when VM_CR.SVMDIS is set: the WRMSR
 * raises #GP (APM2 15.4). */
static inline bool svm_svme_settable(uint64_t vm_cr)
{
	return !(vm_cr & SVM_VM_CR_SVMDIS);
}

/* A VM_HSAVE_PA value is usable if it is 4 KB aligned and below the
 * physical-address limit; else the WRMSR #GPs (APM2 15.30.4). */
static inline bool svm_hsave_pa_valid(uint64_t pa, unsigned maxphyaddr)
{
	return (pa & 0xfff) == 0 && (maxphyaddr >= 64 || (pa >> maxphyaddr) == 0);
}

/* TSC_RATIO: bits 39:32 integer, 31:0 fraction, 63:40 reserved (#GP on
 * write); 1.0 (0x0000000100000000) is the reset value (APM2 15.30.5). */
#define SVM_TSC_RATIO_DEFAULT      0x0000000100000000ull
#define SVM_TSC_RATIO_RESERVED     0xffffff0000000000ull
static inline bool svm_tsc_ratio_valid(uint64_t ratio)
{
	return (ratio & SVM_TSC_RATIO_RESERVED) == 0;
}

#endif
