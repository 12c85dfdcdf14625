/* Check suite for the VM-entry checks (vmx/consistency.c, SDM Vol.3 26.2 and
 * 26.3.1): a fully valid VMCS is built on a test CPU (a 64-bit host with a
 * 64-bit guest, a 32-bit protected-mode guest, or an unrestricted-guest
 * real-mode guest) and passes all three tables; then one case per row
 * {a unique part of the row's text, the world, the edit that breaks exactly
 * that rule, the outcome} expects that row to be the first failure, with its
 * outcome (VMfailValid(7), VMfailValid(8), or the VM-entry failure with exit
 * reason 33 and its qualification). A few legal corners must pass. A last
 * case checks that every row of the tables has a failing case.
 *
 * The checks read the current VMCS through the processor's own access
 * (vmcs_set: no VMWRITE rules) and, for rules on controls that no model
 * allows, the test widens the capability MSRs the model read at creation
 * (struct vmx caps[]), so the allowed-1 row lets the control through and the
 * later row is the one that fails.
 *
 * Physical layout (machine_fixture.h's 4 MiB, GDT at 1000H, 64-bit page
 * tables at 10000H):
 *   13000H 32-bit page directory     14000H PAE PDPT (32-bit PAE cases)
 *   100000H the VMCS region          101000H the VMCS link pointer's region
 *   300000H I/O bitmap A  301000H B  302000H MSR bitmaps  303000H virtual-APIC page
 *   304000H EPT PML4 (never walked)  305000H MSR lists
 */
#include <check.h>
#include <string.h>

#include "machine_fixture.h"
#include "mmu/x86_vmx.h"
#include "suite_runner.h"
#include "vmx/exit_reasons.h"
#include "vmx/model.h"

#define PD32       0x13000u
#define PDPT32     0x14000u
#define VMCS_PA    0x100000u
#define LINK_PA    0x101000u
#define IO_A       0x300000u
#define IO_B       0x301000u
#define MSR_BITMAP 0x302000u
#define VAPIC      0x303000u
#define EPT_PML4   0x304000u
#define MSR_LIST   0x305000u

#define HOST_PAT   0x0007040600070406ull   /* the power-up value */

enum world_kind { G64, G32, GREAL };

struct world {
	struct test_machine m;
	struct vmx *vmx;
};

static void set(struct world *w, enum vmcs_row row, uint64_t value) { vmcs_set(w->vmx, row, value); }
static uint64_t get(struct world *w, enum vmcs_row row) { return vmcs_get(w->vmx, row); }
static void or_(struct world *w, enum vmcs_row row, uint64_t bits) { set(w, row, get(w, row) | bits); }
static void clr(struct world *w, enum vmcs_row row, uint64_t bits) { set(w, row, get(w, row) & ~bits); }

static uint64_t cap(struct world *w, uint32_t msr) { return vmx_cap(w->vmx, msr); }
/* Let control `bits` of a control capability MSR (and its TRUE_ twin) be 1. */
static void allow(struct world *w, uint32_t msr, uint32_t bits)
{
	w->vmx->caps[msr - MSR_VMX_FIRST] |= (uint64_t)bits << 32;
	uint32_t twin = msr == MSR_VMX_PINBASED_CTLS ? MSR_VMX_TRUE_PINBASED_CTLS :
			msr == MSR_VMX_PROCBASED_CTLS ? MSR_VMX_TRUE_PROCBASED_CTLS :
			msr == MSR_VMX_EXIT_CTLS ? MSR_VMX_TRUE_EXIT_CTLS :
			msr == MSR_VMX_ENTRY_CTLS ? MSR_VMX_TRUE_ENTRY_CTLS : 0;
	if (twin)
		w->vmx->caps[twin - MSR_VMX_FIRST] |= (uint64_t)bits << 32;
}

/* A control field's value: what the capability requires plus those of `want`
 * the model allows (core2 lacks the secondary controls, virtual NMIs, the
 * EFER and PAT controls). */
static uint32_t ctls(struct world *w, uint32_t msr, uint32_t true_msr, uint32_t want)
{
	uint64_t c = cap(w, (cap(w, MSR_VMX_BASIC) & VMX_BASIC_TRUE_CTLS) ? true_msr : msr);
	return vmx_ctl_adjust(c, want);
}

/* ---- the valid VMCS ---- */

/* Guest segment i (ES, CS, SS, DS, FS, GS, LDTR, TR: vmcs_fields.def order). */
static void seg(struct world *w, unsigned i, uint16_t sel, uint64_t base, uint32_t limit, uint32_t ar)
{
	set(w, VMCS_ROW_GUEST_ES_SELECTOR + i, sel);
	set(w, VMCS_ROW_GUEST_ES_BASE + i, base);
	set(w, VMCS_ROW_GUEST_ES_LIMIT + i, limit);
	set(w, VMCS_ROW_GUEST_ES_AR + i, ar);
}

enum { ES, CS, SS, DS, FS, GS, LDTR, TR };

#define AR_CODE64  (0xbu | VMX_AR_S | VMX_AR_P | VMX_AR_L | VMX_AR_G)    /* a09bH */
#define AR_CODE32  (0xbu | VMX_AR_S | VMX_AR_P | VMX_AR_DB | VMX_AR_G)   /* c09bH */
#define AR_DATA    (0x3u | VMX_AR_S | VMX_AR_P | VMX_AR_DB | VMX_AR_G)   /* c093H */
#define AR_TSS     (0xbu | VMX_AR_P)                                     /* 008bH */
#define AR_REAL    (0x3u | VMX_AR_S | VMX_AR_P)                          /* 0093H */

static void build(struct world *w, const char *model, enum world_kind kind)
{
	memset(w, 0, sizeof(*w));
	machine_init(&w->m, model);
	w->vmx = vmx_create(&w->m.cpu, 0);
	ck_assert_ptr_nonnull(w->vmx);
	/* The host: 64-bit mode (EFER.LMA = 1 when VM entry runs, 26.2.4). */
	activate(&w->m);
	to64(&w->m);
	ck_assert_int_eq(mov_cr(&w->m, 4, CR4_PAE | CR4_VMXE), ST_OK);
	uint32_t revision = (uint32_t)(cap(w, MSR_VMX_BASIC) & VMX_BASIC_REVISION_MASK);
	physmem_write(&w->m.pm, VMCS_PA, 4, revision);
	physmem_write(&w->m.pm, LINK_PA, 4, revision);
	vmcs_make_current(w->vmx, VMCS_PA);
	bool g64 = kind == G64, real = kind == GREAL;

	/* VM-execution controls: the exits a hypervisor typically wants, with
	 * the bitmaps, TPR shadow, EPT and VPID (their address rules apply). */
	set(w, VMCS_ROW_PIN_BASED_CONTROLS, ctls(w, MSR_VMX_PINBASED_CTLS, MSR_VMX_TRUE_PINBASED_CTLS,
		VMX_CTL(VMX_PIN_EXT_INTR_EXITING) | VMX_CTL(VMX_PIN_NMI_EXITING) | VMX_CTL(VMX_PIN_VIRTUAL_NMIS)));
	set(w, VMCS_ROW_PRIMARY_PROC_CONTROLS, ctls(w, MSR_VMX_PROCBASED_CTLS, MSR_VMX_TRUE_PROCBASED_CTLS,
		VMX_CTL(VMX_PROC_HLT_EXITING) | VMX_CTL(VMX_PROC_TPR_SHADOW) | VMX_CTL(VMX_PROC_IO_BITMAPS) |
		VMX_CTL(VMX_PROC_MSR_BITMAPS) | VMX_CTL(VMX_PROC_SECONDARY_CONTROLS)));
	set(w, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_EPT) | VMX_CTL(VMX_PROC2_VPID) |
		(real ? VMX_CTL(VMX_PROC2_UNRESTRICTED_GUEST) : 0));
	set(w, VMCS_ROW_IO_BITMAP_A, IO_A);
	set(w, VMCS_ROW_IO_BITMAP_B, IO_B);
	set(w, VMCS_ROW_MSR_BITMAP, MSR_BITMAP);
	set(w, VMCS_ROW_VIRTUAL_APIC_ADDR, VAPIC);
	set(w, VMCS_ROW_TPR_THRESHOLD, 0);
	set(w, VMCS_ROW_EPT_POINTER, EPT_PML4 | VMX_BASIC_MEMTYPE_WB | (3u << EPTP_WALK_SHIFT));
	set(w, VMCS_ROW_VPID, 1);
	set(w, VMCS_ROW_CR3_TARGET_COUNT, 4);
	set(w, VMCS_ROW_EXIT_CONTROLS, ctls(w, MSR_VMX_EXIT_CTLS, MSR_VMX_TRUE_EXIT_CTLS,
		VMX_CTL(VMX_EXITCTL_HOST_ADDR_SPACE_SIZE) | VMX_CTL(VMX_EXITCTL_ACK_INTR_ON_EXIT) |
		VMX_CTL(VMX_EXITCTL_SAVE_EFER) | VMX_CTL(VMX_EXITCTL_LOAD_EFER) | VMX_CTL(VMX_EXITCTL_LOAD_PAT)));
	set(w, VMCS_ROW_ENTRY_CONTROLS, ctls(w, MSR_VMX_ENTRY_CTLS, MSR_VMX_TRUE_ENTRY_CTLS,
		(g64 ? VMX_CTL(VMX_ENTRYCTL_IA32E_MODE_GUEST) : 0) | VMX_CTL(VMX_ENTRYCTL_LOAD_EFER) |
		VMX_CTL(VMX_ENTRYCTL_LOAD_PAT)));
	set(w, VMCS_ROW_EXIT_MSR_STORE_ADDR, MSR_LIST);
	set(w, VMCS_ROW_EXIT_MSR_LOAD_ADDR, MSR_LIST);
	set(w, VMCS_ROW_ENTRY_MSR_LOAD_ADDR, MSR_LIST);

	/* The host: 64-bit, flat, the fixture's GDT and page tables. */
	set(w, VMCS_ROW_HOST_CR0, CR0_PE | CR0_ET | CR0_NE | CR0_PG);
	set(w, VMCS_ROW_HOST_CR3, PML4);
	set(w, VMCS_ROW_HOST_CR4, CR4_PAE | CR4_VMXE);
	set(w, VMCS_ROW_HOST_CS_SELECTOR, 0x08);
	for (enum vmcs_row r = VMCS_ROW_HOST_SS_SELECTOR; r <= VMCS_ROW_HOST_GS_SELECTOR; r++)
		if (r != VMCS_ROW_HOST_CS_SELECTOR)
			set(w, r, 0x10);
	set(w, VMCS_ROW_HOST_ES_SELECTOR, 0x10);
	set(w, VMCS_ROW_HOST_TR_SELECTOR, 0x18);
	set(w, VMCS_ROW_HOST_TR_BASE, 0x3000);
	set(w, VMCS_ROW_HOST_GDTR_BASE, GDT_BASE);
	set(w, VMCS_ROW_HOST_RIP, 0x401000);
	set(w, VMCS_ROW_HOST_RSP, 0x8000);
	set(w, VMCS_ROW_HOST_IA32_EFER, EFER_LME | EFER_LMA);
	set(w, VMCS_ROW_HOST_IA32_PAT, HOST_PAT);

	/* The guest. */
	set(w, VMCS_ROW_GUEST_CR0, real ? CR0_ET | CR0_NE : CR0_PE | CR0_ET | CR0_NE | CR0_PG);
	set(w, VMCS_ROW_GUEST_CR3, g64 ? PML4 : real ? 0 : PD32);
	set(w, VMCS_ROW_GUEST_CR4, g64 ? CR4_PAE | CR4_VMXE : real ? CR4_VMXE : CR4_PSE | CR4_VMXE);
	set(w, VMCS_ROW_GUEST_DR7, 0x400);
	set(w, VMCS_ROW_GUEST_IA32_EFER, g64 ? EFER_LME | EFER_LMA : 0);
	set(w, VMCS_ROW_GUEST_IA32_PAT, HOST_PAT);
	if (real) {
		seg(w, CS, 0xf000, 0xf0000, 0xffff, AR_REAL);
		for (unsigned i = ES; i <= GS; i++)
			if (i != CS)
				seg(w, i, 0, 0, 0xffff, AR_REAL);
		seg(w, TR, 0, 0, 0xffff, AR_TSS);
		set(w, VMCS_ROW_GUEST_RIP, 0xfff0);
	} else {
		seg(w, CS, 0x08, 0, 0xffffffff, g64 ? AR_CODE64 : AR_CODE32);
		for (unsigned i = ES; i <= GS; i++)
			if (i != CS)
				seg(w, i, 0x10, 0, 0xffffffff, AR_DATA);
		seg(w, TR, 0x18, 0x3000, 0x67, AR_TSS);
		set(w, VMCS_ROW_GUEST_RIP, 0x400000);
	}
	seg(w, LDTR, 0, 0, 0, VMX_AR_UNUSABLE);
	set(w, VMCS_ROW_GUEST_GDTR_BASE, real ? 0 : GDT_BASE);
	set(w, VMCS_ROW_GUEST_GDTR_LIMIT, real ? 0xffff : 0x47);
	set(w, VMCS_ROW_GUEST_IDTR_LIMIT, real ? 0x3ff : 0xfff);
	set(w, VMCS_ROW_GUEST_RSP, 0x8000);
	set(w, VMCS_ROW_GUEST_RFLAGS, FLAG_FIXED1);
	set(w, VMCS_ROW_VMCS_LINK_POINTER, VMCS_POINTER_INVALID);
}

static void world_free(struct world *w)
{
	vmx_destroy(w->vmx);
	machine_free(&w->m);
}

/* The first failure in VM entry's order: controls, host state, guest state. */
static const struct check_row *first_failure(struct world *w)
{
	const struct check_row *row = vmx_check_controls(w->vmx);
	if (!row)
		row = vmx_check_host_state(w->vmx);
	if (!row)
		row = vmx_check_guest_state(w->vmx);
	return row;
}

static void assert_valid(struct world *w)
{
	const struct check_row *row = first_failure(w);
	ck_assert_msg(row == NULL, "valid VMCS fails: %s", row ? row->text : "");
}

/* ---- the edits ---- */

typedef void edit_fn(struct world *w);

#define EDIT(name) static void name(struct world *w)

/* 26.2.1.1 */
EDIT(pin_bad) { clr(w, VMCS_ROW_PIN_BASED_CONTROLS, VMX_PINBASED_DEFAULT1); }
EDIT(pin_posted_unsupported) { or_(w, VMCS_ROW_PIN_BASED_CONTROLS, VMX_CTL(VMX_PIN_POSTED_INTERRUPTS)); }
EDIT(proc_bad) { clr(w, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_CTL(1)); }
EDIT(proc_tertiary_unsupported) { or_(w, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_CTL(VMX_PROC_TERTIARY_CONTROLS)); }
EDIT(proc2_bad) { or_(w, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_PML)); }
EDIT(proc3_bad)
{
	allow(w, MSR_VMX_PROCBASED_CTLS, VMX_CTL(VMX_PROC_TERTIARY_CONTROLS));
	or_(w, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_CTL(VMX_PROC_TERTIARY_CONTROLS));
	set(w, VMCS_ROW_TERTIARY_PROC_CONTROLS, 1u << VMX_PROC3_IPI_VIRT);
}
EDIT(cr3_targets) { set(w, VMCS_ROW_CR3_TARGET_COUNT, 5); }
EDIT(io_a_unaligned) { set(w, VMCS_ROW_IO_BITMAP_A, IO_A + 0x800); }
EDIT(io_b_wide) { set(w, VMCS_ROW_IO_BITMAP_B, 1ull << w->m.cpu.maxphyaddr); }
EDIT(msr_bitmap_bad) { set(w, VMCS_ROW_MSR_BITMAP, MSR_BITMAP | 8); }
EDIT(vapic_bad) { set(w, VMCS_ROW_VIRTUAL_APIC_ADDR, VAPIC | 0x80); }
EDIT(tpr_high) { set(w, VMCS_ROW_TPR_THRESHOLD, 0x10); }
EDIT(tpr_above_vtpr)
{
	physmem_write(&w->m.pm, VAPIC + 0x80, 1, 0x40);      /* VTPR 4 */
	set(w, VMCS_ROW_TPR_THRESHOLD, 5);
}
/* Rules on controls no model allows: the capability MSR widened first. */
static void proc2_allow(struct world *w, unsigned bit)
{
	w->vmx->caps[MSR_VMX_PROCBASED_CTLS2 - MSR_VMX_FIRST] |= (uint64_t)VMX_CTL(bit) << 32;
	or_(w, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(bit));
}
EDIT(x2apic_no_tpr)
{
	clr(w, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_CTL(VMX_PROC_TPR_SHADOW));
	proc2_allow(w, VMX_PROC2_VIRTUALIZE_X2APIC);
}
EDIT(x2apic_and_apic)
{
	proc2_allow(w, VMX_PROC2_VIRTUALIZE_X2APIC);
	proc2_allow(w, VMX_PROC2_VIRTUALIZE_APIC);
	set(w, VMCS_ROW_APIC_ACCESS_ADDR, 0x306000);
}
EDIT(vid_no_ext_intr)
{
	proc2_allow(w, VMX_PROC2_VIRTUAL_INTR_DELIVERY);
	clr(w, VMCS_ROW_PIN_BASED_CONTROLS, VMX_CTL(VMX_PIN_EXT_INTR_EXITING));
}
/* Posted interrupts allowed, with virtual-interrupt delivery, acknowledge
 * interrupt on exit, a vector and a descriptor: valid. */
static void posted(struct world *w)
{
	allow(w, MSR_VMX_PINBASED_CTLS, VMX_CTL(VMX_PIN_POSTED_INTERRUPTS));
	or_(w, VMCS_ROW_PIN_BASED_CONTROLS, VMX_CTL(VMX_PIN_POSTED_INTERRUPTS));
	proc2_allow(w, VMX_PROC2_VIRTUAL_INTR_DELIVERY);
	set(w, VMCS_ROW_POSTED_INTR_NV, 0xf2);
	set(w, VMCS_ROW_POSTED_INTR_DESC_ADDR, 0x306040);
}
EDIT(posted_no_vid) { posted(w); clr(w, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_VIRTUAL_INTR_DELIVERY)); }
EDIT(posted_no_ack) { posted(w); clr(w, VMCS_ROW_EXIT_CONTROLS, VMX_CTL(VMX_EXITCTL_ACK_INTR_ON_EXIT)); }
EDIT(posted_nv) { posted(w); set(w, VMCS_ROW_POSTED_INTR_NV, 0x1f2); }
EDIT(posted_desc) { posted(w); set(w, VMCS_ROW_POSTED_INTR_DESC_ADDR, 0x306020); }
EDIT(vnmi_no_nmi_exit) { clr(w, VMCS_ROW_PIN_BASED_CONTROLS, VMX_CTL(VMX_PIN_NMI_EXITING)); }
EDIT(nmi_window_no_vnmi)
{
	clr(w, VMCS_ROW_PIN_BASED_CONTROLS, VMX_CTL(VMX_PIN_VIRTUAL_NMIS));
	or_(w, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_CTL(VMX_PROC_NMI_WINDOW_EXITING));
}
EDIT(apic_access_bad)
{
	proc2_allow(w, VMX_PROC2_VIRTUALIZE_APIC);
	set(w, VMCS_ROW_APIC_ACCESS_ADDR, 0x306001);
}
EDIT(vpid_zero) { set(w, VMCS_ROW_VPID, 0); }
EDIT(eptp_uc_unsupported)
{
	w->vmx->caps[MSR_VMX_EPT_VPID_CAP - MSR_VMX_FIRST] &= ~EPT_CAP_UC;
	clr(w, VMCS_ROW_EPT_POINTER, EPTP_MEMTYPE_MASK);
}
EDIT(eptp_walk5) { set(w, VMCS_ROW_EPT_POINTER, (get(w, VMCS_ROW_EPT_POINTER) & ~EPTP_WALK_MASK) | (4u << EPTP_WALK_SHIFT)); }
EDIT(eptp_ad)
{
	w->vmx->caps[MSR_VMX_EPT_VPID_CAP - MSR_VMX_FIRST] &= ~EPT_CAP_AD;
	or_(w, VMCS_ROW_EPT_POINTER, EPTP_AD_ENABLE);
}
EDIT(eptp_sss) { or_(w, VMCS_ROW_EPT_POINTER, EPTP_SSS_ENABLE); }
EDIT(eptp_reserved) { or_(w, VMCS_ROW_EPT_POINTER, 1u << 9); }
EDIT(pml_no_ept)
{
	proc2_allow(w, VMX_PROC2_PML);
	set(w, VMCS_ROW_PML_ADDRESS, 0x306000);
	clr(w, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_EPT));
}
EDIT(pml_addr) { proc2_allow(w, VMX_PROC2_PML); set(w, VMCS_ROW_PML_ADDRESS, 0x306004); }
EDIT(ug_no_ept) { clr(w, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_EPT)); }
EDIT(mbec_no_ept)
{
	proc2_allow(w, VMX_PROC2_MODE_BASED_EPT_EXEC);
	clr(w, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_EPT));
}
EDIT(spp_no_ept)
{
	proc2_allow(w, VMX_PROC2_SUBPAGE_WRITE);
	set(w, VMCS_ROW_SPPT_POINTER, 0x306000);
	clr(w, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_EPT));
}
EDIT(spptp_bad) { proc2_allow(w, VMX_PROC2_SUBPAGE_WRITE); set(w, VMCS_ROW_SPPT_POINTER, 0x306100); }
EDIT(vmfunc_bad)
{
	or_(w, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_VM_FUNCTIONS));
	set(w, VMCS_ROW_VM_FUNCTION_CONTROLS, 2);
}
EDIT(eptp_switch_no_ept)
{
	or_(w, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_VM_FUNCTIONS));
	set(w, VMCS_ROW_VM_FUNCTION_CONTROLS, VMX_VMFUNC_EPTP_SWITCHING);
	set(w, VMCS_ROW_EPTP_LIST_ADDR, 0x306000);
	clr(w, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_EPT));
}
EDIT(eptp_list_bad)
{
	or_(w, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_VM_FUNCTIONS));
	set(w, VMCS_ROW_VM_FUNCTION_CONTROLS, VMX_VMFUNC_EPTP_SWITCHING);
	set(w, VMCS_ROW_EPTP_LIST_ADDR, 1ull << 50);
}
EDIT(vmread_bitmap_bad)
{
	proc2_allow(w, VMX_PROC2_VMCS_SHADOWING);
	set(w, VMCS_ROW_VMREAD_BITMAP, 0x306010);
	set(w, VMCS_ROW_VMWRITE_BITMAP, 0x307000);
}
EDIT(vmwrite_bitmap_bad)
{
	proc2_allow(w, VMX_PROC2_VMCS_SHADOWING);
	set(w, VMCS_ROW_VMREAD_BITMAP, 0x306000);
	set(w, VMCS_ROW_VMWRITE_BITMAP, 0x307010);
}
EDIT(ve_info_bad) { proc2_allow(w, VMX_PROC2_EPT_VIOLATION_VE); set(w, VMCS_ROW_VE_INFO_ADDR, 0x306800); }
EDIT(pt_gpa)
{
	proc2_allow(w, VMX_PROC2_PT_GUEST_PHYSICAL);
	allow(w, MSR_VMX_ENTRY_CTLS, VMX_CTL(VMX_ENTRYCTL_LOAD_RTIT_CTL));
	or_(w, VMCS_ROW_ENTRY_CONTROLS, VMX_CTL(VMX_ENTRYCTL_LOAD_RTIT_CTL));
}

/* 26.2.1.2 */
EDIT(exit_bad) { clr(w, VMCS_ROW_EXIT_CONTROLS, VMX_CTL(VMX_EXITCTL_SAVE_DEBUG_CONTROLS) | VMX_CTL(0)); }
EDIT(exit2_bad)
{
	allow(w, MSR_VMX_EXIT_CTLS, VMX_CTL(VMX_EXITCTL_SECONDARY_CONTROLS));
	or_(w, VMCS_ROW_EXIT_CONTROLS, VMX_CTL(VMX_EXITCTL_SECONDARY_CONTROLS));
	set(w, VMCS_ROW_SECONDARY_EXIT_CONTROLS, 1);
}
EDIT(save_timer) { or_(w, VMCS_ROW_EXIT_CONTROLS, VMX_CTL(VMX_EXITCTL_SAVE_PREEMPTION_TIMER)); }
EDIT(exit_store_unaligned) { set(w, VMCS_ROW_EXIT_MSR_STORE_COUNT, 1); set(w, VMCS_ROW_EXIT_MSR_STORE_ADDR, MSR_LIST + 8); }
EDIT(exit_store_end_wide)
{
	set(w, VMCS_ROW_EXIT_MSR_STORE_COUNT, 2);
	set(w, VMCS_ROW_EXIT_MSR_STORE_ADDR, (1ull << w->m.cpu.maxphyaddr) - 16);
}
EDIT(exit_load_wide) { set(w, VMCS_ROW_EXIT_MSR_LOAD_COUNT, 1); set(w, VMCS_ROW_EXIT_MSR_LOAD_ADDR, 1ull << 48); }

/* 26.2.1.3 */
EDIT(entry_bad) { clr(w, VMCS_ROW_ENTRY_CONTROLS, VMX_CTL(0)); }
static void inject(struct world *w, uint32_t info) { set(w, VMCS_ROW_ENTRY_INTR_INFO, VMX_INTR_VALID | info); }
#define TYPE(t) ((uint32_t)(t) << VMX_INTR_TYPE_SHIFT)
EDIT(inj_type1) { inject(w, TYPE(1) | 32); }
EDIT(inj_type7_no_mtf)
{
	w->vmx->caps[MSR_VMX_PROCBASED_CTLS - MSR_VMX_FIRST] &= ~((uint64_t)VMX_CTL(VMX_PROC_MONITOR_TRAP_FLAG) << 32);
	inject(w, TYPE(VMX_INTR_OTHER));
}
EDIT(inj_nmi_vector) { inject(w, TYPE(VMX_INTR_NMI) | 3); }
EDIT(inj_exc_vector) { inject(w, TYPE(VMX_INTR_HW_EXCEPTION) | 32); }
EDIT(inj_other_vector) { inject(w, TYPE(VMX_INTR_OTHER) | 1); }
EDIT(inj_gp_no_code) { inject(w, TYPE(VMX_INTR_HW_EXCEPTION) | EXC_GP); }
EDIT(inj_ud_code) { inject(w, TYPE(VMX_INTR_HW_EXCEPTION) | VMX_INTR_DELIVER_ERROR | EXC_UD); }
EDIT(inj_ext_code) { inject(w, TYPE(VMX_INTR_EXTERNAL) | VMX_INTR_DELIVER_ERROR | 0x20); }
EDIT(inj_real_gp_code) { inject(w, TYPE(VMX_INTR_HW_EXCEPTION) | VMX_INTR_DELIVER_ERROR | EXC_GP); }
EDIT(inj_reserved) { inject(w, TYPE(VMX_INTR_EXTERNAL) | 0x20 | (1u << 20)); }
EDIT(inj_code_high)
{
	inject(w, TYPE(VMX_INTR_HW_EXCEPTION) | VMX_INTR_DELIVER_ERROR | EXC_GP);
	set(w, VMCS_ROW_ENTRY_EXCEPTION_ERROR_CODE, 0x10000);
}
EDIT(inj_len16) { inject(w, TYPE(VMX_INTR_SOFT_INT) | 0x80); set(w, VMCS_ROW_ENTRY_INSTRUCTION_LEN, 16); }
EDIT(inj_len0)
{
	w->vmx->caps[MSR_VMX_MISC - MSR_VMX_FIRST] &= ~VMX_MISC_INJECT_ZERO_LENGTH;
	inject(w, TYPE(VMX_INTR_SOFT_EXCEPTION) | EXC_BP);
}
EDIT(entry_smm)
{
	allow(w, MSR_VMX_ENTRY_CTLS, VMX_CTL(VMX_ENTRYCTL_TO_SMM));
	or_(w, VMCS_ROW_ENTRY_CONTROLS, VMX_CTL(VMX_ENTRYCTL_TO_SMM));
}
EDIT(entry_dual)
{
	allow(w, MSR_VMX_ENTRY_CTLS, VMX_CTL(VMX_ENTRYCTL_DEACTIVATE_DUAL_MONITOR));
	or_(w, VMCS_ROW_ENTRY_CONTROLS, VMX_CTL(VMX_ENTRYCTL_DEACTIVATE_DUAL_MONITOR));
}
EDIT(entry_load_unaligned) { set(w, VMCS_ROW_ENTRY_MSR_LOAD_COUNT, 3); set(w, VMCS_ROW_ENTRY_MSR_LOAD_ADDR, MSR_LIST + 4); }

/* 26.2.2 */
#define NONCANONICAL 0x0100000000000000ull    /* bit 56 alone: canonical with neither 48 nor 57 bits */
#define CANONICAL57  0xff00000000000000ull    /* canonical with 57 bits only */
EDIT(host_cr0_no_ne) { clr(w, VMCS_ROW_HOST_CR0, CR0_NE); }
EDIT(host_cr4_no_vmxe) { clr(w, VMCS_ROW_HOST_CR4, CR4_VMXE); }
#define CR4_CET (1ull << 23)
EDIT(host_cet_no_wp)
{
	w->vmx->caps[MSR_VMX_CR4_FIXED1 - MSR_VMX_FIRST] |= CR4_CET;
	or_(w, VMCS_ROW_HOST_CR4, CR4_CET);
}
EDIT(host_cr3_wide) { set(w, VMCS_ROW_HOST_CR3, PML4 | 1ull << w->m.cpu.maxphyaddr); }
EDIT(host_sysenter_esp) { set(w, VMCS_ROW_HOST_IA32_SYSENTER_ESP, NONCANONICAL); }
EDIT(host_sysenter_eip) { set(w, VMCS_ROW_HOST_IA32_SYSENTER_EIP, CANONICAL57); }
EDIT(host_perf)
{
	allow(w, MSR_VMX_EXIT_CTLS, VMX_CTL(VMX_EXITCTL_LOAD_PERF_GLOBAL_CTRL));
	or_(w, VMCS_ROW_EXIT_CONTROLS, VMX_CTL(VMX_EXITCTL_LOAD_PERF_GLOBAL_CTRL));
	set(w, VMCS_ROW_HOST_IA32_PERF_GLOBAL_CTRL, 1);
}
EDIT(host_pat_bad) { set(w, VMCS_ROW_HOST_IA32_PAT, HOST_PAT | 0x0200000000000000ull); }
EDIT(host_pat_8) { set(w, VMCS_ROW_HOST_IA32_PAT, 0x08); }
EDIT(host_efer_rsvd) { or_(w, VMCS_ROW_HOST_IA32_EFER, 1u << 1); }
EDIT(host_efer_no_lme) { clr(w, VMCS_ROW_HOST_IA32_EFER, EFER_LME); }
EDIT(host_pkrs)
{
	allow(w, MSR_VMX_EXIT_CTLS, VMX_CTL(VMX_EXITCTL_LOAD_PKRS));
	or_(w, VMCS_ROW_EXIT_CONTROLS, VMX_CTL(VMX_EXITCTL_LOAD_PKRS));
	set(w, VMCS_ROW_HOST_IA32_PKRS, 1ull << 32);
}
/* 26.2.3 */
EDIT(host_ds_rpl) { set(w, VMCS_ROW_HOST_DS_SELECTOR, 0x13); }
EDIT(host_tr_ti) { set(w, VMCS_ROW_HOST_TR_SELECTOR, 0x1c); }
EDIT(host_cs_null) { set(w, VMCS_ROW_HOST_CS_SELECTOR, 0); }
EDIT(host_tr_null) { set(w, VMCS_ROW_HOST_TR_SELECTOR, 0); }
/* A 32-bit host: VM entry from outside IA-32e mode (IA32_EFER.LMA = 0 at
 * VMLAUNCH), host address-space size 0, no EFER load at exit. */
static void host32(struct world *w)
{
	w->m.cpu.efer &= ~(uint64_t)(EFER_LMA | EFER_LME);
	clr(w, VMCS_ROW_EXIT_CONTROLS, VMX_CTL(VMX_EXITCTL_HOST_ADDR_SPACE_SIZE) | VMX_CTL(VMX_EXITCTL_LOAD_EFER));
	set(w, VMCS_ROW_HOST_IA32_EFER, 0);
}
EDIT(host_ss_null) { host32(w); set(w, VMCS_ROW_HOST_SS_SELECTOR, 0); }
EDIT(host_fs_base) { set(w, VMCS_ROW_HOST_FS_BASE, NONCANONICAL); }
EDIT(host_idtr_base) { set(w, VMCS_ROW_HOST_IDTR_BASE, CANONICAL57); }
/* 26.2.4 */
EDIT(host32_ia32e_guest) { host32(w); }
EDIT(host32_size1) { host32(w); or_(w, VMCS_ROW_EXIT_CONTROLS, VMX_CTL(VMX_EXITCTL_HOST_ADDR_SPACE_SIZE)); }
EDIT(host64_size0)
{
	clr(w, VMCS_ROW_EXIT_CONTROLS, VMX_CTL(VMX_EXITCTL_HOST_ADDR_SPACE_SIZE) | VMX_CTL(VMX_EXITCTL_LOAD_EFER));
}
EDIT(host32_pcide) { host32(w); or_(w, VMCS_ROW_HOST_CR4, CR4_PCIDE); }
EDIT(host32_rip) { host32(w); set(w, VMCS_ROW_HOST_RIP, 1ull << 32); }
EDIT(host64_no_pae) { clr(w, VMCS_ROW_HOST_CR4, CR4_PAE); }
EDIT(host64_rip) { set(w, VMCS_ROW_HOST_RIP, NONCANONICAL); }

/* 26.3.1.1 */
EDIT(guest_cr0_no_ne) { clr(w, VMCS_ROW_GUEST_CR0, CR0_NE); }
EDIT(guest_cr0_no_pg) { clr(w, VMCS_ROW_GUEST_CR0, CR0_PG); }
EDIT(guest_cr4_la57) { or_(w, VMCS_ROW_GUEST_CR4, CR4_LA57); }

/* ---- the cases ---- */

#define CONTROLS { EXIT_REPORT_VMFAIL_VALID, VMXERR_ENTRY_INVALID_CONTROL, 0 }
#define HOST     { EXIT_REPORT_VMFAIL_VALID, VMXERR_ENTRY_INVALID_HOST_STATE, 0 }
#define GUEST(q) { EXIT_REPORT_ENTRY_FAILURE, VMX_EXIT_ENTRY_FAILURE | VMX_EXIT_INVALID_GUEST_STATE, (q) }

struct check_case {
	const char *row;             /* a part of the row's text that no other row has */
	const char *model;
	enum world_kind world;
	edit_fn *edit;
	struct check_outcome want;
};

#define SKL "skylake-lite"

static const struct check_case cases[] = {
	/* 26.2.1.1 */
	{ "pin-based VM-execution control has a reserved", SKL, G64, pin_bad, CONTROLS },
	{ "pin-based VM-execution control has a reserved", SKL, G64, pin_posted_unsupported, CONTROLS },
	{ "primary processor-based VM-execution control has a reserved", SKL, G64, proc_bad, CONTROLS },
	{ "primary processor-based VM-execution control has a reserved", SKL, G64, proc_tertiary_unsupported, CONTROLS },
	{ "secondary processor-based VM-execution control has a reserved", SKL, G64, proc2_bad, CONTROLS },
	{ "tertiary processor-based", SKL, G64, proc3_bad, CONTROLS },
	{ "CR3-target count", SKL, G64, cr3_targets, CONTROLS },
	{ "I/O-bitmap address", SKL, G64, io_a_unaligned, CONTROLS },
	{ "I/O-bitmap address", SKL, G64, io_b_wide, CONTROLS },
	{ "MSR-bitmap address", SKL, G64, msr_bitmap_bad, CONTROLS },
	{ "the virtual-APIC address", SKL, G64, vapic_bad, CONTROLS },
	{ "TPR threshold bits 31:4", SKL, G64, tpr_high, CONTROLS },
	{ "exceed VTPR", SKL, G64, tpr_above_vtpr, CONTROLS },
	{ "without use TPR shadow", SKL, G64, x2apic_no_tpr, CONTROLS },
	{ "virtualize x2APIC mode together", SKL, G64, x2apic_and_apic, CONTROLS },
	{ "virtual-interrupt delivery without external-interrupt", SKL, G64, vid_no_ext_intr, CONTROLS },
	{ "posted interrupts without virtual-interrupt delivery", SKL, G64, posted_no_vid, CONTROLS },
	{ "posted interrupts without acknowledge", SKL, G64, posted_no_ack, CONTROLS },
	{ "notification vector bits 15:8", SKL, G64, posted_nv, CONTROLS },
	{ "descriptor address is not 64-byte", SKL, G64, posted_desc, CONTROLS },
	{ "virtual NMIs without NMI exiting", SKL, G64, vnmi_no_nmi_exit, CONTROLS },
	{ "NMI-window exiting without virtual NMIs", SKL, G64, nmi_window_no_vnmi, CONTROLS },
	{ "APIC-access address", SKL, G64, apic_access_bad, CONTROLS },
	{ "VPID of 0000H", SKL, G64, vpid_zero, CONTROLS },
	{ "EPTP memory type", SKL, G64, eptp_uc_unsupported, CONTROLS },
	{ "EPTP page-walk length", SKL, G64, eptp_walk5, CONTROLS },
	{ "EPTP bit 6", SKL, G64, eptp_ad, CONTROLS },
	{ "EPTP bit 7", SKL, G64, eptp_sss, CONTROLS },
	{ "EPTP bits 11:8", SKL, G64, eptp_reserved, CONTROLS },
	{ "enable PML without enable EPT", SKL, G64, pml_no_ept, CONTROLS },
	{ "the PML address", SKL, G64, pml_addr, CONTROLS },
	{ "unrestricted guest without enable EPT", SKL, GREAL, ug_no_ept, CONTROLS },
	{ "mode-based execute control", SKL, G64, mbec_no_ept, CONTROLS },
	{ "sub-page write permissions for EPT without", SKL, G64, spp_no_ept, CONTROLS },
	{ "the SPPTP", SKL, G64, spptp_bad, CONTROLS },
	{ "VM-function control has a reserved", SKL, G64, vmfunc_bad, CONTROLS },
	{ "EPTP switching without enable EPT", SKL, G64, eptp_switch_no_ept, CONTROLS },
	{ "EPTP-list address", SKL, G64, eptp_list_bad, CONTROLS },
	{ "VMREAD-bitmap address", SKL, G64, vmread_bitmap_bad, CONTROLS },
	{ "VMWRITE-bitmap address", SKL, G64, vmwrite_bitmap_bad, CONTROLS },
	{ "virtualization-exception information address", SKL, G64, ve_info_bad, CONTROLS },
	{ "Intel PT uses guest physical", SKL, G64, pt_gpa, CONTROLS },
	/* 26.2.1.2 */
	{ "a VM-exit control has a reserved", SKL, G64, exit_bad, CONTROLS },
	{ "a secondary VM-exit control", SKL, G64, exit2_bad, CONTROLS },
	{ "save VMX-preemption timer value without", SKL, G64, save_timer, CONTROLS },
	{ "VM-exit MSR-store list", SKL, G64, exit_store_unaligned, CONTROLS },
	{ "VM-exit MSR-store list", SKL, G64, exit_store_end_wide, CONTROLS },
	{ "VM-exit MSR-load list", SKL, G64, exit_load_wide, CONTROLS },
	/* 26.2.1.3 */
	{ "a VM-entry control has a reserved", SKL, G64, entry_bad, CONTROLS },
	{ "a reserved interruption type", SKL, G64, inj_type1, CONTROLS },
	{ "a reserved interruption type", SKL, G64, inj_type7_no_mtf, CONTROLS },
	{ "an NMI with a vector", SKL, G64, inj_nmi_vector, CONTROLS },
	{ "a vector above 31", SKL, G64, inj_exc_vector, CONTROLS },
	{ "an other event with a vector", SKL, G64, inj_other_vector, CONTROLS },
	{ "deliver-error-code is 0", SKL, G32, inj_gp_no_code, CONTROLS },
	{ "deliver-error-code is 1", SKL, G64, inj_ud_code, CONTROLS },
	{ "deliver-error-code is 1", SKL, G64, inj_ext_code, CONTROLS },
	{ "deliver-error-code is 1", SKL, GREAL, inj_real_gp_code, CONTROLS },
	{ "interruption-information bits 30:12", SKL, G64, inj_reserved, CONTROLS },
	{ "error code bits 31:16", SKL, G64, inj_code_high, CONTROLS },
	{ "instruction length is above 15", SKL, G64, inj_len16, CONTROLS },
	{ "instruction length is 0 without", SKL, G64, inj_len0, CONTROLS },
	{ "entry to SMM outside SMM", SKL, G64, entry_smm, CONTROLS },
	{ "deactivate dual-monitor treatment outside", SKL, G64, entry_dual, CONTROLS },
	{ "VM-entry MSR-load list", SKL, G64, entry_load_unaligned, CONTROLS },
	/* 26.2.2 */
	{ "host CR0 sets a bit", SKL, G64, host_cr0_no_ne, HOST },
	{ "host CR4 sets a bit", SKL, G64, host_cr4_no_vmxe, HOST },
	{ "host CR4.CET", SKL, G64, host_cet_no_wp, HOST },
	{ "host CR3 sets bits", SKL, G64, host_cr3_wide, HOST },
	{ "host CR3 sets bits", "core2", G64, host_cr3_wide, HOST },
	{ "host IA32_SYSENTER_ESP or", SKL, G64, host_sysenter_esp, HOST },
	{ "host IA32_SYSENTER_ESP or", "icelake-lite", G64, host_sysenter_esp, HOST },
	{ "host IA32_SYSENTER_ESP or", SKL, G64, host_sysenter_eip, HOST },
	{ "host value sets reserved", SKL, G64, host_perf, HOST },
	{ "host PAT entry", SKL, G64, host_pat_bad, HOST },
	{ "host PAT entry", SKL, G64, host_pat_8, HOST },
	{ "host EFER sets reserved", SKL, G64, host_efer_rsvd, HOST },
	{ "host EFER.LMA or LME", SKL, G64, host_efer_no_lme, HOST },
	{ "host IA32_PKRS", SKL, G64, host_pkrs, HOST },
	/* 26.2.3 */
	{ "has RPL or TI set", SKL, G64, host_ds_rpl, HOST },
	{ "has RPL or TI set", SKL, G64, host_tr_ti, HOST },
	{ "host CS or TR selector is 0000H", SKL, G64, host_cs_null, HOST },
	{ "host CS or TR selector is 0000H", SKL, G64, host_tr_null, HOST },
	{ "host SS selector is 0000H", SKL, G32, host_ss_null, HOST },
	{ "a host FS, GS, GDTR", SKL, G64, host_fs_base, HOST },
	{ "a host FS, GS, GDTR", SKL, G64, host_idtr_base, HOST },
	/* 26.2.4 */
	{ "outside IA-32e mode, IA-32e mode guest", SKL, G64, host32_ia32e_guest, HOST },
	{ "outside IA-32e mode, host address-space size is 1", SKL, G32, host32_size1, HOST },
	{ "in IA-32e mode, host address-space size is 0", SKL, G64, host64_size0, HOST },
	{ "host CR4.PCIDE 1", SKL, G32, host32_pcide, HOST },
	{ "host RIP bits 63:32", SKL, G32, host32_rip, HOST },
	{ "host CR4.PAE 0", SKL, G64, host64_no_pae, HOST },
	{ "non-canonical host RIP", SKL, G64, host64_rip, HOST },
	/* 26.3.1.1 */
	{ "guest CR0 sets a bit", SKL, G64, guest_cr0_no_ne, GUEST(0) },
	{ "guest CR0 sets a bit", SKL, G32, guest_cr0_no_pg, GUEST(0) },
	{ "guest CR0 sets a bit", SKL, GREAL, guest_cr0_no_ne, GUEST(0) },
	{ "guest CR4 sets a bit", SKL, G64, guest_cr4_la57, GUEST(0) },
};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

static const enum vmx_check_table tables[] = { VMX_CHECKS_CONTROLS, VMX_CHECKS_HOST, VMX_CHECKS_GUEST };

/* The one row whose text contains part; NULL if none or several do. */
static const struct check_row *row_named(const char *part)
{
	const struct check_row *found = NULL;
	for (unsigned t = 0; t < 3; t++) {
		size_t n;
		const struct check_row *rows = vmx_check_rows(tables[t], &n);
		for (size_t i = 0; i < n; i++)
			if (strstr(rows[i].text, part)) {
				if (found)
					return NULL;
				found = &rows[i];
			}
	}
	return found;
}

START_TEST(valid_vmcs)
{
	static const struct { const char *model; enum world_kind kind; } worlds[] = {
		{ SKL, G64 }, { SKL, G32 }, { SKL, GREAL }, { "core2", G64 }, { "core2", G32 },
		{ "icelake-lite", G64 },
	};
	struct world w;
	build(&w, worlds[_i].model, worlds[_i].kind);
	assert_valid(&w);
	world_free(&w);
}
END_TEST

START_TEST(check_rows)
{
	const struct check_case *c = &cases[_i];
	const struct check_row *want = row_named(c->row);
	ck_assert_msg(want != NULL, "case %d: \"%s\" names no single row", _i, c->row);
	struct world w;
	build(&w, c->model, c->world);
	assert_valid(&w);
	c->edit(&w);
	const struct check_row *got = first_failure(&w);
	ck_assert_msg(got == want, "case %d: expected \"%s\", got \"%s\"", _i, want->text,
		      got ? got->text : "(no failure)");
	ck_assert_int_eq(got->outcome.kind, c->want.kind);
	ck_assert_uint_eq(got->outcome.code, c->want.code);
	ck_assert_uint_eq(got->outcome.qualification, c->want.qualification);
	world_free(&w);
}
END_TEST

/* Every row of the three tables has at least one failing case. */
START_TEST(every_row_has_a_case)
{
	size_t rows = 0;
	for (unsigned t = 0; t < 3; t++) {
		size_t n;
		const struct check_row *r = vmx_check_rows(tables[t], &n);
		rows += n;
		for (size_t i = 0; i < n; i++) {
			bool covered = false;
			for (size_t k = 0; k < N_CASES && !covered; k++)
				covered = row_named(cases[k].row) == &r[i];
			ck_assert_msg(covered, "no case for row \"%s\"", r[i].text);
		}
	}
	ck_assert_uint_le(rows, N_CASES);
}
END_TEST

/* ---- legal corners: each must pass ---- */

typedef void corner_fn(struct world *w);

/* The TRUE_* MSRs let the default1 controls CR3-load/store exiting be 0 on
 * skylake-lite (A.2). */
EDIT(corner_true_ctls)
{
	clr(w, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_CTL(VMX_PROC_CR3_LOAD_EXITING) | VMX_CTL(VMX_PROC_CR3_STORE_EXITING));
}
/* Secondary controls are not checked at all without "activate secondary
 * controls" (24.6.2). */
EDIT(corner_proc2_ignored)
{
	clr(w, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_CTL(VMX_PROC_SECONDARY_CONTROLS));
	set(w, VMCS_ROW_SECONDARY_PROC_CONTROLS, 0xffffffff);
}
/* Address rules apply only with their control: I/O bitmaps off, garbage
 * addresses. */
EDIT(corner_io_bitmaps_off)
{
	clr(w, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_CTL(VMX_PROC_IO_BITMAPS));
	set(w, VMCS_ROW_IO_BITMAP_A, 0x123);
}
/* An invalid interruption-information field (bit 31 clear) is not checked. */
EDIT(corner_inj_invalid) { set(w, VMCS_ROW_ENTRY_INTR_INFO, 0x7ffff7ff); }
/* Software events with instruction length 0 with IA32_VMX_MISC[30]. */
EDIT(corner_inj_len0) { inject(w, TYPE(VMX_INTR_SOFT_INT) | 0x80); }
/* IA32_VMX_BASIC[56]: a #UD with an error code. */
EDIT(corner_basic56)
{
	w->vmx->caps[MSR_VMX_BASIC - MSR_VMX_FIRST] |= VMX_BASIC_NO_HW_ERRCODE_CHECK;
	inject(w, TYPE(VMX_INTR_HW_EXCEPTION) | VMX_INTR_DELIVER_ERROR | EXC_UD);
}
/* A #GP without an error code into a real-mode guest (unrestricted guest,
 * CR0.PE = 0). */
EDIT(corner_real_gp) { inject(w, TYPE(VMX_INTR_HW_EXCEPTION) | EXC_GP); }
/* The MSR lists' addresses are not checked with count 0. */
EDIT(corner_msr_list_empty) { set(w, VMCS_ROW_EXIT_MSR_LOAD_ADDR, 0x7); }

/* 57-bit canonical bases on a part with 5-level paging, CR4.LA57 = 0 in the
 * host CR4 field (the processor's width, emu/canonical.h). */
EDIT(corner_la57_bases)
{
	set(w, VMCS_ROW_HOST_FS_BASE, CANONICAL57);
	set(w, VMCS_ROW_HOST_IA32_SYSENTER_EIP, CANONICAL57);
}
/* A 32-bit host (outside IA-32e mode) entering a 32-bit guest. */
EDIT(corner_host32) { host32(w); }

static const struct { const char *model; enum world_kind kind; corner_fn *edit; } corners[] = {
	{ "icelake-lite", G64, corner_la57_bases },
	{ SKL, G32, corner_host32 },
	{ SKL, G64, corner_true_ctls },
	{ SKL, G64, corner_proc2_ignored },
	{ SKL, G64, corner_io_bitmaps_off },
	{ SKL, G64, corner_inj_invalid },
	{ SKL, G64, corner_inj_len0 },
	{ SKL, G64, corner_basic56 },
	{ SKL, GREAL, corner_real_gp },
	{ SKL, G64, corner_msr_list_empty },
};

START_TEST(legal_corners)
{
	struct world w;
	build(&w, corners[_i].model, corners[_i].kind);
	corners[_i].edit(&w);
	assert_valid(&w);
	world_free(&w);
}
END_TEST

/* core2 has no TRUE_* MSRs: CR3-load exiting is default1 there and must be 1. */
START_TEST(default1_without_true_ctls)
{
	struct world w;
	build(&w, "core2", G64);
	corner_true_ctls(&w);
	const struct check_row *row = first_failure(&w);
	ck_assert_ptr_eq(row, row_named("primary processor-based VM-execution control has a reserved"));
	world_free(&w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmx_checks");
	TCase *tc = tcase_create("valid");
	tcase_add_loop_test(tc, valid_vmcs, 0, 6);
	tcase_add_loop_test(tc, legal_corners, 0, (int)(sizeof(corners) / sizeof(corners[0])));
	tcase_add_test(tc, default1_without_true_ctls);
	suite_add_tcase(s, tc);
	tc = tcase_create("rows");
	tcase_add_loop_test(tc, check_rows, 0, (int)N_CASES);
	tcase_add_test(tc, every_row_has_a_case);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
