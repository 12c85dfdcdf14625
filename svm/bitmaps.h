/* The SVM permission maps (APM2 15.10.1 I/O, 15.11 MSR): where the bit for a
 * port or an MSR lives, and whether a map intercepts an access. The mirror
 * of vmx/bitmaps.h.
 *
 * The maps sit in guest-physical memory (IOPM_BASE_PA, MSRPM_BASE_PA); the
 * locate functions give the byte and bit so a caller reads one byte, the
 * *_intercepted functions work on a copy of the whole map.
 */
#ifndef HVEMU_SVM_BITMAPS_H
#define HVEMU_SVM_BITMAPS_H

#include <stdbool.h>
#include <stdint.h>

#define SVM_IOPM_SIZE   12288u   /* 12 KB: one bit per port, plus the bits an access at 0xFFFF reaches */
#define SVM_MSRPM_SIZE  8192u    /* 8 KB: two bits per MSR in three 2 KB ranges */

/* MSRPM (APM2 15.11): bit 2n intercepts RDMSR of the n-th MSR of
 * a range, bit 2n+1 intercepts WRMSR.
 *   0x0000-0x07FF  MSRs 0000_0000-0000_1FFF
 *   0x0800-0x0FFF  MSRs C000_0000-C000_1FFF
 *   0x1000-0x17FF  MSRs C001_0000-C001_1FFF
 *   0x1800-0x1FFF  reserved
 * Returns false for an MSR in no range: its access always causes #VMEXIT
 * when MSR_PROT is set. */
static inline bool svm_msrpm_locate(uint32_t msr, bool write, uint32_t *byte, unsigned *bit)
{
	static const struct { uint32_t first, map_offset; } ranges[] = {
		{ 0x00000000u, 0x0000 }, { 0xc0000000u, 0x0800 }, { 0xc0010000u, 0x1000 },
	};
	for (unsigned i = 0; i < 3; i++) {
		if (msr - ranges[i].first < 0x2000u) {
			uint32_t bitno = (msr - ranges[i].first) * 2 + (write ? 1 : 0);
			*byte = ranges[i].map_offset + bitno / 8;
			*bit = bitno % 8;
			return true;
		}
	}
	return false;
}

static inline bool svm_msrpm_intercepted(const uint8_t map[SVM_MSRPM_SIZE], uint32_t msr, bool write)
{
	uint32_t byte;
	unsigned bit;
	if (!svm_msrpm_locate(msr, write, &byte, &bit))
		return true;
	return (map[byte] >> bit) & 1u;
}

/* IOPM (APM2 15.10.1): bit p intercepts port p; an access of `size` bytes
 * (1, 2 or 4) is intercepted if any of bits port .. port+size-1 is set. The
 * map is 12 KB, so the bits past 0xFFFF that a wide access at the top of the
 * port space checks are inside it. A size outside {1, 2, 4} is intercepted. */
static inline bool svm_iopm_intercepted(const uint8_t map[SVM_IOPM_SIZE], uint16_t port, unsigned size)
{
	if (size != 1 && size != 2 && size != 4)
		return true;
	for (uint32_t p = port; p < (uint32_t)port + size; p++)
		if ((map[p / 8] >> (p % 8)) & 1u)
			return true;
	return false;
}

#endif
