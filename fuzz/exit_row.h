/* The reproducer-row text both exit fuzzers' findings are kept in
 * (fuzz/svm_exit_row.h, fuzz/vmx_exit_row.h): comment lines, "write ADDR
 * HEX" lines over the snapshot, "expect FIELD VALUE" lines and "expect
 * halt"; a vendor adds its own lines (the VMX "vmcs" and "expect vmfail")
 * through a callback. Here: writing and reading that text, running the
 * written machine to its halt and comparing the exit record's fields. What
 * the fields are and where the exit record lies (the VMCB, the VMCS) is the
 * vendor's.
 */
#ifndef HVEMU_FUZZ_EXIT_ROW_H
#define HVEMU_FUZZ_EXIT_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "emu/cpu.h"
#include "fuzz/snapshot.h"

#define EXIT_ROW_MAX_FIELDS 16

/* An exit-record field an expect line names; where is the vendor's (a VMCB
 * byte offset, a VMCS row). */
struct exit_row_field {
	const char *name;
	unsigned where;
};

/* What a row's expect lines ask for, by the vendor's field table. */
struct exit_row_expect {
	bool want[EXIT_ROW_MAX_FIELDS];
	uint64_t value[EXIT_ROW_MAX_FIELDS];
	bool halt;                         /* "expect halt": the guest halts, no exit */
	bool any;                          /* any expect line at all */
};

struct exit_row_reader {
	const struct exit_row_field *fields;
	unsigned n_fields;
	struct snapshot *snap;             /* restored first; the writes go over it */
	uint64_t ram_size;
	/* A line neither comment, write nor expect of a field: 1 the vendor
	 * took it (and set e->any for an expectation), 0 not its, -1 its but
	 * malformed. NULL: no vendor lines. */
	int (*vendor_line)(void *ctx, const char *line, struct exit_row_expect *e);
	void *ctx;
};

/* ---- writing ---- */

/* Open path, write the header line ("# header") and the comment's lines. */
FILE *exit_row_create(const char *path, const char *header, const char *comment);

/* Write lines for bytes [0, len) at pa; with skip_zero, leave out the
 * chunks that are all zero (the snapshot holds zeros there). */
void exit_row_write_bytes(FILE *f, uint64_t pa, const uint8_t *b, size_t len, bool skip_zero);

/* An expect line per field, values[k] for fields[k]. */
void exit_row_write_fields(FILE *f, const struct exit_row_field *fields, unsigned n, const uint64_t *values);

/* ---- reading and running ---- */

/* Restore the snapshot, apply path's writes (and the vendor's lines), read
 * its expectations into *e. 0, or -1 with the reason printed. */
int exit_row_read(const char *path, const struct exit_row_reader *r, struct exit_row_expect *e);

/* Run the machine the row set up to its halt and check where it halted.
 * false: the row's result is *result already (1: not the halt expected; 0:
 * the guest's expected halt). true: the L1 went on after the exit, *result
 * counts its being elsewhere than at l1_halt_rip, and the exit record is
 * the vendor's to compare next. */
bool exit_row_run(const char *path, struct cpu *cpu, const struct exit_row_expect *e, uint64_t l1_halt_rip,
		  int *result);

/* The mismatches of the wanted fields with actual[] (by field), printed. */
int exit_row_compare(const char *path, const struct exit_row_field *fields, unsigned n,
		     const struct exit_row_expect *e, const uint64_t *actual);

/* A test's main: `prog ROW...`, init once, run each row; exit 1 if any
 * failed, 2 on a usage error. */
int exit_row_main(int argc, char **argv, void (*init)(void), int (*run)(const char *path));

#endif
