/* 32-bit paging (SDM Vol.3 4.3): 4 KiB pages, 4 MiB pages with CR4.PSE and the
 * PSE-36 address bits, the full U/S x R/W x CPL x access x CR0.WP matrix with
 * exact #PF error codes and CR2 (4.6.1, 4.7), accessed/dirty flags (4.8) and
 * not-present entries at each level. */
#include "lib/paging.h"

static char nb[128];
static const char *const kind_name[3] = { "read", "write", "fetch" };
static const trap_fn kind_fn[3] = { pg_read, pg_write, pg_fetch };
enum { K_READ, K_WRITE, K_FETCH };
#define DATA_OFF 0x100u   /* data accesses use this offset; the page starts with RET */

/* SDM Vol.3 4.6.1: the rights of a 4 KiB translation are the AND of R/W and of
 * U/S over the PDE and the PTE. User (CPL3) accesses need U/S=1, and R/W=1 to
 * write whatever CR0.WP says; supervisor reads and fetches are always allowed
 * (no SMEP here); supervisor writes need R/W=1 only when CR0.WP=1.
 * SDM 4.7: P=1 (translation exists), W/R = write, U/S = CPL3, I/D = 0 (no SMEP,
 * no PAE with NXE). Returns -1 when the access is allowed. */
static int expected_error(int us, int rw, int cpl, int kind, int wp)
{
	int fault;
	if (cpl == 3)
		fault = !us || (kind == K_WRITE && !rw);
	else
		fault = kind == K_WRITE && !rw && wp;
	if (!fault)
		return -1;
	return PF_P | (kind == K_WRITE ? PF_W : 0) | (cpl == 3 ? PF_U : 0);
}

static void set_test_mapping(uint32_t pde_bits, uint32_t pte_bits)
{
	pg32_pd[TEST_LIN >> 22] = (uint32_t)(uintptr_t)pg32_test_pt | pde_bits;
	pg32_test_pt[0] = frame_pa(0) | pte_bits;
	/* SDM 4.10.4.1: MOV CR3 drops the non-global TLB and paging-structure caches. */
	flush_tlb();
}

static void test_matrix(void)
{
	pg_frames[0][0] = 0xc3;   /* RET for the fetch accesses */
	int pde_a_on_fault = 0;
	for (int wp = 0; wp < 2; wp++) {
		write_cr0(wp ? read_cr0() | CR0_WP : read_cr0() & ~CR0_WP);
		for (int bits = 0; bits < 16; bits++) {
			uint32_t pde = PG_P | ((bits & 1) ? PG_U : 0) | ((bits & 2) ? PG_W : 0);
			uint32_t pte = PG_P | ((bits & 4) ? PG_U : 0) | ((bits & 8) ? PG_W : 0);
			int us = (bits & 1) && (bits & 4), rw = (bits & 2) && (bits & 8);
			for (int cpl = 0; cpl <= 3; cpl += 3) {
				for (int kind = 0; kind < 3; kind++) {
					set_test_mapping(pde, pte);
					int err = expected_error(us, rw, cpl, kind, wp);
					struct pg_access acc = {
						.lin = TEST_LIN + (kind == K_FETCH ? 0 : DATA_OFF),
						.value = 0x11223344u + (uint32_t)bits,
					};
					pg_name(nb, sizeof nb, "WP=%u PDE U%u W%u PTE U%u W%u CPL%u %s",
						(uint32_t)wp, bits & 1, (bits >> 1) & 1, (bits >> 2) & 1,
						(bits >> 3) & 1, (uint32_t)cpl, kind_name[kind]);
					pf_check(nb, kind_fn[kind], &acc, cpl, err, acc.lin,
						 kind == K_FETCH ? TEST_LIN : 0);
					/* SDM 4.8: A in every entry used by a successful access,
					 * D in the PTE only for a write. A faulting access has no
					 * translation: the PTE keeps A = D = 0 (whether the PDE's A
					 * is set on a fault is not architectural; noted only). */
					uint32_t pde_now = pg32_pd[TEST_LIN >> 22], pte_now = pg32_test_pt[0];
					uint32_t got, want;
					if (err < 0) {
						got = ((pde_now & PG_A) ? 4 : 0) | ((pte_now & PG_A) ? 2 : 0) |
						      ((pte_now & PG_D) ? 1 : 0);
						want = 4 | 2 | (kind == K_WRITE ? 1 : 0);
					} else {
						got = ((pte_now & PG_A) ? 2 : 0) | ((pte_now & PG_D) ? 1 : 0);
						want = 0;
						pde_a_on_fault |= (pde_now & PG_A) != 0;
					}
					pg_name(nb, sizeof nb, "WP=%u PDE U%u W%u PTE U%u W%u CPL%u %s: A/D",
						(uint32_t)wp, bits & 1, (bits >> 1) & 1, (bits >> 2) & 1,
						(bits >> 3) & 1, (uint32_t)cpl, kind_name[kind]);
					check(nb, got, want);
					if (err < 0 && kind == K_WRITE)
						check("write reached the frame",
						      *(volatile uint32_t *)&pg_frames[0][DATA_OFF], acc.value);
				}
			}
		}
	}
	note("PDE.A set by a faulting access: %s (either is allowed, SDM 4.8)",
	     pde_a_on_fault ? "yes" : "no");
	write_cr0(read_cr0() & ~CR0_WP);
}

/* Not present at each level: P=0 in the error code (SDM 4.7), CR2 = address. */
static void test_not_present(void)
{
	for (int level = 0; level < 2; level++) {
		for (int cpl = 0; cpl <= 3; cpl += 3) {
			for (int kind = 0; kind < 3; kind++) {
				set_test_mapping(level == 0 ? PG_W | PG_U : PG_P | PG_W | PG_U,
						 level == 1 ? PG_W | PG_U : PG_P | PG_W | PG_U);
				struct pg_access acc = { .lin = TEST_LIN + (kind == K_FETCH ? 0 : DATA_OFF + 4) };
				int err = (kind == K_WRITE ? PF_W : 0) | (cpl == 3 ? PF_U : 0);
				pg_name(nb, sizeof nb, "%s not present, CPL%u %s", level ? "PTE" : "PDE",
					(uint32_t)cpl, kind_name[kind]);
				pf_check(nb, kind_fn[kind], &acc, cpl, err, acc.lin,
					 kind == K_FETCH ? TEST_LIN : 0);
				check("not-present: PTE A/D untouched", pg32_test_pt[0] & (PG_A | PG_D), 0);
			}
		}
	}
}

/* 4 MiB pages (SDM 4.3, Table 4-4): PDE 257 maps linear 0x40400000 to a 4 MiB
 * frame at physical 0x00400000 (identity-mapped too, so both views compare). */
#define BIG_LIN  (TEST_LIN + 0x00400000u)
#define BIG_PA   0x00400000u

static void set_big(uint32_t pde)
{
	pg32_pd[BIG_LIN >> 22] = pde;
	flush_tlb();
}

static void test_4m(void)
{
	volatile uint32_t *phys = (volatile uint32_t *)(uintptr_t)(BIG_PA + 0x123458u);
	struct pg_access acc = { .lin = BIG_LIN + 0x123458u };

	if (!cpu_has(1, 3, 3)) {
		skip("4 MiB pages", "CPUID.1:EDX.PSE = 0");
		return;
	}
	/* CR4.PSE=0: PS is ignored and the PDE points to a page table (Table 4-5),
	 * here the frame at BIG_PA whose entry for this address is 0 (not present). */
	write_cr4(read_cr4() & ~CR4_PSE);
	*(volatile uint32_t *)(uintptr_t)(BIG_PA + ((acc.lin >> 12) & 1023) * 4) = 0;
	set_big(BIG_PA | PG_PS | PG_P | PG_W | PG_U);
	pf_check("PSE=0: PS ignored, PDE references a page table (PTE not present)", pg_read, &acc,
		 0, 0, acc.lin, 0);

	write_cr4(read_cr4() | CR4_PSE);
	*phys = 0xfeedc0deu;
	set_big(BIG_PA | PG_PS | PG_P | PG_W | PG_U);
	pf_check("PSE=1: 4 MiB page read", pg_read, &acc, 0, -1, 0, 0);
	check("4 MiB page: offset = linear bits 21:0", acc.value, 0xfeedc0deu);
	check("4 MiB page read: PDE A=1 D=0 (SDM 4.8)", pg32_pd[BIG_LIN >> 22] & (PG_A | PG_D), PG_A);
	acc.value = 0x600dd00du;
	pf_check("4 MiB page write", pg_write, &acc, 0, -1, 0, 0);
	check("4 MiB page write reached PA 0x523458", *phys, 0x600dd00du);
	check("4 MiB page write: PDE D=1", pg32_pd[BIG_LIN >> 22] & (PG_A | PG_D), PG_A | PG_D);

	/* Rights of a 4 MiB page come from the PDE alone (SDM 4.6.1). */
	set_big(BIG_PA | PG_PS | PG_P | PG_U);
	acc.value = 1;
	pf_check("4 MiB read-only page, CPL3 write", pg_write, &acc, 3, PF_P | PF_W | PF_U, acc.lin, 0);
	check("4 MiB page: faulting write leaves A/D clear", pg32_pd[BIG_LIN >> 22] & (PG_A | PG_D), 0);
	set_big(BIG_PA | PG_PS | PG_P | PG_W);
	pf_check("4 MiB supervisor page, CPL3 read", pg_read, &acc, 3, PF_P | PF_U, acc.lin, 0);
	set_big(BIG_PA | PG_PS | PG_W | PG_U);
	pf_check("4 MiB PDE not present, CPL0 write", pg_write, &acc, 0, PF_W, acc.lin, 0);

	/* PSE-36 (SDM 4.3 Table 4-4): PDE bits 20:13 are PA bits 39:32, bits
	 * 20:(M-19) reserved when MAXPHYADDR M < 40; bit 21 always reserved. */
	unsigned m = cpu_maxphyaddr();
	if (!cpu_has(1, 3, 17) && m != 32) {
		skip("PSE-36 checks", "CPUID.1:EDX.PSE-36 = 0 with MAXPHYADDR %u", m);
		write_cr4(read_cr4() & ~CR4_PSE);
		return;
	}
	if (m == 32) {
		/* No PSE-36 and MAXPHYADDR 32: bits 20:13 all reserved (Table 4-4). */
		set_big(BIG_PA | (1u << 13) | PG_PS | PG_P | PG_W | PG_U);
		pf_check_quirk("MAXPHYADDR 32: 4 MiB PDE bit 13 reserved -> P|RSVD", pg_read, &acc, 0,
			       PF_P | PF_RSVD, acc.lin, 0, QEMU_RSVD_NO_P);
		set_big(BIG_PA | (1u << 21) | PG_PS | PG_P | PG_W | PG_U);
		pf_check_quirk("4 MiB PDE bit 21 reserved -> P|RSVD", pg_read, &acc, 0, PF_P | PF_RSVD,
			       acc.lin, 0, QEMU_RSVD_NO_P);
		pg32_pd[BIG_LIN >> 22] = 0;
		flush_tlb();
		write_cr4(read_cr4() & ~CR4_PSE);
		return;
	}
	note("MAXPHYADDR %u", m);
	*phys = 0x5a5a5a5au;
	set_big(BIG_PA | PG_PS | PG_P | PG_W | PG_U);
	pf_check("PSE-36: PDE bits 20:13 = 0 -> PA below 4 GiB", pg_read, &acc, 0, -1, 0, 0);
	check("PSE-36: bits 20:13 = 0 reads the low frame", acc.value, 0x5a5a5a5au);
	/* PA bit 32 set (PDE bit 13): a different frame, where no RAM exists, so
	 * the write must not land in the low 4 MiB frame. */
	set_big(BIG_PA | (1u << 13) | PG_PS | PG_P | PG_W | PG_U);
	acc.value = 0x12345678u;
	pf_check("PSE-36: PDE bit 13 (PA bit 32) accepted", pg_write, &acc, 0, -1, 0, 0);
	check("PSE-36: PA bit 32 is used (low frame unchanged)", *phys, 0x5a5a5a5au);
	set_big(BIG_PA | (1u << 21) | PG_PS | PG_P | PG_W | PG_U);
	/* SDM 4.7: RSVD can be set only together with P (reserved bits are
	 * checked only in present entries). */
	pf_check_quirk("PSE-36: PDE bit 21 reserved -> P|RSVD", pg_read, &acc, 0, PF_P | PF_RSVD,
		       acc.lin, 0, QEMU_RSVD_NO_P);
	check("RSVD fault leaves A clear", pg32_pd[BIG_LIN >> 22] & PG_A, 0);
	set_big(BIG_PA | (1u << 21) | PG_PS | PG_P | PG_W | PG_U);
	pf_check_quirk("PSE-36: bit 21, CPL3 write -> P|W|U|RSVD", pg_write, &acc, 3,
		       PF_P | PF_W | PF_U | PF_RSVD, acc.lin, 0, QEMU_RSVD_NO_P);
	if (m < 40) {
		uint32_t bit = m - 19;
		set_big(BIG_PA | (1u << bit) | PG_PS | PG_P | PG_W | PG_U);
		pg_name(nb, sizeof nb, "PSE-36: PDE bit %u (PA bit %u >= MAXPHYADDR) -> RSVD", bit, m);
		pf_check_quirk(nb, pg_read, &acc, 0, PF_P | PF_RSVD, acc.lin, 0,
			       "QEMU checks its own phys-bits, not the model's MAXPHYADDR "
			       "(36 without CPUID 80000008H, SDM 4.1.4)");
		set_big(BIG_PA | (1u << (bit - 1)) | PG_PS | PG_P | PG_W | PG_U);
		pg_name(nb, sizeof nb, "PSE-36: PDE bit %u (PA bit %u < MAXPHYADDR) accepted", bit - 1, m - 1);
		pf_check(nb, pg_read, &acc, 0, -1, 0, 0);
	}
	/* No reserved bits in a PDE that references a page table: bit 21 is an
	 * address bit there (Table 4-5). */
	pg32_pd[BIG_LIN >> 22] = 0;
	flush_tlb();
	write_cr4(read_cr4() & ~CR4_PSE);
}

void guest_main(void)
{
	uint32_t cr3 = pg32_build();
	paging_on(cr3, 0);
	check("CR0.PG = 1", read_cr0() >> 31, 1);
	check("CR3 reads back", read_cr3(), cr3);
	test_matrix();
	test_not_present();
	test_4m();
	paging_off();
}
