/* Check suite for the VMX instructions outside VM entry and the VMCS storage
 * (vmx/instructions.c, vmx/vmcs.c): one instruction executed on a CPU with the
 * VMX model installed, as table rows {name, world, set-up, bytes, outcome},
 * the outcome one of #UD, #GP(0), #PF, VMsucceed, VMfailInvalid or
 * VMfailValid(n) with RFLAGS as SDM Vol.3 30.2 sets them and, for
 * VMfailValid, the VM-instruction error field read back with VMREAD; and VMX
 * operation's CR0/CR4 rules on MOV CR, LMSW and CLTS. Then cases for the
 * VMCS's cached copy, widths and the launch state, and INIT held off in VMX
 * root operation.
 *
 * No CPU model advertises VMX yet (VM entry is not written: machine/
 * hypervisor.c has no VMX row), so each world installs the model itself with
 * vmx_create(), on a built-in model or on a copy with one capability changed.
 *
 * Physical layout (machine_fixture.h's 4 MiB, GDT and 64-bit page tables):
 *   13000H 32-bit page directory (4 MiB pages) for the 32-bit worlds
 *   100000H VMXON region   101000H VMCS A   102000H VMCS B
 *   200000H the m64 operand (a VMX pointer)   200100H INVEPT/INVVPID descriptor
 *   200200H VMREAD's memory destination / VMWRITE's memory source
 */
#include <check.h>
#include <string.h>

#include "emu/event_step.h"
#include "emu/flags.h"
#include "emu/hv.h"
#include "machine_fixture.h"
#include "mmu/x86_vmx.h"
#include "suite_runner.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_fields.h"
#include "vmx/vmx.h"

#define PD32      0x13000u
#define VMXON_PA  0x100000u
#define VMCS_A    0x101000u
#define VMCS_B    0x102000u
#define PTR       0x200000u
#define DESC      0x200100u
#define DATA      0x200200u

struct model_copy {
	struct cpu_model model;
	struct model_msr caps[32];
};

struct world {
	struct test_machine m;
	struct vmx *vmx;
	struct model_copy copy;
	uint32_t revision;
};

/* ---- building worlds ---- */

/* A copy of the model named name whose capability MSR index reads value (0:
 * the MSR is left out, as a part without it). */
static const struct cpu_model *model_with_cap(struct model_copy *mc, const char *name, uint32_t index,
					      uint64_t value)
{
	const struct cpu_model *base = model_named(name);
	mc->model = *base;
	unsigned n = 0;
	for (unsigned i = 0; i < base->vmx_cap_count; i++) {
		if (base->vmx_caps[i].index == index && !value)
			continue;
		ck_assert_uint_lt(n, sizeof(mc->caps) / sizeof(mc->caps[0]));
		mc->caps[n] = base->vmx_caps[i];
		if (mc->caps[n].index == index)
			mc->caps[n].value = value;
		n++;
	}
	mc->model.vmx_caps = mc->caps;
	mc->model.vmx_cap_count = n;
	return &mc->model;
}

static uint64_t model_cap(const struct cpu_model *m, uint32_t index)
{
	uint64_t v = 0;
	ck_assert(cpu_model_vmx_cap(m, index, &v));
	return v;
}

/* The VMX model on m's CPU, IA32_FEATURE_CONTROL locked with VMX outside SMX
 * (the firmware's part), the revision identifier in the three regions. */
static void install(struct world *w)
{
	struct cpu *c = &w->m.cpu;
	w->vmx = vmx_create(c, 0);
	ck_assert_ptr_nonnull(w->vmx);
	w->revision = (uint32_t)(model_cap(c->model, MSR_VMX_BASIC) & VMX_BASIC_REVISION_MASK);
	physmem_write(&w->m.pm, VMXON_PA, 4, w->revision);
	physmem_write(&w->m.pm, VMCS_A, 4, w->revision);
	physmem_write(&w->m.pm, VMCS_B, 4, w->revision);
}

static void lock_feature_control(struct world *w)
{
	ck_assert_int_eq(wrmsr(&w->m, MSR_FEATURE_CONTROL, FEATURE_CONTROL_LOCK | FEATURE_CONTROL_VMX_NO_SMX),
			 ST_OK);
}

/* 64-bit mode, CPL 0, CR0.PE|NE|PG, CR4.PAE|VMXE: VMXON may run. */
static void world64(struct world *w, const struct cpu_model *model)
{
	memset(&w->m, 0, sizeof(w->m));           /* w->copy may hold the model */
	machine_init_model(&w->m, model);
	install(w);
	activate(&w->m);
	to64(&w->m);
	ck_assert_int_eq(mov_cr(&w->m, 4, CR4_PAE | CR4_VMXE), ST_OK);
	ck_assert_int_eq(mov_cr(&w->m, 0, CR0_PE | CR0_ET | CR0_NE | CR0_PG), ST_OK);
	lock_feature_control(w);
}

/* 32-bit protected mode, CPL 0, CR4.VMXE; with paging: CR0.NE|PG over 4 MiB
 * identity pages (CR4.PSE), without: CR0.PG = 0, which VMX operation does not
 * allow (SDM Vol.3 23.8). */
static void world32(struct world *w, bool paging)
{
	memset(w, 0, sizeof(*w));
	machine_init(&w->m, "skylake-lite");
	install(w);
	for (unsigned i = 0; i < 1024; i++)
		physmem_write(&w->m.pm, PD32 + i * 4, 4, (i << 22) | 0x83);
	ck_assert_int_eq(mov_cr(&w->m, 4, CR4_PSE | CR4_VMXE), ST_OK);
	ck_assert_int_eq(mov_cr(&w->m, 3, PD32), ST_OK);
	ck_assert_int_eq(mov_cr(&w->m, 0, CR0_PE | CR0_ET | CR0_NE | (paging ? CR0_PG : 0)), ST_OK);
	lock_feature_control(w);
}

static void world_free(struct world *w)
{
	vmx_destroy(w->vmx);
	machine_free(&w->m);
}

/* The m64 operand at PTR holds pa; RAX points at it. */
static void pointer_operand(struct world *w, uint64_t pa)
{
	physmem_write(&w->m.pm, PTR, 8, pa);
	w->m.cpu.regs[R_AX] = PTR;
}

static uint64_t arith_flags(struct world *w)
{
	return cpu_get_flags(&w->m.cpu) & FLAGS_ARITH;
}

/* Run one VMX instruction that must VMsucceed. */
static void must_succeed(struct world *w, const uint8_t *bytes, unsigned len, const char *what)
{
	ck_assert_msg(exec(&w->m, bytes, len) == ST_OK, "%s: faulted (vector %u)", what, w->m.cpu.event.vector);
	ck_assert_msg(arith_flags(w) == 0, "%s: not VMsucceed (flags %#llx)", what,
		      (unsigned long long)arith_flags(w));
}
#define SUCCEED(w, what, ...) must_succeed((w), (const uint8_t[]){ __VA_ARGS__ }, \
					   sizeof((const uint8_t[]){ __VA_ARGS__ }), (what))

/* The instructions by their bytes, memory operands at [rax] (ModRM 30H: /6,
 * 38H: /7), VMREAD/VMWRITE with the encoding in RCX and the value in RBX. */
#define VMXON_RAX    0xf3, 0x0f, 0xc7, 0x30
#define VMCLEAR_RAX  0x66, 0x0f, 0xc7, 0x30
#define VMPTRLD_RAX  0x0f, 0xc7, 0x30
#define VMPTRST_RAX  0x0f, 0xc7, 0x38
#define VMREAD_RBX_RCX  0x0f, 0x78, 0xcb    /* vmread rbx, rcx */
#define VMWRITE_RCX_RBX 0x0f, 0x79, 0xcb    /* vmwrite rcx, rbx */
#define VMREAD_MEM_RCX  0x0f, 0x78, 0x08    /* vmread [rax], rcx */
#define VMWRITE_RCX_MEM 0x0f, 0x79, 0x08    /* vmwrite rcx, [rax] */
#define VMXOFF       0x0f, 0x01, 0xc4
#define VMLAUNCH     0x0f, 0x01, 0xc2
#define VMRESUME     0x0f, 0x01, 0xc3
#define VMCALL       0x0f, 0x01, 0xc1
#define VMFUNC       0x0f, 0x01, 0xd4
#define INVEPT_RCX_RAX  0x66, 0x0f, 0x38, 0x80, 0x08
#define INVVPID_RCX_RAX 0x66, 0x0f, 0x38, 0x81, 0x08

static void do_vmxon(struct world *w)
{
	pointer_operand(w, VMXON_PA);
	SUCCEED(w, "vmxon", VMXON_RAX);
}

static void do_vmclear(struct world *w, uint64_t pa)
{
	pointer_operand(w, pa);
	SUCCEED(w, "vmclear", VMCLEAR_RAX);
}

static void do_vmptrld(struct world *w, uint64_t pa)
{
	pointer_operand(w, pa);
	SUCCEED(w, "vmptrld", VMPTRLD_RAX);
}

static uint64_t do_vmread(struct world *w, uint64_t enc)
{
	w->m.cpu.regs[R_CX] = enc;
	w->m.cpu.regs[R_BX] = 0xdeadbeefdeadbeefull;
	SUCCEED(w, "vmread", VMREAD_RBX_RCX);
	return w->m.cpu.regs[R_BX];
}

static void do_vmwrite(struct world *w, uint64_t enc, uint64_t value)
{
	w->m.cpu.regs[R_CX] = enc;
	w->m.cpu.regs[R_BX] = value;
	SUCCEED(w, "vmwrite", VMWRITE_RCX_RBX);
}

/* VMCS A current and clear. */
static void make_current(struct world *w)
{
	do_vmclear(w, VMCS_A);
	do_vmptrld(w, VMCS_A);
}

/* Where hvemu's region format keeps a field (vmx/vmcs.h). */
static uint64_t field_offset(uint32_t enc)
{
	size_t n;
	const struct vmcs_field *t = vmcs_field_table(&n);
	const struct vmcs_field *f = vmcs_field_lookup(enc, NULL);
	ck_assert_ptr_nonnull(f);
	return vmcs_row_offset((unsigned)(f - t));
}

/* ---- the rows ---- */

enum base { OFF, ROOT, CURRENT, ROOT32, OFF32, OFF32_NOPG };
enum outcome { UD, GP, PF, SUCCEED, FAIL_INVALID, FAIL_VALID, RAN /* ST_OK, RFLAGS untouched */ };

struct row {
	const char *name;
	const char *model;         /* NULL: skylake-lite */
	enum base base;            /* OFF: 64-bit, VMXON may run; ROOT: after VMXON; CURRENT:
				      ROOT with VMCS A current; *32: 32-bit protected mode */
	void (*setup)(struct world *w);   /* after the base (may be NULL) */
	uint8_t bytes[15];
	uint8_t len;
	enum outcome outcome;
	uint8_t error;             /* FAIL_VALID: the VM-instruction error number */
	void (*check)(struct world *w);   /* more to assert afterwards (may be NULL) */
};
#define I(...) { __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })

/* set-ups */
static void ptr_vmxon(struct world *w) { pointer_operand(w, VMXON_PA); }
static void ptr_a(struct world *w) { pointer_operand(w, VMCS_A); }
static void ptr_b(struct world *w) { pointer_operand(w, VMCS_B); }
static void ptr_unaligned(struct world *w) { pointer_operand(w, VMCS_B + 0x800); }
static void ptr_wide(struct world *w) { pointer_operand(w, 1ull << 39); }   /* skylake-lite: 39 bits */
static void ptr_core2_wide(struct world *w) { pointer_operand(w, 1ull << 36); }
static void cpl3(struct world *w) { w->m.cpu.cpl = 3; }
static void cpl3_ptr_vmxon(struct world *w) { ptr_vmxon(w); cpl3(w); }
static void cpl3_ptr_a(struct world *w) { ptr_a(w); cpl3(w); }
static void compat(struct world *w) { to_compat(&w->m); }
static void compat_ptr_vmxon(struct world *w) { ptr_vmxon(w); compat(w); }
static void cr4_vmxe_clear(struct world *w)
{
	ptr_vmxon(w);
	ck_assert_int_eq(mov_cr(&w->m, 4, CR4_PAE), ST_OK);
}
static void cr0_ne_clear(struct world *w)
{
	ptr_vmxon(w);
	ck_assert_int_eq(mov_cr(&w->m, 0, CR0_PE | CR0_ET | CR0_PG), ST_OK);
}
static void cr4_pge_set(struct world *w)
{
	ptr_vmxon(w);
	ck_assert_int_eq(mov_cr(&w->m, 4, CR4_PAE | CR4_VMXE | CR4_PGE), ST_OK);
}
static void real_mode(struct world *w)
{
	ptr_vmxon(w);
	w->m.cpu.cr0 &= ~(uint64_t)CR0_PE;
	cpu_update_mode(&w->m.cpu);
	ck_assert_int_eq(w->m.cpu.mode, MODE_REAL);
}
static void v86_mode(struct world *w)
{
	ptr_vmxon(w);
	cpu_set_flags(&w->m.cpu, cpu_get_flags(&w->m.cpu) | FLAG_VM);
	cpu_update_mode(&w->m.cpu);
	ck_assert_int_eq(w->m.cpu.mode, MODE_V86);
}
static void feature_control_unlocked(struct world *w)
{
	ptr_vmxon(w);
	w->m.cpu.feature_control = FEATURE_CONTROL_VMX_NO_SMX;
}
static void feature_control_vmx_off(struct world *w)
{
	ptr_vmxon(w);
	w->m.cpu.feature_control = FEATURE_CONTROL_LOCK;
}
static void feature_control_smx_only(struct world *w)
{
	ptr_vmxon(w);
	w->m.cpu.feature_control = FEATURE_CONTROL_LOCK | FEATURE_CONTROL_VMX_IN_SMX;
}
static void a20m(struct world *w)
{
	ptr_vmxon(w);
	cpu_set_a20(&w->m.cpu, false);
}
static void vmxon_bad_revision(struct world *w)
{
	ptr_vmxon(w);
	physmem_write(&w->m.pm, VMXON_PA, 4, w->revision ^ 1);
}
static void vmxon_shadow_bit(struct world *w)
{
	ptr_vmxon(w);
	physmem_write(&w->m.pm, VMXON_PA, 4, w->revision | VMCS_SHADOW_INDICATOR);
}
static void ptr_vmxon_eax_only(struct world *w)
{
	ptr_vmxon(w);
	w->m.cpu.regs[R_AX] |= 0xffffffff00000000ull;   /* the 67H prefix drops it */
}
static void ptr_unmapped(struct world *w)
{
	w->m.cpu.regs[R_AX] = 1ull << 30;                /* past the 1 GiB identity map */
}
static void ptr_noncanonical(struct world *w)
{
	w->m.cpu.regs[R_AX] = 1ull << 47;
}
static void b_bad_revision(struct world *w)
{
	ptr_b(w);
	physmem_write(&w->m.pm, VMCS_B, 4, w->revision + 1);
}
static void b_shadow(struct world *w)
{
	ptr_b(w);
	physmem_write(&w->m.pm, VMCS_B, 4, w->revision | VMCS_SHADOW_INDICATOR);
}
/* VMCS B, a shadow VMCS (SDM Vol.3 24.10), is current. */
static void b_shadow_current(struct world *w)
{
	b_shadow(w);
	do_vmclear(w, VMCS_B);
	do_vmptrld(w, VMCS_B);
}
static void enc_guest_rip(struct world *w)
{
	w->m.cpu.regs[R_CX] = VMCS_GUEST_RIP;
	w->m.cpu.regs[R_BX] = 0x1234;
}
static void b_shadow_current_rip(struct world *w)
{
	b_shadow_current(w);
	enc_guest_rip(w);
}
static void enc_reserved_bit12(struct world *w) { w->m.cpu.regs[R_CX] = 0x1000 | VMCS_GUEST_RIP; }
static void enc_high_of_16bit(struct world *w) { w->m.cpu.regs[R_CX] = VMCS_GUEST_CS_SELECTOR | 1; }
static void enc_upper_half(struct world *w) { w->m.cpu.regs[R_CX] = (1ull << 32) | VMCS_GUEST_RIP; }
static void enc_not_in_table(struct world *w) { w->m.cpu.regs[R_CX] = 0x0830; }
/* TSC multiplier: index 25, above skylake-lite's IA32_VMX_VMCS_ENUM (23). */
static void enc_above_enum(struct world *w) { w->m.cpu.regs[R_CX] = VMCS_TSC_MULTIPLIER; }
static void enc_exit_reason(struct world *w)
{
	w->m.cpu.regs[R_CX] = VMCS_EXIT_REASON;
	w->m.cpu.regs[R_BX] = 0x30;
}
static void enc(struct world *w, uint32_t e)
{
	w->m.cpu.regs[R_CX] = e;
	w->m.cpu.regs[R_BX] = 0x1234;
}
static void enc_eptp(struct world *w) { enc(w, VMCS_EPT_POINTER); }
static void enc_pdpte0(struct world *w) { enc(w, VMCS_GUEST_PDPTE0); }
static void enc_apic_access(struct world *w) { enc(w, VMCS_APIC_ACCESS_ADDR); }
static void enc_virtual_apic(struct world *w) { enc(w, VMCS_VIRTUAL_APIC_ADDR); }
static void enc_tpr_threshold(struct world *w) { enc(w, VMCS_TPR_THRESHOLD); }
static void enc_guest_pat(struct world *w) { enc(w, VMCS_GUEST_IA32_PAT); }
static void enc_host_efer(struct world *w) { enc(w, VMCS_HOST_IA32_EFER); }
static void enc_timer(struct world *w) { enc(w, VMCS_PREEMPTION_TIMER_VALUE); }
static void enc_vpid(struct world *w) { enc(w, VMCS_VPID); }
static void enc_pml_index(struct world *w) { enc(w, VMCS_PML_INDEX); }
static void enc_fred_config(struct world *w) { enc(w, VMCS_GUEST_IA32_FRED_CONFIG); }
static void enc_secondary(struct world *w) { enc(w, VMCS_SECONDARY_PROC_CONTROLS); }
static void enc_eptp_list(struct world *w) { enc(w, VMCS_EPTP_LIST_ADDR); }
static void enc_guest_cet(struct world *w) { enc(w, VMCS_GUEST_IA32_S_CET); }
static void cpl3_enc(struct world *w) { enc_guest_rip(w); cpl3(w); }
static void compat_enc(struct world *w) { enc_guest_rip(w); compat(w); }
static void mov_ss_shadow(struct world *w) { w->m.cpu.insn_shadow = SHADOW_MOV_SS; }
static void a_launched(struct world *w)
{
	/* VMCLEAR A, mark it launched in its region, VMPTRLD it (hvemu's format). */
	do_vmclear(w, VMCS_A);
	physmem_write(&w->m.pm, VMCS_A + VMCS_LAUNCH_STATE_OFFSET, 4, VMCS_LAUNCHED);
	do_vmptrld(w, VMCS_A);
}
static void launched_mov_ss(struct world *w) { a_launched(w); mov_ss_shadow(w); }

/* INVEPT / INVVPID: type in RCX, descriptor at [RAX]. */
static void descriptor(struct world *w, uint64_t type, uint64_t lo, uint64_t hi)
{
	w->m.cpu.regs[R_CX] = type;
	w->m.cpu.regs[R_AX] = DESC;
	physmem_write(&w->m.pm, DESC, 8, lo);
	physmem_write(&w->m.pm, DESC + 8, 8, hi);
}
#define EPTP_WB4 (0x5000u | 6u | (3u << 3))    /* WB, 4-level walk */
static void invept_single(struct world *w) { descriptor(w, 1, EPTP_WB4, 0); }
static void invept_single_ad(struct world *w) { descriptor(w, 1, EPTP_WB4 | (1u << 6), 0); }
static void invept_all(struct world *w) { descriptor(w, 2, 0, 0); }
static void invept_type0(struct world *w) { descriptor(w, 0, EPTP_WB4, 0); }
static void invept_type3(struct world *w) { descriptor(w, 3, EPTP_WB4, 0); }
static void invept_type_upper(struct world *w) { descriptor(w, (1ull << 32) | 2, 0, 0); }
static void invept_bad_memtype(struct world *w) { descriptor(w, 1, (EPTP_WB4 & ~7u) | 1, 0); }
static void invept_bad_walk(struct world *w) { descriptor(w, 1, (EPTP_WB4 & ~(7u << 3)) | (4u << 3), 0); }
static void invept_reserved(struct world *w) { descriptor(w, 1, EPTP_WB4 | (1u << 8), 0); }
static void invept_wide(struct world *w) { descriptor(w, 1, EPTP_WB4 | (1ull << 39), 0); }
static void invept_all_cpl3(struct world *w) { invept_all(w); cpl3(w); }
static void invept_unmapped(struct world *w) { invept_all(w); w->m.cpu.regs[R_AX] = 1ull << 30; }
static void invvpid_addr(struct world *w) { descriptor(w, 0, 1, 0x1000); }
static void invvpid_addr_noncanon(struct world *w) { descriptor(w, 0, 1, 1ull << 47); }
static void invvpid_addr_vpid0(struct world *w) { descriptor(w, 0, 0, 0x1000); }
static void invvpid_single(struct world *w) { descriptor(w, 1, 5, 0); }
static void invvpid_single_vpid0(struct world *w) { descriptor(w, 1, 0, 0); }
static void invvpid_all_vpid0(struct world *w) { descriptor(w, 2, 0, 0); }
static void invvpid_single_ng(struct world *w) { descriptor(w, 3, 5, 0); }
static void invvpid_single_ng_vpid0(struct world *w) { descriptor(w, 3, 0, 0); }
static void invvpid_reserved(struct world *w) { descriptor(w, 1, 5 | (1ull << 16), 0); }
static void invvpid_type4(struct world *w) { descriptor(w, 4, 5, 0); }

/* MOV to CR0/CR4 (0F 22 /r from RAX), LMSW AX, CLTS in VMX operation. */
#define MOV_CR0_RAX 0x0f, 0x22, 0xc0
#define MOV_CR4_RAX 0x0f, 0x22, 0xe0
#define LMSW_AX     0x0f, 0x01, 0xf0
#define CLTS        0x0f, 0x06
static void rax_cr4_no_vmxe(struct world *w) { w->m.cpu.regs[R_AX] = CR4_PAE; }
static void rax_cr4_pge(struct world *w) { w->m.cpu.regs[R_AX] = CR4_PAE | CR4_VMXE | CR4_PGE; }
static void rax_cr0_no_ne(struct world *w) { w->m.cpu.regs[R_AX] = CR0_PE | CR0_ET | CR0_PG; }
static void rax_cr0_cd(struct world *w) { w->m.cpu.regs[R_AX] = CR0_PE | CR0_ET | CR0_NE | CR0_PG | CR0_CD; }
static void ax_lmsw_mp(struct world *w) { w->m.cpu.regs[R_AX] = CR0_PE | CR0_MP; }
static void ts_then_vmxon(struct world *w)
{
	ck_assert_int_eq(mov_cr(&w->m, 0, w->m.cpu.cr0 | CR0_TS), ST_OK);
	do_vmxon(w);
}

/* checks */
static void check_cr4_vmxe(struct world *w) { ck_assert(w->m.cpu.cr4 & CR4_VMXE); }
static void check_cr0_ne(struct world *w) { ck_assert(w->m.cpu.cr0 & CR0_NE); }
static void check_cr_rules_end(struct world *w)
{
	/* Out of VMX operation CR4.VMXE and CR0.NE may be cleared again. */
	ck_assert_int_eq(mov_cr(&w->m, 4, CR4_PAE), ST_OK);
	ck_assert_int_eq(mov_cr(&w->m, 0, CR0_PE | CR0_ET | CR0_PG), ST_OK);
}
static void check_in_vmx_operation(struct world *w)
{
	/* VMPTRST runs (no #UD) and reports no current VMCS. */
	pointer_operand(w, 0);
	SUCCEED(w, "vmptrst", VMPTRST_RAX);
	ck_assert_uint_eq(physmem_read(&w->m.pm, PTR, 8), UINT64_MAX);
}
static void monitor_armed(struct world *w) { ptr_vmxon(w); w->m.cpu.monitor_armed = true; }
static void monitor_armed_root(struct world *w) { w->m.cpu.monitor_armed = true; }
static void check_monitor_cleared(struct world *w) { ck_assert(!w->m.cpu.monitor_armed); }
static void check_out_of_vmx_operation(struct world *w)
{
	pointer_operand(w, 0);
	assert_ud(&w->m, EXEC(&w->m, VMPTRST_RAX));
}
static void check_no_current(struct world *w)
{
	pointer_operand(w, 0);
	SUCCEED(w, "vmptrst", VMPTRST_RAX);
	ck_assert_uint_eq(physmem_read(&w->m.pm, PTR, 8), UINT64_MAX);
}
static void check_current_b(struct world *w)
{
	pointer_operand(w, 0);
	SUCCEED(w, "vmptrst", VMPTRST_RAX);
	ck_assert_uint_eq(physmem_read(&w->m.pm, PTR, 8), VMCS_B);
}
static void check_current_a(struct world *w)
{
	pointer_operand(w, 0);
	SUCCEED(w, "vmptrst", VMPTRST_RAX);
	ck_assert_uint_eq(physmem_read(&w->m.pm, PTR, 8), VMCS_A);
}
static void check_ptr_is_none(struct world *w)
{
	ck_assert_uint_eq(physmem_read(&w->m.pm, PTR, 8), UINT64_MAX);
}
static void check_ptr_is_a(struct world *w) { ck_assert_uint_eq(physmem_read(&w->m.pm, PTR, 8), VMCS_A); }
static void check_rip_1234(struct world *w) { ck_assert_uint_eq(do_vmread(w, VMCS_GUEST_RIP), 0x1234); }
static void check_exit_reason_30(struct world *w) { ck_assert_uint_eq(do_vmread(w, VMCS_EXIT_REASON), 0x30); }
static void check_rbx_untouched(struct world *w)
{
	ck_assert_uint_eq(w->m.cpu.regs[R_BX], 0x1234);
}

static const struct row rows[] = {
	/* ---- VMXON (SDM Vol.3 30.3 VMXON) ---- */
	{ "vmxon", NULL, OFF, ptr_vmxon, I(VMXON_RAX), SUCCEED, 0, check_in_vmx_operation },
	{ "vmxon clears address-range monitoring", NULL, OFF, monitor_armed, I(VMXON_RAX), SUCCEED, 0,
	  check_monitor_cleared },
	{ "vmxon 67H: the operand at EAX", NULL, OFF, ptr_vmxon_eax_only, I(0x67, VMXON_RAX), SUCCEED, 0,
	  check_in_vmx_operation },
	{ "vmxon CR4.VMXE=0 #UD", NULL, OFF, cr4_vmxe_clear, I(VMXON_RAX), UD, 0, check_out_of_vmx_operation },
	{ "vmxon real mode #UD", NULL, OFF32_NOPG, real_mode, I(VMXON_RAX), UD, 0, NULL },
	{ "vmxon virtual-8086 mode #UD", NULL, OFF32, v86_mode, I(VMXON_RAX), UD, 0, NULL },
	{ "vmxon compatibility mode #UD", NULL, OFF, compat_ptr_vmxon, I(VMXON_RAX), UD, 0, NULL },
	{ "vmxon register operand #UD", NULL, OFF, NULL, I(0xf3, 0x0f, 0xc7, 0xf0), UD, 0, NULL },
	{ "vmxon CPL 3 #GP", NULL, OFF, cpl3_ptr_vmxon, I(VMXON_RAX), GP, 0, NULL },
	{ "vmxon FEATURE_CONTROL unlocked #GP", NULL, OFF, feature_control_unlocked, I(VMXON_RAX), GP, 0, NULL },
	{ "vmxon FEATURE_CONTROL VMX outside SMX off #GP", NULL, OFF, feature_control_vmx_off, I(VMXON_RAX), GP, 0,
	  NULL },
	{ "vmxon FEATURE_CONTROL VMX in SMX only #GP", NULL, OFF, feature_control_smx_only, I(VMXON_RAX), GP, 0,
	  NULL },
	{ "vmxon CR0.NE=0 (FIXED0) #GP", NULL, OFF, cr0_ne_clear, I(VMXON_RAX), GP, 0, NULL },
	{ "vmxon CR0.PG=0 (FIXED0) #GP", NULL, OFF32_NOPG, ptr_vmxon, I(VMXON_RAX), GP, 0, NULL },
	{ "vmxon CR4.PGE not in CR4_FIXED1 #GP", "skylake-lite:cr4-fixed1-no-pge", OFF, cr4_pge_set,
	  I(VMXON_RAX), GP, 0, NULL },
	{ "vmxon A20M #GP", NULL, OFF, a20m, I(VMXON_RAX), GP, 0, NULL },
	{ "vmxon operand not mapped #PF", NULL, OFF, ptr_unmapped, I(VMXON_RAX), PF, 0, NULL },
	{ "vmxon operand not canonical #GP", NULL, OFF, ptr_noncanonical, I(VMXON_RAX), GP, 0, NULL },
	{ "vmxon pointer not 4K-aligned", NULL, OFF, ptr_unaligned, I(VMXON_RAX), FAIL_INVALID, 0,
	  check_out_of_vmx_operation },
	{ "vmxon pointer beyond MAXPHYADDR", NULL, OFF, ptr_wide, I(VMXON_RAX), FAIL_INVALID, 0, NULL },
	{ "vmxon revision mismatch", NULL, OFF, vmxon_bad_revision, I(VMXON_RAX), FAIL_INVALID, 0,
	  check_out_of_vmx_operation },
	{ "vmxon revision with bit 31", NULL, OFF, vmxon_shadow_bit, I(VMXON_RAX), FAIL_INVALID, 0, NULL },
	{ "vmxon in root, no current VMCS", NULL, ROOT, ptr_vmxon, I(VMXON_RAX), FAIL_INVALID, 0, NULL },
	{ "vmxon in root (15)", NULL, CURRENT, ptr_vmxon, I(VMXON_RAX), FAIL_VALID, 15, NULL },
	{ "vmxon in root CPL 3 #GP", NULL, ROOT, cpl3_ptr_vmxon, I(VMXON_RAX), GP, 0, NULL },
	{ "vmxon 32-bit protected mode", NULL, OFF32, ptr_vmxon, I(VMXON_RAX), SUCCEED, 0, check_in_vmx_operation },

	/* ---- VMXOFF ---- */
	{ "vmxoff", NULL, ROOT, NULL, I(VMXOFF), SUCCEED, 0, check_out_of_vmx_operation },
	{ "vmxoff clears address-range monitoring", NULL, ROOT, monitor_armed_root, I(VMXOFF), SUCCEED, 0,
	  check_monitor_cleared },
	{ "vmxoff with a current VMCS", NULL, CURRENT, NULL, I(VMXOFF), SUCCEED, 0, check_out_of_vmx_operation },
	{ "vmxoff outside VMX operation #UD", NULL, OFF, NULL, I(VMXOFF), UD, 0, NULL },
	{ "vmxoff CPL 3 #GP", NULL, ROOT, cpl3, I(VMXOFF), GP, 0, NULL },
	{ "vmxoff compatibility mode #UD", NULL, ROOT, compat, I(VMXOFF), UD, 0, NULL },

	{ "vmxoff ends VMX operation's CR0/CR4 rules", NULL, ROOT, NULL, I(VMXOFF), SUCCEED, 0,
	  check_cr_rules_end },

	/* ---- VMX operation's CR0/CR4 rules (SDM Vol.3 23.8) ---- */
	{ "mov cr4 clearing VMXE in VMX operation #GP", NULL, ROOT, rax_cr4_no_vmxe, I(MOV_CR4_RAX), GP, 0,
	  check_cr4_vmxe },
	{ "mov cr4 clearing VMXE outside VMX operation", NULL, OFF, rax_cr4_no_vmxe, I(MOV_CR4_RAX), RAN, 0, NULL },
	{ "mov cr0 clearing NE in VMX operation #GP", NULL, CURRENT, rax_cr0_no_ne, I(MOV_CR0_RAX), GP, 0,
	  check_cr0_ne },
	{ "mov cr0 clearing NE outside VMX operation", NULL, OFF, rax_cr0_no_ne, I(MOV_CR0_RAX), RAN, 0, NULL },
	{ "mov cr0 setting CD (free bit) in VMX operation", NULL, ROOT, rax_cr0_cd, I(MOV_CR0_RAX), RAN, 0, NULL },
	{ "mov cr4 setting PGE in VMX operation", NULL, ROOT, rax_cr4_pge, I(MOV_CR4_RAX), RAN, 0, NULL },
	{ "mov cr4 PGE not in CR4_FIXED1 #GP", "skylake-lite:cr4-fixed1-no-pge", ROOT, rax_cr4_pge, I(MOV_CR4_RAX),
	  GP, 0, NULL },
	{ "lmsw MP not in CR0_FIXED1 #GP", "skylake-lite:cr0-fixed1-no-mp", ROOT, ax_lmsw_mp, I(LMSW_AX), GP, 0,
	  NULL },
	{ "lmsw MP, CR0_FIXED1 has it", NULL, ROOT, ax_lmsw_mp, I(LMSW_AX), RAN, 0, NULL },
	{ "clts TS in CR0_FIXED0 #GP", "skylake-lite:cr0-fixed0-ts", OFF, ts_then_vmxon, I(CLTS), GP, 0, NULL },
	{ "clts", NULL, ROOT, NULL, I(CLTS), RAN, 0, NULL },

	/* ---- VMCLEAR ---- */
	{ "vmclear the current VMCS", NULL, CURRENT, ptr_a, I(VMCLEAR_RAX), SUCCEED, 0, check_no_current },
	{ "vmclear another VMCS", NULL, CURRENT, ptr_b, I(VMCLEAR_RAX), SUCCEED, 0, check_current_a },
	{ "vmclear outside VMX operation #UD", NULL, OFF, ptr_a, I(VMCLEAR_RAX), UD, 0, NULL },
	{ "vmclear CPL 3 #GP", NULL, ROOT, cpl3_ptr_a, I(VMCLEAR_RAX), GP, 0, NULL },
	{ "vmclear compatibility mode #UD", NULL, ROOT, compat, I(VMCLEAR_RAX), UD, 0, NULL },
	{ "vmclear unaligned, no current VMCS", NULL, ROOT, ptr_unaligned, I(VMCLEAR_RAX), FAIL_INVALID, 0, NULL },
	{ "vmclear unaligned (2)", NULL, CURRENT, ptr_unaligned, I(VMCLEAR_RAX), FAIL_VALID, 2, NULL },
	{ "vmclear beyond MAXPHYADDR (2)", NULL, CURRENT, ptr_wide, I(VMCLEAR_RAX), FAIL_VALID, 2, NULL },
	{ "vmclear beyond core2's 36 bits (2)", "core2", CURRENT, ptr_core2_wide, I(VMCLEAR_RAX), FAIL_VALID, 2,
	  NULL },
	{ "vmclear VMXON pointer, no current VMCS", NULL, ROOT, ptr_vmxon, I(VMCLEAR_RAX), FAIL_INVALID, 0, NULL },
	{ "vmclear VMXON pointer (3)", NULL, CURRENT, ptr_vmxon, I(VMCLEAR_RAX), FAIL_VALID, 3, NULL },
	{ "vmclear operand not mapped #PF", NULL, CURRENT, ptr_unmapped, I(VMCLEAR_RAX), PF, 0, NULL },

	/* ---- VMPTRLD ---- */
	{ "vmptrld", NULL, CURRENT, ptr_b, I(VMPTRLD_RAX), SUCCEED, 0, check_current_b },
	{ "vmptrld outside VMX operation #UD", NULL, OFF, ptr_a, I(VMPTRLD_RAX), UD, 0, NULL },
	{ "vmptrld CPL 3 #GP", NULL, ROOT, cpl3_ptr_a, I(VMPTRLD_RAX), GP, 0, NULL },
	{ "vmptrld compatibility mode #UD", NULL, ROOT, compat, I(VMPTRLD_RAX), UD, 0, NULL },
	{ "vmptrld unaligned, no current VMCS", NULL, ROOT, ptr_unaligned, I(VMPTRLD_RAX), FAIL_INVALID, 0, NULL },
	{ "vmptrld unaligned (9)", NULL, CURRENT, ptr_unaligned, I(VMPTRLD_RAX), FAIL_VALID, 9, check_current_a },
	{ "vmptrld beyond MAXPHYADDR (9)", NULL, CURRENT, ptr_wide, I(VMPTRLD_RAX), FAIL_VALID, 9, NULL },
	{ "vmptrld VMXON pointer (10)", NULL, CURRENT, ptr_vmxon, I(VMPTRLD_RAX), FAIL_VALID, 10, NULL },
	{ "vmptrld VMXON pointer, no current VMCS", NULL, ROOT, ptr_vmxon, I(VMPTRLD_RAX), FAIL_INVALID, 0, NULL },
	{ "vmptrld revision mismatch (11)", NULL, CURRENT, b_bad_revision, I(VMPTRLD_RAX), FAIL_VALID, 11,
	  check_current_a },
	{ "vmptrld shadow VMCS without VMCS shadowing (11)", "nehalem-lite", CURRENT, b_shadow, I(VMPTRLD_RAX),
	  FAIL_VALID, 11, check_current_a },
	/* SDM Vol.3 30.3 VMPTRLD, 24.10: a shadow VMCS may be made current where
	 * "VMCS shadowing" may be 1 (skylake-lite). */
	{ "vmptrld shadow VMCS with VMCS shadowing", NULL, CURRENT, b_shadow, I(VMPTRLD_RAX), SUCCEED, 0,
	  check_current_b },
	{ "vmptrld revision mismatch, no current VMCS", NULL, ROOT, b_bad_revision, I(VMPTRLD_RAX), FAIL_INVALID,
	  0, check_no_current },

	/* ---- VMPTRST ---- */
	{ "vmptrst without a current VMCS", NULL, ROOT, ptr_a, I(VMPTRST_RAX), SUCCEED, 0, check_ptr_is_none },
	{ "vmptrst", NULL, CURRENT, ptr_b, I(VMPTRST_RAX), SUCCEED, 0, check_ptr_is_a },
	{ "vmptrst outside VMX operation #UD", NULL, OFF, ptr_a, I(VMPTRST_RAX), UD, 0, NULL },
	{ "vmptrst CPL 3 #GP", NULL, ROOT, cpl3_ptr_a, I(VMPTRST_RAX), GP, 0, NULL },
	/* On a CPU without RDSEED (CPUID.7.0:EBX[18]); skylake-lite runs it (tests/unit/test_scalar_isa.c). */
	{ "vmptrst register form is RDSEED, not VMPTRST", "nehalem-lite", ROOT, NULL, I(0x0f, 0xc7, 0xf8), UD, 0, NULL },

	/* ---- VMREAD ---- */
	{ "vmread no current VMCS", NULL, ROOT, enc_guest_rip, I(VMREAD_RBX_RCX), FAIL_INVALID, 0,
	  check_rbx_untouched },
	{ "vmread", NULL, CURRENT, enc_guest_rip, I(VMREAD_RBX_RCX), SUCCEED, 0, NULL },
	{ "vmread outside VMX operation #UD", NULL, OFF, enc_guest_rip, I(VMREAD_RBX_RCX), UD, 0, NULL },
	{ "vmread CPL 3 #GP", NULL, CURRENT, cpl3_enc, I(VMREAD_RBX_RCX), GP, 0, NULL },
	{ "vmread compatibility mode #UD", NULL, CURRENT, compat_enc, I(VMREAD_RBX_RCX), UD, 0, NULL },
	{ "vmread encoding bit 12 (12)", NULL, CURRENT, enc_reserved_bit12, I(VMREAD_RBX_RCX), FAIL_VALID, 12,
	  NULL },
	{ "vmread high access of a 16-bit field (12)", NULL, CURRENT, enc_high_of_16bit, I(VMREAD_RBX_RCX),
	  FAIL_VALID, 12, NULL },
	{ "vmread encoding bits 63:32 (12)", NULL, CURRENT, enc_upper_half, I(VMREAD_RBX_RCX), FAIL_VALID, 12,
	  NULL },
	{ "vmread no such field (12)", NULL, CURRENT, enc_not_in_table, I(VMREAD_RBX_RCX), FAIL_VALID, 12, NULL },
	{ "vmread index above VMCS_ENUM (12)", NULL, CURRENT, enc_above_enum, I(VMREAD_RBX_RCX), FAIL_VALID, 12,
	  NULL },

	/* Fields that exist only with a feature (SDM Vol.3 Appendix B). */
	{ "vmread EPT pointer", NULL, CURRENT, enc_eptp, I(VMREAD_RBX_RCX), SUCCEED, 0, NULL },
	{ "vmread EPT pointer without EPT (12)", "core2", CURRENT, enc_eptp, I(VMREAD_RBX_RCX), FAIL_VALID, 12,
	  NULL },
	{ "vmread guest PDPTE0 without EPT (12)", "core2", CURRENT, enc_pdpte0, I(VMREAD_RBX_RCX), FAIL_VALID, 12,
	  NULL },
	{ "vmread APIC-access address without APIC virtualization (12)", "core2", CURRENT, enc_apic_access,
	  I(VMREAD_RBX_RCX), FAIL_VALID, 12, NULL },
	{ "vmread virtual-APIC address with TPR shadow", "core2", CURRENT, enc_virtual_apic, I(VMREAD_RBX_RCX),
	  SUCCEED, 0, NULL },
	{ "vmread TPR threshold with TPR shadow", "core2", CURRENT, enc_tpr_threshold, I(VMREAD_RBX_RCX), SUCCEED,
	  0, NULL },
	{ "vmwrite guest PAT", NULL, CURRENT, enc_guest_pat, I(VMWRITE_RCX_RBX), SUCCEED, 0, NULL },
	{ "vmwrite guest PAT without PAT load/save (12)", "core2", CURRENT, enc_guest_pat, I(VMWRITE_RCX_RBX),
	  FAIL_VALID, 12, NULL },
	{ "vmwrite guest PAT with only the PAT save exit control", "skylake-lite:no-entry-load-pat", CURRENT,
	  enc_guest_pat, I(VMWRITE_RCX_RBX), SUCCEED, 0, NULL },
	{ "vmwrite host EFER without EFER load (12)", "core2", CURRENT, enc_host_efer, I(VMWRITE_RCX_RBX),
	  FAIL_VALID, 12, NULL },
	{ "vmread preemption timer value", NULL, CURRENT, enc_timer, I(VMREAD_RBX_RCX), SUCCEED, 0, NULL },
	{ "vmread preemption timer value without the timer (12)", "core2", CURRENT, enc_timer, I(VMREAD_RBX_RCX),
	  FAIL_VALID, 12, NULL },
	{ "vmread VPID", NULL, CURRENT, enc_vpid, I(VMREAD_RBX_RCX), SUCCEED, 0, NULL },
	{ "vmread VPID without VPID (12)", "core2", CURRENT, enc_vpid, I(VMREAD_RBX_RCX), FAIL_VALID, 12, NULL },
	{ "vmread secondary controls without them (12)", "core2", CURRENT, enc_secondary, I(VMREAD_RBX_RCX),
	  FAIL_VALID, 12, NULL },
	{ "vmread EPTP-list address", NULL, CURRENT, enc_eptp_list, I(VMREAD_RBX_RCX), SUCCEED, 0, NULL },
	{ "vmread PML index without PML (12)", "nehalem-lite", CURRENT, enc_pml_index, I(VMREAD_RBX_RCX),
	  FAIL_VALID, 12, NULL },
	{ "vmread PML index with PML", NULL, CURRENT, enc_pml_index, I(VMREAD_RBX_RCX), SUCCEED, 0, NULL },
	{ "vmread guest IA32_FRED_CONFIG without FRED (12)", NULL, CURRENT, enc_fred_config, I(VMREAD_RBX_RCX),
	  FAIL_VALID, 12, NULL },
	{ "vmread guest IA32_S_CET without CET (12)", NULL, CURRENT, enc_guest_cet, I(VMREAD_RBX_RCX), FAIL_VALID,
	  12, NULL },

	/* ---- VMWRITE ---- */
	{ "vmwrite no current VMCS", NULL, ROOT, enc_guest_rip, I(VMWRITE_RCX_RBX), FAIL_INVALID, 0, NULL },
	{ "vmwrite", NULL, CURRENT, enc_guest_rip, I(VMWRITE_RCX_RBX), SUCCEED, 0, check_rip_1234 },
	{ "vmwrite outside VMX operation #UD", NULL, OFF, enc_guest_rip, I(VMWRITE_RCX_RBX), UD, 0, NULL },
	{ "vmwrite CPL 3 #GP", NULL, CURRENT, cpl3_enc, I(VMWRITE_RCX_RBX), GP, 0, NULL },
	{ "vmwrite compatibility mode #UD", NULL, CURRENT, compat_enc, I(VMWRITE_RCX_RBX), UD, 0, NULL },
	{ "vmwrite no such field (12)", NULL, CURRENT, enc_not_in_table, I(VMWRITE_RCX_RBX), FAIL_VALID, 12,
	  NULL },
	{ "vmwrite index above VMCS_ENUM (12)", NULL, CURRENT, enc_above_enum, I(VMWRITE_RCX_RBX), FAIL_VALID, 12,
	  NULL },
	{ "vmwrite exit reason, MISC bit 29", NULL, CURRENT, enc_exit_reason, I(VMWRITE_RCX_RBX), SUCCEED, 0,
	  check_exit_reason_30 },
	{ "vmwrite exit reason without MISC bit 29 (13)", "core2", CURRENT, enc_exit_reason, I(VMWRITE_RCX_RBX),
	  FAIL_VALID, 13, NULL },
	{ "vmwrite source not mapped #PF", NULL, CURRENT, ptr_unmapped, I(VMWRITE_RCX_MEM), PF, 0, NULL },

	/* ---- VMLAUNCH, VMRESUME up to VM entry ---- */
	{ "vmlaunch no current VMCS", NULL, ROOT, NULL, I(VMLAUNCH), FAIL_INVALID, 0, NULL },
	{ "vmresume no current VMCS", NULL, ROOT, NULL, I(VMRESUME), FAIL_INVALID, 0, NULL },
	{ "vmlaunch outside VMX operation #UD", NULL, OFF, NULL, I(VMLAUNCH), UD, 0, NULL },
	{ "vmresume outside VMX operation #UD", NULL, OFF, NULL, I(VMRESUME), UD, 0, NULL },
	{ "vmlaunch CPL 3 #GP", NULL, CURRENT, cpl3, I(VMLAUNCH), GP, 0, NULL },
	{ "vmresume compatibility mode #UD", NULL, CURRENT, compat, I(VMRESUME), UD, 0, NULL },
	{ "vmlaunch blocked by MOV SS (26)", NULL, CURRENT, mov_ss_shadow, I(VMLAUNCH), FAIL_VALID, 26, NULL },
	{ "vmresume blocked by MOV SS (26)", NULL, CURRENT, launched_mov_ss, I(VMRESUME), FAIL_VALID, 26, NULL },
	/* SDM Vol.3 26.1 (4), 24.10: a shadow VMCS cannot be used for VM entry;
	 * VMfailInvalid, before the MOV-SS and launch-state checks. */
	{ "vmlaunch shadow VMCS current: VMfailInvalid", NULL, CURRENT, b_shadow_current, I(VMLAUNCH),
	  FAIL_INVALID, 0, check_current_b },
	{ "vmresume shadow VMCS current: VMfailInvalid", NULL, CURRENT, b_shadow_current, I(VMRESUME),
	  FAIL_INVALID, 0, check_current_b },
	/* In VMX root operation VMREAD/VMWRITE reach a current shadow VMCS as
	 * any (24.10). */
	{ "vmwrite to a current shadow VMCS", NULL, CURRENT, b_shadow_current_rip, I(VMWRITE_RCX_RBX), SUCCEED, 0,
	  check_rip_1234 },
	{ "vmlaunch launched VMCS (4)", NULL, CURRENT, a_launched, I(VMLAUNCH), FAIL_VALID, 4, NULL },
	{ "vmresume clear VMCS (5)", NULL, CURRENT, NULL, I(VMRESUME), FAIL_VALID, 5, NULL },
	/* Past their own checks: VM entry (vmx/world_switch.c). */
	{ "vmlaunch clear VMCS: on to VM entry, whose control checks a zero VMCS fails (26.2.1): VMfailValid(7)",
	  NULL, CURRENT, NULL, I(VMLAUNCH), FAIL_VALID, 7, NULL },
	{ "vmresume launched VMCS: on to VM entry, whose control checks a zero VMCS fails (26.2.1): VMfailValid(7)",
	  NULL, CURRENT, a_launched, I(VMRESUME), FAIL_VALID, 7,
	  NULL },

	/* ---- INVEPT ---- */
	{ "invept single-context", NULL, CURRENT, invept_single, I(INVEPT_RCX_RAX), SUCCEED, 0, NULL },
	{ "invept single-context, EPTP with A/D", NULL, CURRENT, invept_single_ad, I(INVEPT_RCX_RAX), SUCCEED, 0,
	  NULL },
	{ "invept all-context", NULL, CURRENT, invept_all, I(INVEPT_RCX_RAX), SUCCEED, 0, NULL },
	{ "invept all-context, no current VMCS", NULL, ROOT, invept_all, I(INVEPT_RCX_RAX), SUCCEED, 0, NULL },
	{ "invept type 0 (28)", NULL, CURRENT, invept_type0, I(INVEPT_RCX_RAX), FAIL_VALID, 28, NULL },
	{ "invept type 3 (28)", NULL, CURRENT, invept_type3, I(INVEPT_RCX_RAX), FAIL_VALID, 28, NULL },
	{ "invept type 0, no current VMCS", NULL, ROOT, invept_type0, I(INVEPT_RCX_RAX), FAIL_INVALID, 0, NULL },
	{ "invept type with bits 63:32 (28)", NULL, CURRENT, invept_type_upper, I(INVEPT_RCX_RAX), FAIL_VALID, 28,
	  NULL },
	{ "invept EPTP memory type 1 (28)", NULL, CURRENT, invept_bad_memtype, I(INVEPT_RCX_RAX), FAIL_VALID, 28,
	  NULL },
	{ "invept EPTP 5-level walk without the capability (28)", NULL, CURRENT, invept_bad_walk,
	  I(INVEPT_RCX_RAX), FAIL_VALID, 28, NULL },
	{ "invept EPTP bit 8 (28)", NULL, CURRENT, invept_reserved, I(INVEPT_RCX_RAX), FAIL_VALID, 28, NULL },
	{ "invept EPTP beyond MAXPHYADDR (28)", NULL, CURRENT, invept_wide, I(INVEPT_RCX_RAX), FAIL_VALID, 28,
	  NULL },
	{ "invept single-context not supported (28)", "skylake-lite:no-invept-single", CURRENT, invept_single,
	  I(INVEPT_RCX_RAX), FAIL_VALID, 28, NULL },
	{ "invept descriptor not mapped #PF", NULL, CURRENT, invept_unmapped, I(INVEPT_RCX_RAX), PF, 0, NULL },
	{ "invept without EPT #UD", "core2", CURRENT, invept_all, I(INVEPT_RCX_RAX), UD, 0, NULL },
	{ "invept EPT without INVEPT #UD", "skylake-lite:no-invept", CURRENT, invept_all, I(INVEPT_RCX_RAX), UD, 0,
	  NULL },
	{ "invept outside VMX operation #UD", NULL, OFF, invept_all, I(INVEPT_RCX_RAX), UD, 0, NULL },
	{ "invept CPL 3 #GP", NULL, CURRENT, invept_all_cpl3, I(INVEPT_RCX_RAX), GP, 0, NULL },
	{ "invept register operand #UD", NULL, CURRENT, invept_all, I(0x66, 0x0f, 0x38, 0x80, 0xc8), UD, 0, NULL },

	/* ---- INVVPID ---- */
	{ "invvpid individual-address", NULL, CURRENT, invvpid_addr, I(INVVPID_RCX_RAX), SUCCEED, 0, NULL },
	{ "invvpid single-context", NULL, CURRENT, invvpid_single, I(INVVPID_RCX_RAX), SUCCEED, 0, NULL },
	{ "invvpid all-context, VPID 0", NULL, CURRENT, invvpid_all_vpid0, I(INVVPID_RCX_RAX), SUCCEED, 0, NULL },
	{ "invvpid single-context retaining globals", NULL, CURRENT, invvpid_single_ng, I(INVVPID_RCX_RAX), SUCCEED,
	  0, NULL },
	{ "invvpid individual-address VPID 0 (28)", NULL, CURRENT, invvpid_addr_vpid0, I(INVVPID_RCX_RAX),
	  FAIL_VALID, 28, NULL },
	{ "invvpid individual-address not canonical (28)", NULL, CURRENT, invvpid_addr_noncanon,
	  I(INVVPID_RCX_RAX), FAIL_VALID, 28, NULL },
	{ "invvpid single-context VPID 0 (28)", NULL, CURRENT, invvpid_single_vpid0, I(INVVPID_RCX_RAX),
	  FAIL_VALID, 28, NULL },
	{ "invvpid retaining globals VPID 0 (28)", NULL, CURRENT, invvpid_single_ng_vpid0, I(INVVPID_RCX_RAX),
	  FAIL_VALID, 28, NULL },
	{ "invvpid descriptor bits 63:16 (28)", NULL, CURRENT, invvpid_reserved, I(INVVPID_RCX_RAX), FAIL_VALID,
	  28, NULL },
	{ "invvpid type 4 (28)", NULL, CURRENT, invvpid_type4, I(INVVPID_RCX_RAX), FAIL_VALID, 28, NULL },
	{ "invvpid type 4, no current VMCS", NULL, ROOT, invvpid_type4, I(INVVPID_RCX_RAX), FAIL_INVALID, 0, NULL },
	{ "invvpid type not supported (28)", "skylake-lite:no-invvpid-single", CURRENT, invvpid_single,
	  I(INVVPID_RCX_RAX), FAIL_VALID, 28, NULL },
	{ "invvpid without VPID #UD", "core2", CURRENT, invvpid_single, I(INVVPID_RCX_RAX), UD, 0, NULL },
	{ "invvpid VPID without INVVPID #UD", "skylake-lite:no-invvpid", CURRENT, invvpid_single,
	  I(INVVPID_RCX_RAX), UD, 0, NULL },
	{ "invvpid outside VMX operation #UD", NULL, OFF, invvpid_single, I(INVVPID_RCX_RAX), UD, 0, NULL },
	{ "invvpid register operand #UD", NULL, CURRENT, invvpid_single, I(0x66, 0x0f, 0x38, 0x81, 0xc8), UD, 0,
	  NULL },

	/* ---- VMCALL, VMFUNC ---- */
	{ "vmcall outside VMX operation #UD", NULL, OFF, NULL, I(VMCALL), UD, 0, NULL },
	{ "vmcall in root, no current VMCS", NULL, ROOT, NULL, I(VMCALL), FAIL_INVALID, 0, NULL },
	{ "vmcall in root (1)", NULL, CURRENT, NULL, I(VMCALL), FAIL_VALID, 1, NULL },
	{ "vmcall CPL 3 #GP", NULL, CURRENT, cpl3, I(VMCALL), GP, 0, NULL },
	{ "vmcall compatibility mode #UD", NULL, CURRENT, compat, I(VMCALL), UD, 0, NULL },
	{ "vmfunc outside VMX operation #UD", NULL, OFF, NULL, I(VMFUNC), UD, 0, NULL },
	{ "vmfunc in root #UD", NULL, CURRENT, NULL, I(VMFUNC), UD, 0, NULL },

	/* ---- 32-bit protected mode in VMX operation ---- */
	{ "vmread 32-bit mode", NULL, ROOT32, enc_guest_rip, I(VMREAD_RBX_RCX), FAIL_INVALID, 0, NULL },
	{ "vmcall 32-bit mode, no current VMCS", NULL, ROOT32, NULL, I(VMCALL), FAIL_INVALID, 0, NULL },
	{ "vmxoff 32-bit mode", NULL, ROOT32, NULL, I(VMXOFF), SUCCEED, 0, check_out_of_vmx_operation },
};
#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

/* The model a row names: a built-in one, or "base:change", a copy with one
 * capability MSR changed. */
static const struct cpu_model *row_model(struct world *w, const char *name)
{
	if (!name)
		return model_named("skylake-lite");
	const struct cpu_model *sky = model_named("skylake-lite");
	uint64_t ept = model_cap(sky, MSR_VMX_EPT_VPID_CAP);
	if (!strcmp(name, "skylake-lite:cr4-fixed1-no-pge"))
		return model_with_cap(&w->copy, "skylake-lite", MSR_VMX_CR4_FIXED1,
				      model_cap(sky, MSR_VMX_CR4_FIXED1) & ~(uint64_t)CR4_PGE);
	if (!strcmp(name, "skylake-lite:cr0-fixed1-no-mp"))
		return model_with_cap(&w->copy, "skylake-lite", MSR_VMX_CR0_FIXED1,
				      model_cap(sky, MSR_VMX_CR0_FIXED1) & ~(uint64_t)CR0_MP);
	if (!strcmp(name, "skylake-lite:cr0-fixed0-ts"))
		return model_with_cap(&w->copy, "skylake-lite", MSR_VMX_CR0_FIXED0,
				      model_cap(sky, MSR_VMX_CR0_FIXED0) | CR0_TS);
	if (!strcmp(name, "skylake-lite:no-entry-load-pat"))
		return model_with_cap(&w->copy, "skylake-lite", MSR_VMX_ENTRY_CTLS,
				      model_cap(sky, MSR_VMX_ENTRY_CTLS) & ~((uint64_t)VMX_CTL(VMX_ENTRYCTL_LOAD_PAT) << 32));
	if (!strcmp(name, "skylake-lite:no-invept"))
		return model_with_cap(&w->copy, "skylake-lite", MSR_VMX_EPT_VPID_CAP, ept & ~EPT_CAP_INVEPT);
	if (!strcmp(name, "skylake-lite:no-invept-single"))
		return model_with_cap(&w->copy, "skylake-lite", MSR_VMX_EPT_VPID_CAP, ept & ~EPT_CAP_INVEPT_SINGLE);
	if (!strcmp(name, "skylake-lite:no-invvpid"))
		return model_with_cap(&w->copy, "skylake-lite", MSR_VMX_EPT_VPID_CAP, ept & ~VPID_CAP_INVVPID);
	if (!strcmp(name, "skylake-lite:no-invvpid-single"))
		return model_with_cap(&w->copy, "skylake-lite", MSR_VMX_EPT_VPID_CAP, ept & ~VPID_CAP_INVVPID_SINGLE);
	return model_named(name);
}

static void enter_base(struct world *w, const struct row *r)
{
	switch (r->base) {
	case OFF32:
	case ROOT32:
		world32(w, true);
		break;
	case OFF32_NOPG:
		world32(w, false);
		break;
	default:
		world64(w, row_model(w, r->model));
		break;
	}
	if (r->base == ROOT || r->base == CURRENT || r->base == ROOT32)
		do_vmxon(w);
	if (r->base == CURRENT)
		make_current(w);
}

START_TEST(instruction_rows)
{
	const struct row *r = &rows[_i];
	struct world w;
	enter_base(&w, r);
	if (r->setup)
		r->setup(&w);
	struct cpu *c = &w.m.cpu;
	/* Every arithmetic flag 1: a fault leaves them, VMsucceed clears them
	 * all, VMfailInvalid leaves CF, VMfailValid ZF (SDM Vol.3 30.2). */
	flags_update(c, FLAGS_ARITH, FLAGS_ARITH);
	status_t st = exec(&w.m, r->bytes, r->len);
	uint64_t flags = arith_flags(&w);
	switch (r->outcome) {
	case UD:
	case GP:
	case PF: {
		static const unsigned vector[] = { [UD] = EXC_UD, [GP] = EXC_GP, [PF] = EXC_PF };
		ck_assert_msg(st == ST_FAULT, "%s: status %d, want a fault", r->name, st);
		ck_assert_msg(c->event.vector == vector[r->outcome], "%s: vector %u, want %u", r->name,
			      c->event.vector, vector[r->outcome]);
		if (r->outcome == GP)
			ck_assert_msg(c->event.error_code == 0, "%s: #GP(%#x), want #GP(0)", r->name,
				      c->event.error_code);
		ck_assert_msg(flags == FLAGS_ARITH, "%s: a fault changed RFLAGS (%#llx)", r->name,
			      (unsigned long long)flags);
		break;
	}
	case SUCCEED:
	case FAIL_INVALID:
	case FAIL_VALID: {
		static const uint64_t want[] = { [SUCCEED] = 0, [FAIL_INVALID] = FLAG_CF, [FAIL_VALID] = FLAG_ZF };
		ck_assert_msg(st == ST_OK, "%s: status %d (vector %u), want ST_OK", r->name, st, c->event.vector);
		ck_assert_msg(flags == want[r->outcome], "%s: flags %#llx, want %#llx", r->name,
			      (unsigned long long)flags, (unsigned long long)want[r->outcome]);
		if (r->outcome == FAIL_VALID) {
			c->cpl = 0;
			ck_assert_msg(do_vmread(&w, VMCS_VM_INSTRUCTION_ERROR) == r->error,
				      "%s: VM-instruction error %llu, want %u", r->name,
				      (unsigned long long)c->regs[R_BX], r->error);
		}
		break;
	}
	case RAN:
		ck_assert_msg(st == ST_OK, "%s: status %d (vector %u), want ST_OK", r->name, st, c->event.vector);
		ck_assert_msg(flags == FLAGS_ARITH, "%s: RFLAGS changed (%#llx)", r->name, (unsigned long long)flags);
		break;
	}
	if (r->check)
		r->check(&w);
	world_free(&w);
}
END_TEST

/* ---- the VMCS: widths, the cached copy, the launch state ---- */

START_TEST(vmcs_row_enum_matches_table)
{
	/* vmx/vmcs.h's row numbers are the table's positions: the region format
	 * and the cached copy index fields by them. */
	size_t n;
	const struct vmcs_field *t = vmcs_field_table(&n);
	ck_assert_uint_eq(n, VMCS_ROW_COUNT);
	ck_assert_uint_eq(t[VMCS_ROW_GUEST_RIP].encoding, VMCS_GUEST_RIP);
	ck_assert_uint_eq(t[VMCS_ROW_VM_INSTRUCTION_ERROR].encoding, VMCS_VM_INSTRUCTION_ERROR);
	ck_assert_uint_eq(t[VMCS_ROW_COUNT - 1].encoding, VMCS_HOST_INTR_SSP_TABLE_ADDR);
}
END_TEST

START_TEST(vmcs_widths_64bit_mode)
{
	struct world w;
	world64(&w, model_named("skylake-lite"));
	do_vmxon(&w);
	make_current(&w);
	/* SDM Vol.3 30.3 VMWRITE: a field shorter than the operand ignores the
	 * operand's high bits; VMREAD: a shorter field is zero-extended. */
	do_vmwrite(&w, VMCS_GUEST_CS_SELECTOR, 0x123456789abcdef0ull);
	ck_assert_uint_eq(do_vmread(&w, VMCS_GUEST_CS_SELECTOR), 0xdef0);
	do_vmwrite(&w, VMCS_GUEST_CS_LIMIT, 0x123456789abcdef0ull);
	ck_assert_uint_eq(do_vmread(&w, VMCS_GUEST_CS_LIMIT), 0x9abcdef0);
	do_vmwrite(&w, VMCS_GUEST_RIP, 0x123456789abcdef0ull);
	ck_assert_uint_eq(do_vmread(&w, VMCS_GUEST_RIP), 0x123456789abcdef0ull);
	/* SDM Vol.3 24.11.2: the high access type of a 64-bit field is its bits
	 * 63:32; writing it leaves bits 31:0. */
	do_vmwrite(&w, VMCS_TSC_OFFSET, 0x1122334455667788ull);
	ck_assert_uint_eq(do_vmread(&w, VMCS_TSC_OFFSET | 1), 0x11223344);
	do_vmwrite(&w, VMCS_TSC_OFFSET | 1, 0xffffffffaabbccddull);
	ck_assert_uint_eq(do_vmread(&w, VMCS_TSC_OFFSET), 0xaabbccdd55667788ull);
	/* VMREAD to memory stores 64 bits in 64-bit mode; VMWRITE from memory. */
	w.m.cpu.regs[R_AX] = DATA;
	w.m.cpu.regs[R_CX] = VMCS_GUEST_RIP;
	physmem_write(&w.m.pm, DATA, 8, 0);
	SUCCEED(&w, "vmread mem", VMREAD_MEM_RCX);
	ck_assert_uint_eq(physmem_read(&w.m.pm, DATA, 8), 0x123456789abcdef0ull);
	physmem_write(&w.m.pm, DATA, 8, 0xfedcba9876543210ull);
	w.m.cpu.regs[R_CX] = VMCS_GUEST_RSP;
	SUCCEED(&w, "vmwrite mem", VMWRITE_RCX_MEM);
	ck_assert_uint_eq(do_vmread(&w, VMCS_GUEST_RSP), 0xfedcba9876543210ull);
	world_free(&w);
}
END_TEST

START_TEST(vmcs_widths_32bit_mode)
{
	struct world w;
	world32(&w, true);
	do_vmxon(&w);
	make_current(&w);
	/* 32-bit operands outside 64-bit mode (SDM Vol.3 30.3 VMREAD/VMWRITE): a
	 * longer field is read truncated, and written with its high bits
	 * cleared. */
	do_vmwrite(&w, VMCS_TSC_OFFSET | 1, 0x11223344);
	ck_assert_uint_eq(do_vmread(&w, VMCS_TSC_OFFSET | 1), 0x11223344);
	do_vmwrite(&w, VMCS_TSC_OFFSET, 0x55667788);        /* clears the high half */
	ck_assert_uint_eq(do_vmread(&w, VMCS_TSC_OFFSET | 1), 0);
	ck_assert_uint_eq(do_vmread(&w, VMCS_TSC_OFFSET), 0x55667788);
	/* A natural-width field the same way (its bits 63:32 seen through the
	 * region, hvemu's format, after VMCLEAR). */
	w.m.cpu.regs[R_CX] = VMCS_GUEST_RIP;
	w.m.cpu.regs[R_BX] = 0xffffffffcafef00dull;   /* only EBX is the operand */
	SUCCEED(&w, "vmwrite", VMWRITE_RCX_RBX);
	do_vmclear(&w, VMCS_A);
	ck_assert_uint_eq(physmem_read(&w.m.pm, VMCS_A + field_offset(VMCS_GUEST_RIP), 8), 0xcafef00d);
	world_free(&w);
}
END_TEST

START_TEST(vmcs_cache_hides_region_edits)
{
	struct world w;
	world64(&w, model_named("skylake-lite"));
	do_vmxon(&w);
	make_current(&w);
	uint64_t rip = VMCS_A + field_offset(VMCS_GUEST_RIP);
	do_vmwrite(&w, VMCS_GUEST_RIP, 0x1111);
	/* SDM Vol.3 24.11.1: the processor may keep the current VMCS's data on
	 * the processor; an edit of the region is not seen while it is current,
	 * a VMPTRLD of the same VMCS does not reload it, and VMCLEAR writes the
	 * processor's data over it. */
	physmem_write(&w.m.pm, rip, 8, 0x2222);
	ck_assert_uint_eq(do_vmread(&w, VMCS_GUEST_RIP), 0x1111);
	do_vmptrld(&w, VMCS_A);
	ck_assert_uint_eq(do_vmread(&w, VMCS_GUEST_RIP), 0x1111);
	do_vmclear(&w, VMCS_A);
	ck_assert_uint_eq(physmem_read(&w.m.pm, rip, 8), 0x1111);
	/* Edited while clear, the region is what the next VMPTRLD loads. */
	physmem_write(&w.m.pm, rip, 8, 0x3333);
	do_vmptrld(&w, VMCS_A);
	ck_assert_uint_eq(do_vmread(&w, VMCS_GUEST_RIP), 0x3333);
	world_free(&w);
}
END_TEST

START_TEST(vmcs_uncached_under_tlb_flush)
{
	struct world w;
	world64(&w, model_named("skylake-lite"));
	w.m.cpu.tlb_uncached = true;                       /* --tlb flush */
	do_vmxon(&w);
	make_current(&w);
	uint64_t rip = VMCS_A + field_offset(VMCS_GUEST_RIP);
	/* Nothing is kept on the processor: VMWRITE reaches the region at once
	 * and an edit of the region is what VMREAD sees. */
	do_vmwrite(&w, VMCS_GUEST_RIP, 0x1111);
	ck_assert_uint_eq(physmem_read(&w.m.pm, rip, 8), 0x1111);
	physmem_write(&w.m.pm, rip, 8, 0x2222);
	ck_assert_uint_eq(do_vmread(&w, VMCS_GUEST_RIP), 0x2222);
	/* The launch state as well (hvemu's region format). */
	physmem_write(&w.m.pm, VMCS_A + VMCS_LAUNCH_STATE_OFFSET, 4, VMCS_LAUNCHED);
	ck_assert_int_eq(EXEC(&w.m, VMRESUME), ST_OK);          /* launched: on to VM entry, */
	ck_assert_uint_eq(arith_flags(&w), FLAG_ZF);            /* which fails its control checks */
	do_vmclear(&w, VMCS_A);
	ck_assert_uint_eq(physmem_read(&w.m.pm, rip, 8), 0x2222);
	ck_assert_uint_eq(physmem_read(&w.m.pm, VMCS_A + VMCS_LAUNCH_STATE_OFFSET, 4), 0);
	world_free(&w);
}
END_TEST

START_TEST(vmcs_switch_writes_back)
{
	struct world w;
	world64(&w, model_named("skylake-lite"));
	do_vmxon(&w);
	make_current(&w);
	do_vmwrite(&w, VMCS_GUEST_RIP, 0xaaaa);
	do_vmclear(&w, VMCS_B);
	do_vmptrld(&w, VMCS_B);
	do_vmwrite(&w, VMCS_GUEST_RIP, 0xbbbb);
	/* hvemu keeps one VMCS on the processor: A went back to its region when
	 * B was loaded, and comes back with its own data. */
	ck_assert_uint_eq(physmem_read(&w.m.pm, VMCS_A + field_offset(VMCS_GUEST_RIP), 8), 0xaaaa);
	do_vmptrld(&w, VMCS_A);
	ck_assert_uint_eq(do_vmread(&w, VMCS_GUEST_RIP), 0xaaaa);
	do_vmptrld(&w, VMCS_B);
	ck_assert_uint_eq(do_vmread(&w, VMCS_GUEST_RIP), 0xbbbb);
	world_free(&w);
}
END_TEST

START_TEST(vmcs_launch_state_in_region)
{
	struct world w;
	world64(&w, model_named("skylake-lite"));
	do_vmxon(&w);
	/* VMCLEAR makes the launch state clear (SDM Vol.3 30.3 VMCLEAR), in the
	 * region too: a launched VMCS cleared takes VMLAUNCH's checks again. */
	physmem_write(&w.m.pm, VMCS_A + VMCS_LAUNCH_STATE_OFFSET, 4, VMCS_LAUNCHED);
	do_vmptrld(&w, VMCS_A);
	ck_assert_int_eq(EXEC(&w.m, VMRESUME), ST_OK);              /* launched: on to VM entry */
	ck_assert_uint_eq(do_vmread(&w, VMCS_VM_INSTRUCTION_ERROR), 7);   /* a zero VMCS: 26.2.1 */
	do_vmclear(&w, VMCS_A);
	ck_assert_uint_eq(physmem_read(&w.m.pm, VMCS_A + VMCS_LAUNCH_STATE_OFFSET, 4), 0);
	do_vmptrld(&w, VMCS_A);
	ck_assert_int_eq(EXEC(&w.m, VMRESUME), ST_OK);
	ck_assert_uint_eq(arith_flags(&w), FLAG_ZF);
	ck_assert_uint_eq(do_vmread(&w, VMCS_VM_INSTRUCTION_ERROR), 5);
	world_free(&w);
}
END_TEST

START_TEST(vmxoff_drops_the_cached_copy)
{
	struct world w;
	world64(&w, model_named("skylake-lite"));
	do_vmxon(&w);
	make_current(&w);
	do_vmwrite(&w, VMCS_GUEST_RIP, 0x4444);
	/* SDM Vol.3 24.11.1: software VMCLEARs each active VMCS before VMXOFF;
	 * one that does not finds the region as the last VMPTRLD read it, and
	 * after VMXON no VMCS is current (30.3 VMXON). */
	SUCCEED(&w, "vmxoff", VMXOFF);
	ck_assert_uint_eq(physmem_read(&w.m.pm, VMCS_A + field_offset(VMCS_GUEST_RIP), 8), 0);
	do_vmxon(&w);
	check_no_current(&w);
	world_free(&w);
}
END_TEST

START_TEST(vmsucceed_keeps_the_error_field)
{
	struct world w;
	world64(&w, model_named("skylake-lite"));
	do_vmxon(&w);
	make_current(&w);
	w.m.cpu.regs[R_CX] = 0x0830;
	ck_assert_int_eq(EXEC(&w.m, VMREAD_RBX_RCX), ST_OK);
	/* SDM Vol.3 30.2: only VMfailValid writes the VM-instruction error. */
	do_vmwrite(&w, VMCS_GUEST_RIP, 1);
	ck_assert_uint_eq(do_vmread(&w, VMCS_VM_INSTRUCTION_ERROR), 12);
	world_free(&w);
}
END_TEST

START_TEST(init_blocked_in_root)
{
	struct world w;
	world64(&w, model_named("skylake-lite"));
	struct cpu *c = &w.m.cpu;
	do_vmxon(&w);
	/* SDM Vol.3 23.8: "INIT signals are blocked whenever a logical processor
	 * is in VMX root operation"; VMXOFF unblocks them (30.3 VMXOFF). */
	physmem_write_bytes(&w.m.pm, 0x300000, (const uint8_t[]){ 0x90, 0xf4 }, 2);   /* nop; hlt */
	c->rip = 0x300000;
	cpu_set_line(c, LINE_INIT, true);
	c->icount_limit = c->icount + 100;
	ck_assert_int_eq(cpu_run(c), ST_HALT);
	ck_assert(c->lines & LINE_INIT);
	ck_assert_uint_eq(c->seg[SR_CS].selector, SEL_CODE64);
	/* vmxoff; jmp $: the INIT is taken at the boundary after VMXOFF. */
	physmem_write_bytes(&w.m.pm, 0x300010, (const uint8_t[]){ VMXOFF, 0xeb, 0xfe }, 5);
	c->rip = 0x300010;
	c->halted = false;
	c->icount_limit = c->icount + 50;
	status_t st = cpu_run(c);
	ck_assert(st == ST_STOP || st == ST_HALT || st == ST_SHUTDOWN);
	ck_assert(!(c->lines & LINE_INIT));
	ck_assert_int_eq(c->mode, MODE_REAL);                 /* the INIT state (SDM Vol.3 9.1.1) */
	ck_assert(!(c->cr0 & CR0_PG));
	world_free(&w);
}
END_TEST

START_TEST(model_installs_vmx)
{
	struct world w;
	memset(&w, 0, sizeof(w));
	machine_init(&w.m, "skylake-lite");
	/* Without the model the CPU has no VMX: CPUID.1:ECX[5] clear, CR4.VMXE
	 * reserved (emu/cpu_model.h enum hv_ext). */
	ck_assert(!cpu_has(&w.m.cpu, 1, CPUID_ECX, 5));
	ck_assert_int_eq(mov_cr(&w.m, 4, CR4_VMXE), ST_FAULT);
	install(&w);
	ck_assert(cpu_has(&w.m.cpu, 1, CPUID_ECX, 5));
	ck_assert_int_eq(mov_cr(&w.m, 4, CR4_VMXE), ST_OK);
	world_free(&w);
	/* An SVM part gets no VMX model. */
	machine_init(&w.m, "epyc-lite");
	ck_assert_ptr_null(vmx_create(&w.m.cpu, 0));
	machine_free(&w.m);
}
END_TEST

START_TEST(reset_leaves_vmx_operation)
{
	struct world w;
	world64(&w, model_named("skylake-lite"));
	do_vmxon(&w);
	make_current(&w);
	/* cpu_reset() calls the model's reset hook (emu/hv.h): outside VMX
	 * operation again, no current VMCS (SDM Vol.3 23.7). */
	w.m.cpu.hv->reset(w.m.cpu.hv_ctx, &w.m.cpu);
	check_out_of_vmx_operation(&w);
	check_cr_rules_end(&w);
	ck_assert(!(w.m.cpu.hv_holds & HV_HOLD_INIT));
	ck_assert_int_eq(mov_cr(&w.m, 4, CR4_PAE | CR4_VMXE), ST_OK);
	ck_assert_int_eq(mov_cr(&w.m, 0, CR0_PE | CR0_ET | CR0_NE | CR0_PG), ST_OK);
	do_vmxon(&w);
	check_no_current(&w);
	world_free(&w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmx_insn");
	TCase *tc = tcase_create("instructions");
	tcase_add_loop_test(tc, instruction_rows, 0, (int)N_ROWS);
	suite_add_tcase(s, tc);
	tc = tcase_create("vmcs");
	tcase_add_test(tc, vmcs_row_enum_matches_table);
	tcase_add_test(tc, vmcs_widths_64bit_mode);
	tcase_add_test(tc, vmcs_widths_32bit_mode);
	tcase_add_test(tc, vmcs_cache_hides_region_edits);
	tcase_add_test(tc, vmcs_uncached_under_tlb_flush);
	tcase_add_test(tc, vmcs_switch_writes_back);
	tcase_add_test(tc, vmcs_launch_state_in_region);
	tcase_add_test(tc, vmxoff_drops_the_cached_copy);
	tcase_add_test(tc, vmsucceed_keeps_the_error_field);
	suite_add_tcase(s, tc);
	tc = tcase_create("model");
	tcase_add_test(tc, model_installs_vmx);
	tcase_add_test(tc, init_blocked_in_root);
	tcase_add_test(tc, reset_leaves_vmx_operation);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
