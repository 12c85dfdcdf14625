/* What a person sees of the machine: --display none|text|sdl and
 * --screenshot PATH.png.
 *
 *  none  nothing is shown (the VGA is still there for the guest);
 *  text  the text screen is printed to stderr at the end of the run, and
 *        whenever hvemu gets SIGUSR1;
 *  sdl   an SDL2 window shows the screen, redrawn every VGA frame (about 70
 *        times per virtual second, a timer in virtual time), and its key
 *        presses go to the PS/2 keyboard. The run also ends when the window
 *        is closed; a CPU halted with nothing to wake it keeps the window
 *        open until then.
 * --screenshot writes the screen as a PNG at the end of the run, with the
 * cursor and blinking characters shown; under sdl it is read back from the
 * window.
 */
#ifndef HVEMU_CLI_DISPLAY_H
#define HVEMU_CLI_DISPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/clock.h"
#include "devices/i8042.h"
#include "devices/vga.h"
#include "emu/cpu.h"

enum display_kind { DISPLAY_NONE, DISPLAY_TEXT, DISPLAY_SDL };

struct sdl_window;

struct display {
	enum display_kind kind;
	const char *screenshot;    /* --screenshot PATH, or NULL */
	struct vga *vga;
	struct i8042 *kbc;
	struct vclock *clock;
	struct cpu *cpu;
	struct sdl_window *window;
	struct vtimer frame;       /* the window's refresh */
	uint32_t pixels[VGA_HEIGHT * VGA_MAX_WIDTH];
	/* What the window shows was drawn from: the VGA's registers, its text
	 * window and the blink phases. An unchanged screen is not drawn again. */
	struct vga drawn_vga;
	uint8_t drawn_text[VGA_TEXT_SIZE];
	unsigned drawn_phase;      /* frame bits 3 (cursor) and 4 (blink), + 1; 0: nothing drawn */
	bool closed;               /* the window was closed: the run stops */
};

/* "none", "text" or "sdl". */
bool display_parse(const char *name, enum display_kind *kind);

/* Refuse a --screenshot path that cannot be written (its folder is missing
 * or not writable, or it is a folder) before the run starts; err gets one
 * line. Nothing is created. */
bool display_screenshot_writable(const char *path, char *err, size_t errlen);

/* Start showing: open the window (sdl: false with a reason when it cannot),
 * arm its refresh timer, catch SIGUSR1 (text). */
bool display_open(struct display *d, enum display_kind kind, const char *screenshot, struct vga *vga,
		  struct i8042 *kbc, struct vclock *clock, struct cpu *cpu, char *err, size_t errlen);

/* The run ended: print the screen (text), write the screenshot, then
 * display_close(). A screenshot that cannot be written is a warning on
 * stderr. */
void display_finish(struct display *d);

/* Stop showing without output: close the window, cancel its timer, release
 * SIGUSR1. Safe to call again. */
void display_close(struct display *d);

#endif
