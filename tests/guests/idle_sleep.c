/* An idle guest: it sleeps one second in HLT, woken by 100 IRQ0s of the
 * 8254 at 100 Hz, and checks the TSC against the second (with the TSC's
 * frequency from CPUID 15H/16H where the CPU reports one). hvemu skips
 * virtual time to each timer, so the second costs it almost no host time;
 * tests/guests/timing.py measures that, and --realtime pacing it to the wall
 * clock. */
#include "lib/pc_irq.h"

#define V0 IRQ_BASE_MASTER

void guest_main(void)
{
	uint64_t hz = tsc_hz();
	cli();
	irq_count_vectors(IRQ_BASE_MASTER, 16);
	pit_program(0, 2, 11932);                  /* 1193182 / 11932: 100 Hz */
	pic_remap(0);
	pic_set_mask(0xfffe);
	wait_count(&irq_count[V0], 1, 8);
	uint64_t t0 = irq_tsc[V0];
	int ok = wait_count(&irq_count[V0], 101, 200);
	cli();
	uint64_t ticks = irq_tsc[V0] - t0;
	pic_set_mask(0xffff);
	gprintf("# slept 100 periods of 10 ms: ");
	print_u64(ticks);
	gprintf(" TSC ticks; TSC ");
	print_u64(hz);
	gprintf(" Hz by CPUID\n");
	check_true("100 timer interrupts", ok);
	if (hz)
		check_timing("one second by the TSC", within(ticks, hz, 99, 101));
	else
		skip("one second by the TSC", "no TSC frequency in CPUID");
}
