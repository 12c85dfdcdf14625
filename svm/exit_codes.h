/* #VMEXIT codes (APM2 Appendix C, Table C-1) and what EXITINFO1/EXITINFO2 hold
 * for each (APM2 15.7.1 and the sections named in svm/exit_codes.c).
 *
 * The VMCB EXITCODE field is 64 bits wide; the error codes are negative
 * (VMEXIT_INVALID = -1). Ranges (CRn, DRn, exceptions, CR write traps) are
 * written as base + n.
 */
#ifndef HVEMU_SVM_EXIT_CODES_H
#define HVEMU_SVM_EXIT_CODES_H

#include <stddef.h>
#include <stdint.h>

enum svm_exit_code {
	SVM_EXIT_CR_READ = 0x000,          /* + n, n = 0..15 */
	SVM_EXIT_CR_WRITE = 0x010,         /* + n */
	SVM_EXIT_DR_READ = 0x020,          /* + n */
	SVM_EXIT_DR_WRITE = 0x030,         /* + n */
	SVM_EXIT_EXCEPTION = 0x040,        /* + vector, 0..31 */
	SVM_EXIT_INTR = 0x060,
	SVM_EXIT_NMI = 0x061,
	SVM_EXIT_SMI = 0x062,
	SVM_EXIT_INIT = 0x063,
	SVM_EXIT_VINTR = 0x064,
	SVM_EXIT_CR0_SEL_WRITE = 0x065,
	SVM_EXIT_IDTR_READ = 0x066,
	SVM_EXIT_GDTR_READ = 0x067,
	SVM_EXIT_LDTR_READ = 0x068,
	SVM_EXIT_TR_READ = 0x069,
	SVM_EXIT_IDTR_WRITE = 0x06a,
	SVM_EXIT_GDTR_WRITE = 0x06b,
	SVM_EXIT_LDTR_WRITE = 0x06c,
	SVM_EXIT_TR_WRITE = 0x06d,
	SVM_EXIT_RDTSC = 0x06e,
	SVM_EXIT_RDPMC = 0x06f,
	SVM_EXIT_PUSHF = 0x070,
	SVM_EXIT_POPF = 0x071,
	SVM_EXIT_CPUID = 0x072,
	SVM_EXIT_RSM = 0x073,
	SVM_EXIT_IRET = 0x074,
	SVM_EXIT_SWINT = 0x075,
	SVM_EXIT_INVD = 0x076,
	SVM_EXIT_PAUSE = 0x077,
	SVM_EXIT_HLT = 0x078,
	SVM_EXIT_INVLPG = 0x079,
	SVM_EXIT_INVLPGA = 0x07a,
	SVM_EXIT_IOIO = 0x07b,
	SVM_EXIT_MSR = 0x07c,
	SVM_EXIT_TASK_SWITCH = 0x07d,
	SVM_EXIT_FERR_FREEZE = 0x07e,
	SVM_EXIT_SHUTDOWN = 0x07f,
	SVM_EXIT_VMRUN = 0x080,
	SVM_EXIT_VMMCALL = 0x081,
	SVM_EXIT_VMLOAD = 0x082,
	SVM_EXIT_VMSAVE = 0x083,
	SVM_EXIT_STGI = 0x084,
	SVM_EXIT_CLGI = 0x085,
	SVM_EXIT_SKINIT = 0x086,
	SVM_EXIT_RDTSCP = 0x087,
	SVM_EXIT_ICEBP = 0x088,
	SVM_EXIT_WBINVD = 0x089,
	SVM_EXIT_MONITOR = 0x08a,
	SVM_EXIT_MWAIT = 0x08b,
	SVM_EXIT_MWAIT_CONDITIONAL = 0x08c,
	SVM_EXIT_XSETBV = 0x08d,
	SVM_EXIT_RDPRU = 0x08e,
	SVM_EXIT_EFER_WRITE_TRAP = 0x08f,
	SVM_EXIT_CR_WRITE_TRAP = 0x090,    /* + n */
	SVM_EXIT_INVLPGB = 0x0a0,
	SVM_EXIT_INVLPGB_ILLEGAL = 0x0a1,
	SVM_EXIT_INVPCID = 0x0a2,
	SVM_EXIT_MCOMMIT = 0x0a3,
	SVM_EXIT_TLBSYNC = 0x0a4,
	SVM_EXIT_BUS_LOCK = 0x0a5,
	SVM_EXIT_IDLE_HLT = 0x0a6,
	SVM_EXIT_NPF = 0x400,
	SVM_EXIT_AVIC_INCOMPLETE_IPI = 0x401,
	SVM_EXIT_AVIC_NOACCEL = 0x402,
	SVM_EXIT_VMGEXIT = 0x403,
};

/* Negative EXITCODE values, as the 64-bit field holds them (APM2 Table C-1). */
#define SVM_EXIT_INVALID          UINT64_C(0xffffffffffffffff) /* -1: VMRUN consistency check failed */
#define SVM_EXIT_BUSY             UINT64_C(0xfffffffffffffffe) /* -2: SEV-ES VMSA busy */
#define SVM_EXIT_IDLE_REQUIRED    UINT64_C(0xfffffffffffffffd) /* -3: SEV-SNP */
#define SVM_EXIT_INVALID_PMC      UINT64_C(0xfffffffffffffffc) /* -4: PMC state invalid */

/* EXITINFO1 of an IOIO intercept (APM2 15.10.2). */
#define SVM_IOIO_TYPE_IN          (1ull << 0)   /* 1 = IN/INS, 0 = OUT/OUTS */
#define SVM_IOIO_STR              (1ull << 2)   /* INS/OUTS */
#define SVM_IOIO_REP              (1ull << 3)
#define SVM_IOIO_SZ8              (1ull << 4)   /* operand size, one-hot */
#define SVM_IOIO_SZ16             (1ull << 5)
#define SVM_IOIO_SZ32             (1ull << 6)
#define SVM_IOIO_A16              (1ull << 7)   /* address size, one-hot */
#define SVM_IOIO_A32              (1ull << 8)
#define SVM_IOIO_A64              (1ull << 9)
#define SVM_IOIO_SEG_SHIFT        10            /* 12:10 effective segment (string ops) */
#define SVM_IOIO_SEG_MASK         (7ull << 10)
#define SVM_IOIO_PORT_SHIFT       16            /* 31:16 port */
#define SVM_IOIO_PORT_MASK        (0xffffull << 16)

/* EXITINFO1 of a MOV CRn/DRn intercept with decode assists (APM2, Decode Assists). */
#define SVM_CRDR_MOV              (1ull << 63)  /* MOV CR/DR (vs. LMSW/CLTS/…) */
#define SVM_CRDR_GPR_MASK         0xfull        /* 3:0 general register number */

/* EXITINFO2 of a task-switch intercept (APM2, task-switch intercept). */
#define SVM_TASK_SWITCH_IRET      (1ull << 36)
#define SVM_TASK_SWITCH_JMP       (1ull << 38)
#define SVM_TASK_SWITCH_HAS_ERROR (1ull << 44)  /* 31:0 hold the error code */
#define SVM_TASK_SWITCH_RF        (1ull << 48)  /* RF of the EFLAGS image the old TSS would get */

/* EXITINFO1 of a nested page fault (APM2 15.25, nested page faults): #PF
 * error code bits plus */
#define SVM_NPF_FINAL_ADDR        (1ull << 32)  /* fault on the final guest-physical address */
#define SVM_NPF_PAGE_TABLE        (1ull << 33)  /* fault on a guest page-table access */

/* One row of Table C-1. The exitinfo strings name what the field holds in the
 * manual's words; "-" means the field is not written (holds no information). */
struct svm_exit_info {
	uint64_t code;
	const char *name;                  /* lower case, as in traces: "cpuid", "read_cr3" */
	const char *exitinfo1;
	const char *exitinfo2;
};

/* The row for an EXITCODE value, or NULL for a code the APM does not define.
 * Pure table lookup: safe on any value a guest leaves in a VMCB. */
const struct svm_exit_info *svm_exit_lookup(uint64_t code);

/* The row's name, or "unknown" for undefined codes. Never NULL. */
const char *svm_exit_name(uint64_t code);

/* The whole table, sorted by code (unsigned), for tests, fuzzers and dumps. */
const struct svm_exit_info *svm_exit_table(size_t *count);

#endif
