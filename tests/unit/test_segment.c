/* Check suite for mmu/segment.c: descriptor unpacking, real/v8086 loads and the
 * protection rules for loading data and stack segment registers (SDM Vol.3 3.4.5,
 * 5.5, 5.10, 20.1.1, 20.2.1; SDM Vol.2 MOV/POP Sreg). */
#include <check.h>

#include "mmu/segment.h"
#include "suite_runner.h"
#include "desc_encode.h"

/* Segment types (S=1), SDM Vol.3 Table 3-1. */
enum {
	T_DATA_RO = 0x0, T_DATA_RW = 0x2, T_DATA_RO_DOWN = 0x4, T_DATA_RW_DOWN = 0x6,
	T_CODE_XO = 0x8, T_CODE_XR = 0xa, T_CODE_XO_CONF = 0xc, T_CODE_XR_CONF = 0xe,
};

/* ---- unpacking and real/v8086 loads ---- */

START_TEST(descriptor_fields)
{
	struct segment s = { 0 };
	uint64_t raw = mkdesc(0x12345678, 0xabcde, T_DATA_RW | 1, true, 2, true, true, false);
	seg_load_descriptor(&s, 0x2a, raw);
	ck_assert_uint_eq(s.selector, 0x2a);
	ck_assert_uint_eq(s.base, 0x12345678);
	ck_assert_uint_eq(s.limit, 0xabcde);
	ck_assert_uint_eq(s.attr, SEG_P | (2 << SEG_DPL_SHIFT) | SEG_S | SEG_TYPE_RW |
			  SEG_TYPE_ACCESSED | SEG_DB);
	ck_assert_uint_eq(s.perm, SEG_PERM_READ | SEG_PERM_WRITE);
	ck_assert_uint_eq(s.lo, 0);
	ck_assert_uint_eq(s.hi, 0xabcde);
}
END_TEST

START_TEST(descriptor_granularity)
{
	/* SDM Vol.3 3.4.5: G=1 scales the limit by 4 KiB, filling the low 12 bits. */
	struct segment s = { 0 };
	seg_load_descriptor(&s, 0x8, mkdesc(0, 0xfffff, T_CODE_XR, true, 0, true, true, true));
	ck_assert_uint_eq(s.limit, 0xffffffffu);
	ck_assert_uint_eq(s.perm, SEG_PERM_EXEC | SEG_PERM_READ);
	seg_load_descriptor(&s, 0x8, mkdesc(0, 0x1, T_CODE_XO, true, 0, true, true, true));
	ck_assert_uint_eq(s.limit, 0x1fff);
	ck_assert_uint_eq(s.perm, SEG_PERM_EXEC);
}
END_TEST

START_TEST(descriptor_expand_down)
{
	/* SDM Vol.3 5.3: expand-down valid offsets are limit+1 .. FFFFH (B=0) or
	 * FFFFFFFFH (B=1). */
	struct segment s = { 0 };
	seg_load_descriptor(&s, 0x10, mkdesc(0, 0x0fff, T_DATA_RW_DOWN, true, 0, true, false, false));
	ck_assert_uint_eq(s.lo, 0x1000);
	ck_assert_uint_eq(s.hi, 0xffff);
	ck_assert(!seg_access_ok(&s, 0xfff, 1, SEG_PERM_WRITE));
	ck_assert(seg_access_ok(&s, 0x1000, 4, SEG_PERM_WRITE));
	ck_assert(!seg_access_ok(&s, 0xfffe, 4, SEG_PERM_WRITE));
	seg_load_descriptor(&s, 0x10, mkdesc(0, 0x0fff, T_DATA_RW_DOWN, true, 0, true, true, false));
	ck_assert_uint_eq(s.hi, 0xffffffffu);
}
END_TEST

START_TEST(descriptor_not_present_unusable)
{
	struct segment s = { 0 };
	seg_load_descriptor(&s, 0x10, mkdesc(0, 0xffff, T_DATA_RW, true, 0, false, false, false));
	ck_assert_uint_eq(s.perm, 0);
	ck_assert(!seg_access_ok(&s, 0, 1, SEG_PERM_READ));
}
END_TEST

START_TEST(real_load_keeps_limit)
{
	/* SDM Vol.3 20.1.1: base = selector * 16; the limit stays ("big real mode"). */
	struct segment s = { 0 };
	seg_load_descriptor(&s, 0x10, mkdesc(0, 0xfffff, T_DATA_RW | 1, true, 0, true, true, true));
	seg_load_real(&s, 0x1234);
	ck_assert_uint_eq(s.selector, 0x1234);
	ck_assert_uint_eq(s.base, 0x12340);
	ck_assert_uint_eq(s.limit, 0xffffffffu);
	ck_assert(s.attr & SEG_DB);
	ck_assert(seg_access_ok(&s, 0x100000, 4, SEG_PERM_WRITE));
}
END_TEST

START_TEST(real_load_after_null_is_usable)
{
	struct segment s = { .selector = 0, .attr = 0, .limit = 0xffff };
	seg_refresh(&s);
	ck_assert(!seg_access_ok(&s, 0, 1, SEG_PERM_READ));
	seg_load_real(&s, 0xb800);
	ck_assert_uint_eq(s.base, 0xb8000);
	ck_assert(seg_access_ok(&s, 0xfffe, 2, SEG_PERM_WRITE));
	ck_assert_uint_eq((s.attr & SEG_DPL) >> SEG_DPL_SHIFT, 0);
}
END_TEST

START_TEST(v86_load)
{
	/* SDM Vol.3 20.2.1, 26.3.1.2: limit FFFFH, attributes F3H. */
	struct segment s = { 0 };
	seg_load_descriptor(&s, 0x10, mkdesc(0, 0xfffff, T_CODE_XR, true, 0, true, true, true));
	seg_load_v86(&s, 0xf000);
	ck_assert_uint_eq(s.base, 0xf0000);
	ck_assert_uint_eq(s.limit, 0xffff);
	ck_assert_uint_eq(s.attr, 0xf3);
	ck_assert(!seg_access_ok(&s, 0xffff, 2, SEG_PERM_READ));
}
END_TEST

/* ---- seg_check_data_load: named cases ---- */

struct load_case {
	const char *name;
	enum sreg sr;
	uint16_t sel;
	unsigned type;
	bool s, p;
	unsigned dpl, cpl;
	bool ok;
	uint8_t vector;
	uint32_t error;
};

static const struct load_case load_cases[] = {
	/* DS/ES/FS/GS (SDM Vol.2 MOV, Vol.3 5.6) */
	{ "ds data dpl3 cpl3", SR_DS, 0x23, T_DATA_RW, true, true, 3, 3, true, 0, 0 },
	{ "ds data ro", SR_DS, 0x23, T_DATA_RO, true, true, 3, 3, true, 0, 0 },
	{ "ds data dpl0 cpl3", SR_DS, 0x13, T_DATA_RW, true, true, 0, 3, false, EXC_GP, 0x10 },
	{ "ds data rpl3 > dpl2", SR_ES, 0x1b, T_DATA_RW, true, true, 2, 0, false, EXC_GP, 0x18 },
	{ "ds data rpl1 <= dpl1 cpl0", SR_FS, 0x19, T_DATA_RW, true, true, 1, 0, true, 0, 0 },
	{ "ds readable code", SR_GS, 0x08, T_CODE_XR, true, true, 0, 0, true, 0, 0 },
	{ "ds exec-only code", SR_DS, 0x08, T_CODE_XO, true, true, 0, 0, false, EXC_GP, 0x08 },
	{ "ds nonconforming code dpl0 cpl3", SR_DS, 0x0b, T_CODE_XR, true, true, 0, 3, false, EXC_GP, 0x08 },
	{ "ds conforming code dpl0 cpl3", SR_DS, 0x0b, T_CODE_XR_CONF, true, true, 0, 3, true, 0, 0 },
	{ "ds conforming exec-only", SR_DS, 0x0b, T_CODE_XO_CONF, true, true, 0, 3, false, EXC_GP, 0x08 },
	{ "ds not present", SR_DS, 0x10, T_DATA_RW, true, false, 0, 0, false, EXC_NP, 0x10 },
	{ "ds not present ldt", SR_DS, 0x17, T_DATA_RW, true, false, 3, 3, false, EXC_NP, 0x14 },
	{ "ds privilege before present", SR_DS, 0x13, T_DATA_RW, true, false, 0, 3, false, EXC_GP, 0x10 },
	{ "ds system (tss)", SR_DS, 0x28, 0x9, false, true, 0, 0, false, EXC_GP, 0x28 },
	{ "ds system (ldt)", SR_DS, 0x28, 0x2, false, true, 0, 0, false, EXC_GP, 0x28 },
	{ "ds null", SR_DS, 0x0000, 0, false, false, 0, 3, true, 0, 0 },
	{ "ds null rpl3", SR_DS, 0x0003, 0, false, false, 0, 0, true, 0, 0 },
	/* SS (SDM Vol.2 MOV SS, Vol.3 5.10) */
	{ "ss ok", SR_SS, 0x10, T_DATA_RW, true, true, 0, 0, true, 0, 0 },
	{ "ss expand-down ok", SR_SS, 0x10, T_DATA_RW_DOWN, true, true, 0, 0, true, 0, 0 },
	{ "ss null", SR_SS, 0x0000, 0, false, false, 0, 0, false, EXC_GP, 0 },
	{ "ss null rpl3", SR_SS, 0x0003, 0, false, false, 0, 3, false, EXC_GP, 0 },
	{ "ss rpl != cpl", SR_SS, 0x13, T_DATA_RW, true, true, 0, 0, false, EXC_GP, 0x10 },
	{ "ss dpl != cpl", SR_SS, 0x23, T_DATA_RW, true, true, 2, 3, false, EXC_GP, 0x20 },
	{ "ss read-only", SR_SS, 0x10, T_DATA_RO, true, true, 0, 0, false, EXC_GP, 0x10 },
	{ "ss code", SR_SS, 0x08, T_CODE_XR, true, true, 0, 0, false, EXC_GP, 0x08 },
	{ "ss not present", SR_SS, 0x10, T_DATA_RW, true, false, 0, 0, false, EXC_SS, 0x10 },
	{ "ss type before present", SR_SS, 0x10, T_DATA_RO, true, false, 0, 0, false, EXC_GP, 0x10 },
	{ "ss system", SR_SS, 0x28, 0x9, false, true, 0, 0, false, EXC_GP, 0x28 },
	/* CS is never loaded this way */
	{ "cs", SR_CS, 0x08, T_CODE_XR, true, true, 0, 0, false, EXC_UD, 0 },
};

START_TEST(data_load_case)
{
	const struct load_case *c = &load_cases[_i];
	uint64_t raw = c->sel & 0xfffc ? mkdesc(0, 0xffff, c->type, c->s, c->dpl, c->p, true, false) : 0;
	struct fault f = { .vector = 0xff };
	bool ok = seg_check_data_load(c->sr, c->sel, raw, c->cpl, &f);
	ck_assert_msg(ok == c->ok, "%s: ok=%d", c->name, ok);
	if (!c->ok) {
		ck_assert_msg(f.vector == c->vector, "%s: vector %u", c->name, f.vector);
		ck_assert_msg(f.error_code == c->error, "%s: error %#x", c->name, f.error_code);
		ck_assert_msg(f.has_error == (c->vector != EXC_UD), "%s: has_error", c->name);
	}
}
END_TEST

/* ---- seg_check_data_load: every type/S/DPL/RPL/CPL/P combination against the
 * rules as the SDM states them ---- */

START_TEST(data_load_exhaustive)
{
	unsigned checked = 0;
	for (unsigned sr = SR_ES; sr < SR_COUNT; sr++) {
		if (sr == SR_CS)
			continue;
		for (unsigned s = 0; s < 2; s++)
		for (unsigned type = 0; type < 16; type++)
		for (unsigned dpl = 0; dpl < 4; dpl++)
		for (unsigned rpl = 0; rpl < 4; rpl++)
		for (unsigned cpl = 0; cpl < 4; cpl++)
		for (unsigned p = 0; p < 2; p++) {
			uint16_t sel = (uint16_t)(0x40 | rpl);
			uint64_t raw = mkdesc(0, 0xffff, type, s, dpl, p, true, false);
			struct fault f = { .vector = 0xff };
			bool ok = seg_check_data_load((enum sreg)sr, sel, raw, cpl, &f);
			bool code = s && (type & 8), data = s && !(type & 8);
			bool rights_ok;
			if (sr == SR_SS)
				/* 5.10: RPL = CPL = DPL and a writable data segment. */
				rights_ok = data && (type & 2) && rpl == cpl && dpl == cpl;
			else
				/* 5.6: data or readable code; privilege unless conforming. */
				rights_ok = (data || (code && (type & 2))) &&
					    ((code && (type & 4)) || (rpl <= dpl && cpl <= dpl));
			ck_assert_uint_eq(ok, rights_ok && p);
			if (!ok) {
				uint8_t want = !rights_ok ? EXC_GP : sr == SR_SS ? EXC_SS : EXC_NP;
				ck_assert_uint_eq(f.vector, want);
				ck_assert(f.has_error);
				ck_assert_uint_eq(f.error_code, 0x40);   /* index|TI, RPL dropped */
			}
			checked++;
		}
	}
	ck_assert_uint_eq(checked, 5 * 2 * 16 * 4 * 4 * 4 * 2);
}
END_TEST

static Suite *segment_suite(void)
{
	Suite *s = suite_create("segment");
	TCase *tc = tcase_create("descriptor");
	tcase_add_test(tc, descriptor_fields);
	tcase_add_test(tc, descriptor_granularity);
	tcase_add_test(tc, descriptor_expand_down);
	tcase_add_test(tc, descriptor_not_present_unusable);
	suite_add_tcase(s, tc);
	tc = tcase_create("real_v86");
	tcase_add_test(tc, real_load_keeps_limit);
	tcase_add_test(tc, real_load_after_null_is_usable);
	tcase_add_test(tc, v86_load);
	suite_add_tcase(s, tc);
	tc = tcase_create("data_load");
	tcase_add_loop_test(tc, data_load_case, 0, sizeof(load_cases) / sizeof(load_cases[0]));
	tcase_add_test(tc, data_load_exhaustive);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(segment_suite());
}
