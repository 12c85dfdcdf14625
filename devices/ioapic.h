/* An 82093AA-compatible I/O APIC (Intel 82093AA I/O Advanced Programmable
 * Interrupt Controller datasheet, 290566-001): 24 interrupt pins, each with a
 * 64-bit redirection entry that turns the pin's signal into an APIC message
 * (devices/apic_bus.h), reached through the indirect IOREGSEL/IOWIN window at
 * 0xFEC00000. Version 11H: no EOI register (EOIs come as the local APICs' EOI
 * broadcasts). On hvemu's machine, as on QEMU's, ISA IRQ 0 (the PIT) is on pin
 * 2 and ISA IRQs 1-15 on the pins of their number. */
#ifndef HVEMU_DEVICES_IOAPIC_H
#define HVEMU_DEVICES_IOAPIC_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/apic_bus.h"
#include "devices/bus.h"

#define IOAPIC_DEFAULT_BASE 0xfec00000u
#define IOAPIC_PINS         24
#define IOAPIC_VERSION      0x11u
#define IOAPIC_DEFAULT_ID   0          /* after reset (datasheet 3.2.1); as QEMU's */

/* The I/O APIC pin an ISA IRQ reaches on this machine (QEMU's GSI wiring:
 * the interrupt source override of IRQ 0 to GSI 2). */
static inline unsigned ioapic_isa_pin(unsigned irq)
{
	return irq == 0 ? 2 : irq;
}

struct ioapic {
	struct apic_bus *bus;
	uint8_t regsel;            /* IOREGSEL */
	uint8_t id;                /* IOAPICID bits 27:24 */
	uint8_t arb_id;            /* IOAPICARB bits 27:24: loaded when the ID is written */
	uint64_t redir[IOAPIC_PINS];
	/* The quirk qemu-ioapic-version-20h (emu/quirks.def): the version register
	 * reads 20H, QEMU's I/O xAPIC, instead of the 82093AA's 11H. Set by machine
	 * set-up, kept across resets (machine/reboot.c). */
	bool version_20h;
	uint32_t level;            /* pin input levels, bit per pin */
};

/* Power-up state: every entry masked, ID 0. */
void ioapic_init(struct ioapic *io, struct apic_bus *bus);

/* Map the register window at base. False when the address range is taken. */
bool ioapic_map(struct ioapic *io, struct physmem *pm, uint64_t base);

/* An interrupt input (irq_line receiver: opaque is the struct ioapic). */
void ioapic_set_irq(void *opaque, unsigned pin, bool level);

/* A local APIC's EOI broadcast (apic_bus eoi: opaque is the struct ioapic). */
void ioapic_eoi(void *opaque, uint8_t vector);

/* The registers behind IOWIN, by index (also for unit tests). */
uint32_t ioapic_read_reg(struct ioapic *io, uint8_t index);
void ioapic_write_reg(struct ioapic *io, uint8_t index, uint32_t value);

#endif
