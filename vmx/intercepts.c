/* Which events are VM exits under the current VMCS (SDM Vol.3 25.1
 * "Instructions That Cause VM Exits", 25.2 "Other Causes of VM Exits") and
 * the exit information each writes (SDM Vol.3 27.2): the exit reason, the
 * qualification, the guest-linear and guest-physical addresses, the
 * interruption and IDT-vectoring information, the instruction length and
 * information. Reads the VMCS (and L1's bitmaps), decides, encodes;
 * world_switch.c takes the exit. Its only other effects are the ones the
 * SDM gives non-root operation: read values replaced by shadows, the TPR
 * shadow's VTPR write, the PAUSE-loop timing. The mirror of
 * svm/intercepts.c: one function per family of kinds, dispatched at the
 * bottom.
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
#include "vmx/virtual_apic.h"

/* ---- the controls ---- */

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

/* SDM Vol.3 27.3.3: RF as the saved RFLAGS image of the event would hold it. */
static uint8_t rf_of_event(const struct event *ev)
{
	return event_saves_rf(ev) ? VMX_RF_SET : VMX_RF_AS_IS;
}

/* SDM Vol.3 27.3.3: an APIC-access, EPT or page-modification-log-full exit
 * saves RF = 1, or during event delivery what the event's image would hold. */
static uint8_t rf_of_access_exit(const struct exit_record *r)
{
	return r->vectoring_valid ? rf_of_event(&r->vectoring) : VMX_RF_SET;
}

/* SDM Vol.3 27.2.4: "a VM exit is not considered to occur during event
 * delivery" when a double fault that event delivery produced causes it
 * directly, nor when it is a triple fault: no IDT-vectoring information. */
static struct vmx_exit not_during_delivery(struct vmx_exit x)
{
	x.idt_vectoring_info = 0;
	x.idt_vectoring_error = 0;
	x.insn_len = 0;
	return x;
}

/* An instruction's exit: its length (SDM Vol.3 27.2.5: "for VM exits due to
 * ... instructions", the instruction's length in bytes). */
static struct vmx_exit insn_exit(const struct exit_record *r, uint32_t reason)
{
	struct vmx_exit x = exit_of(r, reason);
	x.insn_len = (uint32_t)(r->next_rip - r->rip);
	/* 27.3.3: an instruction that exits (unconditionally or by a control)
	 * saves RF = 0. */
	x.saved_rf = VMX_RF_CLEAR;
	return x;
}

/* ---- VM-exit instruction information (SDM Vol.3 27.2.5) ---- */

/* Bits 9:7 of Tables 27-8 ... 27-14: 0 16-bit, 1 32-bit, 2 64-bit. */
static uint32_t address_size_code(uint8_t asize)
{
	return asize == 8 ? 2u : asize == 4 ? 1u : 0u;
}

/* The fields Tables 27-9 ... 27-14 share (each table keeps those its
 * instructions have; Table 27-8 only asz and seg):
 *
 *   31  28 27 26  23 22 21  18 17 15 14 12 11 10 9  7 6  3  2  1  0
 *  +------+--+------+--+------+-----+-----+--+--+----+----+--+-----+
 *  | reg2 |BI| base |II| index| seg |     |OS|R | asz|reg1|  |scale|
 *  +------+--+------+--+------+-----+-----+--+--+----+----+--+-----+
 *  reg2: the instruction identity in 29:28 for Tables 27-10 and 27-11;
 *  BI, II: base, index invalid; OS: operand size (27-10); R: register
 *  operand (27-11, 27-14); asz: address size. */
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
#define INFO_REG1_SHIFT        3            /* Tables 27-11, 27-12, 27-14: reg1 */
#define INFO_OSIZE_SHIFT       11           /* Table 27-12: operand size */

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

/* Which VM-exit instruction-information table an instruction's exit follows
 * (SDM Vol.3 27.2.5); with an operand, the qualification is its displacement
 * (27.2.1, Table 27-1). */
enum info_format {
	INFO_NONE,                 /* no instruction information, no qualification */
	INFO_MEM,                  /* Table 27-13: VMCLEAR, VMPTRLD, VMPTRST, VMXON */
	INFO_MEM_REG2,             /* Table 27-9: INVEPT, INVPCID, INVVPID; reg2 the type */
	INFO_MEM_OR_REG1_REG2,     /* Table 27-14: VMREAD, VMWRITE (25.1.3); reg2 the field encoding */
};

static uint32_t operand_info(enum info_format f, const struct exit_operand *op)
{
	switch (f) {
	case INFO_MEM:              return mem_operand_info(op);
	case INFO_MEM_REG2:         return mem_operand_info(op) | (uint32_t)(op->reg & 15) << INFO_REG2_SHIFT;
	case INFO_MEM_OR_REG1_REG2: return mem_or_reg_info(op) | (uint32_t)(op->reg & 15) << INFO_REG2_SHIFT;
	default:                    return 0;
	}
}

/* SDM Vol.3 25.1.2 "Instructions That Cause VM Exits Unconditionally": CPUID,
 * GETSEC, INVD, XSETBV, and INVEPT, INVVPID, VMCALL, VMCLEAR, VMLAUNCH,
 * VMPTRLD, VMPTRST, VMRESUME, VMXOFF, VMXON in VMX non-root operation.
 * (GETSEC has no row: hvemu's models lack SMX. VMREAD and VMWRITE are
 * conditional, 25.1.3: vmcs_shadowing_exits.) */
static const struct {
	uint8_t kind;              /* enum intercept_kind */
	uint8_t reason;            /* enum vmx_exit_reason */
	uint8_t format;            /* enum info_format */
} unconditional[] = {
	{ IK_CPUID,    VMX_EXIT_CPUID,    INFO_NONE },
	{ IK_INVD,     VMX_EXIT_INVD,     INFO_NONE },
	{ IK_XSETBV,   VMX_EXIT_XSETBV,   INFO_NONE },
	{ IK_VMCALL,   VMX_EXIT_VMCALL,   INFO_NONE },
	{ IK_VMCLEAR,  VMX_EXIT_VMCLEAR,  INFO_MEM },
	{ IK_VMLAUNCH, VMX_EXIT_VMLAUNCH, INFO_NONE },
	{ IK_VMPTRLD,  VMX_EXIT_VMPTRLD,  INFO_MEM },
	{ IK_VMPTRST,  VMX_EXIT_VMPTRST,  INFO_MEM },
	{ IK_VMRESUME, VMX_EXIT_VMRESUME, INFO_NONE },
	{ IK_VMXOFF,   VMX_EXIT_VMXOFF,   INFO_NONE },
	{ IK_VMXON,    VMX_EXIT_VMXON,    INFO_MEM },
	{ IK_INVEPT,   VMX_EXIT_INVEPT,   INFO_MEM_REG2 },
	{ IK_INVVPID,  VMX_EXIT_INVVPID,  INFO_MEM_REG2 },
};

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

/* SDM Vol.3 25.1.3 PAUSE with "PAUSE-loop exiting" (and "PAUSE exiting" 0)
 * at CPL 0: a PAUSE more than PLE_Gap after the previous one (or the first
 * after VM entry) starts a loop; one more than PLE_Window after the start of
 * its loop exits. Time runs at the TSC's rate: hvemu's virtual time
 * (cpu_now), as the TSC offset cancels out of the differences. The exit
 * ends the loop: the next PAUSE follows a VM entry. */
static bool pause_loop_exits(struct vmx *v, struct cpu *cpu)
{
	uint64_t now = cpu_now(cpu);
	uint32_t gap = (uint32_t)vmcs_get(v, VMCS_ROW_PLE_GAP);
	uint32_t window = (uint32_t)vmcs_get(v, VMCS_ROW_PLE_WINDOW);
	bool first = !v->pause_loop || now - v->pause_last > gap;
	v->pause_last = now;
	if (first) {
		v->pause_loop = true;
		v->pause_first = now;
		return false;
	}
	if (now - v->pause_first <= window)
		return false;
	v->pause_loop = false;
	return true;
}

/* SDM Vol.3 25.1.3 VMREAD/VMWRITE: exit unless "VMCS shadowing" is 1, bits
 * 63:15 (31:15 outside 64-bit mode) of the field-encoding register are 0 and
 * bit n of the VMREAD/VMWRITE bitmap (24.6.15), n = encoding bits 14:0, is
 * 0. Without an exit the instruction reaches the shadow VMCS the VMCS link
 * pointer references (instructions.c vmcs_access_ready, 30.3). */
static bool vmcs_shadowing_exits(struct vmx *v, struct cpu *cpu, const struct exit_record *r)
{
	if (!vmx_proc2_ctl(v, VMX_PROC2_VMCS_SHADOWING))
		return true;
	uint64_t enc = cpu->regs[r->op.reg & 15];
	if (!cpu_is_mode64(cpu))
		enc &= 0xffffffffu;
	if (enc >> 15)
		return true;
	uint64_t bitmap = vmcs_get(v, r->kind == IK_VMREAD ? VMCS_ROW_VMREAD_BITMAP : VMCS_ROW_VMWRITE_BITMAP);
	return (physmem_read(cpu->mem, bitmap + enc / 8, 1) >> (enc % 8)) & 1;
}

/* SDM Vol.3 25.3: with "enable RDTSCP" 0 RDTSCP and RDPID, with "enable
 * INVPCID" 0 INVPCID, is #UD, and that #UD "takes priority over any other exception
 * the instruction may incur" (CR4.TSD's #GP, INVPCID's CPL #GP): asked
 * before the instruction's own checks (PHASE_BEFORE_CHECKS). */
static status_t disabled_instruction(struct vmx *v, struct cpu *cpu, const struct exit_record *r)
{
	if (((r->kind == IK_RDTSCP || r->kind == IK_RDPID) && !vmx_proc2_ctl(v, VMX_PROC2_RDTSCP)) ||
	    (r->kind == IK_INVPCID && !vmx_proc2_ctl(v, VMX_PROC2_INVPCID)))
		return cpu_raise(cpu, EXC_UD);
	return ST_OK;
}

static status_t instruction(struct vmx *v, struct cpu *cpu, struct exit_record *r, struct vmx_exit *x)
{
	if (r->phase == PHASE_BEFORE_CHECKS)
		return disabled_instruction(v, cpu, r);
	for (unsigned i = 0; i < sizeof(unconditional) / sizeof(unconditional[0]); i++) {
		if (unconditional[i].kind != r->kind)
			continue;
		enum info_format f = (enum info_format)unconditional[i].format;
		*x = f == INFO_NONE ? insn_exit(r, unconditional[i].reason)
				    : operand_exit(r, unconditional[i].reason, operand_info(f, &r->op));
		return ST_VMEXIT;
	}
	for (unsigned i = 0; i < sizeof(proc_insns) / sizeof(proc_insns[0]); i++) {
		if (proc_insns[i].kind != r->kind)
			continue;
		if (!vmx_proc_ctl(v, proc_insns[i].bit))
			return ST_OK;
		*x = insn_exit(r, proc_insns[i].reason);
		return ST_VMEXIT;
	}
	switch (r->kind) {
	case IK_RDRAND:
	case IK_RDSEED: {
		/* 25.1.3 "RDRAND exiting", "RDSEED exiting" (secondary controls);
		 * 27.2.5 Table 27-12: the destination register in bits 6:3, the
		 * operand size in bits 12:11 (0: 16-bit, 1: 32-bit, 2: 64-bit). */
		bool rdrand = r->kind == IK_RDRAND;
		if (!vmx_proc2_ctl(v, rdrand ? VMX_PROC2_RDRAND_EXITING : VMX_PROC2_RDSEED_EXITING))
			return ST_OK;
		*x = insn_exit(r, rdrand ? VMX_EXIT_RDRAND : VMX_EXIT_RDSEED);
		x->insn_info = (uint32_t)(r->op.gpr & 15) << INFO_REG1_SHIFT |
			       (uint32_t)(r->op.osize == 2 ? 0 : r->op.osize == 4 ? 1 : 2) << INFO_OSIZE_SHIFT;
		return ST_VMEXIT;
	}
	case IK_RDTSCP:
		/* Enabled (disabled_instruction), it exits with "RDTSC exiting"
		 * (SDM Vol.3 25.1.3). The TSC offset applies to both instructions
		 * through the TSC itself (world_switch.c). */
		if (!vmx_proc_ctl(v, VMX_PROC_RDTSC_EXITING))
			return ST_OK;
		*x = insn_exit(r, VMX_EXIT_RDTSCP);
		return ST_VMEXIT;
	case IK_MWAIT:
		/* 25.1.3 "MWAIT exiting"; 27.2.1: the qualification is 1 if the
		 * address-range monitoring hardware is armed, else 0. */
		if (!vmx_proc_ctl(v, VMX_PROC_MWAIT_EXITING))
			return ST_OK;
		*x = insn_exit(r, VMX_EXIT_MWAIT);
		x->qualification = cpu->monitor_armed;
		return ST_VMEXIT;
	case IK_INVLPG:
		/* 25.1.3 "INVLPG exiting"; 27.2.1: the qualification is the
		 * linear-address operand (bits 63:32 clear outside 64-bit mode:
		 * op.linear wraps at 4 GiB there). */
		if (!vmx_proc_ctl(v, VMX_PROC_INVLPG_EXITING))
			return ST_OK;
		*x = insn_exit(r, VMX_EXIT_INVLPG);
		x->qualification = r->op.linear;
		return ST_VMEXIT;
	case IK_INVPCID:
		/* Enabled (disabled_instruction), it exits with "INVLPG exiting"
		 * (25.1.3). Table 27-9, reg2 the type. */
		if (!vmx_proc_ctl(v, VMX_PROC_INVLPG_EXITING))
			return ST_OK;
		*x = operand_exit(r, VMX_EXIT_INVPCID, operand_info(INFO_MEM_REG2, &r->op));
		return ST_VMEXIT;
	case IK_PAUSE:
		/* 25.1.3: "PAUSE exiting" at any CPL, else PAUSE-loop exiting
		 * at CPL 0. */
		if (!vmx_proc_ctl(v, VMX_PROC_PAUSE_EXITING) &&
		    (cpu->cpl != 0 || !vmx_proc2_ctl(v, VMX_PROC2_PAUSE_LOOP_EXITING) || !pause_loop_exits(v, cpu)))
			return ST_OK;
		*x = insn_exit(r, VMX_EXIT_PAUSE);
		return ST_VMEXIT;
	case IK_VMREAD:
	case IK_VMWRITE:
		/* Table 27-14: reg1 or memory, reg2 the field-encoding register. */
		if (!vmcs_shadowing_exits(v, cpu, r))
			return ST_OK;
		*x = operand_exit(r, r->kind == IK_VMREAD ? VMX_EXIT_VMREAD : VMX_EXIT_VMWRITE,
				  operand_info(INFO_MEM_OR_REG1_REG2, &r->op));
		return ST_VMEXIT;
	case IK_WBINVD:
		/* 25.1.3 "WBINVD exiting" (secondary). */
		if (!vmx_proc2_ctl(v, VMX_PROC2_WBINVD_EXITING))
			return ST_OK;
		*x = insn_exit(r, VMX_EXIT_WBINVD);
		return ST_VMEXIT;
	case IK_DESC_TABLE:
		/* 25.1.3 "descriptor-table exiting" (secondary): LGDT, LIDT,
		 * LLDT, LTR, SGDT, SIDT, SLDT, STR. */
		if (!vmx_proc2_ctl(v, VMX_PROC2_DESC_TABLE_EXITING))
			return ST_OK;
		*x = desc_table_exit(r);
		return ST_VMEXIT;
	case IK_VMFUNC: {
		/* 25.5.6: VMFUNC is #UD unless "enable VM functions"; a function
		 * (EAX) above 63 or not enabled in the VM-function controls exits
		 * (reason 59). An enabled function runs: EPTP switching is the
		 * world switch's. */
		if (!vmx_proc2_ctl(v, VMX_PROC2_VM_FUNCTIONS))
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

/* Table 27-3's access type: 0 MOV to CR, 1 MOV from CR, 2 CLTS, 3 LMSW (SMSW never exits). */
static const uint8_t cr_access_type[CR_SMSW + 1] = { [CR_MOV_TO] = 0, [CR_MOV_FROM] = 1, [CR_CLTS] = 2, [CR_LMSW] = 3 };

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
		return vmx_proc_ctl(v, VMX_PROC_CR3_STORE_EXITING) ? cr_exit(r, x) : ST_OK;
	if (!vmx_proc_ctl(v, VMX_PROC_CR3_LOAD_EXITING))
		return ST_OK;
	uint64_t count = vmcs_get(v, VMCS_ROW_CR3_TARGET_COUNT);
	for (unsigned i = 0; i < 4 && i < count; i++)
		if (vmcs_get(v, target[i]) == r->value)
			return ST_OK;
	return cr_exit(r, x);
}

/* SDM Vol.3 25.1.3: MOV to/from CR8 exits with "CR8-load/store exiting";
 * otherwise, with "use TPR shadow", 29.3: the access is virtualized: MOV from
 * CR8 reads VTPR[7:4], MOV to CR8 (#GP(0) if bits 63:4 are set) writes
 * VTPR[7:4] with bits 3:0 of the source and 31:8, 3:0 with 0, then TPR
 * virtualization (29.1.2, virtual_apic.c). */
static status_t cr8_access(struct vmx *v, struct cpu *cpu, struct exit_record *r, struct vmx_exit *x)
{
	bool write = r->cr_access == CR_MOV_TO;
	if (vmx_proc_ctl(v, write ? VMX_PROC_CR8_LOAD_EXITING : VMX_PROC_CR8_STORE_EXITING))
		return cr_exit(r, x);
	if (!vmx_proc_ctl(v, VMX_PROC_TPR_SHADOW))
		return ST_OK;
	if (!write) {
		r->value = (vapic_read(v, VAPIC_VTPR) >> 4) & 0xf;
		return ST_HANDLED;
	}
	if (r->value >> 4)
		return cpu_raise_err(cpu, EXC_GP, 0);
	vapic_write(v, VAPIC_VTPR, (uint32_t)(r->value & 0xf) << 4);
	vapic_tpr_virtualization(v);
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
	if (r->phase != PHASE_BEFORE_CHECKS || !vmx_proc_ctl(v, VMX_PROC_MOV_DR_EXITING))
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
	bool exits = vmx_proc_ctl(v, VMX_PROC_IO_BITMAPS) ? io_bitmaps_say(v, cpu, r->port, r->io_size)
						      : vmx_proc_ctl(v, VMX_PROC_UNCOND_IO_EXITING);
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
	if (vmx_proc_ctl(v, VMX_PROC_MSR_BITMAPS) && vmx_msr_bitmap_locate(r->msr, r->msr_write, &byte, &bit)) {
		uint8_t b = (uint8_t)physmem_read(cpu->mem, vmcs_get(v, VMCS_ROW_MSR_BITMAP) + byte, 1);
		if (!((b >> bit) & 1))
			return vmx_apic_msr(v, cpu, r);   /* 29.5: maybe virtualized */
	}
	*x = insn_exit(r, r->msr_write ? VMX_EXIT_WRMSR : VMX_EXIT_RDMSR);
	return ST_VMEXIT;
}

/* ---- events (SDM Vol.3 25.2) ---- */

/* Bit 12 of the VM-exit interruption information and of an EPT violation's
 * qualification (SDM Vol.3 27.2.2, 27.2.3): the exit is due to a fault of an
 * IRET that unblocked NMIs. Undefined while an event was being delivered
 * (IDT-vectoring information valid): 0. With "virtual NMIs" it speaks of
 * virtual-NMI blocking, which world_switch.c keeps in the same CPU state. */
static bool nmi_unblocked(const struct exit_record *r)
{
	return r->nmi_unblocked_by_iret && !r->vectoring_valid;
}

/* The DR6 bits a #DB exit reports in its qualification instead of writing
 * DR6 (SDM Vol.3 27.2.1, Table 27-1): B0-B3, BD, BS. (RTM, bit 16, is not
 * modelled: hvemu has no RTM.) */
#define DBQ_MASK 0x600fu

/* SDM Vol.3 25.2: an exception (vectors 0-31, hardware or software: INT3,
 * INTO, INT1) exits if its bit in the exception bitmap is 1; a #PF whose
 * error code masked by PFEC_MASK equals PFEC_MATCH exits if bit 14 is 1,
 * one whose error code does not match exits if bit 14 is 0. INT n is not an
 * exception, and "an event being injected never causes a VM exit directly"
 * (26.6.1.2): neither the bitmap nor NMI or external-interrupt exiting.
 * Reason 0 with the interruption information (27.2.2); #DB and #PF report
 * their DR6 bits and linear address in the qualification, as DR6 and CR2 are
 * not written (27.1). */
static status_t exception(struct vmx *v, struct exit_record *r, struct vmx_exit *x)
{
	const struct event *ev = &r->event;
	if (ev->type == EV_SOFTINT || ev->injected || ev->vector >= 32)
		return ST_OK;
	bool bit = (vmcs_get(v, VMCS_ROW_EXCEPTION_BITMAP) >> ev->vector) & 1;
	if (ev->type == EV_EXCEPTION && ev->vector == EXC_PF) {
		uint32_t mask = (uint32_t)vmcs_get(v, VMCS_ROW_PF_ERROR_CODE_MASK);
		uint32_t match = (uint32_t)vmcs_get(v, VMCS_ROW_PF_ERROR_CODE_MATCH);
		if ((ev->error_code & mask) != match)
			bit = !bit;
	}
	if (!bit)
		return ST_OK;
	*x = exit_of(r, VMX_EXIT_EXCEPTION_NMI);
	if (ev->type == EV_EXCEPTION && ev->vector == EXC_DF)
		*x = not_during_delivery(*x);
	x->saved_rf = rf_of_event(ev);
	x->intr_info = intr_info_of(ev) | (nmi_unblocked(r) ? VMX_INTR_NMI_UNBLOCKED : 0);
	if (ev->has_error)
		x->intr_error = ev->error_code;
	if (ev->type == EV_EXCEPTION && ev->vector == EXC_DB)
		x->qualification = ev->dr6 & DBQ_MASK;
	else if (ev->type == EV_EXCEPTION && ev->vector == EXC_PF)
		x->qualification = ev->cr2;
	/* 27.2.5: INT3, INTO and INT1 report their instruction's length. */
	if (ev->type == EV_SOFTEXC || ev->type == EV_PRIV_SOFTEXC)
		x->insn_len = ev->insn_len;
	return ST_VMEXIT;
}

/* SDM Vol.3 25.2: an NMI exits with "NMI exiting", reason 0 with vector 2 and
 * type NMI (27.2.2). */
static status_t nmi(struct vmx *v, struct exit_record *r, struct vmx_exit *x)
{
	if (!vmx_pin_ctl(v, VMX_PIN_NMI_EXITING) || r->event.injected)
		return ST_OK;
	*x = exit_of(r, VMX_EXIT_EXCEPTION_NMI);
	x->intr_info = EXC_NMI | (uint32_t)VMX_INTR_NMI << VMX_INTR_TYPE_SHIFT | VMX_INTR_VALID;
	return ST_VMEXIT;
}

/* SDM Vol.3 25.2: an external interrupt exits with "external-interrupt
 * exiting" (reason 1). 27.2.2: with "acknowledge interrupt on exit" the
 * processor acknowledges the controller and reports the vector (type 0,
 * valid); without, the information is invalid and the interrupt stays
 * pending. An acknowledge that finds no interrupt any more leaves the field
 * invalid too. Posted-interrupt processing (pin-based control 7) below. */
static status_t external_interrupt(struct vmx *v, struct cpu *cpu, struct exit_record *r, struct vmx_exit *x)
{
	/* An interrupt is decided as it arrives (the record without an event);
	 * its delivery through the IDT, and that of a virtual interrupt (29.2.2:
	 * "no VM exit"), asks again with the event and goes on. */
	if (!vmx_pin_ctl(v, VMX_PIN_EXT_INTR_EXITING) || r->event.injected || r->event.pending)
		return ST_OK;
	/* SDM Vol.3 29.6 steps 1-2: with "process posted interrupts" the
	 * local APIC is acknowledged; the notification vector is processed as
	 * a posted interrupt (no VM exit), any other vector exits with its
	 * vector saved (VM entry requires "acknowledge interrupt on exit",
	 * 26.2.1.1). */
	if (vmx_pin_ctl(v, VMX_PIN_POSTED_INTERRUPTS) && hv_ack_intr(cpu, r) &&
	    r->vector == (uint8_t)vmcs_get(v, VMCS_ROW_POSTED_INTR_NV)) {
		vapic_process_posted(v);
		/* 29.6 step 7 evaluated: "If step #7 leads to recognition of a
		 * virtual interrupt, the processor may deliver that interrupt
		 * immediately": hvemu does, at this boundary, if RFLAGS.IF = 1
		 * (29.2.2; blocking by STI or MOV SS held the interrupt off
		 * already): the core delivers r->vector through the IDT in place
		 * of the notification. */
		if ((cpu->hv_armed & HV_ARM_VIRTUAL_INTR) && (cpu->rflags & FLAG_IF)) {
			r->vector = vapic_deliver(v);
			return ST_OK;
		}
		/* Not modelled: 29.6 returns a processor that was in HLT to HLT
		 * when nothing is delivered; here L2 goes on after its HLT (the
		 * core ended the wait before asking). */
		return ST_HANDLED;
	}
	*x = exit_of(r, VMX_EXIT_EXTERNAL_INTERRUPT);
	if ((vmcs_get(v, VMCS_ROW_EXIT_CONTROLS) & VMX_CTL(VMX_EXITCTL_ACK_INTR_ON_EXIT)) && hv_ack_intr(cpu, r))
		x->intr_info = r->vector | (uint32_t)VMX_INTR_EXTERNAL << VMX_INTR_TYPE_SHIFT | VMX_INTR_VALID;
	return ST_VMEXIT;
}

/* An exit with only a reason (and the IDT-vectoring information). */
static status_t plain_exit(const struct exit_record *r, uint32_t reason, struct vmx_exit *x)
{
	*x = exit_of(r, reason);
	return ST_VMEXIT;
}

/* SDM Vol.3 25.2: "task switches are not allowed in VMX non-root operation":
 * every one exits, after the checks of the instruction or gate that starts it
 * (PHASE_CHECKED; the TSS checks' phase is SVM's). Table 27-2: the TSS
 * selector in 15:0, the source in 31:30 (0 CALL, 1 IRET, 2 JMP, 3 task gate
 * in the IDT: enum ts_source's values). 27.2.5: CALL, IRET and JMP report
 * their length, a gate reached by INT n/INT3/INTO the software event's
 * (exit_of, from the IDT-vectoring information). */
static status_t task_switch(struct exit_record *r, struct vmx_exit *x)
{
	if (r->phase != PHASE_CHECKED)
		return ST_OK;
	*x = exit_of(r, VMX_EXIT_TASK_SWITCH);
	x->qualification = r->tss_selector | (uint64_t)(r->ts_source & 3) << 30;
	/* 27.3.3: RF as the old TSS would have received it. */
	x->saved_rf = r->ts_saved_rf ? VMX_RF_SET : VMX_RF_CLEAR;
	if (r->ts_source != TS_GATE)
		x->insn_len = (uint32_t)(r->next_rip - r->rip);
	return ST_VMEXIT;
}

/* SDM Vol.3 27.2.1: an EPT violation (reason 48) reports the access and the
 * rights in its qualification (Table 27-7, mmu/nested_exit.c; bits 9-11 with
 * IA32_VMX_EPT_VPID_CAP[22]) plus bit 12 (NMI unblocking due to IRET), the
 * guest-physical address, and the guest-linear address when bit 7 says it
 * is valid; an EPT misconfiguration (49) only the guest-physical address. */
static status_t ept_exit(struct vmx *v, struct exit_record *r, struct vmx_exit *x)
{
	const struct fault_nested *n = &r->fault.nested;
	if (r->kind == IK_STAGE2_MISCONFIG) {
		*x = exit_of(r, VMX_EXIT_EPT_MISCONFIG);
		x->saved_rf = rf_of_access_exit(r);
		x->guest_physical = n->gpa;
		return ST_VMEXIT;
	}
	/* SDM Vol.3 28.2.5, 27.2.1: a page-modification log-full event exits
	 * with reason 62; its qualification has only bit 12 (NMI unblocking due
	 * to IRET, as for an EPT violation). */
	if (n->pml_full) {
		*x = exit_of(r, VMX_EXIT_PML_FULL);
		x->saved_rf = rf_of_access_exit(r);
		x->qualification = nmi_unblocked(r) ? (uint64_t)VMX_INTR_NMI_UNBLOCKED : 0;
		return ST_VMEXIT;
	}
	*x = exit_of(r, VMX_EXIT_EPT_VIOLATION);
	x->saved_rf = rf_of_access_exit(r);
	bool advanced = vmx_cap(v, MSR_VMX_EPT_VPID_CAP) & EPT_CAP_ADV_INFO;
	x->qualification = ept_violation_qualification(&r->fault, advanced) |
			   (nmi_unblocked(r) ? (uint64_t)VMX_INTR_NMI_UNBLOCKED : 0);
	x->guest_physical = n->gpa;
	if (n->gla_valid)
		x->guest_linear = n->gla;
	return ST_VMEXIT;
}

/* SDM Vol.3 29.4: an access to the APIC-access page exits with "virtualize
 * APIC accesses" (reason 44); Table 27-6: the page offset in 11:0 (linear
 * accesses), the access type in 15:12 (enum apic_access's values 0-3). */
static status_t apic_access(struct vmx *v, struct exit_record *r, struct vmx_exit *x)
{
	if (!vmx_proc2_ctl(v, VMX_PROC2_VIRTUALIZE_APIC))
		return ST_OK;
	*x = exit_of(r, VMX_EXIT_APIC_ACCESS);
	x->saved_rf = rf_of_access_exit(r);
	x->qualification = (r->apic_offset & 0xfffu) | (uint64_t)(r->apic_access & 0xf) << 12;
	/* 27.2.5 defines the instruction length only during the delivery of
	 * a software interrupt or exception (exit_of); for a data access during
	 * instruction execution it is undefined, and hvemu writes the
	 * instruction's length there, as Intel parts do (kvm-unit-tests'
	 * apic_reg_virt_test steps over the access by it). */
	if (r->apic_access == APIC_LINEAR_READ || r->apic_access == APIC_LINEAR_WRITE)
		x->insn_len = (uint32_t)(r->next_rip - r->rip);
	return ST_VMEXIT;
}

/* SDM Vol.3 29.1.4: EOI virtualization exits (reason 45) for a vector whose
 * bit in the EOI-exit bitmap (four 64-bit fields) is 1; the qualification is
 * the vector (27.2.1). */
static status_t virtualized_eoi(struct vmx *v, struct exit_record *r, struct vmx_exit *x)
{
	if (!vapic_eoi_exits(v, r->vector))
		return ST_OK;
	*x = exit_of(r, VMX_EXIT_VIRTUALIZED_EOI);
	x->qualification = r->vector;
	return ST_VMEXIT;
}

/* The boundary row of priority 2.5 (emu/event_step.c): a trap-like VM exit
 * of the instruction that completed: one virtual_apic.c recorded
 * (EOI-induced, 29.1.4), else TPR below threshold (29.1.2), with the TPR
 * shadow and without virtual-interrupt delivery. */
static status_t trap_exit(struct vmx *v, struct exit_record *r, struct vmx_exit *x)
{
	if (v->trap_exit_reason) {
		*x = exit_of(r, v->trap_exit_reason);
		x->qualification = v->trap_exit_qualification;
		v->trap_exit_reason = 0;
		return ST_VMEXIT;
	}
	return vmx_proc_ctl(v, VMX_PROC_TPR_SHADOW) && !vmx_proc2_ctl(v, VMX_PROC2_VIRTUAL_INTR_DELIVERY)
		       ? plain_exit(r, VMX_EXIT_TPR_BELOW_THRESHOLD, x) : ST_OK;
}

/* SDM Vol.3 29.2.2: virtual-interrupt delivery is no VM exit: the
 * recognized virtual interrupt is acknowledged in the virtual-APIC page and
 * delivered through the guest's IDT (the core, with r->vector). */
static status_t virtual_intr(struct vmx *v, struct exit_record *r)
{
	if (!vmx_proc2_ctl(v, VMX_PROC2_VIRTUAL_INTR_DELIVERY))
		return ST_OK;
	r->vector = vapic_deliver(v);
	return ST_HANDLED;
}

static status_t event(struct vmx *v, struct cpu *cpu, struct exit_record *r, struct vmx_exit *x)
{
	switch (r->kind) {
	case IK_EXCEPTION:        return exception(v, r, x);
	case IK_NMI:              return nmi(v, r, x);
	case IK_INTR:             return external_interrupt(v, cpu, r, x);
	/* 25.2: a triple fault and INIT always exit; a SIPI exits (it reaches
	 * the model only in the wait-for-SIPI state) with its vector as the
	 * qualification (27.2.1). An SMI under the default treatment of SMIs
	 * enters SMM: no exit. */
	case IK_SHUTDOWN:
		*x = not_during_delivery(exit_of(r, VMX_EXIT_TRIPLE_FAULT));
		return ST_VMEXIT;
	case IK_INIT:             return plain_exit(r, VMX_EXIT_INIT, x);
	case IK_SIPI:
		*x = exit_of(r, VMX_EXIT_SIPI);
		x->qualification = r->vector;
		return ST_VMEXIT;
	/* 25.2 (and 25.5.1, 25.5.2): the windows, MTF, the preemption timer. */
	case IK_INTR_WINDOW:
		return vmx_proc_ctl(v, VMX_PROC_INTR_WINDOW_EXITING) ? plain_exit(r, VMX_EXIT_INTERRUPT_WINDOW, x) : ST_OK;
	case IK_NMI_WINDOW:
		return vmx_proc_ctl(v, VMX_PROC_NMI_WINDOW_EXITING) ? plain_exit(r, VMX_EXIT_NMI_WINDOW, x) : ST_OK;
	/* 26.6.2: a pending MTF VM exit the entry injected exits with the
	 * control 0 too (events.c). */
	case IK_MTF:
		return vmx_proc_ctl(v, VMX_PROC_MONITOR_TRAP_FLAG) || v->mtf_injected
			       ? plain_exit(r, VMX_EXIT_MONITOR_TRAP_FLAG, x) : ST_OK;
	case IK_PREEMPTION_TIMER:
		return vmx_pin_ctl(v, VMX_PIN_PREEMPTION_TIMER) ? plain_exit(r, VMX_EXIT_PREEMPTION_TIMER, x) : ST_OK;
	/* 29.1.2, 29.1.4: the trap-like exits of TPR and EOI virtualization. */
	case IK_TPR_BELOW_THRESHOLD: return trap_exit(v, r, x);
	case IK_TASK_SWITCH:      return task_switch(r, x);
	case IK_STAGE2_FAULT:
	case IK_STAGE2_MISCONFIG: return ept_exit(v, r, x);
	case IK_APIC_ACCESS:      return apic_access(v, r, x);
	/* 29.4.3.3: APIC-write VM exits are trap-like, after a virtualized
	 * write the model could not complete; the qualification is the page
	 * offset (27.2.1). */
	case IK_APIC_WRITE:
		*x = exit_of(r, VMX_EXIT_APIC_WRITE);
		x->qualification = r->apic_offset & 0xfffu;
		return ST_VMEXIT;
	case IK_VIRTUALIZED_EOI:  return virtualized_eoi(v, r, x);
	case IK_VIRTUAL_INTR:     return virtual_intr(v, r);
	default:
		/* SMI, FERR_FREEZE. */
		return ST_OK;
	}
}

/* Not decided here (no exit record reaches this file for them, or another
 * part owns them):
 *   - XSAVES, XRSTORS, ENCLS, UMWAIT, TPAUSE (Table 27-12, 27-13's
 *     XSAVES/XRSTORS): hvemu's core has none of these instructions;
 *   - RDMSR/WRMSR of 800H-8FFH under "virtualize x2APIC mode" (29.5), the
 *     APIC-register virtualization: the APIC virtualization's access side;
 *     the virtual-APIC page's updates: virtual_apic.c;
 *   - "use TSC offsetting" and TSC scaling: the TSC itself (cpu->tsc_offset,
 *     set at VM entry), RDTSC/RDTSCP only decide the exit here;
 *   - virtual-NMI blocking, the windows' and MTF's arming, the HLT
 *     activity state: events.c; the timer's deadline: world_switch.c (they
 *     reach this file as their records). */
status_t vmx_exit_decide(struct vmx *v, struct cpu *cpu, struct exit_record *rec, struct vmx_exit *x)
{
	switch (rec->kind) {
	case IK_CR_ACCESS:     return cr_access(v, cpu, rec, x);
	case IK_DR_ACCESS:     return dr_access(v, rec, x);
	case IK_IO:            return io_access(v, cpu, rec, x);
	case IK_MSR:           return msr_access(v, cpu, rec, x);
	case IK_EXCEPTION: case IK_INTR: case IK_NMI: case IK_SMI: case IK_INIT: case IK_INTR_WINDOW:
	case IK_NMI_WINDOW: case IK_SIPI: case IK_MTF: case IK_PREEMPTION_TIMER: case IK_TPR_BELOW_THRESHOLD:
	case IK_APIC_ACCESS: case IK_APIC_WRITE: case IK_VIRTUALIZED_EOI: case IK_VIRTUAL_INTR:
	case IK_TASK_SWITCH: case IK_SHUTDOWN: case IK_STAGE2_FAULT: case IK_STAGE2_MISCONFIG:
	case IK_FERR_FREEZE:
		return event(v, cpu, rec, x);
	default:
		return instruction(v, cpu, rec, x);
	}
}
