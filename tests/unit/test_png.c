/* Check suite for cli/png.c: CRC-32 and Adler-32 against their published
 * check values, and a written PNG taken apart again: signature, chunks and
 * their CRCs, IHDR, the zlib stream's stored blocks and Adler-32, and the
 * filtered pixel rows. (tests/display/png_check.py also decodes screenshots
 * with Python's zlib.) */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cli/png.h"
#include "suite_runner.h"

START_TEST(check_values)
{
	/* The CRC-32 check value (ISO 3309 / PNG annex D) and PNG's IEND CRC. */
	ck_assert_uint_eq(png_crc32(0, (const uint8_t *)"123456789", 9), 0xcbf43926);
	ck_assert_uint_eq(png_crc32(0, (const uint8_t *)"IEND", 4), 0xae426082);
	ck_assert_uint_eq(png_crc32(png_crc32(0, (const uint8_t *)"1234", 4), (const uint8_t *)"56789", 5),
			  0xcbf43926);
	/* Adler-32 of "Wikipedia" (RFC 1950 8.2's algorithm). */
	ck_assert_uint_eq(png_adler32(1, (const uint8_t *)"Wikipedia", 9), 0x11e60398);
	ck_assert_uint_eq(png_adler32(1, NULL, 0), 1);
}
END_TEST

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Write a w x h image (pixel = f(x, y)), read the file back and check it. */
static void round_trip(unsigned w, unsigned h)
{
	size_t pitch = w + 3;
	uint32_t *px = calloc(pitch * h, sizeof(uint32_t));
	ck_assert_ptr_nonnull(px);
	for (unsigned y = 0; y < h; y++)
		for (unsigned x = 0; x < w; x++)
			px[y * pitch + x] = (x * 7 + y) << 16 | (y * 3) << 8 | (x ^ y);
	FILE *f = tmpfile();
	ck_assert_ptr_nonnull(f);
	ck_assert(png_write(f, px, w, h, pitch));
	long len = ftell(f);
	rewind(f);
	uint8_t *b = malloc((size_t)len);
	ck_assert_uint_eq(fread(b, 1, (size_t)len, f), (size_t)len);
	fclose(f);

	ck_assert_mem_eq(b, "\x89PNG\r\n\x1a\n", 8);
	size_t o = 8;
	const uint8_t *idat = NULL;
	uint32_t idat_len = 0;
	bool ihdr = false, iend = false;
	while (o + 12 <= (size_t)len) {
		uint32_t n = be32(b + o);
		const uint8_t *type = b + o + 4, *d = b + o + 8;
		ck_assert_uint_le(o + 12 + n, (size_t)len);
		ck_assert_uint_eq(be32(d + n), png_crc32(0, type, n + 4));
		if (!memcmp(type, "IHDR", 4)) {
			ck_assert_uint_eq(n, 13);
			ck_assert_uint_eq(be32(d), w);
			ck_assert_uint_eq(be32(d + 4), h);
			ck_assert_mem_eq(d + 8, "\x08\x02\x00\x00\x00", 5);
			ihdr = true;
		} else if (!memcmp(type, "IDAT", 4)) {
			idat = d;
			idat_len = n;
		} else if (!memcmp(type, "IEND", 4)) {
			ck_assert_uint_eq(n, 0);
			iend = true;
		}
		o += 12 + n;
	}
	ck_assert(ihdr && idat && iend);
	ck_assert_uint_eq(o, (size_t)len);

	/* The zlib stream: header, stored blocks (the last with BFINAL), Adler-32. */
	ck_assert_uint_eq((idat[0] << 8 | idat[1]) % 31, 0);
	ck_assert_uint_eq(idat[0] & 0x0f, 8);                        /* deflate */
	size_t raw_len = (1 + (size_t)w * 3) * h, got = 0, z = 2;
	uint8_t *raw = malloc(raw_len);
	bool final = false;
	unsigned blocks = 0;
	while (!final) {
		ck_assert_uint_lt(z + 5, idat_len);
		final = idat[z] & 1;
		ck_assert_uint_eq(idat[z] >> 1, 0);                       /* BTYPE 00: stored */
		unsigned n = idat[z + 1] | idat[z + 2] << 8, nn = idat[z + 3] | idat[z + 4] << 8;
		ck_assert_uint_eq(n ^ nn, 0xffff);
		ck_assert_uint_le(got + n, raw_len);
		memcpy(raw + got, idat + z + 5, n);
		got += n;
		z += 5 + n;
		blocks++;
	}
	ck_assert_uint_eq(got, raw_len);
	ck_assert_uint_eq(blocks, raw_len / 65535 + 1);
	ck_assert_uint_eq(z + 4, idat_len);
	ck_assert_uint_eq(be32(idat + z), png_adler32(1, raw, raw_len));
	/* Counted, then asserted once: a Check assertion per byte is slow. */
	unsigned bad_filters = 0, bad_bytes = 0;
	for (unsigned y = 0; y < h; y++) {
		const uint8_t *row = raw + y * (1 + (size_t)w * 3);
		bad_filters += row[0] != 0;                               /* filter: none */
		for (unsigned x = 0; x < w; x++) {
			uint32_t p = px[y * pitch + x];
			bad_bytes += row[1 + x * 3] != ((p >> 16) & 0xff);
			bad_bytes += row[2 + x * 3] != ((p >> 8) & 0xff);
			bad_bytes += row[3 + x * 3] != (p & 0xff);
		}
	}
	ck_assert_uint_eq(bad_filters, 0);
	ck_assert_uint_eq(bad_bytes, 0);
	free(raw);
	free(b);
	free(px);
}

START_TEST(one_pixel)
{
	round_trip(1, 1);
}
END_TEST

START_TEST(screen_sized)
{
	round_trip(720, 400);      /* 864,400 bytes of rows: 14 stored blocks */
}
END_TEST

START_TEST(block_boundary)
{
	round_trip(21845, 1);      /* 1 + 65535 bytes: one full block and one byte */
}
END_TEST

START_TEST(empty_refused)
{
	uint32_t px = 0;
	FILE *f = tmpfile();
	ck_assert(!png_write(f, &px, 0, 1, 1));
	ck_assert(!png_write(f, &px, 1, 0, 1));
	fclose(f);
}
END_TEST

static Suite *png_suite(void)
{
	Suite *s = suite_create("png");
	TCase *t = tcase_create("png");
	tcase_add_test(t, check_values);
	tcase_add_test(t, one_pixel);
	tcase_add_test(t, screen_sized);
	tcase_add_test(t, block_boundary);
	tcase_add_test(t, empty_refused);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(png_suite());
}
