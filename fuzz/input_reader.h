/* The structured fuzz targets' input reader (svm_exit_fuzz, vmx_exit_fuzz):
 * bytes in order, past the end read as 0, so every input is a valid
 * structure and a short one means "the rest zero". */
#ifndef HVEMU_FUZZ_INPUT_READER_H
#define HVEMU_FUZZ_INPUT_READER_H

#include <stddef.h>
#include <stdint.h>

struct reader {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t byte(struct reader *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

static inline uint32_t word32(struct reader *r)
{
	uint32_t v = byte(r);
	v |= (uint32_t)byte(r) << 8;
	v |= (uint32_t)byte(r) << 16;
	return v | (uint32_t)byte(r) << 24;
}

#endif
