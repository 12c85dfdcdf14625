/* The MMX registers and the x87/MMX state transition (emu/mmx.c), for the MMX
 * forms of later instruction sets (SSSE3 on mm, emu/ssse3.c). */
#ifndef HVEMU_EMU_MMX_H
#define HVEMU_EMU_MMX_H

#include "emu/cpu.h"
#include "emu/insn.h"

/* #UD if CR0.EM, #NM if CR0.TS, #MF if an unmasked x87 exception is pending
 * (SDM Vol.3 2.5 Table 2-2; SDM Vol.1 9.5.2). The CPUID feature is the row's. */
status_t mmx_gate(struct cpu *cpu) CHECKED;
/* After an MMX instruction (not EMMS) completes: TOP = 0, all tags valid. */
void mmx_enter(struct cpu *cpu);
/* MMn (n & 7: REX.R/B do not extend MMX register numbers). */
uint64_t mm_read(const struct cpu *cpu, unsigned n);
void mm_write(struct cpu *cpu, unsigned n, uint64_t v);
/* The Q operand: MMrm, or `bytes` (4 or 8) bytes of memory, zero-extended. */
status_t mmx_read_q(struct cpu *cpu, const struct insn *in, unsigned bytes, uint64_t *v) CHECKED;

#endif
