/* Reverse execution by replay from snapshots; see cli/reverse.h. */
#include "cli/reverse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double host_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static bool point_less(struct reverse_point a, struct reverse_point b)
{
	if (a.time != b.time)
		return a.time < b.time;
	if (a.exits != b.exits)
		return a.exits < b.exits;
	return !a.in_guest && b.in_guest;
}

static bool point_same(struct reverse_point a, struct reverse_point b)
{
	return a.time == b.time && a.exits == b.exits && a.in_guest == b.in_guest;
}

struct reverse_point reverse_here(const struct reverse *r)
{
	const struct cpu *cpu = smp_current(r->d->m);
	return (struct reverse_point){ .time = cpu->icount, .exits = r->d->exits, .in_guest = cpu->in_guest };
}

static void drop(struct reverse *r, size_t i)
{
	machine_snapshot_free(&r->snaps[i].s);
	for (unsigned e = 0; e < r->n_extra; e++)
		free(r->snaps[i].extra[e]);
	memmove(&r->snaps[i], &r->snaps[i + 1], (r->n - i - 1) * sizeof(r->snaps[0]));
	r->n--;
}

/* The last snapshot strictly before p, or -1. */
static long latest_before(const struct reverse *r, struct reverse_point p)
{
	long i = (long)r->n - 1;
	while (i >= 0 && !point_less(r->snaps[i].at, p))
		i--;
	return i;
}

/* Snapshot the machine here (once per point). Out of memory: no snapshot,
 * the history is only shorter. */
static void take(struct reverse *r)
{
	struct reverse_point here = reverse_here(r);
	long before = latest_before(r, here);
	size_t at = (size_t)(before + 1);
	if (at < r->n && point_same(r->snaps[at].at, here))
		return;
	if (r->n == REVERSE_MAX_SNAPSHOTS) {
		/* Every other old snapshot goes: the history keeps its start and
		 * gets coarser with age. */
		for (size_t i = 1; i + 1 < r->n; i++)
			drop(r, i);
		before = latest_before(r, here);
		at = (size_t)(before + 1);
	}
	struct reverse_snapshot s = { .at = here };
	const struct machine_snapshot *prev = before >= 0 ? &r->snaps[before].s : NULL;
	double t0 = host_seconds();
	bool ok = machine_snapshot_take(&s.s, r->d->m, prev);
	r->take_seconds += host_seconds() - t0;
	if (!ok)
		return;
	for (unsigned e = 0; e < r->n_extra; e++) {
		if (!(s.extra[e] = malloc(r->extra[e].len))) {
			for (unsigned f = 0; f < e; f++)
				free(s.extra[f]);
			machine_snapshot_free(&s.s);
			return;
		}
		memcpy(s.extra[e], r->extra[e].p, r->extra[e].len);
	}
	memmove(&r->snaps[at + 1], &r->snaps[at], (r->n - at) * sizeof(r->snaps[0]));
	r->snaps[at] = s;
	r->n++;
	r->taken++;
}

static void checkpoint(void *ctx)
{
	struct reverse *r = ctx;
	take(r);
	r->d->checkpoint_due = reverse_here(r).time + r->interval;
}

void reverse_init(struct reverse *r, struct debugger *d, uint64_t interval)
{
	memset(r, 0, sizeof(*r));
	r->d = d;
	r->interval = interval;
	if (!interval)
		return;
	r->snaps = calloc(REVERSE_MAX_SNAPSHOTS, sizeof(*r->snaps));
	if (!r->snaps) {
		r->interval = 0;   /* no memory: no reverse execution (gdb is told it cannot) */
		return;
	}
	d->checkpoint = checkpoint;
	d->checkpoint_ctx = r;
	d->checkpoint_due = reverse_here(r).time;
}

void reverse_add_extra(struct reverse *r, void *p, size_t len)
{
	if (r->n_extra < REVERSE_MAX_EXTRA && r->n == 0)
		r->extra[r->n_extra++] = (struct reverse_extra){ p, len };
}

void reverse_destroy(struct reverse *r)
{
	while (r->n)
		drop(r, r->n - 1);
	free(r->snaps);
	memset(r, 0, sizeof(*r));
}

static void restore(struct reverse *r, size_t i)
{
	const struct reverse_snapshot *s = &r->snaps[i];
	double t0 = host_seconds();
	bool ok = machine_snapshot_restore(&s->s, r->d->m);
	r->restore_seconds += host_seconds() - t0;
	if (!ok) {
		fprintf(stderr, "hvemu: out of memory restoring a snapshot\n");
		exit(EXIT_FAILURE);
	}
	for (unsigned e = 0; e < r->n_extra; e++)
		memcpy(r->extra[e].p, s->extra[e], r->extra[e].len);
	r->d->exits = s->at.exits;
	r->restores++;
}

/* How one replay goes: from snapshot snap, as fast as it can to the time
 * fast_until (stopping after each VM exit), then one boundary at a time;
 * every boundary at a time with points (breakpoints, watchpoints). The same
 * walk twice visits the same boundaries. */
struct walk {
	size_t snap;
	uint64_t fast_until;
	bool points;
};

/* What a walk saw before end. */
struct walk_seen {
	bool any;
	struct reverse_point last;     /* the last boundary before end */
	bool overshot;             /* a fast stretch went from before end to past it */
	bool hit;
	struct reverse_point last_hit; /* the last stop a forward run makes before before */
	struct debug_stop hit_stop;
};

/* Replay w until the machine reaches end, or exactly target when given.
 * Stops count when before them: before (the point the search started at). */
static void walk(struct reverse *r, const struct walk *w, struct reverse_point end, const struct reverse_point *target,
		 struct reverse_point before, struct walk_seen *seen)
{
	memset(seen, 0, sizeof(*seen));
	restore(r, w->snap);
	debugger_watch_refresh(r->d);
	for (;;) {
		struct reverse_point p = reverse_here(r);
		if ((target && !point_less(p, *target)) || !point_less(p, end))
			return;
		seen->any = true;
		seen->last = p;
		bool one = w->points || p.time >= w->fast_until;
		struct debug_stop hit;
		if (!debugger_replay(r->d, one ? p.time + 1 : w->fast_until, one, &hit))
			return;
		struct reverse_point q = reverse_here(r);
		r->replayed += q.time - p.time;
		if (!one && !point_less(q, end))
			seen->overshot = true;
		if (hit.kind != STOP_NONE && point_less(q, before)) {
			seen->hit = true;
			seen->last_hit = q;
			seen->hit_stop = hit;
		}
	}
}

static void history_start(struct reverse *r, struct debug_stop *why)
{
	*why = (struct debug_stop){ .kind = STOP_HISTORY_START };
	for (unsigned i = 0; i < r->d->m->smp.n; i++)
		if (r->d->m->smp.cpu[i] == smp_current(r->d->m))
			why->cpu = i;
}

bool reverse_step(struct reverse *r, struct debug_stop *why)
{
	struct reverse_point here = reverse_here(r);
	long i = r->interval ? latest_before(r, here) : -1;
	if (i < 0) {
		history_start(r, why);
		return false;
	}
	struct walk w = { .snap = (size_t)i, .fast_until = here.time ? here.time - 1 : 0 };
	struct walk_seen seen;
	walk(r, &w, here, NULL, here, &seen);
	if (seen.overshot) {
		/* One instruction (a halt that slept) crossed the fast stretch's
		 * end: from the boundary before it, one boundary at a time. */
		w.fast_until = seen.last.time;
		walk(r, &w, here, NULL, here, &seen);
	}
	struct reverse_point target = seen.last;
	walk(r, &w, here, &target, here, &seen);
	history_start(r, why);
	why->kind = STOP_STEP;
	r->d->checkpoint_due = reverse_here(r).time + r->interval;
	return true;
}

bool reverse_continue(struct reverse *r, struct debug_stop *why)
{
	struct reverse_point here = reverse_here(r), end = here;
	bool points = r->d->n_breaks || r->d->watches.n;
	for (long i = r->interval ? latest_before(r, here) : -1; i >= 0; i--) {
		struct walk w = { .snap = (size_t)i, .fast_until = end.time, .points = points };
		struct walk_seen seen;
		walk(r, &w, end, NULL, here, &seen);
		if (seen.hit) {
			struct reverse_point target = seen.last_hit;
			struct debug_stop stop = seen.hit_stop;
			walk(r, &w, end, &target, here, &seen);
			*why = stop;
			r->d->checkpoint_due = reverse_here(r).time + r->interval;
			return true;
		}
		end = r->snaps[i].at;
	}
	if (r->n)
		restore(r, 0);
	history_start(r, why);
	r->d->checkpoint_due = reverse_here(r).time + r->interval;
	return false;
}

void reverse_forget_future(struct reverse *r)
{
	if (!r->interval)
		return;
	struct reverse_point here = reverse_here(r);
	while (r->n && !point_less(r->snaps[r->n - 1].at, here))
		drop(r, r->n - 1);
	r->d->checkpoint_due = here.time;
}

void reverse_describe(const struct reverse *r, char *out, size_t len)
{
	if (!r || !r->interval) {
		snprintf(out, len, "no reverse execution (--reverse-interval 0)\n");
		return;
	}
	size_t bytes = 0;
	for (size_t i = 0; i < r->n; i++)
		bytes += r->snaps[i].s.bytes;
	int o = snprintf(out, len, "%zu snapshots every %llu instructions", r->n, (unsigned long long)r->interval);
	if (r->n)
		o += snprintf(out + o, len - (size_t)o, ", from %llu to %llu", (unsigned long long)r->snaps[0].at.time,
			      (unsigned long long)r->snaps[r->n - 1].at.time);
	snprintf(out + o, len - (size_t)o,
		 ", %zu KiB held\n%llu taken in %.1f ms, %llu restores in %.1f ms, %llu instructions replayed\n",
		 bytes >> 10, (unsigned long long)r->taken, r->take_seconds * 1e3, (unsigned long long)r->restores,
		 r->restore_seconds * 1e3, (unsigned long long)r->replayed);
}
