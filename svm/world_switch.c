/* The world switch: VMRUN into the guest, #VMEXIT back to the host (APM2
 * 15.5, 15.6).
 *
 *   svm_vmrun   the VMCB -> the entry state (clean groups from the cache,
 *               APM2 15.15) -> consistency checks (consistency.c; a failure is
 *               #VMEXIT(VMEXIT_INVALID)) -> save the host -> load the guest,
 *               the TLB context of its ASID, nested paging, virtual interrupts,
 *               the interrupt shadow -> GIF = 1 -> EVENTINJ (events.c)
 *   svm_vmexit  (--perturb-exits: what the APM leaves undefined in the exit
 *               information randomised, exit_perturb.c) the guest's state
 *               and the exit information into the VMCB -> the cache for
 *               clean bits -> load the host -> GIF = 0
 *
 * The guest state and the clean groups move by the rows of
 * svm/vmcb_fields.def (svm/vmcb_rows.h, through emu/world_state.h); what is
 * by hand here is what depends on a control (G_PAT, the TSC offset, V_INTR,
 * the interrupt shadow) and the host, whose save area is the processor's own
 * (APM2 15.30.4). Neither direction decodes anything or touches a TLB entry:
 * the decoded blocks are keyed by physical address and the TLB by context, so
 * a VMMCALL round trip only switches the TLB's current context (mmu/tlb.h)
 * and state.
 */
#include <string.h>

#include "emu/event_step.h"
#include "emu/insn.h"
#include "emu/flags.h"
#include "emu/paging_env.h"
#include "emu/perturb_random.h"
#include "mmu/nested.h"
#include "svm/exit_codes.h"
#include "svm/exit_perturb.h"
#include "svm/model.h"
#include "svm/vmcb_rows.h"

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

/* The fields VMRUN reads, into s->entry. APM2 15.15: "the processor may use
 * a cached copy of the group" when its clean bit is 1 and the VMCB is the one
 * the cache holds. hvemu caches exactly what the bits allow in --tlb exact
 * mode (an L1 that edits a field and leaves its bit set sees the old value,
 * as it may on silicon), and nothing under --tlb flush. */
static void read_entry_state(struct svm *s, const struct vmcb *v)
{
	bool cache_usable = svm_feature(s, SVM_FEAT_VMCB_CLEAN) && !s->cpu->tlb_uncached &&
			    s->cache_valid && s->cache_pa == s->vmcb_pa;
	vmcb_rows_read(&s->entry, v, &s->cache, cache_usable ? v->control.clean : 0);
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

/* Load the guest of the entry image into the CPU (APM2 15.5.1: ES, CS, SS,
 * DS, GDTR, IDTR, EFER, CR4, CR3, CR2, CR0, DR7, DR6, RFLAGS, RIP, RSP, RAX,
 * CPL: the R rows with a slot). FS, GS, TR, LDTR and the system-call MSRs are
 * VMLOAD's. APM2 15.5.1: CPL comes from the VMCB's CPL field; real mode is
 * CPL 0 and virtual-8086 mode CPL 3 whatever it holds (cpu_update_mode()). */
static void load_guest(struct svm *s, const struct svm_controls *ctl)
{
	struct cpu *cpu = s->cpu;
	vmcb_rows_load(cpu, &s->entry);
	cpu->tsc_offset = s->host.tsc_offset + ctl->tsc_offset;
}

status_t svm_vmrun(struct svm *s, uint64_t vmcb_pa, uint64_t next_rip)
{
	struct cpu *cpu = s->cpu;

	s->vmcb_pa = vmcb_pa;
	s->vmcb = vmcb_map(s, vmcb_pa);
	read_entry_state(s, s->vmcb);
	const struct vmcb *e = &s->entry;
	/* Latched from here on (nothing reads them outside a guest, and VMRUN is
	 * always intercepted in one). */
	s->ctl = controls_of(&e->control, &e->save);
	const struct svm_controls *ctl = &s->ctl;

	/* APM2 15.5.1: illegal guest state or controls: #VMEXIT(VMEXIT_INVALID);
	 * nothing of the guest was loaded, the host continues after VMRUN with
	 * GIF = 0 (APM2 15.6). */
	struct svm_entry_view view = { .ctl = ctl, .save = &e->save, .rflags = e->save.rflags,
				       .eventinj = e->control.eventinj };
	const char *failed = svm_consistency_check(s, &view);
	if (failed) {
		struct vmcb_control *c = &s->vmcb->control;
		c->exitcode = svm_quirk_exitcode(s, SVM_EXIT_INVALID);
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

	save_host(s, next_rip);
	struct paging_env host_env = host_nested_format(cpu);
	load_guest(s, ctl);
	svm_vintr_load(s, ctl->vintr);
	if (ctl->np_control & SVM_NP_ENABLE) {
		cpu->stage2 = nested_npt_env(&host_env, ctl->ncr3);
		cpu->stage2_on = true;
		cpu->pat = ctl->g_pat;   /* APM2 15.25.8: the guest's PAT is G_PAT */
	}
	tlb_control(s, e->control.tlb_control, ctl->asid);
	cpu->gif = true;
	cpu->shadow = (e->control.interrupt_shadow & SVM_INTERRUPT_SHADOW) ? SHADOW_STI : 0;
	s->pause_count = ctl->pause_filter_count;
	s->last_pause = cpu_now(cpu);
	s->entered_at = cpu_now(cpu);

	/* Into the TLB context of the guest's ASID, with the guest's PAE PDPTEs
	 * (SDM Vol.3 4.4.1; AMD processors load them with CR3 too). Without NP a
	 * reserved bit makes the guest state illegal, as KVM's nested VMRUN has
	 * it; with NP nothing is loaded (APM2 15.25.10: the walk reads them from
	 * guest memory, and a reserved bit faults there), so APM2 15.5.1's list,
	 * which has no PDPTE check, is the whole story. */
	status_t st = cpu_enter_guest(cpu, ctl->asid, NULL);
	if (st == ST_VMEXIT)
		return st;
	if (st != ST_OK) {
		cpu->event.pending = false;
		struct svm_exit x = { .code = SVM_EXIT_INVALID, .guest_rip = e->save.rip,
				      .failed_check = "guest PAE PDPTE with a reserved bit set (SDM Vol.3 4.4.1)" };
		return svm_vmexit(s, &x);
	}

	/* --perturb-exits' exit timing: with the INTR intercept, an interrupt
	 * may come and go while the guest runs (emu/event_step.h); the exit it
	 * causes is the one 15.13.1 describes, with nothing pending after it. */
	if (__builtin_expect(s->spurious_intr != 0, 0) && svm_intercepted(s, SVM_INTERCEPT_INTR))
		cpu_spurious_intr_after(cpu, perturb_spurious_intr_delay(&s->spurious_intr));

	/* APM2 15.20: the event is taken before the first guest instruction. */
	uint64_t eventinj = e->control.eventinj;
	if (eventinj & SVM_EVENT_VALID) {
		s->vmcb->control.eventinj &= ~(uint64_t)SVM_EVENT_VALID;
		return svm_inject(s, eventinj, e->control.nrip, e->save.rip);
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
	cpu->rip = guest_rip;
	vmcb_rows_save(cpu, s->vmcb);
	/* GDTR and IDTR have no selector or attributes (APM2 Table B-2): those
	 * reserved words read 0 after a #VMEXIT, as hvemu has always written them. */
	v->gdtr.selector = v->gdtr.attrib = v->idtr.selector = v->idtr.attrib = 0;
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
	/* The host ran with CR0.PE = 1 (VMRUN is #UD outside protected mode). */
	cpu_set_control_regs(cpu, h->cr0 | CR0_PE, h->cr3, h->cr4, h->efer);
	memcpy(cpu->pdpte, h->pdpte, sizeof(cpu->pdpte));
	cpu_set_rflags(cpu, h->rflags);
	cpu->rip = h->rip;
	cpu->regs[R_SP] = h->rsp;
	cpu->regs[R_AX] = h->rax;
	cpu->dr[7] = 0x400;            /* every breakpoint disabled (DR7's fixed bit 10) */
	cpu->cpl = 0;
	cpu->tsc_offset = h->tsc_offset;
	cpu->cr8 = h->cr8;
	cpu->pat = h->pat;
	cpu->gif = false;
	cpu_leave_guest(cpu, h->tlb_space, h->tlb_pcid);
}

/* What the clean bits may reuse at the next VMRUN of this VMCB: the controls
 * VMRUN latched and the guest state as the #VMEXIT left it. */
static void fill_cache(struct svm *s)
{
	vmcb_rows_fill_cache(&s->cache, s->vmcb, &s->entry);
	s->cache_pa = s->vmcb_pa;
	s->cache_valid = true;
}

status_t svm_vmexit(struct svm *s, const struct svm_exit *x)
{
	struct cpu *cpu = s->cpu;
	struct vmcb_control *c = &s->vmcb->control;
	struct svm_exit odd;
	unsigned perturbed = 0;
	if (__builtin_expect(s->perturb != 0, 0)) {
		struct svm_perturb_ctx pc = { .decode_assists = svm_feature(s, SVM_FEAT_DECODE_ASSISTS) };
		odd = *x;
		perturbed = svm_perturb_exit(&s->perturb, &pc, &odd);
		if (perturbed)
			s->perturbed_exits++;
		x = &odd;
	}

	save_guest(s, x->guest_rip);
	c->exitcode = svm_quirk_exitcode(s, x->code);
	c->exitinfo1 = x->info1;
	c->exitinfo2 = x->info2;
	c->exitintinfo = x->intinfo;
	/* APM2 15.7.1: with NRIP_SAVE, the next sequential instruction pointer of
	 * instruction, MSR and IOIO intercepts and of INT3/INTO/BOUND exceptions;
	 * "For all other intercepts, nRIP is reset to zero". */
	if (svm_feature(s, SVM_FEAT_NRIP_SAVE))
		c->nrip = x->nrip;
	/* APM2 15.8.4 (decode assists): the bytes of the instruction behind a #PF
	 * or #NPF intercept, insn_len 0 for other exits. */
	if (svm_feature(s, SVM_FEAT_DECODE_ASSISTS)) {
		c->insn_len = x->insn_len;
		memcpy(c->insn_bytes, x->insn_bytes, sizeof(c->insn_bytes));
	}
	bool observed = cpu->exit_observer != NULL;
	if (observed)
		svm_fill_report(s, x, perturbed);
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
