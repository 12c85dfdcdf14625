/* The exit record: one vendor-neutral description of an interceptable event,
 * filled by the core and handed to the installed hypervisor model (emu/hv.h).
 *
 * svm/ encodes it as EXITCODE, EXITINFO1/2, EXITINTINFO, NRIP and the
 * decode-assist bytes (APM2 15.7-15.14, Appendix C); vmx/ as the exit reason,
 * exit qualification, guest-linear/physical address, instruction length and
 * information, IDT-vectoring information (SDM Vol.3 27.2). Neither needs to
 * decode the instruction again: everything the two manuals report is here.
 */
#ifndef HVEMU_EMU_EXIT_RECORD_H
#define HVEMU_EMU_EXIT_RECORD_H

#include "emu/insn.h"
#include "emu/intercept.h"
#include "mmu/fault.h"

/* How a control or debug register is reached (SDM Vol.3 Table 27-3 "access
 * type"; APM2 15.8: LMSW/CLTS are CR0 writes, SMSW a CR0 read). */
enum cr_access { CR_MOV_TO, CR_MOV_FROM, CR_CLTS, CR_LMSW, CR_SMSW };

/* Which descriptor-table register DESC_TABLE touches (SDM Vol.3 Table 27-10,
 * "instruction identity"; APM2 15.10 exit codes 0x66-0x6D). */
enum desc_reg { DESC_GDTR, DESC_IDTR, DESC_LDTR, DESC_TR };

/* What started a task switch (SDM Vol.3 Table 27-2 "source of task switch";
 * APM2 15.14.4 EXITINFO2 bits 36 IRET, 38 JMP). */
enum ts_source { TS_CALL, TS_IRET, TS_JMP, TS_GATE };

/* Where in an instruction's checks the intercept is asked. Both vendors take
 * most instruction intercepts after the instruction's #UD and privilege
 * checks and before its memory accesses (APM2 15.9, SDM Vol.3 25.1.1); a few
 * rows differ by vendor (SDM 25.1.3: MOV DR exits take priority over the
 * CPL and DR4/DR5 faults). A model answers only the phase its manual names. */
enum intercept_phase {
	PHASE_CHECKED = 0,         /* after the instruction's own checks */
	PHASE_BEFORE_CHECKS = 1,   /* before them (VMX MOV DR) */
	PHASE_BEFORE_OPERAND = 2,  /* after the privilege checks, before the memory
				      operand is read (SVM LMSW, APM2 Table 15-7) */
	PHASE_TSS_CHECKED = 3,     /* a task switch after the new and old TSS limit
				      checks (SVM, APM2 15.14.1: #TS first) */
};

/* How an APIC_ACCESS reached the APIC page (SDM Vol.3 Table 27-6 "access
 * type"). */
enum apic_access { APIC_LINEAR_READ, APIC_LINEAR_WRITE, APIC_LINEAR_FETCH, APIC_DELIVERY_ACCESS };

/* An instruction operand as both manuals report it: SVM's decode assists
 * (APM2 15.33) and VMX's VM-exit instruction information (SDM Vol.3 27.2.5:
 * scaling, address size, register or memory, segment, index, base, reg2). */
struct exit_operand {
	bool mem;                  /* memory operand (else register) */
	uint8_t gpr;               /* register number 0-15 when !mem */
	uint8_t seg;               /* enum sreg of a memory operand */
	uint8_t base, index;       /* memory: REG_NONE if absent, REG_RIP RIP-relative */
	uint8_t scale;             /* memory: log2 of the index's scale */
	int64_t disp;              /* memory: the displacement, sign-extended */
	uint8_t asize, osize;      /* address- and operand-size attribute: 2, 4 or 8 */
	uint8_t reg;               /* ModRM.reg with REX.R: the second register (VMREAD's
				      field encoding, INVEPT's type, MOV CR's CRn) */
	uint64_t offset;           /* effective address, masked to the address size */
	uint64_t linear;           /* segment base + offset (32-bit wrap outside 64-bit mode) */
};

struct exit_record {
	enum intercept_kind kind;
	uint8_t phase;             /* enum intercept_phase */

	/* The instruction, for instruction kinds (NULL for events). */
	const struct insn *insn;
	uint64_t rip;              /* where the instruction (or interrupted code) is */
	uint64_t next_rip;         /* the instruction after it (NRIP, SVM decode) */
	struct exit_operand op;    /* its memory or register operand, if any */

	/* CR_ACCESS / DR_ACCESS */
	uint8_t cr;                /* CRn or DRn */
	uint8_t cr_access;         /* enum cr_access */
	/* CR/DR/MSR value: what a write stores; for a read the model may set the
	 * value the guest sees (read shadows) and return ST_OK. */
	uint64_t value;

	/* DESC_TABLE */
	uint8_t desc;              /* enum desc_reg */
	bool desc_write;

	/* MSR */
	uint32_t msr;
	bool msr_write;

	/* IO (SDM Vol.3 Table 27-5, APM2 15.10.2) */
	uint16_t port;
	uint8_t io_size;           /* 1, 2 or 4 */
	bool io_in, io_string, io_rep;
	bool io_imm;               /* port from an immediate (else DX) */

	/* INTN: the vector; also the event kinds' vector (in event), SIPI's and
	 * VIRTUALIZED_EOI's, and INTR's once acknowledged */
	uint8_t vector;

	/* INTR: whether the model acknowledged the interrupt controller for its
	 * exit (hv_ack_intr(): VMX "acknowledge interrupt on exit", SDM Vol.3
	 * 25.7.1 / 28.2.2; posted interrupts): then vector is the interrupt's, and
	 * the core does not acknowledge it again. */
	bool intr_acked;

	/* A fault of an IRET that ended NMI blocking (SDM Vol.3 27.2.3 "NMI
	 * unblocking due to IRET", exit qualification / interruption information
	 * bit 12): the blocking is already gone (SDM Vol.3 27.1). */
	bool nmi_unblocked_by_iret;

	/* APIC_ACCESS, APIC_WRITE: the offset in the APIC page, and how. */
	uint16_t apic_offset;
	uint8_t apic_access;       /* enum apic_access */

	/* TASK_SWITCH */
	uint16_t tss_selector;
	uint8_t ts_source;         /* enum ts_source */
	bool ts_saved_rf;          /* RF in the EFLAGS image the old TSS would receive */

	/* EXCEPTION, INTR, NMI...: the event that would be delivered (for #PF
	 * event.cr2 is the faulting address; CR2 itself is not yet written). */
	struct event event;

	/* The event whose delivery was in progress when this happened (IDT-vectoring
	 * information, EXITINTINFO), and whether it was injected by the hypervisor. */
	bool vectoring_valid;
	struct event vectoring;

	/* STAGE2_FAULT / STAGE2_MISCONFIG */
	struct fault fault;
};

#endif
