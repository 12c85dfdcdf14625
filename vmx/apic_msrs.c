/* MSR-based APIC accesses (SDM Vol.3 29.5): with "virtualize x2APIC mode",
 * RDMSR and WRMSR of the x2APIC range 800H-8FFH that the MSR bitmaps let
 * through (25.1.3, intercepts.c decided that first) are virtualized on the
 * virtual-APIC page for some registers, whatever the local APIC's mode;
 * the others operate normally (on L1's local APIC, #GP outside x2APIC mode).
 * Reached from intercepts.c's MSR row; the answer is the seam's: ST_OK
 * normal, ST_HANDLED virtualized (r->value the read's result), ST_FAULT
 * #GP(0) raised. */
#include "emu/hv.h"
#include "vmx/exit_reasons.h"
#include "vmx/model.h"
#include "vmx/virtual_apic.h"

/* The x2APIC MSRs 29.5 names (the xAPIC offset is (MSR & FFH) << 4). */
enum {
	X2APIC_FIRST = 0x800, X2APIC_LAST = 0x8ff,
	X2APIC_TPR = 0x808, X2APIC_EOI = 0x80b, X2APIC_SELF_IPI = 0x83f,
};

/* The 8 bytes at offset on the virtual-APIC page (29.5). */
static uint64_t read64(struct vmx *v, unsigned offset)
{
	return vapic_read(v, offset) | (uint64_t)vapic_read(v, offset + 4) << 32;
}

static void write64(struct vmx *v, unsigned offset, uint64_t value)
{
	vapic_write(v, offset, (uint32_t)value);
	vapic_write(v, offset + 4, (uint32_t)(value >> 32));
}

status_t vmx_apic_msr(struct vmx *v, struct cpu *cpu, struct exit_record *r)
{
	uint32_t msr = r->msr;
	if (msr < X2APIC_FIRST || msr > X2APIC_LAST || !vmx_proc2_ctl(v, VMX_PROC2_VIRTUALIZE_X2APIC))
		return ST_OK;
	unsigned offset = (msr & 0xff) << 4;
	bool vid = vmx_proc2_ctl(v, VMX_PROC2_VIRTUAL_INTR_DELIVERY);
	if (!r->msr_write) {
		/* SDM Vol.3 29.5: RDMSR of 808H reads the 8 bytes at 080H; with
		 * "APIC-register virtualization" every MSR of the range reads
		 * the 8 bytes at (ECX & FFH) << 4, even those the x2APIC does
		 * not have. */
		if (msr != X2APIC_TPR && !vmx_proc2_ctl(v, VMX_PROC2_APIC_REGISTER_VIRT))
			return ST_OK;
		r->value = read64(v, offset);
		return ST_HANDLED;
	}
	uint64_t value = r->value;
	switch (msr) {
	case X2APIC_TPR:
		/* 29.5: #GP(0) if bits 63:8 are set; else the value to 080H (VTPR,
		 * bytes 84H-87H 0), then TPR virtualization (29.1.2). */
		if (value >> 8)
			return cpu_raise_err(cpu, EXC_GP, 0);
		write64(v, offset, value);
		vapic_tpr_virtualization(v);
		return ST_HANDLED;
	case X2APIC_EOI:
		/* With "virtual-interrupt delivery": #GP(0) unless the value is 0;
		 * VEOI written, EOI virtualization (29.1.4). */
		if (!vid)
			return ST_OK;
		if (value)
			return cpu_raise_err(cpu, EXC_GP, 0);
		write64(v, offset, 0);
		vapic_eoi_virtualization(v);
		return ST_HANDLED;
	case X2APIC_SELF_IPI:
		/* With it: #GP(0) if bits 63:8 are set; else the value to its own
		 * offset, 3F0H, then APIC-write emulation of a self IPI: self-IPI
		 * virtualization of a vector of 16 or above (29.1.5), otherwise
		 * a trap-like APIC-write VM exit with offset 3F0H (29.4.3.3). */
		if (!vid)
			return ST_OK;
		if (value >> 8)
			return cpu_raise_err(cpu, EXC_GP, 0);
		write64(v, offset, value);
		if (value & 0xf0)
			vapic_self_ipi_virtualization(v, (uint8_t)value);
		else
			vapic_trap_exit(v, VMX_EXIT_APIC_WRITE, offset);
		return ST_HANDLED;
	default:
		return ST_OK;
	}
}
