/* Port 0x80: the POST-code port firmware and kernels write progress codes to
 * (and Linux uses as an I/O delay). Writes are recorded and reported. */
#ifndef HVEMU_DEVICES_POST_PORT_H
#define HVEMU_DEVICES_POST_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"

#define POST_PORT 0x80

struct post_port {
	bool written;              /* any code seen yet */
	uint8_t last;              /* the most recent code */
	uint64_t count;            /* codes written */
	void (*report)(void *opaque, uint8_t code);   /* NULL: record only */
	void *opaque;
};

void post_port_init(struct post_port *p, void (*report)(void *opaque, uint8_t code),
		    void *opaque);
bool post_port_register(struct post_port *p, struct iobus *io);

#endif
