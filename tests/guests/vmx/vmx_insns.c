/* VMX operation without VM entry, each row against the pseudo-code of the
 * SDM Vol.3 30.3 (the VMX instruction reference) and 30.2's VMsucceed /
 * VMfailInvalid / VMfailValid: #UD outside VMX operation and without
 * CR4.VMXE, VMXON's #GP(0) cases (IA32_FEATURE_CONTROL unlocked, the CR0
 * fixed bits, CPL 3) and its VMfailInvalid pointers, VMfail without a current
 * VMCS (VMfailInvalid) and with one (VMfailValid, the VM-instruction error of
 * 30.4: 1, 2, 3, 5, 9, 10, 11, 12, 13, 15, 26, 28), VMPTRST, VMREAD/VMWRITE
 * widths (24.11.2), the CR0/CR4 rules of VMX operation (23.8), VMXOFF.
 *
 * Each row names the state it starts in (outside VMX operation, in VMX root
 * operation without a current VMCS, or with region 1 current and clear), an
 * edit, one instruction, and what it must do: a fault vector, or the six
 * arithmetic flags and for VMfailValid the VM-instruction error field. */
#include "vmx/lib_vmx.h"
#include "lib/v86.h"

enum state { ST_OFF, ST_ROOT, ST_CURRENT };
enum op {
	OP_VMXON, OP_VMXOFF, OP_VMCLEAR, OP_VMPTRLD, OP_VMPTRST, OP_VMREAD, OP_VMWRITE,
	OP_VMLAUNCH, OP_VMRESUME, OP_VMCALL, OP_INVEPT, OP_INVVPID,
	OP_MOVSS_VMLAUNCH, OP_MOVSS_VMRESUME,   /* right after MOV SS (blocking by MOV SS) */
	OP_VMXON_CPL3, OP_VMPTRST_CPL3,         /* through lib/user.c at CPL 3 */
	OP_V86_VMXON, OP_V86_VMPTRST, OP_V86_VMCALL,   /* through lib/v86.c, RFLAGS.VM = 1 */
	OP_CLEAR_CR4_VMXE, OP_CLEAR_CR0_NE, OP_CLEAR_CR0_PG,   /* MOV to CR4/CR0 */
};
/* Memory operands of VMXON, VMCLEAR, VMPTRLD. */
enum ptr {
	P_VMXON,          /* region 0, the VMXON region */
	P_VMCS,           /* region 1 */
	P_VMCS2,          /* region 2 */
	P_UNALIGNED,      /* region 1 + 800H: not 4 KB aligned */
	P_WIDE,           /* region 1 | 2^MAXPHYADDR: beyond the physical-address width */
	P_BAD_REV,        /* region 3: revision identifier + 1 */
	P_REV31,          /* region 4: the right revision with bit 31 set */
};

struct insn_row {
	const char *name, *sdm;
	enum state pre;
	void (*setup)(void);
	enum op op;
	enum ptr ptr;
	uint32_t enc, val;          /* VMREAD/VMWRITE field and value; INVEPT/INVVPID type */
	uint64_t desc0, desc1;      /* INVEPT/INVVPID descriptor */
	int vector;                 /* the fault expected, or NO_FAULT */
	uint32_t flags;             /* VM_SUCCEED, VM_FAIL_INVALID, VM_FAIL_VALID */
	uint32_t error;             /* with VM_FAIL_VALID */
	uint32_t want_val;          /* with check_val: the VMREAD value */
	int check_val;
	void (*after)(const struct insn_row *r);   /* more checks */
	const char *(*skip)(void);
};

static uint32_t n_bad;              /* mismatches in the current row */
static const struct insn_row *cur;
static uint64_t op_ptr, op_desc[2], op_store;
static uint32_t op_flags, op_val;

static void expect(const char *field, uint64_t got, uint64_t want)
{
	if (got == want)
		return;
	n_bad++;
	gprintf("# %s: %s got 0x%x%08x want 0x%x%08x\n", cur->name, field, (uint32_t)(got >> 32),
		(uint32_t)got, (uint32_t)(want >> 32), (uint32_t)want);
}

static uint64_t ptr_value(enum ptr p)
{
	switch (p) {
	case P_VMXON: return region_pa(0);
	case P_VMCS: return region_pa(1);
	case P_VMCS2: return region_pa(2);
	case P_UNALIGNED: return region_pa(1) + 0x800;
	case P_WIDE: return region_pa(1) | (1ull << vmx_caps.maxphy);
	case P_BAD_REV: return region_pa(3);
	case P_REV31: return region_pa(4);
	}
	return 0;
}

static void user_vmxon(void *arg) { (void)arg; op_flags = vmxon(&op_ptr); }
static void user_vmptrst(void *arg) { (void)arg; op_flags = vmptrst(&op_store); }

static void run_op(void *arg)
{
	const struct insn_row *r = arg;
	switch (r->op) {
	case OP_VMXON: op_flags = vmxon(&op_ptr); break;
	case OP_VMXOFF: op_flags = vmxoff(); break;
	case OP_VMCLEAR: op_flags = vmclear(&op_ptr); break;
	case OP_VMPTRLD: op_flags = vmptrld(&op_ptr); break;
	case OP_VMPTRST: op_flags = vmptrst(&op_store); break;
	case OP_VMREAD: op_flags = vmread_f(r->enc, &op_val); break;
	case OP_VMWRITE: op_flags = vmwrite_f(r->enc, r->val); break;
	case OP_VMLAUNCH: op_flags = vmlaunch_f(); break;
	case OP_VMRESUME: op_flags = vmresume_f(); break;
	case OP_VMCALL: op_flags = vmcall_f(); break;
	case OP_INVEPT: op_flags = invept_f(r->enc, op_desc); break;
	case OP_INVVPID: op_flags = invvpid_f(r->enc, op_desc); break;
	case OP_MOVSS_VMLAUNCH:
	case OP_MOVSS_VMRESUME: {
		/* 30.3 VMLAUNCH/VMRESUME: "ELSIF events are being blocked by MOV
		 * SS THEN VMfailValid(26)", checked before the launch state. */
		uint32_t f;
		if (r->op == OP_MOVSS_VMLAUNCH)
			__asm__ volatile("pushl $0x8d7\n\tpopfl\n\tmov %%ss, %%ax\n\tmov %%ax, %%ss\n\t"
					 "vmlaunch\n\tpushfl\n\tpopl %0" : "=r"(f) :: "eax", "memory", "cc");
		else
			__asm__ volatile("pushl $0x8d7\n\tpopfl\n\tmov %%ss, %%ax\n\tmov %%ax, %%ss\n\t"
					 "vmresume\n\tpushfl\n\tpopl %0" : "=r"(f) :: "eax", "memory", "cc");
		op_flags = f & VMX_ARITH_FLAGS;
		break;
	}
	case OP_VMXON_CPL3:
	case OP_VMPTRST_CPL3:
	case OP_V86_VMXON:
	case OP_V86_VMPTRST:
	case OP_V86_VMCALL:
		break;      /* run_row runs them through run_user and v86_run */
	case OP_CLEAR_CR4_VMXE:
		__asm__ volatile(MARK "mov %0, %%cr4" :: "r"(read_cr4() & ~CR4_VMXE) : "memory");
		break;
	case OP_CLEAR_CR0_NE:
		__asm__ volatile(MARK "mov %0, %%cr0" :: "r"(read_cr0() & ~CR0_NE) : "memory");
		break;
	case OP_CLEAR_CR0_PG:
		__asm__ volatile(MARK "mov %0, %%cr0" :: "r"(read_cr0() & ~CR0_PG) : "memory");
		break;
	}
}

/* 1 if the processor is in VMX operation: VMPTRST #UDs outside it (30.3). */
static void probe_vmptrst(void *arg) { (void)arg; (void)vmptrst(&op_store); }
static int in_vmx(void)
{
	trap_reset();
	return trap_catch(probe_vmptrst, 0) == NO_FAULT;
}

/* Brings the processor into state s (rows start from a known state, so
 * each is independent of the one before). */
static int go(enum state s)
{
	uint64_t p;
	if (in_vmx() && vmxoff() != VM_SUCCEED)
		return 0;
	if (s == ST_OFF)
		return 1;
	write_cr4(read_cr4() | CR4_VMXE);
	if (!vmx_on())
		return 0;
	if (s == ST_ROOT)
		return 1;
	p = region_pa(1);
	region_init(1);
	return vmclear(&p) == VM_SUCCEED && vmptrld(&p) == VM_SUCCEED;
}

static void run_row(const struct insn_row *r)
{
	char name[160];
	pg_name(name, sizeof(name), "%s [SDM %s]", r->name, r->sdm);
	const char *why = r->skip ? r->skip() : 0;
	if (why) {
		skip(name, "%s", why);
		return;
	}
	cur = r;
	n_bad = 0;
	if (!go(r->pre)) {
		gprintf("# %s: could not reach the row's starting state\n", r->name);
		check_true(name, 0);
		return;
	}
	uint32_t cr0 = read_cr0(), cr4 = read_cr4();
	region_init(3);
	*(uint32_t *)(void *)vmx_region[3] = BASIC_REVISION(vmx_caps.basic) ^ 1;
	region_init(4);
	*(uint32_t *)(void *)vmx_region[4] = BASIC_REVISION(vmx_caps.basic) | 0x80000000u;
	if (r->setup)
		r->setup();
	op_ptr = ptr_value(r->ptr);
	op_desc[0] = r->desc0;
	op_desc[1] = r->desc1;
	op_store = 0x5a5a5a5a5a5a5a5aull;
	op_flags = 0xffffffffu;
	op_val = 0xdeadbeefu;
	trap_reset();
	int vec;
	if (r->op == OP_VMXON_CPL3)
		vec = run_user(user_vmxon, 0, 0);
	else if (r->op == OP_VMPTRST_CPL3)
		vec = run_user(user_vmptrst, 0, 0);
	else if (r->op == OP_V86_VMXON || r->op == OP_V86_VMPTRST || r->op == OP_V86_VMCALL) {
		/* 8086 code at 0600:0000, then HLT (#GP(0) if the instruction
		 * did not fault): VMXON [0100H] (F3 0F C7 /6), VMPTRST [0100H]
		 * (0F C7 /7), VMCALL (0F 01 C1). */
		static const uint8_t vmxon16[] = { 0xf3, 0x0f, 0xc7, 0x36, 0x00, 0x01, 0xf4 };
		static const uint8_t vmptrst16[] = { 0x0f, 0xc7, 0x3e, 0x00, 0x01, 0xf4 };
		static const uint8_t vmcall16[] = { 0x0f, 0x01, 0xc1, 0xf4 };
		if (r->op == OP_V86_VMXON)
			vec = v86_run(vmxon16, sizeof(vmxon16), 0);
		else if (r->op == OP_V86_VMPTRST)
			vec = v86_run(vmptrst16, sizeof(vmptrst16), 0);
		else
			vec = v86_run(vmcall16, sizeof(vmcall16), 0);
	} else
		vec = trap_catch(run_op, (void *)r);
	/* The row's edits undone before anything else runs. */
	if (read_cr0() != cr0)
		write_cr0(cr0);
	if (read_cr4() != cr4)
		write_cr4(cr4);
	expect("vector", (uint32_t)vec, (uint32_t)r->vector);
	if (vec == 13 && r->vector == 13)
		expect("error code", trap_last.error, 0);
	if (vec == NO_FAULT && r->vector == NO_FAULT) {
		if (op_flags != r->flags)
			gprintf("# %s: %s, want %s\n", r->name, vmx_outcome_name(op_flags),
				vmx_outcome_name(r->flags));
		expect("arithmetic flags", op_flags, r->flags);
		if (r->flags == VM_FAIL_VALID && op_flags == VM_FAIL_VALID) {
			uint32_t err = 0;
			vmread_f(VMCS_INSN_ERROR, &err);
			expect("VM-instruction error", err, r->error);
		}
		if (r->check_val)
			expect("VMREAD value", op_val, r->want_val);
	}
	if (r->after)
		r->after(r);
	check_true(name, n_bad == 0);
}

/* ---- edits and after-checks ---- */

static void no_vmxe(void) { write_cr4(read_cr4() & ~CR4_VMXE); }
static void no_ne(void) { write_cr0(read_cr0() & ~CR0_NE); }
static void no_pg(void) { write_cr0(read_cr0() & ~CR0_PG); }
/* A VMREAD/VMWRITE the rows below read back: region 1 holds them. */
static void tsc_offset_high(void) { vmwrite(VMCS_HIGH(VMCS_TSC_OFFSET), 0x11112222u); }
static void tsc_offset_low(void) { vmwrite(VMCS_TSC_OFFSET, 0x33334444u); }
static void cs_sel_wide(void) { vmwrite(VMCS_GUEST_CS_SEL, 0xabcd1234u); }
static void exc_bitmap(void) { vmwrite(VMCS_EXCEPTION_BITMAP, 0x12345678u); }

static void still_outside(const struct insn_row *r)
{
	(void)r;
	expect("in VMX operation afterwards (VMPTRST does not #UD)", in_vmx(), 0);
}
static void inside(const struct insn_row *r)
{
	(void)r;
	expect("in VMX operation afterwards", in_vmx(), 1);
}
/* 30.3 VMXON: "current-VMCS pointer := FFFFFFFF_FFFFFFFFH". */
static void no_current_vmcs(const struct insn_row *r)
{
	(void)r;
	uint64_t p = 0;
	expect("VMPTRST outcome", vmptrst(&p), VM_SUCCEED);
	expect("current-VMCS pointer", p, ~0ull);
}
static void stored_region1(const struct insn_row *r)
{
	(void)r;
	expect("VMPTRST stored", op_store, region_pa(1));
}
static void current_is_region2(const struct insn_row *r)
{
	(void)r;
	uint64_t p = 0;
	vmptrst(&p);
	expect("current-VMCS pointer", p, region_pa(2));
}
/* 24.11.2: the full encoding of a 64-bit field outside 64-bit mode writes
 * bits 31:0 and clears 63:32. */
static void high_cleared(const struct insn_row *r)
{
	(void)r;
	expect("TSC offset bits 63:32 after a full-encoding VMWRITE", vmread(VMCS_HIGH(VMCS_TSC_OFFSET)), 0);
}
static void low_kept(const struct insn_row *r)
{
	(void)r;
	expect("TSC offset bits 31:0 after a high-encoding VMWRITE", vmread(VMCS_TSC_OFFSET), 0x33334444u);
}
static void exit_reason_written(const struct insn_row *r)
{
	(void)r;
	expect("exit reason read back", vmread(VMCS_EXIT_REASON), 0x55u);
}
static void cr4_vmxe_clearable(const struct insn_row *r)
{
	(void)r;
	/* 23.7: "CR4.VMXE can be cleared outside of VMX operation after
	 * executing of VMXOFF". */
	write_cr4(read_cr4() & ~CR4_VMXE);
	expect("CR4.VMXE after clearing it outside VMX operation", read_cr4() & CR4_VMXE, 0);
	write_cr4(read_cr4() | CR4_VMXE);
}
static void error_kept(const struct insn_row *r)
{
	(void)r;
	/* 30.2: VMsucceed leaves the VM-instruction error field alone. */
	expect("VM-instruction error after a later VMsucceed", vmread(VMCS_INSN_ERROR), VMERR_UNSUPPORTED_FIELD);
}

/* ---- skips ---- */

static const char *need_ne_fixed(void)
{
	return (vmx_caps.cr0_fixed0 & CR0_NE) ? 0 : "IA32_VMX_CR0_FIXED0 lets CR0.NE be 0";
}
static const char *need_pg_fixed(void)
{
	return (vmx_caps.cr0_fixed0 & CR0_PG) ? 0 : "IA32_VMX_CR0_FIXED0 lets CR0.PG be 0";
}
static const char *need_wide_ok(void)
{
	return vmx_caps.maxphy < 64 ? 0 : "MAXPHYADDR is 64";
}
static const char *need_no_shadowing(void)
{
	return vmx_has_proc2(1u << 14) ? "VMCS shadowing: bit 31 names a shadow VMCS" : 0;
}
static const char *need_ro_exit_info(void)
{
	return (vmx_caps.misc & MISC_VMWRITE_EXIT_INFO) ? "IA32_VMX_MISC[29] = 1: exit information is writable" : 0;
}
static const char *need_rw_exit_info(void)
{
	return (vmx_caps.misc & MISC_VMWRITE_EXIT_INFO) ? 0 : "IA32_VMX_MISC[29] = 0";
}
static const char *need_invept(void)
{
	return (vmx_caps.ept_vpid & CAP_INVEPT) ? 0 : "no INVEPT (IA32_VMX_EPT_VPID_CAP[20] = 0)";
}
static const char *need_invept_all(void)
{
	return (vmx_caps.ept_vpid & CAP_INVEPT_ALL) ? 0 : "no all-context INVEPT";
}
static const char *need_invept_single(void)
{
	return (vmx_caps.ept_vpid & CAP_INVEPT_SINGLE) ? 0 : "no single-context INVEPT";
}
static const char *need_no_invept(void)
{
	return (vmx_caps.ept_vpid & CAP_INVEPT) ? "the processor has INVEPT" : 0;
}
static const char *need_invvpid(void)
{
	return (vmx_caps.ept_vpid & CAP_INVVPID) ? 0 : "no INVVPID (IA32_VMX_EPT_VPID_CAP[32] = 0)";
}
static const char *need_no_invvpid(void)
{
	return (vmx_caps.ept_vpid & CAP_INVVPID) ? "the processor has INVVPID" : 0;
}
static const char *need_invvpid_addr(void)
{
	return (vmx_caps.ept_vpid & CAP_INVVPID_ADDR) ? 0 : "no individual-address INVVPID";
}
static const char *need_invvpid_single(void)
{
	return (vmx_caps.ept_vpid & CAP_INVVPID_SINGLE) ? 0 : "no single-context INVVPID";
}
static const char *need_invvpid_all(void)
{
	return (vmx_caps.ept_vpid & CAP_INVVPID_ALL) ? 0 : "no all-context INVVPID";
}
static const char *need_fc_unlocked(void)
{
	return (vmx_caps.fc_boot & FC_LOCK) ? "the firmware locked IA32_FEATURE_CONTROL" : 0;
}

#define UD 6
#define GP 13
#define EPTP_WB4 (6u | (3u << 3))   /* 28.2.6: memory type WB, walk length 4 - 1 */

/* Rows before IA32_FEATURE_CONTROL is locked: CR4.VMXE and the lock bit. */
static const struct insn_row before_lock[] = {
	{ "VMXON with CR4.VMXE = 0: #UD", "30.3 VMXON, 23.7", ST_OFF, no_vmxe, OP_VMXON, P_VMXON,
	  .vector = UD, .after = still_outside },
	{ "VMPTRST outside VMX operation: #UD", "30.3 VMPTRST", ST_OFF, 0, OP_VMPTRST, .vector = UD },
	{ "VMCLEAR outside VMX operation: #UD", "30.3 VMCLEAR", ST_OFF, 0, OP_VMCLEAR, P_VMCS, .vector = UD },
	{ "VMPTRLD outside VMX operation: #UD", "30.3 VMPTRLD", ST_OFF, 0, OP_VMPTRLD, P_VMCS, .vector = UD },
	{ "VMREAD outside VMX operation: #UD", "30.3 VMREAD", ST_OFF, 0, OP_VMREAD, .enc = VMCS_GUEST_RIP,
	  .vector = UD },
	{ "VMWRITE outside VMX operation: #UD", "30.3 VMWRITE", ST_OFF, 0, OP_VMWRITE, .enc = VMCS_GUEST_RIP,
	  .vector = UD },
	{ "VMLAUNCH outside VMX operation: #UD", "30.3 VMLAUNCH", ST_OFF, 0, OP_VMLAUNCH, .vector = UD },
	{ "VMRESUME outside VMX operation: #UD", "30.3 VMRESUME", ST_OFF, 0, OP_VMRESUME, .vector = UD },
	{ "VMCALL outside VMX operation: #UD", "30.3 VMCALL", ST_OFF, 0, OP_VMCALL, .vector = UD },
	{ "VMXOFF outside VMX operation: #UD", "30.3 VMXOFF", ST_OFF, 0, OP_VMXOFF, .vector = UD },
	{ "INVEPT outside VMX operation: #UD", "30.3 INVEPT", ST_OFF, 0, OP_INVEPT, .enc = 2, .vector = UD },
	{ "INVVPID outside VMX operation: #UD", "30.3 INVVPID", ST_OFF, 0, OP_INVVPID, .enc = 2, .vector = UD },
	{ "VMXON with IA32_FEATURE_CONTROL unlocked: #GP(0)", "30.3 VMXON, 23.7", ST_OFF, 0, OP_VMXON,
	  P_VMXON, .vector = GP, .after = still_outside, .skip = need_fc_unlocked },
};

static const struct insn_row rows[] = {
	/* Outside VMX operation, CR4.VMXE = 1, IA32_FEATURE_CONTROL locked with
	 * VMX outside SMX. */
	{ "VMXON with CR0.NE = 0: #GP(0)", "30.3 VMXON, 23.8", ST_OFF, no_ne, OP_VMXON, P_VMXON,
	  .vector = GP, .after = still_outside, .skip = need_ne_fixed },
	{ "VMXON with CR0.PG = 0: #GP(0)", "30.3 VMXON, 23.8", ST_OFF, no_pg, OP_VMXON, P_VMXON,
	  .vector = GP, .after = still_outside, .skip = need_pg_fixed },
	{ "VMXON at CPL 3: #GP(0)", "30.3 VMXON", ST_OFF, 0, OP_VMXON_CPL3, P_VMXON, .vector = GP,
	  .after = still_outside },
	{ "VMXON in virtual-8086 mode: #UD", "30.3 VMXON", ST_OFF, 0, OP_V86_VMXON, .vector = UD,
	  .after = still_outside },
	{ "VMXON pointer not 4 KB aligned: VMfailInvalid", "30.3 VMXON", ST_OFF, 0, OP_VMXON, P_UNALIGNED,
	  .vector = NO_FAULT, .flags = VM_FAIL_INVALID, .after = still_outside },
	{ "VMXON pointer beyond MAXPHYADDR: VMfailInvalid", "30.3 VMXON", ST_OFF, 0, OP_VMXON, P_WIDE,
	  .vector = NO_FAULT, .flags = VM_FAIL_INVALID, .after = still_outside, .skip = need_wide_ok },
	{ "VMXON region with another revision identifier: VMfailInvalid", "30.3 VMXON", ST_OFF, 0, OP_VMXON,
	  P_BAD_REV, .vector = NO_FAULT, .flags = VM_FAIL_INVALID, .after = still_outside },
	{ "VMXON region with revision bit 31 set: VMfailInvalid", "30.3 VMXON", ST_OFF, 0, OP_VMXON,
	  P_REV31, .vector = NO_FAULT, .flags = VM_FAIL_INVALID, .after = still_outside },
	{ "VMXON: VMsucceed, no current VMCS (VMPTRST stores all ones)", "30.3 VMXON, VMPTRST", ST_OFF, 0,
	  OP_VMXON, P_VMXON, .vector = NO_FAULT, .flags = VM_SUCCEED, .after = no_current_vmcs },

	/* VMX root operation, no current VMCS: VMfail is VMfailInvalid (30.2). */
	{ "VMXON in VMX root operation without a current VMCS: VMfailInvalid", "30.3 VMXON, 30.2",
	  ST_ROOT, 0, OP_VMXON, P_VMXON, .vector = NO_FAULT, .flags = VM_FAIL_INVALID, .after = inside },
	{ "VMREAD without a current VMCS: VMfailInvalid", "30.3 VMREAD", ST_ROOT, 0, OP_VMREAD,
	  .enc = VMCS_GUEST_RIP, .vector = NO_FAULT, .flags = VM_FAIL_INVALID },
	{ "VMWRITE without a current VMCS: VMfailInvalid", "30.3 VMWRITE", ST_ROOT, 0, OP_VMWRITE,
	  .enc = VMCS_GUEST_RIP, .vector = NO_FAULT, .flags = VM_FAIL_INVALID },
	{ "VMLAUNCH without a current VMCS: VMfailInvalid", "30.3 VMLAUNCH", ST_ROOT, 0, OP_VMLAUNCH,
	  .vector = NO_FAULT, .flags = VM_FAIL_INVALID },
	{ "VMRESUME without a current VMCS: VMfailInvalid", "30.3 VMRESUME", ST_ROOT, 0, OP_VMRESUME,
	  .vector = NO_FAULT, .flags = VM_FAIL_INVALID },
	{ "VMCALL in VMX root operation without a current VMCS: VMfailInvalid", "30.3 VMCALL", ST_ROOT, 0,
	  OP_VMCALL, .vector = NO_FAULT, .flags = VM_FAIL_INVALID },
	{ "VMCLEAR of an unaligned pointer without a current VMCS: VMfailInvalid", "30.3 VMCLEAR", ST_ROOT,
	  0, OP_VMCLEAR, P_UNALIGNED, .vector = NO_FAULT, .flags = VM_FAIL_INVALID },
	{ "VMPTRLD of a wrong revision without a current VMCS: VMfailInvalid", "30.3 VMPTRLD", ST_ROOT, 0,
	  OP_VMPTRLD, P_BAD_REV, .vector = NO_FAULT, .flags = VM_FAIL_INVALID },
	{ "VMPTRST at CPL 3 in VMX root operation: #GP(0)", "30.3 VMPTRST", ST_ROOT, 0, OP_VMPTRST_CPL3,
	  .vector = GP },
	{ "VMXON at CPL 3 in VMX root operation: #GP(0)", "30.3 VMXON", ST_ROOT, 0, OP_VMXON_CPL3, P_VMXON,
	  .vector = GP },
	{ "VMPTRST in virtual-8086 mode, VMX root: #UD", "30.3 VMPTRST", ST_ROOT, 0, OP_V86_VMPTRST,
	  .vector = UD },
	{ "VMCALL in virtual-8086 mode, VMX root: #UD", "30.3 VMCALL", ST_ROOT, 0, OP_V86_VMCALL,
	  .vector = UD },
	{ "MOV to CR4 clearing VMXE in VMX operation: #GP(0)", "23.8", ST_ROOT, 0, OP_CLEAR_CR4_VMXE,
	  .vector = GP },
	{ "MOV to CR0 clearing NE in VMX operation: #GP(0)", "23.8", ST_ROOT, 0, OP_CLEAR_CR0_NE,
	  .vector = GP, .skip = need_ne_fixed },
	{ "MOV to CR0 clearing PG in VMX operation: #GP(0)", "23.8", ST_ROOT, 0, OP_CLEAR_CR0_PG,
	  .vector = GP, .skip = need_pg_fixed },
	{ "VMPTRLD: VMsucceed, VMPTRST stores its pointer", "30.3 VMPTRLD, VMPTRST", ST_ROOT, 0,
	  OP_VMPTRLD, P_VMCS2, .vector = NO_FAULT, .flags = VM_SUCCEED, .after = current_is_region2 },

	/* Region 1 current and clear: VMfail is VMfailValid(n) (30.2, 30.4). */
	{ "VMPTRST stores the current-VMCS pointer", "30.3 VMPTRST", ST_CURRENT, 0, OP_VMPTRST,
	  .vector = NO_FAULT, .flags = VM_SUCCEED, .after = stored_region1 },
	{ "VMXON in VMX root operation: VMfailValid(15)", "30.3 VMXON, 30.4", ST_CURRENT, 0, OP_VMXON,
	  P_VMXON, .vector = NO_FAULT, .flags = VM_FAIL_VALID, .error = VMERR_VMXON_IN_ROOT },
	{ "VMCALL in VMX root operation: VMfailValid(1)", "30.3 VMCALL, 30.4", ST_CURRENT, 0, OP_VMCALL,
	  .vector = NO_FAULT, .flags = VM_FAIL_VALID, .error = VMERR_VMCALL_ROOT },
	{ "VMCLEAR of an unaligned pointer: VMfailValid(2)", "30.3 VMCLEAR", ST_CURRENT, 0, OP_VMCLEAR,
	  P_UNALIGNED, .vector = NO_FAULT, .flags = VM_FAIL_VALID, .error = VMERR_VMCLEAR_BAD_ADDR },
	{ "VMCLEAR beyond MAXPHYADDR: VMfailValid(2)", "30.3 VMCLEAR", ST_CURRENT, 0, OP_VMCLEAR, P_WIDE,
	  .vector = NO_FAULT, .flags = VM_FAIL_VALID, .error = VMERR_VMCLEAR_BAD_ADDR, .skip = need_wide_ok },
	{ "VMCLEAR of the VMXON pointer: VMfailValid(3)", "30.3 VMCLEAR", ST_CURRENT, 0, OP_VMCLEAR,
	  P_VMXON, .vector = NO_FAULT, .flags = VM_FAIL_VALID, .error = VMERR_VMCLEAR_VMXON_PTR },
	{ "VMPTRLD of an unaligned pointer: VMfailValid(9)", "30.3 VMPTRLD", ST_CURRENT, 0, OP_VMPTRLD,
	  P_UNALIGNED, .vector = NO_FAULT, .flags = VM_FAIL_VALID, .error = VMERR_VMPTRLD_BAD_ADDR },
	{ "VMPTRLD beyond MAXPHYADDR: VMfailValid(9)", "30.3 VMPTRLD", ST_CURRENT, 0, OP_VMPTRLD, P_WIDE,
	  .vector = NO_FAULT, .flags = VM_FAIL_VALID, .error = VMERR_VMPTRLD_BAD_ADDR, .skip = need_wide_ok },
	{ "VMPTRLD of the VMXON pointer: VMfailValid(10)", "30.3 VMPTRLD", ST_CURRENT, 0, OP_VMPTRLD,
	  P_VMXON, .vector = NO_FAULT, .flags = VM_FAIL_VALID, .error = VMERR_VMPTRLD_VMXON_PTR },
	{ "VMPTRLD of another revision identifier: VMfailValid(11)", "30.3 VMPTRLD", ST_CURRENT, 0,
	  OP_VMPTRLD, P_BAD_REV, .vector = NO_FAULT, .flags = VM_FAIL_VALID, .error = VMERR_VMPTRLD_BAD_REV },
	{ "VMPTRLD with revision bit 31 and no VMCS shadowing: VMfailValid(11)", "30.3 VMPTRLD", ST_CURRENT,
	  0, OP_VMPTRLD, P_REV31, .vector = NO_FAULT, .flags = VM_FAIL_VALID, .error = VMERR_VMPTRLD_BAD_REV,
	  .skip = need_no_shadowing },
	{ "VMREAD of a 16-bit field with the high access type: VMfailValid(12)", "30.3 VMREAD, 24.11.2",
	  ST_CURRENT, 0, OP_VMREAD, .enc = VMCS_HIGH(VMCS_GUEST_CS_SEL), .vector = NO_FAULT,
	  .flags = VM_FAIL_VALID, .error = VMERR_UNSUPPORTED_FIELD },
	{ "VMREAD of a natural-width field with the high access type: VMfailValid(12)", "30.3 VMREAD, 24.11.2",
	  ST_CURRENT, 0, OP_VMREAD, .enc = VMCS_HIGH(VMCS_GUEST_RIP), .vector = NO_FAULT,
	  .flags = VM_FAIL_VALID, .error = VMERR_UNSUPPORTED_FIELD },
	{ "VMREAD of encoding 80000800H (bits 31:15 set): VMfailValid(12)", "30.3 VMREAD, 24.11.2",
	  ST_CURRENT, 0, OP_VMREAD, .enc = 0x80000800u, .vector = NO_FAULT, .flags = VM_FAIL_VALID,
	  .error = VMERR_UNSUPPORTED_FIELD },
	{ "VMWRITE of an unsupported field: VMfailValid(12)", "30.3 VMWRITE", ST_CURRENT, 0, OP_VMWRITE,
	  .enc = VMCS_HIGH(VMCS_PIN_CTLS), .vector = NO_FAULT, .flags = VM_FAIL_VALID,
	  .error = VMERR_UNSUPPORTED_FIELD },
	{ "VMWRITE of the read-only VM-instruction error field: VMfailValid(13)", "30.3 VMWRITE",
	  ST_CURRENT, 0, OP_VMWRITE, .enc = VMCS_INSN_ERROR, .val = 7, .vector = NO_FAULT,
	  .flags = VM_FAIL_VALID, .error = VMERR_READ_ONLY_FIELD, .skip = need_ro_exit_info },
	{ "VMWRITE of the read-only exit reason: VMfailValid(13)", "30.3 VMWRITE", ST_CURRENT, 0, OP_VMWRITE,
	  .enc = VMCS_EXIT_REASON, .val = 0x55, .vector = NO_FAULT, .flags = VM_FAIL_VALID,
	  .error = VMERR_READ_ONLY_FIELD, .skip = need_ro_exit_info },
	{ "VMWRITE of the exit reason with IA32_VMX_MISC[29]: VMsucceed", "30.3 VMWRITE, A.6", ST_CURRENT, 0,
	  OP_VMWRITE, .enc = VMCS_EXIT_REASON, .val = 0x55, .vector = NO_FAULT, .flags = VM_SUCCEED,
	  .after = exit_reason_written, .skip = need_rw_exit_info },
	{ "VMREAD of a 32-bit field returns what VMWRITE wrote", "30.3 VMREAD", ST_CURRENT, exc_bitmap,
	  OP_VMREAD, .enc = VMCS_EXCEPTION_BITMAP, .vector = NO_FAULT, .flags = VM_SUCCEED,
	  .want_val = 0x12345678u, .check_val = 1 },
	{ "VMWRITE of a 16-bit field keeps bits 15:0, VMREAD clears 31:16", "30.3 VMWRITE, VMREAD",
	  ST_CURRENT, cs_sel_wide, OP_VMREAD, .enc = VMCS_GUEST_CS_SEL, .vector = NO_FAULT,
	  .flags = VM_SUCCEED, .want_val = 0x1234, .check_val = 1 },
	{ "VMWRITE of a 64-bit field, full encoding, 32-bit mode: bits 63:32 cleared", "24.11.2",
	  ST_CURRENT, tsc_offset_high, OP_VMWRITE, .enc = VMCS_TSC_OFFSET, .val = 0x33334444u,
	  .vector = NO_FAULT, .flags = VM_SUCCEED, .after = high_cleared },
	{ "VMWRITE of a 64-bit field, high encoding: bits 63:32 only", "24.11.2", ST_CURRENT, tsc_offset_low,
	  OP_VMWRITE, .enc = VMCS_HIGH(VMCS_TSC_OFFSET), .val = 0x55556666u, .vector = NO_FAULT,
	  .flags = VM_SUCCEED, .after = low_kept },
	{ "VMREAD high encoding of a 64-bit field: bits 63:32", "24.11.2", ST_CURRENT, tsc_offset_high,
	  OP_VMREAD, .enc = VMCS_HIGH(VMCS_TSC_OFFSET), .vector = NO_FAULT, .flags = VM_SUCCEED,
	  .want_val = 0x11112222u, .check_val = 1 },
	{ "VMRESUME of a clear VMCS: VMfailValid(5)", "30.3 VMRESUME", ST_CURRENT, 0, OP_VMRESUME,
	  .vector = NO_FAULT, .flags = VM_FAIL_VALID, .error = VMERR_VMRESUME_NOT_LAUNCHED },
	{ "VMRESUME right after MOV SS: VMfailValid(26) before the launch state", "30.3 VMRESUME",
	  ST_CURRENT, 0, OP_MOVSS_VMRESUME, .vector = NO_FAULT, .flags = VM_FAIL_VALID,
	  .error = VMERR_MOV_SS_BLOCKING },
	{ "VMLAUNCH right after MOV SS: VMfailValid(26)", "30.3 VMLAUNCH", ST_CURRENT, 0, OP_MOVSS_VMLAUNCH,
	  .vector = NO_FAULT, .flags = VM_FAIL_VALID, .error = VMERR_MOV_SS_BLOCKING },
	{ "INVEPT type 0: VMfailValid(28)", "30.3 INVEPT", ST_CURRENT, 0, OP_INVEPT, .enc = 0,
	  .vector = NO_FAULT, .flags = VM_FAIL_VALID, .error = VMERR_INVEPT_INVVPID, .skip = need_invept },
	{ "INVEPT type 3: VMfailValid(28)", "30.3 INVEPT", ST_CURRENT, 0, OP_INVEPT, .enc = 3,
	  .vector = NO_FAULT, .flags = VM_FAIL_VALID, .error = VMERR_INVEPT_INVVPID, .skip = need_invept },
	{ "INVEPT all-context: VMsucceed", "30.3 INVEPT", ST_CURRENT, 0, OP_INVEPT, .enc = 2,
	  .vector = NO_FAULT, .flags = VM_SUCCEED, .skip = need_invept_all },
	{ "INVEPT single-context, a valid EPTP: VMsucceed", "30.3 INVEPT", ST_CURRENT, 0, OP_INVEPT, .enc = 1,
	  .desc0 = 0x10000u | EPTP_WB4, .vector = NO_FAULT, .flags = VM_SUCCEED, .skip = need_invept_single },
	{ "INVEPT single-context, EPTP memory type 2: VMfailValid(28)", "30.3 INVEPT, 26.2.1.1", ST_CURRENT,
	  0, OP_INVEPT, .enc = 1, .desc0 = 0x10000u | 2u | (3u << 3), .vector = NO_FAULT,
	  .flags = VM_FAIL_VALID, .error = VMERR_INVEPT_INVVPID, .skip = need_invept_single },
	{ "INVEPT on a processor without it: #UD", "30.3 INVEPT", ST_CURRENT, 0, OP_INVEPT, .enc = 2,
	  .vector = UD, .skip = need_no_invept },
	{ "INVVPID on a processor without it: #UD", "30.3 INVVPID", ST_CURRENT, 0, OP_INVVPID, .enc = 2,
	  .vector = UD, .skip = need_no_invvpid },
	{ "INVVPID type 4: VMfailValid(28)", "30.3 INVVPID", ST_CURRENT, 0, OP_INVVPID, .enc = 4,
	  .desc0 = 1, .vector = NO_FAULT, .flags = VM_FAIL_VALID, .error = VMERR_INVEPT_INVVPID,
	  .skip = need_invvpid },
	{ "INVVPID descriptor bits 63:16 set: VMfailValid(28)", "30.3 INVVPID", ST_CURRENT, 0, OP_INVVPID,
	  .enc = 2, .desc0 = 0x10000u, .vector = NO_FAULT, .flags = VM_FAIL_VALID,
	  .error = VMERR_INVEPT_INVVPID, .skip = need_invvpid_all },
	{ "INVVPID individual-address with VPID 0: VMfailValid(28)", "30.3 INVVPID", ST_CURRENT, 0,
	  OP_INVVPID, .enc = 0, .desc0 = 0, .desc1 = 0x1000, .vector = NO_FAULT, .flags = VM_FAIL_VALID,
	  .error = VMERR_INVEPT_INVVPID, .skip = need_invvpid_addr },
	{ "INVVPID individual-address, non-canonical address: VMfailValid(28)", "30.3 INVVPID", ST_CURRENT, 0,
	  OP_INVVPID, .enc = 0, .desc0 = 1, .desc1 = 0x8000000000000000ull, .vector = NO_FAULT,
	  .flags = VM_FAIL_VALID, .error = VMERR_INVEPT_INVVPID, .skip = need_invvpid_addr },
	{ "INVVPID single-context with VPID 0: VMfailValid(28)", "30.3 INVVPID", ST_CURRENT, 0, OP_INVVPID,
	  .enc = 1, .desc0 = 0, .vector = NO_FAULT, .flags = VM_FAIL_VALID, .error = VMERR_INVEPT_INVVPID,
	  .skip = need_invvpid_single },
	{ "INVVPID single-context, VPID 1: VMsucceed", "30.3 INVVPID", ST_CURRENT, 0, OP_INVVPID, .enc = 1,
	  .desc0 = 1, .vector = NO_FAULT, .flags = VM_SUCCEED, .skip = need_invvpid_single },
	{ "INVVPID all-context: VMsucceed", "30.3 INVVPID", ST_CURRENT, 0, OP_INVVPID, .enc = 2,
	  .vector = NO_FAULT, .flags = VM_SUCCEED, .skip = need_invvpid_all },
	{ "VMCLEAR of the current VMCS: VMsucceed, no current VMCS", "30.3 VMCLEAR", ST_CURRENT, 0,
	  OP_VMCLEAR, P_VMCS, .vector = NO_FAULT, .flags = VM_SUCCEED, .after = no_current_vmcs },
	{ "VMXOFF: VMsucceed, outside VMX operation, CR4.VMXE clearable", "30.3 VMXOFF, 23.7", ST_CURRENT, 0,
	  OP_VMXOFF, .vector = NO_FAULT, .flags = VM_SUCCEED, .after = still_outside },
};

/* 30.2: a VMfailValid sets the error field; a later VMsucceed keeps it. */
static void set_error_12(void)
{
	uint32_t v;
	(void)vmread_f(VMCS_HIGH(VMCS_GUEST_CS_SEL), &v);
}
static const struct insn_row error_rows[] = {
	{ "VMsucceed leaves the VM-instruction error field", "30.2", ST_CURRENT, set_error_12, OP_VMREAD,
	  .enc = VMCS_GUEST_RIP, .vector = NO_FAULT, .flags = VM_SUCCEED, .after = error_kept },
	{ "VMXOFF, then CR4.VMXE := 0 is allowed", "23.7", ST_CURRENT, 0, OP_VMXOFF, .vector = NO_FAULT,
	  .flags = VM_SUCCEED, .after = cr4_vmxe_clearable },
};

static void wrmsr_fc(void *arg)
{
	__asm__ volatile(MARK "wrmsr" :: "c"(MSR_FEATURE_CONTROL), "a"(*(uint32_t *)arg), "d"(0) : "memory");
}

void guest_main(void)
{
	vmx_host_prepare();
	for (unsigned i = 0; i < sizeof(before_lock) / sizeof(before_lock[0]); i++) {
		/* The VMXE rows first; the rest with CR4.VMXE = 1. */
		if (i == 1)
			write_cr4(read_cr4() | CR4_VMXE);
		run_row(&before_lock[i]);
	}
	/* 23.7: the lock bit with "VMX outside SMX" enables VMXON; once locked,
	 * WRMSR to the MSR #GPs until a power-up reset. */
	uint32_t fc = FC_LOCK | FC_VMX_OUTSIDE_SMX;
	if (!(vmx_caps.fc_boot & FC_LOCK))
		expect_no_fault("WRMSR IA32_FEATURE_CONTROL := lock | VMX outside SMX [SDM 23.7]", wrmsr_fc, &fc);
	else
		skip("WRMSR IA32_FEATURE_CONTROL := lock | VMX outside SMX [SDM 23.7]",
		     "the firmware locked it (0x%x)", vmx_caps.fc_boot);
	check("IA32_FEATURE_CONTROL reads back locked with VMX outside SMX [SDM 23.7]",
	      (uint32_t)rdmsr64(MSR_FEATURE_CONTROL) & (FC_LOCK | FC_VMX_OUTSIDE_SMX), fc);
	fc = FC_LOCK;
	expect_fault("WRMSR to the locked IA32_FEATURE_CONTROL: #GP(0) [SDM 23.7]", wrmsr_fc, &fc, GP, 0);
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		run_row(&rows[i]);
	for (unsigned i = 0; i < sizeof(error_rows) / sizeof(error_rows[0]); i++)
		run_row(&error_rows[i]);
	go(ST_OFF);
}
