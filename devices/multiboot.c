/* Multiboot v1 loader (Multiboot Specification 0.6.96, sections 3.1-3.3), with
 * QEMU's choices where the specification leaves room (hw/i386/multiboot.c and
 * pc-bios/optionrom/multiboot.S): the command line is "kernel_name cmdline",
 * a module's string is its whole "FILE ARGS", modules are page-aligned after
 * the page that follows the image, boot_device is 0x8000ffff, mem_lower is what
 * INT 12h reports (639) and mem_upper the RAM contiguous from 1 MiB. Where QEMU
 * keeps the information structure and memory map at the fixed 0x9500/0x9000,
 * hvemu puts them after the image too (devices/multiboot.h), so a kernel may
 * be linked anywhere in RAM. */
#include "devices/multiboot.h"
#include "devices/le_bytes.h"
#include "devices/loader.h"

#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_ALIGN(x) (((x) + 0xfffull) & ~0xfffull)
#define MAX_SEGMENTS MB_MAX_SEGMENTS

struct segment_plan {
	uint64_t paddr, filesz, memsz, offset;
};

struct load_plan {
	struct segment_plan seg[MAX_SEGMENTS];
	unsigned n;
	uint64_t entry;
};

long multiboot_find_header(const uint8_t *image, size_t size, char *err, size_t errlen)
{
	size_t limit = size < MB_SEARCH_LIMIT ? size : MB_SEARCH_LIMIT;
	long bad_checksum = -1;
	/* Multiboot 3.1.1: magic, flags, checksum; 32-bit aligned; magic + flags +
	 * checksum == 0 (mod 2^32). */
	for (size_t off = 0; off + 12 <= limit; off += 4) {
		if (get32(image + off) != MB_HEADER_MAGIC)
			continue;
		uint32_t sum = MB_HEADER_MAGIC + get32(image + off + 4) + get32(image + off + 8);
		if (sum == 0)
			return (long)off;
		if (bad_checksum < 0)
			bad_checksum = (long)off;
	}
	if (bad_checksum >= 0)
		loader_fail(err, errlen, "multiboot header at offset 0x%lx has a bad checksum", bad_checksum);
	else if (size < 12)
		loader_fail(err, errlen, "file too short for a multiboot header (%zu bytes)", size);
	else
		loader_fail(err, errlen, "no multiboot header in the first %d bytes", MB_SEARCH_LIMIT);
	return -1;
}

/* Multiboot 3.1.3: the a.out kludge address fields (header offsets 12..31). */
static bool plan_aout(const uint8_t *image, size_t size, size_t off, struct load_plan *p,
		      char *err, size_t errlen)
{
	if (off + 32 > size)
		return loader_fail(err, errlen, "multiboot header truncated: address fields missing");
	uint32_t header_addr = get32(image + off + 12), load_addr = get32(image + off + 16);
	uint32_t load_end = get32(image + off + 20), bss_end = get32(image + off + 24);
	if (header_addr < load_addr)
		return loader_fail(err, errlen, "multiboot header_addr 0x%x below load_addr 0x%x",
			    header_addr, load_addr);
	if (header_addr - load_addr > off)
		return loader_fail(err, errlen, "multiboot load_addr 0x%x lies before the start of the file",
			    load_addr);
	uint64_t text_offset = off - (header_addr - load_addr), load_size;
	if (load_end) {
		if (load_end < load_addr)
			return loader_fail(err, errlen, "multiboot load_end_addr 0x%x below load_addr 0x%x",
				    load_end, load_addr);
		load_size = load_end - load_addr;
		if (text_offset + load_size > size)
			return loader_fail(err, errlen, "file truncated: load_end_addr needs %llu bytes, file has %zu",
				    (unsigned long long)(text_offset + load_size), size);
	} else {
		load_size = size - text_offset;    /* to the end of the file */
	}
	uint64_t mem_size = load_size;
	if (bss_end) {
		if (bss_end < load_addr + load_size)
			return loader_fail(err, errlen, "multiboot bss_end_addr 0x%x below the end of the load 0x%llx",
				    bss_end, (unsigned long long)(load_addr + load_size));
		mem_size = bss_end - load_addr;
	}
	p->n = 1;
	p->seg[0] = (struct segment_plan){ .paddr = load_addr, .filesz = load_size,
					   .memsz = mem_size, .offset = text_offset };
	p->entry = get32(image + off + 28);
	return true;
}

/* ELF32 (EM_386) or, as an hvemu extension, ELF64 (EM_X86_64): PT_LOAD segments
 * at p_paddr. The entry point is e_entry translated from virtual to physical
 * through the segment that holds it (as GRUB 2 does for p_vaddr != p_paddr). */
static bool plan_elf(const uint8_t *image, size_t size, struct load_plan *p, bool *is64,
		     char *err, size_t errlen)
{
	if (size < EI_NIDENT || memcmp(image, ELFMAG, SELFMAG) != 0)
		return loader_fail(err, errlen, "not an ELF file and the multiboot header has no address fields (flag bit 16)");
	if (image[EI_DATA] != ELFDATA2LSB)
		return loader_fail(err, errlen, "ELF file is not little-endian");
	if (image[EI_CLASS] != ELFCLASS32 && image[EI_CLASS] != ELFCLASS64)
		return loader_fail(err, errlen, "ELF file has an invalid class %u", image[EI_CLASS]);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return loader_fail(err, errlen, "libelf: %s", elf_errmsg(-1));

	/* libelf wants a writable buffer; give it its own copy. */
	char *copy = malloc(size);
	if (!copy)
		return loader_fail(err, errlen, "out of memory reading the ELF file");
	memcpy(copy, image, size);
	bool ok = false;
	Elf *e = elf_memory(copy, size);
	GElf_Ehdr eh;
	size_t phnum;
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		loader_fail(err, errlen, "bad ELF header: %s", elf_errmsg(-1));
		goto out;
	}
	*is64 = gelf_getclass(e) == ELFCLASS64;
	if (eh.e_machine != (*is64 ? EM_X86_64 : EM_386)) {
		loader_fail(err, errlen, "ELF%d file is for machine %u, not %s", *is64 ? 64 : 32,
		     eh.e_machine, *is64 ? "x86-64" : "i386");
		goto out;
	}
	if (elf_getphdrnum(e, &phnum) != 0) {
		loader_fail(err, errlen, "bad ELF program headers: %s", elf_errmsg(-1));
		goto out;
	}
	p->n = 0;
	bool entry_found = false;
	p->entry = eh.e_entry;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph)) {
			loader_fail(err, errlen, "bad ELF program header %zu: %s", i, elf_errmsg(-1));
			goto out;
		}
		if (ph.p_type != PT_LOAD || ph.p_memsz == 0)
			continue;
		if (ph.p_filesz > ph.p_memsz) {
			loader_fail(err, errlen, "ELF segment %zu: file size 0x%llx exceeds memory size 0x%llx", i,
			     (unsigned long long)ph.p_filesz, (unsigned long long)ph.p_memsz);
			goto out;
		}
		if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset) {
			loader_fail(err, errlen, "file truncated: ELF segment %zu needs bytes up to 0x%llx, file has 0x%zx",
			     i, (unsigned long long)(ph.p_offset + ph.p_filesz), size);
			goto out;
		}
		if (p->n == MAX_SEGMENTS) {
			loader_fail(err, errlen, "ELF file has more than %d loadable segments", MAX_SEGMENTS);
			goto out;
		}
		p->seg[p->n++] = (struct segment_plan){ .paddr = ph.p_paddr, .filesz = ph.p_filesz,
							.memsz = ph.p_memsz, .offset = ph.p_offset };
		if (!entry_found && eh.e_entry >= ph.p_vaddr && eh.e_entry - ph.p_vaddr < ph.p_memsz) {
			p->entry = eh.e_entry - ph.p_vaddr + ph.p_paddr;
			entry_found = true;
		}
	}
	if (p->n == 0) {
		loader_fail(err, errlen, "ELF file has no loadable segments");
		goto out;
	}
	if (p->entry > 0xffffffffull) {
		loader_fail(err, errlen, "ELF entry point 0x%llx is above 4 GiB", (unsigned long long)p->entry);
		goto out;
	}
	ok = true;
out:
	if (e)
		elf_end(e);
	free(copy);
	return ok;
}

/* Every segment inside RAM and clear of the others. */
static bool check_plan(const struct physmem *pm, const struct load_plan *p, char *err, size_t errlen)
{
	for (unsigned i = 0; i < p->n; i++) {
		const struct segment_plan *s = &p->seg[i];
		uint64_t end = s->paddr + s->memsz;
		if (end < s->paddr || end > pm->ram_size)
			return loader_fail(err, errlen, "segment 0x%llx-0x%llx lies beyond RAM (%llu MiB)",
				    (unsigned long long)s->paddr, (unsigned long long)end,
				    (unsigned long long)(pm->ram_size >> 20));
		for (unsigned j = 0; j < i; j++) {
			const struct segment_plan *t = &p->seg[j];
			if (s->paddr < t->paddr + t->memsz && t->paddr < end)
				return loader_fail(err, errlen, "segments 0x%llx-0x%llx and 0x%llx-0x%llx overlap",
					    (unsigned long long)t->paddr,
					    (unsigned long long)(t->paddr + t->memsz),
					    (unsigned long long)s->paddr, (unsigned long long)end);
		}
	}
	return true;
}

static void zero_ram(struct physmem *pm, uint64_t pa, uint64_t len)
{
	static const uint8_t zeros[4096];
	while (len) {
		size_t n = len < sizeof(zeros) ? (size_t)len : sizeof(zeros);
		physmem_write_bytes(pm, pa, zeros, n);
		pa += n, len -= n;
	}
}

/* The machine's memory map (devices/e820.h) as Multiboot 3.3 entries at pa.
 * Returns the map length in bytes. */
static uint32_t write_mmap(struct physmem *pm, uint64_t pa)
{
	struct e820_entry map[E820_MAX_ENTRIES];
	unsigned n = e820_map(pm->ram_size, map);
	uint8_t e[MB_MMAP_ENTRY_SIZE];
	for (unsigned i = 0; i < n; i++) {
		put32(e, MB_MMAP_ENTRY_SIZE - 4);  /* size excludes the size field itself */
		put64(e + 4, map[i].base);
		put64(e + 12, map[i].length);
		put32(e + 20, map[i].type);
		physmem_write_bytes(pm, pa + i * MB_MMAP_ENTRY_SIZE, e, sizeof(e));
	}
	return n * MB_MMAP_ENTRY_SIZE;
}

/* The GDT of QEMU's multiboot option ROM (SDM Vol.3 3.4.5 descriptor layout):
 * 0x08 flat 32-bit code (base 0, limit 0xfffff, G=1, D=1, exec/read), 0x10 flat
 * data (read/write), 0x18 16-bit conforming code and 0x20 16-bit data (64 KiB).
 * The bytes are what a kernel reads back under QEMU: the data entry has its
 * accessed bit set by the segment loads (SDM Vol.3 3.4.5.1), the code entry
 * not (QEMU's far jump does not write it back). */
static void write_gdt(struct physmem *pm, uint64_t pa)
{
	static const uint64_t gdt[MB_GDT_ENTRIES] = {
		0,
		0x00cf9a000000ffffull,
		0x00cf93000000ffffull,
		0x00009e000000ffffull,
		0x000092000000ffffull,
	};
	uint8_t raw[sizeof(gdt)];
	for (unsigned i = 0; i < MB_GDT_ENTRIES; i++)
		put64(raw + 8 * i, gdt[i]);
	physmem_write_bytes(pm, pa, raw, sizeof(raw));
}

/* The information area and the modules: their addresses and sizes, laid
 * out as devices/multiboot.h draws them, checked against RAM before anything
 * is written. */
struct info_plan {
	uint64_t info, strings, end;       /* area start, its strings, its end */
	uint64_t mod_start[MB_MAX_MODULES];
	uint64_t mods_end;
};

static const char loader_name[] = "hvemu";

_Static_assert(MB_INFO_MMAP >= MBI_SIZE, "the memory map follows the information structure");
_Static_assert(MB_INFO_GDT >= MB_INFO_MMAP + E820_MAX_ENTRIES * MB_MMAP_ENTRY_SIZE, "the GDT follows the map");
_Static_assert(MB_INFO_MODS >= MB_INFO_GDT + 8 * MB_GDT_ENTRIES, "the module list follows the GDT");

static bool plan_info(const struct physmem *pm, uint64_t low, uint64_t high, const char *kernel_name,
		      const char *cmdline, const struct multiboot_module *mods, unsigned n_mods,
		      struct info_plan *ip, char *err, size_t errlen)
{
	if (n_mods > MB_MAX_MODULES)
		return loader_fail(err, errlen, "too many modules (%u; at most %d)", n_mods, MB_MAX_MODULES);
	size_t name_len = strlen(kernel_name), cmd_len = strlen(cmdline);
	if (name_len + 1 + cmd_len + 1 > MB_CMDLINE_MAX)
		return loader_fail(err, errlen, "command line too long (max %d bytes)", MB_CMDLINE_MAX);
	uint64_t strings_len = name_len + 1 + cmd_len + 1 + sizeof(loader_name);
	for (unsigned i = 0; i < n_mods; i++) {
		size_t len = strlen(mods[i].string) + 1;
		if (len > MB_CMDLINE_MAX)
			return loader_fail(err, errlen, "module %u: string too long (max %d bytes)", i,
					   MB_CMDLINE_MAX);
		strings_len += len;
	}
	ip->info = low + PAGE_ALIGN(high - low);
	ip->strings = ip->info + MB_INFO_MODS + (uint64_t)MB_MOD_SIZE * n_mods;
	ip->end = ip->strings + strings_len;
	if (ip->end > pm->ram_size)
		return loader_fail(err, errlen, "no room after the kernel for the multiboot information "
				   "(0x%llx-0x%llx; RAM ends at 0x%llx)", (unsigned long long)ip->info,
				   (unsigned long long)ip->end, (unsigned long long)pm->ram_size);
	uint64_t at = PAGE_ALIGN(ip->end);
	for (unsigned i = 0; i < n_mods; i++) {
		ip->mod_start[i] = at;
		if (mods[i].size > pm->ram_size || at + mods[i].size > pm->ram_size)
			return loader_fail(err, errlen, "module %u (%zu bytes at 0x%llx) lies beyond RAM (%llu MiB)",
					   i, mods[i].size, (unsigned long long)at,
					   (unsigned long long)(pm->ram_size >> 20));
		at = PAGE_ALIGN(at + mods[i].size);
	}
	ip->mods_end = at;
	return true;
}

/* Copy a NUL-terminated string to pa; returns the address after its NUL. */
static uint64_t put_string(struct physmem *pm, uint64_t pa, const char *s)
{
	size_t n = strlen(s) + 1;
	physmem_write_bytes(pm, pa, s, n);
	return pa + n;
}

bool multiboot_load(struct physmem *pm, const uint8_t *image, size_t size,
		    const char *kernel_name, const char *cmdline,
		    const struct multiboot_module *mods, unsigned n_mods,
		    struct multiboot_boot *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (size > 0xffffffffu)
		return loader_fail(err, errlen, "kernel file too large (%zu bytes)", size);
	long off = multiboot_find_header(image, size, err, errlen);
	if (off < 0)
		return false;
	uint32_t flags = get32(image + off + 4);
	out->header_offset = (uint32_t)off;
	out->header_flags = flags;
	/* Multiboot 3.1.2: refuse an image that requires what we do not know. */
	if (flags & 0xffff & ~MB_HF_KNOWN_REQUIRED)
		return loader_fail(err, errlen, "multiboot header requires unsupported features (flags 0x%x)",
			    flags & 0xffff & ~MB_HF_KNOWN_REQUIRED);

	struct load_plan *plan = calloc(1, sizeof(*plan));
	struct info_plan *ip = calloc(1, sizeof(*ip));
	if (!plan || !ip) {
		free(plan);
		free(ip);
		return loader_fail(err, errlen, "out of memory");
	}
	bool ok = false;
	bool is64 = false;
	/* QEMU: the a.out kludge takes precedence over the ELF headers when bit 16
	 * is set (Multiboot 3.1.3 lets the loader choose). */
	if (flags & MB_HF_AOUT_KLUDGE) {
		if (!plan_aout(image, size, (size_t)off, plan, err, errlen))
			goto out;
	} else {
		if (!plan_elf(image, size, plan, &is64, err, errlen))
			goto out;
		out->elf = true;
		out->elf64 = is64;
	}
	if (!check_plan(pm, plan, err, errlen))
		goto out;
	uint64_t low = UINT64_MAX, high = 0;
	for (unsigned i = 0; i < plan->n; i++) {
		const struct segment_plan *s = &plan->seg[i];
		if (s->paddr < low)
			low = s->paddr;
		if (s->paddr + s->memsz > high)
			high = s->paddr + s->memsz;
	}
	if (!plan_info(pm, low, high, kernel_name, cmdline, mods, n_mods, ip, err, errlen))
		goto out;

	for (unsigned i = 0; i < plan->n; i++) {
		const struct segment_plan *s = &plan->seg[i];
		physmem_write_bytes(pm, s->paddr, image + s->offset, (size_t)s->filesz);
		zero_ram(pm, s->paddr + s->filesz, s->memsz - s->filesz);
		out->range[out->n_ranges].start = s->paddr;
		out->range[out->n_ranges].end = s->paddr + s->memsz;
		out->range[out->n_ranges].kind = MB_RANGE_SEGMENT;
		out->range[out->n_ranges++].index = i;
	}

	/* Strings in QEMU's order: the modules', the kernel's, the loader's name. */
	uint64_t at = ip->strings;
	uint8_t entry[MB_MOD_SIZE] = { 0 };
	for (unsigned i = 0; i < n_mods; i++) {
		physmem_write_bytes(pm, ip->mod_start[i], mods[i].data, mods[i].size);
		put32(entry + MB_MOD_START, (uint32_t)ip->mod_start[i]);
		put32(entry + MB_MOD_END, (uint32_t)(ip->mod_start[i] + mods[i].size));
		put32(entry + MB_MOD_STRING, (uint32_t)at);
		physmem_write_bytes(pm, ip->info + MB_INFO_MODS + (uint64_t)MB_MOD_SIZE * i, entry, sizeof(entry));
		at = put_string(pm, at, mods[i].string);
		out->range[out->n_ranges].start = ip->mod_start[i];
		out->range[out->n_ranges].end = ip->mod_start[i] + mods[i].size;
		out->range[out->n_ranges].kind = MB_RANGE_MODULE;
		out->range[out->n_ranges++].index = i;
	}
	uint64_t cmd_pa = at;
	physmem_write_bytes(pm, at, kernel_name, strlen(kernel_name));
	at += strlen(kernel_name);
	physmem_write_bytes(pm, at++, " ", 1);
	at = put_string(pm, at, cmdline);
	uint64_t name_pa = at;
	at = put_string(pm, at, loader_name);

	uint8_t mbi[MBI_SIZE] = { 0 };
	put32(mbi + MBI_FLAGS, MBI_F_MEMORY | MBI_F_BOOT_DEVICE | MBI_F_CMDLINE | MBI_F_MODS |
			       MBI_F_MMAP | MBI_F_BOOT_LOADER_NAME);
	put32(mbi + MBI_MEM_LOWER, MB_MEM_LOWER_KB);
	put32(mbi + MBI_MEM_UPPER, (uint32_t)(pm->ram_size / 1024 - 1024));
	put32(mbi + MBI_BOOT_DEVICE, 0x8000ffff);   /* first BIOS disk, no partition */
	put32(mbi + MBI_CMDLINE, (uint32_t)cmd_pa);
	put32(mbi + MBI_MODS_COUNT, n_mods);
	put32(mbi + MBI_MODS_ADDR, (uint32_t)(ip->info + MB_INFO_MODS));
	put32(mbi + MBI_MMAP_LENGTH, write_mmap(pm, ip->info + MB_INFO_MMAP));
	put32(mbi + MBI_MMAP_ADDR, (uint32_t)(ip->info + MB_INFO_MMAP));
	put32(mbi + MBI_BOOT_LOADER_NAME, (uint32_t)name_pa);
	physmem_write_bytes(pm, ip->info, mbi, sizeof(mbi));
	write_gdt(pm, ip->info + MB_INFO_GDT);
	out->range[out->n_ranges].start = ip->info;
	out->range[out->n_ranges].end = ip->end;
	out->range[out->n_ranges++].kind = MB_RANGE_INFO;

	out->entry = (uint32_t)plan->entry;
	out->info_addr = (uint32_t)ip->info;
	out->info_end = (uint32_t)ip->end;
	out->gdt_addr = (uint32_t)(ip->info + MB_INFO_GDT);
	out->gdt_limit = 8 * MB_GDT_ENTRIES - 1;
	out->load_start = (uint32_t)low;
	out->load_end = (uint32_t)high;
	ok = true;
out:
	free(plan);
	free(ip);
	return ok;
}
