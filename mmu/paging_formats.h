/* Table formats as data: what the walker (mmu/paging.c) needs to know about
 * each level of each format, so that one loop walks them all.
 *
 *   format     entry  levels (input-address bits per level)
 *   32-bit       4    PD 31:22, PT 21:12                 (SDM Vol.3 4.3)
 *   PAE          8    PDPT 31:30, PD 29:21, PT 20:12     (SDM Vol.3 4.4)
 *   4-level      8    PML4 47:39, PDPT 38:30, PD, PT     (SDM Vol.3 4.5)
 *   5-level      8    PML5 56:48, then as 4-level        (SDM Vol.3 4.5)
 *   EPT 4/5      8    as 4-/5-level, R/W/X entries       (SDM Vol.3 28.2.2)
 *
 * The x86 formats are also AMD's nested-table formats (APM2 15.25.5: the
 * nested tables use the host's paging format).
 *
 * What depends on the CPU (MAXPHYADDR, EFER.NXE, CR4.PSE, 1 GiB and EPT large
 * page support) is applied by the walker from the environment: a level names
 * which of those it depends on.
 */
#ifndef HVEMU_MMU_PAGING_FORMATS_H
#define HVEMU_MMU_PAGING_FORMATS_H

#include <stdbool.h>
#include <stdint.h>

#include "mmu/paging.h"
#include "mmu/x86_vmx.h"      /* EPT_CAP_*: IA32_VMX_EPT_VPID_CAP */

/* Where PS=1 may map a page: always, or only with a CPU feature. When the
 * feature is absent, PS is ignored (LARGE_PSE: the entry references a table,
 * SDM 4.3) or reserved (every other gate). */
enum pt_large {
	LARGE_NEVER = 0,
	LARGE_ALWAYS = 1u << 0,
	LARGE_PSE = 1u << 1,       /* CR4.PSE (32-bit 4 MiB pages) */
	LARGE_1G = 1u << 2,        /* 1 GiB pages (CPUID 80000001H:EDX[26]) */
	LARGE_EPT_2M = 1u << 3,    /* EPT_CAP_2M */
	LARGE_EPT_1G = 1u << 4,    /* EPT_CAP_1G */
};

/* Per-level properties. */
enum {
	LV_XD = 1u << 0,           /* bit 63 is XD: reserved unless EFER.NXE */
	LV_A = 1u << 1,            /* has an accessed flag (x86: bit 5) */
	LV_PDPT = 1u << 2,         /* the PAE PDPT: stage 1 reads the PDPTE registers */
	LV_PSE36 = 1u << 3,        /* 32-bit PDE: a 4 MiB page holds PA 39:32 in 20:13 */
	LV_AMD_BIT8 = 1u << 4,     /* PML5E/PML4E: bit 8 MBZ on AMD (APM2 5.3.3, Figure 5-18),
				      ignored on Intel (SDM Table 4-15) */
};

struct pt_level {
	uint8_t shift;             /* lowest input-address bit this level translates */
	uint8_t large;             /* enum pt_large: where PS=1 maps a page */
	uint8_t flags;             /* LV_* */
	uint16_t index_mask;       /* 0x3ff, 0x1ff, or 3 (the PAE PDPT) */
	uint64_t rsvd;             /* reserved bits of a table-referencing entry / 4 KiB leaf,
	                              besides those at and above MAXPHYADDR */
	uint64_t rsvd_large;       /* other reserved bits of an entry that maps a large page */
	uint64_t no_rights;        /* rights bits this level does not carry (read as granted) */
};

enum pt_entry_kind {
	PT_X86,                    /* P, R/W, U/S, XD; A bit 5, D bit 6 */
	PT_EPT,                    /* R, W, X (UX); A bit 8, D bit 9 (EPTP bit 6) */
};

struct pt_format {
	const char *name;
	uint8_t entry_size;        /* 4 or 8 bytes */
	uint8_t levels;
	uint8_t kind;              /* enum pt_entry_kind */
	uint8_t rsvd_top;          /* bits rsvd_top:MAXPHYADDR of every entry are reserved */
	uint64_t root_mask;        /* bits of CR3/nCR3/EPTP that locate the root table
	                              (further limited to MAXPHYADDR) */
	struct pt_level level[5];
};

extern const struct pt_format paging_formats[];

/* The format of a table walk in mode (never PAGING_OFF). */
static inline const struct pt_format *paging_format(enum paging_mode mode)
{
	return &paging_formats[mode];
}

#endif
