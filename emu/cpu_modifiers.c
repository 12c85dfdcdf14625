/* `--cpu MODEL,+FEATURE,-FEATURE,phys-bits=N` (QEMU's -cpu syntax): a model
 * derived from a built-in one by changing its data, never by flags the rest of
 * hvemu tests. The copy's CPUID leaves carry the change, and what depends on a
 * CPUID bit follows by itself (the MSR table, CR4's valid bits, the APIC's
 * x2APIC mode, the page walker's MAXPHYADDR all ask the model); what is data
 * of its own is made to agree here: the hypervisor extension (-vmx, -svm), the
 * VMX CR4_FIXED1 and secondary-control bits of removed features, leaf
 * 8000000AH of -svm.
 *
 * A feature can be added only if hvemu implements it, which is what some
 * built-in model reports (the models advertise nothing else, emu/cpu_models.c),
 * and only where the model's other data can carry it (the table below).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "emu/cpu_model.h"
#include "emu/feature_bits.h"
#include "mmu/x86_vmx.h"

enum { EAX, EBX, ECX, EDX };

/* The copy: the model, its leaves and VMX capability MSRs, its name. */
struct derived_model {
	struct cpu_model model;
	struct cpuid_leaf *leaves;
	struct model_msr *vmx_caps;
	char *name;                /* the whole --cpu value */
	const char *base;          /* the built-in model's name */
};

static bool fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return false;
}

static struct cpuid_leaf *leaf_of(struct derived_model *d, uint32_t leaf)
{
	for (unsigned i = 0; i < d->model.cpuid_count; i++)
		if (d->leaves[i].leaf == leaf && (!d->leaves[i].indexed || d->leaves[i].subleaf == 0))
			return &d->leaves[i];
	return NULL;
}

static uint32_t *reg_of(struct cpuid_leaf *l, unsigned reg)
{
	return reg == EAX ? &l->eax : reg == EBX ? &l->ebx : reg == ECX ? &l->ecx : &l->edx;
}

static bool has(const struct derived_model *d, const char *name)
{
	struct cpu_feature f;
	return cpu_feature_lookup(name, &f) && cpu_model_has_hv(&d->model, true, f.leaf, f.reg, f.bit);
}

/* Does hvemu implement f: does a built-in model of this vendor report it? */
static bool implemented(const struct cpu_model *base, const struct cpu_feature *f)
{
	for (unsigned i = 0; i < cpu_model_count; i++)
		if (cpu_models[i]->vendor == base->vendor &&
		    cpu_model_has_hv(cpu_models[i], true, f->leaf, f->reg, f->bit))
			return true;
	return false;
}

/* A feature another needs: removing it while the other stays, or adding the
 * other without it, is a CPU no manual describes. */
static const struct { const char *feature, *needs, *source; } needs[] = {
	{ "x2apic", "apic", "SDM Vol.3 10.12.1: x2APIC mode extends the local APIC" },
	{ "tsc_deadline_timer", "apic", "SDM Vol.3 10.5.4.1: a mode of the APIC timer" },
	{ "lm", "pae", "SDM Vol.3 9.8.5: IA-32e mode needs CR4.PAE" },
	{ "nx", "pae", "SDM Vol.3 4.1.1: XD exists only in PAE and 4-level entries" },
	{ "pdpe1gb", "lm", "SDM Vol.3 4.5: 1-GByte pages are 4-level paging's" },
	{ "la57", "lm", "SDM Vol.3 4.5: 5-level paging is an IA-32e mode" },
	{ "lahf_lm", "lm", "SDM Vol.2 LAHF: the bit names 64-bit mode" },
	{ "pcid", "lm", "SDM Vol.3 4.10.1: CR4.PCIDE can be set only in IA-32e mode" },
	{ "sse", "fxsr", "SDM Vol.1 11.6: SSE state is saved by FXSAVE" },
	{ "sse2", "sse", "SDM Vol.1 11.6" },
	{ "xsave", "fxsr", "SDM Vol.1 13.4: XSAVE's legacy region is FXSAVE's" },
	{ "avx", "xsave", "SDM Vol.1 14.3: AVX state is enabled through XCR0" },
	{ "pse36", "pse", "SDM Vol.3 4.3: PSE-36 widens 4-MByte pages" },
};

/* Sets or clears f's bit. On AMD, a leaf-1 EDX bit that 80000001H EDX repeats
 * (APM3 E.4.2, AMD_EDX81_ALIASES) changes in both. */
static bool set_bit(struct derived_model *d, const struct cpu_feature *f, bool on, char *err,
		    size_t n)
{
	struct cpuid_leaf *l = leaf_of(d, f->leaf);
	uint32_t max = f->leaf >= 0x80000000 ? (leaf_of(d, 0x80000000) ? leaf_of(d, 0x80000000)->eax : 0)
					     : leaf_of(d, 0)->eax;
	if (!l || f->leaf > max || (f->leaf >= 0x80000000 && max < 0x80000000))
		return fail(err, n, "--cpu %s: '%s' has no CPUID leaf %XH for '%s'", d->name,
			    d->base, f->leaf, f->name);
	uint32_t *r = reg_of(l, f->reg);
	*r = on ? *r | 1u << f->bit : *r & ~(1u << f->bit);
	if (d->model.vendor == VENDOR_AMD && f->leaf == 1 && f->reg == EDX &&
	    ((AMD_EDX81_ALIASES >> f->bit) & 1) && (l = leaf_of(d, 0x80000001)) != NULL)
		l->edx = on ? l->edx | 1u << f->bit : l->edx & ~(1u << f->bit);
	return true;
}

/* -vmx / -svm: the part without its extension: no CPUID bit, no capability
 * MSRs or leaf 8000000AH (APM3 E.4.9: reserved, zeros), no hypervisor model. */
static void drop_hv(struct derived_model *d)
{
	struct cpuid_leaf *l = leaf_of(d, 0x8000000a);
	if (d->model.hv_ext == HV_EXT_SVM && l)
		l->eax = l->ebx = l->ecx = l->edx = 0;
	d->model.hv_ext = HV_EXT_NONE;
	d->model.vmx_caps = NULL;
	d->model.vmx_cap_count = 0;
}

static struct cpuid_leaf *subleaf_of(struct derived_model *d, uint32_t leaf, uint32_t sub)
{
	for (unsigned i = 0; i < d->model.cpuid_count; i++)
		if (d->leaves[i].leaf == leaf && d->leaves[i].indexed && d->leaves[i].subleaf == sub)
			return &d->leaves[i];
	return NULL;
}

/* AVX's state component is leaf 0DH data (SDM Vol.1 13.2, 13.3: XCR0[2] can be
 * set only where CPUID.(EAX=0DH,ECX=0):EAX[2] is): +avx needs a model that has
 * it, -avx takes it out (sizes back to the legacy region and header). */
static bool avx_state(struct derived_model *d, bool on, char *err, size_t n)
{
	struct cpuid_leaf *l0 = subleaf_of(d, 0xd, 0), *l2 = subleaf_of(d, 0xd, 2);
	if (on) {
		if (!l0 || !(l0->eax & 4) || !l2)
			return fail(err, n, "--cpu %s: '%s' has no AVX state component in CPUID leaf 0DH",
				    d->name, d->base);
		return true;
	}
	if (l0) {
		l0->eax &= ~4u;
		l0->ebx = l0->ecx = 576;
	}
	if (l2)
		l2->eax = l2->ebx = 0;
	return true;
}

/* One +FEATURE or -FEATURE. */
static bool modify(struct derived_model *d, const char *name, bool on, char *err, size_t n)
{
	struct cpu_feature f;
	if (!cpu_feature_lookup(name, &f))
		return fail(err, n, "--cpu %s: unknown feature '%s' (try --cpu help)", d->name, name);
	bool svm_sub = f.leaf == 0x8000000a;
	if (!strcmp(name, "vmx") || !strcmp(name, "svm")) {
		enum hv_ext ext = name[0] == 'v' ? HV_EXT_VMX : HV_EXT_SVM;
		if (on && d->model.hv_ext != ext)
			return fail(err, n, "--cpu %s: '%s' cannot have %s (its part has no %s data)",
				    d->name, d->base, name, ext == HV_EXT_VMX ? "VMX" : "SVM");
		if (!on && d->model.hv_ext == ext) {
			if (!set_bit(d, &f, false, err, n))
				return false;
			drop_hv(d);
		}
		return true;
	}
	if (svm_sub && d->model.hv_ext != HV_EXT_SVM)
		return fail(err, n, "--cpu %s: '%s' is an SVM feature and '%s' has no SVM", d->name, name,
			    d->base);
	if (on && !implemented(&d->model, &f))
		return fail(err, n, "--cpu %s: hvemu does not implement '%s' on %s models", d->name, name,
			    d->model.vendor == VENDOR_AMD ? "AMD" : "Intel");
	if (!strcmp(name, "avx") && !avx_state(d, on, err, n))
		return false;
	return set_bit(d, &f, on, err, n);
}

/* SDM Vol.3 4.1.4: MAXPHYADDR is at most 52; 32 is the width of a processor
 * without PAE, and below it the machine's RAM and devices would not fit. The
 * width is CPUID.80000008H:EAX[7:0], which the model must have. */
static bool set_phys_bits(struct derived_model *d, const char *v, char *err, size_t n)
{
	char *end;
	unsigned long bits = strtoul(v, &end, 10);
	struct cpuid_leaf *l = leaf_of(d, 0x80000008), *top = leaf_of(d, 0x80000000);
	if (!*v || *end || bits < 32 || bits > 52)
		return fail(err, n, "--cpu %s: phys-bits=%s out of range (32..52, SDM Vol.3 4.1.4)",
			    d->name, v);
	if (!l || !top || top->eax < 0x80000008)
		return fail(err, n, "--cpu %s: '%s' reports no CPUID 80000008H to carry phys-bits",
			    d->name, d->base);
	l->eax = (l->eax & ~0xffu) | (uint32_t)bits;
	return true;
}

/* The CR4 bits a feature enables (SDM Vol.3 2.5): a VMX part's CR4_FIXED1
 * lets one be 1 only while the CPU has the feature (SDM Vol.3 A.8). */
static const struct { uint64_t cr4; const char *feature; } cr4_features[] = {
	{ CR4_VME, "vme" }, { CR4_PVI, "vme" }, { CR4_TSD, "tsc" }, { CR4_DE, "de" },
	{ CR4_PSE, "pse" }, { CR4_PAE, "pae" }, { CR4_MCE, "mce" }, { CR4_PGE, "pge" },
	{ CR4_OSFXSR, "fxsr" }, { CR4_OSXMMEXCPT, "sse" }, { CR4_PCIDE, "pcid" },
	{ CR4_OSXSAVE, "xsave" }, { CR4_FSGSBASE, "fsgsbase" }, { CR4_SMEP, "smep" },
	{ CR4_SMAP, "smap" }, { CR4_UMIP, "umip" }, { CR4_PKE, "pku" }, { CR4_LA57, "la57" },
};

/* Secondary controls that exist only with a feature (SDM Vol.3 Table 24-7:
 * "enable RDTSCP", "enable INVPCID"), as allowed-1 bits (bit 32 + n). */
static const struct { uint64_t bit; const char *feature; } ctls2_features[] = {
	{ (uint64_t)VMX_CTL(VMX_PROC2_RDTSCP) << 32, "rdtscp" },
	{ (uint64_t)VMX_CTL(VMX_PROC2_INVPCID) << 32, "invpcid" },
};

/* The VMX capability MSRs of a removed feature lose its bits. */
static void fit_vmx_caps(struct derived_model *d)
{
	for (unsigned i = 0; i < d->model.vmx_cap_count; i++) {
		struct model_msr *c = &d->vmx_caps[i];
		if (c->index == MSR_VMX_CR4_FIXED1) {
			for (size_t k = 0; k < sizeof(cr4_features) / sizeof(cr4_features[0]); k++)
				if (!has(d, cr4_features[k].feature))
					c->value &= ~cr4_features[k].cr4;
		} else if (c->index == MSR_VMX_PROCBASED_CTLS2) {
			for (size_t k = 0; k < sizeof(ctls2_features) / sizeof(ctls2_features[0]); k++)
				if (!has(d, ctls2_features[k].feature))
					c->value &= ~ctls2_features[k].bit;
		}
	}
}

/* Every dependency of the table above, and long mode's 48 linear bits. */
static bool consistent(struct derived_model *d, char *err, size_t n)
{
	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if (has(d, needs[i].feature) && !has(d, needs[i].needs))
			return fail(err, n, "--cpu %s: '%s' needs '%s' (%s)", d->name, needs[i].feature,
				    needs[i].needs, needs[i].source);
	struct cpuid_leaf *l = leaf_of(d, 0x80000008);
	unsigned linear = l ? (l->eax >> 8) & 0xff : 32;
	if (has(d, "lm") && linear < 48)
		return fail(err, n, "--cpu %s: 'lm' needs 48 linear address bits and '%s' reports %u "
			    "(CPUID 80000008H:EAX[15:8], SDM Vol.3 3.3.7.1)", d->name, d->base, linear);
	return true;
}

static struct derived_model *copy_model(const struct cpu_model *base, const char *spec)
{
	struct derived_model *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->model = *base;
	d->leaves = malloc(base->cpuid_count * sizeof(*d->leaves));
	d->vmx_caps = base->vmx_cap_count ? malloc(base->vmx_cap_count * sizeof(*d->vmx_caps)) : NULL;
	d->name = strdup(spec);
	if (!d->leaves || (base->vmx_cap_count && !d->vmx_caps) || !d->name) {
		free(d->leaves);
		free(d->vmx_caps);
		free(d->name);
		free(d);
		return NULL;
	}
	memcpy(d->leaves, base->cpuid, base->cpuid_count * sizeof(*d->leaves));
	if (base->vmx_cap_count)
		memcpy(d->vmx_caps, base->vmx_caps, base->vmx_cap_count * sizeof(*d->vmx_caps));
	d->model.cpuid = d->leaves;
	d->model.vmx_caps = d->vmx_caps;
	d->model.name = d->name;
	d->base = base->name;
	return d;
}

static bool builtin(const struct cpu_model *m)
{
	for (unsigned i = 0; i < cpu_model_count; i++)
		if (cpu_models[i] == m)
			return true;
	return false;
}

void cpu_model_release(const struct cpu_model *m)
{
	if (!m || builtin(m))
		return;
	struct derived_model *d = (struct derived_model *)(void *)m;   /* model is the first member */
	free(d->leaves);
	free(d->vmx_caps);
	free(d->name);
	free(d);
}

const struct cpu_model *cpu_model_parse(const char *spec, char *err, size_t n)
{
	char model_name[64];
	size_t len = strcspn(spec, ",");
	snprintf(model_name, sizeof(model_name), "%.*s", (int)(len < 63 ? len : 63), spec);
	const struct cpu_model *base = len < 63 ? cpu_model_find(model_name) : NULL;
	if (!base) {
		fail(err, n, "unknown CPU model '%.*s' (try --cpu help)", (int)len, spec);
		return NULL;
	}
	if (!spec[len])
		return base;
	struct derived_model *d = copy_model(base, spec);
	if (!d) {
		fail(err, n, "--cpu %s: out of memory", spec);
		return NULL;
	}
	bool ok = true;
	for (const char *p = spec + len; ok && *p == ',';) {
		p++;
		size_t tl = strcspn(p, ",");
		char tok[64];
		snprintf(tok, sizeof(tok), "%.*s", (int)(tl < 63 ? tl : 63), p);
		if (tl >= 63)
			ok = fail(err, n, "--cpu %s: modifier '%.20s...' too long", spec, p);
		else if (tok[0] == '+' || tok[0] == '-')
			ok = modify(d, tok + 1, tok[0] == '+', err, n);
		else if (!strncmp(tok, "phys-bits=", 10))
			ok = set_phys_bits(d, tok + 10, err, n);
		else
			ok = fail(err, n, "--cpu %s: bad modifier '%s' (+FEATURE, -FEATURE or phys-bits=N)",
				  spec, tok);
		p += tl;
	}
	if (ok)
		ok = consistent(d, err, n);
	if (!ok) {
		cpu_model_release(&d->model);
		return NULL;
	}
	fit_vmx_caps(d);
	return &d->model;
}
