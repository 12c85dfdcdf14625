/* CPUID feature bits by their emu/features.def names, for data and code that
 * names a bit where it sits: FEATURE(nx) is CPUID.80000001H:EDX[20] as a mask,
 * FEATURE_BIT_nx its bit number. The leaf and register are the row's; a model
 * puts the mask in that leaf's register (emu/cpu_models.c), which `--cpu help`
 * would show if it did not: a bit in the wrong place prints under another name
 * or as "leaf.reg[bit]". */
#ifndef HVEMU_EMU_FEATURE_BITS_H
#define HVEMU_EMU_FEATURE_BITS_H

/* The register of a row: reg 0-3 of cpu_has() and struct cpu_feature. */
enum cpuid_reg { CPUID_EAX, CPUID_EBX, CPUID_ECX, CPUID_EDX };

enum feature_bit {
#define X(name, leaf, reg, bit) FEATURE_BIT_##name = (bit),
#include "emu/features.def"
#undef X
};

#define FEATURE(name) (1u << FEATURE_BIT_##name)

/* APM3 E.4.2: on AMD, CPUID.80000001H:EDX repeats leaf 1 EDX bits 0-9, 12-17,
 * 23 and 24 (bit 11 there is SYSCALL, not SEP). */
#define AMD_EDX81_ALIASES 0x0183f3ffu

#endif
