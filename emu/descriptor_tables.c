/* Descriptor-table registers and descriptor inspection: LGDT, LIDT, SGDT, SIDT,
 * LLDT, LTR, SLDT, STR, LAR, LSL, VERR, VERW, ARPL (SDM Vol.2, instruction pages
 * of the same names; descriptor formats SDM Vol.3 3.4.5, 3.5, 7.2.2). */
#include "emu/canonical.h"
#include "emu/cpu.h"
#include "emu/flags.h"
#include "emu/hv.h"
#include "emu/operand.h"
#include "isa_handlers.h"

/* Error code of #GP/#NP(selector): the selector with the RPL field replaced by
 * the EXT/IDT bits, which are 0 for an instruction (SDM Vol.3 6.13). */
static inline uint32_t sel_error(uint16_t sel) { return sel & 0xfffcu; }

/* A selector is null when its index and TI are 0 (SDM Vol.3 3.4.2). */
static inline bool sel_is_null(uint16_t sel) { return (sel & 0xfffcu) == 0; }

/* Result of looking a selector up in the GDT or LDT. */
enum desc_lookup { DESC_OK, DESC_OUT_OF_LIMIT, DESC_FAULT };

/* Read the 8-byte descriptor sel names. The index must lie within the table
 * limit (SDM Vol.3 3.5.1: "the processor checks that the selector index*8+7 is
 * within the limit"); a selector into an unusable LDT is out of limit. The read
 * is an implicit supervisor access (SDM Vol.3 4.6.1) and may page fault
 * (DESC_FAULT: cpu->event is set). */
static enum desc_lookup read_descriptor(struct cpu *cpu, uint16_t sel, uint64_t *raw)
{
	uint64_t base, limit;

	if (sel & SEL_TI) {
		if (!(cpu->ldtr.attr & SEG_P) || sel_is_null(cpu->ldtr.selector))
			return DESC_OUT_OF_LIMIT;
		base = cpu->ldtr.base;
		limit = cpu->ldtr.limit;
	} else {
		base = cpu->gdtr.base;
		limit = cpu->gdtr.limit;
	}
	uint64_t off = (uint64_t)(sel & ~7u);
	if (off + 7 > limit)
		return DESC_OUT_OF_LIMIT;
	uint64_t lin = base + off;
	if (!cpu_is_mode64(cpu))
		lin = (uint32_t)lin;
	return lin_read_sys(cpu, lin, 8, raw) == ST_OK ? DESC_OK : DESC_FAULT;
}

/* LLDT, LTR, SLDT, STR, LAR, LSL, VERR, VERW and ARPL are not recognised in
 * real-address and virtual-8086 mode (#UD in each instruction's exception lists). */
static inline bool prot_only_ud(const struct cpu *cpu)
{
	return cpu->mode == MODE_REAL || cpu->mode == MODE_V86;
}

/* LGDT/LIDT and the other CPL-0 instructions: #GP(0) at CPL > 0 (including
 * virtual-8086 mode, CPL 3). Real mode runs at CPL 0. */
static inline bool not_cpl0(const struct cpu *cpu)
{
	return cpu->mode != MODE_REAL && cpu->cpl != 0;
}

/* --- LGDT, LIDT, SGDT, SIDT --- */

/* Read the pseudo-descriptor at the memory operand: limit (2 bytes), then the
 * base: 8 bytes in 64-bit mode, else 4 bytes of which a 16-bit operand size keeps
 * 24 bits (SDM Vol.2 LGDT/LIDT Operation: "BASE := SRC[16:47] AND 00FFFFFFH"). */
static status_t load_pseudo_descriptor(struct cpu *cpu, const struct insn *in, struct dtr *dst)
{
	uint64_t ea = insn_ea(cpu, in), limit, base;
	uint64_t amask = size_mask(in->asize);
	status_t st;

	if (not_cpl0(cpu))
		return cpu_raise_err(cpu, EXC_GP, 0);
	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	if ((st = mem_read(cpu, in->seg, ea, 2, &limit)) != ST_OK)
		return st;
	if (cpu_is_mode64(cpu)) {
		if ((st = mem_read(cpu, in->seg, (ea + 2) & amask, 8, &base)) != ST_OK)
			return st;
		/* SDM Vol.2 LGDT: #GP(0) in 64-bit mode for a non-canonical base
		 * (the processor's width, emu/canonical.h addr_canonical_reg()). */
		if (!addr_canonical_reg(cpu, base))
			return cpu_raise_err(cpu, EXC_GP, 0);
	} else {
		if ((st = mem_read(cpu, in->seg, (ea + 2) & amask, 4, &base)) != ST_OK)
			return st;
		if (in->osize == 2)
			base &= 0x00ffffffu;
	}
	dst->base = base;
	dst->limit = (uint32_t)limit;
	return ST_OK;
}

/* Store limit then base: 8 bytes of base in 64-bit mode, else 4 bytes, of
 * which a 16-bit operand size stores the low 24 bits and a zero byte (SDM Vol.2
 * SGDT/SIDT Description, as in the editions that describe the 16-bit form: "the
 * 24-bit base address is stored in the third, fourth, and fifth byte, with the
 * sixth byte filled with 0s"; QEMU does the same). Recent SDM pseudo-code stores
 * the full 32-bit base for both sizes; no guest we know relies on either. */
static status_t store_pseudo_descriptor(struct cpu *cpu, const struct insn *in,
					const struct dtr *src)
{
	uint64_t ea = insn_ea(cpu, in);
	uint64_t amask = size_mask(in->asize);
	unsigned base_size = cpu_is_mode64(cpu) ? 8 : 4;
	status_t st;

	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	/* Check the whole destination first, so a fault leaves memory unchanged,
	 * in the order of the stores: the limit's bytes, then the base's (a wholly
	 * unmapped operand faults at its first byte, APM2 8.4.2 / SDM Vol.3 4.7:
	 * CR2 is the address the access faulted on; svm_exit_fuzz's
	 * fuzz/findings/sgdt_pf_address). */
	if ((st = mem_probe_write(cpu, in->seg, ea, 2)) != ST_OK ||
	    (st = mem_probe_write(cpu, in->seg, (ea + 2) & amask, base_size)) != ST_OK)
		return st;
	if ((st = mem_write(cpu, in->seg, ea, 2, src->limit & 0xffff)) != ST_OK)
		return st;
	uint64_t base = base_size == 8 ? src->base :
			in->osize == 2 ? (src->base & 0x00ffffffu) : (uint32_t)src->base;
	return mem_write(cpu, in->seg, (ea + 2) & amask, base_size, base);
}

status_t op_lgdt(struct cpu *cpu, const struct insn *in)
{
	return load_pseudo_descriptor(cpu, in, &cpu->gdtr);
}

status_t op_lidt(struct cpu *cpu, const struct insn *in)
{
	return load_pseudo_descriptor(cpu, in, &cpu->idtr);
}

/* SGDT/SIDT are allowed at any CPL (CR4.UMIP is not offered by any model). */
status_t op_sgdt(struct cpu *cpu, const struct insn *in)
{
	return store_pseudo_descriptor(cpu, in, &cpu->gdtr);
}

status_t op_sidt(struct cpu *cpu, const struct insn *in)
{
	return store_pseudo_descriptor(cpu, in, &cpu->idtr);
}

/* --- SLDT, STR --- */

/* SDM Vol.2 SLDT/STR: a memory destination is always 16 bits; a register
 * destination gets the selector zero-extended to the operand size (P6 and later
 * clear bits 31:16; the 16-bit form writes only bits 15:0). */
static status_t store_selector(struct cpu *cpu, const struct insn *in, uint16_t sel)
{
	status_t st;

	if (prot_only_ud(cpu))
		return cpu_raise(cpu, EXC_UD);
	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	if (in->mem)
		return rm_write(cpu, in, 2, sel);
	reg_write(cpu, in->rm, in->osize, in->rex != 0, sel);
	return ST_OK;
}

status_t op_sldt(struct cpu *cpu, const struct insn *in)
{
	return store_selector(cpu, in, cpu->ldtr.selector);
}

status_t op_str(struct cpu *cpu, const struct insn *in)
{
	return store_selector(cpu, in, cpu->tr.selector);
}

/* IA-32e mode system descriptors (LDT, TSS) are 16 bytes: bits 31:0 of the
 * upper quadword are base 63:32 and its type field (bits 12:8 of the upper
 * dword) must be 0 (SDM Vol.3 8.2.3 Figure 8-4, 3.5; SDM Vol.2 LLDT/LTR 64-bit
 * mode exceptions: #GP(selector) for a bad upper half or a non-canonical base).
 * Returns the 64-bit base in *base. */
static status_t read_upper_half(struct cpu *cpu, uint16_t sel, uint64_t raw, uint64_t *base)
{
	uint64_t upper = 0;

	if ((uint32_t)(sel & ~7u) + 15 > cpu->gdtr.limit)
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	switch (read_descriptor(cpu, (uint16_t)(sel + 8), &upper)) {
	case DESC_FAULT: return ST_FAULT;
	case DESC_OUT_OF_LIMIT: return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	case DESC_OK: break;
	}
	*base = (uint64_t)desc_base(raw) | ((upper & 0xffffffffu) << 32);
	if (((upper >> 40) & 0x1f) || !addr_canonical_reg(cpu, *base))
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	return ST_OK;
}

/* --- LLDT, LTR --- */

/* The checks LLDT and LTR share before they read their operand (SDM Vol.2
 * LLDT/LTR: #UD in real-address and virtual-8086 mode, #GP(0) at CPL > 0), then
 * the intercept point. */
static status_t system_selector_checks(struct cpu *cpu, const struct insn *in)
{
	if (prot_only_ud(cpu))
		return cpu_raise(cpu, EXC_UD);
	if (cpu->cpl != 0)
		return cpu_raise_err(cpu, EXC_GP, 0);
	return intercept_insn(cpu, in);
}

status_t op_lldt(struct cpu *cpu, const struct insn *in)
{
	uint64_t raw, operand;
	status_t st = system_selector_checks(cpu, in);
	if (st == ST_OK)
		st = rm_read(cpu, in, 2, &operand);
	if (st != ST_OK)
		return st;
	uint16_t sel = (uint16_t)operand;

	/* SDM Vol.2 LLDT: "If bits 2-15 of the source operand are 0, LDTR is marked
	 * invalid and the LLDT instruction completes silently." */
	if (sel_is_null(sel)) {
		cpu->ldtr.selector = sel;
		cpu->ldtr.attr = 0;
		seg_refresh(&cpu->ldtr);
		return ST_OK;
	}
	/* SDM Vol.2 LLDT: #GP(selector) if the selector does not point into the GDT
	 * or is beyond its limit, or the descriptor is not an LDT; #NP(selector) if
	 * the LDT descriptor is not present. */
	if (sel & SEL_TI)
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	switch (read_descriptor(cpu, sel, &raw)) {
	case DESC_FAULT: return ST_FAULT;
	case DESC_OUT_OF_LIMIT: return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	case DESC_OK: break;
	}
	if (!desc_is_system(raw) || desc_type(raw) != SYS_LDT)
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	if (!desc_present(raw))
		return cpu_raise_err(cpu, EXC_NP, sel_error(sel));
	uint64_t base64 = desc_base(raw);
	if ((cpu->efer & EFER_LMA) && (st = read_upper_half(cpu, sel, raw, &base64)) != ST_OK)
		return st;
	seg_load_descriptor(&cpu->ldtr, sel, raw);
	cpu->ldtr.base = base64;
	return ST_OK;
}

status_t op_ltr(struct cpu *cpu, const struct insn *in)
{
	uint64_t raw, operand;
	status_t st = system_selector_checks(cpu, in);
	if (st == ST_OK)
		st = rm_read(cpu, in, 2, &operand);
	if (st != ST_OK)
		return st;
	uint16_t sel = (uint16_t)operand;

	/* SDM Vol.2 LTR Operation, in order: null selector #GP(0); LDT selector or
	 * beyond the GDT limit #GP(selector); not an available TSS #GP(selector); not
	 * present #NP(selector). */
	if (sel_is_null(sel))
		return cpu_raise_err(cpu, EXC_GP, 0);
	if (sel & SEL_TI)
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	switch (read_descriptor(cpu, sel, &raw)) {
	case DESC_FAULT: return ST_FAULT;
	case DESC_OUT_OF_LIMIT: return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	case DESC_OK: break;
	}
	unsigned type = desc_type(raw);
	bool ia32e = (cpu->efer & EFER_LMA) != 0;
	/* SDM Vol.3 8.2.3 / APM2 12.2.5: in IA-32e mode only the 64-bit TSS (type 9)
	 * exists; type 1 (16-bit TSS) is invalid there (SDM Vol.3 3.5, Table 3-2). */
	if (!desc_is_system(raw) || (type != SYS_TSS32_AVAIL && (ia32e || type != SYS_TSS16_AVAIL)))
		return cpu_raise_err(cpu, EXC_GP, sel_error(sel));
	if (!desc_present(raw))
		return cpu_raise_err(cpu, EXC_NP, sel_error(sel));
	uint64_t base64 = desc_base(raw);
	if (ia32e && (st = read_upper_half(cpu, sel, raw, &base64)) != ST_OK)
		return st;

	/* "TSSsegmentDescriptor(busy) := 1": type bit 1 in the access byte (byte 5)
	 * of the descriptor in the GDT (SDM Vol.3 7.2.2). */
	raw |= 2ull << 40;
	uint64_t lin = cpu->gdtr.base + (sel & ~7u) + 5;
	if (!cpu_is_mode64(cpu))
		lin = (uint32_t)lin;
	if ((st = lin_write_sys(cpu, lin, 1, (raw >> 40) & 0xff)) != ST_OK)
		return st;
	seg_load_descriptor(&cpu->tr, sel, raw);
	cpu->tr.base = base64;
	return ST_OK;
}

/* --- LAR, LSL, VERR, VERW --- */

/* System descriptor types that LAR (gates included) and LSL (segments only)
 * accept outside 64-bit mode (SDM Vol.2 LAR, table "Segment and Gate Types
 * Checked by the LAR Instruction"; LSL: "Segment and Gate Types Checked by the
 * LSL Instruction"). Bit n set: type n is valid. */
#define LAR_SYS_TYPES ((1u << SYS_TSS16_AVAIL) | (1u << SYS_LDT) | (1u << SYS_TSS16_BUSY) | \
		       (1u << SYS_CALL_GATE16) | (1u << SYS_TASK_GATE) | \
		       (1u << SYS_TSS32_AVAIL) | (1u << SYS_TSS32_BUSY) | (1u << SYS_CALL_GATE32))
#define LSL_SYS_TYPES ((1u << SYS_TSS16_AVAIL) | (1u << SYS_LDT) | (1u << SYS_TSS16_BUSY) | \
		       (1u << SYS_TSS32_AVAIL) | (1u << SYS_TSS32_BUSY))

enum verify_kind { VERIFY_LAR, VERIFY_LSL, VERIFY_READ, VERIFY_WRITE };

/* The common part of LAR/LSL/VERR/VERW: is the descriptor sel names visible at
 * this CPL and of a type the instruction accepts? Bad selectors are not faults:
 * they clear ZF (SDM Vol.2 LAR/LSL/VERR/VERW Operation). Returns ST_FAULT only
 * for faults reading the operand or the table; *ok tells the ZF outcome. */
static status_t verify_selector(struct cpu *cpu, const struct insn *in, enum verify_kind kind,
				uint64_t *raw, bool *ok)
{
	uint64_t v;
	status_t st;

	*ok = false;
	if (prot_only_ud(cpu))
		return cpu_raise(cpu, EXC_UD);
	if ((st = rm_read(cpu, in, 2, &v)) != ST_OK)
		return st;
	uint16_t sel = (uint16_t)v;

	if (sel_is_null(sel))
		return ST_OK;
	switch (read_descriptor(cpu, sel, raw)) {
	case DESC_FAULT: return ST_FAULT;
	case DESC_OUT_OF_LIMIT: return ST_OK;
	case DESC_OK: break;
	}
	unsigned type = desc_type(*raw), dpl = desc_dpl(*raw);
	bool code = !desc_is_system(*raw) && (type & SEG_TYPE_CODE);
	bool conforming = code && (type & SEG_TYPE_CE);

	switch (kind) {
	case VERIFY_LAR:
		if (desc_is_system(*raw) && !((LAR_SYS_TYPES >> type) & 1))
			return ST_OK;
		break;
	case VERIFY_LSL:
		if (desc_is_system(*raw) && !((LSL_SYS_TYPES >> type) & 1))
			return ST_OK;
		break;
	case VERIFY_READ:
		/* VERR: code/data only; code must be readable. */
		if (desc_is_system(*raw) || (code && !(type & SEG_TYPE_RW)))
			return ST_OK;
		break;
	case VERIFY_WRITE:
		/* VERW: writable data only. */
		if (desc_is_system(*raw) || code || !(type & SEG_TYPE_RW))
			return ST_OK;
		break;
	}
	/* Privilege: "IF (not conforming code) and (CPL > DPL or RPL > DPL) THEN
	 * ZF := 0"; conforming code segments are checked by type only. */
	if (!conforming && (cpu->cpl > dpl || SEL_RPL(sel) > dpl))
		return ST_OK;
	*ok = true;
	return ST_OK;
}

static inline void set_zf(struct cpu *cpu, bool ok)
{
	flags_update(cpu, FLAG_ZF, ok ? FLAG_ZF : 0);
}

/* LAR: on success, the access rights: bytes 5-6 of the descriptor masked with
 * 00FxFF00H for a 32/64-bit operand (the x nibble, limit 19:16, is copied as the
 * descriptor has it, as P6 and later do) and 0000FF00H for 16 bits. On failure the
 * destination is unchanged (SDM Vol.2 LAR). */
status_t op_lar(struct cpu *cpu, const struct insn *in)
{
	uint64_t raw = 0;
	bool ok;
	status_t st = verify_selector(cpu, in, VERIFY_LAR, &raw, &ok);
	if (st != ST_OK)
		return st;
	if (ok) {
		uint32_t hi = (uint32_t)(raw >> 32);
		greg_write(cpu, in, in->osize, in->osize == 2 ? (hi & 0xff00u) : (hi & 0x00ffff00u));
	}
	set_zf(cpu, ok);
	return ST_OK;
}

/* LSL: the byte-granular limit (G applied), truncated to a 16-bit operand. */
status_t op_lsl(struct cpu *cpu, const struct insn *in)
{
	uint64_t raw = 0;
	bool ok;
	status_t st = verify_selector(cpu, in, VERIFY_LSL, &raw, &ok);
	if (st != ST_OK)
		return st;
	if (ok)
		greg_write(cpu, in, in->osize, desc_limit(raw));
	set_zf(cpu, ok);
	return ST_OK;
}

status_t op_verr(struct cpu *cpu, const struct insn *in)
{
	uint64_t raw = 0;
	bool ok;
	status_t st = verify_selector(cpu, in, VERIFY_READ, &raw, &ok);
	if (st != ST_OK)
		return st;
	set_zf(cpu, ok);
	return ST_OK;
}

status_t op_verw(struct cpu *cpu, const struct insn *in)
{
	uint64_t raw = 0;
	bool ok;
	status_t st = verify_selector(cpu, in, VERIFY_WRITE, &raw, &ok);
	if (st != ST_OK)
		return st;
	set_zf(cpu, ok);
	return ST_OK;
}

/* --- ARPL --- */

/* SDM Vol.2 ARPL: "IF DEST[RPL] < SRC[RPL] THEN ZF := 1; DEST[RPL] := SRC[RPL];
 * ELSE ZF := 0". #UD in real-address and virtual-8086 mode. The destination is
 * written only when it changes. */
status_t op_arpl(struct cpu *cpu, const struct insn *in)
{
	uint64_t dst;
	status_t st;

	if (prot_only_ud(cpu))
		return cpu_raise(cpu, EXC_UD);
	if ((st = rm_read(cpu, in, 2, &dst)) != ST_OK)
		return st;
	uint64_t src = greg_read(cpu, in, 2);
	bool adjust = SEL_RPL(dst) < SEL_RPL(src);
	if (adjust && (st = rm_write(cpu, in, 2, (dst & ~3ull) | SEL_RPL(src))) != ST_OK)
		return st;
	set_zf(cpu, adjust);
	return ST_OK;
}
