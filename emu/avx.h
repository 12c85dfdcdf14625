/* The VEX-encoded SIMD instructions (AVX, AVX2, FMA, F16C): the checks of the
 * CPU's state every one of them makes before its own (SDM Vol.2 2.4, exception
 * types 1-12), and the YMM operands. The decoder has applied the rules of the
 * bytes (emu/decode.c decode_vex: LOCK/66/F2/F3/REX before VEX, VEX.L/W/vvvv a
 * row does not take); the row's CPUID feature is the dispatcher's. */
#ifndef HVEMU_EMU_AVX_H
#define HVEMU_EMU_AVX_H

#include "emu/cpu.h"
#include "emu/fpu_state.h"
#include "emu/insn.h"

/* SDM Vol.2 Table 2-18 (and every type to 2-29 but 13): #UD in real-address
 * and virtual-8086 mode, if CR4.OSXSAVE = 0, or if XCR0[2:1] != 11b; then #NM
 * if CR0.TS = 1. CR0.EM and CR4.OSFXSR, which gate legacy SSE, are not
 * checked. */
status_t avx_gate(struct cpu *cpu) CHECKED;

/* The operand width of the form in bytes: 32 with VEX.L = 1, else 16. */
static inline unsigned avx_bytes(const struct insn *in) { return in->vex & VEX_L256 ? 32 : 16; }

/* YMMn as one value. */
static inline void ymm_get(const struct cpu *cpu, unsigned n, union ymm_reg *v)
{
	v->x[0] = cpu->fpu.xmm[n & 15];
	v->x[1] = cpu->fpu.ymm_hi[n & 15];
}

/* Write YMMn from a result of bytes (16 or 32) bytes: a VEX.128 destination has
 * bits 255:128 zeroed, a legacy SSE one keeps them (SDM Vol.2 2.3.10, "AVX
 * Instructions and the Upper 128-bits of YMM registers"). */
static inline void ymm_put(struct cpu *cpu, unsigned n, const union ymm_reg *v, unsigned bytes)
{
	cpu->fpu.xmm[n & 15] = v->x[0];
	if (bytes == 32)
		cpu->fpu.ymm_hi[n & 15] = v->x[1];
	else
		cpu->fpu.ymm_hi[n & 15] = (union xmm_reg){ .q = { 0, 0 } };
}

/* The W operand (ModRM.rm register, or bytes of memory with alignment align,
 * 0 for none) into *out, bytes past a memory operand's width zero. Alignment
 * is the exception type's: only type 1 (VMOVAPS, VMOVDQA, VMOVNT*) asks for
 * it (SDM Vol.2 Table 2-18: VEX.256 32 bytes, VEX.128 16). */
status_t avx_read_w(struct cpu *cpu, const struct insn *in, unsigned bytes, unsigned align,
		    union ymm_reg *out) CHECKED;
/* Store bytes of v to the W operand: a register is written with ymm_put's
 * zeroing, memory all or nothing. */
status_t avx_write_w(struct cpu *cpu, const struct insn *in, const union ymm_reg *v, unsigned bytes,
		     unsigned align) CHECKED;

#endif
