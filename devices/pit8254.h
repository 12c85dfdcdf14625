/* The PC's 8254 programmable interval timer at ports 40H-43H, clocked at
 * 1193182 Hz in virtual time, and the system control port B at 61H that gates
 * its channel 2 and shows that channel's OUT.
 *
 * Channel 0's OUT is IRQ0 (an irq_line the machine wires); channel 1 is the
 * refresh timer (no output wired); channel 2 feeds the speaker, its GATE is
 * port 61H bit 0 and its OUT reads back as bit 5. Every channel runs all six
 * modes with latch and read-back commands, binary or BCD counts and the
 * LSB/MSB access modes, as the Intel 8254 datasheet (order no. 231164)
 * describes; the counting element is kept in closed form (the clock pulse it
 * was loaded at and its count), so reading it costs no timer events and only
 * a wired OUT arms a timer for its next transition.
 */
#ifndef HVEMU_DEVICES_PIT8254_H
#define HVEMU_DEVICES_PIT8254_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"
#include "devices/clock.h"
#include "devices/irq.h"

#define PIT_HZ 1193182u            /* the PC's CLK input: 14.31818 MHz / 12 */
#define PIT_PORT 0x40              /* counters 0-2 at 40H-42H, control word 43H */
#define PIT_PORT_B 0x61            /* system control port B */
#define PIT_CHANNELS 3

struct pit8254;

struct pit_channel {
	struct pit8254 *pit;
	unsigned index;
	/* The control word. */
	uint8_t mode;              /* 0-5 */
	uint8_t rw;                /* 1 LSB only, 2 MSB only, 3 LSB then MSB */
	bool bcd;
	bool gate;                 /* the GATE input */
	/* The count register and the write sequence. */
	uint16_t cr;
	bool has_count;            /* a whole count was written since the control word */
	bool write_msb_next;       /* rw 3: the LSB is written, the MSB comes next */
	bool null_count;           /* a count waits to enter the counting element */
	uint64_t load_at;          /* ... until this clock pulse (UINT64_MAX: a GATE edge) */
	/* The counting element: n counted from clock pulse `start` (phase e0). */
	bool running;
	uint64_t start;
	uint32_t n;                /* 1..65536 (binary) or 1..10000 (BCD) */
	uint32_t e0;
	bool paused;               /* GATE low in modes 0 and 4: counting holds */
	uint64_t paused_at;
	uint32_t held_ce;          /* CE and OUT while not counting (and before `start`) */
	bool held_out;
	bool pending;              /* modes 2, 3: a new count at the end of the cycle */
	uint32_t pending_n;
	uint64_t pending_at;
	uint32_t pending_e0;
	/* Reading: the output latch and the status latch. */
	bool count_latched, status_latched, read_msb_next;
	uint16_t ol;
	uint8_t status;
	/* OUT as an interrupt line (channel 0). */
	struct irq_line out;
	bool out_level;            /* what out was last driven to */
	struct vtimer timer;       /* OUT's next transition */
	uint64_t timer_clock;      /* the clock pulse the timer stands for */
};

struct pit8254 {
	struct pit_channel ch[PIT_CHANNELS];
	struct vclock *clock;
	uint8_t port_b;            /* port 61H bits 3:0 as written */
};

/* Power-on: every channel as after a mode 0 control word with no count (OUT
 * low, nothing counting); GATE 0 and 1 high (wired so on the PC), GATE 2 low. */
void pit8254_init(struct pit8254 *p, struct vclock *clock);

/* Claim 40H-43H and 61H. */
bool pit8254_register(struct pit8254 *p, struct iobus *io);

/* Drive channel ch's GATE input (port 61H does it for channel 2). */
void pit8254_set_gate(struct pit8254 *p, unsigned ch, bool level);

/* OUT of channel ch now. */
bool pit8254_out(struct pit8254 *p, unsigned ch);

#endif
