/* svm_exit_diff's parts (fuzz/svm_exit_diff.c, the driver: generation,
 * comparison, findings; fuzz/svm_exit_engines.c: the batch files and the
 * engines that run them). */
#ifndef HVEMU_FUZZ_SVM_EXIT_DIFF_H
#define HVEMU_FUZZ_SVM_EXIT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzz/svm_exit_fuzz.h"

enum engine { E_MODEL, E_HVEMU, E_QEMU, E_COUNT };
extern const char *const engine_name[E_COUNT];

struct diff_options {
	const char *runner, *hvemu, *qemu, *qemu_cpu, *hvemu_cpu, *out_dir, *expect, *work;
	bool on[E_COUNT];
	unsigned long count, batch, skip;
	double seconds;
	uint64_t seed;
	unsigned timeout_qemu, timeout_hvemu;  /* the hang guard's APIC timer counts */
	bool check_runner, verbose, entered_only;
};
extern struct diff_options diff_opt;

extern struct machine model;               /* the in-process model */
extern struct oracle_cpu ocpu[E_COUNT];    /* what each engine's CPUID says */
extern double engine_seconds[E_COUNT];     /* time in the runners' batches (timed runs) */
extern unsigned long engine_inputs[E_COUNT];

struct kind;

/* One input of a batch. */
struct item {
	uint8_t *data;
	size_t len;
	char name[80];
	struct svm_exit_exec e;
	struct oracle_prediction pred[E_COUNT];
	uint64_t dirty[RAM_SIZE / 4096 / 64];  /* pages the model dirtied */
	/* The exits: the VMCB after, halted in the guest, hung (no exit). */
	struct vmcb after[E_COUNT];
	bool have[E_COUNT], halted[E_COUNT], hung[E_COUNT], shutdown[E_COUNT], retried[E_COUNT];
	const char *failed_check;              /* the model's */
	struct kind *kinds[8];                 /* the kinds of disagreement it showed */
	unsigned n_kinds;
};

double now_seconds(void);
bool all_zero(const uint8_t *p, size_t n);

/* Decode it, predict it for every engine on, run it on the model. */
void run_model(struct item *it);

/* Run items under the runner engines (their guard timeout_scale times as
 * long); timed: count the time in engine_seconds. False if an engine gave
 * no output at all. */
bool run_runners(struct item **items, unsigned n, unsigned timeout_scale, bool timed);

/* Ask each runner engine for its CPUID (an empty batch): 0, or 77 if QEMU
 * cannot run the runner's SVM, 1 if an engine cannot run it. */
int probe(void);

#endif
