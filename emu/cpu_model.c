/* CPU models as data: what CPUID reports, which optional features and MSRs
 * exist, and the capability data of the part's VMX or SVM.
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
 *     processor's own (cpu_cpuid below): every CPU is a package of one core;
 *   - paging (mmu/paging.c): PSE, PAE, PGE, PSE-36 and NX/XD (EFER.NXE);
 *   - DE (CR4.DE, DR4/DR5 #UD), TSC (RDTSC, CR4.TSD), MSR (RDMSR/WRMSR), CX8,
 *     CMOV, SEP (SYSENTER/SYSEXIT) and PAT (the MSR; memory types have no effect in
 *     an emulator without caches) are implemented;
 *   - long mode with SYSCALL and LAHF/SAHF in 64-bit mode (emu/syscall.c) on every
 *     model but "pentium" and "opteron-g3";
 *   - leaves 15H/16H ("skylake-lite", "icelake-lite"): the TSC frequency, which
 *     is the nominal instruction rate (--insn-rate), computed per CPU;
 *   - VMX ("core2", "skylake-lite", "icelake-lite") and SVM ("opteron-g3",
 *     "epyc-lite") are data here (the CPUID bits, the VMX capability MSRs, leaf
 *     8000000AH), shaped after the real part, but a CPU reports them only while
 *     cpu->hv_available (emu/cpu_model.h, enum hv_ext): machine set-up sets it
 *     when it installs the hypervisor model that implements them, and no such
 *     model exists yet. That model must implement every capability listed here,
 *     or trim the list.
 * cpu_models[0] is the default model: "skylake-lite", a 64-bit Intel part, so a
 * user who names no model gets long mode (as with QEMU).
 */
#include <string.h>

#include "devices/clock.h"
#include "emu/cpu_model.h"

/* Pack four ASCII characters as CPUID returns them in a register (little-endian). */
#define STR4(a, b, c, d) \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

/* CPUID.1:EDX bits hvemu implements (SDM Vol.2 CPUID, Table 3-11). */
#define EDX1_VME  (1u << 1)
#define EDX1_DE   (1u << 2)
#define EDX1_PSE  (1u << 3)
#define EDX1_PAE  (1u << 6)
#define EDX1_MTRR (1u << 12)     /* the MTRR MSRs (emu/mtrr.c, SDM Vol.3 12.11.1) */
#define EDX1_PGE  (1u << 13)
#define EDX1_PSE36 (1u << 17)
#define EDX1_TSC  (1u << 4)
#define EDX1_MSR  (1u << 5)
#define EDX1_CX8  (1u << 8)
#define EDX1_SEP  (1u << 11)
#define EDX1_CMOV (1u << 15)
#define EDX1_PAT  (1u << 16)
#define EDX1_APIC (1u << 9)            /* devices/lapic.c */
/* MCE (CR4.MCE, #MC) and MCA (IA32_MCG_CAP and the banks, emu/msr.c): the
 * architecture exists, no machine check is ever signalled. */
#define EDX1_MCE  (1u << 7)
#define EDX1_MCA  (1u << 14)
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
		    EDX1_PGE | EDX1_CMOV | EDX1_PAT | EDX1_PSE36 | EDX1_FPU_SSE | EDX1_APIC | EDX1_MCE | EDX1_MCA | \
		    EDX1_MTRR)
/* CPUID.1:ECX x2APIC[21] and TSC-deadline[24] (SDM Vol.3 10.12.1, 10.5.4.1). */
#define ECX1_X2APIC       (1u << 21)
#define ECX1_TSC_DEADLINE (1u << 24)
/* CPUID.80000001H:EDX[20] NX/XD (SDM Vol.2 CPUID; APM3 E.4.2). */
#define EDX81_NX  (1u << 20)
#define ECX1_VMX  (1u << 5)
/* CPUID.80000001H:ECX[2] SVM (APM3 E.4.2). */
#define ECX81_SVM (1u << 2)
/* APM3 E.4.2: CPUID.80000001H:EDX repeats leaf 1 EDX bits 0-9, 12-17, 23, 24; bit 11
 * there is SYSCALL, not SEP, so SEP is not copied. */
#define AMD_EDX81_ALIASES 0x0183f3ffu
#define AMD_EDX81 ((HVEMU_EDX1 & AMD_EDX81_ALIASES & ~EDX1_SEP) | EDX81_NX)

/* Long mode (emu/syscall.c) and the bits beyond the P6 set above, each
 * implemented by hvemu:
 *   CPUID.1:ECX      PCID[17] (CR4.PCIDE, emu/control_regs.c), CX16[13]
 *                    (CMPXCHG16B, emu/alu.c)
 *   CPUID.7.0:EBX    FSGSBASE[0] (emu/syscall.c), SMEP[7], INVPCID[10], SMAP[20]
 *                    (mmu/paging.c, control_regs.c)
 *   80000001H:ECX    LAHF64[0] (LAHF/SAHF in 64-bit mode)
 *   80000001H:EDX    SYSCALL[11], NX[20], 1GB pages[26], RDTSCP[27], LM[29]
 *   CPUID.1:ECX      XSAVE[26] with leaf 0DH for x87|SSE state (emu/xsave.c);
 *                    CPUID.1:EBX[15:8] the CLFLUSH line size (64 bytes)
 *   80000008H:EAX    the physical and linear address widths: 48 linear bits, the
 *                    canonical checks the 48-bit ones (SDM Vol.3 3.3.7.1), except
 *                    "icelake-lite" with LA57 (CPUID.7.0:ECX[16], 57 linear bits).
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
/* Leaf 0DH (SDM Vol.2 CPUID leaf 0DH; APM3 E.3.6): XCR0 may hold x87|SSE, both
 * areas 576 bytes (legacy region + XSAVE header); subleaf 1: no XSAVEOPT/XSAVEC/
 * XGETBV1/XSAVES. */
#define XSAVE_LEAVES_X87_SSE \
	{ .leaf = 0xd, .subleaf = 0, .indexed = true, .eax = 3, .ebx = 576, .ecx = 576 }, \
	{ .leaf = 0xd, .subleaf = 1, .indexed = true }

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
 * The control bits the data uses (SDM Vol.3 Tables 24-5 to 24-15; the same
 * numbers as vmx/vmcs.h, which emu/ does not include: the unit tests read the
 * data back through vmx/'s names). */
#define BIT(n) (1u << (n))
#define PIN_EXT_INTR_EXITING   BIT(0)
#define PIN_NMI_EXITING        BIT(3)
#define PIN_VIRTUAL_NMIS       BIT(5)
#define PIN_PREEMPTION_TIMER   BIT(6)
#define PROC_INTR_WINDOW       BIT(2)
#define PROC_TSC_OFFSETTING    BIT(3)
#define PROC_HLT_EXITING       BIT(7)
#define PROC_INVLPG_EXITING    BIT(9)
#define PROC_MWAIT_EXITING     BIT(10)
#define PROC_RDPMC_EXITING     BIT(11)
#define PROC_RDTSC_EXITING     BIT(12)
#define PROC_CR3_LOAD_EXITING  BIT(15)
#define PROC_CR3_STORE_EXITING BIT(16)
#define PROC_CR8_LOAD_EXITING  BIT(19)
#define PROC_CR8_STORE_EXITING BIT(20)
#define PROC_TPR_SHADOW        BIT(21)
#define PROC_NMI_WINDOW        BIT(22)
#define PROC_MOV_DR_EXITING    BIT(23)
#define PROC_UNCOND_IO_EXITING BIT(24)
#define PROC_IO_BITMAPS        BIT(25)
#define PROC_MONITOR_TRAP_FLAG BIT(27)
#define PROC_MSR_BITMAPS       BIT(28)
#define PROC_MONITOR_EXITING   BIT(29)
#define PROC_PAUSE_EXITING     BIT(30)
#define PROC_SECONDARY         BIT(31)
#define PROC2_EPT              BIT(1)
#define PROC2_DESC_TABLE       BIT(2)
#define PROC2_RDTSCP           BIT(3)
#define PROC2_VPID             BIT(5)
#define PROC2_WBINVD_EXITING   BIT(6)
#define PROC2_UNRESTRICTED     BIT(7)
#define PROC2_PAUSE_LOOP       BIT(10)
#define PROC2_INVPCID          BIT(12)
#define PROC2_VM_FUNCTIONS     BIT(13)
#define EXIT_SAVE_DEBUG        BIT(2)
#define EXIT_HOST_64BIT        BIT(9)
#define EXIT_ACK_INTR          BIT(15)
#define EXIT_SAVE_PAT          BIT(18)
#define EXIT_LOAD_PAT          BIT(19)
#define EXIT_SAVE_EFER         BIT(20)
#define EXIT_LOAD_EFER         BIT(21)
#define EXIT_SAVE_PREEMPTION   BIT(22)
#define ENTRY_LOAD_DEBUG       BIT(2)
#define ENTRY_IA32E_GUEST      BIT(9)
#define ENTRY_LOAD_PAT         BIT(14)
#define ENTRY_LOAD_EFER        BIT(15)
/* A.2: the default1 classes, reserved controls the non-TRUE MSRs report as
 * must-be-1. */
#define PIN_DEFAULT1           0x00000016u
#define PROC_DEFAULT1          0x0401e172u
#define EXIT_DEFAULT1          0x00036dffu
#define ENTRY_DEFAULT1         0x000011ffu
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
#define BASIC_VMCS_4K          (4096ull << 32)
#define BASIC_MEMTYPE_WB       (6ull << 50)
#define BASIC_INS_OUTS_INFO    (1ull << 54)
#define BASIC_TRUE_CTLS        (1ull << 55)
/* A.6 IA32_VMX_MISC. */
#define MISC_PREEMPT_RATE(x)   ((uint64_t)(x))         /* 4:0: timer ticks every 2^x TSC */
#define MISC_STORE_LMA         (1ull << 5)
#define MISC_ACTIVITY_HLT      (1ull << 6)
#define MISC_ACTIVITY_SHUTDOWN (1ull << 7)
#define MISC_CR3_TARGETS(n)    ((uint64_t)(n) << 16)   /* 24:16 */
#define MISC_VMWRITE_ANY       (1ull << 29)
#define MISC_INJECT_ZERO_LEN   (1ull << 30)
/* A.7, A.8: CR0.PE, NE, PG fixed to 1 (SDM Vol.3 23.8); CR4.VMXE fixed to 1;
 * FIXED1 lets every bit the CPU implements be 1. */
#define CR0_FIXED0_VALUE       (CR0_PE | CR0_NE | CR0_PG)
#define CR0_FIXED1_VALUE       0xffffffffull
#define CR4_P6_BITS            (CR4_VME | CR4_PVI | CR4_TSD | CR4_DE | CR4_PSE | CR4_PAE | \
				CR4_MCE | CR4_PGE | CR4_PCE | CR4_OSFXSR | CR4_OSXMMEXCPT | CR4_VMXE)
/* A.9: bits 9:1 the highest index of any VMCS field encoding the CPU supports. */
#define VMCS_ENUM_INDEX(i)     ((uint64_t)(i) << 1)
/* A.10 IA32_VMX_EPT_VPID_CAP. */
#define EPT_EXECUTE_ONLY       (1ull << 0)
#define EPT_WALK_4             (1ull << 6)
#define EPT_WALK_5             (1ull << 7)
#define EPT_MEMTYPE_UC         (1ull << 8)
#define EPT_MEMTYPE_WB         (1ull << 14)
#define EPT_PAGE_2M            (1ull << 16)
#define EPT_PAGE_1G            (1ull << 17)
#define EPT_INVEPT             (1ull << 20)
#define EPT_AD_FLAGS           (1ull << 21)
#define EPT_ADVANCED_EXIT_INFO (1ull << 22)
#define EPT_INVEPT_SINGLE      (1ull << 25)
#define EPT_INVEPT_ALL         (1ull << 26)
#define VPID_INVVPID           (1ull << 32)
#define VPID_INVVPID_ADDRESS   (1ull << 40)
#define VPID_INVVPID_SINGLE    (1ull << 41)
#define VPID_INVVPID_ALL       (1ull << 42)
#define VPID_INVVPID_SINGLE_NG (1ull << 43)   /* single context, retaining globals */
/* A.11 IA32_VMX_VMFUNC: VM function 0, EPTP switching. */
#define VMFUNC_EPTP_SWITCHING  (1ull << 0)

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
	  .ecx = ECX1_VMX | ECX1_CX16 | ECX1_XSAVE, .edx = HVEMU_EDX1 },
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
	{ .leaf = 0x80000001, .ecx = ECX81_LAHF64, .edx = EDX81_SYSCALL | EDX81_NX | EDX81_LM },
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
	{ MSR_VMX_BASIC, HVEMU_VMCS_REVISION | BASIC_VMCS_4K | BASIC_MEMTYPE_WB | BASIC_INS_OUTS_INFO },
	/* A.3.1: external-interrupt and NMI exiting. */
	{ MSR_VMX_PINBASED_CTLS, CTLS(PIN_DEFAULT1,
		PIN_DEFAULT1 | PIN_EXT_INTR_EXITING | PIN_NMI_EXITING) },
	/* A.3.2: the exiting controls of the first generation, TPR shadow and
	 * CR8 exiting (Intel 64), I/O and MSR bitmaps. */
	{ MSR_VMX_PROCBASED_CTLS, CTLS(PROC_DEFAULT1,
		PROC_DEFAULT1 | PROC_INTR_WINDOW | PROC_TSC_OFFSETTING | PROC_HLT_EXITING |
		PROC_INVLPG_EXITING | PROC_MWAIT_EXITING | PROC_RDPMC_EXITING | PROC_RDTSC_EXITING |
		PROC_CR8_LOAD_EXITING | PROC_CR8_STORE_EXITING | PROC_TPR_SHADOW |
		PROC_MOV_DR_EXITING | PROC_UNCOND_IO_EXITING | PROC_IO_BITMAPS | PROC_MSR_BITMAPS |
		PROC_MONITOR_EXITING | PROC_PAUSE_EXITING) },
	/* A.4.1: 64-bit host, acknowledge interrupt on exit. */
	{ MSR_VMX_EXIT_CTLS, CTLS(EXIT_DEFAULT1, EXIT_DEFAULT1 | EXIT_HOST_64BIT | EXIT_ACK_INTR) },
	/* A.5: IA-32e mode guest. */
	{ MSR_VMX_ENTRY_CTLS, CTLS(ENTRY_DEFAULT1, ENTRY_DEFAULT1 | ENTRY_IA32E_GUEST) },
	/* A.6: the HLT activity state, 4 CR3-target values, 512-entry MSR lists
	 * (bits 27:25 = 0), MSEG revision 0 (no dual-monitor SMM treatment). */
	{ MSR_VMX_MISC, MISC_ACTIVITY_HLT | MISC_CR3_TARGETS(4) },
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
	/* SVM (APM3 E.4.9): revision 1, 64 ASIDs; EDX: nested paging (0) and SVM
	 * lock (2), as family 10h revision B reports; its LBR virtualization (1) is
	 * left out (hvemu has no last-branch recording). */
	{ .leaf = 0x8000000a, .eax = 1, .ebx = 64, .edx = (1u << 0) | (1u << 2) },
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
	.description = "Intel Pentium class, 32-bit (GenuineIntel, family 5)",
	.vendor = VENDOR_INTEL,
	.signature = 0x0000052c,
	.cpuid = pentium_leaves,
	.cpuid_count = sizeof(pentium_leaves) / sizeof(pentium_leaves[0]),
	.quirks = 0,
	.hv_ext = HV_EXT_NONE,
};

/* ---- VMX of the Skylake and Ice Lake models ----
 * Shaped after the parts, less what needs hardware hvemu does not model: no
 * APIC virtualization or posted interrupts, no PML, VMCS
 * shadowing, EPT-violation #VE, TSC scaling, XSAVES, PT or SGX controls, no
 * PERF_GLOBAL_CTRL or BNDCFGS load/save (no counters, no MPX), no SMM
 * (dual-monitor treatment, SMBASE) and no wait-for-SIPI activity state. */

/* A.3.1: external-interrupt and NMI exiting, virtual NMIs, preemption timer. */
#define SKYLAKE_PIN_MAY1 (PIN_DEFAULT1 | PIN_EXT_INTR_EXITING | PIN_NMI_EXITING | \
			  PIN_VIRTUAL_NMIS | PIN_PREEMPTION_TIMER)
/* A.3.2: every primary control but tertiary controls. */
#define SKYLAKE_PROC_MAY1 (PROC_DEFAULT1 | PROC_INTR_WINDOW | PROC_TSC_OFFSETTING | \
		PROC_HLT_EXITING | PROC_INVLPG_EXITING | PROC_MWAIT_EXITING | PROC_RDPMC_EXITING | \
		PROC_RDTSC_EXITING | PROC_CR8_LOAD_EXITING | PROC_CR8_STORE_EXITING | \
		PROC_TPR_SHADOW | PROC_NMI_WINDOW | PROC_MOV_DR_EXITING | PROC_UNCOND_IO_EXITING | \
		PROC_IO_BITMAPS | PROC_MONITOR_TRAP_FLAG | PROC_MSR_BITMAPS | PROC_MONITOR_EXITING | \
		PROC_PAUSE_EXITING | PROC_SECONDARY)
/* A.4.1: 64-bit host, acknowledge interrupt, PAT and EFER save/load, save the
 * preemption timer. */
#define SKYLAKE_EXIT_MAY1 (EXIT_DEFAULT1 | EXIT_HOST_64BIT | EXIT_ACK_INTR | EXIT_SAVE_PAT | \
			   EXIT_LOAD_PAT | EXIT_SAVE_EFER | EXIT_LOAD_EFER | EXIT_SAVE_PREEMPTION)
/* A.5: IA-32e mode guest, load PAT and EFER. */
#define SKYLAKE_ENTRY_MAY1 (ENTRY_DEFAULT1 | ENTRY_IA32E_GUEST | ENTRY_LOAD_PAT | ENTRY_LOAD_EFER)
/* A.10: execute-only translations, 4-level walks, UC and WB paging structures,
 * 2 MiB and 1 GiB pages, accessed/dirty flags, advanced EPT-violation
 * information, INVEPT single- and all-context; INVVPID of all four types. */
#define SKYLAKE_EPT_VPID (EPT_EXECUTE_ONLY | EPT_WALK_4 | EPT_MEMTYPE_UC | EPT_MEMTYPE_WB | \
		EPT_PAGE_2M | EPT_PAGE_1G | EPT_INVEPT | EPT_AD_FLAGS | EPT_ADVANCED_EXIT_INFO | \
		EPT_INVEPT_SINGLE | EPT_INVEPT_ALL | VPID_INVVPID | VPID_INVVPID_ADDRESS | \
		VPID_INVVPID_SINGLE | VPID_INVVPID_ALL | VPID_INVVPID_SINGLE_NG)

/* The capability MSRs of a Skylake-class part whose CR4 bits are cr4 and EPT
 * capabilities ept_vpid. The TRUE_* MSRs differ from the others only in the
 * default1 controls that may be 0 (A.2): CR3-load/store exiting, save/load
 * debug controls. */
#define SKYLAKE_VMX_CAPS(cr4, ept_vpid)                                                        \
	/* A.1: hvemu's VMCS layout, 4 KiB regions, WB, INS/OUTS info, TRUE_* MSRs. */          \
	{ MSR_VMX_BASIC, HVEMU_VMCS_REVISION | BASIC_VMCS_4K | BASIC_MEMTYPE_WB |               \
			 BASIC_INS_OUTS_INFO | BASIC_TRUE_CTLS },                               \
	/* A.3.1 */                                                                              \
	{ MSR_VMX_PINBASED_CTLS, CTLS(PIN_DEFAULT1, SKYLAKE_PIN_MAY1) },                        \
	/* A.3.2 */                                                                              \
	{ MSR_VMX_PROCBASED_CTLS, CTLS(PROC_DEFAULT1, SKYLAKE_PROC_MAY1) },                     \
	/* A.4.1 */                                                                              \
	{ MSR_VMX_EXIT_CTLS, CTLS(EXIT_DEFAULT1, SKYLAKE_EXIT_MAY1) },                          \
	/* A.5 */                                                                                \
	{ MSR_VMX_ENTRY_CTLS, CTLS(ENTRY_DEFAULT1, SKYLAKE_ENTRY_MAY1) },                       \
	/* A.6: the timer counts every 2^5 TSC ticks (hvemu's TSC is the instruction \
	 * count), VM exits store EFER.LMA in "IA-32e mode guest" (required with     \
	 * unrestricted guest), HLT and shutdown activity states, 4 CR3 targets,     \
	 * 512-entry MSR lists, VMWRITE to exit-information fields, injection of     \
	 * software events with instruction length 0; MSEG revision 0. */           \
	{ MSR_VMX_MISC, MISC_PREEMPT_RATE(5) | MISC_STORE_LMA | MISC_ACTIVITY_HLT |             \
			MISC_ACTIVITY_SHUTDOWN | MISC_CR3_TARGETS(4) | MISC_VMWRITE_ANY |       \
			MISC_INJECT_ZERO_LEN },                                                  \
	/* A.7 */                                                                                \
	{ MSR_VMX_CR0_FIXED0, CR0_FIXED0_VALUE },                                               \
	{ MSR_VMX_CR0_FIXED1, CR0_FIXED1_VALUE },                                               \
	/* A.8 */                                                                                \
	{ MSR_VMX_CR4_FIXED0, CR4_VMXE },                                                       \
	{ MSR_VMX_CR4_FIXED1, (cr4) },                                                          \
	/* A.9: the VMX-preemption timer value (482EH) has the highest index. */                \
	{ MSR_VMX_VMCS_ENUM, VMCS_ENUM_INDEX(0x17) },                                           \
	/* A.3.3: EPT, descriptor-table exiting, RDTSCP, VPID, WBINVD exiting,        \
	 * unrestricted guest, PAUSE-loop exiting, INVPCID, VM functions. */         \
	{ MSR_VMX_PROCBASED_CTLS2, CTLS(0, PROC2_EPT | PROC2_DESC_TABLE | PROC2_RDTSCP |         \
			PROC2_VPID | PROC2_WBINVD_EXITING | PROC2_UNRESTRICTED | PROC2_PAUSE_LOOP | \
			PROC2_INVPCID | PROC2_VM_FUNCTIONS) },                                  \
	/* A.10 */                                                                               \
	{ MSR_VMX_EPT_VPID_CAP, (ept_vpid) },                                                   \
	/* A.3.1 */                                                                              \
	{ MSR_VMX_TRUE_PINBASED_CTLS, CTLS(PIN_DEFAULT1, SKYLAKE_PIN_MAY1) },                   \
	/* A.3.2 */                                                                              \
	{ MSR_VMX_TRUE_PROCBASED_CTLS, CTLS(PROC_DEFAULT1 & ~(PROC_CR3_LOAD_EXITING |          \
			PROC_CR3_STORE_EXITING), SKYLAKE_PROC_MAY1) },                          \
	/* A.4.1 */                                                                              \
	{ MSR_VMX_TRUE_EXIT_CTLS, CTLS(EXIT_DEFAULT1 & ~EXIT_SAVE_DEBUG, SKYLAKE_EXIT_MAY1) },  \
	/* A.5 */                                                                                \
	{ MSR_VMX_TRUE_ENTRY_CTLS, CTLS(ENTRY_DEFAULT1 & ~ENTRY_LOAD_DEBUG, SKYLAKE_ENTRY_MAY1) }, \
	/* A.11: EPTP switching. */                                                             \
	{ MSR_VMX_VMFUNC, VMFUNC_EPTP_SWITCHING }

/* CR4 bits of the 64-bit Intel models (SDM Vol.3 2.5; emu/control_regs.c). */
#define CR4_SKYLAKE_BITS (CR4_P6_BITS | CR4_PCIDE | CR4_OSXSAVE | CR4_FSGSBASE | CR4_SMEP | CR4_SMAP)

/* "skylake-lite": shaped after an Intel Skylake client part (family 6 model 5EH,
 * stepping 3); the SDM's leaf 80000001H reports only LAHF64 in ECX and
 * SYSCALL/XD/1GB/RDTSCP/LM in EDX (SDM Vol.2 CPUID, Table 3-8). */
#define SKYLAKE_SIG 0x000506e3

static const struct cpuid_leaf skylake_leaves[] = {
	{ .leaf = 0, .eax = 0x16, .ebx = STR4('G', 'e', 'n', 'u'), .edx = STR4('i', 'n', 'e', 'I'),
	  .ecx = STR4('n', 't', 'e', 'l') },
	{ .leaf = 1, .eax = SKYLAKE_SIG, .ebx = 0x00010000 | EBX1_CLFLUSH_64,
	  .ecx = ECX1_VMX | ECX1_CX16 | ECX1_PCID | ECX1_X2APIC | ECX1_TSC_DEADLINE | ECX1_XSAVE,
	  .edx = HVEMU_EDX1 },
	{ .leaf = 2, .eax = 0x0000ff01 },
	/* L1D/L1I 32 KiB 8-way, L2 256 KiB 4-way, 64-byte lines (leaf 4 as for core2). */
	{ .leaf = 4, .subleaf = 0, .indexed = true, .eax = 0x121, .ebx = 0x01c0003f, .ecx = 63 },
	{ .leaf = 4, .subleaf = 1, .indexed = true, .eax = 0x122, .ebx = 0x01c0003f, .ecx = 63 },
	{ .leaf = 4, .subleaf = 2, .indexed = true, .eax = 0x143, .ebx = 0x00c0003f, .ecx = 1023 },
	{ .leaf = 7, .subleaf = 0, .indexed = true,
	  .ebx = EBX7_FSGSBASE | EBX7_SMEP | EBX7_INVPCID | EBX7_SMAP },
	XSAVE_LEAVES_X87_SSE,
	TSC_LEAVES,
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
	  .ecx = ECX1_VMX | ECX1_CX16 | ECX1_PCID | ECX1_X2APIC | ECX1_TSC_DEADLINE | ECX1_XSAVE,
	  .edx = HVEMU_EDX1 },
	{ .leaf = 2, .eax = 0x0000ff01 },
	/* L1D 48 KiB 12-way, L1I 32 KiB 8-way, L2 1.25 MiB 20-way, 64-byte lines. */
	{ .leaf = 4, .subleaf = 0, .indexed = true, .eax = 0x121, .ebx = 0x02c0003f, .ecx = 63 },
	{ .leaf = 4, .subleaf = 1, .indexed = true, .eax = 0x122, .ebx = 0x01c0003f, .ecx = 63 },
	{ .leaf = 4, .subleaf = 2, .indexed = true, .eax = 0x143, .ebx = 0x04c0003f, .ecx = 1023 },
	{ .leaf = 7, .subleaf = 0, .indexed = true,
	  .ebx = EBX7_FSGSBASE | EBX7_SMEP | EBX7_INVPCID | EBX7_SMAP, .ecx = ECX7_LA57 },
	XSAVE_LEAVES_X87_SSE,
	TSC_LEAVES,
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

static const struct model_msr icelake_vmx_caps[] = {
	SKYLAKE_VMX_CAPS(CR4_SKYLAKE_BITS | CR4_LA57, SKYLAKE_EPT_VPID | EPT_WALK_5),
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
	/* SVM (APM3 E.4.9): revision 1, 32768 ASIDs as on Zen; EDX: nested paging
	 * (0), SVM lock (2), NRIP save (3), VMCB clean bits (5), flush by ASID (6),
	 * decode assists (7), PAUSE filter (10) and its threshold (12), virtual
	 * VMSAVE/VMLOAD (15), virtual GIF (16): what svm/ implements. Zen's LBR
	 * virtualization (1), TSC ratio MSR (4) and AVIC (13) are left out: hvemu
	 * has no last-branch recording, scales no TSC and has no AVIC. */
	{ .leaf = 0x8000000a, .eax = 1, .ebx = 32768,
	  .edx = (1u << 0) | (1u << 2) | (1u << 3) | (1u << 5) | (1u << 6) |
		 (1u << 7) | (1u << 10) | (1u << 12) | (1u << 15) | (1u << 16) },
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
};

/* The default model comes first (see the top of this file). */
const struct cpu_model *const cpu_models[] = { &model_skylake_lite, &model_core2, &model_opteron_g3,
						&model_pentium, &model_epyc_lite, &model_icelake_lite };
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
		out[2] &= ~ECX1_VMX;
	if (m->hv_ext == HV_EXT_SVM && leaf == 0x80000001)
		out[2] &= ~ECX81_SVM;
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
			out[3] &= ~EDX1_APIC;
			out[2] &= ~(ECX1_X2APIC | ECX1_TSC_DEADLINE);
		}
	} else if (leaf == 0x80000001 && m->vendor == VENDOR_AMD && !cpu->lapic) {
		out[3] &= ~EDX1_APIC;      /* APM3 E.4.2: the same bit as leaf 1's */
	} else if (leaf == 0xb && in_range && cpu->lapic && cpu_model_has(m, 1, 2, 21)) {
		topology_leaf(cpu, subleaf, out);
	}
	/* SDM Vol.4 Table 2-2, 1A0H: XD Bit Disable and ENABLE MONITOR FSM. */
	if (leaf == 0x80000001 && (cpu->misc_enable & MISC_ENABLE_XD_DISABLE))
		out[3] &= ~EDX81_NX;
	if (leaf == 1 && m->misc_enable.writable && !(cpu->misc_enable & MISC_ENABLE_MONITOR_FSM))
		out[2] &= ~(1u << 3);
}
