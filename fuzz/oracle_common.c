/* What the two oracles share: fuzz/oracle_common.h. */
#include "fuzz/oracle_common.h"

#include <inttypes.h>
#include <stdio.h>

void oracle_unknowns_note(struct oracle_unknowns *u, const char *why)
{
	u->total++;
	for (unsigned k = 0; k < ORACLE_UNKNOWN_REASONS; k++) {
		if (u->why[k] == why || !u->why[k]) {
			u->why[k] = why;
			u->count[k]++;
			return;
		}
	}
}

void oracle_unknowns_print(const struct oracle_unknowns *u, const char *prefix, int width)
{
	fprintf(stderr, "%s: unknown, by reason:\n", prefix);
	for (unsigned k = 0; k < ORACLE_UNKNOWN_REASONS && u->why[k]; k++)
		fprintf(stderr, "%s:   %-*s %" PRIu64 "\n", prefix, width, u->why[k], u->count[k]);
}
