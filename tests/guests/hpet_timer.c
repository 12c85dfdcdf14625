/* The HPET at FED00000H (IA-PC HPET specification 1.0a) with legacy
 * replacement routing (2.4: timer 0 -> IRQ0, timer 1 -> IRQ8 of the 8259A,
 * the 8254 and the RTC cut off): capabilities, the main counter against the
 * 8254, timer 0 periodic with the value-set bit and one-shot, timer 1 level-
 * triggered with the status register, 32-bit mode. */
#include "lib/pc_irq.h"

#define CAP_LO 0x000
#define CAP_HI 0x004
#define CONF 0x010
#define ISR 0x020
#define COUNT_LO 0x0f0
#define COUNT_HI 0x0f4
#define TCONF(n) (0x100 + 0x20 * (n))
#define TCMP_LO(n) (0x108 + 0x20 * (n))
#define TCMP_HI(n) (0x10c + 0x20 * (n))
#define ENABLE 1u
#define LEGACY 2u
#define T_LEVEL (1u << 1)
#define T_ENB (1u << 2)
#define T_PERIODIC (1u << 3)
#define T_PER_CAP (1u << 4)
#define T_SIZE_CAP (1u << 5)
#define T_VAL_SET (1u << 6)
#define T_32 (1u << 8)
#define V0 IRQ_BASE_MASTER
#define V8 IRQ_BASE_SLAVE

static uint32_t ticks_per_ms;      /* main counter ticks in 1 ms */

static uint32_t counter(void) { return hpet_rd(COUNT_LO); }

/* Spin with interrupts open until the main counter has moved on by ticks. */
static void spin(uint32_t ticks)
{
	uint32_t start = counter();
	while (counter() - start < ticks)
		__asm__ volatile("sti; pause; cli" ::: "memory");
}

static void halt_counter_at_zero(void)
{
	hpet_wr(CONF, 0);
	hpet_wr(COUNT_LO, 0);
	hpet_wr(COUNT_HI, 0);
}

static void capabilities(void)
{
	uint32_t lo = hpet_rd(CAP_LO), period = hpet_rd(CAP_HI);
	gprintf("# HPET capabilities %x, period %u fs\n", lo, period);
	check_true("REV_ID not 0", (lo & 0xff) != 0);
	check_true("at least 3 timers (NUM_TIM_CAP >= 2)", ((lo >> 8) & 0x1f) >= 2);
	check("legacy replacement capable (LEG_RT_CAP)", (lo >> 15) & 1, 1);
	check_true("COUNTER_CLK_PERIOD in (0, 100 ns]", period != 0 && period <= 0x05f5e100);
	check("timer 0: periodic capable", hpet_rd(TCONF(0)) & T_PER_CAP, T_PER_CAP);
	ticks_per_ms = (uint32_t)udiv64(1000000000000ull, period);
}

static void main_counter(void)
{
	halt_counter_at_zero();
	pit_wait(1200);
	check("halted: the main counter stays", counter(), 0);
	hpet_wr(CONF, ENABLE);
	pit_wait(11932);                       /* 10 ms of the 8254 */
	uint32_t got = counter();
	hpet_wr(CONF, 0);
	gprintf("# main counter over 10 ms of the 8254: %u (expected %u)\n", got, 10 * ticks_per_ms);
	check_timing("main counter runs at 10^15 / COUNTER_CLK_PERIOD Hz", within(got, 10ull * ticks_per_ms, 90, 110));
}

static void periodic_legacy(void)
{
	/* The 8254 runs fast on IRQ0 too: under legacy routing none of its
	 * interrupts may come through. */
	pit_program(0, 2, 1193 / 4);
	irq_reset_counts();
	halt_counter_at_zero();
	/* 2.3.9.2.2 and the chipsets' procedure for a 32-bit CPU: VAL_SET before
	 * each half of the comparator (it clears itself after a write). */
	hpet_wr(TCONF(0), T_ENB | T_PERIODIC | T_VAL_SET);
	hpet_wr(TCMP_LO(0), ticks_per_ms);
	hpet_wr(TCONF(0), T_ENB | T_PERIODIC | T_VAL_SET);
	hpet_wr(TCMP_HI(0), 0);
	check("VAL_SET clears itself", hpet_rd(TCONF(0)) & T_VAL_SET, 0);
	hpet_wr(CONF, ENABLE | LEGACY);
	pic_remap(0);
	pic_set_mask(0xfffe);
	wait_count(&irq_count[V0], 10, 64);
	cli();
	uint32_t c = counter(), n = irq_count[V0];
	check("periodic timer 0: interrupts on IRQ0", n >= 10, 1);
	/* 10 interrupts in about 10 ms: a 4 kHz 8254 would have given 40. */
	check_timing("legacy routing: only the HPET's, one per period", within(c, (uint64_t)n * ticks_per_ms, 90, 115));
	uint32_t cmp = hpet_rd(TCMP_LO(0));
	/* Under QEMU a loaded host may let the counter pass the comparator
	 * between these reads and the writes below: timing, not a rule. */
	check_timing("the comparator reads the next match", cmp > c && cmp - c <= ticks_per_ms);
	/* A new period without VAL_SET: the next match stays, later ones move. */
	hpet_wr(TCMP_LO(0), 2 * ticks_per_ms);
	check_quirk("period write leaves the comparator", hpet_rd(TCMP_LO(0)), cmp,
		    "QEMU TCG follows the host's clock: a loaded host lets a match pass first");
	irq_reset_counts();
	wait_count(&irq_count[V0], 3, 16);
	cli();
	/* However many matches a busy host lets by, the comparator moved on in
	 * steps of the new period. */
	uint32_t moved = hpet_rd(TCMP_LO(0)) - cmp;
	check_timing("then every 2 ms", moved >= 3 * 2 * ticks_per_ms && moved % (2 * ticks_per_ms) == 0);
	hpet_wr(TCONF(0), 0);
	hpet_wr(CONF, 0);
}

static void one_shot_and_32bit(void)
{
	irq_reset_counts();
	halt_counter_at_zero();
	hpet_wr(TCONF(0), T_ENB | T_32);
	hpet_wr(TCMP_HI(0), 5);
	check_quirk("32-bit mode: the comparator's high half reads 0", hpet_rd(TCMP_HI(0)), 0,
		    "QEMU keeps the comparator's high half in 32-bit mode");
	hpet_wr(TCMP_LO(0), 2 * ticks_per_ms);
	hpet_wr(CONF, ENABLE | LEGACY);
	pic_remap(0);
	pic_set_mask(0xfffe);
	wait_count(&irq_count[V0], 1, 16);
	spin(5 * ticks_per_ms);
	cli();
	check("one-shot: one interrupt", irq_count[V0], 1);
	check_true("at the comparator", counter() >= 2 * ticks_per_ms);
	check("one-shot: the comparator keeps its value", hpet_rd(TCMP_LO(0)), 2 * ticks_per_ms);
	hpet_wr(TCONF(0), 0);
	hpet_wr(CONF, 0);
}

static void level_timer1(void)
{
	/* Timer 1 level-triggered to IRQ8: the status bit is set with the
	 * interrupt and holds the line until written with 1 (2.3.6). */
	irq_reset_counts();
	irq_no_eoi = 1;
	halt_counter_at_zero();
	hpet_wr(TCONF(1), T_LEVEL | T_ENB);
	hpet_wr(TCMP_LO(1), ticks_per_ms);
	hpet_wr(TCMP_HI(1), 0);
	hpet_wr(CONF, ENABLE | LEGACY);
	pic_remap(0);
	pic_set_mask(0xfefb);
	wait_count(&irq_count[V8], 1, 16);
	cli();
	check("timer 1 under legacy routing: IRQ8", irq_count[V8], 1);
	check("level: its status bit is set", hpet_rd(ISR) & 2, 2);
	outb(0xa0, 0x20);
	outb(0x20, 0x20);
	spin(ticks_per_ms / 2);
	cli();
	check("level: still set until cleared", hpet_rd(ISR) & 2, 2);
	hpet_wr(ISR, 2);
	check("write 1 clears it", hpet_rd(ISR) & 2, 0);
	irq_no_eoi = 0;
	hpet_wr(TCONF(1), 0);
	hpet_wr(CONF, 0);
}

static void legacy_off(void)
{
	/* Leaving legacy routing gives IRQ0 back to the 8254. */
	irq_reset_counts();
	hpet_wr(CONF, 0);
	pit_program(0, 2, 1193);
	pic_remap(0);
	pic_set_mask(0xfffe);
	check("without legacy routing the 8254's IRQ0 comes through", wait_count(&irq_count[V0], 2, 16), 1);
	cli();
	pic_set_mask(0xffff);
}

void guest_main(void)
{
	cli();
	irq_count_vectors(IRQ_BASE_MASTER, 16);
	pic_remap(0);
	capabilities();
	if (!ticks_per_ms)
		skip_all("no HPET clock period");
	main_counter();
	periodic_legacy();
	one_shot_and_32bit();
	level_timer1();
	legacy_off();
}
