/* What emu/fma.c and emu/f16c.c share: they compute with the host's own FMA
 * and F16C units, as emu/sse_fp.c does with its SSE unit (the host is the
 * oracle: results, NaN propagation, DAZ/FTZ and the masked flags are the
 * hardware's), under a host MXCSR made from the guest's. */
#ifndef HVEMU_EMU_AVX_HOST_H
#define HVEMU_EMU_AVX_HOST_H

#include <cpuid.h>
#include <stdbool.h>

#include "emu/cpu.h"
#include "emu/fpu_state.h"

#if !defined(__x86_64__)
#error "emu/fma.c and emu/f16c.c compute with the host's FMA and F16C units: x86-64 hosts only"
#endif

/* The host MXCSR for a guest MXCSR, as emu/sse_fp.c makes it: RC, DAZ and
 * FTZ, every exception masked, flags clear; FTZ off when the guest unmasks
 * underflow (SDM Vol.1 10.2.3.3: FTZ acts on masked underflow only), so the
 * host returns the unflushed result the tininess check needs. */
static inline uint32_t avx_host_csr(uint32_t mxcsr)
{
	uint32_t csr = (mxcsr & (MXCSR_RC | MXCSR_DAZ | MXCSR_FTZ)) | MXCSR_MASKS;
	if (!(mxcsr & MXCSR_UM))
		csr &= ~(uint32_t)MXCSR_FTZ;
	return csr;
}

/* Whether the host can run VEX instructions with CPUID.01H:ECX bit (FMA 12,
 * F16C 29): the bit, AVX (28) and OSXSAVE (27) with XCR0[2:1] = 11b (SDM
 * Vol.1 14.3). A host without them cannot be the oracle: the guest gets #UD
 * (hvemu says so once on stderr). */
static inline bool avx_host_has(unsigned ecx_bit)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !((c >> ecx_bit) & 1) || !((c >> 28) & 1) || !((c >> 27) & 1))
		return false;
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (lo & 6) == 6;
}

#endif
