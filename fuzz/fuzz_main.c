/* Replay driver for the fuzz targets when no fuzzing engine is linked
 * (-Dfuzzing_engine=none, the dav1d arrangement). Arguments read as libFuzzer
 * reads them:
 *   target FILE...           run each file once (crash reproduction)
 *   target DIR...            run every file of each DIR (a corpus, in name
 *                            order), then the random inputs below
 *   target                   the random inputs only: a fixed-seed random corpus
 *                            of FUZZ_COUNT inputs (default 20000), stopping
 *                            early after FUZZ_SECONDS (default 30, the corpus
 *                            included) so `meson test` is time-boxed.
 * The seed is printed; FUZZ_SEED overrides it. With FUZZ_CURRENT=PATH each
 * random input is written to PATH before it runs, so a crash or hang leaves its
 * reproducer there (replay it with `target PATH`). An input that takes more CPU
 * time than FUZZ_SLOW_MS (default 3000) is reported and fails the run: every target
 * bounds its work, so that is a hang in the making. Random inputs are a mix of
 * uniform random bytes and bytes drawn from a small dictionary of prefixes and
 * opcode escapes, so that multi-byte encodings are reached often. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fuzz/fuzz.h"

#define INPUT_MAX_BYTES (1u << 20)
#define CORPUS_MAX_FILES 4096            /* files read from one directory */

static uint64_t next_random(uint64_t *s)
{
	/* xorshift64*: deterministic and good enough to spread bytes. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* What a run has seen so far. */
struct tally {
	double slow;               /* seconds above which an input counts as slow */
	unsigned long inputs, slow_inputs;
	bool failed;               /* a file could not be read */
};

/* Run one input, timing it in CPU time: on a shared machine a stalled process
 * is not a slow input, while a hang burns CPU. */
static void run_input(struct tally *t, const uint8_t *buf, size_t len, const char *name)
{
	struct timespec a, b;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	LLVMFuzzerTestOneInput(buf, len);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	double took = seconds_between(&a, &b);
	t->inputs++;
	if (took > t->slow) {
		/* A bounded run that takes this long is a hang in the making. */
		printf("fuzz replay: %s (%zu bytes) took %.2f s of CPU time\n", name, len, took);
		t->slow_inputs++;
	}
}

/* Run the file at path; say so when verbose (files named on the command line). */
static void run_file(struct tally *t, const char *path, uint8_t *buf, bool verbose)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		t->failed = true;
		return;
	}
	size_t n = fread(buf, 1, INPUT_MAX_BYTES, f);
	fclose(f);
	run_input(t, buf, n, path);
	if (verbose)
		printf("%s: %zu bytes ok\n", path, n);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Run every regular file of the directory dir, in name order. */
static void run_corpus(struct tally *t, const char *dir, uint8_t *buf)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		t->failed = true;
		return;
	}
	static char *names[CORPUS_MAX_FILES];
	unsigned n = 0;
	for (struct dirent *e; (e = readdir(d)) != NULL && n < CORPUS_MAX_FILES;)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), compare_names);
	unsigned long before = t->inputs;
	for (unsigned i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		if (names[i] && snprintf(path, sizeof(path), "%s/%s", dir, names[i]) < (int)sizeof(path) &&
		    stat(path, &st) == 0 && S_ISREG(st.st_mode))
			run_file(t, path, buf, false);
		free(names[i]);
	}
	printf("fuzz replay: %s: %lu corpus inputs\n", dir, t->inputs - before);
}

static unsigned long env_number(const char *name, unsigned long dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtoul(v, NULL, 0) : dflt;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct tally t = { .slow = (double)env_number("FUZZ_SLOW_MS", 3000) / 1000 };
	uint8_t *file_buf = malloc(INPUT_MAX_BYTES);
	struct timespec t0, now;
	bool random_phase = argc == 1;

	if (!file_buf)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			run_corpus(&t, argv[i], file_buf);
			random_phase = true;
		} else {
			run_file(&t, argv[i], file_buf, true);
		}
	}
	free(file_buf);

	if (random_phase) {
		static const uint8_t dict[] = {
			0x66, 0x67, 0xf0, 0xf2, 0xf3, 0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0x0f, 0x0f, 0x38,
			0x3a, 0x48, 0x4c, 0xc4, 0xc5, 0x8f, 0x62, 0xcd, 0xcf, 0xea, 0x9a, 0xf4, 0x00, 0xff,
		};
		uint64_t seed = env_number("FUZZ_SEED", 0x68766d75u), s = seed;
		unsigned long count = env_number("FUZZ_COUNT", 20000);
		double budget = (double)env_number("FUZZ_SECONDS", 30);
		const char *current = getenv("FUZZ_CURRENT");
		uint8_t buf[512];
		unsigned long before = t.inputs;

		printf("fuzz replay: seed %#llx, up to %lu inputs, %.0f s\n", (unsigned long long)seed,
		       count, budget);
		for (unsigned long i = 0; i < count; i++) {
			size_t len = 1 + next_random(&s) % sizeof(buf);
			unsigned dict_pct = (unsigned)(next_random(&s) % 60);
			for (size_t k = 0; k < len; k++) {
				uint64_t r = next_random(&s);
				buf[k] = r % 100 < dict_pct ? dict[(r >> 8) % sizeof(dict)] : (uint8_t)(r >> 32);
			}
			if (current) {
				FILE *f = fopen(current, "wb");
				if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
					fprintf(stderr, "%s: cannot write\n", current);
					return 1;
				}
			}
			char name[32];
			snprintf(name, sizeof(name), "input %lu", i);
			run_input(&t, buf, len, name);
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (seconds_between(&t0, &now) > budget)
				break;
		}
		printf("fuzz replay: %lu random inputs\n", t.inputs - before);
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	double took = seconds_between(&t0, &now);
	printf("fuzz replay: %lu inputs in %.1f s (%.0f/s), %lu slower than %.1f s\n", t.inputs, took,
	       took > 0 ? (double)t.inputs / took : 0.0, t.slow_inputs, t.slow);
	return t.slow_inputs || t.failed ? 1 : 0;
}
