/* Software TLB: linear page -> host pointer, the fast path of every guest memory
 * access and instruction fetch.
 *
 * Two banks, one for supervisor and one for user accesses, each two-way set
 * associative (the most recently filled translation in way 0).
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
 *
 * Contexts. A tag is the page-aligned linear address ORed with a 12-bit
 * context id, so translations of many address spaces live side by side and a
 * lookup compares one word:
 *
 *   space   who translates: the host (0), a guest's ASID (APM2 15.16) or its
 *           VPID with EPTP (SDM Vol.3 28.3); chosen by the hypervisor model
 *   pcid    the PCID within the space (SDM Vol.3 4.10.1), or TLB_GLOBAL for the
 *           space's global translations, which every PCID of it uses (4.10.2.4)
 *
 * Each (space, pcid) pair in use has an id; the current pair's id and its
 * space's global id are the two a lookup accepts. Switching context (MOV CR3
 * to another PCID, VMRUN, #VMEXIT, VM entry, VM exit) only changes those two
 * ids: no entry is touched. Invalidating a whole context gives the pair a new
 * id, so its old entries can never match again; invalidating a page visits the
 * entries. When the ids run out everything is flushed and numbering restarts,
 * and when the table of pairs is full the least recently used pair is
 * forgotten: both only drop more than asked, which the manuals always allow
 * (SDM Vol.3 4.10.4.1 "free to invalidate additional entries"; APM2 15.16.1).
 */
#ifndef HVEMU_MMU_TLB_H
#define HVEMU_MMU_TLB_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define TLB_BITS 8
#define TLB_SETS (1u << TLB_BITS)  /* per bank */
#define TLB_WAYS 2
#define TLB_SLOTS (TLB_BANKS * TLB_SETS * TLB_WAYS)
_Static_assert(TLB_SETS >= 2, "tlb_lookup: two adjacent pages fall in different sets");
#define PAGE_SHIFT 12
#define PAGE_SIZE (1u << PAGE_SHIFT)
#define PAGE_MASK (~(uint64_t)(PAGE_SIZE - 1))
#define TLB_ID_MASK 0xfffu         /* the context id in a tag's low 12 bits */
#define TLB_TAG_INVALID 1          /* ids start at 2: an invalid tag matches nothing */
#define TLB_FIRST_ID 2
#define TLB_GLOBAL 0x1000u         /* the pcid of a space's global translations */
#define TLB_CONTEXTS 64            /* (space, pcid) pairs remembered */
#define TLB_FILTER_LOG2 12
#define TLB_FILTER_BITS (1u << TLB_FILTER_LOG2)  /* a filter of pages (struct tlb large, code) */

enum tlb_access { TLB_READ, TLB_WRITE, TLB_EXEC, TLB_WRITE_CODE, TLB_ACCESS_KINDS };
enum tlb_bank { TLB_SUPERVISOR, TLB_USER, TLB_BANKS };

struct tlb_entry {
	uint64_t tag[TLB_ACCESS_KINDS];  /* key per tlb_access it allows, else TLB_TAG_INVALID */
	uint64_t key;              /* page-aligned linear address | id, or TLB_TAG_INVALID */
	uintptr_t host_minus_lin;  /* host pointer = this + linear address */
	uint64_t phys;             /* page-aligned physical address */
	uint8_t page_shift;        /* size of the page this 4 KiB piece belongs to */
	uint8_t pad[7];            /* to 64 bytes: sets index with a shift */
};
_Static_assert(sizeof(struct tlb_entry) == 64, "struct tlb_entry is 64 bytes");

/* A (space, pcid) pair and the id its translations carry now. */
struct tlb_context {
	uint64_t space;
	uint16_t pcid;             /* 0-FFFH, or TLB_GLOBAL */
	uint16_t id;               /* 0: slot unused */
	bool filled;               /* an entry may carry id (lookups skip empty global ids) */
	uint32_t stamp;            /* last use, for the replacement */
};

struct tlb {
	struct tlb_entry e[TLB_SLOTS];  /* bank b, set s, way w at (b * TLB_SETS + s) * TLB_WAYS + w */
	uint16_t cur;              /* id of the current (space, pcid) */
	uint16_t cur_global;       /* id of the current space's global translations */
	uint32_t cur_mix;          /* cur's part of its sets' places (tlb_set_of), as a byte
				      offset in a bank: what translated code XORs with the
				      page's (emu/jit.c) */
	bool global_filled;        /* entries with cur_global may exist */
	uint16_t next_id;          /* the next id to give out (1..TLB_ID_MASK) */
	uint64_t space;            /* the current space and PCID */
	uint16_t pcid;
	uint32_t clock;            /* counts context selections, for the stamps */
	uint32_t epoch;            /* changes whenever a translation may go: users
				      that remember a translation elsewhere (chained
				      blocks) compare it */
	struct tlb_context ctx[TLB_CONTEXTS];
	/* Which linear pages larger than 4 KiB may have pieces cached (a Bloom
	 * filter over (lin >> page_shift, page_shift), tlb_note_large): an
	 * INVLPG of an address outside all of them visits only its own sets. */
	uint64_t large[TLB_FILTER_BITS / 64];
	/* Which linear 4-KiB pages the links made in this epoch rely on the
	 * translation of (emu/run.c add_link; a Bloom filter, valid while
	 * code_epoch is the epoch): dropping the translation of another page
	 * leaves them standing (tlb_flush_page_ids). */
	uint32_t code_epoch;
	uint64_t code[TLB_FILTER_BITS / 64];
};

/* The set (TLB_WAYS entries) that holds lin's translations with id in bank:
 * the page number mixed with the id, so that two contexts mapping the same
 * linear page (a guest and its host) keep both. */
#define TLB_SET_MIX 0x9du            /* the id's factor (emu/jit.c computes the same) */
static inline unsigned tlb_id_mix(uint16_t id)
{
	return (id * TLB_SET_MIX) & (TLB_SETS - 1);
}

static inline struct tlb_entry *tlb_set_of(struct tlb *t, unsigned bank, uint64_t lin, uint16_t id)
{
	unsigned set = ((unsigned)(lin >> PAGE_SHIFT) & (TLB_SETS - 1)) ^ tlb_id_mix(id);
	return &t->e[(bank * TLB_SETS + set) * TLB_WAYS];
}

/* The entry of set holding (page | id) for access kind acc, or NULL. */
static inline struct tlb_entry *tlb_set_find(struct tlb_entry *set, enum tlb_access acc, uint64_t tag)
{
	if (__builtin_expect(set[0].tag[acc] == tag, 1))
		return &set[0];
	return set[1].tag[acc] == tag ? &set[1] : NULL;
}

/* The entry holding lin's translation for access kind acc in the current
 * context (its own, or else its space's global one), or NULL. */
static inline struct tlb_entry *tlb_find(struct tlb *t, unsigned bank, enum tlb_access acc, uint64_t lin)
{
	uint64_t page = lin & PAGE_MASK;
	struct tlb_entry *e = tlb_set_find(tlb_set_of(t, bank, lin, t->cur), acc, page | t->cur);
	if (__builtin_expect(e != NULL || !t->global_filled, 1))
		return e;
	return tlb_set_find(tlb_set_of(t, bank, lin, t->cur_global), acc, page | t->cur_global);
}

/* The entry to fill with lin's translation with id: the one of its set that
 * holds that page already, else way 0, after the older translation there moved
 * to way 1 (which forgets the least recently filled of the set). */
static inline struct tlb_entry *tlb_victim(struct tlb *t, unsigned bank, uint64_t lin, uint16_t id)
{
	struct tlb_entry *set = tlb_set_of(t, bank, lin, id);
	uint64_t key = (lin & PAGE_MASK) | id;
	if (set[0].key == key)
		return &set[0];
	if (set[1].key == key)
		return &set[1];
	set[1] = set[0];
	return &set[0];
}

/* Host pointer for an access of size bytes, or NULL (miss or page crossing).
 * The tag looked for is the page of the access's last byte in the set of its
 * first: an access that crosses into the next page matches nothing there (the
 * next page's entries lie in another set: its number differs in the low bits
 * that pick the set), so one compare answers both questions. */
static inline uint8_t *tlb_lookup(struct tlb *t, unsigned bank, enum tlb_access acc,
				  uint64_t lin, unsigned size)
{
	uint64_t last_page = (lin + size - 1) & PAGE_MASK;
	struct tlb_entry *e = tlb_set_find(tlb_set_of(t, bank, lin, t->cur), acc, last_page | t->cur);
	if (__builtin_expect(e == NULL, 0)) {
		if (!t->global_filled)
			return NULL;
		e = tlb_set_find(tlb_set_of(t, bank, lin, t->cur_global), acc, last_page | t->cur_global);
		if (!e)
			return NULL;
	}
	return (uint8_t *)(e->host_minus_lin + (uintptr_t)lin);
}

/* Invalidate every tag of e. */
static inline void tlb_entry_clear(struct tlb_entry *e)
{
	for (unsigned a = 0; a < TLB_ACCESS_KINDS; a++)
		e->tag[a] = TLB_TAG_INVALID;
	e->key = TLB_TAG_INVALID;
}

/* The context slot of (space, pcid), or NULL. */
static inline struct tlb_context *tlb_context_of(struct tlb *t, uint64_t space, uint16_t pcid)
{
	for (unsigned c = 0; c < TLB_CONTEXTS; c++)
		if (t->ctx[c].id && t->ctx[c].space == space && t->ctx[c].pcid == pcid)
			return &t->ctx[c];
	return NULL;
}

/* The id of (space, pcid), given one if it has none (replacing the least
 * recently used pair when the table is full). The caller makes sure an id is
 * left (tlb_select). */
static inline uint16_t tlb_context_id(struct tlb *t, uint64_t space, uint16_t pcid)
{
	struct tlb_context *c = tlb_context_of(t, space, pcid);
	if (!c) {
		c = &t->ctx[0];
		for (unsigned i = 0; i < TLB_CONTEXTS; i++) {
			if (!t->ctx[i].id) {
				c = &t->ctx[i];
				break;
			}
			if (t->ctx[i].stamp < c->stamp)
				c = &t->ctx[i];
		}
		c->space = space;
		c->pcid = pcid;
		c->id = t->next_id++;
		c->filled = false;
	}
	c->stamp = ++t->clock;
	return c->id;
}

/* Make (space, pcid) the current context: the translations it (and its
 * space's global ones) hold are used again; nothing else changes. */
static inline void tlb_select(struct tlb *t, uint64_t space, uint16_t pcid);

/* Drop every translation of every context, global ones included: a full sweep
 * (reset, an SVM TLB_CONTROL of 1, the ids exhausted). The current context
 * stays selected, with new ids. */
static inline void tlb_flush_all(struct tlb *t)
{
	t->next_id = 0;            /* tlb_select() starts again from an empty TLB */
	tlb_select(t, t->space, t->pcid);
}

static inline void tlb_select(struct tlb *t, uint64_t space, uint16_t pcid)
{
	if (t->next_id < TLB_FIRST_ID || t->next_id + 2u > TLB_ID_MASK + 1u) {
		/* No ids yet (a fresh TLB), or too few left: everything goes. */
		for (unsigned i = 0; i < TLB_SLOTS; i++)
			tlb_entry_clear(&t->e[i]);
		memset(t->ctx, 0, sizeof(t->ctx));
		memset(t->large, 0, sizeof(t->large));
		t->next_id = TLB_FIRST_ID;
	}
	t->space = space;
	t->pcid = pcid;
	t->cur_global = tlb_context_id(t, space, TLB_GLOBAL);
	t->global_filled = tlb_context_of(t, space, TLB_GLOBAL)->filled;
	t->cur = tlb_context_id(t, space, pcid);
	t->cur_mix = (uint32_t)(tlb_id_mix(t->cur) * TLB_WAYS * sizeof(struct tlb_entry));
	t->epoch++;
}

/* A fresh id for context slot c: its old translations can no longer match.
 * With the ids exhausted the pair is forgotten instead (tlb_select then starts
 * again from an empty TLB). */
static inline void tlb_renumber(struct tlb *t, struct tlb_context *c)
{
	if (t->next_id > TLB_ID_MASK)
		c->id = 0;
	else
		c->id = t->next_id++;
	c->filled = false;
	t->epoch++;
}

/* A global translation is about to be filled (emu/memory.c). */
static inline void tlb_note_global(struct tlb *t)
{
	if (!t->global_filled) {
		t->global_filled = true;
		tlb_context_of(t, t->space, TLB_GLOBAL)->filled = true;
	}
}

/* Drop the translations of (space, pcid) (pcid may be TLB_GLOBAL). */
static inline void tlb_flush_context(struct tlb *t, uint64_t space, uint16_t pcid)
{
	struct tlb_context *c = tlb_context_of(t, space, pcid);
	if (c)
		tlb_renumber(t, c);
	if (space == t->space)
		tlb_select(t, t->space, t->pcid);
}

/* Drop the translations of every PCID of space; global ones too unless
 * keep_global. */
static inline void tlb_flush_space(struct tlb *t, uint64_t space, bool keep_global)
{
	for (unsigned c = 0; c < TLB_CONTEXTS; c++)
		if (t->ctx[c].id && t->ctx[c].space == space &&
		    !(keep_global && t->ctx[c].pcid == TLB_GLOBAL))
			tlb_renumber(t, &t->ctx[c]);
	if (space == t->space)
		tlb_select(t, t->space, t->pcid);
}

/* The non-global translations of the current PCID go (SDM Vol.3 4.10.4.1: MOV
 * CR3 with CR4.PCIDE = 0 or keeping the PCID without bit 63, a task switch
 * that changes CR3). Other PCIDs keep theirs. */
static inline void tlb_flush_nonglobal(struct tlb *t)
{
	tlb_flush_context(t, t->space, t->pcid);
}

/* Does a translation of a page of 1 << page_shift bytes at page cover lin? A
 * large page is cached as 4 KiB pieces that all go together (SDM Vol.3
 * 4.10.4.1 INVLPG; SDM Vol.2 INVPCID footnote 1). */
static inline bool tlb_page_covers(uint64_t page, unsigned page_shift, uint64_t lin)
{
	uint64_t mask = ~((1ull << page_shift) - 1);
	return (page & mask) == (lin & mask);
}

/* A filter of pages (a Bloom filter with one hash): the bit of the page of
 * 1 << page_shift bytes holding lin, set and tested. */
static inline unsigned tlb_filter_bit(uint64_t lin, unsigned page_shift)
{
	return (unsigned)((((lin >> page_shift) ^ page_shift) * 0x9e3779b97f4a7c15ull) >> (64 - TLB_FILTER_LOG2));
}

static inline void tlb_filter_add(uint64_t *filter, uint64_t lin, unsigned page_shift)
{
	unsigned bit = tlb_filter_bit(lin, page_shift);
	filter[bit / 64] |= 1ull << (bit % 64);
}

static inline bool tlb_filter_has(const uint64_t *filter, uint64_t lin, unsigned page_shift)
{
	unsigned bit = tlb_filter_bit(lin, page_shift);
	return (filter[bit / 64] >> (bit % 64)) & 1;
}

/* A piece of a page larger than 4 KiB at lin is being cached. */
static inline void tlb_note_large(struct tlb *t, uint64_t lin, unsigned page_shift)
{
	tlb_filter_add(t->large, lin, page_shift);
}

/* Whether a cached piece of a 2-MiB, 4-MiB or 1-GiB page may cover lin
 * (false: certainly none). */
static inline bool tlb_large_may_cover(const struct tlb *t, uint64_t lin)
{
	static const uint8_t shifts[] = { 21, 22, 30 };
	for (unsigned i = 0; i < sizeof(shifts); i++)
		if (tlb_filter_has(t->large, lin, shifts[i]))
			return true;
	return false;
}

/* A link about to be made relies on the translation of lin's page. */
static inline void tlb_note_code(struct tlb *t, uint64_t lin)
{
	if (t->code_epoch != t->epoch) {
		memset(t->code, 0, sizeof(t->code));
		t->code_epoch = t->epoch;
	}
	tlb_filter_add(t->code, lin, PAGE_SHIFT);
}

/* May a link of this epoch rely on the translation of lin's page (false:
 * certainly none)? */
static inline bool tlb_code_may_use(const struct tlb *t, uint64_t lin)
{
	return t->code_epoch == t->epoch && tlb_filter_has(t->code, lin, PAGE_SHIFT);
}

/* Drop the translations of the page holding lin (whatever its size) tagged
 * with id a or id b (0: none). Pieces of a larger page sit in the sets of
 * their own 4-KiB pages, so only then are all entries visited; a 4-KiB page
 * is in one set per bank and id. A new epoch only where a link may rely on
 * what goes: a piece of a large page, or a page links were made into. */
static inline void tlb_flush_page_ids(struct tlb *t, uint64_t lin, uint16_t a, uint16_t b)
{
	if (tlb_large_may_cover(t, lin)) {
		t->epoch++;
		for (unsigned i = 0; i < TLB_SLOTS; i++) {
			struct tlb_entry *e = &t->e[i];
			uint16_t id = e->key & TLB_ID_MASK;
			if ((id == a || id == b) && tlb_page_covers(e->key & PAGE_MASK, e->page_shift, lin))
				tlb_entry_clear(e);
		}
	} else {
		const uint16_t ids[2] = { a, b };
		for (unsigned bank = 0; bank < TLB_BANKS; bank++)
			for (unsigned k = 0; k < 2; k++) {
				if (!ids[k])
					continue;
				struct tlb_entry *set = tlb_set_of(t, bank, lin, ids[k]);
				for (unsigned w = 0; w < TLB_WAYS; w++)
					if (set[w].key == ((lin & PAGE_MASK) | ids[k]))
						tlb_entry_clear(&set[w]);
			}
		if (tlb_code_may_use(t, lin))
			t->epoch++;
	}
}

/* INVLPG, and a #PF for lin: the current PCID's translations of the page and
 * the space's global ones, "regardless of PCID" (SDM Vol.3 4.10.4.1). Other
 * PCIDs keep theirs, as the SDM allows. */
static inline void tlb_flush_page(struct tlb *t, uint64_t lin)
{
	tlb_flush_page_ids(t, lin, t->cur, t->cur_global);
}

/* INVPCID type 1 (SDM Vol.2 INVPCID): the non-global translations of pcid in
 * the current space. */
static inline void tlb_flush_pcid(struct tlb *t, uint16_t pcid)
{
	tlb_flush_context(t, t->space, pcid);
}

/* INVPCID type 0: the non-global translations of pcid for the page holding lin
 * (a large page as a whole); global ones stay (SDM Vol.2 INVPCID). */
static inline void tlb_flush_pcid_page(struct tlb *t, uint16_t pcid, uint64_t lin)
{
	struct tlb_context *c = tlb_context_of(t, t->space, pcid);
	if (c)
		tlb_flush_page_ids(t, lin, c->id, 0);
}

/* INVPCID type 3: the non-global translations of every PCID go; global ones
 * stay (SDM Vol.2 INVPCID). */
static inline void tlb_flush_nonglobal_all_pcids(struct tlb *t)
{
	tlb_flush_space(t, t->space, true);
}

/* Drop the translations of the page holding lin in every context of space
 * (INVLPGA, INVVPID individual-address). */
static inline void tlb_flush_space_page(struct tlb *t, uint64_t space, uint64_t lin)
{
	for (unsigned c = 0; c < TLB_CONTEXTS; c++)
		if (t->ctx[c].id && t->ctx[c].space == space)
			tlb_flush_page_ids(t, lin, t->ctx[c].id, 0);
}

/* Drop the translations of every context whose space match() accepts (a
 * family of spaces: every EPTP of one VPID, every VPID of one EPTP); global
 * ones too unless keep_global; with page, only those of the page holding lin
 * (INVEPT, INVVPID: SDM Vol.3 28.3.3.1). */
static inline void tlb_flush_spaces(struct tlb *t, bool (*match)(uint64_t space, const void *arg),
				    const void *arg, bool keep_global, bool page, uint64_t lin)
{
	bool current = false;
	for (unsigned c = 0; c < TLB_CONTEXTS; c++) {
		struct tlb_context *x = &t->ctx[c];
		if (!x->id || !match(x->space, arg) || (keep_global && x->pcid == TLB_GLOBAL))
			continue;
		if (page) {
			tlb_flush_page_ids(t, lin, x->id, 0);
			continue;
		}
		current |= x->space == t->space;
		tlb_renumber(t, x);
	}
	if (current)
		tlb_select(t, t->space, t->pcid);
}

/* Withhold TLB_WRITE for a physical page (it now holds decoded code), in every
 * context: an entry used later must not let a write skip the decoded-code
 * check. TLB_WRITE_CODE stays. */
static inline void tlb_protect_phys_page(struct tlb *t, uint64_t pa)
{
	for (unsigned i = 0; i < TLB_SLOTS; i++)
		if (t->e[i].phys == (pa & PAGE_MASK))
			t->e[i].tag[TLB_WRITE] = TLB_TAG_INVALID;
}

#endif
