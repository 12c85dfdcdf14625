/* The processor's side of its local APIC (see apic.h). Section numbers are SDM
 * Vol.3's APIC chapter. */
#include <string.h>

#include "devices/lapic.h"
#include "emu/apic.h"
#include "emu/insn.h"
#include "emu/quirks.h"

void cpu_attach_lapic(struct cpu *cpu, struct lapic *l, uint32_t id)
{
	cpu->lapic = l;
	cpu->apic_id = id;
	cpu_apic_update_page(cpu);
}

void cpu_apic_update_page(struct cpu *cpu)
{
	uint64_t page = UINT64_MAX;
	/* 10.4.1: the page at IA32_APIC_BASE; 10.12.2: "in x2APIC mode, the
	 * memory mapped interface is not available", nor while disabled (10.4.3). */
	if (cpu->lapic && cpu->lapic->mode == LAPIC_XAPIC)
		page = cpu->apic_base & ((1ull << cpu->maxphyaddr) - 1) & ~0xfffull;
	if (page != cpu->apic_page) {
		cpu->apic_page = page;
		/* A RAM page the APIC now covers (or uncovers) must not be reached
		 * through a cached translation. */
		tlb_flush_all(&cpu->tlb);
	}
}

static enum lapic_mode mode_of(uint64_t base)
{
	if (!(base & APIC_BASE_EN))
		return LAPIC_DISABLED;
	return (base & APIC_BASE_EXTD) ? LAPIC_X2APIC : LAPIC_XAPIC;
}

bool cpu_apic_base_write(struct cpu *cpu, uint64_t v)
{
	/* Figure 10-26: BSP (8, read-only), EXTD (10, with x2APIC), EN (11), the
	 * base (12 to MAXPHYADDR-1); the rest reserved. */
	uint64_t writable = APIC_BASE_EN | (((1ull << cpu->maxphyaddr) - 1) & ~0xfffull);
	if (cpu->lapic && cpu->lapic->has_x2apic)
		writable |= APIC_BASE_EXTD;
	else if (cpu_quirk(cpu, QK_QEMU_APIC_EXTD_IGNORED))
		v &= ~APIC_BASE_EXTD;
	if (v & ~(writable | APIC_BASE_BSP))
		return false;
	/* 10.12.5.1: EN=0 EXTD=1 is invalid; leaving x2APIC mode only through the
	 * disabled state; the disabled state goes only to xAPIC mode. */
	enum lapic_mode from = mode_of(cpu->apic_base), to = mode_of(v);
	if (from == LAPIC_DISABLED && to == LAPIC_X2APIC && cpu_quirk(cpu, QK_BOCHS_APIC_DISABLED_TO_X2APIC))
		return true;     /* taken without #GP, the APIC stays disabled */
	if ((v & (APIC_BASE_EN | APIC_BASE_EXTD)) == APIC_BASE_EXTD ||
	    (from == LAPIC_X2APIC && to == LAPIC_XAPIC) || (from == LAPIC_DISABLED && to == LAPIC_X2APIC))
		return false;
	cpu->apic_base = (v & writable) | (cpu->apic_base & APIC_BASE_BSP);
	if (cpu->lapic)
		lapic_set_mode(cpu->lapic, to);
	cpu_apic_update_page(cpu);
	return true;
}

bool cpu_apic_msr(const struct cpu *cpu, uint32_t index)
{
	return index >= 0x800 && index <= 0x8ff && cpu->lapic && cpu->lapic->has_x2apic;
}

bool cpu_apic_msr_read(struct cpu *cpu, uint32_t index, uint64_t *value)
{
	return cpu_apic_msr(cpu, index) && lapic_msr_read(cpu->lapic, index, value);
}

bool cpu_apic_msr_write(struct cpu *cpu, uint32_t index, uint64_t value)
{
	return cpu_apic_msr(cpu, index) && lapic_msr_write(cpu->lapic, index, value);
}

bool cpu_has_tsc_deadline(const struct cpu *cpu)
{
	return cpu->lapic && cpu->lapic->has_tsc_deadline;
}

uint64_t cpu_tsc_deadline_read(struct cpu *cpu)
{
	return lapic_tsc_deadline(cpu->lapic);
}

/* The TSC is the clock's tick count plus tsc_offset (emu/msr.c): the deadline's
 * tick is now + (value - TSC), or now for a deadline already passed. */
void cpu_tsc_deadline_write(struct cpu *cpu, uint64_t value)
{
	uint64_t now = cpu_now(cpu), tsc = now + cpu->tsc_offset;
	lapic_set_tsc_deadline(cpu->lapic, value, value > tsc ? now + (value - tsc) : now);
}

void cpu_apic_tsc_changed(struct cpu *cpu)
{
	if (cpu->lapic && lapic_tsc_deadline(cpu->lapic))
		cpu_tsc_deadline_write(cpu, lapic_tsc_deadline(cpu->lapic));
}

/* 10.4.1: the registers are 32 bits wide, 16-byte aligned; an aligned
 * doubleword is the access the SDM defines. Each doubleword of the range is
 * read once (a reserved one records one error); a write reaches the
 * registers whose doubleword it covers whole. */
void cpu_apic_mmio(struct cpu *cpu, uint64_t pa, unsigned len, bool write, uint8_t *buf)
{
	unsigned off = (unsigned)(pa & 0xfff);
	unsigned first = off & ~3u, end = off + len;
	for (unsigned d = first; d < end && d < 0x1000; d += 4) {
		if (write) {
			if (d >= off && d + 4 <= end) {
				uint32_t v;
				memcpy(&v, buf + (d - off), 4);
				lapic_mmio_write(cpu->lapic, d, v);
			}
			continue;
		}
		uint32_t v = lapic_mmio_read(cpu->lapic, d);
		for (unsigned b = 0; b < 4; b++)
			if (d + b >= off && d + b < end)
				buf[d + b - off] = (uint8_t)(v >> (8 * b));
	}
}

/* A hypervisor that virtualises the TPR answers a guest's MOV CR8 itself
 * (ST_HANDLED, emu/hv.h): SVM's V_TPR is svm/events.c's. */
uint64_t cpu_cr8_read(const struct cpu *cpu)
{
	return cpu->lapic ? (uint64_t)(lapic_tpr(cpu->lapic) >> 4) : cpu->cr8;
}

void cpu_cr8_write(struct cpu *cpu, uint64_t v)
{
	cpu->cr8 = v;
	/* 10.8.6.1: a MOV to CR8 writes TPR[7:4] and clears TPR[3:0]. */
	if (cpu->lapic)
		lapic_set_tpr(cpu->lapic, (uint8_t)(v << 4));
}
