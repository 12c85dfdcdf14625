/* Execution tracing (--trace insn,exc,io,pf): one line per retired instruction,
 * per exception/interrupt event and per port access, written to a FILE (stderr
 * in the CLI), with Capstone disassembly of the guest bytes. After a triple
 * fault, trace_print_fault_chain() reports the faults that led to it. */
#ifndef HVEMU_EMU_TRACE_H
#define HVEMU_EMU_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "emu/symbols.h"

#include "emu/cpu.h"

struct trace {
	FILE *out;
	size_t cs[3];              /* Capstone handles (csh) for 16/32/64-bit code */
	bool have_cs[3];           /* Capstone opened that mode */
	const char *note;          /* the last reason the core gave for ST_UNSUPPORTED */
	const struct symbols *syms;   /* --symbols: a site names its function, or NULL */
};

/* Parse a comma-separated class list ("insn,exc,io,pf,vmexit" or "all") into
 * TRACE_* bits (vmexit is printed by whoever observes VM exits, not here).
 * Returns false on an unknown word. */
bool trace_parse(const char *list, unsigned *classes);

/* Open Capstone for the three code sizes. If Capstone fails, tracing still works
 * with bytes only. */
void trace_init(struct trace *t, FILE *out);
void trace_destroy(struct trace *t);

/* Install the callbacks: cpu->trace_insn, cpu->trace_event, cpu->trace_ctx and
 * cpu->trace = classes; with TRACE_IO also the port bus trace hook. */
void trace_attach(struct trace *t, struct cpu *cpu, unsigned classes);

/* The callbacks themselves (cpu->trace_ctx is the struct trace). trace_event
 * prints an exception when TRACE_EXC (or TRACE_PF for #PF) is on, and always
 * when what is "triple-fault" (the core passes that only under TRACE_EXC).
 * Any other what ("exc" aside) is the core naming something it does not model
 * before returning ST_UNSUPPORTED: it is kept in trace->note (and printed with
 * TRACE_EXC). trace_walk prints a faulting page
 * walk, level by level, with TRACE_PF. */
void trace_insn(struct cpu *cpu, const struct insn *in);
void trace_event(struct cpu *cpu, const struct event *ev, const char *what);
void trace_walk(struct cpu *cpu, uint64_t lin, const struct walk_result *r,
		const struct fault *f);
/* struct iobus trace hook; opaque is the struct trace. */
void trace_io(void *opaque, uint16_t port, unsigned size, bool is_write, uint32_t value);

/* Print "CS:IP  bytes  disassembly" of the instruction at ip (for end-of-run
 * reports such as an unsupported instruction). */
void trace_print_site(struct trace *t, struct cpu *cpu, uint64_t ip);

/* Print cpu->fault_chain, first fault first, one line per event (name, error
 * code, CS:IP, bytes and disassembly; #DF with the pair that made it), then
 * the registers: the report after a triple fault. Nothing if the chain is empty. */
void trace_print_fault_chain(struct trace *t, struct cpu *cpu);

/* Code size (16, 32 or 64) the CPU decodes with now (SDM Vol.3 3.4.5: CS.D,
 * CS.L in IA-32e mode). */
unsigned trace_code_bits(const struct cpu *cpu);

#endif
