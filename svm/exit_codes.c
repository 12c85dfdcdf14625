/* The #VMEXIT code table (APM2 Appendix C, Table C-1), with the contents of
 * EXITINFO1/EXITINFO2 per code (APM2 15.7.1; decode-assist contents, marked
 * "(decode assists)", only when CPUID Fn8000_000A_EDX[DecodeAssists] = 1). Rows are sorted by code; svm_exit_lookup() binary-searches. */
#include "svm/exit_codes.h"

/* Sixteen rows of one register range: name pasting only (CONVENTIONS 11). */
#define ROWS16(base, pfx, sfx, i1, i2) \
	{ (base) + 0x0, pfx "0" sfx, i1, i2 }, { (base) + 0x1, pfx "1" sfx, i1, i2 }, \
	{ (base) + 0x2, pfx "2" sfx, i1, i2 }, { (base) + 0x3, pfx "3" sfx, i1, i2 }, \
	{ (base) + 0x4, pfx "4" sfx, i1, i2 }, { (base) + 0x5, pfx "5" sfx, i1, i2 }, \
	{ (base) + 0x6, pfx "6" sfx, i1, i2 }, { (base) + 0x7, pfx "7" sfx, i1, i2 }, \
	{ (base) + 0x8, pfx "8" sfx, i1, i2 }, { (base) + 0x9, pfx "9" sfx, i1, i2 }, \
	{ (base) + 0xa, pfx "10" sfx, i1, i2 }, { (base) + 0xb, pfx "11" sfx, i1, i2 }, \
	{ (base) + 0xc, pfx "12" sfx, i1, i2 }, { (base) + 0xd, pfx "13" sfx, i1, i2 }, \
	{ (base) + 0xe, pfx "14" sfx, i1, i2 }, { (base) + 0xf, pfx "15" sfx, i1, i2 }

#define CR_INFO1 "MOV: bit 63 = 1, 3:0 = GPR number; LMSW/CLTS/SMSW: 0 (decode assists)"
#define DR_INFO1 "3:0 = GPR number (decode assists)"
#define EXC_NOERR "-"
#define EXC_ERR "error code pushed by the exception"
#define TRAP_INFO1 "new value of the register (after the write)"

static const struct svm_exit_info svm_exits[] = {
	ROWS16(SVM_EXIT_CR_READ, "read_cr", "", CR_INFO1, "-"),
	ROWS16(SVM_EXIT_CR_WRITE, "write_cr", "", CR_INFO1, "-"),
	ROWS16(SVM_EXIT_DR_READ, "read_dr", "", DR_INFO1, "-"),
	ROWS16(SVM_EXIT_DR_WRITE, "write_dr", "", DR_INFO1, "-"),
	/* APM2 15.12: EXITINFO1 = error code for exceptions that push one. */
	{ 0x40, "excp_de", EXC_NOERR, "-" },
	{ 0x41, "excp_db", EXC_NOERR, "-" },
	{ 0x42, "excp_02", EXC_NOERR, "-" },
	{ 0x43, "excp_bp", EXC_NOERR, "-" },
	{ 0x44, "excp_of", EXC_NOERR, "-" },
	{ 0x45, "excp_br", EXC_NOERR, "-" },
	{ 0x46, "excp_ud", EXC_NOERR, "-" },
	{ 0x47, "excp_nm", EXC_NOERR, "-" },
	{ 0x48, "excp_df", EXC_ERR " (0)", "-" },
	{ 0x49, "excp_09", EXC_NOERR, "-" },
	{ 0x4a, "excp_ts", EXC_ERR, "-" },
	{ 0x4b, "excp_np", EXC_ERR, "-" },
	{ 0x4c, "excp_ss", EXC_ERR, "-" },
	{ 0x4d, "excp_gp", EXC_ERR, "-" },
	{ 0x4e, "excp_pf", EXC_ERR, "faulting linear address (what CR2 would get)" },
	{ 0x4f, "excp_15", EXC_NOERR, "-" },
	{ 0x50, "excp_mf", EXC_NOERR, "-" },
	{ 0x51, "excp_ac", EXC_ERR " (0)", "-" },
	{ 0x52, "excp_mc", EXC_NOERR, "-" },
	{ 0x53, "excp_xf", EXC_NOERR, "-" },
	{ 0x54, "excp_ve", EXC_NOERR, "-" },
	{ 0x55, "excp_cp", EXC_ERR, "-" },
	{ 0x56, "excp_22", EXC_NOERR, "-" },
	{ 0x57, "excp_23", EXC_NOERR, "-" },
	{ 0x58, "excp_24", EXC_NOERR, "-" },
	{ 0x59, "excp_25", EXC_NOERR, "-" },
	{ 0x5a, "excp_26", EXC_NOERR, "-" },
	{ 0x5b, "excp_27", EXC_NOERR, "-" },
	{ 0x5c, "excp_hv", EXC_NOERR, "-" },
	{ 0x5d, "excp_vc", EXC_ERR, "-" },
	{ 0x5e, "excp_sx", EXC_ERR, "-" },
	{ 0x5f, "excp_31", EXC_NOERR, "-" },
	{ SVM_EXIT_INTR, "intr", "-", "-" },
	{ SVM_EXIT_NMI, "nmi", "-", "-" },
	{ SVM_EXIT_SMI, "smi", "0 = SMI from an external source; else implementation-specific", "-" },
	{ SVM_EXIT_INIT, "init", "-", "-" },
	{ SVM_EXIT_VINTR, "vintr", "-", "-" },
	{ SVM_EXIT_CR0_SEL_WRITE, "cr0_sel_write", CR_INFO1, "-" },
	{ SVM_EXIT_IDTR_READ, "idtr_read", "-", "-" },
	{ SVM_EXIT_GDTR_READ, "gdtr_read", "-", "-" },
	{ SVM_EXIT_LDTR_READ, "ldtr_read", "-", "-" },
	{ SVM_EXIT_TR_READ, "tr_read", "-", "-" },
	{ SVM_EXIT_IDTR_WRITE, "idtr_write", "-", "-" },
	{ SVM_EXIT_GDTR_WRITE, "gdtr_write", "-", "-" },
	{ SVM_EXIT_LDTR_WRITE, "ldtr_write", "-", "-" },
	{ SVM_EXIT_TR_WRITE, "tr_write", "-", "-" },
	{ SVM_EXIT_RDTSC, "rdtsc", "-", "-" },
	{ SVM_EXIT_RDPMC, "rdpmc", "-", "-" },
	{ SVM_EXIT_PUSHF, "pushf", "-", "-" },
	{ SVM_EXIT_POPF, "popf", "-", "-" },
	{ SVM_EXIT_CPUID, "cpuid", "-", "-" },
	{ SVM_EXIT_RSM, "rsm", "-", "-" },
	{ SVM_EXIT_IRET, "iret", "-", "-" },
	{ SVM_EXIT_SWINT, "swint", "7:0 = INTn vector (decode assists)", "-" },
	{ SVM_EXIT_INVD, "invd", "-", "-" },
	{ SVM_EXIT_PAUSE, "pause", "-", "-" },
	{ SVM_EXIT_HLT, "hlt", "-", "-" },
	{ SVM_EXIT_INVLPG, "invlpg", "linear address operand (decode assists)", "-" },
	{ SVM_EXIT_INVLPGA, "invlpga", "-", "-" },
	{ SVM_EXIT_IOIO, "ioio", "port, size, address size, segment, REP/STR/IN (SVM_IOIO_*)",
	  "rIP of the next instruction" },
	{ SVM_EXIT_MSR, "msr", "0 = RDMSR, 1 = WRMSR", "-" },
	{ SVM_EXIT_TASK_SWITCH, "task_switch", "15:0 = target TSS selector",
	  "bit 36 IRET, bit 38 JMP, bit 44 error code valid, 31:0 error code" },
	{ SVM_EXIT_FERR_FREEZE, "ferr_freeze", "-", "-" },
	{ SVM_EXIT_SHUTDOWN, "shutdown", "-", "-" },
	{ SVM_EXIT_VMRUN, "vmrun", "-", "-" },
	{ SVM_EXIT_VMMCALL, "vmmcall", "-", "-" },
	{ SVM_EXIT_VMLOAD, "vmload", "-", "-" },
	{ SVM_EXIT_VMSAVE, "vmsave", "-", "-" },
	{ SVM_EXIT_STGI, "stgi", "-", "-" },
	{ SVM_EXIT_CLGI, "clgi", "-", "-" },
	{ SVM_EXIT_SKINIT, "skinit", "-", "-" },
	{ SVM_EXIT_RDTSCP, "rdtscp", "-", "-" },
	{ SVM_EXIT_ICEBP, "icebp", "-", "-" },
	{ SVM_EXIT_WBINVD, "wbinvd", "-", "-" },
	{ SVM_EXIT_MONITOR, "monitor", "-", "-" },
	{ SVM_EXIT_MWAIT, "mwait", "-", "-" },
	{ SVM_EXIT_MWAIT_CONDITIONAL, "mwait_conditional", "-", "-" },
	{ SVM_EXIT_XSETBV, "xsetbv", "-", "-" },
	{ SVM_EXIT_RDPRU, "rdpru", "-", "-" },
	{ SVM_EXIT_EFER_WRITE_TRAP, "efer_write_trap", TRAP_INFO1, "-" },
	ROWS16(SVM_EXIT_CR_WRITE_TRAP, "cr", "_write_trap", TRAP_INFO1, "-"),
	{ SVM_EXIT_INVLPGB, "invlpgb", "-", "-" },
	{ SVM_EXIT_INVLPGB_ILLEGAL, "invlpgb_illegal", "-", "-" },
	{ SVM_EXIT_INVPCID, "invpcid", "linear address of the descriptor (decode assists)",
	  "INVPCID type (decode assists)" },
	{ SVM_EXIT_MCOMMIT, "mcommit", "-", "-" },
	{ SVM_EXIT_TLBSYNC, "tlbsync", "-", "-" },
	{ SVM_EXIT_BUS_LOCK, "buslock", "-", "-" },
	{ SVM_EXIT_IDLE_HLT, "idle_hlt", "-", "-" },
	/* APM2 15.25 (nested page faults) */
	{ SVM_EXIT_NPF, "npf", "#PF-style error code, bit 32 final address, bit 33 page-table walk",
	  "faulting guest physical address" },
	/* APM2 15.29 (AVIC) */
	{ SVM_EXIT_AVIC_INCOMPLETE_IPI, "avic_incomplete_ipi", "ICR high:low",
	  "31:0 ICR destination/ID, 39:32 failure cause" },
	{ SVM_EXIT_AVIC_NOACCEL, "avic_noaccel", "11:4 APIC register offset, bit 32 write",
	  "31:0 vector of the trapped access" },
	{ SVM_EXIT_VMGEXIT, "vmgexit", "-", "-" },
	{ SVM_EXIT_INVALID_PMC, "invalid_pmc", "-", "-" },
	{ SVM_EXIT_IDLE_REQUIRED, "idle_required", "-", "-" },
	{ SVM_EXIT_BUSY, "busy", "-", "-" },
	{ SVM_EXIT_INVALID, "invalid", "-", "-" },
};

const struct svm_exit_info *svm_exit_lookup(uint64_t code)
{
	size_t lo = 0, hi = sizeof(svm_exits) / sizeof(svm_exits[0]);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (svm_exits[mid].code == code)
			return &svm_exits[mid];
		if (svm_exits[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *svm_exit_name(uint64_t code)
{
	const struct svm_exit_info *e = svm_exit_lookup(code);
	return e ? e->name : "unknown";
}

const struct svm_exit_info *svm_exit_table(size_t *count)
{
	*count = sizeof(svm_exits) / sizeof(svm_exits[0]);
	return svm_exits;
}
