/* The IA-PC HPET (High Precision Event Timers, specification 1.0a) at
 * FED00000H: a 64-bit main counter at 100 MHz of virtual time and three
 * 64-bit timers (comparators), each one-shot or periodic (with the value-set
 * bit), optionally in 32-bit mode, edge- or level-triggered with the general
 * interrupt status register. Legacy replacement routing sends timer 0 to ISA
 * IRQ0 and timer 1 to IRQ8 in place of the 8254 and the RTC, which therefore
 * reach the interrupt controllers through the HPET (hpet_pit_input/
 * hpet_rtc_input in, irq0/irq8 out). Other routes go to the inputs the
 * machine wires in route[] (the I/O APIC's pins), advertised in each timer's
 * Tn_INT_ROUTE_CAP; no FSB (MSI) delivery.
 */
#ifndef HVEMU_DEVICES_HPET_H
#define HVEMU_DEVICES_HPET_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"
#include "devices/clock.h"
#include "devices/irq.h"

#define HPET_BASE 0xfed00000ull
#define HPET_SIZE 0x400
#define HPET_TIMERS 3
#define HPET_HZ 100000000ull               /* the main counter: 100 MHz */
#define HPET_PERIOD_FS 10000000ull         /* COUNTER_CLK_PERIOD: 10 ns in femtoseconds */
#define HPET_ROUTES 32

struct hpet;

struct hpet_timer {
	struct hpet *hpet;
	unsigned index;
	uint64_t config;           /* Tn_CONF_CAP's writable bits */
	uint64_t cmp;              /* Tn_COMPARATOR */
	uint64_t period;           /* the value last written to the comparator */
	uint64_t next_match;       /* main-counter value of the next match (UINT64_MAX: none) */
	bool edge_out;             /* edge mode: the output after its last rising edge */
	struct vtimer timer;
};

struct hpet {
	struct vclock *clock;
	uint64_t config;           /* GEN_CONF: ENABLE_CNF, LEG_RT_CNF */
	uint64_t isr;              /* GEN_INT_STS: level-mode status bits */
	uint64_t counter;          /* the main counter at HPET clock `since` */
	uint64_t since;            /* (vclock_ticks_to(now, HPET_HZ)) */
	struct hpet_timer t[HPET_TIMERS];
	/* Legacy replacement: the 8254's OUT0 and the RTC's IRQ come in, the
	 * ISA IRQ0 and IRQ8 go out. */
	bool pit_in, rtc_in;
	struct irq_line irq0, irq8;
	bool irq0_level, irq8_level;
	/* Tn_INT_ROUTE_CNF targets: the inputs in route_cap are wired. */
	struct irq_line route[HPET_ROUTES];
	uint32_t route_cap;
	bool route_level[HPET_ROUTES];
};

/* Power-on: halted at 0, legacy routing off (the PIT and RTC pass through),
 * timers disabled, one-shot, edge, comparators all ones. route_cap names the
 * route[] inputs the machine has wired (0 until there is an I/O APIC). */
void hpet_init(struct hpet *h, struct vclock *clock, uint32_t route_cap);

/* GCAP_ID as the guest reads it (IA-PC HPET 1.0a 2.3.4); ACPI's HPET table
 * repeats bits 31:0 as its event timer block ID (3.2.4). */
uint64_t hpet_gcap_id(void);

/* Map the registers at HPET_BASE. */
bool hpet_map(struct hpet *h, struct physmem *pm);

/* The 8254's OUT0 and the RTC's IRQ line, as irq_line receivers. */
void hpet_pit_input(void *hpet, unsigned pin, bool level);
void hpet_rtc_input(void *hpet, unsigned pin, bool level);

#endif
