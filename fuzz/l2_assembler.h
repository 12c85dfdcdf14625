/* The byte-level emitter both exit fuzzers (svm_exit_assemble.c,
 * vmx_exit_assemble.c) build their L2 templates with: a buffer of L2 code,
 * single bytes, little-endian immediates, MOV of an immediate, the segment
 * override prefixes and a general register that is not rSP. */
#ifndef HVEMU_FUZZ_L2_ASSEMBLER_H
#define HVEMU_FUZZ_L2_ASSEMBLER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define L2_CODE_MAX 0x2000u        /* bytes of L2 code (two pages) */

struct assembler {
	uint8_t buf[L2_CODE_MAX];
	unsigned len;
	bool m64;
};

static inline void emit1(struct assembler *as, uint8_t b)
{
	as->buf[as->len++] = b;
}

static inline void emit(struct assembler *as, const uint8_t *b, unsigned n)
{
	if (!n)
		return;                    /* b may be NULL then (no prefixes) */
	memcpy(as->buf + as->len, b, n);
	as->len += n;
}

static inline void emit32(struct assembler *as, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		emit1(as, (uint8_t)(v >> (8 * i)));
}

/* mov r32, imm32 (B8+r), REX.B for r8-r15 (zero-extends in 64-bit mode). */
static inline void mov_imm32(struct assembler *as, unsigned reg, uint32_t v)
{
	if (reg >= 8)
		emit1(as, 0x41);
	emit1(as, (uint8_t)(0xb8 + (reg & 7)));
	emit32(as, v);
}

/* mov r, imm: 64 bits in 64-bit mode (REX.W B8+r), else 32. */
static inline void mov_imm(struct assembler *as, unsigned reg, uint64_t v)
{
	if (!as->m64) {
		mov_imm32(as, reg, (uint32_t)v);
		return;
	}
	emit1(as, (uint8_t)(0x48 | (reg >= 8 ? 1 : 0)));
	emit1(as, (uint8_t)(0xb8 + (reg & 7)));
	emit32(as, (uint32_t)v);
	emit32(as, (uint32_t)(v >> 32));
}

/* ES, CS, SS, DS, FS, GS override prefixes, by segment register number. */
static const uint8_t seg_prefix[6] = { 0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65 };

/* A general register from an input byte: not rSP (the stack is tracked). */
static inline unsigned pick_gpr(bool m64, uint8_t b)
{
	static const uint8_t r32[] = { 0, 1, 2, 3, 5, 6, 7 };
	static const uint8_t r64[] = { 0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	return m64 ? r64[b % sizeof(r64)] : r32[b % sizeof(r32)];
}

#endif
