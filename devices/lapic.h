/* The local APIC of one processor (SDM Vol.3 chapter 10 "Advanced Programmable
 * Interrupt Controller (APIC)"; chapter numbering varies by edition): the xAPIC
 * register page (MMIO, relocatable through IA32_APIC_BASE) and the x2APIC
 * registers (MSRs 800H-8FFH, SDM 10.12), its interrupt sources (the local
 * vector table: timer, thermal, performance counters, LINT0, LINT1, error), the
 * priority logic that presents the highest requested vector above the
 * processor priority to the core's INTR line, and the ICR that sends
 * inter-processor interrupts over the APIC bus (devices/apic_bus.h).
 *
 * The modelled APIC is one xAPIC-era flavour for every CPU model: version 14H,
 * six LVT entries (max LVT entry 5: no CMCI), no EOI-broadcast suppression,
 * no lowest-priority IPIs (ESR "redirectible IPI", SDM 10.6.3.1), no
 * arbitration priority register (Pentium and P6 only: offset 90H reads 0).
 * Time comes from the machine's virtual clock (devices/clock.h): the timer
 * counts timer_hz ticks before its divider.
 *
 * devices/ never includes emu/: the processor side (the IA32_APIC_BASE MSR,
 * CR8, the MSR and MMIO windows, the TSC) is emu/apic.c, which calls the
 * functions below; the APIC drives the core only through struct lapic_core. */
#ifndef HVEMU_DEVICES_LAPIC_H
#define HVEMU_DEVICES_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/apic_bus.h"
#include "devices/clock.h"
#include "devices/irq.h"

#define LAPIC_DEFAULT_BASE 0xfee00000u
#define LAPIC_VERSION      0x14u       /* SDM 10.4.8: 1XH, an integrated APIC */
#define LAPIC_SVR_ENABLE   (1u << 8)   /* SVR: APIC software enable (10.9) */
/* The timer's input clock on hvemu's machine: SDM 10.5.4, "the processor's bus
 * clock or core crystal clock frequency (when TSC/core crystal clock ratio is
 * enumerated in CPUID leaf 0x15)": the 24 MHz crystal leaf 15H reports
 * (emu/cpu_models.c), on every model. */
#define LAPIC_TIMER_HZ     24000000ull

/* IA32_APIC_BASE.EN / .EXTD (SDM 10.12.1 Table 10-5): the three valid states. */
enum lapic_mode { LAPIC_DISABLED, LAPIC_XAPIC, LAPIC_X2APIC };

/* The local vector table, in register order (offsets 320H-370H). */
enum lapic_lvt { LVT_TIMER, LVT_THERMAL, LVT_PERF, LVT_LINT0, LVT_LINT1, LVT_ERROR, LVT_COUNT };

/* What the APIC drives in its processor core (machine set-up wires it): the
 * INTR level, and NMI, SMI and INIT, which the core latches when they are
 * raised (the APIC never lowers them); startup delivers a SIPI's vector (SDM
 * 8.4.3: a processor waiting for SIPI starts at vector << 12). */
struct lapic_core {
	struct irq_line intr, nmi, smi, init;
	void (*startup)(void *opaque, uint8_t vector);
	void *startup_opaque;
};

struct lapic {
	/* --- wiring (lapic_init and machine set-up) --- */
	struct apic_bus *bus;
	struct vclock *clock;
	uint64_t timer_hz;         /* the timer's input clock, before the divide register */
	struct lapic_core core;
	int (*extint_ack)(void *opaque);   /* the 8259's INTA for ExtINT, -1: none */
	void *extint_opaque;

	/* --- what this processor's APIC has --- */
	uint32_t initial_id;       /* hardware-assigned x2APIC ID; its low byte the xAPIC ID */
	bool has_x2apic;           /* CPUID.1:ECX[21] */
	bool has_tsc_deadline;     /* CPUID.1:ECX[24] */
	/* The self and all-including-self shorthands carry NMI too. The SDM
	 * (Table 10-3) allows only fixed delivery with them; AMD's APM (16.5)
	 * names no restriction, and AMD models deliver an NMI (kvm-unit-tests'
	 * svm NMI rows rely on it). An SMI stays undelivered: hvemu has no SMM.
	 * Set by machine set-up from the CPU model. */
	bool self_nmi;
	/* Deviations from the SDM that mimic a peer: LAPIC_QUIRK_*, set by machine
	 * set-up from the quirk registry (emu/quirks.def, which names each). */
	unsigned quirks;

	/* --- registers (SDM Table 10-1) --- */
	enum lapic_mode mode;
	uint8_t xapic_id;          /* ID register bits 31:24 in xAPIC mode (writable) */
	uint8_t tpr;
	uint32_t ldr, dfr, svr;
	uint32_t irr[8], isr[8], tmr[8];   /* 256 bits each, bit v = vector v */
	uint32_t esr;              /* what software reads */
	uint32_t esr_pending;      /* errors since the last ESR write (SDM 10.5.3) */
	bool raising_error;        /* an error interrupt is being raised: no recursion */
	uint32_t icr_lo, icr_hi;
	uint32_t lvt[LVT_COUNT];
	uint32_t timer_initial, timer_dcr;

	/* --- inputs and the INTR output --- */
	bool lint[2];              /* LINT0/LINT1 pin levels */
	bool extint_msg;           /* an ExtINT message (I/O APIC) waits for INTA */
	bool intr_out;             /* the level driven on core.intr */

	/* --- the timer (lapic_timer.c) --- */
	struct vtimer timer;
	bool timer_running;        /* one-shot/periodic: counting down */
	uint32_t timer_count;      /* the count when timer_start was taken */
	uint64_t timer_start;      /* the clock tick counting (re)started at */
	uint64_t tsc_deadline;     /* IA32_TSC_DEADLINE; 0: disarmed */
};

/* struct lapic quirks (emu/quirks.def's PLATFORM rows of the local APIC). */
enum {
	LAPIC_QUIRK_TSC_DEADLINE_KEPT = 1u << 0,      /* bochs-tsc-deadline-kept */
	LAPIC_QUIRK_X2APIC_LDR_ZERO = 1u << 1,        /* bochs-x2apic-ldr-zero */
	LAPIC_QUIRK_X2APIC_RESERVED_IGNORED = 1u << 2, /* bochs-x2apic-reserved-ignored */
	LAPIC_QUIRK_SELF_IPI_NO_SEND_ERROR = 1u << 3, /* bochs-self-ipi-no-send-error */
	LAPIC_QUIRK_ID_FF_AFTER_DISABLE = 1u << 4,    /* bochs-apic-disabled-to-x2apic */
};

/* A local APIC with hardware ID id, after power-up (xAPIC mode, SDM 10.4.7.1);
 * its timer counts timer_hz ticks of clock. core, extint_ack and the bus's
 * table are the caller's to fill. */
void lapic_init(struct lapic *l, uint32_t id, bool x2apic, bool tsc_deadline,
		struct vclock *clock, uint64_t timer_hz, struct apic_bus *bus);

/* RESET (SDM 10.4.7.1): xAPIC mode, the hardware-assigned ID, every register
 * at its power-up value. */
void lapic_reset(struct lapic *l);

/* The INIT response (SDM 10.4.7.3): every register back to its power-up value
 * except the APIC ID and the mode (SDM 10.12.5.1). */
void lapic_init_reset(struct lapic *l);

/* IA32_APIC_BASE changed the mode (its caller checked the transition is legal,
 * SDM 10.12.5): disabling resets the registers as at power-up (SDM 10.4.3:
 * "prior initialization to the APIC may be lost"), the xAPIC ID back to the
 * hardware-assigned one; entering x2APIC mode derives the logical x2APIC ID
 * (SDM 10.12.10.2). */
void lapic_set_mode(struct lapic *l, enum lapic_mode mode);

/* xAPIC MMIO: a 32-bit access at offset (0-FFFH) of the register page. Other
 * sizes: reads see the register's bytes, writes narrower than 4 bytes are
 * ignored (SDM 10.4.1 allows only aligned 32-bit accesses). */
uint32_t lapic_mmio_read(struct lapic *l, unsigned offset);
void lapic_mmio_write(struct lapic *l, unsigned offset, uint32_t value);
/* An EOI the processor itself writes, in xAPIC or x2APIC mode alike (VMX
 * posted-interrupt processing, SDM Vol.3 29.6 step 4). */
void lapic_eoi(struct lapic *l);

/* x2APIC MSR index (800H-8FFH): false for #GP(0) (SDM 10.12.1.2, 10.12.1.3:
 * an address with no register, a read of a write-only or write of a read-only
 * register, reserved bits, a non-zero EOI or ESR write). */
bool lapic_msr_read(struct lapic *l, uint32_t index, uint64_t *value);
bool lapic_msr_write(struct lapic *l, uint32_t index, uint64_t value);

/* The task-priority register, as CR8 reads and writes it (SDM 10.8.6.1). */
uint8_t lapic_tpr(const struct lapic *l);
void lapic_set_tpr(struct lapic *l, uint8_t tpr);

/* The core's INTA: the vector to deliver (the highest requested fixed vector
 * above PPR, moved from IRR to ISR; or an ExtINT's vector from the 8259), or
 * -1 if nothing is pending any more. opaque is the struct lapic. */
int lapic_intr_ack(void *opaque);

/* The LINT0/LINT1 pins (pin 0 or 1), as an irq_line receiver: the 8259's INT
 * on LINT0 and an NMI source on LINT1. Globally disabled, the APIC passes them
 * to the core as INTR and NMI (SDM 10.4.3: "functionally equivalent to a
 * processor without an on-chip APIC"). */
void lapic_set_lint(void *opaque, unsigned pin, bool level);

/* IA32_TSC_DEADLINE (SDM 10.5.4.1): reads 0 outside TSC-deadline mode; a write
 * there is ignored, else arms the timer to fire at clock tick fire_at (the
 * caller converts the TSC value) or disarms it (value 0). */
uint64_t lapic_tsc_deadline(const struct lapic *l);
void lapic_set_tsc_deadline(struct lapic *l, uint64_t value, uint64_t fire_at);

/* --- the APIC bus side (devices/apic_bus.c) --- */

/* Whether message m names this APIC (physical or logical destination, or a
 * broadcast; shorthands are the bus's). */
bool lapic_matches(const struct lapic *l, const struct apic_msg *m);

/* Take message m (already known to be addressed here). Returns whether it was
 * accepted. */
bool lapic_accept(struct lapic *l, const struct apic_msg *m);

/* The processor priority (PPR, SDM 10.8.3.1): lowest-priority arbitration. */
uint8_t lapic_ppr(const struct lapic *l);

/* --- shared with lapic_timer.c --- */

/* Raise the local interrupt of LVT entry lvt (unless masked). */
void lapic_local_interrupt(struct lapic *l, enum lapic_lvt lvt);
/* Timer registers (lapic_timer.c). */
void lapic_timer_reset(struct lapic *l);
void lapic_timer_set_initial(struct lapic *l, uint32_t count);
void lapic_timer_set_divide(struct lapic *l, uint32_t dcr);
void lapic_timer_lvt_written(struct lapic *l, uint32_t old);
uint32_t lapic_timer_current(const struct lapic *l);

#endif
