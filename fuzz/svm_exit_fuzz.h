/* svm_exit_fuzz's parts (fuzz/svm_exit_fuzz.c, the harness):
 *   svm_exit_machine.c   the machine: the L1 at its VMRUN, the L2's 16-bit-gate
 *                        IDT, the snapshot
 *   svm_exit_input.c     an input read as a structure: the state image VMRUN finds
 *   svm_exit_vmcb.c      the VMCB: the legal base of either guest and the typed
 *                        mutation operators
 *   svm_exit_assemble.c  the L2 code: instruction templates with their operands
 *                        and the permission-map bits they look at
 * and what it shares with vmx_exit_fuzz: the harness (exit_fuzz_common.h),
 * the guest-physical layout, L2 world and the machine's plumbing
 * (exit_machine.h), the common templates (l2_templates.h), the row text
 * (exit_row.h).
 */
#ifndef HVEMU_FUZZ_SVM_EXIT_FUZZ_H
#define HVEMU_FUZZ_SVM_EXIT_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/cpu.h"
#include "fuzz/exit_machine.h"
#include "fuzz/input_reader.h"
#include "fuzz/l2_assembler.h"
#include "fuzz/snapshot.h"
#include "fuzz/svm_oracle.h"
#include "svm/bitmaps.h"
#include "svm/vmcb.h"

/* Guest-physical layout: fuzz/exit_machine.h, and the SVM L1's: */
#define VMCB_PA 0x5000u
#define HSAVE 0x6000u
#define MSRPM 0x8000u              /* 8 KiB */
#define IOPM 0xa000u               /* 12 KiB */
#define SCRATCH 0xe000u            /* what 16-bit string addressing reaches */
#define L1_AFTER (L1_CODE + 3)     /* L1_CODE: VMRUN; HLT. The HLT the L1 goes on at */
/* The L2's second IDT: */
#define L2_IDT16 0x1a000u          /* 16-bit interrupt gates ... */
#define L2_HANDLER16 0xd000u       /* ... to HLT below 64 KiB */

/* ---- the machine ---- */

struct machine {
	struct physmem pm;
	struct iobus io;
	struct cpu cpu;
	struct svm *svm;
	struct snapshot snap;
	struct oracle_cpu ocpu;
	struct oracle_l2_layout layout;
	const char *failed_check;          /* the observer's last report */
	uint64_t quirks;
};

/* Build the machine, stop the L1 at its VMRUN and take the snapshot. */
void svm_exit_machine_init(struct machine *m);

/* ---- the VMCB ---- */

/* The instruction intercepts the input chooses among (Table B-1 bit numbers);
 * a second bit where one input bit sets two, 0 if none. */
extern const unsigned svm_exit_misc_intercepts[32][2];

static inline void set_intercept(struct vmcb *v, unsigned bit)
{
	v->control.intercepts[bit / 32] |= 1u << (bit % 32);
}

/* The legal starting point of either guest; the mutations move from it. */
void svm_exit_vmcb_base(struct vmcb *v, uint8_t guest);

/* Typed operators: each moves one field the way the APM's rules look at it,
 * to either side of the rule (failing or legal). */
void svm_exit_mutate(struct vmcb *v, uint8_t op, uint8_t a, uint8_t b);

/* ---- the L2 code ---- */

/* Assemble one template from its 5 input bytes (op, 4 operands) at the end of
 * as; describe it in *in for the oracle and set the IOPM/MSRPM bits it looks at. */
void svm_exit_assemble(struct assembler *as, struct l2_insn *in, const struct vmcb *v, const uint8_t op[5],
		       uint8_t *iopm_bits, uint8_t *msrpm_bits);

/* ---- an input as the state image VMRUN finds (svm_exit_input.c) ---- */

struct svm_exit_exec {
	uint8_t guest;                     /* the input's first byte (bit 0: 64-bit) */
	struct vmcb vmcb;                  /* at VMCB_PA */
	struct assembler as;               /* the L2 code, at L2_CODE */
	struct l2_insn insns[MAX_TEMPLATES + 1];   /* the templates, then the final HLT */
	unsigned n_insns;
	uint8_t iopm_bits[SVM_IOPM_SIZE], msrpm_bits[SVM_MSRPM_SIZE];   /* the map bytes the templates set */
};

/* Read the input (the layout of svm_exit_fuzz.c's header comment) into e. */
void svm_exit_decode(struct svm_exit_exec *e, const uint8_t *data, size_t size);

/* Write e into m's RAM over the restored snapshot (the VMCB, the code, the
 * map bytes), so that the next restore undoes it. */
void svm_exit_load(struct machine *m, const struct svm_exit_exec *e);

/* The oracle's view of e in m. */
static inline struct oracle_input svm_exit_oracle_input(const struct machine *m, const struct svm_exit_exec *e)
{
	return (struct oracle_input){ .cpu = &m->ocpu, .layout = &m->layout, .vmcb = &e->vmcb, .insns = e->insns,
				      .n_insns = e->n_insns };
}

#endif
