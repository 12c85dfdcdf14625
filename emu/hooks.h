/* The seam between the CPU core and a hypervisor model (svm/, vmx/).
 *
 * The core reports architectural events here before it acts on them; a hook
 * returns ST_OK to let the core go on, or ST_VMEXIT after it has switched the CPU
 * to the host (L1) state, in which case the core abandons the event. With no
 * hooks installed (cpu->hooks == NULL) every call is a predictable branch.
 * emu/ never includes svm/ or vmx/; they include this.
 */
#ifndef HVEMU_EMU_HOOKS_H
#define HVEMU_EMU_HOOKS_H

#include "emu/cpu.h"
#include "emu/insn.h"

struct cpu_hooks {
	/* An instruction that a hypervisor may intercept (CPUID, HLT, INVLPG, RDTSC,
	 * MOV CRn, RDMSR, IN/OUT, VM instructions...) is about to execute, after its
	 * own fault checks that take priority over the intercept. */
	status_t (*insn)(void *ctx, struct cpu *cpu, const struct insn *in);
	/* An exception or interrupt is about to be delivered (ev is cpu->event). */
	status_t (*event)(void *ctx, struct cpu *cpu, const struct event *ev);
	/* Port I/O, after the IOPL / I/O-bitmap checks. */
	status_t (*io)(void *ctx, struct cpu *cpu, uint16_t port, unsigned size, bool is_in,
		       bool is_string, bool has_rep);
	/* RDMSR/WRMSR of index. */
	status_t (*msr)(void *ctx, struct cpu *cpu, uint32_t index, bool is_write);
	/* MOV to/from CRn / DRn, CLTS, LMSW: cr 0-15, dr 16-23; value for writes. */
	status_t (*cr)(void *ctx, struct cpu *cpu, unsigned reg, bool is_write, uint64_t value);
};

static inline status_t hook_insn(struct cpu *cpu, const struct insn *in)
{
	if (cpu->hooks && cpu->hooks->insn)
		return cpu->hooks->insn(cpu->hooks_ctx, cpu, in);
	return ST_OK;
}

static inline status_t hook_event(struct cpu *cpu)
{
	if (cpu->hooks && cpu->hooks->event)
		return cpu->hooks->event(cpu->hooks_ctx, cpu, &cpu->event);
	return ST_OK;
}

static inline status_t hook_io(struct cpu *cpu, uint16_t port, unsigned size, bool is_in,
			       bool is_string, bool has_rep)
{
	if (cpu->hooks && cpu->hooks->io)
		return cpu->hooks->io(cpu->hooks_ctx, cpu, port, size, is_in, is_string, has_rep);
	return ST_OK;
}

static inline status_t hook_msr(struct cpu *cpu, uint32_t index, bool is_write)
{
	if (cpu->hooks && cpu->hooks->msr)
		return cpu->hooks->msr(cpu->hooks_ctx, cpu, index, is_write);
	return ST_OK;
}

static inline status_t hook_cr(struct cpu *cpu, unsigned reg, bool is_write, uint64_t value)
{
	if (cpu->hooks && cpu->hooks->cr)
		return cpu->hooks->cr(cpu->hooks_ctx, cpu, reg, is_write, value);
	return ST_OK;
}

#endif
