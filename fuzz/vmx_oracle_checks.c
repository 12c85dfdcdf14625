/* The oracle's reading of the VM-entry checks: SDM Vol.3 26.2 (the VMX
 * controls and the host-state area: VMfailValid with error 7 or 8) and 26.3.1
 * (the guest-state area: a VM-entry failure, exit reason 33). Each check is
 * one predicate named by its section in vmx_oracle_rules.c; a check the
 * oracle cannot decide for this VMCS (a feature it does not model) is
 * "unsure", and an entry with an unsure check is not predicted. */
#include "fuzz/vmx_oracle_sim.h"

struct view {
	const uint64_t *f;
	const struct vo_cpu *cpu;
	const struct oracle_l2_layout *l;
	uint64_t fail[2], unsure[2];
};

#define V(id) (v->f[VMCS_ROW_##id])

/* SDM Vol.3 A.3-A.5: bits 31:0 of a capability MSR are the allowed-0
 * settings (1: the control must be 1), bits 63:32 the allowed-1 settings
 * (0: it must be 0). */
static bool reserved_setting(uint64_t cap, uint64_t value)
{
	uint32_t must = (uint32_t)cap, may = (uint32_t)(cap >> 32);
	return (value & must) != must || (value & ~(uint64_t)may) != 0;
}

static bool beyond_width(const struct view *v, uint64_t pa)
{
	return v->cpu->id.maxphyaddr < 64 && (pa >> v->cpu->id.maxphyaddr) != 0;
}

/* A 4-KByte-aligned address within the physical-address width. */
static bool bad_page_address(const struct view *v, uint64_t pa)
{
	return (pa & 0xfff) || beyond_width(v, pa);
}

/* An MSR list: 16-byte aligned, its last byte within the width (26.2.1.2,
 * 26.2.1.3). */
static bool bad_msr_list(const struct view *v, uint64_t pa, uint64_t count)
{
	return count && ((pa & 0xf) || beyond_width(v, pa + count * 16 - 1));
}

static void verdict(struct view *v, enum vo_check c, bool failed)
{
	if (failed)
		check_set(v->fail, c);
}

static void unsure(struct view *v, enum vo_check c)
{
	check_set(v->unsure, c);
}

/* ---- 26.2.1 the VMX controls ---- */

static void controls(struct view *v)
{
	const struct vo_cpu *cpu = v->cpu;
	uint64_t pinc = V(PIN_BASED_CONTROLS), procc = V(PRIMARY_PROC_CONTROLS);
	bool secondary = ctl(procc, PROC_SECONDARY);
	uint64_t proc2c = secondary ? V(SECONDARY_PROC_CONTROLS) : 0;

	/* 26.2.1.1: reserved settings of the pin-based, primary and (if
	 * activated) secondary controls. */
	verdict(v, VC_PIN_RESERVED, reserved_setting(cpu->pin, pinc));
	verdict(v, VC_PROC_RESERVED, reserved_setting(cpu->proc, procc));
	verdict(v, VC_PROC2_RESERVED, secondary && reserved_setting(cpu->proc2, proc2c));
	/* 26.2.1.1: "The CR3-target count must not be greater than 4" (future
	 * processors: IA32_VMX_MISC[24:16], A.6). */
	uint64_t targets = (cpu->misc >> 16) & 0x1ff;
	verdict(v, VC_CR3_TARGETS, V(CR3_TARGET_COUNT) > (targets < 4 ? 4 : targets));
	verdict(v, VC_IO_BITMAPS, ctl(procc, PROC_IO_BITMAPS) &&
			  (bad_page_address(v, V(IO_BITMAP_A)) || bad_page_address(v, V(IO_BITMAP_B))));
	verdict(v, VC_MSR_BITMAPS, ctl(procc, PROC_MSR_BITMAPS) && bad_page_address(v, V(MSR_BITMAP)));
	verdict(v, VC_VIRTUAL_NMIS, !ctl(pinc, PIN_NMI_EXITING) && ctl(pinc, PIN_VIRTUAL_NMIS));
	verdict(v, VC_NMI_WINDOW, !ctl(pinc, PIN_VIRTUAL_NMIS) && ctl(procc, PROC_NMI_WINDOW));
	verdict(v, VC_VPID_ZERO, ctl(proc2c, PROC2_VPID) && (V(VPID) & 0xffff) == 0);
	/* Controls with checks of their own the oracle does not model (TPR
	 * shadow, posted interrupts, EPT and the secondary controls past
	 * those the fuzzer uses): a check of theirs could fail. */
	const uint64_t proc2_known = (1u << PROC2_DESC_TABLE) | (1u << PROC2_RDTSCP) | (1u << PROC2_VPID) |
				     (1u << PROC2_WBINVD) | (1u << PROC2_RDRAND) | (1u << PROC2_RDSEED);
	if (ctl(procc, PROC_TPR_SHADOW) || ctl(pinc, 7) || (proc2c & ~proc2_known & (cpu->proc2 >> 32)) ||
	    ctl(procc, 17) /* tertiary */)
		unsure(v, VC_PROC2_RESERVED);

	/* 26.2.1.2 */
	uint64_t exitc = V(EXIT_CONTROLS);
	verdict(v, VC_EXIT_RESERVED, reserved_setting(cpu->exit, exitc));
	verdict(v, VC_PREEMPT_SAVE, !ctl(pinc, PIN_PREEMPT_TIMER) && ctl(exitc, EXIT_SAVE_PREEMPT));
	verdict(v, VC_EXIT_MSR_STORE, bad_msr_list(v, V(EXIT_MSR_STORE_ADDR), V(EXIT_MSR_STORE_COUNT)));
	verdict(v, VC_EXIT_MSR_LOAD, bad_msr_list(v, V(EXIT_MSR_LOAD_ADDR), V(EXIT_MSR_LOAD_COUNT)));
	/* Exit controls whose host fields have checks of their own (load PAT,
	 * EFER, PERF_GLOBAL_CTRL, CET, PKRS; the secondary exit controls). */
	if (exitc & ((1u << 12) | (1u << 19) | (1u << 21) | (1u << 28) | (1u << 29) | (1u << 31)))
		unsure(v, VC_EXIT_RESERVED);

	/* 26.2.1.3 */
	uint64_t entryc = V(ENTRY_CONTROLS);
	verdict(v, VC_ENTRY_RESERVED, reserved_setting(cpu->entry, entryc));
	uint32_t info = (uint32_t)V(ENTRY_INTR_INFO);
	if (info & EV_VALID) {
		unsigned type = (info >> 8) & 7, vec = info & 0xff;
		bool ev = info & EV_ERR_VALID;
		/* Type 1 is reserved; type 7 (other event) needs the 1-setting
		 * of "monitor trap flag" to be allowed. */
		verdict(v, VC_INJ_TYPE, type == 1 || (type == T_OTHER && !((cpu->proc >> (32 + PROC_MTF)) & 1)));
		verdict(v, VC_INJ_NMI_VECTOR, type == T_NMI && vec != 2);
		verdict(v, VC_INJ_HW_VECTOR, type == T_HW_EXCEPTION && vec > 31);
		verdict(v, VC_INJ_OTHER_VECTOR, type == T_OTHER && vec != 0);
		/* Deliver-error-code: 1 iff (unrestricted guest 0 or CR0.PE 1),
		 * IA32_VMX_BASIC[56] 0, a hardware exception, vector 8, 10-14 or
		 * 17; with BASIC[56] 1 only "hardware exception and PE" limits it. */
		bool unrestricted = ctl(proc2c, PROC2_UNRESTRICTED);
		bool pe = !unrestricted || (V(GUEST_CR0) & CR0_PE);
		bool any_hw = (cpu->basic >> 56) & 1;
		bool has_code = vec == 8 || (vec >= 10 && vec <= 14) || vec == 17;
		if (type == T_HW_EXCEPTION && vec == 21)
			unsure(v, VC_INJ_ERRCODE_MISSING);   /* #CP: with CET */
		verdict(v, VC_INJ_ERRCODE_MISSING, !any_hw && pe && type == T_HW_EXCEPTION && has_code && !ev);
		verdict(v, VC_INJ_ERRCODE_EXTRA,
			ev && (!pe || type != T_HW_EXCEPTION || (!any_hw && !has_code && vec != 21)));
		verdict(v, VC_INJ_RESERVED, (info & 0x7ffff000u) != 0);
		verdict(v, VC_INJ_ERRCODE_HIGH, ev && (V(ENTRY_EXCEPTION_ERROR_CODE) >> 16) != 0);
		/* Software interrupts and exceptions: length 1-15; 0 only with
		 * IA32_VMX_MISC[30]. */
		uint64_t len = V(ENTRY_INSTRUCTION_LEN);
		bool zero_ok = (cpu->misc >> 30) & 1;
		verdict(v, VC_INJ_LENGTH, (type == T_SW_INT || type == T_PRIV_SW_EXCEPTION || type == T_SW_EXCEPTION) &&
					  (len > 15 || (len == 0 && !zero_ok)));
	}
	verdict(v, VC_ENTRY_MSR_LOAD, bad_msr_list(v, V(ENTRY_MSR_LOAD_ADDR), V(ENTRY_MSR_LOAD_COUNT)));
	/* Outside SMM "entry to SMM" and "deactivate dual-monitor treatment" are 0. */
	verdict(v, VC_ENTRY_SMM, ctl(entryc, ENTRY_SMM) || ctl(entryc, ENTRY_DUAL_MONITOR));
	if (entryc & ((1u << 13) | (1u << ENTRY_LOAD_EFER) | (1u << 14) | (1u << 16) | (1u << 17) | (1u << 20) |
		      (1u << 21) | (1u << 22)))
		unsure(v, VC_ENTRY_RESERVED);       /* guest fields with checks of their own */
}

/* ---- 26.2.2-26.2.4 the host-state area ---- */

static bool fixed_bad(uint64_t fixed0, uint64_t fixed1, uint64_t value, uint64_t free)
{
	/* SDM Vol.3 A.7, A.8: FIXED0 bit 1 -> must be 1; FIXED1 bit 0 -> must be 0. */
	return ((value & fixed0 & ~free) != (fixed0 & ~free)) || (value & ~fixed1 & ~free);
}

static void host(struct view *v)
{
	const struct vo_cpu *cpu = v->cpu;
	uint64_t exitc = V(EXIT_CONTROLS);
	bool host64 = ctl(exitc, EXIT_HOST_ADDR_SPACE);

	verdict(v, VC_HOST_CR0, fixed_bad(cpu->cr0_fixed0, cpu->cr0_fixed1, V(HOST_CR0), 0));
	verdict(v, VC_HOST_CR4, fixed_bad(cpu->cr4_fixed0, cpu->cr4_fixed1, V(HOST_CR4), 0));
	verdict(v, VC_HOST_CR3, beyond_width(v, V(HOST_CR3)));
	verdict(v, VC_HOST_SYSENTER, !oracle_canonical(V(HOST_IA32_SYSENTER_ESP)) || !oracle_canonical(V(HOST_IA32_SYSENTER_EIP)));
	/* 26.2.3 */
	static const enum vmcs_row sel[] = { VMCS_ROW_HOST_ES_SELECTOR, VMCS_ROW_HOST_CS_SELECTOR,
					     VMCS_ROW_HOST_SS_SELECTOR, VMCS_ROW_HOST_DS_SELECTOR,
					     VMCS_ROW_HOST_FS_SELECTOR, VMCS_ROW_HOST_GS_SELECTOR,
					     VMCS_ROW_HOST_TR_SELECTOR };
	bool rpl_ti = false;
	for (unsigned k = 0; k < sizeof(sel) / sizeof(sel[0]); k++)
		rpl_ti |= (v->f[sel[k]] & 7) != 0;
	verdict(v, VC_HOST_SEL_RPL_TI, rpl_ti);
	verdict(v, VC_HOST_CS_TR_ZERO, V(HOST_CS_SELECTOR) == 0 || V(HOST_TR_SELECTOR) == 0);
	verdict(v, VC_HOST_SS_ZERO, !host64 && V(HOST_SS_SELECTOR) == 0);
	verdict(v, VC_HOST_BASES, !oracle_canonical(V(HOST_FS_BASE)) || !oracle_canonical(V(HOST_GS_BASE)) ||
				  !oracle_canonical(V(HOST_GDTR_BASE)) ||
				  !oracle_canonical(V(HOST_IDTR_BASE)) || !oracle_canonical(V(HOST_TR_BASE)));
	/* 26.2.4: the processor is in IA-32e mode (the fuzzer's L1 is): host
	 * address-space size 1, host CR4.PAE 1, a canonical host RIP. */
	bool lma = cpu->efer & EFER_LMA;
	verdict(v, VC_HOST_LMA_SIZE, lma != host64);
	verdict(v, VC_HOST_PAE, host64 && !(V(HOST_CR4) & CR4_PAE));
	verdict(v, VC_HOST_RIP, host64 ? !oracle_canonical(V(HOST_RIP)) : (V(HOST_RIP) >> 32) != 0);
}

/* ---- 26.3.1 the guest-state area ---- */

static const enum vmcs_row seg_rows[8][4] = {
	/* selector, base, limit, access rights: ES CS SS DS FS GS LDTR TR */
	{ VMCS_ROW_GUEST_ES_SELECTOR, VMCS_ROW_GUEST_ES_BASE, VMCS_ROW_GUEST_ES_LIMIT, VMCS_ROW_GUEST_ES_AR },
	{ VMCS_ROW_GUEST_CS_SELECTOR, VMCS_ROW_GUEST_CS_BASE, VMCS_ROW_GUEST_CS_LIMIT, VMCS_ROW_GUEST_CS_AR },
	{ VMCS_ROW_GUEST_SS_SELECTOR, VMCS_ROW_GUEST_SS_BASE, VMCS_ROW_GUEST_SS_LIMIT, VMCS_ROW_GUEST_SS_AR },
	{ VMCS_ROW_GUEST_DS_SELECTOR, VMCS_ROW_GUEST_DS_BASE, VMCS_ROW_GUEST_DS_LIMIT, VMCS_ROW_GUEST_DS_AR },
	{ VMCS_ROW_GUEST_FS_SELECTOR, VMCS_ROW_GUEST_FS_BASE, VMCS_ROW_GUEST_FS_LIMIT, VMCS_ROW_GUEST_FS_AR },
	{ VMCS_ROW_GUEST_GS_SELECTOR, VMCS_ROW_GUEST_GS_BASE, VMCS_ROW_GUEST_GS_LIMIT, VMCS_ROW_GUEST_GS_AR },
	{ VMCS_ROW_GUEST_LDTR_SELECTOR, VMCS_ROW_GUEST_LDTR_BASE, VMCS_ROW_GUEST_LDTR_LIMIT, VMCS_ROW_GUEST_LDTR_AR },
	{ VMCS_ROW_GUEST_TR_SELECTOR, VMCS_ROW_GUEST_TR_BASE, VMCS_ROW_GUEST_TR_LIMIT, VMCS_ROW_GUEST_TR_AR },
};
enum { S_ES, S_CS, S_SS, S_DS, S_FS, S_GS, S_LDTR, S_TR };

static uint64_t sel_of(const struct view *v, unsigned s) { return v->f[seg_rows[s][0]]; }
static uint64_t base_of(const struct view *v, unsigned s) { return v->f[seg_rows[s][1]]; }
static uint64_t limit_of(const struct view *v, unsigned s) { return v->f[seg_rows[s][2]]; }
static uint32_t ar_of(const struct view *v, unsigned s) { return (uint32_t)v->f[seg_rows[s][3]]; }
static bool usable(const struct view *v, unsigned s) { return !(ar_of(v, s) & AR_UNUSABLE); }
static unsigned dpl(uint32_t ar) { return (ar >> AR_DPL_SHIFT) & 3; }

static void guest_registers(struct view *v)
{
	const struct vo_cpu *cpu = v->cpu;
	uint64_t procc = V(PRIMARY_PROC_CONTROLS), entryc = V(ENTRY_CONTROLS);
	bool unrestricted = ctl(procc, PROC_SECONDARY) && ctl(V(SECONDARY_PROC_CONTROLS), PROC2_UNRESTRICTED);
	bool ia32e = ctl(entryc, ENTRY_IA32E_GUEST);
	uint64_t cr0 = V(GUEST_CR0), cr4 = V(GUEST_CR4);

	/* 26.3.1.1: CR0 and CR4 as VMX operation fixes them (A.7, A.8); with
	 * "unrestricted guest" PE and PG are free. */
	verdict(v, VC_GUEST_CR0, fixed_bad(cpu->cr0_fixed0, cpu->cr0_fixed1, cr0, unrestricted ? CR0_PE | CR0_PG : 0));
	verdict(v, VC_GUEST_PG_PE, (cr0 & CR0_PG) && !(cr0 & CR0_PE));
	verdict(v, VC_GUEST_CR4, fixed_bad(cpu->cr4_fixed0, cpu->cr4_fixed1, cr4, 0));
	verdict(v, VC_GUEST_IA32E_PG, ia32e && !(cr0 & CR0_PG));
	verdict(v, VC_GUEST_IA32E_PAE, ia32e && !(cr4 & CR4_PAE));
	verdict(v, VC_GUEST_PCIDE, !ia32e && (cr4 & CR4_PCIDE));
	verdict(v, VC_GUEST_CR3, beyond_width(v, V(GUEST_CR3)));
	verdict(v, VC_GUEST_DR7, ctl(entryc, ENTRY_LOAD_DEBUG) && (V(GUEST_DR7) >> 32) != 0);
	if (ctl(entryc, ENTRY_LOAD_DEBUG) && (V(GUEST_IA32_DEBUGCTL) & ~0x1ull))
		unsure(v, VC_GUEST_DR7);           /* IA32_DEBUGCTL's reserved bits: model-specific */
	verdict(v, VC_GUEST_SYSENTER, !oracle_canonical(V(GUEST_IA32_SYSENTER_ESP)) || !oracle_canonical(V(GUEST_IA32_SYSENTER_EIP)));

	/* 26.3.1.4: RFLAGS.VM only outside IA-32e mode with CR0.PE 1. */
	uint64_t rflags = V(GUEST_RFLAGS);
	verdict(v, VC_GUEST_RFLAGS_VM, (ia32e || !(cr0 & CR0_PE)) && (rflags & (1u << 17)));
	/* 26.3.1.2 checks the segments as virtual-8086 mode's whenever the
	 * RFLAGS field's VM is 1 (even when 26.3.1.4 fails it); the oracle
	 * does not model those. */
	if (rflags & (1u << 17)) {
		unsure(v, VC_GUEST_CS_TYPE);
		return;
	}
	uint32_t cs = ar_of(v, S_CS), ss = ar_of(v, S_SS);
	verdict(v, VC_GUEST_TR_TI, sel_of(v, S_TR) & 4);
	verdict(v, VC_GUEST_LDTR_TI, usable(v, S_LDTR) && (sel_of(v, S_LDTR) & 4));
	verdict(v, VC_GUEST_SS_RPL, !unrestricted && (sel_of(v, S_SS) & 3) != (sel_of(v, S_CS) & 3));
	verdict(v, VC_GUEST_BASES, !oracle_canonical(base_of(v, S_TR)) || !oracle_canonical(base_of(v, S_FS)) ||
				   !oracle_canonical(base_of(v, S_GS)) ||
				   (usable(v, S_LDTR) && !oracle_canonical(base_of(v, S_LDTR))));
	verdict(v, VC_GUEST_CS_BASE_HIGH, base_of(v, S_CS) >> 32);
	bool data_high = false;
	static const unsigned ssdses[] = { S_SS, S_DS, S_ES };
	for (unsigned k = 0; k < 3; k++)
		data_high |= usable(v, ssdses[k]) && (base_of(v, ssdses[k]) >> 32);
	verdict(v, VC_GUEST_DATA_BASE_HIGH, data_high);

	/* Access rights. CS: type 9, 11, 13, 15 (3 with unrestricted guest). */
	unsigned cst = cs & AR_TYPE;
	verdict(v, VC_GUEST_CS_TYPE, !(cst == 9 || cst == 11 || cst == 13 || cst == 15 || (unrestricted && cst == 3)));
	verdict(v, VC_GUEST_SS_TYPE, usable(v, S_SS) && (ss & AR_TYPE) != 3 && (ss & AR_TYPE) != 7);
	static const unsigned data[] = { S_DS, S_ES, S_FS, S_GS };
	bool data_type = false, data_dpl = false;
	for (unsigned k = 0; k < 4; k++) {
		if (!usable(v, data[k]))
			continue;
		uint32_t ar = ar_of(v, data[k]);
		/* Accessed; a code segment readable. */
		data_type |= !(ar & 1) || ((ar & 8) && !(ar & 2));
		/* Not conforming code (types 0-11): DPL >= RPL. */
		data_dpl |= !unrestricted && (ar & AR_TYPE) <= 11 && dpl(ar) < (sel_of(v, data[k]) & 3);
	}
	verdict(v, VC_GUEST_DATA_TYPE, data_type);
	bool s_bad = !(cs & AR_S);
	static const unsigned usable_segs[] = { S_SS, S_DS, S_ES, S_FS, S_GS };
	bool p_bad = !(cs & AR_P), res_bad = (cs & 0xfffe0f00u) != 0, g_bad = false;
	for (unsigned k = 0; k < 5; k++) {
		unsigned sgi = usable_segs[k];
		if (!usable(v, sgi))
			continue;
		s_bad |= !(ar_of(v, sgi) & AR_S);
		p_bad |= !(ar_of(v, sgi) & AR_P);
		res_bad |= (ar_of(v, sgi) & 0xfffe0f00u) != 0;
	}
	verdict(v, VC_GUEST_S, s_bad);
	verdict(v, VC_GUEST_P, p_bad);
	/* CS DPL: non-conforming = SS.DPL, conforming <= SS.DPL, type 3: 0. */
	bool cs_dpl = (cst == 9 || cst == 11) ? dpl(cs) != dpl(ss) :
		      (cst == 13 || cst == 15) ? dpl(cs) > dpl(ss) : cst == 3 ? dpl(cs) != 0 : false;
	verdict(v, VC_GUEST_CS_DPL, cs_dpl);
	/* SS DPL = SS.RPL (no unrestricted guest); 0 if CS type 3 or CR0.PE 0. */
	verdict(v, VC_GUEST_SS_DPL, (!unrestricted && dpl(ss) != (sel_of(v, S_SS) & 3)) ||
				    ((cst == 3 || !(cr0 & CR0_PE)) && dpl(ss) != 0));
	verdict(v, VC_GUEST_DATA_DPL, data_dpl);
	/* Reserved bits 11:8 and 31:17 of CS and the usable SS, DS, ES, FS, GS;
	 * of TR; of LDTR if usable. */
	res_bad |= (ar_of(v, S_TR) & 0xfffe0f00u) != 0;
	res_bad |= usable(v, S_LDTR) && (ar_of(v, S_LDTR) & 0xfffe0f00u) != 0;
	verdict(v, VC_GUEST_AR_RESERVED, res_bad);
	verdict(v, VC_GUEST_CS_L_DB, ia32e && (cs & AR_L) && (cs & AR_DB));
	/* G: limit bits 11:0 not all 1 -> G 0; limit bits 31:20 not all 0 -> G 1. */
	static const unsigned g_segs[] = { S_CS, S_SS, S_DS, S_ES, S_FS, S_GS, S_LDTR, S_TR };
	for (unsigned k = 0; k < 8; k++) {
		unsigned sgi = g_segs[k];
		if (sgi != S_CS && sgi != S_TR && !usable(v, sgi))
			continue;
		uint64_t lim = limit_of(v, sgi);
		bool g = ar_of(v, sgi) & AR_G;
		g_bad |= ((lim & 0xfff) != 0xfff && g) || ((lim >> 20) != 0 && !g);
	}
	verdict(v, VC_GUEST_G_LIMIT, g_bad);
	/* TR: type 11 (3 also outside IA-32e mode), S 0, P 1, usable. */
	uint32_t tr = ar_of(v, S_TR);
	verdict(v, VC_GUEST_TR_TYPE, !((tr & AR_TYPE) == 11 || (!ia32e && (tr & AR_TYPE) == 3)));
	verdict(v, VC_GUEST_TR_S_P, (tr & AR_S) || !(tr & AR_P) || (tr & AR_UNUSABLE));
	uint32_t ldtr = ar_of(v, S_LDTR);
	verdict(v, VC_GUEST_LDTR_TYPE, usable(v, S_LDTR) && ((ldtr & AR_TYPE) != 2 || (ldtr & AR_S) || !(ldtr & AR_P)));

	/* 26.3.1.3 */
	verdict(v, VC_GUEST_DT_BASE, !oracle_canonical(V(GUEST_GDTR_BASE)) || !oracle_canonical(V(GUEST_IDTR_BASE)));
	verdict(v, VC_GUEST_DT_LIMIT, (V(GUEST_GDTR_LIMIT) >> 16) || (V(GUEST_IDTR_LIMIT) >> 16));

	/* 26.3.1.4: RIP bits 63:32 0 unless IA-32e mode guest with CS.L (then
	 * the linear-address width's high bits agree: canonical). */
	uint64_t rip = V(GUEST_RIP);
	verdict(v, VC_GUEST_RIP, (ia32e && (cs & AR_L)) ? !oracle_canonical(rip) : (rip >> 32) != 0);
	verdict(v, VC_GUEST_RFLAGS_RESERVED, (rflags & ~0x3f7fd7ull) || !(rflags & 2));
	uint32_t info = (uint32_t)V(ENTRY_INTR_INFO);
	bool inj = info & EV_VALID;
	unsigned inj_type = (info >> 8) & 7;
	verdict(v, VC_GUEST_RFLAGS_IF, inj && inj_type == T_EXTERNAL && !(rflags & (1u << 9)));

	/* 26.3.1.6: PAE paging outside IA-32e mode loads the PDPTEs (checks
	 * on memory the oracle does not make). */
	if (!ia32e && (cr0 & CR0_PG) && (cr4 & CR4_PAE))
		unsure(v, VC_GUEST_CR3);
}

static void guest_non_register(struct view *v)
{
	const struct vo_cpu *cpu = v->cpu;
	uint64_t act = V(GUEST_ACTIVITY_STATE), intr = V(GUEST_INTERRUPTIBILITY), rflags = V(GUEST_RFLAGS);
	uint32_t info = (uint32_t)V(ENTRY_INTR_INFO);
	bool inj = info & EV_VALID;
	unsigned inj_type = (info >> 8) & 7;

	/* 26.3.1.5: the activity state: 0-3, and one IA32_VMX_MISC[8:6] reports. */
	verdict(v, VC_GUEST_ACTIVITY, act > 3 || (act && !((cpu->misc >> (5 + act)) & 1)));
	verdict(v, VC_GUEST_ACTIVITY_SS_DPL, act == 1 && dpl((uint32_t)V(GUEST_SS_AR)) != 0);
	verdict(v, VC_GUEST_ACTIVITY_BLOCKING, act != 0 && (intr & 3));
	if (act && inj)
		unsure(v, VC_GUEST_ACTIVITY);      /* which events an inactive state accepts */
	verdict(v, VC_GUEST_INTR_RESERVED, (intr >> 5) != 0);
	if (intr & 0x10)
		unsure(v, VC_GUEST_INTR_RESERVED); /* blocking by enclave interruption */
	verdict(v, VC_GUEST_STI_MOVSS, (intr & 3) == 3);
	verdict(v, VC_GUEST_STI_IF, (intr & 1) && !(rflags & (1u << 9)));
	verdict(v, VC_GUEST_INTR_INJECT, inj && (inj_type == T_EXTERNAL || inj_type == T_NMI) && (intr & 3));
	verdict(v, VC_GUEST_SMI, (intr & 4) != 0);
	if (inj && inj_type == T_NMI && (intr & 8))
		unsure(v, VC_GUEST_INTR_INJECT);   /* NMI into blocking by NMI: qualification 3 */
	/* Pending debug exceptions: bits 11:4, 13, 15, 63:17 reserved; the BS
	 * rule with blocking by STI or MOV SS or the HLT state. */
	uint64_t pend = V(GUEST_PENDING_DBG_EXCEPTIONS);
	bool pend_bad = (pend & ~0x1500full) != 0;
	if ((intr & 3) || act == 1) {
		bool tf = rflags & (1u << 8);
		/* "the BTF flag (bit 1) in the IA32_DEBUGCTL field": the field,
		 * whether or not "load debug controls" loads it. */
		uint64_t debugctl = V(GUEST_IA32_DEBUGCTL);
		bool btf = debugctl & 2;
		bool bs = pend & (1u << 14);
		pend_bad |= (tf && !btf && !bs) || ((!tf || btf) && bs);
	}
	if (pend & (1u << 16))
		unsure(v, VC_GUEST_PENDING_DBG);   /* RTM */
	verdict(v, VC_GUEST_PENDING_DBG, pend_bad);
	/* VMCS link pointer: all ones, or 4-KByte aligned within the width with
	 * the VMCS revision identifier at it and its shadow indicator equal to
	 * "VMCS shadowing" (0 here). */
	uint64_t link = V(VMCS_LINK_POINTER);
	if (link != UINT64_MAX) {
		if (bad_page_address(v, link)) {
			verdict(v, VC_GUEST_LINK, true);
		} else if (link + 4 > v->l->ram_size) {
			unsure(v, VC_GUEST_LINK);
		} else {
			const uint8_t *b = v->l->ram + link;
			uint32_t rev = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
			verdict(v, VC_GUEST_LINK, rev != (uint32_t)(cpu->basic & 0x7fffffff));
		}
	}
}

void vo_checks(const struct vo_input *in, uint64_t fail[2], uint64_t uns[2])
{
	struct view v = { .f = in->vmcs, .cpu = in->cpu, .l = in->layout };
	controls(&v);
	host(&v);
	guest_registers(&v);
	guest_non_register(&v);
	for (unsigned k = 0; k < VC_COUNT; k++)
		if (!check_bit(v.unsure, k))
			hit(R_CHECKS_FIRST + (int)k, check_bit(v.fail, k));
	fail[0] = v.fail[0], fail[1] = v.fail[1];
	uns[0] = v.unsure[0], uns[1] = v.unsure[1];
}
