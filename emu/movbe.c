/* MOVBE (0F 38 F0/F1, memory operand only; SDM Vol.2 MOVBE): a load or store
 * with the bytes reversed. With F2 the same opcodes are CRC32 (emu/crc32.c). */
#include "emu/operand.h"
#include "isa_handlers.h"

/* The bytes of the low size bytes of v in reverse order. */
static inline uint64_t byte_reverse(uint64_t v, unsigned size)
{
	return __builtin_bswap64(v) >> (64 - size * 8);
}

/* 0F 38 F0: MOVBE Gv, Mv. 0F 38 F1: MOVBE Mv, Gv. 16-bit operands (66) swap
 * the two bytes (SDM Vol.2 MOVBE Operation). */
status_t op_movbe(struct cpu *cpu, const struct insn *in)
{
	unsigned size = in->size;
	uint64_t v;
	if (in->opcode == 0xf0) {
		status_t st = rm_read(cpu, in, size, &v);
		if (st != ST_OK)
			return st;
		greg_write(cpu, in, size, byte_reverse(v, size));
		return ST_OK;
	}
	return rm_write(cpu, in, size, byte_reverse(greg_read(cpu, in, size), size));
}
