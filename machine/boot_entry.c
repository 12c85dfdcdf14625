/* The boot entry states (machine/boot_entry.h). */
#include "machine/boot_entry.h"

#include "mmu/segment.h"

/* GDTR = the table at gdt_base, CS = code_sel and the other segment registers
 * data_sel loaded from it (SDM Vol.3 3.4.3), CPL 0. */
static void load_flat_segments(struct cpu *cpu, struct physmem *pm, uint64_t gdt_base, uint16_t gdt_limit,
			       uint16_t code_sel, uint16_t data_sel)
{
	uint64_t code = physmem_read(pm, gdt_base + code_sel, 8);
	uint64_t data = physmem_read(pm, gdt_base + data_sel, 8);
	seg_load_descriptor(&cpu->seg[SR_CS], code_sel, code);
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			seg_load_descriptor(&cpu->seg[s], data_sel, data);
	cpu->gdtr.base = gdt_base;
	cpu->gdtr.limit = gdt_limit;
	cpu->cpl = 0;
}

void boot_enter_prot32(struct cpu *cpu, struct physmem *pm, uint64_t gdt_base, uint16_t gdt_limit,
		       uint16_t code_sel, uint16_t data_sel, uint64_t entry)
{
	cpu->cr0 |= CR0_PE;
	load_flat_segments(cpu, pm, gdt_base, gdt_limit, code_sel, data_sel);
	cpu->rip = entry;
	cpu_update_mode(cpu);
	tlb_flush_all(&cpu->tlb);
}

/* Multiboot 3.2 "Machine state" as QEMU's option ROM (pc-bios/optionrom/
 * multiboot.S) leaves it: EAX magic, EBX info, ECX the entry point (it jumps
 * through ECX), CS=0x08 flat 32-bit code, DS/ES/FS/GS/SS=0x10 flat data,
 * CR0 = PE (it writes 1; ET reads as 1, SDM Vol.3 2.5), paging off, EFLAGS.IF=0
 * (CLI) and DF=0 (CLD), A20 enabled (port 0x92 reads 02H, devices/reset.h).
 * GDTR points at a copy of the ROM's GDT in guest RAM, after the image with the
 * rest of the information (devices/multiboot.h). */
void boot_enter_multiboot(struct cpu *cpu, struct physmem *pm, const struct multiboot_boot *b)
{
	cpu->regs[R_AX] = MB_BOOT_MAGIC;
	cpu->regs[R_BX] = b->info_addr;
	cpu->regs[R_CX] = b->entry;
	cpu->cr0 = CR0_PE | CR0_ET;
	cpu_set_flags(cpu, FLAG_FIXED1);
	boot_enter_prot32(cpu, pm, b->gdt_addr, b->gdt_limit, MB_GDT_CODE_SEL, MB_GDT_DATA_SEL, b->entry);
}

void boot_enter_linux32(struct cpu *cpu, struct physmem *pm, const struct linux_boot *b)
{
	for (unsigned r = 0; r < 16; r++)
		cpu->regs[r] = 0;
	cpu->regs[R_SI] = b->zero_page;
	cpu->cr0 = CR0_PE | CR0_ET;
	cpu_set_flags(cpu, FLAG_FIXED1);
	boot_enter_prot32(cpu, pm, b->gdt_addr, b->gdt_limit, LINUX_BOOT_CS, LINUX_BOOT_DS, b->entry);
}

void boot_enter_pvh(struct cpu *cpu, struct physmem *pm, const struct pvh_boot *b)
{
	for (unsigned r = 0; r < 16; r++)
		cpu->regs[r] = 0;
	cpu->regs[R_BX] = b->start_info;
	cpu->cr0 = CR0_PE | CR0_ET;
	cpu->cr4 = 0;
	cpu_set_flags(cpu, FLAG_FIXED1);
	/* SDM Vol.3 8.2.2: a busy 32-bit TSS descriptor (type 1011B), present,
	 * base 0, limit 67H: the smallest 32-bit TSS. */
	seg_load_descriptor(&cpu->tr, 0, 0x00008b0000000067ull);
	boot_enter_prot32(cpu, pm, b->gdt_addr, b->gdt_limit, PVH_CODE_SEL, PVH_DATA_SEL, b->entry);
}

/* A flat image entered in real mode with CS:IP naming the linear entry
 * (CS = the 64 KiB-aligned segment, as a boot sector sees 0000:7C00). */
void boot_enter_real(struct cpu *cpu, uint64_t entry)
{
	seg_load_real(&cpu->seg[SR_CS], (uint16_t)((entry >> 4) & 0xf000));
	cpu->rip = entry & 0xffff;
	cpu_update_mode(cpu);
}

/* --entry64: a direct 64-bit start for test guests. IA-32e mode is active
 * (EFER.LME = LMA = 1, CR0 = PE|ET|PG, CR4.PAE; SDM Vol.3 9.8.5) with identity
 * page tables for the first 4 GiB in 2 MiB pages (SDM Vol.3 4.5, Table 4-17),
 * all supervisor read/write/execute, placed in low RAM:
 *   10000H PML4, 11000H PDPT, 12000H-15FFFH four page directories,
 *   16000H GDT: 08H flat 64-bit code (L=1), 10H flat data;
 * CS = 08H, DS/ES/SS/FS/GS = 10H, RSP = 10000H (growing down below the tables),
 * RFLAGS = 2, no IDT (IDTR limit 0: the guest installs its own). */
#define E64_PDPT 0x11000u
#define E64_PD   0x12000u
#define E64_GDT  0x16000u

void boot_enter_long64(struct cpu *cpu, struct physmem *pm, uint64_t entry)
{
	physmem_write(pm, BOOT_E64_PML4, 8, E64_PDPT | 3);
	for (unsigned i = 1; i < 512; i++)
		physmem_write(pm, BOOT_E64_PML4 + i * 8, 8, 0);
	for (unsigned i = 0; i < 512; i++)
		physmem_write(pm, E64_PDPT + i * 8, 8, i < 4 ? (E64_PD + i * 0x1000u) | 3 : 0);
	for (unsigned i = 0; i < 4 * 512; i++)
		physmem_write(pm, E64_PD + i * 8, 8, ((uint64_t)i << 21) | 0x83);   /* P RW PS */
	/* SDM Vol.3 3.4.5: code 9BH with L=1 (flags AH), data 93H with G/B (flags CH). */
	uint64_t code = 0x00af9b000000ffffull, data = 0x00cf93000000ffffull;
	physmem_write(pm, E64_GDT, 8, 0);
	physmem_write(pm, E64_GDT + 8, 8, code);
	physmem_write(pm, E64_GDT + 16, 8, data);
	cpu->idtr.base = 0;
	cpu->idtr.limit = 0;
	cpu->cr3 = BOOT_E64_PML4;
	cpu->cr4 = CR4_PAE;
	cpu->efer = EFER_LME | EFER_LMA;
	cpu->cr0 = CR0_PE | CR0_ET | CR0_PG;
	load_flat_segments(cpu, pm, E64_GDT, 23, 0x08, 0x10);
	cpu->regs[R_SP] = BOOT_E64_PML4;
	cpu_set_flags(cpu, FLAG_FIXED1);
	cpu->rip = entry;
	cpu_update_mode(cpu);
	tlb_flush_all(&cpu->tlb);
}
