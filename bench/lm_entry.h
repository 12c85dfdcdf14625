/* Long-mode start for the 64-bit benchmark guests: from the multiboot state
 * (32-bit protected mode, paging off) into 64-bit mode with the first GiB
 * identity-mapped in 2 MiB pages, then a jump to main64. The order is the one
 * SDM Vol.3 9.8.5 prescribes: CR4.PAE, CR3, EFER.LME, then CR0.PG; a far jump
 * to a code segment with L=1 leaves compatibility mode. */
#include "mb_entry.h"
#define EFER_MSR 0xc0000080

	.globl _start
	.code32
_start:
	/* PD: 512 entries of 2 MiB pages, P|RW|PS (SDM Vol.3 Table 4-17). */
	movl $lm_pd, %edi
	xorl %ecx, %ecx
1:	movl %ecx, %eax
	shll $21, %eax
	orl $0x83, %eax
	movl %eax, (%edi,%ecx,8)
	movl $0, 4(%edi,%ecx,8)
	incl %ecx
	cmpl $512, %ecx
	jne 1b
	movl $lm_pdpt, %edi
	movl $lm_pd + 3, (%edi)
	movl $lm_pml4, %edi
	movl $lm_pdpt + 3, (%edi)

	movl %cr4, %eax
	orl $0x20, %eax                 /* CR4.PAE */
	movl %eax, %cr4
	movl $lm_pml4, %eax
	movl %eax, %cr3
	movl $EFER_MSR, %ecx
	rdmsr
	orl $0x100, %eax                /* EFER.LME */
	wrmsr
	movl %cr0, %eax
	orl $0x80000001, %eax           /* CR0.PG (and PE, already set) */
	movl %eax, %cr0
	lgdt lm_gdtr
	ljmp $0x08, $lm_start64

	.code64
lm_start64:
	movl $0x10, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	jmp main64

	.section .data
	.align 8
/* Null, 08H: 64-bit code (L=1, P, DPL 0, type 9BH), 10H: flat data (93H). */
lm_gdt:
	.quad 0
	.quad 0x00af9b000000ffff
	.quad 0x00cf93000000ffff
lm_gdtr:
	.word lm_gdtr - lm_gdt - 1
	.long lm_gdt

	.section .bss
	.align 4096
lm_pml4: .skip 4096
lm_pdpt: .skip 4096
lm_pd:   .skip 4096

	.section .text
