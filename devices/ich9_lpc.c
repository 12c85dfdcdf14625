/* The ICH9 LPC bridge and its power management; see devices/ich9_lpc.h. */
#include "devices/ich9_lpc.h"

#include "devices/le_bytes.h"

static const struct acpi_pm_layout ich9_layout = {
	.name = "ICH9 PM (ACPI)", .size = ICH9_PM_SIZE, .gpe0_sts = ICH9_GPE0, .gpe0_half = ICH9_GPE0_HALF,
	.soft_off_typ = ICH9_SLP_TYP_SOFT_OFF,
	.fixed_reg = ICH9_SMI_EN, .fixed_value = ICH9_SMI_EN_APMC_EN,
};

void ich9_lpc_init(struct ich9_lpc *l, struct vclock *clock, const struct power_control *power,
		   struct irq_line sci)
{
	acpi_pm_init(&l->acpi, &ich9_layout, clock, power, sci);
}

/* Whether the PM block answers: ACPI_EN set and PMBASE where its ports are. */
static bool decoded(const void *ctx)
{
	const struct ich9_lpc *l = ctx;
	const uint8_t *c = l->fn->config;
	return (c[ICH9_ACPI_CNTL] & ICH9_ACPI_EN) && (get16(c + ICH9_PMBASE) & 0xff80) == l->acpi.decode.base;
}


/* A write to PMBASE moves the block (ICH9 datasheet, PMBASE: "the base
 * address for the ACPI I/O registers"). */
static void config_written(void *ctx, unsigned reg, unsigned size)
{
	struct ich9_lpc *l = ctx;
	if (reg < ICH9_PMBASE + 4 && reg + size > ICH9_PMBASE)
		acpi_pm_move(&l->acpi, get16(l->fn->config + ICH9_PMBASE) & 0xff80);
}

void ich9_lpc_program(struct ich9_lpc *l)
{
	struct pci_function *f = l->fn;
	/* PMBASE: bits 15:7 the base, bit 0 reads 1 (I/O space); ACPI_CNTL with
	 * ACPI_EN, SCI_IRQ_SEL 000b (IRQ 9), programmed as a BIOS would. */
	put32(f->config + ICH9_PMBASE, ICH9_PM_BASE | 1u);
	f->config[ICH9_ACPI_CNTL] = ICH9_ACPI_EN;
	acpi_pm_move(&l->acpi, ICH9_PM_BASE);
}

bool ich9_lpc_attach(struct ich9_lpc *l, struct pci_host *h, struct iobus *io)
{
	struct pci_function *f = pci_add_function(h, 0, 0x1f, 0, "ICH9 LPC bridge");
	if (!f)
		return false;
	l->fn = f;
	put16(f->config + PCI_VENDOR_ID, 0x8086);
	put16(f->config + PCI_DEVICE_ID, 0x2918);
	f->config[PCI_REVISION_ID] = 0x02;
	put16(f->config + PCI_CLASS_DEVICE, 0x0601);   /* bridge, ISA */
	f->config[PCI_HEADER_TYPE] = 0x80;             /* multi-function (D31 has more) */
	put16(f->wmask + ICH9_PMBASE, 0xff80);
	f->wmask[ICH9_ACPI_CNTL] = ICH9_ACPI_EN;
	f->written = config_written;
	f->written_ctx = l;
	if (!acpi_pm_register(&l->acpi, io, ICH9_PM_BASE, decoded, l))
		return false;
	ich9_lpc_program(l);
	return true;
}
