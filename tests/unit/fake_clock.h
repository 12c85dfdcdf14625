/* A virtual clock for device suites: time moves only when the test says, and
 * timers fire at their own ticks; an irq_line receiver that records every
 * change with the tick it happened at. Header only. */
#ifndef TESTS_UNIT_FAKE_CLOCK_H
#define TESTS_UNIT_FAKE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/clock.h"
#include "devices/irq.h"

struct fake_time {
	uint64_t now;
	struct vclock clock;
};

static inline uint64_t fake_now(void *ctx)
{
	return ((struct fake_time *)ctx)->now;
}

static inline void fake_time_init(struct fake_time *t, uint64_t hz)
{
	vclock_init(&t->clock, hz);
	t->clock.now = fake_now;
	t->clock.now_ctx = t;
	t->now = 0;
}

/* Run time forward to tick `to`, firing each timer at the tick it asked for. */
static inline void fake_time_run(struct fake_time *t, uint64_t to)
{
	for (;;) {
		uint64_t next = vclock_next(&t->clock);
		if (next > to)
			break;
		if (next > t->now)
			t->now = next;
		vclock_run_due(&t->clock, t->now);
	}
	if (to > t->now)
		t->now = to;
}

#define LINE_LOG_MAX 256

/* Every level an irq_line was driven to, with the tick. */
struct line_log {
	struct fake_time *time;
	unsigned n;
	uint64_t at[LINE_LOG_MAX];
	bool level[LINE_LOG_MAX];
	bool cur;
	unsigned rises;
};

static inline void line_log_set(void *opaque, unsigned pin, bool level)
{
	struct line_log *l = opaque;
	(void)pin;
	if (l->n < LINE_LOG_MAX) {
		l->at[l->n] = l->time ? l->time->now : 0;
		l->level[l->n] = level;
		l->n++;
	}
	if (level && !l->cur)
		l->rises++;
	l->cur = level;
}

static inline struct irq_line line_log_line(struct line_log *l)
{
	return (struct irq_line){ line_log_set, l, 0 };
}

#endif
