/* Segment-register loads that need no memory: real/v8086 loads, unpacking a raw
 * descriptor into the hidden cache, and the protection rules for loading a data
 * or stack segment register. Table reads and faults live in emu/segload.c. */
#include "mmu/segment.h"

/* Real mode keeps the hidden limit and attributes, which is what makes "big
 * real mode" work (SDM Vol.3 20.1.1). The register is made usable (P=1, S=1,
 * writable/readable, DPL 0) because a real-mode load always yields an accessible
 * segment even after a null selector was loaded in protected mode; the code/data
 * and expand-down bits, D/B, G and the limit are left as they were. */
void seg_load_real(struct segment *s, uint16_t selector)
{
	s->selector = selector;
	s->base = (uint32_t)selector << 4;
	s->attr = (uint16_t)((s->attr & ~SEG_DPL) | SEG_P | SEG_S | SEG_TYPE_RW | SEG_TYPE_ACCESSED);
	seg_refresh(s);
}

/* SDM Vol.3 20.2.1 / 26.3.1.2: in virtual-8086 mode every segment register has
 * base = selector << 4, limit FFFFH and attributes F3H (present, DPL 3, S=1,
 * read/write data, accessed), CS included. */
void seg_load_v86(struct segment *s, uint16_t selector)
{
	s->selector = selector;
	s->base = (uint32_t)selector << 4;
	s->limit = 0xffff;
	s->attr = SEG_P | (3u << SEG_DPL_SHIFT) | SEG_S | SEG_TYPE_RW | SEG_TYPE_ACCESSED;
	seg_refresh(s);
}

/* SDM Vol.3 3.4.5: base 31:0, limit (scaled by G), type/S/DPL/P/AVL/L/D/G. */
void seg_load_descriptor(struct segment *s, uint16_t selector, uint64_t raw)
{
	s->selector = selector;
	s->base = desc_base(raw);
	s->limit = desc_limit(raw);
	s->attr = desc_attr(raw);
	seg_refresh(s);
}

static bool fail(struct fault *f, uint8_t vector, uint16_t selector)
{
	/* SDM Vol.3 6.13: a selector error code carries index and TI; bits 1:0 are
	 * IDT/EXT, filled by the delivery logic, never the RPL. */
	*f = fault_make(vector, selector & 0xfffcu);
	return false;
}

bool seg_check_data_load(enum sreg sr, uint16_t selector, uint64_t raw, unsigned cpl,
			 struct fault *f)
{
	unsigned rpl = SEL_RPL(selector);
	unsigned dpl = desc_dpl(raw);
	unsigned type = desc_type(raw);
	bool code = !desc_is_system(raw) && (type & SEG_TYPE_CODE);
	bool data = !desc_is_system(raw) && !(type & SEG_TYPE_CODE);

	if (sr == SR_CS) {
		/* CS is only loaded by far transfers; MOV/POP to CS is #UD (SDM Vol.2 MOV). */
		*f = fault_noerr(EXC_UD);
		return false;
	}
	if (sr == SR_SS) {
		/* SDM Vol.2 MOV/POP (SS loaded), SDM Vol.3 5.10: null is #GP(0);
		 * RPL = CPL, a writable data segment, DPL = CPL, else #GP(selector);
		 * not present is #SS(selector). */
		if ((selector & 0xfffc) == 0) {
			*f = fault_make(EXC_GP, 0);
			return false;
		}
		if (rpl != cpl || !data || !(type & SEG_TYPE_RW) || dpl != cpl)
			return fail(f, EXC_GP, selector);
		if (!desc_present(raw))
			return fail(f, EXC_SS, selector);
		return true;
	}
	/* DS, ES, FS, GS: a null selector loads an unusable register (SDM Vol.3 5.4.1). */
	if ((selector & 0xfffc) == 0)
		return true;
	/* SDM Vol.2 MOV: must be data or readable code; data and non-conforming
	 * code need RPL <= DPL and CPL <= DPL (SDM Vol.3 5.6); conforming code is
	 * exempt from the privilege check. */
	if (!data && !(code && (type & SEG_TYPE_RW)))
		return fail(f, EXC_GP, selector);
	if ((data || !(type & SEG_TYPE_CE)) && (rpl > dpl || cpl > dpl))
		return fail(f, EXC_GP, selector);
	if (!desc_present(raw))
		return fail(f, EXC_NP, selector);
	return true;
}
