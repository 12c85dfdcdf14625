/* Check suite for machine snapshots (machine/machine_snapshot.h), over the
 * guest programs named on the command line as ELF[:CPU_MODEL[:CPUS]].
 *
 * Each guest runs once uninterrupted (its serial output, its end, its final
 * time are the reference). Then a second machine runs it to a third of that
 * time, is captured, runs to two thirds and is captured again (D1), is put
 * back to the first capture and runs to two thirds again (D2): D1 and D2 must
 * hold the same state, field by field (a field a restore misses shows as
 * the first difference, by name), and the run that goes on to the end must
 * end as the reference did with the same serial output, written once. A
 * third machine stopped every few thousand instructions ends the same way. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu/cpu_model.h"
#include "machine/machine.h"
#include "machine/machine_snapshot.h"
#include "../unit/suite_runner.h"

static char **guests;
static int n_guests;
static const volatile sig_atomic_t no_stop;

struct guest {
	char path[512];
	char model[64];            /* a CPU model's name, or "default" */
	unsigned cpus;
};

static struct guest parse_guest(const char *arg)
{
	struct guest g = { .model = "default", .cpus = 1 };
	snprintf(g.path, sizeof(g.path), "%s", arg);
	char *c = strchr(g.path, ':');
	if (c) {
		*c++ = 0;
		char *n = strchr(c, ':');
		if (n) {
			*n++ = 0;
			g.cpus = (unsigned)atoi(n);
		}
		snprintf(g.model, sizeof(g.model), "%s", c);
	}
	return g;
}

struct run {
	struct machine_config cfg;
	struct machine m;
	char *out;                 /* the serial output (open_memstream) */
	size_t out_len;
	FILE *serial;
};

static void start(struct run *r, const struct guest *g)
{
	char err[512];
	memset(r, 0, sizeof(*r));
	r->serial = open_memstream(&r->out, &r->out_len);
	ck_assert_ptr_nonnull(r->serial);
	const struct cpu_model *cm = strcmp(g->model, "default") ? cpu_model_find(g->model) : cpu_models[0];
	ck_assert_msg(cm, "no CPU model %s", g->model);
	r->cfg = (struct machine_config){ .ram_size = 64u << 20, .model = cm, .kernel = g->path, .cmdline = "",
					  .serial = r->serial, .n_cpus = g->cpus, .no_reboot = true };
	ck_assert_msg(machine_setup(&r->m, &r->cfg, err, sizeof(err)), "%s: %s", g->path, err);
	r->m.smp.resume = true;    /* a run that stops at a limit goes on mid-turn */
}

static uint64_t now(struct machine *m)
{
	return smp_current(m)->icount;
}

/* Run until the machine's time reaches limit (0: the end). True if the
 * guest's run ended. */
static bool run_to(struct machine *m, uint64_t limit)
{
	m->smp.limit = limit;
	if (m->smp.n == 1)
		m->cpu.icount_limit = limit;
	status_t st = machine_run(m, &no_stop);
	return !(st == ST_STOP && limit && now(m) >= limit && !m->dexit.exited);
}

static void finish(struct run *r)
{
	machine_destroy(&r->m);
	fclose(r->serial);
	free(r->out);
}

static double seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

START_TEST(restore_replays_the_same_machine)
{
	struct guest g = parse_guest(guests[_i]);
	struct run ref, r;

	start(&ref, &g);
	ck_assert(run_to(&ref.m, 0));
	uint64_t end = now(&ref.m);
	bool exited = ref.m.dexit.exited;
	unsigned value = ref.m.dexit.value;
	fflush(ref.serial);
	ck_assert_uint_gt(end, 30);

	start(&r, &g);
	uint64_t n = end / 3, mid = 2 * end / 3;
	ck_assert(!run_to(&r.m, n));
	struct machine_snapshot at_n, d1, d2, again;
	double t0 = seconds();
	ck_assert(machine_snapshot_take(&at_n, &r.m, NULL));
	double t1 = seconds();
	ck_assert(!run_to(&r.m, mid));
	ck_assert(machine_snapshot_take(&d1, &r.m, &at_n));
	double t2 = seconds();
	ck_assert(machine_snapshot_restore(&at_n, &r.m));
	double t3 = seconds();
	char why[256];
	ck_assert(machine_snapshot_take(&again, &r.m, &at_n));
	ck_assert_msg(machine_snapshot_same(&at_n, &again, why, sizeof(why)), "%s: restored at %llu: %s", g.path,
		      (unsigned long long)n, why);
	ck_assert(!run_to(&r.m, mid));
	ck_assert(machine_snapshot_take(&d2, &r.m, &d1));
	ck_assert_msg(machine_snapshot_same(&d1, &d2, why, sizeof(why)), "%s: at %llu after a restore to %llu: %s",
		      g.path, (unsigned long long)mid, (unsigned long long)n, why);
	printf("%s: full snapshot %zu KiB in %.2f ms, incremental %zu KiB, restore %.2f ms\n", g.path,
	       at_n.bytes >> 10, (t1 - t0) * 1e3, d1.bytes >> 10, (t3 - t2) * 1e3);

	ck_assert(run_to(&r.m, 0));
	fflush(r.serial);
	ck_assert_uint_eq(now(&r.m), end);
	ck_assert_int_eq(r.m.dexit.exited, exited);
	ck_assert_uint_eq(r.m.dexit.value, value);
	ck_assert_uint_eq(r.out_len, ref.out_len);
	ck_assert_msg(!memcmp(r.out, ref.out, r.out_len), "%s: the serial output differs", g.path);

	machine_snapshot_free(&at_n);
	machine_snapshot_free(&d1);
	machine_snapshot_free(&d2);
	machine_snapshot_free(&again);
	finish(&r);

	/* Replays stop where the original run did not: stopping a run (every
	 * 7919 instructions, a CPU in HLT among them; with several CPUs also
	 * at every end of a turn, SMP_DEFAULT_QUANTUM, and one tick before)
	 * must not change it, its end included. */
	const uint64_t strides[] = { 7919, SMP_DEFAULT_QUANTUM, SMP_DEFAULT_QUANTUM - 1 };
	for (unsigned k = 0; k < (g.cpus > 1 ? 3u : 1u); k++) {
		start(&r, &g);
		for (uint64_t t = strides[k]; !run_to(&r.m, t); t += strides[k])
			;
		fflush(r.serial);
		ck_assert_uint_eq(r.out_len, ref.out_len);
		ck_assert_msg(!memcmp(r.out, ref.out, r.out_len), "%s: the serial output differs when stopped every %llu",
			      g.path, (unsigned long long)strides[k]);
		ck_assert_msg(now(&r.m) == end, "%s: stopped every %llu, the run ends at %llu, not %llu", g.path,
			      (unsigned long long)strides[k], (unsigned long long)now(&r.m), (unsigned long long)end);
		finish(&r);
	}
	finish(&ref);
}
END_TEST

int main(int argc, char **argv)
{
	guests = argv + 1;
	n_guests = argc - 1;
	if (n_guests == 0)
		return 77;
	Suite *s = suite_create("machine_snapshot");
	TCase *tc = tcase_create("round_trip");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, restore_replays_the_same_machine, 0, n_guests);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
