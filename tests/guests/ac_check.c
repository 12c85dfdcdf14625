/* Alignment check (#AC): CR0.AM = 1, EFLAGS.AC = 1 and CPL 3 make a
 * misaligned data access #AC(0); any of them clear, no check (SDM Vol.3 6.15
 * "Interrupt 17—Alignment Check Exception", Table 6-7 operand alignment). */
#include "lib/guest.h"

#define EFLAGS_AC 0x40000u
static uint8_t buf[16] __attribute__((aligned(16)));

static void rd16_odd(void *p) { (void)p; uint16_t v; __asm__ volatile(MARK "movw %1, %0" : "=r"(v) : "m"(*(uint16_t *)(buf + 1))); }
static void rd32_2(void *p) { (void)p; uint32_t v; __asm__ volatile(MARK "movl %1, %0" : "=r"(v) : "m"(*(uint32_t *)(buf + 2))); }
static void wr32_1(void *p) { (void)p; __asm__ volatile(MARK "movl %1, %0" : "=m"(*(uint32_t *)(buf + 1)) : "r"(1u)); }
static void rd32_aligned(void *p) { (void)p; uint32_t v; __asm__ volatile("movl %1, %0" : "=r"(v) : "m"(*(uint32_t *)(buf + 4))); }
static void rd16_aligned(void *p) { (void)p; uint16_t v; __asm__ volatile("movw %1, %0" : "=r"(v) : "m"(*(uint16_t *)(buf + 6))); }
static void rd8(void *p) { (void)p; uint8_t v; __asm__ volatile("movb %1, %0" : "=q"(v) : "m"(buf[3])); }
static void set_ac_rd32(void *p)
{
	(void)p;
	uint32_t v;
	__asm__ volatile("pushf\n\torl $0x40000, (%%esp)\n\tpopf\n\t" MARK "movl %1, %0"
			 : "=r"(v) : "m"(*(uint32_t *)(buf + 2)) : "cc");
}

static void user_ac(const char *name, trap_fn fn, uint32_t eflags, int vector)
{
	trap_reset();
	int got = run_user(fn, 0, eflags);
	check_quirk(name, (uint32_t)got, (uint32_t)vector, "TCG does not raise #AC");
	if (got == 17)
		check("  #AC error code 0 at the access", trap_last.error == 0 &&
		      trap_last.eip == trap_mark_ip, 1);
}

void guest_main(void)
{
	uint32_t cr0;
	__asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
	__asm__ volatile("mov %0, %%cr0" :: "r"(cr0 | (1u << 18)));

	user_ac("CPL3 AM AC: 2-byte read at odd address: #AC(0)", rd16_odd, EFLAGS_AC, 17);
	user_ac("CPL3 AM AC: 4-byte read at 4n+2: #AC(0)", rd32_2, EFLAGS_AC, 17);
	user_ac("CPL3 AM AC: 4-byte write at 4n+1: #AC(0)", wr32_1, EFLAGS_AC, 17);
	user_ac("CPL3 AM, AC set by POPF at CPL3: #AC(0)", set_ac_rd32, 0, 17);
	run_user_catch("CPL3 AM AC: aligned 4-byte read: none", rd32_aligned, 0, EFLAGS_AC, NO_FAULT, -1);
	run_user_catch("CPL3 AM AC: aligned 2-byte read: none", rd16_aligned, 0, EFLAGS_AC, NO_FAULT, -1);
	run_user_catch("CPL3 AM AC: byte read: none", rd8, 0, EFLAGS_AC, NO_FAULT, -1);
	run_user_catch("CPL3 AM, AC=0: misaligned read: none", rd32_2, 0, 0, NO_FAULT, -1);

	/* CPL 0: never checked, AC or not. */
	__asm__ volatile("pushf\n\torl $0x40000, (%%esp)\n\tpopf" ::: "cc");
	expect_no_fault("CPL0 AM AC: misaligned read: none", rd32_2, 0);
	__asm__ volatile("pushf\n\tandl $~0x40000, (%%esp)\n\tpopf" ::: "cc");

	__asm__ volatile("mov %0, %%cr0" :: "r"(cr0 & ~(1u << 18)));
	run_user_catch("CPL3 AM=0, AC=1: misaligned read: none", rd32_2, 0, EFLAGS_AC, NO_FAULT, -1);
}
