/* QEMU's -kernel contract for a firmware-started Multiboot kernel: the
 * kernel's loaded image, its modules and their strings as one fw_cfg blob
 * (FW_CFG_KERNEL_ADDR/SIZE/DATA, FW_CFG_KERNEL_ENTRY), the 88-byte
 * information structure as the "initrd" (FW_CFG_INITRD_ADDR/SIZE/DATA), and
 * QEMU's option ROM multiboot_dma.bin (Debian's qemu-system-data) as
 * "genroms/multiboot_dma.bin", first in "bootorder". Under the firmware the
 * ROM copies the structure to its address, fills in what only a BIOS knows
 * (mem_lower from INT 12h, the memory map from INT 15h E820 at mmap_addr,
 * mem_upper from that map: Multiboot 0.6.96 3.3), copies the blob to the
 * load address in protected mode and enters the kernel with EAX = 2BADB002H
 * and EBX = the structure, as the direct start does (devices/multiboot.h).
 *
 * Layout: the blob is what the direct loader writes from the kernel's lowest
 * segment up to its last module (so the kernel sees the same addresses
 * either way); the structure and the map live where QEMU keeps them, below
 * 64 KiB where the ROM reaches them from real mode. */
#ifndef HVEMU_DEVICES_FW_CFG_MULTIBOOT_H
#define HVEMU_DEVICES_FW_CFG_MULTIBOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/fw_cfg.h"
#include "devices/multiboot.h"

#define FW_CFG_MULTIBOOT_MMAP_ADDR 0x9000u   /* the ROM's E820 map (20-byte entries + size) */
#define FW_CFG_MULTIBOOT_INFO_ADDR 0x9500u   /* the information structure: EBX */
#define FW_CFG_MULTIBOOT_ROM_NAME "genroms/multiboot_dma.bin"

/* Add the items for the Multiboot kernel (image, size) named kernel_name
 * with cmdline and n_mods modules to f, for a machine with ram_size bytes of
 * RAM, and the option ROM (rom, rom_size). False with a one-line reason in
 * err. */
bool fw_cfg_add_multiboot(struct fw_cfg *f, uint64_t ram_size, const uint8_t *image, size_t size,
			  const char *kernel_name, const char *cmdline, const struct multiboot_module *mods,
			  unsigned n_mods, const uint8_t *rom, size_t rom_size, char *err, size_t errlen);

#endif
