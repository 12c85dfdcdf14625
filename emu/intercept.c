/* The core's half of the hypervisor seam (emu/hv.h): build the exit record of
 * an interceptable event and ask the installed model. Only reached while a
 * guest runs (cpu->in_guest); the inline checks in hv.h keep everything else
 * off this path. */
#include <assert.h>

#include "emu/debug.h"
#include "emu/event_step.h"
#include "emu/hv.h"
#include "emu/operand.h"
#include "isa_handlers.h"

static const char *const kind_names[IK_COUNT] = {
#define X(name, what) [IK_##name] = #name,
#include "emu/intercept.def"
#undef X
};

const char *intercept_name(enum intercept_kind k)
{
	return (unsigned)k < IK_COUNT ? kind_names[k] : "?";
}

/* An event as the guest would receive it: "Exceptions do not return error
 * codes in real-address mode" (SDM Vol.3 20.1.4), so none is reported either
 * (SDM Vol.3 27.2.2: error code valid only if the exception "would have
 * delivered an error code on the stack"). */
static struct event as_delivered(const struct cpu *cpu, struct event ev)
{
	if (!(cpu->cr0 & CR0_PE)) {
		ev.has_error = false;
		ev.error_code = 0;
	}
	return ev;
}

/* What every record carries: the kind, where the guest is, and the event whose
 * delivery was in progress (IDT-vectoring information / EXITINTINFO). */
static void record_start(struct cpu *cpu, struct exit_record *r, enum intercept_kind kind)
{
	*r = (struct exit_record){ .kind = kind, .rip = cpu->rip, .next_rip = cpu->rip };
	if (cpu->vectoring_valid) {
		r->vectoring_valid = true;
		r->vectoring = as_delivered(cpu, cpu->vectoring);
	}
}

/* A fault of the running instruction is an IRET's that ended NMI blocking
 * (far_return.c stamps cpu_now() + 1 as it unblocks). */
static bool iret_unblocked_nmi(const struct cpu *cpu)
{
	return cpu->iret_nmi_unblock == cpu_now(cpu) + 1;
}

/* Whether the row has a ModRM r/m operand: an E, M or R operand letter (emu/isa/
 * README.md). RDTSCP, XSETBV, MONITOR... are ModRM encodings without one. */
static bool has_rm_operand(const struct insn *in)
{
	const char *ops = isa_rows[in->row].operands;
	for (const char *p = ops; *p; p++) {
		bool letter = *p == 'E' || *p == 'M' || *p == 'R';
		bool starts = p == ops || p[-1] == ',';
		bool sized = p[1] == '\0' || p[1] == ',' || (p[1] >= 'a' && p[1] <= 'z');
		if (letter && starts && sized)
			return true;
	}
	return false;
}

/* The instruction and its operand: RIP of the instruction, next RIP (the core
 * has already advanced cpu->rip), the ModRM memory operand's effective and
 * linear address (as the access would form it; not yet checked), or the
 * register operand. */
static void record_insn(struct cpu *cpu, const struct insn *in, struct exit_record *r)
{
	r->insn = in;
	r->rip = cpu->insn_start;
	r->next_rip = cpu->rip;
	r->op.asize = in->asize;
	r->op.osize = in->osize;
	if (!has_rm_operand(in))
		return;
	r->op.mem = in->mem;
	r->op.gpr = in->rm;
	r->op.reg = in->reg;
	if (in->mem) {
		uint64_t off = insn_ea(cpu, in);
		const struct segment *s = &cpu->seg[in->seg];
		r->op.seg = in->seg;
		r->op.base = in->base;
		r->op.index = in->index;
		r->op.scale = in->scale;
		r->op.disp = in->disp;
		r->op.offset = off;
		if (cpu_is_mode64(cpu))
			r->op.linear = (in->seg == SR_FS || in->seg == SR_GS) ? s->base + off : off;
		else
			r->op.linear = (uint32_t)(s->base + off);
	}
}

/* Where the guest resumes after an exit that happens while an event is
 * delivered: the instruction that raised a software interrupt or exception,
 * or the entry that injected the event (either is retried), else the
 * interrupted rIP the delivery holds; outside a delivery, the instruction
 * that was executing (SDM Vol.3 27.3.3 guest RIP; APM2 15.7.2). */
static uint64_t resume_rip(const struct cpu *cpu)
{
	if (!cpu->vectoring_valid)
		return cpu->insn_start;
	const struct event *ev = &cpu->vectoring;
	bool software = ev->type == EV_SOFTINT || ev->type == EV_SOFTEXC || ev->type == EV_PRIV_SOFTEXC;
	/* An injected event's delivery started at the entry's rIP (insn_start). */
	return software || ev->injected ? cpu->insn_start : cpu->rip;
}

/* Ask the model about an event whose call site cannot skip its effect: a
 * model that answers ST_HANDLED there is broken. */
static status_t ask(struct cpu *cpu, struct exit_record *r)
{
	status_t st = cpu->hv->intercept(cpu->hv_ctx, cpu, r);
	assert(st != ST_HANDLED);
	return st;
}

/* Ask where ST_HANDLED is an answer (emu/hv.h lists the kinds). */
static status_t ask_may_handle(struct cpu *cpu, struct exit_record *r)
{
	return cpu->hv->intercept(cpu->hv_ctx, cpu, r);
}

/* SGDT/SIDT/LGDT/LIDT are 0F 01 /0-/3, SLDT/STR/LLDT/LTR 0F 00 /0-/3: the
 * register is bit 0 of the digit plus the table, the direction bit 1. */
static void record_desc(const struct insn *in, struct exit_record *r)
{
	unsigned digit = (in->modrm >> 3) & 7;
	bool local = in->opcode == 0x00;
	r->desc = (uint8_t)((local ? DESC_LDTR : DESC_GDTR) + (digit & 1));
	r->desc_write = digit & 2;
}

status_t hv_intercept_insn(struct cpu *cpu, const struct insn *in, enum intercept_kind kind, uint8_t phase)
{
	if (kind == IK_NONE)
		return ST_OK;
	struct exit_record r;
	record_start(cpu, &r, kind);
	record_insn(cpu, in, &r);
	r.phase = phase;
	if (kind == IK_DESC_TABLE)
		record_desc(in, &r);
	else if (kind == IK_INTN)
		r.vector = (uint8_t)in->imm;
	return ask(cpu, &r);
}

status_t hv_intercept_cr(struct cpu *cpu, const struct insn *in, enum intercept_kind kind, unsigned reg,
			 enum cr_access access, uint64_t *value, uint8_t phase)
{
	struct exit_record r;
	record_start(cpu, &r, kind);
	record_insn(cpu, in, &r);
	r.phase = phase;
	r.cr = (uint8_t)reg;
	r.cr_access = (uint8_t)access;
	r.value = *value;
	bool mov = kind == IK_CR_ACCESS && (access == CR_MOV_TO || access == CR_MOV_FROM);
	status_t st = mov ? ask_may_handle(cpu, &r) : ask(cpu, &r);
	if (st == ST_OK || st == ST_HANDLED)
		*value = r.value;
	return st;
}

status_t hv_intercept_msr(struct cpu *cpu, const struct insn *in, uint32_t index, bool is_write,
			  uint64_t *value)
{
	struct exit_record r;
	record_start(cpu, &r, IK_MSR);
	record_insn(cpu, in, &r);
	r.msr = index;
	r.msr_write = is_write;
	r.value = *value;
	/* ST_HANDLED: the model virtualized the access (VMX "virtualize x2APIC
	 * mode", SDM Vol.3 29.5): a read's value is r.value, a write is done. */
	status_t st = ask_may_handle(cpu, &r);
	if (st == ST_OK || st == ST_HANDLED)
		*value = r.value;
	return st;
}

status_t hv_intercept_io(struct cpu *cpu, const struct insn *in, uint16_t port, unsigned size, bool is_in,
			 bool is_string, bool has_rep)
{
	struct exit_record r;
	record_start(cpu, &r, IK_IO);
	record_insn(cpu, in, &r);
	r.port = port;
	r.io_size = (uint8_t)size;
	r.io_in = is_in;
	r.io_string = is_string;
	r.io_rep = has_rep;
	/* E4-E7 take the port from an immediate, EC-EF and the string forms from DX. */
	r.io_imm = in->map == 0 && in->opcode >= 0xe4 && in->opcode <= 0xe7;
	if (is_string) {
		/* INS writes ES:rDI, OUTS reads seg:rSI (SDM Vol.3 27.2.5, guest-linear
		 * address; APM2 15.10.2 SEG field with decode assists). */
		unsigned seg = is_in ? SR_ES : in->seg;
		uint64_t off = cpu->regs[is_in ? R_DI : R_SI] & size_mask(in->asize);
		const struct segment *s = &cpu->seg[seg];
		r.op.mem = true;
		r.op.seg = (uint8_t)seg;
		r.op.offset = off;
		r.op.linear = cpu_is_mode64(cpu) ? ((seg == SR_FS || seg == SR_GS) ? s->base + off : off)
						 : (uint32_t)(s->base + off);
	}
	return ask(cpu, &r);
}

status_t hv_intercept_event(struct cpu *cpu, const struct event *ev)
{
	struct exit_record r;
	enum intercept_kind kind = ev->type == EV_EXTINT ? IK_INTR : ev->type == EV_NMI ? IK_NMI : IK_EXCEPTION;
	record_start(cpu, &r, kind);
	r.event = as_delivered(cpu, *ev);
	r.vector = ev->vector;
	/* INT n, INT3, INTO and INT1 are asked about as their instruction raises
	 * them (cpu->rip is past it): the record names the instruction and the
	 * next one (SDM Vol.3 27.3.3: for a software exception "the value saved
	 * references the INT3, INTO, or INT1 instruction"; APM2 15.7.1 nRIP). */
	bool software = ev->type == EV_SOFTINT || ev->type == EV_SOFTEXC || ev->type == EV_PRIV_SOFTEXC;
	if (cpu->vectoring_valid)
		r.rip = r.next_rip = resume_rip(cpu);   /* a fault while delivering another event */
	else if (software && !ev->injected)
		r.rip = cpu->insn_start;
	else if (ev->type == EV_EXCEPTION && !ev->injected)
		r.nmi_unblocked_by_iret = iret_unblocked_nmi(cpu);
	return ask(cpu, &r);
}

status_t hv_intercept_intr(struct cpu *cpu, int *vector)
{
	struct exit_record r;
	record_start(cpu, &r, IK_INTR);
	status_t st = ask_may_handle(cpu, &r);
	if (r.intr_acked)
		*vector = r.vector;
	return st;
}

bool hv_ack_intr(struct cpu *cpu, struct exit_record *rec)
{
	if (rec->kind != IK_INTR || rec->intr_acked || !cpu->intr_ack)
		return rec->intr_acked;
	int v = cpu->intr_ack(cpu->intr_ctx);
	if (v < 0)
		return false;
	rec->intr_acked = true;
	rec->vector = (uint8_t)v;
	rec->event = (struct event){ .pending = true, .type = EV_EXTINT, .vector = (uint8_t)v };
	return true;
}

status_t hv_intercept_vector(struct cpu *cpu, enum intercept_kind kind, uint8_t vector)
{
	struct exit_record r;
	record_start(cpu, &r, kind);
	r.vector = vector;
	return ask(cpu, &r);
}

status_t hv_intercept_virtual_intr(struct cpu *cpu, uint8_t *vector)
{
	struct exit_record r;
	record_start(cpu, &r, IK_VIRTUAL_INTR);
	status_t st = ask_may_handle(cpu, &r);
	if (st == ST_HANDLED)
		*vector = r.vector;
	return st;
}

status_t hv_intercept_apic(struct cpu *cpu, const struct insn *in, enum intercept_kind kind, uint16_t offset,
			   enum apic_access access)
{
	struct exit_record r;
	record_start(cpu, &r, kind);
	if (in)
		record_insn(cpu, in, &r);
	r.apic_offset = offset;
	r.apic_access = (uint8_t)access;
	/* An access to the APIC-access page exits fault-like (SDM Vol.3 29.4:
	 * the instruction, or the delivery, did not complete); APIC_WRITE is
	 * trap-like, after the instruction (29.4.3.3). */
	if (kind == IK_APIC_ACCESS)
		r.rip = resume_rip(cpu);
	return ask(cpu, &r);
}

status_t hv_intercept_task_switch(struct cpu *cpu, uint16_t selector, enum ts_source source, uint8_t phase)
{
	struct exit_record r;
	record_start(cpu, &r, IK_TASK_SWITCH);
	r.phase = phase;
	r.rip = resume_rip(cpu);
	r.tss_selector = selector;
	r.ts_source = (uint8_t)source;
	if (source == TS_GATE && cpu->vectoring_valid)
		r.event = r.vectoring;
	/* What the switch would save as the old EFLAGS' RF (emu/task.c): the
	 * current RF, set for a fault delivered through the gate. */
	r.ts_saved_rf = (cpu->rflags & FLAG_RF) || (source == TS_GATE && cpu->vectoring_valid &&
						    event_saves_rf(&r.vectoring));
	return ask(cpu, &r);
}

status_t hv_intercept_plain(struct cpu *cpu, enum intercept_kind kind)
{
	struct exit_record r;
	record_start(cpu, &r, kind);
	return ask(cpu, &r);
}

status_t hv_intercept_stage2(struct cpu *cpu, enum intercept_kind kind, const struct fault *f)
{
	struct exit_record r;
	record_start(cpu, &r, kind);
	r.rip = resume_rip(cpu);
	r.fault = *f;
	r.nmi_unblocked_by_iret = !cpu->vectoring_valid && iret_unblocked_nmi(cpu);
	return ask(cpu, &r);
}

status_t hv_vm_insn(struct cpu *cpu, const struct insn *in)
{
	/* Without a hypervisor model the VM instructions do not exist: #UD (SDM
	 * Vol.3 30.3 "VMXON ... #UD if CPUID.1:ECX.VMX = 0"; APM3 VMRUN: #UD when
	 * EFER.SVME = 0, which cannot be set without SVM). */
	if (!cpu->hv || !cpu->hv->vm_insn)
		return cpu_raise(cpu, EXC_UD);
	return cpu->hv->vm_insn(cpu->hv_ctx, cpu, in, (enum intercept_kind)isa_rows[in->row].intercept);
}

/* VMRUN...INVLPGA, VMCALL...VMFUNC (emu/isa/vm.isa). */
status_t op_vm_insn(struct cpu *cpu, const struct insn *in)
{
	return hv_vm_insn(cpu, in);
}

void cpu_world_switched(struct cpu *cpu)
{
	cpu_update_mode(cpu);
	/* cpu_update_mode() sets CPL for real and v8086 mode only; the model set it
	 * otherwise. IF, GIF, shadows and TF may all have changed. */
	cpu->halted = false;
	cpu_attend(cpu, ATT_EVENT | ATT_STEP);
	/* Back in the host after a VMRUN that ran with TF: its single-step trap
	 * (emu/run.c run_one). */
	if (!cpu->in_guest && cpu->step_at_vmexit) {
		cpu->step_at_vmexit = false;
		debug_arm_trap(cpu, true);
	}
}
