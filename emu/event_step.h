/* Events at instruction boundaries: what the run loop looks at when
 * cpu->attention is set, once per block.
 *
 * Inputs are the interrupt lines (INTR, NMI, SMI, INIT, a guest's SIPI) the
 * machine drives, the debug trap an instruction left pending, the
 * hypervisor's global interrupt flag and virtual interrupt, and what a
 * hypervisor model armed (cpu_hv_arm: MTF, its timer, the interrupt and NMI
 * windows, TPR threshold, virtual-interrupt delivery) or holds off (INIT in
 * VMX root operation). One table (event_step.c) gives their priority (SDM
 * Vol.3 6.9 Table 6-2) and what blocks each (the STI and MOV SS shadows, SDM
 * 6.8.3; NMI blocking, 6.7.1; EFLAGS.IF; GIF, APM2 15.17; virtual-interrupt
 * masking, APM2 15.21); the first pending, unblocked row is taken: delivered
 * through the IDT, or asked of the hypervisor model as a VM exit.
 */
#ifndef HVEMU_EMU_EVENT_STEP_H
#define HVEMU_EMU_EVENT_STEP_H

#include "emu/cpu.h"

/* Raise or lower an interrupt line (the machine's interrupt controllers).
 * INTR is a level; NMI, SMI and INIT are edges: raising one latches it until
 * the CPU takes it. */
void cpu_set_line(struct cpu *cpu, unsigned line, bool level);

/* Something the boundary step depends on changed (IF, a shadow, NMI blocking,
 * GIF, the virtual interrupt, a window request): look again. */
static inline void cpu_recheck_events(struct cpu *cpu)
{
	cpu_attend(cpu, ATT_EVENT);
}

/* Handle an instruction boundary with attention set: deadlines, stop requests,
 * then the events table. Returns ST_OK to carry on (an event may have been
 * delivered, or a VM exit taken), or what ends the run (ST_STOP, ST_SHUTDOWN,
 * ST_UNSUPPORTED). *one_step is set when the next instruction must run alone
 * (single step, a shadow, DR7 breakpoints, tracing). ST_HALT: an INIT left
 * the CPU waiting for a SIPI. */
status_t event_step(struct cpu *cpu, bool *one_step) CHECKED;

/* The CPU halted (HLT, MWAIT): wait for an event that ends the halt, letting
 * virtual time run to the next deadline. ST_OK when the CPU runs again, ST_HALT
 * when nothing can ever wake it (with cpu->halt_yields: nothing wakes it now,
 * time stays), or what ends the run. */
status_t event_wait(struct cpu *cpu) CHECKED;

/* Whether a pending, unblocked event would end a halt now (SDM Vol.2 HLT:
 * "an enabled interrupt (including NMI and SMI), a debug exception, the BINIT#
 * signal, the INIT# signal, or the RESET# signal"). For unit tests too. */
bool event_would_wake(const struct cpu *cpu);

/* The deadline sources (cpu->deadline is the earliest, with the instruction
 * limit): set source id's next deadline (UINT64_MAX: none). */
void cpu_set_deadline(struct cpu *cpu, unsigned id, uint64_t when);

/* A hypervisor model arms (or disarms) boundary events, HV_ARM_* (emu/cpu.h):
 * each is a row of the table with its priority; the model's answer to the
 * exit record of the row's kind decides. */
static inline void cpu_hv_arm(struct cpu *cpu, unsigned bits)
{
	cpu->hv_armed |= (uint8_t)bits;
	cpu_attend(cpu, ATT_EVENT | ATT_STEP);
}

static inline void cpu_hv_disarm(struct cpu *cpu, unsigned bits)
{
	cpu->hv_armed &= (uint8_t)~bits;
	cpu_attend(cpu, ATT_EVENT | ATT_STEP);
}

/* The model's timer (VMX-preemption timer) as DEADLINE_HV: at virtual time
 * when (UINT64_MAX: stopped) HV_ARM_PREEMPTION_TIMER becomes due. */
void cpu_hv_set_timer(struct cpu *cpu, uint64_t when);

/* --perturb-exits' exit timing (issue 19): an interrupt request that comes
 * `after` guest instructions from now and goes before any acknowledge. A
 * model that exits on INTR without acknowledging it (the SVM INTR intercept,
 * APM2 15.13.1; VMX external-interrupt exiting without "acknowledge
 * interrupt on exit", SDM Vol.3 25.2) takes a VM exit that nothing is behind
 * when the host looks, as a level-triggered source may deassert its request
 * before the host enables interrupts: legal, and what an L1 must survive.
 * Recognised once, like any INTR (the blockers hold it as they hold INTR);
 * the request and its deadline end with the guest (cpu_leave_guest calls
 * cpu_spurious_intr_withdraw). cpu->spurious_intr_exits counts its exits. */
void cpu_spurious_intr_after(struct cpu *cpu, uint64_t after);
void cpu_spurious_intr_withdraw(struct cpu *cpu);

#endif
