/* How handlers reach registers, memory and the stack. Sizes are in bytes (1, 2,
 * 4, 8). Every memory access goes through segmentation (mmu/segment.h) and then
 * the TLB/page walk; faults come back as ST_FAULT with cpu->event set. */
#ifndef HVEMU_EMU_OPERAND_H
#define HVEMU_EMU_OPERAND_H

#include <string.h>

#include "emu/cpu.h"
#include "emu/insn.h"

/* --- general registers --- */

/* Read a register of size bytes. Without REX, byte registers 4-7 are AH, CH, DH, BH. */
static inline uint64_t reg_read(const struct cpu *cpu, unsigned r, unsigned size, bool rex)
{
	switch (size) {
	case 1:
		if (r >= 4 && r < 8 && !rex)
			return (cpu->regs[r - 4] >> 8) & 0xff;
		return cpu->regs[r] & 0xff;
	case 2: return cpu->regs[r] & 0xffff;
	case 4: return cpu->regs[r] & 0xffffffff;
	default: return cpu->regs[r];
	}
}

/* Write a register of size bytes. 8- and 16-bit writes keep the other bits;
 * 32-bit writes zero bits 63:32 (SDM Vol.1 3.4.1.1). */
static inline void reg_write(struct cpu *cpu, unsigned r, unsigned size, bool rex, uint64_t v)
{
	switch (size) {
	case 1:
		if (r >= 4 && r < 8 && !rex)
			cpu->regs[r - 4] = (cpu->regs[r - 4] & ~0xff00ull) | ((v & 0xff) << 8);
		else
			cpu->regs[r] = (cpu->regs[r] & ~0xffull) | (v & 0xff);
		break;
	case 2: cpu->regs[r] = (cpu->regs[r] & ~0xffffull) | (v & 0xffff); break;
	case 4: cpu->regs[r] = (uint32_t)v; break;
	default: cpu->regs[r] = v; break;
	}
}

static inline uint64_t size_mask(unsigned size)
{
	return size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
}

/* Sign-extend the low size bytes of v. */
static inline int64_t sign_extend(uint64_t v, unsigned size)
{
	unsigned shift = 64 - size * 8;
	return (int64_t)(v << shift) >> shift;
}

/* --- memory through a segment --- */

/* Data access at seg:off (off already masked to the address size). */
status_t mem_read_slow(struct cpu *cpu, unsigned seg, uint64_t off, unsigned size, uint64_t *out) CHECKED;
status_t mem_write_slow(struct cpu *cpu, unsigned seg, uint64_t off, unsigned size, uint64_t v) CHECKED;

/* Little-endian load/store of 1, 2, 4 or 8 bytes with constant-size copies. */
static inline uint64_t host_load(const uint8_t *p, unsigned size)
{
	uint8_t b; uint16_t w; uint32_t d; uint64_t q;
	switch (size) {
	case 1: memcpy(&b, p, 1); return b;
	case 2: memcpy(&w, p, 2); return w;
	case 4: memcpy(&d, p, 4); return d;
	default: memcpy(&q, p, 8); return q;
	}
}

static inline void host_store(uint8_t *p, unsigned size, uint64_t v)
{
	uint8_t b = (uint8_t)v; uint16_t w = (uint16_t)v; uint32_t d = (uint32_t)v;
	switch (size) {
	case 1: memcpy(p, &b, 1); break;
	case 2: memcpy(p, &w, 2); break;
	case 4: memcpy(p, &d, 4); break;
	default: memcpy(p, &v, 8); break;
	}
}

/* The fast path of a data access: inside the segment's limits and rights (not
 * checked in 64-bit mode), a TLB hit within one page, and not a misaligned CPL 3
 * access (which may be #AC). Everything else, faults included, goes to the
 * slow path, which makes every check in its architectural order.
 *
 * In 64-bit mode only the FS and GS bases apply (SDM Vol.3 3.4.4). The
 * canonical check is implied by the hit: tlb_fill (emu/memory.c) never caches a
 * non-canonical page, and the access does not leave its page. */
static inline uint8_t *mem_fast(struct cpu *cpu, unsigned seg, uint64_t off, unsigned size,
				unsigned perm, enum tlb_access acc)
{
	const struct segment *s = &cpu->seg[seg];
	uint64_t lin;
	if (cpu->mode == MODE_LONG64) {
		lin = off + (seg == SR_FS || seg == SR_GS ? s->base : 0);
	} else {
		if (!seg_access_ok(s, off, size, perm))
			return NULL;
		lin = (uint32_t)(s->base + off);
	}
	unsigned user = cpu->cpl == 3;
	if (user && (lin & (size - 1)))
		return NULL;
	return tlb_lookup(&cpu->tlb, user ? TLB_USER : TLB_SUPERVISOR, acc, lin, size);
}

static inline status_t CHECKED mem_read(struct cpu *cpu, unsigned seg, uint64_t off,
					unsigned size, uint64_t *out)
{
	uint8_t *p = mem_fast(cpu, seg, off, size, SEG_PERM_READ, TLB_READ);
	if (__builtin_expect(p != NULL, 1)) {
		*out = host_load(p, size);
		return ST_OK;
	}
	return mem_read_slow(cpu, seg, off, size, out);
}

static inline status_t CHECKED mem_write(struct cpu *cpu, unsigned seg, uint64_t off,
					 unsigned size, uint64_t v)
{
	uint8_t *p = mem_fast(cpu, seg, off, size, SEG_PERM_WRITE, TLB_WRITE);
	if (__builtin_expect(p != NULL, 1)) {
		host_store(p, size, v);
		return ST_OK;
	}
	return mem_write_slow(cpu, seg, off, size, v);
}
/* Check that a write of size bytes at seg:off would succeed (segment and page),
 * without writing: for instructions that must fault before changing any state. */
status_t mem_probe_write(struct cpu *cpu, unsigned seg, uint64_t off, unsigned size) CHECKED;

/* Implicit supervisor-mode accesses by linear address: descriptor tables, TSS,
 * IDT (SDM Vol.3 4.6.1: these are supervisor accesses whatever the CPL). */
/* The linear address base + off of a system access outside IA-32e mode
 * (descriptor tables, IDT, TSS, an inner stack): 32 bits wide (SDM Vol.3 3.4,
 * APM2 2.2). What the wrap drops goes with a #PF of this access as
 * event.cr2_carry; lin_read_sys/lin_write_sys forget it after the access. */
static inline uint64_t sys_wrap32(struct cpu *cpu, uint64_t base, uint64_t off)
{
	uint64_t sum = base + off;
	cpu->wrap_carry = (uint32_t)(sum >> 32);
	return (uint32_t)sum;
}

status_t lin_read_sys(struct cpu *cpu, uint64_t lin, unsigned size, uint64_t *out) CHECKED;
status_t lin_write_sys(struct cpu *cpu, uint64_t lin, unsigned size, uint64_t v) CHECKED;

/* Effective address (offset within in->seg) of the ModRM memory operand, masked
 * to the address size, with rip the rIP after the instruction (RIP-relative
 * addressing, SDM Vol.2 2.2.1.6). */
static inline uint64_t insn_ea_at(const struct cpu *cpu, const struct insn *in, uint64_t rip)
{
	if (in->ea_shape == EA_BASE64)
		return cpu->regs[in->base] + (uint64_t)in->disp;
	if (in->ea_shape == EA_BASE32)
		return (uint32_t)(cpu->regs[in->base] + (uint64_t)in->disp);
	uint64_t ea = (uint64_t)in->disp;
	if (in->base == REG_RIP)
		ea += rip;
	else if (in->base != REG_NONE)
		ea += cpu->regs[in->base];
	if (in->index != REG_NONE)
		ea += cpu->regs[in->index] << in->scale;
	return ea & size_mask(in->asize);
}

/* insn_ea_at() in a handler (cpu->rip is the rIP after it). Inline: every
 * memory operand's handler starts with it. */
static inline uint64_t insn_ea(const struct cpu *cpu, const struct insn *in)
{
	return insn_ea_at(cpu, in, cpu->rip);
}

/* The E (ModRM r/m) operand, register or memory. */
status_t rm_read_mem(struct cpu *cpu, const struct insn *in, unsigned size, uint64_t *out) CHECKED;
status_t rm_write_mem(struct cpu *cpu, const struct insn *in, unsigned size, uint64_t v) CHECKED;

static inline status_t CHECKED rm_read(struct cpu *cpu, const struct insn *in, unsigned size,
				       uint64_t *out)
{
	if (!in->mem) {
		*out = reg_read(cpu, in->rm, size, in->rex != 0);
		return ST_OK;
	}
	return rm_read_mem(cpu, in, size, out);
}

static inline status_t CHECKED rm_write(struct cpu *cpu, const struct insn *in, unsigned size,
					uint64_t v)
{
	if (!in->mem) {
		reg_write(cpu, in->rm, size, in->rex != 0, v);
		return ST_OK;
	}
	return rm_write_mem(cpu, in, size, v);
}

/* The G (ModRM reg) operand. */
static inline uint64_t greg_read(const struct cpu *cpu, const struct insn *in, unsigned size)
{
	return reg_read(cpu, in->reg, size, in->rex != 0);
}
static inline void greg_write(struct cpu *cpu, const struct insn *in, unsigned size, uint64_t v)
{
	reg_write(cpu, in->reg, size, in->rex != 0, v);
}

/* --- stack --- */

/* Stack-address size in bytes: SS.B selects 4 or 2 outside 64-bit mode (SDM Vol.1 6.2.3). */
unsigned stack_asize(const struct cpu *cpu);
/* Push/pop size bytes at SS:(E)SP, with #SS on limit violations. RSP is updated
 * only if the access succeeds. */
status_t push(struct cpu *cpu, unsigned size, uint64_t v) CHECKED;
status_t pop(struct cpu *cpu, unsigned size, uint64_t *out) CHECKED;
/* Read at SS:(rSP + offset) without moving rSP (multi-value pops check all first). */
status_t stack_read(struct cpu *cpu, uint64_t offset, unsigned size, uint64_t *out) CHECKED;
status_t stack_write(struct cpu *cpu, uint64_t offset, unsigned size, uint64_t v) CHECKED;
/* stack_read for the pops of a far return (RETF, IRET): a 16-bit one also
 * records in cpu->wrap_carry the address bits above 31 that the wrap of
 * SS.base + offset drops, for a #PF to carry (event.cr2_carry). Only a
 * hypervisor quirk reads it: QEMU 7.2's 16-bit far-return pops miss the wrap,
 * its 32-bit ones do not. */
status_t stack_read_far(struct cpu *cpu, uint64_t offset, unsigned size, uint64_t *out) CHECKED;
/* Add delta to rSP within the stack-address size. */
void stack_adjust(struct cpu *cpu, int64_t delta);

/* --- control flow --- */

/* Set RIP to target truncated to the operand size (16/32) or checked canonical
 * (64-bit); #GP(0) if beyond the CS limit (SDM Vol.2 JMP: "If target operand is
 * beyond the code segment limit, #GP(0)"). */
status_t branch_near64(struct cpu *cpu, uint64_t target, unsigned osize) CHECKED;
/* A near target beyond the CS limit: #GP(0), or the branch under the quirk
 * qemu-cs-limit-unchecked (emu/quirks.def). */
status_t branch_beyond_cs_limit(struct cpu *cpu, uint64_t target) CHECKED;
static inline status_t CHECKED branch_near(struct cpu *cpu, uint64_t target, unsigned osize)
{
	if (cpu->mode == MODE_LONG64)
		return branch_near64(cpu, target, osize);
	target &= size_mask(osize);
	/* SDM Vol.2 JMP/CALL/RET/Jcc: beyond the CS limit is #GP(0). */
	if (target > cpu->seg[SR_CS].limit)
		return branch_beyond_cs_limit(cpu, target);
	cpu->rip = target;
	return ST_OK;
}

/* --- I/O ports (protection checks in emu/io.c) --- */
status_t io_check_permission(struct cpu *cpu, uint16_t port, unsigned size) CHECKED;

#endif
