/* 64-bit pieces of the long_mode guest (assembled into the 32-bit ELF with
 * .code64). The guest runs its C code in compatibility mode and far-calls these
 * routines through the 64-bit code selector LM_CS64; each returns with a 32-bit
 * LRET. Exceptions go through the 64-bit IDT to lib/long64.S, which records the
 * vector, error code, RIP and CR2 and resumes at lm_recover. */
#include "lib/long64.h"

	.text
	.code64

/* 64-bit mode: FS.base + offset is not truncated (SDM Vol.3 3.3.7.1): base
 * 0x40000000 (set by WRMSR FS_BASE) + 0xC0001000 = 0x100001000, above the
 * 1 GiB identity map: #PF with that CR2. */
	TRY64 lm_nowrap
	movl $0xC0001000, %ecx
	movl %fs:(%rcx), %eax
1:	lretl

/* Non-canonical data access: #GP(0); through RBP (SS): #SS(0) (SDM Vol.3 6.15). */
	TRY64 lm_canon_gp
	movabsq $0x0000800000000000, %rax
	movl (%rax), %eax
1:	lretl

	ENTRY64 lm_canon_ss
	pushq %rbp
	movl $1f, lm_recover(%rip)
	movabsq $0xffff7ffffffffff0, %rbp
	movl (%rbp), %eax
1:	popq %rbp
	lretl

/* Near jump to a non-canonical target: #GP(0) (SDM Vol.2 JMP, 64-bit mode). */
	.globl lm_canon_jmp_insn
	TRY64 lm_canon_jmp
	movabsq $0x0000800000000000, %rax
lm_canon_jmp_insn:
	jmp *%rax
1:	lretl

/* MOV CR0 clearing PG in 64-bit mode: #GP(0) (SDM Vol.2 MOV CR). */
	TRY64 lm_clear_pg64
	movq %cr0, %rax
	btrq $31, %rax
	movq %rax, %cr0
1:	lretl

/* IST: INT3 through a gate with IST=1 runs on TSS.IST1 (SDM Vol.3 6.14.5). */
	TRY64 lm_int3
	int3
1:	lretl

/* MOVSXD and a REX-only register (R9). */
	ENTRY64 lm_movsxd
	movl $0x80000001, %ecx
	movslq %ecx, %r9
	shrq $32, %r9
	movl %r9d, %eax
	lretl

/* SYSCALL from CPL 0, SYSRETQ to CPL 3 64-bit code, SYSCALL back (SDM Vol.2
 * SYSCALL/SYSRET). LSTAR = lm_sys_entry. */
	.globl lm_sys_entry, lm_user64, lm_sys_back
	ENTRY64 lm_syscall
	movq %rsp, lm_saved_rsp(%rip)
	movl $0, lm_sys_count(%rip)
	movl $0x00000002, %r11d
	syscall
lm_sys_entry:
	incl lm_sys_count(%rip)
	cmpl $1, lm_sys_count(%rip)
	jne 2f
	movq %rcx, lm_sys_rcx(%rip)
	movq %r11, lm_sys_r11(%rip)
	movl %cs, %eax
	movl %eax, lm_sys_cs(%rip)
	movl %ss, %eax
	movl %eax, lm_sys_ss(%rip)
	movl $lm_user64, %ecx
	movl $0x00000003, %r11d          /* CF and the fixed bit 1 */
	sysretq
lm_user64:
	movl %cs, %eax
	movl %eax, lm_user_cs(%rip)
	movl %ss, %eax
	movl %eax, lm_user_ss(%rip)
	pushfq
	popq %rax
	movl %eax, lm_user_flags(%rip)
	syscall
lm_sys_back:
2:	movq %rcx, lm_sys_rcx2(%rip)
	movq lm_saved_rsp(%rip), %rsp
	lretl

	.section .note.GNU-stack, "", @progbits
