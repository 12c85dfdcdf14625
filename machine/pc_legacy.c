/* Wiring of the PC's legacy interrupt controllers and timers (see
 * pc_legacy.h). */
#include "machine/pc_legacy.h"

#include <string.h>

#include "emu/event_step.h"

/* The HPET may route its timers to these I/O APIC pins (Intel ICH/PCH
 * datasheets, "Timer n Configuration and Capabilities": TIMERn_INT_ROUT_CAP
 * bits 20-23), clear of the ISA IRQs. */
#define HPET_ROUTE_PINS 0x00f00000u

/* ISA IRQ n -> I/O APIC pin: IRQ0 is pin 2 (QEMU's MADT interrupt source
 * override), the others their own number. */
static unsigned isa_pin(unsigned irq)
{
	return irq == 0 ? 2 : irq;
}

/* An ISA interrupt line: the 8259A's input and the I/O APIC's pin. */
static void isa_irq_set(void *opaque, unsigned irq, bool level)
{
	struct pc_legacy *pc = opaque;
	pic8259_set_irq(&pc->pic, irq, level);
	irq_set(&pc->ioapic[isa_pin(irq)], level);
}

void pc_legacy_gsi_set(void *opaque, unsigned gsi, bool level)
{
	struct pc_legacy *pc = opaque;
	if (gsi < 16)
		isa_irq_set(pc, gsi, level);
	else if (gsi < PC_IOAPIC_PINS)
		irq_set(&pc->ioapic[gsi], level);
}

/* The 8259A's INT is the CPU's INTR, a level (SDM Vol.3 6.3.2). */
static void intr_changed(void *opaque, unsigned pin, bool level)
{
	struct pc_legacy *pc = opaque;
	cpu_set_line(pc->cpu, LINE_INTR, level);
}

/* NMI is edge-triggered at the CPU (SDM Vol.3 6.7): a rising edge latches one
 * NMI; the falling edge takes back nothing. */
static void nmi_changed(void *opaque, unsigned pin, bool level)
{
	struct pc_legacy *pc = opaque;
	if (level)
		cpu_set_line(pc->cpu, LINE_NMI, true);
}

bool pc_legacy_setup(struct pc_legacy *pc, struct cpu *cpu, struct physmem *mem, struct iobus *io,
		     struct vclock *clock, const struct rtc_config *rtc)
{
	memset(pc, 0, sizeof(*pc));
	pc->cpu = cpu;
	/* Outputs first: each device's init keeps the lines it is given. */
	pc->pic.intr = (struct irq_line){ intr_changed, pc, 0 };
	pc->pit.ch[0].out = (struct irq_line){ hpet_pit_input, &pc->hpet, 0 };
	pc->rtc.irq = (struct irq_line){ hpet_rtc_input, &pc->hpet, 8 };
	pc->rtc.nmi_out = (struct irq_line){ nmi_changed, pc, 0 };
	pc->hpet.irq0 = (struct irq_line){ isa_irq_set, pc, 0 };
	pc->hpet.irq8 = (struct irq_line){ isa_irq_set, pc, 8 };
	pc->nmi_source = (struct irq_line){ rtc_nmi_source, &pc->rtc, 0 };
	pic8259_init(&pc->pic);
	pit8254_init(&pc->pit, clock);
	rtc_init(&pc->rtc, clock, rtc);
	hpet_init(&pc->hpet, clock, 0);
	cpu->intr_ack = pic8259_intack;
	cpu->intr_ctx = &pc->pic;
	return pic8259_register(&pc->pic, io) && pit8254_register(&pc->pit, io) && rtc_register(&pc->rtc, io) &&
	       hpet_map(&pc->hpet, mem);
}

void pc_legacy_wire_ioapic(struct pc_legacy *pc, void (*set)(void *ioapic, unsigned pin, bool level),
			   void *ioapic)
{
	for (unsigned pin = 0; pin < PC_IOAPIC_PINS; pin++) {
		pc->ioapic[pin] = (struct irq_line){ set, ioapic, pin };
		if ((HPET_ROUTE_PINS >> pin) & 1)
			pc->hpet.route[pin] = pc->ioapic[pin];
	}
	pc->hpet.route_cap = HPET_ROUTE_PINS;
}
