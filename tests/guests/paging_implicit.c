/* Implicit supervisor-mode accesses under paging (SDM Vol.3 4.6: accesses to
 * the GDT, LDT, IDT and TSS are supervisor-mode accesses whatever the CPL;
 * 4.7: the error code's U/S bit describes the access, so it is 0 for them even
 * at CPL3). The descriptor tables under test live on pages of the test area
 * whose PTEs each case sets. */
#include "lib/paging.h"

#define SEL_LDT   0x48                   /* GDT scratch entry 9 */
#define LDT_LIN   (TEST_LIN + 0x5000u)   /* the LDT page (frame 5) */
#define GDT_LIN   (TEST_LIN + 0x6000u)   /* a copy of the GDT (frame 6) */
#define SEL_L1    0x0f                   /* LDT index 1, TI=1, RPL3 */

static volatile uint64_t *const ldt = (volatile uint64_t *)pg_frames[5];

static void set_pte(uint32_t lin, int frame, uint32_t bits)
{
	pg32_test_pt[(lin >> 12) & 1023] = frame_pa(frame) | bits;
	invlpg(lin);
}

/* CPL3: DS <- LDT selector 0x0f, then back to the flat user selector. */
static void user_load_ds_ldt(void *arg)
{
	(void)arg;
	__asm__ volatile(MARK "mov %w0, %%ds\n\tmov %w1, %%ds" :: "r"(SEL_L1), "r"(SEL_UDATA) : "memory");
}

/* CPL3: DS <- the flat user data selector (read from the GDT). */
static void user_load_ds_gdt(void *arg)
{
	(void)arg;
	__asm__ volatile(MARK "mov %w0, %%ds" :: "r"(SEL_UDATA) : "memory");
}

static uint64_t user_data_desc(int accessed)
{
	return seg_desc(0, 0xfffff, ACC_P | ACC_DPL(3) | ACC_S | ACC_DATA_W | (accessed ? ACC_ACCESSED : 0),
			FL_G | FL_DB);
}

static void test_ldt(void)
{
	gdt[SEL_LDT >> 3] = seg_desc(LDT_LIN, 0xf, ACC_P | SYS_LDT, 0);
	__asm__ volatile("lldt %w0" :: "r"(SEL_LDT) : "memory");

	/* A supervisor-only LDT page: the CPL3 load reads it as a supervisor. */
	ldt[1] = user_data_desc(1);
	set_pte(LDT_LIN, 5, PG_P | PG_W);
	pf_check("CPL3 load from an LDT on a supervisor page: allowed", user_load_ds_ldt, 0, 3, -1, 0, 0);

	/* Not present: #PF with U/S=0 (supervisor access), CR2 = descriptor. */
	set_pte(LDT_LIN, 5, PG_W);
	pf_check("CPL3 load, LDT page not present -> #PF(0), CR2 = descriptor", user_load_ds_ldt, 0, 3,
		 0, LDT_LIN + 8, 0);

	/* SDM 3.4.5: loading a descriptor with A=0 sets A, an implicit write. With
	 * CR0.WP=1 a read-only page refuses it: #PF with P|W and U/S=0. */
	ldt[1] = user_data_desc(0);
	set_pte(LDT_LIN, 5, PG_P);
	write_cr0(read_cr0() | CR0_WP);
	write_cr2(0);
	trap_reset();
	int v = run_user(user_load_ds_ldt, 0, 0);
	check("CPL3 load, A=0 descriptor on a read-only page, WP=1 -> #PF", (uint32_t)v, 14);
	if (v == 14) {
		check("  error code P|W (supervisor write)", trap_last.error, PF_P | PF_W);
		uint32_t cr2 = read_cr2();
		note("CR2 for the accessed-bit write: descriptor + %u", cr2 - (LDT_LIN + 8));
		check_true("  CR2 inside the descriptor", cr2 >= LDT_LIN + 8 && cr2 < LDT_LIN + 16);
		check("  descriptor A still 0", (uint32_t)(ldt[1] >> 40) & ACC_ACCESSED, 0);
	}
	ldt[1] = user_data_desc(1);
	set_pte(LDT_LIN, 5, PG_P);
	pf_check("CPL3 load, A=1 descriptor on a read-only page, WP=1: no write, allowed",
		 user_load_ds_ldt, 0, 3, -1, 0, 0);
	write_cr0(read_cr0() & ~CR0_WP);
	ldt[1] = user_data_desc(0);
	set_pte(LDT_LIN, 5, PG_P);
	pf_check("CPL3 load, A=0 descriptor on a read-only page, WP=0: allowed", user_load_ds_ldt, 0, 3,
		 -1, 0, 0);
	check("  descriptor A set", (uint32_t)(ldt[1] >> 40) & ACC_ACCESSED, ACC_ACCESSED);
	check("  LDT PTE D set by the implicit write", pg32_test_pt[(LDT_LIN >> 12) & 1023] & PG_D, PG_D);

	__asm__ volatile("lldt %w0" :: "r"(0));
}

static void test_gdt_supervisor(void)
{
	/* Move the GDT to a supervisor-only page: CPL3 segment loads and the
	 * CPL3 -> CPL0 interrupt back from run_user read it as a supervisor. */
	uint64_t *copy = (uint64_t *)pg_frames[6];
	for (int i = 0; i < GDT_ENTRIES; i++)
		copy[i] = gdt[i];
	/* The busy TSS descriptor is copied as is; nothing reloads TR here. */
	set_pte(GDT_LIN, 6, PG_P | PG_W);
	struct dtr g = { sizeof(gdt) - 1, GDT_LIN };
	__asm__ volatile("lgdt %0" :: "m"(g) : "memory");
	pf_check("CPL3 load from a GDT on a supervisor page: allowed", user_load_ds_gdt, 0, 3, -1, 0, 0);
	reload_gdt();
}

void guest_main(void)
{
	paging_on(pg32_build(), 0);
	test_ldt();
	test_gdt_supervisor();
	paging_off();
}
