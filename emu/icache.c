/* Decoded-instruction cache storage, per-page block lists and invalidation
 * (see icache.h). A page's list links slots by ICACHE_NONE-terminated indices. */
#include <stdlib.h>
#include <sys/mman.h>

#include "devices/bus.h"
#include "emu/icache.h"
#include "emu/jit.h"

struct icache *icache_create(uint64_t ram_size)
{
	/* Zero pages straight from the kernel, and only what a slot needs before
	 * its first use is set: the blocks are most of the 70 MiB, and a machine
	 * touches only the slots it runs. A slot never filled has tag 0 (no
	 * block) and code_size 0, which no lookup matches. (Not calloc: with
	 * MALLOC_PERTURB_, as meson runs tests, glibc fills the whole allocation
	 * first.) The per-page
	 * lists follow in the same mapping, so that nothing in it points to the
	 * heap (LeakSanitizer does not look into mappings). */
	uint64_t n_pages = ram_size >> PAGE_SHIFT;
	size_t size = sizeof(struct icache) + (size_t)(n_pages ? n_pages : 1) * sizeof(struct code_page);
	void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return NULL;
	struct icache *ic = mem;
	/* A big machine runs enough code to touch much of the blocks' space;
	 * its block headers are read at every block's end. */
	ic->huge_pages = ram_size >= HUGE_PAGES_FROM_RAM;
	if (ic->huge_pages)
		(void)madvise(mem, size, MADV_HUGEPAGE);   /* advice: may fail */
	ic->map_size = size;
	ic->n_pages = n_pages;
	ic->pages = (struct code_page *)(ic + 1);
	for (uint64_t p = 0; p < ic->n_pages; p++)
		ic->pages[p] = (struct code_page){ .head = ICACHE_NONE };
	ic->uncached.pa = BLOCK_INVALID;
	ic->jit_hot = JIT_HOT_ENTRIES;
	return ic;
}

void icache_destroy(struct icache *ic)
{
	if (!ic)
		return;
	jit_release(ic);
	munmap(ic, ic->map_size);
}

struct block *icache_victim(struct icache *ic, uint64_t pa)
{
	unsigned set = icache_set_of(pa), first = set * ICACHE_WAYS;
	for (unsigned w = first; w < first + ICACHE_WAYS; w++)
		if (!ic->tags[w])
			return &ic->blocks[w];
	unsigned w = ic->next_way[set];
	ic->next_way[set] = (uint8_t)((w + 1) % ICACHE_WAYS);
	return &ic->blocks[first + w];
}

void icache_crowd_set(struct icache *ic, uint64_t pa, uint64_t from)
{
	unsigned set = icache_set_of(pa), first = set * ICACHE_WAYS;
	for (unsigned w = 0; w < ICACHE_WAYS; w++, from++) {
		while (icache_set_of(from) != set)
			from++;
		struct block *b = icache_victim(ic, from);
		b->code_size = 0;
		icache_insert(ic, b, from, 1);
	}
	icache_drop(ic, &ic->blocks[first + ic->next_way[set]]);
}

/* Take slot s (holding a block) out of its page's list and invalidate it. */
static void unlink_block(struct icache *ic, unsigned s)
{
	struct block_span *sp = &ic->span[s];
	struct code_page *pg = &ic->pages[ic->blocks[s].pa >> PAGE_SHIFT];
	if (sp->prev != ICACHE_NONE)
		ic->span[sp->prev].next = sp->next;
	else
		pg->head = sp->next;
	if (sp->next != ICACHE_NONE)
		ic->span[sp->next].prev = sp->prev;
	sp->prev = sp->next = ICACHE_NONE;
	ic->blocks[s].pa = BLOCK_INVALID;
	ic->tags[s] = 0;
	ic->blocks[s].gen++;
}

/* A slot is in its page's list while it is listed and its pa is valid. */
void icache_drop(struct icache *ic, struct block *b)
{
	if (b != &ic->uncached && ic->span[b - ic->blocks].listed && b->pa != BLOCK_INVALID) {
		unlink_block(ic, (unsigned)(b - ic->blocks));
	} else {
		b->pa = BLOCK_INVALID;   /* its tag is 0 already: only listed slots have one */
		b->gen++;
	}
}

bool icache_insert(struct icache *ic, struct block *b, uint64_t pa, unsigned len)
{
	uint64_t pfn = pa >> PAGE_SHIFT;
	unsigned first = (unsigned)(pa & (PAGE_SIZE - 1));
	if (b == &ic->uncached || pfn >= ic->n_pages || first + len > PAGE_SIZE)
		return false;   /* not RAM, or not within one page: never kept */
	unsigned s = (unsigned)(b - ic->blocks);
	icache_drop(ic, b);

	struct code_page *pg = &ic->pages[pfn];
	struct block_span *sp = &ic->span[s];
	bool was_empty = pg->head == ICACHE_NONE;
	sp->first = (uint16_t)first;
	sp->end = (uint16_t)(first + len);
	sp->prev = ICACHE_NONE;
	sp->next = pg->head;
	if (!was_empty)
		ic->span[pg->head].prev = (uint16_t)s;
	pg->head = (uint16_t)s;
	if (was_empty || sp->first < pg->lo)
		pg->lo = sp->first;
	if (was_empty || sp->end > pg->hi)
		pg->hi = sp->end;
	b->pa = pa;
	ic->tags[s] = pa + 1;
	if (!sp->listed) {
		sp->listed = true;
		ic->used[ic->n_used++] = (uint16_t)s;
	}
	return was_empty;
}

bool icache_write_code(struct icache *ic, uint64_t pa, unsigned len)
{
	struct code_page *pg = &ic->pages[pa >> PAGE_SHIFT];
	unsigned first = (unsigned)(pa & (PAGE_SIZE - 1));
	unsigned end = first + len < PAGE_SIZE ? first + len : PAGE_SIZE;
	bool dropped = false;
	unsigned lo = PAGE_SIZE, hi = 0;
	for (unsigned s = pg->head, next; s != ICACHE_NONE; s = next) {
		const struct block_span *sp = &ic->span[s];
		next = sp->next;
		if (first < sp->end && sp->first < end) {
			unlink_block(ic, s);
			dropped = true;
		} else {
			lo = sp->first < lo ? sp->first : lo;
			hi = sp->end > hi ? sp->end : hi;
		}
	}
	/* The walk saw every survivor: the range is exact again. */
	pg->lo = (uint16_t)lo;
	pg->hi = (uint16_t)hi;
	return dropped;
}

void icache_flush(struct icache *ic)
{
	for (unsigned i = 0; i < ic->n_used; i++) {
		unsigned s = ic->used[i];
		if (ic->blocks[s].pa != BLOCK_INVALID)
			unlink_block(ic, s);
		ic->span[s].listed = false;
	}
	ic->n_used = 0;
	/* No block is left to run the translator's code. */
	jit_flush(ic);
}
