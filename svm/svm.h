/* The AMD SVM model (APM2 chapter 15) as the machine sees it: install it on a
 * CPU whose model has SVM (emu/cpu_model.h HV_EXT_SVM), and the CPU reports
 * and runs SVM: CPUID Fn8000_0001 ECX[SVM], Fn8000_000A, EFER.SVME, VM_CR,
 * VM_HSAVE_PA, and VMRUN with everything it implies.
 */
#ifndef HVEMU_SVM_SVM_H
#define HVEMU_SVM_SVM_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/cpu.h"
#include "emu/quirks.h"

struct svm;

/* Allocate the model for cpu and install it (cpu->hv, cpu->hv_ctx,
 * cpu->hv_available). NULL if the CPU model has no SVM or memory ran out. */
struct svm *svm_create(struct cpu *cpu, uint64_t quirks);   /* quirks: QUIRK_BIT()s (emu/quirks.h) */
void svm_destroy(struct svm *s);

/* --perturb-exits (svm/exit_perturb.h): from now on the exit information the
 * APM leaves undefined in each #VMEXIT gets values from a generator seeded
 * with seed; svm_perturbed_exits() counts the exits it changed. */
void svm_perturb_exits(struct svm *s, uint64_t seed);
uint64_t svm_perturbed_exits(const struct svm *s);

#endif
