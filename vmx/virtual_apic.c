/* The virtual-APIC page and the interrupt side of APIC virtualization (see
 * virtual_apic.h). Section numbers are SDM Vol.3's (325462-075US). */
#include "devices/lapic.h"
#include "emu/cpu.h"
#include "emu/event_step.h"
#include "vmx/exit_reasons.h"
#include "vmx/model.h"
#include "vmx/virtual_apic.h"

/* SDM Vol.3 29.6: the posted-interrupt descriptor: PIR in bits 255:0 (one
 * bit per vector), the outstanding-notification bit ON at bit 256. */
#define PID_PIR 0x00u
#define PID_ON_BYTE 0x20u          /* the byte holding bit 256 */

static uint64_t vapic_page(struct vmx *v)
{
	return vmcs_get(v, VMCS_ROW_VIRTUAL_APIC_ADDR) & ~0xfffull;
}

uint32_t vapic_read(struct vmx *v, unsigned offset)
{
	return (uint32_t)physmem_read(v->cpu->mem, vapic_page(v) + (offset & 0xffcu), 4);
}

void vapic_write(struct vmx *v, unsigned offset, uint32_t value)
{
	physmem_write(v->cpu->mem, vapic_page(v) + (offset & 0xffcu), 4, value);
}

/* ---- RVI and SVI (24.4.2: the guest interrupt status) ---- */

static uint8_t rvi(struct vmx *v)
{
	return (uint8_t)vmcs_get(v, VMCS_ROW_GUEST_INTR_STATUS);
}

static uint8_t svi(struct vmx *v)
{
	return (uint8_t)(vmcs_get(v, VMCS_ROW_GUEST_INTR_STATUS) >> 8);
}

static void set_rvi(struct vmx *v, uint8_t value)
{
	vmcs_set(v, VMCS_ROW_GUEST_INTR_STATUS, (vmcs_get(v, VMCS_ROW_GUEST_INTR_STATUS) & 0xff00u) | value);
}

static void set_svi(struct vmx *v, uint8_t value)
{
	vmcs_set(v, VMCS_ROW_GUEST_INTR_STATUS, (vmcs_get(v, VMCS_ROW_GUEST_INTR_STATUS) & 0xffu) |
						(uint64_t)value << 8);
}

/* ---- the 256-bit registers VISR and VIRR (29.1.1) ---- */

static void set_bit(struct vmx *v, unsigned base, uint8_t vector, bool on)
{
	unsigned reg = base + 0x10u * (vector / 32);
	uint32_t w = vapic_read(v, reg), bit = 1u << (vector % 32);
	vapic_write(v, reg, on ? w | bit : w & ~bit);
}

/* The highest vector set in VISR or VIRR, 0 if none ("if any bits set ...
 * else 0", 29.1.4, 29.2.2). */
static uint8_t highest(struct vmx *v, unsigned base)
{
	for (int reg = 7; reg >= 0; reg--) {
		uint32_t w = vapic_read(v, base + 0x10u * (unsigned)reg);
		if (w)
			return (uint8_t)(reg * 32 + 31 - __builtin_clz(w));
	}
	return 0;
}

/* ---- the virtualizations of 29.1 ---- */

void vapic_ppr_virtualization(struct vmx *v)
{
	/* SDM Vol.3 29.1.3: VPPR := VTPR & FFH if VTPR[7:4] >= SVI[7:4], else
	 * SVI & F0H; the rest of the register cleared. */
	uint32_t vtpr = vapic_read(v, VAPIC_VTPR) & 0xffu;
	uint8_t s = svi(v);
	vapic_write(v, VAPIC_VPPR, (vtpr >> 4) >= (unsigned)(s >> 4) ? vtpr : (uint32_t)(s & 0xf0u));
}

bool vapic_tpr_below_threshold(struct vmx *v)
{
	return ((vapic_read(v, VAPIC_VTPR) >> 4) & 0xf) < (vmcs_get(v, VMCS_ROW_TPR_THRESHOLD) & 0xf);
}

void vapic_tpr_virtualization(struct vmx *v)
{
	/* SDM Vol.3 29.1.2: without virtual-interrupt delivery, VTPR[7:4] below
	 * TPR threshold[3:0] makes a trap-like TPR-below-threshold VM exit;
	 * with it, PPR virtualization, then the evaluation of pending virtual
	 * interrupts. */
	if (!vmx_proc2_ctl(v, VMX_PROC2_VIRTUAL_INTR_DELIVERY)) {
		if (vapic_tpr_below_threshold(v))
			cpu_hv_arm(v->cpu, HV_ARM_TPR_THRESHOLD);
		return;
	}
	vapic_ppr_virtualization(v);
	vapic_evaluate(v);
}

bool vapic_eoi_exits(struct vmx *v, uint8_t vector)
{
	static const enum vmcs_row bitmap[] = { VMCS_ROW_EOI_EXIT_BITMAP0, VMCS_ROW_EOI_EXIT_BITMAP1,
						VMCS_ROW_EOI_EXIT_BITMAP2, VMCS_ROW_EOI_EXIT_BITMAP3 };
	return (vmcs_get(v, bitmap[vector / 64]) >> (vector % 64)) & 1;
}

void vapic_eoi_virtualization(struct vmx *v)
{
	/* SDM Vol.3 29.1.4: Vector := SVI; VISR[Vector] := 0; SVI := the
	 * highest vector left in VISR (0: none); PPR virtualization; an
	 * EOI-induced VM exit with Vector as its qualification if
	 * EOI_exit_bitmap[Vector] = 1, else the evaluation of pending virtual
	 * interrupts. */
	uint8_t vector = svi(v);
	set_bit(v, VAPIC_VISR, vector, false);
	set_svi(v, highest(v, VAPIC_VISR));
	vapic_ppr_virtualization(v);
	if (vapic_eoi_exits(v, vector))
		vapic_trap_exit(v, VMX_EXIT_VIRTUALIZED_EOI, vector);
	else
		vapic_evaluate(v);
}

void vapic_self_ipi_virtualization(struct vmx *v, uint8_t vector)
{
	/* SDM Vol.3 29.1.5: VIRR[Vector] := 1; RVI := max(RVI, Vector);
	 * evaluate pending virtual interrupts. */
	set_bit(v, VAPIC_VIRR, vector, true);
	if (vector > rvi(v))
		set_rvi(v, vector);
	vapic_evaluate(v);
}

void vapic_trap_exit(struct vmx *v, uint32_t reason, uint64_t qualification)
{
	v->trap_exit_reason = reason;
	v->trap_exit_qualification = qualification;
	cpu_hv_arm(v->cpu, HV_ARM_TPR_THRESHOLD);
}

/* ---- virtual-interrupt delivery (29.2) ---- */

void vapic_evaluate(struct vmx *v)
{
	/* SDM Vol.3 29.2.1: a pending virtual interrupt is recognized when
	 * "interrupt-window exiting" is 0 and RVI[7:4] > VPPR[7:4]; otherwise
	 * none is. */
	bool window = vmcs_get(v, VMCS_ROW_PRIMARY_PROC_CONTROLS) & VMX_CTL(VMX_PROC_INTR_WINDOW_EXITING);
	if (!window && (rvi(v) >> 4) > ((vapic_read(v, VAPIC_VPPR) >> 4) & 0xf))
		cpu_hv_arm(v->cpu, HV_ARM_VIRTUAL_INTR);
	else
		cpu_hv_disarm(v->cpu, HV_ARM_VIRTUAL_INTR);
}

uint8_t vapic_deliver(struct vmx *v)
{
	/* SDM Vol.3 29.2.2: Vector := RVI; VISR[Vector] := 1; SVI := Vector;
	 * VPPR := Vector & F0H; VIRR[Vector] := 0; RVI := the highest vector
	 * left in VIRR (0: none); deliver Vector through the IDT; cease
	 * recognition of any pending virtual interrupt. */
	uint8_t vector = rvi(v);
	set_bit(v, VAPIC_VISR, vector, true);
	set_svi(v, vector);
	vapic_write(v, VAPIC_VPPR, vector & 0xf0u);
	set_bit(v, VAPIC_VIRR, vector, false);
	set_rvi(v, highest(v, VAPIC_VIRR));
	cpu_hv_disarm(v->cpu, HV_ARM_VIRTUAL_INTR);
	return vector;
}

/* ---- posted-interrupt processing (29.6) ---- */

void vapic_process_posted(struct vmx *v)
{
	struct cpu *cpu = v->cpu;
	uint64_t desc = vmcs_get(v, VMCS_ROW_POSTED_INTR_DESC_ADDR);
	/* 29.6 step 3 (steps 1-2, the acknowledge and the vector's match, are
	 * the caller's): ON (bit 256) cleared, the rest of the descriptor kept
	 * (a locked AND: one byte written here). */
	uint8_t on = (uint8_t)physmem_read(cpu->mem, desc + PID_ON_BYTE, 1);
	physmem_write(cpu->mem, desc + PID_ON_BYTE, 1, on & ~1u);
	/* Step 4: zero written to the local APIC's EOI register dismisses the
	 * notification vector, whichever the APIC's mode (an MMIO write would
	 * be dropped in x2APIC mode and leave the vector in service). */
	if (cpu->lapic)
		lapic_eoi(cpu->lapic);
	/* Steps 5-6: PIR ORed into VIRR and cleared (no other agent between:
	 * hvemu runs one CPU at a time); RVI := max(RVI, the highest PIR bit),
	 * unchanged if PIR was clear. */
	int top = -1;
	for (unsigned reg = 0; reg < 8; reg++) {
		uint32_t pir = (uint32_t)physmem_read(cpu->mem, desc + PID_PIR + 4 * reg, 4);
		if (!pir)
			continue;
		physmem_write(cpu->mem, desc + PID_PIR + 4 * reg, 4, 0);
		vapic_write(v, VAPIC_VIRR + 0x10u * reg, vapic_read(v, VAPIC_VIRR + 0x10u * reg) | pir);
		top = (int)(reg * 32 + 31 - (unsigned)__builtin_clz(pir));
	}
	if (top > rvi(v))
		set_rvi(v, (uint8_t)top);
	/* Step 7: evaluate pending virtual interrupts (29.2.1). */
	vapic_evaluate(v);
}
