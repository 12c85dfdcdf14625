/* The harness both exit fuzzers share (fuzz/exit_fuzz_common.c): the
 * environment they read alike, the restore before each exec (timed, and
 * checked with HVEMU_FUZZ_VERIFY), the statistics and the live status line,
 * the bench (HVEMU_FUZZ_BENCH) and what a disagreement does (count, save the
 * input, abort). What an exec builds, predicts and compares is the vendor's
 * (svm_exit_fuzz.c, vmx_exit_fuzz.c): the VMCB against APM2 chapter 15, the
 * VMCS against SDM Vol.3 chapters 24-27.
 *
 * Environment read here:
 *   HVEMU_FUZZ_STATS=1        at exit: the oracle's coverage, execs/s, reset median
 *   HVEMU_FUZZ_NOABORT=1      count disagreements instead of aborting
 *   HVEMU_FUZZ_VERIFY=1       after each restore compare all of RAM with the snapshot
 *   HVEMU_FUZZ_BENCH=n        time n execs of the target's bench input, print, exit
 *   HVEMU_FUZZ_SAVE=dir       write each disagreeing input to dir (with HVEMU_FUZZ_NOABORT)
 *   HVEMU_FUZZ_ROW=file       where the target writes the exec as a reproducer row
 *   HVEMU_FUZZ_STATUS=1/0     the live status line (fuzz/status.h)
 * A process runs one target: the state is the file's.
 */
#ifndef HVEMU_FUZZ_EXIT_FUZZ_COMMON_H
#define HVEMU_FUZZ_EXIT_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/cpu.h"
#include "fuzz/snapshot.h"

struct exit_fuzz_target {
	const char *name;                  /* "svm_exit_fuzz": every message's prefix */
	struct snapshot *snap;             /* restored before each exec */
	const struct cpu *cpu;             /* the bench counts its instructions */
	void (*print_coverage)(void);      /* the oracle's table (HVEMU_FUZZ_STATS) */
	/* The oracle's part of the status line, with the findings so far. */
	void (*status_extra)(char *buf, size_t size, uint64_t disagreements);
	/* The bench's input: the vendor's bytes up to the template count (a
	 * 32-bit guest, HLT exiting, nothing else), then 64 templates that do
	 * not exit, cycling through bench_ops[] (enum exit_bench_op). */
	const uint8_t *bench_header;
	size_t bench_header_len;
	uint8_t bench_ops[8];
};

/* The bench's templates, the vendor's number of each in this order: about
 * 100 guest instructions an exec (the set-up MOVs included), memory accesses
 * through the TLB, I/O to an unclaimed port. */
enum exit_bench_op {
	EXIT_BENCH_NOP, EXIT_BENCH_LOAD, EXIT_BENCH_STORE, EXIT_BENCH_PAUSE, EXIT_BENCH_OUT,
	EXIT_BENCH_INVLPG, EXIT_BENCH_MOV_FROM_DR, EXIT_BENCH_WBINVD,
};

/* An environment switch: set, not empty, not "0". */
bool exit_fuzz_env_on(const char *name);

/* The first exec's set-up, after the machine's: read the environment,
 * register the statistics and the status line's end at exit. */
void exit_fuzz_start(const struct exit_fuzz_target *t);

/* With HVEMU_FUZZ_BENCH=n: time n execs, print, exit(0). Else return. Call
 * once the target is ready for the exec it is called from. */
void exit_fuzz_bench_from_env(void);

/* Before each exec: restore the snapshot (timed when statistics or the
 * status line want it), verify it with HVEMU_FUZZ_VERIFY, count the exec,
 * print the status line when due. */
void exit_fuzz_restore(void);

/* The exec count, the restore median in microseconds (0 without samples). */
uint64_t exit_fuzz_execs(void);
double exit_fuzz_reset_median(void);

/* The statistics, as at exit (when HVEMU_FUZZ_STATS is on). */
bool exit_fuzz_stats_on(void);
void exit_fuzz_print_stats(void);

/* HVEMU_FUZZ_ROW's file, NULL when unset. */
const char *exit_fuzz_row_path(void);

/* The comment of a reproducer row: what its expect lines hold, then how the
 * oracle judged the exec (agreed, unknown and why, or the field disagreed on). */
void exit_fuzz_row_comment(char *buf, size_t size, const char *expectation, bool disagreed,
			   const char *disagreement, bool unknown, const char *unknown_why);

/* A disagreement on field, after the target printed its details: with
 * HVEMU_FUZZ_EXPECT=field, the test that the oracle finds a known bug
 * passes (exit 0; at exit without one it fails, exit 1); else count it, save
 * the input (HVEMU_FUZZ_SAVE), abort unless HVEMU_FUZZ_NOABORT. */
void exit_fuzz_disagreed(const uint8_t *data, size_t size, const char *field);

#endif
