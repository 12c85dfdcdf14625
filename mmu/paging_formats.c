/* The table formats (see paging_formats.h), one row per format, one line per
 * level, each reserved-bit mask with the table of the manual it comes from. */
#include "mmu/paging_formats.h"

/* Bits hi..lo set. */
#define BITS(hi, lo) ((((hi) >= 63 ? 0ull : (2ull << (hi))) - 1) & ~((1ull << (lo)) - 1))

/* x86 levels of the 8-byte formats. */
#define X86_TABLE(sh, extra) \
	{ .shift = (sh), .index_mask = 0x1ff, .flags = LV_XD | LV_A, .rsvd = (extra) }
/* A PML5E or PML4E: PS reserved (SDM Tables 4-14, 4-15), bit 8 too on AMD. */
#define X86_TOP_TABLE(sh) \
	{ .shift = (sh), .index_mask = 0x1ff, .flags = LV_XD | LV_A | LV_AMD_BIT8, .rsvd = PTE_PS }
#define X86_LARGE(sh, gate, large_rsvd) \
	{ .shift = (sh), .index_mask = 0x1ff, .large = (gate), .flags = LV_XD | LV_A, \
	  .rsvd_large = (large_rsvd) }

/* EPT levels: a table-referencing entry has bits 7:3 reserved (Tables 28-1,
 * 28-3, 28-5); a large leaf has 29:12 (1 GiB, Table 28-2) or 20:12 (2 MiB,
 * Table 28-4) reserved; bits 51:MAXPHYADDR are reserved everywhere. */
#define EPT_TABLE(sh) \
	{ .shift = (sh), .index_mask = 0x1ff, .rsvd = BITS(7, 3) }
#define EPT_LARGE(sh, gate) \
	{ .shift = (sh), .index_mask = 0x1ff, .large = (gate), .rsvd = BITS(7, 3), \
	  .rsvd_large = BITS((sh) - 1, 12) }
#define EPT_PTE { .shift = 12, .index_mask = 0x1ff }

const struct pt_format paging_formats[] = {
	[PAGING_32] = {
		/* SDM 4.3, Tables 4-4..4-6: no reserved bits in 4-byte entries except
		 * in a 4 MiB PDE (PSE-36, computed from MAXPHYADDR: LV_PSE36);
		 * bits 31:MAXPHYADDR never exist (rsvd_top 31 < MAXPHYADDR). */
		.name = "32-bit", .entry_size = 4, .levels = 2, .kind = PT_X86, .rsvd_top = 31,
		.root_mask = 0xfffff000u,
		.level = {
			{ .shift = 22, .index_mask = 0x3ff, .large = LARGE_PSE, .flags = LV_A | LV_PSE36 },
			{ .shift = 12, .index_mask = 0x3ff, .flags = LV_A },
		},
	},
	[PAGING_PAE] = {
		/* SDM 4.4.1 Table 4-8: a PDPTE has no rights and no A flag; bits 2:1,
		 * 8:5 and 63:MAXPHYADDR are reserved. SDM 4.4.2 Tables 4-9..4-11:
		 * 62:MAXPHYADDR reserved, 63 unless NXE; a 2 MiB PDE also 20:13. */
		.name = "PAE", .entry_size = 8, .levels = 3, .kind = PT_X86, .rsvd_top = 62,
		.root_mask = 0xffffffe0u,
		.level = {
			{ .shift = 30, .index_mask = 3, .flags = LV_PDPT,
			  .rsvd = BITS(2, 1) | BITS(8, 5) | PTE_XD, .no_rights = PTE_RW | PTE_US },
			X86_LARGE(21, LARGE_ALWAYS, BITS(20, 13)),
			X86_TABLE(12, 0),
		},
	},
	[PAGING_4LEVEL] = {
		/* SDM 4.5, Tables 4-15..4-20: 51:MAXPHYADDR reserved, 63 unless NXE;
		 * PS reserved in a PML4E; 1 GiB pages only where supported (29:13
		 * reserved in one), 2 MiB pages 20:13. */
		.name = "4-level", .entry_size = 8, .levels = 4, .kind = PT_X86, .rsvd_top = 51,
		.root_mask = ~0xfffull,
		.level = {
			X86_TOP_TABLE(39),
			X86_LARGE(30, LARGE_1G, BITS(29, 13)),
			X86_LARGE(21, LARGE_ALWAYS, BITS(20, 13)),
			X86_TABLE(12, 0),
		},
	},
	[PAGING_5LEVEL] = {
		/* SDM 4.5, Table 4-14: a PML5E is formatted as a PML4E. */
		.name = "5-level", .entry_size = 8, .levels = 5, .kind = PT_X86, .rsvd_top = 51,
		.root_mask = ~0xfffull,
		.level = {
			X86_TOP_TABLE(48),
			X86_TOP_TABLE(39),
			X86_LARGE(30, LARGE_1G, BITS(29, 13)),
			X86_LARGE(21, LARGE_ALWAYS, BITS(20, 13)),
			X86_TABLE(12, 0),
		},
	},
	[PAGING_EPT4] = {
		/* SDM 28.2.2: EPTP bits MAXPHYADDR-1:12 locate the EPT PML4 table;
		 * an EPT PTE (Table 28-6) ignores bit 7. */
		.name = "EPT 4-level", .entry_size = 8, .levels = 4, .kind = PT_EPT, .rsvd_top = 51,
		.root_mask = ~0xfffull,
		.level = {
			EPT_TABLE(39),
			EPT_LARGE(30, LARGE_EPT_1G),
			EPT_LARGE(21, LARGE_EPT_2M),
			EPT_PTE,
		},
	},
	[PAGING_EPT5] = {
		/* SDM 28.2.2: with a page-walk length of 5 the EPT PML5 table comes
		 * first, its entries formatted as EPT PML4Es. */
		.name = "EPT 5-level", .entry_size = 8, .levels = 5, .kind = PT_EPT, .rsvd_top = 51,
		.root_mask = ~0xfffull,
		.level = {
			EPT_TABLE(48),
			EPT_TABLE(39),
			EPT_LARGE(30, LARGE_EPT_1G),
			EPT_LARGE(21, LARGE_EPT_2M),
			EPT_PTE,
		},
	},
};
