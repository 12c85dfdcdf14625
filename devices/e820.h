/* The PC memory map hvemu's machine reports, in the shape of the BIOS's
 * INT 15h E820 table (ACPI 6.0 section 15, "System Address Map Interfaces"):
 * the multiboot memory map (devices/multiboot.c) and fw_cfg's "etc/e820" file
 * (devices/fw_cfg.h) are both written from it, so they cannot disagree. */
#ifndef HVEMU_DEVICES_E820_H
#define HVEMU_DEVICES_E820_H

#include <stdint.h>

/* Address range types (ACPI 6.0 Table 15-312). */
enum { E820_RAM = 1, E820_RESERVED = 2 };

struct e820_entry {
	uint64_t base, length;
	uint32_t type;
};

#define E820_MAX_ENTRIES 4
/* Conventional memory below the EBDA, the 1 KiB EBDA that INT 12h leaves out
 * (mem_lower = 639), the BIOS area 0xf0000-0xfffff (where the ACPI tables
 * live, devices/acpi.h), and RAM from 1 MiB to its end. */
#define E820_EBDA_BASE 0x9fc00u
#define E820_BIOS_BASE 0xf0000u

/* Fill map[E820_MAX_ENTRIES] for a machine with ram_size bytes of RAM (at
 * least 2 MiB); returns the number of entries. */
unsigned e820_map(uint64_t ram_size, struct e820_entry map[E820_MAX_ENTRIES]);

#endif
