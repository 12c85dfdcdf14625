/* Which events are VM exits under the current VMCS (SDM Vol.3 25.1
 * "Instructions That Cause VM Exits", 25.2 "Other Causes of VM Exits") and
 * the exit information each writes (SDM Vol.3 27.2): the exit reason, the
 * qualification, the guest-linear and guest-physical addresses, the
 * interruption and IDT-vectoring information, the instruction length and
 * information. Pure: reads the VMCS (and L1's bitmaps), decides, encodes;
 * world_switch.c takes the exit. The mirror of svm/intercepts.c: one function
 * per family of kinds, dispatched at the bottom.
 *
 * Fields the SDM leaves undefined for a reason (the instruction-information
 * fields it marks "undefined", the qualification of reasons without one) are
 * written as 0: the model's documented choice (vmx/model.h struct vmx_exit).
 */
#include "emu/cpu.h"
#include "emu/event_step.h"
#include "mmu/nested.h"
#include "vmx/bitmaps.h"
#include "vmx/exit_reasons.h"
#include "vmx/model.h"

/* ---- the controls ---- */

static bool proc_ctl(struct vmx *v, unsigned bit)
{
	return vmcs_get(v, VMCS_ROW_PRIMARY_PROC_CONTROLS) & VMX_CTL(bit);
}

/* SDM Vol.3 24.6.2: with "activate secondary controls" 0 the processor
 * operates as if every secondary control were 0. */
static bool proc2_ctl(struct vmx *v, unsigned bit)
{
	return proc_ctl(v, VMX_PROC_SECONDARY_CONTROLS) &&
	       (vmcs_get(v, VMCS_ROW_SECONDARY_PROC_CONTROLS) & VMX_CTL(bit));
}

/* ---- the exit information every exit carries ---- */

/* The interruption-information format (SDM Vol.3 24.9.2, 24.9.3): vector,
 * type (enum event_type uses the VMX numbering), error code valid, valid. */
static uint32_t intr_info_of(const struct event *ev)
{
	uint32_t info = ev->vector | (uint32_t)ev->type << VMX_INTR_TYPE_SHIFT | VMX_INTR_VALID;
	if (ev->has_error)
		info |= VMX_INTR_DELIVER_ERROR;
	return info;
}

static bool software_event(const struct event *ev)
{
	return ev->type == EV_SOFTINT || ev->type == EV_PRIV_SOFTEXC || ev->type == EV_SOFTEXC;
}

/* What every exit carries from the record: where the guest is and, SDM Vol.3
 * 27.2.4, the event whose delivery was in progress (IDT-vectoring information
 * and error code; its bit 12 is undefined: 0). 27.2.5: an exit during the
 * delivery of a software interrupt or exception reports that instruction's
 * length. */
static struct vmx_exit exit_of(const struct exit_record *r, uint32_t reason)
{
	struct vmx_exit x = { .reason = reason, .guest_rip = r->rip };
	if (r->vectoring_valid) {
		x.idt_vectoring_info = intr_info_of(&r->vectoring);
		if (r->vectoring.has_error)
			x.idt_vectoring_error = r->vectoring.error_code;
		if (software_event(&r->vectoring))
			x.insn_len = r->vectoring.insn_len;
	}
	return x;
}

/* An instruction's exit: its length (SDM Vol.3 27.2.5: "for VM exits due to
 * ... instructions", the instruction's length in bytes). */
static struct vmx_exit insn_exit(const struct exit_record *r, uint32_t reason)
{
	struct vmx_exit x = exit_of(r, reason);
	x.insn_len = (uint32_t)(r->next_rip - r->rip);
	return x;
}

/* ---- VM-exit instruction information (SDM Vol.3 27.2.5) ---- */

/* Bits 9:7 of Tables 27-8 ... 27-14: 0 16-bit, 1 32-bit, 2 64-bit. */
static uint32_t address_size_code(uint8_t asize)
{
	return asize == 8 ? 2u : asize == 4 ? 1u : 0u;
}

#define INFO_ADDR_SIZE_SHIFT   7
#define INFO_REG_OPERAND       (1u << 10)   /* Tables 27-11, 27-14: register, not memory */
#define INFO_OSIZE32           (1u << 11)   /* Table 27-10: 32-bit operand size */
#define INFO_SEG_SHIFT         15
#define INFO_INDEX_SHIFT       18
#define INFO_INDEX_INVALID     (1u << 22)
#define INFO_BASE_SHIFT        23
#define INFO_BASE_INVALID      (1u << 27)
#define INFO_IDENTITY_SHIFT    28           /* Tables 27-10, 27-11: instruction identity */
#define INFO_REG2_SHIFT        28           /* Tables 27-9, 27-14: reg2 */
#define INFO_REG1_SHIFT        3            /* Tables 27-11, 27-14: reg1 */

/* The memory operand as Tables 27-9, 27-10, 27-11, 27-13 and 27-14 share it:
 * scaling (1:0), address size (9:7), segment (17:15), index (21:18) and
 * "index invalid" (22), base (26:23) and "base invalid" (27). RIP-relative
 * addressing has neither base nor index register. Scaling is undefined
 * without an index: 0. */
static uint32_t mem_operand_info(const struct exit_operand *op)
{
	uint32_t info = address_size_code(op->asize) << INFO_ADDR_SIZE_SHIFT | (uint32_t)(op->seg & 7) << INFO_SEG_SHIFT;
	if (op->index == REG_NONE)
		info |= INFO_INDEX_INVALID;
	else
		info |= (op->scale & 3u) | (uint32_t)(op->index & 15) << INFO_INDEX_SHIFT;
	if (op->base == REG_NONE || op->base == REG_RIP)
		info |= INFO_BASE_INVALID;
	else
		info |= (uint32_t)(op->base & 15) << INFO_BASE_SHIFT;
	return info;
}

/* An operand that is a memory operand or reg1 (Tables 27-11, 27-14: bit 10
 * set and the register in 6:3; the memory fields are then undefined: 0). */
static uint32_t mem_or_reg_info(const struct exit_operand *op)
{
	if (op->mem)
		return mem_operand_info(op);
	return INFO_REG_OPERAND | (uint32_t)(op->gpr & 15) << INFO_REG1_SHIFT;
}

/* SDM Vol.3 27.2.1 (Table 27-1, "INVEPT, INVPCID, INVVPID, LGDT, LIDT, LLDT,
 * LTR, SGDT, SIDT, SLDT, STR, VMCLEAR, VMPTRLD, VMPTRST, VMREAD, VMWRITE,
 * VMXON, XRSTORS, XSAVES"): the displacement of the memory operand,
 * sign-extended to 64 bits; 0 without one (a register operand); with
 * RIP-relative addressing the displacement plus the RIP of the next
 * instruction. */
static uint64_t displacement_qualification(const struct exit_record *r)
{
	if (!r->op.mem)
		return 0;
	if (r->op.base == REG_RIP)
		return r->next_rip + (uint64_t)r->op.disp;
	return (uint64_t)r->op.disp;
}

/* An exit of an instruction with a memory (or register) operand and the
 * instruction information info: the qualification is the displacement. */
static struct vmx_exit operand_exit(const struct exit_record *r, uint32_t reason, uint32_t info)
{
	struct vmx_exit x = insn_exit(r, reason);
	x.qualification = displacement_qualification(r);
	x.insn_info = info;
	return x;
}

/* ---- instructions (SDM Vol.3 25.1.2, 25.1.3, 25.3) ---- */

/* SDM Vol.3 25.1.2 "Instructions That Cause VM Exits Unconditionally": CPUID,
 * GETSEC, INVD, XSETBV, and VMCALL ... VMXON, INVEPT, INVVPID in VMX
 * non-root operation. (GETSEC has no row: hvemu's models lack SMX.) */
static const uint8_t unconditional_reason[IK_COUNT] = {
	[IK_CPUID] = VMX_EXIT_CPUID, [IK_INVD] = VMX_EXIT_INVD, [IK_XSETBV] = VMX_EXIT_XSETBV,
	[IK_VMCALL] = VMX_EXIT_VMCALL, [IK_VMCLEAR] = VMX_EXIT_VMCLEAR,
	[IK_VMLAUNCH] = VMX_EXIT_VMLAUNCH, [IK_VMPTRLD] = VMX_EXIT_VMPTRLD,
	[IK_VMPTRST] = VMX_EXIT_VMPTRST, [IK_VMREAD] = VMX_EXIT_VMREAD,
	[IK_VMRESUME] = VMX_EXIT_VMRESUME, [IK_VMWRITE] = VMX_EXIT_VMWRITE,
	[IK_VMXOFF] = VMX_EXIT_VMXOFF, [IK_VMXON] = VMX_EXIT_VMXON,
	[IK_INVEPT] = VMX_EXIT_INVEPT, [IK_INVVPID] = VMX_EXIT_INVVPID,
};

/* How the unconditional exits' instruction information is formed (27.2.5). */
static uint32_t unconditional_info(const struct exit_record *r)
{
	switch (r->kind) {
	case IK_VMCLEAR: case IK_VMPTRLD: case IK_VMPTRST: case IK_VMXON:
		/* Table 27-13: a memory operand; bit 10 is 0. */
		return mem_operand_info(&r->op);
	case IK_VMREAD: case IK_VMWRITE:
		/* Table 27-14: reg1 or memory, reg2 the field encoding register. */
		return mem_or_reg_info(&r->op) | (uint32_t)(r->op.reg & 15) << INFO_REG2_SHIFT;
	case IK_INVEPT: case IK_INVVPID:
		/* Table 27-9: the descriptor, reg2 the type register. */
		return mem_operand_info(&r->op) | (uint32_t)(r->op.reg & 15) << INFO_REG2_SHIFT;
	default:
		return 0;
	}
}

static bool has_displacement_qualification(enum intercept_kind k)
{
	return k == IK_VMCLEAR || k == IK_VMPTRLD || k == IK_VMPTRST || k == IK_VMXON || k == IK_VMREAD ||
	       k == IK_VMWRITE || k == IK_INVEPT || k == IK_INVVPID || k == IK_INVPCID || k == IK_DESC_TABLE;
}

/* The instructions with one primary processor-based control and one reason
 * (SDM Vol.3 25.1.3; Table 24-6). */
static const struct {
	uint8_t kind;              /* enum intercept_kind */
	uint8_t bit;               /* enum vmx_proc_ctl */
	uint8_t reason;            /* enum vmx_exit_reason */
} proc_insns[] = {
	{ IK_HLT,     VMX_PROC_HLT_EXITING,     VMX_EXIT_HLT },
	{ IK_RDPMC,   VMX_PROC_RDPMC_EXITING,   VMX_EXIT_RDPMC },
	{ IK_RDTSC,   VMX_PROC_RDTSC_EXITING,   VMX_EXIT_RDTSC },
	{ IK_MONITOR, VMX_PROC_MONITOR_EXITING, VMX_EXIT_MONITOR },
	{ IK_PAUSE,   VMX_PROC_PAUSE_EXITING,   VMX_EXIT_PAUSE },
};

/* SDM Vol.3 27.2.1: LGDT ... STR's instruction identity, Tables 27-10 and
 * 27-11: 0 SGDT/SLDT, 1 SIDT/STR, 2 LGDT/LLDT, 3 LIDT/LTR. */
static struct vmx_exit desc_table_exit(const struct exit_record *r)
{
	bool local = r->desc == DESC_LDTR || r->desc == DESC_TR;
	uint32_t identity = (r->desc_write ? 2u : 0u) | (r->desc == DESC_IDTR || r->desc == DESC_TR);
	uint32_t info = identity << INFO_IDENTITY_SHIFT;
	if (local) {
		info |= mem_or_reg_info(&r->op);                     /* Table 27-11 */
	} else {
		info |= mem_operand_info(&r->op);                    /* Table 27-10 */
		/* Bit 11: operand size 0 16-bit, 1 32-bit (undefined in 64-bit
		 * mode: hvemu reports 1 for a 64-bit operand size). */
		if (r->op.osize != 2)
			info |= INFO_OSIZE32;
	}
	return operand_exit(r, local ? VMX_EXIT_LDTR_TR_ACCESS : VMX_EXIT_GDTR_IDTR_ACCESS, info);
}

static status_t instruction(struct vmx *v, struct cpu *cpu, struct exit_record *r, struct vmx_exit *x)
{
	if (unconditional_reason[r->kind]) {
		*x = insn_exit(r, unconditional_reason[r->kind]);
		x->insn_info = unconditional_info(r);
		if (has_displacement_qualification(r->kind))
			x->qualification = displacement_qualification(r);
		return ST_VMEXIT;
	}
	for (unsigned i = 0; i < sizeof(proc_insns) / sizeof(proc_insns[0]); i++) {
		if (proc_insns[i].kind != r->kind)
			continue;
		/* PAUSE-loop exiting (secondary control 10, PLE_Gap/PLE_Window in
		 * TSC cycles) is not modelled: only "PAUSE exiting" decides. */
		if (!proc_ctl(v, proc_insns[i].bit))
			return ST_OK;
		*x = insn_exit(r, proc_insns[i].reason);
		return ST_VMEXIT;
	}
	switch (r->kind) {
	case IK_RDTSCP:
		/* SDM Vol.3 25.3: RDTSCP is #UD unless "enable RDTSCP"; then it
		 * exits with "RDTSC exiting" (25.1.3). The TSC offset applies to
		 * both instructions through the TSC itself (world_switch.c). */
		if (!proc2_ctl(v, VMX_PROC2_RDTSCP))
			return cpu_raise(cpu, EXC_UD);
		if (!proc_ctl(v, VMX_PROC_RDTSC_EXITING))
			return ST_OK;
		*x = insn_exit(r, VMX_EXIT_RDTSCP);
		return ST_VMEXIT;
	case IK_MWAIT:
		/* 25.1.3 "MWAIT exiting"; 27.2.1: the qualification is 1 if the
		 * address-range monitoring hardware is armed, else 0. */
		if (!proc_ctl(v, VMX_PROC_MWAIT_EXITING))
			return ST_OK;
		*x = insn_exit(r, VMX_EXIT_MWAIT);
		x->qualification = cpu->monitor_armed;
		return ST_VMEXIT;
	case IK_INVLPG:
		/* 25.1.3 "INVLPG exiting"; 27.2.1: the qualification is the
		 * linear-address operand (bits 63:32 clear outside 64-bit mode:
		 * op.linear wraps at 4 GiB there). */
		if (!proc_ctl(v, VMX_PROC_INVLPG_EXITING))
			return ST_OK;
		*x = insn_exit(r, VMX_EXIT_INVLPG);
		x->qualification = r->op.linear;
		return ST_VMEXIT;
	case IK_INVPCID:
		/* 25.3: INVPCID is #UD unless "enable INVPCID"; 25.1.3: then it
		 * exits with "INVLPG exiting". Table 27-9, reg2 the type. */
		if (!proc2_ctl(v, VMX_PROC2_INVPCID))
			return cpu_raise(cpu, EXC_UD);
		if (!proc_ctl(v, VMX_PROC_INVLPG_EXITING))
			return ST_OK;
		*x = operand_exit(r, VMX_EXIT_INVPCID,
				  mem_operand_info(&r->op) | (uint32_t)(r->op.reg & 15) << INFO_REG2_SHIFT);
		return ST_VMEXIT;
	case IK_WBINVD:
		/* 25.1.3 "WBINVD exiting" (secondary). */
		if (!proc2_ctl(v, VMX_PROC2_WBINVD_EXITING))
			return ST_OK;
		*x = insn_exit(r, VMX_EXIT_WBINVD);
		return ST_VMEXIT;
	case IK_DESC_TABLE:
		/* 25.1.3 "descriptor-table exiting" (secondary): LGDT, LIDT,
		 * LLDT, LTR, SGDT, SIDT, SLDT, STR. */
		if (!proc2_ctl(v, VMX_PROC2_DESC_TABLE_EXITING))
			return ST_OK;
		*x = desc_table_exit(r);
		return ST_VMEXIT;
	case IK_VMFUNC: {
		/* 25.5.6: VMFUNC is #UD unless "enable VM functions"; a function
		 * (EAX) above 63 or not enabled in the VM-function controls exits
		 * (reason 59). An enabled function runs: EPTP switching is the
		 * world switch's. */
		if (!proc2_ctl(v, VMX_PROC2_VM_FUNCTIONS))
			return cpu_raise(cpu, EXC_UD);
		uint64_t fn = cpu->regs[R_AX] & 0xffffffffu;
		if (fn < 64 && (vmcs_get(v, VMCS_ROW_VM_FUNCTION_CONTROLS) >> fn) & 1)
			return ST_OK;
		*x = insn_exit(r, VMX_EXIT_VMFUNC);
		return ST_VMEXIT;
	}
	default:
		/* PUSHF, POPF, IRET, INT n, ICEBP, RSM, RDPRU and the SVM
		 * instructions: no VMX control makes them exit (INT3/INTO/INT1
		 * exit as exceptions). */
		return ST_OK;
	}
}

/* ---- control and debug registers (SDM Vol.3 25.1.3, 25.3, 29.3) ---- */

/* Table 27-3's access type: 0 MOV to CR, 1 MOV from CR, 2 CLTS, 3 LMSW. */
static const uint8_t cr_access_type[] = { [CR_MOV_TO] = 0, [CR_MOV_FROM] = 1, [CR_CLTS] = 2, [CR_LMSW] = 3 };

#define CRQ_ACCESS_SHIFT   4
#define CRQ_LMSW_MEMORY    (1u << 6)
#define CRQ_GPR_SHIFT      8
#define CRQ_LMSW_SRC_SHIFT 16

/* A control-register access exit (SDM Vol.3 27.2.1, Table 27-3): CR number
 * (0 for CLTS and LMSW) in 3:0, access type 5:4, LMSW operand type 6, the
 * GPR of MOV CR in 11:8, the LMSW source data in 31:16. An LMSW with a
 * memory operand also reports its guest-linear address (27.2.1). */
static status_t cr_exit(const struct exit_record *r, struct vmx_exit *x)
{
	*x = insn_exit(r, VMX_EXIT_CR_ACCESS);
	bool mov = r->cr_access == CR_MOV_TO || r->cr_access == CR_MOV_FROM;
	uint64_t q = (uint64_t)(mov ? r->cr & 15 : 0) | (uint64_t)cr_access_type[r->cr_access] << CRQ_ACCESS_SHIFT;
	if (mov)
		q |= (uint64_t)(r->op.gpr & 15) << CRQ_GPR_SHIFT;
	if (r->cr_access == CR_LMSW) {
		q |= (r->value & 0xffff) << CRQ_LMSW_SRC_SHIFT;
		if (r->op.mem) {
			q |= CRQ_LMSW_MEMORY;
			x->guest_linear = r->op.linear;
		}
	}
	x->qualification = q;
	return ST_VMEXIT;
}

/* CR0 and CR4 under their guest/host masks (SDM Vol.3 25.1.3, 25.3): a bit
 * set in the mask is owned by the host. Reads (MOV from CR, SMSW) see the
 * read shadow's owned bits; MOV to CR exits iff it would write an owned bit
 * with a value other than the shadow's; an access that does not exit leaves
 * the owned bits of the register as they are. */
static status_t cr0_cr4_access(struct vmx *v, struct cpu *cpu, struct exit_record *r, struct vmx_exit *x)
{
	bool cr0 = r->cr == 0;
	uint64_t mask = vmcs_get(v, cr0 ? VMCS_ROW_CR0_GUEST_HOST_MASK : VMCS_ROW_CR4_GUEST_HOST_MASK);
	uint64_t shadow = vmcs_get(v, cr0 ? VMCS_ROW_CR0_READ_SHADOW : VMCS_ROW_CR4_READ_SHADOW);
	uint64_t real = cr0 ? cpu->cr0 : cpu->cr4;
	switch (r->cr_access) {
	case CR_MOV_FROM:
	case CR_SMSW:
		r->value = (r->value & ~mask) | (shadow & mask);
		return ST_OK;
	case CR_MOV_TO:
		if ((r->value ^ shadow) & mask)
			return cr_exit(r, x);
		r->value = (r->value & ~mask) | (real & mask);
		return ST_OK;
	case CR_CLTS:
		/* 25.1.3: CLTS exits if TS is owned and set in the shadow; 25.3:
		 * owned and clear in the shadow, CLTS leaves CR0.TS alone. */
		if (mask & shadow & CR0_TS)
			return cr_exit(r, x);
		if (mask & CR0_TS)
			r->value = (r->value & ~(uint64_t)CR0_TS) | (real & CR0_TS);
		return ST_OK;
	case CR_LMSW: {
		/* 25.1.3: LMSW exits if PE is owned, clear in the shadow and set
		 * in the source (LMSW never clears PE), or any of MP, EM, TS is
		 * owned and differs between the source and the shadow; 25.3:
		 * otherwise it leaves the owned bits of CR0[3:0] alone. */
		uint64_t src = r->value;
		if ((mask & ~shadow & src & CR0_PE) || ((src ^ shadow) & mask & (CR0_MP | CR0_EM | CR0_TS)))
			return cr_exit(r, x);
		r->value = (src & ~(mask & 0xf)) | (real & mask & 0xf);
		return ST_OK;
	}
	default:
		return ST_OK;
	}
}

/* SDM Vol.3 25.1.3: MOV to CR3 exits with "CR3-load exiting" unless the value
 * is one of the first CR3-target-count CR3-target values (VM entry allows at
 * most 4, 26.2.1.1); MOV from CR3 with "CR3-store exiting". */
static status_t cr3_access(struct vmx *v, struct exit_record *r, struct vmx_exit *x)
{
	static const enum vmcs_row target[] = { VMCS_ROW_CR3_TARGET_VALUE0, VMCS_ROW_CR3_TARGET_VALUE1,
						VMCS_ROW_CR3_TARGET_VALUE2, VMCS_ROW_CR3_TARGET_VALUE3 };
	if (r->cr_access == CR_MOV_FROM)
		return proc_ctl(v, VMX_PROC_CR3_STORE_EXITING) ? cr_exit(r, x) : ST_OK;
	if (!proc_ctl(v, VMX_PROC_CR3_LOAD_EXITING))
		return ST_OK;
	uint64_t count = vmcs_get(v, VMCS_ROW_CR3_TARGET_COUNT);
	for (unsigned i = 0; i < 4 && i < count; i++)
		if (vmcs_get(v, target[i]) == r->value)
			return ST_OK;
	return cr_exit(r, x);
}

/* The VTPR, offset 80H of the virtual-APIC page (SDM Vol.3 29.1.1). */
#define VAPIC_VTPR 0x80u

/* SDM Vol.3 25.1.3: MOV to/from CR8 exits with "CR8-load/store exiting";
 * otherwise, with "use TPR shadow", 29.3: the access is virtualized: MOV from
 * CR8 reads VTPR[7:4], MOV to CR8 (#GP(0) if bits 63:4 are set) writes
 * VTPR[7:4] with bits 3:0 of the source and 31:8, 3:0 with 0, then TPR
 * virtualization (29.1.2): without virtual-interrupt delivery a VTPR[7:4]
 * below TPR threshold[3:0] makes a TPR-below-threshold VM exit after the
 * instruction (armed here, taken as IK_TPR_BELOW_THRESHOLD). With
 * virtual-interrupt delivery the PPR update and the delivery evaluation are
 * the APIC virtualization's (not modelled here). */
static status_t cr8_access(struct vmx *v, struct cpu *cpu, struct exit_record *r, struct vmx_exit *x)
{
	bool write = r->cr_access == CR_MOV_TO;
	if (proc_ctl(v, write ? VMX_PROC_CR8_LOAD_EXITING : VMX_PROC_CR8_STORE_EXITING))
		return cr_exit(r, x);
	if (!proc_ctl(v, VMX_PROC_TPR_SHADOW))
		return ST_OK;
	uint64_t vtpr = (vmcs_get(v, VMCS_ROW_VIRTUAL_APIC_ADDR) & ~0xfffull) + VAPIC_VTPR;
	if (!write) {
		r->value = (physmem_read(cpu->mem, vtpr, 4) >> 4) & 0xf;
		return ST_HANDLED;
	}
	if (r->value >> 4)
		return cpu_raise_err(cpu, EXC_GP, 0);
	physmem_write(cpu->mem, vtpr, 4, (r->value & 0xf) << 4);
	if (!proc2_ctl(v, VMX_PROC2_VIRTUAL_INTR_DELIVERY) &&
	    (r->value & 0xf) < (vmcs_get(v, VMCS_ROW_TPR_THRESHOLD) & 0xf))
		cpu_hv_arm(cpu, HV_ARM_TPR_THRESHOLD);
	return ST_HANDLED;
}

static status_t cr_access(struct vmx *v, struct cpu *cpu, struct exit_record *r, struct vmx_exit *x)
{
	/* SDM Vol.3 25.1.1: after the instruction's own checks; the SVM-only
	 * phase (LMSW before its operand) passes. */
	if (r->phase != PHASE_CHECKED)
		return ST_OK;
	switch (r->cr) {
	case 0:
	case 4:
		return cr0_cr4_access(v, cpu, r, x);
	case 3:
		return cr3_access(v, r, x);
	case 8:
		return cr8_access(v, cpu, r, x);
	default:
		return ST_OK;     /* MOV CR2 never exits */
	}
}

/* SDM Vol.3 25.1.3: MOV DR exits with "MOV-DR exiting", asked before the
 * instruction's CPL #GP, DR4/DR5 #UD and general-detect #DB (it takes
 * priority over them: PHASE_BEFORE_CHECKS). Table 27-4: DR number 2:0,
 * direction 4 (0 to DR, 1 from DR), GPR 11:8. */
static status_t dr_access(struct vmx *v, struct exit_record *r, struct vmx_exit *x)
{
	if (r->phase != PHASE_BEFORE_CHECKS || !proc_ctl(v, VMX_PROC_MOV_DR_EXITING))
		return ST_OK;
	*x = insn_exit(r, VMX_EXIT_DR_ACCESS);
	x->qualification = (uint64_t)(r->cr & 7) | (r->cr_access == CR_MOV_FROM ? 1u << 4 : 0) |
			   (uint64_t)(r->op.gpr & 15) << 8;
	return ST_VMEXIT;
}

/* ---- I/O instructions and MSRs (SDM Vol.3 25.1.3, 24.6.4, 24.6.9) ---- */

/* SDM Vol.3 25.1.3 with "use I/O bitmaps": an access exits if the bit of any
 * port it touches is 1 in bitmap A (0000H-7FFFH) or B (8000H-FFFFH), and
 * always if it wraps around the 16-bit port space. One byte of L1's
 * memory read per port (vmx/bitmaps.h gives the same rule over copies). */
static bool io_bitmaps_say(struct vmx *v, struct cpu *cpu, uint16_t port, unsigned size)
{
	if ((uint32_t)port + size > 0x10000u)
		return true;
	uint64_t a = vmcs_get(v, VMCS_ROW_IO_BITMAP_A), b = vmcs_get(v, VMCS_ROW_IO_BITMAP_B);
	for (uint32_t p = port; p < (uint32_t)port + size; p++) {
		uint32_t q = p & 0x7fffu;
		uint8_t byte = (uint8_t)physmem_read(cpu->mem, (p < 0x8000u ? a : b) + q / 8, 1);
		if ((byte >> (q % 8)) & 1)
			return true;
	}
	return false;
}

#define IOQ_IN          (1u << 3)
#define IOQ_STRING      (1u << 4)
#define IOQ_REP         (1u << 5)
#define IOQ_IMMEDIATE   (1u << 6)
#define IOQ_PORT_SHIFT  16

static status_t io_access(struct vmx *v, struct cpu *cpu, struct exit_record *r, struct vmx_exit *x)
{
	/* 25.1.3: with "use I/O bitmaps" the bitmaps decide and "unconditional
	 * I/O exiting" is ignored; without, the latter does. */
	bool exits = proc_ctl(v, VMX_PROC_IO_BITMAPS) ? io_bitmaps_say(v, cpu, r->port, r->io_size)
						      : proc_ctl(v, VMX_PROC_UNCOND_IO_EXITING);
	if (!exits)
		return ST_OK;
	/* Table 27-5: size - 1 in 2:0, IN 3, string 4, REP 5, immediate port
	 * 6, the port in 31:16. */
	*x = insn_exit(r, VMX_EXIT_IO_INSTRUCTION);
	x->qualification = (uint64_t)(r->io_size - 1u) | (r->io_in ? IOQ_IN : 0) | (r->io_string ? IOQ_STRING : 0) |
			   (r->io_rep ? IOQ_REP : 0) | (r->io_imm ? IOQ_IMMEDIATE : 0) |
			   (uint64_t)r->port << IOQ_PORT_SHIFT;
	if (r->io_string) {
		/* 27.2.1: INS/OUTS report the linear address of their memory
		 * operand (32 bits outside 64-bit mode). */
		x->guest_linear = r->op.linear;
		/* 27.2.5 Table 27-8, only if IA32_VMX_BASIC[54]: address size
		 * 9:7, the segment 17:15 (undefined for INS: its ES is given). */
		if (vmx_cap(v, MSR_VMX_BASIC) & VMX_BASIC_INS_OUTS_INFO)
			x->insn_info = address_size_code(r->op.asize) << INFO_ADDR_SIZE_SHIFT |
				       (uint32_t)(r->op.seg & 7) << INFO_SEG_SHIFT;
	}
	return ST_VMEXIT;
}

/* SDM Vol.3 25.1.3 RDMSR/WRMSR: without "use MSR bitmaps" every one exits; with
 * it, one whose ECX is outside 0-1FFFH and C0000000H-C0001FFFH exits, else
 * the bit of its quarter of the bitmap page (24.6.9) decides. */
static status_t msr_access(struct vmx *v, struct cpu *cpu, struct exit_record *r, struct vmx_exit *x)
{
	uint32_t byte;
	unsigned bit;
	if (proc_ctl(v, VMX_PROC_MSR_BITMAPS) && vmx_msr_bitmap_locate(r->msr, r->msr_write, &byte, &bit)) {
		uint8_t b = (uint8_t)physmem_read(cpu->mem, vmcs_get(v, VMCS_ROW_MSR_BITMAP) + byte, 1);
		if (!((b >> bit) & 1))
			return ST_OK;
	}
	*x = insn_exit(r, r->msr_write ? VMX_EXIT_WRMSR : VMX_EXIT_RDMSR);
	return ST_VMEXIT;
}

status_t vmx_exit_decide(struct vmx *v, struct cpu *cpu, struct exit_record *rec, struct vmx_exit *x)
{
	if (rec->kind >= IK_COUNT)
		return ST_OK;
	switch (rec->kind) {
	case IK_CR_ACCESS:     return cr_access(v, cpu, rec, x);
	case IK_DR_ACCESS:     return dr_access(v, rec, x);
	case IK_IO:            return io_access(v, cpu, rec, x);
	case IK_MSR:           return msr_access(v, cpu, rec, x);
	default:
		return instruction(v, cpu, rec, x);
	}
}
