/* Check suite for devices/multiboot.c and devices/loader.c: synthetic ELF32,
 * ELF64 and a.out-kludge kernels built in memory, the information block the
 * loader leaves in guest RAM, and one case per malformed input. */
#include <check.h>
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devices/bus.h"
#include "devices/fw_cfg_multiboot.h"
#include "devices/loader.h"
#include "devices/multiboot.h"
#include "suite_runner.h"

#define RAM (16u << 20)
#define IMG_MAX 0x4000

struct image { uint8_t b[IMG_MAX]; size_t size; };

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint32_t rd32(struct physmem *pm, uint64_t pa) { return (uint32_t)physmem_read(pm, pa, 4); }
static uint64_t rd64(struct physmem *pm, uint64_t pa) { return physmem_read(pm, pa, 8); }

static void mb_header(uint8_t *p, uint32_t flags)
{
	put32(p, MB_HEADER_MAGIC);
	put32(p + 4, flags);
	put32(p + 8, (uint32_t)-(MB_HEADER_MAGIC + flags));
}

struct seg { uint64_t paddr, vaddr, filesz, memsz; uint8_t fill; };

/* An ELF file: headers at 0, a multiboot header at 0x100, segment i's bytes at
 * 0x1000 * (i + 1) filled with seg.fill. */
static void build_elf(struct image *im, bool is64, uint64_t entry, const struct seg *s, unsigned n)
{
	memset(im, 0, sizeof(*im));
	if (is64) {
		Elf64_Ehdr *e = (Elf64_Ehdr *)im->b;
		memcpy(e->e_ident, ELFMAG, SELFMAG);
		e->e_ident[EI_CLASS] = ELFCLASS64;
		e->e_ident[EI_DATA] = ELFDATA2LSB;
		e->e_ident[EI_VERSION] = EV_CURRENT;
		e->e_type = ET_EXEC; e->e_machine = EM_X86_64; e->e_version = EV_CURRENT;
		e->e_entry = entry; e->e_phoff = sizeof(*e); e->e_ehsize = sizeof(*e);
		e->e_phentsize = sizeof(Elf64_Phdr); e->e_phnum = (uint16_t)n;
		Elf64_Phdr *ph = (Elf64_Phdr *)(im->b + sizeof(*e));
		for (unsigned i = 0; i < n; i++)
			ph[i] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = 0x1000 * (i + 1),
					      .p_vaddr = s[i].vaddr, .p_paddr = s[i].paddr,
					      .p_filesz = s[i].filesz, .p_memsz = s[i].memsz, .p_flags = PF_R | PF_X };
	} else {
		Elf32_Ehdr *e = (Elf32_Ehdr *)im->b;
		memcpy(e->e_ident, ELFMAG, SELFMAG);
		e->e_ident[EI_CLASS] = ELFCLASS32;
		e->e_ident[EI_DATA] = ELFDATA2LSB;
		e->e_ident[EI_VERSION] = EV_CURRENT;
		e->e_type = ET_EXEC; e->e_machine = EM_386; e->e_version = EV_CURRENT;
		e->e_entry = (uint32_t)entry; e->e_phoff = sizeof(*e); e->e_ehsize = sizeof(*e);
		e->e_phentsize = sizeof(Elf32_Phdr); e->e_phnum = (uint16_t)n;
		Elf32_Phdr *ph = (Elf32_Phdr *)(im->b + sizeof(*e));
		for (unsigned i = 0; i < n; i++)
			ph[i] = (Elf32_Phdr){ .p_type = PT_LOAD, .p_offset = 0x1000 * (i + 1),
					      .p_vaddr = (uint32_t)s[i].vaddr, .p_paddr = (uint32_t)s[i].paddr,
					      .p_filesz = (uint32_t)s[i].filesz, .p_memsz = (uint32_t)s[i].memsz,
					      .p_flags = PF_R | PF_X };
	}
	mb_header(im->b + 0x100, MB_HF_PAGE_ALIGN | MB_HF_MEMINFO);
	size_t end = 0x200;
	for (unsigned i = 0; i < n; i++) {
		size_t off = 0x1000 * (i + 1), len = (size_t)s[i].filesz;
		if (off + len <= IMG_MAX)
			memset(im->b + off, s[i].fill, len);
		if (off + len > end)
			end = off + len;
	}
	im->size = end < IMG_MAX ? end : IMG_MAX;
}

static struct physmem pm;
static struct multiboot_boot boot;
static char err[256];

static void setup(void)
{
	ck_assert(physmem_init(&pm, RAM));
	memset(pm.ram, 0xcc, RAM);     /* so zeroed bss is visible */
	err[0] = 0;
}

static void teardown(void) { physmem_destroy(&pm); }

static bool load_mods(const struct image *im, const char *cmdline, const struct multiboot_module *mods,
		      unsigned n)
{
	return multiboot_load(&pm, im->b, im->size, "kernel.elf", cmdline, mods, n, &boot, err, sizeof(err));
}

static bool load(const struct image *im, const char *cmdline)
{
	return load_mods(im, cmdline, NULL, 0);
}

static void expect_error(const struct image *im, const char *needle)
{
	ck_assert_msg(!load(im, ""), "loaded although malformed (wanted '%s')", needle);
	ck_assert_msg(strstr(err, needle) != NULL, "error '%s' lacks '%s'", err, needle);
	ck_assert_ptr_null(strchr(err, '\n'));
}

START_TEST(elf32_load)
{
	static struct image im;
	struct seg s[2] = {
		{ .paddr = 0x100000, .vaddr = 0xc0100000, .filesz = 0x800, .memsz = 0x800, .fill = 0x90 },
		{ .paddr = 0x102000, .vaddr = 0xc0102000, .filesz = 0x10, .memsz = 0x3000, .fill = 0x11 },
	};
	build_elf(&im, false, 0xc0100020, s, 2);
	ck_assert_msg(load(&im, "console=ttyS0"), "%s", err);
	ck_assert(boot.elf && !boot.elf64);
	ck_assert_uint_eq(boot.entry, 0x100020);     /* virtual entry translated to physical */
	/* The information area starts on the page after the image (counted from
	 * its lowest address), the structure first (devices/multiboot.h). */
	ck_assert_uint_eq(boot.info_addr, 0x105000);
	ck_assert_uint_eq(boot.load_start, 0x100000);
	ck_assert_uint_eq(boot.load_end, 0x105000);
	ck_assert_uint_eq(boot.header_offset, 0x100);
	ck_assert_uint_eq(pm.ram[0x100000], 0x90);
	ck_assert_uint_eq(pm.ram[0x1007ff], 0x90);
	ck_assert_uint_eq(pm.ram[0x100800], 0xcc);     /* untouched between segments */
	ck_assert_uint_eq(pm.ram[0x10200f], 0x11);
	ck_assert_uint_eq(pm.ram[0x102010], 0);        /* bss zeroed */
	ck_assert_uint_eq(pm.ram[0x104fff], 0);
	ck_assert_uint_eq(pm.ram[0x9000], 0xcc);       /* nothing at QEMU's fixed 0x9000-0x96ff */
	ck_assert_uint_eq(pm.ram[0x9500], 0xcc);

	uint32_t mbi = boot.info_addr;
	ck_assert_uint_eq(rd32(&pm, mbi + MBI_FLAGS), 0x24f);
	ck_assert_uint_eq(rd32(&pm, mbi + MBI_MEM_LOWER), 639);
	ck_assert_uint_eq(rd32(&pm, mbi + MBI_MEM_UPPER), RAM / 1024 - 1024);
	ck_assert_uint_eq(rd32(&pm, mbi + MBI_BOOT_DEVICE), 0x8000ffff);
	ck_assert_uint_eq(rd32(&pm, mbi + MBI_MODS_COUNT), 0);
	ck_assert_uint_eq(rd32(&pm, mbi + MBI_MODS_ADDR), 0x105000 + MB_INFO_MODS);
	uint32_t cmd = rd32(&pm, mbi + MBI_CMDLINE);
	ck_assert_uint_eq(cmd, 0x105000 + MB_INFO_MODS);   /* no modules: the strings start there */
	ck_assert_str_eq((char *)pm.ram + cmd, "kernel.elf console=ttyS0");
	uint32_t name = rd32(&pm, mbi + MBI_BOOT_LOADER_NAME);
	ck_assert_uint_eq(name, cmd + sizeof("kernel.elf console=ttyS0"));
	ck_assert_str_eq((char *)pm.ram + name, "hvemu");
	ck_assert_uint_eq(boot.info_end, name + sizeof("hvemu"));
	ck_assert_uint_eq(pm.ram[boot.info_end], 0xcc);    /* nothing written after the area */

	/* Memory map: QEMU's e820 layout, four 24-byte entries. */
	ck_assert_uint_eq(rd32(&pm, mbi + MBI_MMAP_ADDR), mbi + MB_INFO_MMAP);
	ck_assert_uint_eq(rd32(&pm, mbi + MBI_MMAP_LENGTH), 4 * 24);
	static const uint64_t want[4][3] = {
		{ 0, 0x9fc00, 1 }, { 0x9fc00, 0x400, 2 }, { 0xf0000, 0x10000, 2 },
		{ 0x100000, RAM - 0x100000, 1 },
	};
	for (unsigned i = 0; i < 4; i++) {
		uint64_t e = mbi + MB_INFO_MMAP + 24 * i;
		ck_assert_uint_eq(rd32(&pm, e), 20);
		ck_assert_uint_eq(rd64(&pm, e + 4), want[i][0]);
		ck_assert_uint_eq(rd64(&pm, e + 12), want[i][1]);
		ck_assert_uint_eq(rd32(&pm, e + 20), want[i][2]);
	}
	/* QEMU's option-ROM GDT: 0x08 flat code, 0x10 flat data, 16-bit pair. */
	uint32_t gdt = mbi + MB_INFO_GDT;
	ck_assert_uint_eq(boot.gdt_addr, gdt);
	ck_assert_uint_eq(boot.gdt_limit, 39);
	ck_assert_uint_eq(rd64(&pm, gdt), 0);
	ck_assert_uint_eq(rd64(&pm, gdt + 0x08), 0x00cf9a000000ffffull);
	ck_assert_uint_eq(rd64(&pm, gdt + 0x10), 0x00cf93000000ffffull);
	ck_assert_uint_eq(rd64(&pm, gdt + 0x18), 0x00009e000000ffffull);
	ck_assert_uint_eq(rd64(&pm, gdt + 0x20), 0x000092000000ffffull);
	/* What the loader wrote: the two segments and the information area. */
	ck_assert_uint_eq(boot.n_ranges, 3);
	ck_assert_int_eq(boot.range[2].kind, MB_RANGE_INFO);
	ck_assert_uint_eq(boot.range[2].start, 0x105000);
	ck_assert_uint_eq(boot.range[2].end, boot.info_end);
}
END_TEST

/* Modules (QEMU -initrd "FILE ARGS,..."): each page-aligned, the first on the
 * page after the information area, the list entries {start, end, string}, the
 * strings in order before the kernel's, flags bit 3. */
START_TEST(modules_load)
{
	static struct image im;
	struct seg s[1] = { { .paddr = 0x100000, .vaddr = 0x100000, .filesz = 0x10, .memsz = 0x10, .fill = 1 } };
	build_elf(&im, false, 0x100000, s, 1);
	static uint8_t a[0x1801], b[3];
	memset(a, 0xa5, sizeof(a));
	memcpy(b, "xyz", 3);
	struct multiboot_module mods[3] = {
		{ .string = "dir/a.bin first=1 second", .data = a, .size = sizeof(a) },
		{ .string = "b.bin", .data = b, .size = sizeof(b) },
		{ .string = "empty.bin x", .data = NULL, .size = 0 },
	};
	ck_assert_msg(load_mods(&im, "k", mods, 3), "%s", err);
	uint32_t mbi = boot.info_addr;
	ck_assert_uint_eq(mbi, 0x101000);
	ck_assert_uint_eq(rd32(&pm, mbi + MBI_FLAGS) & MBI_F_MODS, MBI_F_MODS);
	ck_assert_uint_eq(rd32(&pm, mbi + MBI_MODS_COUNT), 3);
	uint32_t list = rd32(&pm, mbi + MBI_MODS_ADDR);
	ck_assert_uint_eq(list, mbi + MB_INFO_MODS);
	/* Module 0 on the page after the area, 0x1801 bytes; module 1 on the next
	 * page boundary after it; the empty module 2 on the boundary after that. */
	ck_assert_uint_eq(rd32(&pm, list + MB_MOD_START), 0x102000);
	ck_assert_uint_eq(rd32(&pm, list + MB_MOD_END), 0x103801);
	ck_assert_uint_eq(rd32(&pm, list + 16 + MB_MOD_START), 0x104000);
	ck_assert_uint_eq(rd32(&pm, list + 16 + MB_MOD_END), 0x104003);
	ck_assert_uint_eq(rd32(&pm, list + 32 + MB_MOD_START), 0x105000);
	ck_assert_uint_eq(rd32(&pm, list + 32 + MB_MOD_END), 0x105000);
	ck_assert_mem_eq(pm.ram + 0x102000, a, sizeof(a));
	ck_assert_uint_eq(pm.ram[0x103801], 0xcc);
	ck_assert_mem_eq(pm.ram + 0x104000, "xyz", 3);
	ck_assert_uint_eq(rd32(&pm, list + 12), 0);     /* reserved */
	/* Strings: the modules' whole "FILE ARGS", then the kernel's command line. */
	uint32_t s0 = rd32(&pm, list + MB_MOD_STRING), s1 = rd32(&pm, list + 16 + MB_MOD_STRING);
	uint32_t s2 = rd32(&pm, list + 32 + MB_MOD_STRING);
	ck_assert_uint_eq(s0, list + 3 * 16);
	ck_assert_str_eq((char *)pm.ram + s0, "dir/a.bin first=1 second");
	ck_assert_uint_eq(s1, s0 + sizeof("dir/a.bin first=1 second"));
	ck_assert_str_eq((char *)pm.ram + s1, "b.bin");
	ck_assert_str_eq((char *)pm.ram + s2, "empty.bin x");
	ck_assert_uint_eq(rd32(&pm, mbi + MBI_CMDLINE), s2 + sizeof("empty.bin x"));
	ck_assert_str_eq((char *)pm.ram + rd32(&pm, mbi + MBI_CMDLINE), "kernel.elf k");
	ck_assert_uint_lt(boot.info_end, 0x102000);
	/* Ranges: the segment, the three modules, the information area. */
	ck_assert_uint_eq(boot.n_ranges, 5);
	ck_assert_int_eq(boot.range[1].kind, MB_RANGE_MODULE);
	ck_assert_uint_eq(boot.range[1].start, 0x102000);
	ck_assert_uint_eq(boot.range[2].index, 1);
	ck_assert_int_eq(boot.range[4].kind, MB_RANGE_INFO);
}
END_TEST

static uint32_t item32(const struct fw_cfg *f, uint16_t key)
{
	ck_assert_uint_eq(f->generic[key].len, 4);
	return get32(f->generic[key].data);
}

/* Through the firmware (QEMU's multiboot.c and multiboot.S contract): the
 * kernel's loaded span with its modules and strings as one blob at its load
 * address, the information structure as the "initrd" at 9500H naming the
 * map at 9000H that the ROM fills; mods and strings where the direct start
 * puts them. */
START_TEST(firmware_items)
{
	static struct image im;
	struct seg s[2] = { { .paddr = 0x100000, .vaddr = 0x100000, .filesz = 0x10, .memsz = 0x800, .fill = 1 },
			    { .paddr = 0x102000, .vaddr = 0x102000, .filesz = 0x20, .memsz = 0x20, .fill = 2 } };
	build_elf(&im, false, 0x100004, s, 2);
	static uint8_t a[0x1801];
	memset(a, 0xa5, sizeof(a));
	struct multiboot_module mods[1] = { { .string = "a.bin x=1", .data = a, .size = sizeof(a) } };
	struct fw_cfg f;
	fw_cfg_init(&f);
	ck_assert_msg(fw_cfg_add_multiboot(&f, RAM, im.b, im.size, "k.elf", "quiet", mods, 1,
					   (const uint8_t *)"ROM", 3, err, sizeof(err)), "%s", err);
	ck_assert_uint_eq(item32(&f, FW_CFG_KERNEL_ENTRY), 0x100004);
	ck_assert_uint_eq(item32(&f, FW_CFG_KERNEL_ADDR), 0x100000);
	uint32_t len = item32(&f, FW_CFG_KERNEL_SIZE);
	const uint8_t *blob = f.generic[FW_CFG_KERNEL_DATA].data;
	ck_assert_uint_eq(f.generic[FW_CFG_KERNEL_DATA].len, len);
	ck_assert_uint_eq(blob[0], 1);                 /* segment 0, then its bss */
	ck_assert_uint_eq(blob[0x7ff], 0);
	ck_assert_uint_eq(blob[0x2000], 2);            /* segment 1 */
	ck_assert_uint_eq(item32(&f, FW_CFG_INITRD_ADDR), FW_CFG_MULTIBOOT_INFO_ADDR);
	ck_assert_uint_eq(item32(&f, FW_CFG_INITRD_SIZE), MBI_SIZE);
	const uint8_t *mbi = f.generic[FW_CFG_INITRD_DATA].data;
	ck_assert_uint_eq(get32(mbi + MBI_MMAP_ADDR), FW_CFG_MULTIBOOT_MMAP_ADDR);
	ck_assert_uint_eq(get32(mbi + MBI_MMAP_LENGTH), 0);   /* the ROM's */
	ck_assert_uint_eq(get32(mbi + MBI_MEM_LOWER), 0);
	ck_assert_uint_eq(get32(mbi + MBI_MODS_COUNT), 1);
	uint32_t list = get32(mbi + MBI_MODS_ADDR) - 0x100000;
	uint32_t mod0 = get32(blob + list + MB_MOD_START) - 0x100000;
	ck_assert_uint_eq(get32(blob + list + MB_MOD_END) - 0x100000 - mod0, sizeof(a));
	ck_assert_mem_eq(blob + mod0, a, sizeof(a));
	ck_assert_uint_eq(mod0 + sizeof(a), len);      /* the blob ends with the last module */
	ck_assert_str_eq((const char *)blob + get32(blob + list + MB_MOD_STRING) - 0x100000, "a.bin x=1");
	ck_assert_str_eq((const char *)blob + get32(mbi + MBI_CMDLINE) - 0x100000, "k.elf quiet");
	ck_assert_uint_eq(f.n_files, 2);
	ck_assert_str_eq(f.file_name[1], FW_CFG_MULTIBOOT_ROM_NAME);
	ck_assert_mem_eq(f.generic[FW_CFG_FILE_FIRST].data, "/rom@genroms/multiboot_dma.bin\n", 31);
	fw_cfg_destroy(&f);

	/* A kernel over the firmware's memory below 1 MiB is refused; one over
	 * the ROM's own area at 9000H is not (its bytes win, as under QEMU). */
	fw_cfg_init(&f);
	s[0].paddr = s[0].vaddr = 0xe0000;
	build_elf(&im, false, 0xe0000, s, 1);
	ck_assert(!fw_cfg_add_multiboot(&f, RAM, im.b, im.size, "k", "", NULL, 0, (const uint8_t *)"R", 1, err,
					sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "A0000H-FFFFFH"));
	s[0].paddr = s[0].vaddr = 0x8000;
	build_elf(&im, false, 0x8000, s, 1);
	ck_assert_msg(fw_cfg_add_multiboot(&f, RAM, im.b, im.size, "k", "", NULL, 0, (const uint8_t *)"R", 1, err,
					   sizeof(err)), "%s", err);
	fw_cfg_destroy(&f);
}
END_TEST

/* No fixed area: a kernel linked at 0x8000, over what QEMU uses at 0x9000-
 * 0x96ff, loads, with its information on the page after it. */
START_TEST(low_kernel_load)
{
	static struct image im;
	struct seg s[1] = { { .paddr = 0x8000, .vaddr = 0x8000, .filesz = 0x2000, .memsz = 0x3800, .fill = 0x66 } };
	build_elf(&im, false, 0x8000, s, 1);
	ck_assert_msg(load(&im, ""), "%s", err);
	ck_assert_uint_eq(boot.info_addr, 0xc000);
	ck_assert_uint_eq(pm.ram[0x9000], 0x66);       /* the image, not an information block */
	ck_assert_uint_eq(pm.ram[0x9500], 0x66);
	ck_assert_uint_eq(pm.ram[0xa000], 0);          /* bss */
	ck_assert_uint_eq(rd32(&pm, 0xc000 + MBI_FLAGS), 0x24f);
}
END_TEST

START_TEST(module_limits)
{
	static struct image im;
	struct seg s[1] = { { .paddr = 0x100000, .vaddr = 0x100000, .filesz = 0x10, .memsz = 0x10 } };
	build_elf(&im, false, 0x100000, s, 1);
	static struct multiboot_module many[MB_MAX_MODULES + 1];
	for (unsigned i = 0; i <= MB_MAX_MODULES; i++)
		many[i] = (struct multiboot_module){ .string = "m" };
	ck_assert(load_mods(&im, "", many, MB_MAX_MODULES));
	ck_assert(!load_mods(&im, "", many, MB_MAX_MODULES + 1));
	ck_assert_ptr_nonnull(strstr(err, "too many modules"));
	/* A module that does not fit in RAM. */
	static uint8_t big[0x10];
	struct multiboot_module huge = { .string = "huge", .data = big, .size = RAM };
	ck_assert(!load_mods(&im, "", &huge, 1));
	ck_assert_ptr_nonnull(strstr(err, "beyond RAM"));
	/* A string longer than a command line may be. */
	char *longs = malloc(MB_CMDLINE_MAX + 1);
	memset(longs, 'a', MB_CMDLINE_MAX);
	longs[MB_CMDLINE_MAX] = 0;
	struct multiboot_module lm = { .string = longs, .data = big, .size = 1 };
	ck_assert(!load_mods(&im, "", &lm, 1));
	ck_assert_ptr_nonnull(strstr(err, "too long"));
	free(longs);
}
END_TEST

START_TEST(elf64_load)
{
	static struct image im;
	struct seg s[1] = { { .paddr = 0x200000, .vaddr = 0xffffffff80200000ull, .filesz = 0x100,
			      .memsz = 0x100, .fill = 0xf4 } };
	build_elf(&im, true, 0xffffffff80200010ull, s, 1);
	ck_assert_msg(load(&im, ""), "%s", err);
	ck_assert(boot.elf64);
	ck_assert_uint_eq(boot.entry, 0x200010);
	ck_assert_uint_eq(pm.ram[0x2000ff], 0xf4);
	ck_assert_uint_eq(boot.info_addr, 0x201000);
	ck_assert_str_eq((char *)pm.ram + rd32(&pm, boot.info_addr + MBI_CMDLINE), "kernel.elf ");
}
END_TEST

START_TEST(elf64_entry_above_4g)
{
	static struct image im;
	struct seg s[1] = { { .paddr = 0x200000, .vaddr = 0x200000, .filesz = 0x10, .memsz = 0x10 } };
	build_elf(&im, true, 0x100000000ull, s, 1);
	expect_error(&im, "above 4 GiB");
}
END_TEST

/* a.out kludge: header at file offset 0x40, image loaded at 0x300000. */
static void build_aout(struct image *im, uint32_t load_end_rel, uint32_t bss_end_rel)
{
	memset(im, 0, sizeof(*im));
	uint32_t load = 0x300000;
	for (unsigned i = 0; i < 0x800; i++)
		im->b[i] = (uint8_t)(i | 1);
	mb_header(im->b + 0x40, MB_HF_AOUT_KLUDGE | MB_HF_MEMINFO);
	put32(im->b + 0x4c, load + 0x40);                            /* header_addr */
	put32(im->b + 0x50, load);                                   /* load_addr */
	put32(im->b + 0x54, load_end_rel ? load + load_end_rel : 0); /* load_end_addr */
	put32(im->b + 0x58, bss_end_rel ? load + bss_end_rel : 0);   /* bss_end_addr */
	put32(im->b + 0x5c, load + 0x60);                            /* entry_addr */
	im->size = 0x800;
}

START_TEST(aout_load)
{
	static struct image im;
	build_aout(&im, 0x400, 0x1000);
	ck_assert_msg(load(&im, "x"), "%s", err);
	ck_assert(!boot.elf);
	ck_assert_uint_eq(boot.entry, 0x300060);
	ck_assert_uint_eq(boot.load_start, 0x300000);
	ck_assert_uint_eq(boot.load_end, 0x301000);
	ck_assert_mem_eq(pm.ram + 0x300000, im.b, 0x400);
	ck_assert_uint_eq(pm.ram[0x300400], 0);       /* bss (file has more bytes: not loaded) */
	ck_assert_uint_eq(pm.ram[0x300fff], 0);
	ck_assert_uint_eq(boot.info_addr, 0x301000);
	ck_assert_uint_eq(rd32(&pm, boot.info_addr + MBI_CMDLINE), 0x301000 + MB_INFO_MODS);

	build_aout(&im, 0, 0);                         /* to end of file, no bss */
	ck_assert_msg(load(&im, ""), "%s", err);
	ck_assert_uint_eq(boot.load_end, 0x300800);
	ck_assert_mem_eq(pm.ram + 0x300000, im.b, 0x800);
}
END_TEST

START_TEST(aout_errors)
{
	static struct image im;
	build_aout(&im, 0x1000, 0);
	expect_error(&im, "truncated");
	build_aout(&im, 0x400, 0x200);
	expect_error(&im, "bss_end_addr");
	build_aout(&im, 0x400, 0);
	put32(im.b + 0x54, 0x2ff000);
	expect_error(&im, "load_end_addr");
	build_aout(&im, 0x400, 0);
	put32(im.b + 0x4c, 0x2fffff);                  /* header_addr < load_addr */
	expect_error(&im, "header_addr");
	build_aout(&im, 0x400, 0);
	put32(im.b + 0x50, 0x300040 - 0x100);          /* load_addr before the file start */
	expect_error(&im, "before the start");
	build_aout(&im, 0x400, 0);
	put32(im.b + 0x50, 0xfffff000);
	put32(im.b + 0x4c, 0xfffff040);
	put32(im.b + 0x54, 0xfffff400);
	expect_error(&im, "beyond RAM");
	build_aout(&im, 0x400, 0);
	im.size = 0x50;                                /* header cut inside the address fields */
	expect_error(&im, "truncated");
}
END_TEST

START_TEST(header_errors)
{
	static struct image im;
	memset(&im, 0, sizeof(im));
	im.size = 0;
	expect_error(&im, "too short");
	im.size = 0x3000;
	expect_error(&im, "no multiboot header");
	/* A header past 8 KiB does not count. */
	mb_header(im.b + 0x2000, 0);
	expect_error(&im, "no multiboot header");
	memset(&im, 0, sizeof(im));
	im.size = 0x100;
	mb_header(im.b + 0x10, 0);
	put32(im.b + 0x18, 0x1234);
	expect_error(&im, "bad checksum");
	mb_header(im.b + 0x10, 1u << 3);               /* an unknown required flag */
	expect_error(&im, "unsupported");
	mb_header(im.b + 0x10, MB_HF_MEMINFO);         /* no bit 16 and not ELF */
	expect_error(&im, "not an ELF");
	/* Misaligned magic is not a header. */
	memset(&im, 0, sizeof(im));
	im.size = 0x100;
	mb_header(im.b + 0x12, 0);
	expect_error(&im, "no multiboot header");
}
END_TEST

START_TEST(elf_errors)
{
	static struct image im;
	struct seg one[1] = { { .paddr = 0x100000, .vaddr = 0x100000, .filesz = 0x100, .memsz = 0x100 } };
	build_elf(&im, false, 0x100000, one, 1);
	im.size = 0x1080;                              /* segment cut short */
	expect_error(&im, "truncated");

	struct seg big[1] = { { .paddr = RAM - 0x100, .vaddr = 0, .filesz = 0x10, .memsz = 0x200 } };
	build_elf(&im, false, 0, big, 1);
	expect_error(&im, "beyond RAM");

	struct seg ovl[2] = {
		{ .paddr = 0x100000, .vaddr = 0x100000, .filesz = 0x10, .memsz = 0x2000 },
		{ .paddr = 0x101000, .vaddr = 0x101000, .filesz = 0x10, .memsz = 0x10 },
	};
	build_elf(&im, false, 0x100000, ovl, 2);
	expect_error(&im, "overlap");

	struct seg fsz[1] = { { .paddr = 0x100000, .vaddr = 0x100000, .filesz = 0x20, .memsz = 0x10 } };
	build_elf(&im, false, 0x100000, fsz, 1);
	expect_error(&im, "exceeds memory size");

	build_elf(&im, false, 0x100000, one, 0);
	expect_error(&im, "no loadable segments");

	build_elf(&im, false, 0x100000, one, 1);
	((Elf32_Ehdr *)im.b)->e_machine = EM_ARM;
	expect_error(&im, "machine");

	build_elf(&im, false, 0x100000, one, 1);
	((Elf32_Ehdr *)im.b)->e_phoff = 0x3ff0;        /* program headers past the end */
	((Elf32_Ehdr *)im.b)->e_phnum = 40;
	ck_assert(!load(&im, ""));

	build_elf(&im, false, 0x100000, one, 1);
	im.b[EI_DATA] = ELFDATA2MSB;
	expect_error(&im, "little-endian");

	build_elf(&im, false, 0x100000, one, 1);
	im.b[EI_CLASS] = 7;
	expect_error(&im, "class");

	/* A huge p_offset must not wrap the bounds check. */
	build_elf(&im, true, 0x200000, one, 1);
	((Elf64_Phdr *)(im.b + sizeof(Elf64_Ehdr)))->p_offset = UINT64_MAX - 8;
	expect_error(&im, "truncated");
}
END_TEST

START_TEST(cmdline_limits)
{
	static struct image im;
	struct seg one[1] = { { .paddr = 0x100000, .vaddr = 0x100000, .filesz = 0x10, .memsz = 0x10 } };
	build_elf(&im, false, 0x100000, one, 1);
	char *longline = malloc(MB_CMDLINE_MAX + 1);
	memset(longline, 'a', MB_CMDLINE_MAX);
	longline[MB_CMDLINE_MAX] = 0;
	ck_assert(!load(&im, longline));
	ck_assert_ptr_nonnull(strstr(err, "too long"));
	free(longline);
	/* Kernel ends exactly at the end of RAM: no room for the information. */
	struct seg top[1] = { { .paddr = RAM - 0x1000, .vaddr = 0, .filesz = 0x10, .memsz = 0x1000 } };
	build_elf(&im, false, RAM - 0x1000, top, 1);
	expect_error(&im, "no room");
}
END_TEST

START_TEST(flat_and_bios)
{
	uint8_t *bios = malloc(0x40000);
	for (unsigned i = 0; i < 0x40000; i++)
		bios[i] = (uint8_t)(i >> 8);
	ck_assert(loader_load_bios(&pm, bios, 0x40000, err, sizeof(err)));
	ck_assert_uint_eq(physmem_read(&pm, 0xfffc0000, 1), 0x00);
	ck_assert_uint_eq(physmem_read(&pm, 0xfffffff0, 1), 0xff);
	/* The last 128 KiB also end at 1 MiB. */
	ck_assert_uint_eq(pm.ram[0xe0000], bios[0x20000]);
	ck_assert_uint_eq(pm.ram[0xffff0], bios[0x3fff0]);
	ck_assert(!loader_load_bios(&pm, bios, 0x1000, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "64 KiB"));
	ck_assert(!loader_load_bios(&pm, bios, 0, err, sizeof(err)));
	free(bios);

	const uint8_t code[4] = { 0xf4, 0xeb, 0xfe, 0x90 };
	ck_assert(loader_load_flat(&pm, code, 4, 0x7c00, err, sizeof(err)));
	ck_assert_mem_eq(pm.ram + 0x7c00, code, 4);
	ck_assert(!loader_load_flat(&pm, code, 4, RAM - 2, err, sizeof(err)));
	ck_assert(!loader_load_flat(&pm, code, 4, UINT64_MAX - 1, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "does not fit"));
}
END_TEST

START_TEST(read_file_errors)
{
	uint8_t *data;
	size_t size;
	ck_assert(!loader_read_file("/nonexistent/kernel", 100, &data, &size, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "cannot open"));
	ck_assert(!loader_read_file("/", 100, &data, &size, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
	char path[] = "/tmp/hvemu-test-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "0123456789", 10), 10);
	close(fd);
	ck_assert(!loader_read_file(path, 5, &data, &size, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "too large"));
	ck_assert(loader_read_file(path, 10, &data, &size, err, sizeof(err)));
	ck_assert_uint_eq(size, 10);
	ck_assert_mem_eq(data, "0123456789", 10);
	data[0] = 'x';             /* the caller's copy: the file keeps its bytes */
	loader_release_file(data, size);
	ck_assert(loader_read_file(path, 10, &data, &size, err, sizeof(err)));
	ck_assert_mem_eq(data, "0123456789", 10);
	loader_release_file(data, size);
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert(loader_read_file(path, 10, &data, &size, err, sizeof(err)));
	ck_assert_uint_eq(size, 0);
	ck_assert_ptr_nonnull(data);
	loader_release_file(data, size);
	unlink(path);
}
END_TEST

static Suite *multiboot_suite(void)
{
	Suite *s = suite_create("multiboot");
	TCase *ok = tcase_create("load");
	tcase_add_checked_fixture(ok, setup, teardown);
	tcase_add_test(ok, elf32_load);
	tcase_add_test(ok, elf64_load);
	tcase_add_test(ok, aout_load);
	tcase_add_test(ok, modules_load);
	tcase_add_test(ok, low_kernel_load);
	tcase_add_test(ok, flat_and_bios);
	tcase_add_test(ok, firmware_items);
	suite_add_tcase(s, ok);
	TCase *bad = tcase_create("malformed");
	tcase_add_checked_fixture(bad, setup, teardown);
	tcase_add_test(bad, elf64_entry_above_4g);
	tcase_add_test(bad, aout_errors);
	tcase_add_test(bad, header_errors);
	tcase_add_test(bad, elf_errors);
	tcase_add_test(bad, cmdline_limits);
	tcase_add_test(bad, module_limits);
	tcase_add_test(bad, read_file_errors);
	suite_add_tcase(s, bad);
	return s;
}

int main(void)
{
	return run_suite(multiboot_suite());
}
