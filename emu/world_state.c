/* World-switch state (emu/world_state.h): the slots as struct cpu holds them,
 * and the loads both vendors' world switches make.
 */
#include <stddef.h>

#include "emu/flags.h"
#include "emu/hv.h"

#define FIELD(member, grp, keep_, fixed_, nm)                                      \
	{ .offset = offsetof(struct cpu, member), .size = sizeof(((struct cpu *)0)->member), \
	  .kind = WS_KIND_FIELD, .group = grp, .keep = keep_, .fixed1 = fixed_, .name = nm }
#define NOT_HELD(nm) { .kind = WS_KIND_NONE, .name = nm }
#define ALL UINT64_MAX
#define DR_KEEP 0xffffffffull          /* DR6, DR7: bits 63:32 reserved 0 */
#define DR6_FIXED1 0xffff0ff0ull
#define DR7_FIXED1 0x400ull
#define RFLAGS_KEEP 0x3f7fd7ull        /* the defined bits of RFLAGS */

/* The hidden part of a segment register is loaded as the state gives it; the
 * attributes are cut to hvemu's 12 bits by ws_commit() (so a segment moves as
 * one 16-byte copy: a VMCB segment has struct segment's first four fields). */
#define SEGMENT(SLOT, reg, grp, nm)                                                \
	[SLOT##_SELECTOR] = FIELD(reg.selector, grp, ALL, 0, nm ".selector"),      \
	[SLOT##_ATTR] = FIELD(reg.attr, grp, ALL, 0, nm ".attrib"),                \
	[SLOT##_LIMIT] = FIELD(reg.limit, grp, ALL, 0, nm ".limit"),               \
	[SLOT##_BASE] = FIELD(reg.base, grp, ALL, 0, nm ".base")

const struct ws_slot_def ws_slot_defs[WS_SLOT_COUNT] = {
	[WS_NONE] = NOT_HELD("none"),
	SEGMENT(WS_ES, seg[SR_ES], WSG_SEG << SR_ES, "ES"), SEGMENT(WS_CS, seg[SR_CS], WSG_SEG << SR_CS, "CS"),
	SEGMENT(WS_SS, seg[SR_SS], WSG_SEG << SR_SS, "SS"), SEGMENT(WS_DS, seg[SR_DS], WSG_SEG << SR_DS, "DS"),
	SEGMENT(WS_FS, seg[SR_FS], WSG_SEG << SR_FS, "FS"), SEGMENT(WS_GS, seg[SR_GS], WSG_SEG << SR_GS, "GS"),
	SEGMENT(WS_LDTR, ldtr, WSG_SEG_LDTR, "LDTR"), SEGMENT(WS_TR, tr, WSG_SEG_TR, "TR"),
	/* Descriptor-table limits are 16 bits (SDM Vol.3 2.4.1; the VMCB and VMCS
	 * fields are 32 bits wide). */
	[WS_GDTR_LIMIT] = FIELD(gdtr.limit, 0, 0xffff, 0, "GDTR.limit"),
	[WS_GDTR_BASE] = FIELD(gdtr.base, 0, ALL, 0, "GDTR.base"),
	[WS_IDTR_LIMIT] = FIELD(idtr.limit, 0, 0xffff, 0, "IDTR.limit"),
	[WS_IDTR_BASE] = FIELD(idtr.base, 0, ALL, 0, "IDTR.base"),
	/* SDM Vol.3 2.5: CR0.ET is reserved and reads 1 on P6-family and later
	 * processors (and every AMD64 one). */
	[WS_CR0] = FIELD(cr0, WSG_CR, ALL, CR0_ET, "CR0"),
	[WS_CR2] = FIELD(cr2, 0, ALL, 0, "CR2"),
	[WS_CR3] = FIELD(cr3, 0, ALL, 0, "CR3"),
	[WS_CR4] = FIELD(cr4, 0, ALL, 0, "CR4"),
	[WS_EFER] = FIELD(efer, WSG_CR, ALL, 0, "EFER"),
	[WS_PDPTE0] = FIELD(pdpte[0], 0, ALL, 0, "PDPTE0"),
	[WS_PDPTE1] = FIELD(pdpte[1], 0, ALL, 0, "PDPTE1"),
	[WS_PDPTE2] = FIELD(pdpte[2], 0, ALL, 0, "PDPTE2"),
	[WS_PDPTE3] = FIELD(pdpte[3], 0, ALL, 0, "PDPTE3"),
	/* SDM Vol.3 17.2.3: DR6 bits 31:16 and 11:4 read 1 (bit 16 is RTM's, which
	 * no hvemu model reports), bit 12 reads 0; 17.2.4: DR7 bit 10 reads 1;
	 * bits 63:32 of both are reserved 0. */
	[WS_DR6] = FIELD(dr[6], 0, DR_KEEP, DR6_FIXED1, "DR6"),
	[WS_DR7] = FIELD(dr[7], 0, DR_KEEP, DR7_FIXED1, "DR7"),
	/* SDM Vol.1 3.4.3: bits 1 (reads 1), 3, 5, 15 and 63:22 are reserved. */
	[WS_RFLAGS] = { .offset = offsetof(struct cpu, rflags), .size = 8, .kind = WS_KIND_FLAGS,
			.group = WSG_FLAGS, .keep = RFLAGS_KEEP, .fixed1 = FLAG_FIXED1, .name = "RFLAGS" },
	[WS_RIP] = FIELD(rip, 0, ALL, 0, "RIP"),
	[WS_RSP] = FIELD(regs[R_SP], 0, ALL, 0, "RSP"),
	[WS_RAX] = FIELD(regs[R_AX], 0, ALL, 0, "RAX"),
	[WS_CPL] = FIELD(cpl, 0, 3, 0, "CPL"),
	[WS_STAR] = FIELD(star, 0, ALL, 0, "STAR"),
	[WS_LSTAR] = FIELD(lstar, 0, ALL, 0, "LSTAR"),
	[WS_CSTAR] = FIELD(cstar, 0, ALL, 0, "CSTAR"),
	[WS_SFMASK] = FIELD(sfmask, 0, ALL, 0, "SFMASK"),
	[WS_KERNEL_GS_BASE] = FIELD(kernel_gs_base, 0, ALL, 0, "KernelGSbase"),
	[WS_SYSENTER_CS] = FIELD(sysenter_cs, 0, ALL, 0, "SYSENTER_CS"),
	[WS_SYSENTER_ESP] = FIELD(sysenter_esp, 0, ALL, 0, "SYSENTER_ESP"),
	[WS_SYSENTER_EIP] = FIELD(sysenter_eip, 0, ALL, 0, "SYSENTER_EIP"),
	[WS_PAT] = FIELD(pat, 0, ALL, 0, "PAT"),
	[WS_DEBUGCTL] = FIELD(debugctl, 0, ALL, 0, "DebugCtl"),
	[WS_BR_FROM] = FIELD(last_branch_from, 0, ALL, 0, "LastBranchFromIP"),
	[WS_BR_TO] = FIELD(last_branch_to, 0, ALL, 0, "LastBranchToIP"),
	[WS_LASTEXCP_FROM] = FIELD(last_exception_from, 0, ALL, 0, "LastExceptionFromIP"),
	[WS_LASTEXCP_TO] = FIELD(last_exception_to, 0, ALL, 0, "LastExceptionToIP"),
	[WS_INTERRUPTIBILITY] = NOT_HELD("interruptibility state"),
	[WS_ACTIVITY_STATE] = NOT_HELD("activity state"),
	[WS_PENDING_DBG_EXCEPTIONS] = NOT_HELD("pending debug exceptions"),
	[WS_SMBASE] = NOT_HELD("SMBASE"),
	[WS_PERF_GLOBAL_CTRL] = NOT_HELD("IA32_PERF_GLOBAL_CTRL"),
	[WS_BNDCFGS] = NOT_HELD("IA32_BNDCFGS"),
	[WS_RTIT_CTL] = NOT_HELD("IA32_RTIT_CTL"),
	[WS_LBR_CTL] = NOT_HELD("IA32_LBR_CTL"),
	[WS_PKRS] = NOT_HELD("IA32_PKRS"),
	[WS_S_CET] = NOT_HELD("S_CET"),
	[WS_SSP] = NOT_HELD("SSP"),
	[WS_INTR_SSP_TABLE] = NOT_HELD("IA32_INTERRUPT_SSP_TABLE_ADDR"),
	[WS_SPEC_CTRL] = NOT_HELD("SPEC_CTRL"),
	[WS_UINV] = NOT_HELD("UINV (user-interrupt notification vector)"),
	[WS_FRED_CONFIG] = NOT_HELD("IA32_FRED_CONFIG"),
	[WS_FRED_RSP1] = NOT_HELD("IA32_FRED_RSP1"),
	[WS_FRED_RSP2] = NOT_HELD("IA32_FRED_RSP2"),
	[WS_FRED_RSP3] = NOT_HELD("IA32_FRED_RSP3"),
	[WS_FRED_STKLVLS] = NOT_HELD("IA32_FRED_STKLVLS"),
	[WS_FRED_SSP1] = NOT_HELD("IA32_FRED_SSP1"),
	[WS_FRED_SSP2] = NOT_HELD("IA32_FRED_SSP2"),
	[WS_FRED_SSP3] = NOT_HELD("IA32_FRED_SSP3"),
};

static void commit_segment(struct segment *s)
{
	s->attr &= 0xfff;
	seg_refresh(s);
}

void ws_commit(struct cpu *cpu, unsigned groups)
{
	for (unsigned i = 0; i < SR_COUNT; i++)
		if (groups & (WSG_SEG << i))
			commit_segment(&cpu->seg[i]);
	if (groups & WSG_SEG_LDTR)
		commit_segment(&cpu->ldtr);
	if (groups & WSG_SEG_TR)
		commit_segment(&cpu->tr);
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

void cpu_load_segment(struct segment *s, uint16_t selector, uint16_t attr, uint32_t limit, uint64_t base)
{
	s->selector = selector;
	s->attr = attr & 0xfff;
	s->limit = limit;
	s->base = base;
	seg_refresh(s);
}

/* The named loads store directly (they are on the VMRUN / #VMEXIT path); the
 * rules are the slot table's: the same constants. */
void cpu_set_control_regs(struct cpu *cpu, uint64_t cr0, uint64_t cr3, uint64_t cr4, uint64_t efer)
{
	cpu->cr0 = cr0 | CR0_ET;
	cpu->cr3 = cr3;
	cpu->cr4 = cr4;
	cpu->efer = efer;
	ws_commit(cpu, WSG_CR);
}

void cpu_set_debug_regs(struct cpu *cpu, uint64_t dr6, uint64_t dr7)
{
	cpu->dr[6] = (dr6 & DR_KEEP) | DR6_FIXED1;
	cpu->dr[7] = (dr7 & DR_KEEP) | DR7_FIXED1;
}

void cpu_set_rflags(struct cpu *cpu, uint64_t rflags)
{
	cpu->rflags = (rflags & RFLAGS_KEEP) | FLAG_FIXED1;
	cpu->lazy.op = LAZY_NONE;
}

status_t cpu_enter_guest(struct cpu *cpu, uint64_t space, const uint64_t *pdptes)
{
	/* A world switch selects a TLB context, it does not flush (mmu/tlb.h); the
	 * PCID is the new CR3's (SDM Vol.3 4.10.1). */
	tlb_select(&cpu->tlb, space, (cpu->cr4 & CR4_PCIDE) ? (uint16_t)(cpu->cr3 & 0xfff) : 0);
	cpu->in_guest = true;
	cpu_world_switched(cpu);
	if (pdptes) {
		memcpy(cpu->pdpte, pdptes, sizeof(cpu->pdpte));
		return ST_OK;
	}
	return cpu_load_pdptes(cpu);
}

void cpu_leave_guest(struct cpu *cpu, uint64_t space, uint16_t pcid)
{
	cpu->shadow = 0;
	cpu->stage2_on = false;
	cpu->in_guest = false;
	cpu->vectoring_valid = false;
	cpu->intr_masking = INTR_MASK_IF;
	cpu->vintr = (struct virtual_intr){ 0 };
	tlb_select(&cpu->tlb, space, pcid);
	cpu_world_switched(cpu);
}

/* ---- moves ---- */

static bool raw_move(const struct ws_move *m)
{
	return m->keep == UINT64_MAX && m->fixed1 == 0;
}

bool ws_move_add(struct ws_move *moves, size_t *n, size_t max, uint16_t area, unsigned size,
		 enum ws_slot slot)
{
	if ((unsigned)slot >= WS_SLOT_COUNT)
		return false;
	const struct ws_slot_def *d = &ws_slot_defs[slot];
	if (d->kind == WS_KIND_NONE || d->size != size)
		return false;
	struct ws_move m = { .area = area, .cpu = d->offset, .size = (uint16_t)size, .keep = d->keep,
			     .fixed1 = d->fixed1 };
	if (*n > 0) {
		struct ws_move *last = &moves[*n - 1];
		if (raw_move(last) && raw_move(&m) && last->area + last->size == area &&
		    last->cpu + last->size == m.cpu) {
			last->size = (uint16_t)(last->size + size);
			return true;
		}
	}
	if (*n >= max)
		return false;
	moves[(*n)++] = m;
	return true;
}

void ws_load_moves(struct cpu *cpu, const void *image, const struct ws_move *moves, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct ws_move *m = &moves[i];
		const char *src = (const char *)image + m->area;
		char *dst = (char *)cpu + m->cpu;
		uint8_t b;
		uint16_t w;
		uint32_t l;
		uint64_t q;
		/* Little-endian host, as the VMCB (svm/vmcb.h). */
		switch (m->size) {
		case 1:
			memcpy(&b, src, 1);
			b = (uint8_t)((b & m->keep) | m->fixed1);
			memcpy(dst, &b, 1);
			break;
		case 2:
			memcpy(&w, src, 2);
			w = (uint16_t)((w & m->keep) | m->fixed1);
			memcpy(dst, &w, 2);
			break;
		case 4:
			memcpy(&l, src, 4);
			l = (uint32_t)((l & m->keep) | m->fixed1);
			memcpy(dst, &l, 4);
			break;
		case 8:
			memcpy(&q, src, 8);
			q = (q & m->keep) | m->fixed1;
			memcpy(dst, &q, 8);
			break;
		case 16:
			memcpy(dst, src, 16);
			break;
		default:
			memcpy(dst, src, m->size);
			break;
		}
	}
}

void ws_save_moves(struct cpu *cpu, void *image, const struct ws_move *moves, size_t n)
{
	if (cpu->lazy.op != LAZY_NONE)
		flags_materialize(cpu);
	for (size_t i = 0; i < n; i++) {
		const struct ws_move *m = &moves[i];
		char *dst = (char *)image + m->area;
		const char *src = (const char *)cpu + m->cpu;
		switch (m->size) {
		case 1: memcpy(dst, src, 1); break;
		case 2: memcpy(dst, src, 2); break;
		case 4: memcpy(dst, src, 4); break;
		case 8: memcpy(dst, src, 8); break;
		case 16: memcpy(dst, src, 16); break;
		default: memcpy(dst, src, m->size); break;
		}
	}
}
