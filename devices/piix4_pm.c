/* The PIIX4 power-management function; see devices/piix4_pm.h. */
#include "devices/piix4_pm.h"

#include <string.h>

#include "devices/le_bytes.h"

static uint64_t timer_count(const struct piix4_pm *p)
{
	return vclock_ticks_to(p->clock, vclock_now(p->clock), PM_TIMER_HZ) - p->tmr_start;
}

uint32_t piix4_pm_timer(struct piix4_pm *p)
{
	return pm_timer_value(timer_count(p));
}

/* The SCI is a level: SCI_EN and an enabled event's status (ACPI 6.0 4.8.3.1:
 * "when the enable bit is set, the status bit raises an SCI"; 4.8.4.1 GPEs). */
static void update_sci(struct piix4_pm *p)
{
	bool level = (p->cnt & PM1_CNT_SCI_EN) &&
		     ((p->sts & p->en & PM1_EN_BITS) || (p->gpe_sts & p->gpe_en));
	if (level != p->sci_level) {
		p->sci_level = level;
		irq_set(&p->sci, level);
	}
}

/* TMR_STS is set each time bit 23 of the timer changes (ACPI 6.0 4.8.3.3);
 * bring it up to date with the time now. */
static void sync_timer_status(struct piix4_pm *p)
{
	uint64_t epoch = pm_timer_epoch(timer_count(p));
	if (epoch != p->tmr_epoch) {
		p->tmr_epoch = epoch;
		p->sts |= PM1_TMR;
	}
}

/* While TMR_EN is set, a timer at the next bit-23 change raises the SCI then. */
static void arm_timer(struct piix4_pm *p)
{
	if (!(p->en & PM1_TMR)) {
		if (p->tmr.armed)
			vtimer_cancel(p->clock, &p->tmr);
		return;
	}
	uint64_t next = (pm_timer_epoch(timer_count(p)) + 1) << (PM_TIMER_BITS - 1);
	vtimer_arm(p->clock, &p->tmr, vclock_ticks_from(p->clock, next + p->tmr_start, PM_TIMER_HZ));
}

static void timer_fired(void *opaque, uint64_t now)
{
	struct piix4_pm *p = opaque;
	(void)now;
	sync_timer_status(p);
	update_sci(p);
	arm_timer(p);
}

void piix4_pm_init(struct piix4_pm *p, struct vclock *clock, const struct power_control *power,
		   struct irq_line sci)
{
	if (p->clock && p->tmr.armed)
		vtimer_cancel(p->clock, &p->tmr);
	struct pci_function *fn = p->fn;
	struct iobus *io = p->io;
	uint16_t base = p->base;
	memset(p, 0, sizeof(*p));
	p->fn = fn;
	p->io = io;
	p->base = base;
	p->clock = clock;
	p->power = power;
	p->sci = sci;
	p->tmr = (struct vtimer){ .fire = timer_fired, .opaque = p, .name = "ACPI PM timer" };
	p->tmr_start = vclock_ticks_to(clock, vclock_now(clock), PM_TIMER_HZ);
	/* SCI_EN set: the machine starts in ACPI mode, since it has no SMM and
	 * the FADT's SMI_CMD is 0 (ACPI 6.0 4.8.2.5, 5.2.9). */
	p->cnt = PM1_CNT_SCI_EN;
	irq_set(&p->sci, false);
}

/* Whether the I/O block answers: PMIOSE set and PMBA at the window claimed. */
static bool decoded(const struct piix4_pm *p)
{
	const uint8_t *c = p->fn->config;
	return (c[PIIX4_PMREGMISC] & PIIX4_PMIOSE) && (get16(c + PIIX4_PMBA) & 0xffc0) == p->base;
}

static uint8_t read_byte(struct piix4_pm *p, unsigned off)
{
	uint32_t tmr;
	switch (off & ~1u) {
	case PM1_STS:
		sync_timer_status(p);
		return (uint8_t)(p->sts >> (8 * (off & 1)));
	case PM1_EN:
		return (uint8_t)(p->en >> (8 * (off & 1)));
	case PM1_CNT:
		return (uint8_t)(p->cnt >> (8 * (off & 1)));   /* SLP_EN, GBL_RLS read 0 */
	case PM_TMR:
	case PM_TMR + 2:
		tmr = piix4_pm_timer(p);             /* bits 31:24 read 0 */
		return (uint8_t)(tmr >> (8 * (off - PM_TMR)));
	case GPE0_STS:
		return (uint8_t)(p->gpe_sts >> (8 * (off & 1)));
	case GPE0_EN:
		return (uint8_t)(p->gpe_en >> (8 * (off & 1)));
	default:
		return 0;                            /* SMI/clock control: reset value 0 */
	}
}

static uint32_t pm_read(void *opaque, uint16_t port, unsigned size)
{
	struct piix4_pm *p = opaque;
	if (!decoded(p))
		return size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
	unsigned off = port - p->base;
	uint32_t v = 0;
	for (unsigned i = 0; i < size && off + i < PIIX4_PM_SIZE; i++)
		v |= (uint32_t)read_byte(p, off + i) << (8 * i);
	return v;
}

/* A write of `mask`-wide value v at a register of 16 bits, reg (the byte
 * lanes the access covers). */
static void pm_write_reg(struct piix4_pm *p, unsigned reg, uint16_t v, uint16_t lanes)
{
	switch (reg) {
	case PM1_STS:                /* write 1 to clear (ACPI 6.0 4.8.3.1) */
		sync_timer_status(p);
		p->sts &= (uint16_t)~(v & lanes & PM1_STS_BITS);
		break;
	case PM1_EN:
		p->en = (uint16_t)((p->en & ~lanes) | (v & lanes & PM1_EN_BITS));
		arm_timer(p);
		break;
	case PM1_CNT: {
		/* SCI_EN, BM_RLD, SLP_TYP keep what is written; GBL_RLS (it
		 * would raise the BIOS's SMI, there is none) and SLP_EN are
		 * write-only, reading 0 (ACPI 6.0 4.8.3.2.1). */
		uint16_t keep = PM1_CNT_SCI_EN | PM1_CNT_BM_RLD | PM1_CNT_SLP_TYP;
		p->cnt = (uint16_t)((p->cnt & ~(lanes & keep)) | (v & lanes & keep));
		if ((v & lanes & PM1_CNT_SLP_EN) &&
		    ((p->cnt & PM1_CNT_SLP_TYP) >> PM1_CNT_SLP_TYP_SHIFT) == PIIX4_SLP_TYP_SOFT_OFF)
			power_request(p->power, POWER_OFF, "ACPI PM1a_CNT (SLP_EN with SLP_TYP 0, soft off)");
		/* Other sleep types: no sleeping state is offered (the DSDT has
		 * \_S5 only), the write is ignored. */
		break;
	}
	case GPE0_STS:
		p->gpe_sts &= (uint16_t)~(v & lanes);
		break;
	case GPE0_EN:
		p->gpe_en = (uint16_t)((p->gpe_en & ~lanes) | (v & lanes));
		break;
	default:                     /* PMTMR is read-only; the rest is not modelled */
		break;
	}
}

static void pm_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct piix4_pm *p = opaque;
	if (!decoded(p))
		return;
	unsigned off = port - p->base;
	/* Split into the 16-bit registers the access covers, each with the byte
	 * lanes written, so a doubleword at 00h writes PM1_STS and PM1_EN. */
	for (unsigned i = 0; i < size && off + i < PIIX4_PM_SIZE;) {
		unsigned reg = (off + i) & ~1u;
		uint16_t v = 0, lanes = 0;
		for (; i < size && ((off + i) & ~1u) == reg; i++) {
			unsigned sh = 8 * ((off + i) & 1);
			v |= (uint16_t)(((value >> (8 * i)) & 0xff) << sh);
			lanes |= (uint16_t)(0xff << sh);
		}
		pm_write_reg(p, reg, v, lanes);
	}
	update_sci(p);
}

static const struct pio_ops pm_ops = { .read = pm_read, .write = pm_write };

/* PMBA written (PIIX4 datasheet 3.4.2.13, bits 15:6 the base of the 64-byte
 * block): the block's ports follow it, as SeaBIOS moves it to B000h. A base
 * that would overlap another device leaves the block where it was, where it
 * no longer answers (decoded() compares). */
static void pmba_written(struct pci_function *f, unsigned off, unsigned size)
{
	struct piix4_pm *p = f->written_opaque;
	if (off >= PIIX4_PMBA + 2 || off + size <= PIIX4_PMBA)
		return;
	uint16_t base = get16(f->config + PIIX4_PMBA) & 0xffc0;
	if (base != p->base && base && iobus_move(p->io, p, p->base, base))
		p->base = base;
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
	/* PMBA: bits 15:6 the base, bit 0 reads 1 (I/O space); programmed as a
	 * BIOS would, with PMIOSE set in PMREGMISC. */
	put32(f->config + PIIX4_PMBA, PIIX4_PM_BASE | 1u);
	put16(f->wmask + PIIX4_PMBA, 0xffc0);
	f->config[PIIX4_PMREGMISC] = PIIX4_PMIOSE;
	f->wmask[PIIX4_PMREGMISC] = PIIX4_PMIOSE;
	/* DEVACTB (58h) bit 25 APMC_EN, set: SMI on APM control writes is
	 * already enabled, which firmware takes as "SMM set up" (QEMU's pc
	 * machine without SMM starts so). hvemu has no SMM; SeaBIOS would raise
	 * an SMI through port B2h and wait at B3h for a handler forever. */
	f->config[PIIX4_DEVACTB + 3] = PIIX4_DEVACTB_APMC_EN_BYTE3;
	f->written = pmba_written;
	f->written_opaque = p;
	p->io = io;
	p->base = PIIX4_PM_BASE;
	return iobus_register(io, PIIX4_PM_BASE, PIIX4_PM_SIZE, &pm_ops, p, "PIIX4 PM (ACPI)");
}
