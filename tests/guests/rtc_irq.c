/* The MC146818A RTC through ports 70H/71H and IRQ8 (slave IR0): periodic
 * interrupts and register C (read clears; IRQ held until then), the
 * update-ended and alarm interrupts, the UIP protocol for reading the time,
 * BCD/binary and 12/24-hour formats, register D, the NMI-mask bit of port
 * 70H, and the CMOS bytes the AT BIOS layout defines (MC146818A datasheet;
 * IBM PC/AT Technical Reference). */
#include "lib/pc_irq.h"

#define V8 IRQ_BASE_SLAVE
#define REG_A 0x0a
#define REG_B 0x0b
#define REG_C 0x0c
#define REG_D 0x0d
#define UNMASK_8 0xfefb               /* IRQ2 (cascade) and IRQ8 */

static uint64_t hz;

static int bcd_ok(uint8_t v, unsigned lo, unsigned hi)
{
	if ((v & 0xf) > 9 || (v >> 4) > 9)
		return 0;
	unsigned d = (v >> 4) * 10u + (v & 0xf);
	return d >= lo && d <= hi;
}

static unsigned bcd(uint8_t v) { return (v >> 4) * 10u + (v & 0xf); }

/* Wait for n more IRQ8s (the handler reads register C into rtc_last_c). */
static int wait_irq8(unsigned n)
{
	return wait_count(&irq_count[V8], irq_count[V8] + n, 4 * n + 64);
}

/* Set the rate and the interrupt enables, clear register C, and reset the
 * 8259As' edge latches (ICW1) so no request from before is left. */
static void interrupts(uint8_t b_enables, uint8_t rate)
{
	cli();
	cmos_write(REG_A, (uint8_t)(0x20 | rate));
	cmos_write(REG_B, (uint8_t)((cmos_read(REG_B) & 0x8f) | b_enables));
	cmos_read(REG_C);
	pic_remap(0);
	pic_set_mask(UNMASK_8);
}

/* Average TSC ticks per periodic interrupt at rate. */
static uint64_t periodic(uint8_t rate, unsigned n)
{
	interrupts(0x40, rate);
	wait_irq8(1);
	uint64_t t0 = irq_tsc[V8];
	uint32_t got = irq_count[V8];
	wait_irq8(n);
	cli();
	uint64_t t1 = irq_tsc[V8];
	/* One more may arrive between the wait's last look and the CLI (a
	 * peer on a loaded host runs the guest slowly against its clock): t1
	 * is the last one's time, so divide by all that came. */
	uint32_t arrived = irq_count[V8] - got;
	check("periodic interrupts arrive (at least those waited for)", arrived >= n, 1);
	return udiv64(t1 - t0, arrived);
}

static void periodic_and_register_c(void)
{
	uint64_t p6 = periodic(6, 64);
	check("register C in the handler: IRQF and PF", rtc_last_c & 0xc0, 0xc0);
	uint64_t p3 = periodic(3, 64);
	gprintf("# periodic: rate 6 ");
	print_u64(p6);
	gprintf(", rate 3 ");
	print_u64(p3);
	gprintf(" TSC ticks\n");
	/* Rate 6 is 1024 Hz, rate 3 8192 Hz ("Register A" rate table). */
	check_timing("rate 3 is 8 times rate 6", within(p6, 8 * p3, 90, 110));
	if (hz)
		check_timing("rate 6: 976.5625 us by the TSC", within(p6, udiv64(hz, 1024), 95, 105));
	/* Register C left unread: IRQ stays up, no further interrupt. */
	interrupts(0x40, 6);
	rtc_keep_c = 1;
	uint32_t before = irq_count[V8];
	wait_irq8(1);
	cli();
	pit_wait(12000);                          /* 10 ms: 10 more periods */
	sti();
	pit_wait(12000);
	cli();
	check_quirk("register C unread: one interrupt only", irq_count[V8] - before, 1,
		    "QEMU's RTC gives more IRQ8s with register C unread");
	cmos_write(REG_A, 0x20);                  /* no periodic rate: no new PF */
	uint8_t c = cmos_read(REG_C);
	check_quirk("register C: IRQF and PF", c & 0xc0, 0xc0,
		    "QEMU's RTC gives more IRQ8s with register C unread (the handler read it)");
	check("register C: read clears it", cmos_read(REG_C) & 0xc0, 0);
	cmos_write(REG_A, 0x26);
	wait_irq8(1);
	cli();
	check_quirk("after the read, interrupts resume", irq_count[V8] - before, 2,
		    "QEMU's RTC gives more IRQ8s with register C unread");
	interrupts(0, 6);
}

static void time_and_updates(void)
{
	/* Update-ended interrupt: just after it, UIP is 0 and the time is good
	 * for nearly a second. */
	interrupts(0x10, 6);
	wait_irq8(1);
	cli();
	check("update-ended interrupt: UF in register C", rtc_last_c & 0x90, 0x90);
	check("UIP clear just after an update", cmos_read(REG_A) & 0x80, 0);
	uint64_t t0 = irq_tsc[V8];
	uint8_t s = cmos_read(0x00), m = cmos_read(0x02), h = cmos_read(0x04);
	uint8_t dow = cmos_read(0x06), dom = cmos_read(0x07), mon = cmos_read(0x08), yr = cmos_read(0x09);
	uint8_t cent = cmos_read(0x32);
	gprintf("# RTC %02x%02x-%02x-%02x %02x:%02x:%02x, day of week %x\n", cent, yr, mon, dom, h, m, s, dow);
	check_true("time and date are BCD in range", bcd_ok(s, 0, 59) && bcd_ok(m, 0, 59) && bcd_ok(h, 0, 23) &&
		   bcd_ok(dow, 1, 7) && bcd_ok(dom, 1, 31) && bcd_ok(mon, 1, 12) && bcd_ok(yr, 0, 99));
	check_quirk("the date is the fixed start, 2000-01-01, a Saturday",
		    cent == 0x20 && yr == 0 && mon == 1 && dom == 1 && dow == 7, 1,
		    "QEMU's RTC starts at the host's date");
	/* The next update: one second later. */
	wait_irq8(1);
	cli();
	uint64_t t1 = irq_tsc[V8];
	check("one update later, one second more", bcd(cmos_read(0x00)), (bcd(s) + 1) % 60);
	if (hz)
		check_timing("updates one second apart by the TSC", within(t1 - t0, hz, 95, 105));

	/* UIP: the 2 Hz periodic interrupt half a second and a second after
	 * the update; at the second one the next update begins (periodic taps
	 * and the one-second update come from the same divider), so UIP is 1,
	 * then falls within tUC (1984 us), and the seconds move on. */
	interrupts(0x40, 15);
	wait_irq8(2);
	cli();
	uint8_t s_before = cmos_read(0x00);
	check_quirk("UIP set at the start of the update", cmos_read(REG_A) & 0x80, 0x80,
		    "QEMU's UIP covers only the 244 us before an instantaneous update, and its periodic "
		    "interrupt is not in phase with the update");
	uint32_t polls = 0;
	while ((cmos_read(REG_A) & 0x80) && polls < 100) {
		pit_wait(100);
		polls++;
	}
	check_true("UIP falls within 2 ms", polls < 30);
	uint8_t s_after = cmos_read(0x00);
	check_quirk("after UIP falls, the new second", bcd(s_after), (bcd(s_before) + 1) % 60,
		    "QEMU's periodic interrupt is not in phase with the update");
	interrupts(0, 6);
}

static void alarm(void)
{
	/* Alarm two seconds ahead, minutes and hours don't-care (11xxxxxx). */
	interrupts(0x10, 6);
	wait_irq8(1);
	interrupts(0, 6);
	uint8_t s = cmos_read(0x00);
	uint8_t at = (uint8_t)(((bcd(s) + 2) % 60 / 10) << 4 | ((bcd(s) + 2) % 60 % 10));
	cmos_write(0x01, at);
	cmos_write(0x03, 0xc0);
	cmos_write(0x05, 0xff);
	interrupts(0x20, 6);
	wait_irq8(1);
	cli();
	check("alarm interrupt: AF in register C", rtc_last_c & 0xa0, 0xa0);
	check("alarm at the second set", cmos_read(0x00), at);
	interrupts(0, 6);
}

static void formats(void)
{
	/* Binary, 24-hour: 23:59:59 -> 00:00:00 and the next day. */
	cli();
	cmos_write(REG_B, 0x86);                 /* SET, binary, 24-hour */
	check("SET holds UIP at 0", cmos_read(REG_A) & 0x80, 0);
	cmos_write(0x00, 59);
	cmos_write(0x02, 59);
	cmos_write(0x04, 23);
	cmos_write(0x07, 5);
	cmos_write(0x08, 3);
	cmos_write(0x09, 24);
	cmos_write(0x32, 20);                    /* the century byte too (QEMU reads it in the data mode) */
	interrupts(0x10, 6);                     /* SET off, UIE on */
	cmos_write(REG_B, 0x16);
	wait_irq8(1);
	cli();
	check("binary: midnight", cmos_read(0x04) | cmos_read(0x02) | cmos_read(0x00), 0);
	check("binary: the next day", cmos_read(0x07), 6);
	/* BCD, 12-hour: 11:59:59 PM -> 12:00:00 AM (hour 12, PM bit clear). */
	cmos_write(REG_B, 0x80);                 /* SET, BCD, 12-hour */
	cmos_write(0x32, 0x20);
	cmos_write(0x09, 0x24);
	cmos_write(0x00, 0x59);
	cmos_write(0x02, 0x59);
	cmos_write(0x04, 0x91);                  /* PM 11 */
	cmos_write(REG_B, 0x10);
	cmos_read(REG_C);
	wait_irq8(1);
	cli();
	check("12-hour: 11:59:59 PM + 1 s = 12:00:00 AM", cmos_read(0x04), 0x12);
	/* Back to the PC's usual 24-hour BCD. */
	cmos_write(REG_B, 0x82);
	cmos_write(0x04, 0x00);
	cmos_write(REG_B, 0x02);
	cmos_read(REG_C);
}

static void registers_and_cmos(void)
{
	check("register A: 32.768 kHz time base, 1024 Hz (as firmware sets it)", cmos_read(REG_A) & 0x7f, 0x26);
	check("register B: 24-hour BCD, no interrupts", cmos_read(REG_B), 0x02);
	check("register D: VRT", cmos_read(REG_D), 0x80);
	/* Port 70H bit 7 masks NMI; bits 6:0 still select the register. */
	outb(0x70, 0x80 | REG_D);
	check("NMI-mask bit leaves the index alone", inb(0x71), 0x80);
	outb(0x70, REG_D);
	/* CMOS RAM: base memory 640 KiB; extended memory in KiB (17H-18H, and
	 * 30H-31H alike) agrees with the 64 KiB units above 16 MiB (34H-35H). */
	uint16_t base = (uint16_t)(cmos_read(0x15) | cmos_read(0x16) << 8);
	uint16_t ext = (uint16_t)(cmos_read(0x17) | cmos_read(0x18) << 8);
	uint16_t ext2 = (uint16_t)(cmos_read(0x30) | cmos_read(0x31) << 8);
	uint16_t above16 = (uint16_t)(cmos_read(0x34) | cmos_read(0x35) << 8);
	uint32_t ext_kib = (uint32_t)(above16 + 256) * 64 - 1024;
	gprintf("# CMOS: base %u KiB, extended %u KiB, above 16 MiB %u x 64 KiB\n", base, ext, above16);
	check("CMOS 15H-16H: 640 KiB base memory", base, 640);
	check("CMOS 30H-31H = 17H-18H", ext2, ext);
	check("CMOS 17H-18H agrees with 34H-35H", ext, ext_kib > 0xffff ? 0xffff : ext_kib);
	check("CMOS 14H: math coprocessor present", cmos_read(0x14) & 0x02, 0x02);
	check("CMOS 5FH: one CPU", cmos_read(0x5f), 0);
}

void guest_main(void)
{
	hz = tsc_hz();
	cli();
	irq_count_vectors(IRQ_BASE_MASTER, 16);
	pic_remap(0);
	pic_set_mask(UNMASK_8);
	registers_and_cmos();
	periodic_and_register_c();
	time_and_updates();
	alarm();
	formats();
	interrupts(0, 6);
	pic_set_mask(0xffff);
}
