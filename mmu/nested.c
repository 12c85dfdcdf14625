/* Two-stage translation (see nested.h): the stage-2 memory port that the
 * guest's walk reads and writes its tables through, the nested walk, the
 * stage-2 environments and the EPTP check. The exit encodings are in
 * nested_exit.c. */
#include "mmu/nested.h"

static inline uint64_t bits(unsigned hi, unsigned lo)
{
	return ((hi >= 63 ? ~0ull : (1ull << (hi + 1)) - 1)) & ~((1ull << lo) - 1);
}

struct paging_env nested_npt_env(const struct paging_env *host, uint64_t ncr3)
{
	/* APM2 15.25.4/15.25.5: the host's paging mode and EFER.NXE/CR4.PSE at
	 * VMRUN; every nested access a user access (the walker forces it), so
	 * the host's CR4.SMEP denies nothing, but a fetch's #NPF reports ID with
	 * it as with EFER.NXE (APM2 8.4.2: I/D is set with NX or SMEP enabled).
	 * The nested tables are AMD's, with AMD's reserved bits. */
	return (struct paging_env){
		.mem = host->mem, .mode = host->mode, .cr3 = ncr3, .pse = host->pse,
		.nxe = host->nxe, .smep = host->smep, .gbpages = host->gbpages,
		.maxphyaddr = host->maxphyaddr, .pdpte = NULL, .nested = true, .amd = true,
	};
}

struct paging_env nested_ept_env(struct physmem *mem, uint64_t eptp, uint64_t ept_caps, bool mbec,
				 unsigned maxphyaddr)
{
	/* SDM 24.6.11: EPTP bits 5:3 = page-walk length - 1 (3 or 4). */
	unsigned length = (unsigned)((eptp & EPTP_WALK_MASK) >> EPTP_WALK_SHIFT) + 1;
	return (struct paging_env){
		.mem = mem, .mode = length == 5 ? PAGING_EPT5 : PAGING_EPT4, .cr3 = eptp,
		.maxphyaddr = maxphyaddr, .ept_caps = ept_caps, .ept_mbec = mbec,
	};
}

enum eptp_check ept_eptp_check(uint64_t eptp, uint64_t ept_caps, unsigned maxphyaddr)
{
	/* SDM 26.2.1.1 (VM-execution control fields), "if the enable EPT control
	 * is 1": the EPTP's memory type, page-walk length, A/D and shadow-stack
	 * enables must be supported (A.10), its reserved bits 0. */
	unsigned mt = (unsigned)(eptp & EPTP_MEMTYPE_MASK);
	if (!((mt == EPT_MT_UC && (ept_caps & EPT_CAP_UC)) || (mt == EPT_MT_WB && (ept_caps & EPT_CAP_WB))))
		return EPTP_BAD_MEMTYPE;
	unsigned walk = (unsigned)((eptp & EPTP_WALK_MASK) >> EPTP_WALK_SHIFT);
	if (!((walk == 3 && (ept_caps & EPT_CAP_WALK4)) || (walk == 4 && (ept_caps & EPT_CAP_WALK5))))
		return EPTP_BAD_WALK_LENGTH;
	if ((eptp & EPTP_AD_ENABLE) && !(ept_caps & EPT_CAP_AD))
		return EPTP_AD_UNSUPPORTED;
	if ((eptp & EPTP_SSS_ENABLE) && !(ept_caps & EPT_CAP_SSS))
		return EPTP_SSS_UNSUPPORTED;
	if (eptp & (bits(11, 8) | (maxphyaddr < 64 ? bits(63, maxphyaddr) : 0)))
		return EPTP_RESERVED_BITS;
	return EPTP_OK;
}

/* The port of a guest walk: each table entry address is a guest-physical
 * address, translated through stage 2 before memory is touched. */
struct stage2_port {
	struct mem_port port;
	const struct paging_env *host;
	uint64_t gla;
	bool gla_valid;
	/* The processor's accesses to guest paging-structure entries are writes
	 * as far as stage 2 is concerned (so they need W and set its dirty flag):
	 * always under NPT (APM2 15.25.5), with EPT A/D enabled under EPT (SDM
	 * 28.2.4); PDPTE loads by MOV to CR stay reads. */
	bool table_access_is_write;
	unsigned peek;             /* WALK_PEEK of the guest's walk, or 0 */
};

static bool is_ept(const struct paging_env *host)
{
	return host->mode == PAGING_EPT4 || host->mode == PAGING_EPT5;
}

static bool ept_ad_enabled(const struct paging_env *host)
{
	return is_ept(host) && (host->cr3 & EPTP_AD_ENABLE);
}

/* Host memory at a stage-2 output address: the host's own port (a deeper
 * nesting) or its RAM. */
static bool host_read(const struct paging_env *host, uint64_t pa, unsigned size, uint64_t *v,
		      struct fault *f)
{
	if (host->port)
		return host->port->read(host->port->ctx, pa, size, v, f);
	*v = physmem_read(host->mem, pa, size);
	return true;
}

static bool host_write(const struct paging_env *host, uint64_t pa, unsigned size, uint64_t v,
		       struct fault *f)
{
	if (host->port)
		return host->port->write(host->port->ctx, pa, size, v, f);
	physmem_write(host->mem, pa, size, v);
	return true;
}

/* Translate the guest-physical address of a guest paging-structure entry:
 * table reads are data reads and A/D updates data writes (APM2 15.25.5: as
 * user accesses on NPT, which the NPT walk forces). */
static bool stage2_entry(struct stage2_port *p, uint64_t gpa, bool write, uint64_t *pa,
			 struct fault *f)
{
	enum walk_kind kind = write || p->table_access_is_write ? WALK_WRITE : WALK_READ;
	struct walk_result r;
	if (!paging_walk(p->host, gpa, kind, p->peek, &r, f)) {
		f->nested.gla = p->gla;
		f->nested.gla_valid = p->gla_valid;
		f->nested.final = false;
		/* SDM Table 27-7, note to bit 1: such an access reported as a
		 * read and a write. */
		if (p->table_access_is_write)
			f->nested.access = S2_ACC_READ | S2_ACC_WRITE;
		return false;
	}
	*pa = r.pa;
	return true;
}

static bool stage2_read(void *ctx, uint64_t gpa, unsigned size, uint64_t *v, struct fault *f)
{
	struct stage2_port *p = ctx;
	uint64_t pa;
	return stage2_entry(p, gpa, false, &pa, f) && host_read(p->host, pa, size, v, f);
}

static bool stage2_write(void *ctx, uint64_t gpa, unsigned size, uint64_t v, struct fault *f)
{
	struct stage2_port *p = ctx;
	uint64_t pa;
	return stage2_entry(p, gpa, true, &pa, f) && host_write(p->host, pa, size, v, f);
}

static void stage2_port_init(struct stage2_port *p, const struct paging_env *host, uint64_t gla,
			     bool gla_valid, bool table_access_is_write, unsigned peek)
{
	*p = (struct stage2_port){
		.port = { .read = stage2_read, .write = stage2_write, .ctx = p },
		.host = host, .gla = gla, .gla_valid = gla_valid,
		.table_access_is_write = table_access_is_write, .peek = peek,
	};
}

bool nested_walk(const struct paging_env *guest, const struct paging_env *host, uint64_t lin,
		 enum walk_kind kind, unsigned flags, struct nested_result *r, struct fault *f)
{
	/* Stage 1: the guest's walk, its tables reached through stage 2. With the
	 * guest's paging off the linear address is the guest-physical one. */
	if (guest->mode == PAGING_OFF) {
		r->guest = (struct walk_result){ .pa = lin, .page_size = 1ull << 12, .can_read = true,
						 .can_write = true, .can_exec = true, .writable = true };
	} else {
		struct stage2_port port;
		/* APM2 15.25.5: the guest's page-table accesses are user writes for
		 * the nested walk (they may set A/D); SDM 28.2.4: EPT counts them as
		 * writes with EPT A/D on. */
		bool table_writes = !is_ept(host) || ept_ad_enabled(host);
		stage2_port_init(&port, host, lin, true, table_writes, flags & WALK_PEEK);
		struct paging_env g = *guest;
		g.port = &port.port;
		if (!paging_walk(&g, lin, kind, flags, &r->guest, f))
			return false;
	}

	/* Stage 2 of the final guest-physical address, for the access's own kind.
	 * SDM 28.2.3.2: under mode-based execute control a fetch needs UX if the
	 * linear address is a user-mode address (U/S=1 at every stage-1 level);
	 * hvemu counts a linear address as supervisor-mode while guest paging is
	 * off, and reports it writable and executable (Table 27-7 bits 9-11).
	 * A peek stays one at stage 2 (no A/D there either). */
	unsigned host_flags = (r->guest.user ? WALK_USER : 0) | (flags & WALK_PEEK);
	if (!paging_walk(host, r->guest.pa, kind, host_flags, &r->host, f)) {
		struct fault_nested *n = &f->nested;
		n->gla = lin;
		n->gla_valid = true;
		n->final = true;
		n->gla_user = r->guest.user;
		n->gla_writable = r->guest.writable;
		n->gla_nx = r->guest.nx;
		return false;
	}
	r->pa = r->host.pa;
	r->page_size = r->guest.page_size < r->host.page_size ? r->guest.page_size : r->host.page_size;
	r->can_read = r->guest.can_read && r->host.can_read;
	r->can_write = r->guest.can_write && r->host.can_write;
	r->can_exec = r->guest.can_exec && r->host.can_exec;
	return true;
}

enum pdpte_load nested_load_pdptes(const struct paging_env *host, uint64_t guest_cr3,
				   unsigned guest_maxphyaddr, uint64_t pdpte[4], struct fault *f)
{
	struct stage2_port port;
	stage2_port_init(&port, host, 0, false, false, 0);
	return paging_load_pdptes_port(host->mem, &port.port, guest_cr3, guest_maxphyaddr, pdpte, f);
}
