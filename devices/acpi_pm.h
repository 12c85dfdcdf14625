/* The ACPI fixed hardware register block a chipset's power-management
 * function carries (ACPI 6.0 4.8 "ACPI Hardware Model"): PM1 status, enable
 * and control, the PM timer, and GPE0, at offsets the chipset's layout gives
 * (struct acpi_pm_layout). The PCI functions that own such a block decide
 * where it answers: devices/piix4_pm.c (PIIX4, pc machine) and
 * devices/ich9_lpc.c (ICH9, q35 machine). Offsets are from the block's base:
 *
 *   00h PM1_STS: TMR_STS, BM_STS, GBL_STS, PWRBTN_STS, RTC_STS, WAK_STS, each
 *       write-1-to-clear (4.8.3.1, Table 4-13);
 *   02h PM1_EN:  TMR_EN, GBL_EN, PWRBTN_EN, RTC_EN (Table 4-14);
 *   04h PM1_CNT: SCI_EN (set from reset: the machine has no SMM to leave and
 *       the FADT's SMI_CMD is 0, 4.8.2.5), BM_RLD, GBL_RLS (write-only),
 *       SLP_TYP and SLP_EN (write-only): SLP_EN with the layout's soft-off
 *       SLP_TYP (the DSDT's \_S5) powers the machine off (4.8.3.2.1);
 *   08h PM_TMR:  24 bits at 3.579545 MHz of virtual time (devices/clock.h),
 *       TMR_STS set each time bit 23 changes (4.8.3.3); bits 31:24 read 0;
 *   GPE0: status (write-1-to-clear) then enable, each gpe0_half bytes, from
 *       gpe0_sts (4.8.4.1);
 *   the rest of the block (the chipset's SMI and clock control, which no
 *   guest of hvemu uses) reads its reset value 0 and ignores writes.
 *   SCI: a level, SCI_EN and any PM1 status bit with its enable bit, or any
 *   GPE0 status bit with its enable bit (4.8.3.1, 4.8.4.1). */
#ifndef HVEMU_DEVICES_ACPI_PM_H
#define HVEMU_DEVICES_ACPI_PM_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"
#include "devices/clock.h"
#include "devices/irq.h"
#include "devices/power.h"

#define PM_TIMER_HZ 3579545u       /* ACPI 6.0 4.8.3.3 */
#define PM_TIMER_BITS 24
#define ACPI_PM_GPE0_MAX 8         /* bytes in each GPE0 half at most (ICH9's) */

/* PM1 offsets and bits (ACPI 6.0 4.8.3.1 Tables 4-13/4-14, 4.8.3.2 Table 4-16). */
enum {
	PM1_STS = 0x00, PM1_EN = 0x02, PM1_CNT = 0x04, PM_TMR = 0x08,
	PM1_TMR = 1u << 0, PM1_BM = 1u << 4, PM1_GBL = 1u << 5, PM1_PWRBTN = 1u << 8,
	PM1_RTC = 1u << 10, PM1_WAK = 1u << 15,
	PM1_STS_BITS = PM1_TMR | PM1_BM | PM1_GBL | PM1_PWRBTN | PM1_RTC | PM1_WAK,
	PM1_EN_BITS = PM1_TMR | PM1_GBL | PM1_PWRBTN | PM1_RTC,
	PM1_CNT_SCI_EN = 1u << 0, PM1_CNT_BM_RLD = 1u << 1, PM1_CNT_GBL_RLS = 1u << 2,
	PM1_CNT_SLP_TYP_SHIFT = 10, PM1_CNT_SLP_TYP = 7u << 10, PM1_CNT_SLP_EN = 1u << 13,
};

/* Where a chipset puts what, as data. */
struct acpi_pm_layout {
	const char *name;          /* the I/O block's name on the bus */
	uint16_t size;             /* bytes the block decodes */
	uint8_t gpe0_sts;          /* GPE0_STS; GPE0_EN follows it */
	uint8_t gpe0_half;         /* bytes in each GPE0 half (the FADT's GPE0_BLK_LEN / 2) */
	uint8_t soft_off_typ;      /* the SLP_TYP of S5, soft off */
	/* A 32-bit chipset register of the block that reads a fixed value
	 * because hvemu has no SMM (0: none): ICH9's SMI_EN with APMC_EN set,
	 * which firmware takes as "SMM set up" (see devices/ich9_lpc.h). */
	uint8_t fixed_reg;
	uint32_t fixed_value;
};

/* Where the block answers: at base, while the owning function's
 * configuration says so (decoded(ctx)); otherwise reads are all ones and
 * writes go nowhere. */
struct acpi_pm_decode {
	struct iobus *io;
	uint16_t base;             /* where the ports are claimed now */
	bool (*decoded)(const void *ctx);
	const void *ctx;
};

struct acpi_pm {
	const struct acpi_pm_layout *layout;
	struct acpi_pm_decode decode;   /* kept across acpi_pm_init */
	struct vclock *clock;
	const struct power_control *power;
	struct irq_line sci;
	uint16_t sts, en, cnt;
	uint64_t gpe_sts, gpe_en;  /* GPE0, byte i of a half at bits 8i+7:8i */
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
void acpi_pm_init(struct acpi_pm *p, const struct acpi_pm_layout *layout, struct vclock *clock,
		  const struct power_control *power, struct irq_line sci);
/* A read or write of size bytes at offset off of the block (off < size). */
uint32_t acpi_pm_read(struct acpi_pm *p, unsigned off, unsigned size);
void acpi_pm_write(struct acpi_pm *p, unsigned off, unsigned size, uint32_t value);
/* Claim the block's ports from base on io, answering while decoded(ctx).
 * False on a clash. */
bool acpi_pm_register(struct acpi_pm *p, struct iobus *io, uint16_t base, bool (*decoded)(const void *ctx),
		      const void *ctx);
/* The owner's base register now says base: claim the ports there instead.
 * False, the ports staying where they were (and the owner's decode then
 * failing, its register no longer matching decode.base), if they would
 * overlap another device's. */
bool acpi_pm_move(struct acpi_pm *p, uint16_t base);
/* The PM timer as the guest reads it now. */
uint32_t acpi_pm_timer(struct acpi_pm *p);

#endif
