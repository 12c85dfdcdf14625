/* The PVH boot ABI; see devices/pvh.h. */
#include "devices/pvh.h"

#include <elf.h>
#include <string.h>

#include "devices/e820.h"
#include "devices/le_bytes.h"
#include "devices/linux_boot.h"
#include "devices/loader.h"

/* A program header, whichever the class. */
struct phdr {
	uint32_t type;
	uint64_t offset, paddr, filesz, memsz;
};

static bool read_phdr(const uint8_t *image, size_t size, unsigned i, struct phdr *p)
{
	bool is64 = image[EI_CLASS] == ELFCLASS64;
	if (is64) {
		Elf64_Ehdr e;
		Elf64_Phdr ph;
		memcpy(&e, image, sizeof(e));
		uint64_t at = e.e_phoff + (uint64_t)i * e.e_phentsize;
		if (e.e_phentsize < sizeof(ph) || at > size || size - at < sizeof(ph))
			return false;
		memcpy(&ph, image + at, sizeof(ph));
		*p = (struct phdr){ ph.p_type, ph.p_offset, ph.p_paddr, ph.p_filesz, ph.p_memsz };
	} else {
		Elf32_Ehdr e;
		Elf32_Phdr ph;
		memcpy(&e, image, sizeof(e));
		uint64_t at = e.e_phoff + (uint64_t)i * e.e_phentsize;
		if (e.e_phentsize < sizeof(ph) || at > size || size - at < sizeof(ph))
			return false;
		memcpy(&ph, image + at, sizeof(ph));
		*p = (struct phdr){ ph.p_type, ph.p_offset, ph.p_paddr, ph.p_filesz, ph.p_memsz };
	}
	return p->offset <= size && p->filesz <= size - p->offset;
}

/* The number of program headers of a little-endian ELF32/ELF64 image, 0 if
 * it is none. */
static unsigned elf_phnum(const uint8_t *image, size_t size)
{
	if (size < sizeof(Elf64_Ehdr) || memcmp(image, ELFMAG, SELFMAG) || image[EI_DATA] != ELFDATA2LSB)
		return 0;
	if (image[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr e;
		memcpy(&e, image, sizeof(e));
		return e.e_phnum;
	}
	if (image[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr e;
		memcpy(&e, image, sizeof(e));
		return e.e_phnum;
	}
	return 0;
}

/* ELF (System V gABI "Note Section"): namesz, descsz, type, then the name and
 * the descriptor, each padded to 4 bytes. The PHYS32 entry's descriptor is a
 * 32-bit address, or 64-bit where the kernel writes a pointer (Linux). */
static bool find_in_notes(const uint8_t *n, uint64_t len, uint32_t *entry)
{
	uint64_t at = 0;
	while (len - at >= 12) {
		uint32_t namesz = get32(n + at), descsz = get32(n + at + 4), type = get32(n + at + 8);
		uint64_t name = at + 12, desc = name + ((namesz + 3ull) & ~3ull);
		uint64_t next = desc + ((descsz + 3ull) & ~3ull);
		if (next > len)
			return false;
		if (type == XEN_ELFNOTE_PHYS32_ENTRY && namesz == 4 && !memcmp(n + name, "Xen", 4) &&
		    (descsz == 4 || descsz == 8)) {
			*entry = get32(n + desc);
			return true;
		}
		at = next;
	}
	return false;
}

bool pvh_find_entry(const uint8_t *image, size_t size, uint32_t *entry)
{
	unsigned n = elf_phnum(image, size);
	for (unsigned i = 0; i < n; i++) {
		struct phdr p;
		if (read_phdr(image, size, i, &p) && p.type == PT_NOTE &&
		    find_in_notes(image + p.offset, p.filesz, entry))
			return true;
	}
	return false;
}

/* A GDT with the flat segments the entry state asks for (pvh.pandoc: CS a
 * 32-bit execute/read segment, DS/ES/SS 32-bit read/write, base 0, limit
 * FFFFFFFFH; the selectors are the loader's choice), descriptors as SDM
 * Vol.3 3.4.5 draws them. */
static void write_gdt(struct physmem *pm)
{
	physmem_write(pm, PVH_GDT, 8, 0);
	physmem_write(pm, PVH_GDT + PVH_CODE_SEL, 8, LOADER_FLAT_CODE32_DESC);
	physmem_write(pm, PVH_GDT + PVH_DATA_SEL, 8, LOADER_FLAT_DATA32_DESC);
}

bool pvh_load(struct physmem *pm, const uint8_t *image, size_t size, const char *cmdline,
	      const uint8_t *module, size_t module_size, uint64_t rsdp,
	      struct pvh_boot *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	uint32_t entry;
	if (!pvh_find_entry(image, size, &entry))
		return loader_fail(err, errlen, "not an ELF file with a XEN_ELFNOTE_PHYS32_ENTRY note");
	/* Plan the segments first: none may leave RAM or cover the loader's own
	 * area below 1 MiB. */
	unsigned n = elf_phnum(image, size), loads = 0;
	uint64_t low = UINT64_MAX, high = 0;
	for (unsigned i = 0; i < n; i++) {
		struct phdr p;
		if (!read_phdr(image, size, i, &p))
			return loader_fail(err, errlen, "ELF program header %u lies outside the file", i);
		if (p.type != PT_LOAD || !p.memsz)
			continue;
		if (p.filesz > p.memsz || p.paddr + p.memsz < p.paddr || p.paddr + p.memsz > pm->ram_size)
			return loader_fail(err, errlen, "ELF segment %u (0x%llx, 0x%llx bytes) does not fit in "
					   "%llu MiB of RAM", i, (unsigned long long)p.paddr,
					   (unsigned long long)p.memsz, (unsigned long long)(pm->ram_size >> 20));
		if (p.paddr < PVH_CMDLINE + PVH_CMDLINE_MAX)
			return loader_fail(err, errlen, "ELF segment %u at 0x%llx overlaps the boot data below 0x%x",
					   i, (unsigned long long)p.paddr, PVH_CMDLINE + PVH_CMDLINE_MAX);
		low = p.paddr < low ? p.paddr : low;
		high = p.paddr + p.memsz > high ? p.paddr + p.memsz : high;
		loads++;
	}
	if (!loads)
		return loader_fail(err, errlen, "ELF file has no loadable segment");
	if (entry < low || entry >= high)
		return loader_fail(err, errlen, "PVH entry 0x%x lies outside the loaded image (0x%llx-0x%llx)",
				   entry, (unsigned long long)low, (unsigned long long)high - 1);
	size_t cmdline_len = strlen(cmdline);
	if (cmdline_len >= PVH_CMDLINE_MAX)
		return loader_fail(err, errlen, "command line too long (%zu bytes, max %u)", cmdline_len,
				   PVH_CMDLINE_MAX - 1);
	/* The module below 4 GiB (start_info.h: Xen places everything there), above the image. */
	if (module && !linux_place_initrd(pm->ram_size, 1ull << 32, high, module_size, &out->module_start))
		return loader_fail(err, errlen, "the initrd (%zu bytes) does not fit in RAM above the kernel (0x%llx)",
				   module_size, (unsigned long long)high);

	for (unsigned i = 0; i < n; i++) {
		struct phdr p;
		if (!read_phdr(image, size, i, &p) || p.type != PT_LOAD || !p.memsz)
			continue;
		physmem_write_bytes(pm, p.paddr, image + p.offset, p.filesz);
		static const uint8_t zero[4096];
		for (uint64_t a = p.paddr + p.filesz, end = p.paddr + p.memsz; a < end;) {
			size_t chunk = end - a < sizeof(zero) ? (size_t)(end - a) : sizeof(zero);
			physmem_write_bytes(pm, a, zero, chunk);     /* bss */
			a += chunk;
		}
	}

	uint8_t si[SI_SIZE] = { 0 };
	put32(si + SI_MAGIC, XEN_HVM_START_MAGIC_VALUE);
	put32(si + SI_VERSION, 1);
	put64(si + SI_CMDLINE_PADDR, PVH_CMDLINE);
	put64(si + SI_RSDP_PADDR, rsdp);
	struct e820_entry map[E820_MAX_ENTRIES];
	unsigned entries = e820_map(pm->ram_size, map);
	for (unsigned i = 0; i < entries; i++) {
		/* The e820 types are start_info.h's XEN_HVM_MEMMAP_TYPE_* values. */
		uint8_t e[MEMMAP_ENTRY_SIZE] = { 0 };
		put64(e + MEMMAP_ADDR, map[i].base);
		put64(e + MEMMAP_SIZE, map[i].length);
		put32(e + MEMMAP_TYPE, map[i].type);
		physmem_write_bytes(pm, PVH_MEMMAP + i * MEMMAP_ENTRY_SIZE, e, sizeof(e));
	}
	put64(si + SI_MEMMAP_PADDR, PVH_MEMMAP);
	put32(si + SI_MEMMAP_ENTRIES, entries);
	if (module) {
		uint8_t m[MOD_ENTRY_SIZE] = { 0 };
		put64(m + MOD_PADDR, out->module_start);
		put64(m + MOD_SIZE, module_size);
		physmem_write_bytes(pm, PVH_MODLIST, m, sizeof(m));
		physmem_write_bytes(pm, out->module_start, module, module_size);
		put32(si + SI_NR_MODULES, 1);
		put64(si + SI_MODLIST_PADDR, PVH_MODLIST);
		out->module_end = out->module_start + module_size;
	}
	physmem_write_bytes(pm, PVH_START_INFO, si, sizeof(si));
	write_gdt(pm);
	physmem_write_bytes(pm, PVH_CMDLINE, cmdline, cmdline_len + 1);

	out->entry = entry;
	out->start_info = PVH_START_INFO;
	out->gdt_addr = PVH_GDT;
	out->gdt_limit = PVH_GDT_LIMIT;
	out->image_start = low;
	out->image_end = high;
	out->low_start = PVH_START_INFO;
	out->low_end = PVH_CMDLINE + cmdline_len + 1;
	return true;
}
