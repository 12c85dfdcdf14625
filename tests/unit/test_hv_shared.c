/* Check suite for what both hypervisor models share below svm/ and vmx/: the
 * consistency-check engine (emu/check_table.c: rows in order, the first
 * failure named, each outcome kind as the manuals number it). The quirk
 * registry has its own suite, tests/unit/test_quirks.c. */
#include <check.h>
#include <string.h>

#include "emu/check_table.h"
#include "suite_runner.h"
#include "svm/exit_codes.h"
#include "vmx/exit_reasons.h"
#include "vmx/vmcs.h"

/* A predicate's context: which rules are broken, and the order in which the
 * engine asked. */
struct probe {
	unsigned broken;           /* bit i: row i's rule is broken */
	unsigned asked[8];
	unsigned n_asked;
};

static bool ask(const void *ctx, unsigned row)
{
	struct probe *p = (struct probe *)ctx;
	p->asked[p->n_asked++] = row;
	return (p->broken >> row) & 1;
}

static bool rule0(const void *ctx) { return ask(ctx, 0); }
static bool rule1(const void *ctx) { return ask(ctx, 1); }
static bool rule2(const void *ctx) { return ask(ctx, 2); }
static bool rule3(const void *ctx) { return ask(ctx, 3); }
static bool rule4(const void *ctx) { return ask(ctx, 4); }

/* One row of each outcome, numbered as the manuals number them. */
static const struct check_row rows[] = {
	/* APM2 15.5.1: #VMEXIT with VMEXIT_INVALID (-1, Appendix C). */
	{ "APM2 15.5.1: EFER.SVME is zero", rule0, { EXIT_REPORT_SVM_INVALID, SVM_EXIT_INVALID, 0 } },
	/* SDM Vol.3 26.2.1: a control check fails VMfailValid(7), 26.2.2-26.2.4
	 * a host-state check VMfailValid(8) (error numbers: SDM Vol.3 30.4). */
	{ "SDM Vol.3 26.2.1.1: a reserved pin-based control bit is set", rule1,
	  { EXIT_REPORT_VMFAIL_VALID, VMXERR_ENTRY_INVALID_CONTROL, 0 } },
	{ "SDM Vol.3 26.2.2: host CR0 is not fixed as IA32_VMX_CR0_FIXED0/1 say", rule2,
	  { EXIT_REPORT_VMFAIL_VALID, VMXERR_ENTRY_INVALID_HOST_STATE, 0 } },
	/* SDM Vol.3 26.3.1, 26.8: exit reason 33 with bit 31, qualification 0. */
	{ "SDM Vol.3 26.3.1.1: guest CR0.PG set with CR0.PE clear", rule3,
	  { EXIT_REPORT_ENTRY_FAILURE, VMX_EXIT_ENTRY_FAILURE | VMX_EXIT_INVALID_GUEST_STATE, 0 } },
	/* SDM Vol.3 26.4, 26.8: exit reason 34 with bit 31, the qualification
	 * the failing entry's index in the MSR-load list, counted from 1. */
	{ "SDM Vol.3 26.4: VM-entry MSR-load entry 3 loads IA32_SMM_MONITOR_CTL", rule4,
	  { EXIT_REPORT_ENTRY_FAILURE, VMX_EXIT_ENTRY_FAILURE | VMX_EXIT_MSR_LOADING, 3 } },
};
#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

START_TEST(all_rules_hold)
{
	struct probe p = { 0 };
	ck_assert_ptr_null(check_table_first_failure(rows, N_ROWS, &p));
	/* Every rule asked, in table order. */
	ck_assert_uint_eq(p.n_asked, N_ROWS);
	for (unsigned i = 0; i < N_ROWS; i++)
		ck_assert_uint_eq(p.asked[i], i);
}
END_TEST

/* The first broken rule in table order is the one named, however many more
 * are broken, and the rows after it are not evaluated. */
START_TEST(first_failure_named)
{
	struct probe p = { .broken = (1u << 2) | (1u << 3) | (1u << 4) };
	const struct check_row *f = check_table_first_failure(rows, N_ROWS, &p);
	ck_assert_ptr_eq(f, &rows[2]);
	ck_assert_str_eq(f->text, "SDM Vol.3 26.2.2: host CR0 is not fixed as IA32_VMX_CR0_FIXED0/1 say");
	ck_assert_uint_eq(p.n_asked, 3);
	ck_assert_uint_eq(p.asked[2], 2);
	/* The last row alone. */
	p = (struct probe){ .broken = 1u << 4 };
	ck_assert_ptr_eq(check_table_first_failure(rows, N_ROWS, &p), &rows[4]);
	/* The first row: nothing else asked. */
	p = (struct probe){ .broken = 0x1f };
	ck_assert_ptr_eq(check_table_first_failure(rows, N_ROWS, &p), &rows[0]);
	ck_assert_uint_eq(p.n_asked, 1);
	/* An empty table holds. */
	ck_assert_ptr_null(check_table_first_failure(rows, 0, &p));
}
END_TEST

/* The report a broken rule of row i becomes. */
static struct vm_exit_report failure_report(unsigned i, enum hv_ext vendor)
{
	struct probe p = { .broken = 1u << i };
	const struct check_row *f = check_table_first_failure(rows, N_ROWS, &p);
	ck_assert_ptr_eq(f, &rows[i]);
	struct vm_exit_report r = { .vendor = vendor, .name = "x" };
	for (unsigned w = 0; w < EXIT_WORDS_MAX; w++)
		r.words[w] = 0x1111 * (w + 1);
	check_failure_report(f, &r);
	ck_assert_str_eq(r.failed_check, rows[i].text);
	return r;
}

/* APM2 15.5.1, Appendix C: VMEXIT_INVALID is the exit code -1; the words are
 * the model's (the engine writes none). */
START_TEST(outcome_svm_invalid)
{
	struct vm_exit_report r = failure_report(0, HV_EXT_SVM);
	ck_assert_int_eq(r.kind, EXIT_REPORT_SVM_INVALID);
	ck_assert_uint_eq(r.code, UINT64_MAX);
	ck_assert_uint_eq(r.words[EXIT_WORD_SVM_EXITINFO1], 0x1111);
}
END_TEST

/* SDM Vol.3 30.4 Table 30-1: 7 "VM entry with invalid control field(s)",
 * 8 "VM entry with invalid host-state field(s)"; the report's code is n. */
START_TEST(outcome_vmfail_valid)
{
	struct vm_exit_report r = failure_report(1, HV_EXT_VMX);
	ck_assert_int_eq(r.kind, EXIT_REPORT_VMFAIL_VALID);
	ck_assert_uint_eq(r.code, 7);
	r = failure_report(2, HV_EXT_VMX);
	ck_assert_int_eq(r.kind, EXIT_REPORT_VMFAIL_VALID);
	ck_assert_uint_eq(r.code, 8);
	/* No VM exit: the exit qualification is not written. */
	ck_assert_uint_eq(r.words[EXIT_WORD_VMX_QUALIFICATION], 0x1111);
}
END_TEST

/* SDM Vol.3 30.2: VMfailInvalid has no error number (no current VMCS to
 * hold one). */
START_TEST(outcome_vmfail_invalid)
{
	static const struct check_row row[] = {
		{ "SDM Vol.3 30.3 VMLAUNCH: the current-VMCS pointer is not valid", rule0,
		  { EXIT_REPORT_VMFAIL_INVALID, 0, 0 } },
	};
	struct probe p = { .broken = 1 };
	const struct check_row *f = check_table_first_failure(row, 1, &p);
	ck_assert_ptr_eq(f, &row[0]);
	struct vm_exit_report r = { .vendor = HV_EXT_VMX };
	check_failure_report(f, &r);
	ck_assert_int_eq(r.kind, EXIT_REPORT_VMFAIL_INVALID);
	ck_assert_uint_eq(r.code, 0);
	ck_assert_str_eq(r.failed_check, row[0].text);
}
END_TEST

/* SDM Vol.3 24.9.1, 26.8: a VM-entry failure is an exit reason with bit 31
 * set over basic reason 33 (0x80000021) or 34 (0x80000022), and its exit
 * qualification (34: the MSR-load entry, from 1; 26.4). */
START_TEST(outcome_entry_failure)
{
	struct vm_exit_report r = failure_report(3, HV_EXT_VMX);
	ck_assert_int_eq(r.kind, EXIT_REPORT_ENTRY_FAILURE);
	ck_assert_uint_eq(r.code, 0x80000021u);
	ck_assert_uint_eq(r.words[EXIT_WORD_VMX_QUALIFICATION], 0);
	ck_assert_uint_eq(r.words[EXIT_WORD_VMX_GUEST_LINEAR], 0x2222);   /* untouched */
	r = failure_report(4, HV_EXT_VMX);
	ck_assert_int_eq(r.kind, EXIT_REPORT_ENTRY_FAILURE);
	ck_assert_uint_eq(r.code, 0x80000022u);
	ck_assert_uint_eq(r.words[EXIT_WORD_VMX_QUALIFICATION], 3);
}
END_TEST

static Suite *hv_shared_suite(void)
{
	Suite *s = suite_create("hv_shared");
	TCase *tc = tcase_create("check_table");
	tcase_add_test(tc, all_rules_hold);
	tcase_add_test(tc, first_failure_named);
	tcase_add_test(tc, outcome_svm_invalid);
	tcase_add_test(tc, outcome_vmfail_valid);
	tcase_add_test(tc, outcome_vmfail_invalid);
	tcase_add_test(tc, outcome_entry_failure);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(hv_shared_suite());
}
