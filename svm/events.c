/* Events into and out of the guest: EVENTINJ (APM2 15.20), EXITINTINFO
 * (APM2 15.7.2), and the virtual interrupt controls (APM2 15.21): V_IRQ,
 * V_INTR_VECTOR, V_INTR_PRIO, V_IGN_TPR, V_TPR, V_INTR_MASKING, and the
 * virtual GIF (APM2 15.33.2).
 */
#include "emu/apic.h"
#include "svm/model.h"

/* APM2 15.20 Table 15-?: the TYPE of an event in EVENTINJ/EXITINTINFO: INT3,
 * INTO and INT1 are exceptions (3), INTn a software interrupt (4). */
static uint64_t svm_type(uint8_t type)
{
	switch (type) {
	case EV_EXTINT:  return SVM_EVENT_INTR;
	case EV_NMI:     return SVM_EVENT_NMI;
	case EV_SOFTINT: return SVM_EVENT_SOFT_INT;
	default:         return SVM_EVENT_EXCEPTION;
	}
}

uint64_t svm_event_word(const struct event *ev)
{
	uint64_t w = ev->vector | (svm_type(ev->type) << SVM_EVENT_TYPE_SHIFT) | SVM_EVENT_VALID;
	if (ev->has_error)
		w |= SVM_EVENT_ERROR_VALID | ((uint64_t)ev->error_code << SVM_EVENT_ERROR_SHIFT);
	return w;
}

const char *svm_eventinj_check(uint64_t w)
{
	if (!(w & SVM_EVENT_VALID))
		return NULL;
	unsigned type = (unsigned)((w & SVM_EVENT_TYPE_MASK) >> SVM_EVENT_TYPE_SHIFT);
	unsigned vector = (unsigned)(w & SVM_EVENT_VECTOR_MASK);
	/* APM2 15.20: TYPE 1 and 5-7 are reserved; an exception (TYPE 3) with
	 * vector 2 (NMI) or above 31 cannot be injected. */
	if (type != SVM_EVENT_INTR && type != SVM_EVENT_NMI && type != SVM_EVENT_EXCEPTION &&
	    type != SVM_EVENT_SOFT_INT)
		return "reserved TYPE";
	if (type == SVM_EVENT_EXCEPTION && (vector == EXC_NMI || vector > 31))
		return "exception TYPE with vector 2 or above 31";
	return NULL;
}

status_t svm_inject(struct svm *s, uint64_t w, uint64_t nrip, uint64_t rip)
{
	struct cpu *cpu = s->cpu;
	unsigned type = (unsigned)((w & SVM_EVENT_TYPE_MASK) >> SVM_EVENT_TYPE_SHIFT);
	struct event ev = { .vector = (uint8_t)(w & SVM_EVENT_VECTOR_MASK) };
	switch (type) {
	case SVM_EVENT_INTR:
		ev.type = EV_EXTINT;
		break;
	case SVM_EVENT_NMI:
		/* APM2 15.20: for TYPE 2 the vector is ignored (it is 2). */
		ev.type = EV_NMI;
		ev.vector = EXC_NMI;
		break;
	case SVM_EVENT_SOFT_INT:
		ev.type = EV_SOFTINT;
		break;
	default:
		/* APM2 15.20: an injected #BP or #OF behaves as INT3/INTO raised it:
		 * the gate's DPL is checked against CPL and a fault in delivery has
		 * EXT = 0. It returns to RIP (no NEXT_RIP for TYPE 3). */
		ev.type = (ev.vector == EXC_BP || ev.vector == EXC_OF) && !svm_quirk_eventinj_plain(s) ? EV_SOFTEXC
													: EV_EXCEPTION;
		break;
	}
	/* APM2 15.20: EV pushes ERRORCODE (in protected mode; the core drops it
	 * in real mode as delivery always does). */
	if ((w & SVM_EVENT_ERROR_VALID) && !svm_quirk_eventinj_drops_error(s, &ev)) {
		ev.has_error = true;
		ev.error_code = (uint32_t)(w >> SVM_EVENT_ERROR_SHIFT);
	}
	/* APM2 15.20: an injected INTn returns to NEXT_RIP on processors with
	 * NRIP_SAVE (the instruction after the one that raised it), whatever its
	 * value; to RIP otherwise. insn_len only when NEXT_RIP makes one. */
	uint64_t return_rip = rip;
	if (ev.type == EV_SOFTINT && svm_feature(s, SVM_FEAT_NRIP_SAVE)) {
		ev.insn_len = nrip >= rip && nrip - rip <= 15 ? (uint8_t)(nrip - rip) : 0;
		return_rip = nrip;
	}
	status_t st = cpu_inject_event(cpu, &ev, rip, return_rip);
	if (st == ST_OK)
		return ST_VMEXIT;  /* the world changed: the run loop looks again */
	return st;
}

void svm_vintr_load(struct svm *s, uint64_t v)
{
	struct cpu *cpu = s->cpu;
	cpu->vintr = (struct virtual_intr){
		.pending = (v & SVM_VINTR_IRQ) != 0,
		.vector = (uint8_t)((v & SVM_VINTR_VECTOR_MASK) >> SVM_VINTR_VECTOR_SHIFT),
		.priority = (uint8_t)((v & SVM_VINTR_PRIO_MASK) >> SVM_VINTR_PRIO_SHIFT),
		.tpr = (uint8_t)(v & SVM_VINTR_TPR_MASK),
		.ignore_tpr = (v & SVM_VINTR_IGN_TPR) != 0,
	};
	/* APM2 15.21.1: with V_INTR_MASKING the guest's IF masks virtual
	 * interrupts only and physical ones follow the host's IF; the guest's CR8
	 * is V_TPR (APM2 15.21.2), the host's TPR stays untouched. */
	if (v & SVM_VINTR_MASKING) {
		cpu->intr_masking = INTR_MASK_HOST_IF;
		cpu->host_if = (s->host.rflags & FLAG_IF) != 0;
		cpu->cr8 = cpu->vintr.tpr;
	} else {
		cpu->intr_masking = INTR_MASK_IF;
	}
	/* APM2 15.33.2: with V_GIF_ENABLE the guest's STGI/CLGI set V_GIF, and a
	 * virtual interrupt waits while it is 0. */
	s->vgif_enabled = svm_feature(s, SVM_FEAT_VGIF) && (v & SVM_VINTR_GIF_ENABLE);
	s->vgif = (v & SVM_VINTR_GIF) != 0;
	s->vintr_held = false;
	if (s->vgif_enabled && !s->vgif && cpu->vintr.pending) {
		s->vintr_held = true;
		cpu->vintr.pending = false;
	}
}

void svm_vgif_set(struct svm *s, bool gif)
{
	struct cpu *cpu = s->cpu;
	s->vgif = gif;
	if (!gif && cpu->vintr.pending) {
		s->vintr_held = true;
		cpu->vintr.pending = false;
	} else if (gif && s->vintr_held) {
		s->vintr_held = false;
		cpu->vintr.pending = true;
	}
	cpu_attend(cpu, ATT_EVENT);
}

status_t svm_vintr_cr8(struct svm *s, struct exit_record *r)
{
	struct cpu *cpu = s->cpu;
	/* APM2 15.21.2: with V_INTR_MASKING the guest's MOV CR8 reads and writes
	 * V_TPR, "the host's TPR stays untouched": physical interrupts keep the
	 * host's priority in the local APIC. */
	if (cpu->intr_masking != INTR_MASK_HOST_IF)
		return ST_OK;
	if (r->cr_access == CR_MOV_TO) {
		cpu->vintr.tpr = (uint8_t)(r->value & 0xf);
		cpu_attend(cpu, ATT_EVENT);   /* V_TPR decides the virtual interrupt */
	} else {
		r->value = cpu->vintr.tpr;
	}
	return ST_HANDLED;
}

uint64_t svm_vintr_save(struct svm *s, uint64_t v)
{
	struct cpu *cpu = s->cpu;
	/* APM2 15.21.4: V_IRQ is written back (cleared once the guest took the
	 * interrupt), and V_TPR with the guest's TPR. */
	v &= ~(SVM_VINTR_IRQ | SVM_VINTR_TPR_MASK);
	if (cpu->vintr.pending || s->vintr_held)
		v |= SVM_VINTR_IRQ;
	uint64_t tpr = (v & SVM_VINTR_MASKING) ? cpu->vintr.tpr : cpu_cr8_read(cpu);
	v |= tpr & SVM_VINTR_TPR_MASK;
	if (s->vgif_enabled)
		v = s->vgif ? (v | SVM_VINTR_GIF) : (v & ~SVM_VINTR_GIF);
	return v;
}
