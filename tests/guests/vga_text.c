/* VGA colour text mode 3 as a guest sees it (IBM VGA Technical Reference):
 * the registers a BIOS and a text-mode kernel read and write (misc output,
 * CRTC index/data with the CR11 write protection, the attribute controller's
 * flip-flop reset by reading 3DAh, the DAC, the retrace bit of Input
 * Status 1 and the frame period it shows), the text buffer at B8000h read
 * back as RAM; then it leaves a screen for tests/display/screenshot_test.py
 * to check in a screenshot: a title bar, the 16 colours as foregrounds and as
 * backgrounds, a double-line box, a blinking word, code page 437 symbols and
 * the cursor at row 20, column 16. */
#include "lib/guest.h"

#define CRTC_INDEX 0x3d4
#define CRTC_DATA 0x3d5
#define INPUT_STATUS1 0x3da
#define AC_INDEX 0x3c0
#define AC_READ 0x3c1
#define MISC_READ 0x3cc

static volatile uint16_t *const screen = (volatile uint16_t *)0xb8000;

static uint64_t rdtsc(void)
{
	uint32_t a, d;
	__asm__ volatile("rdtsc" : "=a"(a), "=d"(d));
	return ((uint64_t)d << 32) | a;
}

static uint8_t crtc_read(uint8_t i)
{
	outb(CRTC_INDEX, i);
	return inb(CRTC_DATA);
}

static void crtc_write(uint8_t i, uint8_t v)
{
	outb(CRTC_INDEX, i);
	outb(CRTC_DATA, v);
}

static void put(unsigned row, unsigned col, const char *s, uint8_t attr)
{
	for (; *s; s++, col++)
		screen[row * 80 + col] = (uint16_t)((uint8_t)*s | attr << 8);
}

static void put_char(unsigned row, unsigned col, uint8_t ch, uint8_t attr)
{
	screen[row * 80 + col] = (uint16_t)(ch | attr << 8);
}

static void test_registers(void)
{
	/* Mode 3's Miscellaneous Output: 67h (colour I/O at 3Dxh, 28 MHz clock). */
	check("misc output (3CCh) is mode 3's 67h", inb(MISC_READ), 0x67);
	check("CR09 max scan line: 16-line cells", crtc_read(0x09) & 0x1f, 15);
	check("CR13 offset: 80 characters a row", crtc_read(0x13), 0x28);
	check("CR0A cursor start: scan line 13", crtc_read(0x0a) & 0x1f, 13);
	check("CR0B cursor end: scan line 14", crtc_read(0x0b) & 0x1f, 14);
	crtc_write(0x0e, 0x07);
	crtc_write(0x0f, 0xd0);
	check("CRTC index register reads back", inb(CRTC_INDEX), 0x0f);
	check("cursor location high reads back", crtc_read(0x0e), 0x07);
	check("cursor location low reads back", crtc_read(0x0f), 0xd0);
	/* CR11 bit 7 write-protects CR00-CR07 (mode 3 sets it). */
	uint8_t cr11 = crtc_read(0x11), cr01 = crtc_read(0x01);
	check("CR11 protect bit set in mode 3", cr11 >> 7, 1);
	crtc_write(0x01, cr01 ^ 0x10);
	check("CR01 ignores writes while CR11.7 is set", crtc_read(0x01), cr01);

	/* The attribute controller: reading 3DAh puts the flip-flop at index. */
	inb(INPUT_STATUS1);
	outb(AC_INDEX, 0x30);                   /* mode control, palette address source on */
	check_quirk("AC index reads back at 3C0h", inb(AC_INDEX), 0x30,
		    "QEMU reads 3C0h as 0 while the flip-flop points at data");
	uint8_t mode = inb(AC_READ);
	check("AC mode control: blink and line graphics (0Ch)", mode, 0x0c);
	outb(AC_INDEX, mode);                   /* the data half of the pair */
	/* The overscan colour (not shown: the picture has no border) takes a
	 * data write; reading 3DAh between index and data makes the next write
	 * an index again. */
	inb(INPUT_STATUS1);
	outb(AC_INDEX, 0x31);
	outb(AC_INDEX, 0x05);
	inb(INPUT_STATUS1);
	outb(AC_INDEX, 0x31);
	check("AC overscan register takes the data write", inb(AC_READ), 0x05);
	inb(INPUT_STATUS1);                     /* reset: 32h below is an index */
	outb(AC_INDEX, 0x32);
	check("AC index after a 3DAh reset (colour plane enable)", inb(AC_READ), 0x0f);
	outb(AC_INDEX, 0x0f);
	inb(INPUT_STATUS1);
	outb(AC_INDEX, 0x31);
	check("the overscan register kept its value", inb(AC_READ), 0x05);
	outb(AC_INDEX, 0x00);
	inb(INPUT_STATUS1);
	outb(AC_INDEX, 0x26);                   /* palette 6 (brown) */
	check("AC palette 6 is 14h (brown)", inb(AC_READ), 0x14);
	outb(AC_INDEX, 0x14);

	/* The DAC: an entry the text palette does not use, written and read back. */
	outb(0x3c8, 0x80);
	outb(0x3c9, 0x11);
	outb(0x3c9, 0x22);
	outb(0x3c9, 0x33);
	check("DAC write index advances after 3 components", inb(0x3c8), 0x81);
	outb(0x3c7, 0x80);
	check("DAC state after 3C7h: read mode (3)", inb(0x3c7) & 3, 3);
	uint8_t r = inb(0x3c9), g = inb(0x3c9), b = inb(0x3c9);
	check("DAC entry 80h reads back", (uint32_t)r << 16 | g << 8 | b, 0x112233);
	outb(0x3c7, 0x14);
	r = inb(0x3c9), g = inb(0x3c9), b = inb(0x3c9);
	check("DAC entry 14h is the BIOS brown (2Ah, 15h, 00h)", (uint32_t)r << 16 | g << 8 | b, 0x2a1500);
}

/* Input Status 1 bit 3: wait for a change to want; the TSC when it came, or
 * 0 after too long. */
static uint64_t wait_retrace(int want, uint64_t limit)
{
	uint64_t t0 = rdtsc();
	for (;;) {
		uint64_t t = rdtsc();
		if (((inb(INPUT_STATUS1) >> 3) & 1) == want)
			return t;
		if (t - t0 > limit)
			return 0;
	}
}

static void test_retrace(void)
{
	/* Two retrace starts a frame apart: mode 3 is 449 lines of 900 dots at
	 * 28.322 MHz, 70.087 Hz, so 14,268,000 ns; hvemu's TSC counts virtual
	 * nanoseconds at its default instruction rate. */
	const uint64_t limit = 100000000;
	uint64_t t = 0;
	int seen = wait_retrace(0, limit) && wait_retrace(1, limit) && wait_retrace(0, limit) &&
		   (t = wait_retrace(1, limit)) != 0;
	check("Input Status 1 bit 3 goes on and off", seen, 1);
	uint64_t t2 = seen ? wait_retrace(0, limit) : 0, t3 = t2 ? wait_retrace(1, limit) : 0;
	uint32_t period = (uint32_t)(t3 - t);
	note("retrace to retrace: %u TSC ticks", period);
	check_quirk("frame period 14.27 ms (70 Hz) within 0.1%", period > 14254000 && period < 14282000, 1,
		    "QEMU's Input Status 1 flips on every read");
}

static void draw_screen(void)
{
	for (unsigned i = 0; i < 80 * 25; i++)
		screen[i] = 0x0720;
	for (unsigned col = 0; col < 80; col++)
		put_char(0, col, ' ', 0x1f);
	put(0, 2, "hvemu VGA text mode", 0x1f);
	/* Row 2: foregrounds 0-15 as full blocks; row 3: backgrounds 0-15 (with
	 * blinking on, bit 7 blinks: the background shows colours 0-7). */
	for (unsigned c = 0; c < 16; c++)
		for (unsigned k = 0; k < 4; k++) {
			put_char(2, c * 4 + k, 0xdb, (uint8_t)c);
			put_char(3, c * 4 + k, ' ', (uint8_t)(c << 4));
		}
	put(5, 2, "\xc9\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xbb", 0x0e);
	put(6, 2, "\xba  Box   \xba", 0x0e);
	put(7, 2, "\xc8\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xbc", 0x0e);
	put(9, 2, "Blinking", 0x8c);
	for (unsigned c = 1; c < 32; c++)
		put_char(11, 1 + c, (uint8_t)c, 0x0b);
	for (unsigned c = 0; c < 48; c++)
		put_char(12, 2 + c, (uint8_t)(0xb0 + c), 0x0b);
	put(20, 2, "Cursor here ->", 0x0a);
	put_char(20, 16, ' ', 0x0a);
	crtc_write(0x0e, (20 * 80 + 16) >> 8);
	crtc_write(0x0f, (20 * 80 + 16) & 0xff);
}

void guest_main(void)
{
	test_registers();
	test_retrace();
	draw_screen();
	/* The window is memory: what was written reads back. */
	check("B8000h reads back the title's first cell", screen[2], 0x1f68);
	check("B8000h reads back a box corner", screen[5 * 80 + 2], 0x0ec9);
	check("B8000h reads back the blinking word", screen[9 * 80 + 2], 0x8c42);
	screen[24 * 80 + 79] = 0x4321;
	check("a word written to the last cell reads back", screen[24 * 80 + 79], 0x4321);
	screen[24 * 80 + 79] = 0x0720;
	check("the cursor is at row 20, column 16", (uint32_t)crtc_read(0x0e) << 8 | crtc_read(0x0f), 20 * 80 + 16);
}
