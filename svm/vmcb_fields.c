/* The VMCB field table (APM2 Appendix B). Offsets and sizes come from the
 * struct in svm/vmcb.h (whose offsets are _Static_asserts against the APM),
 * so the table and the struct cannot disagree. */
#include "svm/vmcb_fields.h"

#include "emu/state_slots.h"
#include "svm/vmcb.h"

#include "svm/vmcb_def_letters.h"

static const struct vmcb_field vmcb_fields[] = {
#define X(area, m, cl, sl, xf, nm) {                                   \
		.offset = offsetof(struct vmcb, area.m),               \
		.size = sizeof(((const struct vmcb *)0)->area.m),      \
		.clean = cl,                                           \
		.save_area = offsetof(struct vmcb, area.m) >= offsetof(struct vmcb, save), \
		.slot = WS_##sl, .xfer = (xf), .vmload = ((xf) & L) != 0, \
		.member = #area "." #m, .name = nm },
#include "svm/vmcb_fields.def"
#undef X
};
#include "svm/vmcb_def_letters_end.h"

#define NFIELDS (sizeof(vmcb_fields) / sizeof(vmcb_fields[0]))

const struct vmcb_field *vmcb_field_at(uint64_t offset)
{
	size_t lo = 0, hi = NFIELDS;

	if (offset >= sizeof(struct vmcb))
		return NULL;
	/* Last field starting at or before offset, then check it reaches it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (vmcb_fields[mid].offset <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct vmcb_field *f = &vmcb_fields[lo - 1];
	return offset < (uint64_t)f->offset + f->size ? f : NULL;
}

const struct vmcb_field *vmcb_field_table(size_t *count)
{
	*count = NFIELDS;
	return vmcb_fields;
}
