/* The VMX model on a CPU (vmx/vmx.h): allocation, the hypervisor seam
 * (emu/hv.h) and the capability MSRs it applies.
 */
#include <stdlib.h>

#include "emu/cpu_model.h"
#include "emu/perturb_random.h"
#include "vmx/model.h"

/* Outside VMX operation with no current VMCS: the RESET state (SDM Vol.3
 * 23.7: a processor starts outside VMX operation; 24.1: VMXON makes the
 * current-VMCS pointer invalid). cpu_reset() comes here too. */
static void vmx_reset(void *ctx, struct cpu *cpu)
{
	struct vmx *v = ctx;
	v->vmx_operation = false;
	v->vmxon_ptr = VMCS_POINTER_INVALID;
	vmcs_forget(v);
	v->guest_halted = v->mtf_injected = false;
	cpu->hv_holds &= (uint8_t)~(HV_HOLD_INIT | HV_HOLD_NMI_PAST_IRET | HV_VIRTUAL_NMI_BLOCKING);
	cpu->hv_cr_checks = false;
}

/* The model's value of capability MSR index, 0 if the part lacks it. */
static uint64_t cap(const struct cpu *cpu, uint32_t index)
{
	uint64_t value = 0;
	if (!cpu_model_vmx_cap(cpu->model, index, &value))
		return 0;
	return value;
}

struct vmx *vmx_create(struct cpu *cpu, uint64_t quirks)
{
	if (!cpu->model || cpu->model->hv_ext != HV_EXT_VMX)
		return NULL;
	struct vmx *v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->cpu = cpu;
	v->quirks = quirks;
	v->ops = (struct hv_model){ .name = "vmx", .intercept = vmx_intercept, .vm_insn = vmx_vm_insn,
				    .cr_write_check = vmx_cr_write_check, .reset = vmx_reset,
				    .apic_access = vmx_apic_access };
	cpu->hv = &v->ops;
	cpu->hv_ctx = v;
	/* From here on CPUID.1:ECX.VMX reads 1, CR4.VMXE is writable and
	 * IA32_FEATURE_CONTROL's VMX enables and the capability MSRs exist
	 * (emu/cpu_model.h, emu/control_regs.c, emu/msr.c). */
	cpu->hv_available = true;
	for (uint32_t msr = MSR_VMX_FIRST; msr <= MSR_VMX_LAST; msr++)
		v->caps[msr - MSR_VMX_FIRST] = cap(cpu, msr);
	vmcs_fields_init(v);
	vmx_reset(v, cpu);
	return v;
}

void vmx_destroy(struct vmx *v)
{
	if (!v)
		return;
	struct cpu *cpu = v->cpu;
	if (cpu->hv_ctx == v) {
		vmx_reset(v, cpu);
		cpu->hv = NULL;
		cpu->hv_ctx = NULL;
		cpu->hv_available = false;
	}
	free(v);
}

uint64_t vmx_current_vmcs(struct vmx *v, bool *launched)
{
	*launched = vmcs_current_valid(v) && v->vmcs.launched;
	return v->vmcs.pa;
}

bool vmx_peek_vmcs_row(struct vmx *v, unsigned row, uint64_t *value)
{
	if (!vmcs_current_valid(v) || row >= VMCS_ROW_COUNT || !v->field_exists[row])
		return false;
	*value = vmcs_get(v, (enum vmcs_row)row);
	return true;
}

void vmx_perturb_exits(struct vmx *v, uint64_t seed)
{
	v->perturb = perturb_random_stream(seed, PERTURB_STREAM_FIELDS);
	v->spurious_intr = perturb_random_stream(seed, PERTURB_STREAM_SPURIOUS_INTR);
}

uint64_t vmx_perturbed_exits(const struct vmx *v)
{
	return v->perturbed_exits;
}

bool vmx_poke_vmcs_row(struct vmx *v, unsigned row, uint64_t value)
{
	if (!vmcs_current_valid(v) || row >= VMCS_ROW_COUNT || !v->field_exists[row])
		return false;
	vmcs_set(v, (enum vmcs_row)row, value);
	return true;
}
