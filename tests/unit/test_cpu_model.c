/* Check suite for emu/cpu_models.c and emu/cpuid.c: model lookup, CPUID
 * leaves, out-of-range leaves per vendor (SDM Vol.2 CPUID; APM3 CPUID),
 * feature bits, the default model, the hypervisor-extension switch, and
 * `--cpu help` (emu/cpu_features.c).
 * The MSR data is tests/unit/test_msr_data.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/cpu_model.h"
#include "emu/feature_bits.h"
#include "suite_runner.h"

/* The 12-byte vendor string from CPUID.0 (EBX, EDX, ECX order). */
static void vendor_string(const struct cpu_model *m, char out[13])
{
	uint32_t r[4];
	cpu_model_cpuid(m, 0, 0, r);
	memcpy(out, &r[1], 4);
	memcpy(out + 4, &r[3], 4);
	memcpy(out + 8, &r[2], 4);
	out[12] = 0;
}

START_TEST(find_known_and_unknown)
{
	ck_assert_ptr_nonnull(cpu_model_find("core2"));
	ck_assert_ptr_nonnull(cpu_model_find("opteron-g3"));
	ck_assert_ptr_nonnull(cpu_model_find("pentium"));
	ck_assert_ptr_null(cpu_model_find("no-such-cpu"));
	ck_assert_ptr_null(cpu_model_find(""));
	ck_assert_ptr_null(cpu_model_find(NULL));
	ck_assert_str_eq(cpu_models[0]->name, "skylake-lite");   /* the documented default */
}
END_TEST

START_TEST(names_unique_and_described)
{
	for (unsigned i = 0; i < cpu_model_count; i++) {
		ck_assert_ptr_nonnull(cpu_models[i]->description);
		ck_assert_ptr_eq(cpu_model_find(cpu_models[i]->name), cpu_models[i]);
		/* CPUID.1:EAX is the signature the model reports after RESET in EDX. */
		uint32_t r[4];
		cpu_model_cpuid(cpu_models[i], 1, 0, r);
		ck_assert_uint_eq(r[0], cpu_models[i]->signature);
	}
}
END_TEST

START_TEST(vendor_strings)
{
	char v[13];
	vendor_string(cpu_model_find("core2"), v);
	ck_assert_str_eq(v, "GenuineIntel");
	vendor_string(cpu_model_find("pentium"), v);
	ck_assert_str_eq(v, "GenuineIntel");
	vendor_string(cpu_model_find("opteron-g3"), v);
	ck_assert_str_eq(v, "AuthenticAMD");
	ck_assert_int_eq(cpu_model_find("opteron-g3")->vendor, VENDOR_AMD);
	ck_assert_int_eq(cpu_model_find("core2")->vendor, VENDOR_INTEL);
}
END_TEST

START_TEST(brand_string)
{
	const struct cpu_model *m = cpu_model_find("core2");
	char brand[49];
	for (unsigned i = 0; i < 3; i++) {
		uint32_t r[4];
		cpu_model_cpuid(m, 0x80000002 + i, 0, r);
		memcpy(brand + i * 16, r, 16);
	}
	brand[48] = 0;
	ck_assert_str_eq(brand, "hvemu Core 2 class CPU");
}
END_TEST

/* SDM Vol.2 CPUID: Intel returns the highest basic leaf for leaves above the
 * maximum, in both ranges and in between. */
START_TEST(intel_out_of_range_returns_highest_basic)
{
	const struct cpu_model *m = cpu_model_find("core2");
	uint32_t max[4], hi[4], r[4];
	cpu_model_cpuid(m, 0, 0, max);
	cpu_model_cpuid(m, max[0], 0, hi);
	const uint32_t leaves[] = { max[0] + 1, 0x40000000, 0x80000009, 0xffffffff };
	for (unsigned i = 0; i < 4; i++) {
		cpu_model_cpuid(m, leaves[i], 0, r);
		ck_assert_mem_eq(r, hi, sizeof(r));
	}
	/* A model with a non-zero highest leaf makes the rule observable. */
	const struct cpu_model *p = cpu_model_find("pentium");
	cpu_model_cpuid(p, 0x80000000, 0, r);
	ck_assert_uint_eq(r[0], p->signature);     /* leaf 1 data: no extended leaves */
}
END_TEST

/* APM3: AMD returns zeros above the maximum. */
START_TEST(amd_out_of_range_returns_zero)
{
	const struct cpu_model *m = cpu_model_find("opteron-g3");
	uint32_t r[4] = { 1, 1, 1, 1 };
	const uint32_t zero[4] = { 0, 0, 0, 0 };
	cpu_model_cpuid(m, 2, 0, r);
	ck_assert_mem_eq(r, zero, sizeof(r));
	cpu_model_cpuid(m, 0x8000000b, 0, r);
	ck_assert_mem_eq(r, zero, sizeof(r));
	cpu_model_cpuid(m, 0x40000000, 0, r);
	ck_assert_mem_eq(r, zero, sizeof(r));
}
END_TEST

/* SDM Vol.2 CPUID leaves 15H/16H: the TSC frequency, which is hvemu's
 * instruction rate: ECX * EBX / EAX with a 24 MHz crystal, the ratio in lowest
 * terms; 16H in MHz. Intel models with the leaves only. */
START_TEST(tsc_frequency_leaves)
{
	const struct cpu_model *m = cpu_model_find("skylake-lite");
	uint32_t r[4];
	cpu_model_cpuid_at(m, false, 0, 0, 0, r);
	ck_assert_uint_eq(r[0], 0x16);
	cpu_model_cpuid_at(m, false, 0, 0x15, 0, r);          /* 0: the default 1 GHz */
	ck_assert_uint_eq(r[0], 3);
	ck_assert_uint_eq(r[1], 125);
	ck_assert_uint_eq(r[2], 24000000);
	cpu_model_cpuid_at(m, false, 2400000000ull, 0x15, 0, r);
	ck_assert_uint_eq(r[0], 1);
	ck_assert_uint_eq(r[1], 100);
	cpu_model_cpuid_at(m, false, 2400000000ull, 0x16, 0, r);
	ck_assert_uint_eq(r[0], 2400);
	ck_assert_uint_eq(r[1], 2400);
	ck_assert_uint_eq(r[2], 100);
	/* 1193182 Hz: gcd 2, ratio 596591/12000000. */
	cpu_model_cpuid_at(m, false, 1193182, 0x15, 0, r);
	ck_assert_uint_eq((uint64_t)r[2] * r[1] / r[0], 1193182);
	/* A ratio that does not fit in 32 bits is not enumerated (EBX = 0). */
	cpu_model_cpuid_at(m, false, 9999999967ull, 0x15, 0, r);
	ck_assert_uint_eq(r[1], 0);
	/* The Intel echo of the highest basic leaf is leaf 16H, rate and all. */
	cpu_model_cpuid_at(m, false, 2400000000ull, 0x17, 0, r);
	ck_assert_uint_eq(r[0], 2400);
	cpu_model_cpuid_at(cpu_model_find("icelake-lite"), false, 3000000000ull, 0x16, 0, r);
	ck_assert_uint_eq(r[0], 3000);
	/* Models without the leaves: core2 echoes leaf 0DH, AMD reads zeros. */
	uint32_t hi[4];
	const struct cpu_model *c = cpu_model_find("core2");
	cpu_model_cpuid_at(c, false, 2400000000ull, 0x15, 0, r);
	cpu_model_cpuid(c, 0xd, 0, hi);
	ck_assert_mem_eq(r, hi, sizeof(r));
	cpu_model_cpuid_at(cpu_model_find("epyc-lite"), false, 2400000000ull, 0x16, 0, r);
	ck_assert_uint_eq(r[0] | r[1] | r[2] | r[3], 0);
}
END_TEST

START_TEST(subleaves)
{
	const struct cpu_model *m = cpu_model_find("core2");
	uint32_t r[4];
	/* Leaf 4: three caches, then a null entry (type 0). */
	cpu_model_cpuid(m, 4, 0, r);
	ck_assert_uint_eq(r[0] & 0x1f, 1);         /* data cache */
	cpu_model_cpuid(m, 4, 2, r);
	ck_assert_uint_eq((r[0] >> 5) & 7, 2);     /* level 2 */
	cpu_model_cpuid(m, 4, 3, r);
	ck_assert_uint_eq(r[0] & 0x1f, 0);
	/* A reserved leaf inside the range reads as zeros. */
	cpu_model_cpuid(m, 3, 0, r);
	ck_assert_uint_eq(r[0] | r[1] | r[2] | r[3], 0);
}
END_TEST

/* x86-64 psABI levels as `--cpu help` prints them: a level needs every CPUID
 * bit of itself and the levels below (core2 lacks SSE4.1 and POPCNT, the
 * AVX-less models stop at v2, 32-bit models have none). */
START_TEST(x86_64_levels)
{
	ck_assert_uint_eq(cpu_model_x86_64_level(cpu_model_find("pentium")), 0);
	ck_assert_uint_eq(cpu_model_x86_64_level(cpu_model_find("opteron-g3")), 0);
	ck_assert_uint_eq(cpu_model_x86_64_level(cpu_model_find("core2")), 1);
	ck_assert_uint_eq(cpu_model_x86_64_level(cpu_model_find("nehalem-lite")), 2);
	ck_assert_uint_eq(cpu_model_x86_64_level(cpu_model_find("skylake-lite")), 3);
	ck_assert_uint_eq(cpu_model_x86_64_level(cpu_model_find("icelake-lite")), 3);
	ck_assert_uint_eq(cpu_model_x86_64_level(cpu_model_find("epyc-lite")), 3);
}
END_TEST

/* A copy of model name reporting AVX (CPUID.01H:ECX[28]) and with leaf's
 * register reg (0-3: EAX..EDX) bit cleared (leaf 0: none), in static storage. */
static const struct cpu_model *with_avx_without(const char *name, uint32_t leaf, unsigned reg, unsigned bit)
{
	static struct cpuid_leaf leaves[64];
	static struct cpu_model m;
	const struct cpu_model *base = cpu_model_find(name);
	ck_assert_ptr_nonnull(base);
	ck_assert_uint_le(base->cpuid_count, 64);
	m = *base;
	memcpy(leaves, base->cpuid, base->cpuid_count * sizeof(leaves[0]));
	for (unsigned i = 0; i < base->cpuid_count; i++) {
		if (leaves[i].leaf == 1)
			leaves[i].ecx |= 1u << 28;
		if (leaf && leaves[i].leaf == leaf && leaves[i].subleaf == 0) {
			uint32_t *r[4] = { &leaves[i].eax, &leaves[i].ebx, &leaves[i].ecx, &leaves[i].edx };
			*r[reg] &= ~(1u << bit);
		}
	}
	m.cpuid = leaves;
	return &m;
}

/* The models of parts with FMA, F16C and AVX2 (Haswell and later, Zen) report
 * them (SDM Vol.2 CPUID Table 3-10: FMA ECX[12], F16C ECX[29]; Table 3-8:
 * leaf 7 EBX[5] AVX2), so with AVX (leaf 1 ECX[28], the VEX forms of SSE)
 * they are x86-64-v3; without any one of the v3 bits they stay v2. */
START_TEST(x86_64_v3_with_avx)
{
	static const char *const v3[] = { "skylake-lite", "icelake-lite", "epyc-lite" };
	static const struct { uint32_t leaf; unsigned reg, bit; } need[] = {
		{ 1, 2, 12 }, { 1, 2, 29 }, { 7, 1, 5 },
	};
	for (unsigned k = 0; k < 3; k++) {
		for (unsigned i = 0; i < 3; i++)
			ck_assert(cpu_model_has(cpu_model_find(v3[k]), need[i].leaf, need[i].reg, need[i].bit));
		ck_assert_uint_eq(cpu_model_x86_64_level(with_avx_without(v3[k], 0, 0, 0)), 3);
	}
	for (unsigned i = 0; i < 3; i++)
		ck_assert_uint_eq(cpu_model_x86_64_level(with_avx_without("skylake-lite", need[i].leaf, need[i].reg,
									  need[i].bit)), 2);
	/* nehalem-lite has none of them. */
	ck_assert(!cpu_model_has(cpu_model_find("nehalem-lite"), 7, 1, 5));
	ck_assert(!cpu_model_has(cpu_model_find("nehalem-lite"), 1, 2, 12));
}
END_TEST

START_TEST(feature_bits)
{
	const struct cpu_model *intel = cpu_model_find("core2");
	const struct cpu_model *amd = cpu_model_find("opteron-g3");
	const struct cpu_model *p5 = cpu_model_find("pentium");

	/* VMX only on the Intel model, SVM only on the AMD model, and either only
	 * with the hypervisor extension available (hv_ext_switch below). */
	ck_assert(cpu_model_has_hv(intel, true, 1, 2, 5));
	ck_assert(!cpu_model_has(intel, 1, 2, 5));
	ck_assert(!cpu_model_has_hv(amd, true, 1, 2, 5));
	ck_assert(cpu_model_has_hv(amd, true, 0x80000001, 2, 2));
	ck_assert(!cpu_model_has(amd, 0x80000001, 2, 2));
	ck_assert(!cpu_model_has_hv(intel, true, 0x80000001, 2, 2));
	ck_assert(!cpu_model_has_hv(p5, true, 1, 2, 5));
	/* x87 on every model; FXSR/SSE/SSE2 on all but the Pentium (emu/x87.c,
	 * emu/sse.c, emu/xsave.c); a local APIC on all but the Pentium
	 * (devices/lapic.c), x2APIC mode and the TSC-deadline timer on the
	 * Skylake and Ice Lake models. */
	for (unsigned i = 0; i < cpu_model_count; i++) {
		const struct cpu_model *m = cpu_models[i];
		ck_assert(cpu_model_has(m, 1, 3, 0));
		ck_assert(cpu_model_has(m, 1, 3, 9) == (m != p5));
		bool x2 = strcmp(m->name, "skylake-lite") == 0 || strcmp(m->name, "icelake-lite") == 0;
		ck_assert(cpu_model_has(m, 1, 2, 21) == x2);
		ck_assert(cpu_model_has(m, 1, 2, 24) == x2);
		ck_assert(cpu_model_has(m, 1, 3, 24) == (m != p5));
		ck_assert(cpu_model_has(m, 1, 3, 25) == (m != p5));
		ck_assert(cpu_model_has(m, 1, 3, 26) == (m != p5));
		/* Long mode: all but the Pentium and the Opteron model
		 * (tests/unit/test_long.c), with LAHF/SAHF in 64-bit mode. */
		bool lm64 = m != p5 && m != amd;
		ck_assert(cpu_model_has(m, 0x80000001, 3, 29) == lm64);
		ck_assert(cpu_model_has(m, 0x80000001, 2, 0) == lm64);
		ck_assert(cpu_model_has(m, 1, 3, 4));      /* TSC */
		ck_assert(cpu_model_has(m, 1, 3, 5));      /* MSR */
	}
	/* The walker's features: PAE, PGE, PSE-36 and NX on the P6-class models, PSE
	 * alone on the Pentium. */
	ck_assert(cpu_model_has(intel, 1, 3, 6) && cpu_model_has(amd, 1, 3, 6));
	ck_assert(cpu_model_has(intel, 1, 3, 13) && cpu_model_has(intel, 1, 3, 17));
	ck_assert(cpu_model_has(intel, 0x80000001, 3, 20) && cpu_model_has(amd, 0x80000001, 3, 20));
	ck_assert(cpu_model_has(p5, 1, 3, 3) && !cpu_model_has(p5, 1, 3, 6));
	/* SEP: not on the Pentium; AMD's 80000001H:EDX[11] is SYSCALL, not SEP. */
	ck_assert(cpu_model_has(intel, 1, 3, 11));
	ck_assert(!cpu_model_has(p5, 1, 3, 11));
	ck_assert(!cpu_model_has(amd, 0x80000001, 3, 11));
	/* SVM leaf: revision and ASIDs. */
	uint32_t r[4];
	cpu_model_cpuid_hv(amd, true, 0x8000000a, 0, r);
	ck_assert_uint_ge(r[0] & 0xff, 1);
	ck_assert_uint_ge(r[1], 2);
	/* Bits of leaves beyond the maximum are not features, and bad arguments
	 * are answered, not crashed on. */
	ck_assert(!cpu_model_has(p5, 0x80000001, 2, 2));
	ck_assert(!cpu_model_has(intel, 0x40000000, 3, 4));
	ck_assert(!cpu_model_has(intel, 1, 4, 0));
	ck_assert(!cpu_model_has(intel, 1, 3, 32));
	ck_assert(!cpu_model_has(NULL, 1, 3, 4));
}
END_TEST

/* The default model is a 64-bit CPU (a user who names no --cpu gets long
 * mode): LM, SYSCALL, NX, LAHF/SAHF in 64-bit mode, 48 linear bits. */
START_TEST(default_model_is_64bit)
{
	const struct cpu_model *d = cpu_models[0];
	uint32_t r[4];
	ck_assert(cpu_model_has(d, 0x80000001, 3, 29));
	ck_assert(cpu_model_has(d, 0x80000001, 3, 11));
	ck_assert(cpu_model_has(d, 0x80000001, 3, 20));
	ck_assert(cpu_model_has(d, 0x80000001, 2, 0));
	cpu_model_cpuid(d, 0x80000008, 0, r);
	ck_assert_uint_eq((r[0] >> 8) & 0xff, 48);
	ck_assert_int_eq(d->vendor, VENDOR_INTEL);
}
END_TEST

/* core2 has the long mode of the Merom part: LM, SYSCALL, NX, LAHF64 and
 * CMPXCHG16B, no 1 GiB pages or RDTSCP; 36 physical, 48 linear bits. */
START_TEST(core2_long_mode)
{
	const struct cpu_model *m = cpu_model_find("core2");
	uint32_t r[4];
	ck_assert(cpu_model_has(m, 0x80000001, 3, 29));
	ck_assert(cpu_model_has(m, 0x80000001, 3, 11));
	ck_assert(cpu_model_has(m, 0x80000001, 3, 20));
	ck_assert(cpu_model_has(m, 0x80000001, 2, 0));
	ck_assert(cpu_model_has(m, 1, 2, 13));
	ck_assert(!cpu_model_has(m, 0x80000001, 3, 26));
	ck_assert(!cpu_model_has(m, 0x80000001, 3, 27));
	cpu_model_cpuid(m, 0x80000008, 0, r);
	ck_assert_uint_eq(r[0] & 0xffff, 0x3024);
}
END_TEST

/* The switch changes only the hypervisor extension's bits: VMX (1:ECX[5])
 * on the VMX models, SVM (80000001H:ECX[2], leaf 8000000AH) on the SVM
 * models; every other leaf and bit, and the Intel echo of the highest basic
 * leaf for leaves out of range, are the same either way. */
START_TEST(hv_switch_changes_only_its_bits)
{
	for (unsigned i = 0; i < cpu_model_count; i++) {
		const struct cpu_model *m = cpu_models[i];
		for (unsigned k = 0; k <= m->cpuid_count; k++) {
			uint32_t leaf = k < m->cpuid_count ? m->cpuid[k].leaf : 0x40000000;
			uint32_t sub = k < m->cpuid_count ? m->cpuid[k].subleaf : 0;
			uint32_t off[4], on[4];
			cpu_model_cpuid(m, leaf, sub, off);
			cpu_model_cpuid_hv(m, true, leaf, sub, on);
			if (m->hv_ext == HV_EXT_VMX && leaf == 1) {
				ck_assert_uint_eq(on[2] ^ off[2], 1u << 5);
				off[2] = on[2];
			}
			if (m->hv_ext == HV_EXT_SVM && leaf == 0x80000001) {
				ck_assert_uint_eq(on[2] ^ off[2], 1u << 2);
				off[2] = on[2];
			}
			if (m->hv_ext == HV_EXT_SVM && leaf == 0x8000000a) {
				ck_assert_uint_eq(off[0] | off[1] | off[2] | off[3], 0);
				ck_assert_uint_ne(on[0], 0);
				memcpy(off, on, sizeof(off));
			}
			ck_assert_mem_eq(off, on, sizeof(off));
		}
		ck_assert(m->hv_ext != HV_EXT_VMX || m->vendor == VENDOR_INTEL);
		ck_assert(m->hv_ext != HV_EXT_SVM || m->vendor == VENDOR_AMD);
	}
}
END_TEST

/* `--cpu help` text of one model, hypervisor extension on or off. */
static char *describe(const struct cpu_model *m, bool hv)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	cpu_model_describe(m, hv, f);
	fclose(f);
	return text;
}

/* The feature list is decoded from the CPUID data: every set bit has a name
 * (no "leaf.reg[bit]" fallback is printed), "lm" appears iff the model has long
 * mode, the hypervisor extension is listed as off while it is not available. */
/* emu/features.def names each CPUID bit once: no two rows share a name or a
 * (leaf, register, bit), and a name finds its own row (--cpu +FEATURE and
 * FEATURE(name) in the models mean the same bit). */
enum { EAX, EBX, ECX, EDX };
static const struct cpu_feature def_rows[] = {
#define X(name, leaf, reg, bit) { leaf, reg, bit, #name },
#include "emu/features.def"
#undef X
};

START_TEST(feature_names_once)
{
	const size_t n = sizeof(def_rows) / sizeof(def_rows[0]);
	for (size_t i = 0; i < n; i++) {
		struct cpu_feature f;
		ck_assert_msg(cpu_feature_lookup(def_rows[i].name, &f), "%s", def_rows[i].name);
		ck_assert(f.leaf == def_rows[i].leaf && f.reg == def_rows[i].reg &&
			  f.bit == def_rows[i].bit);
		for (size_t k = i + 1; k < n; k++) {
			ck_assert_msg(strcmp(def_rows[i].name, def_rows[k].name), "%s twice",
				      def_rows[i].name);
			ck_assert_msg(def_rows[i].leaf != def_rows[k].leaf || def_rows[i].reg != def_rows[k].reg ||
				      def_rows[i].bit != def_rows[k].bit, "%s and %s: one bit",
				      def_rows[i].name, def_rows[k].name);
		}
	}
	ck_assert_uint_eq(FEATURE(nx), 1u << 20);
	ck_assert_uint_eq(FEATURE_BIT_vgif, 16);
}
END_TEST

/* A word of describe()'s text: after a space, before a space, a line end or
 * the end (the lines wrap anywhere). */
static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word), len = strlen(text);
	for (size_t i = 1; i + n <= len; i++) {
		char after = text[i + n];
		if (text[i - 1] == ' ' && strncmp(text + i, word, n) == 0 &&
		    (after == ' ' || after == '\n' || after == '\0'))
			return true;
	}
	return false;
}

START_TEST(describe_decodes_cpuid)
{
	for (unsigned i = 0; i < cpu_model_count; i++) {
		const struct cpu_model *m = cpu_models[i];
		char *off = describe(m, false), *on = describe(m, true);
		ck_assert_ptr_nonnull(strstr(off, m->name));
		ck_assert_ptr_nonnull(strstr(off, m->description));
		ck_assert_ptr_null(strstr(off, "["));
		ck_assert_ptr_null(strstr(on, "["));
		ck_assert(!!strstr(off, " lm ") == cpu_model_has(m, 0x80000001, 3, 29));
		ck_assert(!!strstr(off, " sse2") == cpu_model_has(m, 1, 3, 26));
		ck_assert(!!strstr(off, "vmx(off: not implemented):") == (m->hv_ext == HV_EXT_VMX));
		ck_assert(!!strstr(off, "svm(off: not implemented):") == (m->hv_ext == HV_EXT_SVM));
		ck_assert(!!strstr(on, " vmx: ") == (m->hv_ext == HV_EXT_VMX));
		ck_assert(!!strstr(on, " svm: ") == (m->hv_ext == HV_EXT_SVM));
		ck_assert_ptr_null(strstr(on, "(off"));
		free(off);
		free(on);
	}
	char *sky = describe(cpu_model_find("skylake-lite"), false);
	ck_assert(has_word(sky, "pcid"));
	ck_assert(has_word(sky, "ept"));
	ck_assert_ptr_nonnull(strstr(sky, " unrestricted_guest"));
	ck_assert_ptr_nonnull(strstr(sky, " shadow_vmcs"));
	ck_assert_ptr_nonnull(strstr(sky, " pml"));
	ck_assert(has_word(sky, "vapic") && has_word(sky, "apic_reg_virt") && has_word(sky, "x2apic_virt") &&
		  has_word(sky, "vid") && has_word(sky, "posted_intr"));
	ck_assert_ptr_nonnull(strstr(sky, "39-bit physical, 48-bit linear"));
	free(sky);
	/* Nehalem has neither VMCS shadowing nor PML (no EPT A/D). */
	char *nhm = describe(cpu_model_find("nehalem-lite"), false);
	ck_assert_ptr_null(strstr(nhm, " shadow_vmcs"));
	ck_assert_ptr_null(strstr(nhm, " pml"));
	ck_assert(!has_word(nhm, "vapic") && !has_word(nhm, "posted_intr"));
	free(nhm);
	char *epyc = describe(cpu_model_find("epyc-lite"), false);
	ck_assert_ptr_nonnull(strstr(epyc, " npt "));
	ck_assert_ptr_nonnull(strstr(epyc, "asids=32768"));
	free(epyc);
}
END_TEST

/* ---- --cpu MODEL,+FEATURE,-FEATURE,phys-bits=N (emu/cpu_modifiers.c) ---- */

static const struct cpu_model *parse_ok(const char *spec)
{
	char err[256] = "";
	const struct cpu_model *m = cpu_model_parse(spec, err, sizeof(err));
	ck_assert_msg(m != NULL, "%s: %s", spec, err);
	return m;
}

START_TEST(modifiers_plain_name_is_the_model)
{
	for (unsigned i = 0; i < cpu_model_count; i++)
		ck_assert_ptr_eq(parse_ok(cpu_models[i]->name), cpu_models[i]);
}
END_TEST

/* Re-adding each feature a model has gives the same CPUID: the dependency
 * table holds for every built-in model. */
START_TEST(modifiers_readding_changes_nothing)
{
	const struct cpu_model *base = cpu_models[_i];
	static const char *const names[] = { "fpu", "apic", "pae", "nx", "lm", "pcid", "x2apic",
					     "xsave", "avx", "smep", "svm", "vmx", "npt" };
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		struct cpu_feature f;
		ck_assert(cpu_feature_lookup(names[k], &f));
		if (!cpu_model_has_hv(base, true, f.leaf, f.reg, f.bit))
			continue;
		char spec[64];
		snprintf(spec, sizeof(spec), "%s,+%s", base->name, names[k]);
		const struct cpu_model *m = parse_ok(spec);
		for (uint32_t leaf = 0; leaf < 0x20; leaf++) {
			uint32_t a[4], b[4];
			cpu_model_cpuid_hv(base, true, leaf, 0, a);
			cpu_model_cpuid_hv(m, true, leaf, 0, b);
			ck_assert_mem_eq(a, b, sizeof(a));
			cpu_model_cpuid_hv(base, true, 0x80000000 + leaf, 0, a);
			cpu_model_cpuid_hv(m, true, 0x80000000 + leaf, 0, b);
			ck_assert_mem_eq(a, b, sizeof(a));
		}
		ck_assert_int_eq(m->hv_ext, base->hv_ext);
		cpu_model_release(m);
	}
}
END_TEST

START_TEST(modifiers_change_cpuid_and_dependent_data)
{
	uint32_t r[4];
	uint64_t v;
	/* -pcid: CPUID.1:ECX[17] and the VMX CR4_FIXED1 bit (SDM Vol.3 A.8). */
	const struct cpu_model *m = parse_ok("skylake-lite,-pcid");
	ck_assert(!cpu_model_has(m, 1, 2, 17));
	ck_assert(cpu_model_has(m, 7, 1, 10));                  /* INVPCID stays */
	ck_assert(cpu_model_vmx_cap(m, MSR_VMX_CR4_FIXED1, &v));
	ck_assert_uint_eq(v & CR4_PCIDE, 0);
	ck_assert_uint_ne(v & CR4_SMEP, 0);
	ck_assert_str_eq(m->name, "skylake-lite,-pcid");
	cpu_model_release(m);
	/* -x2apic: leaf 1 ECX[21] only. */
	m = parse_ok("skylake-lite,-x2apic");
	ck_assert(!cpu_model_has(m, 1, 2, 21) && cpu_model_has(m, 1, 3, 9) && cpu_model_has(m, 1, 2, 24));
	cpu_model_release(m);
	/* -vmx: no VMX bit, no capability MSRs, no extension to install. */
	m = parse_ok("core2,-vmx");
	ck_assert(!cpu_model_has_hv(m, true, 1, 2, 5));
	ck_assert_int_eq(m->hv_ext, HV_EXT_NONE);
	ck_assert(!cpu_model_vmx_cap(m, MSR_VMX_BASIC, &v));
	cpu_model_release(m);
	/* -npt: Fn8000_000A_EDX[0] clear, SVM and its other features stay. */
	m = parse_ok("epyc-lite,-npt");
	cpu_model_cpuid_hv(m, true, 0x8000000a, 0, r);
	ck_assert_uint_eq(r[3] & 1, 0);
	ck_assert_uint_ne(r[3] & (1u << 3), 0);
	ck_assert_int_eq(m->hv_ext, HV_EXT_SVM);
	cpu_model_release(m);
	/* -svm: leaf 8000000AH reserved (APM3 E.4.9). */
	m = parse_ok("epyc-lite,-svm");
	cpu_model_cpuid_hv(m, true, 0x8000000a, 0, r);
	ck_assert_uint_eq(r[0] | r[1] | r[2] | r[3], 0);
	ck_assert(!cpu_model_has_hv(m, true, 0x80000001, 2, 2));
	ck_assert_int_eq(m->hv_ext, HV_EXT_NONE);
	cpu_model_release(m);
	/* AMD's 80000001H:EDX copy of a leaf-1 bit follows it (APM3 E.4.2). */
	m = parse_ok("epyc-lite,-pge");
	ck_assert(!cpu_model_has(m, 1, 3, 13) && !cpu_model_has(m, 0x80000001, 3, 13));
	cpu_model_release(m);
	/* phys-bits: CPUID 80000008H:EAX[7:0], the linear width kept. */
	m = parse_ok("skylake-lite,phys-bits=36,-pcid,+pcid");
	cpu_model_cpuid(m, 0x80000008, 0, r);
	ck_assert_uint_eq(r[0] & 0xffff, 0x3024);
	ck_assert(cpu_model_has(m, 1, 2, 17));
	cpu_model_release(m);
	/* -avx: leaf 1 ECX[28] and the AVX state component of leaf 0DH (SDM Vol.1
	 * 13.3: XCR0[2] only where CPUID.(EAX=0DH,ECX=0):EAX[2] is 1). */
	m = parse_ok("skylake-lite,-avx");
	ck_assert(!cpu_model_has(m, 1, 2, 28));
	cpu_model_cpuid(m, 0xd, 0, r);
	ck_assert_uint_eq(r[0], 3);
	ck_assert_uint_eq(r[2], 576);
	cpu_model_cpuid(m, 0xd, 2, r);
	ck_assert_uint_eq(r[0] | r[1], 0);
	cpu_model_release(m);
	/* +x2apic on core2: implemented (the APIC's x2APIC mode). */
	m = parse_ok("core2,+x2apic");
	ck_assert(cpu_model_has(m, 1, 2, 21));
	cpu_model_release(m);
}
END_TEST

/* Each row: a --cpu value that names nothing or a CPU no manual describes,
 * and a word the one-line reason holds. */
static const struct { const char *spec, *reason; } bad_specs[] = {
	{ "nosuch", "unknown CPU model 'nosuch'" },
	{ "nosuch,+pcid", "unknown CPU model 'nosuch'" },
	{ "skylake-lite,+frobnicate", "unknown feature 'frobnicate'" },
	{ "skylake-lite,pcid", "bad modifier 'pcid'" },
	{ "skylake-lite,", "bad modifier ''" },
	{ "skylake-lite,+svm", "cannot have svm" },
	{ "epyc-lite,+vmx", "cannot have vmx" },
	{ "skylake-lite,+npt", "is an SVM feature" },
	{ "epyc-lite,-svm,+npt", "is an SVM feature" },
	{ "epyc-lite,+avic", "does not implement 'avic'" },
	{ "skylake-lite,+monitor", "does not implement 'monitor'" },
	{ "pentium,+lm", "no CPUID leaf 80000001H" },
	{ "opteron-g3,+lm", "48 linear address bits" },
	{ "skylake-lite,-apic", "'x2apic' needs 'apic'" },
	{ "skylake-lite,-pae", "needs 'pae'" },
	{ "skylake-lite,-lm", "needs 'lm'" },
	{ "skylake-lite,-fxsr", "needs 'fxsr'" },
	{ "skylake-lite,-xsave", "'avx' needs 'xsave'" },
	{ "core2,+avx", "no AVX state component" },
	{ "skylake-lite,phys-bits=31", "out of range" },
	{ "skylake-lite,phys-bits=53", "out of range" },
	{ "skylake-lite,phys-bits=", "out of range" },
	{ "skylake-lite,phys-bits=4x", "out of range" },
	{ "pentium,phys-bits=36", "no CPUID 80000008H" },
};

START_TEST(modifiers_rejected)
{
	char err[256] = "";
	ck_assert_ptr_null(cpu_model_parse(bad_specs[_i].spec, err, sizeof(err)));
	ck_assert_msg(strstr(err, bad_specs[_i].reason), "%s: '%s'", bad_specs[_i].spec, err);
	ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

static Suite *cpu_model_suite(void)
{
	Suite *s = suite_create("cpu_model");
	TCase *t = tcase_create("lookup");
	tcase_add_test(t, find_known_and_unknown);
	tcase_add_test(t, names_unique_and_described);
	suite_add_tcase(s, t);
	t = tcase_create("cpuid");
	tcase_add_test(t, vendor_strings);
	tcase_add_test(t, brand_string);
	tcase_add_test(t, intel_out_of_range_returns_highest_basic);
	tcase_add_test(t, amd_out_of_range_returns_zero);
	tcase_add_test(t, subleaves);
	tcase_add_test(t, tsc_frequency_leaves);
	tcase_add_test(t, feature_bits);
	tcase_add_test(t, x86_64_levels);
	tcase_add_test(t, x86_64_v3_with_avx);
	tcase_add_test(t, default_model_is_64bit);
	tcase_add_test(t, core2_long_mode);
	tcase_add_test(t, hv_switch_changes_only_its_bits);
	tcase_add_test(t, describe_decodes_cpuid);
	tcase_add_test(t, feature_names_once);
	suite_add_tcase(s, t);
	t = tcase_create("modifiers");
	tcase_add_test(t, modifiers_plain_name_is_the_model);
	tcase_add_loop_test(t, modifiers_readding_changes_nothing, 0, (int)cpu_model_count);
	tcase_add_test(t, modifiers_change_cpuid_and_dependent_data);
	tcase_add_loop_test(t, modifiers_rejected, 0, (int)(sizeof(bad_specs) / sizeof(bad_specs[0])));
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(cpu_model_suite());
}
