/* VGA in colour text mode 3 (80x25, 9x16 character cells, 720x400 pixels at
 * 70 Hz), as a VGA BIOS leaves it after INT 10h AX=0003h.
 *
 * The text buffer is guest RAM at B8000h-BFFFFh: the CPU reads and writes it
 * through its ordinary memory fast path (reads return what was written), and
 * the display reads it when it draws a picture (vga_render) or prints the
 * screen as text (vga_text_row). No callback runs per byte.
 *
 * Modelled (IBM VGA Technical Reference register set):
 *  - Miscellaneous Output (write 3C2h, read 3CCh): bit 0 moves the CRT
 *    controller, Input Status 1 and Feature Control between 3Dxh and 3Bxh;
 *    bits 3-2 pick the dot clock (25.175 or 28.322 MHz).
 *  - Sequencer (3C4h/3C5h, 5 registers), Graphics Controller (3CEh/3CFh, 9),
 *    CRT Controller (3D4h/3D5h, 25, with the CR11 bit 7 write protection of
 *    CR00-CR07), Attribute Controller (3C0h index/data through its flip-flop,
 *    3C1h read, 21 registers, the palette address source bit), the DAC (pel
 *    mask 3C6h, read/write index 3C7h/3C8h, state 3C7h, data 3C9h with
 *    auto-increment), Video Subsystem Enable 3C3h, Feature Control, Input
 *    Status 0 (3C2h read) and 1 (3DAh read: resets the attribute flip-flop;
 *    display-disabled bit 0 and vertical-retrace bit 3 follow the beam
 *    position that the CRTC timing registers and the dot clock give at the
 *    current virtual time). Every register reads back what was written (its
 *    defined bits).
 *  - The picture uses: the start address (CR0C/CR0D) and row offset (CR13),
 *    the cursor (CR0A start with the bit 5 "cursor off", CR0B end and skew,
 *    CR0E/CR0F location; blinking every 16 frames), the underline location
 *    (CR14), 8/9-dot cells (SR01 bit 0), screen off (SR01 bit 5), the
 *    attribute palette, colour plane enable, colour select and mode control
 *    (blink vs. background intensity, line graphics for C0h-DFh, P5/P4
 *    select), palette address source 0 showing the overscan colour, the pel
 *    mask and the DAC.
 *  - Not modelled: graphics modes and planar memory (the window is always
 *    B8000h, whatever GR06 says; fonts written to plane 2 are not used: the
 *    glyphs are vga_font.h's), other geometries (the picture is always 80x25
 *    cells of 16 scan lines; the geometry registers only drive the timing),
 *    split screen, panning, and the CRTC interrupt.
 */
#ifndef HVEMU_DEVICES_VGA_H
#define HVEMU_DEVICES_VGA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/bus.h"
#include "devices/clock.h"

#define VGA_TEXT_BASE 0xb8000u     /* the colour text window, 32 KiB */
#define VGA_TEXT_SIZE 0x8000u
#define VGA_COLS 80
#define VGA_ROWS 25
#define VGA_CELL_HEIGHT 16
#define VGA_HEIGHT (VGA_ROWS * VGA_CELL_HEIGHT)
#define VGA_MAX_WIDTH (VGA_COLS * 9)
#define VGA_PORT_FIRST 0x3b0       /* 3B0h-3DFh: mono CRTC, the VGA, colour CRTC */
#define VGA_PORT_COUNT 0x30
/* 3 bytes of UTF-8 per cell at most (code page 437 is in the BMP), and a NUL. */
#define VGA_TEXT_ROW_MAX (VGA_COLS * 3 + 1)

enum {
	VGA_SEQ_COUNT = 5, VGA_GC_COUNT = 9, VGA_CRTC_COUNT = 25, VGA_AC_COUNT = 21,
};

struct vga {
	uint8_t *text;             /* guest RAM at B8000h (VGA_TEXT_SIZE bytes) */
	const struct vclock *clock;  /* virtual time, for the beam position */
	uint8_t misc_output;       /* 3C2h write, 3CCh read */
	uint8_t feature_control;   /* 3xAh write, 3CAh read */
	uint8_t subsystem_enable;  /* 3C3h bit 0 */
	uint8_t seq_index, seq[VGA_SEQ_COUNT];
	uint8_t gc_index, gc[VGA_GC_COUNT];
	uint8_t crtc_index, crtc[VGA_CRTC_COUNT];
	uint8_t ac_index;          /* bits 4-0 register, bit 5 palette address source */
	bool ac_data_next;         /* the flip-flop: the next 3C0h write is data */
	uint8_t ac[VGA_AC_COUNT];
	uint8_t pel_mask;          /* 3C6h */
	uint8_t dac_read_index, dac_write_index;
	uint8_t dac_component;     /* 0..2: red, green, blue of the current entry */
	bool dac_reading;          /* 3C7h was written last (DAC state 3) */
	uint8_t dac[256][3];       /* 6-bit red, green, blue */
};

/* Mode 3 as a VGA BIOS sets it (the register values of the IBM BIOS mode
 * table, the 64-colour EGA palette in DAC entries 0-63), the text window at
 * text (VGA_TEXT_SIZE bytes of guest RAM), cleared to light-grey spaces
 * (0720h) as the mode set clears it. clock may be NULL (time 0). */
void vga_init(struct vga *v, uint8_t *text, const struct vclock *clock);

/* Claim ports 3B0h-3DFh. False if any is taken. */
bool vga_register(struct vga *v, struct iobus *io);

/* One byte access to a VGA port (the bus splits wider ones). */
uint8_t vga_port_read(struct vga *v, uint16_t port);
void vga_port_write(struct vga *v, uint16_t port, uint8_t value);

/* The picture's width in pixels: 720 with 9-dot cells, 640 with 8-dot. */
unsigned vga_width(const struct vga *v);

/* The frame the beam is in at virtual tick now, and the ticks one frame
 * takes (the CRTC totals at the dot clock; about 1/70 s in mode 3). */
uint64_t vga_frame_at(const struct vga *v, uint64_t now);
uint64_t vga_frame_ticks(const struct vga *v);

/* Draw the screen into pixels (0x00RRGGBB, vga_width() x VGA_HEIGHT, pitch
 * in pixels) as the monitor shows it during frame: the cursor is on in frames
 * 0-7 of every 16, blinking characters in frames 0-15 of every 32, so frame 0
 * is a still with both shown. */
void vga_render(const struct vga *v, uint32_t *pixels, size_t pitch, uint64_t frame);

/* Row row (0..24) of the screen as UTF-8 text, VGA_COLS characters (code 0
 * as a space), into out (VGA_TEXT_ROW_MAX bytes), NUL-terminated; returns its
 * length. Touches nothing else: safe in a signal handler. */
size_t vga_text_row(const struct vga *v, unsigned row, char *out);

/* Where the cursor is on the screen (false when it is off or beyond it). */
bool vga_cursor(const struct vga *v, unsigned *row, unsigned *col);

#endif
