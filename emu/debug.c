/* Breakpoint matching and #DB conditions (SDM Vol.3 17.2, 17.3). See
 * emu/debug.h for where each function runs. */
#include "emu/debug.h"

#include "emu/cpu_model.h"
#include "emu/quirks.h"


/* Bytes a breakpoint covers, from LENn (SDM Vol.3 17.2.5): 00 one byte, 01
 * two, 11 four, 10 eight (on processors with Intel 64; undefined on
 * others). The SDM calls unaligned breakpoint addresses undefined; hvemu
 * ignores the address bits below the length. */
static const uint8_t len_bytes[4] = { 1, 2, 8, 4 };

/* Linear addresses compare in 32 bits outside 64-bit mode (SDM Vol.3 3.4). */
static inline uint64_t bp_addr(const struct cpu *cpu, uint64_t a)
{
	return cpu_is_mode64(cpu) ? a : (uint32_t)a;
}

unsigned debug_match_insn(const struct cpu *cpu, uint64_t lin)
{
	uint64_t dr7 = cpu->dr[7];
	unsigned hits = 0;
	lin = bp_addr(cpu, lin);
	/* SDM Vol.3 17.3.1.1: an instruction breakpoint (R/W = 00) matches the
	 * linear address of the instruction's first byte; its LEN must be 00. */
	for (unsigned n = 0; n < 4; n++)
		if (dr7_enabled(dr7, n) && dr7_rw(dr7, n) == DR_RW_EXEC &&
		    bp_addr(cpu, cpu->dr[n]) == lin)
			hits |= 1u << n;
	return hits;
}

unsigned debug_match_data(const struct cpu *cpu, uint64_t lin, unsigned size, bool write)
{
	uint64_t dr7 = cpu->dr[7];
	unsigned hits = 0;
	lin = bp_addr(cpu, lin);
	for (unsigned n = 0; n < 4; n++) {
		unsigned rw = dr7_rw(dr7, n);
		/* SDM Vol.3 17.2.4: 01 breaks on writes, 11 on reads and writes
		 * (not fetches); 10 is I/O (debug_match_io). */
		if (!dr7_enabled(dr7, n) || !(rw == DR_RW_RDWR || (rw == DR_RW_WRITE && write)))
			continue;
		uint64_t len = len_bytes[dr7_len(dr7, n)];
		uint64_t start = bp_addr(cpu, cpu->dr[n]) & ~(len - 1);
		/* SDM Vol.3 17.2.5: any byte of the access within the breakpoint's
		 * range triggers it. */
		if (lin <= start + len - 1 && start <= lin + size - 1)
			hits |= 1u << n;
	}
	return hits;
}

unsigned debug_match_io(const struct cpu *cpu, uint16_t port, unsigned size)
{
	uint64_t dr7 = cpu->dr[7];
	unsigned hits = 0;
	/* SDM Vol.3 17.2.4: R/W = 10 means I/O reads and writes only with
	 * CR4.DE = 1 (undefined otherwise: hvemu never matches then). The
	 * breakpoint address is the port number, aligned down to its LEN. */
	if (!(cpu->cr4 & CR4_DE))
		return 0;
	for (unsigned n = 0; n < 4; n++) {
		if (!dr7_enabled(dr7, n) || dr7_rw(dr7, n) != DR_RW_IO)
			continue;
		uint32_t len = len_bytes[dr7_len(dr7, n)];
		uint32_t start = (uint32_t)(cpu->dr[n] & 0xffff) & ~(len - 1);
		if ((uint32_t)port <= start + len - 1 && start <= (uint32_t)port + size - 1)
			hits |= 1u << n;
	}
	return hits;
}

void debug_check_io(struct cpu *cpu, uint16_t port, unsigned size)
{
	cpu->debug_hits |= debug_match_io(cpu, port, size);
}

bool debug_page_watched(const struct cpu *cpu, uint64_t lin)
{
	uint64_t dr7 = cpu->dr[7];
	for (unsigned n = 0; n < 4; n++)
		if (dr7_enabled(dr7, n) && dr7_rw(dr7, n) != DR_RW_EXEC && dr7_rw(dr7, n) != DR_RW_IO &&
		    ((bp_addr(cpu, cpu->dr[n]) ^ bp_addr(cpu, lin)) & PAGE_MASK) == 0)
			return true;
	return false;
}

/* Drop whatever the TLB holds for the page of a watched address. The TLB is
 * direct-mapped by linear page, so only one slot per bank can hold it. */
static void forget_watched_pages(struct cpu *cpu)
{
	uint64_t dr7 = cpu->dr[7];
	for (unsigned n = 0; n < 4; n++) {
		if (!dr7_enabled(dr7, n) || dr7_rw(dr7, n) == DR_RW_EXEC || dr7_rw(dr7, n) == DR_RW_IO)
			continue;
		uint64_t page = bp_addr(cpu, cpu->dr[n]) & PAGE_MASK;
		for (unsigned b = 0; b < TLB_BANKS; b++)
			for (unsigned a = 0; a < TLB_ACCESS_KINDS; a++) {
				struct tlb_entry *e = tlb_find(&cpu->tlb, b, (enum tlb_access)a, page);
				if (e)
					tlb_entry_clear(e);
			}
	}
}

status_t debug_check_insn(struct cpu *cpu)
{
	forget_watched_pages(cpu);
	/* Hits of the instruction before a MOV SS shadow are reported after the
	 * shadowed one (SDM Vol.3 6.8.3); otherwise a new instruction starts
	 * with none (a faulting one loses its hits: it did not complete). */
	if (!(cpu->shadow & SHADOW_MOV_SS) || cpu_quirk(cpu, QK_BOCHS_MOV_SS_DATA_BP_DROPPED))
		cpu->debug_hits = 0;
	/* SDM Vol.3 17.3.1.1: RF=1 suppresses instruction breakpoints; "the RF
	 * flag is cleared at the start of the instruction after the check for
	 * code breakpoint" (and a fault of the instruction pushes RF=1 anyway). */
	if (cpu->rflags & FLAG_RF) {
		cpu->rflags &= ~(uint64_t)FLAG_RF;
		return ST_OK;
	}
	/* SDM Vol.3 6.8.3: after MOV SS / POP SS "debug exceptions" are inhibited
	 * until the boundary after the next instruction; a code breakpoint on that
	 * instruction is a fault of its start, so it is lost, not delayed (the
	 * instruction has run by the time the window closes). The AMD models do
	 * the same: the APM's MOV SS / POP SS shadow (APM3 MOV, POP) states no
	 * other rule for breakpoints. */
	if (cpu->shadow & SHADOW_MOV_SS)
		return ST_OK;
	uint64_t lin = cpu_ip_linear(cpu);
	unsigned hits = debug_match_insn(cpu, lin);
	if (!hits)
		return ST_OK;
	/* SDM Vol.3 17.2.3: B0-B3 report the breakpoints that matched ("certain
	 * debug exceptions may clear bits 0-3"); a fault-class #DB, raised before
	 * the instruction executes (Table 6-2 priority 7, before fetch faults). */
	status_t st = cpu_raise(cpu, EXC_DB);
	cpu->event.dr6 = (uint16_t)hits;
	return st;
}

void debug_check_data(struct cpu *cpu, uint64_t lin, unsigned size, bool write)
{
	cpu->debug_hits |= debug_match_data(cpu, lin, size, write);
}

uint16_t debug_trap_pending(struct cpu *cpu, bool single_step)
{
	if (cpu->shadow & SHADOW_MOV_SS)
		return 0;
	unsigned hits = (unsigned)cpu->debug_hits;
	cpu->debug_hits = 0;
	/* SDM Vol.3 6.9 Table 6-2 priority 4: data breakpoints and single-step
	 * are traps of the instruction just completed, reported together in one
	 * #DB with every DR6 bit that applies (17.3.1.2, 17.3.1.4). */
	return (uint16_t)(hits | (single_step ? DR6_BS : 0));
}

uint16_t debug_dr6_merge(uint16_t old, uint16_t bits)
{
	/* SDM Vol.3 17.2.3: B0-B3 report the breakpoints of this #DB ("certain
	 * debug exceptions may clear bits 0-3"); BD, BS and BT are sticky. */
	if (bits & DR6_B_MASK)
		old &= (uint16_t)~DR6_B_MASK;
	return (uint16_t)(old | bits);
}

void debug_deliver_dr6(struct cpu *cpu, const struct event *ev)
{
	if (!ev->dr6)
		return;
	cpu->dr[6] = (cpu->dr[6] & ~(uint64_t)0xffff) | debug_dr6_merge((uint16_t)cpu->dr[6], ev->dr6);
	/* SDM Vol.3 17.2.4: "The processor clears the GD flag upon entering to the
	 * debug exception handler", of the general-detect #DB (BD). */
	if (ev->dr6 & DR6_BD)
		cpu->dr[7] &= ~DR7_GD;
}

uint16_t debug_take_held_hits(struct cpu *cpu)
{
	uint16_t hits = (uint16_t)cpu->debug_hits;
	cpu->debug_hits = 0;
	return hits;
}

/* ---- DebugCtl and the last-branch records ---- */

uint64_t debugctl_writable(const struct cpu *cpu)
{
	return cpu_is_amd(cpu) ? 0x3full : DEBUGCTL_LBR | DEBUGCTL_BTF;   /* APM2 13.1.1.6: PB3-PB0 in 5:2 */
}

void debug_record_branch(struct cpu *cpu, uint64_t from, uint64_t to)
{
	cpu->last_branch_from = from;
	cpu->last_branch_to = to;
}

void debug_event_delivered(struct cpu *cpu, bool debug_exception, uint64_t from, uint64_t to)
{
	if (debug_exception) {
		cpu->debugctl &= ~(DEBUGCTL_LBR | DEBUGCTL_BTF);
		return;
	}
	if (!(cpu->debugctl & DEBUGCTL_LBR))
		return;
	cpu->last_exception_from = cpu->last_branch_from;
	cpu->last_exception_to = cpu->last_branch_to;
	debug_record_branch(cpu, from, to);
}
