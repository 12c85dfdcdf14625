/* The rows of svm/vmcb_fields.def as the world switch moves them: VMRUN
 * (the fields it reads, a clean group from the cache; the guest state into
 * the CPU), #VMEXIT (the guest state into the VMCB; the clean-covered rows
 * into the cache), VMLOAD and VMSAVE. Each function expands the table, and
 * ws_get()/ws_set() with a row's constant slot fold to the field access
 * (emu/world_state.h): the rows compile to straight-line code, as fast as
 * stores written by hand, while which field moves where, and the rules of
 * each piece of state, stay written once. Included by world_switch.c and
 * instructions.c only.
 */
#ifndef HVEMU_SVM_VMCB_ROWS_H
#define HVEMU_SVM_VMCB_ROWS_H

#include <string.h>

#include "emu/world_state.h"
#include "svm/vmcb.h"
#include "svm/vmcb_fields.h"

/* A VMCB field of size bytes as a number (little-endian, as the VMCB); other
 * sizes (insn_bytes) are never moved by value. */
static inline uint64_t vmcb_row_get(const void *p, size_t size)
{
	uint8_t b;
	uint16_t w;
	uint32_t l;
	uint64_t q;
	switch (size) {
	case 1: memcpy(&b, p, 1); return b;
	case 2: memcpy(&w, p, 2); return w;
	case 4: memcpy(&l, p, 4); return l;
	case 8: memcpy(&q, p, 8); return q;
	default: return 0;
	}
}

static inline void vmcb_row_put(void *p, size_t size, uint64_t v)
{
	uint8_t b = (uint8_t)v;
	uint16_t w = (uint16_t)v;
	uint32_t l = (uint32_t)v;
	switch (size) {
	case 1: memcpy(p, &b, 1); break;
	case 2: memcpy(p, &w, 2); break;
	case 4: memcpy(p, &l, 4); break;
	case 8: memcpy(p, &v, 8); break;
	default: break;
	}
}

#include "svm/vmcb_def_letters.h"
/* A row whose slot the engine moves: a slot, not by hand. */
#define MOVED(slot, xf) ((slot) != WS_NONE && !((xf) & H))
#define FIELD_SIZE(area, m) sizeof(((const struct vmcb *)0)->area.m)

/* VMRUN: the R rows of v into e; with clean (0 unless the cache is usable,
 * APM2 15.15) a row of a clean group from the cache instead. */
static inline void vmcb_rows_read(struct vmcb *e, const struct vmcb *v, const struct vmcb *cache, uint32_t clean)
{
#define X(area, m, cl, sl, xf, nm)                                                          \
	if ((xf) & R)                                                                       \
		memcpy(&e->area.m,                                                          \
		       (cl) != NONE && ((clean >> ((cl) & 31)) & 1) ? &cache->area.m : &v->area.m, \
		       FIELD_SIZE(area, m));
#include "svm/vmcb_fields.def"
#undef X
}

/* The groups ws_commit() finishes after vmcb_rows_load() (a constant). */
static inline unsigned vmcb_rows_load_groups(void)
{
	unsigned groups = 0;
#define X(area, m, cl, sl, xf, nm)                                                          \
	if (((xf) & R) && MOVED(WS_##sl, xf))                                                    \
		groups |= ws_slot(WS_##sl)->group;
#include "svm/vmcb_fields.def"
#undef X
	return groups;
}

/* VMRUN: the guest state of e (the R rows with a slot) into the CPU. */
static inline void vmcb_rows_load(struct cpu *cpu, const struct vmcb *e)
{
#define X(area, m, cl, sl, xf, nm)                                                          \
	if (((xf) & R) && MOVED(WS_##sl, xf))                                                    \
		ws_set(cpu, WS_##sl, vmcb_row_get(&e->area.m, FIELD_SIZE(area, m)));
#include "svm/vmcb_fields.def"
#undef X
	ws_commit(cpu, vmcb_rows_load_groups());
}

/* #VMEXIT: the guest state (the E rows with a slot) into v. */
static inline void vmcb_rows_save(struct cpu *cpu, struct vmcb *v)
{
#define X(area, m, cl, sl, xf, nm)                                                          \
	if (((xf) & E) && MOVED(WS_##sl, xf))                                                    \
		vmcb_row_put(&v->area.m, FIELD_SIZE(area, m), ws_get(cpu, WS_##sl));
#include "svm/vmcb_fields.def"
#undef X
}

/* #VMEXIT: what the next VMRUN of this VMCB may reuse (APM2 15.15): the
 * clean-covered R rows, as the #VMEXIT wrote them (E rows, from v) or as
 * VMRUN latched them (the controls, from e). */
static inline void vmcb_rows_fill_cache(struct vmcb *cache, const struct vmcb *v, const struct vmcb *e)
{
#define X(area, m, cl, sl, xf, nm)                                                          \
	if (((xf) & R) && (cl) != NONE)                                                     \
		memcpy(&cache->area.m, ((xf) & E) ? &v->area.m : &e->area.m, FIELD_SIZE(area, m));
#include "svm/vmcb_fields.def"
#undef X
}

/* A base as VMLOAD loads it (the C rows): sign-extended from the processor's
 * linear-address width, la_bits 48 or 57. APM2 15.5.2 does not say; AMD
 * processors do this (kvm-unit-tests' svm "vmload canonicalization" rows,
 * QEMU likewise), so a VMLOAD cannot make a base that WRMSR or a descriptor
 * load could not. */
static inline uint64_t vmcb_vmload_address(uint64_t base, unsigned la_bits)
{
	unsigned shift = 64 - la_bits;
	return (uint64_t)((int64_t)(base << shift) >> shift);
}

/* The groups ws_commit() finishes after vmcb_rows_vmload() (a constant). */
static inline unsigned vmcb_rows_vmload_groups(void)
{
	unsigned groups = 0;
#define X(area, m, cl, sl, xf, nm)                                                          \
	if (((xf) & L) && MOVED(WS_##sl, xf))                                                    \
		groups |= ws_slot(WS_##sl)->group;
#include "svm/vmcb_fields.def"
#undef X
	return groups;
}

/* VMLOAD: the L rows of v into the CPU (APM2 15.5.2). */
static inline void vmcb_rows_vmload(struct cpu *cpu, const struct vmcb *v, unsigned la_bits)
{
#define X(area, m, cl, sl, xf, nm)                                                          \
	if (((xf) & L) && MOVED(WS_##sl, xf)) {                                                  \
		uint64_t val = vmcb_row_get(&v->area.m, FIELD_SIZE(area, m));               \
		ws_set(cpu, WS_##sl, ((xf) & C) ? vmcb_vmload_address(val, la_bits) : val); \
	}
#include "svm/vmcb_fields.def"
#undef X
	ws_commit(cpu, vmcb_rows_vmload_groups());
}

/* VMSAVE: the L rows from the CPU into the VMCB at pa (APM2 15.5.2), each
 * row's bytes only. */
static inline void vmcb_rows_vmsave(struct cpu *cpu, uint64_t pa)
{
#define X(area, m, cl, sl, xf, nm)                                                          \
	if (((xf) & L) && MOVED(WS_##sl, xf)) {                                                  \
		uint64_t val = ws_get(cpu, WS_##sl);      /* little-endian: its low bytes */ \
		physmem_write_bytes(cpu->mem, pa + offsetof(struct vmcb, area.m), &val,     \
				    FIELD_SIZE(area, m));                                   \
	}
#include "svm/vmcb_fields.def"
#undef X
}

#include "svm/vmcb_def_letters_end.h"
#undef MOVED
#undef FIELD_SIZE

#endif
