/* What svm_exit_fuzz and vmx_exit_fuzz build alike (fuzz/exit_machine.c):
 * the guest-physical layout of 2 MiB, whose L2 world (64 KiB up) is the same
 * in both so that the two fuzzers' findings read alike; the L2's GDT, IDT of
 * 32-bit gates, HLT handler and page tables; and the machine's plumbing (the
 * RAM write hook, the exit observer, the trace). The L1 below 64 KiB is the
 * vendor's (fuzz/svm_exit_fuzz.h, fuzz/vmx_exit_fuzz.h): what it runs and
 * where its structures lie differ with VMRUN and VMLAUNCH.
 */
#ifndef HVEMU_FUZZ_EXIT_MACHINE_H
#define HVEMU_FUZZ_EXIT_MACHINE_H

#include <stdint.h>

#include "emu/cpu.h"
#include "devices/bus.h"
#include "fuzz/oracle_common.h"

/* Guest-physical layout (2 MiB). The L1's pieces both vendors place alike: */
#define RAM_SIZE (2u << 20)
#define L1_GDT 0x1000u
#define L1_IDT 0x2000u
#define L1_HANDLER 0x3000u
#define L1_CODE 0x4000u
#define L1_STACK 0xfff0u
/* L2, identity-mapped below 2 MiB but for the two holes: */
#define L2_GDT 0x10000u            /* null, 08 code32, 10 data, 18 code64, 28 TSS */
#define L2_IDT 0x11000u            /* 32-bit interrupt gates to L2_HANDLER */
#define L2_HANDLER 0x12000u        /* a page of HLT */
#define PD32 0x13000u
#define PT32 0x14000u
#define PML4 0x15000u
#define PDPT 0x16000u
#define PD64 0x17000u
#define PT64 0x18000u
#define L2_TSS 0x19000u
#define L2_CODE 0x20000u           /* two pages */
#define L2_STACK 0x30000u
#define DATA 0x7e000u
#define HOLE 0x7f000u              /* not present; so is page 0 */
#define MAPPED_TOP 0x200000u
#define SEG_BASE_ESCAPE 0x40000000u   /* the Escape OS segment bases */
#define INSN_LIMIT 4096
#define MAX_TEMPLATES 64

/* RAM_SIZE of RAM, an empty I/O bus and a CPU of the named model (emu's
 * cpu_model.c) on them; aborts if either cannot be had. */
void exit_machine_init_cpu(struct physmem *pm, struct iobus *io, struct cpu *cpu, const char *model);

/* What the oracles know of the processor: its CPUID as the L1 sees it now. */
void exit_machine_read_cpuid(struct cpu *cpu, struct oracle_cpuid *id);

/* A GDT entry (SDM Vol.3 3.4.5, APM2 4.7): access byte and the flags nibble
 * (G, D/B, L, AVL) as the descriptor holds them. */
uint64_t exit_descriptor(uint32_t base, uint32_t limit, unsigned access, unsigned flags);

/* Zero RAM and build the L2 world: its GDT, the IDT of 32-bit gates, the
 * HLT handler, the 32-bit and 4-level page tables (present, writable,
 * accessed and dirty, so that the walker writes nothing) and the L2 code
 * area filled with HLT. The vendor adds its L1 and its other IDT. */
void exit_machine_build_l2(struct physmem *pm);

/* Tell the CPU of every RAM write (its decoded blocks and TLB stay true to
 * memory the L1, L2 or the harness rewrites). */
void exit_machine_watch_ram(struct physmem *pm, struct cpu *cpu);

/* Keep the failing check hvemu's VM-exit report names in *failed_check
 * (the oracle's comparison asks for it). */
void exit_machine_observe(struct cpu *cpu, const char **failed_check);

/* HVEMU_FUZZ_TRACE=classes: attach hvemu's trace (emu/trace.h) to cpu. */
void exit_machine_trace_from_env(struct cpu *cpu);

#endif
