/* The consistency-check engine; see emu/check_table.h. */
#include "emu/check_table.h"

const struct check_row *check_table_first_failure(const struct check_row *rows, size_t n, const void *ctx)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].violated(ctx))
			return &rows[i];
	return NULL;
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
