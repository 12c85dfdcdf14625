/* The local APIC in xAPIC mode (SDM Vol.3 APIC chapter, numbered 10 in the
 * editions cited): identification, self IPIs (fixed and NMI), acceptance and
 * EOI through IRR/ISR, task and processor priority, the error register,
 * software disable forcing the LVT masks, flat logical destinations, and the
 * APIC disabled and enabled again through IA32_APIC_BASE, also at another
 * base address. */
#include "lib/apic.h"

#define VEC_A 0x40
#define VEC_ERR 0xe0

static uint32_t my_id;

static int irr_bit(unsigned v) { return (apic_read(APIC_IRR + (v / 32) * 0x10) >> (v % 32)) & 1; }
static int isr_bit(unsigned v) { return (apic_read(APIC_ISR + (v / 32) * 0x10) >> (v % 32)) & 1; }

static void test_identification(void)
{
	uint32_t r[4];
	cpuid(1, 0, r);
	uint64_t base = rdmsr(MSR_APIC_BASE);
	/* 10.4.4: base FEE00000H after reset, enabled, this is the BSP. */
	check("IA32_APIC_BASE base", (uint32_t)base & 0xfffff000u, APIC_DEFAULT_BASE);
	check("IA32_APIC_BASE EN", (uint32_t)base & APIC_BASE_EN, APIC_BASE_EN);
	check("IA32_APIC_BASE BSP", (uint32_t)base & APIC_BASE_BSP, APIC_BASE_BSP);
	/* 10.4.6: the ID register holds the initial APIC ID CPUID reports. */
	my_id = apic_read(APIC_ID) >> 24;
	check("APIC ID = CPUID.1:EBX[31:24]", my_id, r[1] >> 24);
	/* 10.4.8: an integrated APIC has version 1XH. */
	uint32_t ver = apic_read(APIC_VERSION);
	check("version is 1XH (integrated)", ver & 0xf0, 0x10);
	check_true("max LVT entry >= 4", ((ver >> 16) & 0xff) >= 4);
	note("version register %x", ver);
}

static void test_software_disable(void)
{
	/* 10.4.7.2: software-disabled, the LVT mask bits stay set. */
	static const char qemu_masks[] = "QEMU 7.2 does not force the LVT masks while software-disabled";
	apic_write(APIC_SVR, 0xff);
	apic_write(APIC_LVT_TIMER, 0x40);
	check_quirk("LVT write while disabled stays masked", apic_read(APIC_LVT_TIMER), 0x10040, qemu_masks);
	apic_write(APIC_SVR, 0x1ff);
	apic_write(APIC_LVT_TIMER, 0x40);
	check("LVT unmasked while enabled", apic_read(APIC_LVT_TIMER), 0x40);
	apic_write(APIC_LVT_LINT1, 0x400);
	apic_write(APIC_SVR, 0xff);
	check_quirk("disabling masks the timer entry", apic_read(APIC_LVT_TIMER) & APIC_LVT_MASKED,
		    APIC_LVT_MASKED, qemu_masks);
	check_quirk("disabling masks LINT1", apic_read(APIC_LVT_LINT1) & APIC_LVT_MASKED, APIC_LVT_MASKED,
		    qemu_masks);
	check("disabling masks the error entry", apic_read(APIC_LVT_ERROR) & APIC_LVT_MASKED, APIC_LVT_MASKED);
	apic_write(APIC_SVR, 0x1ff);
	check_quirk("enabling leaves the masks", apic_read(APIC_LVT_TIMER) & APIC_LVT_MASKED, APIC_LVT_MASKED,
		    qemu_masks);
	apic_enable();
}

static uint32_t isr_in_handler, ppr_in_handler;

static void hook_isr(uint32_t v)
{
	isr_in_handler = isr_bit(v);
	ppr_in_handler = apic_read(APIC_PPR);
}

static void test_self_ipi(void)
{
	irq_reset();
	apic_catch(VEC_A);
	irq_hook = hook_isr;
	cli();
	apic_write(APIC_ICR_LO, ICR_SELF | ICR_FIXED | VEC_A);
	/* 10.8.4: accepted into IRR; with IF = 0 the processor leaves it there. */
	check("self IPI waits in IRR while IF = 0", irr_bit(VEC_A), 1);
	check("not in service yet", isr_bit(VEC_A), 0);
	check("delivery status idle", apic_read(APIC_ICR_LO) & (1u << 12), 0);
	check("not taken with IF = 0", irq_seen[VEC_A].count, 0);
	sti();
	__asm__ volatile("nop");
	cli();
	check("taken after STI", irq_seen[VEC_A].count, 1);
	check("in ISR while its handler runs", isr_in_handler, 1);
	check("PPR = the in-service class", ppr_in_handler, VEC_A & 0xf0);
	check("IRR cleared", irr_bit(VEC_A), 0);
	check("ISR cleared by EOI", isr_bit(VEC_A), 0);
	check("PPR back to TPR", apic_read(APIC_PPR), 0);
	/* No shorthand: the physical destination is this APIC's ID. */
	apic_ipi(my_id, ICR_FIXED | (VEC_A + 1));
	apic_catch(VEC_A + 1);
	sti_hlt();
	check("self IPI by physical destination", irq_seen[VEC_A + 1].count, 1);
	/* Flat logical destination: LDR bit 0 (10.6.2.2). */
	apic_write(APIC_DFR, 0xffffffffu);
	apic_write(APIC_LDR, 0x01000000);
	apic_catch(VEC_A + 2);
	apic_ipi(0x01, ICR_LOGICAL | (VEC_A + 2));
	sti_hlt();
	check("logical destination matching LDR", irq_seen[VEC_A + 2].count, 1);
	apic_ipi(0x02, ICR_LOGICAL | (VEC_A + 2));
	sti();
	__asm__ volatile("nop; nop");
	cli();
	check("logical destination not matching", irq_seen[VEC_A + 2].count, 1);
	irq_hook = 0;
}

static void test_self_nmi(void)
{
	irq_reset();
	apic_catch(2 | APIC_NO_EOI);
	cli();
	/* An NMI IPI to this APIC's ID (the self shorthand is valid with fixed
	 * delivery only, Table 10-3): NMIs are not masked by IF (6.7.1). */
	apic_ipi(my_id, ICR_NMI);
	__asm__ volatile("nop");
	check("NMI IPI taken with IF = 0", irq_seen[2].count, 1);
	check("NMI bypasses IRR", irr_bit(2), 0);
}

static void test_priorities(void)
{
	irq_reset();
	apic_catch(0x45);
	apic_catch(0x55);
	apic_catch(0x65);
	cli();
	apic_write(APIC_TPR, 0x50);
	/* 10.8.3.1: PPR = TPR when no vector of a higher class is in service. */
	check("PPR = TPR", apic_read(APIC_PPR), 0x50);
	apic_write(APIC_ICR_LO, ICR_SELF | 0x45);
	apic_write(APIC_ICR_LO, ICR_SELF | 0x55);
	apic_write(APIC_ICR_LO, ICR_SELF | 0x65);
	sti();
	__asm__ volatile("nop; nop");
	cli();
	/* Only a class above PPR's is delivered. */
	check("class 6 above TPR class 5 taken", irq_seen[0x65].count, 1);
	check("class 5 held by TPR 50H", irq_seen[0x55].count, 0);
	check("class 4 held by TPR 50H", irq_seen[0x45].count, 0);
	check("held vectors stay in IRR", irr_bit(0x55) && irr_bit(0x45), 1);
	apic_write(APIC_TPR, 0x40);
	sti();
	__asm__ volatile("nop; nop");
	cli();
	check("TPR 40H lets class 5 through", irq_seen[0x55].count, 1);
	check("class 4 still held", irq_seen[0x45].count, 0);
	apic_write(APIC_TPR, 0);
	sti();
	__asm__ volatile("nop; nop");
	cli();
	check("TPR 0 lets class 4 through", irq_seen[0x45].count, 1);
	check("highest first, then as TPR fell", irq_seen[0x65].order * 100 + irq_seen[0x55].order * 10 +
	      irq_seen[0x45].order, 12);
}

static void test_errors(void)
{
	irq_reset();
	apic_esr();
	check("ESR clear", apic_esr(), 0);
	/* QEMU would accept the vector into IRR and deliver it as an exception. */
	if (skip_quirk("illegal vectors 0-15", "QEMU 7.2 accepts vectors 0-15 into IRR"))
		return;
	/* 10.5.3, 10.6.3.1: an illegal vector (0-15) in a self IPI: Send Illegal
	 * Vector for the sender, Received Illegal Vector for the receiver. */
	cli();
	apic_write(APIC_ICR_LO, ICR_SELF | 0x03);
	check("no IRR bit for an illegal vector", irr_bit(3), 0);
	check("ESR after a self IPI with vector 3", apic_esr(), 0x60);
	check("back-to-back ESR writes clear it", apic_esr(), 0);
	/* The error LVT: its vector for an APIC error, once unmasked. */
	apic_catch(VEC_ERR);
	apic_write(APIC_LVT_ERROR, VEC_ERR);
	apic_write(APIC_ICR_LO, ICR_SELF | 0x07);
	sti();
	__asm__ volatile("nop; nop");
	cli();
	check("error interrupt through LVT error", irq_seen[VEC_ERR].count != 0, 1);
	apic_write(APIC_LVT_ERROR, APIC_LVT_MASKED);
	apic_esr();
	apic_esr();
}

static void test_global_disable(void)
{
	uint32_t r[4];
	uint64_t base = rdmsr(MSR_APIC_BASE);
	/* 10.4.3: globally disabled, the processor acts as one without an APIC:
	 * CPUID.1:EDX.APIC reads 0. */
	wrmsr(MSR_APIC_BASE, base & ~(uint64_t)APIC_BASE_EN);
	cpuid(1, 0, r);
	check("CPUID.1:EDX.APIC = 0 while disabled", (r[3] >> 9) & 1, 0);
	check("IA32_APIC_BASE.EN reads 0", (uint32_t)rdmsr(MSR_APIC_BASE) & APIC_BASE_EN, 0);
	/* "software may disable or enable the APIC by setting and resetting
	 * IA32_APIC_BASE[11]. A hardware reset is not required." */
	wrmsr(MSR_APIC_BASE, base);
	cpuid(1, 0, r);
	check_quirk("CPUID.1:EDX.APIC = 1 again", (r[3] >> 9) & 1, 1,
		    "QEMU 7.2 leaves CPUID.1:EDX.APIC clear once the APIC was disabled");
	apic_enable();
	irq_reset();
	apic_catch(VEC_A);
	apic_write(APIC_ICR_LO, ICR_SELF | VEC_A);
	sti_hlt();
	check("self IPI after re-enabling", irq_seen[VEC_A].count, 1);
	check("ID after re-enabling", apic_read(APIC_ID) >> 24, my_id);
}

/* 10.4.5: the APIC page moves with IA32_APIC_BASE; the processor's accesses
 * to the new page reach the APIC, not the memory behind it. */
static void test_relocation(void)
{
	if (skip_quirk("APIC base relocation", "QEMU 7.2 TCG does not relocate the APIC"))
		return;
	volatile uint32_t *ram = (volatile uint32_t *)0x00f00000;
	ram[APIC_ID / 4] = 0x12345678;
	uint64_t base = rdmsr(MSR_APIC_BASE);
	wrmsr(MSR_APIC_BASE, (base & 0xfff) | 0x00f00000);
	apic_base = 0x00f00000;
	check("ID register at the new base", apic_read(APIC_ID) >> 24, my_id);
	irq_reset();
	apic_catch(VEC_A);
	apic_write(APIC_ICR_LO, ICR_SELF | VEC_A);
	sti_hlt();
	check("self IPI through the new base", irq_seen[VEC_A].count, 1);
	wrmsr(MSR_APIC_BASE, base);
	apic_base = APIC_DEFAULT_BASE;
	check("the RAM behind it untouched", ram[APIC_ID / 4], 0x12345678);
	check("ID register at FEE00000H again", apic_read(APIC_ID) >> 24, my_id);
}

void guest_main(void)
{
	desc_init();
	pic_mask_all();
	if (!has_apic())
		skip_all("no local APIC (CPUID.1:EDX.APIC = 0)");
	test_identification();
	apic_enable();
	test_software_disable();
	test_self_ipi();
	test_self_nmi();
	test_priorities();
	test_errors();
	test_global_disable();
	test_relocation();
	tap_finish();
}
