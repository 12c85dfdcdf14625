/* The machine the one-instruction unit suites (test_long, test_la57,
 * test_pcid, test_fpu) build: the library's bare machine (machine/
 * bare_machine.h), a CPU from cpu_init() over RAM and an empty I/O bus. machine_init() adds a flat 32-bit protected-mode GDT and
 * identity page tables, so a case can go to IA-32e mode with the same
 * instructions a guest would use. exec() decodes one instruction with
 * decode_insn() and runs its handler, so a case sees the handler's status and
 * the raised event without the fetch loop.
 *
 * Physical layout of machine_init():
 *   GDT_BASE  1000H  null, SEL_CODE32, SEL_DATA, SEL_CODE64, SEL_TSS (16 bytes)
 *   TSS64     3000H  base of the SEL_TSS descriptor (the TSS itself is not written)
 *   PML4     10000H  PML4[0] -> PDPT[0] -> PD: first 1 GiB identity, 2 MiB pages
 * Cases may use other memory for their own tables and data. */
#ifndef TESTS_UNIT_MACHINE_FIXTURE_H
#define TESTS_UNIT_MACHINE_FIXTURE_H

#include <check.h>
#include <stdint.h>

#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "machine/bare_machine.h"

#define RAM_SIZE  (4u << 20)
#define GDT_BASE  0x1000
#define TSS64     0x3000
#define PML4      0x10000
#define PDPT      0x11000
#define PD        0x12000

enum { SEL_CODE32 = 0x08, SEL_DATA = 0x10, SEL_CODE64 = 0x18, SEL_TSS = 0x20 /* 16 bytes */ };

/* The suites' name for it: a case reaches m->pm, m->io and m->cpu. */
#define test_machine bare_machine

/* A segment descriptor (SDM Vol.3 3.4.5): flags are bits 55:52 (G, D/B, L, AVL). */
uint64_t make_desc(uint32_t base, uint32_t limit, uint8_t access, uint8_t flags);

/* The model called name; fails the case if there is none. */
const struct cpu_model *model_named(const char *name);

/* The CPU as cpu_init() leaves it (RESET state, real mode) over ram_size
 * bytes of zeroed RAM. */
void machine_init_bare(struct test_machine *m, const struct cpu_model *model, uint32_t ram_size);

/* RAM_SIZE bytes, the GDT and page tables above; 32-bit protected mode, CPL 0,
 * flat segments, paging off, EFER.SCE|LME clear. */
void machine_init_model(struct test_machine *m, const struct cpu_model *model);
void machine_init(struct test_machine *m, const char *model);
void machine_free(struct test_machine *m);

/* Decode and execute one instruction of exactly len bytes at RIP; returns its
 * status. On ST_FAULT the vector/error code are in cpu.event. */
status_t exec(struct test_machine *m, const uint8_t *bytes, unsigned len);
#define EXEC(m, ...) exec((m), (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

/* WRMSR and MOV to CRn through their instructions (EDX:EAX, RAX). */
status_t wrmsr(struct test_machine *m, uint32_t idx, uint64_t v);
status_t mov_cr(struct test_machine *m, unsigned cr, uint64_t v);

/* CR4 = cr4 (with PAE), CR3 = cr3, EFER.LME|SCE, then CR0.PG: IA-32e mode
 * active, in compatibility mode until CS.L = 1 (SDM Vol.3 9.8.5). activate()
 * is the 4-level case: CR4.PAE and the PML4 above. */
void activate_ia32e(struct test_machine *m, uint64_t cr4, uint64_t cr3);
void activate(struct test_machine *m);

/* CS from the GDT entry sel: load_cs() loads the descriptor only, switch_cs()
 * also recomputes the mode; to64() and to_compat() switch to SEL_CODE64 and
 * SEL_CODE32. */
void load_cs(struct test_machine *m, uint16_t sel);
void switch_cs(struct test_machine *m, uint16_t sel);
void to64(struct test_machine *m);
void to_compat(struct test_machine *m);

/* From now on cpu_run() stops with ST_STOP at the first exception or
 * interrupt, copied into *seen, so a case sees which one the core raised
 * (a hypervisor model that intercepts only events, emu/hv.h). */
void stop_at_events(struct test_machine *m, struct event *seen);

/* st is a fault with this vector (and error code). */
void assert_fault(struct test_machine *m, status_t st, unsigned vector, uint32_t error);
void assert_gp0(struct test_machine *m, status_t st);
void assert_ud(struct test_machine *m, status_t st);

#endif
