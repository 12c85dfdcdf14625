/* Events around VM entry from a 32-bit L1 (SDM Vol.3 26.6, 25.2): event
 * injection through the VM-entry interruption-information field (a hardware
 * exception, also with its exception-bitmap bit set, which does not turn an
 * injected event into an exit; a software interrupt with its instruction
 * length), the field's valid bit cleared by the exit (24.8.3), and
 * interrupt-window exiting, which exits before L2's first instruction when
 * RFLAGS.IF = 1 and nothing blocks interrupts (25.2, 26.7.5). */
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
};

void guest_main(void)
{
	vmx_host_init();
	if (!vmx_on())
		skip_all("VMXON failed");
	RUN_ROWS(rows);
}
