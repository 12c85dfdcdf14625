/* Running one guest x87 instruction on the host's x87 unit (emu/x87_host.c).
 *
 * The guest's register stack, tags, condition codes and control word are
 * loaded into the host FPU, the instruction's own encoding runs there, and the
 * host's resulting state becomes the guest's. The host IS the reference for
 * every result: the SDM leaves the transcendentals' last bit, FBLD of invalid
 * digits and C1 of several instructions to the implementation, and on this
 * design they are whatever the host's micro-architecture produces (the CI host
 * is an AMD EPYC; the guest's CPU model may name another vendor).
 */
#ifndef HVEMU_EMU_X87_HOST_H
#define HVEMU_EMU_X87_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/fpu_state.h"

/* x87_host_insn.reads for instructions that always take the exact path. */
#define X87_EXACT (-2)

/* One instruction for the host: the escape byte and ModRM of its encoding. A
 * memory form runs on buf (up to 10 bytes: read and/or written by the host
 * instruction); a register form ignores it.
 *
 * The fast path needs what the instruction does to the stack when nothing
 * goes wrong: the registers ST(0)..ST(reads) it reads (-1: none; X87_EXACT:
 * never take the fast path), how many values it pushes and pops (its
 * results are the values left in ST(0).. of those read or pushed), and
 * whether it leaves C1 alone (the fast path's own loads clear it). */
struct x87_host_insn {
	uint8_t escape;            /* D8..DF */
	uint8_t modrm;             /* register forms C0..FF; memory forms: only reg counts */
	bool mem;
	bool eflags;               /* reads or writes EFLAGS (FCMOVcc, FCOMI) */
	uint16_t fcw_or;           /* bits ORed into FCW for this run only (FISTTP: RC = 11B) */
	int8_t reads;
	uint8_t pushes, pops;
	bool keeps_c1;
	uint8_t *buf;              /* the memory operand */
};

/* Execute in on the state f. rflags (with in->eflags): in, the guest's status
 * flags (FCMOVcc reads CF PF ZF); out, the host's after the instruction (FCOMI
 * writes ZF PF CF and clears OF SF AF). The exception flags the host raised
 * join f's sticky ones; ES and B are set when one of them is unmasked (SDM
 * Vol.1 8.1.3.1). Returns whether the instruction raised an unmasked
 * exception. */
bool x87_host_exec(struct fpu_state *f, const struct x87_host_insn *in, uint64_t *rflags);

/* The same for a store form of n bytes: returns whether the instruction wrote
 * its operand to in->buf (an unmasked exception may keep it from storing). */
bool x87_host_store(struct fpu_state *f, const struct x87_host_insn *in, unsigned n);

#endif
