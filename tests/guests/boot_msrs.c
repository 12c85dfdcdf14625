/* The MSRs an OS kernel reads at boot, by vendor and family (CPUID):
 *   Intel family 6: IA32_PLATFORM_ID (17H) readable; IA32_BIOS_SIGN_ID (8BH)
 *     written 0, CPUID.01H, then read: the loaded microcode's signature (SDM
 *     Vol.3 10.11.7.1; the model's revision, emu/cpu_models.c); IA32_MISC_ENABLE written
 *     back as read (Linux clears bits that way) keeps its value;
 *   Intel family 5: none of 17H/8BH (#GP);
 *   AMD: PATCH_LEVEL (8BH) readable; the legacy counters PerfEvtSel0-3
 *     (C001_0000H-3H) and PerfCtr0-3 (C001_0004H-7H, APM2 13.2.1): written
 *     values read back, a reserved select bit is #GP(0), counters keep 48 bits.
 * With CPUID MCA: IA32_MCG_CAP and each bank's CTL/STATUS (SDM Vol.3 15.3);
 * Intel family 6: IA32_MISC_ENABLE's XD bit disable hides NX (Vol.4 Table 2-2).
 * Every vendor: an MSR the part does not have stays #GP(0). */
#include "lib/guest.h"
#include "lib/msr_catch.h"

static const char tcg_no_gp[] = "QEMU TCG reads MSRs it does not know as 0, without #GP";


static void intel_family6(void)
{
	static const char why[] = "QEMU TCG has no IA32_PLATFORM_ID";
	check_quirk("IA32_PLATFORM_ID (17H) readable", (uint32_t)rd(0x17), (uint32_t)NO_FAULT, why);
	check("IA32_BIOS_SIGN_ID (8BH): write 0", (uint32_t)wr(0x8b, 0, 0), (uint32_t)NO_FAULT);
	uint32_t r[4];
	cpuid(1, r);
	check("IA32_BIOS_SIGN_ID: read after CPUID.01H", (uint32_t)rd(0x8b), (uint32_t)NO_FAULT);
	note("microcode signature 0x%x", msr_hi);
	check("IA32_BIOS_SIGN_ID bits 31:0 reserved (0)", msr_lo, 0);
	if (rd(0x1a0) == NO_FAULT) {
		uint32_t lo = msr_lo, hi = msr_hi;
		check("IA32_MISC_ENABLE written back as read", (uint32_t)wr(0x1a0, hi, lo), (uint32_t)NO_FAULT);
		(void)rd(0x1a0);
		check("IA32_MISC_ENABLE unchanged", msr_lo, lo);
	} else {
		skip("IA32_MISC_ENABLE", "not present on this model");
	}
	check_quirk("no AMD PerfEvtSel0 (C001_0000H) -> #GP", (uint32_t)rd(0xc0010000), 13, tcg_no_gp);
}

static void amd_boot(void)
{
	check_quirk("PATCH_LEVEL (8BH) readable", (uint32_t)rd(0x8b), (uint32_t)NO_FAULT,
		    "QEMU TCG answers 8BH only on Intel");
	check_quirk("no IA32_PLATFORM_ID (17H) -> #GP", (uint32_t)rd(0x17), 13, tcg_no_gp);
	if (skip_quirk("PerfEvtSel0-3/PerfCtr0-3", "QEMU TCG has no AMD legacy performance counters"))
		return;
	for (uint32_t n = 0; n < 4; n++) {
		/* EN, OS, USR, event C0h (retired instructions) + n. */
		uint32_t sel = 0x004300c0u | n;
		check("PerfEvtSel write", (uint32_t)wr(0xc0010000 + n, 0, sel), (uint32_t)NO_FAULT);
		check("PerfEvtSel read", (uint32_t)rd(0xc0010000 + n), (uint32_t)NO_FAULT);
		check("PerfEvtSel reads back", msr_lo, sel);
		check("reserved bit 21 -> #GP(0)", (uint32_t)wr(0xc0010000 + n, 0, sel | (1u << 21)), 13);
		check("reserved bit 42 -> #GP(0)", (uint32_t)wr(0xc0010000 + n, 1u << 10, sel), 13);
		(void)rd(0xc0010000 + n);
		check("PerfEvtSel unchanged by the refused writes", msr_lo, sel);
		check("PerfEvtSel disabled again", (uint32_t)wr(0xc0010000 + n, 0, 0), (uint32_t)NO_FAULT);
		check("PerfCtr write", (uint32_t)wr(0xc0010004 + n, 0xffff8000u, 0x1234u + n), (uint32_t)NO_FAULT);
		(void)rd(0xc0010004 + n);
		check("PerfCtr keeps bits 47:0", msr_hi, 0x8000);
		check("PerfCtr low half", msr_lo, 0x1234 + n);
	}
}

/* The machine-check MSRs an OS probes with CPUID.1:EDX.MCA (SDM Vol.3 15.3;
 * APM2 9.3; Linux's mce code): IA32_MCG_CAP readable, each bank's CTL takes
 * all 1s and all 0s, STATUS 0 (a non-zero write #GP(0)), the bank after the
 * last does not exist. */
static void mca_boot(void)
{
	static const char why[] = "QEMU 7.2 TCG ignores a non-zero MCi_STATUS write and reads "
				  "missing banks as 0 (SDM Vol.3 15.3.2.2: #GP)";
	check("IA32_MCG_CAP (179H) readable", (uint32_t)rd(0x179), (uint32_t)NO_FAULT);
	uint32_t banks = msr_lo & 0xff;
	note("IA32_MCG_CAP 0x%x: %u banks", msr_lo, banks);
	check_true("at least one bank, at most 32", banks >= 1 && banks <= 32);
	for (uint32_t i = 0; i < banks && i < 32; i++) {
		uint32_t b = 0x400 + 4 * i;
		check("MCi_CTL: all 1s", (uint32_t)wr(b, 0xffffffffu, 0xffffffffu), (uint32_t)NO_FAULT);
		(void)rd(b);
		check("MCi_CTL reads all 1s", msr_lo & msr_hi, 0xffffffffu);
		check("MCi_STATUS: write 0", (uint32_t)wr(b + 1, 0, 0), (uint32_t)NO_FAULT);
		check_quirk("MCi_STATUS: write 1 -> #GP", (uint32_t)wr(b + 1, 0, 1), 13, why);
		(void)wr(b + 1, 0, 0);
	}
	if (banks < 32)
		check_quirk("the bank after the last: no MCi_CTL -> #GP", (uint32_t)rd(0x400 + 4 * banks), 13, why);
}

/* IA32_MISC_ENABLE bit 34, XD Bit Disable (SDM Vol.4 Table 2-2): set, CPUID
 * stops reporting NX; cleared, NX is back. */
static void misc_enable_xd(void)
{
	uint32_t r[4];
	cpuid(0x80000000, r);
	if (r[0] < 0x80000001 || rd(0x1a0) != NO_FAULT)
		return;
	cpuid(0x80000001, r);
	if (!(r[3] & (1u << 20)))
		return;
	uint32_t lo = msr_lo, hi = msr_hi;
	static const char why[] = "QEMU 7.2 TCG's IA32_MISC_ENABLE has no effect on CPUID";
	check("IA32_MISC_ENABLE: set XD bit disable (34)", (uint32_t)wr(0x1a0, hi | 4, lo), (uint32_t)NO_FAULT);
	cpuid(0x80000001, r);
	check_quirk("  CPUID.80000001H:EDX.NX reads 0", r[3] & (1u << 20), 0, why);
	check("  cleared again", (uint32_t)wr(0x1a0, hi & ~4u, lo), (uint32_t)NO_FAULT);
	cpuid(0x80000001, r);
	check("  NX reported again", r[3] & (1u << 20), 1u << 20);
}

void guest_main(void)
{
	uint32_t r[4];
	cpuid(0, r);
	int amd = r[1] == 0x68747541u;                 /* "Auth" */
	int intel = r[1] == 0x756e6547u;               /* "Genu" */
	cpuid(1, r);
	uint32_t family = (r[0] >> 8) & 0xf;
	if (family == 0xf)
		family += (r[0] >> 20) & 0xff;     /* the extended family (SDM Vol.2 CPUID, APM3 E.3.2) */
	note("%s family %u", amd ? "AMD" : intel ? "Intel" : "other", family);
	if (!(r[3] & (1u << 5)))
		skip_all("no RDMSR/WRMSR (CPUID.1:EDX.MSR = 0)");
	if (intel && family >= 6) {      /* 6 and the NetBurst family 15 */
		intel_family6();
	} else if (intel) {
		check_quirk("family 5: no IA32_PLATFORM_ID -> #GP", (uint32_t)rd(0x17), 13, tcg_no_gp);
		check_quirk("family 5: no IA32_BIOS_SIGN_ID -> #GP", (uint32_t)rd(0x8b), 13, tcg_no_gp);
		check_quirk("family 5: no PerfEvtSel0 -> #GP", (uint32_t)rd(0xc0010000), 13, tcg_no_gp);
	} else if (amd) {
		amd_boot();
	} else {
		skip_all("neither Intel nor AMD");
	}
	if ((r[3] & (1u << 14)) && (r[3] & (1u << 7)))
		mca_boot();
	else
		check_quirk("no CPUID MCA: no IA32_MCG_CAP -> #GP", (uint32_t)rd(0x179), 13, tcg_no_gp);
	if (intel && family >= 6)
		misc_enable_xd();
	check_quirk("an MSR no part has (C001_2000H) -> #GP", (uint32_t)rd(0xc0012000), 13, tcg_no_gp);
}
