/* Port 0x92 and the PIIX reset control register; see devices/reset.h. */
#include "devices/reset.h"

#include <string.h>

void reset_ports_init(struct reset_ports *r, const struct power_control *power,
		      void (*set_a20)(void *opaque, bool enabled), void *a20_opaque)
{
	memset(r, 0, sizeof(*r));
	r->power = power;
	r->set_a20 = set_a20;
	r->a20_opaque = a20_opaque;
	r->port92 = PORT92_A20;
	if (set_a20)
		set_a20(a20_opaque, true);
}

static uint32_t port92_read(void *opaque, uint16_t port, unsigned size)
{
	struct reset_ports *r = opaque;
	(void)port;
	(void)size;
	/* Bit 0 reads back as written; the reset it caused sets it back to 0. */
	return r->port92;
}

/* PS/2 System Control Port A: bit 1 gates A20, and writing bit 0 as 1 when it
 * was 0 pulses the processor's reset (a "fast reset", faster than through
 * the 8042). Only the low byte counts: the port is one byte wide. */
static void port92_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct reset_ports *r = opaque;
	uint8_t old = r->port92, v = (uint8_t)value;
	(void)port;
	(void)size;
	r->port92 = v;
	if ((old ^ v) & PORT92_A20 && r->set_a20)
		r->set_a20(r->a20_opaque, v & PORT92_A20);
	if ((v & PORT92_FAST_RESET) && !(old & PORT92_FAST_RESET))
		power_request(r->power, POWER_RESET, "port 0x92 bit 0 (fast reset)");
}

static const struct pio_ops port92_ops = { .read = port92_read, .write = port92_write };

bool reset_ports_register(struct reset_ports *r, struct iobus *io)
{
	return iobus_register(io, PORT92, 1, &port92_ops, r, "port 0x92");
}

static uint32_t rcr_read(void *opaque, uint16_t port, unsigned size)
{
	struct reset_ports *r = opaque;
	(void)size;
	return port == RESET_CONTROL_PORT ? r->rcr : 0xff;
}

/* 82371 RC register: RST_CPU going 0 -> 1 resets, hard or soft (INIT) as
 * SYS_RST says. RST_CPU itself reads back 0 (the reset it starts clears it);
 * the machine decides what both kinds do (the CLI resets everything, as QEMU
 * does for either). */
static void rcr_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct reset_ports *r = opaque;
	(void)size;
	if (port != RESET_CONTROL_PORT)
		return;
	r->rcr = value & RCR_SYS_RST;
	if (value & RCR_RST_CPU)   /* it read 0: every write of 1 is a 0 -> 1 edge */
		power_request(r->power, POWER_RESET, (value & RCR_SYS_RST)
			      ? "port 0xcf9 (hard reset: System Reset and Reset CPU)"
			      : "port 0xcf9 (soft reset: Reset CPU)");
}

const struct pio_ops reset_control_ops = { .read = rcr_read, .write = rcr_write };
