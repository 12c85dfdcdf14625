/* Check suite for devices/linux_boot.c, devices/pvh.c and
 * devices/kernel_image.c: a synthetic bzImage (a setup header and a few
 * bytes of "kernel") and a tiny PVH ELF64 built in memory; the zero page and
 * hvm_start_info the loaders leave in guest RAM, field by field against
 * boot.rst/zero-page.rst and start_info.h, and one case per malformed input. */
#include <check.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "devices/bus.h"
#include "devices/e820.h"
#include "devices/fw_cfg_linux.h"
#include "devices/fw_cfg_pvh.h"
#include "devices/kernel_image.h"
#include "devices/linux_boot.h"
#include "devices/multiboot.h"
#include "devices/pvh.h"
#include "suite_runner.h"

#define RAM (64u << 20)
#define IMG_MAX 0x4000
#define RSDP 0xf0000u

struct image { uint8_t b[IMG_MAX]; size_t size; };

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint32_t rd8(struct physmem *pm, uint64_t pa) { return (uint32_t)physmem_read(pm, pa, 1); }
static uint32_t rd16(struct physmem *pm, uint64_t pa) { return (uint32_t)physmem_read(pm, pa, 2); }
static uint32_t rd32(struct physmem *pm, uint64_t pa) { return (uint32_t)physmem_read(pm, pa, 4); }
static uint64_t rd64(struct physmem *pm, uint64_t pa) { return physmem_read(pm, pa, 8); }

/* A bzImage of protocol version: 4 setup sectors (setup_sects 0 means 4),
 * the header, then 0x1000 bytes of protected-mode kernel filled with 0x90. */
static void build_bzimage(struct image *im, uint16_t version, uint32_t init_size)
{
	memset(im, 0, sizeof(*im));
	uint8_t *b = im->b;
	b[HDR_SETUP_SECTS] = 0;
	put16(b + HDR_BOOT_FLAG, BOOT_FLAG_MAGIC);
	b[HDR_JUMP] = 0xeb;
	b[HDR_JUMP + 1] = 0x6a;                     /* header ends at 0x26c */
	put32(b + HDR_HEADER, HDRS_MAGIC);
	put16(b + HDR_VERSION, version);
	b[HDR_LOADFLAGS] = LOADFLAGS_LOADED_HIGH;
	put32(b + HDR_INITRD_ADDR_MAX, 0x7fffffff);
	put32(b + HDR_KERNEL_ALIGNMENT, 0x200000);
	put32(b + HDR_CMDLINE_SIZE, 2047);
	put32(b + HDR_INIT_SIZE, init_size);
	memset(b + 5 * 512, 0x90, 0x1000);
	im->size = 5 * 512 + 0x1000;
}

static struct physmem pm;
static char err[256];

static void setup(void)
{
	ck_assert(physmem_init(&pm, RAM));
	memset(pm.ram, 0xcc, RAM);
	err[0] = 0;
}

static void teardown(void) { physmem_destroy(&pm); }

START_TEST(bzimage_zero_page)
{
	static struct image im;
	static uint8_t initrd[0x2345];
	memset(initrd, 0x5a, sizeof(initrd));
	build_bzimage(&im, 0x020f, 0x800000);
	ck_assert_int_eq(kernel_format_of(im.b, im.size), KERNEL_BZIMAGE);
	struct linux_boot lb;
	ck_assert_msg(linux_load_bzimage(&pm, im.b, im.size, "console=ttyS0", initrd, sizeof(initrd), RSDP, &lb,
					 err, sizeof(err)), "%s", err);
	/* The protected-mode kernel, after the 1 + setup_sects sectors, at 1 MiB. */
	ck_assert_uint_eq(lb.entry, 0x100000);
	ck_assert_uint_eq(pm.ram[0x100000], 0x90);
	ck_assert_uint_eq(pm.ram[0x100fff], 0x90);
	ck_assert_uint_eq(lb.kernel_end, 0x100000 + 0x800000);   /* init_size */
	uint64_t bp = lb.zero_page;
	ck_assert_uint_eq(bp, LINUX_ZERO_PAGE);
	/* The setup header copied from the file, to its end at 202H + the byte at 201H. */
	ck_assert_uint_eq(rd32(&pm, bp + HDR_HEADER), HDRS_MAGIC);
	ck_assert_uint_eq(rd16(&pm, bp + HDR_VERSION), 0x020f);
	ck_assert_uint_eq(rd32(&pm, bp + HDR_INIT_SIZE), 0x800000);
	ck_assert_uint_eq(rd16(&pm, bp + HDR_BOOT_FLAG), BOOT_FLAG_MAGIC);
	ck_assert_uint_eq(rd8(&pm, bp + BP_SENTINEL), 0);      /* zero: the kernel keeps the fields */
	/* What the loader fills in. */
	ck_assert_uint_eq(rd8(&pm, bp + HDR_TYPE_OF_LOADER), 0xff);
	ck_assert_uint_eq(rd32(&pm, bp + HDR_CMD_LINE_PTR), LINUX_CMDLINE);
	ck_assert_str_eq((const char *)pm.ram + LINUX_CMDLINE, "console=ttyS0");
	ck_assert_uint_eq(rd64(&pm, bp + BP_ACPI_RSDP_ADDR), RSDP);
	/* The initrd page-aligned at the top of RAM. */
	uint32_t rd = rd32(&pm, bp + HDR_RAMDISK_IMAGE);
	ck_assert_uint_eq(rd, (RAM - sizeof(initrd)) & ~0xfffu);
	ck_assert_uint_eq(rd32(&pm, bp + HDR_RAMDISK_SIZE), sizeof(initrd));
	ck_assert_uint_eq(rd32(&pm, bp + BP_EXT_RAMDISK_IMAGE), 0);
	ck_assert_uint_eq(pm.ram[rd], 0x5a);
	ck_assert_uint_eq(pm.ram[rd + sizeof(initrd) - 1], 0x5a);
	ck_assert_uint_eq(lb.initrd_start, rd);
	/* The e820 map, the one devices/e820.c gives, 20 bytes a range. */
	struct e820_entry map[E820_MAX_ENTRIES];
	unsigned n = e820_map(RAM, map);
	ck_assert_uint_eq(rd8(&pm, bp + BP_E820_ENTRIES), n);
	for (unsigned i = 0; i < n; i++) {
		ck_assert_uint_eq(rd64(&pm, bp + BP_E820_TABLE + 20 * i), map[i].base);
		ck_assert_uint_eq(rd64(&pm, bp + BP_E820_TABLE + 20 * i + 8), map[i].length);
		ck_assert_uint_eq(rd32(&pm, bp + BP_E820_TABLE + 20 * i + 16), map[i].type);
	}
	ck_assert_uint_eq(rd64(&pm, bp + BP_E820_TABLE + 20 * 3), 0x100000);
	/* screen_info: VGA text mode 3, 80x25. */
	ck_assert_uint_eq(rd8(&pm, bp + 0x06), 3);
	ck_assert_uint_eq(rd8(&pm, bp + 0x07), 80);
	ck_assert_uint_eq(rd8(&pm, bp + 0x0e), 25);
	/* __BOOT_CS and __BOOT_DS: flat 4 GiB code and data. */
	ck_assert_uint_eq(lb.gdt_addr, LINUX_GDT);
	ck_assert_uint_eq(rd64(&pm, LINUX_GDT + LINUX_BOOT_CS), 0x00cf9b000000ffffull);
	ck_assert_uint_eq(rd64(&pm, LINUX_GDT + LINUX_BOOT_DS), 0x00cf93000000ffffull);
}
END_TEST

/* Without an initrd and before protocol 2.14 (no acpi_rsdp_addr), 2.06 (no
 * cmdline_size: 255 characters) and 2.10 (no init_size: the file's size). */
START_TEST(bzimage_old_protocol)
{
	static struct image im;
	build_bzimage(&im, 0x0205, 0);
	struct linux_boot lb;
	ck_assert_msg(linux_load_bzimage(&pm, im.b, im.size, "", NULL, 0, RSDP, &lb, err, sizeof(err)), "%s", err);
	ck_assert_uint_eq(rd64(&pm, LINUX_ZERO_PAGE + BP_ACPI_RSDP_ADDR), 0);
	ck_assert_uint_eq(rd32(&pm, LINUX_ZERO_PAGE + HDR_RAMDISK_IMAGE), 0);
	ck_assert_uint_eq(lb.initrd_start, 0);
	ck_assert_uint_eq(lb.kernel_end, 0x100000 + 0x1000);
	char line[300];
	memset(line, 'a', 256);
	line[256] = 0;
	ck_assert(!linux_load_bzimage(&pm, im.b, im.size, line, NULL, 0, 0, &lb, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "takes 255"));
	line[255] = 0;
	ck_assert_msg(linux_load_bzimage(&pm, im.b, im.size, line, NULL, 0, 0, &lb, err, sizeof(err)), "%s", err);
}
END_TEST

static void expect_bz_error(const struct image *im, size_t initrd_size, const char *needle)
{
	static uint8_t initrd[0x10000];
	struct linux_boot lb;
	ck_assert_msg(!linux_load_bzimage(&pm, im->b, im->size, "", initrd_size ? initrd : NULL, initrd_size, 0,
					  &lb, err, sizeof(err)), "loaded (wanted '%s')", needle);
	ck_assert_msg(strstr(err, needle) != NULL, "error '%s' lacks '%s'", err, needle);
	ck_assert_ptr_null(strchr(err, '\n'));
}

START_TEST(bzimage_errors)
{
	static struct image im;
	build_bzimage(&im, 0x0201, 0);
	expect_bz_error(&im, 0, "too old");
	build_bzimage(&im, 0x020f, 0);
	im.b[HDR_LOADFLAGS] = 0;
	expect_bz_error(&im, 0, "zImage");
	build_bzimage(&im, 0x020f, 0);
	im.size = 5 * 512;
	expect_bz_error(&im, 0, "truncated");
	/* A file that ends inside the setup header: no field past its end is
	 * read (here loadflags, which would say zImage), it is truncated. */
	build_bzimage(&im, 0x020f, 0);
	im.size = HDR_LOADFLAGS - 1;
	im.b[HDR_LOADFLAGS] = 0;
	expect_bz_error(&im, 0, "truncated");
	build_bzimage(&im, 0x020f, RAM);
	expect_bz_error(&im, 0, "more than the 64 MiB");
	/* The initrd must lie below initrd_addr_max and above the kernel. */
	build_bzimage(&im, 0x020f, 0x800000);
	put32(im.b + HDR_INITRD_ADDR_MAX, 0x900000);
	expect_bz_error(&im, 0x10000, "does not fit");
	build_bzimage(&im, 0x020f, 0);
	put32(im.b + HDR_HEADER, 0);
	expect_bz_error(&im, 0, "HdrS");
}
END_TEST

/* A PVH ELF64 like Linux's vmlinux: a PT_NOTE with Xen notes (a type 5
 * before the type 18 PHYS32_ENTRY, 8-byte descriptor), a text segment at
 * 2 MiB and a segment with bss at 3 MiB. */
static void build_pvh(struct image *im, uint32_t note_type, uint64_t entry)
{
	memset(im, 0, sizeof(*im));
	Elf64_Ehdr *e = (Elf64_Ehdr *)im->b;
	memcpy(e->e_ident, ELFMAG, SELFMAG);
	e->e_ident[EI_CLASS] = ELFCLASS64;
	e->e_ident[EI_DATA] = ELFDATA2LSB;
	e->e_ident[EI_VERSION] = EV_CURRENT;
	e->e_type = ET_EXEC; e->e_machine = EM_X86_64; e->e_version = EV_CURRENT;
	e->e_entry = 0xffffffff81000000ull; e->e_phoff = sizeof(*e); e->e_ehsize = sizeof(*e);
	e->e_phentsize = sizeof(Elf64_Phdr); e->e_phnum = 3;
	Elf64_Phdr *ph = (Elf64_Phdr *)(im->b + sizeof(*e));
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = 0x1000, .p_vaddr = 0xffffffff80200000ull,
			      .p_paddr = 0x200000, .p_filesz = 0x800, .p_memsz = 0x800 };
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = 0x2000, .p_vaddr = 0xffffffff80300000ull,
			      .p_paddr = 0x300000, .p_filesz = 0x10, .p_memsz = 0x2000 };
	ph[2] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = 0x3000, .p_filesz = 2 * 24 };
	uint8_t *n = im->b + 0x3000;
	for (unsigned i = 0; i < 2; i++, n += 24) {
		put32(n, 4);
		put32(n + 4, 8);
		put32(n + 8, i ? note_type : 5);
		memcpy(n + 12, "Xen", 4);
		memcpy(n + 16, &entry, 8);
	}
	memset(im->b + 0x1000, 0x90, 0x800);
	memset(im->b + 0x2000, 0x11, 0x10);
	im->size = 0x3000 + 2 * 24;
}

START_TEST(pvh_start_info)
{
	static struct image im;
	static uint8_t initrd[0x1800];
	memset(initrd, 0x5a, sizeof(initrd));
	build_pvh(&im, XEN_ELFNOTE_PHYS32_ENTRY, 0x200040);
	ck_assert_int_eq(kernel_format_of(im.b, im.size), KERNEL_PVH);
	struct pvh_boot pb;
	ck_assert_msg(pvh_load(&pm, im.b, im.size, "console=ttyS0 quiet", initrd, sizeof(initrd), RSDP, &pb, err,
			       sizeof(err)), "%s", err);
	ck_assert_uint_eq(pb.entry, 0x200040);
	ck_assert_uint_eq(pm.ram[0x200000], 0x90);
	ck_assert_uint_eq(pm.ram[0x2007ff], 0x90);
	ck_assert_uint_eq(pm.ram[0x200800], 0xcc);
	ck_assert_uint_eq(pm.ram[0x30000f], 0x11);
	ck_assert_uint_eq(pm.ram[0x300010], 0);     /* bss */
	ck_assert_uint_eq(pm.ram[0x301fff], 0);
	ck_assert_uint_eq(pb.image_start, 0x200000);
	ck_assert_uint_eq(pb.image_end, 0x302000);
	uint64_t si = pb.start_info;
	ck_assert_uint_eq(rd32(&pm, si + SI_MAGIC), XEN_HVM_START_MAGIC_VALUE);
	ck_assert_uint_eq(rd32(&pm, si + SI_VERSION), 1);
	ck_assert_uint_eq(rd32(&pm, si + SI_FLAGS), 0);
	ck_assert_str_eq((const char *)pm.ram + rd64(&pm, si + SI_CMDLINE_PADDR), "console=ttyS0 quiet");
	ck_assert_uint_eq(rd64(&pm, si + SI_RSDP_PADDR), RSDP);
	/* Module 0 is the initrd, page-aligned at the top of RAM, no command line. */
	ck_assert_uint_eq(rd32(&pm, si + SI_NR_MODULES), 1);
	uint64_t mod = rd64(&pm, si + SI_MODLIST_PADDR);
	ck_assert_uint_eq(rd64(&pm, mod + MOD_PADDR), (RAM - sizeof(initrd)) & ~0xfffu);
	ck_assert_uint_eq(rd64(&pm, mod + MOD_SIZE), sizeof(initrd));
	ck_assert_uint_eq(rd64(&pm, mod + MOD_CMDLINE_PADDR), 0);
	ck_assert_uint_eq(pm.ram[rd64(&pm, mod + MOD_PADDR)], 0x5a);
	/* The memory map: devices/e820.c's ranges, 24 bytes each. */
	struct e820_entry map[E820_MAX_ENTRIES];
	unsigned n = e820_map(RAM, map);
	ck_assert_uint_eq(rd32(&pm, si + SI_MEMMAP_ENTRIES), n);
	uint64_t mm = rd64(&pm, si + SI_MEMMAP_PADDR);
	for (unsigned i = 0; i < n; i++) {
		ck_assert_uint_eq(rd64(&pm, mm + 24 * i + MEMMAP_ADDR), map[i].base);
		ck_assert_uint_eq(rd64(&pm, mm + 24 * i + MEMMAP_SIZE), map[i].length);
		ck_assert_uint_eq(rd32(&pm, mm + 24 * i + MEMMAP_TYPE), map[i].type);
	}
	ck_assert_uint_eq(rd64(&pm, PVH_GDT + PVH_CODE_SEL), 0x00cf9b000000ffffull);
	/* Without a module: none listed. */
	ck_assert_msg(pvh_load(&pm, im.b, im.size, "", NULL, 0, 0, &pb, err, sizeof(err)), "%s", err);
	ck_assert_uint_eq(rd32(&pm, si + SI_NR_MODULES), 0);
	ck_assert_uint_eq(rd64(&pm, si + SI_MODLIST_PADDR), 0);
	ck_assert_uint_eq(rd64(&pm, si + SI_RSDP_PADDR), 0);
}
END_TEST

static void expect_pvh_error(const struct image *im, const char *needle)
{
	struct pvh_boot pb;
	ck_assert_msg(!pvh_load(&pm, im->b, im->size, "", NULL, 0, 0, &pb, err, sizeof(err)),
		      "loaded (wanted '%s')", needle);
	ck_assert_msg(strstr(err, needle) != NULL, "error '%s' lacks '%s'", err, needle);
	ck_assert_ptr_null(strchr(err, '\n'));
}

static uint32_t item32(const struct fw_cfg *f, uint16_t key)
{
	ck_assert_uint_eq(f->generic[key].len, 4);
	uint32_t v;
	memcpy(&v, f->generic[key].data, 4);
	return v;
}

/* Through the firmware (QEMU's x86_load_linux() PVH items, pvh.bin): the
 * image to place before the firmware runs, its entry, the command line and
 * the initrd page-aligned under the firmware's top 1 MiB. */
START_TEST(pvh_firmware_items)
{
	static struct image im;
	static uint8_t initrd[0x1800];
	memset(initrd, 0x5a, sizeof(initrd));
	build_pvh(&im, XEN_ELFNOTE_PHYS32_ENTRY, 0x200040);
	struct fw_cfg f;
	fw_cfg_init(&f);
	struct fw_cfg_pvh_image fi;
	ck_assert_msg(fw_cfg_add_pvh(&f, RAM, im.b, im.size, initrd, sizeof(initrd), "console=ttyS0",
				     (const uint8_t *)"ROM", 3, &fi, err, sizeof(err)), "%s", err);
	ck_assert_uint_eq(fi.start, 0x200000);
	ck_assert_uint_eq(fi.len, 0x102000);
	ck_assert_uint_eq(fi.bytes[0], 0x90);
	ck_assert_uint_eq(fi.bytes[0x100000], 0x11);
	ck_assert_uint_eq(fi.bytes[0x101fff], 0);      /* bss */
	ck_assert_uint_eq(item32(&f, FW_CFG_KERNEL_ENTRY), 0x200040);
	ck_assert_uint_eq(item32(&f, FW_CFG_KERNEL_ADDR), 0x200000);
	ck_assert_uint_eq(item32(&f, FW_CFG_KERNEL_SIZE), 0x102000);
	ck_assert_uint_eq(item32(&f, FW_CFG_CMDLINE_SIZE), sizeof("console=ttyS0"));
	ck_assert_str_eq((const char *)f.generic[FW_CFG_CMDLINE_DATA].data, "console=ttyS0");
	ck_assert_uint_eq(item32(&f, FW_CFG_INITRD_ADDR), (RAM - FW_CFG_LINUX_FIRMWARE_TOP - sizeof(initrd)) & ~0xfffu);
	ck_assert_uint_eq(item32(&f, FW_CFG_INITRD_SIZE), sizeof(initrd));
	ck_assert_mem_eq(f.generic[FW_CFG_INITRD_DATA].data, initrd, sizeof(initrd));
	ck_assert_str_eq(f.file_name[1], FW_CFG_PVH_ROM_NAME);
	free(fi.bytes);
	fw_cfg_destroy(&f);
	/* The direct loader's checks hold: no note, no start. */
	fw_cfg_init(&f);
	build_pvh(&im, 5, 0x200040);
	ck_assert(!fw_cfg_add_pvh(&f, RAM, im.b, im.size, NULL, 0, "", (const uint8_t *)"R", 1, &fi, err,
				  sizeof(err)));
	ck_assert_ptr_null(fi.bytes);
	fw_cfg_destroy(&f);
}
END_TEST

START_TEST(pvh_errors)
{
	static struct image im;
	build_pvh(&im, 17, 0x200040);              /* another Xen note: no PHYS32 entry */
	ck_assert_int_eq(kernel_format_of(im.b, im.size), KERNEL_UNKNOWN);
	expect_pvh_error(&im, "XEN_ELFNOTE_PHYS32_ENTRY");
	build_pvh(&im, XEN_ELFNOTE_PHYS32_ENTRY, 0x400000);
	expect_pvh_error(&im, "outside the loaded image");
	build_pvh(&im, XEN_ELFNOTE_PHYS32_ENTRY, 0x200040);
	((Elf64_Phdr *)(im.b + sizeof(Elf64_Ehdr)))[1].p_paddr = RAM - 0x1000;
	expect_pvh_error(&im, "does not fit");
	build_pvh(&im, XEN_ELFNOTE_PHYS32_ENTRY, 0x200040);
	((Elf64_Phdr *)(im.b + sizeof(Elf64_Ehdr)))[0].p_paddr = 0x10000;
	expect_pvh_error(&im, "overlaps the boot data");
	build_pvh(&im, XEN_ELFNOTE_PHYS32_ENTRY, 0x200040);
	((Elf64_Phdr *)(im.b + sizeof(Elf64_Ehdr)))[0].p_offset = 0x100000;   /* past the file */
	expect_pvh_error(&im, "outside the file");
	struct pvh_boot pb;
	static uint8_t big[1];
	ck_assert(!pvh_load(&pm, im.b, im.size, "", big, RAM, 0, &pb, err, sizeof(err)));
}
END_TEST

/* Content decides: a Multiboot header wins over a PVH note (Xen has both). */
START_TEST(format_by_content)
{
	static struct image im;
	build_pvh(&im, XEN_ELFNOTE_PHYS32_ENTRY, 0x200040);
	put32(im.b + 0x800, MB_HEADER_MAGIC);
	put32(im.b + 0x804, 0);
	put32(im.b + 0x808, (uint32_t)-MB_HEADER_MAGIC);
	ck_assert_int_eq(kernel_format_of(im.b, im.size), KERNEL_MULTIBOOT);
	static const uint8_t junk[64] = "not a kernel";
	ck_assert_int_eq(kernel_format_of(junk, sizeof(junk)), KERNEL_UNKNOWN);
	ck_assert_int_eq(kernel_format_of(junk, 3), KERNEL_UNKNOWN);
	ck_assert_str_eq(kernel_format_name(KERNEL_PVH), "PVH ELF");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("linux_boot");
	TCase *t = tcase_create("loaders");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, bzimage_zero_page);
	tcase_add_test(t, bzimage_old_protocol);
	tcase_add_test(t, bzimage_errors);
	tcase_add_test(t, pvh_start_info);
	tcase_add_test(t, pvh_errors);
	tcase_add_test(t, pvh_firmware_items);
	tcase_add_test(t, format_by_content);
	suite_add_tcase(s, t);
	return run_suite(s);
}
