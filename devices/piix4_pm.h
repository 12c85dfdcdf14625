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
 *     programs them itself, PMBA = 0600h with PMIOSE set. A PMBA written
 *     elsewhere moves the block (SeaBIOS puts it at B000h, as on QEMU's pc
 *     machine); PMIOSE clear turns it off.
 *   I/O block (PMBA+):
 *     00h PMSTS  = ACPI PM1_STS: TMR_STS, BM_STS, GBL_STS, PWRBTN_STS,
 *                  RTC_STS, WAK_STS, each write-1-to-clear;
 *     02h PMEN   = PM1_EN: TMR_EN, GBL_EN, PWRBTN_EN, RTC_EN;
 *     04h PMCNTRL = PM1_CNT: SCI_EN (set: the machine is in ACPI mode, it has
 *                  no SMM to leave), BM_RLD, GBL_RLS (write-only), SUS_TYP
 *                  (SLP_TYP), SUS_EN (SLP_EN, write-only): writing SUS_EN with
 *                  SUS_TYP 0 (soft off, the DSDT's \_S5) powers the machine off;
 *     08h PMTMR  = the ACPI PM timer: 24 bits at 3.579545 MHz of virtual time
 *                  (devices/clock.h), TMR_STS set each time bit 23 changes;
 *     0Ch GPSTS / 0Eh GPEN = the GPE0 block (status write-1-to-clear, enable);
 *     the rest (PCNTRL, GLBSTS, DEVSTS, GLBEN, GLBCTL, DEVCTL, GPIREG, GPOREG:
 *     SMI and clock control no guest of hvemu uses) reads its reset value 0
 *     and ignores writes.
 *   SCI: the level (SCI_EN and any PM1 status bit with its enable bit, or any
 *   GPE0 status bit with its enable bit) on ISA IRQ 9, which the MADT
 *   declares level-triggered, active high (devices/acpi.h). */
#ifndef HVEMU_DEVICES_PIIX4_PM_H
#define HVEMU_DEVICES_PIIX4_PM_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"
#include "devices/clock.h"
#include "devices/irq.h"
#include "devices/pci.h"
#include "devices/power.h"

#define PIIX4_DEVACTB 0x58          /* device activity B (PCI config) */
#define PIIX4_DEVACTB_APMC_EN_BYTE3 0x02   /* bit 25 APMC_EN, in byte 5Bh */
#define PIIX4_PM_BASE 0x600        /* PMBA as the machine programs it */
#define PIIX4_PM_SIZE 64           /* PIIX4 datasheet, PMBA: 64 bytes of I/O */
#define PIIX4_PM_SCI_IRQ 9
#define PM_TIMER_HZ 3579545u       /* ACPI 6.0 4.8.3.3 */
#define PM_TIMER_BITS 24

/* Configuration registers (PIIX4 datasheet, function 3: PMBA, PMREGMISC). */
enum { PIIX4_PMBA = 0x40, PIIX4_PMREGMISC = 0x80, PIIX4_PMIOSE = 1u << 0 };

/* I/O offsets and bits (PIIX4 datasheet, PMSTS/PMEN/PMCNTRL/PMTMR/GPSTS/GPEN;
 * ACPI 6.0 4.8.3.1 Table 4-13/4-14, 4.8.3.2 Table 4-16). */
enum {
	PM1_STS = 0x00, PM1_EN = 0x02, PM1_CNT = 0x04, PM_TMR = 0x08, GPE0_STS = 0x0c, GPE0_EN = 0x0e,
	PM1_TMR = 1u << 0, PM1_BM = 1u << 4, PM1_GBL = 1u << 5, PM1_PWRBTN = 1u << 8,
	PM1_RTC = 1u << 10, PM1_WAK = 1u << 15,
	PM1_STS_BITS = PM1_TMR | PM1_BM | PM1_GBL | PM1_PWRBTN | PM1_RTC | PM1_WAK,
	PM1_EN_BITS = PM1_TMR | PM1_GBL | PM1_PWRBTN | PM1_RTC,
	PM1_CNT_SCI_EN = 1u << 0, PM1_CNT_BM_RLD = 1u << 1, PM1_CNT_GBL_RLS = 1u << 2,
	PM1_CNT_SLP_TYP_SHIFT = 10, PM1_CNT_SLP_TYP = 7u << 10, PM1_CNT_SLP_EN = 1u << 13,
	PIIX4_SLP_TYP_SOFT_OFF = 0,    /* PIIX4 datasheet, PMCNTRL SUS_TYP 000b: soft off */
};

struct piix4_pm {
	struct vclock *clock;
	const struct power_control *power;
	struct pci_function *fn;   /* 00:01.3: PMBA and PMREGMISC live in its config */
	struct iobus *io;          /* where the block is claimed */
	uint16_t base;             /* the block's ports: PMBA as last programmed */
	struct irq_line sci;
	uint16_t sts, en, cnt, gpe_sts, gpe_en;
	uint64_t tmr_start;        /* the timer's count (3.579545 MHz) at reset */
	uint64_t tmr_epoch;        /* count >> 23 when TMR_STS was last brought up to date */
	bool sci_level;
	struct vtimer tmr;         /* the next bit-23 change, while TMR_EN */
};

/* The PM timer's 24-bit value after `count` cycles (ACPI 6.0 4.8.3.3: it
 * wraps), and the number of bit-23 changes over them. */
static inline uint32_t pm_timer_value(uint64_t count)
{
	return (uint32_t)(count & ((1u << PM_TIMER_BITS) - 1));
}
static inline uint64_t pm_timer_epoch(uint64_t count)
{
	return count >> (PM_TIMER_BITS - 1);
}

/* Reset state (the timer counting from 0 at the clock's present tick). */
void piix4_pm_init(struct piix4_pm *p, struct vclock *clock, const struct power_control *power,
		   struct irq_line sci);
/* Add function 00:01.3 to h, program PMBA/PMREGMISC as firmware would, and
 * claim the I/O block on io. False on a clash. */
bool piix4_pm_attach(struct piix4_pm *p, struct pci_host *h, struct iobus *io);
/* The PM timer as the guest reads it now. */
uint32_t piix4_pm_timer(struct piix4_pm *p);

#endif
