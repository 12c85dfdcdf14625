/* x2APIC mode (SDM Vol.3 10.12): entering it through IA32_APIC_BASE, the
 * registers as MSRs 800H-8FFH (IDs, the derived logical ID, TPR/PPR, EOI, the
 * SELF IPI register, the 64-bit ICR, the timer, the ESR), the #GP cases
 * (10.12.1.2 reserved addresses, write-only and read-only registers, reserved
 * bits, non-zero EOI and ESR writes), the MMIO page gone, and the mode
 * transitions (10.12.5: x2APIC -> xAPIC and disabled -> x2APIC are illegal,
 * x2APIC -> disabled -> xAPIC is the way back). Without CPUID x2APIC only the
 * refused EXTD is checked; skipped without a local APIC. */
#include "lib/apic.h"

#define VEC 0x50

static uint32_t x2id;

static void expect_gp_rd(const char *name, uint32_t msr)
{
	uint64_t v;
	check(name, (uint32_t)rdmsr_catch(msr, &v), 13);
}

static void expect_gp_wr(const char *name, uint32_t msr, uint64_t v)
{
	check(name, (uint32_t)wrmsr_catch(msr, v), 13);
}

static void test_enter(uint64_t base)
{
	uint64_t v;
	/* 10.12.2: no MSR interface outside x2APIC mode. */
	check("RDMSR 802H in xAPIC mode: #GP", (uint32_t)rdmsr_catch(0x802, &v), 13);
	/* 10.12.5.1: EN = 0 with EXTD = 1 is invalid. */
	check("EN=0 EXTD=1: #GP", (uint32_t)wrmsr_catch(MSR_APIC_BASE, (base & ~(uint64_t)APIC_BASE_EN) |
						      APIC_BASE_EXTD), 13);
	check("xAPIC -> x2APIC", (uint32_t)wrmsr_catch(MSR_APIC_BASE, base | APIC_BASE_EXTD), NO_FAULT);
	check("IA32_APIC_BASE reads EN and EXTD", (uint32_t)rdmsr(MSR_APIC_BASE) & (APIC_BASE_EN | APIC_BASE_EXTD),
	      APIC_BASE_EN | APIC_BASE_EXTD);
}

static void test_registers(uint32_t xapic_version)
{
	uint32_t r[4];
	cpuid(1, 0, r);
	x2id = (uint32_t)rdmsr(0x802);
	/* 10.12.8.1: the x2APIC ID is the initial APIC ID (its low byte) and
	 * CPUID leaf 0BH's EDX. */
	check("x2APIC ID low byte = CPUID.1:EBX[31:24]", x2id & 0xff, r[1] >> 24);
	cpuid(0, 0, r);
	if (r[0] >= 0xb) {
		cpuid(0xb, 0, r);
		check("x2APIC ID = CPUID.0BH:EDX", x2id, r[3]);
	}
	check("version as in xAPIC mode", (uint32_t)rdmsr(0x803), xapic_version);
	/* 10.12.10.2: logical x2APIC ID = cluster (ID[19:4]) << 16 | 1 << ID[3:0]. */
	check("LDR derived from the ID", (uint32_t)rdmsr(0x80d), ((x2id >> 4) << 16) | (1u << (x2id & 15)));
	wrmsr(0x80f, 0x1ff);
	wrmsr(0x808, 0x20);
	check("TPR through MSR 808H", (uint32_t)rdmsr(0x808), 0x20);
	check("PPR = TPR", (uint32_t)rdmsr(0x80a), 0x20);
	wrmsr(0x808, 0);
}

static void test_gp_cases(void)
{
	expect_gp_rd("RDMSR EOI (write-only): #GP", 0x80b);
	expect_gp_wr("WRMSR EOI non-zero: #GP", 0x80b, 1);
	expect_gp_wr("WRMSR ID (read-only): #GP", 0x802, 0);
	expect_gp_wr("WRMSR LDR (read-only): #GP", 0x80d, 0);
	expect_gp_wr("WRMSR version: #GP", 0x803, 0);
	expect_gp_rd("RDMSR 80EH (no DFR): #GP", 0x80e);
	expect_gp_rd("RDMSR 831H (no ICR high): #GP", 0x831);
	expect_gp_wr("WRMSR 831H: #GP", 0x831, 0);
	expect_gp_rd("RDMSR SELF IPI (write-only): #GP", 0x83f);
	expect_gp_rd("RDMSR 801H (reserved): #GP", 0x801);
	expect_gp_wr("WRMSR ESR non-zero: #GP", 0x828, 1);
	expect_gp_wr("WRMSR TPR bit 8: #GP", 0x808, 0x100);
	expect_gp_wr("WRMSR TPR bits 63:32: #GP", 0x808, 1ull << 32);
	expect_gp_wr("WRMSR SELF IPI bit 8: #GP", 0x83f, 0x150);
	expect_gp_wr("WRMSR ICR delivery status bit: #GP", 0x830, 0x1000 | VEC);
}

static void test_ipis(void)
{
	irq_reset();
	apic_catch(VEC | APIC_NO_EOI);
	apic_catch((VEC + 1) | APIC_NO_EOI);
	apic_catch(2 | APIC_NO_EOI);
	cli();
	/* 10.12.11: the SELF IPI register: a self, edge, fixed interrupt. */
	wrmsr(0x83f, VEC);
	check("SELF IPI pending in IRR", ((uint32_t)rdmsr(0x820 + VEC / 32) >> (VEC % 32)) & 1, 1);
	sti();
	__asm__ volatile("nop");
	cli();
	check("SELF IPI delivered", irq_seen[VEC].count, 1);
	check("in service", ((uint32_t)rdmsr(0x810 + VEC / 32) >> (VEC % 32)) & 1, 1);
	wrmsr(0x80b, 0);
	check("EOI through MSR 80BH", ((uint32_t)rdmsr(0x810 + VEC / 32) >> (VEC % 32)) & 1, 0);
	/* 10.12.9: one 64-bit ICR, the 32-bit destination in bits 63:32. */
	wrmsr(0x830, ((uint64_t)x2id << 32) | (VEC + 1));
	sti();
	__asm__ volatile("nop");
	cli();
	check("ICR to this x2APIC ID", irq_seen[VEC + 1].count, 1);
	wrmsr(0x80b, 0);
	check("ICR reads back 64 bits", (uint32_t)(rdmsr(0x830) >> 32), x2id);
	wrmsr(0x830, ((uint64_t)x2id << 32) | ICR_NMI);
	__asm__ volatile("nop");
	check("NMI by ICR with IF = 0", irq_seen[2].count, 1);
	/* The MMIO page is gone (10.12.2): an ICR write there sends nothing. */
	*(volatile uint32_t *)(uintptr_t)(APIC_DEFAULT_BASE + APIC_ICR_LO) = ICR_SELF | VEC;
	sti();
	__asm__ volatile("nop; nop");
	cli();
	check("MMIO ICR write sends nothing", irq_seen[VEC].count, 1);
	/* ESR (10.12.1.3: write 0 only): the SELF IPI register with an illegal
	 * vector sets Send Illegal Vector; this APIC receives it: Received. */
	wrmsr(0x828, 0);
	wrmsr(0x83f, 5);
	wrmsr(0x828, 0);
	check("ESR after SELF IPI vector 5", (uint32_t)rdmsr(0x828), 0x60);
	wrmsr(0x828, 0);
}

static void test_timer(void)
{
	irq_reset();
	apic_catch(VEC + 2);
	wrmsr(0x83e, 0xb);
	wrmsr(0x832, VEC + 2);
	wrmsr(0x838, 50000);
	check_true("current count through MSR 839H", (uint32_t)rdmsr(0x839) <= 50000);
	uint64_t until = rdtsc() + 50000000;
	while (!irq_seen[VEC + 2].count && rdtsc() < until) {
		sti();
		__asm__ volatile("nop; nop");
		cli();
	}
	check("one-shot timer through MSRs", irq_seen[VEC + 2].count, 1);
	wrmsr(0x832, APIC_LVT_MASKED);
}

static void test_leave(uint64_t base)
{
	/* 10.12.5.1: x2APIC -> xAPIC is illegal; via the disabled state it is
	 * allowed; disabled -> x2APIC is illegal. */
	check("x2APIC -> xAPIC: #GP", (uint32_t)wrmsr_catch(MSR_APIC_BASE, base), 13);
	check("x2APIC -> disabled", (uint32_t)wrmsr_catch(MSR_APIC_BASE, base & ~(uint64_t)(APIC_BASE_EN |
											 APIC_BASE_EXTD)), NO_FAULT);
	check("disabled -> x2APIC: #GP", (uint32_t)wrmsr_catch(MSR_APIC_BASE, base | APIC_BASE_EXTD), 13);
	check("disabled -> xAPIC", (uint32_t)wrmsr_catch(MSR_APIC_BASE, base), NO_FAULT);
	check("xAPIC ID register again", apic_read(APIC_ID) >> 24, x2id & 0xff);
	uint64_t v;
	check("MSRs gone again: #GP", (uint32_t)rdmsr_catch(0x802, &v), 13);
}

void guest_main(void)
{
	desc_init();
	pic_mask_all();
	if (!has_apic())
		skip_all("no local APIC (CPUID.1:EDX.APIC = 0)");
	if (!has_x2apic()) {
		/* SDM Vol.3 10.12.1, Figure 10-26: without CPUID x2APIC, EXTD (bit 10)
		 * is reserved: WRMSR #GP(0), the APIC stays in xAPIC mode (e.g.
		 * --cpu skylake-lite,-x2apic). */
		apic_enable();
		uint64_t base = rdmsr(MSR_APIC_BASE);
		static const char why[] = "QEMU 7.2 TCG ignores EXTD and reads the x2APIC MSRs as 0 "
					  "without #GP (SDM Vol.3 10.12.1: reserved)";
		check_quirk("no CPUID x2APIC: setting EXTD -> #GP",
			    (uint32_t)wrmsr_catch(MSR_APIC_BASE, base | APIC_BASE_EXTD), 13, why);
		check("  IA32_APIC_BASE unchanged", (uint32_t)rdmsr(MSR_APIC_BASE), (uint32_t)base);
		uint64_t v;
		check_quirk("  no x2APIC MSRs: RDMSR 802H -> #GP", (uint32_t)rdmsr_catch(0x802, &v), 13, why);
		tap_finish();
	}
	apic_enable();
	uint32_t version = apic_read(APIC_VERSION);
	uint64_t base = rdmsr(MSR_APIC_BASE) & ~(uint64_t)APIC_BASE_EXTD;
	test_enter(base);
	test_registers(version);
	test_gp_cases();
	test_ipis();
	test_timer();
	test_leave(base);
	tap_finish();
}
