/* PS/2 keyboard; see devices/ps2_keyboard.h. */
#include "devices/ps2_keyboard.h"

#include <string.h>
#include <strings.h>

/* name, USB usage (HID page 07h), set 2 make code, E0h prefix, US characters. */
const struct ps2_key ps2_keys[] = {
	{ "A", 0x04, 0x1c, false, 'a', 'A' }, { "B", 0x05, 0x32, false, 'b', 'B' },
	{ "C", 0x06, 0x21, false, 'c', 'C' }, { "D", 0x07, 0x23, false, 'd', 'D' },
	{ "E", 0x08, 0x24, false, 'e', 'E' }, { "F", 0x09, 0x2b, false, 'f', 'F' },
	{ "G", 0x0a, 0x34, false, 'g', 'G' }, { "H", 0x0b, 0x33, false, 'h', 'H' },
	{ "I", 0x0c, 0x43, false, 'i', 'I' }, { "J", 0x0d, 0x3b, false, 'j', 'J' },
	{ "K", 0x0e, 0x42, false, 'k', 'K' }, { "L", 0x0f, 0x4b, false, 'l', 'L' },
	{ "M", 0x10, 0x3a, false, 'm', 'M' }, { "N", 0x11, 0x31, false, 'n', 'N' },
	{ "O", 0x12, 0x44, false, 'o', 'O' }, { "P", 0x13, 0x4d, false, 'p', 'P' },
	{ "Q", 0x14, 0x15, false, 'q', 'Q' }, { "R", 0x15, 0x2d, false, 'r', 'R' },
	{ "S", 0x16, 0x1b, false, 's', 'S' }, { "T", 0x17, 0x2c, false, 't', 'T' },
	{ "U", 0x18, 0x3c, false, 'u', 'U' }, { "V", 0x19, 0x2a, false, 'v', 'V' },
	{ "W", 0x1a, 0x1d, false, 'w', 'W' }, { "X", 0x1b, 0x22, false, 'x', 'X' },
	{ "Y", 0x1c, 0x35, false, 'y', 'Y' }, { "Z", 0x1d, 0x1a, false, 'z', 'Z' },
	{ "1", 0x1e, 0x16, false, '1', '!' }, { "2", 0x1f, 0x1e, false, '2', '@' },
	{ "3", 0x20, 0x26, false, '3', '#' }, { "4", 0x21, 0x25, false, '4', '$' },
	{ "5", 0x22, 0x2e, false, '5', '%' }, { "6", 0x23, 0x36, false, '6', '^' },
	{ "7", 0x24, 0x3d, false, '7', '&' }, { "8", 0x25, 0x3e, false, '8', '*' },
	{ "9", 0x26, 0x46, false, '9', '(' }, { "0", 0x27, 0x45, false, '0', ')' },
	{ "Enter", 0x28, 0x5a, false, '\n', 0 }, { "Esc", 0x29, 0x76, false, 0, 0 },
	{ "Backspace", 0x2a, 0x66, false, '\b', 0 }, { "Tab", 0x2b, 0x0d, false, '\t', 0 },
	{ "Space", 0x2c, 0x29, false, ' ', 0 }, { "Minus", 0x2d, 0x4e, false, '-', '_' },
	{ "Equals", 0x2e, 0x55, false, '=', '+' }, { "LeftBracket", 0x2f, 0x54, false, '[', '{' },
	{ "RightBracket", 0x30, 0x5b, false, ']', '}' }, { "Backslash", 0x31, 0x5d, false, '\\', '|' },
	{ "Semicolon", 0x33, 0x4c, false, ';', ':' }, { "Apostrophe", 0x34, 0x52, false, '\'', '"' },
	{ "Grave", 0x35, 0x0e, false, '`', '~' }, { "Comma", 0x36, 0x41, false, ',', '<' },
	{ "Period", 0x37, 0x49, false, '.', '>' }, { "Slash", 0x38, 0x4a, false, '/', '?' },
	{ "CapsLock", 0x39, 0x58, false, 0, 0 },
	{ "F1", 0x3a, 0x05, false, 0, 0 }, { "F2", 0x3b, 0x06, false, 0, 0 },
	{ "F3", 0x3c, 0x04, false, 0, 0 }, { "F4", 0x3d, 0x0c, false, 0, 0 },
	{ "F5", 0x3e, 0x03, false, 0, 0 }, { "F6", 0x3f, 0x0b, false, 0, 0 },
	{ "F7", 0x40, 0x83, false, 0, 0 }, { "F8", 0x41, 0x0a, false, 0, 0 },
	{ "F9", 0x42, 0x01, false, 0, 0 }, { "F10", 0x43, 0x09, false, 0, 0 },
	{ "F11", 0x44, 0x78, false, 0, 0 }, { "F12", 0x45, 0x07, false, 0, 0 },
	{ "ScrollLock", 0x47, 0x7e, false, 0, 0 },
	{ "Insert", 0x49, 0x70, true, 0, 0 }, { "Home", 0x4a, 0x6c, true, 0, 0 },
	{ "PageUp", 0x4b, 0x7d, true, 0, 0 }, { "Delete", 0x4c, 0x71, true, 0, 0 },
	{ "End", 0x4d, 0x69, true, 0, 0 }, { "PageDown", 0x4e, 0x7a, true, 0, 0 },
	{ "Right", 0x4f, 0x74, true, 0, 0 }, { "Left", 0x50, 0x6b, true, 0, 0 },
	{ "Down", 0x51, 0x72, true, 0, 0 }, { "Up", 0x52, 0x75, true, 0, 0 },
	{ "NumLock", 0x53, 0x77, false, 0, 0 }, { "KPSlash", 0x54, 0x4a, true, 0, 0 },
	{ "KPStar", 0x55, 0x7c, false, 0, 0 }, { "KPMinus", 0x56, 0x7b, false, 0, 0 },
	{ "KPPlus", 0x57, 0x79, false, 0, 0 }, { "KPEnter", 0x58, 0x5a, true, 0, 0 },
	{ "KP1", 0x59, 0x69, false, 0, 0 }, { "KP2", 0x5a, 0x72, false, 0, 0 },
	{ "KP3", 0x5b, 0x7a, false, 0, 0 }, { "KP4", 0x5c, 0x6b, false, 0, 0 },
	{ "KP5", 0x5d, 0x73, false, 0, 0 }, { "KP6", 0x5e, 0x74, false, 0, 0 },
	{ "KP7", 0x5f, 0x6c, false, 0, 0 }, { "KP8", 0x60, 0x75, false, 0, 0 },
	{ "KP9", 0x61, 0x7d, false, 0, 0 }, { "KP0", 0x62, 0x70, false, 0, 0 },
	{ "KPPeriod", 0x63, 0x71, false, 0, 0 }, { "NonUSBackslash", 0x64, 0x61, false, 0, 0 },
	{ "Menu", 0x65, 0x2f, true, 0, 0 },
	{ "LCtrl", 0xe0, 0x14, false, 0, 0 }, { "LShift", 0xe1, 0x12, false, 0, 0 },
	{ "LAlt", 0xe2, 0x11, false, 0, 0 }, { "LGui", 0xe3, 0x1f, true, 0, 0 },
	{ "RCtrl", 0xe4, 0x14, true, 0, 0 }, { "RShift", 0xe5, 0x59, false, 0, 0 },
	{ "RAlt", 0xe6, 0x11, true, 0, 0 }, { "RGui", 0xe7, 0x27, true, 0, 0 },
};
const unsigned ps2_key_count = sizeof(ps2_keys) / sizeof(ps2_keys[0]);

const struct ps2_key *ps2_key_by_name(const char *name, size_t len)
{
	for (unsigned i = 0; i < ps2_key_count; i++)
		if (strlen(ps2_keys[i].name) == len && !strncasecmp(ps2_keys[i].name, name, len))
			return &ps2_keys[i];
	return NULL;
}

const struct ps2_key *ps2_key_by_usb(unsigned usage)
{
	for (unsigned i = 0; i < ps2_key_count; i++)
		if (ps2_keys[i].usb == usage)
			return &ps2_keys[i];
	return NULL;
}

const struct ps2_key *ps2_key_by_char(char c, bool *shift)
{
	for (unsigned i = 0; c && i < ps2_key_count; i++) {
		if (ps2_keys[i].plain == c || ps2_keys[i].shifted == c) {
			*shift = ps2_keys[i].shifted == c;
			return &ps2_keys[i];
		}
	}
	return NULL;
}

/* The 8042 translation table, 00h-7Fh (Brouwer 9.3, after Konzak, "PC 8042
 * Controller"). 80h-FFh translate to themselves, except 83h (F7) and 84h
 * (SysRq): "translated and untranslated values are equal in all known cases,
 * with the two exceptions 83 and 84". */
static const uint8_t xlat_low[128] = {
	0xff, 0x43, 0x41, 0x3f, 0x3d, 0x3b, 0x3c, 0x58, 0x64, 0x44, 0x42, 0x40, 0x3e, 0x0f, 0x29, 0x59,
	0x65, 0x38, 0x2a, 0x70, 0x1d, 0x10, 0x02, 0x5a, 0x66, 0x71, 0x2c, 0x1f, 0x1e, 0x11, 0x03, 0x5b,
	0x67, 0x2e, 0x2d, 0x20, 0x12, 0x05, 0x04, 0x5c, 0x68, 0x39, 0x2f, 0x21, 0x14, 0x13, 0x06, 0x5d,
	0x69, 0x31, 0x30, 0x23, 0x22, 0x15, 0x07, 0x5e, 0x6a, 0x72, 0x32, 0x24, 0x16, 0x08, 0x09, 0x5f,
	0x6b, 0x33, 0x25, 0x17, 0x18, 0x0b, 0x0a, 0x60, 0x6c, 0x34, 0x35, 0x26, 0x27, 0x19, 0x0c, 0x61,
	0x6d, 0x73, 0x28, 0x74, 0x1a, 0x0d, 0x62, 0x6e, 0x3a, 0x36, 0x1c, 0x1b, 0x75, 0x2b, 0x63, 0x76,
	0x55, 0x56, 0x77, 0x78, 0x79, 0x7a, 0x0e, 0x7b, 0x7c, 0x4f, 0x7d, 0x4b, 0x47, 0x7e, 0x7f, 0x6f,
	0x52, 0x53, 0x50, 0x4c, 0x4d, 0x48, 0x01, 0x45, 0x57, 0x4e, 0x51, 0x4a, 0x37, 0x49, 0x46, 0x54,
};

uint8_t ps2_translate(uint8_t b)
{
	if (b < 0x80)
		return xlat_low[b];
	return b == 0x83 ? 0x41 : b == 0x84 ? 0x54 : b;
}

/* Keyboard commands (Brouwer 11) and answers. */
enum {
	KBD_SET_LEDS = 0xed, KBD_ECHO = 0xee, KBD_SCAN_SET = 0xf0, KBD_IDENTIFY = 0xf2,
	KBD_TYPEMATIC = 0xf3, KBD_ENABLE = 0xf4, KBD_DISABLE = 0xf5, KBD_DEFAULTS = 0xf6,
	KBD_RESEND = 0xfe, KBD_RESET = 0xff,
	KBD_ACK = 0xfa, KBD_NAK = 0xfe, KBD_BAT_OK = 0xaa,
	KBD_ID1 = 0xab, KBD_ID2 = 0x83,        /* an MF2 keyboard */
	TYPEMATIC_DEFAULT = 0x2b,             /* 500 ms delay, 10.9 characters/s */
};

static void notify(struct ps2_keyboard *k)
{
	if (k->ready)
		k->ready(k->ready_opaque);
}

static void reply(struct ps2_keyboard *k, uint8_t b)
{
	if (k->reply_count < PS2KBD_REPLY)
		k->reply[(k->reply_head + k->reply_count++) % PS2KBD_REPLY] = b;
}

static void set_defaults(struct ps2_keyboard *k)
{
	k->leds = 0;
	k->typematic = TYPEMATIC_DEFAULT;
	k->count = 0;              /* "clear output buffer" */
}

void ps2kbd_init(struct ps2_keyboard *k, void (*ready)(void *), void *opaque)
{
	memset(k, 0, sizeof(*k));
	k->ready = ready;
	k->ready_opaque = opaque;
	k->scan_set = 2;
	k->scanning = true;
	set_defaults(k);
}

/* The argument of a command that takes one. */
static void argument(struct ps2_keyboard *k, uint8_t cmd, uint8_t arg)
{
	switch (cmd) {
	case KBD_SET_LEDS:
		k->leds = arg & 7;
		reply(k, KBD_ACK);
		break;
	case KBD_TYPEMATIC:
		k->typematic = arg & 0x7f;
		reply(k, KBD_ACK);
		break;
	case KBD_SCAN_SET:
		/* 0 asks for the current set (answered untranslated: 1, 2 or 3). */
		if (arg == 0) {
			reply(k, KBD_ACK);
			reply(k, k->scan_set);
		} else if (arg == 1 || arg == 2) {
			k->scan_set = arg;
			k->count = 0;
			reply(k, KBD_ACK);
		} else {
			reply(k, KBD_NAK);
		}
		break;
	default:
		break;
	}
}

void ps2kbd_command(struct ps2_keyboard *k, uint8_t b)
{
	/* An argument byte that is itself a command (EDh and above) is taken as
	 * that command instead (Brouwer 11.1, EDh). */
	if (k->awaiting && b < KBD_SET_LEDS) {
		uint8_t cmd = k->awaiting;
		k->awaiting = 0;
		argument(k, cmd, b);
		notify(k);
		return;
	}
	k->awaiting = 0;
	switch (b) {
	case KBD_SET_LEDS:
	case KBD_SCAN_SET:
	case KBD_TYPEMATIC:
		k->awaiting = b;
		reply(k, KBD_ACK);
		break;
	case KBD_ECHO:
		reply(k, KBD_ECHO);
		break;
	case KBD_IDENTIFY:
		reply(k, KBD_ACK);
		reply(k, KBD_ID1);
		reply(k, KBD_ID2);
		break;
	case KBD_ENABLE:
		k->count = 0;      /* "re-enables the keyboard and clears its buffer" */
		k->scanning = true;
		reply(k, KBD_ACK);
		break;
	case KBD_DISABLE:
		set_defaults(k);
		k->scanning = false;
		reply(k, KBD_ACK);
		break;
	case KBD_DEFAULTS:
		set_defaults(k);
		reply(k, KBD_ACK);
		break;
	case KBD_RESEND:
		reply(k, k->last_sent);
		break;
	case KBD_RESET:
		set_defaults(k);
		k->scan_set = 2;
		k->scanning = true;
		k->reply_count = 0;
		reply(k, KBD_ACK);
		reply(k, KBD_BAT_OK);
		break;
	default:
		/* F7h-FDh configure set 3 keys: acknowledged, without effect in
		 * sets 1 and 2 (Brouwer 11). Anything else is not a command. */
		reply(k, b >= 0xf7 && b <= 0xfd ? KBD_ACK : KBD_NAK);
		break;
	}
	notify(k);
}

void ps2kbd_key(struct ps2_keyboard *k, const struct ps2_key *key, bool down)
{
	if (!k->scanning || !key)
		return;
	uint8_t code[3];
	unsigned n = 0;
	if (key->e0)
		code[n++] = 0xe0;
	/* Brouwer 9.2: set 1 breaks with the code + 80h, set 2 with F0h first. */
	if (k->scan_set == 1) {
		uint8_t c = ps2_translate(key->set2);
		code[n++] = down ? c : (uint8_t)(c | 0x80);
	} else {
		if (!down)
			code[n++] = 0xf0;
		code[n++] = key->set2;
	}
	if (k->count + n > PS2KBD_BUFFER) {
		/* No room for the code: the overrun code takes the last place. */
		uint8_t overrun = k->scan_set == 1 ? 0xff : 0x00;
		if (k->count < PS2KBD_BUFFER)
			k->count++;
		k->buffer[(k->head + k->count - 1) % PS2KBD_BUFFER] = overrun;
		notify(k);
		return;
	}
	for (unsigned i = 0; i < n; i++)
		k->buffer[(k->head + k->count++) % PS2KBD_BUFFER] = code[i];
	notify(k);
}

bool ps2kbd_has_byte(const struct ps2_keyboard *k)
{
	return k->reply_count || k->count;
}

uint8_t ps2kbd_take_byte(struct ps2_keyboard *k)
{
	uint8_t b = 0;
	if (k->reply_count) {
		b = k->reply[k->reply_head];
		k->reply_head = (k->reply_head + 1) % PS2KBD_REPLY;
		k->reply_count--;
	} else if (k->count) {
		b = k->buffer[k->head];
		k->head = (k->head + 1) % PS2KBD_BUFFER;
		k->count--;
	} else {
		return 0;
	}
	k->last_sent = b;
	return b;
}
