/* The processor's side of its local APIC (devices/lapic.h): the IA32_APIC_BASE
 * MSR and its mode transitions, the xAPIC page the processor's own memory
 * accesses reach, the x2APIC MSRs 800H-8FFH, IA32_TSC_DEADLINE, and CR8 as the
 * task-priority register. A CPU without a local APIC (cpu->lapic NULL) keeps
 * the IA32_APIC_BASE MSR of its family and nothing else. */
#ifndef HVEMU_EMU_APIC_H
#define HVEMU_EMU_APIC_H

#include "emu/cpu.h"

#define APIC_BASE_BSP  (1ull << 8)    /* IA32_APIC_BASE (SDM Vol.3 Figure 10-26) */
#define APIC_BASE_EXTD (1ull << 10)
#define APIC_BASE_EN   (1ull << 11)
#define MSR_TSC_DEADLINE 0x6e0u       /* IA32_TSC_DEADLINE (SDM Vol.4 Table 2-2) */

/* Give cpu its local APIC l (the machine's; its mode follows IA32_APIC_BASE)
 * and initial APIC ID id. */
void cpu_attach_lapic(struct cpu *cpu, struct lapic *l, uint32_t id);

/* Recompute cpu->apic_page from IA32_APIC_BASE and the APIC's mode (after a
 * RESET or a write of the MSR). */
void cpu_apic_update_page(struct cpu *cpu);

/* WRMSR IA32_APIC_BASE: false for #GP(0) (reserved bits; SDM 10.12.5: the
 * invalid state EN=0 EXTD=1, x2APIC -> xAPIC, disabled -> x2APIC). */
bool cpu_apic_base_write(struct cpu *cpu, uint64_t v);

/* Whether index is in the x2APIC MSR range of an APIC that has x2APIC mode. */
bool cpu_apic_msr(const struct cpu *cpu, uint32_t index);
/* RDMSR/WRMSR of an x2APIC register: false for #GP(0) (devices/lapic.h). */
bool cpu_apic_msr_read(struct cpu *cpu, uint32_t index, uint64_t *value);
bool cpu_apic_msr_write(struct cpu *cpu, uint32_t index, uint64_t value);

/* IA32_TSC_DEADLINE exists (CPUID.1:ECX[24], an APIC with TSC-deadline mode). */
bool cpu_has_tsc_deadline(const struct cpu *cpu);
uint64_t cpu_tsc_deadline_read(struct cpu *cpu);
void cpu_tsc_deadline_write(struct cpu *cpu, uint64_t value);
/* The TSC was written: an armed deadline moves with it. */
void cpu_apic_tsc_changed(struct cpu *cpu);

/* An access of len bytes (one page) at physical pa in cpu->apic_page. */
void cpu_apic_mmio(struct cpu *cpu, uint64_t pa, unsigned len, bool write, uint8_t *buf);

/* CR8: TPR[7:4] (SDM Vol.3 10.8.6.1); cpu->cr8 without an APIC. */
uint64_t cpu_cr8_read(const struct cpu *cpu);
void cpu_cr8_write(struct cpu *cpu, uint64_t v);

#endif
