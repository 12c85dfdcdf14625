/* store_same_page: a loop that increments a counter kept in the 4 KiB page it
 * runs from (data beside code, as small kernels and L1 hypervisors keep it), 3
 * instructions per iteration, ITERATIONS times; then writes 0 to the
 * debug-exit port. The twin store_other_page keeps the counter on another
 * page: the two should run at nearly the same speed, since the store changes no
 * instruction (SDM Vol.3 11.6 asks only that a write to fetched code be seen). */
#include "mb_entry.h"
#define ITERATIONS 5000000

	.globl _start
_start:
	movl $ITERATIONS * SCALE, %ecx
1:	incl counter
	decl %ecx
	jnz 1b
	movb $0, %al
	outb %al, $DEBUG_EXIT_PORT
2:	hlt
	jmp 2b

	.balign 4                       /* in the cache line of the loop */
counter:
	.long 0
