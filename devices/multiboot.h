/* Multiboot (version 0.6.96) kernel loading, as `qemu-system-x86_64 -kernel`
 * (with -initrd modules) does it: header search, ELF or a.out-kludge images,
 * page-aligned modules, the information in guest RAM. hvemu extension: ELF64
 * images (segments at their physical addresses, entry below 4 GiB, still
 * entered in 32-bit protected mode).
 *
 * Guest-physical layout. Nothing sits at a fixed address a kernel could be
 * linked at: as QEMU puts the command lines and the module list on the page
 * after the image (counted from its lowest address), hvemu puts everything
 * there, the information structure first:
 *
 *   low .. high          the image, each segment at its address (bss zeroed)
 *   info = low + page-aligned (high - low):
 *     info + 0x00        information structure (88 bytes)      <- EBX
 *     info + 0x58        memory map, four 24-byte entries (devices/e820.h)
 *     info + 0xb8        copy of the option ROM's GDT (5 descriptors)
 *     info + 0xe0        module list, 16 bytes per module       <- mods_addr
 *     then               strings: each module's "FILE ARGS", the kernel's
 *                        "FILE CMDLINE", the boot-loader name "hvemu"
 *   next page boundary   module 0, then each module on the page boundary
 *                        after the previous one (QEMU's order and alignment)
 */
#ifndef HVEMU_DEVICES_MULTIBOOT_H
#define HVEMU_DEVICES_MULTIBOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/bus.h"
#include "devices/e820.h"

#define MB_HEADER_MAGIC 0x1BADB002u   /* in the kernel image */
#define MB_BOOT_MAGIC 0x2BADB002u     /* in EAX at entry */
#define MB_SEARCH_LIMIT 8192          /* the header lies within the first 8 KiB */

/* Header flags (Multiboot 3.1.2). Bits 0-15 are "required": a loader that does
 * not understand one must refuse the image. */
enum {
	MB_HF_PAGE_ALIGN = 1u << 0,   /* modules page-aligned: they always are */
	MB_HF_MEMINFO = 1u << 1,      /* mem_* and mmap_* wanted: always given */
	MB_HF_VIDEO = 1u << 2,        /* video mode wanted: accepted, not provided (as QEMU) */
	MB_HF_KNOWN_REQUIRED = 0x7,
	MB_HF_AOUT_KLUDGE = 1u << 16, /* the address fields are valid */
};

/* Information structure (Multiboot 3.3): offsets and flags. */
enum {
	MBI_FLAGS = 0, MBI_MEM_LOWER = 4, MBI_MEM_UPPER = 8, MBI_BOOT_DEVICE = 12,
	MBI_CMDLINE = 16, MBI_MODS_COUNT = 20, MBI_MODS_ADDR = 24, MBI_SYMS = 28,
	MBI_MMAP_LENGTH = 44, MBI_MMAP_ADDR = 48, MBI_BOOT_LOADER_NAME = 64, MBI_SIZE = 88,

	MBI_F_MEMORY = 1u << 0, MBI_F_BOOT_DEVICE = 1u << 1, MBI_F_CMDLINE = 1u << 2,
	MBI_F_MODS = 1u << 3, MBI_F_MMAP = 1u << 6, MBI_F_BOOT_LOADER_NAME = 1u << 9,

	MB_MMAP_ENTRY_SIZE = 24,      /* size field (=20) + base(8) + length(8) + type(4) */
	MB_MMAP_AVAILABLE = 1, MB_MMAP_RESERVED = 2,

	/* Module list entries (Multiboot 3.3): start, end (exclusive), string, reserved. */
	MB_MOD_START = 0, MB_MOD_END = 4, MB_MOD_STRING = 8, MB_MOD_SIZE = 16,
};

/* Offsets in the information area (see the layout above). */
#define MB_INFO_MMAP 0x58u
#define MB_INFO_GDT 0xb8u
#define MB_INFO_MODS 0xe0u
/* QEMU pc-bios/optionrom/multiboot.S: GDT of null, 0x08 flat 32-bit code, 0x10
 * flat data, 0x18 and 0x20 16-bit code/data; CS=0x08, DS/ES/FS/GS/SS=0x10. */
#define MB_GDT_CODE_SEL 0x08
#define MB_GDT_DATA_SEL 0x10
#define MB_GDT_ENTRIES 5
#define MB_MEM_LOWER_KB 639           /* INT 12h under SeaBIOS: 640 KiB less the 1 KiB EBDA */
#define MB_CMDLINE_MAX 4096           /* each string: command line, module string */

#define MB_MAX_SEGMENTS 64            /* loadable segments a kernel may have */
#define MB_MAX_MODULES 32
#define MB_MAX_RANGES (MB_MAX_SEGMENTS + 1 + MB_MAX_MODULES)

/* A module to load (QEMU -initrd "FILE ARGS"): string is its command line,
 * the whole "FILE ARGS" as given. */
struct multiboot_module {
	const char *string;
	const uint8_t *data;
	size_t size;
};

/* What a guest-physical range the loader wrote holds. */
enum mb_range_kind { MB_RANGE_SEGMENT, MB_RANGE_INFO, MB_RANGE_MODULE };

/* Where the loader put things and how to enter the kernel. */
struct multiboot_boot {
	uint32_t entry;            /* EIP at entry */
	uint32_t info_addr;        /* EBX at entry */
	uint32_t gdt_addr;         /* GDTR.base; limit is gdt_limit */
	uint16_t gdt_limit;
	uint32_t load_start, load_end;   /* kernel image in RAM, bss included */
	uint32_t info_end;         /* end of the information area (strings included) */
	/* Guest-physical ranges [start, end) the loader wrote: each segment (bss
	 * included), the information area, each module (index = which); for
	 * callers that place other images beside the kernel. */
	struct { uint64_t start, end; enum mb_range_kind kind; unsigned index; } range[MB_MAX_RANGES];
	unsigned n_ranges;
	uint32_t header_offset;    /* where the header was found in the file */
	uint32_t header_flags;
	bool elf, elf64;
};

/* Find a valid header (4-byte aligned, checksum) in image[0..size). Returns its
 * offset, or -1 with a reason in err. */
long multiboot_find_header(const uint8_t *image, size_t size, char *err, size_t errlen);

/* Load image and the n_mods modules into pm and build the information area.
 * kernel_name and cmdline form the command line "kernel_name cmdline" (as
 * QEMU). On failure returns false with a one-line reason in err; guest RAM may
 * then be partly written. */
bool multiboot_load(struct physmem *pm, const uint8_t *image, size_t size,
		    const char *kernel_name, const char *cmdline,
		    const struct multiboot_module *mods, unsigned n_mods,
		    struct multiboot_boot *out, char *err, size_t errlen);

#endif
