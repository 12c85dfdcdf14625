/* SVM's part of an exit report (emu/exit_report.h): the code with its APM
 * name, EXITINFO1/2 and EXITINTINFO as the report's words, and the words
 * decoded (APM2 15.7-15.14, 15.25.6, Appendix C). The rest of the report
 * (time, where the guest was, its bytes, the event) is emu/exit_report.c's.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "emu/exit_report.h"
#include "svm/exit_codes.h"
#include "svm/exit_perturb.h"
#include "svm/model.h"

/* "VMEXIT_" and the Appendix C name in capitals; kept while the code repeats. */
static void set_name(struct svm *s, uint64_t code)
{
	if (s->report_name[0] && s->report_name_code == code)
		return;
	s->report_name_code = code;
	const char *n = svm_exit_name(code);
	size_t i = 0;
	memcpy(s->report_name, "VMEXIT_", 7);
	for (; n[i] && i + 8 < sizeof(s->report_name); i++)
		s->report_name[7 + i] = (char)toupper((unsigned char)n[i]);
	s->report_name[7 + i] = '\0';
}

/* EXITINFO1/2 of one exit code in words; "" when they hold nothing. */
static void describe(const struct vm_exit_report *r, char *buf, size_t size)
{
	uint64_t code = r->code, i1 = r->words[EXIT_WORD_SVM_EXITINFO1], i2 = r->words[EXIT_WORD_SVM_EXITINFO2];
	buf[0] = '\0';
	if (r->failed_check) {
		snprintf(buf, size, "failed: %s", r->failed_check);
	} else if (code == SVM_EXIT_IOIO) {
		unsigned sz = (i1 & SVM_IOIO_SZ8) ? 8 : (i1 & SVM_IOIO_SZ16) ? 16 : 32;
		unsigned as = (i1 & SVM_IOIO_A16) ? 16 : (i1 & SVM_IOIO_A32) ? 32 : 64;
		snprintf(buf, size, "port=0x%x %s size=%u addr=%u%s%s seg=%u next_rip=0x%llx",
			 (unsigned)((i1 & SVM_IOIO_PORT_MASK) >> SVM_IOIO_PORT_SHIFT),
			 (i1 & SVM_IOIO_TYPE_IN) ? "in" : "out", sz, as, (i1 & SVM_IOIO_STR) ? " str" : "",
			 (i1 & SVM_IOIO_REP) ? " rep" : "", (unsigned)((i1 & SVM_IOIO_SEG_MASK) >> SVM_IOIO_SEG_SHIFT),
			 (unsigned long long)i2);
	} else if (code == SVM_EXIT_MSR) {
		snprintf(buf, size, "%s", i1 ? "wrmsr" : "rdmsr");
	} else if (code < SVM_EXIT_EXCEPTION || code == SVM_EXIT_CR0_SEL_WRITE) {
		if (i1 & SVM_CRDR_MOV || (code >= SVM_EXIT_DR_READ && code < SVM_EXIT_EXCEPTION && i1))
			snprintf(buf, size, "mov gpr=%u", (unsigned)(i1 & SVM_CRDR_GPR_MASK));
		else if (code < SVM_EXIT_DR_READ || code == SVM_EXIT_CR0_SEL_WRITE)
			snprintf(buf, size, "%s", "lmsw/clts/smsw or no decode assists");
	} else if (code < SVM_EXIT_INTR) {
		int n = snprintf(buf, size, "error_code=0x%llx", (unsigned long long)i1);
		if (code == SVM_EXIT_EXCEPTION + EXC_PF && n > 0 && (size_t)n < size)
			snprintf(buf + n, size - (size_t)n, " address=0x%llx", (unsigned long long)i2);
	} else if (code == SVM_EXIT_NPF) {
		snprintf(buf, size, "gpa=0x%llx%s%s%s%s%s %s", (unsigned long long)i2, (i1 & 1) ? " P" : " !P",
			 (i1 & 2) ? " W" : " R", (i1 & 4) ? " U" : " S", (i1 & 8) ? " RSVD" : "",
			 (i1 & 16) ? " ID" : "", (i1 & SVM_NPF_PAGE_TABLE) ? "guest-walk" : "final");
	} else if (code == SVM_EXIT_TASK_SWITCH) {
		int n = snprintf(buf, size, "tss=0x%llx%s%s", (unsigned long long)(i1 & 0xffff),
				 (i2 & SVM_TASK_SWITCH_IRET) ? " iret" : "", (i2 & SVM_TASK_SWITCH_JMP) ? " jmp" : "");
		if ((i2 & SVM_TASK_SWITCH_HAS_ERROR) && n > 0 && (size_t)n < size)
			snprintf(buf + n, size - (size_t)n, " error_code=0x%llx", (unsigned long long)(uint32_t)i2);
	} else if (code == SVM_EXIT_SWINT) {
		snprintf(buf, size, "vector=0x%llx", (unsigned long long)i1);
	} else if (code == SVM_EXIT_INVLPG) {
		snprintf(buf, size, "address=0x%llx", (unsigned long long)i1);
	}
}

static void fill(struct svm *s, enum exit_report_kind kind, uint64_t code, uint64_t info1, uint64_t info2,
		 uint64_t intinfo, const char *failed_check)
{
	set_name(s, code);
	s->report = (struct vm_exit_report){
		.kind = kind, .vendor = HV_EXT_SVM, .code = code, .name = s->report_name,
		.words = { [EXIT_WORD_SVM_EXITINFO1] = info1, [EXIT_WORD_SVM_EXITINFO2] = info2,
			   [EXIT_WORD_SVM_EXITINTINFO] = intinfo },
		.failed_check = failed_check, .describe = describe,
	};
}

void svm_fill_report(struct svm *s, const struct svm_exit *x, unsigned perturbed)
{
	/* VMEXIT_INVALID after the guest state was loaded: a PDPTE check. */
	enum exit_report_kind kind = x->code == SVM_EXIT_INVALID ? EXIT_REPORT_SVM_INVALID : EXIT_REPORT_VMEXIT;
	fill(s, kind, x->code, x->info1, x->info2, x->intinfo, x->failed_check);
	s->report.randomised = ((perturbed & SVM_PERTURB_EXITINFO1) ? 1u << EXIT_WORD_SVM_EXITINFO1 : 0) |
			       ((perturbed & SVM_PERTURB_EXITINFO2) ? 1u << EXIT_WORD_SVM_EXITINFO2 : 0) |
			       ((perturbed & SVM_PERTURB_INTINFO) ? 1u << EXIT_WORD_SVM_EXITINTINFO : 0);
	exit_report_capture(s->cpu, &s->report, x->guest_rip, s->entered_at);
}

void svm_fill_invalid_report(struct svm *s, const struct vmcb *v, const char *failed_check)
{
	fill(s, EXIT_REPORT_SVM_INVALID, SVM_EXIT_INVALID, 0, 0, 0, failed_check);
	uint16_t a = v->save.cs.attrib;
	exit_report_capture_unentered(s->cpu, &s->report, v->save.cs.selector, v->save.rip,
				      (a & SVM_SEG_ATTR_L) ? 64 : (a & SVM_SEG_ATTR_DB) ? 32 : 16);
}
