/* A readable dump of the guest's page tables for one CR3 (--dump-pt): the
 * mapped linear ranges, coalesced where consecutive pages map consecutive
 * physical addresses with the same rights. */
#ifndef HVEMU_MMU_PAGING_DUMP_H
#define HVEMU_MMU_PAGING_DUMP_H

#include <stdio.h>

#include "mmu/paging.h"

/* Print every present leaf reachable from env->cr3 in env->mode to out.
 * Entries with reserved bits are printed as they are, marked "rsvd?" only by the
 * walker, not here: this is a view of memory, not a translation. */
void paging_dump(const struct paging_env *env, FILE *out);

#endif
