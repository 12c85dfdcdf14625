/* isa-debug-exit (QEMU hw/misc/debugexit.c behaviour): a write of V ends the
 * run with status (V << 1) | 1; reads are unclaimed-looking all ones. */
#include "devices/debug_exit.h"

#include <string.h>

void debug_exit_init(struct debug_exit *d, uint16_t port,
		     void (*on_exit)(void *opaque, int status), void *opaque)
{
	memset(d, 0, sizeof(*d));
	d->port = port;
	d->on_exit = on_exit;
	d->opaque = opaque;
}

static void debug_exit_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct debug_exit *d = opaque;
	/* The first write wins: the guest stops at the end of this instruction. */
	if (d->exited)
		return;
	d->exited = true;
	d->status = (int)(((value & 0xff) << 1) | 1);
	if (d->on_exit)
		d->on_exit(d->opaque, d->status);
}

static const struct pio_ops debug_exit_ops = { .write = debug_exit_write };

bool debug_exit_register(struct debug_exit *d, struct iobus *io)
{
	return iobus_register(io, d->port, DEBUG_EXIT_SIZE, &debug_exit_ops, d, "debug-exit");
}
