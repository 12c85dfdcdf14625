/* QEMU's isa-debugcon at port 402h, where SeaBIOS writes its debug log
 * (SeaBIOS src/Kconfig DEBUG_IO, "Special IO port for debugging output",
 * 0x402) and QEMU's docs name the device "isa-debugcon": each byte written is
 * one character of output; a read returns E9h (the device's readback value,
 * which SeaBIOS checks before it uses the port: anything else turns its log
 * off). */
#ifndef HVEMU_DEVICES_DEBUGCON_H
#define HVEMU_DEVICES_DEBUGCON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "devices/bus.h"

#define DEBUGCON_PORT 0x402
#define DEBUGCON_READBACK 0xe9

struct debugcon {
	FILE *out;                 /* where the characters go, or NULL: dropped */
	uint64_t count;            /* bytes written by the guest */
};

void debugcon_init(struct debugcon *d, FILE *out);
bool debugcon_register(struct debugcon *d, struct iobus *io);

#endif
