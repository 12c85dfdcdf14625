/* The quirk registry; see emu/hv_quirks.h. */
#include "emu/hv_quirks.h"

#include <string.h>

static const struct hv_quirk_info quirks[] = {
	{ "qemu-exitinfo2-nowrap", HV_EXT_SVM, HV_QUIRK_QEMU_EXITINFO2_NOWRAP,
	  "APM2 15.12: EXITINFO2 of an intercepted #PF is the faulting linear address",
	  "an intercepted #PF of a non-64-bit guest reports EXITINFO2 = base + offset without the "
	  "32-bit wrap on descriptor-table reads, IDT reads during delivery, TSS accesses and the "
	  "16-bit pushes and pops of event delivery, far calls and far returns (QEMU's PUSHW/POPW; "
	  "its 32-bit PUSHL/POPL wrap)",
	  "QEMU TCG nested SVM (7.2 in Debian 12): its system-access helpers add segment or table "
	  "base and offset in 64 bits; the NOVA microhypervisor looped forever on the resulting "
	  "EXITINFO2 above 4 GiB (the Escape OS case, segment bases 0x40000000)" },
};

const struct hv_quirk_info *hv_quirk_table(unsigned *count)
{
	*count = sizeof(quirks) / sizeof(quirks[0]);
	return quirks;
}

const struct hv_quirk_info *hv_quirk_find(const char *name)
{
	for (unsigned i = 0; i < sizeof(quirks) / sizeof(quirks[0]); i++)
		if (strcmp(quirks[i].name, name) == 0)
			return &quirks[i];
	return NULL;
}
