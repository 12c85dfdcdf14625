/* Single-step (EFLAGS.TF) debug traps: which instruction boundaries trap and
 * what the #DB frame and DR6 hold (SDM Vol.3 17.3.1.4 "Single-Step Exception
 * Condition", 6.9 Table 6-2 priority 4; SDM Vol.2 INT n, POPF). */
#include "lib/guest.h"

#define MAX_STEPS 16
static volatile uint32_t step_eip[MAX_STEPS], step_dr6[MAX_STEPS], steps;
static volatile uint32_t int_runs, int_eflags;

/* #DB: record the trap and go on with TF as it is in the frame. */
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

/* INT 0x41: a handler that just counts (its gate clears TF). */
static int int41_handler(struct trap_frame *f)
{
	int_runs++;
	int_eflags = f->eflags;
	return 1;
}

extern char tf_l1[], tf_l2[], tf_l3[], tf_l4[], tf_l5[];
extern char int_l1[], int_l2[], int_l3[];

void guest_main(void)
{
	trap_handlers[1] = db_handler;
	trap_handlers[0x41] = int41_handler;
	__asm__ volatile("mov %0, %%dr6" :: "r"(0u));

	/* POPF sets TF: the first trap follows the instruction after POPF; the
	 * POPF that clears TF still traps (TF was set when it started). */
	steps = 0;
	__asm__ volatile("pushf\n\torl $0x100, (%%esp)\n\tpopf\n"
			 ".globl tf_l1\ntf_l1:\tnop\n"
			 ".globl tf_l2\ntf_l2:\tnop\n"
			 ".globl tf_l3\ntf_l3:\tpushf\n"
			 ".globl tf_l4\ntf_l4:\tandl $~0x100, (%%esp)\n\tpopf\n"
			 ".globl tf_l5\ntf_l5:\tnop" ::: "memory", "cc");
	check("single-step traps: NOP, NOP, PUSHF, AND, POPF", steps, 5);
	check("  1st trap EIP = after the first NOP", step_eip[0], (uint32_t)(uintptr_t)tf_l2);
	check("  2nd trap EIP = after the second NOP", step_eip[1], (uint32_t)(uintptr_t)tf_l3);
	check("  3rd trap EIP = after PUSHF", step_eip[2], (uint32_t)(uintptr_t)tf_l4);
	check("  last trap EIP = after the POPF that cleared TF", step_eip[4],
	      (uint32_t)(uintptr_t)tf_l5);
	check("  DR6.BS set", step_dr6[0] & 0x4000, 0x4000);
	check("  DR6.B0-B3 clear", step_dr6[0] & 0xf, 0);

	/* TF and INT n: no trap after INT n (its delivery clears TF) nor inside
	 * the handler; the IRET restores TF, and the next instruction traps. */
	steps = 0;
	int_runs = 0;
	__asm__ volatile("pushf\n\torl $0x100, (%%esp)\n\tpopf\n"
			 ".globl int_l1\nint_l1:\tint $0x41\n"
			 ".globl int_l2\nint_l2:\tnop\n"
			 ".globl int_l3\nint_l3:\tpushf\n\tandl $~0x100, (%%esp)\n\tpopf" ::: "memory", "cc");
	check("INT 0x41 handler ran", int_runs, 1);
	check("  pushed EFLAGS has TF", int_eflags & 0x100, 0x100);
	check("  first trap EIP = after the NOP after INT (none for INT itself)", step_eip[0],
	      (uint32_t)(uintptr_t)int_l3);
	check("  traps: NOP, PUSHF, AND, POPF", steps, 4);

	trap_handlers[1] = 0;
	trap_handlers[0x41] = 0;
}
