/* The local APIC timer (SDM Vol.3 10.5.4 "APIC Timer", 10.5.4.1 "TSC-Deadline
 * Mode") in the machine's virtual time: the current count falls by one every
 * divide-register value of timer_hz ticks; in one-shot mode the interrupt comes
 * when it reaches 0, in periodic mode the count then reloads from the initial
 * count; in TSC-deadline mode the interrupt comes when the TSC reaches
 * IA32_TSC_DEADLINE. Nothing here runs per instruction: a count is computed
 * from the clock when read, and one vtimer is armed for the next interrupt. */
#include "devices/lapic.h"

enum { TIMER_ONE_SHOT = 0, TIMER_PERIODIC = 1, TIMER_TSC_DEADLINE = 2 };

/* LVT timer bits 18:17 (Figure 10-8); mode 11B is reserved: hvemu counts it
 * as one-shot. */
static unsigned timer_mode(const struct lapic *l)
{
	unsigned m = (l->lvt[LVT_TIMER] >> 17) & 3;
	return m == 3 ? TIMER_ONE_SHOT : m;
}

/* Figure 10-10: bits 3, 1:0 select divide by 2, 4, ... 128, 1. */
static unsigned divisor(uint32_t dcr)
{
	unsigned code = ((dcr >> 1) & 4) | (dcr & 3);
	return code == 7 ? 1 : 2u << code;
}

/* Clock ticks for count decrements at the current divider. */
static uint64_t ticks_for(const struct lapic *l, uint64_t count)
{
	return vclock_ticks_from(l->clock, count * divisor(l->timer_dcr), l->timer_hz);
}

/* Decrements since timer_start. */
static uint64_t elapsed_counts(const struct lapic *l, uint64_t now)
{
	uint64_t since = now > l->timer_start ? now - l->timer_start : 0;
	return vclock_ticks_to(l->clock, since, l->timer_hz) / divisor(l->timer_dcr);
}

static void timer_fire(void *opaque, uint64_t now);

/* Start counting down from count at tick now, the interrupt armed for when it
 * reaches 0. */
static void start(struct lapic *l, uint32_t count, uint64_t now)
{
	l->timer_running = true;
	l->timer_count = count;
	l->timer_start = now;
	vtimer_arm(l->clock, &l->timer, now + ticks_for(l, count));
}

static void stop(struct lapic *l)
{
	l->timer_running = false;
	l->timer_count = 0;
	vtimer_cancel(l->clock, &l->timer);
}

static void timer_fire(void *opaque, uint64_t now)
{
	struct lapic *l = opaque;
	(void)now;
	if (timer_mode(l) == TIMER_TSC_DEADLINE) {
		/* 10.5.4.1: the timer disarms and the MSR is cleared (kept under
		 * LAPIC_QUIRK_TSC_DEADLINE_KEPT; the timer is disarmed all the same). */
		if (!(l->quirks & LAPIC_QUIRK_TSC_DEADLINE_KEPT))
			l->tsc_deadline = 0;
	} else if (timer_mode(l) == TIMER_PERIODIC && l->timer_initial) {
		/* The next period starts where this one ended, not at the tick the
		 * clock noticed it: periods do not drift. */
		start(l, l->timer_initial, l->timer.when);
	} else {
		l->timer_running = false;
		l->timer_count = 0;
	}
	/* 10.5.4: a masked timer counts, but raises no interrupt. */
	lapic_local_interrupt(l, LVT_TIMER);
}

void lapic_timer_reset(struct lapic *l)
{
	l->timer.fire = timer_fire;
	l->timer.opaque = l;
	l->timer.name = "lapic-timer";
	if (l->clock)
		stop(l);
	l->timer_initial = 0;
	l->timer_dcr = 0;
	l->tsc_deadline = 0;
}

void lapic_timer_set_initial(struct lapic *l, uint32_t count)
{
	/* 10.5.4.1: in TSC-deadline mode writes to the initial count are ignored. */
	if (timer_mode(l) == TIMER_TSC_DEADLINE)
		return;
	l->timer_initial = count;
	/* 10.5.4: writing the initial count starts the timer; 0 stops it. */
	if (count == 0)
		stop(l);
	else
		start(l, count, vclock_now(l->clock));
}

void lapic_timer_set_divide(struct lapic *l, uint32_t dcr)
{
	if (!l->timer_running) {
		l->timer_dcr = dcr;
		return;
	}
	/* The SDM does not say what a new divider does to a running count: hvemu
	 * keeps the current count and counts it down at the new rate. */
	uint32_t current = lapic_timer_current(l);
	l->timer_dcr = dcr;
	start(l, current, vclock_now(l->clock));
}

void lapic_timer_lvt_written(struct lapic *l, uint32_t old)
{
	unsigned was = ((old >> 17) & 3) == TIMER_TSC_DEADLINE;
	unsigned is = timer_mode(l) == TIMER_TSC_DEADLINE;
	/* 10.5.4.1: "transitioning between TSC-deadline mode and other timer modes
	 * also disarms the timer". One-shot <-> periodic keeps counting. */
	if (was != is) {
		stop(l);
		l->tsc_deadline = 0;
	}
}

uint32_t lapic_timer_current(const struct lapic *l)
{
	/* 10.5.4.1: the current count reads 0 in TSC-deadline mode. */
	if (!l->timer_running || timer_mode(l) == TIMER_TSC_DEADLINE)
		return 0;
	uint64_t done = elapsed_counts(l, vclock_now(l->clock));
	return done >= l->timer_count ? 0 : l->timer_count - (uint32_t)done;
}

uint64_t lapic_tsc_deadline(const struct lapic *l)
{
	return timer_mode(l) == TIMER_TSC_DEADLINE ? l->tsc_deadline : 0;
}

void lapic_set_tsc_deadline(struct lapic *l, uint64_t value, uint64_t fire_at)
{
	/* 10.5.4.1: "In other timer modes ... writes are ignored". */
	if (timer_mode(l) != TIMER_TSC_DEADLINE)
		return;
	l->tsc_deadline = value;
	if (value == 0) {
		vtimer_cancel(l->clock, &l->timer);
		return;
	}
	/* A deadline already passed fires at once (at the next boundary). */
	uint64_t now = vclock_now(l->clock);
	vtimer_arm(l->clock, &l->timer, fire_at > now ? fire_at : now);
}
