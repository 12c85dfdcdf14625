/* The VMCB as a table of named fields (APM2 Appendix B; rows in
 * svm/vmcb_fields.def): offset, size, the clean bit that covers each field
 * and whether VMLOAD/VMSAVE move it. The mirror of vmx/vmcs_fields.h; used
 * to name the field a guest write hit, to dump a VMCB, and by the fuzzer to
 * mutate fields by name.
 */
#ifndef HVEMU_SVM_VMCB_FIELDS_H
#define HVEMU_SVM_VMCB_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VMCB_CLEAN_NONE 0xff            /* no clean bit: reloaded on every VMRUN */

struct vmcb_field {
	uint16_t offset;                   /* from the start of the VMCB (save area: 0x400 + Table B-2) */
	uint8_t size;                      /* bytes */
	uint8_t clean;                     /* enum svm_clean_bit, or VMCB_CLEAN_NONE */
	bool save_area;                    /* Table B-2 (else Table B-1) */
	bool vmload;                       /* transferred by VMLOAD/VMSAVE (APM2 15.5.2) */
	const char *member;                /* "save.cs.base", the C path in struct vmcb */
	const char *name;                  /* the APM's name: "CS.base", "EXITINFO1" */
};

/* The field that covers byte `offset` of the VMCB, or NULL for reserved
 * bytes and offsets past the page. Any offset is safe. */
const struct vmcb_field *vmcb_field_at(uint64_t offset);

/* The whole table, sorted by offset, fields never overlapping. */
const struct vmcb_field *vmcb_field_table(size_t *count);

#endif
