/* The power-management function of the Intel 82371AB PIIX4 (PCI 00:01.3), as
 * QEMU's pc machine has it, with the ACPI fixed hardware it carries (Intel
 * 82371AB PIIX4 datasheet 290562-001, the power management function's PCI
 * configuration registers and its power management I/O registers, cited
 * below by register name; ACPI 6.0 4.8 "ACPI Hardware Model"):
 *
 *   configuration: vendor 8086h, device 7113h, revision 03h, class 068000h
 *     (bridge, other); PMBA at 40h (bits 15:6 the base of 64 I/O bytes, bit 0
 *     reads 1: I/O space) and PMREGMISC at 80h (bit 0 PMIOSE: the block
 *     answers). No firmware runs before an hvemu kernel, so the machine
 *     programs them itself, PMBA = 0600h with PMIOSE set, as SeaBIOS does
 *     under QEMU with its ACPI tables. A write to PMBA moves the block (a
 *     BIOS of its own, SeaBIOS without QEMU's tables, puts it at B000h);
 *     PMIOSE clear turns it off; a base that would overlap another device
 *     leaves it off until PMBA moves again.
 *   I/O block (PMBA+): the ACPI fixed hardware of devices/acpi_pm.h, PIIX4's
 *     registers by their datasheet names: 00h PMSTS (PM1_STS), 02h PMEN
 *     (PM1_EN), 04h PMCNTRL (PM1_CNT; SUS_TYP is SLP_TYP, SUS_EN is SLP_EN,
 *     SUS_TYP 000b soft off, the DSDT's \_S5), 08h PMTMR, 0Ch GPSTS and 0Eh
 *     GPEN (GPE0, two bytes each half); the rest (PCNTRL, GLBSTS, DEVSTS,
 *     GLBEN, GLBCTL, DEVCTL, GPIREG, GPOREG) reads its reset value 0.
 *   SCI: on ISA IRQ 9, which the MADT declares level-triggered, active high
 *   (devices/acpi.h). */
#ifndef HVEMU_DEVICES_PIIX4_PM_H
#define HVEMU_DEVICES_PIIX4_PM_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/acpi_pm.h"
#include "devices/bus.h"
#include "devices/pci.h"

#define PIIX4_DEVACTB 0x58          /* device activity B (PCI config) */
#define PIIX4_DEVACTB_APMC_EN_BYTE3 0x02   /* bit 25 APMC_EN, in byte 5Bh */
#define PIIX4_PM_BASE 0x600        /* PMBA as the machine programs it */
#define PIIX4_PM_SIZE 64           /* PIIX4 datasheet, PMBA: 64 bytes of I/O */
#define PIIX4_PM_SCI_IRQ 9
#define PIIX4_SLP_TYP_SOFT_OFF 0   /* PIIX4 datasheet, PMCNTRL SUS_TYP 000b: soft off */
#define PIIX4_GPE0 0x0c            /* GPSTS, then GPEN at 0Eh */

/* Configuration registers (PIIX4 datasheet, function 3: PMBA, PMREGMISC). */
enum { PIIX4_PMBA = 0x40, PIIX4_PMREGMISC = 0x80, PIIX4_PMIOSE = 1u << 0 };

struct piix4_pm {
	struct acpi_pm acpi;       /* the I/O block's registers */
	struct pci_function *fn;   /* 00:01.3: PMBA and PMREGMISC live in its config */
};

/* Reset state (the timer counting from 0 at the clock's present tick). */
void piix4_pm_init(struct piix4_pm *p, struct vclock *clock, const struct power_control *power,
		   struct irq_line sci);
/* Add function 00:01.3 to h, program PMBA/PMREGMISC as firmware would, and
 * claim the I/O block on io. False on a clash. */
bool piix4_pm_attach(struct piix4_pm *p, struct pci_host *h, struct iobus *io);
/* PMBA = 0600h with PMIOSE, the block moved back there: what a direct start
 * finds, again after a reset. */
void piix4_pm_program(struct piix4_pm *p);

#endif
