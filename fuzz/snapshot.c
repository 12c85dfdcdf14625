/* Machine snapshots for fuzzers; see fuzz/snapshot.h. */
#include "fuzz/snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "emu/icache.h"

bool snapshot_take(struct snapshot *s, struct cpu *cpu, struct physmem *pm, void *hv, size_t hv_size)
{
	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	s->pm = pm;
	s->hv = hv;
	s->hv_size = hv_size;
	s->ram = malloc(pm->ram_size);
	s->hv_state = malloc(hv_size ? hv_size : 1);
	s->dirty_words = (size_t)((pm->ram_size >> PAGE_SHIFT) + 63) / 64;
	s->dirty = calloc(s->dirty_words, sizeof(uint64_t));
	if (!s->ram || !s->hv_state || !s->dirty) {
		snapshot_free(s);
		return false;
	}
	memcpy(s->ram, pm->ram, pm->ram_size);
	if (hv_size)
		memcpy(s->hv_state, hv, hv_size);
	cpu->dirty_pages = s->dirty;
	s->cpu_state = *cpu;
	return true;
}

/* Make every translation the TLB holds unusable without touching its
 * entries: each (space, pcid) context gets a fresh id, so no old tag matches
 * again (mmu/tlb.h; when the ids run out tlb_select() sweeps the entries).
 * Then the snapshot's context is the current one. The epoch moves with every
 * renumbering, so block links made before are void too. */
static void tlb_forget(struct tlb *t, uint64_t space, uint16_t pcid)
{
	for (unsigned c = 0; c < TLB_CONTEXTS; c++)
		if (t->ctx[c].id)
			tlb_renumber(t, &t->ctx[c]);
	tlb_select(t, space, pcid);
}

void snapshot_restore(struct snapshot *s)
{
	struct cpu *cpu = s->cpu;
	struct physmem *pm = s->pm;

	for (size_t w = 0; w < s->dirty_words; w++) {
		uint64_t bits = s->dirty[w];
		s->dirty[w] = 0;
		while (bits) {
			uint64_t page = w * 64 + (uint64_t)__builtin_ctzll(bits);
			bits &= bits - 1;
			memcpy(pm->ram + (page << PAGE_SHIFT), s->ram + (page << PAGE_SHIFT), PAGE_SIZE);
			s->restored_pages++;
		}
	}

	/* The CPU struct but its TLB, whose entries are the live object's (the
	 * snapshot's copy would need 64 KiB copied back; forgetting is cheaper). */
	const size_t tlb_at = offsetof(struct cpu, tlb), tlb_end = tlb_at + sizeof(struct tlb);
	memcpy((char *)cpu, (const char *)&s->cpu_state, tlb_at);
	memcpy((char *)cpu + tlb_end, (const char *)&s->cpu_state + tlb_end, sizeof(*cpu) - tlb_end);
	tlb_forget(&cpu->tlb, s->cpu_state.tlb.space, s->cpu_state.tlb.pcid);
	/* Decoded blocks: in time proportional to those decoded since. */
	icache_flush(cpu->icache);
	if (s->hv_size)
		memcpy(s->hv, s->hv_state, s->hv_size);
	s->restores++;
}

void snapshot_write(struct snapshot *s, uint64_t pa, const void *src, size_t len)
{
	if (pa >= s->pm->ram_size || len > s->pm->ram_size - pa)
		abort();           /* the fuzzer's own layout is wrong */
	memcpy(s->pm->ram + pa, src, len);
	for (uint64_t p = pa >> PAGE_SHIFT; p <= (pa + len - 1) >> PAGE_SHIFT && len; p++)
		s->dirty[p / 64] |= 1ull << (p % 64);
	cpu_notify_phys_write(s->cpu, pa, (unsigned)len);
}

bool snapshot_ram_differs(const struct snapshot *s)
{
	return memcmp(s->ram, s->pm->ram, s->pm->ram_size) != 0;
}

void snapshot_free(struct snapshot *s)
{
	if (s->cpu && s->cpu->dirty_pages == s->dirty)
		s->cpu->dirty_pages = NULL;
	free(s->ram);
	free(s->hv_state);
	free(s->dirty);
	memset(s, 0, sizeof(*s));
}
