/* VMX capability reporting (SDM Vol.3 Appendix A): the rules that apply the
 * capability MSRs' values: VMXON's IA32_FEATURE_CONTROL check, the allowed-0 /
 * allowed-1 rule that every VM-execution, VM-exit and VM-entry control obeys,
 * and the CR0/CR4 fixed bits.
 *
 * The MSR indices (MSR_VMX_*) are in mmu/x86.h and the MSRs' layouts and the
 * control bits in mmu/x86_vmx.h, once, because the CPU models' data (emu/)
 * names them too. No CPU-model values here: which bits a model allows is data
 * in the CPU models; this header only says how to apply such values.
 */
#ifndef HVEMU_VMX_CAPABILITIES_H
#define HVEMU_VMX_CAPABILITIES_H

#include <stdbool.h>
#include <stdint.h>

#include "mmu/x86.h"
#include "mmu/x86_vmx.h"

/* Does IA32_FEATURE_CONTROL let VMXON proceed? (SDM Vol.3 23.7, 30.3 VMXON:
 * #GP unless the lock bit and the enable for the current mode are 1.) */
static inline bool vmx_vmxon_allowed(uint64_t feature_control, bool in_smx)
{
	uint64_t need = FEATURE_CONTROL_LOCK |
			(in_smx ? FEATURE_CONTROL_VMX_IN_SMX : FEATURE_CONTROL_VMX_NO_SMX);
	return (feature_control & need) == need;
}

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
