/* The GDB Remote Serial Protocol's framing (GDB manual, appendix "Remote
 * Protocol", sections "Overview" and "Binary Data"): a packet is
 * `$data#cc` with cc the modulo-256 sum of data in two hex digits, answered
 * `+` (good) or `-` (resend) until "QStartNoAckMode" turns the answers off; a
 * lone 0x03 byte outside a packet is an interrupt ("Interrupts"). `}` escapes
 * the next byte XORed with 0x20 in data that contains `$`, `#`, `}` or `*`.
 *
 * This file knows bytes and packets, nothing of commands: the pure parts
 * (checksum, escaping, one packet out of a byte stream) take buffers, so the
 * unit tests feed them without a socket. */
#ifndef HVEMU_CLI_RSP_H
#define HVEMU_CLI_RSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest packet either side sends; qSupported tells gdb (PacketSize, in
 * hex) so it never sends a longer one. A longer one from a broken peer is
 * dropped with a `-`. */
#define RSP_MAX_PACKET 16384

/* The modulo-256 sum of data ("Overview": the checksum). */
uint8_t rsp_checksum(const uint8_t *data, size_t len);

/* Escape len bytes of src into dst (cap bytes), for binary data in a reply
 * ("Binary Data"). Returns the escaped length, or SIZE_MAX if it does not fit. */
size_t rsp_escape(const uint8_t *src, size_t len, uint8_t *dst, size_t cap);

/* Undo rsp_escape() in place; returns the unescaped length. A trailing lone
 * `}` is dropped. */
size_t rsp_unescape(uint8_t *buf, size_t len);

/* What a byte stream holds next. */
enum rsp_event {
	RSP_NONE,                  /* not a whole packet yet */
	RSP_PACKET,                /* a packet with a good checksum: its data */
	RSP_BAD_PACKET,            /* a packet whose checksum is wrong or too long: answer `-` */
	RSP_INTERRUPT,             /* 0x03 outside a packet ("Interrupts") */
	RSP_ACK,                   /* `+` */
	RSP_NAK,                   /* `-`: send the last packet again */
};

/* A connection's input as a state machine fed byte by byte. */
struct rsp_parser {
	enum { RSP_IDLE, RSP_DATA, RSP_SUM1, RSP_SUM2 } state;
	uint8_t data[RSP_MAX_PACKET + 1];   /* + room for the NUL a reader adds */
	size_t len;
	bool overflow;             /* the packet was longer than data: dropped */
	uint8_t sum;               /* the checksum of data so far */
	uint8_t want;              /* the packet's checksum, first digit */
};

void rsp_parser_init(struct rsp_parser *p);

/* Feed one byte. RSP_PACKET: p->data[0..p->len) is the packet's data, still
 * escaped; valid until the next call. */
enum rsp_event rsp_parser_feed(struct rsp_parser *p, uint8_t byte);

/* Frame data as `$data#cc` into out (cap bytes); returns the frame's length,
 * or 0 if it does not fit. data is sent as it is: the caller escapes binary. */
size_t rsp_frame(const uint8_t *data, size_t len, uint8_t *out, size_t cap);

/* Hex helpers: the value of a hex digit or -1; parse a hex number from *s
 * (advancing it; false on no digit or overflow past 64 bits). */
int rsp_hex_digit(int c);
bool rsp_parse_hex(const char **s, uint64_t *out);

#endif
