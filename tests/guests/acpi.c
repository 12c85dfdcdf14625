/* The ACPI tables (ACPI 6.0): the RSDP found where an OS searches for it (a
 * 16-byte boundary in E0000H-FFFFFH, 5.2.5.1) with its checksums; the RSDT
 * (and, from revision 2, the XSDT listing the same tables); every table's
 * checksum; the FADT with its FACS and DSDT; the tables lying in memory the
 * memory map does not call available (15, "System Address Map"); and what the
 * tables say against the machine: a MADT exactly when CPUID reports a local
 * APIC, with one enabled processor per CPU (fw_cfg's CPU count), the I/O APIC
 * at FEC00000H and ISA IRQ 0 on GSI 2; an HPET table whose block ID is the
 * HPET's own capabilities register (IA-PC HPET 1.0a, 3.2.4); the FADT's reset
 * register and the IA-PC boot flags. */
#include "lib/guest.h"

static inline void outw(uint16_t p, uint16_t v) { __asm__ volatile("outw %0,%1" :: "a"(v), "Nd"(p)); }

static uint8_t sum(const uint8_t *p, uint32_t n)
{
	uint8_t s = 0;
	for (uint32_t i = 0; i < n; i++)
		s = (uint8_t)(s + p[i]);
	return s;
}

static const uint8_t *find_rsdp(void)
{
	for (uint32_t a = 0xe0000; a < 0x100000; a += 16)
		if (!gstrncmp((const char *)(uintptr_t)a, "RSD PTR ", 8) && !sum((const uint8_t *)(uintptr_t)a, 20))
			return (const uint8_t *)(uintptr_t)a;
	return 0;
}

/* 1 if [a, a+len) lies in no available (type 1) range of the memory map. */
static int not_available(uint32_t a, uint32_t len)
{
	if (!mb_info || !(mb_info->flags & (1u << 6)))
		return 1;
	const uint8_t *p = (const uint8_t *)(uintptr_t)mb_info->mmap_addr;
	for (uint32_t o = 0; o < mb_info->mmap_length; o += 4 + rd32(p, o)) {
		uint32_t base = rd32(p, o + 4), l = rd32(p, o + 12);
		if (rd32(p, o + 8) == 0 && rd32(p, o + 20) == 1 && a < base + l && base < a + len)
			return 0;
	}
	return 1;
}

static uint32_t cpuid_edx1(void)
{
	uint32_t a = 1, b, c = 0, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return d;
}

static uint32_t fw_cfg_cpus(void)
{
	outw(0x510, 0x0000);
	if (inb(0x511) != 'Q')
		return 0;
	outw(0x510, 0x0005);
	uint32_t n = inb(0x511);
	return n | (uint32_t)inb(0x511) << 8;
}

#define MAX_TABLES 16

/* An ISA device in the DSDT (ACPI 6.0 6.1.5 _HID, 6.2.2 _CRS): the first
 * I/O port (6.4.2.5) and IRQ (6.4.2.1) of the _CRS buffer after
 * Name (_HID, EisaId ("PNPxxyy")), found by its AML bytes (20.2.5.4
 * DefBuffer): Name (_CRS, Buffer) as hvemu and QEMU write it, or a
 * Method (_CRS) returning a named buffer as Bochs's DSDT has it. 0 when
 * found, with *port and *irq (-1 for none), else -1. */
static int isa_device(const uint8_t *dsdt, uint8_t xx, uint8_t yy, uint32_t *port, int *irq)
{
	uint32_t len = rd32(dsdt, 4);
	for (uint32_t o = 36; o + 10 <= len; o++) {
		if (dsdt[o] != 0x08 || gstrncmp((const char *)dsdt + o + 1, "_HID", 4) || dsdt[o + 5] != 0x0c ||
		    dsdt[o + 6] != 0x41 || dsdt[o + 7] != 0xd0 || dsdt[o + 8] != xx || dsdt[o + 9] != yy)
			continue;
		for (uint32_t c = o + 10; c + 8 <= len && c < o + 128; c++) {
			if (gstrncmp((const char *)dsdt + c, "_CRS", 4))
				continue;
			/* The buffer: DefBuffer, PkgLength, BufferSize (a byte or
			 * a word constant). */
			uint32_t p = c + 4;
			while (p + 4 < len && p < c + 32 &&
			       !(dsdt[p] == 0x11 && (dsdt[p + 2 + (dsdt[p + 1] >> 6)] & 0xfe) == 0x0a))
				p++;
			if (p >= c + 32 || p + 4 >= len)
				return -1;
			p += 1;
			p += 1 + (dsdt[p] >> 6);          /* PkgLength */
			p += dsdt[p] == 0x0a ? 2 : 3;     /* BufferSize */
			*port = 0;
			*irq = -1;
			while (p < len && dsdt[p] != 0x79 && !(dsdt[p] & 0x80)) {
				uint8_t tag = dsdt[p] >> 3, n = dsdt[p] & 7;
				if (tag == 8 && !*port)   /* I/O port: minimum at +2 */
					*port = (uint32_t)(dsdt[p + 2] | dsdt[p + 3] << 8);
				if (tag == 4 && *irq < 0) /* IRQ: the mask at +1 */
					for (int i = 0; i < 16; i++)
						if ((dsdt[p + 1] | dsdt[p + 2] << 8) & (1u << i)) {
							*irq = i;
							break;
						}
				p += 1u + n;
			}
			return 0;
		}
	}
	return -1;
}

void guest_main(void)
{
	const uint8_t *rsdp = find_rsdp();
	if (!rsdp)
		skip_all("no RSDP in E0000H-FFFFFH (no ACPI)");
	note("RSDP at 0x%x, revision %u", (uint32_t)(uintptr_t)rsdp, rsdp[15]);
	check("RSDP checksum (first 20 bytes)", sum(rsdp, 20), 0);
	if (rsdp[15] >= 2) {
		check("RSDP length 36", rd32(rsdp, 20), 36);
		check("RSDP extended checksum (36 bytes)", sum(rsdp, 36), 0);
	}
	const uint8_t *rsdt = (const uint8_t *)(uintptr_t)rd32(rsdp, 16);
	check("RSDT signature", (uint32_t)gstrncmp((const char *)rsdt, "RSDT", 4), 0);
	check("RSDT checksum", sum(rsdt, rd32(rsdt, 4)), 0);
	uint32_t n = (rd32(rsdt, 4) - 36) / 4;
	check_true("RSDT lists 1..16 tables", n >= 1 && n <= MAX_TABLES);
	if (n > MAX_TABLES)
		n = MAX_TABLES;
	uint32_t entries[MAX_TABLES];
	for (uint32_t i = 0; i < n; i++)
		entries[i] = rd32(rsdt, 36 + 4 * i);
	if (rsdp[15] >= 2) {
		const uint8_t *xsdt = (const uint8_t *)(uintptr_t)rd32(rsdp, 24);
		check("XSDT address below 4 GiB", rd32(rsdp, 28), 0);
		check("XSDT signature", (uint32_t)gstrncmp((const char *)xsdt, "XSDT", 4), 0);
		check("XSDT checksum", sum(xsdt, rd32(xsdt, 4)), 0);
		uint32_t same = (rd32(xsdt, 4) - 36) / 8 == n;
		for (uint32_t i = 0; same && i < n; i++)
			same = rd32(xsdt, 36 + 8 * i) == entries[i] && rd32(xsdt, 40 + 8 * i) == 0;
		check_true("XSDT lists the RSDT's tables", same);
	} else {
		skip("XSDT", "RSDP revision %u (ACPI 1.0): no XSDT", rsdp[15]);
	}
	check_true("RSDP and RSDT in memory the map does not call available",
		   not_available((uint32_t)(uintptr_t)rsdp, 20) && not_available((uint32_t)(uintptr_t)rsdt, rd32(rsdt, 4)));

	const uint8_t *fadt = 0, *madt = 0, *hpet = 0;
	uint32_t sums_ok = 1, placed_ok = 1;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *t = (const uint8_t *)(uintptr_t)entries[i];
		note("  %c%c%c%c at 0x%x, %u bytes, revision %u", t[0], t[1], t[2], t[3], entries[i], rd32(t, 4), t[8]);
		if (sum(t, rd32(t, 4)))
			sums_ok = 0;
		if (!not_available(entries[i], rd32(t, 4)))
			placed_ok = 0;
		if (!gstrncmp((const char *)t, "FACP", 4))
			fadt = t;
		if (!gstrncmp((const char *)t, "APIC", 4))
			madt = t;
		if (!gstrncmp((const char *)t, "HPET", 4))
			hpet = t;
	}
	check_true("every listed table's checksum", sums_ok);
	check_true("every table in memory the map does not call available", placed_ok);

	/* FADT (5.2.9): FACS (64-byte aligned, 5.2.10) and DSDT. */
	check_true("FADT present", fadt != 0);
	if (fadt) {
		const uint8_t *facs = (const uint8_t *)(uintptr_t)rd32(fadt, 36);
		const uint8_t *dsdt = (const uint8_t *)(uintptr_t)rd32(fadt, 40);
		if (rd32(fadt, 4) >= 148 && rd32(fadt, 140))
			dsdt = (const uint8_t *)(uintptr_t)rd32(fadt, 140);    /* X_DSDT */
		check("FACS signature", (uint32_t)gstrncmp((const char *)facs, "FACS", 4), 0);
		check("FACS 64-byte aligned", (uint32_t)(uintptr_t)facs & 63, 0);
		check("DSDT signature", (uint32_t)gstrncmp((const char *)dsdt, "DSDT", 4), 0);
		check("DSDT checksum", sum(dsdt, rd32(dsdt, 4)), 0);
		if (rd32(fadt, 4) >= 129 && (rd32(fadt, 112) & (1u << 10))) {
			/* RESET_REG_SUP: the register must be a byte in I/O space here,
			 * 0xCF9 with 06H on both hvemu and QEMU (PIIX). */
			check("FADT reset register in system I/O space", fadt[116], 1);
			check("FADT reset register 0xCF9", rd32(fadt, 120), 0xcf9);
			check("FADT reset value 06H (hard reset)", fadt[128], 6);
		} else {
			skip("FADT reset register", "FADT revision %u without RESET_REG_SUP", fadt[8]);
		}
		if (fadt[8] >= 2) {
			uint16_t boot = (uint16_t)(fadt[109] | fadt[110] << 8);
			note("IAPC_BOOT_ARCH 0x%x", boot);
			check("IAPC_BOOT_ARCH: legacy devices (COM1)", boot & 1, 1);
			check("IAPC_BOOT_ARCH: MSI not supported exactly without a local APIC", (boot >> 3) & 1,
			      !(cpuid_edx1() & (1u << 9)));
		}
		/* The legacy devices an OS enumerates through the DSDT (PNP IDs),
		 * each with the ports and ISA IRQ it decodes. */
		static const struct { const char *name; uint8_t xx, yy; uint32_t port; int irq; } isa[] = {
			{ "DSDT: the 8042 keyboard (PNP0303) at 60h, IRQ 1", 0x03, 0x03, 0x60, 1 },
			{ "DSDT: COM1 (PNP0501) at 3F8h, IRQ 4", 0x05, 0x01, 0x3f8, 4 },
			{ "DSDT: the CMOS RTC (PNP0B00) at 70h, IRQ 8", 0x0b, 0x00, 0x70, 8 },
		};
		for (unsigned i = 0; i < sizeof(isa) / sizeof(isa[0]); i++) {
			uint32_t port;
			int irq;
			check_true(isa[i].name, isa_device(dsdt, isa[i].xx, isa[i].yy, &port, &irq) == 0 &&
					 port == isa[i].port && irq == isa[i].irq);
		}
	}

	/* MADT (5.2.12) exactly when the CPU has a local APIC (CPUID.1:EDX[9]). */
	uint32_t apic = (cpuid_edx1() >> 9) & 1;
	check("MADT present exactly when CPUID reports a local APIC", madt != 0, apic);
	if (madt) {
		uint32_t len = rd32(madt, 4), cpus = 0, ioapic = 0, iso0 = 0;
		note("MADT: local APIC at 0x%x, flags 0x%x", rd32(madt, 36), rd32(madt, 40));
		check("MADT local APIC address", rd32(madt, 36), 0xfee00000u);
		for (uint32_t o = 44; o + 2 <= len && madt[o + 1]; o += madt[o + 1]) {
			const uint8_t *e = madt + o;
			if (e[0] == 0 && (rd32(e, 4) & 1))
				cpus++;
			if (e[0] == 9 && (rd32(e, 8) & 1))
				cpus++;
			if (e[0] == 1 && rd32(e, 4) == 0xfec00000u && rd32(e, 8) == 0)
				ioapic++;
			if (e[0] == 2 && e[2] == 0 && e[3] == 0 && rd32(e, 4) == 2)
				iso0++;
		}
		uint32_t fw = fw_cfg_cpus();
		if (fw)
			check("MADT processors = fw_cfg's CPU count", cpus, fw);
		else
			check_true("MADT lists a processor", cpus >= 1);
		check("MADT: the I/O APIC at FEC00000H, GSI base 0", ioapic, 1);
		check("MADT: ISA IRQ 0 -> GSI 2", iso0, 1);
	}
	/* HPET table: its block ID is the HPET's capabilities register. */
	if (hpet) {
		uint32_t base = rd32(hpet, 44);
		check("HPET table: memory space", hpet[40], 0);
		check("HPET table: block ID = the HPET's GCAP_ID bits 31:0", rd32(hpet, 36),
		      *(volatile uint32_t *)(uintptr_t)base);
	} else {
		volatile uint32_t *gcap = (volatile uint32_t *)0xfed00000u;
		check("no HPET table and no HPET at FED00000H", *gcap == 0xffffffffu || *gcap == 0, 1);
	}
}
