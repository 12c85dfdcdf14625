/* --trace vmexit: one line per VM exit a hypervisor model delivered to L1, as
 * text or as a JSON object (README "Watching VM exits" fixes both forms).
 * Vendor-neutral: it prints what struct vm_exit_report (emu/hv.h) holds,
 * with the model's own decoding of the exit information (report->describe)
 * and the guest instruction disassembled by Capstone. */
#ifndef HVEMU_CLI_EXIT_TRACE_H
#define HVEMU_CLI_EXIT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "emu/hv.h"

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

/* The event being delivered when the exit happened, from EXITINTINFO (APM2
 * 15.7.2) or the IDT-vectoring information (SDM Vol.3 24.9.3), which share
 * their layout: vector 7:0, type 10:8, error code valid 11, valid 31; the
 * error code in 63:32. */
struct exit_event {
	bool valid;
	uint8_t type;              /* 10:8 */
	uint8_t vector;
	bool has_error;
	uint32_t error_code;
	const char *type_name;     /* "exception", "interrupt", ...; the vendor's names */
};

/* Decode intinfo of a report from vendor ("svm", "vmx"). */
struct exit_event exit_event_decode(const char *vendor, uint64_t intinfo);

/* The event in words: "none", or "exception vector 14 (#PF) err=0x2". */
void exit_event_format(const struct exit_event *e, char *buf, size_t size);

#endif
