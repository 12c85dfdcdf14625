/* The VMCS (SDM Vol.3 Ch.24): the architectural parts of the region's
 * memory layout and the bit layouts of its control and state fields.
 *
 * Beyond its first 8 bytes, the VMCS region's format is implementation-specific
 * (SDM Vol.3 24.2): fields are reached only through VMREAD/VMWRITE encodings
 * (vmx/vmcs_fields.h). This header is the VMX mirror of svm/vmcb.h: the
 * control bits as enums, the event formats as masks.
 */
#ifndef HVEMU_VMX_VMCS_H
#define HVEMU_VMX_VMCS_H

#include <stddef.h>
#include <stdint.h>

/* ---- The VMCS region (SDM Vol.3 24.2, Table 24-1) ---------------------- */

struct vmcs_region_header {
	uint32_t revision;                 /* 30:0 VMCS revision id, 31 shadow-VMCS indicator */
	uint32_t abort;                    /* VMX-abort indicator (enum vmx_abort) */
};
_Static_assert(offsetof(struct vmcs_region_header, abort) == 4, "SDM Vol.3 Table 24-1");

#define VMCS_REVISION_MASK         0x7fffffffu
#define VMCS_SHADOW_INDICATOR      0x80000000u
#define VMCS_REGION_MAX_SIZE       4096u       /* IA32_VMX_BASIC 44:32 is at most 4096 */

/* VMX-abort indicator values (SDM Vol.3 27.7). */
enum vmx_abort {
	VMX_ABORT_SAVE_GUEST_MSR = 1,      /* storing a guest MSR on VM exit failed */
	VMX_ABORT_HOST_PDPTE = 2,          /* host PDPTE checks failed */
	VMX_ABORT_VMCS_CORRUPT = 3,        /* the current VMCS was corrupted */
	VMX_ABORT_LOAD_HOST_MSR = 4,       /* loading a host MSR on VM exit failed */
	VMX_ABORT_MACHINE_CHECK = 5,       /* machine-check event during VM exit */
	VMX_ABORT_LONG_MODE_HOST = 6,      /* IA-32e mode guest, "host address-space size" = 0 */
};

/* ---- VM-execution controls (SDM Vol.3 24.6) ----------------------------- */

/* Pin-based (24.6.1, Table 24-5): bit numbers. */
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

/* ---- Event formats ----------------------------------------------------- */

/* Interruption information: VM-entry (24.8.3), VM-exit (24.9.2) and
 * IDT-vectoring (24.9.3) share it. */
#define VMX_INTR_VECTOR_MASK       0x000000ffu   /* 7:0 */
#define VMX_INTR_TYPE_SHIFT        8             /* 10:8, enum vmx_intr_type */
#define VMX_INTR_TYPE_MASK         0x00000700u
#define VMX_INTR_DELIVER_ERROR     0x00000800u   /* 11 */
#define VMX_INTR_NMI_UNBLOCKED     0x00001000u   /* 12 (exit info): IRET unblocked NMIs */
#define VMX_INTR_VALID             0x80000000u   /* 31 */
#define VMX_INTR_ENTRY_RESERVED    0x7ffff000u   /* 30:12 must be 0 on VM entry */

enum vmx_intr_type {
	VMX_INTR_EXTERNAL = 0,
	VMX_INTR_NMI = 2,
	VMX_INTR_HW_EXCEPTION = 3,
	VMX_INTR_SOFT_INT = 4,             /* INTn */
	VMX_INTR_PRIV_SOFT_EXCEPTION = 5,  /* INT1 */
	VMX_INTR_SOFT_EXCEPTION = 6,       /* INT3, INTO */
	VMX_INTR_OTHER = 7,                /* MTF pending (vector 0) */
};

/* Guest interruptibility state (24.4.2, Table 24-3). */
#define VMX_INTERRUPTIBILITY_STI       (1u << 0)
#define VMX_INTERRUPTIBILITY_MOV_SS    (1u << 1)
#define VMX_INTERRUPTIBILITY_SMI       (1u << 2)
#define VMX_INTERRUPTIBILITY_NMI       (1u << 3)
#define VMX_INTERRUPTIBILITY_ENCLAVE   (1u << 4)
#define VMX_INTERRUPTIBILITY_RESERVED  0xffffffe0u

/* Guest activity state (24.4.2). */
enum vmx_activity {
	VMX_ACTIVITY_ACTIVE = 0,
	VMX_ACTIVITY_HLT = 1,
	VMX_ACTIVITY_SHUTDOWN = 2,
	VMX_ACTIVITY_WAIT_SIPI = 3,
};

/* Guest pending debug exceptions (24.4.2, Table 24-4). */
#define VMX_PENDING_DBG_B0_3           0x0000000full
#define VMX_PENDING_DBG_ENABLED_BP     (1ull << 12)
#define VMX_PENDING_DBG_BS             (1ull << 14)
#define VMX_PENDING_DBG_RTM            (1ull << 16)

/* Access-rights format of the guest segment AR fields (24.4.1, Table 24-2):
 * descriptor bits 47:40 in 7:0, 55:52 in 15:12, plus "unusable" at 16. */
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

/* ---- VM-instruction error numbers (SDM Vol.3 30.4, Table 30-1) ---------- */
enum vmx_instruction_error {
	VMXERR_VMCALL_IN_ROOT = 1,
	VMXERR_VMCLEAR_INVALID_ADDR = 2,
	VMXERR_VMCLEAR_VMXON_PTR = 3,
	VMXERR_VMLAUNCH_NOT_CLEAR = 4,
	VMXERR_VMRESUME_NOT_LAUNCHED = 5,
	VMXERR_VMRESUME_AFTER_VMXOFF = 6,
	VMXERR_ENTRY_INVALID_CONTROL = 7,
	VMXERR_ENTRY_INVALID_HOST_STATE = 8,
	VMXERR_VMPTRLD_INVALID_ADDR = 9,
	VMXERR_VMPTRLD_VMXON_PTR = 10,
	VMXERR_VMPTRLD_BAD_REVISION = 11,
	VMXERR_UNSUPPORTED_COMPONENT = 12,     /* VMREAD/VMWRITE of a field that does not exist */
	VMXERR_VMWRITE_READ_ONLY = 13,
	VMXERR_VMXON_IN_ROOT = 15,
	VMXERR_ENTRY_INVALID_EXEC_VMCS = 16,
	VMXERR_ENTRY_NONLAUNCHED_EXEC_VMCS = 17,
	VMXERR_ENTRY_EXEC_VMCS_NOT_VMXON = 18,
	VMXERR_VMCALL_NOT_CLEAR = 19,
	VMXERR_VMCALL_INVALID_EXIT_CONTROL = 20,
	VMXERR_VMCALL_BAD_MSEG_REVISION = 22,
	VMXERR_VMXOFF_DUAL_MONITOR = 23,
	VMXERR_VMCALL_INVALID_SMM_FEATURES = 24,
	VMXERR_ENTRY_INVALID_EXEC_CONTROL = 25,
	VMXERR_ENTRY_MOV_SS_BLOCKING = 26,
	VMXERR_INVEPT_INVVPID_OPERAND = 28,
};

#endif
