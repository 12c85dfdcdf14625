/* The oracle's faults and events: a data access's #PF, #GP or #SS (APM2
 * 4.12, 5.3, 8.4.2); an exception intercepted (APM2 15.12: EXITINFO1/2) or
 * delivered through the guest IDT (APM2 8.4, 8.7.3), and a fault while
 * delivering one (APM2 8.2.9, 15.7.2: EXITINTINFO). */
#include "fuzz/svm_oracle_sim.h"

/* A data access of size bytes at seg:off (supervisor: CPL 0). */
struct fault sim_data_access(const struct sim *s, int seg, uint64_t off, unsigned size, bool write)
{
	struct fault f = { .vector = -1 };
	if (s->m64 && !oracle_canonical(seg == 4 || seg == 5 ? seg_of(s, seg)->base + off : off)) {
		f.vector = seg == 2 ? 12 : V_GP;   /* APM2 4.12: #SS for stack references */
		f.has_error = true;
		return f;
	}
	/* APM2 4.12.2 (limit checks): outside 64-bit mode an access past the
	 * (expand-up) limit is #SS(0) for SS, else #GP(0). */
	if (!s->m64 && off + size - 1 > seg_of(s, seg)->limit) {
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
			/* APM2 8.4.2: P = 0, W/R, U/S = 0 at CPL 0, I/D = 0 for data. */
			f.vector = V_PF;
			f.has_error = true;
			f.error = write ? 2 : 0;
			f.cr2 = probe[i];
			f.wrapped = !s->m64 && seg_of(s, seg)->base + off > 0xffffffffull;
			f.crossed = i == 1;
			return f;
		}
	}
	return f;
}

bool sim_exception(struct sim *s, const struct l2_insn *insn, const struct fault *f, uint64_t in_flight)
{
	unsigned v = (unsigned)f->vector;
	bool icpt = intercepted(s, I_EXCP + v);
	hit(R_EXCP, icpt);
	if (!icpt) {
		if (in_flight)
			return unknown(s, "a second exception not intercepted (#DF rules)");
		/* APM2 15.20 / 8.4: delivered through the guest's IDT; TYPE 3,
		 * EV with the error code; EXT = 1 (the processor raised it). */
		uint64_t word = EV_VALID | ((uint64_t)EV_EXCP << 8) | v;
		if (f->has_error)
			word |= EV_ERR_VALID | ((uint64_t)f->error << 32);
		if (v == V_BP && insn && insn->op == OP_INT3)
			return sim_deliver(s, insn, v, word, 0);
		return sim_deliver(s, insn, v, word, 1);
	}
	if (in_flight) {
		/* APM2 8.2.9 (double fault): a contributory fault delivering a
		 * contributory one, or anything but a benign fault delivering a
		 * #PF, makes a #DF; the oracle leaves those alone. */
		unsigned first = (unsigned)in_flight & 0xff, type = (unsigned)(in_flight >> 8) & 7;
		bool first_contrib = type == EV_EXCP && (first == 0 || (first >= 10 && first <= 13));
		bool first_pf = type == EV_EXCP && first == V_PF;
		bool second_contrib = v == 0 || (v >= 10 && v <= 13);
		if ((first_contrib && second_contrib) || (first_pf && (second_contrib || v == V_PF)))
			return unknown(s, "double-fault combination");
		hit(R_DELIVER_SERIAL, true);
	}
	exit_with(s, insn, X_EXCP + v, R_EXCP, v);
	struct oracle_prediction *p = s->p;
	/* APM2 15.12: EXITINFO1 is the error code the exception would push. */
	if (f->has_error) {
		p->info1 = f->error;
		p->defined |= PF_INFO1;
	}
	if (v == V_PF) {
		p->info2 = f->cr2;
		p->defined |= PF_INFO2;
		p->rule = f->wrapped ? R_PF_WRAP : f->crossed ? R_PF_CROSS : R_PF_INFO;
		hit(R_PF_INFO, true);
		hit(R_PF_WRAP, f->wrapped);
		hit(R_PF_CROSS, f->crossed);
		p->shape = (f->error & 2 ? 1 : 0) | (f->wrapped ? 2 : 0) | (f->crossed ? 4 : 0) | (in_flight ? 8 : 0);
	} else if (in_flight) {
		p->shape = 16 + v % 16;
	}
	/* APM2 15.7.1: INT3 (and INTO, BOUND) are instructions: nRIP is saved. */
	if (insn && v == V_BP && insn->op == OP_INT3) {
		p->nrip = insn->rip + insn->len;
	}
	p->intinfo = in_flight;
	return true;
}


/* The gate is present: outside 64-bit mode, through one of the fuzzer's
 * IDTs (32-bit or 16-bit interrupt gates, DPL 0, to a code segment at DPL 0
 * whose handler is HLT), deliver at the same privilege (APM2 8.7.3): push
 * (E)FLAGS, CS, (E)IP and the error code at SS:ESP, each 4 or 2 bytes as the
 * gate's size, clear TF, NT, RF, VM and IF, and run the handler's HLT. */
static bool push_frame(struct sim *s, const struct l2_insn *insn, uint64_t word)
{
	const struct oracle_l2_layout *l = s->l;
	uint64_t base = s->v->idtr.base;
	if (s->m64 || (base != l->idt32 && base != l->idt16))
		return unknown(s, "event delivered through a gate the oracle does not know");
	if (!s->rsp_known)
		return unknown(s, "RSP unknown");
	/* APM2 15.20: EV asks "the exception" to push ERRORCODE; what it does
	 * for an interrupt TYPE the APM does not say. */
	if ((word & EV_ERR_VALID) && ((word >> 8) & 7) != EV_EXCP)
		return unknown(s, "EVENTINJ EV with a TYPE other than exception");
	bool gate16 = base == l->idt16;
	unsigned w = gate16 ? 2 : 4, n = word & EV_ERR_VALID ? 4 : 3;
	uint32_t esp = (uint32_t)s->rsp;
	if (esp < w * n)
		return unknown(s, "the frame wraps the stack segment");
	for (unsigned k = 1; k <= n; k++) {
		struct fault f = sim_data_access(s, 2, esp - w * k, w, true);
		if (f.vector >= 0) {
			f.error = f.vector == V_PF ? 2 : 0;   /* APM2 8.4.2: a write */
			hit(R_FRAME_PF, true);
			sim_exception(s, insn, &f, word);
			if (s->p->outcome == OUT_EXIT && f.vector == V_PF)
				s->p->rule = f.wrapped ? R_PF_WRAP : R_FRAME_PF;
			return s->done;
		}
	}
	hit(R_FRAME_PF, false);
	s->rsp = (s->rsp & ~0xffffffffull) | (uint32_t)(esp - w * n);
	/* APM2 8.7.3: interrupt gates clear IF; TF, NT, RF and VM go too. */
	s->rflags &= ~((1ull << 8) | (1ull << 9) | (1ull << 14) | (1ull << 16) | (1ull << 17));
	struct l2_insn hlt = { .op = OP_HLT, .seg = -1, .rip = gate16 ? l->handler16 : l->handler32, .len = 1 };
	return sim_step(s, &hlt);
}

bool sim_deliver(struct sim *s, const struct l2_insn *insn, unsigned vector, uint64_t word, unsigned ext)
{
	unsigned gate = s->m64 ? 16 : 8;
	uint64_t limit = s->v->idtr.limit;
	bool beyond = (uint64_t)vector * gate + gate - 1 > limit;
	hit(R_GP_IDT_LIMIT, beyond);
	if (beyond) {
		struct fault f = { .vector = V_GP, .has_error = true, .error = vector * 8 + 2 + ext };
		sim_exception(s, insn, &f, word);
		if (!s->done || s->p->outcome != OUT_EXIT)
			return s->done;
		s->p->rule = R_GP_IDT_LIMIT;
		return s->done;
	}
	uint64_t base = s->v->idtr.base;
	uint64_t lin = s->m64 ? base + (uint64_t)vector * gate : (uint32_t)(base + (uint64_t)vector * gate);
	if (s->m64 && (!oracle_canonical(lin) || !oracle_canonical(lin + gate - 1))) {
		unknown(s, "non-canonical IDT");
		return s->done;
	}
	uint64_t last = s->m64 ? lin + gate - 1 : (uint32_t)(lin + gate - 1);
	uint64_t probe[2] = { lin, last & ~0xfffull };
	for (unsigned i = 0; i < 2; i++) {
		if (!oracle_page_present(s->l, probe[i])) {
			/* APM2 8.4.2: a supervisor read, not present: error code 0. */
			struct fault f = { .vector = V_PF, .has_error = true, .error = 0, .cr2 = probe[i],
					   .wrapped = !s->m64 && base + (uint64_t)vector * gate > 0xffffffffull,
					   .crossed = i == 1 };
			sim_exception(s, insn, &f, word);
			if (s->p->outcome == OUT_EXIT)
				hit(R_INTINFO, true);
			return s->done;
		}
	}
	return push_frame(s, insn, word);
}
