/* Linux's x86 boot protocol for a bzImage; see devices/linux_boot.h. The
 * rules are boot.rst's ("Details of header fields", "Loading the rest of the
 * kernel", "The 32-bit boot protocol") unless a comment names another. */
#include "devices/linux_boot.h"

#include <string.h>

#include "devices/e820.h"
#include "devices/le_bytes.h"
#include "devices/loader.h"

#define PAGE_MASK 0xfffull

bool linux_is_bzimage(const uint8_t *image, size_t size)
{
	return size >= HDR_HEADER + 4 && get16(image + HDR_BOOT_FLAG) == BOOT_FLAG_MAGIC &&
	       get32(image + HDR_HEADER) == HDRS_MAGIC;
}

bool linux_place_initrd(uint64_t ram_size, uint64_t max_end, uint64_t low_limit, uint64_t size,
			uint64_t *addr)
{
	uint64_t top = ram_size < max_end ? ram_size : max_end;
	if (size > top)
		return false;
	uint64_t at = (top - size) & ~PAGE_MASK;
	if (at < low_limit)
		return false;
	*addr = at;
	return true;
}

/* zero-page.rst: screen_info as a BIOS leaves it in VGA text mode 3 (80x25
 * colour, 16-line font), the mode hvemu's VGA shows. */
static void write_screen_info(uint8_t *bp)
{
	bp[BP_SCREEN_INFO + 0x06] = 3;    /* orig_video_mode */
	bp[BP_SCREEN_INFO + 0x07] = 80;   /* orig_video_cols */
	bp[BP_SCREEN_INFO + 0x0e] = 25;   /* orig_video_lines */
	bp[BP_SCREEN_INFO + 0x0f] = 1;    /* orig_video_isVGA: VGA text */
	put16(bp + BP_SCREEN_INFO + 0x10, 16);   /* orig_video_points */
}

/* zero-page.rst: e820_entries and e820_table, 20 bytes a range (address,
 * size, type). */
static void write_e820(uint8_t *bp, uint64_t ram_size)
{
	struct e820_entry map[E820_MAX_ENTRIES];
	unsigned n = e820_map(ram_size, map);
	for (unsigned i = 0; i < n; i++) {
		uint8_t *e = bp + BP_E820_TABLE + 20 * i;
		put64(e, map[i].base);
		put64(e + 8, map[i].length);
		put32(e + 16, map[i].type);
	}
	bp[BP_E820_ENTRIES] = (uint8_t)n;
}

/* The GDT the 32-bit protocol asks for: __BOOT_CS (10H) a flat 4 GiB
 * execute/read segment, __BOOT_DS (18H) a flat read/write one (descriptor
 * format SDM Vol.3 3.4.5: code 9BH, data 93H, G and D/B set). */
static void write_gdt(struct physmem *pm, uint64_t at)
{
	physmem_write(pm, at + 0, 8, 0);
	physmem_write(pm, at + 8, 8, 0);
	physmem_write(pm, at + LINUX_BOOT_CS, 8, LOADER_FLAT_CODE32_DESC);
	physmem_write(pm, at + LINUX_BOOT_DS, 8, LOADER_FLAT_DATA32_DESC);
}

bool linux_load_bzimage(struct physmem *pm, const uint8_t *image, size_t size, const char *cmdline,
			const uint8_t *initrd, size_t initrd_size, uint64_t rsdp,
			struct linux_boot *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!linux_is_bzimage(image, size))
		return loader_fail(err, errlen, "no Linux boot protocol header (\"HdrS\" at 0x202)");
	/* setup_sects: 0 means 4. The setup header ends at 202H + the byte at 201H
	 * (the jump's displacement). Every header field read below lies in the
	 * setup sectors, so the file must hold them all before any is read. */
	unsigned setup_sects = image[HDR_SETUP_SECTS] ? image[HDR_SETUP_SECTS] : 4;
	size_t setup_size = (size_t)(setup_sects + 1) * 512;
	size_t hdr_end = HDR_HEADER + image[HDR_JUMP + 1];
	if (size <= setup_size || hdr_end > size || hdr_end > BP_E820_TABLE)
		return loader_fail(err, errlen, "truncated bzImage (%zu bytes, setup %zu)", size, setup_size);
	uint16_t version = get16(image + HDR_VERSION);
	out->version = version;
	/* 2.02: cmd_line_ptr; bzImage: loadflags' LOADED_HIGH. Older kernels
	 * (zImage, protocol < 2.02) need the real-mode setup run at 90000H. */
	if (version < 0x0202)
		return loader_fail(err, errlen, "Linux boot protocol %u.%02u is too old (2.02 or later needed)",
				   version >> 8, version & 0xff);
	if (!(image[HDR_LOADFLAGS] & LOADFLAGS_LOADED_HIGH))
		return loader_fail(err, errlen, "a zImage (loaded low); only a bzImage can be booted");
	size_t kernel_size = size - setup_size;
	/* init_size (2.10): the memory the kernel needs from its load address
	 * while it decompresses and runs its early code. */
	uint64_t init_size = version >= 0x020a ? get32(image + HDR_INIT_SIZE) : 0;
	if (init_size < kernel_size)
		init_size = kernel_size;
	uint64_t kernel_end = LINUX_KERNEL_BASE + init_size;
	if (kernel_end > pm->ram_size)
		return loader_fail(err, errlen, "the kernel needs 0x%llx bytes from 0x%x: more than the %llu MiB of RAM",
				   (unsigned long long)init_size, LINUX_KERNEL_BASE,
				   (unsigned long long)(pm->ram_size >> 20));
	/* cmdline_size (2.06): the longest command line, its NUL excluded;
	 * earlier kernels take 255 characters. */
	uint32_t cmdline_max = version >= 0x0206 ? get32(image + HDR_CMDLINE_SIZE) : 255;
	if (cmdline_max > LINUX_CMDLINE_MAX - 1)
		cmdline_max = LINUX_CMDLINE_MAX - 1;
	size_t cmdline_len = strlen(cmdline);
	if (cmdline_len > cmdline_max)
		return loader_fail(err, errlen, "command line too long (%zu bytes, this kernel takes %u)",
				   cmdline_len, cmdline_max);
	/* initrd_addr_max (2.03; 37FFFFFFH before): the highest address the
	 * initrd may occupy. */
	uint64_t initrd_max_end = (version >= 0x0203 ? get32(image + HDR_INITRD_ADDR_MAX) : 0x37ffffffu) + 1ull;
	if (initrd && !linux_place_initrd(pm->ram_size, initrd_max_end, kernel_end, initrd_size, &out->initrd_start))
		return loader_fail(err, errlen, "the initrd (%zu bytes) does not fit in RAM above the kernel "
				   "(0x%llx) and below 0x%llx", initrd_size, (unsigned long long)kernel_end,
				   (unsigned long long)initrd_max_end);

	/* The zero page: zeroed, then the setup header copied from the file
	 * (zero-page.rst "hdr"), then the fields a boot loader fills in. */
	uint8_t bp[BP_SIZE];
	memset(bp, 0, sizeof(bp));
	memcpy(bp + HDR_SETUP_SECTS, image + HDR_SETUP_SECTS, hdr_end - HDR_SETUP_SECTS);
	write_screen_info(bp);
	write_e820(bp, pm->ram_size);
	bp[HDR_TYPE_OF_LOADER] = LOADER_TYPE_UNDEFINED;
	put32(bp + HDR_CMD_LINE_PTR, LINUX_CMDLINE);
	put32(bp + HDR_CODE32_START, LINUX_KERNEL_BASE);
	if (initrd) {
		out->initrd_end = out->initrd_start + initrd_size;
		put32(bp + HDR_RAMDISK_IMAGE, (uint32_t)out->initrd_start);
		put32(bp + HDR_RAMDISK_SIZE, (uint32_t)initrd_size);
	}
	if (version >= 0x020e)                     /* acpi_rsdp_addr (2.14) */
		put64(bp + BP_ACPI_RSDP_ADDR, rsdp);

	physmem_write_bytes(pm, LINUX_ZERO_PAGE, bp, sizeof(bp));
	write_gdt(pm, LINUX_GDT);
	physmem_write_bytes(pm, LINUX_CMDLINE, cmdline, cmdline_len + 1);
	physmem_write_bytes(pm, LINUX_KERNEL_BASE, image + setup_size, kernel_size);
	if (initrd)
		physmem_write_bytes(pm, out->initrd_start, initrd, initrd_size);

	out->entry = LINUX_KERNEL_BASE;
	out->zero_page = LINUX_ZERO_PAGE;
	out->gdt_addr = LINUX_GDT;
	out->gdt_limit = LINUX_GDT_LIMIT;
	out->kernel_start = LINUX_KERNEL_BASE;
	out->kernel_end = kernel_end;
	out->low_start = LINUX_ZERO_PAGE;
	out->low_end = LINUX_CMDLINE + cmdline_len + 1;
	return true;
}
