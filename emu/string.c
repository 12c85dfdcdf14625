/* String instructions MOVS/CMPS/STOS/LODS/SCAS and their REP forms.
 *
 * SDM Vol.2 "REP/REPE/REPZ/REPNE/REPNZ": the count register and the index
 * registers are chosen by the address size (CX/SI/DI, ECX/ESI/EDI, RCX/RSI/RDI);
 * a zero count does nothing; the source segment may be overridden, the
 * destination is always ES (SDM Vol.1 3.7.5 / Vol.2 MOVS). A repeated string
 * instruction is restartable: on a fault the registers show the iterations that
 * completed and RIP stays on the instruction. Every iteration is one unit of
 * virtual time, and one execution runs only up to the next deadline (at most
 * REP_CHUNK iterations): the handler then sets RIP back to insn_start so the core
 * loop re-enters it after taking interrupts and checking its instruction limit
 * (emu/rep_time.h; the SDM recognises interrupts between iterations).
 *
 * Fast path: when the next elements of a MOVS/STOS lie within one page on each
 * side, pass the segment checks and hit the TLB, they are copied directly on the
 * host; anything else (MMIO, code pages, TLB misses, page and limit edges) takes
 * the exact one-element-at-a-time path, which also refills the TLB.
 */
#include <string.h>

#include "emu/flags.h"
#include "emu/operand.h"
#include "emu/rep_time.h"
#include "isa_handlers.h"

/* Per-instruction constants: element size, address-size mask, direction. */
struct strctx {
	unsigned size, as;
	uint64_t amask;
	int64_t step;              /* +size, or -size with EFLAGS.DF = 1 */
	bool rep;
	uint64_t count;            /* remaining iterations (1 without REP) */
	struct rep_clock rc;       /* this execution's iterations in virtual time */
};

static inline void str_init(struct cpu *cpu, const struct insn *in, struct strctx *s)
{
	s->size = in->size;
	s->as = in->asize;
	s->amask = size_mask(in->asize);
	s->step = (cpu->rflags & FLAG_DF) ? -(int64_t)in->size : (int64_t)in->size;
	s->rep = in->rep != REP_NONE;
	s->count = s->rep ? cpu->regs[R_CX] & s->amask : 1;
	rep_clock_start(cpu, &s->rc);
}

static inline uint64_t idx(const struct cpu *cpu, const struct strctx *s, unsigned r)
{
	return cpu->regs[r] & s->amask;
}

/* Advance index register r by n elements, at the address size. */
static inline void advance(struct cpu *cpu, const struct strctx *s, unsigned r, uint64_t n)
{
	reg_write(cpu, r, s->as, false, cpu->regs[r] + (uint64_t)s->step * n);
}

/* Store the count of the iterations done. A count that did not change means no
 * iteration ran (a zero count): rCX is not written then, so with a 67 prefix in
 * 64-bit mode RCX keeps its upper half (measured on the host by tests/diff
 * host-diff-64; after an iteration ECX is written and zero-extended). Returns
 * whether it wrote. */
static inline bool store_count(struct cpu *cpu, const struct strctx *s)
{
	if (!s->rep || s->count == (cpu->regs[R_CX] & s->amask))
		return false;
	reg_write(cpu, R_CX, s->as, false, s->count);
	return true;
}

/* The execution retires: store the count; if more remain, make the core come
 * back to this instruction. */
static inline status_t finish(struct cpu *cpu, const struct strctx *s, bool more)
{
	rep_retire(cpu, &s->rc);
	if (store_count(cpu, s) && more && s->count)
		cpu->rip = cpu->insn_start;
	return ST_OK;
}

/* An iteration failed with st (a fault, a VM exit): the registers show the
 * iterations completed, RIP stays on the instruction. */
static inline status_t failed(struct cpu *cpu, const struct strctx *s, status_t st)
{
	(void)store_count(cpu, s);
	return st;
}

/* How many of the next n elements at seg:off (walking in the direction of
 * s->step) can be accessed directly: within the page, the address-size range,
 * the segment limits and a TLB hit. Returns the count and the host pointer of
 * the lowest-addressed byte, or 0. */
static uint64_t direct_span(struct cpu *cpu, const struct strctx *s, unsigned seg,
			    uint64_t off, enum tlb_access acc, uint64_t n, uint8_t **host)
{
	unsigned perm = acc == TLB_WRITE ? SEG_PERM_WRITE : SEG_PERM_READ;
	const struct segment *sg = &cpu->seg[seg];
	bool mode64 = cpu_is_mode64(cpu);
	uint64_t base = mode64 ? ((seg == SR_FS || seg == SR_GS) ? sg->base : 0) : sg->base;
	uint64_t lin = base + off;
	if (!mode64)
		lin = (uint32_t)lin;
	uint64_t in_page = lin & (PAGE_SIZE - 1);
	uint64_t k;

	if (in_page + s->size > PAGE_SIZE)
		return 0;
	/* SDM Vol.3 6.15 (#AC): misaligned CPL-3 accesses with CR0.AM and EFLAGS.AC
	 * fault; every element shares the first one's alignment, and mem_read/
	 * mem_write raise the exception on the slow path. */
	if (cpu->cpl == 3 && (lin & (s->size - 1)) && (cpu->cr0 & CR0_AM) &&
	    (cpu->rflags & FLAG_AC))
		return 0;
	if (s->step > 0) {
		k = (PAGE_SIZE - in_page) / s->size;
		/* Stop before the offset wraps at the address size. */
		uint64_t to_wrap = (s->amask - off) / s->size + 1;
		if (k > to_wrap)
			k = to_wrap;
	} else {
		k = in_page / s->size + 1;
		uint64_t to_wrap = off / s->size + 1;
		if (k > to_wrap)
			k = to_wrap;
	}
	if (k > n)
		k = n;
	uint64_t lo_off = s->step > 0 ? off : off - (k - 1) * s->size;
	uint64_t lo_lin = s->step > 0 ? lin : lin - (k - 1) * s->size;
	uint64_t bytes = k * s->size;
	if (!mode64 && !seg_access_ok(sg, lo_off, (unsigned)bytes, perm))
		return 0;
	uint8_t *p = tlb_lookup(&cpu->tlb, cpu->cpl == 3 ? TLB_USER : TLB_SUPERVISOR, acc,
				lo_lin, (unsigned)bytes);
	if (!p)
		return 0;
	*host = p;
	return k;
}

/* MOVS: ES:[rDI] <- seg:[rSI] (SDM Vol.2 MOVS). F2 repeats it like F3. */
status_t op_movs(struct cpu *cpu, const struct insn *in)
{
	struct strctx s;
	str_init(cpu, in, &s);
	uint64_t want;

	while ((want = rep_room(cpu, &s.rc, s.count)) != 0) {
		uint8_t *src = NULL, *dst = NULL;
		uint64_t k = 0;
		if (want > 1) {
			k = direct_span(cpu, &s, in->seg, idx(cpu, &s, R_SI), TLB_READ, want, &src);
			if (k)
				k = direct_span(cpu, &s, SR_ES, idx(cpu, &s, R_DI), TLB_WRITE, k, &dst);
			/* The spans must be equally long; retry the source at the
			 * destination's length if that one was shorter. */
			if (k && k < want)
				k = direct_span(cpu, &s, in->seg, idx(cpu, &s, R_SI), TLB_READ, k, &src);
		}
		if (k > 1) {
			uint64_t bytes = k * s.size;
			if (dst + bytes <= src || src + bytes <= dst) {
				memcpy(dst, src, bytes);
			} else if (s.step > 0) {
				/* Overlap: element by element in the guest's order. */
				for (uint64_t i = 0; i < k; i++) {
					uint64_t t;
					memcpy(&t, src + i * s.size, s.size);
					memcpy(dst + i * s.size, &t, s.size);
				}
			} else {
				for (uint64_t i = k; i-- > 0;) {
					uint64_t t;
					memcpy(&t, src + i * s.size, s.size);
					memcpy(dst + i * s.size, &t, s.size);
				}
			}
			advance(cpu, &s, R_SI, k);
			advance(cpu, &s, R_DI, k);
			s.count -= k;
			rep_tick(cpu, &s.rc, k);
			continue;
		}
		uint64_t v;
		status_t st = mem_read(cpu, in->seg, idx(cpu, &s, R_SI), s.size, &v);
		if (st == ST_OK)
			st = mem_write(cpu, SR_ES, idx(cpu, &s, R_DI), s.size, v);
		if (st != ST_OK) {
			return failed(cpu, &s, st);
		}
		advance(cpu, &s, R_SI, 1);
		advance(cpu, &s, R_DI, 1);
		s.count--;
		rep_tick(cpu, &s.rc, 1);
	}
	return finish(cpu, &s, true);
}

/* STOS: ES:[rDI] <- AL/AX/EAX/RAX (SDM Vol.2 STOS). */
status_t op_stos(struct cpu *cpu, const struct insn *in)
{
	struct strctx s;
	str_init(cpu, in, &s);
	uint64_t v = reg_read(cpu, R_AX, s.size, false);
	uint64_t want;

	while ((want = rep_room(cpu, &s.rc, s.count)) != 0) {
		uint8_t *dst = NULL;
		uint64_t k = want > 1 ? direct_span(cpu, &s, SR_ES, idx(cpu, &s, R_DI), TLB_WRITE,
						     want, &dst) : 0;
		if (k > 1) {
			/* One byte repeated (a zero fill: clear_page's REP STOSQ)
			 * is a memset whatever the element size. */
			if (s.size == 1 || v == ((v & 0xff) * 0x0101010101010101ull & size_mask(s.size)))
				memset(dst, (int)(v & 0xff), k * s.size);
			else
				for (uint64_t i = 0; i < k; i++)
					memcpy(dst + i * s.size, &v, s.size);
			advance(cpu, &s, R_DI, k);
			s.count -= k;
			rep_tick(cpu, &s.rc, k);
			continue;
		}
		status_t st = mem_write(cpu, SR_ES, idx(cpu, &s, R_DI), s.size, v);
		if (st != ST_OK) {
			return failed(cpu, &s, st);
		}
		advance(cpu, &s, R_DI, 1);
		s.count--;
		rep_tick(cpu, &s.rc, 1);
	}
	return finish(cpu, &s, true);
}

/* LODS: AL/AX/EAX/RAX <- seg:[rSI] (SDM Vol.2 LODS). With REP only the last
 * element remains, but every element is still read (faults, MMIO side effects). */
status_t op_lods(struct cpu *cpu, const struct insn *in)
{
	struct strctx s;
	str_init(cpu, in, &s);

	while (rep_room(cpu, &s.rc, s.count)) {
		uint64_t v;
		status_t st = mem_read(cpu, in->seg, idx(cpu, &s, R_SI), s.size, &v);
		if (st != ST_OK) {
			return failed(cpu, &s, st);
		}
		reg_write(cpu, R_AX, s.size, false, v);
		advance(cpu, &s, R_SI, 1);
		s.count--;
		rep_tick(cpu, &s.rc, 1);
	}
	return finish(cpu, &s, true);
}

/* Flags of CMPS/SCAS: those of CMP a, b (SDM Vol.2 CMPS, SCAS). */
static inline bool compare(struct cpu *cpu, unsigned size, uint64_t a, uint64_t b)
{
	uint64_t m = size_mask(size), r = (a - b) & m;
	flags_lazy(cpu, LAZY_SUB, (unsigned)__builtin_ctz(size), r, a & m, b & m);
	return r == 0;
}

/* REPE (F3) stops when ZF = 0, REPNE (F2) when ZF = 1 (SDM Vol.2 REP, Table 4-13). */
static inline bool repeat_ends(const struct insn *in, bool zf)
{
	return in->rep == REP_F3 ? !zf : zf;
}

/* CMPS: compare seg:[rSI] with ES:[rDI]. */
status_t op_cmps(struct cpu *cpu, const struct insn *in)
{
	struct strctx s;
	str_init(cpu, in, &s);

	while (rep_room(cpu, &s.rc, s.count)) {
		uint64_t a, b;
		status_t st = mem_read(cpu, in->seg, idx(cpu, &s, R_SI), s.size, &a);
		if (st == ST_OK)
			st = mem_read(cpu, SR_ES, idx(cpu, &s, R_DI), s.size, &b);
		if (st != ST_OK) {
			return failed(cpu, &s, st);
		}
		bool zf = compare(cpu, s.size, a, b);
		advance(cpu, &s, R_SI, 1);
		advance(cpu, &s, R_DI, 1);
		s.count--;
		rep_tick(cpu, &s.rc, 1);
		if (s.rep && repeat_ends(in, zf))
			return finish(cpu, &s, false);
	}
	return finish(cpu, &s, true);
}

/* SCAS: compare AL/AX/EAX/RAX with ES:[rDI]. */
status_t op_scas(struct cpu *cpu, const struct insn *in)
{
	struct strctx s;
	str_init(cpu, in, &s);
	uint64_t acc = reg_read(cpu, R_AX, s.size, false);

	while (rep_room(cpu, &s.rc, s.count)) {
		uint64_t b;
		status_t st = mem_read(cpu, SR_ES, idx(cpu, &s, R_DI), s.size, &b);
		if (st != ST_OK) {
			return failed(cpu, &s, st);
		}
		bool zf = compare(cpu, s.size, acc, b);
		advance(cpu, &s, R_DI, 1);
		s.count--;
		rep_tick(cpu, &s.rc, 1);
		if (s.rep && repeat_ends(in, zf))
			return finish(cpu, &s, false);
	}
	return finish(cpu, &s, true);
}
