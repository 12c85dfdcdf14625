/* The CPU core: reset state, mode tracking and the execution loop.
 *
 *   cpu_run: for each block (emu/icache.h)
 *     CS:rIP -> linear -> physical (TLB) -> cached decoded block (or decode one)
 *     for each instruction: rIP += length; status = handler(cpu, insn)
 *       ST_OK      -> next instruction
 *       ST_FAULT   -> rIP back to the instruction; deliver cpu->event (emu/exception.c)
 *       otherwise  -> return it to the machine (halt, shutdown, stop, VM exit)
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "emu/canonical.h"
#include "emu/cpu_model.h"
#include "emu/debug.h"
#include "emu/flags.h"
#include "emu/icache.h"
#include "emu/insn.h"

/* EFLAGS bits software can change on this CPU class (486+ with CPUID); the rest
 * read as 0 except bit 1, which reads as 1 (SDM Vol.1 3.4.3). */
#define FLAGS_WRITABLE (FLAGS_ARITH | FLAG_TF | FLAG_IF | FLAG_DF | FLAG_IOPL | FLAG_NT | \
			FLAG_RF | FLAG_VM | FLAG_AC | FLAG_VIF | FLAG_VIP | FLAG_ID)

static void load_reset_segment(struct segment *s, uint16_t selector, uint64_t base, uint16_t attr)
{
	s->selector = selector;
	s->base = base;
	s->limit = 0xffff;
	s->attr = attr;
	seg_refresh(s);
}

void cpu_init(struct cpu *cpu, const struct cpu_model *model, struct physmem *mem,
	      struct iobus *io)
{
	memset(cpu, 0, sizeof(*cpu));
	cpu->model = model;
	cpu->mem = mem;
	cpu->io = io;
	cpu->icache = icache_create(mem->ram_size);
	if (!cpu->icache)
		abort();   /* host out of memory at start-up: nothing sensible to do */
	cpu_reset(cpu);
}

void cpu_reset(struct cpu *cpu)
{
	const struct cpu_model *model = cpu->model;

	/* Everything before `model` is CPU state (emu/cpu.h); the machine, the
	 * caches' storage and the tracing set-up stay. */
	memset(cpu, 0, offsetof(struct cpu, model));
	cpu->stop_requested = false;
	cpu->code_modified = false;
	memset(&cpu->fault_chain, 0, sizeof(cpu->fault_chain));   /* no history */
	tlb_flush_all(&cpu->tlb);
	icache_flush(cpu->icache);

	/* SDM Vol.3 9.1.1, Table 9-1: state after RESET. */
	cpu->rflags = FLAG_FIXED1;
	cpu->rip = 0xfff0;
	cpu->cr0 = CR0_ET | CR0_NW | CR0_CD;
	cpu->regs[R_DX] = model ? model->signature : 0;
	load_reset_segment(&cpu->seg[SR_CS], 0xf000, 0xffff0000, SEG_P | SEG_S | SEG_TYPE_RW | SEG_TYPE_ACCESSED);
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			load_reset_segment(&cpu->seg[s], 0, 0, SEG_P | SEG_S | SEG_TYPE_RW | SEG_TYPE_ACCESSED);
	load_reset_segment(&cpu->ldtr, 0, 0, SEG_P | SYS_LDT);
	load_reset_segment(&cpu->tr, 0, 0, SEG_P | SYS_TSS16_BUSY);
	cpu->gdtr.limit = cpu->idtr.limit = 0xffff;
	cpu->dr[6] = 0xffff0ff0;
	cpu->dr[7] = 0x400;
	cpu->apic_base = 0xfee00000 | (1u << 11) | (1u << 8);   /* enabled, BSP */
	cpu->pat = 0x0007040600070406ull;                       /* SDM Vol.3 13.12.4 */
	cpu->misc_enable = model ? model->misc_enable.reset : 0; /* the model's data (emu/msr.c) */
	fpu_reset(&cpu->fpu);                                   /* FCW 0040H, MXCSR 1F80H */
	cpu->xcr0 = XSTATE_X87;                                 /* SDM Vol.1 13.3: XCR0 after RESET is 1 */
	/* SDM Vol.3 4.1.4: MAXPHYADDR from CPUID 80000008h, else 36 with PAE (or
	 * PSE-36) and 32 without. */
	cpu->maxphyaddr = 32;
	if (model) {
		if (cpu_model_has(model, 1, 3, 6) || cpu_model_has(model, 1, 3, 17))
			cpu->maxphyaddr = 36;
		uint32_t r[4];
		cpu_model_cpuid(model, 0x80000000, 0, r);
		if (r[0] >= 0x80000008) {
			cpu_model_cpuid(model, 0x80000008, 0, r);
			if ((r[0] & 0xff) >= 32 && (r[0] & 0xff) <= 52)
				cpu->maxphyaddr = (uint8_t)(r[0] & 0xff);
		}
		cpu->gbpages = cpu_model_has(model, 0x80000001, 3, 26);
	}
	cpu_update_mode(cpu);
}

void cpu_destroy(struct cpu *cpu)
{
	icache_destroy(cpu->icache);
	cpu->icache = NULL;
}

void cpu_update_mode(struct cpu *cpu)
{
	if (!(cpu->cr0 & CR0_PE)) {
		cpu->mode = MODE_REAL;
		cpu->cpl = 0;
	} else if (cpu->efer & EFER_LMA) {
		cpu->mode = (cpu->seg[SR_CS].attr & SEG_L) ? MODE_LONG64 : MODE_COMPAT;
	} else if (cpu->rflags & FLAG_VM) {
		cpu->mode = MODE_V86;
		cpu->cpl = 3;      /* SDM Vol.3 20.2.1: v8086 code runs at CPL 3 */
	} else {
		cpu->mode = MODE_PROT;
	}
}

static inline unsigned code_size_of(const struct cpu *cpu)
{
	switch (cpu->mode) {
	case MODE_REAL:
	case MODE_V86: return 16;
	case MODE_LONG64: return 64;
	default: return (cpu->seg[SR_CS].attr & SEG_DB) ? 32 : 16;
	}
}

unsigned cpu_code_size(const struct cpu *cpu)
{
	return code_size_of(cpu);
}

uint64_t cpu_get_flags(struct cpu *cpu)
{
	if (cpu->lazy.op != LAZY_NONE)
		flags_materialize(cpu);
	return cpu->rflags;
}

void cpu_set_flags(struct cpu *cpu, uint64_t flags)
{
	cpu->lazy.op = LAZY_NONE;
	cpu->rflags = (flags & FLAGS_WRITABLE) | FLAG_FIXED1;
}

/* --- decoding into the cache --- */

static inline uint64_t ip_mask(const struct cpu *cpu)
{
	return cpu->mode == MODE_LONG64 ? ~0ull : 0xffffffffull;
}

/* Decode one instruction at CS:ip. Faults (CS limit, page) are raised. */
static status_t decode_at(struct cpu *cpu, uint64_t ip, unsigned code_size, struct insn *in,
			  uint64_t *last_lin)
{
	const struct segment *cs = &cpu->seg[SR_CS];
	uint8_t buf[INSN_MAX_LEN];
	unsigned avail = INSN_MAX_LEN;
	uint64_t lin;

	if (cpu->mode != MODE_LONG64) {
		/* SDM Vol.3 5.3: fetching beyond the CS limit is #GP(0). Only the limit:
		 * CS type and rights were checked when CS was loaded (a CS cached from
		 * real mode keeps working after CR0.PE is set). */
		if (ip > cs->limit)
			return cpu_raise_err(cpu, EXC_GP, 0);
		if ((uint64_t)cs->limit - ip + 1 < avail)
			avail = (unsigned)(cs->limit - ip + 1);
		lin = (uint32_t)(cs->base + ip);
	} else {
		lin = ip;
	}

	/* First the bytes up to the end of this page; the next page only if the
	 * instruction needs it (its fault belongs to this instruction). */
	unsigned in_page = (unsigned)(PAGE_SIZE - (lin & (PAGE_SIZE - 1)));
	unsigned n = avail < in_page ? avail : in_page;
	status_t st = cpu_fetch_code(cpu, lin, n, buf);
	if (st != ST_OK)
		return st;
	int len = decode_insn(buf, n, code_size, in);
	if (len == 0 && n < avail) {
		/* An instruction that runs on into a non-canonical page is #GP(0)
		 * like a fetch that starts there (SDM Vol.1 3.3.7.1, Vol.3 6.15). */
		if (cpu->mode == MODE_LONG64 && !addr_canonical(cpu, lin + n))
			return cpu_raise_err(cpu, EXC_GP, 0);
		st = cpu_fetch_code(cpu, ip_mask(cpu) & (lin + n), avail - n, buf + n);
		if (st != ST_OK)
			return st;
		n = avail;
		len = decode_insn(buf, n, code_size, in);
	}
	if (len <= 0)   /* over 15 bytes, or running into the CS limit: #GP(0) */
		return cpu_raise_err(cpu, EXC_GP, 0);
	*last_lin = lin + (unsigned)len - 1;
	return ST_OK;
}

/* Find or build the block starting at the current CS:rIP. Returns NULL with
 * *st set when the first instruction cannot be fetched or decoded. */
static struct block *block_for_rip(struct cpu *cpu, status_t *st)
{
	unsigned code_size = code_size_of(cpu);
	uint64_t lin = cpu->mode == MODE_LONG64 ? cpu->rip : (uint32_t)(cpu->seg[SR_CS].base + cpu->rip);

	/* CS limit before translation: #GP(0) outranks #PF (SDM Vol.3 6.9). In
	 * 64-bit mode the limit is not checked but RIP must be canonical (SDM Vol.3
	 * 6.15 "Interrupt 13": fetch from a non-canonical address is #GP(0)). */
	if (cpu->mode != MODE_LONG64 ? cpu->rip > cpu->seg[SR_CS].limit
				     : !addr_canonical(cpu, cpu->rip)) {
		*st = cpu_raise_err(cpu, EXC_GP, 0);
		return NULL;
	}
	/* The physical address by a fetch's own translation, whether or not the
	 * TLB keeps it (--tlb flush): the cache is keyed and its code pages are
	 * watched by physical address (SDM Vol.3 11.6). */
	uint64_t pa;
	*st = cpu_code_phys(cpu, lin, &pa);
	if (*st != ST_OK)
		return NULL;
	bool ram = pa < cpu->mem->ram_size;
	struct block *b = ram ? icache_slot(cpu->icache, pa) : NULL;
	if (b && b->pa == pa && b->code_size == code_size)
		return b;

	/* Decode a new block (MMIO/ROM code: a one-off block that is not cached). */
	if (!b)
		b = &cpu->icache->uncached;
	icache_drop(cpu->icache, b);
	b->count = 0;
	b->code_size = (uint8_t)code_size;
	uint64_t ip = cpu->rip, last_lin = lin;
	bool crosses_page = false;
	while (b->count < BLOCK_MAX_INSNS) {
		struct insn *in = &b->insns[b->count];
		uint64_t this_last = 0;
		status_t s = decode_at(cpu, ip, code_size, in, &this_last);
		if (s != ST_OK) {
			if (b->count == 0) {
				*st = s;
				return NULL;
			}
			/* A later instruction faults only if execution reaches it. */
			cpu->event.pending = false;
			break;
		}
		/* An instruction whose bytes run into the next page depends on two
		 * translations, and the cache is keyed by the first: it runs from a
		 * block of its own that is not kept, so a remapped second page is
		 * always fetched afresh (SDM Vol.3 4.10: the fetch uses the current
		 * translation). */
		if ((this_last & PAGE_MASK) != (lin & PAGE_MASK)) {
			if (b->count > 0)
				break;
			crosses_page = true;
		}
		b->count++;
		last_lin = this_last;
		uint16_t flags = in->row == UINT16_MAX ? IF_END : isa_rows[in->row].flags;
		ip = (ip + in->len) & ip_mask(cpu);
		if (flags & (IF_JUMP | IF_END | IF_REP) || insn_is_undefined(in) || crosses_page)
			break;
		/* Stay within one page: the block's bytes are one range of it. */
		uint64_t next_lin = cpu->mode == MODE_LONG64 ? ip : (uint32_t)(cpu->seg[SR_CS].base + ip);
		if ((next_lin & PAGE_MASK) != (lin & PAGE_MASK))
			break;
	}
	/* Kept when it lies in one RAM page; the first block of a page takes the
	 * page's write permission out of the TLB, so that every store to the page
	 * meets the cache's check (emu/memory.c). */
	if (ram && !crosses_page &&
	    icache_insert(cpu->icache, b, pa, (unsigned)(last_lin - lin + 1)))
		tlb_protect_phys_page(&cpu->tlb, pa);
	*st = ST_OK;
	return b;
}

/* The cached block at CS:rIP when its translation is in the TLB: the common
 * case, with no fetch and no fault possible. NULL sends the caller to
 * block_for_rip(), which also raises the faults. */
static inline struct block *block_lookup(struct cpu *cpu)
{
	uint64_t lin;
	if (cpu->mode != MODE_LONG64) {
		if (cpu->rip > cpu->seg[SR_CS].limit)
			return NULL;
		lin = (uint32_t)(cpu->seg[SR_CS].base + cpu->rip);
	} else {
		lin = cpu->rip;
	}
	struct tlb_entry *e = tlb_slot(&cpu->tlb, cpu->cpl == 3 ? TLB_USER : TLB_SUPERVISOR, lin);
	if (e->tag[TLB_EXEC] != (lin & PAGE_MASK))
		return NULL;
	uint64_t pa = e->phys | (lin & (PAGE_SIZE - 1));
	struct block *b = icache_slot(cpu->icache, pa);
	if (b->pa != pa || b->code_size != code_size_of(cpu))
		return NULL;
	return b;
}

/* --- the loop --- */

/* INT n, INT3, INTO, INT1 (one-byte map CC, CD, CE, F1). */
static bool is_software_interrupt(const struct insn *in)
{
	return in->map == 0 && (in->opcode == 0xcc || in->opcode == 0xcd || in->opcode == 0xce ||
				in->opcode == 0xf1);
}

status_t cpu_run(struct cpu *cpu)
{
	for (;;) {
		if (__builtin_expect(cpu->stop_requested, 0))
			return ST_STOP;
		if (cpu->icount_limit && cpu->icount >= cpu->icount_limit)
			return ST_STOP;

		status_t st;
		cpu->insn_start = cpu->rip;
		/* DR7 breakpoints: one instruction at a time, the instruction
		 * breakpoint checked before its fetch (SDM Vol.3 6.9 Table 6-2). */
		bool debug_on = debug_active(cpu);
		if (__builtin_expect(debug_on, 0) && (st = debug_check_insn(cpu)) != ST_OK)
			goto fault;
		struct block *b = block_lookup(cpu);
		if (__builtin_expect(!b, 0)) {
			b = block_for_rip(cpu, &st);
			if (!b)
				goto fault;
		}

		/* Run the block; one instruction at a time when single-stepping, tracing,
		 * or near the instruction limit. */
		unsigned n = b->count;
		bool single_step = false;
		if (__builtin_expect((cpu->rflags & FLAG_TF) || (cpu->trace & TRACE_INSN) || cpu->shadow ||
				     debug_on, 0)) {
			n = 1;
			/* SDM Vol.3 17.3.1.4: with TF set when an instruction starts, a #DB
			 * trap (DR6.BS) follows it, unless it raised an exception or MOV SS/
			 * POP SS inhibited debug exceptions (SDM 6.8.3). INT n, INT3, INTO and
			 * INT1 deliver an event that clears TF: no trap follows them. */
			single_step = cpu->rflags & FLAG_TF;
			/* The instruction after STI / MOV SS runs alone, so that nothing is
			 * recognised between it and the one that set the shadow (SDM 6.8.3). */
			cpu->shadow = 0;
			if ((cpu->trace & TRACE_INSN) && cpu->trace_insn)
				cpu->trace_insn(cpu, &b->insns[0]);
		}
		if (cpu->icount_limit && cpu->icount_limit - cpu->icount < n)
			n = (unsigned)(cpu->icount_limit - cpu->icount);

		const struct insn *in = b->insns;
		uint64_t mask = ip_mask(cpu);
		unsigned done = 0;
		cpu->code_modified = false;
		while (done < n) {
			uint64_t start = cpu->rip;
			cpu->insn_start = start;
			cpu->rip = (start + in->len) & mask;
			st = in->exec(cpu, in);
			if (__builtin_expect(st != ST_OK, 0))
				goto fault;
			/* Counted per instruction: RDTSC reads the count mid-block. */
			cpu->icount++;
			done++;
			in++;
			if (__builtin_expect(cpu->code_modified | cpu->stop_requested, 0))
				break;
		}
		/* Single-step and data-breakpoint traps: one #DB (emu/debug.c). Only
		 * MOV SS / POP SS hold debug exceptions off for one instruction; the
		 * STI shadow blocks maskable interrupts only, so an STI that sets IF
		 * still single-steps (SDM Vol.3 6.8.3; this is why VM entry wants
		 * pending-debug BS = 1 with STI blocking and TF, SDM 26.3.1.5). */
		if (__builtin_expect(single_step | debug_on, 0) &&
		    debug_trap_pending(cpu, single_step && !(cpu->shadow & SHADOW_MOV_SS) &&
				       !is_software_interrupt(&b->insns[0]))) {
			st = cpu_deliver_event(cpu);
			cpu->icount++;
			if (st != ST_OK)
				return st;
		}
		continue;

fault:
		if (st == ST_FAULT) {
			/* Faults report the faulting instruction's address (SDM Vol.3 6.5). */
			cpu->rip = cpu->insn_start;
			st = cpu_deliver_event(cpu);
			/* A delivered exception is a step of virtual time: a guest that
			 * faults forever (handler faults again) still reaches the limit. */
			cpu->icount++;
			if (st == ST_OK)
				continue;
		}
		if (st == ST_HALT) {
			cpu->icount++;
			cpu->halted = true;
		} else if (st == ST_STOP && cpu->stop_requested) {
			cpu->icount++;     /* the OUT that asked to stop has retired */
		}
		return st;
	}
}
