/* What a --kernel file is, told by its content (as QEMU's -kernel does, in
 * hvemu's order): a Linux bzImage by its boot protocol header ("HdrS" at
 * 202H, devices/linux_boot.h), a Multiboot kernel by its header in the first
 * 8 KiB (devices/multiboot.h), a PVH kernel by its XEN_ELFNOTE_PHYS32_ENTRY
 * note (devices/pvh.h). Multiboot comes before PVH where a file has both (Xen
 * does), so such a kernel boots as it did before PVH existed here; QEMU would
 * take the PVH entry. */
#ifndef HVEMU_DEVICES_KERNEL_IMAGE_H
#define HVEMU_DEVICES_KERNEL_IMAGE_H

#include <stddef.h>
#include <stdint.h>

enum kernel_format { KERNEL_UNKNOWN, KERNEL_BZIMAGE, KERNEL_MULTIBOOT, KERNEL_PVH };

enum kernel_format kernel_format_of(const uint8_t *image, size_t size);

/* The format's name for messages ("bzImage", "Multiboot", "PVH ELF"). */
const char *kernel_format_name(enum kernel_format f);

#endif
