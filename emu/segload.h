/* Protected-mode plumbing shared by segment loads, far transfers, IRET and event
 * delivery (emu/segload.c, emu/far.c, emu/exception.c): descriptor-table reads,
 * the accessed bit, inner-level stack pointers from the TSS, and stack frames
 * that are checked whole before any byte or register changes.
 *
 * Error codes naming a selector carry its index and TI bit (SDM Vol.3 6.13);
 * the EXT bit is added by cpu_deliver_event() for faults raised while it delivers
 * an event external to the program.
 */
#ifndef HVEMU_EMU_SEGLOAD_H
#define HVEMU_EMU_SEGLOAD_H

#include "emu/canonical.h"
#include "emu/cpu.h"

/* A selector with index 0 and TI 0 is null whatever its RPL (SDM Vol.3 3.4.2). */
static inline bool sel_is_null(uint16_t sel) { return (sel & 0xfffc) == 0; }
static inline uint32_t sel_error(uint16_t sel) { return sel & 0xfffcu; }
/* Read the descriptor sel names in the GDT or LDT. An index beyond the table
 * limit, or TI=1 with an unusable LDTR, raises vector(sel_error(sel)) (SDM Vol.3
 * 3.5.1: "the processor checks that the index is within the table limit"). */
status_t desc_fetch(struct cpu *cpu, uint16_t sel, uint8_t vector, uint64_t *raw) CHECKED;

/* Read the upper 8 bytes of a 16-byte system descriptor (IA-32e call gates,
 * LDT and TSS descriptors, SDM Vol.3 5.8.3.1, 7.2.3) named by sel; beyond the
 * table limit is vector(sel_error(sel)). */
status_t desc_fetch_upper(struct cpu *cpu, uint16_t sel, uint8_t vector, uint64_t *hi) CHECKED;

/* Set the descriptor's accessed bit in memory (and in *raw) if clear (SDM Vol.3
 * 3.4.5.1: set by the processor when the selector is loaded). */
status_t desc_set_accessed(struct cpu *cpu, uint16_t sel, uint64_t *raw) CHECKED;

/* Load a null selector: the register becomes unusable (P=0). DPL records the
 * RPL so that a 64-bit null SS keeps SS.DPL = CPL. */
void seg_load_null(struct segment *s, uint16_t sel);

/* Load DS/ES/FS/GS/SS with sel as MOV/POP/LxS do in the current mode: real,
 * v8086, or protected with all checks (SDM Vol.2 MOV, Vol.3 5.10). Nothing
 * changes on a fault. */
status_t seg_load(struct cpu *cpu, enum sreg sr, uint16_t sel) CHECKED;

/* SS:ESP for privilege level dpl (0-2) from the current 16- or 32-bit TSS
 * (SDM Vol.3 7.2.1, 7.6); #TS(TR selector) when beyond the TSS limit. */
status_t tss_inner_stack(struct cpu *cpu, unsigned dpl, uint16_t *ss, uint32_t *esp) CHECKED;

/* Checks on the new SS of a stack switch to privilege level dpl (SDM Vol.2
 * CALL MORE-PRIVILEGE, INT n INTER-PRIVILEGE-LEVEL-INTERRUPT): null is #TS(0),
 * index/RPL/DPL/type errors #TS(ss), not present #SS(ss). Returns the descriptor. */
status_t stack_seg_check(struct cpu *cpu, uint16_t ss, unsigned dpl, uint64_t *raw) CHECKED;

/* After a return to an outer privilege level: ES, FS, GS and DS that the new
 * CPL may not use (data or non-conforming code with DPL < CPL) become null
 * (SDM Vol.2 RET/IRET "FOR each SegReg in (ES, FS, GS, and DS)"). */
void seg_null_inaccessible(struct cpu *cpu);

/* Write the low mask bits of rSP (mask: 0xffff, 0xffffffff or all ones),
 * keeping the others for a 16-bit stack (SDM Vol.1 6.2.3). */
void sp_write(struct cpu *cpu, uint64_t mask, uint64_t sp);

/* A stack frame pushed as one unit: slots are collected with frame_add(), all
 * of them are limit-checked by frame_fits(), then written by frame_write(). */
#define FRAME_MAX_SLOTS 48         /* 31 call-gate parameters + the rest */
struct stack_frame {
	struct segment ss;         /* segment written through */
	bool current;              /* the current SS: accesses use the current CPL */
	bool flat64;               /* 64-bit stack: no limits, canonical addresses */
	bool la57;                 /* flat64 with 5-level paging: 57-bit canonical */
	uint64_t sp;               /* stack pointer before the pushes */
	uint64_t mask;             /* stack-address size mask from SS.B */
	uint64_t used;             /* bytes pushed so far */
	unsigned n;
	struct { uint8_t size; uint64_t value; } slot[FRAME_MAX_SLOTS];
};

/* A frame on the current stack (SS:rSP). */
void frame_on_current(struct cpu *cpu, struct stack_frame *fr);
/* A frame on a new inner stack ss:sp; written with supervisor accesses, which is
 * what the inner level (CPL < 3) makes them. */
void frame_on_new(struct stack_frame *fr, const struct segment *ss, uint64_t sp);
/* A frame on a 64-bit stack at rsp (IA-32e event delivery, SDM Vol.3 6.14.2):
 * supervisor writes, or accesses at the current CPL if current. */
void frame_on_flat64(const struct cpu *cpu, struct stack_frame *fr, uint64_t rsp, bool current);
void frame_add(struct stack_frame *fr, unsigned size, uint64_t value);
/* Whether every slot lies within the segment's limits (SDM Vol.3 5.3), or is
 * canonical for a 64-bit stack (SDM Vol.1 3.3.7.1, addr_canonical()). */
bool frame_fits(const struct stack_frame *fr);
/* Write all slots (page faults possible); the stack pointer after the pushes. */
status_t frame_write(struct cpu *cpu, const struct stack_frame *fr) CHECKED;
static inline uint64_t frame_sp(const struct stack_frame *fr)
{
	return (fr->sp - fr->used) & fr->mask;
}

/* Report a legal operation hvemu does not model yet (task switches, IA-32e
 * gates) through the trace hook, and return ST_UNSUPPORTED. */
status_t prot_unsupported(struct cpu *cpu, const char *what) CHECKED;

#endif
