/* Check suite for VMCS shadowing (SDM Vol.3 24.10 "VMCS types: ordinary and
 * shadow", 24.6.15 the VMREAD/VMWRITE bitmaps, 25.1.3, 30.3 VMREAD and
 * VMWRITE in VMX non-root operation): an L2 runs VMREAD or VMWRITE under
 * "VMCS shadowing" and the case checks whether it exited, its RFLAGS (30.2)
 * and which VMCS it reached. Every case runs in both TLB modes (--tlb flush:
 * nothing cached, the current VMCS included).
 *
 * The world is tests/vmx/vmx_world.h's, plus:
 *   102000H the shadow VMCS   103000H VMREAD bitmap   104000H VMWRITE bitmap
 * L2 runs "<instruction>; VMCALL; HLT" with the registers L1 left (VM entry
 * does not load the general registers), so a case that does not exit ends
 * in the VMCALL exit (18).
 */
#include <check.h>
#include <string.h>

#include "emu/flags.h"
#include "mmu/x86_vmx.h"
#include "suite_runner.h"
#include "vmx/exit_reasons.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_fields.h"
#include "vmx_world.h"

#define SHADOW_PA  0x102000u
#define VMREAD_MAP 0x103000u
#define VMWRITE_MAP 0x104000u

#define VMCALL 0x0f, 0x01, 0xc1
#define HLT    0xf4

/* VMPTRLD of pa from L1. */
static void load(struct world *w, uint64_t pa)
{
	physmem_write(&w->m.pm, PTR, 8, pa);
	w->m.cpu.regs[R_AX] = PTR;
	SUCCEED(w, "vmptrld", VMPTRLD_RAX);
}

/* A field of the shadow VMCS as L1 sees it in root operation: VMPTRLD the
 * shadow, VMREAD, VMPTRLD the ordinary VMCS back (its data written back
 * first, vmx/vmcs.c vmcs_make_current). */
static uint64_t shadow_field(struct world *w, uint32_t enc)
{
	load(w, SHADOW_PA);
	uint64_t x = vmr(w, enc);
	load(w, VMCS_PA);
	return x;
}

static void set_shadow_field(struct world *w, uint32_t enc, uint64_t value)
{
	load(w, SHADOW_PA);
	vmw(w, enc, value);
	load(w, VMCS_PA);
}

/* The world with "VMCS shadowing" on (24.6.2), zeroed bitmaps, and the VMCS
 * link pointer at a clear shadow VMCS (revision with bit 31, 24.10) whose
 * guest RIP reads 5555H. */
static void shadow_world(struct world *w, bool tlb_flush)
{
	world_init_mode(w, tlb_flush);
	uint32_t rev = (uint32_t)(model_cap(w->m.cpu.model, MSR_VMX_BASIC) & VMX_BASIC_REVISION_MASK);
	physmem_write(&w->m.pm, SHADOW_PA, 4, rev | VMCS_SHADOW_INDICATOR);
	physmem_write(&w->m.pm, PTR, 8, SHADOW_PA);
	w->m.cpu.regs[R_AX] = PTR;
	SUCCEED(w, "vmclear shadow", VMCLEAR_RAX);
	set_shadow_field(w, VMCS_GUEST_RIP, 0x5555);
	vmw(w, VMCS_PRIMARY_PROC_CONTROLS,
	    vmr(w, VMCS_PRIMARY_PROC_CONTROLS) | VMX_CTL(VMX_PROC_SECONDARY_CONTROLS));
	vmw(w, VMCS_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_VMCS_SHADOWING));
	vmw(w, VMCS_VMREAD_BITMAP, VMREAD_MAP);
	vmw(w, VMCS_VMWRITE_BITMAP, VMWRITE_MAP);
	vmw(w, VMCS_VMCS_LINK_POINTER, SHADOW_PA);
}

static void set_bitmap_bit(struct world *w, uint64_t map, uint32_t enc)
{
	uint64_t byte = physmem_read(&w->m.pm, map + enc / 8, 1);
	physmem_write(&w->m.pm, map + enc / 8, 1, byte | (1u << (enc % 8)));
}

/* What L2 left: its RBX, its arithmetic flags (the guest RFLAGS the exit
 * saved: the VMCALL after the instruction leaves them), the exit reason. */
struct after {
	uint64_t rbx;
	uint64_t flags;
	uint32_t reason;
};

/* L2 runs bytes; VMCALL; HLT with RCX = enc, RBX = rbx. */
static struct after run_l2(struct world *w, const uint8_t *bytes, unsigned len, uint64_t enc, uint64_t rbx)
{
	uint8_t code[16];
	ck_assert_uint_le(len + 4, sizeof(code));
	memcpy(code, bytes, len);
	memcpy(code + len, (const uint8_t[]){ VMCALL, HLT }, 4);
	l2_code(w, code, len + 4);
	/* VMLAUNCH the first time, VMRESUME after a VM exit (observed; the
	 * guest RIP it saved is past the VMCALL: back to the new code). */
	bool launched = w->observed > 0;
	if (launched)
		vmw(w, VMCS_GUEST_RIP, L2_CODE);
	w->m.cpu.regs[R_CX] = enc;
	w->m.cpu.regs[R_BX] = rbx;
	ck_assert_int_eq(run_from(w, launched ? L1_RESUME : L1_LAUNCH), ST_HALT);
	assert_in_l1(w);
	struct after a = { .rbx = w->m.cpu.regs[R_BX] };
	a.flags = vmr(w, VMCS_GUEST_RFLAGS) & FLAGS_ARITH;
	a.reason = exit_reason(w);
	return a;
}
#define RUN_L2(w, enc, rbx, ...) run_l2((w), (const uint8_t[]){ __VA_ARGS__ }, \
					sizeof((const uint8_t[]){ __VA_ARGS__ }), (enc), (rbx))

/* SDM Vol.3 30.3 VMREAD: in VMX non-root operation with "VMCS shadowing",
 * the field's VMREAD-bitmap bit 0 and encoding bits 63:15 zero, VMREAD reads
 * the VMCS the link pointer references: no exit, VMsucceed. */
START_TEST(vmread_reads_the_shadow)
{
	struct world w;
	shadow_world(&w, _i);
	struct after a = RUN_L2(&w, VMCS_GUEST_RIP, 0, VMREAD_RBX_RCX);
	ck_assert_uint_eq(a.reason, VMX_EXIT_VMCALL);
	ck_assert_uint_eq(a.flags, 0);
	ck_assert_uint_eq(a.rbx, 0x5555);
	/* The ordinary VMCS's guest RIP is L2's (the VMCALL), not 5555H. */
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE + 3);
	world_free(&w);
}
END_TEST

/* 30.3 VMWRITE: the same for VMWRITE, into the shadow VMCS; the ordinary
 * VMCS keeps its field. The high access type (24.11.2) writes bits 63:32. */
START_TEST(vmwrite_writes_the_shadow)
{
	struct world w;
	shadow_world(&w, _i);
	vmw(&w, VMCS_IO_BITMAP_A, 0x1000);
	set_shadow_field(&w, VMCS_IO_BITMAP_A, 0x11112222);
	struct after a = RUN_L2(&w, VMCS_GUEST_RIP, 0x7777, VMWRITE_RCX_RBX);
	ck_assert_uint_eq(a.reason, VMX_EXIT_VMCALL);
	ck_assert_uint_eq(a.flags, 0);
	ck_assert_uint_eq(shadow_field(&w, VMCS_GUEST_RIP), 0x7777);
	a = RUN_L2(&w, VMCS_IO_BITMAP_A + 1, 0x3333, VMWRITE_RCX_RBX);
	ck_assert_uint_eq(a.reason, VMX_EXIT_VMCALL);
	ck_assert_uint_eq(a.flags, 0);
	ck_assert_uint_eq(shadow_field(&w, VMCS_IO_BITMAP_A), 0x333311112222ull);
	ck_assert_uint_eq(vmr(&w, VMCS_IO_BITMAP_A), 0x1000);
	world_free(&w);
}
END_TEST

/* 25.1.3, 24.6.15: a set bitmap bit (VMREAD's for VMREAD, VMWRITE's for
 * VMWRITE) is a VM exit, reasons 23 and 25; the other bitmap does not count. */
START_TEST(bitmap_bit_set_exits)
{
	struct world w;
	shadow_world(&w, _i);
	set_bitmap_bit(&w, VMREAD_MAP, VMCS_GUEST_RIP);
	struct after a = RUN_L2(&w, VMCS_GUEST_RIP, 0, VMREAD_RBX_RCX);
	ck_assert_uint_eq(a.reason, VMX_EXIT_VMREAD);
	a = RUN_L2(&w, VMCS_GUEST_RIP, 0x7777, VMWRITE_RCX_RBX);
	ck_assert_uint_eq(a.reason, VMX_EXIT_VMCALL);
	set_bitmap_bit(&w, VMWRITE_MAP, VMCS_GUEST_RSP);
	a = RUN_L2(&w, VMCS_GUEST_RSP, 0x7777, VMWRITE_RCX_RBX);
	ck_assert_uint_eq(a.reason, VMX_EXIT_VMWRITE);
	ck_assert_uint_ne(shadow_field(&w, VMCS_GUEST_RSP), 0x7777);
	world_free(&w);
}
END_TEST

/* 25.1.3: an encoding with any of bits 63:15 set exits whatever the bitmap
 * (it has no bit for it). */
START_TEST(encoding_bits_63_15_exit)
{
	struct world w;
	shadow_world(&w, _i);
	struct after a = RUN_L2(&w, 0x8000 | VMCS_GUEST_RIP, 0, VMREAD_RBX_RCX);
	ck_assert_uint_eq(a.reason, VMX_EXIT_VMREAD);
	a = RUN_L2(&w, (1ull << 40) | VMCS_GUEST_RIP, 0, VMWRITE_RCX_RBX);
	ck_assert_uint_eq(a.reason, VMX_EXIT_VMWRITE);
	world_free(&w);
}
END_TEST

/* 30.3: "in VMX non-root operation AND VMCS link pointer is not valid":
 * VMfailInvalid (CF), no exit, no field of either VMCS written. */
START_TEST(link_pointer_none_fails_invalid)
{
	struct world w;
	shadow_world(&w, _i);
	vmw(&w, VMCS_VMCS_LINK_POINTER, UINT64_MAX);
	vmw(&w, VMCS_VM_INSTRUCTION_ERROR, 0);
	struct after a = RUN_L2(&w, VMCS_GUEST_RIP, 0x1234, VMREAD_RBX_RCX);
	ck_assert_uint_eq(a.reason, VMX_EXIT_VMCALL);
	ck_assert_uint_eq(a.flags, FLAG_CF);
	ck_assert_uint_eq(a.rbx, 0x1234);
	a = RUN_L2(&w, VMCS_GUEST_RIP, 0x7777, VMWRITE_RCX_RBX);
	ck_assert_uint_eq(a.reason, VMX_EXIT_VMCALL);
	ck_assert_uint_eq(a.flags, FLAG_CF);
	ck_assert_uint_eq(vmr(&w, VMCS_VM_INSTRUCTION_ERROR), 0);
	ck_assert_uint_eq(shadow_field(&w, VMCS_GUEST_RIP), 0x5555);
	world_free(&w);
}
END_TEST

/* 30.3: a field this processor lacks (guest UINV on skylake-lite):
 * VMfailValid(12), the error in the current (ordinary) VMCS (30.2), the
 * shadow's error field untouched. */
START_TEST(unsupported_field_fails_valid_in_current)
{
	struct world w;
	shadow_world(&w, _i);
	struct after a = RUN_L2(&w, VMCS_GUEST_UINV, 0x1234, VMREAD_RBX_RCX);
	ck_assert_uint_eq(a.reason, VMX_EXIT_VMCALL);
	ck_assert_uint_eq(a.flags, FLAG_ZF);
	ck_assert_uint_eq(a.rbx, 0x1234);
	ck_assert_uint_eq(vmr(&w, VMCS_VM_INSTRUCTION_ERROR), VMXERR_UNSUPPORTED_COMPONENT);
	vmw(&w, VMCS_VM_INSTRUCTION_ERROR, 0);
	a = RUN_L2(&w, VMCS_GUEST_UINV, 0x1234, VMWRITE_RCX_RBX);
	ck_assert_uint_eq(a.flags, FLAG_ZF);
	ck_assert_uint_eq(vmr(&w, VMCS_VM_INSTRUCTION_ERROR), VMXERR_UNSUPPORTED_COMPONENT);
	ck_assert_uint_eq(shadow_field(&w, VMCS_VM_INSTRUCTION_ERROR), 0);
	world_free(&w);
}
END_TEST

/* 30.3 VMWRITE, A.6: with IA32_VMX_MISC bit 29 (skylake-lite has it) L2 may
 * write a VM-exit information field of the shadow VMCS. */
START_TEST(vmwrite_exit_information_field_with_misc_bit_29)
{
	struct world w;
	shadow_world(&w, _i);
	ck_assert(model_cap(w.m.cpu.model, MSR_VMX_MISC) & VMX_MISC_VMWRITE_ANY_FIELD);
	struct after a = RUN_L2(&w, VMCS_EXIT_QUALIFICATION, 0xabc, VMWRITE_RCX_RBX);
	ck_assert_uint_eq(a.reason, VMX_EXIT_VMCALL);
	ck_assert_uint_eq(a.flags, 0);
	ck_assert_uint_eq(shadow_field(&w, VMCS_EXIT_QUALIFICATION), 0xabc);
	world_free(&w);
}
END_TEST

/* hvemu's documented choice (vmx/vmcs.c): a shadow VMCS is not cached, so
 * an L1 that edits its region in memory (instead of VMPTRLD + VMWRITE) has
 * L2 read the edit, and sees L2's VMWRITE in the region, in both TLB modes.
 * SDM Vol.3 24.11.1 lets a processor cache it: software must not rely on
 * this. */
START_TEST(shadow_region_is_not_cached)
{
	struct world w;
	shadow_world(&w, _i);
	size_t n;
	const struct vmcs_field *t = vmcs_field_table(&n);
	uint64_t rip_at = SHADOW_PA + vmcs_row_offset((unsigned)(vmcs_field_lookup(VMCS_GUEST_RIP, NULL) - t));
	ck_assert_uint_eq(physmem_read(&w.m.pm, rip_at, 8), 0x5555);
	physmem_write(&w.m.pm, rip_at, 8, 0x6666);
	struct after a = RUN_L2(&w, VMCS_GUEST_RIP, 0, VMREAD_RBX_RCX);
	ck_assert_uint_eq(a.rbx, 0x6666);
	a = RUN_L2(&w, VMCS_GUEST_RIP, 0x7777, VMWRITE_RCX_RBX);
	ck_assert_uint_eq(physmem_read(&w.m.pm, rip_at, 8), 0x7777);
	world_free(&w);
}
END_TEST

/* 26.3.1.5: with "VMCS shadowing" the link pointer must reference a shadow
 * VMCS: an ordinary one fails the entry (exit reason 33, qualification 4). */
START_TEST(entry_needs_a_shadow_vmcs_at_the_link)
{
	struct world w;
	shadow_world(&w, _i);
	uint32_t rev = (uint32_t)(model_cap(w.m.cpu.model, MSR_VMX_BASIC) & VMX_BASIC_REVISION_MASK);
	physmem_write(&w.m.pm, SHADOW_PA, 4, rev);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_ENTRY_FAILURE | VMX_EXIT_INVALID_GUEST_STATE);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_QUALIFICATION), 4);
	world_free(&w);
}
END_TEST

static Suite *vmx_shadow_suite(void)
{
	Suite *s = suite_create("vmx_shadow");
	TCase *tc = tcase_create("shadow");
	/* _i: 0 cached, 1 --tlb flush */
	tcase_add_loop_test(tc, vmread_reads_the_shadow, 0, 2);
	tcase_add_loop_test(tc, vmwrite_writes_the_shadow, 0, 2);
	tcase_add_loop_test(tc, bitmap_bit_set_exits, 0, 2);
	tcase_add_loop_test(tc, encoding_bits_63_15_exit, 0, 2);
	tcase_add_loop_test(tc, link_pointer_none_fails_invalid, 0, 2);
	tcase_add_loop_test(tc, unsupported_field_fails_valid_in_current, 0, 2);
	tcase_add_loop_test(tc, vmwrite_exit_information_field_with_misc_bit_29, 0, 2);
	tcase_add_loop_test(tc, shadow_region_is_not_cached, 0, 2);
	tcase_add_loop_test(tc, entry_needs_a_shadow_vmcs_at_the_link, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(vmx_shadow_suite());
}
