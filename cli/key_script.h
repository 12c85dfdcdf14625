/* --keys TIME:KEYS: keystrokes typed into the PS/2 keyboard at given virtual
 * times, so a run with keyboard input replays exactly.
 *
 * TIME is a virtual time from the start of the run: a number with the unit
 * ns, us, ms or s (10ms, 1s). KEYS are typed from then on, one key event
 * (press or release) every KEY_SCRIPT_GAP_NS of virtual time:
 *   - a character types its key on a US layout, with Shift around it when
 *     the character needs it ("Hi" is LShift down, H down, H up, LShift up,
 *     I down, I up); \n is Enter, \t Tab, \b Backspace;
 *   - <Name> presses and releases the named key (<Enter>, <Esc>, <F1>, <Up>,
 *     <KP5>, <LCtrl>, ...: the names of devices/ps2_keyboard.c, any case);
 *   - <+Name> only presses it, <-Name> only releases it (<+LCtrl>c<-LCtrl>);
 *   - <lt> types '<'.
 * --keys may be given several times; the events are merged by time.
 */
#ifndef HVEMU_CLI_KEY_SCRIPT_H
#define HVEMU_CLI_KEY_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/clock.h"
#include "devices/i8042.h"

/* About the time a PS/2 keyboard needs to send a 3-byte code (33 bits at a
 * 10-16.7 kHz clock), with room to spare. */
#define KEY_SCRIPT_GAP_NS 5000000ull
#define KEY_SCRIPT_MAX_EVENTS 4096

struct key_event {
	uint64_t at_ns;            /* virtual time from the start of the run */
	const struct ps2_key *key;
	bool down;
};

struct key_script {
	struct key_event *events;  /* sorted by time (stable) once started */
	unsigned count, next;
	struct vtimer timer;
	struct vclock *clock;
	struct i8042 *kbc;
};

/* Parse one --keys argument and add its events. False with a one-line reason
 * in err (the caller prefixes the option). */
bool key_script_add(struct key_script *s, const char *spec, char *err, size_t errlen);

/* Start typing into kbc on clock (a timer fires at each event's time). */
void key_script_start(struct key_script *s, struct vclock *clock, struct i8042 *kbc);

/* Cancel the timer and free the events. */
void key_script_free(struct key_script *s);

#endif
