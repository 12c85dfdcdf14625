/* svm/exit_perturb.c (--perturb-exits): rows {exit, what the APM defines} ->
 * the defined fields and bits are kept over many seeds, each undefined one
 * takes both values for some seed, and one seed gives one sequence (APM2
 * 15.6, 15.7.1-15.7.3, 15.8.1-15.8.4, 15.10.2, 15.11, 15.12, 15.13.3,
 * 15.14.1, 15.25.6; rev. 3.42 numbering). */
#include <check.h>
#include <string.h>

#include "suite_runner.h"
#include "svm/exit_codes.h"
#include "svm/exit_perturb.h"
#include "svm/model.h"

#define ALL UINT64_MAX
#define LOW32 0x00000000ffffffffull
#define EVENT_WORD(type, vec) ((1ull << 31) | ((uint64_t)(type) << 8) | (vec))
#define EV (1ull << 11)

struct row {
	const char *name;
	bool decode_assists;
	struct svm_exit x;
	/* The bits that must stay as they are (the APM defines them). The
	 * others must take both values over the seeds. */
	uint64_t keep_info1, keep_info2, keep_intinfo;
	unsigned keep_bytes;       /* instruction bytes kept (with decode assists) */
	bool rip_undefined;        /* the saved rIP (15.12.9, #DF) */
};

/* An exit with nothing in flight (EXITINTINFO.V = 0): 15.7.3 lets the word
 * hold a leftover event, checked apart (leftover_event_legal). */
#define NO_EVENT_KEEP (0x7ffff000ull | (1ull << 31))

static const struct row rows[] = {
	/* 15.9 Table 15-7: CPUID indicates neither EXITINFO; nRIP (15.7.1) and
	 * the byte count 0 (15.8.4) are defined; the other 15 bytes not. */
	{ "CPUID: EXITINFO1/2 undefined", true, { .code = SVM_EXIT_CPUID, .nrip = 0x1002, .guest_rip = 0x1000 },
	  0, 0, NO_EVENT_KEEP, 0, false },
	{ "CPUID without decode assists: no bytes touched", false, { .code = SVM_EXIT_CPUID, .nrip = 0x1002 },
	  0, 0, NO_EVENT_KEEP, 15, false },
	/* 15.8.1: MOV CRx's EXITINFO1 is a decode assist. */
	{ "MOV to CR3, decode assists: EXITINFO1 kept", true, { .code = SVM_EXIT_CR_WRITE + 3,
	  .info1 = (1ull << 63) | 5, .nrip = 0x1003 }, ALL, 0, NO_EVENT_KEEP, 0, false },
	{ "MOV to CR3 without decode assists: EXITINFO1 undefined", false, { .code = SVM_EXIT_CR_WRITE + 3,
	  .nrip = 0x1003 }, 0, 0, NO_EVENT_KEEP, 15, false },
	{ "selective CR0 write, decode assists", true, { .code = SVM_EXIT_CR0_SEL_WRITE, .info1 = (1ull << 63) },
	  ALL, 0, NO_EVENT_KEEP, 0, false },
	{ "MOV from DR7, decode assists", true, { .code = SVM_EXIT_DR_READ + 7, .info1 = 2 }, ALL, 0, NO_EVENT_KEEP, 0, false },
	{ "MOV to DR0 without decode assists", false, { .code = SVM_EXIT_DR_WRITE }, 0, 0, NO_EVENT_KEEP, 15, false },
	/* 15.12.7: #UD's EXITINFO1/2 undefined. */
	{ "#UD: EXITINFO1/2 undefined", true, { .code = SVM_EXIT_EXCEPTION + 6 }, 0, 0, NO_EVENT_KEEP, 0, false },
	/* 15.12, 15.12.14: #GP's error code. */
	{ "#GP: error code kept", true, { .code = SVM_EXIT_EXCEPTION + 13, .info1 = 0x1a }, ALL, 0, NO_EVENT_KEEP, 0, false },
	/* 15.12.15, 15.8.4: #PF's error code and address; the bytes fetched. */
	{ "#PF with 15 bytes", true, { .code = SVM_EXIT_EXCEPTION + 14, .info1 = 2, .info2 = 0xdead000, .insn_len = 15,
	  .insn_bytes = { 0x89, 0x03 } }, ALL, ALL, NO_EVENT_KEEP, 15, false },
	{ "#PF with 5 bytes (the fetch faulted)", true, { .code = SVM_EXIT_EXCEPTION + 14, .info1 = 0x10,
	  .info2 = 0xfff, .insn_len = 5, .insn_bytes = { 1, 2, 3, 4, 5 } }, ALL, ALL, NO_EVENT_KEEP, 5, false },
	/* #DF and #TS push an error code (15.12's rule kept against 15.12.9/11). */
	{ "#DF: EXITINFO1 kept, EXITINFO2 and the saved rIP undefined", true, { .code = SVM_EXIT_EXCEPTION + 8,
	  .guest_rip = 0x1000 }, ALL, 0, NO_EVENT_KEEP, 0, true },
	{ "#TS: EXITINFO1 kept", true, { .code = SVM_EXIT_EXCEPTION + 10, .info1 = 0x58 }, ALL, 0, NO_EVENT_KEEP, 0, false },
	{ "#AC", true, { .code = SVM_EXIT_EXCEPTION + 17 }, ALL, 0, NO_EVENT_KEEP, 0, false },
	{ "#BP (INT3): nRIP kept, EXITINFO undefined", true, { .code = SVM_EXIT_EXCEPTION + 3, .nrip = 0x1001 },
	  0, 0, NO_EVENT_KEEP, 0, false },
	{ "#MC", true, { .code = SVM_EXIT_EXCEPTION + 18 }, 0, 0, NO_EVENT_KEEP, 0, false },
	/* 15.13.1-15.13.5. */
	{ "INTR", true, { .code = SVM_EXIT_INTR }, 0, 0, NO_EVENT_KEEP, 0, false },
	{ "NMI", true, { .code = SVM_EXIT_NMI }, 0, 0, NO_EVENT_KEEP, 0, false },
	{ "INIT", true, { .code = SVM_EXIT_INIT }, 0, 0, NO_EVENT_KEEP, 0, false },
	{ "VINTR", true, { .code = SVM_EXIT_VINTR }, 0, 0, NO_EVENT_KEEP, 0, false },
	/* 15.13.3: without VAL, the I/O bits and EXITINFO2 are undefined; the
	 * RAZ bits, SEG, VAL, MCREDIR and SMISRC are kept. */
	{ "SMI outside an I/O instruction", true, { .code = SVM_EXIT_SMI, .info1 = 1 },
	  ~0xfffffbfd00000000ull, 0, NO_EVENT_KEEP, 0, false },
	{ "SMI during an I/O instruction (VAL)", true, { .code = SVM_EXIT_SMI,
	  .info1 = (0x60ull << 48) | (1ull << 33) | (1ull << 32) | 1, .info2 = 0x1000 }, ALL, ALL, NO_EVENT_KEEP, 0, false },
	/* 15.9 Table 15-7. */
	{ "SIDT", true, { .code = SVM_EXIT_IDTR_READ, .nrip = 0x1003 }, 0, 0, NO_EVENT_KEEP, 0, false },
	{ "HLT", true, { .code = SVM_EXIT_HLT, .nrip = 0x1001 }, 0, 0, NO_EVENT_KEEP, 0, false },
	/* 15.8.2, 15.8.3. */
	{ "INT 80h, decode assists: vector kept", true, { .code = SVM_EXIT_SWINT, .info1 = 0x80 }, ALL, 0, NO_EVENT_KEEP, 0, false },
	{ "INT 80h without decode assists", false, { .code = SVM_EXIT_SWINT }, 0, 0, NO_EVENT_KEEP, 15, false },
	{ "INVLPG, decode assists: address kept", true, { .code = SVM_EXIT_INVLPG, .info1 = 0xc0001000 }, ALL, 0,
	  NO_EVENT_KEEP, 0, false },
	{ "INVLPGA: nothing in EXITINFO1", true, { .code = SVM_EXIT_INVLPGA }, 0, 0, NO_EVENT_KEEP, 0, false },
	/* 15.10.2, 15.11. */
	{ "IOIO: both kept", true, { .code = SVM_EXIT_IOIO, .info1 = (0x80ull << 16) | 0x110, .info2 = 0x1002 },
	  ALL, ALL, NO_EVENT_KEEP, 0, false },
	{ "WRMSR: EXITINFO1 kept, EXITINFO2 undefined", true, { .code = SVM_EXIT_MSR, .info1 = 1 }, ALL, 0,
	  NO_EVENT_KEEP, 0, false },
	/* 15.14.1. */
	{ "task switch by JMP: EXITINFO2 31:0 undefined", true, { .code = SVM_EXIT_TASK_SWITCH, .info1 = 0x48,
	  .info2 = 1ull << 38 }, ALL, ~LOW32, NO_EVENT_KEEP, 0, false },
	{ "task switch with an error code: kept", true, { .code = SVM_EXIT_TASK_SWITCH, .info1 = 0x48,
	  .info2 = (1ull << 44) | 0x28 }, ALL, ALL, NO_EVENT_KEEP, 0, false },
	/* 15.14.2, 15.14.3, Table 15-7. */
	{ "shutdown", true, { .code = SVM_EXIT_SHUTDOWN }, 0, 0, NO_EVENT_KEEP, 0, false },
	{ "VMMCALL", true, { .code = SVM_EXIT_VMMCALL, .nrip = 0x1003 }, 0, 0, NO_EVENT_KEEP, 0, false },
	{ "RDPRU", true, { .code = SVM_EXIT_RDPRU }, 0, 0, NO_EVENT_KEEP, 0, false },
	/* 15.25.6: every NPF EXITINFO bit is named (or not stated undefined). */
	{ "NPF: both kept", true, { .code = SVM_EXIT_NPF, .info1 = (1ull << 32) | 6, .info2 = 0x5000, .insn_len = 15 },
	  ALL, ALL, NO_EVENT_KEEP, 15, false },
	/* Codes the table does not know are left alone. */
	{ "EFER write trap: left alone", true, { .code = SVM_EXIT_EFER_WRITE_TRAP, .info1 = 0x1d01 }, ALL, ALL,
	  NO_EVENT_KEEP, 0, false },
	/* 15.7.2: with V and EV the whole word is defined; without EV the
	 * error code (63:32) is not. */
	{ "EXITINTINFO #GP with EV: kept", true, { .code = SVM_EXIT_NPF,
	  .intinfo = EVENT_WORD(3, 13) | EV | (0x28ull << 32) }, ALL, ALL, ALL, 0, false },
	{ "EXITINTINFO INTR 41h: error code undefined", true, { .code = SVM_EXIT_NPF, .intinfo = EVENT_WORD(0, 0x41) },
	  ALL, ALL, LOW32, 0, false },
};

/* 15.7.3 / Table 15-1: a V = 0 word is an event the guest delivered: TYPE
 * 0, 2, 3 or 4; NMI vector 2; exceptions 0-31 but 2; EV only on exceptions. */
static bool leftover_event_legal(uint64_t w)
{
	unsigned type = (unsigned)(w >> 8) & 7, vector = (unsigned)w & 0xff;
	if (type != 0 && type != 2 && type != 3 && type != 4)
		return false;
	if (type == 2 && vector != 2)
		return false;
	if (type == 3 && (vector > 31 || vector == 2))
		return false;
	return type == 3 || !(w & EV);
}

START_TEST(defined_kept_undefined_varied)
{
	const struct row *r = &rows[_i];
	struct svm_perturb_ctx ctx = { .decode_assists = r->decode_assists };
	uint64_t seen1 = 0, seen2 = 0, seen_int = 0, seen_rip = 0;
	uint8_t seen_bytes[15] = { 0 };
	for (uint64_t seed = 1; seed <= 64; seed++) {
		uint64_t state = seed * 0x9e3779b97f4a7c15ull;
		struct svm_exit x = r->x;
		unsigned changed = svm_perturb_exit(&state, &ctx, &x);
		ck_assert_msg(x.code == r->x.code && x.nrip == r->x.nrip &&
			      (r->rip_undefined || x.guest_rip == r->x.guest_rip) && x.insn_len == r->x.insn_len &&
			      x.failed_check == r->x.failed_check,
			      "%s: a defined field changed (code, nRIP, rIP or byte count)", r->name);
		seen_rip |= x.guest_rip ^ r->x.guest_rip;
		ck_assert_msg(((x.info1 ^ r->x.info1) & r->keep_info1) == 0, "%s: EXITINFO1 %#llx", r->name,
			      (unsigned long long)x.info1);
		ck_assert_msg(((x.info2 ^ r->x.info2) & r->keep_info2) == 0, "%s: EXITINFO2 %#llx", r->name,
			      (unsigned long long)x.info2);
		ck_assert_msg(((x.intinfo ^ r->x.intinfo) & r->keep_intinfo) == 0, "%s: EXITINTINFO %#llx", r->name,
			      (unsigned long long)x.intinfo);
		if (!(r->x.intinfo & (1ull << 31)))
			ck_assert_msg(leftover_event_legal(x.intinfo), "%s: V = 0 word %#llx is no event", r->name,
				      (unsigned long long)x.intinfo);
		for (unsigned b = 0; b < 15; b++) {
			if (b < r->keep_bytes)
				ck_assert_msg(x.insn_bytes[b] == r->x.insn_bytes[b], "%s: instruction byte %u", r->name, b);
			seen_bytes[b] |= x.insn_bytes[b] ^ r->x.insn_bytes[b];
		}
		ck_assert_msg(((changed & SVM_PERTURB_EXITINFO1) != 0) == (r->keep_info1 != ALL),
			      "%s: EXITINFO1 reported changed %u", r->name, changed);
		seen1 |= x.info1 ^ r->x.info1;
		seen2 |= x.info2 ^ r->x.info2;
		seen_int |= x.intinfo ^ r->x.intinfo;
	}
	/* Each undefined bit took both values over the seeds. */
	ck_assert_msg(seen1 == ~r->keep_info1, "%s: EXITINFO1 varied %#llx", r->name, (unsigned long long)seen1);
	ck_assert_msg(seen2 == ~r->keep_info2, "%s: EXITINFO2 varied %#llx", r->name, (unsigned long long)seen2);
	ck_assert_msg(seen_rip == (r->rip_undefined ? ALL : 0), "%s: rIP varied %#llx", r->name,
		      (unsigned long long)seen_rip);
	/* V = 0: every bit of ERRORCODE, EV, TYPE and VECTOR. */
	uint64_t want_int = (r->x.intinfo & (1ull << 31)) ? ~r->keep_intinfo : 0xffffffff00000fffull;
	ck_assert_msg(seen_int == want_int, "%s: EXITINTINFO varied %#llx", r->name, (unsigned long long)seen_int);
	for (unsigned b = 0; b < 15; b++)
		ck_assert_msg(seen_bytes[b] == (b < r->keep_bytes ? 0 : 0xff), "%s: instruction byte %u varied %#x",
			      r->name, b, seen_bytes[b]);
}
END_TEST

/* Over the whole Appendix C table: what 15.7.1 and 15.8.4 define for every
 * exit (the code, nRIP, the byte count, EXITINTINFO.V and its reserved
 * bits 30:12) and the saved rIP (but #DF's, 15.12.9) never change, with or
 * without decode assists. */
START_TEST(every_code_keeps_the_common_fields)
{
	size_t n;
	const struct svm_exit_info *t = svm_exit_table(&n);
	for (size_t i = 0; i < n; i++) {
		for (unsigned da = 0; da < 2; da++) {
			struct svm_perturb_ctx ctx = { .decode_assists = da };
			uint64_t state = 0x1234567 + i;
			struct svm_exit x = { .code = t[i].code, .nrip = 0x2000, .guest_rip = 0x1ffe, .insn_len = 3,
					      .intinfo = i & 1 ? EVENT_WORD(3, 14) | EV : 0 };
			struct svm_exit before = x;
			svm_perturb_exit(&state, &ctx, &x);
			bool df = t[i].code == SVM_EXIT_EXCEPTION + 8;     /* 15.12.9 */
			ck_assert_msg(x.code == before.code && x.nrip == before.nrip &&
				      (df || x.guest_rip == before.guest_rip) && x.insn_len == before.insn_len,
				      "%s: a common field changed", t[i].name);
			ck_assert_msg(((x.intinfo ^ before.intinfo) & NO_EVENT_KEEP) == 0,
				      "%s: EXITINTINFO.V or reserved bits changed", t[i].name);
			ck_assert_msg(!memcmp(x.insn_bytes, before.insn_bytes, 3), "%s: fetched bytes changed", t[i].name);
		}
	}
}
END_TEST

/* VMEXIT_INVALID (the PDPTE check after loading the guest) is left alone:
 * its fields are 15.5.1's, not an intercept's. */
START_TEST(invalid_untouched)
{
	uint64_t state = 42;
	struct svm_perturb_ctx ctx = { .decode_assists = true };
	struct svm_exit x = { .code = SVM_EXIT_INVALID, .guest_rip = 0x1000, .failed_check = "PDPTE" };
	struct svm_exit before = x;
	ck_assert_uint_eq(svm_perturb_exit(&state, &ctx, &x), 0);
	ck_assert(!memcmp(&x, &before, sizeof(x)));
	ck_assert_uint_eq(state, 42);
}
END_TEST

/* The same state gives the same exit (runs stay deterministic); another
 * state another one. */
START_TEST(deterministic)
{
	struct svm_perturb_ctx ctx = { .decode_assists = true };
	uint64_t a = 7, b = 7, c = 8;
	struct svm_exit x = { .code = SVM_EXIT_INTR }, y = x, z = x;
	svm_perturb_exit(&a, &ctx, &x);
	svm_perturb_exit(&b, &ctx, &y);
	svm_perturb_exit(&c, &ctx, &z);
	ck_assert(!memcmp(&x, &y, sizeof(x)));
	ck_assert_uint_eq(a, b);
	ck_assert(memcmp(&x, &z, sizeof(x)) != 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("svm_perturb");
	TCase *tc = tcase_create("rules");
	tcase_add_loop_test(tc, defined_kept_undefined_varied, 0, sizeof(rows) / sizeof(rows[0]));
	tcase_add_test(tc, every_code_keeps_the_common_fields);
	tcase_add_test(tc, invalid_untouched);
	tcase_add_test(tc, deterministic);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
