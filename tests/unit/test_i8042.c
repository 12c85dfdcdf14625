/* Check suite for devices/i8042.c and devices/ps2_keyboard.c: the 8042's
 * status, command byte and commands, IRQ1/IRQ12, the reset and A20 hooks, and
 * the keyboard's protocol and scan codes, translated and not (A. Brouwer,
 * "Keyboard scancodes", sections 9-11). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/i8042.h"
#include "suite_runner.h"

struct lines {
	bool level[16];
	unsigned rises[16];
	unsigned resets, a20_calls;
	bool a20;
	char source[96];
};

static void line_set(void *opaque, unsigned pin, bool level)
{
	struct lines *l = opaque;
	if (level && !l->level[pin])
		l->rises[pin]++;
	l->level[pin] = level;
}

static void power(void *opaque, enum power_request what, const char *source)
{
	struct lines *l = opaque;
	ck_assert_int_eq(what, POWER_RESET);
	l->resets++;
	snprintf(l->source, sizeof(l->source), "%s", source);
}

static void hook_a20(void *opaque, bool on)
{
	struct lines *l = opaque;
	l->a20_calls++;
	l->a20 = on;
}

static struct i8042 kbc;
static struct lines lines;
static struct power_control power_control = { .request = power, .opaque = &lines };

static void setup(void)
{
	memset(&lines, 0, sizeof(lines));
	i8042_init(&kbc, &power_control);
	kbc.irq1 = (struct irq_line){ .set = line_set, .opaque = &lines, .pin = 1 };
	kbc.irq12 = (struct irq_line){ .set = line_set, .opaque = &lines, .pin = 12 };
	i8042_connect_a20(&kbc, hook_a20, &lines);
}

static uint8_t status(void)
{
	return i8042_read(&kbc, 0x64);
}

static void command(uint8_t c)
{
	i8042_write(&kbc, 0x64, c);
}

static void data(uint8_t d)
{
	i8042_write(&kbc, 0x60, d);
}

/* The next byte of the output buffer (which must be full). */
static uint8_t next(void)
{
	ck_assert_msg(status() & I8042_STR_OBF, "output buffer empty");
	return i8042_read(&kbc, 0x60);
}

static void expect(const uint8_t *bytes, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint8_t b = next();
		ck_assert_msg(b == bytes[i], "byte %u: %02x, expected %02x", i, b, bytes[i]);
	}
	ck_assert_msg(!(status() & I8042_STR_OBF), "more bytes than expected");
}

#define EXPECT(...) do { static const uint8_t e_[] = { __VA_ARGS__ }; expect(e_, sizeof(e_)); } while (0)

static void key(const char *name, bool down)
{
	const struct ps2_key *k = ps2_key_by_name(name, strlen(name));
	ck_assert_ptr_nonnull(k);
	i8042_key(&kbc, k, down);
}

START_TEST(status_and_command_byte)
{
	/* Brouwer 10.1: typically 14h, keyboard not locked, self-test done. */
	ck_assert_uint_eq(status(), 0x14);
	command(0x20);
	ck_assert_uint_eq(status(), 0x14 | I8042_STR_OBF | I8042_STR_CMD);
	EXPECT(0x61);              /* IRQ1, mouse off, translate (SeaBIOS's) */
	command(0x60);
	data(0xff);
	ck_assert_uint_eq(status() & I8042_STR_CMD, 0);
	command(0x20);
	EXPECT(0x7f);              /* bit 7 is always 0 */
	command(0x60);
	data(0x41);                /* system flag clear: status bit 2 follows */
	ck_assert_uint_eq(status() & I8042_STR_SYS, 0);
	command(0x60);
	data(0x45);
	ck_assert_uint_eq(status() & I8042_STR_SYS, I8042_STR_SYS);
	command(0x75);             /* controller RAM byte 15h */
	data(0x5a);
	command(0x35);
	EXPECT(0x5a);
}
END_TEST

START_TEST(tests_and_ports)
{
	command(0x60);
	data(0x00);
	ck_assert(!(status() & I8042_STR_SYS));
	command(0xaa);
	EXPECT(0x55);
	ck_assert(status() & I8042_STR_SYS);   /* a passed self-test sets the system flag */
	command(0x20);
	EXPECT(0x00);                          /* but not the command byte's bit 2 */
	command(0xab);
	EXPECT(0x00);
	command(0xa9);
	EXPECT(0x00);
	command(0xc0);
	EXPECT(0xa3);
	command(0xd0);
	EXPECT(0xcf);              /* not in reset, A20 on, lines idle, buffer empty */
	command(0xe0);
	EXPECT(0x03);              /* keyboard and mouse clocks high */
	command(0xa7);
	command(0xe0);
	EXPECT(0x01);              /* the mouse clock held low */
	command(0x20);
	EXPECT(0x20);
	/* D2h: a byte as if from the keyboard; D0h then sees bit 4 set. */
	command(0xd2);
	data(0x99);
	command(0xd0);
	EXPECT(0xdf);
}
END_TEST

START_TEST(irq_lines)
{
	command(0xd2);
	data(0x12);
	ck_assert(lines.level[1]);
	ck_assert_uint_eq(lines.rises[1], 1);
	EXPECT(0x12);
	ck_assert(!lines.level[1]);
	/* D3h: auxiliary data, IRQ12 only with command byte bit 1. */
	command(0xd3);
	data(0x34);
	ck_assert(status() & I8042_STR_AUXB);
	ck_assert(!lines.level[12]);
	ck_assert(!lines.level[1]);
	command(0x60);
	data(0x67);
	ck_assert(lines.level[12]);
	EXPECT(0x34);
	ck_assert(!lines.level[12]);
	/* No IRQ1 without command byte bit 0. */
	command(0x60);
	data(0x64);
	key("A", true);
	ck_assert(!lines.level[1]);
	ck_assert(status() & I8042_STR_OBF);
	command(0x60);             /* enabling IRQ1 with keyboard data waiting raises it */
	data(0x65);
	ck_assert(lines.level[1]);
}
END_TEST

START_TEST(translated_scan_codes)
{
	/* Set 2 through the translation: set 1 codes, F0h turned into bit 7. */
	key("A", true);
	key("A", false);
	EXPECT(0x1e, 0x9e);
	key("Up", true);
	key("Up", false);
	EXPECT(0xe0, 0x48, 0xe0, 0xc8);
	key("F7", true);           /* set 2 83h, one of the two above 7Fh */
	EXPECT(0x41);
	key("KPStar", true);
	key("RCtrl", true);
	key("RCtrl", false);
	EXPECT(0x37, 0xe0, 0x1d, 0xe0, 0x9d);
}
END_TEST

START_TEST(untranslated_scan_codes)
{
	command(0x60);
	data(0x25);                /* translation off, IRQs off */
	key("A", true);
	key("A", false);
	EXPECT(0x1c, 0xf0, 0x1c);
	key("Delete", false);
	EXPECT(0xe0, 0xf0, 0x71);
	/* Set 1 from the keyboard itself. */
	data(0xf0);
	data(0x01);
	EXPECT(0xfa, 0xfa);
	key("A", true);
	key("A", false);
	key("Left", false);
	EXPECT(0x1e, 0x9e, 0xe0, 0xcb);
	data(0xf0);
	data(0x00);
	EXPECT(0xfa, 0xfa, 0x01);
}
END_TEST

START_TEST(keyboard_commands)
{
	data(0xf2);                /* identify: MF2, AB 83h, 83h translated to 41h */
	EXPECT(0xfa, 0xab, 0x41);
	data(0xee);
	EXPECT(0xee);
	data(0xf0);                /* current set: 2, translated to 41h (both bytes ACKed) */
	data(0x00);
	EXPECT(0xfa, 0xfa, 0x41);
	data(0xf0);
	data(0x03);                /* set 3 is not supported */
	EXPECT(0xfa, 0xfe);
	data(0xed);
	data(0x07);
	EXPECT(0xfa, 0xfa);
	ck_assert_uint_eq(kbc.kbd.leds, 7);
	data(0xed);                /* an argument that is a command runs as one */
	data(0xee);
	EXPECT(0xfa, 0xee);
	data(0xf3);
	data(0x20);
	EXPECT(0xfa, 0xfa);
	ck_assert_uint_eq(kbc.kbd.typematic, 0x20);
	data(0x12);                /* not a command */
	EXPECT(0xfe);
	data(0xfe);                /* resend the last byte */
	EXPECT(0xfe);
	data(0xf5);                /* disable: no codes */
	EXPECT(0xfa);
	key("B", true);
	ck_assert(!(status() & I8042_STR_OBF));
	data(0xf4);
	EXPECT(0xfa);
	key("B", true);
	EXPECT(0x30);
	data(0xff);                /* reset: ACK, then the BAT code */
	EXPECT(0xfa, 0xaa);
	ck_assert_uint_eq(kbc.kbd.leds, 0);
	ck_assert_uint_eq(kbc.kbd.scan_set, 2);
}
END_TEST

START_TEST(keyboard_disable_enable)
{
	command(0xad);
	command(0x20);
	EXPECT(0x71);
	key("C", true);
	ck_assert(!(status() & I8042_STR_OBF));   /* the clock is held: the code waits */
	command(0xae);
	EXPECT(0x2e);
	command(0xad);
	/* Brouwer 10.3: "Any keyboard command enables the keyboard again." */
	data(0xee);
	EXPECT(0xee);
	command(0x20);
	EXPECT(0x61);
}
END_TEST

START_TEST(keyboard_overrun)
{
	command(0x60);
	data(0x24);                /* untranslated set 2 */
	/* The first code moves into the output buffer, 16 more fill the
	 * keyboard's buffer, whose last place then takes the overrun code. */
	for (unsigned i = 0; i < 20; i++)
		key("A", true);
	for (unsigned i = 0; i < 17; i++)
		ck_assert_uint_eq(next(), i < 16 ? 0x1c : 0x00);
	/* Reading an empty buffer returns the last byte again. */
	ck_assert(!(status() & I8042_STR_OBF));
	ck_assert_uint_eq(i8042_read(&kbc, 0x60), 0x00);
}
END_TEST

START_TEST(reset_and_a20)
{
	command(0xff);             /* pulses nothing */
	ck_assert_uint_eq(lines.resets, 0);
	command(0xfe);             /* pulses bit 0: reset */
	ck_assert_uint_eq(lines.resets, 1);
	ck_assert_str_eq(lines.source, "8042 command 0xfe (pulse the reset line)");
	command(0xf0);             /* bits 3-0 all pulsed, reset among them */
	ck_assert_uint_eq(lines.resets, 2);
	command(0xd1);
	data(0xcd);                /* A20 off, reset line high */
	ck_assert_uint_eq(lines.a20_calls, 1);
	ck_assert(!lines.a20);
	ck_assert_uint_eq(lines.resets, 2);
	command(0xd0);
	EXPECT(0xcd);
	command(0xdf);
	ck_assert(lines.a20);
	command(0xdd);
	ck_assert(!lines.a20);
	command(0xd1);
	data(0xce);                /* bit 0 low: reset */
	ck_assert_uint_eq(lines.resets, 3);
	ck_assert_str_eq(lines.source, "8042 output port write 0xce (reset line low)");
	for (unsigned c = 0; c < 0x100; c++)
		ck_assert_int_eq(i8042_command_resets((uint8_t)c), c >= 0xf0 && !(c & 1));
	/* D4h: no mouse answers; the time-out bit says so. */
	command(0xd4);
	data(0xf2);
	ck_assert(status() & I8042_STR_TIMEOUT);
	ck_assert(!(status() & I8042_STR_OBF));
}
END_TEST

START_TEST(key_table)
{
	bool shift;
	ck_assert_ptr_eq(ps2_key_by_char('A', &shift), ps2_key_by_name("a", 1));
	ck_assert(shift);
	ck_assert_ptr_eq(ps2_key_by_char('/', &shift), ps2_key_by_name("Slash", 5));
	ck_assert(!shift);
	ck_assert_ptr_eq(ps2_key_by_char('\n', &shift), ps2_key_by_name("enter", 5));
	ck_assert_ptr_eq(ps2_key_by_usb(0x52), ps2_key_by_name("Up", 2));   /* HID Up Arrow */
	ck_assert_ptr_null(ps2_key_by_name("Nope", 4));
	/* Every key's set 1 code is the translation of its set 2 code (Brouwer
	 * 9.4), and no two keys share codes. */
	for (unsigned i = 0; i < ps2_key_count; i++)
		for (unsigned j = i + 1; j < ps2_key_count; j++) {
			ck_assert_msg(ps2_keys[i].usb != ps2_keys[j].usb, "%s", ps2_keys[i].name);
			ck_assert_msg(ps2_keys[i].set2 != ps2_keys[j].set2 || ps2_keys[i].e0 != ps2_keys[j].e0,
				      "%s and %s", ps2_keys[i].name, ps2_keys[j].name);
		}
	ck_assert_uint_eq(ps2_translate(0x76), 0x01);   /* Esc */
	ck_assert_uint_eq(ps2_translate(0x5a), 0x1c);   /* Enter */
	ck_assert_uint_eq(ps2_translate(0x84), 0x54);
	ck_assert_uint_eq(ps2_translate(0xfa), 0xfa);
	ck_assert_uint_eq(ps2_translate(0x00), 0xff);   /* the overrun code */
}
END_TEST

static Suite *i8042_suite(void)
{
	Suite *s = suite_create("i8042");
	TCase *ctl = tcase_create("controller");
	tcase_add_checked_fixture(ctl, setup, NULL);
	tcase_add_test(ctl, status_and_command_byte);
	tcase_add_test(ctl, tests_and_ports);
	tcase_add_test(ctl, irq_lines);
	tcase_add_test(ctl, reset_and_a20);
	suite_add_tcase(s, ctl);
	TCase *kbd = tcase_create("keyboard");
	tcase_add_checked_fixture(kbd, setup, NULL);
	tcase_add_test(kbd, translated_scan_codes);
	tcase_add_test(kbd, untranslated_scan_codes);
	tcase_add_test(kbd, keyboard_commands);
	tcase_add_test(kbd, keyboard_disable_enable);
	tcase_add_test(kbd, keyboard_overrun);
	tcase_add_test(kbd, key_table);
	suite_add_tcase(s, kbd);
	return s;
}

int main(void)
{
	return run_suite(i8042_suite());
}
