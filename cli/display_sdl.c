/* The --display sdl window, on SDL2; see cli/display_sdl.h. */
#include "cli/display_sdl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#define REFRESH_MS 14              /* about the VGA's 70 Hz */

struct sdl_window {
	SDL_Window *window;
	SDL_Renderer *renderer;
	SDL_Texture *texture;
	unsigned width, height;
	Uint64 last_shown;         /* host ms of the last frame shown */
	bool shown_once;
	Uint64 last_idle;          /* host ms the last sdl_window_idle() returned */
};

struct sdl_window *sdl_window_open(const char *title, unsigned width, unsigned height,
				   char *err, size_t errlen)
{
	/* hvemu handles SIGINT, SIGTERM, SIGHUP and SIGUSR2 itself (the run stops and says where). */
	SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
	/* No display to show a window on, and no driver asked for by name: do
	 * not let SDL probe (and print) its way to an invisible fallback. */
	const char *want = getenv("SDL_VIDEODRIVER");
	if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY") && (!want || !*want)) {
		snprintf(err, errlen, "cannot open an SDL window: no display (DISPLAY and WAYLAND_DISPLAY are unset)");
		return NULL;
	}
	if (SDL_Init(SDL_INIT_VIDEO) != 0) {
		snprintf(err, errlen, "cannot open an SDL window: %s", SDL_GetError());
		return NULL;
	}
	/* With no X or Wayland display SDL falls back to its offscreen or dummy
	 * driver: a window nobody sees, whose keys never come. Refused, as when
	 * no driver starts at all. */
	const char *driver = SDL_GetCurrentVideoDriver();
	if (!driver || !strcmp(driver, "offscreen") || !strcmp(driver, "dummy") || !strcmp(driver, "evdev")) {
		snprintf(err, errlen, "cannot open an SDL window: no display (SDL's video driver is '%s'; "
			 "set DISPLAY or WAYLAND_DISPLAY)", driver ? driver : "none");
		SDL_Quit();
		return NULL;
	}
	struct sdl_window *w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "out of memory");
		SDL_Quit();
		return NULL;
	}
	w->window = SDL_CreateWindow(title, SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, (int)width,
				     (int)height, 0);
	if (w->window)
		w->renderer = SDL_CreateRenderer(w->window, -1, 0);
	if (!w->window || !w->renderer) {
		snprintf(err, errlen, "cannot open an SDL window: %s", SDL_GetError());
		sdl_window_close(w);
		return NULL;
	}
	w->width = width;
	w->height = height;
	return w;
}

/* A texture of the frame's size (the VGA switches between 720 and 640 wide). */
static bool fit(struct sdl_window *w, unsigned width, unsigned height)
{
	if (w->texture && w->width == width && w->height == height)
		return true;
	if (w->texture)
		SDL_DestroyTexture(w->texture);
	if (w->width != width || w->height != height)
		SDL_SetWindowSize(w->window, (int)width, (int)height);
	w->width = width;
	w->height = height;
	w->texture = SDL_CreateTexture(w->renderer, SDL_PIXELFORMAT_RGB888, SDL_TEXTUREACCESS_STREAMING,
				       (int)width, (int)height);
	return w->texture != NULL;
}

bool sdl_window_ready(const struct sdl_window *w)
{
	return !w->shown_once || SDL_GetTicks64() - w->last_shown >= REFRESH_MS;
}

bool sdl_window_show(struct sdl_window *w, const uint32_t *pixels, unsigned width, unsigned height,
		     uint32_t *readback)
{
	if (!fit(w, width, height)) {
		fprintf(stderr, "hvemu: warning: cannot draw in the window: %s\n", SDL_GetError());
		return false;
	}
	bool read = true;
	SDL_UpdateTexture(w->texture, NULL, pixels, (int)(width * sizeof(uint32_t)));
	SDL_RenderClear(w->renderer);
	SDL_RenderCopy(w->renderer, w->texture, NULL, NULL);
	/* SDL: read the render target after drawing and before presenting. */
	if (readback && SDL_RenderReadPixels(w->renderer, NULL, SDL_PIXELFORMAT_RGB888, readback,
					     (int)(width * sizeof(uint32_t))) != 0) {
		fprintf(stderr, "hvemu: warning: cannot read the window's pixels: %s\n", SDL_GetError());
		read = false;
	}
	SDL_RenderPresent(w->renderer);
	w->last_shown = SDL_GetTicks64();
	w->shown_once = true;
	return read;
}

void sdl_window_idle(struct sdl_window *w)
{
	Uint64 since = SDL_GetTicks64() - w->last_idle;
	if (since < REFRESH_MS)
		SDL_WaitEventTimeout(NULL, (int)(REFRESH_MS - since));
	w->last_idle = SDL_GetTicks64();
}

bool sdl_window_poll(struct sdl_window *w, void (*key)(void *opaque, unsigned usage, bool down), void *opaque)
{
	SDL_Event e;
	bool open = true;
	while (SDL_PollEvent(&e)) {
		switch (e.type) {
		case SDL_QUIT:
			open = false;
			break;
		case SDL_KEYDOWN:
		case SDL_KEYUP:
			/* SDL's scancodes are USB HID usages (page 07h). */
			key(opaque, (unsigned)e.key.keysym.scancode, e.type == SDL_KEYDOWN);
			break;
		default:
			break;
		}
	}
	return open;
}

void sdl_window_close(struct sdl_window *w)
{
	if (!w)
		return;
	if (w->texture)
		SDL_DestroyTexture(w->texture);
	if (w->renderer)
		SDL_DestroyRenderer(w->renderer);
	if (w->window)
		SDL_DestroyWindow(w->window);
	free(w);
	SDL_Quit();
}
