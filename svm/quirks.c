/* How each quirk (emu/quirks.def: the registry, with what each one mimics)
 * changes SVM's encoding of an exit.
 */
#include "emu/quirks.h"
#include "svm/exit_codes.h"
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

uint64_t svm_quirk_exitcode(const struct svm *s, uint64_t code)
{
	/* APM2 Appendix C: VMEXIT_INVALID is -1, all 64 bits. */
	if ((s->quirks & QUIRK_BIT(QK_QEMU_VMEXIT_INVALID_32BIT)) && code == SVM_EXIT_INVALID)
		return 0xffffffffu;
	return code;
}

uint64_t svm_quirk_ioio_info(const struct svm *s, uint64_t info)
{
	/* APM2 15.10.2: bits 9:7 are the address size, one-hot. */
	if (s->quirks & QUIRK_BIT(QK_QEMU_IOIO_NO_ADDR_SIZE))
		info &= ~(uint64_t)(SVM_IOIO_A16 | SVM_IOIO_A32 | SVM_IOIO_A64);
	return info;
}

unsigned svm_quirk_insn_kind(const struct svm *s, unsigned kind)
{
	/* APM2 15.9: INVD has its own intercept (word 3 bit 22) and exit 76h. */
	if (kind == IK_INVD && (s->quirks & QUIRK_BIT(QK_QEMU_INVD_AS_WBINVD)))
		return IK_WBINVD;
	return kind;
}

bool svm_quirk_no_task_switch_intercept(const struct svm *s)
{
	return s->quirks & QUIRK_BIT(QK_QEMU_NO_TASK_SWITCH_INTERCEPT);
}

bool svm_quirk_exception_unchecked(const struct svm *s, unsigned vector)
{
	return (s->quirks & QUIRK_BIT(QK_QEMU_BP_OF_DF_NOT_INTERCEPTED)) &&
	       (vector == EXC_BP || vector == EXC_OF || vector == EXC_DF);
}

bool svm_quirk_eventinj_plain(const struct svm *s)
{
	return s->quirks & QUIRK_BIT(QK_QEMU_EVENTINJ_BP_NO_DPL);
}

bool svm_quirk_eventinj_drops_error(const struct svm *s, const struct event *ev)
{
	/* The exceptions that push an error code (SDM Vol.3 Table 6-1; APM2 8.2):
	 * #DF, #TS, #NP, #SS, #GP, #PF, #AC, #CP, #VC, #SX. */
	static const uint32_t with_error = 1u << EXC_DF | 1u << EXC_TS | 1u << EXC_NP | 1u << EXC_SS |
					   1u << EXC_GP | 1u << EXC_PF | 1u << EXC_AC | 1u << EXC_CP |
					   1u << 29 | 1u << 30;
	return (s->quirks & QUIRK_BIT(QK_QEMU_EVENTINJ_EV_IGNORED)) && ev->type == EV_EXCEPTION &&
	       !((with_error >> ev->vector) & 1);
}
