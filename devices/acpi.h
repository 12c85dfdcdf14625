/* ACPI tables describing hvemu's machine (ACPI 6.0 Errata A), built at start-up
 * from the machine's own description (struct acpi_machine), so they stay true
 * as devices come and go:
 *   RSDP (revision 2) at a 16-byte boundary in the BIOS area 0xE0000-0xFFFFF,
 *     where ACPI 6.0 5.2.5.1 lets the OS search for it;
 *   RSDT and XSDT listing FADT, then MADT and HPET when the machine has them;
 *   FADT (revision 6): the PM1a event and control blocks, the PM timer and
 *     GPE0 of the machine's ACPI PM hardware (pm_base, or all absent, zero),
 *     SCI_INT, no SMI_CMD (always in ACPI mode), the reset register
 *     (system I/O, e.g. 0xCF9 with value 06h), IA-PC boot architecture flags
 *     from the machine (legacy devices, 8042, VGA, CMOS RTC, MSI), C1 through
 *     HLT only; FACS (version 2, no waking vector) and a DSDT holding \_S5
 *     (with PM hardware), the PCI root bridge \_SB.PCI0 (PNP0A03, its
 *     bus, I/O and memory windows in _CRS) and the legacy devices with the
 *     ports and ISA IRQ each decodes: \_SB.KBD (PNP0303, the 8042), \_SB.COM1
 *     (PNP0501) and \_SB.RTC (PNP0B00), as the machine has them;
 *   MADT (revision 4), only with local APICs: one Processor Local APIC entry per
 *     CPU (x2APIC entries for IDs from 255), the I/O APIC, the interrupt source
 *     override of ISA IRQ 0 onto GSI 2 and that of the SCI (level, active
 *     high) with PM hardware, the LINT1 NMI entry, PCAT_COMPAT with
 *     the 8259 pair;
 *   HPET (IA-PC HPET specification 1.0a, table 3), only with an HPET;
 *   MCFG (PCI Firmware Specification 3.0, 4.1.2), only with a PCIe ECAM window.
 * All of them lie in ACPI_AREA_BASE..+ACPI_AREA_SIZE, inside the BIOS area the
 * memory map reports reserved (devices/e820.h). */
#ifndef HVEMU_DEVICES_ACPI_H
#define HVEMU_DEVICES_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACPI_AREA_BASE 0xf0000u
#define ACPI_AREA_SIZE 0x10000u
#define ECAM_SIZE 0x10000000u      /* 256 buses of 1 MiB (PCIe 3.0 7.2.2) */

struct acpi_machine {
	unsigned n_cpus;           /* processors, local APIC IDs 0 .. n_cpus-1 (at least 1) */
	bool lapic;                /* local APICs exist (at lapic_addr): MADT */
	uint32_t lapic_addr;
	bool lint1_nmi;            /* each local APIC's LINT1 is wired to NMI */
	bool ioapic;
	uint8_t ioapic_id;
	uint32_t ioapic_addr;      /* GSI base 0 */
	bool irq0_on_gsi2;         /* ISA IRQ 0 reaches the I/O APIC at pin 2 */
	bool pic;                  /* a dual 8259 (MADT PCAT_COMPAT) */
	bool hpet;
	uint32_t hpet_addr;
	uint32_t hpet_block_id;    /* the HPET's capabilities register, bits 31:0 */
	uint16_t hpet_min_tick;    /* main counter ticks a periodic timer may be set to */
	bool legacy_devices;       /* ISA devices (COM1, ...): IAPC_BOOT_ARCH bit 0 */
	bool i8042;                /* a keyboard controller: bit 1 */
	bool vga;                  /* VGA present (bit 2 "VGA Not Present" is its inverse) */
	bool rtc;                  /* CMOS RTC present (bit 5 "CMOS RTC Not Present") */
	uint8_t rtc_century;       /* CMOS index of the century, 0: none */
	uint16_t reset_port;       /* FADT RESET_REG in system I/O space, 0: none */
	uint8_t reset_value;
	uint8_t sci_irq;           /* FADT SCI_INT */
	/* The PM1a event block's I/O base, 0: no ACPI PM hardware. Then PM1a_CNT
	 * at +4, the PM timer at +8 (devices/acpi_pm.h), GPE0 where the
	 * chipset has it; the MADT declares sci_irq level, active high. */
	uint16_t pm_base;
	uint8_t gpe0_off, gpe0_len;   /* GPE0_BLK at pm_base + gpe0_off, GPE0_BLK_LEN bytes (0: none) */
	uint8_t s5_slp_typ;        /* PM1_CNT SLP_TYP for S5 (the DSDT's \_S5) */
	/* A PCIe ECAM window of ECAM_SIZE (buses 0-FFh) at ecam_base, 0: none.
	 * Then an MCFG, the root bridge is PNP0A08 and a PNP0C02 device
	 * reserves the window (\_SB.ECAM). */
	uint32_t ecam_base;
	bool pci_root;             /* a PCI host bridge: the DSDT's \_SB.PCI0 */
	uint32_t pci_mem_start;    /* its memory window from here to FEBFFFFFh (0: none) */
};

/* Where acpi_build put each table (0: not built). */
struct acpi_layout {
	uint32_t rsdp, rsdt, xsdt, fadt, facs, dsdt, madt, hpet, mcfg;
	uint32_t end;
};

/* Build the tables for machine m as they will lie at guest-physical base
 * (16-byte aligned) into buf[0..cap), zero-filled first. Returns the bytes
 * used, or 0 if cap is too small (or m has no CPU). */
size_t acpi_build(uint8_t *buf, size_t cap, uint32_t base, const struct acpi_machine *m,
		  struct acpi_layout *out);

/* The 8-bit sum of len bytes (0 for a table whose checksum is right). */
uint8_t acpi_checksum(const uint8_t *p, size_t len);

#endif
