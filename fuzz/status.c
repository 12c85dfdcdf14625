/* The live status line of fuzz/status.h. */
#include "fuzz/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CHECKS_PER_SECOND 4
#define PERIOD_MAX 65536u

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void fuzz_status_init(struct fuzz_status *st, const char *target)
{
	const char *v = getenv("HVEMU_FUZZ_STATUS");
	const char *every = getenv("HVEMU_FUZZ_STATUS_SECONDS");
	bool tty = isatty(STDERR_FILENO) != 0;

	*st = (struct fuzz_status){ .target = target, .every = 2, .countdown = 1, .period = 1 };
	/* Set to anything but 0: on, a line each time (a log). Unset: on for a
	 * terminal, rewritten in place. */
	if (v && *v) {
		st->on = *v != '0';
		st->tty = false;
	} else {
		st->on = tty;
		st->tty = tty;
	}
	if (every && *every && atof(every) > 0)
		st->every = atof(every);
	clock_gettime(CLOCK_MONOTONIC, &st->start);
	st->checked = st->printed = st->start;
}

bool fuzz_status_tick(struct fuzz_status *st, uint64_t execs)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double dt = seconds_between(&st->checked, &now);
	uint64_t done = execs - st->execs_at_check;
	/* The next clock read after about 1/CHECKS_PER_SECOND s at this rate:
	 * cheap at 100,000 execs/s, still timely at 10 (libFuzzer under ASan
	 * on a slow input). */
	double want = dt > 0 ? (double)done / dt / CHECKS_PER_SECOND : (double)st->period * 2;
	/* Grow at most twofold a check: the first checks come microseconds
	 * apart and would promise a rate no real input keeps. */
	if (want > (double)st->period * 2)
		want = (double)st->period * 2;
	st->period = want < 1 ? 1 : want > PERIOD_MAX ? PERIOD_MAX : (uint32_t)want;
	st->countdown = st->period;
	st->checked = now;
	st->execs_at_check = execs;
	return seconds_between(&st->printed, &now) >= st->every;
}

void fuzz_status_print(struct fuzz_status *st, uint64_t execs, const char *extra)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double total = seconds_between(&st->start, &now), last = seconds_between(&st->printed, &now);
	/* On a terminal the cursor goes back to the line's start: whatever is
	 * printed next (a disagreement, the final stats) writes over it rather
	 * than after it. */
	fprintf(stderr, "%s: %.0f s, %llu execs, %.0f/s (now %.0f/s)%s%s%s",
		st->target, total, (unsigned long long)execs, total > 0 ? (double)execs / total : 0.0,
		last > 0 ? (double)(execs - st->execs_at_print) / last : 0.0, extra && *extra ? ", " : "",
		extra ? extra : "", st->tty ? "\033[K\r" : "\n");
	fflush(stderr);
	st->line_open = st->tty;
	st->printed = now;
	st->execs_at_print = execs;
}

void fuzz_status_break(struct fuzz_status *st)
{
	if (st->line_open) {
		fputc('\n', stderr);
		st->line_open = false;
	}
}
