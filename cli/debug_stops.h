/* Stopping the machine where a debugger wants it: the conditions
 * (`--break vmexit=CODE,...`, `--break exception=VECTOR`, `--break icount=N`,
 * and the breakpoints and watchpoints gdb sets) and the run control that
 * stops on them (cli/gdbstub.c drives it, or `hvemu run` alone, which prints
 * a one-line report and exits with EXIT_BREAK).
 *
 * How a stop is found, with no hook in the run loop (emu/run.c):
 *   - VM exits: an exit observer (emu/exit_report.h) in front of the CLI's
 *     own (cli/exit_watch.h), which asks the CPU to stop (cpu_request_stop);
 *     the stop takes effect at the next boundary, in L1 after the exit;
 *   - exceptions: the trace_event callback of the delivery (emu/exception.c),
 *     in front of --trace's, likewise: called as the delivery through the
 *     IDT begins (after a hypervisor's intercept declined it), so a delivery
 *     that itself faults into a VM exit stops in L1 after that exit;
 *   - instruction counts: the machine's time limit (machine/smp.h limit, the
 *     mechanism of --max-insns), set to the count;
 *   - breakpoints and watchpoints: while any is set the machine runs one
 *     instruction per limit and rIP (its linear address) is compared after
 *     each; a watchpoint fires after an instruction whose data access (read,
 *     write, or either) touched its range, as x86 data breakpoints do: the
 *     CPUs see the ranges as an observer's (emu/access_watch.h), whose pages
 *     take the slow path of every access.
 * The machine's time limit also bounds each run between two polls of the
 * debugger's connection, so an interrupt (Ctrl-C) is seen within
 * DEBUG_POLL_INSNS instructions of virtual time. */
#ifndef HVEMU_CLI_DEBUG_STOPS_H
#define HVEMU_CLI_DEBUG_STOPS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/access_watch.h"
#include "emu/exit_report.h"
#include "machine/machine.h"

#define DEBUG_MAX_CODES 64
#define DEBUG_MAX_POINTS 32
#define DEBUG_POLL_INSNS 100000    /* virtual time between two polls of the connection */
#define DEBUG_WATCH_MAX 8          /* bytes one watchpoint covers (gdb's kind: 1, 2, 4, 8) */

/* What --break asked for. */
struct debug_stops_config {
	uint64_t svm_codes[DEBUG_MAX_CODES];   /* SVM EXITCODEs (APM2 Appendix C) */
	unsigned n_svm;
	uint32_t vmx_reasons[DEBUG_MAX_CODES]; /* VMX basic exit reasons (SDM Vol.3 Appendix C) */
	unsigned n_vmx;
	uint64_t exceptions[4];    /* vectors 0-255, one bit each */
	uint64_t icount;           /* stop when the machine's time reaches it (0: none) */
	bool entry_fail;           /* every failed VM entry: SVM VMEXIT_INVALID, VMX VMfail and
				      entry-failure exits (emu/exit_report.h) */
};

/* Parse one --break argument into cfg: `vmexit=NAME|NUMBER[,...]`
 * (svm/exit_codes.c and vmx/exit_reasons.c names, any case; a number means
 * that code for either vendor), `exception=VECTOR` (0-255, or DE, DB, BP,
 * UD, GP, PF...), `icount=N`, `vmentry-fail`. False with a reason in err. */
bool debug_stops_parse(struct debug_stops_config *cfg, const char *arg, char *err, size_t errlen);

/* Whether anything is asked for. */
bool debug_stops_any(const struct debug_stops_config *cfg);

enum debug_stop_kind {
	STOP_NONE,
	STOP_STEP,                 /* the single step gdb asked for */
	STOP_BREAKPOINT,           /* an execution breakpoint (addr) */
	STOP_WATCH,                /* an access to a watched range (addr, watch_kinds) */
	STOP_VMEXIT,               /* a VM exit --break asked for (exit) */
	STOP_EXCEPTION,            /* an exception delivered (vector) */
	STOP_ICOUNT,               /* the machine's time reached the count */
	STOP_INTERRUPT,            /* the debugger interrupted the run */
	STOP_HISTORY_START,        /* going back reached the oldest point known (cli/reverse.h) */
};

struct debug_stop {
	enum debug_stop_kind kind;
	unsigned cpu;              /* index in m->smp.cpu of the CPU that stopped */
	uint64_t addr;             /* STOP_BREAKPOINT, STOP_WATCH */
	unsigned watch_kinds;      /* STOP_WATCH: what the watchpoint watches (ACCESS_WATCH_*) */
	unsigned access;           /* STOP_WATCH: the access that hit it (ACCESS_WATCH_READ/WRITE) */
	bool hardware;             /* STOP_BREAKPOINT: set as a hardware one (Z1) */
	struct vm_exit_report exit;   /* STOP_VMEXIT */
	bool exit_from_l2;
	uint8_t vector;            /* STOP_EXCEPTION */
	bool vector_in_l2;         /* delivered in the guest (L2) */
};

struct debug_point {
	uint64_t addr;
	unsigned len;
	bool hardware;             /* Z1 rather than Z0 (both are checked the same way) */
};

struct debugger {
	struct machine *m;
	struct debug_stops_config cfg;
	const struct vm_exit_observer *inner;  /* the CLI's observer, called first (or NULL) */
	struct vm_exit_observer observer;
	void (*inner_event)(struct cpu *, const struct event *, const char *);  /* --trace's */
	unsigned inner_trace;      /* the trace classes before the debugger added TRACE_EXC */
	struct debug_stop pending; /* a stop an observer found, taken at the next boundary */
	struct debug_point breaks[DEBUG_MAX_POINTS];
	unsigned n_breaks;
	struct access_watch watches;   /* the watchpoints, as every CPU sees them */
	uint64_t user_limit;       /* --max-insns (0: none) */
	/* VM exits so far (VMfail aside): world switches take no virtual time,
	 * so the time alone does not name a boundary near one (cli/reverse.h). */
	uint64_t exits;
	/* Replaying (cli/reverse.h): the CLI's observers and --trace hear
	 * nothing, and every VM exit ends the run at the next boundary. */
	bool replaying;
	const volatile sig_atomic_t *sig;  /* the run's signal flag (debugger_run's) */
	/* Called between two stretches of a run once the machine's time
	 * reaches checkpoint_due (which it moves on); NULL: none. */
	void (*checkpoint)(void *ctx);
	void *checkpoint_ctx;
	uint64_t checkpoint_due;
};

/* Install the observers on every CPU of m (after exit_watch_attach() and
 * the tracer, which they call on). */
void debugger_init(struct debugger *d, struct machine *m, const struct debug_stops_config *cfg);

/* Breakpoints and watchpoints; false when full or absent. */
bool debugger_add_break(struct debugger *d, uint64_t addr, bool hardware);
bool debugger_remove_break(struct debugger *d, uint64_t addr);
bool debugger_add_watch(struct debugger *d, uint64_t addr, unsigned len, unsigned kinds);
bool debugger_remove_watch(struct debugger *d, uint64_t addr, unsigned len, unsigned kinds);
void debugger_clear_points(struct debugger *d);

/* The connection's poll, called between stretches of the run: true to stop
 * the run (STOP_INTERRUPT). */
typedef bool debug_poll_fn(void *ctx);

/* Run until a stop (true, *why) or the end of the run (false, *end the
 * status that ended it, as machine_run() returns it). step: one instruction
 * of the CPU that runs. *sig: the run's signal flag (cli/run.c). */
bool debugger_run(struct debugger *d, bool step, debug_poll_fn *poll, void *poll_ctx,
		  const volatile sig_atomic_t *sig, struct debug_stop *why, status_t *end);

/* Replay (cli/reverse.h): run to the next boundary at which a replay looks
 * at the machine: the machine's time reaching limit, the boundary after a VM
 * exit, or with one_at_a_time after each instruction; nothing is reported.
 * True with *hit the stop a forward run would have made there (its kind
 * STOP_NONE: none; breakpoints and watchpoints only one_at_a_time), false
 * if the run ended (it cannot, short of a point the forward run reached). */
bool debugger_replay(struct debugger *d, uint64_t limit, bool one_at_a_time, struct debug_stop *hit);

/* Show the watchpoints to every CPU again (after a snapshot's restore,
 * which brings back the CPUs' state and TLBs as they were). */
void debugger_watch_refresh(struct debugger *d);

/* One line on out naming a stop: what, which CPU and world, the instruction
 * (bytes and disassembly) at CS:rIP, the time. */
void debug_stop_describe(struct debugger *d, const struct debug_stop *why, char *buf, size_t len);
void debug_stop_report(struct debugger *d, const struct debug_stop *why);

/* "L1 (host)", "L2 (SVM guest)", "L2 (VMX guest)" or "no hypervisor". */
const char *debug_world(const struct cpu *cpu);

#endif
