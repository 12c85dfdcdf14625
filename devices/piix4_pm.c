/* The PIIX4 power-management function; see devices/piix4_pm.h. */
#include "devices/piix4_pm.h"

#include "devices/le_bytes.h"

static const struct acpi_pm_layout piix4_layout = {
	.name = "PIIX4 PM (ACPI)", .size = PIIX4_PM_SIZE, .gpe0_sts = PIIX4_GPE0, .gpe0_half = 2,
	.soft_off_typ = PIIX4_SLP_TYP_SOFT_OFF,
};

void piix4_pm_init(struct piix4_pm *p, struct vclock *clock, const struct power_control *power,
		   struct irq_line sci)
{
	acpi_pm_init(&p->acpi, &piix4_layout, clock, power, sci);
}

/* Whether the I/O block answers: PMIOSE set and PMBA at the window claimed. */
static bool decoded(const void *ctx)
{
	const struct piix4_pm *p = ctx;
	const uint8_t *c = p->fn->config;
	return (c[PIIX4_PMREGMISC] & PIIX4_PMIOSE) && (get16(c + PIIX4_PMBA) & 0xffc0) == p->acpi.decode.base;
}


/* A write to PMBA moves the block (PIIX4 datasheet, PMBA: "the base
 * address of the 64 byte power management I/O space"). */
static void config_written(void *ctx, unsigned reg, unsigned size)
{
	struct piix4_pm *p = ctx;
	if (reg < PIIX4_PMBA + 4 && reg + size > PIIX4_PMBA)
		acpi_pm_move(&p->acpi, get16(p->fn->config + PIIX4_PMBA) & 0xffc0);
}

void piix4_pm_program(struct piix4_pm *p)
{
	struct pci_function *f = p->fn;
	/* PMBA: bits 15:6 the base, bit 0 reads 1 (I/O space); programmed as a
	 * BIOS would, with PMIOSE set in PMREGMISC. */
	put32(f->config + PIIX4_PMBA, PIIX4_PM_BASE | 1u);
	f->config[PIIX4_PMREGMISC] = PIIX4_PMIOSE;
	acpi_pm_move(&p->acpi, PIIX4_PM_BASE);
}

bool piix4_pm_attach(struct piix4_pm *p, struct pci_host *h, struct iobus *io)
{
	struct pci_function *f = pci_add_function(h, 0, 1, 3, "PIIX4 power management");
	if (!f)
		return false;
	p->fn = f;
	put16(f->config + PCI_VENDOR_ID, 0x8086);
	put16(f->config + PCI_DEVICE_ID, 0x7113);
	/* Revision 03h: Linux reads the timer without the workaround for the
	 * erratum of earlier PIIX4 steppings (drivers/clocksource/acpi_pm.c). */
	f->config[PCI_REVISION_ID] = 0x03;
	put16(f->config + PCI_CLASS_DEVICE, 0x0680);   /* bridge, other */
	put16(f->wmask + PIIX4_PMBA, 0xffc0);
	f->wmask[PIIX4_PMREGMISC] = PIIX4_PMIOSE;
	/* DEVACTB (58h) bit 25 APMC_EN, set: SMI on APM control writes is
	 * already enabled, which firmware takes as "SMM set up" (QEMU's pc
	 * machine without SMM starts so). hvemu has no SMM; SeaBIOS would raise
	 * an SMI through port B2h and wait at B3h for a handler forever. */
	f->config[PIIX4_DEVACTB + 3] = PIIX4_DEVACTB_APMC_EN_BYTE3;
	f->written = config_written;
	f->written_ctx = p;
	if (!acpi_pm_register(&p->acpi, io, PIIX4_PM_BASE, decoded, p))
		return false;
	piix4_pm_program(p);
	return true;
}
