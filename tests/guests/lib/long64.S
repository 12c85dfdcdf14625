/* 64-bit IDT stubs shared by the IA-32e guests (see long.h). lm_idt64 points
 * vectors 0-31 here; each stub records the exception and resumes at
 * lm_recover, or at lm_unexpected (32-bit code) when no recovery point is
 * armed (SDM Vol.3 6.14: 16-byte gates; the frame is SS, RSP, RFLAGS, CS, RIP
 * and maybe an error code, all quadwords; IRETQ pops SS:RSP unconditionally). */
#include "long64.h"

	.text
	.code64

/* One 16-byte stub per vector; the CPU pushes an error code for 8, 10-14 and
 * 17 (SDM Vol.3 6.13, Table 6-1), the others push a 0 in its place. */
	.globl lm_stubs
lm_stubs:
	.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.balign 16
	.if \v == 8 || (\v >= 10 && \v <= 14) || \v == 17
	.else
	pushq $0
	.endif
	pushq $\v
	jmp lm_common
	.endr

lm_common:
	movq %rsp, lm_hrsp(%rip)
	movq (%rsp), %rax
	movq %rax, lm_vec(%rip)
	movq 8(%rsp), %rax
	movq %rax, lm_err(%rip)
	movq 16(%rsp), %rax
	movq %rax, lm_rip(%rip)
	movq 24(%rsp), %rax
	movq %rax, lm_cs(%rip)
	movq 40(%rsp), %rax
	movq %rax, lm_rsp(%rip)
	movq %cr2, %rax
	movq %rax, lm_cr2(%rip)
	movl lm_recover(%rip), %eax
	testl %eax, %eax
	jnz 1f
	/* No recovery point armed: lm_unexpected is 32-bit code, so return to it
	 * through the flat 32-bit CS 08H (compatibility mode) and data SS 10H at
	 * CPL 0, whatever the frame held (lib/guest.h SEL_KCODE, SEL_KDATA). */
	movl $lm_unexpected, %eax
	movq $0x08, 24(%rsp)
	movq $0x10, 48(%rsp)
1:	movl $0, lm_recover(%rip)        /* one fault per armed point */
	movq %rax, 16(%rsp)
	addq $16, %rsp
	iretq

	.section .note.GNU-stack, "", @progbits
