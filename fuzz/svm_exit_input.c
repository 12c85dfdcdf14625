/* svm_exit_fuzz's input as a structure (the layout of svm_exit_fuzz.c's
 * header comment): the VMCB, the permission-map bytes and the L2 code the
 * input chooses, as one state image. The fuzz target loads it over its
 * snapshot; svm_exit_diff also ships it to a runner guest under QEMU and
 * under hvemu, so every engine starts from the same bytes. */
#include "fuzz/svm_exit_fuzz.h"

#include <string.h>

void svm_exit_decode(struct svm_exit_exec *e, const uint8_t *data, size_t size)
{
	struct reader r = { data, size };
	struct vmcb *v = &e->vmcb;
	e->guest = byte(&r);
	svm_exit_vmcb_base(v, e->guest);
	v->control.intercepts[SVM_IW_CR] = word32(&r);
	v->control.intercepts[SVM_IW_DR] = word32(&r);
	static const uint8_t exc[8] = { 0, 3, 6, 13, 14, 12, 1, 11 };
	uint8_t eb = byte(&r);
	for (unsigned k = 0; k < 8; k++)
		if ((eb >> k) & 1)
			set_intercept(v, SVM_INTERCEPT_EXCEPTION + exc[k]);
	uint32_t misc = word32(&r);
	for (unsigned k = 0; k < 32; k++) {
		if ((misc >> k) & 1) {
			set_intercept(v, svm_exit_misc_intercepts[k][0]);
			if (svm_exit_misc_intercepts[k][1])
				set_intercept(v, svm_exit_misc_intercepts[k][1]);
		}
	}
	unsigned n_mut = byte(&r) & 7;
	for (unsigned k = 0; k < n_mut; k++) {
		uint8_t op = byte(&r), a = byte(&r), b = byte(&r);
		svm_exit_mutate(v, op, a, b);
	}

	/* The templates, then HLT. */
	memset(e->iopm_bits, 0, sizeof(e->iopm_bits));
	memset(e->msrpm_bits, 0, sizeof(e->msrpm_bits));
	e->as.len = 0;
	e->as.m64 = e->guest & 1;
	unsigned n = 1 + byte(&r) % MAX_TEMPLATES;
	for (unsigned k = 0; k < n; k++) {
		uint8_t op[5];
		for (unsigned j = 0; j < 5; j++)
			op[j] = byte(&r);
		svm_exit_assemble(&e->as, &e->insns[k], v, op, e->iopm_bits, e->msrpm_bits);
	}
	e->insns[n] = (struct l2_insn){ .op = OP_HLT, .seg = -1, .rip = L2_CODE + e->as.len, .len = 1 };
	emit1(&e->as, 0xf4);
	e->n_insns = n + 1;
}

static bool nonzero8(const uint8_t *p)
{
	uint64_t x;
	memcpy(&x, p, 8);
	return x != 0;
}

void svm_exit_load(struct machine *m, const struct svm_exit_exec *e)
{
	snapshot_write(&m->snap, VMCB_PA, &e->vmcb, sizeof(e->vmcb));
	snapshot_write(&m->snap, L2_CODE, e->as.buf, e->as.len);
	/* The maps: only the bytes the templates chose (the snapshot's are 0). */
	for (unsigned k = 0; k < SVM_IOPM_SIZE; k += 8)
		if (nonzero8(e->iopm_bits + k))
			snapshot_write(&m->snap, IOPM + k, e->iopm_bits + k, 8);
	for (unsigned k = 0; k < SVM_MSRPM_SIZE; k += 8)
		if (nonzero8(e->msrpm_bits + k))
			snapshot_write(&m->snap, MSRPM + k, e->msrpm_bits + k, 8);
}
