/* The CLI's VM-exit observer; see cli/exit_watch.h. */
#include "cli/exit_watch.h"

void exit_watch_init(struct exit_watch *w, const struct exit_watch_config *cfg, FILE *out)
{
	w->cfg = *cfg;
	w->exits = 0;
	exit_trace_init(&w->trace, out, cfg->json);
	exit_stats_init(&w->stats);
	livelock_init(&w->livelock, cfg->livelock);
	/* The trace and a livelock report show the instruction; counting alone
	 * spares the model its guest code read. */
	w->observer = (struct vm_exit_observer){ .exit = exit_watch_exit, .ctx = w,
						 .want_insn = cfg->trace || cfg->livelock };
}

void exit_watch_destroy(struct exit_watch *w)
{
	exit_trace_destroy(&w->trace);
}

void exit_watch_attach(struct exit_watch *w, struct cpu *cpu)
{
	bool any = w->cfg.trace || w->cfg.stats || w->cfg.livelock;
	cpu->exit_observer = any ? &w->observer : NULL;
}

void exit_watch_exit(void *ctx, struct cpu *cpu, const struct vm_exit_report *r)
{
	struct exit_watch *w = ctx;
	uint64_t n = ++w->exits;
	if (w->cfg.trace)
		exit_trace_print(&w->trace, n, r);
	if (w->cfg.stats)
		exit_stats_add(&w->stats, r, cpu->apic_id);
	if (livelock_observe(&w->livelock, n, r))
		cpu_request_stop(cpu);
}

bool exit_watch_livelocked(const struct exit_watch *w)
{
	return w->livelock.fired;
}

void exit_watch_report_livelock(struct exit_watch *w)
{
	const struct livelock *l = &w->livelock;
	const struct vm_exit_report *r = &l->exit;
	FILE *out = w->trace.out;
	fprintf(out, "hvemu: livelock: %s exit %s (0x%llx) at %04x:%0*llx repeated %llu times in a row "
		"(exits #%llu to #%llu) with no guest instruction in between; the last one:\n",
		hv_ext_name(r->vendor), r->name ? r->name : "unknown", (unsigned long long)r->code, r->cs,
		r->code_bits == 64 ? 16 : 8, (unsigned long long)r->rip, (unsigned long long)l->repeats,
		(unsigned long long)l->first_n, (unsigned long long)w->exits);
	exit_trace_print_text(&w->trace, w->exits, r);
	fflush(out);
}

void exit_watch_report_stats(const struct exit_watch *w, uint64_t virtual_insns)
{
	if (!w->cfg.stats)
		return;
	exit_stats_print(&w->stats, virtual_insns, w->trace.out);
	fflush(w->trace.out);
}
