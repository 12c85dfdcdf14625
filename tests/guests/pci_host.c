/* PCI configuration mechanism #1 (PCI Local Bus Specification 3.0,
 * 3.2.2.3.2): CONFIG_ADDRESS at 0xCF8 (doubleword), CONFIG_DATA at 0xCFC with
 * byte, word and doubleword accesses at their offsets. The host bridge at
 * 00:00.0 is an i440FX (8086:1237, class 0600, on QEMU's pc machine and on
 * hvemu); functions that do not exist read all ones, as does CONFIG_DATA with
 * the enable bit clear; each function's header type agrees with what answers
 * at its other function numbers (PCI 3.0 6.2.1). */
#include "lib/guest.h"

static inline void outl(uint16_t p, uint32_t v) { __asm__ volatile("outl %0,%1" :: "a"(v), "Nd"(p)); }
static inline uint32_t inl(uint16_t p) { uint32_t v; __asm__ volatile("inl %1,%0" : "=a"(v) : "Nd"(p)); return v; }
static inline void outw(uint16_t p, uint16_t v) { __asm__ volatile("outw %0,%1" :: "a"(v), "Nd"(p)); }
static inline uint16_t inw(uint16_t p) { uint16_t v; __asm__ volatile("inw %1,%0" : "=a"(v) : "Nd"(p)); return v; }

#define ADDR(bus, dev, fn, reg) (0x80000000u | (bus) << 16 | (dev) << 11 | (fn) << 8 | (reg))

static uint32_t cfg32(unsigned bus, unsigned dev, unsigned fn, unsigned reg)
{
	outl(0xcf8, ADDR(bus, dev, fn, reg & 0xfc));
	return inl(0xcfc);
}

void guest_main(void)
{
	outl(0xcf8, 0x80000000u);
	uint32_t back = inl(0xcf8);
	if (back != 0x80000000u)
		skip_all("no PCI configuration mechanism #1 (CONFIG_ADDRESS reads 0x%x)", back);
	check("CONFIG_ADDRESS reads back", back, 0x80000000u);
	/* PCI 3.0 3.2.2.3.2: bits 30:24 reserved and bits 1:0 read-only, reading 0. */
	outl(0xcf8, 0xff000003u);
	check_quirk("CONFIG_ADDRESS bits 30:24 and 1:0 read 0", inl(0xcf8), 0x80000000u,
		    "QEMU keeps every bit written");

	/* The host bridge. */
	check("00:00.0 vendor/device (i440FX)", cfg32(0, 0, 0, 0), 0x12378086u);
	outl(0xcf8, ADDR(0, 0, 0, 0));
	check("word at 0xCFC: vendor", inw(0xcfc), 0x8086);
	check("word at 0xCFE: device", inw(0xcfe), 0x1237);
	check("byte at 0xCFD", inb(0xcfd), 0x80);
	check("byte at 0xCFF", inb(0xcff), 0x12);
	outl(0xcf8, ADDR(0, 0, 0, 8));
	check("class code 06 00 00 (host bridge)", inl(0xcfc) >> 8, 0x060000);
	check("revision 02", inb(0xcfc), 0x02);
	check("base class byte at 0xCFF", inb(0xcff), 0x06);
	check("header type: type 0", (cfg32(0, 0, 0, 0xc) >> 16) & 0x7f, 0);
	/* Read-only IDs: a write changes nothing. */
	outl(0xcf8, ADDR(0, 0, 0, 0));
	outl(0xcfc, 0);
	outw(0xcfc, 0x1234);
	check("vendor/device are read-only", cfg32(0, 0, 0, 0), 0x12378086u);

	/* What does not exist reads all ones (a master abort). */
	check("00:1f.7 (absent) reads all ones", cfg32(0, 31, 7, 0), 0xffffffffu);
	outl(0xcf8, ADDR(0, 31, 7, 0));
	check("absent function, word read", inw(0xcfe), 0xffff);
	check("absent function, byte read", inb(0xcfd), 0xff);
	check("bus 0x80 (no bridge leads there) reads all ones", cfg32(0x80, 0, 0, 0), 0xffffffffu);
	outl(0xcf8, 0x00000000u);
	check("CONFIG_DATA with the enable bit clear reads all ones", inl(0xcfc), 0xffffffffu);

	/* Every device on bus 0: its header type's multi-function bit agrees with
	 * the functions that answer (PCI 3.0 6.2.1). */
	uint32_t devices = 0, consistent = 1;
	for (unsigned dev = 0; dev < 32; dev++) {
		uint32_t id = cfg32(0, dev, 0, 0);
		if (id == 0xffffffffu)
			continue;
		devices++;
		uint32_t multi = (cfg32(0, dev, 0, 0xc) >> 23) & 1, others = 0;
		for (unsigned fn = 1; fn < 8; fn++)
			others += cfg32(0, dev, fn, 0) != 0xffffffffu;
		note("00:%02x.0 %04x:%04x class %06x, %u more functions, multi-function bit %u", dev, id & 0xffff,
		     id >> 16, cfg32(0, dev, 0, 8) >> 8, others, multi);
		if (!multi && others)
			consistent = 0;
	}
	check_true("devices on bus 0 found", devices >= 1);
	check_true("single-function devices answer only at function 0", consistent);
}
