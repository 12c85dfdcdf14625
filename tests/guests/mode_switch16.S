/* 16-bit payload for mode_switch.c, copied to 0x9000 and far-called by the
 * lib trampoline with AX = 0 (real mode, CS = 0x0900) or AX = 1 (16-bit
 * protected mode, CS = selector 0x40 with base 0x9000). DS = base 0 in
 * both; results go to the fixed table at 0x7e00 that mode_switch.c reads.
 * Addresses inside the payload are offsets from ms16_start (= CS base). */
#define OFF(x) ((x) - ms16_start)
	.text
	.code16
	.globl ms16_start, ms16_end
ms16_start:
	cmp $1, %ax
	je pm16

	/* ---- real mode ---- */
	mov %cr0, %eax
	mov %eax, 0x7e00                 /* R0: CR0 */
	/* R1: real-mode address = selector * 16 + offset (SDM 20.1.1). */
	mov $0x1000, %bx
	mov %bx, %es
	movl $0xcafebabe, %es:0x10       /* -> physical 0x10010 */
	xor %bx, %bx
	mov %bx, %es
	/* R2: FS still holds the 4 GiB limit cached in protected mode, so a
	 * 32-bit offset beyond 64 KiB works ("unreal" mode, SDM 20.1.1: limits
	 * are not changed by real-mode segment loads). The 32-bit base register
	 * makes the assembler emit the 0x67 address-size prefix. */
	mov $0x200000, %ebx
	movl %fs:(%ebx), %eax
	mov %eax, 0x7e08
	/* R3: reloading FS in real mode sets the base only; limit is kept. */
	xor %ax, %ax
	mov %ax, %fs
	movl %fs:4(%ebx), %eax
	mov %eax, 0x7e0c
	/* R4: INT n through the real-mode IVT (SDM 20.1.4): FLAGS, CS, IP pushed. */
	movw $OFF(rm_handler), 0x50 * 4
	movw $0x0900, 0x50 * 4 + 2
	movw $0, 0x7e10
	int $0x50
	/* R5/R6: default 16-bit operand size; 0x66 selects 32 bits. */
	mov %sp, %bx
	push %ax
	mov %sp, %cx
	pop %ax
	sub %cx, %bx
	mov %bx, 0x7e16
	mov %sp, %bx
	pushl %eax
	mov %sp, %cx
	popl %eax
	sub %cx, %bx
	mov %bx, 0x7e18
	lretw

rm_handler:
	push %bp
	mov %sp, %bp
	movw $0x1234, 0x7e10
	mov 4(%bp), %ax                  /* pushed CS */
	mov %ax, 0x7e12
	mov 2(%bp), %ax                  /* pushed IP */
	mov %ax, 0x7e14
	pop %bp
	iret

	/* ---- 16-bit protected mode ---- */
pm16:
	mov %cr0, %eax
	mov %eax, 0x7e20                 /* P0: CR0 */
	mov %cs, %ax
	mov %ax, 0x7e24                  /* P1: CS selector */
	mov %sp, %bx                     /* P2: SS.B=0 -> 16-bit SP, 2-byte push */
	push %ax
	mov %sp, %cx
	pop %ax
	sub %cx, %bx
	mov %bx, 0x7e26
	/* P3: FS has the flat 32-bit selector 0x10: 32-bit addressing works. */
	mov $0x200000, %ebx
	movl %fs:(%ebx), %eax
	mov %eax, 0x7e28
	lretw
ms16_end:
	.code32
	.section .note.GNU-stack,"",@progbits
