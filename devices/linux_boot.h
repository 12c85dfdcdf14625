/* Linux's x86 boot protocol (the kernel's Documentation/arch/x86/boot.rst and
 * zero-page.rst) for a bzImage, entered through its 32-bit boot protocol as a
 * boot loader that skips the real-mode setup code does: the protected-mode
 * kernel at 1 MiB, a zero page (struct boot_params) with the file's setup
 * header, the command line, the initrd and the e820 map, and a GDT with the
 * __BOOT_CS/__BOOT_DS selectors the protocol names.
 *
 * Guest-physical layout (the real-mode area QEMU's loader also uses):
 *   LINUX_ZERO_PAGE   boot_params, 4 KiB                   <- ESI
 *   LINUX_GDT         null, null, 10H flat code, 18H flat data
 *   LINUX_CMDLINE     the command line, NUL-terminated
 *   LINUX_KERNEL_BASE the protected-mode kernel; init_size bytes from here
 *                     are the kernel's while it decompresses itself
 *   top of RAM        the initrd, page-aligned, below initrd_addr_max
 */
#ifndef HVEMU_DEVICES_LINUX_BOOT_H
#define HVEMU_DEVICES_LINUX_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/bus.h"

#define LINUX_ZERO_PAGE   0x10000u
#define LINUX_GDT         0x11000u
#define LINUX_CMDLINE     0x20000u
#define LINUX_CMDLINE_MAX 0x10000u     /* the area's size, terminator included */
#define LINUX_KERNEL_BASE 0x100000u

/* boot.rst "The 32-bit boot protocol": __BOOT_CS and __BOOT_DS. */
#define LINUX_BOOT_CS 0x10
#define LINUX_BOOT_DS 0x18
#define LINUX_GDT_LIMIT (4 * 8 - 1)

/* The setup header, by its offsets in the file and in boot_params
 * (boot.rst "The real-mode kernel header"; zero-page.rst). */
enum {
	BP_SCREEN_INFO = 0x000, BP_ACPI_RSDP_ADDR = 0x070, BP_EXT_RAMDISK_IMAGE = 0x0c0,
	BP_EXT_RAMDISK_SIZE = 0x0c4, BP_EXT_CMD_LINE_PTR = 0x0c8, BP_E820_ENTRIES = 0x1e8,
	BP_SENTINEL = 0x1ef, BP_E820_TABLE = 0x2d0, BP_E820_MAX = 128, BP_SIZE = 0x1000,

	HDR_SETUP_SECTS = 0x1f1, HDR_BOOT_FLAG = 0x1fe, HDR_JUMP = 0x200, HDR_HEADER = 0x202,
	HDR_VERSION = 0x206, HDR_TYPE_OF_LOADER = 0x210, HDR_LOADFLAGS = 0x211,
	HDR_CODE32_START = 0x214, HDR_RAMDISK_IMAGE = 0x218, HDR_RAMDISK_SIZE = 0x21c,
	HDR_HEAP_END_PTR = 0x224, HDR_CMD_LINE_PTR = 0x228, HDR_INITRD_ADDR_MAX = 0x22c,
	HDR_KERNEL_ALIGNMENT = 0x230, HDR_RELOCATABLE = 0x234, HDR_XLOADFLAGS = 0x236,
	HDR_CMDLINE_SIZE = 0x238, HDR_PREF_ADDRESS = 0x258, HDR_INIT_SIZE = 0x260,

	LOADFLAGS_LOADED_HIGH = 1u << 0,   /* the protected-mode code at 100000H: a bzImage */
	XLF_KERNEL_64 = 1u << 0,           /* has the 64-bit entry at +200H */
	BOOT_FLAG_MAGIC = 0xaa55,
	HDRS_MAGIC = 0x53726448,           /* "HdrS" */
	LOADER_TYPE_UNDEFINED = 0xff,      /* boot.rst: a loader with no assigned ID */
};

/* Where the loader put things and how to enter the kernel. */
struct linux_boot {
	uint32_t entry;            /* EIP: the start of the protected-mode kernel */
	uint32_t zero_page;        /* ESI */
	uint32_t gdt_addr;
	uint16_t gdt_limit;
	uint16_t version;          /* the boot protocol's, e.g. 0x020f */
	uint64_t kernel_start, kernel_end;   /* the image, init_size included */
	uint64_t initrd_start, initrd_end;   /* 0, 0 without an initrd */
	uint64_t low_start, low_end;         /* zero page, GDT and command line */
};

/* Whether image is a Linux kernel with a boot protocol header: the 55AAH boot
 * flag at 1FEH and "HdrS" at 202H. */
bool linux_is_bzimage(const uint8_t *image, size_t size);

/* Load the bzImage, its initrd (NULL/0: none) and cmdline into pm and write
 * the zero page: the e820 map of pm's RAM (devices/e820.h), rsdp the ACPI
 * RSDP's address (0: none). False with a one-line reason in err. */
bool linux_load_bzimage(struct physmem *pm, const uint8_t *image, size_t size, const char *cmdline,
			const uint8_t *initrd, size_t initrd_size, uint64_t rsdp,
			struct linux_boot *out, char *err, size_t errlen);

/* Where an initrd of size bytes goes: page-aligned, as high as RAM and
 * max_end (exclusive) allow, not below low_limit. False if it does not fit. */
bool linux_place_initrd(uint64_t ram_size, uint64_t max_end, uint64_t low_limit, uint64_t size,
			uint64_t *addr);

#endif
