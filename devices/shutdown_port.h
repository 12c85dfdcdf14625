/* The Bochs "Shutdown" port 0x8900 (Bochs and QEMU 0.x hw/pc.c behaviour):
 * writing the eight bytes "Shutdown" in order powers the machine off. A byte
 * that is not the next one expected starts the sequence over (the byte itself
 * is not taken as a new start, so "SShutdown" does not power off). The port
 * is a byte wide: a wider write reaches it as its low byte (the bus splits it,
 * as an ISA bus does). Reads: all ones. */
#ifndef HVEMU_DEVICES_SHUTDOWN_PORT_H
#define HVEMU_DEVICES_SHUTDOWN_PORT_H

#include <stdbool.h>

#include "devices/bus.h"
#include "devices/power.h"

#define SHUTDOWN_PORT 0x8900

struct shutdown_port {
	unsigned matched;          /* how many bytes of "Shutdown" came in order */
	const struct power_control *power;
};

void shutdown_port_init(struct shutdown_port *s, const struct power_control *power);
bool shutdown_port_register(struct shutdown_port *s, struct iobus *io);

#endif
