/* The SVM model on a CPU (svm/svm.h): allocation, the hypervisor seam
 * (emu/hv.h) and what the CPU reports once it is installed.
 */
#include <stdlib.h>

#include "emu/cpu_model.h"
#include "emu/perturb_random.h"
#include "svm/model.h"

/* cpu_reset(): no guest, nothing cached (the clean bits would otherwise let
 * the next VMRUN reuse the last run's state). */
static void svm_reset(void *ctx, struct cpu *cpu)
{
	(void)cpu;
	struct svm *s = ctx;
	s->cache_valid = false;
	s->vgif_enabled = false;
	s->vintr_held = false;
}

struct svm *svm_create(struct cpu *cpu, uint64_t quirks)
{
	if (!cpu->model || cpu->model->hv_ext != HV_EXT_SVM)
		return NULL;
	struct svm *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cpu = cpu;
	s->quirks = quirks;
	s->ops = (struct hv_model){ .name = "svm", .intercept = svm_intercept, .vm_insn = svm_vm_insn,
				   .reset = svm_reset };
	cpu->hv = &s->ops;
	cpu->hv_ctx = s;
	/* From here on CPUID reports Fn8000_0001_ECX[SVM] and Fn8000_000A, EFER.SVME
	 * is writable, VM_CR and VM_HSAVE_PA exist (emu/cpu_model.h, emu/msr.c). */
	cpu->hv_available = true;
	uint32_t leaf[4];
	cpu_cpuid(cpu, 0x8000000a, 0, leaf);
	s->nasid = leaf[1];
	s->features = leaf[3];
	s->cr4_valid = cpu_cr4_valid_bits(cpu);
	s->efer_valid = cpu_efer_valid_bits(cpu);
	return s;
}

void svm_destroy(struct svm *s)
{
	if (!s)
		return;
	struct cpu *cpu = s->cpu;
	if (cpu->hv_ctx == s) {
		cpu->hv = NULL;
		cpu->hv_ctx = NULL;
		cpu->hv_available = false;
	}
	free(s);
}

void svm_perturb_exits(struct svm *s, uint64_t seed)
{
	s->perturb = perturb_random_stream(seed, PERTURB_STREAM_FIELDS);
	s->spurious_intr = perturb_random_stream(seed, PERTURB_STREAM_SPURIOUS_INTR);
}

uint64_t svm_perturbed_exits(const struct svm *s)
{
	return s->perturbed_exits;
}
