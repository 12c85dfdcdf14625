/* The 8042 keyboard controller and its PS/2 keyboard, polled (A. Brouwer,
 * "Keyboard scancodes": 10 the controller, 11 keyboard commands, 9 scan code
 * sets and the set 2 to set 1 translation).
 *
 * Always: the status register, the command byte, self and interface tests,
 * the output port, D2h (a byte as if from the keyboard), keyboard disable
 * and enable, and the keyboard's answers (echo, identify, scan code set get
 * and set, LEDs, reset); IRQ1 through the 8259A (ISA IRQ1) while the output
 * buffer holds keyboard data and command byte bit 0 is set.
 * With "keys=typed" on the command line (hvemu runs it with --keys, see
 * meson.build), the keys typed at given virtual times: "Hi<Enter>" from 50 ms
 * as translated set 1 codes, the first arriving at 50 ms of virtual time
 * (hvemu's TSC counts virtual nanoseconds), then <Up> and <Delete> from
 * 150 ms as untranslated set 2 codes.
 * With "keys=window" (tests/display/screenshot_test.py sdl-keys), the key
 * 'a' that xdotool types into the --display sdl window. */
#include "lib/guest.h"
#include "lib/pc_irq.h"

int cmdline_has(const char *word);

#define DATA 0x60
#define STATUS 0x64
#define OBF 0x01
#define IBF 0x02
#define NO_BYTE 0x100u

static uint64_t arrived_at;       /* TSC just after the status read that showed the last byte */

/* The next byte of the output buffer, or NO_BYTE after limit TSC ticks. */
static uint32_t read_byte(uint64_t limit)
{
	uint64_t t0 = rdtsc();
	for (;;) {
		uint64_t t = rdtsc();
		if (inb(STATUS) & OBF) {
			/* Read after the status: a byte that arrived between the
			 * two reads must not look earlier than it came. */
			arrived_at = rdtsc();
			return inb(DATA);
		}
		if (t - t0 > limit)
			return NO_BYTE;
	}
}

#define SHORT 20000000ull          /* an answer: immediate on hvemu, quick on QEMU */

static void wait_input_empty(void)
{
	for (unsigned i = 0; i < 100000 && (inb(STATUS) & IBF); i++)
		;
}

static void command(uint8_t c)
{
	wait_input_empty();
	outb(STATUS, c);
}

static void data(uint8_t d)
{
	wait_input_empty();
	outb(DATA, d);
}

static void flush(void)
{
	while (read_byte(1000000) != NO_BYTE)
		;
}

/* Check that the next bytes are want[0..n). */
static void expect(const char *name, const uint8_t *want, unsigned n, uint64_t limit)
{
	uint32_t got[8];
	unsigned ok = 1;
	for (unsigned i = 0; i < n; i++) {
		got[i] = read_byte(limit);
		ok &= got[i] == want[i];
	}
	if (!ok)
		for (unsigned i = 0; i < n; i++)
			note("%s: byte %u is %x, expected %x", name, i, got[i], want[i]);
	check_true(name, ok);
}

static uint8_t read_command_byte(void)
{
	command(0x20);
	return (uint8_t)read_byte(SHORT);
}

static void write_command_byte(uint8_t v)
{
	command(0x60);
	data(v);
}

/* A byte to the keyboard, answered with ACK (FAh): the host waits for it
 * before sending the next (11: "Each command (other than 0xfe) is ACKed"). */
static void send(const char *name, uint8_t b)
{
	data(b);
	uint32_t ack = read_byte(SHORT);
	if (ack != 0xfa)
		note("%s: %x answered %x, not ACK", name, b, ack);
	check(name, ack, 0xfa);
}

static void test_controller(uint8_t firmware_ccb)
{
	uint8_t st = inb(STATUS);
	note("status %x, command byte as the firmware left it %x", st, firmware_ccb);
	/* 10.1: keyboard not locked. The system flag is the firmware's: set by
	 * its self-test, then bit 2 of the last command byte it wrote (10.2),
	 * if it wrote one after (SeaBIOS does, with bit 2 clear); the checks
	 * below set both ways themselves. */
	check("status: keyboard not locked (10h)", st & 0x10, 0x10);
	check("command byte: translation on (bit 6)", (firmware_ccb >> 6) & 1, 1);
	/* Polling from here: no IRQs, no translation. Bit 2 of the command byte
	 * "is shown in bit 2 of the status register" (10.2). */
	write_command_byte(0x20);
	check("command byte written and read back", read_command_byte(), 0x20);
	check_quirk("status system flag follows command byte bit 2", (inb(STATUS) >> 2) & 1, 0,
		    "QEMU keeps the status system flag apart from the command byte");
	command(0xaa);
	check("self-test answers 55h", read_byte(SHORT), 0x55);
	check("a passed self-test sets the system flag", (inb(STATUS) >> 2) & 1, 1);
	check("... and leaves the command byte", read_command_byte(), 0x20);
	write_command_byte(0x24);
	command(0xab);
	check("keyboard interface test answers 00h", read_byte(SHORT), 0x00);
	command(0xd0);
	check("output port: not in reset, A20 enabled", read_byte(SHORT) & 3, 3);
	command(0xd2);
	data(0x5a);
	check("D2h: the byte comes back as keyboard data", read_byte(SHORT), 0x5a);
	command(0xad);
	check("ADh sets command byte bit 4", (read_command_byte() >> 4) & 1, 1);
	command(0xae);
	check("AEh clears command byte bit 4", (read_command_byte() >> 4) & 1, 0);
	/* Keyboard commands, untranslated (11). */
	data(0xee);
	check("keyboard echo EEh", read_byte(SHORT), 0xee);
	send("identify: ACK", 0xf2);
	expect("identify: AB 83h (MF2)", (const uint8_t[]){ 0xab, 0x83 }, 2, SHORT);
	send("scan code set: ACK", 0xf0);
	send("get (0): ACK", 0x00);
	check("the current set is 2", read_byte(SHORT), 0x02);
	send("scan code set: ACK", 0xf0);
	send("select set 1: ACK", 0x01);
	send("scan code set: ACK", 0xf0);
	send("get (0): ACK", 0x00);
	check("the current set is 1", read_byte(SHORT), 0x01);
	send("scan code set: ACK", 0xf0);
	send("select set 2: ACK", 0x02);
	send("set LEDs: ACK", 0xed);
	send("LEDs off: ACK", 0x00);
	send("reset: ACK", 0xff);
	check("reset: BAT passed (AAh)", read_byte(SHORT * 5), 0xaa);
	/* Translated (9.3): answers above 7Fh pass, 83h becomes 41h. */
	write_command_byte(0x64);
	send("identify, translated: ACK", 0xf2);
	expect("identify, translated: AB 41h", (const uint8_t[]){ 0xab, 0x41 }, 2, SHORT);
	send("scan code set: ACK", 0xf0);
	send("get (0): ACK", 0x00);
	check("set 2, translated: 41h", read_byte(SHORT), 0x41);
}

static void test_typed_keys(void)
{
	/* --keys=50ms:Hi<Enter>: LShift, H, I, Enter as translated set 1 codes. */
	write_command_byte(0x64);
	uint32_t first = read_byte(200000000);
	uint64_t when = arrived_at;
	check("first typed byte: LShift make (2Ah)", first, 0x2a);
	note("it arrived at TSC %u", (uint32_t)when);
	check("it arrived at 50 ms of virtual time", when >= 50000000 && when < 50100000, 1);
	expect("'Hi' and Enter, translated",
	       (const uint8_t[]){ 0x23, 0xa3, 0xaa, 0x17, 0x97, 0x1c, 0x9c }, 7, 50000000);
	/* --keys=150ms:<Up><Delete>: set 2 with translation off. */
	write_command_byte(0x24);
	expect("Up and Delete, untranslated set 2",
	       (const uint8_t[]){ 0xe0, 0x75, 0xe0, 0xf0, 0x75, 0xe0, 0x71, 0xe0, }, 8, 200000000);
	expect("Delete's break ends it", (const uint8_t[]){ 0xf0, 0x71 }, 2, 50000000);
	check("nothing more was typed", read_byte(10000000), NO_BYTE);
}

static void test_window_key(void)
{
	write_command_byte(0x24);
	write_command_byte(0x64);                /* translated, polled */
	/* Up to 30 s of virtual time for the test to type into the window. */
	uint32_t make = read_byte(30000000000ull);
	check("'a' pressed in the window: make code 1Eh", make, 0x1e);
	check("'a' released: break code 9Eh", read_byte(2000000000ull), 0x9e);
}

/* 10.2: command byte bit 0 raises IRQ1 when keyboard data is in the output
 * buffer; the machine wires it to the master 8259A's IR1 (ISA IRQ1). */
static void test_irq1(void)
{
	uint32_t vector = IRQ_BASE_MASTER + 1;
	cli();
	irq_count_vectors(IRQ_BASE_MASTER, 8);
	pic_remap(0);
	pic_set_mask((uint16_t)~(1u << 1));
	irq_reset_counts();
	write_command_byte(0x25);          /* IRQ1 on, system flag, no translation */
	command(0xd2);
	data(0x3c);
	__asm__ volatile("sti; nop; nop; nop; cli" ::: "memory");
	check("IRQ1: keyboard data with command byte bit 0 interrupts once", irq_count[vector], 1);
	check("IRQ1: the byte is still there to read", read_byte(SHORT), 0x3c);
	write_command_byte(0x24);          /* IRQ1 off */
	command(0xd2);
	data(0x3d);
	__asm__ volatile("sti; nop; nop; nop; cli" ::: "memory");
	check("no IRQ1 with command byte bit 0 clear", irq_count[vector], 1);
	check("... and the byte is there", read_byte(SHORT), 0x3d);
	pic_set_mask(0xffff);
}

void guest_main(void)
{
	flush();
	uint8_t firmware_ccb = read_command_byte();
	test_controller(firmware_ccb);
	test_irq1();
	if (cmdline_has("keys=typed"))
		test_typed_keys();
	else if (cmdline_has("keys=window"))
		test_window_key();
	else
		skip("typed keys", "nothing types here (hvemu runs this guest with --keys)");
	flush();
	write_command_byte(firmware_ccb);
}
