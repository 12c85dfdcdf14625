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
	uint8_t data[DIFF_DATA_SIZE];
};

struct diff_request {
	uint32_t mode;             /* enum diff_mode */
	uint32_t code_len;
	struct diff_state in;
	uint8_t code[DIFF_CODE_MAX];
};

#endif
