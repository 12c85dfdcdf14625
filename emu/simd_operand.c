/* Operand access for the SSE3..SHA extension instructions and their VEX
 * forms: emu/simd_operand.h. */
#include <string.h>

#include "emu/avx.h"
#include "emu/cpu_model.h"
#include "emu/fpu.h"
#include "emu/mmx.h"
#include "emu/operand.h"
#include "emu/simd_operand.h"

/* The VEX forms' gate: avx_gate, and the AVX CPUID bit, which the row's
 * feature (SSE4.1, AES...) does not cover (SDM Vol.2 Table 2-18 "#UD If
 * CPUID.01H:ECX.AVX[bit 28] = 0" is implied by each VEX form's CPUID column:
 * "AVX" or "AES AVX"). */
static status_t vex_gate(struct cpu *cpu)
{
	if (!((cpu->leaf1_ecx >> FEATURE_BIT_avx) & 1))
		return cpu_raise(cpu, EXC_UD);
	return avx_gate(cpu);
}

union xmm_reg *simd_lane_reg(struct cpu *cpu, const struct insn *in, unsigned n)
{
	return in->vex & VEX_UPPER_LANE ? &cpu->fpu.ymm_hi[n & 15] : &cpu->fpu.xmm[n & 15];
}

status_t simd_load(struct cpu *cpu, const struct insn *in, bool mmx, unsigned src_bytes, unsigned align,
		   struct simd_args *a)
{
	status_t st = in->vex ? vex_gate(cpu) : mmx ? mmx_gate(cpu) : sse_gate(cpu, true, CPUID_SSE);
	if (st != ST_OK)
		return st;
	memset(a, 0, sizeof(*a));
	a->mmx = mmx;
	if (mmx) {
		a->d.q[0] = mm_read(cpu, in->reg);
		return mmx_read_q(cpu, in, src_bytes < 8 ? src_bytes : 8, &a->s.q[0]);
	}
	if (in->vex) {
		a->d = *simd_lane_reg(cpu, in, in->vvvv);
		if (!in->mem) {
			a->s = *simd_lane_reg(cpu, in, in->rm);
			return ST_OK;
		}
		/* SDM Vol.2 2.5.1: VEX forms check alignment only for exception
		 * type 1, to the operand's width (checked on the first lane). */
		bool upper = in->vex & VEX_UPPER_LANE;
		unsigned vex_align = align == SIMD_ALIGNED_VEX && !upper ? avx_bytes(in) : 0;
		return fpu_mem_read(cpu, in, (insn_ea(cpu, in) + (upper ? 16 : 0)) & size_mask(in->asize), a->s.b,
				    src_bytes, vex_align);
	}
	a->d = cpu->fpu.xmm[in->reg & 15];
	if (!in->mem) {
		a->s = cpu->fpu.xmm[in->rm & 15];
		return ST_OK;
	}
	/* SDM Vol.2 Table 2-21 (Type 4), Vol.1 11.4.1: only a full 16-byte legacy
	 * operand is alignment-checked; narrower ones (PMOVSX m64, ROUNDSS m32) are not. */
	return fpu_mem_read(cpu, in, insn_ea(cpu, in), a->s.b, src_bytes, src_bytes == 16 && align ? 16 : 0);
}

void simd_store(struct cpu *cpu, const struct insn *in, const struct simd_args *a, const union xmm_reg *r)
{
	if (a->mmx) {
		mm_write(cpu, in->reg, r->q[0]);
		mmx_enter(cpu);
	} else if (in->vex) {
		*simd_lane_reg(cpu, in, in->reg) = *r;
		if (!(in->vex & VEX_L256))
			cpu->fpu.ymm_hi[in->reg & 15] = (union xmm_reg){ .q = { 0, 0 } };
	} else {
		cpu->fpu.xmm[in->reg & 15] = *r;
	}
}

status_t simd_gate_xmm(struct cpu *cpu, const struct insn *in)
{
	return in->vex ? vex_gate(cpu) : sse_gate(cpu, true, CPUID_SSE);
}
