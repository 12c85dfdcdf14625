/* The exit report's common part; see emu/exit_report.h. */
#include "emu/exit_report.h"

#include <string.h>

#include "emu/insn.h"
#include "emu/peek.h"

/* How a vendor's reports read: its words, which of them carries the event in
 * flight (and its error code), and the names of the event's type field. */
struct vendor_format {
	const char *name;
	const struct exit_word_name *words;
	unsigned n_words;
	unsigned event_word;
	int error_word;            /* the error code's own word; -1: bits 63:32 of event_word */
	const char *type_names[8];
	int8_t event_types[8];     /* type field -> enum event_type; -1: none */
};

/* APM2 15.7 (EXITCODE, EXITINFO1/2), 15.7.2 (EXITINTINFO). The keys are the
 * trace's (README "Watching VM exits"). */
static const struct exit_word_name svm_words[EXIT_WORD_SVM_COUNT] = {
	[EXIT_WORD_SVM_EXITINFO1] = { "EXITINFO1", "info1", false },
	[EXIT_WORD_SVM_EXITINFO2] = { "EXITINFO2", "info2", false },
	[EXIT_WORD_SVM_EXITINTINFO] = { "EXITINTINFO", "intinfo", true },
};

/* SDM Vol.3 24.9.1-24.9.4: the VM-exit information fields. */
static const struct exit_word_name vmx_words[EXIT_WORD_VMX_COUNT] = {
	[EXIT_WORD_VMX_QUALIFICATION] = { "exit qualification", "qualification", false },
	[EXIT_WORD_VMX_GUEST_LINEAR] = { "guest-linear address", "guest_linear", false },
	[EXIT_WORD_VMX_GUEST_PHYSICAL] = { "guest-physical address", "guest_physical", false },
	[EXIT_WORD_VMX_IDT_VECTORING] = { "IDT-vectoring information", "idt_vectoring", true },
	[EXIT_WORD_VMX_IDT_ERROR] = { "IDT-vectoring error code", "idt_error", true },
	[EXIT_WORD_VMX_INSN_LENGTH] = { "VM-exit instruction length", "insn_length", false },
	[EXIT_WORD_VMX_INSN_INFO] = { "VM-exit instruction information", "insn_info", false },
};

_Static_assert(EXIT_WORD_SVM_COUNT <= EXIT_WORDS_MAX && EXIT_WORD_VMX_COUNT <= EXIT_WORDS_MAX,
	       "EXIT_WORDS_MAX holds every vendor's words");

static const struct vendor_format formats[] = {
	[HV_EXT_SVM] = {
		.name = "svm", .words = svm_words, .n_words = EXIT_WORD_SVM_COUNT,
		.event_word = EXIT_WORD_SVM_EXITINTINFO, .error_word = -1,
		/* APM2 15.20 (the EVENTINJ format EXITINTINFO shares): 1 and
		 * 5-7 are reserved; INT3/INTO/INT1 are type 3, exceptions. */
		.type_names = { "interrupt", NULL, "NMI", "exception", "software interrupt" },
		.event_types = { EV_EXTINT, -1, EV_NMI, EV_EXCEPTION, EV_SOFTINT, -1, -1, -1 },
	},
	[HV_EXT_VMX] = {
		.name = "vmx", .words = vmx_words, .n_words = EXIT_WORD_VMX_COUNT,
		.event_word = EXIT_WORD_VMX_IDT_VECTORING, .error_word = EXIT_WORD_VMX_IDT_ERROR,
		/* SDM Vol.3 24.9.3 (IDT-vectoring information), 24.8.3 (the
		 * interruption types): 1 is not used; 7, "other event", is an
		 * MTF injection, no event of the core. */
		.type_names = { "external interrupt", NULL, "NMI", "hardware exception", "software interrupt",
				"privileged software exception", "software exception", "other event" },
		.event_types = { EV_EXTINT, -1, EV_NMI, EV_EXCEPTION, EV_SOFTINT, EV_PRIV_SOFTEXC, EV_SOFTEXC, -1 },
	},
};

static const struct vendor_format *format(enum hv_ext vendor)
{
	if ((unsigned)vendor >= sizeof(formats) / sizeof(formats[0]) || !formats[vendor].name)
		return NULL;
	return &formats[vendor];
}

const struct exit_word_name *exit_word_names(enum hv_ext vendor, unsigned *count)
{
	const struct vendor_format *f = format(vendor);
	*count = f ? f->n_words : 0;
	return f ? f->words : NULL;
}

const char *hv_ext_name(enum hv_ext vendor)
{
	const struct vendor_format *f = format(vendor);
	return f ? f->name : "?";
}

void exit_report_decode(struct vm_exit_report *r)
{
	const struct vendor_format *f = format(r->vendor);
	r->event = (struct exit_report_event){ 0 };
	if (!f)
		return;
	uint64_t w = r->words[f->event_word];
	struct exit_report_event *e = &r->event;
	e->valid = (w >> 31) & 1;
	if (!e->valid)
		return;
	e->type_field = (uint8_t)((w >> 8) & 7);
	e->type_name = f->type_names[e->type_field];
	e->ev.vector = (uint8_t)w;
	e->ev.has_error = (w >> 11) & 1;
	e->ev.error_code = f->error_word < 0 ? (uint32_t)(w >> 32) : (uint32_t)r->words[f->error_word];
	int8_t type = f->event_types[e->type_field];
	e->ev.pending = type >= 0;
	e->ev.type = type >= 0 ? (uint8_t)type : 0;
}

void exit_report_capture(struct cpu *cpu, struct vm_exit_report *r, uint64_t rip, uint64_t entered_at)
{
	r->cs = cpu->seg[SR_CS].selector;
	r->rip = rip;
	r->code_bits = (uint8_t)cpu_code_size(cpu);
	r->insn_len = 0;
	if (cpu->exit_observer->want_insn)
		r->insn_len = (uint8_t)cpu_peek_code(cpu, rip, r->insn, sizeof r->insn);
	r->now = cpu_now(cpu);
	r->guest_insns = r->now - entered_at;
	exit_report_decode(r);
}

void exit_report_capture_unentered(struct cpu *cpu, struct vm_exit_report *r, uint16_t cs, uint64_t rip,
				   unsigned code_bits)
{
	r->cs = cs;
	r->rip = rip;
	r->code_bits = (uint8_t)code_bits;
	r->insn_len = 0;
	r->now = cpu_now(cpu);
	r->guest_insns = 0;
	exit_report_decode(r);
}
