/* store_other_page: store_same_page with the counter on a page that holds no
 * code: the yardstick for store_same_page. The page is 2 MiB + 4 KiB, not 2 MiB,
 * whose TLB slot is the code page's (the TLB is direct-mapped by linear page
 * number, mmu/tlb.h): the two would evict each other at every access. */
#include "mb_entry.h"
#define ITERATIONS 5000000
#define COUNTER 0x201000

	.globl _start
_start:
	movl $ITERATIONS * SCALE, %ecx
1:	incl COUNTER
	decl %ecx
	jnz 1b
	movb $0, %al
	outb %al, $DEBUG_EXIT_PORT
2:	hlt
	jmp 2b
