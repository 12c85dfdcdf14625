/* The hypervisor factory: which model a CPU model's extension gets (see
 * machine/hypervisor.h). */
#include "machine/hypervisor.h"

#include <stddef.h>

#include "svm/model.h"
#include "svm/svm.h"
#include "vmx/model.h"
#include "vmx/vmx.h"

/* A row: the CPU models it serves, and how its model is made and freed. */
struct hypervisor_kind {
	const char *name;
	enum hv_ext ext;           /* the CPU models whose hv_ext this is */
	void *(*create)(struct cpu *cpu, uint64_t quirks);
	void (*destroy)(void *model);
	size_t state_size;         /* the object's bytes: plain data, its pointers into itself,
				      guest RAM or the machine (machine/machine_snapshot.h) */
	/* --perturb-exits: seed the model's odd-but-legal exits; the exits changed. */
	void (*perturb)(void *model, uint64_t seed);
	uint64_t (*perturbed)(const void *model);
};

static void *svm_row_create(struct cpu *cpu, uint64_t quirks)
{
	return svm_create(cpu, quirks);
}

static void svm_row_destroy(void *model)
{
	svm_destroy(model);
}

static void svm_row_perturb(void *model, uint64_t seed)
{
	svm_perturb_exits(model, seed);
}

static uint64_t svm_row_perturbed(const void *model)
{
	return svm_perturbed_exits(model);
}

static void *vmx_row_create(struct cpu *cpu, uint64_t quirks)
{
	return vmx_create(cpu, quirks);
}

static void vmx_row_destroy(void *model)
{
	vmx_destroy(model);
}

static void vmx_row_perturb(void *model, uint64_t seed)
{
	vmx_perturb_exits(model, seed);
}

static uint64_t vmx_row_perturbed(const void *model)
{
	return vmx_perturbed_exits(model);
}

/* APM2 chapter 15 (svm/), SDM Vol.3 chapters 23-30 (vmx/). */
static const struct hypervisor_kind kinds[] = {
	{ "SVM", HV_EXT_SVM, svm_row_create, svm_row_destroy, sizeof(struct svm), svm_row_perturb, svm_row_perturbed },
	{ "VMX", HV_EXT_VMX, vmx_row_create, vmx_row_destroy, sizeof(struct vmx), vmx_row_perturb, vmx_row_perturbed },
};

static const struct hypervisor_kind *kind_for(const struct cpu_model *model)
{
	if (!model)
		return NULL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].ext == model->hv_ext)
			return &kinds[i];
	return NULL;
}

bool hv_available(const struct cpu_model *model)
{
	return kind_for(model) != NULL;
}

const char *hv_name(const struct cpu_model *model)
{
	const struct hypervisor_kind *k = kind_for(model);
	return k ? k->name : NULL;
}

bool hv_create(struct hypervisor *hv, struct cpu *cpu, const struct cpu_model *model, uint64_t quirks)
{
	*hv = (struct hypervisor){ .kind = kind_for(model) };
	if (!hv->kind)
		return true;
	hv->model = hv->kind->create(cpu, quirks);
	if (!hv->model) {
		hv->kind = NULL;
		return false;
	}
	return true;
}

void hv_destroy(struct hypervisor *hv)
{
	if (hv->kind)
		hv->kind->destroy(hv->model);
	*hv = (struct hypervisor){ 0 };
}

size_t hv_state_size(const struct hypervisor *hv)
{
	return hv->kind ? hv->kind->state_size : 0;
}

struct vmx *hv_vmx(const struct hypervisor *hv)
{
	return hv->kind && hv->kind->ext == HV_EXT_VMX ? hv->model : NULL;
}

bool hv_perturb_exits(struct hypervisor *hv, uint64_t seed)
{
	if (!hv->kind)
		return false;
	hv->kind->perturb(hv->model, seed);
	return true;
}

uint64_t hv_perturbed_exits(const struct hypervisor *hv)
{
	return hv->kind ? hv->kind->perturbed(hv->model) : 0;
}
