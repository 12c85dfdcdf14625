/* Snapshot files: `hvemu run ... --snapshot-at N FILE` writes the machine as
 * it is when its time reaches N instructions, and `hvemu run --resume FILE`
 * goes on from there, to the same serial output, exit status and final time
 * as the run that was never stopped (a bug report carries the machine just
 * before the failure).
 *
 * The file: a header (magic, format version, the build it is for: hvemu's
 * version and the sizes of the state structs, a checksum of the rest), the
 * run's option words (the machine's configuration; --snapshot-at and
 * --serial left out), and the in-memory snapshot's parts
 * (machine/machine_snapshot.h): struct machine, the APs and the hypervisor
 * models, each as it was after set-up and as it is at N, the fw_cfg items,
 * and the non-zero RAM pages.
 *
 * Resuming builds the machine again from the option words (the images they
 * name must still be readable: set-up loads them, the state then replaces
 * what they put in RAM), then takes the saved state word by word: a word
 * the saved run never changed after set-up keeps the new process's value
 * (that is every pointer of the wiring: callbacks, device back-pointers,
 * files), a changed one takes the saved value, translated when it points
 * into one of the saved process's objects, RAM, ROMs or the executable
 * (timer lists, the VMCB in RAM, names of exits) to the same place here.
 * TLB entries hold host addresses minus linear ones and are translated
 * apart. A value that changed and happens to equal an address inside one of
 * those objects would be misread as a pointer; guest-visible state cannot
 * know host addresses, so it does not happen by accident.
 *
 * One CPU; no --gdb, --keys or display window on either side (their state
 * is the front end's). The same hvemu build must read it. */
#ifndef HVEMU_CLI_SNAPSHOT_FILE_H
#define HVEMU_CLI_SNAPSHOT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine/machine_snapshot.h"

/* Write path: the option words (count n), the machine at set-up and now.
 * False with a one-line reason in err. */
bool snapshot_file_write(const char *path, char *const *words, int n, const struct machine *m,
			 const struct machine_snapshot *setup, const struct machine_snapshot *now, char *err,
			 size_t errlen);

/* A file read and checked (not yet applied). */
struct snapshot_file {
	unsigned char *data;       /* the whole file */
	size_t size;
	char **words;              /* the option words, in data's copy */
	int n_words;
};

/* Read and check path; false with a one-line reason in err. */
bool snapshot_file_read(struct snapshot_file *f, const char *path, char *err, size_t errlen);

/* Put the saved state into m, which was just set up (run_setup) from f's
 * option words. False with a one-line reason in err (m unusable then). */
bool snapshot_file_apply(const struct snapshot_file *f, struct machine *m, char *err, size_t errlen);

void snapshot_file_free(struct snapshot_file *f);

/* The words of `hvemu run` with --snapshot-at N FILE and --resume FILE taken
 * out: words, what the options table parses (a resumed file's words, then
 * the command line's), and recorded, what a snapshot records (words but
 * --serial, an output). */
struct snapshot_args {
	uint64_t at;               /* --snapshot-at N, 0: none */
	const char *path;          /* ... FILE */
	bool resuming;             /* --resume: resume holds the file */
	struct snapshot_file resume;
	char **words, **recorded;
	int n_words, n_recorded;
};

/* Split argv (argc words); false with a one-line reason in err (then call
 * snapshot_args_free all the same). */
bool snapshot_args_split(struct snapshot_args *a, int argc, char **argv, char *err, size_t errlen);
void snapshot_args_free(struct snapshot_args *a);

#endif
