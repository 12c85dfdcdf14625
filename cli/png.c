/* PNG writer; see cli/png.h. */
#include "cli/png.h"

#include <stdlib.h>
#include <string.h>

uint32_t png_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	/* Bitwise, reflected polynomial EDB88320h; the chunks are small enough
	 * (a screenshot's IDAT is under 1 MiB) that a table buys nothing. */
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

uint32_t png_adler32(uint32_t adler, const uint8_t *p, size_t n)
{
	uint32_t a = adler & 0xffff, b = adler >> 16;
	while (n--) {
		a = (a + *p++) % 65521;
		b = (b + a) % 65521;
	}
	return b << 16 | a;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A chunk: length, type, data, CRC of type and data (PNG 5.3). */
static bool write_chunk(FILE *f, const char type[4], const uint8_t *data, size_t n)
{
	uint8_t head[8], tail[4];
	put32(head, (uint32_t)n);
	memcpy(head + 4, type, 4);
	put32(tail, png_crc32(png_crc32(0, head + 4, 4), data, n));
	return fwrite(head, 1, 8, f) == 8 && (n == 0 || fwrite(data, 1, n, f) == n) &&
	       fwrite(tail, 1, 4, f) == 4;
}

#define STORED_MAX 65535u          /* RFC 1951 3.2.4: LEN is 16 bits */

bool png_write(FILE *f, const uint32_t *pixels, unsigned width, unsigned height, size_t pitch)
{
	if (!width || !height)
		return false;
	/* The filtered image (9.2): each line is filter type 0 then RGB bytes. */
	size_t line = 1 + (size_t)width * 3, raw_len = line * height;
	size_t blocks = raw_len / STORED_MAX + 1;
	size_t z_len = 2 + raw_len + blocks * 5 + 4;
	uint8_t *raw = malloc(raw_len), *z = malloc(z_len);
	bool ok = false;
	if (!raw || !z)
		goto out;
	for (unsigned y = 0; y < height; y++) {
		uint8_t *d = raw + y * line;
		*d++ = 0;
		for (unsigned x = 0; x < width; x++) {
			uint32_t px = pixels[y * pitch + x];
			*d++ = (uint8_t)(px >> 16);
			*d++ = (uint8_t)(px >> 8);
			*d++ = (uint8_t)px;
		}
	}
	/* zlib (RFC 1950 2.2): CMF 78h (deflate, 32 KiB window), FLG 01h
	 * (no dictionary, fastest; 7801h is a multiple of 31). */
	size_t o = 0;
	z[o++] = 0x78;
	z[o++] = 0x01;
	for (size_t done = 0; done < raw_len;) {
		size_t n = raw_len - done < STORED_MAX ? raw_len - done : STORED_MAX;
		/* Stored block header: BFINAL, BTYPE 00, then LEN and its complement. */
		z[o++] = done + n == raw_len ? 1 : 0;
		z[o++] = (uint8_t)n;
		z[o++] = (uint8_t)(n >> 8);
		z[o++] = (uint8_t)~n;
		z[o++] = (uint8_t)(~n >> 8);
		memcpy(z + o, raw + done, n);
		o += n;
		done += n;
	}
	put32(z + o, png_adler32(1, raw, raw_len));
	o += 4;

	static const uint8_t signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	uint8_t ihdr[13];
	put32(ihdr, width);
	put32(ihdr + 4, height);
	ihdr[8] = 8;               /* bit depth */
	ihdr[9] = 2;               /* colour type: truecolour (RGB) */
	ihdr[10] = ihdr[11] = ihdr[12] = 0;   /* deflate, adaptive filtering, no interlace */
	ok = fwrite(signature, 1, 8, f) == 8 && write_chunk(f, "IHDR", ihdr, 13) &&
	     write_chunk(f, "IDAT", z, o) && write_chunk(f, "IEND", NULL, 0);
out:
	free(raw);
	free(z);
	return ok;
}
