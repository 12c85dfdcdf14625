/* Helpers shared by the x87 (emu/x87.c), SSE (emu/sse.c, emu/sse_fp.c) and XSAVE (emu/xsave.c)
 * instruction files: the device-not-available / invalid-opcode gates of SDM
 * Vol.3 2.5 Table 2-2, and block memory accesses larger than mem_read's 8
 * bytes that fault before changing anything. */
#ifndef HVEMU_EMU_FPU_H
#define HVEMU_EMU_FPU_H

#include "emu/cpu.h"
#include "emu/fpu_state.h"
#include "emu/insn.h"

/* x87 gate (SDM Vol.3 2.5 Table 2-2; SDM Vol.1 8.6): #NM if CR0.EM or CR0.TS.
 * Then, for waiting instructions, a pending unmasked x87 exception (FSW.ES) is
 * reported before the instruction: #MF with CR0.NE = 1. With CR0.NE = 0 the
 * PC-style FERR#/IGNNE# path would raise IRQ 13 through the interrupt controller;
 * hvemu models IGNNE# asserted (the error is ignored), SDM Vol.1 8.7 / D.2. */
status_t x87_gate(struct cpu *cpu, bool waiting) CHECKED;

/* SSE gate (SDM Vol.3 2.5 Table 2-2, SDM Vol.2 each SSE instruction "Protected
 * Mode Exceptions"): #UD if CR0.EM = 1, CR4.OSFXSR = 0, or the CPUID feature is
 * absent; #NM if CR0.TS = 1. need_osfxsr = false for the fences, CLFLUSH and
 * MOVNTI, which are not SIMD-state instructions. */
status_t sse_gate(struct cpu *cpu, bool need_osfxsr, unsigned cpuid_edx_bit) CHECKED;
/* The CPUID.01H:EDX bits sse_gate takes (SDM Vol.2 CPUID, Table 3-11). */
enum { CPUID_CLFSH = 19, CPUID_SSE = 25, CPUID_SSE2 = 26 };

/* Read / write n bytes at seg:off (off + i masked to the address size). The write
 * probes every piece first, so a fault leaves memory unchanged. align (a power
 * of two, or 0) is checked on the effective address: #GP(0) when misaligned. */
status_t fpu_mem_read(struct cpu *cpu, const struct insn *in, uint64_t off, void *buf,
		      unsigned n, unsigned align) CHECKED;
status_t fpu_mem_write(struct cpu *cpu, const struct insn *in, uint64_t off, const void *buf,
		       unsigned n, unsigned align) CHECKED;
/* The probe alone (for images written in several ranges), and a store of a range
 * already probed. */
status_t fpu_mem_probe(struct cpu *cpu, const struct insn *in, uint64_t off, unsigned n,
		       unsigned align) CHECKED;
status_t fpu_mem_store(struct cpu *cpu, const struct insn *in, uint64_t off, const void *buf,
		       unsigned n) CHECKED;

/* Record the x87 last-instruction pointers (SDM Vol.1 8.1.8, 8.1.9) for a
 * non-control instruction; data pointer only with a memory operand. */
void x87_note_insn(struct cpu *cpu, const struct insn *in);

#endif
