/* Instruction fetch: CS:rIP to a block of decoded instructions (emu/icache.h).
 *
 *   block_lookup  the common case: the code page's translation is in the TLB
 *                 and its block is cached; no fetch, no fault possible
 *   fetch_block   everything else: CS limit / canonical checks, the fetch's
 *                 own translation (which may fault), the cached block or a new
 *                 one decoded up to a branch, a mode change, a string
 *                 instruction, the end of the page or BLOCK_MAX_INSNS
 * Blocks are keyed by physical address and code size, and each instruction
 * records where it lies in its block, so the run loop (emu/run.c) advances rIP
 * without looking at the bytes again.
 */
#ifndef HVEMU_EMU_FETCH_H
#define HVEMU_EMU_FETCH_H

#include <string.h>

#include "emu/cpu.h"
#include "emu/icache.h"

/* rIP wraps at 32 bits outside 64-bit mode (the CS limit check catches 16-bit
 * code running past 0FFFFH). */
static inline uint64_t ip_mask(const struct cpu *cpu)
{
	return cpu->mode == MODE_LONG64 ? ~0ull : 0xffffffffull;
}

/* Find or build the block starting at the current CS:rIP. Returns NULL with
 * *st set when the first instruction cannot be fetched or decoded. */
struct block *fetch_block(struct cpu *cpu, status_t *st);

/* The TLB's entry for an instruction fetch at the linear address lin (the
 * CPL's bank), or NULL. */
static inline struct tlb_entry *fetch_tlb_find(struct cpu *cpu, uint64_t lin)
{
	return tlb_find(&cpu->tlb, cpu->cpl == 3 ? TLB_USER : TLB_SUPERVISOR, TLB_EXEC, lin);
}

/* The linear address of the page after lin's (SDM Vol.3 3.4: 32 bits outside
 * 64-bit mode). */
static inline uint64_t next_page_lin(const struct cpu *cpu, uint64_t lin)
{
	uint64_t next = (lin | (PAGE_SIZE - 1)) + 1;
	return cpu->mode == MODE_LONG64 ? next : (uint32_t)next;
}

/* Are the bytes b's instruction read from its second page still there? */
static inline bool block_second_bytes_hold(const struct cpu *cpu, const struct block *b)
{
	return memcmp(cpu->mem->ram + b->second_pa, b->second_bytes, b->second_len) == 0;
}

/* Does all of b lie within CS's limit at the current rIP? A block is cached
 * by its physical address, so the same bytes may be reached again at another
 * offset (another CS base: real mode's 1000:0018 and 0002:FFF8): at its first
 * instruction within the limit, a later one may lie past it, where a fetch is
 * #GP(0) (SDM Vol.3 5.3). 64-bit mode checks no limit. */
static inline bool block_within_cs_limit(const struct cpu *cpu, const struct block *b)
{
	return cpu_is_mode64(cpu) || cpu->rip + b->insns[b->count].offset - 1 <= cpu->seg[SR_CS].limit;
}

/* Is b, found for the linear address lin, still what a fetch there would
 * decode? Always, unless its one instruction runs into the next page: SDM
 * Vol.3 4.10 (a fetch uses the current translation) and 11.6 (a store to an
 * instruction is seen when it next runs) then ask that the next page still
 * translate, by the TLB, to the frame it was read from and that the bytes
 * read there be unchanged. Where not, the caller decodes afresh, which also
 * raises the fetch's faults. */
static inline bool block_second_page_holds(struct cpu *cpu, const struct block *b, uint64_t lin)
{
	if (__builtin_expect(b->second_len == 0, 1))
		return true;
	struct tlb_entry *e = fetch_tlb_find(cpu, next_page_lin(cpu, lin));
	return e && e->phys == b->second_pa && block_second_bytes_hold(cpu, b);
}

/* The cached block at CS:rIP when its translation is in the TLB: the common
 * case, with no fetch and no fault possible. NULL sends the caller to
 * fetch_block(), which also raises the faults. */
static inline struct block *block_lookup(struct cpu *cpu)
{
	uint64_t lin = cpu_ip_linear(cpu);
	struct tlb_entry *e = fetch_tlb_find(cpu, lin);
	if (!e)
		return NULL;
	uint64_t pa = e->phys | (lin & (PAGE_SIZE - 1));
	struct block *b = icache_find(cpu->icache, pa);
	if (!b || b->code_size != cpu_code_size(cpu) || !block_within_cs_limit(cpu, b) ||
	    !block_second_page_holds(cpu, b, lin))
		return NULL;
	return b;
}


#endif
