/* 64-bit pieces of the callgate64 guest (with lib/long64.S for the 64-bit
 * IDT stubs and lm_recover). Far-called through KCS64 from compatibility mode,
 * returning with LRETL. Only RAX, RCX, RDX and R8-R15 may change: the 32-bit C
 * caller keeps the rest. Selectors are the guest's GDT (callgate64.c). */
#include "lib/long64.h"

#define KDATA    0x10
#define UCS64    0x50
#define UDS      0x58

	.text
	.code64

/* CALL FAR through the m16:32 pointer cg_ptr at CPL 0 (faults resume at 1,
 * with RSP as before the CALL whether or not the fault came before the pushes). */
	.globl cg_call_insn
	ENTRY64 cg_call
	movq %rsp, cg_rsp_before(%rip)
	movl $1f, lm_recover(%rip)
cg_call_insn:
	lcall *cg_ptr(%rip)
1:	movq cg_rsp_before(%rip), %rsp
	lretl

/* JMP FAR through cg_ptr; the target (cg_k_jmp_target) comes back to 1. */
	TRY64 cg_jmp
	movl $1f, %ecx
	ljmp *cg_ptr(%rip)
1:	lretl

/* Target of a same-level CALL at CPL 0: CS, RSP and the two pushed quadwords. */
	.globl cg_k_target
cg_k_target:
	movq %rsp, cg_k_rsp(%rip)
	movl %cs, %eax
	movq %rax, cg_k_cs(%rip)
	movq (%rsp), %rax
	movq %rax, cg_f0(%rip)
	movq 8(%rsp), %rax
	movq %rax, cg_f1(%rip)
	lretq

/* Target of a JMP through a gate: records CS, returns through RCX. */
	.globl cg_k_jmp_target
cg_k_jmp_target:
	movl %cs, %eax
	movq %rax, cg_k_cs(%rip)
	jmp *%rcx

/* Target of the CPL 3 -> 0 CALL: CS, SS, RSP and the four pushed quadwords
 * (RIP, CS, RSP, SS of the caller), then RETF (64-bit) to CPL 3. */
	.globl cg_target
cg_target:
	movq %rsp, cg_k_rsp(%rip)
	movl %cs, %eax
	movq %rax, cg_k_cs(%rip)
	movl %ss, %eax
	movq %rax, cg_k_ss(%rip)
	movq (%rsp), %rax
	movq %rax, cg_f0(%rip)
	movq 8(%rsp), %rax
	movq %rax, cg_f1(%rip)
	movq 16(%rsp), %rax
	movq %rax, cg_f2(%rip)
	movq 24(%rsp), %rax
	movq %rax, cg_f3(%rip)
	lretq

/* IRETQ to 64-bit CPL 3 code at cg_user64 on cg_user_rsp. */
	.globl cg_user_ret, cg_user_gp
	ENTRY64 cg_user
	movq %rsp, cg_saved_rsp(%rip)
	pushq $(UDS | 3)
	pushq cg_user_rsp(%rip)
	pushq $2
	pushq $(UCS64 | 3)
	movl $cg_user64, %eax
	pushq %rax
	iretq
cg_user64:
	lcall *cg_ptr_up(%rip)          /* -> cg_target at CPL 0, back by RETF */
cg_user_ret:
	movl %cs, %eax
	movq %rax, cg_u_cs(%rip)
	movl %ss, %eax
	movq %rax, cg_u_ss(%rip)
	movq %rsp, cg_u_rsp(%rip)
	movl $2f, lm_recover(%rip)
cg_user_gp:
	lcall *cg_ptr_k(%rip)           /* a DPL 0 gate from CPL 3: #GP(gate) */
2:	lcall *cg_ptr_back(%rip)        /* -> cg_back at CPL 0 */

/* Back at CPL 0 with a null SS and DS/ES nulled by the RETF to CPL 3: reload
 * them for compatibility mode and return to the C caller of cg_user. */
	.globl cg_back
cg_back:
	movl $KDATA, %eax
	movl %eax, %ss
	movl %eax, %ds
	movl %eax, %es
	movq cg_saved_rsp(%rip), %rsp
	lretl

	.section .note.GNU-stack, "", @progbits
