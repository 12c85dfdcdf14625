/* Intercepts: an exit record from the core (emu/exit_record.h) becomes a
 * #VMEXIT when the guest's VMCB asks for it (APM2 15.7-15.14), with the exit
 * code of APM2 Appendix C and the EXITINFO1/EXITINFO2 its section names.
 * Decode-assist contents (APM2 15.33) only when the CPU reports them.
 */
#include <string.h>

#include "emu/debug.h"
#include "emu/peek.h"
#include "mmu/nested.h"
#include "svm/bitmaps.h"
#include "svm/exit_codes.h"
#include "svm/model.h"

/* An exit about to be taken: what every exit carries, from the record. */
static struct svm_exit exit_of(const struct exit_record *r, uint64_t code)
{
	struct svm_exit x = { .code = code, .guest_rip = r->rip };
	/* APM2 15.7.2: EXITINTINFO holds the event whose delivery was interrupted. */
	if (r->vectoring_valid)
		x.intinfo = svm_event_word(&r->vectoring);
	return x;
}

/* For instruction intercepts: NRIP is the next sequential instruction
 * (APM2 15.7.1). */
static struct svm_exit insn_exit(const struct exit_record *r, uint64_t code)
{
	struct svm_exit x = exit_of(r, code);
	x.nrip = r->next_rip;
	return x;
}

static bool decode_assists(const struct svm *s)
{
	return svm_feature(s, SVM_FEAT_DECODE_ASSISTS);
}

/* ---- guest instruction bytes (decode assists, APM2 15.33) ---- */

/* APM2 15.33 (decode assists): with a #PF or #NPF intercept the processor
 * saves up to 15 bytes of the instruction at CS:rIP, as many as it can fetch:
 * read through both translation stages without the fetch's side effects. */
static void fetch_insn_bytes(struct cpu *cpu, uint64_t rip, struct svm_exit *x)
{
	x->insn_len = (uint8_t)cpu_peek_code(cpu, rip, x->insn_bytes, sizeof x->insn_bytes);
}

/* ---- instructions ---- */

/* The general register of MOV CR/DR: ModRM.rm with REX.B (the mod field is
 * ignored by those encodings). */
static unsigned crdr_gpr(const struct insn *in)
{
	return (in->modrm & 7u) | ((in->rex & 1u) << 3);
}

/* APM2 15.8.1: the selective CR0 write intercept fires when a MOV to CR0
 * changes any bit other than CR0.TS and CR0.MP; "the LMSW instruction treats
 * the selective CR0-write intercept as a non-selective intercept" (it exits
 * whatever it writes). CLTS changes TS only. */
static bool cr0_selective(const struct cpu *cpu, const struct exit_record *r)
{
	if (r->cr_access == CR_LMSW)
		return true;
	if (r->cr_access != CR_MOV_TO)
		return false;
	return ((cpu->cr0 ^ r->value) & ~(uint64_t)(CR0_TS | CR0_MP)) != 0;
}

static status_t cr_access(struct svm *s, struct cpu *cpu, struct exit_record *r)
{
	/* APM2 15.9 Table 15-7: LMSW is asked before its memory operand is read
	 * (PHASE_BEFORE_OPERAND), everything else after the instruction's own
	 * checks; a MOV to CRn whose value would #GP raises the #GP instead. */
	bool lmsw = r->cr_access == CR_LMSW;
	if (lmsw != (r->phase == PHASE_BEFORE_OPERAND))
		return ST_OK;
	if (r->cr_access == CR_MOV_TO && !cpu_mov_cr_value_ok(cpu, r->cr, r->value))
		return ST_OK;
	bool write = r->cr_access == CR_MOV_TO || lmsw || r->cr_access == CR_CLTS;
	bool mov = r->cr_access == CR_MOV_TO || r->cr_access == CR_MOV_FROM;
	enum svm_intercept bit = (enum svm_intercept)((write ? SVM_INTERCEPT_CR_WRITE : SVM_INTERCEPT_CR_READ) + r->cr);
	uint64_t code;
	if (svm_intercepted(s, bit))
		code = (write ? SVM_EXIT_CR_WRITE : SVM_EXIT_CR_READ) + r->cr;
	else if (r->cr == 0 && write && svm_intercepted(s, SVM_INTERCEPT_CR0_SEL_WRITE) && cr0_selective(cpu, r))
		code = SVM_EXIT_CR0_SEL_WRITE;
	else if (r->cr == 8 && mov)
		return svm_vintr_cr8(s, r);
	else
		return ST_OK;
	struct svm_exit x = insn_exit(r, code);
	/* APM2 15.33 (decode assists): MOV CR: bit 63 set and the GPR in 3:0;
	 * LMSW, CLTS, SMSW: 0. */
	if (decode_assists(s) && mov)
		x.info1 = SVM_CRDR_MOV | crdr_gpr(r->insn);
	return svm_vmexit(s, &x);
}

static status_t dr_access(struct svm *s, struct exit_record *r)
{
	/* APM2 15.9: SVM asks after the CPL and DR4/DR5 checks, before #DB(GD). */
	if (r->phase != PHASE_CHECKED)
		return ST_OK;
	bool write = r->cr_access == CR_MOV_TO;
	enum svm_intercept bit = (enum svm_intercept)((write ? SVM_INTERCEPT_DR_WRITE : SVM_INTERCEPT_DR_READ) + r->cr);
	if (!svm_intercepted(s, bit))
		return ST_OK;
	struct svm_exit x = insn_exit(r, (write ? SVM_EXIT_DR_WRITE : SVM_EXIT_DR_READ) + r->cr);
	if (decode_assists(s))
		x.info1 = crdr_gpr(r->insn);
	return svm_vmexit(s, &x);
}

/* APM2 15.11: the MSRPM bit of the access, read from memory each time. */
static status_t msr_access(struct svm *s, struct cpu *cpu, struct exit_record *r)
{
	if (!svm_intercepted(s, SVM_INTERCEPT_MSR_PROT))
		return ST_OK;
	uint32_t byte;
	unsigned bit;
	if (svm_msrpm_locate(r->msr, r->msr_write, &byte, &bit)) {
		uint8_t b = (uint8_t)physmem_read(cpu->mem, s->ctl.msrpm_base + byte, 1);
		if (!((b >> bit) & 1))
			return ST_OK;
	}
	/* APM2 15.11: EXITINFO1 = 0 for RDMSR, 1 for WRMSR. */
	struct svm_exit x = insn_exit(r, SVM_EXIT_MSR);
	x.info1 = r->msr_write;
	return svm_vmexit(s, &x);
}

/* APM2 15.10.1: one IOPM bit per port, all of port..port+size-1. */
static bool iopm_says(struct svm *s, struct cpu *cpu, uint16_t port, unsigned size)
{
	for (uint32_t p = port; p < (uint32_t)port + size; p++) {
		uint8_t b = (uint8_t)physmem_read(cpu->mem, s->ctl.iopm_base + p / 8, 1);
		if ((b >> (p % 8)) & 1)
			return true;
	}
	return false;
}

static status_t io_access(struct svm *s, struct cpu *cpu, struct exit_record *r)
{
	if (!svm_intercepted(s, SVM_INTERCEPT_IOIO_PROT) || !iopm_says(s, cpu, r->port, r->io_size))
		return ST_OK;
	/* APM2 15.10.2: port, type, STR, REP, one-hot operand and address size,
	 * the segment of a string instruction (with decode assists); EXITINFO2 =
	 * the next RIP. */
	const struct insn *in = r->insn;
	uint64_t info = ((uint64_t)r->port << SVM_IOIO_PORT_SHIFT) | (r->io_in ? SVM_IOIO_TYPE_IN : 0) |
			(r->io_string ? SVM_IOIO_STR : 0) | (r->io_rep ? SVM_IOIO_REP : 0);
	info |= r->io_size == 1 ? SVM_IOIO_SZ8 : r->io_size == 2 ? SVM_IOIO_SZ16 : SVM_IOIO_SZ32;
	info |= in->asize == 2 ? SVM_IOIO_A16 : in->asize == 4 ? SVM_IOIO_A32 : SVM_IOIO_A64;
	info = svm_quirk_ioio_info(s, info);
	if (r->io_string && decode_assists(s))
		info |= (uint64_t)(r->op.seg & 7) << SVM_IOIO_SEG_SHIFT;
	struct svm_exit x = insn_exit(r, SVM_EXIT_IOIO);
	x.info1 = info;
	x.info2 = r->next_rip;
	return svm_vmexit(s, &x);
}

/* APM2 15.14.4: the PAUSE filter. The count is loaded at VMRUN; each PAUSE
 * decrements it and the one that brings it to 0 is intercepted. With the
 * threshold (Fn8000_000A_EDX[12]), a PAUSE more than THRESHOLD cycles after
 * the previous one reloads the count first (hvemu's cycles are virtual time:
 * instructions). */
static bool pause_filtered(struct svm *s, struct cpu *cpu)
{
	if (!svm_feature(s, SVM_FEAT_PAUSE_FILTER) || s->ctl.pause_filter_count == 0)
		return false;
	uint64_t now = cpu_now(cpu);
	if (svm_feature(s, SVM_FEAT_PAUSE_FILTER_THRESHOLD) && s->ctl.pause_filter_threshold &&
	    now - s->last_pause > s->ctl.pause_filter_threshold)
		s->pause_count = s->ctl.pause_filter_count;
	s->last_pause = now;
	if (s->pause_count > 1) {
		s->pause_count--;
		return true;
	}
	s->pause_count = s->ctl.pause_filter_count;
	return false;
}

/* The instruction kinds with one intercept bit and one exit code (APM2 15.9,
 * 15.13, 15.14; Appendix C). */
static const struct {
	uint8_t kind;              /* enum intercept_kind */
	uint16_t intercept;        /* enum svm_intercept */
	uint16_t code;             /* enum svm_exit_code */
} plain_insns[] = {
	{ IK_CPUID,   SVM_INTERCEPT_CPUID,   SVM_EXIT_CPUID },
	{ IK_HLT,     SVM_INTERCEPT_HLT,     SVM_EXIT_HLT },
	{ IK_INVD,    SVM_INTERCEPT_INVD,    SVM_EXIT_INVD },
	{ IK_WBINVD,  SVM_INTERCEPT_WBINVD,  SVM_EXIT_WBINVD },
	{ IK_RDTSC,   SVM_INTERCEPT_RDTSC,   SVM_EXIT_RDTSC },
	{ IK_RDTSCP,  SVM_INTERCEPT_RDTSCP,  SVM_EXIT_RDTSCP },
	{ IK_RDPMC,   SVM_INTERCEPT_RDPMC,   SVM_EXIT_RDPMC },
	{ IK_RDPRU,   SVM_INTERCEPT_RDPRU,   SVM_EXIT_RDPRU },
	{ IK_MONITOR, SVM_INTERCEPT_MONITOR, SVM_EXIT_MONITOR },
	{ IK_XSETBV,  SVM_INTERCEPT_XSETBV,  SVM_EXIT_XSETBV },
	{ IK_RSM,     SVM_INTERCEPT_RSM,     SVM_EXIT_RSM },
	{ IK_PUSHF,   SVM_INTERCEPT_PUSHF,   SVM_EXIT_PUSHF },
	{ IK_POPF,    SVM_INTERCEPT_POPF,    SVM_EXIT_POPF },
	{ IK_IRET,    SVM_INTERCEPT_IRET,    SVM_EXIT_IRET },
	{ IK_ICEBP,   SVM_INTERCEPT_ICEBP,   SVM_EXIT_ICEBP },
};

static status_t instruction(struct svm *s, struct cpu *cpu, struct exit_record *r)
{
	/* APM2 15.9: instruction intercepts are checked after the instruction's
	 * own simple exceptions; SVM disables no instruction (the early phase is
	 * VMX's, SDM Vol.3 25.3). */
	if (r->phase != PHASE_CHECKED)
		return ST_OK;
	unsigned kind = svm_quirk_insn_kind(s, r->kind);
	for (unsigned i = 0; i < sizeof(plain_insns) / sizeof(plain_insns[0]); i++) {
		if (plain_insns[i].kind != kind)
			continue;
		if (!svm_intercepted(s, (enum svm_intercept)plain_insns[i].intercept))
			return ST_OK;
		struct svm_exit x = insn_exit(r, plain_insns[i].code);
		return svm_vmexit(s, &x);
	}
	struct svm_exit x;
	switch (r->kind) {
	case IK_PAUSE:
		if (!svm_intercepted(s, SVM_INTERCEPT_PAUSE) || pause_filtered(s, cpu))
			return ST_OK;
		x = insn_exit(r, SVM_EXIT_PAUSE);
		return svm_vmexit(s, &x);
	case IK_MWAIT:
		/* APM2 15.9: MWAIT unconditionally, or only with the monitor armed. */
		if (svm_intercepted(s, SVM_INTERCEPT_MWAIT))
			x = insn_exit(r, SVM_EXIT_MWAIT);
		else if (svm_intercepted(s, SVM_INTERCEPT_MWAIT_ARMED) && cpu->monitor_armed)
			x = insn_exit(r, SVM_EXIT_MWAIT_CONDITIONAL);
		else
			return ST_OK;
		return svm_vmexit(s, &x);
	case IK_INTN:
		if (!svm_intercepted(s, SVM_INTERCEPT_INTN))
			return ST_OK;
		x = insn_exit(r, SVM_EXIT_SWINT);
		if (decode_assists(s))
			x.info1 = r->vector;   /* APM2 15.33: the INTn vector */
		return svm_vmexit(s, &x);
	case IK_INVLPG:
		if (!svm_intercepted(s, SVM_INTERCEPT_INVLPG))
			return ST_OK;
		x = insn_exit(r, SVM_EXIT_INVLPG);
		if (decode_assists(s))
			x.info1 = r->op.linear;   /* APM2 15.33: the linear address */
		return svm_vmexit(s, &x);
	case IK_DESC_TABLE: {
		/* APM2 15.13: IDTR/GDTR/LDTR/TR reads (SxDT, SxDT) and writes. */
		static const uint16_t read_bit[] = { SVM_INTERCEPT_GDTR_READ, SVM_INTERCEPT_IDTR_READ,
						     SVM_INTERCEPT_LDTR_READ, SVM_INTERCEPT_TR_READ };
		static const uint16_t write_bit[] = { SVM_INTERCEPT_GDTR_WRITE, SVM_INTERCEPT_IDTR_WRITE,
						      SVM_INTERCEPT_LDTR_WRITE, SVM_INTERCEPT_TR_WRITE };
		static const uint16_t read_code[] = { SVM_EXIT_GDTR_READ, SVM_EXIT_IDTR_READ, SVM_EXIT_LDTR_READ,
						      SVM_EXIT_TR_READ };
		static const uint16_t write_code[] = { SVM_EXIT_GDTR_WRITE, SVM_EXIT_IDTR_WRITE,
						       SVM_EXIT_LDTR_WRITE, SVM_EXIT_TR_WRITE };
		unsigned d = r->desc & 3;
		uint16_t bit = r->desc_write ? write_bit[d] : read_bit[d];
		if (!svm_intercepted(s, (enum svm_intercept)bit))
			return ST_OK;
		x = insn_exit(r, r->desc_write ? write_code[d] : read_code[d]);
		return svm_vmexit(s, &x);
	}
	default:
		/* INVPCID and the VMX rows: no SVM intercept this model reports;
		 * RDRAND and RDSEED: the APM defines no intercept for them. */
		return ST_OK;
	}
}

/* ---- events ---- */

static status_t exception(struct svm *s, struct cpu *cpu, struct exit_record *r)
{
	const struct event *ev = &r->event;
	/* INTn has its own intercept (asked at the instruction) and so has ICEBP,
	 * whose #DB is not subject to the #DB intercept (APM2 15.12.2); APM2
	 * 15.20: injected events are not subject to the exception intercepts. */
	if (ev->type == EV_SOFTINT || ev->type == EV_PRIV_SOFTEXC || ev->injected || ev->vector >= 32)
		return ST_OK;
	if (!svm_intercepted(s, (enum svm_intercept)(SVM_INTERCEPT_EXCEPTION + ev->vector)) ||
	    svm_quirk_exception_unchecked(s, ev->vector))
		return ST_OK;
	/* APM2 15.12.2: "both #DB faults and traps are permitted to write DR6 and
	 * DR7 before the intercept": the VMCB saves what the handler would see. */
	if (ev->vector == EXC_DB)
		debug_deliver_dr6(cpu, ev);
	struct svm_exit x = exit_of(r, SVM_EXIT_EXCEPTION + ev->vector);
	/* APM2 15.12: EXITINFO1 the error code the exception would push, EXITINFO2
	 * of #PF the faulting address (CR2 is not written). */
	if (ev->has_error)
		x.info1 = ev->error_code;
	if (ev->type == EV_EXCEPTION && ev->vector == EXC_PF) {
		x.info2 = svm_quirk_pf_exitinfo2(s, ev);
		if (decode_assists(s))
			fetch_insn_bytes(cpu, r->rip, &x);
	}
	/* APM2 15.7.1: INT3, INTO and BOUND are instructions: nRIP is the one
	 * after them. */
	if (ev->type == EV_SOFTEXC)
		x.nrip = cpu->rip;
	else if (ev->vector == EXC_BR && ev->insn_len)
		x.nrip = r->rip + ev->insn_len;
	return svm_vmexit(s, &x);
}

static status_t plain_event(struct svm *s, struct exit_record *r, enum svm_intercept bit, uint64_t code)
{
	if (!svm_intercepted(s, bit))
		return ST_OK;
	struct svm_exit x = exit_of(r, code);
	return svm_vmexit(s, &x);
}

/* APM2 15.13.1 (INTR), 15.13.2 (NMI): the intercepts of a physical
 * interrupt or NMI as it arrives. APM2 15.20: an event VMRUN injects is not
 * subject to them (as it is not to the exception intercepts above), and an
 * interrupt whose delivery through the IDT has begun (a virtual one, or a
 * physical one already let through) was decided as it arrived. */
static status_t interrupt_event(struct svm *s, struct exit_record *r, enum svm_intercept bit, uint64_t code)
{
	if (r->event.injected || (bit == SVM_INTERCEPT_INTR && r->event.pending))
		return ST_OK;
	return plain_event(s, r, bit, code);
}

static status_t task_switch(struct svm *s, struct exit_record *r)
{
	/* APM2 15.14.1: asked after the new and old TSS limit checks. */
	if (r->phase != PHASE_TSS_CHECKED || !svm_intercepted(s, SVM_INTERCEPT_TASK_SWITCH) ||
	    svm_quirk_no_task_switch_intercept(s))
		return ST_OK;
	/* APM2 15.14.3 (task switch): EXITINFO1 the target TSS selector;
	 * EXITINFO2 bit 36 IRET, bit 38 JMP, bit 44 with the error code in 31:0
	 * for a switch through a gate by an exception that pushes one. */
	struct svm_exit x = exit_of(r, SVM_EXIT_TASK_SWITCH);
	x.info1 = r->tss_selector;
	if (r->ts_source == TS_IRET)
		x.info2 |= SVM_TASK_SWITCH_IRET;
	if (r->ts_source == TS_JMP)
		x.info2 |= SVM_TASK_SWITCH_JMP;
	if (r->ts_source == TS_GATE && r->event.has_error)
		x.info2 |= SVM_TASK_SWITCH_HAS_ERROR | r->event.error_code;
	/* APM2 15.14 (task switch intercept), EXITINFO2 bit 48: the value of RF
	 * the switch would save in the outgoing TSS; the guest's RFLAGS in the
	 * VMCB is not changed for it. */
	if (r->ts_saved_rf)
		x.info2 |= SVM_TASK_SWITCH_RF;
	return svm_vmexit(s, &x);
}

static status_t nested_page_fault(struct svm *s, struct cpu *cpu, struct exit_record *r)
{
	/* APM2 15.25.6: always a #VMEXIT(NPF): EXITINFO1 the #PF-style error code
	 * with bit 32 (final translation) or 33 (guest page-table access),
	 * EXITINFO2 the guest-physical address. */
	struct svm_exit x = exit_of(r, SVM_EXIT_NPF);
	x.info1 = npf_exitinfo1(&r->fault);
	x.info2 = r->fault.nested.gpa;
	if (decode_assists(s))
		fetch_insn_bytes(cpu, r->rip, &x);
	return svm_vmexit(s, &x);
}

status_t svm_intercept(void *ctx, struct cpu *cpu, struct exit_record *r)
{
	struct svm *s = ctx;
	switch (r->kind) {
	case IK_CR_ACCESS:     return cr_access(s, cpu, r);
	case IK_DR_ACCESS:     return dr_access(s, r);
	case IK_MSR:           return msr_access(s, cpu, r);
	case IK_IO:            return io_access(s, cpu, r);
	case IK_EXCEPTION:     return exception(s, cpu, r);
	case IK_INTR:          return interrupt_event(s, r, SVM_INTERCEPT_INTR, SVM_EXIT_INTR);
	case IK_NMI:           return interrupt_event(s, r, SVM_INTERCEPT_NMI, SVM_EXIT_NMI);
	case IK_SMI:           return plain_event(s, r, SVM_INTERCEPT_SMI, SVM_EXIT_SMI);
	case IK_INIT:          return plain_event(s, r, SVM_INTERCEPT_INIT, SVM_EXIT_INIT);
	case IK_INTR_WINDOW:   return plain_event(s, r, SVM_INTERCEPT_VINTR, SVM_EXIT_VINTR);
	case IK_NMI_WINDOW:    return ST_OK;   /* a VMX exit; SVM has none */
	/* VMX's: SVM never arms them, nor runs a guest waiting for SIPI. */
	case IK_SIPI: case IK_MTF: case IK_PREEMPTION_TIMER: case IK_TPR_BELOW_THRESHOLD:
	case IK_APIC_ACCESS: case IK_APIC_WRITE: case IK_VIRTUALIZED_EOI: case IK_VIRTUAL_INTR:
		return ST_OK;
	case IK_SHUTDOWN:      return plain_event(s, r, SVM_INTERCEPT_SHUTDOWN, SVM_EXIT_SHUTDOWN);
	case IK_FERR_FREEZE:   return plain_event(s, r, SVM_INTERCEPT_FERR_FREEZE, SVM_EXIT_FERR_FREEZE);
	case IK_TASK_SWITCH:   return task_switch(s, r);
	case IK_STAGE2_FAULT:
	case IK_STAGE2_MISCONFIG:
		return nested_page_fault(s, cpu, r);
	default:               return instruction(s, cpu, r);
	}
}
