/* Events around VM entry from a 32-bit L1 (SDM Vol.3 26.6, 25.2): event
 * injection through the VM-entry interruption-information field (a hardware
 * exception, also with its exception-bitmap bit set, which does not turn an
 * injected event into an exit; a software interrupt with its instruction
 * length), the field's valid bit cleared by the exit (24.8.3), and
 * interrupt-window exiting, which exits before L2's first instruction when
 * RFLAGS.IF = 1 and nothing blocks interrupts (25.2, 26.7.5). Then the
 * events of non-root operation: the interrupt window after STI's shadow,
 * NMI-window exiting and virtual NMIs (25.2, 25.3, 26.7.1, 26.7.6), the
 * monitor trap flag (25.5.2, 26.6.2, 26.7.8), the VMX-preemption timer
 * (25.5.1, 26.7.4, 27.3.4), HLT and the activity state saved (25.1.3, 27.1),
 * exits during event delivery with their IDT-vectoring information and L1's
 * re-injection (27.2.4, 26.6), and a triple fault (25.2). A row whose
 * controls the model lacks (core2: no virtual NMIs, no timer) skips. */
#include "vmx/lib_vmx.h"

#define EXC(v) (1u << (v))

L2_INSN(b_nop, "nop");

/* 26.6: event injection through the VM-entry interruption-information
 * field (row arg), with the instruction length for software events. */
static void inject(struct vmx_case *c)
{
	vmwrite(VMCS_ENTRY_INTR_INFO, c->row->arg);
	vmwrite(VMCS_ENTRY_INSN_LEN, 2);
}
/* The injected event went through L2's IDT (its stub exits with VMCALL);
 * 24.8.3: every VM exit clears the valid bit of the injection field. */
static void injected(struct vmx_case *c)
{
	vmx_expect(c, "L2 events taken", l2_event_count, 1);
	vmx_expect(c, "L2 event vector", l2_event_vector, c->row->arg & 0xff);
	vmx_expect(c, "VM-entry interruption information valid after the exit",
		   vmread(VMCS_ENTRY_INTR_INFO) & INTR_VALID, 0);
}
static void rflags_if(struct vmx_case *c)
{
	(void)c;
	vmwrite(VMCS_GUEST_RFLAGS, 0x202);
}
/* 25.2: an open interrupt window exits before L2's first instruction. */
static void at_start(struct vmx_case *c)
{
	vmx_expect(c, "guest RIP (before the first instruction)", vmread(VMCS_GUEST_RIP),
		   (uint32_t)(uintptr_t)c->row->body->start);
}

L2_INSN(b_hlt, "hlt");
L2_INSN(b_int40, "int $0x40");
L2_INSN(b_ud2, "ud2");
L2_BODY(b_loop, "", "1: jmp 1b", "");
L2_BODY(b_sti, "", "sti", "nop");

static void interruptibility_nmi(struct vmx_case *c)
{
	(void)c;
	vmwrite(VMCS_GUEST_INTERRUPTIBILITY, INTERRUPTIBILITY_NMI);
}
/* Injection of row arg with RFLAGS.IF = 1 (26.3.1.4 wants it for an
 * external interrupt). */
static void inject_if(struct vmx_case *c)
{
	vmwrite(VMCS_GUEST_RFLAGS, 0x202);
	vmwrite(VMCS_ENTRY_INTR_INFO, c->row->arg);
}
static void timer_value(struct vmx_case *c)
{
	vmwrite(VMCS_PREEMPT_TIMER, c->row->arg);
}
/* L2's IDT ends below vector 40H (row arg: its limit). */
static void idt_limit(struct vmx_case *c)
{
	vmwrite(VMCS_GUEST_IDTR_LIMIT, c->row->arg);
}
static void idt_limit_inject_41(struct vmx_case *c)
{
	(void)c;
	vmwrite(VMCS_GUEST_IDTR_LIMIT, 0x1ff);
	vmwrite(VMCS_GUEST_RFLAGS, 0x202);
	vmwrite(VMCS_ENTRY_INTR_INFO, INTR_VALID | INTR_TYPE_EXT | 0x41);
}

static void nmi_blocking_saved(struct vmx_case *c)
{
	vmx_expect(c, "interruptibility: (virtual-)NMI blocking saved",
		   vmread(VMCS_GUEST_INTERRUPTIBILITY) & INTERRUPTIBILITY_NMI, INTERRUPTIBILITY_NMI);
}
static void nmi_injected_blocks(struct vmx_case *c)
{
	vmx_expect(c, "L2 event vector", l2_event_vector, 2);
	nmi_blocking_saved(c);
}
/* 26.6.1.3 (STI blocking lasts one instruction): the window opens after
 * the NOP that follows the STI. */
static void after_sti_shadow(struct vmx_case *c)
{
	vmx_expect(c, "guest RIP (after the instruction in STI's shadow)", vmread(VMCS_GUEST_RIP),
		   (uint32_t)(uintptr_t)c->row->body->next + 1);
}
/* 25.5.2: MTF after the injected event's delivery: at the handler, which
 * has not run. */
static void at_handler(struct vmx_case *c)
{
	vmx_expect(c, "guest RIP (the handler's first instruction)", vmread(VMCS_GUEST_RIP),
		   l2_stub_addr(c->row->arg & 0xff));
	vmx_expect(c, "L2 events taken", l2_event_count, 0);
}
static void activity_hlt(struct vmx_case *c)
{
	vmx_expect(c, "activity state (27.1: HLT until the exit completes)", vmread(VMCS_GUEST_ACTIVITY),
		   ACTIVITY_HLT);
}
static void activity_active(struct vmx_case *c)
{
	vmx_expect(c, "activity state", vmread(VMCS_GUEST_ACTIVITY), ACTIVITY_ACTIVE);
}
static void timer_saved_0(struct vmx_case *c)
{
	vmx_expect(c, "VMX-preemption timer value saved", vmread(VMCS_PREEMPT_TIMER), 0);
}
/* What L1 does with an exit during delivery (27.2.4 -> 26.6): the cause
 * fixed (the IDT's limit back), the IDT-vectoring information re-injected
 * with the exit's instruction length; INT 40H then reaches its handler. */
static void reinject(struct vmx_case *c)
{
	vmwrite(VMCS_GUEST_IDTR_LIMIT, sizeof(l2_idt) - 1);
	vmwrite(VMCS_ENTRY_INTR_INFO, vmread(VMCS_IDT_VECTORING_INFO));
	vmwrite(VMCS_ENTRY_INSN_LEN, vmread(VMCS_EXIT_INSN_LEN));
	l2_event_count = 0;
	int vec = vmx_enter_caught(c, 1);
	vmx_expect(c, "VMRESUME fault", (uint32_t)vec, (uint32_t)NO_FAULT);
	vmx_expect(c, "re-injected: exit reason", vmread(VMCS_EXIT_REASON), EXIT_VMCALL);
	vmx_expect(c, "re-injected: L2 event vector", l2_event_vector, 0x40);
	vmx_expect(c, "re-injected: L2 events taken", l2_event_count, 1);
}
/* 26.7.2: entry into the shutdown activity state; with the timer (row arg). */
static void shutdown_state(struct vmx_case *c)
{
	(void)c;
	vmwrite(VMCS_GUEST_ACTIVITY, ACTIVITY_SHUTDOWN);
}
static void shutdown_timer(struct vmx_case *c)
{
	shutdown_state(c);
	timer_value(c);
}
/* 27.1: the exit of an event that woke the CPU saves the inactive state. */
static void activity_shutdown(struct vmx_case *c)
{
	vmx_expect(c, "activity state (27.1: shutdown until the exit completes)", vmread(VMCS_GUEST_ACTIVITY),
		   ACTIVITY_SHUTDOWN);
	vmwrite(VMCS_GUEST_ACTIVITY, ACTIVITY_ACTIVE);
}
static const char *no_shutdown_state(void)
{
	return (vmx_caps.misc & MISC_ACTIVITY_SHUTDOWN) ? 0 : "no shutdown activity state (IA32_VMX_MISC bit 7)";
}

static const char *no_mtf(void)
{
	return ctl_allows(vmx_caps.proc, PROC_MTF) ? 0 : "no monitor trap flag (26.2.1.3: type 7 needs it)";
}

/* ---- interrupts from the local APIC: a self IPI sent by L2 ---- */

/* xAPIC registers (SDM Vol.3 10.4.1, Table 10-1). */
#define APIC_DEFAULT_BASE 0xfee00000u
enum { APIC_TPR = 0x80, APIC_EOI = 0xb0, APIC_SVR = 0xf0, APIC_ISR = 0x100, APIC_IRR = 0x200 };
#define APIC_SVR_ENABLE (1u << 8)

/* The xAPIC page, mapped by one 4 MiB page (CR4.PSE,
 * uncached) in L1's page directory, which L2 shares. */
static volatile uint32_t *apic_reg(uint32_t off)
{
	return (volatile uint32_t *)(uintptr_t)(APIC_DEFAULT_BASE + off);
}
static void apic_map(void)
{
	pg32_pd[APIC_DEFAULT_BASE >> 22] = (APIC_DEFAULT_BASE & 0xffc00000u) | 0x80u /* PS */ |
					   0x10u /* PCD */ | 0x3u /* R/W, P */;
	flush_tlb();
	*apic_reg(APIC_SVR) = APIC_SVR_ENABLE | 0xff;
	*apic_reg(APIC_TPR) = 0;
}
/* SDM Vol.3 10.6.1: ICR low with the "self" shorthand (19:18 = 01). */
#define ICR_SELF (1u << 18)
#define STR(x) #x
#define XSTR(x) STR(x)
/* L2: the self IPI, then room for its delivery before VMCALL. */
L2_BODY(b_self_50, "", "movl $" XSTR(0x40050) ", 0xfee00300", "nop; nop; nop; nop");
L2_BODY(b_self_51, "", "movl $" XSTR(0x40051) ", 0xfee00300", "nop; nop; nop; nop");
/* An NMI has no "self" shorthand (10.6.1, Table 10-3): to the APIC's own ID
 * (APIC ID register bits 31:24 = ICR high bits 31:24), physical. */
L2_BODY(b_self_nmi, "movl 0xfee00020, %eax; movl %eax, 0xfee00310", "movl $0x400, 0xfee00300",
	"nop; nop; nop; nop");

/* INIT (level assert, 10.6.1) to the APIC's own ID. */
L2_BODY(b_self_init, "movl 0xfee00020, %eax; movl %eax, 0xfee00310", "movl $0x4500, 0xfee00300",
	"nop; nop; nop; nop");

/* IRET to the next instruction (a 32-bit frame on L2's stack). */
L2_BODY(b_iret, "pushfl; pushl $0x08; pushl $1f", "iret", "1: nop");
static void nmi_blocking_clear(struct vmx_case *c)
{
	vmx_expect(c, "interruptibility: (virtual-)NMI blocking saved",
		   vmread(VMCS_GUEST_INTERRUPTIBILITY) & INTERRUPTIBILITY_NMI, 0);
}

static int irr_has(unsigned vec)
{
	return (*apic_reg(APIC_IRR + 0x10 * (vec / 32)) >> (vec % 32)) & 1;
}
static int isr_has(unsigned vec)
{
	return (*apic_reg(APIC_ISR + 0x10 * (vec / 32)) >> (vec % 32)) & 1;
}
/* 27.2.2: acknowledged on exit: in service now (L1 ends it with EOI). */
static void acked_50(struct vmx_case *c)
{
	vmx_expect(c, "vector 50H in service after the acknowledge", isr_has(0x50), 1);
	*apic_reg(APIC_EOI) = 0;
}
/* Without acknowledge the interrupt stays requested (IRR); a VMRESUME with
 * "acknowledge interrupt on exit" then exits with it at once. */
static void pending_51(struct vmx_case *c)
{
	/* An exit before the body's self IPI had an interrupt behind it that
	 * was gone by now (legal; hvemu's --perturb-exits makes them): L2 goes
	 * on to its IPI. */
	for (unsigned n = 0; !irr_has(0x51) && n < 1000 && c->outcome == VMX_EXITED &&
			     vmread(VMCS_EXIT_REASON) == EXIT_EXTERNAL_INTR; n++)
		if (vmx_enter_caught(c, 1) != NO_FAULT)
			break;
	vmx_expect(c, "vector 51H still requested (IRR)", irr_has(0x51), 1);
	vmwrite(VMCS_EXIT_CTLS, vmread(VMCS_EXIT_CTLS) | EXIT_ACK_INTR);
	int vec = vmx_enter_caught(c, 1);
	vmx_expect(c, "VMRESUME fault", (uint32_t)vec, (uint32_t)NO_FAULT);
	vmx_expect(c, "resumed: exit reason", vmread(VMCS_EXIT_REASON), EXIT_EXTERNAL_INTR);
	vmx_expect(c, "resumed: interruption information", vmread(VMCS_EXIT_INTR_INFO),
		   INTR_VALID | INTR_TYPE_EXT | 0x51);
	*apic_reg(APIC_EOI) = 0;
}
static const char *no_ack(void)
{
	return ctl_allows(vmx_caps.exit, EXIT_ACK_INTR) ? 0 : "no acknowledge interrupt on exit";
}

static const struct vmx_row rows[] = {
	{ .name = "inject #UD: delivered through L2's IDT, the valid bit cleared on exit", .sdm = "26.6, 24.8.3",
	  .body = &b_nop_body, .setup = inject, .arg = INTR_VALID | INTR_TYPE_HW_EXC | 6,
	  .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = injected },
	{ .name = "inject #UD with #UD in the exception bitmap: delivered, no exit 0", .sdm = "26.6",
	  .body = &b_nop_body, .exc_bitmap = EXC(6), .setup = inject, .arg = INTR_VALID | INTR_TYPE_HW_EXC | 6,
	  .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = injected },
	{ .name = "inject software interrupt 40H (length 2): delivered", .sdm = "26.6",
	  .body = &b_nop_body, .setup = inject, .arg = INTR_VALID | INTR_TYPE_SW_INT | 0x40,
	  .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = injected },
	{ .name = "interrupt-window exiting with RFLAGS.IF = 1: exit 7 before the first instruction",
	  .sdm = "25.2", .body = &b_nop_body, .proc = PROC_INTR_WINDOW, .setup = rflags_if,
	  .reason = EXIT_INTR_WINDOW, .check = C_NO_RIP, .extra = at_start },
	{ .name = "interrupt-window exiting: the window opens after the instruction in STI's shadow",
	  .sdm = "25.2, 26.7.5", .body = &b_sti_body, .proc = PROC_INTR_WINDOW,
	  .reason = EXIT_INTR_WINDOW, .check = C_NO_RIP, .extra = after_sti_shadow },
	/* NMI-window exiting needs virtual NMIs, which need NMI exiting (26.2.1.1). */
	{ .name = "NMI-window exiting without virtual-NMI blocking: exit 8 before the first instruction",
	  .sdm = "25.2, 26.7.6", .body = &b_nop_body, .pin = PIN_NMI | PIN_VIRTUAL_NMI, .proc = PROC_NMI_WINDOW,
	  .reason = EXIT_NMI_WINDOW },
	{ .name = "NMI-window exiting held by virtual-NMI blocking from the interruptibility state",
	  .sdm = "26.7.1, 25.2", .body = &b_nop_body, .pin = PIN_NMI | PIN_VIRTUAL_NMI, .proc = PROC_NMI_WINDOW,
	  .setup = interruptibility_nmi, .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = nmi_blocking_saved },
	{ .name = "virtual NMIs: injecting an NMI sets virtual-NMI blocking (saved by the exit)",
	  .sdm = "26.6.1.2, 27.3.4", .body = &b_nop_body, .pin = PIN_NMI | PIN_VIRTUAL_NMI,
	  .setup = inject_if, .arg = INTR_VALID | INTR_TYPE_NMI | 2, .reason = EXIT_VMCALL, .check = C_NO_RIP,
	  .extra = nmi_injected_blocks },
	/* The monitor trap flag. */
	{ .name = "MTF: exit 37 after the first instruction", .sdm = "25.5.2", .body = &b_nop_body,
	  .proc = PROC_MTF, .reason = EXIT_MTF, .check = C_RIP_NEXT },
	{ .name = "MTF with an injected interrupt: exit before the handler's first instruction",
	  .sdm = "25.5.2, 26.7.8", .body = &b_nop_body, .proc = PROC_MTF, .setup = inject_if,
	  .arg = INTR_VALID | INTR_TYPE_EXT | 0x41, .reason = EXIT_MTF, .check = C_NO_RIP, .extra = at_handler },
	{ .name = "injected pending MTF VM exit (type 7) with the MTF control 0: exit before the first instruction",
	  .sdm = "26.6.2, 26.7.8", .body = &b_nop_body, .setup = inject_if, .arg = INTR_VALID | INTR_TYPE_OTHER,
	  .reason = EXIT_MTF, .skip = no_mtf },
	{ .name = "MTF after HLT: the activity state saved is HLT", .sdm = "25.5.2, 27.1", .body = &b_hlt_body,
	  .proc = PROC_MTF, .reason = EXIT_MTF, .check = C_RIP_NEXT, .extra = activity_hlt },
	/* The VMX-preemption timer. */
	{ .name = "VMX-preemption timer 0 at entry: exit 52 before the first instruction", .sdm = "26.7.4",
	  .body = &b_nop_body, .pin = PIN_PREEMPT_TIMER, .setup = timer_value, .arg = 0,
	  .reason = EXIT_PREEMPT_TIMER },
	{ .name = "VMX-preemption timer counts down in a loop; 0 saved", .sdm = "25.5.1, 27.3.4",
	  .body = &b_loop_body, .pin = PIN_PREEMPT_TIMER, .exit = EXIT_SAVE_PREEMPT, .setup = timer_value,
	  .arg = 3, .reason = EXIT_PREEMPT_TIMER, .extra = timer_saved_0 },
	{ .name = "VMX-preemption timer wakes HLT: the activity state saved is HLT", .sdm = "25.5.1, 27.1",
	  .body = &b_hlt_body, .pin = PIN_PREEMPT_TIMER, .setup = timer_value, .arg = 2,
	  .reason = EXIT_PREEMPT_TIMER, .check = C_RIP_NEXT, .extra = activity_hlt },
	/* Two at one boundary: the priorities of 25.2 and 25.5 (SDM Vol.3 6.9
	 * Table 6-2's order). */
	{ .name = "the VMX-preemption timer (0) takes priority over the NMI window", .sdm = "25.2",
	  .body = &b_nop_body, .pin = PIN_NMI | PIN_VIRTUAL_NMI | PIN_PREEMPT_TIMER, .proc = PROC_NMI_WINDOW,
	  .setup = timer_value, .arg = 0, .reason = EXIT_PREEMPT_TIMER },
	/* 25.2: NMI-window exits "take priority over non-maskable interrupts
	 * (NMIs) and lower priority events", interrupt-window exits are below
	 * NMIs (Bochs 2.7 takes the interrupt window first). */
	{ .name = "the NMI window takes priority over the interrupt window", .sdm = "25.2",
	  .body = &b_nop_body, .pin = PIN_NMI | PIN_VIRTUAL_NMI, .proc = PROC_NMI_WINDOW | PROC_INTR_WINDOW,
	  .setup = rflags_if, .reason = EXIT_NMI_WINDOW },
	{ .name = "a pending MTF VM exit takes priority over the NMI window", .sdm = "25.5.2",
	  .body = &b_nop_body, .pin = PIN_NMI | PIN_VIRTUAL_NMI, .proc = PROC_NMI_WINDOW, .setup = inject_if,
	  .arg = INTR_VALID | INTR_TYPE_OTHER, .reason = EXIT_MTF, .skip = no_mtf },
	/* HLT. */
	{ .name = "HLT exiting: exit 12 at the HLT, the activity state active", .sdm = "25.1.3",
	  .body = &b_hlt_body, .proc = PROC_HLT, .reason = EXIT_HLT, .check = C_LEN, .extra = activity_active },
	/* Exits during event delivery. */
	{ .name = "#GP delivering INT 40H (IDT limit) with #GP in the bitmap: IDT-vectoring = the INT; re-injected",
	  .sdm = "27.2.4, 27.2.5, 26.6", .body = &b_int40_body, .exc_bitmap = EXC(13), .setup = idt_limit,
	  .arg = 0x1ff, .reason = EXIT_EXCEPTION_NMI, .check = C_INTR | C_INTR_ERR | C_IDT_VEC | C_LEN,
	  .intr = INTR_VALID | INTR_TYPE_HW_EXC | INTR_ERROR_VALID | 13, .intr_err = 0x40 * 8 + 2,
	  .idt_vec = INTR_VALID | INTR_TYPE_SW_INT | 0x40, .extra = reinject },
	{ .name = "#GP delivering an injected interrupt 41H: IDT-vectoring = the injected event, error code EXT",
	  .sdm = "27.2.4, 6.13", .body = &b_nop_body, .exc_bitmap = EXC(13), .setup = idt_limit_inject_41,
	  .reason = EXIT_EXCEPTION_NMI, .check = C_INTR | C_INTR_ERR | C_IDT_VEC,
	  .intr = INTR_VALID | INTR_TYPE_HW_EXC | INTR_ERROR_VALID | 13, .intr_err = 0x41 * 8 + 2 + 1,
	  .idt_vec = INTR_VALID | INTR_TYPE_EXT | 0x41 },
	{ .name = "triple fault in L2 (#UD, #GP, #DF past an IDT of limit 0): exit 2, no IDT-vectoring",
	  .sdm = "25.2, 27.2.4", .body = &b_ud2_body, .setup = idt_limit, .arg = 0,
	  .reason = EXIT_TRIPLE_FAULT },
	/* External interrupts and NMIs from a self IPI (the APIC mapped by
	 * guest_main). */
	{ .name = "external-interrupt exiting, acknowledge on exit: exit 1 with vector 50H (RFLAGS.IF = 1)",
	  .sdm = "25.2, 27.2.2", .body = &b_self_50_body, .pin = PIN_EXT_INTR, .exit = EXIT_ACK_INTR,
	  .setup = rflags_if, .reason = EXIT_EXTERNAL_INTR, .check = C_INTR | C_NO_RIP,
	  .intr = INTR_VALID | INTR_TYPE_EXT | 0x50, .extra = acked_50 },
	/* 24.6.1 Table 24-5: with external-interrupt exiting "the value of
	 * RFLAGS.IF does not affect interrupt blocking" (Bochs 2.7 waits for
	 * IF = 1 here). */
	{ .name = "external-interrupt exiting with RFLAGS.IF = 0, no acknowledge: info invalid, 51H still pending",
	  .sdm = "24.6.1, 25.2, 27.2.2", .body = &b_self_51_body, .pin = PIN_EXT_INTR, .reason = EXIT_EXTERNAL_INTR,
	  .check = C_INTR | C_NO_RIP, .intr = 0, .extra = pending_51, .skip = no_ack },
	/* The exit leaves NMIs blocked in L1 (27.5.5); the next VM entry
	 * unblocks them for L2 from the interruptibility state (26.7.1), which
	 * Bochs 2.7 does not: the first row to need an NMI. */
	{ .name = "NMI exiting: a self NMI exits with vector 2, type NMI", .sdm = "25.2, 27.2.2, 27.5.5",
	  .body = &b_self_nmi_body, .pin = PIN_NMI, .reason = EXIT_EXCEPTION_NMI, .check = C_INTR | C_NO_RIP,
	  .intr = INTR_VALID | INTR_TYPE_NMI | 2 },
	/* IRET and NMI blocking (25.3). */
	{ .name = "NMI exiting without virtual NMIs: IRET leaves blocking by NMI", .sdm = "25.3, 26.7.1",
	  .body = &b_iret_body, .pin = PIN_NMI, .setup = interruptibility_nmi, .reason = EXIT_VMCALL,
	  .check = C_NO_RIP, .extra = nmi_blocking_saved },
	{ .name = "virtual NMIs: IRET ends virtual-NMI blocking", .sdm = "25.3",
	  .body = &b_iret_body, .pin = PIN_NMI | PIN_VIRTUAL_NMI, .setup = interruptibility_nmi,
	  .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = nmi_blocking_clear },
	/* 26.7.1: with virtual NMIs "NMIs are not blocked in VMX non-root
	 * operation": virtual-NMI blocking does not hold the NMI's exit (Bochs
	 * 2.7 holds it: the row comes after the other NMI rows). */
	{ .name = "virtual NMIs: an NMI exits despite virtual-NMI blocking", .sdm = "26.7.1, 25.2",
	  .body = &b_self_nmi_body, .pin = PIN_NMI | PIN_VIRTUAL_NMI, .setup = interruptibility_nmi,
	  .reason = EXIT_EXCEPTION_NMI, .check = C_INTR | C_NO_RIP, .intr = INTR_VALID | INTR_TYPE_NMI | 2,
	  .extra = nmi_blocking_saved },
	/* 25.2: INIT in VMX non-root operation is a VM exit, which takes it
	 * (in VMX root operation INIT is blocked: 23.8). Last: Bochs 2.7 keeps
	 * the INIT pending after its exit. */
	{ .name = "INIT to the APIC's own ID in L2: exit 3", .sdm = "25.2", .body = &b_self_init_body,
	  .reason = EXIT_INIT, .check = C_NO_RIP },
	/* The shutdown activity state (26.7.2): no instruction runs; the timer
	 * and the NMI window wake it (26.7.4, 26.7.6), the state is saved. Last:
	 * Bochs 2.7 never wakes from it (tests/bochs/meson.build). */
	{ .name = "entry in the shutdown state: the VMX-preemption timer exits, shutdown saved",
	  .sdm = "26.7.2, 26.7.4, 27.1", .body = &b_nop_body, .pin = PIN_PREEMPT_TIMER, .setup = shutdown_timer,
	  .arg = 3, .reason = EXIT_PREEMPT_TIMER, .check = C_NO_RIP, .extra = activity_shutdown,
	  .skip = no_shutdown_state },
	{ .name = "entry in the shutdown state: NMI-window exiting wakes it, shutdown saved",
	  .sdm = "26.7.2, 26.7.6, 27.1", .body = &b_nop_body, .pin = PIN_NMI | PIN_VIRTUAL_NMI,
	  .proc = PROC_NMI_WINDOW, .setup = shutdown_state, .reason = EXIT_NMI_WINDOW, .check = C_NO_RIP,
	  .extra = activity_shutdown, .skip = no_shutdown_state },
};

void guest_main(void)
{
	vmx_host_init();
	if (!vmx_on())
		skip_all("VMXON failed");
	apic_map();
	RUN_ROWS(rows);
}
