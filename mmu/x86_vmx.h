/* VMX's architectural constants, once, below every layer that needs them: the
 * CPU models' capability data (emu/cpu_model*.c), the MSR table (emu/msr.c),
 * the EPT walker (mmu/paging.c, mmu/nested.c) and vmx/, which applies them.
 *
 *   - IA32_FEATURE_CONTROL's VMX bits (SDM Vol.3 23.7);
 *   - the layouts of the capability MSRs (SDM Vol.3 Appendix A; their indices
 *     are MSR_VMX_* in mmu/x86.h);
 *   - the VM-execution, VM-exit and VM-entry control bits (SDM Vol.3 24.6.1,
 *     24.6.2, 24.7.1, 24.8.1), which the capability MSRs report and VM entry
 *     checks, and the EPT pointer's fields (24.6.11);
 *   - the guest segments' access-rights format (SDM Vol.3 24.4.1), which the
 *     core's world-switch state API converts.
 *
 * Only names and bit positions: which bits a model allows is data in the CPU
 * models, and the allowed-0/allowed-1 rules are vmx/capabilities.h's.
 */
#ifndef HVEMU_MMU_X86_VMX_H
#define HVEMU_MMU_X86_VMX_H

/* ---- IA32_FEATURE_CONTROL (3AH; SDM Vol.3 23.7, Vol.4 Table 2-2) ---------
 * VMXON needs the lock bit and the enable of the current SMX mode. */
#define FEATURE_CONTROL_LOCK          (1ull << 0)
#define FEATURE_CONTROL_VMX_IN_SMX    (1ull << 1)
#define FEATURE_CONTROL_VMX_NO_SMX    (1ull << 2)

/* ---- IA32_VMX_BASIC (SDM Vol.3 A.1) ------------------------------------- */
#define VMX_BASIC_REVISION_MASK            0x7fffffffull      /* 30:0 VMCS revision id */
#define VMX_BASIC_VMCS_SIZE_SHIFT          32                 /* 44:32 bytes of VMCS region */
#define VMX_BASIC_VMCS_SIZE_MASK           (0x1fffull << 32)
#define VMX_BASIC_PA_32BIT                 (1ull << 48)       /* VMX pointers limited to 32 bits */
#define VMX_BASIC_DUAL_MONITOR             (1ull << 49)
#define VMX_BASIC_MEMTYPE_SHIFT            50                 /* 53:50, 6 = write-back */
#define VMX_BASIC_MEMTYPE_MASK             (0xfull << 50)
#define VMX_BASIC_MEMTYPE_WB               6ull
#define VMX_BASIC_INS_OUTS_INFO            (1ull << 54)       /* instruction info for INS/OUTS */
#define VMX_BASIC_TRUE_CTLS                (1ull << 55)       /* TRUE_* MSRs exist (A.2) */
#define VMX_BASIC_NO_HW_ERRCODE_CHECK      (1ull << 56)       /* entry may inject any HW exception +/- error code */
/* Bit 31 (always 0), 47:45 and 63:57. */
#define VMX_BASIC_RESERVED                 ((1ull << 31) | (7ull << 45) | (0x7full << 57))

/* ---- IA32_VMX_MISC (SDM Vol.3 A.6) -------------------------------------- */
#define VMX_MISC_PREEMPT_RATE_MASK         0x1full            /* 4:0: timer ticks when TSC bit X changes */
#define VMX_MISC_STORE_LMA                 (1ull << 5)        /* exits store EFER.LMA in "IA-32e mode guest" */
#define VMX_MISC_ACTIVITY_HLT              (1ull << 6)
#define VMX_MISC_ACTIVITY_SHUTDOWN         (1ull << 7)
#define VMX_MISC_ACTIVITY_WAIT_SIPI        (1ull << 8)
#define VMX_MISC_PT_IN_VMX                 (1ull << 14)
#define VMX_MISC_RDMSR_SMBASE              (1ull << 15)
#define VMX_MISC_CR3_TARGETS_SHIFT         16                 /* 24:16, at most 256 */
#define VMX_MISC_CR3_TARGETS_MASK          (0x1ffull << 16)
#define VMX_MISC_MSR_LIST_SHIFT            25                 /* 27:25: 512 * (N + 1) MSRs per list */
#define VMX_MISC_MSR_LIST_MASK             (7ull << 25)
#define VMX_MISC_SMM_MONITOR_CTL_B2        (1ull << 28)
#define VMX_MISC_VMWRITE_ANY_FIELD         (1ull << 29)       /* VM-exit information fields too */
#define VMX_MISC_INJECT_ZERO_LENGTH        (1ull << 30)       /* software events with length 0 */
#define VMX_MISC_MSEG_REVISION_SHIFT       32                 /* 63:32 */
#define VMX_MISC_RESERVED                  ((0x1full << 9) | (1ull << 31))

/* ---- IA32_VMX_VMCS_ENUM (SDM Vol.3 A.9) ----------------------------------
 * Bits 9:1 the highest index of any VMCS field encoding; bit 0 and 63:10 read
 * as 0. */
#define VMX_VMCS_ENUM_INDEX_SHIFT          1
#define VMX_VMCS_ENUM_INDEX_MASK           0x3feull

/* ---- IA32_VMX_EPT_VPID_CAP (SDM Vol.3 A.10) ------------------------------
 * The EPT bits are also what the EPT walker and the EPTP check of VM entry
 * read (mmu/paging.c, mmu/nested.c). */
#define EPT_CAP_EXEC_ONLY          (1ull << 0)   /* execute-only translations (R/W/X = 100b) */
#define EPT_CAP_WALK4              (1ull << 6)   /* page-walk length 4 */
#define EPT_CAP_WALK5              (1ull << 7)   /* page-walk length 5 */
#define EPT_CAP_UC                 (1ull << 8)   /* EPTP memory type UC (0) */
#define EPT_CAP_WB                 (1ull << 14)  /* EPTP memory type WB (6) */
#define EPT_CAP_2M                 (1ull << 16)  /* an EPT PDE may map a 2 MiB page */
#define EPT_CAP_1G                 (1ull << 17)  /* an EPT PDPTE may map a 1 GiB page */
#define EPT_CAP_INVEPT             (1ull << 20)
#define EPT_CAP_AD                 (1ull << 21)  /* accessed and dirty flags (EPTP bit 6) */
#define EPT_CAP_ADV_INFO           (1ull << 22)  /* advanced VM-exit information for EPT violations */
#define EPT_CAP_SSS                (1ull << 23)  /* supervisor shadow-stack control (EPTP bit 7) */
#define EPT_CAP_INVEPT_SINGLE      (1ull << 25)  /* INVEPT single-context */
#define EPT_CAP_INVEPT_ALL         (1ull << 26)  /* INVEPT all-context */
#define VPID_CAP_INVVPID           (1ull << 32)
#define VPID_CAP_INVVPID_ADDRESS   (1ull << 40)  /* INVVPID type 0 */
#define VPID_CAP_INVVPID_SINGLE    (1ull << 41)  /* type 1 */
#define VPID_CAP_INVVPID_ALL       (1ull << 42)  /* type 2 */
#define VPID_CAP_INVVPID_SINGLE_NG (1ull << 43)  /* type 3: single context, retaining globals */
#define EPT_CAP_HLAT_PREFIX_MASK   (0x3full << 48)  /* 53:48 */
#define EPT_VPID_CAP_DEFINED       (EPT_CAP_EXEC_ONLY | EPT_CAP_WALK4 | EPT_CAP_WALK5 | \
	EPT_CAP_UC | EPT_CAP_WB | EPT_CAP_2M | EPT_CAP_1G | EPT_CAP_INVEPT | EPT_CAP_AD | \
	EPT_CAP_ADV_INFO | EPT_CAP_SSS | EPT_CAP_INVEPT_SINGLE | EPT_CAP_INVEPT_ALL | \
	VPID_CAP_INVVPID | VPID_CAP_INVVPID_ADDRESS | VPID_CAP_INVVPID_SINGLE | \
	VPID_CAP_INVVPID_ALL | VPID_CAP_INVVPID_SINGLE_NG | EPT_CAP_HLAT_PREFIX_MASK)

/* ---- The EPT pointer (SDM Vol.3 24.6.11, Table 24-9) ---------------------
 * What the EPT walker (mmu/paging.c) and VM entry's EPTP check (mmu/nested.c)
 * read; bits MAXPHYADDR-1:12 locate the EPT PML4 (or PML5) table. */
#define EPTP_MEMTYPE_MASK     0x7ull           /* 2:0 paging-structure memory type */
#define EPTP_WALK_SHIFT       3                /* 5:3 page-walk length minus 1 */
#define EPTP_WALK_MASK        (0x7ull << 3)
#define EPTP_AD_ENABLE        (1ull << 6)      /* accessed and dirty flags for EPT */
#define EPTP_SSS_ENABLE       (1ull << 7)      /* supervisor shadow-stack control */

/* ---- Segment access rights in the VMCS (SDM Vol.3 24.4.1, Table 24-2) -----
 * Descriptor bits 47:40 in 7:0, 55:52 in 15:12, plus "unusable" at 16: what
 * the world-switch state API (emu/world_state.h) converts and vmx/ checks. */
#define VMX_AR_TYPE_MASK               0x0000000fu
#define VMX_AR_S                       (1u << 4)
#define VMX_AR_DPL_SHIFT               5
#define VMX_AR_DPL_MASK                (3u << 5)
#define VMX_AR_P                       (1u << 7)
#define VMX_AR_AVL                     (1u << 12)
#define VMX_AR_L                       (1u << 13)
#define VMX_AR_DB                      (1u << 14)
#define VMX_AR_G                       (1u << 15)
#define VMX_AR_UNUSABLE                (1u << 16)
#define VMX_AR_RESERVED                0xfffe0f00u   /* 11:8 and 31:17 */

/* ---- IA32_VMX_VMFUNC (SDM Vol.3 A.11) ------------------------------------
 * Bit X allows VM function X; function 0, EPTP switching, is the only one
 * defined. */
#define VMX_VMFUNC_EPTP_SWITCHING          (1ull << 0)

/* ---- The "default1" controls (SDM Vol.3 A.2) -----------------------------
 * Reserved controls that read as 1 in the non-TRUE capability MSRs. With
 * VMX_BASIC_TRUE_CTLS, the TRUE_* MSRs report which of them may in fact be 0. */
#define VMX_PINBASED_DEFAULT1              0x00000016u  /* bits 1, 2, 4 */
#define VMX_PROCBASED_DEFAULT1             0x0401e172u  /* 1, 4-6, 8, 13-16, 26 */
#define VMX_EXIT_DEFAULT1                  0x00036dffu  /* 0-8, 10, 11, 13, 14, 16, 17 */
#define VMX_ENTRY_DEFAULT1                 0x000011ffu  /* 0-8, 12 */

/* ---- VM-execution controls (SDM Vol.3 24.6) ------------------------------
 * Bit numbers; VMX_CTL() makes the mask. */

/* Pin-based (24.6.1, Table 24-5). */
enum vmx_pin_ctl {
	VMX_PIN_EXT_INTR_EXITING = 0,
	VMX_PIN_NMI_EXITING = 3,
	VMX_PIN_VIRTUAL_NMIS = 5,
	VMX_PIN_PREEMPTION_TIMER = 6,
	VMX_PIN_POSTED_INTERRUPTS = 7,
};

/* Primary processor-based (24.6.2, Table 24-6). */
enum vmx_proc_ctl {
	VMX_PROC_INTR_WINDOW_EXITING = 2,
	VMX_PROC_TSC_OFFSETTING = 3,
	VMX_PROC_HLT_EXITING = 7,
	VMX_PROC_INVLPG_EXITING = 9,
	VMX_PROC_MWAIT_EXITING = 10,
	VMX_PROC_RDPMC_EXITING = 11,
	VMX_PROC_RDTSC_EXITING = 12,
	VMX_PROC_CR3_LOAD_EXITING = 15,
	VMX_PROC_CR3_STORE_EXITING = 16,
	VMX_PROC_TERTIARY_CONTROLS = 17,
	VMX_PROC_CR8_LOAD_EXITING = 19,
	VMX_PROC_CR8_STORE_EXITING = 20,
	VMX_PROC_TPR_SHADOW = 21,
	VMX_PROC_NMI_WINDOW_EXITING = 22,
	VMX_PROC_MOV_DR_EXITING = 23,
	VMX_PROC_UNCOND_IO_EXITING = 24,
	VMX_PROC_IO_BITMAPS = 25,
	VMX_PROC_MONITOR_TRAP_FLAG = 27,
	VMX_PROC_MSR_BITMAPS = 28,
	VMX_PROC_MONITOR_EXITING = 29,
	VMX_PROC_PAUSE_EXITING = 30,
	VMX_PROC_SECONDARY_CONTROLS = 31,
};

/* Secondary processor-based (24.6.2, Table 24-7). */
enum vmx_proc2_ctl {
	VMX_PROC2_VIRTUALIZE_APIC = 0,
	VMX_PROC2_EPT = 1,
	VMX_PROC2_DESC_TABLE_EXITING = 2,
	VMX_PROC2_RDTSCP = 3,
	VMX_PROC2_VIRTUALIZE_X2APIC = 4,
	VMX_PROC2_VPID = 5,
	VMX_PROC2_WBINVD_EXITING = 6,
	VMX_PROC2_UNRESTRICTED_GUEST = 7,
	VMX_PROC2_APIC_REGISTER_VIRT = 8,
	VMX_PROC2_VIRTUAL_INTR_DELIVERY = 9,
	VMX_PROC2_PAUSE_LOOP_EXITING = 10,
	VMX_PROC2_RDRAND_EXITING = 11,
	VMX_PROC2_INVPCID = 12,
	VMX_PROC2_VM_FUNCTIONS = 13,
	VMX_PROC2_VMCS_SHADOWING = 14,
	VMX_PROC2_ENCLS_EXITING = 15,
	VMX_PROC2_RDSEED_EXITING = 16,
	VMX_PROC2_PML = 17,
	VMX_PROC2_EPT_VIOLATION_VE = 18,
	VMX_PROC2_CONCEAL_VMX_FROM_PT = 19,
	VMX_PROC2_XSAVES = 20,
	VMX_PROC2_PASID_TRANSLATION = 21,
	VMX_PROC2_MODE_BASED_EPT_EXEC = 22,
	VMX_PROC2_SUBPAGE_WRITE = 23,
	VMX_PROC2_PT_GUEST_PHYSICAL = 24,
	VMX_PROC2_TSC_SCALING = 25,
	VMX_PROC2_USER_WAIT_PAUSE = 26,
	VMX_PROC2_PCONFIG = 27,
	VMX_PROC2_ENCLV_EXITING = 28,
	VMX_PROC2_BUS_LOCK_DETECTION = 30,
	VMX_PROC2_INSTRUCTION_TIMEOUT = 31,
};

/* Tertiary processor-based (24.6.2, Table 24-8), a 64-bit field. */
enum vmx_proc3_ctl {
	VMX_PROC3_LOADIWKEY_EXITING = 0,
	VMX_PROC3_HLAT = 1,
	VMX_PROC3_EPT_PAGING_WRITE = 2,
	VMX_PROC3_GUEST_PAGING_VERIFY = 3,
	VMX_PROC3_IPI_VIRT = 4,
	VMX_PROC3_VIRTUALIZE_SPEC_CTRL = 7,
};

/* ---- VM-exit controls (SDM Vol.3 24.7.1, Table 24-13) ------------------- */
enum vmx_exit_ctl {
	VMX_EXITCTL_SAVE_DEBUG_CONTROLS = 2,
	VMX_EXITCTL_HOST_ADDR_SPACE_SIZE = 9,     /* host is in 64-bit mode after exit */
	VMX_EXITCTL_LOAD_PERF_GLOBAL_CTRL = 12,
	VMX_EXITCTL_ACK_INTR_ON_EXIT = 15,
	VMX_EXITCTL_SAVE_PAT = 18,
	VMX_EXITCTL_LOAD_PAT = 19,
	VMX_EXITCTL_SAVE_EFER = 20,
	VMX_EXITCTL_LOAD_EFER = 21,
	VMX_EXITCTL_SAVE_PREEMPTION_TIMER = 22,
	VMX_EXITCTL_CLEAR_BNDCFGS = 23,
	VMX_EXITCTL_CONCEAL_VMX_FROM_PT = 24,
	VMX_EXITCTL_CLEAR_RTIT_CTL = 25,
	VMX_EXITCTL_CLEAR_LBR_CTL = 26,
	VMX_EXITCTL_CLEAR_UINV = 27,
	VMX_EXITCTL_LOAD_CET_STATE = 28,
	VMX_EXITCTL_LOAD_PKRS = 29,
	VMX_EXITCTL_SAVE_PERF_GLOBAL_CTRL = 30,
	VMX_EXITCTL_SECONDARY_CONTROLS = 31,
};

/* ---- VM-entry controls (SDM Vol.3 24.8.1, Table 24-15) ------------------ */
enum vmx_entry_ctl {
	VMX_ENTRYCTL_LOAD_DEBUG_CONTROLS = 2,
	VMX_ENTRYCTL_IA32E_MODE_GUEST = 9,
	VMX_ENTRYCTL_TO_SMM = 10,
	VMX_ENTRYCTL_DEACTIVATE_DUAL_MONITOR = 11,
	VMX_ENTRYCTL_LOAD_PERF_GLOBAL_CTRL = 13,
	VMX_ENTRYCTL_LOAD_PAT = 14,
	VMX_ENTRYCTL_LOAD_EFER = 15,
	VMX_ENTRYCTL_LOAD_BNDCFGS = 16,
	VMX_ENTRYCTL_CONCEAL_VMX_FROM_PT = 17,
	VMX_ENTRYCTL_LOAD_RTIT_CTL = 18,
	VMX_ENTRYCTL_LOAD_UINV = 19,
	VMX_ENTRYCTL_LOAD_CET_STATE = 20,
	VMX_ENTRYCTL_LOAD_LBR_CTL = 21,
	VMX_ENTRYCTL_LOAD_PKRS = 22,
};

/* A control bit number as a mask: VMX_CTL(VMX_PROC_HLT_EXITING). */
#define VMX_CTL(bit) (1u << (bit))

#endif
