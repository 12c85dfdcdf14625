/* What a run's VM exits add up to (--stats), and the livelock detector: both
 * fed one struct vm_exit_report (emu/exit_report.h) per exit, in order. README
 * "Watching VM exits" fixes the printed form. */
#ifndef HVEMU_CLI_EXIT_STATS_H
#define HVEMU_CLI_EXIT_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "emu/exit_report.h"

#define EXIT_STATS_CODES 256       /* distinct exit codes counted one by one */
#define EXIT_GAP_BUCKETS 65        /* 0, then [2^k, 2^(k+1)) for k = 0..63 */
#define EXIT_STATS_CPUS 64         /* CPUs (by APIC ID) whose handling times are measured */

/* The report's strings live only during the observer's call (a model may
 * reuse one buffer for every exit's name): what is kept is copied. */
#define EXIT_NAME_MAX 40
#define EXIT_CHECK_MAX 160

struct exit_count {
	enum exit_report_kind kind;
	uint64_t code;
	uint64_t count;
	char name[EXIT_NAME_MAX];  /* the model's name of the code (first seen) */
	/* L1's handling time of these exits: the virtual time from the exit to
	 * the next VM entry of the same CPU (an exit the run ended in has none). */
	uint64_t handled, handle_sum, handle_max;
	uint32_t handle_hist[EXIT_GAP_BUCKETS];   /* by handling time, log2 buckets */
};

struct exit_stats {
	uint64_t exits;
	uint64_t guest_insns;      /* sum of report->guest_insns: virtual time in guests */
	uint64_t gap[EXIT_GAP_BUCKETS];   /* exits by guest_insns, log2 buckets */
	struct exit_count codes[EXIT_STATS_CODES];
	unsigned n_codes;
	unsigned last;             /* the entry the previous exit went to (runs of one code) */
	uint64_t other;            /* exits of codes beyond the first EXIT_STATS_CODES */
	/* Per CPU: the exit whose handling time is running (codes[] index + 1;
	 * 0: none) and when it happened. */
	unsigned handling[EXIT_STATS_CPUS];
	uint64_t handling_since[EXIT_STATS_CPUS];
};

void exit_stats_init(struct exit_stats *s);

/* Count one exit of the CPU with APIC ID cpu_id. Every report but a VMfail
 * ends the CPU's running handling time at the entry attempt it reports (the
 * VM entry of a guest that ran, now - guest_insns; a failed entry's now) and
 * starts the next (L1 handles an entry failure too). A VMfail does neither:
 * the VMLAUNCH/VMRESUME failed in L1, which is still handling. */
void exit_stats_add(struct exit_stats *s, const struct vm_exit_report *r, unsigned cpu_id);

/* The histogram bucket of a number of guest instructions: 0 for 0, k+1 for
 * [2^k, 2^(k+1)). */
unsigned exit_gap_bucket(uint64_t guest_insns);

/* The summary: totals against virtual_insns (the run's whole virtual time),
 * exits per code (most frequent first), the histogram of guest time, then
 * per code L1's handling time (count, mean, maximum, histogram). */
void exit_stats_print(const struct exit_stats *s, uint64_t virtual_insns, FILE *out);

/* The same exit, N times in a row, with the guest stuck: a livelock (README
 * "Livelock"). An exit repeats the previous one when code, rIP and the
 * information words (SVM: EXITINFO1/2; not the event's) are equal and the
 * guest retired no instruction between the VM entry and the exit
 * (guest_insns = 0): L1 re-entered it at an instruction that
 * exits again at once, as NOVA's vTLB-miss loop did. A guest loop that exits
 * identically but runs in between (VMMCALL round trips) is progress. */
struct livelock {
	uint64_t limit;            /* N; 0: off */
	uint64_t repeats;          /* times the current exit has been seen in a row */
	uint64_t first_n;          /* sequence number of its first occurrence */
	enum hv_ext vendor;        /* the current exit */
	enum exit_report_kind kind;
	uint64_t code, rip;
	uint64_t words[EXIT_WORDS_MAX];
	uint32_t randomised;       /* its words --perturb-exits randomised */
	bool fired;
	/* Once fired: the exit that made the limit-th repeat, its strings
	 * pointing into the copies beside it. */
	struct vm_exit_report exit;
	char name[EXIT_NAME_MAX], check[EXIT_CHECK_MAX];
};

void livelock_init(struct livelock *l, uint64_t limit);

/* Exit number n happened. True once, when it makes the limit-th repeat. */
bool livelock_observe(struct livelock *l, uint64_t n, const struct vm_exit_report *r);

#endif
