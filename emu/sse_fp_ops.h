/* The SSE floating-point core of emu/sse_fp.c for the instructions of later
 * extensions that are compositions of its operations (SSE3 ADDSUB/HADD/HSUB,
 * emu/sse3.c; SSE4.1 DPPS/DPPD, emu/sse4_fp.c; the MMX-operand conversions,
 * emu/mmx.c): element results, DAZ/FTZ and
 * flags exactly as ADDPS/SUBPS/MULPS give them. */
#ifndef HVEMU_EMU_SSE_FP_OPS_H
#define HVEMU_EMU_SSE_FP_OPS_H

#include "emu/cpu.h"
#include "emu/fpu_state.h"

enum sse_fp_op { SFP_ADD, SFP_SUB, SFP_MUL };

/* a := a op b as ADDPS/SUBPS/MULPS (dbl: the PD forms) under the guest's MXCSR;
 * returns the exception flags raised (not yet recorded). Lanes holding +0.0 in
 * both operands raise nothing. */
uint32_t sse_fp_packed(struct cpu *cpu, enum sse_fp_op op, bool dbl, union xmm_reg *a, const union xmm_reg *b);

/* The packed conversions between dwords and singles/doubles the MMX-operand
 * conversions (CVTPI2PS .. CVTTPD2PI, emu/mmx.c) are made of: d := the
 * conversion of s (CVTDQ2PS, CVTPS2DQ, CVTTPS2DQ, CVTDQ2PD, CVTPD2DQ,
 * CVTTPD2DQ) under the guest's MXCSR; returns the flags. None underflows. */
enum sse_fp_cvt { SFC_DQ2PS, SFC_PS2DQ, SFC_TPS2DQ, SFC_DQ2PD, SFC_PD2DQ, SFC_TPD2DQ };
uint32_t sse_fp_convert(struct cpu *cpu, enum sse_fp_cvt k, union xmm_reg *d, const union xmm_reg *s);

/* Record exc in MXCSR as one instruction (SDM Vol.1 11.5.3); an unmasked one is
 * #XM (#UD without CR4.OSXMMEXCPT) and the destination must stay unchanged:
 * store only on ST_OK. */
status_t sse_fp_commit(struct cpu *cpu, uint32_t exc) CHECKED;

#endif
