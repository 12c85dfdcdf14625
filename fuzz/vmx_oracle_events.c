/* The VMX oracle's faults and events: a data access's #PF, #GP or #SS (SDM
 * Vol.3 4.7, 5.3, 6.15); an exception that the exception bitmap makes a VM
 * exit (25.2) with its interruption information (27.2.2), or delivered
 * through the guest IDT (6.12), and a fault while delivering an event, whose
 * exit reports that event as IDT-vectoring information (27.2.3). */
#include "fuzz/vmx_oracle_sim.h"

static const enum vmcs_row base_row[6] = { VMCS_ROW_GUEST_ES_BASE, VMCS_ROW_GUEST_CS_BASE, VMCS_ROW_GUEST_SS_BASE,
					    VMCS_ROW_GUEST_DS_BASE, VMCS_ROW_GUEST_FS_BASE, VMCS_ROW_GUEST_GS_BASE };
static const enum vmcs_row limit_row[6] = { VMCS_ROW_GUEST_ES_LIMIT, VMCS_ROW_GUEST_CS_LIMIT,
					     VMCS_ROW_GUEST_SS_LIMIT, VMCS_ROW_GUEST_DS_LIMIT,
					     VMCS_ROW_GUEST_FS_LIMIT, VMCS_ROW_GUEST_GS_LIMIT };

uint64_t seg_base(const struct sim *s, int seg)
{
	return s->f[base_row[seg]];
}

uint32_t seg_limit(const struct sim *s, int seg)
{
	return (uint32_t)s->f[limit_row[seg]];
}

struct fault sim_data_access(const struct sim *s, int seg, uint64_t off, unsigned size, bool write)
{
	struct fault f = { .vector = -1 };
	if (s->m64 && !oracle_canonical(seg == 4 || seg == 5 ? seg_base(s, seg) + off : off)) {
		/* SDM Vol.3 6.15: #SS(0) for a stack reference, else #GP(0). */
		f.vector = seg == 2 ? 12 : V_GP;
		f.has_error = true;
		return f;
	}
	/* SDM Vol.3 5.4.1 (Table 5-1): outside 64-bit mode a write through a
	 * code segment (CS, execute/read here) is #GP(0). */
	if (!s->m64 && write && seg == 1) {
		f.vector = V_GP;
		f.has_error = true;
		return f;
	}
	/* SDM Vol.3 5.3: outside 64-bit mode, an access past the expand-up
	 * limit is #SS(0) through SS, else #GP(0). */
	if (!s->m64 && off + size - 1 > seg_limit(s, seg)) {
		f.vector = seg == 2 ? 12 : V_GP;
		f.has_error = true;
		f.limit = true;
		return f;
	}
	uint64_t lin = linear(s, seg, off);
	uint64_t last = s->m64 ? lin + size - 1 : (uint32_t)(lin + size - 1);
	uint64_t probe[2] = { lin, last & ~0xfffull };
	for (unsigned i = 0; i < 2; i++) {
		if (!oracle_page_present(s->l, probe[i])) {
			/* SDM Vol.3 4.7: P 0, W/R, U/S 0 at CPL 0, I/D 0 for data. */
			f.vector = V_PF;
			f.has_error = true;
			f.error = write ? 2 : 0;
			f.cr2 = probe[i];
			return f;
		}
	}
	return f;
}

/* SDM Vol.3 25.2: does the exception exit? Bit `vector` of the exception
 * bitmap; for #PF, the bit says which outcome of the mask/match test exits. */
static bool bitmap_exits(const struct sim *s, unsigned vector, uint32_t error)
{
	bool bit = (F(s, EXCEPTION_BITMAP) >> vector) & 1;
	if (vector != V_PF)
		return bit;
	bool match = (error & (uint32_t)F(s, PF_ERROR_CODE_MASK)) == (uint32_t)F(s, PF_ERROR_CODE_MATCH);
	hit(R_PF_PFEC, bit == match);
	return bit == match;
}

/* SDM Vol.3 6.5 (Table 6-4, 6-5): the double-fault classes. */
static bool contributory(unsigned v)
{
	return v == 0 || (v >= 10 && v <= 13);
}

bool sim_exception(struct sim *s, const struct l2_insn *insn, const struct fault *f, uint32_t in_flight,
		   uint32_t in_error)
{
	unsigned v = (unsigned)f->vector;
	bool sw = insn && insn->op == VO_INT3 && v == V_BP && !in_flight;
	if (in_flight) {
		unsigned first = in_flight & 0xff, type = (in_flight >> 8) & 7;
		bool first_hw = type == T_HW_EXCEPTION;
		/* A #DF or the benign/contributory combinations that make one:
		 * the oracle leaves them alone. */
		if ((first_hw && contributory(first) && contributory(v)) ||
		    (first_hw && first == V_PF && (contributory(v) || v == V_PF)) || (first_hw && first == V_DF))
			return unknown(s, "double-fault combination");
	}
	uint32_t error = f->has_error ? f->error : 0;
	bool exits = bitmap_exits(s, v, error);
	hit(R_EXCP_BITMAP, exits);
	if (!exits) {
		if (in_flight)
			return unknown(s, "a nested exception not exiting (delivered serially)");
		/* Delivered through the guest IDT; EXT 1 but for INT3's own #BP
		 * (SDM Vol.3 6.13). */
		uint32_t word = EV_VALID | (uint32_t)(sw ? T_SW_EXCEPTION : T_HW_EXCEPTION) << 8 | v;
		if (f->has_error)
			word |= EV_ERR_VALID;
		return sim_deliver(s, insn, v, word, error, sw ? 0 : 1);
	}
	/* The shape: which exception, and the information layout it has. */
	unsigned shape = v == V_DE ? 0 : v == V_BP ? 1 : v == V_UD ? 2 : v == V_GP ? 3 : v == 12 ? 4 : v == V_PF ? 5 : 11;
	exit_with(s, insn, XR_EXCEPTION, R_EXCP_BITMAP, shape);
	struct vo_prediction *p = s->p;
	/* 27.2.2: vector, type (3 hardware exception, 6 for INT3's #BP),
	 * error-code valid, valid; the error code. */
	p->intr_info = EV_VALID | (uint32_t)(sw ? T_SW_EXCEPTION : T_HW_EXCEPTION) << 8 | v |
		       (f->has_error ? EV_ERR_VALID : 0);
	if (f->has_error) {
		p->intr_error = error;
		p->defined |= VP_INTR_ERROR;
	}
	hit(R_EXCP_INFO, true);
	if (v == V_PF) {
		/* 27.2.1: the linear address that faulted. */
		p->qual = f->cr2;
		p->defined |= VP_QUAL;
		p->rule = R_PF_QUAL;
		hit(R_PF_QUAL, true);
		p->shape = error & 2 ? 6 : in_flight ? 7 : 5;
	}
	if (sw) {
		/* 27.2.5: INT3's length. */
		p->len = insn->len;
		p->defined |= VP_LEN;
		hit(R_SW_EXCP_LEN, true);
	}
	if (in_flight) {
		p->idt_info = in_flight;
		p->idt_error = in_error;
		if (in_flight & EV_ERR_VALID)
			p->defined |= VP_IDT_ERROR;
		unsigned type = (in_flight >> 8) & 7;
		p->shape = type == T_SW_INT ? 9 : type == T_SW_EXCEPTION ? 10 : p->shape == 7 ? 7 : 8;
		/* 27.2.5: an exit during delivery of a software interrupt or
		 * software exception reports that instruction's length. */
		unsigned t = (in_flight >> 8) & 7;
		if (t == T_SW_INT || t == T_SW_EXCEPTION || t == T_PRIV_SW_EXCEPTION) {
			p->len = insn ? insn->len : (uint32_t)F(s, ENTRY_INSTRUCTION_LEN);
			p->defined |= VP_LEN;
		}
	}
	return true;
}

/* The gate is present: through one of the fuzzer's IDTs (interrupt gates,
 * DPL 0, to a flat DPL-0 code segment whose handler is HLT), deliver at the
 * same privilege. Outside 64-bit mode (SDM Vol.3 6.12.1) push EFLAGS, CS,
 * EIP and the error code at SS:ESP; in 64-bit mode (6.14.2, 6.14.3) align RSP
 * down to 16 bytes and push SS, RSP, RFLAGS, CS, RIP and the error code, 8
 * bytes each. Then clear TF, NT, RF, VM and IF (an interrupt gate) and run
 * the HLT. */
static bool push_frame(struct sim *s, const struct l2_insn *insn, uint32_t word, uint32_t error)
{
	const struct oracle_l2_layout *l = s->l;
	if (F(s, GUEST_IDTR_BASE) != (s->m64 ? l->idt64 : l->idt32))
		return unknown(s, "event delivered through a gate the oracle does not know");
	if (!s->rsp_known)
		return unknown(s, "RSP unknown");
	unsigned w = s->m64 ? 8 : 4;
	unsigned n = (word & EV_ERR_VALID ? 1 : 0) + (s->m64 ? 5 : 3);
	uint64_t top = s->m64 ? s->rsp & ~0xfull : (uint32_t)s->rsp;
	if (!s->m64 && top < 4u * n)
		return unknown(s, "the frame wraps the stack segment");
	for (unsigned k = 1; k <= n; k++) {
		struct fault f = sim_data_access(s, 2, top - (uint64_t)w * k, w, true);
		if (f.vector >= 0) {
			if (f.vector == V_PF)
				f.error = 2;       /* SDM Vol.3 4.7: a supervisor write */
			hit(R_FRAME_PF, true);
			sim_exception(s, insn, &f, word, error);
			if (s->p->outcome == VO_OUT_EXIT && f.vector == V_PF)
				s->p->rule = R_FRAME_PF;
			return s->done;
		}
	}
	hit(R_FRAME_PF, false);
	if (s->m64)
		s->rsp = top - (uint64_t)w * n;
	else
		s->rsp = (s->rsp & ~0xffffffffull) | (uint32_t)(top - 4u * n);
	s->rflags &= ~((1ull << 8) | (1ull << 9) | (1ull << 14) | (1ull << 16) | (1ull << 17));
	struct l2_insn hlt = { .op = VO_HLT, .seg = -1, .rip = l->handler32, .len = 1 };
	return sim_step(s, &hlt);
}

bool sim_deliver(struct sim *s, const struct l2_insn *insn, unsigned vector, uint32_t word, uint32_t error,
		 unsigned ext)
{
	unsigned gate = s->m64 ? 16 : 8;
	uint64_t limit = F(s, GUEST_IDTR_LIMIT);
	bool beyond = (uint64_t)vector * gate + gate - 1 > limit;
	hit(R_GP_IDT_LIMIT, beyond);
	if (beyond) {
		/* SDM Vol.3 6.13: IDT bit 1, EXT bit 0. */
		struct fault f = { .vector = V_GP, .has_error = true, .error = vector * 8 + 2 + ext };
		sim_exception(s, insn, &f, word, error);
		if (s->done && s->p->outcome == VO_OUT_EXIT)
			s->p->rule = R_GP_IDT_LIMIT;
		return s->done;
	}
	uint64_t base = F(s, GUEST_IDTR_BASE);
	uint64_t lin = s->m64 ? base + (uint64_t)vector * gate : (uint32_t)(base + (uint64_t)vector * gate);
	if (s->m64 && (!oracle_canonical(lin) || !oracle_canonical(lin + gate - 1)))
		return unknown(s, "non-canonical IDT");
	uint64_t last = s->m64 ? lin + gate - 1 : (uint32_t)(lin + gate - 1);
	uint64_t probe[2] = { lin, last & ~0xfffull };
	for (unsigned i = 0; i < 2; i++) {
		if (!oracle_page_present(s->l, probe[i])) {
			/* A supervisor read, not present: #PF error 0. */
			struct fault f = { .vector = V_PF, .has_error = true, .error = 0, .cr2 = probe[i] };
			hit(R_PF_GATE, true);
			sim_exception(s, insn, &f, word, error);
			return s->done;
		}
	}
	hit(R_PF_GATE, false);
	return push_frame(s, insn, word, error);
}
