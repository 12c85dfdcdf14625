/* QEMU's -kernel contract for a firmware-started Linux: the bzImage, its
 * initrd and command line as fw_cfg items (the FW_CFG_SETUP_*, KERNEL_*,
 * INITRD_*, CMDLINE_* keys of QEMU docs/specs/fw_cfg.rst's selector list)
 * with the setup header already filled in as a boot loader fills it
 * (Linux Documentation/arch/x86/boot.rst "Loading the rest of the kernel"),
 * and QEMU's option ROM that copies them into place and jumps to the
 * real-mode setup code (linuxboot_dma.bin from Debian's qemu-system-data),
 * offered to the firmware as "genroms/linuxboot_dma.bin" and first in
 * "bootorder".
 *
 * Layout (the real-mode area boot.rst's "Sample boot configuration" and
 * QEMU use): setup code at 10000H, command line at 20000H, the
 * protected-mode kernel at 100000H, the initrd page-aligned at the top of RAM
 * below initrd_addr_max, under the area the firmware keeps for its own
 * tables (FW_CFG_LINUX_FIRMWARE_TOP). */
#ifndef HVEMU_DEVICES_FW_CFG_LINUX_H
#define HVEMU_DEVICES_FW_CFG_LINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/fw_cfg.h"

#define FW_CFG_LINUX_SETUP_ADDR   0x10000u
#define FW_CFG_LINUX_CMDLINE_ADDR 0x20000u
#define FW_CFG_LINUX_KERNEL_ADDR  0x100000u
/* What the initrd leaves free at the top of RAM: SeaBIOS keeps its ACPI,
 * SMBIOS and other tables there (its high table zone, 256 KiB) and QEMU
 * leaves 128 KiB plus the tables; 1 MiB covers both. */
#define FW_CFG_LINUX_FIRMWARE_TOP 0x100000u
#define FW_CFG_LINUX_ROM_NAME "genroms/linuxboot_dma.bin"

/* Add the items for bzImage (image, size) with initrd (NULL: none) and
 * cmdline to f, for a machine with ram_size bytes of RAM, and the option ROM
 * (rom, rom_size). False with a one-line reason in err. */
bool fw_cfg_add_linux(struct fw_cfg *f, uint64_t ram_size, const uint8_t *image, size_t size,
		      const uint8_t *initrd, size_t initrd_size, const char *cmdline,
		      const uint8_t *rom, size_t rom_size, char *err, size_t errlen);

#endif
