/* World-switch state: what VMRUN / #VMEXIT / VMLOAD / VMSAVE and VM entry /
 * VM exit need of the core, written once for both vendors.
 *
 *   slots      every piece of state a VMCB or VMCS field holds (emu/state_slots.h),
 *              read and written by ws_get()/ws_set(); after a batch of ws_set()
 *              ws_commit() applies what follows from the new values (hidden
 *              segment parts, EFER.LMA, the lazy flags)
 *   segments   seg_attr_from_vmcb / _from_vmx_ar / _to_vmx_ar, cpu_load_segment()
 *   registers  cpu_set_control_regs() (CR0/CR3/CR4/EFER together),
 *              cpu_set_debug_regs(), cpu_set_rflags()
 *   MSRs       cpu_msr_write_checked(): WRMSR's effect by index, or "would #GP"
 *   worlds     cpu_enter_guest() / cpu_leave_guest(): in_guest, the TLB space,
 *              the mode, the PDPTEs
 *
 * A vendor's table (svm/vmcb_fields.def, vmx/vmcs_fields.def) maps each field
 * to a slot; its engine moves rows, this file knows struct cpu.
 */
#ifndef HVEMU_EMU_WORLD_STATE_H
#define HVEMU_EMU_WORLD_STATE_H

#include <string.h>

#include "emu/cpu.h"
#include "emu/state_slots.h"

/* ---- slots ---- */

/* What ws_commit() must recompute after slots of a group were set. */
enum ws_group {
	WSG_CR = 1u << 0,          /* CR0 or EFER: EFER.LMA */
	WSG_FLAGS = 1u << 1,       /* RFLAGS: the lazy flags are dropped */
	/* A segment register's selector/attr/limit/base: the attributes cut to
	 * hvemu's 12 bits, the derived part recomputed. One bit per register:
	 * WSG_SEG << enum sreg, then LDTR, TR. */
	WSG_SEG = 1u << 2,
	WSG_SEG_LDTR = WSG_SEG << SR_COUNT,
	WSG_SEG_TR = WSG_SEG << (SR_COUNT + 1),
};

enum ws_kind {
	WS_KIND_NONE,              /* not held by value in struct cpu: reads 0, writes ignored */
	WS_KIND_FIELD,             /* a field of struct cpu */
	WS_KIND_FLAGS,             /* RFLAGS: read through cpu_get_flags() */
};

/* How a slot lives in struct cpu. A value written is (v & keep) | fixed1: the
 * architectural fixed bits are applied on every load, whoever loads. */
struct ws_slot_def {
	uint16_t offset;           /* in struct cpu */
	uint8_t size;              /* bytes: 1, 2, 4 or 8 */
	uint8_t kind;              /* enum ws_kind */
	uint16_t group;            /* enum ws_group */
	uint64_t keep, fixed1;
	const char *name;          /* "CS.base", "CR0", "IA32_SYSENTER_ESP" */
};

extern const struct ws_slot_def ws_slot_defs[WS_SLOT_COUNT];

static inline uint64_t ws_get(struct cpu *cpu, enum ws_slot slot)
{
	const struct ws_slot_def *d = &ws_slot_defs[slot];
	const char *p = (const char *)cpu + d->offset;
	uint8_t b;
	uint16_t w;
	uint32_t l;
	uint64_t q;
	if (__builtin_expect(d->kind == WS_KIND_FLAGS, 0))
		return cpu_get_flags(cpu);
	switch (d->size) {
	case 1: memcpy(&b, p, 1); return b;
	case 2: memcpy(&w, p, 2); return w;
	case 4: memcpy(&l, p, 4); return l;
	case 8: memcpy(&q, p, 8); return q;
	default: return 0;
	}
}

/* Store v (truncated to the slot's width, its fixed bits applied); the caller
 * calls ws_commit() with the slot's group once its batch is stored. */
static inline void ws_set(struct cpu *cpu, enum ws_slot slot, uint64_t v)
{
	const struct ws_slot_def *d = &ws_slot_defs[slot];
	char *p = (char *)cpu + d->offset;
	v = (v & d->keep) | d->fixed1;
	uint8_t b = (uint8_t)v;
	uint16_t w = (uint16_t)v;
	uint32_t l = (uint32_t)v;
	switch (d->size) {
	case 1: memcpy(p, &b, 1); break;
	case 2: memcpy(p, &w, 2); break;
	case 4: memcpy(p, &l, 4); break;
	case 8: memcpy(p, &v, 8); break;
	default: break;
	}
}

/* Finish a batch of ws_set() of the groups in mask (enum ws_group). */
void ws_commit(struct cpu *cpu, unsigned groups);

/* ---- moving a vendor's rows: its state image <-> struct cpu ----
 * A vendor turns its table into moves once (ws_move_add(), in row order), then
 * each world switch runs them: a tight loop, rows next to each other on both
 * sides (a VMCB segment and hvemu's) merged into one copy. */
struct ws_move {
	uint16_t area;             /* offset in the vendor's image (VMCB, VMCS storage) */
	uint16_t cpu;              /* offset in struct cpu */
	uint16_t size;             /* bytes, the same on both sides */
	uint64_t keep, fixed1;     /* applied on load (merged moves: all ones, 0) */
};

/* Append the move of slot, held size bytes wide at offset area of the image,
 * to moves[0..*n) (room for max). false if the slot is not held by value in
 * struct cpu, its width differs, or there is no room: a table error. */
bool ws_move_add(struct ws_move *moves, size_t *n, size_t max, uint16_t area, unsigned size,
		 enum ws_slot slot);

/* image -> CPU (masks and fixed bits applied; then ws_commit() the groups), and
 * CPU -> image (RFLAGS with the lazy flags folded in). */
void ws_load_moves(struct cpu *cpu, const void *image, const struct ws_move *moves, size_t n);
void ws_save_moves(struct cpu *cpu, void *image, const struct ws_move *moves, size_t n);

/* ---- segments in a vendor's form ---- */

/* The VMCB attrib word (APM2 15.5.1, Table B-2): descriptor bits 47:40 and
 * 55:52 packed into 11:0, which is hvemu's own form; bits 15:12 are ignored. */
static inline uint16_t seg_attr_from_vmcb(uint16_t attrib)
{
	return attrib & 0xfff;
}

/* The VMCS access-rights word (SDM Vol.3 24.4.1, Table 24-2): type 3:0, S 4,
 * DPL 6:5, P 7, 11:8 reserved, AVL 12, L 13, D/B 14, G 15, unusable 16.
 *
 *   31        17 16 15 14 13 12 11    8 7 6  5 4 3    0
 *  +------------+--+--+--+--+--+-------+-+----+-+------+
 *  |  reserved  |U |G |DB|L |AV|  rsvd |P|DPL |S| type |
 *  +------------+--+--+--+--+--+-------+-+----+-+------+
 *
 * hvemu's segment has no separate unusable bit: P = 0 makes it unusable (every
 * access through it faults, mmu/segment.h), so an unusable segment loads with
 * P clear and reads back with the unusable bit set. */
#define VMX_AR_UNUSABLE (1u << 16)
static inline uint16_t seg_attr_from_vmx_ar(uint32_t ar)
{
	uint16_t attr = (uint16_t)((ar & 0xff) | ((ar >> 4) & 0xf00));
	return (ar & VMX_AR_UNUSABLE) ? (uint16_t)(attr & ~SEG_P) : attr;
}
static inline uint32_t seg_attr_to_vmx_ar(uint16_t attr)
{
	return (attr & 0xffu) | ((uint32_t)(attr & 0xf00) << 4) | ((attr & SEG_P) ? 0 : VMX_AR_UNUSABLE);
}

/* Load a segment register (or LDTR, TR) with its hidden part as a world switch
 * does, from the state itself, not from a descriptor table; attr in hvemu's
 * form (above). */
void cpu_load_segment(struct segment *s, uint16_t selector, uint16_t attr, uint32_t limit, uint64_t base);

/* ---- registers ---- */

/* CR0, CR3, CR4 and EFER as one load (VMRUN, #VMEXIT, VM entry, VM exit): CR0.ET
 * reads 1 (SDM Vol.3 2.5), EFER.LMA follows EFER.LME and CR0.PG as after any
 * write of them (SDM Vol.3 9.8.5; the caller's checks rejected the illegal
 * combinations). No TLB flush (a world switch changes the TLB context:
 * cpu_enter_guest/cpu_leave_guest); no PDPTE load (cpu_enter_guest). */
void cpu_set_control_regs(struct cpu *cpu, uint64_t cr0, uint64_t cr3, uint64_t cr4, uint64_t efer);

/* DR6 and DR7 with their fixed bits: DR6 bits 31:16 and 11:4 read 1, DR7 bit 10
 * reads 1, bits 63:32 of both are 0 (SDM Vol.3 17.2.3, 17.2.4). */
void cpu_set_debug_regs(struct cpu *cpu, uint64_t dr6, uint64_t dr7);

/* RFLAGS wholesale, the lazy arithmetic flags dropped: reserved bits 3, 5, 15
 * and 63:22 read 0, bit 1 reads 1 (SDM Vol.1 3.4.3). */
void cpu_set_rflags(struct cpu *cpu, uint64_t rflags);

/* ---- MSRs (emu/msr.c) ---- */

/* WRMSR's effect on the MSR index without the instruction (no CPL check, no
 * intercept, nothing raised): true if the value was written; false if WRMSR
 * would #GP(0) (no such MSR, a reserved bit, a read-only MSR), nothing changed.
 * For the MSR-load lists of VM entry and VM exit (SDM Vol.3 27.4 "Loading MSRs",
 * 28.6: a load that WRMSR would refuse fails the entry / aborts). */
bool cpu_msr_write_checked(struct cpu *cpu, uint32_t index, uint64_t value);

/* ---- entering and leaving a guest ---- */

/* The guest's registers are loaded: run it in TLB space `space` (its ASID or
 * VPID context; PCID from the new CR3 when CR4.PCIDE), recompute the mode, and
 * load the PAE PDPTEs: from pdptes when the vendor supplies them (VMX with EPT,
 * SDM Vol.3 27.3.2.4), else from memory for the new CR3 as MOV CR3 would
 * (cpu_load_pdptes(): nothing outside PAE paging or under nested paging).
 * ST_OK, or cpu_load_pdptes()'s status (ST_FAULT with #GP(0) pending for a
 * reserved bit, ST_VMEXIT if stage 2 faulted and the model exited). */
status_t cpu_enter_guest(struct cpu *cpu, uint64_t space, const uint64_t *pdptes) CHECKED;

/* The host's registers are loaded: leave guest mode (no stage 2, no virtual
 * interrupt, no interrupt shadow, IF masks interrupts, nothing in delivery),
 * back to the host's TLB space and PCID, recompute the mode. */
void cpu_leave_guest(struct cpu *cpu, uint64_t space, uint16_t pcid);

/* ---- what the hypervisor models' checks read ---- */

/* The CR4 and EFER bits this CPU implements; the rest are reserved (MBZ). */
uint64_t cpu_cr4_valid_bits(const struct cpu *cpu);
uint64_t cpu_efer_valid_bits(const struct cpu *cpu);

/* Whether MOV to CRn of val passes the instruction's #GP(0) checks on the
 * value (reserved bits, illegal combinations): an SVM CR-write intercept comes
 * only after them (APM2 15.9 Table 15-7), a VMX exit before (SDM Vol.3 25.1.1). */
bool cpu_mov_cr_value_ok(const struct cpu *cpu, unsigned cr, uint64_t val);

/* Load the PAE PDPTE registers for the current CR0/CR3/CR4 (SDM Vol.3 4.4.1),
 * through stage 2 while cpu->stage2_on: ST_FAULT with #GP(0) pending for a
 * reserved bit, a stage-2 fault goes to the model as usual. Nothing happens
 * outside PAE paging. */
status_t cpu_load_pdptes(struct cpu *cpu) CHECKED;

/* After a model replaced registers wholesale (segments with seg_refresh()
 * done, CRs, EFER, RFLAGS with the lazy flags dropped, CPL): recompute the
 * mode and have the run loop look at the next boundary afresh. */
void cpu_world_switched(struct cpu *cpu);

/* ---- event injection (emu/event_inject.c) ---- */

/* Deliver ev into the just-entered guest as an injected event (APM2 15.20
 * EVENTINJ, SDM Vol.3 27.6 "Event Injection"): through the guest's IDT/IVT with
 * the semantics of the event's type (a software interrupt or #BP/#OF checks the
 * gate's DPL and its faults have EXT = 0), its error code pushed when it has
 * one (not in real mode). rip is where the guest was entered: a fault while
 * delivering reports it, and the model sees the event as IDT-vectoring
 * information / EXITINTINFO if it exits (cpu_deliver_event()). return_rip is
 * the return address the frame gets: rip for interrupts and exceptions, the
 * next instruction for a software event (the vendor computes it: NEXT_RIP, or
 * rip + the VM-entry instruction length); ev->insn_len is reported as is.
 * ST_OK once the handler's first instruction is next; else the delivery's
 * status (ST_VMEXIT, ST_SHUTDOWN). */
status_t cpu_inject_event(struct cpu *cpu, const struct event *ev, uint64_t rip, uint64_t return_rip) CHECKED;

#endif
