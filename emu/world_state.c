/* World-switch state (emu/world_state.h): the slots as struct cpu holds them,
 * and the loads both vendors' world switches make.
 */
#include <stddef.h>

#include "emu/flags.h"
#include "emu/event_step.h"
#include "emu/hv.h"

void cpu_load_segment(struct segment *s, uint16_t selector, uint16_t attr, uint32_t limit, uint64_t base)
{
	s->selector = selector;
	s->attr = attr & 0xfff;
	s->limit = limit;
	s->base = base;
	seg_refresh(s);
}

/* ws_set() with a constant slot compiles to the masked store itself. */
void cpu_set_control_regs(struct cpu *cpu, uint64_t cr0, uint64_t cr3, uint64_t cr4, uint64_t efer)
{
	ws_set(cpu, WS_CR0, cr0);
	ws_set(cpu, WS_CR3, cr3);
	ws_set(cpu, WS_CR4, cr4);
	ws_set(cpu, WS_EFER, efer);
	ws_commit(cpu, WSG_CR);
}

void cpu_set_debug_regs(struct cpu *cpu, uint64_t dr6, uint64_t dr7)
{
	ws_set(cpu, WS_DR6, dr6);
	ws_set(cpu, WS_DR7, dr7);
}

void cpu_set_rflags(struct cpu *cpu, uint64_t rflags)
{
	ws_set(cpu, WS_RFLAGS, rflags);
	ws_commit(cpu, WSG_FLAGS);
}

status_t cpu_enter_guest(struct cpu *cpu, uint64_t space, const uint64_t *pdptes)
{
	/* A world switch selects a TLB context, it does not flush (mmu/tlb.h); the
	 * PCID is the new CR3's (SDM Vol.3 4.10.1). */
	tlb_select(&cpu->tlb, space, (cpu->cr4 & CR4_PCIDE) ? (uint16_t)(cpu->cr3 & 0xfff) : 0);
	cpu->in_guest = true;
	cpu_world_switched(cpu);
	if (pdptes) {
		memcpy(cpu->pdpte, pdptes, sizeof(cpu->pdpte));
		return ST_OK;
	}
	return cpu_load_pdptes(cpu);
}

void cpu_leave_guest(struct cpu *cpu, uint64_t space, uint16_t pcid)
{
	cpu->shadow = 0;
	/* Back in the host the processor is active (SDM Vol.3 27.1: a guest's
	 * inactive state ends "after the VM exit completes"; APM2 15.6). */
	cpu->halted = cpu->wait_for_sipi = cpu->shutdown_wait = false;
	cpu->stage2_on = false;
	cpu->in_guest = false;
	cpu->vectoring_valid = false;
	cpu->intr_masking = INTR_MASK_IF;
	cpu->vintr = (struct virtual_intr){ 0 };
	cpu_spurious_intr_withdraw(cpu);
	tlb_select(&cpu->tlb, space, pcid);
	cpu_world_switched(cpu);
}
