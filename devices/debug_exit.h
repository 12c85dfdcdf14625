/* QEMU's isa-debug-exit device: a guest writes V to the port and the run ends
 * with exit status (V << 1) | 1 — always odd, so a test harness can tell a
 * guest's verdict from the emulator's own (even) statuses. */
#ifndef HVEMU_DEVICES_DEBUG_EXIT_H
#define HVEMU_DEVICES_DEBUG_EXIT_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"

#define DEBUG_EXIT_PORT 0xf4
#define DEBUG_EXIT_SIZE 1          /* QEMU's default iosize */

struct debug_exit {
	uint16_t port;
	bool exited;               /* the guest wrote the port */
	int status;                /* (V << 1) | 1 */
	/* Called on the write so the machine can stop the CPU (set its
	 * stop_requested); NULL: only record it. */
	void (*on_exit)(void *opaque, int status);
	void *opaque;
};

void debug_exit_init(struct debug_exit *d, uint16_t port,
		     void (*on_exit)(void *opaque, int status), void *opaque);
bool debug_exit_register(struct debug_exit *d, struct iobus *io);

#endif
