/* L2's operations, one per path (see nova_escape.h): each makes its first
 * access to its case's target page through an address that crosses 4 GiB
 * and wraps (APM2 4.1). CS, DS, ES and SS have base 0x40000000, so the image's
 * link addresses work as offsets; offset WRAP(x) is linear x. */
#include "nova_escape.h"

	.text
	.code32

/* A load through DS: 0x40000000 + 0xc0001010 = linear 0x1010. */
	.globl l2_ds_read
l2_ds_read:
	movl WRAP(0x1010), %eax
	ret

/* A store through DS: linear 0x2024. */
	.globl l2_ds_write
l2_ds_write:
	movl $0x5a5a5a5a, WRAP(0x2024)
	ret

/* PUSH with ESP = 0xc0004000: the dword goes to linear 0x3ffc. */
	.globl l2_push32
l2_push32:
	movl %esp, l2_saved_esp
	movl $WRAP(0x4000), %esp
	pushl $0x12345678
	movl l2_saved_esp, %esp
	ret

/* A near call to offset 0xc0006100: the fetch is at linear 0x6100, where the
 * L1 put a RET; it returns to the (unwrapped) caller. */
	.globl l2_fetch
l2_fetch:
	movl $WRAP(0x6100), %eax
	call *%eax
	ret

/* MOV FS with GDTR.base = 0xfffff000: the descriptor of selector 5018H is read
 * at 0xfffff000 + 0x5018 = linear 0x4018 (SDM Vol.3 3.4.2, 3.5.1). */
	.globl l2_gdt_load
l2_gdt_load:
	lgdt l2_gdtr_wrapped
	movw $SEL_GDT_WRAP, %ax
	movw %ax, %fs
	lgdt l2_gdtr
	movw $L2_DS, %ax
	movw %ax, %fs
	ret

/* MOV FS with LDTR.base = 0xfffff000 (the L1 loads LDTR for this case): the
 * descriptor of selector 6024H is read at linear 0x5020. */
	.globl l2_ldt_load
l2_ldt_load:
	movw $SEL_LDT_WRAP, %ax
	movw %ax, %fs
	movw $L2_DS, %ax
	movw %ax, %fs
	ret

/* INT 30H with IDTR.base = 0xffffff00: the gate is read at linear 0x80
 * (SDM Vol.3 6.10) while the interrupt is being delivered. */
	.globl l2_idt_int
l2_idt_int:
	lidt l2_idtr_wrapped
	int $VEC_WRAPPED_IDT
	lidt l2_idtr
	ret

/* INT 31H with ESP = 0xc0012008: EFLAGS and CS go to linear 0x12004 and
 * 0x12000, EIP to 0x11ffc on the target page. */
	.globl l2_int32_push
l2_int32_push:
	movl %esp, l2_saved_esp
	movl $WRAP(0x12008), %esp
	int $VEC_IRET32
	movl l2_saved_esp, %esp
	ret

/* The same gate on the 16-bit stack L2_SS16 with SP = D008H: EFLAGS and CS
 * at linear 0xc004 and 0xc000, EIP at 0xbffc. */
	.globl l2_int32_push_ss16
l2_int32_push_ss16:
	movl %esp, l2_saved_sp48
	movw %ss, l2_saved_sp48 + 4
	movw $L2_SS16, %ax
	movw %ax, %ss
	movl $SP_INT32, %esp
	int $VEC_IRET32
	lss l2_saved_sp48, %esp
	ret

/* IRET with ESP = 0xc0013ffc: EIP is popped from linear 0x13ffc (the L1
 * wrote l2_iret32_resume there), CS and EFLAGS from 0x14000 and 0x14004. */
	.globl l2_iret32_pop, l2_iret32_resume
l2_iret32_pop:
	movl %esp, l2_saved_esp
	movl $WRAP(0x13ffc), %esp
	iret
l2_iret32_resume:
	movl l2_saved_esp, %esp
	ret

/* A task switch (CALL to the TSS at 0xffffff9c): the new TSS is read up to
 * its T word at offset 64H, which is linear 0 (SDM Vol.3 7.3). The new task
 * returns at once (IRET with NT = 1). */
	.globl l2_task_switch, l2_task_entry
l2_task_switch:
	lcall $L2_TSS_TASK, $0
	ret
l2_task_entry:
	iret
	jmp l2_task_entry

/* Runs l2_user_code at CPL 3. Its INT 33H switches to the stack in the TSS
 * (SS0:ESP0, SDM Vol.3 6.12.1); its INT 7FH comes back here at CPL 0. */
	.globl l2_ring3_int
l2_ring3_int:
	pushl %ebx
	pushl %esi
	pushl %edi
	pushl %ebp
	movl %esp, l2_kernel_esp
	movw $L2_DS3, %ax
	movw %ax, %ds
	movw %ax, %es
	pushl $L2_DS3
	pushl $l2_user_stack + 4096
	pushl $2
	pushl $L2_CS3
	pushl $l2_user_code
	iret
l2_user_code:
	int $VEC_RING3
	int $VEC_KERNEL
	jmp l2_user_code

/* INT 7FH: drop the frame, go back to l2_ring3_int's caller. */
	.globl l2_h_back_to_kernel
l2_h_back_to_kernel:
	movw $L2_DS, %ax
	movw %ax, %ds
	movw %ax, %es
	movl l2_kernel_esp, %esp
	popl %ebp
	popl %edi
	popl %esi
	popl %ebx
	ret

/* The 32-bit interrupt gates' handler. */
	.globl l2_h_iret32
l2_h_iret32:
	iret

/* The paths with 16-bit operands run in L2_CS_LOW, a code segment based at
 * l2_low_start, so that every IP they push or pop fits in 16 bits. */
	.globl l2_int16_push, l2_iret16_pop, l2_int16_push_ss32, l2_lcall16_push, l2_lret16_pop
l2_int16_push:
	lcall $L2_CS_LOW, $(l2_int16_push_low - l2_low_start)
	ret
l2_iret16_pop:
	lcall $L2_CS_LOW, $(l2_iret16_pop_low - l2_low_start)
	ret
l2_int16_push_ss32:
	lcall $L2_CS_LOW, $(l2_int16_push_ss32_low - l2_low_start)
	ret
l2_lcall16_push:
	lcall $L2_CS_LOW, $(l2_lcall16_push_low - l2_low_start)
	ret
l2_lret16_pop:
	lcall $L2_CS_LOW, $(l2_lret16_pop_low - l2_low_start)
	ret

	.section .text.l2low, "ax"
	.balign 4096
	.globl l2_low_start, l2_h_iret16, l2_iret16_resume, l2_lret16_resume
l2_low_start:

/* INT 32H through a 16-bit gate on the 16-bit stack L2_SS16 (base 0xfffff000)
 * with SP = 9004H: FLAGS and CS go to linear 0x8002 and 0x8000, IP to 0x7ffe. */
l2_int16_push_low:
	movl %esp, l2_saved_sp48
	movw %ss, l2_saved_sp48 + 4
	movw $L2_SS16, %ax
	movw %ax, %ss
	movl $SP_INT16, %esp
	int $VEC_IRET16
	lss l2_saved_sp48, %esp
	lret

/* IRETW on L2_SS16 with SP = AFFEH: IP is popped from linear 0x9ffe (the L1
 * wrote the offset of l2_iret16_resume there), CS and FLAGS from 0xa000. */
l2_iret16_pop_low:
	movl %esp, l2_saved_sp48
	movw %ss, l2_saved_sp48 + 4
	movw $L2_SS16, %ax
	movw %ax, %ss
	movl $SP_IRET16, %esp
	iretw
l2_iret16_resume:
	lss l2_saved_sp48, %esp
	lret

/* INT 32H through the 16-bit gate on the 32-bit stack, ESP = 0xc0018004:
 * FLAGS and CS at linear 0x18002 and 0x18000, IP at 0x17ffe. */
l2_int16_push_ss32_low:
	movl %esp, l2_saved_esp
	movl $WRAP(0x18004), %esp
	int $VEC_IRET16
	movl l2_saved_esp, %esp
	lret

/* A far call with a 16-bit operand (66 9A), ESP = 0xc001a002: CS goes to
 * linear 0x1a000, IP to 0x19ffe; the callee returns with LRETW. */
l2_lcall16_push_low:
	movl %esp, l2_saved_esp
	movl $WRAP(0x1a002), %esp
	lcallw $L2_CS_LOW, $(l2_h_lret16 - l2_low_start)
	movl l2_saved_esp, %esp
	lret

/* LRETW with ESP = 0xc001bffe: IP is popped from linear 0x1bffe (the L1 wrote
 * the offset of l2_lret16_resume there), CS from 0x1c000. */
l2_lret16_pop_low:
	movl %esp, l2_saved_esp
	movl $WRAP(0x1bffe), %esp
	lretw
l2_lret16_resume:
	movl l2_saved_esp, %esp
	lret

/* The 16-bit gate's handler: pops IP, CS, FLAGS. */
l2_h_iret16:
	iretw

/* The 16-bit far call's callee: pops IP, CS. */
l2_h_lret16:
	lretw

	.bss
	.balign 4
l2_saved_esp:
	.long 0
l2_kernel_esp:
	.long 0
l2_saved_sp48:
	.long 0
	.word 0
	.balign 4096
l2_user_stack:
	.space 4096

	.section .note.GNU-stack, "", @progbits
