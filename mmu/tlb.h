/* Software TLB: linear page -> host pointer, the fast path of every guest memory
 * access and instruction fetch.
 *
 * Two banks, one for supervisor and one for user accesses, each direct-mapped.
 * An entry caches one translation for each kind of access separately: a tag
 * matches only when that access kind is allowed without a fault and without
 * side effects (A/D bits already set, page not holding decoded code for writes),
 * so a hit needs no further checks. Everything else takes the slow path.
 */
#ifndef HVEMU_MMU_TLB_H
#define HVEMU_MMU_TLB_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define TLB_BITS 8
#define TLB_ENTRIES (1u << TLB_BITS)
#define PAGE_SHIFT 12
#define PAGE_SIZE (1u << PAGE_SHIFT)
#define PAGE_MASK (~(uint64_t)(PAGE_SIZE - 1))
#define TLB_TAG_INVALID 1          /* never equal to a page-aligned address */

enum tlb_access { TLB_READ, TLB_WRITE, TLB_EXEC };
enum tlb_bank { TLB_SUPERVISOR, TLB_USER, TLB_BANKS };

struct tlb_entry {
	uint64_t tag[3];           /* page-aligned linear address per tlb_access */
	uintptr_t host_minus_lin;  /* host pointer = this + linear address */
	uint64_t phys;             /* page-aligned physical address */
	bool global;               /* from a G=1 PTE with CR4.PGE (survives MOV CR3) */
	uint8_t page_shift;        /* size of the page this 4 KiB piece belongs to */
	bool listed;               /* its index is in tlb.used */
};

struct tlb {
	struct tlb_entry e[TLB_BANKS][TLB_ENTRIES];
	/* Entries filled since they were last flushed, so that MOV CR3 (tens of
	 * times per process switch) visits those instead of the whole array.
	 * Invariant: every entry with a valid tag is listed. */
	uint16_t used[TLB_BANKS * TLB_ENTRIES];
	unsigned n_used;
};

/* Record a fill of e (call after setting its tags). */
static inline void tlb_note_fill(struct tlb *t, struct tlb_entry *e)
{
	if (!e->listed) {
		e->listed = true;
		t->used[t->n_used++] = (uint16_t)(e - &t->e[0][0]);
	}
}

static inline struct tlb_entry *tlb_slot(struct tlb *t, unsigned bank, uint64_t lin)
{
	return &t->e[bank][(lin >> PAGE_SHIFT) & (TLB_ENTRIES - 1)];
}

/* Host pointer for an access of size bytes, or NULL (miss or page crossing). */
static inline uint8_t *tlb_lookup(struct tlb *t, unsigned bank, enum tlb_access acc,
				  uint64_t lin, unsigned size)
{
	struct tlb_entry *e = tlb_slot(t, bank, lin);
	if (e->tag[acc] != (lin & PAGE_MASK) || ((lin & (PAGE_SIZE - 1)) + size > PAGE_SIZE))
		return NULL;
	return (uint8_t *)(e->host_minus_lin + (uintptr_t)lin);
}

/* Drop every translation (a full sweep: also what puts a fresh TLB in order). */
static inline void tlb_flush_all(struct tlb *t)
{
	for (unsigned b = 0; b < TLB_BANKS; b++)
		for (unsigned i = 0; i < TLB_ENTRIES; i++) {
			struct tlb_entry *e = &t->e[b][i];
			e->tag[0] = e->tag[1] = e->tag[2] = TLB_TAG_INVALID;
			e->global = false;
			e->listed = false;
		}
	t->n_used = 0;
}

/* MOV CR3 without PCID: non-global translations go (SDM Vol.3 4.10.4.1). */
static inline void tlb_flush_nonglobal(struct tlb *t)
{
	unsigned keep = 0;
	for (unsigned i = 0; i < t->n_used; i++) {
		struct tlb_entry *e = &t->e[0][0] + t->used[i];
		if (e->global) {
			t->used[keep++] = t->used[i];
		} else {
			e->tag[0] = e->tag[1] = e->tag[2] = TLB_TAG_INVALID;
			e->listed = false;
		}
	}
	t->n_used = keep;
}

/* INVLPG: every translation of the page containing lin, global or not, whatever
 * its size (SDM Vol.3 4.10.4.1: a large page goes as a whole). */
static inline void tlb_flush_page(struct tlb *t, uint64_t lin)
{
	for (unsigned b = 0; b < TLB_BANKS; b++)
		for (unsigned i = 0; i < TLB_ENTRIES; i++) {
			struct tlb_entry *e = &t->e[b][i];
			uint64_t mask = ~((1ull << e->page_shift) - 1);
			for (unsigned a = 0; a < 3; a++)
				if (e->tag[a] != TLB_TAG_INVALID && (e->tag[a] & mask) == (lin & mask)) {
					e->tag[0] = e->tag[1] = e->tag[2] = TLB_TAG_INVALID;
					e->global = false;
					break;
				}
		}
}

/* Drop write permission for a physical page (it now holds decoded code). */
static inline void tlb_protect_phys_page(struct tlb *t, uint64_t pa)
{
	for (unsigned b = 0; b < TLB_BANKS; b++)
		for (unsigned i = 0; i < TLB_ENTRIES; i++)
			if (t->e[b][i].phys == (pa & PAGE_MASK))
				t->e[b][i].tag[TLB_WRITE] = TLB_TAG_INVALID;
}

#endif
