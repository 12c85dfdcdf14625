/* Multiboot v1 header and entry (Multiboot spec 0.6.96, section 3.1). */
#define MB_MAGIC 0x1BADB002
#define MB_FLAGS 0x00000003   /* page-align modules, want memory info */
	.section .multiboot, "a"
	.align 4
	.long MB_MAGIC
	.long MB_FLAGS
	.long -(MB_MAGIC + MB_FLAGS)

	.text
	.globl _start
_start:
	/* Multiboot 3.2: EAX = 0x2BADB002, EBX = info; flat CS/DS, IF = 0, paging off. */
	cli
	cld
	mov $boot_stack_top, %esp
	push %ebx
	push %eax
	call guest_start
1:	hlt
	jmp 1b

	.bss
	.align 16
	.globl boot_stack_top
boot_stack:
	.space 32768
boot_stack_top:
	.section .note.GNU-stack,"",@progbits
