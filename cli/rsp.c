/* The GDB Remote Serial Protocol's framing; see cli/rsp.h. */
#include "cli/rsp.h"

#include <string.h>

uint8_t rsp_checksum(const uint8_t *data, size_t len)
{
	uint8_t sum = 0;
	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + data[i]);
	return sum;
}

/* GDB manual "Binary Data": `#`, `$`, `}` and `*` (run-length encoding's
 * marker) are escaped as `}` followed by the byte XOR 0x20. */
static bool needs_escape(uint8_t c)
{
	return c == '#' || c == '$' || c == '}' || c == '*';
}

size_t rsp_escape(const uint8_t *src, size_t len, uint8_t *dst, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		bool esc = needs_escape(src[i]);
		if (n + 1 + esc > cap)
			return SIZE_MAX;
		if (esc) {
			dst[n++] = '}';
			dst[n++] = src[i] ^ 0x20;
		} else {
			dst[n++] = src[i];
		}
	}
	return n;
}

size_t rsp_unescape(uint8_t *buf, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '}') {
			if (++i == len)
				break;
			buf[n++] = buf[i] ^ 0x20;
		} else {
			buf[n++] = buf[i];
		}
	}
	return n;
}

void rsp_parser_init(struct rsp_parser *p)
{
	p->state = RSP_IDLE;
	p->len = 0;
	p->overflow = false;
	p->sum = 0;
}

int rsp_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

enum rsp_event rsp_parser_feed(struct rsp_parser *p, uint8_t byte)
{
	switch (p->state) {
	case RSP_IDLE:
		/* Between packets: acks, the interrupt byte, a packet start;
		 * anything else is line noise and ignored. */
		if (byte == '$') {
			p->state = RSP_DATA;
			p->len = 0;
			p->sum = 0;
			p->overflow = false;
			return RSP_NONE;
		}
		if (byte == 0x03)
			return RSP_INTERRUPT;
		if (byte == '+')
			return RSP_ACK;
		if (byte == '-')
			return RSP_NAK;
		return RSP_NONE;
	case RSP_DATA:
		if (byte == '#') {
			p->state = RSP_SUM1;
			return RSP_NONE;
		}
		/* A `$` inside a packet: the peer started over. */
		if (byte == '$') {
			p->len = 0;
			p->sum = 0;
			p->overflow = false;
			return RSP_NONE;
		}
		p->sum = (uint8_t)(p->sum + byte);
		if (p->len < RSP_MAX_PACKET)
			p->data[p->len++] = byte;
		else
			p->overflow = true;
		return RSP_NONE;
	case RSP_SUM1: {
		int d = rsp_hex_digit(byte);
		p->want = (uint8_t)(d < 0 ? 0 : d);
		p->state = d < 0 ? RSP_IDLE : RSP_SUM2;
		return d < 0 ? RSP_BAD_PACKET : RSP_NONE;
	}
	case RSP_SUM2: {
		int d = rsp_hex_digit(byte);
		p->state = RSP_IDLE;
		if (d < 0 || p->overflow || (uint8_t)(p->want << 4 | d) != p->sum)
			return RSP_BAD_PACKET;
		return RSP_PACKET;
	}
	}
	return RSP_NONE;
}

size_t rsp_frame(const uint8_t *data, size_t len, uint8_t *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	if (len > cap || cap - len < 4)
		return 0;
	uint8_t sum = rsp_checksum(data, len);
	out[0] = '$';
	memcpy(out + 1, data, len);
	out[len + 1] = '#';
	out[len + 2] = (uint8_t)hex[sum >> 4];
	out[len + 3] = (uint8_t)hex[sum & 15];
	return len + 4;
}

bool rsp_parse_hex(const char **s, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = *s;
	int d;
	if (rsp_hex_digit(*p) < 0)
		return false;
	while ((d = rsp_hex_digit(*p)) >= 0) {
		if (v >> 60)
			return false;
		v = v << 4 | (uint64_t)d;
		p++;
	}
	*s = p;
	*out = v;
	return true;
}
