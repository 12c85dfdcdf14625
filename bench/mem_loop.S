/* mem_loop: load/add/store over a 1 MiB buffer at 2 MiB, dword by dword, PASSES
 * times (6 instructions per dword); then writes 0 to the debug-exit port. */
#include "mb_entry.h"
#define BUFFER 0x200000
#define DWORDS (1024 * 1024 / 4)
#define PASSES 64

	.globl _start
_start:
	movl $PASSES * SCALE, %ebp
2:	movl $BUFFER, %esi
	movl $DWORDS, %ecx
1:	movl (%esi), %eax
	addl %ecx, %eax
	movl %eax, (%esi)
	addl $4, %esi
	decl %ecx
	jnz 1b
	decl %ebp
	jnz 2b
	movb $0, %al
	outb %al, $DEBUG_EXIT_PORT
3:	hlt
	jmp 3b
