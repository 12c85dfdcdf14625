/* The page walker (see paging.h). SDM Vol.3 4.3 (32-bit), 4.4 (PAE), 4.5 (4- and
 * 5-level), 4.6 (access rights), 4.7 (#PF error code), 4.8 (accessed and dirty
 * flags). */
#include <string.h>

#include "mmu/paging.h"
#include "mmu/x86.h"

static inline uint64_t bits(unsigned hi, unsigned lo)
{
	return ((hi >= 63 ? ~0ull : (1ull << (hi + 1)) - 1)) & ~((1ull << lo) - 1);
}

/* Page-table entries live in RAM almost always: read them directly; anything
 * else (MMIO, unclaimed: all ones) through the bus. */
static inline uint64_t read_entry(struct physmem *mem, uint64_t addr, unsigned size)
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

/* Address bits of a table/page base in an 8-byte entry: 51:12 limited to MAXPHYADDR. */
static inline uint64_t addr_mask(unsigned maxphyaddr)
{
	return bits(maxphyaddr - 1, 12);
}

struct level {
	unsigned shift;            /* lowest linear-address bit this level translates */
	uint64_t rsvd;             /* reserved bits of a non-leaf (or 4 KiB leaf) entry */
	uint64_t rsvd_large;       /* reserved bits when PS=1 (leaf) */
	bool large_ok;             /* PS=1 maps a page here */
};

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

/* May an access of kind (with flags) use a translation with these combined rights?
 * SDM Vol.3 4.6.1. */
static bool access_allowed(const struct paging_env *env, enum walk_kind kind, unsigned flags,
			   bool rw, bool us, bool xd)
{
	if (flags & WALK_USER) {
		if (!us)
			return false;
		if (kind == WALK_WRITE && !rw)
			return false;
		if (kind == WALK_EXEC && xd)
			return false;
		return true;
	}
	if (kind == WALK_EXEC)
		return !xd && !(env->smep && us);
	/* Supervisor data access to a user page under SMAP: implicit accesses never,
	 * explicit ones only with EFLAGS.AC = 1. */
	if (us && env->smap && ((flags & WALK_IMPLICIT) || !env->ac))
		return false;
	if (kind == WALK_WRITE && !rw && env->wp)
		return false;
	return true;
}

bool paging_walk(const struct paging_env *env, uint64_t lin, enum walk_kind kind,
		 unsigned flags, struct walk_result *r, struct fault *f)
{
	unsigned m = env->maxphyaddr;
	uint64_t xd_rsvd = env->nxe ? 0 : PTE_XD;
	struct level lv[5];
	unsigned nlevels, esize;
	uint64_t table;

	r->levels = 0;
	switch (env->mode) {
	case PAGING_32: {
		/* SDM 4.3, Table 4-5: a 4 MiB PDE holds PA bits 39:32 in bits 20:13;
		 * bit 21 and bits 20:(M-32+13) above MAXPHYADDR are reserved. */
		unsigned m40 = m < 40 ? m : 40;
		esize = 4;
		nlevels = 2;
		lv[0] = (struct level){ .shift = 22, .rsvd = 0, .large_ok = env->pse,
					.rsvd_large = (1ull << 21) | bits(20, m40 - 32 + 13) };
		if (m40 == 40)
			lv[0].rsvd_large = 1ull << 21;
		lv[1] = (struct level){ .shift = 12, .rsvd = 0 };
		table = env->cr3 & 0xfffff000u;
		break;
	}
	case PAGING_PAE: {
		/* SDM 4.4.2, Tables 4-8..4-11: bits 62:M reserved; 63 unless NXE. */
		uint64_t rsvd = bits(62, m) | xd_rsvd;
		unsigned i = (unsigned)((lin >> 30) & 3);
		uint64_t pdpte = env->pdpte[i];
		esize = 8;
		nlevels = 2;
		r->entry[0] = pdpte;
		r->entry_addr[0] = (env->cr3 & 0xffffffe0u) + i * 8;
		r->levels = 1;
		if (!(pdpte & PTE_P)) {
			*f = fault_make(EXC_PF, fault_code(env, kind, flags, false));
			f->address = lin;
			return false;
		}
		lv[0] = (struct level){ .shift = 21, .rsvd = rsvd, .large_ok = true,
					.rsvd_large = rsvd | bits(20, 13) };
		lv[1] = (struct level){ .shift = 12, .rsvd = rsvd };
		table = pdpte & addr_mask(m);
		break;
	}
	case PAGING_4LEVEL:
	case PAGING_5LEVEL: {
		/* SDM 4.5, Tables 4-14..4-20: bits 51:M reserved; PS reserved in PML5E/
		 * PML4E; 1 GiB pages only if supported. */
		uint64_t rsvd = bits(51, m) | xd_rsvd;
		unsigned i = 0;
		esize = 8;
		nlevels = env->mode == PAGING_5LEVEL ? 5 : 4;
		if (nlevels == 5)
			lv[i++] = (struct level){ .shift = 48, .rsvd = rsvd | PTE_PS };
		lv[i++] = (struct level){ .shift = 39, .rsvd = rsvd | PTE_PS };
		lv[i++] = (struct level){ .shift = 30, .rsvd = rsvd, .large_ok = env->gbpages,
					  .rsvd_large = rsvd | bits(29, 13) };
		if (!env->gbpages)
			lv[i - 1].rsvd |= PTE_PS;
		lv[i++] = (struct level){ .shift = 21, .rsvd = rsvd, .large_ok = true,
					  .rsvd_large = rsvd | bits(20, 13) };
		lv[i++] = (struct level){ .shift = 12, .rsvd = rsvd };
		table = env->cr3 & addr_mask(m);
		break;
	}
	default:
		r->pa = lin;
		r->page_size = 1ull << 12;
		r->global = false;
		r->can_read = r->can_write = r->can_exec = true;
		return true;
	}

	/* Read and check every level; nothing is written until the access is known
	 * to be allowed (SDM 4.8: A/D are set only for a translation that is used). */
	bool rw = true, us = true, xd = false;
	unsigned first = r->levels;
	uint64_t leaf = 0, page_size = 0;
	for (unsigned i = 0; i < nlevels; i++) {
		unsigned idx_bits = esize == 4 ? 10 : 9;
		uint64_t idx = (lin >> lv[i].shift) & ((1u << idx_bits) - 1);
		uint64_t addr = table + idx * esize;
		uint64_t e = read_entry(env->mem, addr, esize);
		unsigned slot = first + i;
		r->entry[slot] = e;
		r->entry_addr[slot] = addr;
		r->levels = slot + 1;
		if (!(e & PTE_P)) {
			*f = fault_make(EXC_PF, fault_code(env, kind, flags, false));
			f->address = lin;
			return false;
		}
		bool large = lv[i].large_ok && (e & PTE_PS) && i + 1 < nlevels;
		uint64_t rsvd = large ? lv[i].rsvd_large : lv[i].rsvd;
		if (e & rsvd) {
			*f = fault_make(EXC_PF, fault_code(env, kind, flags, true) | PFEC_RSVD);
			f->address = lin;
			return false;
		}
		rw = rw && (e & PTE_RW);
		us = us && (e & PTE_US);
		xd = xd || (env->nxe && (e & PTE_XD));
		if (large || i + 1 == nlevels) {
			leaf = e;
			page_size = 1ull << lv[i].shift;
			break;
		}
		table = esize == 4 ? (e & 0xfffff000u) : (e & addr_mask(m));
	}

	if (!access_allowed(env, kind, flags, rw, us, xd)) {
		*f = fault_make(EXC_PF, fault_code(env, kind, flags, true));
		f->address = lin;
		return false;
	}

	/* Set A in every entry used, and D in the leaf for a write (SDM 4.8). */
	for (unsigned s = first; s < r->levels; s++) {
		uint64_t e = r->entry[s];
		uint64_t want = e | PTE_A;
		if (s + 1 == r->levels && kind == WALK_WRITE)
			want |= PTE_D;
		if (want != e) {
			physmem_write(env->mem, r->entry_addr[s], esize, want);
			r->entry[s] = want;
		}
	}
	leaf = r->entry[r->levels - 1];

	uint64_t base;
	if (esize == 4) {
		base = leaf & 0xfffff000u;
		if (page_size == (1ull << 22))  /* PSE-36: PA 39:32 from PDE 20:13 */
			base = (leaf & 0xffc00000u) | (((leaf >> 13) & 0xff) << 32);
	} else {
		base = leaf & addr_mask(m) & ~(page_size - 1);
	}
	r->pa = base | (lin & (page_size - 1));
	r->page_size = page_size;
	r->global = env->pge && (leaf & PTE_G);
	r->can_read = access_allowed(env, WALK_READ, flags, rw, us, xd);
	r->can_write = access_allowed(env, WALK_WRITE, flags, rw, us, xd) && (leaf & PTE_D);
	r->can_exec = access_allowed(env, WALK_EXEC, flags, rw, us, xd);
	if (!(flags & WALK_USER) && us && env->smap)
		r->can_read = r->can_write = false;   /* depends on EFLAGS.AC: never cached */
	return true;
}

bool paging_load_pdptes(struct physmem *mem, uint64_t cr3, unsigned maxphyaddr, uint64_t pdpte[4])
{
	/* SDM 4.4.1: reserved are bits 2:1, 8:5 and 63:MAXPHYADDR of a present PDPTE. */
	uint64_t rsvd = bits(2, 1) | bits(8, 5) | bits(63, maxphyaddr);
	uint64_t tmp[4];
	for (unsigned i = 0; i < 4; i++) {
		tmp[i] = physmem_read(mem, (cr3 & 0xffffffe0u) + i * 8, 8);
		if ((tmp[i] & PTE_P) && (tmp[i] & rsvd))
			return false;
	}
	for (unsigned i = 0; i < 4; i++)
		pdpte[i] = tmp[i];
	return true;
}
