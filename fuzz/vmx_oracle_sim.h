/* The VMX oracle's internals, shared by its parts; the fuzz target sees only
 * fuzz/vmx_oracle.h.
 *   vmx_oracle_checks.c  SDM Vol.3 26.2, 26.3.1: the VM-entry checks
 *   vmx_oracle.c         the entered guest, template by template: which
 *                        instructions exit (25.1), their reason, qualification,
 *                        instruction length and information (27.2)
 *   vmx_oracle_events.c  faults, the exception bitmap (25.2), delivery through
 *                        the guest IDT, VM-exit interruption and IDT-vectoring
 *                        information (27.2.2, 27.2.3), event injection (26.5)
 *   vmx_oracle_rules.c   the rules' citations and coverage; the comparison of a
 *                        prediction with the VMCS hvemu wrote
 */
#ifndef HVEMU_FUZZ_VMX_ORACLE_SIM_H
#define HVEMU_FUZZ_VMX_ORACLE_SIM_H

#include "fuzz/oracle_sim.h"
#include "fuzz/vmx_oracle.h"

/* ---- Architectural constants, from the manuals (not from vmx/) ---------- */

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
#define CR4_PAE (1ull << 5)
#define CR4_PCIDE (1ull << 17)
#define CR4_OSXSAVE (1ull << 18)
#define EFER_LME (1ull << 8)
#define EFER_LMA (1ull << 10)

/* Access rights, SDM Vol.3 24.4.1 Table 24-2. */
#define AR_TYPE 0xfu
#define AR_S (1u << 4)
#define AR_DPL_SHIFT 5
#define AR_P (1u << 7)
#define AR_L (1u << 13)
#define AR_DB (1u << 14)
#define AR_G (1u << 15)
#define AR_UNUSABLE (1u << 16)

/* Controls: bit numbers of SDM Vol.3 Tables 24-5 (pin), 24-6 (primary),
 * 24-7 (secondary), 24-11 (exit), 24-13 (entry) in the pinned edition. */
enum {
	PIN_NMI_EXITING = 3, PIN_VIRTUAL_NMIS = 5, PIN_PREEMPT_TIMER = 6,
	PROC_HLT = 7, PROC_INVLPG = 9, PROC_MWAIT = 10, PROC_RDPMC = 11, PROC_RDTSC = 12,
	PROC_CR3_LOAD = 15, PROC_CR3_STORE = 16, PROC_CR8_LOAD = 19, PROC_CR8_STORE = 20,
	PROC_TPR_SHADOW = 21, PROC_NMI_WINDOW = 22, PROC_MOV_DR = 23, PROC_UNCOND_IO = 24, PROC_IO_BITMAPS = 25,
	PROC_MTF = 27, PROC_MSR_BITMAPS = 28, PROC_MONITOR = 29, PROC_PAUSE = 30, PROC_SECONDARY = 31,
	PROC2_DESC_TABLE = 2, PROC2_RDTSCP = 3, PROC2_VPID = 5, PROC2_WBINVD = 6, PROC2_UNRESTRICTED = 7,
	PROC2_RDRAND = 11, PROC2_RDSEED = 16,
	EXIT_HOST_ADDR_SPACE = 9, EXIT_SAVE_PREEMPT = 22,
	ENTRY_IA32E_GUEST = 9, ENTRY_SMM = 10, ENTRY_DUAL_MONITOR = 11, ENTRY_LOAD_EFER = 15,
	ENTRY_LOAD_DEBUG = 2,
};

/* Basic exit reasons, SDM Vol.3 Appendix C Table C-1. */
enum {
	XR_EXCEPTION = 0, XR_TRIPLE_FAULT = 2, XR_CPUID = 10, XR_HLT = 12, XR_INVD = 13, XR_INVLPG = 14,
	XR_RDPMC = 15, XR_RDTSC = 16, XR_VMCALL = 18, XR_VMCLEAR = 19, XR_VMLAUNCH = 20, XR_VMPTRLD = 21,
	XR_VMPTRST = 22, XR_VMREAD = 23, XR_VMRESUME = 24, XR_VMWRITE = 25, XR_VMXOFF = 26, XR_VMXON = 27,
	XR_CR = 28, XR_DR = 29, XR_IO = 30, XR_RDMSR = 31, XR_WRMSR = 32, XR_INVALID_GUEST = 33, XR_MSR_LOADING = 34,
	XR_MWAIT = 36, XR_MONITOR = 39, XR_PAUSE = 40, XR_GDTR_IDTR = 46, XR_LDTR_TR = 47, XR_RDTSCP = 51,
	XR_WBINVD = 54, XR_XSETBV = 55, XR_RDRAND = 57, XR_RDSEED = 61,
};
#define XR_ENTRY_FAILURE (1u << 31)
#define XR_COUNT 64

enum { V_DE = 0, V_DB = 1, V_NMI = 2, V_BP = 3, V_UD = 6, V_DF = 8, V_GP = 13, V_PF = 14 };
/* Interruption types, SDM Vol.3 24.8.3 Table 24-14 and 24.9.2. */
enum { T_EXTERNAL = 0, T_NMI = 2, T_HW_EXCEPTION = 3, T_SW_INT = 4, T_PRIV_SW_EXCEPTION = 5,
       T_SW_EXCEPTION = 6, T_OTHER = 7 };
#define EV_VALID (1u << 31)
#define EV_ERR_VALID (1u << 11)

/* ---- The rules ------------------------------------------------------------ */

enum vo_rule {
	R_CHECKS_FIRST,                    /* one per enum vo_check */
	R_CPUID = R_CHECKS_FIRST + VC_COUNT, R_HLT, R_HALT, R_INVD, R_INVLPG, R_RDPMC, R_RDTSC, R_RDTSCP,
	R_RDTSCP_UD, R_VMCALL, R_VMX_INSN, R_VMX_INFO, R_VMREAD_INFO, R_CR_QUAL, R_CR0_MASK, R_CR3_LOAD,
	R_CR3_STORE, R_CR4_MASK, R_CR8, R_CLTS, R_LMSW, R_DR, R_IO_UNCOND, R_IO_BITMAP, R_IO_QUAL,
	R_IO_INFO, R_MSR_BITMAP, R_MSR_OUT_OF_RANGE, R_MWAIT, R_MONITOR, R_PAUSE, R_DT, R_DT_INFO,
	R_LDT_INFO, R_WBINVD, R_XSETBV, R_XSETBV_UD, R_RDRAND, R_EXCP_BITMAP, R_PF_PFEC, R_EXCP_INFO,
	R_PF_QUAL, R_SW_EXCP_LEN, R_IDT_VECTORING, R_IDT_VECTORING_NONE, R_GP_IDT_LIMIT, R_PF_GATE,
	R_FRAME_PF, R_SEG_LIMIT, R_GP_NONCANON, R_INJECT, R_SAVE_STATE, R_ENTRY_FAIL,
	R_VMFAIL, R_MSR_LOAD, R_COUNT,
};

/* Spec-rule coverage as fuzzer feedback (vmx_oracle_rules.c): one byte per
 * rule and side, one per exit reason x shape cell. */
#define VO_SHAPES 32
#define VO_FEEDBACK_SIZE (R_COUNT * 2 + XR_COUNT * VO_SHAPES)
extern uint8_t vo_feedback[VO_FEEDBACK_SIZE];
extern uint64_t vo_rule_held[R_COUNT], vo_rule_not_held[R_COUNT];

static inline void hit(int r, bool held)
{
	vo_feedback[r * 2 + held] = 1;
	if (held)
		vo_rule_held[r]++;
	else
		vo_rule_not_held[r]++;
}

void vo_note_prediction(const struct vo_prediction *p);

/* ---- The simulation -------------------------------------------------------- */

struct sim {
	const struct vo_input *in;
	const uint64_t *f;                 /* the VMCS by row */
	const struct oracle_l2_layout *l;
	struct vo_prediction *p;
	bool m64;
	uint64_t rax, rsp, rflags;
	bool rax_known, rsp_known;
	bool arith_known;                  /* RFLAGS' arithmetic flags */
	bool done;
};

#define F(s, id) ((s)->f[VMCS_ROW_##id])

static inline bool ctl(uint64_t field, unsigned bit)
{
	return (field >> bit) & 1;
}

/* The CR0 the guest runs with after VM entry: 26.3.2.1 does not load ET, CD,
 * NW, bits 63:32, 28:19, 17 and 15:6, which stay the L1's. */
static inline uint64_t entered_guest_cr0(const struct vo_input *in, uint64_t field)
{
	const uint64_t kept = 0xffffffff00000000ull | CR0_ET | CR0_CD | CR0_NW | (0x3ffull << 19) | (1ull << 17) |
			      (0x3ffull << 6);
	return (field & ~kept) | (in->cpu->cr0 & kept);
}

static inline bool pin(const struct sim *s, unsigned bit) { return ctl(F(s, PIN_BASED_CONTROLS), bit); }
static inline bool proc(const struct sim *s, unsigned bit) { return ctl(F(s, PRIMARY_PROC_CONTROLS), bit); }
/* SDM Vol.3 24.6.2: with "activate secondary controls" 0 the processor
 * operates as if every secondary control were 0. */
static inline bool proc2(const struct sim *s, unsigned bit)
{
	return proc(s, PROC_SECONDARY) && ctl(F(s, SECONDARY_PROC_CONTROLS), bit);
}

static inline bool unknown(struct sim *s, const char *why)
{
	s->p->outcome = VO_OUT_UNKNOWN;
	s->p->unknown_why = why;
	s->done = true;
	return true;
}

/* A VM exit at insn (or before the first one, insn NULL). */
static inline bool exit_with(struct sim *s, const struct l2_insn *insn, uint32_t reason, int rule, unsigned shape)
{
	struct vo_prediction *p = s->p;
	p->outcome = VO_OUT_EXIT;
	p->reason = reason;
	p->rule = rule;
	p->shape = shape;
	p->rip = insn ? insn->rip : F(s, GUEST_RIP);
	p->rax = s->rax;
	p->rsp = s->rsp;
	p->rflags = s->rflags;
	p->defined |= VP_STATE | (s->rax_known ? VP_RAX : 0) | (s->rsp_known ? VP_RSP : 0) |
		      (s->arith_known ? VP_ARITH : 0);
	s->done = true;
	return true;
}

/* An exit due to an instruction: SDM Vol.3 27.2.5 (instruction length
 * defined), 27.3.3 (the saved RIP is the instruction's). */
static inline bool insn_exit(struct sim *s, const struct l2_insn *insn, uint32_t reason, int rule, unsigned shape)
{
	exit_with(s, insn, reason, rule, shape);
	s->p->len = insn->len;
	s->p->defined |= VP_LEN;
	return true;
}

/* Guest segment fields by register number (0-5: ES CS SS DS FS GS). */
uint64_t seg_base(const struct sim *s, int seg);
uint32_t seg_limit(const struct sim *s, int seg);

/* The x86 addressing of fuzz/oracle_common.h on the guest's VMCS fields. */
static inline uint64_t linear(const struct sim *s, int seg, uint64_t off)
{
	return oracle_linear(s->m64, seg, seg_base(s, seg), off);
}

static inline int override_seg(const struct sim *s, int seg, int dflt)
{
	return oracle_override_seg(s->m64, seg, dflt);
}

/* A supervisor data access of size bytes at seg:off. */
struct fault sim_data_access(const struct sim *s, int seg, uint64_t off, unsigned size, bool write);

/* Exception f raised by insn (a fault: RIP of insn); in_flight: the
 * IDT-vectoring word of the event being delivered (0: none), in_error its
 * error code, in_len the length of a software event's instruction. */
bool sim_exception(struct sim *s, const struct l2_insn *insn, const struct fault *f, uint32_t in_flight,
		   uint32_t in_error);

/* Deliver vector through the guest IDT: word is its interruption information
 * (type, error valid), error its code; ext the EXT bit of a nested error code. */
bool sim_deliver(struct sim *s, const struct l2_insn *insn, unsigned vector, uint32_t word, uint32_t error,
		 unsigned ext);

bool sim_step(struct sim *s, const struct l2_insn *i);

/* SDM Vol.3 26.2, 26.3.1: the failing checks (bits by enum vo_check) and
 * those the oracle cannot decide. */
void vo_checks(const struct vo_input *in, uint64_t fail[2], uint64_t unsure[2]);

static inline bool check_bit(const uint64_t set[2], unsigned k)
{
	return (set[k / 64] >> (k % 64)) & 1;
}

static inline void check_set(uint64_t set[2], unsigned k)
{
	set[k / 64] |= 1ull << (k % 64);
}

#endif
