/* The local APIC timer (SDM Vol.3 10.5.4) in its three modes, timed with the
 * TSC: one-shot (one interrupt after initial count x divider timer clocks; the
 * current count falls and stays at 0), the divide configuration register
 * (10.5.4 Figure 10-10), periodic (the count reloads; equal periods; masked it
 * counts without interrupting; an initial count of 0 stops it) and
 * TSC-deadline (10.5.4.1: the interrupt when the TSC reaches IA32_TSC_DEADLINE,
 * which then reads 0; writing 0 disarms; a deadline already passed fires at
 * once; the initial count is ignored and the current count reads 0; leaving
 * the mode disarms). Where CPUID leaf 15H gives the TSC / crystal ratio, the
 * timer's clock (10.5.4: the crystal when leaf 15H enumerates it), durations
 * are checked against it to 1 %; otherwise against each other. */
#include "lib/apic.h"

#define VEC 0x50
#define COUNT 20000u

static volatile uint64_t tsc_at_irq[8];
static volatile uint32_t n_irq;

static void hook(uint32_t v)
{
	(void)v;
	uint64_t t = rdtsc();
	if (n_irq < 8)
		tsc_at_irq[n_irq] = t;
	n_irq++;
}

/* TSC ticks per timer clock (CPUID.15H: TSC = crystal x EBX / EAX), as the
 * ratio num / den; 0 when not enumerated. */
static uint32_t ratio_num, ratio_den;

static void read_leaf_15h(void)
{
	uint32_t r[4];
	cpuid(0, 0, r);
	if (r[0] < 0x15)
		return;
	cpuid(0x15, 0, r);
	if (r[0] && r[1]) {
		ratio_num = r[1];
		ratio_den = r[0];
	}
}

/* Wait for n interrupts the timer will raise: HLT until then (or about
 * `budget` TSC ticks). */
static void wait_irqs(uint32_t n, uint32_t budget)
{
	uint64_t until = rdtsc() + budget;
	while (n_irq < n && rdtsc() < until)
		sti_hlt();
}

/* Interrupts on for about `ticks` TSC ticks, when none should come. */
static void window(uint32_t ticks)
{
	uint64_t until = rdtsc() + ticks;
	while (rdtsc() < until) {
		sti();
		__asm__ volatile("nop; nop; nop; nop");
		cli();
	}
}


/* One-shot with divide configuration dcr (divider div): the TSC ticks from the
 * initial-count write to the interrupt. */
static uint32_t one_shot(uint32_t dcr, uint32_t div, const char *name)
{
	/* Stopped (and any request taken) before the divider changes. */
	apic_write(APIC_TIMER_INITIAL, 0);
	sti();
	__asm__ volatile("nop; nop");
	cli();
	n_irq = 0;
	apic_write(APIC_TIMER_DCR, dcr);
	apic_write(APIC_LVT_TIMER, VEC);
	uint64_t t0 = rdtsc();
	apic_write(APIC_TIMER_INITIAL, COUNT);
	uint32_t c1 = apic_read(APIC_TIMER_CURRENT);
	uint32_t c2 = apic_read(APIC_TIMER_CURRENT);
	wait_irqs(1, 0x7fffffff);
	uint32_t ticks = (uint32_t)(tsc_at_irq[0] - t0);
	gprintf("# %s: %u TSC ticks\n", name, ticks);
	check("one interrupt", n_irq, 1);
	check_true("current count starts at most the initial count", c1 <= COUNT);
	check_true("current count falls", c2 <= c1);
	check("current count 0 after the interrupt", apic_read(APIC_TIMER_CURRENT), 0);
	if (ratio_den) {
		uint32_t want = muldiv(COUNT * div, ratio_num, ratio_den);
		check_true("duration = count x divider timer clocks (CPUID.15H)", within(ticks, want, 1));
	}
	return ticks;
}

/* QEMU TCG's APIC timer and TSC follow the host's clock: what the guest runs
 * between readings takes host time, so intervals vary with the host. */
static const char qemu_host_time[] = "QEMU TCG times follow the host clock";

static void test_one_shot(void)
{
	(void)one_shot(0xb, 1, "warm-up");
	uint32_t d1 = one_shot(0xb, 1, "one-shot, divide by 1");
	uint32_t d4 = one_shot(0x1, 4, "one-shot, divide by 4");
	uint32_t d2 = one_shot(0x0, 2, "one-shot, divide by 2");
	check_quirk("divide by 4 takes 4 times as long", within(d4, d1 * 4, 5), 1, qemu_host_time);
	check_quirk("divide by 2 takes 2 times as long", within(d2, d1 * 2, 5), 1, qemu_host_time);
	/* One-shot: nothing more. */
	n_irq = 0;
	window(d1 * 2);
	check("one-shot does not repeat", n_irq, 0);
}

static void test_periodic(void)
{
	n_irq = 0;
	apic_write(APIC_TIMER_DCR, 0xb);
	apic_write(APIC_LVT_TIMER, (1u << 17) | VEC);
	uint64_t t0 = rdtsc();
	apic_write(APIC_TIMER_INITIAL, COUNT);
	wait_irqs(5, 0x7fffffff);
	check("five periods, five interrupts", n_irq >= 5, 1);
	uint32_t first = (uint32_t)(tsc_at_irq[0] - t0);
	uint32_t period = (uint32_t)(tsc_at_irq[1] - tsc_at_irq[0]);
	int equal = 1;
	for (unsigned i = 2; i < 5; i++)
		equal &= within((uint32_t)(tsc_at_irq[i] - tsc_at_irq[i - 1]), period, 2);
	gprintf("# periodic: first %u, period %u TSC ticks\n", first, period);
	check_quirk("equal periods", equal, 1, qemu_host_time);
	check_quirk("period = first interval", within(period, first, 5), 1, qemu_host_time);
	if (ratio_den)
		check_true("period = count timer clocks (CPUID.15H)",
			   within(period, muldiv(COUNT, ratio_num, ratio_den), 1));
	/* Masked, it counts on without interrupting (10.5.4). */
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED | (1u << 17) | VEC);
	sti();                      /* an interrupt already requested is taken */
	__asm__ volatile("nop; nop");
	cli();
	n_irq = 0;
	uint32_t c1 = apic_read(APIC_TIMER_CURRENT);
	window(period * 5 / 2);         /* not a whole number of periods */
	uint32_t c2 = apic_read(APIC_TIMER_CURRENT);
	check("masked: no interrupt", n_irq, 0);
	check_true("masked: still counting", c1 != c2);
	/* Initial count 0 stops it. */
	apic_write(APIC_LVT_TIMER, (1u << 17) | VEC);
	apic_write(APIC_TIMER_INITIAL, 0);
	sti();                      /* an interrupt already requested is taken */
	__asm__ volatile("nop; nop");
	cli();
	n_irq = 0;
	window(period * 3);
	check("initial count 0 stops the timer", n_irq, 0);
	check("current count 0 once stopped", apic_read(APIC_TIMER_CURRENT), 0);
}

static void test_tsc_deadline(void)
{
	if (!has_tsc_deadline()) {
		skip("TSC-deadline mode", "CPUID.1:ECX.TSC_Deadline = 0");
		return;
	}
	/* Long enough for the checks printed before it fires: each character
	 * is a port write, about a microsecond on hvemu as on hardware. */
	const uint32_t delta = 2000000;
	/* Outside TSC-deadline mode the MSR reads 0 (writes ignored). */
	apic_write(APIC_LVT_TIMER, VEC);
	wrmsr(MSR_TSC_DEADLINE, rdtsc() + delta);
	check("IA32_TSC_DEADLINE reads 0 in one-shot mode", (uint32_t)rdmsr(MSR_TSC_DEADLINE), 0);
	apic_write(APIC_LVT_TIMER, (2u << 17) | VEC);
	apic_write(APIC_TIMER_INITIAL, 12345);
	check("current count reads 0 in TSC-deadline mode", apic_read(APIC_TIMER_CURRENT), 0);
	n_irq = 0;
	uint64_t deadline = rdtsc() + delta;
	wrmsr(MSR_TSC_DEADLINE, deadline);
	check("initial-count write did not start a count", n_irq, 0);
	check_true("the MSR holds the deadline", rdmsr(MSR_TSC_DEADLINE) == deadline);
	wait_irqs(1, 0x7fffffff);
	check("one interrupt at the deadline", n_irq, 1);
	check_true("not before the deadline", tsc_at_irq[0] >= deadline);
	check_true("soon after the deadline", tsc_at_irq[0] - deadline < delta);
	gprintf("# deadline +%u TSC ticks\n", (uint32_t)(tsc_at_irq[0] - deadline));
	check("the MSR reads 0 once it fired", (uint32_t)rdmsr(MSR_TSC_DEADLINE), 0);
	/* Writing 0 disarms. */
	n_irq = 0;
	wrmsr(MSR_TSC_DEADLINE, rdtsc() + delta);
	wrmsr(MSR_TSC_DEADLINE, 0);
	window(delta * 3);
	check("writing 0 disarms", n_irq, 0);
	/* A deadline already passed fires at once. */
	wrmsr(MSR_TSC_DEADLINE, rdtsc() - 1000);
	wait_irqs(1, 0x7fffffff);
	check("a past deadline fires at once", n_irq, 1);
	/* Leaving TSC-deadline mode disarms (10.5.4.1). */
	n_irq = 0;
	wrmsr(MSR_TSC_DEADLINE, rdtsc() + delta);
	apic_write(APIC_LVT_TIMER, VEC);
	apic_write(APIC_LVT_TIMER, (2u << 17) | VEC);
	window(delta * 3);
	check("a mode change disarms", n_irq, 0);
}

void guest_main(void)
{
	desc_init();
	pic_mask_all();
	if (!has_apic())
		skip_all("no local APIC (CPUID.1:EDX.APIC = 0)");
	read_leaf_15h();
	if (!ratio_den)
		note("CPUID.15H does not give the TSC / crystal ratio: durations checked against each other");
	apic_enable();
	irq_reset();
	apic_catch(VEC);
	irq_hook = hook;
	cli();
	test_one_shot();
	test_periodic();
	test_tsc_deadline();
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED);
	tap_finish();
}
