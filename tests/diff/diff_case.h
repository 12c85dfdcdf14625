/* One host-differential case as it travels between the test (64-bit) and the
 * native 32-bit helper over a pipe: registers, EFLAGS, the code, and the data
 * the code may touch. Both sides place everything at the same linear
 * addresses, so pointers in registers mean the same thing in hvemu and on the
 * host. */
#ifndef HVEMU_TESTS_DIFF_CASE_H
#define HVEMU_TESTS_DIFF_CASE_H

#include <stdint.h>

#define DIFF_CODE_ADDR 0x00100000u   /* code page (code + terminator) */
#define DIFF_CODE_MAX 1024u
#define DIFF_DATA_ADDR 0x00200000u   /* scratch page, then the stack page */
#define DIFF_DATA_SIZE 0x2000u
#define DIFF_STACK_TOP 0x00201c00u   /* initial ESP, inside the stack page */

/* Registers in enum gpr order: EAX ECX EDX EBX ESP EBP ESI EDI. */
struct diff_state {
	uint32_t regs[8];
	uint32_t eflags;
	uint8_t data[DIFF_DATA_SIZE];
};

struct diff_request {
	struct diff_state in;
	uint32_t code_len;
	uint8_t code[DIFF_CODE_MAX];
};

#endif
