/* The VMCB as a table of named fields (APM2 Appendix B; rows in
 * svm/vmcb_fields.def): offset, size, the clean bit that covers each field,
 * the processor state it holds and who moves it. The mirror of
 * vmx/vmcs_fields.h; used to name the field a guest write hit, to dump a
 * VMCB, by the fuzzer to mutate fields by name; the world switch expands the
 * same rows into its transfers (svm/vmcb_rows.h).
 */
#ifndef HVEMU_SVM_VMCB_FIELDS_H
#define HVEMU_SVM_VMCB_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


#define VMCB_CLEAN_NONE 0xff            /* no clean bit: reloaded on every VMRUN */

/* Who moves a field (the xfer column of svm/vmcb_fields.def). */
enum vmcb_xfer {
	VMCB_XFER_R = 1u << 0,     /* VMRUN reads it (APM2 15.5.1); a slot is loaded */
	VMCB_XFER_X = 1u << 1,     /* #VMEXIT writes it (APM2 15.6); a slot is saved */
	VMCB_XFER_L = 1u << 2,     /* VMLOAD and VMSAVE move it (APM2 15.5.2) */
	VMCB_XFER_C = 1u << 3,     /* VMLOAD sign-extends it (an address) */
	VMCB_XFER_H = 1u << 4,     /* its slot moves under a control, by hand */
};

struct vmcb_field {
	uint16_t offset;                   /* from the start of the VMCB (save area: 0x400 + Table B-2) */
	uint8_t size;                      /* bytes */
	uint8_t clean;                     /* enum svm_clean_bit, or VMCB_CLEAN_NONE */
	bool save_area;                    /* Table B-2 (else Table B-1) */
	bool vmload;                       /* transferred by VMLOAD/VMSAVE (APM2 15.5.2) */
	uint8_t slot;                      /* enum ws_slot: the processor state it holds */
	uint8_t xfer;                      /* enum vmcb_xfer */
	const char *member;                /* "save.cs.base", the C path in struct vmcb */
	const char *name;                  /* the APM's name: "CS.base", "EXITINFO1" */
};

/* The field that covers byte `offset` of the VMCB, or NULL for reserved
 * bytes and offsets past the page. Any offset is safe. */
const struct vmcb_field *vmcb_field_at(uint64_t offset);

/* The whole table, sorted by offset, fields never overlapping. */
const struct vmcb_field *vmcb_field_table(size_t *count);

#endif
