/* The AVX run's generator (host_diff -m avx): the VEX.128 and VEX.256 forms of
 * the legacy SSE..SSE4.2, AES and PCLMULQDQ instructions hvemu implements
 * (emu/isa/avx.isa), mixed
 * with the 32-bit run's integer and SSE instructions. hvemu runs the bytes in
 * flat 32-bit protected mode with CR4.OSXSAVE = 1 and XCR0 = 7; the encodings
 * mean the same in the host's 64-bit mode because only registers 0-7 are
 * named (VEX.R/X/B = 1, vvvv[3] = 1) and VEX.W is 0. Whole YMM0-7 registers
 * and MXCSR are compared (host_diff.c). The 256-bit packed-integer forms run
 * only when the host has AVX2 (avx2_on).
 */
#include "tests/diff/enc64.h"

enum {
	NDS = 1u << 0,      /* VEX.vvvv is a source (else 1111b) */
	MEM = 1u << 1,      /* a memory form, no alignment: [ESI/EDI+d8] */
	AMEM = 1u << 2,     /* a memory form aligned to the operand width (type 1): [EBX] */
	MEMONLY = 1u << 3,
	REGONLY = 1u << 4,
	IMM = 1u << 5,      /* imm8 */
	GREG = 1u << 6,     /* ModRM.reg is a general register */
	GRM = 1u << 7,      /* ModRM.rm is a general register (or memory) */
	L0 = 1u << 8,       /* VEX.L must be 0 */
	LIG = 1u << 9,      /* VEX.L ignored: either */
	INT = 1u << 10,     /* VEX.256 is AVX2 */
	FLAGSW = 1u << 11,  /* writes ZF PF CF, clears OF SF AF */
	NDS_REG = 1u << 12, /* vvvv a source in the register form only (VMOVSS/SD) */
	DIGIT = 1u << 13,   /* ModRM.reg = digit, VEX.vvvv the destination, rm a register */
	DIGIT_SHIFT = 14,   /* 3 bits */
	MAP38 = 1u << 17,   /* map 0F 38 (else 0F, or 0F 3A with MAP3A) */
	MAP3A = 1u << 18,
	IS4 = 1u << 19,     /* imm8[7:4] names a register (VBLENDV*, VPBLENDVB) */
	STRCMP = 1u << 20,  /* VPCMPxSTRx: short lengths in EAX/EDX first */
	DPP = 1u << 21,     /* VDPPS/VDPPD: with dpp_on only (gen.h) */
};
#define DG(n) (DIGIT | REGONLY | IMM | NDS | INT | (n) << DIGIT_SHIFT)

/* pp: 0 none, 1 66, 2 F3, 3 F2; map 0F unless MAP38/MAP3A. */
struct avx_op {
	uint8_t pp, op;
	uint32_t how;
};

static const struct avx_op avx_ops[] = {
	/* moves */
	{ 0, 0x10, MEM }, { 0, 0x11, MEM }, { 1, 0x10, MEM }, { 1, 0x11, MEM },
	{ 0, 0x28, AMEM }, { 0, 0x29, AMEM }, { 1, 0x28, AMEM }, { 1, 0x29, AMEM },
	{ 0, 0x2b, AMEM | MEMONLY }, { 1, 0x2b, AMEM | MEMONLY }, { 1, 0xe7, AMEM | MEMONLY | INT },
	{ 1, 0x6f, AMEM }, { 1, 0x7f, AMEM }, { 2, 0x6f, MEM }, { 2, 0x7f, MEM }, { 3, 0xf0, MEM | MEMONLY },
	{ 2, 0x10, MEM | NDS_REG | LIG }, { 2, 0x11, MEM | NDS_REG | LIG },
	{ 3, 0x10, MEM | NDS_REG | LIG }, { 3, 0x11, MEM | NDS_REG | LIG },
	{ 1, 0x6e, GRM | MEM | L0 }, { 1, 0x7e, GRM | MEM | L0 }, { 2, 0x7e, MEM | L0 }, { 1, 0xd6, MEM | L0 },
	{ 0, 0x12, NDS | MEM | L0 }, { 0, 0x13, MEM | MEMONLY | L0 }, { 0, 0x16, NDS | MEM | L0 },
	{ 0, 0x17, MEM | MEMONLY | L0 }, { 1, 0x12, NDS | MEM | MEMONLY | L0 }, { 1, 0x13, MEM | MEMONLY | L0 },
	{ 1, 0x16, NDS | MEM | MEMONLY | L0 }, { 1, 0x17, MEM | MEMONLY | L0 },
	{ 0, 0x50, GREG | REGONLY }, { 1, 0x50, GREG | REGONLY }, { 1, 0xd7, GREG | REGONLY | INT },
	/* logic */
	{ 0, 0x54, NDS | MEM }, { 0, 0x55, NDS | MEM }, { 0, 0x56, NDS | MEM }, { 0, 0x57, NDS | MEM },
	{ 1, 0x54, NDS | MEM }, { 1, 0x55, NDS | MEM }, { 1, 0x56, NDS | MEM }, { 1, 0x57, NDS | MEM },
	{ 1, 0xdb, NDS | MEM | INT }, { 1, 0xdf, NDS | MEM | INT }, { 1, 0xeb, NDS | MEM | INT },
	{ 1, 0xef, NDS | MEM | INT },
	/* packed integer */
	{ 1, 0x74, NDS | MEM | INT }, { 1, 0x75, NDS | MEM | INT }, { 1, 0x76, NDS | MEM | INT },
	{ 1, 0x64, NDS | MEM | INT }, { 1, 0x65, NDS | MEM | INT }, { 1, 0x66, NDS | MEM | INT },
	{ 1, 0xfc, NDS | MEM | INT }, { 1, 0xfd, NDS | MEM | INT }, { 1, 0xfe, NDS | MEM | INT },
	{ 1, 0xd4, NDS | MEM | INT }, { 1, 0xf8, NDS | MEM | INT }, { 1, 0xf9, NDS | MEM | INT },
	{ 1, 0xfa, NDS | MEM | INT }, { 1, 0xfb, NDS | MEM | INT }, { 1, 0xec, NDS | MEM | INT },
	{ 1, 0xed, NDS | MEM | INT }, { 1, 0xdc, NDS | MEM | INT }, { 1, 0xdd, NDS | MEM | INT },
	{ 1, 0xe8, NDS | MEM | INT }, { 1, 0xe9, NDS | MEM | INT }, { 1, 0xd8, NDS | MEM | INT },
	{ 1, 0xd9, NDS | MEM | INT }, { 1, 0xda, NDS | MEM | INT }, { 1, 0xde, NDS | MEM | INT },
	{ 1, 0xea, NDS | MEM | INT }, { 1, 0xee, NDS | MEM | INT }, { 1, 0xe0, NDS | MEM | INT },
	{ 1, 0xe3, NDS | MEM | INT }, { 1, 0xd5, NDS | MEM | INT }, { 1, 0xe5, NDS | MEM | INT },
	{ 1, 0xe4, NDS | MEM | INT }, { 1, 0xf4, NDS | MEM | INT }, { 1, 0xf5, NDS | MEM | INT },
	{ 1, 0xf6, NDS | MEM | INT }, { 1, 0x63, NDS | MEM | INT }, { 1, 0x67, NDS | MEM | INT },
	{ 1, 0x6b, NDS | MEM | INT }, { 1, 0x60, NDS | MEM | INT }, { 1, 0x61, NDS | MEM | INT },
	{ 1, 0x62, NDS | MEM | INT }, { 1, 0x6c, NDS | MEM | INT }, { 1, 0x68, NDS | MEM | INT },
	{ 1, 0x69, NDS | MEM | INT }, { 1, 0x6a, NDS | MEM | INT }, { 1, 0x6d, NDS | MEM | INT },
	{ 0, 0x14, NDS | MEM }, { 0, 0x15, NDS | MEM }, { 1, 0x14, NDS | MEM }, { 1, 0x15, NDS | MEM },
	/* shifts */
	{ 1, 0xd1, NDS | MEM | INT }, { 1, 0xd2, NDS | MEM | INT }, { 1, 0xd3, NDS | MEM | INT },
	{ 1, 0xe1, NDS | MEM | INT }, { 1, 0xe2, NDS | MEM | INT }, { 1, 0xf1, NDS | MEM | INT },
	{ 1, 0xf2, NDS | MEM | INT }, { 1, 0xf3, NDS | MEM | INT },
	{ 1, 0x71, DG(2) }, { 1, 0x71, DG(4) }, { 1, 0x71, DG(6) }, { 1, 0x72, DG(2) }, { 1, 0x72, DG(4) },
	{ 1, 0x72, DG(6) }, { 1, 0x73, DG(2) }, { 1, 0x73, DG(3) }, { 1, 0x73, DG(6) }, { 1, 0x73, DG(7) },
	/* shuffles, word insert/extract */
	{ 0, 0xc6, NDS | MEM | IMM }, { 1, 0xc6, NDS | MEM | IMM }, { 1, 0x70, MEM | IMM | INT },
	{ 2, 0x70, MEM | IMM | INT }, { 3, 0x70, MEM | IMM | INT },
	{ 1, 0xc5, GREG | REGONLY | IMM | L0 }, { 1, 0xc4, NDS | GRM | MEM | IMM | L0 },
	/* floating point */
	{ 0, 0x51, MEM }, { 1, 0x51, MEM }, { 2, 0x51, NDS | MEM | LIG }, { 3, 0x51, NDS | MEM | LIG },
#define FP4(o) { 0, o, NDS | MEM }, { 1, o, NDS | MEM }, { 2, o, NDS | MEM | LIG }, { 3, o, NDS | MEM | LIG }
	FP4(0x58), FP4(0x59), FP4(0x5c), FP4(0x5d), FP4(0x5e), FP4(0x5f),
	{ 0, 0xc2, NDS | MEM | IMM }, { 1, 0xc2, NDS | MEM | IMM }, { 2, 0xc2, NDS | MEM | LIG | IMM },
	{ 3, 0xc2, NDS | MEM | LIG | IMM },
	{ 0, 0x2e, MEM | LIG | FLAGSW }, { 0, 0x2f, MEM | LIG | FLAGSW }, { 1, 0x2e, MEM | LIG | FLAGSW },
	{ 1, 0x2f, MEM | LIG | FLAGSW },
	/* conversions */
	{ 0, 0x5b, MEM }, { 1, 0x5b, MEM }, { 2, 0x5b, MEM }, { 0, 0x5a, MEM }, { 1, 0x5a, MEM },
	{ 2, 0x5a, NDS | MEM | LIG }, { 3, 0x5a, NDS | MEM | LIG }, { 1, 0xe6, MEM }, { 2, 0xe6, MEM },
	{ 3, 0xe6, MEM }, { 2, 0x2a, NDS | GRM | MEM | LIG }, { 3, 0x2a, NDS | GRM | MEM | LIG },
	{ 2, 0x2c, GREG | MEM | LIG }, { 3, 0x2c, GREG | MEM | LIG }, { 2, 0x2d, GREG | MEM | LIG },
	{ 3, 0x2d, GREG | MEM | LIG },
	{ 1, 0xf7, REGONLY | L0 },                  /* VMASKMOVDQU [EDI] */
	/* SSE3 */
	{ 1, 0xd0, NDS | MEM }, { 3, 0xd0, NDS | MEM }, { 1, 0x7c, NDS | MEM }, { 3, 0x7c, NDS | MEM },
	{ 1, 0x7d, NDS | MEM }, { 3, 0x7d, NDS | MEM }, { 2, 0x12, MEM }, { 2, 0x16, MEM }, { 3, 0x12, MEM },
	/* SSSE3 */
#define S38(o) { 1, o, MAP38 | NDS | MEM | INT }
	S38(0x00), S38(0x01), S38(0x02), S38(0x03), S38(0x04), S38(0x05), S38(0x06), S38(0x07),
	S38(0x08), S38(0x09), S38(0x0a), S38(0x0b),
	{ 1, 0x1c, MAP38 | MEM | INT }, { 1, 0x1d, MAP38 | MEM | INT }, { 1, 0x1e, MAP38 | MEM | INT },
	{ 1, 0x0f, MAP3A | NDS | MEM | IMM | INT },
	/* SSE4.1, SSE4.2 */
	{ 1, 0x17, MAP38 | MEM | FLAGSW },
#define PMOVX(o) { 1, o, MAP38 | MEM | INT }
	PMOVX(0x20), PMOVX(0x21), PMOVX(0x22), PMOVX(0x23), PMOVX(0x24), PMOVX(0x25),
	PMOVX(0x30), PMOVX(0x31), PMOVX(0x32), PMOVX(0x33), PMOVX(0x34), PMOVX(0x35),
	S38(0x28), S38(0x29), S38(0x2b), S38(0x37), S38(0x38), S38(0x39), S38(0x3a), S38(0x3b),
	S38(0x3c), S38(0x3d), S38(0x3e), S38(0x3f), S38(0x40),
	{ 1, 0x41, MAP38 | MEM | L0 }, { 1, 0x2a, MAP38 | AMEM | MEMONLY | INT },
	{ 1, 0x08, MAP3A | MEM | IMM }, { 1, 0x09, MAP3A | MEM | IMM },
	{ 1, 0x0a, MAP3A | NDS | MEM | IMM | LIG }, { 1, 0x0b, MAP3A | NDS | MEM | IMM | LIG },
	{ 1, 0x0c, MAP3A | NDS | MEM | IMM }, { 1, 0x0d, MAP3A | NDS | MEM | IMM },
	{ 1, 0x0e, MAP3A | NDS | MEM | IMM | INT },
	{ 1, 0x4a, MAP3A | NDS | MEM | IS4 }, { 1, 0x4b, MAP3A | NDS | MEM | IS4 },
	{ 1, 0x4c, MAP3A | NDS | MEM | IS4 | INT },
	{ 1, 0x40, MAP3A | NDS | MEM | IMM | DPP }, { 1, 0x41, MAP3A | NDS | MEM | IMM | L0 | DPP },
	{ 1, 0x42, MAP3A | NDS | MEM | IMM | INT },
	{ 1, 0x14, MAP3A | GRM | MEM | IMM | L0 }, { 1, 0x15, MAP3A | GRM | MEM | IMM | L0 },
	{ 1, 0x16, MAP3A | GRM | MEM | IMM | L0 }, { 1, 0x17, MAP3A | GRM | MEM | IMM | L0 },
	{ 1, 0x20, MAP3A | NDS | GRM | MEM | IMM | L0 }, { 1, 0x21, MAP3A | NDS | MEM | IMM | L0 },
	{ 1, 0x22, MAP3A | NDS | GRM | MEM | IMM | L0 },
	{ 1, 0x60, MAP3A | MEM | IMM | L0 | STRCMP | FLAGSW }, { 1, 0x61, MAP3A | MEM | IMM | L0 | STRCMP | FLAGSW },
	{ 1, 0x62, MAP3A | MEM | IMM | L0 | STRCMP | FLAGSW }, { 1, 0x63, MAP3A | MEM | IMM | L0 | STRCMP | FLAGSW },
};

/* The AES-NI and PCLMULQDQ forms, with aes_on (the host has both). */
static const struct avx_op avx_crypto_ops[] = {
	{ 1, 0xdb, MAP38 | MEM | L0 }, { 1, 0xdc, MAP38 | NDS | MEM | L0 }, { 1, 0xdd, MAP38 | NDS | MEM | L0 },
	{ 1, 0xde, MAP38 | NDS | MEM | L0 }, { 1, 0xdf, MAP38 | NDS | MEM | L0 },
	{ 1, 0xdf, MAP3A | MEM | IMM | L0 }, { 1, 0x44, MAP3A | NDS | MEM | IMM | L0 },
};
bool aes_on;

bool avx2_on;

bool dpp_on = true;

static const unsigned avx_gprs[] = { R_AX, R_CX, R_DX, R_BX, R_BP };

/* A random row and VEX.L for it. */
static const struct avx_op *pick_op(struct gen *g, unsigned *l)
{
	const struct avx_op *o;
	do {
		if (aes_on && pick(g, 16) == 0)
			o = &avx_crypto_ops[pick(g, sizeof(avx_crypto_ops) / sizeof(avx_crypto_ops[0]))];
		else
			o = &avx_ops[pick(g, sizeof(avx_ops) / sizeof(avx_ops[0]))];
		*l = (o->how & L0) ? 0 : pick(g, 2);
	} while ((*l && (o->how & INT) && !avx2_on) || ((o->how & DPP) && !dpp_on));
	return o;
}

void gen_avx(struct gen *g)
{
	unsigned l;
	const struct avx_op *o = pick_op(g, &l);
	uint32_t how = o->how;
	if (how & STRCMP) {                         /* lengths -20..20 */
		emit(g, 0xb8 + R_AX), emit_imm(g, (uint32_t)((int)pick(g, 41) - 20), 4);
		emit(g, 0xb8 + R_DX), emit_imm(g, (uint32_t)((int)pick(g, 41) - 20), 4);
		flags_written(g, ARITH, 0);
	}
	bool mem = !(how & REGONLY) && ((how & MEMONLY) || ((how & (MEM | AMEM)) && pick(g, 3) == 0));
	if (mem && (how & AMEM)) {
		emit(g, 0xb8 + R_BX);                   /* mov ebx, 32-byte aligned in 600H-6FFH */
		emit_imm(g, DIFF_DATA_ADDR + 0x600 + 32 * pick(g, 8), 4);
	}
	unsigned vvvv = (how & NDS) || ((how & NDS_REG) && !mem) ? pick(g, 8) : 0;
	unsigned vnot = ~vvvv & 15, pp = o->pp;
	unsigned map = (how & MAP38) ? 2 : (how & MAP3A) ? 3 : 1;
	if (map == 1 && pick(g, 2)) {
		emit(g, 0xc5);
		emit(g, 0x80 | vnot << 3 | l << 2 | pp);
	} else {
		emit(g, 0xc4);
		emit(g, 0xe0 | map);                    /* R, X, B (stored inverted) 0, the map */
		emit(g, vnot << 3 | l << 2 | pp);       /* W = 0 */
	}
	emit(g, o->op);
	unsigned reg = (how & DIGIT) ? (how >> DIGIT_SHIFT) & 7 : (how & GREG) ? avx_gprs[pick(g, 5)] : pick(g, 8);
	if (mem && (how & AMEM)) {
		emit(g, (reg << 3) | R_BX);             /* [EBX] */
	} else if (mem) {
		emit(g, 0x40 | (reg << 3) | (pick(g, 2) ? 6 : 7));
		emit(g, pick(g, 112));
	} else {
		emit(g, 0xc0 | (reg << 3) | ((how & GRM) ? avx_gprs[pick(g, 5)] : pick(g, 8)));
	}
	if (how & IS4)
		emit(g, pick(g, 8) << 4 | pick(g, 16));
	else if (how & IMM)
		emit(g, (o->op == 0xc2 && map == 1) ? pick(g, 32) : pick(g, 4) == 0 ? pick(g, 256) : pick(g, 72));
	if (how & FLAGSW)
		flags_written(g, ARITH, 0);
}

/* ---- the 64-bit run (host_diff -m avx64) ---- */

/* One row in 64-bit code: registers 0-15 (VEX.R, VEX.B, vvvv[3]), memory forms
 * of enc64.h (REX.X/B bases and indexes, RIP-relative, 67), VEX.W random but
 * where the row wants W0 (VEX.W1 picks the 64-bit integer forms: VMOVQ r64,
 * VPEXTRQ/VPINSRQ, VCVTSI2SD r64, VPCMPESTRx with RAX/RDX). */
static void gen_avx64(struct gen *g)
{
	unsigned l;
	const struct avx_op *o = pick_op(g, &l);
	uint32_t how = o->how;
	bool w = !(how & IS4) && pick(g, 2);
	if (how & STRCMP) {
		mov_imm(g, R_AX, (uint64_t)(int64_t)((int)pick(g, 41) - 20));
		mov_imm(g, R_DX, (uint64_t)(int64_t)((int)pick(g, 41) - 20));
		flags_written(g, ARITH, 0);
	}
	bool mem = !(how & REGONLY) && ((how & MEMONLY) || ((how & (MEM | AMEM)) && pick(g, 3) == 0));
	struct rm rm = mem ? mem_rm(g, 32, (how & AMEM) ? (l ? 32 : 16) : 1, true, true)
			   : reg_rm((how & GRM) ? dreg(g) : pick(g, 16));
	unsigned vvvv = (how & NDS) || ((how & NDS_REG) && !mem) ? pick(g, 16) : 0;
	unsigned reg = (how & DIGIT) ? (how >> DIGIT_SHIFT) & 7 : (how & GREG) ? dreg(g) : pick(g, 16);
	unsigned map = (how & MAP38) ? 2 : (how & MAP3A) ? 3 : 1;
	int imm = -1;
	if (how & IS4)
		imm = (int)(pick(g, 16) << 4 | pick(g, 16));
	else if (how & IMM)
		imm = (int)((o->op == 0xc2 && map == 1) ? pick(g, 32) : pick(g, 4) == 0 ? pick(g, 256) : pick(g, 72));
	encode_vex3(g, o->pp, map, w, l, vvvv, reg, o->op, &rm, imm);
	if (how & FLAGSW)
		flags_written(g, ARITH, 0);
}

uint32_t gen_case_avx64(struct gen *g, struct diff_request *rq)
{
	(void)gen_case64(g, rq);                    /* the registers, flags and data */
	rq->x87 = 0;
	rq->avx = 1;
	for (unsigned x = 0; x < 16; x++) {
		if (pick(g, 3) == 0)
			fill_fp(g, rq->in.ymm_hi[x]);
		else
			for (unsigned i = 0; i < 16; i++)
				rq->in.ymm_hi[x][i] = (uint8_t)rnd(g);
	}
	return gen_sequence(g, rq, gen_avx64);
}
