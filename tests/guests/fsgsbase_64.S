/* 64-bit pieces of the fsgsbase guest (with long64.S for the 64-bit IDT stubs
 * and lm_recover). Each routine is far-called through LM_CS64 from
 * compatibility mode and returns with LRETL; operands in fg_in, results in
 * fg_out/fg_out2. A fault resumes at the routine's label 1 (lm_vec records it).
 * Only RAX, RCX, RDX and R8-R15 may change: the 32-bit C caller keeps the rest. */

	.text
	.code64

/* RDFSBASE: fg_out := FS.base (64-bit form), fg_out2 := RAX after the 32-bit form. */
	.globl fg_rdfs
fg_rdfs:
	movl %esp, %esp
	movl $1f, lm_recover(%rip)
	rdfsbase %rax
	movq %rax, fg_out(%rip)
	movq $-1, %rax
	rdfsbase %eax
	movq %rax, fg_out2(%rip)
1:	lretl

	.globl fg_rdgs
fg_rdgs:
	movl %esp, %esp
	movl $1f, lm_recover(%rip)
	rdgsbase %rcx
	movq %rcx, fg_out(%rip)
1:	lretl

/* WRFSBASE fg_in (64-bit form), then fg_out := 8 bytes at FS:0. */
	.globl fg_wrfs
fg_wrfs:
	movl %esp, %esp
	movl $1f, lm_recover(%rip)
	movq fg_in(%rip), %r9
	wrfsbase %r9
	movq %fs:0, %rax
	movq %rax, fg_out(%rip)
1:	lretl

/* WRFSBASE with a 32-bit operand: fg_in with bits 63:32 as they are. */
	.globl fg_wrfs32
fg_wrfs32:
	movl %esp, %esp
	movl $1f, lm_recover(%rip)
	movq fg_in(%rip), %rax
	wrfsbase %eax
1:	lretl

	.globl fg_wrgs
fg_wrgs:
	movl %esp, %esp
	movl $1f, lm_recover(%rip)
	movq fg_in(%rip), %r10
	wrgsbase %r10
1:	lretl

/* SWAPGS, then RDGSBASE into fg_out; SWAPGS back. */
	.globl fg_swapgs_rd
fg_swapgs_rd:
	movl %esp, %esp
	swapgs
	rdgsbase %rax
	movq %rax, fg_out(%rip)
	swapgs
	lretl

/* MOV FS in 64-bit mode loads the base from the descriptor (SDM Vol.3 3.4.4). */
	.globl fg_movfs
fg_movfs:
	movl %esp, %esp
	movl $0x10, %eax
	movl %eax, %fs
	rdfsbase %rax
	movq %rax, fg_out(%rip)
	lretl

	.section .note.GNU-stack, "", @progbits
