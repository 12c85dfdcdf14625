/* The page walker: one function for every paging mode (SDM Vol.3 chapter 4,
 * APM2 chapter 5): 32-bit (4 KiB/4 MiB pages, PSE-36), PAE, 4-level and 5-level.
 *
 * The walk first reads and checks every level, and only when the access is
 * allowed sets the accessed/dirty bits (so a faulting walk leaves the tables
 * untouched). It reports the entries it read, for --trace pf.
 */
#ifndef HVEMU_MMU_PAGING_H
#define HVEMU_MMU_PAGING_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"
#include "mmu/fault.h"

/* #PF error code bits (SDM Vol.3 4.7, Figure 4-12). */
enum {
	PFEC_P = 1u << 0, PFEC_W = 1u << 1, PFEC_U = 1u << 2, PFEC_RSVD = 1u << 3,
	PFEC_I = 1u << 4, PFEC_PK = 1u << 5,
};

/* Page-table entry bits (SDM Vol.3 4.3-4.5). */
#define PTE_P   (1ull << 0)
#define PTE_RW  (1ull << 1)
#define PTE_US  (1ull << 2)
#define PTE_PWT (1ull << 3)
#define PTE_PCD (1ull << 4)
#define PTE_A   (1ull << 5)
#define PTE_D   (1ull << 6)
#define PTE_PS  (1ull << 7)
#define PTE_G   (1ull << 8)
#define PTE_XD  (1ull << 63)

enum paging_mode { PAGING_OFF, PAGING_32, PAGING_PAE, PAGING_4LEVEL, PAGING_5LEVEL };

/* What the walker needs to know about the CPU. */
struct paging_env {
	struct physmem *mem;
	enum paging_mode mode;
	uint64_t cr3;
	bool pse;                  /* CR4.PSE (32-bit paging large pages) */
	bool pge;                  /* CR4.PGE */
	bool wp;                   /* CR0.WP */
	bool nxe;                  /* EFER.NXE */
	bool smep, smap;           /* CR4.SMEP, CR4.SMAP */
	bool ac;                   /* EFLAGS.AC (SMAP override for explicit accesses) */
	bool gbpages;              /* CPU supports 1 GiB pages */
	unsigned maxphyaddr;       /* physical-address width of the CPU model */
	const uint64_t *pdpte;     /* PAE: the 4 PDPTE registers (loaded at MOV CR3) */
};

enum walk_kind { WALK_READ, WALK_WRITE, WALK_EXEC };

/* Flags of an access. */
enum {
	WALK_USER = 1u << 0,       /* user-mode access: CPL 3 and not implicit (SDM 4.6) */
	WALK_IMPLICIT = 1u << 1,   /* implicit supervisor access (GDT, IDT, TSS...) */
};

struct walk_result {
	uint64_t pa;               /* physical address of the byte */
	uint64_t page_size;        /* 4 KiB, 2/4 MiB or 1 GiB */
	bool global;               /* G=1 in the leaf and CR4.PGE */
	/* Accesses of the same privilege class that this translation allows with no
	 * further side effect (A set; D set for writes): what a TLB may cache. */
	bool can_read, can_write, can_exec;
	unsigned levels;           /* entries read, for tracing */
	uint64_t entry[5];
	uint64_t entry_addr[5];
};

/* Translate lin for an access of kind with flags (WALK_*). On a fault returns
 * false with *f = #PF (error code, address = lin). */
bool paging_walk(const struct paging_env *env, uint64_t lin, enum walk_kind kind,
		 unsigned flags, struct walk_result *r, struct fault *f) CHECKED;

/* PAE: read the four PDPTEs at CR3[31:5] (SDM Vol.3 4.4.1). Returns false if a
 * present PDPTE has reserved bits set (the MOV to CR0/CR3/CR4 is then #GP(0)). */
bool paging_load_pdptes(struct physmem *mem, uint64_t cr3, unsigned maxphyaddr,
			uint64_t pdpte[4]) CHECKED;

#endif
