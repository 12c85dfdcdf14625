/* Hardware task switches (SDM Vol.3 7.3, 7.4; SDM Vol.2 JMP, CALL, IRET, INT n
 * "SWITCH-TASKS"). Sources: far JMP/CALL to a TSS or task gate, IRET with NT=1
 * (back link), and an interrupt or exception through a task gate in the IDT.
 *
 *   task_switch
 *     checks that fault in the old task: new TSS limit, old TSS limit, every
 *     byte of the new TSS readable
 *     save: old busy bit (JMP/IRET clear it), old state into the old TSS,
 *           link field + NT (CALL/INT), new busy bit, TR
 *     --- commit point (SDM Vol.3 7.3 step 12) ---
 *     load: CR3 (+PDPTEs, TLB), LDTR, EFLAGS, EIP, GPRs, selectors, CR0.TS,
 *           DR7 local enables cleared
 *     qualify: LDT, CS, SS, ES, DS, FS, GS descriptors; the error code push of
 *              an exception; EIP within the CS limit -- faults here are
 *              delivered in the new task (step 13)
 *     T bit: #DB (DR6.BT) before the new task's first instruction
 */
#ifndef HVEMU_EMU_TASK_H
#define HVEMU_EMU_TASK_H

#include "emu/cpu.h"

/* What started the switch: decides busy bits, NT and the link field
 * (SDM Vol.3 7.3 steps 6-10, 7.4 Table 7-2). */
enum task_source { TASK_JMP, TASK_CALL, TASK_IRET, TASK_INT };

/* The smallest valid TSS limits: SDM Vol.3 6.15 Table 6-6, #TS when "the TSS
 * segment limit is less than 67H for 32-bit TSS or less than 2CH for 16-bit
 * TSS" (7.2.2). QEMU and Bochs accept a 16-bit limit of 2BH (the last byte of
 * the 44-byte TSS); hvemu follows the table. */
#define TSS32_MIN_LIMIT_TS 0x67u
#define TSS16_MIN_LIMIT_TS 0x2cu

/* The TSS descriptor a task gate (raw gate descriptor) names, for JMP, CALL
 * and INT n/exceptions (SDM Vol.2 JMP/CALL/INT n TASK-GATE): the selector must
 * be in the GDT and within its limit, name an available TSS (#GP(TSS
 * selector)), and be present (#NP(TSS selector)). */
status_t task_gate_target(struct cpu *cpu, uint64_t gate, uint16_t *tss_sel,
			  uint64_t *tss_raw) CHECKED;

/* Switch to the task whose TSS descriptor (already fetched, type and presence
 * checked by the caller as its pseudo-code says) is tss_raw. The old task's
 * EIP is cpu->rip (the next instruction for JMP/CALL/IRET/INT n, the faulting
 * instruction for faults). For TASK_INT, ev is the event being delivered:
 * its error code is pushed on the new task's stack. Returns ST_FAULT for
 * faults before the commit point (old task context); after it, faults are
 * delivered here in the new task and ST_OK (or what that delivery returns)
 * comes back. */
status_t task_switch(struct cpu *cpu, uint16_t tss_sel, uint64_t tss_raw,
		     enum task_source src, const struct event *ev) CHECKED;

/* IRET with NT=1 outside IA-32e mode: return to the task in the current TSS's
 * link field (SDM Vol.2 IRET TASK-RETURN). */
status_t task_return(struct cpu *cpu) CHECKED;

#endif
