/* A minimal PNG writer for screenshots: 8-bit RGB, no interlace, the image
 * data in a zlib stream of stored (uncompressed) deflate blocks. PNG
 * (ISO/IEC 15948, W3C PNG 2nd edition) sections 5 (datastream), 11.2.2
 * (IHDR), 11.2.4 (IDAT), 11.2.5 (IEND), 9.2 (filter type 0 per line);
 * zlib stream RFC 1950, deflate stored blocks RFC 1951 3.2.4. */
#ifndef HVEMU_CLI_PNG_H
#define HVEMU_CLI_PNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* CRC-32 of PNG chunks (ISO 3309 polynomial, PNG annex D), continuing crc
 * (start with 0). */
uint32_t png_crc32(uint32_t crc, const uint8_t *p, size_t n);

/* Adler-32 of a zlib stream (RFC 1950 8.2), continuing adler (start with 1). */
uint32_t png_adler32(uint32_t adler, const uint8_t *p, size_t n);

/* Write width x height pixels (0x00RRGGBB, pitch pixels per row) to f as a
 * PNG. False if a write fails (errno tells why) or the image is empty. */
bool png_write(FILE *f, const uint32_t *pixels, unsigned width, unsigned height, size_t pitch);

#endif
