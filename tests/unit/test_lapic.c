/* Check suite for devices/lapic.c, lapic_timer.c and apic_bus.c: the local
 * APIC on its own, two of them on an APIC bus, a fake processor core (what the
 * APIC raised) and a fake clock. Expected values are the SDM Vol.3 APIC
 * chapter's (section numbers as in lapic.c). */
#include <check.h>
#include <string.h>

#include "devices/lapic.h"
#include "suite_runner.h"

/* What a local APIC drove in its core. */
struct core_log {
	bool intr;
	unsigned nmi, smi, init, startups;
	uint8_t startup_vector;
};

enum { PIN_INTR, PIN_NMI, PIN_SMI, PIN_INIT };

static void core_line(void *opaque, unsigned pin, bool level)
{
	struct core_log *c = opaque;
	switch (pin) {
	case PIN_INTR: c->intr = level; break;
	case PIN_NMI:  c->nmi += level; break;
	case PIN_SMI:  c->smi += level; break;
	default:       c->init += level; break;
	}
}

static void core_startup(void *opaque, uint8_t vector)
{
	struct core_log *c = opaque;
	c->startups++;
	c->startup_vector = vector;
}

/* Two local APICs (IDs 0 and 1) on one bus, the timer at the clock's rate. */
struct rig {
	struct vclock clock;
	uint64_t now;
	struct apic_bus bus;
	struct lapic l[2];
	struct core_log core[2];
	unsigned eois;
	uint8_t last_eoi;
	int pic_vector;            /* what the fake 8259 answers at INTA */
	unsigned pic_acks;
};

static struct rig R;

static uint64_t rig_now(void *ctx)
{
	return ((struct rig *)ctx)->now;
}

static void rig_eoi(void *opaque, uint8_t vector)
{
	struct rig *r = opaque;
	r->eois++;
	r->last_eoi = vector;
}

static int rig_pic_ack(void *opaque)
{
	struct rig *r = opaque;
	r->pic_acks++;
	return r->pic_vector;
}

static void setup(void)
{
	memset(&R, 0, sizeof(R));
	vclock_init(&R.clock, 1000000000ull);
	R.clock.now = rig_now;
	R.clock.now_ctx = &R;
	R.bus.n = 2;
	R.bus.eoi = rig_eoi;
	R.bus.eoi_opaque = &R;
	for (unsigned i = 0; i < 2; i++) {
		struct lapic *l = &R.l[i];
		lapic_init(l, i, true, true, &R.clock, 1000000000ull, &R.bus);
		struct core_log *c = &R.core[i];
		l->core = (struct lapic_core){
			.intr = { core_line, c, PIN_INTR }, .nmi = { core_line, c, PIN_NMI },
			.smi = { core_line, c, PIN_SMI }, .init = { core_line, c, PIN_INIT },
			.startup = core_startup, .startup_opaque = c,
		};
		l->extint_ack = rig_pic_ack;
		l->extint_opaque = &R;
		R.bus.lapic[i] = l;
	}
	R.pic_vector = 0x20;
}

static void advance(uint64_t ticks)
{
	R.now += ticks;
	vclock_run_due(&R.clock, R.now);
}

static uint32_t rd(struct lapic *l, unsigned off) { return lapic_mmio_read(l, off); }
static void wr(struct lapic *l, unsigned off, uint32_t v) { lapic_mmio_write(l, off, v); }

static bool irr(const struct lapic *l, unsigned v) { return (l->irr[v / 32] >> (v % 32)) & 1; }
static bool isr(const struct lapic *l, unsigned v) { return (l->isr[v / 32] >> (v % 32)) & 1; }

/* Software-enable with spurious vector FFH. */
static void enable(struct lapic *l) { wr(l, 0xf0, 0x1ff); }

/* ESR as software reads it: write, then read (10.5.3). */
static uint32_t esr(struct lapic *l)
{
	wr(l, 0x280, 0);
	return rd(l, 0x280);
}

/* ---- registers ---- */

START_TEST(power_up_state)
{
	struct lapic *l = &R.l[1];
	/* 10.4.6: the ID in bits 31:24; 10.4.8: version 14H, max LVT entry 5. */
	ck_assert_uint_eq(rd(l, 0x20), 0x01000000);
	ck_assert_uint_eq(rd(l, 0x30), 0x00050014);
	/* 10.4.7.1 */
	ck_assert_uint_eq(rd(l, 0xf0), 0xff);
	ck_assert_uint_eq(rd(l, 0xe0), 0xffffffffu);
	ck_assert_uint_eq(rd(l, 0xd0), 0);
	ck_assert_uint_eq(rd(l, 0x80), 0);
	for (unsigned off = 0x320; off < 0x380; off += 0x10)
		ck_assert_uint_eq(rd(l, off), 0x10000);
	ck_assert_uint_eq(rd(l, 0x380), 0);
	ck_assert_uint_eq(rd(l, 0x3e0), 0);
	ck_assert(!R.core[1].intr);
	/* The 12 bytes after a register are padding. */
	ck_assert_uint_eq(rd(l, 0x34), 0);
}
END_TEST

START_TEST(software_disable_forces_masks)
{
	struct lapic *l = &R.l[0];
	/* 10.4.7.2: while software-disabled the LVT mask bits stay set. */
	wr(l, 0x350, 0x700);
	ck_assert_uint_eq(rd(l, 0x350), 0x10700);
	enable(l);
	wr(l, 0x350, 0x700);
	wr(l, 0x320, 0x40);
	ck_assert_uint_eq(rd(l, 0x350), 0x700);
	ck_assert_uint_eq(rd(l, 0x320), 0x40);
	wr(l, 0xf0, 0xff);                  /* software disable */
	for (unsigned off = 0x320; off < 0x380; off += 0x10)
		ck_assert_uint_ne(rd(l, off) & 0x10000, 0);
	ck_assert_uint_eq(rd(l, 0x320), 0x10040);
	/* A self IPI is not accepted while software-disabled... */
	wr(l, 0x300, 0x40050);
	ck_assert(!irr(l, 0x50));
	/* ...and enabled again, the masks stay until written. */
	enable(l);
	ck_assert_uint_eq(rd(l, 0x320), 0x10040);
	wr(l, 0x300, 0x40050);
	ck_assert(irr(l, 0x50));
}
END_TEST

START_TEST(writable_bits)
{
	struct lapic *l = &R.l[0];
	enable(l);
	wr(l, 0x80, 0xffffffffu);            /* TPR: bits 7:0 */
	ck_assert_uint_eq(rd(l, 0x80), 0xff);
	wr(l, 0xd0, 0xffffffffu);            /* LDR: bits 31:24 */
	ck_assert_uint_eq(rd(l, 0xd0), 0xff000000u);
	wr(l, 0xe0, 0);                      /* DFR: model in 31:28, the rest ones */
	ck_assert_uint_eq(rd(l, 0xe0), 0x0fffffffu);
	wr(l, 0x3e0, 0xffffffffu);           /* divide: bits 3, 1:0 */
	ck_assert_uint_eq(rd(l, 0x3e0), 0xb);
	wr(l, 0x360, 0xffffffffu);           /* LINT1: no remote IRR, no status */
	ck_assert_uint_eq(rd(l, 0x360), 0x1a7ff);
	wr(l, 0x370, 0xffffffffu);           /* error: vector and mask */
	ck_assert_uint_eq(rd(l, 0x370), 0x100ff);
	wr(l, 0x320, 0xffffffffu);           /* timer: vector, mask, mode 18:17 */
	ck_assert_uint_eq(rd(l, 0x320), 0x700ff);
	wr(l, 0x20, 0x05000000);             /* the xAPIC ID is writable here */
	ck_assert_uint_eq(rd(l, 0x20), 0x05000000);
	wr(l, 0x30, 0);                      /* read-only */
	ck_assert_uint_eq(rd(l, 0x30), 0x00050014);
}
END_TEST

/* ---- fixed interrupts, priorities, EOI ---- */

START_TEST(self_ipi_accept_eoi)
{
	struct lapic *l = &R.l[0];
	enable(l);
	wr(l, 0x300, 0x40061);               /* self, fixed, vector 61H */
	ck_assert(irr(l, 0x61));
	ck_assert(R.core[0].intr);
	ck_assert_uint_eq(rd(l, 0x300) & (1u << 12), 0);   /* delivery status idle */
	/* 10.8.4: INTA moves the vector from IRR to ISR. */
	ck_assert_int_eq(lapic_intr_ack(l), 0x61);
	ck_assert(!irr(l, 0x61));
	ck_assert(isr(l, 0x61));
	ck_assert(!R.core[0].intr);
	ck_assert_uint_eq(rd(l, 0x130), 1u << 1);         /* ISR bits 127:96 */
	ck_assert_uint_eq(rd(l, 0xa0), 0x60);             /* PPR = ISRV class */
	wr(l, 0xb0, 0);
	ck_assert(!isr(l, 0x61));
	ck_assert_uint_eq(rd(l, 0xa0), 0);
	ck_assert_uint_eq(R.eois, 0);         /* edge: no EOI broadcast */
	ck_assert_int_eq(lapic_intr_ack(l), -1);
	/* The other APIC saw nothing. */
	ck_assert(!irr(&R.l[1], 0x61));
}
END_TEST

START_TEST(tpr_masks_by_class)
{
	struct lapic *l = &R.l[0];
	enable(l);
	wr(l, 0x80, 0x55);
	ck_assert_uint_eq(rd(l, 0xa0), 0x55);              /* PPR = TPR */
	wr(l, 0x300, 0x40050);                             /* class 5 = TPR class: held */
	ck_assert(irr(l, 0x50));
	ck_assert(!R.core[0].intr);
	lapic_set_tpr(l, 0x40);                            /* CR8 = 4 */
	ck_assert(R.core[0].intr);
	ck_assert_uint_eq(lapic_tpr(l), 0x40);
	ck_assert_int_eq(lapic_intr_ack(l), 0x50);
	/* In service class 5: a class-5 request waits, class 6 preempts. */
	wr(l, 0x300, 0x40058);
	ck_assert(!R.core[0].intr);
	wr(l, 0x300, 0x40062);
	ck_assert(R.core[0].intr);
	ck_assert_int_eq(lapic_intr_ack(l), 0x62);
	ck_assert_uint_eq(rd(l, 0xa0), 0x60);
	wr(l, 0xb0, 0);                                    /* ends 62H */
	ck_assert_uint_eq(rd(l, 0xa0), 0x50);
	ck_assert(!R.core[0].intr);
	wr(l, 0xb0, 0);                                    /* ends 50H: 58H now */
	ck_assert(R.core[0].intr);
	ck_assert_int_eq(lapic_intr_ack(l), 0x58);
}
END_TEST

/* ---- errors ---- */

START_TEST(error_register_semantics)
{
	struct lapic *l = &R.l[0];
	enable(l);
	ck_assert_uint_eq(esr(l), 0);
	/* 10.6.3.1: a fixed IPI with a vector below 16: Send Illegal Vector; the
	 * receiver (itself) Received Illegal Vector, no IRR bit. */
	wr(l, 0x300, 0x40003);
	ck_assert_uint_eq(rd(l, 0x280), 0);       /* not visible before the write */
	ck_assert_uint_eq(esr(l), 0x60);
	ck_assert(!irr(l, 3));
	ck_assert_uint_eq(esr(l), 0);             /* back-to-back writes clear it */
	/* Illegal register address (reserved offset 40H). */
	(void)rd(l, 0x40);
	ck_assert_uint_eq(esr(l), 0x80);
	/* Lowest priority IPI: redirectible IPI, nothing sent, and no illegal
	 * vector reported with it. */
	wr(l, 0x300, 0xc0105);
	ck_assert_uint_eq(esr(l), 0x10);
	ck_assert(!irr(&R.l[1], 5));
	/* The error LVT raises its vector for each error, once it is unmasked. */
	wr(l, 0x370, 0xe0);
	wr(l, 0x300, 0x40001);
	ck_assert(irr(l, 0xe0));
	ck_assert_uint_eq(esr(l), 0x60);
	/* An illegal vector in the error LVT itself: recorded, no recursion. */
	wr(l, 0x370, 0x05);
	(void)rd(l, 0x50);
	ck_assert_uint_eq(esr(l), 0xc0);
}
END_TEST

/* ---- the timer ---- */

START_TEST(timer_one_shot_and_divide)
{
	struct lapic *l = &R.l[0];
	enable(l);
	wr(l, 0x3e0, 0xb);                   /* divide by 1 */
	wr(l, 0x320, 0x30);
	R.now = 1000;
	wr(l, 0x380, 100);
	ck_assert_uint_eq(rd(l, 0x390), 100);
	advance(40);
	ck_assert_uint_eq(rd(l, 0x390), 60);
	advance(59);
	ck_assert(!irr(l, 0x30));
	advance(1);                           /* 100 ticks: count reached 0 */
	ck_assert(irr(l, 0x30));
	ck_assert_uint_eq(rd(l, 0x390), 0);
	ck_assert_int_eq(lapic_intr_ack(l), 0x30);
	wr(l, 0xb0, 0);
	advance(1000);                        /* one-shot: nothing more */
	ck_assert(!irr(l, 0x30));
	/* Divide by 16: 10 counts take 160 ticks. */
	wr(l, 0x3e0, 0x3);
	wr(l, 0x380, 10);
	advance(159);
	ck_assert_uint_eq(rd(l, 0x390), 1);
	ck_assert(!irr(l, 0x30));
	advance(1);
	ck_assert(irr(l, 0x30));
	/* Divide encodings (Figure 10-10): 0 -> 2, 0AH -> 128. */
	wr(l, 0x3e0, 0x0);
	wr(l, 0x380, 3);
	advance(5);
	ck_assert_uint_eq(rd(l, 0x390), 1);
	wr(l, 0x3e0, 0xa);
	wr(l, 0x380, 2);
	advance(255);
	ck_assert_uint_eq(rd(l, 0x390), 1);
	/* Initial count 0 stops the timer. */
	wr(l, 0x380, 0);
	ck_assert_uint_eq(rd(l, 0x390), 0);
	ck_assert(!l->timer.armed);
}
END_TEST

START_TEST(timer_periodic_and_masked)
{
	struct lapic *l = &R.l[0];
	enable(l);
	wr(l, 0x3e0, 0xb);
	wr(l, 0x320, 0x20031);               /* periodic, vector 31H */
	wr(l, 0x380, 50);
	for (unsigned i = 0; i < 3; i++) {
		advance(49);
		ck_assert(!irr(l, 0x31));
		advance(1);
		ck_assert(irr(l, 0x31));
		ck_assert_uint_eq(rd(l, 0x390), 50);   /* reloaded */
		ck_assert_int_eq(lapic_intr_ack(l), 0x31);
		wr(l, 0xb0, 0);
	}
	/* 10.5.4: masked, the timer keeps counting without interrupting. */
	wr(l, 0x320, 0x30031);
	advance(50);
	ck_assert(!irr(l, 0x31));
	ck_assert_uint_eq(rd(l, 0x390), 50);
	wr(l, 0x320, 0x20031);
	advance(25);
	ck_assert_uint_eq(rd(l, 0x390), 25);
}
END_TEST

START_TEST(timer_tsc_deadline)
{
	struct lapic *l = &R.l[0];
	enable(l);
	/* Outside TSC-deadline mode the MSR reads 0 and ignores writes. */
	lapic_set_tsc_deadline(l, 500, 500);
	ck_assert_uint_eq(lapic_tsc_deadline(l), 0);
	ck_assert(!l->timer.armed);
	/* A running one-shot count is disarmed by the switch to TSC deadline. */
	wr(l, 0x380, 1000);
	wr(l, 0x320, 0x40040);
	ck_assert(!l->timer.armed);
	ck_assert_uint_eq(rd(l, 0x390), 0);
	wr(l, 0x380, 10);                        /* ignored in this mode */
	ck_assert_uint_eq(rd(l, 0x380), 1000);
	ck_assert(!l->timer.armed);
	lapic_set_tsc_deadline(l, 12345, 300);
	ck_assert_uint_eq(lapic_tsc_deadline(l), 12345);
	advance(299);
	ck_assert(!irr(l, 0x40));
	advance(1);
	ck_assert(irr(l, 0x40));
	ck_assert_uint_eq(lapic_tsc_deadline(l), 0);   /* disarmed, cleared */
	/* Writing 0 disarms; a deadline in the past fires at once. */
	lapic_set_tsc_deadline(l, 7, 400);
	lapic_set_tsc_deadline(l, 0, 0);
	ck_assert(!l->timer.armed);
	lapic_set_tsc_deadline(l, 1, 0);
	ck_assert(l->timer.armed);
	ck_assert_uint_eq(l->timer.when, R.now);
}
END_TEST

/* ---- IPIs between APICs ---- */

START_TEST(ipi_physical_logical_broadcast)
{
	struct lapic *a = &R.l[0], *b = &R.l[1];
	enable(a);
	enable(b);
	/* Physical destination 1. */
	wr(a, 0x310, 0x01000000);
	wr(a, 0x300, 0x00041);
	ck_assert(irr(b, 0x41) && !irr(a, 0x41));
	/* Flat logical: LDR bits 01H and 02H, destination 02H. */
	wr(a, 0xd0, 0x01000000);
	wr(b, 0xd0, 0x02000000);
	wr(a, 0x310, 0x02000000);
	wr(a, 0x300, 0x00842);
	ck_assert(irr(b, 0x42) && !irr(a, 0x42));
	wr(a, 0x310, 0x03000000);                /* both */
	wr(a, 0x300, 0x00843);
	ck_assert(irr(b, 0x43) && irr(a, 0x43));
	/* Cluster model: cluster 1 member 1 is b only. */
	wr(a, 0xe0, 0x0fffffff);
	wr(b, 0xe0, 0x0fffffff);
	wr(a, 0xd0, 0x21000000);
	wr(b, 0xd0, 0x11000000);
	wr(a, 0x310, 0x11000000);
	wr(a, 0x300, 0x00844);
	ck_assert(irr(b, 0x44) && !irr(a, 0x44));
	/* Physical broadcast FFH, and the shorthands. */
	wr(a, 0x310, 0xff000000);
	wr(a, 0x300, 0x00045);
	ck_assert(irr(b, 0x45) && irr(a, 0x45));
	wr(a, 0x300, 0xc0046);                   /* all excluding self */
	ck_assert(irr(b, 0x46) && !irr(a, 0x46));
	wr(a, 0x300, 0x80047);                   /* all including self */
	ck_assert(irr(b, 0x47) && irr(a, 0x47));
	/* No such APIC: nobody. */
	wr(a, 0x310, 0x07000000);
	wr(a, 0x300, 0x00048);
	ck_assert(!irr(b, 0x48) && !irr(a, 0x48));
}
END_TEST

START_TEST(ipi_nmi_init_sipi)
{
	struct lapic *a = &R.l[0], *b = &R.l[1];
	enable(a);
	/* NMI to its own ID (the self shorthand is invalid with NMI). */
	wr(a, 0x310, 0x00000000);
	wr(a, 0x300, 0x00400);
	ck_assert_uint_eq(R.core[0].nmi, 1);
	wr(a, 0x300, 0x40400);                   /* self + NMI: undefined, not sent */
	ck_assert_uint_eq(R.core[0].nmi, 1);
	/* An AMD model's APIC sends it (APM2 16.5 names no restriction). */
	a->self_nmi = true;
	wr(a, 0x300, 0x40400);
	ck_assert_uint_eq(R.core[0].nmi, 2);
	wr(a, 0x300, 0x80400);                   /* all including self + NMI: both */
	ck_assert_uint_eq(R.core[0].nmi, 3);
	ck_assert_uint_eq(R.core[1].nmi, 1);
	a->self_nmi = false;
	/* INIT, de-assert, SIPI to b (software-disabled: it still responds). */
	wr(a, 0x310, 0x01000000);
	wr(a, 0x300, 0x0c500);                   /* INIT, level, assert */
	ck_assert_uint_eq(R.core[1].init, 1);
	wr(a, 0x300, 0x08500);                   /* INIT level de-assert: nothing */
	ck_assert_uint_eq(R.core[1].init, 1);
	wr(a, 0x300, 0x0069a);                   /* SIPI, vector 9AH */
	ck_assert_uint_eq(R.core[1].startups, 1);
	ck_assert_uint_eq(R.core[1].startup_vector, 0x9a);
	/* All excluding self: INIT reaches b only. */
	wr(a, 0x300, 0xc4500);
	ck_assert_uint_eq(R.core[1].init, 2);
	ck_assert_uint_eq(R.core[0].init, 0);
	/* SMI by physical destination. */
	wr(a, 0x300, 0x00200);
	ck_assert_uint_eq(R.core[1].smi, 1);
	/* The INIT response resets b but its ID. */
	wr(b, 0x20, 0x07000000);
	enable(b);
	lapic_init_reset(b);
	ck_assert_uint_eq(rd(b, 0x20), 0x07000000);
	ck_assert_uint_eq(rd(b, 0xf0), 0xff);
}
END_TEST

START_TEST(lowest_priority_from_bus)
{
	struct lapic *a = &R.l[0], *b = &R.l[1];
	enable(a);
	enable(b);
	wr(a, 0x80, 0x30);
	struct apic_msg m = { .vector = 0x70, .delivery = APIC_DM_LOWEST, .dest = 0xff };
	ck_assert_uint_eq(apic_bus_send(&R.bus, &m, NULL), 1);
	ck_assert(irr(b, 0x70) && !irr(a, 0x70));
	wr(b, 0x80, 0x40);
	m.vector = 0x71;
	apic_bus_send(&R.bus, &m, NULL);
	ck_assert(irr(a, 0x71) && !irr(b, 0x71));
	/* Level-triggered: TMR set, and the EOI is broadcast to the I/O APIC. */
	m.level = true;
	m.vector = 0x90;
	apic_bus_send(&R.bus, &m, NULL);
	ck_assert_uint_ne(a->tmr[0x90 / 32] & (1u << (0x90 % 32)), 0);
	ck_assert_int_eq(lapic_intr_ack(a), 0x90);
	wr(a, 0xb0, 0);
	ck_assert_uint_eq(R.eois, 1);
	ck_assert_uint_eq(R.last_eoi, 0x90);
	/* 10.8.4: the EOI leaves TMR alone; an edge acceptance clears it. */
	ck_assert_uint_ne(a->tmr[0x90 / 32] & (1u << (0x90 % 32)), 0);
	m.level = false;
	apic_bus_send(&R.bus, &m, NULL);
	ck_assert_uint_eq(a->tmr[0x90 / 32] & (1u << (0x90 % 32)), 0);
	ck_assert_int_eq(lapic_intr_ack(a), 0x90);
	wr(a, 0xb0, 0);
	ck_assert_uint_eq(R.eois, 1);      /* an edge vector's EOI is not broadcast */
}
END_TEST

/* ---- LINT pins ---- */

START_TEST(lint_extint_nmi)
{
	struct lapic *l = &R.l[0];
	/* Globally disabled: LINT0 is INTR, LINT1 NMI (10.4.3). */
	lapic_set_mode(l, LAPIC_DISABLED);
	lapic_set_lint(l, 0, true);
	ck_assert(R.core[0].intr);
	ck_assert_int_eq(lapic_intr_ack(l), 0x20);
	lapic_set_lint(l, 0, false);
	ck_assert(!R.core[0].intr);
	lapic_set_lint(l, 1, true);
	ck_assert_uint_eq(R.core[0].nmi, 1);
	lapic_set_lint(l, 1, false);
	/* Enabled but software-disabled: LINT0 masked, INTR stays low. */
	lapic_set_mode(l, LAPIC_XAPIC);
	lapic_set_lint(l, 0, true);
	ck_assert(!R.core[0].intr);
	/* Virtual wire mode (as firmware leaves it): ExtINT on LINT0, NMI on LINT1. */
	enable(l);
	wr(l, 0x350, 0x8700);
	ck_assert(R.core[0].intr);
	R.pic_vector = 0x28;
	ck_assert_int_eq(lapic_intr_ack(l), 0x28);
	ck_assert_uint_eq(R.pic_acks, 2);
	wr(l, 0x80, 0xf0);                        /* ExtINT ignores TPR */
	ck_assert(R.core[0].intr);
	/* A fixed vector goes first (hvemu's order). */
	wr(l, 0x80, 0);
	wr(l, 0x300, 0x40080);
	ck_assert_int_eq(lapic_intr_ack(l), 0x80);
	ck_assert_uint_eq(R.pic_acks, 2);
	lapic_set_lint(l, 0, false);
	ck_assert(!R.core[0].intr);
	wr(l, 0x360, 0x8400);
	lapic_set_lint(l, 1, true);
	ck_assert_uint_eq(R.core[0].nmi, 2);
	lapic_set_lint(l, 1, true);               /* no new edge */
	ck_assert_uint_eq(R.core[0].nmi, 2);
	/* Level-triggered fixed LINT1: remote IRR until EOI, then again while
	 * the pin stays asserted. */
	lapic_set_lint(l, 1, false);
	wr(l, 0x360, 0x8055);
	lapic_set_lint(l, 1, true);
	ck_assert(irr(l, 0x55));
	ck_assert_uint_ne(rd(l, 0x360) & (1u << 14), 0);
	wr(l, 0xb0, 0);
	ck_assert_int_eq(lapic_intr_ack(l), 0x55);
	wr(l, 0xb0, 0);
	ck_assert(irr(l, 0x55));
	ck_assert_uint_eq(R.eois, 1);
}
END_TEST

/* ---- modes ---- */

START_TEST(global_disable_reenable)
{
	struct lapic *l = &R.l[1];
	enable(l);
	wr(l, 0x80, 0x20);
	wr(l, 0x20, 0x09000000);
	lapic_set_mode(l, LAPIC_DISABLED);
	/* Disabled, it takes no messages. */
	struct apic_msg m = { .vector = 0x50, .dest = 0xff };
	ck_assert_uint_eq(apic_bus_send(&R.bus, &m, NULL), 0);
	lapic_set_mode(l, LAPIC_XAPIC);
	ck_assert_uint_eq(rd(l, 0x20), 0x01000000);   /* the hardware ID again (10.4.7.1) */
	ck_assert_uint_eq(rd(l, 0x80), 0);            /* the rest as after reset */
	ck_assert_uint_eq(rd(l, 0xf0), 0xff);
	enable(l);
	wr(l, 0x300, 0x40066);
	ck_assert(irr(l, 0x66));
	ck_assert(R.core[1].intr);
}
END_TEST

START_TEST(x2apic_registers)
{
	struct lapic *l = &R.l[1];
	uint64_t v;
	/* 10.12.2: no MSR access outside x2APIC mode. */
	ck_assert(!lapic_msr_read(l, 0x802, &v));
	/* A software-written xAPIC ID is gone once the APIC is disabled (10.4.3,
	 * 10.4.7.1), from xAPIC or from x2APIC mode: the hardware ID again. */
	wr(l, 0x20, 0x05000000);
	ck_assert_uint_eq(lapic_mmio_read(l, 0x20) >> 24, 5);
	lapic_set_mode(l, LAPIC_DISABLED);
	lapic_set_mode(l, LAPIC_XAPIC);
	ck_assert_uint_eq(lapic_mmio_read(l, 0x20) >> 24, 1);
	wr(l, 0x20, 0x05000000);
	lapic_set_mode(l, LAPIC_X2APIC);
	lapic_set_mode(l, LAPIC_DISABLED);
	lapic_set_mode(l, LAPIC_XAPIC);
	ck_assert_uint_eq(lapic_mmio_read(l, 0x20) >> 24, 1);
	lapic_set_mode(l, LAPIC_X2APIC);
	ck_assert_uint_eq(lapic_mmio_read(l, 0x20), 0xffffffffu);   /* MMIO gone */
	ck_assert(lapic_msr_read(l, 0x802, &v));
	ck_assert_uint_eq(v, 1);                                    /* 32-bit ID */
	ck_assert(lapic_msr_read(l, 0x80d, &v));
	ck_assert_uint_eq(v, 0x00000002);                           /* cluster 0, bit 1 */
	ck_assert(!lapic_msr_write(l, 0x802, 5));                   /* read-only */
	ck_assert(!lapic_msr_write(l, 0x80d, 5));
	ck_assert(!lapic_msr_read(l, 0x80e, &v));                   /* no DFR */
	ck_assert(!lapic_msr_read(l, 0x831, &v));                   /* no ICR high */
	ck_assert(!lapic_msr_read(l, 0x80b, &v));                   /* EOI write-only */
	ck_assert(!lapic_msr_write(l, 0x80b, 1));                   /* non-zero EOI */
	ck_assert(lapic_msr_write(l, 0x80b, 0));
	ck_assert(!lapic_msr_write(l, 0x828, 1));                   /* non-zero ESR */
	ck_assert(!lapic_msr_write(l, 0x808, 0x100));               /* TPR 31:8 reserved */
	ck_assert(!lapic_msr_write(l, 0x808, 1ull << 32));          /* 63:32 reserved */
	ck_assert(!lapic_msr_read(l, 0x83f, &v));                   /* SELF IPI write-only */
	ck_assert(!lapic_msr_write(l, 0x80f, 0x1000));              /* no EOI suppression */
	ck_assert(lapic_msr_write(l, 0x80f, 0x1ff));
	/* SELF IPI register. */
	ck_assert(lapic_msr_write(l, 0x83f, 0x77));
	ck_assert(irr(l, 0x77));
	ck_assert(!lapic_msr_write(l, 0x83f, 0x177));
	/* 64-bit ICR: destination in 63:32, delivery status reserved. */
	enable(&R.l[0]);
	ck_assert(lapic_msr_write(l, 0x830, 0x0000000000000079ull));
	ck_assert(irr(&R.l[0], 0x79));
	ck_assert(!lapic_msr_write(l, 0x830, 0x1079));
	ck_assert(lapic_msr_read(l, 0x830, &v));
	ck_assert_uint_eq(v, 0x79);
	/* An 8-bit broadcast from an xAPIC sender reaches the x2APIC too. */
	wr(&R.l[0], 0x310, 0xff000000);
	wr(&R.l[0], 0x300, 0x0007a);
	ck_assert(irr(l, 0x7a));
	/* The timer through MSRs. */
	ck_assert(lapic_msr_write(l, 0x83e, 0xb));
	ck_assert(lapic_msr_write(l, 0x838, 10));
	advance(4);
	ck_assert(lapic_msr_read(l, 0x839, &v));
	ck_assert_uint_eq(v, 6);
}
END_TEST

/* The local APIC's quirks (LAPIC_QUIRK_*, emu/quirks.def's Bochs 2.7 rows):
 * each against the SDM rule the cases above check. */
START_TEST(bochs_quirks)
{
	struct lapic *l = &R.l[1];
	uint64_t v;
	l->quirks = LAPIC_QUIRK_TSC_DEADLINE_KEPT | LAPIC_QUIRK_X2APIC_LDR_ZERO |
		    LAPIC_QUIRK_X2APIC_RESERVED_IGNORED | LAPIC_QUIRK_SELF_IPI_NO_SEND_ERROR |
		    LAPIC_QUIRK_ID_FF_AFTER_DISABLE;
	/* 10.5.4.1: the MSR reads 0 once the deadline fired; kept here. */
	enable(l);
	wr(l, 0x320, 0x40040);
	lapic_set_tsc_deadline(l, 12345, 300);
	advance(300);
	ck_assert(irr(l, 0x40));
	ck_assert_uint_eq(lapic_tsc_deadline(l), 12345);
	ck_assert(!l->timer.armed);
	/* 10.4.7.1: the hardware ID back after a disable; FFH here. */
	lapic_set_mode(l, LAPIC_DISABLED);
	lapic_set_mode(l, LAPIC_XAPIC);
	ck_assert_uint_eq(lapic_mmio_read(l, 0x20) >> 24, 0xff);
	/* 10.12.10.2: LDR derived from the ID (2 for ID 1); 0 here. */
	lapic_set_mode(l, LAPIC_X2APIC);
	ck_assert(lapic_msr_read(l, 0x80d, &v));
	ck_assert_uint_eq(v, 0);
	/* 10.12.11: reserved bits of SELF IPI and ICR are #GP; ignored here. */
	ck_assert(lapic_msr_write(l, 0x80f, 0x1ff));
	ck_assert(lapic_msr_write(l, 0x83f, 0x177));
	ck_assert(irr(l, 0x77));
	enable(&R.l[0]);
	ck_assert(lapic_msr_write(l, 0x830, 0x1079));
	ck_assert(irr(&R.l[0], 0x79));
	/* 10.5.3: a self IPI with vector 5 sets Send and Receive Illegal Vector
	 * (60H); Receive only here. */
	ck_assert(lapic_msr_write(l, 0x83f, 5));
	ck_assert(lapic_msr_write(l, 0x828, 0));
	ck_assert(lapic_msr_read(l, 0x828, &v));
	ck_assert_uint_eq(v, 0x40);
}
END_TEST

static Suite *lapic_suite(void)
{
	Suite *s = suite_create("lapic");
	TCase *regs = tcase_create("registers");
	tcase_add_checked_fixture(regs, setup, NULL);
	tcase_add_test(regs, power_up_state);
	tcase_add_test(regs, software_disable_forces_masks);
	tcase_add_test(regs, writable_bits);
	tcase_add_test(regs, global_disable_reenable);
	tcase_add_test(regs, x2apic_registers);
	tcase_add_test(regs, bochs_quirks);
	suite_add_tcase(s, regs);
	TCase *intr = tcase_create("interrupts");
	tcase_add_checked_fixture(intr, setup, NULL);
	tcase_add_test(intr, self_ipi_accept_eoi);
	tcase_add_test(intr, tpr_masks_by_class);
	tcase_add_test(intr, error_register_semantics);
	tcase_add_test(intr, lint_extint_nmi);
	suite_add_tcase(s, intr);
	TCase *timer = tcase_create("timer");
	tcase_add_checked_fixture(timer, setup, NULL);
	tcase_add_test(timer, timer_one_shot_and_divide);
	tcase_add_test(timer, timer_periodic_and_masked);
	tcase_add_test(timer, timer_tsc_deadline);
	suite_add_tcase(s, timer);
	TCase *ipi = tcase_create("ipi");
	tcase_add_checked_fixture(ipi, setup, NULL);
	tcase_add_test(ipi, ipi_physical_logical_broadcast);
	tcase_add_test(ipi, ipi_nmi_init_sipi);
	tcase_add_test(ipi, lowest_priority_from_bus);
	suite_add_tcase(s, ipi);
	return s;
}

int main(void)
{
	return run_suite(lapic_suite());
}
