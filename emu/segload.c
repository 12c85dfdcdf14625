/* Segment-register loads: descriptor fetch from the GDT/LDT, MOV/POP/PUSH Sreg,
 * LDS/LES/LSS/LFS/LGS; and the pieces every far transfer shares (TSS stack
 * pointers, checked stack frames). Descriptor-level rules are in mmu/segment.c. */
#include "emu/segload.h"

#include "emu/cpu_model.h"
#include "emu/operand.h"
#include "isa_handlers.h"

bool cpu_la57_supported(const struct cpu *cpu)
{
	return cpu_model_has(cpu->model, 7, 2, 16);
}

status_t desc_fetch(struct cpu *cpu, uint16_t sel, uint8_t vector, uint64_t *raw)
{
	uint64_t base;
	uint32_t limit;

	if (sel & SEL_TI) {
		/* SDM Vol.3 3.5.1: TI=1 selects the LDT; with a null/unusable LDTR
		 * every LDT selector is beyond the limit. */
		if (!(cpu->ldtr.attr & SEG_P))
			return cpu_raise_err(cpu, vector, sel_error(sel));
		base = cpu->ldtr.base;
		limit = cpu->ldtr.limit;
	} else {
		base = cpu->gdtr.base;
		limit = cpu->gdtr.limit;
	}
	/* SDM Vol.3 3.5.1: the whole 8-byte descriptor must lie within the limit. */
	if ((uint32_t)(sel & ~7u) + 7 > limit)
		return cpu_raise_err(cpu, vector, sel_error(sel));
	uint64_t lin = base + (sel & ~7u);
	if (!(cpu->efer & EFER_LMA))
		lin = sys_wrap32(cpu, base, sel & ~7u);   /* SDM Vol.3 3.4: 32-bit linear addresses */
	return lin_read_sys(cpu, lin, 8, raw);
}

status_t desc_fetch_upper(struct cpu *cpu, uint16_t sel, uint8_t vector, uint64_t *hi)
{
	const struct segment *ldt = &cpu->ldtr;
	uint64_t base = (sel & SEL_TI) ? ldt->base : cpu->gdtr.base;
	uint32_t limit = (sel & SEL_TI) ? ldt->limit : cpu->gdtr.limit;
	if (((sel & SEL_TI) && !(ldt->attr & SEG_P)) || (uint32_t)(sel & ~7u) + 15 > limit)
		return cpu_raise_err(cpu, vector, sel_error(sel));
	return lin_read_sys(cpu, base + (sel & ~7u) + 8, 8, hi);
}

status_t desc_set_accessed(struct cpu *cpu, uint16_t sel, uint64_t *raw)
{
	/* SDM Vol.3 3.4.5.1: the accessed bit (type bit 0, byte 5 bit 0) of code and
	 * data segments. Written only when clear, so ROM or write-protected tables
	 * that already have it set are never written. */
	if (desc_is_system(*raw) || (*raw & (1ull << 40)))
		return ST_OK;
	const struct segment *tab = (sel & SEL_TI) ? &cpu->ldtr : NULL;
	uint64_t lin = (tab ? tab->base : cpu->gdtr.base) + (sel & ~7u) + 5;
	if (!(cpu->efer & EFER_LMA))
		lin = (uint32_t)lin;
	status_t st = lin_write_sys(cpu, lin, 1, (uint8_t)(*raw >> 40) | 1u);
	if (st != ST_OK)
		return st;
	*raw |= 1ull << 40;
	return ST_OK;
}

void seg_load_null(struct segment *s, uint16_t sel)
{
	s->selector = sel;
	s->base = 0;
	s->limit = 0;
	s->attr = (uint16_t)(SEL_RPL(sel) << SEG_DPL_SHIFT);   /* P=0: unusable */
	seg_refresh(s);
}

status_t seg_load(struct cpu *cpu, enum sreg sr, uint16_t sel)
{
	if (cpu->mode == MODE_REAL) {
		seg_load_real(&cpu->seg[sr], sel);
		return ST_OK;
	}
	if (cpu->mode == MODE_V86) {
		seg_load_v86(&cpu->seg[sr], sel);
		return ST_OK;
	}
	if (sel_is_null(sel)) {
		/* SDM Vol.2 MOV: in 64-bit mode SS may be null at CPL < 3 when
		 * RPL = CPL (also APM3 MOV/POP); elsewhere null SS is #GP(0). */
		if (sr == SR_SS && !(cpu_is_mode64(cpu) && cpu->cpl != 3 && SEL_RPL(sel) == cpu->cpl))
			return cpu_raise_err(cpu, EXC_GP, 0);
		seg_load_null(&cpu->seg[sr], sel);
		return ST_OK;
	}
	uint64_t raw;
	status_t st = desc_fetch(cpu, sel, EXC_GP, &raw);
	if (st != ST_OK)
		return st;
	struct fault f;
	if (!seg_check_data_load(sr, sel, raw, cpu->cpl, &f))
		return cpu_raise_fault(cpu, &f);
	st = desc_set_accessed(cpu, sel, &raw);
	if (st != ST_OK)
		return st;
	seg_load_descriptor(&cpu->seg[sr], sel, raw);
	return ST_OK;
}

status_t tss_inner_stack(struct cpu *cpu, unsigned dpl, uint16_t *ss, uint32_t *esp)
{
	const struct segment *tr = &cpu->tr;
	unsigned type = tr->attr & SEG_TYPE_MASK;
	bool tss32 = type == SYS_TSS32_AVAIL || type == SYS_TSS32_BUSY;
	uint64_t v;
	status_t st;

	/* SDM Vol.2 INT n / CALL: a 32-bit TSS holds ESPn at 8n+4 and SSn at 8n+8;
	 * a 16-bit TSS holds SPn at 4n+2 and SSn at 4n+4 (SDM Vol.3 7.2.1, 7.6). */
	uint32_t off = tss32 ? dpl * 8 + 4 : dpl * 4 + 2;
	uint32_t last = tss32 ? off + 5 : off + 3;
	if (last > tr->limit)
		return cpu_raise_err(cpu, EXC_TS, sel_error(tr->selector));
	st = lin_read_sys(cpu, sys_wrap32(cpu, tr->base, off), tss32 ? 4 : 2, &v);
	if (st != ST_OK)
		return st;
	*esp = (uint32_t)v;
	st = lin_read_sys(cpu, sys_wrap32(cpu, tr->base, off + (tss32 ? 4 : 2)), 2, &v);
	if (st != ST_OK)
		return st;
	*ss = (uint16_t)v;
	return ST_OK;
}

status_t stack_seg_check(struct cpu *cpu, uint16_t ss, unsigned dpl, uint64_t *raw)
{
	/* SDM Vol.2 INT n INTER-PRIVILEGE-LEVEL-INTERRUPT and CALL MORE-PRIVILEGE,
	 * in that order: null, index, RPL; then DPL and type; then present. */
	if (sel_is_null(ss))
		return cpu_raise_err(cpu, EXC_TS, 0);
	status_t st = desc_fetch(cpu, ss, EXC_TS, raw);
	if (st != ST_OK)
		return st;
	if (SEL_RPL(ss) != dpl)
		return cpu_raise_err(cpu, EXC_TS, sel_error(ss));
	unsigned type = desc_type(*raw);
	if (desc_is_system(*raw) || (type & SEG_TYPE_CODE) || !(type & SEG_TYPE_RW) ||
	    desc_dpl(*raw) != dpl)
		return cpu_raise_err(cpu, EXC_TS, sel_error(ss));
	if (!desc_present(*raw))
		return cpu_raise_err(cpu, EXC_SS, sel_error(ss));
	return ST_OK;
}

/* A data segment register that a return to an outer level makes null: the
 * selector becomes 0 and the register unusable (P = 0); base and limit stay.
 *   Intel: SDM Vol.2 IRET/RET "SegSelector := 0 (* Segment selector invalid
 *     *)" names the selector only; the hidden base is left undefined there.
 *     Hardware keeps it, and software depends on that: Linux with FSGSBASE
 *     returns to a user GS = 0 whose base it wrote with WRGSBASE through IRET,
 *     and kvm-unit-tests' emulator "Test ret/iret with a nullified segment"
 *     expects the base kept.
 *   AMD: APM3 IRET/RET likewise load a null selector. NullSelectorClearsBase
 *     (CPUID Fn8000_0021_EAX[6], family 19h on) is about loads of a null
 *     selector by software; the same Linux return path works on those parts,
 *     so the IRET/RET nullification keeps the base there too. hvemu's AMD
 *     models (opteron-g3 family 10h, epyc-lite family 17h) report no such
 *     leaf.
 * So every model keeps the base: where the manuals leave it undefined, this
 * is the model-dependent behaviour the parts show. In 64-bit mode a null
 * DS/ES/FS/GS is still used with that base (SDM Vol.3 5.4.1.1). */
static void seg_nullify(struct segment *s)
{
	s->selector = 0;
	s->attr &= (uint16_t)~SEG_P;
	seg_refresh(s);
}

void seg_null_inaccessible(struct cpu *cpu)
{
	static const uint8_t regs[] = { SR_ES, SR_FS, SR_GS, SR_DS };
	for (unsigned i = 0; i < sizeof(regs); i++) {
		struct segment *s = &cpu->seg[regs[i]];
		unsigned dpl = (s->attr & SEG_DPL) >> SEG_DPL_SHIFT;
		bool conforming_code = (s->attr & SEG_S) && (s->attr & SEG_TYPE_CODE) &&
				       (s->attr & SEG_TYPE_CE);
		/* SDM Vol.2 RET/IRET: a null or unusable register, or data and
		 * non-conforming code with DPL < CPL, becomes null. */
		if (!(s->attr & SEG_P) || sel_is_null(s->selector) ||
		    (dpl < cpu->cpl && !conforming_code))
			seg_nullify(s);
	}
}

void sp_write(struct cpu *cpu, uint64_t mask, uint64_t sp)
{
	cpu->regs[R_SP] = mask == 0xffffffffu ? (uint32_t)sp
						: (cpu->regs[R_SP] & ~mask) | (sp & mask);
}

/* --- stack frames --- */

void frame_on_current(struct cpu *cpu, struct stack_frame *fr)
{
	fr->ss = cpu->seg[SR_SS];
	fr->current = true;
	fr->flat64 = cpu_is_mode64(cpu);
	fr->la57 = (cpu->cr4 & CR4_LA57) != 0;
	fr->mask = size_mask(stack_asize(cpu));
	fr->sp = cpu->regs[R_SP] & fr->mask;
	fr->used = 0;
	fr->n = 0;
}

void frame_on_new(struct stack_frame *fr, const struct segment *ss, uint64_t sp)
{
	fr->ss = *ss;
	fr->current = false;
	fr->flat64 = false;
	fr->la57 = false;
	fr->mask = (ss->attr & SEG_DB) ? 0xffffffffu : 0xffffu;
	fr->sp = sp & fr->mask;
	fr->used = 0;
	fr->n = 0;
}

void frame_on_flat64(const struct cpu *cpu, struct stack_frame *fr, uint64_t rsp, bool current)
{
	fr->ss = (struct segment){ 0 };
	fr->current = current;
	fr->flat64 = true;
	fr->la57 = (cpu->cr4 & CR4_LA57) != 0;
	fr->mask = ~0ull;
	fr->sp = rsp;
	fr->used = 0;
	fr->n = 0;
}

void frame_add(struct stack_frame *fr, unsigned size, uint64_t value)
{
	if (fr->n >= FRAME_MAX_SLOTS)
		return;   /* callers size frames statically below the bound */
	fr->slot[fr->n].size = (uint8_t)size;
	fr->slot[fr->n].value = value;
	fr->n++;
	fr->used += size;
}

bool frame_fits(const struct stack_frame *fr)
{
	uint64_t off = fr->sp;
	for (unsigned i = 0; i < fr->n; i++) {
		off = (off - fr->slot[i].size) & fr->mask;
		unsigned bits = fr->la57 ? 57 : 48;
		if (fr->flat64 ? !canonical_bits(off, bits) || !canonical_bits(off + fr->slot[i].size - 1, bits)
			       : !seg_access_ok(&fr->ss, off, fr->slot[i].size, SEG_PERM_WRITE))
			return false;
	}
	return true;
}

status_t frame_write(struct cpu *cpu, const struct stack_frame *fr)
{
	uint64_t off = fr->sp;
	for (unsigned i = 0; i < fr->n; i++) {
		unsigned size = fr->slot[i].size;
		status_t st;
		off = (off - size) & fr->mask;
		/* A 16-bit slot's carry (the address bits above 31 the wrap drops)
		 * goes with a #PF like a system access's (event.cr2_carry); only a
		 * quirk reads it: QEMU 7.2's 16-bit frame pushes miss the wrap, its
		 * 32-bit ones do not, whatever the stack's size. */
		if (fr->current) {
			if (size == 2 && !fr->flat64)
				cpu->wrap_carry = (uint32_t)((fr->ss.base + off) >> 32);
			st = mem_write(cpu, SR_SS, off, size, fr->slot[i].value);
			cpu->wrap_carry = 0;
		} else if (fr->flat64) {
			st = lin_write_sys(cpu, off, size, fr->slot[i].value);
		} else {
			uint64_t lin = sys_wrap32(cpu, fr->ss.base, off);
			if (size != 2)
				cpu->wrap_carry = 0;
			st = lin_write_sys(cpu, lin, size, fr->slot[i].value);
		}
		if (st != ST_OK)
			return st;
	}
	return ST_OK;
}

status_t prot_unsupported(struct cpu *cpu, const char *what)
{
	if (cpu->trace_event) {
		struct event none = { .vector = 0 };
		cpu->trace_event(cpu, &none, what);
	}
	return ST_UNSUPPORTED;
}

/* --- instructions --- */

/* The Sreg field of MOV Sreg is ModRM bits 5:3; REX.R does not extend it. */
static unsigned modrm_sreg(const struct insn *in)
{
	return (in->modrm >> 3) & 7;
}

/* 8C: MOV r/m, Sreg (SDM Vol.2 MOV). A memory destination is always 16 bits;
 * a register destination is zero-extended to the operand size. */
status_t op_mov_from_sreg(struct cpu *cpu, const struct insn *in)
{
	unsigned sr = modrm_sreg(in);
	if (sr >= SR_COUNT)
		return cpu_raise(cpu, EXC_UD);
	uint16_t sel = cpu->seg[sr].selector;
	return rm_write(cpu, in, in->mem ? 2 : in->osize, sel);
}

/* 8E: MOV Sreg, r/m16 (SDM Vol.2 MOV). MOV CS is #UD; MOV SS blocks interrupts
 * until after the next instruction (SDM Vol.3 6.8.3). */
status_t op_mov_to_sreg(struct cpu *cpu, const struct insn *in)
{
	unsigned sr = modrm_sreg(in);
	if (sr >= SR_COUNT || sr == SR_CS)
		return cpu_raise(cpu, EXC_UD);
	uint64_t v;
	status_t st = rm_read(cpu, in, 2, &v);
	if (st != ST_OK)
		return st;
	st = seg_load(cpu, (enum sreg)sr, (uint16_t)v);
	if (st != ST_OK)
		return st;
	if (sr == SR_SS) {
		cpu->shadow = SHADOW_MOV_SS;
		cpu_attend(cpu, ATT_STEP);     /* the next instruction runs alone */
	}
	return ST_OK;
}

/* Segment register named by a PUSH/POP Sreg opcode: 06/07 ES, 0E CS, 16/17 SS,
 * 1E/1F DS (bits 4:3), 0F A0/A1 FS, 0F A8/A9 GS. */
static unsigned opcode_sreg(const struct insn *in)
{
	if (in->map == 1)
		return (in->opcode & 8) ? SR_GS : SR_FS;
	return (in->opcode >> 3) & 3;
}

/* PUSH Sreg (SDM Vol.2 PUSH): the selector is zero-extended to the operand
 * size, one of the two behaviours the SDM allows for 32/64-bit pushes. */
status_t op_push_sreg(struct cpu *cpu, const struct insn *in)
{
	return push(cpu, in->osize, cpu->seg[opcode_sreg(in)].selector);
}

/* POP Sreg (SDM Vol.2 POP): the value is read, the register loaded with all
 * checks, and only then rSP moves (by the old stack-address size). POP SS sets
 * the interrupt shadow (SDM Vol.3 6.8.3). */
status_t op_pop_sreg(struct cpu *cpu, const struct insn *in)
{
	unsigned sr = opcode_sreg(in);
	uint64_t mask = size_mask(stack_asize(cpu));
	uint64_t v;
	status_t st = stack_read(cpu, 0, in->osize, &v);
	if (st != ST_OK)
		return st;
	uint64_t sp = (cpu->regs[R_SP] + in->osize) & mask;
	st = seg_load(cpu, (enum sreg)sr, (uint16_t)v);
	if (st != ST_OK)
		return st;
	sp_write(cpu, mask, sp);
	if (sr == SR_SS) {
		cpu->shadow = SHADOW_MOV_SS;
		cpu_attend(cpu, ATT_STEP);     /* the next instruction runs alone */
	}
	return ST_OK;
}

/* LDS/LES/LSS/LFS/LGS r, m16:16/32/64 (SDM Vol.2 LDS/LES/LFS/LGS/LSS): the
 * offset (operand size) then the selector; the segment load's faults come
 * before the register is written. */
status_t op_load_far_ptr(struct cpu *cpu, const struct insn *in)
{
	unsigned sr;
	if (in->map == 0)
		sr = in->opcode == 0xc4 ? SR_ES : SR_DS;
	else
		sr = in->opcode == 0xb2 ? SR_SS : in->opcode == 0xb4 ? SR_FS : SR_GS;
	uint64_t ea = insn_ea(cpu, in), off, sel;
	status_t st = mem_read(cpu, in->seg, ea, in->osize, &off);
	if (st != ST_OK)
		return st;
	st = mem_read(cpu, in->seg, (ea + in->osize) & size_mask(in->asize), 2, &sel);
	if (st != ST_OK)
		return st;
	st = seg_load(cpu, (enum sreg)sr, (uint16_t)sel);
	if (st != ST_OK)
		return st;
	greg_write(cpu, in, in->osize, off);
	return ST_OK;
}
