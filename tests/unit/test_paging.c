/* Check suite for mmu/paging.c: paging_walk() on synthetic page tables in a
 * struct physmem for every paging mode (SDM Vol.3 4.3 32-bit, 4.4 PAE, 4.5
 * 4-/5-level), access rights (4.6), #PF error codes (4.7), accessed/dirty flags
 * (4.8), global pages (4.10.2.4), reserved bits per level, PSE-36 and the PAE
 * PDPTE load (4.4.1).
 *
 * The table, the reserved-bit sweep and the rights sweep run for every walk
 * they apply to: the CPU's walk reading RAM directly; the same through a memory
 * port (what a nested walk uses); and the same tables as AMD nested tables in
 * the host's format (APM2 15.25.5: every access a user access, a failure a
 * stage-2 fault, the PAE PDPT read from memory on every walk).
 *
 * Tables sit at fixed physical pages TABLE(level); the leaf maps a frame that
 * need not exist (the walker never reads it). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmu/paging.h"
#include "mmu/x86.h"
#include "suite_runner.h"

#define RAM_SIZE  (1u << 20)
#define TABLE(l)  (0x1000ull * ((l) + 1))     /* level-l table: 0x1000, 0x2000, ... */
#define PDPT_PA   0x1000ull                   /* PAE: CR3 -> PDPT (32-byte aligned) */
#define RWU       (PTE_P | PTE_RW | PTE_US)

/* Environment switches of a case. */
enum {
	E_WP = 1u << 0, E_NXE = 1u << 1, E_SMEP = 1u << 2, E_SMAP = 1u << 3, E_AC = 1u << 4,
	E_PSE = 1u << 5, E_PGE = 1u << 6, E_1G = 1u << 7, E_AMD = 1u << 8,
};

/* Walk shapes: the mode and how many levels are read before the leaf. */
enum shape { S32_4K, S32_4M, PAE_4K, PAE_2M, L4_4K, L4_2M, L4_1G, L5_4K, L5_2M, SHAPES };
static const struct shape_info {
	const char *name;
	enum paging_mode mode;
	unsigned levels;           /* table levels (PAE: the PDPT counts as level 0) */
	unsigned leaf;             /* level index of the leaf entry */
	uint64_t lin;              /* a linear address with distinct indices at every level */
} shapes[SHAPES] = {
	[S32_4K] = { "32-bit 4K", PAGING_32, 2, 1, 0x12345678u },
	[S32_4M] = { "32-bit 4M", PAGING_32, 2, 0, 0x12345678u },
	[PAE_4K] = { "PAE 4K", PAGING_PAE, 3, 2, 0xc0a0b678u },
	[PAE_2M] = { "PAE 2M", PAGING_PAE, 3, 1, 0xc0a0b678u },
	[L4_4K] = { "4-level 4K", PAGING_4LEVEL, 4, 3, 0x00007f1234567abcull },
	[L4_2M] = { "4-level 2M", PAGING_4LEVEL, 4, 2, 0x00007f1234567abcull },
	[L4_1G] = { "4-level 1G", PAGING_4LEVEL, 4, 1, 0x00007f1234567abcull },
	[L5_4K] = { "5-level 4K", PAGING_5LEVEL, 5, 4, 0x00ab7f1234567abcull },
	[L5_2M] = { "5-level 2M", PAGING_5LEVEL, 5, 3, 0x00ab7f1234567abcull },
};

static unsigned esize(enum paging_mode m) { return m == PAGING_32 ? 4 : 8; }

/* Lowest linear-address bit translated by level l of a mode. */
static unsigned level_shift(enum paging_mode m, unsigned levels, unsigned l)
{
	if (m == PAGING_32)
		return l == 0 ? 22 : 12;
	return 12 + 9 * (levels - 1 - l);
}

static uint64_t level_index(enum paging_mode m, unsigned levels, unsigned l, uint64_t lin)
{
	uint64_t mask = m == PAGING_32 ? 0x3ff : (m == PAGING_PAE && l == 0) ? 3 : 0x1ff;
	return (lin >> level_shift(m, levels, l)) & mask;
}

struct fixture {
	struct physmem mem;
	struct paging_env env;
	uint64_t pdpte[4];
	uint64_t entry_addr[5], entry_val[5];   /* what was written */
	const struct shape_info *sh;
	uint64_t page_size, frame;
};

static uint64_t page_size_of(const struct shape_info *sh)
{
	return 1ull << level_shift(sh->mode, sh->levels, sh->leaf);
}

/* Writes the tables for sh (only the entries on the path of sh->lin; RAM starts
 * zeroed and every case of a shape writes the same addresses): level l gets default rights (P|RW|US; PAE PDPTE P
 * only; PS at a large leaf) | set[l] & ~clear[l]. The leaf maps frame. */
static void build(struct fixture *fx, const struct shape_info *sh, const uint64_t set[5],
		  const uint64_t clear[5], uint64_t frame)
{
	unsigned es = esize(sh->mode);
	fx->sh = sh;
	fx->page_size = page_size_of(sh);
	fx->frame = frame;
	for (unsigned l = 0; l <= sh->leaf; l++) {
		uint64_t dflt = (sh->mode == PAGING_PAE && l == 0) ? PTE_P : RWU;
		if (l == sh->leaf && l + 1 < sh->levels)
			dflt |= PTE_PS;
		uint64_t target = l == sh->leaf ? frame : TABLE(l + 1);
		uint64_t v = (target | dflt | (set ? set[l] : 0)) & ~(clear ? clear[l] : 0);
		uint64_t addr = TABLE(l) + level_index(sh->mode, sh->levels, l, sh->lin) * es;
		physmem_write(&fx->mem, addr, es, v);
		fx->entry_addr[l] = addr;
		fx->entry_val[l] = v;
	}
	fx->env.cr3 = TABLE(0);
	if (sh->mode == PAGING_PAE && fx->env.pdpte) {
		/* Every present PDPTE the case writes must load (SDM 4.4.1). */
		memset(fx->pdpte, 0, sizeof fx->pdpte);
		ck_assert(paging_load_pdptes(&fx->mem, PDPT_PA, fx->env.maxphyaddr, fx->pdpte));
	}
}

/* How a case's walk is made. */
enum variant {
	V_DIRECT,                  /* the CPU's walk: entries straight from RAM */
	V_PORT,                    /* the same through a memory port */
	V_NPT,                     /* the tables as AMD nested tables (user accesses only) */
	VARIANTS,
};
static const char *const variant_names[VARIANTS] = { "direct", "port", "NPT" };

/* A port onto the fixture's RAM that counts what the walker asks of it. */
struct counting_port {
	struct mem_port port;
	struct physmem *mem;
	unsigned reads, writes;
};

static bool count_read(void *ctx, uint64_t addr, unsigned size, uint64_t *v, struct fault *f)
{
	struct counting_port *c = ctx;
	c->reads++;
	*v = physmem_read(c->mem, addr, size);
	return true;
}

static bool count_write(void *ctx, uint64_t addr, unsigned size, uint64_t v, struct fault *f)
{
	struct counting_port *c = ctx;
	c->writes++;
	physmem_write(c->mem, addr, size, v);
	return true;
}

static struct counting_port cport;

static void fixture_init(struct fixture *fx, enum paging_mode mode, unsigned env, unsigned maxphy)
{
	memset(&fx->env, 0, sizeof fx->env);
	fx->env.mem = &fx->mem;
	fx->env.mode = mode;
	fx->env.wp = env & E_WP;
	fx->env.nxe = env & E_NXE;
	fx->env.smep = env & E_SMEP;
	fx->env.amd = env & E_AMD;
	fx->env.smap = env & E_SMAP;
	fx->env.ac = env & E_AC;
	fx->env.pse = env & E_PSE;
	fx->env.pge = env & E_PGE;
	fx->env.gbpages = env & E_1G;
	fx->env.maxphyaddr = maxphy ? maxphy : 36;
	fx->env.pdpte = fx->pdpte;
}

static struct fixture fx;

/* Turn the initialised fixture into variant v. NPT: the host state that
 * matters to a nested walk is NXE, PSE and 1 GiB pages; CR0.WP, SMEP, SMAP and
 * EFLAGS.AC play no part in user accesses. */
static void fixture_variant(struct fixture *f, enum variant v)
{
	if (v == V_PORT) {
		cport = (struct counting_port){ .port = { count_read, count_write, &cport }, .mem = &f->mem };
		f->env.port = &cport.port;
	} else if (v == V_NPT) {
		f->env.nested = true;
		f->env.pdpte = NULL;
		f->env.wp = f->env.smep = f->env.smap = f->env.ac = false;
	}
}

static void setup(void)
{
	ck_assert(physmem_init(&fx.mem, RAM_SIZE));
}

static void teardown(void)
{
	physmem_destroy(&fx.mem);
}

static uint64_t entry_now(unsigned l)
{
	return physmem_read(&fx.mem, fx.entry_addr[l], esize(fx.sh->mode));
}

/* ---- table-driven cases ---- */

struct pcase {
	const char *name;
	enum shape shape;
	unsigned env;              /* E_* */
	unsigned maxphy;           /* 0: 36 */
	uint64_t set[5], clear[5]; /* per level, see build() */
	enum walk_kind kind;
	unsigned flags;            /* WALK_USER, WALK_IMPLICIT */
	int err;                   /* expected #PF error code, -1: translation succeeds */
	uint64_t frame;            /* 0: the page size (a naturally aligned frame) */
	uint64_t pa;               /* 0: frame | page offset */
	bool global;
};

#define R WALK_READ
#define W WALK_WRITE
#define X WALK_EXEC
#define U WALK_USER
#define IMPL WALK_IMPLICIT
#define B(n) (1ull << (n))

static const struct pcase cases[] = {
	/* -- every mode translates (4.3, 4.4.2, 4.5) -- */
	{ "32-bit 4K read", S32_4K, 0, 0, {0}, {0}, R, 0, -1, 0, 0, false },
	{ "32-bit 4M read (PSE)", S32_4M, E_PSE, 0, {0}, {0}, R, 0, -1, 0, 0, false },
	{ "PAE 4K read", PAE_4K, 0, 0, {0}, {0}, R, 0, -1, 0, 0, false },
	{ "PAE 2M read", PAE_2M, 0, 0, {0}, {0}, R, 0, -1, 0, 0, false },
	{ "4-level 4K read", L4_4K, 0, 46, {0}, {0}, R, 0, -1, 0, 0, false },
	{ "4-level 2M read", L4_2M, 0, 46, {0}, {0}, R, 0, -1, 0, 0, false },
	{ "4-level 1G read (1G pages)", L4_1G, E_1G, 46, {0}, {0}, R, 0, -1, 0, 0, false },
	{ "5-level 4K read", L5_4K, 0, 52, {0}, {0}, R, 0, -1, 0, 0, false },
	{ "5-level 2M write", L5_2M, 0, 52, {0}, {0}, W, 0, -1, 0, 0, false },
	{ "4-level 4K frame at bit 45 (MAXPHYADDR 46)", L4_4K, 0, 46, {0}, {0}, R, 0, -1, B(45) | 0x5000, 0, false },

	/* -- 32-bit paging specifics (4.3) -- */
	{ "32-bit PS=1 ignored without CR4.PSE (PDE references a table)", S32_4K, 0, 0,
	  { PTE_PS }, {0}, R, 0, -1, 0, 0, false },
	{ "PSE-36: PDE bits 16:13 are PA 35:32 (M=36)", S32_4M, E_PSE, 36,
	  { B(13) | B(15) | B(16) }, {0}, R, 0, -1, 0x400000, 0xd00400000ull | 0x345678, false },
	{ "PSE-36: PDE bits 20:13 are PA 39:32 (M=40)", S32_4M, E_PSE, 40,
	  { 0xffull << 13 }, {0}, R, 0, -1, 0x400000, 0xff00400000ull | 0x345678, false },
	{ "PSE-36: PDE bit 17 reserved at M=36", S32_4M, E_PSE, 36, { B(17) }, {0}, R, 0,
	  PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "PSE-36: PDE bit 20 reserved at M=36", S32_4M, E_PSE, 36, { B(20) }, {0}, W, U,
	  PFEC_P | PFEC_W | PFEC_U | PFEC_RSVD, 0, 0, false },
	{ "4M PDE bit 21 reserved (M=40)", S32_4M, E_PSE, 40, { B(21) }, {0}, R, 0,
	  PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "4M PDE bit 20 is an address bit at M=40", S32_4M, E_PSE, 40, { B(20) }, {0}, R, 0,
	  -1, 0x400000, 0x8000400000ull | 0x345678, false },
	{ "32-bit fetch with EFER.NXE: no I/D without PAE", S32_4K, E_NXE, 0, {0}, { 0, PTE_US },
	  X, U, PFEC_P | PFEC_U, 0, 0, false },
	{ "32-bit fetch with SMEP: I/D set", S32_4K, E_SMEP, 0, {0}, {0}, X, 0,
	  PFEC_P | PFEC_I, 0, 0, false },

	/* -- not present at each level (4.7: P=0) -- */
	{ "32-bit PDE not present", S32_4K, 0, 0, {0}, { PTE_P }, W, U, PFEC_W | PFEC_U, 0, 0, false },
	{ "32-bit PTE not present", S32_4K, 0, 0, {0}, { 0, PTE_P }, R, 0, 0, 0, 0, false },
	{ "32-bit 4M PDE not present", S32_4M, E_PSE, 0, {0}, { PTE_P }, R, U, PFEC_U, 0, 0, false },
	{ "PAE PDPTE not present", PAE_4K, 0, 0, {0}, { PTE_P }, R, 0, 0, 0, 0, false },
	{ "PAE PDE not present", PAE_4K, E_NXE, 0, {0}, { 0, PTE_P }, X, 0, PFEC_I, 0, 0, false },
	{ "PAE PTE not present", PAE_4K, 0, 0, {0}, { 0, 0, PTE_P }, W, 0, PFEC_W, 0, 0, false },
	{ "PML5E not present", L5_4K, 0, 52, {0}, { PTE_P }, R, 0, 0, 0, 0, false },
	{ "PML4E not present", L4_4K, 0, 46, {0}, { PTE_P }, R, U, PFEC_U, 0, 0, false },
	{ "PDPTE not present", L4_4K, 0, 46, {0}, { 0, PTE_P }, R, 0, 0, 0, 0, false },
	{ "PDE not present", L4_4K, 0, 46, {0}, { 0, 0, PTE_P }, W, 0, PFEC_W, 0, 0, false },
	{ "PTE not present", L4_4K, E_NXE, 46, {0}, { 0, 0, 0, PTE_P }, X, U, PFEC_U | PFEC_I, 0, 0, false },
	{ "not present wins over reserved bits below", L4_4K, 0, 46, { 0, 0, 0, B(50) }, { 0, 0, PTE_P },
	  R, 0, 0, 0, 0, false },
	{ "reserved bits in a not-present entry are not checked", L4_4K, 0, 46, { 0, 0, 0, B(50) },
	  { 0, 0, 0, PTE_P }, R, 0, 0, 0, 0, false },

	/* -- reserved bits per level (4.4.2 Tables 4-8..4-11, 4.5 Tables 4-14..4-20) -- */
	{ "PAE PDE bit 36 (M=36) reserved", PAE_4K, 0, 36, { 0, B(36) }, {0}, R, 0, PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "PAE PTE bit 62 reserved", PAE_4K, 0, 36, { 0, 0, B(62) }, {0}, W, U,
	  PFEC_P | PFEC_W | PFEC_U | PFEC_RSVD, 0, 0, false },
	{ "PAE PTE bit 52 reserved (PAE: all of 62:M)", PAE_4K, 0, 36, { 0, 0, B(52) }, {0}, R, 0,
	  PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "PAE PTE bit 35 is an address bit (M=36)", PAE_4K, 0, 36, {0}, {0}, R, 0, -1, B(35) | 0x7000, 0, false },
	{ "PAE PTE XD with NXE=0 reserved", PAE_4K, 0, 36, { 0, 0, PTE_XD }, {0}, R, 0,
	  PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "PAE PTE XD with NXE=0, fetch: RSVD without I/D", PAE_4K, 0, 36, { 0, 0, PTE_XD }, {0}, X, 0,
	  PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "PAE PDE XD with NXE=1, read allowed", PAE_4K, E_NXE, 36, { 0, PTE_XD }, {0}, R, 0, -1, 0, 0, false },
	{ "PAE 2M PDE bit 13 reserved", PAE_2M, 0, 36, { 0, B(13) }, {0}, R, 0, PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "PAE 2M PDE bit 20 reserved", PAE_2M, 0, 36, { 0, B(20) }, {0}, R, 0, PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "PAE 2M PDE bit 12 (PAT) not reserved", PAE_2M, 0, 36, { 0, B(12) }, {0}, R, 0, -1, 0, 0, false },
	{ "PAE RSVD fault with NXE fetch sets I/D", PAE_4K, E_NXE, 36, { 0, 0, B(40) }, {0}, X, U,
	  PFEC_P | PFEC_U | PFEC_RSVD | PFEC_I, 0, 0, false },
	{ "PML5E PS reserved", L5_4K, 0, 52, { PTE_PS }, {0}, R, 0, PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "PML4E PS reserved", L4_4K, 0, 46, { PTE_PS }, {0}, R, 0, PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "PML4E bit 46 (M=46) reserved", L4_4K, 0, 46, { B(46) }, {0}, R, 0, PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "PML4E bit 51 reserved", L4_4K, 0, 46, { B(51) }, {0}, R, 0, PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "PDPTE bit 46 reserved", L4_4K, 0, 46, { 0, B(46) }, {0}, R, 0, PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "PDE bit 47 reserved", L4_4K, 0, 46, { 0, 0, B(47) }, {0}, R, 0, PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "PTE bit 50 reserved", L4_4K, 0, 46, { 0, 0, 0, B(50) }, {0}, R, 0, PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "PTE XD with NXE=0 reserved (4-level)", L4_4K, 0, 46, { 0, 0, 0, PTE_XD }, {0}, R, 0,
	  PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "4-level PTE bits 52 and 62 ignored", L4_4K, 0, 46, { 0, 0, 0, B(52) | B(62) }, {0}, R, 0, -1, 0, 0, false },
	{ "4-level PML4E bits 52..62 ignored", L4_4K, 0, 46, { 0x7ffull << 52 }, {0}, R, 0, -1, 0, 0, false },
	/* APM2 5.3.3 Figure 5-18: PML4E bit 8 is MBZ on AMD; SDM Table 4-15: Intel
	 * ignores it; a PDPTE's bit 8 is ignored by both. */
	{ "AMD: PML4E bit 8 reserved", L4_4K, E_AMD, 46, { PTE_G }, {0}, R, 0, PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "AMD: PML5E bit 8 reserved", L5_4K, E_AMD, 46, { PTE_G }, {0}, R, 0, PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "Intel: PML4E bit 8 ignored", L4_4K, 0, 46, { PTE_G }, {0}, R, 0, -1, 0, 0, false },
	{ "AMD: non-leaf PDPTE bit 8 ignored", L4_4K, E_AMD, 46, { 0, PTE_G }, {0}, R, 0, -1, 0, 0, false },
	{ "1G PDPTE without 1G pages: PS reserved", L4_1G, 0, 46, {0}, {0}, R, 0, PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "1G PDPTE bit 13 reserved", L4_1G, E_1G, 46, { 0, B(13) }, {0}, R, 0, PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "1G PDPTE bit 29 reserved", L4_1G, E_1G, 46, { 0, B(29) }, {0}, R, 0, PFEC_P | PFEC_RSVD, 0, 0, false },
	{ "1G PDPTE bit 12 (PAT) not reserved", L4_1G, E_1G, 46, { 0, B(12) }, {0}, R, 0, -1, 0, 0, false },
	{ "2M PDE bit 20 reserved (4-level)", L4_2M, 0, 46, { 0, 0, B(20) }, {0}, W, 0,
	  PFEC_P | PFEC_W | PFEC_RSVD, 0, 0, false },

	/* -- rights (4.6.1) -- */
	{ "user read of a supervisor PDE", L4_4K, 0, 46, {0}, { 0, 0, PTE_US }, R, U, PFEC_P | PFEC_U, 0, 0, false },
	{ "user write, read-only PML4E", L4_4K, 0, 46, {0}, { PTE_RW }, W, U,
	  PFEC_P | PFEC_W | PFEC_U, 0, 0, false },
	{ "supervisor write, read-only PTE, WP=0", L4_4K, 0, 46, {0}, { 0, 0, 0, PTE_RW }, W, 0, -1, 0, 0, false },
	{ "supervisor write, read-only PTE, WP=1", L4_4K, E_WP, 46, {0}, { 0, 0, 0, PTE_RW }, W, 0,
	  PFEC_P | PFEC_W, 0, 0, false },
	{ "supervisor write to a read-only user page, WP=0", S32_4K, 0, 0, {0}, { 0, PTE_RW }, W, 0, -1, 0, 0, false },
	{ "implicit write, read-only page, WP=1", S32_4K, E_WP, 0, {0}, { PTE_RW }, W, IMPL,
	  PFEC_P | PFEC_W, 0, 0, false },
	{ "NX: fetch from XD PML4E", L4_4K, E_NXE, 46, { PTE_XD }, {0}, X, 0, PFEC_P | PFEC_I, 0, 0, false },
	{ "NX: user fetch from XD 2M page", L4_2M, E_NXE, 46, { 0, 0, PTE_XD }, {0}, X, U,
	  PFEC_P | PFEC_U | PFEC_I, 0, 0, false },
	{ "NX: fetch allowed without XD", L4_4K, E_NXE, 46, {0}, {0}, X, U, -1, 0, 0, false },
	{ "SMEP: supervisor fetch from a user page", L4_4K, E_SMEP, 46, {0}, {0}, X, 0, PFEC_P | PFEC_I, 0, 0, false },
	{ "SMEP: supervisor fetch, one level supervisor -> allowed", L4_4K, E_SMEP, 46, {0}, { 0, PTE_US },
	  X, 0, -1, 0, 0, false },
	{ "SMEP: user fetch from a user page allowed", L4_4K, E_SMEP, 46, {0}, {0}, X, U, -1, 0, 0, false },
	{ "SMAP: supervisor read of a user page, AC=0", L4_4K, E_SMAP, 46, {0}, {0}, R, 0, PFEC_P, 0, 0, false },
	{ "SMAP: supervisor read of a user page, AC=1", L4_4K, E_SMAP | E_AC, 46, {0}, {0}, R, 0, -1, 0, 0, false },
	{ "SMAP: implicit read of a user page, AC=1", L4_4K, E_SMAP | E_AC, 46, {0}, {0}, R, IMPL, PFEC_P, 0, 0, false },
	{ "SMAP: implicit write of a user page, AC=0", PAE_4K, E_SMAP, 36, {0}, {0}, W, IMPL,
	  PFEC_P | PFEC_W, 0, 0, false },
	{ "SMAP: AC=1 write to read-only user page, WP=1", L4_4K, E_SMAP | E_AC | E_WP, 46, {0},
	  { 0, 0, 0, PTE_RW }, W, 0, PFEC_P | PFEC_W, 0, 0, false },
	{ "SMAP: AC=1 write to read-only user page, WP=0", L4_4K, E_SMAP | E_AC, 46, {0},
	  { 0, 0, 0, PTE_RW }, W, 0, -1, 0, 0, false },
	{ "SMAP: supervisor fetch from a user page not affected", L4_4K, E_SMAP, 46, {0}, {0}, X, 0, -1, 0, 0, false },
	{ "SMAP: supervisor page read, AC=0", L4_4K, E_SMAP, 46, {0}, { 0, 0, 0, PTE_US }, R, 0, -1, 0, 0, false },
	{ "SMAP: user read of a user page", L4_4K, E_SMAP, 46, {0}, {0}, R, U, -1, 0, 0, false },

	/* -- global (4.10.2.4) -- */
	{ "G=1 leaf with PGE", L4_4K, E_PGE, 46, { 0, 0, 0, PTE_G }, {0}, R, 0, -1, 0, 0, true },
	{ "G=1 leaf without PGE", L4_4K, 0, 46, { 0, 0, 0, PTE_G }, {0}, R, 0, -1, 0, 0, false },
	{ "G=1 in a non-leaf PDE only", S32_4K, E_PGE, 0, { PTE_G }, {0}, R, 0, -1, 0, 0, false },
	{ "G=1 4M page with PGE", S32_4M, E_PSE | E_PGE, 0, { PTE_G }, {0}, R, 0, -1, 0, 0, true },
	{ "G=1 PAE 2M page with PGE", PAE_2M, E_PGE, 36, { 0, PTE_G }, {0}, R, 0, -1, 0, 0, true },
	{ "G=1 1G page with PGE", L4_1G, E_1G | E_PGE, 46, { 0, PTE_G }, {0}, W, U, -1, 0, 0, true },
};

static const char *kind_str(enum walk_kind k) { return k == WALK_READ ? "read" : k == WALK_WRITE ? "write" : "fetch"; }

/* (case, variant) pairs: every case directly and through a port; as nested
 * tables the cases of user accesses whose outcome does not depend on SMEP. */
struct run { unsigned c; enum variant v; };
static struct run runs[VARIANTS * (sizeof cases / sizeof cases[0])];
static unsigned n_runs;

static void table_runs(void)
{
	for (unsigned v = 0; v < VARIANTS; v++)
		for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++)
			if (v != V_NPT || (cases[i].flags == WALK_USER && !(cases[i].env & E_SMEP)))
				runs[n_runs++] = (struct run){ i, (enum variant)v };
}

/* Entries the walker must have read from memory for shape sh (the PAE PDPTE
 * comes from a register unless the walk is nested) and on success written. */
static unsigned entries_read(const struct shape_info *sh, unsigned upto, enum variant v)
{
	return upto + 1 - (sh->mode == PAGING_PAE && v != V_NPT ? 1 : 0);
}

START_TEST(table_case)
{
	const struct pcase *c = &cases[runs[_i].c];
	enum variant v = runs[_i].v;
	const char *vn = variant_names[v];
	const struct shape_info *sh = &shapes[c->shape];
	fixture_init(&fx, sh->mode, c->env, c->maxphy);
	uint64_t frame = c->frame ? c->frame : page_size_of(sh);
	build(&fx, sh, c->set, c->clear, frame);
	fixture_variant(&fx, v);
	struct walk_result r;
	struct fault f;
	bool ok = paging_walk(&fx.env, sh->lin, c->kind, c->flags, &r, &f);
	if (c->err >= 0) {
		ck_assert_msg(!ok, "%s (%s): walk succeeded (pa 0x%llx), want #PF 0x%x", c->name, vn,
			      (unsigned long long)r.pa, c->err);
		if (v == V_NPT) {
			/* A nested fault: the #PF-style code of EXITINFO1 (APM2 15.25.6). */
			ck_assert_msg(f.stage == FAULT_STAGE2 && !f.nested.ept && f.nested.gpa == sh->lin &&
				      f.nested.rsvd == !!(c->err & PFEC_RSVD),
				      "%s (NPT): stage %u gpa 0x%llx rsvd %d", c->name, f.stage,
				      (unsigned long long)f.nested.gpa, f.nested.rsvd);
		} else {
			ck_assert_msg(f.stage == FAULT_STAGE1 && f.vector == EXC_PF && f.has_error,
				      "%s (%s): vector %u", c->name, vn, f.vector);
			ck_assert_msg(f.address == sh->lin, "%s: fault address 0x%llx", c->name,
				      (unsigned long long)f.address);
		}
		ck_assert_msg(f.error_code == (uint32_t)c->err, "%s (%s): error code 0x%x, want 0x%x", c->name,
			      vn, f.error_code, c->err);
		if (v == V_PORT)
			ck_assert_msg(cport.writes == 0 && cport.reads <= entries_read(sh, sh->leaf, v),
				      "%s (port): %u reads, %u writes", c->name, cport.reads, cport.writes);
		/* SDM 4.8: no entry is marked accessed by a walk that faults. */
		for (unsigned l = 0; l <= sh->leaf; l++)
			ck_assert_msg(entry_now(l) == fx.entry_val[l], "%s: level %u entry changed 0x%llx -> 0x%llx",
				      c->name, l, (unsigned long long)fx.entry_val[l],
				      (unsigned long long)entry_now(l));
		return;
	}
	ck_assert_msg(ok, "%s (%s): #PF 0x%x, want success", c->name, vn, f.error_code);
	uint64_t want_pa = c->pa ? c->pa : frame | (sh->lin & (page_size_of(sh) - 1));
	/* With PS ignored (CR4.PSE=0) the 32-bit PDE references a table: 4 KiB. */
	ck_assert_msg(r.pa == want_pa, "%s: pa 0x%llx, want 0x%llx", c->name, (unsigned long long)r.pa,
		      (unsigned long long)want_pa);
	ck_assert_msg(r.page_size == page_size_of(sh), "%s: page size 0x%llx", c->name,
		      (unsigned long long)r.page_size);
	ck_assert_msg(r.global == c->global, "%s: global %d", c->name, r.global);
	/* SDM 4.8: A in every entry used (not the PAE PDPTE, which has none), D in
	 * the leaf for a write; nothing else changes. */
	unsigned changed = 0;
	for (unsigned l = 0; l <= sh->leaf; l++) {
		uint64_t want = fx.entry_val[l];
		if (!(sh->mode == PAGING_PAE && l == 0))
			want |= PTE_A;
		if (l == sh->leaf && c->kind == WALK_WRITE)
			want |= PTE_D;
		changed += want != fx.entry_val[l];
		ck_assert_msg(entry_now(l) == want, "%s (%s): level %u entry 0x%llx, want 0x%llx", c->name,
			      vn, l, (unsigned long long)entry_now(l), (unsigned long long)want);
	}
	ck_assert_msg(r.levels == sh->leaf + 1, "%s: levels %u", c->name, r.levels);
	if (v == V_PORT)
		ck_assert_msg(cport.reads == entries_read(sh, sh->leaf, v) && cport.writes == changed,
			      "%s (port): %u reads, %u writes, want %u, %u", c->name, cport.reads,
			      cport.writes, entries_read(sh, sh->leaf, v), changed);
}
END_TEST

/* ---- A/D details (4.8) ---- */

START_TEST(ad_read_then_write)
{
	const struct shape_info *sh = &shapes[L4_4K];
	fixture_init(&fx, sh->mode, 0, 46);
	build(&fx, sh, NULL, NULL, 0x7000);
	struct walk_result r;
	struct fault f;
	ck_assert(paging_walk(&fx.env, sh->lin, WALK_READ, 0, &r, &f));
	for (unsigned l = 0; l < 4; l++)
		ck_assert_uint_eq(entry_now(l) & (PTE_A | PTE_D), PTE_A);
	/* A read leaves D clear, so a TLB may not cache the write permission. */
	ck_assert(r.can_read && !r.can_write && r.can_exec);
	ck_assert(paging_walk(&fx.env, sh->lin, WALK_WRITE, 0, &r, &f));
	ck_assert_uint_eq(entry_now(3) & (PTE_A | PTE_D), PTE_A | PTE_D);
	for (unsigned l = 0; l < 3; l++)
		ck_assert_uint_eq(entry_now(l) & PTE_D, 0);   /* bit 6 ignored in non-leaf entries */
	ck_assert(r.can_write);
}
END_TEST

START_TEST(ad_already_set_not_rewritten)
{
	/* Entries that already have A (and D) are not written: an MMIO-free table
	 * keeps its bytes, and D stays set after a later read. */
	const struct shape_info *sh = &shapes[PAE_2M];
	uint64_t set[5] = { 0, PTE_A | PTE_D };
	fixture_init(&fx, sh->mode, 0, 36);
	build(&fx, sh, set, NULL, 0x200000);
	struct walk_result r;
	struct fault f;
	ck_assert(paging_walk(&fx.env, sh->lin, WALK_READ, 0, &r, &f));
	ck_assert_uint_eq(entry_now(1), fx.entry_val[1]);
	ck_assert(r.can_write);
}
END_TEST

START_TEST(ad_fault_at_leaf_leaves_upper_levels)
{
	/* A rights fault decided at the leaf: no level gets A (SDM 4.8 sets A only
	 * for entries of a translation that is used). */
	const struct shape_info *sh = &shapes[L5_4K];
	uint64_t clear[5] = { 0, 0, 0, 0, PTE_RW };
	fixture_init(&fx, sh->mode, E_WP, 52);
	build(&fx, sh, NULL, clear, 0x7000);
	struct walk_result r;
	struct fault f;
	ck_assert(!paging_walk(&fx.env, sh->lin, WALK_WRITE, 0, &r, &f));
	ck_assert_uint_eq(f.error_code, PFEC_P | PFEC_W);
	for (unsigned l = 0; l < 5; l++)
		ck_assert_uint_eq(entry_now(l), fx.entry_val[l]);
	ck_assert_uint_eq(r.levels, 5);    /* every entry reported for --trace pf */
}
END_TEST

/* ---- PAE PDPTE load (4.4.1) ---- */

START_TEST(pdpte_load_reserved)
{
	fixture_init(&fx, PAGING_PAE, 0, 36);
	/* SDM 4.4.1 Table 4-8: bits 2:1, 8:5, 63:M of a present PDPTE are reserved. */
	const unsigned bad[] = { 1, 2, 5, 6, 7, 8, 36, 51, 62, 63 };
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(fx.mem.ram, 0, RAM_SIZE);
		uint64_t regs[4] = { 0x11, 0x22, 0x33, 0x44 };
		physmem_write(&fx.mem, PDPT_PA + 8, 8, 0x2000 | PTE_P | B(bad[i]));
		ck_assert_msg(!paging_load_pdptes(&fx.mem, PDPT_PA, 36, regs), "bit %u", bad[i]);
		ck_assert_msg(regs[0] == 0x11 && regs[1] == 0x22 && regs[3] == 0x44,
			      "bit %u: registers changed by a failed load", bad[i]);
	}
	/* Allowed: P, PWT, PCD, bits 11:9, address bits below M; and anything in a
	 * not-present PDPTE. */
	uint64_t regs[4];
	memset(fx.mem.ram, 0, RAM_SIZE);
	physmem_write(&fx.mem, PDPT_PA, 8, 0x2000 | PTE_P | PTE_PWT | PTE_PCD | (7ull << 9) | B(35));
	physmem_write(&fx.mem, PDPT_PA + 8, 8, ~1ull);
	ck_assert(paging_load_pdptes(&fx.mem, PDPT_PA, 36, regs));
	ck_assert_uint_eq(regs[0], 0x2000 | PTE_P | PTE_PWT | PTE_PCD | (7ull << 9) | B(35));
	ck_assert_uint_eq(regs[1], ~1ull);
	/* M = 40: bit 36 becomes an address bit. */
	physmem_write(&fx.mem, PDPT_PA + 16, 8, 0x2000 | PTE_P | B(36));
	ck_assert(paging_load_pdptes(&fx.mem, PDPT_PA, 40, regs));
	/* CR3[31:5] locates the table: a 32-byte aligned, not page-aligned PDPT. */
	memset(fx.mem.ram, 0, RAM_SIZE);
	physmem_write(&fx.mem, 0x1fe0 + 24, 8, 0x5000 | PTE_P);
	ck_assert(paging_load_pdptes(&fx.mem, 0x1fe0 | 0x1f, 36, regs));
	ck_assert_uint_eq(regs[3], 0x5000 | PTE_P);
}
END_TEST

START_TEST(pdpte_registers_not_memory)
{
	/* The walk uses the PDPTE registers, not the PDPT in memory (SDM 4.4.1). */
	const struct shape_info *sh = &shapes[PAE_4K];
	fixture_init(&fx, sh->mode, 0, 36);
	build(&fx, sh, NULL, NULL, 0x7000);
	physmem_write(&fx.mem, fx.entry_addr[0], 8, 0);   /* memory says not present */
	struct walk_result r;
	struct fault f;
	ck_assert(paging_walk(&fx.env, sh->lin, WALK_READ, 0, &r, &f));
	ck_assert_uint_eq(r.pa, 0x7000 | (sh->lin & 0xfff));
	fx.pdpte[3] = 0;                                   /* register says not present */
	physmem_write(&fx.mem, fx.entry_addr[0], 8, fx.entry_val[0]);
	ck_assert(!paging_walk(&fx.env, sh->lin, WALK_READ, 0, &r, &f));
	ck_assert_uint_eq(f.error_code, 0);
}
END_TEST

/* ---- exhaustive rights sweep against SDM 4.6.1 / 4.7 ---- */

/* The SDM's rules, written out independently of the walker: returns the #PF
 * error code, or -1 when allowed. u/w: U/S and R/W ANDed over all levels;
 * xd: XD set at some level. */
static int sdm_rights(enum paging_mode mode, unsigned env, bool u, bool w, bool xd,
		      enum walk_kind kind, unsigned flags)
{
	bool user = flags & WALK_USER, implicit = flags & WALK_IMPLICIT;
	bool nx = (env & E_NXE) && mode != PAGING_32;
	bool fault;
	if (user) {
		/* 4.6.1 user-mode access: user-mode pages only; writes need R/W=1;
		 * fetches need XD=0 when NXE. */
		fault = !u || (kind == WALK_WRITE && !w) || (kind == WALK_EXEC && nx && xd);
	} else if (kind == WALK_EXEC) {
		/* supervisor fetch: XD=0 when NXE; not from user pages with SMEP. */
		fault = (nx && xd) || ((env & E_SMEP) && u);
	} else {
		/* supervisor data: SMAP blocks user pages for implicit accesses and for
		 * explicit ones with AC=0; writes need R/W=1 when CR0.WP=1. */
		fault = (u && (env & E_SMAP) && (implicit || !(env & E_AC))) ||
			(kind == WALK_WRITE && !w && (env & E_WP));
	}
	if (!fault)
		return -1;
	int ec = PFEC_P;
	if (kind == WALK_WRITE)
		ec |= PFEC_W;
	if (user)
		ec |= PFEC_U;
	/* 4.7: I/D for fetches with SMEP, or with PAE/4-level paging and NXE. */
	if (kind == WALK_EXEC && ((env & E_SMEP) || nx))
		ec |= PFEC_I;
	return ec;
}

static const enum shape sweep_shapes[] = { S32_4K, S32_4M, PAE_4K, PAE_2M, L4_4K, L4_1G, L5_2M };

#define N_SWEEP (sizeof sweep_shapes / sizeof sweep_shapes[0])

/* _i < N_SWEEP: the CPU's walk; otherwise the same tables as nested tables,
 * where every access is a user access whatever the flags (APM2 15.25.5) and
 * only EFER.NXE of the environment counts. */
START_TEST(rights_sweep)
{
	const struct shape_info *sh = &shapes[sweep_shapes[_i % N_SWEEP]];
	enum variant v = _i < (int)N_SWEEP ? V_DIRECT : V_NPT;
	unsigned first = sh->mode == PAGING_PAE ? 1 : 0;  /* PAE PDPTEs carry no rights */
	unsigned nl = sh->leaf + 1 - first;
	bool has_xd = sh->mode != PAGING_32;
	unsigned checked = 0;
	static const unsigned flag_sets[] = { 0, WALK_USER, WALK_IMPLICIT };
	for (unsigned envbits = 0; envbits < 32; envbits++) {
		unsigned env = envbits | E_PSE | E_1G;          /* WP NXE SMEP SMAP AC */
		unsigned rule_env = v == V_NPT ? env & E_NXE : env;
		for (unsigned wmask = 0; wmask < (1u << nl); wmask++)
			for (unsigned umask = 0; umask < (1u << nl); umask++)
				for (unsigned xmask = 0; xmask < (has_xd ? (1u << nl) : 1u); xmask++) {
					uint64_t clear[5] = { 0 }, set[5] = { 0 };
					for (unsigned j = 0; j < nl; j++) {
						if (!(wmask >> j & 1))
							clear[first + j] |= PTE_RW;
						if (!(umask >> j & 1))
							clear[first + j] |= PTE_US;
						if (xmask >> j & 1)
							set[first + j] |= PTE_XD;
					}
					bool w = wmask == (1u << nl) - 1, u = umask == (1u << nl) - 1;
					bool xd = xmask != 0;
					for (unsigned fs = 0; fs < 3; fs++)
						for (int k = 0; k < 3; k++) {
							fixture_init(&fx, sh->mode, env, sh->mode >= PAGING_4LEVEL ? 46 : 36);
							build(&fx, sh, set, clear, page_size_of(sh));
							fixture_variant(&fx, v);
							unsigned rule_flags = v == V_NPT ? WALK_USER : flag_sets[fs];
							int want = sdm_rights(sh->mode, rule_env, u, w, xd, (enum walk_kind)k,
									      rule_flags);
							/* XD with NXE=0 is a reserved bit (4.4.2, 4.5). */
							if (xd && !(env & E_NXE))
								want = PFEC_P | PFEC_RSVD |
								       (k == WALK_WRITE ? PFEC_W : 0) |
								       (rule_flags & WALK_USER ? PFEC_U : 0) |
								       (k == WALK_EXEC && (rule_env & E_SMEP) ? PFEC_I : 0);
							struct walk_result r;
							struct fault f;
							bool ok = paging_walk(&fx.env, sh->lin, (enum walk_kind)k,
									      flag_sets[fs], &r, &f);
							int got = ok ? -1 : (int)f.error_code;
							/* ck_assert costs a pipe write per call in fork
							 * mode: assert only on a mismatch. */
							if (got != want)
								ck_abort_msg("%s (%s) env=0x%x W=%x U=%x XD=%x flags=%u %s: got %d want %d",
									     sh->name, variant_names[v], env, wmask, umask,
									     xmask, flag_sets[fs],
									     kind_str((enum walk_kind)k), got, want);
							for (unsigned l = 0; !ok && l <= sh->leaf; l++)
								if (entry_now(l) != fx.entry_val[l])
									ck_abort_msg("%s: faulting walk changed level %u",
										     sh->name, l);
							checked++;
						}
				}
	}
	ck_assert_uint_gt(checked, 0);
}
END_TEST

/* ---- every bit position of every entry on the path ---- */

/* Is bit b reserved in the level-l entry of shape sh? Written from the SDM's
 * entry-format tables: 4.3 Tables 4-4..4-6 (32-bit), 4.4.2 Tables 4-9..4-11
 * (PAE), 4.5 Tables 4-15..4-20 (4-/5-level). */
static bool sdm_reserved(const struct shape_info *sh, unsigned l, unsigned b, bool nxe, unsigned m)
{
	bool leaf = l == sh->leaf, large = leaf && l + 1 < sh->levels;
	/* PAE PDPTE (4.4.1 Table 4-8): 2:1, 8:5 and 63:M, whatever NXE. */
	if (sh->mode == PAGING_PAE && l == 0)
		return (b >= 1 && b <= 2) || (b >= 5 && b <= 8) || b >= m;
	if (sh->mode == PAGING_32) {
		/* 4 MiB PDE: bit 21 and bits 20:(M-19) (PSE-36 gives 39:32 at most). */
		unsigned m40 = m < 40 ? m : 40;
		return large && (b == 21 || (b >= m40 - 19 && b <= 20 && m40 < 40));
	}
	if (b == 63)
		return !nxe;
	unsigned top = sh->mode == PAGING_PAE ? 62 : 51;     /* PAE: 62:M; 4-level: 51:M */
	if (b >= m && b <= top)
		return true;
	if (large && b >= 13 && b < level_shift(sh->mode, sh->levels, l))
		return true;                                 /* 2M: 20:13, 1G: 29:13 */
	/* PS is reserved in a PML5E and a PML4E. */
	if (b == 7 && sh->mode >= PAGING_4LEVEL && sh->levels - l >= 4)
		return true;
	return false;
}

/* Bits that change the walk's shape or where it reads: P, PS in a non-leaf
 * entry that could map a page (it would become the leaf), and the
 * table-address bits of a non-leaf entry. */
static bool structural_bit(const struct shape_info *sh, unsigned l, unsigned b, unsigned m)
{
	bool leaf = l == sh->leaf;
	bool ps_reserved = sh->mode >= PAGING_4LEVEL && sh->levels - l >= 4;   /* PML5E, PML4E */
	unsigned addr_top = sh->mode == PAGING_32 ? 31 : m - 1;
	if (b == 0)
		return true;
	if (sh->mode == PAGING_PAE && l == 0)
		return b >= 12 && b <= addr_top;              /* a PDPTE never maps a page */
	if (b == 7)
		return !leaf && !ps_reserved;
	return !leaf && b >= 12 && b <= addr_top;
}

/* _i < SHAPES: the CPU's walk (PAE PDPTEs are checked when loaded:
 * pdpte_load_reserved); otherwise as nested tables, whose PAE PDPTEs are read
 * and checked on every walk, and whose faults carry US (user access). */
START_TEST(reserved_every_bit)
{
	const struct shape_info *sh = &shapes[_i % SHAPES];
	enum variant v = _i < SHAPES ? V_DIRECT : V_NPT;
	unsigned m = sh->mode >= PAGING_4LEVEL ? 46 : 36;
	unsigned first = sh->mode == PAGING_PAE && v == V_DIRECT ? 1 : 0;
	uint32_t rsvd_code = PFEC_P | PFEC_RSVD | (v == V_NPT ? PFEC_U : 0);
	unsigned width = sh->mode == PAGING_32 ? 32 : 64, checked = 0;
	for (int nxe = 0; nxe < 2; nxe++)
		for (unsigned l = first; l <= sh->leaf; l++)
			for (unsigned b = 0; b < width; b++) {
				if (structural_bit(sh, l, b, m))
					continue;
				uint64_t set[5] = { 0 };
				set[l] = 1ull << b;
				fixture_init(&fx, sh->mode, (nxe ? E_NXE : 0) | E_PSE | E_1G, m);
				fixture_variant(&fx, v);
				build(&fx, sh, set, NULL, page_size_of(sh));
				struct walk_result r;
				struct fault f;
				bool ok = paging_walk(&fx.env, sh->lin, WALK_READ, 0, &r, &f);
				bool want_rsvd = sdm_reserved(sh, l, b, nxe, m);
				if (ok == want_rsvd || (!ok && f.error_code != (want_rsvd ? rsvd_code : 0)))
					ck_abort_msg("%s (%s) NXE=%d level %u bit %u: %s (error 0x%x), want %s",
						     sh->name, variant_names[v], nxe, l, b,
						     ok ? "translated" : "a fault", ok ? 0 : f.error_code,
						     want_rsvd ? "P|RSVD" : "a translation");
				checked++;
			}
	ck_assert_uint_gt(checked, 0);
}
END_TEST

static Suite *paging_suite(void)
{
	Suite *s = suite_create("paging");
	TCase *tc = tcase_create("cases");
	tcase_add_checked_fixture(tc, setup, teardown);
	table_runs();
	tcase_add_loop_test(tc, table_case, 0, (int)n_runs);
	suite_add_tcase(s, tc);
	tc = tcase_create("accessed_dirty");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ad_read_then_write);
	tcase_add_test(tc, ad_already_set_not_rewritten);
	tcase_add_test(tc, ad_fault_at_leaf_leaves_upper_levels);
	suite_add_tcase(s, tc);
	tc = tcase_create("pae_pdpte");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pdpte_load_reserved);
	tcase_add_test(tc, pdpte_registers_not_memory);
	suite_add_tcase(s, tc);
	tc = tcase_create("reserved_every_bit");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, reserved_every_bit, 0, 2 * SHAPES);
	suite_add_tcase(s, tc);
	tc = tcase_create("rights_sweep");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, rights_sweep, 0, 2 * N_SWEEP);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(paging_suite());
}
