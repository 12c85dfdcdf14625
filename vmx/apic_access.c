/* The APIC-access page (SDM Vol.3 29.4): with "virtualize APIC accesses" an
 * L2 linear access whose physical address (after EPT, 29.4.6) is in the page
 * at the VMCS APIC-access address is either virtualized (a read of, or a
 * write to, the same offset of the virtual-APIC page) or an APIC-access VM
 * exit (reason 44, intercepts.c writes the qualification of Table 27-6).
 *
 * The seam: VM entry puts the page in cpu->apic_access_page, VM exit takes it
 * away (vmx_apic_access_enter/leave); the core never caches it in the TLB and
 * hands its accesses to vmx_apic_access (emu/memory.c lin_access_slow).
 *
 * Not modelled yet: guest-physical accesses to the page (29.4.6.1: EPT
 * paging-structure reads, exit 44 with access type 10/15), and the "operation
 * that already virtualized a write" rule (29.4.2, 29.4.3.1): APIC-write
 * emulation runs as the write is virtualized (its VM exits, trap-like, wait
 * for the boundary), which a REP string store or a fault after the write
 * could tell apart. */
#include "emu/hv.h"
#include "vmx/exit_reasons.h"
#include "vmx/model.h"
#include "vmx/virtual_apic.h"

void vmx_apic_access_enter(struct vmx *v, struct cpu *cpu)
{
	/* SDM Vol.3 29.4: the page at the APIC-access address, while the
	 * control is 1 (26.2.1.1 checked the address). */
	cpu->apic_access_page = vmx_proc2_ctl(v, VMX_PROC2_VIRTUALIZE_APIC)
					? vmcs_get(v, VMCS_ROW_APIC_ACCESS_ADDR) & ~0xfffull : UINT64_MAX;
}

void vmx_apic_access_leave(struct cpu *cpu)
{
	/* VMX root operation has no APIC-access page. */
	cpu->apic_access_page = UINT64_MAX;
}

/* SDM Vol.3 29.4.2: the registers a read is virtualized at with "APIC-
 * register virtualization" (their low 4 bytes). */
static bool register_readable(unsigned reg)
{
	switch (reg) {
	case 0x020: case 0x030: case 0x080: case 0x0b0: case 0x0d0: case 0x0e0: case 0x0f0:
	case 0x280: case 0x300: case 0x310: case 0x320: case 0x330: case 0x340: case 0x350:
	case 0x360: case 0x370: case 0x380: case 0x3e0:
		return true;
	default:
		return reg >= 0x100 && reg <= 0x270;   /* ISR, TMR, IRR */
	}
}

/* SDM Vol.3 29.4.3.1: the registers a write is virtualized at with it. */
static bool register_writable(unsigned reg)
{
	switch (reg) {
	case 0x020: case 0x080: case 0x0b0: case 0x0d0: case 0x0e0: case 0x0f0: case 0x280:
	case 0x300: case 0x310: case 0x320: case 0x330: case 0x340: case 0x350: case 0x360:
	case 0x370: case 0x380: case 0x3e0:
		return true;
	default:
		return false;
	}
}

/* SDM Vol.3 29.4.2, 29.4.3.1: is an access at offset (within the low 4
 * bytes of its 16-byte register, checked by the caller) virtualized rather
 * than an APIC-access VM exit? */
static bool virtualized(struct vmx *v, unsigned offset, bool write)
{
	unsigned reg = offset & ~0xfu;
	if (vmx_proc2_ctl(v, VMX_PROC2_APIC_REGISTER_VIRT))
		return write ? register_writable(reg) : register_readable(reg);
	if (!write)
		return reg == VAPIC_VTPR;                         /* 080H-083H */
	/* Writes: at page offset 080H; with "virtual-interrupt delivery" also
	 * 0B0H and 300H. */
	if (offset == VAPIC_VTPR)
		return true;
	return vmx_proc2_ctl(v, VMX_PROC2_VIRTUAL_INTR_DELIVERY) && (offset == VAPIC_VEOI || offset == VAPIC_VICR_LO);
}

/* SDM Vol.3 29.4.3.2: does VICR_LO ask for a self IPI the processor
 * virtualizes? Reserved bits 31:20, 17:16 and 13 0, destination shorthand
 * 01 (self), edge-triggered (15), fixed delivery (10:8), vector bits 7:4
 * not 0000. */
static bool self_ipi(uint32_t icr)
{
	return !(icr & 0xfff3a000u) && ((icr >> 18) & 3) == 1 && !(icr & 0x700u) && (icr & 0xf0u);
}

/* SDM Vol.3 29.4.3.2: APIC-write emulation of a write to register reg. */
static void apic_write_emulation(struct vmx *v, unsigned reg)
{
	bool vid = vmx_proc2_ctl(v, VMX_PROC2_VIRTUAL_INTR_DELIVERY);
	switch (reg) {
	case VAPIC_VTPR:
		/* Bytes 3:1 of VTPR cleared, then TPR virtualization (29.1.2). */
		vapic_write(v, VAPIC_VTPR, vapic_read(v, VAPIC_VTPR) & 0xff);
		vapic_tpr_virtualization(v);
		return;
	case VAPIC_VEOI:
		/* With "virtual-interrupt delivery": EOI virtualization (29.1.4). */
		if (vid) {
			vapic_eoi_virtualization(v);
			return;
		}
		break;
	case VAPIC_VICR_LO: {
		uint32_t icr = vapic_read(v, VAPIC_VICR_LO);
		if (vid && self_ipi(icr)) {
			vapic_self_ipi_virtualization(v, (uint8_t)icr);   /* 29.1.5 */
			return;
		}
		break;
	}
	case VAPIC_VICR_HI:
		/* Bytes 2:0 of VICR_HI cleared; nothing else. */
		vapic_write(v, VAPIC_VICR_HI, vapic_read(v, VAPIC_VICR_HI) & 0xff000000u);
		return;
	default:
		break;
	}
	/* 29.4.3.3: an APIC-write VM exit, trap-like (after the operation), its
	 * qualification the register's page offset (27.2.1). */
	vapic_trap_exit(v, VMX_EXIT_APIC_WRITE, reg);
}

status_t vmx_apic_access(void *ctx, struct cpu *cpu, uint64_t pa, unsigned size, enum tlb_access acc, bool crosses,
			 uint8_t *buf)
{
	struct vmx *v = ctx;
	unsigned offset = (unsigned)(pa & 0xfff);
	bool write = acc == TLB_WRITE;
	/* Table 27-6: the access type of a linear access: 0 read, 1 write, 2
	 * instruction fetch, 3 during event delivery. */
	enum apic_access type = acc == TLB_EXEC ? APIC_LINEAR_FETCH
				: cpu->vectoring_valid ? APIC_DELIVERY_ACCESS
				: write ? APIC_LINEAR_WRITE : APIC_LINEAR_READ;
	/* SDM Vol.3 29.4.2, 29.4.3.1: an access exits if "use TPR shadow" is 0,
	 * if it is an instruction fetch, more than 32 bits in size, or not
	 * entirely within the low 4 bytes of a naturally aligned 16-byte region
	 * (an access that crosses into the next page is not), and otherwise
	 * unless its offset is one the controls virtualize. */
	if (!vmx_proc_ctl(v, VMX_PROC_TPR_SHADOW) || acc == TLB_EXEC || size > 4 || crosses ||
	    (offset & 0xf) + size > 4 || !virtualized(v, offset, write))
		return hv_intercept_apic(cpu, NULL, IK_APIC_ACCESS, (uint16_t)offset, type);

	/* 29.4.2: a virtualized read returns the virtual-APIC page's bytes;
	 * 29.4.3.1: a virtualized write writes them, then APIC-write
	 * emulation. */
	unsigned reg = offset & ~0xfu;
	uint32_t value = vapic_read(v, reg);
	unsigned shift = 8 * (offset & 3);
	if (!write) {
		for (unsigned k = 0; k < size; k++)
			buf[k] = (uint8_t)(value >> (shift + 8 * k));
		return ST_OK;
	}
	for (unsigned k = 0; k < size; k++) {
		value &= ~(0xffu << (shift + 8 * k));
		value |= (uint32_t)buf[k] << (shift + 8 * k);
	}
	vapic_write(v, reg, value);
	apic_write_emulation(v, reg);
	return ST_OK;
}
