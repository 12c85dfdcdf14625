/* The world switch: VM entry into the guest, VM exit back to the host (SDM
 * Vol.3 Ch.26, Ch.27).
 *
 *   vmx_vm_entry  the checks of 26.2 (VMfailValid 7, 8: L1 goes on after
 *                 VMLAUNCH/VMRESUME) and 26.3.1 (a VM-entry failure, reason
 *                 33) -> the guest state (26.3.2) -> the TLB context of its
 *                 VPID and EPTP, EPT, the PDPTEs -> the VM-entry MSR-load
 *                 area (26.4, failure: reason 34) -> launch state -> the
 *                 interruptibility and activity states (26.7) -> event
 *                 injection (26.6, events.c)
 *   vmx_vm_exit   the exit information (27.2) -> the guest state (27.3) ->
 *                 the host state (27.5) -> the VM-exit MSR-load area (27.6;
 *                 a failure is a VMX abort, 27.7)
 *
 * The guest state moves by the rows of vmx/vmcs_fields.def: each guest-state
 * field names its slot (emu/world_state.h), and the X-macro loops below fold
 * to straight-line code (ws_get/ws_set with a constant slot are the field
 * access itself), reading the processor's copy of the VMCS by row. What is
 * by hand is what depends on a control (EFER, PAT, DR7, DEBUGCTL, PDPTEs),
 * the non-register state and the host, whose fields give only part of its
 * state (27.5: the rest is fixed). Neither direction decodes anything; with
 * "enable VPID" neither touches a TLB entry: the TLB is tagged by context and
 * a round trip only switches the current one (mmu/tlb.h), as SVM's ASIDs.
 */
#include "emu/event_step.h"
#include "emu/insn.h"
#include "emu/paging_env.h"
#include "emu/perturb_random.h"
#include "emu/quirks.h"
#include "mmu/nested.h"
#include "vmx/exit_perturb.h"
#include "vmx/exit_reasons.h"
#include "vmx/model.h"

/* IA32_SMM_MONITOR_CTL and IA32_SMBASE (SDM Vol.4 Table 2-2): never loaded
 * or stored by an MSR list outside SMM (26.4, 27.4, 27.6). */
#define MSR_SMM_MONITOR_CTL 0x9bu
#define MSR_SMBASE          0x9eu

/* ---- the current VMCS by row ---- */

/* The processor's copy (vmx/model.h struct vmcs_cache), by row. Under --tlb
 * flush (cpu->tlb_uncached) the region is the only copy: a world switch
 * reads every row from it first (sync_in) and, if it wrote fields, writes
 * every row back at its end (sync_out), so that in between the rows are
 * plain loads and stores, in both modes. */
static inline uint64_t get(struct vmx *v, enum vmcs_row row)
{
	return v->vmcs.field[row];
}

static inline void put(struct vmx *v, enum vmcs_row row, uint64_t val, uint64_t mask)
{
	/* Most of what a VM exit stores is what the field held (the guest's
	 * segments, control registers, ...): only a change makes the entry
	 * checks that read the field run again (consistency.c). */
	if (v->vmcs.field[row] != (val & mask)) {
		v->vmcs.field[row] = val & mask;
		vmx_vmcs_changed(v, row);
	}
}

static void sync_in(struct vmx *v)
{
	if (__builtin_expect(v->cpu->tlb_uncached, 0))
		for (unsigned row = 0; row < VMCS_ROW_COUNT; row++)
			(void)vmcs_get(v, (enum vmcs_row)row);
}

static void sync_out(struct vmx *v)
{
	if (__builtin_expect(v->cpu->tlb_uncached, 0))
		for (unsigned row = 0; row < VMCS_ROW_COUNT; row++)
			vmcs_set(v, (enum vmcs_row)row, v->vmcs.field[row]);
}

static inline uint64_t width_mask(enum vmcs_width w)
{
	return w == VMCS_W16 ? 0xffff : w == VMCS_W32 ? 0xffffffff : UINT64_MAX;
}

static inline bool ctl(struct vmx *v, enum vmcs_row row, unsigned bit)
{
	return get(v, row) & VMX_CTL(bit);
}

/* SDM Vol.3 24.6.2: the secondary controls count only with "activate
 * secondary controls". */
static inline uint32_t proc2(struct vmx *v)
{
	if (!ctl(v, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_PROC_SECONDARY_CONTROLS))
		return 0;
	return (uint32_t)get(v, VMCS_ROW_SECONDARY_PROC_CONTROLS);
}

/* ---- the guest-state rows ---- */

/* A slot struct cpu holds by value (the others read 0 and ignore writes). */
static inline bool slot_held(enum ws_slot s)
{
	return s != WS_NONE && ws_slot(s)->kind != WS_KIND_NONE;
}

/* An access-rights field: the segment's attributes in the VMCS form
 * (emu/world_state.h seg_attr_from_vmx_ar). */
static inline bool attr_slot(enum ws_slot s)
{
	switch (s) {
	case WS_ES_ATTR: case WS_CS_ATTR: case WS_SS_ATTR: case WS_DS_ATTR:
	case WS_FS_ATTR: case WS_GS_ATTR: case WS_LDTR_ATTR: case WS_TR_ATTR:
		return true;
	default:
		return false;
	}
}

/* Moved by hand: under a control (26.3.2.1, 26.3.2.4, 27.3.1, 27.3.4), or
 * CR0 with the bits VM entry leaves alone. */
static inline bool by_hand(enum ws_slot s)
{
	switch (s) {
	case WS_CR0: case WS_EFER: case WS_PAT: case WS_DEBUGCTL: case WS_DR7:
	case WS_PDPTE0: case WS_PDPTE1: case WS_PDPTE2: case WS_PDPTE3:
		return true;
	default:
		return false;
	}
}

#define ROW_MOVED(type, slot) (VMCS_##type == VMCS_GUEST && slot_held(WS_##slot) && !by_hand(WS_##slot))

/* SDM Vol.3 26.3.2.1, 26.3.2.2, 26.3.2.3: CR3, CR4, the SYSENTER MSRs, the
 * segment registers (selector, base, limit, access rights: an unusable one
 * loads with P clear, emu/world_state.h), GDTR, IDTR, RSP, RIP, RFLAGS. */
static void load_guest_rows(struct vmx *v, struct cpu *cpu)
{
#define X(id, enc, width, type, slot, name)                                                     \
	if (ROW_MOVED(type, slot)) {                                                            \
		uint64_t val = get(v, VMCS_ROW_##id);                                           \
		ws_set(cpu, WS_##slot, attr_slot(WS_##slot) ? seg_attr_from_vmx_ar((uint32_t)val) : val); \
	}
#include "vmx/vmcs_fields.def"
#undef X
}

/* SDM Vol.3 27.3.1, 27.3.2, 27.3.3: the same rows back into the VMCS;
 * access rights with the unusable bit for a segment hvemu holds with P
 * clear. */
static void save_guest_rows(struct vmx *v, struct cpu *cpu)
{
#define X(id, enc, width, type, slot, name)                                                     \
	if (ROW_MOVED(type, slot)) {                                                            \
		uint64_t val = ws_get(cpu, WS_##slot);                                          \
		put(v, VMCS_ROW_##id, attr_slot(WS_##slot) ? seg_attr_to_vmx_ar((uint16_t)val) : val, \
		    width_mask(VMCS_##width));                                                  \
	}
#include "vmx/vmcs_fields.def"
#undef X
}

/* Every segment register, LDTR and TR: what ws_commit() finishes. */
#define WSG_ALL_SEGMENTS ((unsigned)(WSG_SEG_TR << 1) - (unsigned)WSG_SEG)

/* SDM Vol.3 26.3.2.1, 27.5.1: "The following bits are not modified: For CR0,
 * ET, CD, NW; bits 63:32 ..., 28:19, 17, and 15:6; and any bits that are
 * fixed in VMX operation" (the fixed bits passed the checks already). */
#define VMX_CR0_KEPT 0xffffffff7ffaffd0ull

/* ---- the TLB context (SDM Vol.3 28.1, 28.3) ---- */

/* The TLB space of the guest's translations: linear mappings are tagged by
 * VPID (28.1) and, with EPT, combined mappings by VPID and EP4TA, the EPTP's
 * address bits (28.3.1). The host runs in space 0, which is VPID 0 without
 * EPT: a guest without "enable VPID" shares it (28.1: "VPID 0000H is used by
 * VMX root operation and when the enable VPID control is 0"). */
#define VMX_SPACE_EPT   (1ull << 62)
static uint64_t guest_space(uint16_t vpid, bool ept, uint64_t eptp)
{
	uint64_t space = vpid;
	if (ept)
		space |= VMX_SPACE_EPT | ((eptp & ~0xfffull & ((1ull << 52) - 1)) << 4);
	return space;
}

/* The spaces of guest_space() that INVEPT and INVVPID name (28.3.3.1). */
#define VMX_SPACE_VPID  0xffffull
#define VMX_SPACE_EP4TA ((((1ull << 52) - 1) & ~0xfffull) << 4)
static bool space_of_ep4ta(uint64_t space, const void *arg)
{
	const uint64_t *want = arg;    /* NULL: any EP4TA */
	return (space & VMX_SPACE_EPT) && (!want || (space & VMX_SPACE_EP4TA) == *want);
}
static bool space_of_vpid(uint64_t space, const void *arg)
{
	const uint16_t *want = arg;    /* NULL: any VPID but 0000H */
	uint16_t vpid = (uint16_t)(space & VMX_SPACE_VPID);
	return want ? vpid == *want : vpid != 0;
}

void vmx_invalidate_ept(struct cpu *cpu, bool all, uint64_t eptp)
{
	uint64_t ep4ta = guest_space(0, true, eptp) & VMX_SPACE_EP4TA;
	tlb_flush_spaces(&cpu->tlb, space_of_ep4ta, all ? NULL : &ep4ta, false, false, 0);
}

void vmx_invalidate_vpid(struct cpu *cpu, bool all, uint16_t vpid, bool keep_global, bool page, uint64_t lin)
{
	tlb_flush_spaces(&cpu->tlb, space_of_vpid, all ? NULL : &vpid, keep_global, page, lin);
}

/* SDM Vol.3 28.3.3.1: with "enable VPID" 0, "VM entries and VM exits
 * invalidate all linear and combined mappings associated with VPID 0000H":
 * the host's, and the guest's under every EP4TA and PCID, not only the
 * current EPTP's (VMFUNC may have left VPID 0's translations under another
 * EP4TA). */
static void invalidate_vpid0(struct cpu *cpu)
{
	static const uint16_t vpid0 = 0;
	tlb_flush_spaces(&cpu->tlb, space_of_vpid, &vpid0, false, false, 0);
}

/* VMFUNC's EPTP switching (SDM Vol.3 25.5.6.3): the new EPTP's stage 2, in
 * the TLB context of the guest's VPID and the new EP4TA: combined mappings
 * are tagged by EP4TA (28.3.1), so the switch selects a context and touches
 * no entry. */
void vmx_switch_eptp(struct vmx *v, struct cpu *cpu, uint64_t eptp)
{
	sync_in(v);
	uint32_t p2 = proc2(v);
	bool vpid = p2 & VMX_CTL(VMX_PROC2_VPID);
	vmcs_set(v, VMCS_ROW_EPT_POINTER, eptp);
	cpu->stage2 = nested_ept_env(cpu->mem, eptp, vmx_cap(v, MSR_VMX_EPT_VPID_CAP),
				     p2 & VMX_CTL(VMX_PROC2_MODE_BASED_EPT_EXEC), cpu->maxphyaddr);
	cpu->stage2.ept_large_offset_ignored = v->quirks & QUIRK_BIT(QK_BOCHS_EPT_LARGE_OFFSET_IGNORED);
	vmx_pml_attach(v, &cpu->stage2, p2);
	v->guest_space = guest_space(vpid ? (uint16_t)get(v, VMCS_ROW_VPID) : 0, true, eptp);
	tlb_select(&cpu->tlb, v->guest_space, (cpu->cr4 & CR4_PCIDE) ? (uint16_t)(cpu->cr3 & 0xfff) : 0);
}

/* SDM Vol.3 27.7: a VMX abort: the indicator in the VMCS region (24.2,
 * offset 4), then the logical processor shuts down. */
static status_t vmx_abort(struct vmx *v, struct cpu *cpu, enum vmx_abort why)
{
	physmem_write(cpu->mem, v->vmcs.pa + 4, 4, why);
	cpu_notify_phys_write(cpu, v->vmcs.pa + 4, 4);
	return ST_SHUTDOWN;
}

/* ---- the host state (SDM Vol.3 27.5) ---- */

static void host_segment(struct segment *s, uint16_t selector, uint64_t base, bool usable, uint16_t attr)
{
	cpu_load_segment(s, selector, usable ? attr : (uint16_t)(attr & ~SEG_P), 0xffffffffu, base);
}

/* Attributes in hvemu's form (descriptor bits 47:40 in 7:0, 55:52 in 11:8). */
#define HOST_DATA_ATTR  (0x93 | 0xc00)            /* read/write accessed, S, P; D/B, G */
#define HOST_CODE_ATTR  (0x9b | 0x800)            /* execute/read accessed, S, P; G */
#define HOST_CODE_L     0x200
#define HOST_CODE_DB    0x400
#define HOST_TR_ATTR    0x8b                      /* busy 32-bit TSS, P */

/* 27.5.2: selectors from the host-state area; CS base 0, limit FFFFFFFFH,
 * type 11, S, DPL 0, P, G, L = "host address-space size", D = not L; SS, DS,
 * ES, FS, GS type 3, S, DPL 0, P, D/B, G, limit FFFFFFFFH, base 0 (FS and GS:
 * their base fields), DS, ES, FS and GS unusable with a null selector; TR a
 * busy 32-bit TSS, limit 67H, base from its field; LDTR null and unusable.
 * Into v->host_segments, which depends on nothing else: built again only
 * after one of those fields changed (vmx_vmcs_changed), and at every exit
 * under --tlb flush (no copy of the VMCS is trusted there). */
static void host_segments(struct vmx *v, bool host64)
{
	if (v->host_segments.valid && !v->cpu->tlb_uncached)
		return;
	struct segment *seg = v->host_segments.seg;
	uint16_t code = HOST_CODE_ATTR | (host64 ? HOST_CODE_L : HOST_CODE_DB);
	host_segment(&seg[SR_CS], (uint16_t)get(v, VMCS_ROW_HOST_CS_SELECTOR), 0, true, code);
	host_segment(&seg[SR_SS], (uint16_t)get(v, VMCS_ROW_HOST_SS_SELECTOR), 0, true, HOST_DATA_ATTR);
	static const struct { uint8_t sreg; uint8_t row; } data[] = {
		{ SR_DS, VMCS_ROW_HOST_DS_SELECTOR }, { SR_ES, VMCS_ROW_HOST_ES_SELECTOR },
		{ SR_FS, VMCS_ROW_HOST_FS_SELECTOR }, { SR_GS, VMCS_ROW_HOST_GS_SELECTOR },
	};
	for (unsigned i = 0; i < 4; i++) {
		uint16_t sel = (uint16_t)get(v, (enum vmcs_row)data[i].row);
		uint64_t base = data[i].sreg == SR_FS ? get(v, VMCS_ROW_HOST_FS_BASE) :
				data[i].sreg == SR_GS ? get(v, VMCS_ROW_HOST_GS_BASE) : 0;
		host_segment(&seg[data[i].sreg], sel, base, (sel & ~3u) != 0, HOST_DATA_ATTR);
	}
	cpu_load_segment(&v->host_segments.tr, (uint16_t)get(v, VMCS_ROW_HOST_TR_SELECTOR), HOST_TR_ATTR, 0x67,
			 get(v, VMCS_ROW_HOST_TR_BASE));
	cpu_load_segment(&v->host_segments.ldtr, 0, 0, 0, 0);
	v->host_segments.valid = !v->cpu->tlb_uncached;
}

/* 27.5.1-27.5.3, 27.5.5: the host-state area into the CPU, the fixed parts
 * filled in; then 27.6, the VM-exit MSR-load area. ST_VMEXIT, or
 * ST_SHUTDOWN after a VMX abort (27.7). Also a VM-entry failure's (26.8). */
static status_t load_host(struct vmx *v, struct cpu *cpu)
{
	bool host64 = ctl(v, VMCS_ROW_EXIT_CONTROLS, VMX_EXITCTL_HOST_ADDR_SPACE_SIZE);

	/* 27.5.1: CR0 (the bits of VMX_CR0_KEPT kept), CR3, CR4 (PAE set with a
	 * 64-bit host, PCIDE clear otherwise); DR7 = 400H; IA32_DEBUGCTL = 0;
	 * the SYSENTER MSRs; EFER from its field with "load IA32_EFER", else
	 * LMA and LME = "host address-space size"; PAT with "load IA32_PAT". */
	uint64_t cr0 = (get(v, VMCS_ROW_HOST_CR0) & ~VMX_CR0_KEPT) | (cpu->cr0 & VMX_CR0_KEPT);
	uint64_t cr4 = get(v, VMCS_ROW_HOST_CR4);
	cr4 = host64 ? cr4 | CR4_PAE : cr4 & ~(uint64_t)CR4_PCIDE;
	uint64_t efer = cpu->efer;
	if (ctl(v, VMCS_ROW_EXIT_CONTROLS, VMX_EXITCTL_LOAD_EFER))
		efer = get(v, VMCS_ROW_HOST_IA32_EFER);
	else
		efer = host64 ? efer | EFER_LMA | EFER_LME : efer & ~(uint64_t)(EFER_LMA | EFER_LME);
	cpu_set_control_regs(cpu, cr0, get(v, VMCS_ROW_HOST_CR3), cr4, efer);
	cpu->dr[7] = 0x400;
	cpu->debugctl = 0;
	cpu->sysenter_cs = get(v, VMCS_ROW_HOST_IA32_SYSENTER_CS);
	cpu->sysenter_esp = get(v, VMCS_ROW_HOST_IA32_SYSENTER_ESP);
	cpu->sysenter_eip = get(v, VMCS_ROW_HOST_IA32_SYSENTER_EIP);
	if (ctl(v, VMCS_ROW_EXIT_CONTROLS, VMX_EXITCTL_LOAD_PAT))
		cpu->pat = get(v, VMCS_ROW_HOST_IA32_PAT);

	/* 27.5.2: the segment registers (host_segments); GDTR and IDTR limits
	 * FFFFH. */
	host_segments(v, host64);
	memcpy(cpu->seg, v->host_segments.seg, sizeof(cpu->seg));
	cpu->tr = v->host_segments.tr;
	cpu->ldtr = v->host_segments.ldtr;
	cpu->gdtr = (struct dtr){ .base = get(v, VMCS_ROW_HOST_GDTR_BASE), .limit = 0xffff };
	cpu->idtr = (struct dtr){ .base = get(v, VMCS_ROW_HOST_IDTR_BASE), .limit = 0xffff };

	/* 27.5.3: RIP and RSP from the host-state area, RFLAGS = 2. */
	cpu->rip = get(v, VMCS_ROW_HOST_RIP);
	cpu->regs[R_SP] = get(v, VMCS_ROW_HOST_RSP);
	cpu_set_rflags(cpu, FLAG_FIXED1);
	cpu->cpl = 0;
	cpu->tsc_offset = v->host_tsc_offset;
	/* 27.5.5: no blocking by STI or MOV SS, no pending debug exceptions;
	 * back in VMX root operation, in the host's TLB context (VPID 0). */
	cpu->pending_dbg = 0;
	cpu_leave_guest(cpu, 0, (cpu->cr4 & CR4_PCIDE) ? (uint16_t)(cpu->cr3 & 0xfff) : 0);
	if (v->vpid_off)
		invalidate_vpid0(cpu);
	/* 27.5.4: a PAE host outside IA-32e mode loads its PDPTEs from CR3; a
	 * reserved bit is a VMX abort (27.7, indicator 2). */
	if (cpu_load_pdptes(cpu) != ST_OK) {
		cpu->event.pending = false;
		return vmx_abort(v, cpu, VMX_ABORT_HOST_PDPTE);
	}

	/* 27.6: the VM-exit MSR-load area, as 26.4's; a failure is a VMX abort
	 * with indicator 4 (27.7): the processor shuts down. */
	uint32_t count = (uint32_t)get(v, VMCS_ROW_EXIT_MSR_LOAD_COUNT);
	uint64_t area = get(v, VMCS_ROW_EXIT_MSR_LOAD_ADDR);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t index = physmem_read(cpu->mem, area + 16ull * i, 8);
		uint64_t data_ = physmem_read(cpu->mem, area + 16ull * i + 8, 8);
		if ((index >> 32) || (index >> 8) == 0x8 || index == MSR_FS_BASE || index == MSR_GS_BASE ||
		    index == MSR_SMM_MONITOR_CTL || !cpu_msr_write_checked(cpu, (uint32_t)index, data_))
			return vmx_abort(v, cpu, VMX_ABORT_LOAD_HOST_MSR);
	}
	return ST_VMEXIT;
}

/* ---- the VMX-preemption timer (SDM Vol.3 25.5.1) ---- */

/* IA32_VMX_MISC bits 4:0 (A.6): the timer counts down by 1 each time bit X
 * of the TSC changes, i.e. every 2^X TSC ticks (hvemu's TSC runs with
 * virtual time, emu/cpu.h icount). */
static unsigned timer_rate(const struct vmx *v)
{
	return (unsigned)(vmx_cap(v, MSR_VMX_MISC) & VMX_MISC_PREEMPT_RATE_MASK);
}

/* 26.7.4: with "activate VMX-preemption timer" VM entry starts the timer at
 * the field's value (0: it expires before the first guest instruction). */
static void timer_start(struct vmx *v, struct cpu *cpu)
{
	uint64_t value = get(v, VMCS_ROW_PREEMPTION_TIMER_VALUE) & 0xffffffff;
	cpu_hv_set_timer(cpu, cpu_now(cpu) + (value << timer_rate(v)));
}

/* 27.3.4: the value left, with "save VMX-preemption timer value" (0 once it
 * expired); the timer stops in VMX root operation. */
static void timer_stop(struct vmx *v, struct cpu *cpu, bool save)
{
	uint64_t at = cpu->deadlines[DEADLINE_HV].at, now = cpu_now(cpu);
	if (save) {
		bool expired = at == UINT64_MAX || at <= now || (cpu->hv_armed & HV_ARM_PREEMPTION_TIMER);
		put(v, VMCS_ROW_PREEMPTION_TIMER_VALUE, expired ? 0 : (at - now) >> timer_rate(v), 0xffffffff);
	}
	cpu_hv_set_timer(cpu, UINT64_MAX);
	cpu->hv_armed &= (uint8_t)~HV_ARM_PREEMPTION_TIMER;
}

/* ---- VM exit ---- */

/* SDM Vol.3 27.3: the guest's state into the guest-state area. */
static void save_guest(struct vmx *v, struct cpu *cpu, uint64_t guest_rip)
{
	cpu->rip = guest_rip;          /* 27.3.3: the instruction that exited, or the event's rIP */
	save_guest_rows(v, cpu);
	put(v, VMCS_ROW_GUEST_CR0, cpu->cr0, UINT64_MAX);
	/* 27.3.2: "the DPL of SS is saved as the CPL" (also for an unusable SS). */
	uint64_t ss = get(v, VMCS_ROW_GUEST_SS_AR);
	put(v, VMCS_ROW_GUEST_SS_AR, (ss & ~(uint64_t)VMX_AR_DPL_MASK) | ((uint64_t)cpu->cpl << VMX_AR_DPL_SHIFT),
	    0xffffffff);
	/* 27.3.1: DR7 and IA32_DEBUGCTL with "save debug controls"; PAT and
	 * EFER with their save controls; 27.3.4: the PDPTEs with EPT (the
	 * fields exist only then) under PAE paging. */
	uint32_t exitc = (uint32_t)get(v, VMCS_ROW_EXIT_CONTROLS);
	if (exitc & VMX_CTL(VMX_EXITCTL_SAVE_DEBUG_CONTROLS)) {
		put(v, VMCS_ROW_GUEST_DR7, cpu->dr[7], UINT64_MAX);
		put(v, VMCS_ROW_GUEST_IA32_DEBUGCTL, cpu->debugctl, UINT64_MAX);
	}
	if (exitc & VMX_CTL(VMX_EXITCTL_SAVE_PAT))
		put(v, VMCS_ROW_GUEST_IA32_PAT, cpu->pat, UINT64_MAX);
	if (exitc & VMX_CTL(VMX_EXITCTL_SAVE_EFER))
		put(v, VMCS_ROW_GUEST_IA32_EFER, cpu->efer, UINT64_MAX);
	bool pae = (cpu->cr0 & CR0_PG) && (cpu->cr4 & CR4_PAE) && !(cpu->efer & EFER_LMA);
	if ((proc2(v) & VMX_CTL(VMX_PROC2_EPT)) && pae)
		for (unsigned i = 0; i < 4; i++)
			put(v, (enum vmcs_row)(VMCS_ROW_GUEST_PDPTE0 + i), cpu->pdpte[i], UINT64_MAX);
	/* 27.3.4: interruptibility (the shadow of the last STI / MOV SS, also the
	 * one the exiting instruction ran in; blocking by NMI), activity (HLT if
	 * the guest was halted), pending debug exceptions (B0-B3, BS; "enabled
	 * breakpoint" when one of B0-B3 is enabled in DR7). */
	uint8_t shadow = cpu->shadow | cpu->insn_shadow;
	uint32_t intr = ((shadow & SHADOW_STI) ? VMX_INTERRUPTIBILITY_STI : 0) |
			((shadow & SHADOW_MOV_SS) ? VMX_INTERRUPTIBILITY_MOV_SS : 0) |
			(cpu->nmi_blocked ? VMX_INTERRUPTIBILITY_NMI : 0);
	put(v, VMCS_ROW_GUEST_INTERRUPTIBILITY, intr, 0xffffffff);
	uint32_t activity = cpu->wait_for_sipi ? VMX_ACTIVITY_WAIT_SIPI
			    : cpu->shutdown_wait ? VMX_ACTIVITY_SHUTDOWN
			    : cpu->halted ? VMX_ACTIVITY_HLT : VMX_ACTIVITY_ACTIVE;
	put(v, VMCS_ROW_GUEST_ACTIVITY_STATE, activity, 0xffffffff);
	uint64_t pending = cpu->pending_dbg & (VMX_PENDING_DBG_B0_3 | VMX_PENDING_DBG_BS);
	for (unsigned i = 0; i < 4; i++)
		if ((pending >> i) & 1 && (cpu->dr[7] >> (2 * i)) & 3)
			pending |= VMX_PENDING_DBG_ENABLED_BP;
	put(v, VMCS_ROW_GUEST_PENDING_DBG_EXCEPTIONS, pending, UINT64_MAX);
}

/* SDM Vol.3 27.2: the VM-exit information fields. The guest-linear and
 * guest-physical addresses and the instruction length and information are
 * what vmx_exit_decide gave (0 where the reason does not define them). */
static void write_exit_info(struct vmx *v, const struct vmx_exit *x)
{
	put(v, VMCS_ROW_EXIT_REASON, x->reason, 0xffffffff);
	put(v, VMCS_ROW_EXIT_QUALIFICATION, x->qualification, UINT64_MAX);
	put(v, VMCS_ROW_GUEST_LINEAR_ADDR, x->guest_linear, UINT64_MAX);
	if (v->field_exists[VMCS_ROW_GUEST_PHYSICAL_ADDR])
		put(v, VMCS_ROW_GUEST_PHYSICAL_ADDR, x->guest_physical, UINT64_MAX);
	put(v, VMCS_ROW_EXIT_INTR_INFO, x->intr_info, 0xffffffff);
	put(v, VMCS_ROW_EXIT_INTR_ERROR_CODE, x->intr_error, 0xffffffff);
	put(v, VMCS_ROW_IDT_VECTORING_INFO, x->idt_vectoring_info, 0xffffffff);
	put(v, VMCS_ROW_IDT_VECTORING_ERROR_CODE, x->idt_vectoring_error, 0xffffffff);
	put(v, VMCS_ROW_EXIT_INSTRUCTION_LEN, x->insn_len, 0xffffffff);
	put(v, VMCS_ROW_EXIT_INSTRUCTION_INFO, x->insn_info, 0xffffffff);
	/* SDM Vol.3 27.2: VM exits clear the valid bit of the VM-entry
	 * interruption-information field: an injected event was delivered, or
	 * is reported in the IDT-vectoring information. */
	put(v, VMCS_ROW_ENTRY_INTR_INFO, get(v, VMCS_ROW_ENTRY_INTR_INFO) & ~(uint64_t)VMX_INTR_VALID, 0xffffffff);
	/* SDM Vol.3 27.2, A.6 (IA32_VMX_MISC bit 5): VM exits store EFER.LMA
	 * into the "IA-32e mode guest" VM-entry control. */
	if (vmx_cap(v, MSR_VMX_MISC) & VMX_MISC_STORE_LMA) {
		uint64_t entryc = get(v, VMCS_ROW_ENTRY_CONTROLS) & ~(uint64_t)VMX_CTL(VMX_ENTRYCTL_IA32E_MODE_GUEST);
		if (v->cpu->efer & EFER_LMA)
			entryc |= VMX_CTL(VMX_ENTRYCTL_IA32E_MODE_GUEST);
		put(v, VMCS_ROW_ENTRY_CONTROLS, entryc, 0xffffffff);
	}
}

/* SDM Vol.3 27.4: the VM-exit MSR-store area, 16 bytes an entry (index
 * 31:0, reserved 63:32, data 127:64): each MSR's value "as RDMSR would"
 * read it into bits 127:64. An entry with bits 63:32 set, an x2APIC MSR
 * (31:8 = 000008H), IA32_SMBASE (9EH) outside SMM, or an MSR RDMSR would
 * refuse is a VMX abort with indicator 1 (27.7). */
static bool store_exit_msrs(struct vmx *v, struct cpu *cpu)
{
	uint32_t count = (uint32_t)get(v, VMCS_ROW_EXIT_MSR_STORE_COUNT);
	uint64_t area = get(v, VMCS_ROW_EXIT_MSR_STORE_ADDR);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t index = physmem_read(cpu->mem, area + 16ull * i, 8);
		uint64_t value;
		if ((index >> 32) || (index >> 8) == 0x8 || index == MSR_SMBASE ||
		    !cpu_msr_read_checked(cpu, (uint32_t)index, &value))
			return false;
		physmem_write(cpu->mem, area + 16ull * i + 8, 8, value);
		cpu_notify_phys_write(cpu, area + 16ull * i + 8, 8);
	}
	return true;
}

status_t vmx_vm_exit(struct vmx *v, struct cpu *cpu, const struct vmx_exit *x)
{
	struct vmx_exit odd;
	unsigned perturbed = 0;
	if (__builtin_expect(v->perturb != 0, 0)) {
		struct vmx_perturb_ctx pc = { .from_64bit = cpu->mode == MODE_LONG64,
					      .ins_outs_info = vmx_cap(v, MSR_VMX_BASIC) & VMX_BASIC_INS_OUTS_INFO,
					      .has_guest_physical = v->field_exists[VMCS_ROW_GUEST_PHYSICAL_ADDR] };
		odd = *x;
		perturbed = vmx_perturb_exit(&v->perturb, &pc, &odd);
		if (perturbed)
			v->perturbed_exits++;
		x = &odd;
	}
	sync_in(v);
	save_guest(v, cpu, x->guest_rip);
	if (x->saved_rf != VMX_RF_AS_IS) {
		uint64_t flags = get(v, VMCS_ROW_GUEST_RFLAGS) & ~(uint64_t)FLAG_RF;
		put(v, VMCS_ROW_GUEST_RFLAGS, flags | (x->saved_rf == VMX_RF_SET ? FLAG_RF : 0), UINT64_MAX);
	}
	if (ctl(v, VMCS_ROW_PIN_BASED_CONTROLS, VMX_PIN_PREEMPTION_TIMER))
		timer_stop(v, cpu, ctl(v, VMCS_ROW_EXIT_CONTROLS, VMX_EXITCTL_SAVE_PREEMPTION_TIMER));
	vmx_events_leave(v, cpu, x);
	write_exit_info(v, x);
	sync_out(v);
	bool observed = cpu->exit_observer != NULL;
	if (observed)
		vmx_fill_report(v, x, perturbed);
	/* SDM Vol.3 25.3: "use TSC offsetting" changes what RDTSC, RDTSCP and
	 * RDMSR return to instructions executed in VMX non-root operation; the
	 * MSR-store of 27.4 is part of the VM exit, not such an instruction, so
	 * IA32_TIME_STAMP_COUNTER is stored without the guest's TSC offset (L1's
	 * own clock, which load_host keeps). */
	cpu->tsc_offset = v->host_tsc_offset;
	if (!store_exit_msrs(v, cpu))
		return vmx_abort(v, cpu, VMX_ABORT_SAVE_GUEST_MSR);
	status_t st = load_host(v, cpu);
	/* The guest's blocking by NMI went to the interruptibility state
	 * (27.3.4); the host's follows the exit: "An NMI causes subsequent NMIs
	 * to be blocked, but only after the VM exit completes" (27.1), other
	 * exits leave none. */
	bool nmi_exit = (x->reason & VMX_EXIT_BASIC_MASK) == VMX_EXIT_EXCEPTION_NMI &&
			(x->intr_info & VMX_INTR_VALID) &&
			((x->intr_info & VMX_INTR_TYPE_MASK) >> VMX_INTR_TYPE_SHIFT) == VMX_INTR_NMI;
	cpu->nmi_blocked = nmi_exit;
	if (observed)
		exit_report_send(cpu, &v->report);
	return st;
}

status_t vmx_intercept(void *ctx, struct cpu *cpu, struct exit_record *rec)
{
	struct vmx *v = ctx;
	struct vmx_exit x;
	status_t st = vmx_exit_decide(v, cpu, rec, &x);
	if (st != ST_VMEXIT) {
		vmx_events_go_on(v, cpu, rec, st);
		return st;
	}
	/* The IDT-vectoring information is vmx_exit_decide's (SDM Vol.3 27.2.4,
	 * which leaves it out for a #DF that exits directly and a triple fault). */
	return vmx_vm_exit(v, cpu, &x);
}

/* ---- VM entry ---- */

/* SDM Vol.3 26.8: a VM-entry failure during or after loading the guest
 * state: the exit reason (bit 31 set) and qualification written, no guest
 * state saved, the host state loaded as by a VM exit (27.5, 27.6). */
static status_t entry_failure(struct vmx *v, struct cpu *cpu, uint32_t reason, uint64_t qualification,
			      const char *check)
{
	put(v, VMCS_ROW_EXIT_REASON, reason, 0xffffffff);
	put(v, VMCS_ROW_EXIT_QUALIFICATION, qualification, UINT64_MAX);
	sync_out(v);
	bool observed = cpu->exit_observer != NULL;
	if (observed)
		vmx_fill_entry_report(v, EXIT_REPORT_ENTRY_FAILURE, reason, qualification, check);
	status_t st = load_host(v, cpu);
	if (observed)
		exit_report_send(cpu, &v->report);
	return st;
}

/* VMfailValid(7/8) of a failed control or host-state row (26.2): L1 goes on
 * after the instruction. */
static status_t entry_vmfail(struct vmx *v, struct cpu *cpu, const struct check_row *row)
{
	if (cpu->exit_observer) {
		vmx_fill_entry_report(v, EXIT_REPORT_VMFAIL_VALID, row->outcome.code, 0, row->text);
		exit_report_send(cpu, &v->report);
	}
	return vmx_fail_valid(v, (enum vmx_instruction_error)row->outcome.code);
}

/* SDM Vol.3 26.4: the VM-entry MSR-load area, 16 bytes an entry: index
 * 31:0, reserved 63:32, data 127:64. 0, or the 1-based index of the entry
 * that failed: bits 63:32 set, an x2APIC MSR (bits 31:8 = 000008H), FS or
 * GS base, IA32_SMM_MONITOR_CTL, or a value WRMSR would refuse. */
static uint32_t load_entry_msrs(struct vmx *v, struct cpu *cpu)
{
	uint32_t count = (uint32_t)get(v, VMCS_ROW_ENTRY_MSR_LOAD_COUNT);
	uint64_t area = get(v, VMCS_ROW_ENTRY_MSR_LOAD_ADDR);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t index = physmem_read(cpu->mem, area + 16ull * i, 8);
		uint64_t data = physmem_read(cpu->mem, area + 16ull * i + 8, 8);
		if ((index >> 32) || (index >> 8) == 0x8 || index == MSR_FS_BASE || index == MSR_GS_BASE ||
		    index == MSR_SMM_MONITOR_CTL || !cpu_msr_write_checked(cpu, (uint32_t)index, data))
			return i + 1;
	}
	return 0;
}

/* SDM Vol.3 26.3.2: the guest state into the CPU. */
static void load_guest(struct vmx *v, struct cpu *cpu)
{
	uint32_t entryc = (uint32_t)get(v, VMCS_ROW_ENTRY_CONTROLS);
	load_guest_rows(v, cpu);
	/* 26.3.2.1: CR0 but the bits it keeps; EFER from its field with "load
	 * IA32_EFER", else LMA and LME = "IA-32e mode guest"; DR7 and
	 * IA32_DEBUGCTL with "load debug controls"; PAT with "load IA32_PAT". */
	cpu->cr0 = (get(v, VMCS_ROW_GUEST_CR0) & ~VMX_CR0_KEPT) | (cpu->cr0 & VMX_CR0_KEPT) | CR0_ET;
	if (entryc & VMX_CTL(VMX_ENTRYCTL_LOAD_EFER))
		cpu->efer = get(v, VMCS_ROW_GUEST_IA32_EFER);
	else if (entryc & VMX_CTL(VMX_ENTRYCTL_IA32E_MODE_GUEST))
		cpu->efer |= EFER_LMA | EFER_LME;
	else
		cpu->efer &= ~(uint64_t)(EFER_LMA | EFER_LME);
	if (entryc & VMX_CTL(VMX_ENTRYCTL_LOAD_DEBUG_CONTROLS)) {
		/* "bit 12 and bits 15:14 are always 0 and bit 10 is always 1". */
		ws_set(cpu, WS_DR7, get(v, VMCS_ROW_GUEST_DR7) & ~0xd000ull);
		cpu->debugctl = get(v, VMCS_ROW_GUEST_IA32_DEBUGCTL);
	}
	if (entryc & VMX_CTL(VMX_ENTRYCTL_LOAD_PAT))
		cpu->pat = get(v, VMCS_ROW_GUEST_IA32_PAT);
	ws_commit(cpu, WSG_ALL_SEGMENTS | WSG_CR | WSG_FLAGS);
	/* 26.3.2.2 (via 26.3.1.2): CPL is SS.DPL. */
	cpu->cpl = (uint8_t)((get(v, VMCS_ROW_GUEST_SS_AR) & VMX_AR_DPL_MASK) >> VMX_AR_DPL_SHIFT);
	/* The TSC offset with "use TSC offsetting" (25.3: RDTSC in the guest). */
	if (ctl(v, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_PROC_TSC_OFFSETTING))
		cpu->tsc_offset += get(v, VMCS_ROW_TSC_OFFSET);
}

status_t vmx_vm_entry(struct vmx *v, struct cpu *cpu, bool launch)
{
	sync_in(v);
	/* SDM Vol.3 26.2: the controls (VMfailValid 7) and the host-state area
	 * (8): "VM entry fails ... the instruction is ... VMfailValid", nothing
	 * else changes. */
	const struct check_row *row = vmx_check_controls(v);
	if (!row)
		row = vmx_check_host_state(v);
	if (row)
		return entry_vmfail(v, cpu, row);
	/* L1's own TSC offset, which the VM exit (or a failure's host load)
	 * puts back. */
	v->host_tsc_offset = cpu->tsc_offset;
	/* 26.3.1: the guest-state area; a failure is a VM-entry failure (26.8). */
	row = vmx_check_guest_state(v);
	if (row)
		return entry_failure(v, cpu, (uint32_t)row->outcome.code, row->outcome.qualification, row->text);

	uint64_t rip = get(v, VMCS_ROW_GUEST_RIP);
	v->entered_at = cpu_now(cpu);
	/* SDM Vol.3 25.1.3 PAUSE-loop exiting: the first PAUSE at CPL 0 after
	 * VM entry is the first of a loop (intercepts.c). */
	v->pause_loop = false;
	load_guest(v, cpu);
	/* 26.3.3: VM entry clears address-range monitoring. */
	cpu->monitor_armed = false;

	/* 28.1, 28.3.1: the guest's TLB space; with EPT the stage 2 of its EPTP
	 * (28.2), installed as SVM's nested paging is. */
	uint32_t p2 = proc2(v);
	bool ept = p2 & VMX_CTL(VMX_PROC2_EPT);
	bool vpid = p2 & VMX_CTL(VMX_PROC2_VPID);
	uint64_t eptp = ept ? get(v, VMCS_ROW_EPT_POINTER) : 0;
	v->vpid_off = !vpid;
	v->guest_space = guest_space(vpid ? (uint16_t)get(v, VMCS_ROW_VPID) : 0, ept, eptp);
	if (ept) {
		cpu->stage2 = nested_ept_env(cpu->mem, eptp, vmx_cap(v, MSR_VMX_EPT_VPID_CAP),
					     p2 & VMX_CTL(VMX_PROC2_MODE_BASED_EPT_EXEC), cpu->maxphyaddr);
		cpu->stage2.ept_large_offset_ignored = v->quirks & QUIRK_BIT(QK_BOCHS_EPT_LARGE_OFFSET_IGNORED);
		vmx_pml_attach(v, &cpu->stage2, p2);
		cpu->stage2_on = true;
	}
	if (v->vpid_off)
		invalidate_vpid0(cpu);
	/* 26.3.2.4: under PAE paging the PDPTEs come from the VMCS fields with
	 * EPT, from the guest's CR3 without (a reserved bit: a VM-entry failure,
	 * qualification 2, 26.8). */
	uint64_t pdptes[4];
	const uint64_t *from_fields = NULL;
	bool pae = (cpu->cr0 & CR0_PG) && (cpu->cr4 & CR4_PAE) && !(cpu->efer & EFER_LMA);
	if (ept && pae) {
		for (unsigned i = 0; i < 4; i++)
			pdptes[i] = get(v, (enum vmcs_row)(VMCS_ROW_GUEST_PDPTE0 + i));
		from_fields = pdptes;
	}
	status_t st = cpu_enter_guest(cpu, v->guest_space, from_fields);
	if (st == ST_VMEXIT)
		return st;
	if (st != ST_OK) {
		cpu->event.pending = false;
		return entry_failure(v, cpu, VMX_EXIT_ENTRY_FAILURE | VMX_EXIT_INVALID_GUEST_STATE, 2,
				     "SDM Vol.3 26.3.1.6: a guest PDPTE sets a reserved bit");
	}
	cpu->intr_masking = ctl(v, VMCS_ROW_PIN_BASED_CONTROLS, VMX_PIN_EXT_INTR_EXITING) ? INTR_MASK_NONE
											   : INTR_MASK_IF;

	/* 26.4: the VM-entry MSR-load area; a failure is reason 34 with the
	 * entry's 1-based index as qualification (26.8). */
	uint32_t bad = load_entry_msrs(v, cpu);
	if (bad)
		return entry_failure(v, cpu, VMX_EXIT_ENTRY_FAILURE | VMX_EXIT_MSR_LOADING, bad,
				     "SDM Vol.3 26.4: a VM-entry MSR-load entry WRMSR would refuse");

	/* SDM Vol.3 30.3 VMLAUNCH: "launch state of current VMCS := launched"
	 * once the guest state and the MSRs loaded. */
	if (launch)
		vmcs_set_launched(v, true);

	/* 26.7.1: blocking by STI and MOV SS from the interruptibility state;
	 * blocking by NMI without "virtual NMIs". */
	uint32_t intr = (uint32_t)get(v, VMCS_ROW_GUEST_INTERRUPTIBILITY);
	cpu->shadow = (uint8_t)(((intr & VMX_INTERRUPTIBILITY_STI) ? SHADOW_STI : 0) |
				((intr & VMX_INTERRUPTIBILITY_MOV_SS) ? SHADOW_MOV_SS : 0));
	if (!ctl(v, VMCS_ROW_PIN_BASED_CONTROLS, VMX_PIN_VIRTUAL_NMIS))
		cpu->nmi_blocked = intr & VMX_INTERRUPTIBILITY_NMI;
	/* 26.7.3: pending debug exceptions (B0-B3, BS) wait for the first
	 * instruction boundary. */
	cpu->pending_dbg = (uint16_t)(get(v, VMCS_ROW_GUEST_PENDING_DBG_EXCEPTIONS) &
				      (VMX_PENDING_DBG_B0_3 | VMX_PENDING_DBG_BS));
	/* 26.7.4: what is due after VM entry (the debug exception, then a
	 * zero preemption timer) all comes before the first instruction. */
	cpu->hv_armed |= HV_ENTRY_BOUNDARY;

	if (ctl(v, VMCS_ROW_PIN_BASED_CONTROLS, VMX_PIN_PREEMPTION_TIMER))
		timer_start(v, cpu);
	/* 26.7.5-26.7.8 (events.c): the windows, MTF, TPR below threshold;
	 * virtual-NMI blocking. */
	vmx_events_enter(v, cpu);
	/* --perturb-exits' exit timing: with external-interrupt exiting and
	 * without "acknowledge interrupt on exit", an interrupt may come and go
	 * while the guest runs (emu/event_step.h): exit 1 with the
	 * interruption information invalid (27.2.2), nothing pending after it.
	 * With acknowledge the exit would have to name a vector: none is made up. */
	if (__builtin_expect(v->spurious_intr != 0, 0) && ctl(v, VMCS_ROW_PIN_BASED_CONTROLS, VMX_PIN_EXT_INTR_EXITING) &&
	    !ctl(v, VMCS_ROW_EXIT_CONTROLS, VMX_EXITCTL_ACK_INTR_ON_EXIT))
		cpu_spurious_intr_after(cpu, perturb_spurious_intr_delay(&v->spurious_intr));

	/* 26.6: an event to inject is delivered before the first instruction;
	 * 26.7.2: "If the VM entry is vectoring, the logical processor is in the
	 * active state after VM entry", else in the field's activity state. */
	uint32_t info = (uint32_t)get(v, VMCS_ROW_ENTRY_INTR_INFO);
	if (info & VMX_INTR_VALID)
		return vmx_inject(v, cpu, rip);
	/* 26.7.2: the inactive states; the run loop waits for an event to wake
	 * the CPU (emu/event_step.c blocks per state). */
	switch (get(v, VMCS_ROW_GUEST_ACTIVITY_STATE)) {
	case VMX_ACTIVITY_HLT:
		return ST_HALT;
	case VMX_ACTIVITY_SHUTDOWN:
		cpu->shutdown_wait = true;
		return ST_HALT;
	case VMX_ACTIVITY_WAIT_SIPI:
		cpu->wait_for_sipi = true;
		return ST_HALT;
	default:
		return ST_VMEXIT;      /* the world changed: the run loop looks again */
	}
}
