/* The oracle's rules as rows (each with its APM2 section), their coverage,
 * and the comparison of a prediction with what hvemu wrote: every
 * disagreement prints the field, both values and the rule that was broken. */
#include "fuzz/svm_oracle_sim.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct rule_row {
	const char *name;
	const char *cite;
};

/* How often each rule's condition was true / false. */
uint64_t oracle_rule_held[R_COUNT], oracle_rule_not_held[R_COUNT];

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
#ifdef HVEMU_LIBFUZZER
__attribute__((used, section("__libfuzzer_extra_counters")))
#endif
uint8_t oracle_feedback[FEEDBACK_SIZE];

static uint64_t predictions, exact_exits, halts_agreed;
static struct oracle_unknowns unknowns;
#define CELL_CODES 0x100
#define CELL_SHAPES 32
static uint32_t cells[CELL_CODES][CELL_SHAPES];
static uint32_t invalid_cells[CHK_COUNT];

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
struct oracle_disagreement oracle_disagreements[ORACLE_MAX_DISAGREEMENTS];
unsigned oracle_n_disagreements;
bool oracle_quiet;

static unsigned report(const char *field, uint64_t want, uint64_t got, int rule)
{
	const char *cite = rule >= 0 && rule < R_COUNT && rules[rule].cite ? rules[rule].cite : "?";
	oracle_last_disagreement = field;
	if (oracle_n_disagreements < ORACLE_MAX_DISAGREEMENTS)
		oracle_disagreements[oracle_n_disagreements++] = (struct oracle_disagreement){ field, want, got, cite };
	if (oracle_quiet)
		return 1;
	fprintf(stderr, "svm_oracle: DISAGREE %s: predicted %#" PRIx64 ", hvemu %#" PRIx64 "  [%s]\n", field, want,
		got, rule >= 0 && rule < R_COUNT && rules[rule].cite ? rules[rule].cite : "?");
	return 1;
}

void oracle_note_prediction(const struct oracle_prediction *p)
{
	predictions++;
	if (p->outcome == OUT_UNKNOWN)
		oracle_unknowns_note(&unknowns, p->unknown_why);
}

unsigned oracle_compare(const struct oracle_input *in, const struct oracle_prediction *p,
			const struct oracle_actual *a)
{
	const struct vmcb_control *c = &a->vmcb->control;
	const struct vmcb_save *v = &a->vmcb->save;
	const struct vmcb_save *b = &in->vmcb->save;
	unsigned bad = 0;

	oracle_n_disagreements = 0;
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
		if (a->names_no_check) {
			exact_exits++;
			return 0;
		}
		int named = oracle_check_of_text(a->failed_check);
		if (named < 0 || !((p->failing_checks >> named) & 1)) {
			oracle_last_disagreement = "failed check";
			if (oracle_n_disagreements < ORACLE_MAX_DISAGREEMENTS)
				oracle_disagreements[oracle_n_disagreements++] =
					(struct oracle_disagreement){ "failed check", p->failing_checks, 0, "APM2 15.5.1" };
			if (oracle_quiet)
				return 1;
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
		if (!oracle_quiet)
			fprintf(stderr, "svm_oracle: hvemu's exit: EXITINFO1 %#" PRIx64 " EXITINFO2 %#" PRIx64
				" EXITINTINFO %#" PRIx64 " rIP %#" PRIx64 "\n", c->exitinfo1, c->exitinfo2,
				c->exitintinfo, v->rip);
		return report("EXITCODE", p->exitcode, c->exitcode, p->rule);
	}
	if ((p->defined & PF_INFO1) && c->exitinfo1 != p->info1)
		bad += report("EXITINFO1", p->info1, c->exitinfo1, p->rule);
	if ((p->defined & PF_INFO2) && c->exitinfo2 != p->info2)
		bad += report("EXITINFO2", p->info2, c->exitinfo2, p->rule);
	if (p->intinfo) {
		hit(R_INTINFO, true);
		/* APM2 15.7.2: ERRORCODE (63:32) is defined only with EV. */
		uint64_t defined = (p->intinfo & EV_ERR_VALID) ? ~0ull : 0xffffffffull;
		if ((c->exitintinfo & defined) != (p->intinfo & defined))
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
			oracle_feedback[R_COUNT * 2 + p->exitcode * 32 + p->shape % 32] = 1;
		}
	}
	return bad;
}

void oracle_coverage_summary(struct oracle_coverage_summary *s)
{
	*s = (struct oracle_coverage_summary){ .predictions = predictions, .unknown = unknowns.total };
	for (unsigned r = 0; r < R_COUNT; r++) {
		if (!rules[r].name)
			continue;
		s->rules++;
		if (oracle_rule_held[r] && oracle_rule_not_held[r])
			s->rules_both_ways++;
		else if (oracle_rule_held[r] || oracle_rule_not_held[r])
			s->rules_one_way++;
	}
	for (unsigned k = 0; k < CHK_COUNT; k++)
		s->cells += invalid_cells[k] != 0;
	for (unsigned code = 0; code < CELL_CODES; code++)
		for (unsigned sh = 0; sh < CELL_SHAPES; sh++)
			s->cells += cells[code][sh] != 0;
}

void oracle_print_coverage(void)
{
	fprintf(stderr, "svm_oracle: %" PRIu64 " predictions: %" PRIu64 " exits and %" PRIu64
		" halts predicted exactly and agreed on, %" PRIu64 " unknown\n",
		predictions, exact_exits, halts_agreed, unknowns.total);
	fprintf(stderr, "svm_oracle: %-26s %10s %10s  citation\n", "rule", "held", "not held");
	for (unsigned r = 0; r < R_COUNT; r++)
		if (rules[r].name)
			fprintf(stderr, "svm_oracle: %-26s %10" PRIu64 " %10" PRIu64 "  %s\n", rules[r].name,
				oracle_rule_held[r], oracle_rule_not_held[r], rules[r].cite);
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
	oracle_unknowns_print(&unknowns, "svm_oracle", 45);
}
