/* SSE4.1's integer, blend, insert/extract and test instructions and SSE4.2's
 * PCMPGTQ (SDM Vol.2 instruction pages; opcode map Table A-4, 66 0F 38 and
 * 66 0F 3A). Floating-point rounding and dot products are in emu/sse4_fp.c,
 * the string compares in emu/sse_string.c.
 *
 * Legacy-SSE 128-bit memory operands are 16-byte aligned or #GP(0) (SDM Vol.2
 * Table 2-21, "Type 4"); the PMOVSX/PMOVZX sources (m16..m64), the byte to
 * dword extracts and inserts and INSERTPS m32 are not (Type 5).
 */
#include <string.h>

#include "emu/flags.h"
#include "emu/operand.h"
#include "emu/simd_operand.h"
#include "emu/sse_kernels.h"
#include "isa_handlers.h"

static inline int64_t sat(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* 66 0F 38 xx element operations: r := d op s, element width w. */
static void lanes(uint8_t op, const union xmm_reg *d, const union xmm_reg *s, union xmm_reg *r)
{
	switch (op) {
	case 0x28:      /* PMULDQ: signed dwords 0 and 2 multiplied into quadwords */
		r->q[0] = (uint64_t)((int64_t)(int32_t)d->d[0] * (int32_t)s->d[0]);
		r->q[1] = (uint64_t)((int64_t)(int32_t)d->d[2] * (int32_t)s->d[2]);
		break;
	case 0x29:      /* PCMPEQQ */
		for (unsigned i = 0; i < 2; i++)
			r->q[i] = d->q[i] == s->q[i] ? ~0ull : 0;
		break;
	case 0x37:      /* PCMPGTQ (SSE4.2): signed */
		for (unsigned i = 0; i < 2; i++)
			r->q[i] = (int64_t)d->q[i] > (int64_t)s->q[i] ? ~0ull : 0;
		break;
	case 0x2b:      /* PACKUSDW: signed dwords to words, unsigned saturation, dest first */
		for (unsigned i = 0; i < 8; i++)
			r->w[i] = (uint16_t)sat((int32_t)(i < 4 ? d : s)->d[i % 4], 0, 0xffff);
		break;
	case 0x38: case 0x3c:   /* PMINSB, PMAXSB */
		for (unsigned i = 0; i < 16; i++)
			r->b[i] = ((int8_t)d->b[i] < (int8_t)s->b[i]) == (op == 0x38) ? d->b[i] : s->b[i];
		break;
	case 0x39: case 0x3d:   /* PMINSD, PMAXSD */
		for (unsigned i = 0; i < 4; i++)
			r->d[i] = ((int32_t)d->d[i] < (int32_t)s->d[i]) == (op == 0x39) ? d->d[i] : s->d[i];
		break;
	case 0x3a: case 0x3e:   /* PMINUW, PMAXUW */
		for (unsigned i = 0; i < 8; i++)
			r->w[i] = (d->w[i] < s->w[i]) == (op == 0x3a) ? d->w[i] : s->w[i];
		break;
	case 0x3b: case 0x3f:   /* PMINUD, PMAXUD */
		for (unsigned i = 0; i < 4; i++)
			r->d[i] = (d->d[i] < s->d[i]) == (op == 0x3b) ? d->d[i] : s->d[i];
		break;
	case 0x40:      /* PMULLD: the low dwords of the signed products */
		for (unsigned i = 0; i < 4; i++)
			r->d[i] = d->d[i] * s->d[i];
		break;
	default: {      /* 41 PHMINPOSUW: the least unsigned word and its (lowest) index */
		unsigned k = 0;
		for (unsigned i = 1; i < 8; i++)
			if (s->w[i] < s->w[k])
				k = i;
		r->q[0] = s->w[k] | (uint64_t)k << 16;
		r->q[1] = 0;
		break;
	}
	}
}

/* 66 0F 38 28, 29, 2B, 37, 38-41. */
status_t op_sse4_lanes(struct cpu *cpu, const struct insn *in)
{
	struct simd_args a;
	status_t st = simd_load(cpu, in, false, 16, SIMD_ALIGNED, &a);
	if (st != ST_OK)
		return st;
	union xmm_reg r;
	lanes(in->opcode, &a.d, &a.s, &r);
	simd_store(cpu, in, &a, &r);
	return ST_OK;
}

/* 66 0F 38 20-25 PMOVSXBW/BD/BQ/WD/WQ/DQ and 30-35 PMOVZX*: the low elements of
 * the source widened. Source bytes: 8 (BW, WD, DQ), 4 (BD, WQ), 2 (BQ). */
static const uint8_t pmovx_from[6] = { 1, 1, 1, 2, 2, 4 }, pmovx_to[6] = { 2, 4, 8, 4, 8, 8 };

unsigned sse4_pmovx_src_bytes(unsigned opcode, unsigned out_bytes)
{
	unsigned k = opcode & 0x0f;
	return out_bytes / pmovx_to[k] * pmovx_from[k];
}

void sse4_pmovx(unsigned opcode, const uint8_t *src, uint8_t *dst, unsigned out_bytes)
{
	unsigned k = opcode & 0x0f, f = pmovx_from[k], t = pmovx_to[k];
	bool sign = opcode < 0x30;
	for (unsigned i = 0; i < out_bytes / t; i++) {
		uint64_t v = 0;
		memcpy(&v, src + i * f, f);
		if (sign && (v >> (8 * f - 1)))
			v |= ~0ull << (8 * f);
		memcpy(dst + i * t, &v, t);
	}
}

status_t op_pmovx(struct cpu *cpu, const struct insn *in)
{
	struct simd_args a;
	status_t st = simd_load(cpu, in, false, sse4_pmovx_src_bytes(in->opcode, 16), SIMD_ANY, &a);
	if (st != ST_OK)
		return st;
	union xmm_reg r;
	sse4_pmovx(in->opcode, a.s.b, r.b, 16);
	simd_store(cpu, in, &a, &r);
	return ST_OK;
}

/* 66 0F 38 2A MOVNTDQA xmm, m128: an aligned load (the streaming hint has no
 * effect here; SDM Vol.2 MOVNTDQA "#GP ... not aligned on a 16-byte boundary";
 * VMOVNTDQA is exception type 1: 16 or 32 bytes). */
status_t op_movntdqa(struct cpu *cpu, const struct insn *in)
{
	struct simd_args a;
	status_t st = simd_load(cpu, in, false, 16, SIMD_ALIGNED_VEX, &a);
	if (st == ST_OK)
		simd_store(cpu, in, &a, &a.s);
	return st;
}

/* 66 0F 38 17 PTEST: ZF := (d AND s) = 0, CF := (NOT d AND s) = 0; AF, OF, PF,
 * SF := 0 (SDM Vol.2 PTEST). */
status_t op_ptest(struct cpu *cpu, const struct insn *in)
{
	/* VPTEST (VEX.128/256, no VEX.vvvv) tests ModRM.reg against ModRM.rm, over
	 * all 256 bits with VEX.L = 1 (SDM Vol.2 PTEST): one lane at a time. */
	struct insn lane = *in;
	uint64_t and = 0, andn = 0;
	for (unsigned i = 0; i < (in->vex & VEX_L256 ? 2u : 1u); i++) {
		struct simd_args a;
		lane.vex = (uint8_t)(in->vex | (i ? VEX_UPPER_LANE : 0));
		status_t st = simd_load(cpu, &lane, false, 16, SIMD_ALIGNED, &a);
		if (st != ST_OK)
			return st;
		if (in->vex)
			a.d = *simd_lane_reg(cpu, &lane, in->reg);
		and |= (a.d.q[0] & a.s.q[0]) | (a.d.q[1] & a.s.q[1]);
		andn |= (~a.d.q[0] & a.s.q[0]) | (~a.d.q[1] & a.s.q[1]);
	}
	flags_update(cpu, FLAGS_ARITH, (!and ? FLAG_ZF : 0) | (!andn ? FLAG_CF : 0));
	return ST_OK;
}

/* Blends: element i of the result is the source's where the selector bit is
 * set. 66 0F 3A 0C BLENDPS, 0D BLENDPD, 0E PBLENDW: imm8 bit i; 66 0F 38 10
 * PBLENDVB, 14 BLENDVPS, 15 BLENDVPD: the top bit of element i of XMM0, the
 * implicit third operand (SDM Vol.2 PBLENDVB). */
status_t op_blend(struct cpu *cpu, const struct insn *in)
{
	struct simd_args a;
	status_t st = simd_load(cpu, in, false, 16, SIMD_ALIGNED, &a);
	if (st != ST_OK)
		return st;
	/* The VEX forms of the variable blends are VEX.66.0F3A 4A VBLENDVPS, 4B
	 * VBLENDVPD, 4C VPBLENDVB with the selector register in imm8[7:4] (SDM
	 * Vol.2 BLENDVPS "/is4"; bit 7 ignored outside 64-bit mode, 2.3.6). */
	bool variable = in->map == 2 || (in->opcode >= 0x4a && in->opcode <= 0x4c);
	unsigned w = variable ? (in->opcode == 0x10 || in->opcode == 0x4c ? 1 : in->opcode == 0x14 || in->opcode == 0x4a ? 4 : 8)
			      : (in->opcode == 0x0c ? 4 : in->opcode == 0x0d ? 8 : 2);
	unsigned sel = in->vex ? (unsigned)(in->imm >> 4) & (cpu_is_mode64(cpu) ? 15 : 7) : 0;
	const union xmm_reg *x0 = in->vex ? simd_lane_reg(cpu, in, sel) : &cpu->fpu.xmm[0];
	union xmm_reg r = a.d;
	for (unsigned i = 0; i < 16 / w; i++) {
		bool pick = variable ? x0->b[i * w + w - 1] >> 7 : (in->imm >> i) & 1;
		if (pick)
			memcpy(r.b + i * w, a.s.b + i * w, w);
	}
	simd_store(cpu, in, &a, &r);
	return ST_OK;
}

/* 66 0F 3A 42 MPSADBW: eight sums of absolute differences between the four
 * source bytes at imm8[1:0] * 4 and the destination's bytes from
 * imm8[2] * 4 + i (SDM Vol.2 MPSADBW). */
status_t op_mpsadbw(struct cpu *cpu, const struct insn *in)
{
	struct simd_args a;
	status_t st = simd_load(cpu, in, false, 16, SIMD_ALIGNED, &a);
	if (st != ST_OK)
		return st;
	unsigned so = 4 * (in->imm & 3), dof = 4 * ((in->imm >> 2) & 1);
	union xmm_reg r;
	for (unsigned i = 0; i < 8; i++) {
		unsigned sum = 0;
		for (unsigned j = 0; j < 4; j++) {
			int v = (int)a.d.b[dof + i + j] - (int)a.s.b[so + j];
			sum += (unsigned)(v < 0 ? -v : v);
		}
		r.w[i] = (uint16_t)sum;
	}
	simd_store(cpu, in, &a, &r);
	return ST_OK;
}

/* 66 0F 3A 14 PEXTRB, 15 PEXTRW, 16 PEXTRD/PEXTRQ (REX.W), 17 EXTRACTPS
 * r/m, xmm, imm8: element imm8 (modulo the count) to memory (its size) or to a
 * general register, zero-extended; byte and word register destinations are
 * 32 bits, 64 in 64-bit mode (SDM Vol.2 PEXTRB "the upper bits of the
 * register are zero-filled"). */
status_t op_pextr(struct cpu *cpu, const struct insn *in)
{
	status_t st = simd_gate_xmm(cpu, in);
	if (st != ST_OK)
		return st;
	unsigned w = in->opcode == 0x14 ? 1 : in->opcode == 0x15 ? 2 : in->opcode == 0x16 && (in->rex & 8) ? 8 : 4;
	const union xmm_reg *x = &cpu->fpu.xmm[in->reg & 15];
	uint64_t v = 0;
	memcpy(&v, x->b + w * (in->imm & (16 / w - 1)), w);
	if (in->mem)
		return mem_write(cpu, in->seg, insn_ea(cpu, in), w, v);
	reg_write(cpu, in->rm, w == 8 ? 8 : 4, in->rex != 0, v);     /* a 32-bit write zeroes 63:32 */
	return ST_OK;
}

/* 66 0F 3A 20 PINSRB xmm, r32/m8, 22 PINSRD/PINSRQ xmm, r/m32/64 (REX.W):
 * into element imm8 (modulo the count); 21 INSERTPS xmm, xmm/m32: the source
 * dword (register: imm8[7:6] selects it) into dword imm8[5:4], then the dwords
 * in imm8[3:0] zeroed (SDM Vol.2 INSERTPS). */
status_t op_pinsr(struct cpu *cpu, const struct insn *in)
{
	status_t st = simd_gate_xmm(cpu, in);
	if (st != ST_OK)
		return st;
	/* The VEX forms (VPINSRB xmm1, xmm2, r/m, imm8) insert into a copy of
	 * VEX.vvvv and write ModRM.reg, bits 255:128 zeroed. */
	struct simd_args a = { .d = cpu->fpu.xmm[(in->vex ? in->vvvv : in->reg) & 15] };
	union xmm_reg *x = &a.d;
	uint64_t v;
	if (in->opcode == 0x21) {
		if (in->mem) {
			st = mem_read(cpu, in->seg, insn_ea(cpu, in), 4, &v);
			if (st != ST_OK)
				return st;
		} else {
			v = cpu->fpu.xmm[in->rm & 15].d[(in->imm >> 6) & 3];
		}
		union xmm_reg r = *x;
		r.d[(in->imm >> 4) & 3] = (uint32_t)v;
		for (unsigned i = 0; i < 4; i++)
			if ((in->imm >> i) & 1)
				r.d[i] = 0;
		simd_store(cpu, in, &a, &r);
		return ST_OK;
	}
	unsigned w = in->opcode == 0x20 ? 1 : (in->rex & 8) ? 8 : 4;
	if (in->mem) {
		st = mem_read(cpu, in->seg, insn_ea(cpu, in), w, &v);
		if (st != ST_OK)
			return st;
	} else {
		v = cpu->regs[in->rm];      /* PINSRB r32: its low byte, never AH..BH */
	}
	memcpy(x->b + w * (in->imm & (16 / w - 1)), &v, w);
	simd_store(cpu, in, &a, x);
	return ST_OK;
}
