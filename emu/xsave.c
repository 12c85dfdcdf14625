/* Saving and restoring the FPU/SSE state: FXSAVE/FXRSTOR (SDM Vol.1 10.5,
 * Vol.2 FXSAVE/FXRSTOR), XSAVE/XRSTOR and XCR0 through XGETBV/XSETBV (SDM Vol.1
 * ch. 13, Vol.2 XSAVE/XRSTOR/XSAVEOPT/XGETBV/XSETBV), for the x87, SSE and
 * AVX state components. Also the register-file helpers every FPU file uses: RESET/FNINIT
 * state, tags, the #NM/#UD gates and block memory accesses.
 *
 * XINUSE (SDM Vol.1 13.6) is not tracked: every enabled component counts as in
 * use, which the SDM allows ("the processor may set XINUSE[i] ... even if the
 * component is in its initial configuration"), so XSAVE sets XSTATE_BV[i] for
 * every requested component.
 */
#include <string.h>

#include "emu/hv.h"
#include "emu/cpu_model.h"
#include "emu/fpu.h"
#include "emu/operand.h"
#include "isa_handlers.h"

/* ---- register file ---- */

void fpu_init_x87(struct fpu_state *f)
{
	/* SDM Vol.2 FINIT/FNINIT operation: FPUControlWord := 037FH; FPUStatusWord := 0;
	 * FPUTagWord := FFFFH; data/instruction pointers and last opcode := 0. */
	f->fcw = FCW_INIT;
	f->fsw = 0;
	f->ftw = 0xffff;
	f->fop = 0;
	f->fip = f->fdp = 0;
	f->fcs = f->fds = 0;
}

void fpu_reset(struct fpu_state *f)
{
	memset(f, 0, sizeof(*f));
	/* SDM Vol.3 9.1.1 Table 9-1 (after RESET): FCW 0040H, FSW 0, FTW 5555H,
	 * data registers +0.0; MXCSR 1F80H; XMM registers +0.0. */
	f->fcw = FCW_RESET;
	f->ftw = 0x5555;
	f->mxcsr = MXCSR_RESET;
}

unsigned fpu_tag_of(const struct fpu_reg *r)
{
	unsigned exp = r->sexp & 0x7fff;
	/* SDM Vol.1 8.1.7: zero if exponent and significand are 0; special for
	 * exponent all ones (NaN, infinity), denormals (exponent 0, significand not
	 * 0) and unsupported encodings (integer bit 0 with a nonzero exponent). */
	if (exp == 0)
		return r->mant == 0 ? TAG_ZERO : TAG_SPECIAL;
	if (exp == 0x7fff || !(r->mant >> 63))
		return TAG_SPECIAL;
	return TAG_VALID;
}

uint8_t fpu_tag_abridge(uint16_t ftw)
{
	/* SDM Vol.1 10.5.1.1: bit i = 1 unless R(i)'s tag is 11B (empty). */
	uint8_t out = 0;
	for (unsigned i = 0; i < 8; i++)
		if (((ftw >> (2 * i)) & 3) != TAG_EMPTY)
			out |= (uint8_t)(1u << i);
	return out;
}

uint16_t fpu_tag_expand(uint8_t abridged, const struct fpu_reg r[8])
{
	/* SDM Vol.1 10.5.1.1 (FXRSTOR): empty where the bit is 0, otherwise the tag
	 * the register's contents give. */
	uint16_t ftw = 0;
	for (unsigned i = 0; i < 8; i++) {
		unsigned tag = (abridged >> i) & 1 ? fpu_tag_of(&r[i]) : TAG_EMPTY;
		ftw |= (uint16_t)(tag << (2 * i));
	}
	return ftw;
}

int xcr0_valid(uint64_t value, uint64_t supported)
{
	/* SDM Vol.2 XSETBV: #GP(0) if an unsupported bit is set, if bit 0 (x87) is
	 * clear, or if bit 2 (AVX) is set with bit 1 (SSE) clear (SDM Vol.1 13.3). */
	if (value & ~supported)
		return 0;
	if (!(value & XSTATE_X87))
		return 0;
	if ((value & XSTATE_AVX) && !(value & XSTATE_SSE))
		return 0;
	return 1;
}

/* ST(i) slot i of the image holds ST(i), not R(i) (SDM Vol.1 10.5.1 Table 10-2:
 * "ST0/MM0"). */
void fxsave_to_image(const struct fpu_state *f, struct fxsave_area *img, unsigned nxmm, int wide,
		     uint64_t components)
{
	if (components & XSTATE_X87) {
		img->fcw = f->fcw;
		img->fsw = f->fsw;
		img->ftw = fpu_tag_abridge(f->ftw);
		img->reserved5 = 0;
		img->fop = f->fop & 0x7ff;
		if (wide) {
			img->ptr.f64.fip = f->fip;
			img->ptr.f64.fdp = f->fdp;
		} else {
			img->ptr.f32.fip = (uint32_t)f->fip;
			img->ptr.f32.fcs = f->fcs;
			img->ptr.f32.reserved14 = 0;
			img->ptr.f32.fdp = (uint32_t)f->fdp;
			img->ptr.f32.fds = f->fds;
			img->ptr.f32.reserved22 = 0;
		}
		unsigned top = (f->fsw & FSW_TOP_MASK) >> FSW_TOP_SHIFT;
		for (unsigned i = 0; i < 8; i++) {
			const struct fpu_reg *r = &f->r[(top + i) & 7];
			img->st[i].mant = r->mant;
			img->st[i].sexp = r->sexp;
			memset(img->st[i].reserved, 0, sizeof(img->st[i].reserved));
		}
	}
	/* SDM Vol.1 13.7: MXCSR and MXCSR_MASK go with RFBM[1] or RFBM[2]. */
	if (components & (XSTATE_SSE | XSTATE_AVX)) {
		img->mxcsr = f->mxcsr;
		img->mxcsr_mask = MXCSR_MASK;
	}
	if (components & XSTATE_SSE)
		for (unsigned i = 0; i < nxmm; i++)
			memcpy(img->xmm[i], f->xmm[i].b, 16);
}

int fxsave_from_image(struct fpu_state *f, const struct fxsave_area *img, unsigned nxmm, int wide,
		      uint64_t components)
{
	/* SDM Vol.2 FXRSTOR: "#GP ... If trying to set any reserved bits in MXCSR";
	 * checked before anything is loaded. */
	if ((components & (XSTATE_SSE | XSTATE_AVX)) && (img->mxcsr & ~(uint32_t)MXCSR_MASK))
		return 0;
	if (components & XSTATE_X87) {
		f->fcw = img->fcw;
		f->fsw = img->fsw;
		f->fop = img->fop & 0x7ff;
		if (wide) {
			f->fip = img->ptr.f64.fip;
			f->fdp = img->ptr.f64.fdp;
			f->fcs = f->fds = 0;
		} else {
			f->fip = img->ptr.f32.fip;
			f->fcs = img->ptr.f32.fcs;
			f->fdp = img->ptr.f32.fdp;
			f->fds = img->ptr.f32.fds;
		}
		unsigned top = (f->fsw & FSW_TOP_MASK) >> FSW_TOP_SHIFT;
		for (unsigned i = 0; i < 8; i++) {
			struct fpu_reg *r = &f->r[(top + i) & 7];
			r->mant = img->st[i].mant;
			r->sexp = img->st[i].sexp;
		}
		f->ftw = fpu_tag_expand(img->ftw, f->r);
		/* SDM Vol.1 8.1.3: ES (and B) summarise unmasked set exception flags. */
		if (f->fsw & ~f->fcw & FSW_EXC)
			f->fsw |= FSW_ES | FSW_B;
		else
			f->fsw &= (uint16_t)~(FSW_ES | FSW_B);
	}
	if (components & (XSTATE_SSE | XSTATE_AVX))
		f->mxcsr = img->mxcsr;
	if (components & XSTATE_SSE)
		for (unsigned i = 0; i < nxmm; i++)
			memcpy(f->xmm[i].b, img->xmm[i], 16);
	return 1;
}

/* ---- gates ---- */

status_t x87_gate(struct cpu *cpu, bool waiting)
{
	/* SDM Vol.3 2.5 Table 2-2: x87 instructions: EM = 1 or TS = 1 -> #NM. */
	if (cpu->cr0 & (CR0_EM | CR0_TS))
		return cpu_raise(cpu, EXC_NM);
	/* SDM Vol.1 8.6: a waiting instruction first reports a pending unmasked
	 * exception. #MF with CR0.NE = 1 (SDM Vol.3 2.5 "NE"); see emu/fpu.h for NE = 0. */
	if (waiting && (cpu->fpu.fsw & FSW_ES) && (cpu->cr0 & CR0_NE))
		return cpu_raise(cpu, EXC_MF);
	return ST_OK;
}

status_t sse_gate(struct cpu *cpu, bool need_osfxsr, unsigned cpuid_edx_bit)
{
	/* SDM Vol.2 SSE instruction exceptions: "#UD If CPUID.01H:EDX.SSE[bit 25]
	 * (SSE2[bit 26]) = 0", "If CR0.EM[bit 2] = 1", "If CR4.OSFXSR[bit 9] = 0";
	 * "#NM If CR0.TS[bit 3] = 1". The non-SIMD ones (fences, CLFLUSH, MOVNTI)
	 * check only the CPUID bit. */
	if (!((cpu->leaf1_edx >> cpuid_edx_bit) & 1))
		return cpu_raise(cpu, EXC_UD);
	if (!need_osfxsr)
		return ST_OK;
	if ((cpu->cr0 & CR0_EM) || !(cpu->cr4 & CR4_OSFXSR))
		return cpu_raise(cpu, EXC_UD);
	if (cpu->cr0 & CR0_TS)
		return cpu_raise(cpu, EXC_NM);
	return ST_OK;
}

/* ---- block memory access ---- */

static uint64_t linear_of(const struct cpu *cpu, const struct insn *in, uint64_t off)
{
	if (cpu->mode == MODE_LONG64 && in->seg != SR_FS && in->seg != SR_GS)
		return off;
	return cpu->seg[in->seg].base + off;
}

/* The piece size at byte i of n: 8 bytes while they fit, then 4, 2, 1. */
static unsigned piece(unsigned i, unsigned n)
{
	unsigned left = n - i;
	return left >= 8 ? 8 : left >= 4 ? 4 : left >= 2 ? 2 : 1;
}

status_t fpu_mem_read(struct cpu *cpu, const struct insn *in, uint64_t off, void *buf,
		      unsigned n, unsigned align)
{
	uint8_t *out = buf;
	if (align && (linear_of(cpu, in, off) & (align - 1)))
		return cpu_raise_err(cpu, EXC_GP, 0);
	for (unsigned i = 0; i < n;) {
		unsigned sz = piece(i, n);
		uint64_t v;
		status_t st = mem_read(cpu, in->seg, (off + i) & size_mask(in->asize), sz, &v);
		if (st != ST_OK)
			return st;
		memcpy(out + i, &v, sz);   /* little-endian host */
		i += sz;
	}
	return ST_OK;
}

status_t fpu_mem_probe(struct cpu *cpu, const struct insn *in, uint64_t off, unsigned n,
		       unsigned align)
{
	if (align && (linear_of(cpu, in, off) & (align - 1)))
		return cpu_raise_err(cpu, EXC_GP, 0);
	for (unsigned i = 0; i < n;) {
		unsigned sz = piece(i, n);
		status_t st = mem_probe_write(cpu, in->seg, (off + i) & size_mask(in->asize), sz);
		if (st != ST_OK)
			return st;
		i += sz;
	}
	return ST_OK;
}

status_t fpu_mem_store(struct cpu *cpu, const struct insn *in, uint64_t off, const void *buf,
		       unsigned n)
{
	const uint8_t *src = buf;
	for (unsigned i = 0; i < n;) {
		unsigned sz = piece(i, n);
		uint64_t v = 0;
		memcpy(&v, src + i, sz);
		status_t st = mem_write(cpu, in->seg, (off + i) & size_mask(in->asize), sz, v);
		if (st != ST_OK)
			return st;
		i += sz;
	}
	return ST_OK;
}

status_t fpu_mem_write(struct cpu *cpu, const struct insn *in, uint64_t off, const void *buf,
		       unsigned n, unsigned align)
{
	status_t st = fpu_mem_probe(cpu, in, off, n, align);
	if (st != ST_OK)
		return st;
	return fpu_mem_store(cpu, in, off, buf, n);
}

/* ---- FXSAVE / FXRSTOR ---- */

/* XMM8-15 exist in 64-bit mode only (SDM Vol.1 10.5.1: "In non-64-bit modes,
 * ... XMM8-XMM15 are not saved"). REX.W selects the 64-bit pointer format. */
static unsigned xmm_count(const struct cpu *cpu) { return cpu_is_mode64(cpu) ? 16 : 8; }
static int wide_format(const struct cpu *cpu, const struct insn *in)
{
	return cpu_is_mode64(cpu) && (in->rex & 8);
}

/* FXSAVE/FXRSTOR checks (SDM Vol.2 FXSAVE "Protected Mode Exceptions"): #UD
 * without CPUID.01H:EDX.FXSR[24]; #NM if CR0.TS or CR0.EM. */
static status_t fxsr_gate(struct cpu *cpu)
{
	/* The CPUID.FXSR #UD is the rows' feature (emu/isa/xsave.isa). */
	if (cpu->cr0 & (CR0_TS | CR0_EM))
		return cpu_raise(cpu, EXC_NM);
	return ST_OK;
}

/* Bytes of the image FXSAVE writes: 0-31 (x87 and MXCSR), 32-159 (ST), 160 up
 * (XMM). Bytes 288-511 outside 64-bit mode and 416-511 in it are left alone. */
static unsigned fxsave_extent(unsigned nxmm) { return 160 + 16 * nxmm; }

/* 0F AE /0: FXSAVE m512byte. 16-byte alignment: #GP(0) (SDM Vol.2 FXSAVE). */
status_t op_fxsave(struct cpu *cpu, const struct insn *in)
{
	status_t st = fxsr_gate(cpu);
	if (st != ST_OK)
		return st;
	struct fxsave_area img;
	memset(&img, 0, sizeof(img));
	unsigned nxmm = xmm_count(cpu);
	fxsave_to_image(&cpu->fpu, &img, nxmm, wide_format(cpu, in), XSTATE_X87 | XSTATE_SSE);
	return fpu_mem_write(cpu, in, insn_ea(cpu, in), &img, fxsave_extent(nxmm), 16);
}

/* 0F AE /1: FXRSTOR m512byte. */
status_t op_fxrstor(struct cpu *cpu, const struct insn *in)
{
	status_t st = fxsr_gate(cpu);
	if (st != ST_OK)
		return st;
	struct fxsave_area img;
	memset(&img, 0, sizeof(img));
	unsigned nxmm = xmm_count(cpu);
	st = fpu_mem_read(cpu, in, insn_ea(cpu, in), &img, fxsave_extent(nxmm), 16);
	if (st != ST_OK)
		return st;
	if (!fxsave_from_image(&cpu->fpu, &img, nxmm, wide_format(cpu, in), XSTATE_X87 | XSTATE_SSE))
		return cpu_raise_err(cpu, EXC_GP, 0);
	return ST_OK;
}

/* ---- XSAVE / XRSTOR ---- */

/* SDM Vol.2 XSAVE: "#UD If CPUID.01H:ECX.XSAVE[bit 26] = 0. If CR4.OSXSAVE[bit 18]
 * = 0. If the LOCK prefix is used"; "#NM If CR0.TS[bit 3] = 1". */
static status_t xsave_gate(struct cpu *cpu, bool check_ts)
{
	/* The CPUID.XSAVE #UD is the rows' feature (emu/isa/xsave.isa). */
	if (!(cpu->cr4 & CR4_OSXSAVE))
		return cpu_raise(cpu, EXC_UD);
	if (check_ts && (cpu->cr0 & CR0_TS))
		return cpu_raise(cpu, EXC_NM);
	return ST_OK;
}

/* RFBM := XCR0 AND EDX:EAX (SDM Vol.1 13.7). */
static uint64_t rfbm(const struct cpu *cpu)
{
	uint64_t mask = ((cpu->regs[R_DX] & 0xffffffffull) << 32) | (cpu->regs[R_AX] & 0xffffffffull);
	return cpu->xcr0 & mask;
}

/* The AVX state component, YMM_Hi128 (SDM Vol.1 13.5.3): bits 255:128 of YMM0-15,
 * 16 bytes each at offset 576 in the standard format (CPUID.(EAX=0DH,ECX=2)); the
 * compacted format puts it there too, being the first component after the header
 * (SDM Vol.1 13.4.3). Outside 64-bit mode only YMM0-7's are saved and restored,
 * as XMM8-15 are for SSE (SDM Vol.1 13.13). */
#define XSAVE_AVX_OFFSET 576u
#define XCOMP_BV_COMPACT (1ull << 63)   /* XCOMP_BV[63]: the compacted format (SDM Vol.1 13.4.2) */
#define XSAVE_AVX_SIZE 256u

/* The bytes from the start of the area to the end of the last component in
 * mask: where an XSAVE of those components writes. */
static unsigned xsave_extent(uint64_t mask)
{
	return mask & XSTATE_AVX ? XSAVE_AVX_OFFSET + XSAVE_AVX_SIZE : XSAVE_AREA_SIZE;
}

/* SDM Vol.2 CPUID leaf 0DH subleaf 1 EAX: bit 0 XSAVEOPT, bit 1 XSAVEC (and the
 * compacted form of XRSTOR), bit 2 XGETBV with ECX = 1. */
static bool xsave_ext(const struct cpu *cpu, unsigned bit)
{
	uint32_t leaf[4];
	cpu_model_cpuid(cpu->model, 0xd, 1, leaf);
	return (leaf[0] >> bit) & 1;
}

/* XSAVE and XSAVEOPT: RFBM's components in the standard format; XSAVEC
 * (compact) in the compacted one. With only x87, SSE and AVX the formats place
 * every component at the same offset: AVX, the first in the extended region,
 * at 576 either way (SDM Vol.1 13.4.3). */
static status_t xsave_common(struct cpu *cpu, const struct insn *in, bool compact)
{
	status_t st = xsave_gate(cpu, true);
	if (st != ST_OK)
		return st;
	uint64_t off = insn_ea(cpu, in), mask = rfbm(cpu);
	unsigned nxmm = xmm_count(cpu);
	st = fpu_mem_probe(cpu, in, off, xsave_extent(mask), 64);
	if (st != ST_OK)
		return st;
	uint64_t bv = 0;
	if (!compact && (st = fpu_mem_read(cpu, in, off + 512, &bv, 8, 0)) != ST_OK)
		return st;
	struct xsave_area img;
	memset(&img, 0, sizeof(img));
	fxsave_to_image(&cpu->fpu, &img.legacy, nxmm, wide_format(cpu, in), mask);
	const uint8_t *b = (const uint8_t *)&img;
	if (mask & XSTATE_X87) {
		st = fpu_mem_store(cpu, in, off, b, 24);
		if (st == ST_OK)
			st = fpu_mem_store(cpu, in, off + 32, b + 32, 128);
	}
	/* MXCSR and MXCSR_MASK: with RFBM[1] or RFBM[2] for XSAVE and XSAVEOPT
	 * (SDM Vol.1 13.7, 13.9), with the SSE component only for XSAVEC (SDM
	 * Vol.2 XSAVEC Operation: "store SSE state ... saves the XMM registers,
	 * MXCSR, and MXCSR_MASK"). */
	if (st == ST_OK && (mask & (compact ? XSTATE_SSE : XSTATE_SSE | XSTATE_AVX)))
		st = fpu_mem_store(cpu, in, off + 24, b + 24, 8);
	if (st == ST_OK && (mask & XSTATE_SSE))
		st = fpu_mem_store(cpu, in, off + 160, b + 160, 16 * nxmm);
	if (st == ST_OK && (mask & XSTATE_AVX))
		st = fpu_mem_store(cpu, in, off + XSAVE_AVX_OFFSET, cpu->fpu.ymm_hi, 16 * nxmm);
	/* XSAVE(OPT): XSTATE_BV[i] := XINUSE[i] for i in RFBM, other bits
	 * unchanged. XSAVEC: XSTATE_BV := RFBM AND XINUSE, XCOMP_BV := RFBM with
	 * bit 63 set; the rest of the header is not written (SDM Vol.2 XSAVEC). */
	uint64_t hdr[2] = { compact ? mask : (bv & ~mask) | (mask & cpu->xcr0), mask | XCOMP_BV_COMPACT };
	if (st == ST_OK)
		st = fpu_mem_store(cpu, in, off + 512, hdr, compact ? 16 : 8);
	return st;
}

/* 0F AE /4 (memory): XSAVE mem. 64-byte alignment (SDM Vol.2 XSAVE: "#GP(0) If
 * a memory operand is not aligned on a 64-byte boundary"). Writes only the
 * requested components and XSTATE_BV (SDM Vol.1 13.7); the rest of the header
 * is not written. */
status_t op_xsave(struct cpu *cpu, const struct insn *in)
{
	return xsave_common(cpu, in, false);
}

/* 0F AE /6 (memory): XSAVEOPT mem (SDM Vol.1 13.9, Vol.2 XSAVEOPT): XSAVE's
 * standard format, allowed to skip components in their initial configuration
 * (XINUSE[i] = 0) or unmodified since the last XRSTOR from this area. hvemu
 * tracks neither (see the top of this file), so it writes what XSAVE writes,
 * which the SDM allows: the optimisations are permissions, not obligations.
 * #UD without CPUID.(EAX=0DH,ECX=1):EAX[0]. */
status_t op_xsaveopt(struct cpu *cpu, const struct insn *in)
{
	if (!xsave_ext(cpu, 0))
		return cpu_raise(cpu, EXC_UD);
	return xsave_common(cpu, in, false);
}

/* 0F C7 /4 (memory): XSAVEC mem (SDM Vol.1 13.10, Vol.2 XSAVEC): the compacted
 * format, components in RFBM AND XINUSE (every enabled one here). #UD without
 * CPUID.(EAX=0DH,ECX=1):EAX[1]; then XSAVE's #UD/#NM/#GP rules. */
status_t op_xsavec(struct cpu *cpu, const struct insn *in)
{
	if (!xsave_ext(cpu, 1))
		return cpu_raise(cpu, EXC_UD);
	return xsave_common(cpu, in, true);
}

/* 0F AE /5 (memory): XRSTOR mem, standard and compacted forms (SDM Vol.1 13.8,
 * Vol.2 XRSTOR). #GP(0): misaligned; the header rules of each form; MXCSR
 * reserved bits when MXCSR is loaded. Components in RFBM but clear in
 * XSTATE_BV are initialised (SDM Vol.1 13.8.1, 13.8.2). */
status_t op_xrstor(struct cpu *cpu, const struct insn *in)
{
	status_t st = xsave_gate(cpu, true);
	if (st != ST_OK)
		return st;
	uint64_t off = insn_ea(cpu, in), mask = rfbm(cpu);
	unsigned nxmm = xmm_count(cpu);
	struct xsave_area img;
	st = fpu_mem_read(cpu, in, off, &img, XSAVE_AREA_SIZE, 64);
	if (st != ST_OK)
		return st;
	uint64_t bv = img.hdr.xstate_bv, comp = img.hdr.xcomp_bv;
	bool compact = comp & XCOMP_BV_COMPACT;
	if (compact) {
		/* The compacted form (SDM Vol.1 13.8.2, Vol.2 XRSTOR): #GP(0) without
		 * CPUID.(EAX=0DH,ECX=1):EAX[1], if XCOMP_BV[62:0] has a bit XCR0
		 * lacks, if XSTATE_BV has a bit XCOMP_BV lacks, or if bytes 63:16
		 * of the header are not all zero. */
		bool reserved = false;
		for (unsigned i = 0; i < 6; i++)
			reserved |= img.hdr.reserved[i] != 0;
		if (!xsave_ext(cpu, 1) || (comp & ~XCOMP_BV_COMPACT & ~cpu->xcr0) || (bv & ~comp) || reserved)
			return cpu_raise_err(cpu, EXC_GP, 0);
	} else if ((bv & ~cpu->xcr0) || comp != 0 || img.hdr.reserved[0] != 0) {
		/* The standard form (SDM Vol.1 13.8.1): XSTATE_BV within XCR0, header
		 * bytes 23:8 zero. */
		return cpu_raise_err(cpu, EXC_GP, 0);
	}
	/* MXCSR: the standard form loads it with RFBM[1] or RFBM[2], whatever
	 * XSTATE_BV says (SDM Vol.1 13.8.1); the compacted form with RFBM[1] and
	 * XSTATE_BV[1], else it sets 1F80H (13.8.2). Checked before anything changes. */
	bool load_mxcsr = compact ? (mask & bv & XSTATE_SSE) != 0 : (mask & (XSTATE_SSE | XSTATE_AVX)) != 0;
	if (load_mxcsr && (img.legacy.mxcsr & ~(uint32_t)MXCSR_MASK))
		return cpu_raise_err(cpu, EXC_GP, 0);
	/* The AVX component is read before anything changes, so a fault on it
	 * leaves the state as it was; clear in XSTATE_BV, it is the init state:
	 * bits 255:128 of the YMM registers 0 (SDM Vol.1 13.6, 13.8.1). */
	union xmm_reg hi[16];
	memset(hi, 0, sizeof(hi));
	if ((mask & bv & XSTATE_AVX) &&
	    (st = fpu_mem_read(cpu, in, off + XSAVE_AVX_OFFSET, hi, 16 * nxmm, 0)) != ST_OK)
		return st;

	struct fpu_state *f = &cpu->fpu;
	if (mask & XSTATE_X87) {
		if (bv & XSTATE_X87) {
			(void)fxsave_from_image(f, &img.legacy, nxmm, wide_format(cpu, in), XSTATE_X87);
		} else {
			/* x87 init state (SDM Vol.1 13.6): FNINIT's state and +0.0 registers. */
			fpu_init_x87(f);
			memset(f->r, 0, sizeof(f->r));
		}
	}
	if (load_mxcsr)
		f->mxcsr = img.legacy.mxcsr;
	else if (compact && (mask & XSTATE_SSE))
		f->mxcsr = MXCSR_RESET;
	if (mask & XSTATE_SSE) {
		if (bv & XSTATE_SSE)
			for (unsigned i = 0; i < nxmm; i++)
				memcpy(f->xmm[i].b, img.legacy.xmm[i], 16);
		else
			/* SSE init state: XMM registers 0 (MXCSR is not part of it). */
			memset(f->xmm, 0, sizeof(f->xmm[0]) * nxmm);
	}
	if (mask & XSTATE_AVX)
		memcpy(f->ymm_hi, hi, sizeof(hi[0]) * nxmm);
	return ST_OK;
}

/* 0F 01 D0: XGETBV, any CPL (SDM Vol.2 XGETBV). ECX = 0 reads XCR0; ECX = 1
 * reads XINUSE AND XCR0, but only where CPUID.(EAX=0DH,ECX=1):EAX[2] advertises
 * it; any other ECX is #GP(0). XINUSE is every enabled component here (see the
 * top of this file), so ECX = 1 reads XCR0. */
status_t op_xgetbv(struct cpu *cpu, const struct insn *in)
{
	(void)in;
	status_t st = xsave_gate(cpu, false);
	if (st != ST_OK)
		return st;
	uint32_t ecx = (uint32_t)cpu->regs[R_CX], leaf[4];
	cpu_model_cpuid(cpu->model, 0xd, 1, leaf);
	if (ecx > 1 || (ecx == 1 && !(leaf[0] & (1u << 2))))
		return cpu_raise_err(cpu, EXC_GP, 0);
	reg_write(cpu, R_AX, 4, false, (uint32_t)cpu->xcr0);
	reg_write(cpu, R_DX, 4, false, (uint32_t)(cpu->xcr0 >> 32));
	return ST_OK;
}

/* 0F 01 D1: XSETBV. #GP(0) unless CPL 0 (virtual-8086 mode is CPL 3), for ECX
 * other than 0, and for XCR0 values xcr0_valid refuses (SDM Vol.2 XSETBV). */
status_t op_xsetbv(struct cpu *cpu, const struct insn *in)
{
	status_t st = xsave_gate(cpu, false);
	if (st != ST_OK)
		return st;
	if (cpu->mode != MODE_REAL && cpu->cpl != 0)
		return cpu_raise_err(cpu, EXC_GP, 0);
	/* The intercept follows the #UD and privilege checks and precedes the
	 * checks of the operands' values (SDM Vol.3 25.1.1, APM2 15.9). */
	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	uint64_t v = ((cpu->regs[R_DX] & 0xffffffffull) << 32) | (cpu->regs[R_AX] & 0xffffffffull);
	/* The bits XCR0 may hold are the model's, CPUID.(EAX=0DH,ECX=0):EDX:EAX
	 * (SDM Vol.1 13.3: "XCR0[i] can be set to 1 only if EDX:EAX[i] is 1"). */
	uint32_t leaf[4];
	cpu_model_cpuid(cpu->model, 0xd, 0, leaf);
	uint64_t supported = ((uint64_t)leaf[3] << 32 | leaf[0]) & XSTATE_SUPPORTED;
	if ((uint32_t)cpu->regs[R_CX] != 0 || !xcr0_valid(v, supported))
		return cpu_raise_err(cpu, EXC_GP, 0);
	cpu->xcr0 = v;
	return ST_OK;
}
