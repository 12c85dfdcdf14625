/* The VMCS field table (SDM Vol.3 Appendix B) and encoding checks (24.11.2).
 * The rows live in vmx/vmcs_fields.def; this file turns them into a sorted
 * array and a direct index by encoding. */
#include "vmx/vmcs_fields.h"
#include "vmx/vmcs.h"                  /* enum vmcs_row: the rows in table order */

#define W16 VMCS_W16
#define W64 VMCS_W64
#define W32 VMCS_W32
#define WNAT VMCS_WNAT
#define CTL VMCS_CTL
#define RO VMCS_RO
#define GUEST VMCS_GUEST
#define HOST VMCS_HOST

/* The .def lists fields in Appendix B order, which is encoding order: widths
 * 0,1,2,3 in turn, types 0..3 within a width, indexes rising within a type.
 * vmcs_field_table() users rely on it; the test asserts it. */
static const struct vmcs_field vmcs_fields[] = {
#define X(ident, enc, w, t, sl, nm) { .encoding = enc, .width = w, .type = t, .slot = WS_##sl, \
				      .row = VMCS_ROW_##ident, .id = #ident, .name = nm },
#include "vmx/vmcs_fields.def"
#undef X
};

#define NFIELDS (sizeof(vmcs_fields) / sizeof(vmcs_fields[0]))

/* Width, type and index (SDM Vol.3 24.11.2: bits 14:13, 11:10, 9:1) are 13
 * bits that name a full encoding once it is well formed: a direct table from
 * them to the row (+1, 0: no field), so that VMREAD and VMWRITE, which an L1
 * runs on every VM exit, find their field in one load. */
#define ENC_KEY(enc) ((((enc) >> 13) & 3u) << 11 | (((enc) >> 10) & 3u) << 9 | (((enc) >> 1) & 0x1ffu))
static const uint16_t row_by_key[1u << 13] = {
#define X(ident, enc, w, t, sl, nm) [ENC_KEY(enc)] = VMCS_ROW_##ident + 1,
#include "vmx/vmcs_fields.def"
#undef X
};

const struct vmcs_field *vmcs_field_lookup(uint64_t enc, bool *high)
{
	if (!vmcs_enc_well_formed(enc))
		return NULL;
	unsigned row = row_by_key[ENC_KEY((uint32_t)enc)];
	if (!row)
		return NULL;
	if (high)
		*high = vmcs_enc_high(enc);
	return &vmcs_fields[row - 1];
}

bool vmcs_field_check(const struct vmcs_field *f)
{
	/* SDM Vol.3 24.11.2: the width and type are bits of the encoding itself. */
	return vmcs_enc_well_formed(f->encoding) && !vmcs_enc_high(f->encoding) &&
	       vmcs_enc_width(f->encoding) == f->width && vmcs_enc_type(f->encoding) == f->type;
}

const struct vmcs_field *vmcs_field_table(size_t *count)
{
	*count = NFIELDS;
	return vmcs_fields;
}

unsigned vmcs_field_max_index(void)
{
	unsigned max = 0;
	for (size_t i = 0; i < NFIELDS; i++)
		if (vmcs_enc_index(vmcs_fields[i].encoding) > max)
			max = vmcs_enc_index(vmcs_fields[i].encoding);
	return max;
}
