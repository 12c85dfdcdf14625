/* The Intel VMX model (SDM Vol.3 chapters 23-30) as the machine sees it:
 * install it on a CPU whose model has VMX (emu/cpu_model.h HV_EXT_VMX), and
 * the CPU reports and runs VMX: CPUID.1:ECX.VMX, CR4.VMXE, the VMX bits of
 * IA32_FEATURE_CONTROL, the capability MSRs, and the VMX instructions.
 *
 * It runs VMX operation, the VMCS, VM entry with its checks, nested guests
 * (EPT, VPID, the APIC virtualization it models) and VM exits with their
 * reasons and qualifications; machine/hypervisor.c installs it on the CPU
 * models with HV_EXT_VMX.
 */
#ifndef HVEMU_VMX_VMX_H
#define HVEMU_VMX_VMX_H

#include "emu/cpu.h"

struct vmx;

/* Allocate the model for cpu and install it (cpu->hv, cpu->hv_ctx,
 * cpu->hv_available). NULL if the CPU model has no VMX or memory ran out.
 * quirks: QUIRK_BIT()s of emu/quirks.def (its VMX rows act on it). */
struct vmx *vmx_create(struct cpu *cpu, uint64_t quirks);
void vmx_destroy(struct vmx *v);

/* For debuggers, without side effects: the current-VMCS pointer (all ones:
 * none, SDM Vol.3 24.1) and its launch state; and the value of row (a
 * vmx/vmcs_fields.def row) in the current VMCS, false when there is none or
 * this processor lacks the field. */
uint64_t vmx_current_vmcs(struct vmx *v, bool *launched);
bool vmx_peek_vmcs_row(struct vmx *v, unsigned row, uint64_t *value);

/* --perturb-exits (vmx/exit_perturb.h): from now on the fields the SDM leaves
 * undefined in each VM exit get values from a generator seeded with seed;
 * and how many exits it has changed. */
void vmx_perturb_exits(struct vmx *v, uint64_t seed);
uint64_t vmx_perturbed_exits(const struct vmx *v);

/* For fuzzers and debuggers: set row of the current VMCS to value as the
 * processor's own store does (no VMWRITE rules: read-only fields too), so
 * that the next VM entry checks it again. False when there is no current
 * VMCS or this processor lacks the field. */
bool vmx_poke_vmcs_row(struct vmx *v, unsigned row, uint64_t value);

#endif
