/* The VEX forms of the legacy SSE/SSE2 instructions (SDM Vol.2 instruction
 * pages, "VEX.128 encoded version" / "VEX.256 encoded version"; Vol.2 2.3.10):
 * moves, logic, packed integer and floating-point arithmetic. Rows in
 * emu/isa/avx.isa.
 *
 * One kernel serves the three forms. The legacy kernels compute d := d op s on
 * 128 bits (emu/sse_kernels.h, emu/sse_fp_ops.h); a VEX form runs the same
 * kernel with d = VEX.vvvv (the first source, SDM Vol.2 2.3.6 "NDS"), s = the
 * ModRM.rm operand, and writes ModRM.reg, so it is non-destructive; VEX.256 runs
 * it on each 128-bit lane where the instruction page defines the operation
 * lane by lane (the packed arithmetic, logic, unpacks, packs, shuffles, shifts).
 * Rules of the form, each cited where applied:
 *   - VEX.128 zeroes bits 255:128 of a register destination, legacy SSE leaves
 *     them (ymm_put, emu/avx.h; SDM Vol.2 2.3.10);
 *   - memory operands are not alignment-checked, except the exception type 1
 *     moves VMOVAPS/APD/DQA and VMOVNTPS/PD/DQ: 16 bytes for VEX.128, 32 for
 *     VEX.256, else #GP(0) (SDM Vol.2 2.5.1, Table 2-18 vs 2-19..2-21);
 *   - the scalar forms take their upper elements from VEX.vvvv (SDM Vol.2
 *     ADDSS: "DEST[127:32] := SRC1[127:32]") and ignore VEX.L (LIG rows);
 *   - a row that says "VEX.L must be 0" has an L0 word, VEX.L = 1 matches no
 *     row: #UD; a row without an H operand needs vvvv = 1111b (emu/decode.c).
 * The state checks are avx_gate's (emu/avx.c). The 256-bit packed-integer forms
 * are AVX2 (the row's feature).
 */
#include <string.h>

#include "emu/avx.h"
#include "emu/fpu.h"
#include "emu/operand.h"
#include "emu/sse_fp_ops.h"
#include "emu/simd_operand.h"
#include "emu/sse_kernels.h"
#include "isa_handlers.h"

/* Lanes of a form of bytes bytes. */
static inline unsigned lanes_of(unsigned bytes) { return bytes / 16; }

/* ---- moves ---- */

/* Stores are 11, 29, 7F, 2B, E7 (as the legacy forms). */
static bool vmove_is_store(const struct insn *in)
{
	return in->opcode == 0x11 || in->opcode == 0x29 || in->opcode == 0x7f || in->opcode == 0x2b ||
	       in->opcode == 0xe7;
}

static status_t vmove(struct cpu *cpu, const struct insn *in, bool aligned)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	unsigned n = avx_bytes(in), align = aligned ? n : 0;
	union ymm_reg v;
	if (vmove_is_store(in)) {
		ymm_get(cpu, in->reg, &v);
		return avx_write_w(cpu, in, &v, n, align);
	}
	st = avx_read_w(cpu, in, n, align, &v);
	if (st == ST_OK)
		ymm_put(cpu, in->reg, &v, n);
	return st;
}

/* VEX 0F 28/29 VMOVAPS, 66 0F 28/29 VMOVAPD, 66 0F 6F/7F VMOVDQA, 0F 2B VMOVNTPS,
 * 66 0F 2B VMOVNTPD, 66 0F E7 VMOVNTDQ: exception type 1, "#GP(0) ... If the
 * memory address is not aligned on a 16-byte (VEX.128) / 32-byte (VEX.256)
 * boundary" (SDM Vol.2 MOVAPS, Table 2-18). */
status_t op_vmova(struct cpu *cpu, const struct insn *in) { return vmove(cpu, in, true); }
/* VEX 0F 10/11 VMOVUPS, 66 0F 10/11 VMOVUPD, F3 0F 6F/7F VMOVDQU, F2 0F F0 VLDDQU:
 * type 4, no alignment. */
status_t op_vmovu(struct cpu *cpu, const struct insn *in) { return vmove(cpu, in, false); }

/* VEX F3/F2 0F 10/11 VMOVSS/VMOVSD (SDM Vol.2 MOVSS): from memory, the element
 * with zeros above it to bit 255; register to register, the element of the
 * ModRM.rm (10) or ModRM.reg (11) operand with the upper elements of VEX.vvvv,
 * into the other; to memory, the element. */
status_t op_vmovs(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	unsigned n = in->rep == REP_F3 ? 4 : 8;
	union ymm_reg v;
	memset(&v, 0, sizeof(v));
	if (in->mem) {
		if (in->opcode == 0x11)
			return fpu_mem_write(cpu, in, insn_ea(cpu, in), cpu->fpu.xmm[in->reg & 15].b, n, 0);
		st = fpu_mem_read(cpu, in, insn_ea(cpu, in), v.b, n, 0);
		if (st == ST_OK)
			ymm_put(cpu, in->reg, &v, 16);
		return st;
	}
	unsigned from = in->opcode == 0x10 ? in->rm : in->reg, to = in->opcode == 0x10 ? in->reg : in->rm;
	v.x[0] = cpu->fpu.xmm[in->vvvv & 15];
	memcpy(v.b, cpu->fpu.xmm[from & 15].b, n);
	ymm_put(cpu, to, &v, 16);
	return ST_OK;
}

/* VEX.128 66 0F 6E VMOVD/VMOVQ xmm, r/m32/64; 66 0F 7E VMOVD/VMOVQ r/m32/64, xmm.
 * VEX.W1 selects 64 bits in 64-bit mode, VEX.W is ignored elsewhere (SDM Vol.2
 * MOVD/MOVQ; in->rex carries W only in 64-bit mode). */
status_t op_vmovd(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	unsigned n = (in->rex & 8) ? 8 : 4;
	const union xmm_reg *x = &cpu->fpu.xmm[in->reg & 15];
	if (in->opcode == 0x7e)
		return rm_write(cpu, in, n, n == 8 ? x->q[0] : x->d[0]);
	uint64_t g;
	st = rm_read(cpu, in, n, &g);
	if (st != ST_OK)
		return st;
	union ymm_reg v = { .q = { g, 0, 0, 0 } };
	ymm_put(cpu, in->reg, &v, 16);
	return ST_OK;
}

/* VEX.128 F3 0F 7E VMOVQ xmm, xmm/m64; 66 0F D6 VMOVQ xmm/m64, xmm: the low
 * quadword, a register destination zeroed from bit 64 to 255. */
status_t op_vmovq(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	bool store = in->opcode == 0xd6;
	if (store && in->mem)
		return mem_write(cpu, in->seg, insn_ea(cpu, in), 8, cpu->fpu.xmm[in->reg & 15].q[0]);
	union ymm_reg v = { .q = { 0, 0, 0, 0 } };
	if (!store && in->mem) {
		st = mem_read(cpu, in->seg, insn_ea(cpu, in), 8, &v.q[0]);
		if (st != ST_OK)
			return st;
	} else {
		v.q[0] = cpu->fpu.xmm[(store ? in->reg : in->rm) & 15].q[0];
	}
	ymm_put(cpu, store ? in->rm : in->reg, &v, 16);
	return ST_OK;
}

/* VEX.128 0F/66 0F 12/16 VMOVLPS/VMOVHPS/VMOVLPD/VMOVHPD xmm1, xmm2, m64 and
 * 0F 12/16 VMOVHLPS/VMOVLHPS xmm1, xmm2, xmm3: one quadword from the third
 * operand (12 memory or 16 register: its low one; 12 register: its high one)
 * into the low (12) or high (16) half, the other half from xmm2; 13/17 store the
 * low/high quadword (SDM Vol.2 MOVLPS). "VEX.L must be 0" (L0 rows). */
status_t op_vmovlh(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	unsigned half = in->opcode >= 0x16;
	if (in->opcode & 1)
		return mem_write(cpu, in->seg, insn_ea(cpu, in), 8, cpu->fpu.xmm[in->reg & 15].q[half]);
	union ymm_reg v = { .q = { 0, 0, 0, 0 } };
	v.x[0] = cpu->fpu.xmm[in->vvvv & 15];
	if (in->mem) {
		st = mem_read(cpu, in->seg, insn_ea(cpu, in), 8, &v.q[half]);
		if (st != ST_OK)
			return st;
	} else {
		v.q[half] = cpu->fpu.xmm[in->rm & 15].q[!half];
	}
	ymm_put(cpu, in->reg, &v, 16);
	return ST_OK;
}

/* The sign bits of the elements of size w of the ModRM.rm register (bytes
 * bytes) into a general register, zero-extended (SDM Vol.2 VMOVMSKPS,
 * VPMOVMSKB: "reg" is 64 bits in 64-bit mode). */
static status_t vmovmsk(struct cpu *cpu, const struct insn *in, unsigned w)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	union ymm_reg x;
	ymm_get(cpu, in->rm, &x);
	uint32_t m = 0;
	for (unsigned i = 0; i < avx_bytes(in) / w; i++)
		m |= (uint32_t)(x.b[i * w + w - 1] >> 7) << i;
	reg_write(cpu, in->reg, cpu_is_mode64(cpu) ? 8 : 4, in->rex != 0, m);
	return ST_OK;
}
/* VEX 0F 50 VMOVMSKPS, 66 0F 50 VMOVMSKPD, 66 0F D7 VPMOVMSKB. */
status_t op_vmovmsk_ps(struct cpu *cpu, const struct insn *in) { return vmovmsk(cpu, in, 4); }
status_t op_vmovmsk_pd(struct cpu *cpu, const struct insn *in) { return vmovmsk(cpu, in, 8); }
status_t op_vpmovmskb(struct cpu *cpu, const struct insn *in) { return vmovmsk(cpu, in, 1); }

/* ---- lane-wise kernels ---- */

/* reg := k(vvvv, rm) on each 128-bit lane. s_bytes: the rm operand's width when it
 * is not the form's (the shift counts: xmm/m128 in both forms, used by every
 * lane, SDM Vol.2 VPSRLW "VEX.256 ... ymm2, xmm3/m128"). */
static status_t kernel_lanes(struct cpu *cpu, const struct insn *in, enum sse_kernel k, unsigned s_bytes)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	unsigned n = avx_bytes(in);
	union ymm_reg h, w, r;
	ymm_get(cpu, in->vvvv, &h);
	st = avx_read_w(cpu, in, s_bytes ? s_bytes : n, 0, &w);
	if (st != ST_OK)
		return st;
	for (unsigned i = 0; i < lanes_of(n); i++) {
		r.x[i] = h.x[i];
		sse_kernel(k, in, &r.x[i], &w.x[s_bytes ? 0 : i]);
	}
	ymm_put(cpu, in->reg, &r, n);
	return ST_OK;
}

/* VEX 0F/66 0F 54-57 VANDPS..VXORPD, 66 0F DB/DF/EB/EF VPAND/VPANDN/VPOR/VPXOR. */
status_t op_vlogic(struct cpu *cpu, const struct insn *in) { return kernel_lanes(cpu, in, SK_LOGIC, 0); }
/* VEX 66 0F: the compares, adds, subtracts, min/max, averages and multiplies of
 * emu/sse.c's lane_ops table. */
status_t op_vplane(struct cpu *cpu, const struct insn *in) { return kernel_lanes(cpu, in, SK_LANE, 0); }
/* VEX 66 0F F4 VPMULUDQ, F5 VPMADDWD, F6 VPSADBW. */
status_t op_vpwide(struct cpu *cpu, const struct insn *in) { return kernel_lanes(cpu, in, SK_WIDE, 0); }
/* VEX 66 0F 63/67/6B VPACKSSWB/VPACKUSWB/VPACKSSDW: per lane (SDM Vol.2
 * PACKSSWB "VEX.256": each 128-bit half packs its own halves of the sources). */
status_t op_vpack(struct cpu *cpu, const struct insn *in) { return kernel_lanes(cpu, in, SK_PACK, 0); }
/* VEX 66 0F 60-62, 68-6A, 6C, 6D VPUNPCKLxx/VPUNPCKHxx: per lane. */
status_t op_vpunpck(struct cpu *cpu, const struct insn *in) { return kernel_lanes(cpu, in, SK_UNPACK, 0); }
/* VEX 0F 14/15 VUNPCKLPS/VUNPCKHPS and 66 0F 14/15 VUNPCKLPD/VUNPCKHPD: per lane. */
status_t op_vunpck_ps(struct cpu *cpu, const struct insn *in) { return kernel_lanes(cpu, in, SK_UNPCK_PS, 0); }
status_t op_vunpck_pd(struct cpu *cpu, const struct insn *in) { return kernel_lanes(cpu, in, SK_UNPCK_PD, 0); }
/* VEX 0F C6 VSHUFPS, 66 0F C6 VSHUFPD (per lane, the same imm8 for VSHUFPS and
 * imm8[3:2] for VSHUFPD's upper lane, SDM Vol.2 SHUFPD), 66/F3/F2 0F 70
 * VPSHUFD/VPSHUFHW/VPSHUFLW (no vvvv; the same imm8 on each lane). */
status_t op_vshuf_ps(struct cpu *cpu, const struct insn *in) { return kernel_lanes(cpu, in, SK_SHUF_PS, 0); }
status_t op_vshuf_pd(struct cpu *cpu, const struct insn *in)
{
	if (in->opcode != 0xc6 || !(in->vex & VEX_L256))
		return kernel_lanes(cpu, in, SK_SHUF_PD, 0);
	/* VSHUFPD ymm: lane 1 selects with imm8[3:2]; run the lanes as two
	 * instructions whose imm8 is the lane's pair of bits. */
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	union ymm_reg h, w, r;
	ymm_get(cpu, in->vvvv, &h);
	st = avx_read_w(cpu, in, 32, 0, &w);
	if (st != ST_OK)
		return st;
	struct insn lane = *in;
	for (unsigned i = 0; i < 2; i++) {
		lane.imm = (in->imm >> (2 * i)) & 3;
		r.x[i] = h.x[i];
		sse_kernel(SK_SHUF_PD, &lane, &r.x[i], &w.x[i]);
	}
	ymm_put(cpu, in->reg, &r, 32);
	return ST_OK;
}
/* VEX 66 0F D1-D3, E1/E2, F1-F3: shifts by the low quadword of xmm3/m128. */
status_t op_vpshift(struct cpu *cpu, const struct insn *in) { return kernel_lanes(cpu, in, SK_SHIFT, 16); }

/* VEX 66 0F 71/72/73 /digit ib: VEX.vvvv := ModRM.rm shifted by imm8 (SDM Vol.2
 * VPSRLW "VEX.NDD": the destination is VEX.vvvv); VPSRLDQ/VPSLLDQ per lane. */
status_t op_vpshift_imm(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	unsigned n = avx_bytes(in);
	union ymm_reg r;
	ymm_get(cpu, in->rm, &r);
	for (unsigned i = 0; i < lanes_of(n); i++)
		sse_kernel(SK_SHIFT_IMM, in, &r.x[i], &r.x[i]);
	ymm_put(cpu, in->vvvv, &r, n);
	return ST_OK;
}

/* VEX.128 66 0F C5 VPEXTRW reg, xmm, imm8: word imm8[2:0], zero-extended. */
status_t op_vpextrw(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	uint16_t v = cpu->fpu.xmm[in->rm & 15].w[in->imm & 7];
	reg_write(cpu, in->reg, cpu_is_mode64(cpu) ? 8 : 4, in->rex != 0, v);
	return ST_OK;
}

/* VEX.128 66 0F C4 VPINSRW xmm1, xmm2, r32/m16, imm8: xmm2 with word imm8[2:0]
 * replaced. */
status_t op_vpinsrw(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	uint64_t g;
	st = rm_read(cpu, in, 2, &g);
	if (st != ST_OK)
		return st;
	union ymm_reg v = { .q = { 0, 0, 0, 0 } };
	v.x[0] = cpu->fpu.xmm[in->vvvv & 15];
	v.w[in->imm & 7] = (uint16_t)g;
	ymm_put(cpu, in->reg, &v, 16);
	return ST_OK;
}

/* ---- floating point ---- */

/* The W operand's bytes per form: packed the form's width, scalar the element. */
static unsigned fp_src_bytes(const struct insn *in, enum sse_fp_form form)
{
	return form == SFF_SS ? 4 : form == SFF_SD ? 8 : avx_bytes(in);
}

/* VEX 0F 51 VSQRT, 58 VADD, 59 VMUL, 5C VSUB, 5D VMIN, 5E VDIV, 5F VMAX, C2 VCMP
 * in the form VEX.pp selects: reg := op(vvvv, rm) per lane (scalar: the upper
 * elements from vvvv, bits 255:128 zeroed). The conditions of all lanes are
 * one instruction's (SDM Vol.1 11.5.3): committed once, and a stopped
 * instruction writes nothing. VCMP takes imm8[4:0] (SDM Vol.2 CMPPS: "VEX ...
 * 32 comparison predicates"). */
static status_t vfp(struct cpu *cpu, const struct insn *in, enum sse_fp_form form)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	bool scalar = form == SFF_SS || form == SFF_SD;
	unsigned n = scalar ? 16 : avx_bytes(in);
	union ymm_reg h, w, r;
	ymm_get(cpu, in->vvvv, &h);
	st = avx_read_w(cpu, in, fp_src_bytes(in, form), 0, &w);
	if (st != ST_OK)
		return st;
	uint32_t exc = 0;
	for (unsigned i = 0; i < lanes_of(n); i++) {
		r.x[i] = h.x[i];
		if (in->opcode == 0xc2)
			exc |= sse_fp_vcmp(cpu, (unsigned)in->imm & 31, form, &r.x[i], &w.x[i]);
		else
			exc |= sse_fp_arith(cpu, in->opcode, 0, form, &r.x[i], &w.x[i]);
	}
	st = sse_fp_commit(cpu, exc);
	if (st == ST_OK)
		ymm_put(cpu, in->reg, &r, n);
	return st;
}
status_t op_vfp_ps(struct cpu *cpu, const struct insn *in) { return vfp(cpu, in, SFF_PS); }
status_t op_vfp_pd(struct cpu *cpu, const struct insn *in) { return vfp(cpu, in, SFF_PD); }
status_t op_vfp_ss(struct cpu *cpu, const struct insn *in) { return vfp(cpu, in, SFF_SS); }
status_t op_vfp_sd(struct cpu *cpu, const struct insn *in) { return vfp(cpu, in, SFF_SD); }

/* VEX 0F 2E/2F VUCOMISS/VCOMISS, 66 0F 2E/2F VUCOMISD/VCOMISD (LIG, no vvvv):
 * EFLAGS as the legacy forms. */
static status_t vcomi(struct cpu *cpu, const struct insn *in, bool dbl)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	union ymm_reg w;
	st = avx_read_w(cpu, in, dbl ? 8 : 4, 0, &w);
	if (st != ST_OK)
		return st;
	return sse_fp_comi(cpu, dbl, in->opcode == 0x2f, &cpu->fpu.xmm[in->reg & 15], &w.x[0]);
}
status_t op_vcomi_ss(struct cpu *cpu, const struct insn *in) { return vcomi(cpu, in, false); }
status_t op_vcomi_sd(struct cpu *cpu, const struct insn *in) { return vcomi(cpu, in, true); }

/* ---- the SSE3..SSE4.2, AES and PCLMULQDQ forms ---- */

/* Their handlers (emu/sse3.c, ssse3.c, sse4.c, sse4_fp.c, sse_string.c,
 * crypto.c) read and write through simd_load/simd_store, which serve the VEX
 * forms too (emu/simd_operand.h): the VEX.128 rows name the legacy handler.
 * A VEX.256 form that the instruction page defines lane by lane runs it once
 * per 128-bit lane, the second time on a copy of the instruction marked
 * VEX_UPPER_LANE whose imm8 is shifted right by imm_shift (VBLENDPS: imm8[7:4]
 * selects the upper lane's elements). A fault on the second lane puts the
 * destination back, so the instruction changes no register. Not exact: the
 * floating-point ones (VADDSUB/VHADD/VHSUB, VROUND, VDPPS) commit MXCSR per
 * lane, so an unmasked exception in the upper lane leaves the lower lane's
 * flags recorded, where the SDM (Vol.1 11.5.3) records one instruction's
 * conditions; with the exceptions masked (the usual case) the flags are the
 * same either way. */
static status_t avx_lanes(struct cpu *cpu, const struct insn *in, insn_handler legacy, unsigned imm_shift)
{
	union ymm_reg saved;
	ymm_get(cpu, in->reg, &saved);
	status_t st = legacy(cpu, in);
	if (st != ST_OK)
		return st;
	struct insn upper = *in;
	upper.vex |= VEX_UPPER_LANE;
	upper.imm = in->imm >> imm_shift;
	st = legacy(cpu, &upper);
	if (st != ST_OK)
		ymm_put(cpu, in->reg, &saved, 32);
	return st;
}

/* VEX.256 66 0F38 00-0B, 1C-1E (VPSHUFB .. VPABSD) and 0F3A 0F VPALIGNR (AVX2):
 * per lane, the same imm8 (SDM Vol.2 PALIGNR "VEX.256 ... each 128-bit lane"). */
status_t op_vl_ssse3(struct cpu *cpu, const struct insn *in) { return avx_lanes(cpu, in, op_ssse3_xmm, 0); }
status_t op_vl_palignr(struct cpu *cpu, const struct insn *in) { return avx_lanes(cpu, in, op_palignr_xmm, 0); }
/* VEX.256 VADDSUBPS/PD, VHADDPS/PD, VHSUBPS/PD (AVX): per lane. */
status_t op_vl_sse3_fp(struct cpu *cpu, const struct insn *in) { return avx_lanes(cpu, in, op_sse3_fp, 0); }
/* VEX.256 VMOVSLDUP, VMOVSHDUP, VMOVDDUP (AVX): per lane (VMOVDDUP ymm
 * duplicates quadwords 0 and 2). */
status_t op_vl_sse3_move(struct cpu *cpu, const struct insn *in) { return avx_lanes(cpu, in, op_sse3_move, 0); }
/* VEX.256 66 0F38 28, 29, 2B, 37-40 (AVX2): per lane. */
status_t op_vl_sse4_lanes(struct cpu *cpu, const struct insn *in) { return avx_lanes(cpu, in, op_sse4_lanes, 0); }
/* VEX.256 VBLENDPS (imm8[7:4] for the upper lane), VBLENDPD (imm8[3:2]),
 * VPBLENDW (the same imm8, AVX2), VBLENDVPS/PD, VPBLENDVB (selector register). */
status_t op_vl_blend(struct cpu *cpu, const struct insn *in)
{
	unsigned shift = in->opcode == 0x0c ? 4 : in->opcode == 0x0d ? 2 : 0;
	return avx_lanes(cpu, in, op_blend, shift);
}
/* VEX.256 VMPSADBW (AVX2): the upper lane's offsets in imm8[5:3] (SDM Vol.2
 * MPSADBW "VEX.256"). */
status_t op_vl_mpsadbw(struct cpu *cpu, const struct insn *in) { return avx_lanes(cpu, in, op_mpsadbw, 3); }
/* VEX.256 VROUNDPS/PD, VDPPS (AVX): per lane, the same imm8. */
status_t op_vl_round(struct cpu *cpu, const struct insn *in) { return avx_lanes(cpu, in, op_round, 0); }
status_t op_vl_dp(struct cpu *cpu, const struct insn *in) { return avx_lanes(cpu, in, op_dp, 0); }
/* VEX.256 VMOVNTDQA (AVX2): 32-byte aligned (type 1), checked on the first lane. */
status_t op_vl_movntdqa(struct cpu *cpu, const struct insn *in) { return avx_lanes(cpu, in, op_movntdqa, 0); }
/* VEX.LIG 66 0F3A 0A/0B VROUNDSS/VROUNDSD: VEX.L is ignored, so the result is
 * a VEX.128 one (bits 255:128 zeroed) whatever VEX.L says. */
status_t op_vround_scalar(struct cpu *cpu, const struct insn *in)
{
	struct insn narrow = *in;
	narrow.vex &= (uint8_t)~VEX_L256;
	return op_round(cpu, &narrow);
}

/* ---- conversions ---- */

/* The conversion of 0F 5A/5B/E6 by VEX.pp (SDM Vol.2 Table A-3). */
static enum sse_fp_cvt vcvt_kind(const struct insn *in, bool has66)
{
	switch (in->opcode) {
	case 0x5a: return in->rep == REP_F3 ? SFC_SS2SD : in->rep == REP_F2 ? SFC_SD2SS : has66 ? SFC_PD2PS : SFC_PS2PD;
	case 0x5b: return in->rep == REP_F3 ? SFC_TPS2DQ : has66 ? SFC_PS2DQ : SFC_DQ2PS;
	default:   return in->rep == REP_F3 ? SFC_DQ2PD : in->rep == REP_F2 ? SFC_PD2DQ : SFC_TPD2DQ;
	}
}

/* How a conversion's elements sit in the two forms (SDM Vol.2 CVTPS2PD ..):
 * same width lane by lane (5B), widening (VCVTPS2PD/VCVTDQ2PD: ymm1, xmm2/m128,
 * source quadword i feeds destination lane i), narrowing (VCVTPD2PS/VCVTPD2DQ/
 * VCVTTPD2DQ: xmm1, ymm2/m256, lane i of the source gives destination quadword
 * i; the destination is 128 bits whatever VEX.L). */
enum vcvt_shape { VC_SAME, VC_WIDEN, VC_NARROW };

static status_t vcvt_packed(struct cpu *cpu, const struct insn *in, bool has66, enum vcvt_shape shape)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	unsigned n = avx_bytes(in);
	enum sse_fp_cvt k = vcvt_kind(in, has66);
	union ymm_reg w, r = { .q = { 0, 0, 0, 0 } };
	st = avx_read_w(cpu, in, shape == VC_WIDEN ? n / 2 : n, 0, &w);
	if (st != ST_OK)
		return st;
	uint32_t exc = 0;
	for (unsigned i = 0; i < lanes_of(n); i++) {
		union xmm_reg s = w.x[i], d = { .q = { 0, 0 } };
		if (shape == VC_WIDEN)
			s = (union xmm_reg){ .q = { w.q[i], 0 } };
		exc |= sse_fp_cvt(cpu, k, &d, &s);
		if (shape == VC_NARROW)
			r.q[i] = d.q[0];
		else
			r.x[i] = d;
	}
	st = sse_fp_commit(cpu, exc);
	if (st == ST_OK)
		ymm_put(cpu, in->reg, &r, shape == VC_NARROW ? 16 : n);
	return st;
}
/* VEX 0F 5B VCVTDQ2PS, F3 0F 5B VCVTTPS2DQ. */
status_t op_vcvt_same(struct cpu *cpu, const struct insn *in) { return vcvt_packed(cpu, in, false, VC_SAME); }
/* VEX 0F 5A VCVTPS2PD, F3 0F E6 VCVTDQ2PD. */
status_t op_vcvt_widen(struct cpu *cpu, const struct insn *in) { return vcvt_packed(cpu, in, false, VC_WIDEN); }
/* VEX 66 0F 5A VCVTPD2PS, F2 0F E6 VCVTPD2DQ, 66 0F E6 VCVTTPD2DQ. */
status_t op_vcvt_narrow(struct cpu *cpu, const struct insn *in) { return vcvt_packed(cpu, in, true, VC_NARROW); }
/* VEX 66 0F 5B VCVTPS2DQ: the 66 form of the same shape. */
status_t op_vcvt_same66(struct cpu *cpu, const struct insn *in) { return vcvt_packed(cpu, in, true, VC_SAME); }

/* VEX.LIG F3 0F 5A VCVTSS2SD, F2 0F 5A VCVTSD2SS xmm1, xmm2, xmm3/m32|m64: the
 * upper elements from xmm2. */
status_t op_vcvt_scalar(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	union ymm_reg w, r = { .q = { 0, 0, 0, 0 } };
	st = avx_read_w(cpu, in, in->rep == REP_F3 ? 4 : 8, 0, &w);
	if (st != ST_OK)
		return st;
	r.x[0] = cpu->fpu.xmm[in->vvvv & 15];
	st = sse_fp_commit(cpu, sse_fp_cvt(cpu, vcvt_kind(in, false), &r.x[0], &w.x[0]));
	if (st == ST_OK)
		ymm_put(cpu, in->reg, &r, 16);
	return st;
}

/* VEX.LIG F3/F2 0F 2A VCVTSI2SS/SD xmm1, xmm2, r/m32|64 (VEX.W1 in 64-bit mode:
 * 64-bit integer): the upper elements from xmm2. */
status_t op_vcvtsi2s(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	bool wide = in->rex & 8;
	uint64_t g;
	st = rm_read(cpu, in, wide ? 8 : 4, &g);
	if (st != ST_OK)
		return st;
	union ymm_reg r = { .q = { 0, 0, 0, 0 } };
	r.x[0] = cpu->fpu.xmm[in->vvvv & 15];
	st = sse_fp_commit(cpu, sse_fp_int2fp(cpu, in->rep == REP_F2, wide, &r.x[0], g));
	if (st == ST_OK)
		ymm_put(cpu, in->reg, &r, 16);
	return st;
}

/* VEX.LIG F3/F2 0F 2D VCVTSS2SI/VCVTSD2SI, 2C VCVTTSS2SI/VCVTTSD2SI r32|64,
 * xmm1/m32|m64. */
status_t op_vcvts2si(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	bool dbl = in->rep == REP_F2, wide = in->rex & 8;
	union ymm_reg w;
	st = avx_read_w(cpu, in, dbl ? 8 : 4, 0, &w);
	if (st != ST_OK)
		return st;
	uint64_t v;
	st = sse_fp_commit(cpu, sse_fp_fp2int(cpu, in->opcode == 0x2c, dbl, wide, &w.x[0], &v));
	if (st == ST_OK)
		greg_write(cpu, in, wide ? 8 : 4, v);
	return st;
}

/* VEX.256 66 0F38 20-25 VPMOVSX*, 30-35 VPMOVZX* ymm1, xmm2/m128|m64|m32 (AVX2):
 * the low elements of the source widened to fill 256 bits (not lane by lane). */
status_t op_vpmovx256(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	union ymm_reg w, r;
	st = avx_read_w(cpu, in, sse4_pmovx_src_bytes(in->opcode, 32), 0, &w);
	if (st != ST_OK)
		return st;
	sse4_pmovx(in->opcode, w.b, r.b, 32);
	ymm_put(cpu, in->reg, &r, 32);
	return ST_OK;
}
