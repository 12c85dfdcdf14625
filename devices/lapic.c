/* The local APIC: registers, priorities, interrupt acceptance, EOI, errors and
 * IPIs (see lapic.h; the timer is lapic_timer.c). Section numbers are the SDM
 * Vol.3 chapter "Advanced Programmable Interrupt Controller (APIC)". */
#include <string.h>

#include "devices/lapic.h"

/* Register offsets in the xAPIC page (Table 10-1); the x2APIC MSR is
 * 800H + offset / 16 (10.12.1.2). */
enum {
	REG_ID = 0x20, REG_VERSION = 0x30, REG_TPR = 0x80, REG_APR = 0x90, REG_PPR = 0xa0,
	REG_EOI = 0xb0, REG_RRD = 0xc0, REG_LDR = 0xd0, REG_DFR = 0xe0, REG_SVR = 0xf0,
	REG_ISR = 0x100, REG_TMR = 0x180, REG_IRR = 0x200, REG_ESR = 0x280, REG_ICR_LO = 0x300,
	REG_ICR_HI = 0x310, REG_LVT = 0x320, REG_LVT_END = 0x380, REG_TIMER_INITIAL = 0x380,
	REG_TIMER_CURRENT = 0x390, REG_TIMER_DCR = 0x3e0, REG_SELF_IPI = 0x3f0,
};

#define SVR_ENABLE        LAPIC_SVR_ENABLE
#define SVR_WRITABLE      0x3ffu       /* vector, enable, focus checking; no EOI suppression */
#define LVT_MASKED        (1u << 16)
#define LVT_LEVEL         (1u << 15)   /* trigger mode (LINT0/LINT1) */
#define LVT_REMOTE_IRR    (1u << 14)   /* read-only (LINT0/LINT1) */
#define LVT_ACTIVE_LOW    (1u << 13)   /* input pin polarity (LINT0/LINT1) */
#define LVT_DELIVERY(e)   (((e) >> 8) & 7)
#define ICR_LOGICAL       (1u << 11)
#define ICR_ASSERT        (1u << 14)
#define ICR_LEVEL         (1u << 15)
#define ICR_SHORTHAND(v)  (((v) >> 18) & 3)
#define ICR_WRITABLE      0x000ccfffu  /* vector, delivery, dest mode, level, trigger, shorthand */
#define X2APIC_ICR_RESERVED 0xfff33000u /* bits 31:20, 17:16, 13:12 of the low half (10.12.9) */

/* ESR bits of the xAPIC (Figure 10-9, Table 10-2). */
#define ESR_REDIRECTIBLE_IPI   (1u << 4)
#define ESR_SEND_ILLEGAL_VEC   (1u << 5)
#define ESR_RECV_ILLEGAL_VEC   (1u << 6)
#define ESR_ILLEGAL_REGISTER   (1u << 7)

/* The writable bits of each LVT entry (Figure 10-8): vector, delivery mode
 * where the entry has one, polarity and trigger on the LINT pins, mask; the
 * timer's mode (bit 18 only with TSC-deadline mode). Delivery status (bit 12)
 * always reads 0 here: a message is delivered as it is raised. */
static uint32_t lvt_writable(const struct lapic *l, enum lapic_lvt i)
{
	switch (i) {
	case LVT_TIMER:
		return 0xffu | LVT_MASKED | (1u << 17) | (l->has_tsc_deadline ? 1u << 18 : 0);
	case LVT_THERMAL:
	case LVT_PERF:
		return 0x7ffu | LVT_MASKED;
	case LVT_LINT0:
	case LVT_LINT1:
		return 0x7ffu | LVT_ACTIVE_LOW | LVT_LEVEL | LVT_MASKED;
	default:
		return 0xffu | LVT_MASKED;
	}
}

/* ---- the 256-bit registers ---- */

static inline bool bit_test(const uint32_t r[8], unsigned v) { return (r[v >> 5] >> (v & 31)) & 1; }
static inline void bit_set(uint32_t r[8], unsigned v) { r[v >> 5] |= 1u << (v & 31); }
static inline void bit_clear(uint32_t r[8], unsigned v) { r[v >> 5] &= ~(1u << (v & 31)); }

/* The highest vector set, -1 if none. */
static int highest(const uint32_t r[8])
{
	for (int i = 7; i >= 0; i--)
		if (r[i])
			return i * 32 + 31 - __builtin_clz(r[i]);
	return -1;
}

/* ---- priorities (10.8.3) ---- */

/* 10.8.3.1: PPR = TPR if TPR[7:4] >= ISRV[7:4], else ISRV[7:4]:0. */
uint8_t lapic_ppr(const struct lapic *l)
{
	int isrv = highest(l->isr);
	unsigned isr_class = isrv < 0 ? 0 : (unsigned)isrv >> 4;
	return (l->tpr >> 4) >= isr_class ? l->tpr : (uint8_t)(isr_class << 4);
}

/* The fixed vector the APIC would present to the core: the highest IRR bit
 * whose priority class is above PPR's (10.8.3.1: "interrupts whose priority
 * is higher than that specified in the PPR"), or -1. */
static int deliverable(const struct lapic *l)
{
	int v = highest(l->irr);
	if (v < 0 || ((unsigned)v >> 4) <= (unsigned)(lapic_ppr(l) >> 4))
		return -1;
	return v;
}

/* Is LINT pin asserted, after its LVT entry's polarity? */
static bool lint_active(const struct lapic *l, unsigned pin)
{
	return l->lint[pin] != ((l->lvt[LVT_LINT0 + pin] & LVT_ACTIVE_LOW) != 0);
}

/* An ExtINT request: an unmasked LINT pin in ExtINT mode that is asserted (the
 * 8259's INT is a level), or an ExtINT message. ExtINT bypasses IRR, ISR and
 * the priorities (10.8.1 note; 10.5.1). */
static bool extint_pending(const struct lapic *l)
{
	if (l->extint_msg)
		return true;
	for (unsigned pin = 0; pin < 2; pin++) {
		uint32_t e = l->lvt[LVT_LINT0 + pin];
		if (!(e & LVT_MASKED) && LVT_DELIVERY(e) == APIC_DM_EXTINT && lint_active(l, pin))
			return true;
	}
	return false;
}

/* Drive core.intr: a deliverable fixed vector or an ExtINT request; the LINT0
 * pin itself while globally disabled (10.4.3). */
static void update_intr(struct lapic *l)
{
	bool want = l->mode == LAPIC_DISABLED ? l->lint[0] : deliverable(l) >= 0 || extint_pending(l);
	if (want != l->intr_out) {
		l->intr_out = want;
		irq_set(&l->core.intr, want);
	}
}

/* ---- errors (10.5.3) ---- */

/* Record error bits; the error LVT entry raises its interrupt unless masked
 * ("errors are collected regardless of the LVT Error mask bit"). An error
 * found while raising the error interrupt (an illegal vector in the LVT) is
 * recorded but raises nothing more. */
static void report_error(struct lapic *l, uint32_t bits)
{
	l->esr_pending |= bits;
	if (l->raising_error)
		return;
	l->raising_error = true;
	lapic_local_interrupt(l, LVT_ERROR);
	l->raising_error = false;
}

/* ---- accepting interrupts (10.8.4) ---- */

/* A fixed interrupt accepted into IRR, its trigger mode in TMR. Vectors 0-15
 * are illegal: "the interrupt will not be delivered to the processor nor will
 * an IRR bit be set", the receiver records Received Illegal Vector (10.5.2,
 * 10.6.3.1). */
static void request(struct lapic *l, unsigned vector, bool level)
{
	if (vector < 16) {
		report_error(l, ESR_RECV_ILLEGAL_VEC);
		return;
	}
	bit_set(l->irr, vector);
	if (level)
		bit_set(l->tmr, vector);
	else
		bit_clear(l->tmr, vector);
	update_intr(l);
}

static void raise_line(struct irq_line *line)
{
	irq_set(line, true);     /* latched by the core until it takes it */
}

void lapic_local_interrupt(struct lapic *l, enum lapic_lvt i)
{
	uint32_t e = l->lvt[i];
	if (l->mode == LAPIC_DISABLED || (e & LVT_MASKED))
		return;
	/* The timer and the error entry have no delivery mode: fixed (Figure 10-8). */
	unsigned dm = (i == LVT_TIMER || i == LVT_ERROR) ? APIC_DM_FIXED : LVT_DELIVERY(e);
	bool level = (i == LVT_LINT0 || i == LVT_LINT1) && (e & LVT_LEVEL);
	switch (dm) {
	case APIC_DM_FIXED:
		if (level) {
			/* 10.5.1: a level-triggered LINT sets remote IRR when the
			 * interrupt is accepted, EOI clears it; none is taken
			 * meanwhile. */
			if (e & LVT_REMOTE_IRR)
				return;
			if ((e & 0xff) >= 16)
				l->lvt[i] |= LVT_REMOTE_IRR;
		}
		request(l, e & 0xff, level);
		break;
	case APIC_DM_SMI:  raise_line(&l->core.smi); break;
	case APIC_DM_NMI:  raise_line(&l->core.nmi); break;
	case APIC_DM_INIT: raise_line(&l->core.init); break;
	case APIC_DM_EXTINT: update_intr(l); break;   /* a level: INTR follows the pin */
	default: break;                               /* reserved encodings: nothing */
	}
}

void lapic_set_lint(void *opaque, unsigned pin, bool level)
{
	struct lapic *l = opaque;
	if (pin > 1 || l->lint[pin] == level)
		return;
	bool was = lint_active(l, pin);
	l->lint[pin] = level;
	if (l->mode == LAPIC_DISABLED) {
		/* 10.4.3: LINT0 is the INTR pin, LINT1 the NMI pin (an edge). */
		if (pin == 0)
			update_intr(l);
		else if (level)
			raise_line(&l->core.nmi);
		return;
	}
	bool now = lint_active(l, pin);
	uint32_t e = l->lvt[LVT_LINT0 + pin];
	if (LVT_DELIVERY(e) == APIC_DM_EXTINT) {
		update_intr(l);
	} else if (now && (!was || (LVT_DELIVERY(e) == APIC_DM_FIXED && (e & LVT_LEVEL)))) {
		/* Edge-triggered entries take the rising edge; NMI, SMI and INIT
		 * are always edge-triggered (10.5.1 trigger mode). */
		lapic_local_interrupt(l, LVT_LINT0 + pin);
	}
}

bool lapic_accept(struct lapic *l, const struct apic_msg *m)
{
	if (l->mode == LAPIC_DISABLED)
		return false;
	switch (m->delivery) {
	case APIC_DM_FIXED:
	case APIC_DM_LOWEST:
		/* 10.4.7.2: software-disabled, the APIC responds normally to INIT,
		 * NMI, SMI and SIPI messages; it takes no new fixed interrupts. */
		if (!(l->svr & SVR_ENABLE))
			return false;
		request(l, m->vector, m->level);
		return true;
	case APIC_DM_SMI:  raise_line(&l->core.smi); return true;
	case APIC_DM_NMI:  raise_line(&l->core.nmi); return true;
	case APIC_DM_INIT:
		/* 10.6.1: INIT level de-assert is not supported by the Pentium 4
		 * and later APICs: no effect. */
		if (m->deassert)
			return true;
		raise_line(&l->core.init);
		return true;
	case APIC_DM_STARTUP:
		if (l->core.startup)
			l->core.startup(l->core.startup_opaque, m->vector);
		return true;
	case APIC_DM_EXTINT:
		l->extint_msg = true;
		update_intr(l);
		return true;
	default:
		return false;
	}
}

int lapic_intr_ack(void *opaque)
{
	struct lapic *l = opaque;
	int v = -1;
	if (l->mode == LAPIC_DISABLED) {
		v = l->extint_ack ? l->extint_ack(l->extint_opaque) : -1;
	} else if ((v = deliverable(l)) >= 0) {
		/* 10.8.4: acknowledged, the vector moves from IRR to ISR. APIC
		 * interrupts are taken before an ExtINT request (hvemu's order, as
		 * QEMU's: the SDM gives none). */
		bit_clear(l->irr, (unsigned)v);
		bit_set(l->isr, (unsigned)v);
	} else if (extint_pending(l)) {
		l->extint_msg = false;
		v = l->extint_ack ? l->extint_ack(l->extint_opaque) : -1;
	}
	update_intr(l);
	return v;
}

/* 10.8.5: EOI retires the highest ISR bit; for a level-triggered vector (TMR
 * set) the APIC broadcasts an EOI message to the I/O APICs, and a LINT entry
 * waiting on that vector gets its remote IRR cleared. The TMR bit stays: only
 * the next acceptance of the vector changes it (10.8.4). */
static void end_of_interrupt(struct lapic *l)
{
	int v = highest(l->isr);
	if (v < 0)
		return;
	bit_clear(l->isr, (unsigned)v);
	if (bit_test(l->tmr, (unsigned)v)) {
		for (unsigned pin = 0; pin < 2; pin++) {
			uint32_t *e = &l->lvt[LVT_LINT0 + pin];
			if ((*e & LVT_REMOTE_IRR) && (*e & 0xff) == (unsigned)v) {
				*e &= ~LVT_REMOTE_IRR;
				if (lint_active(l, pin))
					lapic_local_interrupt(l, LVT_LINT0 + pin);
			}
		}
		apic_bus_eoi(l->bus, (uint8_t)v);
	}
	update_intr(l);
}

/* ---- destinations (10.6.2, 10.12.10) ---- */

bool lapic_matches(const struct lapic *l, const struct apic_msg *m)
{
	if (l->mode == LAPIC_DISABLED)
		return false;
	/* All ones is a broadcast in either destination mode (10.6.2.1, 10.6.2.2;
	 * FFFFFFFFH in x2APIC mode, 10.12.9). */
	if (m->dest == (m->wide ? 0xffffffffu : 0xffu))
		return true;
	bool x2 = l->mode == LAPIC_X2APIC;
	if (!m->logical)
		return x2 ? m->dest == l->initial_id : (m->dest & 0xff) == l->xapic_id;
	if (x2)   /* 10.12.10.1: cluster in bits 31:16, a bit per processor in 15:0 */
		return (m->dest >> 16) == (l->ldr >> 16) && (m->dest & l->ldr & 0xffff) != 0;
	uint8_t dest = (uint8_t)m->dest, logical_id = (uint8_t)(l->ldr >> 24);
	if ((l->dfr >> 28) == 0xf)   /* flat model: a bit per processor */
		return (dest & logical_id) != 0;
	/* Cluster model (DFR 0H): cluster address in bits 7:4, members in 3:0. */
	return (dest >> 4) == (logical_id >> 4) && (dest & logical_id & 0xf) != 0;
}

/* ---- sending IPIs (10.6.1, Table 10-3) ---- */

static void send_ipi(struct lapic *l, uint32_t lo, uint32_t dest, bool wide)
{
	struct apic_msg m = {
		.vector = (uint8_t)lo, .delivery = LVT_DELIVERY(lo), .logical = (lo & ICR_LOGICAL) != 0,
		.shorthand = (uint8_t)ICR_SHORTHAND(lo), .wide = wide, .dest = dest,
		/* Table 10-3 note 2: a Pentium 4 or later xAPIC sends a
		 * level-triggered IPI as edge-triggered. */
		.level = false,
		.deassert = LVT_DELIVERY(lo) == APIC_DM_INIT && (lo & ICR_LEVEL) && !(lo & ICR_ASSERT),
	};
	/* 10.6.3.1: lowest priority is not sent ("redirectible IPI"); this check
	 * comes first, so an illegal vector is not reported as well. */
	if (m.delivery == APIC_DM_LOWEST) {
		report_error(l, ESR_REDIRECTIBLE_IPI);
		return;
	}
	/* ICR delivery modes 011 and 111 are reserved (10.6.1). Table 10-3: the
	 * self and all-including-self shorthands are valid with fixed delivery
	 * only; the others are undefined and hvemu sends nothing, except NMI on
	 * a model whose manual allows it (lapic.self_nmi). */
	if (m.delivery == APIC_DM_REMOTE_READ || m.delivery == APIC_DM_EXTINT)
		return;
	if ((m.shorthand == APIC_DEST_SELF || m.shorthand == APIC_DEST_ALL) && m.delivery != APIC_DM_FIXED &&
	    !(m.delivery == APIC_DM_NMI && l->self_nmi))
		return;
	/* 10.6.3.1: a fixed IPI with a vector below 16 sets Send Illegal Vector;
	 * the receivers (this APIC too, for a self IPI) reject it. */
	if (m.delivery == APIC_DM_FIXED && m.vector < 16 &&
	    !(m.shorthand == APIC_DEST_SELF && (l->quirks & LAPIC_QUIRK_SELF_IPI_NO_SEND_ERROR)))
		report_error(l, ESR_SEND_ILLEGAL_VEC);
	apic_bus_send(l->bus, &m, l);
}

/* ---- power-up, INIT and mode changes (10.4.7) ---- */

/* 10.4.7.1: IRR, ISR, TMR, ICR, LDR, TPR, the timer and divide registers 0;
 * DFR all ones; LVT entries masked; SVR 0FFH (software disabled). */
static void reset_registers(struct lapic *l)
{
	l->tpr = 0;
	l->ldr = 0;
	l->dfr = 0xffffffffu;
	l->svr = 0xff;
	memset(l->irr, 0, sizeof(l->irr));
	memset(l->isr, 0, sizeof(l->isr));
	memset(l->tmr, 0, sizeof(l->tmr));
	l->esr = l->esr_pending = 0;
	l->icr_lo = l->icr_hi = 0;
	for (unsigned i = 0; i < LVT_COUNT; i++)
		l->lvt[i] = LVT_MASKED;
	l->extint_msg = false;
	lapic_timer_reset(l);
}

void lapic_init(struct lapic *l, uint32_t id, bool x2apic, bool tsc_deadline,
		struct vclock *clock, uint64_t timer_hz, struct apic_bus *bus)
{
	memset(l, 0, sizeof(*l));
	l->bus = bus;
	l->clock = clock;
	l->timer_hz = timer_hz;
	l->initial_id = id;
	l->has_x2apic = x2apic;
	l->has_tsc_deadline = tsc_deadline;
	l->mode = LAPIC_XAPIC;        /* 10.12.5.1: xAPIC mode out of reset */
	l->xapic_id = (uint8_t)id;
	reset_registers(l);
}

void lapic_reset(struct lapic *l)
{
	l->mode = LAPIC_XAPIC;
	l->xapic_id = (uint8_t)l->initial_id;
	reset_registers(l);
	update_intr(l);
}

/* SDM 10.12.10.2: the x2APIC logical ID, cluster ID[19:4] in bits 31:16 and
 * 1 << ID[3:0] below (0 under LAPIC_QUIRK_X2APIC_LDR_ZERO). */
static uint32_t x2apic_ldr(const struct lapic *l)
{
	if (l->quirks & LAPIC_QUIRK_X2APIC_LDR_ZERO)
		return 0;
	return ((l->initial_id >> 4) << 16) | (1u << (l->initial_id & 15));
}

void lapic_init_reset(struct lapic *l)
{
	reset_registers(l);
	if (l->mode == LAPIC_X2APIC)      /* the logical ID is derived from the ID */
		l->ldr = x2apic_ldr(l);
	update_intr(l);
}

void lapic_set_mode(struct lapic *l, enum lapic_mode mode)
{
	if (mode == l->mode)
		return;
	/* SDM 10.4.3: a globally disabled APIC returns to its power-up state
	 * (10.4.7.1), the hardware-assigned ID included: an xAPIC ID a program
	 * wrote is gone, and so is one from before x2APIC mode (10.12.5.1: the
	 * xAPIC ID is the x2APIC ID's low byte). */
	if (mode == LAPIC_DISABLED) {
		reset_registers(l);
		l->xapic_id = (l->quirks & LAPIC_QUIRK_ID_FF_AFTER_DISABLE) ? 0xff : (uint8_t)l->initial_id;
	}
	l->mode = mode;
	if (mode == LAPIC_X2APIC)
		l->ldr = x2apic_ldr(l);
	update_intr(l);
}

/* ---- register access ---- */

uint8_t lapic_tpr(const struct lapic *l)
{
	return l->tpr;
}

void lapic_set_tpr(struct lapic *l, uint8_t tpr)
{
	l->tpr = tpr;
	update_intr(l);
}

/* 10.4.7.2: while software-disabled every LVT entry stays masked. */
static void write_lvt(struct lapic *l, enum lapic_lvt i, uint32_t v)
{
	uint32_t old = l->lvt[i];
	uint32_t keep = (i == LVT_LINT0 || i == LVT_LINT1) ? old & LVT_REMOTE_IRR : 0;
	l->lvt[i] = (v & lvt_writable(l, i)) | keep;
	if (!(l->svr & SVR_ENABLE))
		l->lvt[i] |= LVT_MASKED;
	if (i == LVT_TIMER)
		lapic_timer_lvt_written(l, old);
	update_intr(l);     /* an ExtINT entry may have been (un)masked */
}

static void write_svr(struct lapic *l, uint32_t v)
{
	l->svr = v & SVR_WRITABLE;
	if (!(v & SVR_ENABLE))
		for (unsigned i = 0; i < LVT_COUNT; i++)
			l->lvt[i] |= LVT_MASKED;
	update_intr(l);
}

/* What a register read gives, by xAPIC offset; false: no register there in
 * this mode (or a write-only one in x2APIC mode). */
static bool reg_read(struct lapic *l, unsigned off, bool x2, uint64_t *v)
{
	if (off >= REG_ISR && off < REG_ISR + 0x80) {
		*v = l->isr[(off - REG_ISR) >> 4];
		return true;
	}
	if (off >= REG_TMR && off < REG_TMR + 0x80) {
		*v = l->tmr[(off - REG_TMR) >> 4];
		return true;
	}
	if (off >= REG_IRR && off < REG_IRR + 0x80) {
		*v = l->irr[(off - REG_IRR) >> 4];
		return true;
	}
	if (off >= REG_LVT && off < REG_LVT_END) {
		*v = l->lvt[(off - REG_LVT) >> 4];
		return true;
	}
	switch (off) {
	case REG_ID:
		*v = x2 ? l->initial_id : (uint32_t)l->xapic_id << 24;
		return true;
	case REG_VERSION:
		/* 10.4.8: version, max LVT entry (entries - 1), no EOI-broadcast
		 * suppression (bit 24). */
		*v = LAPIC_VERSION | (uint32_t)(LVT_COUNT - 1) << 16;
		return true;
	case REG_TPR: *v = l->tpr; return true;
	case REG_APR: *v = 0; return !x2;        /* not in Table 10-6 */
	case REG_PPR: *v = lapic_ppr(l); return true;
	case REG_EOI: *v = 0; return !x2;        /* write-only */
	case REG_RRD: *v = 0; return !x2;        /* remote read: P6/Pentium only */
	case REG_LDR: *v = l->ldr; return true;
	case REG_DFR: *v = l->dfr; return !x2;   /* 10.12.1.2: no MSR 80EH */
	case REG_SVR: *v = l->svr; return true;
	case REG_ESR: *v = l->esr; return true;
	case REG_ICR_LO:
		/* 10.12.9: one 64-bit register in x2APIC mode. */
		*v = x2 ? ((uint64_t)l->icr_hi << 32) | l->icr_lo : l->icr_lo;
		return true;
	case REG_ICR_HI: *v = l->icr_hi; return !x2;   /* no MSR 831H */
	case REG_TIMER_INITIAL: *v = l->timer_initial; return true;
	case REG_TIMER_CURRENT: *v = lapic_timer_current(l); return true;
	case REG_TIMER_DCR: *v = l->timer_dcr; return true;
	default: return false;                   /* reserved; SELF IPI is write-only */
	}
}

/* Outcomes of a register write. */
enum write_result { W_OK, W_NO_REGISTER, W_READ_ONLY, W_RESERVED_BITS };

/* A register write, by xAPIC offset. In x2APIC mode every register is 32 bits
 * but the ICR, and reserved bits must be 0 (10.12.1.3). */
static enum write_result reg_write(struct lapic *l, unsigned off, bool x2, uint64_t v)
{
	if (x2 && off != REG_ICR_LO && (v >> 32))
		return W_RESERVED_BITS;
	uint32_t v32 = (uint32_t)v;
	if (off >= REG_LVT && off < REG_LVT_END) {
		enum lapic_lvt i = (enum lapic_lvt)((off - REG_LVT) >> 4);
		uint32_t ro = (i == LVT_LINT0 || i == LVT_LINT1 ? LVT_REMOTE_IRR : 0) | (1u << 12);
		if (x2 && (v32 & ~(lvt_writable(l, i) | ro)))
			return W_RESERVED_BITS;
		write_lvt(l, i, v32);
		return W_OK;
	}
	if ((off >= REG_ISR && off < REG_IRR + 0x80) || off == REG_VERSION || off == REG_PPR ||
	    off == REG_TIMER_CURRENT || (off == REG_APR && !x2) || (off == REG_RRD && !x2))
		return W_READ_ONLY;
	switch (off) {
	case REG_ID:
		if (x2)
			return W_READ_ONLY;     /* 10.12.5.1: the x2APIC ID is read-only */
		/* Writable in xAPIC mode on the modelled APIC (10.4.6: model specific). */
		l->xapic_id = (uint8_t)(v32 >> 24);
		return W_OK;
	case REG_TPR:
		if (x2 && (v32 >> 8))
			return W_RESERVED_BITS;
		lapic_set_tpr(l, (uint8_t)v32);
		return W_OK;
	case REG_EOI:
		if (x2 && v32)             /* Table 10-6: "WRMSR of a non-zero value causes #GP(0)" */
			return W_RESERVED_BITS;
		end_of_interrupt(l);
		return W_OK;
	case REG_LDR:
		if (x2)
			return W_READ_ONLY;     /* derived from the x2APIC ID (10.12.10.2) */
		l->ldr = v32 & 0xff000000u;
		return W_OK;
	case REG_DFR:
		if (x2)
			return W_NO_REGISTER;
		l->dfr = v32 | 0x0fffffffu;     /* bits 27:0 read as 1s (Figure 10-14) */
		return W_OK;
	case REG_SVR:
		if (x2 && (v32 & ~SVR_WRITABLE))
			return W_RESERVED_BITS;
		write_svr(l, v32);
		return W_OK;
	case REG_ESR:
		if (x2 && v32)             /* 10.12.1.3 / Table 10-6 */
			return W_RESERVED_BITS;
		/* 10.5.3: the write publishes the errors found since the last
		 * write and clears them, so back-to-back writes clear the ESR. */
		l->esr = l->esr_pending;
		l->esr_pending = 0;
		return W_OK;
	case REG_ICR_LO:
		if (x2) {
			if (v32 & X2APIC_ICR_RESERVED) {
				if (!(l->quirks & LAPIC_QUIRK_X2APIC_RESERVED_IGNORED))
					return W_RESERVED_BITS;
				v32 &= ~X2APIC_ICR_RESERVED;
			}
			l->icr_hi = (uint32_t)(v >> 32);
			l->icr_lo = v32;
			send_ipi(l, l->icr_lo, l->icr_hi, true);
		} else {
			/* 10.6.1: writing the low doubleword sends the IPI. */
			l->icr_lo = v32 & ICR_WRITABLE;
			send_ipi(l, l->icr_lo, l->icr_hi >> 24, false);
		}
		return W_OK;
	case REG_ICR_HI:
		if (x2)
			return W_NO_REGISTER;
		l->icr_hi = v32 & 0xff000000u;
		return W_OK;
	case REG_TIMER_INITIAL:
		lapic_timer_set_initial(l, v32);
		return W_OK;
	case REG_TIMER_DCR:
		if (x2 && (v32 & ~0xbu))
			return W_RESERVED_BITS;
		lapic_timer_set_divide(l, v32 & 0xb);
		return W_OK;
	case REG_SELF_IPI:
		if (!x2)
			return W_NO_REGISTER;   /* 10.12.11: only in x2APIC mode */
		if ((v32 >> 8) && !(l->quirks & LAPIC_QUIRK_X2APIC_RESERVED_IGNORED))
			return W_RESERVED_BITS;
		/* "identical to ... Self shorthand, edge, fixed, vector" */
		send_ipi(l, (v32 & 0xff) | (APIC_DEST_SELF << 18), 0, true);
		return W_OK;
	default:
		return W_NO_REGISTER;
	}
}

uint32_t lapic_mmio_read(struct lapic *l, unsigned offset)
{
	uint64_t v = 0;
	offset &= 0xfff;
	if (l->mode != LAPIC_XAPIC)
		return 0xffffffffu;     /* not claimed: the caller should not get here */
	/* The 12 bytes after each register are padding (10.4.1). */
	if (offset & 0xf)
		return 0;
	if (!reg_read(l, offset, false, &v))
		/* 10.5.3: "Illegal Register Address: set when the processor is
		 * trying to access a register ... that is reserved". */
		report_error(l, ESR_ILLEGAL_REGISTER);
	return (uint32_t)v;
}

void lapic_eoi(struct lapic *l)
{
	if (l->mode != LAPIC_DISABLED)
		end_of_interrupt(l);
}

void lapic_mmio_write(struct lapic *l, unsigned offset, uint32_t value)
{
	offset &= 0xfff;
	if (l->mode != LAPIC_XAPIC || (offset & 0xf))
		return;
	if (reg_write(l, offset, false, value) == W_NO_REGISTER)
		report_error(l, ESR_ILLEGAL_REGISTER);
	/* Writes to read-only registers are ignored. */
}

/* 10.12.1.2: MSR 800H + n is the register at offset n * 16. */
static bool x2apic_offset(const struct lapic *l, uint32_t index, unsigned *off)
{
	if (l->mode != LAPIC_X2APIC || index < 0x800 || index > 0x8ff)
		return false;      /* 10.12.2: not in x2APIC mode: #GP */
	*off = (index - 0x800) << 4;
	return true;
}

bool lapic_msr_read(struct lapic *l, uint32_t index, uint64_t *value)
{
	unsigned off;
	*value = 0;
	if (!x2apic_offset(l, index, &off))
		return false;
	return reg_read(l, off, true, value);
}

bool lapic_msr_write(struct lapic *l, uint32_t index, uint64_t value)
{
	unsigned off;
	if (!x2apic_offset(l, index, &off))
		return false;
	return reg_write(l, off, true, value) == W_OK;
}
