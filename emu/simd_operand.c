/* Operand access for the SSE3..SHA extension instructions: emu/simd_operand.h. */
#include <string.h>

#include "emu/fpu.h"
#include "emu/mmx.h"
#include "emu/operand.h"
#include "emu/simd_operand.h"

status_t simd_load(struct cpu *cpu, const struct insn *in, bool mmx, unsigned src_bytes, unsigned align,
		   struct simd_args *a)
{
	status_t st = mmx ? mmx_gate(cpu) : sse_gate(cpu, true, CPUID_SSE);
	if (st != ST_OK)
		return st;
	memset(a, 0, sizeof(*a));
	a->mmx = mmx;
	if (mmx) {
		a->d.q[0] = mm_read(cpu, in->reg);
		return mmx_read_q(cpu, in, src_bytes < 8 ? src_bytes : 8, &a->s.q[0]);
	}
	a->d = cpu->fpu.xmm[in->reg & 15];
	if (!in->mem) {
		a->s = cpu->fpu.xmm[in->rm & 15];
		return ST_OK;
	}
	/* SDM Vol.2 Table 2-21 (Type 4), Vol.1 11.4.1: only a full 16-byte legacy
	 * operand is alignment-checked; narrower ones (PMOVSX m64, ROUNDSS m32) are not. */
	return fpu_mem_read(cpu, in, insn_ea(cpu, in), a->s.b, src_bytes, src_bytes == 16 ? align : 0);
}

void simd_store(struct cpu *cpu, const struct insn *in, const struct simd_args *a, const union xmm_reg *r)
{
	if (a->mmx) {
		mm_write(cpu, in->reg, r->q[0]);
		mmx_enter(cpu);
	} else {
		cpu->fpu.xmm[in->reg & 15] = *r;
	}
}

status_t simd_gate_xmm(struct cpu *cpu)
{
	return sse_gate(cpu, true, CPUID_SSE);
}
