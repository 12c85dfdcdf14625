/* The 64-bit run's encoder (see enc64.h). */
#include "tests/diff/enc64.h"

static const unsigned data_regs[] = { R_AX, R_CX, R_DX, R_BX, R_BP, R_R8, R_R9, R_R10, R_R11, R_R14 };
unsigned dreg(struct gen *g) { return data_regs[pick(g, 10)]; }
/* Read-only positions may name any register. */
unsigned sreg(struct gen *g) { return pick(g, 3) ? dreg(g) : pick(g, 16); }

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
unsigned wreg(struct gen *g, unsigned size, bool rexmode)
{
	return size == 1 ? bwreg(g, rexmode) : dreg(g);
}
unsigned rreg(struct gen *g, unsigned size, bool rexmode)
{
	return size == 1 ? brreg(g, rexmode) : sreg(g);
}

/* --- the encoder --- */

/* Emit prefixes, REX, opcode bytes (big-endian in op, n bytes), ModRM with reg
 * (without rm: reg is the register in the opcode's low bits, already added),
 * the SIB/displacement of rm, then imm; patch a RIP-relative disp32 last.
 * force_rex: a byte register among 4-7 means SPL..DIL, or just an empty REX. */
/* ModRM with reg, the SIB and displacement of rm, then imm; a RIP-relative
 * disp32 patched last. */
static void emit_modrm(struct gen *g, unsigned reg, const struct rm *rm, uint64_t imm, unsigned imm_len)
{
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

void encode(struct gen *g, unsigned pfx, bool w, bool force_rex, unsigned reg, uint32_t op, unsigned n,
		   const struct rm *rm, uint64_t imm, unsigned imm_len)
{
	bool a32 = (pfx & P_67) || (rm && rm->a32);
	/* SDM Vol.2 2.2.1: ES/CS/SS/DS overrides are ignored in 64-bit mode, and
	 * so is a REX prefix that a legacy prefix follows; added only while the
	 * instruction stays within 15 bytes (SDM Vol.2 2.3.11: longer is #GP). */
	unsigned len = (unsigned)__builtin_popcount(pfx & ~P_67) + a32 + 1 + n + imm_len +
		       (rm ? 1u + rm->has_sib + rm->disp_len : 0);
	bool seg = rm && rm->mem && len < 15 && pick(g, 8) == 0;
	if ((pfx || a32 || seg) && len + seg < 15 && pick(g, 16) == 0)
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
	emit_modrm(g, reg, rm, imm, imm_len);
}

void encode_vex3(struct gen *g, unsigned pp, unsigned map, bool w, unsigned l, unsigned vvvv, unsigned reg,
		 unsigned op, const struct rm *rm, int imm8)
{
	if (rm->a32)
		emit(g, 0x67);
	/* R, X, B and vvvv are stored inverted. */
	unsigned r = (reg >> 3) & 1, x = (rm->rexxb >> 1) & 1, b = rm->rexxb & 1;
	emit(g, 0xc4);
	emit(g, (!r) << 7 | (!x) << 6 | (!b) << 5 | map);
	emit(g, (unsigned)w << 7 | (~vvvv & 15) << 3 | l << 2 | pp);
	emit(g, op);
	emit_modrm(g, reg, rm, imm8 >= 0 ? (uint64_t)imm8 : 0, imm8 >= 0 ? 1 : 0);
}

/* A memory operand inside the data pages covering span bytes, aligned to align
 * (1 or 16). allow_rex: the instruction may carry REX.X/B (not with AH..BH);
 * allow_rsp: RSP-based forms (not for PUSH/POP, which move RSP themselves). */
struct rm mem_rm(struct gen *g, unsigned span, unsigned align, bool allow_rex, bool allow_rsp)
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
struct rm dst_rm(struct gen *g, unsigned size, bool rexmode, bool allow_mem)
{
	if (allow_mem && pick(g, 3) == 0)
		return mem_rm(g, size, 1, rexmode, true);
	return reg_rm(wreg(g, size, rexmode));
}
struct rm src_rm(struct gen *g, unsigned size, bool rexmode)
{
	if (pick(g, 3) == 0)
		return mem_rm(g, size, 1, rexmode, true);
	return reg_rm(rreg(g, size, rexmode));
}

unsigned rand_size(struct gen *g)
{
	static const unsigned s[] = { 1, 2, 4, 8, 8, 4, 8 };
	return s[pick(g, 7)];
}

void mov_imm(struct gen *g, unsigned reg, uint64_t v)
{
	/* MOV r64, imm64 (REX.W B8+r) */
	emit(g, 0x48 | (reg >> 3));
	emit(g, 0xb8 + (reg & 7));
	emit_imm(g, v, 8);
}
void mov_imm32(struct gen *g, unsigned reg, uint32_t v)
{
	/* MOV r32, imm32: zero-extends */
	if (reg & 8)
		emit(g, 0x41);
	emit(g, 0xb8 + (reg & 7));
	emit_imm(g, v, 4);
}

uint64_t rand_imm(struct gen *g, unsigned size)
{
	uint64_t v = rnd64(g);
	switch (pick(g, 4)) {
	case 0: return v & 0xff;
	case 1: return (uint64_t)(int64_t)(int8_t)v;
	default: return size == 8 ? v : v & ((1ull << (size * 8)) - 1);
	}
}

/* Any ModRM/SIB/displacement combination, for LEA and the multi-byte NOP,
 * which compute an address without accessing it (SDM Vol.2 Tables 2-2, 2-3 with
 * REX: mod 00 rm 101 is RIP-relative, SIB base 101 with mod 00 has no base). */
struct rm any_rm(struct gen *g)
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
