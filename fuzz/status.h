/* A live status line for long fuzzing campaigns: every few seconds on
 * stderr, execs/s, inputs run and what the target adds (its coverage, its
 * findings). On when stderr is a terminal (the line is rewritten in place)
 * or with HVEMU_FUZZ_STATUS=1 (one line each time, for logs);
 * HVEMU_FUZZ_STATUS=0 turns it off, HVEMU_FUZZ_STATUS_SECONDS=n sets the
 * interval (default 2).
 *
 * Cheap: fuzz_status_due() is a countdown; the clock is read only when it
 * runs out, and the countdown is sized so that happens about four times a
 * second whatever the exec rate. */
#ifndef HVEMU_FUZZ_STATUS_H
#define HVEMU_FUZZ_STATUS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct fuzz_status {
	bool on;
	bool tty;                          /* rewrite one line in place */
	bool line_open;                    /* a tty line without its newline (the cursor at its start) */
	const char *target;
	double every;                      /* seconds between lines */
	struct timespec start, checked, printed;
	uint64_t execs_at_check, execs_at_print;
	uint32_t countdown, period;        /* execs between clock reads */
};

/* Read the environment; target names the lines. */
void fuzz_status_init(struct fuzz_status *st, const char *target);

/* Call once per exec; true when it is time to call fuzz_status_tick(). */
static inline bool fuzz_status_due(struct fuzz_status *st)
{
	return st->on && --st->countdown == 0;
}

/* Read the clock, resize the countdown; true if a line is due now (then
 * print it with fuzz_status_print()). execs: inputs run so far. */
bool fuzz_status_tick(struct fuzz_status *st, uint64_t execs);

/* Print the line: elapsed time, execs, execs/s over the whole run and over
 * the last interval, then extra (the target's coverage and findings). */
void fuzz_status_print(struct fuzz_status *st, uint64_t execs, const char *extra);

/* Keep an open terminal line: a newline past it (at exit). */
void fuzz_status_break(struct fuzz_status *st);

#endif
