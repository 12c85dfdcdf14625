/* The PC's pair of 8259A programmable interrupt controllers: the master at
 * ports 20H-21H (IRQ0-7), the slave at A0H-A1H (IRQ8-15) with its INT wired to
 * the master's IR2, and the chipset's edge/level control registers (ELCR) at
 * 4D0H-4D1H. The master's INT is an irq_line (the CPU's INTR pin, or a local
 * APIC's LINT0); pic8259_intack() is the CPU's INTA cycle (cpu->intr_ack).
 *
 * Source: Intel 8259A Programmable Interrupt Controller datasheet (order no.
 * 231468); the section names are cited next to each rule in pic8259.c. The
 * ELCR is the PC chipset's (Intel 82371AB PIIX4 datasheet 4.1.x "ELCR1/ELCR2").
 */
#ifndef HVEMU_DEVICES_PIC8259_H
#define HVEMU_DEVICES_PIC8259_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"
#include "devices/irq.h"

#define PIC_MASTER_PORT 0x20
#define PIC_SLAVE_PORT  0xa0
#define PIC_ELCR_PORT   0x4d0
#define PIC_CASCADE_IR  2          /* the master input the slave's INT drives */

/* One 8259A. */
struct pic_chip {
	uint8_t irr;               /* interrupt request register: edge latches / levels */
	uint8_t isr;               /* in-service register */
	uint8_t imr;               /* interrupt mask register (OCW1) */
	uint8_t level;             /* what the IR0-7 inputs are driven to now */
	uint8_t elcr;              /* ELCR: 1 = the input is level-sensitive */
	uint8_t elcr_mask;         /* the ELCR bits the chipset lets software set */
	uint8_t lowest;            /* the IR with the lowest priority (rotation, OCW2) */
	uint8_t init_step;         /* 0: operating; 2, 3, 4: ICW2/3/4 expected next */
	/* ICW1 */
	bool icw4_needed;          /* IC4 */
	bool single;               /* SNGL: no cascade, no ICW3 */
	bool address_4;            /* ADI: call address interval 4 (MCS-80/85 mode) */
	bool ltim;                 /* LTIM: every input level-sensitive */
	uint8_t icw1_address;      /* A7-A5 (MCS-80/85 mode) */
	/* ICW2, ICW3 */
	uint8_t icw2;              /* T7-T3 (8086 mode) / A15-A8 (MCS-80/85 mode) */
	uint8_t icw3;              /* master: inputs with a slave; slave: its ID (bits 2:0) */
	/* ICW4 */
	bool mode_8086;            /* uPM */
	bool auto_eoi;             /* AEOI */
	bool buffered;             /* BUF */
	bool buffer_master;        /* M/S (buffered mode only) */
	bool sfnm;                 /* special fully nested mode */
	/* OCW2, OCW3 */
	bool rotate_on_aeoi;       /* rotate in automatic-EOI mode */
	bool special_mask;         /* SMM */
	bool read_isr;             /* RR/RIS: a read of port 0 gives ISR (else IRR) */
	bool poll;                 /* P: the next read of port 0 is the poll word */
	bool int_out;              /* the INT pin */
};

struct pic8259 {
	struct pic_chip chip[2];   /* [0] master, [1] slave */
	struct irq_line intr;      /* the master's INT: wired by the machine */
	uint64_t spurious;         /* INTA cycles that found no request (IR7 given) */
};

/* Power-on state (see pic8259.c: as after an ICW1 with ICW4 in 8086 mode,
 * vector base 0), nothing requested. */
void pic8259_init(struct pic8259 *p);

/* Claim 20H-21H, A0H-A1H and 4D0H-4D1H. False if a port is taken. */
bool pic8259_register(struct pic8259 *p, struct iobus *io);

/* Drive interrupt input irq (0-15; 2 is the cascade and ignored) to level.
 * The signature of struct irq_line's set: wire a device's output with
 * { pic8259_set_irq, pic, irq }. */
void pic8259_set_irq(void *pic, unsigned irq, bool level);

/* The INTA cycle: the vector of the highest-priority request (from the slave
 * through the cascade), which is now in service; the IR7 vector of the chip
 * concerned when no request is left (a spurious interrupt). The signature of
 * cpu->intr_ack. */
int pic8259_intack(void *pic);

#endif
