/* An executable reading of the APM's #VMEXIT rules, for svm_exit_fuzz: given
 * the state before VMRUN (the VMCB, the permission maps, the L2 code as a
 * list of templates and the L2 world's layout) it predicts what the VMCB
 * holds after the #VMEXIT: EXITCODE, EXITINFO1/2, EXITINTINFO, nRIP, the
 * saved guest state, and for VMEXIT_INVALID which checks of APM2 15.5.1
 * fail. Written from APM2 chapter 15 (24593 rev. 3.42, docs/MANUALS.md), not
 * from svm/: it calls nothing of svm/ and shares only the VMCB layout
 * (svm/vmcb.h). What it cannot predict exactly it calls unknown, with a
 * reason, and never guesses.
 */
#ifndef HVEMU_FUZZ_SVM_ORACLE_H
#define HVEMU_FUZZ_SVM_ORACLE_H

#include <stdbool.h>
#include <stdint.h>

#include "fuzz/oracle_common.h"
#include "svm/vmcb.h"

/* The processor as a VMM learns it from CPUID. */
struct oracle_cpu {
	struct oracle_cpuid id;            /* Fn0000_0001, Fn0000_0007_x0, Fn8000_0001, Fn8000_0008 */
	uint32_t svm_edx;                  /* Fn8000_000A_EDX */
};

/* The L2 instruction templates. Each is a few set-up MOVs and one key
 * instruction; the oracle knows where the key instruction starts and how
 * long it is (the fuzzer assembled it). */
enum oracle_op {
	OP_NOP, OP_CPUID, OP_RDTSC, OP_RDTSCP, OP_RDPMC, OP_HLT, OP_PAUSE, OP_INVD, OP_WBINVD,
	OP_VMMCALL, OP_INVLPG, OP_PUSHF,
	OP_IN, OP_OUT, OP_INS, OP_OUTS,    /* port in imm (imm form) or DX */
	OP_RDMSR, OP_WRMSR,
	OP_MOV_FROM_CR, OP_MOV_TO_CR, OP_MOV_FROM_DR, OP_MOV_TO_DR,
	OP_INTN, OP_INT3, OP_UD2, OP_DIV0, OP_ICEBP,
	OP_LOAD, OP_STORE,                 /* mov eax, [moffs] / mov [moffs], eax */
	OP_RETF16,                         /* 66 CB: 16-bit far return (32-bit guests) */
	OP_XSETBV, OP_MONITOR, OP_MWAIT,
	OP_SIDT, OP_SGDT, OP_SLDT, OP_STR,   /* SIDT/SGDT [data], SLDT/STR AX */
	OP_LIDT, OP_LGDT, OP_LLDT, OP_LTR,   /* LIDT/LGDT [data], LLDT/LTR AX */
	OP_RSM, OP_INVLPGA, OP_VMLOAD, OP_VMSAVE, OP_STGI, OP_CLGI,
	OP_SETSP,                          /* mov esp, imm32 (value) */
	OP_COUNT,
};

struct oracle_input {
	const struct oracle_cpu *cpu;
	const struct oracle_l2_layout *layout;
	const struct vmcb *vmcb;           /* as VMRUN finds it */
	const struct l2_insn *insns;
	unsigned n_insns;
};

/* The consistency checks of APM2 15.5.1, one bit each. */
enum oracle_check {
	CHK_SVME, CHK_CD_NW, CHK_CR0_HIGH, CHK_CR3_MBZ, CHK_CR4_MBZ, CHK_DR6_HIGH, CHK_DR7_HIGH,
	CHK_EFER_MBZ, CHK_NO_LONG_MODE, CHK_LM_NO_PAE, CHK_LM_NO_PE, CHK_LM_CS_L_D, CHK_VMRUN_ICPT,
	CHK_MSRPM_BEYOND, CHK_IOPM_BEYOND, CHK_EVENTINJ, CHK_ASID, CHK_COUNT,
};

enum oracle_outcome {
	OUT_EXIT,                          /* a #VMEXIT (or VMEXIT_INVALID) */
	OUT_HALT,                          /* the guest halts, no #VMEXIT */
	OUT_UNKNOWN,                       /* outside what the oracle models */
};

/* Which prediction fields are defined (the APM says what they hold). */
#define PF_INFO1      (1u << 0)
#define PF_INFO2      (1u << 1)
#define PF_RAX        (1u << 2)
#define PF_RSP        (1u << 3)
#define PF_STATE      (1u << 4)        /* CRs, EFER, segments, CPL, RFLAGS, DR7 as loaded */

struct oracle_prediction {
	enum oracle_outcome outcome;
	const char *unknown_why;
	uint64_t exitcode, info1, info2, intinfo, nrip, rip, rax, rsp, rflags;
	unsigned defined;                  /* PF_* */
	int rule;                          /* the rule the exit comes from (enum rule, svm_oracle_sim.h) */
	uint32_t failing_checks;           /* VMEXIT_INVALID: bit per enum oracle_check */
	unsigned shape;                    /* a small number telling EXITINFO layouts apart */
};

void oracle_predict(const struct oracle_input *in, struct oracle_prediction *p);

/* What hvemu wrote: the VMCB after the #VMEXIT, whether the guest halted
 * instead, and the check hvemu named for a VMEXIT_INVALID (its text). */
struct oracle_actual {
	const struct vmcb *vmcb;
	bool halted_in_guest;
	const char *failed_check;
	bool names_no_check;               /* a peer (QEMU) that names no failed check: a
					      VMEXIT_INVALID agrees on EXITCODE alone */
};

/* Compare; print each disagreement (field, predicted, actual, citation) to
 * stderr. Returns the number of disagreements. Counts the rules. */
unsigned oracle_compare(const struct oracle_input *in, const struct oracle_prediction *p,
			const struct oracle_actual *a);

/* Predict the cases the oracle otherwise leaves open by the APM's general
 * rules (fuzz/findings/README.md): RDPMC of counter 0 at CPL 0 reads it
 * (APM2 13.2.1); a MOV to CR whose value faults exits on its intercept (APM2
 * 15.9, operand-value exceptions after the intercept); a #PF on SGDT/SIDT's
 * operand reports its first byte. */
extern bool oracle_strict;

/* The field of the last disagreement oracle_compare() printed ("EXITINFO2"). */
extern const char *oracle_last_disagreement;

/* The disagreements of the last oracle_compare(), for drivers that report
 * them their way (svm_exit_diff); with oracle_quiet nothing is printed. */
struct oracle_disagreement {
	const char *field;
	uint64_t want, got;
	const char *cite;
};
#define ORACLE_MAX_DISAGREEMENTS 16
extern struct oracle_disagreement oracle_disagreements[ORACLE_MAX_DISAGREEMENTS];
extern unsigned oracle_n_disagreements;
extern bool oracle_quiet;

/* The rule-coverage table: each rule's citation and how often it held and
 * did not hold; each exit code x EXITINFO shape seen; the unknowns. */
void oracle_print_coverage(void);

/* The coverage table in a few numbers, for a status line. */
struct oracle_coverage_summary {
	unsigned rules;                    /* rules with a citation */
	unsigned rules_both_ways;          /* ... seen to hold and not to hold */
	unsigned rules_one_way;            /* ... seen one way only */
	unsigned cells;                    /* exit code x EXITINFO shape cells agreed on */
	uint64_t predictions, unknown;
};
void oracle_coverage_summary(struct oracle_coverage_summary *s);

/* The check a hvemu failed-check text names, or -1. */
int oracle_check_of_text(const char *text);

const char *oracle_check_name(enum oracle_check c);

#endif
