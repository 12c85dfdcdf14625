/* CPU models as data: what CPUID reports and which optional features exist.
 *
 * Feature bits advertise only what hvemu implements today, whatever the real
 * part had (the names say which processor the leaves are shaped after):
 *   - x87 FPU, FXSR, SSE/SSE2 subset, CLFLUSH (XSAVE on core2), no MMX, long mode and
 *     SYSCALL in the 64-bit models only, no local APIC device (APIC = 0; the IA32_APIC_BASE MSR still
 *     exists, as on every P6-class part);
 *   - paging (mmu/paging.c): PSE, PAE, PGE, PSE-36 and NX/XD (EFER.NXE) with
 *     36 physical-address bits;
 *   - DE (CR4.DE, DR4/DR5 #UD), TSC (RDTSC, CR4.TSD), MSR (RDMSR/WRMSR), CX8,
 *     CMOV, SEP (SYSENTER/SYSEXIT) and PAT (the MSR; memory types have no effect in
 *     an emulator without caches) are implemented;
 *   - "core2" adds VMX (CPUID.1:ECX[5], vmx/), "opteron-g3" adds SVM
 *     (CPUID.80000001H:ECX[2], leaf 8000000AH, svm/).
 * cpu_models[0] is the default model: "core2" (an Intel part with VMX: the first
 * hypervisor target; pick the AMD model with --cpu opteron-g3).
 */
#include <string.h>

#include "emu/cpu_model.h"

/* Pack four ASCII characters as CPUID returns them in a register (little-endian). */
#define STR4(a, b, c, d) \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

/* CPUID.1:EDX bits hvemu implements (SDM Vol.2 CPUID, Table 3-11). */
#define EDX1_VME  (1u << 1)
#define EDX1_DE   (1u << 2)
#define EDX1_PSE  (1u << 3)
#define EDX1_PAE  (1u << 6)
#define EDX1_PGE  (1u << 13)
#define EDX1_PSE36 (1u << 17)
#define EDX1_TSC  (1u << 4)
#define EDX1_MSR  (1u << 5)
#define EDX1_CX8  (1u << 8)
#define EDX1_SEP  (1u << 11)
#define EDX1_CMOV (1u << 15)
#define EDX1_PAT  (1u << 16)
/* The x87 FPU, FXSAVE/FXRSTOR, the SSE/SSE2 subset and CLFLUSH (emu/x87.c,
 * emu/sse.c, emu/xsave.c); with CLFSH, CPUID.1:EBX[15:8] gives the line size
 * in 8-byte units. XSAVE (CPUID.1:ECX[26]) with leaf 0DH for x87|SSE state. */
#define EDX1_FPU  (1u << 0)
#define EDX1_CLFSH (1u << 19)
#define EDX1_FXSR (1u << 24)
#define EDX1_SSE  (1u << 25)
#define EDX1_SSE2 (1u << 26)
#define EDX1_FPU_SSE (EDX1_FPU | EDX1_CLFSH | EDX1_FXSR | EDX1_SSE | EDX1_SSE2)
#define EBX1_CLFLUSH_64 (8u << 8)
#define ECX1_XSAVE (1u << 26)
#define HVEMU_EDX1 (EDX1_VME | EDX1_DE | EDX1_PSE | EDX1_TSC | EDX1_MSR | EDX1_PAE | EDX1_CX8 | EDX1_SEP | \
		    EDX1_PGE | EDX1_CMOV | EDX1_PAT | EDX1_PSE36 | EDX1_FPU_SSE)
/* CPUID.80000001H:EDX[20] NX/XD (SDM Vol.2 CPUID; APM3 E.4.2). */
#define EDX81_NX  (1u << 20)
#define ECX1_VMX  (1u << 5)
/* CPUID.80000001H:ECX[2] SVM (APM3 E.4.2). */
#define ECX81_SVM (1u << 2)
/* APM3 E.4.2: CPUID.80000001H:EDX repeats leaf 1 EDX bits 0-9, 12-17, 23, 24; bit 11
 * there is SYSCALL, not SEP, so SEP is not copied. */
#define AMD_EDX81 ((HVEMU_EDX1 & 0x0183f3ffu & ~EDX1_SEP) | EDX81_NX)

/* ---- "core2": shaped after an Intel Core 2 (Merom), family 6 model 15 ---- */

static const struct cpuid_leaf core2_leaves[] = {
	/* Max basic leaf 7; "GenuineIntel" in EBX, EDX, ECX (SDM Vol.2 CPUID leaf 0). */
	{ .leaf = 0, .eax = 0xd, .ebx = STR4('G', 'e', 'n', 'u'), .edx = STR4('i', 'n', 'e', 'I'),
	  .ecx = STR4('n', 't', 'e', 'l') },
	/* EAX signature; EBX: brand index 0, one logical processor, CLFLUSH line
	 * 64 bytes, APIC ID 0. */
	{ .leaf = 1, .eax = 0x000006fb, .ebx = 0x00010000 | EBX1_CLFLUSH_64, .ecx = ECX1_VMX | ECX1_XSAVE,
	  .edx = HVEMU_EDX1 },
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
	/* Leaf 0DH (SDM Vol.2 CPUID, SDM Vol.1 13.2): subleaf 0 EAX = XCR0 bits
	 * supported (x87, SSE), EBX = area size for the enabled ones, ECX = for all,
	 * both 576 (legacy region + header); subleaf 1: no XSAVEOPT/XSAVEC/XSAVES. */
	{ .leaf = 0xd, .subleaf = 0, .indexed = true, .eax = 3, .ebx = 576, .ecx = 576 },
	{ .leaf = 0xd, .subleaf = 1, .indexed = true },
	{ .leaf = 0x80000000, .eax = 0x80000008 },
	/* XD only: no LAHF64, SYSCALL or LM, long mode is not implemented. */
	{ .leaf = 0x80000001, .edx = EDX81_NX },
	/* Brand string, 48 bytes, NUL padded (SDM Vol.2 CPUID leaves 80000002H-80000004H). */
	{ .leaf = 0x80000002, .eax = STR4('h', 'v', 'e', 'm'), .ebx = STR4('u', ' ', 'C', 'o'),
	  .ecx = STR4('r', 'e', ' ', '2'), .edx = STR4(' ', 'c', 'l', 'a') },
	{ .leaf = 0x80000003, .eax = STR4('s', 's', ' ', 'C'), .ebx = STR4('P', 'U', 0, 0) },
	{ .leaf = 0x80000004 },
	/* L2: 2048 KiB, 8-way (encoding 6), 64-byte lines (SDM Vol.2 CPUID 80000006H). */
	{ .leaf = 0x80000006, .ecx = 0x08006040 },
	/* 36 physical and 32 linear address bits (no long mode). */
	{ .leaf = 0x80000008, .eax = 0x00002024 },
};

static const struct cpu_model model_core2 = {
	.name = "core2",
	.description = "Intel Core 2 class (GenuineIntel, family 6 model 15), VMX",
	.vendor = VENDOR_INTEL,
	.signature = 0x000006fb,
	.cpuid = core2_leaves,
	.cpuid_count = sizeof(core2_leaves) / sizeof(core2_leaves[0]),
	.quirks = 0,
};

/* ---- "opteron-g3": shaped after an AMD Opteron 23xx (Barcelona), family 10h ---- */

/* Family 10h: base family FH + extended family 1 (APM3 E.3.2), model 2, stepping 2. */
#define OPTERON_SIG 0x00100f22

static const struct cpuid_leaf opteron_leaves[] = {
	/* "AuthenticAMD" (APM3 E.3.1). Only leaf 1 is defined among the basic leaves. */
	{ .leaf = 0, .eax = 1, .ebx = STR4('A', 'u', 't', 'h'), .edx = STR4('e', 'n', 't', 'i'),
	  .ecx = STR4('c', 'A', 'M', 'D') },
	{ .leaf = 1, .eax = OPTERON_SIG, .ebx = 0x00010000 | EBX1_CLFLUSH_64, .ecx = 0, .edx = HVEMU_EDX1 },
	{ .leaf = 0x80000000, .eax = 0x8000000a, .ebx = STR4('A', 'u', 't', 'h'),
	  .edx = STR4('e', 'n', 't', 'i'), .ecx = STR4('c', 'A', 'M', 'D') },
	{ .leaf = 0x80000001, .eax = OPTERON_SIG, .ecx = ECX81_SVM, .edx = AMD_EDX81 },
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
	/* SVM (APM3 E.4.9): revision 1, 64 ASIDs; EDX: no optional SVM features yet
	 * (nested paging, NRIP save etc. are advertised once svm/ implements them). */
	{ .leaf = 0x8000000a, .eax = 1, .ebx = 64 },
};

static const struct cpu_model model_opteron_g3 = {
	.name = "opteron-g3",
	.description = "AMD Opteron 23xx class (AuthenticAMD, family 10h), SVM",
	.vendor = VENDOR_AMD,
	.signature = OPTERON_SIG,
	.cpuid = opteron_leaves,
	.cpuid_count = sizeof(opteron_leaves) / sizeof(opteron_leaves[0]),
	.quirks = 0,
};

/* ---- "pentium": an Intel P54C-like part without SEP, PAT, CMOV or VMX ---- */

static const struct cpuid_leaf pentium_leaves[] = {
	{ .leaf = 0, .eax = 1, .ebx = STR4('G', 'e', 'n', 'u'), .edx = STR4('i', 'n', 'e', 'I'),
	  .ecx = STR4('n', 't', 'e', 'l') },
	/* Family 5 model 2 stepping 12; FPU, DE, PSE, TSC, MSR, CX8 only. */
	{ .leaf = 1, .eax = 0x0000052c,
	  .edx = EDX1_FPU | EDX1_DE | EDX1_PSE | EDX1_TSC | EDX1_MSR | EDX1_CX8 },
};

static const struct cpu_model model_pentium = {
	.name = "pentium",
	.description = "Intel Pentium class (GenuineIntel, family 5), no SYSENTER, no VMX",
	.vendor = VENDOR_INTEL,
	.signature = 0x0000052c,
	.cpuid = pentium_leaves,
	.cpuid_count = sizeof(pentium_leaves) / sizeof(pentium_leaves[0]),
	.quirks = 0,
};

/* ---- 64-bit models (long mode, emu/syscall.c) ----
 * Bits beyond the P6 set above, each implemented by hvemu:
 *   CPUID.1:ECX      PCID[17] (CR4.PCIDE, emu/control_regs.c), CX16[13]
 *                    (CMPXCHG16B, emu/alu.c)
 *   CPUID.7.0:EBX    FSGSBASE[0] (emu/syscall.c), SMEP[7], INVPCID[10], SMAP[20]
 *                    (mmu/paging.c, control_regs.c)
 *   80000001H:ECX    LAHF64[0] (LAHF/SAHF in 64-bit mode)
 *   80000001H:EDX    SYSCALL[11], NX[20], 1GB pages[26], RDTSCP[27], LM[29]
 *   CPUID.1:ECX      XSAVE[26] with leaf 0DH for x87|SSE state (emu/xsave.c);
 *                    CPUID.1:EBX[15:8] the CLFLUSH line size (64 bytes)
 *   80000008H:EAX    linear 48 bits, physical 39 (Intel) / 40 (AMD): no LA57, the
 *                    canonical checks are the 48-bit ones (SDM Vol.3 3.3.7.1);
 *                    "icelake-lite" adds LA57 (CPUID.7.0:ECX[16], 57 linear bits).
 * No AVX: XCR0 bit 2 is advertised by no model, since VEX instructions are not
 * implemented (SDM Vol.1 13.3: an OS enables only the components leaf 0DH lists). */
#define ECX1_CX16     (1u << 13)
#define ECX1_PCID     (1u << 17)
#define EBX7_FSGSBASE (1u << 0)
#define EBX7_SMEP     (1u << 7)
#define EBX7_INVPCID  (1u << 10)
#define EBX7_SMAP     (1u << 20)
#define ECX81_LAHF64  (1u << 0)
#define EDX81_SYSCALL (1u << 11)
#define EDX81_PAGE1GB (1u << 26)
#define EDX81_RDTSCP  (1u << 27)
#define EDX81_LM      (1u << 29)
#define EDX81_LONG    (EDX81_SYSCALL | EDX81_NX | EDX81_PAGE1GB | EDX81_RDTSCP | EDX81_LM)
#define ECX7_LA57     (1u << 16)
/* Leaf 0DH for the 64-bit models (SDM Vol.2 CPUID leaf 0DH; APM3 E.3.6): XCR0
 * may hold x87|SSE, both areas 576 bytes (legacy region + XSAVE header); subleaf
 * 1: no XSAVEOPT/XSAVEC/XGETBV1/XSAVES. */
#define XSAVE_LEAVES_X87_SSE \
	{ .leaf = 0xd, .subleaf = 0, .indexed = true, .eax = 3, .ebx = 576, .ecx = 576 }, \
	{ .leaf = 0xd, .subleaf = 1, .indexed = true }

/* "skylake-lite": shaped after an Intel Skylake client part (family 6 model 5EH,
 * stepping 3), with VMX; the SDM's leaf 80000001H reports only LAHF64 in ECX
 * and SYSCALL/XD/1GB/RDTSCP/LM in EDX (SDM Vol.2 CPUID, Table 3-8). */
#define SKYLAKE_SIG 0x000506e3

static const struct cpuid_leaf skylake_leaves[] = {
	{ .leaf = 0, .eax = 0xd, .ebx = STR4('G', 'e', 'n', 'u'), .edx = STR4('i', 'n', 'e', 'I'),
	  .ecx = STR4('n', 't', 'e', 'l') },
	{ .leaf = 1, .eax = SKYLAKE_SIG, .ebx = 0x00010000 | EBX1_CLFLUSH_64,
	  .ecx = ECX1_VMX | ECX1_CX16 | ECX1_PCID | ECX1_XSAVE, .edx = HVEMU_EDX1 },
	{ .leaf = 2, .eax = 0x0000ff01 },
	/* L1D/L1I 32 KiB 8-way, L2 256 KiB 4-way, 64-byte lines (leaf 4 as for core2). */
	{ .leaf = 4, .subleaf = 0, .indexed = true, .eax = 0x121, .ebx = 0x01c0003f, .ecx = 63 },
	{ .leaf = 4, .subleaf = 1, .indexed = true, .eax = 0x122, .ebx = 0x01c0003f, .ecx = 63 },
	{ .leaf = 4, .subleaf = 2, .indexed = true, .eax = 0x143, .ebx = 0x00c0003f, .ecx = 1023 },
	{ .leaf = 7, .subleaf = 0, .indexed = true,
	  .ebx = EBX7_FSGSBASE | EBX7_SMEP | EBX7_INVPCID | EBX7_SMAP },
	XSAVE_LEAVES_X87_SSE,
	{ .leaf = 0x80000000, .eax = 0x80000008 },
	{ .leaf = 0x80000001, .ecx = ECX81_LAHF64, .edx = EDX81_LONG },
	{ .leaf = 0x80000002, .eax = STR4('h', 'v', 'e', 'm'), .ebx = STR4('u', ' ', 'S', 'k'),
	  .ecx = STR4('y', 'l', 'a', 'k'), .edx = STR4('e', ' ', 'c', 'l') },
	{ .leaf = 0x80000003, .eax = STR4('a', 's', 's', ' '), .ebx = STR4('C', 'P', 'U', 0) },
	{ .leaf = 0x80000004 },
	{ .leaf = 0x80000006, .ecx = 0x01006040 },
	/* EAX[7:0] physical 39 bits, EAX[15:8] linear 48 bits. */
	{ .leaf = 0x80000008, .eax = 0x00003027 },
};

static const struct cpu_model model_skylake_lite = {
	.name = "skylake-lite",
	.description = "Intel Skylake class, 64-bit (GenuineIntel, family 6 model 94), VMX, PCID",
	.vendor = VENDOR_INTEL,
	.signature = SKYLAKE_SIG,
	.cpuid = skylake_leaves,
	.cpuid_count = sizeof(skylake_leaves) / sizeof(skylake_leaves[0]),
	.quirks = 0,
};

/* "icelake-lite": shaped after an Intel Ice Lake server part (family 6 model 6AH,
 * stepping 6) for 5-level paging: skylake-lite plus LA57 (CPUID.7.0:ECX[16];
 * CR4.LA57, SDM Vol.3 4.5) with 57 linear and 46 physical address bits. */
#define ICELAKE_SIG 0x000606a6

static const struct cpuid_leaf icelake_leaves[] = {
	{ .leaf = 0, .eax = 0xd, .ebx = STR4('G', 'e', 'n', 'u'), .edx = STR4('i', 'n', 'e', 'I'),
	  .ecx = STR4('n', 't', 'e', 'l') },
	{ .leaf = 1, .eax = ICELAKE_SIG, .ebx = 0x00010000 | EBX1_CLFLUSH_64,
	  .ecx = ECX1_VMX | ECX1_CX16 | ECX1_PCID | ECX1_XSAVE, .edx = HVEMU_EDX1 },
	{ .leaf = 2, .eax = 0x0000ff01 },
	/* L1D 48 KiB 12-way, L1I 32 KiB 8-way, L2 1.25 MiB 20-way, 64-byte lines. */
	{ .leaf = 4, .subleaf = 0, .indexed = true, .eax = 0x121, .ebx = 0x02c0003f, .ecx = 63 },
	{ .leaf = 4, .subleaf = 1, .indexed = true, .eax = 0x122, .ebx = 0x01c0003f, .ecx = 63 },
	{ .leaf = 4, .subleaf = 2, .indexed = true, .eax = 0x143, .ebx = 0x04c0003f, .ecx = 1023 },
	{ .leaf = 7, .subleaf = 0, .indexed = true,
	  .ebx = EBX7_FSGSBASE | EBX7_SMEP | EBX7_INVPCID | EBX7_SMAP, .ecx = ECX7_LA57 },
	XSAVE_LEAVES_X87_SSE,
	{ .leaf = 0x80000000, .eax = 0x80000008 },
	{ .leaf = 0x80000001, .ecx = ECX81_LAHF64, .edx = EDX81_LONG },
	{ .leaf = 0x80000002, .eax = STR4('h', 'v', 'e', 'm'), .ebx = STR4('u', ' ', 'I', 'c'),
	  .ecx = STR4('e', ' ', 'L', 'a'), .edx = STR4('k', 'e', ' ', 'c') },
	{ .leaf = 0x80000003, .eax = STR4('l', 'a', 's', 's'), .ebx = STR4(' ', 'C', 'P', 'U') },
	{ .leaf = 0x80000004 },
	{ .leaf = 0x80000006, .ecx = 0x05008040 },
	/* EAX[7:0] physical 46 bits, EAX[15:8] linear 57 bits. */
	{ .leaf = 0x80000008, .eax = 0x0000392e },
};

static const struct cpu_model model_icelake_lite = {
	.name = "icelake-lite",
	.description = "Intel Ice Lake server class, 64-bit (GenuineIntel, family 6 model 106), VMX, PCID, LA57",
	.vendor = VENDOR_INTEL,
	.signature = ICELAKE_SIG,
	.cpuid = icelake_leaves,
	.cpuid_count = sizeof(icelake_leaves) / sizeof(icelake_leaves[0]),
	.quirks = 0,
};

/* "epyc-lite": shaped after an AMD EPYC 7001 (Zen, family 17h model 1). Family
 * FH + extended family 8 (APM3 E.3.2). */
#define EPYC_SIG 0x00800f12

static const struct cpuid_leaf epyc_leaves[] = {
	{ .leaf = 0, .eax = 0xd, .ebx = STR4('A', 'u', 't', 'h'), .edx = STR4('e', 'n', 't', 'i'),
	  .ecx = STR4('c', 'A', 'M', 'D') },
	{ .leaf = 1, .eax = EPYC_SIG, .ebx = 0x00010000 | EBX1_CLFLUSH_64, .ecx = ECX1_CX16 | ECX1_XSAVE,
	  .edx = HVEMU_EDX1 },
	{ .leaf = 7, .subleaf = 0, .indexed = true, .ebx = EBX7_FSGSBASE | EBX7_SMEP | EBX7_SMAP },
	XSAVE_LEAVES_X87_SSE,
	{ .leaf = 0x80000000, .eax = 0x8000000a, .ebx = STR4('A', 'u', 't', 'h'),
	  .edx = STR4('e', 'n', 't', 'i'), .ecx = STR4('c', 'A', 'M', 'D') },
	{ .leaf = 0x80000001, .eax = EPYC_SIG, .ecx = ECX81_SVM | ECX81_LAHF64,
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
	/* SVM revision 1, 64 ASIDs, no optional features (as for opteron-g3). */
	{ .leaf = 0x8000000a, .eax = 1, .ebx = 64 },
};

static const struct cpu_model model_epyc_lite = {
	.name = "epyc-lite",
	.description = "AMD EPYC class, 64-bit (AuthenticAMD, family 17h), SVM",
	.vendor = VENDOR_AMD,
	.signature = EPYC_SIG,
	.cpuid = epyc_leaves,
	.cpuid_count = sizeof(epyc_leaves) / sizeof(epyc_leaves[0]),
	.quirks = 0,
};

/* The default model comes first (see the top of this file). */
const struct cpu_model *const cpu_models[] = { &model_core2, &model_opteron_g3, &model_pentium,
						&model_skylake_lite, &model_epyc_lite, &model_icelake_lite };
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

static void fill(const struct cpuid_leaf *l, uint32_t out[4])
{
	if (l) {
		out[0] = l->eax; out[1] = l->ebx; out[2] = l->ecx; out[3] = l->edx;
	} else {
		out[0] = out[1] = out[2] = out[3] = 0;
	}
}

/* Leaves within a range but absent from the table (reserved leaves, subleaves
 * past the last one) read as zeros, which is what both vendors document for
 * reserved leaves and what leaf 4/7 use to say "no more subleaves". */
void cpu_model_cpuid(const struct cpu_model *m, uint32_t leaf, uint32_t subleaf,
		     uint32_t out[4])
{
	uint32_t max_basic = max_leaf(m, 0);
	uint32_t max_ext = max_leaf(m, 0x80000000);
	bool in_range = leaf <= max_basic ||
			(leaf >= 0x80000000 && max_ext >= 0x80000000 && leaf <= max_ext);

	if (in_range) {
		fill(find_leaf(m, leaf, subleaf), out);
		return;
	}
	if (m->vendor == VENDOR_INTEL) {
		/* SDM Vol.2 CPUID: "If a value entered for CPUID.EAX is higher than the
		 * maximum input value for basic or extended function for that processor
		 * then the data for the highest basic information leaf is returned." */
		fill(find_leaf(m, max_basic, subleaf), out);
		return;
	}
	/* APM3 CPUID: functions beyond the largest supported one return zeros. */
	fill(NULL, out);
}

bool cpu_model_has(const struct cpu_model *m, uint32_t leaf, unsigned reg, unsigned bit)
{
	uint32_t out[4];

	if (!m || reg > 3 || bit > 31)
		return false;
	/* A leaf above the maximum does not define its bits, even where Intel's
	 * CPUID would echo the highest basic leaf. */
	uint32_t max = leaf >= 0x80000000 ? max_leaf(m, 0x80000000) : max_leaf(m, 0);
	if (leaf > max || (leaf >= 0x80000000 && max < 0x80000000))
		return false;
	cpu_model_cpuid(m, leaf, 0, out);
	return (out[reg] >> bit) & 1;
}
