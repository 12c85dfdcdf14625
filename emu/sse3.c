/* SSE3 (SDM Vol.1 12.3, Vol.2 instruction pages): ADDSUBPS/PD, HADDPS/PD,
 * HSUBPS/PD, MOVSLDUP/MOVSHDUP/MOVDDUP and LDDQU. FISTTP is in emu/x87.c,
 * MONITOR/MWAIT in emu/wait.c.
 *
 * The arithmetic ones compute each result element as one IEEE addition or
 * subtraction of two elements (SDM Vol.2 HADDPS "Operation"), so they are
 * ADDPS/SUBPS (emu/sse_fp.c, emu/sse_fp_ops.h) on operands rearranged
 * element by element: results, DAZ/FTZ and flags are those of the same
 * additions. Lanes an instruction does not compute hold +0.0 in both operands,
 * which raises no flag.
 */
#include "emu/simd_operand.h"
#include "emu/sse_fp_ops.h"
#include "isa_handlers.h"

/* F2 0F D0 ADDSUBPS, 66 0F D0 ADDSUBPD: even elements d - s, odd ones d + s;
 * F2 0F 7C HADDPS, 66 0F 7C HADDPD: adjacent pairs of d, then of s, summed;
 * F2/66 0F 7D HSUBPS/PD: the lower element minus the upper. m128 aligned. */
status_t op_sse3_fp(struct cpu *cpu, const struct insn *in)
{
	struct simd_args a;
	status_t st = simd_load(cpu, in, false, 16, SIMD_ALIGNED, &a);
	if (st != ST_OK)
		return st;
	bool dbl = in->rep != REP_F2;
	union xmm_reg x = { .q = { 0, 0 } }, y = { .q = { 0, 0 } }, r;
	uint32_t exc;
	if (in->opcode == 0xd0) {
		union xmm_reg p = { .q = { 0, 0 } }, q = { .q = { 0, 0 } };
		if (dbl) {
			x.q[0] = a.d.q[0], y.q[0] = a.s.q[0];
			p.q[1] = a.d.q[1], q.q[1] = a.s.q[1];
		} else {
			for (unsigned i = 0; i < 4; i++) {
				union xmm_reg *u = (i & 1) ? &p : &x, *v = (i & 1) ? &q : &y;
				u->d[i] = a.d.d[i];
				v->d[i] = a.s.d[i];
			}
		}
		exc = sse_fp_packed(cpu, SFP_SUB, dbl, &x, &y) | sse_fp_packed(cpu, SFP_ADD, dbl, &p, &q);
		/* Each lane from the operation that computed it (the other's +0.0 -
		 * +0.0 is -0.0 under RC = down). */
		if (dbl) {
			r.q[0] = x.q[0];
			r.q[1] = p.q[1];
		} else {
			for (unsigned i = 0; i < 4; i++)
				r.d[i] = (i & 1) ? p.d[i] : x.d[i];
		}
	} else {
		if (dbl) {
			x = (union xmm_reg){ .q = { a.d.q[0], a.s.q[0] } };
			y = (union xmm_reg){ .q = { a.d.q[1], a.s.q[1] } };
		} else {
			x = (union xmm_reg){ .d = { a.d.d[0], a.d.d[2], a.s.d[0], a.s.d[2] } };
			y = (union xmm_reg){ .d = { a.d.d[1], a.d.d[3], a.s.d[1], a.s.d[3] } };
		}
		exc = sse_fp_packed(cpu, in->opcode == 0x7c ? SFP_ADD : SFP_SUB, dbl, &x, &y);
		r = x;
	}
	st = sse_fp_commit(cpu, exc);
	if (st == ST_OK)
		simd_store(cpu, in, &a, &r);
	return st;
}

/* F3 0F 12 MOVSLDUP: the even dwords duplicated; F3 0F 16 MOVSHDUP: the odd
 * ones (m128 aligned); F2 0F 12 MOVDDUP: the low quadword twice (m64, no
 * alignment); F2 0F F0 LDDQU: an unaligned 128-bit load (SDM Vol.2 LDDQU: no
 * #GP for alignment). */
status_t op_sse3_move(struct cpu *cpu, const struct insn *in)
{
	bool ddup = in->opcode == 0x12 && in->rep == REP_F2, lddqu = in->opcode == 0xf0;
	struct simd_args a;
	status_t st = simd_load(cpu, in, false, ddup ? 8 : 16, lddqu ? SIMD_ANY : SIMD_ALIGNED, &a);
	if (st != ST_OK)
		return st;
	union xmm_reg r = a.s;
	if (ddup) {
		r.q[1] = r.q[0];
	} else if (!lddqu) {
		unsigned odd = in->opcode == 0x16;
		r = (union xmm_reg){ .d = { a.s.d[odd], a.s.d[odd], a.s.d[2 + odd], a.s.d[2 + odd] } };
	}
	simd_store(cpu, in, &a, &r);
	return ST_OK;
}
