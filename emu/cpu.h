/* The x86 CPU: architectural state and the contract between the core and its
 * machine. One struct, no globals: two CPUs can coexist, and a unit test builds
 * one on a fake memory with cpu_init() + a struct physmem + a struct iobus.
 */
#ifndef HVEMU_EMU_CPU_H
#define HVEMU_EMU_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"
#include "emu/fpu_state.h"
#include "emu/amd_cfg_msrs.h"
#include "emu/mtrr.h"
#include "mmu/fault.h"
#include "mmu/paging.h"
#include "mmu/segment.h"
#include "mmu/tlb.h"
#include "mmu/x86.h"

/* What an instruction handler (and everything below it) returns. The compiler
 * makes callers look at it: a fault is never dropped on the floor. */
enum status {
	ST_OK = 0,                 /* continue with the next instruction */
	ST_FAULT,                  /* cpu->event holds an exception to deliver */
	ST_VMEXIT,                 /* a hook turned the event into a VM exit */
	ST_HALT,                   /* HLT: wait for an interrupt */
	ST_SHUTDOWN,               /* triple fault (SDM Vol.3 6.15, #DF) */
	ST_STOP,                   /* the machine asked to stop (debug-exit, limit) */
	ST_UNSUPPORTED,            /* a legal instruction hvemu does not model yet */
	ST_HANDLED,                /* only a hypervisor model's answer to an intercept whose
				      call site can skip its effect (emu/hv.h): the model
				      emulated the access; the call site turns it into ST_OK */
};
typedef enum status status_t;
/* Functions returning status_t are declared CHECKED: callers must look at it. */

/* Interrupt shadow kinds, kept apart because VMX interruptibility state and the
 * VMCB interrupt shadow report them (SDM Vol.3 24.4.2, APM2 15.21.5). */
enum { SHADOW_STI = 1u << 0, SHADOW_MOV_SS = 1u << 1 };

/* Kinds of events, in the vocabulary of the VMCB EVENTINJ / VMCS interruption
 * information fields (APM2 15.20, SDM Vol.3 24.8.3). */
enum event_type {
	EV_EXTINT = 0, EV_NMI = 2, EV_EXCEPTION = 3, EV_SOFTINT = 4,
	EV_PRIV_SOFTEXC = 5 /* INT1 */, EV_SOFTEXC = 6 /* INT3, INTO */,
};

/* Why the run loop must leave its block and look at the instruction boundary
 * (emu/event_step.c); any bit set sends it there, once per block and after
 * each instruction. */
enum {
	ATT_STOP = 1u << 0,        /* the machine asked to stop (cpu_request_stop) */
	ATT_CODE = 1u << 1,        /* a store changed decoded code: leave the block */
	ATT_EVENT = 1u << 2,       /* a line, IF, a shadow, NMI blocking or GIF changed */
	ATT_STEP = 1u << 3,        /* instructions run one at a time (TF, shadow, DR7, tracing) */
};

/* Boundary events a hypervisor model arms (cpu->hv_armed, cpu_hv_arm());
 * emu/event_step.c gives each its row, priority and blockers. */
enum {
	HV_ARM_TPR_THRESHOLD = 1u << 0,  /* once: the virtual TPR fell below the threshold */
	HV_ARM_MTF = 1u << 1,            /* monitor trap flag: one instruction at a time */
	HV_MTF_DUE = 1u << 2,            /* once (the core sets it): an instruction completed
					    under HV_ARM_MTF */
	HV_ARM_PREEMPTION_TIMER = 1u << 3, /* once: DEADLINE_HV expired (cpu_hv_set_timer) */
	HV_ARM_NMI_WINDOW = 1u << 4,     /* exit when NMIs become acceptable */
	HV_ARM_INTR_WINDOW = 1u << 5,    /* exit when interrupts become acceptable */
	HV_ARM_VIRTUAL_INTR = 1u << 6,   /* virtual-interrupt delivery: one is deliverable */
	HV_ENTRY_BOUNDARY = 1u << 7,     /* once (the model sets it at VM entry): the next
					    boundary takes every due event, one after the
					    other, before the first guest instruction */
};

/* Events a hypervisor model holds off outside guest mode, and how it changes
 * NMI blocking in guest mode (cpu->hv_holds). */
enum {
	HV_HOLD_INIT = 1u << 0,          /* INIT: VMX root operation blocks it */
	HV_HOLD_NMI_PAST_IRET = 1u << 1, /* IRET leaves NMI blocking alone (VMX "NMI
					    exiting" without "virtual NMIs", SDM Vol.3 25.3) */
	HV_VIRTUAL_NMI_BLOCKING = 1u << 2, /* cpu->nmi_blocked is virtual-NMI blocking: it
					      holds the NMI window, not NMIs (SDM Vol.3 26.7.1) */
};

/* Interrupt inputs (cpu_set_line). INTR is a level; NMI, SMI and INIT are
 * latched edges the CPU clears when it takes them. */
enum { LINE_INTR = 1u << 0, LINE_NMI = 1u << 1, LINE_SMI = 1u << 2, LINE_INIT = 1u << 3,
       LINE_SIPI = 1u << 4, /* a SIPI for a guest waiting for one (cpu_sipi): its exit */
       /* --perturb-exits: an interrupt request in a guest that is gone before
	* any acknowledge (cpu_spurious_intr_after) */
       LINE_INTR_PULSE = 1u << 5 };

/* Which flag masks INTR: EFLAGS.IF; the host's IF while a guest runs with
 * V_INTR_MASKING (APM2 15.21.1); none, while VMX external-interrupt exiting
 * takes every interrupt (SDM Vol.3 25.2). */
enum intr_masking { INTR_MASK_IF, INTR_MASK_HOST_IF, INTR_MASK_NONE };

/* A virtual interrupt a hypervisor posted for its guest (APM2 15.21.4: V_IRQ,
 * V_INTR_VECTOR, V_INTR_PRIO, V_IGN_TPR, V_TPR). */
struct virtual_intr {
	bool pending;
	uint8_t vector, priority, tpr;
	bool ignore_tpr;
};

/* Sources of deadlines in virtual time (cpu_set_deadline): the machine's
 * timers, the hypervisor model's (VMX preemption timer) and --perturb-exits'
 * spurious interrupt (cpu_spurious_intr_after). */
enum { DEADLINE_MACHINE, DEADLINE_HV, DEADLINE_SPURIOUS_INTR, DEADLINE_SOURCES };
struct deadline {
	uint64_t at;               /* virtual time it fires, UINT64_MAX: never */
	void (*fire)(void *ctx, struct cpu *cpu);
	void *ctx;
};

struct event {
	bool pending;
	uint8_t type;              /* enum event_type */
	uint8_t vector;
	bool has_error;
	bool injected;             /* injected by a hypervisor (VMRUN EVENTINJ, VM-entry
				      interruption information), not raised by the guest */
	uint8_t insn_len;          /* software interrupts/exceptions: the instruction's length */
	uint16_t dr6;              /* #DB only: the DR6 bits it reports (B0-B3, BD, BS, BT),
				      written as it is delivered, as CR2 is for #PF (emu/debug.h
				      debug_deliver_dr6); a VM exit instead leaves DR6 alone */
	uint32_t error_code;
	uint64_t cr2;              /* #PF only */
	/* #PF only: bits 63:32 of base + offset that the 32-bit wrap of a system
	 * access (descriptor table, IDT, TSS, 16-bit stack) dropped, else 0. The
	 * architecture reports cr2; this is for quirks that mimic implementations
	 * without the wrap (svm/quirks.c). */
	uint32_t cr2_carry;
};

/* Whether the RFLAGS image saved as ev is delivered has RF set: fault-class
 * exceptions (SDM Vol.3 6.5, Table 6-1; #DB may be either and is excluded, #DF
 * and #MC are aborts) save RF = 1 so that the restarted instruction does not
 * trigger its instruction breakpoint again (SDM Vol.3 17.3.1.1), on the stack
 * or, through a task gate, in the old TSS. */
static inline bool event_saves_rf(const struct event *ev)
{
	if (ev->type != EV_EXCEPTION)
		return false;
	switch (ev->vector) {
	case EXC_DE: case EXC_BR: case EXC_UD: case EXC_NM: case EXC_TS: case EXC_NP:
	case EXC_SS: case EXC_GP: case EXC_PF: case EXC_MF: case EXC_AC: case EXC_XM:
	case EXC_VE: case EXC_CP:
		return true;
	default:
		return false;
	}
}

/* The events of the last delivery that faulted, first first: the event being
 * delivered, each fault raised while delivering it, and the #DF that Table 6-5
 * made of them (SDM Vol.3 6.15). A triple-fault report prints it. Written only
 * when a delivery faults (emu/exception.c), never on the instruction path. */
#define FAULT_CHAIN_MAX 8
struct fault_link {
	uint8_t type;              /* enum event_type */
	uint8_t vector;
	bool has_error;
	uint32_t error_code;
	uint16_t cs;               /* CS selector and rIP the event was raised at */
	uint64_t rip;
	uint64_t cr2;              /* #PF only */
};
struct fault_chain {
	uint8_t count;             /* links used; the last is the latest fault */
	bool dropped;              /* more links than fit: the middle ones were dropped */
	struct fault_link link[FAULT_CHAIN_MAX];
};

enum cpu_vendor { VENDOR_INTEL, VENDOR_AMD };

/* Operating mode; cached, recomputed by cpu_update_mode() after CR0/EFER/EFLAGS.VM/CS
 * changes. */
enum cpu_mode { MODE_REAL, MODE_PROT, MODE_V86, MODE_COMPAT, MODE_LONG64 };

struct cpu_model;              /* emu/cpu_model.h */
struct lapic;                  /* devices/lapic.h */
struct hv_model;               /* emu/hv.h */
struct vm_exit_observer;       /* emu/exit_report.h */
struct icache;                 /* emu/icache.h */
struct access_watch;           /* emu/access_watch.h */
struct insn;                   /* emu/insn.h */
struct walk_result;            /* mmu/paging.h */

/* Trace classes (--trace). */
enum {
	TRACE_INSN = 1u << 0, TRACE_EXC = 1u << 1, TRACE_IO = 1u << 2, TRACE_PF = 1u << 3,
	TRACE_VMEXIT = 1u << 4,    /* VM exits: the CLI's exit observer (cli/exit_trace.h) */
};

/* Lazily evaluated arithmetic flags: the last flag-setting operation is recorded
 * and the six status flags are computed only when read (emu/flags.h). */
struct lazy_flags {
	uint8_t op;                /* enum lazy_op; LAZY_NONE: rflags holds them */
	uint8_t size;              /* log2 of operand bytes */
	uint64_t result, src1, src2;
	uint64_t aux;              /* op-specific: carry-in, preserved CF, count */
};

struct dtr {
	uint64_t base;
	uint32_t limit;
};

/* IA32_MCi_* at 400H + 4i: at most 32 banks before the VMX MSRs at 480H. */
#define MC_BANKS_MAX 32

struct cpu {
	/* --- architectural state --- */
	uint64_t regs[16];         /* enum gpr */
	uint64_t rip;
	uint64_t rflags;           /* arithmetic flags valid only when lazy.op == LAZY_NONE */
	struct lazy_flags lazy;
	struct segment seg[SR_COUNT];
	struct segment ldtr, tr;
	struct dtr gdtr, idtr;
	uint64_t cr0, cr2, cr3, cr4, cr8, xcr0;
	uint64_t pdpte[4];         /* PAE PDPTE registers, loaded with CR3 (SDM Vol.3 4.4.1) */
	uint64_t dr[8];            /* DR4/DR5 alias DR6/DR7 when CR4.DE=0 */
	/* DebugCtl and the last-branch records (SDM Vol.3 17.4.1-17.4.3, APM2
	 * 13.1.1.6-7; emu/debug.h). */
	uint64_t debugctl;
	uint64_t last_branch_from, last_branch_to, last_exception_from, last_exception_to;
	uint64_t efer;
	uint64_t sysenter_cs, sysenter_esp, sysenter_eip;
	uint64_t star, lstar, cstar, sfmask, kernel_gs_base, tsc_aux;
	uint64_t apic_base, pat, misc_enable, feature_control;
	uint64_t vm_cr, vm_hsave_pa;
	uint64_t amd_perf_sel[4], amd_perf_ctr[4];  /* AMD PerfEvtSel0-3/PerfCtr0-3 (APM2 13.2.1) */
	/* Machine-check architecture (SDM Vol.3 15.3, emu/msr.c): IA32_MCG_STATUS,
	 * IA32_MCG_CTL and each bank's CTL, STATUS, ADDR, MISC. */
	uint64_t mcg_status, mcg_ctl;
	uint64_t mc_bank[MC_BANKS_MAX][4];
	struct mtrr_state mtrr;    /* the MTRRs (emu/mtrr.h) */
	struct amd_cfg_state amd_cfg;  /* AMD's configuration MSRs (emu/amd_cfg_msrs.h) */
	uint64_t tsc_offset;       /* TSC = icount + tsc_offset (deterministic virtual time) */
	struct fpu_state fpu;      /* x87, MXCSR and XMM registers (emu/fpu_state.h) */

	/* --- derived / micro-architectural state --- */
	enum cpu_mode mode;
	uint8_t cpl;
	uint8_t shadow;            /* SHADOW_*: blocking by STI / MOV SS / POP SS (SDM 6.8.3) */
	uint8_t insn_shadow;       /* the shadow the running instruction executes in (0 outside
				      run_one): a VM exit it causes reports it (APM2 15.21.5) */
	bool nmi_blocked;          /* an NMI handler runs until the next IRET (SDM 6.7.1) */
	uint8_t debug_hits;        /* DR6.B0-B3 of data/I-O breakpoints hit by this instruction */
	bool halted;
	bool wait_for_sipi;        /* an AP after INIT: only a SIPI starts it (SDM Vol.3 8.4.1); in
				      a VMX guest the wait-for-SIPI activity state */
	bool shutdown_wait;        /* a VMX guest in the shutdown activity state (SDM Vol.3
				      24.4.2): halted, only NMI, INIT, SMI and the model's
				      timer and NMI window reach it (emu/event_step.c) */
	bool wait_break_masked;    /* MWAIT ECX[0]: a masked interrupt ends the wait */
	bool monitor_armed;        /* MONITOR armed an address range (SDM Vol.2 MWAIT) */
	struct event event;        /* the exception/interrupt being raised or delivered */
	uint8_t delivering;        /* nesting of exception delivery, for #DF/shutdown (SDM 6.15) */
	uint64_t insn_start;       /* RIP of the current instruction (faults report it) */
	uint64_t apic_page;        /* the xAPIC register page this CPU's accesses reach
				      (SDM Vol.3 10.4.1), UINT64_MAX: none (emu/apic.c) */
	uint32_t wrap_carry;       /* bits 63:32 the wrap of the current system access dropped
				      (sys_wrap32(), emu/operand.h); a #PF takes it along */
	uint64_t icount;           /* virtual time: retired instructions + REP iterations
				      beyond each one's first + delivered events + device
				      accesses' bus cycles (+ time skipped while halted);
				      counted per block */
	uint64_t icount_limit;     /* stop with ST_STOP when reached (0: none) */
	const struct insn *cur_insn;  /* the running instruction (or the end slot of the
					 block that ran last): cpu_now() */
	uint64_t block_ip;         /* rIP of the running block's first instruction and */
	uint64_t block_ip_mask;    /* ip_mask() then: a threaded run computes rIP from them */
	uintptr_t chain_stack_floor;  /* a threaded run goes on to another block only while
					 the host's stack is above this (emu/run.c) */
	struct jit_scratch {       /* a translated run's own values (emu/jit.c), no machine state: */
		uint64_t carry;    /* CF where it began, for its first INC/DEC or ADC/SBB: 0 or 1 */
		uint64_t word;     /* a register whose bits 15:8 (AH..BH) it reads as a byte */
		uint64_t cond;     /* the condition of its Jcc where it sets no flags, as it
				      began: 0 or 1 */
	} jit;
	struct link_context {      /* what a block link depends on, with its id (emu/run.c): */
		uint32_t id;       /* the current one first, then the ones seen last; 0: none */
		uint32_t tlb_epoch;
		uint64_t cs_base;
		uint32_t cs_limit;
		uint8_t cpl, mode;
	} link_contexts[4];
	uint32_t link_context_next;   /* the next id; 0: none given since the links were dropped */

	/* --- events at instruction boundaries (emu/event_step.h) --- */
	uint32_t attention;        /* ATT_*; changed with cpu_attend()/event_step() only */
	uint8_t lines;             /* LINE_* asserted */
	bool gif;                  /* global interrupt flag (APM2 15.17); 1 outside SVM use */
	uint8_t intr_masking;      /* enum intr_masking */
	bool host_if;              /* the host's EFLAGS.IF, for INTR_MASK_HOST_IF */
	uint16_t pending_dbg;      /* a #DB trap of the last instruction waits: its DR6 bits
				      (B0-B3, BS; the VMCS "pending debug exceptions"), 0: none */
	bool step_at_vmexit;       /* VMRUN ran with TF: its single-step trap follows the #VMEXIT */
	bool step_by_result;       /* the instruction single-steps by the TF it leaves, not the one
	                            * it found (SYSCALL, SYSRET: emu/syscall.c); run_one() reads it */
	bool one_step;             /* run one instruction at a time, for whoever compares
				      that with the block cache (fuzz/blockdiff_fuzz.c) */
	uint8_t hv_armed;          /* HV_ARM_*: boundary events the model armed */
	uint8_t hv_holds;          /* HV_HOLD_*: events the model holds off */
	bool hv_cr_checks;         /* ask hv->cr_write_check about CR0/CR4 writes (emu/hv.h) */
	uint8_t sipi_vector;       /* LINE_SIPI's vector */
	uint64_t spurious_intr_exits; /* VM exits LINE_INTR_PULSE alone caused */
	uint64_t iret_nmi_unblock; /* cpu_now() + 1 of the last IRET that ended NMI blocking */
	struct virtual_intr vintr;
	uint64_t deadline;         /* earliest of deadlines[].at and icount_limit */

	/* --- the machine (cpu_reset() keeps this and what follows) --- */
	const struct cpu_model *model;
	/* The model's CPUID.01H ECX and EDX (no hypervisor model's bits), for
	 * the check every SSE/AVX instruction makes (cpu_has_leaf1): read once,
	 * not looked up in the model's leaves each time. */
	uint32_t leaf1_ecx, leaf1_edx;
	uint64_t quirks;           /* QUIRK_BIT(QK_*) of emu/quirks.def: the peer deviations
	                            * named by --quirk/--quirks, 0 for the manuals' behaviour */
	struct physmem *mem;
	struct iobus *io;
	struct tlb tlb;
	bool tlb_uncached;         /* --tlb flush: every access walks the page tables */
	struct access_watch *access_watch;  /* an observer's watchpoints (emu/access_watch.h), or NULL */
	uint64_t a20_mask;         /* physical addresses are ANDed with it: ~0, or bit 20
				      clear while the A20M# input is asserted (cpu_set_a20) */
	uint8_t maxphyaddr;        /* physical-address width (CPUID 80000008h:EAX[7:0]) */
	bool gbpages;              /* 1 GiB pages (CPUID 80000001h:EDX[26]) */
	struct icache *icache;
	const struct hv_model *hv; /* the hypervisor model (svm/, vmx/), or NULL */
	void *hv_ctx;
	bool hv_available;         /* the model's VMX/SVM is reported and usable: set by machine
	                            * set-up with hv (emu/cpu_model.h hv_ext) */
	bool in_guest;             /* hv runs a guest: interceptable events go to hv */
	bool stage2_on;            /* the guest's physical addresses go through stage2 */
	struct paging_env stage2;  /* nested paging / EPT (mmu/nested.h), set by hv */
	bool vectoring_valid;      /* an event is being delivered: vectoring is it */
	struct event vectoring;    /* (IDT-vectoring information, EXITINTINFO) */
	bool stop_requested;       /* the machine asked to end the run (cpu_request_stop) */
	struct deadline deadlines[DEADLINE_SOURCES];
	int (*intr_ack)(void *ctx);  /* INTA: the vector of the pending interrupt, -1 if none */
	void *intr_ctx;
	uint64_t tsc_hz;           /* TSC ticks per second = the nominal instruction rate, for
	                            * CPUID 15H/16H (0: VCLOCK_DEFAULT_HZ); set by the machine */
	uint32_t io_access_ticks;  /* virtual time a device access (IN, OUT, chipset MMIO) takes
				      beyond its instruction's tick (emu/insn.h); set by the machine
				      from the rate (devices/bus.h IO_BUS_CYCLE_NS), 0: none */
	struct lapic *lapic;       /* its local APIC (emu/apic.c), NULL: none */
	uint32_t apic_id;          /* initial APIC ID (CPUID.1:EBX[31:24], leaf 0BH EDX) */
	uint64_t rng_state;        /* RDRAND/RDSEED's generator (emu/random.c), seeded by
				      the machine (cpu_seed_random); RESET and INIT keep it */
	bool turn_yielded;         /* SMP: a PAUSE ended this turn early (emu/wait.c) */
	bool halt_yields;          /* SMP: a halt nothing can end now returns ST_HALT to the
				      machine's schedule, which moves time (emu/event_step.c) */
	struct cpu *next_cpu;      /* SMP: the machine's CPUs in a ring, whose decoded code
				      this CPU's stores must reach (emu/memory.c); NULL alone */
	uint64_t apic_access_page; /* the hypervisor model's APIC-access page while its guest
				      runs (SDM Vol.3 29.4), UINT64_MAX: none (cpu_reset sets
				      it); like apic_page never cached in the TLB, its accesses
				      are the model's (emu/hv.h apic_access). Here, past the
				      hot state, so the fields the run loop reads keep their
				      cache lines */
	uint64_t *dirty_pages;     /* NULL, or one bit per RAM page that a store of this CPU
				      may have reached since its owner cleared the bit: set
				      when a translation allowing writes enters the TLB, on a
				      slow-path store and in cpu_notify_phys_write (emu/memory.c).
				      For snapshots that restore only what changed
				      (fuzz/snapshot.c); the physmem_write callback alone does
				      not see stores through the TLB */

	/* --- tracing --- */
	unsigned trace;            /* TRACE_* */
	void (*trace_insn)(struct cpu *cpu, const struct insn *in);
	void (*trace_event)(struct cpu *cpu, const struct event *ev, const char *what);
	void (*trace_walk)(struct cpu *cpu, uint64_t lin, const struct walk_result *r,
			   const struct fault *f);   /* a page walk that faulted */
	void *trace_ctx;
	struct fault_chain fault_chain;  /* the last delivery that faulted (triple-fault report) */
	const struct vm_exit_observer *exit_observer;  /* emu/exit_report.h: VM exits, for tracing */
};

/* Ask the run loop to look at the boundary (ATT_* bits). Atomic, because a
 * signal handler may ask for ATT_STOP while the loop clears other bits. */
static inline void cpu_attend(struct cpu *cpu, uint32_t bits)
{
	__atomic_fetch_or(&cpu->attention, bits, __ATOMIC_RELAXED);
}

/* End the run at the next instruction boundary (devices, signal handlers). */
static inline void cpu_request_stop(struct cpu *cpu)
{
	cpu->stop_requested = true;
	cpu_attend(cpu, ATT_STOP);
}

/* The run loop answered the request with ST_STOP: a later cpu_run() goes on. */
static inline void cpu_stop_answered(struct cpu *cpu)
{
	__atomic_fetch_and(&cpu->attention, ~(uint32_t)ATT_STOP, __ATOMIC_RELAXED);
	cpu->stop_requested = false;
}

/* Put the CPU in its power-on/RESET state (SDM Vol.3 9.1.1 Table 9-1): real mode,
 * CS=F000 base FFFF0000, EIP=FFF0, EDX = family/model/stepping signature. */
void cpu_init(struct cpu *cpu, const struct cpu_model *model, struct physmem *mem,
	      struct iobus *io);
void cpu_destroy(struct cpu *cpu);
/* Seed RDRAND/RDSEED (emu/random.c): the same seed gives the same values.
 * The machine gives each CPU its own (machine/smp.c). */
void cpu_seed_random(struct cpu *cpu, uint64_t seed);

/* Back to the RESET state of cpu_init(), on the same machine: the fields before
 * `model` and the fault chain are reset, the TLB and the decoded-instruction
 * cache emptied (their storage reused, at a cost proportional to what was used),
 * the machine, hooks and tracing kept. For a fuzzer's next input, not a guest's INIT. */
void cpu_reset(struct cpu *cpu);

/* The INIT signal (SDM Vol.3 9.1.1 Table 9-1, INIT column): the RESET state
 * except the x87/SSE state, the MSRs, CR0.CD/NW and the caches, which INIT
 * leaves as they are; the CPU starts at the reset vector (emu/event_step.c). */
void cpu_init_signal(struct cpu *cpu);

/* A start-up IPI (SDM Vol.3 8.4.3, 10.6.1): a processor waiting for SIPI starts
 * in real mode at CS = vector << 8 (base vector << 12), IP = 0; otherwise the
 * SIPI is ignored. An INIT the processor has not taken yet is taken first. */
void cpu_sipi(struct cpu *cpu, uint8_t vector);
/* The start-up a SIPI makes of a processor waiting for one (cpu_sipi). */
void cpu_start_up(struct cpu *cpu, uint8_t vector);

/* Run until something ends the run (emu/run.c): faults, interrupts and VM
 * exits are handled inside. Returns ST_HALT (halted with nothing that could
 * wake it), ST_SHUTDOWN, ST_STOP or ST_UNSUPPORTED. */
status_t cpu_run(struct cpu *cpu) CHECKED;

/* Recompute the mode after a change of CR0.PE, EFLAGS.VM, EFER.LMA or CS.L. CPL
 * is set by whoever loads CS (far transfers, IRET, event delivery, SYSENTER...);
 * this only forces it to 0 in real mode and 3 in virtual-8086 mode. */
void cpu_update_mode(struct cpu *cpu);

/* Raise an exception: record it in cpu->event and return ST_FAULT, to be returned
 * up to cpu_run(), which delivers it (or lets a hook make it a VM exit). */
status_t cpu_raise(struct cpu *cpu, uint8_t vector) CHECKED;
status_t cpu_raise_err(struct cpu *cpu, uint8_t vector, uint32_t error_code) CHECKED;
status_t cpu_raise_fault(struct cpu *cpu, const struct fault *f) CHECKED;

/* Deliver cpu->event through the IVT/IDT (emu/exception.c). Returns ST_OK once the
 * handler's first instruction is next, ST_SHUTDOWN on a triple fault. */
status_t cpu_deliver_event(struct cpu *cpu) CHECKED;

/* Full EFLAGS with the lazy arithmetic flags folded in. */
uint64_t cpu_get_flags(struct cpu *cpu);
/* Replace EFLAGS wholesale (bit 1 forced to 1, reserved bits cleared). */
void cpu_set_flags(struct cpu *cpu, uint64_t flags);

/* Sizes in bytes of the current code/stack/address defaults. */
static inline bool cpu_is_mode64(const struct cpu *cpu) { return cpu->mode == MODE_LONG64; }

/* The linear address of CS:rIP: rIP itself in 64-bit mode, where CS's base is
 * 0 (SDM Vol.3 3.4.4), else CS's base + rIP within 4 GiB. */
static inline uint64_t cpu_ip_linear(const struct cpu *cpu)
{
	return cpu_is_mode64(cpu) ? cpu->rip : (uint32_t)(cpu->seg[SR_CS].base + cpu->rip);
}
static inline bool cpu_is_prot(const struct cpu *cpu)   { return cpu->mode != MODE_REAL; }

/* Read size bytes of code at linear address lin, as an instruction fetch would
 * (fills the TLB; may fault). For tracing and the decoder. */
status_t cpu_fetch_code(struct cpu *cpu, uint64_t lin, unsigned size, uint8_t *buf) CHECKED;

/* Physical address of the code byte at linear lin, translated as an instruction
 * fetch is (fills the TLB when it may; may fault: #PF). Reads no memory. */
status_t cpu_code_phys(struct cpu *cpu, uint64_t lin, uint64_t *pa) CHECKED;

/* Code size (16, 32 or 64) instructions are decoded with in the current mode. */
static inline unsigned cpu_code_size(const struct cpu *cpu)
{
	/* [mode][CS.D]: real and virtual-8086 code is 16-bit, 64-bit code 64-bit,
	 * protected and compatibility mode follow CS.D (SDM Vol.3 3.4.5). */
	static const uint8_t size[5][2] = {
		[MODE_REAL] = { 16, 16 }, [MODE_PROT] = { 16, 32 }, [MODE_V86] = { 16, 16 },
		[MODE_COMPAT] = { 16, 32 }, [MODE_LONG64] = { 64, 64 },
	};
	return size[cpu->mode][(cpu->seg[SR_CS].attr & SEG_DB) != 0];
}

/* The paging mode CR0.PG/CR4.PAE/CR4.LA57/EFER.LMA select (SDM Vol.3 4.1.1). */
unsigned cpu_paging_mode(const struct cpu *cpu);   /* enum paging_mode, mmu/paging.h */

/* The A20M# input, driven by the PC's A20 gate (SDM Vol.3 22.33.1: "An external
 * A20M# pin forces wraparound [at 1 MByte] if enabled"). Enabled, physical
 * addresses pass as they are; disabled, bit 20 of every physical address the
 * CPU forms is forced to 0. Applied where a translation is made, so the TLB is
 * flushed on a change and the hot path pays nothing. cpu_init() leaves A20
 * enabled. */
void cpu_set_a20(struct cpu *cpu, bool enabled);

/* Tell the core that guest-physical page(s) were written behind its back
 * (DMA, loader): decoded instructions there are dropped. */
void cpu_notify_phys_write(struct cpu *cpu, uint64_t pa, unsigned size);

#endif
