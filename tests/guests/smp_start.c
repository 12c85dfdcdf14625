/* Two processors (hvemu --smp 2, QEMU -smp 2): the BSP starts the AP with
 * INIT-SIPI-SIPI (SDM Vol.3 8.4.4.1 MP initialization, 10.6.1 ICR): the AP
 * runs from the SIPI vector's page in real mode, once, whatever the second
 * SIPI does (a SIPI reaches only a processor waiting for one); it reports on
 * COM1 itself (its APIC ID from CPUID and its APIC, IA32_APIC_BASE.BSP = 0).
 * Then both use shared memory (a value handed over and back, LOCK-prefixed
 * increments from both that add up, 8.1.2.2), send each other fixed IPIs,
 * read coherent TSCs, the I/O APIC delivers the 8254's interrupts to the AP,
 * both see each other's code changes (8.1.3), and an INIT to
 * the running AP makes it wait for a SIPI again (8.4.1), which restarts it at
 * the vector. */
#include "lib/apic.h"

#define SIPI_PAGE   0x7000u          /* vector 07H */
#define VEC_TO_BSP  0x61
#define VEC_TO_AP   0x62
#define VEC_PIT     0x63             /* the I/O APIC's pin 2, routed to the AP */
#define INCREMENTS  20000
#define LONG_WAIT   20000000000ull   /* TSC ticks: seconds on a host, never reached by hvemu */

extern char ap_tramp_start[], ap_tramp_end[], ap_tramp_gdtr[], ap_tramp_starts[];

/* Shared between the processors. */
static volatile uint32_t ap_alive, ap_id, ap_apic_id, ap_bsp_bit, ap_phase;
static volatile uint32_t handoff, handoff_back, lock_counter, ap_irqs, ap_done;
static volatile uint32_t ap_xmc[2], ap_pit, bsp_pit;
/* Code the AP runs and the BSP then rewrites: MOV EAX, imm32; RET. */
static uint8_t xmc_code[16] __attribute__((aligned(64)));
static volatile uint64_t ap_tsc;
static struct dtr bsp_idtr;
/* The feature flags each processor reports: CPUID.1 ECX/EDX and
 * CPUID.80000001H ECX/EDX (APIC, x2APIC, SVM, long mode...). */
static volatile uint32_t ap_features[4];

static void features(volatile uint32_t out[4])
{
	uint32_t r[4];
	cpuid(1, 0, r);
	out[0] = r[2];
	out[1] = r[3];
	cpuid(0x80000000, 0, r);
	out[2] = out[3] = 0;
	if (r[0] >= 0x80000001) {
		cpuid(0x80000001, 0, r);
		out[2] = r[2];
		out[3] = r[3];
	}
}
static uint32_t bsp_id;

static volatile uint32_t *starts(void)
{
	return (volatile uint32_t *)(uintptr_t)(SIPI_PAGE + (ap_tramp_starts - ap_tramp_start));
}

static void hook_ap(uint32_t v)
{
	if (v == VEC_TO_AP)
		ap_irqs++;
	if (v == VEC_PIT) {
		/* Which processor runs this handler: its own APIC's ID. */
		if (apic_read(APIC_ID) >> 24 == ap_id)
			ap_pit++;
		else
			bsp_pit++;
	}
}

/* The AP, in 32-bit protected mode with the BSP's GDT (smp_tramp.S). */
void ap_main(void);
void ap_main(void)
{
	__asm__ volatile("lidt %0" :: "m"(bsp_idtr));
	uint32_t r[4];
	cpuid(1, 0, r);
	ap_id = r[1] >> 24;
	ap_apic_id = apic_read(APIC_ID) >> 24;
	ap_bsp_bit = (uint32_t)rdmsr(MSR_APIC_BASE) & APIC_BASE_BSP;
	features(ap_features);
	ap_alive = 1;
	if (ap_phase != 0)
		for (;;)
			__asm__ volatile("cli; hlt");     /* the restart after INIT: nothing more */
	/* Wait for the BSP to print, then report on COM1 from this processor. */
	while (handoff == 0)
		__asm__ volatile("pause");
	gprintf("# AP %u speaking on COM1\n", ap_id);
	check("AP: its APIC ID register = CPUID initial APIC ID", ap_apic_id, ap_id);
	check_true("AP: a different APIC ID from the BSP's", ap_id != bsp_id);
	check("AP: IA32_APIC_BASE.BSP = 0", ap_bsp_bit, 0);
	/* Every processor of the machine is the same model (SDM Vol.3 8.4.3's MP
	 * initialisation assumes it): the AP's CPUID feature flags are the BSP's,
	 * SVM (8000_0001H ECX[2]) included where the model has it. */
	volatile uint32_t mine[4];
	features(mine);
	check("AP: CPUID.1 ECX = the BSP's", ap_features[0], mine[0]);
	check("AP: CPUID.1 EDX = the BSP's", ap_features[1], mine[1]);
	check("AP: CPUID.80000001H ECX = the BSP's", ap_features[2], mine[2]);
	check("AP: CPUID.80000001H EDX = the BSP's", ap_features[3], mine[3]);
	handoff_back = handoff + 1;
	/* LOCK-prefixed increments racing the BSP's. */
	while (ap_phase != 1)
		__asm__ volatile("pause");
	for (int i = 0; i < INCREMENTS; i++)
		__asm__ volatile("lock incl %0" : "+m"(lock_counter));
	/* TSC, then IPIs both ways. */
	ap_tsc = rdtsc();
	apic_enable();
	apic_catch(VEC_TO_AP);
	apic_catch(VEC_PIT);
	irq_hook = hook_ap;
	apic_ipi(bsp_id, VEC_TO_BSP);
	ap_done = 1;
	while (ap_irqs == 0)
		sti_hlt();
	ap_done = 2;
	/* The I/O APIC's interrupts, routed here by the BSP. */
	while (ap_phase != 2)
		__asm__ volatile("pause");
	while (ap_pit < 3)
		sti_hlt();
	cli();
	ap_done = 3;
	/* Cross-modifying code: run the BSP's function, then again once the
	 * BSP rewrote it. */
	while (ap_phase != 3)
		__asm__ volatile("pause");
	ap_xmc[0] = ((uint32_t (*)(void))(uintptr_t)xmc_code)();
	while (ap_phase != 4)
		__asm__ volatile("pause");
	ap_xmc[1] = ((uint32_t (*)(void))(uintptr_t)xmc_code)();
	for (;;)
		__asm__ volatile("cli; hlt");
}

/* Spin until *flag reaches value, or about budget TSC ticks pass (QEMU runs
 * the AP on another host thread that may get little of the host). */
static int wait_for(volatile uint32_t *flag, uint32_t value, uint64_t budget)
{
	uint64_t until = rdtsc() + budget;
	while (*flag < value)
		if (rdtsc() > until)
			return 0;
	return 1;
}

static void delay(uint32_t ticks)
{
	uint64_t until = rdtsc() + ticks;
	while (rdtsc() < until)
		__asm__ volatile("pause");
}

static void start_ap(void)
{
	gmemcpy((void *)(uintptr_t)SIPI_PAGE, ap_tramp_start, (uint32_t)(ap_tramp_end - ap_tramp_start));
	__asm__ volatile("sgdt %0" : "=m"(*(struct dtr *)(uintptr_t)(SIPI_PAGE + (ap_tramp_gdtr - ap_tramp_start))));
	*starts() = 0;
	/* 8.4.4.1: INIT (level assert, then de-assert), 10 ms, SIPI, 200 us,
	 * SIPI, to all but self. */
	apic_write(APIC_ICR_LO, ICR_ALL_BUT_SELF | ICR_LEVEL | ICR_ASSERT | ICR_INIT);
	apic_write(APIC_ICR_LO, ICR_ALL_BUT_SELF | ICR_LEVEL | ICR_INIT);
	delay(10000000);
	apic_write(APIC_ICR_LO, ICR_ALL_BUT_SELF | ICR_STARTUP | (SIPI_PAGE >> 12));
	delay(200000);
	apic_write(APIC_ICR_LO, ICR_ALL_BUT_SELF | ICR_STARTUP | (SIPI_PAGE >> 12));
	check_true("the AP came up", wait_for(&ap_alive, 1, LONG_WAIT));
	delay(1000000);
	check("it started once for two SIPIs", *starts(), 1);
}

void guest_main(void)
{
	desc_init();
	pic_mask_all();
	if (!has_apic())
		skip_all("no local APIC (CPUID.1:EDX.APIC = 0)");
	apic_enable();
	bsp_id = apic_read(APIC_ID) >> 24;
	__asm__ volatile("sidt %0" : "=m"(bsp_idtr));
	irq_reset();
	apic_catch(VEC_TO_BSP);
	check("BSP: IA32_APIC_BASE.BSP = 1", (uint32_t)rdmsr(MSR_APIC_BASE) & APIC_BASE_BSP, APIC_BASE_BSP);
	start_ap();
	if (!ap_alive)
		tap_finish();        /* one processor? (hvemu --smp 2, QEMU -smp 2) */

	/* Shared memory both ways; the AP prints its own checks meanwhile. */
	handoff = 0x5eed;
	check_true("the AP answered through memory", wait_for(&handoff_back, 0x5eee, LONG_WAIT));
	check("the value it read plus one", handoff_back, 0x5eee);

	/* LOCK INC from both processors (8.1.2.2: locked operations are atomic). */
	uint64_t t0 = rdtsc();
	ap_phase = 1;
	for (int i = 0; i < INCREMENTS; i++)
		__asm__ volatile("lock incl %0" : "+m"(lock_counter));
	check_true("the AP finished its part", wait_for(&ap_done, 1, LONG_WAIT));
	uint64_t t1 = rdtsc();
	check("locked increments from both add up", lock_counter, 2 * INCREMENTS);
	/* One clock: the AP's TSC reading lies between two of the BSP's. */
	check_true("the AP's TSC between the BSP's readings", ap_tsc >= t0 && ap_tsc <= t1);

	/* IPIs: the AP sent one to the BSP; the BSP answers with one to the AP. */
	uint64_t until = rdtsc() + LONG_WAIT;
	while (!irq_seen[VEC_TO_BSP].count && rdtsc() < until)
		sti_hlt();
	check("IPI from the AP", irq_seen[VEC_TO_BSP].count, 1);
	apic_ipi(ap_id, VEC_TO_AP);
	check_true("IPI to the AP", wait_for(&ap_done, 2, LONG_WAIT));
	check("the AP took one interrupt", ap_irqs, 1);

	/* The I/O APIC delivers to any processor: the 8254's IRQ0 (pin 2) to
	 * the AP's APIC ID. */
	ioapic_route(2, (uint64_t)ap_id << 56 | VEC_PIT);
	outb(0x43, 0x34);                    /* counter 0, rate generator */
	outb(0x40, 0xa9);
	outb(0x40, 0x04);                    /* 1193: about 1 kHz */
	ap_phase = 2;
	check_true("the AP took three 8254 interrupts", wait_for(&ap_done, 3, LONG_WAIT));
	ioapic_route(2, 1u << 16);
	outb(0x43, 0x30);                    /* mode 0 with no count: OUT stays low */
	check("none reached the BSP", bsp_pit, 0);

	/* 8.1.3 cross-modifying code: the AP runs a function, the BSP rewrites
	 * its immediate (the AP waits, as the SDM's protocol has it), and the AP
	 * runs the new bytes. */
	static const uint8_t mov_ret[6] = { 0xb8, 1, 0, 0, 0, 0xc3 };
	gmemcpy(xmc_code, mov_ret, sizeof(mov_ret));
	ap_phase = 3;
	check_true("the AP ran the function", wait_for(&ap_xmc[0], 1, LONG_WAIT));
	check("it returned 1", ap_xmc[0], 1);
	xmc_code[1] = 2;
	ap_phase = 4;
	check_true("the AP ran it again", wait_for(&ap_xmc[1], 1, LONG_WAIT));
	check("it saw the new code", ap_xmc[1], 2);

	/* INIT puts the running AP back into wait-for-SIPI; a SIPI restarts it
	 * at the vector (8.4.1, 8.4.3). */
	ap_phase = 5;
	ap_alive = 0;
	apic_ipi(ap_id, ICR_LEVEL | ICR_ASSERT | ICR_INIT);
	delay(10000000);
	check("INIT stops the AP (no restart yet)", *starts(), 1);
	apic_ipi(ap_id, ICR_STARTUP | (SIPI_PAGE >> 12));
	check_true("a SIPI restarts it", wait_for(&ap_alive, 1, LONG_WAIT));
	check("at the vector's page", *starts(), 2);
	tap_finish();
}
