/* Going back in time under gdb (reverse-stepi, reverse-continue: the RSP's
 * `bs` and `bc`). Runs are deterministic, so the past is recomputed rather
 * than recorded: while the debugger runs the machine, a snapshot of it
 * (machine/machine_snapshot.h) is taken every `--reverse-interval`
 * instructions of virtual time; going back restores the last snapshot
 * before the target and runs forward to the target with nothing reported
 * (debugger_replay in cli/debug_stops.h).
 *
 * Points. A replay looks at the machine after each instruction and after
 * each VM exit. VMRUN/VMLAUNCH/VMRESUME and the exit take no virtual time
 * (emu/run.c ST_VMEXIT), so the time alone does not name such a boundary:
 * L1 before VMRUN and L2 before its first instruction share it, and so do
 * L2 before an intercepted instruction and L1 after the exit. A point is
 * therefore (time, VM exits so far, in L2?), which grows strictly along a
 * run: within one time and one exit count L1 can only enter L2, and an exit
 * moves the count. The point before a VM-exit stop is thus L2's instruction
 * that exited, or L1's VMRUN when the entry itself failed or exited at once.
 *
 * reverse-stepi goes to the replay boundary before the current point;
 * reverse-continue to the last point before it where a forward run would have
 * stopped (a breakpoint or watchpoint, a --break VM exit or exception),
 * looking back one interval at a time; with none, to the oldest snapshot,
 * which gdb is told is the start of the history. gdb's writes to registers
 * or memory change the future: the snapshots after the current point go.
 *
 * Replays stop the machine where the original run did not, so a stop must
 * leave a run as it was (machine/smp.c: a CPU stopped in HLT goes on
 * waiting; with several CPUs a stopped turn goes on to its end, and one
 * stopped at its end, or given up by PAUSE, passes to the next CPU:
 * tests/snapshot stops runs every 7919 instructions and at every turn's
 * end). With several CPUs there is still one clock and one instruction
 * retires per tick, so the point names a boundary of the machine: going
 * back one step goes to the instruction before, whichever CPU ran it. */
#ifndef HVEMU_CLI_REVERSE_H
#define HVEMU_CLI_REVERSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/debug_stops.h"
#include "machine/machine_snapshot.h"

#define REVERSE_DEFAULT_INTERVAL 2000000u  /* virtual instructions between snapshots */
#define REVERSE_MAX_SNAPSHOTS 256          /* then every other old one goes */
#define REVERSE_MAX_EXTRA 4

struct reverse_point {
	uint64_t time;             /* the machine's time (the running CPU's icount) */
	uint64_t exits;            /* VM exits so far (struct debugger exits) */
	bool in_guest;             /* the running CPU in L2 */
};

struct reverse_snapshot {
	struct reverse_point at;
	struct machine_snapshot s;
	void *extra[REVERSE_MAX_EXTRA];   /* the front end's state with timers on the clock */
};

struct reverse {
	struct debugger *d;
	uint64_t interval;         /* --reverse-interval; 0: no reverse execution */
	struct reverse_snapshot *snaps;   /* by point, oldest first */
	size_t n;
	/* State outside struct machine whose timers are on the machine's clock
	 * (cli/key_script.h, the display's frame): copied with each snapshot. */
	struct reverse_extra {
		void *p;
		size_t len;
	} extra[REVERSE_MAX_EXTRA];
	unsigned n_extra;
	/* Statistics: snapshots taken, restores, instructions replayed, and
	 * the host's time taking and restoring snapshots (seconds). */
	uint64_t taken, restores, replayed;
	double take_seconds, restore_seconds;
};

/* Set up on d (after debugger_init) with snapshots every interval
 * instructions; the first at once. */
void reverse_init(struct reverse *r, struct debugger *d, uint64_t interval);
/* Copy len bytes at p with every snapshot (before the first is taken). */
void reverse_add_extra(struct reverse *r, void *p, size_t len);
void reverse_destroy(struct reverse *r);

/* Where the machine is now. */
struct reverse_point reverse_here(const struct reverse *r);

/* Go back one boundary (false: nothing earlier is known: the machine is
 * where it was, *why says so). *why: the stop to report. */
bool reverse_step(struct reverse *r, struct debug_stop *why);
/* Go back to the last stop a forward run would have made; false: none in
 * the history, the machine is at its start. */
bool reverse_continue(struct reverse *r, struct debug_stop *why);

/* `monitor info reverse`: the history kept, its memory, the statistics
 * (r NULL: none). */
void reverse_describe(const struct reverse *r, char *out, size_t len);

/* gdb changed the machine here: what was computed after now is forgotten. */
void reverse_forget_future(struct reverse *r);

#endif
