/* The AVX/AVX2 data-movement instructions with no legacy-SSE counterpart
 * (emu/isa/avx_permute.isa): broadcasts, 128-bit lane insert/extract/permute,
 * the in-lane and full-width permutes, VPBLENDD and the per-element variable
 * shifts. None of them reads MXCSR or raises a SIMD floating-point exception
 * (SDM Vol.2 2.5: exception types 4, 5, 6; no alignment rule). Each begins
 * with avx_gate() (emu/avx.h); a VEX.128 destination has bits 255:128 zeroed
 * (ymm_put). Operands: V = ModRM.reg, H = VEX.vvvv, W = ModRM.rm or memory. */
#include <string.h>

#include "emu/avx.h"
#include "emu/fpu.h"
#include "emu/operand.h"
#include "isa_handlers.h"

/* SDM Vol.2 VBROADCAST, VPBROADCAST: the source element (a register's lowest,
 * or memory of the element's size; 16 bytes for F128/I128) copied to every
 * element of the destination. The element size is the opcode's. */
status_t op_vbroadcast(struct cpu *cpu, const struct insn *in)
{
	unsigned esize;
	switch (in->opcode) {
	case 0x78: esize = 1; break;
	case 0x79: esize = 2; break;
	case 0x18: case 0x58: esize = 4; break;
	case 0x19: case 0x59: esize = 8; break;
	default: esize = 16; break;            /* 1A VBROADCASTF128, 5A VBROADCASTI128 */
	}
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	union ymm_reg s, d;
	st = avx_read_w(cpu, in, esize, 0, &s);
	if (st != ST_OK)
		return st;
	unsigned bytes = avx_bytes(in);
	for (unsigned i = 0; i < bytes; i += esize)
		memcpy(d.b + i, s.b, esize);
	ymm_put(cpu, in->reg, &d, bytes);
	return ST_OK;
}

/* SDM Vol.2 VINSERTF128/VINSERTI128: the destination is src1 (H) with the
 * 128-bit lane imm8[0] replaced by src2 (xmm or m128). */
status_t op_vinsert128(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	union ymm_reg s, d;
	st = avx_read_w(cpu, in, 16, 0, &s);
	if (st != ST_OK)
		return st;
	ymm_get(cpu, in->vvvv, &d);
	d.x[in->imm & 1] = s.x[0];
	ymm_put(cpu, in->reg, &d, 32);
	return ST_OK;
}

/* SDM Vol.2 VEXTRACTF128/VEXTRACTI128: lane imm8[0] of the source (V) to an
 * xmm register (bits 255:128 zeroed: a VEX.128-style register write) or m128. */
status_t op_vextract128(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	union ymm_reg s, d = { .q = { 0, 0, 0, 0 } };
	ymm_get(cpu, in->reg, &s);
	d.x[0] = s.x[in->imm & 1];
	return avx_write_w(cpu, in, &d, 16, 0);
}

/* SDM Vol.2 VPERM2F128/VPERM2I128: each destination lane is the lane of
 * {src1.low, src1.high, src2.low, src2.high} its imm8 field selects (bits 1:0
 * and 5:4), or zero when bit 3 / bit 7 is set. */
status_t op_vperm2x128(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	union ymm_reg s1, s2, d;
	st = avx_read_w(cpu, in, 32, 0, &s2);
	if (st != ST_OK)
		return st;
	ymm_get(cpu, in->vvvv, &s1);
	const union xmm_reg lanes[4] = { s1.x[0], s1.x[1], s2.x[0], s2.x[1] };
	for (unsigned i = 0; i < 2; i++) {
		unsigned ctl = (unsigned)(in->imm >> (4 * i)) & 0xf;
		d.x[i] = ctl & 8 ? (union xmm_reg){ .q = { 0, 0 } } : lanes[ctl & 3];
	}
	ymm_put(cpu, in->reg, &d, 32);
	return ST_OK;
}

/* SDM Vol.2 VPERMILPS/VPERMILPD: within each 128-bit lane, every element is
 * the lane's element its control selects. Map 0F38 (0C/0D): the controls are
 * the elements of W (bits 1:0 of a dword, bit 1 of a qword) and the data is H;
 * map 0F3A (04/05): the data is W and the controls imm8 (two bits per dword,
 * the same for both lanes; one bit per qword, four for VEX.256). */
status_t op_vpermil(struct cpu *cpu, const struct insn *in)
{
	bool var = in->map == 2, pd = (in->opcode & 1) != 0;
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	unsigned bytes = avx_bytes(in);
	union ymm_reg w, s, ctl, d;
	st = avx_read_w(cpu, in, bytes, 0, &w);
	if (st != ST_OK)
		return st;
	if (var) {
		ymm_get(cpu, in->vvvv, &s);
		ctl = w;
	} else {
		s = w;
		for (unsigned i = 0; i < 8; i++)
			ctl.d[i] = (uint32_t)(in->imm >> (2 * (i & 3)));
		for (unsigned i = 0; pd && i < 4; i++)
			ctl.q[i] = (uint64_t)((in->imm >> i) & 1) << 1;
	}
	if (pd) {
		for (unsigned i = 0; i < bytes / 8; i++)
			d.q[i] = s.q[(i & ~1u) | ((ctl.q[i] >> 1) & 1)];
	} else {
		for (unsigned i = 0; i < bytes / 4; i++)
			d.d[i] = s.d[(i & ~3u) | (ctl.d[i] & 3)];
	}
	ymm_put(cpu, in->reg, &d, bytes);
	return ST_OK;
}

/* SDM Vol.2 VPERMD/VPERMPS (0F38 36/16): dword i of the destination is
 * dword idx[i] & 7 of W, the indices in H. VPERMQ/VPERMPD (0F3A 00/01): qword
 * i is qword imm8[2i+1:2i] of W. VEX.256 only. */
status_t op_vpermx(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	union ymm_reg s, idx, d;
	st = avx_read_w(cpu, in, 32, 0, &s);
	if (st != ST_OK)
		return st;
	if (in->map == 2) {
		ymm_get(cpu, in->vvvv, &idx);
		for (unsigned i = 0; i < 8; i++)
			d.d[i] = s.d[idx.d[i] & 7];
	} else {
		for (unsigned i = 0; i < 4; i++)
			d.q[i] = s.q[(in->imm >> (2 * i)) & 3];
	}
	ymm_put(cpu, in->reg, &d, 32);
	return ST_OK;
}

/* SDM Vol.2 VPBLENDD: dword i from W where imm8[i] is set, else from H
 * (VEX.256 uses all eight bits, VEX.128 the low four). */
status_t op_vpblendd(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	unsigned bytes = avx_bytes(in);
	union ymm_reg s1, s2, d;
	st = avx_read_w(cpu, in, bytes, 0, &s2);
	if (st != ST_OK)
		return st;
	ymm_get(cpu, in->vvvv, &s1);
	for (unsigned i = 0; i < bytes / 4; i++)
		d.d[i] = (in->imm >> i) & 1 ? s2.d[i] : s1.d[i];
	ymm_put(cpu, in->reg, &d, bytes);
	return ST_OK;
}

/* SDM Vol.2 VPSLLVD/Q (47), VPSRLVD/Q (45), VPSRAVD (46): each element of H
 * shifted by the count in the same element of W, the whole element read as
 * unsigned: a logical shift by more than the width - 1 gives 0, an arithmetic
 * one the sign in every bit. qword: VEX.W1 (the row's handler). */
static status_t shift_var(struct cpu *cpu, const struct insn *in, bool qword)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	unsigned bytes = avx_bytes(in);
	union ymm_reg v, cnt, d;
	st = avx_read_w(cpu, in, bytes, 0, &cnt);
	if (st != ST_OK)
		return st;
	ymm_get(cpu, in->vvvv, &v);
	if (qword) {
		for (unsigned i = 0; i < bytes / 8; i++) {
			uint64_t c = cnt.q[i];
			d.q[i] = c > 63 ? 0 : in->opcode == 0x47 ? v.q[i] << c : v.q[i] >> c;
		}
	} else {
		for (unsigned i = 0; i < bytes / 4; i++) {
			uint32_t c = cnt.d[i], x = v.d[i];
			if (in->opcode == 0x46)
				d.d[i] = (uint32_t)((int32_t)x >> (c > 31 ? 31 : c));
			else
				d.d[i] = c > 31 ? 0 : in->opcode == 0x47 ? x << c : x >> c;
		}
	}
	ymm_put(cpu, in->reg, &d, bytes);
	return ST_OK;
}

status_t op_vpshiftv_d(struct cpu *cpu, const struct insn *in) { return shift_var(cpu, in, false); }
status_t op_vpshiftv_q(struct cpu *cpu, const struct insn *in) { return shift_var(cpu, in, true); }
