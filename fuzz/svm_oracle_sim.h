/* The oracle's internals, shared by its parts; the fuzz target sees only
 * fuzz/svm_oracle.h.
 *   svm_oracle_checks.c  APM2 15.5.1: the consistency checks of VMRUN
 *   svm_oracle.c         the entered guest, template by template: intercepts,
 *                        exit codes, EXITINFO of instruction, IOIO, MSR, CR/DR exits
 *   svm_oracle_events.c  faults and their delivery through the guest IDT:
 *                        exception exits, their EXITINFO and EXITINTINFO
 *   svm_oracle_rules.c   the rules' citations and coverage; the comparison of a
 *                        prediction with the VMCB hvemu wrote (saved state included)
 */
#ifndef HVEMU_FUZZ_SVM_ORACLE_SIM_H
#define HVEMU_FUZZ_SVM_ORACLE_SIM_H

#include "fuzz/oracle_sim.h"
#include "fuzz/svm_oracle.h"

/* ---- Architectural constants, from the manuals (not from svm/) ---------- */

#define CR0_PE  (1ull << 0)
#define CR0_MP  (1ull << 1)
#define CR0_EM  (1ull << 2)
#define CR0_TS  (1ull << 3)
#define CR0_ET  (1ull << 4)
#define CR0_NE  (1ull << 5)
#define CR0_WP  (1ull << 16)
#define CR0_AM  (1ull << 18)
#define CR0_NW  (1ull << 29)
#define CR0_CD  (1ull << 30)
#define CR0_PG  (1ull << 31)
#define CR4_PSE (1ull << 4)
#define CR4_PAE (1ull << 5)
#define CR4_OSXSAVE (1ull << 18)
#define EFER_SCE   (1ull << 0)
#define EFER_LME   (1ull << 8)
#define EFER_LMA   (1ull << 10)
#define EFER_NXE   (1ull << 11)
#define EFER_SVME  (1ull << 12)
#define EFER_FFXSR (1ull << 14)
#define EFER_TCE   (1ull << 15)
#define SEG_L  (1u << 9)                   /* VMCB attribute word: descriptor bit 53 */
#define SEG_DB (1u << 10)

/* Exit codes, APM2 Appendix C Table C-1. */
enum {
	X_CR_READ = 0x000, X_CR_WRITE = 0x010, X_DR_READ = 0x020, X_DR_WRITE = 0x030,
	X_EXCP = 0x040, X_CR0_SEL = 0x065, X_RDTSC = 0x06e, X_RDPMC = 0x06f, X_PUSHF = 0x070,
	X_CPUID = 0x072, X_SWINT = 0x075, X_INVD = 0x076, X_PAUSE = 0x077, X_HLT = 0x078,
	X_INVLPG = 0x079, X_IOIO = 0x07b, X_MSR = 0x07c, X_VMMCALL = 0x081, X_RDTSCP = 0x087,
	X_ICEBP = 0x088, X_WBINVD = 0x089, X_MONITOR = 0x08a, X_MWAIT = 0x08b,
	X_MWAIT_ARMED = 0x08c, X_XSETBV = 0x08d, X_IDTR_READ = 0x066, X_GDTR_READ = 0x067,
	X_LDTR_READ = 0x068, X_TR_READ = 0x069, X_IDTR_WRITE = 0x06a, X_GDTR_WRITE = 0x06b,
	X_LDTR_WRITE = 0x06c, X_TR_WRITE = 0x06d, X_RSM = 0x073, X_INVLPGA = 0x07a, X_VMLOAD = 0x082,
	X_VMSAVE = 0x083, X_STGI = 0x084, X_CLGI = 0x085,
};
#define X_INVALID UINT64_C(0xffffffffffffffff)

/* Intercept bit numbers: word * 32 + bit, APM2 Table B-1 offsets 000h-010h. */
enum {
	I_CR_READ = 0, I_CR_WRITE = 16, I_DR_READ = 32, I_DR_WRITE = 48, I_EXCP = 64,
	I_CR0_SEL = 96 + 5, I_RDTSC = 96 + 14, I_RDPMC = 96 + 15, I_PUSHF = 96 + 16,
	I_CPUID = 96 + 18, I_INTN = 96 + 21, I_INVD = 96 + 22, I_PAUSE = 96 + 23, I_HLT = 96 + 24,
	I_INVLPG = 96 + 25, I_IOIO = 96 + 27, I_MSR = 96 + 28,
	I_VMRUN = 128, I_VMMCALL = 129, I_RDTSCP = 128 + 7, I_ICEBP = 128 + 8, I_WBINVD = 128 + 9,
	I_MONITOR = 128 + 10, I_MWAIT = 128 + 11, I_MWAIT_ARMED = 128 + 12, I_XSETBV = 128 + 13,
	I_IDTR_READ = 96 + 6, I_GDTR_READ = 96 + 7, I_LDTR_READ = 96 + 8, I_TR_READ = 96 + 9,
	I_IDTR_WRITE = 96 + 10, I_GDTR_WRITE = 96 + 11, I_LDTR_WRITE = 96 + 12, I_TR_WRITE = 96 + 13,
	I_RSM = 96 + 19, I_INVLPGA = 96 + 26, I_VMLOAD = 128 + 2, I_VMSAVE = 128 + 3, I_STGI = 128 + 4,
	I_CLGI = 128 + 5,
};

enum { V_DE = 0, V_BP = 3, V_UD = 6, V_GP = 13, V_PF = 14 };
enum { EV_INTR = 0, EV_NMI = 2, EV_EXCP = 3, EV_SOFT = 4 };     /* APM2 15.20 TYPE */
#define EV_VALID (1ull << 31)
#define EV_ERR_VALID (1ull << 11)

/* ---- The rules ------------------------------------------------------------ */

enum rule {
	/* APM2 15.5.1, one per enum oracle_check, in the same order. */
	R_CHECKS_FIRST,
	R_CPUID = R_CHECKS_FIRST + CHK_COUNT, R_RDTSC, R_RDTSCP, R_RDPMC, R_HLT, R_PAUSE, R_INVD,
	R_WBINVD, R_VMMCALL, R_VMMCALL_UD, R_INVLPG, R_PUSHF, R_IOIO, R_IOIO_INFO, R_MSR, R_MSR_OUT_OF_RANGE,
	R_CR_READ, R_CR_WRITE, R_CR0_SEL, R_DR_READ, R_DR_WRITE, R_SWINT, R_EXCP, R_PF_INFO,
	R_PF_WRAP, R_PF_CROSS, R_GP_NONCANON, R_SEG_LIMIT, R_DELIVER_SERIAL, R_GP_IDT_LIMIT, R_CR0_PG_NO_PE, R_XSETBV, R_XSETBV_UD,
	R_XSETBV_GP, R_MONITOR_UD, R_ICEBP, R_NRIP, R_NRIP_ZERO, R_INTINFO, R_INTINFO_NONE,
	R_INJECT, R_SAVE_STATE, R_HALT, R_DT_READ, R_DT_WRITE, R_RSM, R_RSM_UD, R_INVLPGA, R_SVM_INSN,
	R_FRAME_PF, R_SETSP, R_COUNT,
};

/* Spec-rule coverage as fuzzer feedback (svm_oracle_rules.c): one byte per
 * rule and side, one per exit code x EXITINFO shape cell. */
#define FEEDBACK_SIZE (R_COUNT * 2 + 256 * 32)
extern uint8_t oracle_feedback[FEEDBACK_SIZE];

/* How often each rule's condition was true / false. */
extern uint64_t oracle_rule_held[R_COUNT], oracle_rule_not_held[R_COUNT];

static inline void hit(int r, bool held)
{
	oracle_feedback[r * 2 + held] = 1;
	if (held)
		oracle_rule_held[r]++;
	else
		oracle_rule_not_held[r]++;
}

/* Count one prediction (and its reason, if unknown) for the coverage table. */
void oracle_note_prediction(const struct oracle_prediction *p);

/* ---- The simulation -------------------------------------------------------- */

struct sim {
	const struct oracle_input *in;
	const struct vmcb_save *v;
	const struct vmcb_control *c;
	const struct oracle_l2_layout *l;
	struct oracle_prediction *p;
	bool m64;
	uint64_t rax, rsp, rflags;
	bool rax_known, rsp_known;
	bool done;
};

static inline bool intercepted(const struct sim *s, unsigned bit)
{
	return (s->c->intercepts[bit / 32] >> (bit % 32)) & 1u;
}

static inline bool unknown(struct sim *s, const char *why)
{
	s->p->outcome = OUT_UNKNOWN;
	s->p->unknown_why = why;
	s->done = true;
	return true;
}

/* An exit at the instruction insn (or before the first one, insn NULL). */
static inline bool exit_with(struct sim *s, const struct l2_insn *insn, uint64_t code, int rule, unsigned shape)
{
	struct oracle_prediction *p = s->p;
	p->outcome = OUT_EXIT;
	p->exitcode = code;
	p->rule = rule;
	p->shape = shape;
	p->rip = insn ? insn->rip : s->v->rip;
	p->rax = s->rax;
	p->rsp = s->rsp;
	p->rflags = s->rflags;
	p->defined |= PF_STATE | (s->rax_known ? PF_RAX : 0) | (s->rsp_known ? PF_RSP : 0);
	s->done = true;
	return true;
}

/* An instruction intercept. APM2 15.7.1: nRIP = the next sequential rIP. */
static inline bool insn_exit(struct sim *s, const struct l2_insn *insn, uint64_t code, int rule, unsigned shape)
{
	exit_with(s, insn, code, rule, shape);
	s->p->nrip = insn->rip + insn->len;
	return true;
}

static inline const struct vmcb_seg *seg_of(const struct sim *s, int seg)
{
	const struct vmcb_seg *segs[6] = { &s->v->es, &s->v->cs, &s->v->ss, &s->v->ds, &s->v->fs, &s->v->gs };
	return segs[seg];
}

/* The x86 addressing of fuzz/oracle_common.h on the guest's VMCB state. */
static inline uint64_t linear(const struct sim *s, int seg, uint64_t off)
{
	return oracle_linear(s->m64, seg, seg_of(s, seg)->base, off);
}

static inline int override_seg(const struct sim *s, int seg, int dflt)
{
	return oracle_override_seg(s->m64, seg, dflt);
}

/* A data access of size bytes at seg:off (supervisor: CPL 0). */
struct fault sim_data_access(const struct sim *s, int seg, uint64_t off, unsigned size, bool write);

/* Exception vector raised by insn (fault: rIP of insn), with in_flight the
 * EXITINTINFO word of the event being delivered (0: none). */
bool sim_exception(struct sim *s, const struct l2_insn *insn, const struct fault *f, uint64_t in_flight);

/* Deliver vector through the guest IDT (APM2 8.4: 8-byte gates outside
 * 64-bit mode, 16-byte gates in it); the oracle models the faults of the
 * gate read and stops when the gate is read. word: the EXITINTINFO of the
 * event; ext: EXT of an IDT error code. */
bool sim_deliver(struct sim *s, const struct l2_insn *insn, unsigned vector, uint64_t word, unsigned ext);

/* One template (svm_oracle.c). */
bool sim_step(struct sim *s, const struct l2_insn *i);

/* APM2 3.1.3: the CR4 bits this processor's CPUID gives (svm_oracle_checks.c). */
uint64_t oracle_cr4_valid(const struct oracle_cpu *cpu);

/* APM2 15.5.1: the failing checks (definite) and those the oracle cannot decide. */
void oracle_checks(const struct oracle_input *in, uint32_t *fail, uint32_t *unsure);

#endif
