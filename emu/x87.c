/* The x87 FPU's computational instructions (SDM Vol.1 ch. 8; Vol.2 each page;
 * the escape opcode maps SDM Vol.2 A.5, Tables ): every encoding of
 * D8-DF that is not a control instruction (those are emu/x87_env.c). Loads and
 * stores (FLD/FST/FSTP, FILD/FIST/FISTP, FISTTP, FBLD/FBSTP), the arithmetic
 * with their integer and pop forms, compares (FCOM/FUCOM/FICOM(P)(P),
 * FCOMI/FUCOMI(P), FTST, FXAM), FCMOVcc, the constants (FLD1, FLDL2T, FLDL2E,
 * FLDPI, FLDLG2, FLDLN2, FLDZ), the transcendentals (FSIN, FCOS, FSINCOS,
 * FPTAN, FPATAN, F2XM1, FYL2X, FYL2XP1), FPREM/FPREM1, FSCALE, FXTRACT,
 * FRNDINT, FSQRT, FABS, FCHS, FXCH, FFREE, FDECSTP/FINCSTP, FNOP and the
 * aliases the processors execute although Table A-7.. lists them as reserved
 * (FSTP1, FCOM2, FCOMP3, FXCH4, FCOMP5, FFREEP, FXCH7, FSTP8, FSTP9).
 *
 * Each runs as itself on the host x87 (emu/x87_host.c), which decides results,
 * flags, stack faults and tags. This file adds what the host cannot know: the
 * gates (#NM, pending #MF, #UD by CPU model), the guest memory operand (read
 * before, or probed before and written after, so a memory fault leaves the FPU
 * unchanged), and the last-instruction pointers.
 */
#include <string.h>

#include "emu/cpu_model.h"
#include "emu/flags.h"
#include "emu/fpu.h"
#include "emu/operand.h"
#include "emu/x87_host.h"
#include "isa_handlers.h"

/* ModRM.reg without REX.R: x87 encodings ignore REX.R (SDM Vol.2 2.2.1.2). */
#define MODRM_REG(in) (((in)->modrm >> 3) & 7u)

/* The memory operand size of each escape's load and store forms (SDM Vol.2
 * Tables, ..., A-21: m32fp, m32int, m64fp, m16int, m64int, m80fp and
 * m80bcd), by escape byte and ModRM.reg; 0 where the form is a control
 * instruction or reserved. */
static const uint8_t mem_bytes[8][8] = {
	/* D8 FADD..FDIVR m32fp */ { 4, 4, 4, 4, 4, 4, 4, 4 },
	/* D9 FLD, -, FST, FSTP */ { 4, 0, 4, 4, 0, 0, 0, 0 },
	/* DA FIADD.. m32int    */ { 4, 4, 4, 4, 4, 4, 4, 4 },
	/* DB FILD FISTTP FIST FISTP m32int, FLD/FSTP m80fp */ { 4, 4, 4, 4, 0, 10, 0, 10 },
	/* DC FADD..FDIVR m64fp */ { 8, 8, 8, 8, 8, 8, 8, 8 },
	/* DD FLD FISTTP FST FSTP m64 */ { 8, 8, 8, 8, 0, 0, 0, 0 },
	/* DE FIADD.. m16int    */ { 2, 2, 2, 2, 2, 2, 2, 2 },
	/* DF FILD FISTTP FIST FISTP m16int, FBLD, FILD m64int, FBSTP, FISTP m64int */
	{ 2, 2, 2, 2, 10, 8, 10, 8 },
};

static unsigned operand_bytes(const struct insn *in) { return mem_bytes[in->opcode - 0xd8][MODRM_REG(in)]; }

/* ---- bookkeeping ---- */

void x87_note_insn(struct cpu *cpu, const struct insn *in)
{
	struct fpu_state *f = &cpu->fpu;
	/* SDM Vol.1 8.1.8: FIP/FCS = the instruction (prefixes included), FDP/FDS =
	 * its memory operand; a register form leaves FDP/FDS as they were (as the
	 * host does). 8.1.9, Figure 8-8: FOP = low 3 bits of the first opcode byte,
	 * then the ModR/M byte; recorded for every non-control instruction (the
	 * P6-family behaviour, 8.1.9.1). */
	f->fip = cpu->insn_start;
	f->fcs = cpu->seg[SR_CS].selector;
	f->fop = (uint16_t)(((in->opcode & 7u) << 8) | in->modrm);
	if (in->mem) {
		f->fdp = insn_ea(cpu, in);
		f->fds = cpu->seg[in->seg].selector;
	}
}

/* The host instruction of a guest one: the same escape and ModRM. */
static struct x87_host_insn host_insn(const struct insn *in, uint8_t *buf)
{
	struct x87_host_insn h = { .escape = in->opcode, .modrm = in->modrm, .mem = in->mem, .buf = buf };
	return h;
}

/* Run in on the host; only FCOMI/FUCOMI(P) change EFLAGS, only FCMOVcc reads it. */
static void exec(struct cpu *cpu, const struct x87_host_insn *h)
{
	uint64_t fl = 0;
	(void)x87_host_exec(&cpu->fpu, h, &fl);
}

/* ---- handlers ---- */

/* Register forms without memory or EFLAGS: arithmetic on ST(0)/ST(i), FLD/FST/
 * FSTP/FXCH ST(i), FFREE(P), the compares, the constants, the one-operand
 * group D9 E0-FF, FNOP. */
status_t op_x87_reg(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, true);
	if (st != ST_OK)
		return st;
	x87_note_insn(cpu, in);
	struct x87_host_insn h = host_insn(in, NULL);
	exec(cpu, &h);
	return ST_OK;
}

/* Forms with a memory source: FLD m32fp/m64fp/m80fp, FILD, FBLD, the D8/DA/DC/DE
 * arithmetic and FCOM/FICOM(P) groups. The operand is read first: a #PF or #GP
 * there leaves the FPU and its pointers unchanged. */
status_t op_x87_load(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, true);
	if (st != ST_OK)
		return st;
	uint8_t buf[10];
	st = fpu_mem_read(cpu, in, insn_ea(cpu, in), buf, operand_bytes(in), 0);
	if (st != ST_OK)
		return st;
	x87_note_insn(cpu, in);
	struct x87_host_insn h = host_insn(in, buf);
	exec(cpu, &h);
	return ST_OK;
}

/* Run a store form of h on the host; returns whether it wrote its operand. An
 * unmasked exception may keep the host from storing (#IA always, SDM Vol.1
 * 8.5.1.2; for FST/FIST and FBSTP also others, SDM Vol.1 8.5.4.2, 8.5.5.2): the
 * host answers it by a second run from the same state on a buffer of the
 * opposite fill; a store changes at least one of the two buffers. */
static bool store_on_host(struct fpu_state *f, struct x87_host_insn *h, unsigned n)
{
	static const uint8_t zeros[10], ones[10] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct fpu_state before = *f;
	uint64_t fl = 0;
	memset(h->buf, 0, n);
	if (!x87_host_exec(f, h, &fl))
		return true;
	uint8_t other[10];
	memset(other, 0xff, n);
	struct x87_host_insn again = *h;
	again.buf = other;
	(void)x87_host_exec(&before, &again, &fl);
	return memcmp(h->buf, zeros, n) != 0 || memcmp(other, ones, n) != 0;
}

/* Store forms, given the host instruction: probe the destination first (a
 * fault leaves the FPU unchanged), run, write what the host stored. */
static status_t store(struct cpu *cpu, const struct insn *in, struct x87_host_insn *h)
{
	unsigned n = operand_bytes(in);
	uint64_t ea = insn_ea(cpu, in);
	status_t st = fpu_mem_probe(cpu, in, ea, n, 0);
	if (st != ST_OK)
		return st;
	x87_note_insn(cpu, in);
	if (!store_on_host(&cpu->fpu, h, n))
		return ST_OK;
	return fpu_mem_store(cpu, in, ea, h->buf, n);
}

/* FST/FSTP m32fp/m64fp/m80fp, FIST/FISTP m16int/m32int/m64int, FBSTP m80bcd. */
status_t op_x87_store(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, true);
	if (st != ST_OK)
		return st;
	uint8_t buf[10];
	struct x87_host_insn h = host_insn(in, buf);
	return store(cpu, in, &h);
}

/* DF /1 m16int, DB /1 m32int, DD /1 m64int: FISTTP (SSE3), #UD unless the model
 * reports SSE3 in CPUID.01H:ECX[0] (SDM Vol.2 FISTTP). It is FISTP with the
 * rounding control chop (RC = 11B) whatever FCW.RC says, so the host runs the
 * FISTP of the same width under RC = 11B (no SSE3 needed on the host; the
 * host-differential test compares the two). */
status_t op_fisttp(struct cpu *cpu, const struct insn *in)
{
	if (!cpu_model_has(cpu->model, 1, 2, 0))
		return cpu_raise(cpu, EXC_UD);
	status_t st = x87_gate(cpu, true);
	if (st != ST_OK)
		return st;
	uint8_t buf[10];
	struct x87_host_insn h = host_insn(in, buf);
	switch (in->opcode) {
	case 0xdb: h.modrm = 3 << 3; break;                    /* FISTP m32int */
	case 0xdd: h.escape = 0xdf; h.modrm = 7 << 3; break;   /* FISTP m64int */
	default:   h.modrm = 3 << 3; break;                    /* DF: FISTP m16int */
	}
	h.fcw_or = 3u << FCW_RC_SHIFT;
	return store(cpu, in, &h);
}

/* DA/DB C0-DF: FCMOVcc, DB/DF E8-F7: FCOMI, FUCOMI, FCOMIP, FUCOMIP: introduced
 * with CMOV; #UD unless CPUID.01H:EDX.CMOV[15] (SDM Vol.2 FCMOVcc, FCOMI "This
 * instruction is supported ... if CPUID CMOV and FPU feature bits are set").
 * FCMOVcc tests CF/ZF/PF; FCOMI sets ZF PF CF and clears OF SF AF. */
status_t op_x87_eflags(struct cpu *cpu, const struct insn *in)
{
	if (!cpu_model_has(cpu->model, 1, 3, 15))
		return cpu_raise(cpu, EXC_UD);
	status_t st = x87_gate(cpu, true);
	if (st != ST_OK)
		return st;
	x87_note_insn(cpu, in);
	struct x87_host_insn h = host_insn(in, NULL);
	uint64_t fl = cpu_get_flags(cpu) & FLAGS_ARITH;
	(void)x87_host_exec(&cpu->fpu, &h, &fl);
	flags_update(cpu, FLAGS_ARITH, fl);
	return ST_OK;
}

/* The reserved encodings of D8-DF (SDM Vol.2 A.5, blank cells of Tables A-7 to
 * A-22): #UD, which the host raises too, even with an exception pending. With
 * CR0.EM or TS set they are escape instructions like the others and raise #NM
 * first (SDM Vol.3 2.5 "EM"; which of the two the hardware raises first is
 * not documented: hvemu lets an OS's x87 emulator see every escape opcode). */
status_t op_x87_reserved(struct cpu *cpu, const struct insn *in)
{
	(void)in;
	status_t st = x87_gate(cpu, false);
	if (st != ST_OK)
		return st;
	return cpu_raise(cpu, EXC_UD);
}
