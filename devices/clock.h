/* Deterministic virtual time: one clock for the whole machine, driven by the
 * retired instructions of its CPUs, from which every timer derives (TSC, PIT,
 * RTC, HPET, LAPIC timer). Nothing reads the host's clock: two runs of the same
 * guest with the same inputs see the same times, interrupts included.
 *
 * Time is counted in ticks of the nominal instruction rate (hz, one tick per
 * retired instruction; settable with --insn-rate; a device access takes a
 * microsecond, devices/bus.h IO_BUS_CYCLE_NS); a device converts with
 * vclock_ticks_to()/vclock_ticks_from(). Devices arm vtimers; the machine
 * reads vclock_next() to tell the CPU its next deadline and calls
 * vclock_run_due() when the CPU reaches it. A halted CPU lets time jump to the
 * next timer, so an idle guest costs no host time.
 */
#ifndef HVEMU_DEVICES_CLOCK_H
#define HVEMU_DEVICES_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#define VCLOCK_DEFAULT_HZ 1000000000ull  /* 1 GHz: a tick is a nanosecond */
#define VCLOCK_NEVER UINT64_MAX

struct vtimer {
	uint64_t when;             /* tick it fires at (valid while armed) */
	void (*fire)(void *opaque, uint64_t now);
	void *opaque;
	const char *name;          /* for traces */
	struct vtimer *next;       /* in the clock's list, earliest first */
	bool armed;
};

struct vclock {
	uint64_t hz;               /* ticks per virtual second */
	uint64_t (*now)(void *ctx);  /* the machine's time source (the running CPU) */
	void *now_ctx;
	/* Called whenever the earliest deadline may have changed. */
	void (*deadline_changed)(void *ctx, uint64_t next);
	void *deadline_ctx;
	struct vtimer *head;
};

void vclock_init(struct vclock *c, uint64_t hz);

/* The current tick (0 without a time source). */
uint64_t vclock_now(const struct vclock *c);

/* Arm t to fire at tick when (re-arming moves it); cancel it. */
void vtimer_arm(struct vclock *c, struct vtimer *t, uint64_t when);
void vtimer_cancel(struct vclock *c, struct vtimer *t);

/* The earliest armed tick, or VCLOCK_NEVER. */
uint64_t vclock_next(const struct vclock *c);

/* Fire every timer due at now, earliest first (a callback may re-arm). */
void vclock_run_due(struct vclock *c, uint64_t now);

/* 128-bit intermediate products (GCC and Clang). */
__extension__ typedef unsigned __int128 vclock_u128;

/* ticks <-> a device's own frequency (freq_hz), exact in 128-bit arithmetic:
 * the device count after ticks, and the ticks that count takes. */
static inline uint64_t vclock_ticks_to(const struct vclock *c, uint64_t ticks, uint64_t freq_hz)
{
	return (uint64_t)((vclock_u128)ticks * freq_hz / c->hz);
}

static inline uint64_t vclock_ticks_from(const struct vclock *c, uint64_t count, uint64_t freq_hz)
{
	return (uint64_t)(((vclock_u128)count * c->hz + freq_hz - 1) / freq_hz);
}

#endif
