/* I/O privilege at CPL3: IOPL, the TSS I/O permission bitmap, and the
 * IOPL-sensitive flag instructions. SDM Vol.1 19.5 (I/O privilege level,
 * I/O permission bit map), Vol.2 IN/OUT/INS/OUTS, CLI/STI, POPF. */
#include "lib/guest.h"

#define IF_   0x200
#define IOPL3 0x3000

static void allow(uint16_t port) { tss.iomap[port >> 3] &= (uint8_t)~(1u << (port & 7)); }
static void deny(uint16_t port) { tss.iomap[port >> 3] |= (uint8_t)(1u << (port & 7)); }

static void u_inb(void *p) { __asm__ volatile(MARK "inb %w0, %%al" :: "d"((uint16_t)(uintptr_t)p) : "eax"); }
static void u_inw(void *p) { __asm__ volatile(MARK "inw %w0, %%ax" :: "d"((uint16_t)(uintptr_t)p) : "eax"); }
static void u_inl(void *p) { __asm__ volatile(MARK "inl %w0, %%eax" :: "d"((uint16_t)(uintptr_t)p) : "eax"); }
static void u_outb(void *p) { __asm__ volatile(MARK "outb %%al, %w0" :: "d"((uint16_t)(uintptr_t)p), "a"(0) ); }
static void u_inb_imm(void *p) { (void)p; __asm__ volatile(MARK "inb $0x80, %%al" ::: "eax"); }
static uint8_t ins_buf[4];
static void u_insb(void *p) { __asm__ volatile(MARK "insb" :: "d"((uint16_t)(uintptr_t)p), "D"(ins_buf) : "memory"); }
static void u_outsw(void *p) { __asm__ volatile(MARK "outsw" :: "d"((uint16_t)(uintptr_t)p), "S"(ins_buf) : "memory"); }
static void u_cli(void *p) { (void)p; __asm__ volatile(MARK "cli"); }
static void u_sti(void *p) { (void)p; __asm__ volatile(MARK "sti; cli"); }

uint32_t popf_result;
static void u_popf(void *p)
{
	/* Try to set IF and IOPL=3 and clear nothing else; read back. */
	__asm__ volatile("pushl %1\n\tpopfl\n\tpushfl\n\tpopl %0" : "=r"(popf_result) : "r"((uint32_t)(uintptr_t)p) : "cc");
}

static void test_bitmap(void)
{
	/* SDM Vol.1 19.5.2: with CPL > IOPL every port's bits must be 0. */
	run_user_catch("CPL3 IOPL0 inb 0x80 denied -> #GP(0)", u_inb, (void *)0x80, 0, 13, 0);
	allow(0x80);
	run_user_catch("inb 0x80 allowed by bitmap", u_inb, (void *)0x80, 0, NO_FAULT, -1);
	run_user_catch("inb $0x80 (imm form) allowed", u_inb_imm, 0, 0, NO_FAULT, -1);
	run_user_catch("outb 0x80 allowed", u_outb, (void *)0x80, 0, NO_FAULT, -1);
	run_user_catch("inb 0x81 still denied", u_inb, (void *)0x81, 0, 13, 0);
	/* Multi-byte accesses check every byte's bit. */
	allow(0x84);
	run_user_catch("inw 0x84 with 0x85 denied -> #GP(0)", u_inw, (void *)0x84, 0, 13, 0);
	allow(0x85);
	run_user_catch("inw 0x84 with 0x84/0x85 allowed", u_inw, (void *)0x84, 0, NO_FAULT, -1);
	run_user_catch("inl 0x84 with 0x86/0x87 denied -> #GP(0)", u_inl, (void *)0x84, 0, 13, 0);
	allow(0x86);
	allow(0x87);
	run_user_catch("inl 0x84..0x87 allowed", u_inl, (void *)0x84, 0, NO_FAULT, -1);
	/* 0x87 and 0x88 live in different bitmap bytes (0x10 bit 7, 0x11 bit 0). */
	run_user_catch("inw 0x87 spanning bitmap bytes, 0x88 denied -> #GP(0)", u_inw, (void *)0x87, 0, 13, 0);
	allow(0x88);
	run_user_catch("inw 0x87 spanning bitmap bytes, both allowed", u_inw, (void *)0x87, 0, NO_FAULT, -1);
	deny(0x88);
	/* INS/OUTS use the same check on DX. */
	run_user_catch("insb from allowed 0x80", u_insb, (void *)0x80, 0, NO_FAULT, -1);
	run_user_catch("insb from denied 0x90 -> #GP(0)", u_insb, (void *)0x90, 0, 13, 0);
	run_user_catch("outsw to 0x84 allowed", u_outsw, (void *)0x84, 0, NO_FAULT, -1);
	run_user_catch("outsw to 0x87 with 0x88 denied -> #GP(0)", u_outsw, (void *)0x87, 0, 13, 0);
	/* IOPL=3 >= CPL: the bitmap is not consulted (SDM Vol.1 19.5.1). */
	run_user_catch("IOPL3: inb denied port 0x90 allowed", u_inb, (void *)0x90, IOPL3, NO_FAULT, -1);
}

static void test_tss_limit(void)
{
	uint32_t base = tss.iomap_base;
	/* Bitmap byte 0x10 (ports 0x80-0x87) and the second byte read with it
	 * (0x11) inside the limit: allowed. */
	tss_load(base + 0x11);
	run_user_catch("TSS limit covers bitmap bytes 0x10-0x11: inb 0x80 ok", u_inb, (void *)0x80, 0, NO_FAULT, -1);
	/* SDM Vol.1 19.5.2: the processor reads two bitmap bytes per check;
	 * a byte beyond the TSS limit means #GP(0). */
	tss_load(base + 0x10);
	run_user_catch("second bitmap byte beyond TSS limit -> #GP(0)", u_inb, (void *)0x80, 0, 13, 0);
	tss_load(base + 0x0f);
	run_user_catch("bitmap byte beyond TSS limit -> #GP(0)", u_inb, (void *)0x80, 0, 13, 0);
	/* Base >= limit: no bitmap at all. */
	tss_load(0x67);
	run_user_catch("TSS limit 0x67 (no bitmap) -> #GP(0)", u_inb, (void *)0x80, 0, 13, 0);
	tss_load(sizeof(tss) - 1);
	run_user_catch("full TSS limit restored: inb 0x80 ok", u_inb, (void *)0x80, 0, NO_FAULT, -1);
}

static void test_flags(void)
{
	/* SDM CLI/STI: #GP(0) if CPL > IOPL (no VME/PVI). */
	run_user_catch("CPL3 IOPL0 CLI -> #GP(0)", u_cli, 0, 0, 13, 0);
	run_user_catch("CPL3 IOPL0 STI -> #GP(0)", u_sti, 0, 0, 13, 0);
	run_user_catch("CPL3 IOPL3 CLI allowed", u_cli, 0, IOPL3, NO_FAULT, -1);
	run_user_catch("CPL3 IOPL3 STI allowed", u_sti, 0, IOPL3, NO_FAULT, -1);
	/* SDM POPF: at CPL>IOPL, IF is left unchanged (no fault); IOPL changes
	 * only at CPL0. */
	run_user(u_popf, (void *)(uintptr_t)(2 | IF_ | IOPL3), 0);
	check("CPL3 IOPL0 POPF cannot set IF", popf_result & IF_, 0);
	check("CPL3 IOPL0 POPF cannot set IOPL", popf_result & IOPL3, 0);
	run_user(u_popf, (void *)(uintptr_t)(2 | IF_), IOPL3);
	check("CPL3 IOPL3 POPF sets IF", popf_result & IF_, IF_);
	run_user(u_popf, (void *)(uintptr_t)2, IOPL3);
	check("CPL3 IOPL3 POPF cannot clear IOPL", popf_result & IOPL3, IOPL3);
	/* CPL0 may change IOPL with POPF. */
	uint32_t f;
	__asm__ volatile("pushfl\n\tpushl $0x1002\n\tpopfl\n\tpushfl\n\tpopl %0\n\tpopfl" : "=r"(f) :: "cc");
	check("CPL0 POPF sets IOPL=1", f & IOPL3, 0x1000);
}

void guest_main(void)
{
	test_bitmap();
	test_tss_limit();
	test_flags();
}
