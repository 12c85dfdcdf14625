/* VMX capability reporting (SDM Vol.3 Appendix A): the capability MSR
 * indices, the layout of IA32_VMX_BASIC, and the allowed-0 / allowed-1 rule
 * that every VM-execution, VM-exit and VM-entry control obeys.
 *
 * No CPU-model values here: which bits a model allows is data in the CPU
 * models; this header only says how to read and apply such values.
 */
#ifndef HVEMU_VMX_CAPABILITIES_H
#define HVEMU_VMX_CAPABILITIES_H

#include <stdbool.h>
#include <stdint.h>

/* The SDM's names (SDM Vol.3 A.1-A.11, Vol.4 Table 2-2). IA32_FEATURE_CONTROL
 * (0x3A) is MSR_FEATURE_CONTROL in mmu/x86.h. */
enum vmx_cap_msr {
	IA32_VMX_BASIC = 0x480,
	IA32_VMX_PINBASED_CTLS = 0x481,
	IA32_VMX_PROCBASED_CTLS = 0x482,
	IA32_VMX_EXIT_CTLS = 0x483,
	IA32_VMX_ENTRY_CTLS = 0x484,
	IA32_VMX_MISC = 0x485,
	IA32_VMX_CR0_FIXED0 = 0x486,
	IA32_VMX_CR0_FIXED1 = 0x487,
	IA32_VMX_CR4_FIXED0 = 0x488,
	IA32_VMX_CR4_FIXED1 = 0x489,
	IA32_VMX_VMCS_ENUM = 0x48a,
	IA32_VMX_PROCBASED_CTLS2 = 0x48b,
	IA32_VMX_EPT_VPID_CAP = 0x48c,
	IA32_VMX_TRUE_PINBASED_CTLS = 0x48d,
	IA32_VMX_TRUE_PROCBASED_CTLS = 0x48e,
	IA32_VMX_TRUE_EXIT_CTLS = 0x48f,
	IA32_VMX_TRUE_ENTRY_CTLS = 0x490,
	IA32_VMX_VMFUNC = 0x491,
	IA32_VMX_PROCBASED_CTLS3 = 0x492,  /* 64-bit allowed-1 only (A.3.4) */
	IA32_VMX_EXIT_CTLS2 = 0x493,       /* 64-bit allowed-1 only (A.4.2) */
};

/* IA32_FEATURE_CONTROL bits (SDM Vol.3 23.7): VMXON needs lock + the enable for
 * the current SMX mode, else #GP. */
#define IA32_FEATURE_CONTROL_LOCK          (1ull << 0)
#define IA32_FEATURE_CONTROL_VMX_IN_SMX    (1ull << 1)
#define IA32_FEATURE_CONTROL_VMX_NO_SMX    (1ull << 2)

/* Does IA32_FEATURE_CONTROL let VMXON proceed? (SDM Vol.3 23.7, 30.3 VMXON:
 * #GP unless the lock bit and the enable for the current mode are 1.) */
static inline bool vmx_vmxon_allowed(uint64_t feature_control, bool in_smx)
{
	uint64_t need = IA32_FEATURE_CONTROL_LOCK |
			(in_smx ? IA32_FEATURE_CONTROL_VMX_IN_SMX : IA32_FEATURE_CONTROL_VMX_NO_SMX);
	return (feature_control & need) == need;
}

/* IA32_VMX_BASIC (SDM Vol.3 A.1). */
#define VMX_BASIC_REVISION_MASK            0x7fffffffull      /* 30:0 VMCS revision id */
#define VMX_BASIC_VMCS_SIZE_SHIFT          32                 /* 44:32 bytes of VMCS region */
#define VMX_BASIC_VMCS_SIZE_MASK           (0x1fffull << 32)
#define VMX_BASIC_PA_32BIT                 (1ull << 48)       /* VMX pointers limited to 32 bits */
#define VMX_BASIC_DUAL_MONITOR             (1ull << 49)
#define VMX_BASIC_MEMTYPE_SHIFT            50                 /* 53:50, 6 = write-back */
#define VMX_BASIC_MEMTYPE_MASK             (0xfull << 50)
#define VMX_BASIC_INS_OUTS_INFO            (1ull << 54)       /* instruction info for INS/OUTS */
#define VMX_BASIC_TRUE_CTLS                (1ull << 55)       /* TRUE_* MSRs exist (A.2) */
#define VMX_BASIC_NO_HW_ERRCODE_CHECK      (1ull << 56)       /* entry may inject any HW exception +/- error code */

/* Bit 31 (always 0), 47:45 and 63:57 (SDM Vol.3 A.1). */
#define VMX_BASIC_RESERVED                 ((1ull << 31) | (7ull << 45) | (0x7full << 57))

/* IA32_VMX_MISC (SDM Vol.3 A.6). */
#define VMX_MISC_PREEMPT_RATE_MASK         0x1full            /* 4:0: timer ticks when TSC bit X changes */
#define VMX_MISC_STORE_LMA                 (1ull << 5)        /* exits store EFER.LMA in "IA-32e mode guest" */
#define VMX_MISC_ACTIVITY_HLT              (1ull << 6)
#define VMX_MISC_ACTIVITY_SHUTDOWN         (1ull << 7)
#define VMX_MISC_ACTIVITY_WAIT_SIPI        (1ull << 8)
#define VMX_MISC_PT_IN_VMX                 (1ull << 14)
#define VMX_MISC_RDMSR_SMBASE              (1ull << 15)
#define VMX_MISC_CR3_TARGETS_SHIFT         16                 /* 24:16, at most 256 */
#define VMX_MISC_CR3_TARGETS_MASK          (0x1ffull << 16)
#define VMX_MISC_MSR_LIST_SHIFT            25                 /* 27:25: 512 * (N + 1) MSRs per list */
#define VMX_MISC_MSR_LIST_MASK             (7ull << 25)
#define VMX_MISC_SMM_MONITOR_CTL_B2        (1ull << 28)
#define VMX_MISC_VMWRITE_ANY_FIELD         (1ull << 29)       /* VM-exit information fields too */
#define VMX_MISC_INJECT_ZERO_LENGTH        (1ull << 30)       /* software events with length 0 */
#define VMX_MISC_MSEG_REVISION_SHIFT       32                 /* 63:32 */
#define VMX_MISC_RESERVED                  ((0x1full << 9) | (1ull << 31))

/* IA32_VMX_VMCS_ENUM (SDM Vol.3 A.9): bits 9:1 the highest index of any VMCS
 * field encoding; bit 0 and 63:10 read as 0. */
#define VMX_VMCS_ENUM_INDEX_MASK           0x3feull

/* IA32_VMX_EPT_VPID_CAP (SDM Vol.3 A.10). */
#define VMX_EPT_EXECUTE_ONLY               (1ull << 0)        /* EPT entries with R/W/X = 100b */
#define VMX_EPT_PAGE_WALK_4                (1ull << 6)
#define VMX_EPT_PAGE_WALK_5                (1ull << 7)
#define VMX_EPT_MEMTYPE_UC                 (1ull << 8)        /* EPTP memory type 0 */
#define VMX_EPT_MEMTYPE_WB                 (1ull << 14)       /* EPTP memory type 6 */
#define VMX_EPT_PAGE_2M                    (1ull << 16)       /* PDE bit 7 maps 2 MiB */
#define VMX_EPT_PAGE_1G                    (1ull << 17)       /* PDPTE bit 7 maps 1 GiB */
#define VMX_EPT_INVEPT                     (1ull << 20)
#define VMX_EPT_AD_FLAGS                   (1ull << 21)       /* EPTP bit 6 enables A/D */
#define VMX_EPT_ADVANCED_EXIT_INFO         (1ull << 22)       /* EPT-violation exit qualification */
#define VMX_EPT_SUPERVISOR_SHADOW_STACK    (1ull << 23)
#define VMX_EPT_INVEPT_SINGLE              (1ull << 25)
#define VMX_EPT_INVEPT_ALL                 (1ull << 26)
#define VMX_VPID_INVVPID                   (1ull << 32)
#define VMX_VPID_INVVPID_ADDRESS           (1ull << 40)       /* INVVPID type 0 */
#define VMX_VPID_INVVPID_SINGLE            (1ull << 41)       /* type 1 */
#define VMX_VPID_INVVPID_ALL               (1ull << 42)       /* type 2 */
#define VMX_VPID_INVVPID_SINGLE_NG         (1ull << 43)       /* type 3: retaining globals */
#define VMX_EPT_HLAT_PREFIX_MASK           (0x3full << 48)    /* 53:48 */
#define VMX_EPT_VPID_DEFINED               (VMX_EPT_EXECUTE_ONLY | VMX_EPT_PAGE_WALK_4 | \
	VMX_EPT_PAGE_WALK_5 | VMX_EPT_MEMTYPE_UC | VMX_EPT_MEMTYPE_WB | VMX_EPT_PAGE_2M | \
	VMX_EPT_PAGE_1G | VMX_EPT_INVEPT | VMX_EPT_AD_FLAGS | VMX_EPT_ADVANCED_EXIT_INFO | \
	VMX_EPT_SUPERVISOR_SHADOW_STACK | VMX_EPT_INVEPT_SINGLE | VMX_EPT_INVEPT_ALL | \
	VMX_VPID_INVVPID | VMX_VPID_INVVPID_ADDRESS | VMX_VPID_INVVPID_SINGLE | \
	VMX_VPID_INVVPID_ALL | VMX_VPID_INVVPID_SINGLE_NG | VMX_EPT_HLAT_PREFIX_MASK)

/* IA32_VMX_VMFUNC (SDM Vol.3 A.11): bit X allows VM function X; function 0 is
 * EPTP switching, the only one defined. */
#define VMX_VMFUNC_EPTP_SWITCHING          (1ull << 0)

/* Controls in the "default1" class (SDM Vol.3 A.2): reserved bits that read
 * as 1 in the non-TRUE capability MSRs. With VMX_BASIC_TRUE_CTLS, the TRUE_*
 * MSRs report which of them may in fact be 0. */
#define VMX_PINBASED_DEFAULT1              0x00000016u  /* bits 1, 2, 4 */
#define VMX_PROCBASED_DEFAULT1             0x0401e172u  /* 1, 4-6, 8, 13-16, 26 */
#define VMX_EXIT_DEFAULT1                  0x00036dffu  /* 0-8, 10, 11, 13, 14, 16, 17 */
#define VMX_ENTRY_DEFAULT1                 0x000011ffu  /* 0-8, 12 */

/* A 32-bit control capability MSR (SDM Vol.3 A.3-A.5):
 *   bits 31:0  "allowed-0 settings": bit X = 1 -> control X must be 1;
 *   bits 63:32 "allowed-1 settings": bit 32+X = 0 -> control X must be 0. */
static inline uint32_t vmx_ctl_must_be_1(uint64_t cap_msr) { return (uint32_t)cap_msr; }
static inline uint32_t vmx_ctl_may_be_1(uint64_t cap_msr) { return (uint32_t)(cap_msr >> 32); }

/* The control value nearest to `want` that the capability allows: every
 * must-be-1 bit set, every bit that may not be 1 cleared, everything else as
 * in `want`. A pure function of (cap_msr, want): the result never remembers a
 * previous call, so a caller that adjusts again with a smaller `want` gets
 * the dropped optional bits cleared (only must-be-1 bits come back). Build
 * `want` from the caller's required and optional sets each time; never feed
 * a previous result back in as `want`. If the capability contradicts itself
 * (a bit that must be 1 yet may not be 1), the bit is cleared and
 * vmx_ctl_valid() rejects every value. */
static inline uint32_t vmx_ctl_adjust(uint64_t cap_msr, uint32_t want)
{
	return (want | vmx_ctl_must_be_1(cap_msr)) & vmx_ctl_may_be_1(cap_msr);
}

/* Would VM entry accept `value` for this control field? (SDM Vol.3 26.2.1.1:
 * a reserved control with the wrong setting fails VM entry with
 * VM-instruction error 7.) */
static inline bool vmx_ctl_valid(uint64_t cap_msr, uint32_t value)
{
	uint32_t must = vmx_ctl_must_be_1(cap_msr), may = vmx_ctl_may_be_1(cap_msr);
	return (value & must) == must && (value & ~may) == 0;
}

/* The bits of `required` that the capability does not let the caller have:
 * non-zero means the caller's minimum cannot be met (a hypervisor's
 * "required control unsupported" check). */
static inline uint32_t vmx_ctl_unavailable(uint64_t cap_msr, uint32_t required)
{
	return required & ~vmx_ctl_may_be_1(cap_msr);
}

/* 64-bit controls with an allowed-1-only MSR (tertiary processor-based
 * controls, secondary exit controls, VM functions; SDM Vol.3 A.3.4, A.11):
 * no bit must be 1, bit X may be 1 iff allowed1 bit X is 1. */
static inline uint64_t vmx_ctl64_adjust(uint64_t allowed1, uint64_t want) { return want & allowed1; }
static inline bool vmx_ctl64_valid(uint64_t allowed1, uint64_t value) { return (value & ~allowed1) == 0; }

/* CR0/CR4 fixed bits in VMX operation (SDM Vol.3 A.7, A.8): bit X fixed to 1
 * if FIXED0 bit X is 1, fixed to 0 if FIXED1 bit X is 0; free otherwise. */
static inline bool vmx_cr_fixed_valid(uint64_t fixed0, uint64_t fixed1, uint64_t cr)
{
	return (cr & fixed0) == fixed0 && (cr & ~fixed1) == 0;
}

#endif
