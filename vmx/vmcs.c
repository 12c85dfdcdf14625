/* The VMCS storage (SDM Vol.3 24.11): the fields of the current VMCS by
 * encoding (vmx/vmcs_fields.def), VMREAD's and VMWRITE's rules about them, the
 * launch state, and the processor's copy of the current VMCS (vmx/model.h
 * struct vmcs_cache) with hvemu's region format (vmx/vmcs.h).
 */
#include "vmx/model.h"

/* The row of a field the table returned. */
static unsigned row_of(const struct vmcs_field *f)
{
	return f->row;
}

/* The bits a field of width w holds: 16, 32 or 64 (natural width is 64 bits
 * on a processor with Intel 64, SDM Vol.3 24.11.2). */
static uint64_t width_mask(enum vmcs_width w)
{
	static const uint64_t mask[4] = { 0xffff, UINT64_MAX, 0xffffffff, UINT64_MAX };
	return mask[w & 3];
}

static uint64_t row_mask(unsigned row)
{
	size_t n;
	return width_mask((enum vmcs_width)vmcs_field_table(&n)[row].width);
}

/* ---- the region in memory ---- */

static void region_write(struct vmx *v, uint64_t pa, uint64_t value)
{
	physmem_write(v->cpu->mem, pa, 8, value);
	cpu_notify_phys_write(v->cpu, pa, 8);
}

static void load_row(struct vmx *v, unsigned row)
{
	v->vmcs.field[row] = physmem_read(v->cpu->mem, v->vmcs.pa + vmcs_row_offset(row), 8) & row_mask(row);
}

static void store_row(struct vmx *v, unsigned row)
{
	region_write(v, v->vmcs.pa + vmcs_row_offset(row), v->vmcs.field[row]);
}

static void load_launch_state(struct vmx *v)
{
	v->vmcs.launched = physmem_read(v->cpu->mem, v->vmcs.pa + VMCS_LAUNCH_STATE_OFFSET, 4) == VMCS_LAUNCHED;
}

static void store_launch_state(struct vmx *v)
{
	physmem_write(v->cpu->mem, v->vmcs.pa + VMCS_LAUNCH_STATE_OFFSET, 4, v->vmcs.launched ? VMCS_LAUNCHED : 0);
	cpu_notify_phys_write(v->cpu, v->vmcs.pa + VMCS_LAUNCH_STATE_OFFSET, 4);
}

/* SDM Vol.3 24.11.1: the processor's copy goes to the region. With --tlb
 * flush there is no copy: the region is always up to date. */
static void write_back(struct vmx *v)
{
	if (v->cpu->tlb_uncached)
		return;
	for (unsigned row = 0; row < VMCS_ROW_COUNT; row++)
		store_row(v, row);
	store_launch_state(v);
}

/* ---- the current VMCS ---- */

void vmcs_make_current(struct vmx *v, uint64_t pa)
{
	/* hvemu keeps one VMCS on the processor: the previous one goes back to
	 * its region, as VMCLEAR would write it (24.11.1 lets a processor keep
	 * several; only VMCLEAR makes the region's content architectural). A
	 * VMPTRLD of the current VMCS does the same, so an edit of its region
	 * is overwritten, not loaded. */
	if (vmcs_current_valid(v))
		write_back(v);
	v->vmcs.pa = pa;
	v->vmcs.shadow = physmem_read(v->cpu->mem, pa, 4) & VMCS_SHADOW_INDICATOR;
	load_launch_state(v);
	for (unsigned row = 0; row < VMCS_ROW_COUNT; row++)
		load_row(v, row);
	vmx_checks_forget(v);
}

void vmcs_clear(struct vmx *v, uint64_t pa)
{
	/* SDM Vol.3 30.3 VMCLEAR: "ensure that data for VMCS referenced by the
	 * operand is in memory; initialize implementation-specific data in VMCS
	 * region; launch state of VMCS referenced by the operand := clear; IF
	 * operand addr = current-VMCS pointer THEN current-VMCS pointer :=
	 * FFFFFFFF_FFFFFFFFH". A VMCS that is not current is in memory already
	 * (vmcs_make_current wrote it back). */
	if (v->vmcs.pa == pa)
		write_back(v);
	physmem_write(v->cpu->mem, pa + VMCS_LAUNCH_STATE_OFFSET, 4, 0);
	cpu_notify_phys_write(v->cpu, pa + VMCS_LAUNCH_STATE_OFFSET, 4);
	if (v->vmcs.pa == pa)
		v->vmcs.pa = VMCS_POINTER_INVALID;
}

void vmcs_forget(struct vmx *v)
{
	v->vmcs.pa = VMCS_POINTER_INVALID;
	v->vmcs.launched = false;
	v->vmcs.shadow = false;
	vmx_checks_forget(v);
}

bool vmcs_launched(struct vmx *v)
{
	if (v->cpu->tlb_uncached)
		load_launch_state(v);
	return v->vmcs.launched;
}

void vmcs_set_launched(struct vmx *v, bool launched)
{
	v->vmcs.launched = launched;
	if (v->cpu->tlb_uncached)
		store_launch_state(v);
}

uint64_t vmcs_get_from_region(struct vmx *v, enum vmcs_row row)
{
	load_row(v, row);
	return v->vmcs.field[row];
}

void vmcs_set(struct vmx *v, enum vmcs_row row, uint64_t value)
{
	v->vmcs.field[row] = value & row_mask(row);
	vmx_vmcs_changed(v, row);
	if (v->cpu->tlb_uncached)
		store_row(v, row);
}

/* ---- VMREAD / VMWRITE ---- */

/* Fields that exist only with a feature: SDM Vol.3 Appendix B and the
 * field's section in 24.4-24.9, "This field exists only on processors that
 * support the 1-setting of ...". A field with no row here exists on every
 * processor (within IA32_VMX_VMCS_ENUM). A row names one control, or two of
 * which either will do. The FRED and event-data fields need FRED's VM-entry
 * and secondary VM-exit controls, which mmu/x86_vmx.h does not name yet:
 * their rows ask for the secondary VM-exit controls, a condition every
 * processor with those fields meets. */
struct field_needs {
	uint16_t encoding;
	uint16_t msr_a;            /* capability MSR of a control the processor must allow ... */
	uint8_t bit_a;
	uint16_t msr_b;            /* ... or of this one (0: no alternative) */
	uint8_t bit_b;
};
#define PIN    MSR_VMX_PINBASED_CTLS
#define PROC   MSR_VMX_PROCBASED_CTLS
#define PROC2  MSR_VMX_PROCBASED_CTLS2
#define PROC3  MSR_VMX_PROCBASED_CTLS3
#define EXITC  MSR_VMX_EXIT_CTLS
#define ENTRYC MSR_VMX_ENTRY_CTLS
#define FRED   EXITC, VMX_EXITCTL_SECONDARY_CONTROLS
static const struct field_needs field_needs[] = {
	/* 16-bit control (24.6.12, 24.6.14, 24.6.19) and guest state (24.4.2) */
	{ VMCS_VPID, PROC2, VMX_PROC2_VPID, 0, 0 },
	{ VMCS_POSTED_INTR_NV, PIN, VMX_PIN_POSTED_INTERRUPTS, 0, 0 },
	{ VMCS_EPTP_INDEX, PROC2, VMX_PROC2_EPT_VIOLATION_VE, 0, 0 },
	{ VMCS_HLAT_PREFIX_SIZE, PROC3, VMX_PROC3_HLAT, 0, 0 },
	{ VMCS_LAST_PID_POINTER_INDEX, PROC3, VMX_PROC3_IPI_VIRT, 0, 0 },
	{ VMCS_GUEST_INTR_STATUS, PROC2, VMX_PROC2_VIRTUAL_INTR_DELIVERY, 0, 0 },
	{ VMCS_PML_INDEX, PROC2, VMX_PROC2_PML, 0, 0 },
	{ VMCS_GUEST_UINV, ENTRYC, VMX_ENTRYCTL_LOAD_UINV, EXITC, VMX_EXITCTL_CLEAR_UINV },
	/* 64-bit control (24.6) */
	{ VMCS_PML_ADDRESS, PROC2, VMX_PROC2_PML, 0, 0 },
	{ VMCS_VIRTUAL_APIC_ADDR, PROC, VMX_PROC_TPR_SHADOW, 0, 0 },
	{ VMCS_APIC_ACCESS_ADDR, PROC2, VMX_PROC2_VIRTUALIZE_APIC, 0, 0 },
	{ VMCS_POSTED_INTR_DESC_ADDR, PIN, VMX_PIN_POSTED_INTERRUPTS, 0, 0 },
	{ VMCS_VM_FUNCTION_CONTROLS, PROC2, VMX_PROC2_VM_FUNCTIONS, 0, 0 },
	{ VMCS_EPT_POINTER, PROC2, VMX_PROC2_EPT, 0, 0 },
	{ VMCS_EOI_EXIT_BITMAP0, PROC2, VMX_PROC2_VIRTUAL_INTR_DELIVERY, 0, 0 },
	{ VMCS_EOI_EXIT_BITMAP1, PROC2, VMX_PROC2_VIRTUAL_INTR_DELIVERY, 0, 0 },
	{ VMCS_EOI_EXIT_BITMAP2, PROC2, VMX_PROC2_VIRTUAL_INTR_DELIVERY, 0, 0 },
	{ VMCS_EOI_EXIT_BITMAP3, PROC2, VMX_PROC2_VIRTUAL_INTR_DELIVERY, 0, 0 },
	{ VMCS_EPTP_LIST_ADDR, MSR_VMX_VMFUNC, 0 /* EPTP switching */, 0, 0 },
	{ VMCS_VMREAD_BITMAP, PROC2, VMX_PROC2_VMCS_SHADOWING, 0, 0 },
	{ VMCS_VMWRITE_BITMAP, PROC2, VMX_PROC2_VMCS_SHADOWING, 0, 0 },
	{ VMCS_VE_INFO_ADDR, PROC2, VMX_PROC2_EPT_VIOLATION_VE, 0, 0 },
	{ VMCS_XSS_EXITING_BITMAP, PROC2, VMX_PROC2_XSAVES, 0, 0 },
	{ VMCS_ENCLS_EXITING_BITMAP, PROC2, VMX_PROC2_ENCLS_EXITING, 0, 0 },
	{ VMCS_SPPT_POINTER, PROC2, VMX_PROC2_SUBPAGE_WRITE, 0, 0 },
	{ VMCS_TSC_MULTIPLIER, PROC2, VMX_PROC2_TSC_SCALING, 0, 0 },
	{ VMCS_TERTIARY_PROC_CONTROLS, PROC, VMX_PROC_TERTIARY_CONTROLS, 0, 0 },
	{ VMCS_ENCLV_EXITING_BITMAP, PROC2, VMX_PROC2_ENCLV_EXITING, 0, 0 },
	{ VMCS_LOW_PASID_DIR_ADDR, PROC2, VMX_PROC2_PASID_TRANSLATION, 0, 0 },
	{ VMCS_HIGH_PASID_DIR_ADDR, PROC2, VMX_PROC2_PASID_TRANSLATION, 0, 0 },
	{ VMCS_PCONFIG_EXITING_BITMAP, PROC2, VMX_PROC2_PCONFIG, 0, 0 },
	{ VMCS_HLAT_POINTER, PROC3, VMX_PROC3_HLAT, 0, 0 },
	{ VMCS_PID_POINTER_TABLE, PROC3, VMX_PROC3_IPI_VIRT, 0, 0 },
	{ VMCS_SECONDARY_EXIT_CONTROLS, EXITC, VMX_EXITCTL_SECONDARY_CONTROLS, 0, 0 },
	{ VMCS_SPEC_CTRL_MASK, PROC3, VMX_PROC3_VIRTUALIZE_SPEC_CTRL, 0, 0 },
	{ VMCS_SPEC_CTRL_SHADOW, PROC3, VMX_PROC3_VIRTUALIZE_SPEC_CTRL, 0, 0 },
	{ VMCS_INJECTED_EVENT_DATA, FRED, 0, 0 },
	/* 64-bit read-only (24.9) */
	{ VMCS_GUEST_PHYSICAL_ADDR, PROC2, VMX_PROC2_EPT, 0, 0 },
	{ VMCS_ORIGINAL_EVENT_DATA, FRED, 0, 0 },
	/* 64-bit guest state (24.4.1, 24.4.2) */
	{ VMCS_GUEST_IA32_PAT, ENTRYC, VMX_ENTRYCTL_LOAD_PAT, EXITC, VMX_EXITCTL_SAVE_PAT },
	{ VMCS_GUEST_IA32_EFER, ENTRYC, VMX_ENTRYCTL_LOAD_EFER, EXITC, VMX_EXITCTL_SAVE_EFER },
	{ VMCS_GUEST_IA32_PERF_GLOBAL_CTRL, ENTRYC, VMX_ENTRYCTL_LOAD_PERF_GLOBAL_CTRL, EXITC,
	  VMX_EXITCTL_SAVE_PERF_GLOBAL_CTRL },
	{ VMCS_GUEST_PDPTE0, PROC2, VMX_PROC2_EPT, 0, 0 },
	{ VMCS_GUEST_PDPTE1, PROC2, VMX_PROC2_EPT, 0, 0 },
	{ VMCS_GUEST_PDPTE2, PROC2, VMX_PROC2_EPT, 0, 0 },
	{ VMCS_GUEST_PDPTE3, PROC2, VMX_PROC2_EPT, 0, 0 },
	{ VMCS_GUEST_IA32_BNDCFGS, ENTRYC, VMX_ENTRYCTL_LOAD_BNDCFGS, EXITC, VMX_EXITCTL_CLEAR_BNDCFGS },
	{ VMCS_GUEST_IA32_RTIT_CTL, ENTRYC, VMX_ENTRYCTL_LOAD_RTIT_CTL, EXITC, VMX_EXITCTL_CLEAR_RTIT_CTL },
	{ VMCS_GUEST_IA32_LBR_CTL, ENTRYC, VMX_ENTRYCTL_LOAD_LBR_CTL, EXITC, VMX_EXITCTL_CLEAR_LBR_CTL },
	{ VMCS_GUEST_IA32_PKRS, ENTRYC, VMX_ENTRYCTL_LOAD_PKRS, 0, 0 },
	{ VMCS_GUEST_IA32_FRED_CONFIG, FRED, 0, 0 },
	{ VMCS_GUEST_IA32_FRED_RSP1, FRED, 0, 0 },
	{ VMCS_GUEST_IA32_FRED_RSP2, FRED, 0, 0 },
	{ VMCS_GUEST_IA32_FRED_RSP3, FRED, 0, 0 },
	{ VMCS_GUEST_IA32_FRED_STKLVLS, FRED, 0, 0 },
	{ VMCS_GUEST_IA32_FRED_SSP1, FRED, 0, 0 },
	{ VMCS_GUEST_IA32_FRED_SSP2, FRED, 0, 0 },
	{ VMCS_GUEST_IA32_FRED_SSP3, FRED, 0, 0 },
	/* 64-bit host state (24.5) */
	{ VMCS_HOST_IA32_PAT, EXITC, VMX_EXITCTL_LOAD_PAT, 0, 0 },
	{ VMCS_HOST_IA32_EFER, EXITC, VMX_EXITCTL_LOAD_EFER, 0, 0 },
	{ VMCS_HOST_IA32_PERF_GLOBAL_CTRL, EXITC, VMX_EXITCTL_LOAD_PERF_GLOBAL_CTRL, 0, 0 },
	{ VMCS_HOST_IA32_PKRS, EXITC, VMX_EXITCTL_LOAD_PKRS, 0, 0 },
	{ VMCS_HOST_IA32_FRED_CONFIG, FRED, 0, 0 },
	{ VMCS_HOST_IA32_FRED_RSP1, FRED, 0, 0 },
	{ VMCS_HOST_IA32_FRED_RSP2, FRED, 0, 0 },
	{ VMCS_HOST_IA32_FRED_RSP3, FRED, 0, 0 },
	{ VMCS_HOST_IA32_FRED_STKLVLS, FRED, 0, 0 },
	{ VMCS_HOST_IA32_FRED_SSP1, FRED, 0, 0 },
	{ VMCS_HOST_IA32_FRED_SSP2, FRED, 0, 0 },
	{ VMCS_HOST_IA32_FRED_SSP3, FRED, 0, 0 },
	/* 32-bit control (24.6.2, 24.6.8, 24.6.13) and guest state (24.4.2) */
	{ VMCS_TPR_THRESHOLD, PROC, VMX_PROC_TPR_SHADOW, 0, 0 },
	{ VMCS_SECONDARY_PROC_CONTROLS, PROC, VMX_PROC_SECONDARY_CONTROLS, 0, 0 },
	{ VMCS_PLE_GAP, PROC2, VMX_PROC2_PAUSE_LOOP_EXITING, 0, 0 },
	{ VMCS_PLE_WINDOW, PROC2, VMX_PROC2_PAUSE_LOOP_EXITING, 0, 0 },
	{ VMCS_INSTRUCTION_TIMEOUT_CONTROL, PROC2, VMX_PROC2_INSTRUCTION_TIMEOUT, 0, 0 },
	{ VMCS_PREEMPTION_TIMER_VALUE, PIN, VMX_PIN_PREEMPTION_TIMER, 0, 0 },
	/* natural-width guest and host state: CET (24.4.1, 24.5) */
	{ VMCS_GUEST_IA32_S_CET, ENTRYC, VMX_ENTRYCTL_LOAD_CET_STATE, 0, 0 },
	{ VMCS_GUEST_SSP, ENTRYC, VMX_ENTRYCTL_LOAD_CET_STATE, 0, 0 },
	{ VMCS_GUEST_INTR_SSP_TABLE_ADDR, ENTRYC, VMX_ENTRYCTL_LOAD_CET_STATE, 0, 0 },
	{ VMCS_HOST_IA32_S_CET, EXITC, VMX_EXITCTL_LOAD_CET_STATE, 0, 0 },
	{ VMCS_HOST_SSP, EXITC, VMX_EXITCTL_LOAD_CET_STATE, 0, 0 },
	{ VMCS_HOST_INTR_SSP_TABLE_ADDR, EXITC, VMX_EXITCTL_LOAD_CET_STATE, 0, 0 },
};
#undef PIN
#undef PROC
#undef PROC2
#undef PROC3
#undef EXITC
#undef ENTRYC
#undef FRED

/* May the control at bit of msr's field be 1? The tertiary controls, the
 * secondary VM-exit controls and the VM functions have 64-bit allowed-1-only
 * MSRs (SDM Vol.3 A.3.4, A.4.2, A.11); the others the allowed-1 half. */
static bool control_allowed(const struct vmx *v, uint32_t msr, unsigned bit)
{
	if (msr == MSR_VMX_PROCBASED_CTLS3 || msr == MSR_VMX_EXIT_CTLS2 || msr == MSR_VMX_VMFUNC)
		return (vmx_cap(v, msr) >> bit) & 1;
	return vmx_allows(v, msr, bit);
}

void vmcs_fields_init(struct vmx *v)
{
	size_t n;
	const struct vmcs_field *t = vmcs_field_table(&n);
	/* SDM Vol.3 A.9: IA32_VMX_VMCS_ENUM bits 9:1 are the highest index of
	 * any VMCS field encoding the processor supports. */
	uint64_t vmcs_enum = vmx_cap(v, MSR_VMX_VMCS_ENUM);
	unsigned max_index = (unsigned)((vmcs_enum & VMX_VMCS_ENUM_INDEX_MASK) >> VMX_VMCS_ENUM_INDEX_SHIFT);
	for (size_t row = 0; row < n; row++)
		v->field_exists[row] = vmcs_enc_index(t[row].encoding) <= max_index;
	for (size_t i = 0; i < sizeof(field_needs) / sizeof(field_needs[0]); i++) {
		const struct field_needs *need = &field_needs[i];
		bool ok = control_allowed(v, need->msr_a, need->bit_a) ||
			  (need->msr_b && control_allowed(v, need->msr_b, need->bit_b));
		if (!ok)
			v->field_exists[row_of(vmcs_field_lookup(need->encoding, NULL))] = false;
	}
}

bool vmcs_field_supported(const struct vmx *v, const struct vmcs_field *f)
{
	return v->field_exists[row_of(f)];
}

/* ---- the VMCS a VMREAD/VMWRITE reaches ----
 *
 * In VMX root operation the current VMCS (the processor's copy, struct
 * vmcs_cache); in VMX non-root operation with "VMCS shadowing" the shadow
 * VMCS the VMCS link pointer references (SDM Vol.3 24.10, 30.3 VMREAD and
 * VMWRITE). hvemu keeps one VMCS on the processor, the current one
 * (vmcs_make_current writes the previous one back), so a shadow VMCS, which
 * cannot be current while its guest runs, is always in its region: L2's
 * VMREAD and VMWRITE read and write the region itself (hvemu's format,
 * vmx/vmcs.h), under both TLB modes. What an L1 that edits that region in
 * memory sees: L2's next VMREAD reads the edit, and L2's VMWRITEs are in the
 * region as soon as they retire. A processor may keep shadow-VMCS data
 * on-chip instead (24.11.1: software must VMCLEAR a VMCS before touching
 * its region), so software must not rely on either. A link pointer equal to
 * the current-VMCS pointer (which VM entry refuses, 26.3.1.5, but an L1 may
 * arrange by rewriting the revision dword afterwards) reaches the copy. */

static uint64_t field_at(struct vmx *v, uint64_t pa, enum vmcs_row row)
{
	if (pa == v->vmcs.pa)
		return vmcs_get(v, row);
	return physmem_read(v->cpu->mem, pa + vmcs_row_offset(row), 8) & row_mask(row);
}

static void set_field_at(struct vmx *v, uint64_t pa, enum vmcs_row row, uint64_t value)
{
	if (pa == v->vmcs.pa)
		vmcs_set(v, row, value);
	else
		region_write(v, pa + vmcs_row_offset(row), value & row_mask(row));
}

enum vmx_instruction_error vmcs_vmread_at(struct vmx *v, uint64_t pa, uint64_t enc, uint64_t *value)
{
	bool high = false;
	const struct vmcs_field *f = vmcs_field_lookup(enc, &high);
	/* SDM Vol.3 30.3 VMREAD: "source operand does not correspond to any VMCS
	 * field" -> VMfailValid(12); in 64-bit mode that includes an encoding
	 * with any of bits 63:32 set (vmcs_enc_well_formed). A shadow VMCS has
	 * the fields an ordinary one has (24.10). */
	if (!f || !vmcs_field_supported(v, f))
		return VMXERR_UNSUPPORTED_COMPONENT;
	uint64_t x = field_at(v, pa, (enum vmcs_row)row_of(f));
	/* SDM Vol.3 24.11.2: the high access type reads bits 63:32 of a 64-bit
	 * field as a 32-bit field. A field shorter than the operand is
	 * zero-extended; a longer one is truncated by the caller's store
	 * (30.3 VMREAD: "the high bits of the field are not read"). */
	*value = high ? x >> 32 : x;
	return VMXERR_NONE;
}

enum vmx_instruction_error vmcs_vmwrite_at(struct vmx *v, uint64_t pa, uint64_t enc, uint64_t value)
{
	bool high = false;
	const struct vmcs_field *f = vmcs_field_lookup(enc, &high);
	/* SDM Vol.3 30.3 VMWRITE: unsupported component -> VMfailValid(12). */
	if (!f || !vmcs_field_supported(v, f))
		return VMXERR_UNSUPPORTED_COMPONENT;
	/* SDM Vol.3 30.3 VMWRITE: "VMCS field indexed by secondary source operand
	 * is a VM-exit information field AND processor does not support writing
	 * to such fields" (IA32_VMX_MISC bit 29, A.6) -> VMfailValid(13); the
	 * same for a shadow VMCS. */
	if (f->type == VMCS_RO && !(vmx_cap(v, MSR_VMX_MISC) & VMX_MISC_VMWRITE_ANY_FIELD))
		return VMXERR_VMWRITE_READ_ONLY;
	enum vmcs_row row = (enum vmcs_row)row_of(f);
	uint64_t x = value;
	/* SDM Vol.3 24.11.2: the high access type writes bits 63:32 of the
	 * 64-bit field and leaves 31:0. Otherwise a field shorter than the
	 * operand ignores the operand's high bits and a longer one has its high
	 * bits cleared (30.3 VMWRITE): value is the operand, zero-extended, and
	 * the store truncates it to the field's width. */
	if (high)
		x = (field_at(v, pa, row) & 0xffffffffull) | ((value & 0xffffffffull) << 32);
	set_field_at(v, pa, row, x);
	return VMXERR_NONE;
}

enum vmx_instruction_error vmcs_vmread(struct vmx *v, uint64_t enc, uint64_t *value)
{
	return vmcs_vmread_at(v, v->vmcs.pa, enc, value);
}

enum vmx_instruction_error vmcs_vmwrite(struct vmx *v, uint64_t enc, uint64_t value)
{
	return vmcs_vmwrite_at(v, v->vmcs.pa, enc, value);
}
