/* PAE paging (SDM Vol.3 4.4): 4 KiB and 2 MiB pages, the PDPTE registers and
 * their reserved-bit #GP(0) (4.4.1), not-present PDPTEs, reserved bits 62:M
 * and the 2 MiB PDE bits 20:13 (4.4.2, Tables 4-8..4-11), XD with and without
 * EFER.NXE (4.6, 4.7 I/D flag), access rights and A/D flags. */
#include "lib/paging.h"

static char nb[128];
static unsigned maxphy;
static int have_nx;

#define PD1     pae_pd[TEST_LIN >> 30]                /* PDs covering the test area */
#define BIG_LIN (TEST_LIN + 0x00200000u)              /* PD1[1]: a 2 MiB page */
#define BIG_PA  0x00400000u
#define RWU     (PG_P | PG_W | PG_U)

enum { K_READ, K_WRITE, K_FETCH };
static const trap_fn kind_fn[3] = { pg_read, pg_write, pg_fetch };
static const char *const kind_name[3] = { "read", "write", "fetch" };

/* SDM 4.4.1: PAE paging uses four PDPTE registers loaded from memory by MOV
 * CR3 / MOV CR0 / MOV CR4, with #GP(0) for reserved bits; TCG walks memory. */
#define QEMU_NO_PDPTE_REGS "QEMU TCG has no PDPTE registers (reads PDPTEs from memory at each walk, no #GP(0) at load)"

static void set_pte(uint64_t pte)
{
	pae_test_pt[0] = pte;
	flush_tlb();
}

static void set_pde(unsigned idx, uint64_t pde)
{
	PD1[idx] = pde;
	flush_tlb();
}

static uint64_t pt_pde(void) { return (uint32_t)(uintptr_t)pae_test_pt | RWU; }

/* SDM 4.7: I/D = 1 for fetches when CR4.PAE = 1 and EFER.NXE = 1 (or SMEP). */
static int id_bit(int kind) { return kind == K_FETCH && (rdmsr64(EFER_MSR) & EFER_NXE) ? PF_I : 0; }

static void test_4k_rights(void)
{
	pg_frames[0][0] = 0xc3;
	write_cr0(read_cr0() | CR0_WP);
	for (int bits = 0; bits < 16; bits++) {
		uint64_t pde = pt_pde() & ~(uint64_t)(PG_U | PG_W);
		pde |= ((bits & 1) ? PG_U : 0) | ((bits & 2) ? PG_W : 0);
		uint64_t pte = frame_pa(0) | PG_P | ((bits & 4) ? PG_U : 0) | ((bits & 8) ? PG_W : 0);
		int us = (bits & 1) && (bits & 4), rw = (bits & 2) && (bits & 8);
		for (int cpl = 0; cpl <= 3; cpl += 3)
			for (int kind = 0; kind < 3; kind++) {
				PD1[0] = pde;
				set_pte(pte);
				/* SDM 4.6.1 with CR0.WP = 1 (PDPTEs carry no rights under PAE). */
				int fault = cpl == 3 ? (!us || (kind == K_WRITE && !rw)) : (kind == K_WRITE && !rw);
				int err = fault ? PF_P | (kind == K_WRITE ? PF_W : 0) | (cpl == 3 ? PF_U : 0) | id_bit(kind) : -1;
				struct pg_access acc = { .lin = TEST_LIN + (kind == K_FETCH ? 0 : 0x100), .value = 7 };
				pg_name(nb, sizeof nb, "PAE%s PDE U%u W%u PTE U%u W%u CPL%u %s",
					id_bit(K_FETCH) ? "+NXE" : "", bits & 1, (bits >> 1) & 1, (bits >> 2) & 1,
					(bits >> 3) & 1, (uint32_t)cpl, kind_name[kind]);
				pf_check(nb, kind_fn[kind], &acc, cpl, err, acc.lin, kind == K_FETCH ? TEST_LIN : 0);
				uint32_t got = ((pae_test_pt[0] & PG_A) ? 2 : 0) | ((pae_test_pt[0] & PG_D) ? 1 : 0);
				uint32_t want = err < 0 ? 2 | (kind == K_WRITE) : 0;
				check(pg_name(nb, sizeof nb, "  PTE A/D (SDM 4.8)"), got, want);
				if (err < 0)
					check("  PDE A set", (uint32_t)(PD1[0] & PG_A), PG_A);
			}
	}
	PD1[0] = pt_pde();
	write_cr0(read_cr0() & ~CR0_WP);
}

static void test_not_present(void)
{
	struct pg_access acc = { .lin = TEST_LIN + 0x204 };
	set_pte(frame_pa(0) | PG_W | PG_U);
	pf_check("PAE PTE not present, CPL3 write", pg_write, &acc, 3, PF_W | PF_U, acc.lin, 0);
	set_pde(0, pt_pde() & ~(uint64_t)PG_P);
	pf_check("PAE PDE not present, CPL0 read", pg_read, &acc, 0, 0, acc.lin, 0);
	set_pde(0, pt_pde());
	set_pte(frame_pa(0) | RWU);
	/* SDM 4.4.1: the PDPTE registers are loaded by MOV CR3; a PDPTE with P=0
	 * makes every address of its GiB not present. */
	uint64_t save = pae_pdpt[1];
	pae_pdpt[1] = 0;
	flush_tlb();
	pf_check("PAE PDPTE not present, CPL0 read", pg_read, &acc, 0, 0, acc.lin, 0);
	pf_check("PAE PDPTE not present, CPL3 write", pg_write, &acc, 3, PF_W | PF_U, acc.lin, 0);
	pae_pdpt[1] = save;
	flush_tlb();
	pf_check("PAE PDPTE present again after MOV CR3", pg_read, &acc, 0, -1, 0, 0);
	/* The registers, not memory, are used until the next load (SDM 4.4.1):
	 * clearing the PDPTE in memory and INVLPG leave the translation usable. */
	pae_pdpt[1] = 0;
	invlpg(acc.lin);
	trap_reset();
	int v = trap_catch(pg_read, &acc);
	check_quirk("PAE PDPTE changed in memory without MOV CR3: PDPTE register still used",
		    (uint32_t)v, (uint32_t)NO_FAULT, QEMU_NO_PDPTE_REGS);
	pae_pdpt[1] = save;
	flush_tlb();
}

/* MOV CR3 with a bad PDPT (arg = CR3 value). */
static void mov_cr3(void *arg)
{
	__asm__ volatile(MARK "mov %0, %%cr3" :: "r"((uint32_t)(uintptr_t)arg) : "memory");
}

static uint64_t alt_pdpt[4] __attribute__((aligned(32)));

static void test_pdpte_gp(void)
{
	uint32_t cr3 = read_cr3();
	/* SDM 4.4.1 Table 4-8: PDPTE bits 2:1, 8:5 and 63:MAXPHYADDR are reserved. */
	unsigned bad_bits[] = { 1, 2, 5, 6, 7, 8, maxphy, 51, 62, 63 };
	for (unsigned i = 0; i < sizeof bad_bits / sizeof bad_bits[0]; i++) {
		unsigned b = bad_bits[i];
		if (b >= 52 && b < 63 && maxphy > 52)
			continue;
		gmemcpy(alt_pdpt, pae_pdpt, sizeof alt_pdpt);
		alt_pdpt[1] |= 1ull << b;
		pg_name(nb, sizeof nb, "MOV CR3: present PDPTE with bit %u set -> #GP(0)", b);
		if (quirk_active("qemu-tcg")) {
			/* QEMU checks its own phys-bits (40), whatever the model's MAXPHYADDR. */
			trap_reset();
			int v = trap_catch(mov_cr3, (void *)(uintptr_t)alt_pdpt);
			check_quirk(nb, (uint32_t)v, 13, QEMU_NO_PDPTE_REGS);
			write_cr3(cr3);
			continue;
		}
		expect_fault(nb, mov_cr3, (void *)(uintptr_t)alt_pdpt, 13, 0);
		/* SDM 4.4.1: the faulting MOV leaves CR3 and the PDPTE registers as they were. */
		check("  CR3 unchanged", read_cr3(), cr3);
		struct pg_access acc = { .lin = TEST_LIN + 0x100 };
		trap_reset();
		check("  old translation still works", (uint32_t)trap_catch(pg_read, &acc), (uint32_t)NO_FAULT);
	}
	/* Reserved bits in a PDPTE with P=0 are not checked. */
	gmemcpy(alt_pdpt, pae_pdpt, sizeof alt_pdpt);
	alt_pdpt[3] = 0xfffffffffffffffeull;
	trap_reset();
	check("MOV CR3: not-present PDPTE with reserved bits -> no #GP",
	      (uint32_t)trap_catch(mov_cr3, (void *)(uintptr_t)alt_pdpt), (uint32_t)NO_FAULT);
	check("  CR3 loaded", read_cr3(), (uint32_t)(uintptr_t)alt_pdpt);
	write_cr3(cr3);
}

/* Entering PAE paging (CR0.PG 0 -> 1) loads the PDPTEs too (SDM 4.4.1). */
static void set_cr0_pg(void *arg)
{
	__asm__ volatile(MARK "mov %0, %%cr0" :: "r"((uint32_t)(uintptr_t)arg) : "memory");
}

static void test_enable_gp(void)
{
	paging_off();
	gmemcpy(alt_pdpt, pae_pdpt, sizeof alt_pdpt);
	alt_pdpt[0] |= 1ull << 5;
	write_cr4(read_cr4() | CR4_PAE);
	write_cr3((uint32_t)(uintptr_t)alt_pdpt);
	trap_reset();
	int v = trap_catch(set_cr0_pg, (void *)(uintptr_t)(read_cr0() | CR0_PG));
	check_quirk("MOV CR0 (PG=1) with a bad PDPTE -> #GP(0)", (uint32_t)v, 13, QEMU_NO_PDPTE_REGS);
	if (v == 13)
		check("  error code 0", trap_last.error, 0);
	check_quirk("  CR0.PG still 0", read_cr0() >> 31, 0, QEMU_NO_PDPTE_REGS);
	paging_on((uint32_t)(uintptr_t)pae_pdpt, CR4_PAE);
}

/* Reserved bits 62:MAXPHYADDR (and 63 without NXE) -> #PF with P|RSVD (4.7). */
static void test_reserved(void)
{
	struct pg_access acc = { .lin = TEST_LIN + 0x300 };
	unsigned bits[] = { maxphy, 51, 52, 62, 63 };
	for (unsigned i = 0; i < sizeof bits / sizeof bits[0]; i++) {
		unsigned b = bits[i];
		if (b == 63 && (rdmsr64(EFER_MSR) & EFER_NXE))
			continue;
		for (int level = 0; level < 3; level++) {
			set_pde(1, 0);
			set_pde(0, pt_pde());
			set_pte(frame_pa(0) | RWU);
			uint32_t lin = acc.lin;
			if (level == 0) {
				set_pte(frame_pa(0) | RWU | (1ull << b));
			} else if (level == 1) {
				set_pde(0, pt_pde() | (1ull << b));
			} else {
				set_pde(1, BIG_PA | PG_PS | RWU | (1ull << b));
				lin = BIG_LIN + 0x300;
			}
			struct pg_access a = { .lin = lin };
			pg_name(nb, sizeof nb, "%s bit %u set -> P|RSVD", level == 0 ? "PTE" : level == 1 ? "PDE" : "2 MiB PDE", b);
			pf_check_quirk(nb, pg_read, &a, 0, PF_P | PF_RSVD, lin, 0,
				       QEMU_RSVD_NO_P);
			uint64_t leaf = level == 0 ? pae_test_pt[0] : level == 1 ? PD1[0] : PD1[1];
			check("  no A/D set by the RSVD fault", (uint32_t)(leaf & (PG_A | PG_D)), 0);
		}
	}
	if (maxphy > 36) {
		set_pte(frame_pa(0) | RWU | (1ull << (maxphy - 1)));
		pg_name(nb, sizeof nb, "PTE bit %u (< MAXPHYADDR) is an address bit: no fault", maxphy - 1);
		pf_check(nb, pg_read, &acc, 0, -1, 0, 0);
	}
	set_pde(1, 0);
	set_pde(0, pt_pde());
	set_pte(frame_pa(0) | RWU);
}

static void test_2m(void)
{
	volatile uint32_t *phys = (volatile uint32_t *)(uintptr_t)(BIG_PA + 0x1abcd0u);
	struct pg_access acc = { .lin = BIG_LIN + 0x1abcd0u };
	*phys = 0x2bad2bedu;
	set_pde(1, BIG_PA | PG_PS | RWU);
	pf_check("2 MiB page read", pg_read, &acc, 0, -1, 0, 0);
	check("2 MiB page: offset = linear bits 20:0", acc.value, 0x2bad2bedu);
	check("2 MiB page read: PDE A=1 D=0", (uint32_t)(PD1[1] & (PG_A | PG_D)), PG_A);
	acc.value = 0x13572468u;
	pf_check("2 MiB page write (CPL3)", pg_write, &acc, 3, -1, 0, 0);
	check("2 MiB page write reached the frame", *phys, 0x13572468u);
	check("2 MiB page write: PDE D=1", (uint32_t)(PD1[1] & (PG_A | PG_D)), PG_A | PG_D);
	/* SDM 4.4.2 Table 4-9: bits 20:13 of a 2 MiB PDE are reserved (12 is PAT). */
	for (unsigned b = 13; b <= 20; b++) {
		set_pde(1, BIG_PA | PG_PS | RWU | (1u << b));
		pg_name(nb, sizeof nb, "2 MiB PDE bit %u reserved -> P|RSVD", b);
		pf_check_quirk(nb, pg_read, &acc, 0, PF_P | PF_RSVD, acc.lin, 0, QEMU_RSVD_NO_P);
	}
	set_pde(1, BIG_PA | PG_PS | RWU | (1u << 12));
	pf_check("2 MiB PDE bit 12 (PAT) is not reserved", pg_read, &acc, 0, -1, 0, 0);
	set_pde(1, BIG_PA | PG_PS | PG_P | PG_U);
	write_cr0(read_cr0() | CR0_WP);
	pf_check("2 MiB read-only page, CPL0 write with WP=1", pg_write, &acc, 0, PF_P | PF_W, acc.lin, 0);
	write_cr0(read_cr0() & ~CR0_WP);
	pf_check("2 MiB read-only page, CPL0 write with WP=0", pg_write, &acc, 0, -1, 0, 0);
	set_pde(1, 0);
}

static void test_nx(void)
{
	struct pg_access fetch = { .lin = TEST_LIN }, rd = { .lin = TEST_LIN + 0x100 };
	pg_frames[0][0] = 0xc3;
	/* XD=1 with NXE=0: bit 63 is reserved (SDM 4.4.2). */
	set_pte(frame_pa(0) | RWU | PG_XD);
	pf_check_quirk("NXE=0: PTE XD=1 -> P|RSVD on read", pg_read, &rd, 0, PF_P | PF_RSVD, rd.lin, 0,
		       QEMU_RSVD_NO_P);
	pf_check_quirk("NXE=0: PTE XD=1, fetch -> P|RSVD (I/D=0 without NXE)", pg_fetch, &fetch, 0,
		       PF_P | PF_RSVD, TEST_LIN, TEST_LIN, QEMU_RSVD_NO_P);
	if (!have_nx) {
		skip("NX checks", "CPUID.80000001H:EDX.NX = 0");
		set_pte(frame_pa(0) | RWU);
		return;
	}
	wrmsr64(EFER_MSR, rdmsr64(EFER_MSR) | EFER_NXE);
	pf_check("NXE=1: XD page read allowed", pg_read, &rd, 0, -1, 0, 0);
	set_pte(frame_pa(0) | RWU | PG_XD);        /* A = 0 again */
	pf_check("NXE=1: XD page fetch CPL0 -> P|I", pg_fetch, &fetch, 0, PF_P | PF_I, TEST_LIN, TEST_LIN);
	pf_check("NXE=1: XD page fetch CPL3 -> P|U|I", pg_fetch, &fetch, 3, PF_P | PF_U | PF_I, TEST_LIN, TEST_LIN);
	check("  faulting fetch left PTE.A clear", (uint32_t)(pae_test_pt[0] & PG_A), 0);
	set_pte(frame_pa(0) | RWU);
	set_pde(0, pt_pde() | PG_XD);
	pf_check("NXE=1: XD in the PDE -> fetch P|I", pg_fetch, &fetch, 0, PF_P | PF_I, TEST_LIN, TEST_LIN);
	set_pde(0, pt_pde());
	pf_check("NXE=1: fetch from an executable page", pg_fetch, &fetch, 3, -1, 0, 0);
	set_pte(frame_pa(0) | PG_W | PG_U);
	pf_check("NXE=1: not-present fetch -> I (P=0)", pg_fetch, &fetch, 0, PF_I, TEST_LIN, TEST_LIN);
	set_pte(frame_pa(0) | RWU);
	set_pde(1, BIG_PA | PG_PS | RWU | PG_XD);
	*(volatile uint8_t *)(uintptr_t)(BIG_PA + 0x40) = 0xc3;
	struct pg_access bigf = { .lin = BIG_LIN + 0x40 };
	pf_check("NXE=1: XD 2 MiB page fetch -> P|I", pg_fetch, &bigf, 0, PF_P | PF_I, bigf.lin, bigf.lin);
	set_pde(1, 0);
	/* With NXE=1 the 4 KiB rights matrix reports I/D on every fetch fault. */
	test_4k_rights();
	wrmsr64(EFER_MSR, rdmsr64(EFER_MSR) & ~(uint64_t)EFER_NXE);
}

void guest_main(void)
{
	if (!cpu_has(1, 3, 6)) {
		skip("PAE paging", "CPUID.1:EDX.PAE = 0");
		return;
	}
	maxphy = cpu_maxphyaddr();
	have_nx = cpu_has(0x80000001u, 3, 20);
	note("MAXPHYADDR %u, NX %s", maxphy, have_nx ? "yes" : "no");
	uint32_t cr3 = pae_build();
	paging_on(cr3, CR4_PAE);
	check("CR4.PAE and CR0.PG set", (read_cr4() & CR4_PAE) && (read_cr0() & CR0_PG), 1);
	PD1[0] = pt_pde();
	set_pte(frame_pa(0) | RWU);
	test_4k_rights();
	test_not_present();
	test_pdpte_gp();
	test_enable_gp();
	test_reserved();
	test_2m();
	test_nx();
	paging_off();
}
