/* Guest memory as the CPU sees it: segment checks, then linear -> physical
 * through the TLB (fast path) or the translation slow path, then RAM or MMIO.
 * Implements emu/operand.h. */
#include <string.h>

#include "emu/access_watch.h"
#include "emu/apic.h"
#include "emu/canonical.h"
#include "emu/debug.h"
#include "emu/hv.h"
#include "emu/icache.h"
#include "emu/operand.h"
#include "emu/paging_env.h"
#include "emu/quirks.h"
#include "mmu/nested.h"

static inline unsigned tlb_bank(const struct cpu *cpu)
{
	return cpu->cpl == 3 ? TLB_USER : TLB_SUPERVISOR;
}

/* Result of translating one linear page. */
struct translation {
	uint64_t pa;               /* physical address of the byte asked for */
	bool read, write, exec;    /* accesses the TLB may serve without a walk */
	bool global;
	uint8_t page_shift;
};

unsigned cpu_paging_mode(const struct cpu *cpu)
{
	if (!(cpu->cr0 & CR0_PG))
		return PAGING_OFF;
	if (!(cpu->cr4 & CR4_PAE))
		return PAGING_32;
	if (!(cpu->efer & EFER_LMA))
		return PAGING_PAE;
	return (cpu->cr4 & CR4_LA57) ? PAGING_5LEVEL : PAGING_4LEVEL;
}

static inline enum walk_kind walk_kind_of(enum tlb_access acc)
{
	return acc == TLB_WRITE ? WALK_WRITE : acc == TLB_EXEC ? WALK_EXEC : WALK_READ;
}

/* A guest's access under nested paging / EPT: its own paging (if on), every
 * table access and the final guest-physical address through stage 2
 * (mmu/nested.h). A stage-1 failure is the guest's #PF; a stage-2 one goes to
 * the hypervisor model (#VMEXIT(NPF), EPT violation or misconfiguration). */
static __attribute__((noinline)) status_t translate_nested(struct cpu *cpu, uint64_t lin,
							   enum tlb_access acc, unsigned bank,
							   bool implicit, struct translation *t)
{
	struct paging_env env = cpu_paging_env(cpu);
	unsigned flags = (bank == TLB_USER ? WALK_USER : 0) | (implicit ? WALK_IMPLICIT : 0);
	struct nested_result r;
	struct fault f;
	if (!nested_walk(&env, &cpu->stage2, lin, walk_kind_of(acc), flags, &r, &f)) {
		if (f.stage == FAULT_STAGE1) {
			if (cpu->trace_walk)
				cpu->trace_walk(cpu, lin, &r.guest, &f);
			tlb_flush_page(&cpu->tlb, lin);     /* SDM Vol.3 4.10.4.1 */
		}
		return cpu_raise_fault(cpu, &f);
	}
	*t = (struct translation){ .pa = r.pa, .read = r.can_read, .write = r.can_write,
				   .exec = r.can_exec, .global = r.guest.global,
				   .page_shift = (uint8_t)__builtin_ctzll(r.page_size) };
	return ST_OK;
}

/* Linear -> physical for one access. With paging off the linear address is the
 * physical address (SDM Vol.3 4.1.1). Either way the A20 gate masks bit 20 of
 * the result while it is disabled (cpu_set_a20; the paging structures' own
 * addresses are not masked). */
static status_t translate(struct cpu *cpu, uint64_t lin, enum tlb_access acc, unsigned bank,
			  bool implicit, struct translation *t)
{
	if (__builtin_expect(cpu->stage2_on, 0))
		return translate_nested(cpu, lin, acc, bank, implicit, t);
	unsigned mode = cpu_paging_mode(cpu);
	if (mode == PAGING_OFF) {
		*t = (struct translation){ .pa = lin & cpu->a20_mask, .read = true, .write = true,
					   .exec = true, .page_shift = PAGE_SHIFT };
		return ST_OK;
	}
	struct paging_env env = cpu_paging_env(cpu);
	unsigned flags = (bank == TLB_USER ? WALK_USER : 0) | (implicit ? WALK_IMPLICIT : 0);
	struct walk_result r;
	struct fault f;
	if (!paging_walk(&env, lin, walk_kind_of(acc), flags, &r, &f)) {
		if (cpu->trace_walk)
			cpu->trace_walk(cpu, lin, &r, &f);
		/* SDM Vol.3 4.10.4.1: a page fault invalidates the TLB entries for the
		 * faulting linear address (so a stale cached rights entry goes too). */
		tlb_flush_page(&cpu->tlb, lin);
		return cpu_raise_fault(cpu, &f);
	}
	*t = (struct translation){ .pa = r.pa & cpu->a20_mask, .read = r.can_read, .write = r.can_write,
				   .exec = r.can_exec, .global = r.global,
				   .page_shift = (uint8_t)__builtin_ctzll(r.page_size) };
	return ST_OK;
}

/* A write of len bytes at pa (one page) is about to reach RAM: decoded
 * instructions made from any of those bytes go, and if some did the running
 * block stops after this instruction, so that the new bytes are decoded (SDM
 * Vol.3 11.6: a write to an instruction that has been fetched is seen; writes
 * to other bytes of the page, data beside code, change no instruction). */
/* SDM Vol.3 8.1.3 (cross-modifying code): the other processors' decoded
 * copies of those bytes go too; they run after this one's turn. Out of line:
 * only machines with several CPUs come here. */
static __attribute__((noinline)) void others_drop_code(const struct cpu *cpu, uint64_t pa, unsigned len)
{
	for (struct cpu *c = cpu->next_cpu; c && c != cpu; c = c->next_cpu)
		(void)icache_write(c->icache, pa, len);
}

static __attribute__((noinline)) bool others_have_code(const struct cpu *cpu, uint64_t pa)
{
	for (const struct cpu *c = cpu->next_cpu; c && c != cpu; c = c->next_cpu)
		if (icache_page_has_code(c->icache, pa))
			return true;
	return false;
}

/* Record that a store may reach the RAM page of pa (cpu->dirty_pages). Off the
 * fast path: the TLB's write grants stand for the stores that hit them. */
static inline void note_dirty(struct cpu *cpu, uint64_t pa)
{
	if (__builtin_expect(cpu->dirty_pages != NULL, 0) && pa < cpu->mem->ram_size)
		cpu->dirty_pages[pa >> (PAGE_SHIFT + 6)] |= 1ull << ((pa >> PAGE_SHIFT) & 63);
}

static inline void code_check_write(struct cpu *cpu, uint64_t pa, unsigned len)
{
	if (icache_write(cpu->icache, pa, len))
		cpu_attend(cpu, ATT_CODE);
	if (__builtin_expect(cpu->next_cpu != NULL, 0))
		others_drop_code(cpu, pa, len);
}

/* Does any processor of the machine hold decoded code from the page of pa? */
static inline bool page_has_code(const struct cpu *cpu, uint64_t pa)
{
	return icache_page_has_code(cpu->icache, pa) ||
	       (__builtin_expect(cpu->next_cpu != NULL, 0) && others_have_code(cpu, pa));
}

void cpu_notify_phys_write(struct cpu *cpu, uint64_t pa, unsigned size)
{
	uint64_t end = pa + (size ? size : 1);
	while (pa < end) {
		uint64_t page_end = (pa & PAGE_MASK) + PAGE_SIZE;
		uint64_t stop = end < page_end ? end : page_end;
		code_check_write(cpu, pa, (unsigned)(stop - pa));
		note_dirty(cpu, pa);
		pa = stop;
	}
}

/* Cache what translation t allows for lin. Inlined by force: it has two
 * callers, and a call in the slow path of every TLB miss cost page_touch 4 %. */
static inline __attribute__((always_inline)) void tlb_fill(struct cpu *cpu, unsigned bank,
							 uint64_t lin, const struct translation *t)
{
	uint64_t pa_page = t->pa & PAGE_MASK;
	uint8_t *host = physmem_ram_ptr(cpu->mem, pa_page);
	if (!host || cpu->tlb_uncached || (debug_active(cpu) && debug_page_watched(cpu, lin)) ||
	    (cpu->access_watch && access_watch_page(cpu->access_watch, lin)) ||
	    pa_page == cpu->apic_page || pa_page == cpu->apic_access_page)
		return;            /* MMIO/ROM/unclaimed, --tlb flush, a page a DR7 or an
				      observer's watchpoint watches, the local APIC's page
				      or the guest's APIC-access page: always the slow path */
	/* Only canonical pages enter the TLB, so a hit in 64-bit mode implies the
	 * canonical check (emu/operand.h mem_fast). The walker reads only the index
	 * bits, so an implicit access (descriptor tables) near the top of a 48-bit
	 * half could otherwise cache a non-canonical page. */
	if ((cpu->efer & EFER_LMA) && !addr_canonical(cpu, lin))
		return;
	/* Tagged with the current context, or the space's global one (mmu/tlb.h). */
	uint16_t id = cpu->tlb.cur;
	if (t->global) {
		tlb_note_global(&cpu->tlb);
		id = cpu->tlb.cur_global;
	}
	struct tlb_entry *e = tlb_victim(&cpu->tlb, bank, lin, id);
	uint64_t lin_page = lin & PAGE_MASK;
	uint64_t tag = lin_page | id;
	e->tag[TLB_READ] = t->read ? tag : TLB_TAG_INVALID;
	e->tag[TLB_EXEC] = t->exec ? tag : TLB_TAG_INVALID;
	if (t->write)
		note_dirty(cpu, pa_page);   /* every later store through e */
	e->tag[TLB_WRITE_CODE] = t->write ? tag : TLB_TAG_INVALID;
	e->tag[TLB_WRITE] = t->write && !page_has_code(cpu, pa_page) ? tag
										: TLB_TAG_INVALID;
	e->key = tag;
	e->host_minus_lin = (uintptr_t)host - (uintptr_t)lin_page;
	e->phys = pa_page;
	e->page_shift = t->page_shift;
	if (t->page_shift > PAGE_SHIFT)
		tlb_note_large(&cpu->tlb, lin, t->page_shift);
}

/* Slow path for size bytes at lin: translate every page touched first (so a
 * fault leaves memory untouched), then copy. */
static status_t lin_access_slow(struct cpu *cpu, uint64_t lin, unsigned size, unsigned bank,
				enum tlb_access acc, bool implicit, uint8_t *buf)
{
	struct translation t[2];
	unsigned first = (unsigned)(PAGE_SIZE - (lin & (PAGE_SIZE - 1)));
	unsigned n = size > first ? 2 : 1;
	uint64_t lin2 = lin + first;
	if (!cpu_is_mode64(cpu))
		lin2 = (uint32_t)lin2;

	for (unsigned i = 0; i < n; i++) {
		uint64_t l = i ? lin2 : lin;
		status_t st = translate(cpu, l, acc, bank, implicit, &t[i]);
		if (st != ST_OK)
			return st;
		/* SDM Vol.3 29.4: an access to the APIC-access page is the
		 * hypervisor model's (virtualized or an APIC-access VM exit),
		 * after the translation's own faults (29.4.1), before any byte
		 * of the access is done. */
		if (__builtin_expect((t[i].pa & PAGE_MASK) == cpu->apic_access_page, 0))
			return cpu->hv->apic_access(cpu->hv_ctx, cpu, t[i].pa, i ? size - first : (n == 2 ? first : size),
						    acc, n == 2, buf + (i ? first : 0));
	}
	/* DR7 data breakpoints: watched pages never enter the TLB, so their
	 * accesses all come here (emu/debug.h). */
	if (__builtin_expect(debug_active(cpu), 0) && acc != TLB_EXEC)
		debug_check_data(cpu, lin, size, acc == TLB_WRITE);
	/* The observer's watchpoints likewise (emu/access_watch.h); a page-
	 * crossing access is checked as its two pieces, the second at lin2. */
	if (__builtin_expect(cpu->access_watch != NULL, 0) && acc != TLB_EXEC) {
		access_watch_check(cpu->access_watch, lin, n == 2 ? first : size, acc == TLB_WRITE);
		if (n == 2)
			access_watch_check(cpu->access_watch, lin2, size - first, acc == TLB_WRITE);
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned off = i ? first : 0;
		unsigned len = i ? size - first : (n == 2 ? first : size);
		uint64_t pa = t[i].pa;
		uint8_t *host = physmem_ram_ptr(cpu->mem, pa);
		if ((pa & PAGE_MASK) == cpu->apic_page) {
			/* SDM Vol.3 10.4.1: the processor's own accesses to its APIC
			 * page go to its local APIC, not to the bus. */
			cpu_apic_mmio(cpu, pa, len, acc == TLB_WRITE, buf + off);
		} else if (host && pa + len <= cpu->mem->ram_size) {
			if (acc == TLB_WRITE) {
				code_check_write(cpu, pa, len);
				note_dirty(cpu, pa);
				memcpy(host, buf + off, len);
			} else {
				memcpy(buf + off, host, len);
			}
			tlb_fill(cpu, bank, i ? lin2 : lin, &t[i]);
		} else {
			if (acc == TLB_WRITE) {
				if (len == 1 || len == 2 || len == 4 || len == 8) {
					uint64_t v = 0;
					memcpy(&v, buf + off, len);
					physmem_write(cpu->mem, pa, len, v);
				} else {
					for (unsigned k = 0; k < len; k++)
						physmem_write(cpu->mem, pa + k, 1, buf[off + k]);
				}
			} else if (len == 1 || len == 2 || len == 4 || len == 8) {
				uint64_t v = physmem_read(cpu->mem, pa, len);
				memcpy(buf + off, &v, len);
			} else {
				for (unsigned k = 0; k < len; k++)
					buf[off + k] = (uint8_t)physmem_read(cpu->mem, pa + k, 1);
			}
			/* A device's registers: a bus cycle (not a fetch, from ROM or
			 * all ones), after the device saw the access. */
			if (acc != TLB_EXEC && physmem_is_device(cpu->mem, pa))
				cpu_bus_cycle(cpu);
		}
	}
	return ST_OK;
}

static inline status_t lin_read(struct cpu *cpu, uint64_t lin, unsigned size, unsigned bank,
				enum tlb_access acc, bool implicit, uint64_t *out)
{
	uint8_t *p = tlb_lookup(&cpu->tlb, bank, acc, lin, size);
	uint64_t v = 0;
	if (__builtin_expect(p != NULL, 1)) {
		*out = host_load(p, size);
		return ST_OK;
	}
	status_t st = lin_access_slow(cpu, lin, size, bank, acc, implicit, (uint8_t *)&v);
	*out = v;
	return st;
}

static inline status_t lin_write(struct cpu *cpu, uint64_t lin, unsigned size, unsigned bank,
				 bool implicit, uint64_t v)
{
	uint8_t *p = tlb_lookup(&cpu->tlb, bank, TLB_WRITE, lin, size);
	if (__builtin_expect(p != NULL, 1)) {
		host_store(p, size, v);
		return ST_OK;
	}
	/* A page that holds decoded code: the translation is cached, only the
	 * code check is left. */
	p = tlb_lookup(&cpu->tlb, bank, TLB_WRITE_CODE, lin, size);
	if (p) {
		struct tlb_entry *e = tlb_find(&cpu->tlb, bank, TLB_WRITE_CODE, lin);
		uint64_t pa = e->phys | (lin & (PAGE_SIZE - 1));
		code_check_write(cpu, pa, size);
		/* Its last block gone, the page takes writes inline again. */
		if (!page_has_code(cpu, pa))
			e->tag[TLB_WRITE] = e->tag[TLB_WRITE_CODE];
		host_store(p, size, v);
		return ST_OK;
	}
	return lin_access_slow(cpu, lin, size, bank, TLB_WRITE, implicit, (uint8_t *)&v);
}

status_t lin_read_sys(struct cpu *cpu, uint64_t lin, unsigned size, uint64_t *out)
{
	status_t st = lin_read(cpu, lin, size, TLB_SUPERVISOR, TLB_READ, true, out);
	cpu->wrap_carry = 0;
	return st;
}

status_t lin_write_sys(struct cpu *cpu, uint64_t lin, unsigned size, uint64_t v)
{
	status_t st = lin_write(cpu, lin, size, TLB_SUPERVISOR, true, v);
	cpu->wrap_carry = 0;
	return st;
}

status_t cpu_fetch_code(struct cpu *cpu, uint64_t lin, unsigned size, uint8_t *buf)
{
	uint8_t *p = tlb_lookup(&cpu->tlb, tlb_bank(cpu), TLB_EXEC, lin, size);
	if (p) {
		memcpy(buf, p, size);
		return ST_OK;
	}
	return lin_access_slow(cpu, lin, size, tlb_bank(cpu), TLB_EXEC, false, buf);
}

status_t cpu_code_phys(struct cpu *cpu, uint64_t lin, uint64_t *pa)
{
	unsigned bank = tlb_bank(cpu);
	struct tlb_entry *e = tlb_find(&cpu->tlb, bank, TLB_EXEC, lin);
	if (e) {
		*pa = e->phys | (lin & (PAGE_SIZE - 1));
		return ST_OK;
	}
	struct translation t;
	status_t st = translate(cpu, lin, TLB_EXEC, bank, false, &t);
	if (st != ST_OK)
		return st;
	tlb_fill(cpu, bank, lin, &t);
	*pa = t.pa;
	return ST_OK;
}

/* Segment-level checks and linear address of seg:off. Outside 64-bit mode:
 * limit/type checks (SDM Vol.3 5.3, 5.4.1), #SS(0) for SS, #GP(0) otherwise.
 * In 64-bit mode: canonical check instead (SDM Vol.3 5.3.1, Vol.1 3.3.7.1), of
 * 57 bits with 5-level paging (emu/canonical.h addr_canonical()). */
static inline status_t seg_to_linear(struct cpu *cpu, unsigned seg, uint64_t off, unsigned size,
				     unsigned perm, uint64_t *lin)
{
	const struct segment *s = &cpu->seg[seg];
	if (__builtin_expect(cpu->mode != MODE_LONG64, 1)) {
		if (!seg_access_ok(s, off, size, perm) && !cpu_quirk(cpu, QK_QEMU_DATA_SEG_UNCHECKED))
			return cpu_raise_err(cpu, seg == SR_SS ? EXC_SS : EXC_GP, 0);
		*lin = (uint32_t)(s->base + off);
		return ST_OK;
	}
	uint64_t l = (seg == SR_FS || seg == SR_GS) ? s->base + off : off;
	if (!addr_canonical(cpu, l) || !addr_canonical(cpu, l + size - 1))
		return cpu_raise_err(cpu, seg == SR_SS && !cpu_quirk(cpu, QK_QEMU_NONCANONICAL_SS_GP) ? EXC_SS
											 : EXC_GP, 0);
	*lin = l;
	return ST_OK;
}

/* SDM Vol.3 6.15 (#AC): with CR0.AM and EFLAGS.AC set, a misaligned data access
 * at CPL 3 is #AC(0). Checked after the segment checks, before translation. */
static inline bool misaligned_user_access(const struct cpu *cpu, uint64_t lin, unsigned size)
{
	return cpu->cpl == 3 && (lin & (size - 1)) && (cpu->cr0 & CR0_AM) && (cpu->rflags & FLAG_AC) &&
	       !cpu_quirk(cpu, QK_QEMU_NO_AC);
}

status_t mem_read_slow(struct cpu *cpu, unsigned seg, uint64_t off, unsigned size, uint64_t *out)
{
	uint64_t lin = 0;
	status_t st = seg_to_linear(cpu, seg, off, size, SEG_PERM_READ, &lin);
	if (st != ST_OK)
		return st;
	if (__builtin_expect(misaligned_user_access(cpu, lin, size), 0))
		return cpu_raise_err(cpu, EXC_AC, 0);
	return lin_read(cpu, lin, size, tlb_bank(cpu), TLB_READ, false, out);
}

status_t mem_write_slow(struct cpu *cpu, unsigned seg, uint64_t off, unsigned size, uint64_t v)
{
	uint64_t lin = 0;
	status_t st = seg_to_linear(cpu, seg, off, size, SEG_PERM_WRITE, &lin);
	if (st != ST_OK)
		return st;
	if (__builtin_expect(misaligned_user_access(cpu, lin, size), 0))
		return cpu_raise_err(cpu, EXC_AC, 0);
	return lin_write(cpu, lin, size, tlb_bank(cpu), false, v);
}

status_t mem_probe_write(struct cpu *cpu, unsigned seg, uint64_t off, unsigned size)
{
	uint64_t lin = 0;
	status_t st = seg_to_linear(cpu, seg, off, size, SEG_PERM_WRITE, &lin);
	if (st != ST_OK)
		return st;
	unsigned bank = tlb_bank(cpu);
	if (tlb_lookup(&cpu->tlb, bank, TLB_WRITE, lin, size))
		return ST_OK;
	struct translation t;
	st = translate(cpu, lin, TLB_WRITE, bank, false, &t);
	if (st == ST_OK && (lin & (PAGE_SIZE - 1)) + size > PAGE_SIZE)
		st = translate(cpu, (lin | (PAGE_SIZE - 1)) + 1, TLB_WRITE, bank, false, &t);
	return st;
}

status_t rm_read_mem(struct cpu *cpu, const struct insn *in, unsigned size, uint64_t *out)
{
	return mem_read(cpu, in->seg, insn_ea(cpu, in), size, out);
}

status_t rm_write_mem(struct cpu *cpu, const struct insn *in, unsigned size, uint64_t v)
{
	return mem_write(cpu, in->seg, insn_ea(cpu, in), size, v);
}

unsigned stack_asize(const struct cpu *cpu)
{
	if (cpu->mode == MODE_LONG64)
		return 8;
	return (cpu->seg[SR_SS].attr & SEG_DB) ? 4 : 2;
}

static inline uint64_t stack_pointer(const struct cpu *cpu, unsigned asize)
{
	return cpu->regs[R_SP] & size_mask(asize);
}

void stack_adjust(struct cpu *cpu, int64_t delta)
{
	unsigned as = stack_asize(cpu);
	uint64_t sp = (cpu->regs[R_SP] + (uint64_t)delta) & size_mask(as);
	reg_write(cpu, R_SP, as, false, sp);
}

status_t push(struct cpu *cpu, unsigned size, uint64_t v)
{
	unsigned as = stack_asize(cpu);
	uint64_t sp = (stack_pointer(cpu, as) - size) & size_mask(as);
	status_t st = mem_write(cpu, SR_SS, sp, size, v);
	if (st == ST_OK)
		reg_write(cpu, R_SP, as, false, sp);
	return st;
}

status_t pop(struct cpu *cpu, unsigned size, uint64_t *out)
{
	unsigned as = stack_asize(cpu);
	uint64_t sp = stack_pointer(cpu, as);
	status_t st = mem_read(cpu, SR_SS, sp, size, out);
	if (st == ST_OK)
		reg_write(cpu, R_SP, as, false, (sp + size) & size_mask(as));
	return st;
}

status_t stack_read(struct cpu *cpu, uint64_t offset, unsigned size, uint64_t *out)
{
	unsigned as = stack_asize(cpu);
	return mem_read(cpu, SR_SS, (stack_pointer(cpu, as) + offset) & size_mask(as), size, out);
}

status_t stack_read_far(struct cpu *cpu, uint64_t offset, unsigned size, uint64_t *out)
{
	unsigned as = stack_asize(cpu);
	uint64_t off = (stack_pointer(cpu, as) + offset) & size_mask(as);
	if (size == 2 && cpu->mode != MODE_LONG64)
		cpu->wrap_carry = (uint32_t)((cpu->seg[SR_SS].base + off) >> 32);
	status_t st = mem_read(cpu, SR_SS, off, size, out);
	cpu->wrap_carry = 0;
	return st;
}

status_t stack_write(struct cpu *cpu, uint64_t offset, unsigned size, uint64_t v)
{
	unsigned as = stack_asize(cpu);
	return mem_write(cpu, SR_SS, (stack_pointer(cpu, as) + offset) & size_mask(as), size, v);
}

status_t branch_beyond_cs_limit(struct cpu *cpu, uint64_t target)
{
	if (!cpu_quirk(cpu, QK_QEMU_CS_LIMIT_UNCHECKED))
		return cpu_raise_err(cpu, EXC_GP, 0);
	cpu->rip = target;
	return ST_OK;
}

/* 64-bit mode: SDM Vol.2 JMP: a non-canonical target is #GP(0); 57-bit
 * canonical with 5-level paging (addr_canonical()). */
status_t branch_near64(struct cpu *cpu, uint64_t target, unsigned osize)
{
	if (osize != 8)
		target &= size_mask(osize);
	if (!addr_canonical(cpu, target) && !cpu_quirk(cpu, QK_QEMU_BRANCH_TARGET_AT_FETCH))
		return cpu_raise_err(cpu, EXC_GP, 0);
	cpu->rip = target;
	return ST_OK;
}
