/* Linux through the firmware and fw_cfg; see devices/fw_cfg_linux.h. */
#include "devices/fw_cfg_linux.h"

#include <stdlib.h>
#include <string.h>

#include "devices/le_bytes.h"
#include "devices/linux_boot.h"
#include "devices/loader.h"

/* boot.rst "LOADFLAGS": bit 7 CAN_USE_HEAP, heap_end_ptr is valid. */
#define LOADFLAGS_CAN_USE_HEAP (1u << 7)

bool fw_cfg_add_linux(struct fw_cfg *f, uint64_t ram_size, const uint8_t *image, size_t size,
		      const uint8_t *initrd, size_t initrd_size, const char *cmdline,
		      const uint8_t *rom, size_t rom_size, char *err, size_t errlen)
{
	if (!linux_is_bzimage(image, size))
		return loader_fail(err, errlen, "not a bzImage (no \"HdrS\" at 0x202): the firmware boots Linux bzImages");
	uint16_t version = (uint16_t)(image[HDR_VERSION] | image[HDR_VERSION + 1] << 8);
	/* boot.rst: protocol 2.02 put the command line anywhere (cmd_line_ptr),
	 * and LOADED_HIGH says the protected-mode code goes to 100000H. */
	if (version < 0x0202 || !(image[HDR_LOADFLAGS] & LOADFLAGS_LOADED_HIGH))
		return loader_fail(err, errlen, "boot protocol before 2.02 or not loaded high: not supported");
	/* boot.rst "The real-mode kernel header": setup_sects 0 means 4; the
	 * setup code is the boot sector plus setup_sects sectors. */
	size_t setup_sects = image[HDR_SETUP_SECTS] ? image[HDR_SETUP_SECTS] : 4;
	size_t setup_size = (setup_sects + 1) * 512;
	if (setup_size >= size || setup_size > FW_CFG_LINUX_CMDLINE_ADDR - FW_CFG_LINUX_SETUP_ADDR)
		return loader_fail(err, errlen, "the setup code is larger than the file or than 64 KiB");
	size_t cmd_len = strlen(cmdline) + 1;
	uint32_t cmdline_max = get32(image + HDR_CMDLINE_SIZE);   /* 2.06+; 255 before */
	if (version < 0x0206)
		cmdline_max = 255;
	if (cmd_len - 1 > cmdline_max)
		return loader_fail(err, errlen, "the command line is longer than the kernel's cmdline_size");

	uint8_t *setup = malloc(setup_size);
	if (!setup)
		return loader_fail(err, errlen, "out of memory");
	memcpy(setup, image, setup_size);
	/* boot.rst "Details of header fields": the fields a boot loader writes. */
	setup[HDR_TYPE_OF_LOADER] = LOADER_TYPE_UNDEFINED;
	setup[HDR_LOADFLAGS] |= LOADFLAGS_CAN_USE_HEAP;
	/* heap_end_ptr: the end of the setup stack/heap, relative to the setup
	 * code's start, 200H short of the command line ("Sample boot
	 * configuration"). */
	put16(setup + HDR_HEAP_END_PTR, FW_CFG_LINUX_CMDLINE_ADDR - FW_CFG_LINUX_SETUP_ADDR - 0x200);
	put32(setup + HDR_CMD_LINE_PTR, FW_CFG_LINUX_CMDLINE_ADDR);
	uint64_t initrd_addr = 0;
	if (initrd) {
		uint64_t max_end = (uint64_t)get32(image + HDR_INITRD_ADDR_MAX) + 1;
		uint64_t kernel_end = FW_CFG_LINUX_KERNEL_ADDR + (size - setup_size);
		uint64_t usable = ram_size > FW_CFG_LINUX_FIRMWARE_TOP ? ram_size - FW_CFG_LINUX_FIRMWARE_TOP : 0;
		if (!linux_place_initrd(usable, max_end, kernel_end, initrd_size, &initrd_addr)) {
			free(setup);
			return loader_fail(err, errlen, "the initrd does not fit in RAM above the kernel");
		}
		put32(setup + HDR_RAMDISK_IMAGE, (uint32_t)initrd_addr);
		put32(setup + HDR_RAMDISK_SIZE, (uint32_t)initrd_size);
	}
	static const char bootorder[] = "/rom@" FW_CFG_LINUX_ROM_NAME "\n";
	bool ok = fw_cfg_add_i32(f, FW_CFG_SETUP_ADDR, FW_CFG_LINUX_SETUP_ADDR) &&
		  fw_cfg_add_i32(f, FW_CFG_SETUP_SIZE, (uint32_t)setup_size) &&
		  fw_cfg_add_bytes(f, FW_CFG_SETUP_DATA, setup, (uint32_t)setup_size) &&
		  fw_cfg_add_i32(f, FW_CFG_KERNEL_ADDR, FW_CFG_LINUX_KERNEL_ADDR) &&
		  fw_cfg_add_i32(f, FW_CFG_KERNEL_SIZE, (uint32_t)(size - setup_size)) &&
		  fw_cfg_add_bytes(f, FW_CFG_KERNEL_DATA, image + setup_size, (uint32_t)(size - setup_size)) &&
		  fw_cfg_add_i32(f, FW_CFG_CMDLINE_ADDR, FW_CFG_LINUX_CMDLINE_ADDR) &&
		  fw_cfg_add_i32(f, FW_CFG_KERNEL_CMDLINE, FW_CFG_LINUX_CMDLINE_ADDR) &&
		  fw_cfg_add_i32(f, FW_CFG_CMDLINE_SIZE, (uint32_t)cmd_len) &&
		  fw_cfg_add_bytes(f, FW_CFG_CMDLINE_DATA, cmdline, (uint32_t)cmd_len) &&
		  fw_cfg_add_i32(f, FW_CFG_INITRD_ADDR, (uint32_t)initrd_addr) &&
		  fw_cfg_add_i32(f, FW_CFG_INITRD_SIZE, (uint32_t)initrd_size) &&
		  (!initrd || fw_cfg_add_bytes(f, FW_CFG_INITRD_DATA, initrd, (uint32_t)initrd_size)) &&
		  fw_cfg_add_file(f, FW_CFG_LINUX_ROM_NAME, rom, (uint32_t)rom_size) &&
		  fw_cfg_add_file(f, "bootorder", bootorder, sizeof(bootorder) - 1);
	free(setup);
	return ok || loader_fail(err, errlen, "out of memory building the fw_cfg kernel items");
}
