/* Event injection at a world switch (APM2 15.20 EVENTINJ; SDM Vol.3 26.6
 * "Event Injection"): what both vendors' injections share once each has
 * decoded its own word into a struct event (svm/events.c svm_inject; the VMX
 * VM-entry interruption-information field).
 */
#include "emu/hv.h"

status_t cpu_inject_event(struct cpu *cpu, const struct event *ev, uint64_t rip, uint64_t return_rip)
{
	/* The delivery pushes cpu->rip and reports cpu->insn_start on a fault
	 * (emu/exception.c): for an injected event the entry's rIP, which is also
	 * where an exit during the delivery finds the guest (emu/intercept.c). */
	cpu->insn_start = rip;
	cpu->rip = return_rip;
	cpu->event = *ev;
	cpu->event.pending = true;
	cpu->event.injected = true;
	status_t st = cpu_deliver_event(cpu);
	/* SDM Vol.3 6.7.1, as on hardware for an NMI the guest takes: NMIs stay
	 * blocked until its IRET (APM2 15.20 is silent; KVM relies on it, as it
	 * intercepts IRET after injecting one; SDM Vol.3 26.6.1.2: "blocking by
	 * NMI" after injecting an NMI, a vendor with virtual NMIs adjusts). */
	if (st == ST_OK && ev->type == EV_NMI)
		cpu->nmi_blocked = true;
	return st;
}
