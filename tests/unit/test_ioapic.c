/* Check suite for devices/ioapic.c: the 82093AA I/O APIC delivering to two
 * local APICs (devices/lapic.c) over the APIC bus, its register window on a
 * physmem. Expected values are the 82093AA datasheet's (section numbers as in
 * ioapic.c) and the SDM's for what the local APICs do with the messages. */
#include <check.h>
#include <string.h>

#include "devices/bus.h"
#include "devices/ioapic.h"
#include "devices/lapic.h"
#include "suite_runner.h"

struct core_log {
	bool intr;
	unsigned nmi, init;
};

static void core_line(void *opaque, unsigned pin, bool level)
{
	struct core_log *c = opaque;
	if (pin == 0)
		c->intr = level;
	else if (pin == 1)
		c->nmi += level;
	else
		c->init += level;
}

struct rig {
	struct vclock clock;
	struct apic_bus bus;
	struct lapic l[2];
	struct core_log core[2];
	struct ioapic io;
	struct physmem pm;
	int pic_vector;
};

static struct rig R;

static int pic_ack(void *opaque)
{
	return ((struct rig *)opaque)->pic_vector;
}

static void setup(void)
{
	memset(&R, 0, sizeof(R));
	vclock_init(&R.clock, 1000000000ull);
	ioapic_init(&R.io, &R.bus);
	R.bus.n = 2;
	R.bus.eoi = ioapic_eoi;
	R.bus.eoi_opaque = &R.io;
	for (unsigned i = 0; i < 2; i++) {
		struct lapic *l = &R.l[i];
		lapic_init(l, i, false, false, &R.clock, 1000000000ull, &R.bus);
		l->core.intr = (struct irq_line){ core_line, &R.core[i], 0 };
		l->core.nmi = (struct irq_line){ core_line, &R.core[i], 1 };
		l->core.init = (struct irq_line){ core_line, &R.core[i], 2 };
		l->extint_ack = pic_ack;
		l->extint_opaque = &R;
		lapic_mmio_write(l, 0xf0, 0x1ff);          /* software-enabled */
		R.bus.lapic[i] = l;
	}
	ck_assert(physmem_init(&R.pm, 1 << 20));
	ck_assert(ioapic_map(&R.io, &R.pm, IOAPIC_DEFAULT_BASE));
}

static void teardown(void)
{
	physmem_destroy(&R.pm);
}

/* Through the window, as software does (3.1): IOREGSEL, then IOWIN. */
static uint32_t rd(uint8_t index)
{
	physmem_write(&R.pm, IOAPIC_DEFAULT_BASE, 4, index);
	return (uint32_t)physmem_read(&R.pm, IOAPIC_DEFAULT_BASE + 0x10, 4);
}

static void wr(uint8_t index, uint32_t v)
{
	physmem_write(&R.pm, IOAPIC_DEFAULT_BASE, 4, index);
	physmem_write(&R.pm, IOAPIC_DEFAULT_BASE + 0x10, 4, v);
}

static void route(unsigned pin, uint64_t entry)
{
	wr((uint8_t)(0x11 + 2 * pin), (uint32_t)(entry >> 32));
	wr((uint8_t)(0x10 + 2 * pin), (uint32_t)entry);
}

static bool irr(const struct lapic *l, unsigned v) { return (l->irr[v / 32] >> (v % 32)) & 1; }

START_TEST(identification)
{
	/* 3.2.2: version 11H, 24 entries (max index 17H). */
	ck_assert_uint_eq(rd(0x01), 0x00170011);
	/* 3.2.1 / 3.2.3: the ID in 27:24, and the arbitration ID follows it. */
	ck_assert_uint_eq(rd(0x00), 0);
	wr(0x00, 0xff000000);
	ck_assert_uint_eq(rd(0x00), 0x0f000000);
	ck_assert_uint_eq(rd(0x02), 0x0f000000);
	wr(0x02, 0);                                  /* read-only */
	ck_assert_uint_eq(rd(0x02), 0x0f000000);
	ck_assert_uint_eq(rd(0x40), 0);               /* no register there */
	/* IOREGSEL keeps 8 bits. */
	physmem_write(&R.pm, IOAPIC_DEFAULT_BASE, 4, 0x1234501);
	ck_assert_uint_eq(physmem_read(&R.pm, IOAPIC_DEFAULT_BASE, 4), 0x01);
}
END_TEST

START_TEST(redirection_entries)
{
	/* 3.2.4: masked after reset. */
	for (unsigned pin = 0; pin < IOAPIC_PINS; pin++)
		ck_assert_uint_eq(rd((uint8_t)(0x10 + 2 * pin)) & 0x10000, 0x10000);
	/* Writable fields only: delivery status and remote IRR read-only, 55:17
	 * reserved. */
	wr(0x10 + 2 * 5, 0xffffffffu);
	wr(0x11 + 2 * 5, 0xffffffffu);
	ck_assert_uint_eq(rd(0x10 + 2 * 5), 0x1afff);
	ck_assert_uint_eq(rd(0x11 + 2 * 5), 0xff000000u);
	/* A byte write to IOWIN is ignored. */
	physmem_write(&R.pm, IOAPIC_DEFAULT_BASE, 4, 0x10 + 2 * 5);
	physmem_write(&R.pm, IOAPIC_DEFAULT_BASE + 0x10, 1, 0);
	ck_assert_uint_eq(rd(0x10 + 2 * 5), 0x1afff);
	ck_assert_uint_eq(ioapic_isa_pin(0), 2);
	ck_assert_uint_eq(ioapic_isa_pin(1), 1);
	ck_assert_uint_eq(ioapic_isa_pin(8), 8);
}
END_TEST

START_TEST(edge_delivery)
{
	/* Pin 2 (ISA IRQ 0): edge, fixed, physical destination 1, vector 30H. */
	route(2, 0x0100000000000030ull);
	ioapic_set_irq(&R.io, 2, true);
	ck_assert(irr(&R.l[1], 0x30));
	ck_assert(!irr(&R.l[0], 0x30));
	ck_assert(R.core[1].intr);
	/* No new edge while high; the next rising edge sends again. */
	ck_assert_int_eq(lapic_intr_ack(&R.l[1]), 0x30);
	ioapic_set_irq(&R.io, 2, true);
	ck_assert(!irr(&R.l[1], 0x30));
	ioapic_set_irq(&R.io, 2, false);
	ioapic_set_irq(&R.io, 2, true);
	ck_assert(irr(&R.l[1], 0x30));
	/* EOI of an edge vector broadcasts nothing (remote IRR untouched). */
	lapic_mmio_write(&R.l[1], 0xb0, 0);
	ck_assert_uint_eq(rd(0x10 + 4) & 0x4000, 0);
	/* Masked: an edge is lost, not held (3.2.4). */
	ioapic_set_irq(&R.io, 2, false);
	route(2, 0x0100000000010031ull);
	ioapic_set_irq(&R.io, 2, true);
	route(2, 0x0100000000000031ull);
	ck_assert(!irr(&R.l[1], 0x31));
	/* Active low: the falling edge interrupts. */
	route(3, 0x0000000000002032ull);
	ioapic_set_irq(&R.io, 3, true);
	ck_assert(!irr(&R.l[0], 0x32));
	ioapic_set_irq(&R.io, 3, false);
	ck_assert(irr(&R.l[0], 0x32));
	/* Logical flat destination 03H: both APICs. */
	lapic_mmio_write(&R.l[0], 0xd0, 0x01000000);
	lapic_mmio_write(&R.l[1], 0xd0, 0x02000000);
	route(4, 0x0300000000000833ull);
	ioapic_set_irq(&R.io, 4, true);
	ck_assert(irr(&R.l[0], 0x33) && irr(&R.l[1], 0x33));
}
END_TEST

START_TEST(level_remote_irr)
{
	/* Pin 9: level, fixed, destination 0, vector 40H. */
	route(9, 0x0000000000008040ull);
	ioapic_set_irq(&R.io, 9, true);
	ck_assert(irr(&R.l[0], 0x40));
	ck_assert_uint_ne(rd(0x10 + 18) & 0x4000, 0);          /* remote IRR */
	ck_assert_int_eq(lapic_intr_ack(&R.l[0]), 0x40);
	/* Still asserted, remote IRR set: nothing more. */
	ioapic_set_irq(&R.io, 9, true);
	ck_assert(!irr(&R.l[0], 0x40));
	/* EOI (TMR set by the level message) clears remote IRR; the pin is
	 * still asserted, so it interrupts again. */
	lapic_mmio_write(&R.l[0], 0xb0, 0);
	ck_assert(irr(&R.l[0], 0x40));
	ck_assert_uint_ne(rd(0x10 + 18) & 0x4000, 0);
	ck_assert_int_eq(lapic_intr_ack(&R.l[0]), 0x40);
	ioapic_set_irq(&R.io, 9, false);
	lapic_mmio_write(&R.l[0], 0xb0, 0);
	ck_assert_uint_eq(rd(0x10 + 18) & 0x4000, 0);
	ck_assert(!irr(&R.l[0], 0x40));
	/* Masked while asserted: ignored; unmasking sends it. */
	route(9, 0x0000000000018040ull);
	ioapic_set_irq(&R.io, 9, true);
	ck_assert(!irr(&R.l[0], 0x40));
	route(9, 0x0000000000008040ull);
	ck_assert(irr(&R.l[0], 0x40));
	/* An EOI for another vector leaves remote IRR alone. */
	ioapic_eoi(&R.io, 0x41);
	ck_assert_uint_ne(rd(0x10 + 18) & 0x4000, 0);
}
END_TEST

START_TEST(nmi_init_extint_lowest)
{
	/* NMI delivery (edge whatever the trigger bit): the core's NMI. */
	route(1, 0x0100000000008400ull);
	ioapic_set_irq(&R.io, 1, true);
	ck_assert_uint_eq(R.core[1].nmi, 1);
	ck_assert_uint_eq(rd(0x10 + 2) & 0x4000, 0);          /* no remote IRR */
	/* INIT delivery. */
	route(5, 0x0000000000000500ull);
	ioapic_set_irq(&R.io, 5, true);
	ck_assert_uint_eq(R.core[0].init, 1);
	/* ExtINT: the local APIC asks the 8259 at INTA. */
	R.pic_vector = 0x21;
	route(6, 0x0000000000000700ull);
	ioapic_set_irq(&R.io, 6, true);
	ck_assert(R.core[0].intr);
	ck_assert_int_eq(lapic_intr_ack(&R.l[0]), 0x21);
	ck_assert(!R.core[0].intr);
	/* Lowest priority to both: the lower TPR wins. */
	lapic_mmio_write(&R.l[0], 0x80, 0x80);
	route(7, 0xff00000000000150ull);
	ioapic_set_irq(&R.io, 7, true);
	ck_assert(irr(&R.l[1], 0x50) && !irr(&R.l[0], 0x50));
	/* A vector below 10H: the local APIC refuses it (SDM 10.5.3). */
	route(8, 0x0000000000000005ull);
	ioapic_set_irq(&R.io, 8, true);
	ck_assert(!irr(&R.l[0], 5));
	lapic_mmio_write(&R.l[0], 0x280, 0);
	ck_assert_uint_eq(lapic_mmio_read(&R.l[0], 0x280), 0x40);
}
END_TEST

static Suite *ioapic_suite(void)
{
	Suite *s = suite_create("ioapic");
	TCase *tc = tcase_create("ioapic");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, identification);
	tcase_add_test(tc, redirection_entries);
	tcase_add_test(tc, edge_delivery);
	tcase_add_test(tc, level_remote_irr);
	tcase_add_test(tc, nmi_init_extint_lowest);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(ioapic_suite());
}
