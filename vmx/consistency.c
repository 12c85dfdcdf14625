/* The checks of VM entry (SDM Vol.3 26.2 "Checks on VMX Controls and
 * Host-State Area", 26.3.1 "Checks on the Guest State Area"): one row per
 * rule, in the SDM's order, each named as `--trace vmexit` shows it; the
 * engine (emu/check_table.h) reports the first that fails. What a failure
 * does is the row's outcome: VMfailValid(7) for the controls, VMfailValid(8)
 * for the host state (L1 continues after VMLAUNCH/VMRESUME), a VM-entry
 * failure with exit reason 33 (bit 31 set) for the guest state (26.8).
 */
#include "vmx/exit_reasons.h"
#include "vmx/model.h"

/* ---- what the rows look at ---- */

static struct vmx *model(const void *ctx)
{
	return (struct vmx *)(uintptr_t)ctx;
}

static uint64_t field(const void *ctx, enum vmcs_row row)
{
	return vmcs_get(model(ctx), row);
}

static bool ctl_bit(const void *ctx, enum vmcs_row row, unsigned bit)
{
	return field(ctx, row) & VMX_CTL(bit);
}

/* SDM Vol.3 A.2: with IA32_VMX_BASIC[55] the TRUE_* MSRs report the
 * default1 controls that may be 0; VM entry checks against them. */
static uint64_t ctl_cap(const void *ctx, uint32_t msr, uint32_t true_msr)
{
	struct vmx *v = model(ctx);
	return vmx_cap(v, (vmx_cap(v, MSR_VMX_BASIC) & VMX_BASIC_TRUE_CTLS) ? true_msr : msr);
}

/* "the secondary processor-based VM-execution controls" are used only when
 * "activate secondary controls" is 1; otherwise VM entry treats them as 0
 * (SDM Vol.3 24.6.2). */
static uint32_t proc2(const void *ctx)
{
	if (!ctl_bit(ctx, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_PROC_SECONDARY_CONTROLS))
		return 0;
	return (uint32_t)field(ctx, VMCS_ROW_SECONDARY_PROC_CONTROLS);
}

/* ---- 26.2.1.1 VM-execution control fields, 26.2.1.2 VM-exit, 26.2.1.3 VM-entry ---- */

static bool pin_reserved(const void *ctx)
{
	return !vmx_ctl_valid(ctl_cap(ctx, MSR_VMX_PINBASED_CTLS, MSR_VMX_TRUE_PINBASED_CTLS),
			      (uint32_t)field(ctx, VMCS_ROW_PIN_BASED_CONTROLS));
}

static bool proc_reserved(const void *ctx)
{
	return !vmx_ctl_valid(ctl_cap(ctx, MSR_VMX_PROCBASED_CTLS, MSR_VMX_TRUE_PROCBASED_CTLS),
			      (uint32_t)field(ctx, VMCS_ROW_PRIMARY_PROC_CONTROLS));
}

static bool proc2_reserved(const void *ctx)
{
	return !vmx_ctl_valid(vmx_cap(model(ctx), MSR_VMX_PROCBASED_CTLS2), proc2(ctx));
}

static bool exit_reserved(const void *ctx)
{
	return !vmx_ctl_valid(ctl_cap(ctx, MSR_VMX_EXIT_CTLS, MSR_VMX_TRUE_EXIT_CTLS),
			      (uint32_t)field(ctx, VMCS_ROW_EXIT_CONTROLS));
}

static bool entry_reserved(const void *ctx)
{
	return !vmx_ctl_valid(ctl_cap(ctx, MSR_VMX_ENTRY_CTLS, MSR_VMX_TRUE_ENTRY_CTLS),
			      (uint32_t)field(ctx, VMCS_ROW_ENTRY_CONTROLS));
}

/* ---- 26.2.2 host control registers ---- */

static bool host_cr0_fixed(const void *ctx)
{
	struct vmx *v = model(ctx);
	return !vmx_cr_fixed_valid(vmx_cap(v, MSR_VMX_CR0_FIXED0), vmx_cap(v, MSR_VMX_CR0_FIXED1),
				   field(ctx, VMCS_ROW_HOST_CR0));
}

static bool host_cr4_fixed(const void *ctx)
{
	struct vmx *v = model(ctx);
	return !vmx_cr_fixed_valid(vmx_cap(v, MSR_VMX_CR4_FIXED0), vmx_cap(v, MSR_VMX_CR4_FIXED1),
				   field(ctx, VMCS_ROW_HOST_CR4));
}

/* ---- 26.3.1.1 guest control registers ---- */

/* "The CR0 field must not set any bit to a value not supported in VMX
 * operation (see Section 23.8). The following are exceptions: PE (bit 0)
 * and PG (bit 31) are not checked if the 'unrestricted guest' VM-execution
 * control is 1." */
static bool guest_cr0_fixed(const void *ctx)
{
	struct vmx *v = model(ctx);
	uint64_t fixed0 = vmx_cap(v, MSR_VMX_CR0_FIXED0);
	if (proc2(ctx) & VMX_CTL(VMX_PROC2_UNRESTRICTED_GUEST))
		fixed0 &= ~(uint64_t)(CR0_PE | CR0_PG);
	return !vmx_cr_fixed_valid(fixed0, vmx_cap(v, MSR_VMX_CR0_FIXED1), field(ctx, VMCS_ROW_GUEST_CR0));
}

static bool guest_cr4_fixed(const void *ctx)
{
	struct vmx *v = model(ctx);
	return !vmx_cr_fixed_valid(vmx_cap(v, MSR_VMX_CR4_FIXED0), vmx_cap(v, MSR_VMX_CR4_FIXED1),
				   field(ctx, VMCS_ROW_GUEST_CR4));
}

/* ---- the tables ---- */

#define CONTROLS_FAIL   { EXIT_REPORT_VMFAIL_VALID, VMXERR_ENTRY_INVALID_CONTROL, 0 }
#define HOST_FAIL       { EXIT_REPORT_VMFAIL_VALID, VMXERR_ENTRY_INVALID_HOST_STATE, 0 }
/* 26.8: exit reason 33 with bit 31 set; the exit qualification is 0 except
 * for the cases SDM Vol.3 26.8 numbers (2 PDPTE loading, 3 NMI injection
 * with virtual NMIs blocked, 4 VMCS link pointer). */
#define GUEST_FAIL(q)   { EXIT_REPORT_ENTRY_FAILURE, \
			  VMX_EXIT_ENTRY_FAILURE | VMX_EXIT_INVALID_GUEST_STATE, (q) }

static const struct check_row control_checks[] = {
	{ "SDM Vol.3 26.2.1.1: a pin-based VM-execution control has a reserved setting (IA32_VMX_(TRUE_)PINBASED_CTLS)",
	  pin_reserved, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: a primary processor-based VM-execution control has a reserved setting (IA32_VMX_(TRUE_)PROCBASED_CTLS)",
	  proc_reserved, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: a secondary processor-based VM-execution control has a reserved setting (IA32_VMX_PROCBASED_CTLS2)",
	  proc2_reserved, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.2: a VM-exit control has a reserved setting (IA32_VMX_(TRUE_)EXIT_CTLS)",
	  exit_reserved, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.3: a VM-entry control has a reserved setting (IA32_VMX_(TRUE_)ENTRY_CTLS)",
	  entry_reserved, CONTROLS_FAIL },
};

static const struct check_row host_checks[] = {
	{ "SDM Vol.3 26.2.2: host CR0 sets a bit not supported in VMX operation (IA32_VMX_CR0_FIXED0/1)",
	  host_cr0_fixed, HOST_FAIL },
	{ "SDM Vol.3 26.2.2: host CR4 sets a bit not supported in VMX operation (IA32_VMX_CR4_FIXED0/1)",
	  host_cr4_fixed, HOST_FAIL },
};

static const struct check_row guest_checks[] = {
	{ "SDM Vol.3 26.3.1.1: guest CR0 sets a bit not supported in VMX operation (PE, PG exempt under unrestricted guest)",
	  guest_cr0_fixed, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: guest CR4 sets a bit not supported in VMX operation (IA32_VMX_CR4_FIXED0/1)",
	  guest_cr4_fixed, GUEST_FAIL(0) },
};

#define FIRST_FAILURE(rows, v) check_table_first_failure((rows), sizeof(rows) / sizeof((rows)[0]), (v))

const struct check_row *vmx_check_controls(struct vmx *v)
{
	return FIRST_FAILURE(control_checks, v);
}

const struct check_row *vmx_check_host_state(struct vmx *v)
{
	return FIRST_FAILURE(host_checks, v);
}

const struct check_row *vmx_check_guest_state(struct vmx *v)
{
	return FIRST_FAILURE(guest_checks, v);
}
