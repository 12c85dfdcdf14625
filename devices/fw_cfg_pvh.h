/* QEMU's -kernel contract for a firmware-started PVH kernel (an uncompressed
 * ELF with a XEN_ELFNOTE_PHYS32_ENTRY note, devices/pvh.h): the image lies
 * in RAM before the firmware runs, loaded at its segments' physical
 * addresses at power-on and at every reset (QEMU keeps it as ROM blobs that
 * a reset writes back); fw_cfg names its entry, place and size
 * (FW_CFG_KERNEL_ENTRY/ADDR/SIZE), the command line (FW_CFG_CMDLINE_SIZE/
 * DATA) and the initrd (FW_CFG_INITRD_ADDR/SIZE/DATA: page-aligned at the
 * top of RAM below the firmware's tables, as for a bzImage); QEMU's option
 * ROM pvh.bin (Debian's qemu-system-data) builds hvm_start_info from them
 * and the firmware's E820 map and RSDP and enters the kernel, offered as
 * "genroms/pvh.bin", first in "bootorder". */
#ifndef HVEMU_DEVICES_FW_CFG_PVH_H
#define HVEMU_DEVICES_FW_CFG_PVH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/fw_cfg.h"

#define FW_CFG_PVH_ROM_NAME "genroms/pvh.bin"

/* The loaded image (segments and the gaps between them, bss zero) the
 * machine writes at start before each boot; bytes is malloc'ed. */
struct fw_cfg_pvh_image {
	uint64_t start;
	uint8_t *bytes;
	size_t len;
};

/* Lay out the PVH kernel (image, size), add its items with initrd (NULL:
 * none), cmdline and the option ROM (rom, rom_size) to f for a machine with
 * ram_size bytes of RAM, and return the image to load in *out. False with
 * a one-line reason in err. */
bool fw_cfg_add_pvh(struct fw_cfg *f, uint64_t ram_size, const uint8_t *image, size_t size,
		    const uint8_t *initrd, size_t initrd_size, const char *cmdline, const uint8_t *rom,
		    size_t rom_size, struct fw_cfg_pvh_image *out, char *err, size_t errlen);

#endif
