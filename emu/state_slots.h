/* The slots of processor state a world switch moves (VMRUN, #VMEXIT, VMLOAD,
 * VMSAVE; VM entry and VM exit): one name per piece of state, shared by the
 * VMCB rows (svm/vmcb_fields.def) and the VMCS rows (vmx/vmcs_fields.def), so
 * "the guest's CS base" is one slot whatever field holds it. How a slot reads
 * and writes struct cpu is emu/world_state.h's; this header has no includes,
 * so vmx/ and svm/ tables name slots without depending on the core.
 *
 * A segment slot holds hvemu's form: the selector, the attributes in the VMCB
 * attrib layout (mmu/x86.h SEG_*; a VMCS access-rights word converts with
 * seg_attr_from_vmx_ar()), the byte-granular limit and the base.
 */
#ifndef HVEMU_EMU_STATE_SLOTS_H
#define HVEMU_EMU_STATE_SLOTS_H

#define WS_SEGMENT_SLOTS(S) S##_SELECTOR, S##_ATTR, S##_LIMIT, S##_BASE

enum ws_slot {
	WS_NONE = 0,               /* no processor state (controls, exit information) */
	/* segment registers, their hidden parts included (SDM Vol.3 3.4.3) */
	WS_SEGMENT_SLOTS(WS_ES), WS_SEGMENT_SLOTS(WS_CS), WS_SEGMENT_SLOTS(WS_SS),
	WS_SEGMENT_SLOTS(WS_DS), WS_SEGMENT_SLOTS(WS_FS), WS_SEGMENT_SLOTS(WS_GS),
	WS_SEGMENT_SLOTS(WS_LDTR), WS_SEGMENT_SLOTS(WS_TR),
	WS_GDTR_LIMIT, WS_GDTR_BASE, WS_IDTR_LIMIT, WS_IDTR_BASE,
	/* control and debug registers, the PAE PDPTE registers (SDM Vol.3 4.4.1) */
	WS_CR0, WS_CR2, WS_CR3, WS_CR4, WS_EFER,
	WS_PDPTE0, WS_PDPTE1, WS_PDPTE2, WS_PDPTE3,
	WS_DR6, WS_DR7,
	/* registers */
	WS_RFLAGS, WS_RIP, WS_RSP, WS_RAX, WS_CPL,
	/* MSRs */
	WS_STAR, WS_LSTAR, WS_CSTAR, WS_SFMASK, WS_KERNEL_GS_BASE,
	WS_SYSENTER_CS, WS_SYSENTER_ESP, WS_SYSENTER_EIP,
	WS_PAT, WS_DEBUGCTL, WS_BR_FROM, WS_BR_TO, WS_LASTEXCP_FROM, WS_LASTEXCP_TO,
	/* Non-register state (SDM Vol.3 24.4.2) the core holds in its own form
	 * (shadows, halted, pending #DB): each vendor encodes it, so the engine
	 * does not move it by value. */
	WS_INTERRUPTIBILITY, WS_ACTIVITY_STATE, WS_PENDING_DBG_EXCEPTIONS,
	/* Architectural state hvemu does not model: named so a field maps to it,
	 * reads 0 and ignores writes. */
	WS_SMBASE, WS_PERF_GLOBAL_CTRL, WS_BNDCFGS, WS_RTIT_CTL, WS_LBR_CTL, WS_PKRS,
	WS_S_CET, WS_SSP, WS_INTR_SSP_TABLE, WS_SPEC_CTRL, WS_UINV,
	WS_FRED_CONFIG, WS_FRED_RSP1, WS_FRED_RSP2, WS_FRED_RSP3, WS_FRED_STKLVLS,
	WS_FRED_SSP1, WS_FRED_SSP2, WS_FRED_SSP3,
	WS_SLOT_COUNT,
};

#endif
