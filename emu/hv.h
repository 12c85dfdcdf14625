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
 * With no guest running each check is one predictable branch.
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
	/* An instruction boundary with ATT_HV set in cpu->attention (the model
	 * asked to look: a pending virtual interrupt, a window, a timer). */
	status_t (*boundary)(void *ctx, struct cpu *cpu);
	/* cpu_reset(): forget the guest and every cached VMCB/VMCS state. */
	void (*reset)(void *ctx, struct cpu *cpu);
};

/* The exit report and its observer: emu/exit_report.h. */

/* ---- What a world switch (VMRUN, #VMEXIT, VM entry, VM exit) needs of the core ---- */

/* The CR4 and EFER bits this CPU implements; the rest are reserved (MBZ). */
uint64_t cpu_cr4_valid_bits(const struct cpu *cpu);
uint64_t cpu_efer_valid_bits(const struct cpu *cpu);

/* Whether MOV to CRn of val passes the instruction's #GP(0) checks on the
 * value (reserved bits, illegal combinations): an SVM CR-write intercept comes
 * only after them (APM2 15.9 Table 15-7), a VMX exit before (SDM Vol.3 25.1.1). */
bool cpu_mov_cr_value_ok(const struct cpu *cpu, unsigned cr, uint64_t val);

/* Load the PAE PDPTE registers for the current CR0/CR3/CR4 (SDM Vol.3 4.4.1),
 * through stage 2 while cpu->stage2_on: ST_FAULT with #GP(0) pending for a
 * reserved bit, a stage-2 fault goes to the model as usual. Nothing happens
 * outside PAE paging. */
status_t cpu_load_pdptes(struct cpu *cpu) CHECKED;

/* After a model replaced registers wholesale (segments with seg_refresh()
 * done, CRs, EFER, RFLAGS with the lazy flags dropped, CPL): recompute the
 * mode and have the run loop look at the next boundary afresh. */
void cpu_world_switched(struct cpu *cpu);

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

/* The intercept of in's row (the .isa "intercept" column), asked after the
 * instruction's own #UD and privilege checks (APM2 15.9, SDM Vol.3 25.1.1). */
static inline status_t intercept_insn(struct cpu *cpu, const struct insn *in)
{
	if (__builtin_expect(!cpu->in_guest, 1))
		return ST_OK;
	return hv_intercept_insn(cpu, in, (enum intercept_kind)isa_rows[in->row].intercept,
				 PHASE_CHECKED);
}

/* CR_ACCESS / DR_ACCESS: reg is CRn or DRn; *value is the value written, or
 * for a read what the guest will see (a model may replace it). */
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

/* Events without operands: SHUTDOWN, INIT, SMI, NMI and INTR acceptance, windows. */
static inline status_t intercept_plain(struct cpu *cpu, enum intercept_kind kind)
{
	if (__builtin_expect(!cpu->in_guest, 1))
		return ST_OK;
	return hv_intercept_plain(cpu, kind);
}

#endif
