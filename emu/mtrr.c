/* The MTRRs' MSRs; see emu/mtrr.h. */
#include "emu/mtrr.h"

#include "emu/cpu.h"
#include "emu/cpu_model.h"

bool mtrr_exists(const struct cpu *cpu)
{
	return cpu_has(cpu, 1, CPUID_EDX, FEATURE_BIT_mtrr);   /* SDM Vol.3 12.11.1 */
}

/* SDM Vol.3 Table 12-8: the memory types software may program; 2, 3 and 7-FFH
 * are reserved, and "Attempting to write an undefined memory type encoding
 * into an MTRR generates a general-protection exception (#GP)" (12.11.1). */
static bool valid_type(uint64_t t)
{
	return t == 0 || t == 1 || t == 4 || t == 5 || t == 6;   /* UC WC WT WP WB */
}

/* The slot of a fixed-range MTRR, or -1. */
static int fixed_slot(uint32_t index)
{
	if (index == MSR_MTRR_FIX64K_00000)
		return 0;
	if (index == MSR_MTRR_FIX16K_80000 || index == MSR_MTRR_FIX16K_A0000)
		return 1 + (int)(index - MSR_MTRR_FIX16K_80000);
	if (index >= MSR_MTRR_FIX4K_C0000 && index < MSR_MTRR_FIX4K_C0000 + 8)
		return 3 + (int)(index - MSR_MTRR_FIX4K_C0000);
	return -1;
}

/* Bits MAXPHYADDR-1:12 of a PHYSBASE/PHYSMASK address field (Figure 12-7). */
static uint64_t phys_field(const struct cpu *cpu)
{
	return ((1ull << cpu->maxphyaddr) - 1) & ~0xfffull;
}

uint64_t mtrr_read(struct cpu *cpu)
{
	uint32_t index = (uint32_t)cpu->regs[R_CX];
	int slot = fixed_slot(index);
	if (index == MSR_MTRRCAP)                /* 12.11.1: VCNT, FIX, WC; no SMRR */
		return MTRR_VCNT | MTRRCAP_FIX | MTRRCAP_WC;
	if (index == MSR_MTRR_DEF_TYPE)
		return cpu->mtrr.def_type;
	if (slot >= 0)
		return cpu->mtrr.fixed[slot];
	return cpu->mtrr.var[index - MSR_MTRR_PHYSBASE0];
}

bool mtrr_write(struct cpu *cpu, uint64_t v)
{
	uint32_t index = (uint32_t)cpu->regs[R_CX];
	int slot = fixed_slot(index);
	if (index == MSR_MTRRCAP)                /* read-only */
		return false;
	if (index == MSR_MTRR_DEF_TYPE) {
		/* Figure 12-6: type 7:0, FE 10, E 11; the rest reserved. */
		if ((v & ~(0xffull | MTRR_DEF_FE | MTRR_DEF_E)) || !valid_type(v & 0xff))
			return false;
		cpu->mtrr.def_type = v;
		return true;
	}
	if (slot >= 0) {
		/* 12.11.2.2: eight 8-bit type fields, one per sub-range. */
		for (unsigned b = 0; b < 8; b++)
			if (!valid_type((v >> (8 * b)) & 0xff))
				return false;
		cpu->mtrr.fixed[slot] = v;
		return true;
	}
	unsigned n = index - MSR_MTRR_PHYSBASE0;
	/* Figure 12-7: PHYSBASE type 7:0 and the base; PHYSMASK V (11) and the
	 * mask; bits 11:8 / 10:0 and those above MAXPHYADDR reserved. */
	if (n % 2 == 0) {
		if ((v & ~(phys_field(cpu) | 0xff)) || !valid_type(v & 0xff))
			return false;
	} else if (v & ~(phys_field(cpu) | MTRR_PHYSMASK_V)) {
		return false;
	}
	cpu->mtrr.var[n] = v;
	return true;
}
