/* An executable reading of the SDM's VM-entry checks and VM-exit
 * information, for vmx_exit_fuzz: given the state before VMLAUNCH (the
 * current VMCS's fields, the I/O and MSR bitmaps, the L2 code as a list of
 * templates and the L2 world's layout) it predicts how the VMLAUNCH ends:
 * VMfailValid with the VM-instruction error of SDM Vol.3 26.2 and which of
 * its checks fail; a VM-entry failure (exit reason 33 with bit 31, 26.3.1)
 * and which guest-state checks fail; or a VM exit with its basic reason,
 * exit qualification, guest-linear address, VM-exit interruption and
 * IDT-vectoring information, instruction length and instruction information
 * (27.2), and the saved guest state (27.3). Written from SDM Vol.3 chapters
 * 24-27 and Appendices A-C (325462-075US, docs/MANUALS.md), not from vmx/: it
 * calls nothing of vmx/ and shares only the field encodings (the rows of
 * vmx/vmcs_fields.def, Appendix B's table). What it cannot predict exactly it
 * calls unknown, with a reason, and never guesses.
 */
#ifndef HVEMU_FUZZ_VMX_ORACLE_H
#define HVEMU_FUZZ_VMX_ORACLE_H

#include <stdbool.h>
#include <stdint.h>

#include "fuzz/oracle_common.h"
#include "vmx/vmcs.h"                  /* enum vmcs_row: the fields by Appendix B encoding */

/* The processor as a VMM learns it: the VMX capability MSRs (SDM Vol.3
 * Appendix A) and CPUID. */
struct vo_cpu {
	uint64_t basic, misc;              /* IA32_VMX_BASIC, IA32_VMX_MISC */
	uint64_t pin, proc, exit, entry;   /* IA32_VMX_(TRUE_)*_CTLS as A.2 says which to use */
	uint64_t proc2;                    /* IA32_VMX_PROCBASED_CTLS2 (0: none) */
	uint64_t cr0_fixed0, cr0_fixed1, cr4_fixed0, cr4_fixed1;
	struct oracle_cpuid id;            /* CPUID.01H, 07H, 80000001H, 80000008H */
	uint64_t efer, cr0;                /* the L1's IA32_EFER and CR0 when it executes VMLAUNCH */
};

/* The L2 instruction templates: a few set-up MOVs and one key instruction;
 * the oracle knows where the key instruction starts, how long it is and how
 * its memory operand is encoded (the fuzzer assembled it). */
enum vo_op {
	VO_NOP, VO_CPUID, VO_RDTSC, VO_RDTSCP, VO_RDPMC, VO_HLT, VO_PAUSE, VO_INVD, VO_WBINVD,
	VO_VMCALL, VO_INVLPG,
	VO_IN, VO_OUT, VO_INS, VO_OUTS,    /* port in imm (imm form) or DX */
	VO_RDMSR, VO_WRMSR,
	VO_MOV_FROM_CR, VO_MOV_TO_CR, VO_MOV_FROM_DR, VO_MOV_TO_DR, VO_CLTS, VO_LMSW,
	VO_INTN, VO_INT3, VO_UD2, VO_DIV0,
	VO_LOAD, VO_STORE,                 /* mov eax, [moffs] / mov [moffs], eax */
	VO_SGDT, VO_SIDT, VO_LGDT, VO_LIDT,        /* [mem] */
	VO_SLDT, VO_STR, VO_LLDT, VO_LTR,          /* register or [mem] */
	VO_VMCLEAR, VO_VMPTRLD, VO_VMPTRST, VO_VMXON,   /* [mem] */
	VO_VMREAD, VO_VMWRITE,             /* register or [mem], encoding in a register */
	VO_VMLAUNCH, VO_VMRESUME, VO_VMXOFF,
	VO_RDRAND, VO_RDSEED,              /* register */
	VO_XSETBV, VO_MONITOR, VO_MWAIT,
	VO_SETSP,                          /* mov esp, imm32 (value) */
	VO_COUNT,
};

struct vo_input {
	const struct vo_cpu *cpu;
	const struct oracle_l2_layout *layout;
	const uint64_t *vmcs;              /* the current VMCS's fields by enum vmcs_row, as VMLAUNCH finds them */
	const struct l2_insn *insns;
	unsigned n_insns;
};

/* The VM-entry checks the oracle models, each named by its SDM section. */
enum vo_check {
	/* 26.2.1.1 VM-execution control fields */
	VC_PIN_RESERVED, VC_PROC_RESERVED, VC_PROC2_RESERVED, VC_CR3_TARGETS, VC_IO_BITMAPS,
	VC_MSR_BITMAPS, VC_VIRTUAL_NMIS, VC_NMI_WINDOW, VC_VPID_ZERO,
	/* 26.2.1.2 VM-exit control fields */
	VC_EXIT_RESERVED, VC_PREEMPT_SAVE, VC_EXIT_MSR_STORE, VC_EXIT_MSR_LOAD,
	/* 26.2.1.3 VM-entry control fields */
	VC_ENTRY_RESERVED, VC_INJ_TYPE, VC_INJ_NMI_VECTOR, VC_INJ_HW_VECTOR, VC_INJ_OTHER_VECTOR,
	VC_INJ_ERRCODE_MISSING, VC_INJ_ERRCODE_EXTRA, VC_INJ_RESERVED, VC_INJ_ERRCODE_HIGH,
	VC_INJ_LENGTH, VC_ENTRY_MSR_LOAD, VC_ENTRY_SMM,
	/* 26.2.2 host control registers and MSRs */
	VC_HOST_CR0, VC_HOST_CR4, VC_HOST_CR3, VC_HOST_SYSENTER,
	/* 26.2.3 host segment and descriptor-table registers */
	VC_HOST_SEL_RPL_TI, VC_HOST_CS_TR_ZERO, VC_HOST_SS_ZERO, VC_HOST_BASES,
	/* 26.2.4 address-space size */
	VC_HOST_LMA_SIZE, VC_HOST_PAE, VC_HOST_RIP,
	/* 26.3.1.1 guest control registers, debug registers and MSRs */
	VC_GUEST_CR0, VC_GUEST_PG_PE, VC_GUEST_CR4, VC_GUEST_IA32E_PG, VC_GUEST_IA32E_PAE,
	VC_GUEST_PCIDE, VC_GUEST_CR3, VC_GUEST_DR7, VC_GUEST_SYSENTER,
	/* 26.3.1.2 guest segment registers */
	VC_GUEST_TR_TI, VC_GUEST_LDTR_TI, VC_GUEST_SS_RPL, VC_GUEST_BASES, VC_GUEST_CS_BASE_HIGH,
	VC_GUEST_DATA_BASE_HIGH, VC_GUEST_CS_TYPE, VC_GUEST_SS_TYPE, VC_GUEST_DATA_TYPE, VC_GUEST_S,
	VC_GUEST_CS_DPL, VC_GUEST_SS_DPL, VC_GUEST_DATA_DPL, VC_GUEST_P, VC_GUEST_AR_RESERVED,
	VC_GUEST_CS_L_DB, VC_GUEST_G_LIMIT, VC_GUEST_TR_TYPE, VC_GUEST_TR_S_P, VC_GUEST_LDTR_TYPE,
	/* 26.3.1.3 guest descriptor-table registers */
	VC_GUEST_DT_BASE, VC_GUEST_DT_LIMIT,
	/* 26.3.1.4 guest RIP and RFLAGS */
	VC_GUEST_RIP, VC_GUEST_RFLAGS_RESERVED, VC_GUEST_RFLAGS_VM, VC_GUEST_RFLAGS_IF,
	/* 26.3.1.5 guest non-register state */
	VC_GUEST_ACTIVITY, VC_GUEST_ACTIVITY_SS_DPL, VC_GUEST_ACTIVITY_BLOCKING, VC_GUEST_INTR_RESERVED, VC_GUEST_STI_MOVSS,
	VC_GUEST_STI_IF, VC_GUEST_INTR_INJECT, VC_GUEST_SMI, VC_GUEST_PENDING_DBG, VC_GUEST_LINK,
	VC_COUNT,
};

/* The three outcomes of a failed VM entry, by check (SDM Vol.3 26.2, 26.3). */
enum vo_check_group { VG_CONTROLS, VG_HOST, VG_GUEST };

enum vo_outcome {
	VO_OUT_EXIT,                       /* a VM exit (or a VM-entry failure, reason 33) */
	VO_OUT_VMFAIL,                     /* VMfailValid: L1 goes on with the error number */
	VO_OUT_HALT,                       /* the guest halts, no VM exit */
	VO_OUT_UNKNOWN,                    /* outside what the oracle models */
};

/* Which prediction fields are defined (the SDM says what they hold). */
#define VP_QUAL       (1u << 0)
#define VP_LINEAR     (1u << 1)
#define VP_LEN        (1u << 2)
#define VP_INFO       (1u << 3)
#define VP_INTR_ERROR (1u << 4)
#define VP_IDT_ERROR  (1u << 5)
#define VP_RAX        (1u << 6)
#define VP_RSP        (1u << 7)
#define VP_STATE      (1u << 8)       /* CRs, segments, RFLAGS as entered */
#define VP_ARITH      (1u << 9)       /* RFLAGS' arithmetic flags too */

struct vo_prediction {
	enum vo_outcome outcome;
	const char *unknown_why;
	uint32_t reason;                   /* exit reason, bit 31 for a VM-entry failure */
	uint64_t qual, linear;
	uint32_t len, info, info_mask;     /* instruction information: the defined bits only */
	uint32_t intr_info, intr_error, idt_info, idt_error;
	uint64_t rip, rsp, rax, rflags;
	unsigned defined;                  /* VP_* */
	int rule;                          /* the rule the exit comes from (enum vo_rule) */
	uint32_t vmfail_error;             /* VMfailValid: 7 or 8 (either, if both groups fail: see failing) */
	uint64_t failing[2];               /* failing checks, bit per enum vo_check */
	unsigned shape;                    /* a small number telling qualification/information layouts apart */
};

/* HVEMU_FUZZ_STRICT: decide the open questions (fuzz/findings/README.md) by
 * the oracle's reading instead of calling them unknown. */
extern bool vo_strict;

void vo_predict(const struct vo_input *in, struct vo_prediction *p);

/* What hvemu did: the VMCS after the VMLAUNCH (by row), whether the guest
 * halted instead, whether VMLAUNCH failed (VMfailValid: RFLAGS.ZF), the
 * check hvemu named (its text), and the L1's RAX after the exit. */
struct vo_actual {
	const uint64_t *vmcs;
	bool halted_in_guest;
	bool vmfail;
	const char *failed_check;
	uint64_t rax;
};

/* Compare; print each disagreement (field, predicted, actual, citation) to
 * stderr. Returns the number of disagreements. Counts the rules. */
unsigned vo_compare(const struct vo_input *in, const struct vo_prediction *p, const struct vo_actual *a);

/* The field of the last disagreement vo_compare() printed ("exit qualification"). */
extern const char *vo_last_disagreement;

/* The rule-coverage table: each rule's citation and how often it held and
 * did not hold; each exit reason x qualification shape seen; the unknowns. */
void vo_print_coverage(void);

struct vo_coverage_summary {
	unsigned rules, rules_both_ways, rules_one_way;
	unsigned checks, checks_both_ways;          /* the entry checks among the rules */
	unsigned cells, cells_possible;              /* exit reason x shape cells agreed on */
	uint64_t predictions, unknown;
};
void vo_coverage_summary(struct vo_coverage_summary *s);

/* The group (VMfailValid 7, 8, or a VM-entry failure) a check belongs to. */
enum vo_check_group vo_check_group_of(enum vo_check c);

#endif
