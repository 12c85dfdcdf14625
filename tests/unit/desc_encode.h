/* Descriptor encoders for the unit suites that build their own GDT/IDT
 * (test_segment, test_exception, test_task, test_debug). */
#ifndef TESTS_UNIT_DESC_ENCODE_H
#define TESTS_UNIT_DESC_ENCODE_H

#include <stdbool.h>
#include <stdint.h>

/* Segment descriptor field by field (SDM Vol.3 3.4.5, Figure 3-8). */
static inline uint64_t mkdesc(uint32_t base, uint32_t limit, unsigned type, bool s, unsigned dpl,
			      bool p, bool db, bool g)
{
	uint64_t d = (limit & 0xffff) | ((uint64_t)(base & 0xffffff) << 16);
	d |= (uint64_t)(type & 0xf) << 40 | (uint64_t)s << 44 | (uint64_t)(dpl & 3) << 45;
	d |= (uint64_t)p << 47 | (uint64_t)((limit >> 16) & 0xf) << 48;
	d |= (uint64_t)db << 54 | (uint64_t)g << 55 | (uint64_t)(base >> 24) << 56;
	return d;
}

/* Interrupt/trap/call/task gate (SDM Vol.3 Figures 5-8, 6-2); count is the
 * call gate's parameter count, 0 for the others. */
static inline uint64_t mkgate(uint16_t sel, uint32_t off, unsigned type, unsigned dpl, bool p,
			      unsigned count)
{
	return (off & 0xffff) | (uint64_t)sel << 16 | (uint64_t)(count & 0x1f) << 32 |
	       (uint64_t)type << 40 | (uint64_t)dpl << 45 | (uint64_t)p << 47 |
	       (uint64_t)(off >> 16) << 48;
}

#endif
