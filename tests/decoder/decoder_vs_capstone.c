/* Decoder vs Capstone: every defined opcode of the one-byte and 0F maps, in 16-
 * and 32-bit code, with every ModRM byte, every SIB byte behind the SIB forms,
 * random displacement/immediate bytes and a set of prefix combinations. For each
 * encoding hvemu's decode_insn() and Capstone (cs_disasm, CS_OPT_DETAIL) must
 * agree on the length, and operand by operand on registers, memory
 * base/index/scale/displacement, immediates and branch targets.
 *
 * Also checked:
 *   - an encoding Capstone rejects must be #UD in hvemu (insn_is_undefined);
 *   - with LOCK, hvemu's #UD decision must follow the SDM's list of lockable
 *     instructions with a memory destination (SDM Vol.2 LOCK), using Capstone's
 *     instruction id as the independent view of "which instruction is this".
 * Encodings hvemu has no row for yet (x87, SSE, system rows still being written)
 * are counted as "not in the table", not compared.
 *
 * Output: the number of cases compared and every mismatch (bytes, both views);
 * with -v also the encodings Capstone decodes that have no row yet.
 * Exit 0 only with zero mismatches.
 */
#include <capstone/capstone.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/decode_table.h"
#include "emu/insn.h"

#define MAX_REPORTED 200

struct stats {
	unsigned long compared;       /* both decoded: length (and operands) compared */
	unsigned long operands;       /* of those, operand lists compared one by one */
	unsigned long agree_ud;       /* both say invalid / #UD */
	unsigned long lock_checked;   /* LOCK legality checked against SDM list */
	unsigned long not_in_table;   /* Capstone decodes, hvemu has no row yet */
	unsigned long known_capstone; /* documented Capstone deviations (see below) */
	unsigned long mismatches;
	bool shape_skipped[4096];     /* rows whose operand lists Capstone shapes differently */
	char missing[2][256][8][CS_MNEMONIC_SIZE];  /* -v: Capstone's mnemonic where hvemu has no row */
};

/* Deterministic byte source for displacements and immediates. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint8_t rng_byte(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint8_t)(rng_state >> 24);
}

static const char *hex(const uint8_t *b, unsigned n)
{
	static char buf[3 * 20];
	char *p = buf;
	for (unsigned i = 0; i < n && i < 19; i++)
		p += sprintf(p, "%02x ", b[i]);
	if (p > buf)
		p[-1] = 0;
	else
		buf[0] = 0;
	return buf;
}

/* --- Capstone register ids -> (number, size) in hvemu's numbering --- */

struct reg_info {
	int num;                   /* enum gpr, or -1 */
	unsigned size;
};

static struct reg_info cs_reg(x86_reg r)
{
	static const x86_reg b[8] = { X86_REG_AL, X86_REG_CL, X86_REG_DL, X86_REG_BL,
				      X86_REG_AH, X86_REG_CH, X86_REG_DH, X86_REG_BH };
	static const x86_reg w[8] = { X86_REG_AX, X86_REG_CX, X86_REG_DX, X86_REG_BX,
				      X86_REG_SP, X86_REG_BP, X86_REG_SI, X86_REG_DI };
	static const x86_reg d[8] = { X86_REG_EAX, X86_REG_ECX, X86_REG_EDX, X86_REG_EBX,
				      X86_REG_ESP, X86_REG_EBP, X86_REG_ESI, X86_REG_EDI };
	for (int i = 0; i < 8; i++) {
		if (r == b[i])
			return (struct reg_info){ i, 1 };
		if (r == w[i])
			return (struct reg_info){ i, 2 };
		if (r == d[i])
			return (struct reg_info){ i, 4 };
	}
	return (struct reg_info){ -1, 0 };
}

static int cs_sreg(x86_reg r)
{
	switch (r) {
	case X86_REG_ES: return SR_ES;
	case X86_REG_CS: return SR_CS;
	case X86_REG_SS: return SR_SS;
	case X86_REG_DS: return SR_DS;
	case X86_REG_FS: return SR_FS;
	case X86_REG_GS: return SR_GS;
	default: return -1;
	}
}

/* --- hvemu's view of an operand, from the row's SDM letters --- */

static unsigned letter_size(const char *sz, const struct insn *in)
{
	if (!strcmp(sz, "b") || !strcmp(sz, "bs"))
		return 1;
	if (!strcmp(sz, "w"))
		return 2;
	if (!strcmp(sz, "d"))
		return 4;
	if (!strcmp(sz, "q"))
		return 8;
	if (!strcmp(sz, "z"))
		return in->osize == 2 ? 2 : 4;
	if (!strcmp(sz, "y"))
		return in->osize == 8 ? 8 : 4;
	return in->osize;          /* v, and letters whose size is the operand size */
}

static uint64_t mask_of(unsigned bytes)
{
	return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
}

/* An effective address as a sorted list of (register, multiplier) terms plus a
 * displacement modulo the address size: [si] (hvemu: index SI) and Capstone's
 * [si] (base SI) are the same address. */
struct ea {
	int reg[2], mul[2];
	unsigned n;
	uint64_t disp;
};

static void ea_add(struct ea *e, int reg, int mul)
{
	e->reg[e->n] = reg;
	e->mul[e->n] = mul;
	e->n++;
	if (e->n == 2 && (e->reg[0] > e->reg[1] || (e->reg[0] == e->reg[1] && e->mul[0] > e->mul[1]))) {
		int r = e->reg[0], m = e->mul[0];
		e->reg[0] = e->reg[1], e->mul[0] = e->mul[1];
		e->reg[1] = r, e->mul[1] = m;
	}
}

static bool ea_equal(const struct ea *a, const struct ea *b)
{
	if (a->n != b->n || a->disp != b->disp)
		return false;
	for (unsigned i = 0; i < a->n; i++)
		if (a->reg[i] != b->reg[i] || a->mul[i] != b->mul[i])
			return false;
	return true;
}

static bool ea_from_hvemu(const struct insn *in, struct ea *e)
{
	memset(e, 0, sizeof(*e));
	if (in->base != REG_NONE)
		ea_add(e, in->base, 1);
	if (in->index != REG_NONE)
		ea_add(e, in->index, 1 << in->scale);
	e->disp = (uint64_t)in->disp & mask_of(in->asize);
	return true;
}

static bool ea_from_capstone(const x86_op_mem *m, unsigned asize, struct ea *e)
{
	memset(e, 0, sizeof(*e));
	if (m->base != X86_REG_INVALID) {
		struct reg_info r = cs_reg(m->base);
		if (r.num < 0 || r.size != asize)
			return false;
		ea_add(e, r.num, 1);
	}
	if (m->index != X86_REG_INVALID) {
		struct reg_info r = cs_reg(m->index);
		if (r.num < 0 || r.size != asize)
			return false;
		ea_add(e, r.num, m->scale);
	}
	e->disp = (uint64_t)m->disp & mask_of(asize);
	return true;
}

/* Fixed operands written by name in the rows. */
static bool fixed_reg(const char *name, const struct insn *in, int *num, unsigned *size)
{
	static const struct { const char *name; int num; unsigned size; } fixed[] = {
		{ "AL", R_AX, 1 }, { "CL", R_CX, 1 }, { "AX", R_AX, 2 }, { "DX", R_DX, 2 },
	};
	for (unsigned i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (!strcmp(name, fixed[i].name)) {
			*num = fixed[i].num;
			*size = fixed[i].size;
			return true;
		}
	}
	if (!strcmp(name, "eAX") || !strcmp(name, "rAX")) {
		*num = R_AX;
		*size = in->osize;
		return true;
	}
	return false;
}

/* What of Capstone's view one comparison trusts. */
struct cmp_ctx {
	unsigned mode;
	uint64_t addr;             /* where the instruction is "placed" (branch targets) */
	bool mem_size;             /* the memory operand size */
};

/* Compare one operand; on mismatch write why into why[]. */
static bool compare_operand(const char *op, const cs_x86_op *c, const struct insn *in,
			    const struct cmp_ctx *cx, char *why, size_t whylen)
{
	int num;
	unsigned size;
	char letter = op[0];
	const char *sz = op + 1;

	if (fixed_reg(op, in, &num, &size)) {
		struct reg_info r = cs_reg(c->reg);
		if (c->type != X86_OP_REG || r.num != num || r.size != size) {
			snprintf(why, whylen, "fixed %s", op);
			return false;
		}
		return true;
	}
	if (!strcmp(op, "1")) {
		if (c->type != X86_OP_IMM || c->imm != 1) {
			snprintf(why, whylen, "constant 1");
			return false;
		}
		return true;
	}
	if (cs_sreg(c->type == X86_OP_REG ? c->reg : X86_REG_INVALID) >= 0 &&
	    (!strcmp(op, "ES") || !strcmp(op, "CS") || !strcmp(op, "SS") || !strcmp(op, "DS") ||
	     !strcmp(op, "FS") || !strcmp(op, "GS")))
		return true;

	switch (letter) {
	case 'E': case 'M': case 'G': case 'R': case 'Z': {
		bool want_mem = (letter == 'E' || letter == 'M') && in->mem;
		if (want_mem) {
			struct ea h, k;
			if (c->type != X86_OP_MEM) {
				snprintf(why, whylen, "%s: capstone operand is not memory", op);
				return false;
			}
			ea_from_hvemu(in, &h);
			if (!ea_from_capstone(&c->mem, in->asize, &k) || !ea_equal(&h, &k)) {
				snprintf(why, whylen, "%s: effective address", op);
				return false;
			}
			/* Capstone names the segment only when a prefix overrides it. */
			if (c->mem.segment != X86_REG_INVALID && cs_sreg(c->mem.segment) != in->seg) {
				snprintf(why, whylen, "%s: segment", op);
				return false;
			}
			if (c->mem.segment == X86_REG_INVALID && in->seg_override &&
			    in->seg != (in->base == R_BP || in->base == R_SP ? SR_SS : SR_DS)) {
				snprintf(why, whylen, "%s: segment override lost", op);
				return false;
			}
			if (cx->mem_size && c->size && *sz && letter != 'M' &&
			    c->size != letter_size(sz, in)) {
				snprintf(why, whylen, "%s: memory operand size %u", op, c->size);
				return false;
			}
			return true;
		}
		if (letter == 'M') {
			snprintf(why, whylen, "M operand with a register form");
			return false;
		}
		if (c->type != X86_OP_REG) {
			snprintf(why, whylen, "%s: capstone operand is not a register", op);
			return false;
		}
		struct reg_info r = cs_reg(c->reg);
		num = letter == 'G' ? in->reg : letter == 'Z' ? in->reg : in->rm;
		size = letter_size(sz, in);
		/* A 16-bit r/m whose register form the SDM writes at the operand size
		 * ("LAR r32, r32/m16", "MOV r32, Sreg"): Capstone names the wide
		 * register; it is the same register. */
		bool size_ok = r.size == size || (letter == 'E' && !strcmp(sz, "w") && r.size == in->osize);
		if (r.num != num || !size_ok) {
			snprintf(why, whylen, "%s: register %d/%u vs capstone %d/%u", op, num, size,
				 r.num, r.size);
			return false;
		}
		return true;
	}
	case 'I': {
		if (c->type != X86_OP_IMM) {
			snprintf(why, whylen, "%s: capstone operand is not an immediate", op);
			return false;
		}
		/* ENTER's second immediate lives in imm2 (checked by the caller). */
		uint64_t m = mask_of(c->size ? c->size : letter_size(sz, in));
		if (((uint64_t)c->imm & m) != (in->imm & m)) {
			snprintf(why, whylen, "%s: immediate %#" PRIx64 " vs capstone %#" PRIx64, op,
				 in->imm & m, (uint64_t)c->imm & m);
			return false;
		}
		return true;
	}
	case 'J': {
		if (c->type != X86_OP_IMM) {
			snprintf(why, whylen, "%s: capstone operand is not a target", op);
			return false;
		}
		/* Capstone truncates targets to 16 bits in 16-bit code or with a 16-bit
		 * address size even when the operand size is 32, where SDM Vol.2 JMP/Jcc/
		 * CALL keep all of tempEIP (the address size plays no part): only the
		 * low 16 bits are comparable there. */
		uint64_t m = mask_of(cx->mode == 16 || in->asize == 2 ? 2 : in->osize);
		uint64_t target = (cx->addr + in->len + in->imm) & m;
		if (((uint64_t)c->imm & m) != target) {
			snprintf(why, whylen, "%s: target %#" PRIx64 " vs capstone %#" PRIx64, op,
				 target, (uint64_t)c->imm & m);
			return false;
		}
		return true;
	}
	case 'O': {
		if (c->type != X86_OP_MEM || c->mem.base != X86_REG_INVALID ||
		    c->mem.index != X86_REG_INVALID ||
		    ((uint64_t)c->mem.disp & mask_of(in->asize)) != (in->imm & mask_of(in->asize))) {
			snprintf(why, whylen, "%s: moffs", op);
			return false;
		}
		return true;
	}
	case 'X': case 'Y':
		/* String operands are implicit (rSI/rDI); Capstone spells them as memory. */
		if (c->type != X86_OP_MEM) {
			snprintf(why, whylen, "%s: capstone operand is not memory", op);
			return false;
		}
		return true;
	default:
		/* S, C, D: register numbers in ModRM.reg; checked through the length. */
		return true;
	}
}

/* Returns true when the operand lists could be compared; *ok is the verdict. */
static bool compare_operands(const struct insn *in, const cs_insn *ci, const struct cmp_ctx *cx,
			     char *why, size_t whylen, bool *ok)
{
	const cs_x86 *x = &ci->detail->x86;
	const char *ops = isa_rows[in->row].operands;
	char list[64], *names[4];
	unsigned n = 0;

	*ok = true;
	snprintf(list, sizeof(list), "%s", ops);
	for (char *tok = strtok(list, ","); tok && n < 4; tok = strtok(NULL, ","))
		names[n++] = tok;

	/* Far pointer: one A operand in the row, selector and offset in Capstone. */
	if (n == 1 && names[0][0] == 'A') {
		if (x->op_count != 2)
			return false;
		if ((uint64_t)x->operands[0].imm != in->imm2 ||
		    ((uint64_t)x->operands[1].imm & mask_of(in->osize == 2 ? 2 : 4)) != in->imm) {
			snprintf(why, whylen, "far pointer");
			*ok = false;
		}
		return true;
	}
	/* ENTER Iw,Ib: the byte is imm2. */
	if (n == 2 && !strcmp(names[0], "Iw") && !strcmp(names[1], "Ib")) {
		if (x->op_count != 2)
			return false;
		if (((uint64_t)x->operands[0].imm & 0xffff) != (in->imm & 0xffff) ||
		    ((uint64_t)x->operands[1].imm & 0xff) != in->imm2) {
			snprintf(why, whylen, "enter immediates");
			*ok = false;
		}
		return true;
	}
	/* XCHG eAX, Zv: the row names only the opcode register; Capstone lists both
	 * (in either order). 90 without REX.B is NOP in Capstone: no operands. */
	if (n == 1 && !strcmp(names[0], "Zv") && x->op_count == 2 &&
	    x->operands[0].type == X86_OP_REG && x->operands[1].type == X86_OP_REG) {
		struct reg_info a = cs_reg(x->operands[0].reg), b = cs_reg(x->operands[1].reg);
		bool ok_order = (a.num == in->reg && b.num == R_AX) || (b.num == in->reg && a.num == R_AX);
		if (!ok_order || a.size != in->osize || b.size != in->osize) {
			snprintf(why, whylen, "xchg eAX, Zv registers");
			*ok = false;
		}
		return true;
	}
	if (x->op_count != n)
		return false;
	for (unsigned i = 0; i < n; i++) {
		if (!compare_operand(names[i], &x->operands[i], in, cx, why, whylen)) {
			*ok = false;
			return true;
		}
	}
	return true;
}

/* SDM Vol.2 LOCK: the instructions LOCK may precede (memory destination only). */
static bool lockable(unsigned id)
{
	switch (id) {
	case X86_INS_ADD: case X86_INS_ADC: case X86_INS_AND: case X86_INS_BTC:
	case X86_INS_BTR: case X86_INS_BTS: case X86_INS_CMPXCHG: case X86_INS_CMPXCHG8B:
	case X86_INS_CMPXCHG16B: case X86_INS_DEC: case X86_INS_INC: case X86_INS_NEG:
	case X86_INS_NOT: case X86_INS_OR: case X86_INS_SBB: case X86_INS_SUB:
	case X86_INS_XOR: case X86_INS_XADD: case X86_INS_XCHG:
		return true;
	default:
		return false;
	}
}

/* Where Capstone 4 is wrong and hvemu follows the manuals. Each entry names the
 * encodings (map, opcode, ModRM.reg or -1, register form only?) and what of
 * Capstone's view is not trusted there. */
enum deviation_kind {
	DEV_REJECTS,               /* Capstone says invalid; the manuals define it */
	DEV_MEM_SIZE,              /* Capstone's memory operand size is wrong */
	DEV_OPERANDS_16,           /* in 16-bit mode or with a 67 prefix Capstone decodes
				    * another instruction: compare the length only */
};
struct capstone_deviation {
	int map, opcode, reg;
	bool reg_form_only;
	enum deviation_kind kind;
	const char *why;
};
static const struct capstone_deviation capstone_deviations[] = {
	/* SDM Vol.2 NOP: "0F 1F /0 NOP r/m16, r/m32" -- a register r/m is allowed.
	 * Table A-3 marks 0F 19..0F 1E "NOP Ev" and Table A-6 group 16 (0F 18) mod=11B
	 * as reserved NOPs; Intel XED decodes all of them as NOP. Capstone 4 rejects
	 * the register forms. */
	{ 1, 0x18, -1, true, DEV_REJECTS, "reserved NOP (0F 18 mod=11B)" },
	{ 1, 0x19, -1, true, DEV_REJECTS, "reserved NOP 0F 19" },
	{ 1, 0x1a, -1, true, DEV_REJECTS, "reserved NOP 0F 1A" },
	{ 1, 0x1b, -1, true, DEV_REJECTS, "reserved NOP 0F 1B" },
	{ 1, 0x1c, -1, true, DEV_REJECTS, "reserved NOP 0F 1C" },
	{ 1, 0x1d, -1, true, DEV_REJECTS, "reserved NOP 0F 1D" },
	{ 1, 0x1e, -1, true, DEV_REJECTS, "reserved NOP 0F 1E" },
	{ 1, 0x1f, -1, true, DEV_REJECTS, "NOP r/m (0F 1F /0 register form)" },
	/* SDM Vol.2 LAR/LSL: "LAR r32, r32/m16", "LSL r32, r32/m16": the memory
	 * operand is a 16-bit selector whatever the operand size; Capstone says dword. */
	{ 1, 0x02, -1, false, DEV_MEM_SIZE, "LAR m16" },
	{ 1, 0x03, -1, false, DEV_MEM_SIZE, "LSL m16" },
	/* SDM Vol.2 LFENCE/MFENCE/SFENCE: "the processor ignores the r/m field of the
	 * ModR/M byte": 0F AE E8-EF, F0-F7, F8-FF all decode. Capstone 4 accepts rm=0 only. */
	{ 1, 0xae, 5, true, DEV_REJECTS, "LFENCE with r/m != 0" },
	{ 1, 0xae, 6, true, DEV_REJECTS, "MFENCE with r/m != 0" },
	{ 1, 0xae, 7, true, DEV_REJECTS, "SFENCE with r/m != 0" },
	/* SDM Vol.2 PUNPCKLQDQ/PUNPCKHQDQ (66 0F 6C/6D) and MOVQ xmm/m64, xmm (66 0F
	 * D6) are valid in every mode with any address size; Capstone 4 rejects them
	 * in 16-bit mode and with a 67 prefix. */
	{ 1, 0x6c, -1, false, DEV_REJECTS, "PUNPCKLQDQ in 16-bit mode / with 67" },
	{ 1, 0x6d, -1, false, DEV_REJECTS, "PUNPCKHQDQ in 16-bit mode / with 67" },
	{ 1, 0xd6, -1, false, DEV_REJECTS, "MOVQ (66 0F D6) in 16-bit mode / with 67" },
	/* The same Capstone 4 gap for the SSE2 conversions CVTTPD2DQ/CVTPD2DQ/CVTDQ2PD
	 * (66/F2/F3 0F E6); and in 16-bit mode or with 67 it reads F3/F2 0F 2A/2C/2D
	 * (CVTSI2SS/SD, CVT(T)SS2SI, CVT(T)SD2SI, SDM Vol.2 Table A-3) as the MMX forms
	 * CVTPI2PS/CVT(T)PS2PI, as if the mandatory prefix were absent. */
	{ 1, 0xe6, -1, false, DEV_REJECTS, "CVT(T)PD2DQ/CVTDQ2PD (0F E6) in 16-bit mode / with 67" },
	{ 1, 0x2a, -1, false, DEV_OPERANDS_16, "F3/F2 0F 2A read as CVTPI2PS/PD" },
	{ 1, 0x2c, -1, false, DEV_OPERANDS_16, "F3/F2 0F 2C read as CVTTPS2PI/PD2PI" },
	{ 1, 0x2d, -1, false, DEV_OPERANDS_16, "F3/F2 0F 2D read as CVTPS2PI/PD2PI" },
	{ -1, -1, -1, false, DEV_REJECTS, NULL },
};

static const struct capstone_deviation *known_deviation(const struct insn *in,
							enum deviation_kind kind)
{
	for (const struct capstone_deviation *d = capstone_deviations; d->why; d++)
		if (d->kind == kind && d->map == in->map && d->opcode == in->opcode &&
		    (d->reg < 0 || d->reg == ((in->modrm >> 3) & 7)) &&
		    (!d->reg_form_only || (in->modrm >> 6) == 3))
			return d;
	return NULL;
}

static void report(struct stats *st, unsigned mode, const uint8_t *bytes, const struct insn *in,
		   int len, const cs_insn *ci, const char *why)
{
	st->mismatches++;
	if (st->mismatches > MAX_REPORTED)
		return;
	printf("MISMATCH mode %u bytes [%s]: %s\n", mode, hex(bytes, 15), why);
	if (len <= 0)
		printf("  hvemu:    decode_insn = %d\n", len);
	else if (in->row == UINT16_MAX)
		printf("  hvemu:    len %d, no row (#UD)\n", len);
	else
		printf("  hvemu:    len %d %s %s%s osize %u asize %u mem %d base %d index %d scale %u "
		       "disp %#" PRIx64 " imm %#" PRIx64 " reg %u rm %u\n",
		       len, isa_rows[in->row].mnemonic, isa_rows[in->row].operands,
		       insn_is_undefined(in) ? " (#UD)" : "", in->osize, in->asize, in->mem,
		       in->base == REG_NONE ? -1 : in->base, in->index == REG_NONE ? -1 : in->index,
		       in->scale, (uint64_t)in->disp, in->imm, in->reg, in->rm);
	if (ci)
		printf("  capstone: len %u %s %s\n", ci->size, ci->mnemonic, ci->op_str);
	else
		printf("  capstone: invalid\n");
}

/* Decode one byte string both ways and compare. */
static void check_case(csh cs, struct stats *st, unsigned mode, const uint8_t *bytes,
		       unsigned npfx)
{
	bool has_lock = memchr(bytes, 0xf0, npfx) != NULL;
	const uint64_t addr = 0x1000;
	struct insn in;
	cs_insn *ci = NULL;
	char why[160] = "";

	int len = decode_insn(bytes, INSN_MAX_LEN, mode, &in);
	size_t n = cs_disasm(cs, bytes, INSN_MAX_LEN, addr, 1, &ci);
	const cs_insn *c = n ? ci : NULL;

	if (len <= 0) {
		/* Only prefix soup can exceed 15 bytes here; Capstone must fail too. */
		if (c)
			report(st, mode, bytes, &in, len, c, "hvemu: over 15 bytes, capstone decodes");
		else
			st->agree_ud++;
		goto out;
	}
	if (in.row == UINT16_MAX) {
		if (c) {
			st->not_in_table++;
			char *m = st->missing[in.map & 1][in.opcode][(in.modrm >> 3) & 7];
			if (!m[0] && in.map <= 1)
				snprintf(m, sizeof(st->missing[0][0][0]), "%s", c->mnemonic);
		} else
			st->agree_ud++;
		goto out;
	}
	if (!c) {
		if (insn_is_undefined(&in)) {
			st->agree_ud++;
		} else if (known_deviation(&in, DEV_REJECTS)) {
			st->known_capstone++;
		} else {
			report(st, mode, bytes, &in, len, NULL, "hvemu decodes, capstone says invalid");
		}
		goto out;
	}
	if ((unsigned)len != c->size) {
		report(st, mode, bytes, &in, len, c, "length");
		goto out;
	}
	st->compared++;

	if (has_lock) {
		/* The destination (Capstone's first operand) must be memory; XCHG
		 * locks with memory on either side. */
		const cs_x86 *x = &c->detail->x86;
		bool mem_dest = x->op_count > 0 && x->operands[0].type == X86_OP_MEM;
		for (unsigned i = 0; c->id == X86_INS_XCHG && i < x->op_count; i++)
			mem_dest |= x->operands[i].type == X86_OP_MEM;
		bool legal = lockable(c->id) && mem_dest;
		st->lock_checked++;
		if (legal == insn_is_undefined(&in)) {
			snprintf(why, sizeof(why), "LOCK: SDM says %s", legal ? "legal" : "#UD");
			report(st, mode, bytes, &in, len, c, why);
			goto out;
		}
	} else if (insn_is_undefined(&in)) {
		report(st, mode, bytes, &in, len, c, "hvemu #UD, capstone decodes");
		goto out;
	}

	if ((mode == 16 || in.asize == 2) && known_deviation(&in, DEV_OPERANDS_16)) {
		st->known_capstone++;
		goto out;
	}
	struct cmp_ctx cx = {
		.mode = mode, .addr = addr,
		.mem_size = !known_deviation(&in, DEV_MEM_SIZE) &&
			    strcmp(isa_rows[in.row].mnemonic, "nop") != 0,   /* hint NOPs access nothing */
	};
	bool ok;
	if (compare_operands(&in, c, &cx, why, sizeof(why), &ok)) {
		st->operands++;
		if (!ok)
			report(st, mode, bytes, &in, len, c, why);
	} else if (in.row < sizeof(st->shape_skipped)) {
		st->shape_skipped[in.row] = true;
	}
out:
	if (ci)
		cs_free(ci, n);
}

/* Prefix combinations tried with every ModRM byte: count, then the bytes. Not
 * 66 together with F2/F3: Capstone 4 then sizes operands as if 66 were absent
 * while counting a 16-bit immediate (66 F3 05 iw: "add eax"), rejects 66 F3 A1,
 * and reads 66 F3 E8 as rel32 -- SDM Vol.2 2.1.1 gives F2/F3 no such effect on
 * non-string instructions, so that view cannot be compared. */
static const uint8_t prefix_sets[][5] = {
	{ 0 }, { 1, 0x66 }, { 1, 0x67 }, { 2, 0x66, 0x67 }, { 1, 0xf3 }, { 1, 0xf2 },
	{ 1, 0xf0 }, { 2, 0xf0, 0x66 }, { 3, 0xf0, 0x67, 0x2e }, { 1, 0x26 }, { 1, 0x2e },
	{ 1, 0x36 }, { 1, 0x3e }, { 1, 0x64 }, { 1, 0x65 }, { 2, 0xf3, 0x67 }, { 2, 0xf2, 0x67 },
	{ 4, 0x65, 0x67, 0x66, 0x3e }, { 3, 0x26, 0x66, 0x36 },
};

/* Build prefixes + opcode + [modrm [sib]] + random tail into buf[15]. */
static void build(uint8_t *buf, const uint8_t *pfx, unsigned map, unsigned opcode, int modrm,
		  int sib)
{
	unsigned p = 0;
	for (unsigned i = 0; i < pfx[0]; i++)
		buf[p++] = pfx[1 + i];
	if (map == 1)
		buf[p++] = 0x0f;
	buf[p++] = (uint8_t)opcode;
	if (modrm >= 0)
		buf[p++] = (uint8_t)modrm;
	if (sib >= 0)
		buf[p++] = (uint8_t)sib;
	while (p < INSN_MAX_LEN)
		buf[p++] = rng_byte();
}

static bool is_prefix(unsigned b)
{
	return b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x64 || b == 0x65 ||
	       b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3;
}

int main(int argc, char **argv)
{
	bool verbose = argc > 1 && !strcmp(argv[1], "-v");
	static struct stats st;
	unsigned long opcodes_with_rows = 0;

	for (unsigned mode = 16; mode <= 32; mode += 16) {
		csh cs;
		if (cs_open(CS_ARCH_X86, mode == 16 ? CS_MODE_16 : CS_MODE_32, &cs) != CS_ERR_OK) {
			fprintf(stderr, "cs_open failed\n");
			return 99;
		}
		cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);

		for (unsigned map = 0; map <= 1; map++) {
			for (unsigned op = 0; op < 256; op++) {
				if (map == 0 && (op == 0x0f || is_prefix(op) || (op >= 0xd8 && op <= 0xdf)))
					continue;
				if (map == 1 && (op == 0x38 || op == 0x3a))
					continue;
				const struct isa_opcode *o = &isa_opcodes[map][op];
				uint8_t buf[INSN_MAX_LEN];
				if (o->count)
					opcodes_with_rows++;
				for (unsigned p = 0; p < sizeof(prefix_sets) / sizeof(prefix_sets[0]); p++) {
					unsigned np = prefix_sets[p][0];
					if (!o->count) {
						/* Undefined in hvemu: Capstone must agree, or it is a row
						 * still to be written. Try ModRM-less and every ModRM. */
						build(buf, prefix_sets[p], map, op, -1, -1);
						check_case(cs, &st, mode, buf, np);
						if (p < 3)
							for (int m = 0; m < 256; m++) {
								build(buf, prefix_sets[p], map, op, m, -1);
								check_case(cs, &st, mode, buf, np);
							}
						continue;
					}
					if (!o->modrm) {
						for (int k = 0; k < 8; k++) {
							build(buf, prefix_sets[p], map, op, -1, -1);
							check_case(cs, &st, mode, buf, np);
						}
						continue;
					}
					for (int m = 0; m < 256; m++) {
						build(buf, prefix_sets[p], map, op, m, -1);
						check_case(cs, &st, mode, buf, np);
					}
					/* Every SIB byte behind mod 0/1/2 rm=4, where a SIB follows:
					 * 32-bit addressing (no 67 in 32-bit code, 67 in 16-bit code). */
					bool a32 = (mode == 32) != (memchr(prefix_sets[p] + 1, 0x67,
									   prefix_sets[p][0]) != NULL);
					if (!a32 || p > 3)
						continue;
					for (int mod = 0; mod < 3; mod++)
						for (int sib = 0; sib < 256; sib++) {
							int m = (mod << 6) | (((sib >> 3) & 7) << 3) | 4;
							build(buf, prefix_sets[p], map, op, m, sib);
							check_case(cs, &st, mode, buf, np);
						}
				}
			}
		}
		cs_close(&cs);
	}

	printf("decoder-vs-capstone: %lu opcodes with rows (16+32-bit), %lu cases compared "
	       "(%lu operand-by-operand), %lu LOCK checks, %lu agree #UD, %lu not in the table yet, "
	       "%lu documented capstone deviations, %lu mismatches\n",
	       opcodes_with_rows, st.compared, st.operands, st.lock_checked, st.agree_ud,
	       st.not_in_table, st.known_capstone, st.mismatches);
	if (verbose) {
		/* What Capstone decodes that no row covers yet (map, opcode, ModRM.reg
		 * for ModRM opcodes; reg is 0 for the others). */
		printf("not in the table yet:");
		for (unsigned map = 0; map < 2; map++)
			for (unsigned op = 0; op < 256; op++)
				for (unsigned reg = 0; reg < 8; reg++)
					if (st.missing[map][op][reg][0])
						printf(" %s%02X/%u=%s;", map ? "0F " : "", op, reg,
						       st.missing[map][op][reg]);
		printf("\n");
	}
	printf("length-only (Capstone lists the operands differently):");
	for (unsigned r = 0; r < isa_row_count && r < sizeof(st.shape_skipped); r++)
		if (st.shape_skipped[r])
			printf(" %s %s;", isa_rows[r].mnemonic, isa_rows[r].operands);
	printf("\n");
	return st.mismatches || !st.compared ? 1 : 0;
}
