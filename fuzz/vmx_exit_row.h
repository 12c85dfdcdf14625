/* vmx_exit_fuzz's findings as self-contained reproducers ("rows"): the state
 * VMLAUNCH finds (the current VMCS's fields by their SDM Appendix B encoding,
 * the L2 code and the bitmap bytes, as writes over the machine of
 * fuzz/vmx_exit_machine.c) and the outcome expected. A row depends neither
 * on the fuzzer's input layout, its mutation operators or its assembler,
 * nor on the oracle, nor on hvemu's VMCS region format. A text file:
 *
 *   # comments: what the finding was, the manual section, the fix
 *   vmcs 681e 20000              a field (encoding, value; hex) as VMWRITE would set it
 *   write 20000 0fa2f4           address, bytes (hex)
 *   expect reason a              exit reason (bit 31 for a VM-entry failure), then any of
 *   expect qualification 0       qualification, linear, length, info, intr_info,
 *   ...                          intr_error, idt_info, idt_error, rip, rsp (hex)
 *   expect vmfail 7              instead: VMfailValid with this VM-instruction error
 *   expect halt                  instead: the guest halts without a VM exit
 *
 * `HVEMU_FUZZ_ROW=file vmx_exit_fuzz INPUT` writes the row of one input with
 * hvemu's outcome as the expectation (check it against the manual before
 * committing it); test_vmx_exit_rows runs rows.
 */
#ifndef HVEMU_FUZZ_VMX_EXIT_ROW_H
#define HVEMU_FUZZ_VMX_EXIT_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzz/vmx_exit_fuzz.h"

/* What the harness set before VMLAUNCH. */
struct vmx_exit_image {
	const uint64_t *vmcs, *base;       /* the VMCS by row; the snapshot's (rows equal to it are left out) */
	const uint8_t *code;               /* at L2_CODE */
	size_t code_len;
	const uint8_t *io, *msr;           /* the I/O bitmaps A and B (8 KiB), the MSR bitmap (4 KiB) */
};

/* Write the row of image and of what hvemu did (a) to path, comment first. */
bool vmx_exit_row_write(const char *path, const char *comment, const struct vmx_exit_image *image,
			const struct vo_actual *a);

/* Run the row in path on m (restored first) and compare; print each
 * difference. The number of differences, or -1 if the row cannot be read. */
int vmx_exit_row_run(struct machine *m, const char *path);

#endif
