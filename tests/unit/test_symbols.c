/* emu/symbols.c and cli/symbol_files.c: lookup by binary search with sizes
 * (given, or the distance to the next symbol, at most SYMBOL_SPAN_MAX),
 * duplicates at one address resolved the same way every time, addresses
 * outside every symbol unnamed; System.map/kallsyms lines and an ELF symbol
 * table (this test's own executable) parsed. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/symbol_files.h"
#include "suite_runner.h"

static const char *look(const struct symbols *s, uint64_t addr)
{
	static char buf[256];
	return symbols_lookup(s, addr, buf, sizeof(buf)) ? buf : "(none)";
}

START_TEST(lookup_edges)
{
	struct symbols s;
	symbols_init(&s);
	ck_assert_str_eq(look(&s, 0x1000), "(none)");          /* empty */
	ck_assert(symbols_add(&s, 0x3000, 0, "third", 5));
	ck_assert(symbols_add(&s, 0x1000, 0x10, "first", 5));
	ck_assert(symbols_add(&s, 0x2000, 0, "second", 6));
	ck_assert(symbols_add(&s, 0x2000, 0, "second_alias", 12));
	ck_assert_str_eq(look(&s, 0x1000), "(none)");          /* not finished */
	symbols_finish(&s);
	ck_assert_uint_eq(s.n, 3);
	ck_assert_str_eq(look(&s, 0xfff), "(none)");           /* before the first */
	ck_assert_str_eq(look(&s, 0x1000), "first+0x0/0x10");
	ck_assert_str_eq(look(&s, 0x100f), "first+0xf/0x10");
	ck_assert_str_eq(look(&s, 0x1010), "(none)");          /* past a sized symbol */
	ck_assert_str_eq(look(&s, 0x2000), "second+0x0/0x1000");   /* the first added wins */
	ck_assert_str_eq(look(&s, 0x2fff), "second+0xfff/0x1000");
	ck_assert_str_eq(look(&s, 0x3000 + SYMBOL_SPAN_MAX - 1), "third+0xfffff/0x100000");
	ck_assert_str_eq(look(&s, 0x3000 + SYMBOL_SPAN_MAX), "(none)");
	ck_assert_str_eq(look(&s, UINT64_MAX), "(none)");
	symbols_destroy(&s);
}
END_TEST

START_TEST(map_lines)
{
	struct symbols s;
	char err[256];
	symbols_init(&s);
	static const char map[] = "ffffffff81000000 T _text\r\n"
				  "ffffffff81000100 t helper\t[kvm]\n\n"
				  "ffffffff81000200 D data_symbol\n"
				  "ffffffff81000300 W weak_one\n";
	ck_assert_msg(symbol_file_parse(&s, "map", (const uint8_t *)map, sizeof(map) - 1, err, sizeof(err)), "%s", err);
	symbols_finish(&s);
	ck_assert_uint_eq(s.n, 3);
	ck_assert_str_eq(look(&s, 0xffffffff81000010ull), "_text+0x10/0x100");
	ck_assert_str_eq(look(&s, 0xffffffff81000250ull), "helper [kvm]+0x150/0x200");
	ck_assert_str_eq(look(&s, 0xffffffff81000300ull), "weak_one+0x0/0x100000");
	static const char bad[] = "ffffffff81000000 T ok\n12345678123456789 T too_long\n";
	ck_assert(!symbol_file_parse(&s, "bad", (const uint8_t *)bad, sizeof(bad) - 1, err, sizeof(err)));
	ck_assert_msg(strstr(err, "bad:2:"), "%s", err);
	static const char nospace[] = "ffffffff81000000T glued\n";
	ck_assert(!symbol_file_parse(&s, "g", (const uint8_t *)nospace, sizeof(nospace) - 1, err, sizeof(err)));
	ck_assert(!symbol_file_parse(&s, "e", (const uint8_t *)"", 0, err, sizeof(err)));
	ck_assert_msg(strstr(err, "no code symbols"), "%s", err);
	symbols_destroy(&s);
}
END_TEST

/* This executable's own symbol table: main is a function with a size. */
START_TEST(elf_symtab)
{
	struct symbols s;
	char err[256];
	symbols_init(&s);
	ck_assert_msg(symbol_file_load(&s, "/proc/self/exe", err, sizeof(err)), "%s", err);
	symbols_finish(&s);
	const struct symbol *m = NULL;
	for (size_t i = 0; i < s.n; i++)
		if (!strcmp(s.v[i].name, "main"))
			m = &s.v[i];
	ck_assert(m);
	ck_assert_uint_gt(m->size, 0);
	char want[64];
	snprintf(want, sizeof(want), "main+0x1/0x%llx", (unsigned long long)m->size);
	ck_assert_str_eq(look(&s, m->addr + 1), want);
	symbols_destroy(&s);
	/* A truncated ELF is refused. */
	static const uint8_t trunc[] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	ck_assert(!symbol_file_parse(&s, "t", trunc, sizeof(trunc), err, sizeof(err)));
	symbols_destroy(&s);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("symbols");
	TCase *t = tcase_create("symbols");
	tcase_add_test(t, lookup_edges);
	tcase_add_test(t, map_lines);
	tcase_add_test(t, elf_symtab);
	suite_add_tcase(su, t);
	return run_suite(su);
}
