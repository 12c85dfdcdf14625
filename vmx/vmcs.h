/* The VMCS (SDM Vol.3 Ch.24): the architectural parts of the region's
 * memory layout and the bit layouts of its control and state fields.
 *
 * Beyond its first 8 bytes, the VMCS region's format is implementation-specific
 * (SDM Vol.3 24.2): fields are reached only through VMREAD/VMWRITE encodings
 * (vmx/vmcs_fields.h). This header is the VMX mirror of svm/vmcb.h: the
 * event formats as masks (the control bits are mmu/x86_vmx.h's).
 */
#ifndef HVEMU_VMX_VMCS_H
#define HVEMU_VMX_VMCS_H

#include <stddef.h>
#include <stdint.h>

#include "mmu/x86_vmx.h"

/* ---- The VMCS region (SDM Vol.3 24.2, Table 24-1) ---------------------- */

struct vmcs_region_header {
	uint32_t revision;                 /* 30:0 VMCS revision id, 31 shadow-VMCS indicator */
	uint32_t abort;                    /* VMX-abort indicator (enum vmx_abort) */
};
_Static_assert(offsetof(struct vmcs_region_header, abort) == 4, "SDM Vol.3 Table 24-1");

#define VMCS_REVISION_MASK         0x7fffffffu
#define VMCS_SHADOW_INDICATOR      0x80000000u
#define VMCS_REGION_MAX_SIZE       4096u       /* IA32_VMX_BASIC 44:32 is at most 4096 */

/* ---- hvemu's VMCS region format (implementation-specific, SDM Vol.3 24.2) --
 * What VMCLEAR writes back and VMPTRLD reads (vmx/vmcs.c):
 *
 *   offset 0             revision identifier, bit 31 shadow-VMCS indicator  (24.2)
 *   offset 4             VMX-abort indicator                                (24.2)
 *   offset 8             launch state: 0 clear, 1 launched                 (hvemu)
 *   offset 16 + 8 * row  the field of vmx/vmcs_fields.def's row, 64 bits   (hvemu)
 *
 * Software must not rely on it (SDM Vol.3 24.11.1); tests do, to show what an
 * L1 that edits the region instead of using VMWRITE sees. */
#define VMCS_LAUNCH_STATE_OFFSET   8u
#define VMCS_FIELDS_OFFSET         16u
#define VMCS_LAUNCHED              1u

/* The field rows in vmx/vmcs_fields.def order (= vmcs_field_table() order). */
enum vmcs_row {
#define X(id, enc, width, type, slot, name) VMCS_ROW_##id,
#include "vmx/vmcs_fields.def"
#undef X
	VMCS_ROW_COUNT
};
_Static_assert(VMCS_FIELDS_OFFSET + 8u * VMCS_ROW_COUNT <= VMCS_REGION_MAX_SIZE,
	       "every field of the table fits a 4 KiB VMCS region");

static inline uint64_t vmcs_row_offset(unsigned row)
{
	return VMCS_FIELDS_OFFSET + 8ull * row;
}

/* VMX-abort indicator values (SDM Vol.3 27.7). */
enum vmx_abort {
	VMX_ABORT_SAVE_GUEST_MSR = 1,      /* storing a guest MSR on VM exit failed */
	VMX_ABORT_HOST_PDPTE = 2,          /* host PDPTE checks failed */
	VMX_ABORT_VMCS_CORRUPT = 3,        /* the current VMCS was corrupted */
	VMX_ABORT_LOAD_HOST_MSR = 4,       /* loading a host MSR on VM exit failed */
	VMX_ABORT_MACHINE_CHECK = 5,       /* machine-check event during VM exit */
	VMX_ABORT_LONG_MODE_HOST = 6,      /* IA-32e mode guest, "host address-space size" = 0 */
};

/* ---- VM-execution, VM-exit and VM-entry controls (SDM Vol.3 24.6.1,
 * 24.6.2, 24.7.1, 24.8.1) are in mmu/x86_vmx.h: the CPU models' capability
 * data (emu/) names them too. */

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

/* The access-rights format of the guest segment AR fields (24.4.1, Table
 * 24-2), VMX_AR_*, is mmu/x86_vmx.h's: the core's world-switch state API
 * (emu/world_state.h) converts it. */

/* ---- VM-instruction error numbers (SDM Vol.3 30.4, Table 30-1) ---------- */
enum vmx_instruction_error {
	VMXERR_NONE = 0,                       /* not an error: the instruction went on */
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
