/* Check suite for the CPU side of the boot contract: the A20M# input
 * (cpu_set_a20, SDM Vol.3 22.33.1) on the paths a translation takes, and the
 * MSRs an OS kernel reads at boot on each model (emu/msr.c): Intel's
 * IA32_PLATFORM_ID and IA32_BIOS_SIGN_ID, AMD's PATCH_LEVEL and the legacy
 * performance counters PerfEvtSel0-3/PerfCtr0-3 (APM2 13.2.1). */
#include <check.h>
#include <string.h>

#include "emu/cpu_model.h"
#include "machine_fixture.h"
#include "suite_runner.h"

/* mov al, [0x0010] (A0 10 00 in 16-bit code; A0 10 00 00 00 in 32-bit). */
static uint8_t read_byte16(struct test_machine *m)
{
	ck_assert_int_eq(EXEC(m, 0xa0, 0x10, 0x00), ST_OK);
	return (uint8_t)m->cpu.regs[R_AX];
}

/* Real mode, DS = FFFFH: DS:0010 is linear 100000H, which A20 disabled wraps
 * to 0; the TLB entry an earlier access left does not survive the change. */
START_TEST(a20_real_mode)
{
	struct test_machine m;
	machine_init_bare(&m, cpu_models[0], RAM_SIZE);
	seg_load_real(&m.cpu.seg[SR_DS], 0xffff);
	physmem_write(&m.pm, 0x000000, 1, 0xaa);
	physmem_write(&m.pm, 0x100000, 1, 0xbb);
	ck_assert_uint_eq(m.cpu.a20_mask, ~0ull);            /* enabled after cpu_init() */
	ck_assert_uint_eq(read_byte16(&m), 0xbb);
	cpu_set_a20(&m.cpu, false);
	ck_assert_uint_eq(read_byte16(&m), 0xaa);
	/* A write with A20 disabled lands below 1 MiB. */
	m.cpu.regs[R_AX] = 0xcc;
	ck_assert_int_eq(EXEC(&m, 0xa2, 0x10, 0x00), ST_OK);   /* mov [0x0010], al */
	ck_assert_uint_eq(physmem_read(&m.pm, 0x000000, 1), 0xcc);
	ck_assert_uint_eq(physmem_read(&m.pm, 0x100000, 1), 0xbb);
	cpu_set_a20(&m.cpu, true);
	ck_assert_uint_eq(read_byte16(&m), 0xbb);
	/* An address without bit 20 is not changed either way. */
	seg_load_real(&m.cpu.seg[SR_DS], 0);
	cpu_set_a20(&m.cpu, false);
	ck_assert_uint_eq(read_byte16(&m), 0x00);            /* linear 10H */
	/* A machine input: RESET of the CPU leaves it as the machine drives it. */
	cpu_reset(&m.cpu);
	ck_assert_uint_eq(m.cpu.a20_mask, ~(1ull << 20));
	machine_free(&m);
}
END_TEST

/* Paging on: the physical address the walk yields is masked (a 2 MiB page maps
 * linear 100000H to physical 100000H). The mask applies to the whole physical
 * address: bit 20 of 300000H too. */
START_TEST(a20_paged)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	activate(&m);
	to64(&m);
	physmem_write(&m.pm, 0x000010, 1, 0x11);
	physmem_write(&m.pm, 0x100010, 1, 0x22);
	physmem_write(&m.pm, 0x200010, 1, 0x33);
	physmem_write(&m.pm, 0x300010, 1, 0x44);
	/* mov al, [abs 0x100010] (A0 with a 64-bit moffs). */
	const uint8_t at1m[] = { 0xa0, 0x10, 0x00, 0x10, 0, 0, 0, 0, 0 };
	const uint8_t at3m[] = { 0xa0, 0x10, 0x00, 0x30, 0, 0, 0, 0, 0 };
	ck_assert_int_eq(exec(&m, at1m, sizeof(at1m)), ST_OK);
	ck_assert_uint_eq((uint8_t)m.cpu.regs[R_AX], 0x22);
	cpu_set_a20(&m.cpu, false);
	ck_assert_int_eq(exec(&m, at1m, sizeof(at1m)), ST_OK);
	ck_assert_uint_eq((uint8_t)m.cpu.regs[R_AX], 0x11);
	ck_assert_int_eq(exec(&m, at3m, sizeof(at3m)), ST_OK);
	ck_assert_uint_eq((uint8_t)m.cpu.regs[R_AX], 0x33);
	cpu_set_a20(&m.cpu, true);
	ck_assert_int_eq(exec(&m, at3m, sizeof(at3m)), ST_OK);
	ck_assert_uint_eq((uint8_t)m.cpu.regs[R_AX], 0x44);
	machine_free(&m);
}
END_TEST

/* ---- boot MSRs ---- */

static status_t rdmsr(struct test_machine *m, uint32_t idx, uint64_t *v)
{
	m->cpu.regs[R_CX] = idx;
	status_t st = EXEC(m, 0x0f, 0x32);
	*v = (uint32_t)m->cpu.regs[R_AX] | m->cpu.regs[R_DX] << 32;
	return st;
}

/* Intel family 6 (core2, skylake-lite, icelake-lite): IA32_PLATFORM_ID reads
 * 0 and is read-only; IA32_BIOS_SIGN_ID takes the 0 software writes before
 * CPUID.01H and then reads the model's microcode revision in bits 63:32 (a
 * non-zero one: the update its firmware loaded). The Pentium has neither; no
 * Intel model has AMD's counters. */
START_TEST(intel_boot_msrs)
{
	static const char *const p6[] = { "core2", "skylake-lite", "icelake-lite" };
	struct test_machine m;
	uint64_t v;
	for (unsigned i = 0; i < 3; i++) {
		machine_init(&m, p6[i]);
		ck_assert_int_eq(rdmsr(&m, 0x17, &v), ST_OK);
		ck_assert_uint_eq(v, 0);
		assert_gp0(&m, wrmsr(&m, 0x17, 0));
		ck_assert_int_eq(wrmsr(&m, 0x8b, 0), ST_OK);
		ck_assert_int_eq(EXEC(&m, 0x0f, 0xa2), ST_OK);   /* cpuid (EAX = 0x8b: any leaf) */
		ck_assert_int_eq(rdmsr(&m, 0x8b, &v), ST_OK);
		ck_assert_uint_eq(v, (uint64_t)m.cpu.model->microcode_rev << 32);
		ck_assert_uint_ne(m.cpu.model->microcode_rev, 0);
		assert_gp0(&m, rdmsr(&m, 0xc0010000, &v));
		assert_gp0(&m, rdmsr(&m, 0xc0010004, &v));
		machine_free(&m);
	}
	machine_init(&m, "pentium");
	assert_gp0(&m, rdmsr(&m, 0x17, &v));
	assert_gp0(&m, rdmsr(&m, 0x8b, &v));
	assert_gp0(&m, wrmsr(&m, 0x8b, 0));
	machine_free(&m);
}
END_TEST

/* AMD (opteron-g3, epyc-lite): PATCH_LEVEL reads 0, read-only; no
 * IA32_PLATFORM_ID; PerfEvtSel0-3 keep what is written except reserved bits
 * (#GP, nothing changed); PerfCtr0-3 keep 48 bits; each register is its own. */
START_TEST(amd_boot_msrs)
{
	static const char *const amd[] = { "opteron-g3", "epyc-lite" };
	struct test_machine m;
	uint64_t v;
	for (unsigned i = 0; i < 2; i++) {
		machine_init(&m, amd[i]);
		ck_assert_int_eq(rdmsr(&m, 0x8b, &v), ST_OK);
		ck_assert_uint_eq(v, 0);
		assert_gp0(&m, wrmsr(&m, 0x8b, 0));
		assert_gp0(&m, rdmsr(&m, 0x17, &v));
		for (unsigned n = 0; n < 4; n++) {
			ck_assert_int_eq(rdmsr(&m, 0xc0010000 + n, &v), ST_OK);
			ck_assert_uint_eq(v, 0);                 /* after RESET */
			uint64_t sel = 0x00000300004300c0ull | n;  /* GO|HO, EN, OS, USR, event C0h+n */
			ck_assert_int_eq(wrmsr(&m, 0xc0010000 + n, sel), ST_OK);
			ck_assert_int_eq(rdmsr(&m, 0xc0010000 + n, &v), ST_OK);
			ck_assert_uint_eq(v, sel);
			static const uint64_t reserved[] = { 1ull << 19, 1ull << 21, 1ull << 36, 1ull << 39,
							     1ull << 42, 1ull << 63 };
			for (unsigned r = 0; r < 6; r++) {
				assert_gp0(&m, wrmsr(&m, 0xc0010000 + n, sel | reserved[r]));
				ck_assert_int_eq(rdmsr(&m, 0xc0010000 + n, &v), ST_OK);
				ck_assert_uint_eq(v, sel);
			}
			ck_assert_int_eq(wrmsr(&m, 0xc0010004 + n, 0xffff800000000000ull | (0xabcd00 + n)), ST_OK);
			ck_assert_int_eq(rdmsr(&m, 0xc0010004 + n, &v), ST_OK);
			ck_assert_uint_eq(v, 0x0000800000000000ull | (0xabcd00 + n));
		}
		/* Each counter kept its own value. */
		for (unsigned n = 0; n < 4; n++) {
			ck_assert_int_eq(rdmsr(&m, 0xc0010004 + n, &v), ST_OK);
			ck_assert_uint_eq(v & 0xff, n);
		}
		assert_gp0(&m, rdmsr(&m, 0xc0010008, &v));    /* past the four pairs */
		machine_free(&m);
	}
}
END_TEST

static Suite *boot_cpu_suite(void)
{
	Suite *s = suite_create("boot_cpu");
	TCase *a20 = tcase_create("a20");
	tcase_add_test(a20, a20_real_mode);
	tcase_add_test(a20, a20_paged);
	suite_add_tcase(s, a20);
	TCase *msr = tcase_create("msr");
	tcase_add_test(msr, intel_boot_msrs);
	tcase_add_test(msr, amd_boot_msrs);
	suite_add_tcase(s, msr);
	return s;
}

int main(void)
{
	return run_suite(boot_cpu_suite());
}
