/* The AVX/AVX2 instructions driven by per-element sign bits, and the YMM
 * clearing ones (emu/isa/avx_permute.isa): VMASKMOVPS/PD, VPMASKMOVD/Q,
 * VTESTPS/PD, VZEROUPPER/VZEROALL. Each begins with avx_gate() (emu/avx.h). */
#include <string.h>

#include "emu/avx.h"
#include "emu/flags.h"
#include "emu/fpu.h"
#include "emu/operand.h"
#include "isa_handlers.h"

/* SDM Vol.2 VMASKMOV, VPMASKMOV (exception type 6, no alignment rule). The
 * mask is H: an element moves when its sign bit is set. Loads (2C, 2D, 8C)
 * write the destination register with the enabled elements and zeros; stores
 * (2E, 2F, 8E) write only the enabled elements to memory. "Faults occur only
 * due to mask-bit required memory accesses that caused the faults. Faults will
 * not occur due to referencing any memory location if the corresponding mask
 * bit for that memory location is 0": a masked-off element is never accessed,
 * so it cannot fault (not on a page that is absent, not past a segment limit).
 * A store probes every enabled element before writing any, so a fault leaves
 * memory unchanged. esize: 4 or 8 (the row's handler). */
static status_t maskmov(struct cpu *cpu, const struct insn *in, unsigned esize)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	bool store = (in->opcode & 2) != 0;        /* 2E, 2F, 8E */
	unsigned bytes = avx_bytes(in), n = bytes / esize;
	uint64_t ea = insn_ea(cpu, in), amask = size_mask(in->asize);
	union ymm_reg mask, v;
	ymm_get(cpu, in->vvvv, &mask);
	if (store) {
		/* Measured on an Intel host (host_diff -m avx2, and every mask of a
		 * VMASKMOVPS ymm store across the end of a present page): the store
		 * is one access of the bytes from the lowest enabled element to
		 * the end of the highest, whose #PF reports in CR2 its first byte
		 * when that page is absent, else its last byte. So the span's
		 * first and last bytes are probed first, then every enabled
		 * element (segment checks). */
		ymm_get(cpu, in->reg, &v);
		int lo = -1, hi = -1;
		for (unsigned i = 0; i < n; i++)
			if (mask.b[i * esize + esize - 1] & 0x80) {
				lo = lo < 0 ? (int)i : lo;
				hi = (int)i;
			}
		if (lo < 0)
			return ST_OK;
		st = fpu_mem_probe(cpu, in, (ea + (unsigned)lo * esize) & amask, 1, 0);
		if (st == ST_OK)
			st = fpu_mem_probe(cpu, in, (ea + (unsigned)hi * esize + esize - 1) & amask, 1, 0);
		for (unsigned i = 0; st == ST_OK && i < n; i++)
			if (mask.b[i * esize + esize - 1] & 0x80)
				st = fpu_mem_probe(cpu, in, (ea + i * esize) & amask, esize, 0);
		if (st != ST_OK)
			return st;
		for (unsigned i = 0; i < n; i++) {
			if (!(mask.b[i * esize + esize - 1] & 0x80))
				continue;
			st = fpu_mem_store(cpu, in, (ea + i * esize) & amask, v.b + i * esize, esize);
			if (st != ST_OK)
				return st;
		}
		return ST_OK;
	}
	memset(&v, 0, sizeof(v));
	for (unsigned i = 0; i < n; i++) {
		if (!(mask.b[i * esize + esize - 1] & 0x80))
			continue;
		st = fpu_mem_read(cpu, in, (ea + i * esize) & amask, v.b + i * esize, esize, 0);
		if (st != ST_OK)
			return st;
	}
	ymm_put(cpu, in->reg, &v, bytes);
	return ST_OK;
}

status_t op_vmaskmov_d(struct cpu *cpu, const struct insn *in) { return maskmov(cpu, in, 4); }
status_t op_vmaskmov_q(struct cpu *cpu, const struct insn *in) { return maskmov(cpu, in, 8); }

/* SDM Vol.2 VTESTPS (0E) / VTESTPD (0F): PTEST on the sign bits of the
 * dwords / qwords only: ZF = 1 if no element has the sign set in both V and W,
 * CF = 1 if none has it set in W and clear in V; AF, OF, PF, SF cleared. */
status_t op_vtest(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	unsigned bytes = avx_bytes(in);
	union ymm_reg d, s;
	st = avx_read_w(cpu, in, bytes, 0, &s);
	if (st != ST_OK)
		return st;
	ymm_get(cpu, in->reg, &d);
	uint64_t sign = in->opcode == 0x0e ? 0x8000000080000000ull : 0x8000000000000000ull, and = 0, andn = 0;
	for (unsigned i = 0; i < bytes / 8; i++) {
		and |= s.q[i] & d.q[i] & sign;
		andn |= s.q[i] & ~d.q[i] & sign;
	}
	flags_update(cpu, FLAGS_ARITH, (and ? 0 : FLAG_ZF) | (andn ? 0 : FLAG_CF));
	return ST_OK;
}

/* SDM Vol.2 VZEROUPPER (VEX.128): bits 255:128 of every YMM register zeroed;
 * VZEROALL (VEX.256): the whole registers. "In Compatibility and legacy 32-bit
 * mode only the lower 8 registers are modified." */
status_t op_vzero(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	unsigned n = cpu->mode == MODE_LONG64 ? 16 : 8;
	for (unsigned i = 0; i < n; i++) {
		cpu->fpu.ymm_hi[i] = (union xmm_reg){ .q = { 0, 0 } };
		if (in->vex & VEX_L256)
			cpu->fpu.xmm[i] = (union xmm_reg){ .q = { 0, 0 } };
	}
	return ST_OK;
}
