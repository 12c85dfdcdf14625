/* Bit instructions: BT/BTS/BTR/BTC (0F A3/AB/B3/BB, 0F BA /4-/7), BSF/BSR
 * (0F BC/BD) and BSWAP (0F C8+r).
 */
#include "emu/cpu_model.h"
#include "emu/flags.h"
#include "emu/operand.h"
#include "isa_handlers.h"

enum bt_op { BT_TEST, BT_SET, BT_RESET, BT_COMPLEMENT };

/* SDM Vol.2 BT: "The CF flag contains the value of the selected bit. The ZF flag
 * is unaffected. The OF, SF, AF, and PF flags are undefined." Both vendors leave
 * them unchanged (measured on the AMD host; Bochs models Intel the same), so only
 * CF is written.
 *
 * Bit offset: an immediate is taken modulo the operand width. A register offset
 * with a memory operand is a signed bit index from the operand's address: the
 * accessed unit is at EA + (offset >> log2(width)) * (width / 8), at the address
 * size (SDM Vol.2 BT, Table 3-2 "Range of Bit Positions", and Vol.1 3.6.1
 * "bit string"). With a register operand it is taken modulo the width. */
static inline status_t bt_exec(struct cpu *cpu, const struct insn *in, enum bt_op op)
{
	unsigned size = in->size, w = size * 8;
	bool imm_form = in->opcode == 0xba;
	uint64_t off = imm_form ? in->imm : greg_read(cpu, in, size);
	unsigned bit = (unsigned)(off & (w - 1));
	uint64_t v, ea = 0;
	status_t st;

	if (in->mem) {
		ea = insn_ea(cpu, in);
		if (!imm_form) {
			int64_t unit = sign_extend(off, size) >> __builtin_ctz(w);
			ea = (ea + (uint64_t)unit * size) & size_mask(in->asize);
		}
		st = mem_read(cpu, in->seg, ea, size, &v);
	} else {
		v = reg_read(cpu, in->rm, size, in->rex != 0);
		st = ST_OK;
	}
	if (st != ST_OK)
		return st;

	uint64_t mask = 1ull << bit, cf = (v & mask) ? FLAG_CF : 0;
	if (op != BT_TEST) {
		uint64_t r = op == BT_SET ? v | mask : op == BT_RESET ? v & ~mask : v ^ mask;
		if (in->mem)
			st = mem_write(cpu, in->seg, ea, size, r);
		else
			reg_write(cpu, in->rm, size, in->rex != 0, r);
		if (st != ST_OK)
			return st;
	}
	flags_update(cpu, FLAG_CF, cf);
	return ST_OK;
}

status_t op_bt(struct cpu *cpu, const struct insn *in)  { return bt_exec(cpu, in, BT_TEST); }
status_t op_bts(struct cpu *cpu, const struct insn *in) { return bt_exec(cpu, in, BT_SET); }
status_t op_btr(struct cpu *cpu, const struct insn *in) { return bt_exec(cpu, in, BT_RESET); }
status_t op_btc(struct cpu *cpu, const struct insn *in) { return bt_exec(cpu, in, BT_COMPLEMENT); }

/* BSF/BSR. SDM Vol.2 BSF: "If the content of the source operand is 0, the content
 * of the destination operand is undefined" and ZF = 1; "The CF, OF, SF, AF, and
 * PF flags are undefined." Both vendors leave the destination unchanged for a
 * zero source (APM3 BSF documents it; Intel hardware does the same for 16/32-bit
 * operands). Other flags: AMD (measured) computes them as a logic operation on
 * the result index — CF = OF = SF = AF = 0, PF = parity of the index, or of 0 for
 * a zero source. Intel is modelled as Bochs does: the same for a non-zero source,
 * only ZF changed for a zero source. */
static inline status_t bit_scan(struct cpu *cpu, const struct insn *in, bool reverse)
{
	unsigned size = in->size;
	uint64_t s;
	status_t st = rm_read(cpu, in, size, &s);
	if (st != ST_OK)
		return st;
	s &= size_mask(size);
	bool amd = cpu_is_amd(cpu);
	if (s == 0) {
		if (amd)
			flags_update(cpu, FLAGS_ARITH, FLAG_ZF | flags_parity(0));
		else
			flags_update(cpu, FLAG_ZF, FLAG_ZF);
		return ST_OK;
	}
	uint64_t index = reverse ? 63u - (unsigned)__builtin_clzll(s) : (unsigned)__builtin_ctzll(s);
	greg_write(cpu, in, size, index);
	flags_update(cpu, FLAGS_ARITH, flags_parity(index));
	return ST_OK;
}

status_t op_bsf(struct cpu *cpu, const struct insn *in) { return bit_scan(cpu, in, false); }
status_t op_bsr(struct cpu *cpu, const struct insn *in) { return bit_scan(cpu, in, true); }

/* BSWAP r32/r64 (0F C8+r). SDM Vol.2 BSWAP: "When the BSWAP instruction
 * references a 16-bit register, the result is undefined"; both vendors' hardware
 * clears the low 16 bits, and so does hvemu. */
status_t op_bswap(struct cpu *cpu, const struct insn *in)
{
	unsigned size = in->size;
	bool rex = in->rex != 0;
	uint64_t v = reg_read(cpu, in->reg, size, rex);
	if (size == 8)
		v = __builtin_bswap64(v);
	else if (size == 4)
		v = __builtin_bswap32((uint32_t)v);
	else
		v = 0;
	reg_write(cpu, in->reg, size, rex, v);
	return ST_OK;
}
