/* The world switch: VMRUN into the guest, #VMEXIT back to the host (APM2
 * 15.5, 15.6).
 *
 *   svm_vmrun   the VMCB -> the entry state (clean groups from the cache,
 *               APM2 15.15) -> consistency checks (consistency.c; a failure is
 *               #VMEXIT(VMEXIT_INVALID)) -> save the host -> load the guest,
 *               the TLB context of its ASID, nested paging, virtual interrupts,
 *               the interrupt shadow -> GIF = 1 -> EVENTINJ (events.c)
 *   svm_vmexit  the guest's state and the exit information into the VMCB
 *               -> the cache for clean bits -> load the host -> GIF = 0
 *
 * Neither decodes anything or touches a TLB entry: the decoded blocks are
 * keyed by physical address and the TLB by context, so a VMMCALL round trip
 * only switches the TLB's current context (mmu/tlb.h) and state.
 */
#include <string.h>

#include "emu/insn.h"
#include "emu/flags.h"
#include "emu/paging_env.h"
#include "mmu/nested.h"
#include "svm/exit_codes.h"
#include "svm/model.h"

/* ---- segments: struct segment's attr is the VMCB attrib layout (mmu/x86.h) ---- */

static void seg_from_vmcb(struct segment *s, const struct vmcb_seg *v)
{
	s->selector = v->selector;
	s->attr = v->attrib & 0xfff;
	s->limit = v->limit;
	s->base = v->base;
	seg_refresh(s);
}

static struct vmcb_seg seg_to_vmcb(const struct segment *s)
{
	return (struct vmcb_seg){ .selector = s->selector, .attrib = s->attr, .limit = s->limit,
				  .base = s->base };
}

static struct vmcb_seg dtr_to_vmcb(const struct dtr *d)
{
	return (struct vmcb_seg){ .limit = d->limit, .base = d->base };
}

/* ---- the VMCB in memory ---- */

/* The VMCB at pa (4 KiB aligned, below MAXPHYADDR): the page itself when it
 * is RAM, else a copy (MMIO or unclaimed: what a read of it returns). */
static struct vmcb *vmcb_map(struct svm *s, uint64_t pa)
{
	struct physmem *pm = s->cpu->mem;
	if (pa + sizeof(struct vmcb) <= pm->ram_size)
		return (struct vmcb *)(void *)physmem_ram_ptr(pm, pa);
	physmem_read_bytes(pm, pa, &s->shadow, sizeof(s->shadow));
	return &s->shadow;
}

/* The processor wrote the VMCB: outside RAM the copy goes back through the
 * bus; in RAM, decoded instructions of the page (if any) are dropped. */
static void vmcb_written(struct svm *s)
{
	if (s->vmcb == &s->shadow)
		physmem_write_bytes(s->cpu->mem, s->vmcb_pa, &s->shadow, sizeof(s->shadow));
	else
		cpu_notify_phys_write(s->cpu, s->vmcb_pa, sizeof(struct vmcb));
}

/* ---- VMRUN ---- */

/* Everything VMRUN takes from the VMCB, after the clean bits chose between
 * the VMCB and the processor's cached copy. */
struct entry_state {
	struct svm_controls ctl;
	struct svm_cached_save save;
	uint64_t rflags, rip, rsp, rax;
	uint64_t eventinj, interrupt_shadow, nrip;
	uint8_t tlb_control;
};

static struct svm_controls controls_of(const struct vmcb_control *c, const struct vmcb_save *v)
{
	struct svm_controls ctl = {
		.pause_filter_count = c->pause_filter_count,
		.pause_filter_threshold = c->pause_filter_threshold,
		.tsc_offset = c->tsc_offset, .iopm_base = c->iopm_base_pa & ~0xfffull,
		.msrpm_base = c->msrpm_base_pa & ~0xfffull, .asid = c->guest_asid, .vintr = c->vintr,
		.np_control = c->np_control, .ncr3 = c->n_cr3, .g_pat = v->g_pat, .virt_ext = c->virt_ext,
	};
	memcpy(ctl.intercepts, c->intercepts, sizeof(ctl.intercepts));
	return ctl;
}

static struct svm_cached_save save_of(const struct vmcb_save *v)
{
	return (struct svm_cached_save){
		.cr0 = v->cr0, .cr3 = v->cr3, .cr4 = v->cr4, .efer = v->efer, .dr6 = v->dr6, .dr7 = v->dr7,
		.gdtr = v->gdtr, .idtr = v->idtr, .es = v->es, .cs = v->cs, .ss = v->ss, .ds = v->ds,
		.cpl = v->cpl, .cr2 = v->cr2,
	};
}

/* APM2 15.15: "the processor may use a cached copy of the group" when its
 * clean bit is 1 and the VMCB is the one the cache holds. hvemu caches exactly
 * what the bits allow in --tlb exact mode (an L1 that edits a field and leaves
 * its bit set sees the old value, as it may on silicon), and nothing under
 * --tlb flush. */
static void apply_clean_bits(const struct svm *s, uint32_t clean, struct entry_state *e)
{
	const struct svm_controls *cc = &s->cache_ctl;
	const struct svm_cached_save *cs = &s->cache_save;
	if (clean & (1u << SVM_CLEAN_I)) {
		memcpy(e->ctl.intercepts, cc->intercepts, sizeof(e->ctl.intercepts));
		e->ctl.tsc_offset = cc->tsc_offset;
		e->ctl.pause_filter_count = cc->pause_filter_count;
		e->ctl.pause_filter_threshold = cc->pause_filter_threshold;
	}
	if (clean & (1u << SVM_CLEAN_IOPM)) {
		e->ctl.iopm_base = cc->iopm_base;
		e->ctl.msrpm_base = cc->msrpm_base;
	}
	if (clean & (1u << SVM_CLEAN_ASID))
		e->ctl.asid = cc->asid;
	if (clean & (1u << SVM_CLEAN_TPR))
		e->ctl.vintr = cc->vintr;
	if (clean & (1u << SVM_CLEAN_NP)) {
		e->ctl.np_control = cc->np_control;
		e->ctl.ncr3 = cc->ncr3;
		e->ctl.g_pat = cc->g_pat;
	}
	if (clean & (1u << SVM_CLEAN_CRX)) {
		e->save.cr0 = cs->cr0;
		e->save.cr3 = cs->cr3;
		e->save.cr4 = cs->cr4;
		e->save.efer = cs->efer;
	}
	if (clean & (1u << SVM_CLEAN_DRX)) {
		e->save.dr6 = cs->dr6;
		e->save.dr7 = cs->dr7;
	}
	if (clean & (1u << SVM_CLEAN_DT)) {
		e->save.gdtr = cs->gdtr;
		e->save.idtr = cs->idtr;
	}
	if (clean & (1u << SVM_CLEAN_SEG)) {
		e->save.es = cs->es;
		e->save.cs = cs->cs;
		e->save.ss = cs->ss;
		e->save.ds = cs->ds;
		e->save.cpl = cs->cpl;
	}
	if (clean & (1u << SVM_CLEAN_CR2))
		e->save.cr2 = cs->cr2;
}

static void read_entry_state(const struct svm *s, const struct vmcb *v, struct entry_state *e)
{
	const struct vmcb_control *c = &v->control;
	*e = (struct entry_state){
		.ctl = controls_of(c, &v->save), .save = save_of(&v->save), .rflags = v->save.rflags,
		.rip = v->save.rip, .rsp = v->save.rsp, .rax = v->save.rax, .eventinj = c->eventinj,
		.interrupt_shadow = c->interrupt_shadow, .nrip = c->nrip, .tlb_control = c->tlb_control,
	};
	bool cache_usable = svm_feature(s, SVM_FEAT_VMCB_CLEAN) && !s->cpu->tlb_uncached &&
			    s->cache_valid && s->cache_pa == s->vmcb_pa;
	if (cache_usable && c->clean)
		apply_clean_bits(s, c->clean, e);
}

static void save_host(struct svm *s, uint64_t next_rip)
{
	struct cpu *cpu = s->cpu;
	struct svm_host_state *h = &s->host;
	h->es = cpu->seg[SR_ES];
	h->cs = cpu->seg[SR_CS];
	h->ss = cpu->seg[SR_SS];
	h->ds = cpu->seg[SR_DS];
	h->gdtr = cpu->gdtr;
	h->idtr = cpu->idtr;
	h->efer = cpu->efer;
	h->cr0 = cpu->cr0;
	h->cr3 = cpu->cr3;
	h->cr4 = cpu->cr4;
	h->rflags = cpu_get_flags(cpu);
	h->rip = next_rip;
	h->rsp = cpu->regs[R_SP];
	h->rax = cpu->regs[R_AX];
	memcpy(h->pdpte, cpu->pdpte, sizeof(h->pdpte));
	h->tsc_offset = cpu->tsc_offset;
	h->cr8 = cpu->cr8;
	h->pat = cpu->pat;
	h->tlb_space = cpu->tlb.space;
	h->tlb_pcid = cpu->tlb.pcid;
}

/* APM2 15.25.4: the nested tables have the format of the host's paging mode
 * at VMRUN: long mode (4- or 5-level by CR4.LA57) with EFER.LMA, PAE with
 * CR4.PAE, else 2-level; CR0.PG of the host does not enter (the format is a
 * property of the nested walk, as KVM and Bochs model it). */
static struct paging_env host_nested_format(const struct cpu *cpu)
{
	struct paging_env env = cpu_paging_env(cpu);
	if (cpu->efer & EFER_LMA)
		env.mode = (cpu->cr4 & CR4_LA57) ? PAGING_5LEVEL : PAGING_4LEVEL;
	else if (cpu->cr4 & CR4_PAE)
		env.mode = PAGING_PAE;
	else
		env.mode = PAGING_32;
	return env;
}

/* APM2 15.16 (TLB control), Table B-1 TLB_CONTROL. Reserved values, and 3 and
 * 7 without FlushByAsid, flush everything: a processor may always drop more
 * than asked (APM2 15.16.1); hvemu's choice for the reserved encodings. */
static void tlb_control(struct svm *s, uint8_t control, uint32_t asid)
{
	struct tlb *t = &s->cpu->tlb;
	bool by_asid = svm_feature(s, SVM_FEAT_FLUSH_BY_ASID);
	switch (control) {
	case SVM_TLB_DO_NOTHING:
		return;
	case SVM_TLB_FLUSH_ASID:
		if (by_asid) {
			tlb_flush_space(t, asid, false);
			return;
		}
		break;
	case SVM_TLB_FLUSH_ASID_NONGLOBAL:
		if (by_asid) {
			tlb_flush_space(t, asid, true);
			return;
		}
		break;
	default:
		break;
	}
	tlb_flush_all(t);
}

/* Load the guest of e into the CPU (APM2 15.5.1: ES, CS, SS, DS, GDTR, IDTR,
 * EFER, CR4, CR3, CR2, CR0, DR7, DR6, RFLAGS, RIP, RSP, RAX, CPL; the
 * controls). FS, GS, TR, LDTR and the system-call MSRs are VMLOAD's. */
static void load_guest(struct svm *s, const struct entry_state *e)
{
	struct cpu *cpu = s->cpu;
	const struct svm_cached_save *g = &e->save;

	seg_from_vmcb(&cpu->seg[SR_ES], &g->es);
	seg_from_vmcb(&cpu->seg[SR_CS], &g->cs);
	seg_from_vmcb(&cpu->seg[SR_SS], &g->ss);
	seg_from_vmcb(&cpu->seg[SR_DS], &g->ds);
	/* Descriptor-table limits are 16 bits (the VMCB field is wider). */
	cpu->gdtr = (struct dtr){ .base = g->gdtr.base, .limit = g->gdtr.limit & 0xffff };
	cpu->idtr = (struct dtr){ .base = g->idtr.base, .limit = g->idtr.limit & 0xffff };
	/* EFER.LMA follows EFER.LME and CR0.PG as after any write of them (the
	 * consistency checks rejected the illegal combinations). */
	cpu->efer = g->efer & ~(uint64_t)EFER_LMA;
	if ((g->efer & EFER_LME) && (g->cr0 & CR0_PG))
		cpu->efer |= EFER_LMA;
	cpu->cr0 = g->cr0 | CR0_ET;
	cpu->cr4 = g->cr4;
	cpu->cr3 = g->cr3;
	cpu->cr2 = g->cr2;
	cpu->dr[6] = (g->dr6 & 0xffffffffu) | 0xffff0ff0u;
	cpu->dr[7] = (g->dr7 & 0xffffffffu) | 0x400u;
	cpu->lazy.op = LAZY_NONE;
	cpu->rflags = (e->rflags & 0x3f7fd7u) | FLAG_FIXED1;
	cpu->rip = e->rip;
	cpu->regs[R_SP] = e->rsp;
	cpu->regs[R_AX] = e->rax;
	/* APM2 15.5.1: CPL comes from the VMCB's CPL field; real mode is CPL 0 and
	 * virtual-8086 mode CPL 3 whatever it holds (cpu_update_mode()). */
	cpu->cpl = g->cpl & 3;
	cpu->tsc_offset = s->host.tsc_offset + e->ctl.tsc_offset;
}

status_t svm_vmrun(struct svm *s, uint64_t vmcb_pa, uint64_t next_rip)
{
	struct cpu *cpu = s->cpu;
	struct entry_state e;

	s->vmcb_pa = vmcb_pa;
	s->vmcb = vmcb_map(s, vmcb_pa);
	read_entry_state(s, s->vmcb, &e);

	/* APM2 15.5.1: illegal guest state or controls: #VMEXIT(VMEXIT_INVALID);
	 * nothing of the guest was loaded, the host continues after VMRUN with
	 * GIF = 0 (APM2 15.6). */
	struct svm_entry_view view = { .ctl = &e.ctl, .save = &e.save, .rflags = e.rflags,
				       .eventinj = e.eventinj };
	const char *failed = svm_consistency_check(s, &view);
	if (failed) {
		struct vmcb_control *c = &s->vmcb->control;
		c->exitcode = SVM_EXIT_INVALID;
		c->exitinfo1 = c->exitinfo2 = c->exitintinfo = 0;
		bool observed = cpu->exit_observer != NULL;
		if (observed)
			svm_fill_invalid_report(s, s->vmcb, failed);
		vmcb_written(s);
		cpu->gif = false;
		s->cache_valid = false;
		cpu_attend(cpu, ATT_EVENT);
		if (observed)
			exit_report_send(cpu, &s->report);
		return ST_VMEXIT;
	}

	s->ctl = e.ctl;
	save_host(s, next_rip);
	struct paging_env host_env = host_nested_format(cpu);
	load_guest(s, &e);
	svm_vintr_load(s, e.ctl.vintr);
	if (e.ctl.np_control & SVM_NP_ENABLE) {
		cpu->stage2 = nested_npt_env(&host_env, e.ctl.ncr3);
		cpu->stage2_on = true;
		cpu->pat = e.ctl.g_pat;   /* APM2 15.25.8: the guest's PAT is G_PAT */
	}
	tlb_control(s, e.tlb_control, e.ctl.asid);
	tlb_select(&cpu->tlb, e.ctl.asid, (cpu->cr4 & CR4_PCIDE) ? (uint16_t)(cpu->cr3 & 0xfff) : 0);
	cpu->in_guest = true;
	cpu->gif = true;
	cpu->shadow = (e.interrupt_shadow & SVM_INTERRUPT_SHADOW) ? SHADOW_STI : 0;
	s->pause_count = e.ctl.pause_filter_count;
	s->last_pause = cpu_now(cpu);
	s->entered_at = cpu_now(cpu);
	cpu_world_switched(cpu);

	/* The guest's PAE PDPTEs (SDM Vol.3 4.4.1; AMD processors load them with
	 * CR3 too). Without NP a reserved bit makes the guest state illegal, as
	 * KVM's nested VMRUN has it; with NP nothing is loaded (APM2 15.25.10: the
	 * walk reads them from guest memory, and a reserved bit faults there), so
	 * APM2 15.5.1's list, which has no PDPTE check, is the whole story. */
	status_t st = cpu_load_pdptes(cpu);
	if (st == ST_VMEXIT)
		return st;
	if (st != ST_OK) {
		cpu->event.pending = false;
		struct svm_exit x = { .code = SVM_EXIT_INVALID, .guest_rip = e.rip,
				      .failed_check = "guest PAE PDPTE with a reserved bit set (SDM Vol.3 4.4.1)" };
		return svm_vmexit(s, &x);
	}

	/* APM2 15.20: the event is taken before the first guest instruction. */
	if (e.eventinj & SVM_EVENT_VALID) {
		s->vmcb->control.eventinj &= ~(uint64_t)SVM_EVENT_VALID;
		return svm_inject(s, e.eventinj, e.nrip, e.rip);
	}
	return ST_VMEXIT;
}

/* ---- #VMEXIT ---- */

/* The guest's state into the VMCB (APM2 15.6: "the processor saves the
 * current guest state", the same fields VMRUN loaded, plus the interrupt
 * shadow, V_TPR, V_IRQ and, with NP, G_PAT). guest_rip: where the guest
 * resumes (an intercepted instruction did not execute). */
static void save_guest(struct svm *s, uint64_t guest_rip)
{
	struct cpu *cpu = s->cpu;
	struct vmcb_save *v = &s->vmcb->save;
	struct vmcb_control *c = &s->vmcb->control;
	v->es = seg_to_vmcb(&cpu->seg[SR_ES]);
	v->cs = seg_to_vmcb(&cpu->seg[SR_CS]);
	v->ss = seg_to_vmcb(&cpu->seg[SR_SS]);
	v->ds = seg_to_vmcb(&cpu->seg[SR_DS]);
	v->gdtr = dtr_to_vmcb(&cpu->gdtr);
	v->idtr = dtr_to_vmcb(&cpu->idtr);
	v->efer = cpu->efer;
	v->cr4 = cpu->cr4;
	v->cr3 = cpu->cr3;
	v->cr2 = cpu->cr2;
	v->cr0 = cpu->cr0;
	v->dr7 = cpu->dr[7];
	v->dr6 = cpu->dr[6];
	v->rflags = cpu_get_flags(cpu);
	v->rip = guest_rip;
	v->rsp = cpu->regs[R_SP];
	v->rax = cpu->regs[R_AX];
	v->cpl = cpu->cpl;
	if (s->ctl.np_control & SVM_NP_ENABLE)
		v->g_pat = cpu->pat;
	/* APM2 15.21.5: the shadow of the guest's last STI / MOV SS, and its IF. */
	c->interrupt_shadow = ((cpu->shadow | cpu->insn_shadow) ? SVM_INTERRUPT_SHADOW : 0) |
			      ((v->rflags & FLAG_IF) ? SVM_GUEST_INTERRUPT_MASK : 0);
	c->vintr = svm_vintr_save(s, c->vintr);
}

/* The host of save_host() back (APM2 15.6: "reloads the host state ... CPL 0,
 * DR7 with all breakpoints disabled, GIF 0"). */
static void load_host(struct svm *s)
{
	struct cpu *cpu = s->cpu;
	const struct svm_host_state *h = &s->host;
	cpu->seg[SR_ES] = h->es;
	cpu->seg[SR_CS] = h->cs;
	cpu->seg[SR_SS] = h->ss;
	cpu->seg[SR_DS] = h->ds;
	cpu->gdtr = h->gdtr;
	cpu->idtr = h->idtr;
	cpu->efer = h->efer;
	cpu->cr0 = h->cr0 | CR0_PE;
	cpu->cr4 = h->cr4;
	cpu->cr3 = h->cr3;
	memcpy(cpu->pdpte, h->pdpte, sizeof(cpu->pdpte));
	cpu->lazy.op = LAZY_NONE;
	cpu->rflags = h->rflags;
	cpu->rip = h->rip;
	cpu->regs[R_SP] = h->rsp;
	cpu->regs[R_AX] = h->rax;
	cpu->dr[7] = 0x400;
	cpu->cpl = 0;
	cpu->tsc_offset = h->tsc_offset;
	cpu->cr8 = h->cr8;
	cpu->pat = h->pat;
	cpu->shadow = 0;
	cpu->stage2_on = false;
	cpu->in_guest = false;
	cpu->gif = false;
	cpu->vectoring_valid = false;
	cpu->intr_masking = INTR_MASK_IF;
	cpu->vintr = (struct virtual_intr){ 0 };
	tlb_select(&cpu->tlb, h->tlb_space, h->tlb_pcid);
	cpu_world_switched(cpu);
}

/* What the clean bits may reuse at the next VMRUN of this VMCB: the controls
 * VMRUN latched and the guest state as the #VMEXIT left it. */
static void fill_cache(struct svm *s)
{
	const struct vmcb *v = s->vmcb;
	s->cache_ctl = s->ctl;
	s->cache_ctl.vintr = v->control.vintr;
	s->cache_save = save_of(&v->save);
	s->cache_pa = s->vmcb_pa;
	s->cache_valid = true;
}

status_t svm_vmexit(struct svm *s, const struct svm_exit *x)
{
	struct cpu *cpu = s->cpu;
	struct vmcb_control *c = &s->vmcb->control;

	save_guest(s, x->guest_rip);
	c->exitcode = x->code;
	c->exitinfo1 = x->info1;
	c->exitinfo2 = x->info2;
	c->exitintinfo = x->intinfo;
	/* APM2 15.7.1: with NRIP_SAVE, the next sequential instruction pointer of
	 * an intercepted instruction; 0 for other exits (hvemu's choice: the APM
	 * defines the field for instruction intercepts only). */
	if (svm_feature(s, SVM_FEAT_NRIP_SAVE))
		c->nrip = x->nrip;
	/* APM2 15.33 (decode assists): the bytes of the instruction behind a #PF
	 * or #NPF intercept, insn_len 0 for other exits. */
	if (svm_feature(s, SVM_FEAT_DECODE_ASSISTS)) {
		c->insn_len = x->insn_len;
		memcpy(c->insn_bytes, x->insn_bytes, sizeof(c->insn_bytes));
	}
	bool observed = cpu->exit_observer != NULL;
	if (observed)
		svm_fill_report(s, x);
	vmcb_written(s);
	load_host(s);
	if (!svm_feature(s, SVM_FEAT_VMCB_CLEAN) || cpu->tlb_uncached)
		s->cache_valid = false;
	else
		fill_cache(s);
	if (observed)
		exit_report_send(cpu, &s->report);
	return ST_VMEXIT;
}
