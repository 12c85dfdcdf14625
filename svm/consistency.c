/* The VMRUN consistency checks (APM2 15.5.1 "Canonicalization and Consistency
 * Checks"): illegal guest state or controls make VMRUN #VMEXIT with
 * VMEXIT_INVALID. One row per check, in the APM's order, each named as the
 * trace shows it; the engine (emu/check_table.h) reports the first that fails.
 */
#include "emu/check_table.h"
#include "svm/bitmaps.h"
#include "svm/exit_codes.h"
#include "svm/model.h"

/* What a row's predicate looks at: the model (the CPU's MAXPHYADDR, CR4 and
 * EFER bits, features) and the state VMRUN is about to load. */
struct svm_check {
	const struct svm *s;
	const struct svm_entry_view *e;
};

static const struct svm *model(const void *ctx)
{
	return ((const struct svm_check *)ctx)->s;
}

static const struct svm_entry_view *view(const void *ctx)
{
	return ((const struct svm_check *)ctx)->e;
}

static bool lme_pg(const struct svm_entry_view *e)
{
	return (e->save->efer & EFER_LME) && (e->save->cr0 & CR0_PG);
}

static bool svme_clear(const void *ctx)
{
	const struct svm_entry_view *e = view(ctx);
	return !(e->save->efer & EFER_SVME);
}

static bool cd0_nw1(const void *ctx)
{
	const struct svm_entry_view *e = view(ctx);
	return !(e->save->cr0 & CR0_CD) && (e->save->cr0 & CR0_NW);
}

static bool cr0_high(const void *ctx)
{
	const struct svm_entry_view *e = view(ctx);
	return e->save->cr0 >> 32;
}

/* CR3: in long mode bits 63:MAXPHYADDR, in legacy mode bits 63:32 (APM2
 * 3.1.2; the low bits the formats do not use are ignored, not MBZ). */
static bool cr3_mbz(const void *ctx)
{
	const struct svm *s = model(ctx);
	const struct svm_entry_view *e = view(ctx);
	unsigned width = lme_pg(e) ? s->cpu->maxphyaddr : 32;
	return width < 64 && (e->save->cr3 >> width);
}

static bool cr4_mbz(const void *ctx)
{
	const struct svm *s = model(ctx);
	const struct svm_entry_view *e = view(ctx);
	return e->save->cr4 & ~s->cr4_valid;
}

static bool dr6_high(const void *ctx)
{
	const struct svm_entry_view *e = view(ctx);
	return e->save->dr6 >> 32;
}

static bool dr7_high(const void *ctx)
{
	const struct svm_entry_view *e = view(ctx);
	return e->save->dr7 >> 32;
}

static bool efer_mbz(const void *ctx)
{
	const struct svm *s = model(ctx);
	const struct svm_entry_view *e = view(ctx);
	/* LME and LMA without long mode are the next row's. */
	uint64_t lm = EFER_LME | EFER_LMA;
	return e->save->efer & ~(s->efer_valid | lm);
}

static bool lm_unsupported(const void *ctx)
{
	const struct svm *s = model(ctx);
	const struct svm_entry_view *e = view(ctx);
	return (e->save->efer & (EFER_LME | EFER_LMA)) && !(s->efer_valid & EFER_LME);
}

static bool lm_without_pae(const void *ctx)
{
	const struct svm_entry_view *e = view(ctx);
	return lme_pg(e) && !(e->save->cr4 & CR4_PAE);
}

static bool lm_without_pe(const void *ctx)
{
	const struct svm_entry_view *e = view(ctx);
	return lme_pg(e) && !(e->save->cr0 & CR0_PE);
}

static bool lm_cs_l_and_d(const void *ctx)
{
	const struct svm_entry_view *e = view(ctx);
	uint16_t a = e->save->cs.attrib;
	return lme_pg(e) && (e->save->cr4 & CR4_PAE) && (a & SVM_SEG_ATTR_L) && (a & SVM_SEG_ATTR_DB);
}

static bool vmrun_not_intercepted(const void *ctx)
{
	const struct svm_entry_view *e = view(ctx);
	unsigned n = SVM_INTERCEPT_VMRUN;
	return !((e->ctl->intercepts[n / 32] >> (n % 32)) & 1u);
}

/* The last byte of a permission map at or beyond 2^MAXPHYADDR. */
static bool map_beyond(const struct svm *s, uint64_t base, uint64_t size)
{
	unsigned w = s->cpu->maxphyaddr;
	return w < 64 && ((base + size - 1) >> w);
}

/* Whether or not MSR_PROT / IOIO_PROT are set (the APM names no condition). */
static bool msr_map_beyond(const void *ctx)
{
	const struct svm *s = model(ctx);
	const struct svm_entry_view *e = view(ctx);
	return map_beyond(s, e->ctl->msrpm_base, SVM_MSRPM_SIZE);
}

static bool io_map_beyond(const void *ctx)
{
	const struct svm *s = model(ctx);
	const struct svm_entry_view *e = view(ctx);
	return map_beyond(s, e->ctl->iopm_base, SVM_IOPM_SIZE);
}

static bool bad_eventinj(const void *ctx)
{
	const struct svm_entry_view *e = view(ctx);
	if (svm_eventinj_check(e->eventinj) != NULL)
		return true;
	/* APM2 15.20: #BR cannot be injected into a 64-bit guest (BOUND does not
	 * exist there): EFER.LME, CR0.PG and CS.L. */
	uint64_t w = e->eventinj;
	bool br = (w & SVM_EVENT_VALID) && ((w & SVM_EVENT_TYPE_MASK) >> SVM_EVENT_TYPE_SHIFT) == SVM_EVENT_EXCEPTION &&
		  (w & SVM_EVENT_VECTOR_MASK) == EXC_BR;
	return br && lme_pg(e) && (e->save->cs.attrib & SVM_SEG_ATTR_L);
}

/* APM2 15.25.3: nested paging needs the host's paging: NP_ENABLE with the
 * host's CR0.PG = 0 is illegal. */
static bool np_without_host_paging(const void *ctx)
{
	const struct svm *s = model(ctx);
	const struct svm_entry_view *e = view(ctx);
	return (e->ctl->np_control & SVM_NP_ENABLE) && !(s->cpu->cr0 & CR0_PG);
}

/* APM2 15.25.4 (G_PAT): every entry a valid memory type (0, 1, 4-7; 2, 3 and
 * 8-255 are reserved), as a WRMSR to PAT requires. */
static bool g_pat_reserved(const void *ctx)
{
	const struct svm_entry_view *e = view(ctx);
	if (!(e->ctl->np_control & SVM_NP_ENABLE))
		return false;
	for (unsigned i = 0; i < 8; i++) {
		unsigned type = (unsigned)(e->ctl->g_pat >> (8 * i)) & 0xff;
		if (type == 2 || type == 3 || type > 7)
			return true;
	}
	return false;
}

static bool asid_zero(const void *ctx)
{
	const struct svm_entry_view *e = view(ctx);
	return e->ctl->asid == 0;
}

/* Controls for features the processor does not report: hvemu fails the VMRUN
 * (KVM's nested VMRUN does the same; the APM does not list them). */
static bool np_unsupported(const void *ctx)
{
	const struct svm *s = model(ctx);
	const struct svm_entry_view *e = view(ctx);
	return (e->ctl->np_control & SVM_NP_ENABLE) && !svm_feature(s, SVM_FEAT_NP);
}

static bool sev_enabled(const void *ctx)
{
	const struct svm_entry_view *e = view(ctx);
	return e->ctl->np_control & (SVM_SEV_ENABLE | SVM_SEV_ES_ENABLE);
}

/* Nested paging needs a paging host format with a legal nCR3 (APM2 15.25.4:
 * nCR3 holds the host's CR3 format; bits beyond MAXPHYADDR are MBZ). */
static bool ncr3_mbz(const void *ctx)
{
	const struct svm *s = model(ctx);
	const struct svm_entry_view *e = view(ctx);
	unsigned w = s->cpu->maxphyaddr;
	return (e->ctl->np_control & SVM_NP_ENABLE) && w < 64 && (e->ctl->ncr3 >> w);
}

/* APM2 15.5.1: every failure is #VMEXIT with VMEXIT_INVALID. */
#define VMEXIT_INVALID { EXIT_REPORT_SVM_INVALID, SVM_EXIT_INVALID, 0 }

static const struct check_row checks[] = {
	{ "APM2 15.5.1: EFER.SVME is zero", svme_clear, VMEXIT_INVALID },
	{ "APM2 15.5.1: CR0.CD is zero and CR0.NW is set", cd0_nw1, VMEXIT_INVALID },
	{ "APM2 15.5.1: CR0[63:32] are not zero", cr0_high, VMEXIT_INVALID },
	{ "APM2 15.5.1: an MBZ bit of CR3 is set", cr3_mbz, VMEXIT_INVALID },
	{ "APM2 15.5.1: an MBZ bit of CR4 is set", cr4_mbz, VMEXIT_INVALID },
	{ "APM2 15.5.1: DR6[63:32] are not zero", dr6_high, VMEXIT_INVALID },
	{ "APM2 15.5.1: DR7[63:32] are not zero", dr7_high, VMEXIT_INVALID },
	{ "APM2 15.5.1: an MBZ bit of EFER is set", efer_mbz, VMEXIT_INVALID },
	{ "APM2 15.5.1: EFER.LMA or EFER.LME set without long mode", lm_unsupported, VMEXIT_INVALID },
	{ "APM2 15.5.1: EFER.LME and CR0.PG set, CR4.PAE zero", lm_without_pae, VMEXIT_INVALID },
	{ "APM2 15.5.1: EFER.LME and CR0.PG set, CR0.PE zero", lm_without_pe, VMEXIT_INVALID },
	{ "APM2 15.5.1: EFER.LME, CR0.PG, CR4.PAE, CS.L and CS.D all set", lm_cs_l_and_d, VMEXIT_INVALID },
	{ "APM2 15.5.1: the VMRUN intercept bit is clear", vmrun_not_intercepted, VMEXIT_INVALID },
	{ "APM2 15.5.1: the MSR permission map extends beyond MAXPHYADDR", msr_map_beyond, VMEXIT_INVALID },
	{ "APM2 15.5.1: the IOIO permission map extends beyond MAXPHYADDR", io_map_beyond, VMEXIT_INVALID },
	{ "APM2 15.5.1, 15.20: illegal event injection (reserved type, exception vector 2 or above 31, #BR into 64-bit mode)", bad_eventinj, VMEXIT_INVALID },
	{ "APM2 15.5.1: ASID is zero", asid_zero, VMEXIT_INVALID },
	{ "NP_ENABLE without nested paging (CPUID Fn8000_000A_EDX[NP] = 0; hvemu, as KVM)", np_unsupported, VMEXIT_INVALID },
	{ "SEV/SEV-ES enabled (not reported in CPUID Fn8000_001F; hvemu, as KVM)", sev_enabled, VMEXIT_INVALID },
	{ "APM2 15.25.4: an nCR3 bit beyond MAXPHYADDR is set (as KVM)", ncr3_mbz, VMEXIT_INVALID },
	{ "APM2 15.25.3: NP_ENABLE with the host's paging off", np_without_host_paging, VMEXIT_INVALID },
	{ "APM2 15.25.4: G_PAT holds a reserved memory type", g_pat_reserved, VMEXIT_INVALID },
};

const char *svm_consistency_check(const struct svm *s, const struct svm_entry_view *e)
{
	struct svm_check c = { s, e };
	const struct check_row *failed = check_table_first_failure(checks, sizeof(checks) / sizeof(checks[0]), &c);
	return failed ? failed->text : NULL;
}
