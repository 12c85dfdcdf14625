/* The translator (emu/jit.h) against the interpreter: random programs of the
 * register forms it translates (MOV, ADD/OR/AND/SUB/XOR/CMP with a register
 * or an immediate, TEST, INC/DEC, SHL/SHR/SAR by 1 or an immediate that may
 * mask to 0, MOV of an immediate) and, in 64-bit mode, 32/64-bit MOV loads
 * and stores at a register plus a displacement (in RAM, across a page, past
 * RAM, non-canonical: TLB hits, side exits and faults), mixed with
 * instructions that end a run or read the flags inside a block (ADC, SETC,
 * CMOVcc, a shift by CL), run once as blocks (translated runs) and once one
 * instruction at a time (the exec forms, never translated). Registers, the
 * flags as the SDM defines them (the lazy record materialized), memory, time
 * and the exception that stops a program must agree, in 32- and 64-bit mode.
 *
 *   random_programs_32 / _64   1,500 programs of 40 instructions each
 *   runs_translated            the programs above did run translated code
 *   loop_with_carry_chain      an INC/DEC keeps the CF of the run's earlier
 *                              instruction (SDM Vol.2 INC, DEC), read by ADC
 *                              after the run, in a loop that chains
 *   access_crossing_into_absent_page  a translated load and store whose
 *                              last bytes lie in a page not present: the
 *                              #PF at that page, as the interpreter's
 *   user_access_to_supervisor_page  at CPL 3 a translated load of a
 *                              supervisor page is the interpreter's #PF
 *   access_beyond_segment_limit  a translated 32-bit load past DS's limit
 *                              whose page is cached: the interpreter's #GP
 *   run_of_many_accesses       a run of 18 loads whose last is past DS's
 *                              limit: every check of every access can leave
 *   loop_reads_flags_from_before  a loop block that sets no flag is not
 *                              closed in host code: its JNZ reads flags
 *                              from before the block
 *   loop_with_store_after_its_flags  a store between the loop's last flag
 *                              setter and its JNZ: the loop is not closed on
 *                              the host's flags, which the store's TLB
 *                              lookup changes
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
#include "mmu/paging.h"
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
	unsigned reg = rnd() & 7, rm = rnd() & 7, pick = rnd() % (translatable_only ? 16 : 24);
	if (translatable_only && rnd() % 4 == 0)
		pick = 20;                                   /* a load or store */
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
	case 19:
		rex(p, long_mode, w, &reg, &rm);
		b(p, 0xd3);                                  /* shift by CL */
		b(p, 0xc0 | shift_ext[rnd() % 3] << 3 | (rm & 7));
		break;
	default:
		/* MOV r, [base + disp8] or MOV [base + disp8], r, sometimes with a
		 * segment override (their segments differ: long_mode_sparse,
		 * protected_segments) */
		if (rnd() % 4 == 0) {
			static const uint8_t overrides[] = { 0x64, 0x65, 0x26, 0x36, 0x2e };
			b(p, overrides[rnd() % 5]);
		}
		rex(p, long_mode, w, &reg, &rm);
		b(p, (rnd() & 1) ? 0x8b : 0x89);
		b(p, 0x40 | (reg & 7) << 3 | (rm & 7));
		if ((rm & 7) == 4)
			b(p, 0x24);                          /* SIB: the base alone */
		b(p, (unsigned)rnd());
		break;
	}
}

static void insn(struct program *p, bool long_mode)
{
	insn_of(p, long_mode, false);
}

static void load(const struct program *p, const uint64_t regs[16])
{
	/* The whole page: a store of the last program may have changed any of it. */
	static const uint8_t zero[PAGE_SIZE];
	physmem_write_bytes(&m.pm, 0x40000, zero, sizeof(zero));
	physmem_write_bytes(&m.pm, 0x40000, p->bytes, p->len);
	cpu_notify_phys_write(&m.cpu, 0x40000, PAGE_SIZE);
	memcpy(m.cpu.regs, regs, sizeof(m.cpu.regs));
	/* An arbitrary lazy record before the program: what it leaves behind
	 * must not matter but through CF. */
	m.cpu.lazy = (struct lazy_flags){ .op = LAZY_ADD, .size = 2, .result = 1, .src1 = 0xffffffff, .src2 = 2 };
	m.cpu.rip = 0x40000;
	m.cpu.halted = false;
}

/* The data the 64-bit programs' memory accesses reach: 60000H-6FFFFH. */
#define DATA 0x60000u
#define DATA_SIZE 0x10000u

struct outcome {
	uint64_t regs[16], rflags, time, rip;
	struct event seen;
	uint8_t data[DATA_SIZE];
};

static struct outcome blocks, steps;
static struct event seen;

static void finish(struct outcome *o, uint64_t t0)
{
	flags_materialize(&m.cpu);
	memcpy(o->regs, m.cpu.regs, sizeof(o->regs));
	o->rflags = m.cpu.rflags;
	o->time = m.cpu.icount - t0;
	o->rip = m.cpu.rip;
	o->seen = seen;
	physmem_read_bytes(&m.pm, DATA, o->data, DATA_SIZE);
}

/* Registers for a program: addresses in the data (some unaligned, some by a
 * page end), random values (outside RAM, non-canonical), small ones. */
static void random_regs(uint64_t regs[16], bool long_mode)
{
	uint64_t at = long_mode ? DATA : 0;      /* 32-bit: offsets in the segments */
	for (unsigned r = 0; r < 16; r++) {
		unsigned k = rnd() % 7;
		regs[r] = k < 3 ? at + 0x100 + rnd() % (DATA_SIZE - 0x200) : k == 3 ? at + 0x1000 * (1 + rnd() % 16) - 4
			: k == 4 ? rnd() & 0xff : k == 5 && !long_mode ? 0xc0000 + rnd() % DATA_SIZE : rnd();
	}
}

/* Run the loaded program as blocks, then again one instruction at a time,
 * to its HLT, an exception (stop_at_events) or the limit. */
static void run_both(const struct program *p, const uint64_t regs[16], uint64_t limit, unsigned n)
{
	static uint8_t data0[DATA_SIZE];
	for (unsigned i = 0; i < DATA_SIZE; i++)
		data0[i] = (uint8_t)rnd();
	physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
	load(p, regs);
	seen = (struct event){ .vector = 0xff };
	uint64_t t0 = m.cpu.icount;
	m.cpu.icount_limit = t0 + limit;
	status_t st = cpu_run(&m.cpu);
	ck_assert(st == ST_HALT || st == ST_STOP);
	finish(&blocks, t0);
	/* An instruction limit stops the run exactly there. */
	if (st == ST_STOP && blocks.seen.vector == 0xff)
		ck_assert_uint_eq(blocks.time, limit);
	physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
	load(p, regs);
	seen = (struct event){ .vector = 0xff };
	t0 = m.cpu.icount;
	status_t st1;
	do {
		m.cpu.icount_limit = m.cpu.icount + 1;
		st1 = cpu_run(&m.cpu);
	} while (st1 == ST_STOP && seen.vector == 0xff && m.cpu.icount - t0 < limit);
	ck_assert_int_eq(st1, st);
	finish(&steps, t0);
	for (unsigned r = 0; r < 16; r++)
		ck_assert_msg(blocks.regs[r] == steps.regs[r], "program %u: register %u: blocks %llx, steps %llx", n, r,
			      (unsigned long long)blocks.regs[r], (unsigned long long)steps.regs[r]);
	ck_assert_msg(blocks.rflags == steps.rflags, "program %u: rflags blocks %llx, steps %llx", n,
		      (unsigned long long)blocks.rflags, (unsigned long long)steps.rflags);
	ck_assert_uint_eq(blocks.time, steps.time);
	ck_assert_uint_eq(blocks.rip, steps.rip);
	ck_assert_uint_eq(blocks.seen.vector, steps.seen.vector);
	ck_assert_uint_eq(blocks.seen.error_code, steps.seen.error_code);
	ck_assert_uint_eq(blocks.seen.cr2, steps.seen.cr2);
	ck_assert_msg(!memcmp(blocks.data, steps.data, DATA_SIZE), "program %u: memory differs", n);
}

/* 64-bit mode with only the program's page and the data mapped (4 KiB pages
 * in a page table at 13000H; the rest not present): a store can reach
 * nothing the next run would see but those, which each run rewrites, and
 * stray accesses are page faults (side exits too). */
#define PT 0x13000u
static void long_mode_sparse(void)
{
	activate(&m);
	to64(&m);
	static const uint8_t zero[PAGE_SIZE];
	physmem_write_bytes(&m.pm, PT, zero, sizeof(zero));
	physmem_write(&m.pm, PT + (0x40000 >> 12) * 8, 8, 0x40000 | 3);
	for (uint32_t pa = DATA; pa < DATA + DATA_SIZE; pa += PAGE_SIZE)
		physmem_write(&m.pm, PT + (pa >> 12) * 8, 8, pa | 3);
	physmem_write(&m.pm, PD, 8, PT | 3);
	for (unsigned i = 1; i < 512; i++)
		physmem_write(&m.pm, PD + i * 8, 8, 0);
	tlb_flush_all(&m.cpu.tlb);
	m.cpu.seg[SR_FS].base = 0x800;
	m.cpu.seg[SR_GS].base = 0x40;
}

/* 32-bit code (paging off) whose data segments reach only the data or read
 * low memory: DS and SS based at the data with a limit (FFFAh) inside a page,
 * ES based so high that base + offset wraps at 4 GiB into the data (offsets
 * C0000H-CFFFFH), FS expand-down 1000H above it (offsets 8000H-FFFFH valid),
 * GS read-only, CS (flat, execute/read) reading low memory: out-of-limit
 * accesses and stores through GS or CS are #GP/#SS (SDM Vol.3 5.3), side
 * exits too; the wrap is SDM Vol.3 3.4's 32-bit linear address. */
static void protected_segments(void)
{
	struct cpu *c = &m.cpu;
	seg_load_descriptor(&c->seg[SR_DS], SEL_DATA, make_desc(DATA, 0xfffa, 0x93, 0x4));
	seg_load_descriptor(&c->seg[SR_SS], SEL_DATA, make_desc(DATA, 0xfffa, 0x93, 0x4));
	seg_load_descriptor(&c->seg[SR_ES], SEL_DATA, make_desc(DATA - 0xc0000, 0xcffff, 0x93, 0x4));
	seg_load_descriptor(&c->seg[SR_FS], SEL_DATA, make_desc(DATA - 0x7000, 0x7fff, 0x97, 0x0));
	seg_load_descriptor(&c->seg[SR_GS], SEL_DATA, make_desc(DATA, 0xffff, 0x91, 0x4));
}

/* The random programs' machine: 64-bit with the sparse page table, or 32-bit
 * with the data segments above; every exception stops the run. */
static void random_machine(bool long_mode)
{
	if (long_mode)
		long_mode_sparse();
	else
		protected_segments();
	stop_at_events(&m, &seen);
}

static void random_programs(bool long_mode)
{
	random_machine(long_mode);
	for (unsigned n = 0; n < 1500; n++) {
		struct program p = { .len = 0 };
		for (unsigned i = 0; i < 40; i++)
			insn(&p, long_mode);
		b(&p, 0xf4);
		uint64_t regs[16];
		random_regs(regs, long_mode);
		run_both(&p, regs, 1000, n);
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
	random_machine(long_mode);
	for (unsigned n = 0; n < 600; n++) {
		struct program p = { .len = 0 };
		loop_program(&p, long_mode, n & 1);
		uint64_t regs[16];
		random_regs(regs, long_mode);
		regs[R_CX] = 1 + rnd() % 300;
		/* To the end, or to a limit somewhere inside. */
		run_both(&p, regs, (n & 2) ? 1 + rnd() % 2000 : 100000, n);
	}
}

/* random_loops, and the translator met them (> 500 runs translated). */
static void random_loops_translated(bool long_mode)
{
	unsigned long before = jit_runs_translated(m.cpu.icache);
	random_loops(long_mode);
#if defined(__x86_64__)
	ck_assert_uint_gt(jit_runs_translated(m.cpu.icache) - before, 500);
#else
	(void)before;
#endif
}

START_TEST(random_loops_32)
{
	random_loops_translated(false);
}
END_TEST

START_TEST(random_loops_64)
{
	random_loops_translated(true);
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

/* 1: add eax, 1; dec ecx; mov [rbx], eax; jnz 1b; hlt (64-bit): the store's
 * host code comes between the DEC and the JNZ, so the loop is not closed in
 * host code on the host's flags; it still runs as many rounds. */
START_TEST(loop_with_store_after_its_flags)
{
	long_mode_sparse();
	static const uint8_t code[] = { 0x83, 0xc0, 0x01, 0xff, 0xc9, 0x89, 0x03, 0x75, 0xf7, 0xf4 };
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	uint64_t regs[16] = { [R_CX] = 50, [R_BX] = DATA + 0x100 };
	load(&p, regs);
	m.cpu.icount_limit = m.cpu.icount + 1000;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 50);
	ck_assert_uint_eq(m.cpu.regs[R_CX], 0);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA + 0x100, 4), 50);
}
END_TEST

/* mov rdx, [rbx - 8]; jmp $+2; add ecx, 1; mov rax, [rbx]; hlt (and the same
 * with mov [rbx], eax) with the access's last bytes in the page after the
 * data, not present, and its first page in the TLB (the first load filled
 * it): the translated run leaves before the access (mmu/tlb.h: the page of
 * the last byte is looked for) and the #PF names that page (SDM Vol.3 4.7),
 * as the interpreter's. */
START_TEST(access_crossing_into_absent_page)
{
	long_mode_sparse();
	stop_at_events(&m, &seen);
	static const uint8_t load_code[] = { 0x48, 0x8b, 0x53, 0xf8, 0xeb, 0x00, 0x83, 0xc1, 0x01, 0x48, 0x8b, 0x03, 0xf4 };
	static const uint8_t store_code[] = { 0x48, 0x8b, 0x53, 0xf8, 0xeb, 0x00, 0x83, 0xc1, 0x01, 0x89, 0x03, 0xf4 };
	const uint8_t *codes[2] = { load_code, store_code };
	unsigned lens[2] = { sizeof(load_code), sizeof(store_code) };
	for (unsigned k = 0; k < 2; k++) {
		struct program p = { .len = lens[k] };
		memcpy(p.bytes, codes[k], lens[k]);
		uint64_t regs[16] = { [R_BX] = DATA + DATA_SIZE - (k ? 2 : 4) };
		run_both(&p, regs, 100, k);
		ck_assert_uint_eq(blocks.seen.vector, EXC_PF);
		ck_assert_uint_eq(blocks.seen.cr2, DATA + DATA_SIZE);
		ck_assert_uint_eq(blocks.regs[R_CX], 1);
	}
}
END_TEST

/* At CPL 3 the translated access leaves for the interpreter (the user bank
 * and the alignment check are mem_fast's): a load from a supervisor page,
 * whose translation the supervisor bank holds from a CPL 0 run just before,
 * is a #PF with U/S (SDM Vol.3 4.6), as the interpreter's. */
START_TEST(user_access_to_supervisor_page)
{
	long_mode_sparse();
	stop_at_events(&m, &seen);
	/* The program's page user-accessible; the data supervisor-only. */
	physmem_write(&m.pm, PT + (0x40000 >> 12) * 8, 8, 0x40000 | 7);
	physmem_write(&m.pm, PML4, 8, PDPT | 7);
	physmem_write(&m.pm, PDPT, 8, PD | 7);
	physmem_write(&m.pm, PD, 8, PT | 7);
	tlb_flush_all(&m.cpu.tlb);
	static const uint8_t code[] = { 0x83, 0xc1, 0x01, 0x48, 0x8b, 0x03, 0xf4 };  /* add ecx, 1; mov rax, [rbx] */
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	uint64_t regs[16] = { [R_BX] = DATA + 0x100 };
	run_both(&p, regs, 100, 0);
	ck_assert_uint_eq(blocks.seen.vector, 0xff);             /* CPL 0: read */
	ck_assert_ptr_nonnull(tlb_lookup(&m.cpu.tlb, TLB_SUPERVISOR, TLB_READ, DATA + 0x100, 8));
	m.cpu.cpl = 3;
	m.cpu.seg[SR_CS].selector |= 3;
	run_both(&p, regs, 100, 1);
	ck_assert_uint_eq(blocks.seen.vector, EXC_PF);
	ck_assert_uint_eq(blocks.seen.error_code, PFEC_P | PFEC_U);
	ck_assert_uint_eq(blocks.seen.cr2, DATA + 0x100);
	ck_assert_uint_eq(blocks.rip, 0x40003);                  /* the load, after the ADD */
}
END_TEST

/* mov edx, [ebx - 10h]; jmp $+2; add ecx, 1; mov eax, [ebx]; hlt in 32-bit
 * code, EBX = FFF8h: the load's last byte is past DS's limit (FFFAh) though
 * its page is cached: #GP(0) at the load (SDM Vol.3 5.3), as the
 * interpreter's. */
START_TEST(access_beyond_segment_limit)
{
	protected_segments();
	stop_at_events(&m, &seen);
	static const uint8_t code[] = { 0x8b, 0x53, 0xf0, 0xeb, 0x00, 0x83, 0xc1, 0x01, 0x8b, 0x03, 0xf4 };
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	uint64_t regs[16] = { [R_BX] = 0xfff8 };
	run_both(&p, regs, 100, 0);
	ck_assert_uint_eq(blocks.seen.vector, EXC_GP);
	ck_assert_uint_eq(blocks.seen.error_code, 0);
	ck_assert_uint_eq(blocks.rip, 0x40008);
	ck_assert_uint_eq(blocks.regs[R_CX], 1);
}
END_TEST

/* mov edx, [ebx - 10h]; jmp $+2; then 17 x mov eax, [ebx]; mov eax, [ecx];
 * hlt in 32-bit code, ECX = FFF8h: a run of 18 accesses (as many as its
 * slot holds), each with six checks that may leave it, and the last load
 * past DS's limit: #GP(0) there, as the interpreter's. */
START_TEST(run_of_many_accesses)
{
	protected_segments();
	stop_at_events(&m, &seen);
	struct program p = { .len = 0 };
	static const uint8_t head[] = { 0x8b, 0x53, 0xf0, 0xeb, 0x00 };
	memcpy(p.bytes, head, sizeof(head));
	p.len = sizeof(head);
	for (unsigned i = 0; i < 17; i++) {
		b(&p, 0x8b);
		b(&p, 0x03);
	}
	b(&p, 0x8b);
	b(&p, 0x01);
	b(&p, 0xf4);
	uint64_t regs[16] = { [R_BX] = 0x100, [R_CX] = 0xfff8 };
	run_both(&p, regs, 100, 0);
	ck_assert_uint_eq(blocks.seen.vector, EXC_GP);
	ck_assert_uint_eq(blocks.rip, 0x40000 + sizeof(head) + 2 * 17);
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
	tcase_add_test(t, access_crossing_into_absent_page);
	tcase_add_test(t, user_access_to_supervisor_page);
	tcase_add_test(t, access_beyond_segment_limit);
	tcase_add_test(t, run_of_many_accesses);
	tcase_add_test(t, loop_reads_flags_from_before);
	tcase_add_test(t, loop_with_store_after_its_flags);
	tcase_add_test(t, random_loops_32);
	tcase_add_test(t, random_loops_64);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(jit_suite());
}
