/* PCIDs (SDM Vol.3 4.10.1, 4.10.2.4, 4.10.4.1; SDM Vol.2 MOV CR, INVPCID):
 * the CR4.PCIDE rules, MOV CR3 bit 63, what INVLPG and INVPCID types 0-3 must
 * invalidate and in which PCIDs, CR4.PCIDE/PGE changes, and self-modifying
 * code written through a PCID's kept translation.
 *
 * As in tlb_exact, a check where the architecture allows a stale translation
 * compares with what the runner says the emulator does: hvemu --tlb exact
 * (default) keeps it like hardware, --tlb flush (command line "tlb=flush") and
 * QEMU (either is accepted) may not. Checks that a translation is gone hold
 * everywhere.
 *
 * The C code runs in IA-32e compatibility mode; MOV CR3 with bit 63 (a 64-bit
 * source) and INVPCID with a 64-bit type are far calls into pcid64.S; the
 * IA-32e set-up and the 64-bit IDT stubs are lib/long.
 * Skipped (TAP SKIP) without CPUID long mode; without PCID (--cpu core2,
 * epyc-lite, skylake-lite,-pcid) only the #GP of setting CR4.PCIDE is checked. */
#include "lib/long.h"

#define CR4_PCIDE (1u << 17)
#define CR3_NOFLUSH (1ull << 63)
#define NONE 0xffu

static uint64_t pd_t[512] __attribute__((aligned(4096)));    /* TEST_LIN.. */
static uint64_t pt_t[512] __attribute__((aligned(4096)));
static uint32_t cr3_base;

/* Test pages at page index 0xc0.. of the test area, away (modulo 256) from the
 * kernel's pages at 1 MiB, so a direct-mapped TLB does not evict them. */
#define T_IDX   0xc0u
#define T_LIN(i) (TEST_LIN + ((T_IDX + (i)) << 12))
#define PCID_A  1u
#define PCID_B  2u

enum expect { EXPECT_OLD, EXPECT_NEW, EXPECT_EITHER };
static enum expect allowed;     /* for accesses where the architecture allows both */

static void map(int i, int frame, uint32_t extra)
{
	pt_t[T_IDX + (uint32_t)i] = frame_pa(frame) | PG_P | PG_W | extra;
}
static uint32_t rd(uint32_t lin) { return *(volatile uint32_t *)(uintptr_t)lin; }
static uint32_t marker(int frame) { return 0xcafe0000u | (uint32_t)frame; }

static void report(const char *name, uint32_t got, int old_frame, int new_frame, enum expect e)
{
	const char *saw = got == marker(old_frame) ? "old (kept) translation" :
			  got == marker(new_frame) ? "new translation" : "neither";
	note("%s: saw the %s", name, saw);
	if (e == EXPECT_EITHER) {
		check_true(name, got == marker(old_frame) || got == marker(new_frame));
		return;
	}
	check(name, got, marker(e == EXPECT_OLD ? old_frame : new_frame));
}

/* MOV CR3 from 64-bit mode (bit 63 can be set); returns CR3 read back. */
static uint64_t mov_cr3_64(uint64_t v)
{
	uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
	lm_vec = NONE;
	__asm__ volatile("lcall $" LM_STR(LM_CS64) ", $pc_mov_cr3" : "+a"(lo), "+d"(hi) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

/* To pcid; keep = bit 63 (the new PCID's translations need not go). */
static void switch_pcid(uint32_t pcid, int keep)
{
	(void)mov_cr3_64(cr3_base | pcid | (keep ? CR3_NOFLUSH : 0));
}

/* Compatibility-mode MOV CR3 (32-bit source, so bit 63 = 0: invalidates). */
static void set_pcid(uint32_t pcid) { write_cr3(cr3_base | pcid); }

static struct { uint64_t lo, hi; } __attribute__((aligned(16))) desc;

/* INVPCID type, {lo, lin}: the vector it raised or NONE. */
static uint32_t invpcid(uint32_t type, uint64_t lo, uint64_t lin)
{
	desc.lo = lo;
	desc.hi = lin;
	lm_vec = NONE;
	LM_TRY("invpcid (%0), %1", "r"(&desc), "r"(type) : "memory");
	return lm_vec;
}

static uint32_t try_cr4(uint32_t v)
{
	lm_vec = NONE;
	LM_TRY("mov %0, %%cr4", "r"(v) : "memory");
	return lm_vec;
}

static void gp0_check(const char *name, uint32_t vec)
{
	check(name, vec, 13);
	if (vec == 13)
		check("  error code 0", lm_err, 0);
}

static void set_pcide_legacy(void *arg)
{
	(void)arg;
	__asm__ volatile(MARK "mov %0, %%cr4" :: "r"(read_cr4() | CR4_PCIDE) : "memory");
}

/* Identity map of the first GiB (2 MiB pages), the test page table at
 * TEST_LIN, a 64-bit code segment and a 64-bit IDT; then IA-32e mode
 * (SDM Vol.3 9.8.5). */
static void enter_ia32e(int pge)
{
	cr3_base = long_identity_map(PG_P | PG_W);
	lm_pdpt[1] = (uint32_t)(uintptr_t)pd_t | PG_P | PG_W;
	pd_t[0] = (uint32_t)(uintptr_t)pt_t | PG_P | PG_W;
	long_gdt_init();
	long_idt_init(LM_CS64, 0);
	long_enter(read_cr4() | CR4_PAE | (pge ? CR4_PGE : 0), cr3_base);
	check("IA-32e mode active (EFER.LMA)", (uint32_t)rdmsr64(EFER_MSR) & EFER_LMA, EFER_LMA);
}

/* SDM Vol.3 4.10.1 / Vol.2 MOV CR: PCIDE only in IA-32e mode and with
 * CR3[11:0] = 0; CR3 bit 63 is not stored; CR0.PG cannot be cleared while
 * PCIDE = 1. */
static void test_cr_rules(void)
{
	write_cr3(cr3_base | PG_PWT);
	gp0_check("MOV CR4 setting PCIDE with CR3[11:0] = 008H -> #GP(0)", try_cr4(read_cr4() | CR4_PCIDE));
	check("  CR4.PCIDE stays 0", read_cr4() & CR4_PCIDE, 0);
	write_cr3(cr3_base);
	check("MOV CR4 setting PCIDE with CR3[11:0] = 0: no fault", try_cr4(read_cr4() | CR4_PCIDE), NONE);
	check("  CR4.PCIDE = 1", read_cr4() & CR4_PCIDE, CR4_PCIDE);

	uint64_t cr3 = mov_cr3_64(cr3_base | 5 | CR3_NOFLUSH);
	check("MOV CR3 with bit 63 set: no fault", lm_vec, NONE);
	check("  CR3 bits 31:0 = base | PCID 5", (uint32_t)cr3, cr3_base | 5);
	check("  bit 63 is not stored", (uint32_t)(cr3 >> 32), 0);
	set_pcid(0);

	lm_vec = NONE;
	LM_TRY("mov %0, %%cr0", "r"(read_cr0() & ~CR0_PG) : "memory");
	gp0_check("clearing CR0.PG while CR4.PCIDE = 1 -> #GP(0)", lm_vec);
	check("  still in IA-32e mode", (uint32_t)rdmsr64(EFER_MSR) & EFER_LMA, EFER_LMA);
}

/* SDM Vol.3 4.10.4.1 MOV to CR3: bit 63 clear invalidates the new PCID's
 * non-global translations, bit 63 set need not; other PCIDs' stay cached. */
static void test_switch(void)
{
	map(0, 1, 0);
	set_pcid(PCID_A);
	check("PCID A reads frame 1", rd(T_LIN(0)), marker(1));
	set_pcid(PCID_B);
	map(0, 2, 0);                                 /* no invalidation */
	report("PCID B (just invalidated) walks the tables", rd(T_LIN(0)), 1, 2, EXPECT_NEW);
	switch_pcid(PCID_A, 1);
	report("back to PCID A with bit 63 set: A's translation", rd(T_LIN(0)), 1, 2, allowed);
	map(0, 3, 0);
	switch_pcid(PCID_B, 1);
	report("back to PCID B with bit 63 set: B's translation", rd(T_LIN(0)), 2, 3, allowed);
	switch_pcid(PCID_A, 0);
	report("MOV CR3 to PCID A with bit 63 clear invalidates A", rd(T_LIN(0)), 1, 3, EXPECT_NEW);
	map(0, 4, 0);
	switch_pcid(PCID_A, 1);
	report("same PCID, bit 63 set: kept", rd(T_LIN(0)), 3, 4, allowed);
	switch_pcid(PCID_A, 0);
	report("same PCID, bit 63 clear: invalidated", rd(T_LIN(0)), 3, 4, EXPECT_NEW);
}

/* SDM Vol.3 4.10.4.1 INVLPG: the current PCID's translations of the page and
 * global ones regardless of PCID (4.10.2.4: any PCID may use a global one). */
static void test_invlpg(int pge)
{
	map(0, 5, 0);
	map(1, 6, PG_G);
	set_pcid(PCID_A);
	(void)rd(T_LIN(0));
	(void)rd(T_LIN(1));
	set_pcid(PCID_B);
	map(0, 7, 0);
	map(1, 8, PG_G);
	if (pge)
		report("PCID B may use the global translation PCID A cached", rd(T_LIN(1)), 6, 8, allowed);
	invlpg(T_LIN(0));
	invlpg(T_LIN(1));
	switch_pcid(PCID_A, 1);
	report("INVLPG in PCID B: PCID A's non-global translation may stay", rd(T_LIN(0)), 5, 7, allowed);
	if (pge)
		report("INVLPG in PCID B: the global translation is gone for PCID A too", rd(T_LIN(1)), 6, 8,
		       EXPECT_NEW);
	invlpg(T_LIN(0));
	report("INVLPG in PCID A", rd(T_LIN(0)), 5, 7, EXPECT_NEW);
	invlpg(T_LIN(1));
}

/* SDM Vol.2 INVPCID exceptions. */
static void test_invpcid_faults(void)
{
	set_pcid(0);                                  /* CR3[11:0] = 0 to set PCIDE again */
	gp0_check("INVPCID type 4 -> #GP(0)", invpcid(4, 0, 0));
	gp0_check("INVPCID descriptor bit 12 set -> #GP(0)", invpcid(1, (1ull << 12) | PCID_A, 0));
	gp0_check("INVPCID descriptor bit 63 set -> #GP(0)", invpcid(2, 1ull << 63, 0));
	gp0_check("INVPCID type 0, non-canonical address -> #GP(0)",
		  invpcid(0, PCID_A, 0x0000800000000000ull));
	check("INVPCID type 0, canonical address 0xffff800000000000: no fault",
	      invpcid(0, PCID_A, 0xffff800000000000ull), NONE);
	check("INVPCID type 1 ignores a non-canonical address", invpcid(1, PCID_A, 0x0000800000000000ull),
	      NONE);
	uint32_t lo = 1, hi = 1;
	lm_vec = NONE;
	__asm__ volatile("lcall $" LM_STR(LM_CS64) ", $pc_invpcid64" : "+a"(lo), "+d"(hi) : "c"(&desc) : "memory");
	gp0_check("64-bit mode: INVPCID type 100000001H (all 64 bits count) -> #GP(0)", lm_vec);

	/* CR4.PCIDE = 0: types 0 and 1 only for PCID 000H; 2 and 3 ignore it. */
	write_cr4(read_cr4() & ~CR4_PCIDE);
	gp0_check("PCIDE = 0: INVPCID type 0 for PCID 1 -> #GP(0)", invpcid(0, 1, 0));
	gp0_check("PCIDE = 0: INVPCID type 1 for PCID 1 -> #GP(0)", invpcid(1, 1, 0));
	check("PCIDE = 0: INVPCID type 1 for PCID 0: no fault", invpcid(1, 0, 0), NONE);
	check("PCIDE = 0: INVPCID type 3 with PCID field 1: no fault", invpcid(3, 1, 0), NONE);
	write_cr4(read_cr4() | CR4_PCIDE);
}

/* SDM Vol.2 INVPCID, SDM Vol.3 4.10.4.1: type 0 = one page of one PCID, type
 * 1 = one PCID, type 2 = everything, type 3 = every PCID; all but type 2 keep
 * global translations (they may drop them: "allowed"). */
static void test_invpcid_types(int pge)
{
	uint32_t g = pge ? PG_G : 0;
	map(0, 1, 0);
	map(1, 2, 0);
	map(2, 3, g);
	set_pcid(PCID_A);
	(void)rd(T_LIN(0));
	(void)rd(T_LIN(1));
	(void)rd(T_LIN(2));
	set_pcid(PCID_B);
	map(0, 4, 0);
	map(1, 5, 0);
	map(2, 6, g);
	check("type 0 for PCID A from PCID B", invpcid(0, PCID_A, T_LIN(0)), NONE);
	check("type 0 for PCID A, the global page", invpcid(0, PCID_A, T_LIN(2)), NONE);
	switch_pcid(PCID_A, 1);
	report("INVPCID type 0 invalidated PCID A's page", rd(T_LIN(0)), 1, 4, EXPECT_NEW);
	report("INVPCID type 0 kept PCID A's other page", rd(T_LIN(1)), 2, 5, allowed);
	if (pge)
		report("INVPCID type 0 kept the global translation", rd(T_LIN(2)), 3, 6, allowed);
	map(1, 7, 0);
	(void)invpcid(0, PCID_A, T_LIN(1));
	report("INVPCID type 0 for the current PCID", rd(T_LIN(1)), 2, 7, EXPECT_NEW);

	/* Type 1. PCID A caches frames 4 and 7; PCID B frame 4. */
	set_pcid(PCID_B);
	(void)rd(T_LIN(0));
	map(0, 8, 0);
	map(1, 9, 0);
	check("type 1 for PCID A from PCID B", invpcid(1, PCID_A, 0), NONE);
	report("INVPCID type 1 for PCID A kept PCID B's translation", rd(T_LIN(0)), 4, 8, allowed);
	switch_pcid(PCID_A, 1);
	report("INVPCID type 1 invalidated PCID A", rd(T_LIN(1)), 7, 9, EXPECT_NEW);
	if (pge)
		report("INVPCID type 1 kept the global translation", rd(T_LIN(2)), 3, 6, allowed);
	(void)rd(T_LIN(0));
	map(0, 10, 0);
	(void)invpcid(1, PCID_A, 0);
	report("INVPCID type 1 for the current PCID", rd(T_LIN(0)), 8, 10, EXPECT_NEW);

	/* Type 3. PCID A caches frame 10, PCID B frame 4 (or 8). */
	switch_pcid(PCID_B, 1);
	map(0, 11, 0);
	check("type 3", invpcid(3, 0, 0), NONE);
	report("INVPCID type 3 invalidated the current PCID", rd(T_LIN(0)), 4, 11, EXPECT_NEW);
	if (pge)
		report("INVPCID type 3 kept the global translation", rd(T_LIN(2)), 3, 6, allowed);
	map(0, 12, 0);
	switch_pcid(PCID_A, 1);
	report("INVPCID type 3 invalidated PCID A", rd(T_LIN(0)), 10, 12, EXPECT_NEW);

	/* Type 2. PCID A caches frame 12. */
	switch_pcid(PCID_B, 1);
	map(0, 13, 0);
	check("type 2", invpcid(2, 0, 0), NONE);
	report("INVPCID type 2 invalidated the global translation", rd(T_LIN(2)), 3, 6, EXPECT_NEW);
	report("INVPCID type 2 invalidated the current PCID", rd(T_LIN(0)), 11, 13, EXPECT_NEW);
	map(0, 14, 0);
	switch_pcid(PCID_A, 1);
	report("INVPCID type 2 invalidated PCID A", rd(T_LIN(0)), 12, 14, EXPECT_NEW);
	set_pcid(0);
	invlpg(T_LIN(2));
}

/* SDM Vol.3 4.10.4.1 MOV to CR4: clearing PCIDE or changing PGE invalidates
 * every PCID's translations; setting PCIDE is not listed. */
static void test_cr4(int pge)
{
	map(3, 1, 0);
	map(4, 2, 0);
	set_pcid(0);
	(void)rd(T_LIN(3));                           /* PCID 000H: frame 1 */
	set_pcid(PCID_A);
	(void)rd(T_LIN(4));                           /* PCID A: frame 2 */
	map(3, 3, 0);
	map(4, 4, 0);
	check("clearing CR4.PCIDE with CR3[11:0] = 001H: no fault", try_cr4(read_cr4() & ~CR4_PCIDE), NONE);
	report("clearing CR4.PCIDE invalidated PCID 000H's translation", rd(T_LIN(3)), 1, 3, EXPECT_NEW);
	report("clearing CR4.PCIDE invalidated the former PCID's translation", rd(T_LIN(4)), 2, 4, EXPECT_NEW);
	write_cr3(cr3_base);
	(void)rd(T_LIN(3));
	map(3, 5, 0);
	write_cr4(read_cr4() | CR4_PCIDE);
	report("setting CR4.PCIDE may keep the translations (now PCID 000H's)", rd(T_LIN(3)), 3, 5, allowed);
	if (!pge)
		return;
	set_pcid(PCID_A);
	(void)rd(T_LIN(3));                           /* PCID A: frame 5 */
	switch_pcid(0, 1);
	map(3, 6, 0);
	write_cr4(read_cr4() & ~CR4_PGE);
	write_cr4(read_cr4() | CR4_PGE);
	switch_pcid(PCID_A, 1);
	report("a CR4.PGE change invalidated PCID A's translation", rd(T_LIN(3)), 5, 6, EXPECT_NEW);
	set_pcid(0);
}

/* Code written through a translation PCID A kept while PCID B executed it:
 * the write must reach the new instruction bytes (SDM Vol.3 11.6). */
static void test_smc(void)
{
	volatile uint8_t *code = (volatile uint8_t *)(uintptr_t)T_LIN(5);
	uint32_t (*fn)(void) = (uint32_t (*)(void))(uintptr_t)T_LIN(5);
	map(5, 15, 0);
	set_pcid(PCID_A);
	code[0] = 0xb8;                               /* mov $1, %eax; ret */
	code[1] = 1;
	code[2] = code[3] = code[4] = 0;
	code[5] = 0xc3;
	set_pcid(PCID_B);
	check("PCID B runs the code page", fn(), 1);
	switch_pcid(PCID_A, 1);
	code[1] = 2;
	check("a write through PCID A's kept translation changes the code", fn(), 2);
	set_pcid(0);
}

void guest_main(void)
{
	uint32_t r[4];
	uint32_t lm = long_mode_supported();
	cpuid(0, 0, r);
	uint32_t max = r[0];
	cpuid(1, 0, r);
	int has_pcid = (r[2] >> 17) & 1, pge = (r[3] >> 13) & 1;
	int has_invpcid = 0;
	if (max >= 7) {
		cpuid(7, 0, r);
		has_invpcid = (r[1] >> 10) & 1;
	}
	if (!lm)
		skip_all("CPUID: no long mode");
	if (!has_pcid) {
		/* SDM Vol.2 MOV CR: setting a reserved CR4 bit is #GP(0), and
		 * CR4.PCIDE is reserved without CPUID.1:ECX.PCID (SDM Vol.3 2.5),
		 * in IA-32e mode and with CR3[11:0] = 0 too (e.g. --cpu
		 * skylake-lite,-pcid). */
		enter_ia32e(pge);
		write_cr3(cr3_base);
		static const char why[] = "QEMU 7.2 TCG lets CR4.PCIDE be set without CPUID PCID "
					  "(SDM Vol.3 2.5: reserved, MOV CR4 #GP(0))";
		check_quirk("no CPUID PCID: MOV CR4 setting PCIDE in IA-32e mode -> #GP(0)",
			    try_cr4(read_cr4() | CR4_PCIDE), 13, why);
		check_quirk("  CR4.PCIDE stays 0", read_cr4() & CR4_PCIDE, 0, why);
		tap_finish();
	}
	if (cmdline_has("tlb=flush"))
		allowed = EXPECT_NEW;
	else if (quirk_active("qemu-tcg"))
		allowed = EXPECT_EITHER;
	else
		allowed = EXPECT_OLD;
	note("expecting %s where the architecture allows a kept translation",
	     allowed == EXPECT_NEW ? "the new translation (tlb=flush)" :
	     allowed == EXPECT_OLD ? "the kept translation (hvemu --tlb exact)" : "either (QEMU)");
	for (int f = 0; f < PG_TEST_PAGES; f++)
		*(volatile uint32_t *)pg_frames[f] = marker(f);

	/* SDM Vol.3 4.10.1: "CR4.PCIDE can be set to 1 only in IA-32e mode". */
	expect_fault("MOV CR4 setting PCIDE outside IA-32e mode -> #GP(0)", set_pcide_legacy, 0, 13, 0);

	enter_ia32e(pge);
	test_cr_rules();
	test_switch();
	test_invlpg(pge);
	if (has_invpcid) {
		test_invpcid_faults();
		test_invpcid_types(pge);
	} else {
		skip("INVPCID", "CPUID.(EAX=7,ECX=0):EBX.INVPCID[10] = 0");
	}
	test_cr4(pge);
	test_smc();
	tap_finish();
}
