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

#include "emu/feature_bits.h"

/* The SVM MSRs and EFER.SVME are the CPU's, not svm/'s: RDMSR/WRMSR reach
 * them whether or not a hypervisor model is installed. Their indices and bits
 * are in mmu/x86.h (MSR_VM_CR, MSR_VM_HSAVE_PA, VM_CR_*, EFER_SVME) and their
 * WRMSR rules in emu/msr.c's MSR table (APM2 15.4: no EFER.SVME while
 * VM_CR.SVMDIS; 15.30.1 VM_CR; 15.30.4 VM_HSAVE_PA), once. An SVM MSR hvemu
 * does not implement (TSC_RATIO, IGNNE, SMM_CTL) gets its row there when it is
 * implemented. */

/* CPUID Fn8000_000A: EAX = SVM revision, EBX = number of ASIDs, EDX = these
 * feature bits (APM3 E.4.9). The bit positions are emu/features.def's rows
 * (npt, nrip_save, ...), which the CPU models and `--cpu help` use; these are
 * svm/'s names for them. */
enum svm_feature {
	SVM_FEAT_NP = FEATURE_BIT_npt,                 /* nested paging */
	SVM_FEAT_LBR_VIRT = FEATURE_BIT_lbrv,
	SVM_FEAT_SVM_LOCK = FEATURE_BIT_svm_lock,      /* SVML: VM_CR.LOCK and SVMDIS */
	SVM_FEAT_NRIP_SAVE = FEATURE_BIT_nrip_save,    /* nRIP written on #VMEXIT */
	SVM_FEAT_TSC_RATE_MSR = FEATURE_BIT_tsc_scale,
	SVM_FEAT_VMCB_CLEAN = FEATURE_BIT_vmcb_clean,
	SVM_FEAT_FLUSH_BY_ASID = FEATURE_BIT_flushbyasid,  /* TLB_CONTROL 3 and 7 */
	SVM_FEAT_DECODE_ASSISTS = FEATURE_BIT_decodeassists,
	SVM_FEAT_PAUSE_FILTER = FEATURE_BIT_pausefilter,
	SVM_FEAT_PAUSE_FILTER_THRESHOLD = FEATURE_BIT_pfthreshold,
	SVM_FEAT_AVIC = FEATURE_BIT_avic,
	SVM_FEAT_VMSAVE_VIRT = FEATURE_BIT_v_vmsave_vmload,
	SVM_FEAT_VGIF = FEATURE_BIT_vgif,
	SVM_FEAT_GMET = FEATURE_BIT_gmet,
	SVM_FEAT_X2AVIC = FEATURE_BIT_x2avic,
	SVM_FEAT_SSS_CHECK = FEATURE_BIT_sss_check,
	SVM_FEAT_SPEC_CTRL = FEATURE_BIT_v_spec_ctrl,
	SVM_FEAT_ROGPT = FEATURE_BIT_rogpt,
	SVM_FEAT_HOST_MCE_OVERRIDE = FEATURE_BIT_host_mce_override,
	SVM_FEAT_TLBI_CTL = FEATURE_BIT_tlbi_ctl,      /* INVLPGB/TLBSYNC hypervisor enable */
	SVM_FEAT_VNMI = FEATURE_BIT_vnmi,
	SVM_FEAT_IBS_VIRT = FEATURE_BIT_ibs_virt,
};

static inline bool svm_has(uint32_t cpuid_8000000a_edx, enum svm_feature f)
{
	return (cpuid_8000000a_edx >> f) & 1u;
}

#endif
