/* SVM capability reporting (APM3 CPUID Fn8000_000A): the feature bits svm/
 * checks. The mirror of vmx/capabilities.h.
 *
 * No CPU-model values here: which features a model has is data in the CPU
 * models; this header only names the bits and applies the rules.
 */
#ifndef HVEMU_SVM_CAPABILITIES_H
#define HVEMU_SVM_CAPABILITIES_H

#include <stdbool.h>
#include <stdint.h>

/* The SVM MSRs and EFER.SVME are the CPU's, not svm/'s: RDMSR/WRMSR reach
 * them whether or not a hypervisor model is installed. Their indices and bits
 * are in mmu/x86.h (MSR_VM_CR, MSR_VM_HSAVE_PA, VM_CR_*, EFER_SVME) and their
 * WRMSR rules in emu/msr.c's MSR table (APM2 15.4: no EFER.SVME while
 * VM_CR.SVMDIS; 15.30.1 VM_CR; 15.30.4 VM_HSAVE_PA), once. An SVM MSR hvemu
 * does not implement (TSC_RATIO, IGNNE, SMM_CTL) gets its row there when it is
 * implemented. */

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

#endif
