/* hvemu's ACPI tables (devices/acpi.h) handed to firmware the way QEMU hands
 * its own to SeaBIOS and OVMF: as fw_cfg files the firmware places where it
 * likes, with QEMU's linker/loader script "etc/table-loader" (QEMU
 * hw/acpi/bios-linker-loader.c, docs/specs/acpi_hw_reduced_hotplug.rst's
 * companion) saying how to link them:
 *   "etc/acpi/rsdp"   the RSDP, allocated in the F segment (zone 2, 16-byte
 *                     aligned) where ACPI 6.0 5.2.5.1 lets the OS find it;
 *   "etc/acpi/tables" FACS, DSDT, FADT, MADT, HPET, MCFG, RSDT and XSDT
 *                     (zone 1, high memory, 64-byte aligned for the FACS,
 *                     ACPI 6.0 5.2.10), every table-to-table address in them
 *                     an offset from the file's start;
 * then one ADD_POINTER per address field (the firmware adds the file's
 * placed address) and one ADD_CHECKSUM per table (the firmware subtracts
 * the table's byte sum from its checksum field, which starts at 0). So a
 * guest sees the same tables with or without firmware, only at the
 * firmware's addresses. */
#ifndef HVEMU_DEVICES_ACPI_TABLE_LOADER_H
#define HVEMU_DEVICES_ACPI_TABLE_LOADER_H

#include <stdbool.h>

#include "devices/acpi.h"
#include "devices/fw_cfg.h"

#define ACPI_LOADER_SCRIPT "etc/table-loader"
#define ACPI_LOADER_RSDP "etc/acpi/rsdp"
#define ACPI_LOADER_TABLES "etc/acpi/tables"

/* The script's commands and allocation zones (QEMU's BiosLinkerLoaderEntry:
 * 128 bytes, a 32-bit command then its fields, little-endian). */
enum {
	ACPI_LOADER_ALLOCATE = 1, ACPI_LOADER_ADD_POINTER = 2, ACPI_LOADER_ADD_CHECKSUM = 3,
	ACPI_LOADER_ZONE_HIGH = 1, ACPI_LOADER_ZONE_FSEG = 2,
	ACPI_LOADER_ENTRY_SIZE = 128, ACPI_LOADER_NAME_SIZE = 56,
};

/* Build the tables for machine m and add the three files to f, or replace
 * them (the PM block moved). False if they do not fit (as acpi_build()) or
 * memory ran out. */
bool acpi_table_loader_add(struct fw_cfg *f, const struct acpi_machine *m);

#endif
