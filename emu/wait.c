/* Waiting: HLT, PAUSE, MONITOR and MWAIT (SDM Vol.2 pages of the same names;
 * APM3). A wait ends the block with ST_HALT; the run loop then sleeps until an
 * event can wake the CPU (emu/event_step.c). */
#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "emu/event_step.h"
#include "emu/hv.h"
#include "emu/operand.h"
#include "isa_handlers.h"

/* SDM Vol.2 HLT: "#GP(0) If the current privilege level is not 0" (virtual-8086
 * mode runs at CPL 3). */
status_t op_hlt(struct cpu *cpu, const struct insn *in)
{
	status_t st;

	if (cpu->mode != MODE_REAL && cpu->cpl != 0)
		return cpu_raise_err(cpu, EXC_GP, 0);
	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	cpu->wait_break_masked = false;
	return ST_HALT;
}

/* F3 90: PAUSE, a spin-loop hint (SDM Vol.2 PAUSE: it "improves the
 * performance of spin-wait loops"), and an intercept (APM2 15.14.4 pause
 * filter, SDM Vol.3 25.1.3 PAUSE exiting). With REX.B the opcode names R8
 * and is XCHG r8, rAX (SDM Vol.2 XCHG). With several CPUs taking turns
 * (machine/smp.c) a spinning CPU ends its turn after the PAUSE, so the CPU
 * it waits for (a lock's holder) runs: without it a loop that releases a
 * lock and takes it back within one turn (SeaBIOS's AP count) starves the
 * others. The turns stay deterministic. */
status_t op_pause(struct cpu *cpu, const struct insn *in)
{
	if (in->rex & 1) {
		uint64_t a = reg_read(cpu, R_AX, in->osize, false), r = reg_read(cpu, R_R8, in->osize, true);
		reg_write(cpu, R_AX, in->osize, false, r);
		reg_write(cpu, R_R8, in->osize, true, a);
		return ST_OK;
	}
	status_t st = intercept_insn(cpu, in);
	if (st == ST_OK && cpu->halt_yields) {
		cpu->turn_yielded = true;
		cpu->icount_limit = cpu_now(cpu) + 1;
		cpu_set_deadline(cpu, DEADLINE_MACHINE, cpu->deadlines[DEADLINE_MACHINE].at);
		cpu_attend(cpu, ATT_EVENT);   /* the block ends here, at the limit */
	}
	return st;
}

/* MONITOR and MWAIT exist where CPUID.1:ECX.MONITOR[3] says so, at CPL 0 ("#UD
 * If CPUID.01H:ECX.MONITOR[bit 3] = 0 ... If the current privilege level is not
 * 0", SDM Vol.2 MONITOR/MWAIT). */
static status_t monitor_checks(struct cpu *cpu)
{
	/* The CPUID.MONITOR #UD is the rows' feature (emu/isa/system.isa). */
	if (cpu->mode != MODE_REAL && cpu->cpl != 0)
		return cpu_raise(cpu, EXC_UD);
	return ST_OK;
}

/* MONITOR: arm address monitoring of DS:rAX (segment override allowed). "#GP(0)
 * If ECX != 0"; the address is checked and translated as a read (limit #GP/#SS,
 * #PF) but not accessed. */
status_t op_monitor(struct cpu *cpu, const struct insn *in)
{
	status_t st;
	uint64_t byte;

	if ((st = monitor_checks(cpu)) != ST_OK)
		return st;
	if ((uint32_t)cpu->regs[R_CX] != 0)
		return cpu_raise_err(cpu, EXC_GP, 0);
	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	if ((st = mem_read(cpu, in->seg, cpu->regs[R_AX] & size_mask(in->asize), 1, &byte)) != ST_OK)
		return st;
	cpu->monitor_armed = true;
	return ST_OK;
}

/* MWAIT: wait for a store to the armed range or an event. "#GP(0) If ECX[31:1]
 * != 0. If ECX[0] = 1 and CPUID.05H:ECX[bit 1] = 0." Without an armed monitor
 * it is a NOP; with ECX[0] = 1 an interrupt ends the wait even while masked
 * (SDM Vol.2 MWAIT, "interrupt break event"). */
status_t op_mwait(struct cpu *cpu, const struct insn *in)
{
	status_t st;
	uint32_t ecx = (uint32_t)cpu->regs[R_CX];

	if ((st = monitor_checks(cpu)) != ST_OK)
		return st;
	if ((ecx >> 1) || ((ecx & 1) && !cpu_model_has(cpu->model, 5, 2, 1)))
		return cpu_raise_err(cpu, EXC_GP, 0);
	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	if (!cpu->monitor_armed)
		return ST_OK;
	cpu->monitor_armed = false;
	cpu->wait_break_masked = ecx & 1;
	return ST_HALT;
}
