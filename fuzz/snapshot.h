/* A machine snapshot for fuzzers: one CPU, its RAM and its hypervisor model's
 * state, taken once (an L1 stopped at its VMRUN) and restored before every
 * input. A restore copies back only the RAM pages a store may have reached
 * since the last restore (cpu->dirty_pages, set by the core; writes the
 * fuzzer makes itself are noted with snapshot_write()), the CPU's state and
 * the model's, and invalidates the CPU's caches of translations and decoded
 * code: a translation or a block kept across a restore could describe memory
 * that is no longer there.
 */
#ifndef HVEMU_FUZZ_SNAPSHOT_H
#define HVEMU_FUZZ_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/bus.h"
#include "emu/cpu.h"

struct snapshot {
	struct cpu *cpu;
	struct physmem *pm;
	void *hv;                  /* the model's state (cpu->hv_ctx) and its size */
	size_t hv_size;
	uint8_t *ram;              /* RAM as it was */
	struct cpu cpu_state;      /* the CPU as it was (its TLB entries are not used) */
	void *hv_state;
	uint64_t *dirty;           /* installed as cpu->dirty_pages */
	size_t dirty_words;
	uint64_t restored_pages;   /* statistics: pages copied back, restores */
	uint64_t restores;
};

/* Take the snapshot of cpu (with its RAM pm and the model state hv of hv_size
 * bytes) as it is now, and start tracking stores. False if out of memory. */
bool snapshot_take(struct snapshot *s, struct cpu *cpu, struct physmem *pm, void *hv, size_t hv_size);

/* Put the machine back as it was taken. */
void snapshot_restore(struct snapshot *s);

/* Write len bytes at pa of RAM (the fuzzer's input) so that the next restore
 * undoes it; the decoded code of those bytes goes. */
void snapshot_write(struct snapshot *s, uint64_t pa, const void *src, size_t len);

/* The RAM differs from the snapshot's? (tests: a full compare) */
bool snapshot_ram_differs(const struct snapshot *s);

void snapshot_free(struct snapshot *s);

#endif
