/* Basic VM-exit reasons (SDM Vol.3 Appendix C, Table C-1) and what the exit
 * qualification holds for each (SDM Vol.3 27.2.1).
 *
 * The exit-reason VMCS field (0x4402) holds the basic reason in bits 15:0
 * and flags above it (SDM Vol.3 24.9.1).
 */
#ifndef HVEMU_VMX_EXIT_REASONS_H
#define HVEMU_VMX_EXIT_REASONS_H

#include <stddef.h>
#include <stdint.h>

enum vmx_exit_reason {
	VMX_EXIT_EXCEPTION_NMI = 0,
	VMX_EXIT_EXTERNAL_INTERRUPT = 1,
	VMX_EXIT_TRIPLE_FAULT = 2,
	VMX_EXIT_INIT = 3,
	VMX_EXIT_SIPI = 4,
	VMX_EXIT_IO_SMI = 5,
	VMX_EXIT_OTHER_SMI = 6,
	VMX_EXIT_INTERRUPT_WINDOW = 7,
	VMX_EXIT_NMI_WINDOW = 8,
	VMX_EXIT_TASK_SWITCH = 9,
	VMX_EXIT_CPUID = 10,
	VMX_EXIT_GETSEC = 11,
	VMX_EXIT_HLT = 12,
	VMX_EXIT_INVD = 13,
	VMX_EXIT_INVLPG = 14,
	VMX_EXIT_RDPMC = 15,
	VMX_EXIT_RDTSC = 16,
	VMX_EXIT_RSM = 17,
	VMX_EXIT_VMCALL = 18,
	VMX_EXIT_VMCLEAR = 19,
	VMX_EXIT_VMLAUNCH = 20,
	VMX_EXIT_VMPTRLD = 21,
	VMX_EXIT_VMPTRST = 22,
	VMX_EXIT_VMREAD = 23,
	VMX_EXIT_VMRESUME = 24,
	VMX_EXIT_VMWRITE = 25,
	VMX_EXIT_VMXOFF = 26,
	VMX_EXIT_VMXON = 27,
	VMX_EXIT_CR_ACCESS = 28,
	VMX_EXIT_DR_ACCESS = 29,
	VMX_EXIT_IO_INSTRUCTION = 30,
	VMX_EXIT_RDMSR = 31,
	VMX_EXIT_WRMSR = 32,
	VMX_EXIT_INVALID_GUEST_STATE = 33,
	VMX_EXIT_MSR_LOADING = 34,
	VMX_EXIT_MWAIT = 36,
	VMX_EXIT_MONITOR_TRAP_FLAG = 37,
	VMX_EXIT_MONITOR = 39,
	VMX_EXIT_PAUSE = 40,
	VMX_EXIT_MACHINE_CHECK = 41,
	VMX_EXIT_TPR_BELOW_THRESHOLD = 43,
	VMX_EXIT_APIC_ACCESS = 44,
	VMX_EXIT_VIRTUALIZED_EOI = 45,
	VMX_EXIT_GDTR_IDTR_ACCESS = 46,
	VMX_EXIT_LDTR_TR_ACCESS = 47,
	VMX_EXIT_EPT_VIOLATION = 48,
	VMX_EXIT_EPT_MISCONFIG = 49,
	VMX_EXIT_INVEPT = 50,
	VMX_EXIT_RDTSCP = 51,
	VMX_EXIT_PREEMPTION_TIMER = 52,
	VMX_EXIT_INVVPID = 53,
	VMX_EXIT_WBINVD = 54,
	VMX_EXIT_XSETBV = 55,
	VMX_EXIT_APIC_WRITE = 56,
	VMX_EXIT_RDRAND = 57,
	VMX_EXIT_INVPCID = 58,
	VMX_EXIT_VMFUNC = 59,
	VMX_EXIT_ENCLS = 60,
	VMX_EXIT_RDSEED = 61,
	VMX_EXIT_PML_FULL = 62,
	VMX_EXIT_XSAVES = 63,
	VMX_EXIT_XRSTORS = 64,
	VMX_EXIT_PCONFIG = 65,
	VMX_EXIT_SPP_EVENT = 66,
	VMX_EXIT_UMWAIT = 67,
	VMX_EXIT_TPAUSE = 68,
	VMX_EXIT_LOADIWKEY = 69,
	VMX_EXIT_ENCLV = 70,
	VMX_EXIT_SGX_CONFLICT = 71,
	VMX_EXIT_ENQCMD_PASID_FAILURE = 72,
	VMX_EXIT_ENQCMDS_PASID_FAILURE = 73,
	VMX_EXIT_BUS_LOCK = 74,
	VMX_EXIT_INSTRUCTION_TIMEOUT = 75,
	VMX_EXIT_SEAMCALL = 76,
	VMX_EXIT_TDCALL = 77,
	VMX_EXIT_RDMSRLIST = 78,
	VMX_EXIT_WRMSRLIST = 79,
	VMX_EXIT_REASON_LIMIT,             /* one past the highest defined reason */
};

/* Bits of the exit-reason field above the basic reason (SDM Vol.3 24.9.1). */
#define VMX_EXIT_BASIC_MASK            0x0000ffffu  /* 15:0 basic exit reason */
#define VMX_EXIT_BUS_LOCK_DETECTED     (1u << 26)   /* a bus lock was also detected */
#define VMX_EXIT_ENCLAVE_MODE          (1u << 27)   /* exit from an SGX enclave */
#define VMX_EXIT_PENDING_MTF           (1u << 28)   /* pending MTF VM exit (SMM) */
#define VMX_EXIT_FROM_VMX_ROOT         (1u << 29)   /* SMM VM exit from VMX root */
#define VMX_EXIT_ENTRY_FAILURE         (1u << 31)   /* VM-entry failure (reasons 33, 34, 41) */

/* One row of Table C-1. */
struct vmx_exit_info {
	uint16_t reason;                   /* basic exit reason */
	const char *name;                  /* lower case, for traces: "ept_violation" */
	const char *qualification;         /* what the exit qualification holds; "-": none */
};

/* The row for a basic exit reason, or NULL if the SDM does not define it.
 * Takes the full exit-reason field value: bits 31:16 are ignored. */
const struct vmx_exit_info *vmx_exit_lookup(uint32_t exit_reason);

/* The row's name, or "unknown". Never NULL. */
const char *vmx_exit_name(uint32_t exit_reason);

/* The whole table, sorted by reason, for tests, fuzzers and dumps. */
const struct vmx_exit_info *vmx_exit_table(size_t *count);

#endif
