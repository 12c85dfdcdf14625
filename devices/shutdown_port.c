/* Port 0x8900; see devices/shutdown_port.h. */
#include "devices/shutdown_port.h"

#include <string.h>

static const char shutdown_string[] = "Shutdown";

void shutdown_port_init(struct shutdown_port *s, const struct power_control *power)
{
	memset(s, 0, sizeof(*s));
	s->power = power;
}

static void shutdown_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct shutdown_port *s = opaque;
	(void)port;
	(void)size;                /* always 1: the bus splits wider writes */
	if ((uint8_t)value != (uint8_t)shutdown_string[s->matched]) {
		s->matched = 0;
		return;
	}
	if (++s->matched == sizeof(shutdown_string) - 1) {
		s->matched = 0;
		power_request(s->power, POWER_OFF, "port 0x8900 (\"Shutdown\")");
	}
}

static const struct pio_ops shutdown_ops = { .write = shutdown_write };

bool shutdown_port_register(struct shutdown_port *s, struct iobus *io)
{
	return iobus_register(io, SHUTDOWN_PORT, 1, &shutdown_ops, s, "shutdown port");
}
