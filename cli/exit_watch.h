/* Everything the CLI does with VM exits, behind one struct vm_exit_observer
 * (emu/exit_report.h) installed on the CPU: --trace vmexit lines (cli/exit_trace.h),
 * --stats and the livelock detector (cli/exit_stats.h). With none of them on,
 * no observer is installed and an exit costs the model one NULL test. */
#ifndef HVEMU_CLI_EXIT_WATCH_H
#define HVEMU_CLI_EXIT_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/exit_stats.h"
#include "cli/exit_trace.h"
#include "emu/cpu.h"
#include "emu/exit_report.h"

/* Livelock limit without --livelock (README "Livelock"). */
#define LIVELOCK_DEFAULT 10000

/* What the command line asked for. */
struct exit_watch_config {
	bool trace;                /* --trace vmexit */
	bool json;                 /* --trace-format json */
	bool stats;                /* --stats */
	uint64_t livelock;         /* --livelock N; 0: off */
};

struct exit_watch {
	struct exit_watch_config cfg;
	uint64_t exits;            /* exits seen: the number of the latest */
	struct exit_trace trace;   /* also formats the livelock report */
	struct exit_stats stats;
	struct livelock livelock;
	struct vm_exit_observer observer;
};

/* Ready to watch; output (trace lines, reports) goes to out. */
void exit_watch_init(struct exit_watch *w, const struct exit_watch_config *cfg, FILE *out);
void exit_watch_destroy(struct exit_watch *w);

/* Install the observer on cpu if anything watches; else leave it NULL. */
void exit_watch_attach(struct exit_watch *w, struct cpu *cpu);

/* The observer's callback (ctx is the struct exit_watch): trace, count,
 * detect; on a livelock ask the CPU to stop after this instruction. */
void exit_watch_exit(void *ctx, struct cpu *cpu, const struct vm_exit_report *r);

/* The detector ended the run. */
bool exit_watch_livelocked(const struct exit_watch *w);

/* The end-of-run report of a livelock: which exit, where, how many times,
 * its decoded fields (the text trace line of its last occurrence). */
void exit_watch_report_livelock(struct exit_watch *w);

/* With --stats, the summary (virtual_insns: the run's virtual time). */
void exit_watch_report_stats(const struct exit_watch *w, uint64_t virtual_insns);

#endif
