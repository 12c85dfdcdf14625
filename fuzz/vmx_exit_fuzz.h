/* vmx_exit_fuzz's parts (fuzz/vmx_exit_fuzz.c, the harness):
 *   vmx_exit_machine.c   the machine: the 64-bit L1 stopped at its VMLAUNCH
 *                        with the VMCS current, the L2's 64-bit-gate IDT,
 *                        the snapshot
 *   vmx_exit_vmcs.c      the VMCS: the legal base of either guest, the typed
 *                        mutation operators and the repair toward a check's
 *                        pass/fail boundary
 *   vmx_exit_assemble.c  the L2 code: instruction templates with their
 *                        operands and the bitmap bits they look at
 * and what it shares with svm_exit_fuzz: the harness (exit_fuzz_common.h),
 * the L2 world and the machine's plumbing (exit_machine.h), the common
 * templates (l2_templates.h), the row text (exit_row.h). The guest-physical
 * layout below 64 KiB is the L1's (below); from 64 KiB on it is the L2 world
 * of fuzz/exit_machine.h, the same addresses as svm_exit_fuzz's, so the two
 * fuzzers' findings read alike.
 */
#ifndef HVEMU_FUZZ_VMX_EXIT_FUZZ_H
#define HVEMU_FUZZ_VMX_EXIT_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/cpu.h"
#include "fuzz/exit_machine.h"
#include "fuzz/input_reader.h"
#include "fuzz/l2_assembler.h"
#include "fuzz/snapshot.h"
#include "fuzz/vmx_oracle.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_fields.h"

/* Guest-physical layout: fuzz/exit_machine.h, and the VMX L1's: */
/* L1_GDT: null, 08 code32, 10 data, 18 code64, 28 TSS (16 bytes) */
#define L1_VMLAUNCH (L1_CODE + 11) /* L1_CODE: VMXON; VMCLEAR; VMPTRLD; VMLAUNCH; HLT */
#define L1_AFTER (L1_CODE + 14)    /* the HLT: host RIP, and where VMfail goes on */
#define VMXON_PA 0x5000u
#define VMCS_PA 0x6000u
#define VMX_PTRS 0x7000u           /* the VMXON and VMCS pointers VMXON/VMPTRLD read */
#define IO_BITMAP_A_PA 0x8000u
#define IO_BITMAP_B_PA 0x9000u
#define MSR_BITMAP_PA 0xa000u
#define LINK_VMCS_PA 0xb000u       /* a region with the revision identifier: a legal link pointer */
#define L1_TSS 0xc000u
#define MSR_AREA_PA 0xd000u        /* a VM-entry MSR-load area of 8 entries, some loadable */
/* The L2's second IDT: */
#define L2_IDT64 0x1a000u          /* 64-bit interrupt gates to the same HLT handler */

/* ---- the machine ---- */

struct machine {
	struct physmem pm;
	struct iobus io;
	struct cpu cpu;
	struct vmx *vmx;
	struct snapshot snap;
	struct vo_cpu ocpu;
	struct oracle_l2_layout layout;
	uint64_t vmcs_at_launch[VMCS_ROW_COUNT];   /* the current VMCS as the snapshot holds it */
	const char *failed_check;          /* the observer's last report */
};

/* Build the machine, run the L1 to its VMLAUNCH and take the snapshot. */
void vmx_exit_machine_init(struct machine *m);

/* Write the VMCS image v (by row) into the current VMCS (the processor's
 * copy, as VMWRITE would), the rows that differ from the snapshot's; v then
 * holds what the processor holds (a field it lacks: 0; narrow fields at
 * their width). */
void vmx_exit_load_vmcs(struct machine *m, uint64_t *v);

/* The current VMCS after the run, by row (0 for rows the processor lacks). */
void vmx_exit_read_vmcs(struct machine *m, uint64_t *v);

/* ---- the VMCS ---- */

/* Is the row a host-state field or the exit controls (what the L1 runs on
 * after a VM exit)? */
static inline bool vmcs_row_is_host(unsigned row)
{
	static const bool host[VMCS_ROW_COUNT] = {
#define X(id, enc, width, type, slot, name) [VMCS_ROW_##id] = VMCS_##type == VMCS_HOST || VMCS_ROW_##id == VMCS_ROW_EXIT_CONTROLS,
#include "vmx/vmcs_fields.def"
#undef X
	};
	return row < VMCS_ROW_COUNT && host[row];
}

/* The legal starting point of either guest; the mutations move from it. */
void vmx_exit_vmcs_base(const struct machine *m, uint64_t *v, uint8_t guest);

/* Typed operators: each moves one field the way the SDM's rules look at it,
 * to either side of the rule (failing or legal). */
void vmx_exit_mutate(const struct machine *m, uint64_t *v, uint8_t op, uint8_t a, uint8_t b);

/* The instruction-exiting controls the input's bits choose (within what the
 * capability MSRs allow). */
void vmx_exit_controls(const struct machine *m, uint64_t *v, uint32_t bits, uint8_t cr_bits);

/* ---- the L2 code ---- */

/* Assemble one template from its 5 input bytes at the end of as; describe it
 * in *in for the oracle and set the I/O- and MSR-bitmap bits it looks at
 * (io: 8 KiB, bitmap A then B; msr: 4 KiB). */
void vmx_exit_assemble(struct assembler *as, struct l2_insn *in, const uint64_t *v, const uint8_t op[5],
		       uint8_t *io_bits, uint8_t *msr_bits);

#endif
