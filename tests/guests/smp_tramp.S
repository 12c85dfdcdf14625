/* The application processor's start (SDM Vol.3 8.4.3, 10.9.1): a SIPI with
 * vector V starts it in real mode at V000:0000 (CS = V << 8, base V << 12);
 * the blob between ap_tramp_start and ap_tramp_end, copied there by the BSP,
 * counts the start, loads the BSP's GDT, sets CR0.PE and far-jumps to 32-bit
 * code in the image, which loads the data segments and the AP's stack and
 * calls ap_main(). The BSP fills in ap_tramp_gdtr. */
#define OFF(x) ((x) - ap_tramp_start)

	.text
	.code16
	.balign 16
	.globl ap_tramp_start, ap_tramp_end, ap_tramp_gdtr
ap_tramp_start:
	cli
	cld
	mov %cs, %ax
	mov %ax, %ds
	/* The BSP reads how often an AP started here. */
	lock incl OFF(ap_tramp_starts)
	lgdtl OFF(ap_tramp_gdtr)
	mov %cr0, %eax
	or $1, %eax
	mov %eax, %cr0
	ljmpl $0x08, $ap_entry32
	.balign 8
ap_tramp_gdtr:
	.word 0
	.long 0
	.balign 4
	.globl ap_tramp_starts
ap_tramp_starts:
	.long 0
ap_tramp_end:

	.code32
ap_entry32:
	mov $0x10, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %fs
	mov %ax, %gs
	mov %ax, %ss
	mov $ap_stack_top, %esp
	call ap_main
1:	cli
	hlt
	jmp 1b

	.bss
	.balign 16
ap_stack:
	.space 8192
ap_stack_top:
	.section .note.GNU-stack,"",@progbits
