/* Software TLB: linear page -> host pointer, the fast path of every guest memory
 * access and instruction fetch.
 *
 * Two banks, one for supervisor and one for user accesses, each direct-mapped.
 * An entry caches one translation for each kind of access separately: a tag
 * matches only when that access kind is allowed without a fault and without
 * side effects (A/D bits already set, page not holding decoded code for writes),
 * so a hit needs no further checks. Everything else takes the slow path.
 *
 * Writes have two tags. TLB_WRITE_CODE says the translation allows the write;
 * TLB_WRITE says so too, and is withheld while the page holds decoded
 * instructions (emu/icache.h), so that the inline store path never skips the
 * self-modifying-code check (SDM Vol.3 11.6). A store that misses TLB_WRITE but
 * hits TLB_WRITE_CODE shows the cache what it changes, then stores without a
 * page walk.
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

enum tlb_access { TLB_READ, TLB_WRITE, TLB_EXEC, TLB_WRITE_CODE, TLB_ACCESS_KINDS };
enum tlb_bank { TLB_SUPERVISOR, TLB_USER, TLB_BANKS };

struct tlb_entry {
	uint64_t tag[TLB_ACCESS_KINDS];  /* page-aligned linear address per tlb_access */
	uintptr_t host_minus_lin;  /* host pointer = this + linear address */
	uint64_t phys;             /* page-aligned physical address */
	bool global;               /* from a G=1 PTE with CR4.PGE (survives MOV CR3) */
	uint8_t page_shift;        /* size of the page this 4 KiB piece belongs to */
	bool listed;               /* its index is in tlb.used */
	uint8_t pad[13];           /* to 64 bytes: tlb_slot() indexes with a shift */
};
_Static_assert(sizeof(struct tlb_entry) == 64, "struct tlb_entry is 64 bytes");

/* PCIDs (SDM Vol.3 4.10.1): the live arrays hold the translations of the
 * current PCID and the global ones, so tlb_lookup() never compares a PCID. The
 * non-global translations of up to TLB_CONTEXTS other PCIDs wait in saved
 * contexts: a MOV CR3 that changes the PCID moves the live non-global entries
 * into a context of the old PCID and, with bit 63 set, moves the new PCID's
 * context back (tlb_switch_pcid). Global entries stay live: any PCID may use
 * them (SDM Vol.3 4.10.2.4). Invariants: no context is of the current PCID, no
 * context holds a global entry. When the contexts run out the least recently
 * saved one is forgotten, which the SDM always allows (4.10.4.1: "free to
 * invalidate additional entries"). */
#define TLB_CONTEXTS 4
#define TLB_SLOTS (TLB_BANKS * TLB_ENTRIES)
#define TLB_NO_PCID 0xffffu        /* a context not in use (PCIDs are 12 bits) */

/* One saved translation: what tlb_fill() put into the live entry. */
struct tlb_saved {
	uint64_t page;             /* page-aligned linear address */
	uintptr_t host_minus_lin;
	uint64_t phys;
	uint16_t slot;             /* live entry it came from: e[slot] */
	uint8_t page_shift;
	uint8_t access;            /* bit (1 << tlb_access) set: that tag was valid */
};

struct tlb_context {
	uint16_t pcid;             /* TLB_NO_PCID when unused */
	uint16_t n;                /* entries in s[] */
	uint64_t stamp;            /* tlb.clock when saved: the smallest is evicted */
	struct tlb_saved s[TLB_SLOTS];
};

struct tlb {
	struct tlb_entry e[TLB_SLOTS];  /* bank b, index i at b * TLB_ENTRIES + i */
	/* Entries filled since they were last flushed, so that MOV CR3 (tens of
	 * times per process switch) visits those instead of the whole array.
	 * Invariant: every entry with a valid tag is listed. */
	uint16_t used[TLB_SLOTS];
	unsigned n_used;
	struct tlb_context ctx[TLB_CONTEXTS];  /* other PCIDs (never on the lookup path) */
	uint64_t clock;            /* counts saves, for the eviction order */
};

/* Forget a saved context: its PCID's translations are gone. */
static inline void tlb_context_drop(struct tlb_context *c)
{
	c->pcid = TLB_NO_PCID;
	c->n = 0;
}

/* Forget every saved context (other PCIDs' non-global translations). */
static inline void tlb_drop_all_contexts(struct tlb *t)
{
	for (unsigned c = 0; c < TLB_CONTEXTS; c++)
		tlb_context_drop(&t->ctx[c]);
}

/* Record a fill of e (call after setting its tags). */
static inline void tlb_note_fill(struct tlb *t, struct tlb_entry *e)
{
	if (!e->listed) {
		e->listed = true;
		t->used[t->n_used++] = (uint16_t)(e - t->e);
	}
}

/* Invalidate every tag of e. */
static inline void tlb_entry_clear(struct tlb_entry *e)
{
	for (unsigned a = 0; a < TLB_ACCESS_KINDS; a++)
		e->tag[a] = TLB_TAG_INVALID;
}

static inline struct tlb_entry *tlb_slot(struct tlb *t, unsigned bank, uint64_t lin)
{
	return &t->e[bank * TLB_ENTRIES + ((lin >> PAGE_SHIFT) & (TLB_ENTRIES - 1))];
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

/* Drop every translation of every PCID, global ones included (a full sweep:
 * also what puts a fresh TLB in order). */
static inline void tlb_flush_all(struct tlb *t)
{
	for (unsigned i = 0; i < TLB_SLOTS; i++) {
		struct tlb_entry *e = &t->e[i];
		tlb_entry_clear(e);
		e->global = false;
		e->listed = false;
	}
	t->n_used = 0;
	tlb_drop_all_contexts(t);
}

/* The non-global translations of the current PCID go (SDM Vol.3 4.10.4.1: MOV
 * CR3 with CR4.PCIDE = 0 or keeping the PCID without bit 63, a task switch that
 * changes CR3). Other PCIDs' contexts stay. */
static inline void tlb_flush_nonglobal(struct tlb *t)
{
	unsigned keep = 0;
	for (unsigned i = 0; i < t->n_used; i++) {
		struct tlb_entry *e = &t->e[t->used[i]];
		if (e->global) {
			t->used[keep++] = t->used[i];
		} else {
			tlb_entry_clear(e);
			e->listed = false;
		}
	}
	t->n_used = keep;
}

/* Does a translation of a page of 1 << page_shift bytes at page cover lin? A
 * large page is cached as 4 KiB pieces that all go together (SDM Vol.3
 * 4.10.4.1 INVLPG; SDM Vol.2 INVPCID footnote 1). */
static inline bool tlb_page_covers(uint64_t page, unsigned page_shift, uint64_t lin)
{
	uint64_t mask = ~((1ull << page_shift) - 1);
	return (page & mask) == (lin & mask);
}

/* Drop the live translations of the page containing lin, whatever its size;
 * global ones too unless keep_global. */
static inline void tlb_flush_live_page(struct tlb *t, uint64_t lin, bool keep_global)
{
	for (unsigned i = 0; i < TLB_SLOTS; i++) {
		struct tlb_entry *e = &t->e[i];
		if (keep_global && e->global)
			continue;
		for (unsigned a = 0; a < TLB_ACCESS_KINDS; a++)
			if (e->tag[a] != TLB_TAG_INVALID && tlb_page_covers(e->tag[a], e->page_shift, lin)) {
				tlb_entry_clear(e);
				e->global = false;
				break;
			}
	}
}

/* INVLPG, and a #PF for lin: the current PCID's translations of the page and
 * the global ones, "regardless of PCID" (SDM Vol.3 4.10.4.1). Contexts hold no
 * global entries, so other PCIDs keep theirs, as the SDM allows. */
static inline void tlb_flush_page(struct tlb *t, uint64_t lin)
{
	tlb_flush_live_page(t, lin, false);
}

static inline struct tlb_context *tlb_context_of(struct tlb *t, uint16_t pcid)
{
	for (unsigned c = 0; c < TLB_CONTEXTS; c++)
		if (t->ctx[c].pcid == pcid)
			return &t->ctx[c];
	return NULL;
}

/* INVPCID type 1: the non-global translations of pcid go, other PCIDs keep
 * theirs (SDM Vol.2 INVPCID). cur is the current PCID (000H while CR4.PCIDE =
 * 0); another PCID's translations are its saved context, if any. */
static inline void tlb_flush_pcid(struct tlb *t, uint16_t cur, uint16_t pcid)
{
	if (pcid == cur) {
		tlb_flush_nonglobal(t);
		return;
	}
	struct tlb_context *c = tlb_context_of(t, pcid);
	if (c)
		tlb_context_drop(c);
}

/* INVPCID type 0: the non-global translations of pcid for the page holding lin
 * (a large page as a whole); global ones stay (SDM Vol.2 INVPCID). */
static inline void tlb_flush_pcid_page(struct tlb *t, uint16_t cur, uint16_t pcid, uint64_t lin)
{
	if (pcid == cur) {
		tlb_flush_live_page(t, lin, true);
		return;
	}
	struct tlb_context *c = tlb_context_of(t, pcid);
	if (!c)
		return;
	unsigned keep = 0;
	for (unsigned k = 0; k < c->n; k++)
		if (!tlb_page_covers(c->s[k].page, c->s[k].page_shift, lin))
			c->s[keep++] = c->s[k];
	c->n = (uint16_t)keep;
}

/* INVPCID type 3: the non-global translations of every PCID go; global ones
 * stay (SDM Vol.2 INVPCID). */
static inline void tlb_flush_nonglobal_all_pcids(struct tlb *t)
{
	tlb_flush_nonglobal(t);
	tlb_drop_all_contexts(t);
}

/* The context a save goes to: a free one, else the least recently saved one
 * that is not busy (the one about to be restored). */
static inline struct tlb_context *tlb_context_victim(struct tlb *t, const struct tlb_context *busy)
{
	struct tlb_context *v = NULL;
	for (unsigned c = 0; c < TLB_CONTEXTS; c++) {
		struct tlb_context *x = &t->ctx[c];
		if (x == busy)
			continue;
		if (x->pcid == TLB_NO_PCID)
			return x;
		if (!v || x->stamp < v->stamp)
			v = x;
	}
	return v;
}
_Static_assert(TLB_CONTEXTS >= 2, "a save needs a context besides the one restored");

/* MOV CR3 from PCID from to PCID to (from != to; SDM Vol.3 4.10.4.1). The live
 * non-global entries are saved as from's context; then to's context, if one is
 * kept, comes back when keep (bit 63 set) and is forgotten otherwise (bit 63
 * clear invalidates to's non-global translations). A slot a global entry holds
 * keeps it: either translation may be used (SDM Vol.3 4.10.2.4). */
static inline void tlb_switch_pcid(struct tlb *t, uint16_t from, uint16_t to, bool keep)
{
	struct tlb_context *back = tlb_context_of(t, to), *save = NULL;
	unsigned kept = 0;

	for (unsigned i = 0; i < t->n_used; i++) {
		struct tlb_entry *e = &t->e[t->used[i]];
		if (e->global) {
			t->used[kept++] = t->used[i];
			continue;
		}
		unsigned access = 0;
		uint64_t page = TLB_TAG_INVALID;
		for (unsigned a = 0; a < TLB_ACCESS_KINDS; a++)
			if (e->tag[a] != TLB_TAG_INVALID) {
				access |= 1u << a;
				page = e->tag[a];
			}
		if (access) {
			if (!save) {
				save = tlb_context_victim(t, back);
				save->pcid = from;
				save->n = 0;
				save->stamp = ++t->clock;
			}
			save->s[save->n++] = (struct tlb_saved){
				.page = page, .host_minus_lin = e->host_minus_lin, .phys = e->phys,
				.slot = t->used[i], .page_shift = e->page_shift, .access = (uint8_t)access };
		}
		tlb_entry_clear(e);
		e->listed = false;
	}
	t->n_used = kept;
	if (!back)
		return;
	if (keep)
		for (unsigned k = 0; k < back->n; k++) {
			const struct tlb_saved *s = &back->s[k];
			struct tlb_entry *e = &t->e[s->slot];
			if (e->global)
				continue;
			for (unsigned a = 0; a < TLB_ACCESS_KINDS; a++)
				e->tag[a] = (s->access >> a) & 1 ? s->page : TLB_TAG_INVALID;
			e->host_minus_lin = s->host_minus_lin;
			e->phys = s->phys;
			e->page_shift = s->page_shift;
			e->global = false;
			tlb_note_fill(t, e);
		}
	tlb_context_drop(back);
}

/* Withhold TLB_WRITE for a physical page (it now holds decoded code), in the
 * saved contexts too: a restored entry must not let a write skip the
 * decoded-code check. TLB_WRITE_CODE stays. */
static inline void tlb_protect_phys_page(struct tlb *t, uint64_t pa)
{
	for (unsigned i = 0; i < TLB_SLOTS; i++)
		if (t->e[i].phys == (pa & PAGE_MASK))
			t->e[i].tag[TLB_WRITE] = TLB_TAG_INVALID;
	for (unsigned c = 0; c < TLB_CONTEXTS; c++)
		for (unsigned k = 0; k < t->ctx[c].n; k++)
			if (t->ctx[c].s[k].phys == (pa & PAGE_MASK))
				t->ctx[c].s[k].access &= (uint8_t)~(1u << TLB_WRITE);
}

#endif
