/* The CPU states a machine starts a guest in, when no firmware runs before
 * it: a Multiboot kernel's (Multiboot 3.2 "Machine state"), a flat image's
 * real-mode entry, and --entry64's direct 64-bit start with identity page
 * tables. A BIOS starts from the RESET state cpu_init() leaves instead. */
#ifndef HVEMU_MACHINE_BOOT_ENTRY_H
#define HVEMU_MACHINE_BOOT_ENTRY_H

#include <stdint.h>

#include "devices/linux_boot.h"
#include "devices/multiboot.h"
#include "devices/pvh.h"
#include "emu/cpu.h"

/* What boot_enter_long64() writes in low RAM: the page tables and the GDT
 * from BOOT_E64_PML4 up to BOOT_E64_END, the stack below BOOT_E64_PML4. */
#define BOOT_E64_PML4 0x10000u
#define BOOT_E64_END  0x17000u

/* Multiboot 3.2 "Machine state" for the kernel multiboot_load() placed in pm
 * (b): EAX magic, EBX the information, flat CS/DS from the loader's GDT. */
void boot_enter_multiboot(struct cpu *cpu, struct physmem *pm, const struct multiboot_boot *b);

/* Linux's 32-bit boot protocol (boot.rst) for the bzImage linux_load_bzimage()
 * placed: ESI the zero page, EBP = EDI = EBX = 0, CS = __BOOT_CS and the
 * other segments __BOOT_DS, paging off, interrupts disabled. */
void boot_enter_linux32(struct cpu *cpu, struct physmem *pm, const struct linux_boot *b);

/* The PVH entry state (pvh.pandoc) for the kernel pvh_load() placed: EBX the
 * hvm_start_info, CR0 = PE (ET reads 1), CR4 = 0, flat 32-bit CS/DS/ES/SS,
 * TR a 32-bit TSS with base 0 and limit 67H, EFLAGS.VM/IF/TF clear. */
void boot_enter_pvh(struct cpu *cpu, struct physmem *pm, const struct pvh_boot *b);

/* 32-bit protected mode at CPL 0 at entry: CR0.PE set (its other bits kept,
 * paging as it was), GDTR = gdt_base/gdt_limit, CS = code_sel and the other
 * segment registers data_sel, loaded from that table in pm. */
void boot_enter_prot32(struct cpu *cpu, struct physmem *pm, uint64_t gdt_base, uint16_t gdt_limit,
		       uint16_t code_sel, uint16_t data_sel, uint64_t entry);

/* Real mode with CS:IP naming the linear entry (< 1 MiB). */
void boot_enter_real(struct cpu *cpu, uint64_t entry);

/* IA-32e mode at entry (a canonical address), the first 4 GiB identity
 * mapped by tables written to pm (layout in boot_entry.c). */
void boot_enter_long64(struct cpu *cpu, struct physmem *pm, uint64_t entry);

#endif
