/* The VM-exit oracle (fuzz/vmx_oracle.h): VM entry's checks
 * (vmx_oracle_checks.c), then the guest VMLAUNCH enters, run template by
 * template: which instructions exit in VMX non-root operation (SDM Vol.3
 * 25.1.2 unconditionally, 25.1.3 by the controls) and the basic reason,
 * exit qualification (27.2.1), instruction length and instruction
 * information (27.2.5) of each; faults go to vmx_oracle_events.c. Every
 * prediction names the row of rules[] (vmx_oracle_rules.c) it comes from.
 */
#include "fuzz/vmx_oracle_sim.h"

#include <string.h>

bool vo_strict;

/* ---- Is the entered guest one the oracle models? -------------------------- */

/* The guest the oracle follows: flat, CPL 0, paging on the fuzzer's tables;
 * CS as the fuzzer's GDT describes the selector an IDT gate loads, so event
 * delivery leaves it as it was. */
static const char *outside_model(const struct sim *s)
{
	const struct oracle_l2_layout *l = s->l;
	const uint64_t cr0_free = CR0_MP | CR0_TS | CR0_EM | CR0_WP | CR0_AM | CR0_NW | CR0_CD;
	if ((F(s, GUEST_CR0) & ~cr0_free) != (CR0_PE | CR0_PG | CR0_NE | CR0_ET))
		return "CR0 outside the model";
	const uint64_t cr4_vmxe = 1ull << 13;
	const uint64_t cr4_free = (1ull << 2) | (1ull << 3) | (1ull << 4) | (1ull << 6) | (1ull << 7) | (1ull << 8) |
				  (1ull << 9) | (1ull << 10) | CR4_OSXSAVE | (1ull << 16);
	uint32_t cs = (uint32_t)F(s, GUEST_CS_AR);
	if (cs & AR_UNUSABLE)
		return "CS marked unusable";
	if (s->m64) {
		if ((F(s, GUEST_CR4) & ~cr4_free) != (CR4_PAE | cr4_vmxe) || F(s, GUEST_CR3) != l->cr3_64 ||
		    (cs & 0xf0ff) != 0xa09b || F(s, GUEST_CS_LIMIT) != 0xffffffffu || F(s, GUEST_CS_SELECTOR) != 0x18)
			return "64-bit guest state outside the model";
	} else {
		if ((F(s, GUEST_CR4) & ~cr4_free) != cr4_vmxe || F(s, GUEST_CR3) != l->cr3_32 || (cs & 0xf0ff) != 0xc09b ||
		    F(s, GUEST_CS_BASE) != 0 || F(s, GUEST_CS_LIMIT) != 0xffffffffu || F(s, GUEST_CS_SELECTOR) != 0x08)
			return "32-bit guest state outside the model";
	}
	static const enum vmcs_row ar[] = { VMCS_ROW_GUEST_ES_AR, VMCS_ROW_GUEST_SS_AR, VMCS_ROW_GUEST_DS_AR,
					    VMCS_ROW_GUEST_FS_AR, VMCS_ROW_GUEST_GS_AR };
	for (unsigned i = 0; i < 5; i++)
		if ((s->f[ar[i]] & 0x1f0ff) != 0xc093)
			return "data segment outside the model";
	for (int seg = 0; seg < 6; seg++)
		if (seg != 1 && (seg_limit(s, seg) != 0xffffffffu ||
				 (seg_base(s, seg) != 0 && (s->m64 || seg_base(s, seg) != 0x40000000u))))
			return "data segment base or limit outside the model";
	if ((F(s, GUEST_SS_SELECTOR) & 3) || (cs & 0x60))
		return "CPL outside the model";
	const uint64_t rflags_free = 0x8d5 | (1u << 9) | (1u << 18) | (1u << 21) | (3u << 12);
	if ((F(s, GUEST_RFLAGS) & ~rflags_free) != 2)
		return "RFLAGS outside the model";
	if (F(s, GUEST_RIP) != l->start_rip || F(s, GUEST_ACTIVITY_STATE) != 0 || F(s, GUEST_INTERRUPTIBILITY) != 0 ||
	    F(s, GUEST_PENDING_DBG_EXCEPTIONS) != 0 || (F(s, GUEST_DR7) & ~0x400ull) != 0)
		return "RIP, activity, interruptibility, debug state outside the model";
	/* Controls that add events or change instructions the oracle does not
	 * model: interrupt/NMI windows, TPR shadow, MTF, the tertiary
	 * controls, the preemption timer, posted interrupts, MSR lists. */
	uint64_t procc = F(s, PRIMARY_PROC_CONTROLS);
	if (ctl(procc, 2) || ctl(procc, PROC_TPR_SHADOW) || ctl(procc, PROC_NMI_WINDOW) || ctl(procc, PROC_MTF) ||
	    ctl(procc, 17) || pin(s, PIN_PREEMPT_TIMER) || pin(s, 7) || F(s, EXIT_MSR_STORE_COUNT) ||
	    F(s, EXIT_MSR_LOAD_COUNT))
		return "controls outside the model";
	return NULL;
}

/* ---- The instructions --------------------------------------------------- */

/* SDM Vol.3 25.1.3, 24.6.4: I/O exits. */
static bool io_exits(struct sim *s, unsigned port, unsigned size, bool *known)
{
	*known = true;
	if (!proc(s, PROC_IO_BITMAPS)) {
		hit(R_IO_UNCOND, proc(s, PROC_UNCOND_IO));
		return proc(s, PROC_UNCOND_IO);
	}
	/* A wrap past FFFFH exits; else any bit of the ports accessed. */
	if (port + size - 1 > 0xffff)
		return true;
	for (unsigned p = port; p < port + size; p++) {
		uint64_t map = p < 0x8000 ? F(s, IO_BITMAP_A) : F(s, IO_BITMAP_B);
		uint64_t at = map + (p & 0x7fff) / 8;
		if (at >= s->l->ram_size) {
			*known = false;
			return false;
		}
		if ((s->l->ram[at] >> (p % 8)) & 1)
			return true;
	}
	return false;
}

/* SDM Vol.3 25.1.3, 24.6.9: RDMSR/WRMSR exits. */
static bool msr_exits(struct sim *s, uint32_t msr, bool write, bool *known, bool *in_range)
{
	*known = true;
	*in_range = msr <= 0x1fff || (msr >= 0xc0000000u && msr <= 0xc0001fffu);
	if (!proc(s, PROC_MSR_BITMAPS))
		return true;
	if (!*in_range)
		return true;
	/* read low 0, read high 400H, write low 800H, write high C00H */
	uint64_t off = (msr >= 0xc0000000u ? 0x400 : 0) + (write ? 0x800 : 0) + (msr & 0x1fff) / 8;
	uint64_t at = F(s, MSR_BITMAP) + off;
	if (at >= s->l->ram_size) {
		*known = false;
		return false;
	}
	return (s->l->ram[at] >> (msr % 8)) & 1;
}

static void setup_effects(struct sim *s, const struct l2_insn *i)
{
	switch (i->op) {
	case VO_WRMSR:
	case VO_XSETBV:
		s->rax = (uint32_t)i->value;
		s->rax_known = true;
		break;
	case VO_MOV_TO_CR:
	case VO_MOV_TO_DR:
	case VO_LMSW:
		if (i->reg == 0) {
			s->rax = s->m64 ? i->value : (uint32_t)i->value;
			s->rax_known = true;
		}
		break;
	case VO_SETSP:
		s->rsp = (uint32_t)i->value;
		s->rsp_known = true;
		break;
	default:
		break;
	}
	/* Set-up MOVs of memory operands and VMREAD/VMWRITE registers write
	 * GPRs the templates name; RAX among them is unknown afterwards. */
	if (((i->flags & L2_MEM) && (i->mem.base == 0 || i->mem.index == 0)) ||
	    ((i->op == VO_VMREAD || i->op == VO_VMWRITE) && (i->reg == 0 || i->reg2 == 0)))
		s->rax_known = false;
}

/* The memory-operand fields of the instruction information (27.2.5): scaling
 * 1:0, address size 9:7, segment 17:15, index 21:18, index invalid 22, base
 * 26:23, base invalid 27; scaling and index are undefined without an index,
 * base without a base. */
static void mem_info(const struct l2_modrm *m, uint32_t *info, uint32_t *mask)
{
	*info |= (uint32_t)(m->asize == 2 ? 0 : m->asize == 4 ? 1 : 2) << 7 | (uint32_t)m->seg << 15;
	*mask |= 7u << 7 | 7u << 15;
	if (m->rip_relative)
		return;                    /* what RIP-relative addressing reports as base and index: left open */
	*mask |= 1u << 22 | 1u << 27;
	if (m->index >= 0) {
		*info |= (uint32_t)m->scale | (uint32_t)m->index << 18;
		*mask |= 3u | 0xfu << 18;
	} else {
		*info |= 1u << 22;
	}
	if (m->base >= 0) {
		*info |= (uint32_t)m->base << 23;
		*mask |= 0xfu << 23;
	} else {
		*info |= 1u << 27;
	}
}

static void set_info(struct sim *s, uint32_t info, uint32_t mask)
{
	s->p->info = info & mask;
	s->p->info_mask = mask;
	s->p->defined |= VP_INFO;
}

/* 27.2.1: the qualification of an exit with a memory operand is its
 * displacement, sign-extended (for 32-bit addressing, to 64 bits); with
 * RIP-relative addressing, the displacement plus the RIP of the next
 * instruction (the address the operand would use). */
static void disp_qual(struct sim *s, const struct l2_insn *i)
{
	s->p->qual = (uint64_t)(int64_t)i->mem.disp + (i->mem.rip_relative ? i->rip + i->len : 0);
	s->p->defined |= VP_QUAL;
}

static bool cr_exit(struct sim *s, const struct l2_insn *i, unsigned access, int rule, unsigned shape)
{
	insn_exit(s, i, XR_CR, rule, shape);
	/* Table 27-3: CR 3:0, access type 5:4, GPR 11:8 (MOV), LMSW 6 and 31:16. */
	uint64_t q = (i->imm & 0xf) | (uint64_t)access << 4;
	if (access <= 1)
		q |= (uint64_t)i->reg << 8;
	if (access == 3)
		q |= (uint64_t)(i->value & 0xffff) << 16;
	s->p->qual = q;
	s->p->defined |= VP_QUAL;
	hit(R_CR_QUAL, true);
	return true;
}

bool sim_step(struct sim *s, const struct l2_insn *i)
{
	struct fault f = { .vector = -1 };
	bool ex, known, in_range;

	setup_effects(s, i);
	switch (i->op) {
	case VO_NOP:
	case VO_SETSP:
		return s->done;
	case VO_CPUID:
		hit(R_CPUID, true);
		return insn_exit(s, i, XR_CPUID, R_CPUID, 0);
	case VO_INVD:
		hit(R_INVD, true);
		return insn_exit(s, i, XR_INVD, R_INVD, 0);
	case VO_VMCALL:
		hit(R_VMCALL, true);
		return insn_exit(s, i, XR_VMCALL, R_VMCALL, 0);
	case VO_HLT:
		hit(R_HLT, ex = proc(s, PROC_HLT));
		if (ex)
			return insn_exit(s, i, XR_HLT, R_HLT, 0);
		hit(R_HALT, true);
		s->p->outcome = VO_OUT_HALT;
		s->p->rule = R_HALT;
		s->done = true;
		return true;
	case VO_RDPMC:
		hit(R_RDPMC, ex = proc(s, PROC_RDPMC));
		if (ex)
			return insn_exit(s, i, XR_RDPMC, R_RDPMC, 0);
		return unknown(s, "RDPMC not exiting");
	case VO_RDTSC:
		hit(R_RDTSC, ex = proc(s, PROC_RDTSC));
		if (ex)
			return insn_exit(s, i, XR_RDTSC, R_RDTSC, 0);
		s->rax_known = false;
		return s->done;
	case VO_RDTSCP:
		/* 25.3: without "enable RDTSCP", #UD (before any exit). */
		hit(R_RDTSCP_UD, !proc2(s, PROC2_RDTSCP));
		if (!proc2(s, PROC2_RDTSCP)) {
			f = (struct fault){ .vector = V_UD };
			return sim_exception(s, i, &f, 0, 0);
		}
		hit(R_RDTSCP, ex = proc(s, PROC_RDTSC));
		if (ex)
			return insn_exit(s, i, XR_RDTSCP, R_RDTSCP, 0);
		s->rax_known = false;
		return s->done;
	case VO_PAUSE:
		hit(R_PAUSE, ex = proc(s, PROC_PAUSE));
		if (ex)
			return insn_exit(s, i, XR_PAUSE, R_PAUSE, 0);
		return s->done;
	case VO_WBINVD:
		hit(R_WBINVD, ex = proc2(s, PROC2_WBINVD));
		if (ex)
			return insn_exit(s, i, XR_WBINVD, R_WBINVD, 0);
		return s->done;
	case VO_INVLPG:
		hit(R_INVLPG, ex = proc(s, PROC_INVLPG));
		if (!ex)
			return s->done;
		insn_exit(s, i, XR_INVLPG, R_INVLPG, 0);
		/* 27.2.1: the linear-address operand; bits 63:32 clear outside
		 * 64-bit mode. */
		s->p->qual = linear(s, override_seg(s, i->seg, 3), i->value);
		s->p->defined |= VP_QUAL;
		return s->done;
	case VO_IN:
	case VO_OUT:
	case VO_INS:
	case VO_OUTS: {
		bool in = i->op == VO_IN || i->op == VO_INS, str = i->op == VO_INS || i->op == VO_OUTS;
		ex = io_exits(s, i->imm & 0xffff, i->size, &known);
		if (!known)
			return unknown(s, "I/O bitmap outside RAM");
		hit(R_IO_BITMAP, ex);
		if (ex) {
			unsigned shape = (i->size == 1 ? 0 : i->size == 2 ? 1 : 2) * 4 + (str ? 2 : 0) + (in ? 1 : 0);
			insn_exit(s, i, XR_IO, R_IO_QUAL, shape);
			/* Table 27-5 */
			s->p->qual = (uint64_t)(i->size - 1) | (in ? 8 : 0) | (str ? 0x10 : 0) |
				     (i->flags & L2_REP ? 0x20 : 0) | (i->flags & L2_PORT_DX ? 0 : 0x40) |
				     (uint64_t)(i->imm & 0xffff) << 16;
			s->p->defined |= VP_QUAL;
			hit(R_IO_QUAL, true);
			if (str && ((s->in->cpu->basic >> 54) & 1)) {
				/* Table 27-8: address size 9:7, segment 17:15 (undefined
				 * for INS, whose segment is ES). */
				unsigned asize = s->m64 ? (i->flags & L2_ADDR_OVR ? 4 : 8) : (i->flags & L2_ADDR_OVR ? 2 : 4);
				int seg = i->op == VO_INS ? 0 : override_seg(s, i->seg, 3);
				uint32_t info = (uint32_t)(asize == 2 ? 0 : asize == 4 ? 1 : 2) << 7 | (uint32_t)seg << 15;
				set_info(s, info, 7u << 7 | (i->op == VO_INS ? 0 : 7u << 15));
				/* 27.2.1: the guest-linear address of the memory operand. */
				s->p->linear = linear(s, seg, i->value);
				s->p->defined |= VP_LINEAR;
				hit(R_IO_INFO, true);
			}
			return s->done;
		}
		if (str) {
			int seg = i->op == VO_INS ? 0 : override_seg(s, i->seg, 3);
			f = sim_data_access(s, seg, i->value, i->size, in);
			if (f.vector >= 0)
				return sim_exception(s, i, &f, 0, 0);
		}
		if (in)
			s->rax_known = s->rax_known && str;
		return s->done;
	}
	case VO_RDMSR:
	case VO_WRMSR: {
		bool wr = i->op == VO_WRMSR;
		ex = msr_exits(s, i->imm, wr, &known, &in_range);
		if (!known)
			return unknown(s, "MSR bitmap outside RAM");
		hit(R_MSR_BITMAP, ex);
		if (proc(s, PROC_MSR_BITMAPS))
			hit(R_MSR_OUT_OF_RANGE, !in_range);
		if (ex)
			return insn_exit(s, i, wr ? XR_WRMSR : XR_RDMSR, in_range ? R_MSR_BITMAP : R_MSR_OUT_OF_RANGE, 0);
		return unknown(s, "MSR access not exiting");
	}
	case VO_MOV_FROM_CR:
		if (i->imm == 3) {
			hit(R_CR3_STORE, ex = proc(s, PROC_CR3_STORE));
			if (ex)
				return cr_exit(s, i, 1, R_CR3_STORE, 1);
		}
		if (i->imm == 8) {
			hit(R_CR8, ex = proc(s, PROC_CR8_STORE));
			if (ex)
				return cr_exit(s, i, 1, R_CR8, 2);
		}
		/* CR0/CR4 reads see the read shadow where the mask is 1 (25.3). */
		if (i->reg == 0)
			s->rax_known = false;
		return s->done;
	case VO_MOV_TO_CR: {
		uint64_t val = s->m64 ? i->value : (uint32_t)i->value;
		switch (i->imm) {
		case 0:
		case 4: {
			/* 25.1.3: a bit set in the mask whose source value differs
			 * from the read shadow. */
			uint64_t mask = i->imm == 0 ? F(s, CR0_GUEST_HOST_MASK) : F(s, CR4_GUEST_HOST_MASK);
			uint64_t shadow = i->imm == 0 ? F(s, CR0_READ_SHADOW) : F(s, CR4_READ_SHADOW);
			int rule = i->imm == 0 ? R_CR0_MASK : R_CR4_MASK;
			hit(rule, ex = ((val ^ shadow) & mask) != 0);
			if (ex)
				return cr_exit(s, i, 0, rule, i->imm == 0 ? 3 : 4);
			/* What the guest runs with: CR0's bits VM entry does not
			 * load are the L1's (26.3.2.1). */
			uint64_t cur = i->imm == 0 ? entered_guest_cr0(s->in, F(s, GUEST_CR0)) : F(s, GUEST_CR4);
			/* MOV CR0's #GP for CD = 0 with NW = 1, PG without PE, bits
			 * 63:32 (SDM Vol.2 MOV CR): on the source operand or on the
			 * value written, whose host-owned bits stay (25.3)? The SDM
			 * does not say (fuzz/findings/README.md, the campaign's stops). */
			bool faulting = i->imm == 0 && (((val & CR0_NW) && !(val & CR0_CD)) ||
							((val & CR0_PG) && !(val & CR0_PE)) || (val >> 32));
			if (faulting && !vo_strict)
				return unknown(s, "MOV to CR0 of a faulting value, the faulting bits host-owned");
			if ((val & ~mask) == (cur & ~mask))
				return s->done;    /* the guest-owned bits unchanged */
			return unknown(s, "MOV to CR0/CR4 changes the guest");
		}
		case 3: {
			/* 25.1.3: CR3-load exiting, unless one of the first
			 * CR3-target-count target values. */
			bool target = false;
			static const enum vmcs_row tr[4] = { VMCS_ROW_CR3_TARGET_VALUE0, VMCS_ROW_CR3_TARGET_VALUE1,
							     VMCS_ROW_CR3_TARGET_VALUE2, VMCS_ROW_CR3_TARGET_VALUE3 };
			for (unsigned k = 0; k < F(s, CR3_TARGET_COUNT) && k < 4; k++)
				target |= s->f[tr[k]] == val;
			hit(R_CR3_LOAD, ex = proc(s, PROC_CR3_LOAD) && !target);
			if (ex)
				return cr_exit(s, i, 0, R_CR3_LOAD, 5);
			if (val == F(s, GUEST_CR3))
				return s->done;
			return unknown(s, "MOV to CR3 changes the guest");
		}
		case 8:
			hit(R_CR8, ex = proc(s, PROC_CR8_LOAD));
			if (ex)
				return cr_exit(s, i, 0, R_CR8, 6);
			return unknown(s, "MOV to CR8 not exiting");
		default:
			return s->done;        /* CR2: not compared */
		}
	}
	case VO_CLTS: {
		/* 25.1.3: TS set in both the mask and the read shadow. */
		hit(R_CLTS, ex = (F(s, CR0_GUEST_HOST_MASK) & F(s, CR0_READ_SHADOW) & CR0_TS) != 0);
		if (ex)
			return cr_exit(s, i, 2, R_CLTS, 0);
		if (!(F(s, GUEST_CR0) & CR0_TS) || (F(s, CR0_GUEST_HOST_MASK) & CR0_TS))
			return s->done;
		return unknown(s, "CLTS changes the guest");
	}
	case VO_LMSW: {
		uint64_t mask = F(s, CR0_GUEST_HOST_MASK), shadow = F(s, CR0_READ_SHADOW), src = i->value & 0xffff;
		/* 25.1.3: PE: mask 1, shadow 0, source 1; MP, EM, TS: mask 1 and
		 * source != shadow. */
		ex = ((mask & 1) && !(shadow & 1) && (src & 1)) || ((mask & 0xe) & (src ^ shadow));
		hit(R_LMSW, ex);
		if (ex)
			return cr_exit(s, i, 3, R_LMSW, 7);
		return unknown(s, "LMSW not exiting");
	}
	case VO_MOV_FROM_DR:
	case VO_MOV_TO_DR: {
		bool wr = i->op == VO_MOV_TO_DR;
		hit(R_DR, ex = proc(s, PROC_MOV_DR));
		if (ex) {
			insn_exit(s, i, XR_DR, R_DR, wr ? 0 : 1);
			/* Table 27-4: DR 2:0, direction 4 (1: MOV from DR), GPR 11:8. */
			s->p->qual = (i->imm & 7) | (wr ? 0 : 0x10) | (uint64_t)i->reg << 8;
			s->p->defined |= VP_QUAL;
			return s->done;
		}
		if (!wr) {
			if (i->reg == 0)
				s->rax_known = false;
			return s->done;
		}
		if (i->imm <= 3)
			return s->done;
		return unknown(s, "MOV to DR6/DR7 not exiting");
	}
	case VO_INTN:
		/* 25.2: software interrupts do not consult the exception bitmap;
		 * delivered through the IDT, EXT 0 (SDM Vol.3 6.13). */
		return sim_deliver(s, i, i->imm & 0xff, EV_VALID | (uint32_t)T_SW_INT << 8 | (i->imm & 0xff), 0, 0);
	case VO_INT3:
		f = (struct fault){ .vector = V_BP };
		return sim_exception(s, i, &f, 0, 0);
	case VO_UD2:
		f = (struct fault){ .vector = V_UD };
		return sim_exception(s, i, &f, 0, 0);
	case VO_DIV0:
		f = (struct fault){ .vector = V_DE };
		return sim_exception(s, i, &f, 0, 0);
	case VO_LOAD:
	case VO_STORE:
		f = sim_data_access(s, override_seg(s, i->seg, 3), i->value, i->size, i->op == VO_STORE);
		if (f.vector >= 0) {
			hit(f.limit ? R_SEG_LIMIT : R_GP_NONCANON, f.vector != V_PF);
			sim_exception(s, i, &f, 0, 0);
			if (s->p->outcome == VO_OUT_EXIT && f.vector != V_PF)
				s->p->rule = f.limit ? R_SEG_LIMIT : R_GP_NONCANON;
			return s->done;
		}
		if (i->op == VO_LOAD)
			s->rax_known = false;
		return s->done;
	case VO_SGDT:
	case VO_SIDT:
	case VO_LGDT:
	case VO_LIDT: {
		/* 25.1.3: descriptor-table exiting; before the operand is read. */
		hit(R_DT, ex = proc2(s, PROC2_DESC_TABLE));
		if (!ex) {
			if (i->op == VO_LGDT || i->op == VO_LIDT)
				return unknown(s, "LGDT/LIDT not exiting");
			f = sim_data_access(s, i->mem.seg, i->mem.ea, s->m64 ? 10 : 6, true);
			if (f.vector >= 0)
				return unknown(s, "SGDT/SIDT faulting");
			return s->done;
		}
		static const unsigned identity[] = { [VO_SGDT - VO_SGDT] = 0, [VO_SIDT - VO_SGDT] = 1,
						     [VO_LGDT - VO_SGDT] = 2, [VO_LIDT - VO_SGDT] = 3 };
		unsigned id = identity[i->op - VO_SGDT];
		insn_exit(s, i, XR_GDTR_IDTR, R_DT_INFO, id);
		/* Table 27-10: memory fields, operand size 11 (0 16-bit, 1
		 * 32-bit; undefined in 64-bit mode), identity 29:28. */
		uint32_t info = id << 28, mask = 3u << 28;
		mem_info(&i->mem, &info, &mask);
		if (!s->m64)
			info |= (i->size == 4 ? 1u : 0u) << 11, mask |= 1u << 11;
		set_info(s, info, mask);
		disp_qual(s, i);
		hit(R_DT_INFO, true);
		return s->done;
	}
	case VO_SLDT:
	case VO_STR:
	case VO_LLDT:
	case VO_LTR: {
		hit(R_DT, ex = proc2(s, PROC2_DESC_TABLE));
		if (!ex) {
			if (i->op == VO_SLDT || i->op == VO_STR) {
				if (i->flags & L2_MEM)
					return unknown(s, "SLDT/STR to memory not exiting");
				if (i->reg == 0)
					s->rax_known = false;
				return s->done;
			}
			return unknown(s, "LLDT/LTR not exiting");
		}
		unsigned id = (unsigned)(i->op - VO_SLDT);
		bool mem = i->flags & L2_MEM;
		insn_exit(s, i, XR_LDTR_TR, R_LDT_INFO, mem ? id : 4);
		/* Table 27-11: reg1 6:3, mem/reg 10 (1: register), identity 29:28. */
		uint32_t info = id << 28 | (mem ? 0 : 1u << 10), mask = 3u << 28 | 1u << 10;
		if (mem) {
			mem_info(&i->mem, &info, &mask);
			disp_qual(s, i);
		} else {
			info |= (uint32_t)i->reg << 3;
			mask |= 0xfu << 3;
		}
		set_info(s, info, mask);
		hit(R_LDT_INFO, true);
		return s->done;
	}
	case VO_VMCLEAR:
	case VO_VMPTRLD:
	case VO_VMPTRST:
	case VO_VMXON: {
		/* 25.1.2 and each instruction's operation (SDM Vol.3 30.3): in
		 * VMX non-root operation, a VM exit after the #UD checks (none
		 * apply to these guests) and before the operand is read. */
		static const uint32_t reasons[] = { XR_VMCLEAR, XR_VMPTRLD, XR_VMPTRST, XR_VMXON };
		hit(R_VMX_INSN, true);
		insn_exit(s, i, reasons[i->op - VO_VMCLEAR], R_VMX_INFO, i->mem.index >= 0);
		uint32_t info = 0, mask = 0;
		mem_info(&i->mem, &info, &mask);
		set_info(s, info, mask);
		disp_qual(s, i);
		hit(R_VMX_INFO, true);
		return s->done;
	}
	case VO_VMREAD:
	case VO_VMWRITE: {
		hit(R_VMX_INSN, true);
		bool mem = i->flags & L2_MEM;
		insn_exit(s, i, i->op == VO_VMREAD ? XR_VMREAD : XR_VMWRITE, R_VMREAD_INFO, mem ? 1 + (i->mem.index >= 0) : 0);
		/* reg1 6:3 (register operand), mem/reg 10, reg2 31:28. */
		uint32_t info = (uint32_t)i->reg2 << 28 | (mem ? 0 : 1u << 10), mask = 0xfu << 28 | 1u << 10;
		if (mem) {
			mem_info(&i->mem, &info, &mask);
			disp_qual(s, i);
		} else {
			info |= (uint32_t)i->reg << 3;
			mask |= 0xfu << 3;
		}
		set_info(s, info, mask);
		hit(R_VMREAD_INFO, true);
		return s->done;
	}
	case VO_VMLAUNCH:
	case VO_VMRESUME:
	case VO_VMXOFF: {
		static const uint32_t reasons[] = { XR_VMLAUNCH, XR_VMRESUME, XR_VMXOFF };
		hit(R_VMX_INSN, true);
		return insn_exit(s, i, reasons[i->op - VO_VMLAUNCH], R_VMX_INSN, 0);
	}
	case VO_RDRAND:
	case VO_RDSEED: {
		bool seed = i->op == VO_RDSEED;
		uint32_t feature = seed ? (s->in->cpu->id.cpuid7_ebx >> 18) & 1 : (s->in->cpu->id.cpuid1_ecx >> 30) & 1;
		if (!feature) {
			f = (struct fault){ .vector = V_UD };
			return sim_exception(s, i, &f, 0, 0);
		}
		hit(R_RDRAND, ex = proc2(s, seed ? PROC2_RDSEED : PROC2_RDRAND));
		if (!ex) {
			/* SDM Vol.2 RDRAND: CF says whether a value came. */
			s->arith_known = false;
			if (i->reg == 0)
				s->rax_known = false;
			return s->done;
		}
		insn_exit(s, i, seed ? XR_RDSEED : XR_RDRAND, R_RDRAND, i->size == 8);
		/* destination 6:3, operand size 12:11 (0 16, 1 32, 2 64 bits). */
		uint32_t info = (uint32_t)i->reg << 3 | (uint32_t)(i->size == 2 ? 0 : i->size == 4 ? 1 : 2) << 11;
		set_info(s, info, 0xfu << 3 | 3u << 11);
		return s->done;
	}
	case VO_XSETBV:
		/* 25.1.1: #UD (CR4.OSXSAVE 0) before the unconditional exit. */
		hit(R_XSETBV_UD, !(F(s, GUEST_CR4) & CR4_OSXSAVE));
		if (!(F(s, GUEST_CR4) & CR4_OSXSAVE)) {
			f = (struct fault){ .vector = V_UD };
			return sim_exception(s, i, &f, 0, 0);
		}
		hit(R_XSETBV, true);
		return insn_exit(s, i, XR_XSETBV, R_XSETBV, 0);
	case VO_MONITOR:
	case VO_MWAIT: {
		bool mwait = i->op == VO_MWAIT;
		if (!((s->in->cpu->id.cpuid1_ecx >> 3) & 1)) {
			f = (struct fault){ .vector = V_UD };
			return sim_exception(s, i, &f, 0, 0);
		}
		hit(mwait ? R_MWAIT : R_MONITOR, ex = proc(s, mwait ? PROC_MWAIT : PROC_MONITOR));
		if (ex)
			return insn_exit(s, i, mwait ? XR_MWAIT : XR_MONITOR, mwait ? R_MWAIT : R_MONITOR, 0);
		return unknown(s, "MONITOR/MWAIT not exiting");
	}
	default:
		return unknown(s, "template not modelled");
	}
}

/* SDM Vol.3 26.4: the VM-entry MSR-load list, entry by entry after the
 * guest state is loaded. 0: every entry loads; n: entry n (from 1) fails;
 * -1: the oracle cannot say (an MSR it does not know). */
static int msr_load_fails(const struct vo_input *in)
{
	uint64_t count = in->vmcs[VMCS_ROW_ENTRY_MSR_LOAD_COUNT], area = in->vmcs[VMCS_ROW_ENTRY_MSR_LOAD_ADDR];
	if (area > in->layout->ram_size || count * 16 > in->layout->ram_size - area)
		return -1;
	for (uint64_t k = 0; k < count; k++) {
		const uint8_t *e = in->layout->ram + area + 16 * k;
		uint32_t index = (uint32_t)e[0] | (uint32_t)e[1] << 8 | (uint32_t)e[2] << 16 | (uint32_t)e[3] << 24;
		uint32_t reserved = (uint32_t)e[4] | (uint32_t)e[5] << 8 | (uint32_t)e[6] << 16 | (uint32_t)e[7] << 24;
		uint64_t value = 0;
		for (unsigned b = 0; b < 8; b++)
			value |= (uint64_t)e[8 + b] << (8 * b);
		bool bad;
		/* FS_BASE and GS_BASE; x2APIC MSRs (31:8 = 000008H); bits 63:32 of
		 * the entry not 0; a value WRMSR would #GP on (SYSENTER_ESP/EIP
		 * canonical, SDM Vol.2 WRMSR; PAT entries a valid memory type,
		 * Vol.3 11.12.2: 0, 1, 4-7). */
		if (index == 0xc0000100u || index == 0xc0000101u || (index >> 8) == 0x8 || reserved)
			bad = true;
		else if (index == 0x174)
			bad = false;
		else if (index == 0x175 || index == 0x176)
			bad = !oracle_canonical(value);
		else if (index == 0x277) {
			bad = false;
			for (unsigned b = 0; b < 8; b++) {
				unsigned type = (unsigned)(value >> (8 * b)) & 0xff;
				bad |= type == 2 || type == 3 || type > 7;
			}
		} else
			return -1;
		if (bad)
			return (int)k + 1;
	}
	return 0;
}

static void predict(const struct vo_input *in, struct vo_prediction *p)
{
	memset(p, 0, sizeof(*p));
	p->rule = -1;
	uint64_t fail[2], unsure[2];
	vo_checks(in, fail, unsure);
	uint64_t entry_fail[2] = { 0, 0 };
	bool group_fail = false, group_unsure = false, guest_fail = false, guest_unsure = false;
	for (unsigned k = 0; k < VC_COUNT; k++) {
		bool g = vo_check_group_of((enum vo_check)k) == VG_GUEST;
		if (check_bit(fail, k)) {
			check_set(entry_fail, k);
			*(g ? &guest_fail : &group_fail) = true;
		}
		if (check_bit(unsure, k))
			*(g ? &guest_unsure : &group_unsure) = true;
	}
	/* 26.2 first (VMfailValid), then 26.3 (VM-entry failure). */
	if (group_fail || group_unsure || guest_fail || guest_unsure) {
		if (group_unsure || (!group_fail && guest_unsure)) {
			p->outcome = VO_OUT_UNKNOWN;
			p->unknown_why = "an entry check the oracle cannot decide";
			return;
		}
		p->failing[0] = entry_fail[0], p->failing[1] = entry_fail[1];
		if (group_fail) {
			p->outcome = VO_OUT_VMFAIL;
			p->vmfail_error = 7;
			hit(R_VMFAIL, true);
			return;
		}
		p->outcome = VO_OUT_EXIT;
		p->reason = XR_ENTRY_FAILURE | XR_INVALID_GUEST;
		/* 26.8: qualification 4 for the link pointer, else 0. Several
		 * failing: the processor may name any, so a lone link pointer
		 * failure only is predicted. */
		uint64_t others[2] = { entry_fail[0], entry_fail[1] };
		others[VC_GUEST_LINK / 64] &= ~(1ull << (VC_GUEST_LINK % 64));
		bool only_link = check_bit(entry_fail, VC_GUEST_LINK) && !others[0] && !others[1];
		if (check_bit(entry_fail, VC_GUEST_LINK) && !only_link) {
			p->outcome = VO_OUT_UNKNOWN;
			p->unknown_why = "link pointer among several failing guest checks";
			return;
		}
		p->qual = only_link ? 4 : 0;
		hit(R_ENTRY_FAIL, true);
		return;
	}
	hit(R_VMFAIL, false);
	hit(R_ENTRY_FAIL, false);
	int msr_fail = msr_load_fails(in);
	if (msr_fail < 0) {
		p->outcome = VO_OUT_UNKNOWN;
		p->unknown_why = "an MSR-load entry the oracle does not know";
		return;
	}
	hit(R_MSR_LOAD, msr_fail > 0);
	if (msr_fail) {
		/* 26.8: exit reason 34 with bit 31, the failing entry's number. */
		p->outcome = VO_OUT_EXIT;
		p->reason = XR_ENTRY_FAILURE | XR_MSR_LOADING;
		p->qual = (uint64_t)msr_fail;
		p->rule = R_MSR_LOAD;
		return;
	}

	struct sim s = {
		.in = in, .f = in->vmcs, .l = in->layout, .p = p,
		.m64 = (in->vmcs[VMCS_ROW_ENTRY_CONTROLS] >> ENTRY_IA32E_GUEST) & 1,
		.rax_known = false, .rsp_known = true, .arith_known = true,
		.rsp = in->vmcs[VMCS_ROW_GUEST_RSP], .rflags = in->vmcs[VMCS_ROW_GUEST_RFLAGS],
	};
	const char *why = outside_model(&s);
	if (why) {
		(void)unknown(&s, why);
		return;
	}
	/* RAX is not guest state: L2 starts with L1's, which the oracle does
	 * not take as known until a template sets it. */
	uint32_t e = (uint32_t)in->vmcs[VMCS_ROW_ENTRY_INTR_INFO];
	if (e & EV_VALID) {
		unsigned type = (e >> 8) & 7, vec = e & 0xff;
		hit(R_INJECT, true);
		if (type == T_NMI || type == T_EXTERNAL || type == T_PRIV_SW_EXCEPTION || type == T_OTHER) {
			(void)unknown(&s, "injected NMI, interrupt, INT1 or MTF");
			return;
		}
		/* 26.5.1: delivered as if it had occurred; a fault doing so
		 * reports it in the IDT-vectoring information (bit 12
		 * undefined). EXT: 1 for a hardware exception. */
		uint32_t word = e & (EV_VALID | EV_ERR_VALID | 0x7ffu);
		(void)sim_deliver(&s, NULL, vec, word, (uint32_t)in->vmcs[VMCS_ROW_ENTRY_EXCEPTION_ERROR_CODE],
				  type == T_HW_EXCEPTION);
		if (p->outcome == VO_OUT_EXIT && p->rule != R_HLT)
			p->rule = R_INJECT;
		return;
	}
	hit(R_INJECT, false);
	for (unsigned k = 0; k < in->n_insns && !s.done; k++)
		(void)sim_step(&s, &in->insns[k]);
	if (!s.done)
		(void)unknown(&s, "ran off the end");
}

void vo_predict(const struct vo_input *in, struct vo_prediction *p)
{
	predict(in, p);
	vo_note_prediction(p);
}
