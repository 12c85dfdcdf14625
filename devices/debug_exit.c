/* isa-debug-exit (QEMU hw/misc/debugexit.c behaviour with iosize=4): a write of
 * any width to any of its ports ends the run with status (V << 1) | 1, V being
 * the value written (a byte, word or doubleword); reads are unclaimed-looking
 * all ones. */
#include "devices/debug_exit.h"

#include <string.h>

void debug_exit_init(struct debug_exit *d, uint16_t port,
		     void (*on_exit)(void *opaque, uint32_t value), void *opaque)
{
	memset(d, 0, sizeof(*d));
	d->port = port;
	d->on_exit = on_exit;
	d->opaque = opaque;
}

static void debug_exit_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct debug_exit *d = opaque;
	(void)port;
	(void)size;                /* the bus has masked value to the access width */
	/* The first write wins: the guest stops at the end of this instruction. */
	if (d->exited)
		return;
	d->exited = true;
	d->value = value;
	if (d->on_exit)
		d->on_exit(d->opaque, value);
}

static const struct pio_ops debug_exit_ops = { .write = debug_exit_write };

bool debug_exit_register(struct debug_exit *d, struct iobus *io)
{
	return iobus_register(io, d->port, DEBUG_EXIT_SIZE, &debug_exit_ops, d, "debug-exit");
}
