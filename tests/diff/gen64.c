/* The 64-bit run's generator: random sequences of real 64-bit code that hvemu
 * runs in 64-bit mode (epyc-lite) and the host natively: REX.W operand size,
 * R8-R15, SPL/BPL/SIL/DIL versus AH..BH, 32-bit writes zero-extending (SDM
 * Vol.1 3.4.1.1), RIP-relative and SIB edge cases (SDM Vol.2 2.2.1), the 67
 * prefix (32-bit addresses that wrap at 4 GiB), the SSE/SSE2 subset in
 * emu/isa/sse.isa on XMM0-15, and in a quarter of the cases the x87
 * (gen_x87.c).
 * Registers have roles so that every address is known (enc64.h).
 *
 * Flags: epyc-lite models AMD's choices where the SDM leaves a flag undefined
 * (measured on the same kind of host: see emu/shift.c, muldiv.c, bitops.c), so
 * all six status flags and DF are compared after every sequence; g->undef still
 * tracks which of them the SDM leaves undefined, only to label a mismatch.
 * Results the SDM leaves undefined (BSF/BSR of 0, SHLD/SHRD beyond 16 bits of a
 * 16-bit operand) are generated too, for the same reason. Faults are avoided
 * by construction as in gen32.c, except for the one gen_fault() may append.
 */
#include <string.h>

#include "tests/diff/enc64.h"

#define STACK_BUDGET 0x300u    /* bytes pushed at most */
#define DRIFT_BUDGET 0x380u    /* how far RSI/RDI may move */
#define RSI_BASE (DIFF_DATA_ADDR + 0x400u)
#define RDI_BASE (DIFF_DATA_ADDR + 0xa00u)

/* --- instruction families --- */

/* ADD OR ADC SBB AND SUB XOR CMP in all their forms. */
static void gen_alu(struct gen *g, bool reg_only)
{
	unsigned size = rand_size(g), op = pick(g, 8), form = reg_only ? pick(g, 2) : pick(g, 5);
	bool rexmode = pick_rexmode(g, size), w = size == 8;
	unsigned pfx = osize_pfx(g, size), reg = wreg(g, size, rexmode);
	struct rm rm;
	switch (form) {
	case 0:                                     /* r/m, r */
		rm = reg_only ? reg_rm(wreg(g, size, rexmode)) : dst_rm(g, size, rexmode, true);
		reg = rreg(g, size, rexmode);
		if (rm.mem && op != 7 && pick(g, 4) == 0)
			pfx |= P_LOCK;
		encode(g, pfx, w, force_rex(size, rexmode, reg, &rm), reg, op * 8 + (size == 1 ? 0 : 1), 1, &rm, 0, 0);
		break;
	case 1:                                     /* r, r/m */
		rm = reg_only ? reg_rm(rreg(g, size, rexmode)) : src_rm(g, size, rexmode);
		encode(g, pfx, w, force_rex(size, rexmode, reg, &rm), reg, op * 8 + (size == 1 ? 2 : 3), 1, &rm, 0, 0);
		break;
	case 2: case 3: {                           /* r/m, imm (80/81/83) */
		bool sx = size != 1 && pick(g, 2);
		rm = dst_rm(g, size, rexmode, true);
		if (rm.mem && op != 7 && pick(g, 4) == 0)
			pfx |= P_LOCK;
		unsigned il = size == 1 || sx ? 1 : size == 2 ? 2 : 4;
		encode(g, pfx, w, force_rex(size, rexmode, 0, &rm), op, size == 1 ? 0x80 : sx ? 0x83 : 0x81, 1, &rm,
		       rnd64(g), il);
		break;
	}
	default:                                    /* AL/AX/EAX/RAX, imm (imm32 sign-extended for RAX) */
		encode(g, pfx, w, false, 0, op * 8 + (size == 1 ? 4 : 5), 1, NULL, rnd64(g),
		       size == 1 ? 1 : size == 2 ? 2 : 4);
		break;
	}
	bool logic = op == 1 || op == 4 || op == 6;
	flags_written(g, logic ? ARITH & ~FLAG_AF : ARITH, logic ? FLAG_AF : 0);
}

static void gen_unary(struct gen *g)
{
	unsigned size = rand_size(g), op = pick(g, 5);
	bool rexmode = pick_rexmode(g, size);
	struct rm rm = dst_rm(g, size, rexmode, true);
	unsigned pfx = osize_pfx(g, size) | (rm.mem && op < 4 && pick(g, 4) == 0 ? P_LOCK : 0);
	bool fr = force_rex(size, rexmode, 0, &rm);
	switch (op) {
	case 0: case 1:                             /* INC/DEC: CF unaffected */
		encode(g, pfx, size == 8, fr, op, size == 1 ? 0xfe : 0xff, 1, &rm, 0, 0);
		flags_written(g, ARITH & ~FLAG_CF, 0);
		break;
	case 2: case 3:                             /* NOT, NEG */
		encode(g, pfx, size == 8, fr, op, size == 1 ? 0xf6 : 0xf7, 1, &rm, 0, 0);
		if (op == 3)
			flags_written(g, ARITH, 0);
		break;
	default:                                    /* TEST r/m, imm / r/m, r */
		if (pick(g, 2)) {
			encode(g, osize_pfx(g, size), size == 8, fr, 0, size == 1 ? 0xf6 : 0xf7, 1, &rm, rnd64(g),
			       size == 1 ? 1 : size == 2 ? 2 : 4);
		} else {
			unsigned reg = rreg(g, size, rexmode);
			encode(g, osize_pfx(g, size), size == 8, force_rex(size, rexmode, reg, &rm), reg,
			       size == 1 ? 0x84 : 0x85, 1, &rm, 0, 0);
		}
		flags_written(g, ARITH & ~FLAG_AF, FLAG_AF);
		break;
	}
}

/* ROL ROR RCL RCR SHL SHR SAL SAR by 1, imm8 or CL; counts beyond the width. */
static void gen_shift(struct gen *g)
{
	unsigned size = rand_size(g), op = pick(g, 8), form = pick(g, 3), count = pick(g, 80);
	bool rexmode = pick_rexmode(g, size);
	if (form == 2)
		mov_imm32(g, R_CX, count | (rnd(g) & 0xffffff00u));   /* CL: only its low bits count */
	struct rm rm;
	do
		rm = dst_rm(g, size, rexmode, true);
	while (form == 2 && !rm.mem && (rm.reg == R_CX || rm.reg == AH_BASE + 5));
	bool fr = force_rex(size, rexmode, 0, &rm);
	unsigned pfx = osize_pfx(g, size);
	if (form == 0)
		encode(g, pfx, size == 8, fr, op, size == 1 ? 0xc0 : 0xc1, 1, &rm, count, 1);
	else if (form == 1)
		encode(g, pfx, size == 8, fr, op, size == 1 ? 0xd0 : 0xd1, 1, &rm, 0, 0), count = 1;
	else
		encode(g, pfx, size == 8, fr, op, size == 1 ? 0xd2 : 0xd3, 1, &rm, 0, 0);
	/* SDM SAL/SAR/SHL/SHR: the count is masked to 5 bits, 6 with REX.W. */
	unsigned masked = count & (size == 8 ? 0x3f : 0x1f);
	if (!masked)
		return;
	uint32_t of = masked == 1 ? FLAG_OF : 0;
	if (op <= 3) {
		flags_written(g, FLAG_CF | of, FLAG_OF & ~of);
	} else {
		uint32_t cf = masked < size * 8 ? FLAG_CF : 0;
		flags_written(g, FLAG_SF | FLAG_ZF | FLAG_PF | cf | of, FLAG_AF | (FLAG_OF & ~of) | (FLAG_CF & ~cf));
	}
}

static void gen_shxd(struct gen *g)
{
	unsigned size = pick(g, 3) ? 8 : pick(g, 2) ? 4 : 2, count = pick(g, 70);
	bool cl = pick(g, 2);
	if (cl)
		mov_imm32(g, R_CX, count);
	struct rm rm;
	unsigned src;
	do {
		rm = dst_rm(g, size, true, true);
		src = sreg(g);
	} while (cl && (src == R_CX || (!rm.mem && rm.reg == R_CX)));
	encode(g, osize_pfx(g, size), size == 8, false, src, 0x0fa4 + (pick(g, 2) ? 8 : 0) + cl, 2, &rm, count, cl ? 0 : 1);
	unsigned masked = count & (size == 8 ? 0x3f : 0x1f);
	if (masked) {
		uint32_t of = masked == 1 ? FLAG_OF : 0;
		/* SDM SHLD/SHRD: a count beyond the operand size leaves all undefined. */
		if (masked > size * 8)
			flags_written(g, 0, ARITH);
		else
			flags_written(g, FLAG_CF | FLAG_SF | FLAG_ZF | FLAG_PF | of, FLAG_AF | (FLAG_OF & ~of));
	}
}

static void gen_mul(struct gen *g)
{
	unsigned size = rand_size(g);
	bool rexmode = pick_rexmode(g, size);
	unsigned pfx = osize_pfx(g, size), form = size == 1 ? 0 : pick(g, 3);
	if (form == 0) {                            /* MUL/IMUL r/m: rDX:rAX or AX */
		struct rm rm = src_rm(g, size, rexmode);
		encode(g, pfx, size == 8, force_rex(size, rexmode, 0, &rm), 4 + pick(g, 2), size == 1 ? 0xf6 : 0xf7,
		       1, &rm, 0, 0);
	} else if (form == 1) {                     /* IMUL r, r/m */
		struct rm rm = src_rm(g, size, true);
		encode(g, pfx, size == 8, false, dreg(g), 0x0faf, 2, &rm, 0, 0);
	} else {                                    /* IMUL r, r/m, imm8/imm32 */
		struct rm rm = src_rm(g, size, true);
		bool i8 = pick(g, 2);
		encode(g, pfx, size == 8, false, dreg(g), i8 ? 0x6b : 0x69, 1, &rm, rnd64(g), i8 ? 1 : size == 2 ? 2 : 4);
	}
	flags_written(g, FLAG_CF | FLAG_OF, FLAG_SF | FLAG_ZF | FLAG_AF | FLAG_PF);
}

/* DIV/IDIV with a divisor and a dividend chosen so the quotient fits. */
static void gen_div(struct gen *g)
{
	unsigned size = rand_size(g);
	bool sign = pick(g, 2);
	uint64_t m = size == 8 ? ~0ull : (1ull << (size * 8)) - 1;
	uint64_t d = rnd64(g) & (m >> 1) >> pick(g, size * 8 - 1);
	if (d == 0)
		d = 3;
	static const unsigned divregs[] = { R_BX, R_BP, R_R8, R_R9, R_R10, R_R11, R_R14 };
	unsigned dr = size == 1 ? R_BX : divregs[pick(g, 7)];
	mov_imm(g, dr, d | (rnd64(g) & ~m));
	if (size == 1) {
		if (sign)
			emit(g, 0x66), emit(g, 0x98);       /* CBW */
		else
			emit(g, 0x0f), emit(g, 0xb6), emit(g, 0xc0);   /* MOVZX EAX, AL */
	} else if (sign) {
		encode(g, osize_pfx(g, size), size == 8, false, 0, 0x99, 1, NULL, 0, 0);   /* CWD/CDQ/CQO */
	} else {
		/* rDX below the divisor: the quotient fits (SDM DIV: #DE if it does not). */
		mov_imm(g, R_DX, (rnd64(g) & m) % d | (rnd64(g) & ~m));
	}
	struct rm rm = reg_rm(dr);
	if (pick(g, 3) == 0) {
		/* The divisor from memory: store it first. */
		rm = mem_rm(g, size, 1, true, true);
		encode(g, osize_pfx(g, size), size == 8, false, dr, size == 1 ? 0x88 : 0x89, 1, &rm, 0, 0);
	}
	encode(g, osize_pfx(g, size), size == 8, false, sign ? 7 : 6, size == 1 ? 0xf6 : 0xf7, 1, &rm, 0, 0);
	flags_written(g, 0, ARITH);
}

static void gen_bits(struct gen *g)
{
	unsigned size = pick(g, 3) ? 8 : pick(g, 2) ? 4 : 2, op = pick(g, 4);
	switch (pick(g, 4)) {
	case 0: {                                   /* BT* r/m, imm8 */
		struct rm rm = dst_rm(g, size, true, true);
		unsigned pfx = osize_pfx(g, size) | (rm.mem && op && pick(g, 4) == 0 ? P_LOCK : 0);
		encode(g, pfx, size == 8, false, 4 + op, 0x0fba, 2, &rm, pick(g, 256), 1);
		break;
	}
	case 1: {                                   /* BT* r/m, r */
		struct rm rm = dst_rm(g, size, true, true);
		unsigned pfx = osize_pfx(g, size) | (rm.mem && op && pick(g, 4) == 0 ? P_LOCK : 0);
		unsigned off = sreg(g);
		if (rm.mem && pick(g, 2)) {
			/* A signed bit offset in -128..127 addresses up to 16 bytes below or
			 * above the operand (SDM Vol.2 BT: "bit offset ... -2^63 to 2^63-1"). */
			off = dreg(g);
			mov_imm(g, off, (uint64_t)(int64_t)((int)pick(g, 256) - 128));
		} else if (rm.mem) {
			off = R_R13;                        /* 0..63 */
		}
		encode(g, pfx, size == 8, false, off, 0x0fa3 + op * 8, 2, &rm, 0, 0);
		break;
	}
	case 2: {                                   /* BSF/BSR, sometimes of zero */
		unsigned src = dreg(g);
		if (pick(g, 4) == 0) {
			struct rm z = reg_rm(src);          /* XOR r32, r32: a zero source */
			encode(g, 0, false, false, src, 0x31, 1, &z, 0, 0);
			flags_written(g, ARITH & ~FLAG_AF, FLAG_AF);
		}
		struct rm rm = pick(g, 3) ? reg_rm(src) : mem_rm(g, size, 1, true, true);
		encode(g, osize_pfx(g, size), size == 8, false, dreg(g), pick(g, 2) ? 0x0fbc : 0x0fbd, 2, &rm, 0, 0);
		flags_written(g, FLAG_ZF, FLAG_CF | FLAG_OF | FLAG_SF | FLAG_AF | FLAG_PF);
		return;
	}
	default: {                                  /* BSWAP r32/r64 (16-bit: AMD clears it) */
		unsigned r = dreg(g), sz = pick(g, 8) ? (pick(g, 2) ? 8 : 4) : 2;
		encode(g, osize_pfx(g, sz), sz == 8, false, r, 0x0fc8 + (r & 7), 2, NULL, 0, 0);
		return;
	}
	}
	flags_written(g, FLAG_CF, FLAG_OF | FLAG_SF | FLAG_AF | FLAG_PF);
}

static void gen_cond(struct gen *g)
{
	unsigned cc = pick(g, 16);
	if (pick(g, 2)) {                           /* SETcc r/m8 */
		bool rexmode = pick(g, 2);
		struct rm rm = dst_rm(g, 1, rexmode, true);
		encode(g, 0, false, force_rex(1, rexmode, 0, &rm), 0, 0x0f90 + cc, 2, &rm, 0, 0);
	} else {                                    /* CMOVcc: a 32-bit one zero-extends even if false */
		unsigned size = pick(g, 4) ? (pick(g, 2) ? 8 : 4) : 2;
		struct rm rm = src_rm(g, size, true);
		encode(g, osize_pfx(g, size), size == 8, false, dreg(g), 0x0f40 + cc, 2, &rm, 0, 0);
	}
}

static void gen_xchg(struct gen *g)
{
	unsigned size = rand_size(g), op = pick(g, 4);
	bool rexmode = pick_rexmode(g, size);
	if (op == 3 && size != 1) {                 /* XCHG rAX, r: 90 alone is NOP, 41 90 is XCHG R8 */
		unsigned r = dreg(g);
		encode(g, osize_pfx(g, size), size == 8, false, r, 0x90 + (r & 7), 1, NULL, 0, 0);
		return;
	}
	struct rm rm = dst_rm(g, size, rexmode, true);
	unsigned reg = wreg(g, size, rexmode);
	unsigned pfx = osize_pfx(g, size) | (rm.mem && op != 3 && pick(g, 3) == 0 ? P_LOCK : 0);
	if (op == 2 && pick(g, 2)) {
		/* CMPXCHG: load the accumulator from DEST so the compare succeeds. */
		encode(g, osize_pfx(g, size), size == 8, force_rex(size, rexmode, 0, &rm), 0, size == 1 ? 0x8a : 0x8b, 1,
		       &rm, 0, 0);
	}
	uint32_t opc = op == 1 ? 0x0fc0 : op == 2 ? 0x0fb0 : 0x86;
	encode(g, pfx, size == 8, force_rex(size, rexmode, reg, &rm), reg, opc + (size == 1 ? 0 : 1),
	       op == 1 || op == 2 ? 2 : 1, &rm, 0, 0);
	if (op == 1 || op == 2)
		flags_written(g, ARITH, 0);             /* XADD: as ADD; CMPXCHG: as CMP */
}

static void gen_mov(struct gen *g)
{
	unsigned size = rand_size(g);
	bool rexmode = pick_rexmode(g, size);
	unsigned pfx = osize_pfx(g, size), reg;
	struct rm rm;
	switch (pick(g, 7)) {
	case 0:                                     /* MOV r/m, r */
		rm = dst_rm(g, size, rexmode, true);
		reg = rreg(g, size, rexmode);
		encode(g, pfx, size == 8, force_rex(size, rexmode, reg, &rm), reg, size == 1 ? 0x88 : 0x89, 1, &rm, 0, 0);
		break;
	case 1:                                     /* MOV r, r/m */
		rm = src_rm(g, size, rexmode);
		reg = wreg(g, size, rexmode);
		encode(g, pfx, size == 8, force_rex(size, rexmode, reg, &rm), reg, size == 1 ? 0x8a : 0x8b, 1, &rm, 0, 0);
		break;
	case 2:                                     /* MOV r/m, imm (imm32 sign-extended to 64) */
		rm = dst_rm(g, size, rexmode, true);
		encode(g, pfx, size == 8, force_rex(size, rexmode, 0, &rm), 0, size == 1 ? 0xc6 : 0xc7, 1, &rm,
		       rnd64(g), size == 1 ? 1 : size == 2 ? 2 : 4);
		break;
	case 3:                                     /* MOV r, imm: B0+r (SPL..DIL need REX), B8+r imm64 with REX.W */
		reg = wreg(g, size, rexmode);
		if (size == 1)
			encode(g, 0, false, rexmode && needs_rex(reg), reg, 0xb0 + (reg & 7), 1, NULL, rnd(g), 1);
		else
			encode(g, pfx, size == 8, false, reg, 0xb8 + (reg & 7), 1, NULL, rand_imm(g, size), size);
		break;
	case 4: {                                   /* MOV AL/rAX <-> moffs64 (moffs32 with 67) */
		bool a32 = pick(g, 3) == 0;
		uint32_t target = DIFF_DATA_ADDR + pick(g, 0x1f00);
		encode(g, pfx | (a32 ? P_67 : 0), size == 8, false, 0, (pick(g, 2) ? 0xa2 : 0xa0) + (size != 1), 1, NULL,
		       target, a32 ? 4 : 8);
		break;
	}
	case 5: {                                   /* MOVZX/MOVSX r, r/m8 or r/m16 */
		unsigned dsize = pick(g, 3) ? (pick(g, 2) ? 8 : 4) : 2, ssize = pick(g, 2) ? 1 : 2;
		bool rm_rex = ssize == 2 || dsize == 8 || pick(g, 2);
		static const unsigned low[] = { R_AX, R_CX, R_DX, R_BX, R_BP };
		reg = rm_rex ? dreg(g) : low[pick(g, 5)];
		rm = src_rm(g, ssize, rm_rex);
		encode(g, osize_pfx(g, dsize), dsize == 8, force_rex(ssize, rm_rex, 0, &rm), reg,
		       (pick(g, 2) ? 0x0fb6 : 0x0fbe) + (ssize == 2), 2, &rm, 0, 0);
		break;
	}
	default: {                                  /* MOVSXD r64, r/m32 (also r32 and r16 forms) */
		unsigned dsize = pick(g, 4) ? 8 : pick(g, 2) ? 4 : 2;
		rm = src_rm(g, 4, true);
		encode(g, osize_pfx(g, dsize), dsize == 8, false, dreg(g), 0x63, 1, &rm, 0, 0);
		break;
	}
	}
}

/* PUSH/POP in their 64-bit (default) and 16-bit (66) forms, CALL (a push of
 * RIP), PUSHF, ENTER/LEAVE. */
static void gen_stack(struct gen *g)
{
	unsigned size = pick(g, 5) ? 8 : 2, pfx = size == 2 ? P_66 : 0;   /* 64 bits by default */
	if (g->pushed >= size && pick(g, 2)) {
		if (pick(g, 3)) {
			unsigned r = dreg(g);
			encode(g, pfx, false, false, r, 0x58 + (r & 7), 1, NULL, 0, 0);
		} else {
			struct rm rm = mem_rm(g, size, 1, true, false);
			encode(g, pfx, false, false, 0, 0x8f, 1, &rm, 0, 0);
		}
		g->pushed -= size;
		return;
	}
	if (g->pushed + 0x50 > STACK_BUDGET)
		return;
	switch (pick(g, 7)) {
	case 0: case 1: {
		unsigned r = pick(g, 16);
		encode(g, pfx, false, false, r, 0x50 + (r & 7), 1, NULL, 0, 0);
		break;
	}
	case 2:
		encode(g, pfx, false, false, 0, 0x6a, 1, NULL, rnd(g), 1);
		break;
	case 3:
		encode(g, pfx, false, false, 0, 0x68, 1, NULL, rnd(g), size == 2 ? 2 : 4);
		break;
	case 4: {
		struct rm rm = mem_rm(g, size, 1, true, false);
		encode(g, pfx, false, false, 6, 0xff, 1, &rm, 0, 0);
		break;
	}
	case 5:
		if (pick(g, 2)) {
			encode(g, pfx, false, false, 0, 0x9c, 1, NULL, 0, 0);   /* PUSHF */
			break;
		}
		/* PUSH a flags image, POPF it: the status flags and DF (TF, AC and the
		 * system flags stay clear; IF stays set, which CPL 3 could not change). */
		encode(g, pfx, false, false, 0, 0x68, 1, NULL, FLAG_FIXED1 | FLAG_IF | (rnd(g) & (ARITH | FLAG_DF)),
		       size == 2 ? 2 : 4);
		encode(g, pfx, false, false, 0, 0x9d, 1, NULL, 0, 0);
		flags_written(g, ARITH, 0);
		return;
	default:
		if (pick(g, 2)) {
			emit(g, 0xe8), emit_imm(g, 0, 4);     /* CALL the next instruction */
			size = 8;
		} else {
			/* ENTER n, level then LEAVE: RBP saved, framed and restored; with a
			 * nesting level, ENTER copies level-1 frame pointers from below RBP,
			 * so RBP must point into the data (SDM Vol.2 ENTER). */
			unsigned level = pick(g, 3) ? 0 : 1 + pick(g, 4);
			if (level)
				mov_imm(g, R_BP, DIFF_DATA_ADDR + 0x400 + pick(g, 0x800));
			emit(g, 0xc8), emit_imm(g, pick(g, 64), 2), emit(g, level);
			emit(g, 0xc9);
			return;
		}
		break;
	}
	g->pushed += size;
}

static void gen_string(struct gen *g)
{
	static const uint8_t ops[] = { 0xa4, 0xa6, 0xaa, 0xac, 0xae };
	unsigned size = rand_size(g), o = ops[pick(g, 5)] + (size != 1), count = pick(g, 9);
	unsigned rep = pick(g, 3), moved = (rep ? count : 1) * size;
	if (g->drift + moved > DRIFT_BUDGET)
		return;
	g->drift += moved;
	bool a32 = pick(g, 4) == 0;
	if (a32)
		mov_imm(g, R_CX, rnd64(g) << 32 | count);   /* 67: ECX counts, RCX's upper half is not */
	else
		mov_imm32(g, R_CX, count);
	/* 67 addresses with ESI/EDI: set a bit in their upper halves first, see
	 * what the instruction leaves there (the written ones are zero-extended),
	 * copy both to data registers and make them pointers again. */
	bool dirty = a32 && pick(g, 2);
	if (dirty) {
		struct rm si = reg_rm(R_SI), di = reg_rm(R_DI);
		encode(g, 0, true, false, 5, 0x0fba, 2, &si, 32 + pick(g, 32), 1);   /* BTS RSI, imm8 */
		encode(g, 0, true, false, 5, 0x0fba, 2, &di, 32 + pick(g, 32), 1);
	}
	emit(g, pick(g, 2) ? 0xfc : 0xfd);              /* CLD / STD */
	if (pick(g, 8) == 0)
		emit(g, (const uint8_t[]){ 0x26, 0x2e, 0x36, 0x3e }[pick(g, 4)]);   /* ignored in 64-bit mode */
	unsigned pfx = osize_pfx(g, size) | (a32 ? P_67 : 0) | (rep == 1 ? P_F3 : rep == 2 ? P_F2 : 0);
	encode(g, pfx, size == 8, false, 0, o, 1, NULL, 0, 0);
	if (((o & 0xfe) == 0xa6 || (o & 0xfe) == 0xae) && (!rep || count))
		flags_written(g, ARITH, 0);
	if (dirty) {
		struct rm si = reg_rm(R_SI), di = reg_rm(R_DI);
		encode(g, 0, true, false, R_SI, 0x89, 1, &(struct rm){ .mod = 3, .rm = R_R8 & 7, .rexxb = 1 }, 0, 0);
		encode(g, 0, true, false, R_DI, 0x89, 1, &(struct rm){ .mod = 3, .rm = R_R9 & 7, .rexxb = 1 }, 0, 0);
		encode(g, 0, false, false, R_SI, 0x89, 1, &si, 0, 0);              /* MOV ESI, ESI */
		encode(g, 0, false, false, R_DI, 0x89, 1, &di, 0, 0);
	}
}

/* A forward branch over one register ALU instruction: Jcc rel8/rel32, JMP,
 * JRCXZ/JECXZ, LOOP/LOOPE/LOOPNE (67: ECX). */
static void gen_branch(struct gen *g)
{
	unsigned at, dl = 1, cc = pick(g, 16);
	if (pick(g, 4) == 0 && g->pushed + 0x50 <= STACK_BUDGET) {
		/* CALL a RET placed behind a JMP: by rel32, or by register via LEA of
		 * a RIP-relative address; RET imm16 also releases pushed bytes. */
		bool by_reg = pick(g, 2);
		unsigned r = dreg(g), imm = g->pushed >= 16 && pick(g, 2) ? 2 * pick(g, 8) : 0;
		bool rep_ret = !imm && pick(g, 4) == 0;   /* F3 C3, the AMD-recommended "rep ret" */
		unsigned ret_len = imm ? 3 : 1 + rep_ret, call_len = by_reg ? 2 + (r >> 3) : 5;
		if (by_reg) {
			/* LEA r, [RIP + disp32] to the RET: after this LEA come the CALL
			 * and the 2-byte JMP. */
			struct rm rip = { .mem = true, .mod = 0, .rm = 5, .disp_len = 4, .disp = call_len + 2 };
			encode(g, 0, true, false, r, 0x8d, 1, &rip, 0, 0);
			struct rm target = reg_rm(r);
			encode(g, 0, false, false, 2, 0xff, 1, &target, 0, 0);        /* CALL r64 */
		} else {
			emit(g, 0xe8), emit_imm(g, 2, 4);                              /* CALL over the JMP */
		}
		emit(g, 0xeb), emit(g, ret_len);                                     /* JMP over the RET */
		if (imm)
			emit(g, 0xc2), emit_imm(g, imm, 2);
		else if (rep_ret)
			emit(g, 0xf3), emit(g, 0xc3);
		else
			emit(g, 0xc3);
		g->pushed -= imm;
		return;
	}
	if (pick(g, 8) == 0) {
		/* JMP r64 / JMP [mem] over an instruction: the target from LEA. */
		unsigned r = dreg(g);
		struct rm mem = mem_rm(g, 8, 1, true, true), reg = reg_rm(r);
		bool via_mem = pick(g, 2);
		struct rm rip = { .mem = true, .mod = 0, .rm = 5, .disp_len = 4 };
		encode(g, 0, true, false, r, 0x8d, 1, &rip, 0, 0);                  /* LEA r, [RIP + disp32] */
		unsigned lea_end = g->len;
		if (via_mem)
			encode(g, 0, true, false, r, 0x89, 1, &mem, 0, 0);            /* MOV [mem], r */
		encode(g, 0, false, false, 4, 0xff, 1, via_mem ? &mem : &reg, 0, 0);
		uint32_t undef = g->undef;
		gen_alu(g, true);
		g->undef |= undef;
		uint32_t disp = g->len - lea_end;                                    /* the LEA's disp32 ends it */
		for (unsigned i = 0; i < 4; i++)
			g->code[lea_end - 4 + i] = (uint8_t)(disp >> (8 * i));
		return;
	}
	switch (pick(g, 5)) {
	case 0:
		if (pick(g, 8) == 0)
			emit(g, pick(g, 2) ? 0x2e : 0x3e);  /* a branch hint: no effect */
		emit(g, 0x70 + cc);
		break;
	case 1:
		if (pick(g, 8) == 0)
			emit(g, pick(g, 2) ? 0x2e : 0x3e);
		emit(g, 0x0f), emit(g, 0x80 + cc), dl = 4;
		break;
	case 2:
		emit(g, 0xeb);
		break;
	case 3: {
		bool a32 = pick(g, 2);
		if (pick(g, 2))
			mov_imm(g, R_CX, pick(g, 2) ? rnd64(g) << 32 : 0);
		if (a32)
			emit(g, 0x67);
		emit(g, 0xe3);
		break;
	}
	default:
		if (pick(g, 2))
			mov_imm(g, R_CX, (rnd64(g) << 32) | pick(g, 2));
		if (pick(g, 2))
			emit(g, 0x67);
		emit(g, 0xe0 + pick(g, 3));
		break;
	}
	at = g->len;
	emit_imm(g, 0, dl);
	uint32_t undef = g->undef;
	gen_alu(g, true);
	uint32_t rel = g->len - (at + dl);
	for (unsigned i = 0; i < dl; i++)
		g->code[at + i] = (uint8_t)(rel >> (8 * i));
	g->undef |= undef;                          /* either path may have run */
}

static void gen_misc(struct gen *g)
{
	switch (pick(g, 10)) {
	case 9: {
		/* Self-modifying code: MOV byte [RIP + disp32] into the immediate of
		 * an ALU instruction next or one further (SDM Vol.3 11.6: the store
		 * is seen by the instruction fetched after it). */
		unsigned at = g->len, op = pick(g, 8);
		emit(g, 0xc6), emit(g, 0x05), emit_imm(g, 0, 4), emit(g, rnd(g));
		unsigned end = g->len;
		if (pick(g, 2))
			gen_alu(g, true);
		emit(g, op * 8 + 4), emit(g, rnd(g));                  /* op AL, imm8 */
		uint32_t disp = (g->len - 1) - end;
		for (unsigned i = 0; i < 4; i++)
			g->code[at + 2 + i] = (uint8_t)(disp >> (8 * i));
		bool logic = op == 1 || op == 4 || op == 6;
		flags_written(g, logic ? ARITH & ~FLAG_AF : ARITH, logic ? FLAG_AF : 0);
		break;
	}
	case 0: case 1: {                           /* CBW/CWDE/CDQE, CWD/CDQ/CQO */
		unsigned size = pick(g, 3) ? (pick(g, 2) ? 8 : 4) : 2;
		encode(g, osize_pfx(g, size), size == 8, false, 0, 0x98 + pick(g, 2), 1, NULL, 0, 0);
		break;
	}
	case 2:
		switch (pick(g, 5)) {
		case 0: emit(g, 0xf8); flags_written(g, FLAG_CF, 0); break;    /* CLC */
		case 1: emit(g, 0xf9); flags_written(g, FLAG_CF, 0); break;    /* STC */
		case 2: emit(g, 0xf5); break;                                   /* CMC */
		case 3: emit(g, 0x9f); break;                                   /* LAHF (CPUID LahfSahf) */
		default: emit(g, 0x9e); flags_written(g, ARITH & ~FLAG_OF, 0); break;
		}
		break;
	case 3: case 4: {                           /* LEA of any address form */
		unsigned size = pick(g, 4) ? (pick(g, 2) ? 8 : 4) : 2;
		struct rm rm = any_rm(g);
		encode(g, osize_pfx(g, size), size == 8, false, dreg(g), 0x8d, 1, &rm, 0, 0);
		break;
	}
	case 5: {                                   /* NOP r/m: decoded, not accessed */
		struct rm rm = any_rm(g);
		encode(g, pick(g, 2) ? P_66 : 0, pick(g, 2), false, pick(g, 2) * 8, 0x0f1f, 2, &rm, 0, 0);
		break;
	}
	case 6:                                     /* XLAT: AL = [RBX + AL] */
		mov_imm(g, R_BX, DIFF_DATA_ADDR + pick(g, 0x1e00));
		encode(g, 0, pick(g, 2), false, 0, 0xd7, 1, NULL, 0, 0);
		break;
	default: {                                  /* CMPXCHG8B m64 / CMPXCHG16B m128 (16-aligned) */
		bool w = pick(g, 2);
		unsigned half = w ? 8 : 4;
		struct rm rm = mem_rm(g, 2 * half, w ? 16 : 1, true, true);
		if (pick(g, 2) && rm.disp_len) {
			/* Load rDX:rAX from the operand so the compare can succeed. */
			struct rm hi = rm;
			hi.disp += half, hi.target += half;
			encode(g, 0, w, false, R_AX, 0x8b, 1, &rm, 0, 0);
			encode(g, 0, w, false, R_DX, 0x8b, 1, &hi, 0, 0);
		}
		encode(g, pick(g, 4) ? 0 : P_LOCK, w, false, 1, 0x0fc7, 2, &rm, 0, 0);
		flags_written(g, FLAG_ZF, 0);
		break;
	}
	}
}

/* An instruction that faults, ending the case: the exception, its error code,
 * RIP and CR2, and the state at the fault are compared (a REP string
 * instruction faults after its completed iterations, SDM Vol.2 REP). */
static void gen_fault(struct gen *g)
{
	if (g->x87_on && pick(g, 3) == 0) {
		gen_x87_fault(g);
		return;
	}
	switch (pick(g, 10)) {
	case 0: {                                   /* #DE: divide by zero or a quotient too large */
		unsigned size = rand_size(g);
		static const unsigned divregs[] = { R_BX, R_BP, R_R8, R_R9, R_R10, R_R11, R_R14 };
		unsigned dr = size == 1 ? R_BX : divregs[pick(g, 7)];
		mov_imm(g, dr, pick(g, 2) ? 0 : 1);
		mov_imm(g, R_AX, rnd64(g));
		mov_imm(g, R_DX, rnd64(g) | 2);
		struct rm rm = reg_rm(dr);
		encode(g, osize_pfx(g, size), size == 8, false, 6 + pick(g, 2), size == 1 ? 0xf6 : 0xf7, 1, &rm, 0, 0);
		break;
	}
	case 1: {                                   /* #UD: opcodes invalid in 64-bit mode, UD2, misplaced LOCK */
		static const uint8_t ud[][3] = {
			{ 0x06 }, { 0x07 }, { 0x0e }, { 0x16 }, { 0x17 }, { 0x1e }, { 0x1f }, { 0x27 }, { 0x2f },
			{ 0x37 }, { 0x3f }, { 0x60 }, { 0x61 }, { 0xce }, { 0xd4, 0x0a }, { 0xd5, 0x0a }, { 0x0f, 0x0b },
			{ 0xf0, 0x01, 0xc0 }, { 0xf0, 0x8b, 0x06 }, { 0xf0, 0x90 }, { 0xf0, 0x0f, 0xa3 },
			{ 0x0f, 0xc7, 0xc8 }, { 0x8d, 0xc0 }, { 0x8e, 0xc8 }, { 0x0f, 0xb9, 0xc0 },   /* register forms */
			{ 0x0f, 0x34 },                     /* SYSENTER: #UD in long mode on AMD (APM3) */
		};
		static const uint8_t ud_len[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 3, 3, 2, 3,
						  3, 2, 2, 3, 2 };
		unsigned k = pick(g, sizeof(ud_len));
		for (unsigned i = 0; i < ud_len[k]; i++)
			emit(g, ud[k][i]);
		if (k == 20)
			emit(g, 0x06);                      /* LOCK BT [RSI], EAX: BT is not lockable */
		break;
	}
	case 2: {                                   /* #GP: a misaligned PXOR or CMPXCHG16B operand */
		struct rm rm = mem_rm(g, 32, 16, true, true);
		unsigned off = 1 + pick(g, 15);
		rm.disp += off, rm.target += off;
		if (rm.disp_len == 0)
			rm = reg_rm(0);                     /* no displacement to move: no fault either */
		if (pick(g, 2) || !rm.mem)
			encode(g, P_66, false, false, pick(g, 16), 0x0fef, 2, &rm, 0, 0);
		else
			encode(g, 0, true, false, 1, 0x0fc7, 2, &rm, 0, 0);
		break;
	}
	case 3: {                                   /* #GP: a non-canonical address (SDM Vol.3 3.3.7.1) */
		uint64_t a = (pick(g, 2) ? 0x0000800000000000ull : 0xffff7fff00000000ull) + pick(g, 0x1000);
		encode(g, 0, true, false, 0, 0xa1 + 2 * pick(g, 2), 1, NULL, a, 8);   /* MOV RAX <-> moffs64 */
		break;
	}
	case 4: {                                   /* #GP: LDMXCSR with a reserved bit */
		/* Not bit 17: MXCSR.MM on AMD processors with MisAlignSse (like the
		 * host; APM1 4.2.2), which epyc-lite does not report. */
		unsigned bit = 16 + pick(g, 15);
		struct rm rm = mem_rm(g, 4, 1, true, true);
		encode(g, 0, false, false, 0, 0xc7, 1, &rm, 0x1f80u | 1u << (bit + (bit >= 17)), 4);
		encode(g, 0, false, false, 2, 0x0fae, 2, &rm, 0, 0);
		break;
	}
	case 5: case 6: {                           /* #PF: reads and writes past the data pages */
		struct rm rm = { .mem = true, .mod = 0, .rm = 4, .has_sib = true, .sib = 0x25, .disp_len = 4,
				 .disp = 0x202000u + pick(g, 0x8000) };
		unsigned size = rand_size(g);
		if (pick(g, 2))
			rm.disp = 0x202000u - pick(g, size);   /* straddles the boundary */
		encode(g, osize_pfx(g, size), size == 8, false, dreg(g) & 7, (pick(g, 2) ? 0x88 : 0x8a) + (size != 1), 1,
		       &rm, 0, 0);
		break;
	}
	case 7: {                                   /* #PF in the middle of a REP MOVS/STOS */
		unsigned size = rand_size(g);
		mov_imm(g, R_DI, 0x202000u - size * (1 + pick(g, 8)));
		mov_imm32(g, R_CX, 9 + pick(g, 8));
		emit(g, 0xfc);
		encode(g, P_F3 | osize_pfx(g, size), size == 8, false, 0, (pick(g, 2) ? 0xa4 : 0xaa) + (size != 1), 1,
		       NULL, 0, 0);
		break;
	}
	case 8:                                     /* the stack: #PF below the mapped pages, #SS non-canonical */
		if (pick(g, 2))
			mov_imm(g, R_SP, (pick(g, 2) ? 0x202000u : 0x0000800000000000ull) + 8 * (2 + pick(g, 8)));
		else
			mov_imm(g, R_SP, (pick(g, 2) ? 0x20f000u : 0xffff7ffffffff000ull) + 8 * pick(g, 8));
		switch (pick(g, 4)) {
		case 0: emit(g, 0x50 + pick(g, 8)); break;                      /* PUSH */
		case 1: emit(g, 0x58 + pick(g, 4)); break;                      /* POP */
		case 2: emit(g, 0xe8), emit_imm(g, 0, 4); break;                /* CALL */
		default: emit(g, 0x9c); break;                                  /* PUSHF */
		}
		break;
	default:                                    /* #BP (INT3), #DB (INT1): traps, RIP after them */
		emit(g, pick(g, 2) ? 0xcc : 0xf1);
		break;
	}
}

static void gen_insn64(struct gen *g)
{
	if (g->x87_on && pick(g, 3) == 0) {
		gen_x87(g);
		return;
	}
	switch (pick(g, 36)) {
	case 0: case 1: case 2: case 3: case 4: gen_alu(g, false); break;
	case 5: case 6: gen_unary(g); break;
	case 7: case 8: case 9: gen_shift(g); break;
	case 10: gen_shxd(g); break;
	case 11: gen_mul(g); break;
	case 12: gen_div(g); break;
	case 13: case 14: gen_bits(g); break;
	case 15: case 16: gen_cond(g); break;
	case 17: case 18: gen_xchg(g); break;
	case 19: case 20: case 21: gen_mov(g); break;
	case 22: case 23: gen_stack(g); break;
	case 24: case 25: gen_string(g); break;
	case 26: gen_branch(g); break;
	case 27: case 28: gen_misc(g); break;
	default: gen_sse(g); break;
	}
}

/* Random bytes, a quarter of them from a small alphabet so that compares and
 * CMPXCHG sometimes find equal elements. */
static void fill(struct gen *g, uint8_t *p, unsigned n)
{
	bool small = pick(g, 4) == 0;
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(small ? pick(g, 3) : rnd(g));
}

uint32_t gen_case64(struct gen *g, struct diff_request *rq)
{
	memset(rq, 0, sizeof(*rq));
	rq->mode = DIFF_MODE64;
	for (unsigned r = 0; r < 16; r++) {
		switch (pick(g, 4)) {
		case 0: rq->in.regs[r] = (uint64_t)(int64_t)(int32_t)rnd(g); break;   /* sign-extended */
		case 1: rq->in.regs[r] = pick(g, 3) ? rnd(g) : 0; break;
		default: rq->in.regs[r] = rnd64(g); break;
		}
	}
	g->r12 = DIFF_DATA_ADDR + 0x100 + 16 * pick(g, 16);
	g->r13 = pick(g, 64);
	g->r15 = rnd64(g) << 32 | 0xf0000000u | (rnd(g) & 0x0ffffff0u);
	rq->in.regs[R_SP] = DIFF_STACK_TOP;
	rq->in.regs[R_SI] = RSI_BASE + pick(g, 0x100);
	rq->in.regs[R_DI] = RDI_BASE + pick(g, 0x100);
	rq->in.regs[R_R12] = g->r12;
	rq->in.regs[R_R13] = g->r13;
	rq->in.regs[R_R15] = g->r15;
	rq->in.rflags = FLAG_FIXED1 | FLAG_IF | (rnd(g) & (ARITH | FLAG_DF));
	rq->in.mxcsr = rand_mxcsr(g);
	/* A third of the XMM registers and data lines hold floating-point values. */
	for (unsigned x = 0; x < 16; x++)
		pick(g, 3) ? fill(g, rq->in.xmm[x], 16) : fill_fp(g, rq->in.xmm[x]);
	for (unsigned i = 0; i < DIFF_DATA_SIZE; i += 16) {
		switch (pick(g, 6)) {
		case 0: case 1: fill_fp(g, rq->in.data + i); break;
		case 2: fill_x87(g, rq->in.data + i); break;
		default: fill(g, rq->in.data + i, 16); break;
		}
	}
	g->code = rq->code;
	g->len = 0;
	g->undef = 0;
	g->pushed = 0;
	g->drift = 0;
	g->m64 = true;
	g->x87_unmask = true;
	g->x87_on = pick(g, 4) == 0;
	if (g->x87_on)
		gen_x87_start(g, rq);
	unsigned n = 1 + pick(g, SEQ_MAX);
	for (unsigned i = 0; i < n && g->len < DIFF_CODE_MAX - 160; i++)
		gen_insn64(g);
	if (pick(g, 6) == 0)
		gen_fault(g);
	rq->code_len = g->len;
	return g->undef;
}
