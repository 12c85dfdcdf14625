/* Instruction fetch into decoded blocks (see fetch.h). */
#include <string.h>

#include "emu/canonical.h"
#include "emu/fetch.h"
#include "emu/insn.h"
#include "emu/fast_forms.h"
#include "emu/jit.h"
#include "emu/quirks.h"
#include "emu/threaded.h"
#include "isa_handlers.h"

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
		if (ip > cs->limit && !cpu_quirk(cpu, QK_QEMU_CS_LIMIT_UNCHECKED))
			return cpu_raise_err(cpu, EXC_GP, 0);
		if ((uint64_t)cs->limit - ip + 1 < avail && !cpu_quirk(cpu, QK_QEMU_CS_LIMIT_UNCHECKED))
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

/* Does a block ending with in leave CS, CPL and the mode as they were? A near
 * branch (relative or indirect, CALL and RET too: SDM Vol.2 "near" transfers
 * stay in the current code segment), or an instruction after which the block
 * just stops (page end, BLOCK_MAX_INSNS, an instruction that could not be
 * decoded yet). A link checks the rIP it was made for, so an indirect target
 * chains only while it stays what it was. */
static bool block_keeps_cs(const struct insn *in)
{
	if (insn_is_undefined(in))
		return false;
	uint16_t flags = isa_rows[in->row].flags;
	if (!(flags & (IF_JUMP | IF_END | IF_REP)))
		return true;
	return in->exec == op_jcc || in->exec == op_jmp || in->exec == op_loop || in->exec == op_jcxz ||
	       in->exec == op_jmp_E || in->exec == op_call || in->exec == op_call_E || in->exec == op_ret;
}

/* The instruction of b, at linear lin to last_lin, runs into the next page:
 * remember that page's frame and the bytes read from it (block_second_page_holds),
 * if it can be checked there: its bytes are linear-contiguous (not 16-bit code
 * wrapping at 64 KiB), the TLB holds the translation the fetch used (not so
 * under --tlb flush, where the block is decoded at every entry) and it is RAM. */
static bool keep_second_page(struct cpu *cpu, struct block *b, uint64_t lin, uint64_t last_lin)
{
	uint64_t next = next_page_lin(cpu, lin);
	if (last_lin < next || last_lin - next >= sizeof(b->second_bytes) || lin + b->insns[0].len - 1 != last_lin)
		return false;
	struct tlb_entry *e = fetch_tlb_find(cpu, next);
	unsigned len = (unsigned)(last_lin - next + 1);
	if (!e || e->phys + len > cpu->mem->ram_size)
		return false;
	b->second_pa = e->phys;
	b->second_len = (uint8_t)len;
	memcpy(b->second_bytes, cpu->mem->ram + e->phys, len);
	return true;
}

struct block *fetch_block(struct cpu *cpu, status_t *st)
{
	unsigned code_size = cpu_code_size(cpu);
	uint64_t lin = cpu_ip_linear(cpu);

	/* CS limit before translation: #GP(0) outranks #PF (SDM Vol.3 6.9). In
	 * 64-bit mode the limit is not checked but RIP must be canonical (SDM Vol.3
	 * 6.15 "Interrupt 13": fetch from a non-canonical address is #GP(0)). */
	if (cpu->mode != MODE_LONG64 ? cpu->rip > cpu->seg[SR_CS].limit && !cpu_quirk(cpu, QK_QEMU_CS_LIMIT_UNCHECKED)
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
	struct block *b = ram ? icache_find(cpu->icache, pa) : NULL;
	if (b && b->code_size == code_size &&
	    (block_within_cs_limit(cpu, b) || cpu_quirk(cpu, QK_QEMU_CS_LIMIT_UNCHECKED)) &&
	    block_second_page_holds(cpu, b, lin))
		return b;

	/* Decode a new block: into the slot of the one kept for pa, which no
	 * longer fits, or one its set gives up (MMIO/ROM code: a one-off block
	 * that is not cached). */
	if (!b)
		b = ram ? icache_victim(cpu->icache, pa) : &cpu->icache->uncached;
	icache_drop(cpu->icache, b);
	b->count = 0;
	b->code_size = (uint8_t)code_size;
	memset(b->links, 0, sizeof(b->links));
	b->next_link = 0;
	b->second_len = 0;
	uint64_t ip = cpu->rip, last_lin = lin;
	bool crosses_page = false, last_pure = false;
	struct thread_form_info info[BLOCK_MAX_INSNS];
	unsigned offset = 0;
	while (b->count < BLOCK_MAX_INSNS) {
		struct insn *in = &b->insns[b->count];
		uint64_t this_last = 0;
		status_t s = decode_at(cpu, ip, code_size, in, &this_last);
		if (s == ST_OK) {
			(void)insn_gate(cpu, in);
			if (cpu->quirks)
				insn_apply_quirks(cpu, in);
			in->thread = insn_thread_form(in, &info[b->count]);
			in->offset = (uint16_t)offset;
			in->nth = (uint8_t)b->count;
		}
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
		 * block of its own, whose second page every lookup checks
		 * (keep_second_page; SDM Vol.3 4.10: the fetch uses the current
		 * translation). */
		if ((this_last & PAGE_MASK) != (lin & PAGE_MASK)) {
			if (b->count > 0)
				break;
			crosses_page = true;
		}
		b->count++;
		offset += in->len;
		last_pure = info[b->count - 1].pure;
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
	insns_drop_dead_flags(b->insns, info, b->count);
	b->entry = b->insns[0].thread;
	/* The end of a threaded run: rIP is the block's end after a pure last
	 * instruction, what the last one left otherwise (emu/threaded.h). */
	b->insns[b->count] = (struct insn){
		.thread = last_pure ? thread_end_fallthrough : thread_end,
		.offset = (uint16_t)offset,
		.nth = b->count,
	};
	/* Kept when it lies in RAM, its second page (if any) checked at each
	 * lookup; the first block of a page takes the page's write permission
	 * out of the TLB, so that every store to the page meets the cache's
	 * check (emu/memory.c). A block not kept is not linked from: its slot
	 * is decoded into anew. */
	bool keep = ram && (!crosses_page || keep_second_page(cpu, b, lin, last_lin));
	b->chains = keep && block_keeps_cs(&b->insns[b->count - 1]);
	if (keep && icache_insert(cpu->icache, b, pa, (unsigned)(crosses_page ? PAGE_SIZE - (pa & (PAGE_SIZE - 1))
									   : last_lin - lin + 1))) {
		tlb_protect_phys_page(&cpu->tlb, pa);
		/* And in the other processors' TLBs: their stores reach this
		 * CPU's decoded code too (SDM Vol.3 8.1.3, emu/memory.c). */
		for (struct cpu *c = cpu->next_cpu; c && c != cpu; c = c->next_cpu)
			tlb_protect_phys_page(&c->tlb, pa);
	}
	/* Translated when it has proved hot (emu/jit.h); never the uncached
	 * scratch block, decoded anew each time. */
	b->heat = b != &cpu->icache->uncached ? cpu->icache->jit_hot : 0;
	b->jit_inner = b->jit_loaded = NULL;
	*st = ST_OK;
	return b;
}

