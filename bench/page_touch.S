/* page_touch: the walker/TLB benchmark of the paging issue. 32-bit paging maps
 * the first 64 MiB with 4 KiB pages; each pass writes one byte to each of the
 * 16384 pages, and every 32 pages reloads CR3, which drops the non-global
 * translations (SDM Vol.3 4.10.4.1), so the next 32 touches walk the tables.
 * EDI counts the touches; the runner reports them per second. */
#include "mb_entry.h"
#define PD      0x400000                /* page directory */
#define PT      0x401000                /* 16 page tables, 64 KiB */
#define PAGES   16384                   /* 64 MiB / 4 KiB */
#define PASSES  256
#define PTE_P_RW 3

	.globl _start
_start:
	/* PDEs 0-15 -> the page tables. */
	movl $PD, %edi
	movl $PT + PTE_P_RW, %eax
	movl $16, %ecx
1:	movl %eax, (%edi)
	addl $4, %edi
	addl $0x1000, %eax
	decl %ecx
	jnz 1b
	/* PTEs: identity, supervisor, read/write. */
	movl $PT, %edi
	movl $PTE_P_RW, %eax
	movl $PAGES, %ecx
2:	movl %eax, (%edi)
	addl $4, %edi
	addl $0x1000, %eax
	decl %ecx
	jnz 2b
	movl $PD, %eax
	movl %eax, %cr3
	movl %cr0, %eax
	orl $0x80000000, %eax
	movl %eax, %cr0

	xorl %edi, %edi                 /* touches */
	movl $PASSES * SCALE, %ebp
3:	movl $0x800000, %esi            /* touch 8 MiB .. 64 MiB */
	movl $(PAGES - 2048) / 32, %edx
4:	movl $32, %ecx
5:	movb %cl, (%esi)
	addl $0x1000, %esi
	incl %edi
	decl %ecx
	jnz 5b
	movl %cr3, %eax                 /* flush: the next 32 touches walk */
	movl %eax, %cr3
	decl %edx
	jnz 4b
	decl %ebp
	jnz 3b
	movb $0, %al
	outb %al, $DEBUG_EXIT_PORT
6:	hlt
	jmp 6b
