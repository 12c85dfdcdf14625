/* Page-modification logging (SDM Vol.3 28.2.5): with "enable PML" (24.6.2)
 * and EPT A/D enabled (EPTP bit 6, 28.2.4), every guest-physical write that
 * sets an EPT dirty flag from 0 to 1 first logs its 4-KByte-aligned
 * guest-physical address in the 4-KByte PML at the PML address (24.6.18),
 * entry PML index (the 16-bit guest-state field, 24.4.2), and decrements the
 * index; an index outside 0-511 is a "page-modification log full" event
 * instead: a VM exit with reason 62 (intercepts.c), no flag set, the access
 * not done. The EPT walker finds those writes (mmu/paging.c): this file is
 * the hook it calls (mmu/paging.h struct ept_dirty_log), installed with the
 * stage 2 of the guest (world_switch.c).
 */
#include "vmx/model.h"

#define PML_ENTRIES 512u

/* The hook: log gpa, or false when the log is full. The log's entry is a
 * write to L1's physical memory (the PML address is a physical address). */
static bool pml_log(void *ctx, uint64_t gpa)
{
	struct vmx *v = ctx;
	/* SDM Vol.3 28.2.5: "If the PML index is not in the range 0-511, there
	 * is a page-modification log-full event"; else the address goes to PML
	 * address + 8 x index and the index is decremented (from 0 to FFFFH,
	 * so the next logged write is a log-full event). */
	uint16_t index = (uint16_t)vmcs_get(v, VMCS_ROW_PML_INDEX);
	if (index >= PML_ENTRIES)
		return false;
	uint64_t at = vmcs_get(v, VMCS_ROW_PML_ADDRESS) + 8ull * index;
	physmem_write(v->cpu->mem, at, 8, gpa);
	cpu_notify_phys_write(v->cpu, at, 8);
	vmcs_set(v, VMCS_ROW_PML_INDEX, (uint16_t)(index - 1));
	return true;
}

void vmx_pml_attach(struct vmx *v, struct paging_env *stage2, uint32_t proc2_controls)
{
	/* 24.6.2: "enable PML" counts only with the secondary controls active
	 * (the caller's proc2_controls are 0 otherwise); without EPT A/D no
	 * dirty flag is ever set, so nothing is logged (28.2.5). */
	v->pml = (struct ept_dirty_log){ .log = pml_log, .ctx = v };
	stage2->dirty_log = (proc2_controls & VMX_CTL(VMX_PROC2_PML)) ? &v->pml : NULL;
}
