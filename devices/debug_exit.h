/* QEMU's isa-debug-exit device, as hvemu's guests and QEMU's `-device
 * isa-debug-exit,iobase=0xf4,iosize=4` use it: a guest writes V to one of its
 * ports and the run ends with exit status (V << 1) | 1 — always odd, so a test
 * harness can tell a guest's verdict from the emulator's own (even) statuses. */
#ifndef HVEMU_DEVICES_DEBUG_EXIT_H
#define HVEMU_DEVICES_DEBUG_EXIT_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"

#define DEBUG_EXIT_PORT 0xf4
#define DEBUG_EXIT_SIZE 4          /* iosize=4: ports 0xf4-0xf7 */

struct debug_exit {
	uint16_t port;
	bool exited;               /* the guest wrote the device */
	uint32_t value;            /* V: the value of the first write, as wide as it was */
	/* Called on the write so the machine can stop the CPU (set its
	 * stop_requested); NULL: only record it. */
	void (*on_exit)(void *opaque, uint32_t value);
	void *opaque;
};

void debug_exit_init(struct debug_exit *d, uint16_t port,
		     void (*on_exit)(void *opaque, uint32_t value), void *opaque);
bool debug_exit_register(struct debug_exit *d, struct iobus *io);

/* The process exit status QEMU would end with: (V << 1) | 1, of which the
 * operating system keeps the low 8 bits. */
static inline int debug_exit_status(const struct debug_exit *d)
{
	return (int)((((uint64_t)d->value << 1) | 1) & 0xff);
}

#endif
