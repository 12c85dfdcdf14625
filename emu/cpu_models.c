/* The CPU models as data (the table --cpu selects from): what CPUID reports,
 * which optional features and MSRs exist, and the capability data of the part's
 * VMX or SVM. The engine that answers CPUID from these tables is emu/cpuid.c.
 *
 * Feature bits advertise only what hvemu implements today, whatever the real
 * part had (the names say which processor the leaves are shaped after):
 *   - x87 FPU, FXSR, SSE/SSE2 subset, CLFLUSH, XSAVE for x87|SSE state (all but
 *     the Pentium), no MMX;
 *   - a local APIC (devices/lapic.c, emu/apic.c) on every model but the Pentium
 *     (CPUID.1:EDX.APIC[9]; the Pentium keeps no IA32_APIC_BASE, family 5),
 *     with x2APIC mode (CPUID.1:ECX[21]) and the TSC-deadline timer (ECX[24])
 *     on "skylake-lite" and "icelake-lite" as on the real parts; the initial
 *     APIC ID (leaf 1 EBX[31:24]) and the x2APIC topology leaf 0BH are each
 *     processor's own (cpu_cpuid, emu/cpuid.c): every CPU is a package of one core;
 *   - paging (mmu/paging.c): PSE, PAE, PGE, PSE-36 and NX/XD (EFER.NXE);
 *   - DE (CR4.DE, DR4/DR5 #UD), TSC (RDTSC, CR4.TSD), MSR (RDMSR/WRMSR), CX8,
 *     CMOV, SEP (SYSENTER/SYSEXIT) and PAT (the MSR; memory types have no effect in
 *     an emulator without caches) are implemented;
 *   - long mode with SYSCALL and LAHF/SAHF in 64-bit mode (emu/syscall.c) on every
 *     model but "pentium" and "opteron-g3";
 *   - leaves 15H/16H ("skylake-lite", "icelake-lite"): the TSC frequency, which
 *     is the nominal instruction rate (--insn-rate), computed per CPU;
 *   - VMX ("core2", "nehalem-lite", "skylake-lite", "icelake-lite") and SVM ("opteron-g3",
 *     "epyc-lite") are data here (the CPUID bits, the VMX capability MSRs, leaf
 *     8000000AH), shaped after the real part, but a CPU reports them only while
 *     cpu->hv_available (emu/cpu_model.h, enum hv_ext): machine set-up sets it
 *     when it installs the hypervisor model that implements them (svm/, vmx/,
 *     machine/hypervisor.c). That model must implement every capability
 *     listed here, or the list is trimmed.
 * cpu_models[0] is the default model: "skylake-lite", a 64-bit Intel part, so a
 * user who names no model gets long mode (as with QEMU).
 */
#include <string.h>

#include "emu/cpu_model.h"
#include "emu/feature_bits.h"
#include "mmu/x86_vmx.h"

/* Pack four ASCII characters as CPUID returns them in a register (little-endian). */
#define STR4(a, b, c, d) \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

/* The feature bits by their emu/features.def names (FEATURE(), emu/feature_bits.h),
 * each implemented by hvemu:
 *   CPUID.1:EDX      the P6 set (SDM Vol.2 CPUID, Table 3-11): VME, DE, PSE, TSC,
 *                    MSR, PAE, CX8, SEP, PGE, CMOV, PAT, PSE-36; MTRR (emu/mtrr.c); APIC
 *                    (devices/lapic.c); MCE (CR4.MCE, #MC) and MCA (IA32_MCG_CAP
 *                    and the banks, emu/msr.c): the architecture exists, no
 *                    machine check is ever signalled; the x87 FPU, FXSAVE/FXRSTOR,
 *                    the SSE/SSE2 subset and CLFLUSH (emu/x87.c, emu/sse.c,
 *                    emu/xsave.c); MMX (emu/mmx.c); with CLFSH, CPUID.1:EBX[15:8] gives the line
 *                    size in 8-byte units
 *   CPUID.1:ECX      x2APIC and TSC-deadline (SDM Vol.3 10.12.1, 10.5.4.1), PCID
 *                    (CR4.PCIDE, emu/control_regs.c), CX16 (CMPXCHG16B,
 *                    emu/alu.c), XSAVE with leaf 0DH for x87|SSE state
 *                    (emu/xsave.c)
 *   CPUID.7.0:EBX    FSGSBASE (emu/syscall.c), SMEP, INVPCID, SMAP (mmu/paging.c,
 *                    control_regs.c)
 *   80000001H:ECX    LAHF64 (LAHF/SAHF in 64-bit mode)
 *   80000001H:EDX    long mode (emu/syscall.c): SYSCALL, NX/XD (SDM Vol.2 CPUID;
 *                    APM3 E.4.2), 1GB pages, RDTSCP, LM
 *   80000008H:EAX    the physical and linear address widths: 48 linear bits, the
 *                    canonical checks the 48-bit ones (SDM Vol.3 3.3.7.1), except
 *                    "icelake-lite" with LA57 (CPUID.7.0:ECX[16], 57 linear bits).
 *   01H:ECX[28]      AVX (emu/avx.c, emu/avx_sse.c) with XCR0 bit 2 in leaf 0DH on
 *                    "skylake-lite", "icelake-lite" and "epyc-lite", whose real
 *                    parts have it (SDM Vol.1 13.3: an OS enables only the
 *                    components leaf 0DH lists); not on "core2"/"nehalem-lite". */
#define HVEMU_EDX1 (FEATURE(fpu) | FEATURE(vme) | FEATURE(de) | FEATURE(pse) | FEATURE(tsc) | \
		    FEATURE(msr) | FEATURE(pae) | FEATURE(mce) | FEATURE(cx8) | FEATURE(apic) | \
		    FEATURE(sep) | FEATURE(pge) | FEATURE(mca) | FEATURE(cmov) | FEATURE(pat) | \
		    FEATURE(pse36) | FEATURE(clflush) | FEATURE(fxsr) | FEATURE(sse) | FEATURE(sse2) | \
		    FEATURE(mtrr) | FEATURE(mmx))
/* The SIMD extensions by processor class (CPUID.01H:ECX; SHA is CPUID.7.0:EBX
 * bit 29): SSE3 since the Opteron 23xx (family 10h) and Core 2, SSSE3 since Core 2 (emu/sse3.c, emu/ssse3.c); SSE4.1 since
 * Penryn (emu/sse4.c, emu/sse4_fp.c); SSE4.2 since Nehalem (PCMPGTQ, the
 * string compares of emu/sse_string.c; its CRC32 comes with the bit-manipulation
 * work on another branch); AES-NI and PCLMULQDQ since Westmere, SHA (leaf 7,
 * icelake-lite and epyc-lite) in emu/crypto.c. */
#define SIMD_CORE2 (FEATURE(pni) | FEATURE(ssse3))
#define SIMD_NEHALEM (SIMD_CORE2 | FEATURE(sse4_1) | FEATURE(sse4_2))
#define SIMD_SKYLAKE (SIMD_NEHALEM | FEATURE(aes) | FEATURE(pclmulqdq))
#define EBX1_CLFLUSH_64 (8u << 8)
/* AMD's 80000001H:EDX: the leaf-1 bits it repeats (APM3 E.4.2), and NX. */
#define AMD_EDX81 ((HVEMU_EDX1 & AMD_EDX81_ALIASES) | FEATURE(nx))
#define EDX81_LONG (FEATURE(syscall) | FEATURE(nx) | FEATURE(pdpe1gb) | FEATURE(rdtscp) | \
		    FEATURE(lm))

/* Leaf 0DH (SDM Vol.2 CPUID leaf 0DH; APM3 E.3.6): XCR0 may hold x87|SSE, both
 * areas 576 bytes (legacy region + XSAVE header); subleaf 1: no XSAVEOPT/XSAVEC/
 * XGETBV1/XSAVES. */
#define XSAVE_LEAVES_X87_SSE \
	{ .leaf = 0xd, .subleaf = 0, .indexed = true, .eax = 3, .ebx = 576, .ecx = 576 }, \
	{ .leaf = 0xd, .subleaf = 1, .indexed = true }
/* With AVX (SDM Vol.2 CPUID leaf 0DH; SDM Vol.1 13.2, Table 13-1): XCR0 may hold
 * x87|SSE|AVX; ECX the area for all of them, 832 bytes; EBX the area for what
 * XCR0 enables, written here for XCR0 = 7 and adjusted to XCR0 (emu/cpuid.c).
 * Subleaf 1 EAX: XSAVEOPT (0), XSAVEC and the compacted XRSTOR (1), XGETBV with
 * ECX = 1 (2), which Skylake, Ice Lake and Zen have; not XSAVES (3), whose
 * supervisor components (IA32_XSS) hvemu has none of. EBX: the compacted
 * area for XCR0, adjusted to XCR0 as subleaf 0's. Subleaf 2: the YMM_Hi128
 * component, 256 bytes at offset 576. */
#define XSAVE_LEAVES_AVX \
	{ .leaf = 0xd, .subleaf = 0, .indexed = true, .eax = 7, .ebx = 832, .ecx = 832 }, \
	{ .leaf = 0xd, .subleaf = 1, .indexed = true, .eax = 7, .ebx = 832 }, \
	{ .leaf = 0xd, .subleaf = 2, .indexed = true, .eax = 256, .ebx = 576 }

/* Leaves 15H and 16H (SDM Vol.2 CPUID, "Time Stamp Counter and Nominal Core
 * Crystal Clock Information Leaf", "Processor Frequency Information Leaf"):
 * the TSC frequency, which in hvemu is the nominal instruction rate (TSC =
 * instruction count; devices/clock.h), computed from cpu->tsc_hz. A model
 * lists the rows (zeros here) to have them; see tsc_leaf() below. */
#define TSC_LEAVES { .leaf = 0x15 }, { .leaf = 0x16 }

/* IA32_MISC_ENABLE on the family-6 Intel models: the bits the real part's MSR
 * table lists (SDM Vol.4 Table 2-2 and the per-family tables; "R/W" bits
 * writable, "RO" bits read-only, the rest reserved: #GP(0) on a 1).
 *   every part: 0 fast strings (1 after reset), 3 automatic thermal control,
 *     7 performance monitoring available (RO, 1 as on the parts), 11/12 BTS and
 *     PEBS unavailable (RO 1), 16 Enhanced SpeedStep enable, 18 ENABLE MONITOR
 *     FSM, 22 limit CPUID maxval, 23 xTPR message disable, 34 XD bit disable;
 *   Core 2 (Table 2-3, 06_0FH) also 10 FERR# multiplexing, 13 TM2 enable, 19
 *     adjacent cache-line prefetch disable, 20 EIST select lock (R/WO), 37 DCU
 *     prefetcher disable, 38 IDA disable, 39 IP prefetcher disable;
 *   Skylake/Ice Lake (the Sandy Bridge and later tables) also 38 turbo mode
 *     disable.
 * Effects (emu/cpu_model.h MISC_ENABLE_*): 18 = 0 hides MONITOR (which no model
 * reports), 22 limits CPUID.0:EAX (emu/system.c), 34 hides NX from CPUID and
 * makes EFER.NXE reserved (cpu_has()); the thermal, power and prefetch bits
 * have nothing to act on in an emulator and only hold their value. */
#define MISC_COMMON_RW ((1ull << 0) | (1ull << 3) | (1ull << 16) | (1ull << 18) | (1ull << 22) | \
			(1ull << 23) | (1ull << 34))
#define MISC_RESET     ((1ull << 0) | (1ull << 7) | (1ull << 11) | (1ull << 12) | (1ull << 18))
#define CORE2_MISC_ENABLE { .reset = MISC_RESET, \
			    .writable = MISC_COMMON_RW | (1ull << 10) | (1ull << 13) | (1ull << 19) | \
					(1ull << 20) | (1ull << 37) | (1ull << 38) | (1ull << 39), \
			    .write_once = 1ull << 20 }
#define SKYLAKE_MISC_ENABLE { .reset = MISC_RESET, .writable = MISC_COMMON_RW | (1ull << 38) }

/* IA32_MCG_CAP (SDM Vol.3 15.3.1.1): bits 7:0 the bank count, bit 8 MCG_CTL_P
 * (IA32_MCG_CTL exists). Core 2 and the AMD parts have MCG_CTL (SDM Vol.4 Table
 * 2-3; APM2 9.3.1.1), the later Intel client parts report 10 banks without it. */
#define MCG_CAP(banks, ctl_p) ((uint64_t)(banks) | ((ctl_p) ? 1ull << 8 : 0))

/* ---- VMX capability data (SDM Vol.3 Appendix A) ----
 * The control bits by their names in mmu/x86_vmx.h (SDM Vol.3 Tables 24-5 to
 * 24-15), as masks. */
#define PIN(c)   VMX_CTL(VMX_PIN_##c)
#define PROC(c)  VMX_CTL(VMX_PROC_##c)
#define PROC2(c) VMX_CTL(VMX_PROC2_##c)
#define EXIT(c)  VMX_CTL(VMX_EXITCTL_##c)
#define ENTRY(c) VMX_CTL(VMX_ENTRYCTL_##c)
/* A.3-A.5: bits 31:0 the allowed-0 settings (1 = the control must be 1),
 * bits 63:32 the allowed-1 settings (0 = the control must be 0). */
#define CTLS(must_be_1, may_be_1) ((uint64_t)(may_be_1) << 32 | (must_be_1))

/* A.1 IA32_VMX_BASIC: VMCS revision identifier (bits 30:0), region size (44:32),
 * memory type (53:50, 6 = write-back), INS/OUTS instruction information (54),
 * TRUE_* MSRs (55). The VMCS region's format is implementation-specific (SDM
 * Vol.3 24.2): the identifier names hvemu's layout, the same on every model, and
 * 4 KiB holds every field of vmx/vmcs_fields.def at 8 bytes each. Bit 48 (32-bit
 * VMX addresses) is 0: every VMX model has Intel 64 (A.1). */
#define HVEMU_VMCS_REVISION    0x48566d31u   /* "1mVH" */
#define BASIC_VMCS_4K          (4096ull << VMX_BASIC_VMCS_SIZE_SHIFT)
#define BASIC_MEMTYPE_WB       (VMX_BASIC_MEMTYPE_WB << VMX_BASIC_MEMTYPE_SHIFT)
/* A.6 IA32_VMX_MISC: the number of CR3-target values (24:16). */
#define MISC_CR3_TARGETS(n)    ((uint64_t)(n) << VMX_MISC_CR3_TARGETS_SHIFT)
/* A.7, A.8: CR0.PE, NE, PG fixed to 1 (SDM Vol.3 23.8); CR4.VMXE fixed to 1;
 * FIXED1 lets every bit the CPU implements be 1. */
#define CR0_FIXED0_VALUE       (CR0_PE | CR0_NE | CR0_PG)
#define CR0_FIXED1_VALUE       0xffffffffull
#define CR4_P6_BITS            (CR4_VME | CR4_PVI | CR4_TSD | CR4_DE | CR4_PSE | CR4_PAE | \
				CR4_MCE | CR4_PGE | CR4_PCE | CR4_OSFXSR | CR4_OSXMMEXCPT | CR4_VMXE)
/* A.2-A.5: the TRUE_* MSRs of a part with IA32_VMX_BASIC[55], given its
 * allowed-1 settings: they differ from the plain MSRs only in the default1
 * controls that may be 0 (CR3-load/store exiting, save/load debug controls). */
#define TRUE_CTLS(pin_may1, proc_may1, exit_may1, entry_may1)                                  \
	{ MSR_VMX_TRUE_PINBASED_CTLS, CTLS(VMX_PINBASED_DEFAULT1, (pin_may1)) },                \
	{ MSR_VMX_TRUE_PROCBASED_CTLS, CTLS(VMX_PROCBASED_DEFAULT1 &                            \
		~(PROC(CR3_LOAD_EXITING) | PROC(CR3_STORE_EXITING)), (proc_may1)) },            \
	{ MSR_VMX_TRUE_EXIT_CTLS, CTLS(VMX_EXIT_DEFAULT1 & ~EXIT(SAVE_DEBUG_CONTROLS), (exit_may1)) }, \
	{ MSR_VMX_TRUE_ENTRY_CTLS, CTLS(VMX_ENTRY_DEFAULT1 & ~ENTRY(LOAD_DEBUG_CONTROLS), (entry_may1)) }
/* A.9: bits 9:1 the highest index of any VMCS field encoding the CPU supports. */
#define VMCS_ENUM_INDEX(i)     ((uint64_t)(i) << VMX_VMCS_ENUM_INDEX_SHIFT)

/* ---- "core2": shaped after an Intel Core 2 (Merom), family 6 model 15 ----
 * Long mode as on the real part: LM, SYSCALL, NX and LAHF/SAHF in 64-bit mode
 * (SDM Vol.2 LAHF: valid in 64-bit mode "only if CPUID.80000001H:ECX.LAHF-SAHF
 * [bit 0] = 1", which the Core 2 parts report, as Linux's "lahf_lm" flag on them
 * and QEMU's "Conroe/Merom class" model show), CMPXCHG16B; no 1 GiB pages and no
 * RDTSCP (both arrived with later parts); 36 physical and 48 linear address
 * bits. XSAVE is hvemu's addition (the real part had none). */

static const struct cpuid_leaf core2_leaves[] = {
	/* Max basic leaf 0DH; "GenuineIntel" in EBX, EDX, ECX (SDM Vol.2 CPUID leaf 0). */
	{ .leaf = 0, .eax = 0xd, .ebx = STR4('G', 'e', 'n', 'u'), .edx = STR4('i', 'n', 'e', 'I'),
	  .ecx = STR4('n', 't', 'e', 'l') },
	/* EAX signature; EBX: brand index 0, one logical processor, CLFLUSH line
	 * 64 bytes, APIC ID 0. */
	{ .leaf = 1, .eax = 0x000006fb, .ebx = 0x00010000 | EBX1_CLFLUSH_64,
	  .ecx = SIMD_CORE2 | FEATURE(vmx) | FEATURE(cx16) | FEATURE(xsave), .edx = HVEMU_EDX1 },
	/* Leaf 2: one iteration (AL=1) and descriptor FFH: "use leaf 4" (SDM Table 3-12). */
	{ .leaf = 2, .eax = 0x0000ff01 },
	/* Leaf 4: deterministic cache parameters (SDM Vol.2 CPUID leaf 4):
	 * EAX type[4:0] level[7:5] self-init[8]; EBX ways-1[31:22] partitions-1[21:12]
	 * line-1[11:0]; ECX sets-1. L1D/L1I 32 KiB 8-way, L2 2 MiB 8-way, 64-byte lines. */
	{ .leaf = 4, .subleaf = 0, .indexed = true, .eax = 0x121, .ebx = 0x01c0003f, .ecx = 63 },
	{ .leaf = 4, .subleaf = 1, .indexed = true, .eax = 0x122, .ebx = 0x01c0003f, .ecx = 63 },
	{ .leaf = 4, .subleaf = 2, .indexed = true, .eax = 0x143, .ebx = 0x01c0003f, .ecx = 4095 },
	/* Leaf 7 subleaf 0: no structured extended features; EAX = max subleaf 0. */
	{ .leaf = 7, .subleaf = 0, .indexed = true },
	XSAVE_LEAVES_X87_SSE,
	{ .leaf = 0x80000000, .eax = 0x80000008 },
	{ .leaf = 0x80000001, .ecx = FEATURE(lahf_lm),
	  .edx = FEATURE(syscall) | FEATURE(nx) | FEATURE(lm) },
	/* Brand string, 48 bytes, NUL padded (SDM Vol.2 CPUID leaves 80000002H-80000004H). */
	{ .leaf = 0x80000002, .eax = STR4('h', 'v', 'e', 'm'), .ebx = STR4('u', ' ', 'C', 'o'),
	  .ecx = STR4('r', 'e', ' ', '2'), .edx = STR4(' ', 'c', 'l', 'a') },
	{ .leaf = 0x80000003, .eax = STR4('s', 's', ' ', 'C'), .ebx = STR4('P', 'U', 0, 0) },
	{ .leaf = 0x80000004 },
	/* L2: 2048 KiB, 8-way (encoding 6), 64-byte lines (SDM Vol.2 CPUID 80000006H). */
	{ .leaf = 0x80000006, .ecx = 0x08006040 },
	/* EAX[7:0] physical 36 bits, EAX[15:8] linear 48 bits. */
	{ .leaf = 0x80000008, .eax = 0x00003024 },
};

/* Merom's VMX: the first VT-x generation with Intel 64. No TRUE_* MSRs, so the
 * default1 controls (CR3-load/store exiting, save/load debug controls) must be
 * 1; no virtual NMIs, preemption timer, monitor trap flag or secondary controls
 * (no EPT, VPID or unrestricted guest; the part's one secondary control,
 * "virtualize APIC accesses", needs APIC virtualization, which hvemu lacks), hence no
 * 48BH, 48CH or 491H. */
static const struct model_msr core2_vmx_caps[] = {
	/* A.1: hvemu's VMCS layout, 4 KiB regions, WB, INS/OUTS info; no TRUE_* MSRs. */
	{ MSR_VMX_BASIC, HVEMU_VMCS_REVISION | BASIC_VMCS_4K | BASIC_MEMTYPE_WB |
			 VMX_BASIC_INS_OUTS_INFO },
	/* A.3.1: external-interrupt and NMI exiting. */
	{ MSR_VMX_PINBASED_CTLS, CTLS(VMX_PINBASED_DEFAULT1,
		VMX_PINBASED_DEFAULT1 | PIN(EXT_INTR_EXITING) | PIN(NMI_EXITING)) },
	/* A.3.2: the exiting controls of the first generation, TPR shadow and
	 * CR8 exiting (Intel 64), I/O and MSR bitmaps. */
	{ MSR_VMX_PROCBASED_CTLS, CTLS(VMX_PROCBASED_DEFAULT1,
		VMX_PROCBASED_DEFAULT1 | PROC(INTR_WINDOW_EXITING) | PROC(TSC_OFFSETTING) |
		PROC(HLT_EXITING) | PROC(INVLPG_EXITING) | PROC(MWAIT_EXITING) | PROC(RDPMC_EXITING) |
		PROC(RDTSC_EXITING) |
		PROC(CR8_LOAD_EXITING) | PROC(CR8_STORE_EXITING) | PROC(TPR_SHADOW) |
		PROC(MOV_DR_EXITING) | PROC(UNCOND_IO_EXITING) | PROC(IO_BITMAPS) | PROC(MSR_BITMAPS) |
		PROC(MONITOR_EXITING) | PROC(PAUSE_EXITING)) },
	/* A.4.1: 64-bit host, acknowledge interrupt on exit. */
	{ MSR_VMX_EXIT_CTLS, CTLS(VMX_EXIT_DEFAULT1,
		VMX_EXIT_DEFAULT1 | EXIT(HOST_ADDR_SPACE_SIZE) | EXIT(ACK_INTR_ON_EXIT)) },
	/* A.5: IA-32e mode guest. */
	{ MSR_VMX_ENTRY_CTLS, CTLS(VMX_ENTRY_DEFAULT1, VMX_ENTRY_DEFAULT1 | ENTRY(IA32E_MODE_GUEST)) },
	/* A.6: the HLT activity state, 4 CR3-target values, 512-entry MSR lists
	 * (bits 27:25 = 0), MSEG revision 0 (no dual-monitor SMM treatment). */
	{ MSR_VMX_MISC, VMX_MISC_ACTIVITY_HLT | MISC_CR3_TARGETS(4) },
	/* A.7 */
	{ MSR_VMX_CR0_FIXED0, CR0_FIXED0_VALUE },
	{ MSR_VMX_CR0_FIXED1, CR0_FIXED1_VALUE },
	/* A.8: the model's CR4 bits. */
	{ MSR_VMX_CR4_FIXED0, CR4_VMXE },
	{ MSR_VMX_CR4_FIXED1, CR4_P6_BITS | CR4_OSXSAVE },
	/* A.9: guest IA32_SYSENTER_CS (482AH) is the highest-index field without
	 * a preemption timer. */
	{ MSR_VMX_VMCS_ENUM, VMCS_ENUM_INDEX(0x15) },
};

static const struct cpu_model model_core2 = {
	.name = "core2",
	.description = "Intel Core 2 class, 64-bit (GenuineIntel, family 6 model 15)",
	.vendor = VENDOR_INTEL,
	.signature = 0x000006fb,
	.cpuid = core2_leaves,
	.cpuid_count = sizeof(core2_leaves) / sizeof(core2_leaves[0]),
	.quirks = 0,
	.hv_ext = HV_EXT_VMX,
	.vmx_caps = core2_vmx_caps,
	.vmx_cap_count = sizeof(core2_vmx_caps) / sizeof(core2_vmx_caps[0]),
	.misc_enable = CORE2_MISC_ENABLE,
	.mcg_cap = MCG_CAP(6, true),
	.microcode_rev = 0xba,            /* a public Intel update for 6FBH */
};

/* ---- "opteron-g3": shaped after an AMD Opteron 23xx (Barcelona), family 10h ---- */

/* Family 10h: base family FH + extended family 1 (APM3 E.3.2), model 2, stepping 2. */
#define OPTERON_SIG 0x00100f22

static const struct cpuid_leaf opteron_leaves[] = {
	/* "AuthenticAMD" (APM3 E.3.1). Only leaf 1 is defined among the basic leaves. */
	{ .leaf = 0, .eax = 1, .ebx = STR4('A', 'u', 't', 'h'), .edx = STR4('e', 'n', 't', 'i'),
	  .ecx = STR4('c', 'A', 'M', 'D') },
	/* K10 (family 10h) brought ABM: POPCNT (leaf 1) and LZCNT (80000001H). */
	{ .leaf = 1, .eax = OPTERON_SIG, .ebx = 0x00010000 | EBX1_CLFLUSH_64, .ecx = FEATURE(pni) | FEATURE(popcnt),
	  .edx = HVEMU_EDX1 },
	{ .leaf = 0x80000000, .eax = 0x8000000a, .ebx = STR4('A', 'u', 't', 'h'),
	  .edx = STR4('e', 'n', 't', 'i'), .ecx = STR4('c', 'A', 'M', 'D') },
	{ .leaf = 0x80000001, .eax = OPTERON_SIG, .ecx = FEATURE(svm) | FEATURE(abm), .edx = AMD_EDX81 },
	{ .leaf = 0x80000002, .eax = STR4('h', 'v', 'e', 'm'), .ebx = STR4('u', ' ', 'O', 'p'),
	  .ecx = STR4('t', 'e', 'r', 'o'), .edx = STR4('n', ' ', 'c', 'l') },
	{ .leaf = 0x80000003, .eax = STR4('a', 's', 's', ' '), .ebx = STR4('C', 'P', 'U', 0) },
	{ .leaf = 0x80000004 },
	/* L1 TLBs and caches (APM3 E.4.4): EAX 2M/4M TLB, EBX 4K TLB (FFH = fully
	 * associative, 8/32 entries); ECX/EDX L1D/L1I: 64 KiB, 2-way, 1 line/tag, 64 B. */
	{ .leaf = 0x80000005, .eax = 0xff08ff08, .ebx = 0xff20ff20, .ecx = 0x40020140,
	  .edx = 0x40020140 },
	/* L2 (APM3 E.4.5): 512 KiB, 16-way (encoding 8), 1 line/tag, 64 B; no L3. */
	{ .leaf = 0x80000006, .ecx = 0x02008140 },
	/* 36 physical and 32 linear address bits; one core (NC = 0). */
	{ .leaf = 0x80000008, .eax = 0x00002024 },
	/* SVM (APM3 E.4.9): revision 1, 64 ASIDs; EDX: nested paging and SVM lock,
	 * as family 10h revision B reports; its LBR virtualization (1) is
	 * left out (hvemu has no last-branch recording). */
	{ .leaf = 0x8000000a, .eax = 1, .ebx = 64, .edx = FEATURE(npt) | FEATURE(svm_lock) },
};

static const struct cpu_model model_opteron_g3 = {
	.name = "opteron-g3",
	.description = "AMD Opteron 23xx class, 32-bit (AuthenticAMD, family 10h)",
	.vendor = VENDOR_AMD,
	.signature = OPTERON_SIG,
	.cpuid = opteron_leaves,
	.cpuid_count = sizeof(opteron_leaves) / sizeof(opteron_leaves[0]),
	.quirks = 0,
	.hv_ext = HV_EXT_SVM,
	.mcg_cap = MCG_CAP(6, true),      /* family 10h: six banks (APM2 9.3.1.1) */
	.amd_cfg = &amd_cfg_fam10h,       /* its configuration MSRs (emu/amd_cfg_msrs.c) */
};

/* ---- "pentium": an Intel P54C-like part without SEP, PAT, CMOV or VMX ---- */

static const struct cpuid_leaf pentium_leaves[] = {
	{ .leaf = 0, .eax = 1, .ebx = STR4('G', 'e', 'n', 'u'), .edx = STR4('i', 'n', 'e', 'I'),
	  .ecx = STR4('n', 't', 'e', 'l') },
	/* Family 5 model 2 stepping 12; FPU, DE, PSE, TSC, MSR, CX8 only. */
	{ .leaf = 1, .eax = 0x0000052c,
	  .edx = FEATURE(fpu) | FEATURE(de) | FEATURE(pse) | FEATURE(tsc) | FEATURE(msr) | FEATURE(cx8) },
};

static const struct cpu_model model_pentium = {
	.name = "pentium",
	.description = "Intel Pentium class, 32-bit (GenuineIntel, family 5)",
	.vendor = VENDOR_INTEL,
	.signature = 0x0000052c,
	.cpuid = pentium_leaves,
	.cpuid_count = sizeof(pentium_leaves) / sizeof(pentium_leaves[0]),
	.quirks = 0,
	.hv_ext = HV_EXT_NONE,
};

/* ---- VMX of the Skylake and Ice Lake models ----
 * Shaped after the parts, less what needs hardware hvemu does not model: of
 * APIC virtualization only virtual-interrupt delivery and posted interrupts
 * (vmx/virtual_apic.c), no PML, VMCS
 * shadowing, EPT-violation #VE, TSC scaling, XSAVES, PT or SGX controls, no
 * PERF_GLOBAL_CTRL or BNDCFGS load/save (no counters, no MPX), no SMM
 * (dual-monitor treatment, SMBASE) and no wait-for-SIPI activity state. */

/* A.3.1: external-interrupt and NMI exiting, virtual NMIs, preemption timer,
 * process posted interrupts (SDM Vol.3 29.6, vmx/virtual_apic.c). */
#define SKYLAKE_PIN_MAY1 (VMX_PINBASED_DEFAULT1 | PIN(EXT_INTR_EXITING) | PIN(NMI_EXITING) | \
			  PIN(VIRTUAL_NMIS) | PIN(PREEMPTION_TIMER) | PIN(POSTED_INTERRUPTS))
/* A.3.2: every primary control but tertiary controls. */
#define SKYLAKE_PROC_MAY1 (VMX_PROCBASED_DEFAULT1 | PROC(INTR_WINDOW_EXITING) | \
		PROC(TSC_OFFSETTING) | PROC(HLT_EXITING) | PROC(INVLPG_EXITING) | PROC(MWAIT_EXITING) | \
		PROC(RDPMC_EXITING) | PROC(RDTSC_EXITING) | PROC(CR8_LOAD_EXITING) | \
		PROC(CR8_STORE_EXITING) | PROC(TPR_SHADOW) | PROC(NMI_WINDOW_EXITING) | \
		PROC(MOV_DR_EXITING) | PROC(UNCOND_IO_EXITING) | PROC(IO_BITMAPS) | \
		PROC(MONITOR_TRAP_FLAG) | PROC(MSR_BITMAPS) | PROC(MONITOR_EXITING) | \
		PROC(PAUSE_EXITING) | PROC(SECONDARY_CONTROLS))
/* A.4.1: 64-bit host, acknowledge interrupt, PAT and EFER save/load, save the
 * preemption timer. */
#define SKYLAKE_EXIT_MAY1 (VMX_EXIT_DEFAULT1 | EXIT(HOST_ADDR_SPACE_SIZE) | \
		EXIT(ACK_INTR_ON_EXIT) | EXIT(SAVE_PAT) | EXIT(LOAD_PAT) | EXIT(SAVE_EFER) | \
		EXIT(LOAD_EFER) | EXIT(SAVE_PREEMPTION_TIMER))
/* A.5: IA-32e mode guest, load PAT and EFER. */
#define SKYLAKE_ENTRY_MAY1 (VMX_ENTRY_DEFAULT1 | ENTRY(IA32E_MODE_GUEST) | ENTRY(LOAD_PAT) | \
			    ENTRY(LOAD_EFER))
/* A.10: execute-only translations, 4-level walks, UC and WB paging structures,
 * 2 MiB and 1 GiB pages, accessed/dirty flags, advanced EPT-violation
 * information, INVEPT single- and all-context; INVVPID of all four types. */
#define SKYLAKE_EPT_VPID (EPT_CAP_EXEC_ONLY | EPT_CAP_WALK4 | EPT_CAP_UC | EPT_CAP_WB | \
		EPT_CAP_2M | EPT_CAP_1G | EPT_CAP_INVEPT | EPT_CAP_AD | EPT_CAP_ADV_INFO | \
		EPT_CAP_INVEPT_SINGLE | EPT_CAP_INVEPT_ALL | VPID_CAP_INVVPID | \
		VPID_CAP_INVVPID_ADDRESS | VPID_CAP_INVVPID_SINGLE | VPID_CAP_INVVPID_ALL | \
		VPID_CAP_INVVPID_SINGLE_NG)

/* The capability MSRs of a Skylake-class part whose CR4 bits are cr4 and EPT
 * capabilities ept_vpid. The TRUE_* MSRs differ from the others only in the
 * default1 controls that may be 0 (A.2): CR3-load/store exiting, save/load
 * debug controls. */
#define SKYLAKE_VMX_CAPS(cr4, ept_vpid)                                                         \
	/* A.1: hvemu's VMCS layout, 4 KiB regions, WB, INS/OUTS info, TRUE_* MSRs. */          \
	{ MSR_VMX_BASIC, HVEMU_VMCS_REVISION | BASIC_VMCS_4K | BASIC_MEMTYPE_WB |               \
			 VMX_BASIC_INS_OUTS_INFO | VMX_BASIC_TRUE_CTLS },                       \
	/* A.3.1 */                                                                             \
	{ MSR_VMX_PINBASED_CTLS, CTLS(VMX_PINBASED_DEFAULT1, SKYLAKE_PIN_MAY1) },               \
	/* A.3.2 */                                                                             \
	{ MSR_VMX_PROCBASED_CTLS, CTLS(VMX_PROCBASED_DEFAULT1, SKYLAKE_PROC_MAY1) },            \
	/* A.4.1 */                                                                             \
	{ MSR_VMX_EXIT_CTLS, CTLS(VMX_EXIT_DEFAULT1, SKYLAKE_EXIT_MAY1) },                      \
	/* A.5 */                                                                               \
	{ MSR_VMX_ENTRY_CTLS, CTLS(VMX_ENTRY_DEFAULT1, SKYLAKE_ENTRY_MAY1) },                   \
	/* A.6: the timer counts every 2^5 TSC ticks (bits 4:0; hvemu's TSC is the              \
	 * instruction count), VM exits store EFER.LMA in "IA-32e mode guest"                   \
	 * (required with unrestricted guest), HLT, shutdown and wait-for-SIPI activity states, \
	 * 4 CR3 targets, 512-entry MSR lists, VMWRITE to exit-information fields,              \
	 * injection of software events with instruction length 0; MSEG revision 0. */          \
	{ MSR_VMX_MISC, 5 | VMX_MISC_STORE_LMA | VMX_MISC_ACTIVITY_HLT | VMX_MISC_ACTIVITY_SHUTDOWN | \
			VMX_MISC_ACTIVITY_WAIT_SIPI | MISC_CR3_TARGETS(4) | VMX_MISC_VMWRITE_ANY_FIELD | \
			VMX_MISC_INJECT_ZERO_LENGTH },                                                  \
	/* A.7 */                                                                               \
	{ MSR_VMX_CR0_FIXED0, CR0_FIXED0_VALUE },                                               \
	{ MSR_VMX_CR0_FIXED1, CR0_FIXED1_VALUE },                                               \
	/* A.8 */                                                                               \
	{ MSR_VMX_CR4_FIXED0, CR4_VMXE },                                                       \
	{ MSR_VMX_CR4_FIXED1, (cr4) },                                                          \
	/* A.9: the VMX-preemption timer value (482EH) has the highest index. */                \
	{ MSR_VMX_VMCS_ENUM, VMCS_ENUM_INDEX(0x17) },                                           \
	/* A.3.3: EPT, descriptor-table exiting, RDTSCP, VPID, WBINVD exiting,                  \
	 * unrestricted guest, virtual-interrupt delivery (29.2), PAUSE-loop exiting,           \
	 * INVPCID, VM functions, VMCS shadowing, PML (the models have EPT A/D), virtualize  \
	 * APIC accesses, APIC-register virtualization and virtualize x2APIC mode (29.4, 29.5), \
	 * RDRAND and RDSEED exiting (25.1.3). */                                                \
	{ MSR_VMX_PROCBASED_CTLS2, CTLS(0, PROC2(EPT) | PROC2(DESC_TABLE_EXITING) |             \
			PROC2(RDTSCP) | PROC2(VPID) | PROC2(WBINVD_EXITING) | PROC2(UNRESTRICTED_GUEST) | \
			PROC2(VIRTUAL_INTR_DELIVERY) | PROC2(PAUSE_LOOP_EXITING) | PROC2(INVPCID) | \
			PROC2(VM_FUNCTIONS) | PROC2(VMCS_SHADOWING) | PROC2(PML) |              \
			PROC2(VIRTUALIZE_APIC) | PROC2(APIC_REGISTER_VIRT) | PROC2(VIRTUALIZE_X2APIC) | \
			PROC2(RDRAND_EXITING) | PROC2(RDSEED_EXITING)) },                       \
	/* A.10 */                                                                              \
	{ MSR_VMX_EPT_VPID_CAP, (ept_vpid) },                                                   \
	TRUE_CTLS(SKYLAKE_PIN_MAY1, SKYLAKE_PROC_MAY1, SKYLAKE_EXIT_MAY1, SKYLAKE_ENTRY_MAY1), \
	/* A.11: EPTP switching. */                                                             \
	{ MSR_VMX_VMFUNC, VMX_VMFUNC_EPTP_SWITCHING }

/* CR4 bits of the 64-bit Intel models (SDM Vol.3 2.5; emu/control_regs.c). */
#define CR4_SKYLAKE_BITS (CR4_P6_BITS | CR4_PCIDE | CR4_OSXSAVE | CR4_FSGSBASE | CR4_SMEP | CR4_SMAP)

/* The scalar instructions of Haswell/Broadwell and later Intel parts and of
 * AMD Zen (issue 21): MOVBE, POPCNT, RDRAND in leaf 1 ECX; BMI1, BMI2, RDSEED,
 * ADX in leaf 7 EBX; LZCNT (ABM) in leaf 80000001H ECX. SSE4.2 (CRC32) waits
 * for its string instructions. */
#define SCALAR_ECX1 (FEATURE(movbe) | FEATURE(popcnt) | FEATURE(rdrand))
#define SCALAR_EBX7 (FEATURE(bmi1) | FEATURE(bmi2) | FEATURE(rdseed) | FEATURE(adx))

/* The VEX-only SIMD extensions of Haswell and later Intel parts and of Zen
 * (emu/avx_permute.c, emu/avx_gather.c, emu/fma.c, emu/f16c.c): FMA and F16C
 * in leaf 1 ECX, AVX2 in leaf 7 EBX. With AVX itself (leaf 1 ECX[28], the VEX
 * forms of SSE) they make the models x86-64-v3. */
#define V3_ECX1 (FEATURE(fma) | FEATURE(f16c))
#define V3_EBX7 FEATURE(avx2)

/* "skylake-lite": shaped after an Intel Skylake client part (family 6 model 5EH,
 * stepping 3); the SDM's leaf 80000001H reports only LAHF64 in ECX and
 * SYSCALL/XD/1GB/RDTSCP/LM in EDX (SDM Vol.2 CPUID, Table 3-8). */
#define SKYLAKE_SIG 0x000506e3

static const struct cpuid_leaf skylake_leaves[] = {
	{ .leaf = 0, .eax = 0x16, .ebx = STR4('G', 'e', 'n', 'u'), .edx = STR4('i', 'n', 'e', 'I'),
	  .ecx = STR4('n', 't', 'e', 'l') },
	{ .leaf = 1, .eax = SKYLAKE_SIG, .ebx = 0x00010000 | EBX1_CLFLUSH_64,
	  .ecx = SIMD_SKYLAKE | FEATURE(vmx) | FEATURE(cx16) | FEATURE(pcid) | FEATURE(x2apic) |
		 FEATURE(tsc_deadline_timer) | FEATURE(xsave) | FEATURE(avx) | SCALAR_ECX1 | V3_ECX1,
	  .edx = HVEMU_EDX1 },
	{ .leaf = 2, .eax = 0x0000ff01 },
	/* L1D/L1I 32 KiB 8-way, L2 256 KiB 4-way, 64-byte lines (leaf 4 as for core2). */
	{ .leaf = 4, .subleaf = 0, .indexed = true, .eax = 0x121, .ebx = 0x01c0003f, .ecx = 63 },
	{ .leaf = 4, .subleaf = 1, .indexed = true, .eax = 0x122, .ebx = 0x01c0003f, .ecx = 63 },
	{ .leaf = 4, .subleaf = 2, .indexed = true, .eax = 0x143, .ebx = 0x00c0003f, .ecx = 1023 },
	{ .leaf = 7, .subleaf = 0, .indexed = true,
	  .ebx = FEATURE(fsgsbase) | FEATURE(smep) | FEATURE(invpcid) | FEATURE(smap) | SCALAR_EBX7 | V3_EBX7 },
	XSAVE_LEAVES_AVX,
	TSC_LEAVES,
	{ .leaf = 0x80000000, .eax = 0x80000008 },
	{ .leaf = 0x80000001, .ecx = FEATURE(lahf_lm) | FEATURE(abm), .edx = EDX81_LONG },
	{ .leaf = 0x80000002, .eax = STR4('h', 'v', 'e', 'm'), .ebx = STR4('u', ' ', 'S', 'k'),
	  .ecx = STR4('y', 'l', 'a', 'k'), .edx = STR4('e', ' ', 'c', 'l') },
	{ .leaf = 0x80000003, .eax = STR4('a', 's', 's', ' '), .ebx = STR4('C', 'P', 'U', 0) },
	{ .leaf = 0x80000004 },
	{ .leaf = 0x80000006, .ecx = 0x01006040 },
	/* EAX[7:0] physical 39 bits, EAX[15:8] linear 48 bits. */
	{ .leaf = 0x80000008, .eax = 0x00003027 },
};

static const struct model_msr skylake_vmx_caps[] = {
	SKYLAKE_VMX_CAPS(CR4_SKYLAKE_BITS, SKYLAKE_EPT_VPID),
};

static const struct cpu_model model_skylake_lite = {
	.name = "skylake-lite",
	.description = "Intel Skylake class, 64-bit (GenuineIntel, family 6 model 94)",
	.vendor = VENDOR_INTEL,
	.signature = SKYLAKE_SIG,
	.cpuid = skylake_leaves,
	.cpuid_count = sizeof(skylake_leaves) / sizeof(skylake_leaves[0]),
	.quirks = 0,
	.hv_ext = HV_EXT_VMX,
	.vmx_caps = skylake_vmx_caps,
	.vmx_cap_count = sizeof(skylake_vmx_caps) / sizeof(skylake_vmx_caps[0]),
	.misc_enable = SKYLAKE_MISC_ENABLE,
	.mcg_cap = MCG_CAP(10, false),
	/* A public Intel update for 506E3H; Linux's TSC-deadline errata table
	 * (arch/x86/kernel/apic/apic.c) wants at least B2H on this model. */
	.microcode_rev = 0xf0,
};

/* "icelake-lite": shaped after an Intel Ice Lake server part (family 6 model 6AH,
 * stepping 6) for 5-level paging: skylake-lite plus LA57 (CPUID.7.0:ECX[16];
 * CR4.LA57, SDM Vol.3 4.5) with 57 linear and 46 physical address bits, and
 * 5-level EPT walks (A.10 bit 7). */
#define ICELAKE_SIG 0x000606a6

static const struct cpuid_leaf icelake_leaves[] = {
	{ .leaf = 0, .eax = 0x16, .ebx = STR4('G', 'e', 'n', 'u'), .edx = STR4('i', 'n', 'e', 'I'),
	  .ecx = STR4('n', 't', 'e', 'l') },
	{ .leaf = 1, .eax = ICELAKE_SIG, .ebx = 0x00010000 | EBX1_CLFLUSH_64,
	  .ecx = SIMD_SKYLAKE | FEATURE(vmx) | FEATURE(cx16) | FEATURE(pcid) | FEATURE(x2apic) |
		 FEATURE(tsc_deadline_timer) | FEATURE(xsave) | FEATURE(avx) | SCALAR_ECX1 | V3_ECX1,
	  .edx = HVEMU_EDX1 },
	{ .leaf = 2, .eax = 0x0000ff01 },
	/* L1D 48 KiB 12-way, L1I 32 KiB 8-way, L2 1.25 MiB 20-way, 64-byte lines. */
	{ .leaf = 4, .subleaf = 0, .indexed = true, .eax = 0x121, .ebx = 0x02c0003f, .ecx = 63 },
	{ .leaf = 4, .subleaf = 1, .indexed = true, .eax = 0x122, .ebx = 0x01c0003f, .ecx = 63 },
	{ .leaf = 4, .subleaf = 2, .indexed = true, .eax = 0x143, .ebx = 0x04c0003f, .ecx = 1023 },
	{ .leaf = 7, .subleaf = 0, .indexed = true,
	  .ebx = FEATURE(fsgsbase) | FEATURE(smep) | FEATURE(invpcid) | FEATURE(smap) | FEATURE(sha_ni) |
		 SCALAR_EBX7 | V3_EBX7,
	  .ecx = FEATURE(la57) | FEATURE(rdpid) },
	XSAVE_LEAVES_AVX,
	TSC_LEAVES,
	{ .leaf = 0x80000000, .eax = 0x80000008 },
	{ .leaf = 0x80000001, .ecx = FEATURE(lahf_lm) | FEATURE(abm), .edx = EDX81_LONG },
	{ .leaf = 0x80000002, .eax = STR4('h', 'v', 'e', 'm'), .ebx = STR4('u', ' ', 'I', 'c'),
	  .ecx = STR4('e', ' ', 'L', 'a'), .edx = STR4('k', 'e', ' ', 'c') },
	{ .leaf = 0x80000003, .eax = STR4('l', 'a', 's', 's'), .ebx = STR4(' ', 'C', 'P', 'U') },
	{ .leaf = 0x80000004 },
	{ .leaf = 0x80000006, .ecx = 0x05008040 },
	/* EAX[7:0] physical 46 bits, EAX[15:8] linear 57 bits. */
	{ .leaf = 0x80000008, .eax = 0x0000392e },
};

static const struct model_msr icelake_vmx_caps[] = {
	SKYLAKE_VMX_CAPS(CR4_SKYLAKE_BITS | CR4_LA57, SKYLAKE_EPT_VPID | EPT_CAP_WALK5),
};

static const struct cpu_model model_icelake_lite = {
	.name = "icelake-lite",
	.description = "Intel Ice Lake server class, 64-bit (GenuineIntel, family 6 model 106)",
	.vendor = VENDOR_INTEL,
	.signature = ICELAKE_SIG,
	.cpuid = icelake_leaves,
	.cpuid_count = sizeof(icelake_leaves) / sizeof(icelake_leaves[0]),
	.quirks = 0,
	.hv_ext = HV_EXT_VMX,
	.vmx_caps = icelake_vmx_caps,
	.vmx_cap_count = sizeof(icelake_vmx_caps) / sizeof(icelake_vmx_caps[0]),
	.misc_enable = SKYLAKE_MISC_ENABLE,
	.mcg_cap = MCG_CAP(10, false),
	.microcode_rev = 0x0d0003f5,      /* Intel's microcode-20250211 for 606A6H */
};

/* ---- "nehalem-lite": shaped after an Intel Nehalem (Core i7 9xx, family 6
 * model 1AH, stepping 5) ----
 * The first VT-x generation with EPT and VPID, before unrestricted guest (a
 * guest must run paged, in protected mode, as KVM's "ept but no
 * unrestricted_guest" hosts ran), with the TRUE_* MSRs. The CPUID side is
 * core2's plus RDTSCP and 40 physical address bits. Left out as on the other
 * models where hvemu lacks the hardware: APIC-access virtualization,
 * the wait-for-SIPI activity state. Also left out, as the part lacked them: the
 * preemption timer's use by this model, descriptor-table and WBINVD exiting,
 * PAUSE-loop exiting, EPT A/D flags, 1 GiB EPT pages, INS/OUTS instruction
 * information (IA32_VMX_BASIC[54]), VMWRITE to exit-information fields. */
#define NEHALEM_SIG 0x000106a5
static const struct cpuid_leaf nehalem_leaves[] = {
	{ .leaf = 0, .eax = 0xd, .ebx = STR4('G', 'e', 'n', 'u'), .edx = STR4('i', 'n', 'e', 'I'),
	  .ecx = STR4('n', 't', 'e', 'l') },
	{ .leaf = 1, .eax = NEHALEM_SIG, .ebx = 0x00010000 | EBX1_CLFLUSH_64,
	  .ecx = SIMD_NEHALEM | FEATURE(vmx) | FEATURE(cx16) | FEATURE(xsave) | FEATURE(popcnt), .edx = HVEMU_EDX1 },
	{ .leaf = 2, .eax = 0x0000ff01 },
	/* L1D/L1I 32 KiB 8-way, L2 256 KiB 8-way, 64-byte lines. */
	{ .leaf = 4, .subleaf = 0, .indexed = true, .eax = 0x121, .ebx = 0x01c0003f, .ecx = 63 },
	{ .leaf = 4, .subleaf = 1, .indexed = true, .eax = 0x122, .ebx = 0x01c0003f, .ecx = 63 },
	{ .leaf = 4, .subleaf = 2, .indexed = true, .eax = 0x143, .ebx = 0x01c0003f, .ecx = 511 },
	{ .leaf = 7, .subleaf = 0, .indexed = true },
	XSAVE_LEAVES_X87_SSE,
	{ .leaf = 0x80000000, .eax = 0x80000008 },
	{ .leaf = 0x80000001, .ecx = FEATURE(lahf_lm),
	  .edx = FEATURE(syscall) | FEATURE(nx) | FEATURE(rdtscp) | FEATURE(lm) },
	{ .leaf = 0x80000002, .eax = STR4('h', 'v', 'e', 'm'), .ebx = STR4('u', ' ', 'N', 'e'),
	  .ecx = STR4('h', 'a', 'l', 'e'), .edx = STR4('m', ' ', 'c', 'l') },
	{ .leaf = 0x80000003, .eax = STR4('a', 's', 's', ' '), .ebx = STR4('C', 'P', 'U', 0) },
	{ .leaf = 0x80000004 },
	{ .leaf = 0x80000006, .ecx = 0x01006040 },
	/* EAX[7:0] physical 40 bits, EAX[15:8] linear 48 bits. */
	{ .leaf = 0x80000008, .eax = 0x00003028 },
};
#define NEHALEM_PIN_MAY1 (VMX_PINBASED_DEFAULT1 | PIN(EXT_INTR_EXITING) | PIN(NMI_EXITING) | \
			  PIN(VIRTUAL_NMIS))
#define NEHALEM_PROC_MAY1 (VMX_PROCBASED_DEFAULT1 | PROC(INTR_WINDOW_EXITING) | \
		PROC(TSC_OFFSETTING) | PROC(HLT_EXITING) | PROC(INVLPG_EXITING) | PROC(MWAIT_EXITING) | \
		PROC(RDPMC_EXITING) | PROC(RDTSC_EXITING) | PROC(CR8_LOAD_EXITING) | \
		PROC(CR8_STORE_EXITING) | PROC(TPR_SHADOW) | PROC(NMI_WINDOW_EXITING) | \
		PROC(MOV_DR_EXITING) | PROC(UNCOND_IO_EXITING) | PROC(IO_BITMAPS) | \
		PROC(MONITOR_TRAP_FLAG) | PROC(MSR_BITMAPS) | PROC(MONITOR_EXITING) | \
		PROC(PAUSE_EXITING) | PROC(SECONDARY_CONTROLS))
#define NEHALEM_EXIT_MAY1 (VMX_EXIT_DEFAULT1 | EXIT(HOST_ADDR_SPACE_SIZE) | \
		EXIT(ACK_INTR_ON_EXIT) | EXIT(SAVE_PAT) | EXIT(LOAD_PAT) | EXIT(SAVE_EFER) | \
		EXIT(LOAD_EFER))
#define NEHALEM_ENTRY_MAY1 (VMX_ENTRY_DEFAULT1 | ENTRY(IA32E_MODE_GUEST) | ENTRY(LOAD_PAT) | \
			    ENTRY(LOAD_EFER))
static const struct model_msr nehalem_vmx_caps[] = {
	/* A.1: hvemu's VMCS layout, 4 KiB regions, WB, TRUE_* MSRs; no INS/OUTS
	 * instruction information. */
	{ MSR_VMX_BASIC, HVEMU_VMCS_REVISION | BASIC_VMCS_4K | BASIC_MEMTYPE_WB | VMX_BASIC_TRUE_CTLS },
	{ MSR_VMX_PINBASED_CTLS, CTLS(VMX_PINBASED_DEFAULT1, NEHALEM_PIN_MAY1) },
	{ MSR_VMX_PROCBASED_CTLS, CTLS(VMX_PROCBASED_DEFAULT1, NEHALEM_PROC_MAY1) },
	{ MSR_VMX_EXIT_CTLS, CTLS(VMX_EXIT_DEFAULT1, NEHALEM_EXIT_MAY1) },
	{ MSR_VMX_ENTRY_CTLS, CTLS(VMX_ENTRY_DEFAULT1, NEHALEM_ENTRY_MAY1) },
	/* A.6: HLT, shutdown and wait-for-SIPI activity states, 4 CR3 targets,
	 * 512-entry MSR lists. */
	{ MSR_VMX_MISC, VMX_MISC_ACTIVITY_HLT | VMX_MISC_ACTIVITY_SHUTDOWN | VMX_MISC_ACTIVITY_WAIT_SIPI |
			MISC_CR3_TARGETS(4) },
	{ MSR_VMX_CR0_FIXED0, CR0_FIXED0_VALUE },
	{ MSR_VMX_CR0_FIXED1, CR0_FIXED1_VALUE },
	{ MSR_VMX_CR4_FIXED0, CR4_VMXE },
	{ MSR_VMX_CR4_FIXED1, CR4_P6_BITS | CR4_OSXSAVE },
	/* A.9: guest IA32_SYSENTER_CS (482AH) is the highest-index field without
	 * a preemption timer. */
	{ MSR_VMX_VMCS_ENUM, VMCS_ENUM_INDEX(0x15) },
	/* A.3.3: EPT, RDTSCP, VPID; no unrestricted guest. */
	{ MSR_VMX_PROCBASED_CTLS2, CTLS(0, PROC2(EPT) | PROC2(RDTSCP) | PROC2(VPID)) },
	/* A.10: execute-only, 4-level walks, UC and WB, 2 MiB pages, INVEPT single
	 * and all-context, INVVPID of all four types. */
	{ MSR_VMX_EPT_VPID_CAP, EPT_CAP_EXEC_ONLY | EPT_CAP_WALK4 | EPT_CAP_UC | EPT_CAP_WB |
		EPT_CAP_2M | EPT_CAP_INVEPT | EPT_CAP_INVEPT_SINGLE | EPT_CAP_INVEPT_ALL |
		VPID_CAP_INVVPID | VPID_CAP_INVVPID_ADDRESS | VPID_CAP_INVVPID_SINGLE |
		VPID_CAP_INVVPID_ALL | VPID_CAP_INVVPID_SINGLE_NG },
	TRUE_CTLS(NEHALEM_PIN_MAY1, NEHALEM_PROC_MAY1, NEHALEM_EXIT_MAY1, NEHALEM_ENTRY_MAY1),
};
static const struct cpu_model model_nehalem_lite = {
	.name = "nehalem-lite",
	.description = "Intel Nehalem class, 64-bit (GenuineIntel, family 6 model 26)",
	.vendor = VENDOR_INTEL,
	.signature = NEHALEM_SIG,
	.cpuid = nehalem_leaves,
	.cpuid_count = sizeof(nehalem_leaves) / sizeof(nehalem_leaves[0]),
	.quirks = 0,
	.hv_ext = HV_EXT_VMX,
	.vmx_caps = nehalem_vmx_caps,
	.vmx_cap_count = sizeof(nehalem_vmx_caps) / sizeof(nehalem_vmx_caps[0]),
	/* Nehalem's IA32_MISC_ENABLE has the Skylake table's writable bits (turbo
	 * disable, bit 38, arrived with it); 9 banks, no IA32_MCG_CTL. */
	.misc_enable = SKYLAKE_MISC_ENABLE,
	.mcg_cap = MCG_CAP(9, false),
	.microcode_rev = 0x1d,            /* a public Intel update for 106A5H */
};

/* "epyc-lite": shaped after an AMD EPYC 7001 (Zen, family 17h model 1). Family
 * FH + extended family 8 (APM3 E.3.2). */
#define EPYC_SIG 0x00800f12

static const struct cpuid_leaf epyc_leaves[] = {
	{ .leaf = 0, .eax = 0xd, .ebx = STR4('A', 'u', 't', 'h'), .edx = STR4('e', 'n', 't', 'i'),
	  .ecx = STR4('c', 'A', 'M', 'D') },
	{ .leaf = 1, .eax = EPYC_SIG, .ebx = 0x00010000 | EBX1_CLFLUSH_64,
	  .ecx = SIMD_SKYLAKE | FEATURE(cx16) | FEATURE(xsave) | FEATURE(avx) | SCALAR_ECX1 | V3_ECX1,
	  .edx = HVEMU_EDX1 },
	/* Zen 1 has no RDPID (Zen 2 brought it). */
	{ .leaf = 7, .subleaf = 0, .indexed = true,
	  .ebx = FEATURE(fsgsbase) | FEATURE(smep) | FEATURE(smap) | FEATURE(sha_ni) | SCALAR_EBX7 | V3_EBX7 },
	XSAVE_LEAVES_AVX,
	{ .leaf = 0x80000000, .eax = 0x8000000a, .ebx = STR4('A', 'u', 't', 'h'),
	  .edx = STR4('e', 'n', 't', 'i'), .ecx = STR4('c', 'A', 'M', 'D') },
	{ .leaf = 0x80000001, .eax = EPYC_SIG, .ecx = FEATURE(svm) | FEATURE(lahf_lm) | FEATURE(abm),
	  .edx = AMD_EDX81 | EDX81_LONG },
	{ .leaf = 0x80000002, .eax = STR4('h', 'v', 'e', 'm'), .ebx = STR4('u', ' ', 'E', 'P'),
	  .ecx = STR4('Y', 'C', ' ', 'c'), .edx = STR4('l', 'a', 's', 's') },
	{ .leaf = 0x80000003, .eax = STR4(' ', 'C', 'P', 'U') },
	{ .leaf = 0x80000004 },
	{ .leaf = 0x80000005, .eax = 0xff40ff40, .ebx = 0xff40ff40, .ecx = 0x20080140,
	  .edx = 0x40040140 },
	/* L2 (APM3 E.4.5): 512 KiB, 8-way (encoding 6), 64 B lines. */
	{ .leaf = 0x80000006, .ecx = 0x02006140 },
	/* Physical 40 bits, linear 48 bits, one core. */
	{ .leaf = 0x80000008, .eax = 0x00003028 },
	/* SVM (APM3 E.4.9): revision 1, 32768 ASIDs as on Zen; EDX: what svm/
	 * implements. Zen's LBR
	 * virtualization (1), TSC ratio MSR (4) and AVIC (13) are left out: hvemu
	 * has no last-branch recording, scales no TSC and has no AVIC. */
	{ .leaf = 0x8000000a, .eax = 1, .ebx = 32768,
	  .edx = FEATURE(npt) | FEATURE(svm_lock) | FEATURE(nrip_save) | FEATURE(vmcb_clean) |
		 FEATURE(flushbyasid) | FEATURE(decodeassists) | FEATURE(pausefilter) |
		 FEATURE(pfthreshold) | FEATURE(v_vmsave_vmload) | FEATURE(vgif) },
};

static const struct cpu_model model_epyc_lite = {
	.name = "epyc-lite",
	.description = "AMD EPYC class, 64-bit (AuthenticAMD, family 17h)",
	.vendor = VENDOR_AMD,
	.signature = EPYC_SIG,
	.cpuid = epyc_leaves,
	.cpuid_count = sizeof(epyc_leaves) / sizeof(epyc_leaves[0]),
	.quirks = 0,
	.hv_ext = HV_EXT_SVM,
	.mcg_cap = MCG_CAP(23, true),     /* Zen: 23 banks */
	/* The family-17h configuration MSRs (emu/amd_cfg_msrs.c); PATCH_LEVEL
	 * stays 0, no patch loaded. */
	.amd_cfg = &amd_cfg_fam17h,
};

/* The default model comes first (see the top of this file). */
const struct cpu_model *const cpu_models[] = { &model_skylake_lite, &model_core2, &model_opteron_g3,
						&model_pentium, &model_epyc_lite, &model_icelake_lite,
						&model_nehalem_lite };
const unsigned cpu_model_count = sizeof(cpu_models) / sizeof(cpu_models[0]);

const struct cpu_model *cpu_model_find(const char *name)
{
	if (!name)
		return NULL;
	for (unsigned i = 0; i < cpu_model_count; i++)
		if (strcmp(cpu_models[i]->name, name) == 0)
			return cpu_models[i];
	return NULL;
}
