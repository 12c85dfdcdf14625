/* A PS/2 (MF2) keyboard: the device at the end of the 8042's keyboard port.
 * It turns key presses into scan codes of set 2 (the power-on default) or
 * set 1, answers the host's commands (ACK FAh, echo, identify AB 83h, scan
 * code set get/set, LEDs, typematic, enable/disable, defaults, resend,
 * reset with its BAT code AAh), and queues its output for the controller.
 *
 * Facts from IBM's keyboard and 8042 documentation as collected in
 * A. Brouwer, "Keyboard scancodes" (section 9: scan code sets, make and break
 * codes, keyboard IDs; section 11: keyboard commands).
 *
 * Not modelled: scan code set 3 (a request for it is refused with FEh, as
 * keyboards without set 3 do), the Pause and Print Screen keys' multi-byte
 * sequences, the keyboard's own typematic repeat (the host's repeats arrive
 * as repeated make codes), transmission timing (a byte is ready for the
 * controller as soon as it is queued).
 */
#ifndef HVEMU_DEVICES_PS2_KEYBOARD_H
#define HVEMU_DEVICES_PS2_KEYBOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One key of the 104/105-key keyboard, a row of ps2_keys[]: its name (for
 * --keys <Name>), its USB HID usage (usage page 07h; SDL's scancodes are
 * these numbers), its set 2 make code and whether an E0h prefix precedes it,
 * and the characters it types on a US layout without and with Shift (0:
 * none). Set 1 codes are the 8042 translation of the set 2 code (Brouwer
 * 9.4: "Set 1 equals translated Set 2"). */
struct ps2_key {
	const char *name;
	uint8_t usb;
	uint8_t set2;
	bool e0;
	char plain, shifted;
};

extern const struct ps2_key ps2_keys[];
extern const unsigned ps2_key_count;

/* The key named name[0..len) (case-insensitive), or NULL. */
const struct ps2_key *ps2_key_by_name(const char *name, size_t len);
/* The key with USB usage, or NULL. */
const struct ps2_key *ps2_key_by_usb(unsigned usage);
/* The key that types c on a US layout, and whether Shift is needed. */
const struct ps2_key *ps2_key_by_char(char c, bool *shift);

/* The 8042's translation of a set 2 byte into set 1 (IBM/Konzak table, as
 * Brouwer 9.3 gives it; F0h is handled by the controller, not the table). */
uint8_t ps2_translate(uint8_t set2_byte);

#define PS2KBD_BUFFER 16           /* the keyboard's own 16-byte buffer */
#define PS2KBD_REPLY 4

struct ps2_keyboard {
	uint8_t buffer[PS2KBD_BUFFER]; /* scan codes for the controller */
	unsigned head, count;
	uint8_t reply[PS2KBD_REPLY];   /* answers to commands: sent before scan codes */
	unsigned reply_head, reply_count;
	uint8_t scan_set;              /* 1 or 2 */
	bool scanning;                 /* keys are reported (F4h; F5h stops it) */
	uint8_t awaiting;              /* command (EDh, F0h, F3h) waiting for its argument, or 0 */
	uint8_t leds;                  /* EDh argument: bit 0 Scroll, 1 Num, 2 Caps Lock */
	uint8_t typematic;             /* F3h argument */
	uint8_t last_sent;             /* for resend (FEh) */
	/* Called when a byte becomes available to the controller. */
	void (*ready)(void *opaque);
	void *ready_opaque;
};

/* Power-on state: set 2, scanning, defaults, nothing queued (the BAT code of
 * power-on has been read by the firmware). */
void ps2kbd_init(struct ps2_keyboard *k, void (*ready)(void *), void *opaque);

/* A byte the host sends the keyboard (a command or a command's argument). */
void ps2kbd_command(struct ps2_keyboard *k, uint8_t byte);

/* A key pressed (down) or released: its make or break code in the current
 * set, if the keyboard is scanning. A code that does not fit in the buffer
 * is replaced by the overrun code (00h in set 2, FFh in set 1). */
void ps2kbd_key(struct ps2_keyboard *k, const struct ps2_key *key, bool down);

/* The controller's side: is a byte waiting, and take it. */
bool ps2kbd_has_byte(const struct ps2_keyboard *k);
uint8_t ps2kbd_take_byte(struct ps2_keyboard *k);

#endif
