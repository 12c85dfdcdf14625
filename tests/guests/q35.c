/* The q35 machine (hvemu --machine q35, QEMU's -M q35): the Q35 host bridge's
 * PCI Express enhanced configuration window (PCIe 3.0 7.2.2, ECAM) as the MCFG
 * describes it (PCI Firmware Specification 3.0 4.1.2), the same configuration
 * space as mechanism #1 through it, and the ICH9 LPC bridge at 00:1F.0 whose
 * ACPI_EN switches its power-management block (ICH9 datasheet 316972, D31:F0
 * PMBASE, ACPI_CNTL; Intel 3 Series datasheet 316966, D0:F0 PCIEXBAR). On a
 * machine without an MCFG (the pc machine) it skips. */
#include "lib/acpi_tables.h"
#include "lib/guest.h"

static inline void outl(uint16_t p, uint32_t v) { __asm__ volatile("outl %0,%1" :: "a"(v), "Nd"(p)); }
static inline uint32_t inl(uint16_t p) { uint32_t v; __asm__ volatile("inl %1,%0" : "=a"(v) : "Nd"(p)); return v; }

static uint32_t cf8_read(unsigned bus, unsigned dev, unsigned fn, unsigned reg)
{
	outl(0xcf8, 0x80000000u | bus << 16 | dev << 11 | fn << 8 | (reg & 0xfc));
	return inl(0xcfc);
}

static uint32_t ecam_base;

/* PCIe 3.0 Table 7-1: bus at address bit 20, device at 15, function at 12. */
static volatile uint8_t *ecam(unsigned bus, unsigned dev, unsigned fn, unsigned reg)
{
	return (volatile uint8_t *)(uintptr_t)(ecam_base + (bus << 20 | dev << 15 | fn << 12 | reg));
}
static uint32_t ecam_read(unsigned bus, unsigned dev, unsigned fn, unsigned reg)
{
	return *(volatile uint32_t *)ecam(bus, dev, fn, reg);
}

/* A DSDT byte sequence, as the AML of an EisaId: 0Ch then the 4 bytes. */
static int dsdt_has(const uint8_t *dsdt, const uint8_t *pat, uint32_t n)
{
	for (uint32_t o = 36; o + n <= rd32(dsdt, 4); o++)
		if (!gstrncmp((const char *)dsdt + o, (const char *)pat, n))
			return 1;
	return 0;
}

void guest_main(void)
{
	const uint8_t *mcfg = acpi_find_table("MCFG");
	if (!mcfg)
		skip_all("no MCFG table: not a q35 machine");
	/* PCI Firmware 3.0 Table 4-2: 36-byte header, 8 reserved, then 16-byte
	 * allocations: base (8), segment (2), start bus, end bus, reserved (4). */
	check("MCFG checksum", acpi_sum(mcfg, rd32(mcfg, 4)), 0);
	check("MCFG holds one allocation", rd32(mcfg, 4), 60);
	ecam_base = rd32(mcfg, 44);
	check("ECAM base below 4 GiB", rd32(mcfg, 48), 0);
	check("PCI segment group 0", rd16(mcfg, 52), 0);
	check("start bus 0", mcfg[54], 0);
	unsigned end_bus = mcfg[55];
	note("ECAM at 0x%x, buses 0-%u", ecam_base, end_bus);
	check("the base is aligned to the window (PCIe 3.0 7.2.2)", ecam_base & ((end_bus + 1) * 0x100000u - 1), 0);

	/* The host bridge (Q35 MCH) and PCIEXBAR, which says the same. */
	check("00:00.0 vendor/device: Q35 MCH 8086:29C0", cf8_read(0, 0, 0, 0), 0x29c08086u);
	check("00:00.0 class 060000 (host bridge)", cf8_read(0, 0, 0, 8) >> 8, 0x060000);
	uint32_t bar = cf8_read(0, 0, 0, 0x60);
	check("PCIEXBAR: PCIEXBAREN", bar & 1, 1);
	check("PCIEXBAR: the MCFG's base", bar & 0xf0000000u, ecam_base);
	check("PCIEXBAR: LENGTH 00b for 256 buses", (bar >> 1) & 3, end_bus == 255 ? 0 : (end_bus == 127 ? 1 : 2));

	/* ECAM and mechanism #1 reach the same registers. */
	static const struct { uint8_t dev, fn; } fns[] = { { 0, 0 }, { 0x1f, 0 }, { 5, 0 }, { 0x1f, 7 } };
	for (unsigned i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		for (unsigned reg = 0; reg < 0x10; reg += 4)
			check("ECAM reads what CF8h/CFCh reads", ecam_read(0, fns[i].dev, fns[i].fn, reg),
			      cf8_read(0, fns[i].dev, fns[i].fn, reg));
	check("ECAM: an absent function reads all ones", ecam_read(0, 5, 0, 0), 0xffffffffu);
	check("ECAM: bus 1 (no bridge leads there) reads all ones", ecam_read(1, 0, 0, 0), 0xffffffffu);
	check("ECAM byte read", *ecam(0, 0, 0, 3), 0x29);
	check("ECAM word read", *(volatile uint16_t *)ecam(0, 0x1f, 0, 2), 0x2918);

	/* The ICH9 LPC bridge. */
	check("00:1F.0 vendor/device: ICH9 LPC 8086:2918", ecam_read(0, 0x1f, 0, 0), 0x29188086u);
	check("00:1F.0 class 0601 (ISA bridge)", ecam_read(0, 0x1f, 0, 8) >> 16, 0x0601);
	check("00:1F.0 header type: multi-function", (ecam_read(0, 0x1f, 0, 0xc) >> 16) & 0x80, 0x80);
	uint32_t pmbase = ecam_read(0, 0x1f, 0, 0x40);
	check("PMBASE bit 0 reads 1: I/O space", pmbase & 1, 1);
	pmbase &= 0xff80;
	const uint8_t *fadt = acpi_find_table("FACP");
	if (!fadt)
		skip_all("no FADT");
	check("FADT PM1a_EVT_BLK is PMBASE", rd32(fadt, 56), pmbase);
	check("FADT PM_TMR_BLK is PMBASE+08h (ICH9 PM1_TMR)", rd32(fadt, 76), pmbase + 8);
	check("FADT GPE0_BLK is PMBASE+20h (ICH9 GPE0_STS)", rd32(fadt, 80), pmbase + 0x20);
	check("FADT GPE0_BLK_LEN 16: GPE0_STS and GPE0_EN, 64 bits each", fadt[92], 16);

	/* ACPI_CNTL's ACPI_EN decodes the PM block: off, the timer's port reads
	 * all ones; on again (written through ECAM), it counts. */
	uint16_t tmr = (uint16_t)(pmbase + 8);
	check("ACPI_CNTL: ACPI_EN set", *ecam(0, 0x1f, 0, 0x44) & 0x80, 0x80);
	uint8_t cntl = *ecam(0, 0x1f, 0, 0x44);
	*ecam(0, 0x1f, 0, 0x44) = (uint8_t)(cntl & ~0x80);
	check("ACPI_EN written 0 through ECAM reads 0 through CF8h", (cf8_read(0, 0x1f, 0, 0x44) >> 7) & 1, 0);
	check("with ACPI_EN clear the PM timer's port reads all ones", inl(tmr), 0xffffffffu);
	*ecam(0, 0x1f, 0, 0x44) = cntl;
	uint32_t t0 = inl(tmr), t1 = t0;
	for (unsigned i = 0; i < 100000 && t1 == t0; i++)
		t1 = inl(tmr);
	check("with ACPI_EN set again the PM timer's bits 31:24 read 0", t0 >> 24, 0);
	check_true("and it counts", t1 != t0);

	/* PCI Firmware 3.0 4.1.5: a PCI Express root bridge is PNP0A08. */
	static const uint8_t pnp0a08[] = { 0x0c, 0x41, 0xd0, 0x0a, 0x08 };
	const uint8_t *dsdt = (const uint8_t *)(uintptr_t)rd32(fadt, 40);
	check_true("the DSDT names a PCI Express root bridge (EisaId PNP0A08)", dsdt_has(dsdt, pnp0a08, 5));

	/* The window is not RAM: no multiboot memory map entry of type 1
	 * covers it. */
	if (mb_info && (mb_info->flags & (1u << 6))) {
		int overlap = 0;
		for (uint32_t o = 0; o < mb_info->mmap_length;) {
			const uint8_t *e = (const uint8_t *)(uintptr_t)(mb_info->mmap_addr + o);
			uint64_t base = rd32(e, 4) | (uint64_t)rd32(e, 8) << 32;
			uint64_t len = rd32(e, 12) | (uint64_t)rd32(e, 16) << 32;
			if (rd32(e, 20) == 1 && base < ecam_base + (end_bus + 1) * 0x100000ull && base + len > ecam_base)
				overlap = 1;
			o += rd32(e, 0) + 4;
		}
		check("no RAM in the memory map overlaps the ECAM window", overlap, 0);
	}
	tap_finish();
}
