/* svm_exit_fuzz's findings as self-contained reproducers ("rows"): the state
 * image VMRUN finds (the VMCB, the L2 code, the permission-map bytes, as
 * writes over the machine of fuzz/svm_exit_machine.c) and the exit record
 * expected after it. A row does not depend on the fuzzer's input layout,
 * its mutation operators or its template assembler, and not on the oracle:
 * when those change, a row still reproduces what it did. A text file:
 *
 *   # comments: what the finding was, the manual section, the fix
 *   write 5000 0000000000000000000000000400000000000000...   address, bytes (hex)
 *   expect exitcode 72
 *   expect exitinfo1 0
 *   ...                       exitcode, exitinfo1, exitinfo2, exitintinfo, nrip,
 *                             rip, rsp, rax (the saved state), all hex
 *   expect halt               instead: the guest halts without a #VMEXIT
 *
 * The writes apply over the snapshot (the L1 at its VMRUN); bytes a row does
 * not write are the snapshot's. `HVEMU_FUZZ_ROW=file svm_exit_fuzz INPUT`
 * writes the row of one input with hvemu's exit as the expectation (check it
 * against the manual before committing it); test_svm_exit_rows runs rows.
 */
#ifndef HVEMU_FUZZ_SVM_EXIT_ROW_H
#define HVEMU_FUZZ_SVM_EXIT_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzz/svm_exit_fuzz.h"

/* What the harness wrote before VMRUN. */
struct svm_exit_image {
	const struct vmcb *vmcb;           /* at VMCB_PA */
	const uint8_t *code;               /* at L2_CODE */
	size_t code_len;
	const uint8_t *iopm, *msrpm;       /* at IOPM, MSRPM (SVM_IOPM_SIZE, SVM_MSRPM_SIZE) */
};

/* Write the row of image and of the exit hvemu wrote (after: the VMCB after
 * the run; halted: the guest halted instead) to path, comment first. False
 * if the file cannot be written. */
bool svm_exit_row_write(const char *path, const char *comment, const struct svm_exit_image *image,
			const struct vmcb *after, bool halted);

/* Run the row in path on m (restored first) and compare the exit with its
 * expectations; print each difference to stderr. Returns the number of
 * differences, or -1 if the row cannot be read. */
int svm_exit_row_run(struct machine *m, const char *path);

#endif
