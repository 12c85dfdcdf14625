/* The PC's interrupt controllers and timers of ISA descent, wired as on
 * QEMU's "pc" machine: the 8259A pair, the 8254 with port 61H, the MC146818A
 * RTC/CMOS with the NMI mask, and the HPET.
 *
 *   8254 OUT0 --\                       /-- 8259A IR0 (master)
 *               HPET legacy mux --IRQ0 +
 *   RTC IRQ  --/    (timers 0/1)  IRQ8 \-- I/O APIC pin 2 (ISA IRQ0), pin 8
 *   8259A INT ----------------------------> intr (the CPU's INTR, or a LAPIC's LINT0)
 *   CPU INTA  ----------------------------> pic8259_intack
 *   NMI sources -> port 70H bit 7 mask ---> the CPU's NMI
 *
 * Every ISA IRQ goes to both the 8259A and, once an I/O APIC is wired
 * (pc_legacy_wire_ioapic), its pin: ISA IRQ0 to pin 2 (the interrupt source
 * override QEMU's MADT describes), the others to the pin of their number.
 */
#ifndef HVEMU_MACHINE_PC_LEGACY_H
#define HVEMU_MACHINE_PC_LEGACY_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"
#include "devices/clock.h"
#include "devices/hpet.h"
#include "devices/irq.h"
#include "devices/pic8259.h"
#include "devices/pit8254.h"
#include "devices/rtc.h"
#include "emu/cpu.h"

#define PC_IOAPIC_PINS 24

struct pc_legacy {
	struct pic8259 pic;
	struct pit8254 pit;
	struct rtc rtc;
	struct hpet hpet;
	struct cpu *cpu;
	/* I/O APIC inputs (GSIs); unset until pc_legacy_wire_ioapic(). */
	struct irq_line ioapic[PC_IOAPIC_PINS];
	/* Where a platform NMI source (IOCHK, SERR#, ...) is wired: through the
	 * RTC's NMI mask to the CPU. */
	struct irq_line nmi_source;
};

/* Build and wire the devices: ports 20H-21H, 40H-43H, 61H, 70H-71H, A0H-A1H,
 * 4D0H-4D1H, the HPET at FED00000H; the 8259A's INT on the CPU's INTR and its
 * INTA as cpu->intr_ack; the NMI mask on the CPU's NMI. False if a port or the
 * MMIO range is taken. */
bool pc_legacy_setup(struct pc_legacy *pc, struct cpu *cpu, struct physmem *mem, struct iobus *io,
		     struct vclock *clock, const struct rtc_config *rtc);

/* Drive GSI gsi: 0-15 are the ISA IRQs (to the 8259A and the I/O APIC, as
 * above), 16-23 I/O APIC pins only. An irq_line receiver (pc-testdev's
 * lines); a GSI with nothing wired does nothing. */
void pc_legacy_gsi_set(void *pc, unsigned gsi, bool level);

/* Connect the I/O APIC's pins: ISA IRQs go there as well as to the 8259A,
 * and the HPET's timers may route to pins 20-23 (Tn_INT_ROUTE_CAP, as on
 * Intel's ICH). set(ioapic, pin, level) is the I/O APIC's input. */
void pc_legacy_wire_ioapic(struct pc_legacy *pc, void (*set)(void *ioapic, unsigned pin, bool level),
			   void *ioapic);

#endif
