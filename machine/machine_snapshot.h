/* The whole machine at one instruction boundary, kept in memory: every CPU
 * (registers, FPU/SSE, MSRs, pending events, its TLB), each CPU's hypervisor
 * model (SVM's or VMX's state), every device, the virtual clock and its
 * armed timers, and RAM. Putting it back makes the machine run on exactly as
 * it ran on from there (runs are deterministic), which is how a debugger goes
 * back in time (cli/reverse.h).
 *
 * How it stays complete: the devices, the clock, the BSP and the schedule
 * are plain fields of struct machine, whose pointers point into the machine
 * itself, into RAM or at set-up's read-only data, none of which moves while
 * the process lives; the snapshot copies the struct as a whole, so a field
 * added to a device is in it without anyone listing it. What lives outside
 * the struct is listed here, and only here: the other CPUs (smp.cpu[1..]),
 * the hypervisor models (hv[].model, hv_state_size() bytes each), the fw_cfg
 * items' bytes (a firmware's refresh replaces them) and RAM. A snapshot is
 * therefore for this process and this machine only (cli/ writes files of
 * its own).
 *
 * What a restore does not put back: the decoded-block caches (emptied: their
 * blocks describe the RAM that was), and what was already written out of the
 * machine: the UART's output (the bytes transmitted again after a restore
 * go to its file only past the count it wrote before, devices/uart16550.h),
 * the debug console's, traces. The front end's observers (tracing,
 * statistics, a debugger's) must be those that were installed at capture.
 *
 * RAM is kept by 4 KiB page: an all-zero page takes no memory, and a page
 * equal to the previous snapshot's (prev in machine_snapshot_take) is shared
 * with it, so periodic snapshots cost the pages written in between. */
#ifndef HVEMU_MACHINE_MACHINE_SNAPSHOT_H
#define HVEMU_MACHINE_MACHINE_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine/machine.h"

struct snapshot_blob;          /* shared, reference-counted bytes */

struct machine_snapshot {
	struct machine *state;     /* the struct machine as it was (the BSP with it) */
	struct cpu *cpus[MACHINE_MAX_CPUS];   /* [1..n-1]: the APs */
	void *hv[MACHINE_MAX_CPUS];           /* each model's bytes, or NULL */
	struct snapshot_blob *fw_cfg[FW_CFG_GENERIC_ITEMS];   /* items' bytes, NULL: empty */
	size_t n_pages;
	struct snapshot_blob **page;          /* RAM page by page, NULL: all zero */
	size_t bytes;              /* memory this snapshot holds alone (not shared) */
};

/* Capture m as it is now (between two machine_run() calls). prev: an earlier
 * snapshot of the same machine whose unchanged pages and items to share, or
 * NULL. False if memory runs out (s is then empty). */
bool machine_snapshot_take(struct machine_snapshot *s, struct machine *m, const struct machine_snapshot *prev);

/* Put m back as s holds it. False only if memory runs out while fw_cfg items
 * are copied back (the machine is then unusable). */
bool machine_snapshot_restore(const struct machine_snapshot *s, struct machine *m);

void machine_snapshot_free(struct machine_snapshot *s);

/* Whether a and b hold the same machine state, ignoring only what is not the
 * machine's (the host's clock, the output marks). Otherwise false with the
 * first difference named in why (the struct field, the CPU, the RAM page):
 * the test for a field a restore misses. */
bool machine_snapshot_same(const struct machine_snapshot *a, const struct machine_snapshot *b, char *why,
			   size_t len);

#endif
