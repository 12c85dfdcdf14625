/* The 64-bit run's SSE/SSE2 family: what emu/isa/sse.isa implements (moves,
 * logic, packed-integer compare/add/subtract/unpack, PMOVMSKB, shuffles, MXCSR
 * loads and stores) on XMM0-15, register or memory operands. */
#include "tests/diff/enc64.h"

static struct rm xmm_rm(struct gen *g, unsigned span, unsigned align)
{
	if (pick(g, 3) == 0)
		return mem_rm(g, span, align, true, true);
	return reg_rm(pick(g, 16));
}


void gen_sse(struct gen *g)
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
