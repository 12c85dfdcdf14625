/* REP string instructions in virtual time (emu/string.c, INS/OUTS in emu/io.c).
 *
 * Rule: every iteration is one unit of virtual time, so a REP instruction with
 * a count of N >= 1 advances cpu->icount by N, one with a count of 0 (or with no
 * REP prefix) by 1. One execution of the handler runs the iterations up to the
 * next deadline (cpu->deadline: timers, the instruction limit, the SMP turn),
 * at most REP_CHUNK, and stops early when an iteration asks for the boundary
 * (cpu->attention: a device raised a line); RIP then stays on the instruction
 * with rCX/rSI/rDI updated, so interrupts are recognised between iterations and
 * the instruction resumes (SDM Vol.2 "REP/REPE/REPZ/REPNE/REPNZ"). cpu_now()
 * during the execution counts the iterations done, so a device an iteration
 * touches sees the time of that iteration.
 *
 * Accounting: rep_tick() adds the completed iterations to cpu->icount as they
 * complete; run_block() counts the instruction as one when the handler returns
 * ST_OK or ST_STOP, so rep_retire() takes that one back from the iterations.
 * A faulting iteration is not counted (the run loop counts the exception).
 */
#ifndef HVEMU_EMU_REP_TIME_H
#define HVEMU_EMU_REP_TIME_H

#include "emu/insn.h"

/* Iterations of one execution at most, so the host looks at the boundary now
 * and then even without a deadline. */
#define REP_CHUNK 4096u

struct rep_clock {
	uint64_t done;             /* iterations completed in this execution */
	uint64_t chunk;            /* iterations this execution may run at most */
	uint32_t attention;        /* cpu->attention when it started */
};

/* Start one execution of a string instruction. */
static inline void rep_clock_start(const struct cpu *cpu, struct rep_clock *rc)
{
	rc->done = 0;
	/* With TF set, a repeated string instruction traps after every iteration
	 * (SDM Vol.3 17.3.1.4), and with a hypervisor's monitor trap flag an MTF
	 * VM exit is pending "after that iteration" (SDM Vol.3 25.5.2): run one
	 * at a time. */
	rc->chunk = ((cpu->rflags & FLAG_TF) || (cpu->hv_armed & HV_ARM_MTF)) ? 1 : REP_CHUNK;
	rc->attention = cpu->attention;
}

/* How many of the count remaining iterations may run now without a look at the
 * boundary: up to the next deadline and the chunk, none once an iteration has
 * asked for attention; at least one per execution, so every execution makes
 * progress even with a deadline already due. */
static inline uint64_t rep_room(const struct cpu *cpu, const struct rep_clock *rc, uint64_t count)
{
	uint64_t now = cpu_now(cpu), room = rc->chunk - rc->done;
	if (cpu->deadline <= now || (rc->done && cpu->attention != rc->attention))
		room = rc->done ? 0 : 1;
	else if (cpu->deadline - now < room)
		room = cpu->deadline - now;
	return count < room ? count : room;
}

/* n more iterations completed. */
static inline void rep_tick(struct cpu *cpu, struct rep_clock *rc, uint64_t n)
{
	rc->done += n;
	cpu->icount += n;
}

/* The execution ends with the instruction counted by run_block (ST_OK, ST_STOP):
 * the first iteration is that count. */
static inline void rep_retire(struct cpu *cpu, const struct rep_clock *rc)
{
	if (rc->done)
		cpu->icount--;
}

#endif
