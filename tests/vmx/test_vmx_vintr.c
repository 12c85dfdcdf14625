/* Check suite for the interrupt side of APIC virtualization
 * (vmx/virtual_apic.c through vmx/events.c, vmx/intercepts.c and the core's
 * boundary-event table): a 64-bit L1 runs VMLAUNCH with "use TPR shadow",
 * "virtual-interrupt delivery" and external-interrupt exiting on a
 * virtual-APIC page it wrote; each case checks what L2 ran, the exit, and
 * the virtual-APIC page and guest interrupt status after it against SDM
 * Vol.3 (325462-075US) 29.1.2-29.1.5 (TPR, PPR, EOI, self-IPI
 * virtualization), 29.2 (evaluation and delivery of pending virtual
 * interrupts, 26.3.2.5 at VM entry), 29.6 (posted-interrupt processing).
 *
 * The world is vmx_world.h's; the virtual-APIC page is at VAPIC, the
 * posted-interrupt descriptor at PID. L2's handler for every vector is at
 * L2_ISR (CPUID; HLT): an exit there with guest RIP L2_ISR says the
 * virtual interrupt was delivered through L2's IDT.
 */
#include <check.h>
#include <string.h>

#include "devices/apic_bus.h"
#include "devices/clock.h"
#include "devices/lapic.h"
#include "emu/apic.h"
#include "emu/event_step.h"
#include "emu/flags.h"
#include "machine_fixture.h"
#include "mmu/x86_vmx.h"
#include "suite_runner.h"
#include "vmx_world.h"
#include "vmx/exit_reasons.h"
#include "vmx/model.h"
#include "vmx/virtual_apic.h"
#include "vmx/vmcs_fields.h"

#define VAPIC 0x102000u
#define PID   0x103000u
#define NV    0xf2u             /* the posted-interrupt notification vector */

#define CPUID   0x0f, 0xa2
#define HLT     0xf4
#define NOP     0x90
#define STI     0xfb
/* mov eax, imm32; mov cr8, rax */
#define MOV_CR8(n) 0xb8, (n), 0x00, 0x00, 0x00, 0x44, 0x0f, 0x22, 0xc0

#define INTR_INFO(type, vector) (VMX_INTR_VALID | ((uint32_t)(type) << VMX_INTR_TYPE_SHIFT) | (vector))

static uint32_t page(struct world *w, unsigned offset)
{
	return (uint32_t)physmem_read(&w->m.pm, VAPIC + offset, 4);
}

static void set_page(struct world *w, unsigned offset, uint32_t value)
{
	physmem_write(&w->m.pm, VAPIC + offset, 4, value);
}

static bool irr(struct world *w, uint8_t vector)
{
	return (page(w, VAPIC_VIRR + 0x10u * (vector / 32)) >> (vector % 32)) & 1;
}

static bool isr(struct world *w, uint8_t vector)
{
	return (page(w, VAPIC_VISR + 0x10u * (vector / 32)) >> (vector % 32)) & 1;
}

static void post_irr(struct world *w, uint8_t vector)
{
	unsigned off = VAPIC_VIRR + 0x10u * (vector / 32);
	set_page(w, off, page(w, off) | 1u << (vector % 32));
}

/* The world with virtual-interrupt delivery: external-interrupt exiting,
 * use TPR shadow, virtual-interrupt delivery (26.2.1.1 wants the first two
 * with it), RFLAGS.IF = 1, the guest interrupt status rvi | svi << 8. */
static void vid_world(struct world *w, uint8_t rvi, uint8_t svi)
{
	world_init(w);
	vmw(w, VMCS_PIN_BASED_CONTROLS, vmr(w, VMCS_PIN_BASED_CONTROLS) | VMX_CTL(VMX_PIN_EXT_INTR_EXITING));
	vmw(w, VMCS_PRIMARY_PROC_CONTROLS, vmr(w, VMCS_PRIMARY_PROC_CONTROLS) | VMX_CTL(VMX_PROC_TPR_SHADOW) |
		   VMX_CTL(VMX_PROC_SECONDARY_CONTROLS));
	vmw(w, VMCS_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_VIRTUAL_INTR_DELIVERY));
	vmw(w, VMCS_VIRTUAL_APIC_ADDR, VAPIC);
	vmw(w, VMCS_GUEST_INTR_STATUS, rvi | (uint32_t)svi << 8);
	vmw(w, VMCS_GUEST_RFLAGS, FLAG_FIXED1 | FLAG_IF);
	if (rvi)
		post_irr(w, rvi);
	w->m.cpu.nmi_blocked = true;
}

static void assert_exit(struct world *w, uint32_t reason, uint64_t rip)
{
	assert_in_l1(w);
	ck_assert_msg(exit_reason(w) == reason, "exit reason %u, not %u", exit_reason(w), reason);
	ck_assert_msg(vmr(w, VMCS_GUEST_RIP) == rip, "guest RIP %llx, not %llx",
		      (unsigned long long)vmr(w, VMCS_GUEST_RIP), (unsigned long long)rip);
}

/* ---- virtual-interrupt delivery (29.2) ---- */

/* 26.3.2.5, 29.2.1, 29.2.2: VM entry evaluates; RVI 41H above VPPR 00H is
 * recognized and delivered before the first instruction (IF = 1): VISR[41H]
 * set, SVI 41H, VPPR 40H, VIRR[41H] clear, RVI the next in VIRR (31H), no
 * VM exit for the delivery; the handler runs. */
START_TEST(delivered_at_entry)
{
	struct world w;
	vid_world(&w, 0x41, 0);
	post_irr(&w, 0x31);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_exit(&w, VMX_EXIT_CPUID, L2_ISR);
	ck_assert(isr(&w, 0x41) && !irr(&w, 0x41) && irr(&w, 0x31));
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_INTR_STATUS), 0x4131);
	ck_assert_uint_eq(page(&w, VAPIC_VPPR), 0x40);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_INTR_INFO), 0);
	/* 29.2.2: an external interrupt through the IDT: no error code, the
	 * return address the interrupted instruction. */
	ck_assert_uint_eq(l2_stack(&w, 0), L2_CODE);
	world_free(&w);
}
END_TEST

/* 29.2.2: delivery waits for RFLAGS.IF = 1: STI opens it after the
 * instruction in STI's shadow (no blocking by STI, 29.2.1). */
START_TEST(delivery_waits_for_if_and_sti_shadow)
{
	struct world w;
	vid_world(&w, 0x41, 0);
	vmw(&w, VMCS_GUEST_RFLAGS, FLAG_FIXED1);
	L2(&w, NOP, STI, NOP, NOP, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_exit(&w, VMX_EXIT_CPUID, L2_ISR);
	ck_assert_uint_eq(l2_stack(&w, 0), L2_CODE + 3);
	world_free(&w);
}
END_TEST

/* 29.2.1: RVI[7:4] must be above VPPR[7:4]: VTPR 50H (VPPR 50H by PPR
 * virtualization at entry, 29.1.3) holds 41H; nothing is delivered, RVI
 * stays. */
START_TEST(vtpr_holds_delivery)
{
	struct world w;
	vid_world(&w, 0x41, 0);
	set_page(&w, VAPIC_VTPR, 0x50);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_exit(&w, VMX_EXIT_CPUID, L2_CODE);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_INTR_STATUS), 0x41);
	ck_assert_uint_eq(page(&w, VAPIC_VPPR), 0x50);
	ck_assert(irr(&w, 0x41) && !isr(&w, 0x41));
	world_free(&w);
}
END_TEST

/* 29.1.3: SVI's class above VTPR's is VPPR: an in-service 51H (SVI) holds
 * a pending 41H. */
START_TEST(svi_holds_delivery)
{
	struct world w;
	vid_world(&w, 0x41, 0x51);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_exit(&w, VMX_EXIT_CPUID, L2_CODE);
	ck_assert_uint_eq(page(&w, VAPIC_VPPR), 0x50);
	world_free(&w);
}
END_TEST

/* 29.3, 29.1.2: MOV to CR8 with virtual-interrupt delivery writes VTPR, then
 * PPR virtualization and the evaluation: lowering the TPR from 0FH to 0
 * delivers the held 41H after the MOV; no TPR-below-threshold exit. */
START_TEST(mov_cr8_lowers_tpr_and_delivers)
{
	struct world w;
	vid_world(&w, 0x41, 0);
	set_page(&w, VAPIC_VTPR, 0xf0);
	L2(&w, MOV_CR8(0), CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_exit(&w, VMX_EXIT_CPUID, L2_ISR);
	ck_assert_uint_eq(l2_stack(&w, 0), L2_CODE + 9);
	ck_assert_uint_eq(page(&w, VAPIC_VTPR), 0);
	ck_assert_uint_eq(page(&w, VAPIC_VPPR), 0x40);
	world_free(&w);
}
END_TEST

/* 29.2.1, 25.2: interrupt-window exiting takes priority over
 * virtual-interrupt delivery: the window exits, the interrupt stays. */
START_TEST(interrupt_window_first)
{
	struct world w;
	vid_world(&w, 0x41, 0);
	vmw(&w, VMCS_PRIMARY_PROC_CONTROLS,
	    vmr(&w, VMCS_PRIMARY_PROC_CONTROLS) | VMX_CTL(VMX_PROC_INTR_WINDOW_EXITING));
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_exit(&w, VMX_EXIT_INTERRUPT_WINDOW, L2_CODE);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_INTR_STATUS), 0x41);
	ck_assert(irr(&w, 0x41));
	/* 27.5: the VM exit leaves nothing of L2's recognized in L1. */
	ck_assert_uint_eq(w.m.cpu.hv_armed & HV_ARM_VIRTUAL_INTR, 0);
	world_free(&w);
}
END_TEST

/* 29.2.1: with interrupt-window exiting no pending virtual interrupt is
 * recognized at all: with RFLAGS.IF = 0 (the window shut) L2 halts with
 * nothing armed to wake it. */
START_TEST(interrupt_window_no_recognition)
{
	struct world w;
	vid_world(&w, 0x41, 0);
	vmw(&w, VMCS_GUEST_RFLAGS, FLAG_FIXED1);
	vmw(&w, VMCS_PRIMARY_PROC_CONTROLS,
	    vmr(&w, VMCS_PRIMARY_PROC_CONTROLS) | VMX_CTL(VMX_PROC_INTR_WINDOW_EXITING));
	L2(&w, HLT, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert(w.m.cpu.in_guest && w.m.cpu.halted);
	ck_assert_uint_eq(w.m.cpu.hv_armed & HV_ARM_VIRTUAL_INTR, 0);
	world_free(&w);
}
END_TEST

/* 29.2.2, 26.7.2: a guest entered in the HLT activity state with a
 * deliverable virtual interrupt wakes and takes it (kvm-unit-tests'
 * vmx_hlt_with_rvi_test); the return address is after nothing (L2_CODE). */
START_TEST(hlt_woken_by_rvi)
{
	struct world w;
	vid_world(&w, 0x41, 0);
	vmw(&w, VMCS_GUEST_ACTIVITY_STATE, VMX_ACTIVITY_HLT);
	w.m.cpu.icount_limit = w.m.cpu.icount + 1000;
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_exit(&w, VMX_EXIT_CPUID, L2_ISR);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_ACTIVITY_STATE), VMX_ACTIVITY_ACTIVE);
	world_free(&w);
}
END_TEST

/* A HLT in L2 (no HLT exiting) wakes for a virtual interrupt a self-IPI
 * virtualization posts (29.1.5): VIRR set, RVI raised, the evaluation
 * recognizes it, the delivery ends HLT. */
START_TEST(self_ipi_wakes_hlt)
{
	struct world w;
	vid_world(&w, 0, 0);
	L2(&w, HLT, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert(w.m.cpu.in_guest && w.m.cpu.halted);
	vapic_self_ipi_virtualization(w.vmx, 0x61);
	ck_assert(irr(&w, 0x61));
	ck_assert_uint_eq(vmcs_get(w.vmx, VMCS_ROW_GUEST_INTR_STATUS), 0x61);
	w.m.cpu.icount_limit = w.m.cpu.icount + 1000;
	ck_assert_int_eq(cpu_run(&w.m.cpu), ST_HALT);
	assert_exit(&w, VMX_EXIT_CPUID, L2_ISR);
	ck_assert_uint_eq(l2_stack(&w, 0), L2_CODE + 1);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_INTR_STATUS), 0x6100);
	world_free(&w);
}
END_TEST

/* ---- EOI virtualization (29.1.4) ---- */

/* The EOI of 41H in service (over 31H) with 41H's EOI-exit bit: VISR[41H]
 * clear, SVI the next in service (31H), VPPR 30H, then the EOI-induced VM
 * exit (reason 45, qualification 41H), trap-like: after the instruction
 * (here the HLT L2 waits in, whose RIP is past it). */
START_TEST(eoi_exit_bitmap_exits)
{
	struct world w;
	vid_world(&w, 0, 0x41);
	set_page(&w, VAPIC_VISR + 0x20, 1u << 1);    /* 41H */
	set_page(&w, VAPIC_VISR + 0x10, 1u << 17);   /* 31H */
	vmw(&w, VMCS_EOI_EXIT_BITMAP1, 1ull << 1);
	L2(&w, HLT, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert(w.m.cpu.in_guest && w.m.cpu.halted);
	vapic_eoi_virtualization(w.vmx);
	w.m.cpu.icount_limit = w.m.cpu.icount + 1000;
	ck_assert_int_eq(cpu_run(&w.m.cpu), ST_HALT);
	assert_exit(&w, VMX_EXIT_VIRTUALIZED_EOI, L2_CODE + 1);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_QUALIFICATION), 0x41);
	ck_assert(!isr(&w, 0x41) && isr(&w, 0x31));
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_INTR_STATUS), 0x3100);
	ck_assert_uint_eq(page(&w, VAPIC_VPPR), 0x30);
	ck_assert_uint_eq(w.vmx->trap_exit_reason, 0);
	world_free(&w);
}
END_TEST

/* Without the EOI-exit bit: no exit; the evaluation after the EOI delivers
 * the pending 41H that the in-service 51H held (VPPR 50H -> 00H). */
START_TEST(eoi_without_exit_bit_delivers)
{
	struct world w;
	vid_world(&w, 0x41, 0x51);
	set_page(&w, VAPIC_VISR + 0x20, 1u << 0x11);  /* 51H */
	L2(&w, HLT, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert(w.m.cpu.in_guest && w.m.cpu.halted);
	vapic_eoi_virtualization(w.vmx);
	ck_assert_uint_eq(page(&w, VAPIC_VPPR), 0);
	w.m.cpu.icount_limit = w.m.cpu.icount + 1000;
	ck_assert_int_eq(cpu_run(&w.m.cpu), ST_HALT);
	assert_exit(&w, VMX_EXIT_CPUID, L2_ISR);
	ck_assert(!isr(&w, 0x51) && isr(&w, 0x41));
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_INTR_STATUS), 0x4100);
	world_free(&w);
}
END_TEST

/* 29.1.2: without virtual-interrupt delivery TPR virtualization makes the
 * TPR-below-threshold exit; with it, none (the threshold is not used). */
START_TEST(tpr_virtualization_no_threshold_exit_with_vid)
{
	struct world w;
	vid_world(&w, 0, 0);
	vmw(&w, VMCS_TPR_THRESHOLD, 0);
	set_page(&w, VAPIC_VTPR, 0x50);
	L2(&w, MOV_CR8(1), CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_exit(&w, VMX_EXIT_CPUID, L2_CODE + 9);
	ck_assert_uint_eq(page(&w, VAPIC_VPPR), 0x10);
	world_free(&w);
}
END_TEST

/* ---- posted-interrupt processing (29.6) ---- */

static void core_line_for_test(void *opaque, unsigned line, bool level)
{
	cpu_set_line(opaque, line, level);
}

static int ack_vector;
static int ack(void *ctx)
{
	struct world *w = ctx;
	cpu_set_line(&w->m.cpu, LINE_INTR, false);
	return ack_vector;
}

static void posted_world(struct world *w)
{
	vid_world(w, 0, 0);
	vmw(w, VMCS_PIN_BASED_CONTROLS, vmr(w, VMCS_PIN_BASED_CONTROLS) | VMX_CTL(VMX_PIN_POSTED_INTERRUPTS));
	vmw(w, VMCS_EXIT_CONTROLS, vmr(w, VMCS_EXIT_CONTROLS) | VMX_CTL(VMX_EXITCTL_ACK_INTR_ON_EXIT));
	vmw(w, VMCS_POSTED_INTR_NV, NV);
	vmw(w, VMCS_POSTED_INTR_DESC_ADDR, PID);
	w->m.cpu.intr_ack = ack;
	w->m.cpu.intr_ctx = w;
}

/* The notification vector: acknowledged, no VM exit; ON cleared, PIR (45H,
 * 3AH) ORed into VIRR and cleared, RVI 45H, evaluated and delivered. */
START_TEST(posted_notification_processed)
{
	struct world w;
	posted_world(&w);
	physmem_write(&w.m.pm, PID + 8, 4, 1u << 5);                  /* 45H */
	physmem_write(&w.m.pm, PID + 4, 4, 1u << 26);                 /* 3AH */
	physmem_write(&w.m.pm, PID + 0x20, 4, 0x1 | 0x100);           /* ON, and a bit past it kept */
	L2(&w, HLT, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert(w.m.cpu.in_guest && w.m.cpu.halted);
	ack_vector = NV;
	cpu_set_line(&w.m.cpu, LINE_INTR, true);
	w.m.cpu.icount_limit = w.m.cpu.icount + 1000;
	ck_assert_int_eq(cpu_run(&w.m.cpu), ST_HALT);
	assert_exit(&w, VMX_EXIT_CPUID, L2_ISR);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PID + 0x20, 4), 0x100);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PID + 8, 4), 0);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PID + 4, 4), 0);
	ck_assert(isr(&w, 0x45) && irr(&w, 0x3a) && !irr(&w, 0x45));
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_INTR_STATUS), 0x453a);
	world_free(&w);
}
END_TEST

/* 29.6: a notification that leaves nothing to deliver (PIR empty) returns a
 * processor that was in HLT to HLT: L2 does not run on past its HLT. */
START_TEST(posted_nothing_delivered_halts_again)
{
	struct world w;
	posted_world(&w);
	physmem_write(&w.m.pm, PID + 0x20, 4, 1);                     /* ON, PIR empty */
	L2(&w, HLT, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ack_vector = NV;
	cpu_set_line(&w.m.cpu, LINE_INTR, true);
	w.m.cpu.icount_limit = w.m.cpu.icount + 1000;
	ck_assert_int_eq(cpu_run(&w.m.cpu), ST_HALT);
	ck_assert(w.m.cpu.in_guest && w.m.cpu.halted);
	ck_assert_uint_eq(w.m.cpu.rip, L2_CODE + 1);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PID + 0x20, 4), 0);   /* processed: ON cleared */
	world_free(&w);
}
END_TEST

/* 29.6 step 4: the processor's EOI dismisses the notification vector in the
 * local APIC whatever its mode: with L1's APIC in x2APIC mode (no MMIO
 * interface, 10.12.2) the vector leaves ISR, so the next notification is
 * accepted (kvm-unit-tests' vmx_posted_interrupts_test sends a second one). */
static uint64_t clock_now(void *ctx)
{
	return cpu_now(ctx);
}

START_TEST(posted_notification_eoi_in_x2apic_mode)
{
	struct world w;
	struct vclock clock;
	struct apic_bus bus = { .n = 1 };
	struct lapic lapic;
	posted_world(&w);
	struct cpu *c = &w.m.cpu;
	vclock_init(&clock, 1000000000ull);
	clock.now = clock_now;
	clock.now_ctx = c;
	lapic_init(&lapic, 0, true, false, &clock, 1000000000ull, &bus);
	lapic.core = (struct lapic_core){ .intr = { core_line_for_test, c, LINE_INTR } };
	bus.lapic[0] = &lapic;
	cpu_attach_lapic(c, &lapic, 0);
	ck_assert(cpu_apic_base_write(c, c->apic_base | APIC_BASE_EXTD));
	ck_assert_int_eq(lapic.mode, LAPIC_X2APIC);
	c->intr_ack = lapic_intr_ack;
	c->intr_ctx = &lapic;
	physmem_write(&w.m.pm, PID + 8, 4, 1u << 5);                  /* 45H */
	physmem_write(&w.m.pm, PID + 0x20, 4, 1);
	L2(&w, HLT, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert(lapic_msr_write(&lapic, 0x80f, 0x1ff));             /* SVR: software-enabled */
	ck_assert(lapic_accept(&lapic, &(struct apic_msg){ .vector = NV, .delivery = APIC_DM_FIXED }));
	w.m.cpu.icount_limit = w.m.cpu.icount + 1000;
	ck_assert_int_eq(cpu_run(c), ST_HALT);
	assert_exit(&w, VMX_EXIT_CPUID, L2_ISR);
	ck_assert_uint_eq((lapic.isr[NV / 32] >> (NV % 32)) & 1, 0);
	cpu_attach_lapic(c, NULL, 0);
	world_free(&w);
}
END_TEST

/* Another vector exits as an external interrupt with its vector (29.6 step
 * 2), the descriptor untouched. */
START_TEST(posted_other_vector_exits)
{
	struct world w;
	posted_world(&w);
	physmem_write(&w.m.pm, PID + 8, 4, 1u << 5);
	physmem_write(&w.m.pm, PID + 0x20, 4, 1);
	L2(&w, HLT, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ack_vector = 0x50;
	cpu_set_line(&w.m.cpu, LINE_INTR, true);
	w.m.cpu.icount_limit = w.m.cpu.icount + 1000;
	ck_assert_int_eq(cpu_run(&w.m.cpu), ST_HALT);
	assert_exit(&w, VMX_EXIT_EXTERNAL_INTERRUPT, L2_CODE + 1);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_INTR_INFO), INTR_INFO(VMX_INTR_EXTERNAL, 0x50));
	ck_assert_uint_eq(physmem_read(&w.m.pm, PID + 0x20, 4), 1);
	ck_assert_uint_eq(physmem_read(&w.m.pm, PID + 8, 4), 1u << 5);
	world_free(&w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmx_vintr");
	TCase *tc = tcase_create("delivery");
	tcase_add_test(tc, delivered_at_entry);
	tcase_add_test(tc, delivery_waits_for_if_and_sti_shadow);
	tcase_add_test(tc, vtpr_holds_delivery);
	tcase_add_test(tc, svi_holds_delivery);
	tcase_add_test(tc, mov_cr8_lowers_tpr_and_delivers);
	tcase_add_test(tc, interrupt_window_first);
	tcase_add_test(tc, interrupt_window_no_recognition);
	tcase_add_test(tc, hlt_woken_by_rvi);
	tcase_add_test(tc, self_ipi_wakes_hlt);
	suite_add_tcase(s, tc);
	tc = tcase_create("eoi");
	tcase_add_test(tc, eoi_exit_bitmap_exits);
	tcase_add_test(tc, eoi_without_exit_bit_delivers);
	tcase_add_test(tc, tpr_virtualization_no_threshold_exit_with_vid);
	suite_add_tcase(s, tc);
	tc = tcase_create("posted");
	tcase_add_test(tc, posted_notification_processed);
	tcase_add_test(tc, posted_other_vector_exits);
	tcase_add_test(tc, posted_nothing_delivered_halts_again);
	tcase_add_test(tc, posted_notification_eoi_in_x2apic_mode);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
