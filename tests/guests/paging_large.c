/* INVLPG and large pages (SDM Vol.3 4.10.4.1 INVLPG: "invalidates ... for the
 * page number of the linear address", and for a large page that is the whole
 * 4 MiB / 2 MiB translation, 4.10.2.3): INVLPG of any address inside a large
 * page drops every cached piece of it, global or not. A stale translation
 * before the INVLPG is allowed (4.10.4.2); hvemu --tlb exact keeps it, QEMU may
 * or may not (reported). */
#include "lib/paging.h"

#define BIG_PA_A 0x00400000u      /* two large frames, both identity-mapped */
#define BIG_PA_B 0x00800000u

static int expect_stale;          /* -1 either (QEMU), 0 new (tlb=flush), 1 old */

static uint32_t rd(uint32_t lin) { return *(volatile uint32_t *)(uintptr_t)lin; }
static void wr_phys(uint32_t pa, uint32_t v) { *(volatile uint32_t *)(uintptr_t)pa = v; }

static void report_stale(const char *name, uint32_t got, uint32_t old, uint32_t new_)
{
	note("%s: saw the %s translation", name, got == old ? "old (stale)" : got == new_ ? "new" : "neither");
	if (expect_stale < 0)
		check_true(name, got == old || got == new_);
	else
		check(name, got, expect_stale ? old : new_);
}

/* One large page at lin mapped by *entry (a 32-bit PDE or the low half of a
 * PAE PDE); size 4 MiB or 2 MiB. Offsets X, Y are in different 4 KiB pieces,
 * Z (the INVLPG address) in a third. */
static void run(const char *mode, volatile uint32_t *entry, uint32_t lin, uint32_t size, uint32_t g)
{
	char nb[96];
	uint32_t x = 0x1000 + 0x10, y = size / 2 + 0x20, z = size - 0x1000 + 0x30;
	wr_phys(BIG_PA_A + x, 0xa0000001u);
	wr_phys(BIG_PA_A + y, 0xa0000002u);
	wr_phys(BIG_PA_B + x, 0xb0000001u);
	wr_phys(BIG_PA_B + y, 0xb0000002u);

	*entry = BIG_PA_A | PG_PS | PG_P | PG_W | g;
	flush_tlb();
	if (g)
		invlpg(lin);       /* a global entry survives MOV CR3 */
	check(pg_name(nb, sizeof nb, "%s: read X through frame A", mode), rd(lin + x), 0xa0000001u);
	check(pg_name(nb, sizeof nb, "%s: read Y through frame A", mode), rd(lin + y), 0xa0000002u);
	*entry = BIG_PA_B | PG_PS | PG_P | PG_W | g;     /* no invalidation yet */
	report_stale(pg_name(nb, sizeof nb, "%s: X after the PDE change, before INVLPG", mode),
		     rd(lin + x), 0xa0000001u, 0xb0000001u);
	if (g) {
		flush_tlb();
		report_stale(pg_name(nb, sizeof nb, "%s: global large page, X after MOV CR3", mode),
			     rd(lin + x), 0xa0000001u, 0xb0000001u);
	}
	invlpg(lin + z);
	check(pg_name(nb, sizeof nb, "%s: INVLPG of Z drops X (same large page)", mode),
	      rd(lin + x), 0xb0000001u);
	check(pg_name(nb, sizeof nb, "%s: INVLPG of Z drops Y (same large page)", mode),
	      rd(lin + y), 0xb0000002u);
	*entry = 0;
	flush_tlb();
	if (g)
		invlpg(lin);
}

void guest_main(void)
{
	expect_stale = cmdline_has("tlb=flush") ? 0 : quirk_active("qemu-tcg") ? -1 : 1;
	int pge = cpu_has(1, 3, 13);

	/* 32-bit paging, 4 MiB pages (CR4.PSE, SDM 4.3). */
	uint32_t lin = TEST_LIN + 0x00400000u;    /* PDE 257 */
	if (cpu_has(1, 3, 3)) {
		paging_on(pg32_build(), CR4_PSE);
		run("4 MiB", &pg32_pd[lin >> 22], lin, 0x400000u, 0);
		if (pge) {
			write_cr4(read_cr4() | CR4_PGE);
			run("4 MiB global", &pg32_pd[lin >> 22], lin, 0x400000u, PG_G);
		}
		paging_off();
	} else {
		skip("4 MiB pages", "CPUID.1:EDX.PSE = 0");
	}

	if (!cpu_has(1, 3, 6)) {
		skip("PAE 2 MiB pages", "CPUID.1:EDX.PAE = 0");
		return;
	}
	/* PAE paging, 2 MiB pages (SDM 4.4.2); PS needs no CR4.PSE there. */
	paging_on(pae_build(), CR4_PAE);
	lin = TEST_LIN + 0x00200000u;             /* PDPTE 1, PDE 1 */
	volatile uint32_t *pde = (volatile uint32_t *)&pae_pd[lin >> 30][(lin >> 21) & 511];
	run("2 MiB", pde, lin, 0x200000u, 0);
	if (pge) {
		write_cr4(read_cr4() | CR4_PGE);
		run("2 MiB global", pde, lin, 0x200000u, PG_G);
	}
	paging_off();
}
