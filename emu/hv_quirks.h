/* Hypervisor-model quirks: deliberate deviations from the manuals that
 * reproduce known bugs of other implementations, so that an L1 hypervisor's
 * developer can see how their code copes with them. Off unless named with
 * --quirk. One registry for both vendors: each row names its vendor, the
 * manual rule it breaks and the peer behaviour it mimics; the vendor's model
 * holds only how the quirk changes its encoding (svm/quirks.c).
 *
 * (The CPU models' own errata, QUIRK_* in emu/cpu_model.h, are chosen by
 * --cpu, not here.)
 */
#ifndef HVEMU_EMU_HV_QUIRKS_H
#define HVEMU_EMU_HV_QUIRKS_H

#include "emu/cpu_model.h"

/* One bit per row: the set a model is created with (svm_create()). */
enum hv_quirk {
	HV_QUIRK_QEMU_EXITINFO2_NOWRAP = 1u << 0,
};

struct hv_quirk_info {
	const char *name;          /* the --quirk argument */
	enum hv_ext vendor;        /* the model it changes */
	unsigned bit;              /* enum hv_quirk */
	const char *section;       /* the manual rule it deviates from */
	const char *what;          /* what changes */
	const char *mimics;        /* the implementation and bug it reproduces */
};

/* The registry, in order; *count set. */
const struct hv_quirk_info *hv_quirk_table(unsigned *count);
/* The quirk named name, or NULL. */
const struct hv_quirk_info *hv_quirk_find(const char *name);

#endif
