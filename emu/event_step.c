/* Events at instruction boundaries (see event_step.h). */
#include "emu/event_step.h"
#include "emu/debug.h"
#include "emu/hv.h"
#include "emu/quirks.h"

/* What holds an event off at this boundary. */
enum blocker {
	B_GIF = 1u << 0,           /* GIF = 0: every interrupt waits (APM2 15.17.1) */
	B_IF = 1u << 1,            /* the flag that masks INTR is clear */
	B_STI = 1u << 2,           /* the boundary after STI (SDM Vol.3 6.8.3) */
	B_MOV_SS = 1u << 3,        /* the boundary after MOV SS / POP SS (SDM 6.8.3) */
	B_NMI = 1u << 4,           /* an NMI handler runs until the next IRET (SDM 6.7.1) */
	B_VIRQ = 1u << 5,          /* the guest's IF or V_TPR masks the virtual interrupt (APM2 15.21.4) */
	B_SIPI = 1u << 6,          /* waiting for SIPI: only INIT and SMI are recognised (SDM Vol.3 8.4.1) */
	B_RFLAGS_IF = 1u << 7,     /* EFLAGS.IF itself is clear, whatever masks INTR (VMX windows) */
	B_HV_INIT = 1u << 8,       /* the model holds INIT off (HV_HOLD_INIT: VMX root operation) */
	B_NMI_WINDOW = 1u << 9,    /* NMI blocking, or VMX virtual-NMI blocking, holds the NMI window */
	B_SHUTDOWN = 1u << 10,     /* VMX shutdown activity state (cpu->shutdown_wait) */
	B_GUEST_SIPI_WAIT = 1u << 11, /* VMX wait-for-SIPI activity state: INIT and SMI wait too */
};

static unsigned blockers(const struct cpu *cpu)
{
	unsigned b = 0;
	if (!cpu->gif)
		b |= B_GIF;
	if (cpu->shadow & SHADOW_STI)
		b |= B_STI;
	if (cpu->shadow & SHADOW_MOV_SS)
		b |= B_MOV_SS;
	/* SDM Vol.3 26.7.1: with VMX "virtual NMIs" the blocking the model keeps
	 * in nmi_blocked is virtual-NMI blocking, which holds the NMI window
	 * only: "NMIs are not blocked in VMX non-root operation". */
	if (cpu->nmi_blocked)
		b |= (cpu->hv_holds & HV_VIRTUAL_NMI_BLOCKING) ? B_NMI_WINDOW : B_NMI | B_NMI_WINDOW;
	if (cpu->wait_for_sipi)
		b |= B_SIPI;
	/* SDM Vol.3 26.7.2: in a VMX guest "the wait-for-SIPI state blocks
	 * external interrupts, NMIs, INIT signals, and SMIs", and "the shutdown
	 * state blocks external interrupts and SIPIs"; neither runs an
	 * instruction, so no MTF (25.5.2), interrupt window (26.7.5), TPR
	 * threshold (26.7.7) or debug trap either. The NMI window and the
	 * preemption timer wake a shutdown guest (26.7.4, 26.7.6). */
	if (cpu->wait_for_sipi && cpu->in_guest)
		b |= B_GUEST_SIPI_WAIT;
	if (cpu->shutdown_wait)
		b |= B_SHUTDOWN;
	if (!(cpu->rflags & FLAG_IF))
		b |= B_RFLAGS_IF;
	/* SDM Vol.3 "Restrictions on VMX Operation" (chapter "Introduction to
	 * Virtual Machine Extensions"): "INIT signals are blocked whenever a
	 * logical processor is in VMX root operation". */
	if (cpu->hv_holds & HV_HOLD_INIT)
		b |= B_HV_INIT;
	/* APM2 15.21.1: with V_INTR_MASKING the guest's IF masks only virtual
	 * interrupts; physical ones follow the host's IF. SDM Vol.3 25.2
	 * (external-interrupt exiting): IF does not hold the exit off. */
	bool intr_masked;
	switch (cpu->intr_masking) {
	case INTR_MASK_HOST_IF: intr_masked = !cpu->host_if; break;
	case INTR_MASK_NONE:    intr_masked = false; break;
	default:                intr_masked = !(cpu->rflags & FLAG_IF); break;
	}
	if (intr_masked)
		b |= B_IF;
	/* APM2 15.21.4: a virtual interrupt is taken when the guest's IF = 1 and
	 * its priority is above V_TPR, unless V_IGN_TPR (the quirk
	 * qemu-virq-equal-tpr-taken: at V_TPR too). */
	unsigned vprio = cpu->vintr.priority & 0xf, vtpr = cpu->vintr.tpr & 0xf;
	if (!(cpu->rflags & FLAG_IF) ||
	    (!cpu->vintr.ignore_tpr && vprio <= vtpr &&
	     !(vprio == vtpr && cpu_quirk(cpu, QK_QEMU_VIRQ_EQUAL_TPR_TAKEN))))
		b |= B_VIRQ;
	return b;
}

/* ---- taking an event ---- */

static status_t take_smi(struct cpu *cpu)
{
	status_t st = intercept_plain(cpu, IK_SMI);
	if (st != ST_OK)
		return st;
	/* hvemu models no system-management mode: nothing raises SMI but a test. */
	return ST_UNSUPPORTED;
}

static status_t take_init(struct cpu *cpu)
{
	cpu->lines &= (uint8_t)~LINE_INIT;
	status_t st = intercept_plain(cpu, IK_INIT);
	if (st != ST_OK)
		return st;
	cpu_init_signal(cpu);
	return ST_OK;
}

static status_t take_debug_trap(struct cpu *cpu)
{
	cpu->event = (struct event){ .pending = true, .type = EV_EXCEPTION, .vector = EXC_DB,
				     .dr6 = cpu->pending_dbg };
	cpu->pending_dbg = 0;
	return cpu_deliver_event(cpu);
}

static status_t take_nmi(struct cpu *cpu)
{
	status_t st = intercept_plain(cpu, IK_NMI);
	if (st != ST_OK)
		return st;
	cpu->lines &= (uint8_t)~LINE_NMI;
	cpu->event = (struct event){ .pending = true, .type = EV_NMI, .vector = EXC_NMI };
	st = cpu_deliver_event(cpu);
	/* SDM Vol.3 6.7.1: NMIs are blocked from the start of the handler. */
	if (st == ST_OK)
		cpu->nmi_blocked = true;
	return st;
}

static status_t take_intr(struct cpu *cpu)
{
	/* The VM exit leaves the interrupt pending in the controller (APM2 15.21.2;
	 * SDM Vol.3 27.2 without "acknowledge interrupt on exit"). */
	int vector = -1;
	bool pulse = cpu->lines & LINE_INTR_PULSE, pulse_only = pulse && !(cpu->lines & LINE_INTR);
	status_t st = intercept_intr(cpu, &vector);
	/* A pulse is recognised once: it exited (and is gone when the host looks,
	 * as a level-triggered source's request may be; the exit withdrew it),
	 * or nothing was there. */
	if (pulse) {
		cpu->lines &= (uint8_t)~LINE_INTR_PULSE;
		if (pulse_only && st == ST_VMEXIT)
			cpu->spurious_intr_exits++;
		if (pulse_only && st == ST_OK)
			return ST_OK;
	}
	/* ST_HANDLED: the model took the interrupt itself and delivered nothing
	 * (VMX posted-interrupt processing; event_step). */
	if (st != ST_OK)
		return st;
	/* vector >= 0: the model acknowledged it already and let it through. */
	if (vector < 0 && cpu->intr_ack)
		vector = cpu->intr_ack(cpu->intr_ctx);
	/* No controller behind the line, or the request went away before INTA
	 * (spurious): nothing to take. */
	if (vector < 0)
		return ST_OK;
	cpu->event = (struct event){ .pending = true, .type = EV_EXTINT, .vector = (uint8_t)vector };
	return cpu_deliver_event(cpu);
}

static status_t take_vintr(struct cpu *cpu)
{
	/* APM2 15.21.4: with the VINTR intercept the guest exits when it would take
	 * the virtual interrupt; otherwise it is taken and V_IRQ is cleared. */
	status_t st = intercept_plain(cpu, IK_INTR_WINDOW);
	if (st != ST_OK)
		return st;
	cpu->vintr.pending = false;
	cpu->event = (struct event){ .pending = true, .type = EV_EXTINT, .vector = cpu->vintr.vector };
	return cpu_deliver_event(cpu);
}

/* The model-armed rows: each asks the model, whose exit disarms what it
 * armed (the windows stay armed until then). */
static status_t take_intr_window(struct cpu *cpu)
{
	return intercept_plain(cpu, IK_INTR_WINDOW);
}

static status_t take_nmi_window(struct cpu *cpu)
{
	return intercept_plain(cpu, IK_NMI_WINDOW);
}

static status_t take_tpr_threshold(struct cpu *cpu)
{
	cpu->hv_armed &= (uint8_t)~HV_ARM_TPR_THRESHOLD;
	return intercept_plain(cpu, IK_TPR_BELOW_THRESHOLD);
}

static status_t take_mtf(struct cpu *cpu)
{
	cpu->hv_armed &= (uint8_t)~HV_MTF_DUE;
	return intercept_plain(cpu, IK_MTF);
}

static status_t take_preemption_timer(struct cpu *cpu)
{
	cpu->hv_armed &= (uint8_t)~HV_ARM_PREEMPTION_TIMER;
	return intercept_plain(cpu, IK_PREEMPTION_TIMER);
}

/* Virtual-interrupt delivery: the model acknowledges its virtual interrupt
 * (RVI, SVI, VPPR) and answers ST_HANDLED with the vector, which is delivered
 * through the IDT as an external interrupt (SDM Vol.3 "Virtual-Interrupt
 * Delivery"). Any other answer disarms the row. */
static status_t take_virtual_intr(struct cpu *cpu)
{
	uint8_t vector = 0;
	status_t st = intercept_virtual_intr(cpu, &vector);
	if (st != ST_HANDLED) {
		cpu->hv_armed &= (uint8_t)~HV_ARM_VIRTUAL_INTR;
		return st;
	}
	cpu->event = (struct event){ .pending = true, .type = EV_EXTINT, .vector = vector };
	return cpu_deliver_event(cpu);
}

/* A SIPI for a guest waiting for one: the model's exit, or the start-up. */
static status_t take_sipi(struct cpu *cpu)
{
	cpu->lines &= (uint8_t)~LINE_SIPI;
	status_t st = intercept_vector(cpu, IK_SIPI, cpu->sipi_vector);
	if (st != ST_OK)
		return st;
	cpu_start_up(cpu, cpu->sipi_vector);
	return ST_OK;
}

/* ---- the table ---- */

static bool smi_pending(const struct cpu *c)         { return c->lines & LINE_SMI; }
static bool init_pending(const struct cpu *c)        { return c->lines & LINE_INIT; }
static bool debug_trap_is_pending(const struct cpu *c) { return c->pending_dbg != 0; }
static bool nmi_pending(const struct cpu *c)         { return c->lines & LINE_NMI; }
static bool intr_pending(const struct cpu *c)        { return c->lines & (LINE_INTR | LINE_INTR_PULSE); }
static bool vintr_pending(const struct cpu *c)       { return c->vintr.pending; }
static bool sipi_pending(const struct cpu *c)        { return c->lines & LINE_SIPI; }
static bool intr_window_wanted(const struct cpu *c)  { return c->hv_armed & HV_ARM_INTR_WINDOW; }
static bool nmi_window_wanted(const struct cpu *c)   { return c->hv_armed & HV_ARM_NMI_WINDOW; }
static bool tpr_threshold_due(const struct cpu *c)   { return c->hv_armed & HV_ARM_TPR_THRESHOLD; }
static bool mtf_due(const struct cpu *c)             { return c->hv_armed & HV_MTF_DUE; }
static bool timer_expired(const struct cpu *c)       { return c->hv_armed & HV_ARM_PREEMPTION_TIMER; }
static bool virtual_intr_armed(const struct cpu *c)  { return c->hv_armed & HV_ARM_VIRTUAL_INTR; }

/* The events of an instruction boundary in the order the CPU takes them: SDM
 * Vol.3 6.9 Table 6-2 (priority 3: SMI, INIT; 4: traps of the previous
 * instruction; 5: NMI; 6: maskable interrupts, physical before virtual per
 * APM2 15.21.4), with the VM exits a model arms where the VMX chapters put
 * them (priority in tenths of a Table 6-2 row):
 *   2.5 TPR below threshold: "take priority over SMIs, INIT signals, and
 *       lower priority events", not blocked by IF or the shadows (SDM Vol.3
 *       "VM Exits Induced by the TPR Threshold", "TPR Virtualization")
 *   3.5 MTF: "SMIs, INIT signals, and higher priority events take priority
 *       over MTF VM exits. MTF VM exits take priority over debug-trap
 *       exceptions and lower priority events"; none in wait-for-SIPI (SDM
 *       Vol.3 "Monitor Trap Flag")
 *   4.3 VMX-preemption timer: below debug traps, above the NMI window (SDM
 *       Vol.3 "VMX-Preemption Timer")
 *   4.6 NMI window: below debug traps, above NMIs (SDM Vol.3 "NMI-Window
 *       Exiting")
 *   5.5 interrupt window: below NMIs, above external interrupts, when
 *       RFLAGS.IF = 1 and neither shadow blocks (SDM Vol.3 "Interrupt-Window
 *       Exiting"); virtual-interrupt delivery has "the same priority" and the
 *       same conditions (SDM Vol.3 "Virtual-Interrupt Delivery")
 * A SIPI is recognised only by a processor waiting for one (SDM Vol.3 8.4.1);
 * in a guest it is the model's (VMX wait-for-SIPI, latched by cpu_sipi()).
 * blocked_by
 * is SDM 6.8.3 (MOV SS/POP SS hold off interrupts, NMIs and debug traps; STI
 * holds off maskable interrupts and not debug traps — which is why VM entry
 * wants pending BS when STI blocking and TF meet, SDM 26.3.1.5), 6.7.1 (NMI
 * blocking) and APM2 15.17.1 (GIF holds off INTR, NMI, SMI and INIT, not
 * exceptions). An NMI "may be blocked" for the instruction after STI (SDM
 * Vol.2 STI); hvemu's models block it, as Intel and AMD parts do
 * (kvm-unit-tests' apic "nmi-after-sti" checks it on both). */
static const struct boundary_event {
	const char *name;
	uint8_t priority;          /* the SDM Table 6-2 row x 10 (see above) */
	bool (*pending)(const struct cpu *cpu);
	unsigned blocked_by;       /* enum blocker */
	bool wakes;                /* ends HLT/MWAIT when unblocked */
	status_t (*take)(struct cpu *cpu);
} boundary_events[] = {
	{ "TPR below threshold", 25, tpr_threshold_due, B_SIPI | B_SHUTDOWN,     true,  take_tpr_threshold },
	{ "SMI",          30, smi_pending,           B_GIF | B_GUEST_SIPI_WAIT,     true,  take_smi },
	{ "INIT",         30, init_pending,          B_GIF | B_HV_INIT | B_GUEST_SIPI_WAIT, true, take_init },
	{ "SIPI",         30, sipi_pending,          0,                             true,  take_sipi },
	{ "MTF",          35, mtf_due,               B_SIPI | B_SHUTDOWN,           true,  take_mtf },
	{ "debug trap",   40, debug_trap_is_pending, B_MOV_SS | B_SIPI | B_SHUTDOWN, true, take_debug_trap },
	{ "preemption timer", 43, timer_expired,     B_SIPI,                        true,  take_preemption_timer },
	{ "NMI window",   46, nmi_window_wanted,     B_NMI_WINDOW | B_MOV_SS | B_SIPI, true, take_nmi_window },
	{ "NMI",          50, nmi_pending,           B_GIF | B_NMI | B_STI | B_MOV_SS | B_SIPI, true, take_nmi },
	{ "INTR window",  55, intr_window_wanted,    B_RFLAGS_IF | B_STI | B_MOV_SS | B_SIPI | B_SHUTDOWN, true,
	  take_intr_window },
	{ "virtual-interrupt delivery", 55, virtual_intr_armed,
	  B_RFLAGS_IF | B_STI | B_MOV_SS | B_SIPI | B_SHUTDOWN, true, take_virtual_intr },
	{ "INTR",         60, intr_pending,          B_GIF | B_IF | B_STI | B_MOV_SS | B_SIPI | B_SHUTDOWN, true,
	  take_intr },
	{ "virtual INTR", 60, vintr_pending,         B_GIF | B_VIRQ | B_STI | B_MOV_SS | B_SIPI | B_SHUTDOWN, true,
	  take_vintr },
};
#define BOUNDARY_EVENTS (sizeof(boundary_events) / sizeof(boundary_events[0]))

/* The first pending event the blockers let through, or NULL. */
static const struct boundary_event *next_event(const struct cpu *cpu, unsigned ignore)
{
	/* Every row's pending() reads one of these: most boundaries (a world
	 * switch, a stop, a deadline) have none, and need no walk.
	 * HV_ENTRY_BOUNDARY is no row's: it only lets event_step take more. */
	if (!(cpu->lines | (cpu->hv_armed & (uint8_t)~HV_ENTRY_BOUNDARY) | cpu->pending_dbg |
	      (uint8_t)cpu->vintr.pending))
		return NULL;
	unsigned blocked = blockers(cpu) & ~ignore;
	for (unsigned i = 0; i < BOUNDARY_EVENTS; i++) {
		const struct boundary_event *e = &boundary_events[i];
		if (e->pending(cpu) && !(e->blocked_by & blocked))
			return e;
	}
	return NULL;
}

bool event_would_wake(const struct cpu *cpu)
{
	/* MWAIT with ECX[0] = 1: a masked interrupt ends the wait too (SDM Vol.2
	 * MWAIT "interrupt break event"). */
	const struct boundary_event *e = next_event(cpu, cpu->wait_break_masked ? B_IF : 0);
	return e && e->wakes;
}

void cpu_set_line(struct cpu *cpu, unsigned line, bool level)
{
	if (level)
		cpu->lines |= (uint8_t)line;
	else
		cpu->lines &= (uint8_t)~line;
	cpu_attend(cpu, ATT_EVENT);
}

void cpu_set_deadline(struct cpu *cpu, unsigned id, uint64_t when)
{
	cpu->deadlines[id].at = when;
	uint64_t d = cpu->icount_limit ? cpu->icount_limit : UINT64_MAX;
	for (unsigned i = 0; i < DEADLINE_SOURCES; i++)
		if (cpu->deadlines[i].at < d)
			d = cpu->deadlines[i].at;
	cpu->deadline = d;
}

/* DEADLINE_HV's own firing: the preemption-timer row is due. */
static void hv_timer_fired(void *ctx, struct cpu *cpu)
{
	(void)ctx;
	cpu->hv_armed |= HV_ARM_PREEMPTION_TIMER;
	cpu_attend(cpu, ATT_EVENT);
}

void cpu_hv_set_timer(struct cpu *cpu, uint64_t when)
{
	cpu->deadlines[DEADLINE_HV] = (struct deadline){ .at = when, .fire = hv_timer_fired };
	cpu_set_deadline(cpu, DEADLINE_HV, when);
}

/* DEADLINE_SPURIOUS_INTR's firing: the request, if the guest still runs. */
static void spurious_intr_fired(void *ctx, struct cpu *cpu)
{
	(void)ctx;
	if (cpu->in_guest)
		cpu_set_line(cpu, LINE_INTR_PULSE, true);
}

void cpu_spurious_intr_after(struct cpu *cpu, uint64_t after)
{
	uint64_t when = cpu->icount + after;
	cpu->deadlines[DEADLINE_SPURIOUS_INTR] = (struct deadline){ .at = when, .fire = spurious_intr_fired };
	cpu_set_deadline(cpu, DEADLINE_SPURIOUS_INTR, when);
	/* Due at this very boundary (after = 0 right after VM entry): look. */
	if (after == 0)
		cpu_attend(cpu, ATT_EVENT);
}

void cpu_spurious_intr_withdraw(struct cpu *cpu)
{
	cpu->lines &= (uint8_t)~LINE_INTR_PULSE;
	if (cpu->deadlines[DEADLINE_SPURIOUS_INTR].at != UINT64_MAX)
		cpu_set_deadline(cpu, DEADLINE_SPURIOUS_INTR, UINT64_MAX);
}

/* Fire every deadline source that is due, then recompute the next deadline. */
static void run_deadlines(struct cpu *cpu)
{
	for (unsigned i = 0; i < DEADLINE_SOURCES; i++) {
		struct deadline *d = &cpu->deadlines[i];
		if (d->at <= cpu->icount && d->fire) {
			d->at = UINT64_MAX;
			d->fire(d->ctx, cpu);
		}
	}
	cpu_set_deadline(cpu, 0, cpu->deadlines[0].at);
}

/* Does the next instruction run alone? Single step (SDM Vol.3 17.3.1.4), the
 * instruction after STI/MOV SS (nothing may be recognised between it and the
 * one that set the shadow, SDM 6.8.3), DR7 breakpoints, instruction tracing,
 * and a hypervisor's monitor trap flag. */
static bool needs_one_step(const struct cpu *cpu)
{
	return (cpu->rflags & FLAG_TF) || cpu->shadow || debug_active(cpu) ||
	       debug_branch_watch(cpu) || ((cpu->trace & TRACE_INSN) && cpu->trace_insn) ||
	       cpu->one_step || (cpu->hv_armed & HV_ARM_MTF);
}

/* Events taken one after another at the boundary after a VM entry. */
#define ENTRY_ROUNDS 4

status_t event_step(struct cpu *cpu, bool *one_step)
{
	if (cpu->stop_requested) {
		cpu_stop_answered(cpu);
		return ST_STOP;
	}
	if (cpu->icount_limit && cpu->icount >= cpu->icount_limit)
		return ST_STOP;
	if (cpu->icount >= cpu->deadline)
		run_deadlines(cpu);
	__atomic_fetch_and(&cpu->attention, ~(uint32_t)(ATT_EVENT | ATT_CODE), __ATOMIC_RELAXED);

	const struct boundary_event *e = next_event(cpu, 0);
	for (unsigned taken = 0; e; taken++) {
		bool was_halted = cpu->halted;
		cpu->halted = false;
		status_t st = e->take(cpu);
		/* The model took the event and nothing was delivered (VMX
		 * posted-interrupt processing): a processor that was in HLT
		 * returns to it (SDM Vol.3 29.6). */
		if (st == ST_HANDLED) {
			st = ST_OK;
			if (was_halted) {
				cpu->halted = true;
				return ST_HALT;
			}
		}
		/* Delivered through the IDT (an NMI), the event ends the shutdown
		 * state; a VM exit saved it first (27.3.4). */
		if (st == ST_OK)
			cpu->shutdown_wait = false;
		/* A delivered event is a step of virtual time (the handler's first
		 * instruction is next); look again at the next boundary. */
		cpu->icount++;
		cpu_attend(cpu, ATT_EVENT);
		if (st != ST_OK && st != ST_VMEXIT)
			return st;
		/* An AP's INIT left it waiting for a SIPI: nothing runs. */
		if (cpu->wait_for_sipi)
			return ST_HALT;
		/* Right after VM entry the events due then are all taken before
		 * the guest's first instruction: a zero VMX-preemption timer
		 * exits "after delivery of the debug exception" that VM entry
		 * left pending (SDM Vol.3 26.7.4). Elsewhere one event per
		 * boundary; ENTRY_ROUNDS bounds a row that would not end. */
		if (st != ST_OK || !(cpu->hv_armed & HV_ENTRY_BOUNDARY) || taken + 1 >= ENTRY_ROUNDS)
			break;
		if (cpu->icount >= cpu->deadline)
			run_deadlines(cpu);
		e = next_event(cpu, 0);
	}
	cpu->hv_armed &= (uint8_t)~HV_ENTRY_BOUNDARY;
	*one_step = needs_one_step(cpu);
	if (*one_step)
		cpu_attend(cpu, ATT_STEP);
	else
		__atomic_fetch_and(&cpu->attention, ~(uint32_t)ATT_STEP, __ATOMIC_RELAXED);
	return ST_OK;
}

status_t event_wait(struct cpu *cpu)
{
	for (;;) {
		if (cpu->stop_requested) {
			cpu_stop_answered(cpu);
			return ST_STOP;
		}
		if (event_would_wake(cpu)) {
			cpu->halted = false;
			cpu->wait_break_masked = false;
			cpu_attend(cpu, ATT_EVENT);
			return ST_OK;
		}
		/* Nothing to take now: let virtual time run to the next timer (it may
		 * raise a line), or give up when there is none: the instruction limit
		 * wakes nothing. */
		uint64_t next = UINT64_MAX;
		for (unsigned i = 0; i < DEADLINE_SOURCES; i++)
			if (cpu->deadlines[i].at < next)
				next = cpu->deadlines[i].at;
		/* SMP: the machine's schedule runs the other CPUs and moves time. */
		if (next == UINT64_MAX || (cpu->halt_yields && next > cpu->icount))
			return ST_HALT;
		if (cpu->icount_limit && next >= cpu->icount_limit) {
			cpu->icount = cpu->icount_limit;
			return ST_STOP;
		}
		if (next > cpu->icount)
			cpu->icount = next;
		run_deadlines(cpu);
	}
}
