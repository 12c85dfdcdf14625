/* What every VEX-encoded instruction checks of the CPU's state before its own
 * rules (the decoder has applied those of the bytes: emu/decode.c decode_vex). */
#ifndef HVEMU_EMU_VEX_H
#define HVEMU_EMU_VEX_H

#include "emu/cpu.h"
#include "emu/operand.h"

/* SDM Vol.2 2.3.2 and Table 2-29 ("Type 13", the VEX-encoded general-register
 * instructions: BMI1, BMI2): #UD in real-address and virtual-8086 mode. They
 * do not depend on CR4.OSXSAVE or XCR0 (AVX instructions will: exception types
 * 1-12 of SDM Vol.2 2.5). 16-bit protected mode allows them. */
static inline status_t CHECKED vex_gpr_check(struct cpu *cpu)
{
	if (cpu->mode == MODE_REAL || cpu->mode == MODE_V86)
		return cpu_raise(cpu, EXC_UD);
	return ST_OK;
}

/* The VEX.vvvv general register (operand letter B) of size bytes. */
static inline uint64_t vreg_read(const struct cpu *cpu, const struct insn *in, unsigned size)
{
	return reg_read(cpu, in->vvvv, size, true);
}
static inline void vreg_write(struct cpu *cpu, const struct insn *in, unsigned size, uint64_t v)
{
	reg_write(cpu, in->vvvv, size, true, v);
}

#endif
