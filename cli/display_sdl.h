/* The SDL2 window of --display sdl: it shows frames the VGA renders and
 * reports the keys pressed in it. Built from cli/display_sdl.c when meson
 * finds SDL2 (the 'sdl' feature), from cli/display_nosdl.c otherwise.
 *
 * The host clock is used here only to pace drawing for the person watching
 * (never more than a frame per host refresh, and an idle CPU waits for the
 * host); it never reaches the guest. */
#ifndef HVEMU_CLI_DISPLAY_SDL_H
#define HVEMU_CLI_DISPLAY_SDL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sdl_window;

/* Open a window of width x height pixels titled title. NULL with a one-line
 * reason in err when there is no SDL2 or no display to open it on. */
struct sdl_window *sdl_window_open(const char *title, unsigned width, unsigned height,
				   char *err, size_t errlen);

/* Whether a host refresh period has passed since the last frame shown. */
bool sdl_window_ready(const struct sdl_window *w);

/* Show pixels (0x00RRGGBB, width x height, tightly packed). readback
 * (width x height), when given, receives the window's pixels as drawn,
 * before they are shown; false if that failed (said on stderr). */
bool sdl_window_show(struct sdl_window *w, const uint32_t *pixels, unsigned width, unsigned height,
		     uint32_t *readback);

/* Wait on the host until a refresh period has passed since the last call
 * (or an input event arrives). For a halted CPU, so an idle guest's window
 * costs no host time. */
void sdl_window_idle(struct sdl_window *w);

/* Deliver the input events that arrived: key(opaque, USB usage, down) for
 * each key press and release. False once the window was closed. */
bool sdl_window_poll(struct sdl_window *w, void (*key)(void *opaque, unsigned usage, bool down),
		     void *opaque);

void sdl_window_close(struct sdl_window *w);

#endif
