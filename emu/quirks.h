/* Quirks: deliberate deviations from the manuals that reproduce measured
 * behaviour of other implementations (QEMU TCG, Bochs), so that the author of
 * a test kernel or an L1 hypervisor can see their code meet it. One registry
 * (emu/quirks.def) for the core, the devices and both hypervisor models: each
 * row names where it acts, the manual rule it breaks, the peer behaviour it
 * mimics and the profile it belongs to (--quirks qemu-7.2, bochs-2.7). Off
 * unless named; the set lives in cpu->quirks (the core, the devices through
 * their CPU) and in each hypervisor model.
 *
 * (The CPU models' own choices where the manuals leave behaviour undefined,
 * QUIRK_* in emu/cpu_model.h, are chosen by --cpu, not here.)
 */
#ifndef HVEMU_EMU_QUIRKS_H
#define HVEMU_EMU_QUIRKS_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/cpu.h"
#include "emu/cpu_model.h"

enum quirk_id {
#define QUIRK(id, name, area, profile, section, what, mimics) QK_##id,
#include "emu/quirks.def"
#undef QUIRK
	QUIRK_COUNT
};
_Static_assert(QUIRK_COUNT <= 64, "a quirk set is one 64-bit word");

#define QUIRK_BIT(id) (UINT64_C(1) << (id))

/* Where a quirk acts (its row's area). */
enum quirk_area {
	QUIRK_AREA_CPU,            /* the core: instructions, faults, paging */
	QUIRK_AREA_PLATFORM,       /* a device of the PC */
	QUIRK_AREA_SVM,            /* the SVM model (svm/quirks.c) */
	QUIRK_AREA_VMX,            /* the VMX model */
};

struct quirk_info {
	const char *name;          /* the --quirk argument */
	enum quirk_area area;
	uint64_t bit;              /* QUIRK_BIT(QK_...) */
	const char *profile;       /* the --quirks profile it belongs to */
	const char *section;       /* the manual rule it deviates from */
	const char *what;          /* what changes */
	const char *mimics;        /* the implementation and the behaviour it reproduces */
};

/* A profile: the measured deviations of one peer. */
struct quirk_profile {
	const char *name;          /* the --quirks argument */
	const char *peer;          /* what was measured */
};

/* The registry, in order; *count set. */
const struct quirk_info *quirk_table(unsigned *count);
/* The quirk named name, or NULL. */
const struct quirk_info *quirk_find(const char *name);
/* The profiles; *count set. */
const struct quirk_profile *quirk_profiles(unsigned *count);
/* The set of profile name (0 and false if there is no such profile). */
bool quirk_profile_set(const char *name, uint64_t *set);
/* "CPU", "platform", "SVM", "VMX". */
const char *quirk_area_name(enum quirk_area area);
/* The bits of set that act on a CPU of model: hypervisor-model quirks only
 * where the model has that extension. */
uint64_t quirk_set_for_model(uint64_t set, const struct cpu_model *model);

/* Is quirk id on for cpu? For the path the quirk changes, never the
 * dispatch loop. */
static inline bool cpu_quirk(const struct cpu *cpu, enum quirk_id id)
{
	return (cpu->quirks & QUIRK_BIT(id)) != 0;
}

#endif
