/* --trace vmexit: one line per VM exit a hypervisor model delivered to L1, as
 * text or as a JSON object (README "Watching VM exits" fixes both forms).
 * Vendor-neutral: it prints what struct vm_exit_report (emu/exit_report.h)
 * holds, the words under their vendor's keys (exit_word_names()), with the
 * model's own decoding of them (report->describe), the decoded event and the
 * guest instruction disassembled by Capstone. */
#ifndef HVEMU_CLI_EXIT_TRACE_H
#define HVEMU_CLI_EXIT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "emu/symbols.h"
#include "emu/exit_report.h"

#define EXIT_TRACE_LINE_MAX 4096

struct exit_trace {
	FILE *out;
	bool json;                 /* --trace-format json */
	/* A line is formatted here, then written with one call: stderr is
	 * unbuffered, and a write per field made tracing a syscall storm. */
	FILE *line_out;            /* fmemopen() on line, opened on first use */
	char line[EXIT_TRACE_LINE_MAX];
	bool opened;               /* Capstone was asked for its handles (on first use) */
	size_t cs[3];              /* Capstone handles (csh) for 16/32/64-bit code */
	bool have_cs[3];           /* that mode opened */
	const struct symbols *syms;   /* --symbols: each line names the function at rIP */
};

/* Ready to print lines to out (Capstone opens on the first line, so a run
 * without exits pays nothing). */
void exit_trace_init(struct exit_trace *t, FILE *out, bool json);
void exit_trace_destroy(struct exit_trace *t);

/* Print exit number n (1 = the run's first) as one line: text or JSON as
 * t->json says. */
void exit_trace_print(struct exit_trace *t, uint64_t n, const struct vm_exit_report *r);
void exit_trace_print_text(struct exit_trace *t, uint64_t n, const struct vm_exit_report *r);
void exit_trace_print_json(struct exit_trace *t, uint64_t n, const struct vm_exit_report *r);

/* The event of a report (r->event, emu/exit_report.h) in words: "none", or
 * "exception vector 14 (#PF) err=0x2", the type named as its vendor names it. */
void exit_event_format(const struct exit_report_event *e, char *buf, size_t size);

#endif
