/* 64-bit pieces of the fsgsbase guest (with lib/long64.S for the 64-bit IDT stubs
 * and lm_recover). Each routine is far-called through LM_CS64 from
 * compatibility mode and returns with LRETL; operands in fg_in, results in
 * fg_out/fg_out2. A fault resumes at the routine's label 1 (lm_vec records it).
 * Only RAX, RCX, RDX and R8-R15 may change: the 32-bit C caller keeps the rest. */

#include "lib/long64.h"

	.text
	.code64

/* RDFSBASE: fg_out := FS.base (64-bit form), fg_out2 := RAX after the 32-bit form. */
	TRY64 fg_rdfs
	rdfsbase %rax
	movq %rax, fg_out(%rip)
	movq $-1, %rax
	rdfsbase %eax
	movq %rax, fg_out2(%rip)
1:	lretl

	TRY64 fg_rdgs
	rdgsbase %rcx
	movq %rcx, fg_out(%rip)
1:	lretl

/* WRFSBASE fg_in (64-bit form), then fg_out := 8 bytes at FS:0. */
	TRY64 fg_wrfs
	movq fg_in(%rip), %r9
	wrfsbase %r9
	movq %fs:0, %rax
	movq %rax, fg_out(%rip)
1:	lretl

/* WRFSBASE with a 32-bit operand: fg_in with bits 63:32 as they are. */
	TRY64 fg_wrfs32
	movq fg_in(%rip), %rax
	wrfsbase %eax
1:	lretl

	TRY64 fg_wrgs
	movq fg_in(%rip), %r10
	wrgsbase %r10
1:	lretl

/* SWAPGS, then RDGSBASE into fg_out; SWAPGS back. */
	ENTRY64 fg_swapgs_rd
	swapgs
	rdgsbase %rax
	movq %rax, fg_out(%rip)
	swapgs
	lretl

/* MOV FS in 64-bit mode loads the base from the descriptor (SDM Vol.3 3.4.4). */
	ENTRY64 fg_movfs
	movl $0x10, %eax
	movl %eax, %fs
	rdfsbase %rax
	movq %rax, fg_out(%rip)
	lretl

	.section .note.GNU-stack, "", @progbits
