/* VM entry for the 32-bit L1 hypervisors, the landing stub at HOST_RIP and
 * the recording L2 IDT stubs (see lib_vmx.h). */
	.text
	.code32

/* uint32_t vmx_enter(uint32_t resume)
 * SDM Vol.3 24.4, 24.5: VM entry loads only RSP, RIP and RFLAGS of the guest
 * and a VM exit only RSP and RIP of the host; the other L2 GPRs are exchanged
 * here through l2_regs. HOST_RSP is this frame's ESP, so the exit (or a
 * failed entry, 26.8) lands in vmx_exit_stub with the callee-saved
 * registers still pushed. A VMfail falls through VMLAUNCH/VMRESUME (30.3):
 * the six arithmetic flags are returned. */
	.globl vmx_enter, vmx_exit_stub
vmx_enter:
	push %ebp
	push %ebx
	push %esi
	push %edi
	mov $0x6c14, %eax          /* HOST_RSP */
	vmwrite %esp, %eax
	cmpl $0, 20(%esp)
	mov l2_regs + 0, %eax
	mov l2_regs + 4, %ebx
	mov l2_regs + 8, %ecx
	mov l2_regs + 12, %edx
	mov l2_regs + 16, %esi
	mov l2_regs + 20, %edi
	mov l2_regs + 24, %ebp
	jne 1f
	vmlaunch
	jmp 2f
1:	vmresume
2:	pushfl
	pop %eax
	and $0x8d5, %eax
	jmp 3f
vmx_exit_stub:
	mov %eax, l2_regs + 0
	mov %ebx, l2_regs + 4
	mov %ecx, l2_regs + 8
	mov %edx, l2_regs + 12
	mov %esi, l2_regs + 16
	mov %edi, l2_regs + 20
	mov %ebp, l2_regs + 24
	mov $0x80000000, %eax      /* VMX_EXITED */
3:	pop %edi
	pop %esi
	pop %ebx
	pop %ebp
	ret

/* The L2 IDT: one 32-byte stub per vector records what L2 took and leaves
 * through VMCALL, which exits unconditionally (25.1.2). */
	.balign 32
	.globl l2_stubs
l2_stubs:
	.set vec, 0
	.rept 256
	.balign 32
	movl $vec, l2_event_vector
	incl l2_event_count
	vmcall
	ud2
	.set vec, vec + 1
	.endr
	.section .note.GNU-stack,"",@progbits
