/* The ACPI fixed hardware register block; see devices/acpi_pm.h. */
#include "devices/acpi_pm.h"

#include <string.h>

static uint64_t timer_count(const struct acpi_pm *p)
{
	return vclock_ticks_to(p->clock, vclock_now(p->clock), PM_TIMER_HZ) - p->tmr_start;
}

uint32_t acpi_pm_timer(struct acpi_pm *p)
{
	return pm_timer_value(timer_count(p));
}

/* The SCI is a level: SCI_EN and an enabled event's status (ACPI 6.0 4.8.3.1:
 * "when the enable bit is set, the status bit raises an SCI"; 4.8.4.1 GPEs). */
static void update_sci(struct acpi_pm *p)
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
static void sync_timer_status(struct acpi_pm *p)
{
	uint64_t epoch = pm_timer_epoch(timer_count(p));
	if (epoch != p->tmr_epoch) {
		p->tmr_epoch = epoch;
		p->sts |= PM1_TMR;
	}
}

/* While TMR_EN is set, a timer at the next bit-23 change raises the SCI then. */
static void arm_timer(struct acpi_pm *p)
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
	struct acpi_pm *p = opaque;
	(void)now;
	sync_timer_status(p);
	update_sci(p);
	arm_timer(p);
}

void acpi_pm_init(struct acpi_pm *p, const struct acpi_pm_layout *layout, struct vclock *clock,
		  const struct power_control *power, struct irq_line sci)
{
	if (p->clock && p->tmr.armed)
		vtimer_cancel(p->clock, &p->tmr);
	struct acpi_pm_decode decode = p->decode;
	memset(p, 0, sizeof(*p));
	p->decode = decode;
	p->layout = layout;
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

static uint8_t byte_of(uint64_t v, unsigned i) { return (uint8_t)(v >> (8 * i)); }

/* Which GPE0 half off falls in: 0 status, 1 enable, -1 neither; *i the byte. */
static int gpe0_half(const struct acpi_pm *p, unsigned off, unsigned *i)
{
	unsigned first = p->layout->gpe0_sts, half = p->layout->gpe0_half;
	if (off < first || off >= first + 2 * half)
		return -1;
	*i = (off - first) % half;
	return (int)((off - first) / half);
}

static uint8_t read_byte(struct acpi_pm *p, unsigned off)
{
	unsigned i;
	int gpe = gpe0_half(p, off, &i);
	if (gpe >= 0)
		return byte_of(gpe ? p->gpe_en : p->gpe_sts, i);
	switch (off & ~1u) {
	case PM1_STS:
		sync_timer_status(p);
		return byte_of(p->sts, off & 1);
	case PM1_EN:
		return byte_of(p->en, off & 1);
	case PM1_CNT:
		return byte_of(p->cnt, off & 1);     /* SLP_EN, GBL_RLS read 0 */
	case PM_TMR:
	case PM_TMR + 2:
		return byte_of(acpi_pm_timer(p), off - PM_TMR);   /* bits 31:24 read 0 */
	default:
		if (p->layout->fixed_reg && off - p->layout->fixed_reg < 4)
			return byte_of(p->layout->fixed_value, off - p->layout->fixed_reg);
		return 0;                            /* SMI/clock control: reset value 0 */
	}
}

uint32_t acpi_pm_read(struct acpi_pm *p, unsigned off, unsigned size)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < size && off + i < p->layout->size; i++)
		v |= (uint32_t)read_byte(p, off + i) << (8 * i);
	return v;
}

/* Byte b of a 16-bit register replaced by v within mask. */
static uint16_t merge(uint16_t reg, unsigned b, uint8_t v, uint16_t mask)
{
	uint16_t lane = (uint16_t)(0xffu << (8 * b)) & mask;
	return (uint16_t)((reg & ~lane) | ((uint16_t)(v << (8 * b)) & lane));
}

static void write_byte(struct acpi_pm *p, unsigned off, uint8_t v)
{
	unsigned i;
	int gpe = gpe0_half(p, off, &i);
	if (gpe == 0)                            /* write 1 to clear (4.8.4.1) */
		p->gpe_sts &= ~((uint64_t)v << (8 * i));
	else if (gpe == 1)
		p->gpe_en = (p->gpe_en & ~(0xffull << (8 * i))) | (uint64_t)v << (8 * i);
	if (gpe >= 0)
		return;
	unsigned b = off & 1;
	switch (off & ~1u) {
	case PM1_STS:                            /* write 1 to clear (4.8.3.1) */
		sync_timer_status(p);
		p->sts &= (uint16_t)~((uint16_t)(v << (8 * b)) & PM1_STS_BITS);
		break;
	case PM1_EN:
		p->en = merge(p->en, b, v, PM1_EN_BITS);
		arm_timer(p);
		break;
	case PM1_CNT:
		/* SCI_EN, BM_RLD and SLP_TYP keep what is written; GBL_RLS (it
		 * would raise the BIOS's SMI, there is none) and SLP_EN are
		 * write-only, reading 0 (4.8.3.2.1). SLP_TYP and SLP_EN share
		 * the high byte, so one byte write carries both. */
		p->cnt = merge(p->cnt, b, v, PM1_CNT_SCI_EN | PM1_CNT_BM_RLD | PM1_CNT_SLP_TYP);
		if (b == 1 && ((unsigned)v << 8 & PM1_CNT_SLP_EN) &&
		    ((p->cnt & PM1_CNT_SLP_TYP) >> PM1_CNT_SLP_TYP_SHIFT) == p->layout->soft_off_typ)
			power_request(p->power, POWER_OFF, "ACPI PM1a_CNT (SLP_EN with the soft-off SLP_TYP, S5)");
		/* Other sleep types: no sleeping state is offered (the DSDT has
		 * \_S5 only), the write is ignored. */
		break;
	default:                                 /* PM_TMR is read-only; the rest is not modelled */
		break;
	}
}

void acpi_pm_write(struct acpi_pm *p, unsigned off, unsigned size, uint32_t value)
{
	for (unsigned i = 0; i < size && off + i < p->layout->size; i++)
		write_byte(p, off + i, (uint8_t)(value >> (8 * i)));
	update_sci(p);
}

static uint32_t pio_read(void *opaque, uint16_t port, unsigned size)
{
	struct acpi_pm *p = opaque;
	if (!p->decode.decoded(p->decode.ctx))
		return size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
	return acpi_pm_read(p, port - p->decode.base, size);
}

static void pio_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct acpi_pm *p = opaque;
	if (p->decode.decoded(p->decode.ctx))
		acpi_pm_write(p, port - p->decode.base, size, value);
}

static const struct pio_ops pio = { .read = pio_read, .write = pio_write };

bool acpi_pm_register(struct acpi_pm *p, struct iobus *io, uint16_t base, bool (*decoded)(const void *ctx),
		      const void *ctx)
{
	p->decode = (struct acpi_pm_decode){ .io = io, .base = base, .decoded = decoded, .ctx = ctx };
	return iobus_register(io, base, p->layout->size, &pio, p, p->layout->name);
}

bool acpi_pm_move(struct acpi_pm *p, uint16_t base)
{
	if (base == p->decode.base)
		return true;
	if (!iobus_move(p->decode.io, &pio, p, base))
		return false;
	p->decode.base = base;
	return true;
}
