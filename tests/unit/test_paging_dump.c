/* paging_dump(): ranges coalesced over consecutive pages, rights combined over
 * the levels, large pages, and no trouble with garbage tables. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "mmu/paging_dump.h"
#include "suite_runner.h"

#define RAM (4u << 20)

static struct physmem pm;

static void setup(void) { ck_assert(physmem_init(&pm, RAM)); }
static void teardown(void) { physmem_destroy(&pm); }

static void put32(uint64_t pa, uint32_t v) { physmem_write(&pm, pa, 4, v); }

static char *dump(const struct paging_env *env)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	paging_dump(env, f);
	fclose(f);
	return buf;
}

START_TEST(coalesces_4k_runs_and_splits_on_rights)
{
	/* PD at 0x1000, PT at 0x2000: pages 0-3 -> 0x100000.., RW user; page 4 RO. */
	put32(0x1000, 0x2000 | PTE_P | PTE_RW | PTE_US);
	for (unsigned i = 0; i < 4; i++)
		put32(0x2000 + i * 4, (0x100000 + i * 0x1000) | PTE_P | PTE_RW | PTE_US);
	put32(0x2000 + 4 * 4, 0x104000 | PTE_P | PTE_US);
	struct paging_env env = { .mem = &pm, .mode = PAGING_32, .cr3 = 0x1000, .maxphyaddr = 36 };
	char *s = dump(&env);
	ck_assert_msg(strstr(s, "lin 0x00000000-0x00003fff -> phys 0x0000100000  RW user (4 x 4 KiB)"), "%s", s);
	ck_assert_msg(strstr(s, "lin 0x00004000-0x00004fff -> phys 0x0000104000  RO user (1 x 4 KiB)"), "%s", s);
	free(s);
}
END_TEST

START_TEST(large_pages_and_supervisor_directory)
{
	/* 32-bit with PSE: PDE 1 is a 4 MiB page at 0xC00000; PDE 2 is a supervisor
	 * directory entry over a user PTE: the combination is supervisor. */
	put32(0x1000 + 4, 0xc00000 | PTE_P | PTE_RW | PTE_PS);
	put32(0x1000 + 8, 0x3000 | PTE_P | PTE_RW);
	put32(0x3000, 0x5000 | PTE_P | PTE_RW | PTE_US);
	struct paging_env env = { .mem = &pm, .mode = PAGING_32, .cr3 = 0x1000, .pse = true,
				  .maxphyaddr = 36 };
	char *s = dump(&env);
	ck_assert_msg(strstr(s, "lin 0x00400000-0x007fffff -> phys 0x0000c00000  RW supervisor (1 x 4096 KiB)"), "%s", s);
	ck_assert_msg(strstr(s, "lin 0x00800000-0x00800fff -> phys 0x0000005000  RW supervisor (1 x 4 KiB)"), "%s", s);
	free(s);
}
END_TEST

START_TEST(garbage_tables_are_bounded)
{
	/* Every byte 0xff: all entries present, tables pointing outside RAM (which
	 * reads as all ones): the dump must end and stay within its depth. */
	for (uint64_t a = 0; a < 0x2000; a += 4)
		put32(a, 0xffffffffu);
	for (unsigned mode = PAGING_32; mode <= PAGING_5LEVEL; mode++) {
		uint64_t pdpte[4] = { ~0ull, ~0ull, ~0ull, ~0ull };
		struct paging_env env = { .mem = &pm, .mode = mode, .cr3 = 0x1000, .nxe = true,
					  .pse = true, .gbpages = true, .maxphyaddr = 36,
					  .pdpte = pdpte };
		char *s = dump(&env);
		ck_assert_ptr_nonnull(strstr(s, "page tables"));
		free(s);
	}
}
END_TEST

static Suite *paging_dump_suite(void)
{
	Suite *s = suite_create("paging_dump");
	TCase *tc = tcase_create("dump");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, coalesces_4k_runs_and_splits_on_rights);
	tcase_add_test(tc, large_pages_and_supervisor_directory);
	tcase_add_test(tc, garbage_tables_are_bounded);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(paging_dump_suite());
}
