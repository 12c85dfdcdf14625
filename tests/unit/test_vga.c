/* Check suite for devices/vga.c: the registers a text-mode guest and a BIOS
 * read and write (IBM VGA Technical Reference), the beam position in Input
 * Status 1, and the picture (font, colours, blink, cursor, start address). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "devices/vga.h"
#include "devices/vga_font.h"
#include "suite_runner.h"

/* A clock ticking at the mode 3 dot clock (28.322 MHz): a tick is a dot. */
#define DOT_HZ 28322000ull

static uint64_t fake_now;

static uint64_t now_fn(void *ctx)
{
	return fake_now;
}

struct rig {
	struct vclock clock;
	uint8_t text[VGA_TEXT_SIZE];
	struct vga v;
	uint32_t px[VGA_HEIGHT * VGA_MAX_WIDTH];
};

static struct rig *rig_new(void)
{
	struct rig *r = calloc(1, sizeof(*r));
	ck_assert_ptr_nonnull(r);
	vclock_init(&r->clock, DOT_HZ);
	r->clock.now = now_fn;
	fake_now = 0;
	vga_init(&r->v, r->text, &r->clock);
	return r;
}

static uint8_t crtc_read(struct vga *v, uint8_t i)
{
	vga_port_write(v, 0x3d4, i);
	return vga_port_read(v, 0x3d5);
}

static void crtc_write(struct vga *v, uint8_t i, uint8_t val)
{
	vga_port_write(v, 0x3d4, i);
	vga_port_write(v, 0x3d5, val);
}

static void put_cell(struct rig *r, unsigned row, unsigned col, uint8_t ch, uint8_t attr)
{
	r->text[(row * 80 + col) * 2] = ch;
	r->text[(row * 80 + col) * 2 + 1] = attr;
}

static uint32_t pixel(struct rig *r, unsigned x, unsigned y)
{
	return r->px[y * VGA_MAX_WIDTH + x];
}

static void render(struct rig *r, uint64_t frame)
{
	vga_render(&r->v, r->px, VGA_MAX_WIDTH, frame);
}

/* The default 16 colours (EGA palette through the mode 3 attribute palette). */
static const uint32_t rgb16[16] = {
	0x000000, 0x0000aa, 0x00aa00, 0x00aaaa, 0xaa0000, 0xaa00aa, 0xaa5500, 0xaaaaaa,
	0x555555, 0x5555ff, 0x55ff55, 0x55ffff, 0xff5555, 0xff55ff, 0xffff55, 0xffffff,
};

START_TEST(mode3_state)
{
	struct rig *r = rig_new();
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3cc), 0x67);      /* misc output */
	ck_assert_uint_eq(crtc_read(&r->v, 0x0a), 0x0d);           /* cursor start */
	ck_assert_uint_eq(crtc_read(&r->v, 0x0b), 0x0e);           /* cursor end */
	ck_assert_uint_eq(crtc_read(&r->v, 0x09), 0x4f);           /* 16 scan lines */
	ck_assert_uint_eq(crtc_read(&r->v, 0x13), 0x28);           /* 80 characters a row */
	ck_assert_uint_eq(vga_width(&r->v), 720);
	/* The mode set cleared the window to light-grey spaces. */
	ck_assert_uint_eq(r->text[0], ' ');
	ck_assert_uint_eq(r->text[1], 0x07);
	ck_assert_uint_eq(r->text[VGA_TEXT_SIZE - 1], 0x07);
	free(r);
}
END_TEST

START_TEST(crtc_index_data)
{
	struct rig *r = rig_new();
	crtc_write(&r->v, 0x0e, 0x01);
	crtc_write(&r->v, 0x0f, 0x2c);
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3d4), 0x0f);      /* the index reads back */
	ck_assert_uint_eq(crtc_read(&r->v, 0x0e), 0x01);
	ck_assert_uint_eq(crtc_read(&r->v, 0x0f), 0x2c);
	/* OUT DX, AX: index in AL, data in AH. */
	vga_port_write(&r->v, 0x3d4, 0x0c);
	ck_assert_uint_eq(r->v.crtc_index, 0x0c);
	struct iobus io;
	iobus_init(&io);
	ck_assert(vga_register(&r->v, &io));
	iobus_write(&io, 0x3d4, 2, 0x340d);
	ck_assert_uint_eq(crtc_read(&r->v, 0x0d), 0x34);
	ck_assert_uint_eq(iobus_read(&io, 0x3d4, 2), 0x340d);
	free(r);
}
END_TEST

START_TEST(crtc_write_protect)
{
	struct rig *r = rig_new();
	/* CR11 bit 7 (set in mode 3) protects CR00-CR07 but CR07 bit 4. */
	crtc_write(&r->v, 0x01, 0x27);
	ck_assert_uint_eq(crtc_read(&r->v, 0x01), 0x4f);
	crtc_write(&r->v, 0x07, 0x00);
	ck_assert_uint_eq(crtc_read(&r->v, 0x07), 0x0f);           /* 1Fh less bit 4 */
	crtc_write(&r->v, 0x11, 0x0e);                              /* clear the protection */
	crtc_write(&r->v, 0x01, 0x27);
	ck_assert_uint_eq(crtc_read(&r->v, 0x01), 0x27);
	free(r);
}
END_TEST

START_TEST(mono_color_decode)
{
	struct rig *r = rig_new();
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3b4), 0xff);      /* colour: 3Bxh not decoded */
	vga_port_write(&r->v, 0x3c2, 0x66);                         /* I/O address select 0 */
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3d5), 0xff);
	vga_port_write(&r->v, 0x3b4, 0x0a);
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3b5), 0x0d);
	free(r);
}
END_TEST

START_TEST(attribute_flip_flop)
{
	struct rig *r = rig_new();
	vga_port_read(&r->v, 0x3da);                                /* flip-flop to index */
	vga_port_write(&r->v, 0x3c0, 0x01);                         /* index 1, PAS 0 */
	vga_port_write(&r->v, 0x3c0, 0xff);                         /* data: 6 bits kept */
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3c1), 0x3f);
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3c0), 0x01);      /* index, PAS clear */
	vga_port_write(&r->v, 0x3c0, 0x30);                         /* index 10h with PAS */
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3c1), 0x0c);      /* mode control */
	/* Reading Input Status 1 mid-pair resets the flip-flop: the next write is an index. */
	vga_port_read(&r->v, 0x3da);
	vga_port_write(&r->v, 0x3c0, 0x34);
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3c0), 0x34);
	vga_port_write(&r->v, 0x3c0, 0x05);
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3c1), 0x05);      /* colour select */
	free(r);
}
END_TEST

START_TEST(dac_ports)
{
	struct rig *r = rig_new();
	vga_port_write(&r->v, 0x3c8, 0x10);
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3c7), 0x00);      /* DAC state: write */
	vga_port_write(&r->v, 0x3c9, 0x3f);
	vga_port_write(&r->v, 0x3c9, 0x40 | 0x01);                  /* 6 bits kept */
	vga_port_write(&r->v, 0x3c9, 0x02);
	vga_port_write(&r->v, 0x3c9, 0x03);                         /* entry 11h */
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3c8), 0x11);
	vga_port_write(&r->v, 0x3c7, 0x10);
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3c7), 0x03);      /* DAC state: read */
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3c9), 0x3f);
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3c9), 0x01);
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3c9), 0x02);
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3c9), 0x03);      /* auto-increment */
	/* The BIOS palette: entry 14h is brown (2Ah, 15h, 00h). */
	vga_port_write(&r->v, 0x3c7, 0x14);
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3c9), 0x2a);
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3c9), 0x15);
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3c9), 0x00);
	free(r);
}
END_TEST

START_TEST(sequencer_graphics_masks)
{
	struct rig *r = rig_new();
	vga_port_write(&r->v, 0x3c4, 0x01);
	vga_port_write(&r->v, 0x3c5, 0xff);
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3c5), 0x3d);      /* SR01 defines 3Dh */
	vga_port_write(&r->v, 0x3ce, 0x06);
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3cf), 0x0e);      /* B8000h, odd/even */
	vga_port_write(&r->v, 0x3cf, 0xff);
	ck_assert_uint_eq(vga_port_read(&r->v, 0x3cf), 0x0f);
	free(r);
}
END_TEST

/* Input Status 1 at a beam position of mode 3 (900 dots a line, 449 lines). */
static uint8_t status_at(struct rig *r, unsigned line, unsigned dot)
{
	fake_now = 3 * 404100ull + line * 900ull + dot;              /* in the fourth frame */
	return vga_port_read(&r->v, 0x3da);
}

START_TEST(input_status_beam)
{
	struct rig *r = rig_new();
	ck_assert_uint_eq(status_at(r, 0, 0), 0x00);               /* displaying */
	ck_assert_uint_eq(status_at(r, 10, 80 * 9), 0x01);         /* horizontal blanking */
	ck_assert_uint_eq(status_at(r, 399, 719), 0x00);
	ck_assert_uint_eq(status_at(r, 400, 0), 0x01);             /* below the display */
	ck_assert_uint_eq(status_at(r, 411, 0), 0x01);
	ck_assert_uint_eq(status_at(r, 412, 0), 0x09);             /* retrace: lines 412, 413 */
	ck_assert_uint_eq(status_at(r, 413, 899), 0x09);
	ck_assert_uint_eq(status_at(r, 414, 0), 0x01);
	ck_assert_uint_eq(vga_frame_ticks(&r->v), 404100);
	ck_assert_uint_eq(vga_frame_at(&r->v, 404100 * 70 + 5), 70);
	/* The 25.175 MHz clock (misc bits 3-2 = 00) makes frames longer. */
	vga_port_write(&r->v, 0x3c2, 0x63);
	ck_assert_uint_gt(vga_frame_ticks(&r->v), 404100);
	free(r);
}
END_TEST

START_TEST(render_glyph_colours)
{
	struct rig *r = rig_new();
	put_cell(r, 1, 2, 'A', 0x1e);                                /* yellow on blue */
	render(r, 0);
	unsigned x0 = 2 * 9, y0 = 16;
	for (unsigned y = 0; y < 16; y++) {
		for (unsigned x = 0; x < 8; x++) {
			bool on = vga_font8x16['A'][y] & (0x80 >> x);
			ck_assert_uint_eq(pixel(r, x0 + x, y0 + y), on ? rgb16[14] : rgb16[1]);
		}
		ck_assert_uint_eq(pixel(r, x0 + 8, y0 + y), rgb16[1]);   /* 9th dot: background */
	}
	/* Every colour as a background (blink off: 16 backgrounds). */
	vga_port_read(&r->v, 0x3da);
	vga_port_write(&r->v, 0x3c0, 0x30);
	vga_port_write(&r->v, 0x3c0, 0x04);                          /* AC10: blink off, LGE */
	for (unsigned c = 0; c < 16; c++)
		put_cell(r, 3, c, ' ', (uint8_t)(c << 4));
	render(r, 0);
	for (unsigned c = 0; c < 16; c++)
		ck_assert_uint_eq(pixel(r, c * 9 + 4, 3 * 16 + 8), rgb16[c]);
	free(r);
}
END_TEST

START_TEST(render_line_graphics)
{
	struct rig *r = rig_new();
	put_cell(r, 0, 0, 0xc4, 0x07);                               /* horizontal line */
	put_cell(r, 0, 1, 0x41, 0x07);
	render(r, 0);
	unsigned line_row = 0;
	while (line_row < 16 && !(vga_font8x16[0xc4][line_row] & 1))
		line_row++;
	ck_assert_uint_lt(line_row, 16);
	/* AC10 bit 2 (set in mode 3): C0h-DFh repeat the 8th dot in the 9th. */
	ck_assert_uint_eq(pixel(r, 8, line_row), rgb16[7]);
	vga_port_read(&r->v, 0x3da);
	vga_port_write(&r->v, 0x3c0, 0x30);
	vga_port_write(&r->v, 0x3c0, 0x08);                          /* LGE off */
	render(r, 0);
	ck_assert_uint_eq(pixel(r, 8, line_row), rgb16[0]);
	/* 8-dot cells: 640 pixels, the next cell starts at x = 8. */
	vga_port_write(&r->v, 0x3c4, 0x01);
	vga_port_write(&r->v, 0x3c5, 0x01);
	ck_assert_uint_eq(vga_width(&r->v), 640);
	render(r, 0);
	unsigned y = 2;
	while (!(vga_font8x16['A'][y] & 0x80))
		y++;
	ck_assert_uint_eq(pixel(r, 8, y), rgb16[7]);
	free(r);
}
END_TEST

START_TEST(render_blink)
{
	struct rig *r = rig_new();
	put_cell(r, 0, 0, 0xdb, 0x9e);                               /* blinking full block */
	put_cell(r, 0, 1, ' ', 0xf0);                                /* background 15 -> 7 */
	render(r, 0);
	ck_assert_uint_eq(pixel(r, 3, 5), rgb16[14]);
	ck_assert_uint_eq(pixel(r, 9 + 3, 5), rgb16[7]);            /* blink on: 8 backgrounds */
	render(r, 16);                                               /* the blink's off phase */
	ck_assert_uint_eq(pixel(r, 3, 5), rgb16[1]);
	render(r, 32);
	ck_assert_uint_eq(pixel(r, 3, 5), rgb16[14]);
	/* AC10 bit 3 clear: bit 7 brightens the background, nothing blinks. */
	vga_port_read(&r->v, 0x3da);
	vga_port_write(&r->v, 0x3c0, 0x30);
	vga_port_write(&r->v, 0x3c0, 0x04);
	render(r, 16);
	ck_assert_uint_eq(pixel(r, 3, 5), rgb16[14]);
	ck_assert_uint_eq(pixel(r, 9 + 3, 5), rgb16[15]);
	free(r);
}
END_TEST

START_TEST(render_cursor)
{
	struct rig *r = rig_new();
	put_cell(r, 2, 3, ' ', 0x0c);                                /* light red on black */
	crtc_write(&r->v, 0x0e, 0x00);
	crtc_write(&r->v, 0x0f, 2 * 80 + 3);
	unsigned row, col;
	ck_assert(vga_cursor(&r->v, &row, &col));
	ck_assert_uint_eq(row, 2);
	ck_assert_uint_eq(col, 3);
	render(r, 0);
	unsigned x = 3 * 9, y = 2 * 16;
	ck_assert_uint_eq(pixel(r, x + 4, y + 12), rgb16[0]);
	ck_assert_uint_eq(pixel(r, x + 4, y + 13), rgb16[12]);      /* lines 13-14 */
	ck_assert_uint_eq(pixel(r, x + 8, y + 14), rgb16[12]);      /* all 9 dots */
	ck_assert_uint_eq(pixel(r, x + 4, y + 15), rgb16[0]);
	render(r, 8);                                                /* the cursor's off phase */
	ck_assert_uint_eq(pixel(r, x + 4, y + 13), rgb16[0]);
	crtc_write(&r->v, 0x0a, 0x00);                               /* a full-cell cursor */
	crtc_write(&r->v, 0x0b, 0x0f);
	render(r, 0);
	ck_assert_uint_eq(pixel(r, x + 4, y), rgb16[12]);
	crtc_write(&r->v, 0x0a, 0x20);                               /* CR0A bit 5: cursor off */
	ck_assert(!vga_cursor(&r->v, &row, &col));
	render(r, 0);
	ck_assert_uint_eq(pixel(r, x + 4, y + 13), rgb16[0]);
	crtc_write(&r->v, 0x0a, 0x0e);                               /* start after end: none */
	crtc_write(&r->v, 0x0b, 0x0d);
	render(r, 0);
	ck_assert_uint_eq(pixel(r, x + 4, y + 13), rgb16[0]);
	free(r);
}
END_TEST

START_TEST(render_start_address)
{
	struct rig *r = rig_new();
	put_cell(r, 1, 0, 0xdb, 0x0f);
	crtc_write(&r->v, 0x0c, 0x00);
	crtc_write(&r->v, 0x0d, 80);                                 /* scroll by one row */
	render(r, 0);
	ck_assert_uint_eq(pixel(r, 1, 1), rgb16[15]);
	char row[VGA_TEXT_ROW_MAX];
	ck_assert_uint_eq(vga_text_row(&r->v, 0, row), 80 + 2);     /* U+2588 is 3 bytes */
	ck_assert_mem_eq(row, "\xe2\x96\x88 ", 4);
	free(r);
}
END_TEST

START_TEST(render_palette_and_dac)
{
	struct rig *r = rig_new();
	put_cell(r, 0, 0, ' ', 0x10);
	/* Palette register 1 -> 3Fh (white), loaded with PAS = 0. */
	vga_port_read(&r->v, 0x3da);
	vga_port_write(&r->v, 0x3c0, 0x01);
	vga_port_write(&r->v, 0x3c0, 0x3f);
	render(r, 0);
	/* While PAS = 0 the screen shows the overscan colour (0: black). */
	ck_assert_uint_eq(pixel(r, 4, 4), 0x000000);
	vga_port_write(&r->v, 0x3c0, 0x20);                          /* PAS = 1 */
	render(r, 0);
	ck_assert_uint_eq(pixel(r, 4, 4), 0xffffff);
	/* DAC entry 3Fh -> pure red. */
	vga_port_write(&r->v, 0x3c8, 0x3f);
	vga_port_write(&r->v, 0x3c9, 0x3f);
	vga_port_write(&r->v, 0x3c9, 0x00);
	vga_port_write(&r->v, 0x3c9, 0x00);
	render(r, 0);
	ck_assert_uint_eq(pixel(r, 4, 4), 0xff0000);
	vga_port_write(&r->v, 0x3c6, 0x00);                          /* pel mask: index 0 */
	render(r, 0);
	ck_assert_uint_eq(pixel(r, 4, 4), 0x000000);
	vga_port_write(&r->v, 0x3c6, 0xff);
	vga_port_write(&r->v, 0x3c4, 0x01);                          /* SR01 bit 5: screen off */
	vga_port_write(&r->v, 0x3c5, 0x20);
	render(r, 0);
	ck_assert_uint_eq(pixel(r, 4, 4), 0x000000);
	free(r);
}
END_TEST

START_TEST(text_rows)
{
	struct rig *r = rig_new();
	const char *hello = "Hi";
	for (unsigned i = 0; hello[i]; i++)
		put_cell(r, 24, i, (uint8_t)hello[i], 0x07);
	put_cell(r, 24, 2, 0xc9, 0x07);                              /* double corner */
	put_cell(r, 24, 3, 0x00, 0x07);                              /* NUL shows as a space */
	put_cell(r, 24, 4, 0x01, 0x07);                              /* the smiley */
	char row[VGA_TEXT_ROW_MAX];
	size_t n = vga_text_row(&r->v, 24, row);
	ck_assert_uint_eq(n, 80 + 2 + 2);
	ck_assert_mem_eq(row, "Hi\xe2\x95\x94 \xe2\x98\xba ", 10);
	ck_assert_uint_eq(row[n], 0);
	free(r);
}
END_TEST

static Suite *vga_suite(void)
{
	Suite *s = suite_create("vga");
	TCase *regs = tcase_create("registers");
	tcase_add_test(regs, mode3_state);
	tcase_add_test(regs, crtc_index_data);
	tcase_add_test(regs, crtc_write_protect);
	tcase_add_test(regs, mono_color_decode);
	tcase_add_test(regs, attribute_flip_flop);
	tcase_add_test(regs, dac_ports);
	tcase_add_test(regs, sequencer_graphics_masks);
	tcase_add_test(regs, input_status_beam);
	suite_add_tcase(s, regs);
	TCase *pic = tcase_create("picture");
	tcase_add_test(pic, render_glyph_colours);
	tcase_add_test(pic, render_line_graphics);
	tcase_add_test(pic, render_blink);
	tcase_add_test(pic, render_cursor);
	tcase_add_test(pic, render_start_address);
	tcase_add_test(pic, render_palette_and_dac);
	tcase_add_test(pic, text_rows);
	suite_add_tcase(s, pic);
	return s;
}

int main(void)
{
	return run_suite(vga_suite());
}
