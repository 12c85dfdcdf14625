/* Decoded-instruction cache storage and invalidation (see icache.h). */
#include <stdlib.h>

#include "emu/icache.h"

struct icache *icache_create(void)
{
	struct icache *ic = malloc(sizeof(*ic));
	if (ic)
		icache_flush(ic);
	return ic;
}

void icache_destroy(struct icache *ic)
{
	free(ic);
}

void icache_flush(struct icache *ic)
{
	for (unsigned i = 0; i < ICACHE_BLOCKS; i++)
		ic->blocks[i].pa = BLOCK_INVALID;
}

void icache_invalidate_page(struct icache *ic, uint64_t pa)
{
	uint64_t page = pa & PAGE_MASK;
	for (unsigned i = 0; i < ICACHE_BLOCKS; i++) {
		struct block *b = &ic->blocks[i];
		if (b->pa != BLOCK_INVALID && (b->pa & PAGE_MASK) == page)
			b->pa = BLOCK_INVALID;
	}
}
