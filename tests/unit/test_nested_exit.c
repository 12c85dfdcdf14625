/* Check suite for the pure parts of mmu/nested.h that svm/ and vmx/ call:
 * the EPTP check of VM entry, the EPT environment an EPTP gives, and the
 * encodings of a stage-2 fault as #VMEXIT(NPF) EXITINFO1 (APM2 15.25.6) and as
 * the exit qualification of an EPT violation (SDM Vol.3 Table 27-7). */
#include <check.h>
#include <stdlib.h>

#include "mmu/nested.h"
#include "suite_runner.h"

#define MAXPHY 40
#define B(n)   (1ull << (n))

/* ---- the EPTP check of VM entry (SDM 26.2.1.1), one rule a row ---- */

#define CAPS_DEFAULT (EPT_CAP_WALK4 | EPT_CAP_WALK5 | EPT_CAP_UC | EPT_CAP_WB | EPT_CAP_2M | \
		      EPT_CAP_1G | EPT_CAP_AD | EPT_CAP_ADV_INFO)

static const struct {
	const char *name;
	uint64_t eptp, caps;
	enum eptp_check want;
} eptp_rows[] = {
	{ "WB, 4-level", 0x5000 | 6 | (3 << 3), CAPS_DEFAULT, EPTP_OK },
	{ "UC, 4-level", 0x5000 | 0 | (3 << 3), CAPS_DEFAULT, EPTP_OK },
	{ "UC without cap bit 8", 0x5000 | 0 | (3 << 3), CAPS_DEFAULT & ~EPT_CAP_UC, EPTP_BAD_MEMTYPE },
	{ "WB without cap bit 14", 0x5000 | 6 | (3 << 3), CAPS_DEFAULT & ~EPT_CAP_WB, EPTP_BAD_MEMTYPE },
	{ "memory type 1 (WC)", 0x5000 | 1 | (3 << 3), CAPS_DEFAULT, EPTP_BAD_MEMTYPE },
	{ "memory type 4 (WT)", 0x5000 | 4 | (3 << 3), CAPS_DEFAULT, EPTP_BAD_MEMTYPE },
	{ "memory type 7", 0x5000 | 7 | (3 << 3), CAPS_DEFAULT, EPTP_BAD_MEMTYPE },
	{ "page-walk length 5 with cap bit 7", 0x5000 | 6 | (4 << 3), CAPS_DEFAULT, EPTP_OK },
	{ "page-walk length 5 without cap bit 7", 0x5000 | 6 | (4 << 3), CAPS_DEFAULT & ~EPT_CAP_WALK5,
	  EPTP_BAD_WALK_LENGTH },
	{ "page-walk length 4 without cap bit 6", 0x5000 | 6 | (3 << 3), CAPS_DEFAULT & ~EPT_CAP_WALK4,
	  EPTP_BAD_WALK_LENGTH },
	{ "page-walk length 3", 0x5000 | 6 | (2 << 3), CAPS_DEFAULT, EPTP_BAD_WALK_LENGTH },
	{ "page-walk length 1", 0x5000 | 6 | (0 << 3), CAPS_DEFAULT, EPTP_BAD_WALK_LENGTH },
	{ "A/D enable with cap bit 21", 0x5000 | 6 | (3 << 3) | B(6), CAPS_DEFAULT, EPTP_OK },
	{ "A/D enable without cap bit 21", 0x5000 | 6 | (3 << 3) | B(6), CAPS_DEFAULT & ~EPT_CAP_AD,
	  EPTP_AD_UNSUPPORTED },
	{ "shadow-stack enable without cap bit 23", 0x5000 | 6 | (3 << 3) | B(7), CAPS_DEFAULT,
	  EPTP_SSS_UNSUPPORTED },
	{ "shadow-stack enable with cap bit 23", 0x5000 | 6 | (3 << 3) | B(7), CAPS_DEFAULT | EPT_CAP_SSS,
	  EPTP_OK },
	{ "bit 8 reserved", 0x5000 | 6 | (3 << 3) | B(8), CAPS_DEFAULT, EPTP_RESERVED_BITS },
	{ "bit 11 reserved", 0x5000 | 6 | (3 << 3) | B(11), CAPS_DEFAULT, EPTP_RESERVED_BITS },
	{ "bit 40 reserved at MAXPHYADDR 40", 0x5000 | 6 | (3 << 3) | B(40), CAPS_DEFAULT,
	  EPTP_RESERVED_BITS },
	{ "bit 39 is an address bit at MAXPHYADDR 40", 0x5000 | 6 | (3 << 3) | B(39), CAPS_DEFAULT, EPTP_OK },
	{ "bit 63 reserved", 0x5000 | 6 | (3 << 3) | B(63), CAPS_DEFAULT, EPTP_RESERVED_BITS },
};

START_TEST(eptp_check_row)
{
	ck_assert_msg(ept_eptp_check(eptp_rows[_i].eptp, eptp_rows[_i].caps, MAXPHY) == eptp_rows[_i].want,
		      "%s: got %d", eptp_rows[_i].name,
		      ept_eptp_check(eptp_rows[_i].eptp, eptp_rows[_i].caps, MAXPHY));
}
END_TEST

START_TEST(ept_env_from_eptp)
{
	struct physmem pm = { 0 };
	struct paging_env e = nested_ept_env(&pm, 0x5000 | 6 | (4 << 3), CAPS_DEFAULT, false, MAXPHY);
	ck_assert_int_eq(e.mode, PAGING_EPT5);
	e = nested_ept_env(&pm, 0x5000 | 6 | (3 << 3), CAPS_DEFAULT, true, MAXPHY);
	ck_assert_int_eq(e.mode, PAGING_EPT4);
	ck_assert(e.ept_mbec && e.ept_caps == CAPS_DEFAULT && e.cr3 == (0x5000 | 6 | (3 << 3)));
}
END_TEST

/* ---- the encoders on their own ---- */

static const struct {
	const char *name;
	struct fault f;
	bool advanced;
	uint64_t want;
} encoder_rows[] = {
	/* APM2 15.25.6: low bits are the nested #PF code; bit 32 final, 33 walk. */
	{ "NPF: final write protection", { .error_code = 0x7, .stage = FAULT_STAGE2,
	  .nested = { .final = true } }, false, 0x100000007ull },
	{ "NPF: walk read not present", { .error_code = 0x4, .stage = FAULT_STAGE2,
	  .nested = { .final = false } }, false, 0x200000004ull },
	{ "NPF: reserved bit, fetch", { .error_code = 0x1d, .stage = FAULT_STAGE2,
	  .nested = { .final = true } }, false, 0x10000001dull },
	{ "NPF: bits above the #PF code are not copied", { .error_code = 0xffffffe0u | 0x5,
	  .stage = FAULT_STAGE2, .nested = { .final = true } }, false, 0x100000005ull },
	/* SDM Table 27-7. */
	{ "EPT: final read, not present", { .stage = FAULT_STAGE2, .nested = { .ept = true, .final = true,
	  .gla_valid = true, .access = S2_ACC_READ } }, false, 0x181 },
	{ "EPT: final write, R-X", { .stage = FAULT_STAGE2, .nested = { .ept = true, .final = true,
	  .gla_valid = true, .access = S2_ACC_WRITE, .rights = S2_RIGHT_R | S2_RIGHT_X } }, false, 0x1aa },
	{ "EPT: walk access treated as a write", { .stage = FAULT_STAGE2, .nested = { .ept = true,
	  .gla_valid = true, .access = S2_ACC_READ | S2_ACC_WRITE, .rights = S2_RIGHT_R } }, false, 0x8b },
	{ "EPT: PDPTE load: bit 7 clear, so bit 8 clear", { .stage = FAULT_STAGE2, .nested = { .ept = true,
	  .final = true, .gla_valid = false, .access = S2_ACC_READ } }, true, 0x1 },
	{ "EPT: user-mode execute right (MBEC) in bit 6", { .stage = FAULT_STAGE2, .nested = { .ept = true,
	  .final = true, .gla_valid = true, .access = S2_ACC_FETCH,
	  .rights = S2_RIGHT_R | S2_RIGHT_UX } }, false, 0x1cc },
	{ "EPT: advanced information for a final access", { .stage = FAULT_STAGE2, .nested = { .ept = true,
	  .final = true, .gla_valid = true, .access = S2_ACC_WRITE, .gla_user = true,
	  .gla_writable = true, .gla_nx = true } }, true, 0xf82 },
	{ "EPT: advanced information not reported without the capability", { .stage = FAULT_STAGE2,
	  .nested = { .ept = true, .final = true, .gla_valid = true, .access = S2_ACC_WRITE,
	  .gla_user = true, .gla_writable = true, .gla_nx = true } }, false, 0x182 },
	{ "EPT: advanced information only for final accesses", { .stage = FAULT_STAGE2,
	  .nested = { .ept = true, .final = false, .gla_valid = true, .access = S2_ACC_READ,
	  .gla_user = true } }, true, 0x81 },
};

START_TEST(encoder_row)
{
	const struct fault *f = &encoder_rows[_i].f;
	uint64_t got = f->nested.ept ? ept_violation_qualification(f, encoder_rows[_i].advanced) :
				       npf_exitinfo1(f);
	ck_assert_msg(got == encoder_rows[_i].want, "%s: 0x%llx, want 0x%llx", encoder_rows[_i].name,
		      (unsigned long long)got, (unsigned long long)encoder_rows[_i].want);
}
END_TEST

static Suite *nested_exit_suite(void)
{
	Suite *s = suite_create("nested_exit");
	TCase *tc = tcase_create("eptp");
	tcase_add_loop_test(tc, eptp_check_row, 0, sizeof eptp_rows / sizeof eptp_rows[0]);
	tcase_add_test(tc, ept_env_from_eptp);
	suite_add_tcase(s, tc);
	tc = tcase_create("encoders");
	tcase_add_loop_test(tc, encoder_row, 0, sizeof encoder_rows / sizeof encoder_rows[0]);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(nested_exit_suite());
}
