/* EPT tables for the L1 guests (see ept.h). */
#include "vmx/ept.h"
#include "vmx/lib_vmx.h"

#define EPT_POOL 24
static uint64_t pool[EPT_POOL][512] __attribute__((aligned(4096)));
static unsigned pool_used;

void ept_reset(void)
{
	pool_used = 0;
}

static uint64_t *table_new(void)
{
	if (pool_used == EPT_POOL) {
		gprintf("# ept: out of tables\n");
		vmx_setup_errors++;
		pool_used = 0;
	}
	uint64_t *t = pool[pool_used++];
	gmemset(t, 0, 4096);
	return t;
}

static uint64_t pa_of(const uint64_t *t)
{
	return (uint32_t)(uintptr_t)t;
}

void ept_build(struct ept *e, unsigned levels, int ad)
{
	uint64_t *pml4 = table_new(), *pdpt = table_new(), *pd = table_new();
	/* Tables 28-1, 28-3, 28-5: a table-referencing entry holds R/W/X and
	 * the next table's address; 28-4: a 2 MiB PDE adds PS and the type. */
	for (unsigned i = 0; i < 512; i++)
		pd[i] = ((uint64_t)i << 21) | EPT_PS | EPT_MT(MT_WB) | EPT_RWX;
	pdpt[0] = pa_of(pd) | EPT_RWX;
	pml4[0] = pa_of(pdpt) | EPT_RWX;
	e->root = pml4;
	if (levels == 5) {
		e->root = table_new();
		e->root[0] = pa_of(pml4) | EPT_RWX;
	}
	e->levels = levels;
	/* 24.6.11, A.10: WB paging structures when supported, else UC. */
	unsigned mt = (vmx_caps.ept_vpid & CAP_EPT_WB) ? MT_WB : MT_UC;
	e->eptp = pa_of(e->root) | mt | EPTP_WALK(levels) | (ad ? EPTP_AD : 0);
}

uint64_t *ept_entry(struct ept *e, uint64_t gpa, unsigned level)
{
	uint64_t *t = e->root;
	for (unsigned l = e->levels; ; l--) {
		unsigned shift = 12 + 9 * (l - 1);
		uint64_t *ent = &t[(gpa >> shift) & 511];
		if (l == level)
			return ent;
		if (!(*ent & EPT_RWX))
			return 0;
		if (*ent & EPT_PS) {
			if (l != 2)
				return 0;
			/* Split: 512 PTEs of the same rights and type (Table 28-6). */
			uint64_t *pt = table_new();
			uint64_t base = *ent & EPT_ADDR & ~0x1fffffull;
			uint64_t keep = *ent & (EPT_RWX | EPT_MT(7) | EPT_IPAT);
			for (unsigned i = 0; i < 512; i++)
				pt[i] = (base + ((uint64_t)i << 12)) | keep;
			*ent = pa_of(pt) | EPT_RWX;
		}
		t = (uint64_t *)(uintptr_t)(uint32_t)(*ent & EPT_ADDR);
	}
}
