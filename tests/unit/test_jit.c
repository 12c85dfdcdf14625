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
 *   loop_reads_flags_from_before  a loop block that sets no flag is not
 *                              closed in host code: its JNZ reads flags
 *                              from before the block
 *   random_loops_32 / _64      blocks that close a loop on themselves (a
 *                              translated body, JNZ or JZ back to the start:
 *                              the loop runs inside the host code), run to
 *                              their end and stopped by an instruction limit
 *                              at a random point: registers, flags, rIP and
 *                              time as the single steps leave them
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

/* One random instruction; translatable_only: of the forms a run may hold. */
static void insn_of(struct program *p, bool long_mode, bool translatable_only)
{
	static const uint8_t alu_rr[] = { 0x01, 0x09, 0x21, 0x29, 0x31, 0x39, 0x03, 0x0b, 0x23, 0x2b, 0x33, 0x3b,
					  0x85, 0x89, 0x8b };
	static const uint8_t alu_ext[] = { 0, 1, 4, 5, 6, 7 };
	static const uint8_t shift_ext[] = { 4, 5, 7 };
	unsigned reg = rnd() & 7, rm = rnd() & 7, pick = rnd() % (translatable_only ? 16 : 20);
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

static void insn(struct program *p, bool long_mode)
{
	insn_of(p, long_mode, false);
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

/* Whether an instruction of insn_of's may write ECX/RCX: its ModRM names
 * register 1 as r/m (with REX.B clear) or reg, or it is B9 / 41 / 49 (MOV
 * ECX, imm; INC/DEC ECX in 32-bit mode). */
static bool touches_ecx(const struct program *one, bool long_mode)
{
	unsigned i = 0;
	bool rex_b = false, rex_r = false;
	if (long_mode && (one->bytes[0] & 0xf0) == 0x40) {
		rex_b = one->bytes[0] & 1;
		rex_r = one->bytes[0] & 4;
		i = 1;
	}
	uint8_t op = one->bytes[i];
	if (op == 0xb9 && !rex_b)
		return true;
	if (!long_mode && (op == 0x41 || op == 0x49))
		return true;
	if ((op >= 0xb8 && op <= 0xbf) || (op >= 0x40 && op <= 0x4f))
		return false;
	uint8_t modrm = one->bytes[i + 1];
	return (((modrm & 7) == 1) && !rex_b) || (((modrm >> 3 & 7) == 1) && !rex_r);
}

/* A loop closing its own block: a body of translatable instructions that
 * leave ECX alone (in 32-bit mode 40+r/48+r may be INC/DEC ECX: redrawn),
 * then DEC ECX; JNZ, or DEC ECX; MOV EDX, ECX; SHR EDX, 31; JZ (the loop
 * runs while ECX >= 0); then HLT. */
static void loop_program(struct program *p, bool long_mode, bool jz)
{
	unsigned body = 1 + (unsigned)(rnd() % 12);
	for (unsigned i = 0; i < body; i++) {
		struct program one;
		do {
			one.len = 0;
			insn_of(&one, long_mode, true);
			/* The destination register: ModRM.rm (with REX.B) or the
			 * opcode's low bits, whichever the form uses; ECX is the
			 * counter. Conservatively: no byte naming register 1. */
		} while (touches_ecx(&one, long_mode));
		memcpy(p->bytes + p->len, one.bytes, one.len);
		p->len += one.len;
	}
	b(p, 0xff);
	b(p, 0xc9);                        /* dec ecx */
	if (jz) {
		static const uint8_t tail[] = { 0x89, 0xca, 0xc1, 0xea, 0x1f };   /* mov edx, ecx; shr edx, 31 */
		memcpy(p->bytes + p->len, tail, sizeof(tail));
		p->len += sizeof(tail);
	}
	b(p, jz ? 0x74 : 0x75);
	b(p, (uint8_t)-(int)(p->len + 1));
	b(p, 0xf4);
}

static void random_loops(bool long_mode)
{
	if (long_mode) {
		activate(&m);
		to64(&m);
	}
	for (unsigned n = 0; n < 600; n++) {
		struct program p = { .len = 0 };
		bool jz = n & 1;
		loop_program(&p, long_mode, jz);
		uint64_t regs[16];
		for (unsigned r = 0; r < 16; r++)
			regs[r] = rnd();
		regs[R_CX] = 1 + rnd() % 300;
		load(&p, regs);
		uint64_t t0 = m.cpu.icount;
		/* To the end, or to a limit somewhere inside. */
		uint64_t limit = (n & 2) ? 1 + rnd() % 2000 : 100000;
		m.cpu.icount_limit = t0 + limit;
		status_t st = cpu_run(&m.cpu);
		ck_assert(st == ST_HALT || st == ST_STOP);
		struct outcome blocks = finish(t0);
		/* An instruction limit stops the run exactly there. */
		if (st == ST_STOP)
			ck_assert_uint_eq(blocks.time, limit);
		uint64_t rip = m.cpu.rip;
		load(&p, regs);
		t0 = m.cpu.icount;
		status_t st1;
		do {
			m.cpu.icount_limit = m.cpu.icount + 1;
			st1 = cpu_run(&m.cpu);
		} while (st1 == ST_STOP && m.cpu.icount - t0 < blocks.time);
		ck_assert_int_eq(st1, st);
		struct outcome steps = finish(t0);
		for (unsigned r = 0; r < 16; r++)
			ck_assert_msg(blocks.regs[r] == steps.regs[r], "loop %u: register %u: blocks %llx, steps %llx",
				      n, r, (unsigned long long)blocks.regs[r], (unsigned long long)steps.regs[r]);
		ck_assert_msg(blocks.rflags == steps.rflags, "loop %u: rflags blocks %llx, steps %llx", n,
			      (unsigned long long)blocks.rflags, (unsigned long long)steps.rflags);
		ck_assert_uint_eq(blocks.time, steps.time);
		ck_assert_uint_eq(rip, m.cpu.rip);
	}
}

START_TEST(random_loops_32)
{
	unsigned long before = jit_runs_translated(m.cpu.icache);
	random_loops(false);
#if defined(__x86_64__)
	ck_assert_uint_gt(jit_runs_translated(m.cpu.icache) - before, 500);
#else
	(void)before;
#endif
}
END_TEST

START_TEST(random_loops_64)
{
	unsigned long before = jit_runs_translated(m.cpu.icache);
	random_loops(true);
#if defined(__x86_64__)
	ck_assert_uint_gt(jit_runs_translated(m.cpu.icache) - before, 500);
#else
	(void)before;
#endif
}
END_TEST

/* dec ecx (ZF = 1); jmp 1f; 1: mov eax, ebx; mov edx, eax; jnz 1b; hlt: the
 * loop's block sets no flag, so its JNZ reads the DEC's (taken never): not a
 * loop the translator closes in host code (no host flags to test). */
START_TEST(loop_reads_flags_from_before)
{
	static const uint8_t code[] = { 0xff, 0xc9, 0xeb, 0x00, 0x89, 0xd8, 0x89, 0xc2, 0x75, 0xfa, 0xf4 };
	physmem_write_bytes(&m.pm, 0x40000, code, sizeof(code));
	m.cpu.regs[R_BX] = 7;
	m.cpu.regs[R_CX] = 1;
	m.cpu.rip = 0x40000;
	uint64_t t0 = m.cpu.icount;
	m.cpu.icount_limit = t0 + 1000;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(m.cpu.icount - t0, 6);
	ck_assert_uint_eq(m.cpu.regs[R_DX], 7);
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
	tcase_add_test(t, loop_reads_flags_from_before);
	tcase_add_test(t, random_loops_32);
	tcase_add_test(t, random_loops_64);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(jit_suite());
}
