/* The PVH boot ABI (Xen's docs/misc/pvh.pandoc, "x86/HVM direct boot ABI";
 * the structures in xen/include/public/arch-x86/hvm/start_info.h) for an
 * uncompressed ELF kernel that names its 32-bit entry in a
 * XEN_ELFNOTE_PHYS32_ENTRY note, as Linux's vmlinux does: its PT_LOAD
 * segments at their physical addresses, an hvm_start_info with the command
 * line, the modules (QEMU's -initrd: the initrd is module 0) and the memory
 * map, and the entry in 32-bit protected mode with EBX naming the structure.
 *
 * Guest-physical layout (beside the image, in the real-mode area):
 *   PVH_START_INFO    hvm_start_info (56 bytes)                <- EBX
 *   PVH_MODLIST       the module list, 32 bytes a module
 *   PVH_MEMMAP        the memory map, 24 bytes a range
 *   PVH_GDT           null, 08H flat code, 10H flat data
 *   PVH_CMDLINE       the command line, NUL-terminated
 *   top of RAM        the module, page-aligned, above the image
 */
#ifndef HVEMU_DEVICES_PVH_H
#define HVEMU_DEVICES_PVH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/bus.h"

#define PVH_START_INFO 0x10000u
#define PVH_MODLIST    0x10040u
#define PVH_MEMMAP     0x10080u
#define PVH_GDT        0x11000u
#define PVH_CMDLINE    0x20000u
#define PVH_CMDLINE_MAX 0x10000u
#define PVH_CODE_SEL 0x08
#define PVH_DATA_SEL 0x10
#define PVH_GDT_LIMIT (3 * 8 - 1)

#define XEN_ELFNOTE_PHYS32_ENTRY 18
#define XEN_HVM_START_MAGIC_VALUE 0x336ec578u   /* "xEn3" with 80H set in the 'E' */
#define PVH_MAX_SEGMENTS 16

/* start_info.h: hvm_start_info (version 1), a module list entry, a memory
 * map entry, by their offsets. */
enum {
	SI_MAGIC = 0, SI_VERSION = 4, SI_FLAGS = 8, SI_NR_MODULES = 12, SI_MODLIST_PADDR = 16,
	SI_CMDLINE_PADDR = 24, SI_RSDP_PADDR = 32, SI_MEMMAP_PADDR = 40, SI_MEMMAP_ENTRIES = 48,
	SI_SIZE = 56,
	MOD_PADDR = 0, MOD_SIZE = 8, MOD_CMDLINE_PADDR = 16, MOD_ENTRY_SIZE = 32,
	MEMMAP_ADDR = 0, MEMMAP_SIZE = 8, MEMMAP_TYPE = 16, MEMMAP_ENTRY_SIZE = 24,
	XEN_HVM_MEMMAP_TYPE_RAM = 1, XEN_HVM_MEMMAP_TYPE_RESERVED = 2,
};

struct pvh_boot {
	uint32_t entry;            /* EIP, from the note */
	uint32_t start_info;       /* EBX */
	uint32_t gdt_addr;
	uint16_t gdt_limit;
	uint64_t image_start, image_end;     /* the lowest and highest address a segment takes */
	uint64_t module_start, module_end;   /* 0, 0 without one */
	uint64_t low_start, low_end;         /* start info, lists, GDT, command line */
};

/* Whether image is an ELF file with a XEN_ELFNOTE_PHYS32_ENTRY note; its
 * entry in *entry. */
bool pvh_find_entry(const uint8_t *image, size_t size, uint32_t *entry);

/* Load the ELF image, the module (initrd; NULL: none) and cmdline into pm
 * and write hvm_start_info: the e820 map of pm's RAM (devices/e820.h), rsdp
 * the ACPI RSDP's address (0: none). False with a one-line reason in err. */
bool pvh_load(struct physmem *pm, const uint8_t *image, size_t size, const char *cmdline,
	      const uint8_t *module, size_t module_size, uint64_t rsdp,
	      struct pvh_boot *out, char *err, size_t errlen);

#endif
