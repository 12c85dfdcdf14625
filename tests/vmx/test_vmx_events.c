/* Check suite for the events of VMX non-root operation (vmx/events.c with
 * vmx/world_switch.c, vmx/intercepts.c and the core's boundary-event table,
 * emu/event_step.c): a 64-bit L1 writes a VMCS and runs VMLAUNCH; L2's
 * program, the controls and the interrupt lines decide which exit comes,
 * and each row checks the exit reason, the guest RIP, the interruption
 * information and the non-register state the VMCS holds after it against
 * SDM Vol.3 25.2 (interrupt and NMI windows, NMI and external-interrupt
 * exiting, INIT, triple fault), 25.3 (IRET and virtual NMIs), 25.5.1 (the
 * VMX-preemption timer), 25.5.2 (monitor trap flag), 26.6.2 and 26.7 (what
 * VM entry starts), 27.1-27.5 (what the exit saves and leaves). Then the
 * flows a row cannot say: a HLT woken by an interrupt that exits, an exit
 * during event delivery and L1's re-injection (27.2.4).
 *
 * The world (its physical layout too) is vmx_world.h's, shared with
 * test_vmx_entry.c.
 */
#include <check.h>
#include <string.h>

#include "emu/event_step.h"
#include "emu/exit_report.h"
#include "emu/flags.h"
#include "emu/hv.h"
#include "machine_fixture.h"
#include "mmu/x86_vmx.h"
#include "suite_runner.h"
#include "vmx_world.h"
#include "vmx/exit_reasons.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_fields.h"
#include "vmx/vmx.h"

/* ---- the rows ---- */

/* The interrupt controller behind INTR: vector 40H, the line lowered. */
static int ack_40(void *ctx)
{
	struct world *w = ctx;
	cpu_set_line(&w->m.cpu, LINE_INTR, false);
	return 0x40;
}

#define INTR_INFO(type, vector) (VMX_INTR_VALID | ((uint32_t)(type) << VMX_INTR_TYPE_SHIFT) | (vector))
#define NO_CHECK UINT32_MAX

/* 64-bit L2 programs. */
#define NOP     0x90
#define STI     0xfb
#define HLT     0xf4
#define CPUID   0x0f, 0xa2
#define JMP_SELF 0xeb, 0xfe
#define UD2     0x0f, 0x0b
/* An IRETQ to L2_CODE + 16 on L2's own stack: mov rax, rsp; push SS; push
 * rax; pushfq; push CS; push L2_CODE + 16; iretq. */
#define IRET_TO_16 0x48, 0x89, 0xe0, 0x6a, SEL_DATA, 0x50, 0x9c, 0x6a, SEL_CODE64, \
		   0x68, 0x10, 0x00, 0x04, 0x00, 0x48, 0xcf
#define AT_16   CPUID

struct event_row {
	const char *name;            /* the rule, with its SDM section */
	uint32_t pin, proc, exitc;   /* controls set besides world_init's */
	uint64_t rflags;             /* 0: 2 (IF clear) */
	uint32_t interruptibility;
	uint32_t activity;
	uint32_t entry_info;         /* VM-entry interruption information */
	uint32_t timer;              /* VMX-preemption timer value */
	uint32_t pending_dbg;        /* guest pending debug exceptions */
	unsigned lines;              /* LINE_* raised before VMLAUNCH */
	bool ack;                    /* an interrupt controller answers INTA (vector 40H) */
	uint8_t code[24];
	uint8_t len;
	/* expected */
	uint32_t reason;
	uint64_t rip;                /* guest RIP saved */
	uint32_t intr_info;          /* VM-exit interruption information */
	uint32_t activity_after;     /* NO_CHECK: not checked */
	uint32_t interruptibility_after;
};
#define CODE(...) .code = { __VA_ARGS__ }, .len = sizeof((const uint8_t[]){ __VA_ARGS__ })

static const struct event_row rows[] = {
	/* Interrupt-window exiting (SDM Vol.3 25.2, 26.7.5). */
	{ "25.2/26.7.5: interrupt window with RFLAGS.IF = 1 exits before the first instruction",
	  .proc = VMX_CTL(VMX_PROC_INTR_WINDOW_EXITING), .rflags = FLAG_FIXED1 | FLAG_IF, CODE(NOP, CPUID),
	  .reason = VMX_EXIT_INTERRUPT_WINDOW, .rip = L2_CODE, .activity_after = VMX_ACTIVITY_ACTIVE },
	{ "25.2: interrupt window opens after the instruction in STI's shadow",
	  .proc = VMX_CTL(VMX_PROC_INTR_WINDOW_EXITING), CODE(NOP, STI, NOP, CPUID),
	  .reason = VMX_EXIT_INTERRUPT_WINDOW, .rip = L2_CODE + 3, .interruptibility_after = 0 },
	{ "26.7.1: blocking by STI from the interruptibility state holds the window for one instruction",
	  .proc = VMX_CTL(VMX_PROC_INTR_WINDOW_EXITING), .rflags = FLAG_FIXED1 | FLAG_IF,
	  .interruptibility = VMX_INTERRUPTIBILITY_STI, CODE(NOP, CPUID),
	  .reason = VMX_EXIT_INTERRUPT_WINDOW, .rip = L2_CODE + 1 },
	{ "25.2: interrupt window never opens with RFLAGS.IF = 0",
	  .proc = VMX_CTL(VMX_PROC_INTR_WINDOW_EXITING), CODE(NOP, CPUID),
	  .reason = VMX_EXIT_CPUID, .rip = L2_CODE + 1 },
	/* NMI-window exiting, virtual NMIs (SDM Vol.3 25.2, 25.3, 26.7.1, 26.7.6). */
	/* 26.2.1.1: NMI-window exiting needs "virtual NMIs", which needs "NMI
	 * exiting". */
	{ "25.2/26.7.6: NMI window without virtual-NMI blocking exits before the first instruction",
	  .pin = VMX_CTL(VMX_PIN_NMI_EXITING) | VMX_CTL(VMX_PIN_VIRTUAL_NMIS),
	  .proc = VMX_CTL(VMX_PROC_NMI_WINDOW_EXITING), CODE(CPUID),
	  .reason = VMX_EXIT_NMI_WINDOW, .rip = L2_CODE },
	{ "26.7.1/26.7.6: virtual-NMI blocking from the interruptibility state keeps the NMI window shut",
	  .pin = VMX_CTL(VMX_PIN_NMI_EXITING) | VMX_CTL(VMX_PIN_VIRTUAL_NMIS),
	  .proc = VMX_CTL(VMX_PROC_NMI_WINDOW_EXITING), .interruptibility = VMX_INTERRUPTIBILITY_NMI,
	  CODE(CPUID), .reason = VMX_EXIT_CPUID, .rip = L2_CODE,
	  .interruptibility_after = VMX_INTERRUPTIBILITY_NMI },
	{ "26.7.1/27.3.4: without virtual NMIs, blocking by NMI is loaded and saved",
	  .interruptibility = VMX_INTERRUPTIBILITY_NMI, CODE(CPUID), .reason = VMX_EXIT_CPUID, .rip = L2_CODE,
	  .interruptibility_after = VMX_INTERRUPTIBILITY_NMI },
	{ "25.3: with virtual NMIs, IRET ends virtual-NMI blocking and the NMI window opens",
	  .pin = VMX_CTL(VMX_PIN_NMI_EXITING) | VMX_CTL(VMX_PIN_VIRTUAL_NMIS),
	  .proc = VMX_CTL(VMX_PROC_NMI_WINDOW_EXITING), .interruptibility = VMX_INTERRUPTIBILITY_NMI,
	  CODE(IRET_TO_16, AT_16), .reason = VMX_EXIT_NMI_WINDOW, .rip = L2_CODE + 16,
	  .interruptibility_after = 0 },
	{ "26.7.1/27.3.4: with virtual NMIs, virtual-NMI blocking lasts until IRET and is saved",
	  .pin = VMX_CTL(VMX_PIN_NMI_EXITING) | VMX_CTL(VMX_PIN_VIRTUAL_NMIS),
	  .interruptibility = VMX_INTERRUPTIBILITY_NMI, CODE(CPUID), .reason = VMX_EXIT_CPUID, .rip = L2_CODE,
	  .interruptibility_after = VMX_INTERRUPTIBILITY_NMI },
	{ "26.7.1: with virtual NMIs, IRET without NMI-window exiting: virtual-NMI blocking 0 saved",
	  .pin = VMX_CTL(VMX_PIN_NMI_EXITING) | VMX_CTL(VMX_PIN_VIRTUAL_NMIS),
	  .interruptibility = VMX_INTERRUPTIBILITY_NMI, CODE(IRET_TO_16, AT_16), .reason = VMX_EXIT_CPUID,
	  .rip = L2_CODE + 16, .interruptibility_after = 0 },
	{ "26.6.1.2: injecting an NMI with virtual NMIs sets virtual-NMI blocking",
	  .pin = VMX_CTL(VMX_PIN_NMI_EXITING) | VMX_CTL(VMX_PIN_VIRTUAL_NMIS),
	  .entry_info = INTR_INFO(VMX_INTR_NMI, EXC_NMI), CODE(CPUID), .reason = VMX_EXIT_CPUID, .rip = L2_ISR,
	  .interruptibility_after = VMX_INTERRUPTIBILITY_NMI },
	{ "25.2/26.7.6: NMI window after an injected NMI waits for the handler's IRET (virtual NMIs)",
	  .pin = VMX_CTL(VMX_PIN_NMI_EXITING) | VMX_CTL(VMX_PIN_VIRTUAL_NMIS),
	  .proc = VMX_CTL(VMX_PROC_NMI_WINDOW_EXITING), .entry_info = INTR_INFO(VMX_INTR_NMI, EXC_NMI),
	  CODE(CPUID), .reason = VMX_EXIT_CPUID, .rip = L2_ISR, .interruptibility_after = VMX_INTERRUPTIBILITY_NMI },
	{ "25.3: with NMI exiting and without virtual NMIs, IRET leaves blocking by NMI",
	  .pin = VMX_CTL(VMX_PIN_NMI_EXITING), .interruptibility = VMX_INTERRUPTIBILITY_NMI,
	  CODE(IRET_TO_16, AT_16), .reason = VMX_EXIT_CPUID, .rip = L2_CODE + 16,
	  .interruptibility_after = VMX_INTERRUPTIBILITY_NMI },
	{ "25.3: without NMI exiting, IRET ends blocking by NMI",
	  .interruptibility = VMX_INTERRUPTIBILITY_NMI, CODE(IRET_TO_16, AT_16), .reason = VMX_EXIT_CPUID,
	  .rip = L2_CODE + 16, .interruptibility_after = 0 },
	{ "26.7.1: with virtual NMIs, an NMI exits despite virtual-NMI blocking (saved as it was)",
	  .pin = VMX_CTL(VMX_PIN_NMI_EXITING) | VMX_CTL(VMX_PIN_VIRTUAL_NMIS),
	  .interruptibility = VMX_INTERRUPTIBILITY_NMI, .lines = LINE_NMI, CODE(JMP_SELF),
	  .reason = VMX_EXIT_EXCEPTION_NMI, .rip = L2_CODE, .intr_info = INTR_INFO(VMX_INTR_NMI, EXC_NMI),
	  .interruptibility_after = VMX_INTERRUPTIBILITY_NMI },
	/* The monitor trap flag (SDM Vol.3 25.5.2, 26.6.2, 26.7.8). */
	{ "25.5.2: MTF exits after the first instruction",
	  .proc = VMX_CTL(VMX_PROC_MONITOR_TRAP_FLAG), CODE(NOP, NOP, CPUID),
	  .reason = VMX_EXIT_MONITOR_TRAP_FLAG, .rip = L2_CODE + 1 },
	{ "25.5.2/26.7.8: MTF is pending after an injected event's delivery, before the handler runs",
	  .proc = VMX_CTL(VMX_PROC_MONITOR_TRAP_FLAG), .rflags = FLAG_FIXED1 | FLAG_IF,
	  .entry_info = INTR_INFO(VMX_INTR_EXTERNAL, 0x40), CODE(CPUID),
	  .reason = VMX_EXIT_MONITOR_TRAP_FLAG, .rip = L2_ISR },
	{ "26.6.2: an injected pending MTF VM exit (type 7) exits at once, with the MTF control 0",
	  .entry_info = INTR_INFO(VMX_INTR_OTHER, 0), CODE(CPUID),
	  .reason = VMX_EXIT_MONITOR_TRAP_FLAG, .rip = L2_CODE },
	{ "25.5.2/27.1: MTF after HLT: the exit saves the HLT activity state",
	  .proc = VMX_CTL(VMX_PROC_MONITOR_TRAP_FLAG), CODE(HLT, CPUID),
	  .reason = VMX_EXIT_MONITOR_TRAP_FLAG, .rip = L2_CODE + 1, .activity_after = VMX_ACTIVITY_HLT },
	{ "25.5.2: MTF after a fault's delivery: the handler has not run",
	  .proc = VMX_CTL(VMX_PROC_MONITOR_TRAP_FLAG), CODE(UD2),
	  .reason = VMX_EXIT_MONITOR_TRAP_FLAG, .rip = L2_ISR },
	/* The VMX-preemption timer (SDM Vol.3 25.5.1, 26.7.4, 27.3.4). */
	{ "26.7.4: preemption timer value 0 exits before the first instruction",
	  .pin = VMX_CTL(VMX_PIN_PREEMPTION_TIMER), CODE(CPUID),
	  .reason = VMX_EXIT_PREEMPTION_TIMER, .rip = L2_CODE },
	{ "26.7.4: a zero preemption timer exits after the pending debug exception's delivery, before "
	  "the handler's first instruction",
	  .pin = VMX_CTL(VMX_PIN_PREEMPTION_TIMER), .pending_dbg = VMX_PENDING_DBG_B0_3 & 1, CODE(CPUID),
	  .reason = VMX_EXIT_PREEMPTION_TIMER, .rip = L2_ISR },
	{ "25.5.1: the preemption timer counts down in a loop and exits at 0",
	  .pin = VMX_CTL(VMX_PIN_PREEMPTION_TIMER), .exitc = VMX_CTL(VMX_EXITCTL_SAVE_PREEMPTION_TIMER),
	  .timer = 3, CODE(JMP_SELF), .reason = VMX_EXIT_PREEMPTION_TIMER, .rip = L2_CODE },
	{ "25.5.1/27.1: the preemption timer wakes HLT; the HLT activity state saved",
	  .pin = VMX_CTL(VMX_PIN_PREEMPTION_TIMER), .timer = 2, CODE(HLT),
	  .reason = VMX_EXIT_PREEMPTION_TIMER, .rip = L2_CODE + 1, .activity_after = VMX_ACTIVITY_HLT },
	/* HLT (SDM Vol.3 25.1.3, 26.7.2). */
	{ "25.1.3: HLT exiting: the HLT does not run, the activity state stays active",
	  .proc = VMX_CTL(VMX_PROC_HLT_EXITING), CODE(HLT),
	  .reason = VMX_EXIT_HLT, .rip = L2_CODE, .activity_after = VMX_ACTIVITY_ACTIVE },
	{ "26.7.2/27.1: an entry in HLT woken by an interrupt that exits saves HLT",
	  .pin = VMX_CTL(VMX_PIN_EXT_INTR_EXITING), .rflags = FLAG_FIXED1 | FLAG_IF, .activity = VMX_ACTIVITY_HLT,
	  .lines = LINE_INTR, CODE(CPUID), .reason = VMX_EXIT_EXTERNAL_INTERRUPT, .rip = L2_CODE,
	  .activity_after = VMX_ACTIVITY_HLT },
	/* NMIs, external interrupts, INIT, triple fault (SDM Vol.3 25.2, 27.2.2). */
	{ "25.2/27.2.2: NMI exiting: reason 0, vector 2, type NMI",
	  .pin = VMX_CTL(VMX_PIN_NMI_EXITING), .lines = LINE_NMI, CODE(JMP_SELF),
	  .reason = VMX_EXIT_EXCEPTION_NMI, .rip = L2_CODE, .intr_info = INTR_INFO(VMX_INTR_NMI, EXC_NMI) },
	{ "25.2/27.2.2: external-interrupt exiting with acknowledge interrupt on exit: the vector",
	  .pin = VMX_CTL(VMX_PIN_EXT_INTR_EXITING), .exitc = VMX_CTL(VMX_EXITCTL_ACK_INTR_ON_EXIT),
	  .lines = LINE_INTR, .ack = true, CODE(JMP_SELF), .reason = VMX_EXIT_EXTERNAL_INTERRUPT,
	  .rip = L2_CODE, .intr_info = INTR_INFO(VMX_INTR_EXTERNAL, 0x40) },
	{ "25.2/27.2.2: external-interrupt exiting without acknowledge: the information invalid",
	  .pin = VMX_CTL(VMX_PIN_EXT_INTR_EXITING), .lines = LINE_INTR, .ack = true, CODE(JMP_SELF),
	  .reason = VMX_EXIT_EXTERNAL_INTERRUPT, .rip = L2_CODE },
	{ "25.2: external-interrupt exiting takes the interrupt whatever RFLAGS.IF",
	  .pin = VMX_CTL(VMX_PIN_EXT_INTR_EXITING), .lines = LINE_INTR, CODE(JMP_SELF),
	  .reason = VMX_EXIT_EXTERNAL_INTERRUPT, .rip = L2_CODE },
	{ "25.2: INIT in VMX non-root operation exits (reason 3)",
	  .lines = LINE_INIT, CODE(JMP_SELF), .reason = VMX_EXIT_INIT, .rip = L2_CODE },	/* Priorities at one boundary (SDM Vol.3 6.9 Table 6-2 with 25.2's and
	 * 25.5's placements, emu/event_step.c). */
	{ "25.5.2: INIT takes priority over a pending MTF VM exit",
	  .entry_info = INTR_INFO(VMX_INTR_OTHER, 0), .lines = LINE_INIT, CODE(CPUID),
	  .reason = VMX_EXIT_INIT, .rip = L2_CODE },
	{ "25.5.2: a pending MTF VM exit takes priority over the NMI window",
	  .pin = VMX_CTL(VMX_PIN_NMI_EXITING) | VMX_CTL(VMX_PIN_VIRTUAL_NMIS),
	  .proc = VMX_CTL(VMX_PROC_NMI_WINDOW_EXITING), .entry_info = INTR_INFO(VMX_INTR_OTHER, 0), CODE(CPUID),
	  .reason = VMX_EXIT_MONITOR_TRAP_FLAG, .rip = L2_CODE },
	{ "25.2: the preemption timer takes priority over the NMI window",
	  .pin = VMX_CTL(VMX_PIN_NMI_EXITING) | VMX_CTL(VMX_PIN_VIRTUAL_NMIS) | VMX_CTL(VMX_PIN_PREEMPTION_TIMER),
	  .proc = VMX_CTL(VMX_PROC_NMI_WINDOW_EXITING), CODE(CPUID),
	  .reason = VMX_EXIT_PREEMPTION_TIMER, .rip = L2_CODE },
	{ "25.2: the NMI window takes priority over the interrupt window",
	  .pin = VMX_CTL(VMX_PIN_NMI_EXITING) | VMX_CTL(VMX_PIN_VIRTUAL_NMIS),
	  .proc = VMX_CTL(VMX_PROC_NMI_WINDOW_EXITING) | VMX_CTL(VMX_PROC_INTR_WINDOW_EXITING),
	  .rflags = FLAG_FIXED1 | FLAG_IF, CODE(CPUID), .reason = VMX_EXIT_NMI_WINDOW, .rip = L2_CODE },
	{ "25.2: an NMI (exiting) takes priority over the interrupt window",
	  .pin = VMX_CTL(VMX_PIN_NMI_EXITING), .proc = VMX_CTL(VMX_PROC_INTR_WINDOW_EXITING),
	  .rflags = FLAG_FIXED1 | FLAG_IF, .lines = LINE_NMI, CODE(CPUID), .reason = VMX_EXIT_EXCEPTION_NMI,
	  .rip = L2_CODE, .intr_info = INTR_INFO(VMX_INTR_NMI, EXC_NMI) },
	{ "25.2: the interrupt window takes priority over an external interrupt",
	  .pin = VMX_CTL(VMX_PIN_EXT_INTR_EXITING), .proc = VMX_CTL(VMX_PROC_INTR_WINDOW_EXITING),
	  .rflags = FLAG_FIXED1 | FLAG_IF, .lines = LINE_INTR, CODE(CPUID), .reason = VMX_EXIT_INTERRUPT_WINDOW,
	  .rip = L2_CODE },
};
#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

START_TEST(event_rows)
{
	const struct event_row *r = &rows[_i];
	struct world w;
	world_init(&w);
	struct cpu *c = &w.m.cpu;
	vmw(&w, VMCS_PIN_BASED_CONTROLS, vmr(&w, VMCS_PIN_BASED_CONTROLS) | r->pin);
	vmw(&w, VMCS_PRIMARY_PROC_CONTROLS, vmr(&w, VMCS_PRIMARY_PROC_CONTROLS) | r->proc);
	vmw(&w, VMCS_EXIT_CONTROLS, vmr(&w, VMCS_EXIT_CONTROLS) | r->exitc);
	vmw(&w, VMCS_GUEST_RFLAGS, r->rflags ? r->rflags : FLAG_FIXED1);
	vmw(&w, VMCS_GUEST_INTERRUPTIBILITY, r->interruptibility);
	vmw(&w, VMCS_GUEST_ACTIVITY_STATE, r->activity);
	vmw(&w, VMCS_ENTRY_INTR_INFO, r->entry_info);
	vmw(&w, VMCS_PREEMPTION_TIMER_VALUE, r->timer);
	vmw(&w, VMCS_GUEST_PENDING_DBG_EXCEPTIONS, r->pending_dbg);
	l2_code(&w, r->code, r->len);
	if (r->ack) {
		c->intr_ack = ack_40;
		c->intr_ctx = &w;
	}
	/* L1 holds the lines off until VM entry: IF = 0, NMIs blocked (the
	 * entry's interruptibility state unblocks them, 26.7.1), INIT in root
	 * operation. */
	c->nmi_blocked = true;
	if (r->lines)
		cpu_set_line(c, r->lines, true);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_in_l1(&w);
	ck_assert_msg(exit_reason(&w) == r->reason, "%s: exit reason %u", r->name, exit_reason(&w));
	ck_assert_msg(vmr(&w, VMCS_GUEST_RIP) == r->rip, "%s: guest RIP %llx", r->name,
		      (unsigned long long)vmr(&w, VMCS_GUEST_RIP));
	ck_assert_msg(vmr(&w, VMCS_EXIT_INTR_INFO) == r->intr_info, "%s: interruption information %llx", r->name,
		      (unsigned long long)vmr(&w, VMCS_EXIT_INTR_INFO));
	if (r->activity_after != NO_CHECK)
		ck_assert_msg(vmr(&w, VMCS_GUEST_ACTIVITY_STATE) == r->activity_after, "%s: activity %llu", r->name,
			      (unsigned long long)vmr(&w, VMCS_GUEST_ACTIVITY_STATE));
	if (r->interruptibility_after != NO_CHECK)
		ck_assert_msg(vmr(&w, VMCS_GUEST_INTERRUPTIBILITY) == r->interruptibility_after,
			      "%s: interruptibility %llx", r->name,
			      (unsigned long long)vmr(&w, VMCS_GUEST_INTERRUPTIBILITY));
	/* 27.5.5 / the exit disarms: nothing of the guest's stays armed in L1. */
	ck_assert_msg((c->hv_armed & ~HV_ARM_VIRTUAL_INTR) == 0, "%s: rows still armed %x", r->name, c->hv_armed);
	ck_assert_uint_eq(c->hv_holds, HV_HOLD_INIT);
	world_free(&w);
}
END_TEST

/* ---- flows ---- */

/* L2 runs HLT (no HLT exiting) and waits; an interrupt with
 * external-interrupt exiting wakes the CPU into the exit: reason 1, the RIP
 * after the HLT, activity state HLT (SDM Vol.3 27.1: "a return to the
 * active state occurs only after the VM exit completes"; 27.3.4). VMRESUME
 * of that state waits in HLT again (26.7.2). */
START_TEST(hlt_woken_by_exiting_interrupt)
{
	struct world w;
	world_init(&w);
	struct cpu *c = &w.m.cpu;
	vmw(&w, VMCS_PIN_BASED_CONTROLS, vmr(&w, VMCS_PIN_BASED_CONTROLS) | VMX_CTL(VMX_PIN_EXT_INTR_EXITING));
	L2(&w, HLT, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert(c->in_guest && c->halted);
	ck_assert_uint_eq(c->rip, L2_CODE + 1);
	cpu_set_line(c, LINE_INTR, true);
	c->icount_limit = c->icount + 1000;
	ck_assert_int_eq(cpu_run(c), ST_HALT);
	assert_in_l1(&w);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_EXTERNAL_INTERRUPT);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE + 1);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_ACTIVITY_STATE), VMX_ACTIVITY_HLT);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_INTR_INFO), 0);
	/* Without acknowledge interrupt on exit it is still pending (27.2.2). */
	ck_assert(c->lines & LINE_INTR);
	cpu_set_line(c, LINE_INTR, false);
	ck_assert_int_eq(run_from(&w, L1_RESUME), ST_HALT);
	ck_assert(c->in_guest && c->halted);
	ck_assert_uint_eq(c->rip, L2_CODE + 1);
	world_free(&w);
}
END_TEST

/* --perturb-exits' exit timing (emu/event_step.h): with external-interrupt
 * exiting and without "acknowledge interrupt on exit", a spinning L2 takes
 * exit 1 with the interruption information invalid (27.2.2) and nothing left
 * requested; with acknowledge the exit would have to name a vector (27.2.2),
 * and none is made up: L2 spins on. */
START_TEST(spurious_intr_only_without_ack)
{
	for (int ack = 0; ack < 2; ack++) {
		struct world w;
		world_init(&w);
		struct cpu *c = &w.m.cpu;
		vmx_perturb_exits(w.vmx, 7);
		vmw(&w, VMCS_PIN_BASED_CONTROLS, vmr(&w, VMCS_PIN_BASED_CONTROLS) | VMX_CTL(VMX_PIN_EXT_INTR_EXITING));
		if (ack)
			vmw(&w, VMCS_EXIT_CONTROLS, vmr(&w, VMCS_EXIT_CONTROLS) | VMX_CTL(VMX_EXITCTL_ACK_INTR_ON_EXIT));
		L2(&w, JMP_SELF);
		status_t st = run_from(&w, L1_LAUNCH);
		/* Each entry's request comes within 2^16 instructions. */
		for (unsigned i = 0; i < 20 && st == ST_STOP && c->in_guest; i++) {
			c->icount_limit = c->icount + 10000;
			st = cpu_run(c);
		}
		if (ack) {
			ck_assert_int_eq(st, ST_STOP);
			ck_assert(c->in_guest);
			ck_assert_uint_eq(c->spurious_intr_exits, 0);
		} else {
			ck_assert_int_eq(st, ST_HALT);
			assert_in_l1(&w);
			ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_EXTERNAL_INTERRUPT);
			ck_assert_uint_eq(vmr(&w, VMCS_EXIT_INTR_INFO), 0);
			ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE);
			ck_assert_uint_eq(c->spurious_intr_exits, 1);
			ck_assert(!(c->lines & (LINE_INTR | LINE_INTR_PULSE)));
			ck_assert_uint_eq(c->deadlines[DEADLINE_SPURIOUS_INTR].at, UINT64_MAX);
		}
		world_free(&w);
	}
}
END_TEST

/* The VMX-preemption timer's value saved by an exit for another reason
 * (SDM Vol.3 27.3.4, "save VMX-preemption timer value"): what is left, at one
 * count per 2^X TSC ticks (25.5.1; IA32_VMX_MISC[4:0] = 5 on skylake-lite);
 * the next VM entry loads it again and it goes on counting (26.7.4). */
START_TEST(preemption_timer_value_saved)
{
	struct world w;
	world_init(&w);
	struct cpu *c = &w.m.cpu;
	ck_assert_uint_eq(model_cap(c->model, MSR_VMX_MISC) & VMX_MISC_PREEMPT_RATE_MASK, 5);
	vmw(&w, VMCS_PIN_BASED_CONTROLS, vmr(&w, VMCS_PIN_BASED_CONTROLS) | VMX_CTL(VMX_PIN_PREEMPTION_TIMER));
	vmw(&w, VMCS_EXIT_CONTROLS, vmr(&w, VMCS_EXIT_CONTROLS) | VMX_CTL(VMX_EXITCTL_SAVE_PREEMPTION_TIMER));
	vmw(&w, VMCS_PREEMPTION_TIMER_VALUE, 1000);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	uint64_t left = vmr(&w, VMCS_PREEMPTION_TIMER_VALUE);
	ck_assert_msg(left == 1000 || left == 999, "timer left %llu", (unsigned long long)left);
	ck_assert_uint_eq(c->deadlines[DEADLINE_HV].at, UINT64_MAX);
	/* L2 now loops: the saved value runs out (left * 32 TSC ticks at most). */
	vmw(&w, VMCS_GUEST_RIP, L2_CODE + 0x20);
	physmem_write_bytes(&w.m.pm, L2_CODE + 0x20, (const uint8_t[]){ JMP_SELF }, 2);
	uint64_t before = c->icount;
	c->rip = L1_RESUME;
	c->icount_limit = c->icount + 100000;
	ck_assert_int_eq(cpu_run(c), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_PREEMPTION_TIMER);
	ck_assert_uint_eq(vmr(&w, VMCS_PREEMPTION_TIMER_VALUE), 0);
	ck_assert_msg(c->icount - before <= (left + 1) * 32 + 8 && c->icount - before >= (left - 1) * 32,
		      "ran %llu", (unsigned long long)(c->icount - before));
	world_free(&w);
}
END_TEST

/* An exit during event delivery (SDM Vol.3 27.2.4): INT 40H in L2 whose IDT
 * lies on a non-present page faults (#PF, vector 14, error code 0: a
 * supervisor read of a non-present page) and #PF is in the exception
 * bitmap: reason 0 with the #PF in the interruption information, CR2's
 * address in the qualification (27.2.1), the INT 40H (type 4, vector 40H)
 * in the IDT-vectoring information and its length (27.2.5), the guest RIP
 * the INT (27.3.3). L1 maps the IDT back and re-injects the IDT-vectoring
 * information with the instruction length (26.6.1.1): the handler finds the
 * return address after the INT. */
START_TEST(pf_during_delivery_and_reinjection)
{
	struct world w;
	world_init(&w);
	const uint64_t unmapped = 0x40000000;   /* past the fixture's 1 GiB identity map */
	vmw(&w, VMCS_EXCEPTION_BITMAP, 1u << EXC_PF);
	vmw(&w, VMCS_GUEST_IDTR_BASE, unmapped);
	L2(&w, 0xcd, 0x40, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_EXCEPTION_NMI);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_INTR_INFO),
			  INTR_INFO(VMX_INTR_HW_EXCEPTION, EXC_PF) | VMX_INTR_DELIVER_ERROR);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_INTR_ERROR_CODE), 0);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_QUALIFICATION), unmapped + 16 * 0x40);
	ck_assert_uint_eq(vmr(&w, VMCS_IDT_VECTORING_INFO), INTR_INFO(VMX_INTR_SOFT_INT, 0x40));
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_INSTRUCTION_LEN), 2);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE);

	/* L1's handling: the IDT back, the event re-injected as it was. */
	vmw(&w, VMCS_GUEST_IDTR_BASE, L2_IDT);
	vmw(&w, VMCS_ENTRY_INTR_INFO, vmr(&w, VMCS_IDT_VECTORING_INFO));
	vmw(&w, VMCS_ENTRY_INSTRUCTION_LEN, vmr(&w, VMCS_EXIT_INSTRUCTION_LEN));
	ck_assert_int_eq(run_from(&w, L1_RESUME), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_ISR);
	ck_assert_uint_eq(l2_stack(&w, 0), L2_CODE + 2);
	ck_assert_uint_eq(vmr(&w, VMCS_IDT_VECTORING_INFO), 0);
	world_free(&w);
}
END_TEST

/* The same for an injected external interrupt whose delivery faults: the
 * IDT-vectoring information is the injected event (27.2.4: "the VM exit
 * occurred during delivery of an event injected as part of VM entry" counts),
 * type 0, no instruction length. */
START_TEST(pf_during_injected_delivery)
{
	struct world w;
	world_init(&w);
	vmw(&w, VMCS_EXCEPTION_BITMAP, 1u << EXC_PF);
	vmw(&w, VMCS_GUEST_IDTR_BASE, 0x40000000);
	vmw(&w, VMCS_GUEST_RFLAGS, FLAG_FIXED1 | FLAG_IF);
	vmw(&w, VMCS_ENTRY_INTR_INFO, INTR_INFO(VMX_INTR_EXTERNAL, 0x41));
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_EXCEPTION_NMI);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_QUALIFICATION), 0x40000000 + 16 * 0x41);
	ck_assert_uint_eq(vmr(&w, VMCS_IDT_VECTORING_INFO), INTR_INFO(VMX_INTR_EXTERNAL, 0x41));
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_INSTRUCTION_LEN), 0);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE);
	world_free(&w);
}
END_TEST

/* A triple fault in L2 (SDM Vol.3 25.2): #UD with an IDT of limit 0 is a
 * #GP, then a #DF, then shutdown: exit reason 2, no IDT-vectoring
 * information (27.2.4: a triple fault is not an exit during delivery). */
START_TEST(triple_fault_exits)
{
	struct world w;
	world_init(&w);
	vmw(&w, VMCS_GUEST_IDTR_LIMIT, 0);
	L2(&w, UD2);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_TRIPLE_FAULT);
	ck_assert_uint_eq(vmr(&w, VMCS_IDT_VECTORING_INFO), 0);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_INTR_INFO), 0);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE);
	world_free(&w);
}
END_TEST

/* SDM Vol.3 27.3.3: the RF saved in the guest's RFLAGS by the exit's cause:
 * an exception exit saves what the exception's RFLAGS image would hold (1
 * for a fault such as #UD); an instruction that exits saves 0, even when RF
 * was 1 as it began (as after an IRET that set it). */
START_TEST(saved_rf_by_exit_cause)
{
	struct world w;
	world_init(&w);
	vmw(&w, VMCS_EXCEPTION_BITMAP, 1u << EXC_UD);
	L2(&w, UD2);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_EXCEPTION_NMI);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RFLAGS) & FLAG_RF, FLAG_RF);
	world_free(&w);

	world_init(&w);
	vmw(&w, VMCS_GUEST_RFLAGS, FLAG_FIXED1 | FLAG_RF);
	L2(&w, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RFLAGS) & FLAG_RF, 0);
	world_free(&w);
}
END_TEST

/* SDM Vol.3 25.5.2: "MTF VM exits take priority over debug-trap
 * exceptions": with RFLAGS.TF = 1 and MTF, the first instruction's
 * single-step trap stays pending and the MTF exit saves it as BS in the
 * pending debug exceptions (27.3.4). */
START_TEST(mtf_before_single_step_trap)
{
	struct world w;
	world_init(&w);
	vmw(&w, VMCS_PRIMARY_PROC_CONTROLS,
	    vmr(&w, VMCS_PRIMARY_PROC_CONTROLS) | VMX_CTL(VMX_PROC_MONITOR_TRAP_FLAG));
	vmw(&w, VMCS_GUEST_RFLAGS, FLAG_FIXED1 | FLAG_TF);
	L2(&w, NOP, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_MONITOR_TRAP_FLAG);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE + 1);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_PENDING_DBG_EXCEPTIONS) & VMX_PENDING_DBG_BS, VMX_PENDING_DBG_BS);
	world_free(&w);
}
END_TEST

/* SDM Vol.3 25.5.2: with MTF, a REP-prefixed string instruction whose first
 * iteration does not fault has an MTF VM exit pending "on the instruction
 * boundary after that iteration": RIP still on the instruction, one
 * iteration done (REP STOSB with RCX = 3 at RDI). */
START_TEST(mtf_after_one_rep_iteration)
{
	struct world w;
	world_init(&w);
	vmw(&w, VMCS_PRIMARY_PROC_CONTROLS,
	    vmr(&w, VMCS_PRIMARY_PROC_CONTROLS) | VMX_CTL(VMX_PROC_MONITOR_TRAP_FLAG));
	L2(&w, 0xf3, 0xaa, CPUID);
	w.m.cpu.regs[R_CX] = 3;
	w.m.cpu.regs[R_DI] = 0x90000;
	w.m.cpu.regs[R_AX] = 0x5a;
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	/* L2's registers, before VMREAD (in L1) uses RBX and RCX */
	ck_assert_uint_eq(w.m.cpu.regs[R_CX], 2);
	ck_assert_uint_eq(w.m.cpu.regs[R_DI], 0x90001);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_MONITOR_TRAP_FLAG);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE);
	ck_assert_uint_eq(physmem_read(&w.m.pm, 0x90000, 2), 0x5a);
	world_free(&w);
}
END_TEST

/* SDM Vol.3 26.7.2: after a VM entry into the wait-for-SIPI state the
 * guest runs nothing; external interrupts, NMIs and INIT are blocked (no
 * exit even with their exiting controls); a SIPI exits (25.2: reason 4, the
 * vector in the qualification) and the state saved is still wait-for-SIPI
 * (27.1: the return to the active state follows the exit). */
START_TEST(wait_for_sipi_activity)
{
	struct world w;
	world_init(&w);
	struct cpu *c = &w.m.cpu;
	vmw(&w, VMCS_PIN_BASED_CONTROLS, vmr(&w, VMCS_PIN_BASED_CONTROLS) | VMX_CTL(VMX_PIN_EXT_INTR_EXITING) |
					     VMX_CTL(VMX_PIN_NMI_EXITING));
	vmw(&w, VMCS_GUEST_ACTIVITY_STATE, VMX_ACTIVITY_WAIT_SIPI);
	c->nmi_blocked = true;               /* L1's own NMIs held until the entry */
	c->halt_yields = true;               /* a halted CPU's next run waits (as under --smp) */
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert(c->in_guest && c->wait_for_sipi);
	cpu_set_line(c, LINE_INTR | LINE_NMI | LINE_INIT, true);
	ck_assert_int_eq(cpu_run(c), ST_HALT);
	ck_assert(c->in_guest && c->wait_for_sipi);
	cpu_set_line(c, LINE_INTR | LINE_NMI | LINE_INIT, false);
	cpu_sipi(c, 0x12);
	ck_assert_int_eq(cpu_run(c), ST_HALT);
	assert_in_l1(&w);
	ck_assert(!c->wait_for_sipi);           /* (halted: L1's own HLT) */
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_SIPI);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_QUALIFICATION), 0x12);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_ACTIVITY_STATE), VMX_ACTIVITY_WAIT_SIPI);
	world_free(&w);
}
END_TEST

/* SDM Vol.3 26.7.2: the shutdown state blocks external interrupts (no exit
 * with external-interrupt exiting either); an NMI with NMI exiting exits,
 * saving the shutdown state (27.1); without NMI exiting it is delivered
 * through L2's IDT and the guest is active again (_i: NMI exiting). */
START_TEST(shutdown_activity)
{
	bool nmi_exiting = _i;
	struct world w;
	world_init(&w);
	struct cpu *c = &w.m.cpu;
	vmw(&w, VMCS_PIN_BASED_CONTROLS, vmr(&w, VMCS_PIN_BASED_CONTROLS) | VMX_CTL(VMX_PIN_EXT_INTR_EXITING) |
					     (nmi_exiting ? VMX_CTL(VMX_PIN_NMI_EXITING) : 0));
	vmw(&w, VMCS_GUEST_RFLAGS, FLAG_FIXED1 | FLAG_IF);
	vmw(&w, VMCS_GUEST_ACTIVITY_STATE, VMX_ACTIVITY_SHUTDOWN);
	c->nmi_blocked = true;
	c->halt_yields = true;
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert(c->in_guest && c->shutdown_wait);
	cpu_set_line(c, LINE_INTR, true);
	ck_assert_int_eq(cpu_run(c), ST_HALT);
	ck_assert(c->in_guest && c->shutdown_wait);
	cpu_set_line(c, LINE_INTR, false);
	cpu_set_line(c, LINE_NMI, true);
	ck_assert_int_eq(cpu_run(c), ST_HALT);
	assert_in_l1(&w);
	ck_assert(!c->shutdown_wait);
	if (nmi_exiting) {
		ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_EXCEPTION_NMI);
		ck_assert_uint_eq(vmr(&w, VMCS_GUEST_ACTIVITY_STATE), VMX_ACTIVITY_SHUTDOWN);
	} else {
		/* L2's NMI handler (L2_ISR) ran its CPUID */
		ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
		ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_ISR);
		ck_assert_uint_eq(vmr(&w, VMCS_GUEST_ACTIVITY_STATE), VMX_ACTIVITY_ACTIVE);
	}
	world_free(&w);
}
END_TEST

/* An NMI's exit takes the NMI (SDM Vol.3 27.5.5: "VM exits caused directly
 * by non-maskable interrupts (NMIs) cause blocking by NMI"): L1 runs on with
 * the line clear and NMIs blocked; other exits leave blocking by NMI as L2
 * had it (without virtual NMIs). */
START_TEST(nmi_exit_blocks_nmis_in_l1)
{
	struct world w;
	world_init(&w);
	struct cpu *c = &w.m.cpu;
	vmw(&w, VMCS_PIN_BASED_CONTROLS, vmr(&w, VMCS_PIN_BASED_CONTROLS) | VMX_CTL(VMX_PIN_NMI_EXITING));
	L2(&w, JMP_SELF);
	c->nmi_blocked = true;
	cpu_set_line(c, LINE_NMI, true);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_EXCEPTION_NMI);
	ck_assert(!(c->lines & LINE_NMI));
	ck_assert(c->nmi_blocked);
	world_free(&w);
}
END_TEST

/* TPR below threshold (SDM Vol.3 29.1.2, 25.2): with the TPR shadow, MOV to
 * CR8 of a value below TPR threshold exits after the instruction (reason
 * 43, trap-like: RIP after the MOV); the exit disarms the row. (The exit
 * right after VM entry, 26.7.7, needs VTPR[7:4] < threshold at entry, which
 * 26.2.1.1 allows only with "virtualize APIC accesses": test_vmx_apicv.c
 * tpr_below_threshold_at_entry.) */
START_TEST(tpr_below_threshold_after_mov_cr8)
{
	struct world w;
	world_init(&w);
	const uint64_t vapic = 0x102000;
	physmem_write(&w.m.pm, vapic + 0x80, 4, 0x50);
	vmw(&w, VMCS_PRIMARY_PROC_CONTROLS, vmr(&w, VMCS_PRIMARY_PROC_CONTROLS) | VMX_CTL(VMX_PROC_TPR_SHADOW));
	vmw(&w, VMCS_VIRTUAL_APIC_ADDR, vapic);
	vmw(&w, VMCS_TPR_THRESHOLD, 3);
	L2(&w, 0xb8, 0x01, 0x00, 0x00, 0x00, 0x44, 0x0f, 0x22, 0xc0, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_TPR_BELOW_THRESHOLD);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE + 9);
	ck_assert_uint_eq(physmem_read(&w.m.pm, vapic + 0x80, 4), 0x10);
	ck_assert_uint_eq(w.m.cpu.hv_armed & HV_ARM_TPR_THRESHOLD, 0);
	world_free(&w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmx_events");
	TCase *tc = tcase_create("rows");
	tcase_add_loop_test(tc, event_rows, 0, (int)N_ROWS);
	suite_add_tcase(s, tc);
	tc = tcase_create("flows");
	tcase_add_test(tc, hlt_woken_by_exiting_interrupt);
	tcase_add_test(tc, spurious_intr_only_without_ack);
	tcase_add_test(tc, preemption_timer_value_saved);
	tcase_add_test(tc, pf_during_delivery_and_reinjection);
	tcase_add_test(tc, pf_during_injected_delivery);
	tcase_add_test(tc, triple_fault_exits);
	tcase_add_test(tc, saved_rf_by_exit_cause);
	tcase_add_test(tc, nmi_exit_blocks_nmis_in_l1);
	tcase_add_test(tc, mtf_before_single_step_trap);
	tcase_add_test(tc, mtf_after_one_rep_iteration);
	tcase_add_test(tc, wait_for_sipi_activity);
	tcase_add_loop_test(tc, shutdown_activity, 0, 2);
	tcase_add_test(tc, tpr_below_threshold_after_mov_cr8);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
