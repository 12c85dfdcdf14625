/* Far transfers: JMP/CALL ptr16:16/32 and m16:16/32, RET far, IRET
 * (SDM Vol.2 JMP, CALL, RET, IRET pseudo-code; SDM Vol.3 5.8 privilege checks
 * for control transfers, 5.8.5 call gates, 5.8.6 returning from a called
 * procedure, 6.14/20.3.1.2 IRET).
 *
 * Every check is made in the order of the SDM pseudo-code before any register
 * changes; stack frames are checked whole and written before the commit. Task
 * switches (TSS and task-gate targets, IRET with NT=1) are emu/task.c.
 */
#include "emu/hv.h"
#include "emu/operand.h"
#include "emu/segload.h"
#include "emu/task.h"
#include "isa_handlers.h"

/* Load CS with the checked descriptor raw, RPL forced to cpl (SDM Vol.2 JMP/
 * CALL: "CS(RPL) <- CPL"), and continue at eip. */
static void cs_commit(struct cpu *cpu, uint16_t sel, uint64_t raw, unsigned cpl, uint64_t eip)
{
	seg_load_descriptor(&cpu->seg[SR_CS], (uint16_t)((sel & ~3u) | cpl), raw);
	cpu->cpl = (uint8_t)cpl;
	cpu->rip = eip;
	cpu_update_mode(cpu);
}

static bool desc_is_code(uint64_t raw)
{
	return !desc_is_system(raw) && (desc_type(raw) & SEG_TYPE_CODE);
}

static bool desc_is_conforming(uint64_t raw)
{
	return desc_is_code(raw) && (desc_type(raw) & SEG_TYPE_CE);
}

/* SDM Vol.2 JMP/CALL/RET: in IA-32e mode a code segment with L=1 and D=1 is
 * reserved: #GP(selector). */
static bool long_mode_bad_cs(const struct cpu *cpu, uint64_t raw)
{
	return (cpu->efer & EFER_LMA) && (raw & (1ull << 53)) && (raw & (1ull << 54));
}

/* Whether the new rIP is valid in the target segment: canonical for a 64-bit
 * code segment in IA-32e mode, else within the limit (SDM Vol.2 JMP "IF
 * tempEIP is non-canonical" / "outside code segment limit": #GP(0)). */
static bool target_ok(const struct cpu *cpu, uint64_t raw, uint64_t rip)
{
	if ((cpu->efer & EFER_LMA) && (raw & (1ull << 53)))
		return addr_canonical(cpu, rip);
	return rip <= desc_limit(raw);
}

/* Whether n bytes from SS:rSP lie within the stack segment's limits (SDM Vol.2
 * RET/IRET "IF top n bytes of stack not within stack limits THEN #SS(0)"). A
 * 16-bit stack wraps at 64 KiB. */
static bool stack_has(struct cpu *cpu, uint64_t n)
{
	const struct segment *ss = &cpu->seg[SR_SS];
	uint64_t mask = size_mask(stack_asize(cpu));
	uint64_t sp = cpu->regs[R_SP] & mask;
	if (cpu_is_mode64(cpu) || n == 0)
		return true;
	if (sp + n - 1 <= mask)
		return seg_access_ok(ss, sp, (unsigned)n, SEG_PERM_READ);
	return seg_access_ok(ss, sp, (unsigned)(mask - sp + 1), SEG_PERM_READ) &&
	       seg_access_ok(ss, 0, (unsigned)(sp + n - 1 - mask), SEG_PERM_READ);
}

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

/* The checks on a return code segment shared by RET and IRET (SDM Vol.2 RET
 * and IRET PROTECTED-MODE-RETURN, SDM Vol.3 5.8.6): null #GP(0); index, type,
 * RPL < CPL, conforming DPL > RPL, non-conforming DPL != RPL, and in IA-32e
 * mode L=D=1, #GP(sel); not present #NP(sel). */
static status_t check_return_cs(struct cpu *cpu, uint16_t sel, uint64_t *raw)
{
	if (sel_is_null(sel))
		return cpu_raise_err(cpu, EXC_GP, 0);
	status_t st = desc_fetch(cpu, sel, EXC_GP, raw);
	if (st != ST_OK)
		return st;
	unsigned rpl = SEL_RPL(sel), dpl = desc_dpl(*raw);
	if (!desc_is_code(*raw) || rpl < cpu->cpl ||
	    (desc_is_conforming(*raw) ? dpl > rpl : dpl != rpl) || long_mode_bad_cs(cpu, *raw))
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	if (!desc_present(*raw))
		return cpu_raise_err(cpu, EXC_NP, sel_error(sel));
	return ST_OK;
}

/* Whether the return lands in 64-bit mode (IA-32e mode and CS.L=1). */
static bool returns_to_64(const struct cpu *cpu, uint64_t cs_raw)
{
	return (cpu->efer & EFER_LMA) && (cs_raw & (1ull << 53));
}

/* The stack segment popped by a return to an outer level (SDM Vol.2 RET
 * RETURN-TO-OUTER-PRIVILEGE-LEVEL, IRET RETURN-TO-OUTER-PRIVILEGE-LEVEL): null
 * is #GP(0) unless the return is to 64-bit mode at CPL < 3, where it loads a
 * null SS (*raw = 0); index, RPL != CS RPL, not writable data, DPL != CS RPL
 * #GP(sel); not present #SS(sel). */
static status_t check_return_ss(struct cpu *cpu, uint16_t ss, unsigned rpl, bool to64,
				uint64_t *raw)
{
	if (sel_is_null(ss)) {
		*raw = 0;
		if (to64 && rpl != 3)
			return ST_OK;
		return cpu_raise_err(cpu, EXC_GP, 0);
	}
	status_t st = desc_fetch(cpu, ss, EXC_GP, raw);
	if (st != ST_OK)
		return st;
	unsigned type = desc_type(*raw);
	if (SEL_RPL(ss) != rpl || desc_is_system(*raw) || (type & SEG_TYPE_CODE) ||
	    !(type & SEG_TYPE_RW) || desc_dpl(*raw) != rpl)
		return cpu_raise_err(cpu, EXC_GP, sel_error(ss));
	if (!desc_present(*raw))
		return cpu_raise_err(cpu, EXC_SS, sel_error(ss));
	return ST_OK;
}

/* Switch to the popped stack ss:rsp (all of RSP in 64-bit mode, ESP for a
 * 32-bit stack, SP only for a 16-bit one), then release imm bytes. */
static void load_outer_stack(struct cpu *cpu, uint16_t ss, uint64_t raw, uint64_t rsp,
			     uint16_t imm, bool to64)
{
	if (sel_is_null(ss))
		seg_load_null(&cpu->seg[SR_SS], ss);
	else
		seg_load_descriptor(&cpu->seg[SR_SS], ss, raw);
	uint64_t mask = to64 ? ~0ull : (raw & (1ull << 54)) ? 0xffffffffu : 0xffffu;
	sp_write(cpu, mask, rsp + imm);
}

/* CB (retf) and CA iw (retf imm16); REX.W makes the slots 8 bytes. */
status_t op_ret_far(struct cpu *cpu, const struct insn *in)
{
	unsigned w = in->osize;
	uint16_t imm = in->opcode == 0xca ? (uint16_t)in->imm : 0;
	uint64_t eip, cs;
	status_t st;

	/* SDM Vol.2 RET: the top 2*operand-size bytes must be within the stack. */
	if (!stack_has(cpu, 2 * w))
		return cpu_raise_err(cpu, EXC_SS, 0);
	st = stack_read_far(cpu, 0, w, &eip);
	if (st == ST_OK)
		st = stack_read_far(cpu, w, w, &cs);
	if (st != ST_OK)
		return st;
	uint16_t sel = (uint16_t)cs;

	if (cpu->mode == MODE_REAL || cpu->mode == MODE_V86) {
		/* SDM Vol.2 RET (real-address or virtual-8086 mode). */
		if (eip > cpu->seg[SR_CS].limit)
			return cpu_raise_err(cpu, EXC_GP, 0);
		if (cpu->mode == MODE_V86)
			seg_load_v86(&cpu->seg[SR_CS], sel);
		else
			seg_load_real(&cpu->seg[SR_CS], sel);
		cpu->rip = eip;
		stack_adjust(cpu, 2 * w + imm);
		return ST_OK;
	}

	uint64_t raw;
	st = check_return_cs(cpu, sel, &raw);
	if (st != ST_OK)
		return st;
	unsigned rpl = SEL_RPL(sel);
	bool to64 = returns_to_64(cpu, raw);
	if (rpl == cpu->cpl) {
		/* RETURN-TO-SAME-PRIVILEGE-LEVEL. */
		if (!target_ok(cpu, raw, eip))
			return cpu_raise_err(cpu, EXC_GP, 0);
		st = desc_set_accessed(cpu, sel, &raw);
		if (st != ST_OK)
			return st;
		stack_adjust(cpu, 2 * w + imm);
		cs_commit(cpu, sel, raw, cpu->cpl, eip);
		return ST_OK;
	}

	/* RETURN-TO-OUTER-PRIVILEGE-LEVEL: the caller's SS:rSP sit above the
	 * return address and the imm bytes of parameters. */
	uint64_t esp, ss, ss_raw;
	if (!stack_has(cpu, 4 * w + imm))
		return cpu_raise_err(cpu, EXC_SS, 0);
	st = stack_read_far(cpu, 2 * w + imm, w, &esp);
	if (st == ST_OK)
		st = stack_read_far(cpu, 3 * w + imm, w, &ss);
	if (st != ST_OK)
		return st;
	st = check_return_ss(cpu, (uint16_t)ss, rpl, to64, &ss_raw);
	if (st != ST_OK)
		return st;
	if (!target_ok(cpu, raw, eip))
		return cpu_raise_err(cpu, EXC_GP, 0);
	st = desc_set_accessed(cpu, sel, &raw);
	if (st == ST_OK && ss_raw)
		st = desc_set_accessed(cpu, (uint16_t)ss, &ss_raw);
	if (st != ST_OK)
		return st;
	cs_commit(cpu, sel, raw, rpl, eip);
	load_outer_stack(cpu, (uint16_t)ss, ss_raw, esp & size_mask(w), imm, to64);
	seg_null_inaccessible(cpu);
	return ST_OK;
}

/* --- IRET --- */

/* EFLAGS after a protected-mode IRET (SDM Vol.2 IRET RETURN-TO-SAME/OUTER-
 * PRIVILEGE-LEVEL): always CF PF AF ZF SF TF DF OF NT; RF AC ID with a 32-bit
 * operand; IF when CPL <= IOPL; IOPL (and VIF VIP with 32 bits) at CPL 0. CPL
 * and IOPL are the values before the IRET. VM never changes here. */
static uint64_t iret_flags(struct cpu *cpu, uint64_t image, unsigned w)
{
	uint64_t old = cpu_get_flags(cpu);
	unsigned iopl = (unsigned)((old & FLAG_IOPL) >> FLAG_IOPL_SHIFT);
	uint64_t mask = FLAGS_ARITH | FLAG_TF | FLAG_DF | FLAG_NT;
	if (w >= 4)
		mask |= FLAG_RF | FLAG_AC | FLAG_ID;
	if (cpu->cpl <= iopl)
		mask |= FLAG_IF;
	if (cpu->cpl == 0) {
		mask |= FLAG_IOPL;
		if (w >= 4)
			mask |= FLAG_VIF | FLAG_VIP;
	}
	return (old & ~mask) | (image & mask);
}

static status_t iret_real(struct cpu *cpu, unsigned w)
{
	uint64_t eip, cs, fl;
	/* SDM Vol.2 IRET REAL-ADDRESS-MODE: #SS if the frame is beyond the stack
	 * limit, #GP(0) if the offset is beyond the CS limit. */
	if (!stack_has(cpu, 3 * w))
		return cpu_raise_err(cpu, EXC_SS, 0);
	status_t st = stack_read(cpu, 0, w, &eip);
	if (st == ST_OK)
		st = stack_read(cpu, w, w, &cs);
	if (st == ST_OK)
		st = stack_read(cpu, 2 * w, w, &fl);
	if (st != ST_OK)
		return st;
	if (eip > cpu->seg[SR_CS].limit)
		return cpu_raise_err(cpu, EXC_GP, 0);
	uint64_t old = cpu_get_flags(cpu);
	if (w == 4)
		/* EFLAGS <- (tempEFLAGS AND 257FD5H) OR (EFLAGS AND 1A0000H) */
		fl = (fl & 0x257fd5u) | (old & 0x1a0000u);
	else
		fl = (old & ~0xffffull) | (fl & 0xffff);
	stack_adjust(cpu, 3 * w);
	seg_load_real(&cpu->seg[SR_CS], (uint16_t)cs);
	cpu->rip = eip;
	cpu_set_flags(cpu, fl);
	return ST_OK;
}

/* SDM Vol.2 IRET RETURN-FROM-VIRTUAL-8086-MODE (SDM Vol.3 20.2.7): with IOPL 3
 * the return stays in v8086 mode; VM, IOPL, VIP, VIF are not changed. With
 * IOPL < 3 only the CR4.VME 16-bit form exists (IF virtualised). */
/* SDM Vol.3 6.7.1: an NMI handler runs with NMIs blocked "until the next IRET
 * instruction is executed"; the blocking ends as IRET starts, also when it then
 * faults (SDM Vol.3 27.1: "any blocking by NMI is cleared before the VM exit" of
 * a fault in IRET). */
static void unblock_nmi(struct cpu *cpu)
{
	if (cpu->nmi_blocked) {
		cpu->nmi_blocked = false;
		cpu_attend(cpu, ATT_EVENT);
	}
}

static status_t iret_v86(struct cpu *cpu, const struct insn *in, unsigned w)
{
	uint64_t old = cpu_get_flags(cpu);
	bool vme = false;
	if (((old & FLAG_IOPL) >> FLAG_IOPL_SHIFT) < 3) {
		/* SDM Vol.2 IRET, SDM Vol.3 20.3.3 Table 20-2 / 20.4: with CR4.VME a
		 * 16-bit IRET at IOPL < 3 returns in v8086 mode with IF virtualised
		 * (popped IF -> VIF); a 32-bit one, or none without VME, is #GP(0). */
		if (!(cpu->cr4 & CR4_VME) || w != 2)
			return cpu_raise_err(cpu, EXC_GP, 0);
		vme = true;
	}
	/* APM2 15.9: the IRET intercept after the privilege check. */
	status_t st = intercept_insn(cpu, in);
	if (st != ST_OK)
		return st;
	unblock_nmi(cpu);
	uint64_t eip, cs, fl;
	if (!stack_has(cpu, 3 * w))
		return cpu_raise_err(cpu, EXC_SS, 0);
	st = stack_read(cpu, 0, w, &eip);
	if (st == ST_OK)
		st = stack_read(cpu, w, w, &cs);
	if (st == ST_OK)
		st = stack_read(cpu, 2 * w, w, &fl);
	if (st != ST_OK)
		return st;
	if (eip > 0xffff)
		return cpu_raise_err(cpu, EXC_GP, 0);
	uint64_t keep = FLAG_VM | FLAG_IOPL | FLAG_VIP | FLAG_VIF;
	if (vme) {
		/* SDM Vol.2 IRET: "IF ((tempFLAGS.IF = 1) and (EFLAGS.VIP = 1)) or
		 * tempFLAGS.TF = 1 THEN #GP(0)"; IOPL and IF stay, VIF <- popped IF. */
		if (((fl & FLAG_IF) && (old & FLAG_VIP)) || (fl & FLAG_TF))
			return cpu_raise_err(cpu, EXC_GP, 0);
		uint64_t kept16 = FLAG_IOPL | FLAG_IF;
		uint64_t vif = (fl & FLAG_IF) ? FLAG_VIF : 0;
		fl = (old & (~0xffffull | kept16)) | (fl & 0xffff & ~kept16);
		fl = (fl & ~(uint64_t)FLAG_VIF) | vif;
	} else if (w == 4) {
		fl = (old & keep) | (fl & ~keep);
	} else {
		fl = (old & (~0xffffull | FLAG_IOPL)) | (fl & 0xffff & ~(uint64_t)FLAG_IOPL);
	}
	stack_adjust(cpu, 3 * w);
	seg_load_v86(&cpu->seg[SR_CS], (uint16_t)cs);
	cpu->rip = eip;
	cpu_set_flags(cpu, fl);
	return ST_OK;
}

/* SDM Vol.2 IRET RETURN-TO-VIRTUAL-8086-MODE (SDM Vol.3 20.3.1.2 Figure 20-5):
 * at CPL 0 with VM=1 in the popped EFLAGS, the frame continues with ESP, SS,
 * ES, DS, FS, GS (32-bit slots); all of EFLAGS is restored. */
static status_t iret_to_v86(struct cpu *cpu, uint64_t eip, uint16_t cs, uint64_t fl)
{
	uint64_t v[6];
	if (!stack_has(cpu, 36))
		return cpu_raise_err(cpu, EXC_SS, 0);
	for (unsigned i = 0; i < 6; i++) {
		status_t st = stack_read(cpu, 12 + 4 * i, 4, &v[i]);
		if (st != ST_OK)
			return st;
	}
	/* The v8086 CS limit is FFFFH. */
	if (eip > 0xffff)
		return cpu_raise_err(cpu, EXC_GP, 0);
	cpu_set_flags(cpu, (uint32_t)fl);
	seg_load_v86(&cpu->seg[SR_CS], cs);
	seg_load_v86(&cpu->seg[SR_SS], (uint16_t)v[1]);
	seg_load_v86(&cpu->seg[SR_ES], (uint16_t)v[2]);
	seg_load_v86(&cpu->seg[SR_DS], (uint16_t)v[3]);
	seg_load_v86(&cpu->seg[SR_FS], (uint16_t)v[4]);
	seg_load_v86(&cpu->seg[SR_GS], (uint16_t)v[5]);
	cpu->regs[R_SP] = (uint32_t)v[0];
	cpu->rip = eip;
	cpu->cpl = 3;
	cpu_update_mode(cpu);
	return ST_OK;
}

static status_t iret_prot(struct cpu *cpu, unsigned w)
{
	uint64_t eip, cs, fl, raw;
	bool lma = cpu->efer & EFER_LMA;
	status_t st;

	/* SDM Vol.2 IRET PROTECTED-MODE: NT=1 is a return from a nested task;
	 * in IA-32e mode, where there are no task switches, it is #GP(0). */
	if (cpu_get_flags(cpu) & FLAG_NT) {
		if (lma)
			return cpu_raise_err(cpu, EXC_GP, 0);
		return task_return(cpu);
	}
	if (!stack_has(cpu, 3 * w))
		return cpu_raise_err(cpu, EXC_SS, 0);
	st = stack_read_far(cpu, 0, w, &eip);
	if (st == ST_OK)
		st = stack_read_far(cpu, w, w, &cs);
	if (st == ST_OK)
		st = stack_read_far(cpu, 2 * w, w, &fl);
	if (st != ST_OK)
		return st;
	if (!lma && (fl & FLAG_VM) && cpu->cpl == 0 && w == 4)
		return iret_to_v86(cpu, eip, (uint16_t)cs, fl);

	/* PROTECTED-MODE-RETURN. */
	uint16_t sel = (uint16_t)cs;
	st = check_return_cs(cpu, sel, &raw);
	if (st != ST_OK)
		return st;
	unsigned rpl = SEL_RPL(sel);
	bool to64 = returns_to_64(cpu, raw);
	uint64_t new_flags = iret_flags(cpu, fl, w);
	/* SDM Vol.2 IRET IA-32e-MODE: from 64-bit mode SS:RSP are popped even
	 * without a privilege change. */
	if (rpl == cpu->cpl && !cpu_is_mode64(cpu)) {
		/* RETURN-TO-SAME-PRIVILEGE-LEVEL. */
		if (!target_ok(cpu, raw, eip))
			return cpu_raise_err(cpu, EXC_GP, 0);
		st = desc_set_accessed(cpu, sel, &raw);
		if (st != ST_OK)
			return st;
		stack_adjust(cpu, 3 * w);
		cs_commit(cpu, sel, raw, cpu->cpl, eip);
		cpu_set_flags(cpu, new_flags);
		return ST_OK;
	}

	/* RETURN-TO-OUTER-PRIVILEGE-LEVEL (or the 64-bit same-level form). */
	uint64_t esp, ss, ss_raw;
	if (!stack_has(cpu, 5 * w))
		return cpu_raise_err(cpu, EXC_SS, 0);
	st = stack_read_far(cpu, 3 * w, w, &esp);
	if (st == ST_OK)
		st = stack_read_far(cpu, 4 * w, w, &ss);
	if (st != ST_OK)
		return st;
	st = check_return_ss(cpu, (uint16_t)ss, rpl, to64, &ss_raw);
	if (st != ST_OK)
		return st;
	if (!target_ok(cpu, raw, eip))
		return cpu_raise_err(cpu, EXC_GP, 0);
	st = desc_set_accessed(cpu, sel, &raw);
	if (st == ST_OK && ss_raw)
		st = desc_set_accessed(cpu, (uint16_t)ss, &ss_raw);
	if (st != ST_OK)
		return st;
	bool outer = rpl > cpu->cpl;
	cpu_set_flags(cpu, new_flags);     /* computed with the old CPL */
	cs_commit(cpu, sel, raw, rpl, eip);
	load_outer_stack(cpu, (uint16_t)ss, ss_raw, esp & size_mask(w), 0, to64);
	if (outer)
		seg_null_inaccessible(cpu);
	return ST_OK;
}

/* CF: IRET / IRETD / IRETQ (operand size 16, 32 or 64). */
status_t op_iret(struct cpu *cpu, const struct insn *in)
{
	unsigned w = in->osize;
	if (cpu->mode == MODE_V86)
		return iret_v86(cpu, in, w);
	status_t st = intercept_insn(cpu, in);
	if (st != ST_OK)
		return st;
	unblock_nmi(cpu);
	return cpu->mode == MODE_REAL ? iret_real(cpu, w) : iret_prot(cpu, w);
}
