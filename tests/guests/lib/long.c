/* IA-32e mode set-up shared by the 64-bit guests (see long.h): tables built
 * in protected mode, then the activation sequence of SDM Vol.3 9.8.5. */
#include "long.h"

volatile uint64_t lm_vec, lm_err, lm_rip, lm_cs, lm_rsp, lm_cr2, lm_hrsp;
volatile uint32_t lm_recover;

uint64_t lm_pml4[512] __attribute__((aligned(4096)));
uint64_t lm_pdpt[512] __attribute__((aligned(4096)));
uint64_t lm_pd[512] __attribute__((aligned(4096)));
uint64_t lm_idt64[64] __attribute__((aligned(16)));
uint32_t lm_tss64[26] __attribute__((aligned(16)));

uint32_t long_mode_supported(void)
{
	/* SDM Vol.2 CPUID: leaf 80000001H exists only if 80000000H:EAX >= it. */
	uint32_t r[4];
	cpuid(0x80000000u, 0, r);
	if (r[0] < 0x80000001u)
		return 0;
	cpuid(0x80000001u, 0, r);
	return (r[3] >> 29) & 1;
}

uint32_t long_identity_map(uint32_t flags)
{
	/* SDM Vol.3 4.5.4, Tables 4-15..4-18: a PDE with PS = 1 maps 2 MiB; the
	 * PML4E and PDPTE point to the next table (the .bss tables sit below
	 * 4 GiB, so bits 63:32 of their addresses are 0). */
	for (int i = 0; i < 512; i++)
		lm_pd[i] = ((uint64_t)i << 21) | flags | PG_PS;
	lm_pdpt[0] = (uint32_t)(uintptr_t)lm_pd | flags;
	lm_pml4[0] = (uint32_t)(uintptr_t)lm_pdpt | flags;
	return (uint32_t)(uintptr_t)lm_pml4;
}

uint64_t long_code64_desc(unsigned dpl)
{
	/* SDM Vol.3 5.2.1: in IA-32e mode, L = 1 with D = 0 selects 64-bit mode;
	 * base and limit are ignored but kept flat for compatibility-mode users. */
	return seg_desc(0, 0xfffff, ACC_P | ACC_DPL(dpl) | ACC_S | ACC_CODE | ACC_CODE_R, FL_G | FL_L);
}

void long_gdt_init(void)
{
	gdt[LM_CS64 >> 3] = long_code64_desc(0);
	reload_gdt();
}

void long_tss_desc(uint64_t *slot)
{
	/* SDM Vol.3 8.2.3, Figure 8-4: the low 8 bytes as a 32-bit available TSS
	 * (type 9, which means 64-bit TSS in IA-32e mode), the high 8 bytes hold
	 * base 63:32 (0 here) and a type field that must be 0. */
	slot[0] = seg_desc((uint32_t)(uintptr_t)lm_tss64, sizeof(lm_tss64) - 1, ACC_P | SYS_TSS32, 0);
	slot[1] = 0;
}

void long_idt_init(uint16_t cs, uint32_t ist1_vectors)
{
	/* SDM Vol.3 6.14.1, Figure 6-8: offset 15:0, selector, IST in bits 34:32,
	 * type 0EH with P, offset 31:16; the second quadword holds offset 63:32
	 * (0: the stubs are below 4 GiB). Each stub is 16 bytes (lib/long64.S). */
	for (int v = 0; v < 32; v++) {
		uint32_t off = (uint32_t)(uintptr_t)lm_stubs + (uint32_t)v * 16;
		uint64_t ist = (ist1_vectors >> v) & 1;
		lm_idt64[2 * v] = (off & 0xffff) | ((uint64_t)cs << 16) | (ist << 32) | (0x8eull << 40) |
				  ((uint64_t)(off >> 16) << 48);
		lm_idt64[2 * v + 1] = 0;
	}
}

void long_enter(uint32_t cr4, uint32_t cr3)
{
	/* SDM Vol.3 9.8.5: with paging off, CR4.PAE = 1, CR3 = the PML4 (or PML5)
	 * table, EFER.LME = 1, then CR0.PG = 1 activates IA-32e mode (LMA = 1).
	 * The 64-bit IDT is loaded in the same asm statement as the MOV CR0: the
	 * 32-bit IDT is no use once LMA = 1, and nothing may fault in between. */
	write_cr4(cr4);
	write_cr3(cr3);
	wrmsr64(EFER_MSR, rdmsr64(EFER_MSR) | EFER_LME);
	struct dtr i64 = { sizeof(lm_idt64) - 1, (uint32_t)(uintptr_t)lm_idt64 };
	__asm__ volatile("lidt %0\n\tmov %1, %%cr0" :: "m"(i64), "r"(read_cr0() | CR0_PG) : "memory");
}

void long_leave(const struct dtr *idt32)
{
	/* SDM Vol.3 9.8.5.4: from compatibility mode, CR0.PG = 0 deactivates
	 * IA-32e mode (LMA = 0); the 32-bit IDT is back in the same statement. */
	__asm__ volatile("mov %0, %%cr0\n\tlidt %1" :: "r"(read_cr0() & ~CR0_PG), "m"(*idt32) : "memory");
}

void lm_unexpected(void)
{
	check("no unexpected exception", (uint32_t)lm_vec, 0xff);
	tap_finish();
}
