/* The Intel VMX model (SDM Vol.3 chapters 23-30) as the machine sees it:
 * install it on a CPU whose model has VMX (emu/cpu_model.h HV_EXT_VMX), and
 * the CPU reports and runs VMX: CPUID.1:ECX.VMX, CR4.VMXE, the VMX bits of
 * IA32_FEATURE_CONTROL, the capability MSRs, and the VMX instructions.
 *
 * This layer has VMX operation and the VMCS: VMXON, VMXOFF, VMCLEAR, VMPTRLD,
 * VMPTRST, VMREAD, VMWRITE, VMCALL, INVEPT, INVVPID, VMFUNC, and VMLAUNCH/
 * VMRESUME up to their VM-entry checks. VM entry itself is not written yet, so
 * machine/hypervisor.c has no VMX row: no CPU model advertises VMX until a
 * guest can run (the unit tests install the model themselves).
 */
#ifndef HVEMU_VMX_VMX_H
#define HVEMU_VMX_VMX_H

#include "emu/cpu.h"

struct vmx;

/* Allocate the model for cpu and install it (cpu->hv, cpu->hv_ctx,
 * cpu->hv_available). NULL if the CPU model has no VMX or memory ran out.
 * quirks: none are defined yet (0). */
struct vmx *vmx_create(struct cpu *cpu, unsigned quirks);
void vmx_destroy(struct vmx *v);

#endif
