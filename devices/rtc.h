/* The PC's MC146818A-compatible real-time clock and CMOS RAM at ports 70H
 * (index, and the NMI mask in bit 7) and 71H (data), in virtual time.
 *
 * Time and date (BCD or binary, 12- or 24-hour, daylight saving) advance once
 * per virtual second in an update cycle that register A's UIP bit announces
 * 244 us ahead; the periodic, alarm and update-ended interrupts set register
 * C's flags, and IRQF drives IRQ8 (an irq_line) until register C is read.
 * The oscillator is the 32.768 kHz time base, and the clock starts at a fixed
 * date, so every run sees the same times. Source: the Motorola MC146818A
 * datasheet (sections cited in rtc.c); CMOS RAM contents as IBM's AT BIOS
 * defined them and QEMU/SeaBIOS use them.
 */
#ifndef HVEMU_DEVICES_RTC_H
#define HVEMU_DEVICES_RTC_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"
#include "devices/clock.h"
#include "devices/irq.h"

#define RTC_PORT 0x70
#define RTC_OSC_HZ 32768u
#define RTC_CMOS_SIZE 128

/* The register numbers of the clock part (MC146818A "Address Map"). */
enum {
	RTC_SECONDS = 0x00, RTC_SECONDS_ALARM = 0x01, RTC_MINUTES = 0x02, RTC_MINUTES_ALARM = 0x03,
	RTC_HOURS = 0x04, RTC_HOURS_ALARM = 0x05, RTC_DAY_OF_WEEK = 0x06, RTC_DAY_OF_MONTH = 0x07,
	RTC_MONTH = 0x08, RTC_YEAR = 0x09, RTC_REG_A = 0x0a, RTC_REG_B = 0x0b, RTC_REG_C = 0x0c,
	RTC_REG_D = 0x0d,
	RTC_CENTURY = 0x32,        /* IBM AT: the century in BCD (ACPI FADT CENTURY) */
};

/* A calendar date and time of day, as --rtc-base gives it. */
struct rtc_time {
	unsigned year;             /* 1900-2099 */
	unsigned month, day;       /* 1-12, 1-31 */
	unsigned hour, minute, second;
};

/* The default start: 2000-01-01 00:00:00, a Saturday. */
#define RTC_DEFAULT_START ((struct rtc_time){ 2000, 1, 1, 0, 0, 0 })

/* True when t is a real date from 1900 to 2099 and a time of day. */
bool rtc_time_valid(const struct rtc_time *t);

/* What the machine tells the CMOS RAM (the AT BIOS bytes; see rtc.c). */
struct rtc_config {
	struct rtc_time start;
	uint64_t ram_size;         /* bytes of RAM from address 0 */
	unsigned cpus;
};

struct rtc {
	struct vclock *clock;
	uint8_t index;             /* port 70H bits 6:0 */
	bool nmi_masked;           /* port 70H bit 7 */
	uint8_t cmos[RTC_CMOS_SIZE];   /* time registers as stored, status, RAM */
	uint8_t flags;             /* register C: PF, AF, UF (IRQF computed) */
	bool divider_running;      /* register A DV = 010 */
	int64_t div_origin;        /* oscillator cycle at which the divider read 0 */
	uint64_t synced;           /* oscillator cycle processed up to */
	bool dst_fell_back;        /* DSE: October's repeated hour was taken */
	struct irq_line irq;       /* IRQF: IRQ8 */
	bool irq_level;
	struct vtimer timer;       /* the next event that could set IRQF */
	/* The NMI mask of port 70H: the platform's NMI sources pass to nmi_out
	 * while it is clear. */
	struct irq_line nmi_out;
	bool nmi_source, nmi_level;
};

/* Power-on state: the CMOS as the machine's firmware left it (register A 26H:
 * 32.768 kHz time base, 1024 Hz periodic rate; register B 02H: 24-hour BCD,
 * no interrupts), the clock at cfg->start, the divider running with the
 * first update one virtual second after time 0. */
void rtc_init(struct rtc *r, struct vclock *clock, const struct rtc_config *cfg);

/* Claim ports 70H-71H. */
bool rtc_register(struct rtc *r, struct iobus *io);

/* A platform NMI source (I/O channel check, a debugger) at level: reaches
 * nmi_out unless port 70H bit 7 masks it. The signature of irq_line's set. */
void rtc_nmi_source(void *rtc, unsigned pin, bool level);

#endif
