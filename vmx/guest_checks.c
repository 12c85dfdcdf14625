/* The checks of VM entry on the guest-state area (SDM Vol.3 26.3.1 "Checks
 * on the Guest State Area"): control, debug registers and MSRs (26.3.1.1),
 * segment registers (26.3.1.2), descriptor-table registers (26.3.1.3), RIP
 * and RFLAGS (26.3.1.4), non-register state (26.3.1.5) and PDPTEs
 * (26.3.1.6), one row per rule in the SDM's order. A failure is a VM-entry
 * failure: exit reason 33 with bit 31 set and the 26.8 qualification. The
 * controls and host state are consistency.c's (26.2).
 */
#include "emu/debug.h"
#include "emu/quirks.h"
#include "emu/world_state.h"
#include "mmu/nested.h"
#include "mmu/paging.h"
#include "vmx/check_view.h"

/* ---- 26.3.1.1 guest control registers, debug registers and MSRs ---- */

static uint64_t guest_cr0(const void *ctx) { return field(ctx, VMCS_ROW_GUEST_CR0); }
static uint64_t guest_cr4(const void *ctx) { return field(ctx, VMCS_ROW_GUEST_CR4); }
static bool ia32e_guest(const void *ctx) { return entry_on(ctx, VMX_ENTRYCTL_IA32E_MODE_GUEST); }
static bool unrestricted(const void *ctx) { return proc2_on(ctx, VMX_PROC2_UNRESTRICTED_GUEST); }

/* "The CR0 field must not set any bit to a value not supported in VMX
 * operation (see Section 23.8). The following are exceptions: PE (bit 0)
 * and PG (bit 31) are not checked if the 'unrestricted guest' VM-execution
 * control is 1." */
static bool guest_cr0_fixed(const void *ctx)
{
	const struct vmx *v = fixed(ctx);
	uint64_t fixed0 = vmx_cap(v, MSR_VMX_CR0_FIXED0);
	if (unrestricted(ctx))
		fixed0 &= ~(uint64_t)(CR0_PE | CR0_PG);
	return !vmx_cr_fixed_valid(fixed0, vmx_cap(v, MSR_VMX_CR0_FIXED1), guest_cr0(ctx));
}

static bool guest_pg_without_pe(const void *ctx)
{
	return (guest_cr0(ctx) & CR0_PG) && !(guest_cr0(ctx) & CR0_PE);
}

static bool guest_cr4_fixed(const void *ctx)
{
	const struct vmx *v = fixed(ctx);
	return !vmx_cr_fixed_valid(vmx_cap(v, MSR_VMX_CR4_FIXED0), vmx_cap(v, MSR_VMX_CR4_FIXED1), guest_cr4(ctx));
}

static bool guest_cet_without_wp(const void *ctx)
{
	return (guest_cr4(ctx) & CR4_CET_BIT) && !(guest_cr0(ctx) & CR0_WP);
}

/* The bits WRMSR would refuse in IA32_DEBUGCTL (emu/debug.h). */
static bool guest_debugctl(const void *ctx)
{
	return entry_on(ctx, VMX_ENTRYCTL_LOAD_DEBUG_CONTROLS) &&
	       (field(ctx, VMCS_ROW_GUEST_IA32_DEBUGCTL) & ~debugctl_writable(fixed(ctx)->cpu));
}

static bool ia32e_guest_paging(const void *ctx)
{
	return ia32e_guest(ctx) && (!(guest_cr0(ctx) & CR0_PG) || !(guest_cr4(ctx) & CR4_PAE));
}

static bool legacy_guest_pcide(const void *ctx)
{
	return !ia32e_guest(ctx) && (guest_cr4(ctx) & CR4_PCIDE);
}

static bool guest_cr3_width(const void *ctx)
{
	return beyond_maxphyaddr(ctx, field(ctx, VMCS_ROW_GUEST_CR3));
}

static bool guest_dr7_high(const void *ctx)
{
	return entry_on(ctx, VMX_ENTRYCTL_LOAD_DEBUG_CONTROLS) && (field(ctx, VMCS_ROW_GUEST_DR7) >> 32);
}

static bool guest_sysenter_canonical(const void *ctx)
{
	return not_canonical(ctx, VMCS_ROW_GUEST_IA32_SYSENTER_ESP) ||
	       not_canonical(ctx, VMCS_ROW_GUEST_IA32_SYSENTER_EIP);
}

static bool guest_cet_canonical(const void *ctx)
{
	return entry_on(ctx, VMX_ENTRYCTL_LOAD_CET_STATE) &&
	       (not_canonical(ctx, VMCS_ROW_GUEST_IA32_S_CET) ||
		not_canonical(ctx, VMCS_ROW_GUEST_INTR_SSP_TABLE_ADDR));
}

static bool guest_s_cet_reserved(const void *ctx)
{
	return entry_on(ctx, VMX_ENTRYCTL_LOAD_CET_STATE) &&
	       (field(ctx, VMCS_ROW_GUEST_IA32_S_CET) & S_CET_RESERVED);
}

static bool guest_ssp(const void *ctx)
{
	if (!entry_on(ctx, VMX_ENTRYCTL_LOAD_CET_STATE))
		return false;
	uint64_t ssp = field(ctx, VMCS_ROW_GUEST_SSP);
	return ia32e_guest(ctx) ? not_canonical(ctx, VMCS_ROW_GUEST_SSP) : (ssp >> 32) != 0;
}

static bool guest_perf_global_ctrl(const void *ctx)
{
	return entry_on(ctx, VMX_ENTRYCTL_LOAD_PERF_GLOBAL_CTRL) &&
	       (field(ctx, VMCS_ROW_GUEST_IA32_PERF_GLOBAL_CTRL) & ~PERF_GLOBAL_CTRL_VALID);
}

static bool guest_pat(const void *ctx)
{
	return entry_on(ctx, VMX_ENTRYCTL_LOAD_PAT) && pat_invalid(field(ctx, VMCS_ROW_GUEST_IA32_PAT));
}

static uint64_t guest_efer(const void *ctx) { return field(ctx, VMCS_ROW_GUEST_IA32_EFER); }

static bool guest_efer_reserved(const void *ctx)
{
	return entry_on(ctx, VMX_ENTRYCTL_LOAD_EFER) && (guest_efer(ctx) & ~cpu_efer_valid_bits(fixed(ctx)->cpu));
}

static bool guest_efer_lma(const void *ctx)
{
	return entry_on(ctx, VMX_ENTRYCTL_LOAD_EFER) && !!(guest_efer(ctx) & EFER_LMA) != ia32e_guest(ctx);
}

static bool guest_efer_lme(const void *ctx)
{
	return entry_on(ctx, VMX_ENTRYCTL_LOAD_EFER) && (guest_cr0(ctx) & CR0_PG) &&
	       !!(guest_efer(ctx) & EFER_LMA) != !!(guest_efer(ctx) & EFER_LME);
}

/* IA32_BNDCFGS (SDM Vol.1 17.3.3): bits 11:2 reserved, 63:12 the linear
 * address of the bound directory. */
static bool guest_bndcfgs_reserved(const void *ctx)
{
	return entry_on(ctx, VMX_ENTRYCTL_LOAD_BNDCFGS) && (field(ctx, VMCS_ROW_GUEST_IA32_BNDCFGS) & 0xffcull);
}

static bool guest_bndcfgs_canonical(const void *ctx)
{
	return entry_on(ctx, VMX_ENTRYCTL_LOAD_BNDCFGS) &&
	       !addr_canonical_reg(fixed(ctx)->cpu, field(ctx, VMCS_ROW_GUEST_IA32_BNDCFGS) & ~0xfffull);
}

/* hvemu's models have neither Intel PT nor architectural LBRs: every bit of
 * IA32_RTIT_CTL and IA32_LBR_CTL is reserved on them. */
static bool guest_rtit_ctl(const void *ctx)
{
	return entry_on(ctx, VMX_ENTRYCTL_LOAD_RTIT_CTL) && field(ctx, VMCS_ROW_GUEST_IA32_RTIT_CTL);
}

static bool guest_pkrs(const void *ctx)
{
	return entry_on(ctx, VMX_ENTRYCTL_LOAD_PKRS) && (field(ctx, VMCS_ROW_GUEST_IA32_PKRS) >> 32);
}

static bool guest_lbr_ctl(const void *ctx)
{
	return entry_on(ctx, VMX_ENTRYCTL_LOAD_LBR_CTL) && field(ctx, VMCS_ROW_GUEST_IA32_LBR_CTL);
}

/* ---- 26.3.1.2 guest segment registers ----
 * The segment fields are in vmx/vmcs_fields.def order, ES CS SS DS FS GS
 * LDTR TR, for each of selector, base, limit and access rights. */

enum { SEG_ES, SEG_CS, SEG_SS, SEG_DS, SEG_FS, SEG_GS, SEG_LDTR, SEG_TR };

static uint16_t seg_sel(const void *ctx, unsigned s)
{
	return (uint16_t)field(ctx, VMCS_ROW_GUEST_ES_SELECTOR + s);
}
static uint64_t seg_base(const void *ctx, unsigned s) { return field(ctx, VMCS_ROW_GUEST_ES_BASE + s); }
static uint32_t seg_limit(const void *ctx, unsigned s) { return (uint32_t)field(ctx, VMCS_ROW_GUEST_ES_LIMIT + s); }
static uint32_t seg_ar(const void *ctx, unsigned s) { return (uint32_t)field(ctx, VMCS_ROW_GUEST_ES_AR + s); }
static unsigned ar_type(uint32_t ar) { return ar & VMX_AR_TYPE_MASK; }
static unsigned ar_dpl(uint32_t ar) { return (ar & VMX_AR_DPL_MASK) >> VMX_AR_DPL_SHIFT; }
static bool seg_usable(const void *ctx, unsigned s) { return !(seg_ar(ctx, s) & VMX_AR_UNUSABLE); }
/* The access-rights rules on CS, SS, DS, ES, FS, GS apply to "CS or a usable
 * register". */
static bool seg_checked(const void *ctx, unsigned s) { return s == SEG_CS || seg_usable(ctx, s); }

/* "The guest will be virtual-8086 if the VM flag (bit 17) is 1 in the RFLAGS
 * field." */
static bool v8086(const void *ctx)
{
	return field(ctx, VMCS_ROW_GUEST_RFLAGS) & FLAG_VM;
}

#define AR_RESERVED_11_8   0x00000f00u
#define AR_RESERVED_31_17  0xfffe0000u

/* The G bit against the limit: "If any bit in the limit field in the range
 * 11:0 is 0, G must be 0. If any bit in the limit field in the range 31:20
 * is 1, G must be 1." */
static bool g_with_partial_page(uint32_t limit, uint32_t ar)
{
	return (limit & 0xfff) != 0xfff && (ar & VMX_AR_G);
}

static bool no_g_above_1m(uint32_t limit, uint32_t ar)
{
	return (limit >> 20) && !(ar & VMX_AR_G);
}

static bool tr_ti(const void *ctx)
{
	return seg_sel(ctx, SEG_TR) & 4;
}

static bool ldtr_ti(const void *ctx)
{
	return seg_usable(ctx, SEG_LDTR) && (seg_sel(ctx, SEG_LDTR) & 4);
}

static bool ss_rpl(const void *ctx)
{
	return !v8086(ctx) && !unrestricted(ctx) && (seg_sel(ctx, SEG_SS) & 3) != (seg_sel(ctx, SEG_CS) & 3);
}

static bool v8086_base(const void *ctx)
{
	if (!v8086(ctx))
		return false;
	for (unsigned s = SEG_ES; s <= SEG_GS; s++)
		if (seg_base(ctx, s) != (uint64_t)seg_sel(ctx, s) << 4)
			return true;
	return false;
}

static bool tr_fs_gs_base(const void *ctx)
{
	return not_canonical(ctx, VMCS_ROW_GUEST_TR_BASE) || not_canonical(ctx, VMCS_ROW_GUEST_FS_BASE) ||
	       not_canonical(ctx, VMCS_ROW_GUEST_GS_BASE);
}

static bool ldtr_base(const void *ctx)
{
	return seg_usable(ctx, SEG_LDTR) && not_canonical(ctx, VMCS_ROW_GUEST_LDTR_BASE);
}

static bool cs_base_high(const void *ctx)
{
	return seg_base(ctx, SEG_CS) >> 32;
}

static bool ss_ds_es_base_high(const void *ctx)
{
	static const unsigned segs[] = { SEG_SS, SEG_DS, SEG_ES };
	for (unsigned i = 0; i < 3; i++)
		if (seg_usable(ctx, segs[i]) && (seg_base(ctx, segs[i]) >> 32))
			return true;
	return false;
}

static bool v8086_limit(const void *ctx)
{
	if (!v8086(ctx))
		return false;
	for (unsigned s = SEG_ES; s <= SEG_GS; s++)
		if (seg_limit(ctx, s) != 0xffff)
			return true;
	return false;
}

static bool v8086_ar(const void *ctx)
{
	if (!v8086(ctx))
		return false;
	for (unsigned s = SEG_ES; s <= SEG_GS; s++)
		if (seg_ar(ctx, s) != 0xf3)
			return true;
	return false;
}

/* Each rule below holds for every register it names; outside virtual-8086
 * mode only (the F3H rule above is the whole access-rights check there). */
typedef bool seg_rule(const void *ctx, unsigned s);

static bool any_segment(const void *ctx, seg_rule *broken)
{
	if (v8086(ctx))
		return false;
	for (unsigned s = SEG_ES; s <= SEG_GS; s++)
		if (broken(ctx, s))
			return true;
	return false;
}

static bool cs_type(const void *ctx)
{
	unsigned type = ar_type(seg_ar(ctx, SEG_CS));
	if (v8086(ctx))
		return false;
	return !(type == 9 || type == 11 || type == 13 || type == 15 || (type == 3 && unrestricted(ctx)));
}

static bool ss_type(const void *ctx)
{
	unsigned type = ar_type(seg_ar(ctx, SEG_SS));
	return !v8086(ctx) && seg_usable(ctx, SEG_SS) && type != 3 && type != 7;
}

static bool data_seg(unsigned s) { return s == SEG_DS || s == SEG_ES || s == SEG_FS || s == SEG_GS; }

static bool not_accessed(const void *ctx, unsigned s)
{
	return data_seg(s) && seg_usable(ctx, s) && !(seg_ar(ctx, s) & 1);
}

static bool code_not_readable(const void *ctx, unsigned s)
{
	uint32_t type = ar_type(seg_ar(ctx, s));
	return data_seg(s) && seg_usable(ctx, s) && (type & 8) && !(type & 2);
}

static bool s_clear(const void *ctx, unsigned s)
{
	return seg_checked(ctx, s) && !(seg_ar(ctx, s) & VMX_AR_S);
}

static bool data_accessed(const void *ctx) { return any_segment(ctx, not_accessed); }
static bool data_code_readable(const void *ctx) { return any_segment(ctx, code_not_readable); }
static bool seg_s(const void *ctx) { return any_segment(ctx, s_clear); }

static unsigned cs_dpl(const void *ctx) { return ar_dpl(seg_ar(ctx, SEG_CS)); }
static unsigned ss_dpl(const void *ctx) { return ar_dpl(seg_ar(ctx, SEG_SS)); }

static bool cs_dpl_data(const void *ctx)
{
	return !v8086(ctx) && ar_type(seg_ar(ctx, SEG_CS)) == 3 && cs_dpl(ctx) != 0;
}

static bool cs_dpl_nonconforming(const void *ctx)
{
	unsigned type = ar_type(seg_ar(ctx, SEG_CS));
	/* The quirk bochs-cs-dpl-rpl (emu/quirks.def): the older rule, DPL = the
	 * selector's RPL. The quirks are a fixed property of the model. */
	unsigned want = (fixed(ctx)->quirks & QUIRK_BIT(QK_BOCHS_CS_DPL_RPL)) ? seg_sel(ctx, SEG_CS) & 3u
									     : ss_dpl(ctx);
	return !v8086(ctx) && (type == 9 || type == 11) && cs_dpl(ctx) != want;
}

static bool cs_dpl_conforming(const void *ctx)
{
	unsigned type = ar_type(seg_ar(ctx, SEG_CS));
	return !v8086(ctx) && (type == 13 || type == 15) && cs_dpl(ctx) > ss_dpl(ctx);
}

static bool ss_dpl_rpl(const void *ctx)
{
	return !v8086(ctx) && !unrestricted(ctx) && ss_dpl(ctx) != (seg_sel(ctx, SEG_SS) & 3u);
}

static bool ss_dpl_zero(const void *ctx)
{
	return !v8086(ctx) && (ar_type(seg_ar(ctx, SEG_CS)) == 3 || !(guest_cr0(ctx) & CR0_PE)) && ss_dpl(ctx) != 0;
}

/* "The DPL cannot be less than the RPL in the selector field if (1) the
 * 'unrestricted guest' VM-execution control is 0; (2) the register is
 * usable; and (3) the Type in the access-rights field is in the range 0 - 11
 * (data segment or non-conforming code segment)." */
static bool dpl_below_rpl(const void *ctx, unsigned s)
{
	uint32_t ar = seg_ar(ctx, s);
	return data_seg(s) && !unrestricted(ctx) && seg_usable(ctx, s) && ar_type(ar) <= 11 &&
	       ar_dpl(ar) < (seg_sel(ctx, s) & 3u);
}

static bool not_present(const void *ctx, unsigned s)
{
	return seg_checked(ctx, s) && !(seg_ar(ctx, s) & VMX_AR_P);
}

static bool ar_11_8(const void *ctx, unsigned s)
{
	return seg_checked(ctx, s) && (seg_ar(ctx, s) & AR_RESERVED_11_8);
}

static bool g_partial(const void *ctx, unsigned s)
{
	return seg_checked(ctx, s) && g_with_partial_page(seg_limit(ctx, s), seg_ar(ctx, s));
}

static bool g_missing(const void *ctx, unsigned s)
{
	return seg_checked(ctx, s) && no_g_above_1m(seg_limit(ctx, s), seg_ar(ctx, s));
}

static bool ar_31_17(const void *ctx, unsigned s)
{
	return seg_checked(ctx, s) && (seg_ar(ctx, s) & AR_RESERVED_31_17);
}

static bool data_dpl(const void *ctx) { return any_segment(ctx, dpl_below_rpl); }
static bool seg_p(const void *ctx) { return any_segment(ctx, not_present); }
static bool seg_11_8(const void *ctx) { return any_segment(ctx, ar_11_8); }
static bool seg_g_partial(const void *ctx) { return any_segment(ctx, g_partial); }
static bool seg_g_missing(const void *ctx) { return any_segment(ctx, g_missing); }
static bool seg_31_17(const void *ctx) { return any_segment(ctx, ar_31_17); }

static bool cs_db_with_l(const void *ctx)
{
	uint32_t ar = seg_ar(ctx, SEG_CS);
	return !v8086(ctx) && ia32e_guest(ctx) && (ar & VMX_AR_L) && (ar & VMX_AR_DB);
}

static uint32_t tr_ar(const void *ctx) { return seg_ar(ctx, SEG_TR); }

static bool tr_type(const void *ctx)
{
	unsigned type = ar_type(tr_ar(ctx));
	return ia32e_guest(ctx) ? type != 11 : type != 3 && type != 11;
}

static bool tr_s(const void *ctx) { return tr_ar(ctx) & VMX_AR_S; }
static bool tr_p(const void *ctx) { return !(tr_ar(ctx) & VMX_AR_P); }
static bool tr_11_8(const void *ctx) { return tr_ar(ctx) & AR_RESERVED_11_8; }
static bool tr_g_partial(const void *ctx) { return g_with_partial_page(seg_limit(ctx, SEG_TR), tr_ar(ctx)); }
static bool tr_g_missing(const void *ctx) { return no_g_above_1m(seg_limit(ctx, SEG_TR), tr_ar(ctx)); }
static bool tr_unusable(const void *ctx) { return tr_ar(ctx) & VMX_AR_UNUSABLE; }
static bool tr_31_17(const void *ctx) { return tr_ar(ctx) & AR_RESERVED_31_17; }

/* LDTR: "The following checks on the different sub-fields apply only if LDTR
 * is usable". */
static bool ldtr_usable(const void *ctx) { return seg_usable(ctx, SEG_LDTR); }
static uint32_t ldtr_ar(const void *ctx) { return seg_ar(ctx, SEG_LDTR); }

static bool ldtr_type(const void *ctx) { return ldtr_usable(ctx) && ar_type(ldtr_ar(ctx)) != 2; }
static bool ldtr_s(const void *ctx) { return ldtr_usable(ctx) && (ldtr_ar(ctx) & VMX_AR_S); }
static bool ldtr_p(const void *ctx) { return ldtr_usable(ctx) && !(ldtr_ar(ctx) & VMX_AR_P); }
static bool ldtr_11_8(const void *ctx) { return ldtr_usable(ctx) && (ldtr_ar(ctx) & AR_RESERVED_11_8); }
static bool ldtr_g_partial(const void *ctx)
{
	return ldtr_usable(ctx) && g_with_partial_page(seg_limit(ctx, SEG_LDTR), ldtr_ar(ctx));
}
static bool ldtr_g_missing(const void *ctx)
{
	return ldtr_usable(ctx) && no_g_above_1m(seg_limit(ctx, SEG_LDTR), ldtr_ar(ctx));
}
static bool ldtr_31_17(const void *ctx) { return ldtr_usable(ctx) && (ldtr_ar(ctx) & AR_RESERVED_31_17); }

/* ---- 26.3.1.3 guest descriptor-table registers ---- */

static bool gdtr_idtr_base(const void *ctx)
{
	return not_canonical(ctx, VMCS_ROW_GUEST_GDTR_BASE) || not_canonical(ctx, VMCS_ROW_GUEST_IDTR_BASE);
}

static bool gdtr_idtr_limit(const void *ctx)
{
	return (field(ctx, VMCS_ROW_GUEST_GDTR_LIMIT) >> 16) || (field(ctx, VMCS_ROW_GUEST_IDTR_LIMIT) >> 16);
}

/* ---- 26.3.1.4 guest RIP and RFLAGS ---- */

static bool long_mode_cs(const void *ctx)
{
	return ia32e_guest(ctx) && (seg_ar(ctx, SEG_CS) & VMX_AR_L);
}

static bool rip_high(const void *ctx)
{
	return !long_mode_cs(ctx) && (field(ctx, VMCS_ROW_GUEST_RIP) >> 32);
}

static bool rip_canonical(const void *ctx)
{
	return long_mode_cs(ctx) && not_canonical(ctx, VMCS_ROW_GUEST_RIP);
}

/* RFLAGS (SDM Vol.1 3.4.3): bits 63:22, 15, 5 and 3 reserved (0), bit 1 is 1. */
#define RFLAGS_RESERVED (~0x3fffffull | (1ull << 15) | (1ull << 5) | (1ull << 3))

static uint64_t guest_rflags(const void *ctx) { return field(ctx, VMCS_ROW_GUEST_RFLAGS); }

static bool rflags_reserved(const void *ctx)
{
	return (guest_rflags(ctx) & RFLAGS_RESERVED) || !(guest_rflags(ctx) & FLAG_FIXED1);
}

static bool rflags_vm(const void *ctx)
{
	return v8086(ctx) && (ia32e_guest(ctx) || !(guest_cr0(ctx) & CR0_PE));
}

static bool inj_external(const void *ctx)
{
	uint32_t info = injected(ctx);
	return info && inj_type(info) == VMX_INTR_EXTERNAL;
}

static bool inj_nmi(const void *ctx)
{
	uint32_t info = injected(ctx);
	return info && inj_type(info) == VMX_INTR_NMI;
}

static bool rflags_if(const void *ctx)
{
	return inj_external(ctx) && !(guest_rflags(ctx) & FLAG_IF);
}

/* ---- 26.3.1.5 guest non-register state ---- */

static uint32_t activity(const void *ctx) { return (uint32_t)field(ctx, VMCS_ROW_GUEST_ACTIVITY_STATE); }
static uint32_t interruptibility(const void *ctx)
{
	return (uint32_t)field(ctx, VMCS_ROW_GUEST_INTERRUPTIBILITY);
}

/* Activity states other than active exist as IA32_VMX_MISC bits 6-8 say (A.6). */
static bool activity_unsupported(const void *ctx)
{
	static const uint64_t need[] = {
		[VMX_ACTIVITY_HLT] = VMX_MISC_ACTIVITY_HLT,
		[VMX_ACTIVITY_SHUTDOWN] = VMX_MISC_ACTIVITY_SHUTDOWN,
		[VMX_ACTIVITY_WAIT_SIPI] = VMX_MISC_ACTIVITY_WAIT_SIPI,
	};
	uint32_t state = activity(ctx);
	if (state == VMX_ACTIVITY_ACTIVE)
		return false;
	return state > VMX_ACTIVITY_WAIT_SIPI || !(vmx_cap(fixed(ctx), MSR_VMX_MISC) & need[state]);
}

static bool hlt_ss_dpl(const void *ctx)
{
	return activity(ctx) == VMX_ACTIVITY_HLT && ss_dpl(ctx) != 0;
}

static bool sti_mov_ss_blocking(const void *ctx)
{
	return interruptibility(ctx) & (VMX_INTERRUPTIBILITY_STI | VMX_INTERRUPTIBILITY_MOV_SS);
}

static bool inactive_with_blocking(const void *ctx)
{
	return activity(ctx) != VMX_ACTIVITY_ACTIVE && sti_mov_ss_blocking(ctx);
}

/* The events injection may deliver in each activity state: HLT external
 * interrupts, NMIs, #DB, #MC and a pending MTF VM exit; shutdown NMIs and
 * #MC; wait-for-SIPI none. */
static bool inj_blocked_by_activity(const void *ctx)
{
	uint32_t info = injected(ctx);
	if (!info || activity(ctx) == VMX_ACTIVITY_ACTIVE)
		return false;
	unsigned type = inj_type(info), vector = inj_vector(info);
	bool nmi = type == VMX_INTR_NMI, mc = type == VMX_INTR_HW_EXCEPTION && vector == EXC_MC;
	switch (activity(ctx)) {
	case VMX_ACTIVITY_HLT:
		return !(type == VMX_INTR_EXTERNAL || nmi || mc ||
			 (type == VMX_INTR_HW_EXCEPTION && vector == EXC_DB) ||
			 (type == VMX_INTR_OTHER && vector == 0));
	case VMX_ACTIVITY_SHUTDOWN:
		return !(nmi || mc);
	default:
		return true;
	}
}

/* Bit 4 (enclave interruption) needs SGX, which no hvemu model has: with it
 * the bit is reserved too. */
static bool interruptibility_reserved(const void *ctx)
{
	return interruptibility(ctx) & (VMX_INTERRUPTIBILITY_RESERVED | VMX_INTERRUPTIBILITY_ENCLAVE);
}

static bool sti_and_mov_ss(const void *ctx)
{
	return (interruptibility(ctx) & VMX_INTERRUPTIBILITY_STI) &&
	       (interruptibility(ctx) & VMX_INTERRUPTIBILITY_MOV_SS);
}

static bool sti_without_if(const void *ctx)
{
	return (interruptibility(ctx) & VMX_INTERRUPTIBILITY_STI) && !(guest_rflags(ctx) & FLAG_IF);
}

static bool external_with_blocking(const void *ctx)
{
	return inj_external(ctx) && sti_mov_ss_blocking(ctx);
}

static bool nmi_with_mov_ss(const void *ctx)
{
	return inj_nmi(ctx) && (interruptibility(ctx) & VMX_INTERRUPTIBILITY_MOV_SS);
}

/* hvemu has no SMM: blocking by SMI is never allowed. The rule that "entry
 * to SMM" needs blocking by SMI, and that wait-for-SIPI is not entered with
 * "entry to SMM", have no row: the controls' "entry to SMM outside SMM" row
 * fails first. */
static bool smi_blocking(const void *ctx)
{
	return interruptibility(ctx) & VMX_INTERRUPTIBILITY_SMI;
}

/* "A processor may require bit 0 (blocking by STI) to be 0 if ... NMI":
 * hvemu's models do, and report it with exit qualification 3 (26.8). */
static bool nmi_with_sti(const void *ctx)
{
	return inj_nmi(ctx) && (interruptibility(ctx) & VMX_INTERRUPTIBILITY_STI);
}

static bool virtual_nmi_blocked(const void *ctx)
{
	return pin_on(ctx, VMX_PIN_VIRTUAL_NMIS) && inj_nmi(ctx) &&
	       (interruptibility(ctx) & VMX_INTERRUPTIBILITY_NMI);
}

/* Pending debug exceptions (Table 24-4): bits 11:4, 13, 15 and 63:17
 * reserved. */
#define PENDING_DBG_RESERVED (0xff0ull | (1ull << 13) | (1ull << 15) | ~0x1ffffull)

static uint64_t pending_dbg(const void *ctx) { return field(ctx, VMCS_ROW_GUEST_PENDING_DBG_EXCEPTIONS); }

static bool pending_dbg_reserved(const void *ctx)
{
	return pending_dbg(ctx) & PENDING_DBG_RESERVED;
}

/* BS against single-stepping, checked while blocking by STI or MOV SS or
 * in the HLT state: BS is 1 exactly when RFLAGS.TF = 1 and the DEBUGCTL
 * field's BTF = 0. */
static bool bs_checked(const void *ctx)
{
	return sti_mov_ss_blocking(ctx) || activity(ctx) == VMX_ACTIVITY_HLT;
}

static bool single_stepping(const void *ctx)
{
	return (guest_rflags(ctx) & FLAG_TF) && !(field(ctx, VMCS_ROW_GUEST_IA32_DEBUGCTL) & DEBUGCTL_BTF);
}

static bool bs_missing(const void *ctx)
{
	return bs_checked(ctx) && single_stepping(ctx) && !(pending_dbg(ctx) & VMX_PENDING_DBG_BS);
}

static bool bs_unexpected(const void *ctx)
{
	return bs_checked(ctx) && !single_stepping(ctx) && (pending_dbg(ctx) & VMX_PENDING_DBG_BS);
}

/* Bit 16 (RTM) needs RTM, which no hvemu model has. */
static bool pending_dbg_rtm(const void *ctx)
{
	return pending_dbg(ctx) & VMX_PENDING_DBG_RTM;
}

static uint64_t link_pointer(const void *ctx) { return field(ctx, VMCS_ROW_VMCS_LINK_POINTER); }
static bool link_used(const void *ctx) { return link_pointer(ctx) != VMCS_POINTER_INVALID; }

static bool link_address(const void *ctx)
{
	return link_used(ctx) && bad_address(ctx, VMCS_ROW_VMCS_LINK_POINTER, 4096);
}

static uint32_t link_header(const void *ctx)
{
	return (uint32_t)physmem_read(model(ctx)->cpu->mem, link_pointer(ctx), 4);
}

static bool link_revision(const void *ctx)
{
	return link_used(ctx) && (link_header(ctx) & VMCS_REVISION_MASK) !=
		(vmx_cap(fixed(ctx), MSR_VMX_BASIC) & VMX_BASIC_REVISION_MASK);
}

static bool link_shadow(const void *ctx)
{
	return link_used(ctx) &&
	       !!(link_header(ctx) & VMCS_SHADOW_INDICATOR) != proc2_on(ctx, VMX_PROC2_VMCS_SHADOWING);
}

/* Checked "if the processor is not in SMM": always, on hvemu. */
static bool link_current(const void *ctx)
{
	return link_used(ctx) && link_pointer(ctx) == model(ctx)->vmcs.pa;
}

/* ---- 26.3.1.6 PDPTEs ----
 * A guest that will use PAE paging: CR0.PG, CR4.PAE, not "IA-32e mode
 * guest". With "enable EPT" the PDPTEs come from the guest-state fields;
 * without it from the PDPT at guest CR3[31:5] in memory (no EPT: the guest's
 * physical addresses are the host's). The SDM puts both among the checks
 * (26.3.1.6: "VM entry checks the validity of the PDPTEs", and it "may check
 * their validity even if" CR3 and the paging mode do not change, which hvemu
 * always does), so both are rows here, last in the guest table as in the
 * SDM, before MSR loading (26.4), both with exit qualification 2 (26.8);
 * world_switch.c's load (26.3.2.4) then finds them valid. */
static bool pae_guest(const void *ctx)
{
	return (guest_cr0(ctx) & CR0_PG) && (guest_cr4(ctx) & CR4_PAE) && !ia32e_guest(ctx);
}

/* SDM Vol.3 4.4.1: a present PDPTE has bits 2:1, 8:5 and 63:MAXPHYADDR
 * reserved. */
static bool pdpte_reserved(const void *ctx, uint64_t pdpte)
{
	unsigned width = fixed(ctx)->cpu->maxphyaddr;
	uint64_t rsvd = 0x6ull | 0x1e0ull | (width < 64 ? ~0ull << width : 0);
	return (pdpte & 1) && (pdpte & rsvd);
}

static bool pdpte_fields(const void *ctx)
{
	if (!pae_guest(ctx) || !proc2_on(ctx, VMX_PROC2_EPT))
		return false;
	for (unsigned i = 0; i < 4; i++)
		if (pdpte_reserved(ctx, field(ctx, VMCS_ROW_GUEST_PDPTE0 + i)))
			return true;
	return false;
}

static bool pdpte_memory(const void *ctx)
{
	if (!pae_guest(ctx) || proc2_on(ctx, VMX_PROC2_EPT))
		return false;
	struct cpu *cpu = model(ctx)->cpu;
	uint64_t pdpte[4];
	return !paging_load_pdptes(cpu->mem, field(ctx, VMCS_ROW_GUEST_CR3), cpu->maxphyaddr, pdpte);
}

/* ---- the table ---- */

static const struct check_row guest_checks[] = {
	{ "SDM Vol.3 26.3.1.1: guest CR0 sets a bit not supported in VMX operation (PE, PG exempt under unrestricted guest)",
	  guest_cr0_fixed, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: guest CR0.PG is 1 with CR0.PE 0",
	  guest_pg_without_pe, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: guest CR4 sets a bit not supported in VMX operation (IA32_VMX_CR4_FIXED0/1)",
	  guest_cr4_fixed, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: guest CR4.CET is 1 with CR0.WP 0",
	  guest_cet_without_wp, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: load debug controls: guest IA32_DEBUGCTL sets reserved bits",
	  guest_debugctl, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: IA-32e mode guest without guest CR0.PG and CR4.PAE",
	  ia32e_guest_paging, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: guest CR4.PCIDE is 1 without IA-32e mode guest",
	  legacy_guest_pcide, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: guest CR3 sets bits beyond the physical-address width",
	  guest_cr3_width, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: load debug controls: guest DR7 bits 63:32 are not 0",
	  guest_dr7_high, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: guest IA32_SYSENTER_ESP or IA32_SYSENTER_EIP is not canonical",
	  guest_sysenter_canonical, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: load CET state: guest IA32_S_CET or IA32_INTERRUPT_SSP_TABLE_ADDR is not canonical",
	  guest_cet_canonical, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: load CET state: guest IA32_S_CET sets reserved bits 9:6",
	  guest_s_cet_reserved, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: load CET state: guest SSP not canonical (IA-32e mode guest) or bits 63:32 not 0",
	  guest_ssp, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: load IA32_PERF_GLOBAL_CTRL (entry): guest value sets reserved bits",
	  guest_perf_global_ctrl, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: load IA32_PAT (entry): a guest PAT entry is not a valid memory type",
	  guest_pat, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: load IA32_EFER (entry): guest EFER sets reserved bits",
	  guest_efer_reserved, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: load IA32_EFER (entry): guest EFER.LMA differs from IA-32e mode guest",
	  guest_efer_lma, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: load IA32_EFER (entry): guest EFER.LMA differs from EFER.LME with CR0.PG 1",
	  guest_efer_lme, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: load IA32_BNDCFGS: guest IA32_BNDCFGS sets reserved bits 11:2",
	  guest_bndcfgs_reserved, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: load IA32_BNDCFGS: the bound-directory address (bits 63:12) is not canonical",
	  guest_bndcfgs_canonical, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: load IA32_RTIT_CTL: guest IA32_RTIT_CTL sets reserved bits",
	  guest_rtit_ctl, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: load PKRS (entry): guest IA32_PKRS bits 63:32 are not 0",
	  guest_pkrs, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.1: load guest IA32_LBR_CTL: guest IA32_LBR_CTL sets reserved bits",
	  guest_lbr_ctl, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest TR selector has TI set",
	  tr_ti, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: usable guest LDTR selector has TI set",
	  ldtr_ti, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest SS RPL differs from CS RPL (not virtual-8086, not unrestricted guest)",
	  ss_rpl, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: virtual-8086: a CS, SS, DS, ES, FS or GS base is not its selector shifted left 4",
	  v8086_base, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest TR, FS or GS base is not canonical",
	  tr_fs_gs_base, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: usable guest LDTR base is not canonical",
	  ldtr_base, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest CS base bits 63:32 are not 0",
	  cs_base_high, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: a usable guest SS, DS or ES base has bits 63:32 not 0",
	  ss_ds_es_base_high, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: virtual-8086: a CS, SS, DS, ES, FS or GS limit is not 0000FFFFH",
	  v8086_limit, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: virtual-8086: a CS, SS, DS, ES, FS or GS access-rights field is not 000000F3H",
	  v8086_ar, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest CS type is not 9, 11, 13 or 15 (or 3 with unrestricted guest)",
	  cs_type, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: usable guest SS type is not 3 or 7",
	  ss_type, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: a usable guest DS, ES, FS or GS type is not accessed",
	  data_accessed, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: a usable guest DS, ES, FS or GS code segment is not readable",
	  data_code_readable, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest CS or a usable SS, DS, ES, FS, GS has S 0",
	  seg_s, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest CS type 3 (unrestricted guest) with DPL not 0",
	  cs_dpl_data, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest CS non-conforming code with DPL not SS.DPL",
	  cs_dpl_nonconforming, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest CS conforming code with DPL above SS.DPL",
	  cs_dpl_conforming, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest SS.DPL differs from SS RPL (not unrestricted guest)",
	  ss_dpl_rpl, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest SS.DPL not 0 with CS type 3 or CR0.PE 0",
	  ss_dpl_zero, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: a usable guest DS, ES, FS or GS data or non-conforming code segment has DPL below RPL",
	  data_dpl, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest CS or a usable SS, DS, ES, FS, GS is not present",
	  seg_p, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest CS or a usable SS, DS, ES, FS, GS sets access-rights bits 11:8",
	  seg_11_8, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest CS has D/B 1 with L 1 in an IA-32e mode guest",
	  cs_db_with_l, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest CS or a usable SS, DS, ES, FS, GS has G 1 with limit bits 11:0 not all 1",
	  seg_g_partial, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest CS or a usable SS, DS, ES, FS, GS has G 0 with limit bits 31:20 not 0",
	  seg_g_missing, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest CS or a usable SS, DS, ES, FS, GS sets access-rights bits 31:17",
	  seg_31_17, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest TR type is not a busy TSS (11; 3 or 11 outside IA-32e mode guest)",
	  tr_type, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest TR has S 1",
	  tr_s, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest TR is not present",
	  tr_p, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest TR sets access-rights bits 11:8",
	  tr_11_8, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest TR has G 1 with limit bits 11:0 not all 1",
	  tr_g_partial, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest TR has G 0 with limit bits 31:20 not 0",
	  tr_g_missing, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest TR is unusable",
	  tr_unusable, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: guest TR sets access-rights bits 31:17",
	  tr_31_17, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: usable guest LDTR type is not 2 (LDT)",
	  ldtr_type, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: usable guest LDTR has S 1",
	  ldtr_s, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: usable guest LDTR is not present",
	  ldtr_p, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: usable guest LDTR sets access-rights bits 11:8",
	  ldtr_11_8, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: usable guest LDTR has G 1 with limit bits 11:0 not all 1",
	  ldtr_g_partial, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: usable guest LDTR has G 0 with limit bits 31:20 not 0",
	  ldtr_g_missing, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.2: usable guest LDTR sets access-rights bits 31:17",
	  ldtr_31_17, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.3: guest GDTR or IDTR base is not canonical",
	  gdtr_idtr_base, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.3: guest GDTR or IDTR limit bits 31:16 are not 0",
	  gdtr_idtr_limit, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.4: guest RIP bits 63:32 are not 0 outside 64-bit mode (IA-32e mode guest 0 or CS.L 0)",
	  rip_high, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.4: guest RIP is not canonical in 64-bit mode",
	  rip_canonical, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.4: guest RFLAGS sets reserved bits (63:22, 15, 5, 3) or clears bit 1",
	  rflags_reserved, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.4: guest RFLAGS.VM is 1 with IA-32e mode guest or CR0.PE 0",
	  rflags_vm, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.4: guest RFLAGS.IF is 0 with an external interrupt injected",
	  rflags_if, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.5: the activity state is not supported (IA32_VMX_MISC bits 8:6)",
	  activity_unsupported, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.5: HLT activity state with SS.DPL not 0",
	  hlt_ss_dpl, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.5: an inactive activity state with blocking by STI or MOV SS",
	  inactive_with_blocking, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.5: the injected event is one the activity state blocks",
	  inj_blocked_by_activity, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.5: interruptibility state sets reserved bits 31:5 or bit 4 (enclave interruption, no SGX)",
	  interruptibility_reserved, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.5: interruptibility state has blocking by both STI and MOV SS",
	  sti_and_mov_ss, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.5: blocking by STI with RFLAGS.IF 0",
	  sti_without_if, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.5: an external interrupt injected with blocking by STI or MOV SS",
	  external_with_blocking, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.5: an NMI injected with blocking by MOV SS",
	  nmi_with_mov_ss, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.5: blocking by SMI outside SMM",
	  smi_blocking, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.5: an NMI injected with blocking by STI",
	  nmi_with_sti, GUEST_FAIL(3) },
	{ "SDM Vol.3 26.3.1.5: an NMI injected with virtual NMIs and blocking by NMI",
	  virtual_nmi_blocked, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.5: pending debug exceptions set reserved bits (11:4, 13, 15, 63:17)",
	  pending_dbg_reserved, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.5: pending debug exceptions: BS 0 while single-stepping (RFLAGS.TF 1, BTF 0) under STI/MOV SS blocking or HLT",
	  bs_missing, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.5: pending debug exceptions: BS 1 without single-stepping under STI/MOV SS blocking or HLT",
	  bs_unexpected, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.5: pending debug exceptions: bit 16 (RTM) set, no RTM",
	  pending_dbg_rtm, GUEST_FAIL(0) },
	{ "SDM Vol.3 26.3.1.5: the VMCS link pointer is not 4-KByte aligned or beyond the physical-address width",
	  link_address, GUEST_FAIL(4) },
	{ "SDM Vol.3 26.3.1.5: the VMCS link pointer's region has another VMCS revision identifier",
	  link_revision, GUEST_FAIL(4) },
	{ "SDM Vol.3 26.3.1.5: the VMCS link pointer's shadow-VMCS indicator differs from VMCS shadowing",
	  link_shadow, GUEST_FAIL(4) },
	{ "SDM Vol.3 26.3.1.5: the VMCS link pointer is the current-VMCS pointer",
	  link_current, GUEST_FAIL(4) },
	{ "SDM Vol.3 26.3.1.6: PAE paging with enable EPT: a present guest PDPTE field sets reserved bits",
	  pdpte_fields, GUEST_FAIL(2) },
	{ "SDM Vol.3 26.3.1.6: PAE paging without enable EPT: a present PDPTE at guest CR3 sets reserved bits",
	  pdpte_memory, GUEST_FAIL(2) },
};

const struct check_row *vmx_check_guest_state(struct vmx *v)
{
	_Static_assert(sizeof(guest_checks) / sizeof(guest_checks[0]) <= CHECK_MEMO_ROWS, "one memo");
	return vmx_checks_run(v, VMX_CHECKS_GUEST, guest_checks, sizeof(guest_checks) / sizeof(guest_checks[0]));
}

const struct check_row *vmx_guest_check_table(size_t *n)
{
	*n = sizeof(guest_checks) / sizeof(guest_checks[0]);
	return guest_checks;
}
