/* page_touch64: page_touch with 4-level paging in 64-bit mode. lm_entry.h maps
 * the first GiB with 2 MiB pages; here PDEs 4-31 (8 MiB .. 64 MiB) are replaced
 * by page tables of 4 KiB pages, so each touch after a CR3 reload walks all
 * four levels (SDM Vol.3 4.5). Each pass writes one byte to each of the 14336
 * pages, reloading CR3 every 32 pages (non-global translations dropped, SDM
 * Vol.3 4.10.4.1). EDI counts the touches; the runner reports them per second. */
#include "lm_entry.h"
#define PT      0x400000                /* 28 page tables, 112 KiB, in a 2 MiB page */
#define FIRST   0x800000
#define PAGES   (14336)                 /* 56 MiB / 4 KiB */
#define PASSES  256
#define PTE_P_RW 3

main64:
	/* PTEs: identity from 8 MiB, supervisor, read/write. */
	movl $PT, %edi
	movl $FIRST + PTE_P_RW, %eax
	movl $PAGES, %ecx
1:	movq %rax, (%rdi)
	addq $8, %rdi
	addq $0x1000, %rax
	decl %ecx
	jnz 1b
	/* PDEs 4-31 -> the page tables. */
	movl $lm_pd + 4 * 8, %edi
	movl $PT + PTE_P_RW, %eax
	movl $28, %ecx
2:	movq %rax, (%rdi)
	addq $8, %rdi
	addq $0x1000, %rax
	decl %ecx
	jnz 2b
	movq %cr3, %rax                 /* drop the 2 MiB translations */
	movq %rax, %cr3

	xorl %edi, %edi                 /* touches */
	movl $PASSES * SCALE, %ebp
3:	movl $FIRST, %esi
	movl $PAGES / 32, %edx
4:	movl $32, %ecx
5:	movb %cl, (%rsi)
	addq $0x1000, %rsi
	incl %edi
	decl %ecx
	jnz 5b
	movq %cr3, %rax                 /* flush: the next 32 touches walk */
	movq %rax, %cr3
	decl %edx
	jnz 4b
	decl %ebp
	jnz 3b
	movb $0, %al
	outb %al, $DEBUG_EXIT_PORT
6:	hlt
	jmp 6b
