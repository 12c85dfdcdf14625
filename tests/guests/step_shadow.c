/* Single-step traps next to the instructions that open an interrupt shadow.
 * SDM Vol.3 6.8.3: MOV SS and POP SS inhibit interrupts, debug exceptions and
 * single-step traps until the boundary after the next instruction; STI (IF 0 ->
 * 1) inhibits maskable interrupts only, so the trap after STI is taken. SDM Vol.3
 * 26.3.1.5 relies on that: VM entry with STI blocking and RFLAGS.TF = 1 must
 * have the BS bit set in the pending debug exceptions. */
#include "lib/guest.h"

#define MAX_STEPS 16
static volatile uint32_t step_eip[MAX_STEPS], step_dr6[MAX_STEPS], steps;

static int db_handler(struct trap_frame *f)
{
	uint32_t dr6;
	__asm__ volatile("mov %%dr6, %0" : "=r"(dr6));
	if (steps < MAX_STEPS) {
		step_eip[steps] = f->eip;
		step_dr6[steps] = dr6;
	}
	steps++;
	__asm__ volatile("mov %0, %%dr6" :: "r"(0u));
	return 1;
}

extern char sti_l2[], sti_l3[], sti1_l2[], movss_l2[], movss_l3[], popss_l2[], popss_l3[];

#define QEMU_STI_TF "the single-step trap after STI is held off as after MOV SS"

static uint32_t addr(const char *p) { return (uint32_t)(uintptr_t)p; }

void guest_main(void)
{
	/* No device interrupt may arrive while IF = 1 below (QEMU's PIT/PIC). */
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
	trap_handlers[1] = db_handler;
	__asm__ volatile("mov %0, %%dr6" :: "r"(0u));

	/* STI with IF = 0: the shadow blocks interrupts, not the single-step trap. */
	steps = 0;
	__asm__ volatile("cli\n\tpushf\n\torl $0x100, (%%esp)\n\tpopf\n\t"
			 "sti\n"
			 ".globl sti_l2\nsti_l2:\tnop\n"
			 ".globl sti_l3\nsti_l3:\tcli\n\t"
			 "pushf\n\tandl $~0x100, (%%esp)\n\tpopf" ::: "memory", "cc");
	check_quirk("TF + STI (IF 0 -> 1): traps after STI, NOP, CLI, PUSHF, AND, POPF", steps, 6,
		    QEMU_STI_TF);
	check_quirk("  first trap EIP = after STI", step_eip[0], addr(sti_l2), QEMU_STI_TF);
	check("  its DR6.BS", step_dr6[0] & 0x4000, 0x4000);
	check_quirk("  second trap EIP = after the NOP", step_eip[1], addr(sti_l3), QEMU_STI_TF);

	/* STI with IF already 1 opens no shadow (SDM Vol.2 STI): it traps too. */
	steps = 0;
	__asm__ volatile("sti\n\tpushf\n\torl $0x100, (%%esp)\n\tpopf\n\t"
			 "sti\n"
			 ".globl sti1_l2\nsti1_l2:\tcli\n\t"
			 "pushf\n\tandl $~0x100, (%%esp)\n\tpopf" ::: "memory", "cc");
	check_quirk("TF + STI (IF already 1): first trap EIP = after STI", step_eip[0], addr(sti1_l2),
		    QEMU_STI_TF);

	/* MOV SS: no trap between it and the next instruction; the next trap
	 * follows the NOP. */
	steps = 0;
	__asm__ volatile("mov %%ss, %%eax\n\tpushf\n\torl $0x100, (%%esp)\n\tpopf\n\t"
			 "mov %%eax, %%ss\n"
			 ".globl movss_l2\nmovss_l2:\tnop\n"
			 ".globl movss_l3\nmovss_l3:\tpushf\n\t"
			 "andl $~0x100, (%%esp)\n\tpopf" ::: "eax", "memory", "cc");
	check("TF + MOV SS: first trap EIP = after the instruction after MOV SS", step_eip[0],
	      addr(movss_l3));
	check("  its DR6.BS", step_dr6[0] & 0x4000, 0x4000);
	check("  traps: NOP, PUSHF, AND, POPF", steps, 4);

	/* POP SS: the same shadow. */
	steps = 0;
	__asm__ volatile("push %%ss\n\tpushf\n\torl $0x100, (%%esp)\n\tpopf\n\t"
			 "pop %%ss\n"
			 ".globl popss_l2\npopss_l2:\tnop\n"
			 ".globl popss_l3\npopss_l3:\tpushf\n\t"
			 "andl $~0x100, (%%esp)\n\tpopf" ::: "memory", "cc");
	check("TF + POP SS: first trap EIP = after the instruction after POP SS", step_eip[0],
	      addr(popss_l3));
	check("  traps: NOP, PUSHF, AND, POPF", steps, 4);

	trap_handlers[1] = 0;
}
