/* One host-differential case as it travels between the test and its native
 * helper (a forked child) over a pipe: the mode, registers, RFLAGS, XMM
 * registers and MXCSR, the code, and the data the code may touch. Both sides
 * place everything at the same linear addresses, so pointers in registers mean
 * the same thing in hvemu and on the host. */
#ifndef HVEMU_TESTS_DIFF_CASE_H
#define HVEMU_TESTS_DIFF_CASE_H

#include <stdint.h>

#define DIFF_CODE_ADDR 0x00100000u   /* code page (code + terminator) */
#define DIFF_CODE_MAX 1024u
#define DIFF_DATA_ADDR 0x00200000u   /* scratch page, then the stack page */
#define DIFF_DATA_SIZE 0x2000u
#define DIFF_STACK_TOP 0x00201c00u   /* initial rSP, inside the stack page */

/* hvemu's mode for the case (the host always runs the bytes in 64-bit mode). */
enum diff_mode {
	DIFF_MODE32,   /* flat 32-bit protected mode; sequences mean the same in both */
	DIFF_MODE64,   /* 64-bit mode: real 64-bit code, XMM0-15 and MXCSR compared */
};

/* The x87 state, as FNSAVE stores it in the 32-bit protected-mode format (SDM
 * Vol.1 8.1.10, Figure 8-9), registers in stack order. On the host's exception
 * path it comes from the signal frame's FXSAVE64/XSAVE image, which holds
 * neither FCS nor FDS, only says which registers are empty (the tags of the
 * others are then derived from their contents, as FNSAVE would), and on AMD
 * processors holds FOP, FIP and FDP only while an exception is pending (ES = 1;
 * APM2 11.4.4.3, "FXSAVE and FXRSTOR"): what is missing is not compared.
 * Newer Intel hosts keep FOP, and with CPUID.(EAX=07H,ECX=0):EBX[6] FDP too,
 * only for an instruction that incurred an unmasked exception, and with
 * EBX[13] store zero for FCS and FDS (SDM Vol.1 8.1.8, 8.1.9): hvemu keeps
 * them for every non-control instruction, so those are not compared there. */
enum { X87_NO_SELECTORS = 1, X87_NO_POINTERS = 2, X87_NO_FOP = 4, X87_NO_FDP = 8 };
struct diff_x87 {
	uint16_t fcw, fsw, ftw, fop;
	uint32_t fip, fdp;
	uint16_t fcs, fds;
	uint8_t st[8][10];         /* ST(0)..ST(7) */
	uint32_t unknown;          /* X87_NO_*: fields the host's image lacks */
};

/* Registers in enum gpr order: RAX RCX RDX RBX RSP RBP RSI RDI R8..R15. */
struct diff_state {
	uint64_t regs[16];
	uint64_t rflags;
	uint32_t mxcsr;
	int32_t vector;            /* the exception that ended the run, or -1 */
	uint64_t error_code;       /* with vector: its error code (0 if none) */
	uint64_t fault_rip;        /* with vector: the RIP its frame holds */
	uint64_t cr2;              /* with #PF: the faulting address */
	uint8_t xmm[16][16];
	uint8_t ymm_hi[16][16];    /* bits 255:128 of YMM0-15 (compared in diff_request.avx cases) */
	struct diff_x87 x87;       /* compared in cases that use the x87 (diff_request.x87) */
	uint8_t data[DIFF_DATA_SIZE];
};

struct diff_request {
	uint32_t mode;             /* enum diff_mode */
	uint32_t code_len;
	uint32_t x87;              /* the code sets up and uses the x87: compare its state */
	uint32_t avx;              /* AVX code (host_diff -m avx2): CR4.OSXSAVE and XCR0 = 7 in hvemu,
				      whole YMM registers compared */
	struct diff_state in;
	uint8_t code[DIFF_CODE_MAX];
};

#endif
