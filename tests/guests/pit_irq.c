/* 8254 counter 0 through the 8259A as IRQ0, in each of the six modes (Intel
 * 8254 datasheet, "Mode Definitions"; GATE0 is tied high on the PC), with
 * periods measured against the TSC: against its frequency from CPUID 15H/16H
 * where the CPU reports one, else against each other (a count four times as
 * large takes four times as long), so the checks hold on any clock. */
#include "lib/pc_irq.h"

#define VEC0 IRQ_BASE_MASTER
#define N 1193                  /* about 1 ms */

static uint64_t hz;

/* Average TSC ticks between n IRQ0s of counter 0 in mode with count. */
/* Program counter 0, then reinitialise the 8259As: ICW1 resets their edge
 * sense (8259A "Initialization Command Words"), so an OUT0 edge the control
 * word made, or one latched before, is no request; unmask IRQ0 alone. */
static void start(unsigned mode, uint16_t count)
{
	cli();
	irq_reset_counts();
	pit_program(0, mode, count);
	pic_remap(0);
	pic_set_mask(0xfffe);
}

static uint64_t period(unsigned mode, uint16_t count, unsigned n)
{
	start(mode, count);
	int ok = wait_count(&irq_count[VEC0], n + 1, 4 * n + 16);
	cli();
	pic_set_mask(0xffff);
	check_true("IRQ0s arrive", ok);
	if (!ok)
		return 1;
	return udiv64(irq_when[n] - irq_when[0], n);
}

/* The expected TSC ticks for pulses of the 1193182 Hz clock. */
static uint64_t ticks_for(uint64_t pulses)
{
	return udiv64(pulses * hz, PIT_HZ);
}

static void report(const char *what, uint64_t ticks)
{
	gprintf("# %s: ", what);
	print_u64(ticks);
	gprintf(" TSC ticks\n");
}

void guest_main(void)
{
	hz = tsc_hz();
	pic_remap(0);
	irq_count_vectors(IRQ_BASE_MASTER, 16);
	gprintf("# TSC %s\n", hz ? "frequency from CPUID 15H/16H" : "frequency unknown (no CPUID 15H/16H)");

	/* Mode 2, rate generator: an IRQ0 every N pulses. */
	uint64_t p1 = period(2, N, 16);
	uint64_t p4 = period(2, 4 * N, 8);
	report("mode 2, count N", p1);
	report("mode 2, count 4N", p4);
	check_timing("mode 2: a count 4 times larger, a period 4 times longer", within(p4, 4 * p1, 90, 110));
	if (hz)
		check_quirk("mode 2: period N / 1193182 s by the TSC", within(p1, ticks_for(N), 95, 105), 1,
			    "the TSC and CPUID 15H/16H of QEMU TCG need not agree");
	else
		skip("mode 2: period by the TSC", "no TSC frequency in CPUID");

	/* Mode 3, square wave: OUT rises once per period, N pulses. */
	uint64_t p3 = period(3, N, 16);
	report("mode 3, count N", p3);
	check_timing("mode 3: the same period as mode 2", within(p3, p1, 90, 110));

	/* Mode 0, interrupt on terminal count: OUT low from the control word,
	 * high N + 1 pulses after the count is written (one IRQ0), then high. */
	cli();
	irq_reset_counts();
	outb(0x43, 0x30);
	uint64_t t0 = rdtsc();
	outb(0x40, (uint8_t)(4 * N));
	outb(0x40, (uint8_t)((4 * N) >> 8));
	pic_remap(0);
	pic_set_mask(0xfffe);
	int ok = wait_count(&irq_count[VEC0], 1, 64);
	uint64_t delay = irq_when[0] - t0;
	rtc_sleep(16);
	cli();
	check_true("mode 0: one IRQ0 at terminal count", ok);
	check("mode 0: no IRQ0 after it (OUT stays high)", irq_count[VEC0], 1);
	report("mode 0, count 4N to IRQ0", delay);
	check_timing("mode 0: as long as 4 periods of count N", within(delay, 4 * p1, 90, 110));

	/* Mode 4, software triggered strobe: OUT low for one pulse at terminal
	 * count, one IRQ0 on its way back up; OUT was high, so the control
	 * word raises no edge. */
	start(4, N);
	/* Waited for with interrupts on but without HLT, up to 16 periods: a
	 * host-clocked 8254 (QEMU TCG on a loaded host) can sample OUT after
	 * its one-pulse strobe is over and raise no IRQ0, and a HLT with only
	 * IRQ0 unmasked would then never end. */
	uint64_t deadline = rdtsc() + 16 * p1;
	__asm__ volatile("sti");
	while (irq_count[VEC0] == 0 && rdtsc() < deadline)
		__asm__ volatile("pause");
	ok = irq_count[VEC0] != 0;
	rtc_sleep(16);
	cli();
	check_timing("mode 4: one IRQ0 after the strobe", ok);
	check_timing("mode 4: one strobe only", irq_count[VEC0] == 1);

	/* Modes 1 and 5 wait for a rising edge of GATE, which the PC ties high:
	 * they never trigger on counter 0. */
	start(1, N);
	rtc_sleep(16);
	cli();
	check_quirk("mode 1: no trigger with GATE0 tied high, no IRQ0", irq_count[VEC0], 0,
		    "QEMU's 8254 starts mode 1 at the count write");
	start(5, N);
	rtc_sleep(16);
	cli();
	check_quirk("mode 5: no trigger with GATE0 tied high, no IRQ0", irq_count[VEC0], 0,
		    "QEMU's 8254 starts mode 5 at the count write");
	pic_set_mask(0xffff);
}
