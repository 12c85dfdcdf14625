/* ACPI table builder; see devices/acpi.h. Section numbers are ACPI 6.0
 * Errata A's; offsets within a table are the spec's "Byte Offset" columns. */
#include "devices/acpi.h"

#include <string.h>

#define OEM_ID "HVEMU "            /* 6 bytes */
#define OEM_TABLE_ID "HVEMUPC "    /* 8 bytes */
#define CREATOR_ID "HVEM"
#define HEADER_SIZE 36

/* Table revisions of ACPI 6.0 Errata A. */
enum {
	RSDP_REVISION = 2, RSDT_REVISION = 1, XSDT_REVISION = 1, FADT_REVISION = 6,
	FADT_MINOR = 0, MADT_REVISION = 4, DSDT_REVISION = 2, HPET_REVISION = 1, FACS_VERSION = 2,
};

/* Sizes: RSDP 5.2.5.3, FADT 5.2.9 (Table 5-34), FACS 5.2.10 (Table 5-37). */
enum { RSDP_SIZE = 36, RSDP_V1_SIZE = 20, FADT_SIZE = 276, FACS_SIZE = 64, HPET_SIZE = 56,
       MCFG_SIZE = 60, MCFG_REVISION = 1 };

/* A cursor over the output buffer that refuses to run past its end. */
struct out {
	uint8_t *buf;
	size_t cap, pos;
	bool full;
};

static uint32_t take(struct out *o, size_t len, size_t align)
{
	size_t at = (o->pos + align - 1) & ~(align - 1);
	if (at > o->cap || len > o->cap - at) {
		o->full = true;
		return 0;
	}
	o->pos = at + len;
	return (uint32_t)at;
}

static void put8(uint8_t *p, unsigned off, uint8_t v) { p[off] = v; }
static void put16(uint8_t *p, unsigned off, uint16_t v)
{
	p[off] = (uint8_t)v;
	p[off + 1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, unsigned off, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		p[off + i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, unsigned off, uint64_t v)
{
	put32(p, off, (uint32_t)v);
	put32(p, off + 4, (uint32_t)(v >> 32));
}

uint8_t acpi_checksum(const uint8_t *p, size_t len)
{
	uint8_t sum = 0;
	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + p[i]);
	return sum;
}

/* 5.2.6 System Description Table Header; the checksum is set by finish(). */
static void header(uint8_t *t, const char sig[4], uint32_t len, uint8_t rev)
{
	memcpy(t, sig, 4);
	put32(t, 4, len);
	put8(t, 8, rev);
	memcpy(t + 10, OEM_ID, 6);
	memcpy(t + 16, OEM_TABLE_ID, 8);
	put32(t, 24, 1);                  /* OEM revision */
	memcpy(t + 28, CREATOR_ID, 4);
	put32(t, 32, 1);                  /* creator revision */
}

/* "the entire table, including the checksum field, must add to zero" */
static void finish(uint8_t *t, uint32_t len)
{
	t[9] = 0;
	t[9] = (uint8_t)(0 - acpi_checksum(t, len));
}

/* 5.2.3.2 Generic Address Structure: space, bit width, bit offset, access
 * size (1 = byte), address. */
static void gas(uint8_t *p, unsigned off, uint8_t space, uint8_t width, uint8_t access, uint64_t addr)
{
	put8(p, off, space);
	put8(p, off + 1, width);
	put8(p, off + 2, 0);
	put8(p, off + 3, access);
	put64(p, off + 4, addr);
}
enum { GAS_MEMORY = 0, GAS_SYSTEM_IO = 1, GAS_ACCESS_BYTE = 1 };

/* 5.2.10 FACS: no hardware signature, no waking vector, global lock free. */
static void build_facs(uint8_t *t)
{
	memcpy(t, "FACS", 4);
	put32(t, 4, FACS_SIZE);
	put8(t, 32, FACS_VERSION);
}

/* 5.2.11.1 DSDT. With PM1 control hardware: Name (_S5, Package (4)
 * {slp_typ, slp_typ, 0, 0}), the SLP_TYPa/SLP_TYPb values that put the machine
 * in S5 (7.3.4.5 "\_S5 (S5 Soft Off)"), in AML (ACPI 6.0 20.2.5.1 DefName,
 * 20.2.5.4 DefPackage, 20.2.4 PkgLength; a byte constant 0 or 1 is ZeroOp or
 * OneOp, else BytePrefix). */
enum { AML_ZERO = 0x00, AML_ONE = 0x01, AML_BYTE = 0x0a, AML_NAME = 0x08, AML_PACKAGE = 0x12,
       AML_BUFFER = 0x11, AML_EXT = 0x5b, AML_DEVICE = 0x82 };
#define PCI_MEM_END 0xfebfffffu          /* below the I/O APIC at FEC00000h */

static unsigned aml_byte(uint8_t *p, unsigned o, uint8_t v)
{
	if (v <= 1) {
		p[o] = v ? AML_ONE : AML_ZERO;
		return o + 1;
	}
	p[o] = AML_BYTE;
	p[o + 1] = v;
	return o + 2;
}

/* PkgLength (20.2.4) for `body` bytes after it: one byte up to 63 in all,
 * else two (bits 3:0 in the lead byte, which says one more follows). */
static unsigned aml_pkg_length(uint8_t *p, unsigned o, unsigned body)
{
	if (body + 1 <= 63) {
		p[o] = (uint8_t)(body + 1);
		return o + 1;
	}
	unsigned len = body + 2;                 /* < 4096 here */
	p[o] = (uint8_t)(0x40 | (len & 0xf));
	p[o + 1] = (uint8_t)(len >> 4);
	return o + 2;
}

/* Resource descriptors (6.4): the root bridge's windows, each a producer
 * with fixed minimum and maximum (general flags 0Ch). */
enum { RES_WORD = 0x88, RES_DWORD = 0x87, RES_IO = 0x47, RES_END = 0x79,
       RES_MEMORY = 0, RES_IO_RANGE = 1, RES_BUS = 2, RES_FIXED_PRODUCER = 0x0c };

/* 6.4.3.5.3 Word Address Space Descriptor. */
static unsigned res_word(uint8_t *p, unsigned o, uint8_t type, uint8_t tflags, uint16_t min, uint16_t max)
{
	p[o] = RES_WORD;
	put16(p, o + 1, 13);
	p[o + 3] = type;
	p[o + 4] = RES_FIXED_PRODUCER;
	p[o + 5] = tflags;
	put16(p, o + 6, 0);                      /* granularity */
	put16(p, o + 8, min);
	put16(p, o + 10, max);
	put16(p, o + 12, 0);                     /* translation */
	put16(p, o + 14, (uint16_t)(max - min + 1));
	return o + 16;
}

/* 6.4.3.5.2 DWord Address Space Descriptor, memory: cacheable, read-write
 * (type-specific flags 03h, 6.4.3.5.5). */
static unsigned res_dword_memory(uint8_t *p, unsigned o, uint32_t min, uint32_t max)
{
	p[o] = RES_DWORD;
	put16(p, o + 1, 23);
	p[o + 3] = RES_MEMORY;
	p[o + 4] = RES_FIXED_PRODUCER;
	p[o + 5] = 0x03;
	put32(p, o + 6, 0);
	put32(p, o + 10, min);
	put32(p, o + 14, max);
	put32(p, o + 18, 0);
	put32(p, o + 22, max - min + 1);
	return o + 26;
}

/* The root bridge's _CRS: buses 0-FFh, the configuration ports CF8h-CFFh
 * it consumes (6.4.2.5 I/O Port Descriptor, 16-bit decode), the I/O space
 * around them (type-specific 03h: ISA and non-ISA ranges, 6.4.3.5.6), the
 * VGA window A0000h-BFFFFh and the addresses from the end of RAM to the I/O
 * APIC, then the end tag (6.4.2.9, checksum 0). */
static unsigned pci_crs(uint8_t *p, const struct acpi_machine *m)
{
	unsigned o = res_word(p, 0, RES_BUS, 0, 0x00, 0xff);
	static const uint8_t cfg_ports[] = { RES_IO, 0x01, 0xf8, 0x0c, 0xf8, 0x0c, 0x01, 0x08 };
	memcpy(p + o, cfg_ports, sizeof(cfg_ports));
	o += sizeof(cfg_ports);
	o = res_word(p, o, RES_IO_RANGE, 0x03, 0x0000, 0x0cf7);
	o = res_word(p, o, RES_IO_RANGE, 0x03, 0x0d00, 0xffff);
	o = res_dword_memory(p, o, 0x000a0000u, 0x000bffffu);
	if (m->pci_mem_start && m->pci_mem_start < PCI_MEM_END) {
		/* The ECAM window is the chipset's, not the bus's: the window
		 * stops below it and goes on above it. */
		uint32_t ecam_end = m->ecam_base + ECAM_SIZE - 1;
		if (m->ecam_base && m->pci_mem_start < m->ecam_base)
			o = res_dword_memory(p, o, m->pci_mem_start, m->ecam_base - 1);
		if (m->ecam_base && m->pci_mem_start <= ecam_end)
			o = res_dword_memory(p, o, ecam_end + 1, PCI_MEM_END);
		else
			o = res_dword_memory(p, o, m->pci_mem_start, PCI_MEM_END);
	}
	p[o++] = RES_END;
	p[o++] = 0;
	return o;
}

/* Name (_CRS, Buffer () { res }) at p + o (6.2.2 _CRS; 20.2.5.4 DefBuffer,
 * its BufferSize a ByteConst): returns the offset after it. What comes
 * before res takes at most AML_CRS_HEAD_MAX bytes (a two-byte PkgLength). */
enum { AML_CRS_HEAD_MAX = 10 };
static unsigned aml_crs(uint8_t *p, unsigned o, const uint8_t *res, unsigned len)
{
	p[o++] = AML_NAME;
	memcpy(p + o, "_CRS", 4);
	o += 4;
	p[o++] = AML_BUFFER;
	o = aml_pkg_length(p, o, 2 + len);
	p[o++] = AML_BYTE;
	p[o++] = (uint8_t)len;
	memcpy(p + o, res, len);
	return o + len;
}

/* Device () at t + o around body (20.2.5.2 DefDevice: ExtOpPrefix,
 * DeviceOp, PkgLength, then the name and the objects): returns the offset
 * after it. */
static unsigned aml_device(uint8_t *t, unsigned o, const uint8_t *body, unsigned len)
{
	t[o++] = AML_EXT;
	t[o++] = AML_DEVICE;
	o = aml_pkg_length(t, o, len);
	memcpy(t + o, body, len);
	return o + len;
}

/* Device (\_SB_.PCI0) { Name (_HID, EisaId ("PNP0A03")) Name (_UID, 0)
 * Name (_CRS, Buffer () {...}) }: the PCI root bridge (6.1.5 _HID, 6.1.12
 * _UID, 6.2.2 _CRS; 20.2.5.2 DefDevice, 20.2.5.4 DefBuffer, 20.2.2 a
 * NameString from the root with a DualNamePrefix). Without it an OS that
 * enumerates through ACPI finds no PCI bus. */
static unsigned aml_pci_root(uint8_t *t, unsigned o, const struct acpi_machine *m)
{
	uint8_t body[192], crs[144];
	unsigned crs_len = pci_crs(crs, m), b = 0;
	static const uint8_t name[] = { 0x5c, 0x2e, '_', 'S', 'B', '_', 'P', 'C', 'I', '0' };
	memcpy(body, name, sizeof(name));
	b += sizeof(name);
	/* EisaId ("PNP0A03") = 030AD041h, a PCI bus; with ECAM the bridge is a
	 * PCI Express root, PNP0A08, compatible with PNP0A03 (PCI Firmware 3.0
	 * 4.1.5: _HID PNP0A08 and _CID PNP0A03). */
	static const uint8_t hid_pci[] = { AML_NAME, '_', 'H', 'I', 'D', 0x0c, 0x41, 0xd0, 0x0a, 0x03 };
	static const uint8_t hid_pcie[] = { AML_NAME, '_', 'H', 'I', 'D', 0x0c, 0x41, 0xd0, 0x0a, 0x08,
					    AML_NAME, '_', 'C', 'I', 'D', 0x0c, 0x41, 0xd0, 0x0a, 0x03 };
	static const uint8_t uid[] = { AML_NAME, '_', 'U', 'I', 'D', AML_ZERO };
	if (m->ecam_base) {
		memcpy(body + b, hid_pcie, sizeof(hid_pcie));
		b += sizeof(hid_pcie);
	} else {
		memcpy(body + b, hid_pci, sizeof(hid_pci));
		b += sizeof(hid_pci);
	}
	memcpy(body + b, uid, sizeof(uid));
	b = aml_crs(body, b + sizeof(uid), crs, crs_len);
	return aml_device(t, o, body, b);
}

/* Device (\_SB_.ECAM) { Name (_HID, EisaId ("PNP0C02")) Name (_UID, 1)
 * Name (_CRS, ResourceTemplate () { Memory32Fixed (ReadWrite, ecam, size) }) }:
 * the ECAM window as a motherboard resource, which is where the PCI Firmware
 * Specification 3.0 (4.1.2) requires the MCFG's ranges to be reserved (an
 * E820 reservation is optional); without it an OS may refuse the window.
 * 6.4.3.4 32-bit Fixed Memory Range Descriptor. */
static unsigned aml_ecam_resource(uint8_t *t, unsigned o, const struct acpi_machine *m)
{
	static const uint8_t head[] = {
		0x5c, 0x2e, '_', 'S', 'B', '_', 'E', 'C', 'A', 'M',
		AML_NAME, '_', 'H', 'I', 'D', 0x0c, 0x41, 0xd0, 0x0c, 0x02,   /* EisaId ("PNP0C02") */
		AML_NAME, '_', 'U', 'I', 'D', AML_ONE,
	};
	uint8_t res[14] = { 0x86, 9, 0, 0x01 };  /* Memory32Fixed, length 9, read-write */
	put32(res, 4, m->ecam_base);
	put32(res, 8, ECAM_SIZE);
	res[12] = RES_END;                       /* end tag, checksum 0 */
	uint8_t body[sizeof(head) + AML_CRS_HEAD_MAX + sizeof(res)];
	memcpy(body, head, sizeof(head));
	unsigned b = aml_crs(body, sizeof(head), res, sizeof(res));
	return aml_device(t, o, body, b);
}

/* A legacy ISA device at the root: Device (\_SB_.name) { Name (_HID,
 * EisaId ("PNPxxyy")) [Name (_UID, uid)] Name (_CRS, ResourceTemplate ()
 * { IO (Decode16, port, port, 1, len)... IRQNoFlags () { irq } }) }. An OS
 * that enumerates through ACPI (Linux's PNP layer, SeaBIOS's check for a
 * PS/2 keyboard) finds the device and what it decodes here; the ports
 * (6.4.2.5 I/O Port Descriptor, 16-bit decode) and the edge-triggered ISA
 * IRQ (6.4.2.1 IRQ Descriptor without flags) are the machine's. */
struct isa_device {
	char name[4];
	uint8_t hid[2];            /* the product half of EisaId ("PNPxxyy"): xx, yy */
	int uid;                   /* -1: none */
	uint16_t port[2], len[2];  /* up to two port ranges (len 0: none) */
	uint8_t irq;
};

enum { RES_IRQ_NO_FLAGS = 0x22, ISA_DEVICE_MAX = 64 };

static unsigned aml_isa_device(uint8_t *t, unsigned o, const struct isa_device *d)
{
	uint8_t crs[24];
	unsigned c = 0;
	for (unsigned i = 0; i < 2 && d->len[i]; i++) {
		crs[c++] = RES_IO;
		crs[c++] = 0x01;                 /* 16-bit decode */
		put16(crs, c, d->port[i]);
		put16(crs, c + 2, d->port[i]);
		crs[c + 4] = 1;                  /* alignment */
		crs[c + 5] = (uint8_t)d->len[i];
		c += 6;
	}
	crs[c++] = RES_IRQ_NO_FLAGS;
	put16(crs, c, (uint16_t)(1u << d->irq));
	c += 2;
	crs[c++] = RES_END;
	crs[c++] = 0;

	uint8_t body[ISA_DEVICE_MAX];
	unsigned b = 0;
	static const uint8_t root_sb[] = { 0x5c, 0x2e, '_', 'S', 'B', '_' };
	memcpy(body, root_sb, sizeof(root_sb));
	b += sizeof(root_sb);
	memcpy(body + b, d->name, 4);
	b += 4;
	static const uint8_t hid[] = { AML_NAME, '_', 'H', 'I', 'D', 0x0c, 0x41, 0xd0 };  /* "PNP" */
	memcpy(body + b, hid, sizeof(hid));
	b += sizeof(hid);
	body[b++] = d->hid[0];
	body[b++] = d->hid[1];
	if (d->uid >= 0) {
		static const uint8_t uid[] = { AML_NAME, '_', 'U', 'I', 'D' };
		memcpy(body + b, uid, sizeof(uid));
		b = aml_byte(body, b + sizeof(uid), (uint8_t)d->uid);
	}
	b = aml_crs(body, b, crs, c);
	return aml_device(t, o, body, b);
}

/* The machine's legacy devices as the DSDT lists them (PNP IDs: Microsoft's
 * "Plug and Play ID" table, the ones QEMU's DSDT uses): the 8042 with its
 * keyboard (PNP0303: data 60h, command 64h, IRQ 1), COM1 (PNP0501: 3F8h-3FFh,
 * IRQ 4), the CMOS RTC (PNP0B00: 70h-71h, IRQ 8). */
static unsigned isa_devices(const struct acpi_machine *m, struct isa_device out[3])
{
	unsigned n = 0;
	if (m->i8042)
		out[n++] = (struct isa_device){ .name = "KBD_", .hid = { 0x03, 0x03 }, .uid = -1,
						.port = { 0x60, 0x64 }, .len = { 1, 1 }, .irq = 1 };
	if (m->legacy_devices)
		out[n++] = (struct isa_device){ .name = "COM1", .hid = { 0x05, 0x01 }, .uid = 1,
						.port = { 0x3f8 }, .len = { 8 }, .irq = 4 };
	if (m->rtc)
		out[n++] = (struct isa_device){ .name = "RTC_", .hid = { 0x0b, 0x00 }, .uid = -1,
						.port = { 0x70 }, .len = { 2 }, .irq = 8 };
	return n;
}

static unsigned dsdt_size(const struct acpi_machine *m)
{
	/* Room for the longest \_S5, the root bridge, the ECAM reservation and
	 * the ISA devices. */
	struct isa_device isa[3];
	return HEADER_SIZE + (m->pm_base ? 16 : 0) + (m->pci_root ? 230 : 0) + (m->ecam_base ? 64 : 0) +
	       isa_devices(m, isa) * (ISA_DEVICE_MAX + 4);
}

static void build_dsdt(uint8_t *t, const struct acpi_machine *m)
{
	unsigned o = HEADER_SIZE;
	if (m->pm_base) {
		t[o++] = AML_NAME;
		memcpy(t + o, "_S5_", 4);
		o += 4;
		t[o++] = AML_PACKAGE;
		unsigned len_at = o++;           /* PkgLength, one byte: < 64 */
		t[o++] = 4;                      /* NumElements */
		o = aml_byte(t, o, m->s5_slp_typ);
		o = aml_byte(t, o, m->s5_slp_typ);
		o = aml_byte(t, o, 0);
		o = aml_byte(t, o, 0);
		t[len_at] = (uint8_t)(o - len_at);
	}
	if (m->pci_root)
		o = aml_pci_root(t, o, m);
	if (m->ecam_base)
		o = aml_ecam_resource(t, o, m);
	struct isa_device isa[3];
	for (unsigned i = 0, n = isa_devices(m, isa); i < n; i++)
		o = aml_isa_device(t, o, &isa[i]);
	header(t, "DSDT", o, DSDT_REVISION);
	finish(t, o);
}

/* 5.2.9 FADT flags (Table 5-35) and IA-PC boot architecture flags (Table 5-36). */
enum {
	FADT_WBINVD = 1u << 0, FADT_PROC_C1 = 1u << 2, FADT_PWR_BUTTON = 1u << 4,
	FADT_SLP_BUTTON = 1u << 5, FADT_FIX_RTC = 1u << 6, FADT_RESET_REG_SUP = 1u << 10,
	FADT_HEADLESS = 1u << 12,
	BOOT_LEGACY_DEVICES = 1u << 0, BOOT_8042 = 1u << 1, BOOT_VGA_NOT_PRESENT = 1u << 2,
	BOOT_MSI_NOT_SUPPORTED = 1u << 3, BOOT_CMOS_RTC_NOT_PRESENT = 1u << 5,
};

static void build_fadt(uint8_t *t, const struct acpi_machine *m, uint32_t facs, uint32_t dsdt)
{
	header(t, "FACP", FADT_SIZE, FADT_REVISION);
	put32(t, 36, facs);                      /* FIRMWARE_CTRL (X_FIRMWARE_CTRL stays 0) */
	put32(t, 40, dsdt);                      /* DSDT */
	put8(t, 45, 0);                          /* Preferred_PM_Profile: unspecified */
	put16(t, 46, m->sci_irq);                /* SCI_INT */
	/* SMI_CMD, ACPI_ENABLE/DISABLE (48-53) 0: no SMM, the machine is always in
	 * ACPI mode (5.2.9: SMI_CMD zero on a system without SMM; SCI_EN reads 1,
	 * devices/piix4_pm.h). No PM1b, PM2 or GPE1 blocks. */
	if (m->pm_base) {
		/* The PM1a event (status, enable: 4 bytes), PM1a control (2),
		 * PM timer (4) and GPE0 (status, enable: 4) blocks, in both the
		 * 32-bit and the Generic Address forms (5.2.9, Table 5-34;
		 * 4.8.3: PM1_EVT_LEN >= 4, PM1_CNT_LEN >= 2, PM_TMR_LEN 4). */
		const struct { unsigned blk, len, xblk; uint8_t off, size; } pm[] = {
			{ 56, 88, 148, 0x00, 4 },        /* PM1a_EVT_BLK */
			{ 64, 89, 172, 0x04, 2 },        /* PM1a_CNT_BLK */
			{ 76, 91, 208, 0x08, 4 },        /* PM_TMR_BLK */
			{ 80, 92, 220, m->gpe0_off, m->gpe0_len },   /* GPE0_BLK */
		};
		for (unsigned i = 0; i < sizeof(pm) / sizeof(pm[0]); i++) {
			if (!pm[i].size)          /* no GPE0 block */
				continue;
			put32(t, pm[i].blk, m->pm_base + pm[i].off);
			put8(t, pm[i].len, pm[i].size);
			gas(t, pm[i].xblk, GAS_SYSTEM_IO, (uint8_t)(8 * pm[i].size), 0,
			    m->pm_base + pm[i].off);
		}
	}
	put16(t, 96, 101);                       /* P_LVL2_LAT > 100: no C2 */
	put16(t, 98, 1001);                      /* P_LVL3_LAT > 1000: no C3 */
	put8(t, 108, m->rtc ? m->rtc_century : 0);   /* CENTURY */
	uint16_t boot = 0;
	if (m->legacy_devices)
		boot |= BOOT_LEGACY_DEVICES;
	if (m->i8042)
		boot |= BOOT_8042;
	if (!m->vga)
		boot |= BOOT_VGA_NOT_PRESENT;
	if (!m->lapic)
		boot |= BOOT_MSI_NOT_SUPPORTED;  /* MSIs are writes to a local APIC */
	if (!m->rtc)
		boot |= BOOT_CMOS_RTC_NOT_PRESENT;
	put16(t, 109, boot);                     /* IAPC_BOOT_ARCH */
	/* WBINVD works; C1 is HLT; no fixed power or sleep button; the RTC alarm
	 * is no fixed wake source; the reset register when there is one; headless
	 * without a display. TMR_VAL_EXT stays clear: the PM timer counts 24
	 * bits (5.2.9 Table 5-35, 4.8.3.3). */
	uint32_t flags = FADT_WBINVD | FADT_PROC_C1 | FADT_PWR_BUTTON | FADT_SLP_BUTTON | FADT_FIX_RTC;
	if (m->reset_port)
		flags |= FADT_RESET_REG_SUP;
	if (!m->vga)
		flags |= FADT_HEADLESS;
	put32(t, 112, flags);
	if (m->reset_port) {
		gas(t, 116, GAS_SYSTEM_IO, 8, GAS_ACCESS_BYTE, m->reset_port);   /* RESET_REG */
		put8(t, 128, m->reset_value);
	}
	put8(t, 131, FADT_MINOR);
	put64(t, 140, dsdt);                     /* X_DSDT */
	finish(t, FADT_SIZE);
}

/* 5.2.12 MADT and its interrupt controller structures (Table 5-45). */
enum {
	MADT_LAPIC = 0, MADT_IOAPIC = 1, MADT_ISO = 2, MADT_LAPIC_NMI = 4, MADT_X2APIC = 9,
	MADT_PCAT_COMPAT = 1u << 0, MADT_LAPIC_ENABLED = 1u << 0,
	LAPIC_LEN = 8, IOAPIC_LEN = 12, ISO_LEN = 10, LAPIC_NMI_LEN = 6, X2APIC_LEN = 16,
	X2APIC_FIRST_ID = 255,
	MPS_ACTIVE_HIGH = 1u << 0, MPS_LEVEL = 3u << 2,   /* MPS INTI flags, Table 5-50 */     /* 0xff is no APIC ID in a Processor Local APIC entry */
};

static uint32_t madt_size(const struct acpi_machine *m)
{
	uint32_t len = 44;
	for (unsigned i = 0; i < m->n_cpus; i++)
		len += i < X2APIC_FIRST_ID ? LAPIC_LEN : X2APIC_LEN;
	if (m->ioapic)
		len += IOAPIC_LEN + (m->irq0_on_gsi2 ? ISO_LEN : 0) + (m->pm_base ? ISO_LEN : 0);
	if (m->lint1_nmi)
		len += LAPIC_NMI_LEN;
	return len;
}

static void build_madt(uint8_t *t, const struct acpi_machine *m, uint32_t len)
{
	header(t, "APIC", len, MADT_REVISION);
	put32(t, 36, m->lapic_addr);
	put32(t, 40, m->pic ? MADT_PCAT_COMPAT : 0);
	unsigned o = 44;
	for (unsigned i = 0; i < m->n_cpus; i++) {
		if (i < X2APIC_FIRST_ID) {       /* 5.2.12.2: UID, APIC ID, flags */
			put8(t, o, MADT_LAPIC);
			put8(t, o + 1, LAPIC_LEN);
			put8(t, o + 2, (uint8_t)i);
			put8(t, o + 3, (uint8_t)i);
			put32(t, o + 4, MADT_LAPIC_ENABLED);
			o += LAPIC_LEN;
		} else {                         /* 5.2.12.12: x2APIC ID, flags, UID */
			put8(t, o, MADT_X2APIC);
			put8(t, o + 1, X2APIC_LEN);
			put32(t, o + 4, i);
			put32(t, o + 8, MADT_LAPIC_ENABLED);
			put32(t, o + 12, i);
			o += X2APIC_LEN;
		}
	}
	if (m->ioapic) {                         /* 5.2.12.3: ID, address, GSI base */
		put8(t, o, MADT_IOAPIC);
		put8(t, o + 1, IOAPIC_LEN);
		put8(t, o + 2, m->ioapic_id);
		put32(t, o + 4, m->ioapic_addr);
		put32(t, o + 8, 0);
		o += IOAPIC_LEN;
		if (m->irq0_on_gsi2) {           /* 5.2.12.5: ISA IRQ 0 -> GSI 2, conforms to the bus */
			put8(t, o, MADT_ISO);
			put8(t, o + 1, ISO_LEN);
			put8(t, o + 2, 0);       /* bus: ISA */
			put8(t, o + 3, 0);       /* source: IRQ 0 */
			put32(t, o + 4, 2);
			put16(t, o + 8, 0);
			o += ISO_LEN;
		}
		if (m->pm_base) {                /* 5.2.12.5, Table 5-50: the SCI, level, active high */
			put8(t, o, MADT_ISO);
			put8(t, o + 1, ISO_LEN);
			put8(t, o + 2, 0);
			put8(t, o + 3, m->sci_irq);
			put32(t, o + 4, m->sci_irq);
			put16(t, o + 8, MPS_ACTIVE_HIGH | MPS_LEVEL);
			o += ISO_LEN;
		}
	}
	if (m->lint1_nmi) {                      /* 5.2.12.7: all processors, LINT1 */
		put8(t, o, MADT_LAPIC_NMI);
		put8(t, o + 1, LAPIC_NMI_LEN);
		put8(t, o + 2, 0xff);
		put16(t, o + 3, 0);
		put8(t, o + 5, 1);
		o += LAPIC_NMI_LEN;
	}
	finish(t, len);
}

/* IA-PC HPET specification 1.0a, section 3.2.4, table 3. */
static void build_hpet(uint8_t *t, const struct acpi_machine *m)
{
	header(t, "HPET", HPET_SIZE, HPET_REVISION);
	put32(t, 36, m->hpet_block_id);
	gas(t, 40, GAS_MEMORY, 64, 0, m->hpet_addr);
	put8(t, 52, 0);                          /* HPET number */
	put16(t, 53, m->hpet_min_tick);
	put8(t, 55, 0);                          /* no page protection */
	finish(t, HPET_SIZE);
}

/* The MCFG (PCI Firmware Specification 3.0, 4.1.2, Tables 4-2 and 4-3):
 * after the header 8 reserved bytes, then one 16-byte allocation: the ECAM
 * base, PCI segment group 0, buses 0 to ECAM_SIZE's last. */
static void build_mcfg(uint8_t *t, const struct acpi_machine *m)
{
	header(t, "MCFG", MCFG_SIZE, MCFG_REVISION);
	put64(t, 44, m->ecam_base);
	put16(t, 52, 0);
	put8(t, 54, 0);
	put8(t, 55, (uint8_t)((ECAM_SIZE >> 20) - 1));
	finish(t, MCFG_SIZE);
}

/* 5.2.5.3 RSDP: the first 20 bytes (ACPI 1.0) and all 36 each sum to zero. */
static void build_rsdp(uint8_t *p, uint32_t rsdt, uint64_t xsdt)
{
	memcpy(p, "RSD PTR ", 8);
	memcpy(p + 9, OEM_ID, 6);
	put8(p, 15, RSDP_REVISION);
	put32(p, 16, rsdt);
	put32(p, 20, RSDP_SIZE);
	put64(p, 24, xsdt);
	p[8] = (uint8_t)(0 - acpi_checksum(p, RSDP_V1_SIZE));
	p[32] = (uint8_t)(0 - acpi_checksum(p, RSDP_SIZE));
}

size_t acpi_build(uint8_t *buf, size_t cap, uint32_t base, const struct acpi_machine *m,
		  struct acpi_layout *out)
{
	memset(out, 0, sizeof(*out));
	if (m->n_cpus == 0)
		return 0;
	memset(buf, 0, cap);
	struct out o = { .buf = buf, .cap = cap };
	uint32_t rsdp = take(&o, RSDP_SIZE, 16);     /* 5.2.5.1: 16-byte boundary */
	uint32_t facs = take(&o, FACS_SIZE, 64);     /* 5.2.10: 64-byte boundary */
	uint32_t dsdt = take(&o, dsdt_size(m), 16);
	uint32_t fadt = take(&o, FADT_SIZE, 16);
	uint32_t madt_len = m->lapic ? madt_size(m) : 0;
	uint32_t madt = m->lapic ? take(&o, madt_len, 16) : 0;
	uint32_t hpet = m->hpet ? take(&o, HPET_SIZE, 16) : 0;
	uint32_t mcfg = m->ecam_base ? take(&o, MCFG_SIZE, 16) : 0;
	unsigned n = 1 + (m->lapic ? 1 : 0) + (m->hpet ? 1 : 0) + (m->ecam_base ? 1 : 0);
	uint32_t rsdt = take(&o, HEADER_SIZE + 4 * n, 16);
	uint32_t xsdt = take(&o, HEADER_SIZE + 8 * n, 16);
	if (o.full)
		return 0;

	build_facs(buf + facs);
	build_dsdt(buf + dsdt, m);
	build_fadt(buf + fadt, m, base + facs, base + dsdt);
	uint32_t entries[4], k = 0;
	entries[k++] = base + fadt;
	if (m->lapic) {
		build_madt(buf + madt, m, madt_len);
		entries[k++] = base + madt;
	}
	if (m->hpet) {
		build_hpet(buf + hpet, m);
		entries[k++] = base + hpet;
	}
	if (m->ecam_base) {
		build_mcfg(buf + mcfg, m);
		entries[k++] = base + mcfg;
	}
	header(buf + rsdt, "RSDT", HEADER_SIZE + 4 * n, RSDT_REVISION);
	header(buf + xsdt, "XSDT", HEADER_SIZE + 8 * n, XSDT_REVISION);
	for (unsigned i = 0; i < n; i++) {
		put32(buf + rsdt, HEADER_SIZE + 4 * i, entries[i]);
		put64(buf + xsdt, HEADER_SIZE + 8 * i, entries[i]);
	}
	finish(buf + rsdt, HEADER_SIZE + 4 * n);
	finish(buf + xsdt, HEADER_SIZE + 8 * n);
	build_rsdp(buf + rsdp, base + rsdt, base + xsdt);

	*out = (struct acpi_layout){
		.rsdp = base + rsdp, .rsdt = base + rsdt, .xsdt = base + xsdt, .fadt = base + fadt,
		.facs = base + facs, .dsdt = base + dsdt, .madt = m->lapic ? base + madt : 0,
		.hpet = m->hpet ? base + hpet : 0, .mcfg = m->ecam_base ? base + mcfg : 0, .end = base + (uint32_t)o.pos,
	};
	return o.pos;
}
