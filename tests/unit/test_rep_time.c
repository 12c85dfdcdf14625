/* Check suite for REP string instructions in virtual time (emu/rep_time.h):
 * every iteration is one unit of cpu->icount for MOVS, CMPS, STOS, LODS, SCAS,
 * INS and OUTS at every address size, REPE/REPNE stop counts included; the
 * instruction limit and a deadline stop an execution between iterations with
 * rCX/rDI showing the iterations done and RIP on the instruction, so it resumes
 * (SDM Vol.2 "REP/REPE/REPZ/REPNE/REPNZ"); a device sees the time of its
 * iteration. A single IN or OUT takes its bus cycle (cpu->io_access_ticks,
 * emu/io.c) and a deadline inside it is served right after it; string I/O
 * iterations stay one tick each. cpu_run() runs the code to HLT on the
 * machine_fixture machine. */
#include <check.h>
#include <string.h>

#include "emu/event_step.h"
#include "emu/insn.h"
#include "machine_fixture.h"
#include "suite_runner.h"

#define CODE  0x200000
#define DST   0x100000         /* 32/64-bit destination, source at SRC */
#define SRC   0x180000
#define DST16 0x8000           /* 16-bit address size: offsets below 64 KiB */
#define SRC16 0x4000
#define N     10000u           /* more than one execution's chunk */
#define PORT  0x90

/* Code bytes at CODE, then HLT; run from CODE until the HLT. Returns the
 * virtual time the code took, HLT excluded. */
static uint64_t run_code(struct test_machine *m, const uint8_t *code, unsigned len)
{
	struct cpu *c = &m->cpu;
	physmem_write_bytes(&m->pm, CODE, code, len);
	physmem_write(&m->pm, CODE + len, 1, 0xf4);
	cpu_notify_phys_write(c, CODE, len + 1);
	c->rip = CODE;
	c->halted = false;
	uint64_t t0 = c->icount;
	ck_assert_int_eq(cpu_run(c), ST_HALT);
	ck_assert_uint_eq(c->rip, CODE + len + 1);
	return c->icount - t0 - 1;     /* HLT retired: one */
}

/* The machine in 32-bit protected mode (asize 16, 32) or 64-bit mode (64). */
static void init_mode(struct test_machine *m, unsigned asize)
{
	machine_init(m, "core2");
	if (asize == 64) {
		activate(m);
		to64(m);
	}
}

struct row {
	const char *name;
	uint8_t code[3];
	unsigned len, asize;
	uint8_t al;                /* AL/the byte SCAS looks for */
	int differ_at;             /* >= 0: the destination byte that differs */
	uint64_t iterations;       /* what the instruction counts */
};

/* Every string instruction at each address size: REPE CMPS over equal bytes and
 * REPNE SCAS for a byte not there run the whole count; a difference ends them
 * after the iteration that found it (SDM Vol.2 REP, Table 4-13). */
static const struct row rows[] = {
	{ "rep movsb a16", { 0x67, 0xf3, 0xa4 }, 3, 16, 0, -1, N },
	{ "repe cmpsb a16", { 0x67, 0xf3, 0xa6 }, 3, 16, 0, -1, N },
	{ "rep stosb a16", { 0x67, 0xf3, 0xaa }, 3, 16, 0, -1, N },
	{ "rep lodsb a16", { 0x67, 0xf3, 0xac }, 3, 16, 0, -1, N },
	{ "repne scasb a16", { 0x67, 0xf2, 0xae }, 3, 16, 1, -1, N },
	{ "rep insb a16", { 0x67, 0xf3, 0x6c }, 3, 16, 0, -1, N },
	{ "rep outsb a16", { 0x67, 0xf3, 0x6e }, 3, 16, 0, -1, N },
	{ "rep movsb a32", { 0xf3, 0xa4 }, 2, 32, 0, -1, N },
	{ "repe cmpsb a32", { 0xf3, 0xa6 }, 2, 32, 0, -1, N },
	{ "rep stosb a32", { 0xf3, 0xaa }, 2, 32, 0, -1, N },
	{ "rep lodsb a32", { 0xf3, 0xac }, 2, 32, 0, -1, N },
	{ "repne scasb a32", { 0xf2, 0xae }, 2, 32, 1, -1, N },
	{ "rep insb a32", { 0xf3, 0x6c }, 2, 32, 0, -1, N },
	{ "rep outsb a32", { 0xf3, 0x6e }, 2, 32, 0, -1, N },
	{ "rep movsb a64", { 0xf3, 0xa4 }, 2, 64, 0, -1, N },
	{ "repe cmpsb a64", { 0xf3, 0xa6 }, 2, 64, 0, -1, N },
	{ "rep stosb a64", { 0xf3, 0xaa }, 2, 64, 0, -1, N },
	{ "rep lodsb a64", { 0xf3, 0xac }, 2, 64, 0, -1, N },
	{ "repne scasb a64", { 0xf2, 0xae }, 2, 64, 1, -1, N },
	{ "rep insb a64", { 0xf3, 0x6c }, 2, 64, 0, -1, N },
	{ "rep outsb a64", { 0xf3, 0x6e }, 2, 64, 0, -1, N },
	{ "repe cmpsb stops at a difference", { 0xf3, 0xa6 }, 2, 32, 0, 6000, 6001 },
	{ "repne scasb stops at a match", { 0xf2, 0xae }, 2, 32, 0x55, 6000, 6001 },
	{ "rep stosb with ECX = 0", { 0xf3, 0xaa }, 2, 32, 0, -1, 1 },
	{ "stosb without REP", { 0xaa }, 1, 32, 0, -1, 1 },
};

START_TEST(iterations_are_virtual_time)
{
	const struct row *r = &rows[_i];
	struct test_machine m;
	init_mode(&m, r->asize);
	struct cpu *c = &m.cpu;
	uint64_t dst = r->asize == 16 ? DST16 : DST, src = r->asize == 16 ? SRC16 : SRC;
	if (r->differ_at >= 0)
		physmem_write(&m.pm, dst + (uint64_t)r->differ_at, 1, 0x55);
	c->regs[R_CX] = strcmp(r->name, "rep stosb with ECX = 0") ? N : 0;
	c->regs[R_SI] = src;
	c->regs[R_DI] = dst;
	c->regs[R_DX] = PORT;
	c->regs[R_AX] = r->al;
	ck_assert_msg(run_code(&m, r->code, r->len) == r->iterations, "%s: %llu units, expected %llu",
		      r->name, (unsigned long long)(c->icount - 1), (unsigned long long)r->iterations);
	if (r->len > 1)
		ck_assert_uint_eq(c->regs[R_CX], r->iterations == 1 ? 0 : N - r->iterations);
	machine_free(&m);
}
END_TEST

/* --max-insns: the limit falls inside a REP STOSB; the run stops there with
 * RIP on the instruction, ECX/EDI and memory as of the iterations done, and a
 * second run finishes it. */
START_TEST(limit_stops_between_iterations)
{
	struct test_machine m;
	init_mode(&m, 32);
	struct cpu *c = &m.cpu;
	static const uint8_t code[] = { 0xf3, 0xaa, 0xf4 };     /* rep stosb; hlt */
	physmem_write_bytes(&m.pm, CODE, code, sizeof(code));
	c->rip = CODE;
	c->regs[R_CX] = N;
	c->regs[R_DI] = DST;
	c->regs[R_AX] = 0xab;
	uint64_t t0 = c->icount;
	c->icount_limit = t0 + 1000;
	ck_assert_int_eq(cpu_run(c), ST_STOP);
	ck_assert_uint_eq(c->icount, t0 + 1000);
	ck_assert_uint_eq(c->rip, CODE);
	ck_assert_uint_eq(c->regs[R_CX], N - 1000);
	ck_assert_uint_eq(c->regs[R_DI], DST + 1000);
	ck_assert_uint_eq(physmem_read(&m.pm, DST + 999, 1), 0xab);
	ck_assert_uint_eq(physmem_read(&m.pm, DST + 1000, 1), 0);
	c->icount_limit = 0;
	ck_assert_int_eq(cpu_run(c), ST_HALT);
	ck_assert_uint_eq(c->regs[R_CX], 0);
	ck_assert_uint_eq(c->regs[R_DI], DST + N);
	ck_assert_uint_eq(physmem_read(&m.pm, DST + N - 1, 1), 0xab);
	ck_assert_uint_eq(c->icount, t0 + N + 1);
	machine_free(&m);
}
END_TEST

/* The device behind OUTSB records when each byte came; a deadline inside the
 * instruction records the count register when it fired. */
struct watch {
	struct cpu *cpu;
	uint64_t times[N];
	unsigned writes;
	uint64_t fired_at, rcx_at_fire, rip_at_fire;
};

static void port_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	(void)port, (void)size, (void)value;
	struct watch *w = opaque;
	if (w->writes < N)
		w->times[w->writes] = cpu_now(w->cpu);
	w->writes++;
}

static uint32_t port_read(void *opaque, uint16_t port, unsigned size)
{
	(void)opaque, (void)port, (void)size;
	return 0;
}

static const struct pio_ops watch_ops = { .read = port_read, .write = port_write };

static void deadline_fired(void *ctx, struct cpu *cpu)
{
	struct watch *w = ctx;
	w->fired_at = cpu->icount;
	w->rcx_at_fire = cpu->regs[R_CX];
	w->rip_at_fire = cpu->rip;
}

/* m in 32-bit mode with w's device at PORT and its deadline source. */
static void watch_setup(struct test_machine *m, struct watch *w)
{
	init_mode(m, 32);
	memset(w, 0, sizeof(*w));
	w->cpu = &m->cpu;
	ck_assert(iobus_register(&m->io, PORT, 1, &watch_ops, w, "watch"));
	m->cpu.deadlines[DEADLINE_HV] = (struct deadline){ .at = UINT64_MAX, .fire = deadline_fired, .ctx = w };
}

START_TEST(device_and_deadline_see_iterations)
{
	static struct watch w;
	struct test_machine m;
	watch_setup(&m, &w);
	struct cpu *c = &m.cpu;
	uint64_t t0 = c->icount;
	cpu_set_deadline(c, DEADLINE_HV, t0 + 2500);
	c->regs[R_CX] = N;
	c->regs[R_SI] = SRC;
	c->regs[R_DX] = PORT;
	ck_assert_uint_eq(run_code(&m, (const uint8_t[]){ 0xf3, 0x6e }, 2), N);
	ck_assert_uint_eq(w.writes, N);
	for (unsigned i = 0; i < N; i++)
		ck_assert_msg(w.times[i] == t0 + i, "byte %u at %llu, expected %llu", i,
			      (unsigned long long)w.times[i], (unsigned long long)(t0 + i));
	/* The deadline fired between iterations 2499 and 2500, exactly when due. */
	ck_assert_uint_eq(w.fired_at, t0 + 2500);
	ck_assert_uint_eq(w.rcx_at_fire, N - 2500);
	ck_assert_uint_eq(w.rip_at_fire, CODE);
	machine_free(&m);
}
END_TEST

/* OUT DX, AL with a bus cycle of 1000 ticks and a deadline 500 ticks in: the
 * device sees the write at the instruction's start, the deadline fires at the
 * boundary after it (rIP past the OUT, none of the NOPs run); a REP OUTSB's
 * iterations are still one tick each. */
START_TEST(bus_cycle_time_and_its_deadline)
{
	static struct watch w;
	struct test_machine m;
	watch_setup(&m, &w);
	struct cpu *c = &m.cpu;
	c->io_access_ticks = 999;
	uint64_t t0 = c->icount;
	cpu_set_deadline(c, DEADLINE_HV, t0 + 500);
	c->regs[R_DX] = PORT;
	ck_assert_uint_eq(run_code(&m, (const uint8_t[]){ 0xee, 0x90, 0x90, 0x90 }, 4), 1000 + 3);
	ck_assert_uint_eq(w.writes, 1);
	ck_assert_uint_eq(w.times[0], t0);
	ck_assert_uint_eq(w.fired_at, t0 + 1000);
	ck_assert_uint_eq(w.rip_at_fire, CODE + 1);
	w.writes = 0;
	c->regs[R_CX] = 100;
	c->regs[R_SI] = SRC;
	ck_assert_uint_eq(run_code(&m, (const uint8_t[]){ 0xf3, 0x6e }, 2), 100);
	ck_assert_uint_eq(w.writes, 100);
	machine_free(&m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rep_time");
	TCase *t = tcase_create("rep_time");
	tcase_add_loop_test(t, iterations_are_virtual_time, 0, (int)(sizeof(rows) / sizeof(rows[0])));
	tcase_add_test(t, limit_stops_between_iterations);
	tcase_add_test(t, device_and_deadline_see_iterations);
	tcase_add_test(t, bus_cycle_time_and_its_deadline);
	suite_add_tcase(s, t);
	return run_suite(s);
}
