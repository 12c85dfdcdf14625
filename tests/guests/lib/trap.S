/* Exception harness: one 16-byte recording stub per vector, a common entry
 * that builds struct trap_frame, and the catch/unwind pair. */
	.text
	.balign 16
	.globl trap_stubs
trap_stubs:
	.set vec, 0
	.rept 256
	.balign 16
	/* SDM Vol.3 6.13 Table 6-1: vectors that push an error code. */
	.if (vec == 8) || (vec >= 10 && vec <= 14) || (vec == 17) || (vec == 21) || (vec == 29) || (vec == 30)
	.else
	push $0
	.endif
	push $vec
	jmp trap_common
	.set vec, vec + 1
	.endr

trap_common:
	pusha
	push %ds
	push %es
	push %fs
	push %gs
	mov $0x10, %ax
	mov %ax, %ds
	mov %ax, %es
	cld
	push %esp
	call trap_dispatch
	add $4, %esp
	pop %gs
	pop %fs
	pop %es
	pop %ds
	popa
	add $8, %esp
	iret

	/* int trap_catch(trap_fn fn, void *arg) */
	.globl trap_catch
trap_catch:
	push %ebp
	push %ebx
	push %esi
	push %edi
	mov %esp, catch_esp
	movl $1, catch_armed
	pushl 24(%esp)          /* arg */
	call *24(%esp)          /* fn */
	add $4, %esp
	movl $0, catch_armed
	mov $-1, %eax
	pop %edi
	pop %esi
	pop %ebx
	pop %ebp
	ret

	/* void trap_longjmp(int vec): back to the trap_catch frame at CPL0 */
	.globl trap_longjmp
trap_longjmp:
	mov 4(%esp), %eax
	mov $0x10, %dx
	mov %dx, %ds
	mov %dx, %es
	mov %dx, %fs
	mov %dx, %gs
	mov %dx, %ss
	mov catch_esp, %esp
	movl $0, catch_armed
	pushl $2                /* IF=0, IOPL=0, DF=0, NT=0 */
	popf
	pop %edi
	pop %esi
	pop %ebx
	pop %ebp
	ret

	.data
	.globl catch_esp, catch_armed
catch_esp:	.long 0
catch_armed:	.long 0
	.section .note.GNU-stack,"",@progbits
