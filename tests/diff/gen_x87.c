/* The x87 family, for both runs: every instruction of emu/isa/x87.isa on
 * operands that reach the special cases (SDM Vol.1 4.2.2, 4.8.3, 8.5): zeros,
 * denormals and pseudo-denormals, unnormals and pseudo-NaNs/-infinities,
 * infinities, quiet and signalling NaNs, tiny and huge normals (FSIN/FCOS/
 * FPTAN arguments beyond 2^63 leave C2 = 1), integers at the conversion limits,
 * packed BCD with invalid digits; empty and full stacks (stack overflow and
 * underflow); random precision and rounding control.
 *
 * A case that uses the x87 starts from a random FRSTOR image placed at
 * [rSI-128], so both sides start from the same state (FNINIT would leave the
 * registers' contents, which FNSAVE shows, as the last case left them). The 32-bit run has no
 * exception handlers, so there every exception stays masked: FLDCW loads a
 * value the generator stored just before, FLDENV/FRSTOR reload what an
 * FNSTENV/FNSAVE of the same sequence stored. The 64-bit run unmasks
 * exceptions at random, loads environments from random memory and adds FWAIT:
 * a pending unmasked exception ends the case with #MF (SIGFPE on the host) at
 * the next waiting instruction, and the state at that point is compared.
 */
#include "tests/diff/enc64.h"

/* An 80-bit value (SDM Vol.1 4.2.2, Table 8-3 encodings) at p, sign random;
 * of class cls, or of a random class if cls < 0. */
enum { F80_CLASSES = 14, F80_HUGE = 8 };
static void gen_f80_of(struct gen *g, uint8_t *p, int cls)
{
	uint64_t mant = rnd64(g);
	unsigned exp;
	switch (cls < 0 ? pick(g, F80_CLASSES) : (unsigned)cls) {
	case 0: exp = 0; mant = 0; break;                                           /* zero */
	case 1: exp = 0; mant >>= 1 + pick(g, 63); break;                           /* denormal */
	case 2: exp = 0; mant |= 1ull << 63; break;                                 /* pseudo-denormal */
	case 3: exp = 1 + pick(g, 0x7ffe); mant &= ~(1ull << 63); break;            /* unnormal */
	case 4: exp = 0x7fff; mant = 1ull << 63; break;                             /* infinity */
	case 5: exp = 0x7fff; mant |= 3ull << 62; break;                            /* QNaN */
	case 6: exp = 0x7fff; mant = (mant | 1ull << 63 | 1) & ~(1ull << 62); break; /* SNaN */
	case 7: exp = 0x7fff; mant &= pick(g, 2) ? 0 : ~(1ull << 63); break;        /* pseudo-infinity/-NaN */
	case 8: exp = 16383 + 58 + pick(g, 12); mant |= 1ull << 63; break;          /* around 2^63 */
	case 9: exp = pick(g, 2) ? 1 + pick(g, 70) : 0x7ffe - pick(g, 70);          /* near the range ends */
		mant |= 1ull << 63; break;
	case 10: {                                                                  /* small integers */
		unsigned bits = 1 + pick(g, 20);
		exp = 16383 + bits - 1;
		mant = (mant | 1ull << 63) & ~0ull << (64 - bits);
		break;
	}
	case 11: exp = 16383 + 14 + 17 * pick(g, 3) + pick(g, 3);                   /* int16/32/64 limits */
		mant = pick(g, 2) ? 1ull << 63 : mant | 1ull << 63; break;
	default: exp = 16383 - 8 + pick(g, 16); mant |= 1ull << 63; break;          /* around 1 */
	}
	uint16_t se = (uint16_t)(exp | (rnd(g) & 1) << 15);
	memcpy(p, &mant, 8);
	memcpy(p + 8, &se, 2);
}
static void gen_f80(struct gen *g, uint8_t *p) { gen_f80_of(g, p, -1); }

/* Packed BCD (SDM Vol.1 4.7, Figure 4-10): 18 digits, sign in byte 9 bit 7;
 * sometimes leading zeros, a digit A-F (invalid), the BCD indefinite FFFFC000..
 * or junk in byte 9 bits 6:0. */
static void gen_bcd(struct gen *g, uint8_t *p)
{
	unsigned digits = pick(g, 3) ? 18 : pick(g, 19);
	memset(p, 0, 10);
	for (unsigned i = 0; i < digits; i++)
		p[i / 2] |= (uint8_t)(pick(g, 10) << (4 * (i & 1)));
	if (pick(g, 8) == 0)
		p[pick(g, 9)] |= (uint8_t)((10 + pick(g, 6)) << (4 * pick(g, 2)));
	p[9] = (uint8_t)(pick(g, 2) << 7);
	if (pick(g, 8) == 0)
		p[9] |= (uint8_t)pick(g, 0x80);
	if (pick(g, 16) == 0) {
		memset(p, 0, 10);
		p[7] = 0xc0, p[8] = 0xff, p[9] = 0xff;
	}
}

void fill_x87(struct gen *g, uint8_t *p)
{
	if (pick(g, 3))
		gen_f80(g, p);
	else
		gen_bcd(g, p);
	for (unsigned i = 10; i < 16; i++)
		p[i] = (uint8_t)rnd(g);
}

/* A control word: random PC, RC and infinity bit, sometimes reserved bits
 * (FLDCW drops them); in the 64-bit run each exception unmasked with
 * probability 1/6. */
static uint16_t gen_fcw(struct gen *g)
{
	uint16_t cw = (uint16_t)((rnd(g) & 0x1f00) | 0x3f | (pick(g, 4) ? 0 : rnd(g) & 0xe0c0));
	if (g->x87_unmask)
		for (unsigned b = 0; b < 6; b++)
			if (pick(g, 6) == 0)
				cw &= (uint16_t)~(1u << b);
	return cw;
}

/* An FNSAVE image (SDM Vol.1 Figure 8-9) with a random state. */
static void gen_image(struct gen *g, uint8_t *img)
{
	uint16_t fcw = gen_fcw(g);
	/* Sticky flags that are unmasked would be pending at once: mostly not. */
	uint16_t flags = (uint16_t)(pick(g, 2) ? rnd(g) & 0x7f : 0);
	if (pick(g, 4))
		flags &= (uint16_t)(fcw | 0x40);
	uint16_t fsw = (uint16_t)((rnd(g) & 0x7f00) | flags | (rnd(g) & 0x8080));
	uint16_t ftw = 0;
	unsigned fill = pick(g, 8);                 /* 0: all empty, 1: all full, else mixed */
	for (unsigned i = 0; i < 8; i++) {
		bool empty = fill == 0 || (fill != 1 && pick(g, 3) == 0);
		ftw |= (uint16_t)((empty ? 3 : pick(g, 3)) << (2 * i));
	}
	memset(img, 0, 108);
	memcpy(img, &fcw, 2);
	memcpy(img + 4, &fsw, 2);
	memcpy(img + 8, &ftw, 2);
	for (unsigned i = 12; i < 28; i++)
		img[i] = (uint8_t)rnd(g);
	for (unsigned i = 0; i < 8; i++)
		gen_f80(g, img + 28 + 10 * i);
}

void gen_x87_start(struct gen *g, struct diff_request *rq)
{
	rq->x87 = 1;
	/* FRSTOR [rSI-128] (DD /4, mod 01 rm 110 disp8 80H: the same in both modes) */
	uint32_t at = (uint32_t)rq->in.regs[R_SI] - 128 - DIFF_DATA_ADDR;
	gen_image(g, rq->in.data + at);
	emit(g, 0xdd), emit(g, 0x66), emit(g, 0x80);
}

/* A memory operand of span bytes for escape/digit. 32-bit run: [ESI/EDI+d8]
 * in the scratch page; 64-bit run: any address form (enc64.c), sometimes
 * 16-byte aligned (the data lines fill_x87 wrote), sometimes with an operand
 * size prefix (which changes only FNSTENV/FLDENV/FNSAVE/FRSTOR). */
struct x87_mem {
	bool m64;
	struct rm rm;              /* 64-bit run */
	uint8_t modrm_rm, disp;    /* 32-bit run */
};

static struct x87_mem gen_mem(struct gen *g, unsigned span)
{
	struct x87_mem m = { .m64 = g->m64 };
	if (m.m64)
		m.rm = mem_rm(g, span, pick(g, 2) ? 16 : 1, true, true);
	else
		m.modrm_rm = pick(g, 2) ? 6 : 7, m.disp = (uint8_t)pick(g, 120);
	return m;
}

static void emit_mem(struct gen *g, unsigned pfx, unsigned escape, unsigned digit, const struct x87_mem *m)
{
	if (m->m64) {
		encode(g, pfx, false, false, digit, escape, 1, &m->rm, 0, 0);
		return;
	}
	if (pfx & P_66)
		emit(g, 0x66);
	emit(g, escape);
	emit(g, 0x40 | digit << 3 | m->modrm_rm);
	emit(g, m->disp);
}

/* MOV [m + off], imm of n bytes (2 or 4). In the 64-bit run off > 0 needs a
 * form with a displacement (see mem_disp). */
static void store_imm(struct gen *g, const struct x87_mem *m, unsigned off, uint32_t v, unsigned n)
{
	if (m->m64) {
		struct rm rm = m->rm;
		rm.disp += off, rm.target += off;
		encode(g, n == 2 ? P_66 : 0, false, false, 0, 0xc7, 1, &rm, v, n);
		return;
	}
	if (n == 2)
		emit(g, 0x66);
	emit(g, 0xc7), emit(g, 0x40 | m->modrm_rm), emit(g, (m->disp + off) & 0xff);
	emit_imm(g, v, n);
}

/* A memory operand of span bytes whose address form has a displacement (so
 * that store_imm can reach its bytes one by one). */
static struct x87_mem mem_disp(struct gen *g, unsigned span)
{
	struct x87_mem m = gen_mem(g, span);
	while (m.m64 && m.rm.disp_len == 0)
		m = gen_mem(g, span);
	if (!m.m64)
		m.disp = (uint8_t)pick(g, 110);
	return m;
}

/* Write a 10-byte value to m with three MOVs. */
static void store_m80(struct gen *g, const struct x87_mem *m, const uint8_t *v)
{
	uint32_t d[2];
	uint16_t w;
	memcpy(d, v, 8), memcpy(&w, v + 8, 2);
	store_imm(g, m, 0, d[0], 4);
	store_imm(g, m, 4, d[1], 4);
	store_imm(g, m, 8, w, 2);
}

/* The D9 E0-FF one-operand group and FNOP (SDM Vol.2 Table A-10): FCHS FABS
 * FTST FXAM, the constants, F2XM1 FYL2X FPTAN FPATAN FXTRACT FPREM1 FDECSTP
 * FINCSTP FPREM FYL2XP1 FSQRT FSINCOS FRNDINT FSCALE FSIN FCOS. */
static const uint8_t d9_group[] = {
	0xd0, 0xe0, 0xe1, 0xe4, 0xe5, 0xe8, 0xe9, 0xea, 0xeb, 0xec, 0xed, 0xee,
	0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
};

/* Register forms moving values (FLD, FXCH, FST, FSTP, FFREE, FUCOM(P)) and the
 * aliases (FSTP1, FCOM2, FCOMP3, FXCH4, FCOMP5, FFREEP, FXCH7, FSTP8, FSTP9):
 * escape and ModRM base, plus i. */
static const uint16_t reg_moves[] = {
	0xd9c0, 0xd9c8, 0xddd0, 0xddd8, 0xddc0, 0xdde0, 0xdde8,
	0xd9d8, 0xdcd0, 0xdcd8, 0xddc8, 0xded0, 0xdfc0, 0xdfc8, 0xdfd0, 0xdfd8,
};

/* Memory loads and stores: escape, digit, bytes. */
static const struct { uint8_t escape, digit, bytes, store; } mem_forms[] = {
	{ 0xd9, 0, 4, 0 }, { 0xdd, 0, 8, 0 }, { 0xdb, 5, 10, 0 }, { 0xdf, 0, 2, 0 }, { 0xdb, 0, 4, 0 },
	{ 0xdf, 5, 8, 0 }, { 0xdf, 4, 10, 0 },                                  /* FLD, FILD, FBLD */
	{ 0xd9, 2, 4, 1 }, { 0xd9, 3, 4, 1 }, { 0xdd, 2, 8, 1 }, { 0xdd, 3, 8, 1 }, { 0xdb, 7, 10, 1 },
	{ 0xdf, 2, 2, 1 }, { 0xdf, 3, 2, 1 }, { 0xdb, 2, 4, 1 }, { 0xdb, 3, 4, 1 }, { 0xdf, 7, 8, 1 },
	{ 0xdf, 6, 10, 1 },                                                     /* FST(P), FIST(P), FBSTP */
	{ 0xdf, 1, 2, 1 }, { 0xdb, 1, 4, 1 }, { 0xdd, 1, 8, 1 },                /* FISTTP */
};

/* An environment store and its reload: FNSTENV/FLDENV or FNSAVE/FRSTOR, 16- or
 * 32-bit format, x87 register instructions between them; only those
 * instructions on a host whose images would differ (gen.h no_env_stores). */
static void gen_env_pair(struct gen *g)
{
	if (g->no_env_stores) {
		emit(g, 0xd9);
		emit(g, d9_group[pick(g, sizeof(d9_group))]);
		return;
	}
	bool save = pick(g, 2), w16 = pick(g, 3) == 0;
	struct x87_mem m = gen_mem(g, save ? 108 : 28);
	unsigned pfx = w16 ? P_66 : 0;
	emit_mem(g, pfx, save ? 0xdd : 0xd9, 6, &m);
	for (unsigned k = pick(g, 3); k-- > 0;) {
		emit(g, 0xd9);
		emit(g, d9_group[pick(g, sizeof(d9_group))]);
	}
	emit_mem(g, pfx, save ? 0xdd : 0xd9, 4, &m);
}

void gen_x87(struct gen *g)
{
	switch (pick(g, 21)) {
	case 0: case 1: case 2: {                   /* arithmetic and compares, register forms */
		static const uint8_t esc[] = { 0xd8, 0xdc, 0xde };
		unsigned e = esc[pick(g, 3)], digit = pick(g, 8);
		emit(g, e);
		emit(g, e == 0xde && digit == 3 ? 0xd9 : 0xc0 | digit << 3 | pick(g, 8));
		break;
	}
	case 3: case 4: {                           /* m32fp, m64fp, m32int, m16int arithmetic and compares */
		static const uint8_t esc[] = { 0xd8, 0xdc, 0xda, 0xde }, bytes[] = { 4, 8, 4, 2 };
		unsigned k = pick(g, 4);
		struct x87_mem m = gen_mem(g, bytes[k]);
		emit_mem(g, 0, esc[k], pick(g, 8), &m);
		break;
	}
	case 5: case 6: case 7: {                   /* loads and stores */
		unsigned k = pick(g, sizeof(mem_forms) / sizeof(mem_forms[0]));
		bool m80_load = mem_forms[k].bytes == 10 && !mem_forms[k].store;
		struct x87_mem m = m80_load ? mem_disp(g, 10) : gen_mem(g, mem_forms[k].bytes);
		if (m80_load && pick(g, 2)) {
			/* An m80fp/m80bcd operand written just before: a special value. */
			uint8_t v[10];
			mem_forms[k].digit == 4 ? gen_bcd(g, v) : gen_f80(g, v);
			store_m80(g, &m, v);
		}
		emit_mem(g, 0, mem_forms[k].escape, mem_forms[k].digit, &m);
		break;
	}
	case 20: {                                  /* a special or huge operand for the D9 group, FBSTP, FIST */
		static const uint8_t ops[] = { 0xfe, 0xff, 0xfb, 0xf2, 0xf8, 0xf5, 0xfd, 0xf4, 0xf1, 0xf3, 0xf0, 0xf9, 0xfc };
		uint8_t v[10];
		gen_f80_of(g, v, pick(g, 2) ? F80_HUGE : -1);
		struct x87_mem m = mem_disp(g, 10);
		store_m80(g, &m, v);
		emit_mem(g, 0, 0xdb, 5, &m);            /* FLD m80fp */
		if (pick(g, 5)) {
			emit(g, 0xd9), emit(g, ops[pick(g, sizeof(ops))]);
		} else {
			unsigned k = 11 + pick(g, 10);      /* a store form of mem_forms */
			struct x87_mem d = gen_mem(g, mem_forms[k].bytes);
			emit_mem(g, 0, mem_forms[k].escape, mem_forms[k].digit, &d);
		}
		break;
	}
	case 8: case 9: {                           /* FLD/FXCH/FST/FSTP/FFREE/FUCOM(P) ST(i), aliases */
		unsigned k = reg_moves[pick(g, sizeof(reg_moves) / sizeof(reg_moves[0]))];
		emit(g, k >> 8);
		emit(g, (k & 0xff) | pick(g, 8));
		break;
	}
	case 10: case 11: case 12: case 13:         /* the D9 group: constants, transcendentals, FPREM, ... */
		emit(g, 0xd9);
		emit(g, d9_group[pick(g, sizeof(d9_group))]);
		break;
	case 14: {                                  /* FUCOMPP, FCOMPP */
		bool u = pick(g, 2);
		emit(g, u ? 0xda : 0xde);
		emit(g, u ? 0xe9 : 0xd9);
		break;
	}
	case 15:                                    /* FCMOVcc: reads CF ZF PF */
		if (g->undef) {
			/* CMP r32, r32 of two of EAX ECX EDX EBX EBP: every flag defined. */
			static const uint8_t r[] = { 0, 1, 2, 3, 5 };
			emit(g, 0x39), emit(g, 0xc0 | r[pick(g, 5)] << 3 | r[pick(g, 5)]);
			g->undef = 0;
		}
		emit(g, 0xda + pick(g, 2));
		emit(g, 0xc0 | pick(g, 32));
		break;
	case 16: {                                  /* FCOMI, FUCOMI, FCOMIP, FUCOMIP: ZF PF CF, OF SF AF := 0 */
		emit(g, pick(g, 2) ? 0xdb : 0xdf);
		emit(g, (pick(g, 2) ? 0xe8 : 0xf0) | pick(g, 8));
		flags_written(g, ARITH, 0);
		break;
	}
	case 17: {                                  /* FLDCW of a value just stored; FNSTCW; FNSTSW */
		struct x87_mem m = gen_mem(g, 2);
		switch (pick(g, 4)) {
		case 0:
			store_imm(g, &m, 0, gen_fcw(g), 2);
			emit_mem(g, 0, 0xd9, 5, &m);
			break;
		case 1: emit_mem(g, 0, 0xd9, 7, &m); break;
		case 2: emit_mem(g, 0, 0xdd, 7, &m); break;
		default: emit(g, 0xdf), emit(g, 0xe0); break;   /* FNSTSW AX */
		}
		break;
	}
	case 18:
		if (g->m64 && pick(g, 2)) {
			/* FLDENV/FRSTOR of whatever memory holds, or FLDCW: any control
			 * word, any pending exception; or FWAIT. */
			switch (pick(g, 3)) {
			case 0: {
				bool rstor = pick(g, 2), w16 = pick(g, 3) == 0;
				struct x87_mem m = gen_mem(g, rstor ? 108 : 28);
				emit_mem(g, w16 ? P_66 : 0, rstor ? 0xdd : 0xd9, 4, &m);
				break;
			}
			case 1: {
				struct x87_mem m = gen_mem(g, 2);
				emit_mem(g, 0, 0xd9, 5, &m);
				break;
			}
			default: emit(g, 0x9b); break;
			}
			break;
		}
		gen_env_pair(g);
		break;
	default:                                    /* FNCLEX, FNINIT, FNENI, FNDISI, FNSETPM */
		emit(g, 0xdb);
		emit(g, (const uint8_t[]){ 0xe2, 0xe2, 0xe3, 0xe0, 0xe1, 0xe4 }[pick(g, 6)]);
		break;
	}
}

/* The blank cells of SDM Vol.2 Tables A-7 to A-22 (#UD), register forms as
 * escape/ModRM and the memory forms as escape/digit. */
static const uint16_t reserved_regs[] = {
	0xd9d1, 0xd9d7, 0xd9e2, 0xd9e3, 0xd9e6, 0xd9e7, 0xd9ef, 0xdae0, 0xdae8, 0xdaea, 0xdaff, 0xdbe5,
	0xdbe7, 0xdbf8, 0xdbff, 0xddf0, 0xddff, 0xded8, 0xdeda, 0xdedf, 0xdfe1, 0xdfe7, 0xdff8, 0xdfff,
};
static const uint8_t reserved_mems[][2] = { { 0xd9, 1 }, { 0xdb, 4 }, { 0xdb, 6 }, { 0xdd, 5 } };

void gen_x87_fault(struct gen *g)
{
	switch (pick(g, 3)) {
	case 0: {                                   /* #UD: a reserved encoding */
		if (pick(g, 3)) {
			unsigned k = reserved_regs[pick(g, sizeof(reserved_regs) / sizeof(reserved_regs[0]))];
			emit(g, k >> 8), emit(g, k & 0xff);
		} else {
			unsigned k = pick(g, 4);
			struct x87_mem m = gen_mem(g, 10);
			emit_mem(g, 0, reserved_mems[k][0], reserved_mems[k][1], &m);
		}
		break;
	}
	default: {                                  /* #PF: a load or store past the data pages, maybe straddling */
		unsigned k = pick(g, sizeof(mem_forms) / sizeof(mem_forms[0]));
		struct x87_mem m = { .m64 = true };
		m.rm = (struct rm){ .mem = true, .mod = 0, .rm = 4, .has_sib = true, .sib = 0x25, .disp_len = 4,
				    .disp = 0x202000u - (pick(g, 2) ? pick(g, mem_forms[k].bytes) : 0) };
		if (pick(g, 3) == 0) {
			/* FNSAVE/FRSTOR/FNSTENV/FLDENV across the boundary */
			bool save = pick(g, 2);
			m.rm.disp = 0x202000u - 1 - pick(g, save ? 107 : 27);
			emit_mem(g, pick(g, 4) ? 0 : P_66, save ? 0xdd : 0xd9, 4 + 2 * pick(g, 2), &m);
			break;
		}
		emit_mem(g, 0, mem_forms[k].escape, mem_forms[k].digit, &m);
		break;
	}
	}
}
