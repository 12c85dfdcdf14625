/* The exit report: one VM exit, or one VM entry that failed, as a hypervisor
 * model delivered it to the host, for whoever watches (cli/: --trace vmexit,
 * --stats, the livelock detector; tests). Vendor-neutral: the model fills in
 * the kind, its code and name and the information words in its own encoding;
 * this file fills in the rest the same way for both vendors (time, guest
 * instructions since entry, where the guest was and its code bytes, the event
 * in flight decoded) and hands the report to the observer.
 *
 * Both vendors' words are named here, as data (exit_word_names()), so a reader
 * of a report needs no vendor's headers and no vendor string compares.
 */
#ifndef HVEMU_EMU_EXIT_REPORT_H
#define HVEMU_EMU_EXIT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/cpu.h"
#include "emu/cpu_model.h"

/* What ended in the host. A VM exit ran the guest; the other kinds are an
 * entry that failed, and its guest ran no instruction. */
enum exit_report_kind {
	EXIT_REPORT_VMEXIT,          /* SVM #VMEXIT, VMX VM exit: code = EXITCODE / exit reason */
	EXIT_REPORT_SVM_INVALID,     /* VMRUN failed its consistency checks: #VMEXIT with
					VMEXIT_INVALID, code = -1 (APM2 15.5.1) */
	EXIT_REPORT_ENTRY_FAILURE,   /* VMX: VM entry failed while or after loading guest state:
					a VM exit whose reason has bit 31 set, basic reason 33
					(invalid guest state) or 34 (MSR loading), with an exit
					qualification (SDM Vol.3 26.8) */
	EXIT_REPORT_VMFAIL_VALID,    /* VMX: VMLAUNCH/VMRESUME failed a control or host-state
					check: VMfailValid(n), code = n, the VM-instruction error
					(SDM Vol.3 26.1, 26.2, 30.4) */
	EXIT_REPORT_VMFAIL_INVALID,  /* VMX: VMfailInvalid, no current VMCS to hold an error
					number (SDM Vol.3 30.2); code = 0 */
};

/* The information words of a report, by vendor (the index into
 * vm_exit_report.words). SVM: APM2 15.7 and Appendix C; VMX: the VM-exit
 * information fields of SDM Vol.3 24.9. */
enum {
	EXIT_WORD_SVM_EXITINFO1 = 0,
	EXIT_WORD_SVM_EXITINFO2,
	EXIT_WORD_SVM_EXITINTINFO,         /* the event in flight; error code in 63:32 */
	EXIT_WORD_SVM_COUNT,
};
enum {
	EXIT_WORD_VMX_QUALIFICATION = 0,   /* exit qualification */
	EXIT_WORD_VMX_GUEST_LINEAR,        /* guest-linear address */
	EXIT_WORD_VMX_GUEST_PHYSICAL,      /* guest-physical address */
	EXIT_WORD_VMX_IDT_VECTORING,       /* IDT-vectoring information: the event in flight */
	EXIT_WORD_VMX_IDT_ERROR,           /* IDT-vectoring error code */
	EXIT_WORD_VMX_INSN_LENGTH,         /* VM-exit instruction length */
	EXIT_WORD_VMX_INSN_INFO,           /* VM-exit instruction information */
	EXIT_WORD_VMX_COUNT,
};
#define EXIT_WORDS_MAX 7

/* A word's names: the manual's, and the key a trace prints it under. */
struct exit_word_name {
	const char *manual;        /* "EXITINFO1", "exit qualification" */
	const char *key;           /* "info1", "qualification" */
	bool event;                /* holds the event in flight (printed with its decoding) */
};

/* The words a vendor's reports carry, in order; *count set (0 and NULL for
 * HV_EXT_NONE). */
const struct exit_word_name *exit_word_names(enum hv_ext vendor, unsigned *count);

/* "svm", "vmx" ("?" for HV_EXT_NONE). */
const char *hv_ext_name(enum hv_ext vendor);

/* The event being delivered when the exit happened: EXITINTINFO (APM2 15.7.2)
 * or the IDT-vectoring information (SDM Vol.3 24.9.3), which share the
 * layout vector 7:0, type 10:8, error code valid 11, valid 31. */
struct exit_report_event {
	bool valid;                /* bit 31 */
	uint8_t type_field;        /* 10:8 as the vendor encodes it */
	const char *type_name;     /* the vendor's name of that type; NULL: reserved */
	/* The event as the core knows it (type: enum event_type, vector, error
	 * code); ev.pending is false when the type has no core event (a
	 * reserved type, VMX's "other event"). */
	struct event ev;
};

struct vm_exit_report {
	enum exit_report_kind kind;
	enum hv_ext vendor;        /* HV_EXT_SVM, HV_EXT_VMX */
	uint64_t code;             /* EXITCODE (VMEXIT_INVALID = -1) / exit reason (bit 31 set
				      for an entry failure) / VM-instruction error (VMfailValid) */
	const char *name;          /* "VMEXIT_NPF", "EXTERNAL_INTERRUPT", ... */
	uint64_t words[EXIT_WORDS_MAX];   /* EXIT_WORD_SVM_* / EXIT_WORD_VMX_* */
	uint32_t randomised;       /* --perturb-exits: the words (bit = index) given random
				      values where the manual leaves them undefined; the
				      livelock detector compares the others */
	const char *failed_check;  /* a failed entry: the check and its section, e.g.
				      "APM2 15.5.1: EFER.SVME is zero"; else NULL */
	/* Where the guest was: CS selector, rIP, code size (16/32/64) for the
	 * disassembler, and the bytes at CS:rIP that could be read (0 if none). */
	uint16_t cs;
	uint64_t rip;
	uint8_t code_bits;
	uint8_t insn_len;
	uint8_t insn[15];
	uint64_t now;              /* virtual time of the exit (cpu_now()) */
	uint64_t guest_insns;      /* virtual time since the VMRUN / VM entry that ended here */
	struct exit_report_event event;   /* decoded from the event word (exit_report_decode()) */
	/* The model's decoding of the words in words ("port 0x70 out size 1
	 * ..."), into buf; NULL if it has none. */
	void (*describe)(const struct vm_exit_report *r, char *buf, size_t size);
};

/* Installed by the machine on the CPU to see every VM exit (NULL: nobody). */
struct vm_exit_observer {
	void (*exit)(void *ctx, struct cpu *cpu, const struct vm_exit_report *r);
	void *ctx;
	bool want_insn;            /* fill insn/insn_len (a guest code read per exit) */
};

/* The model filled in kind, vendor, code, name, words, failed_check and
 * describe. These fill in the rest; call them only with cpu->exit_observer
 * set, so that a run nobody watches pays nothing.
 *
 * exit_report_capture: an exit of a guest that ran, called while the guest's
 * state is still loaded: its CS, rip and code size, its code bytes at rip if
 * the observer wants them (cpu_peek_code(): through stage 2, no side
 * effects), the time, the guest instructions since entered_at.
 *
 * exit_report_capture_unentered: an entry that failed before the guest ran:
 * CS, rip and code size as the state area holds them, no bytes, no guest
 * instructions. */
void exit_report_capture(struct cpu *cpu, struct vm_exit_report *r, uint64_t rip, uint64_t entered_at);
void exit_report_capture_unentered(struct cpu *cpu, struct vm_exit_report *r, uint16_t cs, uint64_t rip,
				   unsigned code_bits);

/* Hand r to the observer (after the model has loaded the host's state, so
 * the observer sees the CPU as the host continues). */
static inline void exit_report_send(struct cpu *cpu, const struct vm_exit_report *r)
{
	cpu->exit_observer->exit(cpu->exit_observer->ctx, cpu, r);
}

/* Decode r->event from r's event words (the capture functions call it; a
 * test that builds a report by hand may too). */
void exit_report_decode(struct vm_exit_report *r);

#endif
