/* The PC's reset registers and the A20 gate they share a port with:
 *   port 0x92, System Control Port A (PS/2; IBM PS/2 Model 50/60 Technical
 *     Reference, "System Control Port A"): bit 0 fast reset (a 0 -> 1 write
 *     resets the processor), bit 1 A20 gate (1 = A20 enabled);
 *   port 0xCF9, the Reset Control register of the PIIX3/PIIX4 (82371SB/AB
 *     datasheet, RC register): bit 2 Reset CPU (a 0 -> 1 write resets), bit 1
 *     System Reset (1: hard reset, 0: soft reset, INIT only).
 * A reset is a power_request(POWER_RESET): the CLI's machine restarts, or ends
 * the run under --no-reboot (machine/reboot.h). The
 * A20 line goes to the CPU (emu/cpu.h cpu_set_a20). */
#ifndef HVEMU_DEVICES_RESET_H
#define HVEMU_DEVICES_RESET_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"
#include "devices/power.h"

#define PORT92 0x92
#define RESET_CONTROL_PORT 0xcf9

enum {
	PORT92_FAST_RESET = 1u << 0,
	PORT92_A20 = 1u << 1,
	RCR_SYS_RST = 1u << 1,     /* 1: hard reset, 0: soft (INIT) */
	RCR_RST_CPU = 1u << 2,     /* 0 -> 1: reset of the kind SYS_RST selects */
	RCR_HARD_RESET = RCR_SYS_RST | RCR_RST_CPU,  /* the value a reset register write uses */
};

struct reset_ports {
	uint8_t port92;            /* the bits as last written (bit 1 = A20) */
	uint8_t rcr;               /* SYS_RST as last written */
	const struct power_control *power;
	void (*set_a20)(void *opaque, bool enabled);   /* NULL: no A20 gate wired */
	void *a20_opaque;
};

/* After power-on: A20 enabled (bit 1 of port 0x92 reads 1), as the firmware of
 * hvemu's Multiboot contract leaves it; the CPU's A20 line is set to match. */
void reset_ports_init(struct reset_ports *r, const struct power_control *power,
		      void (*set_a20)(void *opaque, bool enabled), void *a20_opaque);
/* Port 0x92 only: 0xCF9 lies in the PCI configuration-address range, whose
 * owner passes byte accesses to reset_control_ops (devices/pci.h). */
bool reset_ports_register(struct reset_ports *r, struct iobus *io);
extern const struct pio_ops reset_control_ops;   /* byte accesses at 0xCF9; opaque: reset_ports */

#endif
