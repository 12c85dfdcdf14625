/* Dropping to ring 3 and coming back: IRET to CPL3 (SDM Vol.3 6.14 / IRET
 * pseudocode), return through INT 0x7f (a DPL3 interrupt gate). */
#include "guest.h"

static uint8_t user_stack[8192] __attribute__((aligned(16)));
trap_fn user_fn;
void *user_arg;
static uint32_t user_eflags;
extern trap_fn user_fn;
extern void *user_arg;

void user_entry(void);
__asm__(".text\n.globl user_entry\nuser_entry:\n\t"
	"mov $0x23, %ax\n\tmov %ax, %ds\n\tmov %ax, %es\n\t"
	"pushl user_arg\n\tcall *user_fn\n\t"
	"int $0x7f\n\t"
	"ud2\n");

static void enter_user(void *unused)
{
	(void)unused;
	uint32_t top = (uint32_t)(uintptr_t)(user_stack + sizeof(user_stack));
	__asm__ volatile("pushl $0x23\n\t"
			 "pushl %0\n\t"
			 "pushl %1\n\t"
			 "pushl $0x1b\n\t"
			 "pushl $user_entry\n\t"
			 "iret" :: "r"(top), "r"(0x2 | user_eflags) : "memory");
}

int run_user(trap_fn fn, void *arg, uint32_t eflags)
{
	user_fn = fn;
	user_arg = arg;
	user_eflags = eflags;
	int v = trap_catch(enter_user, 0);
	return v == VEC_USER_RETURN ? NO_FAULT : v;
}

int run_user_catch(const char *name, trap_fn fn, void *arg, uint32_t eflags, int vector, int error)
{
	trap_reset();
	int got = run_user(fn, arg, eflags);
	if (got == vector && error >= 0 && trap_last.error != (uint32_t)error) {
		gprintf("# %s: vector ok, error code wrong\n", name);
		check(name, trap_last.error, (uint32_t)error);
	} else if (got == vector && vector != NO_FAULT && trap_mark_ip && trap_last.eip != trap_mark_ip) {
		gprintf("# %s: vector ok, faulting EIP wrong\n", name);
		check(name, trap_last.eip, trap_mark_ip);
	} else {
		check(name, (uint32_t)got, (uint32_t)vector);
	}
	return got;
}
