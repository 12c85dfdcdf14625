/* QEMU's isa-debugcon (Bochs's "port E9h hack") at 402h, the port SeaBIOS
 * logs through on QEMU: a byte written is the next character of the log; a
 * read returns E9h, which is how firmware tells the port is there (SeaBIOS
 * reads it once and stops logging unless it sees E9h). Port E9h itself
 * belongs to pc-testdev's range (E0h-EBh) on hvemu's machine. Present only
 * when the user asks for it (--debugcon): without it the port is unclaimed
 * and reads all ones. */
#ifndef HVEMU_DEVICES_DEBUGCON_H
#define HVEMU_DEVICES_DEBUGCON_H

#include <stdbool.h>
#include <stdio.h>

#include "devices/bus.h"

#define DEBUGCON_PORT 0x402
#define DEBUGCON_READBACK 0xe9

struct debugcon {
	FILE *out;                 /* the log, or NULL (the bytes are dropped) */
	bool write_failed;
};

bool debugcon_register(struct debugcon *d, struct iobus *io);

#endif
