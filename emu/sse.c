/* SSE/SSE2: the XMM registers, MXCSR, the moves and logic, and the SSE2
 * packed-integer instructions (compares, add/subtract with and without
 * saturation, min/max, average, multiplies, packs and unpacks, shifts,
 * shuffles, PEXTRW/PINSRW, MASKMOVDQU; SDM Vol.1 ch. 10-11; Vol.2
 * instruction pages; the MMX forms are in emu/mmx.c), plus the non-SIMD SSE/SSE2 instructions: MOVNTI, the
 * fences and CLFLUSH. Floating-point arithmetic, compares and conversions are in
 * emu/sse_fp.c.
 *
 * Legacy-SSE 128-bit memory operands must be 16-byte aligned (#GP(0)) except
 * for the explicitly unaligned moves MOVUPS/MOVUPD/MOVDQU (SDM Vol.1 11.4.1;
 * Vol.2 e.g. PXOR: "#GP(0) If a memory operand is not aligned on a 16-byte
 * boundary, regardless of segment").
 */
#include <string.h>

#include "emu/avx.h"
#include "emu/fpu.h"
#include "emu/operand.h"
#include "emu/sse_kernels.h"
#include "isa_handlers.h"

static inline union xmm_reg *xreg(struct cpu *cpu, unsigned n) { return &cpu->fpu.xmm[n & 15]; }

/* The W operand (xmm register or m128) into *out. */
static status_t read_w(struct cpu *cpu, const struct insn *in, union xmm_reg *out, bool aligned)
{
	if (!in->mem) {
		*out = *xreg(cpu, in->rm);
		return ST_OK;
	}
	return fpu_mem_read(cpu, in, insn_ea(cpu, in), out->b, 16, aligned ? 16 : 0);
}

/* Write the W operand (xmm register or m128), all 16 bytes or nothing. */
static status_t write_w(struct cpu *cpu, const struct insn *in, const union xmm_reg *v, bool aligned)
{
	if (!in->mem) {
		*xreg(cpu, in->rm) = *v;
		return ST_OK;
	}
	return fpu_mem_write(cpu, in, insn_ea(cpu, in), v->b, 16, aligned ? 16 : 0);
}

/* Loads are opcodes 10, 28, 6F; stores 11, 29, 7F, 2B, E7. */
static bool is_store(const struct insn *in)
{
	return in->opcode == 0x11 || in->opcode == 0x29 || in->opcode == 0x7f ||
	       in->opcode == 0x2b || in->opcode == 0xe7;
}

static status_t move128(struct cpu *cpu, const struct insn *in, unsigned feature, bool aligned)
{
	status_t st = sse_gate(cpu, true, feature);
	if (st != ST_OK)
		return st;
	if (is_store(in))
		return write_w(cpu, in, xreg(cpu, in->reg), aligned);
	union xmm_reg v;
	st = read_w(cpu, in, &v, aligned);
	if (st == ST_OK)
		*xreg(cpu, in->reg) = v;
	return st;
}

/* 0F 10/11 MOVUPS (SSE), 66 0F 10/11 MOVUPD, F3 0F 6F/7F MOVDQU (SSE2). */
status_t op_movu_ps(struct cpu *cpu, const struct insn *in) { return move128(cpu, in, CPUID_SSE, false); }
status_t op_movu_pd(struct cpu *cpu, const struct insn *in) { return move128(cpu, in, CPUID_SSE2, false); }
/* 0F 28/29 MOVAPS, 0F 2B MOVNTPS (SSE); 66 0F 28/29 MOVAPD, 66 0F 6F/7F MOVDQA,
 * 66 0F 2B MOVNTPD, 66 0F E7 MOVNTDQ (SSE2). The non-temporal hint has no
 * effect without caches. */
status_t op_mova_ps(struct cpu *cpu, const struct insn *in) { return move128(cpu, in, CPUID_SSE, true); }
status_t op_mova_pd(struct cpu *cpu, const struct insn *in) { return move128(cpu, in, CPUID_SSE2, true); }

/* F3 0F 10/11 MOVSS (SSE), F2 0F 10/11 MOVSD (SSE2): a load from memory zeroes
 * the rest of the register; register to register merges the low element (SDM
 * Vol.2 MOVSS/MOVSD). Scalar memory operands need no alignment. */
status_t op_movs_scalar(struct cpu *cpu, const struct insn *in)
{
	unsigned n = in->rep == REP_F3 ? 4 : 8;
	status_t st = sse_gate(cpu, true, n == 4 ? CPUID_SSE : CPUID_SSE2);
	if (st != ST_OK)
		return st;
	union xmm_reg *g = xreg(cpu, in->reg);
	if (!in->mem) {
		union xmm_reg *e = xreg(cpu, in->rm);
		if (in->opcode == 0x10)
			memcpy(g->b, e->b, n);
		else
			memcpy(e->b, g->b, n);
		return ST_OK;
	}
	if (in->opcode == 0x11)
		return fpu_mem_write(cpu, in, insn_ea(cpu, in), g->b, n, 0);
	union xmm_reg v = { .q = { 0, 0 } };
	st = fpu_mem_read(cpu, in, insn_ea(cpu, in), v.b, n, 0);
	if (st == ST_OK)
		*g = v;
	return st;
}

/* 66 0F 6E: MOVD/MOVQ xmm, r/m32/64 (zero-extended); 66 0F 7E: MOVD/MOVQ r/m32/64,
 * xmm. REX.W selects 64 bits (SDM Vol.2 MOVD/MOVQ). */
status_t op_movd(struct cpu *cpu, const struct insn *in)
{
	status_t st = sse_gate(cpu, true, CPUID_SSE2);
	if (st != ST_OK)
		return st;
	unsigned n = (in->rex & 8) ? 8 : 4;
	union xmm_reg *x = xreg(cpu, in->reg);
	if (in->opcode == 0x7e)
		return rm_write(cpu, in, n, n == 8 ? x->q[0] : x->d[0]);
	uint64_t v;
	st = rm_read(cpu, in, n, &v);
	if (st != ST_OK)
		return st;
	x->q[0] = v;
	x->q[1] = 0;
	return ST_OK;
}

/* F3 0F 7E: MOVQ xmm, xmm/m64 (upper half zeroed); 66 0F D6: MOVQ xmm/m64, xmm
 * (a register destination gets its upper half zeroed too). */
status_t op_movq(struct cpu *cpu, const struct insn *in)
{
	status_t st = sse_gate(cpu, true, CPUID_SSE2);
	if (st != ST_OK)
		return st;
	union xmm_reg *g = xreg(cpu, in->reg);
	if (in->opcode == 0xd6) {
		if (in->mem)
			return mem_write(cpu, in->seg, insn_ea(cpu, in), 8, g->q[0]);
		union xmm_reg *e = xreg(cpu, in->rm);
		e->q[0] = g->q[0];
		e->q[1] = 0;
		return ST_OK;
	}
	uint64_t v;
	if (in->mem) {
		st = mem_read(cpu, in->seg, insn_ea(cpu, in), 8, &v);
		if (st != ST_OK)
			return st;
	} else {
		v = xreg(cpu, in->rm)->q[0];
	}
	g->q[0] = v;
	g->q[1] = 0;
	return ST_OK;
}

/* 0F 12/13 MOVLPS, 0F 16/17 MOVHPS (SSE), 66 0F 12/13 MOVLPD, 66 0F 16/17 MOVHPD
 * (SSE2): one quadword between memory and the low (12/13) or high (16/17) half,
 * the other half unchanged; register forms 0F 12 MOVHLPS (low := source high)
 * and 0F 16 MOVLHPS (high := source low). No alignment (SDM Vol.2 MOVLPS). */
static status_t move_half(struct cpu *cpu, const struct insn *in, unsigned feature)
{
	status_t st = sse_gate(cpu, true, feature);
	if (st != ST_OK)
		return st;
	union xmm_reg *g = xreg(cpu, in->reg);
	unsigned half = in->opcode >= 0x16;
	if (!in->mem) {
		g->q[half] = xreg(cpu, in->rm)->q[!half];
		return ST_OK;
	}
	if (in->opcode & 1)
		return mem_write(cpu, in->seg, insn_ea(cpu, in), 8, g->q[half]);
	uint64_t v;
	st = mem_read(cpu, in->seg, insn_ea(cpu, in), 8, &v);
	if (st == ST_OK)
		g->q[half] = v;
	return st;
}
status_t op_movlh_ps(struct cpu *cpu, const struct insn *in) { return move_half(cpu, in, CPUID_SSE); }
status_t op_movlh_pd(struct cpu *cpu, const struct insn *in) { return move_half(cpu, in, CPUID_SSE2); }

/* 0F 50 MOVMSKPS (SSE), 66 0F 50 MOVMSKPD (SSE2): the element sign bits into
 * a general register, zero-extended (SDM Vol.2 MOVMSKPS). */
static status_t movmsk(struct cpu *cpu, const struct insn *in, unsigned feature)
{
	status_t st = sse_gate(cpu, true, feature);
	if (st != ST_OK)
		return st;
	const union xmm_reg *x = xreg(cpu, in->rm);
	uint32_t m = feature == CPUID_SSE
		? (x->d[0] >> 31) | (x->d[1] >> 31) << 1 | (x->d[2] >> 31) << 2 | (x->d[3] >> 31) << 3
		: (uint32_t)(x->q[0] >> 63) | (uint32_t)(x->q[1] >> 63) << 1;
	reg_write(cpu, in->reg, cpu_is_mode64(cpu) ? 8 : 4, in->rex != 0, m);
	return ST_OK;
}
status_t op_movmsk_ps(struct cpu *cpu, const struct insn *in) { return movmsk(cpu, in, CPUID_SSE); }
status_t op_movmsk_pd(struct cpu *cpu, const struct insn *in) { return movmsk(cpu, in, CPUID_SSE2); }

/* 0F C3: MOVNTI m32/m64, r32/r64 (SSE2; not a SIMD-state instruction: no
 * CR4.OSFXSR / CR0.TS check, SDM Vol.2 MOVNTI exceptions). */
status_t op_movnti(struct cpu *cpu, const struct insn *in)
{
	/* #UD without SSE2 is the decoder's (its row's feature column): that is
	 * MOVNTI's only gate (SDM Vol.2 MOVNTI), and the translator takes the
	 * decoded instruction for a plain store (emu/jit.c). */
	unsigned n = in->osize == 8 ? 8 : 4;
	return mem_write(cpu, in->seg, insn_ea(cpu, in), n, greg_read(cpu, in, n));
}

/* ---- logic and packed integer ---- */

/* V := V op W, lane by lane; op picks the computation from the opcode. */
static status_t binop(struct cpu *cpu, const struct insn *in, unsigned feature,
		      void (*op)(const struct insn *, union xmm_reg *, const union xmm_reg *))
{
	status_t st = sse_gate(cpu, true, feature);
	if (st != ST_OK)
		return st;
	union xmm_reg w;
	st = read_w(cpu, in, &w, true);
	if (st != ST_OK)
		return st;
	op(in, xreg(cpu, in->reg), &w);
	return ST_OK;
}

/* 54/DB AND, 55/DF ANDN (NOT dest AND src), 56/EB OR, 57/EF XOR. */
static void logic(const struct insn *in, union xmm_reg *d, const union xmm_reg *s)
{
	for (unsigned i = 0; i < 2; i++) {
		switch (in->opcode) {
		case 0x54: case 0xdb: d->q[i] &= s->q[i]; break;
		case 0x55: case 0xdf: d->q[i] = ~d->q[i] & s->q[i]; break;
		case 0x56: case 0xeb: d->q[i] |= s->q[i]; break;
		default:              d->q[i] ^= s->q[i]; break;
		}
	}
}
/* 0F 54-57 ANDPS/ANDNPS/ORPS/XORPS (SSE); 66 0F 54-57 the PD forms and
 * 66 0F DB/DF/EB/EF PAND/PANDN/POR/PXOR (SSE2). */
status_t op_logic_ps(struct cpu *cpu, const struct insn *in) { return binop(cpu, in, CPUID_SSE, logic); }
status_t op_logic_pd(struct cpu *cpu, const struct insn *in) { return binop(cpu, in, CPUID_SSE2, logic); }

/* Lane-wise packed integer operations (SDM Vol.2 instruction pages): each
 * result element depends only on the elements at the same position. */
enum lane_op {
	L_NONE, L_ADD, L_SUB,
	L_ADDS, L_SUBS,        /* signed saturation */
	L_ADDUS, L_SUBUS,      /* unsigned saturation */
	L_CMPEQ, L_CMPGT,      /* all ones where true (PCMPGT compares signed) */
	L_MINU, L_MAXU, L_MINS, L_MAXS,
	L_AVG,                 /* unsigned (a + b + 1) >> 1 */
	L_MULLO, L_MULHS, L_MULHU,  /* low / signed high / unsigned high half of the product */
};

/* 66 0F xx -> operation and element bytes. */
static const struct { uint8_t op, w; } lane_ops[256] = {
	[0x74] = { L_CMPEQ, 1 }, [0x75] = { L_CMPEQ, 2 }, [0x76] = { L_CMPEQ, 4 },
	[0x64] = { L_CMPGT, 1 }, [0x65] = { L_CMPGT, 2 }, [0x66] = { L_CMPGT, 4 },
	[0xfc] = { L_ADD, 1 }, [0xfd] = { L_ADD, 2 }, [0xfe] = { L_ADD, 4 }, [0xd4] = { L_ADD, 8 },
	[0xf8] = { L_SUB, 1 }, [0xf9] = { L_SUB, 2 }, [0xfa] = { L_SUB, 4 }, [0xfb] = { L_SUB, 8 },
	[0xec] = { L_ADDS, 1 }, [0xed] = { L_ADDS, 2 }, [0xe8] = { L_SUBS, 1 }, [0xe9] = { L_SUBS, 2 },
	[0xdc] = { L_ADDUS, 1 }, [0xdd] = { L_ADDUS, 2 }, [0xd8] = { L_SUBUS, 1 }, [0xd9] = { L_SUBUS, 2 },
	[0xda] = { L_MINU, 1 }, [0xde] = { L_MAXU, 1 }, [0xea] = { L_MINS, 2 }, [0xee] = { L_MAXS, 2 },
	[0xe0] = { L_AVG, 1 }, [0xe3] = { L_AVG, 2 },
	[0xd5] = { L_MULLO, 2 }, [0xe5] = { L_MULHS, 2 }, [0xe4] = { L_MULHU, 2 },
};

/* The low `bits` bits of v as a signed number. */
static inline int64_t sext(uint64_t v, unsigned bits)
{
	unsigned pad = 64 - bits;
	return (int64_t)(v << pad) >> pad;    /* GCC/Clang: modular conversion, arithmetic shift */
}

static inline int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static inline uint64_t lane_get(const union xmm_reg *x, unsigned i, unsigned w)
{
	uint64_t v = 0;
	memcpy(&v, x->b + i * w, w);
	return v;
}
static inline void lane_set(union xmm_reg *x, unsigned i, unsigned w, uint64_t v)
{
	memcpy(x->b + i * w, &v, w);
}

/* One element of a w-byte lane operation; the caller keeps the low 8w bits. */
static inline __attribute__((always_inline)) uint64_t lane(enum lane_op op, unsigned w, uint64_t a, uint64_t b)
{
	unsigned bits = 8 * w;
	uint64_t ones = ~0ull >> (64 - bits);
	int64_t sa = sext(a, bits), sb = sext(b, bits), smax = (int64_t)(ones >> 1);
	switch (op) {
	case L_ADD:   return a + b;
	case L_SUB:   return a - b;
	case L_ADDS:  return (uint64_t)clamp(sa + sb, -smax - 1, smax);   /* B/W only: no overflow */
	case L_SUBS:  return (uint64_t)clamp(sa - sb, -smax - 1, smax);
	case L_ADDUS: return a + b > ones ? ones : a + b;
	case L_SUBUS: return a > b ? a - b : 0;
	case L_CMPEQ: return a == b ? ones : 0;
	case L_CMPGT: return sa > sb ? ones : 0;
	case L_MINU:  return a < b ? a : b;
	case L_MAXU:  return a > b ? a : b;
	case L_MINS:  return sa < sb ? a : b;
	case L_MAXS:  return sa > sb ? a : b;
	case L_AVG:   return (a + b + 1) >> 1;
	case L_MULLO: return a * b;
	case L_MULHS: return (uint64_t)(sa * sb) >> 16;   /* W only */
	case L_MULHU: return (a * b) >> 16;
	default:      return 0;
	}
}

/* 66 0F 64-66 PCMPGTB/W/D, 74-76 PCMPEQB/W/D, FC-FE/D4 PADDB/W/D/Q, F8-FB
 * PSUBB/W/D/Q, EC/ED PADDSB/W, DC/DD PADDUSB/W, E8/E9 PSUBSB/W, D8/D9 PSUBUSB/W,
 * DA/DE PMINUB/PMAXUB, EA/EE PMINSW/PMAXSW, E0/E3 PAVGB/W, D5 PMULLW, E5 PMULHW,
 * E4 PMULHUW. */
/* One loop per operation and width (w and op constant in each, so an element
 * is a plain load, the operation and a store: a per-element switch cost PADDD
 * some 300 host instructions). */
static inline __attribute__((always_inline)) void plane_w(enum lane_op op, unsigned w, union xmm_reg *d,
							  const union xmm_reg *s)
{
	switch (op) {
#define LANE_LOOP(OP)                                                                                   \
	case OP:                                                                                        \
		for (unsigned i = 0; i < 16 / w; i++)                                                   \
			lane_set(d, i, w, lane(OP, w, lane_get(d, i, w), lane_get(s, i, w)));          \
		break;
	LANE_LOOP(L_ADD) LANE_LOOP(L_SUB) LANE_LOOP(L_ADDS) LANE_LOOP(L_SUBS) LANE_LOOP(L_ADDUS)
	LANE_LOOP(L_SUBUS) LANE_LOOP(L_CMPEQ) LANE_LOOP(L_CMPGT) LANE_LOOP(L_MINU) LANE_LOOP(L_MAXU)
	LANE_LOOP(L_MINS) LANE_LOOP(L_MAXS) LANE_LOOP(L_AVG) LANE_LOOP(L_MULLO) LANE_LOOP(L_MULHS)
	LANE_LOOP(L_MULHU)
#undef LANE_LOOP
	default:
		break;
	}
}

static void plane(const struct insn *in, union xmm_reg *d, const union xmm_reg *s)
{
	enum lane_op op = lane_ops[in->opcode].op;
	switch (lane_ops[in->opcode].w) {
	case 1: plane_w(op, 1, d, s); break;
	case 2: plane_w(op, 2, d, s); break;
	case 4: plane_w(op, 4, d, s); break;
	default: plane_w(op, 8, d, s); break;
	}
}
status_t op_plane(struct cpu *cpu, const struct insn *in) { return binop(cpu, in, CPUID_SSE2, plane); }

/* 66 0F F4 PMULUDQ: the unsigned products of the even dwords, as quadwords;
 * F5 PMADDWD: signed word products, adjacent pairs summed into dwords (only
 * 8000H*8000H twice wraps, to 80000000H); F6 PSADBW: per quadword, the sum of
 * the absolute byte differences in its low word, the rest zero. */
static void pwide(const struct insn *in, union xmm_reg *d, const union xmm_reg *s)
{
	union xmm_reg r = { .q = { 0, 0 } };
	for (unsigned i = 0; i < 4; i++) {
		switch (in->opcode) {
		case 0xf4:
			if (!(i & 1))
				r.q[i / 2] = (uint64_t)d->d[i] * s->d[i];
			break;
		case 0xf5:
			r.d[i] = (uint32_t)((int64_t)(int16_t)d->w[2 * i] * (int16_t)s->w[2 * i] +
					    (int64_t)(int16_t)d->w[2 * i + 1] * (int16_t)s->w[2 * i + 1]);
			break;
		default:
			for (unsigned k = 4 * i; k < 4 * i + 4; k++)
				r.w[i / 2 * 4] += (uint16_t)(d->b[k] > s->b[k] ? d->b[k] - s->b[k] : s->b[k] - d->b[k]);
			break;
		}
	}
	*d = r;
}
status_t op_pwide(struct cpu *cpu, const struct insn *in) { return binop(cpu, in, CPUID_SSE2, pwide); }

/* 66 0F 63 PACKSSWB, 6B PACKSSDW: signed elements narrowed to half width with
 * signed saturation; 67 PACKUSWB: signed words to bytes with unsigned
 * saturation. The destination's elements fill the low half (SDM Vol.2 PACKSSWB). */
static void pack(const struct insn *in, union xmm_reg *d, const union xmm_reg *s)
{
	unsigned w = in->opcode == 0x6b ? 4 : 2, n = 16 / w, bits = 4 * w;
	int64_t hi = in->opcode == 0x67 ? (1 << bits) - 1 : (1 << (bits - 1)) - 1;
	int64_t lo = in->opcode == 0x67 ? 0 : -hi - 1;
	union xmm_reg r;
	for (unsigned i = 0; i < 2 * n; i++) {
		uint64_t v = lane_get(i < n ? d : s, i % n, w);
		lane_set(&r, i, w / 2, (uint64_t)clamp(sext(v, 8 * w), lo, hi));
	}
	*d = r;
}
status_t op_pack(struct cpu *cpu, const struct insn *in) { return binop(cpu, in, CPUID_SSE2, pack); }

/* Shift each w-byte element by count: logical right/left shifts give 0 for
 * counts above 8w - 1, arithmetic right shifts fill with the sign (SDM Vol.2
 * PSRLW/PSRAW/PSLLW: the count is not masked). */
enum shift_kind { SH_SRL, SH_SRA, SH_SLL };
static void shift_lanes(union xmm_reg *x, unsigned w, enum shift_kind k, uint64_t count)
{
	unsigned bits = 8 * w;
	for (unsigned i = 0; i < 16 / w; i++) {
		uint64_t v = lane_get(x, i, w);
		if (k == SH_SRA)
			v = (uint64_t)(sext(v, bits) >> (count >= bits ? bits - 1 : count));
		else if (count >= bits)
			v = 0;
		else
			v = k == SH_SRL ? v >> count : v << count;
		lane_set(x, i, w, v);
	}
}

/* 66 0F D1-D3 PSRLW/D/Q, E1/E2 PSRAW/D, F1-F3 PSLLW/D/Q xmm, xmm/m128: the
 * count is the source's low quadword. Element width from the low nibble,
 * direction from the high one. */
static void pshift(const struct insn *in, union xmm_reg *d, const union xmm_reg *s)
{
	unsigned hi = in->opcode >> 4;
	shift_lanes(d, 1u << (in->opcode & 3), hi == 0xd ? SH_SRL : hi == 0xe ? SH_SRA : SH_SLL, s->q[0]);
}
status_t op_pshift(struct cpu *cpu, const struct insn *in) { return binop(cpu, in, CPUID_SSE2, pshift); }

/* 66 0F 71/72/73 /2 PSRLW/D/Q, /4 PSRAW/D, /6 PSLLW/D/Q xmm, imm8 (width from
 * the opcode), 66 0F 73 /3 PSRLDQ and /7 PSLLDQ: whole-register byte shifts,
 * zero for counts above 15 (SDM Vol.2 PSRLDQ). */
static void pshift_imm(const struct insn *in, union xmm_reg *x)
{
	unsigned digit = (in->modrm >> 3) & 7, count = (unsigned)in->imm & 0xff;
	if (digit == 3 || digit == 7) {
		union xmm_reg r = { .q = { 0, 0 } };
		for (unsigned i = 0; i < 16; i++) {
			unsigned from = digit == 3 ? i + count : i - count;   /* wraps above 15 when out of range */
			if (from < 16)
				r.b[i] = x->b[from];
		}
		*x = r;
		return;
	}
	shift_lanes(x, 2u << (in->opcode - 0x71), digit == 2 ? SH_SRL : digit == 4 ? SH_SRA : SH_SLL, count);
}
status_t op_pshift_imm(struct cpu *cpu, const struct insn *in)
{
	status_t st = sse_gate(cpu, true, CPUID_SSE2);
	if (st != ST_OK)
		return st;
	pshift_imm(in, xreg(cpu, in->rm));
	return ST_OK;
}

/* 66 0F 60/61/62/6C: PUNPCKLBW/WD/DQ/QDQ; 68/69/6A/6D: the high forms.
 * Interleave elements of the low (high) halves, dest first (SDM Vol.2 PUNPCKL*). */
static void punpck(const struct insn *in, union xmm_reg *d, const union xmm_reg *s)
{
	unsigned lo = in->opcode & 0x0f;    /* 0-2, C: low; 8-A, D: high */
	unsigned w = lo == 0xc || lo == 0xd ? 8 : 1u << (lo & 3);
	/* 6C PUNPCKLQDQ is a low form despite its low nibble. */
	unsigned base = lo >= 8 && lo != 0xc ? 8 : 0;
	union xmm_reg r;
	for (unsigned i = 0; i < 8 / w; i++) {
		memcpy(r.b + 2 * i * w, d->b + base + i * w, w);
		memcpy(r.b + (2 * i + 1) * w, s->b + base + i * w, w);
	}
	*d = r;
}
status_t op_punpck(struct cpu *cpu, const struct insn *in) { return binop(cpu, in, CPUID_SSE2, punpck); }

/* 0F 14/15 UNPCKLPS/UNPCKHPS (SSE): dwords of the low (high) halves, dest
 * first; 66 0F 14/15 UNPCKLPD/UNPCKHPD (SSE2): the low (high) quadwords
 * (SDM Vol.2 UNPCKLPS). */
static void unpck_ps(const struct insn *in, union xmm_reg *d, const union xmm_reg *s)
{
	unsigned base = in->opcode == 0x15 ? 2 : 0;
	union xmm_reg r = { .d = { d->d[base], s->d[base], d->d[base + 1], s->d[base + 1] } };
	*d = r;
}
static void unpck_pd(const struct insn *in, union xmm_reg *d, const union xmm_reg *s)
{
	unsigned hi = in->opcode == 0x15;
	union xmm_reg r = { .q = { d->q[hi], s->q[hi] } };
	*d = r;
}
status_t op_unpck_ps(struct cpu *cpu, const struct insn *in) { return binop(cpu, in, CPUID_SSE, unpck_ps); }
status_t op_unpck_pd(struct cpu *cpu, const struct insn *in) { return binop(cpu, in, CPUID_SSE2, unpck_pd); }

/* 66 0F D7: PMOVMSKB r32/64, xmm: the byte sign bits, zero-extended. */
status_t op_pmovmskb(struct cpu *cpu, const struct insn *in)
{
	status_t st = sse_gate(cpu, true, CPUID_SSE2);
	if (st != ST_OK)
		return st;
	const union xmm_reg *x = xreg(cpu, in->rm);
	uint32_t m = 0;
	for (unsigned i = 0; i < 16; i++)
		m |= (uint32_t)(x->b[i] >> 7) << i;
	reg_write(cpu, in->reg, cpu_is_mode64(cpu) ? 8 : 4, in->rex != 0, m);
	return ST_OK;
}

/* 66 0F C5: PEXTRW r32/64, xmm, imm8: word imm8[2:0], zero-extended (the
 * 64-bit-mode default operand size is 64 bits, SDM Vol.2 PEXTRW). */
status_t op_pextrw(struct cpu *cpu, const struct insn *in)
{
	status_t st = sse_gate(cpu, true, CPUID_SSE2);
	if (st != ST_OK)
		return st;
	uint16_t v = xreg(cpu, in->rm)->w[in->imm & 7];
	reg_write(cpu, in->reg, cpu_is_mode64(cpu) ? 8 : 4, in->rex != 0, v);
	return ST_OK;
}

/* 66 0F C4: PINSRW xmm, r32/m16, imm8: the low word of the source into word
 * imm8[2:0]. The m16 form has no alignment requirement. */
status_t op_pinsrw(struct cpu *cpu, const struct insn *in)
{
	status_t st = sse_gate(cpu, true, CPUID_SSE2);
	if (st != ST_OK)
		return st;
	uint64_t v;
	st = rm_read(cpu, in, 2, &v);
	if (st == ST_OK)
		xreg(cpu, in->reg)->w[in->imm & 7] = (uint16_t)v;
	return st;
}

/* 66 0F F7: MASKMOVDQU xmm1, xmm2: the bytes of xmm1 whose mask byte in xmm2
 * has bit 7 set go to DS:rDI (segment override allowed; rDI by the address
 * size); no alignment (SDM Vol.2 MASKMOVDQU). Whether a zero mask may still
 * fault is implementation-specific there; hvemu touches only the selected
 * bytes, so an all-zero mask accesses nothing. The span from the first to the
 * last selected byte is probed first, so a fault stores nothing. */
status_t op_maskmovdqu(struct cpu *cpu, const struct insn *in)
{
	/* VEX.128 VMASKMOVDQU: the same with the VEX gate (SDM Vol.2 MASKMOVDQU). */
	status_t st = in->vex ? avx_gate(cpu) : sse_gate(cpu, true, CPUID_SSE2);
	if (st != ST_OK)
		return st;
	const union xmm_reg *v = xreg(cpu, in->reg), *m = xreg(cpu, in->rm);
	unsigned first = 16, last = 0;
	for (unsigned i = 0; i < 16; i++) {
		if (m->b[i] & 0x80) {
			first = first < i ? first : i;
			last = i;
		}
	}
	if (first == 16)
		return ST_OK;
	uint64_t amask = size_mask(in->asize);
	uint64_t base = cpu->regs[R_DI] & amask;
	st = fpu_mem_probe(cpu, in, (base + first) & amask, last - first + 1, 0);
	for (unsigned i = first; st == ST_OK && i <= last; i++)
		if (m->b[i] & 0x80)
			st = mem_write(cpu, in->seg, (base + i) & amask, 1, v->b[i]);
	return st;
}

/* Shuffles with an imm8 selector: 0F C6 SHUFPS (SSE; low two dwords from dest,
 * high two from src), 66 0F C6 SHUFPD (SSE2), 66 0F 70 PSHUFD, F3 0F 70 PSHUFHW,
 * F2 0F 70 PSHUFLW (SSE2). */
static void shuf(const struct insn *in, bool ps, union xmm_reg *d, const union xmm_reg *s)
{
	const union xmm_reg w = *s;
	union xmm_reg r;
	unsigned imm = (unsigned)in->imm & 0xff;
	if (in->opcode == 0xc6 && ps) {
		r.d[0] = d->d[imm & 3];
		r.d[1] = d->d[(imm >> 2) & 3];
		r.d[2] = w.d[(imm >> 4) & 3];
		r.d[3] = w.d[(imm >> 6) & 3];
	} else if (in->opcode == 0xc6) {
		r.q[0] = d->q[imm & 1];
		r.q[1] = w.q[(imm >> 1) & 1];
	} else if (in->rep == REP_F3) {
		r.q[0] = w.q[0];
		for (unsigned i = 0; i < 4; i++)
			r.w[4 + i] = w.w[4 + ((imm >> (2 * i)) & 3)];
	} else if (in->rep == REP_F2) {
		r.q[1] = w.q[1];
		for (unsigned i = 0; i < 4; i++)
			r.w[i] = w.w[(imm >> (2 * i)) & 3];
	} else {
		for (unsigned i = 0; i < 4; i++)
			r.d[i] = w.d[(imm >> (2 * i)) & 3];
	}
	*d = r;
}
static status_t shuffle(struct cpu *cpu, const struct insn *in, unsigned feature)
{
	status_t st = sse_gate(cpu, true, feature);
	if (st != ST_OK)
		return st;
	union xmm_reg w;
	st = read_w(cpu, in, &w, true);
	if (st != ST_OK)
		return st;
	shuf(in, feature == CPUID_SSE, xreg(cpu, in->reg), &w);
	return ST_OK;
}
status_t op_shuf_ps(struct cpu *cpu, const struct insn *in) { return shuffle(cpu, in, CPUID_SSE); }
status_t op_shuf_pd(struct cpu *cpu, const struct insn *in) { return shuffle(cpu, in, CPUID_SSE2); }

/* ---- MXCSR ---- */

/* 0F AE /2: LDMXCSR m32. "#GP ... For an attempt to set reserved bits in MXCSR"
 * (SDM Vol.2 LDMXCSR). */
status_t op_ldmxcsr(struct cpu *cpu, const struct insn *in)
{
	/* VEX.LZ VLDMXCSR: the VEX gate (SDM Vol.2 LDMXCSR, Table 2-22 type 5). */
	status_t st = in->vex ? avx_gate(cpu) : sse_gate(cpu, true, CPUID_SSE);
	if (st != ST_OK)
		return st;
	uint64_t v;
	st = mem_read(cpu, in->seg, insn_ea(cpu, in), 4, &v);
	if (st != ST_OK)
		return st;
	if (v & ~(uint64_t)MXCSR_MASK)
		return cpu_raise_err(cpu, EXC_GP, 0);
	cpu->fpu.mxcsr = (uint32_t)v;
	return ST_OK;
}

/* 0F AE /3: STMXCSR m32. */
status_t op_stmxcsr(struct cpu *cpu, const struct insn *in)
{
	status_t st = in->vex ? avx_gate(cpu) : sse_gate(cpu, true, CPUID_SSE);
	if (st != ST_OK)
		return st;
	return mem_write(cpu, in->seg, insn_ea(cpu, in), 4, cpu->fpu.mxcsr);
}

/* ---- ordering and cache control ---- */

/* 0F AE E8-EF LFENCE, F0-F7 MFENCE (SSE2), F8-FF SFENCE (SSE). One CPU and no
 * store buffer: all accesses are already globally visible in program order. */
status_t op_fence(struct cpu *cpu, const struct insn *in)
{
	unsigned reg = (in->modrm >> 3) & 7;
	status_t st = sse_gate(cpu, false, reg == 7 ? CPUID_SSE : CPUID_SSE2);
	return st;
}

/* 0F AE /7: CLFLUSH m8. No cache to flush, but the access is checked like a
 * byte read: segment limit, canonical form and paging faults are reported
 * (SDM Vol.2 CLFLUSH: "#GP(0) ... effective address outside the segment limit",
 * "#PF(fault-code) For a page fault"). */
status_t op_clflush(struct cpu *cpu, const struct insn *in)
{
	status_t st = sse_gate(cpu, false, CPUID_CLFSH);
	if (st != ST_OK)
		return st;
	uint64_t v;
	return mem_read(cpu, in->seg, insn_ea(cpu, in), 1, &v);
}

/* ---- the kernels shared with the MMX forms (emu/sse_kernels.h) ---- */

void sse_kernel(enum sse_kernel k, const struct insn *in, union xmm_reg *d, const union xmm_reg *s)
{
	switch (k) {
	case SK_LOGIC:  logic(in, d, s); break;
	case SK_LANE:   plane(in, d, s); break;
	case SK_WIDE:   pwide(in, d, s); break;
	case SK_PACK:   pack(in, d, s); break;
	case SK_UNPACK: punpck(in, d, s); break;
	case SK_SHIFT:  pshift(in, d, s); break;
	case SK_UNPCK_PS: unpck_ps(in, d, s); break;
	case SK_UNPCK_PD: unpck_pd(in, d, s); break;
	case SK_SHUF_PS: shuf(in, true, d, s); break;
	case SK_SHUF_PD: shuf(in, false, d, s); break;
	case SK_SHIFT_IMM: pshift_imm(in, d); break;
	}
}
