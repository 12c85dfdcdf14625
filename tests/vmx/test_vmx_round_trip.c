/* Check suite for what a VMX round trip (VMRESUME -> L2's VMCALL -> VM exit)
 * leaves alone and what it must not forget (vmx/world_switch.c,
 * vmx/consistency.c; issue 16's speed clause):
 *   - it decodes nothing again: every decoded block of L1 and L2 survives the
 *     entry and the exit (emu/icache.h: a slot's generation moves with every
 *     decode and drop);
 *   - with "enable VPID" it touches no TLB entry: the entries are the same
 *     bytes after a hundred round trips, and the
 *     host's context keeps its id (SDM Vol.3 28.1, 28.3.3.1: VPID-tagged
 *     contexts, nothing invalidated; the TLB's epoch moves with each context
 *     selection, so chained blocks look their successor up again, which
 *     touches no entry);
 *   - what VM entry keeps between round trips (the checks' memo, the host
 *     segments' image) follows every VMWRITE: a field made invalid after
 *     rows held fails its row (VMfailValid 7 or 8, exit reason 33), the host
 *     segments follow new host-state fields; in both TLB modes.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "emu/icache.h"
#include "mmu/tlb.h"
#include "suite_runner.h"
#include "vmx/exit_reasons.h"
#include "vmx/model.h"
#include "vmx_world.h"

static void enable_vpid(struct world *w)
{
	vmw(w, VMCS_PRIMARY_PROC_CONTROLS, must_be_1(w, MSR_VMX_TRUE_PROCBASED_CTLS) |
					       VMX_CTL(VMX_PROC_SECONDARY_CONTROLS));
	vmw(w, VMCS_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_VPID));
	vmw(w, VMCS_VPID, 1);
}

/* The processor's own view of a field (no VMREAD, which L1 would decode). */
static uint64_t field(struct world *w, enum vmcs_row row)
{
	return vmcs_get(w->vmx, row);
}

/* L2 is VMCALL alone: the exit saves the VMCALL's RIP (27.3.3), so each
 * VMRESUME runs it again without a VMWRITE in between. */
START_TEST(round_trip_decodes_nothing_touches_no_tlb_entry)
{
	struct world w;
	world_init(&w);
	enable_vpid(&w);
	L2(&w, 0x0f, 0x01, 0xc1);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(field(&w, VMCS_ROW_EXIT_REASON), VMX_EXIT_VMCALL);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(run_from(&w, L1_RESUME), ST_HALT);

	struct cpu *c = &w.m.cpu;
	static uint64_t gen[ICACHE_BLOCKS];
	for (unsigned i = 0; i < ICACHE_BLOCKS; i++)
		gen[i] = c->icache->blocks[i].gen;
	struct tlb_entry *tlb = malloc(sizeof(c->tlb.e));
	ck_assert_ptr_nonnull(tlb);
	memcpy(tlb, c->tlb.e, sizeof(c->tlb.e));
	uint16_t host_id = c->tlb.cur;

	for (int i = 0; i < 100; i++) {
		ck_assert_int_eq(run_from(&w, L1_RESUME), ST_HALT);
		ck_assert_uint_eq(field(&w, VMCS_ROW_EXIT_REASON), VMX_EXIT_VMCALL);
		ck_assert_uint_eq(field(&w, VMCS_ROW_GUEST_RIP), L2_CODE);
	}
	for (unsigned i = 0; i < ICACHE_BLOCKS; i++)
		ck_assert_msg(c->icache->blocks[i].gen == gen[i], "block slot %u decoded or dropped again", i);
	ck_assert_msg(memcmp(tlb, c->tlb.e, sizeof(c->tlb.e)) == 0, "a TLB entry changed");
	ck_assert_uint_eq(c->tlb.cur, host_id);
	free(tlb);
	world_free(&w);
}
END_TEST

/* After round trips that taught VM entry every row holds, an invalid field
 * written by VMWRITE fails its row, and the round trips go on once it is
 * restored: a control (26.2.1.1, VMfailValid 7), a host-state field
 * (26.2.2, VMfailValid 8), a guest field the exit also writes (RIP, 26.3.1.4:
 * exit reason 33). */
START_TEST(vmwrite_after_round_trips_is_checked)
{
	static const struct {
		uint32_t enc;
		uint64_t bad;
		bool vmfail;           /* VMfailValid(err), else a VM-entry failure */
		uint32_t err;
	} edits[] = {
		{ VMCS_CR3_TARGET_COUNT, 5, true, VMXERR_ENTRY_INVALID_CONTROL },
		{ VMCS_HOST_CR4, CR4_PAE, true, VMXERR_ENTRY_INVALID_HOST_STATE },
		{ VMCS_GUEST_RIP, 0x0000800000000000ull, false, 0 },
		{ VMCS_GUEST_CS_AR, 0xa093, false, 0 },
	};
	struct world w;
	world_init_mode(&w, _i);
	enable_vpid(&w);
	L2(&w, 0x0f, 0x01, 0xc1);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	for (unsigned k = 0; k < sizeof(edits) / sizeof(edits[0]); k++) {
		ck_assert_int_eq(run_from(&w, L1_RESUME), ST_HALT);
		ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_VMCALL);
		uint64_t good = vmr(&w, edits[k].enc);
		vmw(&w, edits[k].enc, edits[k].bad);
		if (edits[k].vmfail) {
			/* VMfailValid: L1 goes on after VMRESUME, to its HLT. */
			ck_assert_int_eq(run_from(&w, L1_RESUME), ST_HALT);
			ck_assert_uint_eq(arith_flags(&w), FLAG_ZF);
			ck_assert_uint_eq(vmr(&w, VMCS_VM_INSTRUCTION_ERROR), edits[k].err);
		} else {
			ck_assert_int_eq(run_from(&w, L1_RESUME), ST_HALT);
			ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_ENTRY_FAILURE | VMX_EXIT_INVALID_GUEST_STATE);
		}
		vmw(&w, edits[k].enc, good);
		ck_assert_int_eq(run_from(&w, L1_RESUME), ST_HALT);
		ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_VMCALL);
	}
	world_free(&w);
}
END_TEST

/* SDM Vol.3 27.5.2: the exit loads FS from the host-state fields as they are
 * at that exit: a null selector (unusable) with its base, then a data
 * selector (usable) with another base, then null again; TR's base too. */
START_TEST(host_segments_follow_vmwrite)
{
	struct world w;
	world_init_mode(&w, _i);
	struct cpu *c = &w.m.cpu;
	L2(&w, 0x0f, 0x01, 0xc1);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(c->seg[SR_FS].base, HOST_FS);
	ck_assert_uint_eq(c->seg[SR_FS].attr & SEG_P, 0);
	vmw(&w, VMCS_HOST_FS_SELECTOR, SEL_DATA);
	vmw(&w, VMCS_HOST_FS_BASE, 0x9000);
	vmw(&w, VMCS_HOST_TR_BASE, 0xa000);
	ck_assert_int_eq(run_from(&w, L1_RESUME), ST_HALT);
	assert_in_l1(&w);
	ck_assert_uint_eq(c->seg[SR_FS].selector, SEL_DATA);
	ck_assert_uint_eq(c->seg[SR_FS].base, 0x9000);
	ck_assert_uint_eq(c->seg[SR_FS].attr & SEG_P, SEG_P);
	ck_assert_uint_eq(c->tr.base, 0xa000);
	vmw(&w, VMCS_HOST_FS_SELECTOR, 0);
	ck_assert_int_eq(run_from(&w, L1_RESUME), ST_HALT);
	ck_assert_uint_eq(c->seg[SR_FS].selector, 0);
	ck_assert_uint_eq(c->seg[SR_FS].attr & SEG_P, 0);
	ck_assert_uint_eq(c->seg[SR_FS].base, 0x9000);
	world_free(&w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmx_round_trip");
	TCase *tc = tcase_create("round trip");
	tcase_add_test(tc, round_trip_decodes_nothing_touches_no_tlb_entry);
	tcase_add_loop_test(tc, vmwrite_after_round_trips_is_checked, 0, 2);   /* both TLB modes */
	tcase_add_loop_test(tc, host_segments_follow_vmwrite, 0, 2);           /* both TLB modes */
	suite_add_tcase(s, tc);
	return run_suite(s);
}
