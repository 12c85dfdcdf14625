/* The x87 FPU (SDM Vol.1 ch. 8; Vol.2 instruction pages): control instructions
 * (FNINIT, FNCLEX, FNSTSW, FNSTCW/FLDCW, FNSTENV/FLDENV, FNSAVE/FRSTOR), loads and
 * stores (FLD/FST/FSTP m32/m64/m80/ST(i), FILD/FIST/FISTP, FLDZ/FLD1), the basic
 * arithmetic (FADD/FSUB/FSUBR/FMUL/FDIV/FDIVR with their P forms, FSQRT, FRNDINT),
 * FCHS, FABS, FXAM,
 * FXCH, FFREE, FINCSTP/FDECSTP and the compares (FCOM/FUCOM(P)(P), FCOMI/FUCOMI(P),
 * FTST), the integer-operand forms FIADD/FIMUL/FISUB(R)/FIDIV(R)/FICOM(P) and
 * FCMOVcc.
 *
 * Arithmetic is carried out by the host's own x87 unit (hvemu targets x86 hosts):
 * the operands are loaded as 80-bit values, the host runs with the guest's
 * precision and rounding control and all exceptions masked, and the host status
 * flags become the guest's. This is bit-exact for the modelled subset, denormals
 * and NaN propagation included.
 *
 * Deviations: an unmasked overflow/underflow stores the masked result instead of
 * the exponent-adjusted one (SDM Vol.1 8.5.4.2/8.5.5.2); FOP is recorded for
 * every non-control instruction (the P6 behaviour, SDM Vol.1 8.1.9.1).
 */
#include <string.h>

#include "emu/flags.h"
#include "emu/fpu.h"
#include "emu/operand.h"
#include "isa_handlers.h"

#if !defined(__x86_64__) && !defined(__i386__)
#error "emu/x87.c computes with the host x87 unit: x86 hosts only"
#endif

/* ModRM.reg without REX.R: x87 encodings ignore REX.R (SDM Vol.2 2.2.1.2). */
#define MODRM_REG(in) (((in)->modrm >> 3) & 7u)

/* ---- stack ---- */

static inline unsigned top_of(const struct fpu_state *f) { return (f->fsw >> FSW_TOP_SHIFT) & 7; }
static inline void set_top(struct fpu_state *f, unsigned t)
{
	f->fsw = (uint16_t)((f->fsw & ~FSW_TOP_MASK) | ((t & 7) << FSW_TOP_SHIFT));
}
static inline unsigned phys(const struct fpu_state *f, unsigned i) { return (top_of(f) + i) & 7; }
static inline unsigned tag_get(const struct fpu_state *f, unsigned p) { return (f->ftw >> (2 * p)) & 3; }
static inline void tag_set(struct fpu_state *f, unsigned p, unsigned tag)
{
	f->ftw = (uint16_t)((f->ftw & ~(3u << (2 * p))) | (tag << (2 * p)));
}
static inline bool st_empty(const struct fpu_state *f, unsigned i) { return tag_get(f, phys(f, i)) == TAG_EMPTY; }
static inline struct fpu_reg *st_reg(struct fpu_state *f, unsigned i) { return &f->r[phys(f, i)]; }

/* Write ST(i) and retag it from the value. */
static void st_write(struct fpu_state *f, unsigned i, struct fpu_reg v)
{
	unsigned p = phys(f, i);
	f->r[p] = v;
	tag_set(f, p, fpu_tag_of(&v));
}

static void fpush(struct fpu_state *f, struct fpu_reg v)
{
	set_top(f, top_of(f) - 1);
	st_write(f, 0, v);
}

static void fpop(struct fpu_state *f)
{
	tag_set(f, phys(f, 0), TAG_EMPTY);
	set_top(f, top_of(f) + 1);
}

/* The QNaN floating-point indefinite (SDM Vol.1 4.8.3.7, Table 4-3). */
static const struct fpu_reg indefinite = { .mant = 0xc000000000000000ull, .sexp = 0xffff };

/* Record exception flags; set ES and B if any is unmasked (SDM Vol.1 8.1.3.1).
 * Returns true when an unmasked exception stops the result from being stored:
 * invalid operation, denormal operand and divide-by-zero are pre-computation
 * exceptions (SDM Vol.1 8.5: "the destination operand is not changed"). */
static bool raise_flags(struct fpu_state *f, unsigned exc)
{
	f->fsw |= (uint16_t)exc;
	unsigned unmasked = exc & ~f->fcw & FSW_EXC;
	if (unmasked)
		f->fsw |= FSW_ES | FSW_B;
	return (unmasked & (FSW_IE | FSW_DE | FSW_ZE)) != 0;
}

/* Stack underflow (reading an empty register) and overflow (pushing onto a full
 * one): IE with SF, C1 = 0 / 1 (SDM Vol.1 8.5.1.1). Returns true when masked: the
 * caller then uses the indefinite as the result. */
static bool stack_fault(struct fpu_state *f, bool overflow)
{
	f->fsw = (uint16_t)((f->fsw & ~FSW_C1) | FSW_SF | (overflow ? FSW_C1 : 0));
	return !raise_flags(f, FSW_IE);
}

/* ---- the host x87 unit ---- */

enum host_op {
	H_ADD, H_MUL, H_SUB, H_SUBR, H_DIV, H_DIVR,   /* r = a op b */
	H_COM, H_UCOM,                                /* compare a with b: C3 C2 C0 */
	H_LD32, H_LD64, H_ILD16, H_ILD32, H_ILD64,    /* r = load of *mem */
	H_ST32, H_ST64, H_IST16, H_IST32, H_IST64,    /* *mem = a */
	H_SQRT, H_RNDINT,                             /* r = f(a) */
};

/* Run one operation on the host FPU with the guest's PC and RC, exceptions
 * masked. Returns the host FSW bits the guest sees: exception flags, C0-C3. */
static unsigned host_run(uint16_t fcw, enum host_op op, const struct fpu_reg *a,
			 const struct fpu_reg *b, struct fpu_reg *r, void *mem)
{
	uint8_t ta[16] = { 0 }, tb[16] = { 0 }, tr[16] = { 0 };
	uint16_t saved, sw, cw = (uint16_t)((fcw & 0x0f00) | 0x003f | 0x0040);
	if (a) { memcpy(ta, &a->mant, 8); memcpy(ta + 8, &a->sexp, 2); }
	if (b) { memcpy(tb, &b->mant, 8); memcpy(tb + 8, &b->sexp, 2); }

	__asm__ volatile("fnstcw %0\n\tfnclex\n\tfldcw %1" : "=m"(saved) : "m"(cw));
	switch (op) {
	case H_ADD: __asm__ volatile("fldt %2\n\tfldt %1\n\tfadd %%st(1), %%st\n\tfstpt %0\n\tfstp %%st(0)"
				     : "=m"(tr) : "m"(ta), "m"(tb)); break;
	case H_MUL: __asm__ volatile("fldt %2\n\tfldt %1\n\tfmul %%st(1), %%st\n\tfstpt %0\n\tfstp %%st(0)"
				     : "=m"(tr) : "m"(ta), "m"(tb)); break;
	case H_SUB: __asm__ volatile("fldt %2\n\tfldt %1\n\tfsub %%st(1), %%st\n\tfstpt %0\n\tfstp %%st(0)"
				     : "=m"(tr) : "m"(ta), "m"(tb)); break;
	case H_SUBR: __asm__ volatile("fldt %1\n\tfldt %2\n\tfsub %%st(1), %%st\n\tfstpt %0\n\tfstp %%st(0)"
				      : "=m"(tr) : "m"(ta), "m"(tb)); break;
	case H_DIV: __asm__ volatile("fldt %2\n\tfldt %1\n\tfdiv %%st(1), %%st\n\tfstpt %0\n\tfstp %%st(0)"
				     : "=m"(tr) : "m"(ta), "m"(tb)); break;
	case H_DIVR: __asm__ volatile("fldt %1\n\tfldt %2\n\tfdiv %%st(1), %%st\n\tfstpt %0\n\tfstp %%st(0)"
				      : "=m"(tr) : "m"(ta), "m"(tb)); break;
	case H_COM: __asm__ volatile("fldt %1\n\tfldt %0\n\tfcompp" :: "m"(ta), "m"(tb)); break;
	case H_UCOM: __asm__ volatile("fldt %1\n\tfldt %0\n\tfucompp" :: "m"(ta), "m"(tb)); break;
	case H_LD32: __asm__ volatile("flds %1\n\tfstpt %0" : "=m"(tr) : "m"(*(const uint32_t *)mem)); break;
	case H_LD64: __asm__ volatile("fldl %1\n\tfstpt %0" : "=m"(tr) : "m"(*(const uint64_t *)mem)); break;
	case H_ILD16: __asm__ volatile("filds %1\n\tfstpt %0" : "=m"(tr) : "m"(*(const uint16_t *)mem)); break;
	case H_ILD32: __asm__ volatile("fildl %1\n\tfstpt %0" : "=m"(tr) : "m"(*(const uint32_t *)mem)); break;
	case H_ILD64: __asm__ volatile("fildll %1\n\tfstpt %0" : "=m"(tr) : "m"(*(const uint64_t *)mem)); break;
	case H_ST32: __asm__ volatile("fldt %1\n\tfstps %0" : "=m"(*(uint32_t *)mem) : "m"(ta)); break;
	case H_ST64: __asm__ volatile("fldt %1\n\tfstpl %0" : "=m"(*(uint64_t *)mem) : "m"(ta)); break;
	case H_IST16: __asm__ volatile("fldt %1\n\tfistps %0" : "=m"(*(uint16_t *)mem) : "m"(ta)); break;
	case H_IST32: __asm__ volatile("fldt %1\n\tfistpl %0" : "=m"(*(uint32_t *)mem) : "m"(ta)); break;
	case H_IST64: __asm__ volatile("fldt %1\n\tfistpll %0" : "=m"(*(uint64_t *)mem) : "m"(ta)); break;
	case H_SQRT: __asm__ volatile("fldt %1\n\tfsqrt\n\tfstpt %0" : "=m"(tr) : "m"(ta)); break;
	case H_RNDINT: __asm__ volatile("fldt %1\n\tfrndint\n\tfstpt %0" : "=m"(tr) : "m"(ta)); break;
	}
	__asm__ volatile("fnstsw %0\n\tfnclex\n\tfldcw %1" : "=m"(sw) : "m"(saved));
	if (r) {
		memcpy(&r->mant, tr, 8);
		memcpy(&r->sexp, tr + 8, 2);
	}
	return sw & (FSW_EXC | FSW_C0 | FSW_C1 | FSW_C2 | FSW_C3);
}

/* Condition codes from a host run into FSW (C0-C3 replaced by those in mask). */
static void set_cc(struct fpu_state *f, unsigned sw, unsigned mask)
{
	f->fsw = (uint16_t)((f->fsw & ~mask) | (sw & mask));
}

/* ---- bookkeeping ---- */

void x87_note_insn(struct cpu *cpu, const struct insn *in)
{
	struct fpu_state *f = &cpu->fpu;
	/* SDM Vol.1 8.1.8: FIP/FCS = the instruction (prefixes included), FDP/FDS =
	 * its memory operand; 8.1.9 Figure 8-10: FOP = low 3 bits of the first opcode
	 * byte, then the ModR/M byte. */
	f->fip = cpu->insn_start;
	f->fcs = cpu->seg[SR_CS].selector;
	f->fop = (uint16_t)(((in->opcode & 7u) << 8) | in->modrm);
	if (in->mem) {
		f->fdp = insn_ea(cpu, in);
		f->fds = cpu->seg[in->seg].selector;
	}
}

/* Gate + pointer update for a waiting, non-control instruction. */
static status_t begin(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, true);
	if (st == ST_OK)
		x87_note_insn(cpu, in);
	return st;
}

/* Load a memory floating-point or integer operand as an 80-bit value. kind:
 * 0 m32fp, 1 m64fp, 2 m80fp, 3 m16int, 4 m32int, 5 m64int. *exc gets the flags. */
static status_t load_mem(struct cpu *cpu, const struct insn *in, unsigned kind, struct fpu_reg *out,
			 unsigned *exc)
{
	static const uint8_t size[] = { 4, 8, 10, 2, 4, 8 };
	static const enum host_op ops[] = { H_LD32, H_LD64, H_LD32, H_ILD16, H_ILD32, H_ILD64 };
	uint8_t buf[10] = { 0 };
	status_t st = fpu_mem_read(cpu, in, insn_ea(cpu, in), buf, size[kind], 0);
	if (st != ST_OK)
		return st;
	*exc = 0;
	if (kind == 2) {
		memcpy(&out->mant, buf, 8);   /* m80: no conversion, no exception */
		memcpy(&out->sexp, buf + 8, 2);
		return ST_OK;
	}
	*exc = host_run(cpu->fpu.fcw, ops[kind], NULL, NULL, out, buf) & FSW_EXC;
	return ST_OK;
}

/* Memory operand kind of the arithmetic and compare groups: D8 m32fp, DC m64fp,
 * DA m32int, DE m16int (SDM Vol.2 FADD/FIADD, FCOM/FICOM opcode tables). */
static unsigned arith_mem_kind(const struct insn *in)
{
	switch (in->opcode) {
	case 0xdc: return 1;
	case 0xda: return 4;
	case 0xde: return 3;
	default:   return 0;
	}
}

/* ---- control instructions ---- */

/* DB E3: FNINIT; DB E2: FNCLEX. No pending-exception check (SDM Vol.1 8.6). */
status_t op_fninit(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, false);
	if (st != ST_OK)
		return st;
	if (in->modrm == 0xe3)
		fpu_init_x87(&cpu->fpu);
	else   /* SDM Vol.2 FCLEX: PE, UE, OE, ZE, DE, IE, SF, ES and B cleared */
		cpu->fpu.fsw &= (uint16_t)~(FSW_EXC | FSW_SF | FSW_ES | FSW_B);
	return ST_OK;
}

/* DF E0: FNSTSW AX; DD /7: FNSTSW m2byte. */
status_t op_fnstsw(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, false);
	if (st != ST_OK)
		return st;
	if (!in->mem) {
		reg_write(cpu, R_AX, 2, false, cpu->fpu.fsw);
		return ST_OK;
	}
	return mem_write(cpu, in->seg, insn_ea(cpu, in), 2, cpu->fpu.fsw);
}

/* D9 /7: FNSTCW m2byte; D9 /5: FLDCW m2byte (waiting). A new FCW that unmasks a
 * set flag sets ES, reported by the next waiting instruction (SDM Vol.1 8.6). */
status_t op_fnstcw(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, false);
	if (st != ST_OK)
		return st;
	return mem_write(cpu, in->seg, insn_ea(cpu, in), 2, cpu->fpu.fcw);
}

static void update_es(struct fpu_state *f)
{
	if (f->fsw & ~f->fcw & FSW_EXC)
		f->fsw |= FSW_ES | FSW_B;
	else
		f->fsw &= (uint16_t)~(FSW_ES | FSW_B);
}

status_t op_fldcw(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, true);
	if (st != ST_OK)
		return st;
	uint64_t v;
	st = mem_read(cpu, in->seg, insn_ea(cpu, in), 2, &v);
	if (st != ST_OK)
		return st;
	/* Bit 6 reads as 1 on P6 and later; bits 15:13 and 7 are reserved, kept 0. */
	cpu->fpu.fcw = (uint16_t)((v & 0x1f3f) | 0x0040);
	update_es(&cpu->fpu);
	return ST_OK;
}

/* The FSTENV/FLDENV environment (SDM Vol.1 8.1.10, Figures 8-9 to 8-12). Real
 * mode and virtual-8086 mode keep the instruction and operand pointers as 20-bit
 * linear addresses with the opcode; protected mode as offset and selector. */
static unsigned env_size(const struct insn *in) { return in->osize == 2 ? FPU_ENV16_SIZE : FPU_ENV32_SIZE; }

static void env_store(const struct cpu *cpu, const struct insn *in, uint8_t *out)
{
	const struct fpu_state *f = &cpu->fpu;
	bool pm = cpu->mode != MODE_REAL && cpu->mode != MODE_V86;
	unsigned w = in->osize == 2 ? 2 : 4;   /* slot width */
	uint32_t slot[7];
	slot[0] = f->fcw | (w == 4 ? 0xffff0000u : 0);
	slot[1] = f->fsw | (w == 4 ? 0xffff0000u : 0);
	slot[2] = f->ftw | (w == 4 ? 0xffff0000u : 0);
	if (pm) {
		slot[3] = (uint32_t)f->fip;
		slot[4] = f->fcs | ((uint32_t)(f->fop & 0x7ff) << 16);
		slot[5] = (uint32_t)f->fdp;
		slot[6] = f->fds | (w == 4 ? 0xffff0000u : 0);
		if (w == 2)
			slot[4] = f->fcs;   /* 16-bit PM format has no opcode */
	} else {
		/* Real-mode format: linear pointers (CS/DS * 16 + offset). */
		uint32_t ip = (uint32_t)((f->fcs << 4) + (uint32_t)f->fip);
		uint32_t dp = (uint32_t)((f->fds << 4) + (uint32_t)f->fdp);
		if (w == 2) {
			slot[3] = ip & 0xffff;
			slot[4] = ((ip >> 4) & 0xf000) | (f->fop & 0x7ff);
			slot[5] = dp & 0xffff;
			slot[6] = (dp >> 4) & 0xf000;
		} else {
			slot[3] = (ip & 0xffff) | 0xffff0000u;
			slot[4] = ((ip & 0xffff0000u) >> 4) | (f->fop & 0x7ff);
			slot[5] = (dp & 0xffff) | 0xffff0000u;
			slot[6] = (dp & 0xffff0000u) >> 4;
		}
	}
	for (unsigned i = 0; i < 7; i++)
		memcpy(out + i * w, &slot[i], w);
}

static void env_load(struct cpu *cpu, const struct insn *in, const uint8_t *buf)
{
	struct fpu_state *f = &cpu->fpu;
	bool pm = cpu->mode != MODE_REAL && cpu->mode != MODE_V86;
	unsigned w = in->osize == 2 ? 2 : 4;
	uint32_t slot[7] = { 0 };
	for (unsigned i = 0; i < 7; i++)
		memcpy(&slot[i], buf + i * w, w);
	f->fcw = (uint16_t)((slot[0] & 0x1f3f) | 0x0040);
	f->fsw = (uint16_t)slot[1];
	f->ftw = (uint16_t)slot[2];
	if (pm) {
		f->fip = slot[3];
		f->fcs = (uint16_t)slot[4];
		f->fop = w == 4 ? (uint16_t)((slot[4] >> 16) & 0x7ff) : 0;
		f->fdp = slot[5];
		f->fds = (uint16_t)slot[6];
	} else {
		uint32_t ip, dp;
		if (w == 2) {
			ip = (slot[3] & 0xffff) | ((slot[4] & 0xf000) << 4);
			dp = (slot[5] & 0xffff) | ((slot[6] & 0xf000) << 4);
		} else {
			ip = (slot[3] & 0xffff) | ((slot[4] & 0x0ffff000) << 4);
			dp = (slot[5] & 0xffff) | ((slot[6] & 0x0ffff000) << 4);
		}
		f->fop = (uint16_t)(slot[4] & 0x7ff);
		f->fip = ip;
		f->fdp = dp;
		f->fcs = f->fds = 0;
	}
	update_es(f);
}

/* D9 /6: FNSTENV; DD /6: FNSAVE (environment + ST(0)..ST(7), then FNINIT). After
 * FNSTENV all exceptions are masked (SDM Vol.2 FSTENV: "masks all floating-point
 * exceptions"). */
status_t op_fnstenv(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, false);
	if (st != ST_OK)
		return st;
	uint8_t buf[FPU_ENV32_SIZE + FPU_SAVE_REGS_SIZE];
	unsigned n = env_size(in);
	bool save = in->opcode == 0xdd;
	env_store(cpu, in, buf);
	if (save)
		for (unsigned i = 0; i < 8; i++) {
			const struct fpu_reg *r = st_reg(&cpu->fpu, i);
			memcpy(buf + n + 10 * i, &r->mant, 8);
			memcpy(buf + n + 10 * i + 8, &r->sexp, 2);
		}
	st = fpu_mem_write(cpu, in, insn_ea(cpu, in), buf, n + (save ? FPU_SAVE_REGS_SIZE : 0), 0);
	if (st != ST_OK)
		return st;
	if (save)
		fpu_init_x87(&cpu->fpu);   /* SDM Vol.2 FSAVE: "Initialize FPU" */
	else
		cpu->fpu.fcw |= FCW_EXC_MASKS;
	return ST_OK;
}

/* D9 /4: FLDENV; DD /4: FRSTOR. */
status_t op_fldenv(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, true);
	if (st != ST_OK)
		return st;
	uint8_t buf[FPU_ENV32_SIZE + FPU_SAVE_REGS_SIZE];
	unsigned n = env_size(in);
	bool rstor = in->opcode == 0xdd;
	st = fpu_mem_read(cpu, in, insn_ea(cpu, in), buf, n + (rstor ? FPU_SAVE_REGS_SIZE : 0), 0);
	if (st != ST_OK)
		return st;
	env_load(cpu, in, buf);
	if (rstor)
		for (unsigned i = 0; i < 8; i++) {
			struct fpu_reg *r = st_reg(&cpu->fpu, i);
			memcpy(&r->mant, buf + n + 10 * i, 8);
			memcpy(&r->sexp, buf + n + 10 * i + 8, 2);
		}
	return ST_OK;
}

/* ---- loads and stores ---- */

/* Push v, or the indefinite on a masked stack overflow (SDM Vol.1 8.5.1.1). */
static void push_checked(struct fpu_state *f, struct fpu_reg v, unsigned exc)
{
	f->fsw &= (uint16_t)~FSW_C1;
	if (!st_empty(f, 7)) {
		if (stack_fault(f, true))
			fpush(f, indefinite);
		return;
	}
	if (!raise_flags(f, exc))
		fpush(f, v);
}

/* D9 /0 m32fp, DD /0 m64fp, DB /5 m80fp: FLD; DF /0 m16int, DB /0 m32int,
 * DF /5 m64int: FILD. D9 C0+i: FLD ST(i). */
status_t op_fld(struct cpu *cpu, const struct insn *in)
{
	status_t st = begin(cpu, in);
	if (st != ST_OK)
		return st;
	struct fpu_state *f = &cpu->fpu;
	struct fpu_reg v;
	unsigned exc = 0;
	if (!in->mem) {
		unsigned i = in->modrm & 7;
		if (st_empty(f, i)) {
			if (stack_fault(f, false))
				push_checked(f, indefinite, 0);
			return ST_OK;
		}
		push_checked(f, *st_reg(f, i), 0);
		return ST_OK;
	}
	unsigned kind;
	switch (in->opcode) {
	case 0xd9: kind = 0; break;
	case 0xdd: kind = 1; break;
	case 0xdb: kind = MODRM_REG(in) == 5 ? 2 : 4; break;
	default:   kind = MODRM_REG(in) == 5 ? 5 : 3; break;   /* DF */
	}
	st = load_mem(cpu, in, kind, &v, &exc);
	if (st != ST_OK)
		return st;
	push_checked(f, v, exc);
	return ST_OK;
}

/* D9 E8: FLD1; D9 EE: FLDZ (SDM Vol.2 FLD1/FLDL2T/.../FLDZ). */
status_t op_fldconst(struct cpu *cpu, const struct insn *in)
{
	status_t st = begin(cpu, in);
	if (st != ST_OK)
		return st;
	struct fpu_reg v = in->modrm == 0xe8 ? (struct fpu_reg){ 0x8000000000000000ull, 0x3fff }
					     : (struct fpu_reg){ 0, 0 };
	push_checked(&cpu->fpu, v, 0);
	return ST_OK;
}

/* D9 /2,/3 m32fp; DD /2,/3 m64fp; DB /7 m80fp: FST/FSTP. DF /2,/3 m16int,
 * DB /2,/3 m32int, DF /7 m64int: FIST/FISTP. DD D0+i / D8+i: FST/FSTP ST(i). */
status_t op_fst(struct cpu *cpu, const struct insn *in)
{
	status_t st = begin(cpu, in);
	if (st != ST_OK)
		return st;
	struct fpu_state *f = &cpu->fpu;
	bool do_pop = MODRM_REG(in) == 3 || MODRM_REG(in) == 7;
	f->fsw &= (uint16_t)~FSW_C1;
	bool underflow = st_empty(f, 0);
	if (underflow && !stack_fault(f, false))
		return ST_OK;   /* unmasked: nothing stored, nothing popped */
	struct fpu_reg v = underflow ? indefinite : *st_reg(f, 0);

	if (!in->mem) {
		st_write(f, in->modrm & 7, v);
		if (do_pop)
			fpop(f);
		return ST_OK;
	}
	uint8_t buf[10] = { 0 };
	unsigned n;
	enum host_op op;
	switch (in->opcode) {
	case 0xd9: op = H_ST32; n = 4; break;
	case 0xdd: op = H_ST64; n = 8; break;
	case 0xdb: op = MODRM_REG(in) == 7 ? H_ST32 /* m80 */ : H_IST32; n = MODRM_REG(in) == 7 ? 10 : 4; break;
	default:   op = MODRM_REG(in) == 7 ? H_IST64 : H_IST16; n = MODRM_REG(in) == 7 ? 8 : 2; break;   /* DF */
	}
	unsigned sw = 0;
	if (n == 10) {
		memcpy(buf, &v.mant, 8);
		memcpy(buf + 8, &v.sexp, 2);
	} else {
		sw = host_run(f->fcw, op, &v, NULL, NULL, buf);
	}
	/* Probe first: a memory fault leaves the FPU unchanged. */
	st = fpu_mem_probe(cpu, in, insn_ea(cpu, in), n, 0);
	if (st != ST_OK)
		return st;
	if (raise_flags(f, sw & FSW_EXC))
		return ST_OK;   /* unmasked invalid: no store */
	set_cc(f, sw, FSW_C1);
	st = fpu_mem_store(cpu, in, insn_ea(cpu, in), buf, n);
	if (st == ST_OK && do_pop)
		fpop(f);
	return st;
}

/* ---- arithmetic ---- */

/* Host operation for an ModRM.reg of the D8/DC/DE arithmetic groups: /0 FADD,
 * /1 FMUL, /4 FSUB, /5 FSUBR, /6 FDIV, /7 FDIVR (dest op src). */
static const enum host_op arith_ops[8] = { H_ADD, H_MUL, H_ADD, H_ADD, H_SUB, H_SUBR, H_DIV, H_DIVR };

/* dest := dest op src, both ST-relative indices (src may be a memory value). */
static void arith(struct fpu_state *f, unsigned dest, const struct fpu_reg *src, unsigned src_exc,
		  enum host_op op)
{
	f->fsw &= (uint16_t)~FSW_C1;
	if (raise_flags(f, src_exc))
		return;
	struct fpu_reg r;
	unsigned sw = host_run(f->fcw, op, st_reg(f, dest), src, &r, NULL);
	if (raise_flags(f, sw & FSW_EXC))
		return;
	set_cc(f, sw, FSW_C1);
	st_write(f, dest, r);
}

/* D8 /r and DC /r (memory: m32fp / m64fp with ST(0)); D8 reg: ST(0) op ST(i);
 * DC reg: ST(i) op ST(0) with SUB/SUBR and DIV/DIVR swapped in the encoding;
 * DE reg: as DC, then pop. /2,/3 are the compares (op_fcom). */
status_t op_farith(struct cpu *cpu, const struct insn *in)
{
	status_t st = begin(cpu, in);
	if (st != ST_OK)
		return st;
	struct fpu_state *f = &cpu->fpu;
	unsigned n = MODRM_REG(in) & 7;
	if (in->mem) {
		struct fpu_reg v;
		unsigned exc = 0;
		st = load_mem(cpu, in, arith_mem_kind(in), &v, &exc);
		if (st != ST_OK)
			return st;
		if (st_empty(f, 0)) {
			if (stack_fault(f, false))
				st_write(f, 0, indefinite);
			return ST_OK;
		}
		arith(f, 0, &v, exc, arith_ops[n]);
		return ST_OK;
	}
	unsigned i = in->modrm & 7;
	bool to_sti = in->opcode != 0xd8;
	if (st_empty(f, 0) || st_empty(f, i)) {
		if (stack_fault(f, false)) {
			st_write(f, to_sti ? i : 0, indefinite);
			if (in->opcode == 0xde)
				fpop(f);
		}
		return ST_OK;
	}
	struct fpu_reg src = *st_reg(f, to_sti ? 0 : i);
	/* SDM Vol.2 FSUB/FSUBR/FDIV/FDIVR opcode tables: DC E0+i is FSUBR ST(i),ST(0),
	 * DC E8+i FSUB ST(i),ST(0) (and DIV likewise): reg 4<->5, 6<->7. */
	unsigned k = to_sti && n >= 4 ? n ^ 1 : n;
	unsigned before = f->fsw;
	arith(f, to_sti ? i : 0, &src, 0, arith_ops[k]);
	/* A P form pops unless an unmasked exception stopped the instruction. */
	bool stopped = (f->fsw & ~before & ~f->fcw & (FSW_IE | FSW_DE | FSW_ZE)) != 0;
	if (in->opcode == 0xde && !stopped)
		fpop(f);
	return ST_OK;
}

/* D9 E0: FCHS; D9 E1: FABS. Only the sign changes; C1 := 0; empty ST(0) is a
 * stack underflow (SDM Vol.2 FCHS/FABS). */
status_t op_fsign(struct cpu *cpu, const struct insn *in)
{
	status_t st = begin(cpu, in);
	if (st != ST_OK)
		return st;
	struct fpu_state *f = &cpu->fpu;
	f->fsw &= (uint16_t)~FSW_C1;
	if (st_empty(f, 0)) {
		if (stack_fault(f, false))
			st_write(f, 0, indefinite);
		return ST_OK;
	}
	struct fpu_reg *r = st_reg(f, 0);
	if (in->modrm == 0xe0)
		r->sexp ^= 0x8000;
	else
		r->sexp &= 0x7fff;
	return ST_OK;
}

/* D9 FA: FSQRT; D9 FC: FRNDINT (rounding per FCW.RC): ST(0) := f(ST(0)). */
status_t op_funary(struct cpu *cpu, const struct insn *in)
{
	status_t st = begin(cpu, in);
	if (st != ST_OK)
		return st;
	struct fpu_state *f = &cpu->fpu;
	f->fsw &= (uint16_t)~FSW_C1;
	if (st_empty(f, 0)) {
		if (stack_fault(f, false))
			st_write(f, 0, indefinite);
		return ST_OK;
	}
	struct fpu_reg r;
	unsigned sw = host_run(f->fcw, in->modrm == 0xfa ? H_SQRT : H_RNDINT, st_reg(f, 0), NULL, &r, NULL);
	if (raise_flags(f, sw & FSW_EXC))
		return ST_OK;
	set_cc(f, sw, FSW_C1);
	st_write(f, 0, r);
	return ST_OK;
}

/* D9 E5: FXAM. C1 = sign; C3 C2 C0 = class (SDM Vol.2 FXAM table): unsupported
 * 000, NaN 001, normal 010, infinity 011, zero 100, empty 101, denormal 110. */
status_t op_fxam(struct cpu *cpu, const struct insn *in)
{
	status_t st = begin(cpu, in);
	if (st != ST_OK)
		return st;
	struct fpu_state *f = &cpu->fpu;
	const struct fpu_reg *r = st_reg(f, 0);
	unsigned exp = r->sexp & 0x7fff, cls;
	bool j = r->mant >> 63;
	uint64_t frac = r->mant << 1;
	if (st_empty(f, 0))
		cls = FSW_C3 | FSW_C0;
	else if (exp == 0)
		cls = r->mant == 0 ? FSW_C3 : FSW_C3 | FSW_C2;
	else if (!j)
		cls = 0;                                   /* unnormal, pseudo-NaN/infinity */
	else if (exp == 0x7fff)
		cls = frac == 0 ? FSW_C2 | FSW_C0 : FSW_C0;
	else
		cls = FSW_C2;
	set_cc(f, cls | ((r->sexp >> 15) ? FSW_C1 : 0), FSW_C0 | FSW_C1 | FSW_C2 | FSW_C3);
	return ST_OK;
}

/* D9 C8+i: FXCH ST(i). Empty operands become the indefinite when masked
 * (SDM Vol.2 FXCH). */
status_t op_fxch(struct cpu *cpu, const struct insn *in)
{
	status_t st = begin(cpu, in);
	if (st != ST_OK)
		return st;
	struct fpu_state *f = &cpu->fpu;
	unsigned i = in->modrm & 7;
	f->fsw &= (uint16_t)~FSW_C1;
	if (st_empty(f, 0) || st_empty(f, i)) {
		if (!stack_fault(f, false))
			return ST_OK;
		if (st_empty(f, 0))
			st_write(f, 0, indefinite);
		if (st_empty(f, i))
			st_write(f, i, indefinite);
	}
	struct fpu_reg a = *st_reg(f, 0), b = *st_reg(f, i);
	st_write(f, 0, b);
	st_write(f, i, a);
	return ST_OK;
}

/* DD C0+i: FFREE ST(i); D9 F6: FDECSTP; D9 F7: FINCSTP (C1 := 0). */
status_t op_fstack(struct cpu *cpu, const struct insn *in)
{
	status_t st = begin(cpu, in);
	if (st != ST_OK)
		return st;
	struct fpu_state *f = &cpu->fpu;
	if (in->opcode == 0xdd) {
		tag_set(f, phys(f, in->modrm & 7), TAG_EMPTY);
		return ST_OK;
	}
	f->fsw &= (uint16_t)~FSW_C1;
	set_top(f, top_of(f) + (in->modrm == 0xf7 ? 1 : 7));
	return ST_OK;
}

/* D9 D0: FNOP (a waiting instruction that changes nothing but the pointers). */
status_t op_fnop(struct cpu *cpu, const struct insn *in)
{
	return begin(cpu, in);
}

/* ---- compares ---- */

/* Compare ST(0) with src; FCOM signals IE on any NaN, FUCOM only on SNaN (SDM
 * Vol.2 FCOM/FUCOM). Unordered or unmasked-IE results set C3 C2 C0 = 111. */
static bool compare(struct fpu_state *f, const struct fpu_reg *src, unsigned src_exc, bool quiet,
		    unsigned *cc)
{
	f->fsw &= (uint16_t)~FSW_C1;
	if (raise_flags(f, src_exc))
		return false;
	unsigned sw = host_run(f->fcw, quiet ? H_UCOM : H_COM, st_reg(f, 0), src, NULL, NULL);
	*cc = sw & (FSW_C0 | FSW_C2 | FSW_C3);
	return !raise_flags(f, sw & FSW_EXC);
}

/* D8 /2,/3 and DC /2,/3 (m32fp/m64fp; D8 D0+i/D8+i with ST(i)): FCOM/FCOMP;
 * DE D9: FCOMPP; DD E0+i/E8+i: FUCOM/FUCOMP; DA E9: FUCOMPP; D9 E4: FTST. */
status_t op_fcom(struct cpu *cpu, const struct insn *in)
{
	status_t st = begin(cpu, in);
	if (st != ST_OK)
		return st;
	struct fpu_state *f = &cpu->fpu;
	struct fpu_reg src = { 0, 0 };
	unsigned exc = 0, pops;
	bool quiet = !in->mem && (in->opcode == 0xdd || in->opcode == 0xda);
	if (in->mem) {
		st = load_mem(cpu, in, arith_mem_kind(in), &src, &exc);
		if (st != ST_OK)
			return st;
		pops = MODRM_REG(in) & 1;
	} else if (in->opcode == 0xd9) {          /* FTST: compare with +0.0 */
		pops = 0;
	} else {
		unsigned i = in->opcode == 0xde || in->opcode == 0xda ? 1 : in->modrm & 7;
		if (st_empty(f, i))
			goto underflow;
		src = *st_reg(f, i);
		pops = in->opcode == 0xde || in->opcode == 0xda ? 2 : MODRM_REG(in) & 1;
	}
	if (st_empty(f, 0))
		goto underflow;
	unsigned cc = 0;
	if (!compare(f, &src, exc, quiet, &cc))
		return ST_OK;
	set_cc(f, cc, FSW_C0 | FSW_C2 | FSW_C3);
	while (pops--)
		fpop(f);
	return ST_OK;
underflow:
	if (stack_fault(f, false)) {
		set_cc(f, FSW_C0 | FSW_C2 | FSW_C3, FSW_C0 | FSW_C2 | FSW_C3);
		pops = in->mem ? (MODRM_REG(in) & 1) : in->opcode == 0xde || in->opcode == 0xda ? 2 :
			in->opcode == 0xd9 ? 0 : MODRM_REG(in) & 1;
		while (pops--)
			fpop(f);
	}
	return ST_OK;
}

/* DB F0+i: FCOMI; DB E8+i: FUCOMI; DF F0+i: FCOMIP; DF E8+i: FUCOMIP. ZF, PF, CF
 * from the compare (unordered: all three 1); OF, SF, AF cleared (SDM Vol.2
 * FCOMI/FCOMIP/FUCOMI/FUCOMIP). */
status_t op_fcomi(struct cpu *cpu, const struct insn *in)
{
	status_t st = begin(cpu, in);
	if (st != ST_OK)
		return st;
	struct fpu_state *f = &cpu->fpu;
	unsigned i = in->modrm & 7, cc = FSW_C0 | FSW_C2 | FSW_C3;
	bool quiet = MODRM_REG(in) == 5, do_pop = in->opcode == 0xdf;
	if (st_empty(f, 0) || st_empty(f, i)) {
		if (!stack_fault(f, false))
			return ST_OK;
	} else {
		struct fpu_reg src = *st_reg(f, i);
		if (!compare(f, &src, 0, quiet, &cc))
			return ST_OK;
	}
	uint64_t fl = (cc & FSW_C3 ? FLAG_ZF : 0) | (cc & FSW_C2 ? FLAG_PF : 0) |
		      (cc & FSW_C0 ? FLAG_CF : 0);
	flags_update(cpu, FLAGS_ARITH, fl);
	if (do_pop)
		fpop(f);
	return ST_OK;
}

/* DA C0+i/C8+i/D0+i/D8+i: FCMOVB/E/BE/U; DB: the negated forms FCMOVNB/NE/NBE/NU.
 * ST(0) := ST(i) if the EFLAGS condition holds (SDM Vol.2 FCMOVcc). */
status_t op_fcmov(struct cpu *cpu, const struct insn *in)
{
	static const uint8_t cc[4] = { 2 /* B */, 4 /* E */, 6 /* BE */, 10 /* P */ };
	status_t st = begin(cpu, in);
	if (st != ST_OK)
		return st;
	struct fpu_state *f = &cpu->fpu;
	unsigned i = in->modrm & 7;
	f->fsw &= (uint16_t)~FSW_C1;
	if (st_empty(f, 0) || st_empty(f, i)) {
		if (stack_fault(f, false))
			st_write(f, 0, indefinite);
		return ST_OK;
	}
	if (flags_cond(cpu, cc[MODRM_REG(in) & 3] | (in->opcode == 0xdb)))
		st_write(f, 0, *st_reg(f, i));
	return ST_OK;
}

/* Escape encodings hvemu does not model yet (transcendentals, BCD, integer
 * arithmetic forms): reported, never silently ignored. */
status_t op_x87_unsupported(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, true);
	if (st != ST_OK)
		return st;
	(void)in;
	return ST_UNSUPPORTED;
}
