/* The 64-bit run's encoder: registers by role, r/m operands whose addresses
 * are known when the bytes are generated, and one function that writes an
 * instruction with its prefixes, REX, ModRM, SIB, displacement and immediate.
 *
 * Register roles (set up by gen_case64):
 *   data:  RAX RCX RDX RBX RBP R8 R9 R10 R11 R14 (random, freely written)
 *   RSI/RDI  pointers into the scratch page, moved only by string instructions
 *            (their movement is bounded by g->drift);
 *   R12    a 16-byte aligned pointer, R13 a small index (0..63),
 *   R15    upper half random, low half F0xxxxxxH: used only as the 32-bit base
 *          [R15D+disp32] under 67, where the sum wraps into the scratch page;
 *   RSP    the stack: g->pushed bytes below DIFF_STACK_TOP.
 * Any register may be read (sources, LEA terms, SPL/SIL/DIL).
 */
#ifndef HVEMU_TESTS_DIFF_ENC64_H
#define HVEMU_TESTS_DIFF_ENC64_H

#include "tests/diff/gen.h"

/* Prefixes encode() emits, in this order after an optional dead REX and segment
 * override: F0, 66, F3, F2, 67. */
enum { P_LOCK = 1, P_66 = 2, P_F3 = 4, P_F2 = 8, P_67 = 16 };

/* Byte registers: 0-15 as encoded with a REX prefix (4-7 = SPL BPL SIL DIL),
 * AH_BASE+4..7 = AH CH DH BH (encodings 4-7 without REX). An instruction uses
 * one of the two sets (rexmode), since a REX prefix changes what 4-7 mean. */
#define AH_BASE 16u

/* An r/m operand: a register or a memory form with everything it encodes. */
struct rm {
	bool mem;
	unsigned reg;              /* register number when !mem (AH_BASE+n for AH..BH) */
	uint8_t rexxb;             /* REX.X / REX.B the operand needs */
	bool a32;                  /* 67: 32-bit address */
	uint8_t mod, rm;           /* ModRM mod and rm fields */
	bool has_sib;
	uint8_t sib;
	unsigned disp_len;
	uint32_t disp;
	bool riprel;               /* disp is patched to reach target at the insn end */
	uint32_t target;
};

static inline struct rm reg_rm(unsigned reg)
{
	struct rm r = { .reg = reg, .mod = 3, .rm = reg & 7, .rexxb = (reg & 8) && reg < AH_BASE ? 1 : 0 };
	return r;
}

/* Does the operand force "no REX" (AH..BH) or need one (SPL..DIL)? */
static inline bool needs_rex(unsigned reg) { return reg >= 4 && reg < 8; }

/* The prefix for an operand size (with REX.W for 8): 66 for 16 bits, and
 * sometimes 66 with REX.W too, which REX.W overrides (SDM Vol.2 2.2.1.2). */
static inline unsigned osize_pfx(struct gen *g, unsigned size)
{
	return size == 2 || (size == 8 && pick(g, 8) == 0) ? P_66 : 0;
}

/* rexmode for byte operands: with REX (SPL..DIL, R8B..) or without (AH..BH). */
static inline bool pick_rexmode(struct gen *g, unsigned size) { return size != 1 || pick(g, 2); }

/* An empty REX is needed only when a byte register 4-7 must mean SPL..DIL. */
static inline bool force_rex(unsigned size, bool rexmode, unsigned reg, const struct rm *rm)
{
	if (size != 1 || !rexmode)
		return false;
	return needs_rex(reg) || (rm && !rm->mem && needs_rex(rm->reg));
}

unsigned dreg(struct gen *g);                          /* a data register */
unsigned sreg(struct gen *g);                          /* any register, to read */
unsigned wreg(struct gen *g, unsigned size, bool rexmode);   /* writable, of size bytes */
unsigned rreg(struct gen *g, unsigned size, bool rexmode);   /* readable, of size bytes */
unsigned rand_size(struct gen *g);                     /* 1, 2, 4 or 8, mostly 8 */
uint64_t rand_imm(struct gen *g, unsigned size);

void encode(struct gen *g, unsigned pfx, bool w, bool force_rex, unsigned reg, uint32_t op, unsigned n,
	    const struct rm *rm, uint64_t imm, unsigned imm_len);
/* A VEX-encoded instruction (SDM Vol.2 2.3.5, Figure 2-9), always the
 * three-byte C4 form (the maps 0F38/0F3A need it): [67] C4, R X B map, W
 * vvvv L pp, the opcode, then ModRM and what follows as encode() writes it.
 * pp 0-3 (none, 66, F3, F2), map 1-3, L 0 (128-bit) or 1 (256-bit), vvvv
 * the extra register, imm8 or -1. */
void encode_vex3(struct gen *g, unsigned pp, unsigned map, bool w, unsigned l, unsigned vvvv, unsigned reg,
		 unsigned op, const struct rm *rm, int imm8);
struct rm mem_rm(struct gen *g, unsigned span, unsigned align, bool allow_rex, bool allow_rsp);
struct rm dst_rm(struct gen *g, unsigned size, bool rexmode, bool allow_mem);
struct rm src_rm(struct gen *g, unsigned size, bool rexmode);
struct rm any_rm(struct gen *g);
void mov_imm(struct gen *g, unsigned reg, uint64_t v);       /* MOV r64, imm64 */
void mov_imm32(struct gen *g, unsigned reg, uint32_t v);     /* MOV r32, imm32 */

/* The SSE/SSE2 family (gen_sse.c). */
void gen_sse(struct gen *g);

#endif
