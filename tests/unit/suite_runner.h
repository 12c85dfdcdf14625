/* The main() of a unit suite: run every case of s (forked, CK_NORMAL output)
 * and give the exit status meson reads, failure if any case failed. Header
 * only, so suites that link no emulator library (test_trace, test_devices)
 * use it too. */
#ifndef TESTS_UNIT_SUITE_RUNNER_H
#define TESTS_UNIT_SUITE_RUNNER_H

#include <check.h>
#include <stdlib.h>

static inline int run_suite(Suite *s)
{
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
