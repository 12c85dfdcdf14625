/* How each quirk (emu/quirks.def: the registry, with what each one mimics)
 * changes SVM's encoding of an exit.
 */
#include "emu/quirks.h"
#include "svm/model.h"

uint64_t svm_quirk_pf_exitinfo2(const struct svm *s, const struct event *ev)
{
	/* APM2 15.12: EXITINFO2 = the faulting linear address, which outside
	 * 64-bit mode is 32 bits wide (the core wrapped it). ev->cr2_carry holds
	 * what the wrap dropped on the system-access paths the registry lists. */
	if (s->quirks & QUIRK_BIT(QK_QEMU_EXITINFO2_NOWRAP))
		return ev->cr2 + ((uint64_t)ev->cr2_carry << 32);
	return ev->cr2;
}
