/* The L1s' world switch: VMRUN does not save or load the general registers
 * other than RAX and RSP (APM2 15.5.1), nor FS, GS, TR, LDTR and the syscall
 * MSRs, which VMLOAD and VMSAVE move (APM2 15.5.2). So each switch keeps L1's
 * callee-saved registers on its stack, loads L2's from l2_gpr, and moves the
 * VMLOAD state of L2 in and of L1 back:
 *
 *   CLGI; VMLOAD l2; VMRUN l2; VMSAVE l2; VMLOAD l1; STGI
 *
 * l1_world_switch32 runs in legacy protected mode; l1_world_switch64 runs in
 * 64-bit mode (far-called from compatibility mode, lib/long.h CALL64), so the
 * 64-bit L1 executes VMRUN with a 64-bit RAX. */
#include "lib/long64.h"

	.text
	.code32
	.globl l1_world_switch32
l1_world_switch32:
	pushl %ebx
	pushl %esi
	pushl %edi
	pushl %ebp
	movl l2_gpr + 0, %ebx
	movl l2_gpr + 4, %ecx
	movl l2_gpr + 8, %edx
	movl l2_gpr + 12, %esi
	movl l2_gpr + 16, %edi
	movl l2_gpr + 20, %ebp
	movl l1_vmcb_pa, %eax
	clgi
	vmload %eax
	vmrun %eax
	vmsave %eax
	movl %ebx, l2_gpr + 0
	movl %ecx, l2_gpr + 4
	movl %edx, l2_gpr + 8
	movl %esi, l2_gpr + 12
	movl %edi, l2_gpr + 16
	movl %ebp, l2_gpr + 20
	movl l1_host_state_pa, %eax
	vmload %eax
	stgi
	popl %ebp
	popl %edi
	popl %esi
	popl %ebx
	ret

	.code64
	ENTRY64 l1_world_switch64
	pushq %rbx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	movl l2_gpr + 0(%rip), %ebx
	movl l2_gpr + 4(%rip), %ecx
	movl l2_gpr + 8(%rip), %edx
	movl l2_gpr + 12(%rip), %esi
	movl l2_gpr + 16(%rip), %edi
	movl l2_gpr + 20(%rip), %ebp
	movl l1_vmcb_pa(%rip), %eax
	clgi
	vmload %rax
	vmrun %rax
	vmsave %rax
	movl %ebx, l2_gpr + 0(%rip)
	movl %ecx, l2_gpr + 4(%rip)
	movl %edx, l2_gpr + 8(%rip)
	movl %esi, l2_gpr + 12(%rip)
	movl %edi, l2_gpr + 16(%rip)
	movl %ebp, l2_gpr + 20(%rip)
	movl l1_host_state_pa(%rip), %eax
	vmload %rax
	stgi
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rbx
	lretl

	.section .note.GNU-stack, "", @progbits
