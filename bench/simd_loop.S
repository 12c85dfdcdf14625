/* simd_loop: SSE and AVX instructions in a loop (issue 21's SSE/AVX
 * benchmark): 256-bit VADDPS/VMULPS/VXORPS, 128-bit PADDD/PXOR/PSHUFD, VEX and
 * legacy mixed, then DEC/JNZ: 8 instructions per iteration, ITERATIONS times.
 * The registers hold zeros, so no operation meets a special value. Enables
 * SSE (CR0.EM = 0, CR4.OSFXSR) and AVX (CR4.OSXSAVE, XCR0 = x87|SSE|AVX);
 * without AVX in CPUID it writes 1 to the debug-exit port (a failed run). */
#include "mb_entry.h"
#define ITERATIONS 10000000

	.globl _start
_start:
	movl $1, %eax
	cpuid
	movl $(1 << 28) | (1 << 26), %eax    /* CPUID.1:ECX.AVX, XSAVE */
	andl %eax, %ecx
	cmpl %eax, %ecx
	jne 3f
	movl %cr0, %eax
	andl $~(1 << 2), %eax                /* EM = 0 */
	orl $(1 << 1), %eax                  /* MP = 1 */
	movl %eax, %cr0
	movl %cr4, %eax
	orl $(1 << 9) | (1 << 10) | (1 << 18), %eax    /* OSFXSR, OSXMMEXCPT, OSXSAVE */
	movl %eax, %cr4
	xorl %ecx, %ecx
	xorl %edx, %edx
	movl $7, %eax                        /* XCR0 = x87 | SSE | AVX */
	xsetbv
	vxorps %ymm0, %ymm0, %ymm0
	vxorps %ymm1, %ymm1, %ymm1
	vxorps %ymm2, %ymm2, %ymm2
	pxor %xmm3, %xmm3
	pxor %xmm4, %xmm4
	movl $ITERATIONS * SCALE, %ecx
1:	vaddps %ymm1, %ymm0, %ymm0
	vmulps %ymm2, %ymm1, %ymm1
	paddd %xmm3, %xmm4
	vxorps %ymm0, %ymm2, %ymm2
	pxor %xmm4, %xmm3
	pshufd $0x1b, %xmm3, %xmm5
	decl %ecx
	jnz 1b
	movb $0, %al
	outb %al, $DEBUG_EXIT_PORT
2:	hlt
	jmp 2b
3:	movb $1, %al
	outb %al, $DEBUG_EXIT_PORT
	jmp 2b
