/* 8042 keyboard controller; see devices/i8042.h. Section numbers are those of
 * A. Brouwer, "Keyboard scancodes" (10.1 status, 10.2 command byte, 10.3
 * commands, 10.4 input port, 10.5 output port, 10.6 test inputs). */
#include "devices/i8042.h"

#include <stdio.h>
#include <string.h>

/* Controller commands (port 64h), 10.3. */
enum {
	CC_READ_RAM = 0x20,        /* 20h-3Fh */
	CC_WRITE_RAM = 0x60,       /* 60h-7Fh */
	CC_AUX_DISABLE = 0xa7, CC_AUX_ENABLE = 0xa8, CC_AUX_TEST = 0xa9,
	CC_SELF_TEST = 0xaa, CC_KBD_TEST = 0xab,
	CC_KBD_DISABLE = 0xad, CC_KBD_ENABLE = 0xae,
	CC_READ_INPUT = 0xc0, CC_READ_OUTPUT = 0xd0, CC_WRITE_OUTPUT = 0xd1,
	CC_WRITE_KBD_BUFFER = 0xd2, CC_WRITE_AUX_BUFFER = 0xd3, CC_WRITE_AUX = 0xd4,
	CC_A20_OFF = 0xdd, CC_A20_ON = 0xdf, CC_READ_TEST = 0xe0,
	CC_PULSE = 0xf0,           /* F0h-FFh: pulse output port bits 3-0 that are 0 */
};

enum {
	SELF_TEST_OK = 0x55, INTERFACE_OK = 0x00,
	/* Input port (10.4): keyboard not locked (7), colour display (6 = 0), no
	 * manufacturing jumper (5), keyboard and mouse data lines idle high (1-0). */
	INPUT_PORT = 0xa3,
	/* Output port after firmware: not in reset, A20 on, the mouse and
	 * keyboard clock and data lines idle high. */
	OUTPUT_PORT_IDLE = 0xcf,
	COMMAND_BYTE_BIOS = I8042_CMD_KBD_INT | I8042_CMD_AUX_DISABLE | I8042_CMD_TRANSLATE,
};

static uint8_t command_byte(const struct i8042 *c)
{
	return c->ram[0];
}

/* IRQ1 and IRQ12 follow the output buffer (output port bits 4 and 5) when
 * the command byte enables them; the receivers see only level changes. */
static void update_irqs(struct i8042 *c)
{
	bool kbd = c->out_full && !c->out_aux && (command_byte(c) & I8042_CMD_KBD_INT);
	bool aux = c->out_full && c->out_aux && (command_byte(c) & I8042_CMD_AUX_INT);
	if (kbd != c->irq1_level) {
		c->irq1_level = kbd;
		irq_set(&c->irq1, kbd);
	}
	if (aux != c->irq12_level) {
		c->irq12_level = aux;
		irq_set(&c->irq12, aux);
	}
}

static void output(struct i8042 *c, uint8_t b, bool aux)
{
	c->out = b;
	c->out_full = true;
	c->out_aux = aux;
	c->timeout = false;
	update_irqs(c);
}

/* Move the keyboard's next byte into an empty output buffer, unless the
 * command byte holds the keyboard clock low. With translation on, a set 2
 * F0h prefix is absorbed and ORs 80h into the translated code after it
 * (Brouwer 9.3). */
static void pull_keyboard(struct i8042 *c)
{
	while (!c->out_full && !(command_byte(c) & I8042_CMD_KBD_DISABLE) && ps2kbd_has_byte(&c->kbd)) {
		uint8_t b = ps2kbd_take_byte(&c->kbd);
		if (command_byte(c) & I8042_CMD_TRANSLATE) {
			if (b == 0xf0) {
				c->break_prefix = true;
				continue;
			}
			b = (uint8_t)(ps2_translate(b) | (c->break_prefix ? 0x80 : 0));
			c->break_prefix = false;
		}
		output(c, b, false);
	}
}

static void keyboard_ready(void *opaque)
{
	pull_keyboard(opaque);
}

void i8042_init(struct i8042 *c, const struct power_control *power)
{
	memset(c, 0, sizeof(*c));
	c->power = power;
	c->ram[0] = COMMAND_BYTE_BIOS;
	c->system_flag = true;
	c->output_port = OUTPUT_PORT_IDLE;
	ps2kbd_init(&c->kbd, keyboard_ready, c);
}

void i8042_connect_a20(struct i8042 *c, void (*set_a20)(void *opaque, bool on), void *opaque)
{
	c->set_a20 = set_a20;
	c->a20_opaque = opaque;
}

static void reset_request(struct i8042 *c, const char *what, uint8_t value)
{
	char source[64];
	snprintf(source, sizeof(source), "8042 %s 0x%02x (%s)", what, value,
		 what[0] == 'c' ? "pulse the reset line" : "reset line low");
	power_request(c->power, POWER_RESET, source);
}

uint8_t i8042_status(const struct i8042 *c)
{
	uint8_t st = I8042_STR_UNLOCKED;
	if (c->out_full)
		st |= I8042_STR_OBF | (c->out_aux ? I8042_STR_AUXB : 0);
	if (c->system_flag)
		st |= I8042_STR_SYS;
	if (c->last_was_command)
		st |= I8042_STR_CMD;
	if (c->timeout)
		st |= I8042_STR_TIMEOUT;
	return st;
}

/* The output port with its buffer bits (10.5: bit 4 "IRQ1", bit 5 "IRQ12"). */
static uint8_t output_port(const struct i8042 *c)
{
	uint8_t p = c->output_port & ~(I8042_OUT_IRQ1 | I8042_OUT_IRQ12);
	if (c->out_full)
		p |= c->out_aux ? I8042_OUT_IRQ12 : I8042_OUT_IRQ1;
	return p;
}

/* A new output port value: bit 1 drives the A20 gate, bit 0 low the reset line. */
static void write_output_port(struct i8042 *c, uint8_t v)
{
	bool a20_was = c->output_port & I8042_OUT_A20;
	c->output_port = v;
	if (a20_was != (bool)(v & I8042_OUT_A20) && c->set_a20)
		c->set_a20(c->a20_opaque, v & I8042_OUT_A20);
	if (!(v & I8042_OUT_RESET))
		reset_request(c, "output port write", v);
}

static void set_command_byte(struct i8042 *c, uint8_t v)
{
	c->ram[0] = v & 0x7f;      /* 10.2: bit 7 is always 0 */
	if (!c->system_flag_apart)
		c->system_flag = v & I8042_CMD_SYS;   /* 10.2: bit 2 "is shown in bit 2 of the status register" */
	update_irqs(c);
	pull_keyboard(c);
}

static void controller_command(struct i8042 *c, uint8_t cmd)
{
	if (cmd >= CC_READ_RAM && cmd < CC_READ_RAM + 0x20) {
		output(c, c->ram[cmd & 0x1f], false);
		return;
	}
	if ((cmd >= CC_WRITE_RAM && cmd < CC_WRITE_RAM + 0x20) ||
	    (cmd >= CC_WRITE_OUTPUT && cmd <= CC_WRITE_AUX)) {
		c->awaiting = cmd;
		return;
	}
	if (cmd >= CC_PULSE) {
		/* Bits 3-0 that are 0 are pulsed low for about 6 us; bit 0 is the
		 * reset line ("The only useful version of this command is FEh"). */
		if (i8042_command_resets(cmd))
			reset_request(c, "command", cmd);
		return;
	}
	switch (cmd) {
	case CC_AUX_DISABLE: set_command_byte(c, command_byte(c) | I8042_CMD_AUX_DISABLE); break;
	case CC_AUX_ENABLE: set_command_byte(c, command_byte(c) & ~I8042_CMD_AUX_DISABLE); break;
	case CC_AUX_TEST: output(c, INTERFACE_OK, false); break;
	case CC_SELF_TEST:
		/* 10.1: the system flag is "set to 1 after successful completion
		 * of the keyboard controller self-test" (the command byte keeps its
		 * bit 2). */
		c->system_flag = true;
		output(c, SELF_TEST_OK, false);
		break;
	case CC_KBD_TEST: output(c, INTERFACE_OK, false); break;
	case CC_KBD_DISABLE: set_command_byte(c, command_byte(c) | I8042_CMD_KBD_DISABLE); break;
	case CC_KBD_ENABLE: set_command_byte(c, command_byte(c) & ~I8042_CMD_KBD_DISABLE); break;
	case CC_READ_INPUT: output(c, INPUT_PORT, false); break;
	case CC_READ_OUTPUT: output(c, output_port(c), false); break;
	case CC_A20_OFF: write_output_port(c, c->output_port & ~I8042_OUT_A20); break;
	case CC_A20_ON: write_output_port(c, c->output_port | I8042_OUT_A20); break;
	case CC_READ_TEST: {
		/* 10.6: T0 the keyboard clock, T1 the mouse clock; each is high
		 * unless the command byte makes the controller hold it low. */
		uint8_t t = 0;
		if (!(command_byte(c) & I8042_CMD_KBD_DISABLE))
			t |= 1;
		if (!(command_byte(c) & I8042_CMD_AUX_DISABLE))
			t |= 2;
		output(c, t, false);
		break;
	}
	default:
		break;             /* not a command this controller knows: ignored */
	}
}

/* A byte written to port 60h: the data of the pending controller command,
 * or a byte for the keyboard. */
static void data_write(struct i8042 *c, uint8_t v)
{
	uint8_t cmd = c->awaiting;
	c->awaiting = 0;
	if (cmd >= CC_WRITE_RAM && cmd < CC_WRITE_RAM + 0x20) {
		if (cmd == CC_WRITE_RAM)
			set_command_byte(c, v);
		else
			c->ram[cmd & 0x1f] = v;
		return;
	}
	switch (cmd) {
	case CC_WRITE_OUTPUT: write_output_port(c, v); return;
	case CC_WRITE_KBD_BUFFER: output(c, v, false); return;
	case CC_WRITE_AUX_BUFFER: output(c, v, true); return;
	case CC_WRITE_AUX: c->timeout = true; return;   /* no mouse answers */
	default: break;
	}
	/* 10.3 (ADh): "Any keyboard command enables the keyboard again." */
	c->ram[0] &= ~I8042_CMD_KBD_DISABLE;
	c->timeout = false;
	ps2kbd_command(&c->kbd, v);
	pull_keyboard(c);
}

uint8_t i8042_read(struct i8042 *c, uint16_t port)
{
	if (port == I8042_STATUS_PORT)
		return i8042_status(c);
	if (port != I8042_DATA_PORT)
		return 0xff;
	/* Reading the data port empties the buffer (the byte stays readable);
	 * the keyboard's next byte moves in. */
	uint8_t b = c->out;
	c->out_full = false;
	update_irqs(c);
	pull_keyboard(c);
	return b;
}

void i8042_write(struct i8042 *c, uint16_t port, uint8_t v)
{
	if (port == I8042_STATUS_PORT) {
		c->last_was_command = true;
		c->awaiting = 0;
		controller_command(c, v);
	} else if (port == I8042_DATA_PORT) {
		c->last_was_command = false;
		data_write(c, v);
	}
}

void i8042_key(struct i8042 *c, const struct ps2_key *key, bool down)
{
	ps2kbd_key(&c->kbd, key, down);
}

static uint32_t pio_read(void *opaque, uint16_t port, unsigned size)
{
	return i8042_read(opaque, port);   /* one-port ranges: the bus splits wider accesses */
}

static void pio_write(void *opaque, uint16_t port, unsigned size, uint32_t v)
{
	i8042_write(opaque, port, (uint8_t)v);
}

static const struct pio_ops i8042_pio = { .read = pio_read, .write = pio_write };

bool i8042_register(struct i8042 *c, struct iobus *io)
{
	return iobus_register(io, I8042_DATA_PORT, 1, &i8042_pio, c, "i8042 data") &&
	       iobus_register(io, I8042_STATUS_PORT, 1, &i8042_pio, c, "i8042 status");
}
