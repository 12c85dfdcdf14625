/* Far calls and jumps: JMP/CALL ptr16:16/32 and m16:16/32 (SDM Vol.2 JMP,
 * CALL pseudo-code; SDM Vol.3 5.8 privilege checks for control transfers,
 * 5.8.5 call gates). The returns are emu/far_return.c.
 *
 * Every check is made in the order of the SDM pseudo-code before any register
 * changes; stack frames are checked whole and written before the commit. Task
 * switches (TSS and task-gate targets) are emu/task.c.
 */
#include "emu/far.h"
#include "emu/hv.h"
#include "emu/task.h"
#include "isa_handlers.h"

/* The far pointer operand: Ap (offset, selector immediates) or Mp (offset of
 * the operand size, then the selector). */
static status_t far_operand(struct cpu *cpu, const struct insn *in, uint16_t *sel, uint64_t *off)
{
	if (!in->mem) {
		*sel = in->imm2;
		*off = in->imm & size_mask(in->osize);
		return ST_OK;
	}
	uint64_t ea = insn_ea(cpu, in), s;
	status_t st = mem_read(cpu, in->seg, ea, in->osize, off);
	if (st != ST_OK)
		return st;
	st = mem_read(cpu, in->seg, (ea + in->osize) & size_mask(in->asize), 2, &s);
	*sel = (uint16_t)s;
	return st;
}

/* --- checks shared by JMP and CALL --- */

/* SDM Vol.2 JMP/CALL CONFORMING-CODE-SEGMENT and NONCONFORMING-CODE-SEGMENT
 * (SDM Vol.3 5.8.1, 5.8.2): conforming needs DPL <= CPL; non-conforming needs
 * RPL <= CPL and DPL = CPL; then present. */
static status_t check_direct_code(struct cpu *cpu, uint16_t sel, uint64_t raw)
{
	unsigned dpl = desc_dpl(raw);
	if (long_mode_bad_cs(cpu, raw))
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	if (desc_is_conforming(raw)) {
		if (dpl > cpu->cpl)
			return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	} else if (SEL_RPL(sel) > cpu->cpl || dpl != cpu->cpl) {
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	}
	if (!desc_present(raw))
		return cpu_raise_err(cpu, EXC_NP, sel_error(sel));
	return ST_OK;
}

/* The code segment a call gate names (SDM Vol.2 JMP/CALL CALL-GATE): null is
 * #GP(0); then index, type and DPL are #GP(code selector), not present
 * #NP(code selector). For JMP the target must also be reachable without a
 * privilege change (conforming DPL <= CPL, non-conforming DPL = CPL). */
static status_t check_gate_target(struct cpu *cpu, uint16_t tsel, bool is_jmp, uint64_t *raw)
{
	if (sel_is_null(tsel))
		return cpu_raise_err(cpu, EXC_GP, 0);
	status_t st = desc_fetch(cpu, tsel, EXC_GP, raw);
	if (st != ST_OK)
		return st;
	unsigned dpl = desc_dpl(*raw);
	bool bad = !desc_is_code(*raw) || dpl > cpu->cpl;
	if (is_jmp && !desc_is_conforming(*raw) && dpl != cpu->cpl)
		bad = true;
	/* IA-32e: the target must be 64-bit code (L=1, D=0). */
	if ((cpu->efer & EFER_LMA) && (!(*raw & (1ull << 53)) || (*raw & (1ull << 54))))
		bad = true;
	if (bad)
		return cpu_raise_err(cpu, EXC_GP, sel_error(tsel));
	if (!desc_present(*raw))
		return cpu_raise_err(cpu, EXC_NP, sel_error(tsel));
	return ST_OK;
}

/* JMP/CALL through an IA-32e call gate (SDM Vol.2 JMP/CALL CALL-GATE with
 * IA32_EFER.LMA = 1; SDM Vol.3 5.8.3.1, 5.8.5, 5.8.6): a 16-byte gate to 64-bit
 * code; a CALL to an inner level takes RSPn from the 64-bit TSS, loads a null
 * SS with RPL = new CPL and pushes SS, RSP, CS, RIP as quadwords; no
 * parameters are copied. */
static status_t far_gate64(struct cpu *cpu, uint16_t sel, uint64_t raw, bool is_jmp)
{
	unsigned gdpl = desc_dpl(raw);
	uint64_t hi, traw;
	status_t st;

	if (gdpl < cpu->cpl || SEL_RPL(sel) > gdpl)
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	if (!desc_present(raw))
		return cpu_raise_err(cpu, EXC_NP, sel_error(sel));
	st = desc_fetch_upper(cpu, sel, EXC_GP, &hi);
	if (st != ST_OK)
		return st;
	/* Figure 5-9: the type field of the upper half must be 0. */
	if ((hi >> 40) & 0x1f)
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	uint16_t tsel = (uint16_t)(raw >> 16);
	uint64_t rip = (raw & 0xffff) | ((raw >> 32) & 0xffff0000u) | (hi << 32);
	st = check_gate_target(cpu, tsel, is_jmp, &traw);
	if (st != ST_OK)
		return st;
	unsigned dpl = desc_dpl(traw);

	if (is_jmp) {
		if (!addr_canonical(cpu, rip))
			return cpu_raise_err(cpu, EXC_GP, 0);
		st = desc_set_accessed(cpu, tsel, &traw);
		if (st != ST_OK)
			return st;
		cs_commit(cpu, tsel, traw, cpu->cpl, rip);
		return ST_OK;
	}

	bool inner = !desc_is_conforming(traw) && dpl < cpu->cpl;
	struct stack_frame fr;
	if (inner) {
		uint64_t rsp;
		uint32_t off = 4 + 8 * dpl;
		if (off + 7 > cpu->tr.limit)
			return cpu_raise_err(cpu, EXC_TS, sel_error(cpu->tr.selector));
		st = lin_read_sys(cpu, cpu->tr.base + off, 8, &rsp);
		if (st != ST_OK)
			return st;
		frame_on_flat64(cpu, &fr, rsp, false);
		frame_add(&fr, 8, cpu->seg[SR_SS].selector);
		frame_add(&fr, 8, cpu->regs[R_SP]);
	} else {
		frame_on_current(cpu, &fr);
	}
	frame_add(&fr, 8, cpu->seg[SR_CS].selector);
	frame_add(&fr, 8, cpu->rip);
	if (!frame_fits(&fr))
		return cpu_raise_err(cpu, EXC_SS, 0);
	if (!addr_canonical(cpu, rip))
		return cpu_raise_err(cpu, EXC_GP, 0);
	st = desc_set_accessed(cpu, tsel, &traw);
	if (st == ST_OK)
		st = frame_write(cpu, &fr);
	if (st != ST_OK)
		return st;
	if (inner) {
		seg_load_null(&cpu->seg[SR_SS], (uint16_t)dpl);
		cpu->regs[R_SP] = frame_sp(&fr);
	} else {
		sp_write(cpu, fr.mask, frame_sp(&fr));
	}
	cs_commit(cpu, tsel, traw, inner ? dpl : cpu->cpl, rip);
	return ST_OK;
}

/* TSS or task gate as a JMP/CALL target (SDM Vol.2 JMP/CALL TASK-GATE,
 * TASK-STATE-SEGMENT; SDM Vol.3 7.3): DPL >= CPL and >= RPL (#GP(selector)),
 * present (#NP(selector)); a task gate then names an available TSS in the GDT
 * (task_gate_target). A busy TSS never gets here (#GP(selector) by type). */
static status_t far_to_task(struct cpu *cpu, uint16_t sel, uint64_t raw, bool is_call)
{
	unsigned dpl = desc_dpl(raw);
	/* SDM Vol.3 7.7: no task switches in IA-32e mode: #GP(selector). */
	if (cpu->efer & EFER_LMA)
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	if (dpl < cpu->cpl || dpl < SEL_RPL(sel))
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	if (!desc_present(raw))
		return cpu_raise_err(cpu, EXC_NP, sel_error(sel));
	uint16_t tss_sel = sel;
	uint64_t tss_raw = raw;
	if (desc_type(raw) == SYS_TASK_GATE) {
		status_t st = task_gate_target(cpu, raw, &tss_sel, &tss_raw);
		if (st != ST_OK)
			return st;
	}
	/* SDM Vol.3 7.3, 7.4: JMP does not nest; CALL links the new task to this one. */
	return task_switch(cpu, tss_sel, tss_raw, is_call ? TASK_CALL : TASK_JMP, NULL);
}

/* Offset of a call gate: 16 bits for a 16-bit gate (SDM Vol.3 5.8.3). */
static uint32_t gate_offset(uint64_t gate)
{
	uint32_t off = (uint32_t)(gate & 0xffff);
	if (desc_type(gate) == SYS_CALL_GATE32)
		off |= (uint32_t)(gate >> 32) & 0xffff0000u;
	return off;
}

/* --- JMP far --- */

static status_t jmp_far_real(struct cpu *cpu, uint16_t sel, uint64_t off)
{
	/* SDM Vol.2 JMP (real-address or virtual-8086 mode): the offset must be
	 * within the CS limit; CS is loaded as a real/v8086 segment. */
	if (off > cpu->seg[SR_CS].limit)
		return cpu_raise_err(cpu, EXC_GP, 0);
	if (cpu->mode == MODE_V86)
		seg_load_v86(&cpu->seg[SR_CS], sel);
	else
		seg_load_real(&cpu->seg[SR_CS], sel);
	cpu->rip = off;
	return ST_OK;
}

static status_t jmp_far_prot(struct cpu *cpu, uint16_t sel, uint64_t off, unsigned osize)
{
	uint64_t raw;
	status_t st;

	/* SDM Vol.2 JMP: null selector #GP(0), index beyond the table #GP(sel). */
	if (sel_is_null(sel))
		return cpu_raise_err(cpu, EXC_GP, 0);
	st = desc_fetch(cpu, sel, EXC_GP, &raw);
	if (st != ST_OK)
		return st;

	if (desc_is_code(raw)) {
		st = check_direct_code(cpu, sel, raw);
		if (st != ST_OK)
			return st;
		uint64_t eip = off & size_mask(osize);
		if (!target_ok(cpu, raw, eip))
			return cpu_raise_err(cpu, EXC_GP, 0);
		st = desc_set_accessed(cpu, sel, &raw);
		if (st != ST_OK)
			return st;
		cs_commit(cpu, sel, raw, cpu->cpl, eip);
		return ST_OK;
	}
	if (!desc_is_system(raw))
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	/* SDM Vol.3 5.8.3.1: in IA-32e mode type 0CH is the 64-bit call gate and
	 * the only system type a far JMP/CALL accepts. */
	if ((cpu->efer & EFER_LMA) && desc_type(raw) != SYS_CALL_GATE32)
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	switch (desc_type(raw)) {
	case SYS_CALL_GATE16:
	case SYS_CALL_GATE32: {
		/* SDM Vol.2 JMP CALL-GATE, SDM Vol.3 5.8.5 Table 5-3: gate DPL >= CPL
		 * and >= RPL; no privilege change through a JMP. */
		if (cpu->efer & EFER_LMA)
			return far_gate64(cpu, sel, raw, true);
		unsigned gdpl = desc_dpl(raw);
		if (gdpl < cpu->cpl || gdpl < SEL_RPL(sel))
			return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
		if (!desc_present(raw))
			return cpu_raise_err(cpu, EXC_NP, sel_error(sel));
		uint16_t tsel = (uint16_t)(raw >> 16);
		uint64_t traw;
		st = check_gate_target(cpu, tsel, true, &traw);
		if (st != ST_OK)
			return st;
		uint32_t eip = gate_offset(raw);
		if (eip > desc_limit(traw))
			return cpu_raise_err(cpu, EXC_GP, 0);
		st = desc_set_accessed(cpu, tsel, &traw);
		if (st != ST_OK)
			return st;
		cs_commit(cpu, tsel, traw, cpu->cpl, eip);
		return ST_OK;
	}
	case SYS_TASK_GATE:
	case SYS_TSS16_AVAIL:
	case SYS_TSS32_AVAIL:
		return far_to_task(cpu, sel, raw, false);
	default:
		/* Busy TSS, LDT, interrupt/trap gates, reserved types. */
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	}
}

/* EA (jmp ptr16:16/32) and FF /5 (jmp m16:16/32). */
status_t op_jmp_far(struct cpu *cpu, const struct insn *in)
{
	uint16_t sel;
	uint64_t off;
	status_t st = far_operand(cpu, in, &sel, &off);
	if (st != ST_OK)
		return st;
	if (cpu->mode == MODE_REAL || cpu->mode == MODE_V86)
		return jmp_far_real(cpu, sel, off & size_mask(in->osize));
	return jmp_far_prot(cpu, sel, off, in->osize);
}

/* --- CALL far --- */

static status_t call_far_real(struct cpu *cpu, uint16_t sel, uint64_t off, unsigned osize)
{
	/* SDM Vol.2 CALL (real-address or virtual-8086 mode): room for CS and
	 * (E)IP, else #SS(0); offset within the CS limit, else #GP(0). */
	struct stack_frame fr;
	frame_on_current(cpu, &fr);
	frame_add(&fr, osize, cpu->seg[SR_CS].selector);
	frame_add(&fr, osize, cpu->rip);
	if (!frame_fits(&fr))
		return cpu_raise_err(cpu, EXC_SS, 0);
	if (off > cpu->seg[SR_CS].limit)
		return cpu_raise_err(cpu, EXC_GP, 0);
	status_t st = frame_write(cpu, &fr);
	if (st != ST_OK)
		return st;
	sp_write(cpu, fr.mask, frame_sp(&fr));
	if (cpu->mode == MODE_V86)
		seg_load_v86(&cpu->seg[SR_CS], sel);
	else
		seg_load_real(&cpu->seg[SR_CS], sel);
	cpu->rip = off;
	return ST_OK;
}

/* Push the return address (CS, EIP of size w) on the current stack and enter
 * tsel:eip at the current privilege level. #SS(0) before #GP(0), as in the
 * SDM Vol.2 CALL pseudo-code. */
static status_t call_same_level(struct cpu *cpu, uint16_t tsel, uint64_t traw, uint64_t eip,
				unsigned w)
{
	struct stack_frame fr;
	frame_on_current(cpu, &fr);
	frame_add(&fr, w, cpu->seg[SR_CS].selector);
	frame_add(&fr, w, cpu->rip);
	if (!frame_fits(&fr))
		return cpu_raise_err(cpu, EXC_SS, 0);
	if (!target_ok(cpu, traw, eip))
		return cpu_raise_err(cpu, EXC_GP, 0);
	status_t st = desc_set_accessed(cpu, tsel, &traw);
	if (st == ST_OK)
		st = frame_write(cpu, &fr);
	if (st != ST_OK)
		return st;
	sp_write(cpu, fr.mask, frame_sp(&fr));
	cs_commit(cpu, tsel, traw, cpu->cpl, eip);
	return ST_OK;
}

/* SDM Vol.2 CALL MORE-PRIVILEGE, SDM Vol.3 5.8.5, 5.8.5.1 Figure 5-13: switch to
 * the inner stack from the TSS, push the caller's SS:ESP, copy the gate's
 * parameter count of words/dwords, push the caller's CS:EIP. */
static status_t call_inner_level(struct cpu *cpu, uint64_t gate, uint16_t tsel, uint64_t traw)
{
	unsigned dpl = desc_dpl(traw);
	unsigned w = desc_type(gate) == SYS_CALL_GATE32 ? 4 : 2;
	unsigned count = (unsigned)(gate >> 32) & 0x1f;
	uint32_t eip = gate_offset(gate);
	uint16_t ss_sel;
	uint32_t esp;
	uint64_t ss_raw;
	status_t st;

	st = tss_inner_stack(cpu, dpl, &ss_sel, &esp);
	if (st != ST_OK)
		return st;
	st = stack_seg_check(cpu, ss_sel, dpl, &ss_raw);
	if (st != ST_OK)
		return st;
	struct segment new_ss;
	seg_load_descriptor(&new_ss, ss_sel, ss_raw);

	struct stack_frame fr;
	frame_on_new(&fr, &new_ss, esp);
	frame_add(&fr, w, cpu->seg[SR_SS].selector);
	frame_add(&fr, w, cpu->regs[R_SP]);
	for (unsigned i = count; i-- > 0;)
		frame_add(&fr, w, 0);          /* filled below, after the checks */
	frame_add(&fr, w, cpu->seg[SR_CS].selector);
	frame_add(&fr, w, cpu->rip);
	if (!frame_fits(&fr))
		return cpu_raise_err(cpu, EXC_SS, sel_error(ss_sel));
	if (eip > desc_limit(traw))
		return cpu_raise_err(cpu, EXC_GP, 0);

	/* The parameters come from the caller's stack, read at the caller's
	 * privilege; the deepest (first pushed) is copied first. */
	for (unsigned i = 0; i < count; i++) {
		uint64_t v;
		st = stack_read(cpu, (uint64_t)(count - 1 - i) * w, w, &v);
		if (st != ST_OK)
			return st;
		fr.slot[2 + i].value = v;
	}
	st = desc_set_accessed(cpu, tsel, &traw);
	if (st == ST_OK)
		st = desc_set_accessed(cpu, ss_sel, &ss_raw);
	if (st == ST_OK)
		st = frame_write(cpu, &fr);
	if (st != ST_OK)
		return st;

	seg_load_descriptor(&cpu->seg[SR_SS], ss_sel, ss_raw);
	cpu->regs[R_SP] = esp;
	sp_write(cpu, fr.mask, frame_sp(&fr));
	cs_commit(cpu, tsel, traw, dpl, eip);
	return ST_OK;
}

static status_t call_far_prot(struct cpu *cpu, uint16_t sel, uint64_t off, unsigned osize)
{
	uint64_t raw;
	status_t st;

	if (sel_is_null(sel))
		return cpu_raise_err(cpu, EXC_GP, 0);
	st = desc_fetch(cpu, sel, EXC_GP, &raw);
	if (st != ST_OK)
		return st;

	if (desc_is_code(raw)) {
		st = check_direct_code(cpu, sel, raw);
		if (st != ST_OK)
			return st;
		return call_same_level(cpu, sel, raw, off & size_mask(osize), osize);
	}
	if (!desc_is_system(raw))
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	/* SDM Vol.3 5.8.3.1: in IA-32e mode type 0CH is the 64-bit call gate and
	 * the only system type a far JMP/CALL accepts. */
	if ((cpu->efer & EFER_LMA) && desc_type(raw) != SYS_CALL_GATE32)
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	switch (desc_type(raw)) {
	case SYS_CALL_GATE16:
	case SYS_CALL_GATE32: {
		/* SDM Vol.2 CALL CALL-GATE: gate DPL >= CPL and >= RPL. */
		if (cpu->efer & EFER_LMA)
			return far_gate64(cpu, sel, raw, false);
		unsigned gdpl = desc_dpl(raw);
		if (gdpl < cpu->cpl || SEL_RPL(sel) > gdpl)
			return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
		if (!desc_present(raw))
			return cpu_raise_err(cpu, EXC_NP, sel_error(sel));
		uint16_t tsel = (uint16_t)(raw >> 16);
		uint64_t traw;
		st = check_gate_target(cpu, tsel, false, &traw);
		if (st != ST_OK)
			return st;
		if (!desc_is_conforming(traw) && desc_dpl(traw) < cpu->cpl)
			return call_inner_level(cpu, raw, tsel, traw);
		return call_same_level(cpu, tsel, traw, gate_offset(raw),
				       desc_type(raw) == SYS_CALL_GATE32 ? 4 : 2);
	}
	case SYS_TASK_GATE:
	case SYS_TSS16_AVAIL:
	case SYS_TSS32_AVAIL:
		return far_to_task(cpu, sel, raw, true);
	default:
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	}
}

/* 9A (call ptr16:16/32) and FF /3 (call m16:16/32). */
status_t op_call_far(struct cpu *cpu, const struct insn *in)
{
	uint16_t sel;
	uint64_t off;
	status_t st = far_operand(cpu, in, &sel, &off);
	if (st != ST_OK)
		return st;
	if (cpu->mode == MODE_REAL || cpu->mode == MODE_V86)
		return call_far_real(cpu, sel, off & size_mask(in->osize), in->osize);
	return call_far_prot(cpu, sel, off, in->osize);
}

/* --- RET far --- */
