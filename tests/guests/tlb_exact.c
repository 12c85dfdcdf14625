/* When translations may be cached (SDM Vol.3 4.10): a PTE changed without
 * INVLPG may still be translated through the old entry (4.10.4.2 "software
 * must invalidate"), INVLPG drops it (4.10.4.1), MOV CR3 drops non-global
 * entries only, a CR4.PGE change or clearing CR0.PG drops global ones too.
 *
 * Where the architecture allows both outcomes the guest reports which one it
 * saw and compares it with what the runner says the emulator does:
 *   hvemu --tlb exact (default): the stale translation is used (like hardware);
 *   hvemu --tlb flush (command line "tlb=flush"): every access re-walks;
 *   QEMU (quirk=qemu-tcg): either is accepted and reported in a TAP note. */
#include "lib/paging.h"

/* Test pages sit at page index 0xc0.. of the test area, away (modulo 256) from
 * the kernel's pages at 1 MiB, so a direct-mapped TLB of 256 or more entries
 * does not evict them by accident. */
#define T_IDX   0xc0u
#define T_LIN(i) (TEST_LIN + ((T_IDX + (i)) << 12))

enum expect { EXPECT_OLD, EXPECT_NEW, EXPECT_EITHER };
static enum expect allowed;     /* for accesses where the architecture allows both */

static uint32_t *pte_of(int i) { return &pg32_test_pt[T_IDX + (uint32_t)i]; }
static void map(int i, int frame, uint32_t extra)
{
	*pte_of(i) = frame_pa(frame) | PG_P | PG_W | extra;
}
static uint32_t rd(uint32_t lin) { return *(volatile uint32_t *)(uintptr_t)lin; }

/* The marker each frame holds: frame number in the low byte. */
static uint32_t marker(int frame) { return 0xcafe0000u | (uint32_t)frame; }

static void report(const char *name, uint32_t got, int old_frame, int new_frame, enum expect e)
{
	const char *saw = got == marker(old_frame) ? "old (stale) translation" :
			  got == marker(new_frame) ? "new translation" : "neither";
	note("%s: saw the %s", name, saw);
	if (e == EXPECT_EITHER) {
		check_true(name, got == marker(old_frame) || got == marker(new_frame));
		return;
	}
	check(name, got, marker(e == EXPECT_OLD ? old_frame : new_frame));
}

static void test_invlpg(void)
{
	map(0, 1, 0);
	flush_tlb();
	uint32_t first = rd(T_LIN(0));
	map(0, 2, 0);                  /* no INVLPG */
	uint32_t stale = rd(T_LIN(0));
	check("first read through frame 1", first, marker(1));
	/* SDM 4.10.4.2: after changing a PTE without invalidation the processor
	 * may use either translation. */
	report("PTE changed without INVLPG", stale, 1, 2, allowed);
	invlpg(T_LIN(0));
	/* SDM 4.10.4.1 INVLPG: the next access walks the tables. */
	report("after INVLPG", rd(T_LIN(0)), 1, 2, EXPECT_NEW);

	/* Another page of the same table keeps its entry across that INVLPG. */
	map(1, 3, 0);
	flush_tlb();
	(void)rd(T_LIN(1));
	map(1, 4, 0);
	invlpg(T_LIN(0));
	report("INVLPG of another page keeps this one", rd(T_LIN(1)), 3, 4, allowed);
	invlpg(T_LIN(1));
	report("INVLPG of this page", rd(T_LIN(1)), 3, 4, EXPECT_NEW);
}

static void invlpg_arg(void *arg)
{
	__asm__ volatile(MARK "invlpg (%0)" :: "r"((uint32_t)(uintptr_t)arg) : "memory");
}

/* SDM Vol.2 INVLPG: privileged (#GP(0) at CPL > 0); no fault for an address
 * with no translation (it only invalidates). */
static void test_invlpg_rules(void)
{
	expect_no_fault("INVLPG of an unmapped address does not fault", invlpg_arg,
			(void *)(uintptr_t)(TEST_LIN + 0x3ff000u));
	trap_reset();
	int v = run_user(invlpg_arg, (void *)(uintptr_t)T_LIN(0), 0);
	check("INVLPG at CPL3 -> #GP", (uint32_t)v, 13);
	if (v == 13)
		check("  error code 0", trap_last.error, 0);
}

static void test_global(void)
{
	if (!cpu_has(1, 3, 13)) {
		skip("global pages", "CPUID.1:EDX.PGE = 0");
		return;
	}
	write_cr4(read_cr4() | CR4_PGE);
	map(2, 5, 0);
	map(3, 6, PG_G);
	flush_tlb();
	(void)rd(T_LIN(2));
	(void)rd(T_LIN(3));
	map(2, 7, 0);
	map(3, 8, PG_G);
	flush_tlb();
	/* SDM 4.10.4.1: MOV to CR3 (no PCIDs) invalidates all non-global entries... */
	uint32_t nonglobal = rd(T_LIN(2));
	/* ...and keeps global ones (4.10.2.4: G=1 with CR4.PGE=1). */
	uint32_t global = rd(T_LIN(3));
	report("MOV CR3 drops a non-global entry", nonglobal, 5, 7, EXPECT_NEW);
	report("MOV CR3 keeps a global entry", global, 6, 8, allowed);

	/* SDM 4.10.4.1: a MOV to CR4 that changes CR4.PGE invalidates all entries,
	 * global ones included. */
	write_cr4(read_cr4() & ~CR4_PGE);
	write_cr4(read_cr4() | CR4_PGE);
	report("CR4.PGE toggle drops the global entry", rd(T_LIN(3)), 6, 8, EXPECT_NEW);

	/* INVLPG drops a global entry too (4.10.4.1). */
	map(3, 9, PG_G);
	flush_tlb();
	report("global entry survives MOV CR3 again", rd(T_LIN(3)), 8, 9, allowed);
	invlpg(T_LIN(3));
	report("INVLPG drops a global entry", rd(T_LIN(3)), 8, 9, EXPECT_NEW);

	/* SDM 4.10.4.1: a MOV to CR0 that clears CR0.PG invalidates all entries,
	 * global ones included. */
	map(3, 11, PG_G);
	invlpg(T_LIN(3));
	(void)rd(T_LIN(3));
	map(3, 12, PG_G);
	write_cr0(read_cr0() & ~CR0_PG);
	write_cr0(read_cr0() | CR0_PG);
	report("CR0.PG 1->0->1 drops the global entry", rd(T_LIN(3)), 11, 12, EXPECT_NEW);

	/* With CR4.PGE=0 the G bit means nothing: MOV CR3 drops the entry. */
	write_cr4(read_cr4() & ~CR4_PGE);
	map(3, 9, PG_G);
	flush_tlb();
	(void)rd(T_LIN(3));
	map(3, 10, PG_G);
	flush_tlb();
	report("G=1 with CR4.PGE=0: MOV CR3 drops it", rd(T_LIN(3)), 9, 10, EXPECT_NEW);
}

/* A write through a stale translation goes to the old frame. */
static void test_stale_write(void)
{
	map(4, 11, 0);
	flush_tlb();
	*(volatile uint32_t *)(uintptr_t)T_LIN(4) = marker(11);   /* A and D now set */
	map(4, 12, 0);
	*(volatile uint32_t *)(uintptr_t)T_LIN(4) = 0x5ca1ab1eu;
	uint32_t f11 = *(volatile uint32_t *)pg_frames[11], f12 = *(volatile uint32_t *)pg_frames[12];
	int went_old = f11 == 0x5ca1ab1eu && f12 == marker(12);
	int went_new = f12 == 0x5ca1ab1eu && f11 == marker(11);
	note("write after PTE change without INVLPG went to the %s frame",
	     went_old ? "old" : went_new ? "new" : "(neither!)");
	if (allowed == EXPECT_EITHER)
		check_true("stale write lands in exactly one frame", went_old || went_new);
	else
		check_true(allowed == EXPECT_OLD ? "stale write goes to the old frame" :
			   "write goes to the new frame", allowed == EXPECT_OLD ? went_old : went_new);
	invlpg(T_LIN(4));
}

/* Stale rights and present bits: the entry a CPL3 access cached keeps
 * working until invalidated (SDM 4.10.4.2); a not-present entry is never
 * cached (4.10.2.3), so making a page present needs no INVLPG. */
static void stale_check(const char *name, trap_fn fn, struct pg_access *acc, int new_err)
{
	char nb[96];
	trap_reset();
	write_cr2(0);
	int v = run_user(fn, acc, 0);
	int stale = v == NO_FAULT, fresh = v == 14 && trap_last.error == (uint32_t)new_err &&
					  read_cr2() == acc->lin;
	note("%s: %s", name, stale ? "stale entry used (no fault)" : fresh ? "new entry used (#PF)" : "neither!");
	if (allowed == EXPECT_EITHER)
		check_true(name, stale || fresh);
	else
		check_true(pg_name(nb, sizeof nb, "%s: %s", name,
				   allowed == EXPECT_OLD ? "stale entry used" : "#PF from the new entry"),
			   allowed == EXPECT_OLD ? stale : fresh);
}

static void test_stale_rights(void)
{
	struct pg_access w = { .lin = T_LIN(5) + 0x40, .value = 0x77 }, r = { .lin = T_LIN(6) };
	map(5, 13, PG_U);
	map(6, 14, PG_U);
	flush_tlb();
	trap_reset();
	check("CPL3 write fills the entry", (uint32_t)run_user(pg_write, &w, 0), (uint32_t)NO_FAULT);
	trap_reset();
	check("CPL3 read fills the entry", (uint32_t)run_user(pg_read, &r, 0), (uint32_t)NO_FAULT);
	*pte_of(5) &= ~PG_W;                      /* write-protect, no INVLPG */
	*pte_of(6) &= ~PG_P;                      /* unmap, no INVLPG */
	stale_check("PTE made read-only without INVLPG, CPL3 write", pg_write, &w, PF_P | PF_W | PF_U);
	stale_check("PTE made not present without INVLPG, CPL3 read", pg_read, &r, PF_U);
	invlpg(w.lin);
	invlpg(r.lin);
	pf_check("after INVLPG: write to the read-only page faults", pg_write, &w, 3, PF_P | PF_W | PF_U, w.lin, 0);
	pf_check("after INVLPG: read of the not-present page faults", pg_read, &r, 3, PF_U, r.lin, 0);
	*pte_of(6) |= PG_P;                       /* present again, no INVLPG */
	pf_check("not-present entries are not cached: present again without INVLPG", pg_read, &r, 3, -1, 0, 0);
	check("  read the frame's marker", r.value, marker(14));
}

/* SDM 4.10.4.1: a #PF for a linear address invalidates the TLB entries for
 * its page, so the fault does not recur from stale entries. A cached read
 * translation (frame 15), a PTE changed (frame 0, read-only) without INVLPG, then a
 * write that faults: the next read must use the new PTE. */
static void test_fault_invalidates(void)
{
	struct pg_access a = { .lin = T_LIN(7), .value = 0x99 };
	map(7, 15, PG_U);
	flush_tlb();
	trap_reset();
	check("CPL3 read caches frame 15", (uint32_t)run_user(pg_read, &a, 0), (uint32_t)NO_FAULT);
	check("  value", a.value, marker(15));
	*pte_of(7) = frame_pa(0) | PG_P | PG_U;      /* new frame, read-only; no INVLPG */
	trap_reset();
	write_cr2(0);
	a.value = 0x99;
	int v = run_user(pg_write, &a, 0);
	if (v == NO_FAULT) {
		/* The stale writable entry was used (allowed, 4.10.4.2). */
		note("write through the stale entry did not fault (allowed)");
		check_true("stale write landed in the old frame", *(volatile uint32_t *)pg_frames[15] == 0x99);
		*(volatile uint32_t *)pg_frames[15] = marker(15);
		invlpg(a.lin);
		return;
	}
	check("write faults with the new PTE's rights", (uint32_t)v, 14);
	check("  error code P|W|U", trap_last.error, PF_P | PF_W | PF_U);
	trap_reset();
	v = run_user(pg_read, &a, 0);
	check("CPL3 read after the #PF", (uint32_t)v, (uint32_t)NO_FAULT);
	note("read after the #PF: saw the %s translation", a.value == marker(15) ? "old (stale)" : "new");
	check_quirk("the #PF invalidated the stale entry: read uses the new frame", a.value, marker(0),
		    "TCG keeps other TLB entries of the page after a #PF (SDM 4.10.4.1)");
	invlpg(a.lin);
}

void guest_main(void)
{
	if (cmdline_has("tlb=flush"))
		allowed = EXPECT_NEW;
	else if (quirk_active("qemu-tcg"))
		allowed = EXPECT_EITHER;
	else
		allowed = EXPECT_OLD;
	note("expecting %s where the architecture allows a stale translation",
	     allowed == EXPECT_NEW ? "the new translation (tlb=flush)" :
	     allowed == EXPECT_OLD ? "the stale translation (hvemu --tlb exact)" : "either (QEMU)");
	for (int f = 0; f < PG_TEST_PAGES; f++)
		*(volatile uint32_t *)pg_frames[f] = marker(f);
	paging_on(pg32_build(), 0);
	test_invlpg();
	test_invlpg_rules();
	test_global();
	test_stale_write();
	test_stale_rights();
	test_fault_invalidates();
	paging_off();
}
