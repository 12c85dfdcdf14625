/* Observer watchpoints on data accesses: emu/access_watch.h. */
#include "emu/access_watch.h"
#include "emu/cpu.h"

void access_watch_attach(struct cpu *cpu, struct access_watch *w)
{
	cpu->access_watch = w && w->n ? w : NULL;
	tlb_flush_all(&cpu->tlb);
}

bool access_watch_page(const struct access_watch *w, uint64_t lin)
{
	for (unsigned i = 0; i < w->n; i++) {
		const struct access_watch_range *r = &w->range[i];
		uint64_t first = r->lin & PAGE_MASK, last = (r->lin + r->len - 1) & PAGE_MASK;
		if ((lin & PAGE_MASK) == first || (lin & PAGE_MASK) == last)
			return true;
	}
	return false;
}

void access_watch_check(struct access_watch *w, uint64_t lin, unsigned size, bool write)
{
	if (w->hit)
		return;
	unsigned kind = write ? ACCESS_WATCH_WRITE : ACCESS_WATCH_READ;
	for (unsigned i = 0; i < w->n; i++) {
		const struct access_watch_range *r = &w->range[i];
		/* [lin, lin + size) and [r->lin, r->lin + r->len) overlap. */
		if ((r->kinds & kind) && lin < r->lin + r->len && r->lin < lin + size) {
			w->hit = true;
			w->hit_range = i;
			w->hit_kind = kind;
			return;
		}
	}
}
