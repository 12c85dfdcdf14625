/* The state checks and YMM operand access of the VEX-encoded SIMD
 * instructions: emu/avx.h. */
#include <string.h>

#include "emu/avx.h"
#include "emu/fpu.h"
#include "emu/operand.h"

status_t avx_gate(struct cpu *cpu)
{
	/* SDM Vol.2 Table 2-18: "VEX prefix" #UD in real and virtual-8086 mode;
	 * "If XCR0[2:1] != 11b. If CR4.OSXSAVE[bit 18]=0." */
	if (cpu->mode == MODE_REAL || cpu->mode == MODE_V86)
		return cpu_raise(cpu, EXC_UD);
	if (!(cpu->cr4 & CR4_OSXSAVE) || (cpu->xcr0 & (XSTATE_SSE | XSTATE_AVX)) != (XSTATE_SSE | XSTATE_AVX))
		return cpu_raise(cpu, EXC_UD);
	/* Same table: #NM "If CR0.TS[bit 3]=1." */
	if (cpu->cr0 & CR0_TS)
		return cpu_raise(cpu, EXC_NM);
	return ST_OK;
}

status_t avx_read_w(struct cpu *cpu, const struct insn *in, unsigned bytes, unsigned align,
		    union ymm_reg *out)
{
	if (!in->mem) {
		ymm_get(cpu, in->rm, out);
		return ST_OK;
	}
	memset(out, 0, sizeof(*out));
	return fpu_mem_read(cpu, in, insn_ea(cpu, in), out->b, bytes, align);
}

status_t avx_write_w(struct cpu *cpu, const struct insn *in, const union ymm_reg *v, unsigned bytes,
		     unsigned align)
{
	if (!in->mem) {
		ymm_put(cpu, in->rm, v, bytes);
		return ST_OK;
	}
	return fpu_mem_write(cpu, in, insn_ea(cpu, in), v->b, bytes, align);
}
