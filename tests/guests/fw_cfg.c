/* QEMU's fw_cfg device through its x86 ports (QEMU docs/specs/fw_cfg.rst):
 * selector 0x510 (16-bit writes), data 0x511 (byte reads). The signature
 * "QEMU", the feature bitmap (traditional interface; DMA only with the DMA
 * signature at 0x514), the CPU count against the maximum and the MADT, the RAM
 * size against the multiboot memory information, the file directory (count,
 * sorted names, sizes, keys) and "etc/e820" read through it, reads past the
 * end of an item (0), and re-selecting (offset 0). */
#include "lib/guest.h"

#define FW_CFG_SELECTOR 0x510
#define FW_CFG_DATA 0x511
#define FW_CFG_DMA 0x514

static inline void outw(uint16_t p, uint16_t v) { __asm__ volatile("outw %0,%1" :: "a"(v), "Nd"(p)); }
static inline uint32_t inl(uint16_t p) { uint32_t v; __asm__ volatile("inl %1,%0" : "=a"(v) : "Nd"(p)); return v; }

static void select(uint16_t key) { outw(FW_CFG_SELECTOR, key); }
static void read_bytes(void *dst, uint32_t n)
{
	uint8_t *d = dst;
	for (uint32_t i = 0; i < n; i++)
		d[i] = inb(FW_CFG_DATA);
}
static uint32_t read_le(unsigned n)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint32_t)inb(FW_CFG_DATA) << (8 * i);
	return v;
}
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

/* Enabled processors in the MADT (ACPI 6.0 5.2.12), or -1 without one. */
static int madt_cpus(void)
{
	for (uint32_t a = 0xe0000; a < 0x100000; a += 16) {
		const char *p = (const char *)(uintptr_t)a;
		if (gstrncmp(p, "RSD PTR ", 8))
			continue;
		const uint8_t *rsdt = (const uint8_t *)(uintptr_t)rd32((const uint8_t *)p, 16);
		for (uint32_t o = 36; o < rd32(rsdt, 4); o += 4) {
			const uint8_t *t = (const uint8_t *)(uintptr_t)rd32(rsdt, o);
			if (gstrncmp((const char *)t, "APIC", 4))
				continue;
			int n = 0;
			for (uint32_t e = 44; e < rd32(t, 4) && t[e + 1]; e += t[e + 1])
				if ((t[e] == 0 && (rd32(t, e + 4) & 1)) || (t[e] == 9 && (rd32(t, e + 8) & 1)))
					n++;
			return n;
		}
		return -1;
	}
	return -1;
}

void guest_main(void)
{
	char sig[5] = { 0 };
	select(0x0000);
	read_bytes(sig, 4);
	if (gstrncmp(sig, "QEMU", 4))
		skip_all("no fw_cfg device (signature '%c%c%c%c')", sig[0], sig[1], sig[2], sig[3]);
	check("signature \"QEMU\"", (uint32_t)gstrncmp(sig, "QEMU", 4), 0);
	check("reading past the end of an item returns 0", inb(FW_CFG_DATA), 0);
	select(0x0000);
	check("re-selecting starts at offset 0", inb(FW_CFG_DATA), 'Q');

	select(0x0001);
	uint32_t id = read_le(4);
	check("ID: traditional interface (bit 0)", id & 1, 1);
	/* fw_cfg.rst: with the DMA interface, reading the DMA address register
	 * returns "QEMU CFG" (big-endian); without, the feature bit is clear. */
	uint32_t dma_hi = inl(FW_CFG_DMA);
	check("ID bit 1 (DMA) matches the DMA signature at 0x514", (id >> 1) & 1,
	      dma_hi == 0x554d4551u || dma_hi == 0x51454d55u);   /* "QEMU", either byte order */
	note("fw_cfg ID 0x%x", id);

	select(0x0005);
	uint32_t nb_cpus = read_le(2);
	select(0x000f);
	uint32_t max_cpus = read_le(2);
	note("NB_CPUS %u, MAX_CPUS %u", nb_cpus, max_cpus);
	check_true("NB_CPUS >= 1", nb_cpus >= 1);
	check_true("MAX_CPUS >= NB_CPUS", max_cpus >= nb_cpus);
	int madt = madt_cpus();
	if (madt >= 0)
		check("NB_CPUS = the enabled processors of the MADT", nb_cpus, (uint32_t)madt);
	else
		check("NB_CPUS = 1 without a MADT (a uniprocessor)", nb_cpus, 1);

	select(0x0003);
	uint32_t ram_lo = read_le(4), ram_hi = read_le(4);
	note("RAM_SIZE 0x%x%08x", ram_hi, ram_lo);
	check("RAM_SIZE below 4 GiB", ram_hi, 0);
	/* Multiboot 3.3: mem_upper is the memory from 1 MiB to the first hole.
	 * Without firmware that is all of RAM above 1 MiB; a firmware keeps its
	 * tables at the top of RAM (SeaBIOS: under 1 MiB of it), which its map,
	 * and so the option ROM's mem_upper, leaves out. */
	if (mb_info && (mb_info->flags & 1) && loaded_by_option_rom())
		check_true("RAM_SIZE - 1 MiB - mem_upper: the firmware's reservation, under 1 MiB",
			   ram_lo >= 0x100000 + mb_info->mem_upper * 1024 &&
			   ram_lo - 0x100000 - mb_info->mem_upper * 1024 < 0x100000);
	else if (mb_info && (mb_info->flags & 1))
		check("RAM_SIZE = 1 MiB + mem_upper", ram_lo, 0x100000 + mb_info->mem_upper * 1024);

	select(0x0019);
	uint8_t cnt[4];
	read_bytes(cnt, 4);
	uint32_t n = be32(cnt);
	note("%u files", n);
	check_true("file directory: 1..64 entries", n >= 1 && n <= 64);
	char prev[57] = { 0 };
	uint32_t sorted = 1, keys_ok = 1, e820_key = 0, e820_size = 0;
	for (uint32_t i = 0; i < n && i < 64; i++) {
		uint8_t e[64];
		read_bytes(e, 64);
		const char *name = (const char *)e + 8;
		uint16_t key = (uint16_t)(e[4] << 8 | e[5]);
		note("  0x%x %u %s", key, be32(e), name);
		if (i && gstrncmp(prev, name, 56) >= 0)
			sorted = 0;
		if (key < 0x20)
			keys_ok = 0;
		gmemcpy(prev, name, 56);
		if (!gstrncmp(name, "etc/e820", 9)) {
			e820_key = key;
			e820_size = be32(e);
		}
	}
	check_true("file names sorted (strcmp order)", sorted);
	check_true("file keys at FW_CFG_FILE_FIRST (0x20) or above", keys_ok);
	check_true("etc/e820 present", e820_key != 0);
	check("etc/e820 size a multiple of 20", e820_size % 20, 0);
	/* etc/e820 holds RAM from 1 MiB (QEMU's table has only the RAM QEMU
	 * gives the guest; hvemu's is the whole map). */
	uint32_t ram_at_1m = 0;
	select((uint16_t)e820_key);
	for (uint32_t o = 0; o + 20 <= e820_size && o < 20 * 16; o += 20) {
		uint32_t base = read_le(4), base_hi = read_le(4), len = read_le(4), len_hi = read_le(4);
		uint32_t type = read_le(4);
		note("  e820 0x%x%08x +0x%x%08x type %u", base_hi, base, len_hi, len, type);
		if (type == 1 && !base_hi && base <= 0x100000 && (len_hi || base + len > 0x100000))
			ram_at_1m = 1;
	}
	check_true("etc/e820 lists RAM at 1 MiB", ram_at_1m);
	check("past the end of etc/e820: 0", inb(FW_CFG_DATA), 0);
	/* A key past every item reads as an empty item. */
	select(0x3ff0);
	check("an unknown key reads 0", inb(FW_CFG_DATA), 0);
}
