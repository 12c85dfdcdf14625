/* The PC memory map; see devices/e820.h. The layout is QEMU's e820 table for a
 * pc machine as SeaBIOS reports it below 1 MiB (QEMU's multiboot option ROM
 * copies that table). */
#include "devices/e820.h"

unsigned e820_map(uint64_t ram_size, struct e820_entry map[E820_MAX_ENTRIES])
{
	map[0] = (struct e820_entry){ 0, E820_EBDA_BASE, E820_RAM };
	map[1] = (struct e820_entry){ E820_EBDA_BASE, 0xa0000 - E820_EBDA_BASE, E820_RESERVED };
	map[2] = (struct e820_entry){ E820_BIOS_BASE, 0x100000 - E820_BIOS_BASE, E820_RESERVED };
	map[3] = (struct e820_entry){ 0x100000, ram_size - 0x100000, E820_RAM };
	return E820_MAX_ENTRIES;
}
