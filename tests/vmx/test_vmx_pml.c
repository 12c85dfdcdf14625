/* Check suite for page-modification logging (SDM Vol.3 28.2.5; the hook in
 * vmx/pml.c, the EPT walker's call in mmu/paging.c): an L2 under EPT with
 * A/D flags writes to pages whose EPT dirty flag is 0, and the case checks
 * the log (PML address + 8 x index, 4-KByte-aligned guest-physical
 * addresses), the 16-bit PML index counting down, the "page-modification
 * log full" VM exit (reason 62) when the index is outside 0-511, and that
 * nothing is logged without A/D or without "enable PML". Every case runs in
 * both TLB modes.
 *
 * The world is tests/vmx/vmx_world.h's with an identity EPT of 4 KiB pages
 * for the first 2 MiB (2 MiB pages above), every accessed and dirty flag set
 * but the dirty flags of the two watched pages:
 *   90000H, 91000H watched   300000H EPT PML4   301000H PDPT   302000H PD
 *   303000H PT   304000H the PML
 */
#include <check.h>
#include <string.h>

#include "mmu/paging.h"
#include "mmu/x86_vmx.h"
#include "suite_runner.h"
#include "vmx/exit_reasons.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_fields.h"
#include "vmx_world.h"

#define EPT_PML4  0x300000u
#define EPT_PDPT  0x301000u
#define EPT_PD    0x302000u
#define EPT_PT    0x303000u
#define PML_PAGE  0x304000u
#define PAGE_A    0x90000u
#define PAGE_B    0x91000u

/* EPTP: WB (6), 4-level walk (3 in 5:3), bit 6 A/D (SDM Vol.3 24.6.11). */
#define EPTP(ad) ((uint64_t)EPT_PML4 | (3u << 3) | 6u | ((ad) ? EPTP_AD_ENABLE : 0))
#define RWX_WB   (7u | (6u << 3))

static uint64_t pt_entry(struct world *w, uint64_t gpa)
{
	return physmem_read(&w->m.pm, EPT_PT + 8 * (gpa >> 12), 8);
}

/* EPT with A/D flags (ad), PML on or off (pml), the index at index. */
static void pml_world(struct world *w, bool tlb_flush, bool ad, bool pml, uint16_t index)
{
	world_init_mode(w, tlb_flush);
	struct physmem *pm = &w->m.pm;
	physmem_write(pm, EPT_PML4, 8, EPT_PDPT | 7 | EPT_A);
	physmem_write(pm, EPT_PDPT, 8, EPT_PD | 7 | EPT_A);
	physmem_write(pm, EPT_PD, 8, EPT_PT | 7 | EPT_A);
	for (uint64_t i = 1; i < 512; i++)
		physmem_write(pm, EPT_PD + 8 * i, 8, (i << 21) | 0x80 | RWX_WB | EPT_A | EPT_D);
	for (uint64_t i = 0; i < 512; i++) {
		uint64_t gpa = i << 12;
		bool watched = gpa == PAGE_A || gpa == PAGE_B;
		physmem_write(pm, EPT_PT + 8 * i, 8, gpa | RWX_WB | EPT_A | (watched ? 0 : EPT_D));
	}
	uint32_t p2 = VMX_CTL(VMX_PROC2_EPT) | (pml ? VMX_CTL(VMX_PROC2_PML) : 0);
	vmw(w, VMCS_PRIMARY_PROC_CONTROLS,
	    must_be_1(w, MSR_VMX_TRUE_PROCBASED_CTLS) | VMX_CTL(VMX_PROC_SECONDARY_CONTROLS));
	vmw(w, VMCS_SECONDARY_PROC_CONTROLS, p2);
	vmw(w, VMCS_EPT_POINTER, EPTP(ad));
	if (pml) {
		vmw(w, VMCS_PML_ADDRESS, PML_PAGE);
		vmw(w, VMCS_PML_INDEX, index);
	}
	/* L2: mov [90000H], eax; mov [91008H], eax; mov [90010H], eax; CPUID. */
	L2(w, 0x89, 0x04, 0x25, 0x00, 0x00, 0x09, 0x00,
	   0x89, 0x04, 0x25, 0x08, 0x10, 0x09, 0x00,
	   0x89, 0x04, 0x25, 0x10, 0x00, 0x09, 0x00,
	   0x0f, 0xa2);
	w->m.cpu.regs[R_AX] = 0x11223344;
}

/* SDM Vol.3 28.2.5: each write that sets an EPT dirty flag logs its page's
 * guest-physical address at entry index and decrements the index; a write
 * to a page whose dirty flag is already set logs nothing. */
START_TEST(writes_are_logged)
{
	struct world w;
	pml_world(&w, _i, true, true, 511);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PML_PAGE + 8 * 511, 8), PAGE_A);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PML_PAGE + 8 * 510, 8), PAGE_B);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PML_PAGE + 8 * 509, 8), 0);
	ck_assert_uint_eq(vmr(&w, VMCS_PML_INDEX), 509);
	ck_assert(pt_entry(&w, PAGE_A) & EPT_D);
	ck_assert(pt_entry(&w, PAGE_B) & EPT_D);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PAGE_A + 0x10, 4), 0x11223344);
	world_free(&w);
}
END_TEST

/* 28.2.5: index 0 logs at entry 0 and becomes FFFFH; the next write that
 * would set a dirty flag is a page-modification log-full event: VM exit 62
 * (qualification 0: no NMI unblocking), the write not done, its dirty flag
 * still 0, the guest RIP at the write. */
START_TEST(log_full_exits)
{
	struct world w;
	pml_world(&w, _i, true, true, 0);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_PML_FULL);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_QUALIFICATION), 0);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE + 7);
	/* 27.3.3: outside event delivery a log-full exit saves RF = 1. */
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RFLAGS) & FLAG_RF, FLAG_RF);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PML_PAGE, 8), PAGE_A);
	ck_assert_uint_eq(vmr(&w, VMCS_PML_INDEX), 0xffff);
	ck_assert(!(pt_entry(&w, PAGE_B) & EPT_D));
	ck_assert_uint_eq(physmem_read(&w.m.pm, PAGE_B + 8, 4), 0);
	/* L1 empties the log (index 511) and resumes: the write is logged
	 * and done. */
	vmw(&w, VMCS_PML_INDEX, 511);
	ck_assert_int_eq(run_from(&w, L1_RESUME), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PML_PAGE + 8 * 511, 8), PAGE_B);
	ck_assert_uint_eq(vmr(&w, VMCS_PML_INDEX), 510);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PAGE_B + 8, 4), 0x11223344);
	world_free(&w);
}
END_TEST

/* 28.2.5: an index above 511 (not only FFFFH) is "not in the range 0-511". */
START_TEST(index_above_511_exits)
{
	struct world w;
	pml_world(&w, _i, true, true, 512);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_PML_FULL);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE);
	ck_assert_uint_eq(vmr(&w, VMCS_PML_INDEX), 512);
	ck_assert(!(pt_entry(&w, PAGE_A) & EPT_D));
	world_free(&w);
}
END_TEST

/* 28.2.5, 28.2.4: without EPT A/D no dirty flag is set, so nothing is
 * logged even with "enable PML". */
START_TEST(no_log_without_ad)
{
	struct world w;
	pml_world(&w, _i, false, true, 511);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(vmr(&w, VMCS_PML_INDEX), 511);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PML_PAGE + 8 * 511, 8), 0);
	world_free(&w);
}
END_TEST

/* 24.6.2: with "enable PML" 0 the dirty flags are set and nothing logged. */
START_TEST(no_log_without_pml)
{
	struct world w;
	pml_world(&w, _i, true, false, 0);
	vmw(&w, VMCS_PML_ADDRESS, PML_PAGE);
	vmw(&w, VMCS_PML_INDEX, 511);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert(pt_entry(&w, PAGE_A) & EPT_D);
	ck_assert_uint_eq(vmr(&w, VMCS_PML_INDEX), 511);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PML_PAGE + 8 * 511, 8), 0);
	world_free(&w);
}
END_TEST

/* 28.2.4, 28.2.5: with EPT A/D the processor's accesses to the guest's
 * paging structures are writes: one whose EPT dirty flag is 0 is logged
 * too (here the page of the guest's PML4). */
START_TEST(guest_table_access_is_logged)
{
	struct world w;
	pml_world(&w, _i, true, true, 511);
	physmem_write(&w.m.pm, EPT_PT + 8 * (PML4 >> 12), 8, PML4 | RWX_WB | EPT_A);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PML_PAGE + 8 * 511, 8), PML4);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PML_PAGE + 8 * 510, 8), PAGE_A);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PML_PAGE + 8 * 509, 8), PAGE_B);
	ck_assert_uint_eq(vmr(&w, VMCS_PML_INDEX), 508);
	world_free(&w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmx_pml");
	TCase *tc = tcase_create("pml");
	/* _i: 0 cached, 1 --tlb flush */
	tcase_add_loop_test(tc, writes_are_logged, 0, 2);
	tcase_add_loop_test(tc, log_full_exits, 0, 2);
	tcase_add_loop_test(tc, index_above_511_exits, 0, 2);
	tcase_add_loop_test(tc, no_log_without_ad, 0, 2);
	tcase_add_loop_test(tc, no_log_without_pml, 0, 2);
	tcase_add_loop_test(tc, guest_table_access_is_logged, 0, 2);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
