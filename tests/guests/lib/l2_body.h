/* An L2 code snippet of the nested-virtualization libraries (svm/lib_svm.h,
 * vmx/lib_vmx.h): pre, the instruction under test at `at`, post, then the
 * library's way out, L2_EXIT_INSN (defined before this header is included),
 * and UD2. `next` is the address after the instruction under test (what
 * nRIP, the I/O exit information and the instruction length report). */
#ifndef GUEST_L2_BODY_H
#define GUEST_L2_BODY_H

struct l2_body {
	const char *start, *at, *next;
};
#define L2_ASM(name, pre, insn, post)                                       \
	__asm__(".pushsection .text\n\t.code32\n\t.globl " #name "\n" #name ":\n\t" \
		pre "\n\t.globl " #name "_at\n" #name "_at:\n\t" insn               \
		"\n\t.globl " #name "_next\n" #name "_next:\n\t" post               \
		"\n\t" L2_EXIT_INSN "\n\tud2\n\t.popsection")
#define L2_BODY(name, pre, insn, post)                                      \
	L2_ASM(name, pre, insn, post);                                      \
	extern const char name[], name##_at[], name##_next[];               \
	static const struct l2_body name##_body = { name, name##_at, name##_next }
/* A body that is only the instruction under test. */
#define L2_INSN(name, insn) L2_BODY(name, "", insn, "")

#endif
