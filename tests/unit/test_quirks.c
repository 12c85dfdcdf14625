/* Check suite for the quirk registry (emu/quirks.def, --quirk/--quirks) and a
 * case per quirk where one instruction or register shows it: the manual's
 * behaviour with the quirk off, the peer's with it on. The profiles as a
 * whole are checked against the peers' own runs by tests/quirks. */
#include <string.h>

#include "machine_fixture.h"
#include "suite_runner.h"

#include "devices/bus.h"
#include "devices/ioapic.h"
#include "emu/insn.h"
#include "emu/operand.h"
#include "emu/quirks.h"
#include "mmu/fault.h"

/* Every quirk: a name --quirk finds, an area, one bit of its own, a profile
 * that lists it, the manual rule it breaks with its section, what it changes,
 * what it mimics. */
START_TEST(registry_rows)
{
	unsigned n;
	const struct quirk_info *q = quirk_table(&n);
	ck_assert_uint_eq(n, QUIRK_COUNT);
	uint64_t bits = 0;
	for (unsigned i = 0; i < n; i++) {
		ck_assert(q[i].name && q[i].name[0]);
		ck_assert_ptr_eq(quirk_find(q[i].name), &q[i]);
		ck_assert(q[i].area <= QUIRK_AREA_VMX);
		ck_assert_uint_eq(q[i].bit, QUIRK_BIT(i));
		ck_assert_uint_eq(bits & q[i].bit, 0);
		bits |= q[i].bit;
		uint64_t set;
		ck_assert(quirk_profile_set(q[i].profile, &set));
		ck_assert(set & q[i].bit);
		/* The name starts with the profile's peer. */
		ck_assert(!strncmp(q[i].name, q[i].profile, strcspn(q[i].profile, "-") + 1));
		ck_assert(!strncmp(q[i].section, "APM", 3) || !strncmp(q[i].section, "SDM ", 4) ||
			  !strncmp(q[i].section, "82093AA ", 8) || !strncmp(q[i].section, "8042 ", 5) ||
			  !strncmp(q[i].section, "PCI ", 4));
		ck_assert(q[i].what && q[i].what[0] && q[i].mimics && q[i].mimics[0]);
	}
	const struct quirk_info *nowrap = quirk_find("qemu-exitinfo2-nowrap");
	ck_assert_ptr_nonnull(nowrap);
	ck_assert_int_eq(nowrap->area, QUIRK_AREA_SVM);
	ck_assert_ptr_null(quirk_find("qemu-exitinfo2"));
	ck_assert_ptr_null(quirk_find(""));
}
END_TEST

/* The profiles split the registry; an unknown name is no profile; the
 * hypervisor-model rows act only on a model with that extension. */
START_TEST(profiles)
{
	uint64_t qemu, bochs, none;
	ck_assert(quirk_profile_set("qemu-7.2", &qemu));
	ck_assert(quirk_profile_set("bochs-2.7", &bochs));
	ck_assert(!quirk_profile_set("qemu-7.1", &none));
	ck_assert_uint_eq(none, 0);
	ck_assert_uint_eq(qemu & bochs, 0);
	ck_assert_uint_eq(qemu | bochs, QUIRK_COUNT == 64 ? ~0ull : QUIRK_BIT(QUIRK_COUNT) - 1);
	unsigned n;
	const struct quirk_info *q = quirk_table(&n);
	uint64_t svm = 0, vmx = 0;
	for (unsigned i = 0; i < n; i++) {
		svm |= q[i].area == QUIRK_AREA_SVM ? q[i].bit : 0;
		vmx |= q[i].area == QUIRK_AREA_VMX ? q[i].bit : 0;
	}
	ck_assert(svm & QUIRK_BIT(QK_QEMU_EXITINFO2_NOWRAP));
	ck_assert(vmx & QUIRK_BIT(QK_BOCHS_VMXON_CR0_PE_NE_ONLY));
	ck_assert_uint_eq(quirk_set_for_model(qemu, model_named("epyc-lite")), qemu);
	ck_assert_uint_eq(quirk_set_for_model(qemu, model_named("skylake-lite")), qemu & ~svm);
	ck_assert_uint_eq(quirk_set_for_model(bochs, model_named("skylake-lite")), bochs);
	ck_assert_uint_eq(quirk_set_for_model(bochs, model_named("epyc-lite")), bochs & ~vmx);
}
END_TEST

/* qemu-cr0-nw-no-cd: SDM Vol.2 MOV CR, #GP(0) for NW = 1 with CD = 0. */
START_TEST(qemu_cr0_nw_no_cd)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	uint64_t cr0 = m.cpu.cr0 & ~(uint64_t)CR0_CD;
	assert_gp0(&m, mov_cr(&m, 0, cr0 | CR0_NW));
	m.cpu.quirks = QUIRK_BIT(QK_QEMU_CR0_NW_NO_CD);
	ck_assert_int_eq(mov_cr(&m, 0, cr0 | CR0_NW), ST_OK);
	ck_assert(m.cpu.cr0 & CR0_NW);
	machine_free(&m);
}
END_TEST

/* qemu-unknown-msr-zero: RDMSR/WRMSR of an MSR no model has. */
START_TEST(qemu_unknown_msr_zero)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	m.cpu.regs[R_CX] = 0x12345678;
	assert_gp0(&m, EXEC(&m, 0x0f, 0x32));                  /* rdmsr */
	m.cpu.quirks = QUIRK_BIT(QK_QEMU_UNKNOWN_MSR_ZERO);
	m.cpu.regs[R_AX] = m.cpu.regs[R_DX] = 0x55;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x32), ST_OK);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 0);
	ck_assert_uint_eq(m.cpu.regs[R_DX], 0);
	ck_assert_int_eq(wrmsr(&m, 0x12345678, 1), ST_OK);
	/* An MSR the model has keeps its checks: a reserved EFER bit. */
	assert_gp0(&m, wrmsr(&m, 0xc0000080, 1ull << 63));
	machine_free(&m);
}
END_TEST

/* qemu-no-ac: SDM Vol.3 6.15, a misaligned CPL 3 access with CR0.AM, EFLAGS.AC. */
START_TEST(qemu_no_ac)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	m.cpu.cr0 |= CR0_AM;
	m.cpu.rflags |= FLAG_AC;
	m.cpu.cpl = 3;
	uint64_t v;
	ck_assert_int_eq(mem_read(&m.cpu, SR_DS, 0x20001, 2, &v), ST_FAULT);
	ck_assert_uint_eq(m.cpu.event.vector, EXC_AC);
	m.cpu.event.pending = false;
	m.cpu.quirks = QUIRK_BIT(QK_QEMU_NO_AC);
	ck_assert_int_eq(mem_read(&m.cpu, SR_DS, 0x20001, 2, &v), ST_OK);
	machine_free(&m);
}
END_TEST

/* qemu-data-seg-unchecked: SDM Vol.3 5.3, an offset beyond DS's limit. */
START_TEST(qemu_data_seg_unchecked)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	m.cpu.seg[SR_DS].limit = 0xfff;
	seg_refresh(&m.cpu.seg[SR_DS]);
	physmem_write(&m.pm, 0x2000, 4, 0xfeedbeef);
	uint64_t v = 0;
	ck_assert_int_eq(mem_read(&m.cpu, SR_DS, 0x2000, 4, &v), ST_FAULT);
	ck_assert_uint_eq(m.cpu.event.vector, EXC_GP);
	m.cpu.event.pending = false;
	m.cpu.quirks = QUIRK_BIT(QK_QEMU_DATA_SEG_UNCHECKED);
	ck_assert_int_eq(mem_read(&m.cpu, SR_DS, 0x2000, 4, &v), ST_OK);
	ck_assert_uint_eq(v, 0xfeedbeef);
	machine_free(&m);
}
END_TEST

/* qemu-rsvd-without-p: SDM Vol.3 4.7, P = 1 in a reserved-bit #PF. */
START_TEST(qemu_rsvd_without_p)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	struct fault f = fault_make(EXC_PF, PFEC_P | PFEC_RSVD | PFEC_W);
	f.address = 0x1234;
	ck_assert_int_eq(cpu_raise_fault(&m.cpu, &f), ST_FAULT);
	ck_assert_uint_eq(m.cpu.event.error_code, PFEC_P | PFEC_RSVD | PFEC_W);
	m.cpu.quirks = QUIRK_BIT(QK_QEMU_RSVD_WITHOUT_P);
	ck_assert_int_eq(cpu_raise_fault(&m.cpu, &f), ST_FAULT);
	ck_assert_uint_eq(m.cpu.event.error_code, PFEC_RSVD | PFEC_W);
	ck_assert_uint_eq(m.cpu.event.cr2, 0x1234);
	machine_free(&m);
}
END_TEST

/* qemu-lock-mov-ignored: SDM Vol.2 LOCK, #UD for LOCK MOV [EBX], EAX. */
START_TEST(qemu_lock_mov_ignored)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	static const uint8_t lock_mov[] = { 0xf0, 0x89, 0x03 }, lock_reg[] = { 0xf0, 0x89, 0xc3 };
	struct insn in;
	ck_assert_int_eq(decode_insn(lock_mov, sizeof(lock_mov), 4, &in), 3);
	(void)insn_gate(&m.cpu, &in);
	insn_apply_quirks(&m.cpu, &in);
	ck_assert(insn_is_undefined(&in));
	m.cpu.quirks = QUIRK_BIT(QK_QEMU_LOCK_MOV_IGNORED);
	insn_apply_quirks(&m.cpu, &in);
	ck_assert(!insn_is_undefined(&in));
	/* A register destination stays #UD. */
	ck_assert_int_eq(decode_insn(lock_reg, sizeof(lock_reg), 4, &in), 3);
	insn_apply_quirks(&m.cpu, &in);
	ck_assert(insn_is_undefined(&in));
	machine_free(&m);
}
END_TEST

/* bochs-x87-reserved-ud-first: SDM Vol.3 6.15, D9 D1 with CR0.TS is #NM. */
START_TEST(bochs_x87_reserved_ud_first)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	m.cpu.cr0 |= CR0_TS;
	ck_assert_int_eq(EXEC(&m, 0xd9, 0xd1), ST_FAULT);
	ck_assert_uint_eq(m.cpu.event.vector, EXC_NM);
	m.cpu.quirks = QUIRK_BIT(QK_BOCHS_X87_RESERVED_UD_FIRST);
	assert_ud(&m, EXEC(&m, 0xd9, 0xd1));
	machine_free(&m);
}
END_TEST

/* qemu-ioapic-version-20h: 82093AA 3.2.2, version 11H, 24 entries. */
START_TEST(qemu_ioapic_version)
{
	struct apic_bus bus;
	memset(&bus, 0, sizeof(bus));
	struct ioapic io;
	ioapic_init(&io, &bus);
	ck_assert_uint_eq(ioapic_read_reg(&io, 1), 0x170011);
	io.version_20h = true;
	ck_assert_uint_eq(ioapic_read_reg(&io, 1), 0x170020);
}
END_TEST

static Suite *quirks_suite(void)
{
	Suite *s = suite_create("quirks");
	TCase *tc = tcase_create("registry");
	tcase_add_test(tc, registry_rows);
	tcase_add_test(tc, profiles);
	suite_add_tcase(s, tc);
	tc = tcase_create("quirk");
	tcase_add_test(tc, qemu_cr0_nw_no_cd);
	tcase_add_test(tc, qemu_unknown_msr_zero);
	tcase_add_test(tc, qemu_no_ac);
	tcase_add_test(tc, qemu_data_seg_unchecked);
	tcase_add_test(tc, qemu_rsvd_without_p);
	tcase_add_test(tc, qemu_lock_mov_ignored);
	tcase_add_test(tc, bochs_x87_reserved_ud_first);
	tcase_add_test(tc, qemu_ioapic_version);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(quirks_suite());
}
