/* The CPUID engine: how CPUID answers from a CPU model's table (the tables
 * are emu/cpu_models.c, derived ones emu/cpu_modifiers.c): leaf lookup with
 * each vendor's rule for leaves above the maximum, the hypervisor extension
 * hidden until a hypervisor model is installed (emu/cpu_model.h, enum hv_ext),
 * the leaves computed per CPU (TSC frequency 15H/16H, initial APIC ID,
 * topology 0BH), IA32_MISC_ENABLE's effects, and the lookup of the VMX
 * capability MSRs. */
#include <string.h>

#include "devices/clock.h"
#include "emu/cpu_model.h"
#include "emu/feature_bits.h"

/* The stored leaf (subleaf for indexed leaves), or NULL. */
static const struct cpuid_leaf *find_leaf(const struct cpu_model *m, uint32_t leaf,
					  uint32_t subleaf)
{
	for (unsigned i = 0; i < m->cpuid_count; i++) {
		const struct cpuid_leaf *l = &m->cpuid[i];
		if (l->leaf == leaf && (!l->indexed || l->subleaf == subleaf))
			return l;
	}
	return NULL;
}

/* EAX of leaf base (0 or 80000000H): the highest leaf of that range. */
static uint32_t max_leaf(const struct cpu_model *m, uint32_t base)
{
	const struct cpuid_leaf *l = find_leaf(m, base, 0);
	return l ? l->eax : 0;
}

/* Leaf 15H: a 24 MHz core crystal (the Skylake client parts' one: SDM Vol.3
 * "Determining the Processor Base Frequency", Table "Nominal Core Crystal
 * Clock Frequency") and the TSC/crystal ratio in lowest terms, so that
 * ECX * EBX / EAX is the rate exactly; EBX = 0 ("not enumerated") if the
 * ratio does not fit in 32 bits. Leaf 16H: base and maximum frequency the
 * rate in MHz, bus (reference) frequency 100 MHz. */
#define CRYSTAL_HZ 24000000ull

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static void tsc_leaf(uint32_t leaf, uint64_t tsc_hz, uint32_t out[4])
{
	uint64_t hz = tsc_hz ? tsc_hz : VCLOCK_DEFAULT_HZ;
	if (leaf == 0x15) {
		uint64_t g = gcd(hz, CRYSTAL_HZ);
		bool fits = hz / g <= UINT32_MAX;
		out[0] = fits ? (uint32_t)(CRYSTAL_HZ / g) : 0;
		out[1] = fits ? (uint32_t)(hz / g) : 0;
		out[2] = (uint32_t)CRYSTAL_HZ;
		out[3] = 0;
	} else {
		uint64_t mhz = (hz + 500000) / 1000000;
		out[0] = out[1] = (uint32_t)(mhz > 0xffff ? 0xffff : mhz);
		out[2] = 100;
		out[3] = 0;
	}
}

/* out := leaf `leaf` of the table (zeros if absent), without the model's
 * hypervisor extension unless hv (enum hv_ext). APM3 E.4.9: Fn8000_000A is
 * reserved (zeros) on a processor without SVM. */
static void fill(const struct cpu_model *m, bool hv, uint64_t tsc_hz, uint32_t leaf,
		 uint32_t subleaf, uint32_t out[4])
{
	const struct cpuid_leaf *l = find_leaf(m, leaf, subleaf);

	out[0] = out[1] = out[2] = out[3] = 0;
	if (!l)
		return;
	out[0] = l->eax; out[1] = l->ebx; out[2] = l->ecx; out[3] = l->edx;
	if ((leaf == 0x15 || leaf == 0x16) && m->vendor == VENDOR_INTEL)
		tsc_leaf(leaf, tsc_hz, out);
	if (hv)
		return;
	if (m->hv_ext == HV_EXT_VMX && leaf == 1)
		out[2] &= ~FEATURE(vmx);
	if (m->hv_ext == HV_EXT_SVM && leaf == 0x80000001)
		out[2] &= ~FEATURE(svm);
	if (m->hv_ext == HV_EXT_SVM && leaf == 0x8000000a)
		out[0] = out[1] = out[2] = out[3] = 0;
}

/* Leaves within a range but absent from the table (reserved leaves, subleaves
 * past the last one) read as zeros, which is what both vendors document for
 * reserved leaves and what leaf 4/7 use to say "no more subleaves". */
void cpu_model_cpuid_hv(const struct cpu_model *m, bool hv, uint32_t leaf, uint32_t subleaf,
			uint32_t out[4])
{
	cpu_model_cpuid_at(m, hv, 0, leaf, subleaf, out);
}

void cpu_model_cpuid_at(const struct cpu_model *m, bool hv, uint64_t tsc_hz, uint32_t leaf,
			uint32_t subleaf, uint32_t out[4])
{
	uint32_t max_basic = max_leaf(m, 0);
	uint32_t max_ext = max_leaf(m, 0x80000000);
	bool in_range = leaf <= max_basic ||
			(leaf >= 0x80000000 && max_ext >= 0x80000000 && leaf <= max_ext);

	if (in_range) {
		fill(m, hv, tsc_hz, leaf, subleaf, out);
		return;
	}
	if (m->vendor == VENDOR_INTEL) {
		/* SDM Vol.2 CPUID: "If a value entered for CPUID.EAX is higher than the
		 * maximum input value for basic or extended function for that processor
		 * then the data for the highest basic information leaf is returned." */
		fill(m, hv, tsc_hz, max_basic, subleaf, out);
		return;
	}
	/* APM3 CPUID: functions beyond the largest supported one return zeros. */
	out[0] = out[1] = out[2] = out[3] = 0;
}

bool cpu_model_has_hv(const struct cpu_model *m, bool hv, uint32_t leaf, unsigned reg,
		      unsigned bit)
{
	uint32_t out[4];

	if (!m || reg > 3 || bit > 31)
		return false;
	/* A leaf above the maximum does not define its bits, even where Intel's
	 * CPUID would echo the highest basic leaf. */
	uint32_t max = leaf >= 0x80000000 ? max_leaf(m, 0x80000000) : max_leaf(m, 0);
	if (leaf > max || (leaf >= 0x80000000 && max < 0x80000000))
		return false;
	cpu_model_cpuid_hv(m, hv, leaf, 0, out);
	return (out[reg] >> bit) & 1;
}

bool cpu_model_vmx_cap(const struct cpu_model *m, uint32_t index, uint64_t *value)
{
	if (!m || m->hv_ext != HV_EXT_VMX)
		return false;
	for (unsigned i = 0; i < m->vmx_cap_count; i++)
		if (m->vmx_caps[i].index == index) {
			*value = m->vmx_caps[i].value;
			return true;
		}
	return false;
}

/* Leaf 0BH, extended topology (SDM Vol.2 CPUID; SDM Vol.3 10.12.8): every
 * hvemu CPU is a package of one core of one thread, so both levels count one
 * processor and shift the x2APIC ID by 0; EDX is the x2APIC ID at every
 * subleaf; ECX[7:0] echoes the level number, ECX[15:8] its type (1 SMT,
 * 2 core; 0 past the last level, where EAX = EBX = 0). */
static void topology_leaf(const struct cpu *cpu, uint32_t subleaf, uint32_t out[4])
{
	out[0] = 0;
	out[1] = subleaf < 2 ? 1 : 0;
	out[2] = (subleaf & 0xff) | (subleaf < 2 ? (subleaf + 1) << 8 : 0);
	out[3] = cpu->apic_id;
}

void cpu_cpuid(const struct cpu *cpu, uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
	const struct cpu_model *m = cpu->model;
	cpu_model_cpuid_at(m, cpu->hv_available, cpu->tsc_hz, leaf, subleaf, out);
	bool in_range = leaf <= max_leaf(m, 0);
	if (leaf == 1) {
		/* Leaf 1 EBX[31:24]: the initial APIC ID (APM3 E.3.2 "LocalApicId"). */
		out[1] = (out[1] & 0x00ffffffu) | cpu->apic_id << 24;
		/* No local APIC attached (a bare CPU in a unit test): none reported. */
		if (!cpu->lapic) {
			out[3] &= ~FEATURE(apic);
			out[2] &= ~(FEATURE(x2apic) | FEATURE(tsc_deadline_timer));
		}
	} else if (leaf == 0x80000001 && m->vendor == VENDOR_AMD && !cpu->lapic) {
		out[3] &= ~FEATURE(apic);      /* APM3 E.4.2: the same bit as leaf 1's */
	} else if (leaf == 0xb && in_range && cpu->lapic && cpu_model_has(m, 1, 2, FEATURE_BIT_x2apic)) {
		topology_leaf(cpu, subleaf, out);
	}
	/* SDM Vol.2 CPUID leaf 0DH, subleaf 0, EBX: "maximum size (bytes, from
	 * the beginning of the XSAVE/XRSTOR save area) required by enabled
	 * features in XCR0": the end of the last enabled component above SSE
	 * (subleaf i: EAX size, EBX offset), else the legacy region and header. */
	if (leaf == 0xd && subleaf == 0 && in_range && out[0]) {
		uint32_t end = 576;
		for (unsigned i = 2; i < 32; i++) {
			uint32_t c[4];
			if (!(cpu->xcr0 & (1ull << i)))
				continue;
			cpu_model_cpuid_at(m, cpu->hv_available, cpu->tsc_hz, 0xd, i, c);
			if (c[0] + c[1] > end)
				end = c[0] + c[1];
		}
		out[1] = end;
	}
	/* Subleaf 1 EBX with XSAVEC (EAX[1]): "the size in bytes of the XSAVE area
	 * containing all states enabled by XCR0 | IA32_XSS", compacted: the
	 * legacy region and header, then each enabled component's size. */
	if (leaf == 0xd && subleaf == 1 && in_range && (out[0] & 2)) {
		uint32_t size = 576;
		for (unsigned i = 2; i < 32; i++) {
			uint32_t c[4];
			if (!(cpu->xcr0 & (1ull << i)))
				continue;
			cpu_model_cpuid_at(m, cpu->hv_available, cpu->tsc_hz, 0xd, i, c);
			size += c[0];
		}
		out[1] = size;
	}
	/* SDM Vol.4 Table 2-2, 1A0H: XD Bit Disable and ENABLE MONITOR FSM. */
	if (leaf == 0x80000001 && (cpu->misc_enable & MISC_ENABLE_XD_DISABLE))
		out[3] &= ~FEATURE(nx);
	if (leaf == 1 && m->misc_enable.writable && !(cpu->misc_enable & MISC_ENABLE_MONITOR_FSM))
		out[2] &= ~FEATURE(monitor);
}
