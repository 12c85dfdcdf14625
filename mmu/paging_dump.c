/* Page-table dump (see paging_dump.h). Reads the tables through the physmem
 * slow path, so any CR3 value, cycle or garbage is safe: every table is 4 KiB
 * and the walk is bounded by the paging mode's depth. */
#include <inttypes.h>

#include "mmu/paging_dump.h"
#include "mmu/paging_formats.h"

/* Garbage tables can describe millions of ranges: stop printing after this. */
#define DUMP_MAX_LINES 4096

struct run {
	bool open;
	unsigned lines;            /* printed so far */
	uint64_t lin, pa, len;
	uint64_t rights;           /* PTE_RW | PTE_US | PTE_XD, combined over the levels */
	uint64_t page_size;
};

static void run_flush(struct run *r, FILE *out)
{
	if (!r->open)
		return;
	r->open = false;
	if (++r->lines > DUMP_MAX_LINES) {
		if (r->lines == DUMP_MAX_LINES + 1)
			fprintf(out, "  ... (more than %u ranges: rest not shown)\n", DUMP_MAX_LINES);
		return;
	}
	fprintf(out, "  lin 0x%08" PRIx64 "-0x%08" PRIx64 " -> phys 0x%010" PRIx64 "  %s %s%s%s (%" PRIu64 " x %" PRIu64 " KiB)\n",
		r->lin, r->lin + r->len - 1, r->pa,
		(r->rights & PTE_RW) ? "RW" : "RO", (r->rights & PTE_US) ? "user" : "supervisor",
		(r->rights & PTE_XD) ? " NX" : "", (r->rights & PTE_G) ? " G" : "",
		r->len / r->page_size, r->page_size >> 10);
}

static void run_add(struct run *r, uint64_t lin, uint64_t pa, uint64_t size, uint64_t rights,
		    FILE *out)
{
	if (r->open && r->lin + r->len == lin && r->pa + r->len == pa && r->rights == rights &&
	    r->page_size == size) {
		r->len += size;
		return;
	}
	run_flush(r, out);
	*r = (struct run){ .open = true, .lines = r->lines, .lin = lin, .pa = pa, .len = size,
			   .rights = rights, .page_size = size };
}

struct dump_ctx {
	const struct paging_env *env;
	FILE *out;
	struct run run;
	unsigned esize;            /* 4 or 8 bytes per entry */
	uint64_t addr_mask;
};

/* Walk one table at phys whose entries translate bits [shift, shift+9/10). */
static void dump_table(struct dump_ctx *c, uint64_t table, unsigned level, unsigned levels,
		       unsigned shift, uint64_t lin_base, uint64_t rights)
{
	unsigned entries = c->esize == 4 ? 1024 : 512;
	for (unsigned i = 0; i < entries && c->run.lines <= DUMP_MAX_LINES; i++) {
		uint64_t e = physmem_read(c->env->mem, table + (uint64_t)i * c->esize, c->esize);
		if (!(e & PTE_P))
			continue;
		uint64_t lin = lin_base + ((uint64_t)i << shift);
		/* 4- and 5-level: sign-extend the linear address from bit 47 / 56. */
		if (c->env->mode == PAGING_4LEVEL && (lin >> 47) & 1)
			lin |= ~((1ull << 48) - 1);
		if (c->env->mode == PAGING_5LEVEL && (lin >> 56) & 1)
			lin |= ~((1ull << 57) - 1);
		uint64_t r = (rights & e & (PTE_RW | PTE_US)) | ((rights | e) & PTE_XD & (c->env->nxe ? PTE_XD : 0));
		bool last = level + 1 == levels;
		bool large = !last && (e & PTE_PS) && shift <= 30 &&
			     (c->env->mode != PAGING_32 || c->env->pse);
		if (last || large) {
			uint64_t pa = c->esize == 4 ? (e & 0xfffff000u) : (e & c->addr_mask);
			if (large && c->esize == 4)
				pa = (e & 0xffc00000u) | (((e >> 13) & 0xff) << 32);
			else if (large)
				pa &= ~((1ull << shift) - 1);
			if (c->env->pge && (e & PTE_G))
				r |= PTE_G;
			run_add(&c->run, lin, pa, 1ull << shift, r, c->out);
			continue;
		}
		uint64_t next = c->esize == 4 ? (e & 0xfffff000u) : (e & c->addr_mask);
		dump_table(c, next, level + 1, levels, shift - (c->esize == 4 ? 10 : 9), lin, r);
	}
}

void paging_dump(const struct paging_env *env, FILE *out)
{
	struct dump_ctx c = { .env = env, .out = out };
	unsigned m = env->maxphyaddr ? env->maxphyaddr : 36;
	c.addr_mask = ((m >= 64 ? ~0ull : (1ull << m) - 1)) & ~0xfffull;

	fprintf(out, "page tables: CR3=0x%" PRIx64 " paging %s\n", env->cr3,
		env->mode == PAGING_OFF ? "off" : paging_format(env->mode)->name);
	switch (env->mode) {
	case PAGING_32:
		c.esize = 4;
		dump_table(&c, env->cr3 & 0xfffff000u, 0, 2, 22, 0, PTE_RW | PTE_US);
		break;
	case PAGING_PAE:
		c.esize = 8;
		for (unsigned i = 0; i < 4; i++) {
			/* No PDPTE registers (AMD nested tables): the PDPT in memory. */
			uint64_t pdpte = env->pdpte ? env->pdpte[i] :
				physmem_read(env->mem, (env->cr3 & 0xffffffe0u) + i * 8, 8);
			fprintf(out, " PDPTE%u 0x%016" PRIx64 "\n", i, pdpte);
			if (pdpte & PTE_P)
				dump_table(&c, pdpte & c.addr_mask, 0, 2, 21, (uint64_t)i << 30,
					   PTE_RW | PTE_US);
		}
		break;
	case PAGING_4LEVEL:
		c.esize = 8;
		dump_table(&c, env->cr3 & c.addr_mask, 0, 4, 39, 0, PTE_RW | PTE_US);
		break;
	case PAGING_5LEVEL:
		c.esize = 8;
		dump_table(&c, env->cr3 & c.addr_mask, 0, 5, 48, 0, PTE_RW | PTE_US);
		break;
	case PAGING_OFF:
		fprintf(out, "  (paging disabled: linear = physical)\n");
		return;
	default:
		fprintf(out, "  (EPT tables are not dumped)\n");
		return;
	}
	run_flush(&c.run, out);
}
