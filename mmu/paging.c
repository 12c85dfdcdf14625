/* The page walker (see paging.h): one loop over the levels of any format in
 * mmu/paging_formats.h. SDM Vol.3 4.3 (32-bit), 4.4 (PAE), 4.5 (4- and 5-level),
 * 4.6 (access rights), 4.7 (#PF error code), 4.8 (accessed and dirty flags);
 * APM2 15.25.5 (nested tables); SDM Vol.3 28.2.2 (EPT translation), 28.2.3 (EPT
 * misconfigurations and violations), 28.2.4 (EPT accessed and dirty flags). */
#include <string.h>

#include "mmu/paging.h"
#include "mmu/paging_formats.h"
#include "mmu/x86.h"

static inline uint64_t bits(unsigned hi, unsigned lo)
{
	return ((hi >= 63 ? ~0ull : (1ull << (hi + 1)) - 1)) & ~((1ull << lo) - 1);
}

/* Bits top:m, empty when top < m (the bits above MAXPHYADDR up to top). */
static inline uint64_t above(unsigned top, unsigned m)
{
	return top < m ? 0 : bits(top, m);
}

/* Page-table entries live in RAM almost always: read them directly; anything
 * else (MMIO, unclaimed: all ones) through the bus. */
static inline uint64_t read_ram(struct physmem *mem, uint64_t addr, unsigned size)
{
	uint8_t *p = physmem_ram_ptr(mem, addr);
	if (p && addr + size <= mem->ram_size) {
		uint32_t d;
		uint64_t q;
		if (size == 4) {
			memcpy(&d, p, 4);
			return d;
		}
		memcpy(&q, p, 8);
		return q;
	}
	return physmem_read(mem, addr, size);
}

/* An entry through the environment's port; no port: RAM directly (the CPU's
 * own walks, kept as fast as before ports existed). */
static inline bool entry_read(const struct paging_env *env, uint64_t addr, unsigned size,
			      uint64_t *e, struct fault *f)
{
	if (__builtin_expect(env->port == NULL, 1)) {
		*e = read_ram(env->mem, addr, size);
		return true;
	}
	return env->port->read(env->port->ctx, addr, size, e, f);
}

static inline bool entry_write(const struct paging_env *env, uint64_t addr, unsigned size,
			       uint64_t e, struct fault *f)
{
	if (__builtin_expect(env->port == NULL, 1)) {
		physmem_write(env->mem, addr, size, e);
		return true;
	}
	return env->port->write(env->port->ctx, addr, size, e, f);
}

static uint32_t fault_code(const struct paging_env *env, enum walk_kind kind, unsigned flags,
			   bool present)
{
	uint32_t ec = present ? PFEC_P : 0;
	if (kind == WALK_WRITE)
		ec |= PFEC_W;
	if (flags & WALK_USER)
		ec |= PFEC_U;
	/* SDM Vol.3 4.7: I/D is set for fetches only with SMEP, or with NXE under
	 * PAE/4-level paging. */
	if (kind == WALK_EXEC && (env->smep || (env->nxe && env->mode != PAGING_32)))
		ec |= PFEC_I;
	return ec;
}

/* The kinds of access (1 << WALK_*) that a translation with these combined
 * rights allows, for an access with flags. SDM Vol.3 4.6.1. */
static inline unsigned x86_allowed(const struct paging_env *env, unsigned flags, bool rw, bool us,
				   bool xd)
{
	const unsigned R = 1u << WALK_READ, W = 1u << WALK_WRITE, X = 1u << WALK_EXEC;
	if (flags & WALK_USER) {
		/* User mode: user pages only; writes need R/W, fetches XD=0. */
		if (!us)
			return 0;
		return R | (rw ? W : 0) | (xd ? 0 : X);
	}
	/* Supervisor fetches: XD=0, and not from a user page under SMEP. */
	unsigned allowed = xd || (env->smep && us) ? 0 : X;
	/* Supervisor data access to a user page under SMAP: implicit accesses never,
	 * explicit ones only with EFLAGS.AC = 1. */
	if (us && env->smap && ((flags & WALK_IMPLICIT) || !env->ac))
		return allowed;
	/* Supervisor writes to read-only pages only with CR0.WP = 0. */
	return allowed | R | (rw || !env->wp ? W : 0);
}

/* The same for EPT, whose entries ANDed give `granted`. SDM Vol.3 28.2.3.2:
 * reads need R, writes W, fetches X; with mode-based execute control a fetch
 * from a user-mode linear address needs UX (bit 10) instead of X. */
static inline unsigned ept_allowed(const struct paging_env *env, unsigned flags, uint64_t granted)
{
	uint64_t x = env->ept_mbec && (flags & WALK_USER) ? EPT_UX : EPT_X;
	return (granted & EPT_R ? 1u << WALK_READ : 0) | (granted & EPT_W ? 1u << WALK_WRITE : 0) |
	       (granted & x ? 1u << WALK_EXEC : 0);
}

enum walk_failure { FAIL_NOT_PRESENT, FAIL_RESERVED, FAIL_RIGHTS, FAIL_MISCONFIG };

/* Builds *f for a walk that stopped: a #PF for a stage-1 walk; a stage-2 record
 * for a nested (NPT) or EPT walk, with the rights of the entries read so far
 * (granted: ANDed, with the failing entry; denied: ORed). Returns false. */
static __attribute__((cold, noinline)) bool
walk_fail(const struct paging_env *env, bool ept, uint64_t addr, enum walk_kind kind,
	  unsigned flags, enum walk_failure why, uint64_t granted, uint64_t denied,
	  struct fault *f)
{
	bool present = why != FAIL_NOT_PRESENT;
	uint32_t code = ept ? 0 : fault_code(env, kind, flags, present) |
				  (why == FAIL_RESERVED ? PFEC_RSVD : 0);
	if (!ept && !env->nested) {
		*f = fault_make(EXC_PF, code);
		f->address = addr;
		return false;
	}
	*f = (struct fault){ .error_code = code, .address = addr, .stage = FAULT_STAGE2 };
	struct fault_nested *n = &f->nested;
	n->gpa = addr;
	n->ept = ept;
	n->misconfig = why == FAIL_MISCONFIG;
	n->rsvd = why == FAIL_RESERVED;
	n->access = kind == WALK_READ ? S2_ACC_READ : kind == WALK_WRITE ? S2_ACC_WRITE : S2_ACC_FETCH;
	if (ept) {
		/* SDM Table 27-7 bits 3-6: the AND over the entries used. */
		n->rights = (uint8_t)(granted & (EPT_R | EPT_W | EPT_X));
		if (env->ept_mbec && (granted & EPT_UX))
			n->rights |= S2_RIGHT_UX;
	} else {
		n->rights = (present ? S2_RIGHT_P : 0) | ((granted & PTE_RW) ? S2_RIGHT_RW : 0) |
			    ((granted & PTE_US) ? S2_RIGHT_US : 0) |
			    ((env->nxe && (denied & PTE_XD)) ? S2_RIGHT_NX : 0);
	}
	return false;
}

/* 32-bit paging, 4 MiB PDE (SDM 4.3, Table 4-5): PA bits 39:32 sit in bits 20:13;
 * bit 21 and the bits of 20:13 at or above MAXPHYADDR (capped at 40) are reserved. */
static inline uint64_t pse36_reserved(unsigned m)
{
	unsigned m40 = m < 40 ? m : 40;
	return (1ull << 21) | (m40 < 40 ? bits(20, m40 - 32 + 13) : 0);
}

/* The walk, for one entry kind (inlined twice, so ept is a constant). */
static inline __attribute__((always_inline)) bool
walk(const struct paging_env *env, const bool ept, uint64_t addr, enum walk_kind kind,
     unsigned flags, struct walk_result *r, struct fault *f)
{
	const struct pt_format *fmt = paging_format(env->mode);
	const unsigned m = env->maxphyaddr, es = fmt->entry_size, n = fmt->levels;
	const uint64_t addr_mask = es == 4 ? 0xfffff000u : bits(m - 1, 12);
	const uint64_t xd_rsvd = env->nxe ? 0 : PTE_XD;
	unsigned gates = LARGE_ALWAYS;
	if (ept) {
		gates |= (env->ept_caps & EPT_CAP_2M ? LARGE_EPT_2M : 0) |
			 (env->ept_caps & EPT_CAP_1G ? LARGE_EPT_1G : 0);
	} else {
		gates |= (env->pse ? LARGE_PSE : 0) | (env->gbpages ? LARGE_1G : 0);
		if (env->nested)           /* APM2 15.25.5: nested accesses are user accesses */
			flags = WALK_USER | (flags & WALK_PEEK);
	}
	const uint64_t present_bits = ept ? EPT_R | EPT_W | EPT_X | (env->ept_mbec ? EPT_UX : 0) : PTE_P;
	/* PS where no page may be mapped is reserved, except that 32-bit paging
	 * ignores it without CR4.PSE (SDM 4.3, 4.5; EPT 28.2.2). */
	const unsigned ps_reserved_gates = ~gates & ~(unsigned)LARGE_PSE;
	const uint64_t rsvd_high = above(fmt->rsvd_top, m);

	/* Read and check every level; nothing is written until the access is known
	 * to be allowed (SDM 4.8: A/D are set only for a translation that is used). */
	uint64_t table = env->cr3 & fmt->root_mask & bits(m - 1, 0);
	uint64_t granted = ~0ull, denied = 0, page_size = 0;
	r->levels = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct pt_level *lv = &fmt->level[i];
		uint64_t idx = (addr >> lv->shift) & lv->index_mask;
		uint64_t ea = table + idx * es, e;
		if ((lv->flags & LV_PDPT) && env->pdpte)
			e = env->pdpte[idx];       /* SDM 4.4.1: the PDPTE registers */
		else if (!entry_read(env, ea, es, &e, f))
			return false;              /* the port faulted (stage 2) */
		r->entry[i] = e;
		r->entry_addr[i] = ea;
		r->levels = i + 1;
		granted &= e | lv->no_rights;
		denied |= e;
		if (!(e & present_bits))
			return walk_fail(env, ept, addr, kind, flags, FAIL_NOT_PRESENT, granted, denied, f);
		/* SDM 28.2.3.1: write without read (010b, 110b) is a misconfiguration;
		 * so is execute-only (R=W=0) unless EPT_VPID_CAP bit 0 allows it. */
		if (ept && ((e & (EPT_R | EPT_W)) == EPT_W ||
			    (!(e & (EPT_R | EPT_W)) && !(env->ept_caps & EPT_CAP_EXEC_ONLY))))
			return walk_fail(env, ept, addr, kind, flags, FAIL_MISCONFIG, granted, denied, f);
		bool large_ok = lv->large & gates;
		bool large = large_ok && (e & PTE_PS);
		uint64_t rsvd = (large ? lv->rsvd_large : lv->rsvd) | rsvd_high;
		if (lv->flags & LV_XD)
			rsvd |= xd_rsvd;
		if ((lv->flags & LV_AMD_BIT8) && env->amd)
			rsvd |= PTE_G;
		if (large && (lv->flags & LV_PSE36))
			rsvd |= pse36_reserved(m);
		if (lv->large & ps_reserved_gates)
			rsvd |= PTE_PS;
		if ((e & rsvd) && !(ept && large && env->ept_large_offset_ignored &&
				    !(e & rsvd & ~bits(lv->shift - 1, 12))))
			return walk_fail(env, ept, addr, kind, flags, ept ? FAIL_MISCONFIG : FAIL_RESERVED,
					 granted, denied, f);
		if (large || i + 1 == n) {
			/* SDM 28.2.3.1: memory types 2, 3 and 7 in the leaf are reserved. */
			unsigned mt = (unsigned)(e >> EPT_MEMTYPE_SHIFT) & 7;
			if (ept && (mt == 2 || mt == 3 || mt == 7))
				return walk_fail(env, ept, addr, kind, flags, FAIL_MISCONFIG, granted,
						 denied, f);
			page_size = 1ull << lv->shift;
			break;
		}
		table = e & addr_mask;
	}

	bool rw = granted & PTE_RW, us = granted & PTE_US, xd = env->nxe && (denied & PTE_XD);
	unsigned allowed = ept ? ept_allowed(env, flags, granted) : x86_allowed(env, flags, rw, us, xd);
	if (!(allowed & (1u << kind)))
		return walk_fail(env, ept, addr, kind, flags, FAIL_RIGHTS, granted, denied, f);

	/* A peek is no access (SDM 4.8: the flags are set "as part of" one): it
	 * writes nothing, and what it found is for no TLB. */
	const bool peek = flags & WALK_PEEK;
	if (peek)
		allowed = 0;
	/* Set A in every entry used, and D in the leaf for a write (SDM 4.8; EPT:
	 * bits 8/9 only when EPTP bit 6 enables them, SDM 28.2.4). */
	const bool ad = !ept || (env->cr3 & EPTP_AD_ENABLE);
	const uint64_t a_bit = ept ? EPT_A : PTE_A, d_bit = ept ? EPT_D : PTE_D;
	unsigned leaf_slot = r->levels - 1;
	/* SDM 28.2.5: a write about to set an EPT dirty flag 0 -> 1 is logged
	 * first; with the log full no flag is set and the access does not occur
	 * (a page-modification log-full event, the hypervisor's). */
	if (ept && ad && !peek && kind == WALK_WRITE && env->dirty_log && !(r->entry[leaf_slot] & EPT_D) &&
	    !env->dirty_log->log(env->dirty_log->ctx, addr & ~0xfffull)) {
		*f = (struct fault){ .address = addr, .stage = FAULT_STAGE2 };
		f->nested = (struct fault_nested){ .gpa = addr, .ept = true, .pml_full = true,
						   .access = S2_ACC_WRITE };
		return false;
	}
	for (unsigned s = 0; ad && !peek && s <= leaf_slot; s++) {
		if (!ept && !(fmt->level[s].flags & LV_A))
			continue;                  /* the PAE PDPTE has no accessed flag */
		uint64_t e = r->entry[s];
		uint64_t want = e | a_bit;
		if (s == leaf_slot && kind == WALK_WRITE)
			want |= d_bit;
		if (want != e) {
			if (!entry_write(env, r->entry_addr[s], es, want, f))
				return false;
			r->entry[s] = want;
		}
	}
	uint64_t leaf = r->entry[leaf_slot];

	uint64_t base;
	if (es == 4) {
		base = leaf & 0xfffff000u;
		if (page_size == (1ull << 22))  /* PSE-36: PA 39:32 from PDE 20:13 */
			base = (leaf & 0xffc00000u) | (((leaf >> 13) & 0xff) << 32);
	} else {
		base = leaf & addr_mask & ~(page_size - 1);
	}
	r->pa = base | (addr & (page_size - 1));
	r->page_size = page_size;
	if (ept) {
		r->global = false;
		r->user = r->writable = r->nx = false;
		r->ept_memtype = (uint8_t)((leaf >> EPT_MEMTYPE_SHIFT) & 7);
		r->ept_ipat = leaf & EPT_IPAT;
		r->can_read = allowed & (1u << WALK_READ);
		r->can_write = (allowed & (1u << WALK_WRITE)) && (!ad || (leaf & EPT_D));
		r->can_exec = allowed & (1u << WALK_EXEC);
		return true;
	}
	r->global = env->pge && (leaf & PTE_G);
	r->user = us;
	r->writable = rw;
	r->nx = xd;
	r->ept_memtype = 0;
	r->ept_ipat = false;
	r->can_read = allowed & (1u << WALK_READ);
	r->can_write = (allowed & (1u << WALK_WRITE)) && (leaf & PTE_D);
	r->can_exec = allowed & (1u << WALK_EXEC);
	if (!(flags & WALK_USER) && us && env->smap)
		r->can_read = r->can_write = false;   /* depends on EFLAGS.AC: never cached */
	return true;
}

bool paging_walk(const struct paging_env *env, uint64_t addr, enum walk_kind kind,
		 unsigned flags, struct walk_result *r, struct fault *f)
{
	switch (env->mode) {
	case PAGING_32:
	case PAGING_PAE:
	case PAGING_4LEVEL:
	case PAGING_5LEVEL:
		return walk(env, false, addr, kind, flags, r, f);
	case PAGING_EPT4:
	case PAGING_EPT5:
		return walk(env, true, addr, kind, flags, r, f);
	default:
		*r = (struct walk_result){ .pa = addr, .page_size = 1ull << 12, .can_read = true,
					   .can_write = true, .can_exec = true };
		return true;
	}
}

enum pdpte_load paging_load_pdptes_port(struct physmem *mem, const struct mem_port *port,
					uint64_t cr3, unsigned maxphyaddr, uint64_t pdpte[4],
					struct fault *f)
{
	/* SDM 4.4.1: reserved are bits 2:1, 8:5 and 63:MAXPHYADDR of a present PDPTE. */
	uint64_t rsvd = bits(2, 1) | bits(8, 5) | bits(63, maxphyaddr);
	uint64_t tmp[4];
	for (unsigned i = 0; i < 4; i++) {
		uint64_t addr = (cr3 & 0xffffffe0u) + i * 8;
		if (!port)
			tmp[i] = physmem_read(mem, addr, 8);
		else if (!port->read(port->ctx, addr, 8, &tmp[i], f))
			return PDPTE_FAULT;
	}
	for (unsigned i = 0; i < 4; i++)
		if ((tmp[i] & PTE_P) && (tmp[i] & rsvd))
			return PDPTE_RESERVED;
	for (unsigned i = 0; i < 4; i++)
		pdpte[i] = tmp[i];
	return PDPTE_LOADED;
}

bool paging_load_pdptes(struct physmem *mem, uint64_t cr3, unsigned maxphyaddr, uint64_t pdpte[4])
{
	return paging_load_pdptes_port(mem, NULL, cr3, maxphyaddr, pdpte, NULL) == PDPTE_LOADED;
}
