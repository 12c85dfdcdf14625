/* Check suites for vmx/: the VMCS field table against the encoding rules
 * (SDM Vol.3 24.11.2, Appendix B), the exit-reason table (Appendix C), and
 * the capability-MSR helpers (Appendix A). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "emu/cpu.h"
#include "vmx/bitmaps.h"
#include "vmx/capabilities.h"
#include "vmx/exit_reasons.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_fields.h"

/* Interruption types are the core's event types (emu/cpu.h), so an event
 * moves between cpu->event and the VMCS without translation (SDM Vol.3 24.8.3). */
_Static_assert((int)VMX_INTR_EXTERNAL == (int)EV_EXTINT && (int)VMX_INTR_NMI == (int)EV_NMI &&
	       (int)VMX_INTR_HW_EXCEPTION == (int)EV_EXCEPTION &&
	       (int)VMX_INTR_SOFT_INT == (int)EV_SOFTINT &&
	       (int)VMX_INTR_PRIV_SOFT_EXCEPTION == (int)EV_PRIV_SOFTEXC &&
	       (int)VMX_INTR_SOFT_EXCEPTION == (int)EV_SOFTEXC,
	       "vmx_intr_type must match enum event_type");

/* ---- the state column ---- */

/* Every guest-state and host-state field names the processor state it holds
 * (vmx/vmcs_fields.def slot column, the slots svm/vmcb_fields.def uses), so
 * VM entry and VM exit can move rows as the VMCB's are moved; controls and
 * exit information hold none. The exceptions are the guest fields that are
 * the VMX model's own state, not the processor's (SDM Vol.3 24.4.2: the VMCS
 * link pointer, the preemption-timer value, the PML index, the guest
 * interrupt status of virtual-interrupt delivery). */
START_TEST(state_fields_map_to_slots)
{
	static const uint32_t model_state[] = { VMCS_GUEST_INTR_STATUS, VMCS_PML_INDEX, VMCS_VMCS_LINK_POINTER,
						VMCS_PREEMPTION_TIMER_VALUE };
	size_t n;
	const struct vmcs_field *t = vmcs_field_table(&n);
	unsigned guest_rows_of[WS_SLOT_COUNT] = { 0 };
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_lt(t[i].slot, WS_SLOT_COUNT);
		if (t[i].type != VMCS_GUEST && t[i].type != VMCS_HOST) {
			ck_assert_msg(t[i].slot == WS_NONE, "%s holds no processor state", t[i].id);
			continue;
		}
		bool exempt = false;
		for (size_t k = 0; k < sizeof(model_state) / sizeof(model_state[0]); k++)
			exempt |= t[i].encoding == model_state[k];
		ck_assert_msg(exempt == (t[i].slot == WS_NONE), "%s: slot %u", t[i].id, t[i].slot);
		if (t[i].type == VMCS_GUEST)
			guest_rows_of[t[i].slot]++;
	}
	for (unsigned slot = 1; slot < WS_SLOT_COUNT; slot++)
		ck_assert_msg(guest_rows_of[slot] <= 1, "slot %u held by two guest fields", slot);
	/* A host field holds the same slot as its guest twin. */
	ck_assert_uint_eq(vmcs_field_lookup(VMCS_HOST_CR3, NULL)->slot, WS_CR3);
	ck_assert_uint_eq(vmcs_field_lookup(VMCS_GUEST_CR3, NULL)->slot, WS_CR3);
	ck_assert_uint_eq(vmcs_field_lookup(VMCS_HOST_TR_BASE, NULL)->slot, WS_TR_BASE);
	ck_assert_uint_eq(vmcs_field_lookup(VMCS_GUEST_TR_AR, NULL)->slot, WS_TR_ATTR);
	ck_assert_uint_eq(vmcs_field_lookup(VMCS_GUEST_IA32_SYSENTER_CS, NULL)->slot, WS_SYSENTER_CS);
}
END_TEST

/* ---- VMCS field encodings ---- */

START_TEST(every_row_agrees_with_its_encoding)
{
	size_t n;
	const struct vmcs_field *t = vmcs_field_table(&n);
	ck_assert_uint_gt(n, 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(vmcs_field_check(&t[i]), "%s (0x%04x): encoding disagrees with width %u type %u",
			      t[i].id, t[i].encoding, t[i].width, t[i].type);
}
END_TEST

START_TEST(check_rejects_bad_rows)
{
	/* The self-check must actually discriminate. */
	struct vmcs_field f = { VMCS_GUEST_RIP, VMCS_WNAT, VMCS_GUEST, WS_RIP, "x", "x", 0 };
	ck_assert(vmcs_field_check(&f));
	f.width = VMCS_W64;
	ck_assert(!vmcs_field_check(&f));
	f.width = VMCS_WNAT;
	f.type = VMCS_HOST;
	ck_assert(!vmcs_field_check(&f));
	f.type = VMCS_GUEST;
	f.encoding = VMCS_GUEST_RIP | 1;   /* high access is not a row */
	ck_assert(!vmcs_field_check(&f));
	f.encoding = VMCS_GUEST_RIP | 0x1000; /* bit 12 reserved */
	ck_assert(!vmcs_field_check(&f));
}
END_TEST

START_TEST(table_sorted_and_unique)
{
	size_t n;
	const struct vmcs_field *t = vmcs_field_table(&n);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_gt(strlen(t[i].id), 0);
		ck_assert_uint_gt(strlen(t[i].name), 0);
		if (i > 0)
			ck_assert_msg(t[i - 1].encoding < t[i].encoding, "%s out of order", t[i].id);
		for (size_t j = 0; j < i; j++) {
			ck_assert_msg(strcmp(t[i].id, t[j].id) != 0, "duplicate id %s", t[i].id);
			ck_assert_msg(strcmp(t[i].name, t[j].name) != 0, "duplicate name %s", t[i].name);
		}
		bool high = true;
		ck_assert_ptr_eq(vmcs_field_lookup(t[i].encoding, &high), &t[i]);
		ck_assert(!high);
	}
}
END_TEST

START_TEST(decode_known_encodings)
{
	/* SDM Vol.3 Appendix B: guest RIP 0x681E is natural-width guest state,
	 * index 15; I/O bitmap A (high) 0x2001 is 64-bit control, index 0. */
	ck_assert_uint_eq(vmcs_enc_width(0x681e), VMCS_WNAT);
	ck_assert_uint_eq(vmcs_enc_type(0x681e), VMCS_GUEST);
	ck_assert_uint_eq(vmcs_enc_index(0x681e), 15);
	ck_assert(!vmcs_enc_high(0x681e));
	ck_assert_uint_eq(vmcs_enc_width(0x2001), VMCS_W64);
	ck_assert_uint_eq(vmcs_enc_type(0x2001), VMCS_CTL);
	ck_assert_uint_eq(vmcs_enc_index(0x2001), 0);
	ck_assert(vmcs_enc_high(0x2001));
	ck_assert_uint_eq(vmcs_enc_width(0x4402), VMCS_W32);
	ck_assert_uint_eq(vmcs_enc_type(0x4402), VMCS_RO);
	ck_assert_uint_eq(vmcs_enc_index(0x4402), 1);
	ck_assert_uint_eq(vmcs_enc_width(0x0c0c), VMCS_W16);
	ck_assert_uint_eq(vmcs_enc_type(0x0c0c), VMCS_HOST);
	ck_assert_uint_eq(vmcs_enc_index(0x0c0c), 6);
}
END_TEST

START_TEST(make_decode_roundtrip)
{
	for (unsigned w = 0; w < 4; w++)
		for (unsigned t = 0; t < 4; t++)
			for (unsigned idx = 0; idx < 512; idx++)
				for (unsigned h = 0; h < 2; h++) {
					uint32_t e = vmcs_enc_make(w, t, idx, h);
					ck_assert_uint_eq(vmcs_enc_width(e), w);
					ck_assert_uint_eq(vmcs_enc_type(e), t);
					ck_assert_uint_eq(vmcs_enc_index(e), idx);
					ck_assert_uint_eq(vmcs_enc_high(e), h);
					ck_assert_uint_eq(e & VMCS_ENC_RESERVED, 0);
					ck_assert(vmcs_enc_well_formed(e) == (!h || w == VMCS_W64));
				}
}
END_TEST

START_TEST(well_formed_rules)
{
	ck_assert(vmcs_enc_well_formed(0x2001));            /* high half of a 64-bit field */
	ck_assert(!vmcs_enc_well_formed(0x0801));           /* high on 16-bit */
	ck_assert(!vmcs_enc_well_formed(0x4003));           /* high on 32-bit */
	ck_assert(!vmcs_enc_well_formed(0x6801));           /* high on natural width */
	ck_assert(!vmcs_enc_well_formed(0x1000));           /* bit 12 */
	ck_assert(!vmcs_enc_well_formed(0x8000));           /* bit 15 */
	ck_assert(!vmcs_enc_well_formed(0x80000000u));      /* bit 31 */
	ck_assert(!vmcs_enc_well_formed(1ull << 32));       /* register bits 63:32 */
}
END_TEST

START_TEST(lookup_all_16bit_encodings)
{
	/* Exhaustive over the low 16 bits (all others are reserved): a row comes
	 * back exactly when the full encoding is a row and the access type fits. */
	size_t n;
	const struct vmcs_field *t = vmcs_field_table(&n);
	for (uint32_t e = 0; e <= 0xffff; e++) {
		bool high = false;
		const struct vmcs_field *f = vmcs_field_lookup(e, &high);
		const struct vmcs_field *want = NULL;
		for (size_t i = 0; i < n; i++)
			if (t[i].encoding == (e & ~1u))
				want = &t[i];
		if (want && (e & 1) && want->width != VMCS_W64)
			want = NULL;
		if ((e & 0x1000))
			want = NULL;
		ck_assert_msg(f == want, "lookup(0x%04x)", e);
		if (f)
			ck_assert(high == (e & 1));
	}
	ck_assert_ptr_null(vmcs_field_lookup(0xffffffffffffffffull, NULL));
	ck_assert_ptr_null(vmcs_field_lookup(0x10000681eull, NULL));
}
END_TEST

START_TEST(lookup_named)
{
	bool high = false;
	const struct vmcs_field *f = vmcs_field_lookup(VMCS_IO_BITMAP_A | 1, &high);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->id, "IO_BITMAP_A");
	ck_assert(high);
	f = vmcs_field_lookup(VMCS_EXIT_QUALIFICATION, NULL);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->type, VMCS_RO);
	ck_assert_str_eq(f->name, "exit qualification");
	ck_assert_ptr_null(vmcs_field_lookup(0x482c, NULL));   /* hole in B.3.3 */
	ck_assert_ptr_null(vmcs_field_lookup(0x6c1e, NULL));   /* past the last host field */
}
END_TEST

START_TEST(vmcs_enum_max_index)
{
	/* The highest index in Appendix B: injected-event data, 0x2052 -> 41. */
	ck_assert_uint_eq(vmcs_field_max_index(), 0x29);
	ck_assert_uint_eq(vmcs_width_bytes(VMCS_W16), 2);
	ck_assert_uint_eq(vmcs_width_bytes(VMCS_W32), 4);
	ck_assert_uint_eq(vmcs_width_bytes(VMCS_W64), 8);
	ck_assert_uint_eq(vmcs_width_bytes(VMCS_WNAT), 8);
}
END_TEST

/* ---- exit reasons ---- */

START_TEST(exit_table_sorted_unique)
{
	size_t n;
	const struct vmx_exit_info *t = vmx_exit_table(&n);
	ck_assert_uint_gt(n, 0);
	for (size_t i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(t[i].qualification);
		ck_assert_uint_gt(strlen(t[i].name), 0);
		ck_assert_uint_lt(t[i].reason, VMX_EXIT_REASON_LIMIT);
		if (i > 0)
			ck_assert_msg(t[i - 1].reason < t[i].reason, "%s out of order", t[i].name);
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(strcmp(t[i].name, t[j].name) != 0, "duplicate %s", t[i].name);
		ck_assert_ptr_eq(vmx_exit_lookup(t[i].reason), &t[i]);
	}
	/* Every reason below the limit is defined except the SDM's holes. */
	for (unsigned r = 0; r < VMX_EXIT_REASON_LIMIT; r++) {
		bool hole = r == 35 || r == 38 || r == 42;
		ck_assert_msg((vmx_exit_lookup(r) == NULL) == hole, "reason %u", r);
	}
}
END_TEST

START_TEST(exit_lookup)
{
	ck_assert_str_eq(vmx_exit_name(VMX_EXIT_EPT_VIOLATION), "ept_violation");
	ck_assert_str_eq(vmx_exit_name(10), "cpuid");
	ck_assert_str_eq(vmx_exit_name(30), "io_instruction");
	/* Flags above bit 15 do not change the basic reason (SDM Vol.3 24.9.1). */
	ck_assert_str_eq(vmx_exit_name(VMX_EXIT_ENTRY_FAILURE | 33), "invalid_guest_state");
	ck_assert_str_eq(vmx_exit_name(VMX_EXIT_ENCLAVE_MODE | 12), "hlt");
	ck_assert_str_eq(vmx_exit_name(35), "unknown");
	ck_assert_str_eq(vmx_exit_name(VMX_EXIT_REASON_LIMIT), "unknown");
	ck_assert_str_eq(vmx_exit_name(0xffff), "unknown");
	ck_assert_str_ne(vmx_exit_lookup(VMX_EXIT_CR_ACCESS)->qualification, "-");
	ck_assert_str_eq(vmx_exit_lookup(VMX_EXIT_CPUID)->qualification, "-");
}
END_TEST

/* ---- capability MSRs: allowed-0 / allowed-1 (SDM Vol.3 A.3) ---- */

/* A capability MSR from its two halves. */
static uint64_t cap(uint32_t must_be_1, uint32_t may_be_1)
{
	return ((uint64_t)may_be_1 << 32) | must_be_1;
}

START_TEST(ctl_truth_table)
{
	/* bit 0: must be 1 (allowed-0 = 1, allowed-1 = 1)
	 * bit 1: free      (allowed-0 = 0, allowed-1 = 1)
	 * bit 2: must be 0 (allowed-0 = 0, allowed-1 = 0) */
	const uint64_t c = cap(0x1, 0x3);
	static const struct { uint32_t want, adjusted; bool valid; } rows[] = {
		{ 0x0, 0x1, false }, { 0x1, 0x1, true },  { 0x2, 0x3, false }, { 0x3, 0x3, true },
		{ 0x4, 0x1, false }, { 0x5, 0x1, false }, { 0x6, 0x3, false }, { 0x7, 0x3, false },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_msg(vmx_ctl_adjust(c, rows[i].want) == rows[i].adjusted, "adjust(%u)", rows[i].want);
		ck_assert_msg(vmx_ctl_valid(c, rows[i].want) == rows[i].valid, "valid(%u)", rows[i].want);
	}
	ck_assert_uint_eq(vmx_ctl_unavailable(c, 0x6), 0x4);
	ck_assert_uint_eq(vmx_ctl_unavailable(c, 0x3), 0);
}
END_TEST

START_TEST(ctl_adjust_properties)
{
	/* For consistent capabilities: the adjusted value is accepted by VM
	 * entry, adjusting is idempotent, and no bit appears that was neither
	 * wanted nor required. */
	const uint64_t caps[] = { cap(0x16, 0xff), cap(0x0, 0x0), cap(0xffffffff, 0xffffffff),
				  cap(VMX_PINBASED_DEFAULT1, 0x000000ff), cap(0x0401e172, 0xfff9fffe) };
	for (size_t k = 0; k < sizeof(caps) / sizeof(caps[0]); k++)
		for (uint32_t w = 0; w < 0x200; w++) {
			uint32_t want = w * 0x00810203u;  /* spread over all 32 bits */
			uint32_t a = vmx_ctl_adjust(caps[k], want);
			ck_assert(vmx_ctl_valid(caps[k], a));
			ck_assert_uint_eq(vmx_ctl_adjust(caps[k], a), a);
			ck_assert_uint_eq(a & ~(want | vmx_ctl_must_be_1(caps[k])), 0);
		}
}
END_TEST

START_TEST(ctl_contradictory_capability)
{
	/* A bit that must be 1 but may not be 1: no value is valid, and adjust
	 * does not pretend otherwise by setting it. */
	const uint64_t c = cap(0x8, 0x7);
	for (uint32_t w = 0; w < 16; w++) {
		ck_assert(!vmx_ctl_valid(c, w));
		ck_assert_uint_eq(vmx_ctl_adjust(c, w) & 0x8, 0);
	}
}
END_TEST

START_TEST(ctl_double_adjust)
{
	/* The KVM pattern: controls = adjust(min | opt). A second configuration
	 * pass with a smaller optional set (say, a feature turned off) must lose
	 * the dropped bit: adjust depends only on what is asked now, and only
	 * must-be-1 bits are added back. */
	const uint64_t c = cap(0x01, 0x1f);     /* bit 0 must be 1, bits 1-4 may be 1 */
	const uint32_t min = 0x02, opt1 = 0x04 | 0x08, opt2 = 0x04;

	uint32_t first = vmx_ctl_adjust(c, min | opt1);
	ck_assert_uint_eq(first, 0x0f);
	uint32_t second = vmx_ctl_adjust(c, min | opt2);
	ck_assert_uint_eq(second, 0x07);
	ck_assert_uint_eq(second & 0x08, 0);   /* the dropped optional bit stays dropped */
	ck_assert(vmx_ctl_valid(c, second));

	/* Same answer whether or not an earlier adjust happened. */
	ck_assert_uint_eq(vmx_ctl_adjust(c, min | opt2), second);

	/* Dropping a must-be-1 bit from the request is the only thing undone. */
	ck_assert_uint_eq(vmx_ctl_adjust(c, 0x00), 0x01);

	/* A bit the CPU forbids, asked for in the second pass, is not granted,
	 * and the caller can tell its minimum is not met. */
	ck_assert_uint_eq(vmx_ctl_adjust(c, min | 0x20), 0x03);
	ck_assert_uint_eq(vmx_ctl_unavailable(c, min | 0x20), 0x20);
}
END_TEST

START_TEST(ctl64_and_fixed_bits)
{
	ck_assert_uint_eq(vmx_ctl64_adjust(0x0000000100000005ull, 0xffffffffffffffffull), 0x0000000100000005ull);
	ck_assert(vmx_ctl64_valid(0x0000000100000005ull, 0x0000000100000001ull));
	ck_assert(!vmx_ctl64_valid(0x0000000100000005ull, 0x0000000200000000ull));

	/* CR0 in VMX operation: PE, NE, PG fixed to 1 (SDM Vol.3 23.8, A.7). */
	const uint64_t f0 = 0x80000021, f1 = 0xffffffff;
	ck_assert(vmx_cr_fixed_valid(f0, f1, 0x80000031));
	ck_assert(!vmx_cr_fixed_valid(f0, f1, 0x80000030));        /* PE clear */
	ck_assert(!vmx_cr_fixed_valid(f0, f1, 0x180000031ull));    /* bit 32 fixed to 0 */
}
END_TEST

START_TEST(default1_classes)
{
	/* SDM Vol.3 A.2, the bit lists of the default1 class. */
	static const unsigned proc[] = { 1, 4, 5, 6, 8, 13, 14, 15, 16, 26 };
	static const unsigned exit_[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 13, 14, 16, 17 };
	static const unsigned entry[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 12 };
	uint32_t m = 0;
	for (size_t i = 0; i < sizeof(proc) / sizeof(proc[0]); i++)
		m |= 1u << proc[i];
	ck_assert_uint_eq(m, VMX_PROCBASED_DEFAULT1);
	m = 0;
	for (size_t i = 0; i < sizeof(exit_) / sizeof(exit_[0]); i++)
		m |= 1u << exit_[i];
	ck_assert_uint_eq(m, VMX_EXIT_DEFAULT1);
	m = 0;
	for (size_t i = 0; i < sizeof(entry) / sizeof(entry[0]); i++)
		m |= 1u << entry[i];
	ck_assert_uint_eq(m, VMX_ENTRY_DEFAULT1);
	ck_assert_uint_eq(VMX_PINBASED_DEFAULT1, (1u << 1) | (1u << 2) | (1u << 4));
	ck_assert_uint_eq(MSR_VMX_TRUE_ENTRY_CTLS - MSR_VMX_TRUE_PINBASED_CTLS, 3);
	ck_assert_uint_eq(MSR_VMX_VMFUNC, 0x491);
}
END_TEST

/* ---- VMCS formats (vmx/vmcs.h) ---- */

START_TEST(vmcs_formats)
{
	/* #PF with error code, valid: vector 14, type 3, bit 11, bit 31. */
	uint32_t info = 14 | (VMX_INTR_HW_EXCEPTION << VMX_INTR_TYPE_SHIFT) | VMX_INTR_DELIVER_ERROR |
			VMX_INTR_VALID;
	ck_assert_uint_eq(info, 0x80000b0e);
	ck_assert_uint_eq(info & VMX_INTR_ENTRY_RESERVED, 0);
	ck_assert_uint_eq(VMX_INTR_NMI_UNBLOCKED & VMX_INTR_ENTRY_RESERVED, VMX_INTR_NMI_UNBLOCKED);

	/* Named bits never land in a reserved mask. */
	ck_assert_uint_eq((VMX_AR_TYPE_MASK | VMX_AR_S | VMX_AR_DPL_MASK | VMX_AR_P | VMX_AR_AVL |
			   VMX_AR_L | VMX_AR_DB | VMX_AR_G | VMX_AR_UNUSABLE) & VMX_AR_RESERVED, 0);
	ck_assert_uint_eq((VMX_AR_TYPE_MASK | VMX_AR_S | VMX_AR_DPL_MASK | VMX_AR_P | VMX_AR_AVL |
			   VMX_AR_L | VMX_AR_DB | VMX_AR_G | VMX_AR_UNUSABLE) | VMX_AR_RESERVED, 0xffffffffu);
	ck_assert_uint_eq(VMX_INTERRUPTIBILITY_ENCLAVE * 2 - 1, ~VMX_INTERRUPTIBILITY_RESERVED);

	/* Pin-based named controls are outside the default1 class (A.3.1). */
	uint32_t pin = VMX_CTL(VMX_PIN_EXT_INTR_EXITING) | VMX_CTL(VMX_PIN_NMI_EXITING) |
		       VMX_CTL(VMX_PIN_VIRTUAL_NMIS) | VMX_CTL(VMX_PIN_PREEMPTION_TIMER) |
		       VMX_CTL(VMX_PIN_POSTED_INTERRUPTS);
	ck_assert_uint_eq(pin & VMX_PINBASED_DEFAULT1, 0);
	ck_assert_uint_eq(VMX_CTL(VMX_PROC_HLT_EXITING), 0x80);
	ck_assert_uint_eq(VMX_CTL(VMX_PROC_SECONDARY_CONTROLS), 0x80000000u);
	ck_assert_uint_eq(VMX_CTL(VMX_EXITCTL_HOST_ADDR_SPACE_SIZE), 0x200);
	ck_assert_uint_eq(VMX_CTL(VMX_ENTRYCTL_IA32E_MODE_GUEST), 0x200);
	/* CR3-load/store exiting are default1 (A.3.2): TRUE_PROCBASED_CTLS may clear them. */
	ck_assert_uint_eq(VMX_CTL(VMX_PROC_CR3_LOAD_EXITING) & VMX_PROCBASED_DEFAULT1,
			  VMX_CTL(VMX_PROC_CR3_LOAD_EXITING));
	ck_assert_uint_eq(VMX_CTL(VMX_EXITCTL_SAVE_DEBUG_CONTROLS) & VMX_EXIT_DEFAULT1,
			  VMX_CTL(VMX_EXITCTL_SAVE_DEBUG_CONTROLS));
}
END_TEST

START_TEST(vmxon_feature_control)
{
	static const struct { uint64_t fc; bool smx, allowed; } rows[] = {
		{ 0x0, false, false }, { 0x4, false, false }, { 0x1, false, false },
		{ 0x5, false, true },  { 0x5, true, false },  { 0x3, true, true },
		{ 0x3, false, false }, { 0x7, false, true },  { 0x7, true, true },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		ck_assert_msg(vmx_vmxon_allowed(rows[i].fc, rows[i].smx) == rows[i].allowed, "row %zu", i);
}
END_TEST

/* ---- bitmaps ---- */

START_TEST(msr_bitmap)
{
	uint32_t byte;
	unsigned bit;
	ck_assert(vmx_msr_bitmap_locate(0x10, false, &byte, &bit));   /* TSC */
	ck_assert_uint_eq(byte, 0x002);
	ck_assert_uint_eq(bit, 0);
	ck_assert(vmx_msr_bitmap_locate(0x10, true, &byte, &bit));
	ck_assert_uint_eq(byte, 0x802);
	ck_assert(vmx_msr_bitmap_locate(0xc0000080, false, &byte, &bit));  /* EFER */
	ck_assert_uint_eq(byte, 0x410);
	ck_assert_uint_eq(bit, 0);
	ck_assert(vmx_msr_bitmap_locate(0xc0001fff, true, &byte, &bit));
	ck_assert_uint_eq(byte, 0xfff);
	ck_assert_uint_eq(bit, 7);

	static uint8_t map[VMX_MSR_BITMAP_SIZE];
	memset(map, 0, sizeof(map));
	/* Outside both ranges (including AMD's C001_xxxx): always exits. */
	const uint32_t outside[] = { 0x2000, 0x40000000, 0xbfffffff, 0xc0002000, 0xc0010114, 0xffffffff };
	for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
		ck_assert(!vmx_msr_bitmap_locate(outside[i], true, &byte, &bit));
		ck_assert(vmx_msr_bitmap_intercepted(map, outside[i], false));
	}
	ck_assert(!vmx_msr_bitmap_intercepted(map, 0x10, false));
	map[0x802] = 1;
	ck_assert(vmx_msr_bitmap_intercepted(map, 0x10, true));
	ck_assert(!vmx_msr_bitmap_intercepted(map, 0x10, false));
}
END_TEST

START_TEST(io_bitmaps)
{
	static uint8_t a[VMX_IO_BITMAP_SIZE], b[VMX_IO_BITMAP_SIZE];
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	ck_assert(!vmx_io_bitmap_intercepted(a, b, 0x3f8, 1));
	ck_assert(!vmx_io_bitmap_intercepted(a, b, 0xfffc, 4));
	/* Wrap-around always exits (SDM Vol.3 25.1.3). */
	ck_assert(vmx_io_bitmap_intercepted(a, b, 0xffff, 2));
	ck_assert(vmx_io_bitmap_intercepted(a, b, 0xfffd, 4));
	ck_assert(vmx_io_bitmap_intercepted(a, b, 0x60, 3));
	/* Port 0x8000 is bit 0 of bitmap B; a word at 0x7FFF spans A and B. */
	b[0] = 1;
	ck_assert(vmx_io_bitmap_intercepted(a, b, 0x8000, 1));
	ck_assert(vmx_io_bitmap_intercepted(a, b, 0x7fff, 2));
	ck_assert(!vmx_io_bitmap_intercepted(a, b, 0x7fff, 1));
	ck_assert(!vmx_io_bitmap_intercepted(a, b, 0x0000, 4));   /* A's bit 0 is clear */
	a[0x3f8 / 8] = 1u << (0x3f8 % 8);
	ck_assert(vmx_io_bitmap_intercepted(a, b, 0x3f8, 1));
	ck_assert(vmx_io_bitmap_intercepted(a, b, 0x3f6, 4));
	ck_assert(!vmx_io_bitmap_intercepted(a, b, 0x3f9, 4));
}
END_TEST

static Suite *vmx_suite(void)
{
	Suite *s = suite_create("vmx");
	TCase *fields = tcase_create("vmcs_fields");
	tcase_add_test(fields, every_row_agrees_with_its_encoding);
	tcase_add_test(fields, check_rejects_bad_rows);
	tcase_add_test(fields, table_sorted_and_unique);
	tcase_add_test(fields, decode_known_encodings);
	tcase_add_test(fields, make_decode_roundtrip);
	tcase_add_test(fields, well_formed_rules);
	tcase_add_test(fields, lookup_all_16bit_encodings);
	tcase_add_test(fields, lookup_named);
	tcase_add_test(fields, vmcs_enum_max_index);
	tcase_add_test(fields, state_fields_map_to_slots);
	suite_add_tcase(s, fields);
	TCase *exits = tcase_create("exit_reasons");
	tcase_add_test(exits, exit_table_sorted_unique);
	tcase_add_test(exits, exit_lookup);
	suite_add_tcase(s, exits);
	TCase *caps = tcase_create("capabilities");
	tcase_add_test(caps, ctl_truth_table);
	tcase_add_test(caps, ctl_adjust_properties);
	tcase_add_test(caps, ctl_contradictory_capability);
	tcase_add_test(caps, ctl_double_adjust);
	tcase_add_test(caps, ctl64_and_fixed_bits);
	tcase_add_test(caps, default1_classes);
	tcase_add_test(caps, vmxon_feature_control);
	suite_add_tcase(s, caps);
	TCase *vmcs = tcase_create("vmcs_formats_bitmaps");
	tcase_add_test(vmcs, vmcs_formats);
	tcase_add_test(vmcs, msr_bitmap);
	tcase_add_test(vmcs, io_bitmaps);
	suite_add_tcase(s, vmcs);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(vmx_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
