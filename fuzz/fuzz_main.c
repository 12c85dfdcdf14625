/* Replay driver for the fuzz targets when no fuzzing engine is linked
 * (-Dfuzzing_engine=none, the dav1d arrangement):
 *   target FILE...           run each file once (crash reproduction)
 *   target                   a fixed-seed random corpus: FUZZ_COUNT inputs
 *                            (default 20000), stopping early after
 *                            FUZZ_SECONDS (default 30) so `meson test` is time-boxed.
 * The seed is printed; FUZZ_SEED overrides it. With FUZZ_CURRENT=PATH each
 * input is written to PATH before it runs, so a crash or hang leaves its
 * reproducer there (replay it with `target PATH`). An input that runs longer
 * than FUZZ_SLOW_MS (default 3000) is reported and fails the run: every target
 * bounds its work, so that is a hang in the making. Inputs are a mix of uniform random
 * bytes and bytes drawn from a small dictionary of prefixes and opcode escapes,
 * so that multi-byte encodings are reached often. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz/fuzz.h"

#define MAX_INPUT (1u << 20)

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

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	uint8_t *buf = malloc(MAX_INPUT);
	if (!buf) {
		fclose(f);
		return 1;
	}
	size_t n = fread(buf, 1, MAX_INPUT, f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	printf("%s: %zu bytes ok\n", path, n);
	return 0;
}

static unsigned long env_number(const char *name, unsigned long dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtoul(v, NULL, 0) : dflt;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1) {
		int rc = 0;
		for (int i = 1; i < argc; i++)
			rc |= replay_file(argv[i]);
		return rc;
	}

	static const uint8_t dict[] = {
		0x66, 0x67, 0xf0, 0xf2, 0xf3, 0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0x0f, 0x0f, 0x38,
		0x3a, 0x48, 0x4c, 0xc4, 0xc5, 0x8f, 0x62, 0xcd, 0xcf, 0xea, 0x9a, 0xf4, 0x00, 0xff,
	};
	uint64_t seed = env_number("FUZZ_SEED", 0x68766d75u), s = seed;
	unsigned long count = env_number("FUZZ_COUNT", 20000);
	double budget = (double)env_number("FUZZ_SECONDS", 30);
	const char *current = getenv("FUZZ_CURRENT");
	struct timespec t0;
	double slow = (double)env_number("FUZZ_SLOW_MS", 3000) / 1000;
	unsigned long slow_inputs = 0;
	uint8_t buf[512];
	unsigned long i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	printf("fuzz replay: seed %#llx, up to %lu inputs, %.0f s\n", (unsigned long long)seed,
	       count, budget);
	for (i = 0; i < count; i++) {
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
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		LLVMFuzzerTestOneInput(buf, len);
		clock_gettime(CLOCK_MONOTONIC, &b);
		double took = seconds_between(&a, &b);
		if (took > slow) {
			/* A bounded run that takes this long is a hang in the making. */
			printf("fuzz replay: input %lu (%zu bytes) took %.2f s\n", i, len, took);
			slow_inputs++;
		}
		if (seconds_between(&t0, &b) > budget)
			break;
	}
	printf("fuzz replay: %lu inputs, %lu slower than %.1f s\n", i, slow_inputs, slow);
	return slow_inputs ? 1 : 0;
}
