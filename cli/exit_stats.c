/* Exit statistics and the livelock detector; see cli/exit_stats.h. */
#include "cli/exit_stats.h"

#include <stdlib.h>
#include <string.h>

void exit_stats_init(struct exit_stats *s)
{
	memset(s, 0, sizeof(*s));
}

unsigned exit_gap_bucket(uint64_t guest_insns)
{
	return guest_insns ? 64u - (unsigned)__builtin_clzll(guest_insns) : 0;
}

/* Whether c counts r's exits: the same code of the same kind (a VMX
 * VMfailValid(7) is not exit reason 7). */
static bool counts(const struct exit_count *c, const struct vm_exit_report *r)
{
	return c->code == r->code && c->kind == r->kind;
}

/* The entry of a code: the previous exit's first (an exit usually repeats the
 * one before), then a scan; NULL when the table is full. */
static struct exit_count *code_entry(struct exit_stats *s, const struct vm_exit_report *r)
{
	if (s->n_codes && counts(&s->codes[s->last], r))
		return &s->codes[s->last];
	for (unsigned i = 0; i < s->n_codes; i++)
		if (counts(&s->codes[i], r)) {
			s->last = i;
			return &s->codes[i];
		}
	if (s->n_codes == EXIT_STATS_CODES)
		return NULL;
	s->last = s->n_codes++;
	struct exit_count *c = &s->codes[s->last];
	c->code = r->code;
	c->kind = r->kind;
	c->count = 0;
	snprintf(c->name, sizeof(c->name), "%s", r->name ? r->name : "unknown");
	return c;
}

/* The CPU's running handling time ends at entered_at: it goes to its code. */
static void handling_end(struct exit_stats *s, unsigned cpu_id, uint64_t entered_at)
{
	if (!s->handling[cpu_id])
		return;
	struct exit_count *c = &s->codes[s->handling[cpu_id] - 1];
	uint64_t t = entered_at - s->handling_since[cpu_id];
	c->handled++;
	c->handle_sum += t;
	if (t > c->handle_max)
		c->handle_max = t;
	c->handle_hist[exit_gap_bucket(t)]++;
	s->handling[cpu_id] = 0;
}

static bool is_vmfail(enum exit_report_kind kind)
{
	return kind == EXIT_REPORT_VMFAIL_VALID || kind == EXIT_REPORT_VMFAIL_INVALID;
}

void exit_stats_add(struct exit_stats *s, const struct vm_exit_report *r, unsigned cpu_id)
{
	s->exits++;
	s->guest_insns += r->guest_insns;
	s->gap[exit_gap_bucket(r->guest_insns)]++;
	bool timed = cpu_id < EXIT_STATS_CPUS;
	/* The entry attempt that ended the handling: for a guest that ran, its
	 * VM entry (now - guest_insns); for an entry that failed its checks
	 * (guest_insns 0), now. Never before the exit that started the handling
	 * (a report from an inconsistent clock ends nothing). */
	if (timed && !is_vmfail(r->kind) && r->guest_insns <= r->now &&
	    r->now - r->guest_insns >= s->handling_since[cpu_id])
		handling_end(s, cpu_id, r->now - r->guest_insns);
	struct exit_count *c = code_entry(s, r);
	if (c)
		c->count++;
	else
		s->other++;
	if (timed && !is_vmfail(r->kind)) {
		s->handling[cpu_id] = c ? (unsigned)(c - s->codes) + 1 : 0;
		s->handling_since[cpu_id] = r->now;
	}
}

/* Most frequent first; equal counts by code. */
static int by_count(const void *a, const void *b)
{
	const struct exit_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->code < y->code ? -1 : x->code > y->code;
}

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* "0", "1", "2-3", "4-7", ...: the guest instructions bucket k holds. */
static void bucket_range(unsigned k, char *buf, size_t size)
{
	if (k <= 1) {
		snprintf(buf, size, "%u", k);
		return;
	}
	uint64_t lo = 1ull << (k - 1), hi = lo + (lo - 1);
	snprintf(buf, size, "%llu-%llu", (unsigned long long)lo, (unsigned long long)hi);
}

#define BAR_WIDTH 40

/* Buckets from the lowest to the highest non-empty one, each with its count,
 * share of total and a bar scaled to the largest. */
static void print_histogram(const uint64_t *hist, uint64_t total, const char *indent, FILE *out)
{
	unsigned lo = 0, hi = 0;
	uint64_t max = 0;
	for (unsigned k = 0; k < EXIT_GAP_BUCKETS; k++)
		if (hist[k]) {
			if (!max)
				lo = k;
			hi = k;
			if (hist[k] > max)
				max = hist[k];
		}
	for (unsigned k = lo; max && k <= hi; k++) {
		char range[48], bar[BAR_WIDTH + 1];
		bucket_range(k, range, sizeof(range));
		unsigned w = (unsigned)((hist[k] * BAR_WIDTH + max - 1) / max);
		memset(bar, '#', w);
		bar[w] = 0;
		fprintf(out, "%s%-*s  %12llu  %6.2f%%%s%s\n", indent, 43 - (int)strlen(indent), range,
			(unsigned long long)hist[k], percent(hist[k], total), w ? "  " : "", bar);
	}
}

void exit_stats_print(const struct exit_stats *s, uint64_t virtual_insns, FILE *out)
{
	if (!s->exits) {
		fprintf(out, "hvemu: stats: no VM exits in %llu virtual instructions\n",
			(unsigned long long)virtual_insns);
		return;
	}
	fprintf(out, "hvemu: stats: %llu VM exits in %llu virtual instructions (%.2f per million); "
		"%llu instructions (%.2f%%) in guests\n", (unsigned long long)s->exits,
		(unsigned long long)virtual_insns, virtual_insns ? 1e6 * (double)s->exits / (double)virtual_insns : 0.0,
		(unsigned long long)s->guest_insns, percent(s->guest_insns, virtual_insns));

	struct exit_count sorted[EXIT_STATS_CODES];
	memcpy(sorted, s->codes, s->n_codes * sizeof(sorted[0]));
	qsort(sorted, s->n_codes, sizeof(sorted[0]), by_count);
	fprintf(out, "  %-18s  %-24s  %12s  %7s\n", "code", "name", "count", "share");
	for (unsigned i = 0; i < s->n_codes; i++) {
		char code[24];
		snprintf(code, sizeof(code), "0x%llx", (unsigned long long)sorted[i].code);
		fprintf(out, "  %-18s  %-24s  %12llu  %6.2f%%\n", code, sorted[i].name,
			(unsigned long long)sorted[i].count, percent(sorted[i].count, s->exits));
	}
	if (s->other)
		fprintf(out, "  %-18s  %-24s  %12llu  %6.2f%%\n", "(other codes)", "", (unsigned long long)s->other,
			percent(s->other, s->exits));

	fprintf(out, "hvemu: stats: guest instructions from VM entry to exit (log2 buckets):\n");
	print_histogram(s->gap, s->exits, "  ", out);

	bool any_handled = false;
	for (unsigned i = 0; i < s->n_codes; i++)
		any_handled |= sorted[i].handled != 0;
	if (!any_handled)
		return;
	fprintf(out, "hvemu: stats: L1 handling time, from the exit to the next VM entry (virtual "
		"instructions, log2 buckets):\n");
	for (unsigned i = 0; i < s->n_codes; i++) {
		const struct exit_count *c = &sorted[i];
		if (!c->handled)
			continue;
		fprintf(out, "  0x%llx %s: %llu handled, mean %.1f, max %llu\n", (unsigned long long)c->code,
			c->name, (unsigned long long)c->handled, (double)c->handle_sum / (double)c->handled,
			(unsigned long long)c->handle_max);
		uint64_t hist[EXIT_GAP_BUCKETS];
		for (unsigned k = 0; k < EXIT_GAP_BUCKETS; k++)
			hist[k] = c->handle_hist[k];
		print_histogram(hist, c->handled, "    ", out);
	}
}

void livelock_init(struct livelock *l, uint64_t limit)
{
	memset(l, 0, sizeof(*l));
	l->limit = limit;
}

/* Copy r, strings included. */
static void keep(struct livelock *l, const struct vm_exit_report *r)
{
	l->exit = *r;
	snprintf(l->name, sizeof(l->name), "%s", r->name ? r->name : "unknown");
	l->exit.name = l->name;
	if (r->failed_check) {
		snprintf(l->check, sizeof(l->check), "%s", r->failed_check);
		l->exit.failed_check = l->check;
	}
}

/* r's information words equal the current exit's (the event words aside:
 * what was being delivered does not make an exit another; nor do the values
 * --perturb-exits drew where the manual leaves a word undefined). */
static bool same_words(const struct livelock *l, const struct vm_exit_report *r)
{
	unsigned n;
	const struct exit_word_name *w = exit_word_names(r->vendor, &n);
	uint32_t randomised = l->randomised | r->randomised;
	for (unsigned i = 0; i < n; i++)
		if (!w[i].event && !((randomised >> i) & 1) && r->words[i] != l->words[i])
			return false;
	return true;
}

bool livelock_observe(struct livelock *l, uint64_t n, const struct vm_exit_report *r)
{
	if (!l->limit || l->fired)
		return false;
	bool same = l->repeats && r->guest_insns == 0 && r->vendor == l->vendor && r->kind == l->kind &&
		    r->code == l->code && r->rip == l->rip && same_words(l, r);
	if (same) {
		l->repeats++;
	} else {
		l->repeats = 1;
		l->first_n = n;
		l->vendor = r->vendor;
		l->kind = r->kind;
		l->code = r->code;
		l->rip = r->rip;
		memcpy(l->words, r->words, sizeof(l->words));
		l->randomised = r->randomised;
	}
	if (l->repeats < l->limit)
		return false;
	l->fired = true;
	keep(l, r);
	return true;
}
