/* An L1 that reflects an exception it intercepted back into L2, the common
 * job of a hypervisor (SDM Vol.3 27.2.2 -> 26.6): L2 executes UD2, #UD is in
 * the exception bitmap, L1 re-injects it through the VM-entry
 * interruption-information field and L2's own #UD handler runs.
 *
 * Twice: once by the SDM's rule (the error code is delivered only when the
 * exit's interruption information says one exists, bit 11, 27.2.2), once the
 * sloppy way, which decides from the VM-exit interruption error code itself.
 * That field is undefined for #UD (27.2.2: only "if bit 11 is set"), and
 * hvemu writes 0 there, so both rows pass in a plain run; under
 * `hvemu run --perturb-exits SEED` the sloppy row asks to deliver an error
 * code with #UD, which VM entry refuses (26.2.1.3): the perturbation finds
 * the bug (tests/guests/meson.build runs it so), the SDM's row still passes.
 *
 * And an L1 that uses external-interrupt exiting without "acknowledge
 * interrupt on exit" (25.2, 27.2.2): after each exit it lets the interrupt
 * in (STI) and resumes L2. By the SDM the exit says an interrupt arrived, not
 * that it is still requested when L1 enables interrupts (a level-triggered
 * source may have withdrawn it); the sloppy L1 counts on one interrupt per
 * exit. The PIT's IRQ0 is the only source in a plain run; --perturb-exits
 * adds requests that vanish, which find it. */
#include "vmx/lib_vmx.h"
#include "lib/pc_irq.h"

#define EXC(v) (1u << (v))

L2_INSN(b_ud2, "ud2");

static void reflect(struct vmx_case *c, uint32_t deliver_error)
{
	uint32_t info = (uint32_t)vmread(VMCS_EXIT_INTR_INFO);
	uint32_t entry = info & (INTR_VALID | 0x7ffu);     /* valid, type (10:8), vector (7:0) */
	if (deliver_error) {
		entry |= INTR_ERROR_VALID;
		vmwrite(VMCS_ENTRY_EXC_ERROR, vmread(VMCS_EXIT_INTR_ERROR));
	}
	vmwrite(VMCS_ENTRY_INTR_INFO, entry);
	vmwrite(VMCS_EXCEPTION_BITMAP, 0);     /* L2's handler takes the next one */
	l2_event_count = 0;
	int vec = vmx_enter_caught(c, 1);
	vmx_expect(c, "VMRESUME fault", (uint32_t)vec, (uint32_t)NO_FAULT);
	vmx_expect(c, "reflected: VMRESUME entered (no VMfail)", c->outcome, VMX_EXITED);
	vmx_expect(c, "reflected: exit reason (L2's handler's VMCALL)", vmread(VMCS_EXIT_REASON), EXIT_VMCALL);
	vmx_expect(c, "reflected: L2 event vector", l2_event_vector, 6);
	vmx_expect(c, "reflected: L2 events taken", l2_event_count, 1);
}

/* 27.2.2: bit 11 of the exit's interruption information says whether the
 * error-code field holds one. */
static void reflect_by_the_sdm(struct vmx_case *c)
{
	reflect(c, vmread(VMCS_EXIT_INTR_INFO) & INTR_ERROR_VALID);
}

/* The bug: an error code "exists" when the undefined field is not 0. */
static void reflect_sloppily(struct vmx_case *c)
{
	reflect(c, vmread(VMCS_EXIT_INTR_ERROR) != 0);
}

/* ---- external-interrupt exits (25.2) ---- */

L2_BODY(b_spin, "mov $5000000, %ecx\n1:\tdec %ecx\n\tjnz 1b", "nop", "");

#define IRQ0 IRQ_BASE_MASTER

/* The PIT's IRQ0 (8259A at 20h, one interrupt on terminal count, mode 0)
 * comes while L2 spins; L1 keeps IF = 0 (a VM exit clears it, 27.5.3) but
 * for a moment after each exit. */
static void pit_irq0_in_l2(struct vmx_case *c)
{
	(void)c;
	pic_remap(0);
	irq_count_vectors(IRQ0, 1);
	irq_reset_counts();
	pit_program(0, 0, 0x400);
	pic_set_mask(0xfffe);
}

static void resume_after_intr_exits(struct vmx_case *c, int one_interrupt_per_exit)
{
	uint32_t exits = 0, empty = 0;
	while (c->outcome == VMX_EXITED && vmread(VMCS_EXIT_REASON) == EXIT_EXTERNAL_INTR && exits < 100000) {
		uint32_t before = irq_count[IRQ0];
		__asm__ volatile("sti; nop; nop; cli" ::: "memory");
		exits++;
		if (irq_count[IRQ0] == before)
			empty++;
		int vec = vmx_enter_caught(c, 1);
		vmx_expect(c, "VMRESUME fault", (uint32_t)vec, (uint32_t)NO_FAULT);
	}
	pic_set_mask(0xffff);
	vmx_expect(c, "after the interrupt exits: exit reason (the body's closing VMCALL)", vmread(VMCS_EXIT_REASON),
		   EXIT_VMCALL);
	vmx_expect(c, "IRQ0 taken by L1", irq_count[IRQ0], 1);
	vmx_expect(c, "external-interrupt exits >= 1", exits >= 1, 1);
	if (one_interrupt_per_exit)
		vmx_expect(c, "external-interrupt exits after which no interrupt came", empty, 0);
	else if (empty)
		note("%u of %u external-interrupt exits had no interrupt behind them", (unsigned)empty, (unsigned)exits);
}

/* 25.2: the exit, not the interrupt. */
static void intr_exits_by_the_sdm(struct vmx_case *c)
{
	resume_after_intr_exits(c, 0);
}

/* The bug: every external-interrupt exit "has" an interrupt. */
static void intr_exits_sloppily(struct vmx_case *c)
{
	resume_after_intr_exits(c, 1);
}

static const struct vmx_row rows[] = {
	{ .name = "#UD reflected into L2, error code by the exit's bit 11", .sdm = "27.2.2, 26.6",
	  .body = &b_ud2_body, .exc_bitmap = EXC(6), .reason = EXIT_EXCEPTION_NMI, .check = C_INTR,
	  .intr = INTR_VALID | INTR_TYPE_HW_EXC | 6, .extra = reflect_by_the_sdm },
	{ .name = "sloppy L1: #UD reflected, error code if the undefined error-code field is not 0",
	  .sdm = "27.2.2, 26.2.1.3", .body = &b_ud2_body, .exc_bitmap = EXC(6), .reason = EXIT_EXCEPTION_NMI,
	  .check = C_INTR, .intr = INTR_VALID | INTR_TYPE_HW_EXC | 6, .extra = reflect_sloppily },
	{ .name = "external-interrupt exiting without acknowledge, L2 resumed, interrupts taken when they come",
	  .sdm = "25.2, 27.2.2", .body = &b_spin_body, .pin = PIN_EXT_INTR, .setup = pit_irq0_in_l2,
	  .reason = EXIT_EXTERNAL_INTR, .check = C_INTR | C_NO_RIP, .intr = 0, .extra = intr_exits_by_the_sdm },
	{ .name = "sloppy L1: external-interrupt exiting, an interrupt expected after every such exit",
	  .sdm = "25.2, 27.2.2", .body = &b_spin_body, .pin = PIN_EXT_INTR, .setup = pit_irq0_in_l2,
	  .reason = EXIT_EXTERNAL_INTR, .check = C_INTR | C_NO_RIP, .intr = 0, .extra = intr_exits_sloppily },
};

void guest_main(void)
{
	vmx_host_init();
	if (!vmx_on())
		skip_all("VMXON failed");
	RUN_ROWS(rows);
}
