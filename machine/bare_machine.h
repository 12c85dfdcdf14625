/* The smallest machine: RAM, an empty port bus and one CPU on them, no
 * devices, no clock. The one-instruction unit suites (tests/unit/
 * machine_fixture.h) and the CPU fuzz targets (fuzz/fuzz_machine.h) run code
 * in it; the full machine (machine/machine.h) adds the PC around the same
 * parts. */
#ifndef HVEMU_MACHINE_BARE_MACHINE_H
#define HVEMU_MACHINE_BARE_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"
#include "emu/cpu.h"
#include "emu/cpu_model.h"

struct bare_machine {
	struct physmem pm;
	struct iobus io;
	struct cpu cpu;            /* cpu_init()ed on pm and io */
};

/* ram_size bytes of zeroed RAM, the bus, and the CPU of model (NULL: the
 * core's defaults) in its RESET state. False if the RAM cannot be
 * allocated (nothing to destroy then). */
bool bare_machine_init(struct bare_machine *m, const struct cpu_model *model, uint64_t ram_size);
void bare_machine_destroy(struct bare_machine *m);

/* Whether stores to RAM that do not come from the CPU's own instructions
 * (devices, a loader, a test) drop what it decoded there: on for a run whose
 * code a device or another CPU may change, off while the host rewrites RAM
 * before a reset anyway. */
void bare_machine_watch_stores(struct bare_machine *m, bool on);

/* That hook (struct physmem on_ram_write) for any machine: opaque is the CPU,
 * which passes the store on to every CPU of its ring (emu/memory.c). */
void machine_ram_written(void *cpu, uint64_t pa, unsigned size);

#endif
