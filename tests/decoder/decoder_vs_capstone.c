/* Decoder vs Capstone: every defined opcode of the one-byte, 0F, 0F 38 and 0F 3A
 * maps, in 16-, 32- and 64-bit code, with every ModRM byte, every SIB byte behind
 * the SIB forms, random displacement/immediate bytes and a set of prefix
 * combinations (in 64-bit code: REX.W/R/X/B alone and with legacy prefixes, REX
 * followed by a legacy prefix, two REX prefixes). For each encoding hvemu's
 * decode_insn() and Capstone (cs_disasm, CS_OPT_DETAIL) must agree on the
 * length, and operand by operand on registers (AH..BH vs SPL..DIL by REX),
 * memory base/index/scale/displacement (RIP-relative included), the segment
 * (SDM Vol.1 3.7.5 defaults), immediates, moffs and branch targets.
 *
 * Also checked:
 *   - an encoding Capstone rejects must be #UD in hvemu (insn_is_undefined);
 *   - with LOCK, hvemu's #UD decision must follow the SDM's list of lockable
 *     instructions with a memory destination (SDM Vol.2 LOCK), using Capstone's
 *     instruction id as the independent view of "which instruction is this";
 *   - in 64-bit code, the opcodes SDM Table A-2 marks i64 must be #UD, and no
 *     row may be flagged no64 unless the SDM says so;
 *   - the 15-byte limit (SDM Vol.2 2.3.11) with redundant prefixes.
 * Encodings hvemu has no row for yet (x87, SSE, system rows still being written)
 * are counted as "not in the table", not compared. Where Capstone 4.0.2 is
 * wrong, capstone_deviations[] names the encodings and the SDM section.
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
	unsigned long length_checked; /* 15-byte limit cases */
	unsigned long i64_checked;    /* 64-bit mode: opcodes SDM Table A-2 marks i64 */
	unsigned long vex_excluded;   /* of those, C4/C5/62: VEX/EVEX to Capstone */
	unsigned long mismatches;
	bool shape_skipped[4096];     /* rows whose operand lists Capstone shapes differently */
	char missing[3][4][256][8][CS_MNEMONIC_SIZE];  /* -v: per mode, Capstone's mnemonic where hvemu has no row */
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
	int num;                   /* enum gpr (0..15), REG_RIP, or -1 */
	unsigned size;
	bool high;                 /* AH/CH/DH/BH: byte register 4..7 without REX */
};

static struct reg_info cs_reg(x86_reg r)
{
	static const x86_reg b[16] = { X86_REG_AL, X86_REG_CL, X86_REG_DL, X86_REG_BL,
				       X86_REG_SPL, X86_REG_BPL, X86_REG_SIL, X86_REG_DIL,
				       X86_REG_R8B, X86_REG_R9B, X86_REG_R10B, X86_REG_R11B,
				       X86_REG_R12B, X86_REG_R13B, X86_REG_R14B, X86_REG_R15B };
	static const x86_reg h[4] = { X86_REG_AH, X86_REG_CH, X86_REG_DH, X86_REG_BH };
	static const x86_reg w[16] = { X86_REG_AX, X86_REG_CX, X86_REG_DX, X86_REG_BX,
				       X86_REG_SP, X86_REG_BP, X86_REG_SI, X86_REG_DI,
				       X86_REG_R8W, X86_REG_R9W, X86_REG_R10W, X86_REG_R11W,
				       X86_REG_R12W, X86_REG_R13W, X86_REG_R14W, X86_REG_R15W };
	static const x86_reg d[16] = { X86_REG_EAX, X86_REG_ECX, X86_REG_EDX, X86_REG_EBX,
				       X86_REG_ESP, X86_REG_EBP, X86_REG_ESI, X86_REG_EDI,
				       X86_REG_R8D, X86_REG_R9D, X86_REG_R10D, X86_REG_R11D,
				       X86_REG_R12D, X86_REG_R13D, X86_REG_R14D, X86_REG_R15D };
	static const x86_reg q[16] = { X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX,
				       X86_REG_RSP, X86_REG_RBP, X86_REG_RSI, X86_REG_RDI,
				       X86_REG_R8, X86_REG_R9, X86_REG_R10, X86_REG_R11,
				       X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15 };
	for (int i = 0; i < 16; i++) {
		if (r == b[i])
			return (struct reg_info){ i, 1, false };
		if (i < 4 && r == h[i])
			return (struct reg_info){ i + 4, 1, true };
		if (r == w[i])
			return (struct reg_info){ i, 2, false };
		if (r == d[i])
			return (struct reg_info){ i, 4, false };
		if (r == q[i])
			return (struct reg_info){ i, 8, false };
	}
	if (r == X86_REG_RIP)
		return (struct reg_info){ REG_RIP, 8, false };
	if (r == X86_REG_EIP)
		return (struct reg_info){ REG_RIP, 4, false };
	return (struct reg_info){ -1, 0, false };
}

/* SDM Vol.2 2.1.5, 3.7.2.1 (Vol.1): a byte register number 4..7 names AH..BH
 * unless a REX prefix is present, then SPL..DIL. */
static bool byte_reg_is_high(unsigned num, const struct insn *in)
{
	return num >= 4 && num < 8 && !in->rex;
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
	if (!strcmp(sz, "dq"))
		return 16;
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
	/* SDM Vol.2 A.2.3: eAX is AX or EAX, rAX is AX, EAX or RAX. */
	if (!strcmp(name, "eAX") || !strcmp(name, "rAX")) {
		*num = R_AX;
		*size = name[0] == 'e' && in->osize == 8 ? 4 : in->osize;
		return true;
	}
	return false;
}

/* XMM register num (REX.R/REX.B applied) against Capstone's; a YMM register
 * for a VEX.256 operand whose size the row leaves to VEX.L (SDM Vol.2 A.2.2
 * "x"; the rows write no size letter there, "dq" or a scalar size for the
 * operands that stay 128 bits). */
static bool xmm_matches(const char *op, const cs_x86_op *c, unsigned num, const struct insn *in,
			char *why, size_t whylen)
{
	bool ymm = (in->vex & VEX_L256) && op[1] == 0;
	if (c->reg != (x86_reg)((ymm ? X86_REG_YMM0 : X86_REG_XMM0) + num)) {
		snprintf(why, whylen, "%s: %s%u", op, ymm ? "ymm" : "xmm", num);
		return false;
	}
	return true;
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

	/* B: the general register VEX.vvvv names (SDM Vol.2 A.2.1). */
	if (letter == 'B') {
		struct reg_info r = cs_reg(c->type == X86_OP_REG ? c->reg : X86_REG_INVALID);
		if (c->type != X86_OP_REG || r.num != in->vvvv || r.size != letter_size(sz, in)) {
			snprintf(why, whylen, "%s: VEX.vvvv register %u/%u vs capstone %d/%u", op, in->vvvv,
				 letter_size(sz, in), r.num, r.size);
			return false;
		}
		return true;
	}
	switch (letter) {
	case 'E': case 'M': case 'G': case 'R': case 'Z': case 'W': {
		bool want_mem = (letter == 'E' || letter == 'M' || letter == 'W') && in->mem;
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
			/* Capstone names the segment only when a prefix overrides it. In
			 * 64-bit mode ES/CS/SS/DS overrides are null prefixes (SDM Vol.1
			 * 3.3.7.1) that Capstone still prints. */
			int cseg = cs_sreg(c->mem.segment);
			if (cx->mode == 64 && cseg >= 0 && cseg != SR_FS && cseg != SR_GS)
				cseg = -1;
			if (cseg >= 0 && cseg != in->seg) {
				snprintf(why, whylen, "%s: segment", op);
				return false;
			}
			/* SDM Vol.1 3.7.5: without an override, SS when the base register
			 * is rBP or rSP (not R12/R13), else DS; Capstone's base decides. */
			struct reg_info cb = cs_reg(c->mem.base);
			int dflt = cb.num == R_BP || cb.num == R_SP ? SR_SS : SR_DS;
			if (cseg < 0 && in->seg != dflt) {
				snprintf(why, whylen, "%s: default segment %d, SDM says %d", op, in->seg, dflt);
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
		if (letter == 'W')
			return xmm_matches(op, c, in->rm, in, why, whylen);
		struct reg_info r = cs_reg(c->reg);
		num = letter == 'G' ? in->reg : letter == 'Z' ? in->reg : in->rm;
		size = letter_size(sz, in);
		/* A 16-bit r/m whose register form the SDM writes wider ("LAR r32,
		 * r32/m16", "LAR r64, r32/m16", "MOV Sreg, r/m64"): Capstone names
		 * the wide register; it is the same register. */
		bool size_ok = r.size == size ||
			       (letter == 'E' && !strcmp(sz, "w") && (r.size == 4 || r.size == in->osize));
		bool high_ok = r.high == (size == 1 && byte_reg_is_high((unsigned)num, in));
		if (r.num != num || !size_ok || !high_ok) {
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
		/* Iw is 16 bits unsigned (RET/RETF/ENTER); Capstone 4 stores it
		 * sign-extended to its operand size in 64-bit mode. */
		/* Ib is one unsigned byte (RORX's count, SDM Vol.2 RORX); Capstone 4
		 * sign-extends it to the operand size. */
		uint64_t m = mask_of(!strcmp(sz, "w") ? 2 : !strcmp(sz, "b") ? 1 : c->size ? c->size : letter_size(sz, in));
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
	case 'V': case 'U': case 'H':
		if (c->type != X86_OP_REG) {
			snprintf(why, whylen, "%s: capstone operand is not a register", op);
			return false;
		}
		/* H: the XMM/YMM register VEX.vvvv names (SDM Vol.2 A.2.1). */
		return xmm_matches(op, c, letter == 'V' ? in->reg : letter == 'H' ? in->vvvv : in->rm, in, why,
				   whylen);
	case 'C': case 'D': {
		/* REX.R selects CR8-15/DR8-15 (SDM Vol.2 MOV CR/DR). */
		x86_reg want = (letter == 'C' ? X86_REG_CR0 : X86_REG_DR0) + in->reg;
		if (c->type != X86_OP_REG || c->reg != want) {
			snprintf(why, whylen, "%s: %cR%u", op, letter, in->reg);
			return false;
		}
		return true;
	}
	case 'S':
		/* The Sreg field is ModRM bits 5:3; REX.R is ignored (SDM Vol.2 2.2.1.2). */
		if (c->type != X86_OP_REG || cs_sreg(c->reg) != ((in->modrm >> 3) & 7)) {
			snprintf(why, whylen, "%s: segment register %u", op, (in->modrm >> 3) & 7);
			return false;
		}
		return true;
	default:
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
 * encodings (map, opcode or -1, ModRM.reg or -1, register form only?, and optionally
 * the mode and the prefixes that must be present) and what of Capstone's view
 * is not trusted there. */
enum deviation_kind {
	DEV_REJECTS,               /* Capstone says invalid; the manuals define it */
	DEV_MEM_SIZE,              /* Capstone's memory operand size is wrong */
	DEV_OPERANDS,              /* Capstone's operands are wrong: length compared only */
	DEV_LENGTH,                /* Capstone's length is wrong: nothing comparable */
};
enum {                             /* prefix conditions, all must hold */
	C_66 = 1 << 0,             /* an operand-size prefix 66 */
	C_67 = 1 << 1,             /* an address-size prefix 67 */
	C_REXW = 1 << 2,
	C_NO_REXW = 1 << 3,
	C_REXR = 1 << 4,
	C_CS16 = 1 << 5,           /* what Capstone 4 takes for an operand-size override
				      in 64-bit mode: 66, or 67 when REX.W follows */
	C_F3 = 1 << 7,
	C_F2 = 1 << 8,
	C_REX = 1 << 9,            /* any REX prefix (64-bit mode) */
	C_MPFX_MISSED = 1 << 6,    /* a mandatory prefix Capstone 4 does not see as one:
				      in 16-bit code, or with a legacy prefix after it */
};
struct capstone_deviation {
	int map, opcode, reg;
	bool reg_form_only;
	enum deviation_kind kind;
	const char *why;
	unsigned mode;             /* 0: every mode */
	unsigned when;             /* C_* */
};
static const struct capstone_deviation capstone_deviations[] = {
	/* SDM Vol.2 NOP: "0F 1F /0 NOP r/m16, r/m32" -- a register r/m is allowed.
	 * Table A-3 marks 0F 19..0F 1E "NOP Ev" and Table A-6 group 16 (0F 18) mod=11B
	 * as reserved NOPs; Intel XED decodes all of them as NOP. Capstone 4 rejects
	 * the register forms. */
	{ 1, 0x18, -1, true, DEV_REJECTS, "reserved NOP (0F 18 mod=11B)", 0, 0 },
	{ 1, 0x19, -1, true, DEV_REJECTS, "reserved NOP 0F 19", 0, 0 },
	{ 1, 0x1a, -1, true, DEV_REJECTS, "reserved NOP 0F 1A", 0, 0 },
	{ 1, 0x1b, -1, true, DEV_REJECTS, "reserved NOP 0F 1B", 0, 0 },
	{ 1, 0x1c, -1, true, DEV_REJECTS, "reserved NOP 0F 1C", 0, 0 },
	{ 1, 0x1d, -1, true, DEV_REJECTS, "reserved NOP 0F 1D", 0, 0 },
	{ 1, 0x1e, -1, true, DEV_REJECTS, "reserved NOP 0F 1E", 0, 0 },
	{ 1, 0x1f, -1, true, DEV_REJECTS, "NOP r/m (0F 1F /0 register form)", 0, 0 },
	/* SDM Vol.2 LAR/LSL: "LAR r32, r32/m16", "LSL r32, r32/m16": the memory
	 * operand is a 16-bit selector whatever the operand size; Capstone says dword. */
	{ 1, 0x02, -1, false, DEV_MEM_SIZE, "LAR m16", 0, 0 },
	{ 1, 0x03, -1, false, DEV_MEM_SIZE, "LSL m16", 0, 0 },
	/* SDM Vol.2 LFENCE/MFENCE/SFENCE: "the processor ignores the r/m field of the
	 * ModR/M byte": 0F AE E8-EF, F0-F7, F8-FF all decode. Capstone 4 accepts rm=0 only. */
	{ 1, 0xae, 5, true, DEV_REJECTS, "LFENCE with r/m != 0", 0, 0 },
	{ 1, 0xae, 6, true, DEV_REJECTS, "MFENCE with r/m != 0", 0, 0 },
	{ 1, 0xae, 7, true, DEV_REJECTS, "SFENCE with r/m != 0", 0, 0 },
	/* SDM Vol.2 PUNPCKLQDQ/PUNPCKHQDQ (66 0F 6C/6D) and MOVQ xmm/m64, xmm (66 0F
	 * D6) are valid in every mode with any address size; Capstone 4 rejects them
	 * in 16-bit mode and with a 67 prefix. */
	{ 1, 0x6c, -1, false, DEV_REJECTS, "PUNPCKLQDQ in 16-bit mode / with 67", 0, 0 },
	{ 1, 0x6d, -1, false, DEV_REJECTS, "PUNPCKHQDQ in 16-bit mode / with 67", 0, 0 },
	{ 1, 0xd6, -1, false, DEV_REJECTS, "MOVQ (66 0F D6) in 16-bit mode / with 67", 0, 0 },
	/* SDM Vol.2 INVPCID: defined in real-address and virtual-8086 mode, with any
	 * address size (its exception lists have no #UD for either); Capstone 4
	 * rejects it in 16-bit mode and with a 67 prefix. */
	{ 2, 0x82, -1, false, DEV_REJECTS, "INVPCID in 16-bit mode / with 67", 0, 0 },
	/* The same for INVEPT and INVVPID (SDM Vol.2 INVEPT/INVVPID: #UD outside
	 * VMX operation is an execution check; the encodings decode in every mode). */
	{ 2, 0x80, -1, false, DEV_REJECTS, "INVEPT in 16-bit mode / with 67", 0, 0 },
	{ 2, 0x81, -1, false, DEV_REJECTS, "INVVPID in 16-bit mode / with 67", 0, 0 },
	/* APM3 PREFETCH/PREFETCHW (0F 0D /0-/7, memory forms): Capstone 4 rejects
	 * them in 16-bit mode and /2-/7 everywhere (AMD runs those as PREFETCH). */
	{ 1, 0x0d, -1, false, DEV_REJECTS, "PREFETCH/PREFETCHW (0F 0D) in 16-bit mode, /2-/7", 0, 0 },
	/* APM3 RDPRU (0F 01 FD, Zen 2): newer than Capstone 4. */
	{ 1, 0x01, 7, true, DEV_REJECTS, "RDPRU unknown to Capstone 4", 0, 0 },
	/* The same Capstone 4 gap for the SSE2 conversions CVTTPD2DQ/CVTPD2DQ/CVTDQ2PD
	 * (66/F2/F3 0F E6); and in 16-bit mode or with 67 it reads F3/F2 0F 2A/2C/2D
	 * (CVTSI2SS/SD, CVT(T)SS2SI, CVT(T)SD2SI, SDM Vol.2 Table A-3) as the MMX forms
	 * CVTPI2PS/CVT(T)PS2PI, as if the mandatory prefix were absent. */
	{ 1, 0xe6, -1, false, DEV_REJECTS, "CVT(T)PD2DQ/CVTDQ2PD (0F E6) in 16-bit mode / with 67", 0, 0 },
	/* SDM Vol.2 COMISS: "0F 2F /r COMISS xmm1, xmm2/m32"; Capstone 4 gives the
	 * memory operand 16 bytes (its COMISD, 66 0F 2F m64, shares the row here). */
	{ 1, 0x2f, -1, false, DEV_MEM_SIZE, "COMISS m32 read as m128", 0, 0 },
	{ 1, 0x2a, -1, false, DEV_OPERANDS, "F3/F2 0F 2A read as CVTPI2PS/PD", 16, 0 },
	{ 1, 0x2a, -1, false, DEV_OPERANDS, "F3/F2 0F 2A read as CVTPI2PS/PD", 0, C_67 },
	{ 1, 0x2c, -1, false, DEV_OPERANDS, "F3/F2 0F 2C read as CVTTPS2PI/PD2PI", 16, 0 },
	{ 1, 0x2c, -1, false, DEV_OPERANDS, "F3/F2 0F 2C read as CVTTPS2PI/PD2PI", 0, C_67 },
	{ 1, 0x2d, -1, false, DEV_OPERANDS, "F3/F2 0F 2D read as CVTPS2PI/PD2PI", 16, 0 },
	{ 1, 0x2d, -1, false, DEV_OPERANDS, "F3/F2 0F 2D read as CVTPS2PI/PD2PI", 0, C_67 },
	/* SDM Vol.2 2.1.1: prefixes of different groups "may be placed in any order"
	 * and 2.1.2 (mandatory prefixes) makes no exception, in any mode. Capstone 4
	 * ignores a mandatory 66/F2/F3 in 16-bit code and when another legacy prefix
	 * follows it (66 67 0F 60: "punpcklbw mm", F3 67 0F 10: "movups"): its
	 * operands are those of another instruction; the length still agrees. */
	{ 1, -1, -1, false, DEV_OPERANDS, "mandatory prefix in 16-bit code / not last", 0, C_MPFX_MISSED },
	/* The same gap where no MMX form exists to fall back on: 66 0F 73 /3 PSRLDQ
	 * and /7 PSLLDQ (SDM Vol.2 Table A-6 group 14) are rejected. */
	{ 1, 0x73, 3, true, DEV_REJECTS, "PSRLDQ in 16-bit code / 66 not last", 0, C_MPFX_MISSED },
	{ 1, 0x73, 7, true, DEV_REJECTS, "PSLLDQ in 16-bit code / 66 not last", 0, C_MPFX_MISSED },
	/* And for the later extensions' mandatory-prefix forms: SSE3 (66/F2 0F 7C,
	 * 7D, D0; F2 0F F0) and every 66 0F 38 / 0F 3A row (SSSE3's XMM forms,
	 * SSE4.1/4.2, AES, PCLMULQDQ) are rejected, or read as the MMX form
	 * (SSSE3: "pshufb mm0, ..."), in 16-bit code and when 66 is not last. */
	{ 1, 0x7c, -1, false, DEV_REJECTS, "HADDPS/PD in 16-bit code / prefix not last", 0, C_MPFX_MISSED },
	{ 1, 0x7d, -1, false, DEV_REJECTS, "HSUBPS/PD in 16-bit code / prefix not last", 0, C_MPFX_MISSED },
	{ 1, 0xd0, -1, false, DEV_REJECTS, "ADDSUBPS/PD in 16-bit code / prefix not last", 0, C_MPFX_MISSED },
	{ 1, 0xf0, -1, false, DEV_REJECTS, "LDDQU in 16-bit code / prefix not last", 0, C_MPFX_MISSED },
	{ 2, -1, -1, false, DEV_REJECTS, "66 0F 38 rows in 16-bit code / 66 not last", 0, C_MPFX_MISSED },
	{ 2, -1, -1, false, DEV_OPERANDS, "66 0F 38 rows in 16-bit code / 66 not last", 0, C_MPFX_MISSED },
	{ 3, -1, -1, false, DEV_REJECTS, "66 0F 3A rows in 16-bit code / 66 not last", 0, C_MPFX_MISSED },
	{ 3, -1, -1, false, DEV_OPERANDS, "66 0F 3A rows in 16-bit code / 66 not last", 0, C_MPFX_MISSED },
	/* The same gap for the scalar instructions with a mandatory prefix (SDM
	 * Vol.2 POPCNT, ADCX, ADOX, CRC32): Capstone 4 rejects F3 0F B8 and 66/F3
	 * 0F 38 F6, and reads F2 0F 38 F0/F1 as MOVBE (rejecting the register forms). */
	{ 1, 0xb8, -1, false, DEV_REJECTS, "POPCNT in 16-bit code / F3 not last", 0, C_MPFX_MISSED },
	{ 2, 0xf6, -1, false, DEV_REJECTS, "ADCX/ADOX in 16-bit code / 66, F3 not last", 0, C_MPFX_MISSED },
	{ 2, 0xf0, -1, false, DEV_OPERANDS, "CRC32 r, r/m8 read as MOVBE", 0, C_MPFX_MISSED },
	{ 2, 0xf1, -1, false, DEV_OPERANDS, "CRC32 r, r/m read as MOVBE", 0, C_MPFX_MISSED },
	{ 2, 0xf0, -1, true, DEV_REJECTS, "CRC32 r, r8 read as MOVBE (no register form)", 0, C_MPFX_MISSED },
	{ 2, 0xf1, -1, true, DEV_REJECTS, "CRC32 r, r read as MOVBE (no register form)", 0, C_MPFX_MISSED },

	/* --- 64-bit mode --- */
	/* SDM Vol.2 MOVSXD: "63 /r MOVSXD r16, r/m16", "MOVSXD r32, r/m32"; only
	 * REX.W + 63 is "r64, r/m32". Capstone 4 names a 64-bit destination
	 * without REX.W. */
	{ 0, 0x63, -1, false, DEV_OPERANDS, "MOVSXD without REX.W", 64, C_NO_REXW },
	/* SDM Vol.2 2.2.1.2: "REX.R is ignored when ModR/M specifies other registers"
	 * than GPR/SSE/CR/DR: 44 8C /r is MOV r/m, Sreg. Capstone 4 rejects it. */
	{ 0, 0x8c, -1, false, DEV_REJECTS, "MOV r/m, Sreg with REX.R", 64, C_REXR },
	{ 0, 0x8e, -1, false, DEV_REJECTS, "MOV Sreg, r/m with REX.R", 64, C_REXR },
	/* SDM Vol.2 JMP, CALL, Jcc: near branches in 64-bit mode have a 64-bit
	 * operand size whatever 66 says ("rel16 N.S. in 64-bit mode"); hvemu
	 * follows Intel (emu/isa/branch.isa). Capstone 4 reads 66 E8/E9/0F 8x (and
	 * 67 REX.W E8...) as rel16 (AMD's behaviour, APM3 "Near branches"), or
	 * truncates the target. */
	{ 0, 0xe8, -1, false, DEV_LENGTH, "CALL rel with 66", 64, C_CS16 },
	{ 0, 0xe9, -1, false, DEV_LENGTH, "JMP rel with 66", 64, C_CS16 },
	{ 1, 0x80, -1, false, DEV_LENGTH, "JO rel with 66", 64, C_CS16 },
	{ 1, 0x81, -1, false, DEV_LENGTH, "JNO rel with 66", 64, C_CS16 },
	{ 1, 0x82, -1, false, DEV_LENGTH, "JB rel with 66", 64, C_CS16 },
	{ 1, 0x83, -1, false, DEV_LENGTH, "JNB rel with 66", 64, C_CS16 },
	{ 1, 0x84, -1, false, DEV_LENGTH, "JZ rel with 66", 64, C_CS16 },
	{ 1, 0x85, -1, false, DEV_LENGTH, "JNZ rel with 66", 64, C_CS16 },
	{ 1, 0x86, -1, false, DEV_LENGTH, "JBE rel with 66", 64, C_CS16 },
	{ 1, 0x87, -1, false, DEV_LENGTH, "JNBE rel with 66", 64, C_CS16 },
	{ 1, 0x88, -1, false, DEV_LENGTH, "JS rel with 66", 64, C_CS16 },
	{ 1, 0x89, -1, false, DEV_LENGTH, "JNS rel with 66", 64, C_CS16 },
	{ 1, 0x8a, -1, false, DEV_LENGTH, "JP rel with 66", 64, C_CS16 },
	{ 1, 0x8b, -1, false, DEV_LENGTH, "JNP rel with 66", 64, C_CS16 },
	{ 1, 0x8c, -1, false, DEV_LENGTH, "JL rel with 66", 64, C_CS16 },
	{ 1, 0x8d, -1, false, DEV_LENGTH, "JNL rel with 66", 64, C_CS16 },
	{ 1, 0x8e, -1, false, DEV_LENGTH, "JLE rel with 66", 64, C_CS16 },
	{ 1, 0x8f, -1, false, DEV_LENGTH, "JNLE rel with 66", 64, C_CS16 },
	/* SDM Vol.2 RET: "C2 iw": the immediate is 16 bits in every mode. Capstone 4
	 * reads four bytes when REX.W follows a 66 or 67 prefix (48 C2 alone is right). */
	{ 0, 0xc2, -1, false, DEV_LENGTH, "RET imm16 with 66/67 and REX.W", 64, C_CS16 | C_REXW },
	/* SDM Vol.2 MOVQ: "F3 0F 7E /r MOVQ xmm1, xmm2/m64" has no REX.W form that
	 * differs; Capstone 4 reads F3 REX.W 0F 7E as the MMX "movq r/m64, mm". */
	{ 1, 0x7e, -1, false, DEV_OPERANDS, "MOVQ (F3 0F 7E) with REX.W", 64, C_F3 | C_REXW },
	/* SDM Vol.2 VMREAD/VMWRITE (NP 0F 78/79): 67 only sets the address size.
	 * Capstone 4 takes 67 before REX.W for 66 and decodes the SSE4a EXTRQ/INSERTQ
	 * forms (66/F2 0F 78/79, APM4) with their immediates. */
	{ 1, 0x78, -1, false, DEV_LENGTH, "VMREAD with 67 and REX.W read as EXTRQ", 64, C_67 | C_REXW },
	{ 1, 0x79, -1, false, DEV_LENGTH, "VMWRITE with 67 and REX.W read as INSERTQ", 64, C_67 | C_REXW },
	/* SDM Vol.1 3.6.1, Table 3-4: with REX.W = 1 the operand size is 64 bits and
	 * 66 is ignored (and 67 never sets the operand size). Capstone 4 gives
	 * these 16-bit operands with 66 or 67 before REX.W: PUSH/POP r/m ("word
	 * ptr"), PUSH imm32 (not sign-extended), IN/OUT (AX for EAX). */
	{ 0, 0xff, 6, false, DEV_MEM_SIZE, "PUSH r/m with 66/67 and REX.W", 64, C_CS16 | C_REXW },
	{ 0, 0x8f, 0, false, DEV_MEM_SIZE, "POP r/m with 66/67 and REX.W", 64, C_CS16 | C_REXW },
	{ 0, 0x68, -1, false, DEV_OPERANDS, "PUSH imm32 with 66/67 and REX.W", 64, C_CS16 | C_REXW },
	{ 0, 0xe5, -1, false, DEV_OPERANDS, "IN eAX, imm8 with 66/67 and REX.W", 64, C_CS16 | C_REXW },
	{ 0, 0xe7, -1, false, DEV_OPERANDS, "OUT imm8, eAX with 66/67 and REX.W", 64, C_CS16 | C_REXW },
	{ 0, 0xed, -1, false, DEV_OPERANDS, "IN eAX, DX with 66/67 and REX.W", 64, C_CS16 | C_REXW },
	{ 0, 0xef, -1, false, DEV_OPERANDS, "OUT DX, eAX with 66/67 and REX.W", 64, C_CS16 | C_REXW },
	/* SDM Vol.2 2.1.2 / Table A-3: only 66 selects the packed-double forms of 0F
	 * 2E and 0F 5A; Capstone 4 also takes 67 before REX.W for it ("ucomisd",
	 * "cvtpd2ps") and gives the memory operand their size. */
	{ 1, 0x2e, -1, false, DEV_MEM_SIZE, "UCOMISS with 67 and REX.W read as UCOMISD", 64, C_67 | C_REXW },
	{ 1, 0x5a, -1, false, DEV_MEM_SIZE, "CVTPS2PD with 67 and REX.W read as CVTPD2PS", 64, C_67 | C_REXW },
	/* SDM Vol.2 XCHG, Vol.1 Table 3-4: 66 67 91 is XCHG AX, CX (67 has no effect
	 * on register operands). Capstone 4 in 64-bit mode says "xchg eax, cx". */
	{ 0, 0x91, -1, false, DEV_OPERANDS, "XCHG with 66 and 67", 64, C_66 | C_67 },
	{ 0, 0x92, -1, false, DEV_OPERANDS, "XCHG with 66 and 67", 64, C_66 | C_67 },
	{ 0, 0x93, -1, false, DEV_OPERANDS, "XCHG with 66 and 67", 64, C_66 | C_67 },
	{ 0, 0x94, -1, false, DEV_OPERANDS, "XCHG with 66 and 67", 64, C_66 | C_67 },
	{ 0, 0x95, -1, false, DEV_OPERANDS, "XCHG with 66 and 67", 64, C_66 | C_67 },
	{ 0, 0x96, -1, false, DEV_OPERANDS, "XCHG with 66 and 67", 64, C_66 | C_67 },
	{ 0, 0x97, -1, false, DEV_OPERANDS, "XCHG with 66 and 67", 64, C_66 | C_67 },
	{ -1, -1, -1, false, DEV_REJECTS, NULL, 0, 0 },
};

/* The prefixes of one test case, for the deviation conditions. */
static unsigned prefix_conditions(const struct insn *in, unsigned mode, const uint8_t *bytes,
				  unsigned npfx)
{
	unsigned c = 0;
	if (memchr(bytes, 0x66, npfx))
		c |= C_66;
	if (memchr(bytes, 0x67, npfx))
		c |= C_67;
	if (memchr(bytes, 0xf3, npfx))
		c |= C_F3;
	if (memchr(bytes, 0xf2, npfx))
		c |= C_F2;
	for (unsigned i = 0; mode == 64 && i < npfx; i++)
		if ((bytes[i] & 0xf0) == 0x40)
			c |= C_REX;
	c |= (in->rex & 8) ? C_REXW : C_NO_REXW;
	if (in->rex & 4)
		c |= C_REXR;
	if ((c & C_66) || ((c & C_67) && (in->rex & 8)))
		c |= C_CS16;
	if (in->row != UINT16_MAX) {
		static const uint8_t mandatory[] = { [PFX_66] = 0x66, [PFX_F3] = 0xf3, [PFX_F2] = 0xf2 };
		unsigned want = isa_decode_rows[in->row].prefix;
		int last = -1;
		for (unsigned i = 0; i < npfx; i++)
			if (!(mode == 64 && (bytes[i] & 0xf0) == 0x40))
				last = bytes[i];
		if (want < sizeof(mandatory) && mandatory[want] &&
		    (mode == 16 || last != mandatory[want]))
			c |= C_MPFX_MISSED;
	}
	return c;
}

static const struct capstone_deviation *known_deviation(const struct insn *in, unsigned mode,
							unsigned conds, enum deviation_kind kind)
{
	for (const struct capstone_deviation *d = capstone_deviations; d->why; d++)
		if (d->kind == kind && d->map == in->map && (d->opcode < 0 || d->opcode == in->opcode) &&
		    (d->reg < 0 || d->reg == ((in->modrm >> 3) & 7)) &&
		    (!d->reg_form_only || (in->modrm >> 6) == 3) &&
		    (!d->mode || d->mode == mode) && (conds & d->when) == d->when)
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

/* SDM Vol.2 Table A-2, superscript i64: one-byte opcodes that are invalid in
 * 64-bit mode (40-4F are REX prefixes there, not opcodes). hvemu must raise #UD.
 * C4/C5 (LES/LDS) and 62 (BOUND) are the VEX and EVEX escapes in 64-bit mode
 * (SDM Vol.2 2.3.5, 2.6.1); hvemu models no AVX, and a VEX/EVEX encoding is #UD
 * when CPUID reports no AVX/AVX-512 (SDM Vol.2 2.8, exception classes), while
 * Capstone decodes the AVX instruction: counted as excluded, not compared. */
static bool invalid_in_64(unsigned op)
{
	switch (op) {
	case 0x06: case 0x07: case 0x0e: case 0x16: case 0x17: case 0x1e: case 0x1f:
	case 0x27: case 0x2f: case 0x37: case 0x3f: case 0x60: case 0x61: case 0x62:
	case 0x82: case 0x9a: case 0xc4: case 0xc5: case 0xce: case 0xd4: case 0xd5:
	case 0xd6: case 0xea:
		return true;
	default:
		return false;
	}
}

/* Decode one byte string both ways and compare. */
static void check_case(csh cs, struct stats *st, unsigned mode, const uint8_t *bytes,
		       unsigned npfx)
{
	bool has_lock = memchr(bytes, 0xf0, npfx) != NULL;
	/* 64-bit code sits above 4 GiB so a target truncated to 32 bits shows. */
	const uint64_t addr = mode == 64 ? 0x123456789000ull : 0x1000;
	struct insn in;
	cs_insn *ci = NULL;
	char why[160] = "";

	int len = decode_insn(bytes, INSN_MAX_LEN, mode, &in);
	size_t n = cs_disasm(cs, bytes, INSN_MAX_LEN, addr, 1, &ci);
	const cs_insn *c = n ? ci : NULL;
	unsigned conds = prefix_conditions(&in, mode, bytes, npfx);

	if (mode == 64 && len > 0 && in.map == 0 && invalid_in_64(in.opcode)) {
		st->i64_checked++;
		if (!insn_is_undefined(&in))
			report(st, mode, bytes, &in, len, c, "SDM Table A-2 i64: hvemu decodes it");
		else if (!c)
			st->agree_ud++;
		else if (in.opcode == 0x62 || in.opcode == 0xc4 || in.opcode == 0xc5)
			st->vex_excluded++;
		else
			report(st, mode, bytes, &in, len, c, "i64 opcode: capstone decodes it");
		goto out;
	}

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
			char *m = st->missing[mode / 32][in.map][in.opcode][(in.modrm >> 3) & 7];
			if (!m[0])
				snprintf(m, sizeof(st->missing[0][0][0][0]), "%s", c->mnemonic);
		} else
			st->agree_ud++;
		goto out;
	}
	if (!c) {
		if (insn_is_undefined(&in)) {
			st->agree_ud++;
		} else if (known_deviation(&in, mode, conds, DEV_REJECTS)) {
			st->known_capstone++;
		} else {
			report(st, mode, bytes, &in, len, NULL, "hvemu decodes, capstone says invalid");
		}
		goto out;
	}
	if (!insn_is_undefined(&in) && known_deviation(&in, mode, conds, DEV_LENGTH)) {
		st->known_capstone++;
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
	} else if (insn_is_undefined(&in) && in.vex && npfx && (conds & (C_66 | C_F3 | C_F2 | C_REX))) {
		/* SDM Vol.2 2.3.2: a 66, F2, F3 or REX prefix before VEX is #UD;
		 * Capstone 4 decodes the instruction. */
		st->known_capstone++;
		goto out;
	} else if (insn_is_undefined(&in) && (isa_rows[in.row].flags & IF_VSIB) &&
		   (in.asize == 2 || (in.modrm & 7) != 4)) {
		/* SDM Vol.2 2.3.12 and VGATHERDPS "#UD": a VSIB operand needs a
		 * SIB byte and a 32/64-bit address size; Capstone 4 decodes the
		 * gathers without either. */
		st->known_capstone++;
		goto out;
	} else if (insn_is_undefined(&in)) {
		report(st, mode, bytes, &in, len, c, "hvemu #UD, capstone decodes");
		goto out;
	}

	if (known_deviation(&in, mode, conds, DEV_OPERANDS)) {
		st->known_capstone++;
		goto out;
	}
	struct cmp_ctx cx = {
		.mode = mode, .addr = addr,
		.mem_size = !known_deviation(&in, mode, conds, DEV_MEM_SIZE) &&
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

/* Prefix combinations tried with every ModRM byte; sib: also every SIB byte
 * behind the SIB ModRM forms. Not 66 together with F2/F3: Capstone 4 then sizes
 * operands as if 66 were absent while counting a 16-bit immediate (66 F3 05 iw:
 * "add eax"), rejects 66 F3 A1, and reads 66 F3 E8 as rel32 -- SDM Vol.2 2.1.1
 * gives F2/F3 no such effect on non-string instructions, so that view cannot be
 * compared. */
struct prefix_set {
	uint8_t n, bytes[5];
	bool sib;
};
static const struct prefix_set prefix_sets_legacy[] = {
	{ 0, { 0 }, true }, { 1, { 0x66 }, true }, { 1, { 0x67 }, true }, { 2, { 0x66, 0x67 }, true },
	{ 1, { 0xf3 }, false }, { 1, { 0xf2 }, false }, { 1, { 0xf0 }, false },
	{ 2, { 0xf0, 0x66 }, false }, { 3, { 0xf0, 0x67, 0x2e }, false }, { 1, { 0x26 }, false },
	{ 1, { 0x2e }, false }, { 1, { 0x36 }, false }, { 1, { 0x3e }, false },
	{ 1, { 0x64 }, false }, { 1, { 0x65 }, false }, { 2, { 0xf3, 0x67 }, false },
	{ 2, { 0xf2, 0x67 }, false }, { 4, { 0x65, 0x67, 0x66, 0x3e }, false },
	{ 3, { 0x26, 0x66, 0x36 }, false },
};
/* 64-bit mode: REX.W/R/X/B alone and with 66/67/F2/F3/LOCK/segments (REX last,
 * SDM Vol.2 2.2.1), REX followed by a legacy prefix (ignored: 48 66 is just 66),
 * two REX prefixes (only the last counts), and the null segment prefixes. */
static const struct prefix_set prefix_sets_64[] = {
	{ 0, { 0 }, true }, { 1, { 0x67 }, true }, { 1, { 0x66 }, false },
	{ 1, { 0x48 }, true }, { 1, { 0x41 }, true }, { 1, { 0x42 }, true }, { 1, { 0x44 }, false },
	{ 1, { 0x4f }, true }, { 1, { 0x40 }, false }, { 2, { 0x67, 0x43 }, true },
	{ 2, { 0x66, 0x48 }, false }, { 2, { 0x66, 0x45 }, false }, { 2, { 0x48, 0x66 }, false },
	{ 2, { 0x66, 0x67 }, false }, { 2, { 0x4c, 0x41 }, false }, { 1, { 0xf3 }, false },
	{ 1, { 0xf2 }, false }, { 2, { 0xf3, 0x48 }, false }, { 2, { 0xf2, 0x41 }, false },
	{ 1, { 0xf0 }, false }, { 2, { 0xf0, 0x48 }, false }, { 3, { 0xf0, 0x66, 0x45 }, false },
	{ 1, { 0x26 }, false }, { 1, { 0x2e }, false }, { 1, { 0x36 }, false },
	{ 1, { 0x3e }, false }, { 1, { 0x64 }, false }, { 2, { 0x65, 0x49 }, false },
	{ 3, { 0x65, 0x67, 0x4d }, false }, { 4, { 0x26, 0x66, 0x36, 0x4a }, false },
};

/* Build prefixes + opcode + [modrm [sib]] + random tail into buf[15]. */
static void build(uint8_t *buf, const struct prefix_set *pfx, unsigned map, unsigned opcode,
		  int modrm, int sib)
{
	unsigned p = 0;
	for (unsigned i = 0; i < pfx->n; i++)
		buf[p++] = pfx->bytes[i];
	if (map >= 1)
		buf[p++] = 0x0f;
	if (map >= 2)
		buf[p++] = map == 2 ? 0x38 : 0x3a;
	buf[p++] = (uint8_t)opcode;
	if (modrm >= 0)
		buf[p++] = (uint8_t)modrm;
	if (sib >= 0)
		buf[p++] = (uint8_t)sib;
	while (p < INSN_MAX_LEN)
		buf[p++] = rng_byte();
}

static bool is_prefix(unsigned b, unsigned mode)
{
	return b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x64 || b == 0x65 ||
	       b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 ||
	       (mode == 64 && (b & 0xf0) == 0x40);
}

/* Every opcode of the four maps in one mode (x87 escapes excepted: Capstone 4
 * and the x87 rows are compared elsewhere). */
static unsigned long run_mode(csh cs, struct stats *st, unsigned mode)
{
	const struct prefix_set *sets = mode == 64 ? prefix_sets_64 : prefix_sets_legacy;
	unsigned nsets = mode == 64 ? sizeof(prefix_sets_64) / sizeof(prefix_sets_64[0])
				    : sizeof(prefix_sets_legacy) / sizeof(prefix_sets_legacy[0]);
	unsigned long opcodes_with_rows = 0;
	uint8_t buf[INSN_MAX_LEN];

	for (unsigned map = 0; map <= 3; map++) {
		for (unsigned op = 0; op < 256; op++) {
			if (map == 0 && (op == 0x0f || is_prefix(op, mode) || (op >= 0xd8 && op <= 0xdf)))
				continue;
			if (map == 1 && (op == 0x38 || op == 0x3a))
				continue;
			const struct isa_opcode *o = &isa_opcodes[map][op];
			if (o->count)
				opcodes_with_rows++;
			for (unsigned p = 0; p < nsets; p++) {
				const struct prefix_set *ps = &sets[p];
				if (!o->count) {
					/* Undefined in hvemu: Capstone must agree, or it is a row
					 * still to be written. Try ModRM-less and every ModRM. */
					build(buf, ps, map, op, -1, -1);
					check_case(cs, st, mode, buf, ps->n);
					if (p < 3)
						for (int m = 0; m < 256; m++) {
							build(buf, ps, map, op, m, -1);
							check_case(cs, st, mode, buf, ps->n);
						}
					continue;
				}
				if (!o->modrm) {
					for (int k = 0; k < 8; k++) {
						build(buf, ps, map, op, -1, -1);
						check_case(cs, st, mode, buf, ps->n);
					}
					continue;
				}
				for (int m = 0; m < 256; m++) {
					build(buf, ps, map, op, m, -1);
					check_case(cs, st, mode, buf, ps->n);
				}
				/* Every SIB byte behind mod 0/1/2 rm=4, where a SIB follows:
				 * 32/64-bit addressing (16-bit code only with 67). */
				bool has67 = memchr(ps->bytes, 0x67, ps->n) != NULL;
				bool sib_forms = mode == 64 || (mode == 32) != has67;
				if (!sib_forms || !ps->sib)
					continue;
				for (int mod = 0; mod < 3; mod++)
					for (int sib = 0; sib < 256; sib++) {
						int m = (mod << 6) | (((sib >> 3) & 7) << 3) | 4;
						build(buf, ps, map, op, m, sib);
						check_case(cs, st, mode, buf, ps->n);
					}
			}
		}
	}
	return opcodes_with_rows;
}

/* The VEX rows (isa_vex_opcodes): every ModRM byte of every row's map, opcode
 * and VEX.pp, with VEX.W 0/1, VEX.L 0/1, VEX.vvvv 1111b or another value and,
 * in 64-bit mode, the eight R/X/B combinations (outside it R and X are 1, or
 * the bytes are LES; B is flipped too, which the CPU ignores there: SDM Vol.2
 * 2.3.5); each also with a 67 prefix; and, with W = L = 0, every SIB byte
 * behind one ModRM form. Returns the number of opcodes with VEX rows. */
static unsigned long run_vex(csh cs, struct stats *st, unsigned mode)
{
	static const uint8_t pp_of[] = { [PFX_NONE] = 0, [PFX_66] = 1, [PFX_F3] = 2, [PFX_F2] = 3 };
	static const uint8_t vvvv_others[] = { 0, 6, 9, 14 };
	unsigned long opcodes = 0;
	uint8_t buf[INSN_MAX_LEN];

	for (unsigned map = 1; map <= 3; map++)
		for (unsigned op = 0; op < 256; op++) {
			const struct isa_opcode *o = &isa_vex_opcodes[map][op];
			if (!o->count)
				continue;
			opcodes++;
			unsigned pps = 0;                   /* the VEX.pp values the rows name */
			for (unsigned i = 0; i < o->count; i++)
				pps |= 1u << pp_of[isa_decode_rows[isa_candidates[o->first + i]].prefix];
			for (unsigned pp = 0; pp < 4; pp++) {
				if (!((pps >> pp) & 1))
					continue;
				/* v: W, L, vvvv 1111b or not, then R X B (64-bit mode) or B, then 67. */
				for (unsigned v = 0; v < 8u * (mode == 64 ? 16 : 4); v++) {
					unsigned w = v & 1, l = (v >> 1) & 1;
					unsigned vvvv = (v >> 2) & 1 ? vvvv_others[rng_byte() & 3] : 15;
					unsigned rxb = mode == 64 ? (v >> 3) & 7 : (v >> 3) & 1;
					unsigned a32 = mode == 64 ? (v >> 6) & 1 : (v >> 4) & 1;
					bool sib = (v & 3) == 0 && !(mode == 16 && !a32);
					for (int m = 0; m < 256 + (sib ? 256 : 0); m++) {
						unsigned n = 0;
						if (a32)
							buf[n++] = 0x67;
						unsigned npfx = n;
						buf[n++] = 0xc4;
						buf[n++] = (uint8_t)((~rxb & 7) << 5 | map);
						buf[n++] = (uint8_t)(w << 7 | (~vvvv & 15) << 3 | l << 2 | pp);
						buf[n++] = (uint8_t)op;
						/* The second 256: ModRM mod 0/1/2 rm 4 with every SIB
						 * byte (a random mod), where a SIB follows. */
						if (m < 256) {
							buf[n++] = (uint8_t)m;
						} else {
							buf[n++] = (uint8_t)((rng_byte() % 3) << 6 | (m & 0x38) | 4);
							buf[n++] = (uint8_t)(m - 256);
						}
						while (n < INSN_MAX_LEN)
							buf[n++] = rng_byte();
						check_case(cs, st, mode, buf, npfx);
					}
				}
			}
		}
	return opcodes;
}

/* SDM Vol.2 2.3.11: an instruction longer than 15 bytes is #GP(0), whatever
 * the bytes. Redundant prefixes before a long instruction, lengths 11..18:
 * hvemu must decode exactly up to 15 and return -1 beyond, also with more
 * bytes available; Capstone sees the same 15 bytes. */
static void check_length_limit(csh cs, struct stats *st, unsigned mode)
{
	/* ADD [eSP+eBP*4+disp32], imm32 (also with REX.W in 64-bit mode: REX last);
	 * MOV r64, imm64 in 64-bit mode. */
	static const uint8_t add_mem[] = { 0x66, 0x67, 0x81, 0x84, 0xac, 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t mov_imm64[] = { 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t fill[] = { 0x3e, 0x26, 0x2e, 0x36, 0x64, 0xf3 };
	for (unsigned body = 0; body < (mode == 64 ? 3u : 1u); body++) {
		/* 16-bit code: 66 67 make it the 32-bit form; elsewhere skip them. */
		unsigned skip = mode == 16 ? 0 : 2;
		const uint8_t *b = body == 1 ? mov_imm64 : add_mem + skip;
		unsigned blen = body == 1 ? sizeof(mov_imm64) : sizeof(add_mem) - skip;
		for (unsigned k = 0; k <= 8; k++) {
			uint8_t buf[24];
			unsigned p = 0;
			for (unsigned i = 0; i < k; i++)
				buf[p++] = fill[i % sizeof(fill)];
			if (body == 2)
				buf[p++] = 0x48;
			memcpy(buf + p, b, blen);
			p += blen;
			unsigned want = p;
			while (p < sizeof(buf))
				buf[p++] = 0x90;
			struct insn in;
			int len = decode_insn(buf, sizeof(buf), mode, &in);
			st->length_checked++;
			if (want <= INSN_MAX_LEN ? len != (int)want : len != -1) {
				char why[80];
				snprintf(why, sizeof(why), "length limit: %u bytes, hvemu says %d", want, len);
				report(st, mode, buf, &in, len, NULL, why);
			}
			uint8_t first15[INSN_MAX_LEN];
			memcpy(first15, buf, sizeof(first15));
			check_case(cs, st, mode, first15, k);
		}
	}
}

/* A row flagged no64 must be on an opcode SDM Table A-2 marks i64, be one of
 * 40-4F (REX prefixes in 64-bit mode, SDM Vol.2 2.2.1), or share its opcode
 * with an only64 row that replaces it (63: ARPL / MOVSXD). */
static void check_no64_rows(struct stats *st)
{
	for (unsigned map = 0; map < 4; map++)
		for (unsigned op = 0; op < 256; op++) {
			const struct isa_opcode *o = &isa_opcodes[map][op];
			bool no64 = false, only64 = false;
			for (unsigned i = 0; i < o->count; i++) {
				uint16_t f = isa_rows[isa_candidates[o->first + i]].flags;
				no64 |= (f & IF_NO64) != 0;
				only64 |= (f & IF_ONLY64) != 0;
			}
			bool rex = map == 0 && (op & 0xf0) == 0x40;   /* INC/DEC: REX in 64-bit mode */
			if (no64 && !only64 && !rex && !(map == 0 && invalid_in_64(op))) {
				st->mismatches++;
				printf("MISMATCH map %u opcode %02X: a no64 row, but SDM Table A-2 "
				       "defines it in 64-bit mode\n", map, op);
			}
		}
}

int main(int argc, char **argv)
{
	bool verbose = argc > 1 && !strcmp(argv[1], "-v");
	static struct stats st;
	static const unsigned modes[] = { 16, 32, 64 };

	check_no64_rows(&st);
	for (unsigned mi = 0; mi < 3; mi++) {
		unsigned mode = modes[mi];
		csh cs;
		cs_mode cm = mode == 16 ? CS_MODE_16 : mode == 32 ? CS_MODE_32 : CS_MODE_64;
		if (cs_open(CS_ARCH_X86, cm, &cs) != CS_ERR_OK) {
			fprintf(stderr, "cs_open failed\n");
			return 99;
		}
		cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
		struct stats before = st;
		unsigned long rows = run_mode(cs, &st, mode);
		unsigned long vex_opcodes = run_vex(cs, &st, mode);
		check_length_limit(cs, &st, mode);
		printf("%u-bit: %lu opcodes with rows (%lu VEX), %lu cases compared, %lu agree #UD, "
		       "%lu mismatches\n", mode, rows, vex_opcodes, st.compared - before.compared,
		       st.agree_ud - before.agree_ud, st.mismatches - before.mismatches);
		cs_close(&cs);
	}

	printf("decoder-vs-capstone: %lu cases compared (%lu operand-by-operand), %lu LOCK "
	       "checks, %lu agree #UD, %lu i64 checks (%lu VEX/EVEX excluded), %lu length-limit "
	       "checks, %lu not in the table yet, %lu documented capstone deviations, "
	       "%lu mismatches\n",
	       st.compared, st.operands, st.lock_checked, st.agree_ud, st.i64_checked,
	       st.vex_excluded, st.length_checked, st.not_in_table, st.known_capstone,
	       st.mismatches);
	if (verbose) {
		/* What Capstone decodes that no row covers yet (map, opcode, ModRM.reg
		 * for ModRM opcodes; reg is 0 for the others). */
		static const char *const map_name[4] = { "", "0F ", "0F 38 ", "0F 3A " };
		for (unsigned mi = 0; mi < 3; mi++) {
			printf("%u-bit, not in the table yet:", modes[mi]);
			for (unsigned map = 0; map < 4; map++)
				for (unsigned op = 0; op < 256; op++)
					for (unsigned reg = 0; reg < 8; reg++)
						if (st.missing[mi][map][op][reg][0])
							printf(" %s%02X/%u=%s;", map_name[map], op, reg,
							       st.missing[mi][map][op][reg]);
			printf("\n");
		}
	}
	printf("length-only (Capstone lists the operands differently):");
	for (unsigned r = 0; r < isa_row_count && r < sizeof(st.shape_skipped); r++)
		if (st.shape_skipped[r])
			printf(" %s %s;", isa_rows[r].mnemonic, isa_rows[r].operands);
	printf("\n");
	return st.mismatches || !st.compared ? 1 : 0;
}
