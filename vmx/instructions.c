/* The VMX instructions (SDM Vol.3 30.3: VMXON, VMXOFF, VMCLEAR, VMPTRLD,
 * VMPTRST, VMREAD, VMWRITE, VMLAUNCH, VMRESUME, INVEPT, INVVPID, VMCALL,
 * VMFUNC), each in its pseudo-code's order: the #UD rules, then in VMX
 * non-root operation the VM exit, then #GP(0) at CPL > 0, then its own checks,
 * which end in VMsucceed, VMfailInvalid or VMfailValid(n) (SDM Vol.3 30.2;
 * the numbers are Table 30-1's, vmx/vmcs.h enum vmx_instruction_error).
 *
 * In VMX non-root operation each (but VMFUNC) is a VM exit (25.1.2), asked
 * through the seam like any instruction intercept; VMLAUNCH and VMRESUME end
 * in VM entry (world_switch.c); VMFUNC runs EPTP switching (25.5.6.3).
 *
 * Not here (each says so where it belongs):
 *   - the dual-monitor treatment of SMIs and SMM: hvemu has no SMM, so the
 *     treatment is never active (VMXOFF's error 23 and VMCALL's SMM paths
 *     cannot happen; VMCALL fails with error 1, as the pseudo-code says when
 *     IA32_SMM_MONITOR_CTL's valid bit is clear);
 *   - SMX operation: hvemu has no GETSEC, so VMXON always asks for the
 *     "VMX outside SMX" enable of IA32_FEATURE_CONTROL.
 *
 * "IF (register operand) ... THEN #UD" (VMXON, VMCLEAR, VMPTRLD, VMPTRST,
 * INVEPT, INVVPID): their rows in emu/isa/vm.isa take a memory operand only
 * ("m"), so a register form never reaches this file: it decodes as another
 * instruction (RDRAND, RDSEED) or as #UD.
 */
#include "emu/canonical.h"
#include "emu/flags.h"
#include "emu/operand.h"
#include "emu/quirks.h"
#include "mmu/nested.h"
#include "mmu/tlb.h"
#include "vmx/exit_reasons.h"
#include "vmx/model.h"

/* ---- SDM Vol.3 30.2: how a VMX instruction reports its outcome ---- */

/* VMsucceed: CF, PF, AF, ZF, SF, OF := 0. */
status_t vmx_succeed(struct cpu *cpu)
{
	flags_update(cpu, FLAGS_ARITH, 0);
	return ST_OK;
}

/* VMfailInvalid: CF := 1; PF, AF, ZF, SF, OF := 0. */
status_t vmx_fail_invalid(struct cpu *cpu)
{
	flags_update(cpu, FLAGS_ARITH, FLAG_CF);
	return ST_OK;
}

/* VMfailValid(ErrorNumber): ZF := 1; CF, PF, AF, SF, OF := 0; the current
 * VMCS's VM-instruction error field := ErrorNumber. */
status_t vmx_fail_valid(struct vmx *v, enum vmx_instruction_error err)
{
	flags_update(v->cpu, FLAGS_ARITH, FLAG_ZF);
	vmcs_set(v, VMCS_ROW_VM_INSTRUCTION_ERROR, err);
	return ST_OK;
}

/* VMfail(ErrorNumber): VMfailValid with a current VMCS, else VMfailInvalid. */
status_t vmx_fail(struct vmx *v, enum vmx_instruction_error err)
{
	return vmcs_current_valid(v) ? vmx_fail_valid(v, err) : vmx_fail_invalid(v->cpu);
}

/* ---- the rules the pseudo-codes share ---- */

/* "(CR0.PE = 0) or (RFLAGS.VM = 1) or (IA32_EFER.LMA = 1 and CS.L = 0)": real
 * mode, virtual-8086 mode, compatibility mode. */
static bool outside_vmx_modes(const struct cpu *cpu)
{
	return cpu->mode == MODE_REAL || cpu->mode == MODE_V86 || cpu->mode == MODE_COMPAT;
}

/* "ELSIF in VMX non-root operation THEN VM exit" (SDM Vol.3 25.1.2: every VMX
 * instruction but VMFUNC, VMREAD and VMWRITE exits unconditionally in VMX
 * non-root operation; those two are vmcs_access_ready's). The exit is the
 * seam's, asked as any instruction intercept (vmx_exit_decide's table). */
static status_t nonroot_exit(struct cpu *cpu, const struct insn *in, enum intercept_kind kind)
{
	status_t st = hv_intercept_insn(cpu, in, kind, PHASE_CHECKED);
	/* An unconditional exit the decision layer did not take would let the
	 * instruction run in the guest: stop instead of guessing. */
	return st == ST_OK ? ST_UNSUPPORTED : st;
}

/* The opening of the pseudo-codes of VMXOFF, VMCLEAR, VMPTRLD, VMPTRST,
 * VMREAD, VMWRITE, VMLAUNCH, VMRESUME, INVEPT and INVVPID (SDM Vol.3 30.3):
 *   IF (not in VMX operation) or (CR0.PE = 0) or (RFLAGS.VM = 1) or
 *      (IA32_EFER.LMA = 1 and CS.L = 0) THEN #UD;
 *   ELSIF in VMX non-root operation THEN VM exit;
 *   ELSIF CPL > 0 THEN #GP(0);
 * true: the instruction goes on, in VMX root operation at CPL 0; false: *st
 * is what happened instead. */
static bool root_ready(struct vmx *v, struct cpu *cpu, const struct insn *in, enum intercept_kind kind,
		       status_t *st)
{
	if (!v->vmx_operation || outside_vmx_modes(cpu))
		*st = cpu_raise(cpu, EXC_UD);
	else if (cpu->in_guest)
		*st = nonroot_exit(cpu, in, kind);
	else if (cpu->cpl != 0)
		*st = cpu_raise_err(cpu, EXC_GP, 0);
	else
		return true;
	return false;
}

/* "addr is not 4KB-aligned or addr sets any bits beyond the physical-address
 * width" (SDM Vol.3 30.3 VMXON, VMCLEAR, VMPTRLD); the width is 32 bits with
 * IA32_VMX_BASIC[48] (A.1), MAXPHYADDR otherwise. */
static bool vmx_pointer_ok(const struct vmx *v, uint64_t addr)
{
	unsigned width = (vmx_cap(v, MSR_VMX_BASIC) & VMX_BASIC_PA_32BIT) ? 32 : v->cpu->maxphyaddr;
	return (addr & 0xfff) == 0 && (width >= 64 || (addr >> width) == 0);
}

/* "rev := 32 bits located at physical address addr". */
static uint32_t region_revision(const struct vmx *v, uint64_t addr)
{
	return (uint32_t)physmem_read(v->cpu->mem, addr, 4);
}

static bool revision_matches(const struct vmx *v, uint32_t rev)
{
	return (rev & VMCS_REVISION_MASK) == (vmx_cap(v, MSR_VMX_BASIC) & VMX_BASIC_REVISION_MASK);
}

/* VMREAD, VMWRITE, INVEPT, INVVPID: "the operand size is 64 bits in 64-bit
 * mode and 32 bits outside it, whatever the prefixes" (SDM Vol.3 30.3). */
static unsigned vmx_opsize(const struct cpu *cpu)
{
	return cpu_is_mode64(cpu) ? 8 : 4;
}

/* ---- VMXON, VMXOFF ---- */

/* SDM Vol.3 23.8: "VMXON fails if any of these bits contains an unsupported
 * value" (CR0 and CR4 against IA32_VMX_CR0/CR4_FIXED0/1, A.7, A.8). */
static bool cr_fixed_ok(const struct vmx *v, const struct cpu *cpu)
{
	/* The quirk bochs-vmxon-cr0-pe-ne-only (emu/quirks.def): of CR0's fixed-1
	 * bits only PE and NE are checked. */
	uint64_t cr0_fixed0 = vmx_cap(v, MSR_VMX_CR0_FIXED0);
	if (v->quirks & QUIRK_BIT(QK_BOCHS_VMXON_CR0_PE_NE_ONLY))
		cr0_fixed0 &= CR0_PE | CR0_NE;
	return vmx_cr_fixed_valid(cr0_fixed0, vmx_cap(v, MSR_VMX_CR0_FIXED1), cpu->cr0) &&
	       vmx_cr_fixed_valid(vmx_cap(v, MSR_VMX_CR4_FIXED0), vmx_cap(v, MSR_VMX_CR4_FIXED1), cpu->cr4);
}

static status_t vmxon(struct vmx *v, struct cpu *cpu, const struct insn *in)
{
	status_t st;
	/* SDM Vol.3 30.3 VMXON: "IF (register operand) or (CR0.PE = 0) or
	 * (CR4.VMXE = 0) or (RFLAGS.VM = 1) or (IA32_EFER.LMA = 1 and CS.L = 0)
	 * THEN #UD". */
	if (!(cpu->cr4 & CR4_VMXE) || outside_vmx_modes(cpu))
		return cpu_raise(cpu, EXC_UD);
	if (v->vmx_operation) {
		/* "ELSIF in VMX non-root operation THEN VMexit; ELSIF CPL > 0 THEN
		 * #GP(0); ELSE VMfail("VMXON executed in VMX root operation")". */
		if (cpu->in_guest)
			return nonroot_exit(cpu, in, IK_VMXON);
		if (cpu->cpl != 0)
			return cpu_raise_err(cpu, EXC_GP, 0);
		return vmx_fail(v, VMXERR_VMXON_IN_ROOT);
	}
	/* "IF (CPL > 0) or (in A20M mode) or (the values of CR0 and CR4 are not
	 * supported in VMX operation) or (bit 0 (lock bit) of
	 * IA32_FEATURE_CONTROL MSR is clear) or (... outside SMX operation and
	 * bit 2 of IA32_FEATURE_CONTROL MSR is clear) THEN #GP(0)". A20M mode:
	 * the A20M# input asserted (emu/cpu.h a20_mask). */
	bool a20m = !(cpu->a20_mask & (1ull << 20));
	if (cpu->cpl != 0 || a20m || !cr_fixed_ok(v, cpu) ||
	    !vmx_vmxon_allowed(cpu->feature_control, false))
		return cpu_raise_err(cpu, EXC_GP, 0);
	/* "addr := contents of 64-bit in-memory source operand" (faults of the
	 * access come first: SDM Vol.3 30.3 VMXON, protected-mode exceptions). */
	uint64_t addr;
	if ((st = rm_read_mem(cpu, in, 8, &addr)) != ST_OK)
		return st;
	if (!vmx_pointer_ok(v, addr))
		return vmx_fail_invalid(cpu);
	/* "IF rev[30:0] != VMCS revision identifier supported by processor OR
	 * rev[31] = 1 THEN VMfailInvalid". */
	uint32_t rev = region_revision(v, addr);
	if (!revision_matches(v, rev) || (rev & VMCS_SHADOW_INDICATOR))
		return vmx_fail_invalid(cpu);
	/* "current-VMCS pointer := FFFFFFFF_FFFFFFFFH; enter VMX operation; block
	 * INIT signals; block and disable A20M; clear address-range monitoring".
	 * In VMX operation the CR0/CR4 rules hold too (vmx_cr_write_check). A20M:
	 * emu/cpu.c cpu_set_a20 has no hook for a model yet, so the A20M# input
	 * still acts in VMX operation. */
	v->vmx_operation = true;
	v->vmxon_ptr = addr;
	vmcs_forget(v);
	cpu->hv_holds |= HV_HOLD_INIT;
	cpu->hv_cr_checks = true;
	cpu->monitor_armed = false;
	return vmx_succeed(cpu);
}

static status_t vmxoff(struct vmx *v, struct cpu *cpu, const struct insn *in)
{
	status_t st;
	if (!root_ready(v, cpu, in, IK_VMXOFF, &st))
		return st;
	/* SDM Vol.3 30.3 VMXOFF: "ELSIF dual-monitor treatment of SMIs and SMM is
	 * active THEN VMfail(VMXOFF under dual-monitor treatment ...)" (23):
	 * never active in hvemu (no SMM). Then "leave VMX operation; unblock
	 * INIT; ... unblock and enable A20M; clear address-range monitoring;
	 * VMsucceed". A VMCS still active is lost, not written back: SDM Vol.3
	 * 24.11.1 asks software to VMCLEAR every active VMCS before VMXOFF. */
	v->vmx_operation = false;
	vmcs_forget(v);
	cpu->hv_holds &= (uint8_t)~HV_HOLD_INIT;
	cpu->hv_cr_checks = false;
	cpu_attend(cpu, ATT_EVENT);        /* an INIT held off is taken now */
	cpu->monitor_armed = false;
	return vmx_succeed(cpu);
}

/* ---- VMX operation's own rules ---- */

status_t vmx_cr_write_check(void *ctx, struct cpu *cpu, unsigned cr, enum cr_access access, uint64_t value)
{
	(void)access;
	struct vmx *v = ctx;
	/* SDM Vol.3 23.8: "Any attempt to set one of these bits to an unsupported
	 * value while in VMX operation (including VMX root operation) using any
	 * of the CLTS, LMSW, or MOV CR instructions causes a general-protection
	 * exception" (the fixed bits of A.7, A.8; CR4.VMXE is fixed to 1, so
	 * "software cannot clear it" while in VMX operation, 23.7). */
	bool ok = cr == 0 ? vmx_cr_fixed_valid(vmx_cap(v, MSR_VMX_CR0_FIXED0), vmx_cap(v, MSR_VMX_CR0_FIXED1), value)
			  : vmx_cr_fixed_valid(vmx_cap(v, MSR_VMX_CR4_FIXED0), vmx_cap(v, MSR_VMX_CR4_FIXED1), value);
	return ok ? ST_OK : cpu_raise_err(cpu, EXC_GP, 0);
}

/* ---- VMCLEAR, VMPTRLD, VMPTRST ---- */

static status_t vmclear(struct vmx *v, struct cpu *cpu, const struct insn *in)
{
	status_t st;
	if (!root_ready(v, cpu, in, IK_VMCLEAR, &st))
		return st;
	uint64_t addr;
	if ((st = rm_read_mem(cpu, in, 8, &addr)) != ST_OK)
		return st;
	/* "IF addr is not 4KB-aligned OR addr sets any bits beyond the
	 * physical-address width THEN VMfail(VMCLEAR with invalid physical
	 * address); ELSIF addr = VMXON pointer THEN VMfail(VMCLEAR with VMXON
	 * pointer)". */
	if (!vmx_pointer_ok(v, addr))
		return vmx_fail(v, VMXERR_VMCLEAR_INVALID_ADDR);
	if (addr == v->vmxon_ptr)
		return vmx_fail(v, VMXERR_VMCLEAR_VMXON_PTR);
	vmcs_clear(v, addr);
	return vmx_succeed(cpu);
}

/* May VMPTRLD load a shadow VMCS? (SDM Vol.3 30.3 VMPTRLD: only if the
 * processor supports the 1-setting of "VMCS shadowing", A.3.3.) */
static bool shadow_vmcs_allowed(const struct vmx *v)
{
	return vmx_allows(v, MSR_VMX_PROCBASED_CTLS2, VMX_PROC2_VMCS_SHADOWING);
}

static status_t vmptrld(struct vmx *v, struct cpu *cpu, const struct insn *in)
{
	status_t st;
	if (!root_ready(v, cpu, in, IK_VMPTRLD, &st))
		return st;
	uint64_t addr;
	if ((st = rm_read_mem(cpu, in, 8, &addr)) != ST_OK)
		return st;
	/* SDM Vol.3 30.3 VMPTRLD: invalid address (9), the VMXON pointer (10),
	 * "rev[30:0] != VMCS revision identifier supported by processor OR
	 * rev[31] = 1 AND processor does not support 1-setting of VMCS
	 * shadowing" (11). */
	if (!vmx_pointer_ok(v, addr))
		return vmx_fail(v, VMXERR_VMPTRLD_INVALID_ADDR);
	if (addr == v->vmxon_ptr)
		return vmx_fail(v, VMXERR_VMPTRLD_VMXON_PTR);
	uint32_t rev = region_revision(v, addr);
	if (!revision_matches(v, rev) || ((rev & VMCS_SHADOW_INDICATOR) && !shadow_vmcs_allowed(v)))
		return vmx_fail(v, VMXERR_VMPTRLD_BAD_REVISION);
	vmcs_make_current(v, addr);
	return vmx_succeed(cpu);
}

static status_t vmptrst(struct vmx *v, struct cpu *cpu, const struct insn *in)
{
	status_t st;
	if (!root_ready(v, cpu, in, IK_VMPTRST, &st))
		return st;
	/* SDM Vol.3 30.3 VMPTRST: "64-bit in-memory destination operand :=
	 * current-VMCS pointer; VMsucceed" (FFFFFFFF_FFFFFFFFH if none). */
	if ((st = rm_write_mem(cpu, in, 8, v->vmcs.pa)) != ST_OK)
		return st;
	return vmx_succeed(cpu);
}

/* ---- VMREAD, VMWRITE ---- */

/* The opening of VMREAD's and VMWRITE's pseudo-codes (SDM Vol.3 30.3):
 *   IF (not in VMX operation) or (CR0.PE = 0) or (RFLAGS.VM = 1) or
 *      (IA32_EFER.LMA = 1 and CS.L = 0) THEN #UD;
 *   ELSIF in VMX non-root operation AND ("VMCS shadowing" is 0 OR the
 *      field operand sets bits in range 63:15 OR its bit in the VMREAD
 *      (VMWRITE) bitmap is 1) THEN VM exit;
 *   ELSIF CPL > 0 THEN #GP(0);
 *   ELSIF (in VMX root operation AND current-VMCS pointer is not valid) OR
 *      (in VMX non-root operation AND VMCS link pointer is not valid)
 *      THEN VMfailInvalid;
 * The exit decision is intercepts.c's (vmcs_shadowing_exits, 25.1.3): the
 * seam answers ST_OK when the instruction goes on in the guest. true: it goes
 * on, *vmcs the VMCS it accesses: the current VMCS in root operation, the
 * shadow VMCS (24.10) in non-root operation; false: *st is what happened
 * instead. "Not valid": FFFFFFFF_FFFFFFFFH; any other link pointer passed
 * VM entry's checks (26.3.1.5: a shadow VMCS of the right revision). */
static bool vmcs_access_ready(struct vmx *v, struct cpu *cpu, const struct insn *in, enum intercept_kind kind,
			      status_t *st, uint64_t *vmcs)
{
	if (!v->vmx_operation || outside_vmx_modes(cpu)) {
		*st = cpu_raise(cpu, EXC_UD);
		return false;
	}
	if (cpu->in_guest && (*st = hv_intercept_insn(cpu, in, kind, PHASE_CHECKED)) != ST_OK)
		return false;
	if (cpu->cpl != 0) {
		*st = cpu_raise_err(cpu, EXC_GP, 0);
		return false;
	}
	*vmcs = cpu->in_guest ? vmcs_get(v, VMCS_ROW_VMCS_LINK_POINTER) : v->vmcs.pa;
	if (*vmcs == VMCS_POINTER_INVALID) {
		*st = vmx_fail_invalid(cpu);
		return false;
	}
	return true;
}

static status_t vmread(struct vmx *v, struct cpu *cpu, const struct insn *in)
{
	status_t st;
	uint64_t vmcs;
	if (!vmcs_access_ready(v, cpu, in, IK_VMREAD, &st, &vmcs))
		return st;
	/* SDM Vol.3 30.3 VMREAD: "ELSIF source operand does not correspond to
	 * any VMCS field THEN VMfailValid(VMREAD/VMWRITE from/to unsupported
	 * VMCS component)" (the error goes to the current VMCS's field, also in
	 * non-root operation: 30.2 VMfailValid). The source is the register
	 * operand (ModRM.reg), the destination the r/m operand. */
	unsigned size = vmx_opsize(cpu);
	uint64_t value;
	enum vmx_instruction_error err = vmcs_vmread_at(v, vmcs, greg_read(cpu, in, size), &value);
	if (err != VMXERR_NONE)
		return vmx_fail_valid(v, err);
	if ((st = rm_write(cpu, in, size, value)) != ST_OK)
		return st;
	return vmx_succeed(cpu);
}

static status_t vmwrite(struct vmx *v, struct cpu *cpu, const struct insn *in)
{
	status_t st;
	uint64_t vmcs;
	if (!vmcs_access_ready(v, cpu, in, IK_VMWRITE, &st, &vmcs))
		return st;
	/* SDM Vol.3 30.3 VMWRITE: the primary source (r/m operand) is read, a
	 * memory fault coming before the field checks; "secondary source
	 * operand does not correspond to any VMCS field" (12); a VM-exit
	 * information field without IA32_VMX_MISC bit 29 (13). */
	unsigned size = vmx_opsize(cpu);
	uint64_t value;
	if ((st = rm_read(cpu, in, size, &value)) != ST_OK)
		return st;
	enum vmx_instruction_error err = vmcs_vmwrite_at(v, vmcs, greg_read(cpu, in, size), value);
	if (err != VMXERR_NONE)
		return vmx_fail_valid(v, err);
	return vmx_succeed(cpu);
}

/* ---- VMLAUNCH, VMRESUME ---- */

static status_t vmlaunch_vmresume(struct vmx *v, struct cpu *cpu, const struct insn *in, bool launch)
{
	status_t st;
	if (!root_ready(v, cpu, in, launch ? IK_VMLAUNCH : IK_VMRESUME, &st))
		return st;
	/* SDM Vol.3 30.3 VMLAUNCH/VMRESUME: "ELSIF current-VMCS pointer is not
	 * valid THEN VMfailInvalid; ELSIF events are being blocked by MOV SS THEN
	 * VMfailValid(VM entry with events blocked by MOV SS); ELSIF (VMLAUNCH
	 * and launch state of current VMCS is not "clear") THEN
	 * VMfailValid(VMLAUNCH with non-clear VMCS); ELSIF (VMRESUME and launch
	 * state of current VMCS is not "launched") THEN VMfailValid(VMRESUME with
	 * non-launched VMCS)". Blocking by MOV SS: the shadow this instruction
	 * runs in (emu/cpu.h insn_shadow; POP SS sets it too, SDM Vol.3 6.8.3). */
	if (!vmcs_current_valid(v))
		return vmx_fail_invalid(cpu);
	/* SDM Vol.3 26.1 (4), 24.10: "If there is a current VMCS but the current
	 * VMCS is a shadow VMCS", VMfailInvalid: a shadow VMCS cannot be used
	 * for VM entry. */
	if (v->vmcs.shadow)
		return vmx_fail_invalid(cpu);
	if (cpu->insn_shadow & SHADOW_MOV_SS)
		return vmx_fail_valid(v, VMXERR_ENTRY_MOV_SS_BLOCKING);
	bool launched = vmcs_launched(v);
	if (launch && launched)
		return vmx_fail_valid(v, VMXERR_VMLAUNCH_NOT_CLEAR);
	if (!launch && !launched)
		return vmx_fail_valid(v, VMXERR_VMRESUME_NOT_LAUNCHED);
	/* "ELSE Check settings of VMX controls and host-state area; ..." (SDM
	 * Vol.3 30.3, Ch.26): world_switch.c. */
	return vmx_vm_entry(v, cpu, launch);
}

/* ---- INVEPT, INVVPID ---- */

/* The 128-bit descriptor at the memory operand (SDM Vol.3 30.3 INVEPT,
 * INVVPID: "value of 128-bit memory operand"). */
static status_t read_descriptor(struct cpu *cpu, const struct insn *in, uint64_t desc[2])
{
	uint64_t ea = insn_ea(cpu, in);
	status_t st = mem_read(cpu, in->seg, ea, 8, &desc[0]);
	if (st != ST_OK)
		return st;
	return mem_read(cpu, in->seg, (ea + 8) & size_mask(in->asize), 8, &desc[1]);
}

enum { INVEPT_SINGLE_CONTEXT = 1, INVEPT_ALL_CONTEXT = 2 };
enum { INVVPID_ADDRESS = 0, INVVPID_SINGLE = 1, INVVPID_ALL = 2, INVVPID_SINGLE_NG = 3 };

static status_t invept(struct vmx *v, struct cpu *cpu, const struct insn *in)
{
	status_t st;
	/* SDM Vol.3 30.3 INVEPT, #UD "If the logical processor does not support
	 * EPT (IA32_VMX_PROCBASED_CTLS2[33] = 0). If the logical processor
	 * supports EPT but does not support the INVEPT instruction
	 * (IA32_VMX_EPT_VPID_CAP[20] = 0)". */
	uint64_t ept_vpid = vmx_cap(v, MSR_VMX_EPT_VPID_CAP);
	bool has = vmx_allows(v, MSR_VMX_PROCBASED_CTLS2, VMX_PROC2_EPT) && (ept_vpid & EPT_CAP_INVEPT);
	if (!has)
		return cpu_raise(cpu, EXC_UD);
	if (!root_ready(v, cpu, in, IK_INVEPT, &st))
		return st;
	/* "IF IA32_VMX_EPT_VPID_CAP MSR indicates that processor does not
	 * support INVEPT_TYPE THEN VMfail(Invalid operand to INVEPT/INVVPID)"
	 * (bits 25, 26: types 1, 2; no other type exists). */
	uint64_t type = greg_read(cpu, in, vmx_opsize(cpu));
	bool supported = (type == INVEPT_SINGLE_CONTEXT && (ept_vpid & EPT_CAP_INVEPT_SINGLE)) ||
			 (type == INVEPT_ALL_CONTEXT && (ept_vpid & EPT_CAP_INVEPT_ALL));
	if (!supported)
		return vmx_fail(v, VMXERR_INVEPT_INVVPID_OPERAND);
	uint64_t desc[2];
	if ((st = read_descriptor(cpu, in, desc)) != ST_OK)
		return st;
	/* Single-context: "IF EPTP not valid (see Section 26.2.1.1) THEN
	 * VMfail(Invalid operand to INVEPT/INVVPID)". Bits 127:64 are not
	 * checked. */
	if (type == INVEPT_SINGLE_CONTEXT && ept_eptp_check(desc[0], ept_vpid, cpu->maxphyaddr) != EPTP_OK)
		return vmx_fail(v, VMXERR_INVEPT_INVVPID_OPERAND);
	/* SDM Vol.3 28.3.3.1: single-context drops the mappings of the
	 * descriptor's EP4TA (every VPID, every PCID), all-context those of
	 * every EP4TA; other spaces keep theirs. */
	vmx_invalidate_ept(cpu, type == INVEPT_ALL_CONTEXT, desc[0]);
	return vmx_succeed(cpu);
}

static status_t invvpid(struct vmx *v, struct cpu *cpu, const struct insn *in)
{
	status_t st;
	/* SDM Vol.3 30.3 INVVPID, #UD "If the logical processor does not support
	 * VPIDs (IA32_VMX_PROCBASED_CTLS2[37] = 0). If the logical processor
	 * supports VPIDs but does not support the INVVPID instruction
	 * (IA32_VMX_EPT_VPID_CAP[32] = 0)". */
	uint64_t ept_vpid = vmx_cap(v, MSR_VMX_EPT_VPID_CAP);
	bool has = vmx_allows(v, MSR_VMX_PROCBASED_CTLS2, VMX_PROC2_VPID) && (ept_vpid & VPID_CAP_INVVPID);
	if (!has)
		return cpu_raise(cpu, EXC_UD);
	if (!root_ready(v, cpu, in, IK_INVVPID, &st))
		return st;
	/* "IF IA32_VMX_EPT_VPID_CAP MSR indicates that processor does not
	 * support INVVPID_TYPE THEN VMfail(Invalid operand to INVEPT/INVVPID)"
	 * (bits 40-43: types 0-3). */
	static const uint64_t type_cap[4] = { VPID_CAP_INVVPID_ADDRESS, VPID_CAP_INVVPID_SINGLE,
					      VPID_CAP_INVVPID_ALL, VPID_CAP_INVVPID_SINGLE_NG };
	uint64_t type = greg_read(cpu, in, vmx_opsize(cpu));
	if (type > INVVPID_SINGLE_NG || !(ept_vpid & type_cap[type]))
		return vmx_fail(v, VMXERR_INVEPT_INVVPID_OPERAND);
	uint64_t desc[2];
	if ((st = read_descriptor(cpu, in, desc)) != ST_OK)
		return st;
	/* "IF INVVPID_DESC[63:16] != 0 THEN VMfail(Invalid operand ...)"; types
	 * 0, 1 and 3 with VPID 0 fail the same way, and type 0 with a
	 * non-canonical linear address (INVVPID_DESC[127:64], canonical to the
	 * processor's linear-address width). */
	uint16_t vpid = (uint16_t)desc[0];
	if ((desc[0] >> 16) != 0 || (type != INVVPID_ALL && vpid == 0) ||
	    (type == INVVPID_ADDRESS && !addr_canonical_reg(cpu, desc[1])))
		return vmx_fail(v, VMXERR_INVEPT_INVVPID_OPERAND);
	/* SDM Vol.3 28.3.3.1: type 0 the mappings of the page for the VPID,
	 * type 1 all of the VPID's, type 2 those of every VPID but 0000H, type
	 * 3 the VPID's but its global translations; for every EP4TA and PCID. */
	vmx_invalidate_vpid(cpu, type == INVVPID_ALL, vpid, type == INVVPID_SINGLE_NG,
			    type == INVVPID_ADDRESS, desc[1]);
	return vmx_succeed(cpu);
}

/* ---- VMCALL, VMFUNC ---- */

static status_t vmcall(struct vmx *v, struct cpu *cpu, const struct insn *in)
{
	/* SDM Vol.3 30.3 VMCALL: "IF not in VMX operation THEN #UD; ELSIF in VMX
	 * non-root operation THEN VM exit; ELSIF (RFLAGS.VM = 1) or
	 * (IA32_EFER.LMA = 1 and CS.L = 0) THEN #UD; ELSIF CPL > 0 THEN #GP(0);
	 * ELSIF (in SMM) or (the logical processor does not support the
	 * dual-monitor treatment of SMIs and SMM) or (the valid bit in the
	 * IA32_SMM_MONITOR_CTL MSR is clear) THEN VMfail(VMCALL executed in VMX
	 * root operation)". hvemu has no IA32_SMM_MONITOR_CTL (its valid bit
	 * reads as clear), so in root operation that is where VMCALL ends. */
	if (!v->vmx_operation)
		return cpu_raise(cpu, EXC_UD);
	if (cpu->in_guest)
		return nonroot_exit(cpu, in, IK_VMCALL);
	if (cpu->mode == MODE_V86 || cpu->mode == MODE_COMPAT)
		return cpu_raise(cpu, EXC_UD);
	if (cpu->cpl != 0)
		return cpu_raise_err(cpu, EXC_GP, 0);
	return vmx_fail(v, VMXERR_VMCALL_IN_ROOT);
}

/* VMFUNC's own VM exit (SDM Vol.3 25.5.6: "the VM function ... causes a VM
 * exit" with reason 59 when it is not enabled or fails; 27.2.5: the
 * instruction's length). */
static status_t vmfunc_exit(struct vmx *v, struct cpu *cpu)
{
	struct vmx_exit x = { .reason = VMX_EXIT_VMFUNC, .guest_rip = cpu->insn_start,
			      .insn_len = (uint32_t)(cpu->rip - cpu->insn_start) };
	return vmx_vm_exit(v, cpu, &x);
}

#define EPTP_LIST_ENTRIES 512u

static status_t vmfunc(struct vmx *v, struct cpu *cpu)
{
	/* SDM Vol.3 30.3 VMFUNC: #UD "if executed outside VMX non-root
	 * operation" and "if the enable VM functions VM-execution control is
	 * 0"; 25.5.6: EAX above 63 or a function whose bit in the VM-function
	 * controls is 0 is a VM exit. */
	if (!cpu->in_guest || !vmx_proc2_ctl(v, VMX_PROC2_VM_FUNCTIONS))
		return cpu_raise(cpu, EXC_UD);
	uint32_t fn = (uint32_t)cpu->regs[R_AX];
	if (fn > 63 || !((vmcs_get(v, VMCS_ROW_VM_FUNCTION_CONTROLS) >> fn) & 1))
		return vmfunc_exit(v, cpu);
	/* 25.5.6.3 EPTP switching (function 0, the only one): ECX indexes the
	 * 512-entry EPTP list; an index out of range or an entry that fails the
	 * EPTP checks of 26.2.1.1 is a VM exit; else the entry becomes the
	 * EPTP. */
	uint32_t index = (uint32_t)cpu->regs[R_CX];
	if (index >= EPTP_LIST_ENTRIES)
		return vmfunc_exit(v, cpu);
	uint64_t eptp = physmem_read(cpu->mem, vmcs_get(v, VMCS_ROW_EPTP_LIST_ADDR) + 8ull * index, 8);
	if (ept_eptp_check(eptp, vmx_cap(v, MSR_VMX_EPT_VPID_CAP), cpu->maxphyaddr) != EPTP_OK)
		return vmfunc_exit(v, cpu);
	if (eptp != vmcs_get(v, VMCS_ROW_EPT_POINTER))
		vmx_switch_eptp(v, cpu, eptp);
	/* The guest's code is now reached through another stage 2: the block
	 * that ran VMFUNC ends here. */
	return ST_VMEXIT;
}

/* ---- dispatch ---- */

status_t vmx_vm_insn(void *ctx, struct cpu *cpu, const struct insn *in, enum intercept_kind kind)
{
	struct vmx *v = ctx;

	switch (kind) {
	case IK_VMXON:    return vmxon(v, cpu, in);
	case IK_VMXOFF:   return vmxoff(v, cpu, in);
	case IK_VMCLEAR:  return vmclear(v, cpu, in);
	case IK_VMPTRLD:  return vmptrld(v, cpu, in);
	case IK_VMPTRST:  return vmptrst(v, cpu, in);
	case IK_VMREAD:   return vmread(v, cpu, in);
	case IK_VMWRITE:  return vmwrite(v, cpu, in);
	case IK_VMLAUNCH: return vmlaunch_vmresume(v, cpu, in, true);
	case IK_VMRESUME: return vmlaunch_vmresume(v, cpu, in, false);
	case IK_INVEPT:   return invept(v, cpu, in);
	case IK_INVVPID:  return invvpid(v, cpu, in);
	case IK_VMCALL:   return vmcall(v, cpu, in);
	case IK_VMFUNC:   return vmfunc(v, cpu);
	default:
		/* The SVM instructions are #UD on an
		 * Intel CPU (APM3 VMRUN ...: #UD with EFER.SVME = 0, which an
		 * Intel CPU cannot set). */
		return cpu_raise(cpu, EXC_UD);
	}
}
