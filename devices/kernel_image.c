/* Telling kernel images apart; see devices/kernel_image.h. */
#include "devices/kernel_image.h"

#include "devices/linux_boot.h"
#include "devices/multiboot.h"
#include "devices/pvh.h"

enum kernel_format kernel_format_of(const uint8_t *image, size_t size)
{
	uint32_t entry;
	if (linux_is_bzimage(image, size))
		return KERNEL_BZIMAGE;
	if (multiboot_find_header(image, size, NULL, 0) >= 0)
		return KERNEL_MULTIBOOT;
	if (pvh_find_entry(image, size, &entry))
		return KERNEL_PVH;
	return KERNEL_UNKNOWN;
}

const char *kernel_format_name(enum kernel_format f)
{
	switch (f) {
	case KERNEL_BZIMAGE:
		return "bzImage";
	case KERNEL_MULTIBOOT:
		return "Multiboot";
	case KERNEL_PVH:
		return "PVH ELF";
	case KERNEL_UNKNOWN:
		break;
	}
	return "unknown";
}
