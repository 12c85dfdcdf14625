/* The 64-bit run's SSE/SSE2 family: what emu/isa/sse.isa and sse_fp.isa
 * implement (moves, logic, the packed-integer instructions, shuffles, MXCSR
 * loads and stores; floating-point arithmetic, compares and conversions) on
 * XMM0-15, register or memory operands.
 *
 * Floating-point instructions sometimes run under an MXCSR loaded just before
 * them with random rounding, DAZ, FTZ, sticky flags and exception masks: a
 * masked exception's result and flags are compared, an unmasked one ends the
 * case with #XM (SIGFPE on the host; CR4.OSXMMEXCPT = 1 in hvemu) and the
 * state at the fault is compared. */
#include "tests/diff/enc64.h"

/* The SSE2 packed-integer V,W instructions (66 0F xx), element shifts by
 * xmm/m128 apart. */
static const uint8_t int_ops[] = {
	0x74, 0x75, 0x76, 0x64, 0x65, 0x66, 0xfc, 0xfd, 0xfe, 0xd4, 0xf8, 0xf9, 0xfa, 0xfb,
	0x60, 0x61, 0x62, 0x6c, 0x68, 0x69, 0x6a, 0x6d,
	0xec, 0xed, 0xdc, 0xdd, 0xe8, 0xe9, 0xd8, 0xd9, 0xda, 0xde, 0xea, 0xee, 0xe0, 0xe3,
	0xd5, 0xe5, 0xe4, 0xf4, 0xf5, 0xf6, 0x63, 0x67, 0x6b,
};
static const uint8_t shift_ops[] = { 0xd1, 0xd2, 0xd3, 0xe1, 0xe2, 0xf1, 0xf2, 0xf3 };
/* 66 0F 71-73 /digit ib */
static const struct { uint8_t op, digit; } shift_imm_ops[] = {
	{ 0x71, 2 }, { 0x71, 4 }, { 0x71, 6 }, { 0x72, 2 }, { 0x72, 4 }, { 0x72, 6 },
	{ 0x73, 2 }, { 0x73, 3 }, { 0x73, 6 }, { 0x73, 7 },
};

/* The floating-point V,W rows: prefix, opcode, memory operand bytes (16:
 * aligned m128, else unaligned), imm8 (CMPcc predicate), and whether the
 * instruction writes the status flags ((U)COMIS*). */
enum { FP_IMM = 1, FP_FLAGS = 2 };
static const struct { uint8_t pfx, op, span, how; } fp_ops[] = {
	{ 0, 0x51, 16, 0 }, { P_66, 0x51, 16, 0 }, { P_F3, 0x51, 4, 0 }, { P_F2, 0x51, 8, 0 },
	{ 0, 0x58, 16, 0 }, { P_66, 0x58, 16, 0 }, { P_F3, 0x58, 4, 0 }, { P_F2, 0x58, 8, 0 },
	{ 0, 0x59, 16, 0 }, { P_66, 0x59, 16, 0 }, { P_F3, 0x59, 4, 0 }, { P_F2, 0x59, 8, 0 },
	{ 0, 0x5c, 16, 0 }, { P_66, 0x5c, 16, 0 }, { P_F3, 0x5c, 4, 0 }, { P_F2, 0x5c, 8, 0 },
	{ 0, 0x5d, 16, 0 }, { P_66, 0x5d, 16, 0 }, { P_F3, 0x5d, 4, 0 }, { P_F2, 0x5d, 8, 0 },
	{ 0, 0x5e, 16, 0 }, { P_66, 0x5e, 16, 0 }, { P_F3, 0x5e, 4, 0 }, { P_F2, 0x5e, 8, 0 },
	{ 0, 0x5f, 16, 0 }, { P_66, 0x5f, 16, 0 }, { P_F3, 0x5f, 4, 0 }, { P_F2, 0x5f, 8, 0 },
	{ 0, 0xc2, 16, FP_IMM }, { P_66, 0xc2, 16, FP_IMM }, { P_F3, 0xc2, 4, FP_IMM }, { P_F2, 0xc2, 8, FP_IMM },
	{ 0, 0x2e, 4, FP_FLAGS }, { P_66, 0x2e, 8, FP_FLAGS }, { 0, 0x2f, 4, FP_FLAGS }, { P_66, 0x2f, 8, FP_FLAGS },
	{ 0, 0x5a, 8, 0 }, { P_66, 0x5a, 16, 0 }, { P_F3, 0x5a, 4, 0 }, { P_F2, 0x5a, 8, 0 },
	{ 0, 0x5b, 16, 0 }, { P_66, 0x5b, 16, 0 }, { P_F3, 0x5b, 16, 0 },
	{ P_66, 0xe6, 16, 0 }, { P_F3, 0xe6, 8, 0 }, { P_F2, 0xe6, 16, 0 },
};

static struct rm xmm_rm(struct gen *g, unsigned span, unsigned align)
{
	if (pick(g, 3) == 0)
		return mem_rm(g, span, align, true, true);
	return reg_rm(pick(g, 16));
}


/* Sometimes an LDMXCSR before a floating-point instruction: random RC, FTZ,
 * DAZ and sticky flags, each exception unmasked with probability 1/8 (SDM
 * Vol.1 10.2.3; not bit 17, AMD's MM, which epyc-lite does not report). */
static void maybe_ldmxcsr(struct gen *g)
{
	if (pick(g, 2))
		return;
	uint32_t v = rand_mxcsr(g);
	for (unsigned b = 7; b <= 12; b++)
		if (pick(g, 8) == 0)
			v &= ~(1u << b);
	struct rm rm = mem_rm(g, 4, 1, true, true);
	encode(g, 0, false, false, 0, 0xc7, 1, &rm, v, 4);
	encode(g, 0, false, false, 2, 0x0fae, 2, &rm, 0, 0);
}

/* A floating-point instruction from fp_ops or a conversion to or from a GPR. */
static void gen_sse_fp(struct gen *g, unsigned x, bool xw)
{
	struct rm rm;
	maybe_ldmxcsr(g);
	if (pick(g, 5)) {
		unsigned k = pick(g, sizeof(fp_ops) / sizeof(fp_ops[0]));
		rm = xmm_rm(g, fp_ops[k].span, fp_ops[k].span == 16 ? 16 : 1);
		encode(g, fp_ops[k].pfx, xw, false, x, 0x0f00 | fp_ops[k].op, 2, &rm, pick(g, 8),
		       fp_ops[k].how & FP_IMM ? 1 : 0);
		if (fp_ops[k].how & FP_FLAGS)
			flags_written(g, ARITH, 0);    /* SDM Vol.2 COMISS: ZF PF CF; OF SF AF cleared */
		return;
	}
	bool dbl = pick(g, 2), w = pick(g, 2);
	if (pick(g, 2)) {                           /* CVTSI2SS/SD xmm, r/m32/64 */
		rm = src_rm(g, w ? 8 : 4, true);
		encode(g, dbl ? P_F2 : P_F3, w, false, x, 0x0f2a, 2, &rm, 0, 0);
	} else {                                    /* CVT(T)SS2SI / CVT(T)SD2SI r32/64, xmm/m */
		rm = xmm_rm(g, dbl ? 8 : 4, 1);
		encode(g, dbl ? P_F2 : P_F3, w, false, dreg(g), pick(g, 2) ? 0x0f2c : 0x0f2d, 2, &rm, 0, 0);
	}
}

/* A shift count that is sometimes in range: random, or below 72. */
static uint32_t shift_count(struct gen *g) { return pick(g, 4) ? pick(g, 72) : rnd(g); }

/* The packed-integer instructions beyond the moves and logic. */
static void gen_sse_int(struct gen *g, unsigned x, bool xw)
{
	struct rm rm;
	switch (pick(g, 6)) {
	case 0: case 1:                             /* lane-wise, widening, packs */
		rm = xmm_rm(g, 16, 16);
		encode(g, P_66, xw, false, x, 0x0f00 | int_ops[pick(g, sizeof(int_ops))], 2, &rm, 0, 0);
		break;
	case 2: {                                   /* shifts by xmm/m128, the count loaded just before */
		rm = xmm_rm(g, 16, 16);
		if (pick(g, 4)) {
			if (rm.mem) {                       /* MOV qword [m], imm32 */
				encode(g, 0, true, false, 0, 0xc7, 1, &rm, shift_count(g), 4);
			} else {                            /* MOV r32, imm32; MOVD xmm, r32 */
				unsigned r = dreg(g);
				struct rm gr = reg_rm(r);
				mov_imm32(g, r, shift_count(g));
				encode(g, P_66, false, false, rm.reg, 0x0f6e, 2, &gr, 0, 0);
			}
		}
		encode(g, P_66, xw, false, x, 0x0f00 | shift_ops[pick(g, sizeof(shift_ops))], 2, &rm, 0, 0);
		break;
	}
	case 3: {                                   /* shifts by imm8 (register only) */
		unsigned k = pick(g, sizeof(shift_imm_ops) / sizeof(shift_imm_ops[0]));
		rm = reg_rm(x);
		encode(g, P_66, xw, false, shift_imm_ops[k].digit, 0x0f00 | shift_imm_ops[k].op, 2, &rm,
		       shift_count(g), 1);
		break;
	}
	case 4:                                     /* PEXTRW r32/64, xmm, imm8; PINSRW xmm, r32/m16, imm8 */
		if (pick(g, 2)) {
			rm = reg_rm(pick(g, 16));
			encode(g, P_66, pick(g, 2), false, dreg(g), 0x0fc5, 2, &rm, pick(g, 256), 1);
		} else {
			rm = pick(g, 3) ? reg_rm(sreg(g)) : mem_rm(g, 2, 1, true, true);
			encode(g, P_66, xw, false, x, 0x0fc4, 2, &rm, pick(g, 256), 1);
		}
		break;
	default:                                    /* MASKMOVDQU to [RDI] or [EDI] (67) */
		rm = reg_rm(pick(g, 16));
		encode(g, P_66 | (pick(g, 4) ? 0 : P_67), xw, false, x, 0x0ff7, 2, &rm, 0, 0);
		break;
	}
}

void gen_sse(struct gen *g)
{
	unsigned x = pick(g, 16);
	bool xw = pick(g, 4) == 0;                  /* REX.W: ignored but where it selects 64-bit GPRs */
	struct rm rm;
	switch (pick(g, 19)) {
	case 13: case 14: case 15:
		gen_sse_int(g, x, xw);
		break;
	case 16: case 17: case 18:
		gen_sse_fp(g, x, xw);
		break;
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
