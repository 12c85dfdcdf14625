/* AFL++ driver for the fuzz targets (-Dfuzzing_engine=afl, built with
 * CC=afl-clang-fast): persistent mode over shared-memory test cases, so one
 * process runs up to PERSISTENT_EXECS inputs between forks and every target
 * keeps its machine and snapshot (svm_exit_fuzz restores instead of
 * rebuilding). Under afl-fuzz:
 *   afl-fuzz -i fuzz/corpus/svm_exit_fuzz -o findings -- build-afl/fuzz/svm_exit_fuzz
 * Outside it, `target FILE...` runs each file once (a crash from
 * findings/default/crashes), and `target < FILE` runs one input. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz/fuzz.h"

#ifndef __AFL_FUZZ_TESTCASE_LEN
#error "fuzz/afl_main.c needs AFL++'s compiler (CC=afl-clang-fast)"
#endif

/* Inputs per process between forks: long enough that forking costs little,
 * short enough that a leak or slow drift does not accumulate. */
#define PERSISTENT_EXECS 10000
#define INPUT_MAX_BYTES (1u << 20)

/* Its expansion ends with its own semicolon. */
__AFL_FUZZ_INIT()

/* Run each named file once; 1 if one cannot be read. */
static int replay_files(int argc, char **argv)
{
	static uint8_t buf[INPUT_MAX_BYTES];
	int status = 0;
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			status = 1;
			continue;
		}
		size_t n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
		printf("%s: %zu bytes ok\n", argv[i], n);
	}
	return status;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return replay_files(argc, argv);
	/* The fork server starts here (deferred), after the loader's work. */
	__AFL_INIT();
	const uint8_t *buf = __AFL_FUZZ_TESTCASE_BUF;
	while (__extension__ __AFL_LOOP(PERSISTENT_EXECS)) {   /* a statement expression */
		/* The length is read inside the loop: the buffer is AFL's shared
		 * memory, rewritten for each input. */
		size_t len = (size_t)__AFL_FUZZ_TESTCASE_LEN;
		LLVMFuzzerTestOneInput(buf, len);
	}
	return 0;
}
