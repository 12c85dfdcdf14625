/* The consistency-check engine; see emu/check_table.h. */
#include "emu/check_table.h"

#include <string.h>

const struct check_row *check_table_first_failure(const struct check_row *rows, size_t n, const void *ctx)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].violated(ctx))
			return &rows[i];
	return NULL;
}

const struct check_row *check_table_first_failure_memo(const struct check_row *rows, size_t n, const void *ctx,
						       struct check_memo *memo)
{
	memo->recording = true;
	const struct check_row *failed = NULL;
	for (unsigned w = 0; w * 64 < n && !failed; w++) {
		/* The rows of this word not known to hold, in table order. */
		uint64_t todo = ~memo->held[w];
		if (n - w * 64 < 64)
			todo &= (1ull << (n - w * 64)) - 1;
		while (todo) {
			unsigned i = w * 64 + (unsigned)__builtin_ctzll(todo);
			todo &= todo - 1;
			memo->row = i;
			memo->external = false;
			if (rows[i].violated(ctx)) {
				failed = &rows[i];
				break;
			}
			if (!memo->external)
				memo->held[w] |= 1ull << (i % 64);
		}
	}
	memo->recording = false;
	return failed;
}

void check_memo_forget(struct check_memo *memo)
{
	/* readers[] stays: a superset of what the rows read is sound, and
	 * clearing it would cost 4 KiB a VMPTRLD. */
	memset(memo->held, 0, sizeof(memo->held));
	memo->recording = false;
}

void check_failure_report(const struct check_row *row, struct vm_exit_report *r)
{
	r->kind = row->outcome.kind;
	r->code = row->outcome.code;
	r->failed_check = row->text;
	/* SDM Vol.3 26.8: a VM-entry failure reports its exit reason and an
	 * exit qualification. */
	if (row->outcome.kind == EXIT_REPORT_ENTRY_FAILURE && r->vendor == HV_EXT_VMX)
		r->words[EXIT_WORD_VMX_QUALIFICATION] = row->outcome.qualification;
}
