/* The x87 control instructions (SDM Vol.1 8.3.12, Table 8-13; Vol.2 each
 * page): FNINIT, FNCLEX, FNSTSW, FNSTCW, FLDCW, FNSTENV/FLDENV and
 * FNSAVE/FRSTOR in every operand size and mode (SDM Vol.1 8.1.10, Figures
 * 8-9..8-12), and the 8087/80287 leftovers FNENI, FNDISI, FNSETPM. None of them
 * changes the last-instruction pointers (SDM Vol.1 8.1.8, 8.1.9: "control
 * instructions" are not recorded); the N forms do not wait, i.e. they run with
 * an unmasked exception pending (SDM Vol.1 8.6).
 *
 * hvemu keeps the pointers as the protected-mode images hold them: FIP/FDP
 * offsets and FCS/FDS selectors. The real-address/virtual-8086 images hold
 * 20-bit linear addresses (selector * 16 + offset) instead, and a load in those
 * modes keeps the linear address as the offset with selector 0, so storing it
 * back in either mode gives the same address.
 */
#include <string.h>

#include "emu/fpu.h"
#include "emu/operand.h"
#include "isa_handlers.h"

/* ES and B from the exception flags and masks (SDM Vol.1 8.1.3.1: ES is set
 * while any unmasked exception flag is set; B copies ES, 8.1.3.6). FLDCW, FLDENV
 * and FRSTOR recompute both, so a new control word that unmasks a set flag makes
 * the exception pending for the next waiting instruction (SDM Vol.2 FLDCW). */
static void update_es(struct fpu_state *f)
{
	if (f->fsw & ~f->fcw & FSW_EXC)
		f->fsw |= FSW_ES | FSW_B;
	else
		f->fsw &= (uint16_t)~(FSW_ES | FSW_B);
}

/* FCW as a load leaves it: bits 15:13 and 7 reserved (read 0), bit 6 reads 1 on
 * the P6 family and later (SDM Vol.1 8.1.5, Figure 8-6). */
static uint16_t fcw_loaded(uint32_t v) { return (uint16_t)((v & 0x1f3f) | 0x0040); }

/* DB E3: FNINIT; DB E2: FNCLEX; DB E0/E1/E4: FNENI, FNDISI, FNSETPM, which the
 * 8087/80287 needed and later processors execute as no-ops (SDM Vol.1 8.3.12
 * note, Vol.2 A.5 Table A-16 "FNENI/FNDISI/FNSETPM"; the host does not record
 * them as last instruction either). */
status_t op_fninit(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, false);
	if (st != ST_OK)
		return st;
	if (in->modrm == 0xe3)
		fpu_init_x87(&cpu->fpu);
	else if (in->modrm == 0xe2)   /* SDM Vol.2 FCLEX: PE, UE, OE, ZE, DE, IE, SF, ES and B cleared */
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

/* D9 /7: FNSTCW m2byte. */
status_t op_fnstcw(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, false);
	if (st != ST_OK)
		return st;
	return mem_write(cpu, in->seg, insn_ea(cpu, in), 2, cpu->fpu.fcw);
}

/* D9 /5: FLDCW m2byte (waiting). */
status_t op_fldcw(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, true);
	if (st != ST_OK)
		return st;
	uint64_t v;
	st = mem_read(cpu, in->seg, insn_ea(cpu, in), 2, &v);
	if (st != ST_OK)
		return st;
	cpu->fpu.fcw = fcw_loaded((uint32_t)v);
	update_es(&cpu->fpu);
	return ST_OK;
}

/* ---- the environment image (SDM Vol.1 8.1.10) ----
 *
 * Seven slots of 2 bytes (16-bit operand size: 14 bytes) or 4 bytes (32- and
 * 64-bit operand size: 28 bytes; in 64-bit mode REX.W changes nothing):
 *   slot  protected mode (Fig. 8-9, 8-11)     real/v8086 mode (Fig. 8-10, 8-12)
 *   0-2   FCW, FSW, FTW                       FCW, FSW, FTW
 *   3     FIP offset                          FIP[15:0]
 *   4     FCS; 32-bit: FOP in bits 26:16      FIP[31:16] (16-bit: [19:16]) in the
 *                                             bits from 12 up, FOP in bits 10:0
 *   5     FDP offset                          FDP[15:0]
 *   6     FDS                                 FDP[31:16] (16-bit: [19:16]) from bit 12
 * The unused upper halves of the 32-bit slots 0-2 and 6 (protected mode) and 3
 * and 5 (real mode) are stored as ones, as the host does. */
static unsigned env_size(const struct insn *in) { return in->osize == 2 ? FPU_ENV16_SIZE : FPU_ENV32_SIZE; }
static bool env_linear(const struct cpu *cpu) { return cpu->mode == MODE_REAL || cpu->mode == MODE_V86; }

static void env_store(const struct cpu *cpu, const struct insn *in, uint8_t *out)
{
	const struct fpu_state *f = &cpu->fpu;
	bool wide = in->osize != 2;
	uint32_t hi = wide ? 0xffff0000u : 0, slot[7];
	slot[0] = f->fcw | hi;
	slot[1] = f->fsw | hi;
	slot[2] = f->ftw | hi;
	if (!env_linear(cpu)) {
		slot[3] = (uint32_t)f->fip;
		slot[4] = f->fcs | (wide ? (uint32_t)(f->fop & 0x7ff) << 16 : 0);
		slot[5] = (uint32_t)f->fdp;
		slot[6] = f->fds | hi;
	} else {
		uint32_t ip = (uint32_t)((f->fcs << 4) + (uint32_t)f->fip);
		uint32_t dp = (uint32_t)((f->fds << 4) + (uint32_t)f->fdp);
		uint32_t upper = wide ? 0xffff0000u : 0x000f0000u;
		slot[3] = (ip & 0xffff) | hi;
		slot[4] = ((ip & upper) >> 4) | (f->fop & 0x7ff);
		slot[5] = (dp & 0xffff) | hi;
		slot[6] = (dp & upper) >> 4;
	}
	for (unsigned i = 0; i < 7; i++)
		memcpy(out + i * (wide ? 4 : 2), &slot[i], wide ? 4 : 2);
}

static void env_load(struct cpu *cpu, const struct insn *in, const uint8_t *buf)
{
	struct fpu_state *f = &cpu->fpu;
	bool wide = in->osize != 2;
	uint32_t slot[7] = { 0 };
	for (unsigned i = 0; i < 7; i++)
		memcpy(&slot[i], buf + i * (wide ? 4 : 2), wide ? 4 : 2);
	f->fcw = fcw_loaded(slot[0]);
	f->fsw = (uint16_t)slot[1];
	f->ftw = (uint16_t)slot[2];
	if (!env_linear(cpu)) {
		f->fip = slot[3];
		f->fcs = (uint16_t)slot[4];
		/* The 16-bit image has no FOP: it loads as 0 (as on the host). */
		f->fop = wide ? (uint16_t)((slot[4] >> 16) & 0x7ff) : 0;
		f->fdp = slot[5];
		f->fds = (uint16_t)slot[6];
	} else {
		uint32_t upper = wide ? 0x0ffff000u : 0xf000u;
		f->fip = (slot[3] & 0xffff) | ((slot[4] & upper) << 4);
		f->fdp = (slot[5] & 0xffff) | ((slot[6] & upper) << 4);
		f->fop = (uint16_t)(slot[4] & 0x7ff);
		f->fcs = f->fds = 0;
	}
	update_es(f);
}

/* The order the host checks an image in: its first slot (FCW: 2 or 4 bytes),
 * then its last byte, then the rest. So an image that runs into a page that is
 * not present or not writable reports in CR2 the page's first byte when the
 * first slot crosses into it, else the image's last byte (measured on the
 * host; the SDM names no byte for an access that crosses pages). */
static status_t check_ends(struct cpu *cpu, const struct insn *in, uint64_t ea, unsigned n, bool write)
{
	unsigned slot = in->osize == 2 ? 2 : 4;
	uint64_t last = (ea + n - 1) & size_mask(in->asize), v;
	status_t st = write ? mem_probe_write(cpu, in->seg, ea, slot) : mem_read(cpu, in->seg, ea, slot, &v);
	if (st != ST_OK)
		return st;
	return write ? mem_probe_write(cpu, in->seg, last, 1) : mem_read(cpu, in->seg, last, 1, &v);
}

/* D9 /6: FNSTENV; DD /6: FNSAVE (the environment, then ST(0)..ST(7), then the
 * FPU is initialised as by FNINIT: SDM Vol.2 FSAVE). FNSTENV then masks all
 * exceptions (SDM Vol.2 FSTENV: "then masks all floating-point exceptions"),
 * so nothing is pending any more: the image keeps ES, a later FLDENV of it
 * makes the exception pending again (the host does exactly this). */
status_t op_fnstenv(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, false);
	if (st != ST_OK)
		return st;
	struct fpu_state *f = &cpu->fpu;
	uint8_t buf[FPU_ENV32_SIZE + FPU_SAVE_REGS_SIZE];
	unsigned n = env_size(in);
	bool save = in->opcode == 0xdd;
	env_store(cpu, in, buf);
	if (save) {
		unsigned top = (f->fsw >> FSW_TOP_SHIFT) & 7;
		for (unsigned i = 0; i < 8; i++) {
			const struct fpu_reg *r = &f->r[(top + i) & 7];
			memcpy(buf + n + 10 * i, &r->mant, 8);
			memcpy(buf + n + 10 * i + 8, &r->sexp, 2);
		}
	}
	n += save ? FPU_SAVE_REGS_SIZE : 0;
	st = check_ends(cpu, in, insn_ea(cpu, in), n, true);
	if (st == ST_OK)
		st = fpu_mem_write(cpu, in, insn_ea(cpu, in), buf, n, 0);
	if (st != ST_OK)
		return st;
	if (save) {
		fpu_init_x87(f);
	} else {
		f->fcw |= FCW_EXC_MASKS;
		update_es(f);
	}
	return ST_OK;
}

/* D9 /4: FLDENV; DD /4: FRSTOR (waiting). The loaded tag word says only which
 * registers are empty: the others are tagged from their contents, as FXRSTOR
 * does and as the host's FNSTENV shows (SDM Vol.1 8.1.7). */
status_t op_fldenv(struct cpu *cpu, const struct insn *in)
{
	status_t st = x87_gate(cpu, true);
	if (st != ST_OK)
		return st;
	struct fpu_state *f = &cpu->fpu;
	uint8_t buf[FPU_ENV32_SIZE + FPU_SAVE_REGS_SIZE];
	unsigned n = env_size(in);
	bool rstor = in->opcode == 0xdd;
	unsigned total = n + (rstor ? FPU_SAVE_REGS_SIZE : 0);
	st = check_ends(cpu, in, insn_ea(cpu, in), total, false);
	if (st == ST_OK)
		st = fpu_mem_read(cpu, in, insn_ea(cpu, in), buf, total, 0);
	if (st != ST_OK)
		return st;
	env_load(cpu, in, buf);
	if (rstor) {
		unsigned top = (f->fsw >> FSW_TOP_SHIFT) & 7;
		for (unsigned i = 0; i < 8; i++) {
			struct fpu_reg *r = &f->r[(top + i) & 7];
			memcpy(&r->mant, buf + n + 10 * i, 8);
			memcpy(&r->sexp, buf + n + 10 * i + 8, 2);
		}
	}
	f->ftw = fpu_tag_expand(fpu_tag_abridge(f->ftw), f->r);
	return ST_OK;
}
