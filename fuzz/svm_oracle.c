/* The #VMEXIT oracle (fuzz/svm_oracle.h): the guest VMRUN enters, run
 * template by template: the instruction intercepts (APM2 15.8-15.11) and
 * the exit code, EXITINFO and nRIP of each; faults go to
 * svm_oracle_events.c. Every prediction names the row of rules[]
 * (svm_oracle_rules.c) it comes from, so a disagreement prints the rule
 * that was broken.
 */
#include "fuzz/svm_oracle_sim.h"

#include <string.h>

bool oracle_strict;

/* ---- Is the entered guest one the oracle models? -------------------------- */

static const char *outside_model(const struct sim *s)
{
	const struct vmcb_save *v = s->v;
	const struct vmcb_control *c = s->c;
	const struct oracle_l2_layout *l = s->l;
	const uint64_t cr0_free = CR0_MP | CR0_TS | CR0_ET | CR0_NE | CR0_WP | CR0_AM | CR0_NW | CR0_CD;
	if ((v->cr0 & ~cr0_free) != (CR0_PE | CR0_PG))
		return "CR0 outside the model";
	const uint64_t cr4_free = CR4_PSE | (1ull << 2) | (1ull << 3) | (1ull << 6) | (1ull << 7) | (1ull << 8) |
				  (1ull << 9) | (1ull << 10) | CR4_OSXSAVE | (1ull << 16) | (1ull << 20) | (1ull << 21);
	const uint64_t efer_free = EFER_SCE | EFER_NXE | EFER_FFXSR | EFER_TCE;
	if (s->m64) {
		if ((v->efer & ~efer_free) != (EFER_SVME | EFER_LME | EFER_LMA) || (v->cr4 & ~cr4_free) != CR4_PAE ||
		    v->cr3 != l->cr3_64 || v->cs.attrib != 0xa9b)
			return "64-bit guest state outside the model";
	} else {
		if ((v->efer & ~efer_free) != EFER_SVME || (v->cr4 & ~cr4_free) != 0 || v->cr3 != l->cr3_32 ||
		    v->cs.attrib != 0xc9b || v->cs.base != 0 || v->cs.limit != 0xffffffffu)
			return "32-bit guest state outside the model";
	}
	const struct vmcb_seg *data[] = { &v->es, &v->ss, &v->ds, &v->fs, &v->gs };
	for (unsigned i = 0; i < 5; i++)
		if (data[i]->attrib != 0xc93 || data[i]->limit != 0xffffffffu ||
		    (data[i]->base != 0 && (s->m64 || data[i]->base != 0x40000000u)))
			return "data segment outside the model";
	/* RFLAGS: bit 1 set; TF, VM, RF, NT and the rest change what runs. */
	const uint64_t rflags_free = 0x8d5 | (1u << 9) | (1u << 18) | (1u << 21) | (3u << 12);
	if ((v->rflags & ~rflags_free) != 2)
		return "RFLAGS outside the model";
	if (v->cpl != 0 || v->dr7 != 0x400 || v->rip != l->start_rip)
		return "CPL, DR7 or RIP outside the model";
	if (c->vintr || c->interrupt_shadow || c->np_control || c->virt_ext || c->pause_filter_count ||
	    (c->tlb_control != 0 && c->tlb_control != 1))
		return "controls outside the model";
	return NULL;
}

/* ---- The instructions --------------------------------------------------- */

static bool ioio_intercepted(const struct sim *s, unsigned port, unsigned size, bool *known)
{
	*known = true;
	if (!intercepted(s, I_IOIO))
		return false;
	uint64_t base = s->c->iopm_base_pa & ~0xfffull;
	if (base + 12288 > s->l->ram_size) {
		*known = false;
		return false;
	}
	/* APM2 15.10.1: one bit per port; every port the access touches. */
	for (unsigned p = port; p < port + size; p++)
		if ((s->l->ram[base + p / 8] >> (p % 8)) & 1u)
			return true;
	return false;
}

static bool msr_intercepted(const struct sim *s, uint32_t msr, bool write, bool *known, bool *in_range)
{
	*known = true;
	*in_range = true;
	if (!intercepted(s, I_MSR))
		return false;
	/* APM2 15.11: 0000_0000-0000_1FFF at 0h, C000_0000-C000_1FFF at 800h,
	 * C001_0000-C001_1FFF at 1000h, two bits per MSR. */
	static const uint32_t first[3] = { 0x00000000u, 0xc0000000u, 0xc0010000u };
	for (unsigned r = 0; r < 3; r++) {
		if (msr - first[r] < 0x2000u) {
			uint64_t bit = (uint64_t)r * 0x800 * 8 + (msr - first[r]) * 2ull + (write ? 1 : 0);
			uint64_t base = s->c->msrpm_base_pa & ~0xfffull;
			if (base + 8192 > s->l->ram_size) {
				*known = false;
				return false;
			}
			return (s->l->ram[base + bit / 8] >> (bit % 8)) & 1u;
		}
	}
	*in_range = false;
	return true;
}

/* Set-up MOVs of a template: what they leave in RAX and RSP. */
static void setup_effects(struct sim *s, const struct l2_insn *i)
{
	switch (i->op) {
	case OP_WRMSR:
	case OP_XSETBV:
		s->rax = (uint32_t)i->value;
		s->rax_known = true;
		break;
	case OP_MOV_TO_CR:
	case OP_MOV_TO_DR:
		if (i->reg == 0) {
			s->rax = s->m64 ? i->value : (uint32_t)i->value;
			s->rax_known = true;
		}
		break;
	case OP_RETF16:
	case OP_SETSP:
		s->rsp = (uint32_t)i->value;   /* mov esp, imm32: zero-extended in 64-bit mode */
		s->rsp_known = true;
		break;
	default:
		break;
	}
}

static const uint64_t *cr_of(const struct sim *s, unsigned n)
{
	switch (n) {
	case 0: return &s->v->cr0;
	case 3: return &s->v->cr3;
	case 4: return &s->v->cr4;
	default: return NULL;
	}
}

/* Would MOV to CRn of val #GP? (APM3 MOV CRn; APM2 3.1.1-3.1.3) */
static bool cr_value_faults(const struct sim *s, unsigned n, uint64_t val)
{
	if (!s->m64)
		val = (uint32_t)val;
	switch (n) {
	case 0:
		return (val >> 32) || ((val & CR0_PG) && !(val & CR0_PE)) || ((val & CR0_NW) && !(val & CR0_CD)) ||
		       (s->m64 && !(val & CR0_PG));
	case 3:
		return s->m64 && (val >> s->in->cpu->id.maxphyaddr);
	case 4:
		return (val & ~oracle_cr4_valid(s->in->cpu)) || (s->m64 && !(val & CR4_PAE));
	case 8:
		return (val >> 4) != 0;
	default:
		return false;
	}
}

/* One template. */
bool sim_step(struct sim *s, const struct l2_insn *i)
{
	struct fault f = { .vector = -1 };
	bool icpt, known, in_range;

	setup_effects(s, i);
	switch (i->op) {
	case OP_NOP:
		return s->done;
	case OP_CPUID:
		hit(R_CPUID, icpt = intercepted(s, I_CPUID));
		if (icpt)
			return insn_exit(s, i, X_CPUID, R_CPUID, 0);
		s->rax_known = false;
		return s->done;
	case OP_RDTSC:
		hit(R_RDTSC, icpt = intercepted(s, I_RDTSC));
		if (icpt)
			return insn_exit(s, i, X_RDTSC, R_RDTSC, 0);
		s->rax_known = false;
		return s->done;
	case OP_RDTSCP:
		if (!(s->in->cpu->id.cpuid81_edx & (1u << 27)))
			return unknown(s, "RDTSCP not reported");
		hit(R_RDTSCP, icpt = intercepted(s, I_RDTSCP));
		if (icpt)
			return insn_exit(s, i, X_RDTSCP, R_RDTSCP, 0);
		s->rax_known = false;
		return s->done;
	case OP_RDPMC:
		hit(R_RDPMC, icpt = intercepted(s, I_RDPMC));
		if (icpt)
			return insn_exit(s, i, X_RDPMC, R_RDPMC, 0);
		/* APM3 RDPMC: #GP for an unimplemented counter; APM2 13.2.1:
		 * every AMD64 processor has PerfCtr0-3, so ECX = 0 (the
		 * template's) reads one. */
		s->rax_known = false;
		return s->done;
	case OP_HLT:
		hit(R_HLT, icpt = intercepted(s, I_HLT));
		if (icpt)
			return insn_exit(s, i, X_HLT, R_HLT, 0);
		hit(R_HALT, true);
		s->p->outcome = OUT_HALT;
		s->p->rule = R_HALT;
		s->done = true;
		return s->done;
	case OP_PAUSE:
		hit(R_PAUSE, icpt = intercepted(s, I_PAUSE));
		if (icpt)
			return insn_exit(s, i, X_PAUSE, R_PAUSE, 0);
		return s->done;
	case OP_INVD:
		hit(R_INVD, icpt = intercepted(s, I_INVD));
		if (icpt)
			return insn_exit(s, i, X_INVD, R_INVD, 0);
		return s->done;
	case OP_WBINVD:
		hit(R_WBINVD, icpt = intercepted(s, I_WBINVD));
		if (icpt)
			return insn_exit(s, i, X_WBINVD, R_WBINVD, 0);
		return s->done;
	case OP_VMMCALL:
		hit(R_VMMCALL, icpt = intercepted(s, I_VMMCALL));
		if (icpt)
			return insn_exit(s, i, X_VMMCALL, R_VMMCALL, 0);
		/* APM3 VMMCALL: #UD when not intercepted. */
		hit(R_VMMCALL_UD, true);
		f = (struct fault){ .vector = V_UD };
		return sim_exception(s, i, &f, 0);
	case OP_INVLPG: {
		hit(R_INVLPG, icpt = intercepted(s, I_INVLPG));
		if (!icpt)
			return s->done;
		insn_exit(s, i, X_INVLPG, R_INVLPG, 0);
		/* APM2 15.33: with decode assists, EXITINFO1 = the linear address. */
		if (s->in->cpu->svm_edx & (1u << 7)) {
			s->p->info1 = linear(s, override_seg(s, i->seg, 3), i->value);
			s->p->defined |= PF_INFO1;
		}
		return s->done;
	}
	case OP_PUSHF: {
		hit(R_PUSHF, icpt = intercepted(s, I_PUSHF));
		if (icpt)
			return insn_exit(s, i, X_PUSHF, R_PUSHF, 0);
		unsigned size = s->m64 ? 8 : 4;
		uint64_t sp = s->m64 ? s->rsp - size : (uint32_t)(s->rsp - size);
		if (!s->rsp_known)
			return unknown(s, "RSP unknown");
		f = sim_data_access(s, 2, sp, size, true);
		if (f.vector >= 0) {
			if (f.vector != V_PF)
				f.error = 0;
			return sim_exception(s, i, &f, 0);
		}
		s->rsp = s->m64 ? sp : (s->rsp & ~0xffffffffull) | sp;
		return s->done;
	}
	case OP_IN:
	case OP_OUT:
	case OP_INS:
	case OP_OUTS: {
		bool in = i->op == OP_IN || i->op == OP_INS;
		bool str = i->op == OP_INS || i->op == OP_OUTS;
		icpt = ioio_intercepted(s, i->imm & 0xffff, i->size, &known);
		if (!known)
			return unknown(s, "IOPM outside RAM");
		hit(R_IOIO, icpt);
		if (icpt) {
			insn_exit(s, i, X_IOIO, R_IOIO_INFO, (in ? 1 : 0) | (str ? 2 : 0) | (i->flags & L2_REP ? 4 : 0) |
						       (i->size == 1 ? 0 : i->size == 2 ? 8 : 16));
			/* APM2 15.10.2: the EXITINFO1 layout. */
			unsigned asize = s->m64 ? (i->flags & L2_ADDR_OVR ? 4 : 8) : (i->flags & L2_ADDR_OVR ? 2 : 4);
			uint64_t info = ((uint64_t)(i->imm & 0xffff) << 16) | (in ? 1 : 0) | (str ? 4 : 0) |
					(i->flags & L2_REP ? 8 : 0) |
					(i->size == 1 ? 0x10 : i->size == 2 ? 0x20 : 0x40) |
					(asize == 2 ? 0x80 : asize == 4 ? 0x100 : 0x200);
			/* SEG: the effective segment of OUTS (DS or the override);
			 * INS writes through ES (0); 0 for IN/OUT. A decode assist:
			 * only with DecodeAssists (Fn8000_000A_EDX[7], APM2 15.33). */
			if (i->op == OP_OUTS && (s->in->cpu->svm_edx & (1u << 7)))
				info |= (uint64_t)override_seg(s, i->seg, 3) << 10;
			s->p->info1 = info;
			s->p->info2 = i->rip + i->len;      /* the next rIP */
			s->p->defined |= PF_INFO1 | PF_INFO2;
			hit(R_IOIO_INFO, true);
			return s->done;
		}
		if (str) {
			/* The memory operand after the port: INS writes ES:rDI,
			 * OUTS reads seg:rSI (set up as value). */
			int seg = i->op == OP_INS ? 0 : override_seg(s, i->seg, 3);
			f = sim_data_access(s, seg, i->value, i->size, in);
			if (f.vector >= 0) {
				if (f.vector != V_PF)
					f.error = 0;
				return sim_exception(s, i, &f, 0);
			}
		}
		if (in)
			s->rax_known = s->rax_known && str;
		return s->done;
	}
	case OP_RDMSR:
	case OP_WRMSR: {
		bool wr = i->op == OP_WRMSR;
		icpt = msr_intercepted(s, i->imm, wr, &known, &in_range);
		if (!known)
			return unknown(s, "MSRPM outside RAM");
		hit(R_MSR, icpt);
		if (intercepted(s, I_MSR))
			hit(R_MSR_OUT_OF_RANGE, !in_range);
		if (icpt) {
			insn_exit(s, i, X_MSR, in_range ? R_MSR : R_MSR_OUT_OF_RANGE, wr);
			s->p->info1 = wr;          /* APM2 15.11: 0 RDMSR, 1 WRMSR */
			s->p->defined |= PF_INFO1;
			return s->done;
		}
		return unknown(s, "MSR access not intercepted");
	}
	case OP_MOV_FROM_CR:
	case OP_MOV_TO_CR: {
		bool wr = i->op == OP_MOV_TO_CR;
		icpt = intercepted(s, (wr ? I_CR_WRITE : I_CR_READ) + i->imm);
		/* APM2 15.9 puts operand-value exceptions after the intercepts,
		 * but points to Table 15-7 for exceptions; hvemu reads that table
		 * as listing a MOV to CR whose value #GPs. The oracle leaves the
		 * order of those two open. */
		if (!oracle_strict && wr && (icpt || (i->imm == 0 && intercepted(s, I_CR0_SEL))) &&
		    cr_value_faults(s, i->imm, i->value))
			return unknown(s, "MOV to CR: faulting value vs intercept (Table 15-7)");
		hit(wr ? R_CR_WRITE : R_CR_READ, icpt);
		if (icpt) {
			insn_exit(s, i, (wr ? X_CR_WRITE : X_CR_READ) + i->imm, wr ? R_CR_WRITE : R_CR_READ, i->imm);
			/* APM2 15.33: MOV CRn: bit 63 set, GPR number in 3:0. */
			if (s->in->cpu->svm_edx & (1u << 7)) {
				s->p->info1 = (1ull << 63) | i->reg;
				s->p->defined |= PF_INFO1;
			}
			return s->done;
		}
		if (!wr) {
			if (i->reg == 0)
				s->rax_known = false;
			if (i->reg == 4)
				s->rsp_known = false;
			return s->done;
		}
		if (i->imm == 0) {
			uint64_t old = s->v->cr0, val = s->m64 ? i->value : (uint32_t)i->value;
			/* APM2 15.8.1: bits other than TS and MP change. */
			bool sel = ((old ^ val) & ~(CR0_TS | CR0_MP)) != 0;
			hit(R_CR0_SEL, sel && intercepted(s, I_CR0_SEL));
			if (sel && intercepted(s, I_CR0_SEL)) {
				insn_exit(s, i, X_CR0_SEL, R_CR0_SEL, 0);
				if (s->in->cpu->svm_edx & (1u << 7)) {
					s->p->info1 = (1ull << 63) | i->reg;
					s->p->defined |= PF_INFO1;
				}
				return s->done;
			}
			bool pg_no_pe = (val & CR0_PG) && !(val & CR0_PE) && !(val >> 32);
			hit(R_CR0_PG_NO_PE, pg_no_pe);
			if (pg_no_pe) {
				f = (struct fault){ .vector = V_GP, .has_error = true };
				sim_exception(s, i, &f, 0);
				if (s->p->outcome == OUT_EXIT)
					s->p->rule = R_CR0_PG_NO_PE;
				return s->done;
			}
		}
		const uint64_t *cur = cr_of(s, i->imm);
		if (cur && (s->m64 ? i->value : (uint32_t)i->value) == *cur)
			return s->done;            /* the same value: nothing changes */
		if (i->imm == 2)
			return s->done;            /* CR2: not compared */
		return unknown(s, "MOV to CR changes the guest");
	}
	case OP_MOV_FROM_DR:
	case OP_MOV_TO_DR: {
		bool wr = i->op == OP_MOV_TO_DR;
		icpt = intercepted(s, (wr ? I_DR_WRITE : I_DR_READ) + i->imm);
		hit(wr ? R_DR_WRITE : R_DR_READ, icpt);
		if (icpt) {
			insn_exit(s, i, (wr ? X_DR_WRITE : X_DR_READ) + i->imm, wr ? R_DR_WRITE : R_DR_READ, i->imm);
			/* APM2 15.33: MOV DRn: GPR number in 3:0. */
			if (s->in->cpu->svm_edx & (1u << 7)) {
				s->p->info1 = i->reg;
				s->p->defined |= PF_INFO1;
			}
			return s->done;
		}
		if (!wr) {
			if (i->reg == 0)
				s->rax_known = false;
			return s->done;
		}
		if (i->imm <= 3)
			return s->done;            /* DR0-3 without DR7 enables: nothing visible */
		return unknown(s, "MOV to DR6/DR7 not intercepted");
	}
	case OP_INTN:
		hit(R_SWINT, icpt = intercepted(s, I_INTN));
		if (icpt) {
			insn_exit(s, i, X_SWINT, R_SWINT, 0);
			/* APM2 15.33: EXITINFO1 = the vector. */
			if (s->in->cpu->svm_edx & (1u << 7)) {
				s->p->info1 = i->imm & 0xff;
				s->p->defined |= PF_INFO1;
			}
			return s->done;
		}
		/* APM2 15.20 / 15.7.2: TYPE 4 (INTn), no error code; EXT = 0. */
		return sim_deliver(s, i, i->imm & 0xff, EV_VALID | ((uint64_t)EV_SOFT << 8) | (i->imm & 0xff), 0);
	case OP_INT3:
		f = (struct fault){ .vector = V_BP };
		if (intercepted(s, I_EXCP + V_BP))
			return sim_exception(s, i, &f, 0);
		hit(R_EXCP, false);
		return sim_deliver(s, i, V_BP, EV_VALID | ((uint64_t)EV_EXCP << 8) | V_BP, 0);
	case OP_UD2:
		f = (struct fault){ .vector = V_UD };
		return sim_exception(s, i, &f, 0);
	case OP_DIV0:
		f = (struct fault){ .vector = V_DE };
		return sim_exception(s, i, &f, 0);
	case OP_ICEBP:
		hit(R_ICEBP, icpt = intercepted(s, I_ICEBP));
		if (icpt)
			return insn_exit(s, i, X_ICEBP, R_ICEBP, 0);
		return unknown(s, "ICEBP #DB");
	case OP_LOAD:
	case OP_STORE: {
		f = sim_data_access(s, override_seg(s, i->seg, 3), i->value, i->size, i->op == OP_STORE);
		if (f.vector >= 0) {
			hit(f.limit ? R_SEG_LIMIT : R_GP_NONCANON, f.vector != V_PF);
			sim_exception(s, i, &f, 0);
			if (s->p->outcome == OUT_EXIT && f.vector != V_PF)
				s->p->rule = f.limit ? R_SEG_LIMIT : R_GP_NONCANON;
			return s->done;
		}
		if (i->op == OP_LOAD)
			s->rax_known = false;
		return s->done;
	}
	case OP_RETF16: {
		/* The first pop: IP at SS:ESP, 2 bytes (APM3 RETF). A present
		 * page goes on to load CS: not modelled. */
		if (s->m64)
			return unknown(s, "RETF in 64-bit mode");
		f = sim_data_access(s, 2, i->value, 2, false);
		if (f.vector == V_PF)
			return sim_exception(s, i, &f, 0);
		return unknown(s, "RETF loads CS");
	}
	case OP_XSETBV:
		/* APM2 15.9: #UD (CR4.OSXSAVE = 0) is checked before the intercept. */
		hit(R_XSETBV_UD, !(s->v->cr4 & CR4_OSXSAVE));
		if (!(s->v->cr4 & CR4_OSXSAVE)) {
			f = (struct fault){ .vector = V_UD };
			sim_exception(s, i, &f, 0);
			if (s->p->outcome == OUT_EXIT)
				s->p->rule = R_XSETBV_UD;
			return s->done;
		}
		hit(R_XSETBV, icpt = intercepted(s, I_XSETBV));
		if (icpt)
			return insn_exit(s, i, X_XSETBV, R_XSETBV, 0);
		hit(R_XSETBV_GP, !(i->value & 1));
		if (!(i->value & 1)) {
			f = (struct fault){ .vector = V_GP, .has_error = true };
			sim_exception(s, i, &f, 0);
			if (s->p->outcome == OUT_EXIT)
				s->p->rule = R_XSETBV_GP;
			return s->done;
		}
		return unknown(s, "XSETBV not intercepted");
	case OP_MONITOR:
	case OP_MWAIT:
		hit(R_MONITOR_UD, !(s->in->cpu->id.cpuid1_ecx & (1u << 3)));
		if (!(s->in->cpu->id.cpuid1_ecx & (1u << 3))) {
			f = (struct fault){ .vector = V_UD };
			sim_exception(s, i, &f, 0);
			if (s->p->outcome == OUT_EXIT)
				s->p->rule = R_MONITOR_UD;
			return s->done;
		}
		return unknown(s, "MONITOR/MWAIT with CPUID MONITOR");
	case OP_SIDT:
	case OP_SGDT:
	case OP_SLDT:
	case OP_STR: {
		unsigned k = i->op - OP_SIDT;
		hit(R_DT_READ, icpt = intercepted(s, I_IDTR_READ + k));
		if (icpt)
			return insn_exit(s, i, X_IDTR_READ + k, R_DT_READ, k);
		if (i->op == OP_SLDT || i->op == OP_STR) {
			s->rax_known = false;        /* into AX */
			return s->done;
		}
		/* APM3 SGDT/SIDT: 6 bytes, 10 in 64-bit mode, at [data]; a
		 * fault on it reports its first byte. */
		f = sim_data_access(s, 3, s->l->data, s->m64 ? 10 : 6, true);
		if (f.vector >= 0)
			return sim_exception(s, i, &f, 0);
		return s->done;
	}
	case OP_LIDT:
	case OP_LGDT:
	case OP_LLDT:
	case OP_LTR: {
		unsigned k = i->op - OP_LIDT;
		hit(R_DT_WRITE, icpt = intercepted(s, I_IDTR_WRITE + k));
		if (icpt)
			return insn_exit(s, i, X_IDTR_WRITE + k, R_DT_WRITE, k);
		return unknown(s, "LIDT/LGDT/LLDT/LTR not intercepted");
	}
	case OP_SETSP:
		return s->done;            /* the set-up MOV did it */
	case OP_RSM:
		hit(R_RSM, icpt = intercepted(s, I_RSM));
		if (icpt)
			return insn_exit(s, i, X_RSM, R_RSM, 0);
		hit(R_RSM_UD, true);
		f = (struct fault){ .vector = V_UD };
		return sim_exception(s, i, &f, 0);
	case OP_INVLPGA:
		/* CPL 0 and EFER.SVME set: no #GP, no #UD before the intercept. */
		hit(R_INVLPGA, icpt = intercepted(s, I_INVLPGA));
		if (icpt)
			return insn_exit(s, i, X_INVLPGA, R_INVLPGA, 0);
		return s->done;
	case OP_VMLOAD:
	case OP_VMSAVE:
	case OP_STGI:
	case OP_CLGI: {
		/* rAX = [data]: page aligned, in RAM. */
		static const unsigned bit[4] = { I_VMLOAD, I_VMSAVE, I_STGI, I_CLGI };
		unsigned k = i->op - OP_VMLOAD;
		if (i->op == OP_VMLOAD || i->op == OP_VMSAVE) {
			s->rax = s->l->data;
			s->rax_known = true;
		}
		hit(R_SVM_INSN, icpt = intercepted(s, bit[k]));
		if (icpt)
			return insn_exit(s, i, X_VMLOAD + k, R_SVM_INSN, k);
		return unknown(s, "VMLOAD/VMSAVE/STGI/CLGI not intercepted");
	}
	default:
		return unknown(s, "template not modelled");
	}
}

static void predict(const struct oracle_input *in, struct oracle_prediction *p);

void oracle_predict(const struct oracle_input *in, struct oracle_prediction *p)
{
	predict(in, p);
	oracle_note_prediction(p);
}

static void predict(const struct oracle_input *in, struct oracle_prediction *p)
{
	memset(p, 0, sizeof(*p));
	p->rule = -1;
	uint32_t fail, unsure;
	oracle_checks(in, &fail, &unsure);
	if (fail) {
		/* APM2 15.5.1: VMEXIT_INVALID; which failing check the processor
		 * names is not the APM's to say, so any of them will do. */
		p->outcome = OUT_EXIT;
		p->exitcode = X_INVALID;
		p->failing_checks = fail | unsure;
		return;
	}
	if (unsure) {
		p->outcome = OUT_UNKNOWN;
		p->unknown_why = "a check the oracle cannot decide";
		p->failing_checks = unsure;
		return;
	}

	struct sim s = {
		.in = in, .v = &in->vmcb->save, .c = &in->vmcb->control, .l = in->layout, .p = p,
		.m64 = (in->vmcb->save.efer & EFER_LMA) != 0,
		.rax = in->vmcb->save.rax, .rsp = in->vmcb->save.rsp, .rflags = in->vmcb->save.rflags,
		.rax_known = true, .rsp_known = true,
	};
	const char *why = outside_model(&s);
	if (why) {
		(void)unknown(&s, why);
		return;
	}
	uint64_t e = s.c->eventinj;
	if (e & EV_VALID) {
		unsigned type = (unsigned)(e >> 8) & 7, vec = (unsigned)e & 0xff;
		hit(R_INJECT, true);
		if (type == EV_NMI || (type == EV_EXCP && (vec == 3 || vec == 4))) {
			(void)unknown(&s, "injected NMI, #BP or #OF");
			return;
		}
		/* APM2 15.20: delivered as the event would be; EXITINTINFO
		 * reports it as injected. EXT: 1 but for INTn. */
		uint64_t word = e & (0xffffffff00000000ull | EV_VALID | EV_ERR_VALID | 0x7ff);
		if (!(e & EV_ERR_VALID))
			word &= 0xffffffffull;
		(void)sim_deliver(&s, NULL, vec, word, type == EV_SOFT ? 0 : 1);
		return;
	}
	hit(R_INJECT, false);
	for (unsigned k = 0; k < in->n_insns && !s.done; k++)
		(void)sim_step(&s, &in->insns[k]);
	if (!s.done)
		(void)unknown(&s, "ran off the end");
}
