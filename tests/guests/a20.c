/* A20 through port 0x92 (System Control Port A, bit 1) and the 8042 (output
 * port bit 1, commands DDh/DFh): enabled at entry as the Multiboot contract
 * leaves it (bit 1 reads 1), and while disabled bit 20 of every physical
 * address is 0, so 100000H + n reaches n (SDM Vol.3 22.33.1, the A20M#
 * wraparound). On a PC the two gates are ORed into A20M# (SMSC LPC47M102
 * datasheet, "Port 92"): A20 goes off only with both off, and either alone
 * keeps it on; QEMU lets the last write of either decide (a TODO there). The
 * probe runs from a copy below 1 MiB at 7000H (this kernel lives at 1 MiB,
 * where every address has bit 20 set) and uses no stack while A20 may be off.
 * Also: enabling it again undoes it, and port 0x92 bit 0 stays clear (writing
 * it 1 would reset). */
#include "lib/guest.h"

extern char a20_probe[], a20_probe_end[];
#define PROBE_AT 0x7000u
#define LOW 0x80000u               /* free conventional memory */
#define HIGH (0x100000u + LOW)        /* its 1 MiB alias, past this kernel's image */

enum { GATE_PORT92 = 1, GATE_8042 = 2 };

/* The probe (a20_probe.S): with the gates in `gates` disabled, returns the
 * doubleword at addr and writes value there; then enables them again. */
static uint32_t probe(uint32_t addr, uint32_t value, uint32_t gates)
{
	uint32_t r;
	__asm__ volatile("call *%4" : "=a"(r), "+c"(addr), "+d"(value), "+b"(gates) : "r"(PROBE_AT) : "memory");
	return r;
}

/* One gate off, the other on: A20 stays enabled (the OR), so 100000H+n is
 * its own doubleword for a read and a write. */
static void one_gate_off(const char *read_name, const char *write_name, uint32_t gates,
			 volatile uint32_t *low, volatile uint32_t *high)
{
	static const char why[] = "QEMU: the last A20 write of either gate decides";
	*low = 0x55555555;
	*high = 0x66666666;
	uint32_t seen = probe(HIGH, 0x77777777, gates);
	check_quirk(read_name, seen, 0x66666666, why);
	check_quirk(write_name, *low, 0x55555555, why);
}

void guest_main(void)
{
	uint8_t p92 = inb(0x92);
	check("port 0x92: A20 enabled at entry (bit 1)", p92 & 2, 2);
	check("port 0x92: fast-reset bit clear", p92 & 1, 0);
	volatile uint32_t *low = (volatile uint32_t *)LOW, *high = (volatile uint32_t *)HIGH;
	uint32_t saved_low = *low;
	*low = 0x11111111;
	*high = 0x22222222;
	check("A20 enabled: 100000H+n and n are different bytes", *low, 0x11111111);
	gmemcpy((void *)PROBE_AT, a20_probe, (uint32_t)(a20_probe_end - a20_probe));
	uint32_t seen = probe(HIGH, 0x33333333, GATE_PORT92 | GATE_8042);
	check("A20 disabled: a read of 100000H+n reaches n", seen, 0x11111111);
	check("A20 disabled: a write to 100000H+n lands at n", *low, 0x33333333);
	check("...and not at 100000H+n", *high, 0x22222222);
	check("port 0x92 reads A20 enabled again", inb(0x92) & 3, 2);
	*high = 0x44444444;
	check("A20 enabled again: 100000H+n is its own byte", *low, 0x33333333);
	one_gate_off("port 0x92 off, 8042 on: a read of 100000H+n is its own",
		     "port 0x92 off, 8042 on: a write to 100000H+n leaves n", GATE_PORT92, low, high);
	one_gate_off("8042 off, port 0x92 on: a read of 100000H+n is its own",
		     "8042 off, port 0x92 on: a write to 100000H+n leaves n", GATE_8042, low, high);
	/* Back on through both: the output port reads A20 on (Brouwer 10.5). */
	while (inb(0x64) & 2)
		;
	outb(0x64, 0xd0);
	while (!(inb(0x64) & 1))
		;
	check("8042 output port: A20 on again (bit 1)", inb(0x60) & 2, 2);
	*low = saved_low;
}
