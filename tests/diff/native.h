/* The native side of the host-differential test: a forked child that runs each
 * case's bytes on the host CPU (64-bit mode, CPL 3) and sends back the state. */
#ifndef HVEMU_TESTS_DIFF_NATIVE_H
#define HVEMU_TESTS_DIFF_NATIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tests/diff/diff_case.h"

struct native {
	pid_t pid;
	int to, from;
};

/* Fork the helper; false (errno set) on failure. */
bool native_start(struct native *h);
/* Run one case; false if the helper died (its status is then reaped into *status). */
bool native_run(struct native *h, const struct diff_request *rq, struct diff_state *out, int *status);
void native_stop(struct native *h);
/* The X87_NO_* fields this host stores for the last instruction only when it
 * incurred an unmasked exception, or not at all. */
uint32_t native_x87_gaps(void);
/* The host's segment selectors in this process (enum sreg order): what FNSTENV
 * and FNSAVE store as FCS and FDS there. */
void native_selectors(uint16_t sel[6]);
/* Parse an FNSAVE image (32-bit protected-mode format) into x. */
void diff_x87_from_fnsave(struct diff_x87 *x, const uint8_t *img);

#endif
