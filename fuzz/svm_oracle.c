/* The #VMEXIT oracle; see fuzz/svm_oracle.h. Every rule is a row of rules[]
 * with its APM2 section, and every prediction names the row it comes from,
 * so a disagreement prints the rule that was broken.
 */
#include "fuzz/svm_oracle.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

struct rule_row {
	const char *name;
	const char *cite;
};

/* How often each rule's condition was true / false. */
static uint64_t rule_held[R_COUNT], rule_not_held[R_COUNT];

static const struct rule_row rules[R_COUNT] = {
	[R_CHECKS_FIRST + CHK_SVME] = { "check EFER.SVME", "APM2 15.5.1: EFER.SVME is zero" },
	[R_CHECKS_FIRST + CHK_CD_NW] = { "check CR0.CD/NW", "APM2 15.5.1: CR0.CD is zero and CR0.NW is set" },
	[R_CHECKS_FIRST + CHK_CR0_HIGH] = { "check CR0[63:32]", "APM2 15.5.1: CR0[63:32] are not zero" },
	[R_CHECKS_FIRST + CHK_CR3_MBZ] = { "check CR3 MBZ", "APM2 15.5.1: any MBZ bit of CR3 is set (APM2 3.1.2 formats)" },
	[R_CHECKS_FIRST + CHK_CR4_MBZ] = { "check CR4 MBZ", "APM2 15.5.1: any MBZ bit of CR4 is set (APM2 3.1.3, CPUID gates)" },
	[R_CHECKS_FIRST + CHK_DR6_HIGH] = { "check DR6[63:32]", "APM2 15.5.1: DR6[63:32] are not zero" },
	[R_CHECKS_FIRST + CHK_DR7_HIGH] = { "check DR7[63:32]", "APM2 15.5.1: DR7[63:32] are not zero" },
	[R_CHECKS_FIRST + CHK_EFER_MBZ] = { "check EFER MBZ", "APM2 15.5.1: any MBZ bit of EFER is set (APM2 3.1.7)" },
	[R_CHECKS_FIRST + CHK_NO_LONG_MODE] = { "check LME/LMA w/o LM", "APM2 15.5.1: EFER.LMA or LME set, no long mode" },
	[R_CHECKS_FIRST + CHK_LM_NO_PAE] = { "check LME&PG&!PAE", "APM2 15.5.1: EFER.LME and CR0.PG set, CR4.PAE zero" },
	[R_CHECKS_FIRST + CHK_LM_NO_PE] = { "check LME&PG&!PE", "APM2 15.5.1: EFER.LME and CR0.PG set, CR0.PE zero" },
	[R_CHECKS_FIRST + CHK_LM_CS_L_D] = { "check CS.L&CS.D", "APM2 15.5.1: EFER.LME, CR0.PG, CR4.PAE, CS.L, CS.D all set" },
	[R_CHECKS_FIRST + CHK_VMRUN_ICPT] = { "check VMRUN intercept", "APM2 15.5.1: the VMRUN intercept bit is clear" },
	[R_CHECKS_FIRST + CHK_MSRPM_BEYOND] = { "check MSRPM extent", "APM2 15.5.1: the MSR map extends to >= MAXPHYADDR (Table B-1: 8 KB, bits 11:0 ignored)" },
	[R_CHECKS_FIRST + CHK_IOPM_BEYOND] = { "check IOPM extent", "APM2 15.5.1: the IOIO map extends to >= MAXPHYADDR (Table B-1: 12 KB, bits 11:0 ignored)" },
	[R_CHECKS_FIRST + CHK_EVENTINJ] = { "check EVENTINJ", "APM2 15.5.1, 15.20: illegal event injection (reserved TYPE, exception vector 2 or > 31)" },
	[R_CHECKS_FIRST + CHK_ASID] = { "check ASID", "APM2 15.5.1: ASID is zero" },
	[R_CPUID] = { "CPUID intercept", "APM2 15.9: CPUID -> exit 72h" },
	[R_RDTSC] = { "RDTSC intercept", "APM2 15.9: RDTSC -> exit 6Eh" },
	[R_RDTSCP] = { "RDTSCP intercept", "APM2 15.9: RDTSCP -> exit 87h" },
	[R_RDPMC] = { "RDPMC intercept", "APM2 15.9: RDPMC -> exit 6Fh" },
	[R_HLT] = { "HLT intercept", "APM2 15.9: HLT -> exit 78h" },
	[R_PAUSE] = { "PAUSE intercept", "APM2 15.9, 15.14.4: PAUSE -> exit 77h (filter count 0)" },
	[R_INVD] = { "INVD intercept", "APM2 15.9: INVD -> exit 76h" },
	[R_WBINVD] = { "WBINVD intercept", "APM2 15.9: WBINVD -> exit 89h" },
	[R_VMMCALL] = { "VMMCALL intercept", "APM2 15.9: VMMCALL -> exit 81h" },
	[R_VMMCALL_UD] = { "VMMCALL #UD", "APM3 VMMCALL: not intercepted, #UD" },
	[R_INVLPG] = { "INVLPG intercept", "APM2 15.9, 15.33: INVLPG -> exit 79h, EXITINFO1 = linear address" },
	[R_PUSHF] = { "PUSHF intercept", "APM2 15.9: PUSHF -> exit 70h" },
	[R_IOIO] = { "IOIO via IOPM", "APM2 15.10.1: IOIO_PROT and any IOPM bit of port..port+size-1 set" },
	[R_IOIO_INFO] = { "IOIO EXITINFO", "APM2 15.10.2: EXITINFO1 port/size/address size/SEG/REP/STR/TYPE, EXITINFO2 = next rIP" },
	[R_MSR] = { "MSR via MSRPM", "APM2 15.11: MSR_PROT and the MSRPM bit (2n read, 2n+1 write); EXITINFO1 0 = RDMSR, 1 = WRMSR" },
	[R_MSR_OUT_OF_RANGE] = { "MSR outside the map", "APM2 15.11: an MSR outside the three ranges is always intercepted" },
	[R_CR_READ] = { "CR read intercept", "APM2 15.8, 15.33: exit 0h+n, EXITINFO1 bit 63 = MOV, 3:0 = GPR" },
	[R_CR_WRITE] = { "CR write intercept", "APM2 15.8, 15.33: exit 10h+n, EXITINFO1 bit 63 = MOV, 3:0 = GPR" },
	[R_CR0_SEL] = { "CR0 selective write", "APM2 15.8.1: a CR0 write changing bits other than TS, MP -> exit 65h (CR0 write intercept first)" },
	[R_DR_READ] = { "DR read intercept", "APM2 15.9, 15.33: exit 20h+n, EXITINFO1 3:0 = GPR" },
	[R_DR_WRITE] = { "DR write intercept", "APM2 15.9, 15.33: exit 30h+n, EXITINFO1 3:0 = GPR" },
	[R_SWINT] = { "INTn intercept", "APM2 15.9, 15.33: INTn -> exit 75h, EXITINFO1 = vector" },
	[R_EXCP] = { "exception intercept", "APM2 15.12: exception vector n intercepted -> exit 40h+n, rIP of the faulting instruction" },
	[R_PF_INFO] = { "#PF EXITINFO", "APM2 15.12: #PF EXITINFO1 = error code, EXITINFO2 = faulting linear address" },
	[R_PF_WRAP] = { "#PF 32-bit wrap", "APM2 15.12, APM2 2.2: outside 64-bit mode the faulting linear address is 32 bits (base + offset wraps)" },
	[R_PF_CROSS] = { "#PF page crossing", "APM2 8.4.2 (CR2): the address of the byte in the page that faulted" },
	[R_GP_NONCANON] = { "#GP non-canonical", "APM2 5.3.1, 8.4: a non-canonical data address in 64-bit mode is #GP(0)" },
	[R_SEG_LIMIT] = { "#GP/#SS segment limit", "APM2 4.12.2: an access beyond the segment limit is #GP(0), #SS(0) through SS" },
	[R_DELIVER_SERIAL] = { "fault delivering a fault", "APM2 8.2.9: benign or contributory then #PF, benign then contributory: the second is handled serially; its intercept exits with the first in EXITINTINFO (15.7.2)" },
	[R_GP_IDT_LIMIT] = { "#GP IDT limit", "APM2 8.4.1: a vector beyond the IDT limit is #GP(vector*8+2+EXT)" },
	[R_CR0_PG_NO_PE] = { "#GP CR0.PG w/o PE", "APM2 3.1.1: MOV CR0 with PG=1, PE=0 is #GP(0), after the intercepts (15.9)" },
	[R_XSETBV] = { "XSETBV intercept", "APM2 15.9: XSETBV -> exit 8Dh" },
	[R_XSETBV_UD] = { "XSETBV #UD first", "APM2 15.9: simple exceptions (#UD with CR4.OSXSAVE=0) before the intercept" },
	[R_XSETBV_GP] = { "XSETBV #GP", "APM3 XSETBV: XCR0[0] = 0 is #GP(0), after the intercept (15.9)" },
	[R_MONITOR_UD] = { "MONITOR/MWAIT #UD", "APM2 15.9, APM3 MONITOR: #UD (no CPUID MONITOR) before the intercept" },
	[R_ICEBP] = { "ICEBP intercept", "APM2 15.9: ICEBP -> exit 88h" },
	[R_NRIP] = { "nRIP saved", "APM2 15.7.1: nRIP = next rIP on instruction, MSR, IOIO intercepts and INT3/INTO/BOUND exceptions" },
	[R_NRIP_ZERO] = { "nRIP zero", "APM2 15.7.1: nRIP is 0 on all other intercepts" },
	[R_INTINFO] = { "EXITINTINFO event", "APM2 15.7.2: EXITINTINFO = the event being delivered (V, TYPE, EV, vector, error code)" },
	[R_INTINFO_NONE] = { "EXITINTINFO none", "APM2 15.7.2: V = 0 when no event was being delivered" },
	[R_INJECT] = { "EVENTINJ delivered", "APM2 15.20: the injected event is delivered through the guest IDT before the first instruction" },
	[R_SAVE_STATE] = { "guest state saved", "APM2 15.6: #VMEXIT saves the guest's RIP, RSP, RAX, RFLAGS, CRs, EFER, segments, CPL" },
	[R_HALT] = { "HLT not intercepted", "APM3 HLT: the guest halts" },
	[R_FRAME_PF] = { "fault pushing a frame", "APM2 8.7.3: same-privilege delivery pushes (E)FLAGS, CS, (E)IP, error code at SS:ESP (2 bytes each through a 16-bit gate); a #PF there is a write" },
	[R_DT_READ] = { "IDTR/GDTR/LDTR/TR read", "APM2 15.9: SIDT, SGDT, SLDT, STR -> exit 66h-69h" },
	[R_DT_WRITE] = { "IDTR/GDTR/LDTR/TR write", "APM2 15.9: LIDT, LGDT, LLDT, LTR -> exit 6Ah-6Dh" },
	[R_RSM] = { "RSM intercept", "APM2 15.9: RSM -> exit 73h" },
	[R_RSM_UD] = { "RSM #UD", "APM3 RSM: #UD outside SMM" },
	[R_INVLPGA] = { "INVLPGA intercept", "APM2 15.9: INVLPGA -> exit 7Ah" },
	[R_SVM_INSN] = { "VMLOAD/VMSAVE/STGI/CLGI", "APM2 15.9: VMLOAD, VMSAVE, STGI, CLGI -> exit 82h-85h" },
};

/* Spec-rule coverage as fuzzer feedback: with libFuzzer, counters in this
 * section are coverage features like its edge counters, so an input that
 * makes a rule hold (or not) for the first time, or reaches a new exit x
 * EXITINFO shape cell, is kept. Without libFuzzer it is an ordinary array. */
#define FEEDBACK_SIZE (R_COUNT * 2 + 256 * 32)
#ifdef HVEMU_LIBFUZZER
__attribute__((used, section("__libfuzzer_extra_counters")))
#endif
static uint8_t feedback[FEEDBACK_SIZE];

bool oracle_strict;

static void hit(int r, bool held)
{
	feedback[r * 2 + held] = 1;
	if (held)
		rule_held[r]++;
	else
		rule_not_held[r]++;
}

static uint64_t unknown_count, predictions, exact_exits, halts_agreed;
static const char *unknown_whys[64];
static uint64_t unknown_why_count[64];
#define CELL_CODES 0x100
#define CELL_SHAPES 32
static uint32_t cells[CELL_CODES][CELL_SHAPES];
static uint32_t invalid_cells[CHK_COUNT];

/* ---- The simulation -------------------------------------------------------- */

struct sim {
	const struct oracle_input *in;
	const struct vmcb_save *v;
	const struct vmcb_control *c;
	const struct oracle_layout *l;
	struct oracle_prediction *p;
	bool m64;
	uint64_t rax, rsp, rflags;
	bool rax_known, rsp_known;
	bool done;
};

static bool intercepted(const struct sim *s, unsigned bit)
{
	return (s->c->intercepts[bit / 32] >> (bit % 32)) & 1u;
}

static bool unknown(struct sim *s, const char *why)
{
	s->p->outcome = OUT_UNKNOWN;
	s->p->unknown_why = why;
	s->done = true;
	return true;
}

/* An exit at the instruction insn (or before the first one, insn NULL). */
static bool exit_with(struct sim *s, const struct oracle_insn *insn, uint64_t code, int rule, unsigned shape)
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
static bool insn_exit(struct sim *s, const struct oracle_insn *insn, uint64_t code, int rule, unsigned shape)
{
	exit_with(s, insn, code, rule, shape);
	s->p->nrip = insn->rip + insn->len;
	return true;
}

static bool canonical(uint64_t a)
{
	/* APM2 5.3.1: 48-bit virtual addresses (CPUID Fn8000_0008_EAX[15:8]). */
	return (uint64_t)((int64_t)(a << 16) >> 16) == a;
}

static bool page_present(const struct sim *s, uint64_t lin)
{
	uint64_t page = lin & ~0xfffull;
	return lin < s->l->mapped_top && page != s->l->holes[0] && page != s->l->holes[1];
}

static const struct vmcb_seg *seg_of(const struct sim *s, int seg)
{
	const struct vmcb_seg *segs[6] = { &s->v->es, &s->v->cs, &s->v->ss, &s->v->ds, &s->v->fs, &s->v->gs };
	return segs[seg];
}

/* The linear address of seg:off. APM2 2.2 / 4.5: outside 64-bit mode base +
 * offset is 32 bits wide; in 64-bit mode the ES/CS/SS/DS bases are 0. */
static uint64_t linear(const struct sim *s, int seg, uint64_t off)
{
	if (s->m64)
		return (seg == 4 || seg == 5) ? seg_of(s, seg)->base + off : off;
	return (uint32_t)(seg_of(s, seg)->base + off);
}

/* The segment an override selects. APM3 1.2.4: in 64-bit mode the ES, CS,
 * SS and DS overrides are ignored (the default segment stays). */
static int override_seg(const struct sim *s, int seg, int dflt)
{
	if (seg < 0 || (s->m64 && seg < 4))
		return dflt;
	return seg;
}

/* A fault: vector, error code. */
struct fault {
	int vector;                        /* -1: none */
	uint32_t error;
	bool has_error;
	uint64_t cr2;
	bool wrapped;                      /* base + offset crossed 4 GiB */
	bool crossed;                      /* the fault is on the second page */
	bool limit;                        /* a segment-limit fault */
};

/* A data access of size bytes at seg:off (supervisor: CPL 0). */
static struct fault data_access(const struct sim *s, int seg, uint64_t off, unsigned size, bool write)
{
	struct fault f = { .vector = -1 };
	if (s->m64 && !canonical(seg == 4 || seg == 5 ? seg_of(s, seg)->base + off : off)) {
		f.vector = seg == 2 ? 12 : V_GP;   /* APM2 4.12: #SS for stack references */
		f.has_error = true;
		return f;
	}
	/* APM2 4.12.2 (limit checks): outside 64-bit mode an access past the
	 * (expand-up) limit is #SS(0) for SS, else #GP(0). */
	if (!s->m64 && off + size - 1 > seg_of(s, seg)->limit) {
		f.vector = seg == 2 ? 12 : V_GP;
		f.has_error = true;
		f.limit = true;
		return f;
	}
	uint64_t lin = linear(s, seg, off);
	uint64_t last = s->m64 ? lin + size - 1 : (uint32_t)(lin + size - 1);
	uint64_t probe[2] = { lin, last & ~0xfffull };
	for (unsigned i = 0; i < 2; i++) {
		if (!page_present(s, probe[i])) {
			/* APM2 8.4.2: P = 0, W/R, U/S = 0 at CPL 0, I/D = 0 for data. */
			f.vector = V_PF;
			f.has_error = true;
			f.error = write ? 2 : 0;
			f.cr2 = probe[i];
			f.wrapped = !s->m64 && seg_of(s, seg)->base + off > 0xffffffffull;
			f.crossed = i == 1;
			return f;
		}
	}
	return f;
}

static bool deliver(struct sim *s, const struct oracle_insn *insn, unsigned vector, uint64_t word, unsigned ext);

/* Exception vector raised by insn (fault: rIP of insn), with ev_in_flight
 * the EXITINTINFO word of the event being delivered (0: none). */
static bool exception(struct sim *s, const struct oracle_insn *insn, const struct fault *f, uint64_t in_flight)
{
	unsigned v = (unsigned)f->vector;
	bool icpt = intercepted(s, I_EXCP + v);
	hit(R_EXCP, icpt);
	if (!icpt) {
		if (in_flight)
			return unknown(s, "a second exception not intercepted (#DF rules)");
		/* APM2 15.20 / 8.4: delivered through the guest's IDT; TYPE 3,
		 * EV with the error code; EXT = 1 (the processor raised it). */
		uint64_t word = EV_VALID | ((uint64_t)EV_EXCP << 8) | v;
		if (f->has_error)
			word |= EV_ERR_VALID | ((uint64_t)f->error << 32);
		if (v == V_BP && insn && insn->op == OP_INT3)
			return deliver(s, insn, v, word, 0);
		return deliver(s, insn, v, word, 1);
	}
	if (in_flight) {
		/* APM2 8.2.9 (double fault): a contributory fault delivering a
		 * contributory one, or anything but a benign fault delivering a
		 * #PF, makes a #DF; the oracle leaves those alone. */
		unsigned first = (unsigned)in_flight & 0xff, type = (unsigned)(in_flight >> 8) & 7;
		bool first_contrib = type == EV_EXCP && (first == 0 || (first >= 10 && first <= 13));
		bool first_pf = type == EV_EXCP && first == V_PF;
		bool second_contrib = v == 0 || (v >= 10 && v <= 13);
		if ((first_contrib && second_contrib) || (first_pf && (second_contrib || v == V_PF)))
			return unknown(s, "double-fault combination");
		hit(R_DELIVER_SERIAL, true);
	}
	exit_with(s, insn, X_EXCP + v, R_EXCP, v);
	struct oracle_prediction *p = s->p;
	/* APM2 15.12: EXITINFO1 is the error code the exception would push. */
	if (f->has_error) {
		p->info1 = f->error;
		p->defined |= PF_INFO1;
	}
	if (v == V_PF) {
		p->info2 = f->cr2;
		p->defined |= PF_INFO2;
		p->rule = f->wrapped ? R_PF_WRAP : f->crossed ? R_PF_CROSS : R_PF_INFO;
		hit(R_PF_INFO, true);
		hit(R_PF_WRAP, f->wrapped);
		hit(R_PF_CROSS, f->crossed);
		p->shape = (f->error & 2 ? 1 : 0) | (f->wrapped ? 2 : 0) | (f->crossed ? 4 : 0) | (in_flight ? 8 : 0);
	} else if (in_flight) {
		p->shape = 16 + v % 16;
	}
	/* APM2 15.7.1: INT3 (and INTO, BOUND) are instructions: nRIP is saved. */
	if (insn && v == V_BP && insn->op == OP_INT3) {
		p->nrip = insn->rip + insn->len;
	}
	p->intinfo = in_flight;
	return true;
}

/* Deliver vector through the guest IDT (APM2 8.4: 8-byte gates outside
 * 64-bit mode, 16-byte gates in it); the oracle models the faults of the
 * gate read and stops when the gate is read. word: the EXITINTINFO of the
 * event; ext: EXT of an IDT error code. */
static bool step(struct sim *s, const struct oracle_insn *i);

/* The gate is present: outside 64-bit mode, through one of the fuzzer's
 * IDTs (32-bit or 16-bit interrupt gates, DPL 0, to a code segment at DPL 0
 * whose handler is HLT), deliver at the same privilege (APM2 8.7.3): push
 * (E)FLAGS, CS, (E)IP and the error code at SS:ESP, each 4 or 2 bytes as the
 * gate's size, clear TF, NT, RF, VM and IF, and run the handler's HLT. */
static bool push_frame(struct sim *s, const struct oracle_insn *insn, uint64_t word)
{
	const struct oracle_layout *l = s->l;
	uint64_t base = s->v->idtr.base;
	if (s->m64 || (base != l->idt32 && base != l->idt16))
		return unknown(s, "event delivered through a gate the oracle does not know");
	if (!s->rsp_known)
		return unknown(s, "RSP unknown");
	/* APM2 15.20: EV asks "the exception" to push ERRORCODE; what it does
	 * for an interrupt TYPE the APM does not say. */
	if ((word & EV_ERR_VALID) && ((word >> 8) & 7) != EV_EXCP)
		return unknown(s, "EVENTINJ EV with a TYPE other than exception");
	bool gate16 = base == l->idt16;
	unsigned w = gate16 ? 2 : 4, n = word & EV_ERR_VALID ? 4 : 3;
	uint32_t esp = (uint32_t)s->rsp;
	if (esp < w * n)
		return unknown(s, "the frame wraps the stack segment");
	for (unsigned k = 1; k <= n; k++) {
		struct fault f = data_access(s, 2, esp - w * k, w, true);
		if (f.vector >= 0) {
			f.error = f.vector == V_PF ? 2 : 0;   /* APM2 8.4.2: a write */
			hit(R_FRAME_PF, true);
			exception(s, insn, &f, word);
			if (s->p->outcome == OUT_EXIT && f.vector == V_PF)
				s->p->rule = f.wrapped ? R_PF_WRAP : R_FRAME_PF;
			return s->done;
		}
	}
	hit(R_FRAME_PF, false);
	s->rsp = (s->rsp & ~0xffffffffull) | (uint32_t)(esp - w * n);
	/* APM2 8.7.3: interrupt gates clear IF; TF, NT, RF and VM go too. */
	s->rflags &= ~((1ull << 8) | (1ull << 9) | (1ull << 14) | (1ull << 16) | (1ull << 17));
	struct oracle_insn hlt = { .op = OP_HLT, .seg = -1, .rip = gate16 ? l->handler16 : l->handler32, .len = 1 };
	return step(s, &hlt);
}

static bool deliver(struct sim *s, const struct oracle_insn *insn, unsigned vector, uint64_t word, unsigned ext)
{
	unsigned gate = s->m64 ? 16 : 8;
	uint64_t limit = s->v->idtr.limit;
	bool beyond = (uint64_t)vector * gate + gate - 1 > limit;
	hit(R_GP_IDT_LIMIT, beyond);
	if (beyond) {
		struct fault f = { .vector = V_GP, .has_error = true, .error = vector * 8 + 2 + ext };
		exception(s, insn, &f, word);
		if (!s->done || s->p->outcome != OUT_EXIT)
			return s->done;
		s->p->rule = R_GP_IDT_LIMIT;
		return s->done;
	}
	uint64_t base = s->v->idtr.base;
	uint64_t lin = s->m64 ? base + (uint64_t)vector * gate : (uint32_t)(base + (uint64_t)vector * gate);
	if (s->m64 && (!canonical(lin) || !canonical(lin + gate - 1))) {
		unknown(s, "non-canonical IDT");
		return s->done;
	}
	uint64_t last = s->m64 ? lin + gate - 1 : (uint32_t)(lin + gate - 1);
	uint64_t probe[2] = { lin, last & ~0xfffull };
	for (unsigned i = 0; i < 2; i++) {
		if (!page_present(s, probe[i])) {
			/* APM2 8.4.2: a supervisor read, not present: error code 0. */
			struct fault f = { .vector = V_PF, .has_error = true, .error = 0, .cr2 = probe[i],
					   .wrapped = !s->m64 && base + (uint64_t)vector * gate > 0xffffffffull,
					   .crossed = i == 1 };
			exception(s, insn, &f, word);
			if (s->p->outcome == OUT_EXIT)
				hit(R_INTINFO, true);
			return s->done;
		}
	}
	return push_frame(s, insn, word);
}

/* ---- The consistency checks (APM2 15.5.1) --------------------------------- */

static uint64_t cr4_valid(const struct oracle_cpu *cpu)
{
	/* APM2 3.1.3: each CR4 bit exists when its CPUID feature does. */
	uint64_t v = 1ull << 8;            /* PCE */
	if (cpu->cpuid1_edx & (1u << 1))
		v |= 3;                    /* VME, PVI */
	if (cpu->cpuid1_edx & (1u << 4))
		v |= 1ull << 2;            /* TSD */
	if (cpu->cpuid1_edx & (1u << 2))
		v |= 1ull << 3;            /* DE */
	if (cpu->cpuid1_edx & (1u << 3))
		v |= 1ull << 4;            /* PSE */
	if (cpu->cpuid1_edx & (1u << 6))
		v |= 1ull << 5;            /* PAE */
	if (cpu->cpuid1_edx & (1u << 7))
		v |= 1ull << 6;            /* MCE */
	if (cpu->cpuid1_edx & (1u << 13))
		v |= 1ull << 7;            /* PGE */
	if (cpu->cpuid1_edx & (1u << 24))
		v |= 1ull << 9;            /* OSFXSR */
	if (cpu->cpuid1_edx & (1u << 25))
		v |= 1ull << 10;           /* OSXMMEXCPT */
	if (cpu->cpuid7_ecx & (1u << 2))
		v |= 1ull << 11;           /* UMIP */
	if (cpu->cpuid7_ecx & (1u << 16))
		v |= 1ull << 12;           /* LA57 */
	if (cpu->cpuid7_ebx & (1u << 0))
		v |= 1ull << 16;           /* FSGSBASE */
	if (cpu->cpuid1_ecx & (1u << 17))
		v |= 1ull << 17;           /* PCIDE */
	if (cpu->cpuid1_ecx & (1u << 26))
		v |= 1ull << 18;           /* OSXSAVE */
	if (cpu->cpuid7_ebx & (1u << 7))
		v |= 1ull << 20;           /* SMEP */
	if (cpu->cpuid7_ebx & (1u << 20))
		v |= 1ull << 21;           /* SMAP */
	if (cpu->cpuid7_ecx & (1u << 3))
		v |= 1ull << 22;           /* PKE */
	if (cpu->cpuid7_ecx & (1u << 7))
		v |= 1ull << 23;           /* CET */
	return v;
}

/* APM2 3.1.7 EFER: the bits whose CPUID gate the oracle knows; LME/LMA are
 * the next check's. Bits 13, 17, 18, 20 and 21 depend on CPUID bits the
 * oracle does not read: a VMCB with them set is "unknown". */
#define EFER_UNSURE ((1ull << 13) | (1ull << 17) | (1ull << 18) | (1ull << 20) | (1ull << 21))
static uint64_t efer_valid(const struct oracle_cpu *cpu)
{
	uint64_t v = EFER_LME | EFER_LMA;
	if (cpu->cpuid81_edx & (1u << 11))
		v |= EFER_SCE;
	if (cpu->cpuid81_edx & (1u << 20))
		v |= EFER_NXE;
	if (cpu->cpuid81_ecx & (1u << 2))
		v |= EFER_SVME;
	if (cpu->cpuid81_edx & (1u << 25))
		v |= EFER_FFXSR;
	if (cpu->cpuid81_ecx & (1u << 17))
		v |= EFER_TCE;
	return v;
}

static bool map_beyond(uint64_t base, uint64_t size, unsigned maxphyaddr)
{
	/* Table B-1: bits 11:0 of the base are ignored. */
	uint64_t last = (base & ~0xfffull) + size - 1;
	return maxphyaddr < 64 && (last >> maxphyaddr) != 0;
}

/* The failing checks (definite) and those the oracle cannot decide. */
static void checks(const struct oracle_input *in, uint32_t *fail, uint32_t *unsure)
{
	const struct vmcb_save *v = &in->vmcb->save;
	const struct vmcb_control *c = &in->vmcb->control;
	const struct oracle_cpu *cpu = in->cpu;
	bool lme_pg = (v->efer & EFER_LME) && (v->cr0 & CR0_PG);
	uint32_t f = 0, u = 0;

	if (!(v->efer & EFER_SVME))
		f |= 1u << CHK_SVME;
	if (!(v->cr0 & CR0_CD) && (v->cr0 & CR0_NW))
		f |= 1u << CHK_CD_NW;
	if (v->cr0 >> 32)
		f |= 1u << CHK_CR0_HIGH;
	/* APM2 3.1.2: long-mode CR3 holds a base up to bit 51, bits 63:52 and
	 * those above MAXPHYADDR MBZ; legacy CR3 is 32 bits, 63:32 MBZ. The low
	 * "reserved" bits' MBZ-ness the oracle leaves open. */
	unsigned width = lme_pg ? cpu->maxphyaddr : 32;
	if (width < 64 && (v->cr3 >> width))
		f |= 1u << CHK_CR3_MBZ;
	else if (v->cr3 & 0xfe7)
		u |= 1u << CHK_CR3_MBZ;
	if (v->cr4 & ~cr4_valid(cpu))
		f |= 1u << CHK_CR4_MBZ;
	if (v->dr6 >> 32)
		f |= 1u << CHK_DR6_HIGH;
	if (v->dr7 >> 32)
		f |= 1u << CHK_DR7_HIGH;
	if (v->efer & ~(efer_valid(cpu) | EFER_UNSURE))
		f |= 1u << CHK_EFER_MBZ;
	else if (v->efer & EFER_UNSURE)
		u |= 1u << CHK_EFER_MBZ;
	if ((v->efer & (EFER_LME | EFER_LMA)) && !(cpu->cpuid81_edx & (1u << 29)))
		f |= 1u << CHK_NO_LONG_MODE;
	if (lme_pg && !(v->cr4 & CR4_PAE))
		f |= 1u << CHK_LM_NO_PAE;
	if (lme_pg && !(v->cr0 & CR0_PE))
		f |= 1u << CHK_LM_NO_PE;
	if (lme_pg && (v->cr4 & CR4_PAE) && (v->cs.attrib & SEG_L) && (v->cs.attrib & SEG_DB))
		f |= 1u << CHK_LM_CS_L_D;
	if (!((c->intercepts[I_VMRUN / 32] >> (I_VMRUN % 32)) & 1u))
		f |= 1u << CHK_VMRUN_ICPT;
	if (map_beyond(c->msrpm_base_pa, 8192, cpu->maxphyaddr))
		f |= 1u << CHK_MSRPM_BEYOND;
	if (map_beyond(c->iopm_base_pa, 12288, cpu->maxphyaddr))
		f |= 1u << CHK_IOPM_BEYOND;
	uint64_t e = c->eventinj;
	if (e & EV_VALID) {
		unsigned type = (unsigned)(e >> 8) & 7, vec = (unsigned)e & 0xff;
		/* APM2 15.20: TYPE 1, 5, 6, 7 are reserved; an exception's vector
		 * is 0-31 and not 2 (NMI has its own TYPE). */
		if (type == 1 || type >= 5 || (type == EV_EXCP && (vec == 2 || vec > 31)))
			f |= 1u << CHK_EVENTINJ;
		else if ((e & 0x7ffff000ull) || (type == EV_EXCP && vec == 5 && lme_pg))
			u |= 1u << CHK_EVENTINJ;   /* reserved bits, #BR into long mode */
	}
	if (c->guest_asid == 0)
		f |= 1u << CHK_ASID;
	for (unsigned k = 0; k < CHK_COUNT; k++)
		if (!(u >> k & 1))
			hit(R_CHECKS_FIRST + (int)k, f >> k & 1);
	*fail = f;
	*unsure = u;
}

/* ---- Is the entered guest one the oracle models? -------------------------- */

static const char *outside_model(const struct sim *s)
{
	const struct vmcb_save *v = s->v;
	const struct vmcb_control *c = s->c;
	const struct oracle_layout *l = s->l;
	const uint64_t cr0_free = CR0_MP | CR0_TS | CR0_ET | CR0_NE | CR0_WP | CR0_AM | CR0_NW | CR0_CD;
	if ((v->cr0 & ~cr0_free) != (CR0_PE | CR0_PG))
		return "CR0 outside the model";
	const uint64_t cr4_free = CR4_PSE | (1ull << 2) | (1ull << 3) | (1ull << 6) | (1ull << 7) | (1ull << 8) |
				  (1ull << 9) | (1ull << 10) | CR4_OSXSAVE | (1ull << 16) | (1ull << 20) | (1ull << 21);
	const uint64_t efer_free = EFER_SCE | EFER_NXE | EFER_FFXSR | EFER_TCE;
	if (s->m64) {
		if ((v->efer & ~efer_free) != (EFER_SVME | EFER_LME | EFER_LMA) || (v->cr4 & ~cr4_free) != CR4_PAE ||
		    v->cr3 != l->cr3_64 || v->cs.attrib != 0xa9b)
			return "64-bit guest state outside the model";
	} else {
		if ((v->efer & ~efer_free) != EFER_SVME || (v->cr4 & ~cr4_free) != 0 || v->cr3 != l->cr3_32 ||
		    v->cs.attrib != 0xc9b || v->cs.base != 0 || v->cs.limit != 0xffffffffu)
			return "32-bit guest state outside the model";
	}
	const struct vmcb_seg *data[] = { &v->es, &v->ss, &v->ds, &v->fs, &v->gs };
	for (unsigned i = 0; i < 5; i++)
		if (data[i]->attrib != 0xc93 || data[i]->limit != 0xffffffffu ||
		    (data[i]->base != 0 && (s->m64 || data[i]->base != 0x40000000u)))
			return "data segment outside the model";
	/* RFLAGS: bit 1 set; TF, VM, RF, NT and the rest change what runs. */
	const uint64_t rflags_free = 0x8d5 | (1u << 9) | (1u << 18) | (1u << 21) | (3u << 12);
	if ((v->rflags & ~rflags_free) != 2)
		return "RFLAGS outside the model";
	if (v->cpl != 0 || v->dr7 != 0x400 || v->rip != l->start_rip)
		return "CPL, DR7 or RIP outside the model";
	if (c->vintr || c->interrupt_shadow || c->np_control || c->virt_ext || c->pause_filter_count ||
	    (c->tlb_control != 0 && c->tlb_control != 1))
		return "controls outside the model";
	return NULL;
}

/* ---- The instructions --------------------------------------------------- */

static bool ioio_intercepted(const struct sim *s, unsigned port, unsigned size, bool *known)
{
	*known = true;
	if (!intercepted(s, I_IOIO))
		return false;
	uint64_t base = s->c->iopm_base_pa & ~0xfffull;
	if (base + 12288 > s->l->ram_size) {
		*known = false;
		return false;
	}
	/* APM2 15.10.1: one bit per port; every port the access touches. */
	for (unsigned p = port; p < port + size; p++)
		if ((s->l->ram[base + p / 8] >> (p % 8)) & 1u)
			return true;
	return false;
}

static bool msr_intercepted(const struct sim *s, uint32_t msr, bool write, bool *known, bool *in_range)
{
	*known = true;
	*in_range = true;
	if (!intercepted(s, I_MSR))
		return false;
	/* APM2 15.11: 0000_0000-0000_1FFF at 0h, C000_0000-C000_1FFF at 800h,
	 * C001_0000-C001_1FFF at 1000h, two bits per MSR. */
	static const uint32_t first[3] = { 0x00000000u, 0xc0000000u, 0xc0010000u };
	for (unsigned r = 0; r < 3; r++) {
		if (msr - first[r] < 0x2000u) {
			uint64_t bit = (uint64_t)r * 0x800 * 8 + (msr - first[r]) * 2ull + (write ? 1 : 0);
			uint64_t base = s->c->msrpm_base_pa & ~0xfffull;
			if (base + 8192 > s->l->ram_size) {
				*known = false;
				return false;
			}
			return (s->l->ram[base + bit / 8] >> (bit % 8)) & 1u;
		}
	}
	*in_range = false;
	return true;
}

/* Set-up MOVs of a template: what they leave in RAX and RSP. */
static void setup_effects(struct sim *s, const struct oracle_insn *i)
{
	switch (i->op) {
	case OP_WRMSR:
	case OP_XSETBV:
		s->rax = (uint32_t)i->value;
		s->rax_known = true;
		break;
	case OP_MOV_TO_CR:
	case OP_MOV_TO_DR:
		if (i->reg == 0) {
			s->rax = s->m64 ? i->value : (uint32_t)i->value;
			s->rax_known = true;
		}
		break;
	case OP_RETF16:
	case OP_SETSP:
		s->rsp = (uint32_t)i->value;   /* mov esp, imm32: zero-extended in 64-bit mode */
		s->rsp_known = true;
		break;
	default:
		break;
	}
}

static const uint64_t *cr_of(const struct sim *s, unsigned n)
{
	switch (n) {
	case 0: return &s->v->cr0;
	case 3: return &s->v->cr3;
	case 4: return &s->v->cr4;
	default: return NULL;
	}
}

/* Would MOV to CRn of val #GP? (APM3 MOV CRn; APM2 3.1.1-3.1.3) */
static bool cr_value_faults(const struct sim *s, unsigned n, uint64_t val)
{
	if (!s->m64)
		val = (uint32_t)val;
	switch (n) {
	case 0:
		return (val >> 32) || ((val & CR0_PG) && !(val & CR0_PE)) || ((val & CR0_NW) && !(val & CR0_CD)) ||
		       (s->m64 && !(val & CR0_PG));
	case 3:
		return s->m64 && (val >> s->in->cpu->maxphyaddr);
	case 4:
		return (val & ~cr4_valid(s->in->cpu)) || (s->m64 && !(val & CR4_PAE));
	case 8:
		return (val >> 4) != 0;
	default:
		return false;
	}
}

/* One template. */
static bool step(struct sim *s, const struct oracle_insn *i)
{
	struct fault f = { .vector = -1 };
	bool icpt, known, in_range;

	setup_effects(s, i);
	switch (i->op) {
	case OP_NOP:
		return s->done;
	case OP_CPUID:
		hit(R_CPUID, icpt = intercepted(s, I_CPUID));
		if (icpt)
			return insn_exit(s, i, X_CPUID, R_CPUID, 0);
		s->rax_known = false;
		return s->done;
	case OP_RDTSC:
		hit(R_RDTSC, icpt = intercepted(s, I_RDTSC));
		if (icpt)
			return insn_exit(s, i, X_RDTSC, R_RDTSC, 0);
		s->rax_known = false;
		return s->done;
	case OP_RDTSCP:
		if (!(s->in->cpu->cpuid81_edx & (1u << 27)))
			return unknown(s, "RDTSCP not reported");
		hit(R_RDTSCP, icpt = intercepted(s, I_RDTSCP));
		if (icpt)
			return insn_exit(s, i, X_RDTSCP, R_RDTSCP, 0);
		s->rax_known = false;
		return s->done;
	case OP_RDPMC:
		hit(R_RDPMC, icpt = intercepted(s, I_RDPMC));
		if (icpt)
			return insn_exit(s, i, X_RDPMC, R_RDPMC, 0);
		/* APM3 RDPMC: #GP for an unimplemented counter; APM2 13.2.1:
		 * every AMD64 processor has PerfCtr0-3, so ECX = 0 (the
		 * template's) reads one. */
		s->rax_known = false;
		return s->done;
	case OP_HLT:
		hit(R_HLT, icpt = intercepted(s, I_HLT));
		if (icpt)
			return insn_exit(s, i, X_HLT, R_HLT, 0);
		hit(R_HALT, true);
		s->p->outcome = OUT_HALT;
		s->p->rule = R_HALT;
		s->done = true;
		return s->done;
	case OP_PAUSE:
		hit(R_PAUSE, icpt = intercepted(s, I_PAUSE));
		if (icpt)
			return insn_exit(s, i, X_PAUSE, R_PAUSE, 0);
		return s->done;
	case OP_INVD:
		hit(R_INVD, icpt = intercepted(s, I_INVD));
		if (icpt)
			return insn_exit(s, i, X_INVD, R_INVD, 0);
		return s->done;
	case OP_WBINVD:
		hit(R_WBINVD, icpt = intercepted(s, I_WBINVD));
		if (icpt)
			return insn_exit(s, i, X_WBINVD, R_WBINVD, 0);
		return s->done;
	case OP_VMMCALL:
		hit(R_VMMCALL, icpt = intercepted(s, I_VMMCALL));
		if (icpt)
			return insn_exit(s, i, X_VMMCALL, R_VMMCALL, 0);
		/* APM3 VMMCALL: #UD when not intercepted. */
		hit(R_VMMCALL_UD, true);
		f = (struct fault){ .vector = V_UD };
		return exception(s, i, &f, 0);
	case OP_INVLPG: {
		hit(R_INVLPG, icpt = intercepted(s, I_INVLPG));
		if (!icpt)
			return s->done;
		insn_exit(s, i, X_INVLPG, R_INVLPG, 0);
		/* APM2 15.33: with decode assists, EXITINFO1 = the linear address. */
		if (s->in->cpu->svm_edx & (1u << 7)) {
			s->p->info1 = linear(s, override_seg(s, i->seg, 3), i->value);
			s->p->defined |= PF_INFO1;
		}
		return s->done;
	}
	case OP_PUSHF: {
		hit(R_PUSHF, icpt = intercepted(s, I_PUSHF));
		if (icpt)
			return insn_exit(s, i, X_PUSHF, R_PUSHF, 0);
		unsigned size = s->m64 ? 8 : 4;
		uint64_t sp = s->m64 ? s->rsp - size : (uint32_t)(s->rsp - size);
		if (!s->rsp_known)
			return unknown(s, "RSP unknown");
		f = data_access(s, 2, sp, size, true);
		if (f.vector >= 0) {
			if (f.vector != V_PF)
				f.error = 0;
			return exception(s, i, &f, 0);
		}
		s->rsp = s->m64 ? sp : (s->rsp & ~0xffffffffull) | sp;
		return s->done;
	}
	case OP_IN:
	case OP_OUT:
	case OP_INS:
	case OP_OUTS: {
		bool in = i->op == OP_IN || i->op == OP_INS;
		bool str = i->op == OP_INS || i->op == OP_OUTS;
		icpt = ioio_intercepted(s, i->imm & 0xffff, i->size, &known);
		if (!known)
			return unknown(s, "IOPM outside RAM");
		hit(R_IOIO, icpt);
		if (icpt) {
			insn_exit(s, i, X_IOIO, R_IOIO_INFO, (in ? 1 : 0) | (str ? 2 : 0) | (i->flags & OI_REP ? 4 : 0) |
						       (i->size == 1 ? 0 : i->size == 2 ? 8 : 16));
			/* APM2 15.10.2: the EXITINFO1 layout. */
			unsigned asize = s->m64 ? (i->flags & OI_ADDR_OVR ? 4 : 8) : (i->flags & OI_ADDR_OVR ? 2 : 4);
			uint64_t info = ((uint64_t)(i->imm & 0xffff) << 16) | (in ? 1 : 0) | (str ? 4 : 0) |
					(i->flags & OI_REP ? 8 : 0) |
					(i->size == 1 ? 0x10 : i->size == 2 ? 0x20 : 0x40) |
					(asize == 2 ? 0x80 : asize == 4 ? 0x100 : 0x200);
			/* SEG: the effective segment of OUTS (DS or the override);
			 * INS writes through ES (0); 0 for IN/OUT. */
			if (i->op == OP_OUTS)
				info |= (uint64_t)override_seg(s, i->seg, 3) << 10;
			s->p->info1 = info;
			s->p->info2 = i->rip + i->len;      /* the next rIP */
			s->p->defined |= PF_INFO1 | PF_INFO2;
			hit(R_IOIO_INFO, true);
			return s->done;
		}
		if (str) {
			/* The memory operand after the port: INS writes ES:rDI,
			 * OUTS reads seg:rSI (set up as value). */
			int seg = i->op == OP_INS ? 0 : override_seg(s, i->seg, 3);
			f = data_access(s, seg, i->value, i->size, in);
			if (f.vector >= 0) {
				if (f.vector != V_PF)
					f.error = 0;
				return exception(s, i, &f, 0);
			}
		}
		if (in)
			s->rax_known = s->rax_known && str;
		return s->done;
	}
	case OP_RDMSR:
	case OP_WRMSR: {
		bool wr = i->op == OP_WRMSR;
		icpt = msr_intercepted(s, i->imm, wr, &known, &in_range);
		if (!known)
			return unknown(s, "MSRPM outside RAM");
		hit(R_MSR, icpt);
		if (intercepted(s, I_MSR))
			hit(R_MSR_OUT_OF_RANGE, !in_range);
		if (icpt) {
			insn_exit(s, i, X_MSR, in_range ? R_MSR : R_MSR_OUT_OF_RANGE, wr);
			s->p->info1 = wr;          /* APM2 15.11: 0 RDMSR, 1 WRMSR */
			s->p->defined |= PF_INFO1;
			return s->done;
		}
		return unknown(s, "MSR access not intercepted");
	}
	case OP_MOV_FROM_CR:
	case OP_MOV_TO_CR: {
		bool wr = i->op == OP_MOV_TO_CR;
		icpt = intercepted(s, (wr ? I_CR_WRITE : I_CR_READ) + i->imm);
		/* APM2 15.9 puts operand-value exceptions after the intercepts,
		 * but points to Table 15-7 for exceptions; hvemu reads that table
		 * as listing a MOV to CR whose value #GPs. The oracle leaves the
		 * order of those two open. */
		if (!oracle_strict && wr && (icpt || (i->imm == 0 && intercepted(s, I_CR0_SEL))) &&
		    cr_value_faults(s, i->imm, i->value))
			return unknown(s, "MOV to CR: faulting value vs intercept (Table 15-7)");
		hit(wr ? R_CR_WRITE : R_CR_READ, icpt);
		if (icpt) {
			insn_exit(s, i, (wr ? X_CR_WRITE : X_CR_READ) + i->imm, wr ? R_CR_WRITE : R_CR_READ, i->imm);
			/* APM2 15.33: MOV CRn: bit 63 set, GPR number in 3:0. */
			if (s->in->cpu->svm_edx & (1u << 7)) {
				s->p->info1 = (1ull << 63) | i->reg;
				s->p->defined |= PF_INFO1;
			}
			return s->done;
		}
		if (!wr) {
			if (i->reg == 0)
				s->rax_known = false;
			if (i->reg == 4)
				s->rsp_known = false;
			return s->done;
		}
		if (i->imm == 0) {
			uint64_t old = s->v->cr0, val = s->m64 ? i->value : (uint32_t)i->value;
			/* APM2 15.8.1: bits other than TS and MP change. */
			bool sel = ((old ^ val) & ~(CR0_TS | CR0_MP)) != 0;
			hit(R_CR0_SEL, sel && intercepted(s, I_CR0_SEL));
			if (sel && intercepted(s, I_CR0_SEL)) {
				insn_exit(s, i, X_CR0_SEL, R_CR0_SEL, 0);
				if (s->in->cpu->svm_edx & (1u << 7)) {
					s->p->info1 = (1ull << 63) | i->reg;
					s->p->defined |= PF_INFO1;
				}
				return s->done;
			}
			bool pg_no_pe = (val & CR0_PG) && !(val & CR0_PE) && !(val >> 32);
			hit(R_CR0_PG_NO_PE, pg_no_pe);
			if (pg_no_pe) {
				f = (struct fault){ .vector = V_GP, .has_error = true };
				exception(s, i, &f, 0);
				if (s->p->outcome == OUT_EXIT)
					s->p->rule = R_CR0_PG_NO_PE;
				return s->done;
			}
		}
		const uint64_t *cur = cr_of(s, i->imm);
		if (cur && (s->m64 ? i->value : (uint32_t)i->value) == *cur)
			return s->done;            /* the same value: nothing changes */
		if (i->imm == 2)
			return s->done;            /* CR2: not compared */
		return unknown(s, "MOV to CR changes the guest");
	}
	case OP_MOV_FROM_DR:
	case OP_MOV_TO_DR: {
		bool wr = i->op == OP_MOV_TO_DR;
		icpt = intercepted(s, (wr ? I_DR_WRITE : I_DR_READ) + i->imm);
		hit(wr ? R_DR_WRITE : R_DR_READ, icpt);
		if (icpt) {
			insn_exit(s, i, (wr ? X_DR_WRITE : X_DR_READ) + i->imm, wr ? R_DR_WRITE : R_DR_READ, i->imm);
			/* APM2 15.33: MOV DRn: GPR number in 3:0. */
			if (s->in->cpu->svm_edx & (1u << 7)) {
				s->p->info1 = i->reg;
				s->p->defined |= PF_INFO1;
			}
			return s->done;
		}
		if (!wr) {
			if (i->reg == 0)
				s->rax_known = false;
			return s->done;
		}
		if (i->imm <= 3)
			return s->done;            /* DR0-3 without DR7 enables: nothing visible */
		return unknown(s, "MOV to DR6/DR7 not intercepted");
	}
	case OP_INTN:
		hit(R_SWINT, icpt = intercepted(s, I_INTN));
		if (icpt) {
			insn_exit(s, i, X_SWINT, R_SWINT, 0);
			/* APM2 15.33: EXITINFO1 = the vector. */
			if (s->in->cpu->svm_edx & (1u << 7)) {
				s->p->info1 = i->imm & 0xff;
				s->p->defined |= PF_INFO1;
			}
			return s->done;
		}
		/* APM2 15.20 / 15.7.2: TYPE 4 (INTn), no error code; EXT = 0. */
		return deliver(s, i, i->imm & 0xff, EV_VALID | ((uint64_t)EV_SOFT << 8) | (i->imm & 0xff), 0);
	case OP_INT3:
		f = (struct fault){ .vector = V_BP };
		if (intercepted(s, I_EXCP + V_BP))
			return exception(s, i, &f, 0);
		hit(R_EXCP, false);
		return deliver(s, i, V_BP, EV_VALID | ((uint64_t)EV_EXCP << 8) | V_BP, 0);
	case OP_UD2:
		f = (struct fault){ .vector = V_UD };
		return exception(s, i, &f, 0);
	case OP_DIV0:
		f = (struct fault){ .vector = V_DE };
		return exception(s, i, &f, 0);
	case OP_ICEBP:
		hit(R_ICEBP, icpt = intercepted(s, I_ICEBP));
		if (icpt)
			return insn_exit(s, i, X_ICEBP, R_ICEBP, 0);
		return unknown(s, "ICEBP #DB");
	case OP_LOAD:
	case OP_STORE: {
		f = data_access(s, override_seg(s, i->seg, 3), i->value, i->size, i->op == OP_STORE);
		if (f.vector >= 0) {
			hit(f.limit ? R_SEG_LIMIT : R_GP_NONCANON, f.vector != V_PF);
			exception(s, i, &f, 0);
			if (s->p->outcome == OUT_EXIT && f.vector != V_PF)
				s->p->rule = f.limit ? R_SEG_LIMIT : R_GP_NONCANON;
			return s->done;
		}
		if (i->op == OP_LOAD)
			s->rax_known = false;
		return s->done;
	}
	case OP_RETF16: {
		/* The first pop: IP at SS:ESP, 2 bytes (APM3 RETF). A present
		 * page goes on to load CS: not modelled. */
		if (s->m64)
			return unknown(s, "RETF in 64-bit mode");
		f = data_access(s, 2, i->value, 2, false);
		if (f.vector == V_PF)
			return exception(s, i, &f, 0);
		return unknown(s, "RETF loads CS");
	}
	case OP_XSETBV:
		/* APM2 15.9: #UD (CR4.OSXSAVE = 0) is checked before the intercept. */
		hit(R_XSETBV_UD, !(s->v->cr4 & CR4_OSXSAVE));
		if (!(s->v->cr4 & CR4_OSXSAVE)) {
			f = (struct fault){ .vector = V_UD };
			exception(s, i, &f, 0);
			if (s->p->outcome == OUT_EXIT)
				s->p->rule = R_XSETBV_UD;
			return s->done;
		}
		hit(R_XSETBV, icpt = intercepted(s, I_XSETBV));
		if (icpt)
			return insn_exit(s, i, X_XSETBV, R_XSETBV, 0);
		hit(R_XSETBV_GP, !(i->value & 1));
		if (!(i->value & 1)) {
			f = (struct fault){ .vector = V_GP, .has_error = true };
			exception(s, i, &f, 0);
			if (s->p->outcome == OUT_EXIT)
				s->p->rule = R_XSETBV_GP;
			return s->done;
		}
		return unknown(s, "XSETBV not intercepted");
	case OP_MONITOR:
	case OP_MWAIT:
		hit(R_MONITOR_UD, !(s->in->cpu->cpuid1_ecx & (1u << 3)));
		if (!(s->in->cpu->cpuid1_ecx & (1u << 3))) {
			f = (struct fault){ .vector = V_UD };
			exception(s, i, &f, 0);
			if (s->p->outcome == OUT_EXIT)
				s->p->rule = R_MONITOR_UD;
			return s->done;
		}
		return unknown(s, "MONITOR/MWAIT with CPUID MONITOR");
	case OP_SIDT:
	case OP_SGDT:
	case OP_SLDT:
	case OP_STR: {
		unsigned k = i->op - OP_SIDT;
		hit(R_DT_READ, icpt = intercepted(s, I_IDTR_READ + k));
		if (icpt)
			return insn_exit(s, i, X_IDTR_READ + k, R_DT_READ, k);
		if (i->op == OP_SLDT || i->op == OP_STR) {
			s->rax_known = false;        /* into AX */
			return s->done;
		}
		/* APM3 SGDT/SIDT: 6 bytes, 10 in 64-bit mode, at [data]; a
		 * fault on it reports its first byte. */
		f = data_access(s, 3, s->l->data, s->m64 ? 10 : 6, true);
		if (f.vector >= 0)
			return exception(s, i, &f, 0);
		return s->done;
	}
	case OP_LIDT:
	case OP_LGDT:
	case OP_LLDT:
	case OP_LTR: {
		unsigned k = i->op - OP_LIDT;
		hit(R_DT_WRITE, icpt = intercepted(s, I_IDTR_WRITE + k));
		if (icpt)
			return insn_exit(s, i, X_IDTR_WRITE + k, R_DT_WRITE, k);
		return unknown(s, "LIDT/LGDT/LLDT/LTR not intercepted");
	}
	case OP_SETSP:
		return s->done;            /* the set-up MOV did it */
	case OP_RSM:
		hit(R_RSM, icpt = intercepted(s, I_RSM));
		if (icpt)
			return insn_exit(s, i, X_RSM, R_RSM, 0);
		hit(R_RSM_UD, true);
		f = (struct fault){ .vector = V_UD };
		return exception(s, i, &f, 0);
	case OP_INVLPGA:
		/* CPL 0 and EFER.SVME set: no #GP, no #UD before the intercept. */
		hit(R_INVLPGA, icpt = intercepted(s, I_INVLPGA));
		if (icpt)
			return insn_exit(s, i, X_INVLPGA, R_INVLPGA, 0);
		return s->done;
	case OP_VMLOAD:
	case OP_VMSAVE:
	case OP_STGI:
	case OP_CLGI: {
		/* rAX = [data]: page aligned, in RAM. */
		static const unsigned bit[4] = { I_VMLOAD, I_VMSAVE, I_STGI, I_CLGI };
		unsigned k = i->op - OP_VMLOAD;
		if (i->op == OP_VMLOAD || i->op == OP_VMSAVE) {
			s->rax = s->l->data;
			s->rax_known = true;
		}
		hit(R_SVM_INSN, icpt = intercepted(s, bit[k]));
		if (icpt)
			return insn_exit(s, i, X_VMLOAD + k, R_SVM_INSN, k);
		return unknown(s, "VMLOAD/VMSAVE/STGI/CLGI not intercepted");
	}
	default:
		return unknown(s, "template not modelled");
	}
}

static void note_unknown(const char *why);
static void predict(const struct oracle_input *in, struct oracle_prediction *p);

void oracle_predict(const struct oracle_input *in, struct oracle_prediction *p)
{
	predict(in, p);
	if (p->outcome == OUT_UNKNOWN)
		note_unknown(p->unknown_why);
}

static void predict(const struct oracle_input *in, struct oracle_prediction *p)
{
	memset(p, 0, sizeof(*p));
	p->rule = -1;
	predictions++;
	uint32_t fail, unsure;
	checks(in, &fail, &unsure);
	if (fail) {
		/* APM2 15.5.1: VMEXIT_INVALID; which failing check the processor
		 * names is not the APM's to say, so any of them will do. */
		p->outcome = OUT_EXIT;
		p->exitcode = X_INVALID;
		p->failing_checks = fail | unsure;
		return;
	}
	if (unsure) {
		p->outcome = OUT_UNKNOWN;
		p->unknown_why = "a check the oracle cannot decide";
		p->failing_checks = unsure;
		return;
	}

	struct sim s = {
		.in = in, .v = &in->vmcb->save, .c = &in->vmcb->control, .l = in->layout, .p = p,
		.m64 = (in->vmcb->save.efer & EFER_LMA) != 0,
		.rax = in->vmcb->save.rax, .rsp = in->vmcb->save.rsp, .rflags = in->vmcb->save.rflags,
		.rax_known = true, .rsp_known = true,
	};
	const char *why = outside_model(&s);
	if (why) {
		(void)unknown(&s, why);
		return;
	}
	uint64_t e = s.c->eventinj;
	if (e & EV_VALID) {
		unsigned type = (unsigned)(e >> 8) & 7, vec = (unsigned)e & 0xff;
		hit(R_INJECT, true);
		if (type == EV_NMI || (type == EV_EXCP && (vec == 3 || vec == 4))) {
			(void)unknown(&s, "injected NMI, #BP or #OF");
			return;
		}
		/* APM2 15.20: delivered as the event would be; EXITINTINFO
		 * reports it as injected. EXT: 1 but for INTn. */
		uint64_t word = e & (0xffffffff00000000ull | EV_VALID | EV_ERR_VALID | 0x7ff);
		if (!(e & EV_ERR_VALID))
			word &= 0xffffffffull;
		(void)deliver(&s, NULL, vec, word, type == EV_SOFT ? 0 : 1);
		return;
	}
	hit(R_INJECT, false);
	for (unsigned k = 0; k < in->n_insns && !s.done; k++)
		(void)step(&s, &in->insns[k]);
	if (!s.done)
		(void)unknown(&s, "ran off the end");
}

/* ---- Comparison ----------------------------------------------------------- */

static const char *check_names[CHK_COUNT] = {
	"EFER.SVME", "CR0.CD/NW", "CR0[63:32]", "CR3 MBZ", "CR4 MBZ", "DR6[63:32]", "DR7[63:32]",
	"EFER MBZ", "LME/LMA without long mode", "LME&PG without PAE", "LME&PG without PE",
	"CS.L&CS.D in long mode", "VMRUN intercept", "MSRPM extent", "IOPM extent", "EVENTINJ", "ASID",
};

const char *oracle_check_name(enum oracle_check c)
{
	return c < CHK_COUNT ? check_names[c] : "?";
}

int oracle_check_of_text(const char *t)
{
	/* hvemu names a check with its manual text; these are the words that
	 * tell them apart (the label only, no prediction depends on it). */
	static const struct { const char *words; int check; } map[] = {
		{ "EFER.SVME is zero", CHK_SVME }, { "CR0.CD is zero", CHK_CD_NW },
		{ "CR0[63:32]", CHK_CR0_HIGH }, { "bit of CR3", CHK_CR3_MBZ }, { "bit of CR4", CHK_CR4_MBZ },
		{ "DR6[63:32]", CHK_DR6_HIGH }, { "DR7[63:32]", CHK_DR7_HIGH }, { "bit of EFER", CHK_EFER_MBZ },
		{ "without long mode", CHK_NO_LONG_MODE }, { "CR4.PAE zero", CHK_LM_NO_PAE },
		{ "CR0.PE zero", CHK_LM_NO_PE }, { "CS.L and CS.D", CHK_LM_CS_L_D },
		{ "VMRUN intercept", CHK_VMRUN_ICPT }, { "MSR permission map", CHK_MSRPM_BEYOND },
		{ "IOIO permission map", CHK_IOPM_BEYOND }, { "event injection", CHK_EVENTINJ },
		{ "ASID is zero", CHK_ASID },
	};
	if (!t)
		return -1;
	for (unsigned i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strstr(t, map[i].words))
			return map[i].check;
	return -1;
}

const char *oracle_last_disagreement;

static unsigned report(const char *field, uint64_t want, uint64_t got, int rule)
{
	oracle_last_disagreement = field;
	fprintf(stderr, "svm_oracle: DISAGREE %s: predicted %#" PRIx64 ", hvemu %#" PRIx64 "  [%s]\n", field, want,
		got, rule >= 0 && rule < R_COUNT && rules[rule].cite ? rules[rule].cite : "?");
	return 1;
}

static void note_unknown(const char *why)
{
	unknown_count++;
	for (unsigned k = 0; k < 64; k++) {
		if (unknown_whys[k] == why || !unknown_whys[k]) {
			unknown_whys[k] = why;
			unknown_why_count[k]++;
			return;
		}
	}
}

unsigned oracle_compare(const struct oracle_input *in, const struct oracle_prediction *p,
			const struct oracle_actual *a)
{
	const struct vmcb_control *c = &a->vmcb->control;
	const struct vmcb_save *v = &a->vmcb->save;
	const struct vmcb_save *b = &in->vmcb->save;
	unsigned bad = 0;

	if (p->outcome == OUT_UNKNOWN)
		return 0;
	if (p->outcome == OUT_HALT) {
		if (!a->halted_in_guest)
			return report("outcome (guest halts, no #VMEXIT)", 0, c->exitcode, R_HALT);
		halts_agreed++;
		return 0;
	}
	if (a->halted_in_guest)
		return report("outcome (#VMEXIT expected, the guest halted)", p->exitcode, 0, p->rule);
	if (p->exitcode == X_INVALID) {
		if (c->exitcode != X_INVALID) {
			int first = __builtin_ctz(p->failing_checks);
			return report("EXITCODE (VMEXIT_INVALID)", X_INVALID, c->exitcode, R_CHECKS_FIRST + first);
		}
		int named = oracle_check_of_text(a->failed_check);
		if (named < 0 || !((p->failing_checks >> named) & 1)) {
			oracle_last_disagreement = "failed check";
			fprintf(stderr, "svm_oracle: DISAGREE failed check: hvemu names \"%s\", the oracle finds:",
				a->failed_check ? a->failed_check : "(none)");
			for (unsigned k = 0; k < CHK_COUNT; k++)
				if ((p->failing_checks >> k) & 1)
					fprintf(stderr, " [%s]", rules[R_CHECKS_FIRST + k].cite);
			fprintf(stderr, "\n");
			return 1;
		}
		invalid_cells[named]++;
		exact_exits++;
		return 0;
	}
	if (c->exitcode != p->exitcode) {
		fprintf(stderr, "svm_oracle: hvemu's exit: EXITINFO1 %#" PRIx64 " EXITINFO2 %#" PRIx64
			" EXITINTINFO %#" PRIx64 " rIP %#" PRIx64 "\n", c->exitinfo1, c->exitinfo2, c->exitintinfo, v->rip);
		return report("EXITCODE", p->exitcode, c->exitcode, p->rule);
	}
	if ((p->defined & PF_INFO1) && c->exitinfo1 != p->info1)
		bad += report("EXITINFO1", p->info1, c->exitinfo1, p->rule);
	if ((p->defined & PF_INFO2) && c->exitinfo2 != p->info2)
		bad += report("EXITINFO2", p->info2, c->exitinfo2, p->rule);
	if (p->intinfo) {
		hit(R_INTINFO, true);
		if (c->exitintinfo != p->intinfo)
			bad += report("EXITINTINFO", p->intinfo, c->exitintinfo, R_INTINFO);
	} else {
		hit(R_INTINFO_NONE, true);
		if (c->exitintinfo & EV_VALID)
			bad += report("EXITINTINFO.V", 0, c->exitintinfo, R_INTINFO_NONE);
	}
	/* APM2 15.7.1: nRIP with NRIP_SAVE (Fn8000_000A_EDX[3]). */
	if (in->cpu->svm_edx & (1u << 3)) {
		hit(R_NRIP, p->nrip != 0);
		hit(R_NRIP_ZERO, p->nrip == 0);
		if (c->nrip != p->nrip)
			bad += report("NRIP", p->nrip, c->nrip, p->nrip ? R_NRIP : R_NRIP_ZERO);
	}
	if (v->rip != p->rip)
		bad += report("saved RIP", p->rip, v->rip, p->rule);
	if ((p->defined & PF_RAX) && v->rax != p->rax)
		bad += report("saved RAX", p->rax, v->rax, R_SAVE_STATE);
	if ((p->defined & PF_RSP) && v->rsp != p->rsp)
		bad += report("saved RSP", p->rsp, v->rsp, R_SAVE_STATE);
	if (p->defined & PF_STATE) {
		/* Nothing the templates ran changes these (the model keeps them). */
		static const struct { const char *name; size_t off; } same[] = {
			{ "saved CR0", offsetof(struct vmcb_save, cr0) }, { "saved CR3", offsetof(struct vmcb_save, cr3) },
			{ "saved CR4", offsetof(struct vmcb_save, cr4) }, { "saved EFER", offsetof(struct vmcb_save, efer) },
			{ "saved DR7", offsetof(struct vmcb_save, dr7) },
		};
		for (unsigned k = 0; k < sizeof(same) / sizeof(same[0]); k++) {
			uint64_t want, got;
			memcpy(&want, (const char *)b + same[k].off, 8);
			memcpy(&got, (const char *)v + same[k].off, 8);
			if (want != got)
				bad += report(same[k].name, want, got, R_SAVE_STATE);
		}
		/* RF (bit 16) is the processor's to set on a fault. */
		if ((v->rflags & ~0x10000ull) != (p->rflags & ~0x10000ull))
			bad += report("saved RFLAGS", p->rflags, v->rflags, R_SAVE_STATE);
		if (v->cpl != b->cpl)
			bad += report("saved CPL", b->cpl, v->cpl, R_SAVE_STATE);
		const struct vmcb_seg *sw[] = { &b->es, &b->cs, &b->ss, &b->ds }, *sg[] = { &v->es, &v->cs, &v->ss, &v->ds };
		static const char *const sn[] = { "ES", "CS", "SS", "DS" };
		for (unsigned k = 0; k < 4; k++) {
			char name[32];
			if (sw[k]->selector != sg[k]->selector || sw[k]->base != sg[k]->base ||
			    sw[k]->limit != sg[k]->limit) {
				snprintf(name, sizeof(name), "saved %s sel/base/limit", sn[k]);
				bad += report(name, sw[k]->base, sg[k]->base, R_SAVE_STATE);
			}
			if (sw[k]->attrib != sg[k]->attrib) {
				snprintf(name, sizeof(name), "saved %s attrib", sn[k]);
				bad += report(name, sw[k]->attrib, sg[k]->attrib, R_SAVE_STATE);
			}
		}
		hit(R_SAVE_STATE, true);
	}
	if (!bad) {
		exact_exits++;
		if (p->exitcode < CELL_CODES) {
			cells[p->exitcode][p->shape % CELL_SHAPES]++;
			feedback[R_COUNT * 2 + p->exitcode * 32 + p->shape % 32] = 1;
		}
	}
	return bad;
}

void oracle_print_coverage(void)
{
	fprintf(stderr, "svm_oracle: %" PRIu64 " predictions: %" PRIu64 " exits and %" PRIu64
		" halts predicted exactly and agreed on, %" PRIu64 " unknown\n",
		predictions, exact_exits, halts_agreed, unknown_count);
	fprintf(stderr, "svm_oracle: %-26s %10s %10s  citation\n", "rule", "held", "not held");
	for (unsigned r = 0; r < R_COUNT; r++)
		if (rules[r].name)
			fprintf(stderr, "svm_oracle: %-26s %10" PRIu64 " %10" PRIu64 "  %s\n", rules[r].name,
				rule_held[r], rule_not_held[r], rules[r].cite);
	fprintf(stderr, "svm_oracle: exit code x EXITINFO shape cells agreed on:\n");
	unsigned n = 0;
	for (unsigned k = 0; k < CHK_COUNT; k++)
		if (invalid_cells[k])
			fprintf(stderr, "svm_oracle:   VMEXIT_INVALID/%s: %u\n", check_names[k], invalid_cells[k]), n++;
	for (unsigned code = 0; code < CELL_CODES; code++)
		for (unsigned sh = 0; sh < CELL_SHAPES; sh++)
			if (cells[code][sh])
				fprintf(stderr, "svm_oracle:   exit %#05x shape %2u: %u\n", code, sh, cells[code][sh]), n++;
	fprintf(stderr, "svm_oracle: %u cells\n", n);
	fprintf(stderr, "svm_oracle: unknown, by reason:\n");
	for (unsigned k = 0; k < 64 && unknown_whys[k]; k++)
		fprintf(stderr, "svm_oracle:   %-45s %" PRIu64 "\n", unknown_whys[k], unknown_why_count[k]);
}
