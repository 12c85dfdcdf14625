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
#include "emu/quirks.h"
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

/* The stack shape of an encoding for the host's fast path (emu/x87_host.h):
 * the registers read, pushes and pops when nothing goes wrong (SDM Vol.2,
 * each instruction's operation), and whether C1 keeps its value (FCMOVcc and
 * FCOMI/FUCOMI(P) leave it alone when nothing faults, as the host does).
 * Everything not listed takes the exact path: FFREE(P), FINCSTP/FDECSTP, the
 * BCD forms, FISTTP, the aliases, and the P forms on ST(0), whose result goes
 * to the register they pop. */
struct shape { int8_t reads; uint8_t pushes, pops; bool keeps_c1; };
static const struct shape exact_only = { X87_EXACT, 0, 0, false };

/* D9 E0..FF (SDM Vol.2 Table A-10). */
static const struct shape d9_group[32] = {
	{ 0, 0, 0, false }, { 0, 0, 0, false },                 /* E0 FCHS, E1 FABS */
	{ X87_EXACT, 0, 0, false }, { X87_EXACT, 0, 0, false },
	{ 0, 0, 0, false }, { 0, 0, 0, false },                 /* E4 FTST, E5 FXAM (of an empty ST(0): exact) */
	{ X87_EXACT, 0, 0, false }, { X87_EXACT, 0, 0, false },
	{ -1, 1, 0, false }, { -1, 1, 0, false }, { -1, 1, 0, false }, { -1, 1, 0, false },   /* E8-EE the constants */
	{ -1, 1, 0, false }, { -1, 1, 0, false }, { -1, 1, 0, false },
	{ X87_EXACT, 0, 0, false },
	{ 0, 0, 0, false },                              /* F0 F2XM1 */
	{ 1, 0, 1, false },                              /* F1 FYL2X */
	{ 0, 1, 0, false },                              /* F2 FPTAN */
	{ 1, 0, 1, false },                              /* F3 FPATAN */
	{ 0, 1, 0, false },                              /* F4 FXTRACT */
	{ 1, 0, 0, false },                              /* F5 FPREM1 */
	{ X87_EXACT, 0, 0, false }, { X87_EXACT, 0, 0, false }, /* F6 FDECSTP, F7 FINCSTP */
	{ 1, 0, 0, false },                              /* F8 FPREM */
	{ 1, 0, 1, false },                              /* F9 FYL2XP1 */
	{ 0, 0, 0, false },                              /* FA FSQRT */
	{ 0, 1, 0, false },                              /* FB FSINCOS */
	{ 0, 0, 0, false },                              /* FC FRNDINT */
	{ 1, 0, 0, false },                              /* FD FSCALE */
	{ 0, 0, 0, false }, { 0, 0, 0, false },                 /* FE FSIN, FF FCOS */
};

static struct shape mem_shape(const struct insn *in)
{
	unsigned reg = MODRM_REG(in);
	switch (in->opcode) {
	case 0xd8: case 0xda: case 0xdc: case 0xde:          /* arithmetic, FCOM(P), FICOM(P) */
		return (struct shape){ 0, 0, reg == 3, false };
	case 0xd9: case 0xdd:                                /* FLD; FST, FSTP */
		if (reg == 0)
			return (struct shape){ -1, 1, 0, false };
		return reg == 2 || reg == 3 ? (struct shape){ 0, 0, reg == 3, false } : exact_only;
	default:                                             /* DB, DF: FILD, FIST(P), FLD/FSTP m80fp */
		if (reg == 0 || reg == 5)
			return (struct shape){ -1, 1, 0, false };
		return reg == 2 || reg == 3 || reg == 7 ? (struct shape){ 0, 0, reg != 2, false } : exact_only;
	}
}

static struct shape reg_shape(const struct insn *in)
{
	unsigned i = in->modrm & 7, reg = MODRM_REG(in);
	switch (in->opcode) {
	case 0xd8:                                           /* ST(0) op ST(i), FCOM(P) ST(i) */
		return (struct shape){ (int8_t)i, 0, reg == 3, false };
	case 0xdc:                                           /* ST(i) op ST(0) */
		return reg == 2 || reg == 3 ? exact_only : (struct shape){ (int8_t)i, 0, 0, false };
	case 0xde:                                           /* the P forms, FCOMPP */
		if (reg == 3)
			return (struct shape){ 1, 0, 2, false };
		return reg == 2 || i == 0 ? exact_only : (struct shape){ (int8_t)i, 0, 1, false };
	case 0xd9:
		if (reg <= 1)                                    /* FLD ST(i), FXCH */
			return (struct shape){ (int8_t)i, reg == 0, 0, false };
		if (in->modrm == 0xd0)                           /* FNOP */
			return (struct shape){ -1, 0, 0, false };
		return in->modrm >= 0xe0 ? d9_group[in->modrm - 0xe0] : exact_only;
	case 0xdd:                                           /* FST(P) ST(i), FUCOM(P) */
		return reg >= 2 && reg <= 5 ? (struct shape){ (int8_t)i, 0, reg & 1, false } : exact_only;
	case 0xda:                                           /* FCMOVcc; FUCOMPP */
		return reg == 5 ? (struct shape){ 1, 0, 2, false } : (struct shape){ (int8_t)i, 0, 0, true };
	case 0xdb:                                           /* FCMOVNcc, FUCOMI, FCOMI */
		return (struct shape){ (int8_t)i, 0, 0, true };
	default:                                             /* DF: FUCOMIP, FCOMIP */
		return reg == 5 || reg == 6 ? (struct shape){ (int8_t)i, 0, 1, true } : exact_only;
	}
}

/* The host instruction of a guest one: the same escape and ModRM. */
static struct x87_host_insn host_insn(const struct insn *in, uint8_t *buf)
{
	struct shape sh = in->mem ? mem_shape(in) : reg_shape(in);
	struct x87_host_insn h = { .escape = in->opcode, .modrm = in->modrm, .mem = in->mem, .buf = buf,
				   .reads = sh.reads, .pushes = sh.pushes, .pops = sh.pops, .keeps_c1 = sh.keeps_c1 };
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

/* FPREM1 (SDM Vol.2: C0, C3, C1 = quotient bits 2, 1, 0), or without the
 * quotient under the quirk qemu-fprem1-no-quotient (emu/quirks.def). */
status_t op_x87_fprem1(struct cpu *cpu, const struct insn *in)
{
	status_t st = op_x87_reg(cpu, in);
	if (st == ST_OK && cpu_quirk(cpu, QK_QEMU_FPREM1_NO_QUOTIENT))
		cpu->fpu.fsw &= (uint16_t)~(FSW_C0 | FSW_C1 | FSW_C3);
	return st;
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

/* Store forms, given the host instruction: probe the destination first (a
 * fault leaves the FPU unchanged), run, write what the host stored (nothing
 * when an unmasked exception stopped the store). */
static status_t store(struct cpu *cpu, const struct insn *in, struct x87_host_insn *h)
{
	unsigned n = operand_bytes(in);
	uint64_t ea = insn_ea(cpu, in);
	status_t st = fpu_mem_probe(cpu, in, ea, n, 0);
	if (st != ST_OK)
		return st;
	x87_note_insn(cpu, in);
	if (!x87_host_store(&cpu->fpu, h, n))
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
 * reports SSE3 in CPUID.01H:ECX[0] (SDM Vol.2 FISTTP; the rows' feature). It is FISTP with the
 * rounding control chop (RC = 11B) whatever FCW.RC says, so the host runs the
 * FISTP of the same width under RC = 11B (no SSE3 needed on the host; the
 * host-differential test compares the two). */
status_t op_fisttp(struct cpu *cpu, const struct insn *in)
{
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
	h.reads = X87_EXACT;
	return store(cpu, in, &h);
}

/* DA/DB C0-DF: FCMOVcc, DB/DF E8-F7: FCOMI, FUCOMI, FCOMIP, FUCOMIP: introduced
 * with CMOV; #UD unless CPUID.01H:EDX.CMOV[15] (SDM Vol.2 FCMOVcc, FCOMI "This
 * instruction is supported ... if CPUID CMOV and FPU feature bits are set").
 * FCMOVcc tests CF/ZF/PF; FCOMI sets ZF PF CF and clears OF SF AF. */
status_t op_x87_eflags(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, true);
	if (st != ST_OK)
		return st;
	x87_note_insn(cpu, in);
	struct x87_host_insn h = host_insn(in, NULL);
	h.eflags = true;
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
	/* The quirk bochs-x87-reserved-ud-first: #UD before the #NM of CR0.EM/TS. */
	status_t st = cpu_quirk(cpu, QK_BOCHS_X87_RESERVED_UD_FIRST) ? ST_OK : x87_gate(cpu, false);
	if (st != ST_OK)
		return st;
	return cpu_raise(cpu, EXC_UD);
}
