/* RDMSR, WRMSR and CPUID for the MSR guests (boot_msrs, amd_cfg_msrs): each
 * MSR access runs under trap_catch() and returns the vector it raised, or
 * NO_FAULT; a read leaves EDX:EAX in msr_hi:msr_lo. Header-only: each guest
 * is one program. */
#ifndef GUEST_LIB_MSR_CATCH_H
#define GUEST_LIB_MSR_CATCH_H

#include "lib/guest.h"

static uint32_t msr_lo, msr_hi;
static uint32_t wr_lo, wr_hi;

static void rdmsr_fn(void *p)
{
	__asm__ volatile(MARK "rdmsr" : "=a"(msr_lo), "=d"(msr_hi) : "c"((uint32_t)(uintptr_t)p));
}

static void wrmsr_fn(void *p)
{
	__asm__ volatile(MARK "wrmsr" :: "c"((uint32_t)(uintptr_t)p), "a"(wr_lo), "d"(wr_hi));
}

static inline int rd(uint32_t msr)
{
	return trap_catch(rdmsr_fn, (void *)(uintptr_t)msr);
}

static inline int wr(uint32_t msr, uint32_t hi, uint32_t lo)
{
	wr_lo = lo;
	wr_hi = hi;
	return trap_catch(wrmsr_fn, (void *)(uintptr_t)msr);
}

static inline void cpuid(uint32_t leaf, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(0));
}

#endif
