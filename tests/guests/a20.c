/* A20 through port 0x92 (System Control Port A, bit 1): enabled at entry as
 * the Multiboot contract leaves it (bit 1 reads 1), and while disabled bit 20
 * of every physical address is 0, so 100000H + n reaches n (SDM Vol.3 22.33.1,
 * the A20M# wraparound). The probe runs from a copy below 1 MiB at 7000H
 * (this kernel lives at 1 MiB, where every address has bit 20 set) and uses no
 * stack while A20 is off. Also: enabling it again undoes it, and port 0x92
 * bit 0 stays clear (writing it 1 would reset). */
#include "lib/guest.h"

extern char a20_probe[], a20_probe_end[];
#define PROBE_AT 0x7000u
#define LOW 0x80000u               /* free conventional memory */
#define HIGH (0x100000u + LOW)        /* its 1 MiB alias, past this kernel's image */

/* The probe (a20_probe.S): with A20 disabled, returns the doubleword at addr
 * and writes value there. */
static uint32_t probe(uint32_t addr, uint32_t value)
{
	uint32_t r;
	__asm__ volatile("call *%3" : "=a"(r), "+c"(addr), "+d"(value) : "r"(PROBE_AT) : "memory");
	return r;
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
	uint32_t seen = probe(HIGH, 0x33333333);
	check("A20 disabled: a read of 100000H+n reaches n", seen, 0x11111111);
	check("A20 disabled: a write to 100000H+n lands at n", *low, 0x33333333);
	check("...and not at 100000H+n", *high, 0x22222222);
	check("port 0x92 reads A20 enabled again", inb(0x92) & 3, 2);
	*high = 0x44444444;
	check("A20 enabled again: 100000H+n is its own byte", *low, 0x33333333);
	*low = saved_low;
}
