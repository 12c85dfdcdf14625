/* Debug registers: breakpoint matching and the #DB conditions they raise
 * (SDM Vol.3 17.2 "Debug Registers", 17.3 "Debug Exceptions"; Table 6-2 for
 * where #DB sits among the other events of an instruction boundary).
 *
 *   before an instruction  debug_check_insn: RF suppresses one instruction
 *                          breakpoint; else a match is a #DB fault (B0-B3)
 *   every data access      debug_check_data (memory slow path; pages holding an
 *                          enabled data breakpoint are never cached in the TLB)
 *   after an instruction   debug_trap_pending: data-breakpoint hits and the
 *                          single-step BS condition merged into one #DB trap
 *
 * Everything here runs only while DR7 enables a breakpoint or RF is set
 * (debug_active()), a single test per block in the execution loop. GD (general detect) is in
 * emu/control_regs.c, the task-switch T bit (BT) in emu/task.c.
 */
#ifndef HVEMU_EMU_DEBUG_H
#define HVEMU_EMU_DEBUG_H

#include "emu/cpu.h"

/* DR7 (SDM Vol.3 17.2.4, Figure 17-2): Ln = bit 2n, Gn = bit 2n+1; R/Wn at
 * bits 17:16 + 4n, LENn at bits 19:18 + 4n. */
#define DR7_ENABLES 0xffull
#define DR7_GD (1ull << 13)        /* general detect (17.2.4) */
#define DR6_B_MASK 0xfull          /* B0-B3 (17.2.3) */
static inline unsigned dr7_enabled(uint64_t dr7, unsigned n) { return (dr7 >> (2 * n)) & 3; }
static inline unsigned dr7_rw(uint64_t dr7, unsigned n) { return (dr7 >> (16 + 4 * n)) & 3; }
static inline unsigned dr7_len(uint64_t dr7, unsigned n) { return (dr7 >> (18 + 4 * n)) & 3; }

/* R/W encodings (SDM Vol.3 17.2.4). */
enum { DR_RW_EXEC = 0, DR_RW_WRITE = 1, DR_RW_IO = 2, DR_RW_RDWR = 3 };

/* Whether the next instruction boundary has debug work: a breakpoint is
 * enabled, or EFLAGS.RF is set and must be cleared once an instruction
 * completes (SDM Vol.3 17.3.1.1). The loop's one test per block. */
static inline bool debug_active(const struct cpu *cpu)
{
	return (cpu->dr[7] & DR7_ENABLES) | (cpu->rflags & FLAG_RF);
}

/* INT1 (ICEBP) raises its #DB: data-breakpoint hits still held by a MOV SS
 * shadow go with it (its event's dr6, B0-B3), one #DB for both, as hardware
 * does (kvm-unit-tests' debug "MOV SS + watchpoint + ICEBP"); an INT n or
 * INT3 there leaves them for their own #DB at the next boundary. Returns the
 * hits, now taken. */
uint16_t debug_take_held_hits(struct cpu *cpu);

/* DebugCtl (MSR 1D9H): LBR (bit 0) records the last taken branch, BTF (bit 1)
 * makes TF single-step on branches only (SDM Vol.3 17.4.1-17.4.3, APM2
 * 13.1.1.6). AMD defines PB0-PB3 in bits 5:2 (performance-monitor pin
 * control: stored, no pins here); every other bit is reserved on hvemu's
 * models (#GP), including Intel's BTS/trace bits, which hvemu does not model. */
#define DEBUGCTL_LBR 1ull
#define DEBUGCTL_BTF 2ull
uint64_t debugctl_writable(const struct cpu *cpu);

/* Whether instructions must run one at a time to see their branches (LBR). */
static inline bool debug_branch_watch(const struct cpu *cpu)
{
	return cpu->debugctl & DEBUGCTL_LBR;
}

/* A taken branch from the instruction at from to to, with DebugCtl.LBR set:
 * LastBranchFromIP/ToIP (APM2 13.1.1.7; the P6 family's records, SDM Vol.3
 * 17.4.1). */
void debug_record_branch(struct cpu *cpu, uint64_t from, uint64_t to);

/* An interrupt or exception was delivered from from to the handler at to
 * (called while DebugCtl is not 0). With LBR the last branch moves to
 * LastExceptionFromIP/ToIP and the transfer becomes the last branch. A #DB
 * instead clears LBR and BTF, so the records keep the branch that led to it
 * (SDM Vol.3 17.4.3: "the processor clears the BTF flag when it generates a
 * debug exception"; APM2 13.1.1.6 likewise for LBR). */
void debug_event_delivered(struct cpu *cpu, bool debug_exception, uint64_t from, uint64_t to);

/* B0-B3 of the enabled instruction breakpoints at linear address lin. */
unsigned debug_match_insn(const struct cpu *cpu, uint64_t lin);

/* B0-B3 of the enabled data breakpoints an access of size bytes at lin hits
 * (write: a write; otherwise a read, which only R/W=11 watches). */
unsigned debug_match_data(const struct cpu *cpu, uint64_t lin, unsigned size, bool write);

/* B0-B3 of the enabled I/O breakpoints (R/W = 10, only with CR4.DE = 1) an
 * access of size bytes to port hits (SDM Vol.3 17.2.4, 17.2.5). */
unsigned debug_match_io(const struct cpu *cpu, uint16_t port, unsigned size);

/* An IN/OUT/INS/OUTS reached the port: record the I/O-breakpoint hits for the
 * trap after the instruction. Called from the port-I/O path when
 * debug_active(). */
void debug_check_io(struct cpu *cpu, uint16_t port, unsigned size);

/* Whether the 4 KiB linear page of lin holds an enabled data breakpoint: such
 * pages stay out of the TLB so every access reaches debug_check_data(). */
bool debug_page_watched(const struct cpu *cpu, uint64_t lin);

/* Before the instruction at CS:rIP (cpu->rip): drop TLB entries of watched
 * pages (DR0-DR7 may have changed), forget the hits of an earlier instruction,
 * and raise the instruction-breakpoint #DB fault unless EFLAGS.RF is set, in
 * which case RF is cleared: it suppresses exactly one instruction (SDM Vol.3
 * 17.3.1.1). Returns ST_FAULT with cpu->event = #DB, else ST_OK. */
status_t debug_check_insn(struct cpu *cpu) CHECKED;

/* A data access reached memory: record the hits for the trap after the
 * instruction. */
void debug_check_data(struct cpu *cpu, uint64_t lin, unsigned size, bool write);

/* After an instruction completed: the DR6 bits of its #DB trap (data
 * breakpoints hit, B0-B3; single_step, the BS condition already qualified by
 * the caller), 0 if none. Hits of an instruction in a MOV SS/POP SS shadow
 * wait for the next instruction boundary (SDM Vol.3 6.8.3). */
uint16_t debug_trap_pending(struct cpu *cpu, bool single_step);

/* DR6 bits old with a #DB's bits added: new B0-B3 replace the old ones, BD,
 * BS and BT accumulate. */
uint16_t debug_dr6_merge(uint16_t old, uint16_t bits);

/* A #DB's effects as it is delivered (emu/exception.c), as CR2 is written for
 * #PF: ev->dr6 into DR6, and DR7.GD cleared for the general-detect #DB. A VM
 * exit instead of the delivery leaves both alone (SDM Vol.3 27.1
 * "Architectural State Before a VM Exit": a #DB that causes a VM exit does
 * not update DR6 and DR7; the exit qualification carries the bits, Table
 * 28-1); SVM writes them before its intercept (APM2 15.12.2: "both #DB faults
 * and traps are permitted to write DR6 and DR7 before the intercept"). */
void debug_deliver_dr6(struct cpu *cpu, const struct event *ev);

/* debug_trap_pending(), and the #DB waits for the next instruction boundary
 * (cpu->pending_dbg, emu/event_step.c). */
static inline void debug_arm_trap(struct cpu *cpu, bool single_step)
{
	uint16_t dr6 = debug_trap_pending(cpu, single_step);
	if (dr6) {
		cpu->pending_dbg = debug_dr6_merge(cpu->pending_dbg, dr6);
		cpu_attend(cpu, ATT_EVENT);
	}
}

#endif
