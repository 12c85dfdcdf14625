/* Two common jobs of an L1 hypervisor, each done once by the APM's rules and
 * once the sloppy way, which reads exit information the APM leaves undefined
 * (tests/guests/vmx/vmx_reflect.c is the VMX twin):
 *
 *   - reflect an intercepted #UD back into L2 through EVENTINJ (APM2 15.12
 *     -> 15.20). By the APM the error code goes with the event only when the
 *     exception defines one (#UD does not); the sloppy L1 sends one when
 *     EXITINFO1 is not 0, but 15.12.7 calls #UD's EXITINFO1 undefined.
 *   - emulate an intercepted CPUID and resume L2 after it, first re-injecting
 *     the event whose delivery the exit interrupted, if any. By the APM that
 *     is when EXITINTINFO.V is set (15.7.2); the sloppy L1 looks at its
 *     vector and type bits, which with V = 0 may hold the last event the
 *     guest delivered (15.7.3: only V is cleared).
 *   - intercept INTR, let the interrupt in after each exit (STGI with IF = 1)
 *     and resume L2. By the APM the exit says that an interrupt was pending
 *     at that boundary (15.13.1), not that it still is: a level-triggered
 *     source may have withdrawn it. The sloppy L1 counts on one interrupt
 *     per exit.
 *
 * hvemu writes 0 into both undefined places and exits on INTR only for the
 * PIT's interrupt, so every row passes in a plain run (and under QEMU); under
 * `hvemu run --perturb-exits SEED` the sloppy rows inject an error code with
 * #UD (the L2 handler's frame is 4 bytes deeper) or a leftover event (the L2
 * takes an event it never raised), or find INTR exits with no interrupt
 * behind them (the perturbation's spurious requests): the perturbation finds
 * them (tests/guests/meson.build runs it so), the APM's rows still pass. */
#include "svm/lib_svm.h"
#include "lib/pc_irq.h"

#define EXC(v) (1u << (v))

L2_INSN(b_ud2, "ud2");
L2_INSN(b_cpuid, "cpuid");
L2_BODY(b_spin, "mov $5000000, %ecx\n1:\tdec %ecx\n\tjnz 1b", "nop", "");

/* APM2 8.2 (each vector's description), as 15.12 uses it: #DF, #TS, #NP,
 * #SS, #GP, #PF, #AC, #CP, #VC, #SX push an error code. */
static int pushes_error_code(unsigned vector)
{
	return vector == 8 || (vector >= 10 && vector <= 14) || vector == 17 || vector == 21 || vector == 29 ||
	       vector == 30;
}

static void reflect(struct svm_case *c, int deliver_error)
{
	struct vmcb *v = c->vmcb;
	unsigned vector = (unsigned)(v->exitcode - EXIT_EXC(0));
	uint64_t inj = EVENT(EV_EXC, vector);
	if (deliver_error)
		inj |= EV_ERR | EV_CODE(v->exitinfo1);
	v->eventinj = inj;
	v->icpt_exc = 0;               /* L2's handler takes the next one */
	svm_rerun(c);
	svm_expect(c, "reflected: exit (L2 handler's VMMCALL)", v->exitcode, EXIT_VMMCALL);
	svm_expect(c, "reflected: L2 event vector", l2_event_vector, 6);
	svm_expect(c, "reflected: L2 events taken", l2_event_count, 1);
	svm_expect(c, "reflected: L2 frame bytes (#UD pushes no error code)", l2_frame_depth(), 12);
}

/* 15.12: the exception's own definition decides. */
static void reflect_by_the_apm(struct svm_case *c)
{
	reflect(c, pushes_error_code((unsigned)(c->vmcb->exitcode - EXIT_EXC(0))));
}

/* The bug: an error code "exists" when the undefined EXITINFO1 is not 0. */
static void reflect_sloppily(struct svm_case *c)
{
	reflect(c, c->vmcb->exitinfo1 != 0);
}

/* CPUID emulated: resume after it (the body's next instruction; nRIP needs
 * NRIP_SAVE), re-injecting what EXITINTINFO says was in flight. */
static void resume_after_cpuid(struct svm_case *c, int in_flight)
{
	struct vmcb *v = c->vmcb;
	v->rip = (uint32_t)(uintptr_t)c->row->body->next;
	if (in_flight)
		v->eventinj = v->exitintinfo | EV_VALID;
	svm_rerun(c);
	svm_expect(c, "resumed: exit (the body's closing VMMCALL)", v->exitcode, EXIT_VMMCALL);
	svm_expect(c, "resumed: saved rIP (the closing VMMCALL)", v->rip, (uint32_t)(uintptr_t)c->row->body->next);
	svm_expect(c, "resumed: L2 events taken", l2_event_count, 0);
}

/* 15.7.2: V (bit 31) says whether an event was being delivered. */
static void resume_by_the_apm(struct svm_case *c)
{
	resume_after_cpuid(c, (c->vmcb->exitintinfo & EV_VALID) != 0);
}

/* The bug: an event "was in flight" when TYPE or VECTOR is not 0. */
static void resume_sloppily(struct svm_case *c)
{
	resume_after_cpuid(c, (c->vmcb->exitintinfo & 0x7ff) != 0);
}

/* The PIT's IRQ0 (8259A at 20h, one interrupt on terminal count, mode 0)
 * comes while L2 spins; L1 runs with IF = 1 and V_INTR_MASKING (15.21.1: its
 * own IF decides for physical interrupts), GIF = 0 around VMRUN. */
#define IRQ0 IRQ_BASE_MASTER
#define EFL_IF (1u << 9)

static void pit_irq0_in_l2(struct svm_case *c)
{
	c->vmcb->vintr = VINTR_MASKING;
	c->vmcb->rflags |= EFL_IF;
	pic_remap(0);
	irq_count_vectors(IRQ0, 1);
	irq_reset_counts();
	pit_program(0, 0, 0x400);
	pic_set_mask(0xfffe);
	sti();
}

/* After each INTR exit the STGI that follows VMRUN (svm_vmrun) has let in
 * what was pending; L2 goes on where it was, until its closing VMMCALL. */
static void resume_after_intr_exits(struct svm_case *c, int one_interrupt_per_exit)
{
	struct vmcb *v = c->vmcb;
	uint32_t exits = 0, empty = 0, before = 0;   /* counted from the first VMRUN on */
	while (v->exitcode == EXIT_INTR && exits < 100000) {
		exits++;
		if (irq_count[IRQ0] == before)
			empty++;
		before = irq_count[IRQ0];
		svm_rerun(c);
	}
	cli();
	pic_set_mask(0xffff);
	svm_expect(c, "after the INTR exits: exit (the body's closing VMMCALL)", v->exitcode, EXIT_VMMCALL);
	svm_expect(c, "IRQ0 taken by L1", irq_count[IRQ0], 1);
	svm_expect_true(c, "INTR exits", exits >= 1);
	if (one_interrupt_per_exit)
		svm_expect(c, "INTR exits after which no interrupt came", empty, 0);
	else if (empty)
		note("%u of %u INTR exits had no interrupt behind them", (unsigned)empty, (unsigned)exits);
}

/* 15.13.1: the exit, not the interrupt. */
static void intr_exits_by_the_apm(struct svm_case *c)
{
	resume_after_intr_exits(c, 0);
}

/* The bug: every INTR exit "has" an interrupt. */
static void intr_exits_sloppily(struct svm_case *c)
{
	resume_after_intr_exits(c, 1);
}

static const struct svm_row rows[] = {
	{ .name = "#UD reflected into L2, error code as the exception defines", .apm = "15.12, 15.20",
	  .body = &b_ud2_body, .icpt_exc = EXC(6), .exitcode = EXIT_EXC(6), .extra = reflect_by_the_apm },
	{ .name = "sloppy L1: #UD reflected, error code if the undefined EXITINFO1 is not 0", .apm = "15.12.7, 15.20",
	  .body = &b_ud2_body, .icpt_exc = EXC(6), .exitcode = EXIT_EXC(6), .extra = reflect_sloppily },
	{ .name = "CPUID emulated, the event in flight by EXITINTINFO.V", .apm = "15.7.2, 15.20",
	  .body = &b_cpuid_body, .icpt1 = ICPT1_CPUID, .exitcode = EXIT_CPUID, .check = C_NRIP_NEXT,
	  .extra = resume_by_the_apm },
	{ .name = "sloppy L1: CPUID emulated, an event in flight if EXITINTINFO 10:0 is not 0",
	  .apm = "15.7.2, 15.7.3, 15.20", .body = &b_cpuid_body, .icpt1 = ICPT1_CPUID, .exitcode = EXIT_CPUID,
	  .check = C_NRIP_NEXT, .extra = resume_sloppily },
	{ .name = "INTR intercepted, L2 resumed after each exit, interrupts taken when they come",
	  .apm = "15.13.1, 15.17", .body = &b_spin_body, .icpt1 = ICPT1_INTR, .setup = pit_irq0_in_l2,
	  .exitcode = EXIT_INTR, .check = C_NO_RIP, .extra = intr_exits_by_the_apm },
	{ .name = "sloppy L1: INTR intercepted, an interrupt expected after every INTR exit",
	  .apm = "15.13.1, 15.17", .body = &b_spin_body, .icpt1 = ICPT1_INTR, .setup = pit_irq0_in_l2,
	  .exitcode = EXIT_INTR, .check = C_NO_RIP, .extra = intr_exits_sloppily },
};

void guest_main(void)
{
	svm_host_init();
	RUN_ROWS(rows);
}
