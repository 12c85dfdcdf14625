/* `hvemu run` around the machine; see cli/run.h. */
#include "cli/run.h"

#include "cli/symbol_files.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "emu/insn.h"
#include "emu/paging_env.h"
#include "machine/fail.h"
#include "mmu/paging_dump.h"

/* Refuse an output that is one of the inputs: opening it for writing would
 * truncate the file before it is read. Compared by device and inode, so other
 * spellings of a path and hard links are caught; an output that does not exist
 * yet cannot be an input. */
static bool output_clear(const struct machine_config *cfg, const char *option, const char *out, char *err,
			 size_t errlen)
{
	struct stat os, is;
	if (stat(out, &os) != 0)
		return true;
	const char *inputs[MACHINE_MAX_LOADS + 2];
	unsigned n = 0;
	if (cfg->kernel)
		inputs[n++] = cfg->kernel;
	if (cfg->bios)
		inputs[n++] = cfg->bios;
	for (unsigned i = 0; i < cfg->n_loads; i++)
		inputs[n++] = cfg->loads[i].path;
	for (unsigned i = 0; i < n; i++)
		if (stat(inputs[i], &is) == 0 && is.st_dev == os.st_dev && is.st_ino == os.st_ino)
			return fail(err, errlen, "%s%s is the input '%s'; writing it would destroy it",
				    option, out, inputs[i]);
	for (unsigned i = 0; i < cfg->n_modules; i++) {
		char *path = machine_module_file(cfg->modules[i]);
		bool same = path && stat(path, &is) == 0 && is.st_dev == os.st_dev && is.st_ino == os.st_ino;
		if (same)
			fail(err, errlen, "%s%s is the module '%s'; writing it would destroy it",
			     option, out, path);
		free(path);
		if (same)
			return false;
	}
	return true;
}

/* The canonical name of a path that may not exist yet: its folder resolved
 * (symbolic links, "..", other spellings) and its last component. False if
 * the folder cannot be resolved. */
static bool canonical_output(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	char dir[4096], real[4096];
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (!realpath(dir, real))
		return false;
	snprintf(out, len, "%s/%s", real, slash ? slash + 1 : path);
	return true;
}

/* Whether two output paths name one file: the same inode if both exist, else
 * the same canonical name (the second write would replace the first). */
static bool same_output(const char *a, const char *b)
{
	struct stat sa, sb;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	char ca[8192], cb[8192];
	if (!canonical_output(a, ca, sizeof(ca)) || !canonical_output(b, cb, sizeof(cb)))
		return !strcmp(a, b);
	return !strcmp(ca, cb);
}


/* The outputs against the inputs and each other: a file written at the end
 * must not destroy an input or the other output. */
static bool outputs_clear(const struct run_config *cfg, char *err, size_t errlen)
{
	const struct machine_config *mc = &cfg->machine;
	if (cfg->serial_path && !output_clear(mc, "--serial file:", cfg->serial_path, err, errlen))
		return false;
	if (cfg->serial_path && cfg->screenshot && same_output(cfg->serial_path, cfg->screenshot))
		return fail(err, errlen, "--serial file:%s and --screenshot %s are one file; the screenshot would "
			    "replace the serial log", cfg->serial_path, cfg->screenshot);
	if (cfg->debugcon_path && !output_clear(mc, "--debugcon file:", cfg->debugcon_path, err, errlen))
		return false;
	if (cfg->debugcon_path && ((cfg->serial_path && same_output(cfg->debugcon_path, cfg->serial_path)) ||
				   (cfg->screenshot && same_output(cfg->debugcon_path, cfg->screenshot))))
		return fail(err, errlen, "--debugcon file:%s is also another output", cfg->debugcon_path);
	if (cfg->screenshot && (!output_clear(mc, "--screenshot ", cfg->screenshot, err, errlen) ||
				!display_screenshot_writable(cfg->screenshot, err, errlen)))
		return false;
	return true;
}

static bool livelocked(const void *watch)
{
	return exit_watch_livelocked(watch);
}

bool run_setup(struct run *r, const struct run_config *cfg, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->dump_pt = cfg->dump_pt;
	exit_watch_init(&r->watch, &cfg->watch, stderr);
	r->machine_cfg = cfg->machine;
	r->machine_cfg.run_ended = livelocked;
	r->machine_cfg.run_ended_ctx = &r->watch;
	if (!machine_config_check(&r->machine_cfg, err, errlen) || !outputs_clear(cfg, err, errlen))
		return false;
	for (unsigned i = 0; i < cfg->n_keys; i++) {
		char why[256];
		if (!key_script_add(&r->keys, cfg->keys[i], why, sizeof(why)))
			return fail(err, errlen, "bad --keys: %s", why);
	}
	for (unsigned i = 0; i < cfg->n_symbol_files; i++) {
		char why[512];
		if (!symbol_file_load(&r->syms, cfg->symbol_files[i], why, sizeof(why)))
			return fail(err, errlen, "bad --symbols: %s", why);
	}
	symbols_finish(&r->syms);
	struct machine *m = &r->m;
	if (!machine_setup(m, &r->machine_cfg, err, errlen))
		return false;
	for (unsigned i = 0; i < m->smp.n; i++)
		exit_watch_attach(&r->watch, m->smp.cpu[i]);
	if (r->syms.n) {
		m->trace.syms = &r->syms;
		r->watch.trace.syms = &r->syms;
	}
	key_script_start(&r->keys, &m->clock, &m->boot.i8042);
	/* The debugger's observers go in front of the CLI's and the tracer's. */
	if (cfg->gdb || debug_stops_any(&cfg->stops)) {
		r->debugging = true;
		debugger_init(&r->dbg, m, &cfg->stops);
	}
	if (cfg->gdb) {
		if (!gdbstub_listen(&r->gdb, cfg->gdb, err, errlen))
			return false;
		r->gdb_on = true;
		r->gdb_wait = cfg->gdb_wait;
	}

	/* Outputs last: nothing is truncated unless the run is about to start
	 * (the window first: it may fail, and truncates nothing). */
	if (!display_open(&r->display, cfg->display, cfg->screenshot, &m->vga, &m->boot.i8042, &m->clock, &m->cpu,
			  err, errlen))
		return false;
	if (cfg->serial_path) {
		r->serial_file = fopen(cfg->serial_path, "w");
		if (!r->serial_file)
			return fail(err, errlen, "cannot open serial output '%s': %s", cfg->serial_path,
				    strerror(errno));
		m->uart.out = r->serial_file;
		r->serial_path = cfg->serial_path;
	}
	if (cfg->debugcon_path) {
		r->debugcon_file = fopen(cfg->debugcon_path, "w");
		if (!r->debugcon_file)
			return fail(err, errlen, "cannot open debugcon output '%s': %s", cfg->debugcon_path,
				    strerror(errno));
		m->debugcon.out = r->debugcon_file;
	} else if (cfg->debugcon_stderr) {
		m->debugcon.out = stderr;
	}
	/* --snapshot-at: the machine as set up, which the file's state is told
	 * apart from; --resume: the saved state in place of the set-up one. */
	r->cfg = cfg;
	if (cfg->snapshot_at) {
		if (!machine_snapshot_take(&r->at_setup, m, NULL))
			return fail(err, errlen, "out of memory for --snapshot-at");
		r->snapshot_at = cfg->snapshot_at;
		m->smp.resume = true;
	}
	if (cfg->resume) {
		if (!snapshot_file_apply(cfg->resume, m, err, errlen))
			return false;
		m->smp.limit = cfg->machine.max_insns;
		if (m->smp.n == 1)
			m->cpu.icount_limit = cfg->machine.max_insns;
	}
	/* With the key script and the window's timers armed: their state goes
	 * with every snapshot. */
	if (r->gdb_on) {
		reverse_init(&r->rev, &r->dbg, cfg->reverse_interval);
		reverse_add_extra(&r->rev, &r->keys, sizeof(r->keys));
		reverse_add_extra(&r->rev, &r->display.frame, sizeof(r->display.frame));
		r->gdb.rev = &r->rev;
	}
	return true;
}

void run_destroy(struct run *r)
{
	if (r->gdb_on)
		gdbstub_finish(&r->gdb, EXIT_EMULATOR);
	r->gdb_on = false;
	reverse_destroy(&r->rev);
	machine_snapshot_free(&r->at_setup);
	/* The window and the key timers first: cancelling a timer tells the CPU. */
	display_close(&r->display);
	key_script_free(&r->keys);
	machine_destroy(&r->m);
	exit_watch_destroy(&r->watch);
	symbols_destroy(&r->syms);
	if (r->serial_file)
		fclose(r->serial_file);
	r->serial_file = NULL;
	if (r->debugcon_file)
		fclose(r->debugcon_file);
	r->debugcon_file = NULL;
}

static void report(struct machine *m, const char *what, uint64_t ip)
{
	struct cpu *cpu = smp_current(m);
	char sym[256];
	fprintf(stderr, "hvemu: %s at %04x:%08llx", what, cpu->seg[SR_CS].selector, (unsigned long long)ip);
	if (symbols_lookup(m->trace.syms, ip, sym, sizeof(sym)))
		fprintf(stderr, " <%s>", sym);
	fprintf(stderr, " after %llu instructions", (unsigned long long)cpu->icount);
	if (m->smp.n > 1)
		fprintf(stderr, " (CPU %u)", cpu->apic_id);
	if (m->post.written)
		fprintf(stderr, " (last POST code 0x%02x)", m->post.last);
	fputc('\n', stderr);
}

/* --- SIGINT, SIGTERM, SIGHUP, SIGUSR2 (and SIGUSR1 without --display text) --- */

/* The signals that stop the run as Ctrl-C does: where the CPU was is reported
 * and the serial output flushed, where their default action would kill hvemu
 * with the guest's last unterminated line still in its buffer. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR2 };
#define N_STOP_SIGNALS (sizeof(stop_signals) / sizeof(stop_signals[0]))

/* The machine whose CPUs the handler stops, and the signal that stopped it.
 * The handler only stores: the signal number, and the stop requests (atomic
 * ORs into the attention words the run loop checks after every instruction). */
static _Atomic(struct machine *) signal_machine;
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
	struct machine *m = atomic_load(&signal_machine);
	if (m)
		for (unsigned i = 0; i < m->smp.n; i++)
			cpu_request_stop(m->smp.cpu[i]);
}

/* The previous actions, restored after the run; [N_STOP_SIGNALS] is SIGUSR1's. */
struct saved_signals {
	struct sigaction old[N_STOP_SIGNALS + 1];
	bool usr1;                 /* SIGUSR1 was set to be ignored */
};

/* Install the handlers for one run. SA_RESETHAND: a second signal finds the
 * default action and kills at once, for a run that does not stop. SIGUSR1
 * prints the screen with --display text (cli/display.c catches it); without,
 * it has no use and is ignored rather than killing the run. */
static void catch_stop_signals(struct run *r, struct saved_signals *saved)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sa.sa_flags = SA_RESETHAND | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	stop_signal = 0;
	atomic_store(&signal_machine, &r->m);
	for (unsigned i = 0; i < N_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &sa, &saved->old[i]);
	saved->usr1 = r->display.kind != DISPLAY_TEXT;
	if (saved->usr1) {
		struct sigaction ign;
		memset(&ign, 0, sizeof(ign));
		ign.sa_handler = SIG_IGN;
		sigemptyset(&ign.sa_mask);
		sigaction(SIGUSR1, &ign, &saved->old[N_STOP_SIGNALS]);
	}
}

static void release_stop_signals(const struct saved_signals *saved)
{
	for (unsigned i = 0; i < N_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &saved->old[i], NULL);
	if (saved->usr1)
		sigaction(SIGUSR1, &saved->old[N_STOP_SIGNALS], NULL);
	atomic_store(&signal_machine, NULL);
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	case SIGUSR2: return "SIGUSR2";
	default: return "a signal";
	}
}

/* Where a signal stopped the run: the next instruction, the count, POST. */
static void report_signal(struct machine *m, int sig)
{
	struct cpu *cpu = smp_current(m);
	fprintf(stderr, "hvemu: stopped by %s after %llu instructions, ", signal_name(sig),
		(unsigned long long)cpu->icount);
	if (m->post.written)
		fprintf(stderr, "last POST code 0x%02x, ", m->post.last);
	else
		fputs("no POST code written, ", stderr);
	fputs("next instruction at ", stderr);
	trace_print_site(&m->trace, cpu, cpu->rip);
}

/* isa-debug-exit: the status is (V<<1)|1, but the OS keeps its low 8 bits, so
 * for V >= 128 the shell sees another value (V = 128 gives 1, a "pass"). */
static int debug_exit_result(const struct debug_exit *d)
{
	uint32_t v = d->value;
	int status = debug_exit_status(d);
	if (v >= 128)
		fprintf(stderr, "hvemu: warning: the guest wrote %u (0x%02x) to isa-debug-exit; the status "
			"(V<<1)|1 = %llu does not fit in 8 bits, so the exit status will be %d, which reads as V = %d%s\n",
			v, v, ((unsigned long long)v << 1) | 1, status, status >> 1,
			status == 1 ? " (a pass)" : "");
	return status;
}

/* Why cpu_run() returned st: the report on stderr and the exit status. */
static int run_status(struct run *r, status_t st)
{
	struct machine *m = &r->m;
	struct cpu *cpu = smp_current(m);    /* the CPU that ended the run */
	switch (st) {
	case ST_STOP:
		if (r->gdb_on && r->gdb.killed) {
			report(m, "killed by gdb", cpu->rip);
			return EXIT_SIGNAL;
		}
		if (m->dexit.exited)
			return debug_exit_result(&m->dexit);
		if (exit_watch_livelocked(&r->watch)) {
			exit_watch_report_livelock(&r->watch);
			return EXIT_LIVELOCK;
		}
		if (m->reboot_failed)
			return EXIT_EMULATOR;
		if (m->boot.requested.what) {
			char what[160];
			bool reset = m->boot.requested.what == POWER_RESET;
			snprintf(what, sizeof(what), "%s requested through %s", reset ? "reset" : "power-off",
				 m->boot.requested.source);
			report(m, what, cpu->rip);
			return reset ? EXIT_RESET : EXIT_POWER_OFF;
		}
		if (r->display.closed) {
			report(m, "stopped: the display window was closed", cpu->rip);
			return EXIT_SIGNAL;
		}
		if (stop_signal) {
			report_signal(m, stop_signal);
			return EXIT_SIGNAL;
		}
		if (m->smp.limit && cpu->icount >= m->smp.limit) {
			report(m, "instruction limit reached", cpu->rip);
			return EXIT_INSN_LIMIT;
		}
		report(m, "stopped for no known reason", cpu->rip);
		return EXIT_EMULATOR;
	case ST_SHUTDOWN:
		report(m, "triple fault (shutdown)", cpu->insn_start);
		trace_print_fault_chain(&m->trace, cpu);
		return EXIT_SHUTDOWN;
	case ST_HALT:
		report(m, (cpu_get_flags(cpu) & FLAG_IF) ? "HLT with no interrupt source"
							 : "HLT with interrupts disabled", cpu->rip);
		return EXIT_HALTED;
	case ST_UNSUPPORTED:
		if (m->trace.note)
			fprintf(stderr, "hvemu: unsupported: %s, after %llu instructions at ",
				m->trace.note, (unsigned long long)cpu->icount);
		else
			fprintf(stderr, "hvemu: unsupported instruction after %llu instructions at ",
				(unsigned long long)cpu->icount);
		trace_print_site(&m->trace, cpu, cpu->insn_start);
		return EXIT_EMULATOR;
	default:
		report(m, "unexpected VM exit with no hypervisor model", cpu->rip);
		return EXIT_EMULATOR;
	}
}

/* The run with --snapshot-at N: to N (or its end before), the file
 * written, then on to the end as if it had not stopped (machine/smp.c). */
static status_t run_to_snapshot(struct run *r, bool *failed)
{
	struct machine *m = &r->m;
	uint64_t max = r->cfg->machine.max_insns;
	uint64_t at = max && max < r->snapshot_at ? max : r->snapshot_at;
	m->smp.limit = at;
	m->cpu.icount_limit = at;
	status_t st = machine_run(m, &stop_signal);
	m->smp.limit = max;
	m->cpu.icount_limit = max;
	bool at_n = st == ST_STOP && m->cpu.icount >= r->snapshot_at && !stop_signal && !m->dexit.exited &&
		    !m->boot.requested.what && !m->reboot_failed && !exit_watch_livelocked(&r->watch);
	if (!at_n) {
		fprintf(stderr, "hvemu: the run ended before --snapshot-at %llu: nothing written\n",
			(unsigned long long)r->snapshot_at);
		return st;
	}
	struct machine_snapshot now;
	char err[512];
	bool ok = machine_snapshot_take(&now, m, &r->at_setup);
	if (!ok)
		snprintf(err, sizeof(err), "out of memory for --snapshot-at");
	else
		ok = snapshot_file_write(r->cfg->snapshot_path, r->cfg->snapshot_words, r->cfg->n_snapshot_words, m,
					 &r->at_setup, &now, err, sizeof(err));
	machine_snapshot_free(&now);
	if (!ok) {
		fprintf(stderr, "hvemu: %s\n", err);
		*failed = true;
		return ST_STOP;
	}
	return machine_run(m, &stop_signal);
}

int run_machine(struct run *r)
{
	struct machine *m = &r->m;
	struct saved_signals saved;
	catch_stop_signals(r, &saved);
	status_t st = ST_STOP;
	struct debug_stop why;
	bool broke = false, snapshot_failed = false;
	if (r->gdb_on)
		st = gdbstub_serve(&r->gdb, &r->dbg, r->gdb_wait, &stop_signal);
	else if (r->debugging)
		broke = debugger_run(&r->dbg, false, NULL, NULL, &stop_signal, &why, &st);
	else if (r->snapshot_at)
		st = run_to_snapshot(r, &snapshot_failed);
	else
		st = machine_run(m, &stop_signal);
	release_stop_signals(&saved);
	if (snapshot_failed) {
		display_finish(&r->display);
		return EXIT_USAGE;
	}
	if (m->reboot_failed)
		fprintf(stderr, "hvemu: error: cannot restart after the guest's reset: %s\n", m->reboot_error);
	struct cpu *cpu = smp_current(m);    /* the CPU that ended the run */
	bool serial_lost = false;
	int serial_errno = 0;
	if (m->uart.out) {
		errno = 0;
		serial_lost = fflush(m->uart.out) != 0 || ferror(m->uart.out);
		serial_errno = errno;
	}
	if (r->dump_pt == DUMP_PT_EXIT || (r->dump_pt == DUMP_PT_SHUTDOWN && st == ST_SHUTDOWN)) {
		struct paging_env env = cpu_paging_env(cpu);
		paging_dump(&env, stderr);
	}
	display_finish(&r->display);
	int status;
	if (broke) {
		debug_stop_report(&r->dbg, &why);
		status = EXIT_BREAK;
	} else {
		status = run_status(r, st);
	}
	if (r->gdb_on)
		gdbstub_finish(&r->gdb, status);
	r->gdb_on = false;
	exit_watch_report_stats(&r->watch, cpu_now(cpu));
	if (m->cfg->perturb_exits) {
		uint64_t n = 0, spurious = 0;
		for (unsigned i = 0; i < m->smp.n; i++) {
			n += hv_perturbed_exits(&m->hv[i]);
			spurious += m->smp.cpu[i]->spurious_intr_exits;
		}
		fprintf(stderr,
			"hvemu: perturb-exits: seed %llu, %llu VM exits with undefined fields randomised, "
			"%llu spurious interrupt exits\n",
			(unsigned long long)m->cfg->perturb_seed, (unsigned long long)n, (unsigned long long)spurious);
	}
	/* The guest's log is the run's result as much as its status. */
	if (!serial_lost)
		return status;
	fprintf(stderr, "hvemu: error: serial output to %s was lost: %s\n", r->serial_path ? r->serial_path : "stdout",
		serial_errno ? strerror(serial_errno) : "a write failed");
	return EXIT_EMULATOR;
}
