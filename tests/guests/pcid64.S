/* 64-bit pieces of the pcid guest (assembled into the 32-bit ELF with .code64;
 * the C code runs in compatibility mode). Exceptions go through the 64-bit IDT
 * to lib/long64.S, which records them and resumes at lm_recover. */
#include "lib/long64.h"

	.text
	.code64

/* MOV to CR3 with a 64-bit source (bit 63 is the PCID "no invalidation" bit,
 * SDM Vol.3 4.10.4.1): EDX:EAX in, the CR3 read back afterwards out. Far-called
 * from compatibility mode; upper register halves are undefined there, so the
 * value is rebuilt from the two 32-bit halves. */
	ENTRY64 pc_mov_cr3
	movl %eax, %eax
	shlq $32, %rdx
	orq %rdx, %rax
	movl $1f, lm_recover(%rip)
	movq %rax, %cr3
1:	movq %cr3, %rax
	movq %rax, %rdx
	shrq $32, %rdx
	lretl

/* INVPCID with a 64-bit type register (SDM Vol.2 INVPCID: in 64-bit mode the
 * register has 64 bits): type EDX:EAX, descriptor at ECX. */
	ENTRY64 pc_invpcid64
	movl %eax, %eax
	shlq $32, %rdx
	orq %rdx, %rax
	movl %ecx, %ecx
	movl $1f, lm_recover(%rip)
	invpcid (%rcx), %rax
1:	lretl

	.section .note.GNU-stack, "", @progbits
