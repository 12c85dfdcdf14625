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
 * paging-structure reads, exit 44 with access type 10/15), the "operation that
 * already virtualized a write" rule (29.4.2, 29.4.3.1: one write per
 * instruction is all hvemu virtualizes, at 080H), and the APIC-write emulation
 * of offsets other than TPR (29.4.3.2, 29.4.3.3), which is why the CPU models
 * do not offer "APIC-register virtualization". */
#include "emu/event_step.h"
#include "emu/hv.h"
#include "vmx/model.h"

/* The VTPR, offset 80H of the virtual-APIC page (SDM Vol.3 29.1.1). */
#define VAPIC_TPR 0x80u

static bool proc(struct vmx *v, unsigned bit)
{
	return vmcs_get(v, VMCS_ROW_PRIMARY_PROC_CONTROLS) & VMX_CTL(bit);
}

static bool proc2(struct vmx *v, unsigned bit)
{
	return proc(v, VMX_PROC_SECONDARY_CONTROLS) &&
	       (vmcs_get(v, VMCS_ROW_SECONDARY_PROC_CONTROLS) & VMX_CTL(bit));
}

static uint64_t virtual_apic(struct vmx *v)
{
	return vmcs_get(v, VMCS_ROW_VIRTUAL_APIC_ADDR) & ~0xfffull;
}

void vmx_apic_access_enter(struct vmx *v, struct cpu *cpu)
{
	/* SDM Vol.3 29.4: the page at the APIC-access address, while the
	 * control is 1 (26.2.1.1 checked the address). */
	cpu->apic_access_page = proc2(v, VMX_PROC2_VIRTUALIZE_APIC)
					? vmcs_get(v, VMCS_ROW_APIC_ACCESS_ADDR) & ~0xfffull : UINT64_MAX;
}

void vmx_apic_access_leave(struct cpu *cpu)
{
	/* VMX root operation has no APIC-access page. */
	cpu->apic_access_page = UINT64_MAX;
}

void vmx_tpr_virtualization(struct vmx *v, struct cpu *cpu)
{
	/* SDM Vol.3 29.1.2: without "virtual-interrupt delivery", VTPR[7:4]
	 * below TPR threshold[3:0] makes a TPR-below-threshold VM exit after the
	 * operation (the boundary row IK_TPR_BELOW_THRESHOLD); with it, the PPR
	 * update and the delivery evaluation are the virtual-interrupt side's. */
	if (proc2(v, VMX_PROC2_VIRTUAL_INTR_DELIVERY))
		return;
	uint32_t vtpr = (uint32_t)physmem_read(cpu->mem, virtual_apic(v) + VAPIC_TPR, 4);
	if (((vtpr >> 4) & 0xf) < (vmcs_get(v, VMCS_ROW_TPR_THRESHOLD) & 0xf))
		cpu_hv_arm(cpu, HV_ARM_TPR_THRESHOLD);
}

/* SDM Vol.3 29.4.2: the offsets a read is virtualized at with "APIC-register
 * virtualization" (each entry the first byte of a register's low 4 bytes). */
static bool register_readable(unsigned offset)
{
	unsigned reg = offset & ~0xfu;
	switch (reg) {
	case 0x020: case 0x030: case 0x080: case 0x0b0: case 0x0d0: case 0x0e0: case 0x0f0:
	case 0x280: case 0x300: case 0x310: case 0x320: case 0x330: case 0x340: case 0x350:
	case 0x360: case 0x370: case 0x380: case 0x3e0:
		return true;
	default:
		return reg >= 0x100 && reg <= 0x270;   /* ISR, TMR, IRR */
	}
}

/* SDM Vol.3 29.4.2, 29.4.3.1: is an access of size bytes at offset (within
 * the low 4 bytes of its 16-byte register, checked by the caller) virtualized
 * rather than an APIC-access VM exit? */
static bool virtualized(struct vmx *v, unsigned offset, bool write)
{
	if (!write) {
		if (proc2(v, VMX_PROC2_APIC_REGISTER_VIRT))
			return register_readable(offset);
		return (offset & ~0xfu) == VAPIC_TPR;              /* 080H-083H */
	}
	/* 29.4.3.1 with "APIC-register virtualization" and "virtual-interrupt
	 * delivery" 0: page offset 080H only. The other cases need APIC-write
	 * emulation hvemu does not have yet (see above): they exit. */
	return offset == VAPIC_TPR;
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
	if (!proc(v, VMX_PROC_TPR_SHADOW) || acc == TLB_EXEC || size > 4 || crosses ||
	    (offset & 0xf) + size > 4 || !virtualized(v, offset, write))
		return hv_intercept_apic(cpu, NULL, IK_APIC_ACCESS, (uint16_t)offset, type);

	uint64_t vpa = virtual_apic(v) + offset;
	if (!write) {
		/* 29.4.2: the read returns the virtual-APIC page's bytes. */
		for (unsigned k = 0; k < size; k++)
			buf[k] = (uint8_t)physmem_read(cpu->mem, vpa + k, 1);
		return ST_OK;
	}
	/* 29.4.3.1: the write goes to the virtual-APIC page; 29.4.3.2: APIC-
	 * write emulation of 080H (after the operation: the TPR-below-threshold
	 * exit is a boundary event) clears bytes 081H-083H, then TPR
	 * virtualization. */
	for (unsigned k = 0; k < size; k++)
		physmem_write(cpu->mem, vpa + k, 1, buf[k]);
	uint64_t vtpr = virtual_apic(v) + VAPIC_TPR;
	physmem_write(cpu->mem, vtpr, 4, physmem_read(cpu->mem, vtpr, 1));
	vmx_tpr_virtualization(v, cpu);
	return ST_OK;
}
