/* How the processor accepts interrupts from its local APIC (SDM Vol.3 6.7.1,
 * 6.8.3, 6.9 Table 6-2): IF holds maskable interrupts, STI's and MOV SS's
 * shadows delay them one instruction, NMIs come with IF = 0 and are blocked
 * from the NMI handler's start until the next IRET, an NMI goes before a
 * maskable interrupt pending at the same boundary, a single-step trap before an
 * NMI, and an interrupt before the fault of the next instruction. */
#include "lib/apic.h"

#define VEC 0x60
#define VEC_TIMER 0x70

static uint32_t my_id;

/* Global labels inside the asm blocks below. */
extern char after_sti_nop[], ud2_insn[], sled_start[], sled_end[];

static void test_if_and_sti_shadow(void)
{
	irq_reset();
	apic_catch(VEC);
	cli();
	apic_write(APIC_ICR_LO, ICR_SELF | VEC);
	__asm__ volatile("nop; nop");
	check("IF = 0 holds the interrupt", irq_seen[VEC].count, 0);
	/* 6.8.3 / SDM Vol.2 STI: taken after the instruction that follows STI. */
	__asm__ volatile("sti\n\tnop\n\t.globl after_sti_nop\nafter_sti_nop:\n\tcli" ::: "memory");
	check("taken once IF = 1", irq_seen[VEC].count, 1);
	check("after the instruction following STI", irq_seen[VEC].eip, (uint32_t)(uintptr_t)after_sti_nop);
}

static uint32_t sled_hits, sled_bad;

static void sled_hook(uint32_t v)
{
	(void)v;
	uint32_t eip = irq_seen[VEC_TIMER].eip;
	uint32_t start = (uint32_t)(uintptr_t)sled_start, end = (uint32_t)(uintptr_t)sled_end;
	if (eip <= start || eip >= end)
		return;
	sled_hits++;
	/* The sled is (MOV SS, AX: 2 bytes; NOP: 1 byte) repeated: an interrupt
	 * taken at the boundary right after a MOV SS would return to a NOP. */
	if ((eip - start) % 3 != 0)
		sled_bad++;
}

/* 6.8.3: "the processor inhibits interrupts ... after a MOV SS" until the end
 * of the next instruction. A periodic timer interrupts a sled of MOV SS / NOP
 * pairs at many places; none may be taken between a MOV SS and its NOP. */
static void test_mov_ss_shadow(void)
{
	irq_reset();
	apic_catch(VEC_TIMER);
	irq_hook = sled_hook;
	apic_write(APIC_TIMER_DCR, 0xb);
	apic_write(APIC_LVT_TIMER, (1u << 17) | VEC_TIMER);
	/* About 10 us at hvemu's 24 MHz timer clock: well above a handler's
	 * length. QEMU's local APIC timer counts nanoseconds, where 241 would
	 * be an interrupt every 241 ns, more than TCG delivers: the guest then
	 * never leaves its handler (a hang, now and then); 10 us there too. */
	apic_write(APIC_TIMER_INITIAL, quirk_active("qemu-tcg") ? 10000 : 241);
	uint64_t until = rdtsc() + 50000000;
	while (sled_hits < 64 && rdtsc() < until)
		__asm__ volatile("mov %%ss, %%ax\n\tsti\n\t"
				 ".globl sled_start\nsled_start:\n\t"
				 ".rept 64\n\tmov %%ax, %%ss\n\tnop\n\t.endr\n\t"
				 ".globl sled_end\nsled_end:\n\tcli" ::: "eax", "memory");
	apic_write(APIC_TIMER_INITIAL, 0);
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED);
	irq_hook = 0;
	gprintf("# %u timer interrupts inside the sled\n", sled_hits);
	static const char qemu_tb[] = "QEMU TCG recognises interrupts at translation-block ends";
	check_quirk("interrupts landed inside the sled", sled_hits >= 16, 1, qemu_tb);
	check_quirk("none right after a MOV SS", sled_bad, 0, qemu_tb);
}

static volatile uint32_t nested_seen;

/* Inside the first NMI handler (IF = 0, NMIs blocked): send another NMI and a
 * fixed interrupt; neither may come before the IRET. */
static void nmi_hook(uint32_t v)
{
	if (v != 2 || irq_seen[2].count != 1)
		return;
	apic_ipi(my_id, ICR_NMI);
	apic_write(APIC_ICR_LO, ICR_SELF | VEC);
	for (volatile int i = 0; i < 100; i++)
		;
	nested_seen = irq_seen[2].count;
}

static void test_nmi(void)
{
	irq_reset();
	apic_catch(2 | APIC_NO_EOI);
	apic_catch(VEC);
	/* 6.7.1: NMI is not masked by IF. */
	cli();
	apic_ipi(my_id, ICR_NMI);
	__asm__ volatile("nop");
	check("NMI taken with IF = 0", irq_seen[2].count, 1);
	/* NMI blocking until IRET, and NMI before INTR (Table 6-2: priority 5
	 * before 6) when the IRET unblocks both. */
	irq_reset();
	irq_hook = nmi_hook;
	sti();
	apic_ipi(my_id, ICR_NMI);
	__asm__ volatile("nop; nop; nop");
	cli();
	irq_hook = 0;
	check("a second NMI waits while the handler runs", nested_seen, 1);
	check("and comes after the IRET", irq_seen[2].count, 2);
	check("the pending INTR is taken too", irq_seen[VEC].count, 1);
	check_true("the NMI before the INTR", irq_seen[2].order < irq_seen[VEC].order);
}

static volatile uint32_t db_count, db_eip;

static int db_handler(struct trap_frame *f)
{
	db_count++;
	db_eip = f->eip;
	f->eflags &= ~0x100u;      /* single step once */
	return 1;
}

/* Table 6-2: a trap of the previous instruction (priority 4: single step)
 * before an NMI (5). The #DB is delivered first; the NMI, held pending,
 * interrupts the #DB handler (its saved EIP lies in the #DB stub), not the
 * instruction after the one that sent it. */
static void test_trap_before_nmi(void)
{
	irq_reset();
	apic_catch(2 | APIC_NO_EOI);
	trap_handlers[1] = db_handler;
	db_count = 0;
	cli();
	apic_write(APIC_ICR_HI, my_id << 24);
	volatile uint32_t *icr = (volatile uint32_t *)(uintptr_t)(apic_base + APIC_ICR_LO);
	__asm__ volatile("pushf\n\torl $0x100, (%%esp)\n\tpopf\n\t"
			 "movl %1, (%0)\n\tnop" :: "r"(icr), "r"(ICR_NMI) : "memory");
	trap_handlers[1] = 0;
	check("one single-step trap", db_count, 1);
	check("one NMI", irq_seen[2].count, 1);
	uint32_t eip = irq_seen[2].eip, stub = trap_stub_addr(1);
	check_quirk("NMI taken inside the #DB handler", eip >= stub && eip < stub + 16, 1,
		    "QEMU 7.2 delivers the NMI before the single-step trap");
}

/* Table 6-2: the interrupt (priority 6) comes at the boundary before UD2
 * raises its fault (an instruction fault, priority 9): UD2's #UD follows. */
static void ud2_after_sti(void *arg)
{
	(void)arg;
	__asm__ volatile("sti\n\tnop\n\t.globl ud2_insn\nud2_insn:\n\tud2" ::: "memory");
}

static void test_intr_then_ud(void)
{
	irq_reset();
	apic_catch(VEC);
	cli();
	apic_write(APIC_ICR_LO, ICR_SELF | VEC);
	trap_reset();
	int vec = trap_catch(ud2_after_sti, 0);
	cli();
	check("the interrupt came first", irq_seen[VEC].count, 1);
	check("returning to the UD2", irq_seen[VEC].eip, (uint32_t)(uintptr_t)ud2_insn);
	check("then UD2 raised #UD", (uint32_t)vec, 6);
}

void guest_main(void)
{
	desc_init();
	pic_mask_all();
	if (!has_apic())
		skip_all("no local APIC (CPUID.1:EDX.APIC = 0)");
	apic_enable();
	my_id = apic_read(APIC_ID) >> 24;
	test_if_and_sti_shadow();
	test_mov_ss_shadow();
	test_nmi();
	test_trap_before_nmi();
	test_intr_then_ud();
	tap_finish();
}
