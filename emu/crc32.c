/* CRC32 (F2 0F 38 F0/F1; SDM Vol.2 CRC32): the CRC-32C (Castagnoli,
 * polynomial 11EDC6F41H) of the source bytes, continuing from the destination,
 * without the initial and final inversions that software adds itself. */
#include "emu/operand.h"
#include "isa_handlers.h"

/* SDM Vol.2 CRC32 Operation: the bit-reflected polynomial division of
 * BIT_REFLECT(SRC) and BIT_REFLECT(DEST); reflected once more, that is the
 * usual least-significant-bit-first CRC update with the reversed polynomial
 * 82F63B78H, one source byte at a time from the lowest. */
static uint32_t crc32c_update(uint32_t crc, uint64_t src, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++) {
		crc ^= (uint8_t)(src >> (8 * i));
		for (unsigned k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	return crc;
}

/* F2 0F 38 F0: CRC32 Gy, Eb; F2 0F 38 F1: CRC32 Gy, Ev (16 bits with 66, 64
 * with REX.W). The destination is 32 or 64 bits (REX.W); a 64-bit one gets
 * the CRC zero-extended (SDM: "DEST[63:32] := 00000000H"). No flags change. */
status_t op_crc32(struct cpu *cpu, const struct insn *in)
{
	unsigned src_size = in->opcode == 0xf0 ? 1 : in->osize;
	uint64_t s;
	status_t st = rm_read(cpu, in, src_size, &s);
	if (st != ST_OK)
		return st;
	uint32_t crc = crc32c_update((uint32_t)greg_read(cpu, in, 4), s, src_size);
	greg_write(cpu, in, in->size, crc);
	return ST_OK;
}
