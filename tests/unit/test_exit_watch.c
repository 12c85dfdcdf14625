/* Check suite for the CLI's VM-exit observer (cli/exit_trace.c, exit_stats.c,
 * exit_watch.c), fed synthetic struct vm_exit_report values: the text and JSON
 * trace lines as README "Watching VM exits" fixes them, EXITINTINFO /
 * IDT-vectoring decoding, the --stats counts and histogram, the livelock
 * detector and how the observer stops the CPU. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cli/exit_stats.h"
#include "cli/exit_trace.h"
#include "cli/exit_watch.h"
#include "suite_runner.h"

static char *text;
static size_t text_len;
static FILE *out;

static void setup(void)
{
	text = NULL;
	out = open_memstream(&text, &text_len);
	ck_assert_ptr_nonnull(out);
}

static void teardown(void)
{
	fclose(out);
	free(text);
}

static const char *output(void)
{
	fflush(out);
	return text;
}

/* A model's describe(): the IOIO words of APM2 15.10.2 for these cases. */
static void describe_ioio(const struct vm_exit_report *r, char *buf, size_t size)
{
	snprintf(buf, size, "port 0x%llx %s size 1", (unsigned long long)(r->words[EXIT_WORD_SVM_EXITINFO1] >> 16),
		 (r->words[EXIT_WORD_SVM_EXITINFO1] & 1) ? "in" : "out");
}

/* One with characters that need escaping. */
static void describe_quotes(const struct vm_exit_report *r, char *buf, size_t size)
{
	snprintf(buf, size, "say \"hi\"\\\tnow\x01");
}

/* OUT DX, AL at 0008:00100020 in 32-bit code: an IOIO exit to port 0x70. */
static struct vm_exit_report ioio_exit(void)
{
	return (struct vm_exit_report){
		.vendor = HV_EXT_SVM, .code = 0x7b, .name = "ioio", .words = { 0x700010, 0x100021 },
		.cs = 0x08, .rip = 0x100020, .code_bits = 32, .insn_len = 1, .insn = { 0xee },
		.now = 5000, .guest_insns = 7, .describe = describe_ioio,
	};
}

START_TEST(text_line_ioio)
{
	struct exit_trace t;
	exit_trace_init(&t, out, false);
	struct vm_exit_report r = ioio_exit();
	exit_trace_print(&t, 3, &r);
	exit_trace_destroy(&t);
	ck_assert_str_eq(output(), "vmexit #3 svm ioio 0x7b at 0008:00100020 [ee] \"out dx, al\" info1=0x700010 "
			 "info2=0x100021 \"port 0x70 out size 1\" intinfo=0x0 \"none\" dt=7 t=5000\n");
}
END_TEST

/* A #PF intercepted while delivering an interrupt, 64-bit code: rIP in 16
 * digits, the event decoded with its error code, only the instruction's own
 * bytes shown when the model gave more. */
START_TEST(text_line_event_64)
{
	struct exit_trace t;
	exit_trace_init(&t, out, false);
	struct vm_exit_report r = {
		.vendor = HV_EXT_SVM, .code = 0x4e, .name = "excp_pf",
		.words = { 0x2, 0xfffff000, (0x18ull << 32) | (1u << 31) | (1u << 11) | (3u << 8) | 14 },
		.cs = 0x10, .rip = 0xffffffff80001000ull, .code_bits = 64, .insn_len = 6,
		.insn = { 0x48, 0x8b, 0x03, 0x90, 0x90, 0x90 },   /* mov rax, [rbx]; nops */
		.now = 1, .guest_insns = 0,
	};
	exit_report_decode(&r);
	exit_trace_print(&t, 1, &r);
	exit_trace_destroy(&t);
	ck_assert_str_eq(output(), "vmexit #1 svm excp_pf 0x4e at 0010:ffffffff80001000 [48 8b 03] "
			 "\"mov rax, qword ptr [rbx]\" info1=0x2 info2=0xfffff000 \"\" intinfo=0x1880000b0e "
			 "\"exception vector 14 (#PF) err=0x18\" dt=0 t=1\n");
}
END_TEST

/* VMEXIT_INVALID: the code as the 64-bit field holds -1, the failed check
 * last, no instruction bytes. */
START_TEST(text_line_invalid)
{
	struct exit_trace t;
	exit_trace_init(&t, out, false);
	struct vm_exit_report r = {
		.vendor = HV_EXT_SVM, .code = UINT64_MAX, .name = "VMEXIT_INVALID", .cs = 0x08, .rip = 0x1000,
		.code_bits = 32, .failed_check = "APM2 15.5.1: EFER.SVME = 0", .now = 9, .guest_insns = 0,
	};
	exit_trace_print(&t, 2, &r);
	exit_trace_destroy(&t);
	ck_assert_str_eq(output(), "vmexit #2 svm VMEXIT_INVALID 0xffffffffffffffff at 0008:00001000 [] \"?\" "
			 "info1=0x0 info2=0x0 \"\" intinfo=0x0 \"none\" dt=0 t=9 "
			 "check=\"APM2 15.5.1: EFER.SVME = 0\"\n");
}
END_TEST

/* Bytes Capstone cannot decode (PUSH ES does not exist in 64-bit mode): all
 * of them shown, "(bad)"; quotes and control characters escaped. */
START_TEST(text_line_bad_bytes_escapes)
{
	struct exit_trace t;
	exit_trace_init(&t, out, false);
	struct vm_exit_report r = {
		.vendor = HV_EXT_SVM, .code = 0x81, .name = "vmmcall", .cs = 0x08, .rip = 0x2000, .code_bits = 64,
		.insn_len = 2, .insn = { 0x06, 0x06 }, .describe = describe_quotes,
	};
	exit_trace_print(&t, 1, &r);
	exit_trace_destroy(&t);
	ck_assert_str_eq(output(), "vmexit #1 svm vmmcall 0x81 at 0008:0000000000002000 [06 06] \"(bad)\" "
			 "info1=0x0 info2=0x0 \"say \\\"hi\\\"\\\\\\tnow\\x01\" intinfo=0x0 \"none\" dt=0 t=0\n");
}
END_TEST

START_TEST(json_line_ioio)
{
	struct exit_trace t;
	exit_trace_init(&t, out, true);
	struct vm_exit_report r = ioio_exit();
	exit_trace_print(&t, 3, &r);
	exit_trace_destroy(&t);
	ck_assert_str_eq(output(), "{\"exit\":3,\"vendor\":\"svm\",\"name\":\"ioio\",\"code\":\"0x7b\",\"cs\":\"0x0008\","
			 "\"rip\":\"0x100020\",\"bits\":32,\"insn\":\"ee\",\"disasm\":\"out dx, al\",\"info1\":\"0x700010\","
			 "\"info2\":\"0x100021\",\"describe\":\"port 0x70 out size 1\",\"intinfo\":\"0x0\",\"event\":null,"
			 "\"failed_check\":null,\"guest_insns\":7,\"now\":5000}\n");
}
END_TEST

/* The absent fields are null; an event an object; escapes are JSON's. */
START_TEST(json_line_nulls_event_escapes)
{
	struct exit_trace t;
	exit_trace_init(&t, out, true);
	struct vm_exit_report r = {
		.vendor = HV_EXT_SVM, .code = UINT64_MAX, .name = "VMEXIT_INVALID", .cs = 0x08, .rip = 0x1000,
		.code_bits = 32, .words = { [EXIT_WORD_SVM_EXITINTINFO] = (1u << 31) | (2u << 8) | 2 }, .failed_check = "a \"b\"\x7f",
		.describe = describe_quotes,
	};
	exit_report_decode(&r);
	exit_trace_print(&t, 1, &r);
	exit_trace_destroy(&t);
	ck_assert_str_eq(output(), "{\"exit\":1,\"vendor\":\"svm\",\"name\":\"VMEXIT_INVALID\",\"code\":\"0xffffffffffffffff\","
			 "\"cs\":\"0x0008\",\"rip\":\"0x1000\",\"bits\":32,\"insn\":\"\",\"disasm\":null,\"info1\":\"0x0\","
			 "\"info2\":\"0x0\",\"describe\":\"say \\\"hi\\\"\\\\\\tnow\\u0001\",\"intinfo\":\"0x80000202\","
			 "\"event\":{\"type\":\"NMI\",\"vector\":2,\"error_code\":null},"
			 "\"failed_check\":\"a \\\"b\\\"\\u007f\",\"guest_insns\":0,\"now\":0}\n");
}
END_TEST

/* Fifteen bytes that are one instruction: every one in "insn". */
START_TEST(json_insn_fifteen_bytes)
{
	struct exit_trace t;
	exit_trace_init(&t, out, true);
	/* Fourteen operand-size prefixes, then NOP. */
	struct vm_exit_report r = { .vendor = HV_EXT_SVM, .name = "x", .code_bits = 32, .insn_len = 15 };
	memset(r.insn, 0x66, 14);
	r.insn[14] = 0x90;
	exit_trace_print(&t, 1, &r);
	exit_trace_destroy(&t);
	ck_assert_ptr_nonnull(strstr(output(), "\"insn\":\"666666666666666666666666666690\""));
}
END_TEST

/* A line longer than the line buffer is cut, and still ends the line; the
 * next one is whole. */
START_TEST(long_line_cut)
{
	struct exit_trace t;
	exit_trace_init(&t, out, false);
	char *check = malloc(6000);
	memset(check, 'c', 5999);
	check[5999] = 0;
	struct vm_exit_report r = ioio_exit();
	r.failed_check = check;
	exit_trace_print(&t, 1, &r);
	r = ioio_exit();
	exit_trace_print(&t, 2, &r);
	exit_trace_destroy(&t);
	free(check);
	const char *s = output();
	const char *nl = strchr(s, '\n');
	ck_assert_ptr_nonnull(nl);
	ck_assert_uint_eq((size_t)(nl - s), EXIT_TRACE_LINE_MAX - 2);
	ck_assert_str_eq(nl + 1, "vmexit #2 svm ioio 0x7b at 0008:00100020 [ee] \"out dx, al\" info1=0x700010 "
			 "info2=0x100021 \"port 0x70 out size 1\" intinfo=0x0 \"none\" dt=7 t=5000\n");
}
END_TEST

/* The event of a report of vendor v whose event word is w (for VMX, err
 * the IDT-vectoring error code), decoded (emu/exit_report.c) and formatted. */
static const char *event_text(enum hv_ext v, uint64_t w, uint32_t err, struct exit_report_event *e)
{
	static char buf[96];
	struct vm_exit_report r = { .vendor = v };
	if (v == HV_EXT_SVM) {
		r.words[EXIT_WORD_SVM_EXITINTINFO] = w;
	} else {
		r.words[EXIT_WORD_VMX_IDT_VECTORING] = w;
		r.words[EXIT_WORD_VMX_IDT_ERROR] = err;
	}
	exit_report_decode(&r);
	*e = r.event;
	exit_event_format(&r.event, buf, sizeof(buf));
	return buf;
}

START_TEST(event_decode_svm_vmx)
{
	struct exit_report_event e;
	ck_assert_str_eq(event_text(HV_EXT_SVM, 0, 0, &e), "none");
	ck_assert(!e.valid);
	/* APM2 15.20: type 0 = INTR, vector 0x20, no error code. */
	ck_assert_str_eq(event_text(HV_EXT_SVM, (1u << 31) | 0x20, 0, &e), "interrupt vector 32");
	ck_assert(e.valid && e.type_field == 0 && e.ev.vector == 0x20 && !e.ev.has_error);
	ck_assert(e.ev.pending && e.ev.type == EV_EXTINT);
	/* Type 4: INTn. */
	ck_assert_str_eq(event_text(HV_EXT_SVM, (1u << 31) | (4u << 8) | 0x80, 0, &e),
			 "software interrupt vector 128");
	ck_assert_int_eq(e.ev.type, EV_SOFTINT);
	/* #GP with error code 0x10 in 63:32. */
	ck_assert_str_eq(event_text(HV_EXT_SVM, (0x10ull << 32) | (1u << 31) | (1u << 11) | (3u << 8) | 13, 0, &e),
			 "exception vector 13 (#GP) err=0x10");
	ck_assert(e.ev.has_error);
	ck_assert_uint_eq(e.ev.error_code, 0x10);
	ck_assert_int_eq(e.ev.type, EV_EXCEPTION);
	/* Type 6 is reserved in EXITINTINFO, a software exception in VMX
	 * (SDM Vol.3 24.9.3: INT3/INTO). */
	ck_assert_str_eq(event_text(HV_EXT_SVM, (1u << 31) | (6u << 8) | 3, 0, &e), "reserved type 6 vector 3");
	ck_assert(e.valid && !e.ev.pending);
	ck_assert_str_eq(event_text(HV_EXT_VMX, (1u << 31) | (6u << 8) | 3, 0, &e),
			 "software exception vector 3 (#BP)");
	ck_assert_int_eq(e.ev.type, EV_SOFTEXC);
	ck_assert_str_eq(event_text(HV_EXT_VMX, (1u << 31) | (5u << 8) | 1, 0, &e),
			 "privileged software exception vector 1 (#DB)");
	ck_assert_int_eq(e.ev.type, EV_PRIV_SOFTEXC);
	ck_assert_str_eq(event_text(HV_EXT_VMX, (1u << 31) | 0x30, 0, &e), "external interrupt vector 48");
	/* SDM Vol.3 24.9.3: the error code is a field of its own, not bits
	 * 63:32 of the information. */
	ck_assert_str_eq(event_text(HV_EXT_VMX, (0x99ull << 32) | (1u << 31) | (1u << 11) | (3u << 8) | 14, 0x6, &e),
			 "hardware exception vector 14 (#PF) err=0x6");
	/* Type 7, "other event", is no event of the core. */
	ck_assert_str_eq(event_text(HV_EXT_VMX, (1u << 31) | (7u << 8), 0, &e), "other event vector 0");
	ck_assert(!e.ev.pending);
	/* Valid clear: nothing, whatever the other bits hold. */
	ck_assert_str_eq(event_text(HV_EXT_VMX, 0x0b0e, 0, &e), "none");
	/* A buffer too small is cut, never overrun. */
	char tiny[8];
	event_text(HV_EXT_SVM, (1u << 31) | (1u << 11) | (3u << 8) | 14, 0, &e);
	exit_event_format(&e, tiny, sizeof(tiny));
	ck_assert_str_eq(tiny, "excepti");
}
END_TEST

/* The words are printed under their vendor's keys, the event's after the
 * model's words: a VMX report needs no string compare of a vendor name. */
START_TEST(text_line_vmx_words)
{
	struct exit_trace t;
	exit_trace_init(&t, out, false);
	struct vm_exit_report r = {
		.vendor = HV_EXT_VMX, .code = 48, .name = "ept_violation", .cs = 0x08, .rip = 0x1000,
		.code_bits = 32, .now = 3,
		.words = { [EXIT_WORD_VMX_QUALIFICATION] = 0x181, [EXIT_WORD_VMX_GUEST_LINEAR] = 0x1000,
			   [EXIT_WORD_VMX_GUEST_PHYSICAL] = 0x5000,
			   [EXIT_WORD_VMX_IDT_VECTORING] = (1u << 31) | 0x20 },
	};
	exit_report_decode(&r);
	exit_trace_print(&t, 1, &r);
	exit_trace_destroy(&t);
	ck_assert_str_eq(output(), "vmexit #1 vmx ept_violation 0x30 at 0008:00001000 [] \"?\" qualification=0x181 "
			 "guest_linear=0x1000 guest_physical=0x5000 insn_length=0x0 insn_info=0x0 \"\" "
			 "idt_vectoring=0x80000020 idt_error=0x0 \"external interrupt vector 32\" dt=0 t=3\n");
}
END_TEST

START_TEST(gap_buckets)
{
	ck_assert_uint_eq(exit_gap_bucket(0), 0);
	ck_assert_uint_eq(exit_gap_bucket(1), 1);
	ck_assert_uint_eq(exit_gap_bucket(2), 2);
	ck_assert_uint_eq(exit_gap_bucket(3), 2);
	ck_assert_uint_eq(exit_gap_bucket(4), 3);
	ck_assert_uint_eq(exit_gap_bucket(1023), 10);
	ck_assert_uint_eq(exit_gap_bucket(1024), 11);
	ck_assert_uint_eq(exit_gap_bucket(UINT64_MAX), 64);
}
END_TEST

static struct vm_exit_report simple(uint64_t code, const char *name, uint64_t guest_insns)
{
	return (struct vm_exit_report){ .vendor = HV_EXT_SVM, .code = code, .name = name,
					.guest_insns = guest_insns };
}

START_TEST(stats_counts_and_histogram)
{
	struct exit_stats *s = malloc(sizeof(*s));
	exit_stats_init(s);
	struct vm_exit_report a = simple(0x81, "vmmcall", 3), b = simple(0x7b, "ioio", 0),
			      c = simple(UINT64_MAX, "VMEXIT_INVALID", 0);
	for (int i = 0; i < 6; i++)
		exit_stats_add(s, &a, 0);
	exit_stats_add(s, &b, 0);
	exit_stats_add(s, &c, 0);
	exit_stats_add(s, &b, 0);
	a.guest_insns = 1000;
	exit_stats_add(s, &a, 0);
	ck_assert_uint_eq(s->exits, 10);
	ck_assert_uint_eq(s->guest_insns, 6 * 3 + 1000);
	ck_assert_uint_eq(s->n_codes, 3);
	ck_assert_uint_eq(s->gap[0], 3);
	ck_assert_uint_eq(s->gap[2], 6);
	ck_assert_uint_eq(s->gap[10], 1);
	exit_stats_print(s, 2000000, out);
	free(s);
	ck_assert_str_eq(output(),
		"hvemu: stats: 10 VM exits in 2000000 virtual instructions (5.00 per million); "
		"1018 instructions (0.05%) in guests\n"
		"  code                name                             count    share\n"
		"  0x81                vmmcall                              7   70.00%\n"
		"  0x7b                ioio                                 2   20.00%\n"
		"  0xffffffffffffffff  VMEXIT_INVALID                       1   10.00%\n"
		"hvemu: stats: guest instructions from VM entry to exit (log2 buckets):\n"
		"  0                                                     3   30.00%  ####################\n"
		"  1                                                     0    0.00%\n"
		"  2-3                                                   6   60.00%  ########################################\n"
		"  4-7                                                   0    0.00%\n"
		"  8-15                                                  0    0.00%\n"
		"  16-31                                                 0    0.00%\n"
		"  32-63                                                 0    0.00%\n"
		"  64-127                                                0    0.00%\n"
		"  128-255                                               0    0.00%\n"
		"  256-511                                               0    0.00%\n"
		"  512-1023                                              1   10.00%  #######\n"
		/* All at time 0: the six vmmcall exits with 3 guest instructions
		 * each end nothing (an entry before time 0); the rest take 0. */
		"hvemu: stats: L1 handling time, from the exit to the next VM entry (virtual instructions, "
		"log2 buckets):\n"
		"  0x81 vmmcall: 1 handled, mean 0.0, max 0\n"
		"    0                                                   1  100.00%  ########################################\n"
		"  0x7b ioio: 1 handled, mean 0.0, max 0\n"
		"    0                                                   1  100.00%  ########################################\n"
		"  0xffffffffffffffff VMEXIT_INVALID: 1 handled, mean 0.0, max 0\n"
		"    0                                                   1  100.00%  ########################################\n");
}
END_TEST

/* L1's handling time: from an exit to the next VM entry of the same CPU
 * (the next guest run's exit time minus its guest instructions), per code;
 * a VMfail neither starts nor ends one, an entry failure starts one, and two
 * CPUs' times do not mix. */
static struct vm_exit_report at(uint64_t code, const char *name, enum exit_report_kind kind, uint64_t now,
				uint64_t guest_insns)
{
	return (struct vm_exit_report){ .kind = kind, .vendor = HV_EXT_VMX, .code = code, .name = name,
					.now = now, .guest_insns = guest_insns };
}

START_TEST(stats_handling_time)
{
	struct exit_stats *s = malloc(sizeof(*s));
	exit_stats_init(s);
	struct vm_exit_report seq[] = {
		at(18, "VMCALL", EXIT_REPORT_VMEXIT, 100, 10),        /* handled until 150 - 5 = 145: 45 */
		at(10, "CPUID", EXIT_REPORT_VMEXIT, 150, 5),          /* until 300 - 100 = 200: 50 */
		at(7, "VMFAIL", EXIT_REPORT_VMFAIL_VALID, 170, 0),    /* no effect on the running time */
		at(18, "VMCALL", EXIT_REPORT_VMEXIT, 300, 100),       /* until 400 - 0 = 400: 100 */
		at(0x80000021, "INVALID_GUEST_STATE", EXIT_REPORT_ENTRY_FAILURE, 400, 0),  /* until 1000 - 1: 599 */
		at(18, "VMCALL", EXIT_REPORT_VMEXIT, 1000, 1),        /* the run ends: never handled */
	};
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++)
		exit_stats_add(s, &seq[i], 1);
	/* CPU 0's exit while CPU 1 handles: its own clock. */
	struct vm_exit_report other = at(10, "CPUID", EXIT_REPORT_VMEXIT, 120, 0);
	exit_stats_add(s, &other, 0);
	ck_assert_uint_eq(s->n_codes, 4);
	const struct exit_count *vmcall = &s->codes[0], *cpuid = &s->codes[1], *failure = &s->codes[3];
	ck_assert_uint_eq(vmcall->count, 3);
	ck_assert_uint_eq(vmcall->handled, 2);
	ck_assert_uint_eq(vmcall->handle_sum, 45 + 100);
	ck_assert_uint_eq(vmcall->handle_max, 100);
	ck_assert_uint_eq(vmcall->handle_hist[exit_gap_bucket(45)], 1);
	ck_assert_uint_eq(vmcall->handle_hist[exit_gap_bucket(100)], 1);
	ck_assert_uint_eq(cpuid->handled, 1);
	ck_assert_uint_eq(cpuid->handle_sum, 50);
	ck_assert_uint_eq(failure->handled, 1);
	ck_assert_uint_eq(failure->handle_sum, 599);
	exit_stats_print(s, 2000, out);
	free(s);
	const char *printed = output();
	ck_assert_ptr_nonnull(strstr(printed, "hvemu: stats: L1 handling time, from the exit to the next VM entry"));
	ck_assert_ptr_nonnull(strstr(printed, "  0x12 VMCALL: 2 handled, mean 72.5, max 100\n"
					   "    32-63                                               1   50.00%  ########################################\n"
					   "    64-127                                              1   50.00%  ########################################\n"));
	ck_assert_ptr_nonnull(strstr(printed, "  0x80000021 INVALID_GUEST_STATE: 1 handled, mean 599.0, max 599\n"
					   "    512-1023                                            1  100.00%  ########################################\n"));
}
END_TEST

START_TEST(stats_none)
{
	struct exit_stats *s = malloc(sizeof(*s));
	exit_stats_init(s);
	exit_stats_print(s, 42, out);
	free(s);
	ck_assert_str_eq(output(), "hvemu: stats: no VM exits in 42 virtual instructions\n");
}
END_TEST

/* More distinct codes than the table holds: the rest counted together. */
START_TEST(stats_other_codes)
{
	struct exit_stats *s = malloc(sizeof(*s));
	exit_stats_init(s);
	for (uint64_t code = 0; code < EXIT_STATS_CODES + 3; code++) {
		struct vm_exit_report r = simple(code, "c", 0);
		exit_stats_add(s, &r, 0);
	}
	struct vm_exit_report again = simple(5, "c", 0);
	exit_stats_add(s, &again, 0);
	ck_assert_uint_eq(s->n_codes, EXIT_STATS_CODES);
	ck_assert_uint_eq(s->other, 3);
	ck_assert_uint_eq(s->codes[5].count, 2);
	exit_stats_print(s, 0, out);
	free(s);
	ck_assert_ptr_nonnull(strstr(output(), "(0.00 per million)"));
	ck_assert_ptr_nonnull(strstr(output(), "\n  0x5                 c                                    2    0.77%\n"));
	ck_assert_ptr_nonnull(strstr(output(), "\n  (other codes)                                            3    1.15%\n"));
}
END_TEST

/* A code counts per kind: VMfailValid(7) (SDM Vol.3 30.4: invalid control
 * fields) is not exit reason 7 (interrupt window, SDM Vol.3 Appendix C). */
START_TEST(stats_code_per_kind)
{
	struct exit_stats *s = malloc(sizeof(*s));
	exit_stats_init(s);
	struct vm_exit_report window = { .vendor = HV_EXT_VMX, .code = 7, .name = "interrupt_window" },
			      vmfail = { .vendor = HV_EXT_VMX, .kind = EXIT_REPORT_VMFAIL_VALID, .code = 7,
					 .name = "VMfailValid" };
	exit_stats_add(s, &window, 0);
	exit_stats_add(s, &vmfail, 0);
	exit_stats_add(s, &window, 0);
	ck_assert_uint_eq(s->n_codes, 2);
	ck_assert_uint_eq(s->codes[0].count, 2);
	ck_assert_str_eq(s->codes[1].name, "VMfailValid");
	ck_assert_uint_eq(s->codes[1].count, 1);
	free(s);
}
END_TEST

/* The model may reuse one buffer for every exit's name (svm/ does): the
 * table keeps its own copy. */
START_TEST(stats_names_copied)
{
	struct exit_stats *s = malloc(sizeof(*s));
	exit_stats_init(s);
	char name[EXIT_NAME_MAX];
	struct vm_exit_report r = simple(0x72, name, 0);
	strcpy(name, "VMEXIT_CPUID");
	exit_stats_add(s, &r, 0);
	strcpy(name, "VMEXIT_HLT");
	r.code = 0x78;
	exit_stats_add(s, &r, 0);
	strcpy(name, "overwritten");
	/* A name longer than the table keeps is cut, not overrun. */
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	r.code = 0x81;
	exit_stats_add(s, &r, 0);
	memset(name, 'x', sizeof(name) - 1);
	ck_assert_str_eq(s->codes[0].name, "VMEXIT_CPUID");
	ck_assert_str_eq(s->codes[1].name, "VMEXIT_HLT");
	ck_assert_uint_eq(strlen(s->codes[2].name), EXIT_NAME_MAX - 1);
	ck_assert_int_eq(s->codes[2].name[0], 'n');
	free(s);
}
END_TEST

static struct vm_exit_report stuck_pf(void)
{
	return (struct vm_exit_report){ .vendor = HV_EXT_SVM, .code = 0x4e, .name = "excp_pf",
					.words = { 4, 0x1001316b0ull }, .cs = 8, .rip = 0x401000, .code_bits = 32 };
}

START_TEST(livelock_fires_at_limit)
{
	struct livelock l;
	livelock_init(&l, 5);
	struct vm_exit_report r = stuck_pf();
	r.guest_insns = 12;            /* the first may follow progress */
	ck_assert(!livelock_observe(&l, 1, &r));
	r.guest_insns = 0;
	for (uint64_t n = 2; n <= 4; n++)
		ck_assert(!livelock_observe(&l, n, &r));
	ck_assert_uint_eq(l.repeats, 4);
	ck_assert(livelock_observe(&l, 5, &r));
	ck_assert(l.fired);
	ck_assert_uint_eq(l.repeats, 5);
	ck_assert_uint_eq(l.first_n, 1);
	ck_assert(!livelock_observe(&l, 6, &r));     /* once */
}
END_TEST

/* The exit kept for the report owns its strings. */
START_TEST(livelock_keeps_strings)
{
	struct livelock l;
	livelock_init(&l, 2);
	char name[16] = "excp_pf", check[32] = "a check";
	struct vm_exit_report r = stuck_pf();
	r.name = name;
	r.failed_check = check;
	ck_assert(!livelock_observe(&l, 1, &r));
	ck_assert(livelock_observe(&l, 2, &r));
	strcpy(name, "gone");
	strcpy(check, "gone too");
	ck_assert_str_eq(l.exit.name, "excp_pf");
	ck_assert_str_eq(l.exit.failed_check, "a check");
	ck_assert_int_eq(l.exit.vendor, HV_EXT_SVM);
	ck_assert_uint_eq(l.exit.words[EXIT_WORD_SVM_EXITINFO2], 0x1001316b0ull);
}
END_TEST

/* Each of code, rIP, info1, info2 and progress starts a new run. */
START_TEST(livelock_resets)
{
	struct livelock l;
	livelock_init(&l, 3);
	struct vm_exit_report r = stuck_pf(), other, fresh = simple(0x60, "intr", 0);
	uint64_t n = 0;
	for (int field = 0; field < 5; field++) {
		ck_assert(!livelock_observe(&l, ++n, &fresh));
		ck_assert(!livelock_observe(&l, ++n, &r));
		ck_assert(!livelock_observe(&l, ++n, &r));
		other = r;
		switch (field) {
		case 0: other.code++; break;
		case 1: other.rip++; break;
		case 2: other.words[EXIT_WORD_SVM_EXITINFO1]++; break;
		case 3: other.words[EXIT_WORD_SVM_EXITINFO2]++; break;
		case 4: other.guest_insns = 1; break;
		}
		ck_assert(!livelock_observe(&l, ++n, &other));
		ck_assert_uint_eq(l.repeats, 1);
		ck_assert_uint_eq(l.first_n, n);
		/* Back: a run of one again, but after progress the run starts
		 * with the exit that ended the progress. */
		ck_assert(!livelock_observe(&l, ++n, &r));
		ck_assert_uint_eq(l.repeats, field == 4 ? 2 : 1);
	}
	/* Intinfo and CS are not compared. */
	ck_assert(!livelock_observe(&l, ++n, &fresh));
	ck_assert(!livelock_observe(&l, ++n, &r));
	ck_assert(!livelock_observe(&l, ++n, &r));
	other = r;
	other.words[EXIT_WORD_SVM_EXITINTINFO] = 0x80000020;
	other.now = 99;
	other.cs = 0x10;
	ck_assert(livelock_observe(&l, ++n, &other));
}
END_TEST

/* --perturb-exits: a word the model marks randomised (drawn where the
 * manual leaves it undefined) does not make an exit another, on either side
 * of the comparison; the words not marked still do. */
START_TEST(livelock_ignores_randomised_words)
{
	struct livelock l;
	livelock_init(&l, 4);
	struct vm_exit_report r = stuck_pf();
	r.randomised = 1u << EXIT_WORD_SVM_EXITINFO2;
	uint64_t n = 0;
	for (uint64_t i = 0; i < 3; i++) {
		r.words[EXIT_WORD_SVM_EXITINFO2] = 0x9e3779b97f4a7c15ull * (i + 1);
		ck_assert(!livelock_observe(&l, ++n, &r));
	}
	ck_assert_uint_eq(l.repeats, 3);
	/* The kept exit's mask counts too: this one randomised nothing. */
	struct vm_exit_report plain = r;
	plain.randomised = 0;
	plain.words[EXIT_WORD_SVM_EXITINFO2] = 1;
	ck_assert(livelock_observe(&l, ++n, &plain));
	/* EXITINFO1 is not marked: a new value is another exit. */
	livelock_init(&l, 4);
	ck_assert(!livelock_observe(&l, ++n, &r));
	r.words[EXIT_WORD_SVM_EXITINFO1]++;
	ck_assert(!livelock_observe(&l, ++n, &r));
	ck_assert_uint_eq(l.repeats, 1);
}
END_TEST

START_TEST(livelock_off)
{
	struct livelock l;
	livelock_init(&l, 0);
	struct vm_exit_report r = stuck_pf();
	for (uint64_t n = 1; n <= 100000; n++)
		ck_assert(!livelock_observe(&l, n, &r));
	ck_assert(!l.fired);
}
END_TEST

/* The VMMCALL benchmark's pattern: identical exits, but the guest runs in
 * between: never a livelock. */
START_TEST(livelock_not_on_progress)
{
	struct livelock l;
	livelock_init(&l, 10);
	struct vm_exit_report r = { .vendor = HV_EXT_SVM, .code = 0x81, .name = "vmmcall", .rip = 0x2000,
				    .guest_insns = 2 };
	for (uint64_t n = 1; n <= 1000; n++)
		ck_assert(!livelock_observe(&l, n, &r));
}
END_TEST

START_TEST(watch_attach)
{
	struct cpu *cpu = calloc(1, sizeof(*cpu));
	struct exit_watch *w = malloc(sizeof(*w));
	exit_watch_init(w, &(struct exit_watch_config){ 0 }, out);
	cpu->exit_observer = (const struct vm_exit_observer *)1;
	exit_watch_attach(w, cpu);
	ck_assert_ptr_null(cpu->exit_observer);      /* nothing watches: no cost */
	exit_watch_destroy(w);
	exit_watch_init(w, &(struct exit_watch_config){ .livelock = 1 }, out);
	exit_watch_attach(w, cpu);
	ck_assert_ptr_eq(cpu->exit_observer, &w->observer);
	ck_assert_ptr_eq(cpu->exit_observer->ctx, w);
	exit_watch_destroy(w);
	exit_watch_init(w, &(struct exit_watch_config){ .stats = true }, out);
	exit_watch_attach(w, cpu);
	ck_assert_ptr_nonnull(cpu->exit_observer);
	exit_watch_destroy(w);
	free(w);
	free(cpu);
}
END_TEST

/* Through the observer: trace lines numbered, stats counted, the livelock
 * stops the CPU and is reported with the last exit's line. */
START_TEST(watch_observer_livelock)
{
	struct cpu *cpu = calloc(1, sizeof(*cpu));
	struct exit_watch *w = malloc(sizeof(*w));
	exit_watch_init(w, &(struct exit_watch_config){ .trace = true, .stats = true, .livelock = 3 }, out);
	exit_watch_attach(w, cpu);
	struct vm_exit_report io = ioio_exit(), pf = stuck_pf();
	cpu->exit_observer->exit(cpu->exit_observer->ctx, cpu, &io);
	for (int i = 0; i < 2; i++)
		cpu->exit_observer->exit(cpu->exit_observer->ctx, cpu, &pf);
	ck_assert(!cpu->stop_requested);
	ck_assert(!exit_watch_livelocked(w));
	pf.now = 77;
	cpu->exit_observer->exit(cpu->exit_observer->ctx, cpu, &pf);
	ck_assert(cpu->stop_requested);
	ck_assert(cpu->attention & ATT_STOP);
	ck_assert(exit_watch_livelocked(w));
	ck_assert_uint_eq(w->stats.exits, 4);
	exit_watch_report_livelock(w);
	exit_watch_destroy(w);
	free(w);
	free(cpu);
	const char *s = output();
	ck_assert_ptr_nonnull(strstr(s, "vmexit #1 svm ioio 0x7b at 0008:00100020"));
	ck_assert_ptr_nonnull(strstr(s, "\nvmexit #4 svm excp_pf 0x4e at 0008:00401000"));
	ck_assert_ptr_nonnull(strstr(s, "\nhvemu: livelock: svm exit excp_pf (0x4e) at 0008:00401000 repeated 3 "
				     "times in a row (exits #2 to #4) with no guest instruction in between; "
				     "the last one:\nvmexit #4 svm excp_pf 0x4e at 0008:00401000 [] \"?\" info1=0x4 "
				     "info2=0x1001316b0 \"\" intinfo=0x0 \"none\" dt=0 t=77\n"));
}
END_TEST

static Suite *exit_watch_suite(void)
{
	Suite *s = suite_create("exit_watch");
	TCase *tc = tcase_create("trace");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, text_line_ioio);
	tcase_add_test(tc, text_line_event_64);
	tcase_add_test(tc, text_line_invalid);
	tcase_add_test(tc, text_line_bad_bytes_escapes);
	tcase_add_test(tc, json_line_ioio);
	tcase_add_test(tc, json_line_nulls_event_escapes);
	tcase_add_test(tc, json_insn_fifteen_bytes);
	tcase_add_test(tc, long_line_cut);
	tcase_add_test(tc, event_decode_svm_vmx);
	tcase_add_test(tc, text_line_vmx_words);
	suite_add_tcase(s, tc);
	tc = tcase_create("stats");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, gap_buckets);
	tcase_add_test(tc, stats_counts_and_histogram);
	tcase_add_test(tc, stats_handling_time);
	tcase_add_test(tc, stats_none);
	tcase_add_test(tc, stats_other_codes);
	tcase_add_test(tc, stats_code_per_kind);
	tcase_add_test(tc, stats_names_copied);
	suite_add_tcase(s, tc);
	tc = tcase_create("livelock");
	tcase_add_test(tc, livelock_fires_at_limit);
	tcase_add_test(tc, livelock_keeps_strings);
	tcase_add_test(tc, livelock_resets);
	tcase_add_test(tc, livelock_ignores_randomised_words);
	tcase_add_test(tc, livelock_off);
	tcase_add_test(tc, livelock_not_on_progress);
	suite_add_tcase(s, tc);
	tc = tcase_create("observer");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, watch_attach);
	tcase_add_test(tc, watch_observer_livelock);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(exit_watch_suite());
}
