/* Decimal arithmetic adjustments: DAA/DAS (packed BCD), AAA/AAS/AAM/AAD
 * (unpacked BCD). All are #UD in 64-bit mode (the rows carry no64).
 *
 * Undefined flags: the SDM leaves OF undefined after DAA/DAS, OF/SF/ZF/PF after
 * AAA/AAS and OF/AF/CF after AAM/AAD. hvemu gives them the values of a logic
 * operation on the final AL (SF/ZF/PF from AL, OF = 0, and AF = CF = 0 where
 * undefined), for both vendors. This host cannot run 32-bit code, so these were
 * not measured; the host differential test compares only defined flags.
 */
#include "emu/flags.h"
#include "emu/operand.h"
#include "isa_handlers.h"

static inline uint64_t al(const struct cpu *cpu) { return cpu->regs[R_AX] & 0xff; }

/* Current AF, materializing lazy flags if needed. */
static inline bool af(struct cpu *cpu)
{
	flags_materialize(cpu);
	return (cpu->rflags & FLAG_AF) != 0;
}

/* DAA (27): SDM Vol.2 DAA pseudo-code. */
status_t op_daa(struct cpu *cpu, const struct insn *in)
{
	(void)in;
	uint64_t old_al = al(cpu), a = old_al, f = 0;
	bool old_cf = flags_cf(cpu);
	if ((a & 0xf) > 9 || af(cpu)) {
		if (old_cf || a + 6 > 0xff)
			f |= FLAG_CF;
		a = (a + 6) & 0xff;
		f |= FLAG_AF;
	}
	if (old_al > 0x99 || old_cf) {
		a = (a + 0x60) & 0xff;
		f |= FLAG_CF;
	} else {
		f &= ~(uint64_t)FLAG_CF;
	}
	reg_write(cpu, R_AX, 1, false, a);
	flags_update(cpu, FLAGS_ARITH, f | flags_szp(a, 1));
	return ST_OK;
}

/* DAS (2F): SDM Vol.2 DAS pseudo-code. */
status_t op_das(struct cpu *cpu, const struct insn *in)
{
	(void)in;
	uint64_t old_al = al(cpu), a = old_al, f = 0;
	bool old_cf = flags_cf(cpu);
	if ((a & 0xf) > 9 || af(cpu)) {
		if (old_cf || a < 6)
			f |= FLAG_CF;
		a = (a - 6) & 0xff;
		f |= FLAG_AF;
	}
	if (old_al > 0x99 || old_cf) {
		a = (a - 0x60) & 0xff;
		f |= FLAG_CF;
	}
	reg_write(cpu, R_AX, 1, false, a);
	flags_update(cpu, FLAGS_ARITH, f | flags_szp(a, 1));
	return ST_OK;
}

/* AAA (37) / AAS (3F): SDM Vol.2 AAA: "AX <- AX + 106H; AF <- 1; CF <- 1" when the
 * low nibble exceeds 9 or AF is set, else AF = CF = 0; then AL &= 0FH. AAS
 * subtracts: "AX <- AX - 6; AH <- AH - 1". */
static status_t ascii_adjust(struct cpu *cpu, bool sub)
{
	uint64_t ax = cpu->regs[R_AX] & 0xffff, f = 0;
	if ((ax & 0xf) > 9 || af(cpu)) {
		/* The SDM adjusts all of AX, so a borrow out of AL reaches AH. */
		ax = (sub ? ax - 6 - 0x100 : ax + 0x106) & 0xffff;
		f = FLAG_AF | FLAG_CF;
	}
	ax &= 0xff0f;
	reg_write(cpu, R_AX, 2, false, ax);
	flags_update(cpu, FLAGS_ARITH, f | flags_szp(ax & 0xff, 1));
	return ST_OK;
}

status_t op_aaa(struct cpu *cpu, const struct insn *in) { (void)in; return ascii_adjust(cpu, false); }
status_t op_aas(struct cpu *cpu, const struct insn *in) { (void)in; return ascii_adjust(cpu, true); }

/* AAM imm8 (D4): AH = AL / imm8, AL = AL mod imm8; imm8 = 0 is #DE (SDM Vol.2 AAM). */
status_t op_aam(struct cpu *cpu, const struct insn *in)
{
	uint64_t base = in->imm & 0xff, a = al(cpu);
	if (base == 0)
		return cpu_raise(cpu, EXC_DE);
	uint64_t q = a / base, r = a % base;
	reg_write(cpu, R_AX, 2, false, (q << 8) | r);
	flags_update(cpu, FLAGS_ARITH, flags_szp(r, 1));
	return ST_OK;
}

/* AAD imm8 (D5): AL = (AL + AH * imm8) & FFH, AH = 0 (SDM Vol.2 AAD). */
status_t op_aad(struct cpu *cpu, const struct insn *in)
{
	uint64_t ax = cpu->regs[R_AX];
	uint64_t a = ((ax & 0xff) + ((ax >> 8) & 0xff) * (in->imm & 0xff)) & 0xff;
	reg_write(cpu, R_AX, 2, false, a);
	flags_update(cpu, FLAGS_ARITH, flags_szp(a, 1));
	return ST_OK;
}
