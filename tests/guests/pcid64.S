/* 64-bit pieces of the pcid guest (assembled into the 32-bit ELF with .code64;
 * the C code runs in compatibility mode). Exceptions go through a 64-bit IDT to
 * pc_stubs, which record the vector and error code and resume at pc_recover,
 * or at pc_unexpected when no recovery point is armed (SDM Vol.3 6.14: 16-byte
 * gates; IRETQ pops SS:RSP). Globals are reached
 * RIP-relative, as in long64.S. */

	.text
	.code64

/* Interrupt stubs: vectors 0-31; the CPU pushes an error code for 8, 10-14, 17. */
	.globl pc_stubs
pc_stubs:
	.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.balign 16
	.if \v == 8 || (\v >= 10 && \v <= 14) || \v == 17
	.else
	pushq $0
	.endif
	pushq $\v
	jmp pc_common
	.endr

pc_common:
	movq (%rsp), %rax
	movl %eax, pc_vec(%rip)
	movq 8(%rsp), %rax
	movl %eax, pc_err(%rip)
	movl pc_recover(%rip), %eax
	testl %eax, %eax
	jnz 1f
	movl $pc_unexpected, %eax        /* no recovery point armed */
1:	movl $0, pc_recover(%rip)        /* one fault per armed point */
	movq %rax, 16(%rsp)
	addq $16, %rsp
	iretq

/* MOV to CR3 with a 64-bit source (bit 63 is the PCID "no invalidation" bit,
 * SDM Vol.3 4.10.4.1): EDX:EAX in, the CR3 read back afterwards out. Far-called
 * from compatibility mode; upper register halves are undefined there, so the
 * value is rebuilt from the two 32-bit halves. */
	.globl pc_mov_cr3
pc_mov_cr3:
	movl %esp, %esp
	movl %eax, %eax
	shlq $32, %rdx
	orq %rdx, %rax
	movl $1f, pc_recover(%rip)
	movq %rax, %cr3
1:	movq %cr3, %rax
	movq %rax, %rdx
	shrq $32, %rdx
	lretl

/* INVPCID with a 64-bit type register (SDM Vol.2 INVPCID: in 64-bit mode the
 * register has 64 bits): type EDX:EAX, descriptor at ECX. */
	.globl pc_invpcid64
pc_invpcid64:
	movl %esp, %esp
	movl %eax, %eax
	shlq $32, %rdx
	orq %rdx, %rax
	movl %ecx, %ecx
	movl $1f, pc_recover(%rip)
	invpcid (%rcx), %rax
1:	lretl

	.section .note.GNU-stack, "", @progbits
