/* The debug console port; see devices/debugcon.h. */
#include "devices/debugcon.h"

static uint32_t debugcon_read(void *opaque, uint16_t port, unsigned size)
{
	(void)opaque;
	(void)port;
	uint32_t v = 0;                          /* E9h in every byte read */
	for (unsigned i = 0; i < size; i++)
		v |= (uint32_t)DEBUGCON_READBACK << (8 * i);
	return v;
}

static void debugcon_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct debugcon *d = opaque;
	(void)port;
	(void)size;                              /* the low byte, as QEMU's device keeps */
	if (d->out && fputc((int)(value & 0xff), d->out) == EOF)
		d->write_failed = true;
}

static const struct pio_ops debugcon_ops = { .read = debugcon_read, .write = debugcon_write };

bool debugcon_register(struct debugcon *d, struct iobus *io)
{
	return iobus_register(io, DEBUGCON_PORT, 1, &debugcon_ops, d, "debugcon");
}
