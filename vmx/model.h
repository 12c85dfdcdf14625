/* The VMX model's state and the parts it is made of (inside vmx/ only; the
 * machine sees vmx/vmx.h). The mirror of svm/model.h:
 *
 *   vmx.c            install on a CPU: the hypervisor seam, the capability MSRs
 *   instructions.c   VMXON ... VMFUNC: their #UD/#GP rules, VMsucceed/VMfail
 *                    (SDM Vol.3 30.2, 30.3); VMX operation's CR0/CR4 rule (23.8)
 *   vmcs.c           the VMCS: VMREAD/VMWRITE by encoding, launch state, the
 *                    processor's copy of the current VMCS (SDM Vol.3 24.11)
 *   consistency.c    the VM-entry checks on the controls and the host state as
 *                    check-table rows (SDM Vol.3 26.2)
 *   guest_checks.c   the VM-entry checks on the guest state (26.3.1); both
 *                    see the VMCS through check_view.h
 *   intercepts.c     which events are VM exits under the current VMCS and
 *                    the exit information they write (SDM Vol.3 25.1, 27.2)
 *   world_switch.c   VM entry (26.3.2-26.7) and VM exit (27.2-27.7), the TLB
 *                    context (VPID, EP4TA) and EPT, and the seam's intercept hook
 *   events.c         VM-entry event injection (26.6), the interruption-
 *                    information format of the exit's event fields; the
 *                    boundary rows a guest exits by (windows, MTF, TPR
 *                    threshold), virtual NMIs, the HLT activity state
 *   virtual_apic.c   the virtual-APIC page and the interrupt side of APIC
 *                    virtualization: TPR, PPR, EOI and self-IPI
 *                    virtualization, virtual-interrupt delivery, posted-
 *                    interrupt processing (SDM Vol.3 29.1, 29.2, 29.6;
 *                    declared in virtual_apic.h)
 *   exit_report.c    the exit report of --trace vmexit / --stats
 *   pml.c            page-modification logging (28.2.5): the EPT walker's hook
 */
#ifndef HVEMU_VMX_MODEL_H
#define HVEMU_VMX_MODEL_H

#include "emu/check_table.h"
#include "emu/hv.h"
#include "vmx/capabilities.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_fields.h"
#include "vmx/vmx.h"

/* The current-VMCS pointer when there is none (SDM Vol.3 24.1:
 * FFFFFFFF_FFFFFFFFH), also the VMCS link pointer's "none". */
#define VMCS_POINTER_INVALID UINT64_MAX


/* The processor's copy of the current VMCS (SDM Vol.3 24.11.1: "a logical
 * processor may maintain some VMCS data of an active VMCS on the processor
 * and not in the VMCS region"). hvemu keeps all of it here from VMPTRLD until
 * VMCLEAR (or a VMPTRLD of another VMCS) writes it back, so an L1 that edits
 * the region in memory instead of using VMWRITE does not see the edit while
 * the VMCS is current, and VMCLEAR overwrites it. With --tlb flush
 * (cpu->tlb_uncached) nothing is kept: every access reads and writes the
 * region, as a processor that caches nothing would. A shadow VMCS reached by
 * L2's VMREAD/VMWRITE (VMCS shadowing) is not current and has no copy here:
 * it is accessed in its region (vmcs.c vmcs_vmread_at). */
struct vmcs_cache {
	uint64_t pa;               /* current-VMCS pointer, VMCS_POINTER_INVALID: none */
	bool launched;             /* launch state: false clear, true launched (24.1) */
	bool shadow;               /* the region's shadow-VMCS indicator (24.2) */
	uint64_t field[VMCS_ROW_COUNT];   /* by vmx/vmcs_fields.def row, at the field's width */
};

struct vmx {
	struct cpu *cpu;
	struct hv_model ops;
	uint64_t quirks;           /* QUIRK_BIT()s (emu/quirks.h) */
	/* The capability MSRs 480H-493H (SDM Vol.3 Appendix A) as the CPU model
	 * has them, read at creation; one the part lacks is 0 here (no control
	 * allowed). vmx_cap() reads them by index. */
	uint64_t caps[MSR_VMX_LAST - MSR_VMX_FIRST + 1];
	/* Which fields of vmx/vmcs_fields.def this processor has (vmcs.c
	 * vmcs_fields_init: SDM Vol.3 A.9 and Appendix B's "exists only on
	 * processors that support ..."). */
	bool field_exists[VMCS_ROW_COUNT];
	bool vmx_operation;        /* VMXON ... VMXOFF (root operation unless cpu->in_guest) */
	uint64_t vmxon_ptr;        /* the VMXON pointer (SDM Vol.3 30.3 VMXON) */
	struct vmcs_cache vmcs;

	/* world_switch.c: the guest running (cpu->in_guest) or last run. */
	uint64_t host_tsc_offset;  /* L1's own TSC offset, back at the VM exit */
	uint64_t guest_space;      /* the guest's TLB space: VPID and EP4TA (SDM Vol.3 28.1, 28.3.1) */
	bool vpid_off;             /* "enable VPID" 0: entry and exit drop VPID 0's mappings (28.3.3.1) */
	uint64_t entered_at;       /* virtual time of the VM entry */
	struct vm_exit_report report;  /* exit_report.c: the last exit or failed entry */
	/* exit_perturb.c (--perturb-exits): the generator's state (0: off) and
	 * how many exits it changed. */
	uint64_t perturb;
	uint64_t spurious_intr;     /* the spurious interrupts' timing (emu/perturb_random.h) */
	uint64_t perturbed_exits;
	char report_name[48];

	/* PAUSE-loop exiting (SDM Vol.3 25.1.3, intercepts.c): the virtual time
	 * (TSC rate) of the last PAUSE at CPL 0 and of the first of its loop;
	 * pause_loop false: the next one starts a loop (as after VM entry). */
	bool pause_loop;
	uint64_t pause_last, pause_first;

	/* pml.c: the page-modification log hook the guest's stage 2 calls. */
	struct ept_dirty_log pml;

	/* consistency.c, guest_checks.c: what VM entry knows of its checks
	 * (emu/check_table.h struct check_memo), one memo per table (enum
	 * vmx_check_table), inputs the VMCS rows: a real processor keeps the
	 * current VMCS on chip and knows which fields changed since the last
	 * entry. checking: the memo of the table being evaluated (check_view.h
	 * field() records into it), NULL otherwise. The capability MSRs and
	 * MAXPHYADDR the memos were built under (a change forgets them). */
	struct check_memo check_memo[3];
	struct check_memo *checking;
	uint64_t checked_caps[MSR_VMX_LAST - MSR_VMX_FIRST + 1];
	uint8_t checked_maxphyaddr;
	bool checked_lma;          /* IA32_EFER.LMA at the last entry (input VMX_CHECK_INPUT_LMA) */

	/* world_switch.c: the host's segment registers as a VM exit loads them
	 * (27.5.2), built from the host-state area and the VM-exit controls
	 * once and kept while those fields are unchanged (vmx_vmcs_changed);
	 * never kept under --tlb flush. */
	struct {
		bool valid;
		struct segment seg[SR_COUNT], tr, ldtr;
	} host_segments;

	/* events.c: the boundary events of the guest running. */
	bool guest_halted;         /* L2 waits in the HLT activity state (24.4.2) */
	bool mtf_injected;         /* the entry injected a pending MTF VM exit (26.6.2) */

	/* virtual_apic.c: a trap-like VM exit of the instruction that completed
	 * (EOI-induced, 29.1.4), taken by the TPR-threshold boundary row; 0:
	 * none. */
	uint32_t trap_exit_reason;
	uint64_t trap_exit_qualification;
};

/* A capability MSR's value (MSR_VMX_BASIC ... MSR_VMX_EXIT_CTLS2). */
static inline uint64_t vmx_cap(const struct vmx *v, uint32_t msr)
{
	return v->caps[msr - MSR_VMX_FIRST];
}

/* May control bit `bit` of a 32-bit control field be 1? (The allowed-1 half
 * of its capability MSR, SDM Vol.3 A.3-A.5.) */
static inline bool vmx_allows(const struct vmx *v, uint32_t msr, unsigned bit)
{
	return vmx_ctl_may_be_1(vmx_cap(v, msr)) & VMX_CTL(bit);
}

/* instructions.c */
status_t vmx_vm_insn(void *ctx, struct cpu *cpu, const struct insn *in, enum intercept_kind kind);
/* A MOV to CR0/CR4, LMSW or CLTS in VMX operation (emu/hv.h cr_write_check,
 * asked while VMXON has set cpu->hv_cr_checks). */
status_t vmx_cr_write_check(void *ctx, struct cpu *cpu, unsigned cr, enum cr_access access, uint64_t value);

/* How a VMX instruction reports its outcome (SDM Vol.3 30.2), instructions.c:
 * VMsucceed, VMfailInvalid, VMfailValid(err) and VMfail(err) (valid with a
 * current VMCS, else invalid). Each returns ST_OK: the instruction completed. */
status_t vmx_succeed(struct cpu *cpu);
status_t vmx_fail_invalid(struct cpu *cpu);
status_t vmx_fail_valid(struct vmx *v, enum vmx_instruction_error err);
status_t vmx_fail(struct vmx *v, enum vmx_instruction_error err);

/* ---- VM exits (world_switch.c writes them, intercepts.c decides them) ---- */

/* What a VM exit writes beyond the guest state (SDM Vol.3 27.2). Fields a
 * reason does not define are written as the SDM says for it (the guest-linear
 * address and the instruction length/information are undefined for some
 * reasons; hvemu writes 0 there, as the selected CPU model's documented
 * choice). */
struct vmx_exit {
	uint32_t reason;             /* exit reason: basic 15:0 and the flags (24.9.1) */
	uint64_t qualification;      /* 27.2.1 */
	uint64_t guest_linear;       /* 27.2.1: the 32-bit linear address outside 64-bit mode */
	uint64_t guest_physical;     /* EPT violation and misconfiguration (27.2.1) */
	uint32_t intr_info;          /* VM-exit interruption information (27.2.2), 0: none */
	uint32_t intr_error;         /* its error code when bit 11 is set */
	uint32_t idt_vectoring_info; /* IDT-vectoring information (27.2.4), 0: none */
	uint32_t idt_vectoring_error;
	uint32_t insn_len;           /* VM-exit instruction length (27.2.5), 0: none */
	uint32_t insn_info;          /* VM-exit instruction information (27.2.5) */
	uint64_t guest_rip;          /* the RIP the guest-state area gets (27.3.3) */
	uint8_t saved_rf;            /* RFLAGS.RF the guest-state area gets (27.3.3) */
	const char *failed_check;    /* a VM-entry failure: the check-table row's text */
};

/* SDM Vol.3 27.3.3, RF in the saved RFLAGS: 0 after an instruction that
 * exits, what the event's saved RFLAGS image would hold for an exit an event
 * causes (1 for a fault, as on the stack or in the old TSS), 1 for an
 * APIC-access or EPT exit outside event delivery; otherwise RF as it is. */
enum vmx_saved_rf { VMX_RF_AS_IS = 0, VMX_RF_CLEAR, VMX_RF_SET };

/* intercepts.c: does the current VMCS make rec a VM exit (SDM Vol.3 25.1
 * "instructions that cause VM exits", 25.2 "other causes")? The answer is the
 * seam's status (emu/hv.h): ST_VMEXIT with *x the exit's information (the
 * caller, vmx_intercept, takes the exit); ST_OK no exit, rec->value possibly
 * replaced (a CR0/CR4 read under a guest/host mask reads the read shadow,
 * 25.3); ST_FAULT an exception raised instead (#UD for RDTSCP or INVPCID that
 * their secondary controls do not enable, 25.3); ST_HANDLED the access
 * virtualized (TPR shadow). Reads the VMCS and, for the I/O and MSR bitmaps,
 * L1's physical memory; nothing else changes. */
status_t vmx_exit_decide(struct vmx *v, struct cpu *cpu, struct exit_record *rec, struct vmx_exit *x);

/* apic_access.c: the APIC-access page (SDM Vol.3 29.4). VM entry makes the
 * VMCS's page cpu->apic_access_page under "virtualize APIC accesses", VM exit
 * takes it away; vmx_apic_access is the seam's apic_access hook (emu/hv.h):
 * a linear access to the page, virtualized or an APIC-access VM exit. */
void vmx_apic_access_enter(struct vmx *v, struct cpu *cpu);
void vmx_apic_access_leave(struct cpu *cpu);
status_t vmx_apic_access(void *ctx, struct cpu *cpu, uint64_t pa, unsigned size, enum tlb_access acc, bool crosses,
			 uint8_t *buf);

/* apic_msrs.c: RDMSR/WRMSR of 800H-8FFH under "virtualize x2APIC mode"
 * (SDM Vol.3 29.5) that the MSR bitmaps let through: ST_OK operate normally,
 * ST_HANDLED virtualized (a read's value in r->value), ST_FAULT #GP(0). */
status_t vmx_apic_msr(struct vmx *v, struct cpu *cpu, struct exit_record *r);

/* world_switch.c: VM entry once VMLAUNCH/VMRESUME's own checks passed (SDM
 * Vol.3 30.3): the checks of 26.2 (VMfailValid 7 or 8, L1 goes on), the
 * guest state (26.3, failure: exit reason 33 with bit 31), MSR loading (26.4,
 * exit 34), then the guest runs in VMX non-root operation. */
status_t vmx_vm_entry(struct vmx *v, struct cpu *cpu, bool launch) CHECKED;
/* Save the guest, write x, load the host (SDM Vol.3 27.3-27.6). ST_VMEXIT. */
status_t vmx_vm_exit(struct vmx *v, struct cpu *cpu, const struct vmx_exit *x) CHECKED;
/* The seam's intercept hook (emu/hv.h): vmx_exit_decide, then the exit. */
status_t vmx_intercept(void *ctx, struct cpu *cpu, struct exit_record *rec);
/* VMFUNC's EPTP switching in the running guest: the new EPTP (checked) in the
 * VMCS, as stage 2 and as the TLB context (SDM Vol.3 25.5.6.3). */
void vmx_switch_eptp(struct vmx *v, struct cpu *cpu, uint64_t eptp);

/* pml.c: page-modification logging (SDM Vol.3 28.2.5) for the guest's EPT
 * stage 2 when proc2_controls (the secondary controls in force) enable PML. */
void vmx_pml_attach(struct vmx *v, struct paging_env *stage2, uint32_t proc2_controls);

/* INVEPT's and INVVPID's invalidations (SDM Vol.3 28.3.3.1) over the TLB
 * spaces VM entry gives a guest (its VPID and EP4TA): vmx_invalidate_ept
 * drops the combined mappings of the EP4TA of eptp (all: of every EP4TA),
 * for every VPID and PCID; vmx_invalidate_vpid the linear and combined
 * mappings of vpid (all: of every VPID but 0000H) for every EP4TA and PCID,
 * the global ones too unless keep_global, only those of lin's page if page. */
void vmx_invalidate_ept(struct cpu *cpu, bool all, uint64_t eptp);
void vmx_invalidate_vpid(struct cpu *cpu, bool all, uint16_t vpid, bool keep_global, bool page, uint64_t lin);

/* events.c: a core event in the interruption-information format (SDM Vol.3
 * 24.8.3, 24.9.2, 24.9.3: vector, type, error-code valid, valid), and VM
 * entry's injection of the event in the VM-entry interruption-information
 * field (26.6) at the guest's rip: ST_VMEXIT once the handler is next (the
 * world changed), or the delivery's status. */
uint32_t vmx_event_info(const struct event *ev);
status_t vmx_inject(struct vmx *v, struct cpu *cpu, uint64_t rip) CHECKED;
/* events.c: VM entry arms the boundary rows its controls ask for (the
 * windows, MTF, TPR below threshold: SDM Vol.3 25.2, 25.5.2,
 * 26.7.5-26.7.8), sets virtual-NMI blocking (26.7.1) and lets INIT
 * through; called once the guest's interruptibility state is loaded, before
 * the injection. vmx_events_go_on: the guest goes on after vmx_exit_decide
 * answered st to rec (an event delivered, a HLT executed). vmx_events_leave:
 * the VM exit x, once the guest state is saved: the HLT activity state
 * (27.1, 27.3.4), every row disarmed, NMI blocking (27.5.5), INIT held
 * again. */
void vmx_events_enter(struct vmx *v, struct cpu *cpu);
void vmx_events_go_on(struct vmx *v, struct cpu *cpu, const struct exit_record *rec, status_t st);
void vmx_events_leave(struct vmx *v, struct cpu *cpu, const struct vmx_exit *x);

/* exit_report.c: the observer's report of an exit just written to the VMCS,
 * and of a VM entry that failed a check-table row (VMfailValid, 33, 34). */
void vmx_fill_report(struct vmx *v, const struct vmx_exit *x, unsigned perturbed);
void vmx_fill_entry_report(struct vmx *v, enum exit_report_kind kind, uint64_t code, uint64_t qualification,
			   const char *failed_check);

/* consistency.c, guest_checks.c: the VM-entry checks (emu/check_table.h rows, each naming
 * its SDM section), in the SDM's order; NULL when every rule holds, else the
 * first broken row (its outcome: VMfailValid(7), VMfailValid(8), or the
 * VM-entry failure with exit reason 33 and its qualification). Ask
 * vmx_check_controls first, as VM entry does: it also notices a change of the
 * capability MSRs (a test widening them) and of IA32_EFER.LMA, which the
 * memos depend on. */
const struct check_row *vmx_check_controls(struct vmx *v);     /* 26.2.1 */
const struct check_row *vmx_check_host_state(struct vmx *v);   /* 26.2.2-26.2.4 */
const struct check_row *vmx_check_guest_state(struct vmx *v);  /* 26.3.1 */
/* The rows of one of those tables, *n of them (tests/vmx/test_vmx_checks.c
 * gives every row a failing case). */
enum vmx_check_table { VMX_CHECKS_CONTROLS, VMX_CHECKS_HOST, VMX_CHECKS_GUEST };
const struct check_row *vmx_check_rows(enum vmx_check_table table, size_t *n);

/* The checks' inputs: the VMCS rows, then the processor's IA32_EFER.LMA when
 * VM entry begins (26.2.4: "IA-32e mode" is the processor's). */
#define VMX_CHECK_INPUT_LMA VMCS_ROW_COUNT
#define VMX_CHECK_INPUTS    (VMCS_ROW_COUNT + 1)

/* Does the host segments' image (struct vmx host_segments) come from the
 * row? The host-state fields and the VM-exit controls. */
static inline bool vmcs_row_shapes_host(unsigned row)
{
	static const bool shapes[VMCS_ROW_COUNT] = {
#define X(id, enc, width, type, slot, name) \
	[VMCS_ROW_##id] = VMCS_##type == VMCS_HOST || VMCS_ROW_##id == VMCS_ROW_EXIT_CONTROLS,
#include "vmx/vmcs_fields.def"
#undef X
	};
	return row < VMCS_ROW_COUNT && shapes[row];
}

/* The VMCS row (or input) changed (VMWRITE, a VM exit's store, VM entry's
 * view of the processor): the checks that read it are evaluated again at the
 * next VM entry, the host segments' image is built again if it came from
 * it. vmx_checks_forget: every field may have changed (VMPTRLD, VMXON,
 * reset). consistency.c. */
static inline void vmx_vmcs_changed(struct vmx *v, unsigned input)
{
	for (unsigned t = 0; t < 3; t++)
		check_memo_changed(&v->check_memo[t], input);
	if (vmcs_row_shapes_host(input))
		v->host_segments.valid = false;
}
void vmx_checks_forget(struct vmx *v);

/* vmcs.c: the current VMCS. */
static inline bool vmcs_current_valid(const struct vmx *v)
{
	return v->vmcs.pa != VMCS_POINTER_INVALID;
}
/* VMPTRLD's effect once its checks passed: pa becomes the current VMCS, its
 * data read from the region (the previous current VMCS written back first). */
void vmcs_make_current(struct vmx *v, uint64_t pa);
/* VMCLEAR's effect: pa's data in its region (the cached copy written back if
 * pa is current, which it then no longer is), launch state clear. */
void vmcs_clear(struct vmx *v, uint64_t pa);
/* No current VMCS, the cached copy dropped unwritten (VMXON, VMXOFF, reset). */
void vmcs_forget(struct vmx *v);
/* The launch state of the current VMCS (24.1, 24.11.3). */
bool vmcs_launched(struct vmx *v);
void vmcs_set_launched(struct vmx *v, bool launched);

/* Work out which fields exist from the capability MSRs (at creation). */
void vmcs_fields_init(struct vmx *v);
/* Does this processor have the field? */
bool vmcs_field_supported(const struct vmx *v, const struct vmcs_field *f);
/* VMREAD of encoding enc from the current VMCS: 0 with *value (the field, or
 * its high 32 bits with the "high" access type, zero-extended; the caller
 * stores as many bits as its operand size), or the VM-instruction error 12
 * (SDM Vol.3 30.3 VMREAD). */
enum vmx_instruction_error vmcs_vmread(struct vmx *v, uint64_t enc, uint64_t *value);
/* VMWRITE of value (the operand as read, 32 or 64 bits zero-extended) to
 * encoding enc of the current VMCS: 0, or the VM-instruction error 12 or 13
 * (SDM Vol.3 30.3 VMWRITE). */
enum vmx_instruction_error vmcs_vmwrite(struct vmx *v, uint64_t enc, uint64_t value);
/* The same, on the VMCS at physical address pa: the current VMCS (pa is the
 * current-VMCS pointer) or, in VMX non-root operation with "VMCS shadowing",
 * the shadow VMCS the VMCS link pointer references, read and written in its
 * region (SDM Vol.3 24.10, 30.3; vmcs.c says what an L1 editing it sees). */
enum vmx_instruction_error vmcs_vmread_at(struct vmx *v, uint64_t pa, uint64_t enc, uint64_t *value);
enum vmx_instruction_error vmcs_vmwrite_at(struct vmx *v, uint64_t pa, uint64_t enc, uint64_t value);
/* The processor's own access to a field of the current VMCS by row (the
 * VM-instruction error, exit information, VM entry): no access rules. */
void vmcs_set(struct vmx *v, enum vmcs_row row, uint64_t value);
/* vmcs_get's slow half: under --tlb flush the row is read from the region. */
uint64_t vmcs_get_from_region(struct vmx *v, enum vmcs_row row);
/* Inline: the VM-entry checks read hundreds of fields per entry. */
static inline uint64_t vmcs_get(struct vmx *v, enum vmcs_row row)
{
	if (__builtin_expect(v->cpu->tlb_uncached, 0))
		return vmcs_get_from_region(v, row);
	return v->vmcs.field[row];
}

/* A VM-execution control of the current VMCS is 1 (SDM Vol.3 24.6.1-24.6.2). */
static inline bool vmx_pin_ctl(struct vmx *v, unsigned bit)
{
	return vmcs_get(v, VMCS_ROW_PIN_BASED_CONTROLS) & VMX_CTL(bit);
}

static inline bool vmx_proc_ctl(struct vmx *v, unsigned bit)
{
	return vmcs_get(v, VMCS_ROW_PRIMARY_PROC_CONTROLS) & VMX_CTL(bit);
}

/* SDM Vol.3 24.6.2: with "activate secondary controls" 0 the processor
 * operates as if every secondary control were 0. */
static inline bool vmx_proc2_ctl(struct vmx *v, unsigned bit)
{
	return vmx_proc_ctl(v, VMX_PROC_SECONDARY_CONTROLS) &&
	       (vmcs_get(v, VMCS_ROW_SECONDARY_PROC_CONTROLS) & VMX_CTL(bit));
}

#endif
