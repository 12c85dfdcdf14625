/* Extended page tables built by a 32-bit L1 hypervisor (SDM Vol.3 28.2.2,
 * Tables 28-1..28-6; the EPTP: 24.6.11): an identity map of the first GiB
 * with 2 MiB pages, which a row then edits: a 2 MiB page split into a 4 KiB
 * page table, an entry made not present, read-only, execute-only or
 * misconfigured, a page remapped, a 1 GiB page added. Written from the SDM,
 * independently of hvemu's mmu/ headers.
 *
 *   EPTP --> [PML5] --> PML4 --> PDPT[0] --> PD (512 x 2 MiB, RWX, WB)
 *                                PDPT[1..3]   not present (a row may map)
 */
#ifndef GUEST_VMX_EPT_H
#define GUEST_VMX_EPT_H

#include <stdint.h>

/* EPT paging-structure entries (Tables 28-1..28-6). */
#define EPT_R        (1ull << 0)
#define EPT_W        (1ull << 1)
#define EPT_X        (1ull << 2)
#define EPT_RWX      (EPT_R | EPT_W | EPT_X)
#define EPT_MT(t)    ((uint64_t)(t) << 3)     /* leaf: 5:3 memory type (28.2.6.1) */
#define EPT_IPAT     (1ull << 6)
#define EPT_PS       (1ull << 7)              /* PDPTE/PDE: a 1 GiB/2 MiB page */
#define EPT_A        (1ull << 8)              /* 28.2.4: with EPTP bit 6 */
#define EPT_D        (1ull << 9)
#define EPT_ADDR     0x000ffffffffff000ull
#define MT_UC 0
#define MT_WB 6

/* The EPTP (24.6.11): 2:0 memory type of the paging structures, 5:3 the
 * page-walk length - 1, 6 A/D enable, 12+ the root table. */
#define EPTP_WALK(n) ((uint64_t)((n) - 1) << 3)
#define EPTP_AD      (1ull << 6)

/* IA32_VMX_EPT_VPID_CAP (A.10) bits used here besides lib_vmx.h's. */
#define CAP_EPT_XO       (1ull << 0)
#define CAP_EPT_WALK5    (1ull << 7)
#define CAP_EPT_UC       (1ull << 8)
#define CAP_EPT_2M       (1ull << 16)
#define CAP_EPT_1G       (1ull << 17)
#define CAP_EPT_AD       (1ull << 21)
#define CAP_EPT_ADV_INFO (1ull << 22)

struct ept {
	uint64_t *root;            /* the PML5 (levels 5) or PML4 table */
	unsigned levels;           /* 4 or 5 */
	uint64_t eptp;
};

/* Forgets every table built so far (a pool of page-aligned frames). */
void ept_reset(void);
/* Builds the identity map; the EPTP with WB (UC when WB is unsupported),
 * the page-walk length and A/D enabled if ad. */
void ept_build(struct ept *e, unsigned levels, int ad);
/* The entry of the table at level (1 = PTE, 2 = PDE, 3 = PDPTE, 4 = PML4E,
 * 5 = PML5E) on gpa's walk; a 2 MiB page on the way to level 1 is split
 * into an identity 4 KiB page table with the same rights. 0 if the walk
 * stops before level (an entry not present or a large page above it). */
uint64_t *ept_entry(struct ept *e, uint64_t gpa, unsigned level);
/* The PTE of gpa (splitting its 2 MiB page). */
static inline uint64_t *ept_pte(struct ept *e, uint64_t gpa) { return ept_entry(e, gpa, 1); }

#endif
