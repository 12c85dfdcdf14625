/* Raw images: reading a file, a flat binary at an address (--load FILE@ADDR),
 * and a PC BIOS ROM (--bios FILE). */
#ifndef HVEMU_DEVICES_LOADER_H
#define HVEMU_DEVICES_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/bus.h"

#define BIOS_ISA_WINDOW (128u * 1024)   /* the part of the BIOS seen below 1 MiB */

/* The flat 32-bit segments a kernel's 32-bit entry contract asks for (Linux
 * boot protocol, PVH): base 0, limit FFFFFFFFH with G, D/B set, present, DPL 0,
 * type execute/read resp. read/write, accessed (SDM Vol.3 3.4.5). */
#define LOADER_FLAT_CODE32_DESC 0x00cf9b000000ffffull
#define LOADER_FLAT_DATA32_DESC 0x00cf93000000ffffull

/* Format a one-line reason into err (if given) and return false: the loaders'
 * way of failing. */
bool loader_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A whole regular file of at most max bytes in memory (*data, never NULL on
 * success, even for an empty file; the caller's writes stay its own), until
 * loader_release_file(*data, *size). */
bool loader_read_file(const char *path, size_t max, uint8_t **data, size_t *size,
		      char *err, size_t errlen);
/* Give back what loader_read_file() returned (data NULL: nothing). */
void loader_release_file(uint8_t *data, size_t size);

/* Copy size bytes to guest-physical addr; the whole image must lie in RAM. */
bool loader_load_flat(struct physmem *pm, const uint8_t *data, size_t size, uint64_t addr,
		      char *err, size_t errlen);

/* A BIOS image, a non-zero multiple of 64 KiB (as QEMU requires), as ROM ending
 * at 4 GiB (the reset vector at 0xfffffff0 is its 16th byte from the end), and
 * its last 128 KiB (or all of it if smaller) also ending at 1 MiB. Deviation: the
 * bus cannot overlay ROM on RAM, so the low copy is placed in RAM, as if the
 * firmware had already shadowed itself (PAM write-enable). */
bool loader_load_bios(struct physmem *pm, const uint8_t *data, size_t size,
		      char *err, size_t errlen);
/* The BIOS's low copy only (its last 128 KiB below 1 MiB): a reset restores it
 * over what the guest wrote there, the ROM at 4 GiB being unchanged. */
void loader_copy_bios_low(struct physmem *pm, const uint8_t *data, size_t size);

#endif
