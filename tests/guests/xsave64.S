/* 64-bit pieces of the xsave64 guest (assembled into the 32-bit ELF with
 * .code64). The C code runs in compatibility mode and far-calls these routines
 * through LM_CS64; each returns with a 32-bit LRET. Exceptions go through the
 * 64-bit IDT to lib/long64.S, which records them and resumes at lm_recover. */
#include "lib/long64.h"

	.text
	.code64

/* XMM0-XMM15 := the 16 patterns at x64_in; then an x87 load with a RIP-relative
 * memory operand, so FIP/FDP/FOP describe an instruction of 64-bit mode. */
	.globl x64_fld_insn
	ENTRY64 x64_load
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
	ENTRY64 x64_store
	leaq x64_out(%rip), %rax
	.irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	movdqu %xmm\r, \r*16(%rax)
	.endr
	lretl

/* One save/restore instruction on the area at x64_ptr with EDX:EAX =
 * 0:x64_rfbm; a fault resumes after it. */
.macro SAVEOP name, insn
	TRY64 \name
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
	ENTRY64 x64_sse
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
