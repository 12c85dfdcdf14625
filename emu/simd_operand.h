/* The operands of the SSE3..SHA extension instructions (emu/ssse3.c,
 * emu/sse4.c, emu/sse_string.c, emu/crypto.c): V (ModRM.reg) and W (ModRM.rm
 * or memory) of the XMM forms, and P/Q of the MMX forms of SSSE3, with the
 * gates of each (SDM Vol.3 2.5 Table 2-2; Vol.2 Table 2-21 "Type 4": legacy-SSE
 * 128-bit memory operands 16-byte aligned or #GP(0) unless the instruction
 * page says otherwise). The CPUID feature is the row's (emu/isa). */
#ifndef HVEMU_EMU_SIMD_OPERAND_H
#define HVEMU_EMU_SIMD_OPERAND_H

#include "emu/cpu.h"
#include "emu/fpu_state.h"
#include "emu/insn.h"

struct simd_args {
	union xmm_reg d;           /* the destination's value (MMX: q[0], q[1] = 0) */
	union xmm_reg s;           /* the source's (memory: src_bytes of it, rest 0) */
	bool mmx;                  /* the MMX form: 8-byte registers */
};

/* Source alignment choices for simd_load: none, legacy SSE's 16 bytes, and
 * exception type 1's (MOVNTDQA), which its VEX form keeps (16 or 32 bytes). */
enum { SIMD_ANY = 0, SIMD_ALIGNED = 16, SIMD_ALIGNED_VEX = 17 };

/* Gate (MMX: mmx_gate; XMM: #UD CR0.EM / CR4.OSFXSR = 0, #NM CR0.TS), then read
 * the destination register and the source (src_bytes from memory with
 * alignment align).
 * The VEX forms (in->vex) share the handlers: avx_gate's checks instead (SDM
 * Vol.2 Table 2-18) with CPUID.1:ECX.AVX, d from VEX.vvvv (the first source),
 * no alignment but type 1's, and with VEX_UPPER_LANE bits 255:128 of the
 * registers and the memory operand's second 16 bytes. */
status_t simd_load(struct cpu *cpu, const struct insn *in, bool mmx, unsigned src_bytes, unsigned align,
		   struct simd_args *a) CHECKED;
/* The XMM gate alone (#UD CR0.EM / CR4.OSFXSR = 0, #NM CR0.TS; a VEX form:
 * simd_load's), for the forms with a general-register or narrow memory operand. */
status_t simd_gate_xmm(struct cpu *cpu, const struct insn *in) CHECKED;

/* XMM register n, or bits 255:128 of YMMn for the upper lane. */
union xmm_reg *simd_lane_reg(struct cpu *cpu, const struct insn *in, unsigned n);

/* Write r to the destination register (MMX: low quadword, then TOP = 0 and the
 * tags valid, emu/mmx.c; VEX.128: bits 255:128 zeroed, SDM Vol.2 2.3.10; the
 * upper lane: bits 255:128). */
void simd_store(struct cpu *cpu, const struct insn *in, const struct simd_args *a, const union xmm_reg *r);

/* The width in bytes of the form. */
static inline unsigned simd_bytes(const struct simd_args *a) { return a->mmx ? 8 : 16; }

#endif
