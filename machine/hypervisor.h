/* The hypervisor model a CPU gets, chosen by its CPU model: one row per
 * vendor extension (machine/hypervisor.c), so the machine, the CLI and the
 * benchmarks build and free it without naming a vendor. A model installs
 * itself on the CPU (cpu->hv, cpu->hv_ctx, cpu->hv_available; emu/hv.h), and
 * from then on CPUID reports the extension. Adding VMX is one row. */
#ifndef HVEMU_MACHINE_HYPERVISOR_H
#define HVEMU_MACHINE_HYPERVISOR_H

#include <stdbool.h>
#include <stddef.h>

#include "emu/cpu.h"
#include "emu/cpu_model.h"

struct vmx;

struct hypervisor_kind;

/* One CPU's hypervisor model. */
struct hypervisor {
	const struct hypervisor_kind *kind;   /* its row; NULL: none installed */
	void *model;               /* the row's object (struct svm, ...) */
};

/* Whether a hypervisor model exists for this CPU model's extension (what
 * `--cpu help` reports as installed). */
bool hv_available(const struct cpu_model *model);

/* The name of that model ("SVM"), NULL if none. */
const char *hv_name(const struct cpu_model *model);

/* Install the model of cpu's CPU model on cpu, with quirks (the row's
 * registry bits, `--quirk`); a CPU model without one gets none (hv->kind
 * NULL). False only when memory ran out. */
bool hv_create(struct hypervisor *hv, struct cpu *cpu, const struct cpu_model *model, uint64_t quirks);

/* The VMX model installed, NULL if hv holds none or another kind (for
 * debuggers: vmx/vmx.h). */
struct vmx *hv_vmx(const struct hypervisor *hv);

/* --perturb-exits (svm/exit_perturb.h, vmx/exit_perturb.h): from now on
 * the exit information the vendor's manual leaves undefined gets values
 * from a generator seeded with seed. False if hv holds no model. */
bool hv_perturb_exits(struct hypervisor *hv, uint64_t seed);
/* The exits it changed so far (0 without a model). */
uint64_t hv_perturbed_exits(const struct hypervisor *hv);

/* Free the model (nothing if none); hv is empty again. */
void hv_destroy(struct hypervisor *hv);

/* The bytes of hv->model (0: none installed), which a snapshot copies as
 * they are. */
size_t hv_state_size(const struct hypervisor *hv);

#endif
