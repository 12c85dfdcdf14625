/* Layout of the generated decoder tables (isa_table.c, from emu/isa/<concept>.isa). */
#ifndef HVEMU_EMU_DECODE_TABLE_H
#define HVEMU_EMU_DECODE_TABLE_H

#include <stdint.h>

#include "emu/insn.h"

#define NO_CONSTRAINT 0xff

/* MOD_FORCE_REG: the mod field is ignored and the operand is always a register
 * (MOV CR/DR, SDM Vol.2 MOV-Move to/from Control Registers). */
enum { MOD_ANY, MOD_MEM, MOD_REG, MOD_FORCE_REG };
/* The mandatory prefix of a legacy row, or VEX.pp of a VEX row. PFX_NOREP:
 * none or 66, never F2/F3 (the SDM's "NFx": 66 is then an operand-size prefix). */
enum { PFX_ANY, PFX_NONE, PFX_66, PFX_F3, PFX_F2, PFX_NOREP };

/* A VEX row's constraints (struct isa_decode.vex; 0 for legacy rows): bits 1:0
 * VEX.L (0 any, 1 L0, 2 L1), bits 3:2 VEX.W (0 any, 1 W0, 2 W1), and whether
 * VEX.vvvv must be 1111b because no operand uses it (SDM Vol.2 2.3.6). */
#define VEX_L_MASK 3u
#define VEX_W_SHIFT 2
#define VEX_VVVV_ONES 0x10u

/* Size class of the first operand (SDM Vol.2 A.2.2). */
enum { SZ_NONE, SZ_B, SZ_W, SZ_D, SZ_Q, SZ_V, SZ_Z, SZ_Y };

/* Immediate that follows the ModRM/SIB/displacement bytes. */
enum {
	IMM_NONE, IMM_B, IMM_BS, IMM_W, IMM_D, IMM_Z, IMM_V, IMM_JB, IMM_JZ,
	IMM_AP,                    /* ptr16:16 / ptr16:32: offset in imm, selector in imm2 */
	IMM_MOFFS,                 /* moffs: address-size offset */
	IMM_W_B,                   /* ENTER: imm16 in imm, imm8 in imm2 */
};

struct isa_decode {
	uint8_t reg_mask;          /* bit n set: ModRM.reg = n matches (0xff: any) */
	uint8_t mod;               /* MOD_* */
	uint8_t rm;                /* required ModRM.rm (register form), or NO_CONSTRAINT */
	uint8_t prefix;            /* PFX_* */
	uint8_t size;              /* SZ_* */
	uint8_t imm;               /* IMM_* */
	uint8_t vex;               /* VEX rows: L/W/vvvv constraints (VEX_*); 0 otherwise */
};

struct isa_opcode {
	uint16_t first;            /* index into isa_candidates */
	uint8_t count;             /* 0: undefined opcode */
	uint8_t modrm;             /* a ModRM byte follows the opcode */
};

extern const struct isa_decode isa_decode_rows[];
extern const uint16_t isa_candidates[];
extern const struct isa_opcode isa_opcodes[4][256];
/* The VEX-encoded rows by VEX map (1: 0F, 2: 0F38, 3: 0F3A) and opcode byte. */
extern const struct isa_opcode isa_vex_opcodes[4][256];

#endif
