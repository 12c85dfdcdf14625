/* POST-code port 0x80. Reads return all ones, as QEMU's PC model does for
 * this port (there is no latch to read back on a PC). */
#include "devices/post_port.h"

#include <string.h>

void post_port_init(struct post_port *p, void (*report)(void *opaque, uint8_t code),
		    void *opaque)
{
	memset(p, 0, sizeof(*p));
	p->report = report;
	p->opaque = opaque;
}

static void post_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct post_port *p = opaque;
	p->written = true;
	p->last = (uint8_t)value;
	p->count++;
	if (p->report)
		p->report(p->opaque, p->last);
}

static const struct pio_ops post_ops = { .write = post_write };

bool post_port_register(struct post_port *p, struct iobus *io)
{
	return iobus_register(io, POST_PORT, 1, &post_ops, p, "post");
}
