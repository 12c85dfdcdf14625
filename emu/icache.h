/* Decoded-instruction cache: runs of decoded instructions ("blocks") keyed by the
 * physical address of their first byte and the code size they were decoded for.
 * Blocks end at a branch, a mode-changing instruction, a string instruction, a
 * page boundary or BLOCK_MAX_INSNS; an instruction crossing a page boundary is
 * decoded alone and not kept. A write to a page holding decoded code drops
 * that page's blocks (self-modifying code, SDM Vol.3 11.6). */
#ifndef HVEMU_EMU_ICACHE_H
#define HVEMU_EMU_ICACHE_H

#include "emu/insn.h"

#define BLOCK_MAX_INSNS 32
#define ICACHE_BITS 12
#define ICACHE_BLOCKS (1u << ICACHE_BITS)
#define BLOCK_INVALID (~0ull)

struct block {
	uint64_t pa;               /* physical address of the first byte, or BLOCK_INVALID;
				      all its bytes lie in that 4 KiB page */
	uint8_t code_size;         /* 16, 32 or 64 */
	uint8_t count;
	struct insn insns[BLOCK_MAX_INSNS];
};

struct icache {
	struct block blocks[ICACHE_BLOCKS];
	struct block uncached;     /* scratch for code outside RAM (ROM, MMIO) */
};

struct icache *icache_create(void);
void icache_destroy(struct icache *ic);

static inline struct block *icache_slot(struct icache *ic, uint64_t pa)
{
	return &ic->blocks[(pa ^ (pa >> ICACHE_BITS)) & (ICACHE_BLOCKS - 1)];
}

/* Drop every block with a byte in the 4 KiB physical page of pa. */
void icache_invalidate_page(struct icache *ic, uint64_t pa);
void icache_flush(struct icache *ic);

#endif
