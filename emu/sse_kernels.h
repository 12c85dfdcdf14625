/* The SSE2 packed-integer kernels of emu/sse.c, shared with their MMX forms
 * (emu/mmx.c): the same opcodes operate on 64-bit MMX registers with the
 * element layout of the low half of an XMM register (SDM Vol.1 9.4), so a
 * kernel run on {mm, 0} gives the MMX result in its low quadword (packs and
 * high unpacks rearrange it, see emu/mmx.c). */
#ifndef HVEMU_EMU_SSE_KERNELS_H
#define HVEMU_EMU_SSE_KERNELS_H

#include "emu/fpu_state.h"
#include "emu/insn.h"

enum sse_kernel {
	SK_LOGIC,    /* DB/DF/EB/EF PAND, PANDN, POR, PXOR */
	SK_LANE,     /* element-wise compares, add/sub (saturating), min/max, avg, multiplies */
	SK_WIDE,     /* F4 PMULUDQ, F5 PMADDWD, F6 PSADBW */
	SK_PACK,     /* 63/67/6B PACKSSWB, PACKUSWB, PACKSSDW */
	SK_UNPACK,   /* 60-62, 68-6A (6C/6D) PUNPCKL/H */
	SK_SHIFT,    /* D1-D3, E1/E2, F1-F3 element shifts by the source's low quadword */
	/* The XMM-only kernels the VEX forms share (emu/avx_sse.c): */
	SK_UNPCK_PS, /* NP 14/15 UNPCKLPS, UNPCKHPS */
	SK_UNPCK_PD, /* 66 14/15 UNPCKLPD, UNPCKHPD */
	SK_SHUF_PS,  /* NP C6 SHUFPS (in->imm) */
	SK_SHUF_PD,  /* 66 C6 SHUFPD, 66/F3/F2 70 PSHUFD/PSHUFHW/PSHUFLW (in->rep) */
	SK_SHIFT_IMM,/* 71/72/73 /digit ib: d := d shifted by in->imm; s unused */
};

/* d := d op s for the 66 0F opcode in->opcode (the NP one for the _PS kernels). */
void sse_kernel(enum sse_kernel k, const struct insn *in, union xmm_reg *d, const union xmm_reg *s);

/* SSE4.1 PMOVSX/PMOVZX (66 0F38 20-25, 30-35; emu/sse4.c): out_bytes of
 * widened elements from the low source elements, and the source bytes they
 * take; the 256-bit VEX forms widen across lanes (SDM Vol.2 PMOVSX "VEX.256"). */
unsigned sse4_pmovx_src_bytes(unsigned opcode, unsigned out_bytes);
void sse4_pmovx(unsigned opcode, const uint8_t *src, uint8_t *dst, unsigned out_bytes);

#endif
