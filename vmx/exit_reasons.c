/* Basic exit reasons (SDM Vol.3 Appendix C) with the exit-qualification
 * contents of each (SDM Vol.3 27.2.1, Tables 27-1 .. 27-7). Rows are in
 * reason order; reasons the SDM leaves undefined (35, 38, 42) have no row. */
#include "vmx/exit_reasons.h"

#define DISP "displacement of the memory operand (instruction information describes it)"
#define NONE "-"

static const struct vmx_exit_info vmx_exits[] = {
	{ VMX_EXIT_EXCEPTION_NMI, "exception_nmi",
	  "#DB: 3:0 B3-B0, 13 BD, 14 BS, 16 RTM (DR6 format); #PF: faulting linear address; else -" },
	{ VMX_EXIT_EXTERNAL_INTERRUPT, "external_interrupt", NONE },
	{ VMX_EXIT_TRIPLE_FAULT, "triple_fault", NONE },
	{ VMX_EXIT_INIT, "init", NONE },
	{ VMX_EXIT_SIPI, "sipi", "7:0 SIPI vector" },
	{ VMX_EXIT_IO_SMI, "io_smi", "the I/O instruction, as for reason 30" },
	{ VMX_EXIT_OTHER_SMI, "other_smi", NONE },
	{ VMX_EXIT_INTERRUPT_WINDOW, "interrupt_window", NONE },
	{ VMX_EXIT_NMI_WINDOW, "nmi_window", NONE },
	{ VMX_EXIT_TASK_SWITCH, "task_switch",
	  "15:0 target TSS selector, 31:30 source (0 CALL, 1 IRET, 2 JMP, 3 IDT task gate)" },
	{ VMX_EXIT_CPUID, "cpuid", NONE },
	{ VMX_EXIT_GETSEC, "getsec", NONE },
	{ VMX_EXIT_HLT, "hlt", NONE },
	{ VMX_EXIT_INVD, "invd", NONE },
	{ VMX_EXIT_INVLPG, "invlpg", "linear-address operand" },
	{ VMX_EXIT_RDPMC, "rdpmc", NONE },
	{ VMX_EXIT_RDTSC, "rdtsc", NONE },
	{ VMX_EXIT_RSM, "rsm", NONE },
	{ VMX_EXIT_VMCALL, "vmcall", NONE },
	{ VMX_EXIT_VMCLEAR, "vmclear", DISP },
	{ VMX_EXIT_VMLAUNCH, "vmlaunch", NONE },
	{ VMX_EXIT_VMPTRLD, "vmptrld", DISP },
	{ VMX_EXIT_VMPTRST, "vmptrst", DISP },
	{ VMX_EXIT_VMREAD, "vmread", DISP },
	{ VMX_EXIT_VMRESUME, "vmresume", NONE },
	{ VMX_EXIT_VMWRITE, "vmwrite", DISP },
	{ VMX_EXIT_VMXOFF, "vmxoff", NONE },
	{ VMX_EXIT_VMXON, "vmxon", DISP },
	{ VMX_EXIT_CR_ACCESS, "cr_access",
	  "3:0 CR number, 5:4 access (0 MOV to CR, 1 MOV from CR, 2 CLTS, 3 LMSW), "
	  "6 LMSW operand (0 reg, 1 mem), 11:8 GPR, 31:16 LMSW source data" },
	{ VMX_EXIT_DR_ACCESS, "dr_access", "2:0 DR number, 4 direction (0 MOV to DR, 1 MOV from DR), 11:8 GPR" },
	{ VMX_EXIT_IO_INSTRUCTION, "io_instruction",
	  "2:0 size - 1, 3 direction (1 IN), 4 string, 5 REP, 6 operand (0 DX, 1 imm), 31:16 port" },
	{ VMX_EXIT_RDMSR, "rdmsr", NONE },
	{ VMX_EXIT_WRMSR, "wrmsr", NONE },
	{ VMX_EXIT_INVALID_GUEST_STATE, "invalid_guest_state",
	  "0 default, 2 PDPTE load failed, 3 NMI injection vs. blocking, 4 invalid VMCS link pointer" },
	{ VMX_EXIT_MSR_LOADING, "msr_loading", "1-based index of the failing VM-entry MSR-load entry" },
	{ VMX_EXIT_MWAIT, "mwait", NONE },
	{ VMX_EXIT_MONITOR_TRAP_FLAG, "monitor_trap_flag", NONE },
	{ VMX_EXIT_MONITOR, "monitor", NONE },
	{ VMX_EXIT_PAUSE, "pause", NONE },
	{ VMX_EXIT_MACHINE_CHECK, "machine_check_entry", NONE },
	{ VMX_EXIT_TPR_BELOW_THRESHOLD, "tpr_below_threshold", NONE },
	{ VMX_EXIT_APIC_ACCESS, "apic_access",
	  "11:0 page offset (linear accesses), 15:12 access type, 16 asynchronous to instruction" },
	{ VMX_EXIT_VIRTUALIZED_EOI, "virtualized_eoi", "7:0 vector" },
	{ VMX_EXIT_GDTR_IDTR_ACCESS, "gdtr_idtr_access", DISP },
	{ VMX_EXIT_LDTR_TR_ACCESS, "ldtr_tr_access", DISP },
	{ VMX_EXIT_EPT_VIOLATION, "ept_violation",
	  "0 read, 1 write, 2 fetch, 5:3 EPT R/W/X allowed, 7 linear address valid, "
	  "8 final translation, 12 NMI unblocking due to IRET (guest-physical address field)" },
	{ VMX_EXIT_EPT_MISCONFIG, "ept_misconfig", NONE },
	{ VMX_EXIT_INVEPT, "invept", DISP },
	{ VMX_EXIT_RDTSCP, "rdtscp", NONE },
	{ VMX_EXIT_PREEMPTION_TIMER, "preemption_timer", NONE },
	{ VMX_EXIT_INVVPID, "invvpid", DISP },
	{ VMX_EXIT_WBINVD, "wbinvd", NONE },
	{ VMX_EXIT_XSETBV, "xsetbv", NONE },
	{ VMX_EXIT_APIC_WRITE, "apic_write", "11:0 page offset of the write" },
	{ VMX_EXIT_RDRAND, "rdrand", NONE },
	{ VMX_EXIT_INVPCID, "invpcid", DISP },
	{ VMX_EXIT_VMFUNC, "vmfunc", NONE },
	{ VMX_EXIT_ENCLS, "encls", NONE },
	{ VMX_EXIT_RDSEED, "rdseed", NONE },
	{ VMX_EXIT_PML_FULL, "pml_full", "12 NMI unblocking due to IRET" },
	{ VMX_EXIT_XSAVES, "xsaves", DISP },
	{ VMX_EXIT_XRSTORS, "xrstors", DISP },
	{ VMX_EXIT_PCONFIG, "pconfig", NONE },
	{ VMX_EXIT_SPP_EVENT, "spp_event", "11 SPPT misconfiguration (0 miss), 12 NMI unblocking due to IRET" },
	{ VMX_EXIT_UMWAIT, "umwait", NONE },
	{ VMX_EXIT_TPAUSE, "tpause", NONE },
	{ VMX_EXIT_LOADIWKEY, "loadiwkey", NONE },
	{ VMX_EXIT_ENCLV, "enclv", NONE },
	{ VMX_EXIT_SGX_CONFLICT, "sgx_conflict", "conflict type" },
	{ VMX_EXIT_ENQCMD_PASID_FAILURE, "enqcmd_pasid_failure", NONE },
	{ VMX_EXIT_ENQCMDS_PASID_FAILURE, "enqcmds_pasid_failure", NONE },
	{ VMX_EXIT_BUS_LOCK, "bus_lock", NONE },
	{ VMX_EXIT_INSTRUCTION_TIMEOUT, "instruction_timeout",
	  "0 VM context invalid, 12 NMI unblocking due to IRET" },
	{ VMX_EXIT_SEAMCALL, "seamcall", NONE },
	{ VMX_EXIT_TDCALL, "tdcall", NONE },
	{ VMX_EXIT_RDMSRLIST, "rdmsrlist", NONE },
	{ VMX_EXIT_WRMSRLIST, "wrmsrlist", NONE },
};

#define NEXITS (sizeof(vmx_exits) / sizeof(vmx_exits[0]))

/* Binary search over the rows, which are sorted by reason (the unit test
 * checks the order), so the table stays the only source of truth. */
const struct vmx_exit_info *vmx_exit_lookup(uint32_t exit_reason)
{
	uint16_t basic = (uint16_t)(exit_reason & VMX_EXIT_BASIC_MASK);
	size_t lo = 0, hi = NEXITS;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (vmx_exits[mid].reason == basic)
			return &vmx_exits[mid];
		if (vmx_exits[mid].reason < basic)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *vmx_exit_name(uint32_t exit_reason)
{
	const struct vmx_exit_info *e = vmx_exit_lookup(exit_reason);
	return e ? e->name : "unknown";
}

const struct vmx_exit_info *vmx_exit_table(size_t *count)
{
	*count = NEXITS;
	return vmx_exits;
}
