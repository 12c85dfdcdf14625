/* 8254 counter 2 through port 61H (IBM PC/AT Technical Reference, "System
 * Control Port B": bit 0 GATE2, bit 1 speaker data, bits 3:2 parity/channel
 * check enables, bit 4 refresh toggle, bit 5 OUT2), polled, as firmware and
 * kernels calibrate the TSC with it; the 8254's GATE-driven modes 0, 1, 3
 * and 5, the counter latch, read-back and BCD counting (Intel 8254
 * datasheet). Times are compared with each other, and with the TSC's
 * frequency where CPUID 15H/16H gives it. */
#include "lib/pc_irq.h"

#define N 2386                  /* about 2 ms */

static uint64_t hz;

static int out2(void) { return (inb(0x61) >> 5) & 1; }
static void gate2(int on) { outb(0x61, (uint8_t)((inb(0x61) & 0x0c) | (on ? 1 : 0))); }

/* Poll until OUT2 reads level; the TSC ticks it took (from t0), or 0 after
 * `limit` polls. */
static uint64_t wait_out2(int level, uint64_t t0, uint32_t limit)
{
	for (uint32_t i = 0; i < limit; i++)
		if (out2() == level)
			return rdtsc() - t0;
	return 0;
}

/* Counter 2 in mode 0 with count: GATE high, then the TSC ticks until OUT2
 * rises (N + 1 pulses: "Mode 0"). */
static uint64_t one_shot(uint16_t count)
{
	gate2(0);
	pit_program(2, 0, count);
	uint64_t t0 = rdtsc();
	gate2(1);
	return wait_out2(1, t0, 50000000);
}

static uint8_t status2(void)
{
	outb(0x43, 0xe8);               /* read-back: status of counter 2 */
	return inb(0x42);
}

void guest_main(void)
{
	hz = tsc_hz();
	cli();

	pit_wait(1);                       /* counter 0: the pulse counter */

	/* Port 61H bits 1:0 (and on the AT, 3:2) read back as written. */
	outb(0x61, 0x02);
	check("port 61H: speaker data bit reads back", inb(0x61) & 0x03, 0x02);
	outb(0x61, 0x0c);
	check_quirk("port 61H: parity/channel-check enable bits read back", inb(0x61) & 0x0f, 0x0c,
		    "QEMU's port 61H does not keep bits 3:2");
	outb(0x61, 0x00);

	/* Mode 0 with GATE low: the count loads (CE = count) but holds. */
	pit_program(2, 0, 100);
	pit_wait(200);
	check_quirk("mode 0, GATE2 low: CE holds the count", pit_latch(2), 100,
		    "QEMU's 8254 counts in modes 0 and 4 whatever GATE is");
	check_quirk("mode 0, GATE2 low: OUT2 stays low", out2(), 0,
		    "QEMU's 8254 counts in modes 0 and 4 whatever GATE is");

	/* The TSC calibration of Linux and firmware: OUT2 rises count + 1
	 * pulses after GATE2 goes high; four times the count, four times the
	 * time. */
	uint64_t d1 = one_shot(N), d4 = one_shot(4 * N);
	gprintf("# mode 0 one-shot: count N ");
	print_u64(d1);
	gprintf(", count 4N ");
	print_u64(d4);
	gprintf(" TSC ticks\n");
	check_true("mode 0: OUT2 rises after the count", d1 != 0 && d4 != 0);
	check_timing("mode 0: 4 times the count, 4 times the time", within(d4, 4 * d1, 90, 110));
	if (hz)
		check_quirk("mode 0: count N takes N / 1193182 s by the TSC",
			    within(d1, udiv64((uint64_t)N * hz, PIT_HZ), 95, 105), 1,
			    "the TSC and CPUID 15H/16H of QEMU TCG need not agree");

	/* Bit 4 toggles with each refresh request, every 15.09 us (18 pulses):
	 * about N / 18 times while counter 2 counts N. */
	gate2(0);
	pit_program(2, 0, N);
	gate2(1);
	unsigned toggles = 0, last = inb(0x61) & 0x10;
	for (uint32_t i = 0; i < 50000000 && !out2(); i++) {
		unsigned b = inb(0x61) & 0x10;
		toggles += b != last;
		last = b;
	}
	gprintf("# refresh bit toggles during count N: %u\n", toggles);
	check_quirk("port 61H bit 4: toggles every 15 us", within(toggles, N / 18, 80, 120), 1,
		    "QEMU's refresh bit flips on every read of port 61H");

	/* Mode 3 on counter 2: OUT2 a square wave of period N. Eight rising
	 * edges take as long as a one-shot of 8N. */
	gate2(0);
	pit_program(2, 3, N);
	check("read-back status: mode 3, LSB/MSB, binary, OUT high", status2() & 0xbf, 0x80 | 0x36);
	gate2(1);
	uint64_t t0 = rdtsc();
	unsigned rises = 0;
	int prev = out2();
	for (uint32_t i = 0; i < 100000000 && rises < 9; i++) {
		int o = out2();
		if (o && !prev && ++rises == 1)
			t0 = rdtsc();
		prev = o;
	}
	uint64_t sq = rdtsc() - t0;
	check("mode 3: OUT2 rises each period", rises, 9);
	check_timing("mode 3: 8 periods of N as long as a count of 8N", within(sq, 2 * d4, 90, 110));
	/* GATE low forces OUT2 high at once ("Mode 3", Gate Pin Operations). */
	for (uint32_t i = 0; i < 10000000 && out2(); i++)
		;
	gate2(0);
	check_quirk("mode 3: GATE2 low sets OUT2 high", out2(), 1,
		    "QEMU's 8254 leaves OUT as it is when GATE falls in modes 2 and 3");

	/* Mode 1: a GATE rising edge triggers a one-shot: OUT2 low for count
	 * pulses. */
	pit_program(2, 1, N);
	pit_wait(N + 10);
	check_quirk("mode 1: OUT2 high until a trigger", out2(), 1, "QEMU's 8254 starts mode 1 at the count write");
	t0 = rdtsc();
	gate2(1);
	/* OUT goes low on the pulse after the trigger. */
	check_true("mode 1: OUT2 low after the trigger", wait_out2(0, t0, 10000000) != 0);
	uint64_t m1 = wait_out2(1, t0, 50000000);
	check_timing("mode 1: the one-shot lasts count pulses", within(m1, d1, 90, 110));

	/* Mode 5: the count enters CE at the trigger: NULL COUNT until then,
	 * CE counting down after. */
	gate2(0);
	pit_program(2, 5, 4 * N);
	check_quirk("mode 5: NULL COUNT before the trigger", (status2() >> 6) & 1, 1,
		    "QEMU's read-back status has no NULL COUNT bit");
	gate2(1);
	pit_wait(4);
	uint16_t a = pit_latch(2);
	pit_wait(4);
	uint16_t b = pit_latch(2);
	check_true("mode 5: CE counts down from the count after the trigger", a <= 4 * N && b < a);
	check("mode 5: NULL COUNT clear after the trigger", (status2() >> 6) & 1, 0);

	/* A latched count stays until read; a second latch is ignored. */
	gate2(0);
	pit_program(2, 2, 0);
	gate2(1);
	pit_wait(4);
	outb(0x43, 0x80);                  /* latch counter 2 */
	pit_wait(100);
	uint16_t first = pit_latch(2);     /* this second latch command is ignored */
	pit_wait(100);
	uint16_t later = pit_latch(2);
	/* The read gave the value of the first latch, 200 pulses (and the time
	 * the waits overshoot) before the last one; had the second latch been
	 * taken, about 100. */
	check_true("counter latch: a second latch before the read is ignored",
		   (uint16_t)(first - later) >= 180);

	/* BCD: count 0500 is five hundred; CE reads as BCD digits. */
	outb(0x43, 0xb1);                  /* counter 2, LSB/MSB, mode 0, BCD */
	outb(0x42, 0x00);
	outb(0x42, 0x05);
	pit_wait(51);
	uint16_t bcd = pit_latch(2);
	check_quirk("BCD: count 0500 less 50-odd pulses reads 04xx in BCD digits",
		    bcd >= 0x0440 && bcd <= 0x0450 && (bcd & 0xf) <= 9, 1, "QEMU's 8254 counts in binary only");
	gate2(0);
}
