/* The 8259A pair of the PC (see pic8259.h). Section names refer to the Intel
 * 8259A datasheet; "PIIX4" to the Intel 82371AB datasheet (ELCR).
 *
 * Requests. An edge-sensitive input latches a request in IRR on its rising
 * edge; a level-sensitive one (LTIM, or its ELCR bit) requests while it is
 * high. "Edge and Level Triggered Modes": in both modes the input must stay
 * high until after the first INTA; if it went low before, the INTA finds no
 * request and the chip answers with its IR7 vector (a spurious interrupt) and
 * sets no ISR bit. So a dropped edge input keeps its IRR latch (and INT) until
 * the INTA cycle, which drops it; a level input's request follows the level.
 */
#include "devices/pic8259.h"

#include <string.h>

/* ICW1 (A0 = 0, D4 = 1) and OCW2/OCW3 (A0 = 0, D4 = 0, D3 = 0/1) bits:
 * "Initialization Command Words", "Operation Command Words". */
enum {
	ICW1_IC4 = 1u << 0, ICW1_SNGL = 1u << 1, ICW1_ADI = 1u << 2, ICW1_LTIM = 1u << 3,
	ICW1_SELECT = 1u << 4,
	ICW4_UPM = 1u << 0, ICW4_AEOI = 1u << 1, ICW4_MS = 1u << 2, ICW4_BUF = 1u << 3,
	ICW4_SFNM = 1u << 4,
	OCW3_SELECT = 1u << 3,
	OCW3_RIS = 1u << 0, OCW3_RR = 1u << 1, OCW3_POLL = 1u << 2, OCW3_SMM = 1u << 5,
	OCW3_ESMM = 1u << 6,
};

/* OCW2 bits 7:5 (R, SL, EOI): "Operation Command Words", Figure "OCW2". */
enum {
	OCW2_ROTATE_AEOI_CLEAR = 0, OCW2_NONSPECIFIC_EOI = 1, OCW2_NOP = 2, OCW2_SPECIFIC_EOI = 3,
	OCW2_ROTATE_AEOI_SET = 4, OCW2_ROTATE_NONSPECIFIC = 5, OCW2_SET_PRIORITY = 6,
	OCW2_ROTATE_SPECIFIC = 7,
};

/* PIIX4 ELCR1/ELCR2: IRQ0, 1, 2 (master) and IRQ8, 13 (slave) are always
 * edge-triggered; their bits are reserved (read 0). */
#define ELCR_MASK_MASTER 0xf8
#define ELCR_MASK_SLAVE  0xde

static bool level_sensitive(const struct pic_chip *c, unsigned ir)
{
	return c->ltim || ((c->elcr >> ir) & 1);
}

/* "Fully Nested Mode", "Automatic Rotation": priority runs from the IR after
 * `lowest` (highest priority) round to `lowest`. The highest set bit of bits
 * in that order, or -1. */
static int highest(uint8_t bits, uint8_t lowest)
{
	for (unsigned k = 1; k <= 8; k++) {
		unsigned ir = (lowest + k) & 7;
		if ((bits >> ir) & 1)
			return (int)ir;
	}
	return -1;
}

/* 0 = highest priority. */
static unsigned rank(unsigned ir, uint8_t lowest)
{
	return (ir - lowest - 1) & 7;
}

static bool is_cascade_input(const struct pic_chip *c, bool master, unsigned ir)
{
	return master && !c->single && ((c->icw3 >> ir) & 1);
}

/* The request the chip would have serviced now: the highest-priority unmasked
 * request above everything in service, or -1. "Special Mask Mode": an
 * in-service level that is masked does not hold the others off. "Special
 * Fully Nested Mode" (master): a cascade input in service does not hold off a
 * new request on that same input (a higher-priority one from its slave). */
static int pending(const struct pic_chip *c, bool master)
{
	int ir = highest(c->irr & (uint8_t)~c->imr, c->lowest);
	if (ir < 0)
		return -1;
	uint8_t in_service = c->isr;
	if (c->special_mask)
		in_service &= (uint8_t)~c->imr;
	int busy = highest(in_service, c->lowest);
	if (busy < 0 || rank((unsigned)ir, c->lowest) < rank((unsigned)busy, c->lowest))
		return ir;
	if (ir == busy && c->sfnm && is_cascade_input(c, master, (unsigned)ir))
		return ir;
	return -1;
}

static void set_input(struct pic8259 *p, unsigned chip, unsigned ir, bool level);

/* Recompute INT of chip (the slave's drives the master's IR2). */
static void update(struct pic8259 *p, unsigned chip)
{
	struct pic_chip *c = &p->chip[chip];
	bool out = pending(c, chip == 0) >= 0;
	if (out == c->int_out)
		return;
	c->int_out = out;
	if (chip == 1)
		set_input(p, 0, PIC_CASCADE_IR, out);
	else
		irq_set(&p->intr, out);
}

static void set_input(struct pic8259 *p, unsigned chip, unsigned ir, bool level)
{
	struct pic_chip *c = &p->chip[chip];
	uint8_t bit = (uint8_t)(1u << ir);
	bool was = c->level & bit;
	if (level) {
		c->level |= bit;
		/* An edge latches on low-to-high only; a level requests while high. */
		if (!was || level_sensitive(c, ir))
			c->irr |= bit;
	} else {
		c->level &= (uint8_t)~bit;
		if (level_sensitive(c, ir))
			c->irr &= (uint8_t)~bit;
	}
	update(p, chip);
}

void pic8259_set_irq(void *opaque, unsigned irq, bool level)
{
	struct pic8259 *p = opaque;
	if (irq >= 16 || irq == PIC_CASCADE_IR)
		return;
	set_input(p, irq >> 3, irq & 7, level);
}

/* ---- initialisation ---- */

/* ICW1 ("Initialization Command Words"): the edge sense circuit is reset (an
 * edge input needs a new low-to-high transition), IMR cleared, IR7 lowest
 * priority, slave address 7, special mask mode cleared and IRR selected for
 * reading; without IC4 every ICW4 function is zero (MCS-80/85 mode). The
 * datasheet's list does not name the ISR; hvemu clears it, as a chip being
 * initialised has nothing in service, and leaves rotate-on-AEOI and poll off. */
static void write_icw1(struct pic8259 *p, unsigned chip, uint8_t v)
{
	struct pic_chip *c = &p->chip[chip];
	c->icw4_needed = v & ICW1_IC4;
	c->single = v & ICW1_SNGL;
	c->address_4 = v & ICW1_ADI;
	c->ltim = v & ICW1_LTIM;
	c->icw1_address = v & 0xe0;
	c->irr = 0;
	for (unsigned ir = 0; ir < 8; ir++)
		if (level_sensitive(c, ir) && ((c->level >> ir) & 1))
			c->irr |= (uint8_t)(1u << ir);
	c->imr = 0;
	c->isr = 0;
	c->lowest = 7;
	c->icw3 = 7;
	c->special_mask = false;
	c->read_isr = false;
	c->poll = false;
	c->rotate_on_aeoi = false;
	if (!c->icw4_needed)
		c->mode_8086 = c->auto_eoi = c->buffered = c->buffer_master = c->sfnm = false;
	c->init_step = 2;
	update(p, chip);
}

/* ICW2-ICW4, in the order ICW1's SNGL and IC4 ask for. */
static void write_icw(struct pic8259 *p, unsigned chip, uint8_t v)
{
	struct pic_chip *c = &p->chip[chip];
	switch (c->init_step) {
	case 2:
		c->icw2 = v;
		c->init_step = !c->single ? 3 : c->icw4_needed ? 4 : 0;
		break;
	case 3:
		c->icw3 = v;
		c->init_step = c->icw4_needed ? 4 : 0;
		break;
	default:
		c->mode_8086 = v & ICW4_UPM;
		c->auto_eoi = v & ICW4_AEOI;
		c->buffered = v & ICW4_BUF;
		c->buffer_master = v & ICW4_MS;
		c->sfnm = v & ICW4_SFNM;
		c->init_step = 0;
		break;
	}
	update(p, chip);
}

void pic8259_init(struct pic8259 *p)
{
	struct irq_line intr = p->intr;
	memset(p, 0, sizeof(*p));
	p->intr = intr;
	p->chip[0].elcr_mask = ELCR_MASK_MASTER;
	p->chip[1].elcr_mask = ELCR_MASK_SLAVE;
	/* The chip's state at power-on is undefined until ICW1; hvemu starts it
	 * as ICW1 + ICW4 in 8086 mode would leave it, with vector base 0 and the
	 * slave on IR2 (ID 2), so nothing is requested and nothing can be. */
	for (unsigned i = 0; i < 2; i++) {
		struct pic_chip *c = &p->chip[i];
		c->lowest = 7;
		c->mode_8086 = true;
		c->icw4_needed = true;
		c->icw3 = i == 0 ? 1u << PIC_CASCADE_IR : PIC_CASCADE_IR;
	}
}

/* ---- operation ---- */

static void clear_in_service(struct pic_chip *c, int ir, bool rotate)
{
	if (ir < 0)
		return;
	c->isr &= (uint8_t)~(1u << ir);
	if (rotate)
		c->lowest = (uint8_t)ir;
}

/* OCW2 ("End of Interrupt", "Automatic Rotation", "Specific Rotation"). */
static void write_ocw2(struct pic8259 *p, unsigned chip, uint8_t v)
{
	struct pic_chip *c = &p->chip[chip];
	int level = v & 7;
	/* "Special Mask Mode": an IS bit masked by the IMR is not cleared by a
	 * non-specific EOI. */
	uint8_t eoi_candidates = c->special_mask ? c->isr & (uint8_t)~c->imr : c->isr;
	switch (v >> 5) {
	case OCW2_NONSPECIFIC_EOI:
		clear_in_service(c, highest(eoi_candidates, c->lowest), false);
		break;
	case OCW2_ROTATE_NONSPECIFIC:
		clear_in_service(c, highest(eoi_candidates, c->lowest), true);
		break;
	case OCW2_SPECIFIC_EOI:
		clear_in_service(c, level, false);
		break;
	case OCW2_ROTATE_SPECIFIC:
		clear_in_service(c, level, true);
		break;
	case OCW2_SET_PRIORITY:
		c->lowest = (uint8_t)level;
		break;
	case OCW2_ROTATE_AEOI_SET:
		c->rotate_on_aeoi = true;
		break;
	case OCW2_ROTATE_AEOI_CLEAR:
		c->rotate_on_aeoi = false;
		break;
	default:
		break;
	}
	update(p, chip);
}

/* OCW3 ("Special Mask Mode", "Poll Command", "Reading the 8259A Status"):
 * ESMM/SMM set or clear special mask mode, RR/RIS pick the register port 0
 * reads, P makes the next read the poll word. */
static void write_ocw3(struct pic8259 *p, unsigned chip, uint8_t v)
{
	struct pic_chip *c = &p->chip[chip];
	if (v & OCW3_ESMM)
		c->special_mask = v & OCW3_SMM;
	if (v & OCW3_RR)
		c->read_isr = v & OCW3_RIS;
	if (v & OCW3_POLL)
		c->poll = true;
	update(p, chip);
}

/* The first INTA pulse of one chip ("Interrupt Sequence"): edge requests whose
 * input has gone low are dropped ("Edge and Level Triggered Modes"), the
 * highest-priority request left goes into service (an edge latch is consumed;
 * a level request stays in IRR while its input is high). The IR serviced, or
 * -1 when none is left. Automatic EOI ends the service at the end of the
 * second pulse ("Automatic End of Interrupt Mode"), rotating if asked. */
static int chip_ack(struct pic8259 *p, unsigned chip)
{
	struct pic_chip *c = &p->chip[chip];
	c->irr &= c->level;
	int ir = pending(c, chip == 0);
	if (ir < 0)
		return -1;
	uint8_t bit = (uint8_t)(1u << ir);
	c->isr |= bit;
	if (!level_sensitive(c, (unsigned)ir))
		c->irr &= (uint8_t)~bit;
	if (c->auto_eoi)
		clear_in_service(c, ir, c->rotate_on_aeoi);
	return ir;
}

/* What the chip puts on the bus at the second INTA pulse for ir. 8086 mode:
 * T7-T3 of ICW2 and the IR number. MCS-80/85 mode ("Interrupt Sequence", ICW1):
 * the low byte of the CALL address, IR * 4 with A7-A5 (interval 4) or IR * 8
 * with A7-A6 (interval 8): an x86 CPU takes that byte as the vector. */
static int chip_vector(const struct pic_chip *c, unsigned ir)
{
	if (c->mode_8086)
		return (c->icw2 & 0xf8) | (int)ir;
	if (c->address_4)
		return (c->icw1_address & 0xe0) | (int)(ir << 2);
	return (c->icw1_address & 0xc0) | (int)(ir << 3);
}

int pic8259_intack(void *opaque)
{
	struct pic8259 *p = opaque;
	struct pic_chip *master = &p->chip[0], *slave = &p->chip[1];
	int vector;
	int ir = chip_ack(p, 0);
	if (ir < 0) {
		p->spurious++;
		vector = chip_vector(master, 7);
	} else if (is_cascade_input(master, true, (unsigned)ir)) {
		/* "Cascading Mode": the master names the slave on CAS0-2 and the
		 * slave with that ID gives the vector; the slave's own spurious
		 * answer is its IR7 vector (IRQ15), the master's IR2 staying in
		 * service. With no slave of that ID the bus floats: all ones. */
		if (slave->single || (slave->icw3 & 7) != ir) {
			vector = 0xff;
		} else {
			int sir = chip_ack(p, 1);
			if (sir < 0)
				p->spurious++;
			vector = chip_vector(slave, sir < 0 ? 7 : (unsigned)sir);
			update(p, 1);
		}
	} else {
		vector = chip_vector(master, (unsigned)ir);
	}
	update(p, 0);
	return vector;
}

/* The poll word ("Poll Command"): the read is an interrupt acknowledge; bit 7
 * says whether there was a request, bits 2:0 its level. With none hvemu
 * returns 0. */
static uint8_t poll_read(struct pic8259 *p, unsigned chip)
{
	p->chip[chip].poll = false;
	int ir = chip_ack(p, chip);
	update(p, chip);
	return ir < 0 ? 0 : (uint8_t)(0x80 | ir);
}

/* ---- ports ---- */

static void pic_write_byte(struct pic8259 *p, unsigned chip, unsigned a0, uint8_t v)
{
	struct pic_chip *c = &p->chip[chip];
	if (a0 == 0) {
		if (v & ICW1_SELECT)
			write_icw1(p, chip, v);
		else if (v & OCW3_SELECT)
			write_ocw3(p, chip, v);
		else
			write_ocw2(p, chip, v);
	} else if (c->init_step) {
		write_icw(p, chip, v);
	} else {
		c->imr = v;            /* OCW1 */
		update(p, chip);
	}
}

static uint8_t pic_read_byte(struct pic8259 *p, unsigned chip, unsigned a0)
{
	struct pic_chip *c = &p->chip[chip];
	if (c->poll)
		return poll_read(p, chip);
	if (a0)
		return c->imr;
	return c->read_isr ? c->isr : c->irr;
}

static unsigned port_chip(uint16_t port)
{
	return port >= PIC_SLAVE_PORT;
}

/* Multi-byte accesses reach consecutive ports, one byte at a time. */
static uint32_t pic_read(void *opaque, uint16_t port, unsigned size)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < size; i++) {
		uint16_t p = (uint16_t)(port + i);
		v |= (uint32_t)pic_read_byte(opaque, port_chip(p), p & 1) << (8 * i);
	}
	return v;
}

static void pic_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	for (unsigned i = 0; i < size; i++) {
		uint16_t p = (uint16_t)(port + i);
		pic_write_byte(opaque, port_chip(p), p & 1, (uint8_t)(value >> (8 * i)));
	}
}

/* PIIX4 ELCR1 (4D0H, IRQ0-7) and ELCR2 (4D1H, IRQ8-15): 1 = level. */
static uint32_t elcr_read(void *opaque, uint16_t port, unsigned size)
{
	struct pic8259 *p = opaque;
	uint32_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint32_t)p->chip[(port + i - PIC_ELCR_PORT) & 1].elcr << (8 * i);
	return v;
}

static void elcr_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct pic8259 *p = opaque;
	for (unsigned i = 0; i < size; i++) {
		unsigned chip = (port + i - PIC_ELCR_PORT) & 1;
		struct pic_chip *c = &p->chip[chip];
		c->elcr = (uint8_t)(value >> (8 * i)) & c->elcr_mask;
		/* A level-sensitive input requests while it is high. */
		for (unsigned ir = 0; ir < 8; ir++)
			if (level_sensitive(c, ir))
				c->irr = (uint8_t)((c->irr & ~(1u << ir)) | (c->level & (1u << ir)));
		update(p, chip);
	}
}

static const struct pio_ops pic_ops = { .read = pic_read, .write = pic_write };
static const struct pio_ops elcr_ops = { .read = elcr_read, .write = elcr_write };

bool pic8259_register(struct pic8259 *p, struct iobus *io)
{
	return iobus_register(io, PIC_MASTER_PORT, 2, &pic_ops, p, "pic-master") &&
	       iobus_register(io, PIC_SLAVE_PORT, 2, &pic_ops, p, "pic-slave") &&
	       iobus_register(io, PIC_ELCR_PORT, 2, &elcr_ops, p, "elcr");
}
