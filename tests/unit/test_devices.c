/* Check suites for devices/: the physical-memory and port buses, the 16550A
 * UART, isa-debug-exit and the POST port. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "devices/bus.h"
#include "devices/clock.h"
#include "devices/debug_exit.h"
#include "devices/post_port.h"
#include "devices/uart16550.h"
#include "suite_runner.h"

/* ---- bus ---- */

struct fake_mmio {
	uint64_t last_off, last_val;
	unsigned last_size, reads, writes;
};

static uint64_t fake_read(void *opaque, uint64_t off, unsigned size)
{
	struct fake_mmio *f = opaque;
	f->reads++;
	f->last_off = off;
	f->last_size = size;
	return 0x1000 + off;
}

static void fake_write(void *opaque, uint64_t off, unsigned size, uint64_t v)
{
	struct fake_mmio *f = opaque;
	f->writes++;
	f->last_off = off;
	f->last_size = size;
	f->last_val = v;
}

static const struct mmio_ops fake_ops = { fake_read, fake_write };

struct ram_log { uint64_t pa; unsigned size, calls; };

static void log_ram_write(void *opaque, uint64_t pa, unsigned size)
{
	struct ram_log *l = opaque;
	l->pa = pa;
	l->size = size;
	l->calls++;
}

START_TEST(bus_ram_rw)
{
	struct physmem pm;
	struct ram_log log = { 0 };
	ck_assert(physmem_init(&pm, 1 << 20));
	pm.on_ram_write = log_ram_write;
	pm.on_ram_write_opaque = &log;
	physmem_write(&pm, 0x1000, 4, 0xdeadbeef);
	ck_assert_uint_eq(log.calls, 1);
	ck_assert_uint_eq(log.pa, 0x1000);
	ck_assert_uint_eq(log.size, 4);
	ck_assert_uint_eq(physmem_read(&pm, 0x1000, 4), 0xdeadbeef);
	ck_assert_uint_eq(physmem_read(&pm, 0x1001, 2), 0xadbe);
	ck_assert_uint_eq(pm.ram[0x1000], 0xef);           /* little-endian */
	ck_assert_ptr_eq(physmem_ram_ptr(&pm, 0x1000), pm.ram + 0x1000);
	ck_assert_ptr_null(physmem_ram_ptr(&pm, 1 << 20));
	physmem_write(&pm, 0x2000, 8, 0x0102030405060708ull);
	ck_assert_uint_eq(physmem_read(&pm, 0x2000, 8), 0x0102030405060708ull);
	uint8_t buf[3] = { 1, 2, 3 }, back[3];
	physmem_write_bytes(&pm, 0x3ffe, buf, 3);
	ck_assert_uint_eq(log.calls, 4);    /* 8-byte write + two page pieces */
	physmem_read_bytes(&pm, 0x3ffe, back, 3);
	ck_assert_mem_eq(buf, back, 3);
	physmem_destroy(&pm);
}
END_TEST

/* RAM of a big machine starts at a 2 MiB boundary of host memory, so that
 * each 2 MiB of it can be one host page (devices/bus.h HUGE_PAGES_FROM_RAM);
 * RAM of any size is zero at power-on and reaches its last byte. */
START_TEST(bus_ram_layout)
{
	struct physmem pm;
	const uint64_t sizes[] = { 1 << 20, HUGE_PAGES_FROM_RAM, HUGE_PAGES_FROM_RAM + 0x3000 };
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ck_assert(physmem_init(&pm, sizes[i]));
		if (sizes[i] >= HUGE_PAGES_FROM_RAM)
			ck_assert_uint_eq((uintptr_t)pm.ram & ((2u << 20) - 1), 0);
		ck_assert_uint_eq(physmem_read(&pm, 0, 8), 0);
		ck_assert_uint_eq(physmem_read(&pm, sizes[i] - 8, 8), 0);
		physmem_write(&pm, sizes[i] - 8, 8, 0x1122334455667788ull);
		ck_assert_uint_eq(physmem_read(&pm, sizes[i] - 8, 8), 0x1122334455667788ull);
		ck_assert_uint_eq(physmem_read(&pm, sizes[i] - 4, 8), 0xffffffff11223344ull);   /* then unclaimed */
		physmem_destroy(&pm);
		ck_assert_ptr_null(pm.ram);
	}
}
END_TEST

START_TEST(bus_unclaimed_and_edge)
{
	struct physmem pm;
	ck_assert(physmem_init(&pm, 1 << 20));
	ck_assert_uint_eq(physmem_read(&pm, 0x200000, 4), 0xffffffffu);
	ck_assert_uint_eq(physmem_read(&pm, 0x200000, 8), ~0ull);
	physmem_write(&pm, 0x200000, 4, 0);                  /* ignored, no crash */
	/* A read straddling the end of RAM: RAM bytes, then all ones. */
	physmem_write(&pm, 0xffffe, 2, 0xbbaa);
	ck_assert_uint_eq(physmem_read(&pm, 0xffffe, 4), 0xffffbbaa);
	ck_assert_uint_eq(physmem_read(&pm, UINT64_MAX, 2), 0x00ff);  /* wraps to RAM byte 0 */
	physmem_write(&pm, 0xfffff, 2, 0x1234);
	ck_assert_uint_eq(pm.ram[0xfffff], 0x34);
	uint8_t out[4];
	physmem_read_bytes(&pm, 0xffffe, out, 4);
	ck_assert_uint_eq(out[1], 0x34);
	ck_assert_uint_eq(out[2], 0xff);
	physmem_destroy(&pm);
	ck_assert(!physmem_init(&pm, 4097));                 /* not a multiple of 4 KiB */
	ck_assert(!physmem_init(&pm, 0));
}
END_TEST

START_TEST(bus_mmio_and_overlap)
{
	struct physmem pm;
	struct fake_mmio f = { 0 };
	ck_assert(physmem_init(&pm, 1 << 20));
	ck_assert(physmem_add_mmio(&pm, 0xfee00000, 0x1000, &fake_ops, &f, "apic"));
	physmem_write(&pm, 0xfee000b0, 4, 0x55);
	ck_assert_uint_eq(f.writes, 1);
	ck_assert_uint_eq(f.last_off, 0xb0);
	ck_assert_uint_eq(f.last_size, 4);
	ck_assert_uint_eq(f.last_val, 0x55);
	ck_assert_uint_eq(physmem_read(&pm, 0xfee00020, 4), 0x1020);
	ck_assert_uint_eq(f.reads, 1);
	ck_assert_uint_eq(f.last_off, 0x20);
	/* Overlaps: RAM, the same region, partial, zero size, wrap-around. */
	ck_assert(!physmem_add_mmio(&pm, 0xff000, 0x2000, &fake_ops, &f, "x"));
	ck_assert(!physmem_add_mmio(&pm, 0xfee00800, 0x1000, &fake_ops, &f, "x"));
	ck_assert(!physmem_add_mmio(&pm, 0xfedff000, 0x1001, &fake_ops, &f, "x"));
	ck_assert(!physmem_add_mmio(&pm, 0xfec00000, 0, &fake_ops, &f, "x"));
	ck_assert(!physmem_add_mmio(&pm, UINT64_MAX - 10, 0x100, &fake_ops, &f, "x"));
	ck_assert(physmem_add_mmio(&pm, 0xfedff000, 0x1000, &fake_ops, &f, "adjacent"));
	/* A table-full refusal. */
	unsigned added = pm.n_mmio;
	for (unsigned i = 0; i < BUS_MAX_MMIO + 2; i++)
		if (physmem_add_mmio(&pm, 0x10000000ull + i * 0x1000, 0x1000, &fake_ops, &f, "n"))
			added++;
	ck_assert_uint_eq(added, BUS_MAX_MMIO);
	physmem_destroy(&pm);
}
END_TEST

START_TEST(bus_rom)
{
	struct physmem pm;
	struct ram_log log = { 0 };
	uint8_t img[0x1000];
	for (unsigned i = 0; i < sizeof(img); i++)
		img[i] = (uint8_t)(i * 7);
	ck_assert(physmem_init(&pm, 1 << 20));
	pm.on_ram_write = log_ram_write;
	pm.on_ram_write_opaque = &log;
	ck_assert(physmem_add_rom(&pm, 0xfffff000, img, sizeof(img), "bios"));
	img[0x10] = 0;                                       /* the bus keeps its own copy */
	ck_assert_uint_eq(physmem_read(&pm, 0xfffff010, 1), 0x70);
	physmem_write(&pm, 0xfffff010, 1, 0x99);             /* ROM ignores writes */
	ck_assert_uint_eq(physmem_read(&pm, 0xfffff010, 1), 0x70);
	ck_assert_uint_eq(log.calls, 0);
	ck_assert_uint_eq(physmem_read(&pm, 0xfffffffe, 2), (uint64_t)(0xfff * 7 & 0xff) << 8 | (0xffe * 7 & 0xff));
	/* 4 bytes at 4G-2: two ROM bytes, then unclaimed all ones. */
	ck_assert_uint_eq(physmem_read(&pm, 0xfffffffe, 4) >> 16, 0xffff);
	ck_assert(!physmem_add_rom(&pm, 0xfffff800, img, 0x100, "overlap"));
	physmem_destroy(&pm);
}
END_TEST

struct fake_pio { uint16_t port; unsigned size, reads, writes; uint32_t val; };

static uint32_t pio_read(void *opaque, uint16_t port, unsigned size)
{
	struct fake_pio *f = opaque;
	f->reads++;
	f->port = port;
	f->size = size;
	return 0xa5a5a5a5u;
}

static void pio_write(void *opaque, uint16_t port, unsigned size, uint32_t v)
{
	struct fake_pio *f = opaque;
	f->writes++;
	f->port = port;
	f->size = size;
	f->val = v;
}

static const struct pio_ops fake_pio_ops = { pio_read, pio_write };

struct io_log { unsigned n; uint16_t port; bool write; uint32_t val; };

static void io_trace(void *opaque, uint16_t port, unsigned size, bool is_write, uint32_t v)
{
	struct io_log *l = opaque;
	l->n++;
	l->port = port;
	l->write = is_write;
	l->val = v;
}

START_TEST(bus_ports)
{
	struct iobus io;
	struct fake_pio f = { 0 };
	struct io_log log = { 0 };
	iobus_init(&io);
	io.trace = io_trace;
	io.trace_opaque = &log;
	ck_assert_uint_eq(iobus_read(&io, 0x1234, 1), 0xff);
	ck_assert_uint_eq(iobus_read(&io, 0x1234, 2), 0xffff);
	ck_assert_uint_eq(iobus_read(&io, 0x1234, 4), 0xffffffffu);
	ck_assert_uint_eq(log.n, 3);
	iobus_write(&io, 0x1234, 4, 7);                      /* ignored */
	ck_assert(log.write);
	ck_assert(iobus_register(&io, 0x60, 4, &fake_pio_ops, &f, "kbd"));
	ck_assert(!iobus_register(&io, 0x63, 2, &fake_pio_ops, &f, "overlap"));
	ck_assert(!iobus_register(&io, 0xffff, 2, &fake_pio_ops, &f, "past 64K"));
	ck_assert(!iobus_register(&io, 0x70, 0, &fake_pio_ops, &f, "empty"));
	ck_assert_uint_eq(iobus_read(&io, 0x61, 2), 0xa5a5);
	ck_assert_uint_eq(f.port, 0x61);
	ck_assert_uint_eq(f.size, 2);
	iobus_write(&io, 0x62, 1, 0x1ff);
	ck_assert_uint_eq(f.writes, 1);
	ck_assert_uint_eq(f.val & 0xff, 0xff);
	/* Straddling the end of the range: byte-wise, the outside byte is all ones. */
	ck_assert_uint_eq(iobus_read(&io, 0x63, 2), 0xffa5);
	ck_assert_uint_eq(log.val, 0xffa5);
}
END_TEST

/* ---- UART ---- */

static uint8_t in8(struct iobus *io, unsigned reg) { return (uint8_t)iobus_read(io, (uint16_t)(UART_COM1_BASE + reg), 1); }
static void out8(struct iobus *io, unsigned reg, uint8_t v) { iobus_write(io, (uint16_t)(UART_COM1_BASE + reg), 1, v); }

START_TEST(uart_thr_output)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct uart16550 u;
	struct iobus io;
	iobus_init(&io);
	uart_init(&u, UART_COM1_BASE, out);
	ck_assert(uart_register(&u, &io));
	ck_assert(!uart_register(&u, &io));
	ck_assert_uint_eq(in8(&io, UART_LSR), UART_LSR_THRE | UART_LSR_TEMT);
	out8(&io, UART_RBR_THR, 'h');
	out8(&io, UART_RBR_THR, 'i');
	ck_assert_uint_eq(in8(&io, UART_LSR) & 0x60, 0x60);  /* still empty: instantaneous */
	fclose(out);
	ck_assert_uint_eq(len, 2);
	ck_assert_str_eq(text, "hi");
	free(text);
}
END_TEST

/* The interrupt line (IRQ4 on a PC) follows the pending sources, gated by
 * MCR.OUT2 (IBM PC/AT Technical Reference, Serial/Parallel Adapter). */
static bool uart_line, uart_line_set;
static void uart_line_changed(void *opaque, unsigned pin, bool level)
{
	(void)opaque;
	ck_assert_uint_eq(pin, 4);
	uart_line = level;
	uart_line_set = true;
}

START_TEST(uart_irq_line)
{
	struct uart16550 u;
	struct iobus io;
	iobus_init(&io);
	uart_init(&u, UART_COM1_BASE, NULL);
	u.irq = (struct irq_line){ uart_line_changed, NULL, 4 };
	ck_assert(uart_register(&u, &io));
	uart_line = uart_line_set = false;
	out8(&io, UART_IER, UART_IER_THRI);           /* THRE pending, OUT2 clear: no line */
	ck_assert(!uart_line_set);
	out8(&io, UART_MCR, UART_MCR_OUT2);
	ck_assert(uart_line);
	ck_assert_uint_eq(in8(&io, UART_IIR_FCR) & 0x0f, 0x02);   /* reading IIR clears THRE */
	ck_assert(!uart_line);
	out8(&io, UART_RBR_THR, 'x');                 /* sent at once: THR empty again */
	ck_assert(uart_line);
	out8(&io, UART_IER, 0);
	ck_assert(!uart_line);
	out8(&io, UART_IER, UART_IER_RDI);
	ck_assert(!uart_line);
	ck_assert_uint_eq(uart_receive(&u, (const uint8_t *)"a", 1), 1);   /* received data */
	ck_assert(uart_line);
	ck_assert_uint_eq(in8(&io, UART_RBR_THR), 'a');
	ck_assert(!uart_line);
}
END_TEST

START_TEST(uart_dlab_scratch)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct uart16550 u;
	struct iobus io;
	iobus_init(&io);
	uart_init(&u, UART_COM1_BASE, out);
	ck_assert(uart_register(&u, &io));
	out8(&io, UART_IER, 0x05);
	out8(&io, UART_LCR, UART_LCR_DLAB | 0x03);
	out8(&io, UART_RBR_THR, 0x01);                       /* DLL: 115200 baud */
	out8(&io, UART_IER, 0x00);                           /* DLM */
	ck_assert_uint_eq(in8(&io, UART_RBR_THR), 0x01);
	ck_assert_uint_eq(in8(&io, UART_IER), 0x00);
	ck_assert_uint_eq(u.divisor, 1);
	out8(&io, UART_LCR, 0x03);
	ck_assert_uint_eq(in8(&io, UART_IER), 0x05);         /* IER untouched by DLM write */
	ck_assert_uint_eq(in8(&io, UART_LCR), 0x03);
	out8(&io, UART_SCR, 0x5a);
	ck_assert_uint_eq(in8(&io, UART_SCR), 0x5a);
	fclose(out);
	ck_assert_uint_eq(len, 0);                           /* divisor writes sent nothing */
	free(text);
}
END_TEST

START_TEST(uart_loopback_and_iir)
{
	struct uart16550 u;
	struct iobus io;
	iobus_init(&io);
	uart_init(&u, UART_COM1_BASE, NULL);
	ck_assert(uart_register(&u, &io));
	ck_assert_uint_eq(in8(&io, UART_IIR_FCR), UART_IIR_NO_INT);
	out8(&io, UART_MCR, UART_MCR_LOOP | 0x0b);           /* loop, DTR, RTS, OUT2 */
	ck_assert_uint_eq(in8(&io, UART_MSR) & 0xf0, 0xb0);  /* CTS, DSR, DCD */
	out8(&io, UART_MCR, UART_MCR_LOOP);
	ck_assert_uint_eq(in8(&io, UART_MSR), 0x0b);         /* all dropped: deltas DCTS, DDSR, DDCD */
	ck_assert_uint_eq(in8(&io, UART_MSR), 0x00);         /* deltas clear on read */
	out8(&io, UART_RBR_THR, 0x42);
	ck_assert_uint_eq(in8(&io, UART_LSR) & UART_LSR_DR, UART_LSR_DR);
	ck_assert_uint_eq(in8(&io, UART_RBR_THR), 0x42);
	ck_assert_uint_eq(in8(&io, UART_LSR) & UART_LSR_DR, 0);
	/* Without FIFOs a second character overruns the first holding register. */
	out8(&io, UART_RBR_THR, 1);
	out8(&io, UART_RBR_THR, 2);
	ck_assert_uint_eq(in8(&io, UART_LSR), 0x60 | UART_LSR_OE | UART_LSR_DR);
	ck_assert_uint_eq(in8(&io, UART_LSR) & UART_LSR_OE, 0);
	ck_assert_uint_eq(in8(&io, UART_RBR_THR), 1);
	/* FIFO mode: IIR bits 7:6 set, 16 characters fit. */
	out8(&io, UART_IIR_FCR, UART_FCR_ENABLE);
	for (unsigned i = 0; i < 16; i++)
		out8(&io, UART_RBR_THR, (uint8_t)i);
	ck_assert_uint_eq(in8(&io, UART_LSR) & UART_LSR_OE, 0);
	out8(&io, UART_IER, UART_IER_RDI);
	ck_assert_uint_eq(in8(&io, UART_IIR_FCR), 0xc4);     /* received data available */
	ck_assert(uart_irq_pending(&u));
	out8(&io, UART_IIR_FCR, UART_FCR_ENABLE | UART_FCR_CLEAR_RX);
	ck_assert_uint_eq(in8(&io, UART_LSR) & UART_LSR_DR, 0);
	/* THRE interrupt: raised when enabled, cleared by reading IIR. */
	out8(&io, UART_IER, UART_IER_THRI);
	ck_assert_uint_eq(in8(&io, UART_IIR_FCR), 0xc2);
	ck_assert_uint_eq(in8(&io, UART_IIR_FCR), 0xc1);
}
END_TEST

START_TEST(uart_receive_input)
{
	struct uart16550 u;
	struct iobus io;
	iobus_init(&io);
	uart_init(&u, UART_COM1_BASE, NULL);
	ck_assert(uart_register(&u, &io));
	out8(&io, UART_IIR_FCR, UART_FCR_ENABLE);
	const uint8_t msg[] = "abc";
	ck_assert_uint_eq(uart_receive(&u, msg, 3), 3);
	ck_assert_uint_eq(in8(&io, UART_RBR_THR), 'a');
	ck_assert_uint_eq(in8(&io, UART_RBR_THR), 'b');
	ck_assert_uint_eq(in8(&io, UART_RBR_THR), 'c');
	ck_assert_uint_eq(in8(&io, UART_LSR) & UART_LSR_DR, 0);
}
END_TEST

/* ---- debug-exit and POST ---- */

static void record_exit(void *opaque, uint32_t value) { *(int64_t *)opaque = value; }

/* QEMU's isa-debug-exit with iosize=4: a write of any width to any of 0xf4-0xf7
 * ends the run with V = the whole value written; status (V << 1) | 1 keeps its
 * low 8 bits, as the operating system does with exit(). */
START_TEST(debug_exit_values)
{
	struct debug_exit d;
	struct iobus io;
	int64_t seen = -1;
	iobus_init(&io);
	debug_exit_init(&d, DEBUG_EXIT_PORT, record_exit, &seen);
	ck_assert(debug_exit_register(&d, &io));
	ck_assert_uint_eq(iobus_read(&io, DEBUG_EXIT_PORT, 1), 0xff);
	ck_assert_uint_eq(iobus_read(&io, DEBUG_EXIT_PORT, 4), 0xffffffffu);
	ck_assert(!d.exited);
	iobus_write(&io, DEBUG_EXIT_PORT, 1, 0x10);
	ck_assert(d.exited);
	ck_assert_int_eq(d.value, 0x10);
	ck_assert_int_eq(debug_exit_status(&d), 0x21);
	ck_assert_int_eq(seen, 0x10);
	iobus_write(&io, DEBUG_EXIT_PORT, 1, 0);             /* first write wins */
	ck_assert_int_eq(d.value, 0x10);
}
END_TEST

/* One write to a fresh isa-debug-exit: {port offset, width, value} -> whether
 * the run ends, V and the status. */
static const struct debug_exit_row {
	const char *name;
	unsigned port_off, width;
	uint32_t written;
	bool exits;
	uint32_t value;
	int status;
} debug_exit_rows[] = {
	{ "a word: V = 0x100, status (0x201 & 0xff) = 1", 0, 2, 0x0100, true, 0x100, 1 },
	{ "a doubleword", 0, 4, 0x80000003u, true, 0x80000003u, 7 },
	{ "a byte at the device's last port", 3, 1, 0x05, true, 5, 11 },
	{ "port 0xf8 is not the device's", 4, 1, 0x05, false, 0, 0 },
};

START_TEST(debug_exit_writes)
{
	struct debug_exit d;
	struct iobus io;
	iobus_init(&io);
	debug_exit_init(&d, DEBUG_EXIT_PORT, NULL, NULL);
	ck_assert(debug_exit_register(&d, &io));
	const struct debug_exit_row *w = &debug_exit_rows[_i];
	iobus_write(&io, (uint16_t)(DEBUG_EXIT_PORT + w->port_off), w->width, w->written);
	ck_assert_msg(d.exited == w->exits, "%s: exited %d", w->name, d.exited);
	if (w->exits) {
		ck_assert_msg(d.value == w->value, "%s: V = %#llx", w->name, (unsigned long long)d.value);
		ck_assert_msg(debug_exit_status(&d) == w->status, "%s: status %d", w->name, debug_exit_status(&d));
	}
}
END_TEST

static void record_post(void *opaque, uint8_t code) { *(int *)opaque = code; }

START_TEST(post_codes)
{
	struct post_port p;
	struct iobus io;
	int seen = -1;
	iobus_init(&io);
	post_port_init(&p, record_post, &seen);
	ck_assert(post_port_register(&p, &io));
	iobus_write(&io, POST_PORT, 1, 0x3c);
	iobus_write(&io, POST_PORT, 1, 0x3d);
	ck_assert(p.written);
	ck_assert_uint_eq(p.last, 0x3d);
	ck_assert_uint_eq(p.count, 2);
	ck_assert_int_eq(seen, 0x3d);
	ck_assert_uint_eq(iobus_read(&io, POST_PORT, 1), 0xff);
}
END_TEST

/* ---- the virtual clock (devices/clock.h) ---- */

static uint64_t fake_now;
static uint64_t fake_time(void *ctx) { (void)ctx; return fake_now; }

struct fired { char order[8]; unsigned n; uint64_t at[8]; struct vclock *c; struct vtimer *again; };
static void note_a(void *opaque, uint64_t now) { struct fired *f = opaque; f->order[f->n] = 'a'; f->at[f->n++] = now; }
static void note_b(void *opaque, uint64_t now) { struct fired *f = opaque; f->order[f->n] = 'b'; f->at[f->n++] = now; }
static void note_rearm(void *opaque, uint64_t now)
{
	struct fired *f = opaque;
	f->order[f->n] = 'r';
	f->at[f->n++] = now;
	vtimer_arm(f->c, f->again, now + 100);
}

static uint64_t told;
static void note_deadline(void *ctx, uint64_t next) { (void)ctx; told = next; }

START_TEST(clock_timers_in_order)
{
	struct vclock c;
	struct fired f = { .c = &c };
	struct vtimer a = { .fire = note_a, .opaque = &f }, b = { .fire = note_b, .opaque = &f };
	struct vtimer r = { .fire = note_rearm, .opaque = &f };
	f.again = &r;
	vclock_init(&c, 0);
	ck_assert_uint_eq(c.hz, VCLOCK_DEFAULT_HZ);
	c.now = fake_time;
	c.deadline_changed = note_deadline;
	ck_assert_uint_eq(vclock_next(&c), VCLOCK_NEVER);
	vtimer_arm(&c, &b, 300);
	vtimer_arm(&c, &a, 100);
	ck_assert_uint_eq(told, 100);
	vtimer_arm(&c, &r, 300);          /* same time as b: armed later, fires later */
	fake_now = 250;
	vclock_run_due(&c, vclock_now(&c));
	ck_assert_uint_eq(f.n, 1);
	ck_assert_uint_eq(told, 300);
	vclock_run_due(&c, 300);
	ck_assert_int_eq(memcmp(f.order, "abr", 3), 0);
	ck_assert_uint_eq(vclock_next(&c), 400);      /* r re-armed itself */
	vtimer_cancel(&c, &r);
	ck_assert_uint_eq(vclock_next(&c), VCLOCK_NEVER);
	ck_assert_uint_eq(told, VCLOCK_NEVER);
}
END_TEST

/* Conversions to a device frequency are exact and round the other way up, so
 * a timer armed for a count never fires before the count is reached. */
START_TEST(clock_conversions)
{
	struct vclock c;
	vclock_init(&c, 1000000000ull);
	ck_assert_uint_eq(vclock_ticks_to(&c, 1000000000ull, 1193182), 1193182);  /* one second of PIT */
	ck_assert_uint_eq(vclock_ticks_to(&c, 838, 1193182), 0);
	ck_assert_uint_eq(vclock_ticks_to(&c, 839, 1193182), 1);
	ck_assert_uint_eq(vclock_ticks_from(&c, 1, 1193182), 839);
	ck_assert_uint_eq(vclock_ticks_to(&c, vclock_ticks_from(&c, 65536, 1193182), 1193182), 65536);
	ck_assert_uint_eq(vclock_ticks_to(&c, UINT64_MAX / 2, 1000000000ull), UINT64_MAX / 2);
}
END_TEST

static Suite *devices_suite(void)
{
	Suite *s = suite_create("devices");
	TCase *bus = tcase_create("bus");
	tcase_add_test(bus, bus_ram_rw);
	tcase_add_test(bus, bus_ram_layout);
	tcase_add_test(bus, bus_unclaimed_and_edge);
	tcase_add_test(bus, bus_mmio_and_overlap);
	tcase_add_test(bus, bus_rom);
	tcase_add_test(bus, bus_ports);
	suite_add_tcase(s, bus);
	TCase *uart = tcase_create("uart");
	tcase_add_test(uart, uart_thr_output);
	tcase_add_test(uart, uart_dlab_scratch);
	tcase_add_test(uart, uart_irq_line);
	tcase_add_test(uart, uart_loopback_and_iir);
	tcase_add_test(uart, uart_receive_input);
	suite_add_tcase(s, uart);
	TCase *misc = tcase_create("ports");
	tcase_add_test(misc, debug_exit_values);
	tcase_add_loop_test(misc, debug_exit_writes, 0, sizeof(debug_exit_rows) / sizeof(debug_exit_rows[0]));
	tcase_add_test(misc, post_codes);
	suite_add_tcase(s, misc);
	TCase *clock = tcase_create("clock");
	tcase_add_test(clock, clock_timers_in_order);
	tcase_add_test(clock, clock_conversions);
	suite_add_tcase(s, clock);
	return s;
}

int main(void)
{
	return run_suite(devices_suite());
}
