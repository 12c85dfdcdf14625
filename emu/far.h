/* What far JMP/CALL (emu/far.c) and far RET/IRET (emu/far_return.c) share:
 * the commit of a new CS and the checks on a code descriptor, a target rIP
 * and the stack (SDM Vol.2 JMP, CALL, RET, IRET pseudo-code). Internal to emu/.
 */
#ifndef HVEMU_EMU_FAR_H
#define HVEMU_EMU_FAR_H

#include "emu/operand.h"
#include "emu/segload.h"

/* Load CS with the checked descriptor raw, RPL forced to cpl (SDM Vol.2 JMP/
 * CALL: "CS(RPL) <- CPL"), and continue at eip. */
static inline void cs_commit(struct cpu *cpu, uint16_t sel, uint64_t raw, unsigned cpl, uint64_t eip)
{
	seg_load_descriptor(&cpu->seg[SR_CS], (uint16_t)((sel & ~3u) | cpl), raw);
	cpu->cpl = (uint8_t)cpl;
	cpu->rip = eip;
	cpu_update_mode(cpu);
}

static inline bool desc_is_code(uint64_t raw)
{
	return !desc_is_system(raw) && (desc_type(raw) & SEG_TYPE_CODE);
}

static inline bool desc_is_conforming(uint64_t raw)
{
	return desc_is_code(raw) && (desc_type(raw) & SEG_TYPE_CE);
}

/* SDM Vol.2 JMP/CALL/RET: in IA-32e mode a code segment with L=1 and D=1 is
 * reserved: #GP(selector). */
static inline bool long_mode_bad_cs(const struct cpu *cpu, uint64_t raw)
{
	return (cpu->efer & EFER_LMA) && (raw & (1ull << 53)) && (raw & (1ull << 54));
}

/* Whether the new rIP is valid in the target segment: canonical for a 64-bit
 * code segment in IA-32e mode, else within the limit (SDM Vol.2 JMP "IF
 * tempEIP is non-canonical" / "outside code segment limit": #GP(0)). */
static inline bool target_ok(const struct cpu *cpu, uint64_t raw, uint64_t rip)
{
	if ((cpu->efer & EFER_LMA) && (raw & (1ull << 53)))
		return addr_canonical(cpu, rip);
	return rip <= desc_limit(raw);
}

/* Whether n bytes from SS:rSP lie within the stack segment's limits (SDM Vol.2
 * RET/IRET "IF top n bytes of stack not within stack limits THEN #SS(0)"). A
 * 16-bit stack wraps at 64 KiB. */
static inline bool stack_has(struct cpu *cpu, uint64_t n)
{
	const struct segment *ss = &cpu->seg[SR_SS];
	uint64_t mask = size_mask(stack_asize(cpu));
	uint64_t sp = cpu->regs[R_SP] & mask;
	if (cpu_is_mode64(cpu) || n == 0)
		return true;
	if (sp + n - 1 <= mask)
		return seg_access_ok(ss, sp, (unsigned)n, SEG_PERM_READ);
	return seg_access_ok(ss, sp, (unsigned)(mask - sp + 1), SEG_PERM_READ) &&
	       seg_access_ok(ss, 0, (unsigned)(sp + n - 1 - mask), SEG_PERM_READ);
}

#endif
