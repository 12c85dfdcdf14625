/* CR4.SMEP and CR4.SMAP (SDM Vol.3 4.6.1, 4.7), only where CPUID.(EAX=7,ECX=0)
 * advertises them (EBX bit 7 SMEP, bit 20 SMAP); otherwise TAP SKIP.
 * The identity map is switched to supervisor pages first, so the kernel
 * itself is not a user-mode address; the test page is the user page. */
#include "lib/paging.h"

#define EFLAGS_AC (1u << 18)
#define SEL_LDT   0x48         /* GDT scratch entry 9: an LDT on the test page */

static void set_idmap_user(int user)
{
	for (uint32_t t = 0; t < (IDMAP_END >> 22); t++) {
		uint32_t *pt = (uint32_t *)(uintptr_t)(pg32_pd[t] & ~0xfffu);
		for (int i = 0; i < 1024; i++)
			pt[i] = user ? pt[i] | PG_U : pt[i] & ~PG_U;
	}
	flush_tlb();
}

static void set_test(uint32_t pde_bits, uint32_t pte_bits)
{
	pg32_pd[TEST_LIN >> 22] = (uint32_t)(uintptr_t)pg32_test_pt | pde_bits;
	pg32_test_pt[0] = frame_pa(0) | pte_bits;
	flush_tlb();
}

static void test_smep(void)
{
	struct pg_access f = { .lin = TEST_LIN }, r = { .lin = TEST_LIN + 0x100 };
	pg_frames[0][0] = 0xc3;
	write_cr4(read_cr4() | CR4_SMEP);
	set_test(PG_P | PG_W | PG_U, PG_P | PG_W | PG_U);
	/* 4.6.1: with SMEP no supervisor fetch from a user-mode address; 4.7: I/D = 1. */
	pf_check("SMEP: CPL0 fetch from a user page -> #PF(P|I)", pg_fetch, &f, 0, PF_P | PF_I, TEST_LIN, TEST_LIN);
	check("  PTE.A not set by the faulting fetch", pg32_test_pt[0] & PG_A, 0);
	pf_check("SMEP: CPL0 read of a user page allowed", pg_read, &r, 0, -1, 0, 0);
	set_test(PG_P | PG_W | PG_U, PG_P | PG_W);
	pf_check("SMEP: PTE U/S=0 -> supervisor address, fetch allowed", pg_fetch, &f, 0, -1, 0, 0);
	set_test(PG_P | PG_W, PG_P | PG_W | PG_U);
	pf_check("SMEP: PDE U/S=0 -> supervisor address, fetch allowed", pg_fetch, &f, 0, -1, 0, 0);
	set_test(PG_P | PG_W | PG_U, PG_W | PG_U);
	pf_check("SMEP: not-present fetch -> #PF(I), P=0", pg_fetch, &f, 0, PF_I, TEST_LIN, TEST_LIN);
	write_cr4(read_cr4() & ~CR4_SMEP);
	set_test(PG_P | PG_W | PG_U, PG_P | PG_W | PG_U);
	pf_check("SMEP off: CPL0 fetch from a user page allowed", pg_fetch, &f, 0, -1, 0, 0);
}

/* Explicit accesses with EFLAGS.AC = 1 (set through POPF, SDM Vol.2 POPF). */
static void read_ac(void *arg)
{
	struct pg_access *a = arg;
	uint32_t v;
	__asm__ volatile("pushfl; orl %2, (%%esp); popfl\n\t"
			 MARK "movl (%1), %0\n\t"
			 "pushfl; andl %3, (%%esp); popfl"
			 : "=&r"(v) : "r"(a->lin), "i"(EFLAGS_AC), "i"(~EFLAGS_AC) : "memory", "cc");
	a->value = v;
}

static void write_ac(void *arg)
{
	struct pg_access *a = arg;
	__asm__ volatile("pushfl; orl %2, (%%esp); popfl\n\t"
			 MARK "movl %1, (%0)\n\t"
			 "pushfl; andl %3, (%%esp); popfl"
			 :: "r"(a->lin), "r"(a->value), "i"(EFLAGS_AC), "i"(~EFLAGS_AC) : "memory", "cc");
}

/* STAC/CLAC (SDM Vol.2, gated by CPUID SMAP). */
static void read_stac(void *arg)
{
	struct pg_access *a = arg;
	uint32_t v;
	__asm__ volatile("stac\n\t" MARK "movl (%1), %0\n\tclac" : "=&r"(v) : "r"(a->lin) : "memory");
	a->value = v;
}

/* Implicit supervisor access: loading FS from an LDT that lives on the user
 * page reads the descriptor there (SDM 4.6: descriptor-table accesses are
 * implicit supervisor-mode accesses), with AC = 1. */
static void load_fs_from_ldt_ac(void *arg)
{
	(void)arg;
	__asm__ volatile("lldt %w0\n\t"
			 "pushfl; orl %1, (%%esp); popfl\n\t"
			 MARK "mov %w2, %%fs\n\t"
			 "pushfl; andl %3, (%%esp); popfl"
			 :: "r"(SEL_LDT), "i"(EFLAGS_AC), "r"(0x4), "i"(~EFLAGS_AC) : "memory", "cc");
}

static void load_fs_from_ldt(void *arg)
{
	(void)arg;
	__asm__ volatile("lldt %w0\n\t" MARK "mov %w1, %%fs" :: "r"(SEL_LDT), "r"(0x4) : "memory");
}

static void test_smap(void)
{
	struct pg_access r = { .lin = TEST_LIN + 0x100 }, w = { .lin = TEST_LIN + 0x104, .value = 0x51 };
	*(volatile uint32_t *)(pg_frames[0] + 0x100) = 0xabcd0123u;
	write_cr4(read_cr4() | CR4_SMAP);
	set_test(PG_P | PG_W | PG_U, PG_P | PG_W | PG_U);
	pf_check("SMAP: CPL0 read of a user page, AC=0 -> #PF(P)", pg_read, &r, 0, PF_P, r.lin, 0);
	pf_check("SMAP: CPL0 write to a user page, AC=0 -> #PF(P|W)", pg_write, &w, 0, PF_P | PF_W, w.lin, 0);
	check("  PTE A/D not set by the faulting accesses", pg32_test_pt[0] & (PG_A | PG_D), 0);
	pf_check("SMAP: CPL0 read with AC=1 allowed", read_ac, &r, 0, -1, 0, 0);
	check("  read value", r.value, 0xabcd0123u);
	pf_check("SMAP: CPL0 write with AC=1 allowed", write_ac, &w, 0, -1, 0, 0);
	r.value = 0;
	pf_check("SMAP: STAC; read; CLAC allowed", read_stac, &r, 0, -1, 0, 0);
	check("  read value", r.value, 0xabcd0123u);
	set_test(PG_P | PG_W | PG_U, PG_P | PG_U);
	write_cr0(read_cr0() | CR0_WP);
	pf_check("SMAP: AC=1 write to a read-only user page, WP=1 -> #PF(P|W)", write_ac, &w, 0,
		 PF_P | PF_W, w.lin, 0);
	write_cr0(read_cr0() & ~CR0_WP);
	pf_check("SMAP: AC=1 write to a read-only user page, WP=0 allowed", write_ac, &w, 0, -1, 0, 0);
	set_test(PG_P | PG_W, PG_P | PG_W | PG_U);
	pf_check("SMAP: PDE U/S=0 -> supervisor address, AC=0 read allowed", pg_read, &r, 0, -1, 0, 0);

	/* Implicit access with AC=1: never allowed to a user-mode address. */
	set_test(PG_P | PG_W | PG_U, PG_P | PG_W | PG_U);
	uint64_t *ldt = (uint64_t *)pg_frames[0];
	ldt[0] = seg_desc(0, 0xfffff, ACC_P | ACC_S | ACC_DATA_W | ACC_ACCESSED, FL_G | FL_DB);
	gdt[SEL_LDT >> 3] = seg_desc(TEST_LIN, 0xf, ACC_P | SYS_LDT, 0);
	pf_check("SMAP: implicit read of an LDT on a user page, AC=0 -> #PF(P)", load_fs_from_ldt, 0, 0,
		 PF_P, TEST_LIN, 0);
	__asm__ volatile("lldt %w0" :: "r"(0));
	write_cr2(0);
	trap_reset();
	int v = trap_catch(load_fs_from_ldt_ac, 0);
	__asm__ volatile("lldt %w0" :: "r"(0));
	check_quirk("SMAP: implicit read of an LDT on a user page with AC=1 -> #PF", (uint32_t)v, 14,
		    "QEMU applies EFLAGS.AC to implicit supervisor accesses");
	if (v == 14) {
		check("  error code P (implicit read, supervisor)", trap_last.error, PF_P);
		check("  CR2 = the descriptor's linear address", read_cr2(), TEST_LIN);
	}
	/* Without SMAP the same load works (the setup itself is sound). */
	write_cr4(read_cr4() & ~CR4_SMAP);
	pf_check("SMAP off: LDT on a user page, FS load works", load_fs_from_ldt, 0, 0, -1, 0, 0);
	__asm__ volatile("lldt %w0" :: "r"(0));
}

void guest_main(void)
{
	uint32_t r[4];
	cpuid(0, 0, r);
	int smep = 0, smap = 0;
	if (r[0] >= 7) {
		cpuid(7, 0, r);
		smep = (r[1] >> 7) & 1;
		smap = (r[1] >> 20) & 1;
	}
	note("CPUID.7.0:EBX SMEP=%u SMAP=%u", (uint32_t)smep, (uint32_t)smap);
	paging_on(pg32_build(), 0);
	set_idmap_user(0);
	if (smep)
		test_smep();
	else
		skip("SMEP checks", "CPUID.(EAX=7,ECX=0):EBX.SMEP[7] = 0");
	if (smap)
		test_smap();
	else
		skip("SMAP checks", "CPUID.(EAX=7,ECX=0):EBX.SMAP[20] = 0");
	set_idmap_user(1);
	paging_off();
}
