/* A decoded instruction: what the decoder resolved once (lengths, operand and
 * address sizes, register numbers, effective-address parts, immediates), so that
 * handlers hold only semantics. Decoded instructions are cached (emu/icache.c).
 *
 * The instruction set itself is data: emu/isa/<concept>.isa, one file per concept, rows of
 *     opcode | mnemonic | operands | handler | flags
 * compiled by emu/gen_isa.py into the decoder tables and the handler prototypes
 * (isa_handlers.h, in the build directory). See emu/isa/README.md.
 */
#ifndef HVEMU_EMU_INSN_H
#define HVEMU_EMU_INSN_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/cpu.h"
#include "emu/intercept.h"

#define REG_NONE 0xff
#define INSN_MAX_LEN 15            /* SDM Vol.2 2.3.11: longer is #GP(0) */

enum rep_prefix { REP_NONE = 0, REP_F3 = 1 /* REP/REPE */, REP_F2 = 2 /* REPNE */ };

/* Row flags (the .isa "flags" column). */
enum {
	IF_LOCK = 1u << 0,         /* LOCK allowed (with a memory destination) */
	IF_REP = 1u << 1,          /* string instruction: REP prefixes apply */
	IF_JUMP = 1u << 2,         /* may change RIP other than by falling through */
	IF_END = 1u << 3,          /* changes state the decoder depends on: ends the block */
	IF_NO64 = 1u << 4,         /* #UD in 64-bit mode */
	IF_D64 = 1u << 5,          /* 64-bit default operand size in 64-bit mode */
	IF_F64 = 1u << 6,          /* 64-bit operand size forced in 64-bit mode */
	IF_ONLY64 = 1u << 7,       /* #UD outside 64-bit mode */
	IF_FALLBACK = 1u << 8,     /* without the row's feature the encoding is another row
				      (isa_row.alt: F3 0F BC is TZCNT, else BSF) */
	IF_VSIB = 1u << 9,         /* VSIB memory operand (AVX2 gathers, SDM Vol.2 2.3.12):
				      insn.index is a vector register */
};

/* Effective-address shapes the decoder picks out, so that the commonest,
 * base register plus displacement, needs no test of what is absent. */
enum ea_shape {
	EA_GENERAL,                /* anything (and no memory operand) */
	EA_BASE64,                 /* a general register + disp, 64-bit addresses */
	EA_BASE32,                 /* a general register + disp, 32-bit addresses */
};

struct insn;
typedef status_t (*insn_handler)(struct cpu *cpu, const struct insn *in);

struct insn {
	insn_handler exec;         /* the semantics: one instruction, then back to the caller */
	insn_handler thread;       /* the same run from a block, going on to the next
				      instruction itself (emu/threaded.h) */
	uint16_t row;              /* index into isa_rows[] (mnemonic, operands, flags) */
	uint16_t offset;           /* bytes from the start of its block to its first byte */
	uint8_t nth;               /* its place in its block: instructions before it */
	uint8_t len;               /* bytes, prefixes included */
	uint8_t size;              /* bytes of the first operand (b=1, w=2, v=osize, ...) */
	uint8_t osize;             /* operand-size attribute: 2, 4 or 8 */
	uint8_t asize;             /* address-size attribute: 2, 4 or 8 */
	uint8_t seg;               /* enum sreg of the memory operand (override applied) */
	uint8_t rep;               /* enum rep_prefix */
	bool lock;
	bool seg_override;
	uint8_t map;               /* 0: one-byte, 1: 0F, 2: 0F 38, 3: 0F 3A */
	uint8_t opcode;            /* last opcode byte */
	uint8_t modrm;
	uint8_t reg;               /* ModRM.reg (REX.R applied), or low opcode bits for +r forms */
	uint8_t rm;                /* ModRM.rm register (REX.B applied) when !mem */
	bool mem;                  /* the E operand is memory */
	uint8_t base, index;       /* REG_NONE if absent; REG_RIP for RIP-relative */
	uint8_t scale;             /* log2 */
	uint8_t rex;               /* REX byte, 0 if none; VEX-encoded: 40H | W R X B in
				      64-bit mode (their meaning; inverted in the prefix), 0 elsewhere */
	uint8_t ea_shape;          /* enum ea_shape: the memory operand's address, as decoded */
	uint8_t vex;               /* VEX-encoded: VEX_PRESENT | VEX.L; 0 for legacy encodings */
	uint8_t vvvv;              /* VEX.vvvv as a register number (un-inverted; bit 3
				      dropped outside 64-bit mode, SDM Vol.2 2.3.6) */
	uint16_t imm2;             /* second immediate: ENTER's Ib, far pointer selector */
	int64_t disp;
	uint64_t imm;              /* sign-extended where the operand letter says so */
};
#define REG_RIP 0x10
/* One cache line: a block's instructions are read one after another, and a
 * bigger struct costs every block one more line per instruction (4 bytes of
 * padding after imm2 are still free). */
_Static_assert(sizeof(struct insn) == 64, "struct insn: one cache line");
#define VEX_PRESENT 1u             /* insn.vex: a VEX prefix (C4/C5) introduced the opcode */
#define VEX_L256 2u                /* insn.vex: VEX.L = 1 */
#define VEX_UPPER_LANE 4u          /* insn.vex, set only on a handler's copy: run the legacy
				      kernel on bits 255:128 (emu/avx_sse.c avx_lanes) */

/* One row of the instruction table (generated from emu/isa/<concept>.isa). */
struct isa_row {
	const char *mnemonic;
	const char *operands;      /* SDM letters, e.g. "Ev,Gv" */
	insn_handler exec;
	uint16_t flags;            /* IF_* */
	uint8_t intercept;         /* enum intercept_kind (emu/intercept.def), IK_NONE if none */
	uint8_t feature;           /* index into isa_features[]: #UD without it; 0: none */
	uint16_t alt;              /* IF_FALLBACK: the row this encoding is without the feature */
};
extern const struct isa_row isa_rows[];
extern const unsigned isa_row_count;

/* A CPUID feature bit a row needs (emu/features.def). */
struct isa_feature {
	const char *name;
	uint32_t leaf;
	uint8_t reg, bit;          /* reg 0-3: EAX, EBX, ECX, EDX */
};
extern const struct isa_feature isa_features[];

/* Virtual time now, mid-block included: instructions before the running one
 * (its nth) are counted when its block ends. No running instruction before
 * the first run or after a snapshot's restore. */
static inline uint64_t cpu_now(const struct cpu *cpu)
{
	return cpu->icount + (cpu->cur_insn ? cpu->cur_insn->nth : 0);
}

/* The running instruction's access reached a device: its bus cycle takes its
 * time (devices/bus.h IO_BUS_CYCLE_NS, cpu->io_access_ticks beyond the
 * instruction's own tick), so a guest polling a device (Xen waiting up to a
 * second for the RTC's update flag, a calibration against the HPET, a PIT
 * read loop) reads it as often per virtual second as on hardware, not a
 * thousand times more. The device saw the access at the instruction's start;
 * a deadline the cycle passes is served at the next instruction boundary, as
 * an interrupt would be. */
static inline void cpu_bus_cycle(struct cpu *cpu)
{
	if (!cpu->io_access_ticks)
		return;
	cpu->icount += cpu->io_access_ticks;
	if (cpu_now(cpu) + 1 >= cpu->deadline)
		cpu_attend(cpu, ATT_EVENT);
}

/* Decode one instruction from bytes[0..avail). mode: 16, 32 or 64 (the default
 * code size). Returns the length (> 0); 0 when more bytes are needed than avail
 * (avail < 15: fetch more and call again); -1 when the instruction would exceed
 * 15 bytes (#GP(0)). Undefined opcodes and misplaced LOCK decode successfully to
 * a handler that raises #UD, so the length is still right. */
int decode_insn(const uint8_t *bytes, unsigned avail, unsigned mode, struct insn *in);

/* True for an encoding that raises #UD (undefined, misplaced LOCK, wrong mode). */
bool insn_is_undefined(const struct insn *in);

/* The CPU's view of a decoded instruction: a row whose CPUID feature (the
 * .isa table's sixth column) the CPU lacks raises #UD ("#UD If CPUID...",
 * in every such instruction's exception list). Returns whether it may run. */
bool insn_gate(const struct cpu *cpu, struct insn *in);
/* The decode-time quirks of emu/quirks.def (cpu->quirks != 0), after insn_gate. */
void insn_apply_quirks(const struct cpu *cpu, struct insn *in);

#endif
