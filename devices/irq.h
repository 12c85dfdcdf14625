/* An interrupt request line between devices: the output of one (a timer, the
 * PIC's INT, an I/O APIC's delivery) wired to the input of another (an
 * interrupt controller, the CPU's INTR/NMI/INIT pins) by machine set-up.
 * Devices only see the line; what it is connected to is the machine's choice,
 * so devices/ never reaches into emu/. */
#ifndef HVEMU_DEVICES_IRQ_H
#define HVEMU_DEVICES_IRQ_H

#include <stdbool.h>

struct irq_line {
	void (*set)(void *opaque, unsigned pin, bool level);  /* NULL: not connected */
	void *opaque;
	unsigned pin;              /* which input of the receiver */
};

static inline void irq_set(const struct irq_line *l, bool level)
{
	if (l->set)
		l->set(l->opaque, l->pin, level);
}

/* An edge: raise, then lower (for edge-triggered receivers). */
static inline void irq_pulse(const struct irq_line *l)
{
	irq_set(l, true);
	irq_set(l, false);
}

#endif
