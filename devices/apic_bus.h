/* Interrupt messages between APICs: what an I/O APIC redirection entry or a
 * local APIC's ICR sends, and how a message finds its local APICs (SDM Vol.3
 * 10.6.2 "Determining IPI Destination", 10.12.10 for x2APIC; 82093AA
 * datasheet 3.2.4). On hvemu's machine the "bus" is the system bus of an
 * xAPIC platform: delivery is immediate, every message is accepted or dropped
 * at once, so no delivery status is ever pending.
 *
 * The bus also carries EOI messages from the local APICs to the I/O APICs for
 * level-triggered vectors (SDM 10.8.5). */
#ifndef HVEMU_DEVICES_APIC_BUS_H
#define HVEMU_DEVICES_APIC_BUS_H

#include <stdbool.h>
#include <stdint.h>

#define APIC_BUS_MAX_CPUS 16

/* Delivery modes (SDM Vol.3 10.6.1 ICR bits 10:8; 10.5.1 LVT; 82093AA
 * redirection entry bits 10:8). */
enum apic_delivery {
	APIC_DM_FIXED = 0,
	APIC_DM_LOWEST = 1,
	APIC_DM_SMI = 2,
	APIC_DM_REMOTE_READ = 3,   /* P6/Pentium only; reserved on the modelled APIC */
	APIC_DM_NMI = 4,
	APIC_DM_INIT = 5,
	APIC_DM_STARTUP = 6,
	APIC_DM_EXTINT = 7,
};

/* ICR destination shorthands (SDM Vol.3 10.6.1, ICR bits 19:18). */
enum apic_shorthand {
	APIC_DEST_FIELD = 0, APIC_DEST_SELF = 1, APIC_DEST_ALL = 2, APIC_DEST_ALL_BUT_SELF = 3,
};

struct apic_msg {
	uint8_t vector;
	uint8_t delivery;          /* enum apic_delivery */
	bool logical;              /* destination mode: logical (1) or physical (0) */
	bool level;                /* trigger mode: level (I/O APIC level pins) */
	bool deassert;             /* INIT with level 0 and trigger level: INIT level de-assert */
	uint8_t shorthand;         /* enum apic_shorthand (ICR only) */
	bool wide;                 /* dest is a 32-bit x2APIC destination (x2APIC ICR); else 8-bit */
	uint32_t dest;
};

struct lapic;

struct apic_bus {
	struct lapic *lapic[APIC_BUS_MAX_CPUS];   /* in CPU order (APIC IDs 0..n-1) */
	unsigned n;
	/* The I/O APIC's EOI input (SDM 10.8.5: the local APIC broadcasts an EOI
	 * message for a level-triggered vector), NULL if none. */
	void (*eoi)(void *opaque, uint8_t vector);
	void *eoi_opaque;
};

/* Send m from sender (NULL: the I/O APIC) to every local APIC it names. A
 * lowest-priority message goes to the one destination with the lowest task
 * priority (ties: the lowest APIC ID). Returns how many accepted it. */
unsigned apic_bus_send(struct apic_bus *bus, const struct apic_msg *m, struct lapic *sender);

/* A local APIC's EOI broadcast for vector (level-triggered interrupts). */
void apic_bus_eoi(struct apic_bus *bus, uint8_t vector);

#endif
