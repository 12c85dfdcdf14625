/* The small machine the CPU fuzz targets run guest code in (cpu_fuzz,
 * blockdiff_fuzz): 1 MiB of RAM, real mode at 1000:0000 or flat 32-bit
 * protected mode at CPL 0 with the code at linear 10000H, exception handlers
 * that return to guest code, HLT (F4) bytes around it.
 *
 * Guest-physical layout:
 *   0x00000  real-mode IVT: every vector -> 0000:0500
 *   0x004f0  the handlers' data: a count of events taken (dword), then the
 *            two restart addresses (dwords; IP in real mode, linear in
 *            protected mode)
 *   0x00500  real-mode handler; 0x00540 / 0x00543 the protected-mode one,
 *            entered with / without an error code
 *   0x00800  GDT: null, flat code32 (0x08), flat data32 (0x10), code16 (0x18),
 *            data16 (0x20)
 *   0x01000  IDT: 256 32-bit interrupt gates to the protected-mode handler
 *   0x08000  initial stack top
 *   0x10000  guest code (the input, at most FUZZ_CODE_MAX bytes)
 *   the rest of RAM from 0x01800 up: HLT (F4)
 * The handlers make code run again after a fault, so that what an earlier run
 * of a block left in the decoded-instruction cache is used again: the odd
 * events return to a restart address (the first, then the second, in turn),
 * the even ones one byte past where the event came from (past a faulting
 * instruction's first byte, on through the code). */
#ifndef HVEMU_FUZZ_FUZZ_MACHINE_H
#define HVEMU_FUZZ_FUZZ_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include "emu/cpu.h"
#include "machine/bare_machine.h"

#define FUZZ_RAM_SIZE (1u << 20)
#define FUZZ_CODE_ADDR 0x10000u
#define FUZZ_CODE_MAX 0x4000u
#define FUZZ_STACK_TOP 0x8000u
#define FUZZ_EVENTS_ADDR 0x4f0u
#define FUZZ_RESTART_ADDR 0x4f4u
#define FUZZ_TABLES_END (0x1000u + 256 * 8)

enum fuzz_mode { FUZZ_REAL, FUZZ_PROT32 };

/* The library's bare machine (machine/bare_machine.h): m->pm, m->io, m->cpu. */
#define fuzz_machine bare_machine

/* Set up m (once per process); aborts when the host is out of memory. */
void fuzz_machine_init(struct fuzz_machine *m);

/* RAM as a run starts (the tables, HLT everywhere else, code at FUZZ_CODE_ADDR)
 * and the CPU reset into mode at the code, with both restart addresses at its
 * start. */
void fuzz_machine_load(struct fuzz_machine *m, enum fuzz_mode mode, const uint8_t *code, size_t size);

/* The restart addresses, as linear addresses in 10000H..1FFFFH. */
void fuzz_machine_set_restarts(struct fuzz_machine *m, enum fuzz_mode mode, uint32_t first, uint32_t second);

/* Run until the CPU's instruction count reaches limit (or it halts, shuts
 * down, meets an unsupported instruction), with its stores watched. */
status_t fuzz_machine_run(struct fuzz_machine *m, uint64_t limit);

/* Abort unless st is a status cpu_run() may return. */
void fuzz_check_status(const char *target, status_t st);

#endif
