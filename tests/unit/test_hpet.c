/* The HPET (devices/hpet.c) through its MMIO registers in virtual time,
 * against the IA-PC HPET specification 1.0a: capabilities, the main counter,
 * one-shot and periodic timers (value-set bit), 32-bit mode, edge and level
 * interrupts with the status register, legacy replacement routing and the
 * I/O APIC routes. Count k of the 100 MHz counter is tick 10k of a 1 GHz
 * clock. */
#include <check.h>
#include <string.h>

#include "devices/hpet.h"
#include "fake_clock.h"
#include "suite_runner.h"

#define CAP 0x000
#define CONF 0x010
#define ISR 0x020
#define COUNTER 0x0f0
#define TCONF(n) (0x100 + 0x20 * (n))
#define TCMP(n) (0x108 + 0x20 * (n))
#define ENABLE 1
#define LEGACY 2
#define T_LEVEL (1u << 1)
#define T_ENB (1u << 2)
#define T_PERIODIC (1u << 3)
#define T_VAL_SET (1u << 6)
#define T_32 (1u << 8)
#define T_ROUTE(p) ((uint64_t)(p) << 9)

struct rig {
	struct fake_time t;
	struct hpet hpet;
	struct physmem mem;
	struct line_log irq0, irq8, pin20;
};

static void rig_init(struct rig *r, uint32_t route_cap)
{
	memset(r, 0, sizeof(*r));
	fake_time_init(&r->t, 1000000000);
	r->irq0.time = r->irq8.time = r->pin20.time = &r->t;
	ck_assert(physmem_init(&r->mem, 1 << 20));
	r->hpet.irq0 = line_log_line(&r->irq0);
	r->hpet.irq8 = line_log_line(&r->irq8);
	r->hpet.route[20] = line_log_line(&r->pin20);
	hpet_init(&r->hpet, &r->t.clock, route_cap);
	ck_assert(hpet_map(&r->hpet, &r->mem));
}

static void rig_free(struct rig *r)
{
	physmem_destroy(&r->mem);
}

static uint64_t rd(struct rig *r, unsigned off, unsigned size)
{
	return physmem_read(&r->mem, HPET_BASE + off, size);
}

static void wr(struct rig *r, unsigned off, unsigned size, uint64_t v)
{
	physmem_write(&r->mem, HPET_BASE + off, size, v);
}

static void at_count(struct rig *r, uint64_t k)
{
	fake_time_run(&r->t, k * 10);
}

START_TEST(hpet_capabilities)
{
	struct rig r;
	rig_init(&r, 0x00f00000);
	/* 2.3.4: period 10 ns = 10^7 fs; vendor 8086H; legacy capable; 64-bit
	 * counter; three timers; revision 1. */
	ck_assert_uint_eq(rd(&r, CAP, 8), 0x009896808086a201ull);
	ck_assert_uint_eq(rd(&r, CAP, 4), 0x8086a201u);
	ck_assert_uint_eq(rd(&r, CAP + 4, 4), 10000000u);
	/* 2.3.8: periodic- and 64-bit-capable, no FSB; the routes wired. */
	for (unsigned n = 0; n < 3; n++)
		ck_assert_uint_eq(rd(&r, TCONF(n), 8), 0x00f0000000000030ull);
	/* Read-only bits stay. */
	wr(&r, CAP, 8, 0);
	ck_assert_uint_eq(rd(&r, CAP, 4), 0x8086a201u);
	rig_free(&r);
}
END_TEST

START_TEST(hpet_main_counter)
{
	struct rig r;
	rig_init(&r, 0);
	at_count(&r, 500);
	ck_assert_uint_eq(rd(&r, COUNTER, 8), 0);          /* halted after reset */
	wr(&r, COUNTER, 8, 1000);
	wr(&r, CONF, 4, ENABLE);
	at_count(&r, 800);
	ck_assert_uint_eq(rd(&r, COUNTER, 8), 1300);
	ck_assert_uint_eq(rd(&r, COUNTER + 4, 4), 0);
	wr(&r, CONF, 4, 0);
	at_count(&r, 2000);
	ck_assert_uint_eq(rd(&r, COUNTER, 8), 1300);
	/* A 32-bit write to the high half. */
	wr(&r, COUNTER + 4, 4, 2);
	ck_assert_uint_eq(rd(&r, COUNTER, 8), 0x200000514ull);
	rig_free(&r);
}
END_TEST

START_TEST(hpet_legacy_one_shot)
{
	struct rig r;
	rig_init(&r, 0);
	/* Without legacy routing the 8254 and the RTC pass through. */
	hpet_pit_input(&r.hpet, 0, true);
	ck_assert(r.irq0.cur);
	hpet_pit_input(&r.hpet, 0, false);
	wr(&r, TCONF(0), 8, T_ENB);
	wr(&r, TCMP(0), 8, 1000);
	wr(&r, CONF, 4, ENABLE | LEGACY);
	/* ... with it they are blocked. */
	hpet_pit_input(&r.hpet, 0, true);
	hpet_rtc_input(&r.hpet, 0, true);
	ck_assert(!r.irq0.cur);
	ck_assert(!r.irq8.cur);
	at_count(&r, 999);
	ck_assert(!r.irq0.cur);
	at_count(&r, 1000);
	ck_assert(r.irq0.cur);
	ck_assert_uint_eq(r.irq0.at[r.irq0.n - 1], 10000);
	ck_assert_uint_eq(r.irq0.rises, 2);                 /* the PIT's, then timer 0's */
	/* One-shot: the comparator keeps its value, no second interrupt. */
	at_count(&r, 100000);
	ck_assert_uint_eq(r.irq0.rises, 2);
	ck_assert_uint_eq(rd(&r, TCMP(0), 8), 1000);
	/* A comparator already passed does not fire (64-bit). */
	wr(&r, TCMP(0), 8, 5000);
	at_count(&r, 1ull << 30);
	ck_assert_uint_eq(r.irq0.rises, 2);
	/* Leaving legacy routing hands IRQ0/IRQ8 back to the PIT and RTC. */
	wr(&r, CONF, 4, ENABLE);
	ck_assert(r.irq0.cur);                             /* the PIT's OUT0 is high */
	ck_assert(r.irq8.cur);
	rig_free(&r);
}
END_TEST

START_TEST(hpet_periodic)
{
	struct rig r;
	rig_init(&r, 0);
	wr(&r, TCONF(0), 8, T_ENB | T_PERIODIC | T_VAL_SET);
	wr(&r, TCMP(0), 8, 1000);
	ck_assert_uint_eq(rd(&r, TCONF(0), 4) & T_VAL_SET, 0);   /* clears itself */
	wr(&r, CONF, 4, ENABLE | LEGACY);
	at_count(&r, 1500);
	ck_assert_uint_eq(r.irq0.rises, 1);
	ck_assert_uint_eq(rd(&r, TCMP(0), 8), 2000);             /* the next match */
	/* Without VAL_SET a write sets only the period. */
	wr(&r, TCMP(0), 8, 500);
	ck_assert_uint_eq(rd(&r, TCMP(0), 8), 2000);
	at_count(&r, 3100);
	ck_assert_uint_eq(r.irq0.rises, 4);                      /* 2000, 2500, 3000 */
	ck_assert_uint_eq(r.irq0.at[r.irq0.n - 1], 30000);
	ck_assert_uint_eq(rd(&r, TCMP(0), 8), 3500);
	/* Timer interrupts stop, and the line drops, with ENABLE_CNF clear. */
	wr(&r, CONF, 4, LEGACY);
	ck_assert(!r.irq0.cur);
	at_count(&r, 10000);
	ck_assert_uint_eq(r.irq0.rises, 4);
	rig_free(&r);
}
END_TEST

START_TEST(hpet_level_and_status)
{
	struct rig r;
	rig_init(&r, 0);
	wr(&r, TCONF(1), 8, T_LEVEL | T_ENB);
	wr(&r, TCMP(1), 8, 100);
	wr(&r, CONF, 4, ENABLE | LEGACY);
	at_count(&r, 100);
	ck_assert(r.irq8.cur);
	ck_assert_uint_eq(rd(&r, ISR, 8), 2);
	at_count(&r, 5000);
	ck_assert(r.irq8.cur);                             /* held until cleared */
	wr(&r, ISR, 8, 1);                                 /* another bit: no effect */
	ck_assert(r.irq8.cur);
	wr(&r, ISR, 8, 2);
	ck_assert(!r.irq8.cur);
	ck_assert_uint_eq(rd(&r, ISR, 8), 0);
	/* With its interrupt disabled the timer still sets its status bit. */
	wr(&r, TCONF(1), 8, T_LEVEL);
	wr(&r, TCMP(1), 8, 6000);
	at_count(&r, 6000);
	ck_assert_uint_eq(rd(&r, ISR, 8), 2);
	ck_assert(!r.irq8.cur);
	/* Edge mode sets no status bit. */
	wr(&r, ISR, 8, 2);
	wr(&r, TCONF(1), 8, T_ENB);
	wr(&r, TCMP(1), 8, 7000);
	at_count(&r, 7000);
	ck_assert(r.irq8.cur);
	ck_assert_uint_eq(rd(&r, ISR, 8), 0);
	rig_free(&r);
}
END_TEST

START_TEST(hpet_32bit_mode_and_routes)
{
	struct rig r;
	rig_init(&r, 0x00f00000);
	/* Timer 2 to I/O APIC input 20; an input not in the capability field
	 * is refused (the field reads back unchanged). */
	wr(&r, TCONF(2), 8, T_ENB | T_32 | T_ROUTE(20));
	ck_assert_uint_eq((rd(&r, TCONF(2), 4) >> 9) & 31, 20);
	wr(&r, TCONF(2), 8, T_ENB | T_32 | T_ROUTE(5));
	ck_assert_uint_eq((rd(&r, TCONF(2), 4) >> 9) & 31, 20);
	/* In 32-bit mode the comparator has 32 bits, and it matches the low
	 * half of the counter: after the wrap. */
	wr(&r, TCMP(2), 8, 0x100000010ull);
	ck_assert_uint_eq(rd(&r, TCMP(2), 8), 0x10);
	wr(&r, COUNTER, 8, 0xfffffff0u);
	wr(&r, CONF, 4, ENABLE);
	at_count(&r, 0x1f);
	ck_assert(!r.pin20.cur);
	at_count(&r, 0x20);
	ck_assert(r.pin20.cur);
	ck_assert_uint_eq(r.pin20.rises, 1);
	/* A one-shot 32-bit timer matches again after a full wrap. */
	at_count(&r, 0x20 + (1ull << 32) - 1);
	ck_assert_uint_eq(r.pin20.rises, 1);
	at_count(&r, 0x20 + (1ull << 32));
	ck_assert_uint_eq(r.pin20.rises, 2);
	/* Legacy routing leaves timer 2 on its route. */
	wr(&r, CONF, 4, ENABLE | LEGACY);
	ck_assert(r.pin20.cur);
	ck_assert(!r.irq0.cur);
	rig_free(&r);
}
END_TEST

static Suite *hpet_suite(void)
{
	Suite *s = suite_create("hpet");
	TCase *tc = tcase_create("hpet");
	tcase_add_test(tc, hpet_capabilities);
	tcase_add_test(tc, hpet_main_counter);
	tcase_add_test(tc, hpet_legacy_one_shot);
	tcase_add_test(tc, hpet_periodic);
	tcase_add_test(tc, hpet_level_and_status);
	tcase_add_test(tc, hpet_32bit_mode_and_routes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(hpet_suite());
}
