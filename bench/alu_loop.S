/* alu_loop: a register-only ALU loop (ADD/SUB/XOR/SHL/DEC/JNZ), 7 instructions
 * per iteration, ITERATIONS times; then writes 0 to the debug-exit port. */
#include "mb_entry.h"
#define ITERATIONS 20000000

	.globl _start
_start:
	movl $ITERATIONS * SCALE, %ecx
	xorl %eax, %eax
	movl $1, %ebx
	movl $3, %edx
1:	addl %ebx, %eax
	subl %edx, %ebx
	xorl %eax, %edx
	shll $1, %ebx
	addl %ecx, %ebx
	decl %ecx
	jnz 1b
	movb $0, %al
	outb %al, $DEBUG_EXIT_PORT
2:	hlt
	jmp 2b
