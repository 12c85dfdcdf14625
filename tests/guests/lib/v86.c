/* Virtual-8086 runs for the v86_* guests (see v86.h). */
#include "v86.h"

static uint32_t v86_eflags;
volatile uint32_t v86_gp_eax;

int v86_gp_record(struct trap_frame *f)
{
	v86_gp_eax = f->eax;
	return 0;
}

static void enter_v86(void *p)
{
	(void)p;
	/* SDM Vol.2 IRET RETURN-TO-VIRTUAL-8086-MODE: EIP, CS, EFLAGS, ESP, SS,
	 * ES, DS, FS, GS. */
	__asm__ volatile("pushl $0\n\tpushl $0\n\tpushl %1\n\tpushl %1\n\t"
			 "pushl %2\n\tpushl %3\n\tpushl %0\n\tpushl %4\n\tpushl $0\n\tiret"
			 :: "r"(v86_eflags | EFL_VM | 2u), "r"(V86_SS), "r"(V86_SS), "r"(V86_SP),
			    "r"(V86_CS) : "memory");
}

int v86_run(const uint8_t *code, uint32_t n, uint32_t eflags)
{
	gmemcpy((void *)(uintptr_t)(V86_CS << 4), code, n);
	v86_eflags = eflags;
	trap_reset();
	return trap_catch(enter_v86, 0);
}
