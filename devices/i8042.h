/* The 8042 keyboard controller's command port 0x64, reduced to what the boot
 * contract needs: the "pulse output port" commands F0h-FFh, whose low four
 * bits select output-port lines to pulse low (0 = pulse); line 0 is the CPU
 * reset, so F0h, F2h, ..., FEh reset the machine (IBM PC/AT Technical
 * Reference, keyboard controller commands; the 8042 is the BIOS's classic
 * reboot path). Other commands are taken and ignored. The keyboard itself, the
 * data port 0x60 and the rest of the controller belong to the display and
 * keyboard part of the machine, which takes over this file's device and keeps
 * its reset path through i8042_command_resets() and the power_control. */
#ifndef HVEMU_DEVICES_I8042_H
#define HVEMU_DEVICES_I8042_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"
#include "devices/power.h"

#define I8042_COMMAND_PORT 0x64

/* Status register bits (read at 0x64). */
enum {
	I8042_STATUS_SYS = 1u << 2,        /* system flag: self-test passed (set by POST) */
	I8042_STATUS_CMD = 1u << 3,        /* the last write was to the command port */
	I8042_STATUS_UNINHIBITED = 1u << 4,  /* keyboard not inhibited */
};

struct i8042 {
	uint8_t status;
	const struct power_control *power;
};

/* Whether command cmd pulses the CPU reset line (output port bit 0). */
static inline bool i8042_command_resets(uint8_t cmd)
{
	return cmd >= 0xf0 && !(cmd & 1);
}

/* As the firmware leaves it: self-test passed, keyboard not inhibited, no
 * data in either buffer. */
void i8042_init(struct i8042 *k, const struct power_control *power);
bool i8042_register(struct i8042 *k, struct iobus *io);

#endif
