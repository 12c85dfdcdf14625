/* The VMX I/O and MSR bitmaps (SDM Vol.3 24.6.4, 24.6.9; exits: 25.1.3):
 * where the bit for a port or an MSR lives, and whether the bitmaps cause a
 * VM exit. The mirror of svm/bitmaps.h.
 *
 * The bitmaps sit in guest-physical memory (VMCS I/O bitmap A/B and MSR
 * bitmap addresses); the locate function gives the byte and bit so a caller
 * reads one byte, the *_intercepted functions work on copies of the pages.
 */
#ifndef HVEMU_VMX_BITMAPS_H
#define HVEMU_VMX_BITMAPS_H

#include <stdbool.h>
#include <stdint.h>

#define VMX_IO_BITMAP_SIZE   4096u   /* A: ports 0000-7FFF, B: 8000-FFFF */
#define VMX_MSR_BITMAP_SIZE  4096u   /* four 1 KB quarters, one bit per MSR */

/* MSR bitmap (SDM Vol.3 24.6.9):
 *   0x000 read bitmap for low MSRs   0000_0000-0000_1FFF
 *   0x400 read bitmap for high MSRs  C000_0000-C000_1FFF
 *   0x800 write bitmap for low MSRs
 *   0xC00 write bitmap for high MSRs
 * Returns false for an MSR in neither range: RDMSR/WRMSR of it always exits
 * when "use MSR bitmaps" is 1 (SDM Vol.3 25.1.3). */
static inline bool vmx_msr_bitmap_locate(uint32_t msr, bool write, uint32_t *byte, unsigned *bit)
{
	uint32_t base, n;
	if (msr <= 0x1fffu) {
		base = 0x000;
		n = msr;
	} else if (msr - 0xc0000000u <= 0x1fffu) {
		base = 0x400;
		n = msr - 0xc0000000u;
	} else {
		return false;
	}
	*byte = base + (write ? 0x800u : 0u) + n / 8;
	*bit = n % 8;
	return true;
}

static inline bool vmx_msr_bitmap_intercepted(const uint8_t map[VMX_MSR_BITMAP_SIZE], uint32_t msr,
					      bool write)
{
	uint32_t byte;
	unsigned bit;
	if (!vmx_msr_bitmap_locate(msr, write, &byte, &bit))
		return true;
	return (map[byte] >> bit) & 1u;
}

/* I/O bitmaps (SDM Vol.3 25.1.3): an access of `size` bytes (1, 2, 4) exits
 * if the bit of any port it touches is 1, and always if it wraps around the
 * 16-bit port space. A size outside {1, 2, 4} exits. */
static inline bool vmx_io_bitmap_intercepted(const uint8_t a[VMX_IO_BITMAP_SIZE],
					     const uint8_t b[VMX_IO_BITMAP_SIZE], uint16_t port,
					     unsigned size)
{
	if (size != 1 && size != 2 && size != 4)
		return true;
	if ((uint32_t)port + size > 0x10000u)
		return true;
	for (uint32_t p = port; p < (uint32_t)port + size; p++) {
		const uint8_t *map = p < 0x8000u ? a : b;
		uint32_t q = p & 0x7fffu;
		if ((map[q / 8] >> (q % 8)) & 1u)
			return true;
	}
	return false;
}

#endif
