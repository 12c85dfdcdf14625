/* Far returns: RET far and IRET (SDM Vol.2 RET, IRET pseudo-code; SDM Vol.3
 * 5.8.6 returning from a called procedure, 6.14 and 20.3.1.2 IRET). As for the
 * calls (emu/far.c), every check is made in the pseudo-code's order before any
 * register changes. IRET with NT=1 is a task switch (emu/task.c).
 */
#include "emu/far.h"
#include "emu/hv.h"
#include "emu/task.h"
#include "isa_handlers.h"

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
	/* SDM Vol.3 25.3: with VMX "NMI exiting" (and no "virtual NMIs"), "IRET
	 * does not affect blocking of NMIs". */
	if (cpu->nmi_blocked && !(cpu->hv_holds & HV_HOLD_NMI_PAST_IRET)) {
		cpu->nmi_blocked = false;
		cpu->iret_nmi_unblock = cpu_now(cpu) + 1;   /* a fault's record says so (emu/hv.h) */
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
