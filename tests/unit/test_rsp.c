/* The gdb remote protocol's framing (cli/rsp.c): checksums, framing,
 * escaping, and the byte-by-byte parser on good, bad and hostile input
 * (GDB manual, "Remote Protocol": "Overview", "Binary Data", "Interrupts"). */
#include <check.h>
#include <string.h>

#include "cli/rsp.h"
#include "suite_runner.h"

/* Feed a whole string; the last event that was not RSP_NONE. */
static enum rsp_event feed(struct rsp_parser *p, const char *s, size_t n)
{
	enum rsp_event last = RSP_NONE;
	for (size_t i = 0; i < n; i++) {
		enum rsp_event e = rsp_parser_feed(p, (uint8_t)s[i]);
		if (e != RSP_NONE)
			last = e;
	}
	return last;
}

START_TEST(checksum_is_sum_mod_256)
{
	/* "Overview": the checksum of "OK" is 'O' + 'K' = 0x9a. */
	ck_assert_uint_eq(rsp_checksum((const uint8_t *)"OK", 2), 0x9a);
	ck_assert_uint_eq(rsp_checksum((const uint8_t *)"", 0), 0);
	uint8_t ff[2] = { 0xff, 0x02 };
	ck_assert_uint_eq(rsp_checksum(ff, 2), 0x01);
}
END_TEST

START_TEST(frame_and_parse_round_trip)
{
	uint8_t out[32];
	size_t n = rsp_frame((const uint8_t *)"OK", 2, out, sizeof(out));
	ck_assert_uint_eq(n, 6);
	ck_assert(!memcmp(out, "$OK#9a", 6));
	struct rsp_parser p;
	rsp_parser_init(&p);
	ck_assert_int_eq(feed(&p, (const char *)out, n), RSP_PACKET);
	ck_assert_uint_eq(p.len, 2);
	ck_assert(!memcmp(p.data, "OK", 2));
	/* Too small a buffer: nothing framed. */
	ck_assert_uint_eq(rsp_frame((const uint8_t *)"OK", 2, out, 5), 0);
}
END_TEST

START_TEST(bad_checksum_is_refused)
{
	struct rsp_parser p;
	rsp_parser_init(&p);
	ck_assert_int_eq(feed(&p, "$OK#9b", 6), RSP_BAD_PACKET);
	ck_assert_int_eq(feed(&p, "$OK#zz", 6), RSP_BAD_PACKET);
	/* The parser is ready for the next packet. */
	ck_assert_int_eq(feed(&p, "$OK#9A", 6), RSP_PACKET);
}
END_TEST

START_TEST(acks_and_interrupt_between_packets)
{
	struct rsp_parser p;
	rsp_parser_init(&p);
	ck_assert_int_eq(rsp_parser_feed(&p, '+'), RSP_ACK);
	ck_assert_int_eq(rsp_parser_feed(&p, '-'), RSP_NAK);
	ck_assert_int_eq(rsp_parser_feed(&p, 0x03), RSP_INTERRUPT);
	ck_assert_int_eq(rsp_parser_feed(&p, 'x'), RSP_NONE);   /* noise */
	/* Inside a packet 0x03 is data. */
	const char pkt[] = "$\x03#03";
	ck_assert_int_eq(feed(&p, pkt, 5), RSP_PACKET);
	ck_assert_uint_eq(p.data[0], 3);
}
END_TEST

START_TEST(overlong_packet_is_dropped)
{
	struct rsp_parser p;
	rsp_parser_init(&p);
	rsp_parser_feed(&p, '$');
	uint8_t sum = 0;
	for (unsigned i = 0; i < RSP_MAX_PACKET + 100; i++) {
		ck_assert_int_eq(rsp_parser_feed(&p, 'a'), RSP_NONE);
		sum = (uint8_t)(sum + 'a');
	}
	static const char hex[] = "0123456789abcdef";
	rsp_parser_feed(&p, '#');
	rsp_parser_feed(&p, (uint8_t)hex[sum >> 4]);
	ck_assert_int_eq(rsp_parser_feed(&p, (uint8_t)hex[sum & 15]), RSP_BAD_PACKET);
	ck_assert_uint_le(p.len, RSP_MAX_PACKET);
}
END_TEST

START_TEST(escape_round_trip)
{
	/* "Binary Data": '#', '$', '}' and '*' go as '}' and the byte ^ 0x20. */
	const uint8_t raw[] = { '#', 'a', '$', '}', '*', 0 };
	uint8_t esc[16];
	size_t n = rsp_escape(raw, sizeof(raw), esc, sizeof(esc));
	ck_assert_uint_eq(n, 10);
	ck_assert(!memcmp(esc, "}\x03" "a}\x04}]}\x0a", 9));
	ck_assert_uint_eq(rsp_unescape(esc, n), sizeof(raw));
	ck_assert(!memcmp(esc, raw, sizeof(raw)));
	ck_assert_uint_eq(rsp_escape(raw, sizeof(raw), esc, 3), SIZE_MAX);
	/* A trailing lone '}' is dropped, not read past. */
	uint8_t tail[] = { 'a', '}' };
	ck_assert_uint_eq(rsp_unescape(tail, 2), 1);
}
END_TEST

START_TEST(hex_numbers)
{
	const char *s = "1f,rest";
	uint64_t v;
	ck_assert(rsp_parse_hex(&s, &v));
	ck_assert_uint_eq(v, 0x1f);
	ck_assert_str_eq(s, ",rest");
	s = "ffffffffffffffff";
	ck_assert(rsp_parse_hex(&s, &v));
	ck_assert_uint_eq(v, UINT64_MAX);
	s = "10000000000000000";     /* 65 bits */
	ck_assert(!rsp_parse_hex(&s, &v));
	s = "g";
	ck_assert(!rsp_parse_hex(&s, &v));
}
END_TEST

static Suite *rsp_suite(void)
{
	Suite *s = suite_create("rsp");
	TCase *tc = tcase_create("framing");
	tcase_add_test(tc, checksum_is_sum_mod_256);
	tcase_add_test(tc, frame_and_parse_round_trip);
	tcase_add_test(tc, bad_checksum_is_refused);
	tcase_add_test(tc, acks_and_interrupt_between_packets);
	tcase_add_test(tc, overlong_packet_is_dropped);
	tcase_add_test(tc, escape_round_trip);
	tcase_add_test(tc, hex_numbers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(rsp_suite());
}
