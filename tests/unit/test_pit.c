/* The 8254 (devices/pit8254.c) and port 61H in virtual time, against the
 * Intel 8254 datasheet: OUT and CE in each of the six modes, GATE, the write
 * and read sequences, latch and read-back commands, BCD counts. Pulse k of the
 * 1193182 Hz clock is at tick vclock_ticks_from(k); a write at pulse w loads
 * the count at pulse w + 1. */
#include <check.h>
#include <string.h>

#include "devices/pit8254.h"
#include "fake_clock.h"
#include "suite_runner.h"

struct rig {
	struct fake_time t;
	struct pit8254 pit;
	struct iobus io;
	struct line_log out0;
};

static void rig_init(struct rig *r, uint64_t hz)
{
	memset(r, 0, sizeof(*r));
	fake_time_init(&r->t, hz);
	r->out0.time = &r->t;
	iobus_init(&r->io);
	r->pit.ch[0].out = line_log_line(&r->out0);
	pit8254_init(&r->pit, &r->t.clock);
	ck_assert(pit8254_register(&r->pit, &r->io));
}

static uint64_t tick_of(struct rig *r, uint64_t pulse)
{
	return vclock_ticks_from(&r->t.clock, pulse, PIT_HZ);
}

static void at_pulse(struct rig *r, uint64_t pulse)
{
	fake_time_run(&r->t, tick_of(r, pulse));
}

static void out8(struct rig *r, uint16_t port, uint8_t v) { iobus_write(&r->io, port, 1, v); }
static uint8_t in8(struct rig *r, uint16_t port) { return (uint8_t)iobus_read(&r->io, port, 1); }

/* Control word for counter ch, LSB/MSB, mode, binary; then the count. */
static void program(struct rig *r, unsigned ch, unsigned mode, uint16_t count)
{
	out8(r, 0x43, (uint8_t)(ch << 6 | 3 << 4 | mode << 1));
	out8(r, (uint16_t)(0x40 + ch), (uint8_t)count);
	out8(r, (uint16_t)(0x40 + ch), (uint8_t)(count >> 8));
}

/* CE through a counter latch command. */
static uint16_t read_latched(struct rig *r, unsigned ch)
{
	out8(r, 0x43, (uint8_t)(ch << 6));
	uint16_t v = in8(r, (uint16_t)(0x40 + ch));
	return (uint16_t)(v | in8(r, (uint16_t)(0x40 + ch)) << 8);
}

static bool out2(struct rig *r) { return in8(r, 0x61) & 0x20; }

/* OUT0's waveform after "program counter 0" at pulse 0 (the count loads at
 * pulse 1), one row per mode and count, the Intel 8254 datasheet's mode
 * descriptions: edge k of OUT0 at pulse edge[k].pulse with edge[k].level;
 * edge 0 is the control word's (OUT high in modes 2-4). n_edges: exactly that
 * many edges by run_to, or 0 where the mode goes on (at least max_edge). */
struct waveform_row {
	const char *name;
	unsigned mode;
	uint16_t count;
	uint64_t run_to;
	unsigned n_edges;
	unsigned max_edge;         /* edges 1..max_edge are checked */
	struct { uint64_t pulse; bool level; } edge[9];
};

static const struct waveform_row waveform_rows[] = {
	/* Mode 2: low while CE = 1 (pulse N), high again at the reload (N + 1):
	 * every N pulses. */
	{ "mode 2, count 100", 2, 100, 450, 0, 8,
	  { { 0, true }, { 100, false }, { 101, true }, { 200, false }, { 201, true },
	    { 300, false }, { 301, true }, { 400, false }, { 401, true } } },
	/* Mode 3, even count: high N/2 pulses, low N/2. */
	{ "mode 3, count 10", 3, 10, 30, 0, 3,
	  { { 0, true }, { 6, false }, { 11, true }, { 16, false } } },
	/* Mode 3, odd count: high (N + 1) / 2, low (N - 1) / 2. */
	{ "mode 3, count 11", 3, 11, 40, 0, 4,
	  { { 0, true }, { 7, false }, { 12, true }, { 18, false }, { 23, true } } },
	/* Mode 4: one pulse low at terminal count (N + 1 after the write), then
	 * high for good. */
	{ "mode 4, count 5", 4, 5, 100, 3, 2,
	  { { 0, true }, { 6, false }, { 7, true } } },
};

START_TEST(pit_waveforms)
{
	const struct waveform_row *w = &waveform_rows[_i];
	struct rig r;
	rig_init(&r, 1000000000);
	program(&r, 0, w->mode, w->count);
	at_pulse(&r, w->run_to);
	if (w->n_edges)
		ck_assert_msg(r.out0.n == w->n_edges, "%s: %u edges, not %u", w->name, r.out0.n, w->n_edges);
	else
		ck_assert_msg(r.out0.n > w->max_edge, "%s: only %u edges", w->name, r.out0.n);
	for (unsigned k = 1; k <= w->max_edge; k++) {
		ck_assert_msg(r.out0.at[k] == tick_of(&r, w->edge[k].pulse), "%s: edge %u at tick %llu, not pulse %llu",
			      w->name, k, (unsigned long long)r.out0.at[k], (unsigned long long)w->edge[k].pulse);
		ck_assert_msg(r.out0.level[k] == w->edge[k].level, "%s: edge %u goes %s", w->name, k,
			      r.out0.level[k] ? "high" : "low");
	}
}
END_TEST

START_TEST(pit_mode2_rate_generator)
{
	struct rig r;
	rig_init(&r, 1000000000);
	program(&r, 0, 2, 100);
	/* OUT high from the control word; low while CE = 1 (pulse 100), high
	 * again at the reload (101): every 100 pulses. */
	at_pulse(&r, 50);
	ck_assert_uint_eq(read_latched(&r, 0), 100 - 49);
	at_pulse(&r, 450);
	/* OUT high from the control word (its edges after: pit_waveforms). */
	ck_assert_uint_ge(r.out0.n, 9);
	ck_assert(r.out0.level[0]);
	ck_assert_uint_eq(r.out0.at[0], 0);
	/* Count 0 is 65536. */
	program(&r, 0, 2, 0);
	uint64_t w = vclock_ticks_to(&r.t.clock, r.t.now, PIT_HZ);
	unsigned n = r.out0.n;
	at_pulse(&r, w + 65536 + 5);
	ck_assert_uint_eq(r.out0.n, n + 2);
	ck_assert_uint_eq(r.out0.at[n], tick_of(&r, w + 65536));
}
END_TEST

START_TEST(pit_mode0_interrupt_on_terminal_count)
{
	struct rig r;
	rig_init(&r, 1000000000);
	out8(&r, 0x43, 0x30);
	ck_assert(!r.out0.cur);
	out8(&r, 0x40, 1000 & 0xff);
	out8(&r, 0x40, 1000 >> 8);
	at_pulse(&r, 500);
	ck_assert_uint_eq(read_latched(&r, 0), 1000 - 499);
	ck_assert(!r.out0.cur);
	at_pulse(&r, 1100);
	/* High N + 1 pulses after the count was written, and it stays high. */
	ck_assert_uint_eq(r.out0.n, 1);
	ck_assert_uint_eq(r.out0.at[0], tick_of(&r, 1001));
	/* The counter keeps counting past zero. */
	ck_assert_uint_eq(read_latched(&r, 0), (uint16_t)(1000 - 1099));
	/* The first byte of a new count sets OUT low at once and holds CE. */
	out8(&r, 0x40, 10);
	ck_assert(!r.out0.cur);
	uint16_t held = read_latched(&r, 0);
	at_pulse(&r, 1200);
	ck_assert_uint_eq(read_latched(&r, 0), held);
	out8(&r, 0x40, 0);
	at_pulse(&r, 1200 + 11);
	ck_assert(r.out0.cur);
	ck_assert_uint_eq(r.out0.at[r.out0.n - 1], tick_of(&r, 1211));
}
END_TEST

START_TEST(pit_mode3_square_wave)
{
	struct rig r;
	rig_init(&r, 1000000000);
	program(&r, 0, 3, 10);
	/* Even count: CE steps by two from 10. */
	at_pulse(&r, 1);
	ck_assert_uint_eq(read_latched(&r, 0), 10);
	at_pulse(&r, 2);
	ck_assert_uint_eq(read_latched(&r, 0), 8);
	at_pulse(&r, 6);
	ck_assert_uint_eq(read_latched(&r, 0), 10);
	/* Odd count: CE from N - 1 (the waveforms: pit_waveforms). */
	rig_init(&r, 1000000000);
	program(&r, 0, 3, 11);
	at_pulse(&r, 1);
	ck_assert_uint_eq(read_latched(&r, 0), 10);
}
END_TEST

START_TEST(pit_mode4_software_strobe)
{
	struct rig r;
	rig_init(&r, 1000000000);
	program(&r, 0, 4, 5);
	at_pulse(&r, 100);
	/* The strobe itself: pit_waveforms. A new count retriggers from the next
	 * pulse. */
	ck_assert_uint_eq(r.out0.n, 3);
	out8(&r, 0x40, 5);
	out8(&r, 0x40, 0);
	at_pulse(&r, 200);
	ck_assert_uint_eq(r.out0.at[3], tick_of(&r, 106));
}
END_TEST

START_TEST(pit_gate_modes_1_and_5)
{
	struct rig r;
	rig_init(&r, 1000000000);
	/* Channel 2, mode 1: no trigger yet, OUT high. */
	program(&r, 2, 1, 20);
	at_pulse(&r, 10);
	ck_assert(out2(&r));
	out8(&r, 0x61, 0x01);                      /* GATE rising at pulse 10 */
	at_pulse(&r, 11);
	ck_assert(!out2(&r));
	at_pulse(&r, 30);
	ck_assert(!out2(&r));
	at_pulse(&r, 31);
	ck_assert(out2(&r));
	/* Retrigger in the middle: the one-shot starts over. */
	out8(&r, 0x61, 0x00);
	at_pulse(&r, 40);
	out8(&r, 0x61, 0x01);
	at_pulse(&r, 50);
	out8(&r, 0x61, 0x00);
	out8(&r, 0x61, 0x01);
	at_pulse(&r, 70);
	ck_assert(!out2(&r));
	at_pulse(&r, 71);
	ck_assert(out2(&r));
	/* Mode 5: the strobe comes N + 1 pulses after the trigger. */
	out8(&r, 0x61, 0x00);
	program(&r, 2, 5, 4);
	at_pulse(&r, 100);
	ck_assert(out2(&r));
	out8(&r, 0x61, 0x01);
	at_pulse(&r, 104);
	ck_assert(out2(&r));
	at_pulse(&r, 105);
	ck_assert(!out2(&r));
	at_pulse(&r, 106);
	ck_assert(out2(&r));
}
END_TEST

START_TEST(pit_gate_modes_0_2_3)
{
	struct rig r;
	rig_init(&r, 1000000000);
	/* Mode 0 with GATE low: the count loads but holds. */
	program(&r, 2, 0, 10);
	at_pulse(&r, 50);
	ck_assert_uint_eq(read_latched(&r, 2), 10);
	ck_assert(!out2(&r));
	out8(&r, 0x61, 0x01);
	at_pulse(&r, 51);
	ck_assert_uint_eq(read_latched(&r, 2), 9);
	at_pulse(&r, 59);
	ck_assert(!out2(&r));
	at_pulse(&r, 60);
	ck_assert(out2(&r));
	/* Mode 2: GATE low forces OUT high and stops CE; high reloads. */
	program(&r, 2, 2, 10);
	at_pulse(&r, 105);
	uint16_t ce = read_latched(&r, 2);
	out8(&r, 0x61, 0x00);
	at_pulse(&r, 120);
	ck_assert(out2(&r));
	ck_assert_uint_eq(read_latched(&r, 2), ce);
	out8(&r, 0x61, 0x01);
	at_pulse(&r, 121);
	ck_assert_uint_eq(read_latched(&r, 2), 10);
	at_pulse(&r, 130);
	ck_assert(!out2(&r));                      /* CE = 1: 9 pulses after the reload */
	/* Mode 3 the same way: low half interrupted, OUT back high. */
	program(&r, 2, 3, 100);
	at_pulse(&r, 200);
	ck_assert(!out2(&r));
	out8(&r, 0x61, 0x00);
	ck_assert(out2(&r));
}
END_TEST

START_TEST(pit_latch_and_read_back)
{
	struct rig r;
	rig_init(&r, 1000000000);
	program(&r, 0, 2, 1000);
	/* Before the load pulse the status shows NULL COUNT. */
	out8(&r, 0x43, 0xe2);                      /* read-back: status of counter 0 */
	ck_assert_uint_eq(in8(&r, 0x40), 0x80 | 0x40 | 0x34);
	at_pulse(&r, 100);
	out8(&r, 0x43, 0x00);                      /* counter latch */
	at_pulse(&r, 150);
	out8(&r, 0x43, 0x00);                      /* ignored: not read yet */
	at_pulse(&r, 200);
	ck_assert_uint_eq(in8(&r, 0x40), (1000 - 99) & 0xff);
	ck_assert_uint_eq(in8(&r, 0x40), (1000 - 99) >> 8);
	/* Unlatched reads follow CE. */
	at_pulse(&r, 300);
	uint16_t v = in8(&r, 0x40);
	v |= (uint16_t)(in8(&r, 0x40) << 8);
	ck_assert_uint_eq(v, 1000 - 299);
	/* Read-back of count and status of counters 0 and 2: status first. */
	program(&r, 2, 0, 0x1234);
	at_pulse(&r, 310);
	out8(&r, 0x43, 0xc0 | 0x08 | 0x02);
	ck_assert_uint_eq(in8(&r, 0x40), 0x80 | 0x34);   /* OUT high, no null count */
	ck_assert_uint_eq(in8(&r, 0x40), (1000 - 309) & 0xff);
	ck_assert_uint_eq(in8(&r, 0x40), (1000 - 309) >> 8);
	/* Counter 2's GATE (port 61H bit 0) is low: loaded, not counting. */
	ck_assert_uint_eq(in8(&r, 0x42), 0x30);          /* mode 0, OUT low, loaded */
	ck_assert_uint_eq(in8(&r, 0x42), 0x34);
	ck_assert_uint_eq(in8(&r, 0x42), 0x12);
	/* Reading the control word register floats. */
	ck_assert_uint_eq(in8(&r, 0x43), 0xff);
}
END_TEST

START_TEST(pit_access_modes_and_bcd)
{
	struct rig r;
	rig_init(&r, 1000000000);
	/* LSB only: period 50; reads give the LSB. */
	out8(&r, 0x43, 0x14);
	out8(&r, 0x40, 50);
	at_pulse(&r, 160);
	ck_assert_uint_eq(r.out0.at[1], tick_of(&r, 50));
	ck_assert_uint_eq(r.out0.at[3], tick_of(&r, 100));
	ck_assert_uint_eq(in8(&r, 0x40), 50 - (159 % 50));
	/* MSB only: count 0x0200. */
	out8(&r, 0x43, 0x24);
	out8(&r, 0x40, 0x02);
	uint64_t w = vclock_ticks_to(&r.t.clock, r.t.now, PIT_HZ);
	at_pulse(&r, w + 11);
	ck_assert_uint_eq(in8(&r, 0x40), (0x200 - 10) >> 8);
	/* BCD: 0100 is one hundred, and CE reads in BCD. */
	out8(&r, 0x43, 0x35);
	out8(&r, 0x40, 0x00);
	out8(&r, 0x40, 0x01);
	w = vclock_ticks_to(&r.t.clock, r.t.now, PIT_HZ);
	at_pulse(&r, w + 51);
	ck_assert_uint_eq(read_latched(&r, 0), 0x0050);
	at_pulse(&r, w + 1 + 100 - 1);
	ck_assert(!r.out0.cur);                    /* CE = 1 */
	/* Reads and writes of a two-byte counter may interleave. */
	program(&r, 0, 2, 1000);
	w = vclock_ticks_to(&r.t.clock, r.t.now, PIT_HZ);
	at_pulse(&r, w + 11);
	out8(&r, 0x43, 0x00);
	ck_assert_uint_eq(in8(&r, 0x40), (1000 - 10) & 0xff);
	out8(&r, 0x40, 0x34);
	ck_assert_uint_eq(in8(&r, 0x40), (1000 - 10) >> 8);
	out8(&r, 0x40, 0x12);
	ck_assert_uint_eq(r.pit.ch[0].cr, 0x1234);
}
END_TEST

START_TEST(pit_mode2_new_count_at_period_end)
{
	struct rig r;
	rig_init(&r, 1000000000);
	program(&r, 0, 2, 100);
	at_pulse(&r, 150);
	out8(&r, 0x40, 10);
	out8(&r, 0x40, 0);
	/* The period running ends at 200/201; the new count takes over there. */
	out8(&r, 0x43, 0xe2);
	ck_assert(in8(&r, 0x40) & 0x40);           /* NULL COUNT until then */
	at_pulse(&r, 230);
	ck_assert_uint_eq(r.out0.at[3], tick_of(&r, 200));
	ck_assert_uint_eq(r.out0.at[4], tick_of(&r, 201));
	ck_assert_uint_eq(r.out0.at[5], tick_of(&r, 210));
	ck_assert_uint_eq(r.out0.at[7], tick_of(&r, 220));
}
END_TEST

START_TEST(pit_port_b)
{
	struct rig r;
	rig_init(&r, 1000000000);
	out8(&r, 0x61, 0xff);
	ck_assert_uint_eq(in8(&r, 0x61) & 0xcf, 0x0f);   /* bits 3:0 as written, 7:6 zero */
	/* Bit 4 toggles every 18 pulses (the AT's refresh request). */
	at_pulse(&r, 17);
	ck_assert_uint_eq(in8(&r, 0x61) & 0x10, 0);
	at_pulse(&r, 18);
	ck_assert_uint_eq(in8(&r, 0x61) & 0x10, 0x10);
	at_pulse(&r, 36);
	ck_assert_uint_eq(in8(&r, 0x61) & 0x10, 0);
	/* Bit 5 is OUT 2: mode 0 after the control word is low. */
	out8(&r, 0x43, 0xb0);
	ck_assert(!out2(&r));
	out8(&r, 0x43, 0xb6);
	ck_assert(out2(&r));
}
END_TEST

/* An instruction rate below the PIT's: several pulses per tick, and every
 * OUT edge still comes out, each at its own pulse's tick. */
START_TEST(pit_slow_clock_keeps_edges)
{
	struct rig r;
	rig_init(&r, 1000000);
	program(&r, 0, 2, 2);
	fake_time_run(&r.t, 100);                  /* 100 us: 119 pulses */
	ck_assert_uint_eq(r.out0.rises, 1 + (119 - 1) / 2);
}
END_TEST

static Suite *pit_suite(void)
{
	Suite *s = suite_create("pit8254");
	TCase *tc = tcase_create("pit");
	tcase_add_loop_test(tc, pit_waveforms, 0, sizeof(waveform_rows) / sizeof(waveform_rows[0]));
	tcase_add_test(tc, pit_mode2_rate_generator);
	tcase_add_test(tc, pit_mode0_interrupt_on_terminal_count);
	tcase_add_test(tc, pit_mode3_square_wave);
	tcase_add_test(tc, pit_mode4_software_strobe);
	tcase_add_test(tc, pit_gate_modes_1_and_5);
	tcase_add_test(tc, pit_gate_modes_0_2_3);
	tcase_add_test(tc, pit_latch_and_read_back);
	tcase_add_test(tc, pit_access_modes_and_bcd);
	tcase_add_test(tc, pit_mode2_new_count_at_period_end);
	tcase_add_test(tc, pit_port_b);
	tcase_add_test(tc, pit_slow_clock_keeps_edges);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(pit_suite());
}
