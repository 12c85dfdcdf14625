/* The AMD SVM model (APM2 chapter 15) as the machine sees it: install it on a
 * CPU whose model has SVM (emu/cpu_model.h HV_EXT_SVM), and the CPU reports
 * and runs SVM: CPUID Fn8000_0001 ECX[SVM], Fn8000_000A, EFER.SVME, VM_CR,
 * VM_HSAVE_PA, and VMRUN with everything it implies.
 */
#ifndef HVEMU_SVM_SVM_H
#define HVEMU_SVM_SVM_H

#include <stdbool.h>

#include "emu/cpu.h"

struct svm;

/* Deliberate deviations from the APM, each mimicking a known implementation
 * bug so that an L1 developer can see how their hypervisor copes (svm/quirks.c
 * lists them with the bug each one mimics; `hvemu run --quirk help`). */
enum svm_quirk {
	SVM_QUIRK_QEMU_EXITINFO2_NOWRAP = 1u << 0,
};

struct svm_quirk_info {
	const char *name;          /* the --quirk argument */
	unsigned bit;              /* enum svm_quirk */
	const char *what;          /* one line: what changes */
	const char *mimics;        /* the implementation and bug it reproduces */
};

/* The registry, in order; *count set. */
const struct svm_quirk_info *svm_quirk_table(unsigned *count);
/* The quirk named name, or NULL. */
const struct svm_quirk_info *svm_quirk_find(const char *name);

/* Allocate the model for cpu and install it (cpu->hv, cpu->hv_ctx,
 * cpu->hv_available). NULL if the CPU model has no SVM or memory ran out. */
struct svm *svm_create(struct cpu *cpu, unsigned quirks);
void svm_destroy(struct svm *s);

#endif
