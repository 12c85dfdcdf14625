/* 64-bit pieces of svm64 (see svm64.c): VMRUN executed in 64-bit mode, the
 * L2's 64-bit IDT stubs, and SVM instructions with 64-bit rAX values under
 * the recovery point of lib/long64.S. */
#include "lib/long64.h"

	.text
	.code64

/* svm_vmrun64 (far-called by CALL64): L2 GPRs from l2_regs (EBX..EBP) and
 * l2_regs64 (R8-R15) around CLGI; VMRUN svm64_vmcb_pa; STGI. RAX, RSP and
 * RIP are the VMCB's (APM2 15.5.1); the callee-saved registers of the
 * 32-bit caller and R12-R15 are preserved. */
ENTRY64 svm_vmrun64
	push %rbx
	push %rbp
	push %rsi
	push %rdi
	push %r12
	push %r13
	push %r14
	push %r15
	movl l2_regs + 0(%rip), %ebx
	movl l2_regs + 4(%rip), %ecx
	movl l2_regs + 8(%rip), %edx
	movl l2_regs + 12(%rip), %esi
	movl l2_regs + 16(%rip), %edi
	movl l2_regs + 20(%rip), %ebp
	movq l2_regs64 + 0(%rip), %r8
	movq l2_regs64 + 8(%rip), %r9
	movq l2_regs64 + 16(%rip), %r10
	movq l2_regs64 + 24(%rip), %r11
	movq l2_regs64 + 32(%rip), %r12
	movq l2_regs64 + 40(%rip), %r13
	movq l2_regs64 + 48(%rip), %r14
	movq l2_regs64 + 56(%rip), %r15
	movl svm64_vmcb_pa(%rip), %eax
	clgi
	vmrun %rax
	movl %ebx, l2_regs + 0(%rip)
	movl %ecx, l2_regs + 4(%rip)
	movl %edx, l2_regs + 8(%rip)
	movl %esi, l2_regs + 12(%rip)
	movl %edi, l2_regs + 16(%rip)
	movl %ebp, l2_regs + 20(%rip)
	movq %r8, l2_regs64 + 0(%rip)
	movq %r9, l2_regs64 + 8(%rip)
	movq %r10, l2_regs64 + 16(%rip)
	movq %r11, l2_regs64 + 24(%rip)
	movq %r12, l2_regs64 + 32(%rip)
	movq %r13, l2_regs64 + 40(%rip)
	movq %r14, l2_regs64 + 48(%rip)
	movq %r15, l2_regs64 + 56(%rip)
	stgi
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %rdi
	pop %rsi
	pop %rbp
	pop %rbx
	lretl

/* SVM instructions with the 64-bit rAX in svm64_rax; a fault resumes at 1
 * (lm_vec, lm_err record it). */
TRY64 x64_vmrun
	movq svm64_rax(%rip), %rax
	vmrun %rax
	stgi
1:	lretl
TRY64 x64_vmload
	movq svm64_rax(%rip), %rax
	vmload %rax
1:	lretl
/* VMLOAD with a 67h prefix: the address size is 32 bits, EAX is used. */
TRY64 x64_vmload_a32
	movq svm64_rax(%rip), %rax
	.byte 0x67, 0x0f, 0x01, 0xda
1:	lretl
TRY64 x64_vmsave
	movq svm64_rax(%rip), %rax
	vmsave %rax
1:	lretl

/* The L2's 64-bit IDT stubs: the same record as lib_svm_asm.S's l2_stubs. */
	.balign 32
	.globl l2_stubs64
l2_stubs64:
	.set vec, 0
	.rept 256
	.balign 32
	movl $vec, l2_event_vector(%rip)
	movl %esp, l2_event_esp(%rip)
	incl l2_event_count(%rip)
	vmmcall
	ud2
	.set vec, vec + 1
	.endr

	.section .note.GNU-stack,"",@progbits
