/* The code pages block links lead into (see link_pages.h). */
#include <string.h>

#include "emu/cpu.h"
#include "emu/icache.h"
#include "emu/link_pages.h"
#include "emu/paging_env.h"
#include "mmu/paging.h"
#include "mmu/paging_formats.h"

static struct link_pages_env env_now(const struct cpu *cpu)
{
	struct link_pages_env v;
	memset(&v, 0, sizeof(v));  /* compared whole, padding too */
	struct paging_env p = cpu_paging_env(cpu);
	v.cr3 = p.cr3;
	v.a20_mask = cpu->a20_mask;
	if (p.mode == PAGING_PAE && p.pdpte)
		memcpy(v.pdpte, p.pdpte, sizeof(v.pdpte));
	v.mode = p.mode;
	v.maxphyaddr = p.maxphyaddr;
	v.pse = p.pse;
	v.nxe = p.nxe;
	v.smep = p.smep;
	v.gbpages = p.gbpages;
	v.amd = p.amd;
	return v;
}

static unsigned bank_of(const struct link_page *pg)
{
	return pg->key & LINK_PAGE_USER;
}

static unsigned slot_of(uint64_t key)
{
	return (unsigned)(((key >> PAGE_SHIFT) * 0x9e3779b97f4a7c15ull) >> 40) & (LINK_PAGES_SLOTS - 1);
}

/* The slot holding key, or the empty one where it would go. */
static unsigned find(const struct link_pages *lp, uint64_t key)
{
	unsigned h = slot_of(key);
	while (lp->page[h].key && lp->page[h].key != key)
		h = (h + 1) & (LINK_PAGES_SLOTS - 1);
	return h;
}

/* Keep the notes of the banks in keep[] only (the table rebuilt: open
 * addressing has no removal). */
static void keep_banks(struct link_pages *lp, const bool keep[2])
{
	if (keep[0] && keep[1])
		return;
	static _Thread_local struct link_page kept[LINK_PAGES_MAX];
	unsigned n = 0;
	for (unsigned k = 0; k < lp->n; k++) {
		struct link_page *pg = &lp->page[lp->used[k]];
		if (keep[bank_of(pg)])
			kept[n++] = *pg;
		pg->key = 0;
	}
	lp->n = 0;
	for (unsigned k = 0; k < n; k++) {
		unsigned h = find(lp, kept[k].key);
		lp->page[h] = kept[k];
		lp->used[lp->n++] = (uint16_t)h;
	}
	for (unsigned b = 0; b < 2; b++)
		lp->lost[b] = lp->lost[b] && keep[b];
}

/* Is level i of a walk in this mode the PAE PDPTE, a register rather than
 * an entry in memory (SDM Vol.3 4.4.1; the environment holds it)? */
static bool level_is_register(unsigned mode, unsigned i)
{
	return paging_format((enum paging_mode)mode)->level[i].flags & LV_PDPT;
}

/* Walk pg's page as a fetch of its bank would, without side effects, and
 * record the entries read: false where the walk cannot vouch for a link to
 * its frame (a fault, another frame, an entry outside RAM or one whose
 * accessed flag a real walk would still have to set, SDM Vol.3 4.8). */
static bool walk_page(struct cpu *cpu, struct link_page *pg)
{
	const uint64_t lin = pg->key & PAGE_MASK;
	if (cpu->stage2_on)
		return false;              /* a nested walk's entries are not all in RAM */
	struct paging_env env = cpu_paging_env(cpu);
	if (env.mode == PAGING_OFF) {
		pg->levels = 0;
		return ((lin & cpu->a20_mask) ^ pg->frame) >> PAGE_SHIFT == 0;
	}
	struct walk_result r;
	struct fault f;
	/* SDM Vol.3 4.6: a fetch at CPL 3 is a user-mode access. */
	if (!paging_walk(&env, lin, WALK_EXEC, WALK_PEEK | (bank_of(pg) ? WALK_USER : 0), &r, &f))
		return false;
	if (((r.pa & cpu->a20_mask) ^ pg->frame) >> PAGE_SHIFT != 0 || r.levels > LINK_PAGES_LEVELS)
		return false;
	const unsigned size = paging_format(env.mode)->entry_size;
	pg->levels = (uint8_t)r.levels;
	for (unsigned i = 0; i < r.levels; i++) {
		pg->entry[i] = r.entry[i];
		pg->entry_addr[i] = r.entry_addr[i];
		if (level_is_register(env.mode, i))
			continue;
		if (!(r.entry[i] & PTE_A) || r.entry_addr[i] >= cpu->mem->ram_size ||
		    cpu->mem->ram_size - r.entry_addr[i] < size)
			return false;
	}
	return true;
}

/* Does pg's walk read the same entries as when it was recorded? In the same
 * environment that is the same walk. */
static bool same_entries(const struct cpu *cpu, const struct link_page *pg, const struct link_pages_env *v)
{
	const unsigned size = paging_format((enum paging_mode)v->mode)->entry_size;
	for (unsigned i = 0; i < pg->levels; i++)
		if (!level_is_register(v->mode, i) && physmem_read(cpu->mem, pg->entry_addr[i], size) != pg->entry[i])
			return false;
	return true;
}

void link_pages_note(struct cpu *cpu, uint64_t lin, uint64_t pa)
{
	struct link_pages *lp = &cpu->icache->link_pages;
	tlb_note_code(&cpu->tlb, lin);
	if (lp->epoch != cpu->tlb.epoch) {
		/* Not carried on (link_pages_carry had no say): none of the
		 * old notes count. */
		const bool none[2] = { false, false };
		keep_banks(lp, none);
		lp->epoch = cpu->tlb.epoch;
	}
	const unsigned bank = cpu->cpl == 3;
	if (lp->lost[bank])
		return;
	const uint64_t key = (lin & PAGE_MASK) | (bank ? LINK_PAGE_USER : 0) | LINK_PAGE_USED;
	const unsigned h = find(lp, key);
	struct link_page *pg = &lp->page[h];
	if (pg->key == key)
		return;
	struct link_pages_env now = env_now(cpu);
	if (lp->n == 0)
		lp->env = now;
	pg->frame = pa & PAGE_MASK;
	pg->key = key;
	if (lp->n >= LINK_PAGES_MAX || memcmp(&now, &lp->env, sizeof(now)) != 0 || !walk_page(cpu, pg)) {
		pg->key = 0;               /* still the end of its probe chain */
		lp->lost[bank] = true;
		return;
	}
	lp->used[lp->n++] = (uint16_t)h;
}

void link_pages_carry(struct cpu *cpu)
{
	struct link_pages *lp = &cpu->icache->link_pages;
	struct tlb *t = &cpu->tlb;
	if (lp->epoch == t->epoch)
		return;
	bool hold[2] = { !lp->lost[0], !lp->lost[1] };
	if (lp->n) {
		struct link_pages_env now = env_now(cpu);
		const bool same_env = memcmp(&now, &lp->env, sizeof(now)) == 0;
		for (unsigned k = 0; k < lp->n; k++) {
			struct link_page *pg = &lp->page[lp->used[k]];
			if (!hold[bank_of(pg)])
				continue;
			if (!(same_env ? same_entries(cpu, pg, &now) : walk_page(cpu, pg)))
				hold[bank_of(pg)] = false;
		}
		lp->env = now;
	}
	keep_banks(lp, hold);
	for (unsigned i = 0; i < sizeof(cpu->link_contexts) / sizeof(cpu->link_contexts[0]); i++) {
		struct link_context *c = &cpu->link_contexts[i];
		if (c->id && c->tlb_epoch == lp->epoch && hold[c->cpl == 3]) {
			c->tlb_epoch = t->epoch;
			lp->carried++;
		}
	}
	/* The TLB's filter of code pages (INVLPG's test) goes on with the
	 * notes it covers. */
	if ((hold[0] || hold[1]) && t->code_epoch == lp->epoch)
		t->code_epoch = t->epoch;
	lp->epoch = t->epoch;
}
