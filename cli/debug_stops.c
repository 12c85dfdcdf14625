/* Stopping the machine where a debugger wants it; see cli/debug_stops.h. */
#include "cli/debug_stops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/gdb_target.h"
#include "emu/trace.h"
#include "svm/exit_codes.h"
#include "vmx/exit_reasons.h"

/* SDM Vol.3 6.3.1 Table 6-1 mnemonics, for exception=NAME. */
static const char *const vector_names[32] = {
	"DE", "DB", "NMI", "BP", "OF", "BR", "UD", "NM", "DF", NULL, "TS", "NP", "SS", "GP",
	"PF", NULL, "MF", "AC", "MC", "XM", "VE", "CP",
};

static bool fail_msg(char *err, size_t errlen, const char *fmt, const char *arg)
{
	snprintf(err, errlen, fmt, arg);
	return false;
}

static bool parse_number(const char *s, uint64_t *v)
{
	char *end;
	if (!*s || *s == '-')
		return false;
	*v = strtoull(s, &end, 0);
	return *end == 0;
}

/* One CODE of vmexit=: a name of either vendor's table, or a number for both. */
static bool add_exit_code(struct debug_stops_config *cfg, const char *code, char *err, size_t errlen)
{
	uint64_t v;
	bool found = false;
	if (cfg->n_svm == DEBUG_MAX_CODES || cfg->n_vmx == DEBUG_MAX_CODES)
		return fail_msg(err, errlen, "too many vmexit codes (at %s)", code);
	if (parse_number(code, &v)) {
		cfg->svm_codes[cfg->n_svm++] = v;
		if (v <= VMX_EXIT_BASIC_MASK)
			cfg->vmx_reasons[cfg->n_vmx++] = (uint32_t)v;
		return true;
	}
	size_t n;
	const struct svm_exit_info *s = svm_exit_table(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(s[i].name, code) ||
		    (!strncasecmp(code, "vmexit_", 7) && !strcasecmp(s[i].name, code + 7))) {
			cfg->svm_codes[cfg->n_svm++] = s[i].code;
			found = true;
			break;
		}
	const struct vmx_exit_info *x = vmx_exit_table(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(x[i].name, code)) {
			cfg->vmx_reasons[cfg->n_vmx++] = x[i].reason;
			found = true;
			break;
		}
	if (!found)
		return fail_msg(err, errlen, "unknown VM exit '%s' (an SVM exit code or VMX exit reason, by name "
				"as --trace vmexit prints it, or by number)", code);
	return true;
}

bool debug_stops_parse(struct debug_stops_config *cfg, const char *arg, char *err, size_t errlen)
{
	uint64_t v;
	if (!strncmp(arg, "vmexit=", 7)) {
		char list[512];
		if (strlen(arg + 7) >= sizeof(list) || !arg[7])
			return fail_msg(err, errlen, "bad --break '%s' (vmexit=CODE[,CODE...])", arg);
		strcpy(list, arg + 7);
		for (char *save, *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save))
			if (!add_exit_code(cfg, c, err, errlen))
				return false;
		return true;
	}
	if (!strncmp(arg, "exception=", 10)) {
		const char *name = arg + 10;
		if (*name == '#')
			name++;
		for (unsigned i = 0; i < 32; i++)
			if (vector_names[i] && !strcasecmp(vector_names[i], name)) {
				cfg->exceptions[0] |= 1ull << i;
				return true;
			}
		if (!parse_number(name, &v) || v > 255)
			return fail_msg(err, errlen, "bad --break '%s' (exception=VECTOR: 0-255 or a mnemonic such as PF, GP, UD)",
					arg);
		cfg->exceptions[v / 64] |= 1ull << (v % 64);
		return true;
	}
	if (!strncmp(arg, "icount=", 7)) {
		if (!parse_number(arg + 7, &v) || v == 0)
			return fail_msg(err, errlen, "bad --break '%s' (icount=N, N >= 1 instructions)", arg);
		cfg->icount = v;
		return true;
	}
	if (!strcmp(arg, "vmentry-fail")) {
		cfg->entry_fail = true;
		return true;
	}
	return fail_msg(err, errlen, "bad --break '%s' (vmexit=CODE[,CODE...], exception=VECTOR, icount=N or vmentry-fail)",
			arg);
}

bool debug_stops_any(const struct debug_stops_config *cfg)
{
	return cfg->n_svm || cfg->n_vmx || cfg->icount || cfg->entry_fail ||
	       (cfg->exceptions[0] | cfg->exceptions[1] | cfg->exceptions[2] | cfg->exceptions[3]);
}

static unsigned cpu_index(const struct machine *m, const struct cpu *cpu)
{
	for (unsigned i = 0; i < m->smp.n; i++)
		if (m->smp.cpu[i] == cpu)
			return i;
	return 0;
}

static bool exit_wanted(const struct debug_stops_config *cfg, const struct vm_exit_report *r)
{
	/* APM2 15.5.1: a failed consistency check is #VMEXIT(INVALID); SDM Vol.3
	 * 26.1-26.2, 30.4: VMfailValid/VMfailInvalid; 26.8: an exit with reason
	 * bit 31 set. */
	if (cfg->entry_fail && r->kind != EXIT_REPORT_VMEXIT)
		return true;
	if (r->vendor == HV_EXT_SVM) {
		for (unsigned i = 0; i < cfg->n_svm; i++)
			if (cfg->svm_codes[i] == r->code)
				return true;
		return false;
	}
	/* VMX: the basic reason, whatever bit 31 (entry failure) says (SDM Vol.3
	 * 24.9.1 Table 24-15). VMfail has no exit reason. */
	if (r->kind == EXIT_REPORT_VMFAIL_VALID || r->kind == EXIT_REPORT_VMFAIL_INVALID)
		return false;
	for (unsigned i = 0; i < cfg->n_vmx; i++)
		if (cfg->vmx_reasons[i] == (r->code & VMX_EXIT_BASIC_MASK))
			return true;
	return false;
}

/* The exit observer: the CLI's first (trace, statistics, livelock), then
 * the stop, which the run loop takes at the next boundary. */
static void on_vm_exit(void *ctx, struct cpu *cpu, const struct vm_exit_report *r)
{
	struct debugger *d = ctx;
	if (d->inner && !d->replaying)
		d->inner->exit(d->inner->ctx, cpu, r);
	if (r->kind != EXIT_REPORT_VMFAIL_VALID && r->kind != EXIT_REPORT_VMFAIL_INVALID)
		d->exits++;
	if (d->pending.kind == STOP_NONE && exit_wanted(&d->cfg, r)) {
		d->pending = (struct debug_stop){ .kind = STOP_VMEXIT, .cpu = cpu_index(d->m, cpu), .exit = *r };
		cpu_request_stop(cpu);
	} else if (d->replaying) {
		cpu_request_stop(cpu);
	}
}

/* Every delivery the tracer would see (emu/exception.c calls it with
 * TRACE_EXC set, which the debugger adds); --trace's own callback is called
 * as it would have been without the debugger. */
static void on_event(struct cpu *cpu, const struct event *ev, const char *what)
{
	struct debugger *d = cpu->exit_observer->ctx;
	if (d->inner_event && !d->replaying && ((d->inner_trace & TRACE_EXC) || ev->type != EV_EXCEPTION))
		d->inner_event(cpu, ev, what);
	bool exception = ev->type == EV_EXCEPTION || ev->type == EV_SOFTEXC;
	if (exception && d->pending.kind == STOP_NONE && (d->cfg.exceptions[ev->vector / 64] >> (ev->vector % 64) & 1)) {
		d->pending = (struct debug_stop){ .kind = STOP_EXCEPTION, .cpu = cpu_index(d->m, cpu),
						  .vector = ev->vector, .vector_in_l2 = cpu->in_guest };
		cpu_request_stop(cpu);
	}
}

static const volatile sig_atomic_t no_signal;

void debugger_init(struct debugger *d, struct machine *m, const struct debug_stops_config *cfg)
{
	memset(d, 0, sizeof(*d));
	d->m = m;
	d->sig = &no_signal;
	d->cfg = *cfg;
	d->user_limit = m->smp.limit;
	/* Each stop ends a turn early; the next run goes on with it. */
	m->smp.resume = true;
	d->inner = m->cpu.exit_observer;
	d->observer = (struct vm_exit_observer){ .exit = on_vm_exit, .ctx = d,
						 .want_insn = d->inner && d->inner->want_insn };
	d->inner_event = m->cpu.trace_event;
	d->inner_trace = m->cpu.trace;
	bool exceptions = cfg->exceptions[0] | cfg->exceptions[1] | cfg->exceptions[2] | cfg->exceptions[3];
	for (unsigned i = 0; i < m->smp.n; i++) {
		struct cpu *c = m->smp.cpu[i];
		c->exit_observer = &d->observer;
		if (exceptions) {
			c->trace_event = on_event;
			c->trace |= TRACE_EXC;
		}
	}
}

static int find_point(const struct debug_point *p, unsigned n, uint64_t addr, unsigned len)
{
	for (unsigned i = 0; i < n; i++)
		if (p[i].addr == addr && (!len || p[i].len == len))
			return (int)i;
	return -1;
}

bool debugger_add_break(struct debugger *d, uint64_t addr, bool hardware)
{
	if (find_point(d->breaks, d->n_breaks, addr, 0) >= 0)
		return true;
	if (d->n_breaks == DEBUG_MAX_POINTS)
		return false;
	d->breaks[d->n_breaks++] = (struct debug_point){ .addr = addr, .len = 1, .hardware = hardware };
	return true;
}

bool debugger_remove_break(struct debugger *d, uint64_t addr)
{
	int i = find_point(d->breaks, d->n_breaks, addr, 0);
	if (i < 0)
		return false;
	d->breaks[i] = d->breaks[--d->n_breaks];
	return true;
}

/* Every CPU sees the set as it is now. */
static void watch_attach(struct debugger *d)
{
	for (unsigned i = 0; i < d->m->smp.n; i++)
		access_watch_attach(d->m->smp.cpu[i], &d->watches);
}

static int find_watch(const struct access_watch *w, uint64_t addr, unsigned len, unsigned kinds)
{
	for (unsigned i = 0; i < w->n; i++)
		if (w->range[i].lin == addr && w->range[i].len == len && w->range[i].kinds == kinds)
			return (int)i;
	return -1;
}

bool debugger_add_watch(struct debugger *d, uint64_t addr, unsigned len, unsigned kinds)
{
	struct access_watch *w = &d->watches;
	if (len == 0 || len > DEBUG_WATCH_MAX || !kinds || (kinds & ~(ACCESS_WATCH_READ | ACCESS_WATCH_WRITE)))
		return false;
	if (find_watch(w, addr, len, kinds) >= 0)
		return true;
	if (w->n == DEBUG_MAX_POINTS || w->n == ACCESS_WATCH_MAX)
		return false;
	w->range[w->n++] = (struct access_watch_range){ .lin = addr, .len = len, .kinds = kinds };
	watch_attach(d);
	return true;
}

bool debugger_remove_watch(struct debugger *d, uint64_t addr, unsigned len, unsigned kinds)
{
	struct access_watch *w = &d->watches;
	int i = find_watch(w, addr, len, kinds);
	if (i < 0)
		return false;
	w->range[i] = w->range[--w->n];
	watch_attach(d);
	return true;
}

void debugger_clear_points(struct debugger *d)
{
	d->n_breaks = 0;
	d->watches.n = 0;
	watch_attach(d);
}

static uint64_t linear_ip(const struct cpu *cpu)
{
	if (cpu_is_mode64(cpu))
		return cpu->rip;
	return (uint32_t)(cpu->seg[SR_CS].base + cpu->rip);
}

static void set_limit(struct machine *m, uint64_t limit)
{
	m->smp.limit = limit;
	/* One CPU runs by its own limit (machine/smp.c); with more, the
	 * schedule sets each turn's from the machine's. */
	if (m->smp.n == 1)
		m->cpu.icount_limit = limit;
}

/* After a stretch that ended at its limit: the breakpoint or watchpoint
 * stop a forward run makes here (kind STOP_NONE: none). */
static struct debug_stop point_stop(struct debugger *d, struct cpu *cpu, uint64_t ip_before)
{
	unsigned ci = cpu_index(d->m, cpu);
	struct access_watch *w = &d->watches;
	if (w->hit) {
		w->hit = false;
		const struct access_watch_range *r = &w->range[w->hit_range];
		return (struct debug_stop){ .kind = STOP_WATCH, .cpu = ci, .addr = r->lin, .watch_kinds = r->kinds,
					    .access = w->hit_kind };
	}
	/* A REP string instruction runs an iteration per step with rIP
	 * unchanged: its breakpoint was taken before the first. */
	uint64_t ip = linear_ip(cpu);
	int b = ip != ip_before ? find_point(d->breaks, d->n_breaks, ip, 0) : -1;
	if (b >= 0)
		return (struct debug_stop){ .kind = STOP_BREAKPOINT, .cpu = ci, .addr = ip,
					    .hardware = d->breaks[b].hardware };
	return (struct debug_stop){ .kind = STOP_NONE };
}

/* Whether a stretch that returned st stopped at its limit (or a requested
 * stop), rather than because the run ended. */
static bool run_goes_on(struct debugger *d, status_t st)
{
	struct machine *m = d->m;
	return st == ST_STOP && !*(d->sig) && !m->dexit.exited && !m->boot.requested.what && !m->reboot_failed &&
	       !(m->cfg->run_ended && m->cfg->run_ended(m->cfg->run_ended_ctx));
}

bool debugger_run(struct debugger *d, bool step, debug_poll_fn *poll, void *poll_ctx,
		  const volatile sig_atomic_t *sig, struct debug_stop *why, status_t *end)
{
	struct machine *m = d->m;
	bool one_at_a_time = step || d->n_breaks || d->watches.n;
	uint64_t since_poll = 0;
	d->sig = sig;
	d->pending.kind = STOP_NONE;
	for (;;) {
		struct cpu *cpu = smp_current(m);
		d->watches.hit = false;
		uint64_t now = cpu->icount, ip_before = linear_ip(cpu);
		if (d->checkpoint && now >= d->checkpoint_due)
			d->checkpoint(d->checkpoint_ctx);
		uint64_t limit = now + (one_at_a_time ? 1 : DEBUG_POLL_INSNS);
		if (d->cfg.icount > now && d->cfg.icount < limit)
			limit = d->cfg.icount;
		if (d->checkpoint && d->checkpoint_due > now && d->checkpoint_due < limit)
			limit = d->checkpoint_due;
		if (d->user_limit && d->user_limit < limit)
			limit = d->user_limit;
		set_limit(m, limit);
		status_t st = machine_run(m, sig);
		cpu = smp_current(m);
		/* A stop an observer asked for, unless the machine ended first
		 * (a delivery that went on to a triple fault): the end wins. */
		if (d->pending.kind != STOP_NONE && st == ST_STOP) {
			*why = d->pending;
			d->pending.kind = STOP_NONE;
			return true;
		}
		bool at_limit = run_goes_on(d, st) && cpu->icount >= limit;
		if (!at_limit || (d->user_limit && cpu->icount >= d->user_limit)) {
			set_limit(m, d->user_limit);
			*end = st;
			return false;
		}
		unsigned ci = cpu_index(m, cpu);
		if (d->cfg.icount && cpu->icount >= d->cfg.icount) {
			d->cfg.icount = 0;     /* once */
			*why = (struct debug_stop){ .kind = STOP_ICOUNT, .cpu = ci };
			return true;
		}
		struct debug_stop hit = point_stop(d, cpu, ip_before);
		if (hit.kind != STOP_NONE) {
			*why = hit;
			return true;
		}
		if (step) {
			*why = (struct debug_stop){ .kind = STOP_STEP, .cpu = ci };
			return true;
		}
		since_poll += cpu->icount - now;
		if (since_poll >= DEBUG_POLL_INSNS || !one_at_a_time) {
			since_poll = 0;
			if (poll && poll(poll_ctx)) {
				*why = (struct debug_stop){ .kind = STOP_INTERRUPT, .cpu = ci };
				return true;
			}
		}
	}
}

void debugger_watch_refresh(struct debugger *d)
{
	d->watches.hit = false;
	watch_attach(d);
}

bool debugger_replay(struct debugger *d, uint64_t limit, bool one_at_a_time, struct debug_stop *hit)
{
	struct machine *m = d->m;
	struct cpu *cpu = smp_current(m);
	uint64_t ip_before = linear_ip(cpu);
	if (one_at_a_time && cpu->icount + 1 < limit)
		limit = cpu->icount + 1;
	d->pending.kind = STOP_NONE;
	d->watches.hit = false;
	d->replaying = true;
	set_limit(m, limit);
	status_t st = machine_run(m, d->sig);
	d->replaying = false;
	set_limit(m, d->user_limit);
	*hit = d->pending;
	d->pending.kind = STOP_NONE;
	if (!run_goes_on(d, st))
		return false;
	if (hit->kind == STOP_NONE && one_at_a_time && smp_current(m)->icount >= limit)
		*hit = point_stop(d, smp_current(m), ip_before);
	return true;
}

const char *debug_world(const struct cpu *cpu)
{
	if (!cpu->hv)
		return "no hypervisor";
	if (!cpu->in_guest)
		return "L1 (host)";
	return cpu->model->hv_ext == HV_EXT_SVM ? "L2 (SVM guest)" : "L2 (VMX guest)";
}

void debug_stop_describe(struct debugger *d, const struct debug_stop *why, char *buf, size_t len)
{
	struct cpu *cpu = d->m->smp.cpu[why->cpu];
	switch (why->kind) {
	case STOP_VMEXIT: {
		const struct vm_exit_report *r = &why->exit;
		char what[96];
		if (r->kind == EXIT_REPORT_VMFAIL_VALID)
			snprintf(what, sizeof(what), "failed entry: VMfailValid, VM-instruction error %llu",
				 (unsigned long long)r->code);
		else if (r->kind == EXIT_REPORT_VMFAIL_INVALID)
			snprintf(what, sizeof(what), "failed entry: VMfailInvalid");
		else
			snprintf(what, sizeof(what), "%s%s (0x%llx)",
				 r->kind == EXIT_REPORT_VMEXIT ? "exit " : "failed entry: exit ",
				 r->name ? r->name : "unknown", (unsigned long long)r->code);
		snprintf(buf, len, "%s %s of the guest at %04x:%llx", hv_ext_name(r->vendor), what, r->cs,
			 (unsigned long long)r->rip);
		break;
	}
	case STOP_EXCEPTION:
		snprintf(buf, len, "exception %u%s%s being delivered in %s", why->vector,
			 why->vector < 32 && vector_names[why->vector] ? " #" : "",
			 why->vector < 32 && vector_names[why->vector] ? vector_names[why->vector] : "",
			 why->vector_in_l2 ? "L2" : "L1");
		break;
	case STOP_ICOUNT:
		snprintf(buf, len, "instruction count %llu reached", (unsigned long long)cpu->icount);
		break;
	case STOP_BREAKPOINT:
		snprintf(buf, len, "breakpoint at 0x%llx", (unsigned long long)why->addr);
		break;
	case STOP_WATCH:
		snprintf(buf, len, "watchpoint at 0x%llx %s", (unsigned long long)why->addr,
			 why->access == ACCESS_WATCH_WRITE ? "written" : "read");
		break;
	case STOP_STEP:
		snprintf(buf, len, "single step");
		break;
	case STOP_INTERRUPT:
		snprintf(buf, len, "interrupted");
		break;
	case STOP_HISTORY_START:
		snprintf(buf, len, "the start of the reverse-execution history");
		break;
	case STOP_NONE:
		snprintf(buf, len, "no stop");
		break;
	}
}

void debug_stop_report(struct debugger *d, const struct debug_stop *why)
{
	struct machine *m = d->m;
	struct cpu *cpu = m->smp.cpu[why->cpu];
	char what[256];
	debug_stop_describe(d, why, what, sizeof(what));
	fprintf(stderr, "hvemu: break: %s; CPU %u in %s after %llu instructions, next instruction at ", what, why->cpu,
		debug_world(cpu), (unsigned long long)cpu->icount);
	trace_print_site(&m->trace, cpu, cpu->rip);
	fflush(stderr);
}
