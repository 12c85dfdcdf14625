/* The MC146818A RTC and CMOS RAM (devices/rtc.c) in virtual time, against the
 * Motorola MC146818A datasheet: the update cycle and UIP, the calendar in BCD
 * and binary, 12- and 24-hour modes, daylight saving, the periodic, alarm and
 * update-ended interrupts with register C, SET and the divider reset, the NMI
 * mask of port 70H, and the CMOS bytes the AT BIOS layout defines.
 * Oscillator cycle k (32768 Hz) is at tick vclock_ticks_from(k). */
#include <check.h>
#include <string.h>

#include "devices/rtc.h"
#include "fake_clock.h"
#include "suite_runner.h"

#define SECOND 32768u
#define UPDATE_END 65u            /* tUC after the second boundary */

struct rig {
	struct fake_time t;
	struct rtc rtc;
	struct iobus io;
	struct line_log irq, nmi;
};

static void rig_init_at(struct rig *r, struct rtc_time start, uint64_t ram)
{
	memset(r, 0, sizeof(*r));
	fake_time_init(&r->t, 1000000000);
	r->irq.time = &r->t;
	r->nmi.time = &r->t;
	iobus_init(&r->io);
	r->rtc.irq = line_log_line(&r->irq);
	r->rtc.nmi_out = line_log_line(&r->nmi);
	struct rtc_config cfg = { .start = start, .ram_size = ram, .cpus = 1 };
	rtc_init(&r->rtc, &r->t.clock, &cfg);
	ck_assert(rtc_register(&r->rtc, &r->io));
}

static void rig_init(struct rig *r)
{
	rig_init_at(r, RTC_DEFAULT_START, 128u << 20);
}

static void at_osc(struct rig *r, uint64_t k)
{
	fake_time_run(&r->t, vclock_ticks_from(&r->t.clock, k, RTC_OSC_HZ));
}

static uint8_t reg(struct rig *r, uint8_t i)
{
	iobus_write(&r->io, 0x70, 1, i);
	return (uint8_t)iobus_read(&r->io, 0x71, 1);
}

static void set_reg(struct rig *r, uint8_t i, uint8_t v)
{
	iobus_write(&r->io, 0x70, 1, i);
	iobus_write(&r->io, 0x71, 1, v);
}

static bool uip(struct rig *r) { return reg(r, RTC_REG_A) & 0x80; }

/* Set the clock with SET held, as the datasheet asks. */
static void set_time(struct rig *r, uint8_t b, const uint8_t v[7])
{
	set_reg(r, RTC_REG_B, (uint8_t)(b | 0x80));
	static const uint8_t regs[7] = { 0, 2, 4, 6, 7, 8, 9 };
	for (unsigned i = 0; i < 7; i++)
		set_reg(r, regs[i], v[i]);
	set_reg(r, RTC_REG_B, b);
}

START_TEST(rtc_power_on)
{
	struct rig r;
	rig_init(&r);
	ck_assert_uint_eq(reg(&r, RTC_REG_A), 0x26);
	ck_assert_uint_eq(reg(&r, RTC_REG_B), 0x02);
	ck_assert_uint_eq(reg(&r, RTC_REG_C), 0x00);
	ck_assert_uint_eq(reg(&r, RTC_REG_D), 0x80);
	/* 2000-01-01 00:00:00, a Saturday (day 7), in BCD. */
	ck_assert_uint_eq(reg(&r, RTC_SECONDS), 0);
	ck_assert_uint_eq(reg(&r, RTC_HOURS), 0);
	ck_assert_uint_eq(reg(&r, RTC_DAY_OF_WEEK), 7);
	ck_assert_uint_eq(reg(&r, RTC_DAY_OF_MONTH), 1);
	ck_assert_uint_eq(reg(&r, RTC_MONTH), 1);
	ck_assert_uint_eq(reg(&r, RTC_YEAR), 0);
	ck_assert_uint_eq(reg(&r, RTC_CENTURY), 0x20);
	/* CMOS RAM: equipment, base memory 640 KiB, extended memory (capped),
	 * memory above 16 MiB in 64 KiB units, none above 4 GiB, one CPU. */
	ck_assert_uint_eq(reg(&r, 0x14), 0x02);
	ck_assert_uint_eq(reg(&r, 0x15) | reg(&r, 0x16) << 8, 640);
	ck_assert_uint_eq(reg(&r, 0x17) | reg(&r, 0x18) << 8, 0xffff);
	ck_assert_uint_eq(reg(&r, 0x30) | reg(&r, 0x31) << 8, 0xffff);
	ck_assert_uint_eq(reg(&r, 0x34) | reg(&r, 0x35) << 8, 2048 - 256);
	ck_assert_uint_eq(reg(&r, 0x5b) | reg(&r, 0x5c) | reg(&r, 0x5d), 0);
	ck_assert_uint_eq(reg(&r, 0x5f), 0);
	rig_init_at(&r, (struct rtc_time){ 1999, 12, 31, 23, 59, 58 }, 32u << 20);
	ck_assert_uint_eq(reg(&r, 0x17) | reg(&r, 0x18) << 8, 31744);
	ck_assert_uint_eq(reg(&r, 0x34) | reg(&r, 0x35) << 8, 256);
	ck_assert_uint_eq(reg(&r, RTC_DAY_OF_WEEK), 6);     /* a Friday */
	ck_assert_uint_eq(reg(&r, RTC_CENTURY), 0x19);
	ck_assert_uint_eq(reg(&r, RTC_SECONDS), 0x58);
	/* Port 70H is write-only; RAM bytes are RAM; C and D are read-only. */
	ck_assert_uint_eq(iobus_read(&r.io, 0x70, 1), 0xff);
	set_reg(&r, 0x40, 0x5a);
	ck_assert_uint_eq(reg(&r, 0x40), 0x5a);
	set_reg(&r, RTC_REG_D, 0);
	ck_assert_uint_eq(reg(&r, RTC_REG_D), 0x80);
	set_reg(&r, RTC_REG_A, 0xa6);                       /* UIP is read-only */
	ck_assert_uint_eq(reg(&r, RTC_REG_A), 0x26);
}
END_TEST

START_TEST(rtc_update_cycle)
{
	struct rig r;
	rig_init(&r);
	/* UIP from 244 us (8 cycles) before the update to its end (1984 us,
	 * 65 cycles); the time changes and UF is set at the end. */
	at_osc(&r, SECOND - 9);
	ck_assert(!uip(&r));
	at_osc(&r, SECOND - 8);
	ck_assert(uip(&r));
	at_osc(&r, SECOND + UPDATE_END - 1);
	ck_assert(uip(&r));
	ck_assert_uint_eq(reg(&r, RTC_SECONDS), 0);
	at_osc(&r, SECOND + UPDATE_END);
	ck_assert(!uip(&r));
	ck_assert_uint_eq(reg(&r, RTC_SECONDS), 1);
	/* UF, and PF from the 1024 Hz rate: flags are set whatever the enables;
	 * no IRQF, none is enabled. */
	ck_assert_uint_eq(reg(&r, RTC_REG_C), 0x50);
	ck_assert_uint_eq(reg(&r, RTC_REG_C), 0x00);       /* read clears */
	/* Ten seconds later, lazily. */
	at_osc(&r, 11 * SECOND + UPDATE_END);
	ck_assert_uint_eq(reg(&r, RTC_SECONDS), 0x11);
	ck_assert_uint_eq(r.irq.n, 0);
}
END_TEST

START_TEST(rtc_calendar_carries)
{
	struct rig r;
	rig_init(&r);
	/* 1999-12-31 23:59:59, a Friday, in BCD 24-hour mode. */
	set_time(&r, 0x02, (const uint8_t[]){ 0x59, 0x59, 0x23, 6, 0x31, 0x12, 0x99 });
	at_osc(&r, SECOND + UPDATE_END);
	ck_assert_uint_eq(reg(&r, RTC_SECONDS), 0);
	ck_assert_uint_eq(reg(&r, RTC_MINUTES), 0);
	ck_assert_uint_eq(reg(&r, RTC_HOURS), 0);
	ck_assert_uint_eq(reg(&r, RTC_DAY_OF_WEEK), 7);
	ck_assert_uint_eq(reg(&r, RTC_DAY_OF_MONTH), 1);
	ck_assert_uint_eq(reg(&r, RTC_MONTH), 1);
	ck_assert_uint_eq(reg(&r, RTC_YEAR), 0);
	/* Leap year (year % 4 = 0): February 28 -> 29; else -> March 1. */
	set_time(&r, 0x02, (const uint8_t[]){ 0x59, 0x59, 0x23, 1, 0x28, 0x02, 0x24 });
	at_osc(&r, 2 * SECOND + UPDATE_END);
	ck_assert_uint_eq(reg(&r, RTC_DAY_OF_MONTH), 0x29);
	set_time(&r, 0x02, (const uint8_t[]){ 0x59, 0x59, 0x23, 1, 0x28, 0x02, 0x23 });
	at_osc(&r, 3 * SECOND + UPDATE_END);
	ck_assert_uint_eq(reg(&r, RTC_DAY_OF_MONTH), 1);
	ck_assert_uint_eq(reg(&r, RTC_MONTH), 3);
	/* Binary mode: 30 April 59:59 -> 1 May. */
	set_time(&r, 0x06, (const uint8_t[]){ 59, 59, 23, 2, 30, 4, 50 });
	at_osc(&r, 4 * SECOND + UPDATE_END);
	ck_assert_uint_eq(reg(&r, RTC_DAY_OF_MONTH), 1);
	ck_assert_uint_eq(reg(&r, RTC_MONTH), 5);
	ck_assert_uint_eq(reg(&r, RTC_DAY_OF_WEEK), 3);
	/* 12-hour mode: 11:59:59 PM -> 12:00:00 AM, 11:59:59 AM -> 12:00:00 PM. */
	set_time(&r, 0x00, (const uint8_t[]){ 0x59, 0x59, 0x91, 2, 0x01, 0x05, 0x50 });
	at_osc(&r, 5 * SECOND + UPDATE_END);
	ck_assert_uint_eq(reg(&r, RTC_HOURS), 0x12);
	ck_assert_uint_eq(reg(&r, RTC_DAY_OF_MONTH), 2);
	set_time(&r, 0x00, (const uint8_t[]){ 0x59, 0x59, 0x11, 2, 0x01, 0x05, 0x50 });
	at_osc(&r, 6 * SECOND + UPDATE_END);
	ck_assert_uint_eq(reg(&r, RTC_HOURS), 0x92);
	/* 12:59:59 PM -> 1:00:00 PM. */
	set_time(&r, 0x00, (const uint8_t[]){ 0x59, 0x59, 0x92, 2, 0x01, 0x05, 0x50 });
	at_osc(&r, 7 * SECOND + UPDATE_END);
	ck_assert_uint_eq(reg(&r, RTC_HOURS), 0x81);
}
END_TEST

START_TEST(rtc_daylight_saving)
{
	struct rig r;
	rig_init(&r);
	/* Sunday 30 April 2000, the last Sunday of April: 1:59:59 -> 3:00:00. */
	set_time(&r, 0x03, (const uint8_t[]){ 0x59, 0x59, 0x01, 1, 0x30, 0x04, 0x00 });
	at_osc(&r, SECOND + UPDATE_END);
	ck_assert_uint_eq(reg(&r, RTC_HOURS), 0x03);
	ck_assert_uint_eq(reg(&r, RTC_MINUTES), 0x00);
	/* Sunday 29 October 2000: 1:59:59 -> 1:00:00, once. */
	set_time(&r, 0x03, (const uint8_t[]){ 0x59, 0x59, 0x01, 1, 0x29, 0x10, 0x00 });
	at_osc(&r, 2 * SECOND + UPDATE_END);
	ck_assert_uint_eq(reg(&r, RTC_HOURS), 0x01);
	ck_assert_uint_eq(reg(&r, RTC_MINUTES), 0x00);
	at_osc(&r, (2 + 3600) * SECOND + UPDATE_END);
	ck_assert_uint_eq(reg(&r, RTC_HOURS), 0x02);
	ck_assert_uint_eq(reg(&r, RTC_MINUTES), 0x00);
}
END_TEST

START_TEST(rtc_periodic_interrupt)
{
	struct rig r;
	rig_init(&r);
	/* Rate 6: 1024 Hz, every 32 cycles. PF is set with PIE off, no IRQ. */
	at_osc(&r, 40);
	ck_assert_uint_eq(reg(&r, RTC_REG_C), 0x40);
	ck_assert_uint_eq(r.irq.n, 0);
	set_reg(&r, RTC_REG_B, 0x42);
	at_osc(&r, 63);
	ck_assert(!r.irq.cur);
	at_osc(&r, 64);
	ck_assert(r.irq.cur);
	ck_assert_uint_eq(r.irq.at[0], vclock_ticks_from(&r.t.clock, 64, RTC_OSC_HZ));
	/* Until register C is read IRQ stays up: one interrupt, however long. */
	at_osc(&r, 1000);
	ck_assert_uint_eq(r.irq.rises, 1);
	ck_assert_uint_eq(reg(&r, RTC_REG_C), 0xc0);
	ck_assert(!r.irq.cur);
	at_osc(&r, 1024);
	ck_assert(r.irq.cur);
	ck_assert_uint_eq(r.irq.at[2], vclock_ticks_from(&r.t.clock, 1024, RTC_OSC_HZ));
	reg(&r, RTC_REG_C);
	/* Rate 15: 2 Hz. Rate 0: none. */
	set_reg(&r, RTC_REG_A, 0x2f);
	at_osc(&r, 16384 - 1);
	ck_assert(!r.irq.cur);
	at_osc(&r, 16384);
	ck_assert(r.irq.cur);
	reg(&r, RTC_REG_C);
	set_reg(&r, RTC_REG_A, 0x20);
	at_osc(&r, 4 * SECOND);
	ck_assert(!r.irq.cur);
	/* Enabling PIE with PF already set raises IRQ at once. */
	set_reg(&r, RTC_REG_B, 0x02);
	set_reg(&r, RTC_REG_A, 0x26);
	at_osc(&r, 4 * SECOND + 100);
	ck_assert(!r.irq.cur);
	set_reg(&r, RTC_REG_B, 0x42);
	ck_assert(r.irq.cur);
}
END_TEST

START_TEST(rtc_alarm_and_update_interrupts)
{
	struct rig r;
	rig_init(&r);
	set_reg(&r, RTC_REG_A, 0x20);                       /* no periodic rate: no PF */
	/* Alarm at 00:00:03. */
	set_reg(&r, RTC_SECONDS_ALARM, 0x03);
	set_reg(&r, RTC_MINUTES_ALARM, 0x00);
	set_reg(&r, RTC_HOURS_ALARM, 0x00);
	set_reg(&r, RTC_REG_B, 0x22);
	at_osc(&r, 3 * SECOND + UPDATE_END - 1);
	ck_assert(!r.irq.cur);
	at_osc(&r, 3 * SECOND + UPDATE_END);
	ck_assert(r.irq.cur);
	ck_assert_uint_eq(reg(&r, RTC_REG_C), 0xb0);       /* IRQF, AF, UF */
	/* Don't-care bytes: every second. */
	set_reg(&r, RTC_SECONDS_ALARM, 0xc0);
	set_reg(&r, RTC_MINUTES_ALARM, 0xff);
	set_reg(&r, RTC_HOURS_ALARM, 0xc5);
	at_osc(&r, 4 * SECOND + UPDATE_END);
	ck_assert(r.irq.cur);
	ck_assert_uint_eq(reg(&r, RTC_REG_C), 0xb0);
	/* Update-ended interrupts only. */
	set_reg(&r, RTC_REG_B, 0x12);
	at_osc(&r, 5 * SECOND + UPDATE_END);
	ck_assert(r.irq.cur);
	ck_assert_uint_eq(reg(&r, RTC_REG_C), 0xb0);       /* AF too: flags need no enable */
	/* SET stops updates, clears UIE and UIP. */
	at_osc(&r, 6 * SECOND);
	ck_assert(uip(&r));
	set_reg(&r, RTC_REG_B, 0x92);
	ck_assert_uint_eq(reg(&r, RTC_REG_B), 0x82);
	ck_assert(!uip(&r));
	at_osc(&r, 10 * SECOND);
	ck_assert_uint_eq(reg(&r, RTC_SECONDS), 0x05);
	ck_assert_uint_eq(reg(&r, RTC_REG_C), 0x00);
	set_reg(&r, RTC_REG_B, 0x02);
	at_osc(&r, 11 * SECOND + UPDATE_END);
	ck_assert_uint_eq(reg(&r, RTC_SECONDS), 0x07);     /* the updates of 10 s and 11 s */
}
END_TEST

START_TEST(rtc_divider_reset)
{
	struct rig r;
	rig_init(&r);
	set_reg(&r, RTC_REG_A, 0x76);                       /* DV = 111: held in reset */
	at_osc(&r, 5 * SECOND);
	ck_assert_uint_eq(reg(&r, RTC_SECONDS), 0);
	ck_assert(!uip(&r));
	/* Released at cycle X: the first update half a second later. */
	uint64_t x = 5 * SECOND + 1000;
	at_osc(&r, x);
	set_reg(&r, RTC_REG_A, 0x26);
	at_osc(&r, x + SECOND / 2 - 9);
	ck_assert(!uip(&r));
	at_osc(&r, x + SECOND / 2 - 8);
	ck_assert(uip(&r));
	at_osc(&r, x + SECOND / 2 + UPDATE_END);
	ck_assert_uint_eq(reg(&r, RTC_SECONDS), 1);
	at_osc(&r, x + 3 * SECOND / 2 + UPDATE_END);
	ck_assert_uint_eq(reg(&r, RTC_SECONDS), 2);
}
END_TEST

START_TEST(rtc_nmi_mask)
{
	struct rig r;
	rig_init(&r);
	rtc_nmi_source(&r.rtc, 0, true);
	ck_assert(r.nmi.cur);
	rtc_nmi_source(&r.rtc, 0, false);
	iobus_write(&r.io, 0x70, 1, 0x8d);                  /* NMI off, index 0DH */
	ck_assert_uint_eq(iobus_read(&r.io, 0x71, 1), 0x80);
	rtc_nmi_source(&r.rtc, 0, true);
	ck_assert(!r.nmi.cur);
	/* Unmasking with the source still up: the NMI gets through. */
	iobus_write(&r.io, 0x70, 1, 0x0d);
	ck_assert(r.nmi.cur);
	ck_assert_uint_eq(r.nmi.rises, 2);
}
END_TEST

START_TEST(rtc_time_validation)
{
	ck_assert(rtc_time_valid(&(struct rtc_time){ 2024, 2, 29, 23, 59, 59 }));
	ck_assert(!rtc_time_valid(&(struct rtc_time){ 2023, 2, 29, 0, 0, 0 }));
	ck_assert(!rtc_time_valid(&(struct rtc_time){ 1900, 2, 29, 0, 0, 0 }));
	ck_assert(rtc_time_valid(&(struct rtc_time){ 2000, 2, 29, 0, 0, 0 }));
	ck_assert(!rtc_time_valid(&(struct rtc_time){ 2100, 1, 1, 0, 0, 0 }));
	ck_assert(!rtc_time_valid(&(struct rtc_time){ 2000, 4, 31, 0, 0, 0 }));
	ck_assert(!rtc_time_valid(&(struct rtc_time){ 2000, 1, 1, 24, 0, 0 }));
}
END_TEST

static Suite *rtc_suite(void)
{
	Suite *s = suite_create("rtc");
	TCase *tc = tcase_create("rtc");
	tcase_add_test(tc, rtc_power_on);
	tcase_add_test(tc, rtc_update_cycle);
	tcase_add_test(tc, rtc_calendar_carries);
	tcase_add_test(tc, rtc_daylight_saving);
	tcase_add_test(tc, rtc_periodic_interrupt);
	tcase_add_test(tc, rtc_alarm_and_update_interrupts);
	tcase_add_test(tc, rtc_divider_reset);
	tcase_add_test(tc, rtc_nmi_mask);
	tcase_add_test(tc, rtc_time_validation);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(rtc_suite());
}
