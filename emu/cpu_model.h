/* CPU models as data: vendor, signature, CPUID leaves, MSRs and the vendor's
 * choices where the manuals leave behaviour undefined. Selected with --cpu. */
#ifndef HVEMU_EMU_CPU_MODEL_H
#define HVEMU_EMU_CPU_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/cpu.h"

struct cpuid_leaf {
	uint32_t leaf, subleaf;
	bool indexed;              /* ECX selects a subleaf */
	uint32_t eax, ebx, ecx, edx;
};

/* Undefined-behaviour choices (each documented where it is applied). */
enum {
	QUIRK_AF_LOGIC_CLEAR = 1u << 0,    /* AND/OR/XOR/TEST leave AF = 0 */
	QUIRK_MUL_SZP_FROM_LOW = 1u << 1,  /* MUL/IMUL: SF/ZF/PF from the low result */
};

struct cpu_model {
	const char *name;
	const char *description;
	enum cpu_vendor vendor;
	uint32_t signature;        /* CPUID.1:EAX, also EDX after RESET */
	const struct cpuid_leaf *cpuid;
	unsigned cpuid_count;
	uint32_t quirks;           /* QUIRK_* */
};

extern const struct cpu_model *const cpu_models[];
extern const unsigned cpu_model_count;

/* NULL if no model has that name. */
const struct cpu_model *cpu_model_find(const char *name);
/* Look up a leaf the way CPUID does (SDM Vol.2 CPUID: leaves above the maximum
 * return the highest basic leaf's data on Intel; zeros on AMD). */
void cpu_model_cpuid(const struct cpu_model *m, uint32_t leaf, uint32_t subleaf,
		     uint32_t out[4]);
/* A CPUID feature bit: reg 0-3 = EAX/EBX/ECX/EDX of leaf (subleaf 0). */
bool cpu_model_has(const struct cpu_model *m, uint32_t leaf, unsigned reg, unsigned bit);

#endif
