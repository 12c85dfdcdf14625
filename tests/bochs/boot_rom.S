/* An option ROM that boots a multiboot v1 kernel under Bochs, which has no
 * multiboot loader of its own (Bochs 2.7 dropped load32bitOSImage).
 *
 * run-bochs.py turns the ELF, its multiboot information and its command line
 * into a "boot blob" that Bochs's optramimage1 places in RAM at BLOB before
 * the BIOS runs; Bochs's optromimage1 maps this ROM at ROM_SEG:0. The BIOS's
 * POST calls the ROM's initialisation entry (offset 3) during its scan of
 * C8000-DFFFF, after it has set the interrupt vectors; the entry only hooks
 * INT 19h (bootstrap) and returns, so the BIOS finishes POST (PIC, PIT,
 * keyboard, VGA) as for any boot. INT 19h then lands in `boot`: A20 on,
 * protected mode with flat 4 GiB segments, the blob's chunks copied to their
 * addresses (bytes past a chunk's file size zeroed: the ELF's .bss), and a
 * jump to the ELF entry in the state Multiboot 0.6.96 section 3.2 promises:
 * EAX = 0x2BADB002, EBX = the information structure, CS a 32-bit read/execute
 * segment and DS/ES/FS/GS/SS read/write segments with base 0 and limit
 * 4 GiB, A20 on, CR0.PG = 0, CR0.PE = 1, EFLAGS.VM = 0 and IF = 0; the GDTR
 * points into this ROM, so the kernel loads its own (as the spec says it must).
 *
 * Blob layout (little endian, 32-bit words; run-bochs.py writes it):
 *   +0 magic "HVBB", +4 entry EIP, +8 EBX (the information structure),
 *   +12 chunk count n, +16 n chunks of {destination, file size, memory size,
 *   offset of the bytes in the blob}.
 * run-bochs.py also sets the ROM's size byte (offset 2) and its checksum
 * (the last byte: all bytes sum to 0, which the BIOS checks).
 */
#define ROM_SEG    0xd000
#define ROM_BASE   (ROM_SEG << 4)
#define BLOB       0x04000000
#define BLOB_MAGIC 0x42425648      /* "HVBB" */
#define MB_BOOT_MAGIC 0x2BADB002   /* Multiboot 3.2: EAX at the kernel's entry */

	.code16
	.text
	.globl _start
_start:
	.byte 0x55, 0xaa           /* option ROM signature */
	.byte 0                    /* size in 512-byte blocks: set by run-bochs.py */
	jmp init                   /* the BIOS far-calls offset 3 */
	.org 0x18
	.word 0                    /* no PCI data structure */
	.word 0                    /* no PnP expansion header (offset 0x1a) */

	.org 0x20
init:
	push %ds
	xor %ax, %ax
	mov %ax, %ds
	movw $boot, 0x19 * 4       /* INT 19h vector: ROM_SEG:boot */
	movw %cs, 0x19 * 4 + 2
	pop %ds
	lret

boot:
	cli
	cld
	inb $0x92, %al             /* A20 on through the fast A20 gate, no reset */
	orb $2, %al
	andb $0xfe, %al
	outb %al, $0x92
	lgdtl %cs:gdt_desc
	mov %cr0, %eax
	or $1, %eax
	mov %eax, %cr0
	ljmpl $0x08, $(ROM_BASE + pm32)

	.code32
pm32:
	mov $0x10, %eax
	mov %eax, %ds
	mov %eax, %es
	mov %eax, %fs
	mov %eax, %gs
	mov %eax, %ss
	mov $0x7000, %esp          /* the BIOS's stack area; the kernel sets its own */
	mov $BLOB, %ebp
	cmpl $BLOB_MAGIC, (%ebp)
	jne bad_blob
	mov 12(%ebp), %edx         /* chunk count */
	lea 16(%ebp), %ebx         /* first chunk */
1:	test %edx, %edx
	jz 2f
	mov (%ebx), %edi           /* destination */
	mov 12(%ebx), %esi
	add %ebp, %esi             /* source in the blob */
	mov 4(%ebx), %ecx          /* file size */
	rep movsb
	mov 8(%ebx), %ecx
	sub 4(%ebx), %ecx          /* memory size - file size: zeroed */
	xor %eax, %eax
	rep stosb
	add $16, %ebx
	dec %edx
	jmp 1b
2:	mov 4(%ebp), %ecx          /* entry */
	mov 8(%ebp), %ebx          /* multiboot information */
	mov $MB_BOOT_MAGIC, %eax
	jmp *%ecx

	/* No blob at BLOB: say so on COM1 (the runner prints the log) and stop. */
bad_blob:
	mov $(ROM_BASE + bad_msg), %esi
	mov $0x3f8, %dx
3:	lodsb
	test %al, %al
	jz 4f
	outb %al, %dx
	jmp 3b
4:	hlt
	jmp 4b

bad_msg:
	.asciz "bochs boot ROM: no boot blob in RAM\n"

	.p2align 3
gdt:
	.quad 0
	.quad 0x00cf9b000000ffff   /* 0x08: code, base 0, limit 4 GiB, 32-bit, accessed */
	.quad 0x00cf93000000ffff   /* 0x10: data, base 0, limit 4 GiB, accessed */
gdt_desc:
	.word gdt_desc - gdt - 1
	.long ROM_BASE + gdt

	.section .note.GNU-stack, "", @progbits
