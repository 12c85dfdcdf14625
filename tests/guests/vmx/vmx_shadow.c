/* VMCS shadowing from a 32-bit L1 hypervisor (SDM Vol.3 24.10 "VMCS types:
 * ordinary and shadow", 24.6.15 the VMREAD/VMWRITE bitmaps, 25.1.3, 30.3
 * VMREAD and VMWRITE): with the secondary control "VMCS shadowing" an L2
 * VMREAD/VMWRITE whose field's bitmap bit is 0 (and encoding bits 31:15 are
 * 0) does not exit but reaches the shadow VMCS the VMCS link pointer
 * references; VMfailInvalid when the link pointer is FFFFFFFF_FFFFFFFFH;
 * VMfailValid(12) into the current VMCS for a field that does not exist;
 * VMWRITE to a VM-exit information field with IA32_VMX_MISC bit 29. Then, in
 * root operation, VM entry with a shadow VMCS current (VMfailInvalid, 26.1)
 * and a link pointer at an ordinary VMCS (exit 33, qualification 4,
 * 26.3.1.5), and VMPTRLD of a shadow VMCS. Each row's L2 runs its
 * instruction then VMCALL: a row that does not exit ends in exit 18. Without
 * "VMCS shadowing" (nehalem-lite, core2) VMREAD/VMWRITE exit and VMPTRLD of
 * a shadow VMCS fails (11); the other rows skip. */
#include "vmx/lib_vmx.h"

/* SDM Vol.3 24.6.2 Table 24-7, Appendix B.2. */
#define PROC2_VMCS_SHADOWING  (1u << 14)
#define VMCS_VMREAD_BITMAP    0x2026u
#define VMCS_VMWRITE_BITMAP   0x2028u
#define SHADOW_INDICATOR      0x80000000u   /* revision dword bit 31 (24.2) */
#define SHADOW_REGION         4
#define ORDINARY_REGION       5

static uint8_t vmread_bitmap[4096] __attribute__((aligned(4096)));
static uint8_t vmwrite_bitmap[4096] __attribute__((aligned(4096)));

L2_INSN(b_vmread, "vmread %ecx, %edx");
L2_INSN(b_vmwrite, "vmwrite %edx, %ecx");

static const char *no_shadowing(void)
{
	return vmx_has_proc2(PROC2_VMCS_SHADOWING) ? 0 : "no VMCS shadowing (IA32_VMX_PROCBASED_CTLS2 bit 46)";
}

static const char *no_misc_29(void)
{
	if (no_shadowing())
		return no_shadowing();
	return (vmx_caps.misc & MISC_VMWRITE_EXIT_INFO) ? 0 : "IA32_VMX_MISC bit 29 is 0";
}

static void make_current(int region)
{
	uint64_t pa = region_pa(region);
	if (vmptrld(&pa) != VM_SUCCEED) {
		vmx_setup_errors++;
		gprintf("# VMPTRLD of region %d failed\n", region);
	}
}

/* A field of the shadow VMCS through root-operation VMPTRLD + VMREAD. */
static uint32_t shadow_read(uint32_t enc)
{
	make_current(SHADOW_REGION);
	uint32_t v = vmread(enc);
	make_current(1);
	return v;
}

/* The shadow VMCS (revision with bit 31, cleared) with guest RIP 5555H,
 * zeroed bitmaps, the link pointer at it; RCX the field, EDX the value. */
static void shadow_setup(struct vmx_case *c)
{
	region_init(SHADOW_REGION);
	*(volatile uint32_t *)vmx_region[SHADOW_REGION] |= SHADOW_INDICATOR;
	uint64_t pa = region_pa(SHADOW_REGION);
	if (vmclear(&pa) != VM_SUCCEED)
		vmx_setup_errors++;
	make_current(SHADOW_REGION);
	vmwrite(VMCS_GUEST_RIP, 0x5555);
	make_current(1);
	gmemset(vmread_bitmap, 0, sizeof(vmread_bitmap));
	gmemset(vmwrite_bitmap, 0, sizeof(vmwrite_bitmap));
	vmwrite64(VMCS_VMREAD_BITMAP, (uint32_t)(uintptr_t)vmread_bitmap);
	vmwrite64(VMCS_VMWRITE_BITMAP, (uint32_t)(uintptr_t)vmwrite_bitmap);
	vmwrite64(VMCS_LINK_POINTER, pa);
	l2_regs.ecx = c->row->arg;
	l2_regs.edx = 0x7777;
}

static void bitmap_set(uint8_t *map, uint32_t enc) { map[enc / 8] |= (uint8_t)(1u << (enc % 8)); }
static void read_bit_setup(struct vmx_case *c) { shadow_setup(c); bitmap_set(vmread_bitmap, c->row->arg); }
static void write_bit_setup(struct vmx_case *c) { shadow_setup(c); bitmap_set(vmwrite_bitmap, c->row->arg); }
static void no_link_setup(struct vmx_case *c)
{
	shadow_setup(c);
	vmwrite64(VMCS_LINK_POINTER, ~0ull);
	vmwrite(VMCS_INSN_ERROR, 0);
}

static uint32_t l2_flags(void) { return vmread(VMCS_GUEST_RFLAGS) & VMX_ARITH_FLAGS; }

static void read_5555(struct vmx_case *c)
{
	vmx_expect(c, "L2 VMREAD flags", l2_flags(), VM_SUCCEED);
	vmx_expect(c, "EDX (the shadow's guest RIP)", l2_regs.edx, 0x5555);
}
static void wrote_7777(struct vmx_case *c)
{
	vmx_expect(c, "L2 VMWRITE flags", l2_flags(), VM_SUCCEED);
	vmx_expect(c, "shadow field", shadow_read(c->row->arg), 0x7777);
}
static void shadow_untouched(struct vmx_case *c)
{
	vmx_expect(c, "shadow guest RIP", shadow_read(VMCS_GUEST_RIP), 0x5555);
}
static void fail_invalid(struct vmx_case *c)
{
	vmx_expect(c, "L2 flags", l2_flags(), VM_FAIL_INVALID);
	vmx_expect(c, "EDX", l2_regs.edx, 0x7777);
	vmx_expect(c, "VM-instruction error (current VMCS)", vmread(VMCS_INSN_ERROR), 0);
}
static void fail_unsupported(struct vmx_case *c)
{
	vmx_expect(c, "L2 flags", l2_flags(), VM_FAIL_VALID);
	vmx_expect(c, "VM-instruction error (current VMCS)", vmread(VMCS_INSN_ERROR), VMERR_UNSUPPORTED_FIELD);
}

/* 24.11.2: index 1FFH of the 16-bit guest-state type, beyond any
 * IA32_VMX_VMCS_ENUM. */
#define NO_SUCH_FIELD 0x0bfeu

static void plain_setup(struct vmx_case *c) { l2_regs.ecx = c->row->arg; }

static const struct vmx_row rows[] = {
	/* 25.1.3: without "VMCS shadowing" (0, or no secondary controls at
	 * all) VMREAD and VMWRITE in VMX non-root operation always exit. */
	{ .name = "VMREAD without VMCS shadowing: exit 23", .sdm = "25.1.3",
	  .body = &b_vmread_body, .setup = plain_setup, .arg = VMCS_GUEST_RIP, .reason = EXIT_VMREAD,
	  .check = C_LEN },
	{ .name = "VMWRITE without VMCS shadowing: exit 25", .sdm = "25.1.3",
	  .body = &b_vmwrite_body, .setup = plain_setup, .arg = VMCS_GUEST_RIP, .reason = EXIT_VMWRITE,
	  .check = C_LEN },
	{ .name = "VMREAD, bitmap bit 0: reads the shadow VMCS, no exit", .sdm = "30.3 VMREAD, 24.10",
	  .body = &b_vmread_body, .proc = PROC_SECONDARY, .proc2 = PROC2_VMCS_SHADOWING, .setup = shadow_setup,
	  .arg = VMCS_GUEST_RIP, .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = read_5555,
	  .skip = no_shadowing },
	{ .name = "VMWRITE, bitmap bit 0: writes the shadow VMCS, no exit", .sdm = "30.3 VMWRITE, 24.10",
	  .body = &b_vmwrite_body, .proc = PROC_SECONDARY, .proc2 = PROC2_VMCS_SHADOWING, .setup = shadow_setup,
	  .arg = VMCS_GUEST_RSP, .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = wrote_7777,
	  .skip = no_shadowing },
	{ .name = "VMREAD, VMREAD-bitmap bit 1: exit 23", .sdm = "25.1.3, 24.6.15",
	  .body = &b_vmread_body, .proc = PROC_SECONDARY, .proc2 = PROC2_VMCS_SHADOWING, .setup = read_bit_setup,
	  .arg = VMCS_GUEST_RIP, .reason = EXIT_VMREAD, .check = C_LEN, .skip = no_shadowing },
	{ .name = "VMWRITE, VMWRITE-bitmap bit 1: exit 25, the shadow untouched", .sdm = "25.1.3, 24.6.15",
	  .body = &b_vmwrite_body, .proc = PROC_SECONDARY, .proc2 = PROC2_VMCS_SHADOWING, .setup = write_bit_setup,
	  .arg = VMCS_GUEST_RIP, .reason = EXIT_VMWRITE, .check = C_LEN, .extra = shadow_untouched,
	  .skip = no_shadowing },
	{ .name = "VMWRITE, only the VMREAD-bitmap bit 1: no exit", .sdm = "25.1.3, 24.6.15",
	  .body = &b_vmwrite_body, .proc = PROC_SECONDARY, .proc2 = PROC2_VMCS_SHADOWING, .setup = read_bit_setup,
	  .arg = VMCS_GUEST_RSP, .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = wrote_7777,
	  .skip = no_shadowing },
	{ .name = "VMREAD, encoding bit 15 set: exit 23", .sdm = "25.1.3",
	  .body = &b_vmread_body, .proc = PROC_SECONDARY, .proc2 = PROC2_VMCS_SHADOWING, .setup = shadow_setup,
	  .arg = 0x8000u | VMCS_GUEST_RIP, .reason = EXIT_VMREAD, .check = C_LEN, .skip = no_shadowing },
	{ .name = "VMREAD, link pointer FFFFFFFF_FFFFFFFFH: VMfailInvalid", .sdm = "30.3 VMREAD",
	  .body = &b_vmread_body, .proc = PROC_SECONDARY, .proc2 = PROC2_VMCS_SHADOWING, .setup = no_link_setup,
	  .arg = VMCS_GUEST_RIP, .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = fail_invalid,
	  .skip = no_shadowing },
	{ .name = "VMWRITE, link pointer FFFFFFFF_FFFFFFFFH: VMfailInvalid", .sdm = "30.3 VMWRITE",
	  .body = &b_vmwrite_body, .proc = PROC_SECONDARY, .proc2 = PROC2_VMCS_SHADOWING, .setup = no_link_setup,
	  .arg = VMCS_GUEST_RIP, .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = fail_invalid,
	  .skip = no_shadowing },
	{ .name = "VMREAD of no such field: VMfailValid(12) in the current VMCS", .sdm = "30.3 VMREAD, 30.2",
	  .body = &b_vmread_body, .proc = PROC_SECONDARY, .proc2 = PROC2_VMCS_SHADOWING, .setup = shadow_setup,
	  .arg = NO_SUCH_FIELD, .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = fail_unsupported,
	  .skip = no_shadowing },
	{ .name = "VMWRITE exit qualification with IA32_VMX_MISC bit 29: the shadow's field",
	  .sdm = "30.3 VMWRITE, A.6", .body = &b_vmwrite_body, .proc = PROC_SECONDARY,
	  .proc2 = PROC2_VMCS_SHADOWING, .setup = shadow_setup, .arg = VMCS_EXIT_QUALIFICATION,
	  .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = wrote_7777, .skip = no_misc_29 },
};

/* 30.3 VMPTRLD: "rev[31] = 1 AND processor does not support 1-setting of
 * VMCS shadowing": VMfailValid(11); with shadowing, VMsucceed. */
static void vmptrld_shadow(void)
{
	static const struct vmx_row row = { .name = "VMPTRLD of a shadow VMCS: VMsucceed with VMCS shadowing, "
						    "else VMfailValid(11)",
					    .sdm = "30.3 VMPTRLD" };
	struct vmx_case c = { &row, 1, 0 };
	vmx_vmcs_init(1, b_vmread, 0, 0, 0, 0, 0);
	region_init(SHADOW_REGION);
	*(volatile uint32_t *)vmx_region[SHADOW_REGION] |= SHADOW_INDICATOR;
	uint64_t pa = region_pa(SHADOW_REGION);
	vmx_expect(&c, "VMCLEAR", vmclear(&pa), VM_SUCCEED);
	if (no_shadowing()) {
		vmx_expect(&c, "VMPTRLD", vmptrld(&pa), VM_FAIL_VALID);
		vmx_expect(&c, "VM-instruction error", vmread(VMCS_INSN_ERROR), VMERR_VMPTRLD_BAD_REV);
	} else {
		vmx_expect(&c, "VMPTRLD", vmptrld(&pa), VM_SUCCEED);
		make_current(1);
	}
	vmx_case_report(&c);
}

/* 26.1 (4), 24.10: VMLAUNCH with a shadow VMCS current: VMfailInvalid. */
static void launch_shadow(void)
{
	static const struct vmx_row row = { .name = "VMLAUNCH with a shadow VMCS current: VMfailInvalid",
					    .sdm = "26.1, 24.10" };
	const char *why = no_shadowing();
	if (why) {
		skip("VMLAUNCH with a shadow VMCS current: VMfailInvalid [SDM 26.1, 24.10]", "%s", why);
		return;
	}
	struct vmx_case c = { &row, 1, 0 };
	region_init(SHADOW_REGION);
	*(volatile uint32_t *)vmx_region[SHADOW_REGION] |= SHADOW_INDICATOR;
	uint64_t pa = region_pa(SHADOW_REGION);
	vmx_expect(&c, "VMCLEAR", vmclear(&pa), VM_SUCCEED);
	vmx_expect(&c, "VMPTRLD of the shadow VMCS", vmptrld(&pa), VM_SUCCEED);
	vmx_expect(&c, "VMLAUNCH", vmlaunch_f(), VM_FAIL_INVALID);
	uint64_t cur = 0;
	vmptrst(&cur);
	vmx_expect(&c, "current VMCS (VMPTRST)", cur, pa);
	vmx_case_report(&c);
}

/* 26.3.1.5: with "VMCS shadowing" the link pointer must reference a shadow
 * VMCS: an ordinary one fails the entry (exit 33 | bit 31, qualification 4). */
static void link_ordinary(struct vmx_case *c)
{
	shadow_setup(c);
	region_init(ORDINARY_REGION);
	vmwrite64(VMCS_LINK_POINTER, region_pa(ORDINARY_REGION));
}
static const struct vmx_row entry_rows[] = {
	{ .name = "link pointer at an ordinary VMCS: exit 33 | bit 31, qualification 4", .sdm = "26.3.1.5, 26.8",
	  .body = &b_vmread_body, .proc = PROC_SECONDARY, .proc2 = PROC2_VMCS_SHADOWING, .setup = link_ordinary,
	  .arg = VMCS_GUEST_RIP, .reason = EXIT_FAILED_ENTRY | EXIT_INVALID_GUEST, .qual = 4,
	  .check = C_QUAL | C_ENTRY_FAIL, .skip = no_shadowing },
};

void guest_main(void)
{
	vmx_host_init();
	if (!vmx_on())
		skip_all("VMXON failed");
	RUN_ROWS(rows);
	RUN_ROWS(entry_rows);
	vmptrld_shadow();
	launch_shadow();
}
