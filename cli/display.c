/* --display and --screenshot; see cli/display.h. */
#include "cli/display.h"
#include "cli/display_sdl.h"
#include "cli/png.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool display_parse(const char *name, enum display_kind *kind)
{
	static const char *const names[] = { [DISPLAY_NONE] = "none", [DISPLAY_TEXT] = "text",
					     [DISPLAY_SDL] = "sdl" };
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i])) {
			*kind = (enum display_kind)i;
			return true;
		}
	return false;
}

bool display_screenshot_writable(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (!*path) {
		snprintf(err, errlen, "--screenshot needs a file name");
		return false;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--screenshot %s is a folder", path);
		return false;
	}
	char dir[4096];
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (access(dir, W_OK | X_OK) != 0) {
		snprintf(err, errlen, "--screenshot %s cannot be written: folder '%s': %s", path, dir, strerror(errno));
		return false;
	}
	return true;
}

/* --- the screen as text (stderr), also from the SIGUSR1 handler: only
 * write(2) and the VGA's pure row formatter --- */

static void put(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(STDERR_FILENO, s, n);
		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			return;
		}
		s += w;
		n -= (size_t)w;
	}
}

static void put_str(const char *s)
{
	put(s, strlen(s));
}

static void put_uint(unsigned v)
{
	char buf[12];
	size_t i = sizeof(buf);
	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(buf + i, sizeof(buf) - i);
}

static void print_screen(const struct vga *v, const char *when)
{
	unsigned row, col;
	put_str("hvemu: text screen ");
	put_str(when);
	if (vga_cursor(v, &row, &col)) {
		put_str(", cursor at row ");
		put_uint(row);
		put_str(" column ");
		put_uint(col);
		put_str(":\n");
	} else {
		put_str(", cursor off:\n");
	}
	char line[VGA_TEXT_ROW_MAX + 2];
	char border[VGA_COLS + 3];
	border[0] = '+';
	memset(border + 1, '-', VGA_COLS);
	border[VGA_COLS + 1] = '+';
	border[VGA_COLS + 2] = '\n';
	put(border, sizeof(border));
	for (unsigned r = 0; r < VGA_ROWS; r++) {
		size_t n = vga_text_row(v, r, line + 1);
		line[0] = '|';
		line[n + 1] = '|';
		line[n + 2] = '\n';
		put(line, n + 3);
	}
	put(border, sizeof(border));
}

static _Atomic(const struct vga *) usr1_vga;
static struct sigaction usr1_old;

static void on_usr1(int sig)
{
	const struct vga *v = atomic_load(&usr1_vga);
	int saved = errno;
	if (v)
		print_screen(v, "on SIGUSR1");
	errno = saved;
}

static void catch_usr1(const struct vga *v)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	atomic_store(&usr1_vga, v);
	sigaction(SIGUSR1, &sa, &usr1_old);
}

static void release_usr1(void)
{
	sigaction(SIGUSR1, &usr1_old, NULL);
	atomic_store(&usr1_vga, NULL);
}

/* --- the window --- */

static void window_key(void *opaque, unsigned usage, bool down)
{
	struct display *d = opaque;
	const struct ps2_key *key = ps2_key_by_usb(usage);
	if (key)
		i8042_key(d->kbc, key, down);
}

/* A VGA frame, but at least 5 ms of virtual time: a guest that programs
 * tiny CRTC totals does not make the window redraw without end. */
static uint64_t refresh_ticks(const struct display *d)
{
	uint64_t frame = vga_frame_ticks(d->vga), floor = vclock_ticks_from(d->clock, 5, 1000);
	return frame > floor ? frame : floor;
}

static void frame_due(void *opaque, uint64_t now)
{
	struct display *d = opaque;
	/* A halted CPU skips virtual time to its next timer; let the host
	 * catch up with the frame instead of spinning through them. */
	if (d->cpu->halted)
		sdl_window_idle(d->window);
	uint64_t frame = vga_frame_at(d->vga, now);
	unsigned phase = (unsigned)(frame & 0x18) + 1;
	bool changed = phase != d->drawn_phase || memcmp(&d->drawn_vga, d->vga, sizeof(*d->vga)) ||
		       memcmp(d->drawn_text, d->vga->text, VGA_TEXT_SIZE);
	/* At most one frame per host refresh: a change waits for the next. */
	if (changed && sdl_window_ready(d->window)) {
		unsigned width = vga_width(d->vga);
		vga_render(d->vga, d->pixels, width, frame);
		sdl_window_show(d->window, d->pixels, width, VGA_HEIGHT, NULL);
		d->drawn_phase = phase;
		memcpy(&d->drawn_vga, d->vga, sizeof(*d->vga));
		memcpy(d->drawn_text, d->vga->text, VGA_TEXT_SIZE);
	}
	if (!sdl_window_poll(d->window, window_key, d)) {
		d->closed = true;
		cpu_request_stop(d->cpu);
		return;
	}
	vtimer_arm(d->clock, &d->frame, now + refresh_ticks(d));
}

bool display_open(struct display *d, enum display_kind kind, const char *screenshot, struct vga *vga,
		  struct i8042 *kbc, struct vclock *clock, struct cpu *cpu, char *err, size_t errlen)
{
	d->kind = kind;
	d->screenshot = screenshot;
	d->vga = vga;
	d->kbc = kbc;
	d->clock = clock;
	d->cpu = cpu;
	d->closed = false;
	if (kind == DISPLAY_TEXT)
		catch_usr1(vga);
	if (kind != DISPLAY_SDL)
		return true;
	char why[256];
	d->window = sdl_window_open("hvemu", vga_width(vga), VGA_HEIGHT, why, sizeof(why));
	if (!d->window) {
		snprintf(err, errlen, "--display sdl: %s", why);
		return false;
	}
	d->frame = (struct vtimer){ .fire = frame_due, .opaque = d, .name = "display" };
	vtimer_arm(clock, &d->frame, vclock_now(clock) + refresh_ticks(d));
	return true;
}

static void write_screenshot(const char *path, const uint32_t *pixels, unsigned width)
{
	FILE *f = fopen(path, "wb");
	bool ok = f && png_write(f, pixels, width, VGA_HEIGHT, width);
	int saved = errno;
	if (f && fclose(f) != 0 && ok) {
		ok = false;
		saved = errno;
	}
	if (!ok)
		fprintf(stderr, "hvemu: warning: cannot write the screenshot %s: %s\n", path, strerror(saved));
}

void display_finish(struct display *d)
{
	if (!d->vga)
		return;
	if (d->kind == DISPLAY_TEXT) {
		release_usr1();
		fflush(stderr);
		print_screen(d->vga, "at exit");
	}
	/* A still: the cursor and blinking characters shown (frame 0). */
	unsigned width = vga_width(d->vga);
	vga_render(d->vga, d->pixels, width, 0);
	if (d->window) {
		/* The screenshot is what the window shows, read back from it (the
		 * VGA's own picture if that fails: SDL has said why). */
		uint32_t *seen = d->screenshot ? malloc((size_t)width * VGA_HEIGHT * sizeof(uint32_t)) : NULL;
		bool read = sdl_window_show(d->window, d->pixels, width, VGA_HEIGHT, seen);
		if (d->screenshot)
			write_screenshot(d->screenshot, seen && read ? seen : d->pixels, width);
		free(seen);
	} else if (d->screenshot) {
		write_screenshot(d->screenshot, d->pixels, width);
	}
	display_close(d);
}

void display_close(struct display *d)
{
	if (d->kind == DISPLAY_TEXT && atomic_load(&usr1_vga) == d->vga)
		release_usr1();
	if (d->window) {
		if (d->frame.armed)
			vtimer_cancel(d->clock, &d->frame);
		sdl_window_close(d->window);
		d->window = NULL;
	}
	d->vga = NULL;
}
