/* Port I/O: IN, OUT, INS, OUTS and their protection (SDM Vol.1 19.5 "I/O
 * protection", SDM Vol.2 IN/OUT/INS/OUTS). Order of events for every access:
 * IOPL / I/O-permission-bitmap check (faults take priority over VM exits, SDM
 * Vol.3 25.1.1), then the hypervisor intercept (intercept_io), then the bus. */
#include "emu/cpu.h"
#include "emu/debug.h"
#include "emu/hv.h"
#include "emu/operand.h"
#include "emu/rep_time.h"
#include "isa_handlers.h"

/* TSS offsets (SDM Vol.3 7.2.1, Figure 7-2): the 16-bit I/O map base at 66H; a
 * 32-bit TSS needs a limit of at least 67H. */
#define TSS32_IOMAP_BASE 0x66
#define TSS32_MIN_LIMIT  0x67

/* SDM Vol.1 19.5.1/19.5.2: in protected mode with CPL > IOPL, and always in
 * virtual-8086 mode (SDM Vol.3 20.2.8.1), the bits for ports port..port+size-1 in
 * the I/O permission bit map of the current 32-bit TSS must all be 0. The map
 * starts at the offset stored at TSS+66H; the processor reads two bytes of it
 * per check, and a byte beyond the TSS limit counts as set (#GP(0)). Without a
 * 32-bit TSS there is no map: #GP(0). */
status_t io_check_permission(struct cpu *cpu, uint16_t port, unsigned size)
{
	if (cpu->mode == MODE_REAL)
		return ST_OK;
	unsigned iopl = (unsigned)((cpu_get_flags(cpu) & FLAG_IOPL) >> FLAG_IOPL_SHIFT);
	if (cpu->mode != MODE_V86 && cpu->cpl <= iopl)
		return ST_OK;

	const struct segment *tr = &cpu->tr;
	unsigned type = tr->attr & SEG_TYPE_MASK;
	if (!(tr->attr & SEG_P) || (tr->attr & SEG_S) ||
	    (type != SYS_TSS32_AVAIL && type != SYS_TSS32_BUSY) || tr->limit < TSS32_MIN_LIMIT)
		return cpu_raise_err(cpu, EXC_GP, 0);

	bool m64 = cpu_is_mode64(cpu);
	uint64_t iomap, bits;
	status_t st;
	if ((st = lin_read_sys(cpu, seg_linear(tr, TSS32_IOMAP_BASE, m64), 2, &iomap)) != ST_OK)
		return st;
	uint64_t off = iomap + port / 8u;
	if (off + 1 > tr->limit)
		return cpu_raise_err(cpu, EXC_GP, 0);
	if ((st = lin_read_sys(cpu, seg_linear(tr, off, m64), 2, &bits)) != ST_OK)
		return st;
	if ((bits >> (port & 7u)) & ((1u << size) - 1))
		return cpu_raise_err(cpu, EXC_GP, 0);
	return ST_OK;
}

/* Port size of IN/OUT/INS/OUTS: the byte forms have an even opcode; the others
 * use 16 or 32 bits by operand size, never 64 (SDM Vol.2 IN: "In 64-bit mode, the
 * operand size of IN is ... 32 bits"). */
static inline unsigned port_size(const struct insn *in)
{
	return (in->opcode & 1) ? (in->osize == 2 ? 2 : 4) : 1;
}

/* E4-E7 take the port from an 8-bit immediate, EC-EF from DX. */
static inline uint16_t port_of(const struct cpu *cpu, const struct insn *in)
{
	return (in->opcode & 8) ? (uint16_t)cpu->regs[R_DX] : (uint16_t)(in->imm & 0xff);
}

/* After a port write: a device (isa-debug-exit) may have asked the machine to
 * stop; the instruction has completed. */
static inline status_t after_out(struct cpu *cpu)
{
	return cpu->stop_requested ? ST_STOP : ST_OK;
}

status_t op_in(struct cpu *cpu, const struct insn *in)
{
	unsigned size = port_size(in);
	uint16_t port = port_of(cpu, in);
	status_t st;

	if ((st = io_check_permission(cpu, port, size)) != ST_OK)
		return st;
	/* SDM Vol.3 17.2.4: I/O breakpoints (CR4.DE, R/W = 10) match the port. */
	if (debug_active(cpu))
		debug_check_io(cpu, port, size);
	if ((st = intercept_io(cpu, in, port, size, true, false, false)) != ST_OK)
		return st;
	/* A 32-bit IN clears RAX[63:32] like any 32-bit register write. */
	reg_write(cpu, R_AX, size, false, iobus_read(cpu->io, port, size));
	cpu_bus_cycle(cpu);
	return ST_OK;
}

status_t op_out(struct cpu *cpu, const struct insn *in)
{
	unsigned size = port_size(in);
	uint16_t port = port_of(cpu, in);
	status_t st;

	if ((st = io_check_permission(cpu, port, size)) != ST_OK)
		return st;
	/* SDM Vol.3 17.2.4: I/O breakpoints (CR4.DE, R/W = 10) match the port. */
	if (debug_active(cpu))
		debug_check_io(cpu, port, size);
	if ((st = intercept_io(cpu, in, port, size, false, false, false)) != ST_OK)
		return st;
	iobus_write(cpu->io, port, size, (uint32_t)reg_read(cpu, R_AX, size, false));
	cpu_bus_cycle(cpu);
	return after_out(cpu);
}

/* The pointer step of a string iteration: +size, or -size with EFLAGS.DF. */
static inline uint64_t string_step(struct cpu *cpu, unsigned size)
{
	return (cpu_get_flags(cpu) & FLAG_DF) ? (uint64_t)-(int64_t)size : size;
}

/* Shared REP driver of INS and OUTS. Each iteration moves one element between
 * port DX and memory, steps the pointer register by the address size and counts
 * rCX down; a fault leaves the registers as of the completed iterations, with
 * RIP at the instruction (SDM Vol.2 REP). With a REP prefix and rCX = 0 nothing
 * happens, no checks included. Each iteration is one unit of virtual time, and
 * one execution runs up to the next deadline (emu/rep_time.h): the device sees
 * the time of its iteration, a timer interrupt comes between iterations. */
static status_t string_io(struct cpu *cpu, const struct insn *in, bool is_in)
{
	unsigned size = port_size(in), asize = in->asize;
	uint16_t port = (uint16_t)cpu->regs[R_DX];
	bool rep = in->rep != REP_NONE;
	unsigned ptr = is_in ? R_DI : R_SI;
	/* INS always writes ES:rDI; OUTS reads DS:rSI with any segment override
	 * (SDM Vol.2 INS: "the ES segment cannot be overridden"). */
	unsigned seg = is_in ? SR_ES : in->seg;
	uint64_t count = rep ? reg_read(cpu, R_CX, asize, true) : 1;
	status_t st;

	if (count == 0)
		return ST_OK;
	if ((st = io_check_permission(cpu, port, size)) != ST_OK)
		return st;
	/* SDM Vol.3 17.2.4: I/O breakpoints (CR4.DE, R/W = 10) match the port. */
	if (debug_active(cpu))
		debug_check_io(cpu, port, size);
	if ((st = intercept_io(cpu, in, port, size, is_in, true, rep)) != ST_OK)
		return st;

	uint64_t step = string_step(cpu, size);
	struct rep_clock rc;
	rep_clock_start(cpu, &rc);
	while (rep_room(cpu, &rc, count)) {
		uint64_t off = reg_read(cpu, ptr, asize, true);
		if (is_in) {
			/* The destination is checked before the port is read, so a fault
			 * does not consume device data. */
			if ((st = mem_probe_write(cpu, seg, off, size)) != ST_OK)
				return st;
			uint32_t v = iobus_read(cpu->io, port, size);
			if ((st = mem_write(cpu, seg, off, size, v)) != ST_OK)
				return st;
		} else {
			uint64_t v;
			if ((st = mem_read(cpu, seg, off, size, &v)) != ST_OK)
				return st;
			iobus_write(cpu->io, port, size, (uint32_t)v);
		}
		reg_write(cpu, ptr, asize, true, off + step);
		count--;
		if (rep)
			reg_write(cpu, R_CX, asize, true, count);
		rep_tick(cpu, &rc, 1);
		if (!is_in && cpu->stop_requested)
			break;
	}
	rep_retire(cpu, &rc);
	/* Work remains: run the instruction again. */
	if (count)
		cpu->rip = cpu->insn_start;
	return is_in ? ST_OK : after_out(cpu);
}

status_t op_ins(struct cpu *cpu, const struct insn *in)
{
	return string_io(cpu, in, true);
}

status_t op_outs(struct cpu *cpu, const struct insn *in)
{
	return string_io(cpu, in, false);
}
