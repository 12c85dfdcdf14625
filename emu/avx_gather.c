/* The AVX2 gathers (emu/isa/gather.isa; SDM Vol.2 VGATHERDPS/DPD/QPS/QPD,
 * VPGATHERDD/DQ/QD/QQ): each enabled element loaded from its own address,
 * base + index[j] * scale + displacement, the indices the elements of the
 * VSIB operand's vector register (SDM Vol.2 2.3.12; the decoder has #UDed the
 * forms without SIB or with 16-bit addresses: emu/decode.c vsib_operand). */
#include <string.h>

#include "emu/avx.h"
#include "emu/fpu.h"
#include "emu/operand.h"
#include "isa_handlers.h"

/* One gather. Element size esize (VEX.W: 4 or 8, the row's handler), index
 * size 4 (opcodes 90, 92) or 8 (91, 93); elements: the operand width over the
 * larger of the two (a dword-index qword gather reads only the low half of its
 * index register, a qword-index dword gather fills only the low half of its
 * destination and mask).
 *
 * SDM Vol.2 VGATHERDPS "Operation" and "Description": elements are gathered
 * from the least significant up; an element whose mask sign bit is set is
 * loaded and its mask element cleared ("the entire mask register will be set
 * to zero by this instruction unless it triggers an exception"); one whose
 * sign bit is clear keeps its destination value and is not accessed, so it
 * cannot fault. "If a fault is triggered by an element and delivered, all
 * elements closer to the LSB of the destination will be completed (and
 * non-faulting)": on a fault the destination and mask hold the elements done
 * so far (measured on an Intel host, host_diff -m avx2: no element above the
 * faulting one is loaded), then the exception is delivered with RIP at the gather, which
 * restarts with the elements still enabled. At the end the bits above the
 * elements (MAXVL-1:128 for VEX.128, 255:128 of a qword-index dword gather)
 * are zero in both registers. */
static status_t gather(struct cpu *cpu, const struct insn *in, unsigned esize)
{
	/* SDM Vol.2 VGATHERDPS: "#UD If any pair of the index, mask, or
	 * destination registers are the same" (before the state checks: a
	 * property of the encoding, as VEX.L is). */
	if (in->reg == in->index || in->reg == in->vvvv || in->index == in->vvvv)
		return cpu_raise(cpu, EXC_UD);
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	unsigned isize = in->opcode & 1 ? 8 : 4, bytes = avx_bytes(in);
	unsigned n = bytes / (esize > isize ? esize : isize);
	union ymm_reg d, m, idx;
	ymm_get(cpu, in->reg, &d);
	ymm_get(cpu, in->vvvv, &m);
	ymm_get(cpu, in->index, &idx);
	/* SDM Vol.2 VGATHERDPS "Operation": first every mask element of the
	 * operand width becomes all ones or all zeros after its sign bit (a
	 * VEX.128 mask's bits 255:128 zeroed), then the elements are gathered;
	 * the destination's bits above them are zeroed only at the end. Seen
	 * at a fault midway on an Intel host (host_diff -m avx2): the mask's
	 * elements not yet done read back as all ones, a qword-index VEX.256
	 * dword gather's mask bits 255:128 normalized too, a VEX.128
	 * destination's bits 255:128 unchanged. */
	for (unsigned j = 0; j < bytes / esize; j++)
		memset(m.b + j * esize, m.b[j * esize + esize - 1] & 0x80 ? 0xff : 0, esize);
	memset(m.b + bytes, 0, 32 - bytes);

	struct insn base = *in;
	base.index = REG_NONE;
	uint64_t ea = insn_ea(cpu, &base), amask = size_mask(in->asize);
	bool done = false;
	for (unsigned j = 0; j < n; j++) {
		if (!(m.b[j * esize + esize - 1] & 0x80))
			continue;
		int64_t ix = isize == 8 ? (int64_t)idx.q[j] : (int64_t)(int32_t)idx.d[j];
		uint64_t off = (ea + ((uint64_t)ix << in->scale)) & amask;
		st = fpu_mem_read(cpu, in, off, d.b + j * esize, esize, 0);
		if (st != ST_OK) {
			ymm_put(cpu, in->reg, &d, done ? bytes : 32);
			ymm_put(cpu, in->vvvv, &m, 32);
			return st;
		}
		memset(m.b + j * esize, 0, esize);
		done = true;
	}
	memset(d.b + n * esize, 0, 32 - n * esize);
	memset(&m, 0, sizeof(m));
	ymm_put(cpu, in->reg, &d, 32);
	ymm_put(cpu, in->vvvv, &m, 32);
	return ST_OK;
}

status_t op_vgather_d(struct cpu *cpu, const struct insn *in) { return gather(cpu, in, 4); }
status_t op_vgather_q(struct cpu *cpu, const struct insn *in) { return gather(cpu, in, 8); }
