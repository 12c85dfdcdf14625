/* CPU models as data: vendor, signature, CPUID leaves, MSRs and the vendor's
 * choices where the manuals leave behaviour undefined. Selected with --cpu.
 * The models are emu/cpu_models.c, the CPUID engine emu/cpuid.c, derived
 * models (--cpu MODEL,+FEATURE) emu/cpu_modifiers.c and the feature names
 * emu/features.def with emu/cpu_features.c. */
#ifndef HVEMU_EMU_CPU_MODEL_H
#define HVEMU_EMU_CPU_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "emu/amd_cfg_msrs.h"
#include "emu/cpu.h"
#include "emu/feature_bits.h"

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

/* The hardware-virtualization extension of the part a model imitates. Its
 * CPUID bits, MSRs and control bits are the model's data, but a CPU reports
 * and accepts them only while cpu->hv_available is set: machine set-up sets
 * it when it installs the hypervisor model (svm/, vmx/) that implements them.
 * Until then the CPU is what hvemu implements: a processor without VMX/SVM. */
enum hv_ext {
	HV_EXT_NONE,
	HV_EXT_VMX,   /* CPUID.1:ECX[5]; CR4.VMXE; IA32_FEATURE_CONTROL bits 2:1;
	               * the capability MSRs 480H-493H (SDM Vol.3 23.6, Appendix A) */
	HV_EXT_SVM,   /* CPUID.80000001H:ECX[2] and leaf 8000000AH; EFER.SVME;
	               * VM_CR, VM_HSAVE_PA (APM2 15.4, 15.30; APM3 E.4.9) */
};

/* A read-only MSR whose whole content is model data. */
struct model_msr {
	uint32_t index;
	uint64_t value;
};

/* An MSR with model-specific reset value and writable bits. Bits outside
 * `writable` that are 1 in `reset` are read-only (a write leaves them as
 * they are); the remaining bits are reserved (writing 1 to one is #GP(0)). */
struct model_msr_bits {
	uint64_t reset;
	uint64_t writable;
	uint64_t write_once;       /* writable bits that stay 1 until RESET ("R/WO") */
};

/* IA32_MISC_ENABLE bits with an effect elsewhere (SDM Vol.4 Table 2-2, 1A0H). */
#define MISC_ENABLE_MONITOR_FSM   (1ull << 18)  /* 0: CPUID.1:ECX.MONITOR reads 0 */
#define MISC_ENABLE_LIMIT_CPUID   (1ull << 22)  /* CPUID.0:EAX reports at most 2 */
#define MISC_ENABLE_XD_DISABLE    (1ull << 34)  /* CPUID.80000001H:EDX.NX reads 0 */

struct cpu_model {
	const char *name;
	const char *description;
	enum cpu_vendor vendor;
	uint32_t signature;        /* CPUID.1:EAX, also EDX after RESET */
	const struct cpuid_leaf *cpuid;
	unsigned cpuid_count;
	uint32_t quirks;           /* QUIRK_* */
	enum hv_ext hv_ext;        /* the part's VMX or SVM (see enum hv_ext) */
	/* HV_EXT_VMX: the capability MSRs the part has, with their values; an
	 * index not listed does not exist (RDMSR #GP(0), SDM Vol.3 A.1). */
	const struct model_msr *vmx_caps;
	unsigned vmx_cap_count;
	struct model_msr_bits misc_enable;  /* IA32_MISC_ENABLE (Intel family 6) */
	/* IA32_MCG_CAP (SDM Vol.3 15.3.1.1, APM2 9.3.1.1): the bank count and
	 * MCG_CTL_P of the part; read while CPUID.1:EDX.MCA = 1. */
	uint64_t mcg_cap;
	/* The revision of the microcode update the part runs: Intel's
	 * IA32_BIOS_SIGN_ID[63:32] (SDM Vol.3 10.11.7.1), AMD's PATCH_LEVEL. */
	uint32_t microcode_rev;
	/* AMD's configuration MSRs the part has (emu/amd_cfg_msrs.h); NULL:
	 * none (every Intel model). */
	const struct amd_cfg_set *amd_cfg;
};

extern const struct cpu_model *const cpu_models[];
extern const unsigned cpu_model_count;

/* NULL if no model has that name. */
const struct cpu_model *cpu_model_find(const char *name);

/* Look up a leaf the way CPUID does (SDM Vol.2 CPUID: leaves above the maximum
 * return the highest basic leaf's data on Intel; zeros on AMD). The model's
 * hypervisor extension is included only if hv (see enum hv_ext). */
void cpu_model_cpuid_hv(const struct cpu_model *m, bool hv, uint32_t leaf, uint32_t subleaf,
			uint32_t out[4]);
/* The same for a TSC of tsc_hz ticks per second (leaves 15H/16H; 0: the
 * default rate): what a CPU reports (cpu_cpuid). */
void cpu_model_cpuid_at(const struct cpu_model *m, bool hv, uint64_t tsc_hz, uint32_t leaf,
			uint32_t subleaf, uint32_t out[4]);
/* A CPUID feature bit: reg 0-3 = EAX/EBX/ECX/EDX of leaf (subleaf 0), with
 * the hypervisor extension only if hv. */
bool cpu_model_has_hv(const struct cpu_model *m, bool hv, uint32_t leaf, unsigned reg,
		      unsigned bit);

/* The same with no hypervisor model installed: what any CPU of the model
 * reports until one is. */
static inline void cpu_model_cpuid(const struct cpu_model *m, uint32_t leaf, uint32_t subleaf,
				   uint32_t out[4])
{
	cpu_model_cpuid_hv(m, false, leaf, subleaf, out);
}
static inline bool cpu_model_has(const struct cpu_model *m, uint32_t leaf, unsigned reg,
				 unsigned bit)
{
	return cpu_model_has_hv(m, false, leaf, reg, bit);
}

/* The vendor of the CPU's model (false for a bare CPU without one). */
static inline bool cpu_is_intel(const struct cpu *cpu)
{
	return cpu->model && cpu->model->vendor == VENDOR_INTEL;
}
static inline bool cpu_is_amd(const struct cpu *cpu)
{
	return cpu->model && cpu->model->vendor == VENDOR_AMD;
}

/* What this CPU reports: its model, with the hypervisor extension while
 * cpu->hv_available, and what is its own: the TSC frequency (leaves 15H/16H),
 * the initial APIC ID (leaf 1 EBX[31:24], leaf 0BH), the APIC bits only with a
 * local APIC attached. Every check of a VMX/SVM feature goes through these. */
void cpu_cpuid(const struct cpu *cpu, uint32_t leaf, uint32_t subleaf, uint32_t out[4]);
static inline bool cpu_has(const struct cpu *cpu, uint32_t leaf, unsigned reg, unsigned bit)
{
	/* SDM Vol.4 Table 2-2, 1A0H: XD Bit Disable hides NX (and with it
	 * EFER.NXE); MONITOR FSM = 0 hides MONITOR. */
	if (leaf == 0x80000001 && reg == CPUID_EDX && bit == FEATURE_BIT_nx &&
	    (cpu->misc_enable & MISC_ENABLE_XD_DISABLE))
		return false;
	if (leaf == 1 && reg == CPUID_ECX && bit == FEATURE_BIT_monitor && cpu->model &&
	    cpu->model->misc_enable.writable && !(cpu->misc_enable & MISC_ENABLE_MONITOR_FSM))
		return false;
	return cpu_model_has_hv(cpu->model, cpu->hv_available, leaf, reg, bit);
}

/* The model's value of VMX capability MSR index, if the part has that MSR
 * (whether the CPU reports VMX at all is the caller's question). */
bool cpu_model_vmx_cap(const struct cpu_model *m, uint32_t index, uint64_t *value);

/* `--cpu help`: the model's name and description, then its features decoded
 * from its CPUID data (Linux /proc/cpuinfo names), its address widths and its
 * hypervisor extension, marked "off" unless hv. */
void cpu_model_describe(const struct cpu_model *m, bool hv, FILE *out);

/* The highest x86-64 micro-architecture level (1-4, System V psABI) whose
 * CPUID features the model reports all of; 0: not even the baseline (a
 * 32-bit model). `--cpu help` prints it. */
unsigned cpu_model_x86_64_level(const struct cpu_model *m);

/* A CPUID feature bit by name: emu/features.def's, or an SVM one of leaf
 * 8000000AH EDX (the names `--cpu help` prints). */
struct cpu_feature {
	uint32_t leaf;
	uint8_t reg, bit;          /* reg 0-3 = EAX/EBX/ECX/EDX */
	const char *name;
};
bool cpu_feature_lookup(const char *name, struct cpu_feature *out);

/* `--cpu MODEL[,+FEATURE|,-FEATURE|,phys-bits=N]...`: the named model, or a
 * copy of it with those CPUID bits changed and the data that depends on them
 * (the hypervisor extension, the VMX capability MSRs' CR4 bits, the physical
 * address width) made to agree (emu/cpu_modifiers.c). NULL with a one-line
 * reason in err for an unknown name or a combination the model cannot have. */
const struct cpu_model *cpu_model_parse(const char *spec, char *err, size_t errlen);
/* Frees a model cpu_model_parse() derived (the built-in ones are left alone). */
void cpu_model_release(const struct cpu_model *m);

#endif
