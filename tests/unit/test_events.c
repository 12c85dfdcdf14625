/* Check suite for events at instruction boundaries (emu/event_step.c): the one
 * table of SDM Vol.3 6.9 Table 6-2 priorities with the blocking rules of SDM
 * 6.8.3 (STI and MOV SS shadows), 6.7.1 (NMI blocking until IRET), APM2
 * 15.17 (GIF) and 15.21.4 (virtual interrupts), HLT wake-up and virtual time
 * running to the next deadline, and interrupts as VM exits.
 *
 * The guests run in real mode at 0000:8000. Vector v's handler (IVT entry v)
 * at 9000H + 16 v counts its deliveries in byte A000H + v and returns with
 * IRET. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "emu/event_step.h"
#include "emu/hv.h"
#include "emu/insn.h"
#include "machine_fixture.h"
#include "suite_runner.h"

#define CODE     0x8000u
#define HANDLERS 0x9000u
#define COUNTS   0xa000u

static struct test_machine m;
static int pending_vector = -1;     /* what INTA answers */
static unsigned acks;

static int inta(void *ctx)
{
	(void)ctx;
	acks++;
	int v = pending_vector;
	pending_vector = -1;
	cpu_set_line(&m.cpu, LINE_INTR, false);   /* the controller drops the request */
	return v;
}

static unsigned delivered(unsigned vector)
{
	return (unsigned)physmem_read(&m.pm, COUNTS + vector, 1);
}

static void setup(void)
{
	machine_init_bare(&m, model_named("skylake-lite"), RAM_SIZE);
	for (unsigned v = 0; v < 256; v++) {
		uint32_t h = HANDLERS + v * 16;
		physmem_write(&m.pm, v * 4, 4, h);         /* IVT: offset h, segment 0 */
		/* inc byte [COUNTS + v]; iret */
		const uint8_t code[] = { 0xfe, 0x06, (uint8_t)(COUNTS + v), (uint8_t)((COUNTS + v) >> 8), 0xcf };
		physmem_write_bytes(&m.pm, h, code, sizeof(code));
	}
	seg_load_real(&m.cpu.seg[SR_CS], 0);
	seg_load_real(&m.cpu.seg[SR_SS], 0);
	m.cpu.regs[R_SP] = 0x7000;
	m.cpu.rip = CODE;
	cpu_update_mode(&m.cpu);
	m.cpu.intr_ack = inta;
	pending_vector = -1;
	acks = 0;
}

static void teardown(void)
{
	machine_free(&m);
}

static status_t run_code(const uint8_t *code, unsigned len, uint64_t limit)
{
	physmem_write_bytes(&m.pm, CODE, code, len);
	cpu_notify_phys_write(&m.cpu, CODE, len);
	m.cpu.rip = CODE;
	m.cpu.icount_limit = m.cpu.icount + limit;
	return cpu_run(&m.cpu);
}
#define RUN(limit, ...) run_code((const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }), limit)

static void raise_intr(int vector)
{
	pending_vector = vector;
	cpu_set_line(&m.cpu, LINE_INTR, true);
}

/* IF = 1: taken at the next boundary (SDM Vol.3 6.8.1). */
START_TEST(intr_taken_when_if_set)
{
	m.cpu.rflags |= FLAG_IF;
	raise_intr(0x40);
	ck_assert_int_eq(RUN(100, 0x90, 0xf4), ST_HALT);          /* nop; hlt */
	ck_assert_uint_eq(delivered(0x40), 1);
	ck_assert_uint_eq(acks, 1);
}
END_TEST

/* IF = 0 holds INTR; CLI; HLT with only INTR pending never wakes (SDM Vol.2
 * HLT): the run ends halted, the request still there. */
START_TEST(intr_held_by_if_clear)
{
	raise_intr(0x40);
	ck_assert_int_eq(RUN(100, 0x90, 0xf4), ST_HALT);
	ck_assert_uint_eq(delivered(0x40), 0);
	ck_assert(m.cpu.lines & LINE_INTR);
}
END_TEST

/* STI blocks INTR for exactly one instruction (SDM Vol.3 6.8.3): with
 * sti; inc byte [0xb000]; the interrupt comes after the INC, so the handler
 * sees [0xb000] = 1 when it runs... measured through the order of writes: the
 * handler copies [0xb000] into [0xb001]. */
START_TEST(sti_shadow)
{
	/* handler for 0x41: mov al,[0xb000]; mov [0xb001],al; iret */
	const uint8_t h[] = { 0xa0, 0x00, 0xb0, 0xa2, 0x01, 0xb0, 0xcf };
	physmem_write_bytes(&m.pm, HANDLERS + 0x41 * 16, h, sizeof(h));
	raise_intr(0x41);
	/* sti; inc byte [0xb000]; hlt */
	ck_assert_int_eq(RUN(100, 0xfb, 0xfe, 0x06, 0x00, 0xb0, 0xf4), ST_HALT);
	ck_assert_uint_eq(physmem_read(&m.pm, 0xb001, 1), 1);
}
END_TEST

/* MOV SS holds off INTR and NMI for one instruction (SDM Vol.3 6.8.3). */
START_TEST(mov_ss_shadow)
{
	const uint8_t h[] = { 0xa0, 0x00, 0xb0, 0xa2, 0x01, 0xb0, 0xcf };
	physmem_write_bytes(&m.pm, HANDLERS + 2 * 16, h, sizeof(h));    /* NMI handler */
	m.cpu.rflags |= FLAG_IF;
	/* mov ax, ss; mov ss, ax; inc byte [0xb000]; hlt — NMI raised before the run:
	 * taken at the first boundary, so set it while MOV SS's shadow is active:
	 * run one instruction first. */
	ck_assert_int_eq(RUN(1, 0x8c, 0xd0, 0x8e, 0xd0, 0xfe, 0x06, 0x00, 0xb0, 0xf4), ST_STOP);
	/* Now at MOV SS. */
	m.cpu.icount_limit = m.cpu.icount + 1;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);              /* MOV SS done: shadow */
	cpu_set_line(&m.cpu, LINE_NMI, true);
	m.cpu.icount_limit = m.cpu.icount + 100;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(physmem_read(&m.pm, 0xb001, 1), 1);    /* after the INC */
}
END_TEST

/* STI with IF 0 -> 1 holds off an NMI for one instruction too (SDM Vol.2 STI:
 * "may be blocked"; hvemu's models block it, as hardware does). */
START_TEST(sti_shadow_holds_nmi)
{
	const uint8_t h[] = { 0xa0, 0x00, 0xb0, 0xa2, 0x01, 0xb0, 0xcf };
	physmem_write_bytes(&m.pm, HANDLERS + 2 * 16, h, sizeof(h));    /* NMI handler */
	/* sti; inc byte [0xb000]; hlt — the NMI raised once STI has run. */
	ck_assert_int_eq(RUN(1, 0xfb, 0xfe, 0x06, 0x00, 0xb0, 0xf4), ST_STOP);
	cpu_set_line(&m.cpu, LINE_NMI, true);
	m.cpu.icount_limit = m.cpu.icount + 100;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(physmem_read(&m.pm, 0xb001, 1), 1);    /* after the INC */
}
END_TEST

/* NMI with IF = 0, and NMI blocking until IRET (SDM Vol.3 6.7.1): a second NMI
 * raised inside the handler waits for its IRET. */
START_TEST(nmi_blocking_until_iret)
{
	/* NMI handler: inc byte [COUNTS+2]; (raise the second NMI from the test
	 * through an OUT to an unclaimed port is not possible here, so the handler
	 * is entered once and the test raises the second NMI while it is blocked) */
	cpu_set_line(&m.cpu, LINE_NMI, true);
	/* nop x4; hlt — stop after the NMI's delivery */
	ck_assert_int_eq(RUN(1, 0x90, 0x90, 0x90, 0x90, 0xf4), ST_STOP);
	ck_assert(m.cpu.nmi_blocked);
	ck_assert_uint_eq(m.cpu.rip, HANDLERS + 2 * 16);
	cpu_set_line(&m.cpu, LINE_NMI, true);                    /* held: blocked */
	m.cpu.icount_limit = m.cpu.icount + 1;                  /* the handler's INC */
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_uint_eq(m.cpu.rip, HANDLERS + 2 * 16 + 4);     /* at its IRET */
	ck_assert(m.cpu.lines & LINE_NMI);
	m.cpu.icount_limit = m.cpu.icount + 100;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(delivered(2), 2);                      /* the second after IRET */
	ck_assert(!m.cpu.nmi_blocked);
}
END_TEST

/* NMI before INTR when both are pending (Table 6-2 priorities 5 and 6). */
START_TEST(nmi_before_intr)
{
	/* INTR handler: record the NMI count seen on entry in [0xb002] */
	const uint8_t h[] = { 0xa0, 0x02, 0xa0, 0xa2, 0x02, 0xb0, 0xcf };
	physmem_write_bytes(&m.pm, HANDLERS + 0x40 * 16, h, sizeof(h));
	m.cpu.rflags |= FLAG_IF;
	raise_intr(0x40);
	cpu_set_line(&m.cpu, LINE_NMI, true);
	ck_assert_int_eq(RUN(100, 0x90, 0xf4), ST_HALT);
	ck_assert_uint_eq(delivered(2), 1);
	ck_assert_uint_eq(physmem_read(&m.pm, 0xb002, 1), 1);    /* NMI had run first */
}
END_TEST

/* A single-step trap of the last instruction comes before a pending NMI
 * (Table 6-2: priority 4 before 5). */
START_TEST(debug_trap_before_nmi)
{
	/* #DB handler (vector 1): clear TF in the pushed FLAGS, record NMI count */
	const uint8_t h[] = { 0xa0, 0x02, 0xa0, 0xa2, 0x03, 0xb0,          /* mov al,[A002]; mov [B003],al */
			      0x89, 0xe5, 0x80, 0x66, 0x05, 0xfe,                /* mov bp,sp; and byte [bp+5],0feh */
			      0xcf };
	physmem_write_bytes(&m.pm, HANDLERS + 16, h, sizeof(h));
	m.cpu.rflags |= FLAG_TF;
	/* nop (traps); hlt — the NMI is raised before the run starts, so put it
	 * after the NOP: run the NOP alone first. */
	ck_assert_int_eq(RUN(1, 0x90, 0xf4), ST_STOP);
	ck_assert(m.cpu.pending_dbg);
	cpu_set_line(&m.cpu, LINE_NMI, true);
	m.cpu.icount_limit = m.cpu.icount + 100;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(delivered(2), 1);
	ck_assert_uint_eq(physmem_read(&m.pm, 0xb003, 1), 0);    /* #DB ran before the NMI */
}
END_TEST

/* GIF = 0 holds INTR and NMI (APM2 15.17.1); setting it lets them in. */
START_TEST(gif_holds_interrupts)
{
	m.cpu.rflags |= FLAG_IF;
	m.cpu.gif = false;
	raise_intr(0x40);
	cpu_set_line(&m.cpu, LINE_NMI, true);
	ck_assert_int_eq(RUN(3, 0x90, 0x90, 0x90, 0xf4), ST_STOP);
	ck_assert_uint_eq(delivered(2) + delivered(0x40), 0);
	ck_assert(!event_would_wake(&m.cpu));
	m.cpu.gif = true;
	cpu_recheck_events(&m.cpu);
	ck_assert(event_would_wake(&m.cpu));
	m.cpu.icount_limit = m.cpu.icount + 100;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(delivered(2), 1);
	ck_assert_uint_eq(delivered(0x40), 1);
}
END_TEST

/* A virtual interrupt (APM2 15.21.4) is taken when the guest's IF = 1 and its
 * priority is above V_TPR (or V_IGN_TPR); V_IRQ is cleared as it is taken. */
START_TEST(virtual_interrupt_priority)
{
	m.cpu.rflags |= FLAG_IF;
	m.cpu.vintr = (struct virtual_intr){ .pending = true, .vector = 0x50, .priority = 3, .tpr = 5 };
	ck_assert_int_eq(RUN(3, 0x90, 0x90, 0x90, 0xf4), ST_STOP);
	ck_assert_uint_eq(delivered(0x50), 0);                   /* 3 <= V_TPR 5 */
	m.cpu.vintr.tpr = 2;
	cpu_recheck_events(&m.cpu);
	m.cpu.icount_limit = m.cpu.icount + 100;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(delivered(0x50), 1);
	ck_assert(!m.cpu.vintr.pending);
}
END_TEST

/* HLT lets virtual time run to the next deadline: a timer at T raises INTR,
 * the CPU wakes at T and takes it (the idle guest costs no host time). */
static void timer_fires(void *ctx, struct cpu *cpu)
{
	(void)ctx;
	(void)cpu;
	raise_intr(0x40);
}

START_TEST(hlt_sleeps_to_deadline)
{
	m.cpu.rflags |= FLAG_IF;
	m.cpu.deadlines[DEADLINE_MACHINE].fire = timer_fires;
	cpu_set_deadline(&m.cpu, DEADLINE_MACHINE, 1000000);
	/* hlt; hlt */
	ck_assert_int_eq(RUN(2000000, 0xf4, 0xf4), ST_HALT);
	ck_assert_uint_eq(delivered(0x40), 1);
	ck_assert_uint_ge(m.cpu.icount, 1000000);
	ck_assert_uint_lt(m.cpu.icount, 1000010);
}
END_TEST

/* INIT (SDM Vol.3 9.1.1 Table 9-1): the reset vector, the x87 state kept. */
START_TEST(init_signal)
{
	m.cpu.fpu.fcw = 0x027f;
	cpu_set_line(&m.cpu, LINE_INIT, true);
	ck_assert_int_eq(RUN(1, 0x90, 0xf4), ST_STOP);
	ck_assert_uint_eq(m.cpu.seg[SR_CS].selector, 0xf000);
	ck_assert_uint_eq(m.cpu.rip, 0xfff0);
	ck_assert_uint_eq(m.cpu.fpu.fcw, 0x027f);
	ck_assert(!(m.cpu.lines & LINE_INIT));
}
END_TEST

/* In a guest with the INTR intercept, the interrupt is a VM exit and stays
 * pending in the controller (APM2 15.21.2): no INTA. */
static status_t intr_exit_model(void *ctx, struct cpu *cpu, struct exit_record *r)
{
	if (r->kind != IK_INTR)
		return ST_OK;
	*(unsigned *)ctx += 1;
	cpu_request_stop(cpu);
	return ST_VMEXIT;
}

/* A model that intercepts nothing. */
static status_t intercepts_nothing(void *ctx, struct cpu *cpu, struct exit_record *r)
{
	(void)ctx, (void)cpu, (void)r;
	return ST_OK;
}

/* A guest whose model exits on INTR (intr_exit_model), counting in *exits. */
static void guest_exiting_on_intr(unsigned *exits, bool interrupts_on)
{
	static const struct hv_model model = { .name = "intr", .intercept = intr_exit_model };
	*exits = 0;
	m.cpu.hv = &model;
	m.cpu.hv_ctx = exits;
	m.cpu.in_guest = true;
	if (interrupts_on)
		m.cpu.rflags |= FLAG_IF;
}

START_TEST(intr_as_vm_exit)
{
	unsigned exits;
	guest_exiting_on_intr(&exits, true);
	raise_intr(0x40);
	ck_assert_int_eq(RUN(100, 0x90, 0xf4), ST_STOP);
	ck_assert_uint_eq(exits, 1);
	ck_assert_uint_eq(acks, 0);
	ck_assert(m.cpu.lines & LINE_INTR);
}
END_TEST

/* --perturb-exits' spurious interrupt (cpu_spurious_intr_after): due after
 * two guest instructions, it exits once through the INTR intercept with
 * nothing to acknowledge, and is gone: the host finds no request. */
struct intr_exits {
	unsigned n;
	uint64_t rip, at;          /* the last exit's */
};

static status_t intr_exit_where(void *ctx, struct cpu *cpu, struct exit_record *r)
{
	struct intr_exits *e = ctx;
	if (r->kind != IK_INTR)
		return ST_OK;
	e->n++;
	e->rip = r->rip;
	e->at = cpu->icount;
	cpu_spurious_intr_withdraw(cpu);       /* as a world switch to the host does */
	cpu_request_stop(cpu);
	return ST_VMEXIT;
}

START_TEST(spurious_intr_exits_once)
{
	static const struct hv_model model = { .name = "intr", .intercept = intr_exit_where };
	struct intr_exits exits = { 0 };
	m.cpu.hv = &model;
	m.cpu.hv_ctx = &exits;
	m.cpu.in_guest = true;
	m.cpu.rflags |= FLAG_IF;
	uint64_t t0 = m.cpu.icount;
	cpu_spurious_intr_after(&m.cpu, 2);
	ck_assert_int_eq(RUN(100, 0x90, 0x90, 0x90, 0x90, 0xf4), ST_STOP);
	ck_assert_uint_eq(exits.n, 1);
	ck_assert_uint_eq(exits.rip, CODE + 2);               /* at the boundary after two */
	ck_assert_uint_eq(exits.at - t0, 2);
	ck_assert_uint_eq(m.cpu.spurious_intr_exits, 1);
	ck_assert_uint_eq(acks, 0);
	ck_assert(!(m.cpu.lines & (LINE_INTR | LINE_INTR_PULSE)));
	ck_assert_uint_eq(m.cpu.deadlines[DEADLINE_SPURIOUS_INTR].at, UINT64_MAX);
	/* Once: the guest goes on to its HLT, which nothing wakes. */
	m.cpu.icount_limit = m.cpu.icount + 100;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(exits.n, 1);
}
END_TEST

/* A real request at the same boundary is the exit's: not counted. */
START_TEST(spurious_intr_with_real_request)
{
	unsigned exits;
	guest_exiting_on_intr(&exits, true);
	raise_intr(0x40);
	cpu_spurious_intr_after(&m.cpu, 0);
	ck_assert_int_eq(RUN(100, 0x90, 0xf4), ST_STOP);
	ck_assert_uint_eq(exits, 1);
	ck_assert_uint_eq(m.cpu.spurious_intr_exits, 0);
	ck_assert(m.cpu.lines & LINE_INTR);
	ck_assert(!(m.cpu.lines & LINE_INTR_PULSE));
}
END_TEST

/* Outside a guest the deadline raises nothing; in a guest whose model lets
 * INTR through, the request is gone before INTA: no INTA cycle, nothing
 * delivered (the controller is never asked for a vector it has not). */
START_TEST(spurious_intr_never_delivered)
{
	/* IF = 0 would hold a request raised here: none is. */
	cpu_spurious_intr_after(&m.cpu, 0);
	ck_assert_int_eq(RUN(100, 0x90, 0xf4), ST_HALT);
	ck_assert(!(m.cpu.lines & LINE_INTR_PULSE));
	m.cpu.rflags |= FLAG_IF;
	static const struct hv_model let_through = { .name = "none", .intercept = intercepts_nothing };
	m.cpu.hv = &let_through;
	m.cpu.in_guest = true;
	pending_vector = 0x40;                 /* what INTA would answer, were it asked */
	cpu_spurious_intr_after(&m.cpu, 1);
	ck_assert_int_eq(RUN(100, 0x90, 0x90, 0xf4), ST_HALT);
	ck_assert_uint_eq(acks, 0);
	ck_assert_uint_eq(delivered(0x40), 0);
	ck_assert_uint_eq(m.cpu.spurious_intr_exits, 0);
	ck_assert(!(m.cpu.lines & LINE_INTR_PULSE));
}
END_TEST

/* IF = 0 holds it as it holds INTR (the guest's IF masks physical
 * interrupts without V_INTR_MASKING, APM2 15.21.1); withdrawn, it is gone
 * and its deadline with it. */
START_TEST(spurious_intr_held_and_withdrawn)
{
	unsigned exits;
	guest_exiting_on_intr(&exits, false);
	cpu_spurious_intr_after(&m.cpu, 0);
	ck_assert_int_eq(RUN(100, 0x90, 0xf4), ST_HALT);
	ck_assert_uint_eq(exits, 0);
	ck_assert(m.cpu.lines & LINE_INTR_PULSE);
	cpu_spurious_intr_withdraw(&m.cpu);
	ck_assert(!(m.cpu.lines & LINE_INTR_PULSE));
	cpu_spurious_intr_after(&m.cpu, 50);
	ck_assert_uint_ne(m.cpu.deadline, UINT64_MAX);
	cpu_spurious_intr_withdraw(&m.cpu);
	ck_assert_uint_eq(m.cpu.deadlines[DEADLINE_SPURIOUS_INTR].at, UINT64_MAX);
	ck_assert_uint_eq(m.cpu.deadline, m.cpu.icount_limit);
}
END_TEST

/* ---- model-armed rows (cpu_hv_arm) and the model's holds ---- */

/* A model that logs every kind it is asked about, exits (and stops the run)
 * on the kinds in exit_on, acknowledges INTR on its exit when ack is set,
 * takes INTR itself (ST_HANDLED) when posted is set, and delivers
 * virtual_vector for VIRTUAL_INTR. Its exits disarm what was armed, as a
 * world switch to the host would. */
struct armed {
	unsigned asks;
	uint8_t log[16];
	uint8_t exit_on[4];
	unsigned n_exit_on;
	bool ack, posted;
	int virtual_vector;
	struct exit_record exit;   /* the record of its exit */
};

static bool in_set(const struct armed *a, uint8_t kind)
{
	for (unsigned i = 0; i < a->n_exit_on; i++)
		if (a->exit_on[i] == kind)
			return true;
	return false;
}

static status_t armed_model(void *ctx, struct cpu *cpu, struct exit_record *r)
{
	struct armed *a = ctx;
	if (a->asks < sizeof(a->log))
		a->log[a->asks] = (uint8_t)r->kind;
	a->asks++;
	if (r->kind == IK_VIRTUAL_INTR && a->virtual_vector >= 0) {
		r->vector = (uint8_t)a->virtual_vector;
		a->virtual_vector = -1;
		cpu_hv_disarm(cpu, HV_ARM_VIRTUAL_INTR);
		return ST_HANDLED;
	}
	if (r->kind == IK_INTR && a->posted) {
		ck_assert(hv_ack_intr(cpu, r));
		a->exit = *r;
		return ST_HANDLED;
	}
	if (!in_set(a, (uint8_t)r->kind))
		return ST_OK;
	if (r->kind == IK_INTR && a->ack)
		ck_assert(hv_ack_intr(cpu, r));
	a->exit = *r;
	cpu_hv_disarm(cpu, 0xff);
	cpu_request_stop(cpu);
	return ST_VMEXIT;
}

static struct armed armed;
static const struct hv_model armed_hv = { .name = "armed", .intercept = armed_model };

/* Install the model in guest mode, exiting on the kinds given. */
static void guest_with(int n, const uint8_t *kinds)
{
	armed = (struct armed){ .virtual_vector = -1, .n_exit_on = (unsigned)n };
	memcpy(armed.exit_on, kinds, (size_t)n);
	m.cpu.hv = &armed_hv;
	m.cpu.hv_ctx = &armed;
	m.cpu.in_guest = true;
}
#define GUEST_EXITS_ON(...) guest_with(sizeof((const uint8_t[]){ __VA_ARGS__ }), (const uint8_t[]){ __VA_ARGS__ })

/* SDM Vol.3 "Monitor Trap Flag": an MTF exit follows each instruction. */
START_TEST(mtf_after_one_instruction)
{
	GUEST_EXITS_ON(IK_MTF);
	cpu_hv_arm(&m.cpu, HV_ARM_MTF);
	ck_assert_int_eq(RUN(100, 0x90, 0x90, 0x90, 0xf4), ST_STOP);
	ck_assert_uint_eq(armed.asks, 1);
	ck_assert_uint_eq(armed.exit.kind, IK_MTF);
	ck_assert_uint_eq(armed.exit.rip, CODE + 1);
}
END_TEST

/* MTF (3.5) before the single-step trap (4): the #DB stays pending. */
START_TEST(mtf_before_debug_trap)
{
	GUEST_EXITS_ON(IK_MTF);
	cpu_hv_arm(&m.cpu, HV_ARM_MTF);
	m.cpu.rflags |= FLAG_TF;
	ck_assert_int_eq(RUN(100, 0x90, 0x90, 0xf4), ST_STOP);
	ck_assert_uint_eq(armed.log[0], IK_MTF);
	ck_assert_uint_eq(delivered(1), 0);
	ck_assert(m.cpu.pending_dbg & DR6_BS);
}
END_TEST

/* The model's timer (DEADLINE_HV) expires at its virtual time: the
 * VMX-preemption timer's exit at that boundary. */
START_TEST(preemption_timer_at_deadline)
{
	GUEST_EXITS_ON(IK_PREEMPTION_TIMER);
	physmem_write_bytes(&m.pm, CODE, (const uint8_t[16]){ 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 }, 16);
	m.cpu.rip = CODE;
	cpu_hv_set_timer(&m.cpu, m.cpu.icount + 3);
	m.cpu.icount_limit = m.cpu.icount + 100;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_uint_eq(armed.exit.kind, IK_PREEMPTION_TIMER);
	ck_assert_uint_eq(armed.exit.rip, CODE + 3);
}
END_TEST

/* Debug trap (4), preemption timer (4.3), NMI window (4.6), NMI (5): each
 * before the next. The model lets the #DB and the timer through and exits at
 * the window (the NMI after it: nmi_window_before_nmi). */
START_TEST(timer_and_nmi_window_order)
{
	GUEST_EXITS_ON(IK_NMI_WINDOW);
	m.cpu.rflags |= FLAG_TF;
	ck_assert_int_eq(RUN(1, 0x90, 0xf4), ST_STOP);     /* the NOP's trap is pending */
	cpu_set_line(&m.cpu, LINE_NMI, true);
	cpu_hv_arm(&m.cpu, HV_ARM_NMI_WINDOW | HV_ARM_PREEMPTION_TIMER);
	m.cpu.icount_limit = m.cpu.icount + 20;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	/* The #DB (asked as EXCEPTION) went to its handler, then the timer,
	 * then the window. */
	/* (The handler's instructions are asked about too: skip them.) */
	uint8_t events[4];
	unsigned n = 0;
	for (unsigned i = 0; i < armed.asks && i < sizeof(armed.log) && n < 4; i++)
		if (armed.log[i] >= IK_EXCEPTION)
			events[n++] = armed.log[i];
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(events[0], IK_EXCEPTION);
	ck_assert_uint_eq(events[1], IK_PREEMPTION_TIMER);
	ck_assert_uint_eq(events[2], IK_NMI_WINDOW);
	ck_assert_uint_eq(delivered(2), 0);
}
END_TEST

/* SDM Vol.3 "NMI-Window Exiting": the exit comes before the NMI. */
START_TEST(nmi_window_before_nmi)
{
	GUEST_EXITS_ON(IK_NMI_WINDOW);
	cpu_set_line(&m.cpu, LINE_NMI, true);
	cpu_hv_arm(&m.cpu, HV_ARM_NMI_WINDOW);
	ck_assert_int_eq(RUN(100, 0x90, 0xf4), ST_STOP);
	ck_assert_uint_eq(armed.exit.kind, IK_NMI_WINDOW);
	ck_assert_uint_eq(delivered(2), 0);
	ck_assert(m.cpu.lines & LINE_NMI);
}
END_TEST

/* SDM Vol.3 "Interrupt-Window Exiting": before external interrupts, when
 * RFLAGS.IF = 1, whatever masks INTR (external-interrupt exiting). */
START_TEST(intr_window_before_intr)
{
	GUEST_EXITS_ON(IK_INTR_WINDOW);
	m.cpu.rflags |= FLAG_IF;
	raise_intr(0x40);
	cpu_hv_arm(&m.cpu, HV_ARM_INTR_WINDOW);
	ck_assert_int_eq(RUN(100, 0x90, 0xf4), ST_STOP);
	ck_assert_uint_eq(armed.log[0], IK_INTR_WINDOW);
	ck_assert_uint_eq(acks, 0);
}
END_TEST

START_TEST(intr_window_waits_for_rflags_if)
{
	GUEST_EXITS_ON(IK_INTR_WINDOW);
	m.cpu.intr_masking = INTR_MASK_NONE;       /* IF does not mask INTR here */
	cpu_hv_arm(&m.cpu, HV_ARM_INTR_WINDOW);
	/* nop; sti; nop; nop; hlt: the window opens after STI's shadow. */
	ck_assert_int_eq(RUN(100, 0x90, 0xfb, 0x90, 0x90, 0xf4), ST_STOP);
	ck_assert_uint_eq(armed.asks, 1);
	ck_assert_uint_eq(armed.exit.rip, CODE + 3);
}
END_TEST

/* SDM Vol.3 "VM Exits Induced by the TPR Threshold": above SMI and INIT, not
 * blocked by IF. */
START_TEST(tpr_threshold_before_init)
{
	GUEST_EXITS_ON(IK_TPR_BELOW_THRESHOLD, IK_INIT);
	cpu_set_line(&m.cpu, LINE_INIT, true);
	cpu_hv_arm(&m.cpu, HV_ARM_TPR_THRESHOLD);
	ck_assert_int_eq(RUN(100, 0x90, 0xf4), ST_STOP);
	ck_assert_uint_eq(armed.log[0], IK_TPR_BELOW_THRESHOLD);
	ck_assert_uint_eq(armed.asks, 1);
}
END_TEST

/* SDM Vol.3 "Virtual-Interrupt Delivery": the model's vector is delivered
 * through the IDT (here the IVT), before a pending external interrupt, and
 * the INTR row comes after. */
START_TEST(virtual_interrupt_delivered)
{
	GUEST_EXITS_ON(IK_MTF);                    /* exits on nothing here */
	m.cpu.rflags |= FLAG_IF;
	raise_intr(0x40);
	armed.virtual_vector = 0x50;
	cpu_hv_arm(&m.cpu, HV_ARM_VIRTUAL_INTR);
	ck_assert_int_eq(RUN(100, 0x90, 0xf4), ST_HALT);
	ck_assert_uint_eq(armed.log[0], IK_VIRTUAL_INTR);
	ck_assert_uint_eq(delivered(0x50), 1);
	ck_assert_uint_eq(delivered(0x40), 1);
}
END_TEST

/* Acknowledge interrupt on exit: the record gets the vector, INTA happened
 * once, nothing is delivered. */
START_TEST(intr_acknowledged_on_exit)
{
	GUEST_EXITS_ON(IK_INTR);
	armed.ack = true;
	m.cpu.rflags |= FLAG_IF;
	raise_intr(0x40);
	ck_assert_int_eq(RUN(100, 0x90, 0xf4), ST_STOP);
	ck_assert(armed.exit.intr_acked);
	ck_assert_uint_eq(armed.exit.vector, 0x40);
	ck_assert_uint_eq(armed.exit.event.vector, 0x40);
	ck_assert_uint_eq(acks, 1);
	ck_assert_uint_eq(delivered(0x40), 0);
	ck_assert(!(m.cpu.lines & LINE_INTR));
}
END_TEST

/* ST_HANDLED on INTR: the model took the interrupt (posted interrupts); the
 * guest runs on, nothing delivered. */
START_TEST(intr_handled_by_model)
{
	GUEST_EXITS_ON(IK_MTF);
	armed.posted = true;
	m.cpu.rflags |= FLAG_IF;
	raise_intr(0x40);
	ck_assert_int_eq(RUN(100, 0x90, 0xf4), ST_HALT);
	ck_assert_uint_eq(acks, 1);
	ck_assert_uint_eq(delivered(0x40), 0);
	ck_assert_uint_eq(armed.exit.vector, 0x40);
}
END_TEST

/* SDM Vol.3 "Restrictions on VMX Operation": INIT is blocked in VMX root
 * operation (a model's HV_HOLD_INIT); released, it is taken. */
START_TEST(init_held_by_model)
{
	m.cpu.hv_holds = HV_HOLD_INIT;
	cpu_set_line(&m.cpu, LINE_INIT, true);
	ck_assert_int_eq(RUN(100, 0x90, 0xf4), ST_HALT);
	ck_assert_uint_eq(m.cpu.seg[SR_CS].selector, 0);
	ck_assert(m.cpu.lines & LINE_INIT);
	cpu_sipi(&m.cpu, 0x12);                    /* does not take the held INIT either */
	ck_assert(m.cpu.lines & LINE_INIT);
	m.cpu.hv_holds = 0;
	ck_assert_int_eq(RUN(1, 0x90, 0xf4), ST_STOP);
	ck_assert_uint_eq(m.cpu.seg[SR_CS].selector, 0xf000);
	ck_assert(!(m.cpu.lines & LINE_INIT));
}
END_TEST

/* A guest waiting for SIPI: the SIPI is the model's, with its vector; not
 * intercepted, the processor starts at vector:0000 (SDM Vol.3 8.4.3). */
START_TEST(sipi_in_guest)
{
	for (unsigned exit = 0; exit < 2; exit++) {
		if (exit)
			GUEST_EXITS_ON(IK_SIPI);
		else
			GUEST_EXITS_ON(IK_MTF);
		m.cpu.wait_for_sipi = m.cpu.halted = true;
		cpu_sipi(&m.cpu, 0x12);
		ck_assert(m.cpu.wait_for_sipi);        /* latched for the boundary */
		m.cpu.icount_limit = m.cpu.icount + 3;
		status_t st = cpu_run(&m.cpu);
		ck_assert_uint_eq(armed.log[0], IK_SIPI);
		if (exit) {
			/* The model's exit did not leave the wait (a real one
			 * switches to its host): the CPU halts or stops. */
			ck_assert(st == ST_STOP || st == ST_HALT);
			ck_assert_uint_eq(armed.exit.vector, 0x12);
			ck_assert(m.cpu.wait_for_sipi);
		} else {
			ck_assert(!m.cpu.wait_for_sipi);
			ck_assert_uint_eq(m.cpu.seg[SR_CS].selector, 0x1200);
		}
	}
}
END_TEST

static Suite *events_suite(void)
{
	Suite *s = suite_create("events");
	TCase *t = tcase_create("boundary");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, intr_taken_when_if_set);
	tcase_add_test(t, intr_held_by_if_clear);
	tcase_add_test(t, sti_shadow);
	tcase_add_test(t, mov_ss_shadow);
	tcase_add_test(t, sti_shadow_holds_nmi);
	tcase_add_test(t, nmi_blocking_until_iret);
	tcase_add_test(t, nmi_before_intr);
	tcase_add_test(t, debug_trap_before_nmi);
	tcase_add_test(t, gif_holds_interrupts);
	tcase_add_test(t, virtual_interrupt_priority);
	tcase_add_test(t, hlt_sleeps_to_deadline);
	tcase_add_test(t, init_signal);
	tcase_add_test(t, intr_as_vm_exit);
	tcase_add_test(t, spurious_intr_exits_once);
	tcase_add_test(t, spurious_intr_with_real_request);
	tcase_add_test(t, spurious_intr_never_delivered);
	tcase_add_test(t, spurious_intr_held_and_withdrawn);
	suite_add_tcase(s, t);
	t = tcase_create("model rows");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, mtf_after_one_instruction);
	tcase_add_test(t, mtf_before_debug_trap);
	tcase_add_test(t, preemption_timer_at_deadline);
	tcase_add_test(t, timer_and_nmi_window_order);
	tcase_add_test(t, nmi_window_before_nmi);
	tcase_add_test(t, intr_window_before_intr);
	tcase_add_test(t, intr_window_waits_for_rflags_if);
	tcase_add_test(t, tpr_threshold_before_init);
	tcase_add_test(t, virtual_interrupt_delivered);
	tcase_add_test(t, intr_acknowledged_on_exit);
	tcase_add_test(t, intr_handled_by_model);
	tcase_add_test(t, init_held_by_model);
	tcase_add_test(t, sipi_in_guest);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(events_suite());
}
