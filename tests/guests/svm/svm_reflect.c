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
 *
 * hvemu writes 0 into both undefined places, so every row passes in a plain
 * run (and under QEMU); under `hvemu run --perturb-exits SEED` the sloppy rows
 * inject an error code with #UD (the L2 handler's frame is 4 bytes deeper)
 * or a leftover event (the L2 takes an event it never raised): the
 * perturbation finds them (tests/guests/meson.build runs it so), the APM's
 * rows still pass. */
#include "svm/lib_svm.h"

#define EXC(v) (1u << (v))

L2_INSN(b_ud2, "ud2");
L2_INSN(b_cpuid, "cpuid");

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
};

void guest_main(void)
{
	svm_host_init();
	RUN_ROWS(rows);
}
