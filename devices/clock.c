/* Deterministic virtual time (see clock.h). */
#include <stddef.h>

#include "devices/clock.h"

void vclock_init(struct vclock *c, uint64_t hz)
{
	*c = (struct vclock){ .hz = hz ? hz : VCLOCK_DEFAULT_HZ };
}

uint64_t vclock_now(const struct vclock *c)
{
	return c->now ? c->now(c->now_ctx) : 0;
}

uint64_t vclock_next(const struct vclock *c)
{
	return c->head ? c->head->when : VCLOCK_NEVER;
}

static void unlink_timer(struct vclock *c, struct vtimer *t)
{
	for (struct vtimer **p = &c->head; *p; p = &(*p)->next)
		if (*p == t) {
			*p = t->next;
			break;
		}
	t->armed = false;
	t->next = NULL;
}

static void tell(struct vclock *c)
{
	if (c->deadline_changed)
		c->deadline_changed(c->deadline_ctx, vclock_next(c));
}

void vtimer_arm(struct vclock *c, struct vtimer *t, uint64_t when)
{
	if (t->armed)
		unlink_timer(c, t);
	t->when = when;
	t->armed = true;
	/* Earliest first; equal times keep the order they were armed in, so two
	 * runs fire them the same way. */
	struct vtimer **p = &c->head;
	while (*p && (*p)->when <= when)
		p = &(*p)->next;
	t->next = *p;
	*p = t;
	tell(c);
}

void vtimer_cancel(struct vclock *c, struct vtimer *t)
{
	if (!t->armed)
		return;
	unlink_timer(c, t);
	tell(c);
}

void vclock_run_due(struct vclock *c, uint64_t now)
{
	while (c->head && c->head->when <= now) {
		struct vtimer *t = c->head;
		unlink_timer(c, t);
		t->fire(t->opaque, now);
	}
	tell(c);
}
