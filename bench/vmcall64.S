/* vmcall64: VMCALL round trips of a 64-bit L1 hypervisor on Intel VMX, the
 * mirror of vmmcall64. L1 enables VMX (IA32_FEATURE_CONTROL, CR4.VMXE,
 * CR0.NE), VMXON, writes one VMCS for a 64-bit L2 that shares its page tables
 * and GDT (with VMWRITE, the controls at the default1 settings of the TRUE_*
 * capability MSRs, "enable VPID" with VPID 1 as KVM runs its guests), then
 * ITERATIONS times: VMRESUME (the first: VMLAUNCH) -> the L2 executes VMCALL
 * -> VM exit (reason 18) -> L1 reads the exit instruction length and the
 * guest RIP, writes RIP past the VMCALL -> VMRESUME. The count of round trips
 * is left in EDI for the runner; then debug-exit 0 if the last exit reason
 * was VMCALL. Field encodings: SDM Vol.3 Appendix B; controls: 24.6-24.8,
 * Appendix A. */
#include "lm_entry.h"
#define ITERATIONS 1000000

#define MSR_FEATURE_CONTROL      0x3a
#define MSR_VMX_BASIC            0x480
#define MSR_VMX_TRUE_PINBASED    0x48d
#define MSR_VMX_TRUE_PROCBASED   0x48e
#define MSR_VMX_TRUE_EXIT        0x48f
#define MSR_VMX_TRUE_ENTRY       0x490

/* VMWRITE to field enc of a 32-bit immediate or symbol (zero-extended: a
 * 32-bit ELF has no 64-bit absolute relocation), or of a 64-bit register. */
.macro vmw enc, val
	movl $\enc, %ecx
	movl \val, %eax
	vmwrite %rax, %rcx
.endm
.macro vmwr enc, reg
	movl $\enc, %ecx
	vmwrite \reg, %rcx
.endm

/* The default1 controls of a TRUE_* capability MSR (its low half) into EAX. */
.macro default1 msr
	movl $\msr, %ecx
	rdmsr
.endm

main64:
	movl $MSR_FEATURE_CONTROL, %ecx          /* lock | VMX outside SMX */
	movl $5, %eax
	xorl %edx, %edx
	wrmsr
	movq %cr4, %rax
	orl $0x2000, %eax                        /* CR4.VMXE */
	movq %rax, %cr4
	movq %cr0, %rax
	orl $0x20, %eax                          /* CR0.NE (fixed to 1 in VMX operation) */
	movq %rax, %cr0

	movl $MSR_VMX_BASIC, %ecx                /* the revision identifier, 30:0 */
	rdmsr
	movl %eax, vmxon_region(%rip)
	movl %eax, vmcs(%rip)
	vmxon vmxon_pa(%rip)
	vmclear vmcs_pa(%rip)
	vmptrld vmcs_pa(%rip)

	/* Controls: default1, secondary controls with VPID, a 64-bit host, an
	 * IA-32e mode guest. */
	default1 MSR_VMX_TRUE_PINBASED
	movl %eax, %ebx
	vmwr 0x4000, %rbx
	default1 MSR_VMX_TRUE_PROCBASED
	orl $0x80000000, %eax                    /* activate secondary controls */
	movl %eax, %ebx
	vmwr 0x4002, %rbx
	vmw 0x401e, $0x20                        /* enable VPID */
	vmw 0x0000, $1                           /* VPID 1 */
	default1 MSR_VMX_TRUE_EXIT
	orl $0x200, %eax                         /* host address-space size */
	movl %eax, %ebx
	vmwr 0x400c, %rbx
	default1 MSR_VMX_TRUE_ENTRY
	orl $0x200, %eax                         /* IA-32e mode guest */
	movl %eax, %ebx
	vmwr 0x4012, %rbx

	/* Host state: L1 itself, back at 1f. */
	movq %cr0, %rbx
	vmwr 0x6c00, %rbx
	vmwr 0x6800, %rbx                         /* guest CR0 */
	movq %cr3, %rbx
	vmwr 0x6c02, %rbx
	vmwr 0x6802, %rbx                         /* guest CR3 */
	movq %cr4, %rbx
	vmwr 0x6c04, %rbx
	vmwr 0x6804, %rbx                         /* guest CR4 */
	vmw 0x0c02, $0x08                        /* CS */
	vmw 0x0c04, $0x10                        /* SS */
	vmw 0x0c06, $0x10                        /* DS */
	vmw 0x0c00, $0x10                        /* ES */
	vmw 0x0c0c, $0x18                        /* TR */
	vmw 0x6c0a, $tss                         /* TR base */
	movl lm_gdtr + 2(%rip), %ebx
	vmwr 0x6c0c, %rbx                         /* GDTR base */
	vmwr 0x6816, %rbx                         /* guest GDTR base */
	vmw 0x6c14, $host_stack_top              /* RSP */
	vmw 0x6c16, $1f                          /* RIP */

	/* Guest state: CS 08H (64-bit code), SS/DS/ES 10H (flat data), FS, GS
	 * and LDTR unusable, TR 18H a busy TSS. */
	vmw 0x0802, $0x08
	vmw 0x4816, $0xa09b
	vmw 0x4802, $0xffffffff
	vmw 0x0804, $0x10
	vmw 0x4818, $0xc093
	vmw 0x4804, $0xffffffff
	vmw 0x0806, $0x10
	vmw 0x481a, $0xc093
	vmw 0x4806, $0xffffffff
	vmw 0x0800, $0x10
	vmw 0x4814, $0xc093
	vmw 0x4800, $0xffffffff
	vmw 0x481c, $0x10000                     /* FS unusable */
	vmw 0x481e, $0x10000                     /* GS unusable */
	vmw 0x4820, $0x10000                     /* LDTR unusable */
	vmw 0x080e, $0x18
	vmw 0x4822, $0x8b
	vmw 0x480e, $0x67
	vmw 0x6814, $tss
	movzwl lm_gdtr(%rip), %ebx
	vmwr 0x4810, %rbx                         /* GDTR limit */
	vmw 0x4812, $0xffff                      /* IDTR limit */
	vmw 0x681a, $0x400                       /* DR7 */
	vmw 0x6820, $2                           /* RFLAGS */
	vmw 0x681e, $guest                       /* RIP */
	vmw 0x681c, $guest_stack_top             /* RSP */
	movq $-1, %rbx
	vmwr 0x2800, %rbx                        /* VMCS link pointer: none */

	movl $ITERATIONS * SCALE, %r12d
	xorl %edi, %edi
	vmlaunch
	jmp 3f                                   /* VMfail: not counted */

	/* The VM exit: RIP past the VMCALL, as a VMM does. */
1:	movl $0x440c, %ecx                       /* VM-exit instruction length */
	vmread %rcx, %rax
	movl $0x681e, %ecx                       /* guest RIP */
	vmread %rcx, %rbx
	addq %rax, %rbx
	vmwrite %rbx, %rcx
	incl %edi
	decl %r12d
	jz 2f
	vmresume
	jmp 3f

2:	movl $0x4402, %ecx                       /* the last exit reason: VMCALL */
	vmread %rcx, %rax
	cmpl $18, %eax
	jne 3f
	movb $0, %al
	outb %al, $DEBUG_EXIT_PORT
3:	movb $1, %al
	outb %al, $DEBUG_EXIT_PORT
4:	hlt
	jmp 4b

/* The L2: VMCALL forever; each one is a round trip. */
guest:
	vmcall
	jmp guest

	.section .data
	.align 8
vmxon_pa: .long vmxon_region, 0
vmcs_pa:  .long vmcs, 0

	.section .bss
	.align 4096
vmxon_region: .skip 4096
vmcs:	.skip 4096
tss:	.skip 4096
	.skip 4096
guest_stack_top:
	.skip 4096
host_stack_top:

	.section .text
