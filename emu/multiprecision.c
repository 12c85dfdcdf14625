/* Multi-precision arithmetic: ADCX (66 0F 38 F6), ADOX (F3 0F 38 F6) and MULX
 * (VEX.LZ.F2.0F38 F6), which let two carry chains run interleaved with a
 * multiplication that touches no flags at all. */
#include "emu/flags.h"
#include "emu/operand.h"
#include "emu/vex.h"
#include "isa_handlers.h"

__extension__ typedef unsigned __int128 u128;

/* SDM Vol.2 ADCX: DEST = DEST + SRC + CF, "CF is updated based on result.
 * OF, SF, ZF, AF and PF flags are unmodified"; ADOX the same with OF as the
 * carry. 32 bits, or 64 with REX.W (y). */
static inline status_t add_carry_chain(struct cpu *cpu, const struct insn *in, uint64_t flag)
{
	unsigned size = in->size;
	uint64_t s;
	status_t st = rm_read(cpu, in, size, &s);
	if (st != ST_OK)
		return st;
	uint64_t d = greg_read(cpu, in, size), carry_in;
	if (flag == FLAG_CF)
		carry_in = flags_cf(cpu);
	else
		carry_in = flags_cond(cpu, 0);           /* condition O */
	uint64_t r = (d + s + carry_in) & size_mask(size);
	bool carry = size == 8 ? r < d || (carry_in && r == d) : ((d + s + carry_in) >> (size * 8)) != 0;
	greg_write(cpu, in, size, r);
	flags_update(cpu, flag, carry ? flag : 0);
	return ST_OK;
}

status_t op_adcx(struct cpu *cpu, const struct insn *in) { return add_carry_chain(cpu, in, FLAG_CF); }
status_t op_adox(struct cpu *cpu, const struct insn *in) { return add_carry_chain(cpu, in, FLAG_OF); }

/* SDM Vol.2 MULX: rDX times SRC (r/m), unsigned; the low half to the second
 * operand (VEX.vvvv), the high half to the first (ModRM.reg): "If the first
 * and second operand are identical, it will contain the high half." No flags
 * change. */
status_t op_mulx(struct cpu *cpu, const struct insn *in)
{
	status_t st = vex_gpr_check(cpu);
	if (st != ST_OK)
		return st;
	unsigned size = in->size;
	uint64_t s;
	if ((st = rm_read(cpu, in, size, &s)) != ST_OK)
		return st;
	uint64_t lo, hi;
	if (size == 8) {
		u128 p = (u128)cpu->regs[R_DX] * s;
		lo = (uint64_t)p;
		hi = (uint64_t)(p >> 64);
	} else {
		uint64_t p = (uint64_t)(uint32_t)cpu->regs[R_DX] * (uint32_t)s;
		lo = (uint32_t)p;
		hi = p >> 32;
	}
	vreg_write(cpu, in, size, lo);
	greg_write(cpu, in, size, hi);
	return ST_OK;
}
