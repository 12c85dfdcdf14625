/* Consistency checks as a table, for both vendors' VM entries: rows
 * {the manual's rule with its section, a predicate that says it is broken,
 * what the failure becomes}, evaluated in order; the first broken rule is the
 * one named (in the exit report's failed_check, the trace's check=).
 *
 * A row's outcome is what the manual says a failure of that check does:
 *   SVM   #VMEXIT with VMEXIT_INVALID (APM2 15.5.1)
 *   VMX   VMfailValid(n), n the VM-instruction error: the checks on the VMX
 *         controls (7) and on the host-state area (8) (SDM Vol.3 26.2);
 *         VMfailInvalid without a current VMCS (SDM Vol.3 30.2);
 *         a VM-entry failure, a VM exit with bit 31 of the exit reason set,
 *         basic reason 33 (invalid guest state, SDM Vol.3 26.3.1) or 34 (MSR
 *         loading, 26.4), and an exit qualification (SDM Vol.3 26.8).
 * The engine stores no vendor's numbers: each row carries its own.
 */
#ifndef HVEMU_EMU_CHECK_TABLE_H
#define HVEMU_EMU_CHECK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/exit_report.h"

struct check_outcome {
	enum exit_report_kind kind;   /* never EXIT_REPORT_VMEXIT */
	uint64_t code;                /* the report's code: VMEXIT_INVALID (-1); the
					 VM-instruction error n; the full exit reason (bit
					 31 and 33 or 34); 0 for VMfailInvalid */
	uint64_t qualification;       /* a VM-entry failure's exit qualification */
};

struct check_row {
	const char *text;             /* "APM2 15.5.1: EFER.SVME is zero" */
	/* True when the rule is broken. ctx: the vendor's view of the entry
	 * (what the caller passed to check_table_first_failure()). */
	bool (*violated)(const void *ctx);
	struct check_outcome outcome;
};

/* The first row of rows[0..n) whose rule ctx breaks, in table order; NULL
 * when every rule holds. Rows after the first failure are not evaluated. */
const struct check_row *check_table_first_failure(const struct check_row *rows, size_t n, const void *ctx);

/* The report of a failed entry (the vendor has set vendor, name, where the
 * guest was): kind, code and failed_check from the row, and for a VM-entry
 * failure the exit qualification in its word. */
void check_failure_report(const struct check_row *row, struct vm_exit_report *r);

/* ---- incremental evaluation ----
 * A table's rows are pure functions of what they read. A memo remembers, per
 * row, that its last evaluation held and which inputs (the vendor numbers
 * them: VMCS fields by row) it read; a row that held and whose inputs have
 * not changed since would hold again, so check_table_first_failure_memo()
 * skips it, and the first row that fails is the one the full evaluation
 * finds: every row before it held (skipped rows by the memo's argument,
 * evaluated rows by evaluation). A row that read anything else (memory, the
 * processor's current mode) is "external": it is evaluated at every call.
 * The vendor reports reads with check_memo_read()/check_memo_external() from
 * its field accessors while memo->recording, and changed inputs with
 * check_memo_changed(). Up to CHECK_MEMO_ROWS rows and CHECK_MEMO_INPUTS
 * inputs. */
#define CHECK_MEMO_ROWS   128
#define CHECK_MEMO_INPUTS 256
#define CHECK_MEMO_WORDS  (CHECK_MEMO_ROWS / 64)

struct check_memo {
	uint64_t held[CHECK_MEMO_WORDS];   /* rows known to hold */
	/* Per input: the rows whose evaluation ever read it (a superset of
	 * what their last evaluations read, which only costs an extra
	 * evaluation). */
	uint64_t readers[CHECK_MEMO_INPUTS][CHECK_MEMO_WORDS];
	bool recording;                    /* a row is being evaluated */
	bool external;                     /* ... and it read outside the inputs */
	unsigned row;                      /* ... which one */
};

/* As check_table_first_failure (the same row, or NULL), evaluating only the
 * rows memo does not know to hold; memo learns what the evaluated rows read. */
const struct check_row *check_table_first_failure_memo(const struct check_row *rows, size_t n, const void *ctx,
						       struct check_memo *memo);

/* Nothing is known to hold (every input may have changed). */
void check_memo_forget(struct check_memo *memo);

static inline void check_memo_read(struct check_memo *memo, unsigned input)
{
	if (memo->recording)
		memo->readers[input][memo->row / 64] |= 1ull << (memo->row % 64);
}

static inline void check_memo_external(struct check_memo *memo)
{
	memo->external |= memo->recording;
}

/* Is every row of a table of n rows known to hold? (Then the table's first
 * failure is NULL without a call.) */
static inline bool check_memo_all_held(const struct check_memo *memo, size_t n)
{
	for (unsigned w = 0; w * 64 < n; w++) {
		uint64_t all = n - w * 64 >= 64 ? ~0ull : (1ull << (n - w * 64)) - 1;
		if ((memo->held[w] & all) != all)
			return false;
	}
	return true;
}

/* Input changed: the rows that read it must be evaluated again. */
static inline void check_memo_changed(struct check_memo *memo, unsigned input)
{
	for (unsigned w = 0; w < CHECK_MEMO_WORDS; w++)
		memo->held[w] &= ~memo->readers[input][w];
}

#endif
