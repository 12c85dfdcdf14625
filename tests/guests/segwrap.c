/* Segment-base wrap-around (the Escape OS case): outside IA-32e mode the
 * linear address is base + offset truncated to 32 bits (SDM Vol.3 3.4 / 3.4.1
 * "a 32-bit linear address"; APM2 4.1 "linear address ... modulo 2^32"). A
 * segment with base 0x40000000 and a 4 GiB limit reaches linear 0x00001000 at
 * offset 0xC0001000; a #PF there reports CR2 = 0x00001000 (SDM 4.7: CR2 holds
 * the linear address), with no bit 32 carried into it. */
#include "lib/paging.h"

#define SEL_WRAP  0x40     /* GDT scratch entry 8 */
#define WRAP_BASE 0x40000000u
#define OFF(lin)  ((lin) - WRAP_BASE)   /* offset that wraps to lin (mod 2^32) */

struct wrap_access { uint32_t off, value; };

/* trap_longjmp reloads FS with the flat selector, so each access loads it. */
static void fs_read(void *arg)
{
	struct wrap_access *a = arg;
	uint32_t v;
	__asm__ volatile("mov %w0, %%fs" :: "r"(SEL_WRAP) : "memory");
	__asm__ volatile(MARK "movl %%fs:(%1), %0" : "=r"(v) : "r"(a->off) : "memory");
	a->value = v;
}

static void fs_write(void *arg)
{
	struct wrap_access *a = arg;
	__asm__ volatile("mov %w0, %%fs" :: "r"(SEL_WRAP) : "memory");
	__asm__ volatile(MARK "movl %1, %%fs:(%0)" :: "r"(a->off), "r"(a->value) : "memory");
}

static void set_wrap_desc(void)
{
	/* SDM 3.4.5: G=1 limit 0xFFFFF -> 4 GiB - 1, writable data, DPL0. */
	gdt[SEL_WRAP >> 3] = seg_desc(WRAP_BASE, 0xfffff, ACC_P | ACC_S | ACC_DATA_W, FL_G | FL_DB);
}

/* The identity-map PTE for lin (< 4 MiB) in whichever table set is live. */
static void set_low_pte32(uint32_t lin, uint32_t pte)
{
	uint32_t *pt = (uint32_t *)(uintptr_t)(pg32_pd[0] & ~0xfffu);
	pt[lin >> 12] = pte;
	invlpg(lin);
}

static void set_low_pte_pae(uint32_t lin, uint32_t pte)
{
	uint64_t *pt = (uint64_t *)(uintptr_t)(uint32_t)(pae_pd[0][0] & ~0xfffull);
	pt[lin >> 12] = pte;
	invlpg(lin);
}

static void run_cases(const char *mode, void (*set_pte)(uint32_t, uint32_t))
{
	char nb[96];
	volatile uint32_t *frame = (volatile uint32_t *)pg_frames[0];
	*frame = 0x0d15ea5eu;
	set_pte(0x1000, 0x1000 | PG_W | PG_U);          /* not present */
	set_pte(0x2000, frame_pa(0) | PG_P | PG_W | PG_U);

	struct wrap_access a = { .off = OFF(0x1000) };
	pf_check(pg_name(nb, sizeof nb, "%s: read at fs:0xC0001000 -> #PF, CR2 = 0x00001000", mode),
		 fs_read, &a, 0, 0, 0x00001000u, 0);
	a.value = 0x1234;
	pf_check(pg_name(nb, sizeof nb, "%s: write at fs:0xC0001000 -> #PF(W), CR2 = 0x00001000", mode),
		 fs_write, &a, 0, PF_W, 0x00001000u, 0);
	a.off = OFF(0x1ffc);
	pf_check(pg_name(nb, sizeof nb, "%s: read at fs:0xC0001FFC -> CR2 = 0x00001FFC", mode),
		 fs_read, &a, 0, 0, 0x00001ffcu, 0);

	a.off = OFF(0x2000);
	pf_check(pg_name(nb, sizeof nb, "%s: read at fs:0xC0002000 (wraps to a present page)", mode),
		 fs_read, &a, 0, -1, 0, 0);
	check(pg_name(nb, sizeof nb, "%s: wrapped read sees linear 0x2000's frame", mode),
	      a.value, 0x0d15ea5eu);
	a.off = OFF(0x2010);
	a.value = 0xa5a5f00du;
	pf_check(pg_name(nb, sizeof nb, "%s: write at fs:0xC0002010 (wrapped)", mode),
		 fs_write, &a, 0, -1, 0, 0);
	check(pg_name(nb, sizeof nb, "%s: wrapped write landed in linear 0x2010's frame", mode),
	      *(volatile uint32_t *)(pg_frames[0] + 0x10), 0xa5a5f00du);

	/* Read-only page through the wrap: supervisor write with CR0.WP=1. */
	set_pte(0x2000, frame_pa(0) | PG_P | PG_U);
	write_cr0(read_cr0() | CR0_WP);
	a.off = OFF(0x2ff0);
	pf_check(pg_name(nb, sizeof nb, "%s: WP write at fs:0xC0002FF0 -> #PF(P|W), CR2 = 0x2FF0", mode),
		 fs_write, &a, 0, PF_P | PF_W, 0x00002ff0u, 0);
	write_cr0(read_cr0() & ~CR0_WP);

	set_pte(0x1000, 0x1000 | PG_P | PG_W | PG_U);
	set_pte(0x2000, 0x2000 | PG_P | PG_W | PG_U);
}

/* INVLPG takes a memory operand: its linear address is the segment base plus
 * the offset, wrapped like any other (SDM Vol.2 INVLPG, Vol.3 3.4). The stale
 * read before it is allowed (SDM 4.10.4.2) and reported. */
static void invlpg_fs(void *arg)
{
	uint32_t off = (uint32_t)(uintptr_t)arg;
	__asm__ volatile("mov %w0, %%fs" :: "r"(SEL_WRAP) : "memory");
	__asm__ volatile(MARK "invlpg %%fs:(%0)" :: "r"(off) : "memory");
}

static void test_invlpg_wrap(void)
{
	volatile uint32_t *f1 = (volatile uint32_t *)pg_frames[1], *f2 = (volatile uint32_t *)pg_frames[2];
	*f1 = 0x11110001u;
	*f2 = 0x22220002u;
	uint32_t *pt = (uint32_t *)(uintptr_t)(pg32_pd[0] & ~0xfffu);
	pt[3] = frame_pa(1) | PG_P | PG_W | PG_U;
	invlpg(0x3000);
	struct wrap_access a = { .off = OFF(0x3000) };
	expect_no_fault("read fs:0xC0003000 (frame 1)", fs_read, &a);
	check("  value", a.value, 0x11110001u);
	pt[3] = frame_pa(2) | PG_P | PG_W | PG_U;          /* no invalidation yet */
	expect_no_fault("read again before INVLPG", fs_read, &a);
	note("before INVLPG: saw the %s translation", a.value == 0x11110001u ? "old (stale)" : "new");
	check_true("  either translation (SDM 4.10.4.2)", a.value == 0x11110001u || a.value == 0x22220002u);
	expect_no_fault("INVLPG fs:0xC0003000 (linear 0x3000)", invlpg_fs, (void *)(uintptr_t)OFF(0x3000));
	expect_no_fault("read after INVLPG", fs_read, &a);
	check("  INVLPG through the wrapped address dropped linear 0x3000", a.value, 0x22220002u);
	pt[3] = 0x3000 | PG_P | PG_W | PG_U;
	invlpg(0x3000);
}

void guest_main(void)
{
	set_wrap_desc();

	/* Paging off: the wrapped linear address is the physical address. */
	*(volatile uint32_t *)(uintptr_t)0x1000 = 0x77665544u;
	struct wrap_access a = { .off = OFF(0x1000) };
	expect_no_fault("paging off: read at fs:0xC0001000", fs_read, &a);
	check("paging off: fs:0xC0001000 reads physical 0x1000", a.value, 0x77665544u);

	paging_on(pg32_build(), 0);
	run_cases("32-bit paging", set_low_pte32);
	test_invlpg_wrap();
	paging_off();

	if (!cpu_has(1, 3, 6)) {
		skip("PAE wrap cases", "CPUID.1:EDX.PAE = 0");
		return;
	}
	paging_on(pae_build(), CR4_PAE);
	run_cases("PAE paging", set_low_pte_pae);
	paging_off();
}
