/* The side-effect-free code reader (see peek.h). The rules are the fetch's
 * (emu/fetch.c decode_at, emu/memory.c translate): only what it would write
 * (accessed/dirty flags, TLB entries) and raise is left out. */
#include <string.h>

#include "emu/canonical.h"
#include "emu/paging_env.h"
#include "emu/peek.h"
#include "mmu/nested.h"

/* As translate_nested() does, both stages under nested paging. */
bool cpu_peek_phys(struct cpu *cpu, uint64_t lin, enum walk_kind kind, unsigned flags, uint64_t *pa)
{
	struct paging_env env = cpu_paging_env(cpu);
	struct fault f;
	flags |= WALK_PEEK;
	if (cpu->stage2_on) {
		struct nested_result r;
		if (!nested_walk(&env, &cpu->stage2, lin, kind, flags, &r, &f))
			return false;
		*pa = r.pa;
		return true;
	}
	struct walk_result r;
	if (!paging_walk(&env, lin, kind, flags, &r, &f))   /* PAGING_OFF: pa = lin */
		return false;
	*pa = r.pa & cpu->a20_mask;
	return true;
}

/* The physical address of the code byte at lin by the translation a fetch
 * would make, or false where the fetch would fault. SDM Vol.3 4.6: a fetch at
 * CPL 3 is a user-mode access. */
static bool peek_phys(struct cpu *cpu, uint64_t lin, uint64_t *pa)
{
	return cpu_peek_phys(cpu, lin, WALK_EXEC, cpu->cpl == 3 ? WALK_USER : 0, pa);
}

/* Up to n bytes at pa from RAM or ROM, unclaimed addresses reading FFh as the
 * bus answers; stops at a device's MMIO, whose reads may change the device.
 * Returns how many were copied. */
static unsigned peek_phys_bytes(struct physmem *mem, uint64_t pa, uint8_t *buf, unsigned n)
{
	if (pa < mem->ram_size && mem->ram_size - pa >= n) {
		memcpy(buf, mem->ram + pa, n);
		return n;
	}
	for (unsigned i = 0; i < n; i++, pa++) {
		if (pa < mem->ram_size) {
			buf[i] = mem->ram[pa];
			continue;
		}
		buf[i] = 0xff;
		for (unsigned k = 0; k < mem->n_mmio; k++) {
			const struct mmio_region *r = &mem->mmio[k];
			if (pa < r->base || pa - r->base >= r->size)
				continue;
			if (!r->rom)
				return i;
			buf[i] = r->rom[pa - r->base];
			break;
		}
	}
	return n;
}

size_t cpu_peek_code(struct cpu *cpu, uint64_t ip, uint8_t *buf, size_t len)
{
	const struct segment *cs = &cpu->seg[SR_CS];
	bool mode64 = cpu->mode == MODE_LONG64;
	unsigned bank = cpu->cpl == 3 ? TLB_USER : TLB_SUPERVISOR;
	if (!mode64)
		ip = (uint32_t)ip;         /* rIP is 32 bits wide outside 64-bit mode */
	size_t n = 0;
	while (n < len) {
		uint64_t off = ip + n, lin;
		size_t chunk = len - n;
		if (mode64) {
			/* SDM Vol.1 3.3.7.1, Vol.3 6.15: no fetch from a non-canonical
			 * address (a page is all canonical or all not). */
			lin = off;
			if (!addr_canonical(cpu, lin))
				break;
		} else {
			/* SDM Vol.3 5.3: no byte past the CS limit (the offset does not
			 * wrap within an instruction); the linear address wraps at 4 GiB
			 * (SDM Vol.3 3.4, APM2 4.5.1). */
			if (off > cs->limit)
				break;
			if (chunk > cs->limit - off + 1)
				chunk = (size_t)(cs->limit - off + 1);
			lin = (uint32_t)(cs->base + off);
		}
		size_t in_page = PAGE_SIZE - (lin & (PAGE_SIZE - 1));
		if (chunk > in_page)
			chunk = in_page;
		/* A TLB entry for a fetch is the translation the next fetch uses
		 * (SDM Vol.3 4.10.2: it may serve even after the tables changed);
		 * else the walk the fetch would make. */
		const uint8_t *p = tlb_lookup(&cpu->tlb, bank, TLB_EXEC, lin, (unsigned)chunk);
		uint64_t pa;
		size_t got;
		if (p) {
			memcpy(buf + n, p, chunk);
			got = chunk;
		} else if (peek_phys(cpu, lin, &pa)) {
			got = peek_phys_bytes(cpu->mem, pa, buf + n, (unsigned)chunk);
		} else {
			break;
		}
		n += got;
		if (got < chunk)
			break;
	}
	return n;
}
