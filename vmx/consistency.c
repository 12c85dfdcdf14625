/* The checks of VM entry on the VMX controls and the host-state area (SDM
 * Vol.3 26.2 "Checks on VMX Controls and Host-State Area"): one row per rule,
 * in the SDM's order, each named as `--trace vmexit` shows it; the engine
 * (emu/check_table.h) reports the first that fails. A failure of a control
 * row is VMfailValid(7), of a host row VMfailValid(8): L1 continues after
 * VMLAUNCH/VMRESUME. The guest-state checks (26.3.1) are guest_checks.c's;
 * what both look at is check_view.h.
 */
#include <string.h>

#include "emu/debug.h"
#include "emu/world_state.h"
#include "mmu/nested.h"
#include "mmu/paging.h"
#include "vmx/check_view.h"

/* ---- 26.2.1.1 VM-execution control fields ---- */

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
	return !vmx_ctl_valid(vmx_cap(fixed(ctx), MSR_VMX_PROCBASED_CTLS2), proc2(ctx));
}

/* 64-bit, allowed-1 only (A.3.4); checked only with "activate tertiary
 * controls" = 1. */
static bool proc3_reserved(const void *ctx)
{
	if (!proc_on(ctx, VMX_PROC_TERTIARY_CONTROLS))
		return false;
	return !vmx_ctl64_valid(vmx_cap(fixed(ctx), MSR_VMX_PROCBASED_CTLS3),
				field(ctx, VMCS_ROW_TERTIARY_PROC_CONTROLS));
}

/* "The CR3-target count must not be greater than 4": the number IA32_VMX_MISC
 * bits 24:16 report (A.6). */
static bool cr3_target_count(const void *ctx)
{
	uint64_t n = (vmx_cap(fixed(ctx), MSR_VMX_MISC) & VMX_MISC_CR3_TARGETS_MASK) >> VMX_MISC_CR3_TARGETS_SHIFT;
	return (uint32_t)field(ctx, VMCS_ROW_CR3_TARGET_COUNT) > n;
}

static bool io_bitmap_addr(const void *ctx)
{
	return proc_on(ctx, VMX_PROC_IO_BITMAPS) &&
	       (bad_address(ctx, VMCS_ROW_IO_BITMAP_A, 4096) || bad_address(ctx, VMCS_ROW_IO_BITMAP_B, 4096));
}

static bool msr_bitmap_addr(const void *ctx)
{
	return proc_on(ctx, VMX_PROC_MSR_BITMAPS) && bad_address(ctx, VMCS_ROW_MSR_BITMAP, 4096);
}

static bool virtual_apic_addr(const void *ctx)
{
	return proc_on(ctx, VMX_PROC_TPR_SHADOW) && bad_address(ctx, VMCS_ROW_VIRTUAL_APIC_ADDR, 4096);
}

static bool tpr_threshold_high(const void *ctx)
{
	return proc_on(ctx, VMX_PROC_TPR_SHADOW) && !proc2_on(ctx, VMX_PROC2_VIRTUAL_INTR_DELIVERY) &&
	       ((uint32_t)field(ctx, VMCS_ROW_TPR_THRESHOLD) >> 4);
}

/* TPR threshold bits 3:0 against VTPR bits 7:4, VTPR being byte 80H of the
 * virtual-APIC page (SDM Vol.3 29.1.1), read from memory at entry. */
static bool tpr_threshold_above_vtpr(const void *ctx)
{
	if (!proc_on(ctx, VMX_PROC_TPR_SHADOW) || proc2_on(ctx, VMX_PROC2_VIRTUALIZE_APIC) ||
	    proc2_on(ctx, VMX_PROC2_VIRTUAL_INTR_DELIVERY))
		return false;
	uint64_t vtpr = physmem_read(model(ctx)->cpu->mem, field(ctx, VMCS_ROW_VIRTUAL_APIC_ADDR) + 0x80, 1);
	return (field(ctx, VMCS_ROW_TPR_THRESHOLD) & 0xf) > ((vtpr >> 4) & 0xf);
}

static bool apic_virt_without_tpr_shadow(const void *ctx)
{
	return !proc_on(ctx, VMX_PROC_TPR_SHADOW) &&
	       (proc2_on(ctx, VMX_PROC2_VIRTUALIZE_X2APIC) || proc2_on(ctx, VMX_PROC2_APIC_REGISTER_VIRT) ||
		proc2_on(ctx, VMX_PROC2_VIRTUAL_INTR_DELIVERY));
}

static bool x2apic_and_apic_accesses(const void *ctx)
{
	return proc2_on(ctx, VMX_PROC2_VIRTUALIZE_X2APIC) && proc2_on(ctx, VMX_PROC2_VIRTUALIZE_APIC);
}

static bool vid_without_ext_intr_exiting(const void *ctx)
{
	return proc2_on(ctx, VMX_PROC2_VIRTUAL_INTR_DELIVERY) && !pin_on(ctx, VMX_PIN_EXT_INTR_EXITING);
}

static bool posted_without_vid(const void *ctx)
{
	return pin_on(ctx, VMX_PIN_POSTED_INTERRUPTS) && !proc2_on(ctx, VMX_PROC2_VIRTUAL_INTR_DELIVERY);
}

static bool posted_without_ack(const void *ctx)
{
	return pin_on(ctx, VMX_PIN_POSTED_INTERRUPTS) && !exit_on(ctx, VMX_EXITCTL_ACK_INTR_ON_EXIT);
}

static bool posted_vector(const void *ctx)
{
	return pin_on(ctx, VMX_PIN_POSTED_INTERRUPTS) && (field(ctx, VMCS_ROW_POSTED_INTR_NV) & 0xff00);
}

static bool posted_desc_addr(const void *ctx)
{
	return pin_on(ctx, VMX_PIN_POSTED_INTERRUPTS) && bad_address(ctx, VMCS_ROW_POSTED_INTR_DESC_ADDR, 64);
}

static bool virtual_nmis_without_nmi_exiting(const void *ctx)
{
	return !pin_on(ctx, VMX_PIN_NMI_EXITING) && pin_on(ctx, VMX_PIN_VIRTUAL_NMIS);
}

static bool nmi_window_without_virtual_nmis(const void *ctx)
{
	return !pin_on(ctx, VMX_PIN_VIRTUAL_NMIS) && proc_on(ctx, VMX_PROC_NMI_WINDOW_EXITING);
}

static bool apic_access_addr(const void *ctx)
{
	return proc2_on(ctx, VMX_PROC2_VIRTUALIZE_APIC) && bad_address(ctx, VMCS_ROW_APIC_ACCESS_ADDR, 4096);
}

static bool vpid_zero(const void *ctx)
{
	return proc2_on(ctx, VMX_PROC2_VPID) && field(ctx, VMCS_ROW_VPID) == 0;
}

/* The EPTP rules are mmu/nested.c's ept_eptp_check(), which names the first
 * broken one in the SDM's order; a row per rule, each true only for its own
 * answer, keeps the table's first-failure order the same. */
static bool eptp_is(const void *ctx, enum eptp_check which)
{
	if (!proc2_on(ctx, VMX_PROC2_EPT))
		return false;
	const struct vmx *v = fixed(ctx);
	return ept_eptp_check(field(ctx, VMCS_ROW_EPT_POINTER), vmx_cap(v, MSR_VMX_EPT_VPID_CAP),
			      v->cpu->maxphyaddr) == which;
}

static bool eptp_memtype(const void *ctx) { return eptp_is(ctx, EPTP_BAD_MEMTYPE); }
static bool eptp_walk_length(const void *ctx) { return eptp_is(ctx, EPTP_BAD_WALK_LENGTH); }
static bool eptp_ad(const void *ctx) { return eptp_is(ctx, EPTP_AD_UNSUPPORTED); }
static bool eptp_sss(const void *ctx) { return eptp_is(ctx, EPTP_SSS_UNSUPPORTED); }
static bool eptp_reserved(const void *ctx) { return eptp_is(ctx, EPTP_RESERVED_BITS); }

static bool pml_without_ept(const void *ctx)
{
	return proc2_on(ctx, VMX_PROC2_PML) && !proc2_on(ctx, VMX_PROC2_EPT);
}

static bool pml_addr(const void *ctx)
{
	return proc2_on(ctx, VMX_PROC2_PML) && bad_address(ctx, VMCS_ROW_PML_ADDRESS, 4096);
}

static bool unrestricted_without_ept(const void *ctx)
{
	return proc2_on(ctx, VMX_PROC2_UNRESTRICTED_GUEST) && !proc2_on(ctx, VMX_PROC2_EPT);
}

static bool mbec_without_ept(const void *ctx)
{
	return proc2_on(ctx, VMX_PROC2_MODE_BASED_EPT_EXEC) && !proc2_on(ctx, VMX_PROC2_EPT);
}

static bool spp_without_ept(const void *ctx)
{
	return proc2_on(ctx, VMX_PROC2_SUBPAGE_WRITE) && !proc2_on(ctx, VMX_PROC2_EPT);
}

static bool spptp_addr(const void *ctx)
{
	return proc2_on(ctx, VMX_PROC2_SUBPAGE_WRITE) && bad_address(ctx, VMCS_ROW_SPPT_POINTER, 4096);
}

static bool vmfunc_reserved(const void *ctx)
{
	return proc2_on(ctx, VMX_PROC2_VM_FUNCTIONS) &&
	       !vmx_ctl64_valid(vmx_cap(fixed(ctx), MSR_VMX_VMFUNC), field(ctx, VMCS_ROW_VM_FUNCTION_CONTROLS));
}

static bool eptp_switching(const void *ctx)
{
	return proc2_on(ctx, VMX_PROC2_VM_FUNCTIONS) &&
	       (field(ctx, VMCS_ROW_VM_FUNCTION_CONTROLS) & VMX_VMFUNC_EPTP_SWITCHING);
}

static bool eptp_switching_without_ept(const void *ctx)
{
	return eptp_switching(ctx) && !proc2_on(ctx, VMX_PROC2_EPT);
}

static bool eptp_list_addr(const void *ctx)
{
	return eptp_switching(ctx) && bad_address(ctx, VMCS_ROW_EPTP_LIST_ADDR, 4096);
}

static bool vmread_bitmap_addr(const void *ctx)
{
	return proc2_on(ctx, VMX_PROC2_VMCS_SHADOWING) && bad_address(ctx, VMCS_ROW_VMREAD_BITMAP, 4096);
}

static bool vmwrite_bitmap_addr(const void *ctx)
{
	return proc2_on(ctx, VMX_PROC2_VMCS_SHADOWING) && bad_address(ctx, VMCS_ROW_VMWRITE_BITMAP, 4096);
}

static bool ve_info_addr(const void *ctx)
{
	return proc2_on(ctx, VMX_PROC2_EPT_VIOLATION_VE) && bad_address(ctx, VMCS_ROW_VE_INFO_ADDR, 4096);
}

static bool pt_guest_physical(const void *ctx)
{
	return proc2_on(ctx, VMX_PROC2_PT_GUEST_PHYSICAL) &&
	       (!proc2_on(ctx, VMX_PROC2_EPT) || !entry_on(ctx, VMX_ENTRYCTL_LOAD_RTIT_CTL) ||
		!exit_on(ctx, VMX_EXITCTL_CLEAR_RTIT_CTL));
}

/* ---- 26.2.1.2 VM-exit control fields ---- */

static bool exit_reserved(const void *ctx)
{
	return !vmx_ctl_valid(ctl_cap(ctx, MSR_VMX_EXIT_CTLS, MSR_VMX_TRUE_EXIT_CTLS),
			      (uint32_t)field(ctx, VMCS_ROW_EXIT_CONTROLS));
}

/* The secondary VM-exit controls: 64-bit, allowed-1 only (A.4.2); checked
 * only with "activate secondary controls" (VM-exit control 31) = 1. */
static bool exit2_reserved(const void *ctx)
{
	if (!exit_on(ctx, VMX_EXITCTL_SECONDARY_CONTROLS))
		return false;
	return !vmx_ctl64_valid(vmx_cap(fixed(ctx), MSR_VMX_EXIT_CTLS2),
				field(ctx, VMCS_ROW_SECONDARY_EXIT_CONTROLS));
}

static bool save_timer_without_timer(const void *ctx)
{
	return !pin_on(ctx, VMX_PIN_PREEMPTION_TIMER) && exit_on(ctx, VMX_EXITCTL_SAVE_PREEMPTION_TIMER);
}

/* An MSR list of count 16-byte entries at addr: with count != 0, bits 3:0 of
 * the address 0, and neither the address nor that of the list's last byte
 * beyond the physical-address width. */
static bool bad_msr_list(const void *ctx, enum vmcs_row count_row, enum vmcs_row addr_row)
{
	uint32_t count = (uint32_t)field(ctx, count_row);
	uint64_t addr = field(ctx, addr_row);
	if (!count)
		return false;
	return (addr & 0xf) || beyond_maxphyaddr(ctx, addr) || beyond_maxphyaddr(ctx, addr + 16ull * count - 1);
}

static bool exit_msr_store_list(const void *ctx)
{
	return bad_msr_list(ctx, VMCS_ROW_EXIT_MSR_STORE_COUNT, VMCS_ROW_EXIT_MSR_STORE_ADDR);
}

static bool exit_msr_load_list(const void *ctx)
{
	return bad_msr_list(ctx, VMCS_ROW_EXIT_MSR_LOAD_COUNT, VMCS_ROW_EXIT_MSR_LOAD_ADDR);
}

/* ---- 26.2.1.3 VM-entry control fields ---- */

static bool entry_reserved(const void *ctx)
{
	return !vmx_ctl_valid(ctl_cap(ctx, MSR_VMX_ENTRY_CTLS, MSR_VMX_TRUE_ENTRY_CTLS),
			      (uint32_t)field(ctx, VMCS_ROW_ENTRY_CONTROLS));
}


static bool inj_type_reserved(const void *ctx)
{
	uint32_t info = injected(ctx);
	if (!info)
		return false;
	unsigned type = inj_type(info);
	/* 1 is reserved everywhere; 7 (other event) without the 1-setting of
	 * "monitor trap flag". */
	return type == 1 || (type == VMX_INTR_OTHER &&
			     !vmx_allows(fixed(ctx), MSR_VMX_PROCBASED_CTLS, VMX_PROC_MONITOR_TRAP_FLAG));
}

static bool inj_nmi_vector(const void *ctx)
{
	uint32_t info = injected(ctx);
	return info && inj_type(info) == VMX_INTR_NMI && inj_vector(info) != EXC_NMI;
}

static bool inj_exception_vector(const void *ctx)
{
	uint32_t info = injected(ctx);
	return info && inj_type(info) == VMX_INTR_HW_EXCEPTION && inj_vector(info) > 31;
}

static bool inj_other_vector(const void *ctx)
{
	uint32_t info = injected(ctx);
	return info && inj_type(info) == VMX_INTR_OTHER && inj_vector(info) != 0;
}

/* The guest will be in protected mode: "unrestricted guest" is 0 or the CR0
 * field has PE. */
static bool guest_protected(const void *ctx)
{
	return !proc2_on(ctx, VMX_PROC2_UNRESTRICTED_GUEST) || (field(ctx, VMCS_ROW_GUEST_CR0) & CR0_PE);
}

/* The exceptions that deliver an error code: #DF, #TS, #NP, #SS, #GP, #PF,
 * #AC. */
static bool vector_has_error_code(unsigned vector)
{
	return vector < 32 && ((1u << EXC_DF) | (1u << EXC_TS) | (1u << EXC_NP) | (1u << EXC_SS) |
			       (1u << EXC_GP) | (1u << EXC_PF) | (1u << EXC_AC)) & (1u << vector);
}

/* With IA32_VMX_BASIC[56] (A.1) the processor lets a hardware exception be
 * injected with or without an error code whatever its vector: the rules tied
 * to the vector are not checked. */
static bool any_error_code(const void *ctx)
{
	return vmx_cap(fixed(ctx), MSR_VMX_BASIC) & VMX_BASIC_NO_HW_ERRCODE_CHECK;
}

static bool inj_error_code_missing(const void *ctx)
{
	uint32_t info = injected(ctx);
	return info && !(info & VMX_INTR_DELIVER_ERROR) && !any_error_code(ctx) && guest_protected(ctx) &&
	       inj_type(info) == VMX_INTR_HW_EXCEPTION && vector_has_error_code(inj_vector(info));
}

static bool inj_error_code_unexpected(const void *ctx)
{
	uint32_t info = injected(ctx);
	if (!info || !(info & VMX_INTR_DELIVER_ERROR))
		return false;
	return !guest_protected(ctx) || inj_type(info) != VMX_INTR_HW_EXCEPTION ||
	       (!any_error_code(ctx) && !vector_has_error_code(inj_vector(info)));
}

static bool inj_reserved(const void *ctx)
{
	return injected(ctx) & VMX_INTR_ENTRY_RESERVED;
}

static bool inj_error_code_high(const void *ctx)
{
	return (injected(ctx) & VMX_INTR_DELIVER_ERROR) &&
	       ((uint32_t)field(ctx, VMCS_ROW_ENTRY_EXCEPTION_ERROR_CODE) >> 16);
}

static bool inj_software(const void *ctx)
{
	unsigned type = inj_type(injected(ctx));
	return injected(ctx) && (type == VMX_INTR_SOFT_INT || type == VMX_INTR_PRIV_SOFT_EXCEPTION ||
				 type == VMX_INTR_SOFT_EXCEPTION);
}

static bool inj_length_range(const void *ctx)
{
	return inj_software(ctx) && (uint32_t)field(ctx, VMCS_ROW_ENTRY_INSTRUCTION_LEN) > 15;
}

static bool inj_length_zero(const void *ctx)
{
	return inj_software(ctx) && field(ctx, VMCS_ROW_ENTRY_INSTRUCTION_LEN) == 0 &&
	       !(vmx_cap(fixed(ctx), MSR_VMX_MISC) & VMX_MISC_INJECT_ZERO_LENGTH);
}

/* hvemu has no system-management mode: VM entry never runs in SMM. The
 * third rule, that "entry to SMM" and "deactivate dual-monitor treatment"
 * are not both 1, is therefore always caught by these two first and has no
 * row. */
static bool entry_to_smm(const void *ctx)
{
	return entry_on(ctx, VMX_ENTRYCTL_TO_SMM);
}

static bool deactivate_dual_monitor(const void *ctx)
{
	return entry_on(ctx, VMX_ENTRYCTL_DEACTIVATE_DUAL_MONITOR);
}

static bool entry_msr_load_list(const void *ctx)
{
	return bad_msr_list(ctx, VMCS_ROW_ENTRY_MSR_LOAD_COUNT, VMCS_ROW_ENTRY_MSR_LOAD_ADDR);
}

/* ---- 26.2.2 host control registers ---- */

static bool host_cr0_fixed(const void *ctx)
{
	const struct vmx *v = fixed(ctx);
	return !vmx_cr_fixed_valid(vmx_cap(v, MSR_VMX_CR0_FIXED0), vmx_cap(v, MSR_VMX_CR0_FIXED1),
				   field(ctx, VMCS_ROW_HOST_CR0));
}

static bool host_cr4_fixed(const void *ctx)
{
	const struct vmx *v = fixed(ctx);
	return !vmx_cr_fixed_valid(vmx_cap(v, MSR_VMX_CR4_FIXED0), vmx_cap(v, MSR_VMX_CR4_FIXED1),
				   field(ctx, VMCS_ROW_HOST_CR4));
}

/* "If bit 23 in the CR4 field (corresponding to CET) is 1, bit 16 in the CR0
 * field (WP) must also be 1." (CR4_CET_BIT: check_view.h) */
static bool host_cet_without_wp(const void *ctx)
{
	return (field(ctx, VMCS_ROW_HOST_CR4) & CR4_CET_BIT) && !(field(ctx, VMCS_ROW_HOST_CR0) & CR0_WP);
}

static bool host_cr3_width(const void *ctx)
{
	return beyond_maxphyaddr(ctx, field(ctx, VMCS_ROW_HOST_CR3));
}

static bool host_sysenter_canonical(const void *ctx)
{
	return not_canonical(ctx, VMCS_ROW_HOST_IA32_SYSENTER_ESP) ||
	       not_canonical(ctx, VMCS_ROW_HOST_IA32_SYSENTER_EIP);
}


static bool host_cet_canonical(const void *ctx)
{
	return exit_on(ctx, VMX_EXITCTL_LOAD_CET_STATE) &&
	       (not_canonical(ctx, VMCS_ROW_HOST_IA32_S_CET) ||
		not_canonical(ctx, VMCS_ROW_HOST_INTR_SSP_TABLE_ADDR));
}

static bool host_s_cet_reserved(const void *ctx)
{
	return exit_on(ctx, VMX_EXITCTL_LOAD_CET_STATE) && (field(ctx, VMCS_ROW_HOST_IA32_S_CET) & S_CET_RESERVED);
}

/* Host SSP: canonical for a 64-bit host, bits 63:32 0 for a 32-bit one. */
static bool host_ssp(const void *ctx)
{
	if (!exit_on(ctx, VMX_EXITCTL_LOAD_CET_STATE))
		return false;
	return exit_on(ctx, VMX_EXITCTL_HOST_ADDR_SPACE_SIZE) ? not_canonical(ctx, VMCS_ROW_HOST_SSP)
							      : (field(ctx, VMCS_ROW_HOST_SSP) >> 32) != 0;
}

static bool host_perf_global_ctrl(const void *ctx)
{
	return exit_on(ctx, VMX_EXITCTL_LOAD_PERF_GLOBAL_CTRL) &&
	       (field(ctx, VMCS_ROW_HOST_IA32_PERF_GLOBAL_CTRL) & ~PERF_GLOBAL_CTRL_VALID);
}

static bool host_pat(const void *ctx)
{
	return exit_on(ctx, VMX_EXITCTL_LOAD_PAT) && pat_invalid(field(ctx, VMCS_ROW_HOST_IA32_PAT));
}

static bool host_efer_reserved(const void *ctx)
{
	return exit_on(ctx, VMX_EXITCTL_LOAD_EFER) &&
	       (field(ctx, VMCS_ROW_HOST_IA32_EFER) & ~cpu_efer_valid_bits(fixed(ctx)->cpu));
}

static bool host_efer_mode(const void *ctx)
{
	if (!exit_on(ctx, VMX_EXITCTL_LOAD_EFER))
		return false;
	uint64_t efer = field(ctx, VMCS_ROW_HOST_IA32_EFER);
	bool size = exit_on(ctx, VMX_EXITCTL_HOST_ADDR_SPACE_SIZE);
	return !!(efer & EFER_LMA) != size || !!(efer & EFER_LME) != size;
}

static bool host_pkrs(const void *ctx)
{
	return exit_on(ctx, VMX_EXITCTL_LOAD_PKRS) && (field(ctx, VMCS_ROW_HOST_IA32_PKRS) >> 32);
}

/* ---- 26.2.3 host segment and descriptor-table registers ---- */

static bool host_selector_rpl_ti(const void *ctx)
{
	for (enum vmcs_row r = VMCS_ROW_HOST_ES_SELECTOR; r <= VMCS_ROW_HOST_TR_SELECTOR; r++)
		if (field(ctx, r) & 7)
			return true;
	return false;
}

static bool host_cs_tr_null(const void *ctx)
{
	return field(ctx, VMCS_ROW_HOST_CS_SELECTOR) == 0 || field(ctx, VMCS_ROW_HOST_TR_SELECTOR) == 0;
}

static bool host_ss_null(const void *ctx)
{
	return !exit_on(ctx, VMX_EXITCTL_HOST_ADDR_SPACE_SIZE) && field(ctx, VMCS_ROW_HOST_SS_SELECTOR) == 0;
}

static bool host_bases_canonical(const void *ctx)
{
	return not_canonical(ctx, VMCS_ROW_HOST_FS_BASE) || not_canonical(ctx, VMCS_ROW_HOST_GS_BASE) ||
	       not_canonical(ctx, VMCS_ROW_HOST_GDTR_BASE) || not_canonical(ctx, VMCS_ROW_HOST_IDTR_BASE) ||
	       not_canonical(ctx, VMCS_ROW_HOST_TR_BASE);
}

/* ---- 26.2.4 address-space size ----
 * "IA-32e mode" is the processor's when it executes VMLAUNCH/VMRESUME
 * (IA32_EFER.LMA). Every VMX model has Intel 64. The SDM's rule that with
 * "host address-space size" = 0 the "IA-32e mode guest" control is 0 has no
 * row: outside IA-32e mode the first row below catches it, inside it the
 * host address-space size must be 1 (third row). */

static bool in_ia32e(const void *ctx)
{
	return processor_lma(ctx);
}

static bool legacy_host_ia32e_guest(const void *ctx)
{
	return !in_ia32e(ctx) && entry_on(ctx, VMX_ENTRYCTL_IA32E_MODE_GUEST);
}

static bool legacy_host_size(const void *ctx)
{
	return !in_ia32e(ctx) && exit_on(ctx, VMX_EXITCTL_HOST_ADDR_SPACE_SIZE);
}

static bool ia32e_host_size(const void *ctx)
{
	return in_ia32e(ctx) && !exit_on(ctx, VMX_EXITCTL_HOST_ADDR_SPACE_SIZE);
}

static bool host32_pcide(const void *ctx)
{
	return !exit_on(ctx, VMX_EXITCTL_HOST_ADDR_SPACE_SIZE) && (field(ctx, VMCS_ROW_HOST_CR4) & CR4_PCIDE);
}

static bool host32_rip(const void *ctx)
{
	return !exit_on(ctx, VMX_EXITCTL_HOST_ADDR_SPACE_SIZE) && (field(ctx, VMCS_ROW_HOST_RIP) >> 32);
}

static bool host64_pae(const void *ctx)
{
	return exit_on(ctx, VMX_EXITCTL_HOST_ADDR_SPACE_SIZE) && !(field(ctx, VMCS_ROW_HOST_CR4) & CR4_PAE);
}

static bool host64_rip(const void *ctx)
{
	return exit_on(ctx, VMX_EXITCTL_HOST_ADDR_SPACE_SIZE) && not_canonical(ctx, VMCS_ROW_HOST_RIP);
}

/* ---- the tables ---- */

static const struct check_row control_checks[] = {
	{ "SDM Vol.3 26.2.1.1: a pin-based VM-execution control has a reserved setting (IA32_VMX_(TRUE_)PINBASED_CTLS)",
	  pin_reserved, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: a primary processor-based VM-execution control has a reserved setting (IA32_VMX_(TRUE_)PROCBASED_CTLS)",
	  proc_reserved, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: a secondary processor-based VM-execution control has a reserved setting (IA32_VMX_PROCBASED_CTLS2)",
	  proc2_reserved, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: a tertiary processor-based VM-execution control has a reserved setting (IA32_VMX_PROCBASED_CTLS3)",
	  proc3_reserved, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: the CR3-target count is greater than IA32_VMX_MISC[24:16]",
	  cr3_target_count, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: use I/O bitmaps: an I/O-bitmap address is not 4-KByte aligned or beyond the physical-address width",
	  io_bitmap_addr, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: use MSR bitmaps: the MSR-bitmap address is not 4-KByte aligned or beyond the physical-address width",
	  msr_bitmap_addr, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: use TPR shadow: the virtual-APIC address is not 4-KByte aligned or beyond the physical-address width",
	  virtual_apic_addr, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: use TPR shadow without virtual-interrupt delivery: TPR threshold bits 31:4 are not 0",
	  tpr_threshold_high, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: use TPR shadow without APIC-access or interrupt virtualization: TPR threshold bits 3:0 exceed VTPR bits 7:4",
	  tpr_threshold_above_vtpr, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: virtual NMIs without NMI exiting",
	  virtual_nmis_without_nmi_exiting, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: NMI-window exiting without virtual NMIs",
	  nmi_window_without_virtual_nmis, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: virtualize APIC accesses: the APIC-access address is not 4-KByte aligned or beyond the physical-address width",
	  apic_access_addr, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: virtualize x2APIC mode, APIC-register virtualization or virtual-interrupt delivery without use TPR shadow",
	  apic_virt_without_tpr_shadow, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: virtualize x2APIC mode together with virtualize APIC accesses",
	  x2apic_and_apic_accesses, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: virtual-interrupt delivery without external-interrupt exiting",
	  vid_without_ext_intr_exiting, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: process posted interrupts without virtual-interrupt delivery",
	  posted_without_vid, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: process posted interrupts without acknowledge interrupt on exit",
	  posted_without_ack, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: process posted interrupts: notification vector bits 15:8 are not 0",
	  posted_vector, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: process posted interrupts: the descriptor address is not 64-byte aligned or beyond the physical-address width",
	  posted_desc_addr, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: enable VPID with a VPID of 0000H",
	  vpid_zero, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: enable EPT: the EPTP memory type is not one IA32_VMX_EPT_VPID_CAP allows",
	  eptp_memtype, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: enable EPT: the EPTP page-walk length is not one IA32_VMX_EPT_VPID_CAP allows",
	  eptp_walk_length, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: enable EPT: EPTP bit 6 (accessed and dirty flags) without IA32_VMX_EPT_VPID_CAP[21]",
	  eptp_ad, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: enable EPT: EPTP bit 7 (supervisor shadow-stack control) without IA32_VMX_EPT_VPID_CAP[23]",
	  eptp_sss, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: enable EPT: EPTP bits 11:8 or beyond the physical-address width are not 0",
	  eptp_reserved, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: enable PML without enable EPT",
	  pml_without_ept, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: enable PML: the PML address is not 4-KByte aligned or beyond the physical-address width",
	  pml_addr, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: unrestricted guest without enable EPT",
	  unrestricted_without_ept, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: mode-based execute control for EPT without enable EPT",
	  mbec_without_ept, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: sub-page write permissions for EPT without enable EPT",
	  spp_without_ept, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: sub-page write permissions: the SPPTP is not 4-KByte aligned or beyond the physical-address width",
	  spptp_addr, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: enable VM functions: a VM-function control has a reserved setting (IA32_VMX_VMFUNC)",
	  vmfunc_reserved, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: EPTP switching without enable EPT",
	  eptp_switching_without_ept, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: EPTP switching: the EPTP-list address is not 4-KByte aligned or beyond the physical-address width",
	  eptp_list_addr, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: VMCS shadowing: the VMREAD-bitmap address is not 4-KByte aligned or beyond the physical-address width",
	  vmread_bitmap_addr, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: VMCS shadowing: the VMWRITE-bitmap address is not 4-KByte aligned or beyond the physical-address width",
	  vmwrite_bitmap_addr, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: EPT-violation #VE: the virtualization-exception information address is not 4-KByte aligned or beyond the physical-address width",
	  ve_info_addr, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.1: Intel PT uses guest physical addresses without enable EPT, load IA32_RTIT_CTL and clear IA32_RTIT_CTL",
	  pt_guest_physical, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.2: a VM-exit control has a reserved setting (IA32_VMX_(TRUE_)EXIT_CTLS)",
	  exit_reserved, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.2: a secondary VM-exit control has a reserved setting (IA32_VMX_EXIT_CTLS2)",
	  exit2_reserved, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.2: save VMX-preemption timer value without activate VMX-preemption timer",
	  save_timer_without_timer, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.2: the VM-exit MSR-store list is not 16-byte aligned or beyond the physical-address width",
	  exit_msr_store_list, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.2: the VM-exit MSR-load list is not 16-byte aligned or beyond the physical-address width",
	  exit_msr_load_list, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.3: a VM-entry control has a reserved setting (IA32_VMX_(TRUE_)ENTRY_CTLS)",
	  entry_reserved, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.3: event injection: a reserved interruption type (1, or 7 without monitor trap flag)",
	  inj_type_reserved, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.3: event injection: an NMI with a vector other than 2",
	  inj_nmi_vector, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.3: event injection: a hardware exception with a vector above 31",
	  inj_exception_vector, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.3: event injection: an other event with a vector other than 0",
	  inj_other_vector, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.3: event injection: deliver-error-code is 0 for a protected-mode exception that has an error code",
	  inj_error_code_missing, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.3: event injection: deliver-error-code is 1 for an event without an error code",
	  inj_error_code_unexpected, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.3: event injection: interruption-information bits 30:12 are not 0",
	  inj_reserved, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.3: event injection: VM-entry exception error code bits 31:16 are not 0",
	  inj_error_code_high, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.3: event injection: a software event's instruction length is above 15",
	  inj_length_range, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.3: event injection: a software event's instruction length is 0 without IA32_VMX_MISC[30]",
	  inj_length_zero, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.3: entry to SMM outside SMM",
	  entry_to_smm, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.3: deactivate dual-monitor treatment outside SMM",
	  deactivate_dual_monitor, CONTROLS_FAIL },
	{ "SDM Vol.3 26.2.1.3: the VM-entry MSR-load list is not 16-byte aligned or beyond the physical-address width",
	  entry_msr_load_list, CONTROLS_FAIL },
};

static const struct check_row host_checks[] = {
	{ "SDM Vol.3 26.2.2: host CR0 sets a bit not supported in VMX operation (IA32_VMX_CR0_FIXED0/1)",
	  host_cr0_fixed, HOST_FAIL },
	{ "SDM Vol.3 26.2.2: host CR4 sets a bit not supported in VMX operation (IA32_VMX_CR4_FIXED0/1)",
	  host_cr4_fixed, HOST_FAIL },
	{ "SDM Vol.3 26.2.2: host CR4.CET is 1 with CR0.WP 0",
	  host_cet_without_wp, HOST_FAIL },
	{ "SDM Vol.3 26.2.2: host CR3 sets bits beyond the physical-address width",
	  host_cr3_width, HOST_FAIL },
	{ "SDM Vol.3 26.2.2: host IA32_SYSENTER_ESP or IA32_SYSENTER_EIP is not canonical",
	  host_sysenter_canonical, HOST_FAIL },
	{ "SDM Vol.3 26.2.2: load CET state (exit): host IA32_S_CET or IA32_INTERRUPT_SSP_TABLE_ADDR is not canonical",
	  host_cet_canonical, HOST_FAIL },
	{ "SDM Vol.3 26.2.2: load CET state (exit): host IA32_S_CET sets reserved bits 9:6",
	  host_s_cet_reserved, HOST_FAIL },
	{ "SDM Vol.3 26.2.2: load CET state (exit): host SSP not canonical (host address-space size 1) or bits 63:32 not 0",
	  host_ssp, HOST_FAIL },
	{ "SDM Vol.3 26.2.2: load IA32_PERF_GLOBAL_CTRL (exit): host value sets reserved bits",
	  host_perf_global_ctrl, HOST_FAIL },
	{ "SDM Vol.3 26.2.2: load IA32_PAT (exit): a host PAT entry is not a valid memory type",
	  host_pat, HOST_FAIL },
	{ "SDM Vol.3 26.2.2: load IA32_EFER (exit): host EFER sets reserved bits",
	  host_efer_reserved, HOST_FAIL },
	{ "SDM Vol.3 26.2.2: load IA32_EFER (exit): host EFER.LMA or LME differs from host address-space size",
	  host_efer_mode, HOST_FAIL },
	{ "SDM Vol.3 26.2.2: load PKRS (exit): host IA32_PKRS bits 63:32 are not 0",
	  host_pkrs, HOST_FAIL },
	{ "SDM Vol.3 26.2.3: a host selector (CS, SS, DS, ES, FS, GS, TR) has RPL or TI set",
	  host_selector_rpl_ti, HOST_FAIL },
	{ "SDM Vol.3 26.2.3: the host CS or TR selector is 0000H",
	  host_cs_tr_null, HOST_FAIL },
	{ "SDM Vol.3 26.2.3: the host SS selector is 0000H with host address-space size 0",
	  host_ss_null, HOST_FAIL },
	{ "SDM Vol.3 26.2.3: a host FS, GS, GDTR, IDTR or TR base is not canonical",
	  host_bases_canonical, HOST_FAIL },
	{ "SDM Vol.3 26.2.4: outside IA-32e mode, IA-32e mode guest is 1",
	  legacy_host_ia32e_guest, HOST_FAIL },
	{ "SDM Vol.3 26.2.4: outside IA-32e mode, host address-space size is 1",
	  legacy_host_size, HOST_FAIL },
	{ "SDM Vol.3 26.2.4: in IA-32e mode, host address-space size is 0",
	  ia32e_host_size, HOST_FAIL },
	{ "SDM Vol.3 26.2.4: host address-space size 0 with host CR4.PCIDE 1",
	  host32_pcide, HOST_FAIL },
	{ "SDM Vol.3 26.2.4: host address-space size 0 with host RIP bits 63:32 not 0",
	  host32_rip, HOST_FAIL },
	{ "SDM Vol.3 26.2.4: host address-space size 1 with host CR4.PAE 0",
	  host64_pae, HOST_FAIL },
	{ "SDM Vol.3 26.2.4: host address-space size 1 with a non-canonical host RIP",
	  host64_rip, HOST_FAIL },
};


/* ---- evaluation ----
 * VM entry evaluates a table through its memo (emu/check_table.h): a row
 * that held at an earlier entry, read only VMCS fields that have not changed
 * since (field(): VMWRITE and the VM exit's stores report changes, VMPTRLD
 * forgets everything) and the processor's fixed properties (fixed()), holds
 * again and is not evaluated; a row that read memory or the processor's mode
 * (model()) is evaluated at every entry. The row that fails, and so the
 * VM-instruction error or the exit reason and qualification, is the one the
 * evaluation of every row in the SDM's order finds; only the time differs.
 * It is what SDM Vol.3 24.11.1 lets a processor do, keeping the current VMCS
 * on chip: software sees the fields only through VMREAD/VMWRITE and VM
 * entry's outcome. Under --tlb flush nothing is cached (the VMCS is read from
 * its region, which L1 may edit): every row, every time, as the reference
 * (tests/vmx/test_vmx_checks.c compares the two on random VMCS edits). */

void vmx_checks_forget(struct vmx *v)
{
	for (unsigned t = 0; t < 3; t++)
		check_memo_forget(&v->check_memo[t]);
	v->host_segments.valid = false;
	memcpy(v->checked_caps, v->caps, sizeof(v->caps));
	v->checked_maxphyaddr = v->cpu->maxphyaddr;
	v->checked_lma = v->cpu->efer & EFER_LMA;
}

const struct check_row *vmx_checks_run(struct vmx *v, enum vmx_check_table t, const struct check_row *rows,
				       size_t n)
{
	_Static_assert(VMX_CHECK_INPUTS <= CHECK_MEMO_INPUTS, "a VMCS row is a memo input");
	if (__builtin_expect(v->cpu->tlb_uncached, 0)) {
		vmx_checks_forget(v);
		return check_table_first_failure(rows, n, v);
	}
	if (check_memo_all_held(&v->check_memo[t], n))
		return NULL;
	v->checking = &v->check_memo[t];
	const struct check_row *row = check_table_first_failure_memo(rows, n, v, v->checking);
	v->checking = NULL;
	return row;
}

const struct check_row *vmx_check_controls(struct vmx *v)
{
	/* The capability MSRs and MAXPHYADDR are fixed for a processor, but a
	 * test widens them: a change forgets all three memos. Here, once per
	 * VM entry, which asks the controls first. */
	uint64_t differ = v->checked_maxphyaddr ^ v->cpu->maxphyaddr;
	for (unsigned i = 0; i < sizeof(v->caps) / sizeof(v->caps[0]); i++)
		differ |= v->checked_caps[i] ^ v->caps[i];
	if (differ)
		vmx_checks_forget(v);
	/* The processor's IA-32e mode is an input as a field is (26.2.4). */
	bool lma = v->cpu->efer & EFER_LMA;
	if (lma != v->checked_lma) {
		v->checked_lma = lma;
		vmx_vmcs_changed(v, VMX_CHECK_INPUT_LMA);
	}
	_Static_assert(sizeof(control_checks) / sizeof(control_checks[0]) <= CHECK_MEMO_ROWS, "one memo");
	return vmx_checks_run(v, VMX_CHECKS_CONTROLS, control_checks, sizeof(control_checks) / sizeof(control_checks[0]));
}

const struct check_row *vmx_check_host_state(struct vmx *v)
{
	_Static_assert(sizeof(host_checks) / sizeof(host_checks[0]) <= CHECK_MEMO_ROWS, "one memo");
	return vmx_checks_run(v, VMX_CHECKS_HOST, host_checks, sizeof(host_checks) / sizeof(host_checks[0]));
}

const struct check_row *vmx_check_rows(enum vmx_check_table table, size_t *n)
{
	switch (table) {
	case VMX_CHECKS_CONTROLS:
		*n = sizeof(control_checks) / sizeof(control_checks[0]);
		return control_checks;
	case VMX_CHECKS_HOST:
		*n = sizeof(host_checks) / sizeof(host_checks[0]);
		return host_checks;
	case VMX_CHECKS_GUEST:
		break;
	}
	return vmx_guest_check_table(n);
}
