/* The harness both exit fuzzers share: fuzz/exit_fuzz_common.h. */
#include "fuzz/exit_fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz/fuzz.h"
#include "fuzz/status.h"

/* The restore times kept for the median: a ring, so that a long run's
 * median is of its recent restores. */
#define RESET_SAMPLES 8192

static const struct exit_fuzz_target *target;
static struct {
	bool on, no_abort, verify, time_resets;
	uint64_t execs, disagreements;
	struct timespec start;
	double reset_us[RESET_SAMPLES];
	unsigned n_reset;
} stats;
static struct fuzz_status status;
static const char *row_path;

bool exit_fuzz_env_on(const char *name)
{
	const char *v = getenv(name);
	return v && *v && *v != '0';
}

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double exit_fuzz_reset_median(void)
{
	qsort(stats.reset_us, stats.n_reset, sizeof(double), compare_double);
	return stats.n_reset ? stats.reset_us[stats.n_reset / 2] : 0.0;
}

uint64_t exit_fuzz_execs(void)
{
	return stats.execs;
}

bool exit_fuzz_stats_on(void)
{
	return stats.on;
}

const char *exit_fuzz_row_path(void)
{
	return row_path;
}

void exit_fuzz_print_stats(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double secs = seconds_between(&stats.start, &now);
	target->print_coverage();
	fprintf(stderr, "%s: %llu execs in %.1f s: %.0f execs/s; %llu disagreements\n", target->name,
		(unsigned long long)stats.execs, secs, secs > 0 ? (double)stats.execs / secs : 0.0,
		(unsigned long long)stats.disagreements);
	if (stats.n_reset) {
		double median = exit_fuzz_reset_median();   /* sorts the samples: then the p90 */
		fprintf(stderr, "%s: reset median %.2f us, p90 %.2f us (%u samples)\n", target->name, median,
			stats.reset_us[stats.n_reset * 9 / 10], stats.n_reset);
	}
}

static void end_status(void)
{
	fuzz_status_break(&status);
}

static const char *expect;                 /* HVEMU_FUZZ_EXPECT */

static void expectation_unmet(void)
{
	fprintf(stderr, "%s: no disagreement on %s was found\n", target->name, expect);
	_Exit(1);
}

void exit_fuzz_start(const struct exit_fuzz_target *t)
{
	target = t;
	stats.on = exit_fuzz_env_on("HVEMU_FUZZ_STATS");
	stats.no_abort = exit_fuzz_env_on("HVEMU_FUZZ_NOABORT");
	stats.verify = exit_fuzz_env_on("HVEMU_FUZZ_VERIFY");
	clock_gettime(CLOCK_MONOTONIC, &stats.start);
	if (stats.on)
		atexit(exit_fuzz_print_stats);
	fuzz_status_init(&status, t->name);
	if (status.on)
		atexit(end_status);        /* runs before exit_fuzz_print_stats */
	/* The status line may show the restore median: time the restores for
	 * it as for the statistics, and only then (two clock reads an exec). */
	stats.time_resets = stats.on || status.on;
	row_path = getenv("HVEMU_FUZZ_ROW");
	if (row_path && !*row_path)
		row_path = NULL;
	expect = getenv("HVEMU_FUZZ_EXPECT");
	if (expect && *expect)
		atexit(expectation_unmet);
	else
		expect = NULL;
}

void exit_fuzz_bench_from_env(void)
{
	const char *bench = getenv("HVEMU_FUZZ_BENCH");
	if (!bench || !*bench)
		return;
	unsigned long count = strtoul(bench, NULL, 0);
	static uint8_t buf[512];
	/* the operands of each enum exit_bench_op: a load from DATA + 8, a
	 * store to DATA + 16, OUT imm8 to port 80h, INVLPG DATA, MOV from DR1 */
	static const uint8_t operands[8][4] = {
		[EXIT_BENCH_LOAD] = { 0, 8 }, [EXIT_BENCH_STORE] = { 0, 16 }, [EXIT_BENCH_MOV_FROM_DR] = { 0, 1 },
	};
	size_t len = target->bench_header_len;
	memcpy(buf, target->bench_header, len);
	buf[len++] = 63;                   /* 64 templates */
	for (unsigned k = 0; k < 64; k++) {
		buf[len++] = target->bench_ops[k % 8];
		memcpy(buf + len, operands[k % 8], 4);
		len += 4;
	}
	stats.on = stats.time_resets = true;
	stats.n_reset = 0;
	uint64_t insns = 0;
	struct timespec a, b;
	LLVMFuzzerTestOneInput(buf, len);  /* warm: the first exec decodes */
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned long i = 0; i < count; i++) {
		LLVMFuzzerTestOneInput(buf, len);
		/* what the exec's L1 and L2 retired (the restore rewinds icount) */
		insns += target->cpu->icount - target->snap->cpu_state.icount;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double secs = seconds_between(&a, &b);
	printf("%s bench: %lu execs (entry + %.0f instructions + exit) in %.2f s: %.0f execs/s; "
	       "reset median %.2f us\n", target->name, count, count ? (double)insns / (double)count : 0.0, secs,
	       secs > 0 ? (double)count / secs : 0.0, exit_fuzz_reset_median());
	exit(0);
}

static void print_status(void)
{
	char extra[256];
	target->status_extra(extra, sizeof(extra), stats.disagreements);
	fuzz_status_print(&status, stats.execs, extra);
}

void exit_fuzz_restore(void)
{
	if (stats.time_resets) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		snapshot_restore(target->snap);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		unsigned slot = stats.n_reset < RESET_SAMPLES ? stats.n_reset++ : (unsigned)(stats.execs % RESET_SAMPLES);
		stats.reset_us[slot] = seconds_between(&t0, &t1) * 1e6;
	} else {
		snapshot_restore(target->snap);
	}
	if (stats.verify && snapshot_ram_differs(target->snap)) {
		fprintf(stderr, "%s: RAM differs from the snapshot after a restore\n", target->name);
		abort();
	}
	stats.execs++;
	if (fuzz_status_due(&status) && fuzz_status_tick(&status, stats.execs))
		print_status();
}

void exit_fuzz_row_comment(char *buf, size_t size, const char *expectation, bool disagreed,
			   const char *disagreement, bool unknown, const char *unknown_why)
{
	snprintf(buf, size, "expect: %s\noracle: %s%s", expectation,
		 disagreed ? "DISAGREED on " : unknown ? "unknown: " : "agreed",
		 disagreed ? (disagreement ? disagreement : "?") : unknown ? unknown_why : "");
}

void exit_fuzz_disagreed(const uint8_t *data, size_t size, const char *field)
{
	if (expect && field && strcmp(field, expect) == 0) {
		fprintf(stderr, "%s: found the expected disagreement on %s after %llu execs\n", target->name, expect,
			(unsigned long long)stats.execs);
		if (stats.on)
			exit_fuzz_print_stats();
		_Exit(0);
	}
	stats.disagreements++;
	const char *dir = getenv("HVEMU_FUZZ_SAVE");
	if (dir && *dir) {
		char path[512];
		snprintf(path, sizeof(path), "%s/disagree-%llu", dir, (unsigned long long)stats.disagreements);
		FILE *f = fopen(path, "wb");
		if (f) {
			fwrite(data, 1, size, f);
			fclose(f);
			fprintf(stderr, "%s: saved %s\n", target->name, path);
		}
	}
	if (!stats.no_abort)
		abort();
}
