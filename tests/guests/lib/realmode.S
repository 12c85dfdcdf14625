/* Protected mode -> 16-bit protected mode -> real mode -> back (SDM Vol.3
 * 10.9.2 "Switching Back to Real-Address Mode", 10.9.1 "Switching to
 * Protected Mode"). The blob between tramp_start and tramp_end runs from
 * its copy at 0x8000 (below 1 MiB, so CS=0 can reach it in real mode). */
#define T(x) ((x) - tramp_start + 0x8000)

	.text
	/* void realmode_call(uint32_t mode, uint32_t seg_or_sel, uint32_t off) */
	.globl realmode_call
realmode_call:
	push %ebp
	push %ebx
	push %esi
	push %edi
	mov $tramp_start, %esi
	mov $0x8000, %edi
	mov $(tramp_end - tramp_start), %ecx
	cld
	rep movsb
	mov 20(%esp), %eax
	mov %ax, T(t_mode)
	mov 28(%esp), %eax
	mov %ax, T(t_target)          /* offset word of the m16:16 pointer */
	mov 24(%esp), %eax
	mov %ax, T(t_target) + 2      /* segment / selector word */
	mov %esp, T(t_saved_esp)
	sidt T(t_saved_idt)
	/* SDM 10.9.2 step 3: far jump to a 16-bit code segment with a 64K limit. */
	ljmp $0x30, $T(pm16_entry)

	.code32
pm32_return:
	mov $0x10, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %fs
	mov %ax, %gs
	mov %ax, %ss
	mov T(t_saved_esp), %esp
	lidt T(t_saved_idt)
	pop %edi
	pop %esi
	pop %ebx
	pop %ebp
	ret

	.balign 16
tramp_start:
t_mode:       .word 0
t_target:     .word 0, 0
t_saved_esp:  .long 0
t_saved_idt:  .word 0
	      .long 0
t_real_idt:   .word 0x3ff          /* real-mode IVT at 0 (SDM 20.1.4) */
	      .long 0

	.code16
pm16_entry:
	/* SDM 10.9.2 step 4: load SS/DS/ES with 64K-limit, byte-granular selectors.
	 * FS and GS keep the flat 4 GiB limit of selector 0x10 on purpose:
	 * the caller checks the "unreal" limit survives the switch to real mode. */
	mov $0x38, %ax
	mov %ax, %ss
	mov $0x7c00, %sp
	mov %ax, %ds
	mov %ax, %es
	cmpw $1, T(t_mode)
	jne 1f
	mov $1, %ax
	lcallw *T(t_target)
	jmp back_pm16
1:
	lidt T(t_real_idt)
	mov %cr0, %eax
	and $0xfffffffe, %eax
	mov %eax, %cr0
	/* SDM 10.9.2 step 7: far jump to load a real-mode CS. */
	ljmp $0, $T(rm_entry)
rm_entry:
	xor %ax, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	mov $0x7c00, %sp
	mov $0, %ax
	lcallw *T(t_target)
	cli
	mov %cr0, %eax
	or $1, %eax
	mov %eax, %cr0
	ljmp $0x30, $T(back_pm16)
back_pm16:
	/* 32-bit far jump out of 16-bit code needs the operand-size prefix. */
	ljmpl $0x08, $pm32_return
	.code32
tramp_end:
	.section .note.GNU-stack,"",@progbits
