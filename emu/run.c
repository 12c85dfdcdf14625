/* The run loop: blocks of decoded instructions between instruction boundaries
 * that need a look.
 *
 *   cpu_run
 *     attention or a deadline due?  -> event_step (emu/event_step.c): stop,
 *                                      timers, interrupts, debug traps, VM exits
 *     one_step?                     -> run_one: one instruction with the debug
 *                                      checks around it (TF, DR7, shadows, trace)
 *     otherwise                     -> run_block: the block's instructions up to
 *                                      the next deadline, until one sets attention
 *     the status of the instruction that ended the block:
 *       ST_FAULT   rIP back to the instruction, deliver cpu->event (emu/exception.c)
 *       ST_VMEXIT  the hypervisor model switched worlds: carry on
 *       ST_HALT    wait for an event (event_wait), virtual time runs on
 *       otherwise  the run ends (stop, shutdown, unsupported)
 * Virtual time (cpu->icount) is counted per block; cpu_now() adds the
 * instructions of the running block. A REP string instruction, always a block's
 * last, adds its iterations itself (emu/rep_time.h).
 */
#include <string.h>

#include "emu/debug.h"
#include "emu/event_step.h"
#include "emu/fetch.h"
#include "emu/insn.h"
#include "emu/jit.h"
#include "emu/link_pages.h"
#include "emu/quirks.h"
#include "emu/threaded.h"
#include "isa_handlers.h"

/* The block at CS:rIP, or NULL with *st set by the fetch's fault. */
static inline struct block *current_block(struct cpu *cpu, status_t *st)
{
	struct block *b = block_lookup(cpu);
	if (__builtin_expect(b != NULL, 1))
		return b;
	return fetch_block(cpu, st);
}

/* The link context: everything a block link depends on besides its rIP and
 * its target (the TLB's epoch: no translation may have gone; CS base and
 * limit; CPL; the mode), as one id, so that following a link tests one number.
 * Within a chain of linked blocks it cannot change: an instruction that
 * changes any of it ends its block and that block does not chain
 * (fetch.c, block_keeps_cs). cpu_run brings it up to date before it follows
 * or makes a link. The few contexts seen last keep their ids, so that a
 * kernel's links survive the trips to user mode and back. */
static bool link_context_is(const struct link_context *c, const struct cpu *cpu)
{
	return c->id && c->tlb_epoch == cpu->tlb.epoch && c->cs_base == cpu->seg[SR_CS].base &&
	       c->cs_limit == cpu->seg[SR_CS].limit && c->cpl == cpu->cpl && c->mode == (uint8_t)cpu->mode;
}

static __attribute__((noinline)) void link_context_switch(struct cpu *cpu)
{
	struct link_context *ctx = cpu->link_contexts;
	const unsigned n = sizeof(cpu->link_contexts) / sizeof(ctx[0]);
	link_pages_carry(cpu);
	unsigned i = 0;
	while (i < n && !link_context_is(&ctx[i], cpu))
		i++;
	struct link_context now;
	if (i < n) {
		now = ctx[i];
	} else {
		/* A new id. After a reset (the id 0) or once the ids wrap, links
		 * made with an id about to be given again go first. */
		if (cpu->link_context_next == 0) {
			icache_flush(cpu->icache);
			memset(ctx, 0, sizeof(cpu->link_contexts));
			cpu->link_context_next = 1;
		}
		now = (struct link_context){ .id = cpu->link_context_next++, .tlb_epoch = cpu->tlb.epoch,
					     .cs_base = cpu->seg[SR_CS].base, .cs_limit = cpu->seg[SR_CS].limit,
					     .cpl = cpu->cpl, .mode = (uint8_t)cpu->mode };
		i = n - 1;
	}
	memmove(&ctx[1], &ctx[0], i * sizeof(ctx[0]));
	ctx[0] = now;
}

static inline void link_context_refresh(struct cpu *cpu)
{
	if (__builtin_expect(!link_context_is(&cpu->link_contexts[0], cpu), 0))
		link_context_switch(cpu);
}

/* Does link l still lead to its block: does everything that decided it
 * hold? The same rIP and link context (the translation of its page is the
 * one the lookup would use, SDM Vol.3 4.10.4.3 lets a processor keep using
 * it; rIP was within the same CS limit), the target block unchanged (its
 * slot's generation: no decode into it, no store dropping it). The code size
 * needs no test: the block left ran in the mode it was decoded for, and so
 * did the target when the link was made (a decode for another size would
 * have changed its generation). */
static inline bool link_holds(const struct cpu *cpu, const struct block_link *l)
{
	if (l->rip != cpu->rip || l->context != cpu->link_contexts[0].id)
		return false;
	if (__builtin_expect(l->to->gen == l->gen, 1))
		return true;
	/* A page-crossing instruction: its second page's frame is the one the
	 * link was made with, as its first page's is (the link context's TLB
	 * epoch); its bytes there are compared (SDM Vol.3 11.6). */
	return l->gen == (l->to->gen | LINK_SECOND_PAGE) && block_second_bytes_hold(cpu, l->to);
}

/* The block after prev, by one of prev's links that still holds; NULL: look
 * it up. */
static inline struct block *follow_link(const struct cpu *cpu, const struct block *prev)
{
	for (unsigned i = 0; i < 2; i++)
		if (link_holds(cpu, &prev->links[i]))
			return prev->links[i].to;
	return NULL;
}

/* The block the jump cache holds for rIP (emu/icache.h jumps[]), when it
 * still applies as a link would (follow_link): the same rIP and link
 * context, the target unchanged. NULL: look it up. */
static inline struct block *follow_jump_cache(struct cpu *cpu)
{
	const struct block_link *l = icache_jump(cpu->icache, cpu->rip);
	if (l->to && link_holds(cpu, l))
		return l->to;
	return NULL;
}

/* Remember that prev went on to b, if b is kept. One that is not kept (the
 * uncached one, whose slot the next decode reuses) is fetched afresh every
 * time (SDM Vol.3 11.6: a store to it is seen when it next runs); a
 * page-crossing instruction has its second page's bytes compared whenever
 * the link is followed (LINK_SECOND_PAGE), as its lookup compares them
 * (emu/fetch.h block_second_page_holds). */
static void add_link(struct cpu *cpu, struct block *prev, struct block *b)
{
	if (b->pa == BLOCK_INVALID)
		return;
	/* Its page's translation (and its second page's) must hold while the
	 * link stands: a flush of either starts a new epoch (mmu/tlb.h). */
	uint64_t lin = cpu_ip_linear(cpu);
	link_pages_note(cpu, lin, b->pa);
	if (b->second_len)
		link_pages_note(cpu, next_page_lin(cpu, lin), b->second_pa);
	struct block_link *l = &prev->links[prev->next_link];
	prev->next_link ^= 1;
	*l = (struct block_link){ .to = b, .rip = cpu->rip, .gen = b->gen | (b->second_len ? LINK_SECOND_PAGE : 0),
				  .context = cpu->link_contexts[0].id };
	*icache_jump(cpu->icache, cpu->rip) = *l;
}

/* Run up to budget instructions of b; stop after one that fails or sets
 * attention. The hot path: per instruction a store of where it starts, the
 * rIP advance, the call, and one test of status and attention. */
static inline status_t run_block(struct cpu *cpu, const struct block *b, uint64_t budget)
{
	const struct insn *in = b->insns;
	const struct insn *end = in + (b->count < budget ? b->count : budget);
	uint64_t mask = ip_mask(cpu);
	status_t st;

	uint64_t ip = cpu->rip;
	do {
		cpu->cur_insn = in;
		cpu->insn_start = ip;
		ip = (ip + in->len) & mask;
		cpu->rip = ip;
		st = in->exec(cpu, in);
		if (__builtin_expect(st != ST_OK, 0))
			break;
		in++;
		/* Only a block's last instruction moves rIP elsewhere (branches, mode
		 * changes, string instructions end blocks): ip stays right. */
	} while (in < end && !cpu->attention);
	cpu->icount += (uint64_t)(in - b->insns);
	cpu->cur_insn = b->insns;
	return st;
}

/* The generic step handler and the ends of a threaded run (emu/threaded.h). */
status_t thread_step(struct cpu *cpu, const struct insn *in)
{
	insn_step_begin(cpu, in);
	return insn_step_end(cpu, in, in->exec(cpu, in));
}

status_t thread_end(struct cpu *cpu, const struct insn *in)
{
	return thread_next_block(cpu, in);
}

status_t thread_end_fallthrough(struct cpu *cpu, const struct insn *in)
{
	cpu->rip = (cpu->block_ip + in->offset) & cpu->block_ip_mask;
	return thread_next_block(cpu, in);
}

/* The blocks b may go on to, brought into the cache while b runs: the link
 * test reads the target's first line (generation, entry), a handler its
 * first instruction, two cache lines that a kernel's code, spread over
 * thousands of blocks, rarely finds there. A prefetch of a null link reads
 * nothing. */
static inline void prefetch_links(const struct block *b)
{
	for (unsigned i = 0; i < 2; i++) {
		uintptr_t to = (uintptr_t)b->links[i].to;
		__builtin_prefetch((const void *)to);
		__builtin_prefetch((const void *)(to + offsetof(struct block, insns[0].thread)));
	}
}

/* How deep into the host's stack one threaded run may go before it returns to
 * cpu_run: the handlers tail-call each other and the translated code jumps,
 * so an optimised build chains blocks in one frame for as long as nothing
 * calls for a look (attention, a deadline, a link missing); where a compiler
 * does not (no optimisation, some handlers), each instruction is a stack
 * frame, and the chain ends once they fill this much. */
#define CHAIN_STACK_BYTES (256u << 10)

/* Has the run chained as deep as it may (CHAIN_STACK_BYTES)? */
static inline bool chain_too_deep(const struct cpu *cpu)
{
	return (uintptr_t)__builtin_frame_address(0) < cpu->chain_stack_floor;
}

/* What cpu_run would do after the block of `end`, when its next step is just
 * to follow a link to a block that fits in the budget: no attention, no
 * deadline before the next block's end. The mode cannot have changed (an
 * instruction that changes it ends its block with attention or without
 * links), so block_ip_mask holds. */
status_t thread_next_block(struct cpu *cpu, const struct insn *end)
{
	struct block *b = block_of(end);
	cpu->cur_insn = end;
	if (!b->chains || cpu->attention || chain_too_deep(cpu))
		return ST_OK;
	/* Back to its own start (a loop): b is still cached (a store to it sets
	 * attention; a page-crossing instruction's second page must be compared,
	 * by the lookup) and was fetched there in this very context (no instruction
	 * of a chaining block changes CS, CPL or the TLB but the last, which does
	 * not go back to the start). */
	struct block *next = cpu->rip == cpu->block_ip && b->pa != BLOCK_INVALID && !b->second_len ? b : follow_link(cpu, b);
	/* No link (a RET to another caller, an indirect jump elsewhere): the
	 * block cached for the new rIP, as cpu_run would look it up but without
	 * a fetch (which might fault or decode), linked as cpu_run would link it
	 * (the link context is the chain's: nothing in it has changed). */
	if (!next) {
		next = follow_jump_cache(cpu);
		if (!next)
			next = block_lookup(cpu);
		if (!next)
			return ST_OK;
		add_link(cpu, b, next);
	}
	uint64_t now = cpu->icount + end->nth;
	if (now + next->count > cpu->deadline)
		return ST_OK;
	cpu->icount = now;
	jit_enter(cpu->icache, next, cpu->cpl);
	prefetch_links(next);
	cpu->block_ip = cpu->rip;
	return next->entry(cpu, &next->insns[0]);
}

/* All of b and the blocks it chains to, threaded: the same as run_block(cpu,
 * b, b->count) and cpu_run's following links while they fit, with the
 * bookkeeping only where it is read. Returns the status of the last
 * instruction run; *last: the block it is in. */
static inline status_t run_block_threaded(struct cpu *cpu, struct block *b, struct block **last)
{
	/* cur_insn is set by the step handlers that read time, and by the end. */
	cpu->block_ip = cpu->rip;
	cpu->block_ip_mask = ip_mask(cpu);
	cpu->chain_stack_floor = (uintptr_t)__builtin_frame_address(0) - CHAIN_STACK_BYTES;
	status_t st = b->entry(cpu, &b->insns[0]);
	cpu->icount += cpu->cur_insn->nth;
	*last = block_of(cpu->cur_insn);
	cpu->cur_insn = (*last)->insns;
	return st;
}

/* INT n, INT3, INTO, INT1 (one-byte map CC, CD, CE, F1). */
static bool is_software_interrupt(const struct insn *in)
{
	return in->map == 0 && (in->opcode == 0xcc || in->opcode == 0xcd || in->opcode == 0xce ||
				in->opcode == 0xf1);
}

/* One instruction with what single-stepping, breakpoints and tracing need. */
static status_t run_one(struct cpu *cpu)
{
	status_t st;
	cpu->insn_start = cpu->rip;
	/* DR7: the instruction breakpoint is checked before the fetch (SDM Vol.3
	 * 6.9 Table 6-2). */
	bool debug_on = debug_active(cpu);
	if (__builtin_expect(debug_on, 0) && (st = debug_check_insn(cpu)) != ST_OK)
		return st;
	struct block *b = current_block(cpu, &st);
	if (!b)
		return st;
	/* SDM Vol.3 17.3.1.4: with TF set when an instruction starts, a #DB trap
	 * (DR6.BS) follows it, unless it raised an exception or MOV SS/POP SS
	 * inhibited debug exceptions (SDM 6.8.3). INT n, INT3, INTO and INT1
	 * deliver an event that clears TF: no trap follows them. */
	bool single_step = cpu->rflags & FLAG_TF;
	uint16_t cs_before = cpu->seg[SR_CS].selector;
	/* The instruction after STI / MOV SS runs alone, so that nothing is
	 * recognised between it and the one that set the shadow (SDM 6.8.3); the
	 * shadow ends with it. */
	cpu->insn_shadow = cpu->shadow;
	cpu->shadow = 0;
	if ((cpu->trace & TRACE_INSN) && cpu->trace_insn)
		cpu->trace_insn(cpu, &b->insns[0]);
	bool was_guest = cpu->in_guest;
	st = run_block(cpu, b, 1);
	cpu->insn_shadow = 0;
	/* A VMRUN with the host's TF set: the single-step trap is the host's,
	 * after the VMRUN completes, i.e. once the #VMEXIT has returned to the
	 * host (kvm-unit-tests' host_rflags citing the APM); at once if the
	 * guest never ran or has already exited. cpu_world_switched() raises a
	 * deferred one. */
	if (st == ST_VMEXIT && single_step && !was_guest) {
		if (cpu->in_guest)
			cpu->step_at_vmexit = true;
		else
			debug_arm_trap(cpu, true);
	}
	if (cpu->step_by_result) {
		cpu->step_by_result = false;
		single_step = cpu->rflags & FLAG_TF;
	}
	/* HLT and MWAIT complete before the processor waits: their single-step
	 * trap is armed like any instruction's, and a pending #DB is an event
	 * that ends the wait, delivered with the next instruction as return
	 * address (SDM Vol.3 17.3.1.4, Table 6-2; kvm-unit-tests' debug
	 * "Single-step #DB w/ STI;HLT"). */
	if (st != ST_OK && st != ST_HALT)
		return st;
	/* SDM Vol.3 "Monitor Trap Flag": with the model's MTF armed, an MTF VM
	 * exit is pending after the instruction completes (HLT too). */
	if (cpu->hv_armed & HV_ARM_MTF)
		cpu_hv_arm(cpu, HV_MTF_DUE);
	/* APM2 Table 15-10: with GIF = 0 a data breakpoint match is ignored and
	 * discarded. */
	if (!cpu->gif)
		cpu->debug_hits = 0;
	/* A taken branch: a control transfer that did not fall through. LBR
	 * records it (software interrupts are recorded as events, when they are
	 * delivered); with BTF, TF single-steps only on branches (SDM Vol.3
	 * 17.4.3, APM2 13.1.1.6). */
	if (__builtin_expect(cpu->debugctl & (DEBUGCTL_LBR | DEBUGCTL_BTF), 0)) {
		const struct insn *in = &b->insns[0];
		bool branched = (isa_rows[in->row].flags & IF_JUMP) && !is_software_interrupt(in) &&
				(cpu->rip != cpu->insn_start + in->len || cpu->seg[SR_CS].selector != cs_before);
		if (branched && (cpu->debugctl & DEBUGCTL_LBR))
			debug_record_branch(cpu, cpu->insn_start, cpu->rip);
		if (cpu->debugctl & DEBUGCTL_BTF)
			single_step = single_step && branched;
	}
	/* Single-step and data-breakpoint traps of this instruction: one #DB, taken
	 * at the boundary by priority (emu/event_step.c). Only MOV SS / POP SS hold
	 * debug exceptions off for one instruction; the STI shadow blocks maskable
	 * interrupts only, so an STI that sets IF still single-steps (SDM Vol.3
	 * 6.8.3; this is why VM entry wants pending-debug BS = 1 with STI blocking
	 * and TF, SDM 26.3.1.5). The quirk qemu-sti-holds-step holds it off after
	 * every STI as after MOV SS. */
	if (single_step | debug_on)
		debug_arm_trap(cpu, single_step && !(cpu->shadow & SHADOW_MOV_SS) &&
			       !(b->insns[0].exec == op_sti && cpu_quirk(cpu, QK_QEMU_STI_HOLDS_STEP)) &&
			       !is_software_interrupt(&b->insns[0]));
	return st;
}

status_t cpu_run(struct cpu *cpu)
{
	/* Whatever the caller changed (the instruction limit, registers, lines),
	 * look at it before the first instruction. */
	cpu_set_deadline(cpu, DEADLINE_MACHINE, cpu->deadlines[DEADLINE_MACHINE].at);
	cpu_attend(cpu, ATT_EVENT | ATT_STEP);
	/* SMP: a CPU that was halted (or waiting for a SIPI) when its last run
	 * returned to the schedule goes on waiting. */
	if (cpu->halted && cpu->halt_yields) {
		status_t st = event_wait(cpu);
		if (st != ST_OK)
			return st;
	}
	struct block *prev = NULL;     /* the block that just ran, when it chains */
	for (;;) {
		status_t st;
		bool one_step = false;
		/* The translator's code area is full: start again, here where no
		 * block is running (emu/jit.c). */
		if (__builtin_expect(cpu->icache->jit_full, 0)) {
			icache_flush(cpu->icache);
			prev = NULL;
		}
		if (__builtin_expect(cpu->attention != 0 || cpu->icount >= cpu->deadline, 0)) {
			prev = NULL;
			/* At a boundary no instruction runs: an event delivered here,
			 * a shutdown in its delivery, reports the one it interrupts
			 * (block changes do not set insn_start; step handlers do). */
			cpu->insn_start = cpu->rip;
			st = event_step(cpu, &one_step);
			/* The boundary left the CPU waiting (an INIT for an AP, a
			 * model's event that delivered nothing to a halted guest):
			 * wait here as after HLT. */
			if (st == ST_HALT && cpu->halted)
				st = event_wait(cpu);
			if (st != ST_OK)
				return st;
			/* A delivered event may have used the last instruction allowed. */
			if (cpu->icount_limit && cpu->icount >= cpu->icount_limit)
				continue;
		}
		if (__builtin_expect(one_step, 0)) {
			st = run_one(cpu);
		} else {
			cpu->insn_start = cpu->rip;
			link_context_refresh(cpu);
			struct block *b = prev ? follow_link(cpu, prev) : NULL;
			if (!b) {
				b = current_block(cpu, &st);
				/* A decode may have taken a page's write permission out
				 * of the TLB (a new epoch). */
				link_context_refresh(cpu);
				if (b && prev)
					add_link(cpu, prev, b);
			}
			/* Up to the next deadline; at least one instruction, should a
			 * deadline source have asked for a time already past. */
			uint64_t budget = cpu->deadline > cpu->icount ? cpu->deadline - cpu->icount : 1;
			if (b) {
				jit_enter(cpu->icache, b, cpu->cpl);
				struct block *last = b;
				st = b->count <= budget ? run_block_threaded(cpu, b, &last) : run_block(cpu, b, budget);
				prev = st == ST_OK && last->chains ? last : NULL;
			}
		}
		if (__builtin_expect(st == ST_OK, 1))
			continue;
		prev = NULL;

		switch (st) {
		case ST_FAULT:
			/* Faults report the faulting instruction's address (SDM Vol.3 6.5). */
			cpu->rip = cpu->insn_start;
			st = cpu_deliver_event(cpu);
			/* A delivered exception is a step of virtual time: a guest that
			 * faults forever (its handler faults again) still reaches the
			 * limit. */
			cpu->icount++;
			if (st == ST_OK)
				continue;
			if (st != ST_VMEXIT)
				return st;
			/* The exception became a VM exit. */
			cpu_attend(cpu, ATT_EVENT | ATT_STEP);
			continue;
		case ST_VMEXIT:
			/* The hypervisor model switched to the host: it simply continues. */
			cpu_attend(cpu, ATT_EVENT | ATT_STEP);
			continue;
		case ST_HALT:
			cpu->icount++;     /* HLT/MWAIT retired */
			cpu->halted = true;
			st = event_wait(cpu);
			if (st == ST_OK)
				continue;
			return st;
		case ST_STOP:
			/* The OUT that asked to stop has retired; the request is answered. */
			if (cpu->stop_requested) {
				cpu->icount++;
				cpu_stop_answered(cpu);
			}
			return st;
		default:
			return st;
		}
	}
}
