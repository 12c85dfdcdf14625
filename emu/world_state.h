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

#include <stddef.h>
#include <string.h>

#include "emu/cpu.h"
#include "emu/flags.h"
#include "emu/state_slots.h"
#include "mmu/x86_vmx.h"      /* VMX_AR_*: the VMCS access-rights format */

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

/* The slot table. A function-local constant in a header, so that ws_get() and
 * ws_set() with a constant slot fold to the field access itself: a vendor's
 * rows (svm/vmcb_rows.h) expand to straight-line code as fast as stores by
 * hand, and the rules (fixed bits, widths) are still written once, here. */
#define WS_DEF_FIELD(member, grp, keep_, fixed_, nm)                                      \
	{ .offset = offsetof(struct cpu, member), .size = sizeof(((struct cpu *)0)->member), \
	  .kind = WS_KIND_FIELD, .group = grp, .keep = keep_, .fixed1 = fixed_, .name = nm }
#define WS_DEF_NONE(nm) { .kind = WS_KIND_NONE, .name = nm }
#define WS_ALL UINT64_MAX
#define WS_DR_KEEP 0xffffffffull          /* DR6, DR7: bits 63:32 reserved 0 */
#define WS_DR6_FIXED1 0xffff0ff0ull
#define WS_DR7_FIXED1 0x400ull
#define WS_RFLAGS_KEEP 0x3f7fd7ull        /* the defined bits of RFLAGS */

/* The hidden part of a segment register is loaded as the state gives it; the
 * attributes are cut to hvemu's 12 bits by ws_commit() (so a segment moves as
 * one 16-byte copy: a VMCB segment has struct segment's first four fields). */
#define WS_DEF_SEGMENT(SLOT, reg, grp, nm)                                                \
	[SLOT##_SELECTOR] = WS_DEF_FIELD(reg.selector, grp, WS_ALL, 0, nm ".selector"),      \
	[SLOT##_ATTR] = WS_DEF_FIELD(reg.attr, grp, WS_ALL, 0, nm ".attrib"),                \
	[SLOT##_LIMIT] = WS_DEF_FIELD(reg.limit, grp, WS_ALL, 0, nm ".limit"),               \
	[SLOT##_BASE] = WS_DEF_FIELD(reg.base, grp, WS_ALL, 0, nm ".base")

static inline const struct ws_slot_def *ws_slot(enum ws_slot slot)
{
	static const struct ws_slot_def defs[WS_SLOT_COUNT] = {
		[WS_NONE] = WS_DEF_NONE("none"),
		WS_DEF_SEGMENT(WS_ES, seg[SR_ES], WSG_SEG << SR_ES, "ES"), WS_DEF_SEGMENT(WS_CS, seg[SR_CS], WSG_SEG << SR_CS, "CS"),
		WS_DEF_SEGMENT(WS_SS, seg[SR_SS], WSG_SEG << SR_SS, "SS"), WS_DEF_SEGMENT(WS_DS, seg[SR_DS], WSG_SEG << SR_DS, "DS"),
		WS_DEF_SEGMENT(WS_FS, seg[SR_FS], WSG_SEG << SR_FS, "FS"), WS_DEF_SEGMENT(WS_GS, seg[SR_GS], WSG_SEG << SR_GS, "GS"),
		WS_DEF_SEGMENT(WS_LDTR, ldtr, WSG_SEG_LDTR, "LDTR"), WS_DEF_SEGMENT(WS_TR, tr, WSG_SEG_TR, "TR"),
		/* Descriptor-table limits are 16 bits (SDM Vol.3 2.4.1; the VMCB and VMCS
		 * fields are 32 bits wide). */
		[WS_GDTR_LIMIT] = WS_DEF_FIELD(gdtr.limit, 0, 0xffff, 0, "GDTR.limit"),
		[WS_GDTR_BASE] = WS_DEF_FIELD(gdtr.base, 0, WS_ALL, 0, "GDTR.base"),
		[WS_IDTR_LIMIT] = WS_DEF_FIELD(idtr.limit, 0, 0xffff, 0, "IDTR.limit"),
		[WS_IDTR_BASE] = WS_DEF_FIELD(idtr.base, 0, WS_ALL, 0, "IDTR.base"),
		/* SDM Vol.3 2.5: CR0.ET is reserved and reads 1 on P6-family and later
		 * processors (and every AMD64 one). */
		[WS_CR0] = WS_DEF_FIELD(cr0, WSG_CR, WS_ALL, CR0_ET, "CR0"),
		[WS_CR2] = WS_DEF_FIELD(cr2, 0, WS_ALL, 0, "CR2"),
		[WS_CR3] = WS_DEF_FIELD(cr3, 0, WS_ALL, 0, "CR3"),
		[WS_CR4] = WS_DEF_FIELD(cr4, 0, WS_ALL, 0, "CR4"),
		[WS_EFER] = WS_DEF_FIELD(efer, WSG_CR, WS_ALL, 0, "EFER"),
		[WS_PDPTE0] = WS_DEF_FIELD(pdpte[0], 0, WS_ALL, 0, "PDPTE0"),
		[WS_PDPTE1] = WS_DEF_FIELD(pdpte[1], 0, WS_ALL, 0, "PDPTE1"),
		[WS_PDPTE2] = WS_DEF_FIELD(pdpte[2], 0, WS_ALL, 0, "PDPTE2"),
		[WS_PDPTE3] = WS_DEF_FIELD(pdpte[3], 0, WS_ALL, 0, "PDPTE3"),
		/* SDM Vol.3 17.2.3: DR6 bits 31:16 and 11:4 read 1 (bit 16 is RTM's, which
		 * no hvemu model reports), bit 12 reads 0; 17.2.4: DR7 bit 10 reads 1;
		 * bits 63:32 of both are reserved 0. */
		[WS_DR6] = WS_DEF_FIELD(dr[6], 0, WS_DR_KEEP, WS_DR6_FIXED1, "DR6"),
		[WS_DR7] = WS_DEF_FIELD(dr[7], 0, WS_DR_KEEP, WS_DR7_FIXED1, "DR7"),
		/* SDM Vol.1 3.4.3: bits 1 (reads 1), 3, 5, 15 and 63:22 are reserved. */
		[WS_RFLAGS] = { .offset = offsetof(struct cpu, rflags), .size = 8, .kind = WS_KIND_FLAGS,
				.group = WSG_FLAGS, .keep = WS_RFLAGS_KEEP, .fixed1 = FLAG_FIXED1, .name = "RFLAGS" },
		[WS_RIP] = WS_DEF_FIELD(rip, 0, WS_ALL, 0, "RIP"),
		[WS_RSP] = WS_DEF_FIELD(regs[R_SP], 0, WS_ALL, 0, "RSP"),
		[WS_RAX] = WS_DEF_FIELD(regs[R_AX], 0, WS_ALL, 0, "RAX"),
		[WS_CPL] = WS_DEF_FIELD(cpl, 0, 3, 0, "CPL"),
		[WS_STAR] = WS_DEF_FIELD(star, 0, WS_ALL, 0, "STAR"),
		[WS_LSTAR] = WS_DEF_FIELD(lstar, 0, WS_ALL, 0, "LSTAR"),
		[WS_CSTAR] = WS_DEF_FIELD(cstar, 0, WS_ALL, 0, "CSTAR"),
		[WS_SFMASK] = WS_DEF_FIELD(sfmask, 0, WS_ALL, 0, "SFMASK"),
		[WS_KERNEL_GS_BASE] = WS_DEF_FIELD(kernel_gs_base, 0, WS_ALL, 0, "KernelGSbase"),
		[WS_SYSENTER_CS] = WS_DEF_FIELD(sysenter_cs, 0, WS_ALL, 0, "SYSENTER_CS"),
		[WS_SYSENTER_ESP] = WS_DEF_FIELD(sysenter_esp, 0, WS_ALL, 0, "SYSENTER_ESP"),
		[WS_SYSENTER_EIP] = WS_DEF_FIELD(sysenter_eip, 0, WS_ALL, 0, "SYSENTER_EIP"),
		[WS_PAT] = WS_DEF_FIELD(pat, 0, WS_ALL, 0, "PAT"),
		[WS_DEBUGCTL] = WS_DEF_FIELD(debugctl, 0, WS_ALL, 0, "DebugCtl"),
		[WS_BR_FROM] = WS_DEF_FIELD(last_branch_from, 0, WS_ALL, 0, "LastBranchFromIP"),
		[WS_BR_TO] = WS_DEF_FIELD(last_branch_to, 0, WS_ALL, 0, "LastBranchToIP"),
		[WS_LASTEXCP_FROM] = WS_DEF_FIELD(last_exception_from, 0, WS_ALL, 0, "LastExceptionFromIP"),
		[WS_LASTEXCP_TO] = WS_DEF_FIELD(last_exception_to, 0, WS_ALL, 0, "LastExceptionToIP"),
		[WS_INTERRUPTIBILITY] = WS_DEF_NONE("interruptibility state"),
		[WS_ACTIVITY_STATE] = WS_DEF_NONE("activity state"),
		[WS_PENDING_DBG_EXCEPTIONS] = WS_DEF_NONE("pending debug exceptions"),
		[WS_SMBASE] = WS_DEF_NONE("SMBASE"),
		[WS_PERF_GLOBAL_CTRL] = WS_DEF_NONE("IA32_PERF_GLOBAL_CTRL"),
		[WS_BNDCFGS] = WS_DEF_NONE("IA32_BNDCFGS"),
		[WS_RTIT_CTL] = WS_DEF_NONE("IA32_RTIT_CTL"),
		[WS_LBR_CTL] = WS_DEF_NONE("IA32_LBR_CTL"),
		[WS_PKRS] = WS_DEF_NONE("IA32_PKRS"),
		[WS_S_CET] = WS_DEF_NONE("S_CET"),
		[WS_SSP] = WS_DEF_NONE("SSP"),
		[WS_INTR_SSP_TABLE] = WS_DEF_NONE("IA32_INTERRUPT_SSP_TABLE_ADDR"),
		[WS_SPEC_CTRL] = WS_DEF_NONE("SPEC_CTRL"),
		[WS_UINV] = WS_DEF_NONE("UINV (user-interrupt notification vector)"),
		[WS_FRED_CONFIG] = WS_DEF_NONE("IA32_FRED_CONFIG"),
		[WS_FRED_RSP1] = WS_DEF_NONE("IA32_FRED_RSP1"),
		[WS_FRED_RSP2] = WS_DEF_NONE("IA32_FRED_RSP2"),
		[WS_FRED_RSP3] = WS_DEF_NONE("IA32_FRED_RSP3"),
		[WS_FRED_STKLVLS] = WS_DEF_NONE("IA32_FRED_STKLVLS"),
		[WS_FRED_SSP1] = WS_DEF_NONE("IA32_FRED_SSP1"),
		[WS_FRED_SSP2] = WS_DEF_NONE("IA32_FRED_SSP2"),
		[WS_FRED_SSP3] = WS_DEF_NONE("IA32_FRED_SSP3"),
	};
	return &defs[(unsigned)slot < WS_SLOT_COUNT ? slot : WS_NONE];
}


#undef FIELD
#undef NOT_HELD
#undef WS_ALL
#undef SEGMENT

static inline uint64_t ws_get(struct cpu *cpu, enum ws_slot slot)
{
	const struct ws_slot_def *d = ws_slot(slot);
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
	const struct ws_slot_def *d = ws_slot(slot);
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

/* Finish a batch of ws_set() of the groups in mask (enum ws_group); inline,
 * so a constant mask leaves only its own steps. */
static inline void ws_commit_segment(struct segment *s)
{
	s->attr &= 0xfff;
	seg_refresh(s);
}

static inline void ws_commit(struct cpu *cpu, unsigned groups)
{
	for (unsigned i = 0; i < SR_COUNT; i++)
		if (groups & (WSG_SEG << i))
			ws_commit_segment(&cpu->seg[i]);
	if (groups & WSG_SEG_LDTR)
		ws_commit_segment(&cpu->ldtr);
	if (groups & WSG_SEG_TR)
		ws_commit_segment(&cpu->tr);
	/* SDM Vol.3 9.8.5, APM2 14.6.1: EFER.LMA = EFER.LME and CR0.PG, as after
	 * any write of them. */
	if (groups & WSG_CR) {
		cpu->efer &= ~(uint64_t)EFER_LMA;
		if ((cpu->efer & EFER_LME) && (cpu->cr0 & CR0_PG))
			cpu->efer |= EFER_LMA;
	}
	if (groups & WSG_FLAGS)
		cpu->lazy.op = LAZY_NONE;
}

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
 * For the MSR-load lists of VM entry and VM exit (SDM Vol.3 26.4 "Loading MSRs",
 * 27.6: a load that WRMSR would refuse fails the entry / aborts). */
bool cpu_msr_write_checked(struct cpu *cpu, uint32_t index, uint64_t value);
/* RDMSR's value of the MSR index without the instruction: true with *value,
 * or false if RDMSR would #GP(0) (no such MSR). For the VM-exit MSR-store
 * list (SDM Vol.3 27.4). */
bool cpu_msr_read_checked(struct cpu *cpu, uint32_t index, uint64_t *value);

/* ---- entering and leaving a guest ---- */

/* The guest's registers are loaded: run it in TLB space `space` (its ASID or
 * VPID context; PCID from the new CR3 when CR4.PCIDE), recompute the mode, and
 * load the PAE PDPTEs: from pdptes when the vendor supplies them (VMX with EPT,
 * SDM Vol.3 26.3.2.4), else from memory for the new CR3 as MOV CR3 would
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
 * EVENTINJ, SDM Vol.3 26.6 "Event Injection"): through the guest's IDT/IVT with
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
