/* The translator (emu/jit.h) against the interpreter: random programs of the
 * register forms it translates (MOV, ADD/OR/AND/SUB/XOR/CMP with a register
 * or an immediate, TEST, INC/DEC, SHL/SHR/SAR by 1 or an immediate that may
 * mask to 0, MOV of an immediate), mixed with instructions that end a run or
 * read the flags inside a block (ADC, SETC, CMOVcc, a shift by CL), run once
 * as blocks (translated runs) and once one instruction at a time (the exec
 * forms, never translated). Registers, the flags as the SDM defines them
 * (the lazy record materialized) and time must agree, in 32- and 64-bit mode.
 *
 *   random_programs_32 / _64   1,500 programs of 40 instructions each
 *   runs_translated            the programs above did run translated code
 *   loop_with_carry_chain      an INC/DEC keeps the CF of the run's earlier
 *                              instruction (SDM Vol.2 INC, DEC), read by ADC
 *                              after the run, in a loop that chains
 */
#include <check.h>
#include <string.h>

#include "emu/flags.h"
#include "emu/icache.h"
#include "emu/jit.h"
#include "machine_fixture.h"
#include "suite_runner.h"

static struct test_machine m;

static void setup(void)
{
	machine_init(&m, "core2");
}

static void teardown(void)
{
	machine_free(&m);
}

/* xorshift64 for the programs: the same every run. */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

struct program {
	uint8_t bytes[40 * 15 + 1];
	unsigned len;
};

static void b(struct program *p, unsigned v)
{
	p->bytes[p->len++] = (uint8_t)v;
}

static void imm32(struct program *p, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		b(p, v >> (8 * i));
}

/* A REX prefix in 64-bit mode: W as asked, R and B at random. */
static void rex(struct program *p, bool long_mode, bool w, unsigned *reg, unsigned *rm)
{
	if (!long_mode)
		return;
	unsigned x = 0x40 | (w ? 8 : 0);
	if (rnd() & 1) {
		x |= 4;
		*reg += 8;
	}
	if (rnd() & 1) {
		x |= 1;
		*rm += 8;
	}
	if (x != 0x40 || (rnd() & 3) == 0)
		b(p, x);
}

/* One random instruction. */
static void insn(struct program *p, bool long_mode)
{
	static const uint8_t alu_rr[] = { 0x01, 0x09, 0x21, 0x29, 0x31, 0x39, 0x03, 0x0b, 0x23, 0x2b, 0x33, 0x3b,
					  0x85, 0x89, 0x8b };
	static const uint8_t alu_ext[] = { 0, 1, 4, 5, 6, 7 };
	static const uint8_t shift_ext[] = { 4, 5, 7 };
	unsigned reg = rnd() & 7, rm = rnd() & 7, pick = rnd() % 20;
	bool w = long_mode && (rnd() & 1);
	switch (pick) {
	case 0: case 1: case 2: case 3: case 4: case 5:
		rex(p, long_mode, w, &reg, &rm);
		b(p, alu_rr[rnd() % sizeof(alu_rr)]);
		b(p, 0xc0 | (reg & 7) << 3 | (rm & 7));
		break;
	case 6: case 7:
		rex(p, long_mode, w, &reg, &rm);
		b(p, 0x83);
		b(p, 0xc0 | alu_ext[rnd() % sizeof(alu_ext)] << 3 | (rm & 7));
		b(p, (unsigned)rnd());
		break;
	case 8:
		rex(p, long_mode, w, &reg, &rm);
		b(p, 0x81);
		b(p, 0xc0 | alu_ext[rnd() % sizeof(alu_ext)] << 3 | (rm & 7));
		imm32(p, (uint32_t)rnd());
		break;
	case 9: case 10:
		rex(p, long_mode, w, &reg, &rm);
		b(p, 0xff);
		b(p, 0xc0 | (rnd() & 1) << 3 | (rm & 7));   /* INC/DEC r/m */
		break;
	case 11:
		if (long_mode) {
			rex(p, long_mode, w, &reg, &rm);
			b(p, 0xd1);
			b(p, 0xc0 | shift_ext[rnd() % 3] << 3 | (rm & 7));
		} else {
			b(p, 0x40 + (rnd() & 15));           /* INC/DEC r32 (40+r, 48+r) */
		}
		break;
	case 12: case 13: {
		rex(p, long_mode, w, &reg, &rm);
		b(p, 0xc1);
		b(p, 0xc0 | shift_ext[rnd() % 3] << 3 | (rm & 7));
		unsigned c = rnd() % 8;                      /* 0 and 32/64 too */
		b(p, c == 0 ? 0 : c == 1 ? 32 : c == 2 ? 64 : (unsigned)rnd() % 70);
		break;
	}
	case 14:
		rex(p, long_mode, w, &reg, &rm);
		b(p, 0xb8 + (rm & 7));
		imm32(p, (uint32_t)rnd());
		if (w)
			imm32(p, (uint32_t)rnd());
		break;
	case 15:
		rex(p, long_mode, w, &reg, &rm);
		b(p, 0xc7);
		b(p, 0xc0 | (rm & 7));
		imm32(p, (uint32_t)rnd());
		break;
	/* Neither translated nor pure everywhere: runs end at them, and they
	 * read the flags the run before them left. */
	case 16:
		rex(p, long_mode, w, &reg, &rm);
		b(p, 0x11);                                  /* ADC r/m, r */
		b(p, 0xc0 | (reg & 7) << 3 | (rm & 7));
		break;
	case 17:
		rex(p, long_mode, false, &reg, &rm);
		b(p, 0x0f);
		b(p, 0x90 + (rnd() & 15));                   /* SETcc r/m8 */
		b(p, 0xc0 | (rm & 7));
		break;
	case 18:
		rex(p, long_mode, w, &reg, &rm);
		b(p, 0x0f);
		b(p, 0x40 + (rnd() & 15));                   /* CMOVcc r, r/m */
		b(p, 0xc0 | (reg & 7) << 3 | (rm & 7));
		break;
	default:
		rex(p, long_mode, w, &reg, &rm);
		b(p, 0xd3);                                  /* shift by CL */
		b(p, 0xc0 | shift_ext[rnd() % 3] << 3 | (rm & 7));
		break;
	}
}

static void load(const struct program *p, const uint64_t regs[16])
{
	physmem_write_bytes(&m.pm, 0x40000, p->bytes, p->len);
	cpu_notify_phys_write(&m.cpu, 0x40000, p->len);
	memcpy(m.cpu.regs, regs, sizeof(m.cpu.regs));
	/* An arbitrary lazy record before the program: what it leaves behind
	 * must not matter but through CF. */
	m.cpu.lazy = (struct lazy_flags){ .op = LAZY_ADD, .size = 2, .result = 1, .src1 = 0xffffffff, .src2 = 2 };
	m.cpu.rip = 0x40000;
	m.cpu.halted = false;
}

struct outcome {
	uint64_t regs[16], rflags, time;
};

static struct outcome finish(uint64_t t0)
{
	struct outcome o;
	flags_materialize(&m.cpu);
	memcpy(o.regs, m.cpu.regs, sizeof(o.regs));
	o.rflags = m.cpu.rflags;
	o.time = m.cpu.icount - t0;
	return o;
}

static void random_programs(bool long_mode)
{
	if (long_mode) {
		activate(&m);
		to64(&m);
	}
	for (unsigned n = 0; n < 1500; n++) {
		struct program p = { .len = 0 };
		for (unsigned i = 0; i < 40; i++)
			insn(&p, long_mode);
		b(&p, 0xf4);
		uint64_t regs[16];
		for (unsigned r = 0; r < 16; r++)
			regs[r] = (rnd() & 3) == 0 ? rnd() & 0xff : (rnd() & 3) == 0 ? 0 : rnd();
		load(&p, regs);
		uint64_t t0 = m.cpu.icount;
		m.cpu.icount_limit = t0 + 1000;
		ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
		struct outcome blocks = finish(t0);
		load(&p, regs);
		t0 = m.cpu.icount;
		status_t st;
		do {
			m.cpu.icount_limit = m.cpu.icount + 1;
			st = cpu_run(&m.cpu);
		} while (st == ST_STOP);
		ck_assert_int_eq(st, ST_HALT);
		struct outcome steps = finish(t0);
		for (unsigned r = 0; r < 16; r++)
			ck_assert_msg(blocks.regs[r] == steps.regs[r], "program %u: register %u: blocks %llx, steps %llx",
				      n, r, (unsigned long long)blocks.regs[r], (unsigned long long)steps.regs[r]);
		ck_assert_msg(blocks.rflags == steps.rflags, "program %u: rflags blocks %llx, steps %llx", n,
			      (unsigned long long)blocks.rflags, (unsigned long long)steps.rflags);
		ck_assert_uint_eq(blocks.time, steps.time);
	}
}

/* On an x86-64 host the programs must have met the translator, or the
 * comparisons above checked the thread forms only. */
static void assert_translated(void)
{
#if defined(__x86_64__)
	ck_assert_uint_gt(jit_runs_translated(m.cpu.icache), 1000);
#endif
}

START_TEST(random_programs_32)
{
	random_programs(false);
	assert_translated();
}
END_TEST

START_TEST(random_programs_64)
{
	random_programs(true);
	assert_translated();
}
END_TEST

/* 1: add eax, ebx; shl ebx, 1; dec ecx; mov edx, eax; adc esi, 0; test ecx, ecx; jnz 1b; hlt:
 * the run is ADD..MOV: the DEC keeps the SHL's CF, which ADC adds. */
START_TEST(loop_with_carry_chain)
{
	static const uint8_t code[] = { 0x01, 0xd8, 0xd1, 0xe3, 0xff, 0xc9, 0x89, 0xc2, 0x83, 0xd6, 0x00,
					0x85, 0xc9, 0x75, 0xf1, 0xf4 };
	physmem_write_bytes(&m.pm, 0x40000, code, sizeof(code));
	m.cpu.regs[R_AX] = 0;
	m.cpu.regs[R_BX] = 0x80000001u;
	m.cpu.regs[R_CX] = 40;
	m.cpu.regs[R_SI] = 0;
	m.cpu.rip = 0x40000;
	unsigned long before = jit_runs_translated(m.cpu.icache);
	m.cpu.icount_limit = m.cpu.icount + 1000;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	/* EBX: 80000001h, 2, 4, ... 2^31, then 0: the SHL carries out twice,
	 * at 80000001h and at 2^31; EAX sums them modulo 2^32. */
	ck_assert_uint_eq(m.cpu.regs[R_SI], 2);
	ck_assert_uint_eq(m.cpu.regs[R_BX], 0);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 0x7fffffff);
	ck_assert_uint_eq(m.cpu.regs[R_DX], m.cpu.regs[R_AX]);
#if defined(__x86_64__)
	ck_assert_uint_gt(jit_runs_translated(m.cpu.icache), before);
#else
	(void)before;
#endif
}
END_TEST

static Suite *jit_suite(void)
{
	Suite *s = suite_create("jit");
	TCase *t = tcase_create("differential");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 120);
	tcase_add_test(t, random_programs_32);
	tcase_add_test(t, random_programs_64);
	tcase_add_test(t, loop_with_carry_chain);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(jit_suite());
}
