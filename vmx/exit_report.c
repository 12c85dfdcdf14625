/* VMX's part of an exit report (emu/exit_report.h): the exit reason with its
 * Appendix C name, the VM-exit information fields as the report's words
 * (SDM Vol.3 24.9, 27.2), and for a VM entry that failed the check-table row
 * that failed (26.2: VMfailValid 7 or 8; 26.8: exit reason 33 or 34 with bit
 * 31). The rest of the report is emu/exit_report.c's. The mirror of
 * svm/exit_report.c.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "emu/check_table.h"
#include "vmx/exit_perturb.h"
#include "vmx/exit_reasons.h"
#include "vmx/model.h"

/* The Appendix C name in capitals ("CPUID", "EPT_VIOLATION"); an entry
 * failure's reason has bit 31 set, its basic reason names it. */
static void set_name(struct vmx *v, const char *prefix, const char *n)
{
	size_t i = 0, p = strlen(prefix);
	memcpy(v->report_name, prefix, p);
	for (; n[i] && p + i + 1 < sizeof(v->report_name); i++)
		v->report_name[p + i] = (char)toupper((unsigned char)n[i]);
	v->report_name[p + i] = '\0';
}

/* The exit qualification of the reasons that have one, in words (SDM Vol.3
 * 27.2.1, Tables 27-1 .. 27-7); "" when it holds nothing worth a word. */
static void describe(const struct vm_exit_report *r, char *buf, size_t size)
{
	uint64_t q = r->words[EXIT_WORD_VMX_QUALIFICATION];
	static const char *const cr_access[4] = { "mov to", "mov from", "clts", "lmsw" };
	static const char *const ts_source[4] = { "call", "iret", "jmp", "gate" };
	buf[0] = '\0';
	if (r->failed_check) {
		snprintf(buf, size, "failed: %s", r->failed_check);
		return;
	}
	switch (r->code & VMX_EXIT_BASIC_MASK) {
	case VMX_EXIT_CR_ACCESS:           /* Table 27-3 */
		snprintf(buf, size, "cr%u %s gpr=%u", (unsigned)(q & 0xf), cr_access[(q >> 4) & 3],
			 (unsigned)((q >> 8) & 0xf));
		break;
	case VMX_EXIT_DR_ACCESS:           /* Table 27-4 */
		snprintf(buf, size, "dr%u %s gpr=%u", (unsigned)(q & 7), (q & 0x10) ? "mov from" : "mov to",
			 (unsigned)((q >> 8) & 0xf));
		break;
	case VMX_EXIT_IO_INSTRUCTION:      /* Table 27-5 */
		snprintf(buf, size, "port=0x%x %s size=%u%s%s%s", (unsigned)(q >> 16), (q & 8) ? "in" : "out",
			 (unsigned)(q & 7) + 1, (q & 0x10) ? " str" : "", (q & 0x20) ? " rep" : "",
			 (q & 0x40) ? " imm" : " dx");
		break;
	case VMX_EXIT_TASK_SWITCH:         /* Table 27-2 */
		snprintf(buf, size, "tss=0x%x source=%s", (unsigned)(q & 0xffff), ts_source[(q >> 30) & 3]);
		break;
	case VMX_EXIT_EPT_VIOLATION:       /* Table 27-7 */
		snprintf(buf, size, "gpa=0x%llx%s%s%s%s%s%s", (unsigned long long)r->words[EXIT_WORD_VMX_GUEST_PHYSICAL],
			 (q & 1) ? " R" : "", (q & 2) ? " W" : "", (q & 4) ? " X" : "",
			 (q & 0x80) ? " gla" : "", (q & 0x100) ? " final" : (q & 0x80) ? " guest-walk" : "",
			 (q & 0x1000) ? " nmi-unblocked" : "");
		break;
	case VMX_EXIT_EPT_MISCONFIG:
		snprintf(buf, size, "gpa=0x%llx", (unsigned long long)r->words[EXIT_WORD_VMX_GUEST_PHYSICAL]);
		break;
	case VMX_EXIT_INVLPG:
		snprintf(buf, size, "address=0x%llx", (unsigned long long)q);
		break;
	default:
		if (q)
			snprintf(buf, size, "qualification=0x%llx", (unsigned long long)q);
		break;
	}
}

void vmx_fill_report(struct vmx *v, const struct vmx_exit *x, unsigned perturbed)
{
	bool failure = x->reason & VMX_EXIT_ENTRY_FAILURE;
	set_name(v, failure ? "ENTRY_FAILURE_" : "", vmx_exit_name(x->reason));
	v->report = (struct vm_exit_report){
		.kind = failure ? EXIT_REPORT_ENTRY_FAILURE : EXIT_REPORT_VMEXIT, .vendor = HV_EXT_VMX,
		.code = x->reason, .name = v->report_name,
		.words = { [EXIT_WORD_VMX_QUALIFICATION] = x->qualification,
			   [EXIT_WORD_VMX_GUEST_LINEAR] = x->guest_linear,
			   [EXIT_WORD_VMX_GUEST_PHYSICAL] = x->guest_physical,
			   [EXIT_WORD_VMX_IDT_VECTORING] = x->idt_vectoring_info,
			   [EXIT_WORD_VMX_IDT_ERROR] = x->idt_vectoring_error,
			   [EXIT_WORD_VMX_INSN_LENGTH] = x->insn_len,
			   [EXIT_WORD_VMX_INSN_INFO] = x->insn_info },
		.failed_check = x->failed_check, .describe = describe,
		/* The words vmx_perturb_exit() randomised (the interruption error
		 * code has no word of its own here). */
		.randomised = ((perturbed & VMX_PERTURB_INSN_LEN) ? 1u << EXIT_WORD_VMX_INSN_LENGTH : 0) |
			      ((perturbed & VMX_PERTURB_INSN_INFO) ? 1u << EXIT_WORD_VMX_INSN_INFO : 0) |
			      ((perturbed & VMX_PERTURB_GUEST_LINEAR) ? 1u << EXIT_WORD_VMX_GUEST_LINEAR : 0) |
			      ((perturbed & VMX_PERTURB_GUEST_PHYSICAL) ? 1u << EXIT_WORD_VMX_GUEST_PHYSICAL : 0) |
			      ((perturbed & VMX_PERTURB_IDT_ERROR) ? 1u << EXIT_WORD_VMX_IDT_ERROR : 0),
	};
	exit_report_capture(v->cpu, &v->report, x->guest_rip, v->entered_at);
}

void vmx_fill_entry_report(struct vmx *v, enum exit_report_kind kind, uint64_t code, uint64_t qualification,
			   const char *failed_check)
{
	if (kind == EXIT_REPORT_VMFAIL_VALID)
		set_name(v, "", "vmfail_valid");
	else
		set_name(v, "ENTRY_FAILURE_", vmx_exit_name((uint32_t)code));
	v->report = (struct vm_exit_report){
		.kind = kind, .vendor = HV_EXT_VMX, .code = code, .name = v->report_name,
		.words = { [EXIT_WORD_VMX_QUALIFICATION] = qualification },
		.failed_check = failed_check, .describe = describe,
	};
	/* Where the guest would have started: the guest-state area's CS and RIP,
	 * its code size from the CS access rights (L: 64, D/B: 32). */
	uint32_t ar = (uint32_t)vmcs_get(v, VMCS_ROW_GUEST_CS_AR);
	exit_report_capture_unentered(v->cpu, &v->report, (uint16_t)vmcs_get(v, VMCS_ROW_GUEST_CS_SELECTOR),
				      vmcs_get(v, VMCS_ROW_GUEST_RIP),
				      (ar & VMX_AR_L) ? 64 : (ar & VMX_AR_DB) ? 32 : 16);
}
