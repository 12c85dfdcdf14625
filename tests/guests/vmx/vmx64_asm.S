/* 64-bit pieces of vmx64 (see vmx64.c): VMX instructions executed in 64-bit
 * mode with 64-bit operands, far-called by CALL64 from compatibility mode.
 * Each presets the six arithmetic flags to 1 and stores what the instruction
 * left in x64_flags (SDM Vol.3 30.2); operands and results are in x64_enc,
 * x64_val and x64_ptr. */
#include "lib/long64.h"

	.text
	.code64

.macro VMX64 name, insn:vararg
ENTRY64 \name
	push %rbx
	movq x64_enc(%rip), %rax
	movq x64_val(%rip), %rbx
	pushq $0x8d7
	popfq
	\insn
	pushfq
	popq %rcx
	andl $0x8d5, %ecx
	movl %ecx, x64_flags(%rip)
	movq %rbx, x64_val(%rip)
	pop %rbx
	lretl
.endm

VMX64 x64_vmxon, vmxon x64_ptr(%rip)
VMX64 x64_vmxoff, vmxoff
VMX64 x64_vmclear, vmclear x64_ptr(%rip)
VMX64 x64_vmptrld, vmptrld x64_ptr(%rip)
/* VMREAD r/m64, r64: the encoding in RAX, the value to RBX. */
VMX64 x64_vmread, vmread %rax, %rbx
/* VMWRITE r64, r/m64: the encoding in RAX, the value from RBX. */
VMX64 x64_vmwrite, vmwrite %rbx, %rax

	.section .note.GNU-stack,"",@progbits
