/* The quirk registry (emu/quirks.def); see emu/quirks.h. */
#include "emu/quirks.h"

#include <string.h>

static const struct quirk_info quirks[] = {
#define QUIRK(id, name, area, profile, section, what, mimics) \
	{ name, QUIRK_AREA_##area, QUIRK_BIT(QK_##id), profile, section, what, mimics },
#include "emu/quirks.def"
#undef QUIRK
};

static const struct quirk_profile profiles[] = {
	{ "qemu-7.2", "QEMU 7.2 TCG (qemu-system-x86_64 in Debian 12), measured by hvemu's "
		      "guests (meson test --suite qemu)" },
	{ "bochs-2.7", "Bochs 2.7 (Debian 12), measured by hvemu's guests (meson test --suite bochs)" },
};

const struct quirk_info *quirk_table(unsigned *count)
{
	*count = sizeof(quirks) / sizeof(quirks[0]);
	return quirks;
}

const struct quirk_info *quirk_find(const char *name)
{
	for (unsigned i = 0; i < sizeof(quirks) / sizeof(quirks[0]); i++)
		if (strcmp(quirks[i].name, name) == 0)
			return &quirks[i];
	return NULL;
}

const struct quirk_profile *quirk_profiles(unsigned *count)
{
	*count = sizeof(profiles) / sizeof(profiles[0]);
	return profiles;
}

bool quirk_profile_set(const char *name, uint64_t *set)
{
	bool known = false;
	*set = 0;
	for (unsigned i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		known |= strcmp(profiles[i].name, name) == 0;
	for (unsigned i = 0; known && i < sizeof(quirks) / sizeof(quirks[0]); i++)
		if (strcmp(quirks[i].profile, name) == 0)
			*set |= quirks[i].bit;
	return known;
}

const char *quirk_area_name(enum quirk_area area)
{
	static const char *const names[] = { "CPU", "platform", "SVM", "VMX" };
	return names[area];
}

uint64_t quirk_set_for_model(uint64_t set, const struct cpu_model *model)
{
	for (unsigned i = 0; i < sizeof(quirks) / sizeof(quirks[0]); i++) {
		bool svm = quirks[i].area == QUIRK_AREA_SVM, vmx = quirks[i].area == QUIRK_AREA_VMX;
		if ((svm && model->hv_ext != HV_EXT_SVM) || (vmx && model->hv_ext != HV_EXT_VMX))
			set &= ~quirks[i].bit;
	}
	return set;
}
