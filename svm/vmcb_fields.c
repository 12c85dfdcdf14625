/* The VMCB field table (APM2 Appendix B). Offsets and sizes come from the
 * struct in svm/vmcb.h (whose offsets are _Static_asserts against the APM),
 * so the table and the struct cannot disagree. */
#include "svm/vmcb_fields.h"

#include "svm/vmcb.h"

#define I     SVM_CLEAN_I
#define IOPM  SVM_CLEAN_IOPM
#define ASID  SVM_CLEAN_ASID
#define TPR   SVM_CLEAN_TPR
#define NP    SVM_CLEAN_NP
#define CRX   SVM_CLEAN_CRX
#define DRX   SVM_CLEAN_DRX
#define DT    SVM_CLEAN_DT
#define SEG   SVM_CLEAN_SEG
#define CR2   SVM_CLEAN_CR2
#define LBR   SVM_CLEAN_LBR
#define AVIC  SVM_CLEAN_AVIC
#define CET   SVM_CLEAN_CET
#define NONE  VMCB_CLEAN_NONE

/* The xfer column's letters (svm/vmcb_fields.def). */
#define R VMCB_XFER_R
#define E VMCB_XFER_X
#define L VMCB_XFER_L
#define C VMCB_XFER_C
#define H VMCB_XFER_H

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

/* ---- the engine ---- */

/* Append [offset, offset + len) to spans[0..*n), merged into the last span
 * when it starts within gap bytes of its end (gap 0: exact). */
static bool span_add(struct vmcb_span *spans, uint8_t *n, unsigned max, unsigned offset, unsigned len,
		     unsigned gap)
{
	if (*n > 0) {
		struct vmcb_span *last = &spans[*n - 1];
		unsigned end = last->offset + last->len;
		if (offset >= end && offset <= end + gap) {
			last->len = (uint16_t)(offset + len - last->offset);
			return true;
		}
	}
	if (*n >= max)
		return false;
	spans[(*n)++] = (struct vmcb_span){ .offset = (uint16_t)offset, .len = (uint16_t)len };
	return true;
}

/* Bytes between rows a scratch span may cover: fewer, longer copies. */
#define SCRATCH_GAP 64

static bool move_add(struct ws_move *moves, uint8_t *n, const struct vmcb_field *f)
{
	size_t count = *n;
	bool ok = ws_move_add(moves, &count, VMCB_ENGINE_MOVES, f->offset, f->size, (enum ws_slot)f->slot);
	*n = (uint8_t)count;
	return ok;
}

bool vmcb_engine_build(struct vmcb_engine *e)
{
	bool ok = true;
	*e = (struct vmcb_engine){ 0 };
	for (size_t i = 0; i < NFIELDS; i++) {
		const struct vmcb_field *f = &vmcb_fields[i];
		bool moved = f->slot != WS_NONE && !(f->xfer & H);
		if ((f->xfer & (R | E)) && moved) {
			struct ws_move probe[1];
			size_t n = 0;
			ok &= ws_move_add(probe, &n, 1, f->offset, f->size, (enum ws_slot)f->slot);
		}
		if (f->xfer & L) {
			ok &= span_add(e->vmload_read, &e->n_vmload_read, VMCB_ENGINE_SPANS, f->offset, f->size,
				       SCRATCH_GAP);
			ok &= span_add(e->vmsave_write, &e->n_vmsave_write, VMCB_ENGINE_SPANS, f->offset, f->size, 0);
			ok &= moved && move_add(e->vmload, &e->n_vmload, f);
			e->vmload_groups |= ws_slot_defs[f->slot].group;
			if (f->xfer & C) {
				if (e->n_canonical >= sizeof(e->canonical))
					return false;
				e->canonical[e->n_canonical++] = f->slot;
			}
		}
	}
	return ok;
}
