/* The PIIX4 power-management function (devices/piix4_pm.c) through its PCI
 * configuration space and I/O block in virtual time: the ACPI PM timer's
 * arithmetic (24 bits at 3.579545 MHz, ACPI 6.0 4.8.3.3), TMR_STS at each
 * change of bit 23 and its SCI while TMR_EN is set, the write-1-to-clear
 * status bits (4.8.3.1), SCI_EN set from reset, SLP_EN with the soft-off
 * SLP_TYP powering off (4.8.3.2.1; PIIX4 datasheet PMCNTRL), GPE0, and PMBA/
 * PMREGMISC gating the block (PIIX4 datasheet PMBA, PMREGMISC). The clock runs
 * at 1 GHz: PM timer count k is tick ceil(k * 1e9 / 3579545). */
#include <check.h>
#include <string.h>

#include "devices/piix4_pm.h"
#include "fake_clock.h"
#include "suite_runner.h"

#define B PIIX4_PM_BASE

struct rig {
	struct fake_time t;
	struct iobus io;
	struct pci_host pci;
	struct piix4_pm pm;
	struct line_log sci;
	struct power_control power;
	enum power_request last;
	unsigned requests;
};

static void on_request(void *opaque, enum power_request what, const char *source)
{
	struct rig *r = opaque;
	(void)source;
	r->last = what;
	r->requests++;
}

static void rig_init(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	fake_time_init(&r->t, 1000000000);
	r->sci.time = &r->t;
	iobus_init(&r->io);
	pci_host_init(&r->pci, NULL, NULL);
	ck_assert(pci_host_register(&r->pci, &r->io));
	r->power = (struct power_control){ .request = on_request, .opaque = r };
	piix4_pm_init(&r->pm, &r->t.clock, &r->power, line_log_line(&r->sci));
	ck_assert(piix4_pm_attach(&r->pm, &r->pci, &r->io));
}

static uint32_t in(struct rig *r, unsigned off, unsigned size) { return iobus_read(&r->io, (uint16_t)(B + off), size); }
static void out(struct rig *r, unsigned off, unsigned size, uint32_t v) { iobus_write(&r->io, (uint16_t)(B + off), size, v); }

static uint32_t cfg(struct rig *r, unsigned reg, unsigned size)
{
	iobus_write(&r->io, PCI_CONFIG_ADDRESS, 4, PCI_CONFIG_ENABLE | 1u << 11 | 3u << 8 | (reg & 0xfc));
	return iobus_read(&r->io, (uint16_t)(PCI_CONFIG_DATA + (reg & 3)), size);
}

static void cfg_write(struct rig *r, unsigned reg, unsigned size, uint32_t v)
{
	iobus_write(&r->io, PCI_CONFIG_ADDRESS, 4, PCI_CONFIG_ENABLE | 1u << 11 | 3u << 8 | (reg & 0xfc));
	iobus_write(&r->io, (uint16_t)(PCI_CONFIG_DATA + (reg & 3)), size, v);
}

/* ACPI 6.0 4.8.3.3: 24 bits, wrapping; bit 23 changes every 2^23 counts. */
START_TEST(timer_arithmetic)
{
	ck_assert_uint_eq(pm_timer_value(0), 0);
	ck_assert_uint_eq(pm_timer_value(0xffffff), 0xffffff);
	ck_assert_uint_eq(pm_timer_value(0x1000000), 0);
	ck_assert_uint_eq(pm_timer_value(0x1234567), 0x234567);
	ck_assert_uint_eq(pm_timer_epoch(0x7fffff), 0);
	ck_assert_uint_eq(pm_timer_epoch(0x800000), 1);
	ck_assert_uint_eq(pm_timer_epoch(0x1000000), 2);
	struct vclock c;
	vclock_init(&c, 1000000000);
	/* One second of virtual time is 3579545 counts, exactly. */
	ck_assert_uint_eq(vclock_ticks_to(&c, 1000000000, PM_TIMER_HZ), PM_TIMER_HZ);
	ck_assert_uint_eq(vclock_ticks_to(&c, 279, PM_TIMER_HZ), 0);      /* 279.4 ns a count */
	ck_assert_uint_eq(vclock_ticks_to(&c, 280, PM_TIMER_HZ), 1);
	ck_assert_uint_eq(vclock_ticks_from(&c, 1, PM_TIMER_HZ), 280);
}
END_TEST

START_TEST(config_space)
{
	struct rig r;
	rig_init(&r);
	ck_assert_uint_eq(cfg(&r, 0x00, 4), 0x71138086u);
	ck_assert_uint_eq(cfg(&r, 0x08, 4), 0x06800003u);        /* class 068000h, revision 03h */
	ck_assert_uint_eq(cfg(&r, PIIX4_PMBA, 4), B | 1u);        /* bit 0: I/O space */
	ck_assert_uint_eq(cfg(&r, PIIX4_PMREGMISC, 1), PIIX4_PMIOSE);
	/* PMBA bits 5:1 read 0, bit 0 stays 1. */
	cfg_write(&r, PIIX4_PMBA, 4, 0xffffffffu);
	ck_assert_uint_eq(cfg(&r, PIIX4_PMBA, 4), 0xffc1u);
	/* Moved elsewhere (the block with it), or PMIOSE clear: nothing at 600h. */
	ck_assert_uint_eq(in(&r, PM_TMR, 4), 0xffffffffu);
	cfg_write(&r, PIIX4_PMBA, 4, B);
	ck_assert_uint_eq(in(&r, PM1_CNT, 2), PM1_CNT_SCI_EN);
	cfg_write(&r, PIIX4_PMREGMISC, 1, 0);
	ck_assert_uint_eq(in(&r, PM1_CNT, 2), 0xffff);
	out(&r, PM1_CNT, 2, PM1_CNT_SLP_EN);
	ck_assert_uint_eq(r.requests, 0);
}
END_TEST

/* PIIX4 datasheet PMBA: the block moves with it (SeaBIOS without QEMU's
 * tables puts it at B000h); a base whose ports another device holds leaves
 * it off until PMBA moves again; piix4_pm_program puts it back at 600h. */
START_TEST(pmba_moves_the_block)
{
	struct rig r;
	rig_init(&r);
	fake_time_run(&r.t, 1000000000);
	cfg_write(&r, PIIX4_PMBA, 4, 0xb000);
	ck_assert_uint_eq(in(&r, PM_TMR, 4), 0xffffffffu);                  /* 608h: nothing */
	ck_assert_uint_eq(iobus_read(&r.io, 0xb000 + PM_TMR, 4), PM_TIMER_HZ);
	iobus_write(&r.io, 0xb000 + PM1_CNT + 1, 1, (PM1_CNT_SLP_EN | PIIX4_SLP_TYP_SOFT_OFF << PM1_CNT_SLP_TYP_SHIFT) >> 8);
	ck_assert_uint_eq(r.requests, 1);
	cfg_write(&r, PIIX4_PMREGMISC, 1, 0);
	ck_assert_uint_eq(iobus_read(&r.io, 0xb000 + PM_TMR, 4), 0xffffffffu);
	cfg_write(&r, PIIX4_PMREGMISC, 1, PIIX4_PMIOSE);
	/* CC0h-CFFh would cover CONFIG_ADDRESS: the block stays off. */
	cfg_write(&r, PIIX4_PMBA, 2, 0x0cc0);
	ck_assert_uint_eq(iobus_read(&r.io, 0xb000 + PM_TMR, 4), 0xffffffffu);
	ck_assert_uint_eq(cfg(&r, 0x00, 4), 0x71138086u);                   /* CF8h still works */
	cfg_write(&r, PIIX4_PMBA, 2, 0xb040);
	ck_assert_uint_eq(iobus_read(&r.io, 0xb040 + PM_TMR, 4), PM_TIMER_HZ);
	piix4_pm_program(&r.pm);
	ck_assert_uint_eq(cfg(&r, PIIX4_PMBA, 4), B | 1u);
	ck_assert_uint_eq(in(&r, PM_TMR, 4), PM_TIMER_HZ);
	ck_assert_uint_eq(iobus_read(&r.io, 0xb040 + PM_TMR, 4), 0xffffffffu);
}
END_TEST

START_TEST(timer_counts)
{
	struct rig r;
	rig_init(&r);
	ck_assert_uint_eq(in(&r, PM_TMR, 4), 0);
	fake_time_run(&r.t, 1000000000);
	ck_assert_uint_eq(in(&r, PM_TMR, 4), PM_TIMER_HZ);
	/* Bytes and words of it; bits 31:24 read 0. */
	ck_assert_uint_eq(in(&r, PM_TMR, 1), PM_TIMER_HZ & 0xff);
	ck_assert_uint_eq(in(&r, PM_TMR + 2, 2), PM_TIMER_HZ >> 16);
	fake_time_run(&r.t, 5000000000ull);                   /* 17.9 M counts: wrapped */
	ck_assert_uint_eq(in(&r, PM_TMR, 4), (5ull * PM_TIMER_HZ) & 0xffffff);
	/* Read-only. */
	out(&r, PM_TMR, 4, 0);
	ck_assert_uint_eq(in(&r, PM_TMR, 4), (5ull * PM_TIMER_HZ) & 0xffffff);
}
END_TEST

/* TMR_STS: set at the change of bit 23, write 1 to clear, 0 leaves it. */
START_TEST(tmr_sts)
{
	struct rig r;
	rig_init(&r);
	uint64_t flip = vclock_ticks_from(&r.t.clock, 1u << 23, PM_TIMER_HZ);
	fake_time_run(&r.t, flip - 1);
	ck_assert_uint_eq(in(&r, PM1_STS, 2) & PM1_TMR, 0);
	fake_time_run(&r.t, flip);
	ck_assert_uint_eq(in(&r, PM1_STS, 2) & PM1_TMR, PM1_TMR);
	ck_assert_uint_eq(r.sci.rises, 0);                     /* TMR_EN clear: no SCI */
	out(&r, PM1_STS, 2, 0);
	ck_assert_uint_eq(in(&r, PM1_STS, 2) & PM1_TMR, PM1_TMR);
	out(&r, PM1_STS, 2, PM1_TMR);
	ck_assert_uint_eq(in(&r, PM1_STS, 2) & PM1_TMR, 0);
	/* The change back of bit 23 sets it again. */
	fake_time_run(&r.t, vclock_ticks_from(&r.t.clock, 2u << 23, PM_TIMER_HZ));
	ck_assert_uint_eq(in(&r, PM1_STS, 2) & PM1_TMR, PM1_TMR);
	/* A doubleword write at 00h reaches PM1_STS and PM1_EN. */
	out(&r, PM1_STS, 4, PM1_TMR | (uint32_t)PM1_PWRBTN << 16);
	ck_assert_uint_eq(in(&r, PM1_STS, 4), (uint32_t)PM1_PWRBTN << 16);
}
END_TEST

/* With TMR_EN the SCI rises at the change of bit 23 and stays up (a level)
 * until TMR_STS is cleared; SCI_EN clear holds it down. */
START_TEST(tmr_sci)
{
	struct rig r;
	rig_init(&r);
	out(&r, PM1_EN, 2, 0xffff);
	ck_assert_uint_eq(in(&r, PM1_EN, 2), PM1_EN_BITS);
	uint64_t flip = vclock_ticks_from(&r.t.clock, 1u << 23, PM_TIMER_HZ);
	fake_time_run(&r.t, flip + 1000);
	ck_assert_uint_eq(r.sci.rises, 1);
	ck_assert_uint_eq(r.sci.at[r.sci.n - 1], flip);
	ck_assert(r.sci.cur);
	out(&r, PM1_STS, 2, PM1_TMR);
	ck_assert(!r.sci.cur);
	fake_time_run(&r.t, 2 * flip + 1000);
	ck_assert_uint_eq(r.sci.rises, 2);
	out(&r, PM1_CNT, 2, 0);                                /* SCI_EN clear */
	ck_assert(!r.sci.cur);
	out(&r, PM1_CNT, 2, PM1_CNT_SCI_EN);
	ck_assert(r.sci.cur);
	out(&r, PM1_EN, 2, 0);
	ck_assert(!r.sci.cur);
	out(&r, PM1_STS, 2, PM1_TMR);
	fake_time_run(&r.t, 4 * flip);
	ck_assert_uint_eq(r.sci.rises, 3);                    /* from the re-enable above */
	ck_assert(!r.sci.cur);
}
END_TEST

START_TEST(gpe0)
{
	struct rig r;
	rig_init(&r);
	out(&r, PIIX4_GPE0 + 2, 2, 0x0003);
	ck_assert_uint_eq(in(&r, PIIX4_GPE0, 4), 0x00030000u);
	r.pm.acpi.gpe_sts = 0x0002;                  /* an event arrives (none is wired yet) */
	out(&r, PIIX4_GPE0, 2, 0);
	ck_assert(r.sci.cur);
	out(&r, PIIX4_GPE0, 2, 0x0002);
	ck_assert(!r.sci.cur);
	ck_assert_uint_eq(in(&r, PIIX4_GPE0, 2), 0);
}
END_TEST

/* PM1_CNT: SCI_EN from reset; SLP_TYP reads back, SLP_EN reads 0; SLP_EN
 * with SLP_TYP 0 (soft off) powers off, other types do nothing. */
START_TEST(sleep_control)
{
	struct rig r;
	rig_init(&r);
	ck_assert_uint_eq(in(&r, PM1_CNT, 2), PM1_CNT_SCI_EN);
	out(&r, PM1_CNT, 2, PM1_CNT_SCI_EN | 5u << PM1_CNT_SLP_TYP_SHIFT | PM1_CNT_SLP_EN | PM1_CNT_GBL_RLS);
	ck_assert_uint_eq(in(&r, PM1_CNT, 2), PM1_CNT_SCI_EN | 5u << PM1_CNT_SLP_TYP_SHIFT);
	ck_assert_uint_eq(r.requests, 0);
	out(&r, PM1_CNT, 2, PM1_CNT_SCI_EN);
	ck_assert_uint_eq(r.requests, 0);
	/* The high byte alone (SLP_TYP 0, SLP_EN) is enough. */
	out(&r, PM1_CNT + 1, 1, PM1_CNT_SLP_EN >> 8);
	ck_assert_uint_eq(r.requests, 1);
	ck_assert_uint_eq(r.last, POWER_OFF);
	ck_assert_uint_eq(in(&r, PM1_CNT, 2), PM1_CNT_SCI_EN);
	/* The SMI and clock-control registers read their reset value 0. */
	ck_assert_uint_eq(in(&r, 0x10, 4), 0);
	ck_assert_uint_eq(in(&r, 0x28, 4), 0);
}
END_TEST

static Suite *piix4_pm_suite(void)
{
	Suite *s = suite_create("piix4_pm");
	TCase *tc = tcase_create("pm");
	tcase_add_test(tc, timer_arithmetic);
	tcase_add_test(tc, config_space);
	tcase_add_test(tc, pmba_moves_the_block);
	tcase_add_test(tc, timer_counts);
	tcase_add_test(tc, tmr_sts);
	tcase_add_test(tc, tmr_sci);
	tcase_add_test(tc, gpe0);
	tcase_add_test(tc, sleep_control);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(piix4_pm_suite());
}
