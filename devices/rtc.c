/* The MC146818A RTC and CMOS RAM (see rtc.h). Section names refer to the
 * Motorola MC146818A datasheet: "Time, Calendar and Alarm Locations", "Update
 * Cycle", "Register A".."Register D", "Interrupts", "Divider Stages".
 *
 * Time: the oscillator runs at 32768 Hz of virtual time; the divider counts
 * its cycles from div_origin. An update cycle begins each time the divider
 * passes a multiple of 32768 (one second; the first 0.5 s after the divider
 * leaves reset), lasts tUC = 1984 us (65 cycles) and is announced by UIP tBUC
 * = 244 us (8 cycles) before (Table "Update Cycle Times", 32.768 kHz time
 * base). The time registers take their new values, UF is set and the alarm
 * compared at the end of the cycle. The periodic flag is set each time the
 * divider passes a multiple of the rate's period. Events are processed lazily
 * up to "now" on each access; a timer is armed only for the next event that
 * could raise IRQF.
 */
#include "devices/rtc.h"

#include <string.h>

#define NEVER UINT64_MAX
#define OSC_SECOND 32768
#define UPDATE_CYCLE 65            /* tUC, in oscillator cycles */
#define UPDATE_NOTICE 8            /* tBUC */
#define RESET_TO_FIRST_UPDATE 16384   /* "Divider Stages": 0.5 s after reset */

/* Register A: UIP, DV2-DV0 (010: 32.768 kHz time base running; 11x: divider
 * held in reset), RS3-RS0. Register B: SET, PIE, AIE, UIE, SQWE, DM, 24/12,
 * DSE. Register C: IRQF, PF, AF, UF. Register D: VRT. */
#define A_UIP 0x80
#define A_DV_MASK 0x70
#define A_DV_RUN 0x20
#define A_DV_RESET 0x60
#define B_SET 0x80
#define B_PIE 0x40
#define B_AIE 0x20
#define B_UIE 0x10
#define B_BINARY 0x04
#define B_24H 0x02
#define B_DSE 0x01
#define C_IRQF 0x80
#define C_FLAGS 0x70               /* PF, AF, UF: the same bits as PIE, AIE, UIE */
#define C_PF 0x40
#define C_AF 0x20
#define C_UF 0x10
#define D_VRT 0x80
#define ALARM_DONT_CARE 0xc0       /* "Time, Calendar and Alarm Locations" */
#define HOUR_PM 0x80

static uint64_t osc_now(const struct rtc *r)
{
	return vclock_ticks_to(r->clock, vclock_now(r->clock), RTC_OSC_HZ);
}

/* ---- the calendar ---- */

static unsigned days_in_month(unsigned month, bool leap_year)
{
	static const uint8_t days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (month < 1 || month > 12)
		return 31;
	return days[month - 1] + (month == 2 && leap_year);
}

/* The chip's calendar: a leap year every fourth year (year register % 4 = 0). */
static unsigned chip_days_in_month(unsigned month, unsigned year2)
{
	return days_in_month(month, year2 % 4 == 0);
}

bool rtc_time_valid(const struct rtc_time *t)
{
	bool leap = t->year % 4 == 0 && (t->year % 100 != 0 || t->year % 400 == 0);
	return t->year >= 1900 && t->year <= 2099 && t->month >= 1 && t->month <= 12 && t->day >= 1 &&
	       t->day <= days_in_month(t->month, leap) && t->hour < 24 && t->minute < 60 &&
	       t->second < 60;
}

/* 1 = Sunday ... 7 = Saturday, as the MC146818A counts (Sakamoto's method). */
static unsigned day_of_week(unsigned y, unsigned m, unsigned d)
{
	static const uint8_t t[12] = { 0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4 };
	if (m < 3)
		y--;
	return (y + y / 4 - y / 100 + y / 400 + t[m - 1] + d) % 7 + 1;
}

/* A register value in the data mode of register B (DM: binary or BCD). BCD
 * digits above 9 are taken at face value. */
static unsigned decode(const struct rtc *r, uint8_t v)
{
	return (r->cmos[RTC_REG_B] & B_BINARY) ? v : (v >> 4) * 10u + (v & 15);
}

static uint8_t encode(const struct rtc *r, unsigned v)
{
	return (r->cmos[RTC_REG_B] & B_BINARY) ? (uint8_t)v : (uint8_t)((v / 10) << 4 | v % 10);
}

/* Hours 0-23 from the hours register: 12-hour mode keeps 1-12 with PM in bit 7. */
static unsigned get_hour(const struct rtc *r)
{
	uint8_t v = r->cmos[RTC_HOURS];
	if (r->cmos[RTC_REG_B] & B_24H)
		return decode(r, v);
	return decode(r, v & 0x7f) % 12 + ((v & HOUR_PM) ? 12 : 0);
}

static void set_hour(struct rtc *r, unsigned h)
{
	if (r->cmos[RTC_REG_B] & B_24H)
		r->cmos[RTC_HOURS] = encode(r, h);
	else
		r->cmos[RTC_HOURS] = (uint8_t)(encode(r, h % 12 ? h % 12 : 12) | (h >= 12 ? HOUR_PM : 0));
}

/* One second forward, carrying through the calendar ("Update Cycle"); with
 * DSE the last Sunday of April skips 2:00-2:59 and the last Sunday of
 * October repeats 1:00-1:59 once (Register B, DSE). Years 00-99 wrap; every
 * fourth year is a leap year (the century is RAM the chip does not count). */
static void tick_second(struct rtc *r)
{
	unsigned sec = decode(r, r->cmos[RTC_SECONDS]) + 1, min = decode(r, r->cmos[RTC_MINUTES]);
	unsigned hour = get_hour(r), dow = decode(r, r->cmos[RTC_DAY_OF_WEEK]);
	unsigned day = decode(r, r->cmos[RTC_DAY_OF_MONTH]), month = decode(r, r->cmos[RTC_MONTH]);
	unsigned year = decode(r, r->cmos[RTC_YEAR]);
	bool dse = r->cmos[RTC_REG_B] & B_DSE;
	bool last_sunday = dow == 1 && day + 7 > chip_days_in_month(month, year);
	if (dse && last_sunday && hour == 1 && min == 59 && sec == 60) {
		if (month == 4) {
			hour = 2;        /* carries to 3:00:00 below */
		} else if (month == 10 && !r->dst_fell_back) {
			r->dst_fell_back = true;
			hour = 0;        /* carries to 1:00:00 again */
		}
	}
	if (sec >= 60) {
		sec = 0;
		if (++min >= 60) {
			min = 0;
			if (++hour >= 24) {
				hour = 0;
				r->dst_fell_back = false;
				dow = dow >= 7 ? 1 : dow + 1;
				if (++day > chip_days_in_month(month, year)) {
					day = 1;
					if (++month > 12) {
						month = 1;
						year = (year + 1) % 100;
					}
				}
			}
		}
	}
	r->cmos[RTC_SECONDS] = encode(r, sec);
	r->cmos[RTC_MINUTES] = encode(r, min);
	set_hour(r, hour);
	r->cmos[RTC_DAY_OF_WEEK] = encode(r, dow);
	r->cmos[RTC_DAY_OF_MONTH] = encode(r, day);
	r->cmos[RTC_MONTH] = encode(r, month);
	r->cmos[RTC_YEAR] = encode(r, year);
}

/* "Interrupts": the alarm fires when each of seconds, minutes and hours
 * equals its alarm byte, or the alarm byte is a don't-care (11xxxxxx). */
static bool alarm_matches(const struct rtc *r)
{
	static const uint8_t regs[3][2] = { { RTC_SECONDS, RTC_SECONDS_ALARM },
					    { RTC_MINUTES, RTC_MINUTES_ALARM },
					    { RTC_HOURS, RTC_HOURS_ALARM } };
	for (unsigned i = 0; i < 3; i++) {
		uint8_t alarm = r->cmos[regs[i][1]];
		if ((alarm & ALARM_DONT_CARE) != ALARM_DONT_CARE && alarm != r->cmos[regs[i][0]])
			return false;
	}
	return true;
}

/* ---- the divider and its events ---- */

/* Register A RS3-RS0 ("Register A", Table "Periodic Interrupt Rate"): the
 * period in oscillator cycles with the 32.768 kHz time base; 0: none. Rates
 * 1 and 2 repeat 8 and 9 (256 and 128 Hz). */
static uint32_t periodic_cycles(const struct rtc *r)
{
	unsigned rs = r->cmos[RTC_REG_A] & 15;
	if (rs == 0)
		return 0;
	if (rs <= 2)
		rs += 7;
	return 1u << (rs - 1);
}

/* The divider count at oscillator cycle osc. */
static int64_t divider(const struct rtc *r, uint64_t osc)
{
	return (int64_t)osc - r->div_origin;
}

/* The oscillator cycle at which the divider reaches d. */
static uint64_t at_divider(const struct rtc *r, int64_t d)
{
	return (uint64_t)(d + r->div_origin);
}

/* The first multiple m of period (m >= first) with divider count m + offset
 * after osc, as an oscillator cycle. */
static uint64_t next_multiple(const struct rtc *r, uint64_t osc, int64_t period, int64_t offset,
			      int64_t first)
{
	int64_t d = divider(r, osc) - offset;
	int64_t m = d < first ? first : (d / period + 1) * period;
	return at_divider(r, m + offset);
}

static bool updates_run(const struct rtc *r)
{
	return r->divider_running && !(r->cmos[RTC_REG_B] & B_SET);
}

/* "Interrupts": IRQF = PF.PIE + AF.AIE + UF.UIE, driving IRQ. */
static void update_irq(struct rtc *r)
{
	bool level = r->flags & r->cmos[RTC_REG_B] & C_FLAGS;
	if (level != r->irq_level) {
		r->irq_level = level;
		irq_set(&r->irq, level);
	}
}

/* Process the periodic ticks and update-cycle ends in (synced, osc]. Register
 * A and B cannot change in between: every write syncs first. */
static void sync_to(struct rtc *r, uint64_t osc)
{
	if (osc <= r->synced)
		return;
	if (r->divider_running) {
		uint32_t period = periodic_cycles(r);
		if (period && next_multiple(r, r->synced, period, 0, period) <= osc)
			r->flags |= C_PF;
		if (!(r->cmos[RTC_REG_B] & B_SET)) {
			for (uint64_t end = next_multiple(r, r->synced, OSC_SECOND, UPDATE_CYCLE, OSC_SECOND);
			     end <= osc; end += OSC_SECOND) {
				tick_second(r);
				r->flags |= C_UF;
				if (alarm_matches(r))
					r->flags |= C_AF;
			}
		}
	}
	r->synced = osc;
	update_irq(r);
}

/* Arm the timer for the next event that could raise IRQF (none while it is
 * already raised: the flags only matter once register C is read). */
static void rearm(struct rtc *r)
{
	uint64_t next = NEVER;
	uint8_t b = r->cmos[RTC_REG_B];
	if (!r->irq_level && r->divider_running) {
		uint32_t period = periodic_cycles(r);
		if ((b & B_PIE) && period)
			next = next_multiple(r, r->synced, period, 0, period);
		if ((b & (B_UIE | B_AIE)) && updates_run(r)) {
			uint64_t end = next_multiple(r, r->synced, OSC_SECOND, UPDATE_CYCLE, OSC_SECOND);
			if (end < next)
				next = end;
		}
	}
	if (next == NEVER)
		vtimer_cancel(r->clock, &r->timer);
	else
		vtimer_arm(r->clock, &r->timer, vclock_ticks_from(r->clock, next, RTC_OSC_HZ));
}

static void rtc_fire(void *opaque, uint64_t now)
{
	struct rtc *r = opaque;
	sync_to(r, vclock_ticks_to(r->clock, now, RTC_OSC_HZ));
	rearm(r);
}

/* "Register A" UIP: 1 from tBUC before an update cycle to its end; 0 while
 * SET inhibits updates or the divider is not running. */
static bool update_in_progress(const struct rtc *r, uint64_t osc)
{
	if (!updates_run(r))
		return false;
	int64_t d = divider(r, osc);
	int64_t phase = d % OSC_SECOND;
	return (phase >= OSC_SECOND - UPDATE_NOTICE && d + UPDATE_NOTICE >= OSC_SECOND) ||
	       (phase < UPDATE_CYCLE && d >= OSC_SECOND);
}

/* ---- registers ---- */

static uint8_t reg_read(struct rtc *r, uint8_t index)
{
	uint64_t osc = osc_now(r);
	sync_to(r, osc);
	switch (index) {
	case RTC_REG_A:
		return (uint8_t)((r->cmos[RTC_REG_A] & ~A_UIP) | (update_in_progress(r, osc) ? A_UIP : 0));
	case RTC_REG_C: {
		/* "Register C": reading clears every flag and releases IRQ. */
		uint8_t v = (uint8_t)(r->flags | (r->irq_level ? C_IRQF : 0));
		r->flags = 0;
		update_irq(r);
		rearm(r);
		return v;
	}
	case RTC_REG_D:
		return D_VRT;      /* "Register D": valid RAM and time (battery good) */
	default:
		return r->cmos[index];
	}
}

static void reg_write(struct rtc *r, uint8_t index, uint8_t v)
{
	uint64_t osc = osc_now(r);
	sync_to(r, osc);
	switch (index) {
	case RTC_REG_A: {
		/* UIP is read-only. DV 010 runs the divider, 11x holds it in reset
		 * (the first update comes 0.5 s after it leaves reset); hvemu's time
		 * base is the 32.768 kHz one, so the other codes stop it too. */
		bool run = (v & A_DV_MASK) == A_DV_RUN;
		if (run && !r->divider_running)
			r->div_origin = (int64_t)osc - (OSC_SECOND - RESET_TO_FIRST_UPDATE);
		r->divider_running = run;
		r->cmos[RTC_REG_A] = v & (uint8_t)~A_UIP;
		break;
	}
	case RTC_REG_B:
		/* "Register B": SET going high clears UIE (and UIP). */
		if (v & B_SET)
			v &= (uint8_t)~B_UIE;
		r->cmos[RTC_REG_B] = v;
		break;
	case RTC_REG_C:
	case RTC_REG_D:
		break;             /* read-only */
	default:
		r->cmos[index] = v;
		break;
	}
	update_irq(r);
	rearm(r);
}

/* Port 70H: the index (bits 6:0) and the NMI mask (bit 7: 1 = NMI disabled,
 * IBM PC/AT Technical Reference); write-only on the AT, so reads float to
 * all ones. Port 71H: the selected register. */
static uint32_t rtc_read(void *opaque, uint16_t port, unsigned size)
{
	struct rtc *r = opaque;
	uint32_t v = 0;
	for (unsigned i = 0; i < size; i++) {
		uint8_t b = ((port + i) & 1) ? reg_read(r, r->index) : 0xff;
		v |= (uint32_t)b << (8 * i);
	}
	return v;
}

static void update_nmi(struct rtc *r)
{
	bool level = r->nmi_source && !r->nmi_masked;
	if (level != r->nmi_level) {
		r->nmi_level = level;
		irq_set(&r->nmi_out, level);
	}
}

static void rtc_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct rtc *r = opaque;
	for (unsigned i = 0; i < size; i++) {
		uint8_t b = (uint8_t)(value >> (8 * i));
		if ((port + i) & 1) {
			reg_write(r, r->index, b);
		} else {
			r->index = b & 0x7f;
			r->nmi_masked = b & 0x80;
			update_nmi(r);
		}
	}
}

void rtc_nmi_source(void *opaque, unsigned pin, bool level)
{
	struct rtc *r = opaque;
	r->nmi_source = level;
	update_nmi(r);
}

static const struct pio_ops rtc_ops = { .read = rtc_read, .write = rtc_write };

bool rtc_register(struct rtc *r, struct iobus *io)
{
	return iobus_register(io, RTC_PORT, 2, &rtc_ops, r, "rtc");
}

/* ---- power-on ---- */

/* The CMOS RAM bytes an AT BIOS keeps and QEMU's PC model fills in (IBM PC/AT
 * Technical Reference, "CMOS RAM Address Map"; QEMU's pc_cmos_init):
 *   0FH shutdown status 0; 10H/12H no floppy or fixed-disk types;
 *   14H equipment byte 02H: a math coprocessor, no diskette drives, display
 *       type 00 (EGA/VGA, its own BIOS);
 *   15H-16H base memory in KiB (640); 17H-18H and 30H-31H memory above 1 MiB in
 *       KiB (at most 65535); 34H-35H memory above 16 MiB in 64 KiB units (at
 *       most 65535); 5BH-5DH memory above 4 GiB in 64 KiB units;
 *   32H the century (BCD); 5FH the number of CPUs less one. */
static void put16(struct rtc *r, unsigned at, uint64_t v)
{
	if (v > 0xffff)
		v = 0xffff;
	r->cmos[at] = (uint8_t)v;
	r->cmos[at + 1] = (uint8_t)(v >> 8);
}

static void cmos_ram_init(struct rtc *r, const struct rtc_config *cfg)
{
	uint64_t kib = cfg->ram_size >> 10;
	uint64_t below_4g = cfg->ram_size < (4ull << 30) ? cfg->ram_size : 4ull << 30;
	uint64_t above_4g = (cfg->ram_size - below_4g) >> 16;
	r->cmos[0x14] = 0x02;
	put16(r, 0x15, 640);
	put16(r, 0x17, kib > 1024 ? kib - 1024 : 0);
	put16(r, 0x30, kib > 1024 ? kib - 1024 : 0);
	put16(r, 0x34, below_4g > (16u << 20) ? (below_4g >> 16) - 256 : 0);
	r->cmos[0x5b] = (uint8_t)above_4g;
	r->cmos[0x5c] = (uint8_t)(above_4g >> 8);
	r->cmos[0x5d] = (uint8_t)(above_4g >> 16);
	r->cmos[0x5f] = (uint8_t)(cfg->cpus ? cfg->cpus - 1 : 0);
}

void rtc_init(struct rtc *r, struct vclock *clock, const struct rtc_config *cfg)
{
	struct irq_line irq = r->irq, nmi = r->nmi_out;
	memset(r, 0, sizeof(*r));
	r->clock = clock;
	r->irq = irq;
	r->nmi_out = nmi;
	r->timer = (struct vtimer){ .fire = rtc_fire, .opaque = r, .name = "rtc" };
	r->cmos[RTC_REG_A] = A_DV_RUN | 6;
	r->cmos[RTC_REG_B] = B_24H;
	r->divider_running = true;
	r->div_origin = 0;
	const struct rtc_time *t = &cfg->start;
	r->cmos[RTC_SECONDS] = encode(r, t->second);
	r->cmos[RTC_MINUTES] = encode(r, t->minute);
	set_hour(r, t->hour);
	r->cmos[RTC_DAY_OF_WEEK] = encode(r, day_of_week(t->year, t->month, t->day));
	r->cmos[RTC_DAY_OF_MONTH] = encode(r, t->day);
	r->cmos[RTC_MONTH] = encode(r, t->month);
	r->cmos[RTC_YEAR] = encode(r, t->year % 100);
	r->cmos[RTC_CENTURY] = encode(r, t->year / 100);
	cmos_ram_init(r, cfg);
	r->synced = vclock_ticks_to(clock, vclock_now(clock), RTC_OSC_HZ);
}
