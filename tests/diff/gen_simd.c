/* The SIMD-extensions run's generator (host_diff -m simd): MMX and its
 * SSE/SSE2-era additions, SSE3, SSSE3, SSE4.1, SSE4.2, AES-NI, PCLMULQDQ and
 * SHA, in their legacy (non-VEX) encodings, mixed with x87 instructions. hvemu
 * runs the bytes in flat 32-bit protected mode as the CPU model of the host's
 * vendor; the encodings mean the same in 64-bit mode (no REX, no 67; see
 * gen32.c), so the host runs them as they are.
 *
 * Every case uses the x87 (gen_x87_start: a random FRSTOR image), so the whole
 * x87 state is compared at the end: the MMX registers as ST(0)..ST(7) with
 * their bits 79:64, TOP and the tags after MMX instructions and EMMS (SDM
 * Vol.1 9.5). XMM0-7, MXCSR and the scratch page are compared as in the 32-bit
 * run.
 *
 * An instruction family runs only when both the host and the model report its
 * CPUID bit (host_diff prints which were compared and which skipped).
 */
#include "tests/diff/gen.h"

/* Operand kinds of the ModRM fields. */
enum {
	K_MM,          /* an MMX register */
	K_XMM,         /* an XMM register (XMM0-7) */
	K_GPR,         /* a general register (EAX, ECX, EDX, EBX, EBP) */
	K_DIGIT,       /* ModRM.reg: the opcode extension in how bits 14:12 */
};

enum {
	REG_K = 3u << 0,        /* the kind of ModRM.reg */
	RM_K = 3u << 2,         /* the kind of ModRM.rm when a register */
	MEM = 1u << 4,          /* a memory form, no alignment: [ESI/EDI+d8] */
	AMEM = 1u << 5,         /* a memory form, 16-byte aligned: [EBX] */
	MEMONLY = 1u << 6,      /* memory form only */
	IMM = 1u << 7,          /* an imm8 follows */
	FLAGSW = 1u << 8,       /* writes OF SF ZF AF PF CF (all defined) */
	PFX66 = 1u << 9,        /* 66 prefix (the XMM form of an MMX/SSSE3 opcode) */
	STR = 1u << 10,         /* a string compare: short lengths in EAX/EDX, nulls, any imm8 */
	DIGIT_SHIFT = 12,
};
#define R(k) (k)
#define M(k) ((k) << 2)
#define DIG(n) (R(K_DIGIT) | M(K_MM) | IMM | (n) << DIGIT_SHIFT)

/* prefix (0, F3, F2; 66 via PFX66), map (1: 0F, 2: 0F 38, 3: 0F 3A), opcode. */
struct simd_op {
	uint8_t pfx, map, op;
	uint8_t family;         /* enum simd_family */
	uint16_t how;
};

#define MMXOP(o) { 0, 1, o, SF_MMX, R(K_MM) | M(K_MM) | MEM }
#define MMXSSE(o) { 0, 1, o, SF_SSE, R(K_MM) | M(K_MM) | MEM }
#define SSSE3(o) { 0, 2, o, SF_SSSE3, R(K_MM) | M(K_MM) | MEM }, \
		 { 0, 2, o, SF_SSSE3, PFX66 | R(K_XMM) | M(K_XMM) | AMEM }
#define XX (R(K_XMM) | M(K_XMM))
#define S41(o) { 0x66, 2, o, SF_SSE41, XX | AMEM }
#define S41N(o) { 0x66, 2, o, SF_SSE41, XX | MEM }
#define S41I(o) { 0x66, 3, o, SF_SSE41, XX | AMEM | IMM }
static const struct simd_op simd_ops[] = {
	/* MMX (SDM Vol.2 Table A-3, no-prefix column) */
	MMXOP(0x60), MMXOP(0x61), MMXOP(0x62), MMXOP(0x63), MMXOP(0x64), MMXOP(0x65), MMXOP(0x66),
	MMXOP(0x67), MMXOP(0x68), MMXOP(0x69), MMXOP(0x6a), MMXOP(0x6b), MMXOP(0x6f),
	MMXOP(0x74), MMXOP(0x75), MMXOP(0x76),
	MMXOP(0xd1), MMXOP(0xd2), MMXOP(0xd3), MMXOP(0xd5), MMXOP(0xd8), MMXOP(0xd9), MMXOP(0xdb),
	MMXOP(0xdc), MMXOP(0xdd), MMXOP(0xdf), MMXOP(0xe1), MMXOP(0xe2), MMXOP(0xe5),
	MMXOP(0xe8), MMXOP(0xe9), MMXOP(0xeb), MMXOP(0xec), MMXOP(0xed), MMXOP(0xef),
	MMXOP(0xf1), MMXOP(0xf2), MMXOP(0xf3), MMXOP(0xf5), MMXOP(0xf8), MMXOP(0xf9), MMXOP(0xfa),
	MMXOP(0xfc), MMXOP(0xfd), MMXOP(0xfe),
	{ 0, 1, 0x7f, SF_MMX, R(K_MM) | M(K_MM) | MEM },                      /* MOVQ mm/m64, mm */
	{ 0, 1, 0x6e, SF_MMX, R(K_MM) | M(K_GPR) | MEM },                     /* MOVD mm, r/m32 */
	{ 0, 1, 0x7e, SF_MMX, R(K_MM) | M(K_GPR) | MEM },                     /* MOVD r/m32, mm */
	{ 0, 1, 0x71, SF_MMX, DIG(2) }, { 0, 1, 0x71, SF_MMX, DIG(4) }, { 0, 1, 0x71, SF_MMX, DIG(6) },
	{ 0, 1, 0x72, SF_MMX, DIG(2) }, { 0, 1, 0x72, SF_MMX, DIG(4) }, { 0, 1, 0x72, SF_MMX, DIG(6) },
	{ 0, 1, 0x73, SF_MMX, DIG(2) }, { 0, 1, 0x73, SF_MMX, DIG(6) },
	{ 0, 1, 0x77, SF_MMX, 0 },                                            /* EMMS */
	/* the SSE additions */
	MMXSSE(0xda), MMXSSE(0xde), MMXSSE(0xea), MMXSSE(0xee), MMXSSE(0xe0), MMXSSE(0xe3),
	MMXSSE(0xe4), MMXSSE(0xf6),
	{ 0, 1, 0x70, SF_SSE, R(K_MM) | M(K_MM) | MEM | IMM },                /* PSHUFW */
	{ 0, 1, 0xc4, SF_SSE, R(K_MM) | M(K_GPR) | MEM | IMM },               /* PINSRW mm, r32/m16 */
	{ 0, 1, 0xc5, SF_SSE, R(K_GPR) | M(K_MM) | IMM },                     /* PEXTRW r32, mm */
	{ 0, 1, 0xd7, SF_SSE, R(K_GPR) | M(K_MM) },                           /* PMOVMSKB r32, mm */
	{ 0, 1, 0xf7, SF_SSE, R(K_MM) | M(K_MM) },                            /* MASKMOVQ [EDI] */
	{ 0, 1, 0xe7, SF_SSE, R(K_MM) | MEM | MEMONLY },                      /* MOVNTQ */
	/* the SSE2 additions */
	{ 0, 1, 0xd4, SF_SSE2, R(K_MM) | M(K_MM) | MEM },                     /* PADDQ mm */
	{ 0, 1, 0xfb, SF_SSE2, R(K_MM) | M(K_MM) | MEM },                     /* PSUBQ mm */
	{ 0, 1, 0xf4, SF_SSE2, R(K_MM) | M(K_MM) | MEM },                     /* PMULUDQ mm */
	{ 0xf3, 1, 0xd6, SF_SSE2, R(K_XMM) | M(K_MM) },                       /* MOVQ2DQ */
	{ 0xf2, 1, 0xd6, SF_SSE2, R(K_MM) | M(K_XMM) },                       /* MOVDQ2Q */
	/* the MMX-operand conversions */
	{ 0, 1, 0x2a, SF_SSE, R(K_XMM) | M(K_MM) | MEM },                     /* CVTPI2PS */
	{ 0, 1, 0x2d, SF_SSE, R(K_MM) | M(K_XMM) | MEM },                     /* CVTPS2PI */
	{ 0, 1, 0x2c, SF_SSE, R(K_MM) | M(K_XMM) | MEM },                     /* CVTTPS2PI */
	{ 0, 1, 0x2a, SF_SSE2, PFX66 | R(K_XMM) | M(K_MM) | MEM },            /* CVTPI2PD */
	{ 0, 1, 0x2d, SF_SSE2, PFX66 | R(K_MM) | M(K_XMM) | AMEM },           /* CVTPD2PI */
	{ 0, 1, 0x2c, SF_SSE2, PFX66 | R(K_MM) | M(K_XMM) | AMEM },           /* CVTTPD2PI */
	/* SSSE3, MMX and XMM forms (SDM Vol.2 Table A-4) */
	SSSE3(0x00), SSSE3(0x01), SSSE3(0x02), SSSE3(0x03), SSSE3(0x04), SSSE3(0x05), SSSE3(0x06),
	SSSE3(0x07), SSSE3(0x08), SSSE3(0x09), SSSE3(0x0a), SSSE3(0x0b), SSSE3(0x1c), SSSE3(0x1d),
	SSSE3(0x1e),
	{ 0, 3, 0x0f, SF_SSSE3, R(K_MM) | M(K_MM) | MEM | IMM },              /* PALIGNR mm */
	{ 0, 3, 0x0f, SF_SSSE3, PFX66 | R(K_XMM) | M(K_XMM) | AMEM | IMM },   /* PALIGNR xmm */
	/* SSE3 */
	{ 0x66, 1, 0xd0, SF_SSE3, XX | AMEM }, { 0xf2, 1, 0xd0, SF_SSE3, XX | AMEM },   /* ADDSUBPD/PS */
	{ 0x66, 1, 0x7c, SF_SSE3, XX | AMEM }, { 0xf2, 1, 0x7c, SF_SSE3, XX | AMEM },   /* HADDPD/PS */
	{ 0x66, 1, 0x7d, SF_SSE3, XX | AMEM }, { 0xf2, 1, 0x7d, SF_SSE3, XX | AMEM },   /* HSUBPD/PS */
	{ 0xf3, 1, 0x12, SF_SSE3, XX | AMEM }, { 0xf3, 1, 0x16, SF_SSE3, XX | AMEM },   /* MOVSLDUP/MOVSHDUP */
	{ 0xf2, 1, 0x12, SF_SSE3, XX | MEM },                                        /* MOVDDUP */
	{ 0xf2, 1, 0xf0, SF_SSE3, XX | MEM | MEMONLY },                              /* LDDQU */
	/* SSE4.1 (66 0F 38 / 66 0F 3A) */
	S41(0x10), S41(0x14), S41(0x15), S41(0x28), S41(0x29), S41(0x2b),
	S41(0x38), S41(0x39), S41(0x3a), S41(0x3b), S41(0x3c), S41(0x3d), S41(0x3e), S41(0x3f),
	S41(0x40), S41(0x41),
	{ 0x66, 2, 0x17, SF_SSE41, XX | AMEM | FLAGSW },                            /* PTEST */
	S41N(0x20), S41N(0x21), S41N(0x22), S41N(0x23), S41N(0x24), S41N(0x25),
	S41N(0x30), S41N(0x31), S41N(0x32), S41N(0x33), S41N(0x34), S41N(0x35),
	{ 0x66, 2, 0x2a, SF_SSE41, XX | AMEM | MEMONLY },                           /* MOVNTDQA */
	S41I(0x0c), S41I(0x0d), S41I(0x0e), S41I(0x42), S41I(0x08), S41I(0x09), S41I(0x40), S41I(0x41),
	{ 0x66, 3, 0x0a, SF_SSE41, XX | MEM | IMM }, { 0x66, 3, 0x0b, SF_SSE41, XX | MEM | IMM },  /* ROUNDSS/SD */
	{ 0x66, 3, 0x14, SF_SSE41, R(K_XMM) | M(K_GPR) | MEM | IMM },              /* PEXTRB r32/m8 */
	{ 0x66, 3, 0x15, SF_SSE41, R(K_XMM) | M(K_GPR) | MEM | IMM },              /* PEXTRW r32/m16 */
	{ 0x66, 3, 0x16, SF_SSE41, R(K_XMM) | M(K_GPR) | MEM | IMM },              /* PEXTRD */
	{ 0x66, 3, 0x17, SF_SSE41, R(K_XMM) | M(K_GPR) | MEM | IMM },              /* EXTRACTPS */
	{ 0x66, 3, 0x20, SF_SSE41, R(K_XMM) | M(K_GPR) | MEM | IMM },              /* PINSRB */
	{ 0x66, 3, 0x21, SF_SSE41, XX | MEM | IMM },                                /* INSERTPS */
	{ 0x66, 3, 0x22, SF_SSE41, R(K_XMM) | M(K_GPR) | MEM | IMM },              /* PINSRD */
	/* SSE4.2 */
	{ 0x66, 2, 0x37, SF_SSE42, XX | AMEM },                                     /* PCMPGTQ */
	{ 0x66, 3, 0x60, SF_SSE42, XX | MEM | IMM | FLAGSW | STR },                /* PCMPESTRM */
	{ 0x66, 3, 0x61, SF_SSE42, XX | MEM | IMM | FLAGSW | STR },                /* PCMPESTRI */
	{ 0x66, 3, 0x62, SF_SSE42, XX | MEM | IMM | FLAGSW | STR },                /* PCMPISTRM */
	{ 0x66, 3, 0x63, SF_SSE42, XX | MEM | IMM | FLAGSW | STR },                /* PCMPISTRI */
	/* AES-NI, PCLMULQDQ, SHA */
	{ 0x66, 2, 0xdb, SF_AES, XX | AMEM }, { 0x66, 2, 0xdc, SF_AES, XX | AMEM }, { 0x66, 2, 0xdd, SF_AES, XX | AMEM },
	{ 0x66, 2, 0xde, SF_AES, XX | AMEM }, { 0x66, 2, 0xdf, SF_AES, XX | AMEM },
	{ 0x66, 3, 0xdf, SF_AES, XX | AMEM | IMM },                                 /* AESKEYGENASSIST */
	{ 0x66, 3, 0x44, SF_PCLMUL, XX | AMEM | IMM },                              /* PCLMULQDQ */
	{ 0, 2, 0xc8, SF_SHA, XX | AMEM }, { 0, 2, 0xc9, SF_SHA, XX | AMEM }, { 0, 2, 0xca, SF_SHA, XX | AMEM },
	{ 0, 2, 0xcb, SF_SHA, XX | AMEM }, { 0, 2, 0xcc, SF_SHA, XX | AMEM }, { 0, 2, 0xcd, SF_SHA, XX | AMEM },
	{ 0, 3, 0xcc, SF_SHA, XX | AMEM | IMM },                                    /* SHA1RNDS4 */
};

static const unsigned gprs[] = { R_AX, R_CX, R_DX, R_BX, R_BP };

/* The families this run compares (bit per enum simd_family), set by host_diff. */
uint32_t simd_families;

/* mov ebx, an address in the scratch page's 600H-6FFH, 16-byte aligned. */
static void aligned_ebx(struct gen *g)
{
	emit(g, 0xb8 + R_BX);
	emit_imm(g, DIFF_DATA_ADDR + 0x600 + 16 * pick(g, 16), 4);
}

/* 16 bytes from a small alphabet (nulls, 'a'-'c', and 00 61 word pairs), so
 * the string compares find matches, ranges and terminators. */
static void small_alphabet(struct gen *g, unsigned disp)
{
	static const uint8_t alpha[] = { 0, 'a', 'b', 'c', 'a', 'b', 0x61, 0x62 };
	for (unsigned k = 0; k < 16; k += 4) {
		uint32_t v = 0;
		for (unsigned i = 0; i < 4; i++)
			v |= (uint32_t)alpha[pick(g, pick(g, 4) ? 4 : 8)] << (8 * i);
		emit(g, 0xc7), emit(g, 0x46), emit(g, disp + k), emit_imm(g, v, 4);   /* mov [esi+d], imm32 */
	}
}

/* A string compare (SSE4.2): lengths -20..20 in EAX/EDX, both operands often
 * from a small alphabet, any imm8. */
static void gen_string(struct gen *g, const struct simd_op *o)
{
	unsigned x = pick(g, 8), y = pick(g, 8);
	emit(g, 0xb8 + R_AX), emit_imm(g, (uint32_t)((int)pick(g, 41) - 20), 4);
	emit(g, 0xb8 + R_DX), emit_imm(g, (uint32_t)((int)pick(g, 41) - 20), 4);
	bool small = pick(g, 4) != 0;
	unsigned d1 = 16 * pick(g, 3), d2 = 48 + 16 * pick(g, 3);
	if (small) {
		small_alphabet(g, d1);
		emit(g, 0xf3), emit(g, 0x0f), emit(g, 0x6f), emit(g, 0x46 | x << 3), emit(g, d1);   /* movdqu xmm_x, [esi+d1] */
		small_alphabet(g, d2);
	}
	emit(g, 0x66), emit(g, 0x0f), emit(g, 0x3a), emit(g, o->op);
	if (small || pick(g, 2))
		emit(g, 0x46 | x << 3), emit(g, d2);                                           /* [esi+d2] */
	else
		emit(g, 0xc0 | x << 3 | y);
	emit(g, pick(g, 256));
	flags_written(g, ARITH, 0);
}

void gen_simd(struct gen *g)
{
	const struct simd_op *o;
	unsigned n = sizeof(simd_ops) / sizeof(simd_ops[0]);
	do
		o = &simd_ops[pick(g, n)];
	while (!(simd_families >> o->family & 1));
	unsigned how = o->how, rk = how & REG_K, mk = (how & RM_K) >> 2;
	if (how & STR) {
		gen_string(g, o);
		return;
	}
	bool mem = (how & MEMONLY) || ((how & (MEM | AMEM)) && pick(g, 3) == 0);
	if (mem && (how & AMEM))
		aligned_ebx(g);
	if (how & PFX66)
		emit(g, 0x66);
	if (o->pfx)
		emit(g, o->pfx);
	emit(g, 0x0f);
	if (o->map == 2)
		emit(g, 0x38);
	else if (o->map == 3)
		emit(g, 0x3a);
	emit(g, o->op);
	if (o->op == 0x77 && o->map == 1)
		return;                                 /* EMMS: no ModRM */
	unsigned reg = rk == K_DIGIT ? (how >> DIGIT_SHIFT) & 7 : rk == K_GPR ? gprs[pick(g, 5)] : pick(g, 8);
	if (mem && (how & AMEM)) {
		emit(g, (reg << 3) | R_BX);             /* [EBX] */
	} else if (mem) {
		emit(g, 0x40 | (reg << 3) | (pick(g, 2) ? 6 : 7));
		emit(g, pick(g, 112));
	} else {
		emit(g, 0xc0 | (reg << 3) | (mk == K_GPR ? gprs[pick(g, 5)] : pick(g, 8)));
	}
	if (how & IMM)
		emit(g, (how & STR) || pick(g, 4) == 0 ? pick(g, 256) : pick(g, 72));
	if (how & FLAGSW)
		flags_written(g, ARITH, 0);
}
