/* A CPU model's features by name (`hvemu --cpu help`): decoded from the
 * model's CPUID leaves and capability data, never written by hand, so the
 * list cannot disagree with what the guest sees. Names follow Linux's
 * /proc/cpuinfo (the "flags" and "vmx flags" lines), which hypervisor
 * developers already read. */
#include <inttypes.h>
#include <string.h>

#include "emu/cpu_model.h"
#include "emu/feature_bits.h"
#include "mmu/x86_vmx.h"

enum { EAX, EBX, ECX, EDX };

/* The feature words that are bit sets (SDM Vol.2 CPUID Tables 3-8, 3-10,
 * 3-11; APM3 E.3.2, E.3.6, E.4.2). */
static const struct feature_word {
	uint32_t leaf;
	uint8_t reg;
	const char *name;          /* for a bit without a name below */
} feature_words[] = {
	{ 1, EDX, "1.edx" }, { 1, ECX, "1.ecx" },
	{ 7, EBX, "7.ebx" }, { 7, ECX, "7.ecx" }, { 7, EDX, "7.edx" },
	{ 0x80000001, EDX, "80000001.edx" }, { 0x80000001, ECX, "80000001.ecx" },
};

/* Every bit a model may set, in /proc/cpuinfo's order (emu/features.def). */
static const struct feature_name {
	uint32_t leaf;
	uint8_t reg, bit;
	const char *name;
} feature_names[] = {
#define X(name, leaf, reg, bit) { leaf, reg, bit, #name },
#include "emu/features.def"
#undef X
};

/* VMX capabilities by name: a bit of a capability MSR, for a control its
 * allowed-1 setting (bit 32 + n; SDM Vol.3 Appendix A). */
#define ALLOWED1(ctl) ((uint64_t)VMX_CTL(ctl) << 32)
static const struct vmx_feature_name {
	uint32_t msr;
	uint64_t mask;
	const char *name;
} vmx_feature_names[] = {
	{ MSR_VMX_PINBASED_CTLS, ALLOWED1(VMX_PIN_VIRTUAL_NMIS), "vnmi" },
	{ MSR_VMX_PINBASED_CTLS, ALLOWED1(VMX_PIN_PREEMPTION_TIMER), "preemption_timer" },
	{ MSR_VMX_PINBASED_CTLS, ALLOWED1(VMX_PIN_POSTED_INTERRUPTS), "posted_intr" },
	{ MSR_VMX_PROCBASED_CTLS, ALLOWED1(VMX_PROC_TSC_OFFSETTING), "tsc_offset" },
	{ MSR_VMX_PROCBASED_CTLS, ALLOWED1(VMX_PROC_TPR_SHADOW), "vtpr" },
	{ MSR_VMX_PROCBASED_CTLS, ALLOWED1(VMX_PROC_MONITOR_TRAP_FLAG), "mtf" },
	{ MSR_VMX_PROCBASED_CTLS2, ALLOWED1(VMX_PROC2_EPT), "ept" },
	{ MSR_VMX_PROCBASED_CTLS2, ALLOWED1(VMX_PROC2_VPID), "vpid" },
	{ MSR_VMX_PROCBASED_CTLS2, ALLOWED1(VMX_PROC2_UNRESTRICTED_GUEST), "unrestricted_guest" },
	{ MSR_VMX_PROCBASED_CTLS2, ALLOWED1(VMX_PROC2_PAUSE_LOOP_EXITING), "ple" },
	{ MSR_VMX_PROCBASED_CTLS2, ALLOWED1(VMX_PROC2_VM_FUNCTIONS), "vmfunc" },
	{ MSR_VMX_PROCBASED_CTLS2, ALLOWED1(VMX_PROC2_VIRTUALIZE_APIC), "vapic" },
	{ MSR_VMX_PROCBASED_CTLS2, ALLOWED1(VMX_PROC2_APIC_REGISTER_VIRT), "apic_reg_virt" },
	{ MSR_VMX_PROCBASED_CTLS2, ALLOWED1(VMX_PROC2_VIRTUALIZE_X2APIC), "x2apic_virt" },
	{ MSR_VMX_PROCBASED_CTLS2, ALLOWED1(VMX_PROC2_VIRTUAL_INTR_DELIVERY), "vid" },
	{ MSR_VMX_PROCBASED_CTLS2, ALLOWED1(VMX_PROC2_VMCS_SHADOWING), "shadow_vmcs" },
	{ MSR_VMX_PROCBASED_CTLS2, ALLOWED1(VMX_PROC2_PML), "pml" },
	{ MSR_VMX_EPT_VPID_CAP, EPT_CAP_EXEC_ONLY, "ept_x_only" },
	{ MSR_VMX_EPT_VPID_CAP, EPT_CAP_WALK5, "ept_5level" },
	{ MSR_VMX_EPT_VPID_CAP, EPT_CAP_1G, "ept_1gb" },
	{ MSR_VMX_EPT_VPID_CAP, EPT_CAP_AD, "ept_ad" },
	{ MSR_VMX_EPT_VPID_CAP, VPID_CAP_INVVPID, "invvpid" },
	{ MSR_VMX_BASIC, VMX_BASIC_TRUE_CTLS, "true_ctls" },
	{ MSR_VMX_MISC, VMX_MISC_ACTIVITY_SHUTDOWN, "shutdown_state" },
	{ MSR_VMX_MISC, VMX_MISC_ACTIVITY_WAIT_SIPI, "wait_sipi_state" },
};

/* Words are printed after a 16-column indent and wrapped before column 100. */
#define INDENT 16
#define WIDTH 100

struct line {
	FILE *out;
	unsigned col;
	bool fresh;                /* nothing printed after the indent yet */
};

static void put_word(struct line *l, const char *w)
{
	size_t n = strlen(w);
	if (!l->fresh && l->col + 1 + n > WIDTH) {
		l->col = (unsigned)fprintf(l->out, "\n%*s", INDENT + 2, "") - 1;
		l->fresh = true;
	}
	if (!l->fresh)
		l->col += (unsigned)fprintf(l->out, " ");
	l->col += (unsigned)fprintf(l->out, "%s", w);
	l->fresh = false;
}

/* A new line: the indent, then label (words follow it after a space). */
static void start_line(struct line *l, const char *label)
{
	l->col = (unsigned)fprintf(l->out, "%*s%s", INDENT, "", label);
	l->fresh = !*label;
}

/* The name of leaf.reg[bit], or NULL. */
static const char *feature_name(uint32_t leaf, unsigned reg, unsigned bit)
{
	for (size_t i = 0; i < sizeof(feature_names) / sizeof(feature_names[0]); i++)
		if (feature_names[i].leaf == leaf && feature_names[i].reg == reg &&
		    feature_names[i].bit == bit)
			return feature_names[i].name;
	return NULL;
}

/* Is leaf.reg[bit] printed among the features? The hypervisor extension
 * (VMX, SVM and leaf 8000000AH) has its own line, and AMD's 80000001H:EDX
 * copies of leaf-1 bits (APM3 E.4.2) are the same features. */
static bool listed(const struct cpu_model *m, uint32_t leaf, unsigned reg, unsigned bit)
{
	if ((leaf == 1 && reg == ECX && bit == FEATURE_BIT_vmx) ||
	    (leaf == 0x80000001 && reg == ECX && bit == FEATURE_BIT_svm) || leaf == 0x8000000a)
		return false;
	if (m->vendor == VENDOR_AMD && leaf == 0x80000001 && reg == EDX &&
	    ((AMD_EDX81_ALIASES >> bit) & 1))
		return false;
	return true;
}

/* The feature names, then any set bit without a name as "leaf.reg[bit]". */
static void describe_flags(const struct cpu_model *m, struct line *l)
{
	char unnamed[32];

	for (size_t i = 0; i < sizeof(feature_names) / sizeof(feature_names[0]); i++) {
		const struct feature_name *f = &feature_names[i];
		if (listed(m, f->leaf, f->reg, f->bit) && cpu_model_has(m, f->leaf, f->reg, f->bit))
			put_word(l, f->name);
	}
	for (size_t w = 0; w < sizeof(feature_words) / sizeof(feature_words[0]); w++)
		for (unsigned bit = 0; bit < 32; bit++) {
			const struct feature_word *fw = &feature_words[w];
			if (!listed(m, fw->leaf, fw->reg, bit) || feature_name(fw->leaf, fw->reg, bit) ||
			    !cpu_model_has(m, fw->leaf, fw->reg, bit))
				continue;
			snprintf(unnamed, sizeof(unnamed), "%s[%u]", fw->name, bit);
			put_word(l, unnamed);
		}
}

/* SDM Vol.3 4.1.4 / CPUID 80000008H: the address widths the model reports. */
static void describe_addresses(const struct cpu_model *m, FILE *out)
{
	uint32_t r[4];
	unsigned phys = cpu_model_has(m, 1, EDX, 6) || cpu_model_has(m, 1, EDX, 17) ? 36 : 32;
	unsigned lin = 32;

	cpu_model_cpuid(m, 0x80000000, 0, r);
	if (r[0] >= 0x80000008 && r[0] <= 0x8000ffff) {
		cpu_model_cpuid(m, 0x80000008, 0, r);
		phys = r[0] & 0xff;
		lin = (r[0] >> 8) & 0xff;
	}
	fprintf(out, "%*saddresses: %u-bit physical, %u-bit linear\n", INDENT, "", phys, lin);
}

/* The hypervisor extension's line: its capabilities, marked off unless hv. */
static void describe_hv(const struct cpu_model *m, bool hv, struct line *l)
{
	const char *off = hv ? ":" : "(off: not implemented):";
	char label[48];

	if (m->hv_ext == HV_EXT_VMX) {
		snprintf(label, sizeof(label), "vmx%s", off);
		start_line(l, label);
		for (size_t i = 0; i < sizeof(vmx_feature_names) / sizeof(vmx_feature_names[0]); i++) {
			uint64_t v;
			if (cpu_model_vmx_cap(m, vmx_feature_names[i].msr, &v) &&
			    (v & vmx_feature_names[i].mask))
				put_word(l, vmx_feature_names[i].name);
		}
	} else {
		uint32_t r[4];
		cpu_model_cpuid_hv(m, true, 0x8000000a, 0, r);
		snprintf(label, sizeof(label), "svm%s", off);
		start_line(l, label);
		char asids[24];
		snprintf(asids, sizeof(asids), "asids=%" PRIu32, r[1]);
		put_word(l, asids);
		for (unsigned bit = 0; bit < 32; bit++)
			if ((r[3] >> bit) & 1) {
				char unnamed[24];
				snprintf(unnamed, sizeof(unnamed), "8000000a.edx[%u]", bit);
				const char *name = feature_name(0x8000000a, EDX, bit);
				put_word(l, name ? name : unnamed);
			}
	}
	fprintf(l->out, "\n");
}

/* The x86-64 micro-architecture levels (System V x86-64 psABI, "Micro-
 * architecture levels"): the CPUID bits each level adds to the one below. */
static const struct level_bit {
	uint8_t level;
	uint32_t leaf;
	uint8_t reg, bit;
} level_bits[] = {
	/* v1: CMOV, CX8, FPU, FXSR, MMX, SYSCALL (and LM), SSE, SSE2 */
	{ 1, 1, EDX, 15 }, { 1, 1, EDX, 8 }, { 1, 1, EDX, 0 }, { 1, 1, EDX, 24 }, { 1, 1, EDX, 23 },
	{ 1, 0x80000001, EDX, 11 }, { 1, 0x80000001, EDX, 29 }, { 1, 1, EDX, 25 }, { 1, 1, EDX, 26 },
	/* v2: CMPXCHG16B, LAHF-SAHF, POPCNT, SSE3, SSE4.1, SSE4.2, SSSE3 */
	{ 2, 1, ECX, 13 }, { 2, 0x80000001, ECX, 0 }, { 2, 1, ECX, 23 }, { 2, 1, ECX, 0 },
	{ 2, 1, ECX, 19 }, { 2, 1, ECX, 20 }, { 2, 1, ECX, 9 },
	/* v3: AVX, AVX2, BMI1, BMI2, F16C, FMA, LZCNT, MOVBE, XSAVE */
	{ 3, 1, ECX, 28 }, { 3, 7, EBX, 5 }, { 3, 7, EBX, 3 }, { 3, 7, EBX, 8 }, { 3, 1, ECX, 29 },
	{ 3, 1, ECX, 12 }, { 3, 0x80000001, ECX, 5 }, { 3, 1, ECX, 22 }, { 3, 1, ECX, 26 },
	/* v4: AVX512F, AVX512BW, AVX512CD, AVX512DQ, AVX512VL */
	{ 4, 7, EBX, 16 }, { 4, 7, EBX, 30 }, { 4, 7, EBX, 28 }, { 4, 7, EBX, 17 }, { 4, 7, EBX, 31 },
};

unsigned cpu_model_x86_64_level(const struct cpu_model *m)
{
	unsigned level = 4;
	for (size_t i = 0; i < sizeof(level_bits) / sizeof(level_bits[0]); i++) {
		const struct level_bit *b = &level_bits[i];
		if (b->level <= level && !cpu_model_has(m, b->leaf, b->reg, b->bit))
			level = b->level - 1u;
	}
	return level;
}

void cpu_model_describe(const struct cpu_model *m, bool hv, FILE *out)
{
	struct line l = { .out = out };

	if (!m)
		return;
	unsigned level = cpu_model_x86_64_level(m);
	char level_text[24] = "";
	if (level)
		snprintf(level_text, sizeof(level_text), "; x86-64-v%u", level);
	fprintf(out, "  %-13s %s%s\n", m->name, m->description ? m->description : "", level_text);
	start_line(&l, "");
	describe_flags(m, &l);
	fprintf(out, "\n");
	describe_addresses(m, out);
	if (m->hv_ext != HV_EXT_NONE)
		describe_hv(m, hv, &l);
}

bool cpu_feature_lookup(const char *name, struct cpu_feature *out)
{
	for (size_t i = 0; i < sizeof(feature_names) / sizeof(feature_names[0]); i++)
		if (!strcmp(feature_names[i].name, name)) {
			*out = (struct cpu_feature){ feature_names[i].leaf, feature_names[i].reg,
						     feature_names[i].bit, feature_names[i].name };
			return true;
		}
	return false;
}
