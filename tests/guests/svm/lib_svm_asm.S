/* VMRUN for the 32-bit L1 hypervisors and the recording L2 IDT stubs (see
 * lib_svm.h). */
	.text
	.code32

/* void svm_vmrun(uint32_t vmcb_pa) / svm_vmrun_raw(uint32_t vmcb_pa)
 * APM2 15.5.1: VMRUN switches only RAX, RSP, RIP, RFLAGS, the segment, control
 * and descriptor-table registers; the other L2 GPRs live in l2_regs and are
 * exchanged here. #VMEXIT resumes after VMRUN with the host's ESP and EAX,
 * GIF = 0 (APM2 15.6); svm_vmrun brackets VMRUN with CLGI/STGI as a VMM does. */
	.globl svm_vmrun, svm_vmrun_raw
svm_vmrun:
	movl $1, vmrun_gif
	jmp 1f
svm_vmrun_raw:
	movl $0, vmrun_gif
1:	push %ebp
	push %ebx
	push %esi
	push %edi
	mov l2_regs + 0, %ebx
	mov l2_regs + 4, %ecx
	mov l2_regs + 8, %edx
	mov l2_regs + 12, %esi
	mov l2_regs + 16, %edi
	mov l2_regs + 20, %ebp
	mov 20(%esp), %eax
	cmpl $0, vmrun_gif
	je 2f
	clgi
2:	vmrun
	mov %ebx, l2_regs + 0
	mov %ecx, l2_regs + 4
	mov %edx, l2_regs + 8
	mov %esi, l2_regs + 12
	mov %edi, l2_regs + 16
	mov %ebp, l2_regs + 20
	cmpl $0, vmrun_gif
	je 3f
	stgi
3:	pop %edi
	pop %esi
	pop %ebx
	pop %ebp
	ret

/* The L2 IDT: one 32-byte stub per vector records what L2 took and leaves
 * through VMMCALL (intercepted by every VMCB), so L1 sees #VMEXIT(VMMCALL). */
	.balign 32
	.globl l2_stubs
l2_stubs:
	.set vec, 0
	.rept 256
	.balign 32
	movl $vec, l2_event_vector
	movl %esp, l2_event_esp
	incl l2_event_count
	vmmcall
	ud2
	.set vec, vec + 1
	.endr

	.data
vmrun_gif:	.long 1
	.section .note.GNU-stack,"",@progbits
