/* The debug console at port 402h; see devices/debugcon.h. */
#include "devices/debugcon.h"

#include <string.h>

void debugcon_init(struct debugcon *d, FILE *out)
{
	memset(d, 0, sizeof(*d));
	d->out = out;
}

static uint32_t debugcon_read(void *opaque, uint16_t port, unsigned size)
{
	(void)opaque;
	(void)port;
	(void)size;
	return DEBUGCON_READBACK;
}

/* Only the low byte of a wider write is a character. */
static void debugcon_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct debugcon *d = opaque;
	(void)port;
	(void)size;
	d->count++;
	if (d->out) {
		fputc((int)(value & 0xff), d->out);
		fflush(d->out);
	}
}

static const struct pio_ops debugcon_ops = { .read = debugcon_read, .write = debugcon_write };

bool debugcon_register(struct debugcon *d, struct iobus *io)
{
	return iobus_register(io, DEBUGCON_PORT, 1, &debugcon_ops, d, "debugcon");
}
