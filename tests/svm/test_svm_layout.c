/* Check suites for svm/: the VMCB as guest memory sees it (the struct offsets
 * themselves are _Static_asserts in svm/vmcb.h), the intercept vectors, and
 * the #VMEXIT code table (APM2 Appendices B and C). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "emu/cpu.h"
#include "mmu/x86.h"
#include "svm/bitmaps.h"
#include "svm/capabilities.h"
#include "svm/exit_codes.h"
#include "svm/vmcb.h"
#include "svm/vmcb_fields.h"

/* EVENTINJ types are the core's event types (emu/cpu.h), so an event moves
 * between cpu->event and the VMCB without translation (APM2 15.20). */
_Static_assert((int)SVM_EVENT_INTR == (int)EV_EXTINT && (int)SVM_EVENT_NMI == (int)EV_NMI &&
	       (int)SVM_EVENT_EXCEPTION == (int)EV_EXCEPTION &&
	       (int)SVM_EVENT_SOFT_INT == (int)EV_SOFTINT,
	       "svm_event_type must match enum event_type");

/* Read a little-endian value from a byte image, as a guest would see it. */
static uint64_t le_at(const uint8_t *p, size_t off, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)p[off + i] << (8 * i);
	return v;
}

/* ---- layout as a memory image ---- */

START_TEST(vmcb_image_offsets)
{
	/* APM2 Table B-1/B-2 offsets, observed in the 4 KB image rather than via
	 * offsetof: what a guest hypervisor writes at 0x070 is what we read. */
	static struct vmcb v;
	uint8_t img[4096];
	memset(&v, 0, sizeof(v));
	v.control.exitcode = 0x1122334455667788ull;
	v.control.exitinfo1 = 0x0000000000000001ull;
	v.control.exitinfo2 = 0xfedcba9876543210ull;
	v.control.guest_asid = 0x2a;
	v.control.tlb_control = SVM_TLB_FLUSH_ASID;
	v.control.n_cr3 = 0x123000;
	v.control.np_control = SVM_NP_ENABLE;
	v.control.insn_len = 3;
	v.control.insn_bytes[0] = 0x0f;
	v.control.insn_bytes[14] = 0xcc;
	v.save.cs.selector = 0x0008;
	v.save.cs.attrib = 0x029b;
	v.save.cs.limit = 0xffffffff;
	v.save.cpl = 3;
	v.save.efer = 0x1500;
	v.save.rip = 0xffffffff81000000ull;
	v.save.rax = 0xaa55;
	v.save.g_pat = 0x0007040600070406ull;
	memcpy(img, &v, sizeof(img));

	ck_assert_uint_eq(le_at(img, 0x070, 8), 0x1122334455667788ull);
	ck_assert_uint_eq(le_at(img, 0x078, 8), 1);
	ck_assert_uint_eq(le_at(img, 0x080, 8), 0xfedcba9876543210ull);
	ck_assert_uint_eq(le_at(img, 0x058, 4), 0x2a);
	ck_assert_uint_eq(img[0x05c], 3);
	ck_assert_uint_eq(le_at(img, 0x0b0, 8), 0x123000);
	ck_assert_uint_eq(le_at(img, 0x090, 8), 1);
	ck_assert_uint_eq(img[0x0d0], 3);
	ck_assert_uint_eq(img[0x0d1], 0x0f);
	ck_assert_uint_eq(img[0x0df], 0xcc);
	ck_assert_uint_eq(le_at(img, 0x400 + 0x010, 2), 0x0008);
	ck_assert_uint_eq(le_at(img, 0x400 + 0x012, 2), 0x029b);
	ck_assert_uint_eq(le_at(img, 0x400 + 0x014, 4), 0xffffffff);
	ck_assert_uint_eq(img[0x400 + 0x0cb], 3);
	ck_assert_uint_eq(le_at(img, 0x400 + 0x0d0, 8), 0x1500);
	ck_assert_uint_eq(le_at(img, 0x400 + 0x178, 8), 0xffffffff81000000ull);
	ck_assert_uint_eq(le_at(img, 0x400 + 0x1f8, 8), 0xaa55);
	ck_assert_uint_eq(le_at(img, 0x400 + 0x268, 8), 0x0007040600070406ull);
}
END_TEST

/* ---- intercept vectors ---- */

START_TEST(intercept_bits)
{
	struct vmcb_control c;
	memset(&c, 0, sizeof(c));

	/* APM2 Table B-1: 0x00C bit 18 CPUID, 0x010 bit 0 VMRUN, 0x000 bit 19
	 * CR3 write, 0x008 bit 14 #PF, 0x004 bit 7 DR7 read, 0x014 bit 2 INVPCID. */
	vmcb_set_intercept(&c, SVM_INTERCEPT_CPUID, 1);
	vmcb_set_intercept(&c, SVM_INTERCEPT_VMRUN, 1);
	vmcb_set_intercept(&c, SVM_INTERCEPT_CR_WRITE + 3, 1);
	vmcb_set_intercept(&c, SVM_INTERCEPT_EXCEPTION + 14, 1);
	vmcb_set_intercept(&c, SVM_INTERCEPT_DR_READ + 7, 1);
	vmcb_set_intercept(&c, SVM_INTERCEPT_INVPCID, 1);
	ck_assert_uint_eq(c.intercepts[SVM_IW_MISC1], 1u << 18);
	ck_assert_uint_eq(c.intercepts[SVM_IW_MISC2], 1u << 0);
	ck_assert_uint_eq(c.intercepts[SVM_IW_CR], 1u << 19);
	ck_assert_uint_eq(c.intercepts[SVM_IW_EXCEPTION], 1u << 14);
	ck_assert_uint_eq(c.intercepts[SVM_IW_DR], 1u << 7);
	ck_assert_uint_eq(c.intercepts[SVM_IW_MISC3], 1u << 2);

	ck_assert(vmcb_intercepted(&c, SVM_INTERCEPT_CPUID));
	ck_assert(!vmcb_intercepted(&c, SVM_INTERCEPT_HLT));
	ck_assert(!vmcb_intercepted(&c, SVM_INTERCEPT_CR_READ + 3));

	vmcb_set_intercept(&c, SVM_INTERCEPT_CPUID, 0);
	ck_assert_uint_eq(c.intercepts[SVM_IW_MISC1], 0);

	/* Out-of-range numbers (e.g. from a corrupted table) touch nothing. */
	struct vmcb_control before = c;
	vmcb_set_intercept(&c, (enum svm_intercept)(SVM_IW_COUNT * 32), 1);
	vmcb_set_intercept(&c, (enum svm_intercept)-1, 1);
	ck_assert(memcmp(&before, &c, sizeof(c)) == 0);
	ck_assert(!vmcb_intercepted(&c, (enum svm_intercept)(SVM_IW_COUNT * 32 + 5)));
}
END_TEST

START_TEST(intercept_words_fill_vectors)
{
	/* Words 3 and 4 each hold 32 intercepts; the named enumerators reach the
	 * top bit of word 3 and TRAP_CR15 is bit 31 of word 4. */
	struct vmcb_control c;
	memset(&c, 0, sizeof(c));
	vmcb_set_intercept(&c, SVM_INTERCEPT_SHUTDOWN, 1);
	vmcb_set_intercept(&c, SVM_TRAP_CR_WRITE + 15, 1);
	ck_assert_uint_eq(c.intercepts[SVM_IW_MISC1], 0x80000000u);
	ck_assert_uint_eq(c.intercepts[SVM_IW_MISC2], 0x80000000u);
}
END_TEST

/* ---- event injection format ---- */

START_TEST(eventinj_format)
{
	/* APM2 15.20: #GP(0x10) = vector 13, type 3, EV, V, error in 63:32. */
	uint64_t ev = 13 | ((uint64_t)SVM_EVENT_EXCEPTION << SVM_EVENT_TYPE_SHIFT) |
		      SVM_EVENT_ERROR_VALID | SVM_EVENT_VALID | (0x10ull << SVM_EVENT_ERROR_SHIFT);
	ck_assert_uint_eq(ev, 0x0000001080000b0dull);
	ck_assert_uint_eq(ev & SVM_EVENT_RESERVED, 0);
	ck_assert_uint_eq((ev & SVM_EVENT_TYPE_MASK) >> SVM_EVENT_TYPE_SHIFT, SVM_EVENT_EXCEPTION);
	ck_assert_uint_ne((1ull << 12) & SVM_EVENT_RESERVED, 0);
	ck_assert_uint_ne((1ull << 30) & SVM_EVENT_RESERVED, 0);
}
END_TEST

/* ---- #VMEXIT codes ---- */

START_TEST(exit_table_sorted_unique)
{
	size_t n;
	const struct svm_exit_info *t = svm_exit_table(&n);
	ck_assert_uint_gt(n, 0);
	for (size_t i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(t[i].name);
		ck_assert_ptr_nonnull(t[i].exitinfo1);
		ck_assert_ptr_nonnull(t[i].exitinfo2);
		ck_assert_uint_gt(strlen(t[i].name), 0);
		if (i > 0)
			ck_assert_msg(t[i - 1].code < t[i].code, "row %zu (%s) out of order", i, t[i].name);
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(strcmp(t[i].name, t[j].name) != 0, "duplicate name %s", t[i].name);
		/* Every row is found by its own code. */
		ck_assert_ptr_eq(svm_exit_lookup(t[i].code), &t[i]);
	}
}
END_TEST

START_TEST(exit_lookup_known)
{
	ck_assert_str_eq(svm_exit_name(0x072), "cpuid");
	ck_assert_str_eq(svm_exit_name(0x003), "read_cr3");
	ck_assert_str_eq(svm_exit_name(0x013), "write_cr3");
	ck_assert_str_eq(svm_exit_name(0x027), "read_dr7");
	ck_assert_str_eq(svm_exit_name(0x04e), "excp_pf");
	ck_assert_str_eq(svm_exit_name(0x07b), "ioio");
	ck_assert_str_eq(svm_exit_name(0x080), "vmrun");
	ck_assert_str_eq(svm_exit_name(0x093), "cr3_write_trap");
	ck_assert_str_eq(svm_exit_name(0x400), "npf");
	ck_assert_str_eq(svm_exit_name(SVM_EXIT_INVALID), "invalid");
	ck_assert_str_eq(svm_exit_name((uint64_t)-2), "busy");

	const struct svm_exit_info *e = svm_exit_lookup(SVM_EXIT_IOIO);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->exitinfo2, "rIP of the next instruction");
	e = svm_exit_lookup(SVM_EXIT_EXCEPTION + 14);
	ck_assert_str_ne(e->exitinfo2, "-");        /* #PF: faulting address */
	e = svm_exit_lookup(SVM_EXIT_EXCEPTION + 6);
	ck_assert_str_eq(e->exitinfo1, "-");        /* #UD pushes no error code */
}
END_TEST

START_TEST(exit_lookup_unknown)
{
	/* Holes and garbage a guest may leave in EXITCODE. */
	const uint64_t holes[] = { 0x0a7, 0x0ff, 0x3ff, 0x404, 0x80000000u, 0xfffffffffffffffbull,
				   0x8000000000000000ull, 0x100000072ull };
	for (size_t i = 0; i < sizeof(holes) / sizeof(holes[0]); i++) {
		ck_assert_ptr_null(svm_exit_lookup(holes[i]));
		ck_assert_str_eq(svm_exit_name(holes[i]), "unknown");
	}
}
END_TEST

START_TEST(exit_codes_follow_intercepts)
{
	/* APM2 Appendix C: the exit codes 0x000-0x0A6 follow the intercept bits
	 * in order: CR/DR read/write, exceptions, then vectors 3, 4 and 5 at
	 * 0x060, 0x080 and 0x0A0. Each intercept needs a row. */
	for (unsigned i = 0; i < 16; i++) {
		ck_assert_ptr_nonnull(svm_exit_lookup(SVM_EXIT_CR_READ + i));
		ck_assert_ptr_nonnull(svm_exit_lookup(SVM_EXIT_CR_WRITE + i));
		ck_assert_ptr_nonnull(svm_exit_lookup(SVM_EXIT_DR_READ + i));
		ck_assert_ptr_nonnull(svm_exit_lookup(SVM_EXIT_DR_WRITE + i));
		ck_assert_ptr_nonnull(svm_exit_lookup(SVM_EXIT_CR_WRITE_TRAP + i));
	}
	for (unsigned v = 0; v < 32; v++)
		ck_assert_ptr_nonnull(svm_exit_lookup(SVM_EXIT_EXCEPTION + v));
	for (unsigned i = SVM_INTERCEPT_INTR; i <= SVM_INTERCEPT_SHUTDOWN; i++)
		ck_assert_ptr_nonnull(svm_exit_lookup(0x060 + (i - SVM_INTERCEPT_INTR)));
	for (unsigned i = SVM_INTERCEPT_VMRUN; i <= SVM_TRAP_EFER_WRITE; i++)
		ck_assert_ptr_nonnull(svm_exit_lookup(0x080 + (i - SVM_INTERCEPT_VMRUN)));
	for (unsigned i = SVM_INTERCEPT_INVLPGB; i <= SVM_INTERCEPT_IDLE_HLT; i++)
		ck_assert_ptr_nonnull(svm_exit_lookup(0x0a0 + (i - SVM_INTERCEPT_INVLPGB)));
	ck_assert_uint_eq(SVM_EXIT_CPUID, 0x060 + (SVM_INTERCEPT_CPUID - SVM_INTERCEPT_INTR));
	ck_assert_uint_eq(SVM_EXIT_XSETBV, 0x080 + (SVM_INTERCEPT_XSETBV - SVM_INTERCEPT_VMRUN));
	ck_assert_uint_eq(SVM_EXIT_BUS_LOCK, 0x0a0 + (SVM_INTERCEPT_BUS_LOCK - SVM_INTERCEPT_INVLPGB));
}
END_TEST

/* ---- the field table ---- */

START_TEST(field_table_shape)
{
	size_t n;
	const struct vmcb_field *t = vmcb_field_table(&n);
	ck_assert_uint_gt(n, 0);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_gt(t[i].size, 0);
		ck_assert_uint_le((unsigned)t[i].offset + t[i].size, sizeof(struct vmcb));
		ck_assert(t[i].save_area == (t[i].offset >= 0x400));
		ck_assert(t[i].clean < SVM_CLEAN_COUNT || t[i].clean == VMCB_CLEAN_NONE);
		if (i > 0)
			ck_assert_msg((unsigned)t[i - 1].offset + t[i - 1].size <= t[i].offset,
				      "%s overlaps %s", t[i].member, t[i - 1].member);
		for (unsigned b = 0; b < t[i].size; b++)
			ck_assert_ptr_eq(vmcb_field_at(t[i].offset + b), &t[i]);
	}
}
END_TEST

START_TEST(field_at)
{
	const struct vmcb_field *f = vmcb_field_at(0x073);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->name, "EXITCODE");
	ck_assert_uint_eq(f->offset, 0x070);
	f = vmcb_field_at(0x400 + 0x178);
	ck_assert_str_eq(f->name, "RIP");
	ck_assert_uint_eq(f->clean, VMCB_CLEAN_NONE);
	f = vmcb_field_at(0x400 + 0x244);
	ck_assert_str_eq(f->name, "CR2");
	ck_assert_uint_eq(f->clean, SVM_CLEAN_CR2);
	f = vmcb_field_at(0x400 + 0x012);
	ck_assert_str_eq(f->member, "save.cs.attrib");
	ck_assert_uint_eq(f->clean, SVM_CLEAN_SEG);
	f = vmcb_field_at(0x0df);
	ck_assert_str_eq(f->member, "control.insn_bytes");
	/* Reserved bytes and offsets past the page name nothing. */
	ck_assert_ptr_null(vmcb_field_at(0x018));
	ck_assert_ptr_null(vmcb_field_at(0x05d));
	ck_assert_ptr_null(vmcb_field_at(0x3e0));
	ck_assert_ptr_null(vmcb_field_at(0x400 + 0x0a0));
	ck_assert_ptr_null(vmcb_field_at(0x400 + 0x060));       /* GDTR has no selector */
	ck_assert_ptr_null(vmcb_field_at(0xfff));
	ck_assert_ptr_null(vmcb_field_at(0x1000));
	ck_assert_ptr_null(vmcb_field_at(UINT64_MAX));
}
END_TEST

START_TEST(field_groups)
{
	/* APM2 15.5.2: VMLOAD/VMSAVE move FS, GS, TR, LDTR (with hidden state),
	 * KernelGsBase, STAR, LSTAR, CSTAR, SFMASK, SYSENTER_CS/ESP/EIP. */
	size_t n, vmload_bytes = 0, crx = 0;
	const struct vmcb_field *t = vmcb_field_table(&n);
	for (size_t i = 0; i < n; i++) {
		if (t[i].vmload) {
			ck_assert(t[i].save_area);
			vmload_bytes += t[i].size;
		}
		if (t[i].clean == SVM_CLEAN_CRX) {
			ck_assert(!strcmp(t[i].name, "CR0") || !strcmp(t[i].name, "CR3") ||
				  !strcmp(t[i].name, "CR4") || !strcmp(t[i].name, "EFER"));
			crx++;
		}
	}
	ck_assert_uint_eq(vmload_bytes, 4 * 16 + 8 * 8);
	ck_assert_uint_eq(crx, 4);
	ck_assert(vmcb_field_at(0x400 + 0x220)->vmload);      /* KernelGsBase */
	ck_assert(!vmcb_field_at(0x400 + 0x1f8)->vmload);     /* RAX: VMRUN's */
}
END_TEST

/* ---- permission maps ---- */

START_TEST(msrpm_locate)
{
	uint32_t byte;
	unsigned bit;
	ck_assert(svm_msrpm_locate(0, false, &byte, &bit));
	ck_assert_uint_eq(byte, 0);
	ck_assert_uint_eq(bit, 0);
	ck_assert(svm_msrpm_locate(0, true, &byte, &bit));
	ck_assert_uint_eq(bit, 1);
	ck_assert(svm_msrpm_locate(0x1fff, true, &byte, &bit));
	ck_assert_uint_eq(byte, 0x7ff);
	ck_assert_uint_eq(bit, 7);
	ck_assert(svm_msrpm_locate(0xc0000080, false, &byte, &bit));  /* EFER */
	ck_assert_uint_eq(byte, 0x820);
	ck_assert_uint_eq(bit, 0);
	ck_assert(svm_msrpm_locate(0xc0010117, true, &byte, &bit));   /* VM_HSAVE_PA */
	ck_assert_uint_eq(byte, 0x1045);
	ck_assert_uint_eq(bit, 7);
	const uint32_t outside[] = { 0x2000, 0xbfffffff, 0xc0002000, 0xc000ffff, 0xc0012000, 0x40000000, 0xffffffff };
	static uint8_t map[SVM_MSRPM_SIZE];
	memset(map, 0, sizeof(map));
	for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
		ck_assert(!svm_msrpm_locate(outside[i], false, &byte, &bit));
		ck_assert(svm_msrpm_intercepted(map, outside[i], false));  /* always intercepted */
	}
	map[0x820] = 0x02;                    /* EFER writes only */
	ck_assert(svm_msrpm_intercepted(map, 0xc0000080, true));
	ck_assert(!svm_msrpm_intercepted(map, 0xc0000080, false));
	ck_assert(!svm_msrpm_intercepted(map, 0xc0000081, true));
}
END_TEST

START_TEST(iopm_intercepted)
{
	static uint8_t map[SVM_IOPM_SIZE];
	memset(map, 0, sizeof(map));
	map[0x3f8 / 8] |= 1u << (0x3f8 % 8);
	ck_assert(svm_iopm_intercepted(map, 0x3f8, 1));
	ck_assert(svm_iopm_intercepted(map, 0x3f7, 2));   /* second byte is 0x3F8 */
	ck_assert(svm_iopm_intercepted(map, 0x3f5, 4));
	ck_assert(!svm_iopm_intercepted(map, 0x3f9, 4));
	ck_assert(!svm_iopm_intercepted(map, 0x3f4, 4));
	/* A dword at 0xFFFF reaches bits 0x10000-0x10002, still inside the map. */
	ck_assert(!svm_iopm_intercepted(map, 0xffff, 4));
	map[0x10002 / 8] |= 1u << (0x10002 % 8);
	ck_assert(svm_iopm_intercepted(map, 0xffff, 4));
	ck_assert(!svm_iopm_intercepted(map, 0xffff, 2));
	ck_assert(svm_iopm_intercepted(map, 0x80, 3));    /* not an I/O size */
	ck_assert(svm_iopm_intercepted(map, 0x80, 0));
}
END_TEST

/* ---- capabilities ---- */

START_TEST(capabilities)
{
	/* The SVM MSRs' rules are emu/msr.c's (tests/unit/test_msr_data.c). */
	ck_assert(svm_has(1u << 0, SVM_FEAT_NP));
	ck_assert(!svm_has(1u << 0, SVM_FEAT_NRIP_SAVE));
	ck_assert(svm_has(1u << 3, SVM_FEAT_NRIP_SAVE));
}
END_TEST

static Suite *svm_suite(void)
{
	Suite *s = suite_create("svm");
	TCase *layout = tcase_create("layout");
	tcase_add_test(layout, vmcb_image_offsets);
	tcase_add_test(layout, intercept_bits);
	tcase_add_test(layout, intercept_words_fill_vectors);
	tcase_add_test(layout, eventinj_format);
	suite_add_tcase(s, layout);
	TCase *exits = tcase_create("exit_codes");
	tcase_add_test(exits, exit_table_sorted_unique);
	tcase_add_test(exits, exit_lookup_known);
	tcase_add_test(exits, exit_lookup_unknown);
	tcase_add_test(exits, exit_codes_follow_intercepts);
	suite_add_tcase(s, exits);
	TCase *fields = tcase_create("vmcb_fields");
	tcase_add_test(fields, field_table_shape);
	tcase_add_test(fields, field_at);
	tcase_add_test(fields, field_groups);
	suite_add_tcase(s, fields);
	TCase *maps = tcase_create("bitmaps_capabilities");
	tcase_add_test(maps, msrpm_locate);
	tcase_add_test(maps, iopm_intercepted);
	tcase_add_test(maps, capabilities);
	suite_add_tcase(s, maps);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(svm_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
