/* Events: EVENTINJ (APM2 15.20) of each type with and without an error code
 * and the injections VMRUN refuses; EXITINTINFO when an intercept interrupts
 * the delivery of an injected or guest-raised event (15.7.2), and the VMM
 * re-injecting it; virtual interrupts (15.21.4: V_IRQ, V_INTR_PRIO, V_TPR,
 * V_IGN_TPR, V_INTR_MASKING, the VINTR intercept); the interrupt shadow both
 * ways (15.21.5); TSC_OFFSET (15.5.1); the GIF (15.17, Table 15-10) and the
 * virtual GIF (15.33.2); physical INTR intercepts from the 8259/8254 where
 * the machine has them (15.13.1). */
#include "svm/lib_svm.h"

#define EXC(v) (1u << (v))
#define EFL_IF (1u << 9)

static const char *no_cr8_legacy(void)
{
	return cpu_has(0x80000001u, 2, 4) ? 0 : "CPUID Fn8000_0001_ECX[AltMovCr8] = 0";
}

L2_INSN(b_nop, "nop");
L2_BODY(b_sti_nop, "", "sti", "nop\n\tnop");
L2_INSN(b_stgi, "stgi");
L2_INSN(b_clgi, "clgi");
L2_BODY(b_sti_cpuid, "sti", "cpuid", "");
L2_BODY(b_movss_cpuid, "mov %ss, %eax\n\tmov %eax, %ss", "cpuid", "");
L2_BODY(b_cr8_w, "mov $9, %ebx", ".byte 0xf0, 0x0f, 0x22, 0xc3", "");  /* lock mov %ebx, %cr0 = CR8 */
L2_INSN(b_cr8_r, ".byte 0xf0, 0x0f, 0x20, 0xc0");                      /* lock mov %cr0, %eax */
L2_BODY(b_rdtsc, "", "rdtsc", "");
L2_INSN(b_ud2, "ud2");
L2_BODY(b_spin, "mov $20000000, %ecx\n1:\tdec %ecx\n\tjnz 1b", "nop", "");

/* ---- EVENTINJ ---- */
static void inject(struct svm_case *c) { c->vmcb->eventinj = ((uint64_t)c->row->arg2 << 32) | c->row->arg; }
static void inject_cpl3(struct svm_case *c) { inject(c); vmcb_user(c->vmcb); }
static void inject_cpl3_gate3(struct svm_case *c)
{
	inject_cpl3(c);
	l2_idt[3] = gate_desc(SEL_KCODE, l2_stub_addr(3), SYS_INTGATE, 3, 0);
}
static void inject_gate_np(struct svm_case *c)
{
	inject(c);
	l2_idt[c->row->arg & 0xff] &= ~(1ull << 47);   /* P = 0 */
}
static void inject_swint(struct svm_case *c)
{
	inject(c);
	c->vmcb->nrip = (uint32_t)(uintptr_t)c->row->body->next;
}

/* The frame the L2 stub saw (15.20: delivered before the first guest
 * instruction, so the saved EIP is the entry point). */
static void frame_at_start(struct svm_case *c, uint32_t depth)
{
	svm_expect(c, "L2 frame depth", l2_frame_depth(), depth);
	uint32_t eip_slot = depth == 16 ? 1 : 0;
	if (l2_frame_depth() == depth)
		svm_expect(c, "L2 frame EIP", l2_frame(eip_slot), (uint32_t)(uintptr_t)c->row->body->start);
}
static void frame12(struct svm_case *c) { frame_at_start(c, 12); }
static void frame16(struct svm_case *c)
{
	frame_at_start(c, 16);
	if (l2_frame_depth() == 16)
		svm_expect(c, "L2 error code", l2_frame(0), c->row->arg2);
}
/* A software interrupt pushes nRIP (15.20: needs NRIPS). */
static void frame_swint(struct svm_case *c)
{
	svm_expect(c, "L2 frame depth", l2_frame_depth(), 12);
	svm_expect(c, "L2 frame EIP (the VMCB nRIP)", l2_frame(0), (uint32_t)(uintptr_t)c->row->body->next);
}

#define INJ(nm, ev, err, vec, fx) { .name = nm, .apm = "15.20", .body = &b_nop_body, .setup = inject, \
	.arg = (uint32_t)(ev), .arg2 = err, .exitcode = EXIT_VMMCALL, .check = C_L2_EVENT, \
	.l2_vector = vec, .extra = fx }
#define BAD(nm, ev) { .name = nm, .apm = "15.20", .body = &b_nop_body, .setup = inject, \
	.arg = (uint32_t)(ev), .exitcode = EXIT_INVALID }

/* ---- exits during delivery, and re-injection ---- */
static uint32_t pg32_cr3;
/* L2 paging on, ESP at the top of the not-present TEST_LIN page 0. */
static void stack_np(struct svm_case *c)
{
	c->vmcb->cr0 |= CR0_PG;
	c->vmcb->cr3 = pg32_cr3;
	c->vmcb->rsp = TEST_LIN + 0x1000;
	pg32_test_pt[0] = 0;
	if (c->row->arg)
		inject(c);
}
/* The VMM maps the stack page and re-injects EXITINTINFO as EVENTINJ; the
 * L2 then takes the event on that stack (APM2 15.7.2, 15.20). */
static void reinject(struct svm_case *c)
{
	struct vmcb *v = c->vmcb;
	/* EXITINFO2: an address of the 12-byte frame (which push faults
	 * first is the implementation's; all are on the page). */
	svm_expect_true(c, "EXITINFO2 inside the frame (TEST_LIN + FF4h..FFFh)",
			v->exitinfo2 >= TEST_LIN + 0xff4 && v->exitinfo2 <= TEST_LIN + 0xfff);
	pg32_test_pt[0] = frame_pa(0) | PG_P | PG_W;
	v->eventinj = v->exitintinfo;
	svm_rerun(c);
	svm_expect(c, "exit after re-injection", v->exitcode, EXIT_VMMCALL);
	svm_expect(c, "L2 vector after re-injection", l2_event_vector, c->row->l2_vector);
	svm_expect(c, "L2 ESP in the mapped page", l2_event_esp & ~0xfffu, TEST_LIN);
	pg32_test_pt[0] = 0;
}

/* ---- virtual interrupts ---- */
static void vintr(struct svm_case *c)
{
	c->vmcb->vintr = ((uint64_t)c->row->arg2 << 32) | c->row->arg;
	c->vmcb->rflags |= EFL_IF;
}
static void vintr_if0(struct svm_case *c) { vintr(c); c->vmcb->rflags &= ~EFL_IF; }
static void vintr_shadow(struct svm_case *c) { vintr(c); c->vmcb->int_shadow = 1; }
static void v_irq_kept(struct svm_case *c)
{
	svm_expect(c, "VMCB V_IRQ (still pending)", (c->vmcb->vintr >> 8) & 1, 1);
}
static void v_irq_taken(struct svm_case *c)
{
	svm_expect(c, "VMCB V_IRQ (taken)", (c->vmcb->vintr >> 8) & 1, 0);
	frame12(c);
}
/* Taken after the instruction at body start + off (shadow). */
static void v_irq_after(struct svm_case *c, uint32_t off)
{
	svm_expect(c, "VMCB V_IRQ (taken)", (c->vmcb->vintr >> 8) & 1, 0);
	svm_expect(c, "L2 frame EIP", l2_frame(0), (uint32_t)(uintptr_t)c->row->body->start + off);
}
static void after_sti_nop(struct svm_case *c) { v_irq_after(c, 2); }
static void after_nop(struct svm_case *c) { v_irq_after(c, 1); }
static void after_stgi(struct svm_case *c) { v_irq_after(c, 3); }
/* .arg/.arg2 of a virtual interrupt: V_IRQ, V_INTR_PRIO p, V_TPR tpr, more
 * bits, V_INTR_VECTOR vec. */
#define VI(p, tpr, more, vec) .arg = (uint32_t)(VINTR_IRQ | VINTR_PRIO(p) | VINTR_TPR(tpr) | (more)), .arg2 = (vec)

static void shadow_is(struct svm_case *c, uint64_t want)
{
	svm_expect(c, "VMCB INTERRUPT_SHADOW", c->vmcb->int_shadow & 1, want);
}
static void shadow1(struct svm_case *c) { shadow_is(c, 1); }
static void shadow0(struct svm_case *c) { shadow_is(c, 0); }
static void if1(struct svm_case *c) { c->vmcb->rflags |= EFL_IF; }

static void vtpr_is(struct svm_case *c) { svm_expect(c, "VMCB V_TPR", c->vmcb->vintr & 0xf, c->row->arg2); }
static void cr8_read_vtpr(struct svm_case *c)
{
	svm_expect(c, "L2 CR8 (VMCB RAX)", (uint32_t)c->vmcb->rax, c->row->arg2);
}

/* ---- virtual GIF ---- */
static void vgif(struct svm_case *c)
{
	c->vmcb->vintr = VINTR_GIF_ENABLE | c->row->arg;
	c->vmcb->rflags |= EFL_IF;
}
static void vgif_is(struct svm_case *c) { svm_expect(c, "VMCB V_GIF", (c->vmcb->vintr >> 9) & 1, c->row->arg2); }

/* ---- TSC_OFFSET ---- */
static uint64_t tsc_before, tsc_after;
static inline uint64_t rdtsc64(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
static void tsc_offset(struct svm_case *c)
{
	uint64_t off = ((uint64_t)c->row->arg2 << 32) | c->row->arg;
	c->vmcb->tsc_offset = off;
	tsc_before = rdtsc64();
}
/* L2 read TSC + offset (15.5.1: added to the TSC the guest reads; cleared
 * on #VMEXIT, so L1 reads its own). */
static void tsc_seen(struct svm_case *c)
{
	tsc_after = rdtsc64();
	uint64_t off = ((uint64_t)c->row->arg2 << 32) | c->row->arg;
	uint64_t g = ((uint64_t)l2_regs.edx << 32) | (uint32_t)c->vmcb->rax;
	svm_expect_true(c, "L1 TSC before <= L2 TSC - offset", g - off >= tsc_before);
	svm_expect_true(c, "L2 TSC - offset <= L1 TSC after", g - off <= tsc_after);
	svm_expect_true(c, "L1 TSC after #VMEXIT without the offset", tsc_after - tsc_before < (1ull << 36));
}

static const struct svm_row rows[] = {
	INJ("EVENTINJ INTR 40h: delivered before the first instruction", EVENT(EV_INTR, 0x40), 0, 0x40, frame12),
	INJ("EVENTINJ NMI: vector 2 whatever VECTOR holds (99h)", EVENT(EV_NMI, 0x99), 0, 2, frame12),
	INJ("EVENTINJ #GP with EV, error code 1234h", EVENT(EV_EXC, 13) | EV_ERR, 0x1234, 13, frame16),
	INJ("EVENTINJ #UD without EV: no error code", EVENT(EV_EXC, 6), 0, 6, frame12),
	INJ("EVENTINJ #UD with EV: the error code is pushed", EVENT(EV_EXC, 6) | EV_ERR, 0xabcd, 6, frame16),
	INJ("EVENTINJ #DF with EV, error code 0", EVENT(EV_EXC, 8) | EV_ERR, 0, 8, frame16),
	INJ("EVENTINJ #BP at CPL 0", EVENT(EV_EXC, 3), 0, 3, frame12),
	{ .name = "EVENTINJ INTn 30h pushes nRIP", .apm = "15.20", .body = &b_nop_body,
	  .setup = inject_swint, .arg = (uint32_t)EVENT(EV_SWINT, 0x30), .exitcode = EXIT_VMMCALL,
	  .check = C_L2_EVENT, .l2_vector = 0x30, .extra = frame_swint, .need = NEED(F_NRIPS) },
	{ .name = "EVENTINJ #GP while #GP is intercepted: injected events are not intercepted",
	  .apm = "15.20", .body = &b_nop_body, .icpt_exc = EXC(13), .setup = inject,
	  .arg = (uint32_t)(EVENT(EV_EXC, 13) | EV_ERR), .arg2 = 0x10, .exitcode = EXIT_VMMCALL,
	  .check = C_L2_EVENT, .l2_vector = 13, .extra = frame16 },
	{ .name = "EVENTINJ INTR 0Dh with #GP intercepted: an interrupt, no error code", .apm = "15.13",
	  .body = &b_nop_body, .icpt_exc = EXC(13), .setup = inject, .arg = (uint32_t)EVENT(EV_INTR, 13),
	  .exitcode = EXIT_VMMCALL, .check = C_L2_EVENT, .l2_vector = 13, .extra = frame12 },
	{ .name = "EVENTINJ #BP at CPL 3, gate DPL 0: #GP(1Ah) as for INT3, EXITINTINFO = #BP",
	  .apm = "15.20", .body = &b_nop_body, .icpt_exc = EXC(13), .setup = inject_cpl3,
	  .arg = (uint32_t)EVENT(EV_EXC, 3), .exitcode = EXIT_EXC(13), .info1 = 0x1a,
	  .intinfo = EVENT(EV_EXC, 3), .check = C_INFO1 | C_INTINFO | C_NO_RIP },
	{ .name = "EVENTINJ #BP at CPL 3, gate DPL 3: delivered", .apm = "15.20", .body = &b_nop_body,
	  .setup = inject_cpl3_gate3, .arg = (uint32_t)EVENT(EV_EXC, 3), .exitcode = EXIT_VMMCALL,
	  .check = C_L2_EVENT, .l2_vector = 3 },
	{ .name = "EVENTINJ with V = 0: nothing injected", .apm = "15.20", .body = &b_nop_body,
	  .setup = inject, .arg = (uint32_t)(EVENT(EV_EXC, 13) & ~EV_VALID), .exitcode = EXIT_VMMCALL,
	  .check = C_AT_END },
	BAD("EVENTINJ TYPE 1 (reserved): VMEXIT_INVALID", EV_VALID | EV_TYPE(1) | 0x40),
	BAD("EVENTINJ TYPE 5 (reserved): VMEXIT_INVALID", EV_VALID | EV_TYPE(5) | 0x40),
	BAD("EVENTINJ TYPE 6 (reserved): VMEXIT_INVALID", EV_VALID | EV_TYPE(6) | 3),
	BAD("EVENTINJ TYPE 7 (reserved): VMEXIT_INVALID", EV_VALID | EV_TYPE(7)),
	BAD("EVENTINJ exception vector 2 (NMI is not an exception): VMEXIT_INVALID", EVENT(EV_EXC, 2)),
	BAD("EVENTINJ exception vector 40h (not an exception): VMEXIT_INVALID", EVENT(EV_EXC, 0x40)),

	/* Intercepts during delivery (15.7.2) and re-injection. */
	{ .name = "injected INTR 40h, gate not present: #NP(203h), EXITINTINFO = the INTR",
	  .apm = "15.7.2", .body = &b_nop_body, .icpt_exc = EXC(11), .setup = inject_gate_np,
	  .arg = (uint32_t)EVENT(EV_INTR, 0x40), .exitcode = EXIT_EXC(11), .info1 = 0x40 * 8 + 3,
	  .intinfo = EVENT(EV_INTR, 0x40), .check = C_INFO1 | C_INTINFO | C_NO_RIP },
	{ .name = "injected #GP(55h), gate not present: #NP(6Bh), EXITINTINFO = #GP with EV",
	  .apm = "15.7.2", .body = &b_nop_body, .icpt_exc = EXC(11), .setup = inject_gate_np,
	  .arg = (uint32_t)(EVENT(EV_EXC, 13) | EV_ERR), .arg2 = 0x55, .exitcode = EXIT_EXC(11),
	  .info1 = 13 * 8 + 3, .intinfo = EVENT(EV_EXC, 13) | EV_ERR | EV_CODE(0x55),
	  .check = C_INFO1 | C_INTINFO | C_NO_RIP },
	{ .name = "injected INTR 41h, stack page not present: #PF(W) on the push, re-injected",
	  .apm = "15.7.2", .body = &b_nop_body, .icpt_exc = EXC(14), .setup = stack_np,
	  .arg = (uint32_t)EVENT(EV_INTR, 0x41), .exitcode = EXIT_EXC(14), .info1 = PF_W,
	  .intinfo = EVENT(EV_INTR, 0x41), .check = C_INFO1 | C_INTINFO | C_INSN_BYTES,
	  .l2_vector = 0x41, .extra = reinject },
	{ .name = "guest #UD, stack page not present: #PF(W), EXITINTINFO = #UD, re-injected",
	  .apm = "15.7.2", .body = &b_ud2_body, .icpt_exc = EXC(14), .setup = stack_np,
	  .exitcode = EXIT_EXC(14), .info1 = PF_W, .intinfo = EVENT(EV_EXC, 6),
	  .check = C_INFO1 | C_INTINFO | C_INSN_BYTES, .l2_vector = 6, .extra = reinject },

	/* Virtual interrupts (15.21.4). */
	{ .name = "V_IRQ, priority 15 over V_TPR 0, IF = 1: taken, V_IRQ cleared", .apm = "15.21.4",
	  .body = &b_nop_body, .setup = vintr, VI(15, 0, 0, 0x50), .exitcode = EXIT_VMMCALL,
	  .check = C_L2_EVENT, .l2_vector = 0x50, .extra = v_irq_taken },
	{ .name = "V_IRQ with guest IF = 0: not taken, V_IRQ kept", .apm = "15.21.4", .body = &b_nop_body,
	  .setup = vintr_if0, VI(15, 0, 0, 0x50), .exitcode = EXIT_VMMCALL, .check = C_AT_END,
	  .extra = v_irq_kept },
	{ .name = "V_IRQ priority 5, V_TPR 5: not taken (priority must exceed V_TPR)", .apm = "15.21.4",
	  .body = &b_nop_body, .setup = vintr, VI(5, 5, 0, 0x51), .exitcode = EXIT_VMMCALL,
	  .check = C_AT_END, .extra = v_irq_kept },
	{ .name = "V_IRQ priority 6, V_TPR 5: taken", .apm = "15.21.4", .body = &b_nop_body,
	  .setup = vintr, VI(6, 5, 0, 0x52), .exitcode = EXIT_VMMCALL, .check = C_L2_EVENT,
	  .l2_vector = 0x52, .extra = v_irq_taken },
	{ .name = "V_IGN_TPR: priority 0 under V_TPR 15 taken", .apm = "15.21.4", .body = &b_nop_body,
	  .setup = vintr, VI(0, 15, VINTR_IGN_TPR, 0x53), .exitcode = EXIT_VMMCALL,
	  .check = C_L2_EVENT, .l2_vector = 0x53, .extra = v_irq_taken },
	{ .name = "V_IRQ with V_INTR_MASKING, guest IF = 0: not taken", .apm = "15.21.1",
	  .body = &b_nop_body, .setup = vintr_if0, VI(15, 0, VINTR_MASKING, 0x54),
	  .exitcode = EXIT_VMMCALL, .check = C_AT_END, .extra = v_irq_kept },
	{ .name = "VINTR intercept: #VMEXIT(VINTR) before the virtual interrupt, V_IRQ kept",
	  .apm = "15.13.5", .body = &b_nop_body, .icpt1 = ICPT1_VINTR, .setup = vintr, VI(15, 0, 0, 0x55),
	  .exitcode = EXIT_VINTR, .check = C_NO_RIP, .extra = v_irq_kept },
	{ .name = "STI shadow: V_IRQ taken after the instruction following STI", .apm = "15.21.5",
	  .body = &b_sti_nop_body, .setup = vintr_if0, VI(15, 0, 0, 0x56), .exitcode = EXIT_VMMCALL,
	  .check = C_L2_EVENT, .l2_vector = 0x56, .extra = after_sti_nop },
	{ .name = "VMRUN with INTERRUPT_SHADOW = 1: V_IRQ taken after the first instruction",
	  .apm = "15.21.5", .body = &b_nop_body, .setup = vintr_shadow, VI(15, 0, 0, 0x57),
	  .exitcode = EXIT_VMMCALL, .check = C_L2_EVENT, .l2_vector = 0x57, .extra = after_nop },
	{ .name = "#VMEXIT in the STI shadow saves INTERRUPT_SHADOW = 1", .apm = "15.21.5",
	  .body = &b_sti_cpuid_body, .icpt1 = ICPT1_CPUID, .exitcode = EXIT_CPUID, .check = C_NRIP_NEXT,
	  .extra = shadow1 },
	{ .name = "#VMEXIT in the MOV SS shadow saves INTERRUPT_SHADOW = 1", .apm = "15.21.5",
	  .body = &b_movss_cpuid_body, .icpt1 = ICPT1_CPUID, .exitcode = EXIT_CPUID, .check = C_NRIP_NEXT,
	  .extra = shadow1 },
	{ .name = "STI with IF already 1: no shadow, INTERRUPT_SHADOW = 0", .apm = "15.21.5",
	  .body = &b_sti_cpuid_body, .icpt1 = ICPT1_CPUID, .setup = if1, .exitcode = EXIT_CPUID,
	  .check = C_NRIP_NEXT, .extra = shadow0 },
	{ .name = "V_INTR_MASKING: a CR8 write changes V_TPR only", .apm = "15.21.2",
	  .body = &b_cr8_w_body, .setup = vintr, .arg = (uint32_t)VINTR_MASKING | 2, .arg2 = 9,
	  .exitcode = EXIT_VMMCALL, .check = C_AT_END, .extra = vtpr_is, .skip = no_cr8_legacy },
	{ .name = "V_INTR_MASKING: a CR8 read returns V_TPR", .apm = "15.21.2", .body = &b_cr8_r_body,
	  .setup = vintr, .arg = (uint32_t)VINTR_MASKING | 7, .arg2 = 7, .exitcode = EXIT_VMMCALL,
	  .check = C_AT_END, .extra = cr8_read_vtpr, .skip = no_cr8_legacy },

	/* Virtual GIF (15.33.2). */
	{ .name = "vGIF: V_GIF = 0 masks V_IRQ; STGI in L2 sets it, the interrupt follows",
	  .apm = "15.33.2", .body = &b_stgi_body, .setup = vgif,
	  .arg = (uint32_t)(VINTR_IRQ | VINTR_PRIO(15)) , .arg2 = 1, .exitcode = EXIT_VMMCALL,
	  .check = C_L2_EVENT, .l2_vector = 0, .extra = after_stgi, .need = NEED(F_VGIF) },
	{ .name = "vGIF: CLGI in L2 clears V_GIF (VMCB 60h bit 9)", .apm = "15.33.2", .body = &b_clgi_body,
	  .setup = vgif, .arg = (uint32_t)VINTR_GIF, .arg2 = 0, .exitcode = EXIT_VMMCALL, .check = C_AT_END,
	  .extra = vgif_is, .need = NEED(F_VGIF) },
	{ .name = "vGIF: STGI in L2 sets V_GIF", .apm = "15.33.2", .body = &b_stgi_body, .setup = vgif,
	  .arg = 0, .arg2 = 1, .exitcode = EXIT_VMMCALL, .check = C_AT_END, .extra = vgif_is,
	  .need = NEED(F_VGIF) },
	{ .name = "vGIF with the STGI intercept: #VMEXIT(STGI)", .apm = "15.33.2", .body = &b_stgi_body,
	  .icpt2 = ICPT2_STGI, .setup = vgif, .exitcode = EXIT_STGI, .check = C_NRIP_NEXT,
	  .need = NEED(F_VGIF) },

	/* TSC_OFFSET (15.5.1 control bits). */
	{ .name = "TSC_OFFSET +2^40 added to the L2's RDTSC, not L1's", .apm = "15.5.1",
	  .body = &b_rdtsc_body, .setup = tsc_offset, .arg = 0, .arg2 = 0x100, .exitcode = EXIT_VMMCALL,
	  .check = C_AT_END, .extra = tsc_seen },
	{ .name = "TSC_OFFSET -2^20 (two's complement)", .apm = "15.5.1", .body = &b_rdtsc_body,
	  .setup = tsc_offset, .arg = 0xfff00000u, .arg2 = 0xffffffffu, .exitcode = EXIT_VMMCALL,
	  .check = C_AT_END, .extra = tsc_seen },
};

/* The vGIF row takes the virtual interrupt with vector 0 (V_INTR_VECTOR
 * field left 0). */

/* ---- GIF in L1 and physical interrupts (Table 15-10, 15.13.1) ---- */

static volatile uint32_t db_count, irq0_count;
static int db_handler(struct trap_frame *f)
{
	(void)f;
	db_count++;
	return 1;
}
static int irq0_handler(struct trap_frame *f)
{
	(void)f;
	irq0_count++;
	outb(0x20, 0x20);   /* EOI (8259A OCW2) */
	return 1;
}

static void host_report(const char *name, const char *apm, int pass)
{
	char buf[160];
	check_true(pg_name(buf, sizeof(buf), "%s [APM2 %s]", name, apm), pass);
}

/* Table 15-10: with GIF = 0 a data breakpoint match is ignored and
 * discarded; with GIF = 1 it is taken. */
static void gif_breakpoints(void)
{
	uint32_t dr7 = (1u << 2) | (1u << 20) | (3u << 22);   /* DR1: 4-byte write */
	trap_handlers[1] = db_handler;
	__asm__ volatile("mov %0, %%db1" :: "r"((uint32_t)(uintptr_t)l2_scratch));
	__asm__ volatile("mov %0, %%db7" :: "r"(dr7));
	db_count = 0;
	clgi();
	*(volatile uint32_t *)l2_scratch = 1;
	uint32_t with_gif0 = db_count;
	stgi();
	uint32_t after_stgi = db_count;
	*(volatile uint32_t *)l2_scratch = 2;
	uint32_t with_gif1 = db_count;
	__asm__ volatile("mov %0, %%db7" :: "r"(0x400u));
	trap_handlers[1] = 0;
	if (with_gif0 || after_stgi)
		note("GIF = 0: %u #DB taken, %u after STGI", with_gif0, after_stgi);
	host_report("GIF = 0 discards a data breakpoint match, GIF = 1 takes it", "15.17",
		    with_gif0 == 0 && after_stgi == 0 && with_gif1 == 1);
}

/* An 8259A answers at ports 20h/21h: the mask register reads back. */
static int have_pic(void)
{
	outb(0x21, 0xfe);
	int ok = inb(0x21) == 0xfe;
	outb(0x21, 0xff);
	return ok;
}

/* 8259A in 8086 mode with vectors 20h-2Fh, only IRQ0 unmasked; 8254
 * channel 0 in mode 0 (one interrupt on terminal count). */
static void pic_pit_arm(uint16_t count)
{
	outb(0x20, 0x11); outb(0x21, 0x20); outb(0x21, 0x04); outb(0x21, 0x01);
	outb(0xa0, 0x11); outb(0xa1, 0x28); outb(0xa1, 0x02); outb(0xa1, 0x01);
	outb(0xa1, 0xff);
	outb(0x43, 0x30);
	outb(0x40, (uint8_t)count);
	outb(0x40, (uint8_t)(count >> 8));
	outb(0x21, 0xfe);
}

static void spin(uint32_t n)
{
	for (volatile uint32_t i = 0; i < n; i++)
		;
}

static void intr_rows(void)
{
	static const char *why = "no 8259A at ports 20h/21h (the mask register does not read back)";
	if (!have_pic()) {
		skip("CLGI holds a PIT interrupt pending until STGI [APM2 15.17]", "%s", why);
		skip("INTR intercept: a PIT interrupt in L2 exits 60h and stays pending [APM2 15.13.1]", "%s", why);
		return;
	}
	trap_handlers[0x20] = irq0_handler;

	/* Table 15-10: INTR is held pending while GIF = 0. */
	irq0_count = 0;
	clgi();
	pic_pit_arm(0x100);
	__asm__ volatile("sti");
	spin(2000000);
	uint32_t held = irq0_count;
	stgi();
	spin(1000);
	__asm__ volatile("cli");
	host_report("CLGI holds a PIT interrupt pending until STGI", "15.17", held == 0 && irq0_count == 1);
	outb(0x21, 0xff);

	/* 15.13.1: the INTR intercept exits the guest; the interrupt stays
	 * pending and is taken in L1 once GIF = 1 (host IF = 1, V_INTR_MASKING).
	 * An exit that finds nothing when GIF = 1 is legal too (the request was
	 * withdrawn, as a level-triggered source may; hvemu's --perturb-exits
	 * makes such exits): L1 resumes L2 until the PIT's comes. */
	static const struct svm_row row = { .name = "INTR intercept: a PIT interrupt in L2 exits 60h and stays pending",
		.apm = "15.13.1", .body = &b_spin_body, .icpt1 = ICPT1_INTR, .exitcode = EXIT_INTR,
		.check = C_NO_RIP };
	struct svm_case c = { &row, &svm_vmcbs[0], 0, 0, 0, 1 };
	svm_vmcb_init(c.vmcb, row.body->start);
	c.vmcb->icpt_misc1 |= ICPT1_INTR;
	c.vmcb->vintr = VINTR_MASKING;
	c.vmcb->rflags |= EFL_IF;
	svm_poison(c.vmcb);
	irq0_count = 0;
	clgi();
	pic_pit_arm(0x400);
	__asm__ volatile("sti");
	uint32_t in_l1_before_stgi = 0, empty_exits = 0;
	for (;;) {
		svm_vmrun_raw(vmcb_pa(c.vmcb));
		in_l1_before_stgi += irq0_count;
		stgi();
		spin(1000);
		if (c.vmcb->exitcode != EXIT_INTR || irq0_count || empty_exits == 100000)
			break;
		empty_exits++;
		clgi();
	}
	__asm__ volatile("cli");
	outb(0x21, 0xff);
	if (empty_exits)
		note("%u INTR exits with no interrupt behind them", (unsigned)empty_exits);
	svm_expect(&c, "EXITCODE", c.vmcb->exitcode, EXIT_INTR);
	svm_expect(&c, "EXITINTINFO.V", c.vmcb->exitintinfo & EV_VALID, 0);
	if (svm_has(F_NRIPS))
		svm_expect(&c, "nRIP", c.vmcb->nrip, 0);
	svm_expect(&c, "IRQ0 taken by L1 before STGI", in_l1_before_stgi, 0);
	svm_expect(&c, "IRQ0 taken by L1 after STGI", irq0_count, 1);
	svm_expect(&c, "L2 events taken", l2_event_count, 0);
	svm_case_report(&c);
	trap_handlers[0x20] = 0;
}

void guest_main(void)
{
	svm_host_init();
	pg32_cr3 = pg32_build();
	RUN_ROWS(rows);
	gif_breakpoints();
	intr_rows();
}
