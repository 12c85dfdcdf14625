/* Check suite for PCIDs in the software TLB (mmu/tlb.h) and the instructions
 * that drive it (emu/control_regs.c: MOV CR3, MOV CR4, INVLPG, INVPCID).
 *
 * hvemu's default TLB keeps a translation exactly as long as the SDM lets a
 * processor keep it, so a missing invalidation shows: each case caches a
 * translation, changes the PTE behind it without invalidating, runs the
 * operation under test and reads again. The old frame's marker means the
 * translation survived, the new one's that it was invalidated. Where the SDM
 * says "may", the case expects what the model does (kept) and says so.
 *
 * The machine: skylake-lite in 64-bit mode, CPL 0. The first GiB is identity
 * mapped with 2 MiB pages; linear TEST_LIN.. goes through a page table of 4 KiB
 * pages (PDPTE 1, PDE 0) whose entries the cases change. Frame k holds the
 * marker MARKER(k). */
#include <string.h>

#include "emu/operand.h"
#include "machine_fixture.h"
#include "suite_runner.h"

/* Besides the fixture's GDT and identity tables (machine_fixture.h): */
#define DESC      0x2000        /* INVPCID descriptor */
#define PD_T      0x13000       /* test area: PDE 0 -> PT_T, PDE 1 a 2 MiB page */
#define PT_T      0x14000
#define PML5      0x15000       /* only for the 5-level case */
#define FRAMES    0x100000      /* frame k at FRAMES + k * 4 KiB */
#define TEST_LIN  0x40000000ull
#define BIG_LIN   (TEST_LIN + (2ull << 20))   /* the 2 MiB page of PD_T[1] */
#define MARKER(k) (0xcafe0000u | (k))

#define PTE_W PTE_RW            /* mmu/paging.h names the rest */
#define CR3_NOFLUSH (1ull << 63)

static struct test_machine m;

static uint64_t t_lin(unsigned i) { return TEST_LIN + ((uint64_t)i << 12); }

/* PTE i of the test table -> frame k (no invalidation). */
static void map(unsigned i, unsigned k, uint64_t extra)
{
	physmem_write(&m.pm, PT_T + i * 8, 8, (FRAMES + ((uint64_t)k << 12)) | PTE_P | PTE_W | extra);
}

/* The 2 MiB page at BIG_LIN -> physical 2 MiB page n (no invalidation). */
static void map_big(unsigned n)
{
	physmem_write(&m.pm, PD_T + 8, 8, ((uint64_t)n << 21) | PTE_P | PTE_W | PTE_PS);
}

static void set_cr3(uint64_t v) { ck_assert_int_eq(mov_cr(&m, 3, v), ST_OK); }
static void set_cr4(uint64_t v) { ck_assert_int_eq(mov_cr(&m, 4, v), ST_OK); }

/* invpcid (%rax), %rcx with the descriptor {pcid, lin} at DESC. */
static status_t invpcid(uint64_t type, uint64_t desc_lo, uint64_t lin)
{
	physmem_write(&m.pm, DESC, 8, desc_lo);
	physmem_write(&m.pm, DESC + 8, 8, lin);
	m.cpu.regs[R_AX] = DESC;
	m.cpu.regs[R_CX] = type;
	return EXEC(&m, 0x66, 0x0f, 0x38, 0x82, 0x08);
}

static uint32_t rd(uint64_t lin)
{
	uint64_t v = 0;
	ck_assert_int_eq(mem_read(&m.cpu, SR_DS, lin, 4, &v), ST_OK);
	return (uint32_t)v;
}

/* The context table (mmu/tlb.h): live pairs have distinct ids below next_id,
 * the current ids are those of the current (space, PCID) and its globals, and
 * no tag carries an id that was never given out. */
static void assert_tlb_consistent(void)
{
	const struct tlb *t = &m.cpu.tlb;
	for (unsigned a = 0; a < TLB_CONTEXTS; a++) {
		if (!t->ctx[a].id)
			continue;
		ck_assert_uint_ge(t->ctx[a].id, TLB_FIRST_ID);
		ck_assert_uint_lt(t->ctx[a].id, t->next_id);
		for (unsigned b = a + 1; b < TLB_CONTEXTS; b++)
			ck_assert(t->ctx[a].id != t->ctx[b].id || !t->ctx[b].id);
	}
	const struct tlb_context *cur = tlb_context_of((struct tlb *)t, t->space, t->pcid);
	const struct tlb_context *glob = tlb_context_of((struct tlb *)t, t->space, TLB_GLOBAL);
	ck_assert(cur && cur->id == t->cur);
	ck_assert(glob && glob->id == t->cur_global);
	ck_assert_uint_eq(t->pcid, (m.cpu.cr4 & CR4_PCIDE) ? (m.cpu.cr3 & 0xfff) : 0);
	for (unsigned s = 0; s < TLB_SLOTS; s++)
		for (unsigned k = 0; k < TLB_ACCESS_KINDS; k++) {
			uint64_t id = t->e[s].tag[k] & TLB_ID_MASK;
			ck_assert(id == TLB_TAG_INVALID || (id >= TLB_FIRST_ID && id < t->next_id));
		}
}

/* Entries the current context can use. */
static unsigned live_entries(void)
{
	const struct tlb *t = &m.cpu.tlb;
	unsigned n = 0;
	for (unsigned s = 0; s < TLB_SLOTS; s++) {
		uint64_t id = t->e[s].tag[TLB_READ] & TLB_ID_MASK;
		n += id == t->cur || id == t->cur_global;
	}
	return n;
}

/* 64-bit mode, CR4.PAE|PGE|PCIDE, CR3 = PML4 with PCID 1. */
static void setup(void)
{
	machine_init(&m, "skylake-lite");
	physmem_write(&m.pm, PDPT + 8, 8, PD_T | 3);
	physmem_write(&m.pm, PD_T, 8, PT_T | 3);
	for (unsigned k = 0; k < 16; k++)
		physmem_write(&m.pm, FRAMES + (k << 12), 4, MARKER(k));
	/* Words of the 2 MiB pages 0 and 1 at offsets 0 and 0x5000. */
	physmem_write(&m.pm, 0, 4, 0x0b160000);
	physmem_write(&m.pm, 1u << 21, 4, 0x0b160001);
	physmem_write(&m.pm, 0x5000, 4, 0x0b165000);
	physmem_write(&m.pm, (1u << 21) + 0x5000, 4, 0x0b165001);
	map_big(0);
	m.cpu.cr0 = CR0_PE | CR0_ET | CR0_PG;
	m.cpu.cr4 = CR4_PAE | CR4_PGE;
	m.cpu.efer = EFER_LME | EFER_LMA;
	m.cpu.cr3 = PML4;
	to64(&m);
	ck_assert_int_eq(m.cpu.mode, MODE_LONG64);
	tlb_flush_all(&m.cpu.tlb);
	set_cr4(CR4_PAE | CR4_PGE | CR4_PCIDE);
	set_cr3(PML4 | 1);
}

static void teardown(void)
{
	machine_free(&m);
}

/* SDM Vol.3 4.10.4.1 MOV to CR3: bit 63 set keeps the new PCID's translations
 * (here: the ones it had when it was left); bit 63 clear drops them. Another
 * PCID's translations are its own: PCID 2 walks afresh. */
START_TEST(switch_keeps_each_pcid)
{
	map(0, 0, 0);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(0));
	set_cr3(PML4 | 2 | CR3_NOFLUSH);
	map(0, 1, 0);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(1));       /* PCID 2: nothing cached */
	set_cr3(PML4 | 1 | CR3_NOFLUSH);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(0));       /* PCID 1's entry is back */
	assert_tlb_consistent();
	map(0, 2, 0);
	set_cr3(PML4 | 2 | CR3_NOFLUSH);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(1));       /* and PCID 2's */
	set_cr3(PML4 | 1);                                /* bit 63 clear */
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(2));
	/* CR3 does not store bit 63 (SDM Vol.3 4.10.4.1). */
	ck_assert_uint_eq(m.cpu.cr3, PML4 | 1);
	assert_tlb_consistent();
}
END_TEST

/* Same PCID: bit 63 set keeps, clear drops the non-global entries but not the
 * global ones (SDM Vol.3 4.10.4.1, 4.10.2.4). */
START_TEST(same_pcid)
{
	map(0, 0, 0);
	map(1, 3, PTE_G);
	(void)rd(t_lin(0));
	(void)rd(t_lin(1));
	map(0, 1, 0);
	map(1, 4, PTE_G);
	set_cr3(PML4 | 1 | CR3_NOFLUSH);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(0));
	set_cr3(PML4 | 1);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(1));
	ck_assert_uint_eq(rd(t_lin(1)), MARKER(3));
}
END_TEST

/* Bit 63 clear on a switch drops the target PCID's saved translations, and
 * only those (SDM Vol.3 4.10.4.1). */
START_TEST(switch_without_bit63)
{
	map(0, 0, 0);
	(void)rd(t_lin(0));                               /* PCID 1 */
	set_cr3(PML4 | 2);
	(void)rd(t_lin(0));                               /* PCID 2 */
	set_cr3(PML4 | 3);
	map(0, 1, 0);
	set_cr3(PML4 | 2);                                /* drops PCID 2's */
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(1));
	set_cr3(PML4 | 1 | CR3_NOFLUSH);                  /* PCID 1's stays */
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(0));
}
END_TEST

/* Global translations are used whatever the PCID (SDM Vol.3 4.10.2.4). */
START_TEST(global_across_pcids)
{
	map(1, 3, PTE_G);
	(void)rd(t_lin(1));
	map(1, 4, PTE_G);
	set_cr3(PML4 | 2);
	ck_assert_uint_eq(rd(t_lin(1)), MARKER(3));
	set_cr3(PML4 | 1);
	ck_assert_uint_eq(rd(t_lin(1)), MARKER(3));
	assert_tlb_consistent();
}
END_TEST

/* SDM Vol.3 4.10.4.1 INVLPG: the current PCID's entries for the page and the
 * global ones of every PCID; another PCID's non-global entry for the page may
 * stay (and does). */
START_TEST(invlpg_current_pcid_and_global)
{
	map(0, 0, 0);
	map(1, 3, PTE_G);
	(void)rd(t_lin(0));
	(void)rd(t_lin(1));
	set_cr3(PML4 | 2 | CR3_NOFLUSH);
	map(0, 1, 0);
	map(1, 4, PTE_G);
	m.cpu.regs[R_AX] = t_lin(0);
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x01, 0x38), ST_OK);  /* invlpg (%rax) */
	m.cpu.regs[R_AX] = t_lin(1);
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x01, 0x38), ST_OK);
	set_cr3(PML4 | 1 | CR3_NOFLUSH);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(0));
	ck_assert_uint_eq(rd(t_lin(1)), MARKER(4));
	m.cpu.regs[R_AX] = t_lin(0);
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x01, 0x38), ST_OK);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(1));
}
END_TEST

/* INVPCID type 0 (SDM Vol.2 INVPCID): the PCID's non-global translation of
 * one page; its other pages and the global translation of the page stay. */
START_TEST(invpcid_type0)
{
	map(0, 0, 0);
	map(2, 5, 0);
	map(1, 3, PTE_G);
	(void)rd(t_lin(0));
	(void)rd(t_lin(1));
	(void)rd(t_lin(2));
	set_cr3(PML4 | 2 | CR3_NOFLUSH);
	map(0, 1, 0);
	map(2, 6, 0);
	map(1, 4, PTE_G);
	ck_assert_int_eq(invpcid(0, 1, t_lin(0)), ST_OK);  /* PCID 1, not current */
	ck_assert_int_eq(invpcid(0, 1, t_lin(1)), ST_OK);
	set_cr3(PML4 | 1 | CR3_NOFLUSH);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(1));
	ck_assert_uint_eq(rd(t_lin(2)), MARKER(5));
	ck_assert_uint_eq(rd(t_lin(1)), MARKER(3));
	/* The current PCID: the page goes, the global entry of t_lin(1) stays. */
	ck_assert_int_eq(invpcid(0, 1, t_lin(2)), ST_OK);
	ck_assert_int_eq(invpcid(0, 1, t_lin(1)), ST_OK);
	ck_assert_uint_eq(rd(t_lin(2)), MARKER(6));
	ck_assert_uint_eq(rd(t_lin(1)), MARKER(3));
	assert_tlb_consistent();
}
END_TEST

/* INVPCID type 0 on a 2 MiB page drops all of it, in the live TLB and in a
 * saved context (SDM Vol.2 INVPCID footnote: every TLB entry for the page). */
START_TEST(invpcid_type0_large_page)
{
	(void)rd(BIG_LIN);
	(void)rd(BIG_LIN + 0x5000);
	map_big(1);
	ck_assert_int_eq(invpcid(0, 1, BIG_LIN + 0x1ff000), ST_OK);
	ck_assert_uint_eq(rd(BIG_LIN), 0x0b160001);
	ck_assert_uint_eq(rd(BIG_LIN + 0x5000), 0x0b165001);
	set_cr3(PML4 | 2 | CR3_NOFLUSH);
	map_big(0);
	ck_assert_int_eq(invpcid(0, 1, BIG_LIN + 0x7000), ST_OK);
	set_cr3(PML4 | 1 | CR3_NOFLUSH);
	ck_assert_uint_eq(rd(BIG_LIN), 0x0b160000);
	ck_assert_uint_eq(rd(BIG_LIN + 0x5000), 0x0b165000);
}
END_TEST

/* INVLPG of an address in a 2 MiB page drops the pieces cached for its other
 * 4 KiB pages too (SDM Vol.3 4.10.4.1: "all TLB entries for the page"), and
 * an INVLPG next to it (outside the page) drops none of them (mmu/tlb.h visits
 * only the sets of 4 KiB pages unless a large page may cover the address). */
START_TEST(invlpg_large_page)
{
	(void)rd(BIG_LIN);
	(void)rd(BIG_LIN + 0x5000);
	map_big(1);
	m.cpu.regs[R_AX] = BIG_LIN + (2ull << 20);              /* the next 2 MiB */
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x01, 0x38), ST_OK);
	ck_assert_uint_eq(rd(BIG_LIN + 0x5000), 0x0b165000);    /* kept */
	m.cpu.regs[R_AX] = BIG_LIN + 0x1ff000;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x01, 0x38), ST_OK);    /* invlpg (%rax) */
	ck_assert_uint_eq(rd(BIG_LIN), 0x0b160001);
	ck_assert_uint_eq(rd(BIG_LIN + 0x5000), 0x0b165001);
	assert_tlb_consistent();
}
END_TEST

/* INVPCID type 1: every non-global translation of one PCID, current or not;
 * other PCIDs and global translations stay. */
START_TEST(invpcid_type1)
{
	map(0, 0, 0);
	map(1, 3, PTE_G);
	(void)rd(t_lin(0));
	(void)rd(t_lin(1));
	set_cr3(PML4 | 2 | CR3_NOFLUSH);
	(void)rd(t_lin(0));
	map(0, 1, 0);
	map(1, 4, PTE_G);
	ck_assert_int_eq(invpcid(1, 1, 0), ST_OK);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(0));       /* PCID 2 keeps its own */
	set_cr3(PML4 | 1 | CR3_NOFLUSH);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(1));
	ck_assert_uint_eq(rd(t_lin(1)), MARKER(3));
	map(0, 2, 0);
	ck_assert_int_eq(invpcid(1, 1, 0), ST_OK);        /* the current PCID */
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(2));
	ck_assert_uint_eq(rd(t_lin(1)), MARKER(3));
}
END_TEST

/* INVPCID types 2 and 3: every PCID; type 2 global translations too. */
START_TEST(invpcid_types2_3)
{
	map(0, 0, 0);
	map(1, 3, PTE_G);
	(void)rd(t_lin(0));
	(void)rd(t_lin(1));
	set_cr3(PML4 | 2 | CR3_NOFLUSH);
	(void)rd(t_lin(0));
	map(0, 1, 0);
	map(1, 4, PTE_G);
	ck_assert_int_eq(invpcid(3, 0, 0), ST_OK);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(1));
	ck_assert_uint_eq(rd(t_lin(1)), MARKER(3));
	set_cr3(PML4 | 1 | CR3_NOFLUSH);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(1));
	map(0, 2, 0);
	set_cr3(PML4 | 2 | CR3_NOFLUSH);
	ck_assert_int_eq(invpcid(2, 0, 0), ST_OK);
	ck_assert_uint_eq(rd(t_lin(1)), MARKER(4));
	set_cr3(PML4 | 1 | CR3_NOFLUSH);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(2));
	assert_tlb_consistent();
}
END_TEST

/* SDM Vol.2 INVPCID exceptions: #GP(0) for a type > 3 (all 64 register bits
 * count in 64-bit mode), descriptor bits 63:12 set, a non-canonical address
 * with type 0 (ignored otherwise), a PCID other than 000H with types 0/1 while
 * CR4.PCIDE = 0; #UD on a model without INVPCID. */
START_TEST(invpcid_faults)
{
	assert_gp0(&m, invpcid(4, 0, 0));
	assert_gp0(&m, invpcid(1ull << 32, 0, 0));
	assert_gp0(&m, invpcid(1, 1ull << 12, 0));
	assert_gp0(&m, invpcid(2, 1ull << 63, 0));
	assert_gp0(&m, invpcid(0, 1, 0x0000800000000000ull));
	ck_assert_int_eq(invpcid(1, 1, 0x0000800000000000ull), ST_OK);
	ck_assert_int_eq(invpcid(0, 1, 0xffff800000000000ull), ST_OK);
	set_cr3(PML4);
	set_cr4(CR4_PAE | CR4_PGE);
	assert_gp0(&m, invpcid(0, 1, 0));
	assert_gp0(&m, invpcid(1, 1, 0));
	ck_assert_int_eq(invpcid(1, 0, 0), ST_OK);
	ck_assert_int_eq(invpcid(3, 0xabc, 0), ST_OK);
	/* 5-level paging: 57-bit canonical form (SDM Vol.3 4.5). The PML5 table's
	 * entry 0 leads to the same tables. */
	m.cpu.model = cpu_model_find("icelake-lite");
	physmem_write(&m.pm, PML5, 8, PML4 | 3);
	m.cpu.cr4 |= CR4_LA57;
	m.cpu.cr3 = PML5;
	ck_assert_int_eq(invpcid(0, 0, 0x0000800000000000ull), ST_OK);
	ck_assert_int_eq(invpcid(0, 0, 0xff00000000000000ull), ST_OK);
	assert_gp0(&m, invpcid(0, 0, 0x0100000000000000ull));
	m.cpu.cr4 &= ~(uint64_t)CR4_LA57;
	m.cpu.cr3 = PML4;
	tlb_flush_all(&m.cpu.tlb);
	/* 4-level paging on an LA57 part: still the processor's 57-bit width
	 * (emu/canonical.h addr_canonical_reg); a 48-bit part refuses it. */
	ck_assert_int_eq(invpcid(0, 0, 0x0000800000000000ull), ST_OK);
	assert_gp0(&m, invpcid(0, 0, 0x0100000000000000ull));
	m.cpu.model = cpu_model_find("skylake-lite");
	assert_gp0(&m, invpcid(0, 0, 0x0000800000000000ull));
	m.cpu.cpl = 3;
	assert_gp0(&m, invpcid(1, 0, 0));
	m.cpu.cpl = 0;
	m.cpu.model = cpu_model_find("epyc-lite");
	ck_assert_int_eq(invpcid(1, 0, 0), ST_FAULT);
	ck_assert_int_eq(m.cpu.event.vector, EXC_UD);
}
END_TEST

/* MOV to CR4 (SDM Vol.3 4.10.4.1): clearing PCIDE or changing PGE drops every
 * PCID's translations; setting PCIDE (CR3[11:0] = 0) drops none. */
START_TEST(cr4_changes)
{
	map(0, 0, 0);
	(void)rd(t_lin(0));                               /* PCID 1: frame 0 */
	set_cr3(PML4 | 2 | CR3_NOFLUSH);
	map(0, 1, 0);
	set_cr3(PML4 | CR3_NOFLUSH);
	(void)rd(t_lin(0));                               /* PCID 0: frame 1 */
	set_cr3(PML4 | 2 | CR3_NOFLUSH);
	map(0, 2, 0);
	/* PCIDE 1 -> 0 with CR3[11:0] = 2: the current PCID becomes 000H, whose
	 * saved translation must be gone, like PCID 1's. */
	set_cr4(CR4_PAE | CR4_PGE);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(2));
	set_cr3(PML4);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(2));
	map(0, 3, 0);
	set_cr4(CR4_PAE | CR4_PGE | CR4_PCIDE);           /* 0 -> 1 keeps PCID 0's */
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(2));
	set_cr3(PML4 | 1);
	map(0, 4, 0);
	set_cr3(PML4 | CR3_NOFLUSH);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(2));
	/* PGE 1 -> 0: everything, saved PCIDs included. */
	set_cr3(PML4 | 1 | CR3_NOFLUSH);
	(void)rd(t_lin(0));
	set_cr3(PML4 | CR3_NOFLUSH);
	map(0, 5, 0);
	set_cr4(CR4_PAE | CR4_PCIDE);
	set_cr3(PML4 | 1 | CR3_NOFLUSH);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(5));
	/* SDM Vol.2 MOV CR: setting PCIDE with CR3[11:0] != 0 is #GP(0). */
	set_cr4(CR4_PAE);
	assert_gp0(&m, mov_cr(&m, 4, CR4_PAE | CR4_PCIDE));
	ck_assert_uint_eq(m.cpu.cr4, CR4_PAE);
}
END_TEST

/* A page that comes to hold decoded code loses its write translations in the
 * saved contexts too, so a write after a restore still reaches the code check
 * (emu/m.cpu.c mark_code_page). */
START_TEST(protect_reaches_contexts)
{
	map(0, 0, 0);
	ck_assert_int_eq(mem_write(&m.cpu, SR_DS, t_lin(0), 4, MARKER(0)), ST_OK);
	ck_assert_ptr_nonnull(tlb_lookup(&m.cpu.tlb, TLB_SUPERVISOR, TLB_WRITE, t_lin(0), 4));
	set_cr3(PML4 | 2 | CR3_NOFLUSH);
	tlb_protect_phys_page(&m.cpu.tlb, FRAMES);
	set_cr3(PML4 | 1 | CR3_NOFLUSH);
	ck_assert_ptr_nonnull(tlb_lookup(&m.cpu.tlb, TLB_SUPERVISOR, TLB_READ, t_lin(0), 4));
	ck_assert_ptr_null(tlb_lookup(&m.cpu.tlb, TLB_SUPERVISOR, TLB_WRITE, t_lin(0), 4));
}
END_TEST

/* More (space, PCID) pairs than the context table holds: the least recently
 * used pair is forgotten, its translations with it (allowed: SDM Vol.3
 * 4.10.4.1, "free to invalidate additional entries"); the most recent ones
 * stay. */
START_TEST(context_eviction)
{
	struct tlb *t = &m.cpu.tlb;
	map(0, 0, 0);
	/* Pairs in use: PCID 0 (from reset), the globals, PCIDs 1..TLB_CONTEXTS:
	 * two more than the table holds, so PCIDs 0 and 1 are forgotten. */
	for (unsigned p = 1; p <= TLB_CONTEXTS; p++) {
		set_cr3(PML4 | p);
		(void)rd(t_lin(0));
	}
	ck_assert_ptr_null(tlb_context_of(t, 0, 1));      /* PCID 1 was the least recent */
	ck_assert_ptr_nonnull(tlb_context_of(t, 0, TLB_CONTEXTS - 1));
	map(0, 1, 0);
	set_cr3(PML4 | 1 | CR3_NOFLUSH);                  /* PCID 1 walks afresh */
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(1));
	set_cr3(PML4 | (TLB_CONTEXTS - 1) | CR3_NOFLUSH); /* kept its translation */
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(0));
	assert_tlb_consistent();
}
END_TEST

/* --tlb flush: nothing is cached, so every PCID switch reads afresh. */
START_TEST(uncached_mode)
{
	m.cpu.tlb_uncached = true;
	map(0, 0, 0);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(0));
	set_cr3(PML4 | 2 | CR3_NOFLUSH);
	map(0, 1, 0);
	set_cr3(PML4 | 1 | CR3_NOFLUSH);
	ck_assert_uint_eq(rd(t_lin(0)), MARKER(1));
	ck_assert_uint_eq(live_entries(), 0);
}
END_TEST

/* The data structure alone: a global translation made under one PCID serves
 * every PCID (SDM Vol.3 4.10.2.4), and each PCID keeps its own non-global
 * translations beside it, with no entry moved by the switches. */
START_TEST(restore_yields_to_global)
{
	struct tlb *t = &m.cpu.tlb;
	map(0, 0, 0);
	(void)rd(t_lin(0));
	set_cr3(PML4 | 2 | CR3_NOFLUSH);
	uint64_t other = t_lin(0) + (TLB_SETS << PAGE_SHIFT);
	physmem_write(&m.pm, PT_T + ((other - TEST_LIN) >> 12) * 8, 8, (FRAMES + (7 << 12)) | PTE_P | PTE_W | PTE_G);
	ck_assert_uint_eq(rd(other), MARKER(7));
	ck_assert_uint_eq(tlb_find(t, TLB_SUPERVISOR, TLB_READ, other)->tag[TLB_READ] & TLB_ID_MASK,
			  t->cur_global);
	ck_assert_ptr_null(tlb_lookup(t, TLB_SUPERVISOR, TLB_READ, t_lin(0), 4));   /* PCID 1's */
	set_cr3(PML4 | 1 | CR3_NOFLUSH);
	ck_assert_ptr_nonnull(tlb_lookup(t, TLB_SUPERVISOR, TLB_READ, t_lin(0), 4));
	ck_assert_ptr_nonnull(tlb_lookup(t, TLB_SUPERVISOR, TLB_READ, other, 4));
	assert_tlb_consistent();
}
END_TEST

static Suite *pcid_suite(void)
{
	Suite *s = suite_create("pcid");
	TCase *t = tcase_create("tlb");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, switch_keeps_each_pcid);
	tcase_add_test(t, same_pcid);
	tcase_add_test(t, switch_without_bit63);
	tcase_add_test(t, global_across_pcids);
	tcase_add_test(t, invlpg_current_pcid_and_global);
	tcase_add_test(t, invpcid_type0);
	tcase_add_test(t, invpcid_type0_large_page);
	tcase_add_test(t, invlpg_large_page);
	tcase_add_test(t, invpcid_type1);
	tcase_add_test(t, invpcid_types2_3);
	tcase_add_test(t, invpcid_faults);
	tcase_add_test(t, cr4_changes);
	tcase_add_test(t, protect_reaches_contexts);
	tcase_add_test(t, context_eviction);
	tcase_add_test(t, uncached_mode);
	tcase_add_test(t, restore_yields_to_global);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(pcid_suite());
}
