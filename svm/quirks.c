/* Quirks: deliberate deviations from the APM that reproduce known bugs of
 * other implementations, so an L1 hypervisor's developer can see how their
 * code copes with them. Off unless named with --quirk; each row says what it
 * changes and which bug it mimics.
 */
#include <string.h>

#include "svm/model.h"

static const struct svm_quirk_info quirks[] = {
	{ "qemu-exitinfo2-nowrap", SVM_QUIRK_QEMU_EXITINFO2_NOWRAP,
	  "an intercepted #PF of a non-64-bit guest reports EXITINFO2 = base + offset without the "
	  "32-bit wrap on descriptor-table reads, IDT reads during delivery, TSS accesses and 16-bit "
	  "stack operations",
	  "QEMU TCG nested SVM (7.2 in Debian 12): its system-access helpers add segment or table "
	  "base and offset in 64 bits; the NOVA microhypervisor looped forever on the resulting "
	  "EXITINFO2 above 4 GiB (the Escape OS case, segment bases 0x40000000)" },
};

const struct svm_quirk_info *svm_quirk_table(unsigned *count)
{
	*count = sizeof(quirks) / sizeof(quirks[0]);
	return quirks;
}

const struct svm_quirk_info *svm_quirk_find(const char *name)
{
	for (unsigned i = 0; i < sizeof(quirks) / sizeof(quirks[0]); i++)
		if (strcmp(quirks[i].name, name) == 0)
			return &quirks[i];
	return NULL;
}

uint64_t svm_quirk_pf_exitinfo2(const struct svm *s, const struct event *ev)
{
	/* APM2 15.12: EXITINFO2 = the faulting linear address, which outside
	 * 64-bit mode is 32 bits wide (the core wrapped it). ev->cr2_carry holds
	 * what the wrap dropped on the system-access paths listed above. */
	if (s->quirks & SVM_QUIRK_QEMU_EXITINFO2_NOWRAP)
		return ev->cr2 + ((uint64_t)ev->cr2_carry << 32);
	return ev->cr2;
}
