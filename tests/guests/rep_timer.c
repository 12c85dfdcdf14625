/* A timer interrupt inside a long REP STOSB / REP OUTSB: interrupts are
 * recognised between iterations, and the handler sees EIP on the instruction
 * with ECX/EDI/ESI as of the iterations done, after which the instruction
 * resumes and finishes (SDM Vol.2 "REP/REPE/REPZ/REPNE/REPNZ"). The local APIC
 * timer (SDM Vol.3 10.5.4) is set to half the instruction's measured duration;
 * the TSC advances by at least the iterations (each iteration takes at least
 * a TSC tick here, hvemu counting one unit of virtual time per iteration). */
#include "lib/apic.h"

#define VEC 0x51
#define N   (128u * 1024u)

static uint8_t buf[N];
static volatile uint32_t n_irq, irq_ecx, irq_eip;
static volatile uint64_t irq_tsc;

/* QEMU TCG's APIC timer follows the host clock, so the interrupt may miss the
 * instruction on a loaded host, and it came with ECX = 0, after the last
 * iteration (SDM Vol.2 REP: between iterations). */
static const char qemu_rep_end[] = "QEMU TCG's timer follows the host clock and came after the last iteration "
				   "(SDM Vol.2 REP)";

static int on_timer(struct trap_frame *f)
{
	if (!n_irq++) {
		irq_ecx = f->ecx;
		irq_eip = f->eip;
		irq_tsc = rdtsc();
	}
	apic_write(APIC_EOI, 0);
	return 1;
}

/* Run the string instruction (STOSB or OUTSB to port 80H) over buf with ECX =
 * N, interrupts on; returns its address. */
static uint32_t run_rep(int outs)
{
	uint32_t at, c = N, di = (uint32_t)(uintptr_t)buf, si = di;
	if (outs)
		__asm__ volatile("movl $1f, %[at]; sti; nop; 1: rep outsb; cli"
				 : [at] "=&r"(at), "+c"(c), "+S"(si) : "d"(0x80) : "memory");
	else
		__asm__ volatile("movl $1f, %[at]; sti; nop; 1: rep stosb; cli"
				 : [at] "=&r"(at), "+c"(c), "+D"(di) : "a"(0x5a) : "memory");
	check("ECX 0 at the end", c, 0);
	return at;
}

static void test_rep(int outs, const char *name)
{
	gprintf("# %s\n", name);
	/* Its duration in timer counts, the timer masked. */
	apic_write(APIC_TIMER_DCR, 0xb);
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED | VEC);
	apic_write(APIC_TIMER_INITIAL, 0xffffffffu);
	uint64_t t0 = rdtsc();
	(void)run_rep(outs);
	uint64_t t1 = rdtsc();
	uint32_t counts = 0xffffffffu - apic_read(APIC_TIMER_CURRENT);
	apic_write(APIC_TIMER_INITIAL, 0);
	gprintf("# %u timer counts, %u TSC ticks\n", counts, (uint32_t)(t1 - t0));
	check_true("the TSC advances by at least the iterations", t1 - t0 >= N);
	if (counts < 4) {
		note("the instruction is too short for the timer");
		return;
	}
	/* Again with the interrupt half way through. */
	n_irq = 0;
	apic_write(APIC_LVT_TIMER, VEC);
	t0 = rdtsc();
	apic_write(APIC_TIMER_INITIAL, counts / 2);
	uint32_t at = run_rep(outs);
	uint32_t during = n_irq;
	/* Stopped, and a request that came after the instruction taken. */
	apic_write(APIC_TIMER_INITIAL, 0);
	sti();
	__asm__ volatile("nop; nop");
	cli();
	check_quirk("one interrupt during the instruction", during, 1, qemu_rep_end);
	check_quirk("the interrupt came on the instruction", irq_eip, at, qemu_rep_end);
	check_quirk("ECX between the start and the end", irq_ecx > 0 && irq_ecx < N, 1, qemu_rep_end);
	if (during)
		check_true("the TSC at the interrupt counts the iterations done", irq_tsc - t0 >= N - irq_ecx);
	check("the instruction finished every byte", !outs ? buf[N - 1] : 0x5a, 0x5a);
}

void guest_main(void)
{
	desc_init();
	pic_mask_all();
	if (!has_apic())
		skip_all("no local APIC (CPUID.1:EDX.APIC = 0)");
	apic_enable();
	trap_handlers[VEC] = on_timer;
	cli();
	test_rep(0, "rep stosb");
	test_rep(1, "rep outsb");
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED);
	tap_finish();
}
