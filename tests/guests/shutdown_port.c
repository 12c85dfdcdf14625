/* The Bochs "Shutdown" port 0x8900: the bytes "Shutdown" written in order
 * power the machine off (hvemu: status 16). A wrong byte starts the sequence
 * over, the wrong byte included ("SShutdown" does not), so the writes before
 * the last ones leave the guest running; the last "d" goes as a word, which
 * the byte-wide port receives as its low byte. QEMU 7.2 has no such
 * port (it left with Bochs' BIOS ports): under it the guest is still running
 * after the real sequence, which it reports as a TODO and passes. The guest
 * prints "# the run ends here" before the real sequence (run-guest.sh wants
 * it, so a power-off that came too early fails). */
#include "lib/guest.h"

static inline void outw(uint16_t p, uint16_t v) { __asm__ volatile("outw %0,%1" :: "a"(v), "Nd"(p)); }

static void out_string(const char *s)
{
	while (*s)
		outb(0x8900, (uint8_t)*s++);
}

void guest_main(void)
{
	/* None of these may end the run (the marker below proves it). */
	out_string("Shutdow");
	out_string("x");
	out_string("n");
	note("\"Shutdow\" + \"x\" + \"n\": still running");
	out_string("SShutdown");
	note("\"SShutdown\": still running");
	out_string("ShutdowN");
	note("\"ShutdowN\" (case counts): still running");
	check("port 0x8900 reads all ones", inb(0x8900), 0xff);
	note("the run ends here");
	out_string("Shut");
	outw(0x8900, 0x2200 | 'd');        /* the low byte is the 'd' */
	out_string("own");
	for (volatile int i = 0; i < 100000; i++)
		;
	check_quirk("\"Shutdown\" powered the machine off", 0, 1, "QEMU 7.2 has no Bochs shutdown port");
}
