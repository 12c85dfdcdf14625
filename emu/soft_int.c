/* Software interrupts: INT n, INT3, INTO, INT1 (ICEBP) and BOUND's #BR
 * (SDM Vol.2 INT n/INTO/INT3/INT1, BOUND; SDM Vol.3 20.3 interrupt
 * redirection in virtual-8086 mode). Each records its event with the
 * instruction's length and hands it to cpu_deliver_event() (emu/exception.c).
 */
#include "emu/debug.h"
#include "emu/hv.h"
#include "emu/operand.h"
#include "emu/segload.h"
#include "isa_handlers.h"

/* Record a software-generated event whose return address is the next
 * instruction (cpu->rip), and deliver it now. Its length goes with it: a VM
 * exit during its delivery reports it (SDM Vol.3 27.2.4, VM-exit instruction
 * length; APM2 15.20 NRIP for EVENTINJ of software interrupts). */
static status_t soft_event(struct cpu *cpu, const struct insn *in, uint8_t type, uint8_t vector)
{
	cpu->event = (struct event){ .pending = true, .type = type, .vector = vector,
				     .insn_len = in->len };
	return cpu_deliver_event(cpu);
}

/* TSS offset of the I/O map base; the interrupt redirection bitmap is the 32
 * bytes below it (SDM Vol.3 20.3.3, Figure 20-5). */
#define TSS32_IOMAP_BASE_OFF 0x66u
#define REDIR_BITMAP_BYTES 32u

/* Bit vector of the interrupt redirection bitmap of the current 32-bit TSS
 * (SDM Vol.3 20.3.3: "Bit 0 ... is located at the I/O base map address in the
 * TSS minus 32 bytes"). A bitmap outside the TSS limit, or no 32-bit TSS, is
 * #GP(0) as for the I/O bitmap (SDM Vol.1 19.5.2). */
static status_t redirection_bit(struct cpu *cpu, uint8_t vector, bool *set)
{
	const struct segment *tr = &cpu->tr;
	unsigned type = tr->attr & SEG_TYPE_MASK;
	uint64_t base, bits;
	if ((type != SYS_TSS32_AVAIL && type != SYS_TSS32_BUSY) || tr->limit < TSS32_IOMAP_BASE_OFF + 1)
		return cpu_raise_err(cpu, EXC_GP, 0);
	status_t st = lin_read_sys(cpu, sys_wrap32(cpu, tr->base, TSS32_IOMAP_BASE_OFF), 2, &base);
	if (st != ST_OK)
		return st;
	uint64_t off = base - REDIR_BITMAP_BYTES + vector / 8u;
	if (base < REDIR_BITMAP_BYTES || off > tr->limit)
		return cpu_raise_err(cpu, EXC_GP, 0);
	st = lin_read_sys(cpu, sys_wrap32(cpu, tr->base, off), 1, &bits);
	if (st != ST_OK)
		return st;
	*set = (bits >> (vector & 7)) & 1;
	return ST_OK;
}

/* SDM Vol.3 20.3.3 Table 20-2 methods 5 and 6: INT n redirected to the 8086
 * program's own handler through the IVT at linear address 0. FLAGS, CS, IP are
 * pushed on the v8086 stack (at IOPL < 3 FLAGS with IOPL = 3 and IF = VIF);
 * then IF (IOPL = 3) or VIF (IOPL < 3) and TF are cleared. */
static status_t v86_redirect(struct cpu *cpu, uint8_t vector, unsigned iopl)
{
	uint64_t entry;
	uint64_t flags = cpu_get_flags(cpu);
	status_t st = lin_read_sys(cpu, (uint32_t)vector * 4, 4, &entry);
	if (st != ST_OK)
		return st;
	uint64_t pushed = flags & 0xffff;
	if (iopl < 3)
		pushed = (pushed & ~(uint64_t)FLAG_IF) | ((flags & FLAG_VIF) ? FLAG_IF : 0) | FLAG_IOPL;
	struct stack_frame fr;
	frame_on_current(cpu, &fr);
	frame_add(&fr, 2, pushed);
	frame_add(&fr, 2, cpu->seg[SR_CS].selector);
	frame_add(&fr, 2, cpu->rip & 0xffff);
	if (!frame_fits(&fr))
		return cpu_raise_err(cpu, EXC_SS, 0);
	st = frame_write(cpu, &fr);
	if (st != ST_OK)
		return st;
	sp_write(cpu, fr.mask, frame_sp(&fr));
	flags &= ~(uint64_t)(FLAG_TF | (iopl == 3 ? FLAG_IF : FLAG_VIF));
	cpu_set_flags(cpu, flags);
	seg_load_v86(&cpu->seg[SR_CS], (uint16_t)(entry >> 16));
	cpu->rip = entry & 0xffff;
	return ST_OK;
}

/* CD ib: INT n (SDM Vol.2 INT n). In virtual-8086 mode (SDM Vol.3 20.3.3
 * Table 20-2): without CR4.VME, IOPL < 3 is #GP(0) (method 2); with VME a
 * clear bit in the redirection bitmap sends it to the 8086 IVT (methods 5,
 * 6), a set bit to the IDT at IOPL = 3 (method 4) and #GP(0) below (3). */
status_t op_int(struct cpu *cpu, const struct insn *in)
{
	uint8_t vector = (uint8_t)in->imm;
	unsigned iopl = (unsigned)((cpu_get_flags(cpu) & FLAG_IOPL) >> FLAG_IOPL_SHIFT);
	bool to_idt = true;
	status_t st;
	if (cpu->mode == MODE_V86) {
		if ((cpu->cr4 & CR4_VME) && (st = redirection_bit(cpu, vector, &to_idt)) != ST_OK)
			return st;
		if (to_idt && iopl < 3)
			return cpu_raise_err(cpu, EXC_GP, 0);
	}
	/* APM2 15.9: the INTn intercept after the instruction's privilege checks. */
	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	if (!to_idt)
		return v86_redirect(cpu, vector, iopl);
	return soft_event(cpu, in, EV_SOFTINT, vector);
}

/* CC: INT3, a trap through vector 3 with the gate-DPL check (SDM Vol.2 INT3);
 * not IOPL-sensitive in v8086 mode (SDM Vol.3 20.3.1.1). */
status_t op_int3(struct cpu *cpu, const struct insn *in)
{
	return soft_event(cpu, in, EV_SOFTEXC, EXC_BP);
}

/* CE: INTO: #OF as a trap when OF=1 (SDM Vol.2 INTO). */
status_t op_into(struct cpu *cpu, const struct insn *in)
{
	if (!(cpu_get_flags(cpu) & FLAG_OF))
		return ST_OK;
	return soft_event(cpu, in, EV_SOFTEXC, EXC_OF);
}

/* F1: INT1/ICEBP: #DB as a trap, without the gate-DPL check (SDM Vol.2 INT1,
 * Vol.3 6.12.1.1). */
status_t op_int1(struct cpu *cpu, const struct insn *in)
{
	status_t st = intercept_insn(cpu, in);     /* APM2 15.9 ICEBP intercept */
	if (st != ST_OK)
		return st;
	uint16_t hits = debug_take_held_hits(cpu);
	cpu->event = (struct event){ .pending = true, .type = EV_PRIV_SOFTEXC, .vector = EXC_DB,
				     .insn_len = in->len, .dr6 = hits };
	return cpu_deliver_event(cpu);
}

/* 62 /r: BOUND Gv, Ma: #BR (a fault) when the signed index is below the lower
 * or above the upper bound (SDM Vol.2 BOUND). */
status_t op_bound(struct cpu *cpu, const struct insn *in)
{
	unsigned size = in->osize;
	uint64_t ea = insn_ea(cpu, in), lo, hi;
	status_t st = mem_read(cpu, in->seg, ea, size, &lo);
	if (st != ST_OK)
		return st;
	st = mem_read(cpu, in->seg, (ea + size) & size_mask(in->asize), size, &hi);
	if (st != ST_OK)
		return st;
	int64_t idx = sign_extend(greg_read(cpu, in, size), size);
	if (idx < sign_extend(lo, size) || idx > sign_extend(hi, size)) {
		st = cpu_raise(cpu, EXC_BR);
		/* The length goes along: an SVM #BR intercept reports the next
		 * instruction as nRIP (APM2 15.7.1). */
		cpu->event.insn_len = in->len;
		return st;
	}
	return ST_OK;
}
