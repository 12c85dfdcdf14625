/* Hardware task switches (SDM Vol.3 7.3 "Task Switching", 7.4 "Task Linking",
 * 7.6 16-bit TSS; SDM Vol.2 JMP/CALL/IRET/INT n "SWITCH-TASKS"). See task.h for
 * the phases. Every byte the switch reads from the new TSS is read before
 * anything changes; after the commit point the new task's state is in the
 * registers and faults are its own (SDM Vol.3 7.3 step 13).
 */
#include "emu/hv.h"
#include "emu/task.h"

#include "emu/operand.h"
#include "emu/quirks.h"
#include "emu/segload.h"
#include "mmu/paging.h"

/* 32-bit TSS layout (SDM Vol.3 7.2.1, Figure 7-2). */
enum {
	TSS32_LINK = 0x00, TSS32_CR3 = 0x1c, TSS32_EIP = 0x20, TSS32_EFLAGS = 0x24,
	TSS32_GPR = 0x28,          /* EAX ECX EDX EBX ESP EBP ESI EDI, 4 bytes each */
	TSS32_SREG = 0x48,         /* ES CS SS DS FS GS, 4-byte slots, 16-bit selectors */
	TSS32_LDT = 0x60, TSS32_T = 0x64,
	TSS32_SIZE = 0x68,
};
/* 16-bit TSS layout (SDM Vol.3 7.6, Figure 7-11). */
enum {
	TSS16_LINK = 0x00, TSS16_IP = 0x0e, TSS16_FLAGS = 0x10,
	TSS16_GPR = 0x12,          /* AX CX DX BX SP BP SI DI, 2 bytes each */
	TSS16_SREG = 0x22,         /* ES CS SS DS, 2 bytes each */
	TSS16_LDT = 0x2a,
	TSS16_SIZE = 0x2c,
};

/* DR7 L0-L3 and LE: cleared on every task switch so that the old task's local
 * breakpoints do not fire in the new one (SDM Vol.3 17.2.4). */
#define DR7_LOCAL_ENABLES 0x155ull

/* TSS descriptor type bit 1: busy (SDM Vol.3 7.2.2). */
#define TSS_BUSY_BIT 2u

/* The register image a TSS holds. */
struct task_state {
	uint32_t cr3, eip, eflags;
	uint32_t gpr[8];
	uint16_t sreg[SR_COUNT];   /* enum sreg order */
	uint16_t ldt;
	bool trap;                 /* T flag (32-bit TSS byte 64H bit 0) */
};

static bool tss_type_is_32(unsigned type) { return type & 8; }

static uint32_t le(const uint8_t *p, unsigned size)
{
	uint32_t v = 0;
	for (unsigned i = size; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* The new task's TSS, read whole before the commit so that a page fault on it
 * is raised in the old task (SDM Vol.3 7.3 step 5). */
static status_t read_tss(struct cpu *cpu, uint32_t base, bool t32, struct task_state *s)
{
	uint8_t buf[TSS32_SIZE];
	unsigned len = t32 ? TSS32_SIZE : TSS16_SIZE;
	for (unsigned off = 0; off < len; off += 4) {
		uint64_t v;
		status_t st = lin_read_sys(cpu, sys_wrap32(cpu, base, off), 4, &v);
		if (st != ST_OK)
			return st;
		for (unsigned i = 0; i < 4; i++)
			buf[off + i] = (uint8_t)(v >> (8 * i));
	}
	if (t32) {
		s->cr3 = le(buf + TSS32_CR3, 4);
		s->eip = le(buf + TSS32_EIP, 4);
		s->eflags = le(buf + TSS32_EFLAGS, 4);
		for (unsigned r = 0; r < 8; r++)
			s->gpr[r] = le(buf + TSS32_GPR + 4 * r, 4);
		for (unsigned r = 0; r < SR_COUNT; r++)
			s->sreg[r] = (uint16_t)le(buf + TSS32_SREG + 4 * r, 2);
		s->ldt = (uint16_t)le(buf + TSS32_LDT, 2);
		s->trap = buf[TSS32_T] & 1;
	} else {
		static const uint8_t sregs16[4] = { SR_ES, SR_CS, SR_SS, SR_DS };
		s->cr3 = 0;
		s->eip = le(buf + TSS16_IP, 2);
		s->eflags = le(buf + TSS16_FLAGS, 2);
		/* SDM Vol.3 7.6 leaves the upper halves of the 32-bit registers to the
		 * implementation when a 16-bit TSS is loaded; hvemu sets them to FFFFH
		 * as QEMU and Bochs do. FS and GS are not in a 16-bit TSS: null. */
		for (unsigned r = 0; r < 8; r++)
			s->gpr[r] = 0xffff0000u | le(buf + TSS16_GPR + 2 * r, 2);
		s->sreg[SR_FS] = s->sreg[SR_GS] = 0;
		for (unsigned i = 0; i < 4; i++)
			s->sreg[sregs16[i]] = (uint16_t)le(buf + TSS16_SREG + 2 * i, 2);
		s->ldt = (uint16_t)le(buf + TSS16_LDT, 2);
		s->trap = false;
	}
	return ST_OK;
}

/* SDM Vol.3 7.3 step 8: the current task's EIP, EFLAGS, general registers and
 * segment selectors go to its TSS (the other fields are only read). */
static status_t save_old_state(struct cpu *cpu, bool t32, uint32_t eflags)
{
	uint32_t base = (uint32_t)cpu->tr.base;
	status_t st;
	if (t32) {
		st = lin_write_sys(cpu, base + TSS32_EIP, 4, (uint32_t)cpu->rip);
		if (st == ST_OK)
			st = lin_write_sys(cpu, base + TSS32_EFLAGS, 4, eflags);
		for (unsigned r = 0; r < 8 && st == ST_OK; r++)
			st = lin_write_sys(cpu, base + TSS32_GPR + 4 * r, 4, (uint32_t)cpu->regs[r]);
		for (unsigned r = 0; r < SR_COUNT && st == ST_OK; r++)
			st = lin_write_sys(cpu, base + TSS32_SREG + 4 * r, 2, cpu->seg[r].selector);
		return st;
	}
	static const uint8_t sregs16[4] = { SR_ES, SR_CS, SR_SS, SR_DS };
	st = lin_write_sys(cpu, base + TSS16_IP, 2, (uint16_t)cpu->rip);
	if (st == ST_OK)
		st = lin_write_sys(cpu, base + TSS16_FLAGS, 2, (uint16_t)eflags);
	for (unsigned r = 0; r < 8 && st == ST_OK; r++)
		st = lin_write_sys(cpu, base + TSS16_GPR + 2 * r, 2, (uint16_t)cpu->regs[r]);
	for (unsigned i = 0; i < 4 && st == ST_OK; i++)
		st = lin_write_sys(cpu, base + TSS16_SREG + 2 * i, 2, cpu->seg[sregs16[i]].selector);
	return st;
}

/* Set or clear the busy bit of the TSS descriptor sel names in the GDT
 * (SDM Vol.3 7.2.2, 7.3 steps 6 and 10). */
static status_t set_busy(struct cpu *cpu, uint16_t sel, bool busy)
{
	uint32_t lin = (uint32_t)(cpu->gdtr.base + (sel & ~7u) + 5);
	uint64_t v;
	status_t st = lin_read_sys(cpu, lin, 1, &v);
	if (st != ST_OK)
		return st;
	v = busy ? (v | TSS_BUSY_BIT) : (v & ~(uint64_t)TSS_BUSY_BIT);
	return lin_write_sys(cpu, lin, 1, v);
}

status_t task_gate_target(struct cpu *cpu, uint64_t gate, uint16_t *tss_sel, uint64_t *tss_raw)
{
	uint16_t ts = (uint16_t)(gate >> 16);
	/* SDM Vol.2 JMP/CALL/INT n TASK-GATE: "IF TSS segment selector local/global
	 * bit is set to local or index not within GDT limits THEN #GP(TSS
	 * selector)". */
	if (ts & SEL_TI)
		return cpu_raise_err(cpu, cpu_quirk(cpu, QK_QEMU_TASK_GATE_LDT_TS) ? EXC_TS : EXC_GP,
				     sel_error(ts));
	status_t st = desc_fetch(cpu, ts, EXC_GP, tss_raw);
	if (st != ST_OK)
		return st;
	/* "IF TSS descriptor specifies that the TSS is busy (low-order 5 bits set
	 * to 00001)" -- anything but an available TSS: #GP(TSS selector). */
	unsigned type = desc_type(*tss_raw);
	if (!desc_is_system(*tss_raw) || (type != SYS_TSS16_AVAIL && type != SYS_TSS32_AVAIL))
		return cpu_raise_err(cpu, EXC_GP, sel_error(ts));
	if (!desc_present(*tss_raw))
		return cpu_raise_err(cpu, EXC_NP, sel_error(ts));
	*tss_sel = ts;
	return ST_OK;
}

/* --- after the commit point (SDM Vol.3 7.3 step 13, Table 7-1) --- */

/* LDTR from the new TSS: null leaves it unusable; otherwise a GDT selector
 * (TI=0) of a present LDT descriptor, else #TS(LDT selector) (Table 7-1 rows
 * "LDT segment selector of new task is valid", "LDT of new task is present"). */
static status_t load_task_ldt(struct cpu *cpu, uint16_t sel)
{
	uint64_t raw;
	if (sel_is_null(sel)) {
		seg_load_null(&cpu->ldtr, sel);
		return ST_OK;
	}
	if (sel & SEL_TI)
		return cpu_raise_err(cpu, EXC_TS, sel_error(sel));
	status_t st = desc_fetch(cpu, sel, EXC_TS, &raw);
	if (st != ST_OK)
		return st;
	if (!desc_is_system(raw) || desc_type(raw) != SYS_LDT || !desc_present(raw))
		return cpu_raise_err(cpu, EXC_TS, sel_error(sel));
	seg_load_descriptor(&cpu->ldtr, sel, raw);
	return ST_OK;
}

/* One segment register of the new task, qualified as Table 7-1 lists: a bad
 * selector, type or privilege is #TS(selector); a not-present segment is
 * #SS(selector) for SS and #NP(selector) otherwise. CPL is the new CS RPL. */
static status_t load_task_seg(struct cpu *cpu, enum sreg sr, uint16_t sel)
{
	uint64_t raw;
	if (sel_is_null(sel)) {
		/* CS and SS must name a segment; data registers may be null. */
		if (sr == SR_CS || sr == SR_SS)
			return cpu_raise_err(cpu, EXC_TS, sel_error(sel));
		seg_load_null(&cpu->seg[sr], sel);
		return ST_OK;
	}
	status_t st = desc_fetch(cpu, sel, EXC_TS, &raw);
	if (st != ST_OK)
		return st;
	unsigned type = desc_type(raw), dpl = desc_dpl(raw), rpl = SEL_RPL(sel);
	bool code = type & SEG_TYPE_CODE, bad;
	if (desc_is_system(raw)) {
		bad = true;
	} else if (sr == SR_CS) {
		/* "Code segment DPL matches segment selector RPL" (conforming: DPL <= RPL). */
		bad = !code || ((type & SEG_TYPE_CE) ? dpl > rpl : dpl != rpl);
	} else if (sr == SR_SS) {
		/* "Stack segment DPL matches CPL", "... matches selector RPL"; a
		 * writable data segment (SDM Vol.3 5.10). */
		bad = code || !(type & SEG_TYPE_RW) || dpl != cpu->cpl || rpl != cpu->cpl;
	} else {
		/* "DS, ES, FS, GS segments are readable" and "segment DPL >= CPL
		 * (unless these are conforming segments)"; RPL as for MOV (SDM Vol.3 5.6). */
		bool conforming = code && (type & SEG_TYPE_CE);
		bad = (code && !(type & SEG_TYPE_RW)) ||
		      (!conforming && (dpl < cpu->cpl || dpl < rpl));
	}
	if (bad)
		return cpu_raise_err(cpu, EXC_TS, sel_error(sel));
	if (!desc_present(raw))
		return cpu_raise_err(cpu, sr == SR_SS ? EXC_SS : EXC_NP, sel_error(sel));
	st = desc_set_accessed(cpu, sel, &raw);
	if (st != ST_OK)
		return st;
	seg_load_descriptor(&cpu->seg[sr], sel, raw);
	return ST_OK;
}

/* The loads and checks after the commit point, in the new task's context. */
static status_t finish_in_new_task(struct cpu *cpu, const struct task_state *s, bool t32,
				   const struct event *ev)
{
	status_t st = load_task_ldt(cpu, s->ldt);
	if (st != ST_OK)
		return st;
	if (cpu->mode == MODE_V86) {
		/* SDM Vol.3 20.2.5: a task switch to a TSS with EFLAGS.VM=1 enters
		 * virtual-8086 mode; the selectors are real-mode style paragraphs. */
		for (unsigned r = 0; r < SR_COUNT; r++)
			seg_load_v86(&cpu->seg[r], s->sreg[r]);
	} else {
		/* CS first (it gives the CPL the others are checked against), then
		 * SS, then the data segments (SDM Vol.3 7.3 step 13, Table 7-1). */
		static const uint8_t order[SR_COUNT] = { SR_CS, SR_SS, SR_ES, SR_DS, SR_FS, SR_GS };
		for (unsigned i = 0; i < SR_COUNT; i++) {
			st = load_task_seg(cpu, (enum sreg)order[i], s->sreg[order[i]]);
			if (st != ST_OK)
				return st;
		}
	}
	cpu_update_mode(cpu);
	/* SDM Vol.2 INT n TASK-GATE: the error code of an exception delivered
	 * through a task gate is pushed on the new task's stack (a word or a
	 * doubleword after the TSS size); no room is #SS(EXT). */
	if (ev && ev->type == EV_EXCEPTION && ev->has_error) {
		struct stack_frame fr;
		frame_on_current(cpu, &fr);
		frame_add(&fr, t32 ? 4 : 2, ev->error_code);
		if (!frame_fits(&fr))
			return cpu_raise_err(cpu, EXC_SS, 0);
		st = frame_write(cpu, &fr);
		if (st != ST_OK)
			return st;
		sp_write(cpu, fr.mask, frame_sp(&fr));
	}
	/* SDM Vol.2 JMP/CALL/IRET/INT n: "IF EIP not within code segment limit
	 * THEN #GP(0)" -- checked in the new task. */
	if (cpu->rip > cpu->seg[SR_CS].limit)
		return cpu_raise_err(cpu, EXC_GP, 0);
	return ST_OK;
}

/* Deliver a fault raised after the commit point in the new task: its return
 * address is the new task's EIP, and for a switch started by an event
 * external to the program the error code carries EXT (SDM Vol.3 6.13). */
static status_t deliver_in_new_task(struct cpu *cpu, bool ext)
{
	if (ext && cpu->event.has_error && cpu->event.vector != EXC_PF && !cpu_quirk(cpu, QK_QEMU_NO_EXT_BIT))
		cpu->event.error_code |= 1;
	return cpu_deliver_event(cpu);
}

status_t task_switch(struct cpu *cpu, uint16_t tss_sel, uint64_t tss_raw,
		     enum task_source src, const struct event *ev)
{
	bool new32 = tss_type_is_32(desc_type(tss_raw));
	unsigned old_type = cpu->tr.attr & SEG_TYPE_MASK;
	bool old32 = tss_type_is_32(old_type);
	bool nest = src == TASK_CALL || src == TASK_INT;
	struct task_state s;
	status_t st;

	/* A task switch in a guest is a VM exit (SDM Vol.3 25.4.2; APM2 15.14.4
	 * task switch intercept), once the caller's descriptor checks have passed. */
	static const uint8_t ts_source_of[] = { [TASK_JMP] = TS_JMP, [TASK_CALL] = TS_CALL,
						[TASK_IRET] = TS_IRET, [TASK_INT] = TS_GATE };
	enum ts_source ts = (enum ts_source)ts_source_of[src];
	if ((st = intercept_task_switch(cpu, tss_sel, ts, PHASE_CHECKED)) != ST_OK)
		return st;

	/* SDM Vol.3 7.3 step 3, Table 6-6: a new TSS below the minimum limit is
	 * #TS(new TSS selector). */
	if (desc_limit(tss_raw) < (new32 ? TSS32_MIN_LIMIT_TS : TSS16_MIN_LIMIT_TS))
		return cpu_raise_err(cpu, EXC_TS, sel_error(tss_sel));
	/* The current TSS must hold the state about to be saved (SDM Vol.3 7.3
	 * step 5; Table 6-6 "stores to the old TSS"): #TS(current TSS). */
	if (cpu->tr.limit < (old32 ? TSS32_MIN_LIMIT_TS : TSS16_MIN_LIMIT_TS))
		return cpu_raise_err(cpu, EXC_TS, sel_error(cpu->tr.selector));
	/* APM2 15.14.1: the SVM task-switch intercept comes after these #TS. */
	if ((st = intercept_task_switch(cpu, tss_sel, ts, PHASE_TSS_CHECKED)) != ST_OK)
		return st;
	uint32_t new_base = desc_base(tss_raw);
	st = read_tss(cpu, new_base, new32, &s);
	if (st != ST_OK)
		return st;

	/* Step 7: IRET clears NT in the saved image of the old EFLAGS; JMP, CALL
	 * and events leave it as it is (Table 7-2). */
	uint32_t old_flags = (uint32_t)cpu_get_flags(cpu);
	if (src == TASK_IRET)
		old_flags &= ~(uint32_t)FLAG_NT;
	/* A fault delivered through a task gate saves RF = 1 in the old TSS, as
	 * it would on the stack (SDM Vol.3 17.3.1.1). */
	if (ev && event_saves_rf(ev))
		old_flags |= FLAG_RF;
	/* Step 8. */
	st = save_old_state(cpu, old32, old_flags);
	/* Step 6: JMP and IRET leave the old task: it is no longer busy. */
	if (st == ST_OK && (src == TASK_JMP || src == TASK_IRET))
		st = set_busy(cpu, cpu->tr.selector, false);
	/* SDM Vol.3 7.4: CALL and events nest: the new TSS's previous-task link
	 * receives the old TSS selector. */
	if (st == ST_OK && nest)
		st = lin_write_sys(cpu, new_base + TSS32_LINK, 2, cpu->tr.selector);
	/* Step 10: the new task becomes busy (IRET returns to a busy one). */
	if (st == ST_OK && src != TASK_IRET)
		st = set_busy(cpu, tss_sel, true);
	if (st != ST_OK)
		return st;

	/* Step 11: TR, with the busy type the descriptor now has. */
	tss_raw |= (uint64_t)TSS_BUSY_BIT << 40;
	seg_load_descriptor(&cpu->tr, tss_sel, tss_raw);

	/* --- commit point: step 12 loads the new task's registers --- */
	if (new32 && (cpu->cr0 & CR0_PG) && s.cr3 != (uint32_t)cpu->cr3) {
		/* CR3 is taken from a 32-bit TSS only with paging on (the value is
		 * ignored otherwise, as QEMU and Bochs do). SDM Vol.3 4.10.4.1: a task
		 * switch that changes CR3 invalidates the non-global translations;
		 * 4.4.1: with PAE paging it loads the PDPTEs from the new CR3. */
		cpu->cr3 = s.cr3;
		tlb_flush_nonglobal(&cpu->tlb);
	}
	cpu->ldtr.selector = s.ldt;
	cpu_set_flags(cpu, s.eflags | (nest ? FLAG_NT : 0));
	cpu->rip = s.eip;
	for (unsigned r = 0; r < 8; r++)
		cpu->regs[r] = s.gpr[r];
	/* The selectors are loaded now, their descriptors below: until then the
	 * registers are unusable (P=0). */
	for (unsigned r = 0; r < SR_COUNT; r++)
		seg_load_null(&cpu->seg[r], s.sreg[r]);
	/* SDM Vol.3 2.5: CR0.TS is set on every task switch. */
	cpu->cr0 |= CR0_TS;
	cpu->dr[7] &= ~DR7_LOCAL_ENABLES;
	/* CPL comes from the new CS selector, 3 in virtual-8086 mode. */
	cpu->cpl = (uint8_t)SEL_RPL(s.sreg[SR_CS]);
	cpu_update_mode(cpu);

	bool ext = src == TASK_INT && ev && ev->type != EV_SOFTINT && ev->type != EV_SOFTEXC;
	if (new32 && (cpu->cr0 & CR0_PG) && cpu_paging_mode(cpu) == PAGING_PAE) {
		uint64_t pdpte[4];
		if (!paging_load_pdptes(cpu->mem, cpu->cr3, cpu->maxphyaddr, pdpte)) {
			st = cpu_raise_err(cpu, EXC_GP, 0);
			return deliver_in_new_task(cpu, ext);
		}
		for (unsigned i = 0; i < 4; i++)
			cpu->pdpte[i] = pdpte[i];
	}
	st = finish_in_new_task(cpu, &s, new32, src == TASK_INT ? ev : NULL);
	if (st == ST_FAULT)
		return deliver_in_new_task(cpu, ext);
	if (st != ST_OK)
		return st;

	/* SDM Vol.3 7.2.1, 17.3.1.5: the T flag of the new TSS raises #DB
	 * (DR6.BT) after the switch, before the new task's first instruction. */
	if (s.trap && !cpu_quirk(cpu, QK_QEMU_TSS_T_IGNORED)) {
		cpu->event = (struct event){ .pending = true, .type = EV_EXCEPTION, .vector = EXC_DB,
					     .dr6 = DR6_BT };
		return cpu_deliver_event(cpu);
	}
	return ST_OK;
}

status_t task_return(struct cpu *cpu)
{
	uint64_t link, raw;
	/* SDM Vol.2 IRET TASK-RETURN: the link field of the current TSS. */
	status_t st = lin_read_sys(cpu, (uint32_t)cpu->tr.base + TSS32_LINK, 2, &link);
	if (st != ST_OK)
		return st;
	uint16_t sel = (uint16_t)link;
	/* "IF local/global bit is set to local or index not within GDT limits
	 * THEN #TS (TSS selector)". */
	if (sel & SEL_TI)
		return cpu_raise_err(cpu, EXC_TS, sel_error(sel));
	st = desc_fetch(cpu, sel, EXC_TS, &raw);
	if (st != ST_OK)
		return st;
	/* "IF TSS descriptor type is not TSS or if the TSS is marked not busy
	 * THEN #TS (TSS selector)"; "IF TSS not present #NP(TSS selector)". */
	unsigned type = desc_type(raw);
	if (!desc_is_system(raw) || (type != SYS_TSS16_BUSY && type != SYS_TSS32_BUSY))
		return cpu_raise_err(cpu, EXC_TS, sel_error(sel));
	if (!desc_present(raw))
		return cpu_raise_err(cpu, EXC_NP, sel_error(sel));
	return task_switch(cpu, sel, raw, TASK_IRET, NULL);
}
