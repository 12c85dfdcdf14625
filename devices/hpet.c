/* The HPET (see hpet.h). Section numbers refer to the IA-PC HPET
 * Specification 1.0a: 2.3.4 General Capabilities and ID, 2.3.5 General
 * Configuration, 2.3.6 General Interrupt Status, 2.3.7 Main Counter Value,
 * 2.3.8 Timer N Configuration and Capabilities, 2.3.9 Timer N Comparator
 * Value (2.3.9.2.1 non-periodic, 2.3.9.2.2 periodic mode), 2.4 legacy
 * replacement routing.
 *
 * A timer matches when the main counter reaches its comparator (in 32-bit
 * mode: its low 32 bits, so again after every wrap). Matches are processed
 * lazily on every register access and by a timer event only where an
 * interrupt must go out at its time.
 */
#include "devices/hpet.h"

#include <string.h>

#define NEVER UINT64_MAX

/* Register offsets. */
#define REG_CAP      0x000
#define REG_CONFIG   0x010
#define REG_ISR      0x020
#define REG_COUNTER  0x0f0
#define REG_TIMER0   0x100
#define TIMER_STRIDE 0x20
#define TN_CONFIG    0x00
#define TN_CMP       0x08
#define TN_FSB       0x10

/* 2.3.4: REV_ID 1, NUM_TIM_CAP = timers - 1 (bits 12:8), COUNT_SIZE_CAP
 * (64-bit counter, bit 13), LEG_RT_CAP (bit 15), VENDOR_ID (31:16, Intel's
 * 8086H as on QEMU's machine), COUNTER_CLK_PERIOD in fs (63:32, at most
 * 05F5E100H). */
#define CAP_VALUE (HPET_PERIOD_FS << 32 | 0x8086u << 16 | 1u << 15 | 1u << 13 | \
		   (HPET_TIMERS - 1u) << 8 | 1u)
/* 2.3.5 */
#define CONF_ENABLE 1u
#define CONF_LEGACY 2u
/* 2.3.8 Tn_CONF_CAP. */
#define TN_INT_LEVEL   (1u << 1)
#define TN_INT_ENB     (1u << 2)
#define TN_PERIODIC    (1u << 3)
#define TN_PER_CAP     (1u << 4)
#define TN_SIZE_CAP    (1u << 5)
#define TN_VAL_SET     (1u << 6)
#define TN_32MODE      (1u << 8)
#define TN_ROUTE_SHIFT 9
#define TN_ROUTE_MASK  (31u << TN_ROUTE_SHIFT)
#define TN_WRITABLE    (TN_INT_LEVEL | TN_INT_ENB | TN_PERIODIC | TN_VAL_SET | TN_32MODE | TN_ROUTE_MASK)
/* Every timer is periodic-capable and 64-bit; no FSB delivery (bits 15:14 0). */
#define TN_CAPS        (TN_PER_CAP | TN_SIZE_CAP)

static uint64_t hpet_clock(const struct hpet *h)
{
	return vclock_ticks_to(h->clock, vclock_now(h->clock), HPET_HZ);
}

static bool enabled(const struct hpet *h)
{
	return h->config & CONF_ENABLE;
}

static bool legacy(const struct hpet *h)
{
	/* 2.3.5: both ENABLE_CNF and LEG_RT_CNF select the legacy routes. */
	return (h->config & (CONF_ENABLE | CONF_LEGACY)) == (CONF_ENABLE | CONF_LEGACY);
}

/* 2.3.7: the main counter counts while ENABLE_CNF is set. */
static uint64_t counter_now(const struct hpet *h)
{
	return enabled(h) ? h->counter + (hpet_clock(h) - h->since) : h->counter;
}

static bool mode32(const struct hpet_timer *t)
{
	return t->config & TN_32MODE;
}

/* ---- outputs ---- */

/* A timer's interrupt output (2.3.8 Tn_INT_TYPE_CNF, Tn_INT_ENB_CNF; 2.3.5:
 * ENABLE_CNF = 0 disables all timer interrupts): in level mode while its
 * status bit is set; in edge mode high from a match (a rising edge each
 * match) until the interrupt is disabled. */
static bool timer_output(const struct hpet_timer *t)
{
	const struct hpet *h = t->hpet;
	if (!enabled(h) || !(t->config & TN_INT_ENB))
		return false;
	if (t->config & TN_INT_LEVEL)
		return (h->isr >> t->index) & 1;
	return t->edge_out;
}

static void drive(const struct irq_line *line, bool *driven, bool level)
{
	if (*driven != level) {
		*driven = level;
		irq_set(line, level);
	}
}

/* Recompute every output line from the state: 2.4 legacy replacement (timer
 * 0 -> IRQ0, timer 1 -> IRQ8, the 8254 and RTC blocked), else the PIT and
 * RTC pass through and each timer goes to its Tn_INT_ROUTE_CNF input. */
static void update_lines(struct hpet *h)
{
	bool leg = legacy(h);
	bool route[HPET_ROUTES] = { false };
	for (unsigned i = 0; i < HPET_TIMERS; i++) {
		const struct hpet_timer *t = &h->t[i];
		if (leg && i < 2)
			continue;
		unsigned pin = (unsigned)((t->config & TN_ROUTE_MASK) >> TN_ROUTE_SHIFT);
		if (timer_output(t) && ((h->route_cap >> pin) & 1))
			route[pin] = true;
	}
	drive(&h->irq0, &h->irq0_level, leg ? timer_output(&h->t[0]) : h->pit_in);
	drive(&h->irq8, &h->irq8_level, leg ? timer_output(&h->t[1]) : h->rtc_in);
	for (unsigned pin = 0; pin < HPET_ROUTES; pin++)
		if ((h->route_cap >> pin) & 1)
			drive(&h->route[pin], &h->route_level[pin], route[pin]);
}

void hpet_pit_input(void *opaque, unsigned pin, bool level)
{
	struct hpet *h = opaque;
	h->pit_in = level;
	update_lines(h);
}

void hpet_rtc_input(void *opaque, unsigned pin, bool level)
{
	struct hpet *h = opaque;
	h->rtc_in = level;
	update_lines(h);
}

/* ---- matches ---- */

/* The next main-counter value after c at which t matches: its comparator is
 * reached when the counter moves onto it; one already passed is reached again
 * only after the comparator's width wraps (never, for 64 bits). */
static uint64_t first_match(const struct hpet_timer *t, uint64_t c)
{
	if (mode32(t)) {
		uint32_t delta = (uint32_t)t->cmp - (uint32_t)c;
		return c + (delta ? delta : 1ull << 32);
	}
	return t->cmp > c ? t->cmp : NEVER;
}

/* The distance between matches after one at the current comparator: the
 * period in periodic mode (2.3.9.2.2), a full wrap otherwise (2.3.9.2.1). */
static uint64_t match_step(const struct hpet_timer *t)
{
	uint64_t wrap = mode32(t) ? 1ull << 32 : NEVER;
	if (!(t->config & TN_PERIODIC))
		return wrap;
	uint64_t p = mode32(t) ? (uint32_t)t->period : t->period;
	return p ? p : wrap;
}

/* Every match of t up to counter c: the comparator of a periodic timer grows
 * by the period each time; a level-mode timer sets its status bit (even with
 * its interrupt disabled, 2.3.8 Tn_INT_ENB_CNF); an edge-mode one gives a new
 * rising edge. Matches missed in between coalesce into one interrupt. */
static void process(struct hpet_timer *t, uint64_t c)
{
	struct hpet *h = t->hpet;
	if (t->next_match == NEVER || t->next_match > c)
		return;
	uint64_t step = match_step(t);
	uint64_t k = step == NEVER ? 1 : (c - t->next_match) / step + 1;
	if (t->config & TN_PERIODIC) {
		t->cmp += k * (step == NEVER ? 0 : step);
		if (mode32(t))
			t->cmp = (uint32_t)t->cmp;
	}
	t->next_match = step == NEVER || NEVER - t->next_match < k * step ? NEVER : t->next_match + k * step;
	if (t->config & TN_INT_LEVEL) {
		h->isr |= 1ull << t->index;
	} else if (t->config & TN_INT_ENB) {
		t->edge_out = false;
		update_lines(h);
		t->edge_out = true;
	}
	update_lines(h);
}

/* Arm t's event for its next match when an interrupt must go out then. */
static void arm(struct hpet_timer *t)
{
	struct hpet *h = t->hpet;
	if (!enabled(h) || !(t->config & TN_INT_ENB) || t->next_match == NEVER) {
		vtimer_cancel(h->clock, &t->timer);
		return;
	}
	uint64_t clk = h->since + (t->next_match - h->counter);
	vtimer_arm(h->clock, &t->timer, vclock_ticks_from(h->clock, clk, HPET_HZ));
}

/* Bring every timer up to now. */
static void sync(struct hpet *h)
{
	uint64_t c = counter_now(h);
	for (unsigned i = 0; i < HPET_TIMERS; i++)
		process(&h->t[i], c);
}

/* After a change of comparator, mode or counter: the next match from now. */
static void retarget(struct hpet_timer *t)
{
	t->next_match = first_match(t, counter_now(t->hpet));
	arm(t);
}

static void timer_fire(void *opaque, uint64_t now)
{
	struct hpet_timer *t = opaque;
	sync(t->hpet);
	arm(t);
}

/* ---- registers ---- */

static uint64_t reg_read(struct hpet *h, uint64_t reg)
{
	switch (reg) {
	case REG_CAP:
		return CAP_VALUE;
	case REG_CONFIG:
		return h->config;
	case REG_ISR:
		return h->isr;
	case REG_COUNTER:
		return counter_now(h);
	}
	if (reg < REG_TIMER0 || reg >= REG_TIMER0 + HPET_TIMERS * TIMER_STRIDE)
		return 0;
	const struct hpet_timer *t = &h->t[(reg - REG_TIMER0) / TIMER_STRIDE];
	switch (reg % TIMER_STRIDE) {
	case TN_CONFIG:
		return (uint64_t)h->route_cap << 32 | t->config | TN_CAPS;
	case TN_CMP:
		return mode32(t) ? (uint32_t)t->cmp : t->cmp;
	default:
		return 0;          /* Tn_FSB_INT_ROUTE: no FSB delivery */
	}
}

/* 2.3.5: ENABLE_CNF halts or restarts the counter (and every interrupt);
 * LEG_RT_CNF switches IRQ0/IRQ8 between the legacy devices and timers 0/1. */
static void write_config(struct hpet *h, uint64_t v)
{
	uint64_t c = counter_now(h);
	bool was = enabled(h);
	h->config = v & (CONF_ENABLE | CONF_LEGACY);
	h->counter = c;
	h->since = hpet_clock(h);
	for (unsigned i = 0; i < HPET_TIMERS; i++) {
		if (enabled(h) && !was)
			h->t[i].next_match = first_match(&h->t[i], c);
		if (!enabled(h))
			h->t[i].edge_out = false;
	}
	for (unsigned i = 0; i < HPET_TIMERS; i++)
		arm(&h->t[i]);
	update_lines(h);
}

/* 2.3.8: the writable bits; a 64-bit timer in 32-bit mode keeps only the low
 * halves of its comparator and period; Tn_INT_ROUTE_CNF takes only an input
 * Tn_INT_ROUTE_CAP lists (another value reads back unchanged). */
static void write_timer_config(struct hpet_timer *t, uint64_t v)
{
	struct hpet *h = t->hpet;
	uint64_t old_route = t->config & TN_ROUTE_MASK;
	uint64_t route = v & TN_ROUTE_MASK;
	if (!((h->route_cap >> (route >> TN_ROUTE_SHIFT)) & 1))
		route = old_route;
	t->config = (v & TN_WRITABLE & ~(uint64_t)TN_ROUTE_MASK) | route;
	if (mode32(t)) {
		t->cmp = (uint32_t)t->cmp;
		t->period = (uint32_t)t->period;
	}
	if (!(t->config & TN_INT_ENB))
		t->edge_out = false;
	retarget(t);
	update_lines(h);
}

/* 2.3.9: a write sets the comparator, and in periodic mode only with
 * Tn_VAL_SET_CNF (which then clears); it is always the new period ("the last
 * value written"). mask selects the bytes written. */
static void write_comparator(struct hpet_timer *t, uint64_t v, uint64_t mask)
{
	if (!(t->config & TN_PERIODIC) || (t->config & TN_VAL_SET))
		t->cmp = (t->cmp & ~mask) | (v & mask);
	t->period = (t->period & ~mask) | (v & mask);
	t->config &= ~(uint64_t)TN_VAL_SET;
	if (mode32(t)) {
		t->cmp = (uint32_t)t->cmp;
		t->period = (uint32_t)t->period;
	}
	retarget(t);
}

static void reg_write(struct hpet *h, uint64_t reg, uint64_t v, uint64_t mask)
{
	switch (reg) {
	case REG_CONFIG:
		write_config(h, (h->config & ~mask) | (v & mask));
		return;
	case REG_ISR:
		/* 2.3.6: writing 1 clears a status bit, 0 has no effect. */
		h->isr &= ~(v & mask);
		update_lines(h);
		return;
	case REG_COUNTER:
		/* 2.3.7: software should write it only while halted; hvemu takes
		 * the value either way. */
		h->counter = (counter_now(h) & ~mask) | (v & mask);
		h->since = hpet_clock(h);
		for (unsigned i = 0; i < HPET_TIMERS; i++)
			retarget(&h->t[i]);
		return;
	}
	if (reg < REG_TIMER0 || reg >= REG_TIMER0 + HPET_TIMERS * TIMER_STRIDE)
		return;
	struct hpet_timer *t = &h->t[(reg - REG_TIMER0) / TIMER_STRIDE];
	switch (reg % TIMER_STRIDE) {
	case TN_CONFIG:
		write_timer_config(t, (t->config & ~mask) | (v & mask));
		break;
	case TN_CMP:
		write_comparator(t, v, mask);
		break;
	default:
		break;
	}
}

/* 32- and 64-bit accesses (2.3: "32-bit or 64-bit"), any smaller one reaching
 * the bytes of its 64-bit register. */
static uint64_t hpet_read(void *opaque, uint64_t offset, unsigned size)
{
	struct hpet *h = opaque;
	sync(h);
	uint64_t v = reg_read(h, offset & ~7ull) >> (8 * (offset & 7));
	return size == 8 ? v : v & ((1ull << (8 * size)) - 1);
}

static void hpet_write(void *opaque, uint64_t offset, unsigned size, uint64_t value)
{
	struct hpet *h = opaque;
	sync(h);
	unsigned shift = 8 * (unsigned)(offset & 7);
	if (shift + 8 * size > 64)
		size = (64 - shift) / 8;
	uint64_t mask = (size == 8 ? NEVER : (1ull << (8 * size)) - 1) << shift;
	reg_write(h, offset & ~7ull, value << shift, mask);
}

static const struct mmio_ops hpet_ops = { .read = hpet_read, .write = hpet_write };

void hpet_init(struct hpet *h, struct vclock *clock, uint32_t route_cap)
{
	struct irq_line irq0 = h->irq0, irq8 = h->irq8, route[HPET_ROUTES];
	memcpy(route, h->route, sizeof(route));
	memset(h, 0, sizeof(*h));
	h->clock = clock;
	h->irq0 = irq0;
	h->irq8 = irq8;
	memcpy(h->route, route, sizeof(route));
	h->route_cap = route_cap;
	for (unsigned i = 0; i < HPET_TIMERS; i++) {
		struct hpet_timer *t = &h->t[i];
		t->hpet = h;
		t->index = i;
		t->cmp = NEVER;
		t->period = 0;
		t->next_match = NEVER;
		t->timer = (struct vtimer){ .fire = timer_fire, .opaque = t, .name = "hpet" };
	}
}

uint64_t hpet_gcap_id(void)
{
	return CAP_VALUE;
}

bool hpet_map(struct hpet *h, struct physmem *pm)
{
	return physmem_add_mmio(pm, HPET_BASE, HPET_SIZE, &hpet_ops, h, "hpet");
}
