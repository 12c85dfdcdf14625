/* vmx/exit_perturb.c (--perturb-exits): rows {exit, what the SDM defines} ->
 * the defined fields and bits are kept over many seeds, each undefined one
 * changes for some seed, and one seed gives one sequence (SDM Vol.3 27.2.1,
 * 27.2.2, 27.2.4, 27.2.5 and Tables 27-8 to 27-14). */
#include <check.h>
#include <string.h>

#include "suite_runner.h"
#include "vmx/exit_perturb.h"
#include "vmx/exit_reasons.h"
#include "vmx/model.h"
#include "vmx/vmcs.h"

#define ALL_BITS UINT64_MAX

struct row {
	const char *name;
	struct vmx_perturb_ctx ctx;
	struct vmx_exit x;
	/* The bits that must stay as they are (defined by the SDM). */
	uint32_t keep_len, keep_info, keep_intr_error, keep_idt_error;
	uint64_t keep_linear, keep_physical;
};

/* A processor with the guest-physical field and INS/OUTS information. */
#define PLAIN { .has_guest_physical = true, .ins_outs_info = true }
static const struct vmx_perturb_ctx plain = PLAIN;

static const struct row rows[] = {
	/* 27.2.5: CPUID has a length, no instruction information; 27.2.1: no
	 * guest-linear or guest-physical address; 27.2.2: no error code. */
	{ .name = "CPUID: length kept, the rest undefined", .ctx = PLAIN, .x = { .reason = VMX_EXIT_CPUID, .insn_len = 2 },
	  .keep_len = 0xffffffff },
	/* A hardware exception with an error code (27.2.2 bit 11): kept; its
	 * instruction length is undefined (the model wrote 0). */
	{ .name = "#GP with its error code", .ctx = PLAIN, .x = { .reason = VMX_EXIT_EXCEPTION_NMI, .intr_info = VMX_INTR_VALID | VMX_INTR_DELIVER_ERROR | (3u << 8) | 13,
	    .intr_error = 0x1234 }, .keep_intr_error = 0xffffffff },
	/* #UD: no error code, so the field is undefined. */
	{ .name = "#UD: no error code", .ctx = PLAIN, .x = { .reason = VMX_EXIT_EXCEPTION_NMI, .intr_info = VMX_INTR_VALID | (3u << 8) | 6 } },
	/* 27.2.4: an exit during delivery of an event with an error code keeps
	 * the IDT-vectoring error code. */
	{ .name = "IDT-vectoring #PF with its error code", .ctx = PLAIN, .x = { .reason = VMX_EXIT_EPT_VIOLATION, .qualification = 0x181, .guest_linear = 0xc0001000,
	    .guest_physical = 0x5000, .idt_vectoring_info = VMX_INTR_VALID | VMX_INTR_DELIVER_ERROR | (3u << 8) | 14,
	    .idt_vectoring_error = 2 },
	  .keep_idt_error = 0xffffffff, .keep_linear = ALL_BITS, .keep_physical = ALL_BITS },
	/* 27.2.1: an EPT violation without qualification bit 7 has no
	 * guest-linear address; the guest-physical one stays. */
	{ .name = "EPT violation, no linear address (bit 7 clear)", .ctx = PLAIN, .x = { .reason = VMX_EXIT_EPT_VIOLATION, .qualification = 0x1, .guest_physical = 0x7000 },
	  .keep_physical = ALL_BITS },
	{ .name = "EPT misconfiguration: guest-physical kept", .ctx = PLAIN, .x = { .reason = VMX_EXIT_EPT_MISCONFIG, .guest_physical = 0x9000 }, .keep_physical = ALL_BITS },
	/* A processor without the guest-physical field: nothing to perturb there. */
	{ .name = "no guest-physical field", .ctx = { .ins_outs_info = true }, .x = { .reason = VMX_EXIT_CPUID, .insn_len = 2,
	  .guest_physical = 0 }, .keep_len = 0xffffffff, .keep_physical = ALL_BITS },
	/* Table 27-3: LMSW with a memory operand (type 3, bit 6) has a linear address. */
	{ .name = "LMSW m16: linear address kept", .ctx = PLAIN, .x = { .reason = VMX_EXIT_CR_ACCESS, .qualification = (3u << 4) | 0x40, .guest_linear = 0x1000, .insn_len = 3 },
	  .keep_len = 0xffffffff, .keep_linear = ALL_BITS },
	{ .name = "MOV to CR0: no linear address", .ctx = PLAIN, .x = { .reason = VMX_EXIT_CR_ACCESS, .qualification = 0, .insn_len = 3 }, .keep_len = 0xffffffff },
	/* Table 27-8: OUTS keeps address size (9:7) and segment (17:15). */
	{ .name = "OUTS: address size and segment kept", .ctx = PLAIN, .x = { .reason = VMX_EXIT_IO_INSTRUCTION, .qualification = 0x10, .insn_len = 1, .insn_info = (1u << 7) | (3u << 15),
	    .guest_linear = 0x2000 },
	  .keep_len = 0xffffffff, .keep_info = 0x00038380, .keep_linear = ALL_BITS },
	/* Table 27-8: for INS the segment is undefined too. */
	{ .name = "INS: address size kept", .ctx = PLAIN, .x = { .reason = VMX_EXIT_IO_INSTRUCTION, .qualification = 0x18, .insn_len = 1, .insn_info = 1u << 7,
	    .guest_linear = 0x2000 },
	  .keep_len = 0xffffffff, .keep_info = 0x00000380, .keep_linear = ALL_BITS },
	/* INS/OUTS without IA32_VMX_BASIC[54]: the whole field is undefined. */
	{ .name = "OUTS without BASIC[54]", .ctx = { .has_guest_physical = true }, .x = { .reason = VMX_EXIT_IO_INSTRUCTION, .qualification = 0x10, .insn_len = 1, .guest_linear = 0x2000 },
	  .keep_len = 0xffffffff, .keep_linear = ALL_BITS },
	/* IN/OUT (not string): no instruction information, no linear address. */
	{ .name = "OUT: no information", .ctx = PLAIN, .x = { .reason = VMX_EXIT_IO_INSTRUCTION, .qualification = 0, .insn_len = 1 },
	  .keep_len = 0xffffffff },
	/* Table 27-14: VMREAD with a register operand (bit 10): Reg1, bit 10 and
	 * Reg2 kept, the memory-operand bits undefined. */
	{ .name = "VMREAD reg, reg", .ctx = PLAIN, .x = { .reason = VMX_EXIT_VMREAD, .insn_len = 3, .insn_info = (5u << 3) | (1u << 10) | (2u << 28) },
	  .keep_len = 0xffffffff, .keep_info = 0xf0000478 },
	/* Table 27-14, memory form with base and index: Reg1 undefined. */
	{ .name = "VMREAD m64 with base and index", .ctx = PLAIN, .x = { .reason = VMX_EXIT_VMREAD, .insn_len = 5,
	    .insn_info = 2u | (2u << 7) | (3u << 15) | (1u << 18) | (6u << 23) | (7u << 28) },
	  .keep_len = 0xffffffff, .keep_info = 0xffff8783 },
	/* Table 27-13, no index (22) and no base (27): scaling, IndexReg and
	 * BaseReg undefined, the invalid bits kept. */
	{ .name = "VMPTRLD [disp32]", .ctx = PLAIN, .x = { .reason = VMX_EXIT_VMPTRLD, .insn_len = 7, .insn_info = (1u << 7) | (3u << 15) | (1u << 22) | (1u << 27) },
	  .keep_len = 0xffffffff, .keep_info = 0x08438780 },
	/* Table 27-10: operand size (11) kept outside 64-bit mode, undefined in it. */
	{ .name = "SGDT outside 64-bit mode", .ctx = PLAIN, .x = { .reason = VMX_EXIT_GDTR_IDTR_ACCESS, .insn_len = 3, .insn_info = (1u << 11) | (1u << 7) | (3u << 15) | (3u << 23) },
	  .keep_len = 0xffffffff, .keep_info = 0x3fff8f83 },
	{ .name = "SGDT in 64-bit mode", .ctx = { .has_guest_physical = true, .ins_outs_info = true, .from_64bit = true }, .x = { .reason = VMX_EXIT_GDTR_IDTR_ACCESS, .insn_len = 3, .insn_info = (2u << 7) | (3u << 15) | (3u << 23) },
	  .keep_len = 0xffffffff, .keep_info = 0x3fff8783 },
	/* Table 27-12: RDRAND keeps the register (6:3) and operand size (12:11). */
	{ .name = "RDRAND", .ctx = PLAIN, .x = { .reason = VMX_EXIT_RDRAND, .insn_len = 3, .insn_info = (3u << 3) | (1u << 11) },
	  .keep_len = 0xffffffff, .keep_info = 0x00001878 },
};

/* Over many seeds: every kept bit equal, and every undefined field changed
 * at least once. */
START_TEST(defined_kept_undefined_varied)
{
	const struct row *r = &rows[_i];
	uint32_t len_seen = 0, info_seen = 0, ie_seen = 0, idt_seen = 0;
	uint64_t lin_seen = 0, phys_seen = 0;
	for (uint64_t seed = 1; seed <= 64; seed++) {
		uint64_t state = seed * 0x9e3779b97f4a7c15ull;
		struct vmx_exit x = r->x;
		vmx_perturb_exit(&state, &r->ctx, &x);
		ck_assert_msg(x.reason == r->x.reason && x.qualification == r->x.qualification &&
			      x.intr_info == r->x.intr_info && x.idt_vectoring_info == r->x.idt_vectoring_info &&
			      x.guest_rip == r->x.guest_rip, "%s: a defined field changed", r->name);
		ck_assert_msg(((x.insn_len ^ r->x.insn_len) & r->keep_len) == 0, "%s: instruction length", r->name);
		ck_assert_msg(((x.insn_info ^ r->x.insn_info) & r->keep_info) == 0, "%s: instruction information %#x",
			      r->name, x.insn_info);
		ck_assert_msg(((x.intr_error ^ r->x.intr_error) & r->keep_intr_error) == 0, "%s: error code", r->name);
		ck_assert_msg(((x.idt_vectoring_error ^ r->x.idt_vectoring_error) & r->keep_idt_error) == 0,
			      "%s: IDT-vectoring error code", r->name);
		ck_assert_msg(((x.guest_linear ^ r->x.guest_linear) & r->keep_linear) == 0, "%s: guest-linear", r->name);
		ck_assert_msg(((x.guest_physical ^ r->x.guest_physical) & r->keep_physical) == 0, "%s: guest-physical",
			      r->name);
		len_seen |= x.insn_len ^ r->x.insn_len;
		info_seen |= x.insn_info ^ r->x.insn_info;
		ie_seen |= x.intr_error ^ r->x.intr_error;
		idt_seen |= x.idt_vectoring_error ^ r->x.idt_vectoring_error;
		lin_seen |= x.guest_linear ^ r->x.guest_linear;
		phys_seen |= x.guest_physical ^ r->x.guest_physical;
	}
	/* Each undefined bit took both values over the seeds. */
	ck_assert_msg(len_seen == (uint32_t)~r->keep_len, "%s: undefined length bits varied %#x", r->name, len_seen);
	ck_assert_msg(info_seen == (uint32_t)~r->keep_info, "%s: undefined information bits varied %#x, want %#x",
		      r->name, info_seen, ~r->keep_info);
	ck_assert_msg(ie_seen == (uint32_t)~r->keep_intr_error, "%s: error code varied %#x", r->name, ie_seen);
	ck_assert_msg(idt_seen == (uint32_t)~r->keep_idt_error, "%s: IDT error code varied", r->name);
	ck_assert_msg(lin_seen == ~r->keep_linear, "%s: guest-linear varied", r->name);
	uint64_t phys_undefined = r->ctx.has_guest_physical ? ~r->keep_physical : 0;
	ck_assert_msg(phys_seen == phys_undefined, "%s: guest-physical varied", r->name);
}
END_TEST

/* A VM-entry failure is left alone (its fields are 26.8's). */
START_TEST(entry_failure_untouched)
{
	uint64_t state = 42;
	struct vmx_exit x = { .reason = VMX_EXIT_ENTRY_FAILURE | VMX_EXIT_INVALID_GUEST_STATE, .qualification = 2 };
	struct vmx_exit before = x;
	ck_assert_uint_eq(vmx_perturb_exit(&state, &plain, &x), 0);
	ck_assert(!memcmp(&x, &before, sizeof(x)));
	ck_assert_uint_eq(state, 42);
}
END_TEST

/* The same state gives the same exit (runs stay deterministic). */
START_TEST(deterministic)
{
	uint64_t a = 7, b = 7;
	struct vmx_exit x = { .reason = VMX_EXIT_EXTERNAL_INTERRUPT }, y = x;
	vmx_perturb_exit(&a, &plain, &x);
	vmx_perturb_exit(&b, &plain, &y);
	ck_assert(!memcmp(&x, &y, sizeof(x)));
	ck_assert_uint_eq(a, b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmx_perturb");
	TCase *tc = tcase_create("rules");
	tcase_add_loop_test(tc, defined_kept_undefined_varied, 0, sizeof(rows) / sizeof(rows[0]));
	tcase_add_test(tc, entry_failure_untouched);
	tcase_add_test(tc, deterministic);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
