/* A Multiboot kernel through the firmware and fw_cfg; see
 * devices/fw_cfg_multiboot.h. */
#include "devices/fw_cfg_multiboot.h"

#include <string.h>

#include "devices/bus.h"
#include "devices/le_bytes.h"
#include "devices/loader.h"

/* The firmware's own memory below 1 MiB: VGA, option ROMs, the BIOS. A
 * kernel over the ROM's map and structure (9000H-9557H) is not refused:
 * the ROM writes them before it copies the blob, so the kernel's bytes win,
 * as under QEMU. */
#define FIRMWARE_AREA_START 0xa0000u
#define FIRMWARE_AREA_END 0x100000u

static bool overlaps(uint64_t a, uint64_t a_end, uint64_t b, uint64_t b_end)
{
	return a < b_end && b < a_end;
}

bool fw_cfg_add_multiboot(struct fw_cfg *f, uint64_t ram_size, const uint8_t *image, size_t size,
			  const char *kernel_name, const char *cmdline, const struct multiboot_module *mods,
			  unsigned n_mods, const uint8_t *rom, size_t rom_size, char *err, size_t errlen)
{
	/* The direct loader lays the kernel out in a scratch copy of RAM (its
	 * checks and its layout, once); the blob is that copy's used span. The
	 * pages it never touches are never allocated. */
	struct physmem scratch;
	if (!physmem_init(&scratch, ram_size))
		return loader_fail(err, errlen, "out of memory laying out the kernel");
	struct multiboot_boot boot;
	bool ok = multiboot_load(&scratch, image, size, kernel_name, cmdline, mods, n_mods, &boot, err, errlen);
	uint64_t start = boot.load_start, end = 0;
	for (unsigned i = 0; ok && i < boot.n_ranges; i++)
		if (boot.range[i].end > end)
			end = boot.range[i].end;
	if (ok && overlaps(start, end, FIRMWARE_AREA_START, FIRMWARE_AREA_END))
		ok = loader_fail(err, errlen, "the kernel or its modules overlap the firmware's memory (A0000H-FFFFFH)");
	if (ok) {
		uint8_t mbi[MBI_SIZE];
		memcpy(mbi, scratch.ram + boot.info_addr, sizeof(mbi));
		/* What the ROM fills in under the firmware (multiboot.S: INT 12h,
		 * INT 15h E820, the map's first contiguous range above 1 MiB). */
		put32(mbi + MBI_MEM_LOWER, 0);
		put32(mbi + MBI_MEM_UPPER, 0);
		put32(mbi + MBI_MMAP_LENGTH, 0);
		put32(mbi + MBI_MMAP_ADDR, FW_CFG_MULTIBOOT_MMAP_ADDR);
		static const char bootorder[] = "/rom@" FW_CFG_MULTIBOOT_ROM_NAME "\n";
		uint32_t len = (uint32_t)(end - start);
		ok = (fw_cfg_add_i32(f, FW_CFG_KERNEL_ENTRY, boot.entry) &&
		      fw_cfg_add_i32(f, FW_CFG_KERNEL_ADDR, (uint32_t)start) &&
		      fw_cfg_add_i32(f, FW_CFG_KERNEL_SIZE, len) &&
		      fw_cfg_add_bytes(f, FW_CFG_KERNEL_DATA, scratch.ram + start, len) &&
		      fw_cfg_add_i32(f, FW_CFG_INITRD_ADDR, FW_CFG_MULTIBOOT_INFO_ADDR) &&
		      fw_cfg_add_i32(f, FW_CFG_INITRD_SIZE, sizeof(mbi)) &&
		      fw_cfg_add_bytes(f, FW_CFG_INITRD_DATA, mbi, sizeof(mbi)) &&
		      fw_cfg_add_file(f, FW_CFG_MULTIBOOT_ROM_NAME, rom, (uint32_t)rom_size) &&
		      fw_cfg_add_file(f, "bootorder", bootorder, sizeof(bootorder) - 1)) ||
		     loader_fail(err, errlen, "out of memory building the fw_cfg kernel items");
	}
	physmem_destroy(&scratch);
	return ok;
}
