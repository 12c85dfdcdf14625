/* The LPC interface bridge of the Intel ICH9 (PCI 00:1F.0), as QEMU's q35
 * machine has it, with the ACPI fixed hardware of its power management
 * (Intel I/O Controller Hub 9 Family datasheet 316972, "LPC Interface Bridge
 * Registers (D31:F0)" and "Power Management I/O Registers", cited by register
 * name; ACPI 6.0 4.8):
 *
 *   configuration: vendor 8086h, device 2918h, revision 02h, class 060100h
 *     (ISA bridge), header type 80h (multi-function); PMBASE at 40h (bits
 *     15:7 the base of 128 I/O bytes, bit 0 reads 1: I/O space) and ACPI_CNTL
 *     at 44h (bit 7 ACPI_EN: the block answers; bits 2:0 SCI_IRQ_SEL, 000b
 *     IRQ 9). No firmware runs before an hvemu kernel, so the machine
 *     programs them as SeaBIOS does under QEMU: PMBASE 0600h, ACPI_EN set.
 *     As with the PIIX4 (devices/piix4_pm.h), a write to PMBASE moves the
 *     block, ACPI_EN clear turns it off; the SCI stays on IRQ 9.
 *   I/O block (PMBASE+), devices/acpi_pm.h: 00h PM1_STS, 02h PM1_EN, 04h
 *     PM1_CNT (SLP_TYP 111b is S5, soft off: the DSDT's \_S5), 08h PM1_TMR
 *     (24 bits), 20h GPE0_STS and 28h GPE0_EN (64 bits each); 30h SMI_EN
 *     reads APMC_EN (bit 5) set and ignores writes: there is no SMM, and
 *     firmware that finds APMC_EN set takes SMM as set up already and does
 *     not raise an SMI through APM_CNT (B2h) and wait for its answer, as
 *     under QEMU without SMM; PROC_CNT, SMI_STS and the rest read their
 *     reset value 0.
 *   The reset control register at CF9h is the PIIX's too (devices/reset.h). */
#ifndef HVEMU_DEVICES_ICH9_LPC_H
#define HVEMU_DEVICES_ICH9_LPC_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/acpi_pm.h"
#include "devices/bus.h"
#include "devices/pci.h"

#define ICH9_PM_BASE 0x600         /* PMBASE as the machine programs it */
#define ICH9_PM_SIZE 128           /* ICH9 datasheet, PMBASE: 128 bytes of I/O */
#define ICH9_PM_SCI_IRQ 9          /* ACPI_CNTL SCI_IRQ_SEL 000b */
#define ICH9_SLP_TYP_SOFT_OFF 7    /* ICH9 datasheet, PM1_CNT SLP_TYP 111b: S5 */
#define ICH9_GPE0 0x20             /* GPE0_STS, then GPE0_EN at 28h */
#define ICH9_GPE0_HALF 8
#define ICH9_SMI_EN 0x30           /* ICH9 datasheet, SMI_EN */
#define ICH9_SMI_EN_APMC_EN (1u << 5)

/* Configuration registers (ICH9 datasheet, D31:F0 PMBASE, ACPI_CNTL). */
enum { ICH9_PMBASE = 0x40, ICH9_ACPI_CNTL = 0x44, ICH9_ACPI_EN = 1u << 7 };

struct ich9_lpc {
	struct acpi_pm acpi;       /* the PM I/O block's registers */
	struct pci_function *fn;   /* 00:1F.0: PMBASE and ACPI_CNTL live in its config */
};

/* Reset state (the timer counting from 0 at the clock's present tick). */
void ich9_lpc_init(struct ich9_lpc *l, struct vclock *clock, const struct power_control *power,
		   struct irq_line sci);
/* Add function 00:1F.0 to h, program PMBASE/ACPI_CNTL as firmware would, and
 * claim the PM I/O block on io. False on a clash. */
bool ich9_lpc_attach(struct ich9_lpc *l, struct pci_host *h, struct iobus *io);
/* PMBASE = 0600h with ACPI_EN, the block moved back there: what a direct
 * start finds, again after a reset. */
void ich9_lpc_program(struct ich9_lpc *l);

#endif
