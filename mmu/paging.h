/* The page walker: one function for every table format (mmu/paging_formats.h):
 * the CPU's own paging (SDM Vol.3 chapter 4, APM2 chapter 5: 32-bit with 4 KiB/
 * 4 MiB pages and PSE-36, PAE, 4-level and 5-level) and the second stage of a
 * nested translation (AMD nested paging in the host's format, APM2 15.25;
 * Intel EPT, SDM Vol.3 28.2).
 *
 * The walk first reads and checks every level, and only when the access is
 * allowed sets the accessed/dirty bits (so a faulting walk leaves the tables
 * untouched). It reports the entries it read, for --trace pf.
 *
 * Table entries are read and written through the environment's memory port
 * (struct mem_port). With no port they come straight from RAM (env->mem); a
 * nested walk (mmu/nested.h) gives the guest's walk a port that translates
 * every entry address through the second stage first.
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

/* Page-table entry bits (SDM Vol.3 4.3-4.5; AMD nested tables use the same). */
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

/* EPT paging-structure entry bits (SDM Vol.3 28.2.2, Tables 28-1..28-7). */
#define EPT_R              (1ull << 0)   /* read access */
#define EPT_W              (1ull << 1)   /* write access */
#define EPT_X              (1ull << 2)   /* execute (supervisor-mode execute with MBEC) */
#define EPT_MEMTYPE_SHIFT  3             /* leaf: 5:3 EPT memory type */
#define EPT_MEMTYPE_MASK   (7ull << 3)
#define EPT_IPAT           (1ull << 6)   /* leaf: ignore PAT memory type */
#define EPT_PS             (1ull << 7)   /* PDPTE/PDE: maps a 1 GiB / 2 MiB page */
#define EPT_A              (1ull << 8)   /* accessed (EPTP bit 6 = 1) */
#define EPT_D              (1ull << 9)   /* leaf: dirty (EPTP bit 6 = 1) */
#define EPT_UX             (1ull << 10)  /* user-mode execute (mode-based execute control) */

/* EPT memory types (SDM Vol.3 28.2.6.2); 2, 3 and 7 are reserved. */
enum { EPT_MT_UC = 0, EPT_MT_WC = 1, EPT_MT_WT = 4, EPT_MT_WP = 5, EPT_MT_WB = 6 };

/* The table format of a walk. PAGING_OFF..PAGING_5LEVEL are the CPU's paging
 * modes (and, for a nested walk on AMD, the host's); EPT4/EPT5 are Intel's
 * extended page tables with a page-walk length of 4 or 5. */
enum paging_mode {
	PAGING_OFF, PAGING_32, PAGING_PAE, PAGING_4LEVEL, PAGING_5LEVEL,
	PAGING_EPT4, PAGING_EPT5,
};

/* How a walk reads and writes its table entries (4 or 8 bytes, naturally
 * aligned, at a physical address of the walk's own input stage). A false
 * return means the access itself faulted; *f says why (for a nested walk: a
 * stage-2 fault). */
struct mem_port {
	bool (*read)(void *ctx, uint64_t addr, unsigned size, uint64_t *value, struct fault *f);
	bool (*write)(void *ctx, uint64_t addr, unsigned size, uint64_t value, struct fault *f);
	void *ctx;
};

/* EPT's page-modification log (SDM Vol.3 28.2.5), a hook of the hypervisor
 * model's: a walk that is about to set an EPT dirty flag from 0 to 1 (EPT
 * A/D enabled) first calls log with the 4-KByte-aligned guest-physical
 * address. false: the log is full; the walk then fails with a stage-2 fault
 * (fault_nested.pml_full) and writes no flag, so the access does not happen. */
struct ept_dirty_log {
	bool (*log)(void *ctx, uint64_t gpa);
	void *ctx;
};

/* What the walker needs to know about the CPU (or, for a stage-2 walk, about
 * the nested tables: see mmu/nested.h for builders). */
struct paging_env {
	struct physmem *mem;
	enum paging_mode mode;
	uint64_t cr3;              /* the root: CR3, the VMCB's nCR3, or the EPTP */
	bool pse;                  /* CR4.PSE (32-bit paging large pages) */
	bool pge;                  /* CR4.PGE */
	bool wp;                   /* CR0.WP */
	bool nxe;                  /* EFER.NXE */
	bool smep, smap;           /* CR4.SMEP, CR4.SMAP */
	bool ac;                   /* EFLAGS.AC (SMAP override for explicit accesses) */
	bool gbpages;              /* CPU supports 1 GiB pages */
	bool amd;                  /* AMD's reserved bits (LV_AMD_BIT8); AMD nested tables always */
	unsigned maxphyaddr;       /* physical-address width of the CPU model */
	/* PAE: the 4 PDPTE registers (loaded at MOV CR3, SDM 4.4.1). NULL: the
	 * PDPT at CR3[31:5] is read on every walk (AMD nested tables in legacy
	 * PAE format, APM2 15.25.x; see mmu/nested.h). */
	const uint64_t *pdpte;
	const struct mem_port *port;   /* NULL: table entries are in mem, read directly */
	/* AMD nested paging: this walk translates a guest-physical address through
	 * the nested tables (in one of the x86 formats above): every access is a
	 * user access (APM2 15.25.5) and a failure is a stage-2 fault. EPT walks
	 * are always stage 2. */
	bool nested;
	uint64_t ept_caps;         /* EPT: IA32_VMX_EPT_VPID_CAP (EPT_CAP_*, mmu/x86_vmx.h) */
	bool ept_mbec;             /* EPT: "mode-based execute control for EPT" */
	/* EPT: bits 20:12 (2 MiB) or 29:12 (1 GiB) of a page entry are not
	 * reserved (SDM 28.2.3.1 says they are): the quirk
	 * bochs-ept-large-offset-ignored (emu/quirks.def), set by the VMX model. */
	bool ept_large_offset_ignored;
	const struct ept_dirty_log *dirty_log;   /* EPT: PML (NULL: none) */
};

enum walk_kind { WALK_READ, WALK_WRITE, WALK_EXEC };

/* Flags of an access. */
enum {
	WALK_USER = 1u << 0,       /* user-mode access: CPL 3 and not implicit (SDM 4.6);
	                              EPT: the linear address is a user-mode address (MBEC) */
	WALK_IMPLICIT = 1u << 1,   /* implicit supervisor access (GDT, IDT, TSS...) */
	/* A look, not an access (a tracer or report reading guest code): the
	 * same checks, but no accessed/dirty flag is written at either stage
	 * (SDM Vol.3 4.8 and 28.2.4: the processor sets them as part of an
	 * access) and can_read/can_write/can_exec are false, so nothing of it is
	 * cached. A failure is only the false return: the caller raises nothing. */
	WALK_PEEK = 1u << 2,
};

struct walk_result {
	uint64_t pa;               /* physical address of the byte */
	uint64_t page_size;        /* 4 KiB, 2/4 MiB or 1 GiB */
	bool global;               /* G=1 in the leaf and CR4.PGE */
	/* Accesses of the same privilege class that this translation allows with no
	 * further side effect (A set; D set for writes): what a TLB may cache. */
	bool can_read, can_write, can_exec;
	/* x86 formats: the rights combined over the levels (U/S and R/W ANDed, XD
	 * ORed with EFER.NXE): what EPT's advanced exit information reports. */
	bool user, writable, nx;
	uint8_t ept_memtype;       /* EPT leaf: bits 5:3 */
	bool ept_ipat;             /* EPT leaf: bit 6 */
	unsigned levels;           /* entries read, for tracing */
	uint64_t entry[5];
	uint64_t entry_addr[5];
};

/* Translate addr (a linear address; for a stage-2 walk a guest-physical one)
 * for an access of kind with flags (WALK_*). On a fault returns false with *f =
 * #PF (error code, address = addr) or, for a stage-2 walk, a stage-2 fault
 * (f->nested: gpa = addr, rights, access; gla and final are the caller's). */
bool paging_walk(const struct paging_env *env, uint64_t addr, enum walk_kind kind,
		 unsigned flags, struct walk_result *r, struct fault *f) CHECKED;

/* Result of loading the four PAE PDPTEs. */
enum pdpte_load {
	PDPTE_LOADED,              /* pdpte[] holds the new values */
	PDPTE_RESERVED,            /* a present PDPTE has reserved bits: #GP(0) */
	PDPTE_FAULT,               /* reading them faulted (a stage-2 fault in *f) */
};

/* PAE: read the four PDPTEs at CR3[31:5] (SDM Vol.3 4.4.1) through port (NULL:
 * mem directly). pdpte[] changes only when all four load. */
enum pdpte_load paging_load_pdptes_port(struct physmem *mem, const struct mem_port *port,
					uint64_t cr3, unsigned maxphyaddr, uint64_t pdpte[4],
					struct fault *f) CHECKED;

/* PAE: read the four PDPTEs from RAM. Returns false if a present PDPTE has
 * reserved bits set (the MOV to CR0/CR3/CR4 is then #GP(0)). */
bool paging_load_pdptes(struct physmem *mem, uint64_t cr3, unsigned maxphyaddr,
			uint64_t pdpte[4]) CHECKED;

#endif
