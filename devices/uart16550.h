/* NS16550A UART (the PC's COM1 at 0x3f8). Output is instantaneous: the
 * transmitter is always empty. Input is pushed by the machine (or a test). */
#ifndef HVEMU_DEVICES_UART16550_H
#define HVEMU_DEVICES_UART16550_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "devices/irq.h"

#include "devices/bus.h"

#define UART_COM1_BASE 0x3f8
#define UART_FIFO_SIZE 16

/* Register offsets from the base port (16550A data sheet, "Register Summary"). */
enum {
	UART_RBR_THR = 0,          /* DLAB=1: divisor latch low */
	UART_IER = 1,              /* DLAB=1: divisor latch high */
	UART_IIR_FCR = 2,
	UART_LCR = 3,
	UART_MCR = 4,
	UART_LSR = 5,
	UART_MSR = 6,
	UART_SCR = 7,
};

enum {
	UART_LCR_DLAB = 0x80,
	UART_MCR_OUT2 = 0x08, UART_MCR_LOOP = 0x10,
	UART_LSR_DR = 0x01, UART_LSR_OE = 0x02, UART_LSR_THRE = 0x20, UART_LSR_TEMT = 0x40,
	UART_IER_RDI = 0x01, UART_IER_THRI = 0x02, UART_IER_RLSI = 0x04, UART_IER_MSI = 0x08,
	UART_FCR_ENABLE = 0x01, UART_FCR_CLEAR_RX = 0x02,
	UART_IIR_NO_INT = 0x01,
};

struct uart16550 {
	uint16_t base;
	FILE *out;                 /* transmitted bytes go here; NULL: discarded */
	uint8_t ier, lcr, mcr, scr, fcr;
	uint8_t lsr_errors;        /* OE, cleared by reading LSR */
	uint8_t msr;               /* status bits 7:4 and delta bits 3:0 */
	uint16_t divisor;
	bool thr_ipending;         /* THR-empty interrupt armed (cleared by IIR read / THR write) */
	uint8_t rx[UART_FIFO_SIZE];
	unsigned rx_head, rx_count;
	/* INTRPT as a PC's COM port drives it (COM1: ISA IRQ4): asserted while an
	 * interrupt is pending and MCR.OUT2 gates it onto the bus. The machine
	 * connects it (uart_init() leaves it unconnected). */
	struct irq_line irq;
	bool irq_level;            /* what irq was last set to */
	/* Bytes transmitted since power-on, and how many of them out has seen:
	 * a machine put back to an earlier state (machine/machine_snapshot.h)
	 * transmits again what it transmitted before, and out, which cannot
	 * take bytes back, gets only those past the mark. */
	uint64_t tx_count;
	uint64_t tx_written;
};

/* Reset state (16550A data sheet, "Reset"): IER=0, LCR=0, MCR=0, FIFOs off.
 * out: where the guest's output goes (stdout, a file, or NULL). */
void uart_init(struct uart16550 *u, uint16_t base, FILE *out);
/* Claim ports base..base+7. False if they are taken. */
bool uart_register(struct uart16550 *u, struct iobus *io);
/* Deliver bytes from the outside world to the receiver. Returns how many fitted
 * (the rest are lost and set the overrun error, as on the wire). */
unsigned uart_receive(struct uart16550 *u, const uint8_t *bytes, unsigned n);
/* Whether the UART asserts its interrupt line (IIR bit 0 clear). */
bool uart_irq_pending(const struct uart16550 *u);

#endif
