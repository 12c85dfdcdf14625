/* Decoded-instruction cache: runs of decoded instructions ("blocks") keyed by the
 * physical address of their first byte and the code size they were decoded for.
 * Blocks end at a branch, a mode-changing instruction, a string instruction, a
 * page boundary or BLOCK_MAX_INSNS; an instruction crossing a page boundary is
 * decoded alone, kept under its first page, and checked against its second
 * page at every lookup and every link followed to it (struct block, second_*).
 *
 * Self-modifying code (SDM Vol.3 11.6, 8.1.3): a write to an instruction that has
 * been fetched and decoded must be seen when the instruction next executes; the
 * check is by physical address. The cache therefore knows, for every RAM page,
 * which bytes its blocks were decoded from: a write that overlaps them drops
 * exactly the blocks it overlaps (icache_write), while a write to data beside the
 * code (same page, other bytes) changes no instruction and drops nothing.
 *
 *   blocks[]     the blocks, in sets of ICACHE_WAYS by physical address
 *                (icache_find): a kernel's boot runs 70,000 blocks or more, and
 *                two hot ones that shared a slot would decode each other away
 *                at every turn (see ICACHE_WAYS)
 *   span[]       per block: its bytes [first, end) in its page and its page's list
 *   pages[]      per RAM page: the first block of its list and the range its
 *                blocks cover, so most data writes are told apart in one compare
 *   used[]       the slots filled since the last flush, so that a flush (a machine
 *                reset, a fuzzer's next input) costs what was used, not 6 MiB
 *   jumps[]      the last block found for each hash of rIP, as a link (emu/run.c):
 *                for block ends with many successors (RET, indirect jumps), whose
 *                two links would not hold them
 *   link_pages   the code pages links lead into, to carry them over a TLB flush
 */
#ifndef HVEMU_EMU_ICACHE_H
#define HVEMU_EMU_ICACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/insn.h"
#include "emu/link_pages.h"

#define BLOCK_MAX_INSNS 32
#define ICACHE_BITS 15              /* at most 15: slots are uint16_t, ICACHE_NONE apart */
#define ICACHE_BLOCKS (1u << ICACHE_BITS)
/* Ways per set. Measured on Debian's Linux booting to a shell (PVH, 1.55 G
 * instructions, 68,000 distinct blocks) and Xen with it as dom0 (81,500):
 * direct-mapped, 289,000 and 639,000 decodes; two ways, 128,000 and 210,000;
 * four, 99,000 and 168,000. */
#define ICACHE_WAYS 4
#define ICACHE_SET_BITS (ICACHE_BITS - 2)   /* 2: log2 of ICACHE_WAYS */
#define ICACHE_SETS (1u << ICACHE_SET_BITS)
_Static_assert(ICACHE_SETS * ICACHE_WAYS == ICACHE_BLOCKS, "ICACHE_SET_BITS must follow ICACHE_WAYS");
#define BLOCK_INVALID (~0ull)
#define ICACHE_NONE 0xffffu        /* no slot: end of a page's list */
#define JUMP_CACHE_BITS 12

/* Where a block went last (a "chain"): the run loop follows it instead of
 * looking the next block up while nothing that decides the lookup has changed:
 * the TLB (its epoch), CS, CPL -- together the link context, one number
 * (emu/run.c) -- and the target block itself. Only a kept block is linked to;
 * its slot's generation tells whether it still is. */
struct block_link {
	struct block *to;          /* NULL: unused */
	uint64_t rip;              /* rIP the block left with */
	uint64_t gen;              /* to->gen then, | LINK_SECOND_PAGE for a page-crossing to */
	uint32_t context;          /* cpu->link_context then; 0: unused */
};

/* A link to a page-crossing instruction (second_len): its second page's bytes
 * are compared each time it is followed (emu/run.c link_holds; translated
 * code, whose test compares gen whole, compares them where that test fails:
 * emu/jit.c emit_second_page). No generation reaches it. */
#define LINK_SECOND_PAGE (1ull << 63)

struct block {
	/* What going on to the block reads (emu/run.c thread_next_block, the
	 * translator's inline form of it), in its first cache line: blocks are
	 * 64-byte aligned. */
	_Alignas(64) uint64_t pa;  /* physical address of the first byte, or BLOCK_INVALID;
				      all its bytes lie in that 4 KiB page */
	uint64_t gen;              /* bumped by every decode into the slot and every drop: a
				      link made before either no longer applies */
	insn_handler entry;        /* insns[0].thread, where a run of the block begins */
	uint8_t code_size;         /* 16, 32 or 64 */
	uint8_t count;
	bool chains;               /* it ends in a near relative branch or runs on into the
				      next block: CS, CPL and mode stay, links[] apply */
	uint8_t next_link;         /* the link the next new successor replaces */
	uint8_t heat;              /* entries left before it is translated (emu/jit.h); 0:
				      translated, or never to be */
	/* A block of one instruction whose bytes run on into the next linear
	 * page: that page's frame and the bytes read from it (second_len 0: the
	 * block lies in one page). Stores to the first page drop it as any
	 * block; the second is compared at each lookup instead (emu/fetch.h
	 * block_second_page_holds), and its bytes at each link followed to it
	 * (LINK_SECOND_PAGE). */
	uint8_t second_len;
	struct block_link links[2];
	uint64_t second_pa;
	uint8_t second_bytes[15];
	/* Its translated code where a direct link from another block's goes in
	 * (after the pushes of its first run, emu/jit.c); NULL: none. Set with
	 * its translation, cleared by each decode into the slot. jit_loaded:
	 * after that run's loads, with jit_host its guest registers' host
	 * registers (0xff: not loaded), for a link that hands them over in
	 * host registers; NULL: none. */
	uint8_t *jit_inner, *jit_loaded;
	uint8_t jit_host[16];
	_Alignas(64) struct insn insns[BLOCK_MAX_INSNS + 1];   /* the last: where the threaded
								 run of the block ends
								 (emu/threaded.h) */
};

/* Set insns[0].thread and the block's entry with it. */
static inline void block_set_entry(struct block *b, insn_handler h)
{
	b->insns[0].thread = h;
	b->entry = h;
}

/* The block whose insns[] (or end slot) in is. */
static inline struct block *block_of(const struct insn *in)
{
	return (struct block *)((uintptr_t)(in - in->nth) - offsetof(struct block, insns));
}

/* Where the cached block of the same slot lies, apart from the 1.5 KiB blocks
 * so that a write check walks a few cache lines. */
struct block_span {
	uint16_t first, end;       /* page offsets: its bytes are [first, end) */
	uint16_t prev, next;       /* neighbours in its page's list, or ICACHE_NONE */
	bool listed;               /* its slot is in icache.used */
};

/* One RAM page. head == ICACHE_NONE: the page holds no cached block. */
struct code_page {
	uint16_t head;             /* first block of the page's list */
	uint16_t lo, hi;           /* every cached byte of the page lies in [lo, hi) */
};

struct icache {
	struct block blocks[ICACHE_BLOCKS];
	/* Per slot, its block's pa + 1, or 0 (none kept; BLOCK_INVALID + 1 is 0,
	 * and a slot never filled reads 0): a lookup reads its set's in one cache
	 * line, not the headers of four blocks 2 KiB apart. */
	_Alignas(64) uint64_t tags[ICACHE_BLOCKS];
	struct block_span span[ICACHE_BLOCKS];
	uint16_t used[ICACHE_BLOCKS];   /* slots filled since the last flush */
	uint8_t next_way[ICACHE_SETS];   /* per set: the way the next new block of a full set
					    goes into (round robin) */
	struct block_link jumps[1u << JUMP_CACHE_BITS];   /* by a hash of rIP: icache_jump() */
	struct link_pages link_pages;   /* the pages links lead into (emu/link_pages.h) */
	unsigned n_used;
	struct code_page *pages;   /* one per RAM page, after this struct in its mapping */
	size_t map_size;           /* of that mapping (emu/icache.c) */
	uint64_t n_pages;
	bool huge_pages;           /* this mapping and the translator's may have 2 MiB host
				      pages (devices/bus.h HUGE_PAGES_FROM_RAM) */
	struct block uncached;     /* scratch for code outside RAM (ROM, MMIO) */
	/* The translator's code (emu/jit.h), mapped when first needed (jit_failed:
	 * the host refused): jit_used bytes of its first part hold blocks' code,
	 * jit_cold_used of its second their cold code (emu/jit.c); jit_full:
	 * a translation found no room, the cache is to be emptied. */
	uint8_t *jit_code;
	size_t jit_used, jit_cold_used;
	bool jit_failed, jit_full;
	uint8_t jit_hot;           /* a block is translated on its jit_hot-th entry (1..255) */
	unsigned long jit_runs;
	unsigned long jit_side_exits;   /* taken by translated code (emu/jit.c) */
	unsigned long jit_direct_links;   /* direct links written into translated code */
	unsigned long jit_joined_runs;    /* runs going straight into their block's next */
};

/* An empty cache for a machine with ram_size bytes of RAM; NULL when the host
 * is out of memory. */
struct icache *icache_create(uint64_t ram_size);
void icache_destroy(struct icache *ic);

/* The set a block decoded from pa belongs to. */
static inline unsigned icache_set_of(uint64_t pa)
{
	return (unsigned)(pa ^ (pa >> ICACHE_SET_BITS)) & (ICACHE_SETS - 1);
}

/* The block kept for pa (whatever code size it was decoded for), or NULL. */
static inline struct block *icache_find(struct icache *ic, uint64_t pa)
{
	unsigned first = icache_set_of(pa) * ICACHE_WAYS;
	for (unsigned w = first; w < first + ICACHE_WAYS; w++)
		if (ic->tags[w] == pa + 1)
			return &ic->blocks[w];
	return NULL;
}

/* The slot a new block for pa, which icache_find() did not find, is decoded
 * into: an empty way of its set, else the ways in turn. */
struct block *icache_victim(struct icache *ic, uint64_t pa);

/* For the tests and fuzzers of slot reuse: fill pa's set with blocks of code
 * size 0 (which no lookup takes; a fetch decodes into them) at the set's
 * addresses from `from` on, in RAM where no code runs, then empty the way the
 * round robin replaces next. The set's next new block takes that way and the
 * one after it replaces it: the two share a slot, as in a direct-mapped
 * cache. Call it where no TLB entry grants writes to those pages (after a
 * reset, say): it takes no write permission away, as fetch_block does for a
 * page's first block. */
void icache_crowd_set(struct icache *ic, uint64_t pa, uint64_t from);

/* The jumps[] entry of rIP. */
static inline struct block_link *icache_jump(struct icache *ic, uint64_t rip)
{
	return &ic->jumps[(rip ^ (rip >> JUMP_CACHE_BITS)) & ((1u << JUMP_CACHE_BITS) - 1)];
}

/* Does the RAM page holding pa hold a cached block? */
static inline bool icache_page_has_code(const struct icache *ic, uint64_t pa)
{
	uint64_t pfn = pa >> PAGE_SHIFT;
	return pfn < ic->n_pages && ic->pages[pfn].head != ICACHE_NONE;
}

/* Empty the slot of b (a block about to be decoded into it) of the block it
 * holds; the links to the slot are void from now on, whatever the decode
 * leaves in it (a block not kept, a failed decode). */
void icache_drop(struct icache *ic, struct block *b);

/* Keep b, decoded from the RAM bytes [pa, pa + len) of one page, under pa.
 * Returns true when its page held no cached block before: the caller must now
 * route writes to the page through icache_write(). */
bool icache_insert(struct icache *ic, struct block *b, uint64_t pa, unsigned len);

/* icache_write() for a write that overlaps the cached range of its page. */
bool icache_write_code(struct icache *ic, uint64_t pa, unsigned len);

/* A write of len bytes at physical pa, all in one page, is about to change
 * memory: drop the blocks decoded from any of those bytes. Returns true when it
 * dropped one (the running block may be among them and must end). Inline for
 * the common answer: a page without code, or data beside it. */
static inline bool icache_write(struct icache *ic, uint64_t pa, unsigned len)
{
	uint64_t pfn = pa >> PAGE_SHIFT;
	if (pfn >= ic->n_pages)
		return false;
	const struct code_page *pg = &ic->pages[pfn];
	unsigned first = (unsigned)(pa & (PAGE_SIZE - 1));
	if (pg->head == ICACHE_NONE || first + len <= pg->lo || first >= pg->hi)
		return false;
	return icache_write_code(ic, pa, len);
}

/* Drop every block, in time proportional to the blocks cached since the last
 * flush. */
void icache_flush(struct icache *ic);

#endif
