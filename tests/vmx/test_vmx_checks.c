/* Check suite for the VM-entry checks (vmx/consistency.c and guest_checks.c, SDM Vol.3 26.2 and
 * 26.3.1): a fully valid VMCS is built on a test CPU (a 64-bit host with a
 * 64-bit guest, a 32-bit protected-mode guest, or an unrestricted-guest
 * real-mode guest) and passes all three tables; then one case per row
 * {a unique part of the row's text, the world, the edit that breaks exactly
 * that rule, the outcome} expects that row to be the first failure, with its
 * outcome (VMfailValid(7), VMfailValid(8), or the VM-entry failure with exit
 * reason 33 and its qualification). A few legal corners must pass. A last
 * case checks that every row of the tables has a failing case. The valid
 * VMCS is built on every VMX model (core2 without TRUE_* MSRs or secondary
 * controls, nehalem-lite without unrestricted guest, skylake-lite, and
 * icelake-lite with 57-bit linear addresses); the cases run on skylake-lite
 * unless a rule depends on the model.
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

#include "emu/debug.h"
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
/* Bit 8: reserved, allowed-1 on no part (skylake-lite has posted interrupts). */
EDIT(pin_reserved_set) { or_(w, VMCS_ROW_PIN_BASED_CONTROLS, VMX_CTL(8)); }
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
static void exit_ctl(struct world *w, unsigned bit)
{
	allow(w, MSR_VMX_EXIT_CTLS, VMX_CTL(bit));
	or_(w, VMCS_ROW_EXIT_CONTROLS, VMX_CTL(bit));
}
EDIT(host_s_cet_noncanonical) { exit_ctl(w, VMX_EXITCTL_LOAD_CET_STATE); set(w, VMCS_ROW_HOST_IA32_S_CET, NONCANONICAL); }
EDIT(host_isst_noncanonical)
{
	exit_ctl(w, VMX_EXITCTL_LOAD_CET_STATE);
	set(w, VMCS_ROW_HOST_INTR_SSP_TABLE_ADDR, CANONICAL57);
}
EDIT(host_s_cet_reserved) { exit_ctl(w, VMX_EXITCTL_LOAD_CET_STATE); set(w, VMCS_ROW_HOST_IA32_S_CET, 1u << 9); }
EDIT(host_ssp64) { exit_ctl(w, VMX_EXITCTL_LOAD_CET_STATE); set(w, VMCS_ROW_HOST_SSP, NONCANONICAL); }
static void host32(struct world *w);
EDIT(host_ssp32) { host32(w); exit_ctl(w, VMX_EXITCTL_LOAD_CET_STATE); set(w, VMCS_ROW_HOST_SSP, 1ull << 32); }
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
EDIT(guest_pg_no_pe) { or_(w, VMCS_ROW_GUEST_CR0, CR0_PG); }
EDIT(guest_cet_no_wp)
{
	w->vmx->caps[MSR_VMX_CR4_FIXED1 - MSR_VMX_FIRST] |= CR4_CET;
	or_(w, VMCS_ROW_GUEST_CR4, CR4_CET);
}
static void entry_ctl(struct world *w, unsigned bit)
{
	allow(w, MSR_VMX_ENTRY_CTLS, VMX_CTL(bit));
	or_(w, VMCS_ROW_ENTRY_CONTROLS, VMX_CTL(bit));
}
EDIT(guest_debugctl) { entry_ctl(w, VMX_ENTRYCTL_LOAD_DEBUG_CONTROLS); set(w, VMCS_ROW_GUEST_IA32_DEBUGCTL, 1ull << 63); }
EDIT(guest_ia32e_no_pae) { clr(w, VMCS_ROW_GUEST_CR4, CR4_PAE); }
EDIT(guest_pcide) { or_(w, VMCS_ROW_GUEST_CR4, CR4_PCIDE); }
EDIT(guest_cr3_wide) { or_(w, VMCS_ROW_GUEST_CR3, 1ull << w->m.cpu.maxphyaddr); }
EDIT(guest_dr7) { entry_ctl(w, VMX_ENTRYCTL_LOAD_DEBUG_CONTROLS); or_(w, VMCS_ROW_GUEST_DR7, 1ull << 32); }
EDIT(guest_sysenter) { set(w, VMCS_ROW_GUEST_IA32_SYSENTER_EIP, NONCANONICAL); }
EDIT(guest_s_cet_noncanonical) { entry_ctl(w, VMX_ENTRYCTL_LOAD_CET_STATE); set(w, VMCS_ROW_GUEST_IA32_S_CET, NONCANONICAL); }
EDIT(guest_isst_noncanonical)
{
	entry_ctl(w, VMX_ENTRYCTL_LOAD_CET_STATE);
	set(w, VMCS_ROW_GUEST_INTR_SSP_TABLE_ADDR, NONCANONICAL);
}
EDIT(guest_s_cet_reserved) { entry_ctl(w, VMX_ENTRYCTL_LOAD_CET_STATE); set(w, VMCS_ROW_GUEST_IA32_S_CET, 1u << 6); }
EDIT(guest_ssp64) { entry_ctl(w, VMX_ENTRYCTL_LOAD_CET_STATE); set(w, VMCS_ROW_GUEST_SSP, NONCANONICAL); }
EDIT(guest_ssp32) { entry_ctl(w, VMX_ENTRYCTL_LOAD_CET_STATE); set(w, VMCS_ROW_GUEST_SSP, 1ull << 32); }
EDIT(guest_perf) { entry_ctl(w, VMX_ENTRYCTL_LOAD_PERF_GLOBAL_CTRL); set(w, VMCS_ROW_GUEST_IA32_PERF_GLOBAL_CTRL, 1); }
EDIT(guest_pat) { set(w, VMCS_ROW_GUEST_IA32_PAT, 0x0006000200060006ull); }
EDIT(guest_efer_rsvd) { or_(w, VMCS_ROW_GUEST_IA32_EFER, 1u << 1); }
EDIT(guest_efer_no_lma) { clr(w, VMCS_ROW_GUEST_IA32_EFER, EFER_LMA); }
EDIT(guest_efer_lme_only) { set(w, VMCS_ROW_GUEST_IA32_EFER, EFER_LME); }
EDIT(guest_bndcfgs_rsvd) { entry_ctl(w, VMX_ENTRYCTL_LOAD_BNDCFGS); set(w, VMCS_ROW_GUEST_IA32_BNDCFGS, 0x4); }
EDIT(guest_bndcfgs_addr) { entry_ctl(w, VMX_ENTRYCTL_LOAD_BNDCFGS); set(w, VMCS_ROW_GUEST_IA32_BNDCFGS, NONCANONICAL | 1); }
EDIT(guest_rtit) { entry_ctl(w, VMX_ENTRYCTL_LOAD_RTIT_CTL); set(w, VMCS_ROW_GUEST_IA32_RTIT_CTL, 1); }
EDIT(guest_pkrs) { entry_ctl(w, VMX_ENTRYCTL_LOAD_PKRS); set(w, VMCS_ROW_GUEST_IA32_PKRS, 1ull << 32); }
EDIT(guest_lbr) { entry_ctl(w, VMX_ENTRYCTL_LOAD_LBR_CTL); set(w, VMCS_ROW_GUEST_IA32_LBR_CTL, 1); }

/* 26.3.1.2 */
static uint32_t ar(struct world *w, unsigned s) { return (uint32_t)get(w, VMCS_ROW_GUEST_ES_AR + s); }
static void set_ar(struct world *w, unsigned s, uint32_t v) { set(w, VMCS_ROW_GUEST_ES_AR + s, v); }
static void set_type(struct world *w, unsigned s, unsigned type) { set_ar(w, s, (ar(w, s) & ~0xfu) | type); }
static void set_dpl(struct world *w, unsigned s, unsigned dpl)
{
	set_ar(w, s, (ar(w, s) & ~VMX_AR_DPL_MASK) | dpl << VMX_AR_DPL_SHIFT);
}
/* A usable LDT: selector 20H, limit FFFFH, present, type 2. */
static void ldt(struct world *w) { seg(w, LDTR, 0x20, 0x5000, 0xffff, 0x82); }
/* Virtual-8086 mode: RFLAGS.VM, segments 1000H with base 10000H, limit FFFFH,
 * access rights F3H. */
static void v86(struct world *w)
{
	or_(w, VMCS_ROW_GUEST_RFLAGS, FLAG_VM);
	for (unsigned s = ES; s <= GS; s++)
		seg(w, s, 0x1000, 0x10000, 0xffff, 0xf3);
	set(w, VMCS_ROW_GUEST_RIP, 0x100);
}
/* CPL 3: CS and SS with RPL and DPL 3. */
static void ring3(struct world *w)
{
	set(w, VMCS_ROW_GUEST_CS_SELECTOR, 0x0b);
	set(w, VMCS_ROW_GUEST_SS_SELECTOR, 0x13);
	set_dpl(w, CS, 3);
	set_dpl(w, SS, 3);
}
EDIT(tr_ti) { set(w, VMCS_ROW_GUEST_TR_SELECTOR, 0x1c); }
EDIT(ldtr_ti) { ldt(w); set(w, VMCS_ROW_GUEST_LDTR_SELECTOR, 0x24); }
EDIT(ss_rpl) { set(w, VMCS_ROW_GUEST_SS_SELECTOR, 0x13); }
EDIT(v86_base) { v86(w); set(w, VMCS_ROW_GUEST_DS_BASE, 0x10001); }
EDIT(fs_base) { set(w, VMCS_ROW_GUEST_FS_BASE, NONCANONICAL); }
EDIT(tr_base) { set(w, VMCS_ROW_GUEST_TR_BASE, CANONICAL57); }
EDIT(ldtr_base) { ldt(w); set(w, VMCS_ROW_GUEST_LDTR_BASE, NONCANONICAL); }
EDIT(cs_base) { set(w, VMCS_ROW_GUEST_CS_BASE, 1ull << 32); }
EDIT(ds_base) { set(w, VMCS_ROW_GUEST_DS_BASE, 1ull << 32); }
EDIT(v86_limit) { v86(w); set(w, VMCS_ROW_GUEST_SS_LIMIT, 0xfffff); }
EDIT(v86_ar) { v86(w); set_ar(w, GS, 0xf2); }
EDIT(cs_type3) { set_type(w, CS, 3); }
EDIT(cs_type1) { set_type(w, CS, 1); }
EDIT(ss_type1) { set_type(w, SS, 1); }
EDIT(ds_not_accessed) { set_type(w, DS, 2); }
EDIT(gs_exec_only) { set_type(w, GS, 9); }
EDIT(es_system) { set_ar(w, ES, ar(w, ES) & ~VMX_AR_S); }
EDIT(cs_system) { set_ar(w, CS, ar(w, CS) & ~VMX_AR_S); }
EDIT(cs_data_dpl3) { set_dpl(w, CS, 3); }
EDIT(cs_nonconforming_dpl) { set_dpl(w, CS, 3); }
EDIT(cs_conforming_dpl) { set_type(w, CS, 15); set_dpl(w, CS, 3); }
EDIT(ss_dpl_rpl) { set_type(w, CS, 15); set_dpl(w, SS, 3); }
EDIT(ss_dpl_real) { set_dpl(w, SS, 3); }
EDIT(ds_dpl_rpl) { set(w, VMCS_ROW_GUEST_DS_SELECTOR, 0x13); }
EDIT(fs_not_present) { set_ar(w, FS, ar(w, FS) & ~VMX_AR_P); }
EDIT(ds_11_8) { set_ar(w, DS, ar(w, DS) | 0x100); }
EDIT(cs_db_l) { set_ar(w, CS, ar(w, CS) | VMX_AR_DB); }
EDIT(ds_g_partial) { set(w, VMCS_ROW_GUEST_DS_LIMIT, 0xfffffeff); }
EDIT(ss_g_missing) { set_ar(w, SS, ar(w, SS) & ~VMX_AR_G); }
EDIT(cs_31_17) { set_ar(w, CS, ar(w, CS) | (1u << 20)); }
EDIT(tr_type3) { set_type(w, TR, 3); }
EDIT(tr_type9) { set_type(w, TR, 9); }
EDIT(tr_s) { set_ar(w, TR, ar(w, TR) | VMX_AR_S); }
EDIT(tr_p) { set_ar(w, TR, ar(w, TR) & ~VMX_AR_P); }
EDIT(tr_11_8) { set_ar(w, TR, ar(w, TR) | 0x200); }
EDIT(tr_g_partial) { set_ar(w, TR, ar(w, TR) | VMX_AR_G); }
EDIT(tr_g_missing) { set(w, VMCS_ROW_GUEST_TR_LIMIT, 0x100000); }
EDIT(tr_unusable) { set_ar(w, TR, ar(w, TR) | VMX_AR_UNUSABLE); }
EDIT(tr_31_17) { set_ar(w, TR, ar(w, TR) | (1u << 24)); }
EDIT(ldtr_type) { ldt(w); set_type(w, LDTR, 3); }
EDIT(ldtr_s) { ldt(w); set_ar(w, LDTR, ar(w, LDTR) | VMX_AR_S); }
EDIT(ldtr_p) { ldt(w); set_ar(w, LDTR, ar(w, LDTR) & ~VMX_AR_P); }
EDIT(ldtr_11_8) { ldt(w); set_ar(w, LDTR, ar(w, LDTR) | 0x400); }
EDIT(ldtr_g_partial) { ldt(w); set_ar(w, LDTR, ar(w, LDTR) | VMX_AR_G); set(w, VMCS_ROW_GUEST_LDTR_LIMIT, 0x1000); }
EDIT(ldtr_g_missing) { ldt(w); set(w, VMCS_ROW_GUEST_LDTR_LIMIT, 0x1fffff); }
EDIT(ldtr_31_17) { ldt(w); set_ar(w, LDTR, ar(w, LDTR) | (1u << 31)); }

/* 26.3.1.3 */
EDIT(gdtr_base) { set(w, VMCS_ROW_GUEST_GDTR_BASE, NONCANONICAL); }
EDIT(idtr_limit) { set(w, VMCS_ROW_GUEST_IDTR_LIMIT, 0x10000); }

/* 26.3.1.4 */
EDIT(rip_high) { set(w, VMCS_ROW_GUEST_RIP, 1ull << 32); }
EDIT(rip_noncanonical) { set(w, VMCS_ROW_GUEST_RIP, NONCANONICAL); }
EDIT(rflags_bit3) { or_(w, VMCS_ROW_GUEST_RFLAGS, 1u << 3); }
EDIT(rflags_no_bit1) { set(w, VMCS_ROW_GUEST_RFLAGS, 0); }
EDIT(rflags_bit22) { or_(w, VMCS_ROW_GUEST_RFLAGS, 1u << 22); }
EDIT(rflags_vm64) { v86(w); }
EDIT(rflags_if) { inject(w, TYPE(VMX_INTR_EXTERNAL) | 0x20); }

/* 26.3.1.5 */
static void activity(struct world *w, uint32_t state) { set(w, VMCS_ROW_GUEST_ACTIVITY_STATE, state); }
static void blocking(struct world *w, uint32_t bits) { set(w, VMCS_ROW_GUEST_INTERRUPTIBILITY, bits); }
static void interrupts_on(struct world *w) { or_(w, VMCS_ROW_GUEST_RFLAGS, FLAG_IF); }
EDIT(activity_sipi) { activity(w, VMX_ACTIVITY_WAIT_SIPI); }
EDIT(activity_4) { activity(w, 4); }
EDIT(hlt_ring3) { ring3(w); activity(w, VMX_ACTIVITY_HLT); }
EDIT(hlt_sti) { interrupts_on(w); activity(w, VMX_ACTIVITY_HLT); blocking(w, VMX_INTERRUPTIBILITY_STI); }
EDIT(hlt_gp) { activity(w, VMX_ACTIVITY_HLT); inject(w, TYPE(VMX_INTR_HW_EXCEPTION) | VMX_INTR_DELIVER_ERROR | EXC_GP); }
EDIT(shutdown_ext)
{
	interrupts_on(w);
	activity(w, VMX_ACTIVITY_SHUTDOWN);
	inject(w, TYPE(VMX_INTR_EXTERNAL) | 0x20);
}
EDIT(block_bit5) { blocking(w, 1u << 5); }
EDIT(block_enclave) { blocking(w, VMX_INTERRUPTIBILITY_ENCLAVE); }
EDIT(block_sti_mov_ss) { interrupts_on(w); blocking(w, VMX_INTERRUPTIBILITY_STI | VMX_INTERRUPTIBILITY_MOV_SS); }
EDIT(block_sti_if0) { blocking(w, VMX_INTERRUPTIBILITY_STI); }
EDIT(ext_mov_ss) { interrupts_on(w); blocking(w, VMX_INTERRUPTIBILITY_MOV_SS); inject(w, TYPE(VMX_INTR_EXTERNAL) | 0x20); }
EDIT(nmi_mov_ss) { blocking(w, VMX_INTERRUPTIBILITY_MOV_SS); inject(w, TYPE(VMX_INTR_NMI) | EXC_NMI); }
EDIT(block_smi) { blocking(w, VMX_INTERRUPTIBILITY_SMI); }
EDIT(nmi_sti) { interrupts_on(w); blocking(w, VMX_INTERRUPTIBILITY_STI); inject(w, TYPE(VMX_INTR_NMI) | EXC_NMI); }
EDIT(nmi_vnmi_blocked) { blocking(w, VMX_INTERRUPTIBILITY_NMI); inject(w, TYPE(VMX_INTR_NMI) | EXC_NMI); }
static void pending(struct world *w, uint64_t bits) { set(w, VMCS_ROW_GUEST_PENDING_DBG_EXCEPTIONS, bits); }
EDIT(pending_bit4) { pending(w, 1u << 4); }
EDIT(pending_bit17) { pending(w, 1u << 17); }
EDIT(bs_missing)
{
	or_(w, VMCS_ROW_GUEST_RFLAGS, FLAG_TF | FLAG_IF);
	blocking(w, VMX_INTERRUPTIBILITY_STI);
}
EDIT(bs_unexpected) { activity(w, VMX_ACTIVITY_HLT); pending(w, VMX_PENDING_DBG_BS); }
EDIT(bs_with_btf)
{
	or_(w, VMCS_ROW_GUEST_RFLAGS, FLAG_TF);
	set(w, VMCS_ROW_GUEST_IA32_DEBUGCTL, DEBUGCTL_BTF);
	blocking(w, VMX_INTERRUPTIBILITY_MOV_SS);
	pending(w, VMX_PENDING_DBG_BS);
}
EDIT(pending_rtm) { pending(w, VMX_PENDING_DBG_RTM | VMX_PENDING_DBG_ENABLED_BP); }
EDIT(link_unaligned) { set(w, VMCS_ROW_VMCS_LINK_POINTER, LINK_PA | 0x10); }
EDIT(link_wide) { set(w, VMCS_ROW_VMCS_LINK_POINTER, 1ull << w->m.cpu.maxphyaddr); }
EDIT(link_revision)
{
	physmem_write(&w->m.pm, LINK_PA, 4, 0x1234);
	set(w, VMCS_ROW_VMCS_LINK_POINTER, LINK_PA);
}
EDIT(link_shadow)
{
	physmem_write(&w->m.pm, LINK_PA, 4, (cap(w, MSR_VMX_BASIC) & VMX_BASIC_REVISION_MASK) | VMCS_SHADOW_INDICATOR);
	set(w, VMCS_ROW_VMCS_LINK_POINTER, LINK_PA);
}
EDIT(link_ordinary_with_shadowing)
{
	proc2_allow(w, VMX_PROC2_VMCS_SHADOWING);
	set(w, VMCS_ROW_VMREAD_BITMAP, 0x306000);
	set(w, VMCS_ROW_VMWRITE_BITMAP, 0x307000);
	set(w, VMCS_ROW_VMCS_LINK_POINTER, LINK_PA);
}
EDIT(link_current) { set(w, VMCS_ROW_VMCS_LINK_POINTER, VMCS_PA); }

/* 26.3.1.6: a 32-bit PAE guest. */
static void pae(struct world *w)
{
	or_(w, VMCS_ROW_GUEST_CR4, CR4_PAE);
	set(w, VMCS_ROW_GUEST_CR3, PDPT32);
	for (unsigned i = 0; i < 4; i++) {
		physmem_write(&w->m.pm, PDPT32 + 8 * i, 8, (PD32 + 0x1000 * i) | 1);
		set(w, VMCS_ROW_GUEST_PDPTE0 + i, (PD32 + 0x1000 * i) | 1);
	}
}
EDIT(pdpte_field) { pae(w); or_(w, VMCS_ROW_GUEST_PDPTE2, 1u << 1); }
EDIT(pdpte_field_wide) { pae(w); or_(w, VMCS_ROW_GUEST_PDPTE3, 1ull << w->m.cpu.maxphyaddr); }
EDIT(pdpte_memory)
{
	pae(w);
	clr(w, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_EPT));
	physmem_write(&w->m.pm, PDPT32 + 8, 8, PD32 | 1 | (1u << 5));
}

static void corner_inj_len0(struct world *w);

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
	{ "pin-based VM-execution control has a reserved", SKL, G64, pin_reserved_set, CONTROLS },
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
	{ "instruction length is 0 without", "nehalem-lite", G64, corner_inj_len0, CONTROLS },
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
	{ "host IA32_S_CET or IA32_INTERRUPT", SKL, G64, host_s_cet_noncanonical, HOST },
	{ "host IA32_S_CET or IA32_INTERRUPT", SKL, G64, host_isst_noncanonical, HOST },
	{ "host IA32_S_CET sets reserved", SKL, G64, host_s_cet_reserved, HOST },
	{ "host SSP", SKL, G64, host_ssp64, HOST },
	{ "host SSP", SKL, G32, host_ssp32, HOST },
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
	{ "guest CR0.PG is 1 with CR0.PE 0", SKL, GREAL, guest_pg_no_pe, GUEST(0) },
	{ "guest CR4.CET", SKL, G64, guest_cet_no_wp, GUEST(0) },
	{ "guest IA32_DEBUGCTL sets reserved", SKL, G64, guest_debugctl, GUEST(0) },
	{ "guest IA32_DEBUGCTL sets reserved", "core2", G64, guest_debugctl, GUEST(0) },
	{ "IA-32e mode guest without guest CR0.PG and CR4.PAE", SKL, G64, guest_ia32e_no_pae, GUEST(0) },
	{ "guest CR4.PCIDE is 1", SKL, G32, guest_pcide, GUEST(0) },
	{ "guest CR3 sets bits", SKL, G64, guest_cr3_wide, GUEST(0) },
	{ "guest DR7 bits 63:32", SKL, G64, guest_dr7, GUEST(0) },
	{ "guest IA32_SYSENTER_ESP or", SKL, G64, guest_sysenter, GUEST(0) },
	{ "guest IA32_S_CET or IA32_INTERRUPT", SKL, G64, guest_s_cet_noncanonical, GUEST(0) },
	{ "guest IA32_S_CET or IA32_INTERRUPT", SKL, G64, guest_isst_noncanonical, GUEST(0) },
	{ "guest IA32_S_CET sets reserved", SKL, G64, guest_s_cet_reserved, GUEST(0) },
	{ "guest SSP", SKL, G64, guest_ssp64, GUEST(0) },
	{ "guest SSP", SKL, G32, guest_ssp32, GUEST(0) },
	{ "guest value sets reserved", SKL, G64, guest_perf, GUEST(0) },
	{ "guest PAT entry", SKL, G64, guest_pat, GUEST(0) },
	{ "guest EFER sets reserved", SKL, G64, guest_efer_rsvd, GUEST(0) },
	{ "guest EFER.LMA differs from IA-32e", SKL, G64, guest_efer_no_lma, GUEST(0) },
	{ "guest EFER.LMA differs from EFER.LME", SKL, G32, guest_efer_lme_only, GUEST(0) },
	{ "guest IA32_BNDCFGS sets reserved", SKL, G64, guest_bndcfgs_rsvd, GUEST(0) },
	{ "bound-directory address", SKL, G64, guest_bndcfgs_addr, GUEST(0) },
	{ "guest IA32_RTIT_CTL", SKL, G64, guest_rtit, GUEST(0) },
	{ "guest IA32_PKRS", SKL, G64, guest_pkrs, GUEST(0) },
	{ "guest IA32_LBR_CTL", SKL, G64, guest_lbr, GUEST(0) },
	/* 26.3.1.2 */
	{ "guest TR selector has TI", SKL, G64, tr_ti, GUEST(0) },
	{ "guest LDTR selector has TI", SKL, G64, ldtr_ti, GUEST(0) },
	{ "guest SS RPL differs from CS RPL", SKL, G64, ss_rpl, GUEST(0) },
	{ "not its selector shifted left 4", SKL, G32, v86_base, GUEST(0) },
	{ "guest TR, FS or GS base", SKL, G64, fs_base, GUEST(0) },
	{ "guest TR, FS or GS base", SKL, G64, tr_base, GUEST(0) },
	{ "usable guest LDTR base", SKL, G64, ldtr_base, GUEST(0) },
	{ "guest CS base bits 63:32", SKL, G32, cs_base, GUEST(0) },
	{ "usable guest SS, DS or ES base", SKL, G64, ds_base, GUEST(0) },
	{ "limit is not 0000FFFFH", SKL, G32, v86_limit, GUEST(0) },
	{ "access-rights field is not 000000F3H", SKL, G32, v86_ar, GUEST(0) },
	{ "guest CS type is not 9, 11, 13 or 15", SKL, G64, cs_type3, GUEST(0) },
	{ "guest CS type is not 9, 11, 13 or 15", SKL, GREAL, cs_type1, GUEST(0) },
	{ "usable guest SS type", SKL, G64, ss_type1, GUEST(0) },
	{ "type is not accessed", SKL, G64, ds_not_accessed, GUEST(0) },
	{ "code segment is not readable", SKL, G64, gs_exec_only, GUEST(0) },
	{ "has S 0", SKL, G64, es_system, GUEST(0) },
	{ "has S 0", SKL, G32, cs_system, GUEST(0) },
	{ "guest CS type 3 (unrestricted guest) with DPL", SKL, GREAL, cs_data_dpl3, GUEST(0) },
	{ "non-conforming code with DPL not SS.DPL", SKL, G64, cs_nonconforming_dpl, GUEST(0) },
	{ "conforming code with DPL above SS.DPL", SKL, G64, cs_conforming_dpl, GUEST(0) },
	{ "guest SS.DPL differs from SS RPL", SKL, G64, ss_dpl_rpl, GUEST(0) },
	{ "guest SS.DPL not 0 with CS type 3 or CR0.PE 0", SKL, GREAL, ss_dpl_real, GUEST(0) },
	{ "has DPL below RPL", SKL, G64, ds_dpl_rpl, GUEST(0) },
	{ "GS is not present", SKL, G64, fs_not_present, GUEST(0) },
	{ "GS sets access-rights bits 11:8", SKL, G64, ds_11_8, GUEST(0) },
	{ "has D/B 1 with L 1", SKL, G64, cs_db_l, GUEST(0) },
	{ "GS has G 1 with limit", SKL, G64, ds_g_partial, GUEST(0) },
	{ "GS has G 0 with limit", SKL, G32, ss_g_missing, GUEST(0) },
	{ "GS sets access-rights bits 31:17", SKL, G64, cs_31_17, GUEST(0) },
	{ "guest TR type is not a busy TSS", SKL, G64, tr_type3, GUEST(0) },
	{ "guest TR type is not a busy TSS", SKL, G32, tr_type9, GUEST(0) },
	{ "guest TR has S 1", SKL, G64, tr_s, GUEST(0) },
	{ "guest TR is not present", SKL, G64, tr_p, GUEST(0) },
	{ "guest TR sets access-rights bits 11:8", SKL, G64, tr_11_8, GUEST(0) },
	{ "guest TR has G 1", SKL, G64, tr_g_partial, GUEST(0) },
	{ "guest TR has G 0", SKL, G64, tr_g_missing, GUEST(0) },
	{ "guest TR is unusable", SKL, G64, tr_unusable, GUEST(0) },
	{ "guest TR sets access-rights bits 31:17", SKL, G64, tr_31_17, GUEST(0) },
	{ "usable guest LDTR type", SKL, G64, ldtr_type, GUEST(0) },
	{ "usable guest LDTR has S 1", SKL, G64, ldtr_s, GUEST(0) },
	{ "usable guest LDTR is not present", SKL, G64, ldtr_p, GUEST(0) },
	{ "usable guest LDTR sets access-rights bits 11:8", SKL, G64, ldtr_11_8, GUEST(0) },
	{ "usable guest LDTR has G 1", SKL, G64, ldtr_g_partial, GUEST(0) },
	{ "usable guest LDTR has G 0", SKL, G64, ldtr_g_missing, GUEST(0) },
	{ "usable guest LDTR sets access-rights bits 31:17", SKL, G64, ldtr_31_17, GUEST(0) },
	/* 26.3.1.3 */
	{ "guest GDTR or IDTR base", SKL, G64, gdtr_base, GUEST(0) },
	{ "guest GDTR or IDTR limit", SKL, G64, idtr_limit, GUEST(0) },
	/* 26.3.1.4 */
	{ "guest RIP bits 63:32", SKL, G32, rip_high, GUEST(0) },
	{ "guest RIP is not canonical", SKL, G64, rip_noncanonical, GUEST(0) },
	{ "guest RFLAGS sets reserved", SKL, G64, rflags_bit3, GUEST(0) },
	{ "guest RFLAGS sets reserved", SKL, G64, rflags_no_bit1, GUEST(0) },
	{ "guest RFLAGS sets reserved", SKL, G32, rflags_bit22, GUEST(0) },
	{ "guest RFLAGS.VM is 1", SKL, G64, rflags_vm64, GUEST(0) },
	{ "guest RFLAGS.VM is 1", SKL, GREAL, v86, GUEST(0) },
	{ "guest RFLAGS.IF is 0", SKL, G64, rflags_if, GUEST(0) },
	/* 26.3.1.5 */
	{ "the activity state is not supported", SKL, G64, activity_sipi, GUEST(0) },
	{ "the activity state is not supported", SKL, G64, activity_4, GUEST(0) },
	{ "HLT activity state with SS.DPL", SKL, G64, hlt_ring3, GUEST(0) },
	{ "inactive activity state with blocking", SKL, G64, hlt_sti, GUEST(0) },
	{ "the activity state blocks", SKL, G64, hlt_gp, GUEST(0) },
	{ "the activity state blocks", SKL, G64, shutdown_ext, GUEST(0) },
	{ "interruptibility state sets reserved", SKL, G64, block_bit5, GUEST(0) },
	{ "interruptibility state sets reserved", SKL, G64, block_enclave, GUEST(0) },
	{ "blocking by both STI and MOV SS", SKL, G64, block_sti_mov_ss, GUEST(0) },
	{ "blocking by STI with RFLAGS.IF 0", SKL, G64, block_sti_if0, GUEST(0) },
	{ "an external interrupt injected with blocking", SKL, G64, ext_mov_ss, GUEST(0) },
	{ "an NMI injected with blocking by MOV SS", SKL, G64, nmi_mov_ss, GUEST(0) },
	{ "blocking by SMI outside SMM", SKL, G64, block_smi, GUEST(0) },
	{ "an NMI injected with blocking by STI", SKL, G64, nmi_sti, GUEST(3) },
	{ "with virtual NMIs and blocking by NMI", SKL, G64, nmi_vnmi_blocked, GUEST(0) },
	{ "pending debug exceptions set reserved", SKL, G64, pending_bit4, GUEST(0) },
	{ "pending debug exceptions set reserved", SKL, G64, pending_bit17, GUEST(0) },
	{ "BS 0 while single-stepping", SKL, G64, bs_missing, GUEST(0) },
	{ "BS 1 without single-stepping", SKL, G64, bs_unexpected, GUEST(0) },
	{ "BS 1 without single-stepping", SKL, G64, bs_with_btf, GUEST(0) },
	{ "bit 16 (RTM)", SKL, G64, pending_rtm, GUEST(0) },
	{ "link pointer is not 4-KByte aligned", SKL, G64, link_unaligned, GUEST(4) },
	{ "link pointer is not 4-KByte aligned", SKL, G64, link_wide, GUEST(4) },
	{ "another VMCS revision identifier", SKL, G64, link_revision, GUEST(4) },
	{ "shadow-VMCS indicator differs", SKL, G64, link_shadow, GUEST(4) },
	{ "shadow-VMCS indicator differs", SKL, G64, link_ordinary_with_shadowing, GUEST(4) },
	{ "link pointer is the current-VMCS pointer", SKL, G64, link_current, GUEST(4) },
	/* 26.3.1.6 */
	{ "PAE paging with enable EPT", SKL, G32, pdpte_field, GUEST(2) },
	{ "PAE paging with enable EPT", SKL, G32, pdpte_field_wide, GUEST(2) },
	{ "PAE paging without enable EPT", SKL, G32, pdpte_memory, GUEST(2) },
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
		{ "icelake-lite", G64 }, { "nehalem-lite", G64 }, { "nehalem-lite", G32 },
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

/* Unusable segments: base, limit and access rights beyond the unusable bit
 * are not checked (DS, ES, FS, GS, SS, LDTR in a 64-bit guest). */
EDIT(corner_unusable)
{
	for (unsigned s = ES; s <= GS; s++)
		if (s != CS)
			seg(w, s, 0, 0xdead000000000000ull, 0x12345, VMX_AR_UNUSABLE | 0xf0f01u);
	/* FS and GS bases are checked (canonical) usable or not. */
	set(w, VMCS_ROW_GUEST_FS_BASE, 0x00007fff12345678ull);
	set(w, VMCS_ROW_GUEST_GS_BASE, 0xffff800012345678ull);
	seg(w, LDTR, 0x27, NONCANONICAL, 0x123, VMX_AR_UNUSABLE | 0xfff);
}
/* Unrestricted guest, real mode with a code-segment CS (type 11) and a
 * 16-bit busy TSS. */
EDIT(corner_real_code_cs) { set_type(w, CS, 11); set_type(w, TR, 3); }
/* Virtual-8086 mode in a 32-bit guest. */
EDIT(corner_v86) { v86(w); }
/* A usable LDT, a conforming CS at CPL 0 (DPL 0 <= SS.DPL), ring 3. */
EDIT(corner_ldt_ring3) { ldt(w); ring3(w); }
EDIT(corner_conforming) { set_type(w, CS, 13); }
/* PAE: valid PDPTE fields with EPT; valid PDPTEs in memory without. */
EDIT(corner_pae_ept) { pae(w); }
EDIT(corner_pae_no_ept) { pae(w); clr(w, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_EPT)); }
/* A not-present PDPTE's other bits are not checked. */
EDIT(corner_pdpte_not_present) { pae(w); set(w, VMCS_ROW_GUEST_PDPTE1, 0xfffffffffffffffeull); }
/* HLT with the events it lets through, and single-step pending in HLT. */
EDIT(corner_hlt_db) { activity(w, VMX_ACTIVITY_HLT); inject(w, TYPE(VMX_INTR_HW_EXCEPTION) | EXC_DB); }
EDIT(corner_hlt_mtf) { activity(w, VMX_ACTIVITY_HLT); inject(w, TYPE(VMX_INTR_OTHER)); }
EDIT(corner_hlt_bs)
{
	or_(w, VMCS_ROW_GUEST_RFLAGS, FLAG_TF);
	activity(w, VMX_ACTIVITY_HLT);
	pending(w, VMX_PENDING_DBG_BS);
}
EDIT(corner_shutdown_nmi) { activity(w, VMX_ACTIVITY_SHUTDOWN); inject(w, TYPE(VMX_INTR_NMI) | EXC_NMI); }
/* Blocking by NMI with an NMI injected is fine without virtual NMIs. */
EDIT(corner_nmi_blocked_no_vnmi)
{
	clr(w, VMCS_ROW_PIN_BASED_CONTROLS, VMX_CTL(VMX_PIN_VIRTUAL_NMIS));
	blocking(w, VMX_INTERRUPTIBILITY_NMI);
	inject(w, TYPE(VMX_INTR_NMI) | EXC_NMI);
}
/* A VMCS link pointer to a region with the right revision identifier. */
EDIT(corner_link) { set(w, VMCS_ROW_VMCS_LINK_POINTER, LINK_PA); }
/* A 64-bit guest's RIP canonical with 57 bits only, on icelake-lite (the
 * processor's linear-address width). */
EDIT(corner_rip57) { set(w, VMCS_ROW_GUEST_RIP, CANONICAL57); }
/* A compatibility-mode CS (L = 0) in an IA-32e mode guest. */
EDIT(corner_compat) { set_ar(w, CS, AR_CODE32); }

static const struct { const char *model; enum world_kind kind; corner_fn *edit; } corners[] = {
	{ SKL, G64, corner_unusable },
	{ SKL, GREAL, corner_real_code_cs },
	{ SKL, G32, corner_v86 },
	{ SKL, G64, corner_ldt_ring3 },
	{ SKL, G64, corner_conforming },
	{ SKL, G32, corner_pae_ept },
	{ SKL, G32, corner_pae_no_ept },
	{ SKL, G32, corner_pdpte_not_present },
	{ SKL, G64, corner_hlt_db },
	{ SKL, G64, corner_hlt_mtf },
	{ SKL, G64, corner_hlt_bs },
	{ SKL, G64, corner_shutdown_nmi },
	{ SKL, G64, corner_nmi_blocked_no_vnmi },
	{ SKL, G64, corner_link },
	{ "icelake-lite", G64, corner_rip57 },
	{ SKL, G64, corner_compat },
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

/* nehalem-lite has EPT but not unrestricted guest: a real-mode guest's
 * VMCS fails on the secondary controls' reserved setting first. */
START_TEST(real_mode_needs_unrestricted_guest)
{
	struct world w;
	build(&w, "nehalem-lite", GREAL);
	ck_assert_ptr_eq(first_failure(&w), row_named("secondary processor-based VM-execution control has a reserved"));
	clr(&w, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_UNRESTRICTED_GUEST));
	ck_assert_ptr_eq(first_failure(&w), row_named("guest CR0 sets a bit"));
	world_free(&w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmx_checks");
	TCase *tc = tcase_create("valid");
	tcase_add_loop_test(tc, valid_vmcs, 0, 8);
	tcase_add_loop_test(tc, legal_corners, 0, (int)(sizeof(corners) / sizeof(corners[0])));
	tcase_add_test(tc, default1_without_true_ctls);
	tcase_add_test(tc, real_mode_needs_unrestricted_guest);
	suite_add_tcase(s, tc);
	tc = tcase_create("rows");
	tcase_add_loop_test(tc, check_rows, 0, (int)N_CASES);
	tcase_add_test(tc, every_row_has_a_case);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
