/* The SVM model's state and the parts it is made of (inside svm/ only; the
 * machine sees svm/svm.h).
 *
 *   instructions.c   VMRUN, VMLOAD, VMSAVE, STGI, CLGI, VMMCALL, INVLPGA, SKINIT:
 *                    their #UD/#GP rules and, in a guest, their intercepts
 *   world_switch.c   VMRUN: save the host, load controls and guest, enter;
 *                    #VMEXIT: save the guest, write the exit, load the host
 *   consistency.c    the VMRUN checks of APM2 15.5.1, as a table
 *   intercepts.c     an exit record (emu/exit_record.h) -> intercepted? ->
 *                    EXITCODE, EXITINFO1/2 (APM2 15.7-15.14, Appendix C)
 *   events.c         EVENTINJ, EXITINTINFO, virtual interrupts (APM2 15.20-15.21)
 *   quirks.c         how the quirks of emu/quirks.def change SVM's encoding
 *   exit_perturb.c   --perturb-exits: what the APM leaves undefined in a
 *                    #VMEXIT, seeded random (exit_perturb.h)
 */
#ifndef HVEMU_SVM_MODEL_H
#define HVEMU_SVM_MODEL_H

#include "emu/hv.h"
#include "svm/capabilities.h"
#include "svm/svm.h"
#include "svm/vmcb.h"

/* What VMRUN saves of the host and #VMEXIT restores (APM2 15.5.1: "a subset
 * of host processor state"). APM2 15.30.4 leaves the layout of the host save
 * area to the implementation and forbids software to touch it: hvemu keeps
 * the state here, in the processor, and never reads VM_HSAVE_PA's page. */
struct svm_host_state {
	struct segment es, cs, ss, ds;
	struct dtr gdtr, idtr;
	uint64_t efer, cr0, cr3, cr4, rflags, rip, rsp, rax;
	uint64_t pdpte[4];
	uint64_t tsc_offset;       /* the host's own TSC offset (its L0's) */
	uint64_t cr8;              /* the host TPR, kept while V_INTR_MASKING virtualises CR8 */
	uint64_t pat;              /* the host PAT, while nested paging gives the guest G_PAT */
	uint64_t tlb_space;        /* the TLB space and PCID the host ran in */
	uint16_t tlb_pcid;
};

/* Control fields latched at VMRUN, decoded from s->entry: what the processor
 * works from while the guest runs (the VMCB itself may change under it). */
struct svm_controls {
	uint32_t intercepts[SVM_IW_COUNT];
	uint16_t pause_filter_count, pause_filter_threshold;
	uint64_t tsc_offset;
	uint64_t iopm_base, msrpm_base;
	uint32_t asid;
	uint64_t vintr;            /* the 0x060 word */
	uint64_t np_control, ncr3, g_pat;
	uint64_t virt_ext;
};

struct svm {
	struct cpu *cpu;
	struct hv_model ops;
	uint32_t features;         /* CPUID Fn8000_000A EDX (enum svm_feature) */
	uint32_t nasid;            /* Fn8000_000A EBX: ASIDs 1..nasid-1 are the guests' */
	uint64_t quirks;           /* QUIRK_BIT()s (emu/quirks.h) */
	uint64_t cr4_valid, efer_valid;  /* the CPU's CR4 and EFER bits (CPUID is fixed once
					    the model is installed): the MBZ checks' masks */

	/* The guest running (cpu->in_guest), or last run. */
	uint64_t vmcb_pa;
	struct vmcb *vmcb;         /* in RAM: the guest's page itself; else &shadow */
	struct vmcb shadow;        /* a VMCB outside RAM, copied in and out */
	struct svm_controls ctl;
	struct svm_host_state host;
	uint64_t entered_at;       /* virtual time of the VMRUN */
	bool vgif;                 /* the guest's virtual GIF (APM2 15.33.2), with V_GIF_ENABLE */
	bool vgif_enabled;
	bool vintr_held;           /* a V_IRQ held back while the virtual GIF is 0 */
	uint16_t pause_count;      /* the PAUSE filter counter (APM2 15.14.4) */
	uint64_t last_pause;       /* virtual time of the last PAUSE */

	/* What VMRUN read (VMCB layout, the R rows only): the VMCB's fields or, for
	 * a clean group, the cache's; the controls stay latched here until the
	 * #VMEXIT (svm/vmcb_rows.h). */
	struct vmcb entry;
	/* VMCB clean bits (APM2 15.15): what the last #VMEXIT of cache_pa left
	 * (VMCB layout, the clean-covered R rows only). */
	bool cache_valid;
	uint64_t cache_pa;
	struct vmcb cache;

	/* exit_perturb.c (--perturb-exits): the generator's state (0: off) and
	 * the #VMEXITs it changed. */
	uint64_t perturb;
	uint64_t spurious_intr;     /* the spurious interrupts' timing (emu/perturb_random.h) */
	uint64_t perturbed_exits;

	struct vm_exit_report report;  /* the last exit, for the observer */
	char report_name[40];
	uint64_t report_name_code;     /* the code report_name spells */
};

static inline bool svm_feature(const struct svm *s, enum svm_feature f)
{
	return svm_has(s->features, f);
}

static inline bool svm_intercepted(const struct svm *s, enum svm_intercept i)
{
	unsigned n = (unsigned)i;
	return (s->ctl.intercepts[n / 32] >> (n % 32)) & 1u;
}

/* instructions.c */
status_t svm_vm_insn(void *ctx, struct cpu *cpu, const struct insn *in, enum intercept_kind kind);
/* Load/store the VMLOAD/VMSAVE state at pa (APM2 15.5.2). */
void svm_vmload_state(struct svm *s, uint64_t pa);
void svm_vmsave_state(struct svm *s, uint64_t pa);

/* world_switch.c */
/* VMRUN after its #UD/#GP checks: rAX's VMCB, next_rip the host's return. */
status_t svm_vmrun(struct svm *s, uint64_t vmcb_pa, uint64_t next_rip);

/* A #VMEXIT: the exit code and information (APM2 15.7, Appendix C). */
struct svm_exit {
	uint64_t code, info1, info2;
	uint64_t intinfo;          /* EXITINTINFO (APM2 15.7.2), 0: none */
	uint64_t nrip;             /* next sequential RIP (NRIP_SAVE), 0 if none */
	uint64_t guest_rip;        /* where the guest resumes */
	uint8_t insn_len;          /* decode assists: guest instruction bytes */
	uint8_t insn_bytes[15];
	const char *failed_check;  /* VMEXIT_INVALID: the failed check */
};
/* Save the guest, write the exit, load the host (APM2 15.6). ST_VMEXIT. */
status_t svm_vmexit(struct svm *s, const struct svm_exit *x) CHECKED;

/* exit_report.c: the observer's report of an exit just written to the VMCB
 * (call while the guest's state is still loaded; perturbed: what
 * svm_perturb_exit() changed, enum svm_perturbed_field), and of a VMRUN that
 * failed its checks (the guest never ran: its CS:RIP from the VMCB). */
void svm_fill_report(struct svm *s, const struct svm_exit *x, unsigned perturbed);
void svm_fill_invalid_report(struct svm *s, const struct vmcb *v, const char *failed_check);

/* consistency.c: NULL if the guest state and controls VMRUN is about to
 * load are legal, else the first failed check, named with its APM section. */
struct svm_entry_view {
	const struct svm_controls *ctl;
	const struct vmcb_save *save;      /* the guest state VMRUN read (clean groups applied) */
	uint64_t rflags, eventinj;
};
const char *svm_consistency_check(const struct svm *s, const struct svm_entry_view *e);

/* intercepts.c */
status_t svm_intercept(void *ctx, struct cpu *cpu, struct exit_record *rec);

/* events.c */
/* EVENTINJ / EXITINTINFO word of an event (APM2 15.20). */
uint64_t svm_event_word(const struct event *ev);
/* NULL if the EVENTINJ word may be injected, else why not (APM2 15.20). */
const char *svm_eventinj_check(uint64_t eventinj);
/* Deliver EVENTINJ into the just-entered guest at rip; nrip is the VMCB's
 * NRIP (the return address of an injected software interrupt). */
status_t svm_inject(struct svm *s, uint64_t eventinj, uint64_t nrip, uint64_t rip) CHECKED;
/* Latch the virtual-interrupt controls of the 0x060 word into the CPU. */
void svm_vintr_load(struct svm *s, uint64_t vintr);
/* The 0x060 word as the guest leaves it (V_TPR, V_IRQ, V_GIF written back). */
uint64_t svm_vintr_save(struct svm *s, uint64_t vintr);
/* A guest's MOV to/from CR8 no intercept took (r: CR_ACCESS, CR8): V_TPR with
 * V_INTR_MASKING (ST_HANDLED), else ST_OK, the core's TPR. */
status_t svm_vintr_cr8(struct svm *s, struct exit_record *r) CHECKED;
/* The guest's STGI/CLGI with the virtual GIF (APM2 15.33.2). */
void svm_vgif_set(struct svm *s, bool gif);

/* quirks.c: EXITINFO2 of an intercepted #PF (APM2 15.12: the faulting
 * linear address), as the installed quirks report it. */
uint64_t svm_quirk_pf_exitinfo2(const struct svm *s, const struct event *ev);
/* The EXITCODE written to the VMCB (APM2 Appendix C: VMEXIT_INVALID is -1). */
uint64_t svm_quirk_exitcode(const struct svm *s, uint64_t code);
/* IOIO's EXITINFO1 (APM2 15.10.2: with the address-size bits A16/A32/A64). */
uint64_t svm_quirk_ioio_info(const struct svm *s, uint64_t info);
/* The instruction kind whose intercept bit and exit code apply (APM2 15.9:
 * each instruction its own). */
unsigned svm_quirk_insn_kind(const struct svm *s, unsigned kind);
/* EVENTINJ: an injected #BP/#OF is delivered as a plain exception, without
 * INT3/INTO's gate DPL check (APM2 15.20: it behaves as INT3/INTO). */
bool svm_quirk_eventinj_plain(const struct svm *s);
/* EVENTINJ: EV is dropped for an exception that has no error code (APM2
 * 15.20: EV pushes ERRORCODE whatever the vector). */
bool svm_quirk_eventinj_drops_error(const struct svm *s, const struct event *ev);
/* The exception intercept of vector is not looked at (APM2 15.12: each of
 * vectors 0-31 has one). */
bool svm_quirk_exception_unchecked(const struct svm *s, unsigned vector);
/* The task-switch intercept is not looked at (APM2 15.14.1: it is). */
bool svm_quirk_no_task_switch_intercept(const struct svm *s);

#endif
