/* The 8259A pair (devices/pic8259.c) through its ports, against the Intel
 * 8259A datasheet: initialisation, priority and nesting, EOI kinds, rotation,
 * masks and special mask mode, poll mode, AEOI, edge and level inputs (ELCR),
 * the cascade, special fully nested mode and spurious IR7/IR15. */
#include <check.h>
#include <string.h>

#include "devices/pic8259.h"
#include "fake_clock.h"
#include "suite_runner.h"

struct rig {
	struct pic8259 pic;
	struct iobus io;
	struct line_log intr;
};

static void out8(struct rig *r, uint16_t port, uint8_t v) { iobus_write(&r->io, port, 1, v); }
static uint8_t in8(struct rig *r, uint16_t port) { return (uint8_t)iobus_read(&r->io, port, 1); }
static void irq(struct rig *r, unsigned n, bool level) { pic8259_set_irq(&r->pic, n, level); }

/* The PC's usual set-up: master vectors 20H-27H, slave 28H-2FH, cascade on IR2,
 * 8086 mode, normal EOI; icw4 extra bits for both chips. */
static void init_pair(struct rig *r, uint8_t icw1_extra, uint8_t icw4_extra)
{
	out8(r, 0x20, 0x11 | icw1_extra);
	out8(r, 0x21, 0x20);
	out8(r, 0x21, 0x04);
	out8(r, 0x21, 0x01 | icw4_extra);
	out8(r, 0xa0, 0x11 | icw1_extra);
	out8(r, 0xa1, 0x28);
	out8(r, 0xa1, 0x02);
	out8(r, 0xa1, 0x01 | icw4_extra);
}

static void rig_init(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	iobus_init(&r->io);
	r->pic.intr = line_log_line(&r->intr);
	pic8259_init(&r->pic);
	ck_assert(pic8259_register(&r->pic, &r->io));
	init_pair(r, 0, 0);
}

static uint8_t read_irr(struct rig *r, uint16_t port) { out8(r, port, 0x0a); return in8(r, port); }
static uint8_t read_isr(struct rig *r, uint16_t port) { out8(r, port, 0x0b); return in8(r, port); }

START_TEST(pic_init_and_imr)
{
	struct rig r;
	rig_init(&r);
	/* ICW1 clears the IMR; OCW1 sets it and port 1 reads it back. */
	ck_assert_uint_eq(in8(&r, 0x21), 0);
	out8(&r, 0x21, 0xa5);
	ck_assert_uint_eq(in8(&r, 0x21), 0xa5);
	out8(&r, 0xa1, 0x5a);
	ck_assert_uint_eq(in8(&r, 0xa1), 0x5a);
	/* A new ICW1 clears it again, and after ICW1 a read of port 0 gives IRR. */
	out8(&r, 0x20, 0x11);
	ck_assert_uint_eq(in8(&r, 0x21), 0);
	out8(&r, 0x21, 0x30);
	out8(&r, 0x21, 0x04);
	out8(&r, 0x21, 0x01);
	ck_assert_uint_eq(in8(&r, 0x21), 0);   /* the ICWs did not reach the IMR */
	out8(&r, 0x21, 0xff);
	ck_assert_uint_eq(in8(&r, 0x21), 0xff);
	/* ELCR: IRQ0-2 and IRQ8/13 are fixed edge (reserved bits read 0). */
	iobus_write(&r.io, 0x4d0, 1, 0xff);
	iobus_write(&r.io, 0x4d1, 1, 0xff);
	ck_assert_uint_eq(iobus_read(&r.io, 0x4d0, 1), 0xf8);
	ck_assert_uint_eq(iobus_read(&r.io, 0x4d1, 1), 0xde);
	ck_assert_uint_eq(iobus_read(&r.io, 0x4d0, 2), 0xdef8);
}
END_TEST

START_TEST(pic_edge_request_ack_eoi)
{
	struct rig r;
	rig_init(&r);
	irq(&r, 3, true);
	ck_assert(r.intr.cur);
	ck_assert_uint_eq(read_irr(&r, 0x20), 0x08);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x23);
	ck_assert(!r.intr.cur);
	ck_assert_uint_eq(read_isr(&r, 0x20), 0x08);
	ck_assert_uint_eq(read_irr(&r, 0x20), 0x00);   /* the edge latch was consumed */
	/* The input stays high: no new edge, no new request after the EOI. */
	out8(&r, 0x20, 0x20);
	ck_assert_uint_eq(read_isr(&r, 0x20), 0);
	ck_assert(!r.intr.cur);
	/* Low then high again: a new request. */
	irq(&r, 3, false);
	irq(&r, 3, true);
	ck_assert(r.intr.cur);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x23);
}
END_TEST

START_TEST(pic_priority_and_nesting)
{
	struct rig r;
	rig_init(&r);
	irq(&r, 5, true);
	irq(&r, 3, true);
	/* Fully nested mode: IR0 highest ... IR7 lowest. */
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x23);
	/* IR5 is lower than the IR3 in service: INT stays low. */
	ck_assert(!r.intr.cur);
	ck_assert_uint_eq(read_irr(&r, 0x20), 0x20);
	/* A higher one (IR1) nests. */
	irq(&r, 1, true);
	ck_assert(r.intr.cur);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x21);
	ck_assert_uint_eq(read_isr(&r, 0x20), 0x0a);
	/* A non-specific EOI ends the highest in service (IR1) ... */
	out8(&r, 0x20, 0x20);
	ck_assert_uint_eq(read_isr(&r, 0x20), 0x08);
	ck_assert(!r.intr.cur);
	/* ... a specific EOI for IR3 lets IR5 through. */
	out8(&r, 0x20, 0x63);
	ck_assert_uint_eq(read_isr(&r, 0x20), 0x00);
	ck_assert(r.intr.cur);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x25);
}
END_TEST

START_TEST(pic_masking)
{
	struct rig r;
	rig_init(&r);
	out8(&r, 0x21, 0x10);
	irq(&r, 4, true);
	ck_assert(!r.intr.cur);                           /* masked: no INT ... */
	ck_assert_uint_eq(read_irr(&r, 0x20), 0x10);      /* ... but requested */
	out8(&r, 0x21, 0x00);
	ck_assert(r.intr.cur);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x24);
	/* Masking a request after INT rose takes INT back down. */
	out8(&r, 0x20, 0x20);
	irq(&r, 6, true);
	ck_assert(r.intr.cur);
	out8(&r, 0x21, 0x40);
	ck_assert(!r.intr.cur);
}
END_TEST

START_TEST(pic_rotation)
{
	struct rig r;
	rig_init(&r);
	/* Rotate on non-specific EOI: the serviced IR becomes the lowest. */
	irq(&r, 1, true);
	irq(&r, 6, true);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x21);
	out8(&r, 0x20, 0xa0);                       /* R=1 SL=0 EOI=1 */
	irq(&r, 0, true);
	/* IR1 is now the lowest: the order is 2,3,4,5,6,7,0,1, IR6 before IR0. */
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x26);
	out8(&r, 0x20, 0x20);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x20);
	out8(&r, 0x20, 0x20);
	/* Set priority: IR4 lowest, so IR5 is the highest. */
	out8(&r, 0x20, 0xc4);
	irq(&r, 3, true);
	irq(&r, 5, true);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x25);
	/* Rotate on specific EOI for IR5: IR5 lowest, IR6 highest; IR3 next. */
	out8(&r, 0x20, 0xe5);
	ck_assert_uint_eq(read_isr(&r, 0x20), 0);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x23);
}
END_TEST

START_TEST(pic_auto_eoi)
{
	struct rig r;
	rig_init(&r);
	init_pair(&r, 0, 0x02);                    /* ICW4 AEOI */
	irq(&r, 4, true);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x24);
	ck_assert_uint_eq(read_isr(&r, 0x20), 0);  /* no ISR bit after the INTA */
	/* Rotate in AEOI mode: the serviced IR becomes the lowest. */
	out8(&r, 0x20, 0x80);
	irq(&r, 3, true);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x23);
	irq(&r, 4, false);
	irq(&r, 4, true);
	irq(&r, 3, false);
	irq(&r, 3, true);
	/* Order now 4,5,6,7,0,1,2,3: IR4 before IR3. */
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x24);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x23);
}
END_TEST

START_TEST(pic_special_mask_mode)
{
	struct rig r;
	rig_init(&r);
	irq(&r, 3, true);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x23);
	irq(&r, 5, true);
	ck_assert(!r.intr.cur);                    /* below the IR3 in service */
	/* SMM with IR3 masked: lower levels are enabled. */
	out8(&r, 0x21, 0x08);
	out8(&r, 0x20, 0x68);                      /* OCW3 ESMM SMM */
	ck_assert(r.intr.cur);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x25);
	ck_assert_uint_eq(read_isr(&r, 0x20), 0x28);
	/* A non-specific EOI skips the masked IS bit (IR3) and ends IR5. */
	out8(&r, 0x20, 0x20);
	ck_assert_uint_eq(read_isr(&r, 0x20), 0x08);
	/* Leaving SMM: IR3 holds lower levels off again. */
	out8(&r, 0x20, 0x48);
	irq(&r, 5, false);
	irq(&r, 5, true);
	ck_assert(!r.intr.cur);
}
END_TEST

START_TEST(pic_poll)
{
	struct rig r;
	rig_init(&r);
	out8(&r, 0x20, 0x0c);                      /* OCW3 P=1 */
	ck_assert_uint_eq(in8(&r, 0x20), 0x00);    /* no request */
	irq(&r, 6, true);
	irq(&r, 7, true);
	out8(&r, 0x20, 0x0c);
	ck_assert_uint_eq(in8(&r, 0x20), 0x86);    /* I=1, level 6, now in service */
	ck_assert_uint_eq(read_isr(&r, 0x20), 0x40);
	ck_assert_uint_eq(read_irr(&r, 0x20), 0x80);
	/* Poll mode is one read only: the next read of port 0 is the IRR. */
	out8(&r, 0x20, 0x0a);
	ck_assert_uint_eq(in8(&r, 0x20), 0x80);
}
END_TEST

START_TEST(pic_spurious_edge)
{
	struct rig r;
	rig_init(&r);
	/* An edge input that goes low before INTA: INT stays up, and the INTA
	 * finds no request: the IR7 vector, no ISR bit ("Edge and Level
	 * Triggered Modes"). */
	irq(&r, 0, true);
	irq(&r, 0, false);
	ck_assert(r.intr.cur);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x27);
	ck_assert_uint_eq(read_isr(&r, 0x20), 0);
	ck_assert_uint_eq(read_irr(&r, 0x20), 0);
	ck_assert(!r.intr.cur);
	ck_assert_uint_eq(r.pic.spurious, 1);
	/* A real IR7 request is not spurious: it is in service. */
	irq(&r, 7, true);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x27);
	ck_assert_uint_eq(read_isr(&r, 0x20), 0x80);
}
END_TEST

START_TEST(pic_level_inputs)
{
	struct rig r;
	rig_init(&r);
	iobus_write(&r.io, 0x4d0, 1, 0x20);        /* IRQ5 level */
	iobus_write(&r.io, 0x4d1, 1, 0x08);        /* IRQ11 level */
	irq(&r, 5, true);
	ck_assert(r.intr.cur);
	/* A level request that goes away before INTA takes INT with it. */
	irq(&r, 5, false);
	ck_assert(!r.intr.cur);
	/* Through the cascade the master's IR2 is an edge input: the slave's
	 * INT dropping before INTA leaves the master a spurious IR7. */
	irq(&r, 11, true);
	irq(&r, 11, false);
	ck_assert(r.intr.cur);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x27);
	ck_assert_uint_eq(read_isr(&r, 0x20), 0);
	irq(&r, 11, true);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x2b);
	ck_assert_uint_eq(read_irr(&r, 0xa0), 0x08);   /* still requesting */
	/* EOI with the input still high: requested again at once. */
	out8(&r, 0xa0, 0x20);
	out8(&r, 0x20, 0x20);
	ck_assert(r.intr.cur);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x2b);
	/* LTIM makes every input of a chip level-sensitive. */
	init_pair(&r, 0x08, 0);
	irq(&r, 11, false);
	irq(&r, 5, true);
	ck_assert(r.intr.cur);
	irq(&r, 5, false);
	ck_assert(!r.intr.cur);
}
END_TEST

START_TEST(pic_cascade)
{
	struct rig r;
	rig_init(&r);
	irq(&r, 10, true);
	ck_assert(r.intr.cur);
	ck_assert_uint_eq(read_irr(&r, 0x20), 0x04);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x2a);
	ck_assert_uint_eq(read_isr(&r, 0x20), 0x04);
	ck_assert_uint_eq(read_isr(&r, 0xa0), 0x04);
	/* The IR2 in service holds off IRQ3-7 and the slave's other inputs. */
	irq(&r, 9, true);
	irq(&r, 4, true);
	ck_assert(!r.intr.cur);
	irq(&r, 1, true);
	ck_assert(r.intr.cur);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x21);
	out8(&r, 0x20, 0x20);                      /* ends IR1 */
	out8(&r, 0xa0, 0x20);                      /* slave EOI: IR9 now wins there */
	out8(&r, 0x20, 0x20);                      /* master EOI for IR2 */
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x29);
	/* Spurious on the slave: the IRQ15 vector, master IR2 in service. */
	out8(&r, 0xa0, 0x20);
	out8(&r, 0x20, 0x20);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x24);
	out8(&r, 0x20, 0x20);
	irq(&r, 12, true);
	irq(&r, 12, false);
	ck_assert(r.intr.cur);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x2f);
	ck_assert_uint_eq(read_isr(&r, 0xa0), 0x00);
	ck_assert_uint_eq(read_isr(&r, 0x20), 0x04);
}
END_TEST

START_TEST(pic_special_fully_nested)
{
	struct rig r;
	rig_init(&r);
	init_pair(&r, 0, 0x10);                    /* ICW4 SFNM on both */
	irq(&r, 12, true);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x2c);
	/* A higher-priority slave request while IR2 is in service at the
	 * master: recognised in SFNM. */
	irq(&r, 9, true);
	ck_assert(r.intr.cur);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x29);
	/* Without SFNM it waits for the master's EOI. */
	init_pair(&r, 0, 0);
	irq(&r, 12, false);
	irq(&r, 9, false);
	irq(&r, 12, true);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0x2c);
	irq(&r, 9, true);
	ck_assert(!r.intr.cur);
}
END_TEST

START_TEST(pic_icw1_edge_reset_and_mcs80)
{
	struct rig r;
	rig_init(&r);
	/* After ICW1 an edge input needs a new low-to-high transition. */
	irq(&r, 5, true);
	init_pair(&r, 0, 0);
	ck_assert(!r.intr.cur);
	ck_assert_uint_eq(read_irr(&r, 0x20), 0);
	/* Without IC4 the chip is in MCS-80/85 mode: the second INTA byte is the
	 * low CALL address byte, A7-A5 | IR*4 with ADI (interval 4). */
	out8(&r, 0x20, 0xe0 | 0x10 | 0x04 | 0x02);   /* A7-A5=111, ADI, SNGL, no IC4 */
	out8(&r, 0x21, 0x12);                      /* ICW2: A15-A8 */
	irq(&r, 5, false);
	irq(&r, 3, true);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0xe0 | 3 << 2);
	/* Interval 8: A7-A6 | IR*8. */
	out8(&r, 0x20, 0xc0 | 0x10 | 0x02);
	out8(&r, 0x21, 0x12);
	irq(&r, 3, false);
	irq(&r, 3, true);
	ck_assert_int_eq(pic8259_intack(&r.pic), 0xc0 | 3 << 3);
}
END_TEST

static Suite *pic_suite(void)
{
	Suite *s = suite_create("pic8259");
	TCase *tc = tcase_create("pic");
	tcase_add_test(tc, pic_init_and_imr);
	tcase_add_test(tc, pic_edge_request_ack_eoi);
	tcase_add_test(tc, pic_priority_and_nesting);
	tcase_add_test(tc, pic_masking);
	tcase_add_test(tc, pic_rotation);
	tcase_add_test(tc, pic_auto_eoi);
	tcase_add_test(tc, pic_special_mask_mode);
	tcase_add_test(tc, pic_poll);
	tcase_add_test(tc, pic_spurious_edge);
	tcase_add_test(tc, pic_level_inputs);
	tcase_add_test(tc, pic_cascade);
	tcase_add_test(tc, pic_special_fully_nested);
	tcase_add_test(tc, pic_icw1_edge_reset_and_mcs80);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(pic_suite());
}
