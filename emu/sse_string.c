/* SSE4.2 packed string compares: PCMPESTRI, PCMPESTRM, PCMPISTRI, PCMPISTRM
 * (66 0F 3A 60-63; SDM Vol.2 4.1 "Imm8 Control Byte Operation for PCMPESTRI /
 * PCMPESTRM / PCMPISTRI / PCMPISTRM" and the instruction pages).
 *
 * The imm8 control byte, as data:
 *
 *    7   6        5:4        3:2          1:0
 *   +--+----+------------+-------------+---------------+
 *   |0 |out |  polarity  | aggregation | source format |
 *   +--+----+------------+-------------+---------------+
 *         |    00 +        00 equal any   00 unsigned bytes
 *         |    01 -        01 ranges      01 unsigned words
 *         |    10 masked + 10 equal each  10 signed bytes
 *         |    11 masked - 11 eq. ordered 11 signed words
 *         index: 0 least / 1 most significant set bit; mask: 0 bits / 1 elements
 *
 * The first operand (xmm1) is the set, the ranges or the needle, the second
 * (xmm2/m128, no alignment requirement) the string. Explicit lengths are
 * EAX/EDX (RAX/RDX with REX.W), absolute value, saturated to the element count;
 * implicit lengths end at the first null element.
 */
#include <string.h>

#include "emu/flags.h"
#include "emu/operand.h"
#include "emu/simd_operand.h"
#include "isa_handlers.h"

static int64_t element(const union xmm_reg *x, unsigned i, unsigned fmt)
{
	switch (fmt) {
	case 0: return x->b[i];
	case 1: return x->w[i];
	case 2: return (int8_t)x->b[i];
	default: return (int16_t)x->w[i];
	}
}

/* An explicit length (SDM 4.1.1: "the absolute value ... saturated to 16 (8)"). */
static unsigned explicit_len(uint64_t reg, bool wide, unsigned n)
{
	int64_t v = wide ? (int64_t)reg : (int32_t)reg;
	uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	return mag > n ? n : (unsigned)mag;
}

static unsigned implicit_len(const union xmm_reg *x, unsigned fmt, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (element(x, i, fmt) == 0)
			return i;
	return n;
}

/* IntRes1 of SDM 4.1.3-4.1.6: bit j for the string element j, with the
 * override rules of Table 4-7 for invalid elements. */
static uint32_t aggregate(unsigned imm, const union xmm_reg *a, unsigned la, const union xmm_reg *b,
			  unsigned lb, unsigned n)
{
	unsigned fmt = imm & 3;
	uint32_t res = 0;
	for (unsigned j = 0; j < n; j++) {
		int64_t y = element(b, j, fmt);
		bool r;
		switch ((imm >> 2) & 3) {
		case 0:         /* equal any: b[j] is one of a[0..la) */
			r = false;
			for (unsigned i = 0; i < la && j < lb; i++)
				r |= element(a, i, fmt) == y;
			break;
		case 1:         /* ranges: a[i] <= b[j] <= a[i+1] for a valid pair */
			r = false;
			for (unsigned i = 0; i + 1 < la && j < lb; i += 2)
				r |= element(a, i, fmt) <= y && y <= element(a, i + 1, fmt);
			break;
		case 2:         /* equal each: both invalid true, one invalid false */
			r = j >= la && j >= lb ? true : j >= la || j >= lb ? false : element(a, j, fmt) == y;
			break;
		default:        /* equal ordered: the needle a starts at b[j] (it may run off b's end) */
			r = true;
			for (unsigned k = 0; k + j < n && k < la; k++)
				if (j + k >= lb || element(a, k, fmt) != element(b, j + k, fmt)) {
					r = false;
					break;
				}
			break;
		}
		res |= (uint32_t)r << j;
	}
	return res;
}

/* 66 0F 3A 60 PCMPESTRM, 61 PCMPESTRI, 62 PCMPISTRM, 63 PCMPISTRI. Flags: CF
 * IntRes2 != 0, ZF the string shorter than n, SF the first operand shorter
 * than n, OF IntRes2[0], AF = PF = 0. Index results go to ECX (n when
 * IntRes2 = 0), mask results to XMM0. */
status_t op_pcmpstr(struct cpu *cpu, const struct insn *in)
{
	struct simd_args a;
	status_t st = simd_load(cpu, in, false, 16, SIMD_ANY, &a);
	if (st != ST_OK)
		return st;
	if (in->vex)
		a.d = cpu->fpu.xmm[in->reg & 15];       /* VPCMPxSTRx: no VEX.vvvv operand */
	unsigned imm = (unsigned)in->imm & 0xff, fmt = imm & 3, n = (imm & 1) ? 8 : 16;
	bool explicit = in->opcode < 0x62, index = in->opcode & 1, wide = (in->rex & 8) != 0;
	unsigned la = explicit ? explicit_len(cpu->regs[R_AX], wide, n) : implicit_len(&a.d, fmt, n);
	unsigned lb = explicit ? explicit_len(cpu->regs[R_DX], wide, n) : implicit_len(&a.s, fmt, n);
	uint32_t all = (1u << n) - 1, r1 = aggregate(imm, &a.d, la, &a.s, lb, n), r2;
	switch ((imm >> 4) & 3) {
	case 0: case 2: r2 = r1; break;
	case 1:         r2 = ~r1 & all; break;
	default:        r2 = r1 ^ ((1u << lb) - 1); break;    /* negate the valid string elements only */
	}
	if (index) {
		unsigned i = n;
		if (r2)
			i = (imm & 0x40) ? 31 - (unsigned)__builtin_clz(r2) : (unsigned)__builtin_ctz(r2);
		reg_write(cpu, R_CX, 4, false, i);
	} else {
		union xmm_reg m = { .q = { 0, 0 } };
		if (imm & 0x40) {
			unsigned w = 16 / n;
			for (unsigned j = 0; j < n; j++)
				if ((r2 >> j) & 1)
					memset(m.b + j * w, 0xff, w);
		} else {
			m.d[0] = r2;
		}
		cpu->fpu.xmm[0] = m;
		/* The VEX form's XMM0 is a VEX.128 destination (SDM Vol.2 2.3.10). */
		if (in->vex)
			cpu->fpu.ymm_hi[0] = (union xmm_reg){ .q = { 0, 0 } };
	}
	flags_update(cpu, FLAGS_ARITH, (r2 ? FLAG_CF : 0) | (lb < n ? FLAG_ZF : 0) | (la < n ? FLAG_SF : 0) |
			 ((r2 & 1) ? FLAG_OF : 0));
	return ST_OK;
}
