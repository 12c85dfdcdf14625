/* The CPU state the page walker reads (mmu/paging.h), in one place for the
 * memory path, tracing and page-table dumps. */
#ifndef HVEMU_EMU_PAGING_ENV_H
#define HVEMU_EMU_PAGING_ENV_H

#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "mmu/paging.h"

/* AMD nested paging is on (stage 2 in the host's own format, not EPT). */
static inline bool cpu_npt_active(const struct cpu *cpu)
{
	return cpu->stage2_on && cpu->stage2.amd;
}

/* APM2 15.25.10: under nested paging a PAE walk reads the guest's PDPTEs from
 * memory; otherwise from the PDPTE registers (SDM Vol.3 4.4.1). */
static inline struct paging_env cpu_paging_env(const struct cpu *cpu)
{
	return (struct paging_env){
		.mem = cpu->mem, .mode = (enum paging_mode)cpu_paging_mode(cpu), .cr3 = cpu->cr3,
		.pse = cpu->cr4 & CR4_PSE, .pge = cpu->cr4 & CR4_PGE, .wp = cpu->cr0 & CR0_WP,
		.nxe = cpu->efer & EFER_NXE, .smep = cpu->cr4 & CR4_SMEP,
		.smap = cpu->cr4 & CR4_SMAP, .ac = cpu->rflags & FLAG_AC, .gbpages = cpu->gbpages,
		.amd = cpu_is_amd(cpu),
		.maxphyaddr = cpu->maxphyaddr ? cpu->maxphyaddr : 36, .pdpte = cpu_npt_active(cpu) ? NULL : cpu->pdpte,
	};
}

#endif
