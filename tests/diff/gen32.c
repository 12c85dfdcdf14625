/* The 32-bit run's generator: random user-mode integer, SSE/SSE2 and (a
 * quarter of the cases, gen_x87.c) x87 sequences that hvemu runs in flat
 * 32-bit protected mode and the host in 64-bit mode.
 *
 * Why the host runs the bytes in 64-bit mode: this test's hosts may have no IA-32
 * emulation (a -m32 executable fails with ENOEXEC, a far jump to the compat code
 * segment 0x23 faults), so the generator only emits encodings whose 64-bit
 * meaning equals their 32-bit one on registers with zero upper halves: 32-bit
 * operations zero-extend (SDM Vol.1 3.4.1.1) and only the low 32 bits are
 * compared; no 40-4F (REX in 64-bit mode: INC/DEC use FE/FF), no 67 prefix,
 * PUSH/POP only in their 16-bit (66) forms, whose stack effect is 2 bytes in
 * both modes; all addresses lie below 4 GiB.
 *
 * The generator tracks which status flags are undefined (SDM Vol.1 Appendix A
 * and each instruction's "Flags Affected"): an instruction that defines a flag
 * clears its bit, one that leaves it undefined sets it; flags still undefined at
 * the end are not compared, and before an instruction that reads flags (ADC,
 * SBB, RCL/RCR, SETcc, CMOVcc, CMC, LAHF) a CMP makes them all defined again.
 * Faults are avoided by construction: DIV/IDIV get a non-zero divisor and a
 * dividend that fits, memory operands stay in the scratch page ([ESI/EDI+d8],
 * string instructions with ECX <= 8), BSF/BSR sources are made non-zero, and
 * POP never pops more than was pushed.
 */
#include <string.h>

#include "tests/diff/gen.h"

/* Data registers: everything but ESP (stack), ESI/EDI (scratch pointers). */
static const unsigned data_regs[] = { R_AX, R_CX, R_DX, R_BX, R_BP };
static unsigned data_reg(struct gen *g) { return data_regs[pick(g, 5)]; }
/* For byte operands all eight byte registers (AL..BH) are parts of data regs. */
static unsigned reg_for(struct gen *g, unsigned size) { return size == 1 ? pick(g, 8) : data_reg(g); }

static unsigned rand_size(struct gen *g)
{
	static const unsigned s[] = { 1, 2, 4, 4 };
	return s[pick(g, 4)];
}
/* 66 for 16-bit operands. */
static void osize_prefix(struct gen *g, unsigned size)
{
	if (size == 2)
		emit(g, 0x66);
}

/* ModRM for an r/m operand: a register, or [ESI+d8]/[EDI+d8] inside the scratch
 * page. reg is the ModRM.reg field. */
static void emit_rm(struct gen *g, unsigned reg, unsigned size, bool allow_mem, bool *is_mem)
{
	bool mem = allow_mem && pick(g, 3) == 0;
	if (is_mem)
		*is_mem = mem;
	if (mem) {
		emit(g, 0x40 | (reg << 3) | (pick(g, 2) ? 6 : 7));
		emit(g, pick(g, 120));
	} else {
		emit(g, 0xc0 | (reg << 3) | reg_for(g, size));
	}
}

/* Make every status flag defined before an instruction that reads flags. */
static void define_flags(struct gen *g)
{
	if (g->undef) {
		emit(g, 0x39);                         /* CMP r/m32, r32 */
		emit(g, 0xc0 | (data_reg(g) << 3) | data_reg(g));
		g->undef = 0;
	}
}

static void mov_reg_imm(struct gen *g, unsigned reg, unsigned size, uint32_t v)
{
	osize_prefix(g, size);
	emit(g, (size == 1 ? 0xb0 : 0xb8) + reg);
	emit_imm(g, v, size);
}

/* SSE/SSE2 on XMM0-7 (no REX: the same in both modes). Memory operands are
 * [ESI/EDI+d8], of unknown alignment, so only for the forms that allow any
 * address; the others use registers (SDM Vol.1 11.4.1). MXCSR keeps the
 * case's random RC, DAZ, FTZ and flags with every exception masked (a #XM
 * would end the run: the 32-bit run has no exception handlers). */
enum {
	MEM = 1,       /* r/m may be memory */
	GPR = 2,       /* r/m is a GPR when a register */
	IMM = 4,       /* imm8 */
	GREG = 8,      /* ModRM.reg is a GPR (r/m the xmm source) */
	DIGIT = 16,    /* ModRM.reg is the digit, r/m the xmm operand */
	PRED = 32,     /* imm8 is a CMPcc predicate (0-7) */
	FLAGS = 64,    /* writes ZF PF CF, clears OF SF AF ((U)COMIS*) */
	COUNT = 128,   /* shift by xmm: the count is loaded into r/m first */
};
#define DIG(n) (DIGIT | IMM | (n) << 8)  /* the digit in bits 10:8 */
static const struct sse32_op { uint8_t pfx, op; uint16_t how; } sse32_ops[] = {
	{ 0, 0x10, MEM }, { 0, 0x11, MEM }, { 0x66, 0x10, MEM }, { 0x66, 0x11, MEM },   /* MOVUPS/PD */
	{ 0xf3, 0x6f, MEM }, { 0xf3, 0x7f, MEM },                                     /* MOVDQU */
	{ 0xf3, 0x10, MEM }, { 0xf3, 0x11, MEM }, { 0xf2, 0x10, MEM }, { 0xf2, 0x11, MEM }, /* MOVSS/SD */
	{ 0x66, 0x6e, MEM | GPR }, { 0x66, 0x7e, MEM | GPR },                         /* MOVD */
	{ 0xf3, 0x7e, MEM }, { 0x66, 0xd6, MEM },                                     /* MOVQ */
	{ 0, 0x28, 0 }, { 0x66, 0x29, 0 }, { 0x66, 0x6f, 0 },                         /* MOVAPS/PD, MOVDQA */
	{ 0, 0x54, 0 }, { 0, 0x55, 0 }, { 0x66, 0x56, 0 }, { 0, 0x57, 0 },
	{ 0x66, 0xdb, 0 }, { 0x66, 0xdf, 0 }, { 0x66, 0xeb, 0 }, { 0x66, 0xef, 0 },
	/* packed integer: compares, add/subtract (wrapping and saturating),
	 * min/max, averages, multiplies, PMADDWD, PSADBW, packs, unpacks */
	{ 0x66, 0x74, 0 }, { 0x66, 0x75, 0 }, { 0x66, 0x76, 0 }, { 0x66, 0x64, 0 }, { 0x66, 0x65, 0 }, { 0x66, 0x66, 0 },
	{ 0x66, 0xfc, 0 }, { 0x66, 0xfd, 0 }, { 0x66, 0xfe, 0 }, { 0x66, 0xd4, 0 },
	{ 0x66, 0xf8, 0 }, { 0x66, 0xf9, 0 }, { 0x66, 0xfa, 0 }, { 0x66, 0xfb, 0 },
	{ 0x66, 0xec, 0 }, { 0x66, 0xed, 0 }, { 0x66, 0xdc, 0 }, { 0x66, 0xdd, 0 },
	{ 0x66, 0xe8, 0 }, { 0x66, 0xe9, 0 }, { 0x66, 0xd8, 0 }, { 0x66, 0xd9, 0 },
	{ 0x66, 0xda, 0 }, { 0x66, 0xde, 0 }, { 0x66, 0xea, 0 }, { 0x66, 0xee, 0 }, { 0x66, 0xe0, 0 }, { 0x66, 0xe3, 0 },
	{ 0x66, 0xd5, 0 }, { 0x66, 0xe5, 0 }, { 0x66, 0xe4, 0 }, { 0x66, 0xf4, 0 }, { 0x66, 0xf5, 0 }, { 0x66, 0xf6, 0 },
	{ 0x66, 0x63, 0 }, { 0x66, 0x67, 0 }, { 0x66, 0x6b, 0 },
	{ 0x66, 0x60, 0 }, { 0x66, 0x61, 0 }, { 0x66, 0x62, 0 }, { 0x66, 0x6c, 0 },
	{ 0x66, 0x68, 0 }, { 0x66, 0x69, 0 }, { 0x66, 0x6a, 0 }, { 0x66, 0x6d, 0 },
	/* shifts by xmm and by imm8, byte shifts */
	{ 0x66, 0xd1, COUNT }, { 0x66, 0xd2, COUNT }, { 0x66, 0xd3, COUNT }, { 0x66, 0xe1, COUNT },
	{ 0x66, 0xe2, COUNT }, { 0x66, 0xf1, COUNT }, { 0x66, 0xf2, COUNT }, { 0x66, 0xf3, COUNT },
	{ 0x66, 0x71, DIG(2) }, { 0x66, 0x71, DIG(4) }, { 0x66, 0x71, DIG(6) },
	{ 0x66, 0x72, DIG(2) }, { 0x66, 0x72, DIG(4) }, { 0x66, 0x72, DIG(6) },
	{ 0x66, 0x73, DIG(2) }, { 0x66, 0x73, DIG(3) }, { 0x66, 0x73, DIG(6) },
	{ 0x66, 0x73, DIG(7) },
	{ 0x66, 0xd7, GREG },                                                           /* PMOVMSKB */
	{ 0x66, 0xc5, GREG | IMM }, { 0x66, 0xc4, MEM | GPR | IMM },                   /* PEXTRW, PINSRW */
	{ 0x66, 0xf7, 0 },                                                              /* MASKMOVDQU [EDI] */
	{ 0, 0xc6, IMM }, { 0x66, 0xc6, IMM }, { 0x66, 0x70, IMM }, { 0xf3, 0x70, IMM }, { 0xf2, 0x70, IMM },
	/* floating point: packed forms on registers, scalar forms also on memory */
	{ 0, 0x51, 0 }, { 0x66, 0x51, 0 }, { 0xf3, 0x51, MEM }, { 0xf2, 0x51, MEM },
	{ 0, 0x58, 0 }, { 0x66, 0x58, 0 }, { 0xf3, 0x58, MEM }, { 0xf2, 0x58, MEM },
	{ 0, 0x59, 0 }, { 0x66, 0x59, 0 }, { 0xf3, 0x59, MEM }, { 0xf2, 0x59, MEM },
	{ 0, 0x5c, 0 }, { 0x66, 0x5c, 0 }, { 0xf3, 0x5c, MEM }, { 0xf2, 0x5c, MEM },
	{ 0, 0x5d, 0 }, { 0x66, 0x5d, 0 }, { 0xf3, 0x5d, MEM }, { 0xf2, 0x5d, MEM },
	{ 0, 0x5e, 0 }, { 0x66, 0x5e, 0 }, { 0xf3, 0x5e, MEM }, { 0xf2, 0x5e, MEM },
	{ 0, 0x5f, 0 }, { 0x66, 0x5f, 0 }, { 0xf3, 0x5f, MEM }, { 0xf2, 0x5f, MEM },
	{ 0, 0xc2, PRED }, { 0x66, 0xc2, PRED }, { 0xf3, 0xc2, MEM | PRED }, { 0xf2, 0xc2, MEM | PRED },
	{ 0, 0x2e, MEM | FLAGS }, { 0x66, 0x2e, MEM | FLAGS }, { 0, 0x2f, MEM | FLAGS }, { 0x66, 0x2f, MEM | FLAGS },
	{ 0xf3, 0x2a, MEM | GPR }, { 0xf2, 0x2a, MEM | GPR },                         /* CVTSI2SS/SD */
	{ 0xf3, 0x2c, MEM | GREG }, { 0xf2, 0x2c, MEM | GREG }, { 0xf3, 0x2d, MEM | GREG }, { 0xf2, 0x2d, MEM | GREG },
	{ 0, 0x5a, MEM }, { 0x66, 0x5a, 0 }, { 0xf3, 0x5a, MEM }, { 0xf2, 0x5a, MEM },
	{ 0, 0x5b, 0 }, { 0x66, 0x5b, 0 }, { 0xf3, 0x5b, 0 },
	{ 0x66, 0xe6, 0 }, { 0xf3, 0xe6, MEM }, { 0xf2, 0xe6, 0 },
};

static void gen_sse32(struct gen *g)
{
	const struct sse32_op *o = &sse32_ops[pick(g, sizeof(sse32_ops) / sizeof(sse32_ops[0]))];
	unsigned how = o->how, x = pick(g, 8), src = pick(g, 8);
	if ((how & COUNT) && pick(g, 4)) {          /* MOV r32, count; MOVD xmm, r32 */
		unsigned r = data_reg(g);
		mov_reg_imm(g, r, 4, pick(g, 72));
		emit(g, 0x66), emit(g, 0x0f), emit(g, 0x6e), emit(g, 0xc0 | (src << 3) | r);
	}
	if (o->pfx)
		emit(g, o->pfx);
	emit(g, 0x0f), emit(g, o->op);
	unsigned reg = how & DIGIT ? (how >> 8) & 7u : how & GREG ? data_reg(g) : x;
	if ((how & MEM) && pick(g, 3) == 0) {
		emit(g, 0x40 | (reg << 3) | (pick(g, 2) ? 6 : 7));
		emit(g, pick(g, 112));
	} else {
		emit(g, 0xc0 | (reg << 3) | (how & GPR ? data_reg(g) : how & (GREG | DIGIT) ? x : src));
	}
	if (how & IMM)
		emit(g, pick(g, 4) ? pick(g, 72) : pick(g, 256));
	if (how & PRED)
		emit(g, pick(g, 8));
	if (how & FLAGS)
		flags_written(g, ARITH, 0);             /* SDM Vol.2 COMISS */
}

/* One random instruction (sometimes with its set-up instructions). */
static void gen_insn(struct gen *g)
{
	unsigned size = rand_size(g), op, reg;
	bool mem;

	if (g->x87_on && pick(g, 3) == 0) {
		gen_x87(g);
		return;
	}
	if (g->simd && pick(g, 3)) {
		gen_simd(g);
		return;
	}
	if (g->avx && pick(g, 4)) {
		gen_avx(g);
		return;
	}
	switch (pick(g, 24)) {
	case 0: case 1: case 2: {                   /* ALU r/m,r / r,r/m / r/m,imm / acc,imm */
		op = pick(g, 8);
		if (op == 2 || op == 3)
			define_flags(g);                    /* ADC/SBB read CF */
		unsigned form = pick(g, 4);
		bool lock = false;
		if (form == 0 && op != 7 && pick(g, 4) == 0)
			lock = true;
		if (lock)
			emit(g, 0xf0);
		osize_prefix(g, size);
		switch (form) {
		case 0:
			emit(g, op * 8 + (size == 1 ? 0 : 1));
			emit_rm(g, reg_for(g, size) & 7, size, true, &mem);
			if (lock && !mem) {
				/* LOCK needs a memory destination: rewrite as [ESI+d8]. */
				g->code[g->len - 1] = (uint8_t)(0x40 | (g->code[g->len - 1] & 0x38) | 6);
				emit(g, pick(g, 120));
			}
			break;
		case 1:
			emit(g, op * 8 + (size == 1 ? 2 : 3));
			emit_rm(g, reg_for(g, size) & 7, size, true, NULL);
			break;
		case 2: {
			bool sx = size != 1 && pick(g, 2);
			emit(g, size == 1 ? 0x80 : sx ? 0x83 : 0x81);
			emit_rm(g, op, size, true, NULL);
			emit_imm(g, rnd(g), size == 1 || sx ? 1 : size);
			break;
		}
		default:
			emit(g, op * 8 + (size == 1 ? 4 : 5));
			emit_imm(g, rnd(g), size);
			break;
		}
		/* SDM: AND/OR/XOR leave AF undefined; the others define all six. */
		bool logic = op == 1 || op == 4 || op == 6;
		flags_written(g, logic ? ARITH & ~FLAG_AF : ARITH, logic ? FLAG_AF : 0);
		break;
	}
	case 3:                                     /* TEST */
		osize_prefix(g, size);
		if (pick(g, 2)) {
			emit(g, size == 1 ? 0x84 : 0x85);
			emit_rm(g, reg_for(g, size) & 7, size, true, NULL);
		} else {
			emit(g, size == 1 ? 0xf6 : 0xf7);
			emit_rm(g, 0, size, true, NULL);
			emit_imm(g, rnd(g), size);
		}
		flags_written(g, ARITH & ~FLAG_AF, FLAG_AF);
		break;
	case 4:                                     /* INC/DEC/NEG/NOT */
		op = pick(g, 4);
		osize_prefix(g, size);
		if (op < 2) {
			emit(g, size == 1 ? 0xfe : 0xff);
			emit_rm(g, op, size, true, NULL);
			flags_written(g, ARITH & ~FLAG_CF, 0);   /* CF unaffected */
		} else {
			emit(g, size == 1 ? 0xf6 : 0xf7);
			emit_rm(g, op == 2 ? 3 : 2, size, true, NULL);
			if (op == 2)
				flags_written(g, ARITH, 0);          /* NEG */
		}
		break;
	case 5: case 6: {                           /* shifts and rotates */
		op = pick(g, 8);
		if (op == 6)
			op = 4;                             /* /6 is an alias; test /4 */
		if (op == 2 || op == 3)
			define_flags(g);                    /* RCL/RCR read CF */
		unsigned form = pick(g, 3), count;
		if (form == 2) {
			count = pick(g, 40);
			mov_reg_imm(g, R_CX, 1, count);     /* MOV CL, count */
		}
		osize_prefix(g, size);
		if (form == 0) {
			count = pick(g, 40);
			emit(g, size == 1 ? 0xc0 : 0xc1);
			emit_rm(g, op, size, true, NULL);
			emit(g, count);
		} else if (form == 1) {
			count = 1;
			emit(g, size == 1 ? 0xd0 : 0xd1);
			emit_rm(g, op, size, true, NULL);
		} else {
			emit(g, size == 1 ? 0xd2 : 0xd3);
			/* The count is in CL: the destination must not be ECX's CL/CH. */
			unsigned r;
			do
				r = reg_for(g, size);
			while (size == 1 ? (r & 3) == 1 : r == R_CX);
			if (pick(g, 3) == 0) {
				emit(g, 0x40 | (op << 3) | (pick(g, 2) ? 6 : 7));
				emit(g, pick(g, 120));
			} else {
				emit(g, 0xc0 | (op << 3) | r);
			}
		}
		unsigned masked = count & 0x1f, bits = size * 8;
		if (!masked)
			break;                              /* SDM: count 0 affects no flags */
		uint32_t of = masked == 1 ? FLAG_OF : 0;
		if (op <= 3) {
			/* ROL/ROR/RCL/RCR: CF and OF only; OF defined for count 1 only. */
			flags_written(g, FLAG_CF | of, FLAG_OF & ~of);
		} else {
			/* SHL/SHR/SAR: SF ZF PF defined, AF undefined, OF for count 1; CF
			 * undefined when the count is at least the operand width (SDM SAL/SAR/
			 * SHL/SHR "Flags Affected"). */
			uint32_t cf = masked < bits ? FLAG_CF : 0;
			flags_written(g, FLAG_SF | FLAG_ZF | FLAG_PF | cf | of,
				      FLAG_AF | (FLAG_OF & ~of) | (FLAG_CF & ~cf));
		}
		break;
	}
	case 7: {                                   /* SHLD/SHRD */
		if (size == 1)
			size = 4;
		unsigned count = pick(g, size == 2 ? 17 : 32);
		bool cl = pick(g, 2);
		if (cl)
			mov_reg_imm(g, R_CX, 1, count);
		osize_prefix(g, size);
		emit(g, 0x0f);
		emit((g), (pick(g, 2) ? 0xa4 : 0xac) + cl);
		unsigned dst, src;
		do {
			dst = data_reg(g);
			src = data_reg(g);
		} while (cl && (dst == R_CX || src == R_CX));
		emit(g, 0xc0 | (src << 3) | dst);
		if (!cl)
			emit(g, count);
		if (count & 0x1f) {
			uint32_t of = (count & 0x1f) == 1 ? FLAG_OF : 0;
			flags_written(g, FLAG_CF | FLAG_SF | FLAG_ZF | FLAG_PF | of,
				      FLAG_AF | (FLAG_OF & ~of));
		}
		break;
	}
	case 8:                                     /* MUL/IMUL */
		osize_prefix(g, size);
		switch (pick(g, 3)) {
		case 0:
			emit(g, size == 1 ? 0xf6 : 0xf7);
			emit_rm(g, 4 + pick(g, 2), size, true, NULL);
			break;
		case 1:
			if (size == 1) {
				emit(g, 0xf6);
				emit_rm(g, 5, 1, true, NULL);
				break;
			}
			emit(g, 0x0f), emit(g, 0xaf);
			emit_rm(g, data_reg(g), size, true, NULL);
			break;
		default:
			if (size == 1) {
				emit(g, 0xf6);
				emit_rm(g, 4, 1, true, NULL);
				break;
			}
			op = pick(g, 2);
			emit(g, op ? 0x6b : 0x69);
			emit_rm(g, data_reg(g), size, true, NULL);
			emit_imm(g, rnd(g), op ? 1 : size);
			break;
		}
		/* SDM MUL/IMUL: CF OF defined, SF ZF AF PF undefined. */
		flags_written(g, FLAG_CF | FLAG_OF, FLAG_SF | FLAG_ZF | FLAG_AF | FLAG_PF);
		break;
	case 9: {                                   /* DIV/IDIV with a safe divisor */
		bool sign = pick(g, 2);
		uint32_t d = rnd(g) & (size == 1 ? 0x7f : size == 2 ? 0x7fff : 0x7fffffff);
		if (d == 0)
			d = 3;
		unsigned divreg = size == 1 ? R_BX : pick(g, 2) ? R_BX : R_BP;   /* BL/BX/EBX/BP/EBP */
		mov_reg_imm(g, divreg, size, d);
		if (size == 1) {
			emit(g, sign ? 0x66 : 0x0f);        /* CBW, or MOVZX EAX, AL */
			if (sign)
				emit(g, 0x98);
			else
				emit(g, 0xb6), emit(g, 0xc0);
		} else if (sign) {
			osize_prefix(g, size);
			emit(g, 0x99);                      /* CWD / CDQ */
		} else {
			osize_prefix(g, size);
			emit(g, 0x31), emit(g, 0xd2);       /* XOR (E)DX, (E)DX */
			flags_written(g, ARITH & ~FLAG_AF, FLAG_AF);
		}
		osize_prefix(g, size);
		emit(g, size == 1 ? 0xf6 : 0xf7);
		emit(g, 0xc0 | ((sign ? 7 : 6) << 3) | divreg);
		flags_written(g, 0, ARITH);             /* SDM DIV/IDIV: all undefined */
		break;
	}
	case 10: {                                  /* BT/BTS/BTR/BTC */
		if (size == 1)
			size = 4;
		op = pick(g, 4);
		osize_prefix(g, size);
		emit(g, 0x0f);
		if (pick(g, 2)) {
			/* Register bit offset: register destination only (a memory one
			 * would address up to 512 MiB away). */
			emit(g, 0xa3 + op * 8);
			emit(g, 0xc0 | (data_reg(g) << 3) | data_reg(g));
		} else {
			emit(g, 0xba);
			emit_rm(g, 4 + op, size, true, NULL);
			emit(g, pick(g, 256));
		}
		/* SDM BT*: CF defined, ZF unaffected, OF SF AF PF undefined. */
		flags_written(g, FLAG_CF, FLAG_OF | FLAG_SF | FLAG_AF | FLAG_PF);
		break;
	}
	case 11: {                                  /* BSF/BSR of a non-zero source */
		if (size == 1)
			size = 4;
		unsigned src = data_reg(g);
		osize_prefix(g, size);
		emit(g, 0x81), emit(g, 0xc8 | src);     /* OR src, bit */
		emit_imm(g, 1u << pick(g, size * 8), size);
		osize_prefix(g, size);
		emit(g, 0x0f), emit(g, pick(g, 2) ? 0xbc : 0xbd);
		emit(g, 0xc0 | (data_reg(g) << 3) | src);
		/* SDM BSF/BSR: ZF defined; CF OF SF AF PF undefined. */
		flags_written(g, FLAG_ZF, FLAG_CF | FLAG_OF | FLAG_SF | FLAG_AF | FLAG_PF);
		break;
	}
	case 12:                                    /* SETcc / CMOVcc */
		define_flags(g);
		emit(g, 0x0f);
		if (pick(g, 2)) {
			emit(g, 0x90 + pick(g, 16));
			emit_rm(g, 0, 1, true, NULL);
		} else {
			if (size == 1)
				size = 4;
			g->len--;
			osize_prefix(g, size);
			emit(g, 0x0f);
			emit(g, 0x40 + pick(g, 16));
			emit_rm(g, data_reg(g), size, true, NULL);
		}
		break;
	case 13: {                                  /* XCHG / XADD / CMPXCHG */
		op = pick(g, 4);
		bool lock = op != 3 && pick(g, 3) == 0;
		if (lock)
			emit(g, 0xf0);                      /* LOCK needs the memory form below */
		osize_prefix(g, size);
		if (op == 3 && size != 1) {
			emit(g, 0x90 + data_reg(g));        /* XCHG eAX, r */
			break;
		}
		if (op == 1 || op == 2)
			emit(g, 0x0f);
		emit(g, (op == 1 ? 0xc0 : op == 2 ? 0xb0 : 0x86) + (size == 1 ? 0 : 1));
		if (lock) {
			emit(g, 0x40 | ((reg_for(g, size) & 7) << 3) | (pick(g, 2) ? 6 : 7));
			emit(g, pick(g, 120));
		} else {
			emit_rm(g, reg_for(g, size) & 7, size, true, NULL);
		}
		if (op == 1 || op == 2)
			flags_written(g, ARITH, 0);         /* XADD: as ADD; CMPXCHG: as CMP */
		break;
	}
	case 14:                                    /* BSWAP / MOVZX / MOVSX */
		if (pick(g, 3) == 0) {
			emit(g, 0x0f), emit(g, 0xc8 + data_reg(g));
		} else {
			size = pick(g, 2) ? 4 : 2;
			osize_prefix(g, size);
			emit(g, 0x0f);
			unsigned src16 = size == 4 && pick(g, 2);
			emit(g, (pick(g, 2) ? 0xb6 : 0xbe) + src16);
			emit_rm(g, data_reg(g), src16 ? 2 : 1, true, NULL);
		}
		break;
	case 15: {                                  /* LEA with a SIB byte */
		if (size == 1)
			size = 4;
		osize_prefix(g, size);
		emit(g, 0x8d);
		emit(g, 0x84 | (data_reg(g) << 3));
		emit(g, pick(g, 256));
		emit_imm(g, rnd(g), 4);
		break;
	}
	case 16:                                    /* CBW/CWDE, CWD/CDQ */
		if (pick(g, 2))
			emit(g, 0x66);
		emit(g, 0x98 + pick(g, 2));
		break;
	case 17: case 18: {                         /* string instructions */
		static const uint8_t ops[] = { 0xa4, 0xa6, 0xaa, 0xac, 0xae };
		unsigned o = ops[pick(g, 5)] + (size == 1 ? 0 : 1), count = pick(g, 9);
		mov_reg_imm(g, R_CX, 4, count);
		emit(g, pick(g, 2) ? 0xfc : 0xfd);      /* CLD / STD */
		unsigned rep = pick(g, 3);
		if (rep)
			emit(g, rep == 1 ? 0xf3 : 0xf2);
		osize_prefix(g, size);
		emit(g, o);
		/* CMPS/SCAS set the flags as CMP -- unless a REP with ECX = 0 runs no
		 * iteration and leaves them as they were. */
		if (((o & 0xfe) == 0xa6 || (o & 0xfe) == 0xae) && (!rep || count))
			flags_written(g, ARITH, 0);
		break;
	}
	case 19:                                    /* PUSH / POP, 16-bit forms */
		emit(g, 0x66);
		if (g->pushed && pick(g, 2)) {
			emit(g, 0x58 + data_reg(g));
			g->pushed--;
		} else {
			switch (pick(g, 3)) {
			case 0: emit(g, 0x50 + data_reg(g)); break;
			case 1: emit(g, 0x6a), emit(g, pick(g, 256)); break;
			default: emit(g, 0xff), emit(g, 0x76), emit(g, pick(g, 120)); break;   /* PUSH [ESI+d8] */
			}
			g->pushed++;
		}
		break;
	case 20:                                    /* MOV */
		osize_prefix(g, size);
		switch (pick(g, 3)) {
		case 0:
			emit(g, size == 1 ? 0x88 : 0x89);
			emit_rm(g, reg_for(g, size) & 7, size, true, NULL);
			break;
		case 1:
			emit(g, size == 1 ? 0x8a : 0x8b);
			emit_rm(g, reg_for(g, size) & 7, size, true, NULL);
			break;
		default:
			g->len -= size == 2;
			mov_reg_imm(g, reg_for(g, size), size, rnd(g));
			break;
		}
		break;
	case 22:
		gen_sse32(g);
		break;
	case 21:                                    /* CLC/STC/CMC, LAHF/SAHF */
		switch (pick(g, 5)) {
		case 0: emit(g, 0xf8); flags_written(g, FLAG_CF, 0); break;
		case 1: emit(g, 0xf9); flags_written(g, FLAG_CF, 0); break;
		case 2: define_flags(g); emit(g, 0xf5); break;
		case 3: define_flags(g); emit(g, 0x9f); break;
		default: emit(g, 0x9e); flags_written(g, ARITH & ~FLAG_OF, 0); break;
		}
		break;
	default:                                    /* more ALU: the most common case */
		osize_prefix(g, size);
		op = pick(g, 8);
		if (op == 2 || op == 3) {
			g->len -= size == 2;
			define_flags(g);
			osize_prefix(g, size);
		}
		emit(g, op * 8 + (size == 1 ? 0 : 1));
		emit(g, 0xc0 | ((reg_for(g, size) & 7) << 3) | reg_for(g, size));
		flags_written(g, (op == 1 || op == 4 || op == 6) ? ARITH & ~FLAG_AF : ARITH,
			      (op == 1 || op == 4 || op == 6) ? FLAG_AF : 0);
		break;
	}
	(void)reg;
}

/* A random case: registers, flags, data, and 1..SEQ_MAX instructions. */
uint32_t gen_case32(struct gen *g, struct diff_request *rq)
{
	memset(rq, 0, sizeof(*rq));
	for (unsigned r = 0; r < 8; r++)
		rq->in.regs[r] = rnd(g);
	rq->in.regs[R_SP] = DIFF_STACK_TOP;
	rq->in.regs[R_SI] = DIFF_DATA_ADDR + 0x600 + pick(g, 0x100);
	rq->in.regs[R_DI] = DIFF_DATA_ADDR + 0x900 + pick(g, 0x100);
	rq->in.rflags = FLAG_FIXED1 | FLAG_IF | (rnd(g) & ARITH);
	rq->in.mxcsr = rand_mxcsr(g);
	/* A third of the XMM registers and data lines hold floating-point values. */
	for (unsigned x = 0; x < 8; x++) {
		if (pick(g, 3) == 0)
			fill_fp(g, rq->in.xmm[x]);
		else
			for (unsigned i = 0; i < 16; i++)
				rq->in.xmm[x][i] = (uint8_t)rnd(g);
	}
	for (unsigned x = 0; g->avx && x < 8; x++) {
		if (pick(g, 3) == 0)
			fill_fp(g, rq->in.ymm_hi[x]);
		else
			for (unsigned i = 0; i < 16; i++)
				rq->in.ymm_hi[x][i] = (uint8_t)rnd(g);
	}
	rq->avx = g->avx;
	for (unsigned i = 0; i < DIFF_DATA_SIZE; i += 16) {
		switch (pick(g, 6)) {
		case 0: case 1: fill_fp(g, rq->in.data + i); break;
		case 2: fill_x87(g, rq->in.data + i); break;
		default:
			for (unsigned k = 0; k < 16; k++)
				rq->in.data[i + k] = (uint8_t)rnd(g);
			break;
		}
	}
	g->code = rq->code;
	g->len = 0;
	g->undef = 0;
	g->pushed = 0;
	g->m64 = false;
	g->x87_unmask = false;                      /* no handler for #MF in this run */
	g->x87_on = g->simd || pick(g, 4) == 0;
	if (g->x87_on)
		gen_x87_start(g, rq);
	unsigned n = 1 + pick(g, SEQ_MAX);
	for (unsigned i = 0; i < n && g->len < DIFF_CODE_MAX - 128; i++)
		gen_insn(g);
	rq->code_len = g->len;
	return g->undef;
}
