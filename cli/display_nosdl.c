/* --display sdl in a build without SDL2 (meson's 'sdl' feature off or SDL2
 * missing): the window cannot be opened, and says why. */
#include "cli/display_sdl.h"

#include <stdio.h>

struct sdl_window *sdl_window_open(const char *title, unsigned width, unsigned height,
				   char *err, size_t errlen)
{
	snprintf(err, errlen, "this hvemu was built without SDL2 (install libsdl2-dev and "
		 "reconfigure with meson -Dsdl=enabled)");
	return NULL;
}

/* No window is ever opened, so the rest is never reached with one. */
bool sdl_window_ready(const struct sdl_window *w)
{
	return false;
}

bool sdl_window_show(struct sdl_window *w, const uint32_t *pixels, unsigned width, unsigned height,
		     uint32_t *readback)
{
	return false;
}

void sdl_window_idle(struct sdl_window *w)
{
}

bool sdl_window_poll(struct sdl_window *w, void (*key)(void *opaque, unsigned usage, bool down), void *opaque)
{
	return false;
}

void sdl_window_close(struct sdl_window *w)
{
}
