/* Fuzz target: any bytes through decode_insn() in 16-, 32- and 64-bit code.
 * Properties (insn.h contract, SDM Vol.2 2.3.11):
 *   - never crashes or reads beyond avail;
 *   - returns -1, 0 (only when avail < 15) or a length 1..15 not above avail;
 *   - with 15 or more bytes available it never asks for more;
 *   - decoding the same bytes twice gives the same struct insn;
 *   - a decoded instruction has a handler, and a row index that is either a real
 *     row or "none" (#UD);
 *   - the length does not depend on bytes after the instruction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/insn.h"
#include "fuzz/fuzz.h"

static void fail(const char *what, unsigned mode, const uint8_t *b, size_t n)
{
	fprintf(stderr, "decode_fuzz: %s (mode %u), bytes:", what, mode);
	for (size_t i = 0; i < n && i < INSN_MAX_LEN; i++)
		fprintf(stderr, " %02x", b[i]);
	fprintf(stderr, "\n");
	abort();
}

static void check_one(const uint8_t *data, size_t size, unsigned mode)
{
	unsigned avail = size < INSN_MAX_LEN ? (unsigned)size : INSN_MAX_LEN;
	/* An exact-size heap copy, so that a sanitizer sees any read past avail. */
	uint8_t *bytes = malloc(avail ? avail : 1);
	struct insn a, b;

	if (!bytes)
		abort();
	memcpy(bytes, data, avail);
	int len = decode_insn(bytes, avail, mode, &a);
	int len2 = decode_insn(bytes, avail, mode, &b);
	if (len != len2 || memcmp(&a, &b, sizeof(a)) != 0)
		fail("not deterministic", mode, bytes, avail);
	if (len < -1 || len > INSN_MAX_LEN || (len > 0 && (unsigned)len > avail))
		fail("length out of range", mode, bytes, avail);
	if (len == 0 && avail >= INSN_MAX_LEN)
		fail("asks for more than 15 bytes", mode, bytes, avail);
	if (len > 0) {
		if (!a.exec || a.len != len)
			fail("decoded instruction without handler or with a wrong len", mode, bytes, avail);
		if (a.row != UINT16_MAX && a.row >= isa_row_count)
			fail("row index out of range", mode, bytes, avail);
		/* The same instruction followed by other bytes decodes the same way. */
		uint8_t padded[INSN_MAX_LEN];
		memcpy(padded, bytes, (size_t)len);
		memset(padded + len, 0x90 ^ (uint8_t)len, INSN_MAX_LEN - (size_t)len);
		struct insn c;
		if (decode_insn(padded, INSN_MAX_LEN, mode, &c) != len)
			fail("length depends on the bytes after the instruction", mode, bytes, avail);
	}
	free(bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Every offset of the input starts an instruction, in each mode. */
	for (size_t off = 0; off < size; off++)
		for (unsigned mode = 16; mode <= 64; mode += 16)
			check_one(data + off, size - off, mode);
	return 0;
}
