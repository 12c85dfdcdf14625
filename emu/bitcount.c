/* Bit counting: POPCNT (F3 0F B8), LZCNT (F3 0F BD), TZCNT (F3 0F BC).
 *
 * Without their CPUID feature LZCNT and TZCNT are BSR and BSF (the F3 prefix
 * is ignored): the rows say "fallback" (emu/isa/bitmanip.isa, insn_gate()).
 *
 * Undefined flags: LZCNT/TZCNT leave OF, SF, PF and AF undefined (SDM Vol.2).
 * Measured on an Intel host (tests/diff, -m bmi): all four are cleared, for
 * 16-, 32- and 64-bit operands, zero or not. hvemu clears them for both
 * vendors; AMD (APM3 LZCNT/TZCNT: "U") is not measured. */
#include "emu/flags.h"
#include "emu/operand.h"
#include "isa_handlers.h"

/* SDM Vol.2 POPCNT: "OF, SF, ZF, AF, CF, PF are all cleared. ZF is set if
 * SRC = 0, otherwise ZF is cleared." */
status_t op_popcnt(struct cpu *cpu, const struct insn *in)
{
	uint64_t s;
	status_t st = rm_read(cpu, in, in->size, &s);
	if (st != ST_OK)
		return st;
	greg_write(cpu, in, in->size, (uint64_t)__builtin_popcountll(s));
	flags_update(cpu, FLAGS_ARITH, s ? 0 : FLAG_ZF);
	return ST_OK;
}

/* SDM Vol.2 LZCNT/TZCNT: the count of leading/trailing zero bits, the operand
 * width for a zero source; "ZF flag is set to 1 in case of zero output (most
 * significant bit of the source is set), and to 0 otherwise, CF flag is set to
 * 1 if input was zero and cleared otherwise". */
static inline status_t zero_count(struct cpu *cpu, const struct insn *in, bool leading)
{
	unsigned size = in->size, bits = size * 8;
	uint64_t s;
	status_t st = rm_read(cpu, in, size, &s);
	if (st != ST_OK)
		return st;
	unsigned n = bits;
	if (s)
		n = leading ? (unsigned)__builtin_clzll(s) - (64 - bits) : (unsigned)__builtin_ctzll(s);
	greg_write(cpu, in, size, n);
	flags_update(cpu, FLAGS_ARITH, (s ? 0 : FLAG_CF) | (n ? 0 : FLAG_ZF));
	return ST_OK;
}

status_t op_lzcnt(struct cpu *cpu, const struct insn *in) { return zero_count(cpu, in, true); }
status_t op_tzcnt(struct cpu *cpu, const struct insn *in) { return zero_count(cpu, in, false); }
