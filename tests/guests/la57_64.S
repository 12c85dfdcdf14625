/* 64-bit pieces of the la57 guest (with lib/long64.S for the 64-bit IDT stubs
 * and lm_recover). Each routine is far-called through LM_CS64 from compatibility
 * mode and returns with LRETL; the address to use is in l5_addr, data in and
 * out through l5_val. A fault resumes at the routine's label 1. */

#include "lib/long64.h"

	.text
	.code64

/* l5_val := 8 bytes at l5_addr. */
	TRY64 l5_load
	movq l5_addr(%rip), %rax
	movq (%rax), %rax
	movq %rax, l5_val(%rip)
1:	lretl

/* 8 bytes at l5_addr := l5_val. */
	TRY64 l5_store
	movq l5_addr(%rip), %rax
	movq l5_val(%rip), %rcx
	movq %rcx, (%rax)
1:	lretl

/* The same load through RBP, so SS is the segment (#SS rather than #GP). */
	ENTRY64 l5_load_ss
	pushq %rbp
	movl $1f, lm_recover(%rip)
	movq l5_addr(%rip), %rbp
	movq (%rbp), %rax
	movq %rax, l5_val(%rip)
1:	popq %rbp
	lretl

/* l5_val := 8 bytes at FS:0 (FS.base from WRMSR or WRFSBASE). */
	TRY64 l5_load_fs
	movq %fs:0, %rax
	movq %rax, l5_val(%rip)
1:	lretl

/* JMP to l5_addr, an alias of l5_where: that code stores the address it runs
 * at (RIP-relative, so through the same alias) in l5_val and jumps back
 * through RCX. */
	.globl l5_jmp_insn, l5_where
	TRY64 l5_jmp
	movl $1f, %ecx
	movq l5_addr(%rip), %rax
l5_jmp_insn:
	jmp *%rax
1:	lretl
l5_where:
	leaq l5_where(%rip), %rax
	movq %rax, l5_val(%rip)
	jmp *%rcx

/* INT3 with RSP = l5_addr: the handler's frame goes onto that stack (same
 * privilege level, no IST: SDM Vol.3 6.14.2). */
	ENTRY64 l5_int3_on
	movq %rsp, l5_saved_rsp(%rip)
	movl $1f, lm_recover(%rip)
	movq l5_addr(%rip), %rsp
	int3
1:	movq l5_saved_rsp(%rip), %rsp
	lretl

/* PUSH with RSP = l5_addr (#SS(0) when non-canonical, delivered on IST1). */
	ENTRY64 l5_push_on
	movq %rsp, l5_saved_rsp(%rip)
	movl $1f, lm_recover(%rip)
	movq l5_addr(%rip), %rsp
	pushq %rax
1:	movq l5_saved_rsp(%rip), %rsp
	lretl

/* MOV CR4 toggling LA57 in 64-bit mode: #GP(0) (SDM Vol.2 MOV CR). */
	TRY64 l5_toggle_la57
	movq %cr4, %rax
	btcq $12, %rax
	movq %rax, %cr4
1:	lretl

/* INVLPG l5_addr. */
	ENTRY64 l5_invlpg
	movq l5_addr(%rip), %rax
	invlpg (%rax)
	lretl

	.section .note.GNU-stack, "", @progbits
