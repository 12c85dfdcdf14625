/* vmmcall64: VMMCALL round trips of a 64-bit L1 hypervisor. L1 enables SVM,
 * builds one VMCB for a 64-bit L2 that shares its page tables and GDT, then
 * ITERATIONS times: VMRUN -> the L2 executes VMMCALL -> #VMEXIT(VMMCALL) ->
 * L1 advances the guest rIP past the VMMCALL -> VMRUN again. After the first
 * VMRUN the VMCB clean field is all ones, as a hypervisor that edits nothing
 * but rIP (never cached, APM2 15.15.3) would write it. The count of round
 * trips is left in EDI for the runner; then debug-exit 0.
 * VMCB offsets: APM2 Appendix B, Tables B-1 and B-2. */
#include "lm_entry.h"
#define ITERATIONS 1000000

#define MSR_EFER        0xc0000080
#define MSR_VM_HSAVE_PA 0xc0010117
#define EFER_SVME       0x1000

main64:
	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_SVME, %eax
	wrmsr
	movl $MSR_VM_HSAVE_PA, %ecx
	movl $hsave, %eax
	xorl %edx, %edx
	wrmsr

	movl $vmcb, %ebx
	movl $3, 0x010(%rbx)                    /* intercepts: VMRUN, VMMCALL */
	movl $1, 0x058(%rbx)                    /* ASID 1 */
	/* CS 08H (64-bit code: attributes 9BH | G, L), SS/DS/ES 10H (93H | G, B). */
	movl $0x0a9b0008, 0x410(%rbx)
	movl $0xffffffff, 0x414(%rbx)
	movl $0x0c930010, %eax
	movl %eax, 0x400(%rbx)
	movl %eax, 0x420(%rbx)
	movl %eax, 0x430(%rbx)
	movl $0xffffffff, 0x404(%rbx)
	movl $0xffffffff, 0x424(%rbx)
	movl $0xffffffff, 0x434(%rbx)
	movzwl lm_gdtr(%rip), %eax                   /* GDTR limit, base */
	movl %eax, 0x464(%rbx)
	movl lm_gdtr + 2(%rip), %eax
	movl %eax, 0x468(%rbx)
	movl $0x1500, 0x4d0(%rbx)               /* EFER: SVME, LMA, LME */
	movq %cr4, %rax
	movq %rax, 0x548(%rbx)
	movq %cr3, %rax
	movq %rax, 0x550(%rbx)
	movq %cr0, %rax
	movq %rax, 0x558(%rbx)
	movl $0x400, 0x560(%rbx)                /* DR7 */
	movl $0xffff0ff0, 0x568(%rbx)           /* DR6 */
	movl $2, 0x570(%rbx)                    /* RFLAGS */
	movl $guest, 0x578(%rbx)                /* RIP */
	movl $guest_stack_top, 0x5d8(%rbx)      /* RSP */
	movabsq $0x0007040600070406, %rax       /* G_PAT (power-on PAT) */
	movq %rax, 0x668(%rbx)

	movl $ITERATIONS * SCALE, %r12d
	xorl %edi, %edi
	movq %rbx, %rax
1:	vmrun %rax
	addq $3, 0x578(%rbx)                    /* rIP past the VMMCALL */
	movl $0xffffffff, 0x0c0(%rbx)           /* clean: nothing else changed */
	incl %edi
	decl %r12d
	jnz 1b

	cmpl $0x81, 0x070(%rbx)                 /* the last EXITCODE: VMMCALL */
	jne 3f
	movb $0, %al
	outb %al, $DEBUG_EXIT_PORT
3:	movb $1, %al
	outb %al, $DEBUG_EXIT_PORT
2:	hlt
	jmp 2b

/* The L2: VMMCALL forever; each one is a round trip. */
guest:
	vmmcall
	jmp guest

	.section .bss
	.align 4096
vmcb:	.skip 4096
hsave:	.skip 4096
	.skip 4096
guest_stack_top:

	.section .text
