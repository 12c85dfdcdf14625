/* The seam between the CPU core and a hypervisor model (svm/, vmx/).
 *
 * Machine set-up installs a model (struct hv_model) in cpu->hv. The model
 * implements the VM instructions (VMRUN..., VMXON...) and, while it runs a
 * guest (cpu->in_guest), decides about every interceptable event: the core
 * describes the event once in a struct exit_record (emu/exit_record.h) and
 * asks. The answer is a status:
 *   ST_OK      not intercepted: the core carries on (a read may return the
 *              value the model put in rec->value: CR0/CR4 read shadows, TPR)
 *   ST_FAULT   the model raised an exception instead (cpu->event), e.g. #UD
 *              for an instruction the VMX controls do not enable
 *   ST_VMEXIT  the model switched the CPU to the host (L1) state; the core
 *              abandons the event and L1 simply continues in the run loop.
 *   ST_HANDLED the model emulated the access itself and the core skips its own
 *              effect: a write is not made, a read returns rec->value. Only
 *              where the call site can skip: MOV to/from CRn (SVM's V_TPR,
 *              APM2 15.21.2; VMX's TPR shadow, SDM Vol.3 "TPR Virtualization"),
 *              RDMSR/WRMSR (VMX's "virtualize x2APIC mode", 29.5), INTR
 *              (posted interrupts: the model took it) and VIRTUAL_INTR
 *              (the model acknowledged its virtual interrupt, rec->vector).
 *              Elsewhere the answer is a model bug (emu/intercept.c asserts).
 * With no guest running each check is one predictable branch.
 *
 * The other direction, also outside guest mode: the model arms boundary
 * events (cpu_hv_arm(), emu/event_step.h: MTF, its timer, the windows, TPR
 * threshold, virtual-interrupt delivery), each a row of the event step with
 * its priority, asked as an exit record of the row's kind; it holds events
 * off (cpu->hv_holds: INIT in VMX root operation); and it checks control
 * register writes (cpu->hv_cr_checks, cr_write_check below).
 * emu/ never includes svm/ or vmx/; they include this.
 */
#ifndef HVEMU_EMU_HV_H
#define HVEMU_EMU_HV_H

#include "emu/cpu.h"
#include "emu/exit_record.h"
#include "emu/exit_report.h"
#include "emu/insn.h"

struct hv_model {
	const char *name;
	/* An interceptable event in guest mode (see above). */
	status_t (*intercept)(void *ctx, struct cpu *cpu, struct exit_record *rec);
	/* A VM instruction of this model's vendor, in any mode: the model's
	 * semantics (its own #UD/#GP checks included). */
	status_t (*vm_insn)(void *ctx, struct cpu *cpu, const struct insn *in, enum intercept_kind kind);
	/* Outside the intercepts, while the model set cpu->hv_cr_checks (VMX
	 * operation): a MOV to CR0/CR4, LMSW or CLTS about to write value to CRn.
	 * ST_OK lets it, ST_FAULT with #GP(0) raised refuses it (the fixed bits,
	 * CR4.VMXE in VMX operation: SDM Vol.3 "Restrictions on VMX Operation").
	 * Asked after the instruction's own checks, before the write. */
	status_t (*cr_write_check)(void *ctx, struct cpu *cpu, unsigned cr, enum cr_access access,
				   uint64_t value);
	/* A linear access of size bytes whose physical address pa is in
	 * cpu->apic_access_page (set by the model while its guest runs); crosses:
	 * the access also touches the neighbouring page. The model virtualizes it
	 * (ST_OK: buf read from or written to its own page) or exits. */
	status_t (*apic_access)(void *ctx, struct cpu *cpu, uint64_t pa, unsigned size, enum tlb_access acc,
				bool crosses, uint8_t *buf);
	/* cpu_reset(): forget the guest and every cached VMCB/VMCS state. */
	void (*reset)(void *ctx, struct cpu *cpu);
};

/* The exit report and its observer: emu/exit_report.h. */

/* ---- What a world switch (VMRUN, #VMEXIT, VM entry, VM exit) needs of the core ---- */

/* The state API (slots, segments, CRs, MSRs, entering and leaving a guest,
 * event injection) and the checks' helpers live in emu/world_state.h. */
#include "emu/world_state.h"

/* The slow halves (emu/intercept.c): build the record and ask the model. */
status_t hv_intercept_insn(struct cpu *cpu, const struct insn *in, enum intercept_kind kind,
			   uint8_t phase) CHECKED;
status_t hv_intercept_cr(struct cpu *cpu, const struct insn *in, enum intercept_kind kind,
			 unsigned reg, enum cr_access access, uint64_t *value, uint8_t phase) CHECKED;
status_t hv_intercept_msr(struct cpu *cpu, const struct insn *in, uint32_t index, bool is_write,
			  uint64_t *value) CHECKED;
status_t hv_intercept_io(struct cpu *cpu, const struct insn *in, uint16_t port, unsigned size,
			 bool is_in, bool is_string, bool has_rep) CHECKED;
status_t hv_intercept_event(struct cpu *cpu, const struct event *ev) CHECKED;
status_t hv_intercept_task_switch(struct cpu *cpu, uint16_t selector, enum ts_source source,
				  uint8_t phase) CHECKED;
status_t hv_intercept_plain(struct cpu *cpu, enum intercept_kind kind) CHECKED;
/* A stage-2 (nested paging, EPT) fault: always the model's (STAGE2_FAULT or
 * STAGE2_MISCONFIG). */
status_t hv_intercept_stage2(struct cpu *cpu, enum intercept_kind kind, const struct fault *f) CHECKED;
/* The VM instruction rows (emu/isa/vm.isa): the model's, or #UD without one. */
status_t hv_vm_insn(struct cpu *cpu, const struct insn *in) CHECKED;
/* INTR acceptance: *vector is the interrupt's if the model acknowledged it
 * (hv_ack_intr), else left alone. */
status_t hv_intercept_intr(struct cpu *cpu, int *vector) CHECKED;
/* Kinds whose record carries a vector only: SIPI, VIRTUALIZED_EOI. */
status_t hv_intercept_vector(struct cpu *cpu, enum intercept_kind kind, uint8_t vector) CHECKED;
/* VIRTUAL_INTR: ST_HANDLED with *vector the model's virtual interrupt. */
status_t hv_intercept_virtual_intr(struct cpu *cpu, uint8_t *vector) CHECKED;
/* APIC_ACCESS (access, op from in if any) and APIC_WRITE, at offset in the
 * APIC page. */
status_t hv_intercept_apic(struct cpu *cpu, const struct insn *in, enum intercept_kind kind,
			   uint16_t offset, enum apic_access access) CHECKED;
/* A model's exit of an INTR record acknowledges the interrupt controller
 * (VMX "acknowledge interrupt on exit"; posted interrupts): rec->vector and
 * rec->event.vector become the interrupt's, rec->intr_acked is set. False
 * when no interrupt is there any more (spurious) or nothing acknowledges. */
bool hv_ack_intr(struct cpu *cpu, struct exit_record *rec);

/* MOV to CR0/CR4, LMSW, CLTS outside the intercepts: the model's check, when
 * it asked for one (cpu->hv_cr_checks); one predictable branch otherwise. */
static inline status_t hv_check_cr_write(struct cpu *cpu, unsigned cr, enum cr_access access, uint64_t value)
{
	if (__builtin_expect(!cpu->hv_cr_checks, 1))
		return ST_OK;
	return cpu->hv->cr_write_check(cpu->hv_ctx, cpu, cr, access, value);
}

/* The intercept of in's row (the .isa "intercept" column), asked after the
 * instruction's own #UD and privilege checks (APM2 15.9, SDM Vol.3 25.1.1). */
static inline status_t intercept_insn(struct cpu *cpu, const struct insn *in)
{
	if (__builtin_expect(!cpu->in_guest, 1))
		return ST_OK;
	return hv_intercept_insn(cpu, in, (enum intercept_kind)isa_rows[in->row].intercept,
				 PHASE_CHECKED);
}

/* The same row asked before the instruction's own checks: for an
 * instruction a hypervisor can disable, whose #UD then comes first (VMX
 * "enable RDTSCP", "enable INVPCID": SDM Vol.3 25.3). Models decide exits
 * only at PHASE_CHECKED. */
static inline status_t intercept_insn_before_checks(struct cpu *cpu, const struct insn *in)
{
	if (__builtin_expect(!cpu->in_guest, 1))
		return ST_OK;
	return hv_intercept_insn(cpu, in, (enum intercept_kind)isa_rows[in->row].intercept,
				 PHASE_BEFORE_CHECKS);
}

/* CR_ACCESS / DR_ACCESS: reg is CRn or DRn; *value is the value written, or
 * for a read what the guest will see (a model may replace it). MOV to/from
 * CRn may be answered ST_HANDLED (see above); the caller skips its effect. */
static inline status_t intercept_cr(struct cpu *cpu, const struct insn *in, enum intercept_kind kind,
				   unsigned reg, enum cr_access access, uint64_t *value)
{
	if (__builtin_expect(!cpu->in_guest, 1))
		return ST_OK;
	return hv_intercept_cr(cpu, in, kind, reg, access, value, PHASE_CHECKED);
}

/* MOV DR asked before its own checks (SDM Vol.3 25.1.3: MOV-DR exits take
 * priority over the CPL #GP and the DR4/DR5 #UD); then again, checked. */
static inline status_t intercept_dr_early(struct cpu *cpu, const struct insn *in, enum cr_access access,
					  uint64_t *value)
{
	if (__builtin_expect(!cpu->in_guest, 1))
		return ST_OK;
	return hv_intercept_cr(cpu, in, IK_DR_ACCESS, in->reg, access, value, PHASE_BEFORE_CHECKS);
}

static inline status_t intercept_msr(struct cpu *cpu, const struct insn *in, uint32_t index,
				    bool is_write, uint64_t *value)
{
	if (__builtin_expect(!cpu->in_guest, 1))
		return ST_OK;
	return hv_intercept_msr(cpu, in, index, is_write, value);
}

/* Port I/O, after the IOPL / I/O-bitmap checks (SDM Vol.3 25.1.1; APM2 15.10). */
static inline status_t intercept_io(struct cpu *cpu, const struct insn *in, uint16_t port,
				   unsigned size, bool is_in, bool is_string, bool has_rep)
{
	if (__builtin_expect(!cpu->in_guest, 1))
		return ST_OK;
	return hv_intercept_io(cpu, in, port, size, is_in, is_string, has_rep);
}

/* An exception or interrupt about to be delivered. */
static inline status_t intercept_event(struct cpu *cpu, const struct event *ev)
{
	if (__builtin_expect(!cpu->in_guest, 1))
		return ST_OK;
	return hv_intercept_event(cpu, ev);
}

/* A task switch, asked twice: after the caller's descriptor checks
 * (PHASE_CHECKED, VMX) and after the TSS limit checks (PHASE_TSS_CHECKED,
 * SVM). */
static inline status_t intercept_task_switch(struct cpu *cpu, uint16_t selector, enum ts_source source,
					     uint8_t phase)
{
	if (__builtin_expect(!cpu->in_guest, 1))
		return ST_OK;
	return hv_intercept_task_switch(cpu, selector, source, phase);
}

/* Events without operands: SHUTDOWN, INIT, SMI, NMI acceptance, windows, MTF,
 * the preemption timer, TPR below threshold. */
static inline status_t intercept_plain(struct cpu *cpu, enum intercept_kind kind)
{
	if (__builtin_expect(!cpu->in_guest, 1))
		return ST_OK;
	return hv_intercept_plain(cpu, kind);
}

/* A maskable interrupt would be accepted: *vector >= 0 if the model
 * acknowledged it; ST_HANDLED if the model took it (posted interrupts). */
static inline status_t intercept_intr(struct cpu *cpu, int *vector)
{
	if (__builtin_expect(!cpu->in_guest, 1))
		return ST_OK;
	return hv_intercept_intr(cpu, vector);
}

static inline status_t intercept_vector(struct cpu *cpu, enum intercept_kind kind, uint8_t vector)
{
	if (__builtin_expect(!cpu->in_guest, 1))
		return ST_OK;
	return hv_intercept_vector(cpu, kind, vector);
}

static inline status_t intercept_virtual_intr(struct cpu *cpu, uint8_t *vector)
{
	if (__builtin_expect(!cpu->in_guest, 1))
		return ST_OK;
	return hv_intercept_virtual_intr(cpu, vector);
}

#endif
