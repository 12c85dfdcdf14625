/* The 8254 and port 61H (see pit8254.h). Section names refer to the Intel
 * 8254 datasheet (231164): "Control Word Format", "Write Operations", "Read
 * Operations", "Counter Latch Command", "Read-Back Command", "Status Byte",
 * "Mode Definitions" (Mode 0 ... Mode 5) and Table "Gate Pin Operations".
 *
 * Time: a channel counts the falling edges of CLK; pulse k happens at the
 * virtual tick vclock_ticks_from(k, PIT_HZ), and "now" is pulse
 * vclock_ticks_to(now, PIT_HZ). "The count is loaded on the next CLK pulse"
 * after a write at pulse w is pulse w + 1. From its load pulse `start`, the
 * counting element has seen e = pulse - start + e0 decrements; CE and OUT are
 * functions of (mode, n, e), below.
 */
#include "devices/pit8254.h"

#include <string.h>

#define NEVER UINT64_MAX

/* Control word bits ("Control Word Format"). */
#define CW_SC(v)   ((v) >> 6)          /* 3: read-back command */
#define CW_RW(v)   (((v) >> 4) & 3)    /* 0: counter latch command */
#define CW_MODE(v) (((v) >> 1) & 7)
#define CW_BCD     1u
/* Read-back command ("Read-Back Command"): D5 = 0 latches counts, D4 = 0
 * latches status, D3-D1 select counters 2-0. */
#define RB_NO_COUNT  (1u << 5)
#define RB_NO_STATUS (1u << 4)
/* Status byte ("Status Byte"): OUT, NULL COUNT, then the control word bits. */
#define ST_OUT  (1u << 7)
#define ST_NULL (1u << 6)

/* Port 61H (IBM PC/AT Technical Reference, "System Control Port B"): bits 3:0
 * read back as written (GATE 2, speaker data, parity and channel check
 * enables); bit 4 toggles with each DRAM refresh request (the AT's counter 1
 * in mode 2 with count 18: every 18 PIT clocks, 15.09 us); bit 5 is OUT 2;
 * bits 7:6 are the parity/channel-check NMI sources, none in hvemu. */
#define PORTB_GATE2   (1u << 0)
#define PORTB_WRITABLE 0x0f
#define PORTB_REFRESH (1u << 4)
#define PORTB_OUT2    (1u << 5)
#define REFRESH_CLOCKS 18

static uint64_t pit_clock(const struct pit8254 *p)
{
	return vclock_ticks_to(p->clock, vclock_now(p->clock), PIT_HZ);
}

static uint32_t modulus(const struct pit_channel *ch)
{
	return ch->bcd ? 10000 : 65536;
}

/* The count a CR value stands for: 0 is the largest (2^16, or 10^4 in BCD,
 * "Write Operations"). BCD digits above 9 are taken at face value. */
static uint32_t count_of(const struct pit_channel *ch, uint16_t cr)
{
	uint32_t v = cr;
	if (ch->bcd)
		v = (cr >> 12) * 1000u + ((cr >> 8) & 15) * 100u + ((cr >> 4) & 15) * 10u + (cr & 15);
	return v ? v : modulus(ch);
}

static uint16_t to_register(const struct pit_channel *ch, uint32_t v)
{
	v %= modulus(ch);
	if (!ch->bcd)
		return (uint16_t)v;
	return (uint16_t)((v / 1000) << 12 | (v / 100 % 10) << 8 | (v / 10 % 10) << 4 | v % 10);
}

/* ---- the counting element in closed form ---- */

/* Mode 3 ("Mode 3: Square Wave Mode"): OUT high for (n + 1) / 2 pulses, low
 * for n / 2; CE steps by two, from n (even n) or n - 1 (odd n) in each half. */
static uint32_t high_half(uint32_t n)
{
	return (n + 1) / 2;
}

static uint64_t elapsed(const struct pit_channel *ch, uint64_t clk)
{
	uint64_t at = ch->paused ? (ch->paused_at > ch->start ? ch->paused_at : ch->start) : clk;
	return at - ch->start + ch->e0;
}

/* CE and OUT after pulse clk (>= every pulse processed so far). */
static void state_at(const struct pit_channel *ch, uint64_t clk, uint32_t *ce, bool *out)
{
	if (!ch->running || clk < ch->start) {
		*ce = ch->held_ce;
		*out = ch->held_out;
		return;
	}
	uint64_t e = elapsed(ch, clk);
	uint32_t n = ch->n, m = modulus(ch);
	uint32_t ph = (uint32_t)(e % n);
	switch (ch->mode) {
	case 2:   /* rate generator: n, n-1, ..., 1, reload; OUT low while CE = 1 */
		*ce = n - ph;
		*out = ph != n - 1;
		return;
	case 3: {
		uint32_t h = high_half(n);
		uint32_t k = ph < h ? ph : ph - h;
		*ce = (n & 1) ? n - 1 - 2 * k : n - 2 * k;
		*out = ph < h;
		return;
	}
	default:  /* 0, 1, 4, 5: one pass down, then CE wraps and keeps counting */
		*ce = (uint32_t)((n + m - e % m) % m);
		if (ch->mode <= 1)
			*out = e >= n;           /* high at terminal count and after */
		else
			*out = e != n;           /* a one-pulse low strobe at terminal count */
		return;
	}
}

/* The first e' > e at which OUT differs from OUT at e, or NEVER. */
static uint64_t next_edge_e(const struct pit_channel *ch, uint64_t e)
{
	uint32_t n = ch->n;
	uint64_t base = e - e % n, ph = e % n;
	switch (ch->mode) {
	case 2:
		if (n == 1)
			return NEVER;            /* CE is always 1: OUT stays low */
		return ph < n - 1 ? base + n - 1 : base + n;
	case 3:
		if (n == 1)
			return NEVER;            /* no low half */
		return ph < high_half(n) ? base + high_half(n) : base + n;
	case 0: case 1:
		return e < n ? n : NEVER;
	default:
		return e < n ? n : e == n ? n + 1 : NEVER;
	}
}

/* The first pulse after clk at which OUT changes or a pending count loads. */
static uint64_t next_event(const struct pit_channel *ch, uint64_t clk)
{
	uint64_t next = NEVER;
	if (ch->running && !ch->paused) {
		uint32_t ce;
		bool out;
		state_at(ch, clk, &ce, &out);
		if (clk < ch->start) {
			bool at_start;
			state_at(ch, ch->start, &ce, &at_start);
			if (at_start != out)
				next = ch->start;
			else if ((next = next_edge_e(ch, ch->e0)) != NEVER)
				next += ch->start - ch->e0;
		} else if ((next = next_edge_e(ch, elapsed(ch, clk))) != NEVER) {
			next += ch->start - ch->e0;
		}
	}
	if (ch->pending && ch->pending_at < next)
		next = ch->pending_at;
	return next;
}

/* Load a count that waited for the end of a cycle (modes 2 and 3), once its
 * pulse has come. */
static void settle(struct pit_channel *ch, uint64_t clk)
{
	if (!ch->pending || clk < ch->pending_at)
		return;
	ch->pending = false;
	ch->start = ch->pending_at;
	ch->n = ch->pending_n;
	ch->e0 = ch->pending_e0;
}

/* Drive OUT (if wired) to its value at clk and arm the timer for the next
 * transition. */
static void sync(struct pit_channel *ch, uint64_t clk)
{
	if (!ch->out.set)
		return;
	uint32_t ce;
	bool out;
	state_at(ch, clk, &ce, &out);
	if (out != ch->out_level) {
		ch->out_level = out;
		irq_set(&ch->out, out);
	}
	uint64_t next = next_event(ch, clk);
	if (next == NEVER) {
		vtimer_cancel(ch->pit->clock, &ch->timer);
		return;
	}
	ch->timer_clock = next;
	vtimer_arm(ch->pit->clock, &ch->timer, vclock_ticks_from(ch->pit->clock, next, PIT_HZ));
}

/* A transition is due: take it at its own pulse, however late the timer ran,
 * so that no edge is lost (the next one may be due at once). */
static void channel_fire(void *opaque, uint64_t now)
{
	struct pit_channel *ch = opaque;
	uint64_t clk = ch->timer_clock;
	settle(ch, clk);
	sync(ch, clk);
}

/* Start counting n from pulse clk + 1 ("loaded on the next CLK pulse"), CE
 * and OUT holding their present values until then. */
static void restart(struct pit_channel *ch, uint64_t clk, uint32_t n)
{
	state_at(ch, clk, &ch->held_ce, &ch->held_out);
	ch->running = true;
	ch->paused = false;
	ch->pending = false;
	ch->start = clk + 1;
	ch->e0 = 0;
	ch->n = n;
	ch->load_at = ch->start;
}

/* Stop counting: CE holds, OUT goes to out. */
static void stop(struct pit_channel *ch, uint64_t clk, bool out)
{
	uint32_t ce;
	bool now_out;
	state_at(ch, clk, &ce, &now_out);
	ch->held_ce = ce;
	ch->held_out = out;
	ch->running = false;
	ch->paused = false;
	ch->pending = false;
}

/* A whole count was written at pulse clk ("Mode Definitions": what a new
 * count does in each mode). */
static void count_written(struct pit_channel *ch, uint64_t clk)
{
	uint32_t n = count_of(ch, ch->cr);
	bool first = !ch->has_count;
	ch->has_count = true;
	ch->null_count = true;
	ch->load_at = NEVER;
	switch (ch->mode) {
	case 0:   /* loaded next pulse, OUT low until terminal count */
	case 4:   /* loaded next pulse: a software retrigger */
		restart(ch, clk, n);
		if (ch->mode == 0)
			ch->held_out = false;
		if (!ch->gate) {
			ch->paused = true;       /* "GATE = 0 disables counting" */
			ch->paused_at = ch->start;
		}
		break;
	case 2:
	case 3:
		if (!ch->gate)
			break;               /* loads on GATE's rising edge */
		if (first || !ch->running || clk < ch->start) {
			restart(ch, clk, n);
			break;
		}
		/* Counting: the new count loads at the end of the current period
		 * (mode 2) or half-cycle (mode 3); in mode 3 a load at the start
		 * of a low half continues with the low half of the new count. */
		{
			uint64_t e = elapsed(ch, clk), ph = e % ch->n, base = e - ph;
			bool low_start = ch->mode == 3 && ph < high_half(ch->n) && ch->n > 1;
			uint64_t at_e = ch->mode == 3 ? (low_start ? base + high_half(ch->n) : base + ch->n)
						     : base + ch->n;
			ch->pending = true;
			ch->pending_n = n;
			ch->pending_at = ch->start + (at_e - ch->e0);
			ch->pending_e0 = low_start ? high_half(n) : 0;
			ch->load_at = ch->pending_at;
		}
		break;
	default:  /* 1, 5: the count waits for a GATE trigger */
		break;
	}
}

/* ---- GATE ---- */

void pit8254_set_gate(struct pit8254 *p, unsigned index, bool level)
{
	if (index >= PIT_CHANNELS)
		return;
	struct pit_channel *ch = &p->ch[index];
	if (ch->gate == level)
		return;
	uint64_t clk = pit_clock(p);
	settle(ch, clk);
	ch->gate = level;
	switch (ch->mode) {
	case 0:
	case 4:   /* low: counting holds; high: it resumes */
		if (!ch->running)
			break;
		if (!level) {
			ch->paused = true;
			ch->paused_at = clk > ch->start ? clk : ch->start;
		} else if (ch->paused) {
			ch->paused = false;
			if (clk > ch->paused_at)
				ch->start += clk - ch->paused_at;
		}
		break;
	case 1:
	case 5:   /* a rising edge (re)triggers: the CR loads on the next pulse */
		if (level && ch->has_count) {
			restart(ch, clk, count_of(ch, ch->cr));
			ch->null_count = true;
		}
		break;
	default:  /* 2, 3: low stops counting with OUT high; high reloads */
		if (!level) {
			uint32_t n = ch->pending ? ch->pending_n : ch->n;
			stop(ch, clk, true);
			ch->n = n;
		} else if (ch->has_count) {
			restart(ch, clk, count_of(ch, ch->cr));
			ch->null_count = true;
		}
		break;
	}
	sync(ch, clk);
}

bool pit8254_out(struct pit8254 *p, unsigned index)
{
	struct pit_channel *ch = &p->ch[index % PIT_CHANNELS];
	uint64_t clk = pit_clock(p);
	uint32_t ce;
	bool out;
	settle(ch, clk);
	state_at(ch, clk, &ce, &out);
	return out;
}

/* ---- the ports ---- */

static uint8_t status_byte(struct pit_channel *ch, uint64_t clk)
{
	uint32_t ce;
	bool out;
	state_at(ch, clk, &ce, &out);
	bool null = ch->null_count && clk < ch->load_at;
	return (uint8_t)((out ? ST_OUT : 0) | (null ? ST_NULL : 0) | ch->rw << 4 | ch->mode << 1 |
			 (ch->bcd ? CW_BCD : 0));
}

/* "Counter Latch Command": a second latch before the count is read is
 * ignored. */
static void latch_count(struct pit_channel *ch, uint64_t clk)
{
	if (ch->count_latched)
		return;
	uint32_t ce;
	bool out;
	state_at(ch, clk, &ce, &out);
	ch->ol = to_register(ch, ce);
	ch->count_latched = true;
	ch->read_msb_next = false;
}

static void latch_status(struct pit_channel *ch, uint64_t clk)
{
	if (ch->status_latched)
		return;
	ch->status = status_byte(ch, clk);
	ch->status_latched = true;
}

static void control_word(struct pit8254 *p, uint8_t v, uint64_t clk)
{
	if (CW_SC(v) == 3) {
		for (unsigned i = 0; i < PIT_CHANNELS; i++) {
			if (!(v & (2u << i)))
				continue;
			struct pit_channel *ch = &p->ch[i];
			settle(ch, clk);
			if (!(v & RB_NO_COUNT))
				latch_count(ch, clk);
			if (!(v & RB_NO_STATUS))
				latch_status(ch, clk);
		}
		return;
	}
	struct pit_channel *ch = &p->ch[CW_SC(v)];
	settle(ch, clk);
	if (CW_RW(v) == 0) {
		latch_count(ch, clk);
		return;
	}
	/* "Control Word Format": modes X10 and X11 are 2 and 3. "Mode
	 * Definitions": a control word resets the counter's logic, OUT goes to
	 * its initial state (low in mode 0, high otherwise) and the counter
	 * waits for a count; CE holds. A latch not yet read is dropped. */
	unsigned mode = CW_MODE(v);
	mode = mode >= 6 ? mode - 4 : mode;
	stop(ch, clk, mode != 0);
	ch->mode = (uint8_t)mode;
	ch->rw = (uint8_t)CW_RW(v);
	ch->bcd = v & CW_BCD;
	ch->has_count = false;
	ch->write_msb_next = false;
	ch->read_msb_next = false;
	ch->count_latched = false;
	ch->status_latched = false;
	ch->null_count = true;
	ch->load_at = NEVER;
	sync(ch, clk);
}

/* "Write Operations": LSB, MSB, or LSB then MSB; in mode 0 the first of two
 * bytes stops counting and sets OUT low at once. */
static void counter_write(struct pit_channel *ch, uint8_t v, uint64_t clk)
{
	settle(ch, clk);
	switch (ch->rw) {
	case 1:
		ch->cr = v;
		break;
	case 2:
		ch->cr = (uint16_t)(v << 8);
		break;
	default:
		if (!ch->write_msb_next) {
			ch->cr = (uint16_t)((ch->cr & 0xff00) | v);
			ch->write_msb_next = true;
			if (ch->mode == 0) {
				stop(ch, clk, false);
				sync(ch, clk);
			}
			return;
		}
		ch->cr = (uint16_t)((ch->cr & 0x00ff) | v << 8);
		ch->write_msb_next = false;
		break;
	}
	count_written(ch, clk);
	sync(ch, clk);
}

/* "Read Operations": a latched status first, then a latched count, else CE
 * as it is at each read; two-byte counts read LSB then MSB (this toggle is
 * separate from the writing one, so reads and writes may interleave). */
static uint8_t counter_read(struct pit_channel *ch, uint64_t clk)
{
	settle(ch, clk);
	if (ch->status_latched) {
		ch->status_latched = false;
		return ch->status;
	}
	uint16_t v;
	if (ch->count_latched) {
		v = ch->ol;
	} else {
		uint32_t ce;
		bool out;
		state_at(ch, clk, &ce, &out);
		v = to_register(ch, ce);
	}
	bool msb = ch->rw == 2 || (ch->rw == 3 && ch->read_msb_next);
	if (ch->rw == 3)
		ch->read_msb_next = !ch->read_msb_next;
	if (ch->rw != 3 || !ch->read_msb_next)
		ch->count_latched = false;
	return msb ? (uint8_t)(v >> 8) : (uint8_t)v;
}

static uint32_t pit_read(void *opaque, uint16_t port, unsigned size)
{
	struct pit8254 *p = opaque;
	uint64_t clk = pit_clock(p);
	uint32_t v = 0;
	for (unsigned i = 0; i < size; i++) {
		unsigned reg = (port + i - PIT_PORT) & 3;
		/* Reading the control word register is a no-operation (3-state). */
		uint8_t b = reg == 3 ? 0xff : counter_read(&p->ch[reg], clk);
		v |= (uint32_t)b << (8 * i);
	}
	return v;
}

static void pit_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct pit8254 *p = opaque;
	uint64_t clk = pit_clock(p);
	for (unsigned i = 0; i < size; i++) {
		unsigned reg = (port + i - PIT_PORT) & 3;
		uint8_t b = (uint8_t)(value >> (8 * i));
		if (reg == 3)
			control_word(p, b, clk);
		else
			counter_write(&p->ch[reg], b, clk);
	}
}

static uint32_t port_b_read(void *opaque, uint16_t port, unsigned size)
{
	struct pit8254 *p = opaque;
	uint64_t clk = pit_clock(p);
	uint8_t v = p->port_b & PORTB_WRITABLE;
	if ((clk / REFRESH_CLOCKS) & 1)
		v |= PORTB_REFRESH;
	if (pit8254_out(p, 2))
		v |= PORTB_OUT2;
	return v;
}

static void port_b_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct pit8254 *p = opaque;
	p->port_b = (uint8_t)(value & PORTB_WRITABLE);
	pit8254_set_gate(p, 2, value & PORTB_GATE2);
}

static const struct pio_ops pit_ops = { .read = pit_read, .write = pit_write };
static const struct pio_ops port_b_ops = { .read = port_b_read, .write = port_b_write };

void pit8254_init(struct pit8254 *p, struct vclock *clock)
{
	struct irq_line out[PIT_CHANNELS];
	for (unsigned i = 0; i < PIT_CHANNELS; i++)
		out[i] = p->ch[i].out;
	memset(p, 0, sizeof(*p));
	p->clock = clock;
	for (unsigned i = 0; i < PIT_CHANNELS; i++) {
		struct pit_channel *ch = &p->ch[i];
		ch->pit = p;
		ch->index = i;
		ch->out = out[i];
		ch->rw = 3;
		ch->gate = i != 2;
		ch->null_count = true;
		ch->load_at = NEVER;
		ch->timer = (struct vtimer){ .fire = channel_fire, .opaque = ch, .name = "pit" };
	}
}

bool pit8254_register(struct pit8254 *p, struct iobus *io)
{
	return iobus_register(io, PIT_PORT, 4, &pit_ops, p, "pit") &&
	       iobus_register(io, PIT_PORT_B, 1, &port_b_ops, p, "port-b");
}
