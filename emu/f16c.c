/* F16C (emu/isa/f16c.isa; SDM Vol.2 VCVTPH2PS, VCVTPS2PH; SDM Vol.1 14.4.1):
 * conversions between half precision (IEEE 754 binary16) and single
 * precision, computed by the host's own F16C unit (emu/avx_host.h) under a
 * host MXCSR made from the guest's: results, NaN quieting, denormal halves,
 * DAZ on single inputs, the rounding control imm8 and the masked flags are the
 * hardware's. A VEX.128 form runs as the 256-bit host form with zero upper
 * elements (a zero converts without a flag). */
#include <stdio.h>
#include <string.h>

#include "emu/avx.h"
#include "emu/avx_host.h"
#include "emu/fpu.h"
#include "emu/operand.h"
#include "emu/sse_fp_ops.h"
#include "isa_handlers.h"

#define HOST_PRE "stmxcsr %[save]\n\tldmxcsr %[in]\n\t"
#define HOST_POST "\n\tstmxcsr %[out]\n\tldmxcsr %[save]\n\tvzeroupper"

/* d := VCVTPH2PS ymm of the eight halves in s. */
static uint32_t host_ph2ps(uint32_t csr, union ymm_reg *d, const union xmm_reg *s)
{
	uint32_t out = 0, save = 0;
	__asm__ volatile(HOST_PRE "vmovdqu %[s], %%xmm1\n\tvcvtph2ps %%xmm1, %%ymm0\n\tvmovdqu %%ymm0, %[d]" HOST_POST
			 : [d] "=m"(*d), [out] "=m"(out), [save] "+m"(save) : [s] "m"(*s), [in] "m"(csr)
			 : "xmm0", "xmm1");
	return out & MXCSR_FLAGS;
}

/* d := VCVTPS2PH xmm, ymm, imm8 of the eight singles in s; imm8[2:0] is all
 * the instruction reads (SDM Vol.2 VCVTPS2PH, the table "Immediate Byte
 * Encoding for 16-bit Floating-Point Conversion Instructions": bits 7:3
 * ignored). */
#define PS2PH(k) case k: __asm__ volatile(HOST_PRE "vmovdqu %[s], %%ymm1\n\tvcvtps2ph $" #k ", %%ymm1, %%xmm0\n\t" \
	"vmovdqu %%xmm0, %[d]" HOST_POST \
	: [d] "=m"(*d), [out] "=m"(out), [save] "+m"(save) : [s] "m"(*s), [in] "m"(csr) : "xmm0", "xmm1"); break;
static uint32_t host_ps2ph(uint32_t csr, unsigned imm, union xmm_reg *d, const union ymm_reg *s)
{
	uint32_t out = 0, save = 0;
	switch (imm & 7) {
	PS2PH(0) PS2PH(1) PS2PH(2) PS2PH(3) PS2PH(4) PS2PH(5) PS2PH(6) PS2PH(7)
	default: break;
	}
	return out & MXCSR_FLAGS;
}
#undef PS2PH

static bool host_f16c_ok(void)
{
	static int ok = -1;
	if (ok < 0) {
		ok = avx_host_has(29);
		if (!ok)
			fprintf(stderr, "hvemu: the host has no F16C unit: the guest's F16C instructions are #UD\n");
	}
	return ok;
}

/* SDM Vol.2 VCVTPH2PS (exception type 11): four (VEX.128, from xmm/m64) or
 * eight (VEX.256, from xmm/m128) halves to singles. Only an SNaN raises
 * anything (IE, a pre-computation condition); denormal halves convert exactly
 * and raise no DE. */
status_t op_vcvtph2ps(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	if (!host_f16c_ok())
		return cpu_raise(cpu, EXC_UD);
	unsigned bytes = avx_bytes(in);
	union ymm_reg s, d;
	st = avx_read_w(cpu, in, bytes / 2, 0, &s);
	if (st != ST_OK)
		return st;
	if (bytes == 16)
		s.q[1] = 0;
	uint32_t exc = host_ph2ps(avx_host_csr(cpu->fpu.mxcsr), &d, &s.x[0]);
	st = sse_fp_commit(cpu, exc);
	if (st == ST_OK)
		ymm_put(cpu, in->reg, &d, bytes);
	return st;
}

/* Whether a single's significand does not fit the 11 bits of a half, the
 * exponent unbounded: what PE reports when underflow or overflow is unmasked.
 * A denormal single is taken as it is stored, 0.fraction (not normalized),
 * and with DAZ as zero. */
static bool half_inexact(uint32_t v, bool daz)
{
	uint32_t e = (v >> 23) & 0xff, m = v & 0x7fffff;
	if (e == 0xff || (e == 0 && daz))
		return false;
	return (m & 0x1fff) != 0;
}

/* SDM Vol.2 VCVTPS2PH (exception type 11): four (VEX.128) or eight (VEX.256)
 * singles to halves, rounded as imm8[1:0] says, or as MXCSR.RC with imm8[2]
 * set, to xmm/m64 or xmm/m128; a register destination has the bits above the
 * result zeroed. With underflow unmasked a tiny exact result raises UE, as in
 * emu/sse_fp.c (SDM Vol.1 4.9.1.5), and with underflow or overflow unmasked PE
 * is the inexactness of the result with an unbounded exponent (SDM Vol.1
 * 4.9.1.6), where a denormal single counts unnormalized (half_inexact: so
 * measured on an Intel host, host_diff -m avx2, 500000 sequences). Memory is
 * written only when no unmasked exception stops the instruction. */
status_t op_vcvtps2ph(struct cpu *cpu, const struct insn *in)
{
	status_t st = avx_gate(cpu);
	if (st != ST_OK)
		return st;
	if (!host_f16c_ok())
		return cpu_raise(cpu, EXC_UD);
	unsigned bytes = avx_bytes(in), n = bytes / 4;
	union ymm_reg s, d = { .q = { 0, 0, 0, 0 } };
	ymm_get(cpu, in->reg, &s);
	if (bytes == 16)
		s.x[1] = (union xmm_reg){ .q = { 0, 0 } };
	uint32_t mx = cpu->fpu.mxcsr;
	uint32_t exc = host_ps2ph(avx_host_csr(mx), (unsigned)in->imm, &d.x[0], &s);
	if (!(mx & MXCSR_UM))
		for (unsigned i = 0; i < n; i++)
			if ((d.w[i] & 0x7c00) == 0 && (d.w[i] & 0x3ff))
				exc |= MXCSR_UE;
	if (((exc & MXCSR_UE) && !(mx & MXCSR_UM)) || ((exc & MXCSR_OE) && !(mx & MXCSR_OM))) {
		exc &= ~(uint32_t)MXCSR_PE;
		for (unsigned i = 0; i < n; i++)
			if (half_inexact(s.d[i], mx & MXCSR_DAZ))
				exc |= MXCSR_PE;
	}
	/* An unmasked exception stops the instruction before its store; a store
	 * that faults leaves MXCSR as it was: probe it before recording flags. */
	uint32_t unmasked = exc & ~(mx >> MXCSR_MASK_SHIFT) & MXCSR_FLAGS;
	if (!unmasked && in->mem) {
		st = fpu_mem_probe(cpu, in, insn_ea(cpu, in), bytes / 2, 0);
		if (st != ST_OK)
			return st;
	}
	st = sse_fp_commit(cpu, exc);
	if (st != ST_OK)
		return st;
	return avx_write_w(cpu, in, &d, bytes / 2, 0);
}
