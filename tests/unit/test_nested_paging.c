/* Check suite for mmu/nested.c: two-stage translation, a guest's own tables
 * (32-bit, PAE, 4-, 5-level, or paging off) walked through AMD nested tables in
 * each host format (2-level, PAE, 4-, 5-level; APM2 15.25) or Intel EPT (4-,
 * 5-level; SDM Vol.3 28.2). The EPTP check and the exit encoders on their own
 * are in test_nested_exit.c.
 *
 * The machine: host RAM of HOST_RAM bytes; stage 2 maps every guest-physical
 * page g of [0, GUEST_SPAN) to host g + G2H with 4 KiB pages (tables from
 * S2_POOL up); the guest's table of level l sits at guest-physical G_TABLES +
 * l * 4 KiB, and its walk of the case's linear address ends at DATA_GPA.
 * Table entries are built here from the manuals' layouts, not from the
 * walker's format table, so a wrong row there fails these cases. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmu/nested.h"
#include "mmu/x86.h"
#include "suite_runner.h"

#define HOST_RAM    (16u << 20)
#define G2H         0x400000ull
#define GUEST_SPAN  0x400000ull
#define S2_POOL     0x800000ull
#define G_TABLES    0x10000ull
#define DATA_GPA    0x234000ull
#define MAXPHY      40
#define B(n)        (1ull << (n))
#define MT(t)       ((uint64_t)(t) << EPT_MEMTYPE_SHIFT)
#define EPT_RWX     (EPT_R | EPT_W | EPT_X)
#define RWU         (PTE_P | PTE_RW | PTE_US)

/* Linear addresses with distinct indices at every level. */
#define LIN32 0x40c35abcull
#define LIN64 0x00007f8140c35abcull
#define LIN57 0x00ab7f8140c35abcull

/* A table format as the manuals draw it (SDM Vol.3 4.3-4.5, 28.2.2). */
struct tfmt {
	unsigned esize, levels;
	unsigned shift[5];
	uint64_t mask[5];
	bool ept, pdpt;
};
static const struct tfmt F32 = { 4, 2, { 22, 12 }, { 0x3ff, 0x3ff }, false, false };
static const struct tfmt FPAE = { 8, 3, { 30, 21, 12 }, { 3, 0x1ff, 0x1ff }, false, true };
static const struct tfmt F4 = { 8, 4, { 39, 30, 21, 12 }, { 0x1ff, 0x1ff, 0x1ff, 0x1ff }, false, false };
static const struct tfmt F5 = { 8, 5, { 48, 39, 30, 21, 12 }, { 0x1ff, 0x1ff, 0x1ff, 0x1ff, 0x1ff }, false, false };
static const struct tfmt FEPT4 = { 8, 4, { 39, 30, 21, 12 }, { 0x1ff, 0x1ff, 0x1ff, 0x1ff }, true, false };
static const struct tfmt FEPT5 = { 8, 5, { 48, 39, 30, 21, 12 }, { 0x1ff, 0x1ff, 0x1ff, 0x1ff, 0x1ff }, true, false };

enum host_kind { H_NPT32, H_NPTPAE, H_NPT4, H_NPT5, H_EPT4, H_EPT5, HOSTS };
static const struct {
	const char *name;
	const struct tfmt *fmt;
	enum paging_mode mode;
} hosts[HOSTS] = {
	[H_NPT32] = { "NPT 2-level", &F32, PAGING_32 },
	[H_NPTPAE] = { "NPT PAE", &FPAE, PAGING_PAE },
	[H_NPT4] = { "NPT 4-level", &F4, PAGING_4LEVEL },
	[H_NPT5] = { "NPT 5-level", &F5, PAGING_5LEVEL },
	[H_EPT4] = { "EPT 4-level", &FEPT4, PAGING_EPT4 },
	[H_EPT5] = { "EPT 5-level", &FEPT5, PAGING_EPT5 },
};

static const struct tfmt *guest_fmt(enum paging_mode m)
{
	return m == PAGING_32 ? &F32 : m == PAGING_PAE ? &FPAE : m == PAGING_4LEVEL ? &F4 : &F5;
}

static uint64_t guest_lin(enum paging_mode m)
{
	switch (m) {
	case PAGING_OFF: return DATA_GPA | 0xabc;
	case PAGING_4LEVEL: return LIN64;
	case PAGING_5LEVEL: return LIN57;
	default: return LIN32;
	}
}

/* Options of a case. */
enum {
	O_EPT_AD = 1u << 0,        /* EPTP bit 6 */
	O_EXEC_ONLY = 1u << 1,     /* EPT_VPID_CAP bit 0 */
	O_NO_2M = 1u << 2,         /* EPT_VPID_CAP without bit 16 */
	O_NO_1G = 1u << 3,         /* ... without bit 17 */
	O_MBEC = 1u << 4,          /* mode-based execute control */
	O_GUEST_A = 1u << 5,       /* guest entries built with A set */
	O_GUEST_AD = 1u << 6,      /* guest entries built with A set, and D in the leaf */
};

#define CAPS_DEFAULT (EPT_CAP_WALK4 | EPT_CAP_WALK5 | EPT_CAP_UC | EPT_CAP_WB | EPT_CAP_2M | \
		      EPT_CAP_1G | EPT_CAP_AD | EPT_CAP_ADV_INFO)

struct nest {
	struct physmem mem;
	enum host_kind host;
	enum paging_mode gmode;
	struct paging_env guest, s2, host_cpu;
	uint64_t pdpte[4];
	uint64_t s2_root, pool;
	uint64_t s2_leaf[GUEST_SPAN >> 12];   /* host address of the stage-2 leaf of each page */
	uint64_t g_entry_gpa[5];              /* guest-physical address of lin's entry per level */
	uint64_t lin;
	bool table_ux;             /* MBEC: EPT table entries grant user-mode execute too */
};

static struct nest nx;

static uint64_t rd(uint64_t hpa, unsigned size) { return physmem_read(&nx.mem, hpa, size); }
static void wr(uint64_t hpa, unsigned size, uint64_t v) { physmem_write(&nx.mem, hpa, size, v); }

static uint64_t next_table(const struct tfmt *t, uint64_t e)
{
	return e & (t->esize == 4 ? 0xfffff000ull : 0x000ffffffffff000ull);
}

/* Stage-2 entries as SDM 4.4.1/4.5 and 28.2.2 lay them out: a PAE PDPTE has
 * only P; an EPT leaf carries memory type WB. Under MBEC the rights are ANDed
 * over the levels for UX too (Table 27-7 bit 6), so table entries grant it and
 * the cases decide at the leaf. */
static uint64_t s2_table_entry(const struct tfmt *t, unsigned l, uint64_t next)
{
	if (t->ept)
		return next | EPT_RWX | (nx.table_ux ? EPT_UX : 0);
	return next | (t->pdpt && l == 0 ? PTE_P : RWU);
}

static uint64_t s2_leaf_entry(const struct tfmt *t, uint64_t hpa)
{
	return t->ept ? hpa | EPT_RWX | MT(EPT_MT_WB) : hpa | RWU;
}

static void s2_map(uint64_t gpa, uint64_t hpa)
{
	const struct tfmt *t = hosts[nx.host].fmt;
	uint64_t table = nx.s2_root;
	for (unsigned l = 0; l < t->levels; l++) {
		uint64_t ea = table + ((gpa >> t->shift[l]) & t->mask[l]) * t->esize;
		if (l + 1 == t->levels) {
			wr(ea, t->esize, s2_leaf_entry(t, hpa));
			nx.s2_leaf[gpa >> 12] = ea;
			return;
		}
		uint64_t e = rd(ea, t->esize);
		if (!e) {
			e = s2_table_entry(t, l, nx.pool);
			nx.pool += 0x1000;
			wr(ea, t->esize, e);
		}
		table = next_table(t, e);
	}
}

/* Host addresses of the stage-2 entries on gpa's path (4 KiB leaves). */
static void s2_path(uint64_t gpa, uint64_t addr[5])
{
	const struct tfmt *t = hosts[nx.host].fmt;
	uint64_t table = nx.s2_root;
	for (unsigned l = 0; l < t->levels; l++) {
		addr[l] = table + ((gpa >> t->shift[l]) & t->mask[l]) * t->esize;
		table = next_table(t, rd(addr[l], t->esize));
	}
}

/* The guest's tables for lin -> DATA_GPA, written where stage 2 puts them. */
static void guest_build(unsigned opts)
{
	const struct tfmt *t = guest_fmt(nx.gmode);
	for (unsigned l = 0; l < t->levels; l++) {
		uint64_t gpa = G_TABLES + l * 0x1000 + ((nx.lin >> t->shift[l]) & t->mask[l]) * t->esize;
		bool leaf = l + 1 == t->levels, pdpte = t->pdpt && l == 0;
		uint64_t v = (leaf ? DATA_GPA : G_TABLES + (l + 1) * 0x1000) | (pdpte ? PTE_P : RWU);
		if ((opts & (O_GUEST_A | O_GUEST_AD)) && !pdpte)
			v |= PTE_A;
		if ((opts & O_GUEST_AD) && leaf)
			v |= PTE_D;
		wr(gpa + G2H, t->esize, v);
		nx.g_entry_gpa[l] = gpa;
	}
}

static void nest_init(enum host_kind host, enum paging_mode gmode, unsigned opts)
{
	physmem_destroy(&nx.mem);
	memset(&nx, 0, sizeof nx);
	ck_assert(physmem_init(&nx.mem, HOST_RAM));
	nx.host = host;
	nx.gmode = gmode;
	nx.lin = guest_lin(gmode);
	nx.s2_root = S2_POOL;
	nx.pool = S2_POOL + 0x1000;
	nx.table_ux = opts & O_MBEC;
	for (uint64_t g = 0; g < GUEST_SPAN; g += 0x1000)
		s2_map(g, g + G2H);
	if (hosts[host].fmt->ept) {
		uint64_t caps = CAPS_DEFAULT | (opts & O_EXEC_ONLY ? EPT_CAP_EXEC_ONLY : 0);
		caps &= ~((opts & O_NO_2M ? EPT_CAP_2M : 0) | (opts & O_NO_1G ? EPT_CAP_1G : 0));
		uint64_t eptp = nx.s2_root | EPT_MT_WB | ((uint64_t)(hosts[host].fmt->levels - 1) << 3) |
				(opts & O_EPT_AD ? EPTP_AD_ENABLE : 0);
		ck_assert_int_eq(ept_eptp_check(eptp, caps, MAXPHY), EPTP_OK);
		nx.s2 = nested_ept_env(&nx.mem, eptp, caps, opts & O_MBEC, MAXPHY);
	} else {
		/* The host as it was at VMRUN: its paging mode, NXE (not in 2-level
		 * paging), PSE, 1 GiB pages. CR0.WP and SMEP set, to show that they
		 * play no part in nested walks (every access is a user access). */
		nx.host_cpu = (struct paging_env){ .mem = &nx.mem, .mode = hosts[host].mode,
						   .nxe = host != H_NPT32, .pse = true, .gbpages = true,
						   .wp = true, .smep = true, .maxphyaddr = MAXPHY };
		nx.s2 = nested_npt_env(&nx.host_cpu, nx.s2_root);
	}
	nx.guest = (struct paging_env){ .mem = NULL, .mode = gmode, .cr3 = G_TABLES, .nxe = true,
					.pse = true, .gbpages = true, .maxphyaddr = MAXPHY,
					.pdpte = nx.pdpte };
	if (gmode != PAGING_OFF)
		guest_build(opts);
	if (gmode == PAGING_PAE) {
		struct fault f;
		ck_assert_int_eq(nested_load_pdptes(&nx.s2, G_TABLES, MAXPHY, nx.pdpte, &f), PDPTE_LOADED);
	}
}

static void setup(void) { memset(&nx, 0, sizeof nx); }
static void teardown(void) { physmem_destroy(&nx.mem); }

static bool is_ept(enum host_kind h) { return hosts[h].fmt->ept; }

/* The stage-2 exit information a case expects: EXITINFO1 or the qualification. */
static uint64_t exit_info(const struct fault *f)
{
	return f->nested.ept ? ept_violation_qualification(f, false) : npf_exitinfo1(f);
}

/* ---- a guest table page absent from stage 2, every host x guest x level ---- */

struct absent_case { enum host_kind host; enum paging_mode guest; unsigned level; };
static struct absent_case absent[HOSTS * 4 * 5];
static unsigned n_absent;

static void absent_cases(void)
{
	static const enum paging_mode guests[] = { PAGING_32, PAGING_PAE, PAGING_4LEVEL, PAGING_5LEVEL };
	for (unsigned h = 0; h < HOSTS; h++)
		for (unsigned g = 0; g < 4; g++)
			/* A PAE guest's PDPTEs are registers: its walk reads from level 1. */
			for (unsigned l = guests[g] == PAGING_PAE ? 1 : 0; l < guest_fmt(guests[g])->levels; l++)
				absent[n_absent++] = (struct absent_case){ h, guests[g], l };
}

START_TEST(guest_table_absent_from_stage2)
{
	const struct absent_case *c = &absent[_i];
	nest_init(c->host, c->guest, 0);
	const struct tfmt *gt = guest_fmt(c->guest);
	uint64_t table_page = G_TABLES + c->level * 0x1000;
	wr(nx.s2_leaf[table_page >> 12], hosts[c->host].fmt->esize, 0);
	uint64_t before[5];
	for (unsigned l = 0; l < gt->levels; l++)
		before[l] = rd(nx.g_entry_gpa[l] + G2H, gt->esize);

	struct nested_result r;
	struct fault f;
	const char *name = hosts[c->host].name;
	ck_assert_msg(!nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_READ, 0, &r, &f),
		      "%s guest mode %u level %u: translated", name, c->guest, c->level);
	/* APM2 15.25.6 / SDM Table 27-7: a stage-2 fault on a guest paging-
	 * structure access, at that entry's guest-physical address, with the
	 * linear address valid. */
	ck_assert_msg(f.stage == FAULT_STAGE2 && !f.nested.final && f.nested.gla_valid &&
		      f.nested.gla == nx.lin && f.nested.gpa == nx.g_entry_gpa[c->level],
		      "%s guest mode %u level %u: stage-%u fault final %d gla %d/0x%llx gpa 0x%llx", name,
		      c->guest, c->level, f.stage + 1, f.nested.final, f.nested.gla_valid,
		      (unsigned long long)f.nested.gla, (unsigned long long)f.nested.gpa);
	/* APM2 15.25.5: NPT sees the guest's table accesses as user writes. */
	unsigned want_access = is_ept(c->host) ? S2_ACC_READ : S2_ACC_READ | S2_ACC_WRITE;
	ck_assert_msg(f.nested.access == want_access && f.nested.rights == 0 && !f.nested.misconfig,
		      "%s level %u: access %x rights %x", name, c->level, f.nested.access, f.nested.rights);
	/* Not present: EXITINFO1 = US | RW (a user write) + bit 33; EPT: a read
	 * (bit 0), linear address valid (bit 7), bit 8 clear. */
	uint64_t want = is_ept(c->host) ? EPT_QUAL_READ | EPT_QUAL_GLA_VALID
					: PFEC_U | PFEC_W | NPF_INFO1_GUEST_WALK;
	ck_assert_msg(exit_info(&f) == want, "%s level %u: exit info 0x%llx, want 0x%llx", name,
		      c->level, (unsigned long long)exit_info(&f), (unsigned long long)want);
	/* SDM 4.8: the faulting walk sets no accessed flag in the guest's tables. */
	for (unsigned l = 0; l < gt->levels; l++)
		ck_assert_msg(rd(nx.g_entry_gpa[l] + G2H, gt->esize) == before[l], "%s: guest level %u changed",
			      name, l);
}
END_TEST

/* ---- one rule per row ---- */

enum where {
	AT_NONE,
	AT_DATA,                   /* the stage-2 leaf of the data page */
	AT_S2,                     /* the stage-2 entry of level `level` on the data page's path */
	AT_GUEST_TABLE,            /* the stage-2 leaf of the guest's level-`level` table page */
	AT_GUEST_ENTRY,            /* the guest's own entry at level `level` */
};
enum outcome { OK, PF, S2 };

struct nrow {
	const char *name;
	enum host_kind host;
	enum paging_mode guest;
	unsigned opts;
	enum where where;
	unsigned level;
	uint64_t clear, set;       /* the entry becomes (entry & ~clear) | set */
	enum walk_kind kind;
	unsigned flags;
	enum outcome out;
	uint32_t code;             /* PF: #PF error code; S2 on NPT: the nested error code */
	bool final, misconfig;
	uint8_t access, rights;
	uint64_t info;             /* S2 violation: EXITINFO1 or the qualification */
	int gpa_level;             /* S2: -1 the data address, else the guest entry at this level */
	uint64_t pa, page_size;    /* OK: 0 = DATA_GPA + G2H + offset, 4 KiB */
};

#define R WALK_READ
#define W WALK_WRITE
#define X WALK_EXEC
#define U WALK_USER
#define ALL (~0ull)
#define G_OFF PAGING_OFF
#define G32 PAGING_32
#define GPAE PAGING_PAE
#define G4 PAGING_4LEVEL
#define G5 PAGING_5LEVEL
#define FIN NPF_INFO1_FINAL
#define WALKI NPF_INFO1_GUEST_WALK
#define QF (EPT_QUAL_GLA_VALID | EPT_QUAL_FINAL)   /* final translation of a valid GLA */
#define QW EPT_QUAL_GLA_VALID                      /* guest paging-structure access */
#define QR EPT_QUAL_READABLE
#define QWR EPT_QUAL_WRITABLE
#define QX EPT_QUAL_EXECUTABLE

static const struct nrow rows[] = {
	/* -- final translations on NPT: every access a user access (APM2 15.25.5),
	 *    EXITINFO1 = #PF-style code + bit 32 (15.25.6) -- */
	{ "NPT 4-level: final write to a read-only page", H_NPT4, G4, 0, AT_DATA, 0, PTE_RW, 0, W, 0,
	  S2, PFEC_P | PFEC_W | PFEC_U, true, false, S2_ACC_WRITE, S2_RIGHT_P | S2_RIGHT_US,
	  FIN | PFEC_P | PFEC_W | PFEC_U, -1, 0, 0 },
	{ "NPT PAE: final write to a read-only page", H_NPTPAE, GPAE, 0, AT_DATA, 0, PTE_RW, 0, W, 0,
	  S2, PFEC_P | PFEC_W | PFEC_U, true, false, S2_ACC_WRITE, S2_RIGHT_P | S2_RIGHT_US,
	  FIN | PFEC_P | PFEC_W | PFEC_U, -1, 0, 0 },
	{ "NPT 2-level under a 2-level guest: final write to a read-only page", H_NPT32, G32, 0, AT_DATA,
	  0, PTE_RW, 0, W, 0, S2, PFEC_P | PFEC_W | PFEC_U, true, false, S2_ACC_WRITE,
	  S2_RIGHT_P | S2_RIGHT_US, FIN | PFEC_P | PFEC_W | PFEC_U, -1, 0, 0 },
	{ "NPT 5-level: final write to a read-only page", H_NPT5, G5, 0, AT_DATA, 0, PTE_RW, 0, W, 0,
	  S2, PFEC_P | PFEC_W | PFEC_U, true, false, S2_ACC_WRITE, S2_RIGHT_P | S2_RIGHT_US,
	  FIN | PFEC_P | PFEC_W | PFEC_U, -1, 0, 0 },
	{ "NPT 4-level: fetch from an NX page (host NXE: ID set)", H_NPT4, G4, 0, AT_DATA, 0, 0, PTE_XD,
	  X, 0, S2, PFEC_P | PFEC_U | PFEC_I, true, false, S2_ACC_FETCH,
	  S2_RIGHT_P | S2_RIGHT_RW | S2_RIGHT_US | S2_RIGHT_NX, FIN | PFEC_P | PFEC_U | PFEC_I, -1, 0, 0 },
	{ "NPT PAE: fetch from an NX page", H_NPTPAE, GPAE, 0, AT_DATA, 0, 0, PTE_XD, X, 0,
	  S2, PFEC_P | PFEC_U | PFEC_I, true, false, S2_ACC_FETCH,
	  S2_RIGHT_P | S2_RIGHT_RW | S2_RIGHT_US | S2_RIGHT_NX, FIN | PFEC_P | PFEC_U | PFEC_I, -1, 0, 0 },
	{ "NPT 2-level: data page not present", H_NPT32, G32, 0, AT_DATA, 0, PTE_P, 0, R, 0,
	  S2, PFEC_U, true, false, S2_ACC_READ, S2_RIGHT_RW | S2_RIGHT_US, FIN | PFEC_U, -1, 0, 0 },
	{ "NPT: a guest supervisor read of a supervisor nested page faults (user access)", H_NPT4, G4, 0,
	  AT_DATA, 0, PTE_US, 0, R, 0, S2, PFEC_P | PFEC_U, true, false, S2_ACC_READ,
	  S2_RIGHT_P | S2_RIGHT_RW, FIN | PFEC_P | PFEC_U, -1, 0, 0 },
	{ "NPT: host CR0.WP plays no part, a read-only nested page stops a supervisor write", H_NPT4, G4, 0,
	  AT_DATA, 0, PTE_RW, 0, W, 0, S2, PFEC_P | PFEC_W | PFEC_U, true, false, S2_ACC_WRITE,
	  S2_RIGHT_P | S2_RIGHT_US, FIN | PFEC_P | PFEC_W | PFEC_U, -1, 0, 0 },
	{ "NPT 4-level: reserved bit 45 (MAXPHYADDR 40) in the nested PTE", H_NPT4, G4, 0, AT_DATA, 0, 0,
	  B(45), R, 0, S2, PFEC_P | PFEC_RSVD | PFEC_U, true, false, S2_ACC_READ,
	  S2_RIGHT_P | S2_RIGHT_RW | S2_RIGHT_US, FIN | PFEC_P | PFEC_RSVD | PFEC_U, -1, 0, 0 },
	{ "NPT PAE: a nested PDPTE with bit 1 set is reserved (read from memory)", H_NPTPAE, G_OFF, 0, AT_S2,
	  0, 0, PTE_RW, R, 0, S2, PFEC_P | PFEC_RSVD | PFEC_U, true, false, S2_ACC_READ,
	  S2_RIGHT_P | S2_RIGHT_RW | S2_RIGHT_US, FIN | PFEC_P | PFEC_RSVD | PFEC_U, -1, 0, 0 },
	{ "NPT PAE: nested PDPTE not present", H_NPTPAE, G_OFF, 0, AT_S2, 0, PTE_P, 0, R, 0,
	  S2, PFEC_U, true, false, S2_ACC_READ, S2_RIGHT_RW | S2_RIGHT_US, FIN | PFEC_U, -1, 0, 0 },
	{ "NPT 2-level: 4 MiB nested page (host CR4.PSE)", H_NPT32, G32, 0, AT_S2, 0, ALL,
	  0x400000 | RWU | PTE_PS, R, 0, OK, 0, false, false, 0, 0, 0, 0, 0, 1u << 22 },
	{ "NPT 4-level: 2 MiB nested page", H_NPT4, G4, 0, AT_S2, 2, ALL, 0x600000 | RWU | PTE_PS, R, 0,
	  OK, 0, false, false, 0, 0, 0, 0, 0, 1u << 21 },
	{ "NPT 4-level: 1 GiB nested page", H_NPT4, G_OFF, 0, AT_S2, 1, ALL, 0x40000000 | RWU | PTE_PS,
	  R, 0, OK, 0, false, false, 0, 0, 0, 0, 0x40000000 | DATA_GPA | 0xabc, 1u << 30 },

	/* -- final translations on EPT (SDM 28.2.3.2, Table 27-7) -- */
	{ "EPT: final write to a read-only page", H_EPT4, G4, 0, AT_DATA, 0, EPT_W, 0, W, 0,
	  S2, 0, true, false, S2_ACC_WRITE, S2_RIGHT_R | S2_RIGHT_X, EPT_QUAL_WRITE | QR | QX | QF, -1, 0, 0 },
	{ "EPT 5-level: final write to a read-only page", H_EPT5, G5, 0, AT_DATA, 0, EPT_W, 0, W, 0,
	  S2, 0, true, false, S2_ACC_WRITE, S2_RIGHT_R | S2_RIGHT_X, EPT_QUAL_WRITE | QR | QX | QF, -1, 0, 0 },
	{ "EPT: fetch from a non-executable page", H_EPT4, G32, 0, AT_DATA, 0, EPT_X, 0, X, 0,
	  S2, 0, true, false, S2_ACC_FETCH, S2_RIGHT_R | S2_RIGHT_W, EPT_QUAL_FETCH | QR | QWR | QF, -1, 0, 0 },
	{ "EPT: read of a not-present page", H_EPT4, GPAE, 0, AT_DATA, 0, EPT_RWX, 0, R, 0,
	  S2, 0, true, false, S2_ACC_READ, 0, EPT_QUAL_READ | QF, -1, 0, 0 },
	{ "EPT: a not-present entry's memory type 7 is not a misconfiguration", H_EPT4, G_OFF, 0, AT_DATA,
	  0, EPT_RWX | EPT_MEMTYPE_MASK, MT(7), R, 0, S2, 0, true, false, S2_ACC_READ, 0,
	  EPT_QUAL_READ | QF, -1, 0, 0 },
	{ "EPT: execute-only page with EPT_VPID_CAP bit 0: a fetch is allowed", H_EPT4, G4, O_EXEC_ONLY,
	  AT_DATA, 0, EPT_R | EPT_W, 0, X, 0, OK, 0, false, false, 0, 0, 0, 0, 0, 0 },
	{ "EPT: execute-only page with the capability: a read is a violation", H_EPT4, G4, O_EXEC_ONLY,
	  AT_DATA, 0, EPT_R | EPT_W, 0, R, 0, S2, 0, true, false, S2_ACC_READ, S2_RIGHT_X,
	  EPT_QUAL_READ | QX | QF, -1, 0, 0 },
	{ "EPT: 2 MiB page", H_EPT4, G4, 0, AT_S2, 2, ALL, 0x600000 | EPT_RWX | MT(EPT_MT_WB) | EPT_PS, R, 0,
	  OK, 0, false, false, 0, 0, 0, 0, 0, 1u << 21 },
	{ "EPT: 1 GiB page (EPT_VPID_CAP bit 17)", H_EPT4, G_OFF, 0, AT_S2, 1, ALL,
	  0x40000000 | EPT_RWX | MT(EPT_MT_WB) | EPT_PS, R, 0, OK, 0, false, false, 0, 0, 0, 0,
	  0x40000000 | DATA_GPA | 0xabc, 1u << 30 },
	{ "EPT: memory type WC (1) in the leaf is allowed", H_EPT4, G_OFF, 0, AT_DATA, 0, EPT_MEMTYPE_MASK,
	  MT(EPT_MT_WC), R, 0, OK, 0, false, false, 0, 0, 0, 0, 0, 0 },
	{ "EPT: bit 7 of an EPT PTE is ignored", H_EPT4, G_OFF, 0, AT_DATA, 0, 0, EPT_PS, W, 0,
	  OK, 0, false, false, 0, 0, 0, 0, 0, 0 },
	{ "EPT: bits 52-63 of the leaf are ignored", H_EPT4, G_OFF, 0, AT_DATA, 0, 0, 0xfffull << 52, R, 0,
	  OK, 0, false, false, 0, 0, 0, 0, 0, 0 },

	/* -- EPT misconfigurations (SDM 28.2.3.1), one rule a row -- */
	{ "EPT misconfig: write-only leaf (010b)", H_EPT4, G_OFF, 0, AT_DATA, 0, EPT_R | EPT_X, 0, W, 0,
	  S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: write/execute leaf (110b)", H_EPT4, G_OFF, 0, AT_DATA, 0, EPT_R, 0, X, 0,
	  S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: write-only PDPTE", H_EPT4, G_OFF, 0, AT_S2, 1, EPT_R | EPT_X, 0, R, 0,
	  S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: execute-only leaf without EPT_VPID_CAP bit 0", H_EPT4, G_OFF, 0, AT_DATA, 0,
	  EPT_R | EPT_W, 0, X, 0, S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: execute-only PML4E without the capability", H_EPT4, G_OFF, 0, AT_S2, 0,
	  EPT_R | EPT_W, 0, X, 0, S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: memory type 2 in the leaf", H_EPT4, G_OFF, 0, AT_DATA, 0, EPT_MEMTYPE_MASK, MT(2),
	  R, 0, S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: memory type 3 in the leaf", H_EPT4, G_OFF, 0, AT_DATA, 0, EPT_MEMTYPE_MASK, MT(3),
	  R, 0, S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: memory type 7 in the leaf", H_EPT4, G_OFF, 0, AT_DATA, 0, EPT_MEMTYPE_MASK, MT(7),
	  R, 0, S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: memory type 7 in a 2 MiB leaf", H_EPT4, G_OFF, 0, AT_S2, 2, ALL,
	  0x600000 | EPT_RWX | MT(7) | EPT_PS, R, 0, S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: bits 5:3 of a PML4E are reserved", H_EPT4, G_OFF, 0, AT_S2, 0, 0, MT(6), R, 0,
	  S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: bit 6 of a PDE that references a table", H_EPT4, G_OFF, 0, AT_S2, 2, 0, EPT_IPAT,
	  R, 0, S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: bit 7 of a PML4E", H_EPT4, G_OFF, 0, AT_S2, 0, 0, EPT_PS, R, 0,
	  S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: bit 7 of a PML5E", H_EPT5, G_OFF, 0, AT_S2, 0, 0, EPT_PS, R, 0,
	  S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: bit 40 of the leaf (MAXPHYADDR 40)", H_EPT4, G_OFF, 0, AT_DATA, 0, 0, B(40), R, 0,
	  S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: bit 51 of a PDE", H_EPT4, G_OFF, 0, AT_S2, 2, 0, B(51), R, 0,
	  S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: 2 MiB page without EPT_VPID_CAP bit 16", H_EPT4, G_OFF, O_NO_2M, AT_S2, 2, ALL,
	  0x600000 | EPT_RWX | MT(EPT_MT_WB) | EPT_PS, R, 0, S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: 1 GiB page without EPT_VPID_CAP bit 17", H_EPT4, G_OFF, O_NO_1G, AT_S2, 1, ALL,
	  0x40000000 | EPT_RWX | MT(EPT_MT_WB) | EPT_PS, R, 0, S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: bit 20 of a 2 MiB leaf", H_EPT4, G_OFF, 0, AT_S2, 2, ALL,
	  0x600000 | EPT_RWX | MT(EPT_MT_WB) | EPT_PS | B(20), R, 0, S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: bit 12 of a 2 MiB leaf (no PAT bit in EPT)", H_EPT4, G_OFF, 0, AT_S2, 2, ALL,
	  0x600000 | EPT_RWX | MT(EPT_MT_WB) | EPT_PS | B(12), R, 0, S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig: bit 29 of a 1 GiB leaf", H_EPT4, G_OFF, 0, AT_S2, 1, ALL,
	  0x40000000 | EPT_RWX | MT(EPT_MT_WB) | EPT_PS | B(29), R, 0, S2, 0, true, true, 0, 0, 0, -1, 0, 0 },
	{ "EPT misconfig in a guest table page's leaf: found during the guest walk", H_EPT4, G4, 0,
	  AT_GUEST_TABLE, 1, EPT_MEMTYPE_MASK, MT(7), R, 0, S2, 0, false, true, 0, 0, 0, 1, 0, 0 },

	/* -- mode-based execute control (SDM 28.2.3.2, Table 27-7 bit 6) -- */
	{ "MBEC: a fetch from a user-mode linear address needs UX", H_EPT4, G4, O_MBEC, AT_DATA, 0, 0, 0,
	  X, U, S2, 0, true, false, S2_ACC_FETCH, S2_RIGHT_R | S2_RIGHT_W | S2_RIGHT_X,
	  EPT_QUAL_FETCH | QR | QWR | QX | QF, -1, 0, 0 },
	{ "MBEC: UX allows the user-mode fetch", H_EPT4, G4, O_MBEC, AT_DATA, 0, 0, EPT_UX, X, U,
	  OK, 0, false, false, 0, 0, 0, 0, 0, 0 },
	{ "MBEC: the linear address's U/S, not CPL, decides: a supervisor fetch from a user page uses UX",
	  H_EPT4, G4, O_MBEC, AT_DATA, 0, EPT_X, EPT_UX, X, 0, OK, 0, false, false, 0, 0, 0, 0, 0, 0 },
	{ "MBEC: ... and X does not help it", H_EPT4, G4, O_MBEC, AT_DATA, 0, 0, 0, X, 0, S2, 0, true,
	  false, S2_ACC_FETCH, S2_RIGHT_R | S2_RIGHT_W | S2_RIGHT_X, EPT_QUAL_FETCH | QR | QWR | QX | QF,
	  -1, 0, 0 },
	{ "MBEC: UX alone present (bits 2:0 clear) is execute-only", H_EPT4, G4, O_MBEC | O_EXEC_ONLY,
	  AT_DATA, 0, EPT_RWX, EPT_UX, X, U, OK, 0, false, false, 0, 0, 0, 0, 0, 0 },
	{ "without MBEC bit 10 is ignored: an entry with only bit 10 is not present", H_EPT4, G4,
	  O_EXEC_ONLY, AT_DATA, 0, EPT_RWX, EPT_UX, X, U, S2, 0, true, false, S2_ACC_FETCH, 0,
	  EPT_QUAL_FETCH | QF, -1, 0, 0 },

	/* -- guest A/D updates are stage-2 writes; NPT (APM2 15.25.5: guest table accesses are user
	 * writes) and EPT A/D (SDM 28.2.4) make every table access one -- */
	{ "NPT: a guest A-bit update to a read-only nested table page", H_NPT4, G4, 0, AT_GUEST_TABLE, 0,
	  PTE_RW, 0, R, 0, S2, PFEC_P | PFEC_W | PFEC_U, false, false, S2_ACC_READ | S2_ACC_WRITE,
	  S2_RIGHT_P | S2_RIGHT_US, WALKI | PFEC_P | PFEC_W | PFEC_U, 0, 0, 0 },
	{ "NPT: even with the guest A bits set, a read-only table page faults: table accesses are writes",
	  H_NPT4, G4, O_GUEST_A, AT_GUEST_TABLE, 0, PTE_RW, 0, R, 0, S2, PFEC_P | PFEC_W | PFEC_U, false,
	  false, S2_ACC_READ | S2_ACC_WRITE, S2_RIGHT_P | S2_RIGHT_US, WALKI | PFEC_P | PFEC_W | PFEC_U, 0, 0,
	  0 },
	{ "NPT: the guest D-bit update of a write to a read-only nested table page", H_NPT4, G4, O_GUEST_A,
	  AT_GUEST_TABLE, 3, PTE_RW, 0, W, 0, S2, PFEC_P | PFEC_W | PFEC_U, false, false, S2_ACC_READ | S2_ACC_WRITE,
	  S2_RIGHT_P | S2_RIGHT_US, WALKI | PFEC_P | PFEC_W | PFEC_U, 3, 0, 0 },
	{ "NPT 2-level: a guest A-bit update to a read-only nested table page", H_NPT32, G32, 0,
	  AT_GUEST_TABLE, 1, PTE_RW, 0, R, 0, S2, PFEC_P | PFEC_W | PFEC_U, false, false, S2_ACC_READ | S2_ACC_WRITE,
	  S2_RIGHT_P | S2_RIGHT_US, WALKI | PFEC_P | PFEC_W | PFEC_U, 1, 0, 0 },
	{ "EPT without A/D: a guest A-bit update to a read-only table page is a write", H_EPT4, G4, 0,
	  AT_GUEST_TABLE, 0, EPT_W, 0, R, 0, S2, 0, false, false, S2_ACC_WRITE, S2_RIGHT_R | S2_RIGHT_X,
	  EPT_QUAL_WRITE | QR | QX | QW, 0, 0, 0 },
	{ "EPT without A/D: with the guest A bits set, reading a read-only table page is enough", H_EPT4,
	  G4, O_GUEST_A, AT_GUEST_TABLE, 0, EPT_W, 0, R, 0, OK, 0, false, false, 0, 0, 0, 0, 0, 0 },
	{ "EPT with A/D: guest table reads are writes (qualification R and W)", H_EPT4, G4,
	  O_EPT_AD | O_GUEST_AD, AT_GUEST_TABLE, 2, EPT_W, 0, R, 0, S2, 0, false, false,
	  S2_ACC_READ | S2_ACC_WRITE, S2_RIGHT_R | S2_RIGHT_X,
	  EPT_QUAL_READ | EPT_QUAL_WRITE | QR | QX | QW, 2, 0, 0 },

	/* -- the guest's own faults come first where its walk stops -- */
	{ "guest PTE not present: a #PF for the guest, not a stage-2 fault", H_EPT4, G4, 0, AT_GUEST_ENTRY,
	  3, PTE_P, 0, R, U, PF, PFEC_U, false, false, 0, 0, 0, 0, 0, 0 },
	{ "guest user write to a read-only guest page under NPT: #PF", H_NPT4, G4, 0, AT_GUEST_ENTRY, 3,
	  PTE_RW, 0, W, U, PF, PFEC_P | PFEC_W | PFEC_U, false, false, 0, 0, 0, 0, 0, 0 },
	{ "guest PAE: a stage-1 reserved bit is the guest's #PF", H_NPT4, GPAE, 0, AT_GUEST_ENTRY, 2, 0,
	  B(50), R, 0, PF, PFEC_P | PFEC_RSVD, false, false, 0, 0, 0, 0, 0, 0 },

	/* -- guest paging off: the linear address is the guest-physical address -- */
	{ "guest paging off: a final EPT violation with a valid linear address", H_EPT4, G_OFF, 0, AT_DATA,
	  0, EPT_W, 0, W, 0, S2, 0, true, false, S2_ACC_WRITE, S2_RIGHT_R | S2_RIGHT_X,
	  EPT_QUAL_WRITE | QR | QX | QF, -1, 0, 0 },
};

static uint64_t mutate(uint64_t v, const struct nrow *c)
{
	return (v & ~c->clear) | c->set;
}

static void apply(const struct nrow *c)
{
	const struct tfmt *ht = hosts[c->host].fmt;
	uint64_t addr;
	unsigned es = ht->esize;
	switch (c->where) {
	case AT_NONE:
		return;
	case AT_DATA:
		addr = nx.s2_leaf[DATA_GPA >> 12];
		break;
	case AT_S2: {
		uint64_t path[5];
		s2_path(DATA_GPA, path);
		addr = path[c->level];
		break;
	}
	case AT_GUEST_TABLE:
		addr = nx.s2_leaf[(G_TABLES + c->level * 0x1000) >> 12];
		break;
	default:
		addr = nx.g_entry_gpa[c->level] + G2H;
		es = guest_fmt(c->guest)->esize;
		break;
	}
	wr(addr, es, mutate(rd(addr, es), c));
}

START_TEST(row_case)
{
	const struct nrow *c = &rows[_i];
	nest_init(c->host, c->guest, c->opts);
	apply(c);
	struct nested_result r;
	struct fault f;
	bool ok = nested_walk(&nx.guest, &nx.s2, nx.lin, c->kind, c->flags, &r, &f);
	if (c->out == OK) {
		ck_assert_msg(ok, "%s: stage-%u fault (misconfig %d, gpa 0x%llx, code 0x%x)", c->name, f.stage + 1,
			      f.nested.misconfig, (unsigned long long)f.nested.gpa, f.error_code);
		uint64_t want_pa = c->pa ? c->pa : (DATA_GPA + G2H) | (nx.lin & 0xfff);
		ck_assert_msg(r.pa == want_pa, "%s: pa 0x%llx, want 0x%llx", c->name,
			      (unsigned long long)r.pa, (unsigned long long)want_pa);
		uint64_t want_size = c->page_size ? c->page_size : 0x1000;
		ck_assert_msg(r.host.page_size == want_size, "%s: stage-2 page size 0x%llx", c->name,
			      (unsigned long long)r.host.page_size);
		/* A TLB entry can be no larger than either stage's page. */
		uint64_t g_size = nx.gmode == PAGING_OFF ? 0x1000 : r.guest.page_size;
		ck_assert_uint_eq(r.page_size, g_size < want_size ? g_size : want_size);
		return;
	}
	ck_assert_msg(!ok, "%s: translated to 0x%llx", c->name, (unsigned long long)r.pa);
	if (c->out == PF) {
		ck_assert_msg(f.stage == FAULT_STAGE1 && f.vector == EXC_PF && f.error_code == c->code &&
			      f.address == nx.lin, "%s: stage %u vector %u error 0x%x, want #PF 0x%x",
			      c->name, f.stage, f.vector, f.error_code, c->code);
		return;
	}
	uint64_t want_gpa = c->gpa_level < 0 ? (DATA_GPA | (nx.lin & 0xfff)) : nx.g_entry_gpa[c->gpa_level];
	ck_assert_msg(f.stage == FAULT_STAGE2, "%s: stage-%u fault (#%u 0x%x)", c->name, f.stage + 1, f.vector,
		      f.error_code);
	ck_assert_msg(f.nested.ept == is_ept(c->host) && f.nested.misconfig == c->misconfig &&
		      f.nested.final == c->final && f.nested.gla_valid && f.nested.gla == nx.lin,
		      "%s: ept %d misconfig %d final %d gla %d", c->name, f.nested.ept, f.nested.misconfig,
		      f.nested.final, f.nested.gla_valid);
	ck_assert_msg(f.nested.gpa == want_gpa, "%s: gpa 0x%llx, want 0x%llx", c->name,
		      (unsigned long long)f.nested.gpa, (unsigned long long)want_gpa);
	if (c->misconfig)
		return;               /* SDM 28.2.3.1: no qualification, the address is all */
	ck_assert_msg(f.nested.access == c->access && f.nested.rights == c->rights,
		      "%s: access 0x%x rights 0x%x, want 0x%x 0x%x", c->name, f.nested.access,
		      f.nested.rights, c->access, c->rights);
	if (!is_ept(c->host))
		ck_assert_msg(f.error_code == c->code, "%s: nested error code 0x%x, want 0x%x", c->name,
			      f.error_code, c->code);
	ck_assert_msg(exit_info(&f) == c->info, "%s: exit info 0x%llx, want 0x%llx", c->name,
		      (unsigned long long)exit_info(&f), (unsigned long long)c->info);
}
END_TEST

/* ---- accessed and dirty flags in both stages ---- */

/* Bits 8 and 9 of every entry of the EPT tables built so far. */
static uint64_t ept_ad_bits_anywhere(void)
{
	uint64_t any = 0;
	for (uint64_t a = S2_POOL; a < nx.pool; a += 8)
		any |= rd(a, 8) & (EPT_A | EPT_D);
	return any;
}

START_TEST(ept_ad_enabled_sets_flags)
{
	/* SDM 28.2.4: A in every EPT entry used; guest paging-structure accesses
	 * are writes, so D in the leaves of the guest's table pages; D in the
	 * data page's leaf only for a write. */
	nest_init(H_EPT4, PAGING_4LEVEL, O_EPT_AD);
	struct nested_result r;
	struct fault f;
	ck_assert(nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_READ, 0, &r, &f));
	uint64_t path[5];
	for (unsigned l = 0; l < 4; l++) {
		s2_path(G_TABLES + l * 0x1000, path);
		for (unsigned k = 0; k < 4; k++)
			ck_assert_msg(rd(path[k], 8) & EPT_A, "table page %u: EPT level %u without A", l, k);
		ck_assert_msg(rd(path[3], 8) & EPT_D, "table page %u: EPT leaf without D", l);
	}
	s2_path(DATA_GPA, path);
	for (unsigned k = 0; k < 4; k++)
		ck_assert_msg(rd(path[k], 8) & EPT_A, "data page: EPT level %u without A", k);
	ck_assert_msg(!(rd(path[3], 8) & EPT_D), "data page: D set by a read");
	ck_assert(!r.can_write);      /* neither D set: a write must walk again */
	ck_assert(nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_WRITE, 0, &r, &f));
	ck_assert_msg(rd(path[3], 8) & EPT_D, "data page: D not set by a write");
	ck_assert(r.can_write);
	/* Guest A/D went to the guest's tables in host memory, through stage 2. */
	for (unsigned l = 0; l < 4; l++)
		ck_assert(rd(nx.g_entry_gpa[l] + G2H, 8) & PTE_A);
	ck_assert(rd(nx.g_entry_gpa[3] + G2H, 8) & PTE_D);
}
END_TEST

START_TEST(ept_ad_disabled_leaves_bits)
{
	/* SDM 28.2.4: without EPTP bit 6 the processor sets no EPT A/D flag. */
	nest_init(H_EPT4, PAGING_4LEVEL, 0);
	struct nested_result r;
	struct fault f;
	ck_assert(nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_WRITE, 0, &r, &f));
	ck_assert_uint_eq(ept_ad_bits_anywhere(), 0);
	ck_assert(r.can_write);
	for (unsigned l = 0; l < 4; l++)
		ck_assert(rd(nx.g_entry_gpa[l] + G2H, 8) & PTE_A);
}
END_TEST

START_TEST(npt_fetch_id_with_host_smep)
{
	/* APM2 15.25.6 with 8.4.2: a fetch's #NPF reports ID when the host had
	 * EFER.NXE or CR4.SMEP at VMRUN. A 2-level host has no NXE: SMEP alone
	 * decides (it denies nothing: nested accesses are user accesses). */
	struct nested_result r;
	struct fault f;
	for (int smep = 0; smep <= 1; smep++) {
		nest_init(H_NPT32, PAGING_4LEVEL, 0);
		nx.host_cpu.smep = smep;
		nx.s2 = nested_npt_env(&nx.host_cpu, nx.s2_root);
		wr(nx.s2_leaf[DATA_GPA >> 12], 4, 0);
		ck_assert(!nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_EXEC, 0, &r, &f));
		ck_assert(f.stage == FAULT_STAGE2 && f.nested.final);
		ck_assert_uint_eq(exit_info(&f) & PFEC_I, smep ? PFEC_I : 0);
	}
}
END_TEST

START_TEST(npt_ad_through_stage2)
{
	/* Guest table accesses are nested user writes (APM2 15.25.5): nested A
	 * and D on every guest table page; on the data page A, and D only after
	 * a write (SDM 4.8). */
	nest_init(H_NPT4, PAGING_4LEVEL, 0);
	struct nested_result r;
	struct fault f;
	ck_assert(nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_READ, 0, &r, &f));
	uint64_t path[5];
	for (unsigned l = 0; l < 4; l++) {
		s2_path(G_TABLES + l * 0x1000, path);
		ck_assert(rd(path[3], 8) & PTE_A);
		ck_assert(rd(path[3], 8) & PTE_D);
		ck_assert(rd(nx.g_entry_gpa[l] + G2H, 8) & PTE_A);
	}
	s2_path(DATA_GPA, path);
	ck_assert(rd(path[3], 8) & PTE_A);
	ck_assert(!(rd(path[3], 8) & PTE_D));
	/* APM2 15.25.5: the guest's table accesses are user writes to the nested
	 * walk, so even with every guest A bit set a read-only table page faults,
	 * reported as a write (EXITINFO1 RW). */
	for (unsigned l = 0; l < 4; l++) {
		s2_path(G_TABLES + l * 0x1000, path);
		wr(path[3], 8, rd(path[3], 8) & ~PTE_RW);
	}
	ck_assert(!nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_READ, 0, &r, &f));
	ck_assert(f.stage == FAULT_STAGE2);
	ck_assert(f.nested.access & S2_ACC_WRITE);
}
END_TEST

/* Any accessed or dirty flag in the stage-2 tables (8-byte entries), and
 * in the guest's entries on lin's path. */
static uint64_t ad_flags_anywhere(void)
{
	uint64_t ad = is_ept(nx.host) ? EPT_A | EPT_D : PTE_A | PTE_D, any = 0;
	for (uint64_t a = S2_POOL; a < nx.pool; a += 8)
		any |= rd(a, 8) & ad;
	for (unsigned l = 0; l < guest_fmt(nx.gmode)->levels; l++)
		any |= rd(nx.g_entry_gpa[l] + G2H, 8) & (PTE_A | PTE_D);
	return any;
}

START_TEST(peek_sets_no_flags)
{
	/* WALK_PEEK (a tracer's look, not an access): the same translation and
	 * the same refusals, but no A/D at either stage (SDM Vol.3 4.8, 28.2.4;
	 * APM2 15.25.5) and nothing a TLB may keep. Then a real walk sets them,
	 * so the check can see flags. */
	static const enum host_kind h[] = { H_NPT4, H_EPT4 };
	enum host_kind host = h[_i];
	nest_init(host, PAGING_4LEVEL, O_EPT_AD);
	struct nested_result r;
	struct fault f;
	for (unsigned k = WALK_READ; k <= WALK_EXEC; k++) {
		ck_assert(nested_walk(&nx.guest, &nx.s2, nx.lin, (enum walk_kind)k, WALK_PEEK, &r, &f));
		ck_assert_uint_eq(r.pa, DATA_GPA + G2H + (nx.lin & 0xfff));
		ck_assert(!r.can_read && !r.can_write && !r.can_exec);
		ck_assert_msg(ad_flags_anywhere() == 0, "%s: a peek of kind %u set A/D", hosts[host].name, k);
	}
	/* Where the access would fault, the peek fails, still writing nothing. */
	uint64_t leaf = rd(nx.s2_leaf[DATA_GPA >> 12], 8);
	wr(nx.s2_leaf[DATA_GPA >> 12], 8, 0);
	ck_assert(!nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_EXEC, WALK_PEEK, &r, &f));
	ck_assert_uint_eq(ad_flags_anywhere(), 0);
	wr(nx.s2_leaf[DATA_GPA >> 12], 8, leaf);
	ck_assert(nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_EXEC, 0, &r, &f));
	ck_assert(ad_flags_anywhere() != 0);
}
END_TEST

/* ---- PAE: PDPTE loads and nested PDPTs ---- */

START_TEST(pdpte_load_through_stage2)
{
	nest_init(H_EPT4, PAGING_PAE, O_EPT_AD);
	ck_assert_uint_eq(nx.pdpte[1], (G_TABLES + 0x1000) | PTE_P);
	uint64_t path[5];
	s2_path(G_TABLES, path);
	/* SDM 28.2.4: PDPTE loads by MOV to CR are reads even with EPT A/D: no D
	 * on the PDPT page's leaf. */
	ck_assert(rd(path[3], 8) & EPT_A);
	ck_assert(!(rd(path[3], 8) & EPT_D));
	/* The PDPT page read-only in EPT: a read is enough. */
	wr(path[3], 8, rd(path[3], 8) & ~EPT_W);
	struct fault f;
	uint64_t regs[4] = { 1, 2, 3, 4 };
	ck_assert_int_eq(nested_load_pdptes(&nx.s2, G_TABLES, MAXPHY, regs, &f), PDPTE_LOADED);
	/* Absent from EPT: a violation with no valid linear address (Table 27-7
	 * bit 7 clear, so bit 8 too), a read; the registers keep their values. */
	wr(path[3], 8, 0);
	regs[0] = 0x11;
	ck_assert_int_eq(nested_load_pdptes(&nx.s2, G_TABLES, MAXPHY, regs, &f), PDPTE_FAULT);
	ck_assert_uint_eq(regs[0], 0x11);
	ck_assert(f.stage == FAULT_STAGE2 && !f.nested.gla_valid && !f.nested.final);
	ck_assert_uint_eq(f.nested.gpa, G_TABLES);
	ck_assert_uint_eq(ept_violation_qualification(&f, true), EPT_QUAL_READ);
}
END_TEST

START_TEST(pdpte_load_reserved_and_npt)
{
	/* SDM 4.4.1: reserved bits in a present PDPTE: the load fails (#GP). */
	nest_init(H_NPT4, PAGING_PAE, 0);
	wr(G_TABLES + G2H + 16, 8, 0x5000 | PTE_P | PTE_RW);
	struct fault f;
	uint64_t regs[4];
	ck_assert_int_eq(nested_load_pdptes(&nx.s2, G_TABLES, MAXPHY, regs, &f), PDPTE_RESERVED);
	/* On NPT the load's nested fault is a guest page-table access. */
	uint64_t path[5];
	s2_path(G_TABLES, path);
	wr(path[3], 8, 0);
	ck_assert_int_eq(nested_load_pdptes(&nx.s2, G_TABLES, MAXPHY, regs, &f), PDPTE_FAULT);
	ck_assert_uint_eq(npf_exitinfo1(&f), NPF_INFO1_GUEST_WALK | PFEC_U);
}
END_TEST

START_TEST(guest_pdpt_read_each_walk)
{
	/* A PAE guest without PDPTE registers (pdpte NULL): its PDPT is read
	 * through stage 2 on every walk, as a guest page-table access. */
	nest_init(H_NPT4, PAGING_PAE, 0);
	nx.guest.pdpte = NULL;
	struct nested_result r;
	struct fault f;
	ck_assert(nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_READ, 0, &r, &f));
	ck_assert_uint_eq(r.guest.levels, 3);
	wr(nx.s2_leaf[G_TABLES >> 12], 8, 0);
	ck_assert(!nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_READ, 0, &r, &f));
	ck_assert(f.stage == FAULT_STAGE2 && !f.nested.final);
	ck_assert_uint_eq(f.nested.gpa, nx.g_entry_gpa[0]);
}
END_TEST

START_TEST(npt_pae_pdpt_not_cached)
{
	/* Nested PAE tables have no PDPTE registers: a change to the nested PDPT
	 * in memory shows in the next walk. */
	nest_init(H_NPTPAE, PAGING_OFF, 0);
	struct nested_result r;
	struct fault f;
	ck_assert(nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_READ, 0, &r, &f));
	wr(nx.s2_root, 8, 0);
	ck_assert(!nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_READ, 0, &r, &f));
	ck_assert_uint_eq(npf_exitinfo1(&f), NPF_INFO1_FINAL | PFEC_U);
	/* The nested PDPTE has no accessed flag: a successful walk leaves it. */
	nest_init(H_NPTPAE, PAGING_OFF, 0);
	uint64_t pdpte = rd(nx.s2_root, 8);
	ck_assert(nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_WRITE, 0, &r, &f));
	ck_assert_uint_eq(rd(nx.s2_root, 8), pdpte);
}
END_TEST

/* ---- EPT: every bit of every entry on the path (SDM 28.2.2 Tables 28-1..28-7) ---- */

/* Is bit b reserved (a misconfiguration) in the EPT entry at level l (0 =
 * PML4E) of a walk whose leaf is at level leaf (3: 4 KiB, 2: 2 MiB, 1: 1 GiB)?
 * Written from the tables, with MAXPHYADDR m. */
static bool sdm_ept_reserved(unsigned l, unsigned leaf, unsigned b, unsigned m)
{
	bool is_leaf = l == leaf, large = is_leaf && leaf < 3;
	if (b >= m && b <= 51)
		return true;
	if (!is_leaf)
		return b >= 3 && b <= 7;              /* 7:3 reserved in table-referencing entries */
	if (large)
		return b >= 12 && b < (leaf == 2 ? 21u : 30u);   /* 20:12 or 29:12 */
	return false;
}

/* Bits that change the walk's shape or outcome and are covered elsewhere:
 * the rights (2:0), the memory type of a leaf (5:3, rows above), PS of a
 * large-page capable entry, and the address bits of a non-leaf entry. */
static bool ept_structural(unsigned l, unsigned leaf, unsigned b, unsigned m)
{
	bool is_leaf = l == leaf;
	if (b <= 2 || (is_leaf && b >= 3 && b <= 5) || (b == 7 && (l == 1 || l == 2)))
		return true;
	return !is_leaf && b >= 12 && b < m;
}

START_TEST(ept_every_bit)
{
	static const unsigned leaves[] = { 3, 2, 1 };
	unsigned leaf = leaves[_i], checked = 0;
	static const uint64_t large_value[] = { [1] = 0x40000000 | EPT_RWX | MT(EPT_MT_WB) | EPT_PS,
						[2] = 0x600000 | EPT_RWX | MT(EPT_MT_WB) | EPT_PS };
	for (unsigned l = 0; l <= leaf; l++)
		for (unsigned b = 0; b < 64; b++) {
			if (ept_structural(l, leaf, b, MAXPHY))
				continue;
			nest_init(H_EPT4, PAGING_OFF, 0);
			uint64_t path[5];
			s2_path(DATA_GPA, path);
			if (leaf < 3)
				wr(path[leaf], 8, large_value[leaf]);
			wr(path[l], 8, rd(path[l], 8) | B(b));
			struct nested_result r;
			struct fault f;
			bool ok = nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_READ, 0, &r, &f);
			bool want = sdm_ept_reserved(l, leaf, b, MAXPHY);
			if (ok == want || (!ok && !f.nested.misconfig))
				ck_abort_msg("leaf level %u, level %u bit %u: %s, want %s", leaf, l, b,
					     ok ? "translated" : "a violation",
					     want ? "a misconfiguration" : "a translation");
			checked++;
		}
	ck_assert_uint_gt(checked, 0);
}
END_TEST

START_TEST(advanced_info_from_a_walk)
{
	/* Table 27-7 bits 9-11 from the guest's own rights of the linear
	 * address: user page, read-only, execute-disable. */
	nest_init(H_EPT4, PAGING_4LEVEL, 0);
	wr(nx.g_entry_gpa[3] + G2H, 8, (rd(nx.g_entry_gpa[3] + G2H, 8) & ~PTE_RW) | PTE_XD);
	wr(nx.s2_leaf[DATA_GPA >> 12], 8, rd(nx.s2_leaf[DATA_GPA >> 12], 8) & ~EPT_R & ~EPT_W & ~EPT_X);
	struct nested_result r;
	struct fault f;
	ck_assert(!nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_READ, WALK_USER, &r, &f));
	ck_assert_uint_eq(ept_violation_qualification(&f, true),
			  EPT_QUAL_READ | QF | EPT_QUAL_GLA_USER | EPT_QUAL_GLA_NX);
}
END_TEST

START_TEST(mbec_supervisor_address_needs_x)
{
	/* SDM 28.2.3.2: under mode-based execute control, a fetch from a
	 * supervisor-mode linear address (U/S=0 at some stage-1 level) needs X;
	 * UX plays no part. */
	nest_init(H_EPT4, PAGING_4LEVEL, O_MBEC);
	wr(nx.g_entry_gpa[0] + G2H, 8, rd(nx.g_entry_gpa[0] + G2H, 8) & ~PTE_US);
	uint64_t leaf = nx.s2_leaf[DATA_GPA >> 12];
	wr(leaf, 8, (rd(leaf, 8) & ~EPT_X) | EPT_UX);
	struct nested_result r;
	struct fault f;
	ck_assert(!nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_EXEC, 0, &r, &f));
	ck_assert(f.stage == FAULT_STAGE2 && f.nested.final && !f.nested.misconfig);
	ck_assert_uint_eq(f.nested.rights, S2_RIGHT_R | S2_RIGHT_W | S2_RIGHT_UX);
	ck_assert_uint_eq(ept_violation_qualification(&f, true),
			  EPT_QUAL_FETCH | QR | QWR | EPT_QUAL_USER_EXEC | QF | EPT_QUAL_GLA_WRITABLE);
	wr(leaf, 8, rd(leaf, 8) | EPT_X);
	ck_assert(nested_walk(&nx.guest, &nx.s2, nx.lin, WALK_EXEC, 0, &r, &f));
	ck_assert(r.can_exec);
}
END_TEST

static Suite *nested_suite(void)
{
	Suite *s = suite_create("nested_paging");
	TCase *tc = tcase_create("guest_table_absent");
	tcase_add_checked_fixture(tc, setup, teardown);
	absent_cases();
	tcase_add_loop_test(tc, guest_table_absent_from_stage2, 0, (int)n_absent);
	suite_add_tcase(s, tc);
	tc = tcase_create("rows");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, row_case, 0, sizeof rows / sizeof rows[0]);
	tcase_add_test(tc, mbec_supervisor_address_needs_x);
	suite_add_tcase(s, tc);
	tc = tcase_create("accessed_dirty");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ept_ad_enabled_sets_flags);
	tcase_add_test(tc, ept_ad_disabled_leaves_bits);
	tcase_add_test(tc, npt_ad_through_stage2);
	tcase_add_test(tc, npt_fetch_id_with_host_smep);
	tcase_add_loop_test(tc, peek_sets_no_flags, 0, 2);
	suite_add_tcase(s, tc);
	tc = tcase_create("pae");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pdpte_load_through_stage2);
	tcase_add_test(tc, pdpte_load_reserved_and_npt);
	tcase_add_test(tc, guest_pdpt_read_each_walk);
	tcase_add_test(tc, npt_pae_pdpt_not_cached);
	suite_add_tcase(s, tc);
	tc = tcase_create("ept_every_bit");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, ept_every_bit, 0, 3);
	suite_add_tcase(s, tc);
	tc = tcase_create("exit_information");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, advanced_info_from_a_walk);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(nested_suite());
}
