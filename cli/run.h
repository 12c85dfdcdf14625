/* `hvemu run` around the machine (machine/machine.h): what a person sees of
 * it (--display, --screenshot, --keys), where COM1's output goes (--serial
 * file:PATH), the VM-exit observers (--trace vmexit, --stats, --livelock),
 * the signals that stop a run, and the report and exit status of how it
 * ended. */
#ifndef HVEMU_CLI_RUN_H
#define HVEMU_CLI_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/debug_stops.h"
#include "cli/display.h"
#include "cli/gdbstub.h"
#include "cli/exit_watch.h"
#include "emu/symbols.h"
#include "cli/key_script.h"
#include "cli/snapshot_file.h"
#include "machine/machine.h"

#define RUN_MAX_KEYS 16
#define RUN_MAX_SYMBOL_FILES 16

/* --dump-pt: print the page tables of the final CR3 (mmu/paging_dump.h). */
enum { DUMP_PT_NEVER, DUMP_PT_SHUTDOWN, DUMP_PT_EXIT };

/* What `hvemu run` was asked for. */
struct run_config {
	struct machine_config machine;
	const char *hv_quirk;      /* the last --quirk of a hypervisor model, checked against --cpu */
	const char *serial_path;   /* --serial file:PATH: opened last, once everything else is ready */
	const char *debugcon_path; /* --debugcon file:PATH (machine.debugcon also set), opened likewise */
	bool debugcon_stderr;      /* --debugcon stderr */
	unsigned dump_pt;          /* DUMP_PT_*: when to print the page tables at the end */
	enum display_kind display; /* --display */
	const char *screenshot;    /* --screenshot PATH.png, or NULL */
	const char *keys[RUN_MAX_KEYS];   /* --keys TIME:KEYS (cli/key_script.h) */
	unsigned n_keys;
	struct exit_watch_config watch;  /* --trace vmexit, --trace-format, --stats, --livelock */
	const char *symbol_files[RUN_MAX_SYMBOL_FILES];   /* --symbols FILE (cli/symbol_files.h) */
	unsigned n_symbol_files;
	const char *gdb;           /* --gdb tcp::PORT|unix:PATH (cli/gdbstub.h), or NULL */
	bool gdb_wait;             /* --gdb-wait: stopped before the first instruction */
	struct debug_stops_config stops;   /* --break (cli/debug_stops.h) */
	uint64_t reverse_interval; /* --reverse-interval (cli/reverse.h), 0: none */
	/* --snapshot-at N FILE (cli/snapshot_file.h): the time, the file, and the
	 * option words the file records; 0: none. */
	uint64_t snapshot_at;
	const char *snapshot_path;
	char **snapshot_words;
	int n_snapshot_words;
	const struct snapshot_file *resume;   /* --resume FILE, read and checked, or NULL */
};

struct run {
	struct machine_config machine_cfg;   /* cfg->machine, with the livelock detector's hook */
	struct machine m;
	struct display display;    /* --display, --screenshot */
	struct key_script keys;    /* --keys */
	struct exit_watch watch;   /* VM exits: trace, statistics, livelock */
	FILE *serial_file;         /* the --serial file:PATH this run opened */
	FILE *debugcon_file;       /* the --debugcon file:PATH this run opened */
	const char *serial_path;   /* its PATH, for the report of a failed write */
	unsigned dump_pt;          /* DUMP_PT_* */
	struct symbols syms;       /* --symbols: named in reports and trace lines */
	bool debugging;            /* --gdb or --break: the run goes through dbg */
	struct debugger dbg;
	bool gdb_on;               /* --gdb: gdb serves the run */
	bool gdb_wait;
	struct gdbstub gdb;
	struct reverse rev;        /* gdb's reverse execution */
	uint64_t snapshot_at;      /* --snapshot-at: when, 0: done or none */
	struct machine_snapshot at_setup;  /* the machine as set up, for the file */
	const struct run_config *cfg;
};

/* Exit statuses (README "Exit status"): the guest's are odd, hvemu's even. */
enum {
	EXIT_USAGE = 2,            /* bad argument or file */
	EXIT_SHUTDOWN = 4,         /* triple fault */
	EXIT_INSN_LIMIT = 6,       /* --max-insns reached */
	EXIT_HALTED = 8,           /* HLT with nothing to wake the CPU */
	EXIT_EMULATOR = 10,        /* unsupported instruction or emulator error */
	EXIT_SIGNAL = 12,          /* stopped by SIGINT, SIGTERM, SIGHUP, SIGUSR2, or the window was closed */
	EXIT_RESET = 14,           /* --no-reboot: the guest reset the machine (0x92, 0xCF9, 8042) */
	EXIT_POWER_OFF = 16,       /* the guest powered off (port 0x8900 "Shutdown") */
	EXIT_LIVELOCK = 18,        /* the same VM exit N times in a row (--livelock) */
	EXIT_BREAK = 20,           /* a --break condition stopped the run (without --gdb) */
};

/* Check the configuration (the machine's rules, then an output that names an
 * input), parse the key scripts, build the machine and load its images, and
 * only then open the window and the serial output file. False with a
 * one-line reason in err (then call run_destroy()). */
bool run_setup(struct run *r, const struct run_config *cfg, char *err, size_t errlen);
void run_destroy(struct run *r);

/* Run until the machine stops; print a one-line summary to stderr unless the
 * guest ended the run through debug-exit, then the --stats summary; return
 * the exit status. SIGINT, SIGTERM, SIGHUP and SIGUSR2 stop the CPUs after
 * their current instruction (a second one kills); SIGUSR1 is ignored unless
 * --display text prints the screen on it. */
int run_machine(struct run *r);

#endif
