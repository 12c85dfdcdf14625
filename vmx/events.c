/* Events into and out of the guest: VM-entry event injection (SDM Vol.3 26.6)
 * from the VM-entry interruption-information field, and the interruption-
 * information format the VM-exit interruption information and the
 * IDT-vectoring information share with it (24.8.3, 24.9.2, 24.9.3).
 * The mirror of svm/events.c's EVENTINJ and EXITINTINFO.
 */
#include "emu/event_step.h"
#include "vmx/exit_reasons.h"
#include "vmx/model.h"
#include "vmx/virtual_apic.h"

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
	/* Type 7 (other event, vector 0): a pending MTF VM exit, not a delivery
	 * (26.6.2); vmx_events_enter armed it (mtf_injected). */
	if (type == VMX_INTR_OTHER)
		return ST_VMEXIT;
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

/* ---- the boundary events of VMX non-root operation ----
 *
 * VM entry arms, from the controls, the rows of emu/event_step.c a VMX guest
 * may exit by (cpu_hv_arm; the table gives their priorities, SDM Vol.3 6.9
 * Table 6-2 with 25.2's and 25.5's placements), and the VM exit disarms
 * them all. Whether an armed row then exits is vmx_exit_decide's
 * (intercepts.c), asked with the row's record. Kept here besides:
 * virtual-NMI blocking, the HLT activity state while L2 waits, and which
 * pending MTF VM exits the entry made. (The VMX-preemption timer, 25.5.1,
 * 26.7.4, 27.3.4, is world_switch.c's timer_start/timer_stop, as
 * DEADLINE_HV.) */

#define VMX_EVENT_ROWS (HV_ARM_TPR_THRESHOLD | HV_ARM_MTF | HV_MTF_DUE | HV_ARM_NMI_WINDOW | \
			HV_ARM_INTR_WINDOW | HV_ARM_VIRTUAL_INTR | HV_ENTRY_BOUNDARY)

/* SDM Vol.3 29.1.2, 26.7.7: with "use TPR shadow" and without
 * "virtual-interrupt delivery", VTPR[7:4] below TPR threshold[3:0]. */
static bool tpr_below_threshold(struct vmx *v)
{
	if (!vmx_proc_ctl(v, VMX_PROC_TPR_SHADOW) || vmx_proc2_ctl(v, VMX_PROC2_VIRTUAL_INTR_DELIVERY))
		return false;
	return vapic_tpr_below_threshold(v);
}

void vmx_events_enter(struct vmx *v, struct cpu *cpu)
{
	unsigned rows = 0;
	uint32_t info = (uint32_t)vmcs_get(v, VMCS_ROW_ENTRY_INTR_INFO);
	bool injecting = info & VMX_INTR_VALID;
	unsigned type = (info & VMX_INTR_TYPE_MASK) >> VMX_INTR_TYPE_SHIFT;

	/* SDM Vol.3 26.7.1: with "virtual NMIs", bit 3 of the interruptibility
	 * state is virtual-NMI blocking, which hvemu keeps where NMI blocking
	 * is (cpu->nmi_blocked): an IRET in L2 clears it (25.3), injecting an
	 * NMI sets it (26.6.1.2, emu/event_inject.c), NMI-window exiting waits
	 * for it (25.2); NMIs themselves "are not blocked in VMX non-root
	 * operation" (HV_VIRTUAL_NMI_BLOCKING: the boundary table lets them
	 * through to their exit). */
	if (vmx_pin_ctl(v, VMX_PIN_VIRTUAL_NMIS)) {
		cpu->nmi_blocked = vmcs_get(v, VMCS_ROW_GUEST_INTERRUPTIBILITY) & VMX_INTERRUPTIBILITY_NMI;
		cpu->hv_holds |= HV_VIRTUAL_NMI_BLOCKING;
	} else if (vmx_pin_ctl(v, VMX_PIN_NMI_EXITING)) {
		/* SDM Vol.3 25.3, 26.7.1: with "NMI exiting", blocking by NMI
		 * "remains in effect as long as the logical processor is in VMX
		 * non-root operation": IRET does not end it. */
		cpu->hv_holds |= HV_HOLD_NMI_PAST_IRET;
	}

	/* SDM Vol.3 "Restrictions on VMX Operation": INIT is blocked in VMX
	 * root operation only; in non-root operation it exits (25.2). */
	cpu->hv_holds &= (uint8_t)~HV_HOLD_INIT;

	/* SDM Vol.3 25.2, 26.7.5: interrupt-window exiting: an exit before any
	 * instruction with RFLAGS.IF = 1 and no blocking by STI or MOV SS, right
	 * after VM entry if those hold (the row's blockers). */
	if (vmx_proc_ctl(v, VMX_PROC_INTR_WINDOW_EXITING))
		rows |= HV_ARM_INTR_WINDOW;
	/* SDM Vol.3 25.2, 26.7.6: NMI-window exiting: no (virtual-)NMI
	 * blocking, no blocking by MOV SS. */
	if (vmx_proc_ctl(v, VMX_PROC_NMI_WINDOW_EXITING))
		rows |= HV_ARM_NMI_WINDOW;
	/* SDM Vol.3 25.5.2: the monitor trap flag: an MTF VM exit is pending
	 * after each instruction (emu/run.c sets HV_MTF_DUE) and after the
	 * delivery of an injected vectored event (26.7.8; the delivery's
	 * intercept answer, vmx_events_go_on, sets it). */
	if (vmx_proc_ctl(v, VMX_PROC_MONITOR_TRAP_FLAG))
		rows |= HV_ARM_MTF;
	/* SDM Vol.3 26.6.2, 26.7.8: type 7 (other event), vector 0: "VM entry
	 * is injecting a pending MTF VM exit": one is pending before the first
	 * instruction, even with the "monitor trap flag" control 0. */
	v->mtf_injected = injecting && type == VMX_INTR_OTHER;
	if (v->mtf_injected)
		rows |= HV_MTF_DUE;
	/* SDM Vol.3 26.7.2: a VM entry that is not vectoring enters the
	 * activity state of its field (world_switch.c halts the CPU); L2
	 * waits in HLT until an event wakes it or exits. */
	v->guest_halted = (!injecting || type == VMX_INTR_OTHER) &&
			  vmcs_get(v, VMCS_ROW_GUEST_ACTIVITY_STATE) == VMX_ACTIVITY_HLT;
	/* SDM Vol.3 26.7.7: "VM Exits Induced by the TPR Threshold": right
	 * after VM entry (after any injection) when VTPR[7:4] < threshold. */
	if (tpr_below_threshold(v))
		rows |= HV_ARM_TPR_THRESHOLD;
	v->trap_exit_reason = 0;
	vmx_apic_access_enter(v, cpu);
	if (rows)
		cpu_hv_arm(cpu, rows);
	/* SDM Vol.3 26.3.2.5: with "virtual-interrupt delivery" VM entry takes
	 * RVI and SVI from the guest interrupt status (virtual_apic.c keeps
	 * them there), performs PPR virtualization and evaluates pending
	 * virtual interrupts (29.2.1); one recognized is delivered at the
	 * first boundary that allows it (26.7.5), after any injected event. */
	if (vmx_proc2_ctl(v, VMX_PROC2_VIRTUAL_INTR_DELIVERY)) {
		vapic_ppr_virtualization(v);
		vapic_evaluate(v);
	}
}

void vmx_events_go_on(struct vmx *v, struct cpu *cpu, const struct exit_record *rec, status_t st)
{
	if (st != ST_OK)
		return;
	switch (rec->kind) {
	case IK_HLT:
		/* SDM Vol.3 25.1.3: without "HLT exiting" L2 halts (24.4.2: the
		 * HLT activity state). */
		v->guest_halted = true;
		break;
	case IK_EXCEPTION: case IK_NMI: case IK_INTR:
		if (!rec->event.pending)
			break;
		/* An event delivered through L2's IDT ends HLT (SDM Vol.2 HLT), and
		 * with the monitor trap flag an MTF VM exit is pending after the
		 * delivery "(or any nested exception)" (SDM Vol.3 25.5.2), an
		 * injected event's included (26.7.8). */
		v->guest_halted = false;
		if (cpu->hv_armed & HV_ARM_MTF)
			cpu_hv_arm(cpu, HV_MTF_DUE);
		break;
	default:
		break;
	}
}

/* The VM exit's basic reason and whether an NMI caused it directly. */
static bool exit_by_nmi(const struct vmx_exit *x)
{
	return (x->reason & 0xffff) == VMX_EXIT_EXCEPTION_NMI && (x->intr_info & VMX_INTR_VALID) &&
	       ((x->intr_info & VMX_INTR_TYPE_MASK) >> VMX_INTR_TYPE_SHIFT) == VMX_INTR_NMI;
}

void vmx_events_leave(struct vmx *v, struct cpu *cpu, const struct vmx_exit *x)
{
	/* SDM Vol.3 27.1: "If an unblocked event causes a VM exit directly, a
	 * return to the active state occurs only after the VM exit completes"
	 * (MTF VM exits too): the activity state saved is HLT while L2 waited
	 * (27.3.4), whatever woke the CPU to take the exit. */
	if (v->guest_halted)
		vmcs_set(v, VMCS_ROW_GUEST_ACTIVITY_STATE, VMX_ACTIVITY_HLT);
	v->guest_halted = false;
	v->mtf_injected = false;
	v->trap_exit_reason = 0;

	cpu_hv_disarm(cpu, VMX_EVENT_ROWS);
	vmx_apic_access_leave(cpu);

	/* SDM Vol.3 27.5.5: "VM exits caused directly by non-maskable
	 * interrupts (NMIs) cause blocking by NMI ... Other VM exits do not
	 * affect blocking by NMI": the NMI was taken by the exit. With "virtual
	 * NMIs" the guest's bit was virtual-NMI blocking (saved by 27.3.4), and
	 * NMIs were not blocked in non-root operation (26.7.1). */
	if (exit_by_nmi(x)) {
		cpu->lines &= (uint8_t)~LINE_NMI;
		cpu->nmi_blocked = true;
	} else if (vmx_pin_ctl(v, VMX_PIN_VIRTUAL_NMIS)) {
		cpu->nmi_blocked = false;
	}
	/* Back in VMX root operation: INIT blocked again, NMI blocking L1's
	 * own. */
	cpu->hv_holds = (uint8_t)((cpu->hv_holds | HV_HOLD_INIT) &
				  ~(HV_HOLD_NMI_PAST_IRET | HV_VIRTUAL_NMI_BLOCKING));
}
