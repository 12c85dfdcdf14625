/* Context-switch micro-benchmark (issue #9): how fast the TLB switches between
 * address spaces (a world switch: VMRUN/#VMEXIT, VM entry/exit) and between
 * PCIDs (MOV CR3 with bit 63), and that no translation is lost or touched on
 * the way. Prints switches per second. Not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mmu/tlb.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Fill n pages of the current context (what emu/memory.c's tlb_fill does). */
static void fill(struct tlb *t, unsigned n, uintptr_t host)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t lin = 0x400000ull + (uint64_t)i * 4096;
		struct tlb_entry *e = tlb_victim(t, TLB_SUPERVISOR, lin, t->cur);
		uint64_t tag = lin | t->cur;
		for (unsigned a = 0; a < TLB_ACCESS_KINDS; a++)
			e->tag[a] = tag;
		e->key = tag;
		e->host_minus_lin = host - lin;
		e->phys = lin;
		e->page_shift = 12;
	}
}

static unsigned hits(struct tlb *t, unsigned n)
{
	unsigned h = 0;
	for (unsigned i = 0; i < n; i++)
		h += tlb_lookup(t, TLB_SUPERVISOR, TLB_READ, 0x400000ull + (uint64_t)i * 4096, 4) != NULL;
	return h;
}

int main(void)
{
	static struct tlb t;
	static uint8_t page[4096];
	const unsigned pages = 32, rounds = 20 * 1000 * 1000;
	tlb_flush_all(&t);
	/* Host (space 0) and a guest (space 1, e.g. ASID 1) map the same linear pages. */
	tlb_select(&t, 0, 0);
	fill(&t, pages, (uintptr_t)page);
	tlb_select(&t, 1, 0);
	fill(&t, pages, (uintptr_t)page);

	double t0 = now_s();
	unsigned long sum = 0;
	for (unsigned i = 0; i < rounds; i++) {
		tlb_select(&t, i & 1, 0);
		sum += t.cur;
	}
	double s = now_s() - t0;
	unsigned kept0, kept1;
	tlb_select(&t, 0, 0);
	kept0 = hits(&t, pages);
	tlb_select(&t, 1, 0);
	kept1 = hits(&t, pages);
	printf("world switches (space 0 <-> 1): %.1f M/s (%.1f ns each); translations kept: %u/%u and %u/%u%s\n",
	       rounds / s / 1e6, s / rounds * 1e9, kept0, pages, kept1, pages, sum ? "" : " ");

	/* PCID switches within the host space, 8 PCIDs round robin. */
	t0 = now_s();
	for (unsigned i = 0; i < rounds; i++)
		tlb_select(&t, 0, (uint16_t)(i & 7));
	s = now_s() - t0;
	printf("PCID switches (8 PCIDs):       %.1f M/s (%.1f ns each)\n", rounds / s / 1e6, s / rounds * 1e9);
	return kept0 == pages && kept1 == pages ? 0 : 1;
}
