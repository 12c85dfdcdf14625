/* A PVH kernel through the firmware and fw_cfg; see devices/fw_cfg_pvh.h. */
#include "devices/fw_cfg_pvh.h"

#include <stdlib.h>
#include <string.h>

#include "devices/bus.h"
#include "devices/fw_cfg_linux.h"
#include "devices/linux_boot.h"
#include "devices/loader.h"
#include "devices/pvh.h"

bool fw_cfg_add_pvh(struct fw_cfg *f, uint64_t ram_size, const uint8_t *image, size_t size,
		    const uint8_t *initrd, size_t initrd_size, const char *cmdline, const uint8_t *rom,
		    size_t rom_size, struct fw_cfg_pvh_image *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	/* The direct loader's checks and layout, once, in a scratch copy of
	 * RAM (pages it never touches are never allocated); the image is that
	 * copy's span from the lowest segment to the end of the highest. */
	struct physmem scratch;
	if (!physmem_init(&scratch, ram_size))
		return loader_fail(err, errlen, "out of memory laying out the kernel");
	struct pvh_boot boot;
	bool ok = pvh_load(&scratch, image, size, cmdline, NULL, 0, 0, &boot, err, errlen);
	uint64_t initrd_addr = 0;
	/* The initrd below 4 GiB (start_info.h) and below the firmware's
	 * tables at the top of RAM, above the image. */
	if (ok && initrd) {
		uint64_t usable = ram_size > FW_CFG_LINUX_FIRMWARE_TOP ? ram_size - FW_CFG_LINUX_FIRMWARE_TOP : 0;
		if (!linux_place_initrd(usable, 1ull << 32, boot.image_end, initrd_size, &initrd_addr))
			ok = loader_fail(err, errlen, "the initrd does not fit in RAM above the kernel");
	}
	if (ok) {
		out->start = boot.image_start;
		out->len = (size_t)(boot.image_end - boot.image_start);
		out->bytes = malloc(out->len);
		if (out->bytes)
			memcpy(out->bytes, scratch.ram + out->start, out->len);
		else
			ok = loader_fail(err, errlen, "out of memory");
	}
	physmem_destroy(&scratch);
	if (!ok)
		return false;
	static const char bootorder[] = "/rom@" FW_CFG_PVH_ROM_NAME "\n";
	uint32_t cmd_len = (uint32_t)strlen(cmdline) + 1;
	if (!fw_cfg_add_i32(f, FW_CFG_KERNEL_ENTRY, boot.entry) ||
	    !fw_cfg_add_i32(f, FW_CFG_KERNEL_ADDR, (uint32_t)out->start) ||
	    !fw_cfg_add_i32(f, FW_CFG_KERNEL_SIZE, (uint32_t)out->len) ||
	    !fw_cfg_add_i32(f, FW_CFG_CMDLINE_SIZE, cmd_len) ||
	    !fw_cfg_add_bytes(f, FW_CFG_CMDLINE_DATA, cmdline, cmd_len) ||
	    (initrd && (!fw_cfg_add_i32(f, FW_CFG_INITRD_ADDR, (uint32_t)initrd_addr) ||
			!fw_cfg_add_i32(f, FW_CFG_INITRD_SIZE, (uint32_t)initrd_size) ||
			!fw_cfg_add_bytes(f, FW_CFG_INITRD_DATA, initrd, (uint32_t)initrd_size))) ||
	    !fw_cfg_add_file(f, FW_CFG_PVH_ROM_NAME, rom, (uint32_t)rom_size) ||
	    !fw_cfg_add_file(f, "bootorder", bootorder, sizeof(bootorder) - 1)) {
		free(out->bytes);
		out->bytes = NULL;
		return loader_fail(err, errlen, "out of memory building the fw_cfg kernel items");
	}
	return true;
}
