/* The 8042's command port, reset commands only; see devices/i8042.h. */
#include "devices/i8042.h"

#include <stdio.h>
#include <string.h>

void i8042_init(struct i8042 *k, const struct power_control *power)
{
	memset(k, 0, sizeof(*k));
	k->status = I8042_STATUS_SYS | I8042_STATUS_UNINHIBITED;
	k->power = power;
}

static uint32_t i8042_status_read(void *opaque, uint16_t port, unsigned size)
{
	struct i8042 *k = opaque;
	(void)port;
	(void)size;
	return k->status;      /* output and input buffers empty: nothing to read or wait for */
}

static void i8042_command_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct i8042 *k = opaque;
	(void)port;
	(void)size;
	uint8_t cmd = (uint8_t)value;
	k->status |= I8042_STATUS_CMD;
	if (i8042_command_resets(cmd)) {
		char why[64];
		snprintf(why, sizeof(why), "8042 command 0x%02x (pulse the reset line)", cmd);
		power_request(k->power, POWER_RESET, why);
	}
}

static const struct pio_ops i8042_ops = { .read = i8042_status_read, .write = i8042_command_write };

bool i8042_register(struct i8042 *k, struct iobus *io)
{
	return iobus_register(io, I8042_COMMAND_PORT, 1, &i8042_ops, k, "8042 command port");
}
