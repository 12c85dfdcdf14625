/* Events into and out of the guest: VM-entry event injection (SDM Vol.3 26.6)
 * from the VM-entry interruption-information field, and the interruption-
 * information format the VM-exit interruption information and the
 * IDT-vectoring information share with it (24.8.3, 24.9.2, 24.9.3).
 * The mirror of svm/events.c's EVENTINJ and EXITINTINFO.
 */
#include "emu/event_step.h"
#include "vmx/model.h"

/* SDM Vol.3 24.8.3 Table 24-13: the interruption types. The core's event
 * types use the same numbers (emu/cpu.h enum event_type): 0 external
 * interrupt, 2 NMI, 3 hardware exception, 4 software interrupt (INTn), 5
 * privileged software exception (INT1), 6 software exception (INT3, INTO). */
_Static_assert((int)EV_EXTINT == (int)VMX_INTR_EXTERNAL && (int)EV_NMI == (int)VMX_INTR_NMI &&
	       (int)EV_EXCEPTION == (int)VMX_INTR_HW_EXCEPTION && (int)EV_SOFTINT == (int)VMX_INTR_SOFT_INT &&
	       (int)EV_PRIV_SOFTEXC == (int)VMX_INTR_PRIV_SOFT_EXCEPTION &&
	       (int)EV_SOFTEXC == (int)VMX_INTR_SOFT_EXCEPTION, "SDM Vol.3 Table 24-13");

uint32_t vmx_event_info(const struct event *ev)
{
	uint32_t w = ev->vector | ((uint32_t)ev->type << VMX_INTR_TYPE_SHIFT) | VMX_INTR_VALID;
	if (ev->has_error)
		w |= VMX_INTR_DELIVER_ERROR;
	return w;
}

/* Whether the interruption type is a software event, whose delivery pushes
 * the address of the next instruction: rip + the VM-entry instruction length
 * (SDM Vol.3 26.6.1.1: "If the interruption type is software interrupt,
 * privileged software exception, or software exception, the current guest
 * RIP is incremented by the VM-entry instruction length before being
 * pushed on the stack"). */
static bool software_type(unsigned type)
{
	return type == VMX_INTR_SOFT_INT || type == VMX_INTR_PRIV_SOFT_EXCEPTION || type == VMX_INTR_SOFT_EXCEPTION;
}

status_t vmx_inject(struct vmx *v, struct cpu *cpu, uint64_t rip)
{
	uint32_t info = (uint32_t)vmcs_get(v, VMCS_ROW_ENTRY_INTR_INFO);
	unsigned type = (info & VMX_INTR_TYPE_MASK) >> VMX_INTR_TYPE_SHIFT;
	/* Type 7 (other event, vector 0): "an MTF VM exit is pending on the
	 * instruction boundary following VM entry ... even if the monitor trap
	 * flag VM-execution control is 0" (26.6.2): the event step's MTF row,
	 * due now (emu/event_step.c), asks IK_MTF; mtf_pending tells the exit
	 * decision it is this one. */
	if (type == VMX_INTR_OTHER) {
		v->mtf_pending = true;
		cpu_hv_arm(cpu, HV_MTF_DUE);
		return ST_VMEXIT;
	}
	struct event ev = { .type = (uint8_t)type, .vector = (uint8_t)(info & VMX_INTR_VECTOR_MASK) };
	/* SDM Vol.3 26.6.1.1: "If the deliver-error-code bit is 1, the VM-entry
	 * exception error code is pushed"; the core drops it in real mode, as
	 * delivery always does (an unrestricted guest in real mode). */
	if (info & VMX_INTR_DELIVER_ERROR) {
		ev.has_error = true;
		ev.error_code = (uint32_t)vmcs_get(v, VMCS_ROW_ENTRY_EXCEPTION_ERROR_CODE);
	}
	uint64_t return_rip = rip;
	if (software_type(type)) {
		uint32_t len = (uint32_t)vmcs_get(v, VMCS_ROW_ENTRY_INSTRUCTION_LEN);
		ev.insn_len = (uint8_t)len;
		return_rip = rip + len;
		if (!cpu_is_mode64(cpu))
			return_rip = (uint32_t)return_rip;
	}
	/* SDM Vol.3 26.7.1: blocking by STI or MOV SS "is cleared after the guest
	 * executes one instruction or incurs an exception": an injected event
	 * ends it before the first instruction. */
	cpu->shadow = 0;
	status_t st = cpu_inject_event(cpu, &ev, rip, return_rip);
	if (st == ST_OK)
		return ST_VMEXIT;  /* the world changed: the run loop looks again */
	return st;
}
