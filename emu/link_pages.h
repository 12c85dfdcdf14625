/* The code pages block links lead into, and their translations, so that links
 * outlive a TLB flush that leaves those translations as they were.
 *
 * A link (emu/run.c) stands for the lookup of its rIP: the fetch's translation
 * of the page, then the block at that physical address. The TLB's epoch moves
 * whenever a translation may go, and with it the link context, voiding every
 * link. A flush empties the TLB, but a processor may fill it again at once:
 * translations may be cached at any time, speculatively, as long as they are
 * what a walk of the paging structures gives (SDM Vol.3 4.10.2.3; APM2 5.5.1
 * likewise), and it may use such an entry until the next flush (SDM Vol.3
 * 4.10.4.3). So where a walk of every page the links rely on gives the same
 * frame, from the same entries, with their accessed flags already set (a fill
 * that writes nothing, SDM Vol.3 4.8), the links are those of a TLB refilled
 * right after the flush, and hold: the epoch's link contexts are carried on
 * into the new one (link_pages_carry). Xen flushes its global translations
 * (CR4.PGE) tens of thousands of times during its boot, its own code's
 * translations each time unchanged.
 *
 * The pages are noted exactly, in a small hash table, with the entries their
 * walk read: with the same paging environment (CR3, the paging mode and
 * options) the same entries make the same walk; with another (a new CR3) each
 * page is walked again. Anything the carrying cannot vouch for (a nested walk,
 * an entry outside RAM, an accessed flag still clear, a full table) marks its
 * bank's notes lost: that bank's links then end with the epoch, as before.
 */
#ifndef HVEMU_EMU_LINK_PAGES_H
#define HVEMU_EMU_LINK_PAGES_H

#include <stdbool.h>
#include <stdint.h>

#define LINK_PAGES_SLOTS 512       /* a power of two */
#define LINK_PAGES_MAX 384         /* notes before the table counts as full */
#define LINK_PAGES_LEVELS 5

struct cpu;

/* What a walk depends on besides the entries it reads (emu/paging_env.h). */
struct link_pages_env {
	uint64_t cr3, a20_mask;
	uint64_t pdpte[4];         /* PAE's PDPTE registers (SDM Vol.3 4.4.1) */
	uint32_t mode;             /* enum paging_mode */
	uint32_t maxphyaddr;
	bool pse, nxe, smep, gbpages, amd;
};

struct link_page {
	uint64_t key;              /* page | LINK_PAGE_USER | LINK_PAGE_USED; 0: empty */
	uint64_t frame;            /* the physical page links rely on */
	uint64_t entry[LINK_PAGES_LEVELS];        /* as read by the walk */
	uint64_t entry_addr[LINK_PAGES_LEVELS];   /* PAE's first: a PDPTE register's slot */
	uint8_t levels;
};
#define LINK_PAGE_USER 1u          /* a fetch at CPL 3 (SDM Vol.3 4.6) */
#define LINK_PAGE_USED 2u

/* The notes are in two banks, a fetch at CPL 3's and the others' (the
 * link context's CPL tells which a link relies on), carried on or not apart:
 * a hypervisor's own code keeps its links when its guest's page tables go. */
struct link_pages {
	uint32_t epoch;            /* the TLB epoch the notes are for */
	bool lost[2];              /* by bank: a link of the epoch relies on a page not noted */
	unsigned n;
	struct link_pages_env env; /* the paging environment of every note (n > 0) */
	struct link_page page[LINK_PAGES_SLOTS];
	uint16_t used[LINK_PAGES_MAX];   /* the n slots noted, so that a look at the notes
					    (at every world switch, every CR3 load) costs
					    what they are, not the table */
	unsigned long carried;     /* link contexts carried on, for tests and profiles */
};

/* A link about to be made relies on the translation of lin's page to the
 * frame of pa (the target block's, or a page-crossing one's second page). */
void link_pages_note(struct cpu *cpu, uint64_t lin, uint64_t pa);

/* The TLB's epoch has moved since the notes: carry the link contexts of their
 * epoch on into the current one where every noted page's walk is unchanged,
 * else start the notes afresh. Before any link is followed or made in the
 * new epoch (emu/run.c link_context_switch). */
void link_pages_carry(struct cpu *cpu);

#endif
