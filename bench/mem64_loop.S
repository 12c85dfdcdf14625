/* mem64_loop: mem_loop in 64-bit mode: load/add/store over a 1 MiB buffer at
 * 2 MiB, qword by qword, PASSES times (6 instructions per qword); then writes 0
 * to the debug-exit port. */
#include "lm_entry.h"
#define BUFFER 0x200000
#define QWORDS (1024 * 1024 / 8)
#define PASSES 128

main64:
	movl $PASSES * SCALE, %ebp
2:	movl $BUFFER, %esi
	movl $QWORDS, %ecx
1:	movq (%rsi), %rax
	addq %rcx, %rax
	movq %rax, (%rsi)
	addq $8, %rsi
	decl %ecx
	jnz 1b
	decl %ebp
	jnz 2b
	movb $0, %al
	outb %al, $DEBUG_EXIT_PORT
3:	hlt
	jmp 3b
