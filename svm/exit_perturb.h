/* Odd but legal #VMEXITs, for testing L1 hypervisors (`hvemu run
 * --perturb-exits SEED`, issue 19; vmx/exit_perturb.h is the VMX twin): what
 * the APM leaves undefined in a #VMEXIT's exit information gets seeded
 * random values instead of the model's zeros. An L1 that reads such a field
 * (EXITINFO1 of a #UD taken as an error code, EXITINFO2 of an MSR exit,
 * EXITINTINFO's vector without its V bit, the error code without EV, the
 * rIP saved for an intercepted #DF) then
 * misbehaves here as it may on some processor; one that does not runs as
 * without perturbation. What the APM defines never changes (nRIP included:
 * APM2 15.7.1 resets it to 0 on the exits it does not name), so the run
 * stays a legal one. */
#ifndef HVEMU_SVM_EXIT_PERTURB_H
#define HVEMU_SVM_EXIT_PERTURB_H

#include <stdbool.h>
#include <stdint.h>

struct svm_exit;

/* The fields a perturbation may change, one bit each (for counting). */
enum svm_perturbed_field {
	SVM_PERTURB_EXITINFO1 = 1u << 0,   /* the whole field, or its undefined bits */
	SVM_PERTURB_EXITINFO2 = 1u << 1,
	SVM_PERTURB_INTINFO = 1u << 2,     /* EXITINTINFO's undefined bits */
	SVM_PERTURB_INSN_BYTES = 1u << 3,  /* decode-assist bytes past the count */
	SVM_PERTURB_RIP = 1u << 4,         /* the saved rIP of an intercepted #DF */
};

/* What the caller knows of the processor beyond x. */
struct svm_perturb_ctx {
	bool decode_assists;       /* CPUID Fn8000_000A_EDX[DecodeAssists] (APM2 15.8) */
};

/* Replace the undefined parts of x with values from *state (xorshift64*,
 * never 0; advanced). Returns the fields changed (enum svm_perturbed_field).
 * VMEXIT_INVALID and exit codes the table does not know are left as they
 * are. */
unsigned svm_perturb_exit(uint64_t *state, const struct svm_perturb_ctx *ctx, struct svm_exit *x);

#endif
