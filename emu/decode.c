/* Instruction decoder: bytes -> struct insn, driven by the generated tables.
 *
 * Prefixes (SDM Vol.2 2.1.1), REX (2.2.1), the opcode maps, ModRM/SIB and
 * displacement (2.1.5, Tables 2-1..2-3), immediates. Everything that depends on
 * the mode is resolved here once, so handlers never look at raw bytes.
 */
#include <string.h>

#include "emu/cpu_model.h"
#include "emu/fast_forms.h"
#include "emu/decode_table.h"
#include "emu/insn.h"
#include "emu/quirks.h"
#include "isa_handlers.h"

/* #UD for undefined opcodes, misplaced LOCK and mode-invalid instructions
 * (SDM Vol.2 Appendix A: blank cells are reserved; LOCK: Vol.2 LOCK "#UD"). */
static status_t insn_undefined(struct cpu *cpu, const struct insn *in)
{
	(void)in;
	return cpu_raise(cpu, EXC_UD);
}

struct cursor {
	const uint8_t *bytes;
	unsigned avail, pos;
	int status;                /* 0 ok, 1 need more bytes, 2 over 15 bytes */
};

/* Take n bytes little-endian; on shortage record why and return 0. */
static uint64_t take(struct cursor *c, unsigned n)
{
	if (c->pos + n > INSN_MAX_LEN) {
		c->status = c->status ? c->status : 2;
		c->pos += n;
		return 0;
	}
	if (c->pos + n > c->avail) {
		c->status = c->status ? c->status : 1;
		c->pos += n;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)c->bytes[c->pos + i] << (8 * i);
	c->pos += n;
	return v;
}

/* 16-bit ModRM memory forms (SDM Vol.2 Table 2-1): base, index, default segment. */
static const uint8_t modrm16_base[8] = { R_BX, R_BX, R_BP, R_BP, REG_NONE, REG_NONE, R_BP, R_BX };
static const uint8_t modrm16_index[8] = { R_SI, R_DI, R_SI, R_DI, R_SI, R_DI, REG_NONE, REG_NONE };

static inline __attribute__((always_inline)) void decode_modrm_mem(struct cursor *c, unsigned mode, uint8_t rex,
							    struct insn *in)
{
	unsigned mod = in->modrm >> 6, rm = in->modrm & 7;
	bool bp_based = false;

	in->base = in->index = REG_NONE;
	in->scale = 0;
	in->disp = 0;
	if (in->asize == 2) {
		if (mod == 0 && rm == 6) {
			in->disp = (int16_t)take(c, 2);
		} else {
			in->base = modrm16_base[rm];
			in->index = modrm16_index[rm];
			bp_based = in->base == R_BP;
			if (mod == 1)
				in->disp = (int8_t)take(c, 1);
			else if (mod == 2)
				in->disp = (int16_t)take(c, 2);
		}
	} else {
		if (rm == 4) {
			/* SIB (SDM Vol.2 Table 2-3). */
			uint8_t sib = (uint8_t)take(c, 1);
			unsigned base = sib & 7, index = ((sib >> 3) & 7) | ((rex & 2) << 2);
			in->scale = sib >> 6;
			if (index != R_SP)
				in->index = (uint8_t)index;
			if (base == 5 && mod == 0) {
				in->disp = (int32_t)take(c, 4);
			} else {
				in->base = (uint8_t)(base | ((rex & 1) << 3));
				bp_based = in->base == R_SP || in->base == R_BP;
			}
		} else if (rm == 5 && mod == 0) {
			/* disp32; RIP-relative in 64-bit mode (SDM Vol.2 2.2.1.6). */
			in->disp = (int32_t)take(c, 4);
			if (mode == 64)
				in->base = REG_RIP;
		} else {
			in->base = (uint8_t)(rm | ((rex & 1) << 3));
			bp_based = in->base == R_BP;
		}
		if (mod == 1)
			in->disp = (int8_t)take(c, 1);
		else if (mod == 2)
			in->disp = (int32_t)take(c, 4);
	}
	/* SDM Vol.1 3.7.5: rBP/rSP-based addresses default to SS; R12/R13 (the
	 * same low bits with REX.B) are ordinary bases and default to DS. */
	if (!in->seg_override)
		in->seg = bp_based ? SR_SS : SR_DS;
}

static inline __attribute__((always_inline)) unsigned first_operand_size(unsigned size_class, const struct insn *in)
{
	switch (size_class) {
	case SZ_B: return 1;
	case SZ_W: return 2;
	case SZ_D: return 4;
	case SZ_Q: return 8;
	case SZ_Z: return in->osize == 2 ? 2 : 4;
	case SZ_Y: return in->osize == 8 ? 8 : 4;
	default: return in->osize;
	}
}

static inline __attribute__((always_inline)) void decode_immediate(struct cursor *c, unsigned kind, struct insn *in)
{
	switch (kind) {
	case IMM_B: in->imm = take(c, 1); break;
	case IMM_BS: in->imm = (uint64_t)(int64_t)(int8_t)take(c, 1); break;
	case IMM_JB: in->imm = (uint64_t)(int64_t)(int8_t)take(c, 1); break;
	case IMM_W: in->imm = take(c, 2); break;
	case IMM_D: in->imm = take(c, 4); break;
	case IMM_Z:
	case IMM_JZ:
		/* Iz/Jz: 16 bits with a 16-bit operand size, else 32 sign-extended to 64. */
		if (in->osize == 2)
			in->imm = kind == IMM_JZ ? (uint64_t)(int64_t)(int16_t)take(c, 2) : take(c, 2);
		else
			in->imm = (uint64_t)(int64_t)(int32_t)take(c, 4);
		break;
	case IMM_V: in->imm = take(c, in->osize); break;
	case IMM_AP:
		in->imm = take(c, in->osize == 2 ? 2 : 4);
		in->imm2 = (uint16_t)take(c, 2);
		break;
	case IMM_MOFFS: in->imm = take(c, in->asize); break;
	case IMM_W_B:
		in->imm = take(c, 2);
		in->imm2 = (uint16_t)take(c, 1);
		break;
	default: break;
	}
}

static inline __attribute__((always_inline)) bool prefix_matches(unsigned want, bool has66, unsigned rep)
{
	switch (want) {
	case PFX_ANY: return true;
	case PFX_NONE: return !has66 && rep == REP_NONE;
	case PFX_66: return has66 && rep == REP_NONE;
	case PFX_F3: return rep == REP_F3;
	case PFX_F2: return rep == REP_F2;
	case PFX_NOREP: return rep == REP_NONE;
	default: return false;
	}
}

/* Whether row d takes the ModRM fields (mod, reg, rm); rows without ModRM take all. */
static inline bool modrm_matches(const struct isa_opcode *op, const struct isa_decode *d,
				 unsigned mod, unsigned reg, unsigned rm)
{
	if (!op->modrm)
		return true;
	if (!((d->reg_mask >> reg) & 1))
		return false;
	if ((d->mod == MOD_MEM && mod == 3) || (d->mod == MOD_REG && mod != 3))
		return false;
	return d->rm == NO_CONSTRAINT || d->rm == rm;
}

/* Rows valid only outside/inside 64-bit mode let one opcode mean two
 * instructions (63: ARPL / MOVSXD). */
static inline bool mode_matches(unsigned mode, uint16_t row_flags)
{
	return !((mode == 64 && (row_flags & IF_NO64)) || (mode != 64 && (row_flags & IF_ONLY64)));
}

/* The operands of a matched row: ModRM register/memory fields (with the REX or
 * VEX R/X/B bits in in->rex), the first operand's size, the immediate; then the
 * length and the handler. Returns the length, or 0/-1 as decode_insn().
 * Inlined: the legacy path must not pay a call for sharing it with VEX. */
static inline __attribute__((always_inline)) int decode_operands(struct cursor *c, unsigned mode, const struct isa_opcode *op,
				  const struct isa_decode *row, struct insn *in)
{
	uint8_t rex = in->rex;
	unsigned mod = in->modrm >> 6, reg = (in->modrm >> 3) & 7, rm = in->modrm & 7;
	uint16_t flags = isa_rows[in->row].flags;

	if (op->modrm) {
		in->reg = (uint8_t)(reg | ((rex & 4) << 1));
		if (mod == 3 || row->mod == MOD_FORCE_REG) {
			in->rm = (uint8_t)(rm | ((rex & 1) << 3));
		} else {
			in->mem = true;
			decode_modrm_mem(c, mode, rex, in);
		}
	} else {
		in->reg = (uint8_t)((in->opcode & 7) | ((rex & 1) << 3));   /* +r forms */
	}
	in->size = (uint8_t)first_operand_size(row->size, in);
	decode_immediate(c, row->imm, in);
	if (c->status)
		return c->status == 2 || c->avail >= INSN_MAX_LEN ? -1 : 0;
	in->len = (uint8_t)c->pos;
	in->exec = isa_rows[in->row].exec;
	/* base >= 16: RIP-relative or no base. */
	if (in->mem && in->index == REG_NONE && in->base < 16 && in->asize >= 4)
		in->ea_shape = in->asize == 8 ? EA_BASE64 : EA_BASE32;

	/* LOCK legality (SDM Vol.2 LOCK: #UD unless the instruction is
	 * lockable and its destination is memory). */
	if (in->lock && !((flags & IF_LOCK) && in->mem))
		in->exec = insn_undefined;
	else
		in->exec = insn_fast_form(in);
	return in->len;
}

/* A VSIB memory operand (SDM Vol.2 2.3.12, Table 2-5): the SIB byte's index
 * (with VEX.X) names a vector register, 100b included, which the general form
 * took for "no index". Without a SIB byte (ModRM.rm != 100b) or with a 16-bit
 * address size (whose ModRM has none) the instruction is #UD (SDM Vol.2
 * VGATHERDPS "#UD If address size attribute is 16 bit ... If ModRM.rm is
 * not 100b"; 2.3.12). The address is no base-plus-displacement shape. */
static void vsib_operand(struct insn *in)
{
	if (in->asize == 2 || (in->modrm & 7) != 4) {
		in->exec = insn_undefined;
		return;
	}
	if (in->index == REG_NONE)
		in->index = R_SP;          /* index 100b, VEX.X = 0: XMM4/YMM4 */
	in->ea_shape = EA_GENERAL;
}

/* A VEX-encoded instruction (SDM Vol.2 2.3.5, Figure 2-9), from its C4/C5 byte
 * (already taken). Prefixes before it were recorded in in and has66. Every
 * rule that makes the encoding #UD whatever the CPU is applied here; those that
 * depend on the CPU's state (real and virtual-8086 mode, CR4.OSXSAVE/XCR0 for
 * AVX) are the handler's (vex_mode_ok(), emu/vex.h). */
static __attribute__((noinline, cold)) int decode_vex(struct cursor *c, unsigned mode, bool has66, bool has67,
						       uint8_t rex, uint8_t first,
		      struct insn *in)
{
	uint8_t p1 = (uint8_t)take(c, 1), p2 = p1;
	unsigned map = 1, w = 0;
	if (first == 0xc4) {
		p2 = (uint8_t)take(c, 1);
		map = p1 & 0x1f;
		w = p2 >> 7;
	}
	uint8_t b = (uint8_t)take(c, 1);
	if (c->status)
		return c->status == 2 || c->avail >= INSN_MAX_LEN ? -1 : 0;
	in->opcode = b;
	in->map = (uint8_t)map;
	in->vex = (uint8_t)(VEX_PRESENT | ((p2 >> 2) & 1 ? VEX_L256 : 0));
	unsigned vvvv = (~p2 >> 3) & 15, pp = p2 & 3;
	/* R, X, B and W (C4) and R (C5) are stored inverted. Outside 64-bit mode R
	 * and X are 1 (else the bytes are LES/LDS) and B is ignored (SDM Vol.2
	 * 2.3.5.3), as is vvvv[3] for a register number (2.3.6). */
	if (mode == 64) {
		unsigned r = (~p1 >> 7) & 1, x = first == 0xc4 ? (~p1 >> 6) & 1 : 0, bb = first == 0xc4 ? (~p1 >> 5) & 1 : 0;
		in->rex = (uint8_t)(0x40 | w << 3 | r << 2 | x << 1 | bb);
		in->vvvv = (uint8_t)vvvv;
	} else {
		in->rex = 0;
		in->vvvv = (uint8_t)(vvvv & 7);
	}
	/* SDM Vol.2 2.3.5.x/Table 2-xx "VEX.vvvv/operand size": GPR operands are 64
	 * bits only with VEX.W1 in 64-bit mode; VEX.W is ignored elsewhere. */
	in->osize = mode == 64 && w ? 8 : 4;
	in->asize = mode == 16 ? (has67 ? 4 : 2) : mode == 32 ? (has67 ? 2 : 4) : (has67 ? 4 : 8);

	/* SDM Vol.2 2.3.5.1: mmmmm other than 0F/0F38/0F3A is reserved: #UD. */
	if (map == 0 || map > 3)
		return -2;

	const struct isa_opcode *op = &isa_vex_opcodes[map][b];
	if (op->modrm) {
		in->modrm = (uint8_t)take(c, 1);
		if (c->status)
			return c->status == 2 || c->avail >= INSN_MAX_LEN ? -1 : 0;
	}
	unsigned mod = in->modrm >> 6, reg = (in->modrm >> 3) & 7, rm = in->modrm & 7;
	unsigned rep = pp == 2 ? REP_F3 : pp == 3 ? REP_F2 : REP_NONE;
	for (unsigned i = 0; i < op->count; i++) {
		unsigned idx = isa_candidates[op->first + i];
		const struct isa_decode *d = &isa_decode_rows[idx];
		unsigned want_l = d->vex & VEX_L_MASK, want_w = (d->vex >> VEX_W_SHIFT) & 3;
		if (!modrm_matches(op, d, mod, reg, rm) || !prefix_matches(d->prefix, pp == 1, rep))
			continue;
		if ((want_l && want_l - 1 != ((in->vex & VEX_L256) != 0)) || (want_w && want_w - 1 != w))
			continue;
		/* SDM Vol.2 2.3.6: "VEX.vvvv ... must be 1111b" when the instruction has
		 * no operand there; all four bits are checked in every mode. */
		if ((d->vex & VEX_VVVV_ONES) && vvvv != 0)
			continue;
		if (!mode_matches(mode, isa_rows[idx].flags))
			continue;
		in->row = (uint16_t)idx;
		int n = decode_operands(c, mode, op, d, in);
		if (n > 0 && (isa_rows[idx].flags & IF_VSIB))
			vsib_operand(in);
		/* SDM Vol.2 2.3.2: a 66, F2, F3, LOCK or REX prefix before VEX is
		 * #UD (decoded in full, like a misplaced LOCK). */
		if (n > 0 && (has66 || in->lock || rex || in->rep))
			in->exec = insn_undefined;
		/* VEX.pp's F3/F2 is the opcode's mandatory prefix (SDM Vol.2 2.3.5.5,
		 * Table 2-14): handlers shared with the legacy forms read it there. */
		else
			in->rep = (uint8_t)rep;
		return n;
	}
	return -2;
}

int decode_insn(const uint8_t *bytes, unsigned avail, unsigned mode, struct insn *in)
{
	struct cursor c = { .bytes = bytes, .avail = avail };
	bool has66 = false, has67 = false;
	uint8_t rex = 0, b;

	memset(in, 0, sizeof(*in));
	in->seg = SR_DS;
	in->base = in->index = REG_NONE;

	/* Legacy prefixes, any order; the last of a group wins (SDM Vol.2 2.1.1).
	 * REX counts only directly before the opcode (SDM Vol.2 2.2.1). */
	for (;;) {
		b = (uint8_t)take(&c, 1);
		if (c.status)
			goto short_read;
		if (mode == 64 && (b & 0xf0) == 0x40) {
			rex = b;
			continue;
		}
		switch (b) {
		case 0x66: has66 = true; break;
		case 0x67: has67 = true; break;
		case 0xf0: in->lock = true; break;
		case 0xf2: in->rep = REP_F2; break;
		case 0xf3: in->rep = REP_F3; break;
		case 0x26: case 0x2e: case 0x36: case 0x3e:
			/* 64-bit mode ignores ES/CS/SS/DS overrides (SDM Vol.1 3.3.7.1). */
			if (mode != 64) {
				in->seg = (uint8_t)((b >> 3) & 3);
				in->seg_override = true;
			}
			break;
		case 0x64: case 0x65:
			in->seg = (uint8_t)(b == 0x64 ? SR_FS : SR_GS);
			in->seg_override = true;
			break;
		default:
			goto opcode;
		}
		rex = 0;
	}
opcode:
	/* C4/C5: VEX in 64-bit mode; elsewhere VEX only when the next byte's bits
	 * 7:6 are 11b, which as LES/LDS would be a register operand (SDM Vol.2
	 * 2.3.5.x). Real and virtual-8086 mode are the handler's #UD. */
	if (__builtin_expect((b & 0xfe) == 0xc4, 0)) {
		if (mode != 64) {
			if (c.pos >= c.avail)
				goto short_read_more;
		}
		if (mode == 64 || bytes[c.pos] >= 0xc0) {
			int n = decode_vex(&c, mode, has66, has67, rex, b, in);
			if (n != -2)
				return n;
			goto undefined;
		}
	}
	in->rex = rex;
	if (b == 0x0f) {
		b = (uint8_t)take(&c, 1);
		if (b == 0x38 || b == 0x3a) {
			in->map = b == 0x38 ? 2 : 3;
			b = (uint8_t)take(&c, 1);
		} else {
			in->map = 1;
		}
		if (c.status)
			goto short_read;
	}
	in->opcode = b;

	switch (mode) {
	case 16: in->osize = has66 ? 4 : 2; in->asize = has67 ? 4 : 2; break;
	case 32: in->osize = has66 ? 2 : 4; in->asize = has67 ? 2 : 4; break;
	default: in->osize = (rex & 8) ? 8 : has66 ? 2 : 4; in->asize = has67 ? 4 : 8; break;
	}

	const struct isa_opcode *op = &isa_opcodes[in->map][b];
	const struct isa_decode *row = NULL;
	if (op->modrm) {
		in->modrm = (uint8_t)take(&c, 1);
		if (c.status)
			goto short_read;
	}
	unsigned mod = in->modrm >> 6, reg = (in->modrm >> 3) & 7, rm = in->modrm & 7;
	for (unsigned i = 0; i < op->count; i++) {
		unsigned idx = isa_candidates[op->first + i];
		const struct isa_decode *d = &isa_decode_rows[idx];
		if (!modrm_matches(op, d, mod, reg, rm))
			continue;
		if (!prefix_matches(d->prefix, has66, in->rep))
			continue;
		/* No row left means #UD. */
		if (!mode_matches(mode, isa_rows[idx].flags))
			continue;
		row = d;
		in->row = (uint16_t)idx;
		break;
	}
	if (!row)
		goto undefined;

	uint16_t flags = isa_rows[in->row].flags;
	/* A mandatory 66 is not an operand-size prefix; REX.W still is (66 REX.W
	 * 0F 6E is MOVQ xmm, r/m64: SDM Vol.2 2.2.1.2). */
	if (row->prefix == PFX_66)
		in->osize = (rex & 8) ? 8 : mode == 16 ? 2 : 4;
	/* SDM Vol.2 Table A-1 "d64"/"f64": 64-bit by default (66 gives 16, but
	 * REX.W wins over 66: SDM Vol.1 3.6.1, Table 3-4), or 64-bit whatever the
	 * prefixes. */
	if (mode == 64 && (flags & (IF_D64 | IF_F64)))
		in->osize = (flags & IF_F64) || !has66 || (rex & 8) ? 8 : 2;
	return decode_operands(&c, mode, op, row, in);

undefined:
	in->row = UINT16_MAX;
	in->len = (uint8_t)c.pos;
	in->exec = insn_undefined;
	return in->len;

short_read_more:
	c.status = c.pos >= INSN_MAX_LEN ? 2 : 1;
short_read:
	/* SDM Vol.2 2.3.11: more than 15 bytes is #GP(0), whatever the bytes are. */
	return c.status == 2 || c.avail >= INSN_MAX_LEN ? -1 : 0;
}

bool insn_is_undefined(const struct insn *in)
{
	return in->exec == insn_undefined;
}

bool insn_gate(const struct cpu *cpu, struct insn *in)
{
	if (in->row == UINT16_MAX || !isa_rows[in->row].feature)
		return true;
	const struct isa_feature *f = &isa_features[isa_rows[in->row].feature];
	if (cpu_has(cpu, f->leaf, f->reg, f->bit))
		return true;
	/* SDM Vol.2 LZCNT/TZCNT: on a processor without the feature the encoding
	 * executes as BSR/BSF (the F3 prefix is ignored): the row names that row. */
	if (isa_rows[in->row].flags & IF_FALLBACK) {
		in->row = isa_rows[in->row].alt;
		in->exec = isa_rows[in->row].exec;
		if (in->lock && !((isa_rows[in->row].flags & IF_LOCK) && in->mem))
			in->exec = insn_undefined;
		else
			in->exec = insn_fast_form(in);
		return insn_gate(cpu, in);
	}
	in->exec = insn_undefined;
	return false;
}

void insn_apply_quirks(const struct cpu *cpu, struct insn *in)
{
	/* qemu-lock-mov-ignored breaks SDM Vol.2 LOCK (#UD for MOV): a LOCK MOV
	 * to memory (88, 89, C6, C7 with a memory operand; A2, A3) runs as the MOV. */
	if (cpu_quirk(cpu, QK_QEMU_LOCK_MOV_IGNORED) && in->lock && in->row != UINT16_MAX &&
	    insn_is_undefined(in) && !in->vex &&
	    (((isa_rows[in->row].exec == op_mov_EG || isa_rows[in->row].exec == op_mov_EI) && in->mem) ||
	     isa_rows[in->row].exec == op_mov_OA)) {
		in->exec = isa_rows[in->row].exec;
		in->exec = insn_fast_form(in);
	}
}
