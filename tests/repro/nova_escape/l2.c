/* L2, the Escape-like guest: runs each path's operation between two
 * hypercalls, so that the L1 can prepare the case and then report it. Runs at
 * CPL 0 in 32-bit protected mode with paging, every segment based at
 * 0x40000000 (nova_escape.h); the L1 intercepts its page faults. */
#include "nova_escape.h"

/* VMMCALL (APM2 15.11 "VMMCALL"): intercepted by the L1, which reads the
 * number from the VMCB's RAX and the argument from the saved EBX. */
static void hypercall(uint32_t number, uint32_t arg)
{
	__asm__ volatile(".byte 0x0f, 0x01, 0xd9" :: "a"(number), "b"(arg) : "memory");
}

void l2_main(void)
{
	for (uint32_t k = 0; k < nova_case_count; k++) {
		hypercall(HC_BEGIN, k);
		nova_cases[k].l2_op();
		hypercall(HC_END, k);
	}
	for (;;)
		hypercall(HC_DONE, 0);
}
