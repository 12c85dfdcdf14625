/* The CPU's state: RESET and INIT, mode tracking, EFLAGS. The run loop is
 * emu/run.c, instruction fetch into decoded blocks emu/fetch.c. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "devices/lapic.h"
#include "emu/apic.h"
#include "emu/canonical.h"
#include "emu/cpu_model.h"
#include "emu/debug.h"
#include "emu/flags.h"
#include "emu/hv.h"
#include "emu/icache.h"
#include "emu/insn.h"

/* EFLAGS bits software can change on this CPU class (486+ with CPUID); the rest
 * read as 0 except bit 1, which reads as 1 (SDM Vol.1 3.4.3). */
#define FLAGS_WRITABLE (FLAGS_ARITH | FLAG_TF | FLAG_IF | FLAG_DF | FLAG_IOPL | FLAG_NT | \
			FLAG_RF | FLAG_VM | FLAG_AC | FLAG_VIF | FLAG_VIP | FLAG_ID)

static void load_reset_segment(struct segment *s, uint16_t selector, uint64_t base, uint16_t attr)
{
	s->selector = selector;
	s->base = base;
	s->limit = 0xffff;
	s->attr = attr;
	seg_refresh(s);
}

void cpu_init(struct cpu *cpu, const struct cpu_model *model, struct physmem *mem,
	      struct iobus *io)
{
	memset(cpu, 0, sizeof(*cpu));
	cpu->model = model;
	if (model) {
		uint32_t r[4];
		cpu_model_cpuid_at(model, false, 0, 1, 0, r);
		cpu->leaf1_ecx = r[CPUID_ECX];
		cpu->leaf1_edx = r[CPUID_EDX];
	}
	cpu->mem = mem;
	cpu->io = io;
	cpu->icache = icache_create(mem->ram_size);
	if (!cpu->icache)
		abort();   /* host out of memory at start-up: nothing sensible to do */
	cpu->a20_mask = ~0ull;   /* a machine input, kept by cpu_reset() and INIT */
	cpu_reset(cpu);
}

void cpu_set_a20(struct cpu *cpu, bool enabled)
{
	uint64_t mask = enabled ? ~0ull : ~(1ull << 20);
	if (mask == cpu->a20_mask)
		return;
	cpu->a20_mask = mask;
	/* Every cached linear -> physical translation may now be wrong, the
	 * running block's included: the next instruction is fetched anew. */
	tlb_flush_all(&cpu->tlb);
	cpu_attend(cpu, ATT_CODE);
}

static void reset_registers(struct cpu *cpu);

void cpu_reset(struct cpu *cpu)
{
	const struct cpu_model *model = cpu->model;

	/* Everything before `model` is CPU state (emu/cpu.h); the machine, the
	 * caches' storage and the tracing set-up stay. */
	memset(cpu, 0, offsetof(struct cpu, model));
	cpu->stop_requested = false;
	memset(&cpu->fault_chain, 0, sizeof(cpu->fault_chain));   /* no history */
	cpu->tlb.space = 0;                 /* the host's address space, PCID 000H */
	cpu->tlb.pcid = 0;
	tlb_flush_all(&cpu->tlb);
	icache_flush(cpu->icache);
	/* No guest runs after RESET; the hypervisor model forgets its guest and
	 * what it cached (the model itself stays installed). */
	cpu->in_guest = false;
	cpu->stage2_on = false;
	cpu->vectoring_valid = false;
	if (cpu->hv && cpu->hv->reset)
		cpu->hv->reset(cpu->hv_ctx, cpu);

	/* SDM Vol.3 9.1.1, Table 9-1: state after RESET. */
	reset_registers(cpu);
	cpu->gif = true;                                        /* APM2 15.17: GIF = 1 after RESET */
	cpu->attention = ATT_EVENT;
	cpu->deadline = UINT64_MAX;
	for (unsigned i = 0; i < DEADLINE_SOURCES; i++)
		cpu->deadlines[i].at = UINT64_MAX;
	cpu->apic_access_page = UINT64_MAX;                     /* no guest runs */
	cpu->apic_base = 0xfee00000 | (1u << 11) | (1u << 8);   /* enabled, BSP */
	cpu->pat = 0x0007040600070406ull;                       /* SDM Vol.3 13.12.4 */
	cpu->misc_enable = model ? model->misc_enable.reset : 0; /* the model's data (emu/msr.c) */
	fpu_reset(&cpu->fpu);                                   /* FCW 0040H, MXCSR 1F80H */
	cpu->xcr0 = XSTATE_X87;                                 /* SDM Vol.1 13.3: XCR0 after RESET is 1 */
	/* SDM Vol.3 4.1.4: MAXPHYADDR from CPUID 80000008h, else 36 with PAE (or
	 * PSE-36) and 32 without. */
	cpu->maxphyaddr = 32;
	if (model) {
		if (cpu_model_has(model, 1, 3, 6) || cpu_model_has(model, 1, 3, 17))
			cpu->maxphyaddr = 36;
		uint32_t r[4];
		cpu_model_cpuid(model, 0x80000000, 0, r);
		if (r[0] >= 0x80000008) {
			cpu_model_cpuid(model, 0x80000008, 0, r);
			if ((r[0] & 0xff) >= 32 && (r[0] & 0xff) <= 52)
				cpu->maxphyaddr = (uint8_t)(r[0] & 0xff);
		}
		cpu->gbpages = cpu_model_has(model, 0x80000001, 3, 26);
	}
	if (cpu->lapic)                     /* SDM Vol.3 10.4.7.1 */
		lapic_reset(cpu->lapic);
	cpu_apic_update_page(cpu);
	cpu_update_mode(cpu);
}

/* The registers RESET and INIT both set (SDM Vol.3 9.1.1 Table 9-1). */
static void reset_registers(struct cpu *cpu)
{
	cpu->rflags = FLAG_FIXED1;
	cpu->rip = 0xfff0;
	cpu->cr0 = CR0_ET | CR0_NW | CR0_CD;
	cpu->regs[R_DX] = cpu->model ? cpu->model->signature : 0;
	load_reset_segment(&cpu->seg[SR_CS], 0xf000, 0xffff0000, SEG_P | SEG_S | SEG_TYPE_RW | SEG_TYPE_ACCESSED);
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			load_reset_segment(&cpu->seg[s], 0, 0, SEG_P | SEG_S | SEG_TYPE_RW | SEG_TYPE_ACCESSED);
	load_reset_segment(&cpu->ldtr, 0, 0, SEG_P | SYS_LDT);
	load_reset_segment(&cpu->tr, 0, 0, SEG_P | SYS_TSS16_BUSY);
	cpu->gdtr.limit = cpu->idtr.limit = 0xffff;
	cpu->dr[6] = 0xffff0ff0;
	cpu->dr[7] = 0x400;
}

void cpu_init_signal(struct cpu *cpu)
{
	/* SDM Vol.3 9.1.1 Table 9-1, INIT column: CR0 keeps CD and NW; x87, SSE,
	 * the MSRs and the TSC are unchanged; EFER is cleared with the rest of
	 * long mode (APM2 14.1.3: EFER after INIT is 0); GIF = 1. */
	uint64_t cd_nw = cpu->cr0 & (CR0_CD | CR0_NW);
	memset(cpu->regs, 0, sizeof(cpu->regs));
	cpu->lazy.op = LAZY_NONE;
	cpu->cr2 = cpu->cr3 = cpu->cr4 = cpu->cr8 = 0;
	cpu->efer = 0;
	reset_registers(cpu);
	cpu->cr0 = CR0_ET | cd_nw;
	cpu->shadow = 0;
	cpu->nmi_blocked = false;
	cpu->halted = false;
	cpu->gif = true;
	cpu->xcr0 = XSTATE_X87;
	cpu->tlb.pcid = 0;
	tlb_flush_all(&cpu->tlb);
	cpu_update_mode(cpu);
	cpu_attend(cpu, ATT_EVENT);
	/* SDM Vol.3 10.4.7.3: INIT resets the local APIC but its ID (and mode,
	 * 10.12.5.1); IA32_APIC_BASE keeps its value. SDM 8.4.1: an AP then waits
	 * for a SIPI; the BSP starts at the reset vector. */
	if (cpu->lapic) {
		lapic_init_reset(cpu->lapic);
		if (!(cpu->apic_base & APIC_BASE_BSP))
			cpu->wait_for_sipi = cpu->halted = true;
	}
}

void cpu_sipi(struct cpu *cpu, uint8_t vector)
{
	/* The INIT a sender issued before this SIPI reached the processor first:
	 * take it now if nothing holds it off (GIF, APM2 15.17; a hypervisor
	 * that intercepts INIT sees it at the processor's next boundary). */
	if ((cpu->lines & LINE_INIT) && cpu->gif && !cpu->in_guest && !(cpu->hv_holds & HV_HOLD_INIT)) {
		cpu->lines &= (uint8_t)~LINE_INIT;
		cpu_init_signal(cpu);
	}
	if (!cpu->wait_for_sipi)
		return;            /* SDM 8.4.3: ignored unless waiting for one */
	/* A guest waiting for SIPI (VMX wait-for-SIPI activity state): its SIPI
	 * is the model's, at this processor's next boundary (emu/event_step.c;
	 * SDM Vol.3 "Activity State", exit reason SIPI). */
	if (cpu->in_guest) {
		cpu->sipi_vector = vector;
		cpu->lines |= LINE_SIPI;
		cpu_attend(cpu, ATT_EVENT);
		return;
	}
	cpu_start_up(cpu, vector);
}

void cpu_start_up(struct cpu *cpu, uint8_t vector)
{
	cpu->wait_for_sipi = cpu->halted = false;
	/* SDM 8.4.3 / 10.6.1 start-up: real mode at vector:0000, CS base vector << 12. */
	seg_load_real(&cpu->seg[SR_CS], (uint16_t)(vector << 8));
	cpu->rip = 0;
	cpu_update_mode(cpu);
	cpu_attend(cpu, ATT_EVENT | ATT_STEP);
}

void cpu_destroy(struct cpu *cpu)
{
	icache_destroy(cpu->icache);
	cpu->icache = NULL;
}

void cpu_update_mode(struct cpu *cpu)
{
	if (!(cpu->cr0 & CR0_PE)) {
		cpu->mode = MODE_REAL;
		cpu->cpl = 0;
	} else if (cpu->efer & EFER_LMA) {
		cpu->mode = (cpu->seg[SR_CS].attr & SEG_L) ? MODE_LONG64 : MODE_COMPAT;
	} else if (cpu->rflags & FLAG_VM) {
		cpu->mode = MODE_V86;
		cpu->cpl = 3;      /* SDM Vol.3 20.2.1: v8086 code runs at CPL 3 */
	} else {
		cpu->mode = MODE_PROT;
	}
}

uint64_t cpu_get_flags(struct cpu *cpu)
{
	if (cpu->lazy.op != LAZY_NONE)
		flags_materialize(cpu);
	return cpu->rflags;
}

void cpu_set_flags(struct cpu *cpu, uint64_t flags)
{
	cpu->lazy.op = LAZY_NONE;
	cpu->rflags = (flags & FLAGS_WRITABLE) | FLAG_FIXED1;
	/* IF may unblock an interrupt, TF and RF change how the next instruction
	 * runs: the boundary looks again (emu/event_step.c). */
	cpu_attend(cpu, ATT_EVENT | ATT_STEP);
}

