/* 64-bit pieces of the long_mode guest (assembled into the 32-bit ELF with
 * .code64). The guest runs its C code in compatibility mode and far-calls these
 * routines through the 64-bit code selector LM_CS64; each returns with a 32-bit
 * LRET. Exceptions go through the 64-bit IDT to lm_stub_N, which records the
 * vector, error code, RIP and CR2 and resumes at lm_recover (SDM Vol.3 6.14:
 * 16-byte gates, IRETQ pops SS:RSP unconditionally). */
#define LM_CS64  0x40
/* Globals are reached RIP-relative: a 32-bit ELF cannot hold the sign-extended
 * absolute relocation a 64-bit absolute disp32 needs. */

	.text
	.code64

/* Interrupt stubs: vectors 0-31; the CPU pushes an error code for 8, 10-14, 17. */
	.globl lm_stubs
lm_stubs:
	.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.balign 16
	.if \v == 8 || (\v >= 10 && \v <= 14) || \v == 17
	.else
	pushq $0
	.endif
	pushq $\v
	jmp lm_common
	.endr

lm_common:
	movq %rsp, lm_hrsp(%rip)
	movq (%rsp), %rax
	movq %rax, lm_vec(%rip)
	movq 8(%rsp), %rax
	movq %rax, lm_err(%rip)
	movq 16(%rsp), %rax
	movq %rax, lm_rip(%rip)
	movq 24(%rsp), %rax
	movq %rax, lm_cs(%rip)
	movq 40(%rsp), %rax
	movq %rax, lm_rsp(%rip)
	movq %cr2, %rax
	movq %rax, lm_cr2(%rip)
	movl lm_recover(%rip), %eax
	movq %rax, 16(%rsp)
	addq $16, %rsp
	iretq

/* 64-bit mode: FS.base + offset is not truncated (SDM Vol.3 3.3.7.1): base
 * 0x40000000 (set by WRMSR FS_BASE) + 0xC0001000 = 0x100001000, above the
 * 1 GiB identity map: #PF with that CR2. */
	.globl lm_nowrap
lm_nowrap:
	movl %esp, %esp
	movl $1f, lm_recover(%rip)
	movl $0xC0001000, %ecx
	movl %fs:(%rcx), %eax
1:	lretl

/* Non-canonical data access: #GP(0); through RBP (SS): #SS(0) (SDM Vol.3 6.15). */
	.globl lm_canon_gp
lm_canon_gp:
	movl %esp, %esp
	movl $1f, lm_recover(%rip)
	movabsq $0x0000800000000000, %rax
	movl (%rax), %eax
1:	lretl

	.globl lm_canon_ss
lm_canon_ss:
	movl %esp, %esp
	pushq %rbp
	movl $1f, lm_recover(%rip)
	movabsq $0xffff7ffffffffff0, %rbp
	movl (%rbp), %eax
1:	popq %rbp
	lretl

/* Near jump to a non-canonical target: #GP(0) (SDM Vol.2 JMP, 64-bit mode). */
	.globl lm_canon_jmp, lm_canon_jmp_insn
lm_canon_jmp:
	movl %esp, %esp
	movl $1f, lm_recover(%rip)
	movabsq $0x0000800000000000, %rax
lm_canon_jmp_insn:
	jmp *%rax
1:	lretl

/* MOV CR0 clearing PG in 64-bit mode: #GP(0) (SDM Vol.2 MOV CR). */
	.globl lm_clear_pg64
lm_clear_pg64:
	movl %esp, %esp
	movl $1f, lm_recover(%rip)
	movq %cr0, %rax
	btrq $31, %rax
	movq %rax, %cr0
1:	lretl

/* IST: INT3 through a gate with IST=1 runs on TSS.IST1 (SDM Vol.3 6.14.5). */
	.globl lm_int3
lm_int3:
	movl %esp, %esp
	movl $1f, lm_recover(%rip)
	int3
1:	lretl

/* MOVSXD and a REX-only register (R9). */
	.globl lm_movsxd
lm_movsxd:
	movl %esp, %esp
	movl $0x80000001, %ecx
	movslq %ecx, %r9
	shrq $32, %r9
	movl %r9d, %eax
	lretl

/* SYSCALL from CPL 0, SYSRETQ to CPL 3 64-bit code, SYSCALL back (SDM Vol.2
 * SYSCALL/SYSRET). LSTAR = lm_sys_entry. */
	.globl lm_syscall, lm_sys_entry, lm_user64, lm_sys_back
lm_syscall:
	movl %esp, %esp
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
