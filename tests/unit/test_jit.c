/* The translator (emu/jit.h) against the interpreter: random programs run
 * once as blocks (translated runs) and once one instruction at a time (the
 * exec forms, never translated). Registers, the flags as the SDM defines
 * them (the lazy record materialized), memory, rIP, time and the exception
 * that stops a program must agree, in 32-bit protected mode (data segments
 * with limits, expand-down, read-only, a wrap at 4 GiB) and in 64-bit mode
 * (a sparse page table).
 *
 * The programs' instructions (insn_of, the forms a run may hold and a
 * shift by CL, which ends one): MOV, ADD/OR/AND/SUB/XOR/CMP, TEST, ADC/SBB
 * between registers, ADD..CMP with an immediate; INC/DEC, NOT/NEG; SHL/SHR/
 * SAR by 1 or an immediate that may mask to 0; MOV of an immediate; SETcc and
 * CMOVcc (they read the flags an earlier instruction left); LEA; MOV loads
 * and stores of 8, 16, 32 and 64 bits (AH-BH without REX, SPL-DIL with
 * one); MOVZX/MOVSX/MOVSXD; IMUL r, r/m (, imm); ADD..CMP r, m, CMP m, r,
 * TEST m, r; PUSH/POP r. A memory operand has every address shape: base +
 * disp8/disp32, base + index * scale + disp (SIB), a displacement alone,
 * RIP-relative; 67H sometimes (32-bit addresses in 64-bit code, 16-bit ones
 * in 32-bit code), a segment override sometimes. 66H and REX (W, R, X, B, a
 * bare 40H) at random. Bases and indexes are mostly registers known to hold
 * a data address and a small value: most accesses hit the TLB, the others
 * cross a page or a limit, leave RAM, are non-canonical, and fault (side
 * exits and faults compared too).
 *
 *   random_programs_32 / _64   3,000 programs of 40 instructions each
 *   runs_translated            the programs above did run translated code
 *   loop_with_carry_chain      an INC/DEC keeps the CF of the run's earlier
 *                              instruction (SDM Vol.2 INC, DEC), read by ADC
 *                              after the run, in a loop that chains
 *   block_translated_when_hot  a block runs as its thread forms until its
 *                              jit_hot-th entry, translated from then on, the
 *                              same machine every time
 *   access_crossing_into_absent_page  a translated load and store whose
 *                              last bytes lie in a page not present: the
 *                              #PF at that page, as the interpreter's
 *   sib_access_crossing_into_absent_page  the same where index * scale takes
 *                              the access across
 *   compare_with_memory_source  a translated CMP r32, m32 whose flags
 *                              are read after the run: CF from the memory
 *                              operand, as the interpreter's
 *   user_access_to_supervisor_page  at CPL 3 a translated load of a
 *                              supervisor page is the interpreter's #PF
 *   access_beyond_segment_limit  a translated 32-bit load past DS's limit
 *                              whose page is cached: the interpreter's #GP
 *   sib_access_beyond_segment_limit  the same where index * scale takes the
 *                              load past the limit, with a base and without
 *   push_to_absent_page        a PUSH at CPL 0 whose stack page is not
 *                              present (or whose first bytes are not): #PF,
 *                              rSP as before it, as the interpreter's
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
 *                              body of the forms a run may hold, JNZ or JZ
 *                              back to the start: the loop runs inside the
 *                              host code), run to their end and stopped by an
 *                              instruction limit at a random point:
 *                              registers, flags, memory, rIP and time as the
 *                              single steps leave them
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

/* 40 instructions of at most 15 bytes (SDM Vol.2 2.3.11) and the HLT. */
struct program {
	uint8_t bytes[40 * INSN_MAX_LEN + 1];
	unsigned len;
};

static void b(struct program *p, unsigned v)
{
	p->bytes[p->len++] = (uint8_t)v;
}

/* The data the programs' memory accesses reach: 60000H-6FFFFH (in 32-bit
 * code, offsets 0-FFFFH of DS and SS; protected_segments). */
#define DATA 0x60000u
#define DATA_SIZE 0x10000u

/* ---- the random instructions ---- */

/* One instruction in parts, in the order SDM Vol.2 2.1 puts them: legacy
 * prefixes, REX, opcode, ModRM, SIB, displacement, immediate. */
struct parts {
	uint8_t seg;               /* a segment override prefix; 0: none */
	bool opsize;               /* 66H: 16-bit operands (REX.W wins, 2.2.1.2) */
	bool addrsize;             /* 67H: 32-bit addresses in 64-bit code, 16-bit ones in 32-bit code */
	unsigned rex;              /* 64-bit code: REX_W, REX_R, REX_X, REX_B */
	bool bare_rex;             /* a REX prefix (40H) even with no bit set */
	uint8_t op[2];
	unsigned op_len;
	uint8_t ea[7];             /* ModRM, SIB, displacement */
	unsigned ea_len;
	bool sib;                  /* ea has a SIB byte, whose index REX.X extends */
	uint64_t imm;              /* imm_len bytes of it */
	unsigned imm_len;
	uint8_t dst;               /* the register it writes, REG_NONE: none */
	bool dst_byte;             /* dst is a byte register: 4-7 without REX are AH CH DH BH */
	unsigned also_writes;      /* registers it writes besides dst (bit r: register r) */
};

enum { REX_B = 1, REX_X = 2, REX_R = 4, REX_W = 8 };

static void opcode(struct parts *x, unsigned op)
{
	x->op[x->op_len++] = (uint8_t)op;
}

static void ea_bytes(struct parts *x, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		x->ea[x->ea_len++] = (uint8_t)(v >> (8 * i));
}

static void immediate(struct parts *x, uint64_t v, unsigned len)
{
	x->imm = v;
	x->imm_len = len;
}

/* A general register: 0-15 in 64-bit code (bit 3 goes to a REX bit), 0-7
 * in 32-bit code. */
static unsigned any_reg(bool long_mode)
{
	return (unsigned)(rnd() & (long_mode ? 15 : 7));
}

/* 64-bit code: REX.W at random (64-bit operands). */
static void maybe_w(struct parts *x, bool long_mode)
{
	if (long_mode && (rnd() & 1))
		x->rex |= REX_W;
}

/* 66H one time in eight: 16-bit operands. */
static void maybe_16(struct parts *x)
{
	x->opsize = rnd() % 8 == 0;
}

/* What the generator knows of the registers where an instruction goes:
 * those that still hold what random_regs gave them, an address in the data
 * (in 32-bit code: its offset in DS) or a small value (bit r: register r). */
struct reg_kinds {
	unsigned address, small;
};

/* What an instruction is drawn for. */
struct draw {
	bool long_mode;
	unsigned at;               /* its offset in the program (RIP-relative targets) */
	struct reg_kinds known;
};

/* A register of set seven times in eight when set has one, else any. */
static unsigned addr_reg(unsigned set, bool long_mode)
{
	set &= long_mode ? 0xffff : 0xff;
	if (set == 0 || rnd() % 8 == 0)
		return any_reg(long_mode);
	unsigned k = (unsigned)(rnd() % (unsigned)__builtin_popcount(set)), r = 0;
	for (;; r++)
		if ((set >> r & 1) && k-- == 0)
			return r;
}

/* A 32-bit displacement next to a base register: near it mostly, else
 * anything. */
static uint32_t disp_near(void)
{
	return rnd() % 8 ? (uint32_t)(rnd() % 0x1000) - 0x800 : (uint32_t)rnd();
}

/* A displacement that is the whole address but an index: in the data (an
 * offset of the data segments in 32-bit code) mostly, else anything. */
static uint32_t disp_alone(bool long_mode)
{
	return rnd() % 8 ? (long_mode ? DATA : 0) + (uint32_t)(rnd() % DATA_SIZE) : (uint32_t)rnd();
}

/* ModRM.reg reg and a memory operand of a random shape (SDM Vol.2 2.1.5,
 * Tables 2-1 to 2-3): [base + disp8], [base + disp32], [base], [base +
 * index * scale + disp8/disp32/0] (SIB; index 4 without REX.X: none; base 5
 * with mod 0: no base, disp32), and [rIP + disp32] in 64-bit code (2.2.1.6,
 * aimed at the data) or [disp32] in 32-bit code; the address size
 * overridden (67H) one time in addrsize_1_in: 32-bit addresses in 64-bit code,
 * 16-bit ones (Table 2-1) in 32-bit code; a segment override one time in four
 * (each segment is its own in either mode: long_mode_sparse,
 * protected_segments). Bases and indexes are mostly registers still known to
 * hold a data address and a small value (addr_reg), else any: the accesses
 * reach the data, a page end, a limit, or fault. */
static void mem_operand(struct parts *x, unsigned reg, const struct draw *d, unsigned addrsize_1_in)
{
	static const uint8_t overrides[] = { 0x64, 0x65, 0x26, 0x36, 0x2e };
	if (rnd() % 4 == 0)
		x->seg = overrides[rnd() % sizeof(overrides)];
	x->addrsize = rnd() % addrsize_1_in == 0;
	x->rex |= reg & 8 ? REX_R : 0;
	reg &= 7;
	if (x->addrsize && !d->long_mode) {
		/* [BX+SI] ... [BX], each with no, an 8- or a 16-bit
		 * displacement; mod 0 r/m 6: disp16 alone. */
		unsigned mod = (unsigned)(rnd() % 3), rm = (unsigned)(rnd() & 7);
		ea_bytes(x, mod << 6 | reg << 3 | rm, 1);
		if (mod == 1)
			ea_bytes(x, rnd(), 1);
		else if (mod == 2 || rm == 6)
			ea_bytes(x, rnd(), 2);
		return;
	}
	unsigned shape = (unsigned)(rnd() % 8);
	if (shape == 7) {
		ea_bytes(x, reg << 3 | 5, 1);
		if (d->long_mode)
			ea_bytes(x, rnd() % 8 ? DATA - 0x40000 - d->at + rnd() % DATA_SIZE : rnd(), 4);
		else
			ea_bytes(x, disp_alone(false), 4);
		return;
	}
	unsigned base = addr_reg(d->known.address, d->long_mode);
	x->rex |= base & 8 ? REX_B : 0;
	if (shape < 4) {
		/* [base] with base 5 is [base + 0] (mod 0 would be shape 7). */
		unsigned mod = shape < 2 || (shape == 3 && (base & 7) == 5) ? 1 : shape == 2 ? 2 : 0;
		ea_bytes(x, mod << 6 | reg << 3 | (base & 7), 1);
		x->sib = (base & 7) == 4;
		if (x->sib)
			ea_bytes(x, 0x24, 1);            /* SIB: the base alone */
		if (mod == 1)
			ea_bytes(x, shape == 3 ? 0 : rnd(), 1);
		else if (mod == 2)
			ea_bytes(x, disp_near(), 4);
		return;
	}
	unsigned mod = (unsigned)(rnd() % 3), index = addr_reg(d->known.small, d->long_mode), scale = (unsigned)(rnd() & 3);
	x->rex |= index & 8 ? REX_X : 0;
	x->sib = true;
	ea_bytes(x, mod << 6 | reg << 3 | 4, 1);
	ea_bytes(x, scale << 6 | (index & 7) << 3 | (base & 7), 1);
	if (mod == 1)
		ea_bytes(x, rnd(), 1);
	else if (mod == 2)
		ea_bytes(x, disp_near(), 4);
	else if ((base & 7) == 5)
		ea_bytes(x, disp_alone(d->long_mode), 4);
}

/* ModRM.reg reg and the E operand: memory (mem_operand) or a register,
 * returned (REG_NONE for memory). */
static unsigned e_operand(struct parts *x, unsigned reg, const struct draw *d, bool mem)
{
	if (mem) {
		mem_operand(x, reg, d, 8);
		return REG_NONE;
	}
	unsigned rm = any_reg(d->long_mode);
	x->rex |= (reg & 8 ? REX_R : 0) | (rm & 8 ? REX_B : 0);
	ea_bytes(x, 0xc0 | (reg & 7) << 3 | (rm & 7), 1);
	return rm;
}

/* ADD OR AND SUB XOR CMP, TEST, MOV between registers (01-3B, 85, 89, 8B /r). */
static void gen_alu_rr(struct parts *x, const struct draw *d)
{
	static const uint8_t ops[] = { 0x01, 0x09, 0x21, 0x29, 0x31, 0x39, 0x03, 0x0b, 0x23, 0x2b, 0x33, 0x3b,
				       0x85, 0x89, 0x8b };
	unsigned op = ops[rnd() % sizeof(ops)], reg = any_reg(d->long_mode);
	maybe_w(x, d->long_mode);
	opcode(x, op);
	unsigned rm = e_operand(x, reg, d, false);
	x->dst = op == 0x39 || op == 0x3b || op == 0x85 ? REG_NONE : op & 2 ? reg : rm;
}

/* ADD OR AND SUB XOR CMP with an immediate: 83 /n ib, 81 /n id. */
static void gen_alu_ri(struct parts *x, const struct draw *d)
{
	static const uint8_t ext[] = { 0, 1, 4, 5, 6, 7 };
	unsigned e = ext[rnd() % sizeof(ext)];
	bool ib = rnd() % 3 != 0;
	maybe_w(x, d->long_mode);
	opcode(x, ib ? 0x83 : 0x81);
	unsigned rm = e_operand(x, e, d, false);
	immediate(x, rnd(), ib ? 1 : 4);
	x->dst = e == 7 ? REG_NONE : rm;
}

/* ADC, SBB between registers (11, 13, 19, 1B /r): they read CF. */
static void gen_adc_sbb(struct parts *x, const struct draw *d)
{
	static const uint8_t ops[] = { 0x11, 0x13, 0x19, 0x1b };
	unsigned op = ops[rnd() % sizeof(ops)], reg = any_reg(d->long_mode);
	maybe_w(x, d->long_mode);
	opcode(x, op);
	unsigned rm = e_operand(x, reg, d, false);
	x->dst = op & 2 ? reg : rm;
}

/* INC, DEC: FF /0, /1; in 32-bit code 40+r, 48+r too. */
static void gen_inc_dec(struct parts *x, const struct draw *d)
{
	if (!d->long_mode && rnd() % 3 == 0) {
		unsigned op = 0x40 + (unsigned)(rnd() & 15);
		opcode(x, op);
		x->dst = op & 7;
		return;
	}
	maybe_w(x, d->long_mode);
	opcode(x, 0xff);
	x->dst = (uint8_t)e_operand(x, (unsigned)(rnd() & 1), d, false);
}

/* SHL SHR SAR by 1 (D1 /n) or an immediate (C1 /n ib: 0, 32, 64 and counts
 * that mask to 0 too). */
static void gen_shift_imm(struct parts *x, const struct draw *d)
{
	static const uint8_t ext[] = { 4, 5, 7 };
	bool by_1 = rnd() % 3 == 0;
	maybe_w(x, d->long_mode);
	opcode(x, by_1 ? 0xd1 : 0xc1);
	x->dst = (uint8_t)e_operand(x, ext[rnd() % sizeof(ext)], d, false);
	if (!by_1) {
		unsigned c = (unsigned)(rnd() % 8);
		immediate(x, c == 0 ? 0 : c == 1 ? 32 : c == 2 ? 64 : rnd() % 70, 1);
	}
}

/* SHL SHR SAR by CL (D3 /n): not translated, a run ends there. */
static void gen_shift_cl(struct parts *x, const struct draw *d)
{
	static const uint8_t ext[] = { 4, 5, 7 };
	maybe_w(x, d->long_mode);
	opcode(x, 0xd3);
	x->dst = (uint8_t)e_operand(x, ext[rnd() % sizeof(ext)], d, false);
}

/* MOV r, imm (B8+r; imm64 with REX.W) and MOV r/m, imm32 (C7 /0, register). */
static void gen_mov_imm(struct parts *x, const struct draw *d)
{
	maybe_w(x, d->long_mode);
	if (rnd() & 1) {
		unsigned r = any_reg(d->long_mode);
		x->rex |= r & 8 ? REX_B : 0;
		opcode(x, 0xb8 + (r & 7));
		immediate(x, rnd(), x->rex & REX_W ? 8 : 4);
		x->dst = (uint8_t)r;
		return;
	}
	opcode(x, 0xc7);
	x->dst = (uint8_t)e_operand(x, 0, d, false);
	immediate(x, rnd(), 4);
}

/* NOT, NEG of a register (F7 /2, /3). */
static void gen_not_neg(struct parts *x, const struct draw *d)
{
	maybe_w(x, d->long_mode);
	opcode(x, 0xf7);
	x->dst = (uint8_t)e_operand(x, 2 + (unsigned)(rnd() & 1), d, false);
}

/* SETcc r8 (0F 90+cc): reads the flags. */
static void gen_setcc(struct parts *x, const struct draw *d)
{
	opcode(x, 0x0f);
	opcode(x, 0x90 + (unsigned)(rnd() & 15));
	x->dst = (uint8_t)e_operand(x, 0, d, false);
	x->dst_byte = true;
}

/* CMOVcc r, r/m (0F 40+cc /r): reads the flags; a memory source is read,
 * and a 32-bit destination written, whatever the condition (SDM Vol.2
 * CMOVcc). */
static void gen_cmov(struct parts *x, const struct draw *d)
{
	unsigned reg = any_reg(d->long_mode);
	maybe_w(x, d->long_mode);
	maybe_16(x);
	opcode(x, 0x0f);
	opcode(x, 0x40 + (unsigned)(rnd() & 15));
	e_operand(x, reg, d, rnd() & 1);
	x->dst = (uint8_t)reg;
}

/* MOV r, m and MOV m, r of 32 or 64 bits (8B, 89 /r). */
static void gen_mov_mem(struct parts *x, const struct draw *d)
{
	bool load = rnd() & 1;
	unsigned reg = any_reg(d->long_mode);
	maybe_w(x, d->long_mode);
	opcode(x, load ? 0x8b : 0x89);
	mem_operand(x, reg, d, 8);
	x->dst = load ? (uint8_t)reg : REG_NONE;
}

/* MOV of bytes (88, 8A /r) and words (66 89, 66 8B /r), to or from memory
 * mostly, else between registers. */
static void gen_mov_narrow(struct parts *x, const struct draw *d)
{
	bool word = rnd() & 1, load = rnd() & 1, mem = rnd() % 4 != 0;
	unsigned reg = any_reg(d->long_mode);
	x->opsize = word;
	opcode(x, (word ? 0x89 : 0x88) | (load ? 2 : 0));
	unsigned rm = e_operand(x, reg, d, mem);
	x->dst = (uint8_t)(load ? reg : rm);
	x->dst_byte = !word;
}

/* LEA r, m (8D /r): every address shape, 67H one time in three; it reads
 * no memory. */
static void gen_lea(struct parts *x, const struct draw *d)
{
	unsigned reg = any_reg(d->long_mode);
	maybe_w(x, d->long_mode);
	maybe_16(x);
	opcode(x, 0x8d);
	mem_operand(x, reg, d, 3);
	x->dst = (uint8_t)reg;
}

/* MOVZX, MOVSX r, r/m8 and r/m16 (0F B6, B7, BE, BF); in 64-bit code also
 * MOVSXD r, r/m32 (63 /r: REX.W r64; without it r32, r/m32). */
static void gen_movx(struct parts *x, const struct draw *d)
{
	static const uint8_t ops[] = { 0xb6, 0xb7, 0xbe, 0xbf };
	unsigned reg = any_reg(d->long_mode);
	if (d->long_mode && rnd() % 5 == 0) {
		if (rnd() % 4)
			x->rex |= REX_W;
		opcode(x, 0x63);
	} else {
		maybe_w(x, d->long_mode);
		maybe_16(x);
		opcode(x, 0x0f);
		opcode(x, ops[rnd() % sizeof(ops)]);
	}
	e_operand(x, reg, d, rnd() & 1);
	x->dst = (uint8_t)reg;
}

/* IMUL r, r/m (0F AF /r), IMUL r, r/m, imm8 (6B /r ib) and imm32 (69 /r id;
 * iw with 66H). */
static void gen_imul(struct parts *x, const struct draw *d)
{
	unsigned reg = any_reg(d->long_mode), form = (unsigned)(rnd() % 3);
	maybe_w(x, d->long_mode);
	maybe_16(x);
	if (form == 0)
		opcode(x, 0x0f);
	opcode(x, form == 0 ? 0xaf : form == 1 ? 0x6b : 0x69);
	e_operand(x, reg, d, rnd() & 1);
	if (form)
		immediate(x, rnd(), form == 1 ? 1 : x->opsize && !(x->rex & REX_W) ? 2 : 4);
	x->dst = (uint8_t)reg;
}

/* ADD OR AND SUB XOR CMP r, m (03-3B /r), CMP m, r (39), TEST m, r (85). */
static void gen_alu_mem(struct parts *x, const struct draw *d)
{
	static const uint8_t ops[] = { 0x03, 0x0b, 0x23, 0x2b, 0x33, 0x3b, 0x39, 0x85 };
	unsigned op = ops[rnd() % sizeof(ops)], reg = any_reg(d->long_mode);
	maybe_w(x, d->long_mode);
	maybe_16(x);
	opcode(x, op);
	mem_operand(x, reg, d, 8);
	x->dst = op == 0x39 || op == 0x3b || op == 0x85 ? REG_NONE : (uint8_t)reg;
}

/* PUSH r, POP r (50+r, 58+r; REX.B: R8-R15): 64 bits in 64-bit code
 * whatever REX.W, 16 with 66H one time in sixteen; POP rSP too (it takes
 * the popped value, SDM Vol.2 POP). */
static void gen_push_pop(struct parts *x, const struct draw *d)
{
	unsigned r = any_reg(d->long_mode);
	bool pop = rnd() & 1;
	x->rex |= r & 8 ? REX_B : 0;
	if (d->long_mode && rnd() % 4 == 0)
		x->rex |= REX_W;
	x->opsize = rnd() % 16 == 0;
	opcode(x, (pop ? 0x58 : 0x50) + (r & 7));
	x->dst = pop ? (uint8_t)r : REG_NONE;
	x->also_writes = 1u << R_SP;
}

/* The forms and how often each comes. in_runs: one of the forms a run may
 * hold (emu/jit.c): the loops' bodies are of these only. */
static const struct generator {
	void (*gen)(struct parts *x, const struct draw *d);
	unsigned weight;
	bool in_runs;
} generators[] = {
	{ gen_alu_rr, 6, true },
	{ gen_alu_ri, 3, true },
	{ gen_inc_dec, 2, true },
	{ gen_shift_imm, 3, true },
	{ gen_mov_imm, 2, true },
	{ gen_not_neg, 1, true },
	{ gen_adc_sbb, 2, true },
	{ gen_setcc, 1, true },
	{ gen_cmov, 2, true },
	{ gen_shift_cl, 1, false },
	{ gen_mov_mem, 4, true },
	{ gen_mov_narrow, 3, true },
	{ gen_lea, 3, true },
	{ gen_movx, 3, true },
	{ gen_imul, 2, true },
	{ gen_alu_mem, 3, true },
	{ gen_push_pop, 2, true },
};
#define GENERATORS (sizeof(generators) / sizeof(generators[0]))

/* Append x; returns the registers it writes (bit r: register r; AH-BH count
 * as their register 0-3). */
static unsigned emit(struct program *p, const struct parts *x, bool long_mode)
{
	unsigned at = p->len;
	ck_assert(long_mode || x->rex == 0);
	if (x->seg)
		b(p, x->seg);
	if (x->opsize)
		b(p, 0x66);
	if (x->addrsize)
		b(p, 0x67);
	bool has_rex = long_mode && (x->rex != 0 || x->bare_rex);
	if (has_rex)
		b(p, 0x40 | x->rex);
	for (unsigned i = 0; i < x->op_len; i++)
		b(p, x->op[i]);
	for (unsigned i = 0; i < x->ea_len; i++)
		b(p, x->ea[i]);
	for (unsigned i = 0; i < x->imm_len; i++)
		b(p, (unsigned)(x->imm >> (8 * i)));
	ck_assert_uint_le(p->len - at, INSN_MAX_LEN);
	unsigned writes = x->also_writes;
	if (x->dst != REG_NONE)
		writes |= 1u << (x->dst_byte && !has_rex && x->dst >= 4 ? x->dst - 4 : x->dst);
	return writes;
}

/* One random instruction at the end of p; translatable_only: of the in_runs
 * forms; known: what is known of the registers there, updated past it.
 * Returns the registers it writes (emit). */
static unsigned insn_of(struct program *p, bool long_mode, bool translatable_only, struct reg_kinds *known)
{
	unsigned total = 0;
	for (unsigned g = 0; g < GENERATORS; g++)
		total += !translatable_only || generators[g].in_runs ? generators[g].weight : 0;
	unsigned pick = (unsigned)(rnd() % total), g = 0;
	for (;; g++) {
		unsigned w = !translatable_only || generators[g].in_runs ? generators[g].weight : 0;
		if (pick < w)
			break;
		pick -= w;
	}
	struct parts x = { .dst = REG_NONE, .bare_rex = (rnd() & 3) == 0 };
	struct draw d = { .long_mode = long_mode, .at = p->len, .known = *known };
	generators[g].gen(&x, &d);
	/* Without a SIB byte REX.X is ignored (SDM Vol.2 2.2.1.2). */
	if (long_mode && !x.sib && rnd() % 8 == 0)
		x.rex |= REX_X;
	unsigned writes = emit(p, &x, long_mode);
	known->address &= ~writes;
	known->small &= ~writes;
	return writes;
}

/* ---- running a program both ways ---- */

/* The state each run starts from, the code in place: regs, rIP at the
 * program, and an arbitrary lazy record (what it leaves behind must not
 * matter but through CF). */
static void start(const uint64_t regs[16])
{
	memcpy(m.cpu.regs, regs, sizeof(m.cpu.regs));
	m.cpu.lazy = (struct lazy_flags){ .op = LAZY_ADD, .size = 2, .result = 1, .src1 = 0xffffffff, .src2 = 2 };
	m.cpu.rip = 0x40000;
	m.cpu.halted = false;
}

/* The program at 40000H, then start(): its page rewritten, so that the
 * blocks decoded from it before are dropped. */
static void load(const struct program *p, const uint64_t regs[16])
{
	/* The whole page: a store of the last program may have changed any of it. */
	static const uint8_t zero[PAGE_SIZE];
	physmem_write_bytes(&m.pm, 0x40000, zero, sizeof(zero));
	physmem_write_bytes(&m.pm, 0x40000, p->bytes, p->len);
	cpu_notify_phys_write(&m.cpu, 0x40000, PAGE_SIZE);
	start(regs);
}

struct outcome {
	status_t status;
	uint64_t regs[16], rflags, time, rip;
	struct event seen;
	uint8_t data[DATA_SIZE];
};

static struct outcome blocks, steps;
static struct event seen;

static void finish(struct outcome *o, status_t st, uint64_t t0)
{
	flags_materialize(&m.cpu);
	o->status = st;
	memcpy(o->regs, m.cpu.regs, sizeof(o->regs));
	o->rflags = m.cpu.rflags;
	o->time = m.cpu.icount - t0;
	o->rip = m.cpu.rip;
	o->seen = seen;
	physmem_read_bytes(&m.pm, DATA, o->data, DATA_SIZE);
}

/* Registers for a program: addresses in the data (some unaligned, some by a
 * page end), random values (outside RAM, non-canonical), small ones; returns
 * which are which. */
static struct reg_kinds random_regs(uint64_t regs[16], bool long_mode)
{
	uint64_t at = long_mode ? DATA : 0;      /* 32-bit: offsets in the segments */
	struct reg_kinds kinds = { 0, 0 };
	for (unsigned r = 0; r < 16; r++) {
		unsigned k = rnd() % 7;
		regs[r] = k < 3 ? at + 0x100 + rnd() % (DATA_SIZE - 0x200) : k == 3 ? at + 0x1000 * (1 + rnd() % 16) - 4
			: k == 4 ? rnd() & 0xff : k == 5 && !long_mode ? 0xc0000 + rnd() % DATA_SIZE : rnd();
		kinds.address |= (k < 4) << r;
		kinds.small |= (k == 4) << r;
	}
	return kinds;
}

/* From the state start() left, as blocks (translated runs): to the HLT, an
 * exception (stop_at_events) or limit instructions; into `blocks`. */
static void run_blocks(uint64_t limit)
{
	seen = (struct event){ .vector = 0xff };
	uint64_t t0 = m.cpu.icount;
	m.cpu.icount_limit = t0 + limit;
	status_t st = cpu_run(&m.cpu);
	ck_assert(st == ST_HALT || st == ST_STOP);
	finish(&blocks, st, t0);
	/* An instruction limit stops the run exactly there. */
	if (st == ST_STOP && blocks.seen.vector == 0xff)
		ck_assert_uint_eq(blocks.time, limit);
}

/* The same one instruction at a time (the exec forms, never translated);
 * into `steps`. */
static void run_steps(uint64_t limit)
{
	seen = (struct event){ .vector = 0xff };
	uint64_t t0 = m.cpu.icount;
	status_t st;
	do {
		m.cpu.icount_limit = m.cpu.icount + 1;
		st = cpu_run(&m.cpu);
	} while (st == ST_STOP && seen.vector == 0xff && m.cpu.icount - t0 < limit);
	finish(&steps, st, t0);
}

/* The two runs of program n left the same machine. */
static void assert_same(unsigned n)
{
	ck_assert_int_eq(steps.status, blocks.status);
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

/* Run the program as blocks, then again one instruction at a time, each
 * from the same registers and random data, and compare. */
static void run_both(const struct program *p, const uint64_t regs[16], uint64_t limit, unsigned n)
{
	static uint8_t data0[DATA_SIZE];
	for (unsigned i = 0; i < DATA_SIZE; i += 8) {
		uint64_t v = rnd();
		memcpy(data0 + i, &v, 8);
	}
	physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
	load(p, regs);
	run_blocks(limit);
	physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
	load(p, regs);
	run_steps(limit);
	assert_same(n);
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
	for (unsigned n = 0; n < 3000; n++) {
		uint64_t regs[16];
		struct reg_kinds known = random_regs(regs, long_mode);
		struct program p = { .len = 0 };
		for (unsigned i = 0; i < 40; i++)
			insn_of(&p, long_mode, false, &known);
		b(&p, 0xf4);
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

/* add eax, ebx; shl ecx, 5; hlt, run three times from 40000H with jit_hot
 * = 3: a block runs as its thread forms until its jit_hot-th entry, which
 * translates it (emu/jit.h jit_enter): the count of translated runs stays
 * after the first and second runs and grows at the third; each run leaves
 * the machine the single steps do. */
START_TEST(block_translated_when_hot)
{
	static const uint8_t code[] = { 0x01, 0xd8, 0xc1, 0xe1, 0x05, 0xf4 };
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	uint64_t regs[16] = { [R_AX] = 0x7fffffff, [R_BX] = 1, [R_CX] = 0x0c000001 };
	m.cpu.icache->jit_hot = 3;
	/* The single steps enter the block at 40000H too: rewriting the page
	 * after them drops it, and the first run below decodes it anew. */
	load(&p, regs);
	run_steps(100);
	ck_assert_int_eq(steps.status, ST_HALT);
	ck_assert_uint_eq(steps.regs[R_AX], 0x80000000u);
	ck_assert_uint_eq(steps.regs[R_CX], 0x80000020u);
	load(&p, regs);
	for (unsigned k = 1; k <= 3; k++) {
		unsigned long before = jit_runs_translated(m.cpu.icache);
		start(regs);
		run_blocks(100);
		assert_same(k);
#if defined(__x86_64__)
		if (k < 3)
			ck_assert_uint_eq(jit_runs_translated(m.cpu.icache), before);
		else
			ck_assert_uint_gt(jit_runs_translated(m.cpu.icache), before);
#else
		(void)before;
#endif
	}
	/* The fixture's setup sets 1 again for each case (machine_init_bare);
	 * this leaves no other value behind all the same. */
	m.cpu.icache->jit_hot = 1;
}
END_TEST

/* A loop closing its own block: a body of the forms a run may hold that
 * leave ECX alone (insn_of says which registers each writes: redrawn if
 * ECX, CL or CH), at most LOOP_BODY_MAX bytes so that the rel8 back reaches,
 * then DEC ECX; JNZ, or DEC ECX; MOV EDX, ECX; SHR EDX, 31; JZ (the loop
 * runs while ECX >= 0); then HLT. */
#define LOOP_BODY_MAX 112
static void loop_program(struct program *p, bool long_mode, bool jz, struct reg_kinds known)
{
	unsigned body = 1 + (unsigned)(rnd() % 12);
	for (unsigned i = 0; i < body; i++) {
		unsigned at = p->len;
		struct reg_kinds before = known;
		while (insn_of(p, long_mode, true, &known) & 1u << R_CX) {
			p->len = at;
			known = before;
		}
		if (p->len > LOOP_BODY_MAX) {
			p->len = at;
			break;
		}
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
		uint64_t regs[16];
		struct reg_kinds known = random_regs(regs, long_mode);
		regs[R_CX] = 1 + rnd() % 300;
		known.address &= ~(1u << R_CX);
		known.small &= ~(1u << R_CX);
		struct program p = { .len = 0 };
		loop_program(&p, long_mode, n & 1, known);
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

/* mov rdx, [rbx]; jmp $+2; add ecx, 1; mov rax, [rbx + rsi*8] (and the
 * same with mov rdx, [r12] and mov [r12 + r9*4 + 10h], eax: REX.X, REX.B)
 * in 64-bit code, the base in the data's last page, its page in the TLB, and
 * index * scale taking the access's last bytes into the page after the data,
 * not present: the #PF names that page (SDM Vol.3 4.7), as the
 * interpreter's, at the access, after the ADD. */
START_TEST(sib_access_crossing_into_absent_page)
{
	long_mode_sparse();
	stop_at_events(&m, &seen);
	static const uint8_t load_code[] = { 0x48, 0x8b, 0x13, 0xeb, 0x00, 0x83, 0xc1, 0x01,
					     0x48, 0x8b, 0x04, 0xf3, 0xf4 };
	static const uint8_t store_code[] = { 0x49, 0x8b, 0x14, 0x24, 0xeb, 0x00, 0x83, 0xc1, 0x01,
					      0x43, 0x89, 0x44, 0x8c, 0x10, 0xf4 };
	const uint8_t *codes[2] = { load_code, store_code };
	unsigned lens[2] = { sizeof(load_code), sizeof(store_code) };
	/* 8 bytes at the data's end - 4; 4 bytes at its end - 2. */
	uint64_t load_regs[16] = { [R_BX] = DATA + DATA_SIZE - 0x44, [R_SI] = 8 };
	uint64_t store_regs[16] = { [R_R12] = DATA + DATA_SIZE - 0x3e, [R_R9] = 11 };
	const uint64_t *regs[2] = { load_regs, store_regs };
	for (unsigned k = 0; k < 2; k++) {
		struct program p = { .len = lens[k] };
		memcpy(p.bytes, codes[k], lens[k]);
		run_both(&p, regs[k], 100, k);
		ck_assert_uint_eq(blocks.seen.vector, EXC_PF);
		ck_assert_uint_eq(blocks.seen.cr2, DATA + DATA_SIZE);
		ck_assert_uint_eq(blocks.seen.error_code, k ? PFEC_W : 0);
		ck_assert_uint_eq(blocks.rip, 0x40000 + lens[k] - (k ? 6 : 5));
		ck_assert_uint_eq(blocks.regs[R_CX], 1);
	}
}
END_TEST

/* mov [ebx], ecx; mov edx, [ebx]; jmp $+2; cmp eax, [ebx]; mov edx, eax;
 * hlt with EAX = 1, ECX = 2, in 32-bit and in 64-bit code (32-bit operands):
 * the CMP with a memory source, its page in the TLB, is the last flag setter
 * of its run, and the record the run leaves must have the memory operand as
 * its second source: CF = 1 (SDM Vol.2 CMP: the flags of EAX - m32, a
 * borrow), as the interpreter's. The random programs found a translator
 * whose record had EAX there (CF = 0; JB, ADC, SETcc or CMOVcc after the run
 * read it). */
START_TEST(compare_with_memory_source)
{
	static const uint8_t code[] = { 0x89, 0x0b, 0x8b, 0x13, 0xeb, 0x00, 0x3b, 0x03, 0x89, 0xc2, 0xf4 };
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	for (unsigned k = 0; k < 2; k++) {
		random_machine(k == 1);
		uint64_t regs[16] = { [R_AX] = 1, [R_CX] = 2, [R_BX] = k ? DATA + 0x100 : 0x100 };
		run_both(&p, regs, 100, k);
		ck_assert_int_eq(blocks.status, ST_HALT);
		ck_assert_uint_eq(blocks.rflags & FLAG_CF, FLAG_CF);
		ck_assert_uint_eq(blocks.regs[R_DX], 1);
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

/* mov edx, [ebx - 10h]; jmp $+2; add ecx, 1; mov eax, [ebx + esi*4 + 8]
 * (EBX = FFE0h, ESI = 6), and the same with mov eax, [esi*8 + 0] (mod 0,
 * SIB base 5: no base; ESI = 1FFFh), in 32-bit code: the load's last byte
 * (FFFBh) is past DS's limit (FFFAh) though its page is cached: #GP(0) at the
 * load (SDM Vol.3 5.3), as the interpreter's. */
START_TEST(sib_access_beyond_segment_limit)
{
	protected_segments();
	stop_at_events(&m, &seen);
	static const uint8_t based[] = { 0x8b, 0x53, 0xf0, 0xeb, 0x00, 0x83, 0xc1, 0x01, 0x8b, 0x44, 0xb3, 0x08, 0xf4 };
	static const uint8_t unbased[] = { 0x8b, 0x53, 0xf0, 0xeb, 0x00, 0x83, 0xc1, 0x01,
					   0x8b, 0x04, 0xf5, 0x00, 0x00, 0x00, 0x00, 0xf4 };
	const uint8_t *codes[2] = { based, unbased };
	unsigned lens[2] = { sizeof(based), sizeof(unbased) };
	uint64_t based_regs[16] = { [R_BX] = 0xffe0, [R_SI] = 6 };
	uint64_t unbased_regs[16] = { [R_BX] = 0xffe0, [R_SI] = 0x1fff };
	const uint64_t *regs[2] = { based_regs, unbased_regs };
	for (unsigned k = 0; k < 2; k++) {
		struct program p = { .len = lens[k] };
		memcpy(p.bytes, codes[k], lens[k]);
		run_both(&p, regs[k], 100, k);
		ck_assert_uint_eq(blocks.seen.vector, EXC_GP);
		ck_assert_uint_eq(blocks.seen.error_code, 0);
		ck_assert_uint_eq(blocks.rip, 0x40008);
		ck_assert_uint_eq(blocks.regs[R_CX], 1);
	}
}
END_TEST

/* add ecx, 1; push rbx; push r9; hlt in 64-bit code at CPL 0, RSP = the
 * data's start + 8 (the second push's page, below the data, is not present)
 * or + 12 (its first 4 bytes are in that page): #PF with W (SDM Vol.3 4.7) at
 * the first absent byte, RSP as after the first push (a fault leaves the
 * state from before the faulting instruction, SDM Vol.3 6.5), as the
 * interpreter's; the first push's value in the data. */
START_TEST(push_to_absent_page)
{
	long_mode_sparse();
	stop_at_events(&m, &seen);
	static const uint8_t code[] = { 0x83, 0xc1, 0x01, 0x53, 0x41, 0x51, 0xf4 };
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	for (unsigned k = 0; k < 2; k++) {
		uint64_t regs[16] = { [R_SP] = DATA + (k ? 12 : 8), [R_BX] = 0x1122334455667788ull, [R_R9] = 9 };
		run_both(&p, regs, 100, k);
		ck_assert_uint_eq(blocks.seen.vector, EXC_PF);
		ck_assert_uint_eq(blocks.seen.error_code, PFEC_W);
		ck_assert_uint_eq(blocks.seen.cr2, DATA - (k ? 4 : 8));
		ck_assert_uint_eq(blocks.rip, 0x40004);
		ck_assert_uint_eq(blocks.regs[R_SP], DATA + (k ? 4 : 0));
		ck_assert_uint_eq(blocks.regs[R_CX], 1);
		uint64_t pushed;
		memcpy(&pushed, blocks.data + (k ? 4 : 0), 8);
		ck_assert_uint_eq(pushed, 0x1122334455667788ull);
	}
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
	tcase_add_test(t, block_translated_when_hot);
	tcase_add_test(t, access_crossing_into_absent_page);
	tcase_add_test(t, sib_access_crossing_into_absent_page);
	tcase_add_test(t, compare_with_memory_source);
	tcase_add_test(t, user_access_to_supervisor_page);
	tcase_add_test(t, access_beyond_segment_limit);
	tcase_add_test(t, sib_access_beyond_segment_limit);
	tcase_add_test(t, push_to_absent_page);
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
