/* NS16550A UART. Facts from the TI/National PC16550D data sheet ("Registers",
 * "FIFO Interrupt Mode Operation", "Loopback"). */
#include "devices/uart16550.h"

#include <string.h>

/* MSR status bits seen when nothing is in loopback: a terminal is attached and
 * ready (DCD, DSR, CTS), as QEMU reports for a connected chardev. */
#define MSR_IDLE_STATUS 0xb0

void uart_init(struct uart16550 *u, uint16_t base, FILE *out)
{
	memset(u, 0, sizeof(*u));
	u->base = base;
	u->out = out;
	u->msr = MSR_IDLE_STATUS;
	u->divisor = 12;           /* 9600 baud at 1.8432 MHz; any nonzero value */
}

static void update_irq(struct uart16550 *u);

static unsigned rx_capacity(const struct uart16550 *u)
{
	/* Without FIFOs the receiver holds a single character (16450 mode). */
	return (u->fcr & UART_FCR_ENABLE) ? UART_FIFO_SIZE : 1;
}

static void rx_push(struct uart16550 *u, uint8_t b)
{
	if (u->rx_count >= rx_capacity(u)) {
		u->lsr_errors |= UART_LSR_OE;  /* overrun: the new character is lost */
		return;
	}
	u->rx[(u->rx_head + u->rx_count) % UART_FIFO_SIZE] = b;
	u->rx_count++;
}

static uint8_t rx_pop(struct uart16550 *u)
{
	if (!u->rx_count)
		return 0;
	uint8_t b = u->rx[u->rx_head];
	u->rx_head = (u->rx_head + 1) % UART_FIFO_SIZE;
	u->rx_count--;
	return b;
}

unsigned uart_receive(struct uart16550 *u, const uint8_t *bytes, unsigned n)
{
	unsigned fitted = 0;
	for (unsigned i = 0; i < n; i++) {
		if (u->rx_count < rx_capacity(u))
			fitted++;
		rx_push(u, bytes[i]);
	}
	update_irq(u);
	return fitted;
}

static uint8_t lsr_value(const struct uart16550 *u)
{
	return UART_LSR_THRE | UART_LSR_TEMT | u->lsr_errors | (u->rx_count ? UART_LSR_DR : 0);
}

/* Interrupt identification in priority order (data sheet, IIR table):
 * line status 0110, received data 0100, THR empty 0010, modem status 0000. */
static uint8_t iir_id(const struct uart16550 *u)
{
	if ((u->ier & UART_IER_RLSI) && u->lsr_errors)
		return 0x06;
	if ((u->ier & UART_IER_RDI) && u->rx_count)
		return 0x04;
	if ((u->ier & UART_IER_THRI) && u->thr_ipending)
		return 0x02;
	if ((u->ier & UART_IER_MSI) && (u->msr & 0x0f))
		return 0x00;
	return UART_IIR_NO_INT;
}

bool uart_irq_pending(const struct uart16550 *u)
{
	return !(iir_id(u) & UART_IIR_NO_INT);
}

/* Loopback ties the modem outputs to the inputs (data sheet, "Loopback"):
 * RTS->CTS, DTR->DSR, OUT1->RI, OUT2->DCD. Changes set the delta bits (a
 * falling RI sets TERI). */
static void update_msr(struct uart16550 *u)
{
	uint8_t status;
	if (u->mcr & UART_MCR_LOOP) {
		status = (uint8_t)(((u->mcr & 0x02) ? 0x10 : 0) | ((u->mcr & 0x01) ? 0x20 : 0) |
				   ((u->mcr & 0x04) ? 0x40 : 0) | ((u->mcr & 0x08) ? 0x80 : 0));
	} else {
		status = MSR_IDLE_STATUS;
	}
	uint8_t old = u->msr & 0xf0, changed = old ^ status, delta = 0;
	if (changed & 0x10) delta |= 0x01;                       /* DCTS */
	if (changed & 0x20) delta |= 0x02;                       /* DDSR */
	if ((old & 0x40) && !(status & 0x40)) delta |= 0x04;     /* TERI */
	if (changed & 0x80) delta |= 0x08;                       /* DDCD */
	u->msr = (uint8_t)(status | (u->msr & 0x0f) | delta);
}

/* The PC's serial adapters (IBM PC/AT Technical Reference, "Serial/Parallel
 * Adapter": OUT2 enables the interrupt) put INTRPT on the bus only while
 * MCR.OUT2 is set; the line follows the interrupt sources level by level. */
static void update_irq(struct uart16550 *u)
{
	bool level = uart_irq_pending(u) && (u->mcr & UART_MCR_OUT2);
	if (level == u->irq_level)
		return;
	u->irq_level = level;
	irq_set(&u->irq, level);
}

static void transmit(struct uart16550 *u, uint8_t b)
{
	if (u->mcr & UART_MCR_LOOP) {
		rx_push(u, b);     /* loopback: the serial output is wired to the input */
	} else if (u->tx_count++ >= u->tx_written) {
		u->tx_written = u->tx_count;
		if (u->out) {
			fputc(b, u->out);
			if (b == '\n')
				fflush(u->out);
		}
	}
	/* The character left at once, so THR is empty again. */
	u->thr_ipending = true;
}

static uint32_t uart_read(void *opaque, uint16_t port, unsigned size)
{
	struct uart16550 *u = opaque;
	uint8_t v = 0xff;
	switch ((port - u->base) & 7) {
	case UART_RBR_THR:
		v = (u->lcr & UART_LCR_DLAB) ? (uint8_t)u->divisor : rx_pop(u);
		break;
	case UART_IER:
		v = (u->lcr & UART_LCR_DLAB) ? (uint8_t)(u->divisor >> 8) : u->ier;
		break;
	case UART_IIR_FCR: {
		uint8_t id = iir_id(u);
		v = (uint8_t)(id | ((u->fcr & UART_FCR_ENABLE) ? 0xc0 : 0));
		if (id == 0x02)
			u->thr_ipending = false;  /* reading IIR with THRE as source clears it */
		break;
	}
	case UART_LCR: v = u->lcr; break;
	case UART_MCR: v = u->mcr; break;
	case UART_LSR:
		v = lsr_value(u);
		u->lsr_errors = 0;
		break;
	case UART_MSR:
		v = u->msr;
		u->msr &= 0xf0;            /* delta bits clear on read */
		break;
	case UART_SCR: v = u->scr; break;
	}
	/* A wider access reads the next registers in turn. */
	uint32_t r = v;
	for (unsigned i = 1; i < size; i++)
		r |= uart_read(opaque, (uint16_t)(port + i), 1) << (8 * i);
	update_irq(u);
	return r;
}

static void uart_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct uart16550 *u = opaque;
	uint8_t v = (uint8_t)value;
	switch ((port - u->base) & 7) {
	case UART_RBR_THR:
		if (u->lcr & UART_LCR_DLAB) {
			u->divisor = (uint16_t)((u->divisor & 0xff00) | v);
		} else {
			u->thr_ipending = false;
			transmit(u, v);
		}
		break;
	case UART_IER:
		if (u->lcr & UART_LCR_DLAB) {
			u->divisor = (uint16_t)((u->divisor & 0x00ff) | (v << 8));
		} else {
			uint8_t old = u->ier;
			u->ier = v & 0x0f;
			/* Enabling ETBEI while THR is empty raises the THRE interrupt. */
			if (!(old & UART_IER_THRI) && (u->ier & UART_IER_THRI))
				u->thr_ipending = true;
		}
		break;
	case UART_IIR_FCR:
		if ((v ^ u->fcr) & UART_FCR_ENABLE)
			u->rx_count = u->rx_head = 0;  /* toggling FIFO mode clears the FIFOs */
		if (v & UART_FCR_CLEAR_RX)
			u->rx_count = u->rx_head = 0;
		u->fcr = v & 0xc9;         /* enable, DMA mode, trigger level; reset bits self-clear */
		break;
	case UART_LCR: u->lcr = v; break;
	case UART_MCR:
		u->mcr = v & 0x1f;
		update_msr(u);
		break;
	case UART_LSR: case UART_MSR:
		break;                     /* read-only (factory test) */
	case UART_SCR: u->scr = v; break;
	}
	for (unsigned i = 1; i < size; i++)
		uart_write(opaque, (uint16_t)(port + i), 1, value >> (8 * i));
	update_irq(u);
}

static const struct pio_ops uart_ops = { .read = uart_read, .write = uart_write };

bool uart_register(struct uart16550 *u, struct iobus *io)
{
	return iobus_register(io, u->base, 8, &uart_ops, u, "uart16550");
}
