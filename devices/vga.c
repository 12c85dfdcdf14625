/* VGA colour text mode; see devices/vga.h for what is modelled. Register
 * meanings and the mode 3 values are those of the IBM VGA Technical
 * Reference (register descriptions, BIOS video mode table). */
#include "devices/vga.h"
#include "devices/vga_font.h"

#include <string.h>

/* Mode 3 (80x25, 720x400, 70 Hz): the BIOS parameter table values. */
static const uint8_t mode3_seq[VGA_SEQ_COUNT] = { 0x03, 0x00, 0x03, 0x00, 0x02 };
static const uint8_t mode3_gc[VGA_GC_COUNT] = { 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x0e, 0x00, 0xff };
static const uint8_t mode3_crtc[VGA_CRTC_COUNT] = {
	0x5f, 0x4f, 0x50, 0x82, 0x55, 0x81, 0xbf, 0x1f, 0x00, 0x4f, 0x0d, 0x0e, 0x00,
	0x00, 0x00, 0x00, 0x9c, 0x8e, 0x8f, 0x28, 0x1f, 0x96, 0xb9, 0xa3, 0xff,
};
static const uint8_t mode3_ac[VGA_AC_COUNT] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x14, 0x07, 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d,
	0x3e, 0x3f, 0x0c, 0x00, 0x0f, 0x08, 0x00,
};
#define MODE3_MISC_OUTPUT 0x67

/* The bits each register defines (reserved bits read 0). */
static const uint8_t seq_bits[VGA_SEQ_COUNT] = { 0x03, 0x3d, 0x0f, 0x3f, 0x0e };
static const uint8_t gc_bits[VGA_GC_COUNT] = { 0x0f, 0x0f, 0x0f, 0x1f, 0x03, 0x7b, 0x0f, 0x0f, 0xff };
static const uint8_t ac_bits[VGA_AC_COUNT] = {
	0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f,
	0x3f, 0x3f, 0xef, 0xff, 0x3f, 0x0f, 0x0f,
};

/* Register numbers and bits the picture and the timing use. */
enum {
	SR_CLOCKING = 1, SR01_8DOT = 0x01, SR01_SCREEN_OFF = 0x20,
	CR_HTOTAL = 0x00, CR_HDISP_END = 0x01, CR_VTOTAL = 0x06, CR_OVERFLOW = 0x07,
	CR_CURSOR_START = 0x0a, CR0A_CURSOR_OFF = 0x20, CR_CURSOR_END = 0x0b,
	CR_START_HIGH = 0x0c, CR_START_LOW = 0x0d, CR_CURSOR_HIGH = 0x0e, CR_CURSOR_LOW = 0x0f,
	CR_VRETRACE_START = 0x10, CR_VRETRACE_END = 0x11, CR11_PROTECT = 0x80,
	CR_VDISP_END = 0x12, CR_OFFSET = 0x13, CR_UNDERLINE = 0x14,
	AC_MODE = 0x10, AC10_LINE_GRAPHICS = 0x04, AC10_BLINK = 0x08, AC10_P54_SELECT = 0x80,
	AC_OVERSCAN = 0x11, AC_PLANE_ENABLE = 0x12, AC_COLOR_SELECT = 0x14,
	AC_INDEX_PAS = 0x20,
	MISC_IO_COLOR = 0x01,
	ST1_DISPLAY_DISABLED = 0x01, ST1_VRETRACE = 0x08,
};

/* The 64-colour EGA palette a VGA BIOS loads into DAC entries 0-63 for the
 * 16-colour modes: bit 0/1/2 add 2/3 of blue/green/red, bit 3/4/5 add 1/3. */
static void load_ega_palette(struct vga *v)
{
	for (unsigned i = 0; i < 64; i++) {
		v->dac[i][0] = (uint8_t)(((i >> 2) & 1) * 0x2a + ((i >> 5) & 1) * 0x15);
		v->dac[i][1] = (uint8_t)(((i >> 1) & 1) * 0x2a + ((i >> 4) & 1) * 0x15);
		v->dac[i][2] = (uint8_t)((i & 1) * 0x2a + ((i >> 3) & 1) * 0x15);
	}
}

void vga_init(struct vga *v, uint8_t *text, const struct vclock *clock)
{
	memset(v, 0, sizeof(*v));
	v->text = text;
	v->clock = clock;
	v->misc_output = MODE3_MISC_OUTPUT;
	v->subsystem_enable = 1;
	memcpy(v->seq, mode3_seq, sizeof(v->seq));
	memcpy(v->gc, mode3_gc, sizeof(v->gc));
	memcpy(v->crtc, mode3_crtc, sizeof(v->crtc));
	memcpy(v->ac, mode3_ac, sizeof(v->ac));
	v->ac_index = AC_INDEX_PAS;     /* the BIOS leaves the palette in use */
	v->pel_mask = 0xff;
	load_ega_palette(v);
	for (unsigned i = 0; i < VGA_TEXT_SIZE; i += 2) {
		text[i] = ' ';
		text[i + 1] = 0x07;
	}
}

/* --- beam position (Input Status 1) --- */

/* The raster as the CRTC timing registers and the dot clock define it. */
struct raster {
	uint64_t dot_hz;
	unsigned cell;             /* dots per character clock */
	uint64_t line_dots;        /* horizontal total */
	unsigned hdisp;            /* displayed character clocks per line */
	unsigned lines;            /* vertical total */
	unsigned vdisp;            /* displayed lines */
	unsigned vrs, vr_len;      /* vertical retrace start line and length */
};

static unsigned cell_width(const struct vga *v)
{
	return (v->seq[SR_CLOCKING] & SR01_8DOT) ? 8 : 9;
}

static struct raster raster_of(const struct vga *v)
{
	const uint8_t *cr = v->crtc, ov = cr[CR_OVERFLOW];
	struct raster r;
	/* Misc Output bits 3-2: 00 selects 25.175 MHz, 01 28.322 MHz (the
	 * external clocks 1x are taken as 28.322 MHz). */
	r.dot_hz = ((v->misc_output >> 2) & 3) == 0 ? 25175000 : 28322000;
	r.cell = cell_width(v);
	r.line_dots = (uint64_t)(cr[CR_HTOTAL] + 5) * r.cell;    /* CR00: total - 5 */
	r.hdisp = cr[CR_HDISP_END] + 1u;
	/* Bits 8 and 9 of the vertical registers live in the overflow register. */
	unsigned vt = cr[CR_VTOTAL] | (ov & 0x01) << 8 | (ov & 0x20) << 4;
	unsigned vde = cr[CR_VDISP_END] | (ov & 0x02) << 7 | (ov & 0x40) << 3;
	unsigned vrs = cr[CR_VRETRACE_START] | (ov & 0x04) << 6 | (ov & 0x80) << 2;
	r.lines = vt + 2;          /* CR06: total - 2 */
	r.vdisp = vde + 1;
	r.vrs = vrs;
	/* CR11 bits 3-0: retrace ends when the line counter's low 4 bits match. */
	unsigned len = ((cr[CR_VRETRACE_END] & 0x0f) - vrs) & 0x0f;
	r.vr_len = len ? len : 16;
	return r;
}

static uint64_t time_now(const struct vga *v)
{
	return v->clock ? vclock_now(v->clock) : 0;
}

uint64_t vga_frame_at(const struct vga *v, uint64_t now)
{
	struct raster r = raster_of(v);
	uint64_t dots = v->clock ? vclock_ticks_to(v->clock, now, r.dot_hz) : 0;
	return dots / (r.line_dots * r.lines);
}

uint64_t vga_frame_ticks(const struct vga *v)
{
	struct raster r = raster_of(v);
	if (!v->clock)
		return 1;
	return vclock_ticks_from(v->clock, r.line_dots * r.lines, r.dot_hz);
}

/* Input Status 1: bit 0 is set while the beam is outside the displayed area
 * (horizontal or vertical blanking), bit 3 during vertical retrace. */
static uint8_t input_status1(const struct vga *v)
{
	struct raster r = raster_of(v);
	uint64_t dots = v->clock ? vclock_ticks_to(v->clock, time_now(v), r.dot_hz) : 0;
	uint64_t in_frame = dots % (r.line_dots * r.lines);
	unsigned line = (unsigned)(in_frame / r.line_dots);
	unsigned chr = (unsigned)(in_frame % r.line_dots / r.cell);
	uint8_t st = 0;
	if (line >= r.vdisp || chr >= r.hdisp)
		st |= ST1_DISPLAY_DISABLED;
	if (line >= r.vrs && line < r.vrs + r.vr_len)
		st |= ST1_VRETRACE;
	return st;
}

/* --- ports --- */

static uint8_t dac_read(struct vga *v)
{
	uint8_t val = v->dac[v->dac_read_index][v->dac_component];
	if (++v->dac_component == 3) {
		v->dac_component = 0;
		v->dac_read_index++;
	}
	return val;
}

static void dac_write(struct vga *v, uint8_t val)
{
	v->dac[v->dac_write_index][v->dac_component] = val & 0x3f;
	if (++v->dac_component == 3) {
		v->dac_component = 0;
		v->dac_write_index++;
	}
}

/* The CRTC, Input Status 1 and Feature Control answer at 3Dxh or 3Bxh, as
 * Miscellaneous Output bit 0 says; the other block is not decoded. */
static uint16_t crtc_block(const struct vga *v)
{
	return (v->misc_output & MISC_IO_COLOR) ? 0x3d0 : 0x3b0;
}

uint8_t vga_port_read(struct vga *v, uint16_t port)
{
	uint16_t io = crtc_block(v);
	if (port == io + 4)
		return v->crtc_index;
	if (port == io + 5)
		return v->crtc_index < VGA_CRTC_COUNT ? v->crtc[v->crtc_index] : 0xff;
	if (port == io + 0xa) {
		v->ac_data_next = false;        /* reading Input Status 1 resets the flip-flop */
		return input_status1(v);
	}
	unsigned ac = v->ac_index & 0x1f;
	switch (port) {
	case 0x3c0: return v->ac_index;
	case 0x3c1: return ac < VGA_AC_COUNT ? v->ac[ac] : 0xff;
	case 0x3c2: return 0x00;                /* Input Status 0: no CRT interrupt, no sense */
	case 0x3c3: return v->subsystem_enable;
	case 0x3c4: return v->seq_index;
	case 0x3c5: return v->seq_index < VGA_SEQ_COUNT ? v->seq[v->seq_index] : 0xff;
	case 0x3c6: return v->pel_mask;
	case 0x3c7: return v->dac_reading ? 0x03 : 0x00;   /* DAC state */
	case 0x3c8: return v->dac_write_index;
	case 0x3c9: return dac_read(v);
	case 0x3ca: return v->feature_control;
	case 0x3cc: return v->misc_output;
	case 0x3ce: return v->gc_index;
	case 0x3cf: return v->gc_index < VGA_GC_COUNT ? v->gc[v->gc_index] : 0xff;
	default: return 0xff;
	}
}

static void crtc_write(struct vga *v, uint8_t val)
{
	unsigned i = v->crtc_index;
	if (i >= VGA_CRTC_COUNT)
		return;
	/* CR11 bit 7 protects CR00-CR07, except the line compare bit (CR07 bit 4). */
	if (i <= CR_OVERFLOW && (v->crtc[CR_VRETRACE_END] & CR11_PROTECT)) {
		if (i == CR_OVERFLOW)
			v->crtc[i] = (uint8_t)((v->crtc[i] & ~0x10) | (val & 0x10));
		return;
	}
	v->crtc[i] = val;
}

/* 3C0h: the flip-flop alternates between the index (with the palette address
 * source bit) and the data of the register it names. */
static void ac_write(struct vga *v, uint8_t val)
{
	if (!v->ac_data_next) {
		v->ac_index = val & 0x3f;
	} else {
		unsigned i = v->ac_index & 0x1f;
		if (i < VGA_AC_COUNT)
			v->ac[i] = val & ac_bits[i];
	}
	v->ac_data_next = !v->ac_data_next;
}

void vga_port_write(struct vga *v, uint16_t port, uint8_t val)
{
	uint16_t io = crtc_block(v);
	if (port == io + 4) {
		v->crtc_index = val & 0x1f;
		return;
	}
	if (port == io + 5) {
		crtc_write(v, val);
		return;
	}
	if (port == io + 0xa) {
		v->feature_control = val & 0x0b;
		return;
	}
	switch (port) {
	case 0x3c0: ac_write(v, val); break;
	case 0x3c2: v->misc_output = val; break;
	case 0x3c3: v->subsystem_enable = val & 1; break;
	case 0x3c4: v->seq_index = val & 0x07; break;
	case 0x3c5:
		if (v->seq_index < VGA_SEQ_COUNT)
			v->seq[v->seq_index] = val & seq_bits[v->seq_index];
		break;
	case 0x3c6: v->pel_mask = val; break;
	case 0x3c7:
		v->dac_read_index = val;
		v->dac_component = 0;
		v->dac_reading = true;
		break;
	case 0x3c8:
		v->dac_write_index = val;
		v->dac_component = 0;
		v->dac_reading = false;
		break;
	case 0x3c9: dac_write(v, val); break;
	case 0x3ce: v->gc_index = val & 0x0f; break;
	case 0x3cf:
		if (v->gc_index < VGA_GC_COUNT)
			v->gc[v->gc_index] = val & gc_bits[v->gc_index];
		break;
	default: break;
	}
}

/* Wider accesses (OUT DX, AX with index and data) are bytes at port, port+1. */
static uint32_t pio_read(void *opaque, uint16_t port, unsigned size)
{
	uint32_t val = 0;
	for (unsigned i = 0; i < size; i++)
		val |= (uint32_t)vga_port_read(opaque, (uint16_t)(port + i)) << (8 * i);
	return val;
}

static void pio_write(void *opaque, uint16_t port, unsigned size, uint32_t val)
{
	for (unsigned i = 0; i < size; i++)
		vga_port_write(opaque, (uint16_t)(port + i), (uint8_t)(val >> (8 * i)));
}

static const struct pio_ops vga_pio = { .read = pio_read, .write = pio_write };

bool vga_register(struct vga *v, struct iobus *io)
{
	return iobus_register(io, VGA_PORT_FIRST, VGA_PORT_COUNT, &vga_pio, v, "vga");
}

/* --- the picture --- */

unsigned vga_width(const struct vga *v)
{
	return VGA_COLS * cell_width(v);
}

/* The DAC colour of attribute colour c (0..15): through the colour plane
 * enable bits, the palette register, colour select (bits 7-6 always, bits
 * 5-4 when AC10 bit 7 says so) and the pel mask. */
static uint32_t color_of(const struct vga *v, unsigned c)
{
	unsigned p = v->ac[c & v->ac[AC_PLANE_ENABLE] & 0x0f];
	unsigned sel = v->ac[AC_COLOR_SELECT];
	if (v->ac[AC_MODE] & AC10_P54_SELECT)
		p = (p & 0x0f) | (sel & 0x03) << 4;
	unsigned index = ((p & 0x3f) | (sel & 0x0c) << 4) & v->pel_mask;
	uint32_t rgb = 0;
	for (unsigned k = 0; k < 3; k++) {
		unsigned six = v->dac[index][k];
		rgb = rgb << 8 | (six << 2 | six >> 4);    /* 6-bit DAC level to 8 bits */
	}
	return rgb;
}

static uint16_t start_address(const struct vga *v)
{
	return (uint16_t)(v->crtc[CR_START_HIGH] << 8 | v->crtc[CR_START_LOW]);
}

/* The memory address (in character positions) of a cell: the start address
 * plus CR13 * 2 per row. The window holds 16 K positions. */
static uint16_t cell_address(const struct vga *v, unsigned row, unsigned col)
{
	return (uint16_t)(start_address(v) + row * v->crtc[CR_OFFSET] * 2u + col);
}

static const uint8_t *cell_bytes(const struct vga *v, uint16_t addr)
{
	return v->text + ((addr * 2u) & (VGA_TEXT_SIZE - 1));
}

/* The address counter value the cursor shows at: CR0E/CR0F, delayed by the
 * skew in CR0B bits 6-5. */
static uint16_t cursor_address(const struct vga *v)
{
	unsigned skew = (v->crtc[CR_CURSOR_END] >> 5) & 3;
	return (uint16_t)((v->crtc[CR_CURSOR_HIGH] << 8 | v->crtc[CR_CURSOR_LOW]) + skew);
}

bool vga_cursor(const struct vga *v, unsigned *row, unsigned *col)
{
	if (v->crtc[CR_CURSOR_START] & CR0A_CURSOR_OFF)
		return false;
	uint16_t at = cursor_address(v);
	for (unsigned r = 0; r < VGA_ROWS; r++)
		for (unsigned c = 0; c < VGA_COLS; c++)
			if (cell_address(v, r, c) == at) {
				*row = r;
				*col = c;
				return true;
			}
	return false;
}

static void fill(uint32_t *pixels, size_t pitch, unsigned width, uint32_t rgb)
{
	for (unsigned y = 0; y < VGA_HEIGHT; y++)
		for (unsigned x = 0; x < width; x++)
			pixels[y * pitch + x] = rgb;
}

void vga_render(const struct vga *v, uint32_t *pixels, size_t pitch, uint64_t frame)
{
	unsigned cw = cell_width(v), width = VGA_COLS * cw;
	if (v->seq[SR_CLOCKING] & SR01_SCREEN_OFF) {
		fill(pixels, pitch, width, 0);
		return;
	}
	if (!(v->ac_index & AC_INDEX_PAS)) {
		/* The CPU owns the palette: the monitor sees the overscan colour. */
		fill(pixels, pitch, width, color_of(v, v->ac[AC_OVERSCAN] & 0x0f));
		return;
	}
	uint32_t palette[16];
	for (unsigned c = 0; c < 16; c++)
		palette[c] = color_of(v, c);
	bool blink_mode = v->ac[AC_MODE] & AC10_BLINK;
	bool line_graphics = v->ac[AC_MODE] & AC10_LINE_GRAPHICS;
	bool cursor_phase = !(frame & 8), blink_phase = !(frame & 16);
	bool cursor_on = !(v->crtc[CR_CURSOR_START] & CR0A_CURSOR_OFF) && cursor_phase;
	unsigned cursor_first = v->crtc[CR_CURSOR_START] & 0x1f;
	unsigned cursor_last = v->crtc[CR_CURSOR_END] & 0x1f;
	unsigned underline = v->crtc[CR_UNDERLINE] & 0x1f;
	uint16_t cursor_at = cursor_address(v);

	for (unsigned row = 0; row < VGA_ROWS; row++) {
		for (unsigned col = 0; col < VGA_COLS; col++) {
			uint16_t addr = cell_address(v, row, col);
			const uint8_t *cell = cell_bytes(v, addr);
			unsigned code = cell[0], attr = cell[1];
			unsigned fg = attr & 0x0f, bg = attr >> 4;
			bool hidden = false;
			if (blink_mode) {
				/* AC10 bit 3: attribute bit 7 blinks the character
				 * instead of brightening the background. */
				bg &= 7;
				hidden = (attr & 0x80) && !blink_phase;
			}
			bool cursor_here = cursor_on && addr == cursor_at;
			/* The underline shows for attributes x000x001 (the MDA's). */
			bool underlined = (attr & 0x77) == 0x01;
			for (unsigned y = 0; y < VGA_CELL_HEIGHT; y++) {
				unsigned bits = hidden ? 0 : vga_font8x16[code][y] << 1;
				/* The 9th dot repeats the 8th for C0h-DFh under line
				 * graphics, and is background otherwise. */
				if (cw == 9 && line_graphics && code >= 0xc0 && code <= 0xdf)
					bits |= bits >> 1 & 1;
				bool solid = (underlined && y == underline && !hidden) ||
					     (cursor_here && y >= cursor_first && y <= cursor_last);
				uint32_t *out = pixels + (size_t)(row * VGA_CELL_HEIGHT + y) * pitch + col * cw;
				for (unsigned x = 0; x < cw; x++) {
					bool on = solid || (bits >> (8 - x) & 1);
					out[x] = on ? palette[fg] : palette[bg];
				}
			}
		}
	}
}

/* --- the screen as text --- */

size_t vga_text_row(const struct vga *v, unsigned row, char *out)
{
	size_t n = 0;
	for (unsigned col = 0; col < VGA_COLS && row < VGA_ROWS; col++) {
		unsigned code = cell_bytes(v, cell_address(v, row, col))[0];
		unsigned u = code ? vga_cp437_unicode[code] : ' ';
		if (u < 0x80) {
			out[n++] = (char)u;
		} else if (u < 0x800) {
			out[n++] = (char)(0xc0 | u >> 6);
			out[n++] = (char)(0x80 | (u & 0x3f));
		} else {
			out[n++] = (char)(0xe0 | u >> 12);
			out[n++] = (char)(0x80 | (u >> 6 & 0x3f));
			out[n++] = (char)(0x80 | (u & 0x3f));
		}
	}
	out[n] = 0;
	return n;
}
