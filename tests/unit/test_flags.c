/* Check suite for emu/flags.c: flags_materialize of every lazy operation at every
 * width against hand-computed flags (carries and overflows at each width
 * boundary, AF from bit 3), flags_cf, and flags_cond for all 16 conditions
 * (SDM Vol.1 3.4.3.1 and Appendix B). */
#include <check.h>
#include <string.h>

#include "emu/flags.h"
#include "suite_runner.h"

#define CF FLAG_CF
#define PF FLAG_PF
#define AF FLAG_AF
#define ZF FLAG_ZF
#define SF FLAG_SF
#define OF FLAG_OF

/* One recorded operation and the six flags it must produce. */
struct flag_case {
	const char *what;
	enum lazy_op op;
	unsigned size;             /* bytes */
	uint64_t result, src1, src2, aux;
	uint64_t want;             /* FLAGS_ARITH bits */
};

static const struct flag_case cases[] = {
	/* ADD: carry out of each width, signed overflow, AF from bit 3. */
	{ "add8 ff+1", LAZY_ADD, 1, 0x00, 0xff, 0x01, 0, CF | PF | AF | ZF },
	{ "add8 7f+1", LAZY_ADD, 1, 0x80, 0x7f, 0x01, 0, AF | SF | OF },
	{ "add8 80+80", LAZY_ADD, 1, 0x00, 0x80, 0x80, 0, CF | PF | ZF | OF },
	{ "add8 08+08", LAZY_ADD, 1, 0x10, 0x08, 0x08, 0, AF },
	{ "add8 01+02", LAZY_ADD, 1, 0x03, 0x01, 0x02, 0, PF },
	{ "add16 ffff+1", LAZY_ADD, 2, 0x0000, 0xffff, 0x0001, 0, CF | PF | AF | ZF },
	{ "add16 7fff+1", LAZY_ADD, 2, 0x8000, 0x7fff, 0x0001, 0, PF | AF | SF | OF },
	{ "add16 00ff+1", LAZY_ADD, 2, 0x0100, 0x00ff, 0x0001, 0, PF | AF },
	{ "add32 ffffffff+1", LAZY_ADD, 4, 0, 0xffffffff, 1, 0, CF | PF | AF | ZF },
	{ "add32 7fffffff+1", LAZY_ADD, 4, 0x80000000, 0x7fffffff, 1, 0, PF | AF | SF | OF },
	{ "add32 80000000+80000000", LAZY_ADD, 4, 0, 0x80000000, 0x80000000, 0, CF | PF | ZF | OF },
	{ "add64 ~0+1", LAZY_ADD, 8, 0, ~0ull, 1, 0, CF | PF | AF | ZF },
	{ "add64 max+1", LAZY_ADD, 8, 1ull << 63, (1ull << 63) - 1, 1, 0, PF | AF | SF | OF },
	{ "add64 ffffffff+1", LAZY_ADD, 8, 1ull << 32, 0xffffffff, 1, 0, PF | AF },
	/* ADC: the carry-in decides CF when src2 + carry wraps. */
	{ "adc8 ff+0+1", LAZY_ADC, 1, 0x00, 0xff, 0x00, 1, CF | PF | AF | ZF },
	{ "adc8 ff+ff+1", LAZY_ADC, 1, 0xff, 0xff, 0xff, 1, CF | PF | AF | SF },
	{ "adc8 7f+0+1", LAZY_ADC, 1, 0x80, 0x7f, 0x00, 1, AF | SF | OF },
	{ "adc16 fffe+1+1", LAZY_ADC, 2, 0x0000, 0xfffe, 0x0001, 1, CF | PF | AF | ZF },
	{ "adc32 0+0+1", LAZY_ADC, 4, 1, 0, 0, 1, 0 },
	{ "adc64 ~0+~0+1", LAZY_ADC, 8, ~0ull, ~0ull, ~0ull, 1, CF | PF | AF | SF },
	/* SUB/CMP: borrow, overflow when signs differ. */
	{ "sub8 0-1", LAZY_SUB, 1, 0xff, 0x00, 0x01, 0, CF | PF | AF | SF },
	{ "sub8 80-1", LAZY_SUB, 1, 0x7f, 0x80, 0x01, 0, AF | OF },
	{ "sub8 7f-ff", LAZY_SUB, 1, 0x80, 0x7f, 0xff, 0, CF | SF | OF },
	{ "sub8 5-5", LAZY_SUB, 1, 0x00, 0x05, 0x05, 0, PF | ZF },
	{ "sub16 0-1", LAZY_SUB, 2, 0xffff, 0, 1, 0, CF | PF | AF | SF },
	{ "sub16 8000-1", LAZY_SUB, 2, 0x7fff, 0x8000, 1, 0, PF | AF | OF },
	{ "sub32 0-1", LAZY_SUB, 4, 0xffffffff, 0, 1, 0, CF | PF | AF | SF },
	{ "sub32 80000000-1", LAZY_SUB, 4, 0x7fffffff, 0x80000000, 1, 0, PF | AF | OF },
	{ "sub64 0-1", LAZY_SUB, 8, ~0ull, 0, 1, 0, CF | PF | AF | SF },
	{ "sub64 min-1", LAZY_SUB, 8, (1ull << 63) - 1, 1ull << 63, 1, 0, PF | AF | OF },
	{ "sub32 10-1 (AF)", LAZY_SUB, 4, 0x0f, 0x10, 0x01, 0, PF | AF },
	/* SBB: the borrow-in decides CF when src2 + borrow wraps. */
	{ "sbb8 5-5-1", LAZY_SBB, 1, 0xff, 0x05, 0x05, 1, CF | PF | AF | SF },
	{ "sbb8 5-4-1", LAZY_SBB, 1, 0x00, 0x05, 0x04, 1, PF | ZF },
	{ "sbb8 0-ff-1", LAZY_SBB, 1, 0x00, 0x00, 0xff, 1, CF | PF | AF | ZF },
	{ "sbb16 8000-0-1", LAZY_SBB, 2, 0x7fff, 0x8000, 0, 1, PF | AF | OF },
	{ "sbb64 0-~0-1", LAZY_SBB, 8, 0, 0, ~0ull, 1, CF | PF | AF | ZF },
	/* Logic: CF = OF = 0, AF = 0 (the modelled choice, emu/flags.c). */
	{ "logic8 80", LAZY_LOGIC, 1, 0x80, 0xff, 0x80, 0, SF },
	{ "logic16 0", LAZY_LOGIC, 2, 0, 0xff00, 0x00ff, 0, PF | ZF },
	{ "logic32 3", LAZY_LOGIC, 4, 3, 3, 3, 0, PF },
	{ "logic64 msb", LAZY_LOGIC, 8, 1ull << 63, 1ull << 63, ~0ull, 0, PF | SF },
	/* INC/DEC: CF is the preserved one in aux. */
	{ "inc8 7f cf=1", LAZY_INC, 1, 0x80, 0x7f, 1, 1, CF | AF | SF | OF },
	{ "inc8 ff cf=0", LAZY_INC, 1, 0x00, 0xff, 1, 0, PF | AF | ZF },
	{ "inc16 7fff", LAZY_INC, 2, 0x8000, 0x7fff, 1, 0, PF | AF | SF | OF },
	{ "inc32 7fffffff", LAZY_INC, 4, 0x80000000, 0x7fffffff, 1, 0, PF | AF | SF | OF },
	{ "inc64 max", LAZY_INC, 8, 1ull << 63, (1ull << 63) - 1, 1, 1, CF | PF | AF | SF | OF },
	{ "dec8 80", LAZY_DEC, 1, 0x7f, 0x80, 1, 0, AF | OF },
	{ "dec8 0 cf=1", LAZY_DEC, 1, 0xff, 0x00, 1, 1, CF | PF | AF | SF },
	{ "dec16 8000", LAZY_DEC, 2, 0x7fff, 0x8000, 1, 0, PF | AF | OF },
	{ "dec32 1", LAZY_DEC, 4, 0, 1, 1, 0, PF | ZF },
	{ "dec64 min", LAZY_DEC, 8, (1ull << 63) - 1, 1ull << 63, 1, 0, PF | AF | OF },
	/* NEG: CF = source != 0; OF only for the most negative value. */
	{ "neg8 0", LAZY_NEG, 1, 0x00, 0x00, 0, 0, PF | ZF },
	{ "neg8 1", LAZY_NEG, 1, 0xff, 0x01, 0, 0, CF | PF | AF | SF },
	{ "neg8 80", LAZY_NEG, 1, 0x80, 0x80, 0, 0, CF | SF | OF },
	{ "neg8 10", LAZY_NEG, 1, 0xf0, 0x10, 0, 0, CF | PF | SF },
	{ "neg16 8000", LAZY_NEG, 2, 0x8000, 0x8000, 0, 0, CF | PF | SF | OF },
	{ "neg32 80000000", LAZY_NEG, 4, 0x80000000, 0x80000000, 0, 0, CF | PF | SF | OF },
	{ "neg64 min", LAZY_NEG, 8, 1ull << 63, 1ull << 63, 0, 0, CF | PF | SF | OF },
	{ "neg64 1", LAZY_NEG, 8, ~0ull, 1, 0, 0, CF | PF | AF | SF },
};
#define N_CASES (sizeof(cases) / sizeof(cases[0]))

static void load_case(struct cpu *cpu, const struct flag_case *c, uint64_t other_flags)
{
	memset(cpu, 0, sizeof(*cpu));
	cpu->rflags = other_flags;
	flags_lazy(cpu, c->op, (unsigned)__builtin_ctz(c->size), c->result, c->src1, c->src2);
	cpu->lazy.aux = c->aux;
}

START_TEST(materialize_cases)
{
	const struct flag_case *c = &cases[_i];
	struct cpu cpu;
	/* Non-arithmetic bits and stale arithmetic bits: the first kept, the second replaced. */
	load_case(&cpu, c, FLAG_FIXED1 | FLAG_IF | FLAG_DF | FLAGS_ARITH);
	flags_materialize(&cpu);
	ck_assert_msg((cpu.rflags & FLAGS_ARITH) == c->want, "%s: got %#llx want %#llx", c->what,
		      (unsigned long long)(cpu.rflags & FLAGS_ARITH), (unsigned long long)c->want);
	ck_assert_uint_eq(cpu.rflags & ~(uint64_t)FLAGS_ARITH, FLAG_FIXED1 | FLAG_IF | FLAG_DF);
	ck_assert_uint_eq(cpu.lazy.op, LAZY_NONE);
	/* A second fold changes nothing. */
	flags_materialize(&cpu);
	ck_assert_uint_eq(cpu.rflags & FLAGS_ARITH, c->want);
}
END_TEST

START_TEST(cf_without_materializing)
{
	const struct flag_case *c = &cases[_i];
	struct cpu cpu;
	load_case(&cpu, c, FLAG_FIXED1);
	ck_assert_msg(flags_cf(&cpu) == ((c->want & CF) != 0), "%s", c->what);
	ck_assert_uint_ne(cpu.lazy.op, LAZY_NONE);
}
END_TEST

/* Reference evaluation of a condition from materialized flags (SDM Vol.1 Table B-1). */
static bool cond_reference(uint64_t f, unsigned cc)
{
	bool cf = f & CF, zf = f & ZF, sf = f & SF, of = f & OF, pf = f & PF, v;
	switch (cc >> 1) {
	case 0: v = of; break;
	case 1: v = cf; break;
	case 2: v = zf; break;
	case 3: v = cf || zf; break;
	case 4: v = sf; break;
	case 5: v = pf; break;
	case 6: v = sf != of; break;
	default: v = zf || (sf != of); break;
	}
	return (cc & 1) ? !v : v;
}

START_TEST(cond_matches_materialized)
{
	const struct flag_case *c = &cases[_i];
	for (unsigned cc = 0; cc < 16; cc++) {
		struct cpu cpu;
		load_case(&cpu, c, FLAG_FIXED1);
		bool fast = flags_cond(&cpu, cc);
		ck_assert_msg(fast == cond_reference(c->want, cc), "%s cc=%u", c->what, cc);
	}
}
END_TEST

/* CMP a, b at 32 bits and the 16 conditions, by hand: unsigned and signed orders. */
START_TEST(cond_after_cmp)
{
	static const struct { uint32_t a, b; const char *truths; } t[] = {
		/* cc:               O NO B NB Z NZ BE A S NS P NP L GE LE G */
		{ 1, 2,           "0110011010101010" },
		{ 2, 1,           "0101010101010101" },
		{ 5, 5,           "0101101001100110" },
		{ 0xffffffff, 1,  "0101010110011010" },   /* -1 vs 1: above, but less */
		{ 0x80000000, 1,  "1001010101101010" },   /* overflow: min - 1 */
	};
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct cpu cpu;
		memset(&cpu, 0, sizeof(cpu));
		uint32_t r = t[i].a - t[i].b;
		flags_lazy(&cpu, LAZY_SUB, 2, r, t[i].a, t[i].b);
		struct cpu copy = cpu;
		flags_materialize(&copy);
		for (unsigned cc = 0; cc < 16; cc++) {
			bool want = t[i].truths[cc] == '1';
			ck_assert_msg(flags_cond(&cpu, cc) == want, "cmp %#x,%#x cc=%u", t[i].a, t[i].b, cc);
			ck_assert_msg(cond_reference(copy.rflags, cc) == want, "ref %#x,%#x cc=%u",
				      t[i].a, t[i].b, cc);
		}
	}
}
END_TEST

START_TEST(cond_from_rflags)
{
	/* LAZY_NONE: conditions straight from rflags. */
	for (uint64_t f = 0; f < 64; f++) {
		uint64_t fl = FLAG_FIXED1 | ((f & 1) ? CF : 0) | ((f & 2) ? PF : 0) |
			      ((f & 4) ? ZF : 0) | ((f & 8) ? SF : 0) | ((f & 16) ? OF : 0) |
			      ((f & 32) ? AF : 0);
		struct cpu cpu;
		memset(&cpu, 0, sizeof(cpu));
		cpu.rflags = fl;
		for (unsigned cc = 0; cc < 16; cc++)
			ck_assert(flags_cond(&cpu, cc) == cond_reference(fl, cc));
		ck_assert(flags_cf(&cpu) == ((fl & CF) != 0));
	}
}
END_TEST

START_TEST(update_folds_first)
{
	struct cpu cpu;
	memset(&cpu, 0, sizeof(cpu));
	cpu.rflags = FLAG_FIXED1;
	flags_lazy(&cpu, LAZY_SUB, 0, 0xff, 0, 1);      /* CF PF AF SF */
	flags_update(&cpu, FLAG_CF, 0);
	ck_assert_uint_eq(cpu.lazy.op, LAZY_NONE);
	ck_assert_uint_eq(cpu.rflags & FLAGS_ARITH, PF | AF | SF);
}
END_TEST

static Suite *flags_suite(void)
{
	Suite *s = suite_create("flags");
	TCase *tc = tcase_create("materialize");
	tcase_add_loop_test(tc, materialize_cases, 0, (int)N_CASES);
	tcase_add_loop_test(tc, cf_without_materializing, 0, (int)N_CASES);
	tcase_add_test(tc, update_folds_first);
	suite_add_tcase(s, tc);
	tc = tcase_create("cond");
	tcase_add_loop_test(tc, cond_matches_materialized, 0, (int)N_CASES);
	tcase_add_test(tc, cond_after_cmp);
	tcase_add_test(tc, cond_from_rflags);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(flags_suite());
}
