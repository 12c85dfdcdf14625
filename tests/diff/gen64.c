/* The 64-bit run's generator: random sequences of real 64-bit code that hvemu
 * runs in 64-bit mode (epyc-lite) and the host natively: REX.W operand size,
 * R8-R15, SPL/BPL/SIL/DIL versus AH..BH, 32-bit writes zero-extending (SDM
 * Vol.1 3.4.1.1), RIP-relative and SIB edge cases (SDM Vol.2 2.2.1), the 67
 * prefix (32-bit addresses that wrap at 4 GiB), and the SSE/SSE2 subset in
 * emu/isa/sse.isa on XMM0-15.
 *
 * Register roles, so every address is known when the bytes are generated:
 *   data:  RAX RCX RDX RBX RBP R8 R9 R10 R11 R14 (random, freely written)
 *   RSI/RDI  pointers into the scratch page, moved only by string instructions
 *            (their movement is bounded by g->drift);
 *   R12    a 16-byte aligned pointer, R13 a small index (0..63),
 *   R15    upper half random, low half F0xxxxxxH: used only as the 32-bit base
 *          [R15D+disp32] under 67, where the sum wraps into the scratch page;
 *   RSP    the stack: g->pushed bytes below DIFF_STACK_TOP.
 * Any register may be read (sources, LEA terms, SPL/SIL/DIL).
 *
 * Flags: epyc-lite models AMD's choices where the SDM leaves a flag undefined
 * (measured on the same kind of host: see emu/shift.c, muldiv.c, bitops.c), so
 * all six status flags and DF are compared after every sequence; g->undef still
 * tracks which of them the SDM leaves undefined, only to label a mismatch.
 * Results the SDM leaves undefined (BSF/BSR of 0, SHLD/SHRD beyond 16 bits of a
 * 16-bit operand) are generated too, for the same reason. Faults are avoided
 * by construction as in gen32.c.
 */
#include <string.h>

#include "tests/diff/gen.h"

#define STACK_BUDGET 0x300u    /* bytes pushed at most */
#define DRIFT_BUDGET 0x380u    /* how far RSI/RDI may move */
#define RSI_BASE (DIFF_DATA_ADDR + 0x400u)
#define RDI_BASE (DIFF_DATA_ADDR + 0xa00u)

enum { P_LOCK = 1, P_66 = 2, P_F3 = 4, P_F2 = 8, P_67 = 16 };

static const unsigned data_regs[] = { R_AX, R_CX, R_DX, R_BX, R_BP, R_R8, R_R9, R_R10, R_R11, R_R14 };
static unsigned dreg(struct gen *g) { return data_regs[pick(g, 10)]; }
/* Read-only positions may name any register. */
static unsigned sreg(struct gen *g) { return pick(g, 3) ? dreg(g) : pick(g, 16); }

/* Byte registers: 0-15 as encoded with a REX prefix (4-7 = SPL BPL SIL DIL),
 * AH_BASE+4..7 = AH CH DH BH (encodings 4-7 without REX). An instruction uses
 * one of the two sets (rexmode), since a REX prefix changes what 4-7 mean. */
#define AH_BASE 16u
static unsigned bwreg(struct gen *g, bool rexmode)
{
	if (rexmode) {
		static const unsigned w[] = { 0, 1, 2, 3, 5, 8, 9, 10, 11, 14 };
		return w[pick(g, 10)];
	}
	unsigned r = pick(g, 8);
	return r < 4 ? r : AH_BASE + r;
}
static unsigned brreg(struct gen *g, bool rexmode)
{
	if (rexmode)
		return pick(g, 3) ? bwreg(g, true) : pick(g, 16);
	return bwreg(g, false);
}
static unsigned wreg(struct gen *g, unsigned size, bool rexmode)
{
	return size == 1 ? bwreg(g, rexmode) : dreg(g);
}
static unsigned rreg(struct gen *g, unsigned size, bool rexmode)
{
	return size == 1 ? brreg(g, rexmode) : sreg(g);
}

/* --- the encoder --- */

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

static struct rm reg_rm(unsigned reg)
{
	struct rm r = { .reg = reg, .mod = 3, .rm = reg & 7, .rexxb = (reg & 8) && reg < AH_BASE ? 1 : 0 };
	return r;
}

/* Emit prefixes, REX, opcode bytes (big-endian in op, n bytes), ModRM with reg
 * (without rm: reg is the register in the opcode's low bits, already added),
 * the SIB/displacement of rm, then imm; patch a RIP-relative disp32 last.
 * force_rex: a byte register among 4-7 means SPL..DIL, or just an empty REX. */
static void encode(struct gen *g, unsigned pfx, bool w, bool force_rex, unsigned reg, uint32_t op, unsigned n,
		   const struct rm *rm, uint64_t imm, unsigned imm_len)
{
	bool a32 = (pfx & P_67) || (rm && rm->a32);
	/* SDM Vol.2 2.2.1: ES/CS/SS/DS overrides are ignored in 64-bit mode, and
	 * so is a REX prefix that a legacy prefix follows. */
	bool seg = rm && rm->mem && pick(g, 8) == 0;
	if ((pfx || a32 || seg) && pick(g, 16) == 0)
		emit(g, 0x40 | pick(g, 16));
	if (seg) emit(g, (const uint8_t[]){ 0x26, 0x2e, 0x36, 0x3e }[pick(g, 4)]);
	if (pfx & P_LOCK) emit(g, 0xf0);
	if (pfx & P_66) emit(g, 0x66);
	if (pfx & P_F3) emit(g, 0xf3);
	if (pfx & P_F2) emit(g, 0xf2);
	if (a32) emit(g, 0x67);
	/* REX.R extends ModRM.reg; without ModRM, REX.B extends the opcode's register. */
	unsigned rex = (w ? 8u : 0) | (reg < AH_BASE && (reg & 8) ? (rm ? 4u : 1u) : 0) | (rm ? rm->rexxb : 0);
	if (rex || force_rex)
		emit(g, 0x40 | rex);
	for (unsigned i = n; i-- > 0;)
		emit(g, (op >> (8 * i)) & 0xff);
	if (!rm) {
		emit_imm(g, imm, imm_len);
		return;
	}
	emit(g, (unsigned)(rm->mod << 6) | ((reg & 7) << 3) | rm->rm);
	if (rm->has_sib)
		emit(g, rm->sib);
	unsigned disp_at = g->len;
	emit_imm(g, rm->disp, rm->disp_len);
	emit_imm(g, imm, imm_len);
	if (rm->riprel) {
		/* SDM Vol.2 2.2.1.6: RIP-relative is relative to the next instruction. */
		uint32_t d = rm->target - (DIFF_CODE_ADDR + g->len);
		for (unsigned i = 0; i < 4; i++)
			g->code[disp_at + i] = (uint8_t)(d >> (8 * i));
	}
}

/* Does the operand force "no REX" (AH..BH) or need one (SPL..DIL)? */
static bool needs_rex(unsigned reg) { return reg >= 4 && reg < 8; }

/* A memory operand inside the data pages covering span bytes, aligned to align
 * (1 or 16). allow_rex: the instruction may carry REX.X/B (not with AH..BH);
 * allow_rsp: RSP-based forms (not for PUSH/POP, which move RSP themselves). */
static struct rm mem_rm(struct gen *g, unsigned span, unsigned align, bool allow_rex, bool allow_rsp)
{
	struct rm r = { .mem = true };
	/* 40H of slack below: BT* with a negative register offset reaches below. */
	uint32_t target = DIFF_DATA_ADDR + 0x40 + (pick(g, 0x1ec0 - span) & ~(align - 1));
	for (;;) {
		switch (pick(g, 13)) {
		case 0: case 1: {                   /* [RSI/RDI + d8], maybe 67 */
			if (align > 1)
				continue;
			int8_t d = (int8_t)(pick(g, 0x80) - 0x40);
			r.a32 = pick(g, 4) == 0;
			r.mod = 1, r.rm = pick(g, 2) ? 6 : 7;
			r.disp_len = 1, r.disp = (uint32_t)(int32_t)d;
			return r;
		}
		case 2: {                           /* [R12 + d8]: SIB, base R12 */
			if (!allow_rex)
				continue;
			int8_t d = (int8_t)((pick(g, 0x100) - 0x80) & ~(align - 1));
			r.rexxb = 1, r.mod = 1, r.rm = 4, r.has_sib = true, r.sib = 0x24;
			r.disp_len = 1, r.disp = (uint32_t)(int32_t)d;
			return r;
		}
		case 3: {                           /* [R12 + R13*s + d8], maybe 67 */
			if (!allow_rex)
				continue;
			unsigned s = pick(g, 4);
			uint32_t base = (uint32_t)(g->r12 + (g->r13 << s));
			int8_t d = (int8_t)(pick(g, 0x80) - 0x40);
			d = (int8_t)(d - (int8_t)((base + (uint32_t)d) & (align - 1)));
			r.a32 = pick(g, 3) == 0;
			r.rexxb = 3, r.mod = 1, r.rm = 4, r.has_sib = true, r.sib = (uint8_t)(s << 6 | 5 << 3 | 4);
			r.disp_len = 1, r.disp = (uint32_t)(int32_t)d;
			return r;
		}
		case 4: {                           /* [R13*s + disp32]: SIB base 101 with mod 00 is "no base", even with REX.B */
			if (!allow_rex)
				continue;
			unsigned s = pick(g, 4);
			r.rexxb = 2 | pick(g, 2), r.mod = 0, r.rm = 4, r.has_sib = true, r.sib = (uint8_t)(s << 6 | 5 << 3 | 5);
			r.disp_len = 4, r.disp = target - (uint32_t)(g->r13 << s);
			return r;
		}
		case 5:                             /* [R13 + disp32]: mod 10, rm 101 + REX.B */
			if (!allow_rex)
				continue;
			r.rexxb = 1, r.mod = 2, r.rm = 5;
			r.disp_len = 4, r.disp = target - (uint32_t)g->r13;
			return r;
		case 6: case 7:                     /* [RIP + disp32], REX.B does not change it */
			r.rexxb = allow_rex ? pick(g, 2) : 0, r.mod = 0, r.rm = 5;
			r.disp_len = 4, r.riprel = true, r.target = target;
			r.a32 = pick(g, 6) == 0;        /* [EIP + disp32] */
			return r;
		case 8:                             /* [disp32]: SIB with no base and no index */
			r.mod = 0, r.rm = 4, r.has_sib = true, r.sib = 0x25 | (uint8_t)(pick(g, 4) << 6);
			r.disp_len = 4, r.disp = target;
			return r;
		case 9:                             /* [R12 + R12*1 + disp32]: index 100 with REX.X is R12 */
			if (!allow_rex)
				continue;
			r.rexxb = 3, r.mod = 2, r.rm = 4, r.has_sib = true, r.sib = 0x24;
			r.disp_len = 4, r.disp = target - (uint32_t)(2 * g->r12);
			return r;
		case 10:                            /* 67 [R15D + disp32]: wraps at 4 GiB */
			if (!allow_rex)
				continue;
			r.a32 = true, r.rexxb = 1, r.mod = 2, r.rm = 7;
			r.disp_len = 4, r.disp = target - (uint32_t)g->r15;
			return r;
		case 11: {                          /* [RSP + d8] above the current stack top */
			if (!allow_rsp)
				continue;
			uint32_t sp = DIFF_STACK_TOP - g->pushed;
			unsigned d = 16 + pick(g, 0x60);
			d -= (sp + d) & (align - 1);
			r.mod = 1, r.rm = 4, r.has_sib = true, r.sib = 0x24;
			r.disp_len = 1, r.disp = d;
			return r;
		}
		default:                            /* [RSI + R13*s], no displacement */
			if (!allow_rex || align > 1)
				continue;
			r.rexxb = 2, r.mod = 0, r.rm = 4, r.has_sib = true;
			r.sib = (uint8_t)(pick(g, 4) << 6 | 5 << 3 | 6);
			return r;
		}
	}
}

/* A destination (writable register or memory) / a source r/m operand. */
static struct rm dst_rm(struct gen *g, unsigned size, bool rexmode, bool allow_mem)
{
	if (allow_mem && pick(g, 3) == 0)
		return mem_rm(g, size, 1, rexmode, true);
	return reg_rm(wreg(g, size, rexmode));
}
static struct rm src_rm(struct gen *g, unsigned size, bool rexmode)
{
	if (pick(g, 3) == 0)
		return mem_rm(g, size, 1, rexmode, true);
	return reg_rm(rreg(g, size, rexmode));
}

static unsigned rand_size(struct gen *g)
{
	static const unsigned s[] = { 1, 2, 4, 8, 8, 4, 8 };
	return s[pick(g, 7)];
}
static unsigned osize_pfx(unsigned size) { return size == 2 ? P_66 : 0; }
/* rexmode for byte operands: with REX (SPL..DIL, R8B..) or without (AH..BH). */
static bool pick_rexmode(struct gen *g, unsigned size) { return size != 1 || pick(g, 2); }
/* An empty REX is needed only when a byte register 4-7 must mean SPL..DIL. */
static bool force_rex(unsigned size, bool rexmode, unsigned reg, const struct rm *rm)
{
	if (size != 1 || !rexmode)
		return false;
	return needs_rex(reg) || (rm && !rm->mem && needs_rex(rm->reg));
}

static void mov_imm(struct gen *g, unsigned reg, uint64_t v)
{
	/* MOV r64, imm64 (REX.W B8+r) */
	emit(g, 0x48 | (reg >> 3));
	emit(g, 0xb8 + (reg & 7));
	emit_imm(g, v, 8);
}
static void mov_imm32(struct gen *g, unsigned reg, uint32_t v)
{
	/* MOV r32, imm32: zero-extends */
	if (reg & 8)
		emit(g, 0x41);
	emit(g, 0xb8 + (reg & 7));
	emit_imm(g, v, 4);
}

static uint64_t rand_imm(struct gen *g, unsigned size)
{
	uint64_t v = rnd64(g);
	switch (pick(g, 4)) {
	case 0: return v & 0xff;
	case 1: return (uint64_t)(int64_t)(int8_t)v;
	default: return size == 8 ? v : v & ((1ull << (size * 8)) - 1);
	}
}

/* --- instruction families --- */

/* ADD OR ADC SBB AND SUB XOR CMP in all their forms. */
static void gen_alu(struct gen *g, bool reg_only)
{
	unsigned size = rand_size(g), op = pick(g, 8), form = reg_only ? pick(g, 2) : pick(g, 5);
	bool rexmode = pick_rexmode(g, size), w = size == 8;
	unsigned pfx = osize_pfx(size), reg = wreg(g, size, rexmode);
	struct rm rm;
	switch (form) {
	case 0:                                     /* r/m, r */
		rm = reg_only ? reg_rm(wreg(g, size, rexmode)) : dst_rm(g, size, rexmode, true);
		reg = rreg(g, size, rexmode);
		if (rm.mem && op != 7 && pick(g, 4) == 0)
			pfx |= P_LOCK;
		encode(g, pfx, w, force_rex(size, rexmode, reg, &rm), reg, op * 8 + (size == 1 ? 0 : 1), 1, &rm, 0, 0);
		break;
	case 1:                                     /* r, r/m */
		rm = reg_only ? reg_rm(rreg(g, size, rexmode)) : src_rm(g, size, rexmode);
		encode(g, pfx, w, force_rex(size, rexmode, reg, &rm), reg, op * 8 + (size == 1 ? 2 : 3), 1, &rm, 0, 0);
		break;
	case 2: case 3: {                           /* r/m, imm (80/81/83) */
		bool sx = size != 1 && pick(g, 2);
		rm = dst_rm(g, size, rexmode, true);
		if (rm.mem && op != 7 && pick(g, 4) == 0)
			pfx |= P_LOCK;
		unsigned il = size == 1 || sx ? 1 : size == 2 ? 2 : 4;
		encode(g, pfx, w, force_rex(size, rexmode, 0, &rm), op, size == 1 ? 0x80 : sx ? 0x83 : 0x81, 1, &rm,
		       rnd64(g), il);
		break;
	}
	default:                                    /* AL/AX/EAX/RAX, imm (imm32 sign-extended for RAX) */
		encode(g, pfx, w, false, 0, op * 8 + (size == 1 ? 4 : 5), 1, NULL, rnd64(g),
		       size == 1 ? 1 : size == 2 ? 2 : 4);
		break;
	}
	bool logic = op == 1 || op == 4 || op == 6;
	flags_written(g, logic ? ARITH & ~FLAG_AF : ARITH, logic ? FLAG_AF : 0);
}

static void gen_unary(struct gen *g)
{
	unsigned size = rand_size(g), op = pick(g, 5);
	bool rexmode = pick_rexmode(g, size);
	struct rm rm = dst_rm(g, size, rexmode, true);
	unsigned pfx = osize_pfx(size) | (rm.mem && op < 4 && pick(g, 4) == 0 ? P_LOCK : 0);
	bool fr = force_rex(size, rexmode, 0, &rm);
	switch (op) {
	case 0: case 1:                             /* INC/DEC: CF unaffected */
		encode(g, pfx, size == 8, fr, op, size == 1 ? 0xfe : 0xff, 1, &rm, 0, 0);
		flags_written(g, ARITH & ~FLAG_CF, 0);
		break;
	case 2: case 3:                             /* NOT, NEG */
		encode(g, pfx, size == 8, fr, op, size == 1 ? 0xf6 : 0xf7, 1, &rm, 0, 0);
		if (op == 3)
			flags_written(g, ARITH, 0);
		break;
	default:                                    /* TEST r/m, imm / r/m, r */
		if (pick(g, 2)) {
			encode(g, osize_pfx(size), size == 8, fr, 0, size == 1 ? 0xf6 : 0xf7, 1, &rm, rnd64(g),
			       size == 1 ? 1 : size == 2 ? 2 : 4);
		} else {
			unsigned reg = rreg(g, size, rexmode);
			encode(g, osize_pfx(size), size == 8, force_rex(size, rexmode, reg, &rm), reg,
			       size == 1 ? 0x84 : 0x85, 1, &rm, 0, 0);
		}
		flags_written(g, ARITH & ~FLAG_AF, FLAG_AF);
		break;
	}
}

/* ROL ROR RCL RCR SHL SHR SAL SAR by 1, imm8 or CL; counts beyond the width. */
static void gen_shift(struct gen *g)
{
	unsigned size = rand_size(g), op = pick(g, 8), form = pick(g, 3), count = pick(g, 80);
	bool rexmode = pick_rexmode(g, size);
	if (form == 2)
		mov_imm32(g, R_CX, count | (rnd(g) & 0xffffff00u));   /* CL: only its low bits count */
	struct rm rm;
	do
		rm = dst_rm(g, size, rexmode, true);
	while (form == 2 && !rm.mem && (rm.reg == R_CX || rm.reg == AH_BASE + 5));
	bool fr = force_rex(size, rexmode, 0, &rm);
	unsigned pfx = osize_pfx(size);
	if (form == 0)
		encode(g, pfx, size == 8, fr, op, size == 1 ? 0xc0 : 0xc1, 1, &rm, count, 1);
	else if (form == 1)
		encode(g, pfx, size == 8, fr, op, size == 1 ? 0xd0 : 0xd1, 1, &rm, 0, 0), count = 1;
	else
		encode(g, pfx, size == 8, fr, op, size == 1 ? 0xd2 : 0xd3, 1, &rm, 0, 0);
	/* SDM SAL/SAR/SHL/SHR: the count is masked to 5 bits, 6 with REX.W. */
	unsigned masked = count & (size == 8 ? 0x3f : 0x1f);
	if (!masked)
		return;
	uint32_t of = masked == 1 ? FLAG_OF : 0;
	if (op <= 3) {
		flags_written(g, FLAG_CF | of, FLAG_OF & ~of);
	} else {
		uint32_t cf = masked < size * 8 ? FLAG_CF : 0;
		flags_written(g, FLAG_SF | FLAG_ZF | FLAG_PF | cf | of, FLAG_AF | (FLAG_OF & ~of) | (FLAG_CF & ~cf));
	}
}

static void gen_shxd(struct gen *g)
{
	unsigned size = pick(g, 3) ? 8 : pick(g, 2) ? 4 : 2, count = pick(g, 70);
	bool cl = pick(g, 2);
	if (cl)
		mov_imm32(g, R_CX, count);
	struct rm rm;
	unsigned src;
	do {
		rm = dst_rm(g, size, true, true);
		src = sreg(g);
	} while (cl && (src == R_CX || (!rm.mem && rm.reg == R_CX)));
	encode(g, osize_pfx(size), size == 8, false, src, 0x0fa4 + (pick(g, 2) ? 8 : 0) + cl, 2, &rm, count, cl ? 0 : 1);
	unsigned masked = count & (size == 8 ? 0x3f : 0x1f);
	if (masked) {
		uint32_t of = masked == 1 ? FLAG_OF : 0;
		/* SDM SHLD/SHRD: a count beyond the operand size leaves all undefined. */
		if (masked > size * 8)
			flags_written(g, 0, ARITH);
		else
			flags_written(g, FLAG_CF | FLAG_SF | FLAG_ZF | FLAG_PF | of, FLAG_AF | (FLAG_OF & ~of));
	}
}

static void gen_mul(struct gen *g)
{
	unsigned size = rand_size(g);
	bool rexmode = pick_rexmode(g, size);
	unsigned pfx = osize_pfx(size), form = size == 1 ? 0 : pick(g, 3);
	if (form == 0) {                            /* MUL/IMUL r/m: rDX:rAX or AX */
		struct rm rm = src_rm(g, size, rexmode);
		encode(g, pfx, size == 8, force_rex(size, rexmode, 0, &rm), 4 + pick(g, 2), size == 1 ? 0xf6 : 0xf7,
		       1, &rm, 0, 0);
	} else if (form == 1) {                     /* IMUL r, r/m */
		struct rm rm = src_rm(g, size, true);
		encode(g, pfx, size == 8, false, dreg(g), 0x0faf, 2, &rm, 0, 0);
	} else {                                    /* IMUL r, r/m, imm8/imm32 */
		struct rm rm = src_rm(g, size, true);
		bool i8 = pick(g, 2);
		encode(g, pfx, size == 8, false, dreg(g), i8 ? 0x6b : 0x69, 1, &rm, rnd64(g), i8 ? 1 : size == 2 ? 2 : 4);
	}
	flags_written(g, FLAG_CF | FLAG_OF, FLAG_SF | FLAG_ZF | FLAG_AF | FLAG_PF);
}

/* DIV/IDIV with a divisor and a dividend chosen so the quotient fits. */
static void gen_div(struct gen *g)
{
	unsigned size = rand_size(g);
	bool sign = pick(g, 2);
	uint64_t m = size == 8 ? ~0ull : (1ull << (size * 8)) - 1;
	uint64_t d = rnd64(g) & (m >> 1) >> pick(g, size * 8 - 1);
	if (d == 0)
		d = 3;
	static const unsigned divregs[] = { R_BX, R_BP, R_R8, R_R9, R_R10, R_R11, R_R14 };
	unsigned dr = size == 1 ? R_BX : divregs[pick(g, 7)];
	mov_imm(g, dr, d | (rnd64(g) & ~m));
	if (size == 1) {
		if (sign)
			emit(g, 0x66), emit(g, 0x98);       /* CBW */
		else
			emit(g, 0x0f), emit(g, 0xb6), emit(g, 0xc0);   /* MOVZX EAX, AL */
	} else if (sign) {
		encode(g, osize_pfx(size), size == 8, false, 0, 0x99, 1, NULL, 0, 0);   /* CWD/CDQ/CQO */
	} else {
		/* rDX below the divisor: the quotient fits (SDM DIV: #DE if it does not). */
		mov_imm(g, R_DX, (rnd64(g) & m) % d | (rnd64(g) & ~m));
	}
	struct rm rm = reg_rm(dr);
	if (pick(g, 3) == 0) {
		/* The divisor from memory: store it first. */
		rm = mem_rm(g, size, 1, true, true);
		encode(g, osize_pfx(size), size == 8, false, dr, size == 1 ? 0x88 : 0x89, 1, &rm, 0, 0);
	}
	encode(g, osize_pfx(size), size == 8, false, sign ? 7 : 6, size == 1 ? 0xf6 : 0xf7, 1, &rm, 0, 0);
	flags_written(g, 0, ARITH);
}

static void gen_bits(struct gen *g)
{
	unsigned size = pick(g, 3) ? 8 : pick(g, 2) ? 4 : 2, op = pick(g, 4);
	switch (pick(g, 4)) {
	case 0: {                                   /* BT* r/m, imm8 */
		struct rm rm = dst_rm(g, size, true, true);
		unsigned pfx = osize_pfx(size) | (rm.mem && op && pick(g, 4) == 0 ? P_LOCK : 0);
		encode(g, pfx, size == 8, false, 4 + op, 0x0fba, 2, &rm, pick(g, 256), 1);
		break;
	}
	case 1: {                                   /* BT* r/m, r */
		struct rm rm = dst_rm(g, size, true, true);
		unsigned pfx = osize_pfx(size) | (rm.mem && op && pick(g, 4) == 0 ? P_LOCK : 0);
		unsigned off = sreg(g);
		if (rm.mem && pick(g, 2)) {
			/* A signed bit offset in -128..127 addresses up to 16 bytes below or
			 * above the operand (SDM Vol.2 BT: "bit offset ... -2^63 to 2^63-1"). */
			off = dreg(g);
			mov_imm(g, off, (uint64_t)(int64_t)((int)pick(g, 256) - 128));
		} else if (rm.mem) {
			off = R_R13;                        /* 0..63 */
		}
		encode(g, pfx, size == 8, false, off, 0x0fa3 + op * 8, 2, &rm, 0, 0);
		break;
	}
	case 2: {                                   /* BSF/BSR, sometimes of zero */
		unsigned src = dreg(g);
		if (pick(g, 4) == 0) {
			struct rm z = reg_rm(src);          /* XOR r32, r32: a zero source */
			encode(g, 0, false, false, src, 0x31, 1, &z, 0, 0);
			flags_written(g, ARITH & ~FLAG_AF, FLAG_AF);
		}
		struct rm rm = pick(g, 3) ? reg_rm(src) : mem_rm(g, size, 1, true, true);
		encode(g, osize_pfx(size), size == 8, false, dreg(g), pick(g, 2) ? 0x0fbc : 0x0fbd, 2, &rm, 0, 0);
		flags_written(g, FLAG_ZF, FLAG_CF | FLAG_OF | FLAG_SF | FLAG_AF | FLAG_PF);
		return;
	}
	default: {                                  /* BSWAP r32/r64 (16-bit: AMD clears it) */
		unsigned r = dreg(g), sz = pick(g, 8) ? (pick(g, 2) ? 8 : 4) : 2;
		encode(g, osize_pfx(sz), sz == 8, false, r, 0x0fc8 + (r & 7), 2, NULL, 0, 0);
		return;
	}
	}
	flags_written(g, FLAG_CF, FLAG_OF | FLAG_SF | FLAG_AF | FLAG_PF);
}

static void gen_cond(struct gen *g)
{
	unsigned cc = pick(g, 16);
	if (pick(g, 2)) {                           /* SETcc r/m8 */
		bool rexmode = pick(g, 2);
		struct rm rm = dst_rm(g, 1, rexmode, true);
		encode(g, 0, false, force_rex(1, rexmode, 0, &rm), 0, 0x0f90 + cc, 2, &rm, 0, 0);
	} else {                                    /* CMOVcc: a 32-bit one zero-extends even if false */
		unsigned size = pick(g, 4) ? (pick(g, 2) ? 8 : 4) : 2;
		struct rm rm = src_rm(g, size, true);
		encode(g, osize_pfx(size), size == 8, false, dreg(g), 0x0f40 + cc, 2, &rm, 0, 0);
	}
}

static void gen_xchg(struct gen *g)
{
	unsigned size = rand_size(g), op = pick(g, 4);
	bool rexmode = pick_rexmode(g, size);
	if (op == 3 && size != 1) {                 /* XCHG rAX, r: 90 alone is NOP, 41 90 is XCHG R8 */
		unsigned r = dreg(g);
		encode(g, osize_pfx(size), size == 8, false, r, 0x90 + (r & 7), 1, NULL, 0, 0);
		return;
	}
	struct rm rm = dst_rm(g, size, rexmode, true);
	unsigned reg = wreg(g, size, rexmode);
	unsigned pfx = osize_pfx(size) | (rm.mem && op != 3 && pick(g, 3) == 0 ? P_LOCK : 0);
	if (op == 2 && pick(g, 2)) {
		/* CMPXCHG: load the accumulator from DEST so the compare succeeds. */
		encode(g, osize_pfx(size), size == 8, force_rex(size, rexmode, 0, &rm), 0, size == 1 ? 0x8a : 0x8b, 1,
		       &rm, 0, 0);
	}
	uint32_t opc = op == 1 ? 0x0fc0 : op == 2 ? 0x0fb0 : 0x86;
	encode(g, pfx, size == 8, force_rex(size, rexmode, reg, &rm), reg, opc + (size == 1 ? 0 : 1),
	       op == 1 || op == 2 ? 2 : 1, &rm, 0, 0);
	if (op == 1 || op == 2)
		flags_written(g, ARITH, 0);             /* XADD: as ADD; CMPXCHG: as CMP */
}

/* Any ModRM/SIB/displacement combination, for LEA and the multi-byte NOP,
 * which compute an address without accessing it (SDM Vol.2 Tables 2-2, 2-3 with
 * REX: mod 00 rm 101 is RIP-relative, SIB base 101 with mod 00 has no base). */
static struct rm any_rm(struct gen *g)
{
	struct rm r = { .mem = true, .mod = (uint8_t)pick(g, 3), .rm = (uint8_t)pick(g, 8), .rexxb = (uint8_t)pick(g, 4) };
	r.a32 = pick(g, 4) == 0;
	if (r.rm == 4)
		r.has_sib = true, r.sib = (uint8_t)rnd(g);
	if (r.mod == 1)
		r.disp_len = 1;
	else if (r.mod == 2 || r.rm == 5 || (r.has_sib && (r.sib & 7) == 5))
		r.disp_len = 4;
	r.disp = rnd(g);
	return r;
}

static void gen_mov(struct gen *g)
{
	unsigned size = rand_size(g);
	bool rexmode = pick_rexmode(g, size);
	unsigned pfx = osize_pfx(size), reg;
	struct rm rm;
	switch (pick(g, 7)) {
	case 0:                                     /* MOV r/m, r */
		rm = dst_rm(g, size, rexmode, true);
		reg = rreg(g, size, rexmode);
		encode(g, pfx, size == 8, force_rex(size, rexmode, reg, &rm), reg, size == 1 ? 0x88 : 0x89, 1, &rm, 0, 0);
		break;
	case 1:                                     /* MOV r, r/m */
		rm = src_rm(g, size, rexmode);
		reg = wreg(g, size, rexmode);
		encode(g, pfx, size == 8, force_rex(size, rexmode, reg, &rm), reg, size == 1 ? 0x8a : 0x8b, 1, &rm, 0, 0);
		break;
	case 2:                                     /* MOV r/m, imm (imm32 sign-extended to 64) */
		rm = dst_rm(g, size, rexmode, true);
		encode(g, pfx, size == 8, force_rex(size, rexmode, 0, &rm), 0, size == 1 ? 0xc6 : 0xc7, 1, &rm,
		       rnd64(g), size == 1 ? 1 : size == 2 ? 2 : 4);
		break;
	case 3:                                     /* MOV r, imm: B0+r (SPL..DIL need REX), B8+r imm64 with REX.W */
		reg = wreg(g, size, rexmode);
		if (size == 1)
			encode(g, 0, false, rexmode && needs_rex(reg), reg, 0xb0 + (reg & 7), 1, NULL, rnd(g), 1);
		else
			encode(g, pfx, size == 8, false, reg, 0xb8 + (reg & 7), 1, NULL, rand_imm(g, size), size);
		break;
	case 4: {                                   /* MOV AL/rAX <-> moffs64 (moffs32 with 67) */
		bool a32 = pick(g, 3) == 0;
		uint32_t target = DIFF_DATA_ADDR + pick(g, 0x1f00);
		encode(g, pfx | (a32 ? P_67 : 0), size == 8, false, 0, (pick(g, 2) ? 0xa2 : 0xa0) + (size != 1), 1, NULL,
		       target, a32 ? 4 : 8);
		break;
	}
	case 5: {                                   /* MOVZX/MOVSX r, r/m8 or r/m16 */
		unsigned dsize = pick(g, 3) ? (pick(g, 2) ? 8 : 4) : 2, ssize = pick(g, 2) ? 1 : 2;
		bool rm_rex = ssize == 2 || dsize == 8 || pick(g, 2);
		static const unsigned low[] = { R_AX, R_CX, R_DX, R_BX, R_BP };
		reg = rm_rex ? dreg(g) : low[pick(g, 5)];
		rm = src_rm(g, ssize, rm_rex);
		encode(g, osize_pfx(dsize), dsize == 8, force_rex(ssize, rm_rex, 0, &rm), reg,
		       (pick(g, 2) ? 0x0fb6 : 0x0fbe) + (ssize == 2), 2, &rm, 0, 0);
		break;
	}
	default: {                                  /* MOVSXD r64, r/m32 (also r32 and r16 forms) */
		unsigned dsize = pick(g, 4) ? 8 : pick(g, 2) ? 4 : 2;
		rm = src_rm(g, 4, true);
		encode(g, osize_pfx(dsize), dsize == 8, false, dreg(g), 0x63, 1, &rm, 0, 0);
		break;
	}
	}
}

/* PUSH/POP in their 64-bit (default) and 16-bit (66) forms, CALL (a push of
 * RIP), PUSHF, ENTER/LEAVE. */
static void gen_stack(struct gen *g)
{
	unsigned size = pick(g, 5) ? 8 : 2, pfx = osize_pfx(size);
	if (g->pushed >= size && pick(g, 2)) {
		if (pick(g, 3)) {
			unsigned r = dreg(g);
			encode(g, pfx, false, false, r, 0x58 + (r & 7), 1, NULL, 0, 0);
		} else {
			struct rm rm = mem_rm(g, size, 1, true, false);
			encode(g, pfx, false, false, 0, 0x8f, 1, &rm, 0, 0);
		}
		g->pushed -= size;
		return;
	}
	if (g->pushed + 0x50 > STACK_BUDGET)
		return;
	switch (pick(g, 7)) {
	case 0: case 1: {
		unsigned r = pick(g, 16);
		encode(g, pfx, false, false, r, 0x50 + (r & 7), 1, NULL, 0, 0);
		break;
	}
	case 2:
		encode(g, pfx, false, false, 0, 0x6a, 1, NULL, rnd(g), 1);
		break;
	case 3:
		encode(g, pfx, false, false, 0, 0x68, 1, NULL, rnd(g), size == 2 ? 2 : 4);
		break;
	case 4: {
		struct rm rm = mem_rm(g, size, 1, true, false);
		encode(g, pfx, false, false, 6, 0xff, 1, &rm, 0, 0);
		break;
	}
	case 5:
		if (pick(g, 2)) {
			encode(g, pfx, false, false, 0, 0x9c, 1, NULL, 0, 0);   /* PUSHF */
			break;
		}
		/* PUSH a flags image, POPF it: the status flags and DF (TF, AC and the
		 * system flags stay clear; IF stays set, which CPL 3 could not change). */
		encode(g, pfx, false, false, 0, 0x68, 1, NULL, FLAG_FIXED1 | FLAG_IF | (rnd(g) & (ARITH | FLAG_DF)),
		       size == 2 ? 2 : 4);
		encode(g, pfx, false, false, 0, 0x9d, 1, NULL, 0, 0);
		flags_written(g, ARITH, 0);
		return;
	default:
		if (pick(g, 2)) {
			emit(g, 0xe8), emit_imm(g, 0, 4);     /* CALL the next instruction */
			size = 8;
		} else {
			/* ENTER n, level then LEAVE: RBP saved, framed and restored; with a
			 * nesting level, ENTER copies level-1 frame pointers from below RBP,
			 * so RBP must point into the data (SDM Vol.2 ENTER). */
			unsigned level = pick(g, 3) ? 0 : 1 + pick(g, 4);
			if (level)
				mov_imm(g, R_BP, DIFF_DATA_ADDR + 0x400 + pick(g, 0x800));
			emit(g, 0xc8), emit_imm(g, pick(g, 64), 2), emit(g, level);
			emit(g, 0xc9);
			return;
		}
		break;
	}
	g->pushed += size;
}

static void gen_string(struct gen *g)
{
	static const uint8_t ops[] = { 0xa4, 0xa6, 0xaa, 0xac, 0xae };
	unsigned size = rand_size(g), o = ops[pick(g, 5)] + (size != 1), count = pick(g, 9);
	unsigned rep = pick(g, 3), moved = (rep ? count : 1) * size;
	if (g->drift + moved > DRIFT_BUDGET)
		return;
	g->drift += moved;
	bool a32 = pick(g, 4) == 0;
	if (a32)
		mov_imm(g, R_CX, rnd64(g) << 32 | count);   /* 67: ECX counts, RCX's upper half is not */
	else
		mov_imm32(g, R_CX, count);
	/* 67 addresses with ESI/EDI: set a bit in their upper halves first, see
	 * what the instruction leaves there (the written ones are zero-extended),
	 * copy both to data registers and make them pointers again. */
	bool dirty = a32 && pick(g, 2);
	if (dirty) {
		struct rm si = reg_rm(R_SI), di = reg_rm(R_DI);
		encode(g, 0, true, false, 5, 0x0fba, 2, &si, 32 + pick(g, 32), 1);   /* BTS RSI, imm8 */
		encode(g, 0, true, false, 5, 0x0fba, 2, &di, 32 + pick(g, 32), 1);
	}
	emit(g, pick(g, 2) ? 0xfc : 0xfd);              /* CLD / STD */
	if (pick(g, 8) == 0)
		emit(g, (const uint8_t[]){ 0x26, 0x2e, 0x36, 0x3e }[pick(g, 4)]);   /* ignored in 64-bit mode */
	unsigned pfx = osize_pfx(size) | (a32 ? P_67 : 0) | (rep == 1 ? P_F3 : rep == 2 ? P_F2 : 0);
	encode(g, pfx, size == 8, false, 0, o, 1, NULL, 0, 0);
	if (((o & 0xfe) == 0xa6 || (o & 0xfe) == 0xae) && (!rep || count))
		flags_written(g, ARITH, 0);
	if (dirty) {
		struct rm si = reg_rm(R_SI), di = reg_rm(R_DI);
		encode(g, 0, true, false, R_SI, 0x89, 1, &(struct rm){ .mod = 3, .rm = R_R8 & 7, .rexxb = 1 }, 0, 0);
		encode(g, 0, true, false, R_DI, 0x89, 1, &(struct rm){ .mod = 3, .rm = R_R9 & 7, .rexxb = 1 }, 0, 0);
		encode(g, 0, false, false, R_SI, 0x89, 1, &si, 0, 0);              /* MOV ESI, ESI */
		encode(g, 0, false, false, R_DI, 0x89, 1, &di, 0, 0);
	}
}

/* A forward branch over one register ALU instruction: Jcc rel8/rel32, JMP,
 * JRCXZ/JECXZ, LOOP/LOOPE/LOOPNE (67: ECX). */
static void gen_branch(struct gen *g)
{
	unsigned at, dl = 1, cc = pick(g, 16);
	if (pick(g, 4) == 0 && g->pushed + 0x50 <= STACK_BUDGET) {
		/* CALL a RET placed behind a JMP: by rel32, or by register via LEA of
		 * a RIP-relative address; RET imm16 also releases pushed bytes. */
		bool by_reg = pick(g, 2);
		unsigned r = dreg(g), imm = g->pushed >= 16 && pick(g, 2) ? 2 * pick(g, 8) : 0;
		unsigned ret_len = imm ? 3 : 1, call_len = by_reg ? 2 + (r >> 3) : 5;
		if (by_reg) {
			/* LEA r, [RIP + disp32] to the RET: after this LEA come the CALL
			 * and the 2-byte JMP. */
			struct rm rip = { .mem = true, .mod = 0, .rm = 5, .disp_len = 4, .disp = call_len + 2 };
			encode(g, 0, true, false, r, 0x8d, 1, &rip, 0, 0);
			struct rm target = reg_rm(r);
			encode(g, 0, false, false, 2, 0xff, 1, &target, 0, 0);        /* CALL r64 */
		} else {
			emit(g, 0xe8), emit_imm(g, 2, 4);                              /* CALL over the JMP */
		}
		emit(g, 0xeb), emit(g, ret_len);                                     /* JMP over the RET */
		if (imm)
			emit(g, 0xc2), emit_imm(g, imm, 2);
		else
			emit(g, 0xc3);
		g->pushed -= imm;
		return;
	}
	if (pick(g, 8) == 0) {
		/* JMP r64 / JMP [mem] over an instruction: the target from LEA. */
		unsigned r = dreg(g);
		struct rm mem = mem_rm(g, 8, 1, true, true), reg = reg_rm(r);
		bool via_mem = pick(g, 2);
		struct rm rip = { .mem = true, .mod = 0, .rm = 5, .disp_len = 4 };
		encode(g, 0, true, false, r, 0x8d, 1, &rip, 0, 0);                  /* LEA r, [RIP + disp32] */
		unsigned lea_end = g->len;
		if (via_mem)
			encode(g, 0, true, false, r, 0x89, 1, &mem, 0, 0);            /* MOV [mem], r */
		encode(g, 0, false, false, 4, 0xff, 1, via_mem ? &mem : &reg, 0, 0);
		uint32_t undef = g->undef;
		gen_alu(g, true);
		g->undef |= undef;
		uint32_t disp = g->len - lea_end;                                    /* the LEA's disp32 ends it */
		for (unsigned i = 0; i < 4; i++)
			g->code[lea_end - 4 + i] = (uint8_t)(disp >> (8 * i));
		return;
	}
	switch (pick(g, 5)) {
	case 0:
		if (pick(g, 8) == 0)
			emit(g, pick(g, 2) ? 0x2e : 0x3e);  /* a branch hint: no effect */
		emit(g, 0x70 + cc);
		break;
	case 1:
		if (pick(g, 8) == 0)
			emit(g, pick(g, 2) ? 0x2e : 0x3e);
		emit(g, 0x0f), emit(g, 0x80 + cc), dl = 4;
		break;
	case 2:
		emit(g, 0xeb);
		break;
	case 3: {
		bool a32 = pick(g, 2);
		if (pick(g, 2))
			mov_imm(g, R_CX, pick(g, 2) ? rnd64(g) << 32 : 0);
		if (a32)
			emit(g, 0x67);
		emit(g, 0xe3);
		break;
	}
	default:
		if (pick(g, 2))
			mov_imm(g, R_CX, (rnd64(g) << 32) | pick(g, 2));
		if (pick(g, 2))
			emit(g, 0x67);
		emit(g, 0xe0 + pick(g, 3));
		break;
	}
	at = g->len;
	emit_imm(g, 0, dl);
	uint32_t undef = g->undef;
	gen_alu(g, true);
	uint32_t rel = g->len - (at + dl);
	for (unsigned i = 0; i < dl; i++)
		g->code[at + i] = (uint8_t)(rel >> (8 * i));
	g->undef |= undef;                          /* either path may have run */
}

static void gen_misc(struct gen *g)
{
	switch (pick(g, 10)) {
	case 9: {
		/* Self-modifying code: MOV byte [RIP + disp32] into the immediate of
		 * an ALU instruction next or one further (SDM Vol.3 11.6: the store
		 * is seen by the instruction fetched after it). */
		unsigned at = g->len, op = pick(g, 8);
		emit(g, 0xc6), emit(g, 0x05), emit_imm(g, 0, 4), emit(g, rnd(g));
		unsigned end = g->len;
		if (pick(g, 2))
			gen_alu(g, true);
		emit(g, op * 8 + 4), emit(g, rnd(g));                  /* op AL, imm8 */
		uint32_t disp = (g->len - 1) - end;
		for (unsigned i = 0; i < 4; i++)
			g->code[at + 2 + i] = (uint8_t)(disp >> (8 * i));
		bool logic = op == 1 || op == 4 || op == 6;
		flags_written(g, logic ? ARITH & ~FLAG_AF : ARITH, logic ? FLAG_AF : 0);
		break;
	}
	case 0: case 1: {                           /* CBW/CWDE/CDQE, CWD/CDQ/CQO */
		unsigned size = pick(g, 3) ? (pick(g, 2) ? 8 : 4) : 2;
		encode(g, osize_pfx(size), size == 8, false, 0, 0x98 + pick(g, 2), 1, NULL, 0, 0);
		break;
	}
	case 2:
		switch (pick(g, 5)) {
		case 0: emit(g, 0xf8); flags_written(g, FLAG_CF, 0); break;    /* CLC */
		case 1: emit(g, 0xf9); flags_written(g, FLAG_CF, 0); break;    /* STC */
		case 2: emit(g, 0xf5); break;                                   /* CMC */
		case 3: emit(g, 0x9f); break;                                   /* LAHF (CPUID LahfSahf) */
		default: emit(g, 0x9e); flags_written(g, ARITH & ~FLAG_OF, 0); break;
		}
		break;
	case 3: case 4: {                           /* LEA of any address form */
		unsigned size = pick(g, 4) ? (pick(g, 2) ? 8 : 4) : 2;
		struct rm rm = any_rm(g);
		encode(g, osize_pfx(size), size == 8, false, dreg(g), 0x8d, 1, &rm, 0, 0);
		break;
	}
	case 5: {                                   /* NOP r/m: decoded, not accessed */
		struct rm rm = any_rm(g);
		encode(g, pick(g, 2) ? P_66 : 0, pick(g, 2), false, pick(g, 2) * 8, 0x0f1f, 2, &rm, 0, 0);
		break;
	}
	case 6:                                     /* XLAT: AL = [RBX + AL] */
		mov_imm(g, R_BX, DIFF_DATA_ADDR + pick(g, 0x1e00));
		encode(g, 0, pick(g, 2), false, 0, 0xd7, 1, NULL, 0, 0);
		break;
	default: {                                  /* CMPXCHG8B m64 / CMPXCHG16B m128 (16-aligned) */
		bool w = pick(g, 2);
		unsigned half = w ? 8 : 4;
		struct rm rm = mem_rm(g, 2 * half, w ? 16 : 1, true, true);
		if (pick(g, 2) && rm.disp_len) {
			/* Load rDX:rAX from the operand so the compare can succeed. */
			struct rm hi = rm;
			hi.disp += half, hi.target += half;
			encode(g, 0, w, false, R_AX, 0x8b, 1, &rm, 0, 0);
			encode(g, 0, w, false, R_DX, 0x8b, 1, &hi, 0, 0);
		}
		encode(g, pick(g, 4) ? 0 : P_LOCK, w, false, 1, 0x0fc7, 2, &rm, 0, 0);
		flags_written(g, FLAG_ZF, 0);
		break;
	}
	}
}

/* --- SSE/SSE2: what emu/isa/sse.isa implements --- */

static struct rm xmm_rm(struct gen *g, unsigned span, unsigned align)
{
	if (pick(g, 3) == 0)
		return mem_rm(g, span, align, true, true);
	return reg_rm(pick(g, 16));
}

/* A valid MXCSR (SDM Vol.1 10.2.3): all exceptions masked, random rounding,
 * FZ, DAZ and sticky status flags. */
static uint32_t rand_mxcsr(struct gen *g)
{
	return 0x1f80u | (rnd(g) & (0x3fu | 1u << 6 | 3u << 13 | 1u << 15));
}

static void gen_sse(struct gen *g)
{
	unsigned x = pick(g, 16);
	bool xw = pick(g, 4) == 0;                  /* REX.W: ignored but where it selects 64-bit GPRs */
	struct rm rm;
	switch (pick(g, 13)) {
	case 0: case 1: {                           /* 128-bit moves, load or store */
		static const struct { unsigned pfx; uint8_t load, store; unsigned align; } mv[] = {
			{ 0, 0x10, 0x11, 1 }, { P_66, 0x10, 0x11, 1 }, { P_F3, 0x6f, 0x7f, 1 },        /* MOVUPS/PD, MOVDQU */
			{ 0, 0x28, 0x29, 16 }, { P_66, 0x28, 0x29, 16 }, { P_66, 0x6f, 0x7f, 16 },     /* MOVAPS/PD, MOVDQA */
		};
		unsigned k = pick(g, 6);
		rm = xmm_rm(g, 16, mv[k].align);
		encode(g, mv[k].pfx, xw, false, x, 0x0f00 | (pick(g, 2) ? mv[k].load : mv[k].store), 2, &rm, 0, 0);
		break;
	}
	case 2: {                                   /* MOVSS/MOVSD: merge from a register, zero from memory */
		bool dbl = pick(g, 2);
		rm = xmm_rm(g, dbl ? 8 : 4, 1);
		encode(g, dbl ? P_F2 : P_F3, xw, false, x, pick(g, 2) ? 0x0f10 : 0x0f11, 2, &rm, 0, 0);
		break;
	}
	case 3: {                                   /* MOVD/MOVQ between XMM and r/m32/64 */
		bool w = pick(g, 2);
		bool to_xmm = pick(g, 2);
		rm = to_xmm ? src_rm(g, w ? 8 : 4, true) : dst_rm(g, w ? 8 : 4, true, true);
		encode(g, P_66, w, false, x, to_xmm ? 0x0f6e : 0x0f7e, 2, &rm, 0, 0);
		break;
	}
	case 4:                                     /* MOVQ xmm, xmm/m64 / MOVQ xmm/m64, xmm */
		rm = xmm_rm(g, 8, 1);
		if (pick(g, 2))
			encode(g, P_F3, xw, false, x, 0x0f7e, 2, &rm, 0, 0);
		else
			encode(g, P_66, xw, false, x, 0x0fd6, 2, &rm, 0, 0);
		break;
	case 5: {                                   /* non-temporal stores: MOVNTI, MOVNTPS/PD, MOVNTDQ */
		unsigned k = pick(g, 4);
		if (k == 0) {
			bool w = pick(g, 2);
			rm = mem_rm(g, w ? 8 : 4, 1, true, true);
			encode(g, 0, w, false, sreg(g), 0x0fc3, 2, &rm, 0, 0);
		} else {
			rm = mem_rm(g, 16, 16, true, true);
			encode(g, k == 1 ? 0 : P_66, xw, false, x, k == 3 ? 0x0fe7 : 0x0f2b, 2, &rm, 0, 0);
		}
		break;
	}
	case 6: case 7: {                           /* ANDPS..XORPD, PAND PANDN POR PXOR */
		static const uint8_t ops[] = { 0x54, 0x55, 0x56, 0x57, 0xdb, 0xdf, 0xeb, 0xef };
		unsigned k = pick(g, 8);
		rm = xmm_rm(g, 16, 16);
		encode(g, k >= 4 || pick(g, 2) ? P_66 : 0, xw, false, x, 0x0f00 | ops[k], 2, &rm, 0, 0);
		break;
	}
	case 8: case 9: {                           /* PCMPEQB/W/D, PADD/PSUB B/W/D/Q, PUNPCK* */
		static const uint8_t ops[] = { 0x74, 0x75, 0x76, 0xfc, 0xfd, 0xfe, 0xd4, 0xf8, 0xf9, 0xfa, 0xfb,
					       0x60, 0x61, 0x62, 0x6c, 0x68, 0x69, 0x6a, 0x6d };
		rm = xmm_rm(g, 16, 16);
		encode(g, P_66, xw, false, x, 0x0f00 | ops[pick(g, sizeof(ops))], 2, &rm, 0, 0);
		break;
	}
	case 10: {                                  /* PMOVMSKB r32/r64, xmm */
		rm = reg_rm(pick(g, 16));
		encode(g, P_66, pick(g, 2), false, dreg(g), 0x0fd7, 2, &rm, 0, 0);
		break;
	}
	case 11: {                                  /* SHUFPS, SHUFPD, PSHUFD/HW/LW */
		static const struct { unsigned pfx; uint8_t op; } sh[] = {
			{ 0, 0xc6 }, { P_66, 0xc6 }, { P_66, 0x70 }, { P_F3, 0x70 }, { P_F2, 0x70 },
		};
		unsigned k = pick(g, 5);
		rm = xmm_rm(g, 16, 16);
		encode(g, sh[k].pfx, xw, false, x, 0x0f00 | sh[k].op, 2, &rm, pick(g, 256), 1);
		break;
	}
	default:                                    /* STMXCSR m32, or LDMXCSR of a valid value */
		rm = mem_rm(g, 4, 1, true, true);
		if (pick(g, 2)) {
			encode(g, 0, xw, false, 3, 0x0fae, 2, &rm, 0, 0);
		} else {
			encode(g, 0, false, false, 0, 0xc7, 1, &rm, rand_mxcsr(g), 4);
			encode(g, 0, xw, false, 2, 0x0fae, 2, &rm, 0, 0);
		}
		break;
	}
}

static void gen_insn64(struct gen *g)
{
	switch (pick(g, 36)) {
	case 0: case 1: case 2: case 3: case 4: gen_alu(g, false); break;
	case 5: case 6: gen_unary(g); break;
	case 7: case 8: case 9: gen_shift(g); break;
	case 10: gen_shxd(g); break;
	case 11: gen_mul(g); break;
	case 12: gen_div(g); break;
	case 13: case 14: gen_bits(g); break;
	case 15: case 16: gen_cond(g); break;
	case 17: case 18: gen_xchg(g); break;
	case 19: case 20: case 21: gen_mov(g); break;
	case 22: case 23: gen_stack(g); break;
	case 24: case 25: gen_string(g); break;
	case 26: gen_branch(g); break;
	case 27: case 28: gen_misc(g); break;
	default: gen_sse(g); break;
	}
}

/* Random bytes, a quarter of them from a small alphabet so that compares and
 * CMPXCHG sometimes find equal elements. */
static void fill(struct gen *g, uint8_t *p, unsigned n)
{
	bool small = pick(g, 4) == 0;
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(small ? pick(g, 3) : rnd(g));
}

uint32_t gen_case64(struct gen *g, struct diff_request *rq)
{
	memset(rq, 0, sizeof(*rq));
	rq->mode = DIFF_MODE64;
	for (unsigned r = 0; r < 16; r++) {
		switch (pick(g, 4)) {
		case 0: rq->in.regs[r] = (uint64_t)(int64_t)(int32_t)rnd(g); break;   /* sign-extended */
		case 1: rq->in.regs[r] = pick(g, 3) ? rnd(g) : 0; break;
		default: rq->in.regs[r] = rnd64(g); break;
		}
	}
	g->r12 = DIFF_DATA_ADDR + 0x100 + 16 * pick(g, 16);
	g->r13 = pick(g, 64);
	g->r15 = rnd64(g) << 32 | 0xf0000000u | (rnd(g) & 0x0ffffff0u);
	rq->in.regs[R_SP] = DIFF_STACK_TOP;
	rq->in.regs[R_SI] = RSI_BASE + pick(g, 0x100);
	rq->in.regs[R_DI] = RDI_BASE + pick(g, 0x100);
	rq->in.regs[R_R12] = g->r12;
	rq->in.regs[R_R13] = g->r13;
	rq->in.regs[R_R15] = g->r15;
	rq->in.rflags = FLAG_FIXED1 | FLAG_IF | (rnd(g) & (ARITH | FLAG_DF));
	rq->in.mxcsr = rand_mxcsr(g);
	for (unsigned x = 0; x < 16; x++)
		fill(g, rq->in.xmm[x], 16);
	for (unsigned i = 0; i < DIFF_DATA_SIZE; i += 16)
		fill(g, rq->in.data + i, 16);
	g->code = rq->code;
	g->len = 0;
	g->undef = 0;
	g->pushed = 0;
	g->drift = 0;
	unsigned n = 1 + pick(g, SEQ_MAX);
	for (unsigned i = 0; i < n && g->len < DIFF_CODE_MAX - 160; i++)
		gen_insn64(g);
	rq->code_len = g->len;
	return g->undef;
}
