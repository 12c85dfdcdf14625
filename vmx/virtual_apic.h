/* The virtual-APIC page and the interrupt side of APIC virtualization (SDM
 * Vol.3 chapter 29 of 325462-075US): the virtual APIC's registers (29.1),
 * the actions that virtualize TPR, PPR, EOI and self-IPI writes (29.1.2-
 * 29.1.5), virtual-interrupt delivery (29.2) and posted-interrupt
 * processing (29.6). The access side (the APIC-access page, 29.4; x2APIC
 * MSRs, 29.5) calls the virtualizations here once a write is virtualized.
 *
 * The virtual-APIC page sits at the virtual-APIC address (a physical address
 * of L1's memory, 24.6.8); its registers are the xAPIC page's, 32-bit at
 * 16-byte strides:
 *
 *   080H VTPR   0A0H VPPR   0B0H VEOI   100H-170H VISR   180H-1F0H VTMR
 *   200H-270H VIRR   300H VICR_LO   310H VICR_HI
 *
 * RVI and SVI live in the guest interrupt-status field (24.4.2: RVI in bits
 * 7:0, SVI in 15:8), which this file reads and writes in place, so the VM
 * exit saves them with no copy.
 */
#ifndef HVEMU_VMX_VIRTUAL_APIC_H
#define HVEMU_VMX_VIRTUAL_APIC_H

#include <stdbool.h>
#include <stdint.h>

struct vmx;

/* SDM Vol.3 29.1: offsets of the virtual-APIC page. */
enum vapic_offset {
	VAPIC_VTPR = 0x080,
	VAPIC_VPPR = 0x0a0,
	VAPIC_VEOI = 0x0b0,
	VAPIC_VISR = 0x100,        /* 8 registers: vector v at bit v % 32 of 100H + 10H * (v / 32) */
	VAPIC_VTMR = 0x180,
	VAPIC_VIRR = 0x200,
	VAPIC_VICR_LO = 0x300,
	VAPIC_VICR_HI = 0x310,
};

/* A 32-bit register of the virtual-APIC page (29.1), offset 0-FFCH. */
uint32_t vapic_read(struct vmx *v, unsigned offset);
void vapic_write(struct vmx *v, unsigned offset, uint32_t value);

/* 29.1.2 TPR virtualization, after a virtualized write of VTPR: without
 * "virtual-interrupt delivery" a TPR-below-threshold VM exit (trap-like,
 * armed for the next boundary) when VTPR[7:4] < TPR threshold[3:0]; with it,
 * PPR virtualization and the evaluation of pending virtual interrupts. */
void vapic_tpr_virtualization(struct vmx *v);
/* VTPR[7:4] below TPR threshold[3:0] (29.1.2; at VM entry too, 26.7.7). */
bool vapic_tpr_below_threshold(struct vmx *v);
/* 29.1.3 PPR virtualization: VPPR from VTPR and SVI. */
void vapic_ppr_virtualization(struct vmx *v);
/* 29.1.4 EOI virtualization, after a virtualized write of VEOI (with
 * "virtual-interrupt delivery"): the vector SVI names leaves VISR, SVI and
 * VPPR follow; the EOI-exit bitmap's bit for it makes an EOI-induced VM exit
 * (reason 45, qualification the vector), trap-like: taken at the next
 * instruction boundary, before anything else of it (the caller completes
 * its instruction); otherwise pending virtual interrupts are evaluated. */
void vapic_eoi_virtualization(struct vmx *v);
/* 29.1.5 self-IPI virtualization: VIRR[vector] set, RVI raised to it, then
 * the evaluation of pending virtual interrupts. */
void vapic_self_ipi_virtualization(struct vmx *v, uint8_t vector);

/* 29.1.4: does the EOI-exit bitmap (four 64-bit fields) exit for vector? */
bool vapic_eoi_exits(struct vmx *v, uint8_t vector);

/* 29.2.1 the evaluation of pending virtual interrupts: RVI[7:4] > VPPR[7:4]
 * recognizes one (the core's virtual-interrupt-delivery row, armed), else
 * none is recognized. VM entry evaluates (26.3.2.5, 26.7.5). */
void vapic_evaluate(struct vmx *v);
/* 29.2.2 virtual-interrupt delivery of the recognized interrupt: VISR, SVI,
 * VPPR, VIRR, RVI updated, recognition ceases; the vector to deliver
 * through the guest's IDT as an external interrupt. */
uint8_t vapic_deliver(struct vmx *v);

/* 29.6 posted-interrupt processing of an acknowledged external interrupt of
 * the notification vector: the descriptor's ON bit cleared, the local APIC
 * given an EOI, PIR ORed into VIRR and cleared, RVI raised, pending virtual
 * interrupts evaluated. */
void vapic_process_posted(struct vmx *v);

/* A trap-like VM exit of the instruction that just completed (EOI-induced,
 * 29.1.4; also what the access side's APIC-write VM exit, 29.4.3.3, may
 * use): taken at the next instruction boundary with the priority of the
 * TPR-below-threshold VM exit (29.1.2: above SMIs, INIT and lower events;
 * the three never meet: TPR-below-threshold only without virtual-interrupt
 * delivery, the others only with it or with the access exits). */
void vapic_trap_exit(struct vmx *v, uint32_t reason, uint64_t qualification);

#endif
