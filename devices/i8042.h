/* The 8042 keyboard controller at ports 60h (data) and 64h (status, command),
 * with a PS/2 keyboard on its keyboard port and nothing on its auxiliary
 * (mouse) port.
 *
 * Modelled (IBM AT/PS/2 8042 as documented in A. Brouwer, "Keyboard
 * scancodes", section 10): the status register (output buffer full, system
 * flag (set by a passed self-test, and by writing the command byte: its
 * bit 2 "is shown in bit 2 of the status register"), command/data,
 * keyboard not locked, auxiliary data, time-out); the
 * command byte (controller RAM byte 0: IRQ1/IRQ12 enables, system flag,
 * keyboard and auxiliary clock disables, set 2 to set 1 translation) and RAM
 * bytes 1-31 (commands 20h-3Fh, 60h-7Fh); self-test AAh (55h), interface tests
 * ABh/A9h (00h), keyboard enable/disable AEh/ADh (and any byte sent to the
 * keyboard enables it again), auxiliary enable/disable A8h/A7h, input port
 * C0h, output port D0h/D1h (bit 0 low resets the system, bit 1 is the A20
 * gate), test inputs E0h, D2h/D3h (a byte as if from the keyboard/mouse), D4h
 * (to the mouse: none is attached, so the time-out bit is set), A20 DDh/DFh,
 * and pulses F0h-FFh (bit 0 low, as in FEh, resets the system). IRQ1 is the
 * output buffer holding keyboard data with command byte bit 0 set, IRQ12 the
 * same for auxiliary data and bit 1.
 *
 * The output buffer is one byte: a command's answer replaces a byte the
 * guest has not read, as on the real controller ("data in the output
 * register will be overwritten"). Commands take effect at once (the input
 * buffer is never seen full).
 *
 * A reset (command F0h-FFh with bit 0 clear, as FEh; an output port write
 * with bit 0 clear) is a power_request(POWER_RESET) to the machine's
 * power_control (devices/power.h), the one path every reset source (this
 * controller, port 92h, CF9h) takes. The output port's A20 bit drives a line
 * the machine may connect (i8042_connect_a20).
 */
#ifndef HVEMU_DEVICES_I8042_H
#define HVEMU_DEVICES_I8042_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"
#include "devices/irq.h"
#include "devices/power.h"
#include "devices/ps2_keyboard.h"

#define I8042_DATA_PORT 0x60
#define I8042_STATUS_PORT 0x64     /* read: status; write: a command */
#define I8042_COMMAND_PORT 0x64

/* Status register (port 64h read). */
enum {
	I8042_STR_OBF = 0x01,      /* output buffer full */
	I8042_STR_IBF = 0x02,      /* input buffer full (never: commands run at once) */
	I8042_STR_SYS = 0x04,      /* system flag */
	I8042_STR_CMD = 0x08,      /* the last write was to port 64h */
	I8042_STR_UNLOCKED = 0x10, /* keyboard not locked */
	I8042_STR_AUXB = 0x20,     /* the output buffer holds auxiliary data */
	I8042_STR_TIMEOUT = 0x40,
};

/* Command byte (controller RAM byte 0). */
enum {
	I8042_CMD_KBD_INT = 0x01,
	I8042_CMD_AUX_INT = 0x02,
	I8042_CMD_SYS = 0x04,
	I8042_CMD_KBD_DISABLE = 0x10,
	I8042_CMD_AUX_DISABLE = 0x20,
	I8042_CMD_TRANSLATE = 0x40,
};

/* Output port (D0h/D1h). */
enum {
	I8042_OUT_RESET = 0x01,    /* 0: reset the system */
	I8042_OUT_A20 = 0x02,
	I8042_OUT_IRQ1 = 0x10,     /* keyboard data in the output buffer */
	I8042_OUT_IRQ12 = 0x20,    /* auxiliary data in the output buffer */
};

/* Whether command cmd pulses the reset line (output port bit 0): F0h-FFh
 * pulse the lines whose bits are 0 (Brouwer 10.3, "Pulse output bit"). */
static inline bool i8042_command_resets(uint8_t cmd)
{
	return cmd >= 0xf0 && !(cmd & 1);
}

struct i8042 {
	struct ps2_keyboard kbd;
	/* The status register's system flag is not the command byte's bit 2 (only
	 * the self-test sets it): the quirk qemu-kbd-system-flag-apart
	 * (emu/quirks.def), set by machine set-up and kept across resets. */
	bool system_flag_apart;
	struct irq_line irq1, irq12;   /* wired by the machine (PIC inputs 1 and 12) */
	const struct power_control *power;   /* where a reset goes; NULL: dropped */
	void (*set_a20)(void *opaque, bool on);  /* output port bit 1 changed; NULL: no gate */
	void *a20_opaque;
	uint8_t ram[32];           /* ram[0] is the command byte */
	uint8_t out;               /* output buffer */
	bool out_full, out_aux;
	bool last_was_command;     /* status bit 3 */
	bool timeout;              /* status bit 6 */
	bool system_flag;          /* status bit 2: self-test passed, or command byte bit 2 written */
	uint8_t output_port;       /* bits 0-3 and 6-7; 4-5 are the buffer state */
	uint8_t awaiting;          /* command waiting for its data byte (60h-7Fh, D1h-D4h), or 0 */
	bool break_prefix;         /* translating: an F0h waits for the code it releases */
	bool irq1_level, irq12_level;
};

/* The controller as SeaBIOS leaves it under QEMU: command byte 61h (IRQ1 and
 * translation on, the auxiliary port off, bit 2 clear), the system flag set
 * in the status register (by the self-test that ran after), A20 enabled; the
 * keyboard in set 2, scanning. Resets go to power (may be NULL). The machine
 * wires irq1/irq12 and the A20 line after this. */
void i8042_init(struct i8042 *c, const struct power_control *power);

/* The A20 gate: set_a20(opaque, on) whenever output port bit 1 changes. */
void i8042_connect_a20(struct i8042 *c, void (*set_a20)(void *opaque, bool on), void *opaque);

/* Claim ports 60h and 64h. False if they are taken. */
bool i8042_register(struct i8042 *c, struct iobus *io);

/* Port accesses (one byte). */
uint8_t i8042_read(struct i8042 *c, uint16_t port);
void i8042_write(struct i8042 *c, uint16_t port, uint8_t value);

/* The status register as port 64h shows it (no side effects). */
uint8_t i8042_status(const struct i8042 *c);

/* A key pressed or released on the keyboard (the display window or --keys). */
void i8042_key(struct i8042 *c, const struct ps2_key *key, bool down);

#endif
