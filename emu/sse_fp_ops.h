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
enum sse_fp_cvt { SFC_DQ2PS, SFC_PS2DQ, SFC_TPS2DQ, SFC_DQ2PD, SFC_PD2DQ, SFC_TPD2DQ,
		  SFC_PS2PD, SFC_PD2PS, SFC_SS2SD, SFC_SD2SS };
uint32_t sse_fp_convert(struct cpu *cpu, enum sse_fp_cvt k, union xmm_reg *d, const union xmm_reg *s);
/* The same with the legacy instruction's whole flag rules (CVTPD2PS and
 * CVTSD2SS underflow and overflow, counted as CVT* counts them), for the VEX
 * forms (emu/avx_sse.c): d keeps the elements the conversion does not write. */
uint32_t sse_fp_cvt(struct cpu *cpu, enum sse_fp_cvt k, union xmm_reg *d, const union xmm_reg *s);
/* CVTSI2SS/SD into d's low element (wide: a 64-bit integer), and CVT(T)SS2SI/
 * CVT(T)SD2SI of s's low element into *res (wide: 64 bits), under MXCSR; the
 * flags, not yet committed. */
uint32_t sse_fp_int2fp(struct cpu *cpu, bool dbl, bool wide, union xmm_reg *d, uint64_t v);
uint32_t sse_fp_fp2int(struct cpu *cpu, bool truncate, bool dbl, bool wide, const union xmm_reg *s, uint64_t *res);

/* The element forms (the mandatory prefix: NP, 66, F3, F2). */
enum sse_fp_form { SFF_PS, SFF_PD, SFF_SS, SFF_SD };

/* d := d op s for 0F 51 SQRT, 58 ADD, 59 MUL, 5C SUB, 5D MIN, 5E DIV, 5F MAX and
 * C2 CMPcc with predicate pred (0-7) in the form, exactly as the legacy
 * instruction computes on (d, s): scalar forms keep d's upper elements. Returns
 * the flags (not yet recorded: sse_fp_commit). The VEX forms (emu/avx_sse.c)
 * run it on (VEX.vvvv, ModRM.rm) and on each 128-bit lane. */
uint32_t sse_fp_arith(struct cpu *cpu, unsigned opcode, unsigned pred, enum sse_fp_form form,
		      union xmm_reg *d, const union xmm_reg *s);
/* VCMPcc with the VEX encoding's five-bit predicate (SDM Vol.2 CMPPS: imm8[4:0]). */
uint32_t sse_fp_vcmp(struct cpu *cpu, unsigned pred, enum sse_fp_form form, union xmm_reg *d,
		     const union xmm_reg *s);
/* (U)COMISS/SD: EFLAGS from d's and s's low elements, the flags committed. */
status_t sse_fp_comi(struct cpu *cpu, bool dbl, bool signalling, const union xmm_reg *d,
		     const union xmm_reg *s) CHECKED;

/* Record exc in MXCSR as one instruction (SDM Vol.1 11.5.3); an unmasked one is
 * #XM (#UD without CR4.OSXMMEXCPT) and the destination must stay unchanged:
 * store only on ST_OK. */
status_t sse_fp_commit(struct cpu *cpu, uint32_t exc) CHECKED;

#endif
