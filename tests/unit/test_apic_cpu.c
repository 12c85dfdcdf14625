/* Check suite for the processor's side of its local APIC (emu/apic.c and the
 * wait-for-SIPI state of emu/cpu.c, emu/event_step.c): IA32_APIC_BASE and its
 * x2APIC transitions, the xAPIC page reached by the CPU's own loads and
 * stores (also relocated over RAM), the x2APIC MSRs and IA32_TSC_DEADLINE
 * through RDMSR/WRMSR, CR8 as TPR, CPUID's per-CPU fields, INIT and SIPI. */
#include <check.h>
#include <string.h>

#include "devices/lapic.h"
#include "emu/apic.h"
#include "emu/cpu_model.h"
#include "emu/event_step.h"
#include "emu/insn.h"
#include "machine_fixture.h"
#include "suite_runner.h"

struct rig {
	struct test_machine m;
	struct vclock clock;
	struct apic_bus bus;
	struct lapic lapic;
};

static uint64_t rig_now(void *ctx)
{
	return cpu_now(ctx);
}

static void core_line(void *opaque, unsigned line, bool level)
{
	cpu_set_line(opaque, line, level);
}

static void core_startup(void *opaque, uint8_t vector)
{
	cpu_sipi(opaque, vector);
}

/* A CPU of model name with a local APIC of ID id attached (BSP unless ap). */
static void rig_init(struct rig *r, const char *name, uint32_t id, bool ap)
{
	memset(r, 0, sizeof(*r));
	machine_init(&r->m, name);
	struct cpu *c = &r->m.cpu;
	vclock_init(&r->clock, 1000000000ull);
	r->clock.now = rig_now;
	r->clock.now_ctx = c;
	lapic_init(&r->lapic, id, cpu_model_has(c->model, 1, 2, 21), cpu_model_has(c->model, 1, 2, 24),
		   &r->clock, 1000000000ull, &r->bus);
	r->lapic.core = (struct lapic_core){
		.intr = { core_line, c, LINE_INTR }, .nmi = { core_line, c, LINE_NMI },
		.smi = { core_line, c, LINE_SMI }, .init = { core_line, c, LINE_INIT },
		.startup = core_startup, .startup_opaque = c,
	};
	r->bus.n = 1;
	r->bus.lapic[0] = &r->lapic;
	c->intr_ack = lapic_intr_ack;
	c->intr_ctx = &r->lapic;
	if (ap)
		c->apic_base &= ~APIC_BASE_BSP;
	cpu_attach_lapic(c, &r->lapic, id);
}

static status_t rdmsr(struct test_machine *m, uint32_t index, uint64_t *v)
{
	m->cpu.regs[R_CX] = index;
	status_t st = EXEC(m, 0x0f, 0x32);
	*v = (m->cpu.regs[R_DX] << 32) | (uint32_t)m->cpu.regs[R_AX];
	return st;
}

static void cpuid(struct test_machine *m, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	m->cpu.regs[R_AX] = leaf;
	m->cpu.regs[R_CX] = sub;
	ck_assert_int_eq(EXEC(m, 0x0f, 0xa2), ST_OK);
	out[0] = (uint32_t)m->cpu.regs[R_AX];
	out[1] = (uint32_t)m->cpu.regs[R_BX];
	out[2] = (uint32_t)m->cpu.regs[R_CX];
	out[3] = (uint32_t)m->cpu.regs[R_DX];
}

/* MOV EAX, [addr] and MOV [addr], EAX (A1/A3 with a 32-bit offset). */
static uint32_t load32(struct test_machine *m, uint32_t addr)
{
	const uint8_t b[] = { 0xa1, (uint8_t)addr, (uint8_t)(addr >> 8), (uint8_t)(addr >> 16),
			      (uint8_t)(addr >> 24) };
	ck_assert_int_eq(exec(m, b, 5), ST_OK);
	return (uint32_t)m->cpu.regs[R_AX];
}

static void store32(struct test_machine *m, uint32_t addr, uint32_t v)
{
	const uint8_t b[] = { 0xa3, (uint8_t)addr, (uint8_t)(addr >> 8), (uint8_t)(addr >> 16),
			      (uint8_t)(addr >> 24) };
	m->cpu.regs[R_AX] = v;
	ck_assert_int_eq(exec(m, b, 5), ST_OK);
}

START_TEST(apic_base_transitions)
{
	struct rig r;
	rig_init(&r, "skylake-lite", 0, false);
	struct test_machine *m = &r.m;
	uint64_t base = LAPIC_DEFAULT_BASE | APIC_BASE_EN | APIC_BASE_BSP;
	uint64_t v;
	ck_assert_int_eq(rdmsr(m, MSR_APIC_BASE, &v), ST_OK);
	ck_assert_uint_eq(v, base);
	/* SDM 10.12.5.1: EN=0 EXTD=1 invalid; x2APIC -> xAPIC and disabled ->
	 * x2APIC illegal; BSP read-only; reserved bits. */
	assert_gp0(m, wrmsr(m, MSR_APIC_BASE, LAPIC_DEFAULT_BASE | APIC_BASE_EXTD));
	assert_gp0(m, wrmsr(m, MSR_APIC_BASE, base | (1ull << 9)));
	assert_gp0(m, wrmsr(m, MSR_APIC_BASE, base | (1ull << 39)));    /* MAXPHYADDR 39 */
	ck_assert_int_eq(wrmsr(m, MSR_APIC_BASE, base | APIC_BASE_EXTD), ST_OK);
	ck_assert_int_eq(r.lapic.mode, LAPIC_X2APIC);
	ck_assert_uint_eq(m->cpu.apic_page, UINT64_MAX);
	assert_gp0(m, wrmsr(m, MSR_APIC_BASE, base));
	ck_assert_int_eq(wrmsr(m, MSR_APIC_BASE, LAPIC_DEFAULT_BASE), ST_OK);
	ck_assert_int_eq(r.lapic.mode, LAPIC_DISABLED);
	assert_gp0(m, wrmsr(m, MSR_APIC_BASE, base | APIC_BASE_EXTD));
	ck_assert_int_eq(wrmsr(m, MSR_APIC_BASE, base & ~APIC_BASE_BSP), ST_OK);
	ck_assert_int_eq(rdmsr(m, MSR_APIC_BASE, &v), ST_OK);
	ck_assert_uint_eq(v, base);                        /* BSP kept */
	ck_assert_uint_eq(m->cpu.apic_page, LAPIC_DEFAULT_BASE);
	machine_free(m);
	/* Without x2APIC (core2) EXTD is reserved. */
	rig_init(&r, "core2", 0, false);
	assert_gp0(&r.m, wrmsr(&r.m, MSR_APIC_BASE, base | APIC_BASE_EXTD));
	machine_free(&r.m);
}
END_TEST

START_TEST(mmio_through_the_cpu)
{
	struct rig r;
	rig_init(&r, "skylake-lite", 3, false);
	struct test_machine *m = &r.m;
	/* The CPU's own load of FEE00020H reads its APIC's ID register. */
	ck_assert_uint_eq(load32(m, 0xfee00020), 0x03000000);
	store32(m, 0xfee00080, 0x45);
	ck_assert_uint_eq(lapic_tpr(&r.lapic), 0x45);
	/* The bus does not see it: a device reading there gets all ones. */
	ck_assert_uint_eq(physmem_read(&m->pm, 0xfee00020, 4), 0xffffffffu);
	/* Relocated over RAM (SDM 10.4.5): the CPU reaches the APIC, other
	 * agents the RAM; moved away, the CPU sees RAM again. */
	physmem_write(&m->pm, 0x200020, 4, 0xabcdef01);
	ck_assert_uint_eq(load32(m, 0x200020), 0xabcdef01);          /* RAM, cached in the TLB */
	ck_assert_int_eq(wrmsr(m, MSR_APIC_BASE, 0x200000 | APIC_BASE_EN | APIC_BASE_BSP), ST_OK);
	ck_assert_uint_eq(load32(m, 0x200020), 0x03000000);
	store32(m, 0x200080, 0x10);
	ck_assert_uint_eq(lapic_tpr(&r.lapic), 0x10);
	ck_assert_uint_eq(physmem_read(&m->pm, 0x200080, 4), 0);
	ck_assert_int_eq(wrmsr(m, MSR_APIC_BASE, LAPIC_DEFAULT_BASE | APIC_BASE_EN | APIC_BASE_BSP), ST_OK);
	ck_assert_uint_eq(load32(m, 0x200020), 0xabcdef01);
	/* Globally disabled: no APIC page. */
	ck_assert_int_eq(wrmsr(m, MSR_APIC_BASE, LAPIC_DEFAULT_BASE | APIC_BASE_BSP), ST_OK);
	ck_assert_uint_eq(load32(m, 0xfee00020), 0xffffffffu);
	machine_free(m);
}
END_TEST

START_TEST(x2apic_msrs_and_cr8)
{
	struct rig r;
	rig_init(&r, "skylake-lite", 2, false);
	struct test_machine *m = &r.m;
	uint64_t v;
	uint64_t base = LAPIC_DEFAULT_BASE | APIC_BASE_EN | APIC_BASE_BSP;
	assert_gp0(m, rdmsr(m, 0x802, &v));                 /* xAPIC mode */
	ck_assert_int_eq(wrmsr(m, MSR_APIC_BASE, base | APIC_BASE_EXTD), ST_OK);
	ck_assert_int_eq(rdmsr(m, 0x802, &v), ST_OK);
	ck_assert_uint_eq(v, 2);
	assert_gp0(m, rdmsr(m, 0x80b, &v));                 /* write-only EOI */
	assert_gp0(m, wrmsr(m, 0x802, 0));                  /* read-only ID */
	ck_assert_int_eq(wrmsr(m, 0x808, 0x30), ST_OK);
	ck_assert_uint_eq(lapic_tpr(&r.lapic), 0x30);
	assert_gp0(m, rdmsr(m, 0x900, &v));                 /* outside 800H-8FFH */
	/* CR8 is TPR[7:4] (SDM 10.8.6.1), in 64-bit mode. */
	activate(m);
	to64(m);
	m->cpu.regs[R_AX] = 0x9;
	ck_assert_int_eq(EXEC(m, 0x44, 0x0f, 0x22, 0xc0), ST_OK);    /* mov cr8, rax */
	ck_assert_uint_eq(lapic_tpr(&r.lapic), 0x90);
	ck_assert_int_eq(wrmsr(m, 0x808, 0x5f), ST_OK);
	ck_assert_int_eq(EXEC(m, 0x44, 0x0f, 0x20, 0xc0), ST_OK);    /* mov rax, cr8 */
	ck_assert_uint_eq(m->cpu.regs[R_AX], 5);
	machine_free(m);
}
END_TEST

START_TEST(tsc_deadline_msr)
{
	struct rig r;
	rig_init(&r, "skylake-lite", 0, false);
	struct test_machine *m = &r.m;
	uint64_t v;
	lapic_mmio_write(&r.lapic, 0xf0, 0x1ff);
	lapic_mmio_write(&r.lapic, 0x320, 0x40040);          /* TSC-deadline, vector 40H */
	m->cpu.tsc_offset = 1000;
	m->cpu.icount = 500;                                 /* TSC = 1500 */
	ck_assert_int_eq(wrmsr(m, MSR_TSC_DEADLINE, 2000), ST_OK);
	ck_assert_int_eq(rdmsr(m, MSR_TSC_DEADLINE, &v), ST_OK);
	ck_assert_uint_eq(v, 2000);
	ck_assert(r.lapic.timer.armed);
	ck_assert_uint_eq(r.lapic.timer.when, 1000);          /* tick at which TSC = 2000 */
	/* Writing the TSC moves the deadline with it. */
	ck_assert_int_eq(wrmsr(m, MSR_TSC, 1900), ST_OK);
	ck_assert_uint_eq(r.lapic.timer.when, 600);
	machine_free(m);
	/* core2 has no TSC-deadline mode: no MSR. */
	rig_init(&r, "core2", 0, false);
	assert_gp0(&r.m, rdmsr(&r.m, MSR_TSC_DEADLINE, &v));
	machine_free(&r.m);
}
END_TEST

START_TEST(cpuid_per_cpu)
{
	struct rig r;
	uint32_t o[4];
	rig_init(&r, "skylake-lite", 5, true);
	cpuid(&r.m, 1, 0, o);
	ck_assert_uint_eq(o[1] >> 24, 5);                    /* initial APIC ID */
	ck_assert_uint_ne(o[3] & (1u << 9), 0);              /* APIC */
	ck_assert_uint_ne(o[2] & (1u << 21), 0);             /* x2APIC */
	ck_assert_uint_ne(o[2] & (1u << 24), 0);             /* TSC-deadline */
	/* Leaf 0BH: SMT then core level, each one processor; EDX the ID. */
	cpuid(&r.m, 0xb, 0, o);
	ck_assert_uint_eq(o[1], 1);
	ck_assert_uint_eq(o[2], 0x100);
	ck_assert_uint_eq(o[3], 5);
	cpuid(&r.m, 0xb, 1, o);
	ck_assert_uint_eq(o[2], 0x201);
	cpuid(&r.m, 0xb, 2, o);
	ck_assert_uint_eq(o[0] | o[1], 0);
	ck_assert_uint_eq(o[2], 2);
	ck_assert_uint_eq(o[3], 5);
	/* SDM 10.5.4: the timer counts the crystal leaf 15H reports. */
	cpuid(&r.m, 0x15, 0, o);
	ck_assert_uint_eq(o[2], LAPIC_TIMER_HZ);
	/* IA32_APIC_BASE.BSP clear on an AP. */
	uint64_t v;
	ck_assert_int_eq(rdmsr(&r.m, MSR_APIC_BASE, &v), ST_OK);
	ck_assert_uint_eq(v & APIC_BASE_BSP, 0);
	machine_free(&r.m);
	/* No APIC attached: none reported. */
	struct test_machine bare;
	machine_init(&bare, "skylake-lite");
	cpuid(&bare, 1, 0, o);
	ck_assert_uint_eq(o[3] & (1u << 9), 0);
	ck_assert_uint_eq(o[2] & ((1u << 21) | (1u << 24)), 0);
	machine_free(&bare);
}
END_TEST

START_TEST(init_sipi)
{
	struct rig r;
	rig_init(&r, "skylake-lite", 1, true);
	struct cpu *c = &r.m.cpu;
	c->halt_yields = true;
	/* INIT: an AP waits for a SIPI (SDM 8.4.1), its APIC reset. */
	lapic_mmio_write(&r.lapic, 0xf0, 0x1ff);
	cpu_set_line(c, LINE_INIT, true);
	ck_assert_int_eq(cpu_run(c), ST_HALT);
	ck_assert(c->wait_for_sipi && c->halted);
	ck_assert_uint_eq(r.lapic.svr, 0xff);
	/* Waiting, it takes no NMI and no interrupt. */
	cpu_set_line(c, LINE_NMI, true);
	ck_assert_int_eq(cpu_run(c), ST_HALT);
	ck_assert(c->lines & LINE_NMI);
	c->lines = 0;
	/* SIPI vector 9AH: real mode at 9A00:0000. */
	physmem_write(&r.m.pm, 0x9a000, 1, 0xf4);             /* hlt */
	cpu_sipi(c, 0x9a);
	ck_assert(!c->wait_for_sipi);
	ck_assert_int_eq(c->mode, MODE_REAL);
	ck_assert_uint_eq(c->seg[SR_CS].selector, 0x9a00);
	ck_assert_uint_eq(c->seg[SR_CS].base, 0x9a000);
	ck_assert_uint_eq(c->rip, 0);
	ck_assert_int_eq(cpu_run(c), ST_HALT);               /* ran its HLT */
	ck_assert_uint_eq(c->rip, 1);
	/* A second SIPI is ignored once started. */
	cpu_sipi(c, 0x10);
	ck_assert_uint_eq(c->seg[SR_CS].selector, 0x9a00);
	/* INIT then SIPI before the AP ran: the INIT is taken first. */
	cpu_set_line(c, LINE_INIT, true);
	cpu_sipi(c, 0x20);
	ck_assert_uint_eq(c->seg[SR_CS].selector, 0x2000);
	ck_assert(!(c->lines & LINE_INIT));
	machine_free(&r.m);
	/* The BSP's INIT starts at the reset vector. */
	rig_init(&r, "skylake-lite", 0, false);
	cpu_init_signal(&r.m.cpu);
	ck_assert(!r.m.cpu.wait_for_sipi);
	ck_assert_uint_eq(r.m.cpu.rip, 0xfff0);
	machine_free(&r.m);
}
END_TEST

static Suite *apic_cpu_suite(void)
{
	Suite *s = suite_create("apic_cpu");
	TCase *tc = tcase_create("apic_cpu");
	tcase_add_test(tc, apic_base_transitions);
	tcase_add_test(tc, mmio_through_the_cpu);
	tcase_add_test(tc, x2apic_msrs_and_cr8);
	tcase_add_test(tc, tsc_deadline_msr);
	tcase_add_test(tc, cpuid_per_cpu);
	tcase_add_test(tc, init_sipi);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(apic_cpu_suite());
}
