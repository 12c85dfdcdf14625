/* alu64_loop: alu_loop in 64-bit mode with REX-prefixed 64-bit and extended
 * registers (ADD/SUB/XOR/SHL/DEC/JNZ), 7 instructions per iteration,
 * ITERATIONS times; then writes 0 to the debug-exit port. */
#include "lm_entry.h"
#define ITERATIONS 20000000

main64:
	movl $ITERATIONS * SCALE, %ecx
	xorq %rax, %rax
	movq $1, %r8
	movq $3, %r9
1:	addq %r8, %rax
	subq %r9, %r8
	xorq %rax, %r9
	shlq $1, %r8
	addq %rcx, %r8
	decq %rcx
	jnz 1b
	movb $0, %al
	outb %al, $DEBUG_EXIT_PORT
2:	hlt
	jmp 2b
