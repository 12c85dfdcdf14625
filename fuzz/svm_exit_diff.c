/* svm_exit_diff: svm_exit_fuzz's inputs on three engines at once, each
 * judged by the APM oracle (fuzz/svm_oracle.c) and against each other:
 *   model   hvemu's SVM model in process (fuzz/svm_exit_machine.c, as the
 *           fuzz target runs it)
 *   hvemu   the runner guest (fuzz/runner/svm_exit_runner.c) under
 *           `hvemu run`: the whole machine, an L1 hypervisor VMRUNning
 *   qemu    the same runner under qemu-system-x86_64, whose TCG implements
 *           nested SVM
 * Inputs are read as svm_exit_fuzz reads them (svm_exit_decode): the corpus
 * given, then fixed-seed random inputs (the replay main's generator). They
 * run in batches: one batch is one multiboot module (fuzz/svm_exit_batch.h)
 * that the runner replays, streaming an exit record per input to the debug
 * console. Each record is compared with the oracle's prediction for that
 * engine's CPUID, and the engines' exits with each other where the oracle
 * has no prediction. Every field that differs is reported on one line:
 *
 *   input 371 (random 371): EXITINFO2: oracle=model=hvemu=0x7f010, qemu=0x10007f010 [APM2 15.12 ...]
 *
 * A disagreement of QEMU's is run again in a batch of its own before it
 * counts (a loaded host can fire the hang guard early); a confirmed one is
 * written to --out as the input and a reproducer row (fuzz/svm_exit_row.h)
 * whose expectation is hvemu's exit and whose comment names QEMU's.
 *
 * Exit status: 0 done (or --expect found), 1 --expect not found or
 * --check-runner failed, 2 usage, 77 QEMU absent or without nested SVM
 * (when QEMU is one of the engines).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/svm_exit_diff.h"
#include "fuzz/svm_exit_row.h"
const char *const engine_name[E_COUNT] = { "model", "hvemu", "qemu" };

struct diff_options diff_opt = {
	.qemu = "qemu-system-x86_64", .qemu_cpu = "EPYC", .hvemu_cpu = "epyc-lite", .count = 2000, .batch = 500,
	.seconds = 60, .seed = 0x68766d75u,
	/* The hang guard's APIC timer count (divide by 1): QEMU's timer counts
	 * host nanoseconds, 2 ms; hvemu's counts 24 MHz of virtual time (at
	 * 10^9 instructions a second), 100 us: 100,000 instructions where the
	 * fuzzer's limit is 4096. */
	.timeout_qemu = 2000000, .timeout_hvemu = 2400,
};

struct machine model;
struct oracle_cpu ocpu[E_COUNT];
double engine_seconds[E_COUNT];
unsigned long engine_inputs[E_COUNT];

/* ---- the tallies ---- */

#define MAX_KINDS 128
static struct kind {
	char what[96];                         /* "qemu vs oracle: EXITINFO2" */
	unsigned long count, confirmed;
	unsigned pending;                      /* inputs of this kind in the batch being confirmed */
	unsigned long rerun;                   /* inputs of this kind run a second time */
	char first[80];                        /* the first input's name */
} kinds[MAX_KINDS];
static unsigned n_kinds;
static unsigned long inputs_run, unknown_inputs;

static struct kind *kind_find(const char *what)
{
	for (unsigned k = 0; k < n_kinds; k++)
		if (strcmp(kinds[k].what, what) == 0)
			return &kinds[k];
	return NULL;
}

static struct kind *kind_of(const char *what)
{
	struct kind *found = kind_find(what);
	if (found)
		return found;
	if (n_kinds == MAX_KINDS)
		return NULL;
	snprintf(kinds[n_kinds].what, sizeof(kinds[n_kinds].what), "%s", what);
	return &kinds[n_kinds++];
}

/* Count a disagreement of kind what (or its confirmation). */
static void tally(const char *what, struct item *it, bool confirming);

double now_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- the random inputs (fuzz/fuzz_main.c's generator) ---- */

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static size_t random_input(uint64_t *s, uint8_t *buf, size_t max)
{
	static const uint8_t dict[] = {
		0x66, 0x67, 0xf0, 0xf2, 0xf3, 0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0x0f, 0x0f, 0x38,
		0x3a, 0x48, 0x4c, 0xc4, 0xc5, 0x8f, 0x62, 0xcd, 0xcf, 0xea, 0x9a, 0xf4, 0x00, 0xff,
	};
	size_t len = 1 + next_random(s) % max;
	unsigned dict_pct = (unsigned)(next_random(s) % 60);
	for (size_t k = 0; k < len; k++) {
		uint64_t r = next_random(s);
		buf[k] = r % 100 < dict_pct ? dict[(r >> 8) % sizeof(dict)] : (uint8_t)(r >> 32);
	}
	return len;
}

/* Every engine's oracle predicts VMEXIT_INVALID (and the model agrees). */
static bool all_predict_invalid(const struct item *it)
{
	for (unsigned e = 0; e < E_COUNT; e++)
		if (diff_opt.on[e] && (it->pred[e].outcome != OUT_EXIT || it->pred[e].exitcode != UINT64_MAX))
			return false;
	return it->after[E_MODEL].control.exitcode == UINT64_MAX;
}

/* ---- comparing ---- */

static bool tally_off;                     /* minimising: note the kinds on the item only */

static void tally(const char *what, struct item *it, bool confirming)
{
	if (tally_off) {
		struct kind *k = kind_find(what);
		if (k && it->n_kinds < 8)
			it->kinds[it->n_kinds++] = k;
		return;
	}
	struct kind *k = kind_of(what);
	if (!k)
		return;
	if (!confirming && it->n_kinds < 8)
		it->kinds[it->n_kinds++] = k;
	if (!k->first[0])
		snprintf(k->first, sizeof(k->first), "%s", it->name);
	if (confirming)
		k->confirmed++;
	else
		k->count++;
}

/* The record fields compared engine against engine. */
static const struct field {
	const char *name;                  /* as the oracle names it */
	size_t off;
} fields[] = {
	{ "EXITCODE", offsetof(struct vmcb, control.exitcode) },
	{ "EXITINFO1", offsetof(struct vmcb, control.exitinfo1) },
	{ "EXITINFO2", offsetof(struct vmcb, control.exitinfo2) },
	{ "EXITINTINFO", offsetof(struct vmcb, control.exitintinfo) },
	{ "NRIP", offsetof(struct vmcb, control.nrip) },
	{ "saved RIP", offsetof(struct vmcb, save.rip) },
	{ "saved RSP", offsetof(struct vmcb, save.rsp) },
	{ "saved RAX", offsetof(struct vmcb, save.rax) },
	{ "saved RFLAGS", offsetof(struct vmcb, save.rflags) },
	{ "saved CR0", offsetof(struct vmcb, save.cr0) },
	{ "saved CR3", offsetof(struct vmcb, save.cr3) },
	{ "saved CR4", offsetof(struct vmcb, save.cr4) },
	{ "saved EFER", offsetof(struct vmcb, save.efer) },
	{ "saved DR7", offsetof(struct vmcb, save.dr7) },
};
#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))
/* Engine against engine: the exit itself; RAX, RSP and the rest hold what
 * the L2 read (CPUID, TSC, MSRs), which the engines' CPUs answer their way. */
#define N_CROSS_FIELDS 6

static uint64_t field_value(const struct vmcb *v, size_t off)
{
	uint64_t x;
	memcpy(&x, (const uint8_t *)v + off, 8);
	return x;
}

static const struct field *field_named(const char *name)
{
	for (unsigned k = 0; k < N_FIELDS; k++)
		if (strncmp(name, fields[k].name, strlen(fields[k].name)) == 0)
			return &fields[k];
	return NULL;
}

/* "EXITINFO2: oracle=model=hvemu=0x7f010, qemu=0x10007f010": the values
 * grouped, the oracle's first. */
static void print_values(FILE *f, const char *field, bool with_oracle, uint64_t want, const uint64_t *val,
			 const bool *has, const char *oracle_label)
{
	bool done[E_COUNT] = { false };
	fprintf(f, "%s: ", field);
	bool first = true;
	if (with_oracle) {
		fprintf(f, "%s", oracle_label);
		for (unsigned e = 0; e < E_COUNT; e++)
			if (has[e] && val[e] == want) {
				fprintf(f, "=%s", engine_name[e]);
				done[e] = true;
			}
		fprintf(f, "=%#" PRIx64, want);
		first = false;
	}
	for (unsigned e = 0; e < E_COUNT; e++) {
		if (!has[e] || done[e])
			continue;
		fprintf(f, "%s%s", first ? "" : ", ", engine_name[e]);
		for (unsigned g = e + 1; g < E_COUNT; g++)
			if (has[g] && !done[g] && val[g] == val[e]) {
				fprintf(f, "=%s", engine_name[g]);
				done[g] = true;
			}
		fprintf(f, "=%#" PRIx64, val[e]);
		done[e] = true;
		first = false;
	}
}

/* A fault address of a guest outside 64-bit mode reported as base +
 * offset in 64 bits where the oracle wrapped it at 4 GiB (APM2 15.12 with
 * APM2 2.2 / 4.5.3): the class of QEMU's EXITINFO2 bug. */
static bool unwrapped_address(const struct item *it, const struct oracle_disagreement *d)
{
	return !(it->e.guest & 1) && strcmp(d->field, "EXITINFO2") == 0 && d->want <= 0xffffffffu &&
	       d->got == d->want + (1ull << 32);
}

/* A VMEXIT_INVALID the engine did not give as the APM's 64-bit -1: written
 * in 32 bits (Appendix C), or the guest entered (a check missed). */
static const char *invalid_kind(const struct oracle_disagreement *d)
{
	if (strcmp(d->field, "EXITCODE (VMEXIT_INVALID)") != 0)
		return "";
	return d->got == 0xffffffffu ? ": written as 32-bit -1" : ": the guest entered";
}

static const char *outcome_text(const struct item *it, unsigned e)
{
	if (!it->have[e])
		return "no record";
	if (it->hung[e])
		return "no exit (hung)";
	if (it->shutdown[e])
		return "shutdown (triple fault)";
	if (it->halted[e])
		return "halted in the guest";
	return NULL;
}

/* Compare one item; print its disagreements. Returns a bit per engine that
 * disagreed with the oracle or with the model. */
static unsigned compare_item(struct item *it, bool confirming, bool print)
{
	unsigned bad = 0;
	bool predicted = false;
	for (unsigned e = 0; e < E_COUNT; e++) {
		if (!diff_opt.on[e])
			continue;
		const struct oracle_prediction *p = &it->pred[e];
		if (p->outcome == OUT_UNKNOWN)
			continue;
		predicted = true;
		const char *oc = outcome_text(it, e);
		if (!it->have[e] || it->hung[e] || it->shutdown[e]) {
			if (print)
				printf("input %s: outcome: oracle=%s, %s=%s\n", it->name,
				       p->outcome == OUT_HALT ? "halt" : "#VMEXIT", engine_name[e], oc);
			char what[96];
			snprintf(what, sizeof(what), "%s vs oracle: outcome (%s)", engine_name[e], oc);
			tally(what, it, confirming);
			bad |= 1u << e;
			continue;
		}
		struct oracle_input in = svm_exit_oracle_input(&model, &it->e);
		in.cpu = &ocpu[e];
		struct oracle_actual a = { .vmcb = &it->after[e], .halted_in_guest = it->halted[e],
					   .failed_check = e == E_MODEL ? it->failed_check : NULL,
					   .names_no_check = e != E_MODEL };
		if (!oracle_compare(&in, p, &a))
			continue;
		bad |= 1u << e;
		for (unsigned d = 0; d < oracle_n_disagreements; d++) {
			const struct oracle_disagreement *dis = &oracle_disagreements[d];
			const struct field *fd = field_named(dis->field);
			uint64_t val[E_COUNT];
			bool has[E_COUNT] = { false };
			for (unsigned g = 0; g < E_COUNT; g++) {
				has[g] = diff_opt.on[g] && it->have[g] && !outcome_text(it, g) && fd;
				val[g] = has[g] ? field_value(&it->after[g], fd->off) : 0;
			}
			if (!fd) {
				has[e] = true;
				val[e] = dis->got;
			}
			if (print) {
				/* The oracle's answer for this engine's CPUID, named so
				 * where it differs from its answer for the model's. */
				const struct oracle_prediction *pm = &it->pred[E_MODEL];
				bool own = e != E_MODEL && (pm->outcome != p->outcome || pm->exitcode != p->exitcode ||
							    pm->info1 != p->info1 || pm->info2 != p->info2 ||
							    pm->intinfo != p->intinfo);
				char label[48];
				snprintf(label, sizeof(label), own ? "oracle(%s's CPUID)" : "oracle", engine_name[e]);
				printf("input %s: ", it->name);
				print_values(stdout, dis->field, true, dis->want, val, has, label);
				printf(" [%s]\n", dis->cite);
			}
			char what[96];
			snprintf(what, sizeof(what), "%s vs oracle: %s%s", engine_name[e], dis->field,
				 unwrapped_address(it, dis) ? " above 4 GiB, not wrapped" : invalid_kind(dis));
			tally(what, it, confirming);
		}
	}
	if (predicted)
		return bad;
	/* No prediction: the engines against the model. */
	if (!confirming)
		unknown_inputs++;
	for (unsigned e = E_HVEMU; e < E_COUNT; e++) {
		if (!diff_opt.on[e] || !it->have[e])
			continue;
		const char *om = outcome_text(it, E_MODEL), *oe = outcome_text(it, e);
		char what[96];
		if ((om != NULL) != (oe != NULL) || (om && oe && strcmp(om, oe) != 0)) {
			if (print)
				printf("input %s: outcome (oracle: unknown, %s): model=%s, %s=%s\n", it->name,
				       it->pred[e].unknown_why, om ? om : "#VMEXIT", engine_name[e], oe ? oe : "#VMEXIT");
			snprintf(what, sizeof(what), "%s vs model, oracle unknown: outcome", engine_name[e]);
			tally(what, it, confirming);
			bad |= 1u << e;
			continue;
		}
		if (om)
			continue;
		for (unsigned f = 0; f < N_CROSS_FIELDS; f++) {
			uint64_t val[E_COUNT] = { 0 };
			bool has[E_COUNT] = { false };
			has[E_MODEL] = has[e] = true;
			val[E_MODEL] = field_value(&it->after[E_MODEL], fields[f].off);
			val[e] = field_value(&it->after[e], fields[f].off);
			if (val[E_MODEL] == val[e])
				continue;
			if (f == 4 && !((ocpu[e].svm_edx & ocpu[E_MODEL].svm_edx) & (1u << 3)))
				continue;     /* NRIP: only where both save it (APM2 15.7.1) */
			if (print) {
				printf("input %s: ", it->name);
				print_values(stdout, fields[f].name, false, 0, val, has, "");
				printf(" (oracle: unknown, %s)\n", it->pred[e].unknown_why);
			}
			snprintf(what, sizeof(what), "%s vs model, oracle unknown: %s", engine_name[e], fields[f].name);
			tally(what, it, confirming);
			bad |= 1u << e;
		}
	}
	return bad;
}

/* ---- findings ---- */

/* Write it's input and a reproducer row (hvemu's exit as the expectation,
 * the peer's fields in the comment) to --out, named after what it found. */
static void write_finding(const struct item *it, const char *what)
{
	if (!diff_opt.out_dir)
		return;
	char base[256], path[512];
	snprintf(base, sizeof(base), "%s", what);
	for (char *c = base; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
			*c = '_';
	snprintf(path, sizeof(path), "%s/%s.input", diff_opt.out_dir, base);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(it->data, 1, it->len, f) != it->len || fclose(f) != 0) {
		fprintf(stderr, "svm_exit_diff: cannot write %s\n", path);
		return;
	}
	char comment[1024];
	int n = snprintf(comment, sizeof(comment),
			 "svm_exit_diff finding: %s (input %s)\nexpect: hvemu's exit, which the oracle predicted\n", what,
			 it->name);
	for (unsigned e = E_HVEMU; e < E_COUNT && n > 0 && (size_t)n < sizeof(comment); e++) {
		if (!diff_opt.on[e] || !it->have[e])
			continue;
		const struct vmcb *v = &it->after[e];
		n += snprintf(comment + n, sizeof(comment) - (size_t)n,
			      "%s: exitcode %" PRIx64 " exitinfo1 %" PRIx64 " exitinfo2 %" PRIx64 " exitintinfo %" PRIx64
			      " nrip %" PRIx64 " rip %" PRIx64 "%s\n", engine_name[e], v->control.exitcode,
			      v->control.exitinfo1, v->control.exitinfo2, v->control.exitintinfo, v->control.nrip,
			      v->save.rip, it->halted[e] ? " (halted)" : it->hung[e] ? " (hung)" : "");
	}
	snprintf(path, sizeof(path), "%s/%s.row", diff_opt.out_dir, base);
	struct svm_exit_image image = { .vmcb = &it->e.vmcb, .code = it->e.as.buf, .code_len = it->e.as.len,
					.iopm = it->e.iopm_bits, .msrpm = it->e.msrpm_bits };
	if (!svm_exit_row_write(path, comment, &image, &it->after[E_MODEL], it->halted[E_MODEL]))
		fprintf(stderr, "svm_exit_diff: cannot write %s\n", path);
	else
		printf("svm_exit_diff: wrote %s and its .input\n", path);
}

/* Confirm a kind of disagreement on its first few inputs only: a second
 * run of every input of a kind seen a thousand times costs more than it
 * tells. */
#define CONFIRM_PER_KIND 3

static bool worth_confirming(const struct item *it)
{
	for (unsigned k = 0; k < it->n_kinds; k++)
		if (it->kinds[k]->confirmed + it->kinds[k]->pending < CONFIRM_PER_KIND && strncmp(it->kinds[k]->what, "model", 5))
			return true;
	return false;
}

/* ---- minimising ---- */

/* The input's fields as svm_exit_input.c reads them (svm_exit_fuzz.c's
 * header comment): guest 0, CR 1-4, DR 5-8, exceptions 9, misc 10-13,
 * mutation count 14 (bits 2:0) and 3 bytes each, template count (1 + n %
 * 64) and 5 bytes each. Bytes past the end read as 0. */
#define IN_MUTATIONS 14

/* Pad d to its structure's length (so that every field has its place) and
 * drop what lies beyond it; the new length. */
static size_t normalise(uint8_t *d, size_t len)
{
	uint8_t b[512] = { 0 };
	memcpy(b, d, len < sizeof(b) ? len : sizeof(b));
	size_t nm = b[IN_MUTATIONS] & 7, at = IN_MUTATIONS + 1 + 3 * nm;
	size_t nt = 1 + b[at] % 64, total = at + 1 + 5 * nt;
	memcpy(d, b, total);
	return total;
}

/* The candidates one step smaller than d: one template removed, one
 * mutation removed, an intercept field or one of its bits cleared, a guest
 * option bit cleared. Their count (at most max). */
/* The next candidate slot, a copy of d; NULL when out is full. */
static struct item *candidate(struct item **out, unsigned *n, unsigned max, const uint8_t *d, size_t len)
{
	if (*n == max)
		return NULL;
	struct item *c = out[(*n)++];
	memcpy(c->data, d, len);
	c->len = len;
	return c;
}

static unsigned shrink(const uint8_t *d, size_t len, struct item **out, unsigned max)
{
	unsigned n = 0;
	size_t nm = d[IN_MUTATIONS] & 7, tc = IN_MUTATIONS + 1 + 3 * nm, nt = 1 + d[tc] % 64;
	struct item *c;
	for (size_t k = 0; nt > 1 && k < nt; k++) {
		if (!(c = candidate(out, &n, max, d, len)))
			return n;
		size_t at = tc + 1 + 5 * k;
		memmove(c->data + at, c->data + at + 5, len - at - 5);
		c->len -= 5;
		c->data[tc] = (uint8_t)(nt - 2);
	}
	for (size_t k = 0; k < nm; k++) {
		if (!(c = candidate(out, &n, max, d, len)))
			return n;
		size_t at = IN_MUTATIONS + 1 + 3 * k;
		memmove(c->data + at, c->data + at + 3, len - at - 3);
		c->len -= 3;
		c->data[IN_MUTATIONS] = (uint8_t)((d[IN_MUTATIONS] & ~7u) | (nm - 1));
	}
	static const uint8_t parts[][2] = { { 1, 4 }, { 5, 4 }, { 9, 1 }, { 10, 4 } };   /* offset, size */
	for (unsigned f = 0; f < 4; f++) {
		unsigned at = parts[f][0], size = parts[f][1];
		if (all_zero(d + at, size))
			continue;
		if (!(c = candidate(out, &n, max, d, len)))
			return n;
		memset(c->data + at, 0, size);
		for (unsigned bit = 0; bit < 8 * size; bit++) {
			if (!((d[at + bit / 8] >> (bit % 8)) & 1))
				continue;
			if (!(c = candidate(out, &n, max, d, len)))
				return n;
			c->data[at + bit / 8] &= (uint8_t)~(1u << (bit % 8));
		}
	}
	for (unsigned bit = 4; bit < 6; bit++) {
		if (!((d[0] >> bit) & 1))
			continue;
		if (!(c = candidate(out, &n, max, d, len)))
			return n;
		c->data[0] &= (uint8_t)~(1u << bit);
	}
	return n;
}


/* Shrink it, one step a round, while QEMU still shows the disagreement of
 * kind k: each round's candidates run as one batch. */
static void minimise(struct item *it, struct kind *k, struct item **pool, unsigned pool_n)
{
	it->len = normalise(it->data, it->len);
	size_t before = it->len;
	for (unsigned round = 0; round < 64; round++) {
		unsigned n = shrink(it->data, it->len, pool, pool_n);
		for (unsigned i = 0; i < n; i++) {
			snprintf(pool[i]->name, sizeof(pool[i]->name), "%.60s, shrunk", it->name);
			pool[i]->n_kinds = 0;
			memset(pool[i]->have, 0, sizeof(pool[i]->have));
			run_model(pool[i]);
		}
		if (!n || !run_runners(pool, n, 8, false))
			break;
		struct item *best = NULL;
		tally_off = true;
		for (unsigned i = 0; i < n; i++) {
			compare_item(pool[i], true, false);
			for (unsigned j = 0; j < pool[i]->n_kinds; j++)
				if (pool[i]->kinds[j] == k && (!best || pool[i]->len < best->len))
					best = pool[i];
		}
		tally_off = false;
		if (!best)
			break;
		memcpy(it->data, best->data, best->len);
		it->len = best->len;
	}
	/* it's fields as its last shrunk form ran (the model, the runners). */
	snprintf(pool[0]->name, sizeof(pool[0]->name), "%s", it->name);
	memcpy(pool[0]->data, it->data, it->len);
	pool[0]->len = it->len;
	pool[0]->n_kinds = 0;
	memset(pool[0]->have, 0, sizeof(pool[0]->have));
	run_model(pool[0]);
	if (run_runners(pool, 1, 8, false)) {
		struct item *keep = pool[0];
		printf("svm_exit_diff: %s minimised from %zu to %zu bytes (%u templates)\n", it->name, before, it->len,
		       keep->e.n_insns - 1);
	}
}

/* Remove the work directory this run made, and its files. */
static void remove_work(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		char path[600];
		if (e->d_name[0] != '.' && snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < (int)sizeof(path))
			unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: svm_exit_diff --runner ELF [options] [CORPUS-DIR|FILE]...\n"
		"  --engines LIST      model,hvemu,qemu (default: all three)\n"
		"  --hvemu PATH        hvemu (for the hvemu engine)\n"
		"  --qemu PATH         qemu-system-x86_64 (default: from PATH)\n"
		"  --qemu-cpu MODEL    QEMU's -cpu (default EPYC)\n"
		"  --cpu MODEL         hvemu's --cpu, the model's is epyc-lite (default epyc-lite)\n"
		"  --count N           inputs in all, the corpus first (default 2000)\n"
		"  --seconds S         stop after S seconds (default 60)\n"
		"  --batch N           inputs per engine run (default 500)\n"
		"  --seed N            the random inputs' seed\n"
		"  --guard-qemu N, --guard-hvemu N\n"
		"                      the hang guard's APIC timer count (2000000, 2400)\n"
		"  --skip N            generate the first N random inputs but do not run them\n"
		"  --expect KIND       exit 0 when QEMU's disagreement with the oracle of that\n"
		"                      kind (its field, e.g. \"EXITINFO2 above 4 GiB, not wrapped\",\n"
		"                      the summary's names) is confirmed, 1 if the run ends without it\n"
		"  --check-runner      exit 1 if the runner under hvemu disagrees with the oracle\n"
		"                      where it predicts (the model agrees there)\n"
		"  --out DIR           write QEMU's findings, minimised, to DIR (input and row)\n"
		"  --work DIR          the batch and output files (default: a fresh /tmp dir,\n"
		"                      removed after a run that ends with status 0)\n"
		"  --entered-only      run on the runners only inputs some engine's oracle sees\n"
		"                      VMRUN enter (the others still run on the model)\n"
		"  --verbose           also the runner's stray-page reports\n");
	exit(2);
}

static unsigned long number(const char *s)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 0);
	if (errno || *end || end == s) {
		fprintf(stderr, "svm_exit_diff: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *inputs[256];
	unsigned n_inputs_args = 0;
	diff_opt.on[E_MODEL] = diff_opt.on[E_HVEMU] = diff_opt.on[E_QEMU] = true;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;
		if (!strcmp(a, "--runner") && v)
			diff_opt.runner = v;
		else if (!strcmp(a, "--hvemu") && v)
			diff_opt.hvemu = v;
		else if (!strcmp(a, "--qemu") && v)
			diff_opt.qemu = v;
		else if (!strcmp(a, "--qemu-cpu") && v)
			diff_opt.qemu_cpu = v;
		else if (!strcmp(a, "--cpu") && v)
			diff_opt.hvemu_cpu = v;
		else if (!strcmp(a, "--count") && v)
			diff_opt.count = number(v);
		else if (!strcmp(a, "--seconds") && v)
			diff_opt.seconds = (double)number(v);
		else if (!strcmp(a, "--guard-qemu") && v)
			diff_opt.timeout_qemu = (unsigned)number(v);
		else if (!strcmp(a, "--guard-hvemu") && v)
			diff_opt.timeout_hvemu = (unsigned)number(v);
		else if (!strcmp(a, "--skip") && v)
			diff_opt.skip = number(v);
		else if (!strcmp(a, "--batch") && v)
			diff_opt.batch = number(v);
		else if (!strcmp(a, "--seed") && v)
			diff_opt.seed = number(v);
		else if (!strcmp(a, "--expect") && v)
			diff_opt.expect = v;
		else if (!strcmp(a, "--out") && v)
			diff_opt.out_dir = v;
		else if (!strcmp(a, "--work") && v)
			diff_opt.work = v;
		else if (!strcmp(a, "--engines") && v) {
			diff_opt.on[E_HVEMU] = strstr(v, "hvemu") != NULL;
			diff_opt.on[E_QEMU] = strstr(v, "qemu") != NULL;
		} else {
			takes = false;
			if (!strcmp(a, "--check-runner"))
				diff_opt.check_runner = true;
			else if (!strcmp(a, "--entered-only"))
				diff_opt.entered_only = true;
			else if (!strcmp(a, "--verbose"))
				diff_opt.verbose = true;
			else if (a[0] == '-')
				usage();
			else if (n_inputs_args < 256)
				inputs[n_inputs_args++] = a;
		}
		i += takes;
	}
	if (!diff_opt.runner || (diff_opt.on[E_HVEMU] && !diff_opt.hvemu) || !diff_opt.batch || diff_opt.batch > 100000)
		usage();
	if (access(diff_opt.runner, R_OK) != 0) {
		fprintf(stderr, "svm_exit_diff: the runner %s: %s\n", diff_opt.runner, strerror(errno));
		return 2;
	}
	if (diff_opt.check_runner && !diff_opt.on[E_HVEMU]) {
		fprintf(stderr, "svm_exit_diff: --check-runner needs the hvemu engine\n");
		return 2;
	}
	static char work[64];
	if (!diff_opt.work) {
		snprintf(work, sizeof(work), "/tmp/svm_exit_diff.XXXXXX");
		if (!mkdtemp(work)) {
			fprintf(stderr, "svm_exit_diff: cannot make a work directory: %s\n", strerror(errno));
			return 1;
		}
		diff_opt.work = work;
	} else if (mkdir(diff_opt.work, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "svm_exit_diff: %s: %s\n", diff_opt.work, strerror(errno));
		return 1;
	}
	if (diff_opt.out_dir && mkdir(diff_opt.out_dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "svm_exit_diff: %s: %s\n", diff_opt.out_dir, strerror(errno));
		return 1;
	}

	svm_exit_machine_init(&model);
	ocpu[E_MODEL] = model.ocpu;
	oracle_quiet = true;
	int pr = probe();
	if (pr)
		return pr;

	/* The inputs: the files named and the corpus directories' files, then
	 * random ones. */
	static char *files[8192];
	unsigned n_files = 0;
	for (unsigned i = 0; i < n_inputs_args; i++) {
		struct stat st;
		if (stat(inputs[i], &st) != 0) {
			fprintf(stderr, "svm_exit_diff: %s: %s\n", inputs[i], strerror(errno));
			return 2;
		}
		if (!S_ISDIR(st.st_mode)) {
			files[n_files++] = strdup(inputs[i]);
			continue;
		}
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "ls -1 '%s'", inputs[i]);
		FILE *ls = popen(cmd, "r");
		char line[512];
		while (ls && fgets(line, sizeof(line), ls) && n_files < 8192) {
			line[strcspn(line, "\n")] = 0;
			char path[1100];
			snprintf(path, sizeof(path), "%s/%s", inputs[i], line);
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
				files[n_files++] = strdup(path);
		}
		if (ls)
			pclose(ls);
	}

	struct item **items = calloc(diff_opt.batch, sizeof(*items)), **again = calloc(diff_opt.batch, sizeof(*again));
	for (unsigned i = 0; items && i < diff_opt.batch; i++) {
		items[i] = calloc(1, sizeof(**items));
		if (items[i])
			items[i]->data = malloc(512);
		if (!items[i] || !items[i]->data)
			items = NULL;
	}
	enum { POOL = 128 };
	static struct item *pool[POOL];
	for (unsigned i = 0; items && i < POOL; i++) {
		pool[i] = calloc(1, sizeof(**pool));
		if (pool[i])
			pool[i]->data = malloc(512);
		if (!pool[i] || !pool[i]->data)
			items = NULL;
	}
	if (!items || !again) {
		fprintf(stderr, "svm_exit_diff: out of memory\n");
		return 1;
	}
	uint64_t rng = diff_opt.seed;
	static uint8_t skipped[512];
	for (unsigned long i = 0; i < diff_opt.skip; i++)
		random_input(&rng, skipped, sizeof(skipped));
	unsigned long next_file = 0, random_made = diff_opt.skip, model_bad = 0, runner_bad = 0, runner_checked = 0;
	double start = now_seconds(), model_seconds = 0;
	bool found = false;
	printf("svm_exit_diff: %u corpus inputs, then random inputs (seed %#" PRIx64 "), up to %lu inputs or %.0f s, "
	       "batches of %lu; work files in %s\n", n_files, diff_opt.seed, diff_opt.count, diff_opt.seconds, diff_opt.batch, diff_opt.work);
	unsigned long generated = 0, invalid_skipped = 0;
	while (generated < diff_opt.count && now_seconds() - start < diff_opt.seconds && !found) {
		unsigned n = 0;
		double t0 = now_seconds();
		while (n < diff_opt.batch && generated < diff_opt.count) {
			struct item *it = items[n];
			memset(it->have, 0, sizeof(it->have));
			it->n_kinds = 0;
			if (next_file < n_files) {
				FILE *f = fopen(files[next_file], "rb");
				it->len = f ? fread(it->data, 1, 512, f) : 0;
				if (f)
					fclose(f);
				snprintf(it->name, sizeof(it->name), "%s", files[next_file]);
				next_file++;
			} else {
				it->len = random_input(&rng, it->data, 512);
				snprintf(it->name, sizeof(it->name), "random %lu", random_made++);
			}
			generated++;
			run_model(it);
			if (diff_opt.entered_only && all_predict_invalid(it)) {
				invalid_skipped++;
				continue;
			}
			n++;
		}
		model_seconds += now_seconds() - t0;
		if (n && !run_runners(items, n, 1, true))
			return 1;
		inputs_run += n;

		unsigned n_again = 0;
		for (unsigned i = 0; i < n; i++) {
			unsigned bad = compare_item(items[i], false, true);
			if (bad & (1u << E_MODEL))
				model_bad++;
			if (bad & ((1u << E_QEMU) | (1u << E_HVEMU)) && worth_confirming(items[i])) {
				again[n_again++] = items[i];
				for (unsigned k = 0; k < items[i]->n_kinds; k++)
					items[i]->kinds[k]->pending++;
			}
			if (diff_opt.check_runner && items[i]->pred[E_HVEMU].outcome != OUT_UNKNOWN) {
				runner_checked++;
				if (bad & (1u << E_HVEMU))
					runner_bad++;
			}
		}
		/* Confirm the runners' disagreements in a batch of their own,
		 * with a guard 8 times as long. */
		if (n_again) {
			printf("svm_exit_diff: confirming %u inputs\n", n_again);
			if (!run_runners(again, n_again, 8, false))
				return 1;
			for (unsigned k = 0; k < n_kinds; k++) {
				kinds[k].rerun += kinds[k].pending;
				kinds[k].pending = 0;
			}
			for (unsigned i = 0; i < n_again; i++) {
				unsigned bad = compare_item(again[i], true, false);
				if (!(bad & (1u << E_QEMU)))
					continue;
				for (unsigned k = 0; diff_opt.out_dir && k < n_kinds; k++) {
					if (strcmp(kinds[k].first, again[i]->name) || strncmp(kinds[k].what, "qemu", 4))
						continue;
					/* The input, shrunk, as the runners last ran it. */
					minimise(again[i], &kinds[k], pool, POOL);
					write_finding(pool[0], kinds[k].what);
				}
				char want[96];
				snprintf(want, sizeof(want), "qemu vs oracle: %s", diff_opt.expect ? diff_opt.expect : "");
				struct kind *k = diff_opt.expect ? kind_find(want) : NULL;
				if (k && k->confirmed && !found) {
					found = true;
					printf("svm_exit_diff: found the expected disagreement (%s) at input %s, after %lu "
					       "inputs (%lu on the runners) in %.1f s\n", want, again[i]->name, generated,
					       inputs_run, now_seconds() - start);
				}
			}
		}
		printf("svm_exit_diff: %lu inputs, %lu on the runners, %.0f s\n", generated, inputs_run, now_seconds() - start);
	}

	/* The summary. */
	printf("\nsvm_exit_diff: %lu inputs (%lu random) in %.1f s, %lu of them on the runners; the oracle had no "
	       "prediction for %lu\n", generated, random_made - diff_opt.skip, now_seconds() - start, inputs_run, unknown_inputs);
	if (invalid_skipped)
		printf("svm_exit_diff: %lu inputs every oracle saw fail VMRUN's checks ran on the model only "
		       "(--entered-only)\n", invalid_skipped);
	printf("svm_exit_diff: model %.0f inputs/s (decode, predict, run)", model_seconds > 0 ? (double)inputs_run / model_seconds : 0);
	for (unsigned e = E_HVEMU; e < E_COUNT; e++)
		if (diff_opt.on[e] && engine_seconds[e] > 0)
			printf("; %s %.0f inputs/s (batches, start-up included)", engine_name[e],
			       (double)engine_inputs[e] / engine_seconds[e]);
	printf("\n");
	printf("svm_exit_diff: disagreements by kind (inputs; of the first few run again, how many showed it again; "
	       "first input):\n");
	for (unsigned k = 0; k < n_kinds; k++)
		printf("  %-62s %6lu  %2lu/%-2lu  %s\n", kinds[k].what, kinds[k].count, kinds[k].confirmed, kinds[k].rerun,
		       kinds[k].first);
	int status = 0;
	if (diff_opt.check_runner) {
		printf("svm_exit_diff: runner under hvemu vs the oracle: %lu of %lu predicted inputs disagree\n", runner_bad,
		       runner_checked);
		if (runner_bad || !runner_checked)
			status = 1;
	}
	if (model_bad)
		printf("svm_exit_diff: the model disagreed with the oracle on %lu inputs\n", model_bad);
	if (diff_opt.expect && !found) {
		printf("svm_exit_diff: no confirmed disagreement of QEMU's on %s\n", diff_opt.expect);
		status = 1;
	}
	if (status == 0 && diff_opt.work == work)
		remove_work(work);
	for (unsigned i = 0; items && i < diff_opt.batch; i++) {
		free(items[i]->data);
		free(items[i]);
	}
	free(items);
	free(again);
	return status;
}
