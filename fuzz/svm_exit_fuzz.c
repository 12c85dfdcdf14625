/* Fuzz target: the SVM #VMEXIT encodings against an executable reading of
 * the APM (fuzz/svm_oracle.c). An L1 stopped at its VMRUN is restored from a
 * snapshot (fuzz/snapshot.h); the input, read as a structure, builds the
 * VMCB (intercepts, permission-map bits, guest state mutated through typed
 * operators) and 1..64 L2 instruction templates; the L1 runs one VMRUN, the
 * guest runs to its #VMEXIT (or halts), and the oracle's prediction of every
 * field of the exit is compared with what hvemu wrote. A disagreement prints
 * the field, both values and the rule's citation, then aborts: a finding.
 *
 * Environment:
 *   HVEMU_FUZZ_QUIRK=name     create the SVM model with that quirk (emu/quirks.def)
 *   HVEMU_FUZZ_STATS=1        at exit: rule coverage, execs/s, reset median
 *   HVEMU_FUZZ_NOABORT=1      count disagreements instead of aborting
 *   HVEMU_FUZZ_VERIFY=1       after each restore compare all of RAM with the snapshot
 *   HVEMU_FUZZ_TRACE=list     hvemu's trace classes (emu/trace.h: insn,exc,io,pf)
 *   HVEMU_FUZZ_EXPECT=field   a test that the oracle finds a known bug: exit 0 at the first
 *                             disagreement on that field ("EXITINFO2"), 1 if the run ends
 *                             without one
 *   HVEMU_FUZZ_STRICT=1       the oracle decides its open questions by the APM's
 *                             general rules (fuzz/findings/README.md)
 *   HVEMU_FUZZ_BENCH=n        time n execs of one entry + 64 templates that do not exit +
 *                             an intercepted HLT, print execs/s and the reset median, exit
 *   HVEMU_FUZZ_SAVE=dir       write each disagreeing input to dir (with HVEMU_FUZZ_NOABORT)
 *   HVEMU_FUZZ_ROW=file       write the exec as a reproducer row (fuzz/svm_exit_row.h); with
 *                             several inputs, the last one's
 *   HVEMU_FUZZ_STATUS=1/0     the live status line (fuzz/status.h)
 *
 * Input (bytes past the end read as 0):
 *   0      guest: bit 0 64-bit; bit 1 data segment bases 4000_0000h (32-bit);
 *          bits 3:2 IDT (L2 IDT, the hole page, base FFFF_FF00h, L2 IDT limit 3Fh);
 *          bit 4 CR4.OSXSAVE; bit 5 16-bit gates in the L2 IDT
 *   1-4    CR read/write intercepts (word 0), 5-8 DR (word 1)
 *   9      exception intercepts: #DE #BP #UD #GP #PF #SS #DB #NP
 *   10-13  instruction intercepts, one bit per entry of svm_exit_misc_intercepts[]
 *   14     mutations: count in bits 2:0, then 3 bytes each
 *   ...    templates: count 1..64, then 5 bytes each (op, 4 operands)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz/fuzz.h"
#include "fuzz/status.h"
#include "fuzz/svm_exit_fuzz.h"
#include "fuzz/svm_exit_row.h"
#include "svm/bitmaps.h"

/* ---- statistics ---- */

#define RESET_SAMPLES 8192
static struct {
	bool on;
	bool no_abort;
	bool verify;
	uint64_t execs, disagreements;
	struct timespec start;
	double reset_us[RESET_SAMPLES];
	unsigned n_reset;
} stats;

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void print_stats(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double secs = (double)(now.tv_sec - stats.start.tv_sec) + (double)(now.tv_nsec - stats.start.tv_nsec) / 1e9;
	oracle_print_coverage();
	qsort(stats.reset_us, stats.n_reset, sizeof(double), compare_double);
	fprintf(stderr, "svm_exit_fuzz: %llu execs in %.1f s: %.0f execs/s; %llu disagreements\n",
		(unsigned long long)stats.execs, secs, secs > 0 ? (double)stats.execs / secs : 0.0,
		(unsigned long long)stats.disagreements);
	if (stats.n_reset)
		fprintf(stderr, "svm_exit_fuzz: reset median %.2f us, p90 %.2f us (%u samples)\n",
			stats.reset_us[stats.n_reset / 2], stats.reset_us[stats.n_reset * 9 / 10], stats.n_reset);
}

static const char *expect;

static void expectation_unmet(void)
{
	fprintf(stderr, "svm_exit_fuzz: no disagreement on %s was found\n", expect);
	_Exit(1);
}

static bool env_on(const char *name)
{
	const char *v = getenv(name);
	return v && *v && *v != '0';
}

static struct machine m;
static struct fuzz_status status;
static const char *row_path;               /* HVEMU_FUZZ_ROW */

/* The status line (fuzz/status.h) with the oracle's coverage: rules seen
 * to hold and not to hold, exit x EXITINFO shape cells, and findings. */
static void print_status(void)
{
	struct oracle_coverage_summary c;
	oracle_coverage_summary(&c);
	char extra[192];
	snprintf(extra, sizeof(extra), "rules %u both ways + %u one way of %u, %u exit cells, %.0f%% unknown, %llu findings",
		 c.rules_both_ways, c.rules_one_way, c.rules, c.cells,
		 c.predictions ? 100.0 * (double)c.unknown / (double)c.predictions : 0.0,
		 (unsigned long long)stats.disagreements);
	fuzz_status_print(&status, stats.execs, extra);
}

static void end_status(void)
{
	fuzz_status_break(&status);
}

/* Instructions the last exec's L1 and L2 retired (the restore rewinds icount). */
static uint64_t m_icount(void)
{
	return m.cpu.icount - m.snap.cpu_state.icount;
}

/* ---- the exec/s measure ---- */

/* The input of one bench exec: a 32-bit guest, HLT intercepted, and 64
 * templates that do not exit: about 100 guest instructions (the set-up MOVs
 * included), memory accesses through the TLB, I/O to an unclaimed port. */
static size_t bench_input(uint8_t *buf)
{
	size_t n = 0;
	buf[n++] = 0;                      /* 32-bit guest */
	n += 8;                            /* no CR/DR intercepts */
	buf[n++] = 0;                      /* no exception intercepts */
	buf[n++] = 1u << 4;                /* misc: HLT */
	buf[n++] = 0, buf[n++] = 0, buf[n++] = 0;
	buf[n++] = 0;                      /* no mutations */
	buf[n++] = 63;                     /* 64 templates */
	static const uint8_t ops[8][5] = {
		{ OP_NOP }, { OP_LOAD, 0, 8 }, { OP_STORE, 0, 16 }, { OP_PAUSE },
		{ OP_OUT, 0, 0, 0, 0 }, { OP_INVLPG, 0, 0 }, { OP_MOV_FROM_DR, 0, 1 }, { OP_WBINVD },
	};
	for (unsigned k = 0; k < 64; k++)
		for (unsigned j = 0; j < 5; j++)
			buf[n++] = ops[k % 8][j];
	return n;
}

static void run_bench(unsigned long count)
{
	static uint8_t buf[512];
	size_t len = bench_input(buf);
	stats.on = true;
	stats.n_reset = 0;
	uint64_t insns = 0;
	struct timespec a, b;
	LLVMFuzzerTestOneInput(buf, len);  /* warm: the first exec decodes */
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned long i = 0; i < count; i++) {
		LLVMFuzzerTestOneInput(buf, len);
		insns += m_icount();
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	qsort(stats.reset_us, stats.n_reset, sizeof(double), compare_double);
	printf("svm_exit_fuzz bench: %lu execs (entry + %.0f instructions + exit) in %.2f s: %.0f execs/s; "
	       "reset median %.2f us\n", count, count ? (double)insns / (double)count : 0.0, secs,
	       secs > 0 ? (double)count / secs : 0.0, stats.n_reset ? stats.reset_us[stats.n_reset / 2] : 0.0);
	exit(0);
}

/* ---- one exec ---- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	if (!ready) {
		svm_exit_machine_init(&m);
		stats.on = env_on("HVEMU_FUZZ_STATS");
		stats.no_abort = env_on("HVEMU_FUZZ_NOABORT");
		stats.verify = env_on("HVEMU_FUZZ_VERIFY");
		clock_gettime(CLOCK_MONOTONIC, &stats.start);
		if (stats.on)
			atexit(print_stats);
		fuzz_status_init(&status, "svm_exit_fuzz");
		if (status.on)
			atexit(end_status);   /* runs before print_stats */
		oracle_strict = env_on("HVEMU_FUZZ_STRICT");
		row_path = getenv("HVEMU_FUZZ_ROW");
		if (row_path && !*row_path)
			row_path = NULL;
		expect = getenv("HVEMU_FUZZ_EXPECT");
		if (expect && *expect)
			atexit(expectation_unmet);
		else
			expect = NULL;
		ready = true;
		const char *bench = getenv("HVEMU_FUZZ_BENCH");
		if (bench && *bench)
			run_bench(strtoul(bench, NULL, 0));
	}
	struct timespec t0, t1;
	if (stats.on)
		clock_gettime(CLOCK_MONOTONIC, &t0);
	snapshot_restore(&m.snap);
	if (stats.on) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (stats.n_reset < RESET_SAMPLES)
			stats.reset_us[stats.n_reset++] =
				(double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3;
	}
	if (stats.verify && snapshot_ram_differs(&m.snap)) {
		fprintf(stderr, "svm_exit_fuzz: RAM differs from the snapshot after a restore\n");
		abort();
	}
	stats.execs++;
	if (fuzz_status_due(&status) && fuzz_status_tick(&status, stats.execs))
		print_status();

	static struct svm_exit_exec e;
	svm_exit_decode(&e, data, size);
	svm_exit_load(&m, &e);
	uint8_t guest = e.guest;
	const struct oracle_insn *insns = e.insns;
	unsigned n = e.n_insns - 1;
	struct oracle_input oin = svm_exit_oracle_input(&m, &e);
	struct oracle_prediction pred;
	oracle_predict(&oin, &pred);

	m.failed_check = NULL;
	status_t st = cpu_run(&m.cpu);
	struct oracle_actual act = { .vmcb = (const struct vmcb *)(const void *)(m.pm.ram + VMCB_PA),
				     .halted_in_guest = m.cpu.in_guest, .failed_check = m.failed_check };
	unsigned bad = 0;
	if (st != ST_HALT) {
		/* The L1 halts after the #VMEXIT; a guest that neither exits nor
		 * halts within the limit is a disagreement only where the oracle
		 * predicted something. */
		if (pred.outcome != OUT_UNKNOWN) {
			fprintf(stderr, "svm_exit_fuzz: cpu_run returned %d (in guest %d), the oracle predicted %s\n",
				(int)st, (int)m.cpu.in_guest, pred.outcome == OUT_EXIT ? "an exit" : "a halt");
			bad = 1;
		}
	} else if (pred.outcome != OUT_UNKNOWN && !m.cpu.in_guest && m.cpu.rip != L1_CODE + 4) {
		/* Only where the oracle predicted: a guest it does not model may
		 * overwrite the L1's code (without paging all of RAM is its). */
		fprintf(stderr, "svm_exit_fuzz: the L1 did not return to its HLT (rip %#llx)\n",
			(unsigned long long)m.cpu.rip);
		bad = 1;
	} else {
		bad = oracle_compare(&oin, &pred, &act);
	}
	if (row_path && st == ST_HALT) {
		/* The exec as a reproducer row, hvemu's exit as its expectation. */
		char comment[256];
		snprintf(comment, sizeof(comment), "%s\noracle: %s%s", "expect: hvemu's exit when the row was written",
			 bad ? "DISAGREED on " : pred.outcome == OUT_UNKNOWN ? "unknown: " : "agreed",
			 bad ? (oracle_last_disagreement ? oracle_last_disagreement : "?") :
			 pred.outcome == OUT_UNKNOWN ? pred.unknown_why : "");
		struct svm_exit_image image = { .vmcb = &e.vmcb, .code = e.as.buf, .code_len = e.as.len,
						.iopm = e.iopm_bits, .msrpm = e.msrpm_bits };
		if (!svm_exit_row_write(row_path, comment, &image, act.vmcb, m.cpu.in_guest))
			fprintf(stderr, "svm_exit_fuzz: %s: cannot write the row\n", row_path);
	}
	if (bad && expect && oracle_last_disagreement && strcmp(oracle_last_disagreement, expect) == 0) {
		fprintf(stderr, "svm_exit_fuzz: found the expected disagreement on %s after %llu execs\n", expect,
			(unsigned long long)stats.execs);
		if (stats.on)
			print_stats();
		_Exit(0);
	}
	if (bad) {
		stats.disagreements++;
		fprintf(stderr, "svm_exit_fuzz: %s guest, %u templates:", guest & 1 ? "64-bit" : "32-bit", n);
		for (unsigned k = 0; k <= n; k++)
			fprintf(stderr, " %u@%llx", insns[k].op, (unsigned long long)insns[k].rip);
		fprintf(stderr, "\n");
		const char *dir = getenv("HVEMU_FUZZ_SAVE");
		if (dir && *dir) {
			char path[512];
			snprintf(path, sizeof(path), "%s/disagree-%llu", dir, (unsigned long long)stats.disagreements);
			FILE *f = fopen(path, "wb");
			if (f) {
				fwrite(data, 1, size, f);
				fclose(f);
				fprintf(stderr, "svm_exit_fuzz: saved %s\n", path);
			}
		}
		if (!stats.no_abort)
			abort();
	}
	return 0;
}
