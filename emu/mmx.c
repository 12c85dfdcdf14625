/* MMX: the 64-bit packed-integer instructions on MM0-MM7 (SDM Vol.1 ch. 9,
 * Vol.2 instruction pages), their SSE/SSE2-era additions, EMMS, and the
 * MOVQ2DQ/MOVDQ2Q bridges to the XMM registers.
 *
 * The MMX registers are the x87 data registers (SDM Vol.1 9.5, Figure 9-2):
 *
 *     79        64 63                      0
 *    +------------+------------------------+
 *    | sign, exp  |         MMi            |   physical x87 register Ri
 *    +------------+------------------------+
 *
 * so MMi is the significand of Ri whatever TOP is, a write sets bits 79:64 to
 * all ones, and every MMX instruction but EMMS switches the x87 unit to "MMX
 * mode": TOP = 0 and all tags valid (SDM Vol.1 9.5.1, Table 9-2). FXSAVE/XSAVE
 * and FNSAVE therefore show the MMX values in the ST slots without further ado.
 *
 * The element operations are the SSE2 kernels of emu/sse.c run on the low
 * quadword of an XMM-sized value (emu/sse_kernels.h).
 */
#include <string.h>

#include "emu/fpu.h"
#include "emu/mmx.h"
#include "emu/operand.h"
#include "emu/sse_fp_ops.h"
#include "emu/sse_kernels.h"
#include "isa_handlers.h"

status_t mmx_gate(struct cpu *cpu)
{
	/* SDM Vol.3 2.5 Table 2-2, Vol.2 MMX "Protected Mode Exceptions": #UD if
	 * CR0.EM = 1; #NM if CR0.TS = 1; #MF if an unmasked x87 exception is
	 * pending (SDM Vol.1 9.5.2: an MMX instruction is a waiting x87
	 * instruction for this purpose). CR0.NE = 0: see x87_gate. */
	if (cpu->cr0 & CR0_EM)
		return cpu_raise(cpu, EXC_UD);
	if (cpu->cr0 & CR0_TS)
		return cpu_raise(cpu, EXC_NM);
	if ((cpu->fpu.fsw & FSW_ES) && (cpu->cr0 & CR0_NE))
		return cpu_raise(cpu, EXC_MF);
	return ST_OK;
}

void mmx_enter(struct cpu *cpu)
{
	/* SDM Vol.1 9.5.1: TOP set to 0, every register tagged valid (not empty).
	 * hvemu keeps the full two-bit tags FSTENV/FSAVE store, which the
	 * processor derives from the contents of each non-empty register (SDM
	 * Vol.1 10.5.1.1, "the tags ... are computed from the register
	 * contents"): an MMX-written register, exponent 7FFFH, shows as special. */
	cpu->fpu.fsw &= (uint16_t)~FSW_TOP_MASK;
	cpu->fpu.ftw = fpu_tag_expand(0xff, cpu->fpu.r);
}

uint64_t mm_read(const struct cpu *cpu, unsigned n) { return cpu->fpu.r[n & 7].mant; }

void mm_write(struct cpu *cpu, unsigned n, uint64_t v)
{
	/* SDM Vol.1 9.5.1: an MMX write sets the exponent and sign, bits 79:64, to 1s. */
	cpu->fpu.r[n & 7].mant = v;
	cpu->fpu.r[n & 7].sexp = 0xffff;
}

status_t mmx_read_q(struct cpu *cpu, const struct insn *in, unsigned bytes, uint64_t *v)
{
	if (!in->mem) {
		*v = mm_read(cpu, in->rm);
		return ST_OK;
	}
	/* MMX memory operands have no alignment rule beyond #AC (SDM Vol.2 e.g. PADDB). */
	*v = 0;
	return mem_read(cpu, in->seg, insn_ea(cpu, in), bytes, v);
}

/* 0F 6E MOVD/MOVQ mm, r/m32/64 (zero-extended); 0F 7E MOVD/MOVQ r/m32/64, mm.
 * REX.W selects 64 bits (SDM Vol.2 MOVD/MOVQ). */
status_t op_mmx_movd(struct cpu *cpu, const struct insn *in)
{
	status_t st = mmx_gate(cpu);
	if (st != ST_OK)
		return st;
	unsigned n = (in->rex & 8) ? 8 : 4;
	if (in->opcode == 0x7e) {
		st = rm_write(cpu, in, n, mm_read(cpu, in->reg) & size_mask(n));
	} else {
		uint64_t v;
		st = rm_read(cpu, in, n, &v);
		if (st == ST_OK)
			mm_write(cpu, in->reg, v & size_mask(n));
	}
	if (st == ST_OK)
		mmx_enter(cpu);
	return st;
}

/* 0F 6F MOVQ mm, mm/m64; 0F 7F MOVQ mm/m64, mm; 0F E7 MOVNTQ m64, mm (SSE;
 * the non-temporal hint has no effect without caches). */
status_t op_mmx_movq(struct cpu *cpu, const struct insn *in)
{
	status_t st = mmx_gate(cpu);
	if (st != ST_OK)
		return st;
	if (in->opcode == 0x6f) {
		uint64_t v;
		st = mmx_read_q(cpu, in, 8, &v);
		if (st == ST_OK)
			mm_write(cpu, in->reg, v);
	} else if (in->mem) {
		st = mem_write(cpu, in->seg, insn_ea(cpu, in), 8, mm_read(cpu, in->reg));
	} else {
		mm_write(cpu, in->rm, mm_read(cpu, in->reg));
	}
	if (st == ST_OK)
		mmx_enter(cpu);
	return st;
}

/* 0F 77 EMMS: every tag empty and TOP 0 (SDM Vol.2 EMMS: "x87FPUTagWord <-
 * FFFFH"; SDM Vol.1 9.5.1 Table 9-2, EMMS row: TOP 000B); the registers are
 * unchanged. The gate is the other MMX instructions' ("EMMS ... Protected Mode
 * Exceptions": #UD CR0.EM, #NM CR0.TS, #MF pending x87 exception). */
status_t op_emms(struct cpu *cpu, const struct insn *in)
{
	(void)in;
	status_t st = mmx_gate(cpu);
	if (st != ST_OK)
		return st;
	cpu->fpu.ftw = 0xffff;
	cpu->fpu.fsw &= (uint16_t)~FSW_TOP_MASK;
	return ST_OK;
}

/* Which SSE2 kernel an MMX opcode uses (the same opcodes, SDM Vol.2 Table A-3). */
static enum sse_kernel kernel_of(uint8_t op)
{
	switch (op) {
	case 0xdb: case 0xdf: case 0xeb: case 0xef: return SK_LOGIC;
	case 0xf4: case 0xf5: case 0xf6: return SK_WIDE;
	case 0x63: case 0x67: case 0x6b: return SK_PACK;
	case 0x60: case 0x61: case 0x62: case 0x68: case 0x69: case 0x6a: return SK_UNPACK;
	case 0xd1: case 0xd2: case 0xd3: case 0xe1: case 0xe2: case 0xf1: case 0xf2: case 0xf3: return SK_SHIFT;
	default: return SK_LANE;
	}
}

/* The MMX (P, Q) forms of the packed-integer operations: mm := mm op mm/m64
 * (PUNPCKL*: mm/m32). The kernel runs on {mm, 0}: lane-wise results are the
 * low quadword; a pack narrows d's elements into bytes 0-3 and s's into 8-11
 * of the 128-bit result, where MMX wants them in 0-3 and 4-7; a high unpack
 * interleaves the upper halves, so the operands go into the upper quadword
 * and the result is the upper quadword. */
status_t op_mmx_op(struct cpu *cpu, const struct insn *in)
{
	status_t st = mmx_gate(cpu);
	if (st != ST_OK)
		return st;
	uint64_t s;
	bool low_unpack = in->opcode >= 0x60 && in->opcode <= 0x62;
	st = mmx_read_q(cpu, in, low_unpack ? 4 : 8, &s);
	if (st != ST_OK)
		return st;
	enum sse_kernel k = kernel_of(in->opcode);
	unsigned hi = k == SK_UNPACK && !low_unpack;
	union xmm_reg d = { .q = { 0, 0 } }, w = { .q = { 0, 0 } };
	d.q[hi] = mm_read(cpu, in->reg);
	w.q[hi] = s;
	sse_kernel(k, in, &d, &w);
	uint64_t r = k == SK_PACK ? (uint64_t)d.d[0] | (uint64_t)d.d[2] << 32 : d.q[hi];
	mm_write(cpu, in->reg, r);
	mmx_enter(cpu);
	return ST_OK;
}

/* 0F 71/72/73 /2 PSRLW/D/Q, /4 PSRAW/D, /6 PSLLW/D/Q mm, imm8: the count is not
 * masked; beyond the element width a logical shift gives 0 and an arithmetic
 * one the sign (SDM Vol.2 PSRLW). */
status_t op_mmx_shift_imm(struct cpu *cpu, const struct insn *in)
{
	status_t st = mmx_gate(cpu);
	if (st != ST_OK)
		return st;
	unsigned digit = (in->modrm >> 3) & 7, bits = 16u << (in->opcode - 0x71);
	unsigned count = (unsigned)in->imm & 0xff;
	uint64_t v = mm_read(cpu, in->rm), r = 0;
	uint64_t ones = bits == 64 ? ~0ull : (1ull << bits) - 1;
	for (unsigned i = 0; i < 64; i += bits) {
		uint64_t e = (v >> i) & ones;
		if (digit == 4) {
			uint64_t sign = e >> (bits - 1) ? ones : 0;
			e = count >= bits ? sign : ((e >> count) | (sign << (bits - count))) & ones;
		} else if (count >= bits) {
			e = 0;
		} else {
			e = (digit == 2 ? e >> count : e << count) & ones;
		}
		r |= e << i;
	}
	mm_write(cpu, in->rm, r);
	mmx_enter(cpu);
	return ST_OK;
}

/* 0F 70 PSHUFW mm, mm/m64, imm8 (SSE): word i of the result is source word
 * imm8[2i+1:2i] (SDM Vol.2 PSHUFW). */
status_t op_pshufw(struct cpu *cpu, const struct insn *in)
{
	status_t st = mmx_gate(cpu);
	if (st != ST_OK)
		return st;
	uint64_t s, r = 0;
	st = mmx_read_q(cpu, in, 8, &s);
	if (st != ST_OK)
		return st;
	for (unsigned i = 0; i < 4; i++)
		r |= ((s >> (16 * ((in->imm >> (2 * i)) & 3))) & 0xffff) << (16 * i);
	mm_write(cpu, in->reg, r);
	mmx_enter(cpu);
	return ST_OK;
}

/* 0F C4 PINSRW mm, r32/m16, imm8 (SSE): into word imm8[1:0]. */
status_t op_mmx_pinsrw(struct cpu *cpu, const struct insn *in)
{
	status_t st = mmx_gate(cpu);
	if (st != ST_OK)
		return st;
	uint64_t v;
	st = rm_read(cpu, in, 2, &v);
	if (st != ST_OK)
		return st;
	unsigned sh = 16 * (in->imm & 3);
	mm_write(cpu, in->reg, (mm_read(cpu, in->reg) & ~(0xffffull << sh)) | (v & 0xffff) << sh);
	mmx_enter(cpu);
	return ST_OK;
}

/* 0F C5 PEXTRW r32/64, mm, imm8 (SSE): word imm8[1:0], zero-extended (64-bit
 * default operand size in 64-bit mode, SDM Vol.2 PEXTRW). */
status_t op_mmx_pextrw(struct cpu *cpu, const struct insn *in)
{
	status_t st = mmx_gate(cpu);
	if (st != ST_OK)
		return st;
	uint64_t v = (mm_read(cpu, in->rm) >> (16 * (in->imm & 3))) & 0xffff;
	reg_write(cpu, in->reg, cpu_is_mode64(cpu) ? 8 : 4, in->rex != 0, v);
	mmx_enter(cpu);
	return ST_OK;
}

/* 0F D7 PMOVMSKB r32/64, mm (SSE): the eight byte sign bits, zero-extended. */
status_t op_mmx_pmovmskb(struct cpu *cpu, const struct insn *in)
{
	status_t st = mmx_gate(cpu);
	if (st != ST_OK)
		return st;
	uint64_t v = mm_read(cpu, in->rm), m = 0;
	for (unsigned i = 0; i < 8; i++)
		m |= ((v >> (8 * i + 7)) & 1) << i;
	reg_write(cpu, in->reg, cpu_is_mode64(cpu) ? 8 : 4, in->rex != 0, m);
	mmx_enter(cpu);
	return ST_OK;
}

/* 0F F7 MASKMOVQ mm1, mm2 (SSE): the bytes of mm1 whose mask byte in mm2 has
 * bit 7 set go to DS:rDI (override allowed; rDI by the address size). As
 * MASKMOVDQU (emu/sse.c): only the selected bytes are accessed, the span
 * probed first so a fault stores nothing. */
status_t op_maskmovq(struct cpu *cpu, const struct insn *in)
{
	status_t st = mmx_gate(cpu);
	if (st != ST_OK)
		return st;
	uint64_t v = mm_read(cpu, in->reg), m = mm_read(cpu, in->rm);
	unsigned first = 8, last = 0;
	for (unsigned i = 0; i < 8; i++) {
		if ((m >> (8 * i + 7)) & 1) {
			first = first < i ? first : i;
			last = i;
		}
	}
	uint64_t amask = size_mask(in->asize), base = cpu->regs[R_DI] & amask;
	if (first < 8)
		st = fpu_mem_probe(cpu, in, (base + first) & amask, last - first + 1, 0);
	for (unsigned i = first; st == ST_OK && i <= last && first < 8; i++)
		if ((m >> (8 * i + 7)) & 1)
			st = mem_write(cpu, in->seg, (base + i) & amask, 1, (v >> (8 * i)) & 0xff);
	if (st == ST_OK)
		mmx_enter(cpu);
	return st;
}

/* F3 0F D6 MOVQ2DQ xmm, mm: xmm := zero-extended mm; F2 0F D6 MOVDQ2Q mm, xmm:
 * mm := the low quadword (SSE2). Both switch to MMX mode (SDM Vol.2 MOVQ2DQ
 * "FPU Flags Affected"... TOP and tags as any MMX instruction) and take the
 * SSE gate and the MMX #MF check. */
status_t op_movq2dq(struct cpu *cpu, const struct insn *in)
{
	status_t st = sse_gate(cpu, true, CPUID_SSE2);
	if (st == ST_OK)
		st = mmx_gate(cpu);
	if (st != ST_OK)
		return st;
	if (in->rep == REP_F3) {
		union xmm_reg *x = &cpu->fpu.xmm[in->reg & 15];
		x->q[0] = mm_read(cpu, in->rm);
		x->q[1] = 0;
	} else {
		mm_write(cpu, in->reg, cpu->fpu.xmm[in->rm & 15].q[0]);
	}
	mmx_enter(cpu);
	return ST_OK;
}

/* The conversions with an MMX operand (SDM Vol.2 CVTPI2PS .. CVTTPD2PI), the
 * packed conversions of emu/sse_fp.c on two elements: NP 0F 2A CVTPI2PS xmm,
 * mm/m64 (the upper two singles kept), 66 0F 2A CVTPI2PD xmm, mm/m64; NP 0F
 * 2D/2C CVT(T)PS2PI mm, xmm/m64; 66 0F 2D/2C CVT(T)PD2PI mm, xmm/m128
 * (aligned). The SSE gate (SSE, SSE2 for the PD forms: the rows' feature),
 * then the MMX #MF check; an MMX register operand switches to MMX mode, but
 * CVTPI2PS/PD from memory touch no x87 state ("does not cause a transition to
 * MMX technology and does not take x87 FPU exceptions", SDM Vol.2 CVTPI2PS). */
static status_t mmx_cvt(struct cpu *cpu, const struct insn *in, bool dbl)
{
	bool to_fp = in->opcode == 0x2a;
	bool touches_mm = !to_fp || !in->mem;
	status_t st = sse_gate(cpu, true, dbl ? CPUID_SSE2 : CPUID_SSE);
	if (st == ST_OK && touches_mm)
		st = mmx_gate(cpu);
	if (st != ST_OK)
		return st;
	union xmm_reg s = { .q = { 0, 0 } }, d = { .q = { 0, 0 } };
	if (to_fp) {
		st = mmx_read_q(cpu, in, 8, &s.q[0]);
	} else if (!in->mem) {
		s = cpu->fpu.xmm[in->rm & 15];
	} else {
		unsigned n = dbl ? 16 : 8;
		st = fpu_mem_read(cpu, in, insn_ea(cpu, in), s.b, n, n == 16 ? 16 : 0);
	}
	if (st != ST_OK)
		return st;
	if (!to_fp && !dbl)
		s.q[1] = 0;             /* two singles: the other lanes convert +0.0, exactly */
	enum sse_fp_cvt k = to_fp ? (dbl ? SFC_DQ2PD : SFC_DQ2PS)
				  : dbl ? (in->opcode == 0x2c ? SFC_TPD2DQ : SFC_PD2DQ)
					: (in->opcode == 0x2c ? SFC_TPS2DQ : SFC_PS2DQ);
	uint32_t exc = sse_fp_convert(cpu, k, &d, &s);
	st = sse_fp_commit(cpu, exc);
	if (st != ST_OK)
		return st;
	if (to_fp) {
		union xmm_reg *x = &cpu->fpu.xmm[in->reg & 15];
		if (dbl)
			*x = d;
		else
			x->q[0] = d.q[0];
	} else {
		mm_write(cpu, in->reg, d.q[0]);
	}
	if (touches_mm)
		mmx_enter(cpu);
	return ST_OK;
}
status_t op_mmx_cvt_ps(struct cpu *cpu, const struct insn *in) { return mmx_cvt(cpu, in, false); }
status_t op_mmx_cvt_pd(struct cpu *cpu, const struct insn *in) { return mmx_cvt(cpu, in, true); }
