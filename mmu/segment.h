/* Segment registers: the hidden descriptor cache and the checks every access makes.
 *
 * Every memory access the CPU makes goes through seg_access_ok() and seg_linear():
 * one place for limits, expand-down, rights and the 4 GiB wrap-around of linear
 * addresses outside 64-bit mode.
 */
#ifndef HVEMU_MMU_SEGMENT_H
#define HVEMU_MMU_SEGMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "mmu/fault.h"
#include "mmu/x86.h"

/* Bits of segment.perm, derived from attr by seg_refresh(). */
enum { SEG_PERM_READ = 1, SEG_PERM_WRITE = 2, SEG_PERM_EXEC = 4 };

struct segment {
	uint16_t selector;
	uint16_t attr;             /* SEG_* (VMCB attrib layout); P=0 means unusable */
	uint32_t limit;            /* byte-granular limit (G already applied) */
	uint64_t base;
	/* Derived by seg_refresh(), never set by hand: */
	uint8_t perm;              /* SEG_PERM_* allowed through this register */
	uint64_t lo, hi;           /* valid offsets are lo..hi inclusive (expand-down aware) */
};

/* Recompute perm/lo/hi after selector/attr/limit/base changed. */
static inline void seg_refresh(struct segment *s)
{
	uint16_t a = s->attr;
	s->perm = 0;
	if ((a & SEG_P) && (a & SEG_S)) {
		if (a & SEG_TYPE_CODE)
			s->perm = SEG_PERM_EXEC | ((a & SEG_TYPE_RW) ? SEG_PERM_READ : 0);
		else
			s->perm = SEG_PERM_READ | ((a & SEG_TYPE_RW) ? SEG_PERM_WRITE : 0);
	} else if (a & SEG_P) {
		/* System segments (LDT, TSS) are only reached by implicit accesses. */
		s->perm = SEG_PERM_READ | SEG_PERM_WRITE;
	}
	if (!(a & SEG_TYPE_CODE) && (a & SEG_S) && (a & SEG_TYPE_CE)) {
		/* SDM Vol.3 5.3: expand-down: valid offsets are limit+1 .. 0xffff or 0xffffffff */
		s->lo = (uint64_t)s->limit + 1;
		s->hi = (a & SEG_DB) ? 0xffffffffu : 0xffffu;
	} else {
		s->lo = 0;
		s->hi = s->limit;
	}
}

/* Limit and rights check for an access of size bytes at offset off (SDM Vol.3 5.3,
 * 5.4). perm_needed is one SEG_PERM_* bit. Not used in 64-bit mode, where limits
 * are not checked (SDM Vol.3 5.3.1). */
static inline bool seg_access_ok(const struct segment *s, uint64_t off, unsigned size,
				 unsigned perm_needed)
{
	return (s->perm & perm_needed) && off >= s->lo && off + size - 1 <= s->hi;
}

/* Linear address = base + offset; outside 64-bit mode it wraps at 4 GiB
 * (SDM Vol.3 3.4 / APM2 4.5.1: linear addresses are 32 bits wide). */
static inline uint64_t seg_linear(const struct segment *s, uint64_t off, bool mode64)
{
	uint64_t lin = s->base + off;
	return mode64 ? lin : (uint32_t)lin;
}

/* The flat 4 GiB descriptor caches SYSENTER/SYSEXIT and SYSCALL/SYSRET load
 * without reading the GDT (SDM Vol.2 SYSENTER and SYSCALL Operation: base 0,
 * limit FFFFFH with G=1, type 11 (execute/read, accessed) for CS and 3
 * (read/write, accessed) for SS, S=1, P=1; D/B=1, or L=1 for a 64-bit CS). */
static inline void seg_load_flat(struct segment *s, uint16_t selector, bool code, unsigned dpl,
				 bool long64)
{
	s->selector = selector;
	s->base = 0;
	s->limit = 0xffffffffu;
	s->attr = (uint16_t)(SEG_P | SEG_S | SEG_G | (dpl << SEG_DPL_SHIFT) | SEG_TYPE_ACCESSED |
			     SEG_TYPE_RW | (code ? SEG_TYPE_CODE : 0) | (long64 ? SEG_L : SEG_DB));
	seg_refresh(s);
}

/* Real-address and virtual-8086 mode load: base = selector << 4; limit and
 * attributes are kept (SDM Vol.3 20.1.1), except that v8086 forces 64 KiB
 * limits and DPL 3 (SDM Vol.3 20.2.1). */
void seg_load_real(struct segment *s, uint16_t selector);
void seg_load_v86(struct segment *s, uint16_t selector);

/* Fill base/limit/attr from a raw 8-byte descriptor (SDM Vol.3 3.4.5); sets the
 * selector; calls seg_refresh(). */
void seg_load_descriptor(struct segment *s, uint16_t selector, uint64_t raw);

/* Fields of a raw descriptor. */
static inline uint32_t desc_base(uint64_t raw)
{
	return (uint32_t)(((raw >> 16) & 0xffffff) | ((raw >> 32) & 0xff000000));
}
static inline uint32_t desc_limit(uint64_t raw)   /* byte-granular */
{
	uint32_t lim = (uint32_t)((raw & 0xffff) | ((raw >> 32) & 0xf0000));
	return (raw & (1ull << 55)) ? (lim << 12) | 0xfff : lim;
}
static inline uint16_t desc_attr(uint64_t raw)
{
	return (uint16_t)(((raw >> 40) & 0xff) | ((raw >> 44) & 0xf00));
}
static inline unsigned desc_dpl(uint64_t raw) { return (raw >> 45) & 3; }
static inline bool desc_present(uint64_t raw) { return (raw >> 47) & 1; }
static inline bool desc_is_system(uint64_t raw) { return !((raw >> 44) & 1); }
static inline unsigned desc_type(uint64_t raw) { return (raw >> 40) & 0xf; }

/* Protection checks for loading a data/stack segment register in protected mode
 * (SDM Vol.3 5.5, 5.10; MOV/POP Sreg pseudo-code). raw is the descriptor the
 * selector names (ignored for a null selector). Returns false with *f set to the
 * exception: #GP(selector) for type/privilege violations, #SS(selector) for a
 * not-present stack segment, #NP(selector) for another not-present segment, and
 * #GP(0) for a null SS. A null selector into DS/ES/FS/GS is allowed. */
bool seg_check_data_load(enum sreg sr, uint16_t selector, uint64_t raw, unsigned cpl,
			 struct fault *f) CHECKED;

#endif
