/* 64-bit pieces of the xsave64 guest (assembled into the 32-bit ELF with
 * .code64). The C code runs in compatibility mode and far-calls these routines
 * through the 64-bit code selector 0x40; each returns with a 32-bit LRET.
 * Exceptions go through a 64-bit IDT to x64_stub_N, which records the vector
 * and error code and resumes at x64_recover. Globals are reached RIP-relative
 * (see long64.S). */
	.text
	.code64

	.globl x64_stubs
x64_stubs:
	.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.balign 16
	.if \v == 8 || (\v >= 10 && \v <= 14) || \v == 17
	.else
	pushq $0
	.endif
	pushq $\v
	jmp x64_common
	.endr

x64_common:
	movq (%rsp), %rax
	movl %eax, x64_vec(%rip)
	movq 8(%rsp), %rax
	movl %eax, x64_err(%rip)
	movl x64_recover(%rip), %eax
	movq %rax, 16(%rsp)
	addq $16, %rsp
	iretq

/* XMM0-XMM15 := the 16 patterns at x64_in; then an x87 load with a RIP-relative
 * memory operand, so FIP/FDP/FOP describe an instruction of 64-bit mode. */
	.globl x64_load, x64_fld_insn
x64_load:
	movl %esp, %esp
	leaq x64_in(%rip), %rax
	.irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	movdqu \r*16(%rax), %xmm\r
	.endr
	fninit
	fldcw x64_cw(%rip)
	fld1
x64_fld_insn:
	fldl x64_one(%rip)
	lretl

/* x64_out := XMM0-XMM15. */
	.globl x64_store
x64_store:
	movl %esp, %esp
	leaq x64_out(%rip), %rax
	.irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	movdqu %xmm\r, \r*16(%rax)
	.endr
	lretl

/* One save/restore instruction on the area at x64_ptr with EDX:EAX =
 * 0:x64_rfbm; a fault resumes after it. */
.macro SAVEOP name, insn
	.globl \name
\name:
	movl %esp, %esp
	movl $1f, x64_recover(%rip)
	movl x64_ptr(%rip), %ecx
	movl x64_rfbm(%rip), %eax
	xorl %edx, %edx
	\insn (%rcx)
1:	lretl
.endm
	SAVEOP x64_fxsave64, fxsave64
	SAVEOP x64_fxsave, fxsave
	SAVEOP x64_fxrstor64, fxrstor64
	SAVEOP x64_fxrstor, fxrstor
	SAVEOP x64_xsave64, xsave64
	SAVEOP x64_xsave, xsave
	SAVEOP x64_xrstor64, xrstor64
	SAVEOP x64_xrstor, xrstor

/* REX.R/REX.B/REX.W on SSE instructions (SDM Vol.2 2.2.1): XMM8-15 operands
 * and 64-bit integer conversions. */
	.globl x64_sse
x64_sse:
	movl %esp, %esp
	movq $-7, %r9
	cvtsi2sdq %r9, %xmm10
	movq %xmm10, x64_q(%rip)
	cvttsd2si %xmm10, %r11
	movq %r11, x64_q+8(%rip)
	movabsq $0x7fffffffffffffff, %r9
	cvtsi2ssq %r9, %xmm9
	movd %xmm9, %eax
	movq %rax, x64_q+16(%rip)
	stmxcsr x64_q+24(%rip)
	cvtsi2ssl %r9d, %xmm9
	movd %xmm9, %eax
	movq %rax, x64_q+32(%rip)
	movupd x64_a(%rip), %xmm13
	movupd x64_a+16(%rip), %xmm14
	addpd %xmm13, %xmm14
	movupd %xmm14, x64_q+40(%rip)
	movsd x64_a+32(%rip), %xmm8
	cvttsd2si %xmm8, %r12
	movq %r12, x64_q+56(%rip)
	lretl

	.section .note.GNU-stack, "", @progbits
