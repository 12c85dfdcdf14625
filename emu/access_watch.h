/* Data accesses an observer outside the machine watches (the gdb stub's
 * watchpoints, Z2/Z3/Z4): linear ranges of the running world, with the kind
 * of access each wants. Not architectural: the guest sees nothing (its own
 * DR0-DR3 breakpoints are emu/debug.h).
 *
 * How an access is seen without a test on the fast path: pages holding a
 * watched range never enter the TLB (tlb_fill), so every data access to
 * them takes lin_access_slow, which asks access_watch_check(). Attaching or
 * changing the set must empty the CPU's TLB (access_watch_attach). */
#ifndef HVEMU_EMU_ACCESS_WATCH_H
#define HVEMU_EMU_ACCESS_WATCH_H

#include <stdbool.h>
#include <stdint.h>

struct cpu;

#define ACCESS_WATCH_MAX 32

enum { ACCESS_WATCH_READ = 1, ACCESS_WATCH_WRITE = 2 };

struct access_watch_range {
	uint64_t lin;
	unsigned len;
	unsigned kinds;            /* ACCESS_WATCH_READ | ACCESS_WATCH_WRITE */
};

struct access_watch {
	struct access_watch_range range[ACCESS_WATCH_MAX];
	unsigned n;
	/* The first access that hit since the observer cleared it. */
	bool hit;
	unsigned hit_range;        /* index in range[] */
	unsigned hit_kind;         /* ACCESS_WATCH_READ or ACCESS_WATCH_WRITE */
};

/* Point cpu at w (or NULL: none) and empty its TLB, so that no page holding
 * a range is reached by a cached translation. */
void access_watch_attach(struct cpu *cpu, struct access_watch *w);

/* Whether the 4-KiB page of lin holds (part of) a watched range. */
bool access_watch_page(const struct access_watch *w, uint64_t lin);

/* An access of size bytes at lin (write or read): record the first hit. */
void access_watch_check(struct access_watch *w, uint64_t lin, unsigned size, bool write);

#endif
