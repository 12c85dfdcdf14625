/* The machine's processors and their interrupt controllers: N CPUs (--smp N,
 * CPU 0 the BSP, the others waiting for INIT-SIPI-SIPI), a local APIC in each
 * (when the CPU model has one), the APIC bus and the I/O APIC at FEC00000H,
 * and the deterministic round-robin schedule that runs them.
 *
 * The schedule: the CPUs take turns in CPU order, each for a quantum of
 * virtual time (--quantum, default SMP_DEFAULT_QUANTUM ticks of the clock, one
 * per retired instruction). There is one virtual clock: a CPU's turn starts at
 * the time the previous one ended, so the machine's time is the sum of every
 * CPU's instructions and each CPU's TSC (RDTSC = its clock + its TSC offset)
 * reads that one time: TSCs agree across CPUs until software writes one. A
 * halted CPU (HLT, waiting for a SIPI) gives its turn up at once; when every
 * CPU is halted, time jumps to the next timer, and with no timer armed the
 * run ends (exit status 8). Nothing depends on the host: two runs schedule
 * the same instructions at the same virtual times. */
#ifndef HVEMU_MACHINE_SMP_H
#define HVEMU_MACHINE_SMP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "devices/apic_bus.h"
#include "devices/ioapic.h"
#include "devices/lapic.h"
#include "emu/cpu.h"

#define MACHINE_MAX_CPUS APIC_BUS_MAX_CPUS
#define SMP_DEFAULT_QUANTUM 1000
#define SMP_MAX_QUANTUM 1000000000u   /* --quantum's bound: a second at the default rate */

struct machine;
struct machine_config;

struct smp {
	unsigned n;                /* CPUs (--smp) */
	uint64_t quantum;          /* instructions per turn (--quantum) */
	uint64_t limit;            /* --max-insns: the machine's time limit, 0: none */
	struct cpu *cpu[MACHINE_MAX_CPUS];   /* [0] is the machine's cpu, the BSP */
	struct cpu *current;       /* the CPU whose turn it is (the clock's time) */
	uint64_t turn_end;         /* when current's turn ends */
	bool resume;               /* smp_run() goes on with current's turn where the last call
				      stopped, rather than a new round from CPU 0: a debugger
				      stops the machine mid-turn and resumes it (cli/debug_stops.c) */
	bool has_apic;             /* the CPU model has a local APIC (CPUID.1:EDX[9]) */
	struct lapic lapic[MACHINE_MAX_CPUS];
	struct apic_bus bus;
	struct ioapic ioapic;
};

/* Build the CPUs after the BSP (m->cpu, already cpu_init()ed), their local
 * APICs and the I/O APIC, and wire them to the machine's clock. False with a
 * reason in err. */
bool smp_setup(struct machine *m, const struct machine_config *cfg, char *err, size_t errlen);
void smp_destroy(struct machine *m);

/* The state firmware leaves for a kernel (a Multiboot or flat-image start): the
 * BSP's local APIC software-enabled with LINT0 in ExtINT and LINT1 in NMI
 * mode (the MP specification's virtual wire mode, as SeaBIOS leaves it under
 * QEMU). A --bios start keeps the power-up state. */
void smp_firmware_handoff(struct machine *m);

/* The CPU whose turn it is (CPU 0 before the run). */
struct cpu *smp_current(struct machine *m);

/* The machine's LINT pins (pin 0: the 8259's INT, 1: the NMI mask's output)
 * on every CPU, as an irq_line receiver (opaque: the machine). */
void smp_set_lint(void *opaque, unsigned pin, bool level);

/* With local APICs (after pc_legacy_setup): the 8259A's INT on every CPU's
 * LINT0 and its INTA behind the APICs' ExtINT, the NMI mask's output on LINT1,
 * the ISA IRQs and the HPET's routes on the I/O APIC's pins (machine/pc_legacy.h). */
void smp_wire_legacy(struct machine *m);

/* Run the schedule until the run ends: the status that ended it, with
 * smp_current() the CPU that ended it. *stop (a signal handler's flag) ends the
 * run after the current turn. */
status_t smp_run(struct machine *m, const volatile sig_atomic_t *stop);

#endif
