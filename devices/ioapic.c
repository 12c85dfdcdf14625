/* The 82093AA I/O APIC (see ioapic.h). Section numbers are the datasheet's
 * (Intel 82093AA I/O APIC, 290566-001). */
#include <string.h>

#include "devices/ioapic.h"

/* Memory-mapped registers (3.1): the index register and the data window. */
#define IOREGSEL 0x00
#define IOWIN    0x10

/* Indirect registers (3.2). */
#define REG_ID      0x00
#define REG_VERSION 0x01
#define REG_ARB     0x02
#define REG_REDIR   0x10     /* 10H + 2n: entry n bits 31:0; 11H + 2n: bits 63:32 */

/* Redirection entry bits (3.2.4). */
#define RE_DELIVERY(e)  (((e) >> 8) & 7)
#define RE_LOGICAL      (1ull << 11)
#define RE_ACTIVE_LOW   (1ull << 13)    /* interrupt input pin polarity */
#define RE_REMOTE_IRR   (1ull << 14)    /* read-only */
#define RE_LEVEL        (1ull << 15)    /* trigger mode */
#define RE_MASKED       (1ull << 16)
/* Writable: vector, delivery mode, destination mode, polarity, trigger mode,
 * mask, destination (63:56); delivery status (12) and remote IRR (14) are
 * read-only, 55:17 reserved. */
#define RE_WRITABLE     (0xff00000000000000ull | 0x1afffull)

void ioapic_init(struct ioapic *io, struct apic_bus *bus)
{
	memset(io, 0, sizeof(*io));
	io->bus = bus;
	io->id = io->arb_id = IOAPIC_DEFAULT_ID;
	/* 3.2.4: "the mask bit ... after reset, all interrupts are masked"; the
	 * other fields are undefined there, hvemu clears them. */
	for (unsigned i = 0; i < IOAPIC_PINS; i++)
		io->redir[i] = RE_MASKED;
}

static bool pin_level(const struct ioapic *io, unsigned pin)
{
	return (io->level >> pin) & 1;
}

/* Is the pin asserted, after the entry's polarity? */
static bool pin_active(const struct ioapic *io, unsigned pin)
{
	return pin_level(io, pin) != ((io->redir[pin] & RE_ACTIVE_LOW) != 0);
}

/* Level-triggered remote IRR applies to fixed and lowest-priority delivery:
 * NMI, SMI, INIT and ExtINT are edge messages whatever the trigger bit says
 * (3.2.4 trigger mode; SDM Vol.3 10.5.1). */
static bool level_fixed(uint64_t e)
{
	return (e & RE_LEVEL) && RE_DELIVERY(e) <= 1;
}

/* Send the pin's message (3.2.4). A level-triggered entry sets remote IRR when
 * a local APIC accepts it, and sends nothing more until the EOI with its
 * vector clears it. */
static void deliver(struct ioapic *io, unsigned pin)
{
	uint64_t e = io->redir[pin];
	struct apic_msg m = {
		.vector = (uint8_t)e, .delivery = (uint8_t)RE_DELIVERY(e),
		.logical = (e & RE_LOGICAL) != 0, .level = level_fixed(e),
		.dest = (uint8_t)(e >> 56),
	};
	unsigned accepted = apic_bus_send(io->bus, &m, NULL);
	if (level_fixed(e) && accepted)
		io->redir[pin] |= RE_REMOTE_IRR;
}

/* A level-triggered pin that is asserted, unmasked and not waiting for an EOI
 * sends (again). */
static void recheck_level(struct ioapic *io, unsigned pin)
{
	uint64_t e = io->redir[pin];
	if (level_fixed(e) && !(e & (RE_MASKED | RE_REMOTE_IRR)) && pin_active(io, pin))
		deliver(io, pin);
}

void ioapic_set_irq(void *opaque, unsigned pin, bool level)
{
	struct ioapic *io = opaque;
	if (pin >= IOAPIC_PINS)
		return;
	bool was_active = pin_active(io, pin);
	io->level = level ? io->level | (1u << pin) : io->level & ~(1u << pin);
	uint64_t e = io->redir[pin];
	/* 3.2.4 mask: "Edge-sensitive interrupts signaled on a masked interrupt
	 * pin are ignored (i.e., not delivered or held pending). Level-asserts or
	 * negates occurring on a masked level-sensitive pin are also ignored." */
	if (e & RE_MASKED)
		return;
	if (level_fixed(e))
		recheck_level(io, pin);
	else if (pin_active(io, pin) && !was_active)
		deliver(io, pin);            /* edge: the rising edge */
}

void ioapic_eoi(void *opaque, uint8_t vector)
{
	struct ioapic *io = opaque;
	/* 3.2.4 remote IRR: "reset to 0 when an EOI message with a matching
	 * interrupt vector is received from a local APIC"; a pin still asserted
	 * then interrupts again. */
	for (unsigned pin = 0; pin < IOAPIC_PINS; pin++) {
		uint64_t e = io->redir[pin];
		if ((e & RE_REMOTE_IRR) && (uint8_t)e == vector) {
			io->redir[pin] &= ~RE_REMOTE_IRR;
			recheck_level(io, pin);
		}
	}
}

uint32_t ioapic_read_reg(struct ioapic *io, uint8_t index)
{
	switch (index) {
	case REG_ID:      return (uint32_t)io->id << 24;
	/* 3.2.2: version 11H, maximum redirection entry (pins - 1) in 23:16. */
	case REG_VERSION: return (io->version_20h ? 0x20u : IOAPIC_VERSION) | (uint32_t)(IOAPIC_PINS - 1) << 16;
	case REG_ARB:     return (uint32_t)io->arb_id << 24;
	default:
		break;
	}
	if (index >= REG_REDIR && index < REG_REDIR + 2 * IOAPIC_PINS) {
		uint64_t e = io->redir[(index - REG_REDIR) >> 1];
		return (index & 1) ? (uint32_t)(e >> 32) : (uint32_t)e;
	}
	return 0;                            /* no register: hvemu reads 0 */
}

void ioapic_write_reg(struct ioapic *io, uint8_t index, uint32_t value)
{
	if (index == REG_ID) {
		/* 3.2.1: ID bits 27:24; 3.2.3: the arbitration ID is loaded when the
		 * ID register is written. */
		io->id = io->arb_id = (value >> 24) & 0xf;
		return;
	}
	if (index < REG_REDIR || index >= REG_REDIR + 2 * IOAPIC_PINS)
		return;                      /* read-only or no register */
	unsigned pin = (index - REG_REDIR) >> 1;
	uint64_t e = io->redir[pin];
	uint64_t v = (index & 1) ? (e & 0xffffffffull) | (uint64_t)value << 32
				 : (e & 0xffffffff00000000ull) | value;
	io->redir[pin] = (v & RE_WRITABLE) | (e & RE_REMOTE_IRR);
	/* Unmasking a level-triggered pin that is asserted sends its message. */
	recheck_level(io, pin);
}

/* ---- the register window (3.1) ---- */

static uint64_t window_read(void *opaque, uint64_t offset, unsigned size)
{
	struct ioapic *io = opaque;
	uint32_t v;
	if (offset < 4)
		v = io->regsel;
	else if (offset >= IOWIN && offset < IOWIN + 4)
		v = ioapic_read_reg(io, io->regsel);
	else
		return 0;
	unsigned shift = (unsigned)(offset & 3) * 8;
	uint64_t mask = size >= 4 ? 0xffffffffull : (1ull << (size * 8)) - 1;
	return (v >> shift) & mask;
}

static void window_write(void *opaque, uint64_t offset, unsigned size, uint64_t value)
{
	struct ioapic *io = opaque;
	if (offset == IOREGSEL) {
		io->regsel = (uint8_t)value;     /* 3.1.1: bits 7:0; 31:8 reserved */
	} else if (offset == IOWIN && size >= 4) {
		/* 3.1: the registers are accessed as 32-bit dwords; narrower
		 * writes to IOWIN are ignored. */
		ioapic_write_reg(io, io->regsel, (uint32_t)value);
	}
}

static const struct mmio_ops window_ops = { window_read, window_write };

bool ioapic_map(struct ioapic *io, struct physmem *pm, uint64_t base)
{
	return physmem_add_mmio(pm, base, 0x1000, &window_ops, io, "ioapic");
}
