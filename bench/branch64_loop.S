/* branch64_loop: the block changes of kernel code in 64-bit mode -- a CALL
 * and its RET, a data-dependent branch (bit 4 of a linear congruential
 * sequence: taken about half the time, unpredictably) and a loop branch --
 * about 9.5 instructions and five block changes per iteration, ITERATIONS
 * times; then writes 0 to the debug-exit port. What it measures is the cost
 * of going from one block to the next, which the ALU and memory loops (one
 * block each) never pay. */
#include "lm_entry.h"
#define ITERATIONS 10000000

main64:
	movq $0x300000, %rsp
	movl $ITERATIONS * SCALE, %ecx
	xorl %eax, %eax
	movq $0x12345, %rdx
1:	call mix
	leaq 1(%rdx,%rdx,4), %rdx
	testb $0x10, %dl
	jz 2f
	addq $3, %rax
	jmp 3f
2:	subq $1, %rax
3:	decl %ecx
	jnz 1b
	movb $0, %al
	outb %al, $DEBUG_EXIT_PORT
4:	hlt
	jmp 4b

mix:	xorq %rdx, %rax
	ret
