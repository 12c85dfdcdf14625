/* GDT, IDT and TSS builders (SDM Vol.3 3.4.5 segment descriptors, 6.11 IDT
 * descriptors, 8.2.1 TSS). One fixed layout shared by all guests. */
#include "guest.h"

uint64_t gdt[GDT_ENTRIES] __attribute__((aligned(8)));
uint64_t idt[256] __attribute__((aligned(8)));
struct tss32 tss __attribute__((aligned(16)));
static uint8_t ring0_stack[16384] __attribute__((aligned(16)));

uint64_t seg_desc(uint32_t base, uint32_t limit, uint8_t access, uint8_t flags)
{
	/* SDM 3.4.5 Figure 3-8: limit 15:0 | base 23:0 | access | limit 19:16 | flags | base 31:24 */
	return (uint64_t)(limit & 0xffff) | ((uint64_t)(base & 0xffffff) << 16) |
	       ((uint64_t)access << 40) | ((uint64_t)((limit >> 16) & 0xf) << 48) |
	       ((uint64_t)(flags & 0xf) << 52) | ((uint64_t)(base >> 24) << 56);
}

uint64_t gate_desc(uint16_t sel, uint32_t offset, uint8_t type, uint8_t dpl, uint8_t params)
{
	/* SDM 6.11 Figure 6-2 / 5.8.3 Figure 5-8: offset 15:0 | selector | params | P DPL type | offset 31:16 */
	return (uint64_t)(offset & 0xffff) | ((uint64_t)sel << 16) |
	       ((uint64_t)(params & 0x1f) << 32) | ((uint64_t)(0x80 | (dpl << 5) | type) << 40) |
	       ((uint64_t)(offset >> 16) << 48);
}

void set_idt_gate(int vec, uint32_t handler, uint8_t type, uint8_t dpl)
{
	idt[vec] = gate_desc(SEL_KCODE, handler, type, dpl, 0);
}

void reload_gdt(void)
{
	struct dtr g = { sizeof(gdt) - 1, (uint32_t)(uintptr_t)gdt };
	__asm__ volatile("lgdt %0\n\t"
			 "ljmp $0x08, $1f\n1:\t"
			 "mov $0x10, %%ax\n\t"
			 "mov %%ax, %%ds\n\tmov %%ax, %%es\n\tmov %%ax, %%ss\n\t"
			 "mov %%ax, %%fs\n\tmov %%ax, %%gs" :: "m"(g) : "eax", "memory");
}

void tss_load(uint32_t limit)
{
	/* LTR needs an available TSS (SDM 8.2.4); clear the busy bit first. */
	gdt[SEL_TSS >> 3] = seg_desc((uint32_t)(uintptr_t)&tss, limit, ACC_P | SYS_TSS32, 0);
	__asm__ volatile("ltr %w0" :: "r"(SEL_TSS) : "memory");
}

void desc_init(void)
{
	gmemset(gdt, 0, sizeof(gdt));
	gdt[1] = seg_desc(0, 0xfffff, ACC_P | ACC_S | ACC_CODE | ACC_CODE_R, FL_G | FL_DB);
	gdt[2] = seg_desc(0, 0xfffff, ACC_P | ACC_S | ACC_DATA_W, FL_G | FL_DB);
	gdt[3] = seg_desc(0, 0xfffff, ACC_P | ACC_DPL(3) | ACC_S | ACC_CODE | ACC_CODE_R, FL_G | FL_DB);
	gdt[4] = seg_desc(0, 0xfffff, ACC_P | ACC_DPL(3) | ACC_S | ACC_DATA_W, FL_G | FL_DB);
	gdt[6] = seg_desc(0, 0xffff, ACC_P | ACC_S | ACC_CODE | ACC_CODE_R, 0);
	gdt[7] = seg_desc(0, 0xffff, ACC_P | ACC_S | ACC_DATA_W, 0);
	reload_gdt();

	for (int v = 0; v < 256; v++)
		idt[v] = gate_desc(SEL_KCODE, trap_stub_addr(v), SYS_INTGATE, 0, 0);
	/* The ring-3 "done" vector must be reachable from CPL3 (SDM 6.12.1.1). */
	idt[VEC_USER_RETURN] = gate_desc(SEL_KCODE, trap_stub_addr(VEC_USER_RETURN), SYS_INTGATE, 3, 0);
	struct dtr i = { sizeof(idt) - 1, (uint32_t)(uintptr_t)idt };
	__asm__ volatile("lidt %0" :: "m"(i));

	/* SDM LLDT: a null selector marks LDTR invalid; the loader's (or the
	 * reset) LDTR may still describe base 0 / limit FFFFH (SDM 10.1 Table 10-1). */
	__asm__ volatile("lldt %w0" :: "r"(0));

	gmemset(&tss, 0, sizeof(tss));
	tss.esp0 = (uint32_t)(uintptr_t)(ring0_stack + sizeof(ring0_stack));
	tss.ss0 = SEL_KDATA;
	/* SDM 19.5.2: bitmap base at offset 104, all ports denied, terminating 0xff. */
	tss.iomap_base = (uint16_t)__builtin_offsetof(struct tss32, iomap);
	gmemset(tss.iomap, 0xff, sizeof(tss.iomap));
	tss_load(sizeof(tss) - 1);
}
