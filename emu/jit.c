/* The translator (see jit.h).
 *
 * A run is found, its guest registers get host registers, and its code is
 * written in three parts: the prologue (callee-saved host registers pushed,
 * the guest registers loaded from cpu->regs), one host instruction or a few
 * per guest instruction, and the epilogue (the written registers stored, the
 * pushed ones popped, a jump to the next instruction's thread handler with
 * cpu and that instruction as its arguments: a tail call, as between thread
 * handlers), or the block's end (struct block_end).
 *
 * Memory. An access (a load, a store, an ALU operand, PUSH/POP, CALL/RET), its
 * address base + index << scale + displacement or rIP-relative, checks the
 * segment (32-bit code: rights, limits, 32-bit linear address; 64-bit code:
 * the FS/GS base) and looks the TLB up in host code as emu/operand.h mem_fast
 * does (the bank of the CPL the run was made for, which it checks at its
 * start; the set of the first byte, the tag of the last byte's page; two
 * ways; then, out of line, the space's global translations). Where mem_fast would not answer -- a segment check that fails, a
 * misaligned access at CPL 3, an access that crosses a page, a miss -- the
 * run leaves before that instruction (a side exit): the registers written so
 * far stored, the flags as they are there, and the instruction's own thread
 * handler goes on, which looks again and takes the slow path, a fault
 * included. Stores to decoded code and watched pages never hit
 * (emu/memory.c), so no store of a run needs the code cache's check. In
 * 64-bit code, accesses through one base (and index) whose bytes lie within
 * 128 of each other, the base moving only by constants in between, share
 * the first one's lookup, made for all their bytes (plan_shared_lookups),
 * and an address that is a base plus a displacement is never computed: the
 * lookup and the access read it where it is (linear_in_place). A setter's
 * record that only such shared accesses follow, which cannot leave, is not
 * stored (drop_unread_records).
 *
 * The flags. A run leaves cpu->lazy as it must be where it ends and at each
 * side exit: the last flag-setting instruction before each such point stores
 * the whole record (op, size, result and sources, masked to the operand size
 * as the handlers store them, emu/alu.c, emu/shift.c), and the instruction S
 * whose CF the last INC/DEC before it keeps (SDM Vol.2 INC, DEC: "The CF flag
 * is not affected") stores that CF as the record's aux: the host instruction
 * that computes S's result sets the same CF (ADD, SUB, CMP: carry or borrow
 * out of the operand size; AND, OR, XOR, TEST: 0; SHL, SHR, SAR by a count
 * that is not 0: the last bit shifted out). Every other instruction's flags
 * are read only by the run's own readers (ADC/SBB, SETcc, CMOVcc, the
 * block's Jcc), from the host's flags of the last setter, where nothing has
 * changed them since (no access's host code) and the host instruction defines
 * the flags read as the model's record does (host_exact). CF as the run
 * begins, where an INC/DEC before the run's first other setter keeps it or
 * an ADC/SBB before any setter adds it, is taken first thing (emit_carry_in:
 * the model's own flags_cf) into cpu->jit.carry: the aux of that INC/DEC's
 * record, the host's CF before that ADC/SBB. A run ends before an INC/DEC
 * whose CF is an IMUL's or an ADC/SBB's (S stores neither) where that CF
 * could be read or the run could leave before another setter replaces it,
 * and before a reader it cannot serve; IMUL's flags (model-dependent,
 * emu/muldiv.c) must be dead.
 */
#include "emu/jit.h"

#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "emu/fast_forms.h"
#include "emu/fetch.h"
#include "emu/flags.h"
#include "emu/fpu.h"
#include "emu/icache.h"
#include "emu/threaded.h"
#include "isa_handlers.h"

#if defined(__x86_64__)

/* Host code of one block at most, in each of the two parts below: a block's
 * runs that do not fit (about 18 memory accesses of 32-bit code do) are left
 * to the thread forms. */
#define JIT_SLOT_BYTES 4096
/* The code area: blocks' code one after another, until it is full; then every
 * decoded block goes (emu/run.c cpu_run, icache_flush) and it starts again.
 * Its first part holds the code a run takes where nothing leaves it early
 * (packed, so that the host's instruction cache and TLB hold the hot ones);
 * the rest, the cold code: side exits, the link tests behind a direct
 * link, the ways to C. */
#define JIT_CODE_BYTES (64u << 20)
#define JIT_HOT_BYTES (24u << 20)

/* ---- the guest instructions a run may hold ---- */

enum kind {
	K_ALU,                     /* dst op= src (ADD, OR, AND, SUB, XOR; CMP: flags only) */
	K_TEST,                    /* dst & src: flags only */
	K_INCDEC,                  /* dst +/-= 1, CF kept */
	K_MOV,                     /* dst = src */
	K_MOV_IMM,                 /* dst = imm */
	K_SHIFT,                   /* dst shifted by an immediate count that is not 0 */
	K_LEA,                     /* dst = the address, no access */
	K_MOVX,                    /* dst = src's low msize bytes, zero- or sign-extended */
	K_IMUL,                    /* dst = dst * src, or src * imm; its flags must be dead */
	K_NOT,                     /* dst = ~dst */
	K_NEG,                     /* dst = 0 - dst */
	K_ADC,                     /* dst = dst +/- src +/- CF (op 0: ADC, 1: SBB) */
	K_SETCC,                   /* dst's low byte = cc */
	K_CMOV,                    /* dst = cc ? src : dst */
	K_NOP,                     /* nothing (NOP Ev never reads its operand) */
	/* The kinds that leave the run where their handler would decide more
	 * than the run computes, each at a side exit of its own: */
	K_RDTSC,                   /* EDX:EAX = the time (op 1: RDTSCP, ECX = TSC_AUX) */
	K_PAUSE,                   /* nothing, outside a guest and CPU turns */
	K_FENCE,                   /* nothing, where CPUID has its feature (imm: the bit) */
	/* The kinds that touch memory, each at a side exit of its own too: */
	K_LOAD,                    /* dst = [address], msize bytes extended */
	K_STORE,                   /* [address] = src's low msize bytes */
	K_ALU_MEM,                 /* dst op= [address]; mem_first: [address] op src, flags only */
	K_PUSH,                    /* rSP -= 8; [rSP] = src (64-bit code) */
	K_POP,                     /* dst = [rSP]; rSP += 8, before dst is written */
	K_ALU_RMW,                 /* [address] op= src (ADD, OR, AND, SUB, XOR) */
	/* A block's last instruction, after its run (struct block_end): */
	K_CALL,                    /* CALL rel32 in 64-bit code: push the next rIP, jump */
	K_RET,                     /* RET in 64-bit code: pop rIP */
};

static bool touches_memory(unsigned kind)
{
	return kind >= K_LOAD;
}

/* May leave the run before it (a side exit): its host code tests, so the
 * host's flags are not the last setter's after it. */
static bool may_leave(unsigned kind)
{
	return kind >= K_RDTSC;
}

/* Host ALU operations: the /digit of 81 /n, and (x 8 + 1) the r/m, r opcode. */
enum host_alu { H_ADD = 0, H_OR = 1, H_AND = 4, H_SUB = 5, H_XOR = 6, H_CMP = 7 };
/* Host shifts: the /digit of C1 /n. */
enum host_shift { H_SHL = 4, H_SHR = 5, H_SAR = 7 };

/* How the operands come from the decoded instruction. */
enum operands { O_EG, O_GE, O_EI, O_RM, O_REG, O_REG_IMM, O_RM_IMM, O_MEM, O_MEM_IMM, O_ANY, O_ACC };

static const struct form {
	insn_handler exec;
	uint8_t kind, op, size, operands;
} forms[] = {
#define ALU(name, op) \
	{ op_##name##_EG_r32, K_ALU, op, 4, O_EG }, { op_##name##_EG_r64, K_ALU, op, 8, O_EG }, \
	{ op_##name##_GE_r32, K_ALU, op, 4, O_GE }, { op_##name##_GE_r64, K_ALU, op, 8, O_GE }, \
	{ op_##name##_EI_r32, K_ALU, op, 4, O_EI }, { op_##name##_EI_r64, K_ALU, op, 8, O_EI }, \
	{ op_##name##_GE_m32, K_ALU_MEM, op, 4, O_MEM }, { op_##name##_GE_m64, K_ALU_MEM, op, 8, O_MEM }
	ALU(add, H_ADD), ALU(or, H_OR), ALU(and, H_AND), ALU(sub, H_SUB), ALU(xor, H_XOR), ALU(cmp, H_CMP),
#undef ALU
#define CARRY(name, op) \
	{ op_##name##_EG_r32, K_ADC, op, 4, O_EG }, { op_##name##_EG_r64, K_ADC, op, 8, O_EG }, \
	{ op_##name##_GE_r32, K_ADC, op, 4, O_GE }, { op_##name##_GE_r64, K_ADC, op, 8, O_GE }, \
	{ op_##name##_EI_r32, K_ADC, op, 4, O_EI }, { op_##name##_EI_r64, K_ADC, op, 8, O_EI }
	CARRY(adc, 0), CARRY(sbb, 1),
#undef CARRY
	/* [m] op= r and [m] op= imm. */
#define RMW(name, op) \
	{ op_##name##_EG_m32, K_ALU_RMW, op, 4, O_MEM }, { op_##name##_EG_m64, K_ALU_RMW, op, 8, O_MEM }, \
	{ op_##name##_EI_m32, K_ALU_RMW, op, 4, O_MEM_IMM }, { op_##name##_EI_m64, K_ALU_RMW, op, 8, O_MEM_IMM }
	RMW(add, H_ADD), RMW(or, H_OR), RMW(and, H_AND), RMW(sub, H_SUB), RMW(xor, H_XOR),
#undef RMW
	/* CMP [m], r and TEST [m], r: the memory is the first operand. */
	{ op_cmp_EG_m32, K_ALU_MEM, H_CMP, 4, O_MEM }, { op_cmp_EG_m64, K_ALU_MEM, H_CMP, 8, O_MEM },
	{ op_test_EG, K_ALU_MEM, H_AND, 0, O_MEM },
	{ op_test_EG_r32, K_TEST, H_AND, 4, O_EG }, { op_test_EG_r64, K_TEST, H_AND, 8, O_EG },
	{ op_inc_r32, K_INCDEC, 0, 4, O_RM }, { op_inc_r64, K_INCDEC, 0, 8, O_RM },
	{ op_dec_r32, K_INCDEC, 1, 4, O_RM }, { op_dec_r64, K_INCDEC, 1, 8, O_RM },
	{ op_inc_r_r32, K_INCDEC, 0, 4, O_REG }, { op_dec_r_r32, K_INCDEC, 1, 4, O_REG },
	{ op_mov_EG_r32, K_MOV, 0, 4, O_EG }, { op_mov_EG_r64, K_MOV, 0, 8, O_EG },
	{ op_mov_GE_r32, K_MOV, 0, 4, O_GE }, { op_mov_GE_r64, K_MOV, 0, 8, O_GE },
	{ op_shl_r32, K_SHIFT, H_SHL, 4, O_RM }, { op_shl_r64, K_SHIFT, H_SHL, 8, O_RM },
	{ op_shr_r32, K_SHIFT, H_SHR, 4, O_RM }, { op_shr_r64, K_SHIFT, H_SHR, 8, O_RM },
	{ op_sar_r32, K_SHIFT, H_SAR, 4, O_RM }, { op_sar_r64, K_SHIFT, H_SAR, 8, O_RM },
	{ op_mov_GE_m32, K_LOAD, 0, 4, O_MEM }, { op_mov_GE_m64, K_LOAD, 0, 8, O_MEM },
	{ op_mov_EG_m32, K_STORE, 0, 4, O_MEM }, { op_mov_EG_m64, K_STORE, 0, 8, O_MEM },
	/* Any size: what is taken is decided below (op_mov_EI: a store with a
	 * memory operand). */
	{ op_mov_ZI, K_MOV_IMM, 0, 0, O_REG_IMM }, { op_mov_EI, K_MOV_IMM, 0, 0, O_RM_IMM },
	{ op_mov_EG, K_STORE, 0, 0, O_MEM },
	/* MOVNTI: a store; its non-temporal hint changes no result (SDM Vol.2
	 * MOVNTI), its #UD without SSE2 is decoded (emu/isa/sse.isa). */
	{ op_movnti, K_STORE, 0, 0, O_MEM },
	{ op_movzx, K_MOVX, 0, 0, O_ANY }, { op_movsx, K_MOVX, 1, 0, O_ANY },
	{ op_movsxd, K_MOVX, 1, 0, O_ANY }, { op_movsxd_r64, K_MOVX, 1, 8, O_GE },
	{ op_movsxd_r32, K_MOV, 0, 4, O_GE },
	{ op_lea, K_LEA, 0, 0, O_ANY },
	{ op_imul_GE_r32, K_IMUL, 0, 4, O_GE }, { op_imul_GE_r64, K_IMUL, 0, 8, O_GE },
	{ op_imul_GEI, K_IMUL, 1, 0, O_ANY },
	{ op_not, K_NOT, 0, 0, O_RM }, { op_neg, K_NEG, 0, 0, O_RM },
	{ op_setcc, K_SETCC, 0, 1, O_RM }, { op_cmovcc, K_CMOV, 0, 0, O_GE },
	{ op_push_Z, K_PUSH, 0, 0, O_REG }, { op_pop_Z, K_POP, 0, 0, O_REG },
	{ op_nop, K_NOP, 0, 0, O_ANY }, { op_xchg_Z, K_NOP, 0, 0, O_REG },
	/* The accumulator and an immediate (04/05-3C/3D, A8/A9). */
	{ op_add_AI, K_ALU, H_ADD, 0, O_ACC }, { op_or_AI, K_ALU, H_OR, 0, O_ACC },
	{ op_and_AI, K_ALU, H_AND, 0, O_ACC }, { op_sub_AI, K_ALU, H_SUB, 0, O_ACC },
	{ op_xor_AI, K_ALU, H_XOR, 0, O_ACC }, { op_cmp_AI, K_ALU, H_CMP, 0, O_ACC },
	{ op_test_AI, K_TEST, H_AND, 0, O_ACC },
	/* The forms of any size (the byte and word ones: the others have
	 * handlers of their own, above) with register operands only. */
#define ALU_ANY(name, op) \
	{ op_##name##_EG, K_ALU, op, 0, O_EG }, { op_##name##_GE, K_ALU, op, 0, O_GE }, \
	{ op_##name##_EI, K_ALU, op, 0, O_EI }
	ALU_ANY(add, H_ADD), ALU_ANY(or, H_OR), ALU_ANY(and, H_AND), ALU_ANY(sub, H_SUB), ALU_ANY(xor, H_XOR),
	ALU_ANY(cmp, H_CMP),
#undef ALU_ANY
	{ op_shl, K_SHIFT, H_SHL, 0, O_RM }, { op_shr, K_SHIFT, H_SHR, 0, O_RM }, { op_sar, K_SHIFT, H_SAR, 0, O_RM },
	/* CMP [m], imm and TEST [m], imm (their register forms: K_TEST,
	 * classify); MOV [m], imm. */
	{ op_cmp_EI_m32, K_ALU_MEM, H_CMP, 4, O_MEM_IMM }, { op_cmp_EI_m64, K_ALU_MEM, H_CMP, 8, O_MEM_IMM },
	{ op_test_EI, K_ALU_MEM, H_AND, 0, O_MEM_IMM },
	/* The time and the hints (classify_leaving). */
	{ op_rdtsc, K_RDTSC, 0, 4, O_ANY }, { op_rdtscp, K_RDTSC, 1, 4, O_ANY },
	{ op_pause, K_PAUSE, 0, 0, O_ANY }, { op_fence, K_FENCE, 0, 0, O_ANY },
};

/* One guest instruction of a run, as the translator sees it. */
struct op {
	uint8_t kind, op, size;    /* size: of the register operand, 4 or 8 (K_ALU,
				      K_TEST, K_SHIFT: 1 or 2 too) */
	uint8_t dst, src;          /* guest registers; src REG_NONE: imm */
	uint64_t imm;              /* masked to size */
	bool sets_flags, reads_flags;
	uint8_t cc;                /* K_SETCC, K_CMOV: the condition; K_ADC: CF's (B) */
	/* The memory operand (the kinds that touch memory) or K_LEA's address:
	 * base + index << scale + disp in seg; REG_NONE for an absent part. */
	uint8_t base, index, scale, seg;
	uint8_t asize;             /* K_LEA: the address size */
	uint8_t nth;               /* the instruction's place in its block (K_RDTSC) */
	uint8_t msize;             /* bytes accessed (K_MOVX: of the source) */
	bool sign;                 /* K_LOAD, K_MOVX: sign-extended */
	bool high_byte;            /* K_MOVX: src's bits 15:8 (AH, CH, DH, BH: no REX) */
	bool mem_first;            /* K_ALU_MEM: CMP/TEST [m], r */
	bool rip_rel;              /* the address is rIP-relative: disp counts from the
				      block's start (64-bit code) */
	int32_t disp;
};

/* The flags record each setter leaves (emu/flags.h); K_IMUL leaves none here
 * (its flags are never stored by a run, below). */
static uint8_t lazy_kind(const struct op *o)
{
	switch (o->kind) {
	case K_ALU:
	case K_ALU_MEM:
	case K_ALU_RMW:
		return o->op == H_ADD ? LAZY_ADD : o->op == H_SUB || o->op == H_CMP ? LAZY_SUB : LAZY_LOGIC;
	case K_TEST: return LAZY_LOGIC;
	case K_INCDEC: return o->op ? LAZY_DEC : LAZY_INC;
	case K_ADC: return o->op ? LAZY_SBB : LAZY_ADC;
	case K_NEG: return LAZY_NEG;
	default: return o->op == H_SHL ? LAZY_SHL : o->op == H_SHR ? LAZY_SHR : LAZY_SAR;
	}
}

/* The status flags a condition code reads (SDM Vol.1 Table B-1). */
enum { F_CF = 1, F_PF = 2, F_ZF = 4, F_SF = 8, F_OF = 16 };
static unsigned cond_reads(unsigned cc)
{
	static const uint8_t reads[8] = { F_OF, F_CF, F_ZF, F_CF | F_ZF, F_SF, F_PF, F_SF | F_OF, F_ZF | F_SF | F_OF };
	return reads[(cc >> 1) & 7];
}

/* The flags the host's own instruction for setter o leaves as the guest's
 * record defines them: all for ADD/SUB/CMP/ADC/SBB/NEG and the logic ops (AF,
 * which no condition reads, aside); INC/DEC all but CF, which the host's
 * keeps from whatever host instruction came before; a shift by an immediate
 * CF, PF, ZF and SF (OF only for a count of 1, and the model may define it
 * otherwise); IMUL's are never read from the host. */
static unsigned host_exact(const struct op *o)
{
	switch (o->kind) {
	case K_INCDEC: return F_PF | F_ZF | F_SF | F_OF;
	case K_SHIFT: return F_CF | F_PF | F_ZF | F_SF;
	case K_IMUL: return 0;
	default: return F_CF | F_PF | F_ZF | F_SF | F_OF;
	}
}

/* A memory operand at the code's address size, base and index general
 * registers, or K_LEA's address at any address size but 16 bits. */
static bool take_address(const struct insn *in, bool long64, bool lea, struct op *o)
{
	if (!in->mem || in->lock || (in->index != REG_NONE && in->index >= 16) || in->disp != (int32_t)in->disp)
		return false;
	if (lea ? in->asize == 2 : in->asize != (long64 ? 8 : 4))
		return false;
	if (in->base == REG_RIP) {
		/* The next instruction's rIP + disp (SDM Vol.2 2.2.1.6), 64-bit
		 * addresses only: from the block's start, a constant. */
		int64_t from_block = (int64_t)in->offset + in->len + in->disp;
		if (!long64 || in->asize != 8 || from_block != (int32_t)from_block)
			return false;
		o->rip_rel = true;
		o->seg = in->seg;
		o->asize = 8;
		o->disp = (int32_t)from_block;
		return true;
	}
	if (in->base != REG_NONE && in->base >= 16)
		return false;
	o->base = in->base;
	o->index = in->index;
	o->scale = in->scale;
	o->seg = in->seg;
	o->asize = in->asize;
	o->disp = (int32_t)in->disp;
	return true;
}

/* A byte register operand: without REX, 4-7 are AH, CH, DH, BH (SDM Vol.1
 * 3.4.1.1), which no host register of the pool has a name for. */
static bool byte_reg_ok(const struct insn *in, unsigned r)
{
	return in->rex != 0 || r < 4;
}

/* RDTSC, RDTSCP, PAUSE and the fences (their #UD without the CPUID feature
 * of RDTSC and RDTSCP is decoded, emu/isa): what their handlers do where no
 * check of theirs (emit_op) sends the run to them. */
static bool classify_leaving(const struct insn *in, const struct form *f, struct op *o)
{
	*o = (struct op){ .kind = f->kind, .op = f->op, .size = 4, .dst = REG_NONE, .src = REG_NONE,
			  .base = REG_NONE, .index = REG_NONE, .nth = in->nth };
	switch (f->kind) {
	case K_RDTSC:
		return true;
	case K_PAUSE:
		return !(in->rex & 1);     /* with REX.B: XCHG r8, rAX (emu/wait.c op_pause) */
	default:
		/* emu/sse.c op_fence: SFENCE is SSE's, LFENCE and MFENCE SSE2's. */
		o->imm = ((in->modrm >> 3) & 7) == 7 ? CPUID_SSE : CPUID_SSE2;
		return true;
	}
}

/* What in is, or false when a run cannot hold it; long64: in 64-bit code
 * (else 32-bit code: the caller translates no 16-bit code). */
static bool classify(const struct insn *in, bool long64, struct op *o)
{
	const struct form *f = NULL;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]) && !f; i++)
		if (forms[i].exec == in->exec)
			f = &forms[i];
	if (!f || in->lock)
		return false;
	if (f->kind == K_RDTSC || f->kind == K_PAUSE || f->kind == K_FENCE)
		return classify_leaving(in, f, o);
	/* TEST r/m, r and TEST r/m, imm with a register: K_TEST (84/85, F6/F7 /0). */
	static const struct form test_eg = { op_test_EG, K_TEST, H_AND, 0, O_EG },
				 test_ei = { op_test_EI, K_TEST, H_AND, 0, O_EI };
	if (!in->mem && (f->exec == op_test_EG || f->exec == op_test_EI))
		f = f->exec == op_test_EG ? &test_eg : &test_ei;
	/* CMP with a memory operand, of any size (their register forms: K_ALU;
	 * 32- and 64-bit ones mostly decode to the fixed-size forms above). */
	static const struct form cmp_eg_mem = { op_cmp_EG, K_ALU_MEM, H_CMP, 0, O_MEM },
				 cmp_ge_mem = { op_cmp_GE, K_ALU_MEM, H_CMP, 0, O_MEM },
				 cmp_ei_mem = { op_cmp_EI, K_ALU_MEM, H_CMP, 0, O_MEM_IMM };
	if (in->mem && (f->exec == op_cmp_EG || f->exec == op_cmp_GE || f->exec == op_cmp_EI))
		f = f->exec == op_cmp_EG ? &cmp_eg_mem : f->exec == op_cmp_GE ? &cmp_ge_mem : &cmp_ei_mem;
	/* The register operand forms: none with memory. */
	if (in->mem && (f->operands == O_EG || f->operands == O_GE || f->operands == O_EI || f->operands == O_RM))
		return false;
	unsigned size = f->size ? f->size : in->size;
	*o = (struct op){ .kind = f->kind, .op = f->op, .size = (uint8_t)size, .src = REG_NONE,
			  .base = REG_NONE, .index = REG_NONE, .msize = (uint8_t)size };
	/* K_STORE of op_mov_EG: bytes and words (of any register size). */
	if (f->exec == op_mov_EG) {
		if ((size != 1 && size != 2) || !byte_reg_ok(in, in->reg) || !take_address(in, long64, false, o))
			return false;
		o->src = o->dst = in->reg;
		o->size = 8;
		return in->reg < 16;
	}
	if (f->kind == K_NOP) {
		/* 0F 1F /r; 90 (XCHG rAX, rAX, no REX.B), and 66 90. */
		o->dst = REG_NONE;
		return f->exec == op_nop || in->reg == R_AX;
	}
	if (f->exec == op_mov_EI) {
		/* MOV [m], imm of any size (K_STORE of an immediate); the
		 * register form is K_MOV_IMM's. */
		if (!in->mem)
			goto reg_form;
		if (!take_address(in, long64, false, o))
			return false;
		o->kind = K_STORE;
		o->dst = REG_NONE;
		o->imm = in->imm & (size == 8 ? ~0ull : (1ull << (8 * size)) - 1);
		o->size = 8;
		return true;
	}
reg_form:
	if (f->kind == K_SETCC) {
		if (in->mem || in->rm >= 16 || !byte_reg_ok(in, in->rm))
			return false;
		o->dst = in->rm;
		o->cc = in->opcode & 15;
		o->reads_flags = true;
		o->size = 8;
		return true;
	}
	/* Bytes and words: the ALU, TEST and shifts (the host's operation of
	 * that size leaves the rest of the register as the guest's does, SDM
	 * Vol.1 3.4.1.1), and CMP/TEST with memory (K_ALU_MEM of these sizes:
	 * only theirs, the other ALU forms with memory are 32 or 64 bits). */
	bool small_ok = f->kind == K_ALU || f->kind == K_TEST || f->kind == K_SHIFT || f->kind == K_ALU_MEM;
	if (size != 4 && size != 8 && !((size == 1 || size == 2) && small_ok))
		return false;
	uint64_t mask = size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
	o->sets_flags = f->kind == K_ALU || f->kind == K_TEST || f->kind == K_INCDEC || f->kind == K_SHIFT ||
			f->kind == K_ALU_MEM || f->kind == K_ALU_RMW || f->kind == K_IMUL || f->kind == K_ADC ||
			f->kind == K_NEG;
	switch (f->operands) {
	case O_EG: o->dst = in->rm; o->src = in->reg; break;
	case O_GE: o->dst = in->reg; o->src = in->rm; break;
	case O_EI: o->dst = in->rm; o->imm = in->imm & mask; break;
	case O_RM: o->dst = in->rm; break;
	case O_REG: o->dst = in->reg; break;
	case O_REG_IMM: o->dst = in->reg; o->imm = in->imm & mask; break;
	case O_ACC: o->dst = R_AX; o->imm = in->imm & mask; break;
	case O_RM_IMM: /* MOV Ev, Iz with a register operand only */
		if (in->mem)
			return false;
		o->dst = in->rm;
		o->imm = in->imm & mask;
		break;
	case O_ANY: /* the register and an E operand of either kind */
		o->dst = in->reg;
		if (f->kind == K_LEA && !in->mem)
			return false;
		if (!in->mem)
			o->src = in->rm;
		else if (!take_address(in, long64, f->kind == K_LEA, o))
			return false;
		break;
	default: /* O_MEM, O_MEM_IMM: the immediate the source */
		if (!take_address(in, long64, false, o))
			return false;
		o->dst = in->reg;
		if (f->operands == O_MEM_IMM)
			o->imm = in->imm & mask;
		else if (f->kind == K_STORE || f->kind == K_ALU_MEM || f->kind == K_ALU_RMW)
			o->src = in->reg;
		break;
	}
	switch (f->kind) {
	case K_ALU_MEM:
		/* CMP [m], r; TEST [m], r: dst is the memory, src the register. */
		o->mem_first = f->exec == op_cmp_EG_m32 || f->exec == op_cmp_EG_m64 || f->exec == op_test_EG ||
			       f->exec == op_cmp_EI_m32 || f->exec == op_cmp_EI_m64 || f->exec == op_test_EI ||
			       f->exec == op_cmp_EG || f->exec == op_cmp_EI;
		if (o->mem_first)
			o->dst = REG_NONE;
		else
			o->src = REG_NONE;
		break;
	case K_ALU_RMW:
		/* The memory is the destination; the source a register (EG) or
		 * the immediate (EI, src REG_NONE). */
		o->dst = REG_NONE;
		break;
	case K_MOVX:
		/* 0F B6/BE: a byte; 0F B7/BF: a word; 63 (MOVSXD): a doubleword,
		 * sign-extended only with a 64-bit operand (a 32-bit one is a MOV). */
		o->msize = f->exec == op_movsxd || f->exec == op_movsxd_r64 ? 4 : (in->opcode & 1) ? 2 : 1;
		o->sign = f->op;
		if (f->exec == op_movsxd && size != 8)
			return false;
		if (o->src != REG_NONE && o->msize == 1 && !byte_reg_ok(in, o->src)) {
			/* AH, CH, DH, BH: bits 15:8 of RAX..RBX (SDM Vol.1 3.4.1.1,
			 * ModRM.rm 4-7 without REX); into a 32-bit register. */
			if (size != 4)
				return false;
			o->src = (uint8_t)(o->src - 4);
			o->high_byte = true;
		}
		if (in->mem)
			o->kind = K_LOAD;
		break;
	case K_LOAD:
		o->msize = (uint8_t)size;
		break;
	case K_IMUL:
		if (f->op) {           /* IMUL Gv, Ev, imm: the register form only */
			if (in->mem)
				return false;
			o->imm = in->imm & mask;
		}
		break;
	case K_ADC:
		o->reads_flags = true;
		o->cc = 2;             /* B: CF */
		break;
	case K_CMOV:
		/* A 32-bit CMOV whose condition fails writes its destination
		 * only in 64-bit mode (emu/datamove.c op_cmovcc), as the host's
		 * always does. */
		if (in->mem || (size == 4 && !long64))
			return false;
		o->cc = in->opcode & 15;
		o->reads_flags = true;
		break;
	case K_PUSH:
	case K_POP:
		/* 64-bit code, 64-bit operand: the stack's address is rSP itself,
		 * with no segment base or limit (SDM Vol.1 3.3.7.1). */
		if (!long64 || size != 8)
			return false;
		o->msize = 8;
		o->src = in->reg;
		o->base = R_SP;
		break;
	case K_NOT:
	case K_NEG:
		if (in->mem)
			return false;
		break;
	default:
		break;
	}
	if ((o->dst != REG_NONE && o->dst >= 16) || (o->src != REG_NONE && o->src >= 16))
		return false;
	if (size == 1 && ((o->dst != REG_NONE && !byte_reg_ok(in, o->dst)) || (o->src != REG_NONE && !byte_reg_ok(in, o->src))))
		return false;
	/* SHL/SHR/SAR write every flag only with a count that is not 0 after
	 * masking (emu/shift.c shift_writes_flags): D0/D1 (1) or C0/C1 ib, not
	 * by CL. A byte or word shifted by its width or more: CF is undefined
	 * (SDM Vol.2 SAL/SAR/SHL/SHR), the model's may not be the host's. */
	if (f->kind == K_SHIFT) {
		if (in->map != 0 || (in->opcode | 1) == 0xd3)
			return false;
		o->imm = (in->opcode | 1) == 0xd1 ? 1 : in->imm & (size == 8 ? 0x3f : 0x1f);
		if (o->imm == 0 || (size < 4 && o->imm >= 8 * size))
			return false;
	}
	return true;
}

/* ---- host registers ---- */

enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };
/* The guest's registers go to these, in this order; RDI holds cpu, R10, R11
 * and RSI are scratch. The last six are callee-saved: pushed when used. */
static const uint8_t pool[] = { RAX, RCX, RDX, R8, R9, RBX, RBP, R12, R13, R14, R15 };
#define POOL (sizeof(pool) / sizeof(pool[0]))
#define POOL_CALLER_SAVED 5
/* A run that begins its block or reaches its end pushes every callee-saved
 * register of the pool, so that a direct link (emit_direct) finds the stack
 * as the run it goes into would have made it: the same six slots. */
#define PUSHES_LINKED (POOL - POOL_CALLER_SAVED)

/* ---- the emitter ---- */

struct emit {
	uint8_t *p, *end;
	struct emit *cold;         /* where this one's cold code goes; NULL: here */
	struct emit *peer;         /* the other part's, whose overflow patch() minds too */
};

static struct emit *cold_of(struct emit *e)
{
	return e->cold ? e->cold : e;
}

static void byte(struct emit *e, unsigned b)
{
	if (e->p < e->end)
		*e->p++ = (uint8_t)b;
	else
		e->p = e->end + 1;  /* overflow: the caller sees p > end */
}

static void u32(struct emit *e, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		byte(e, (v >> (8 * i)) & 0xff);
}

static void u64(struct emit *e, uint64_t v)
{
	u32(e, (uint32_t)v);
	u32(e, (uint32_t)(v >> 32));
}

/* REX for a 64-bit operation w, ModRM.reg r and ModRM.rm b; none if 0. */
static void rex(struct emit *e, bool w, unsigned r, unsigned b)
{
	unsigned x = 0x40 | (w ? 8 : 0) | (r >= 8 ? 4 : 0) | (b >= 8 ? 1 : 0);
	if (x != 0x40)
		byte(e, x);
}

/* The prefixes of an operation of size bytes with ModRM.reg r and ModRM.rm b:
 * 66 for a word, REX.W for a qword, and a REX for a byte always, so that
 * registers 4-7 name SPL..DIL (the low bytes the guest's REX forms name;
 * its AH..BH forms are translated only as MOVZX/MOVSX sources, emit_movx). */
static void sized(struct emit *e, unsigned size, unsigned r, unsigned b)
{
	if (size == 2)
		byte(e, 0x66);
	unsigned x = 0x40 | (size == 8 ? 8 : 0) | (r >= 8 ? 4 : 0) | (b >= 8 ? 1 : 0);
	if (x != 0x40 || size == 1)
		byte(e, x);
}

/* op r/m(reg form), reg: MOV 89, ADD 01, OR 09, AND 21, SUB 29, XOR 31, CMP 39,
 * TEST 85 (for a byte: the opcode before, 88, 00, ... 84). */
static void rr(struct emit *e, unsigned opcode, unsigned size, unsigned dst, unsigned src)
{
	sized(e, size, src, dst);
	byte(e, size == 1 ? opcode - 1 : opcode);
	byte(e, 0xc0 | (src & 7) << 3 | (dst & 7));
}

/* The low size bytes of imm (at most four: a qword's is sign-extended). */
static void imm_sized(struct emit *e, unsigned size, uint32_t imm)
{
	for (unsigned k = 0; k < (size < 4 ? size : 4u); k++)
		byte(e, (imm >> (8 * k)) & 0xff);
}

/* 81 /n (80 /n for a byte): an ALU operation with an immediate. */
static void ri(struct emit *e, unsigned ext, unsigned size, unsigned dst, uint32_t imm)
{
	sized(e, size, 0, dst);
	byte(e, size == 1 ? 0x80 : 0x81);
	byte(e, 0xc0 | ext << 3 | (dst & 7));
	imm_sized(e, size, imm);
}

/* dst = the low size bytes of src, zero-extended (MOVZX, or MOV). */
static void zext(struct emit *e, unsigned size, unsigned dst, unsigned src)
{
	if (size >= 4) {
		rr(e, 0x89, size, dst, src);
		return;
	}
	byte(e, 0x40 | (dst >= 8 ? 4 : 0) | (src >= 8 ? 1 : 0));   /* a REX always: SPL..DIL */
	byte(e, 0x0f);
	byte(e, size == 1 ? 0xb6 : 0xb7);
	byte(e, 0xc0 | (dst & 7) << 3 | (src & 7));
}

/* [rdi + disp32] as the memory operand of opcode with ModRM.reg r. */
static void cpu_field(struct emit *e, bool w, unsigned opcode, unsigned r, size_t off)
{
	rex(e, w, r, RDI);
	byte(e, opcode);
	if (off < 128) {           /* disp8: the guest's registers, short code */
		byte(e, 0x40 | (r & 7) << 3 | (RDI & 7));
		byte(e, (unsigned)off);
		return;
	}
	byte(e, 0x80 | (r & 7) << 3 | (RDI & 7));
	u32(e, (uint32_t)off);
}

static void load(struct emit *e, unsigned h, size_t off)  { cpu_field(e, true, 0x8b, h, off); }
static void store(struct emit *e, unsigned h, size_t off) { cpu_field(e, true, 0x89, h, off); }

/* A qword of cpu: a sign-extended imm32. */
static void store_imm(struct emit *e, size_t off, int32_t v)
{
	cpu_field(e, true, 0xc7, 0, off);
	u32(e, (uint32_t)v);
}

/* A qword of cpu: the low size bytes of host register h, zero-extended
 * (through RSI: R11 may hold K_ALU_MEM's operand, still to be stored). */
static void store_masked(struct emit *e, unsigned h, unsigned size, size_t off)
{
	if (size < 8) {
		zext(e, size, RSI, h);
		h = RSI;
	}
	store(e, h, off);
}

/* A qword of cpu: v. */
static void store_u64(struct emit *e, size_t off, uint64_t v)
{
	if ((uint64_t)(int64_t)(int32_t)v == v) {
		store_imm(e, off, (int32_t)v);
		return;
	}
	byte(e, 0x49);             /* REX.W B: MOV r11, imm64 */
	byte(e, 0xb8 + (R11 & 7));
	u64(e, v);
	store(e, R11, off);
}

static void mov_imm(struct emit *e, unsigned size, unsigned h, uint64_t v)
{
	rex(e, size == 8, 0, h);
	byte(e, 0xb8 + (h & 7));
	if (size == 8)
		u64(e, v);
	else
		u32(e, (uint32_t)v);
}

static void host_push(struct emit *e, unsigned h)
{
	rex(e, false, 0, h);
	byte(e, 0x50 + (h & 7));
}

static void host_pop(struct emit *e, unsigned h)
{
	rex(e, false, 0, h);
	byte(e, 0x58 + (h & 7));
}

/* ---- a run ---- */

#define LAZY(field) (offsetof(struct cpu, lazy) + offsetof(struct lazy_flags, field))
#define REG(g) (offsetof(struct cpu, regs) + 8 * (size_t)(g))

#define EXITS_PER_ACCESS 6
struct run {
	const struct op *ops;
	unsigned n;
	bool final[BLOCK_MAX_INSNS];   /* the last flag setter before a side exit or the end */
	bool cf_source[BLOCK_MAX_INSNS];  /* an S (above) */
	bool read[BLOCK_MAX_INSNS];    /* a setter whose flags a reader of the run takes
					  from the host's */
	bool entry_carry_aux[BLOCK_MAX_INSNS];  /* a final INC/DEC whose CF is the one the
						   run began with (its aux from cpu->jit.carry) */
	bool entry_carry_read[BLOCK_MAX_INSNS];  /* an ADC/SBB before any setter: its carry
						    in is the one the run began with */
	bool entry_carry;          /* the run takes CF where it begins (emit_carry_in) */
	int last_setter;           /* the last flag setter of the run, or -1 */
	bool exit_after_last_setter;
	bool accesses;             /* an op (or the block's CALL/RET) touches memory */
	bool user;                 /* made for CPL 3: the user bank, aligned accesses only */
	uint8_t set_hash;          /* a host register holding the TLB context's set hash
				      for the whole run, or 0xff: computed per access */
	bool long64;               /* 64-bit code, else 32-bit */
	unsigned long *side_exits; /* the cache's count of them */
	const struct block_link *jumps;   /* the cache's jump cache (emu/icache.h) */
	uint8_t host[16];          /* guest register -> host register, 0xff: unused */
	bool written[16];
	unsigned used;             /* pool entries taken */
	unsigned pushes;           /* the pool's callee-saved registers pushed: those used, or
				      all of them (PUSHES_LINKED) where a direct link may
				      enter or leave the run */
	uint8_t *inner;            /* where a direct link enters it (after the pushes) */
	uint8_t *loaded;           /* where one enters with its registers loaded; NULL: none */
	uint8_t *onward;           /* where it leaves for the next instruction's thread form,
				      its registers stored, its pushes not yet popped (then
				      the pops and the jump, to the run's end); NULL: none */
	/* Jumps to each memory access's side exit, to patch: at most
	 * EXITS_PER_ACCESS per access (32-bit code at CPL 3: rights, two
	 * limits, alignment, TLB miss; a CALL: its target, alignment, miss). */
	struct exit_jump {
		uint8_t *at;
		uint8_t op;
	} exits[EXITS_PER_ACCESS * BLOCK_MAX_INSNS];
	unsigned n_exits;
	/* Per access (op i; the block's CALL/RET: ops[n]): the jump of its
	 * current-context miss to its global lookup, out of line (emit_global),
	 * and where a hit there goes on; NULL: none emitted. */
	uint8_t *global_miss[BLOCK_MAX_INSNS + 1], *global_hit[BLOCK_MAX_INSNS + 1];
	/* Accesses through one address (plan_shared_lookups): per access, the
	 * access whose lookup answers for it (itself, or an earlier one of its
	 * group); per looking access, the bytes its lookup covers, from its
	 * first byte, the access it asks for, and the host register that keeps
	 * its host - linear for the rest of its group (0xff: none). */
	uint8_t answered_by[BLOCK_MAX_INSNS + 1];
	int8_t look_lo[BLOCK_MAX_INSNS + 1], look_hi[BLOCK_MAX_INSNS + 1];
	bool look_write[BLOCK_MAX_INSNS + 1];
	uint8_t keeps[BLOCK_MAX_INSNS + 1];
	/* The current access's host address (emit_access, for host_mem):
	 * [mem_base + mem_index + mem_disp], mem_base holding host - linear
	 * (R11, or a group's kept register), mem_index + mem_disp the linear
	 * address (R10 + 0, or in 64-bit code the guest base's host register
	 * and the displacement, unmoved: linear_in_place). */
	uint8_t mem_base, mem_index;
	int32_t mem_disp;
};

/* Can op i leave its run once the lookups are shared? A group's later
 * accesses (plan_shared_lookups) make no lookup and no test, but at CPL 3
 * the alignment test of one wider than a byte (emit_access). */
static bool leaves_at(const struct run *r, unsigned i)
{
	const struct op *o = &r->ops[i];
	if (!may_leave(o->kind))
		return false;
	bool member = touches_memory(o->kind) && r->answered_by[i] != i;
	return !member || (r->user && o->msize > 1);
}

/* plan_flags stores a setter's record where a side exit may follow before
 * the next setter: where only a group's later accesses follow, none can,
 * and the record goes (a CMP or TEST that nothing else reads, with it). */
static void drop_unread_records(struct run *r)
{
	for (unsigned i = 0; i < r->n; i++) {
		if (!r->final[i])
			continue;
		unsigned k = i + 1;
		while (k < r->n && !leaves_at(r, k) && !r->ops[k].sets_flags)
			k++;
		if (k < r->n && !leaves_at(r, k))
			r->final[i] = false;   /* the next setter's record is the one read */
	}
}

/* A jump with a 32-bit displacement to be patched: its opcode bytes (E9, or
 * 0F 8x) and the place of the displacement. */
static uint8_t *jump(struct emit *e, unsigned cc)
{
	if (cc == 0xe9) {
		byte(e, 0xe9);
	} else {
		byte(e, 0x0f);
		byte(e, 0x80 | cc);
	}
	uint8_t *at = e->p;
	u32(e, 0);
	return at;
}

/* The displacement at `at` of a jump whose next instruction is at + 4. */
static void put_rel32(uint8_t *at, const uint8_t *to)
{
	int32_t rel = (int32_t)(to - (at + 4));
	memcpy(at, &rel, 4);
}

static void patch(const struct emit *e, uint8_t *at, const uint8_t *to)
{
	if (e->p > e->end || (e->peer && e->peer->p > e->peer->end))
		return;
	put_rel32(at, to);
}

/* Host condition codes (the low nibble of 0F 8x). */
enum { CC_B = 2, CC_Z = 4, CC_NZ = 5, CC_A = 7 };

#define CPU(field) offsetof(struct cpu, field)
#define TLB(field) (offsetof(struct cpu, tlb) + offsetof(struct tlb, field))

/* The side exit of memory access i: a jump to patch. One that could not be
 * recorded would stay a jump to the next instruction, past a failed check:
 * the run is then not installed (as when its slot is full). */
static void exit_at(struct emit *e, struct run *r, unsigned i, uint8_t *at)
{
	if (r->n_exits < sizeof(r->exits) / sizeof(r->exits[0]))
		r->exits[r->n_exits++] = (struct exit_jump){ at, (uint8_t)i };
	else
		e->p = e->end + 1;
}

/* A jump on condition cc to that side exit. */
static void exit_jump(struct emit *e, struct run *r, unsigned i, unsigned cc)
{
	exit_at(e, r, i, jump(e, cc));
}

/* Op i's side exit where the bool of cpu at off is set. */
static void exit_if_set(struct emit *e, struct run *r, unsigned i, size_t off)
{
	cpu_field(e, false, 0x80, 7, off);                    /* CMP byte [off], 0 */
	byte(e, 0);
	exit_jump(e, r, i, CC_NZ);
}

/* LEA dst, [base + index << scale + disp32] (w: 64-bit), host registers,
 * 0xff for an absent base or index: a SIB byte always (the pool has no RSP;
 * an index of 100b without REX.X is none). */
static void emit_lea(struct emit *e, bool w, unsigned dst, unsigned base, unsigned index, unsigned scale,
		     int32_t disp)
{
	bool has_base = base != 0xff, has_index = index != 0xff;
	unsigned x = has_index ? index : RSP;
	unsigned r = 0x40 | (w ? 8 : 0) | (dst >= 8 ? 4 : 0) | (has_index && index >= 8 ? 2 : 0) |
		     (has_base && base >= 8 ? 1 : 0);
	if (r != 0x40)
		byte(e, r);
	byte(e, 0x8d);
	/* The displacement's size: none, 8 or 32 bits (without a base, 32:
	 * the SIB form's rule; RBP and R13 as the base always take one). */
	unsigned mod = !has_base ? 0 : disp == 0 && (base & 7) != 5 ? 0 : disp == (int8_t)disp ? 1 : 2;
	byte(e, mod << 6 | (dst & 7) << 3 | 4);
	byte(e, scale << 6 | (x & 7) << 3 | (has_base ? base & 7 : 5));
	if (mod == 1)
		byte(e, (uint8_t)disp);
	else if (mod == 2 || !has_base)
		u32(e, (uint32_t)disp);
}

/* The host register of a guest one, or 0xff for REG_NONE. */
static unsigned host_of(const struct run *r, unsigned g)
{
	return g == REG_NONE ? 0xff : r->host[g];
}

/* An instruction with the memory operand of the run's current access (its
 * host address, emit_access) and ModRM.reg h: prefix66 and w as the
 * operand size asks, opcode of one or two bytes (0F xx as 0x0fxx). */
static void host_mem(struct emit *e, const struct run *r, bool prefix66, bool w, unsigned opcode, unsigned h)
{
	unsigned base = r->mem_base, index = r->mem_index;
	int32_t disp = r->mem_disp;
	if (prefix66)
		byte(e, 0x66);
	byte(e, 0x40 | (w ? 8 : 0) | (h >= 8 ? 4 : 0) | (index >= 8 ? 2 : 0) | (base >= 8 ? 1 : 0));
	if (opcode > 0xff)
		byte(e, opcode >> 8);
	byte(e, opcode & 0xff);
	/* [base + index + disp]: RBP and R13 as the base always take a
	 * displacement; the pool has no RSP, so the index is never none. */
	unsigned mod = disp == 0 && (base & 7) != 5 ? 0 : disp == (int8_t)disp ? 1 : 2;
	byte(e, mod << 6 | (h & 7) << 3 | 4);
	byte(e, (index & 7) << 3 | (base & 7));
	if (mod == 1)
		byte(e, (uint8_t)disp);
	else if (mod == 2)
		u32(e, (uint32_t)disp);
}

/* Does op o write its memory operand? A read-modify-write needs the write's
 * hit, which allows the read (as emu/alu.c's thread forms take it: a
 * translation and a segment that allow the write allow the read). */
static bool op_writes(const struct op *o)
{
	return o->kind == K_STORE || o->kind == K_PUSH || o->kind == K_CALL || o->kind == K_ALU_RMW;
}

/* CMP and TEST: only the flags are written. */
static bool op_flags_only(const struct op *o)
{
	return o->kind == K_TEST || (o->kind == K_ALU && o->op == H_CMP) ||
	       (o->kind == K_ALU_MEM && (o->op == H_CMP || o->mem_first));
}

/* CMP r11, [rdi + rsi + bank + way * 64 + the tag for acc]: the set at
 * offset RSI of the bank at cpu + bank (mmu/tlb.h tlb_set_find), ZF set
 * where that way holds the tag in R11. */
static void emit_way_compare(struct emit *e, enum tlb_access acc, unsigned way, uint32_t bank)
{
	size_t tag = way * sizeof(struct tlb_entry) + offsetof(struct tlb_entry, tag) + acc * sizeof(uint64_t);
	byte(e, 0x4c); byte(e, 0x3b); byte(e, 0x9c); byte(e, 0x37);   /* CMP r11, [rdi + rsi + disp32] */
	u32(e, bank + (uint32_t)tag);
}

/* Both ways of that set for the tag in R11: on a hit, on after them with
 * RSI at the offset of the entry that holds it (way 0, the page filled
 * last in the set, mmu/tlb.h tlb_victim, takes one jump; way 1 none);
 * returns the jump taken where neither holds it, to patch. */
static uint8_t *emit_ways(struct emit *e, enum tlb_access acc, uint32_t bank)
{
	emit_way_compare(e, acc, 0, bank);
	byte(e, 0x74);                                       /* JZ over way 1's test */
	uint8_t *over = e->p;
	byte(e, 0);
	emit_way_compare(e, acc, 1, bank);
	uint8_t *miss = jump(e, CC_NZ);
	byte(e, 0x48); byte(e, 0x83); byte(e, 0xc6); byte(e, 0x40);           /* ADD rsi, 64 */
	if (e->p <= e->end)
		*over = (uint8_t)(e->p - (over + 1));
	return miss;
}

/* A set's offset in a bank: its number times 2 ways x 64 bytes. */
#define SET_SHIFT 7
#define SET_OFFSETS ((TLB_SETS - 1u) << SET_SHIFT)
_Static_assert(TLB_WAYS * sizeof(struct tlb_entry) == 1u << SET_SHIFT, "jit: a set is 128 bytes");

/* Host register h = the set hash of the context whose id is the TLB's field
 * at id (mmu/tlb.h tlb_set_of) as a set's offset: its bits XOR those of the
 * page's (emit_set_find). The current context's is kept (cur_mix). */
static void emit_set_hash(struct emit *e, unsigned h, size_t id)
{
	if (id == TLB(cur)) {
		cpu_field(e, false, 0x8b, h, TLB(cur_mix));   /* MOV h, [cur_mix] */
		return;
	}
	rex(e, false, h, RDI);                                /* MOVZX h, word [id] */
	byte(e, 0x0f);
	byte(e, 0xb7);
	byte(e, 0x80 | (h & 7) << 3 | (RDI & 7));
	u32(e, (uint32_t)id);
	rex(e, false, h, h);                                  /* IMUL h, h, mix */
	byte(e, 0x69);
	byte(e, 0xc0 | (h & 7) << 3 | (h & 7));
	u32(e, TLB_SET_MIX);
	rex(e, false, 0, h); byte(e, 0xc1); byte(e, 0xe0 | (h & 7)); byte(e, SET_SHIFT);   /* SHL h, 7 */
	rex(e, false, 0, h); byte(e, 0x81); byte(e, 0xe0 | (h & 7)); u32(e, SET_OFFSETS);  /* AND h, (sets - 1) << 7 */
}

/* The TLB's set of the page at the current access's linear address + lo
 * (mem_index + mem_disp + lo) among the translations of the context whose
 * id is the TLB's field at id (mmu/tlb.h tlb_set_of; hash: a host register
 * holding that id's hash as a set's offset (emit_set_hash), or 0xff to
 * compute it) as its offset in the bank into RSI, the tag of the page of
 * the last byte (+ hi), and that id into R11, for emit_ways.
 *
 * An access that crosses a page looks for the next page in the set of the
 * first, where no entry of it can be (the sets of two neighbouring pages
 * differ: the page's low bits, XOR one value), so it misses: mem_fast's
 * single compare. */
static void emit_set_find(struct emit *e, const struct run *r, int8_t lo, int8_t hi, size_t id, unsigned hash)
{
	/* The set's offset, ((page ^ hash) & (sets - 1)) * 128, as the page's
	 * bits shifted into place XOR the hash's, shifted alike. */
	unsigned at = r->mem_index;
	int32_t disp = r->mem_disp;
	if (disp + lo)
		emit_lea(e, false, RSI, at, 0xff, 0, disp + lo);    /* LEA esi, [at + disp + lo] */
	else
		rr(e, 0x89, 4, RSI, at);                      /* MOV esi, at */
	byte(e, 0xc1); byte(e, 0xee); byte(e, PAGE_SHIFT - SET_SHIFT);   /* SHR esi, 12 - 7 */
	byte(e, 0x81); byte(e, 0xe6); u32(e, SET_OFFSETS);    /* AND esi, (sets - 1) << 7 */
	if (hash == 0xff) {
		hash = R11;
		emit_set_hash(e, R11, id);
	}
	rr(e, 0x31, 4, RSI, hash);                            /* XOR esi, hash */
	if (disp + hi)
		emit_lea(e, true, R11, at, 0xff, 0, disp + hi);   /* LEA r11, [at + disp + hi] */
	else
		rr(e, 0x89, 8, R11, at);                      /* MOV r11, at */
	byte(e, 0x49); byte(e, 0x81); byte(e, 0xe3); u32(e, (uint32_t)-(int32_t)PAGE_SIZE);   /* AND r11, -4096 */
	byte(e, 0x66);                                        /* OR r11w, word [id] */
	cpu_field(e, false, 0x0b, R11, id);
}

/* The run's TLB bank (the CPL's) as an offset from cpu: the sets'
 * offsets (emit_set_find) add to it in each compare and load. */
static uint32_t bank_of(const struct run *r)
{
	return (uint32_t)(TLB(e) + (r->user ? TLB_USER : TLB_SUPERVISOR) * TLB_SETS * TLB_WAYS * sizeof(struct tlb_entry));
}

/* The displacement of access o from its base register as the access
 * begins: PUSH and CALL store below rSP. */
static int64_t access_disp(const struct op *o)
{
	return o->kind == K_PUSH || o->kind == K_CALL ? -8 : o->disp;
}

/* Does access o add the FS or GS base to its offset (64-bit code: the only
 * segment bases that count, SDM Vol.1 3.3.7.1)? POP and RET read the stack
 * through SS, whatever their prefix. */
static bool adds_fs_gs_base(const struct op *o)
{
	return o->kind != K_POP && o->kind != K_RET && (o->seg == SR_FS || o->seg == SR_GS);
}

/* Does access i's linear address stay in place in 64-bit code: its guest
 * base register plus its displacement (*disp; a rIP-relative one has no
 * base), no index, no FS/GS base, no alignment test (which needs the
 * address in a register)? Then nothing computes it: the lookup and the
 * access address through the base itself (one instruction less each time,
 * and one cycle less on the way to the data). */
static bool linear_in_place(const struct run *r, unsigned i, int32_t *disp)
{
	const struct op *o = &r->ops[i];
	int64_t d = access_disp(o);
	/* The lookup's LEAs add up to 127 to it. */
	if (!r->long64 || adds_fs_gs_base(o) || o->base == REG_NONE || o->index != REG_NONE ||
	    (r->user && o->msize > 1) || d < INT32_MIN + 128 || d > INT32_MAX - 128)
		return false;
	*disp = (int32_t)d;
	return true;
}

/* The current access's linear address as access i's (mem_index,
 * mem_disp): in place, else R10 (emit_access puts it there). */
static void address_of(struct run *r, unsigned i)
{
	int32_t disp;
	if (linear_in_place(r, i, &disp)) {
		r->mem_index = r->host[r->ops[i].base];
		r->mem_disp = disp;
	} else {
		r->mem_index = R10;
		r->mem_disp = 0;
	}
	r->mem_base = R11;
}

/* A memory access of op i: the address (in place, or into R10, its segment
 * checked in 32-bit code, the FS/GS base added in 64-bit code), the TLB's
 * hit as emu/operand.h mem_fast finds it, R11 = host - linear; else the side
 * exit. The access itself then goes through host_mem. */
static void emit_access(struct emit *e, struct run *r, unsigned i, bool long64)
{
	const struct op *o = &r->ops[i];
	bool write = op_writes(o);
	unsigned base = host_of(r, o->base), index = host_of(r, o->index);
	/* The CPL's kind was checked at the run's start (emit_run). */
	size_t seg = CPU(seg) + o->seg * sizeof(struct segment);
	address_of(r, i);
	if (r->mem_index != R10) {
		/* In place (linear_in_place). */
	} else if (o->kind == K_PUSH || o->kind == K_CALL) {
		emit_lea(e, true, R10, base, 0xff, 0, -8);   /* 64-bit code: rSP - 8 */
	} else if (long64) {
		/* R10 = the linear address: the offset (+ the FS/GS base). */
		if (o->rip_rel) {
			load(e, R10, CPU(block_ip));
			emit_lea(e, true, R10, R10, 0xff, 0, o->disp);
		} else {
			emit_lea(e, true, R10, base, index, o->scale, o->disp);
		}
		if (adds_fs_gs_base(o))
			cpu_field(e, true, 0x03, R10, seg + offsetof(struct segment, base));   /* ADD r10, [base] */
	} else {
		/* R10 = the offset, 32 bits (insn_ea_at); then mmu/segment.h
		 * seg_access_ok: the rights, lo <= offset, offset + size - 1 <= hi;
		 * then the linear address, 32 bits (seg_linear). */
		emit_lea(e, false, R10, base, index, o->scale, o->disp);
		cpu_field(e, false, 0xf6, 0, seg + offsetof(struct segment, perm));    /* TEST byte [perm], p */
		byte(e, write ? SEG_PERM_WRITE : SEG_PERM_READ);
		exit_jump(e, r, i, CC_Z);
		cpu_field(e, true, 0x3b, R10, seg + offsetof(struct segment, lo));     /* CMP r10, [lo] */
		exit_jump(e, r, i, CC_B);
		byte(e, 0x49); byte(e, 0x8d); byte(e, 0x72); byte(e, o->msize - 1);   /* LEA rsi, [r10 + size - 1] */
		cpu_field(e, true, 0x3b, RSI, seg + offsetof(struct segment, hi));     /* CMP rsi, [hi] */
		exit_jump(e, r, i, CC_A);
		cpu_field(e, true, 0x03, R10, seg + offsetof(struct segment, base));   /* ADD r10, [base] */
		rr(e, 0x89, 4, R10, R10);                     /* MOV r10d, r10d */
	}
	/* CPL 3: an access that is not aligned is mem_fast's to refuse (the
	 * alignment check, SDM Vol.3 6.15 "Interrupt 17"). */
	if (r->user && o->msize > 1) {
		byte(e, 0x41); byte(e, 0xf7); byte(e, 0xc2); u32(e, o->msize - 1u);   /* TEST r10d, size - 1 */
		exit_jump(e, r, i, CC_NZ);
	}
	if (r->answered_by[i] != i) {
		/* Within the bytes an earlier lookup found in one page: host -
		 * linear is the kept register's. */
		r->mem_base = r->keeps[r->answered_by[i]];
		return;
	}
	/* The current context's entry (the CPL's bank); else the space's global
	 * translations, out of line (emit_global). */
	emit_set_find(e, r, r->look_lo[i], r->look_hi[i], TLB(cur), r->set_hash);
	r->global_miss[i] = emit_ways(e, r->look_write[i] ? TLB_WRITE : TLB_READ, bank_of(r));
	r->global_hit[i] = e->p;
	byte(e, 0x4c); byte(e, 0x8b); byte(e, 0x9c); byte(e, 0x37);   /* MOV r11, [rdi + rsi + bank + host_minus_lin] */
	u32(e, bank_of(r) + (uint32_t)offsetof(struct tlb_entry, host_minus_lin));
	if (r->keeps[i] != 0xff)
		rr(e, 0x89, 8, r->keeps[i], R11);              /* kept for the group */
}

/* Access i missed in the current context: where the space's global
 * translations may be filled, look in their set too (the second half of
 * mmu/tlb.h tlb_lookup: SDM Vol.3 4.10.2.4, a global translation is used
 * whatever the PCID), and go on at the access on a hit; else its side exit.
 * Its linear address is where the access left it (R10, or in place). */
static void emit_global(struct emit *e, struct run *r, unsigned i)
{
	if (!r->global_miss[i])
		return;
	address_of(r, i);
	patch(e, r->global_miss[i], e->p);
	cpu_field(e, false, 0x80, 7, TLB(global_filled));     /* CMP byte [global_filled], 0 */
	byte(e, 0);
	exit_jump(e, r, i, CC_Z);
	emit_set_find(e, r, r->look_lo[i], r->look_hi[i], TLB(cur_global), 0xff);
	exit_at(e, r, i, emit_ways(e, r->look_write[i] ? TLB_WRITE : TLB_READ, bank_of(r)));
	patch(e, jump(e, 0xe9), r->global_hit[i]);
}

/* The load of K_LOAD into host register h: MOV, MOVZX, MOVSX or MOVSXD from
 * the access's host address (host_mem), to a register of size bytes. */
static void emit_load(struct emit *e, const struct run *r, const struct op *o, unsigned h)
{
	bool w = o->size == 8;
	switch (o->msize) {
	case 1: host_mem(e, r, false, w && o->sign, o->sign ? 0x0fbe : 0x0fb6, h); break;
	case 2: host_mem(e, r, false, w && o->sign, o->sign ? 0x0fbf : 0x0fb7, h); break;
	case 4: host_mem(e, r, false, w && o->sign, w && o->sign ? 0x63 : 0x8b, h); break;
	default: host_mem(e, r, false, true, 0x8b, h); break;
	}
}

/* The register form of K_MOVX: dst = src extended (the same encodings with a
 * register operand). */
static void emit_movx(struct emit *e, const struct op *o, unsigned d, unsigned src)
{
	if (o->high_byte) {
		/* Through memory, so that the host's flags stay the last
		 * setter's (a shift would change them): MOV [jit.word], src32;
		 * MOVZX/MOVSX d32, byte [jit.word + 1]. */
		cpu_field(e, false, 0x89, src, CPU(jit.word));
		rex(e, false, d, RDI);
		byte(e, 0x0f);
		byte(e, o->sign ? 0xbe : 0xb6);
		byte(e, 0x80 | (d & 7) << 3 | (RDI & 7));
		u32(e, (uint32_t)CPU(jit.word) + 1);
		return;
	}
	bool w = o->size == 8 && o->sign;
	unsigned x = 0x40 | (w ? 8 : 0) | (d >= 8 ? 4 : 0) | (src >= 8 ? 1 : 0);
	/* A byte source: REX always, so that 4-7 name SPL..DIL (the guest's
	 * with its REX, byte_reg_ok). */
	if (x != 0x40 || o->msize == 1)
		byte(e, x);
	if (o->msize == 4) {
		byte(e, w ? 0x63 : 0x8b);
	} else {
		byte(e, 0x0f);
		byte(e, (o->sign ? 0xbe : 0xb6) | (o->msize == 2 ? 1 : 0));
	}
	byte(e, 0xc0 | (d & 7) << 3 | (src & 7));
}

/* The host code of one guest instruction. */
static void emit_op(struct emit *e, struct run *r, unsigned i)
{
	const struct op *o = &r->ops[i];
	unsigned s = o->size, d = host_of(r, o->dst), src = host_of(r, o->src);
	bool final = r->final[i], cf = r->cf_source[i];
	bool flags_only = op_flags_only(o);
	switch (o->kind) {
	case K_MOV:
		rr(e, 0x89, s, d, src);
		return;
	case K_MOV_IMM:
		mov_imm(e, s, d, o->imm);
		return;
	case K_LEA:
		if (o->rip_rel) {
			load(e, d, CPU(block_ip));
			emit_lea(e, s == 8, d, d, 0xff, 0, o->disp);
			return;
		}
		emit_lea(e, s == 8 && o->asize == 8, d, host_of(r, o->base), host_of(r, o->index), o->scale,
			 o->disp);
		return;
	case K_NOP:
		return;
	case K_RDTSC:
		/* SDM Vol.2 RDTSC, RDTSCP: #GP(0) with CR4.TSD at CPL > 0 (not
		 * in real mode); in a guest, intercepts (APM2 15.9, SDM Vol.3
		 * 25.1.3): where either may apply, the handler decides. */
		cpu_field(e, false, 0xf7, 0, CPU(cr4));           /* TEST dword [cr4], TSD */
		u32(e, CR4_TSD);
		exit_jump(e, r, i, CC_NZ);
		exit_if_set(e, r, i, CPU(in_guest));
		/* The time, emu/insn.h cpu_now: the block's count (time only
		 * moves at its end here: a deadline inside the block would
		 * have run its exec forms) and the instructions before this
		 * one, plus the offset (emu/system.c op_rdtsc). */
		load(e, R11, CPU(icount));
		cpu_field(e, true, 0x03, R11, CPU(tsc_offset));   /* ADD r11, [tsc_offset] */
		if (o->nth)
			emit_lea(e, true, R11, R11, 0xff, 0, o->nth);
		rr(e, 0x89, 4, r->host[R_AX], R11);              /* MOV eax, r11d */
		byte(e, 0x49); byte(e, 0xc1); byte(e, 0xeb); byte(e, 32);   /* SHR r11, 32 */
		rr(e, 0x89, 4, r->host[R_DX], R11);              /* MOV edx, r11d */
		if (o->op)
			cpu_field(e, false, 0x8b, r->host[R_CX], CPU(tsc_aux));   /* MOV ecx, dword [tsc_aux] */
		return;
	case K_PAUSE:
		/* emu/wait.c op_pause: an intercept in a guest (APM2 15.14.4,
		 * SDM Vol.3 25.1.3), the end of a CPU's turn with several. */
		exit_if_set(e, r, i, CPU(in_guest));
		exit_if_set(e, r, i, CPU(halt_yields));
		return;
	case K_FENCE:
		/* "#UD If CPUID.01H:EDX.SSE2[bit 26] = 0" (SSE[25] for SFENCE,
		 * SDM Vol.2 LFENCE, MFENCE, SFENCE): a bit CPUID may change. */
		cpu_field(e, false, 0xf7, 0, CPU(leaf1_edx));     /* TEST dword [leaf1_edx], bit */
		u32(e, 1u << o->imm);
		exit_jump(e, r, i, CC_Z);
		return;
	case K_MOVX:
		emit_movx(e, o, d, src);
		return;
	case K_NOT:
		rex(e, s == 8, 0, d);
		byte(e, 0xf7);
		byte(e, 0xd0 | (d & 7));
		return;
	case K_SETCC:
		byte(e, 0x40 | (d >= 8 ? 1 : 0));    /* REX: the low byte of d */
		byte(e, 0x0f);
		byte(e, 0x90 | o->cc);
		byte(e, 0xc0 | (d & 7));
		return;
	case K_CMOV:
		rex(e, s == 8, d, src);
		byte(e, 0x0f);
		byte(e, 0x40 | o->cc);
		byte(e, 0xc0 | (d & 7) << 3 | (src & 7));
		return;
	case K_LOAD:
		emit_access(e, r, i, r->long64);
		emit_load(e, r, o, d);
		return;
	case K_STORE:
		emit_access(e, r, i, r->long64);
		if (o->src != REG_NONE) {
			host_mem(e, r, o->msize == 2, o->msize == 8, o->msize == 1 ? 0x88 : 0x89, d);
			return;
		}
		/* MOV [m], imm: C6 /0 ib, 66 C7 /0 iw, C7 /0 id, REX.W C7 /0 id. */
		host_mem(e, r, o->msize == 2, o->msize == 8, o->msize == 1 ? 0xc6 : 0xc7, 0);
		for (unsigned k = 0; k < (o->msize < 4 ? o->msize : 4u); k++)
			byte(e, (o->imm >> (8 * k)) & 0xff);
		return;
	case K_PUSH:
		/* PUSH rSP stores the value before the decrement (emu/datamove.c). */
		emit_access(e, r, i, true);
		host_mem(e, r, false, true, 0x89, src);
		emit_lea(e, true, r->host[R_SP], r->host[R_SP], 0xff, 0, -8);
		return;
	case K_POP:
		/* rSP is incremented before the destination is written: POP rSP
		 * keeps the value read (emu/datamove.c op_pop_Z). */
		emit_access(e, r, i, true);
		host_mem(e, r, false, true, 0x8b, R11);
		emit_lea(e, true, r->host[R_SP], r->host[R_SP], 0xff, 0, 8);
		rr(e, 0x89, 8, d, R11);
		return;
	case K_ALU_MEM:
		/* The operand read into R11 (a byte or word zero-extended); then as
		 * a register operation of its size. */
		emit_access(e, r, i, r->long64);
		host_mem(e, r, false, s == 8, s == 1 ? 0x0fb6 : s == 2 ? 0x0fb7 : 0x8b, R11);
		if (o->mem_first)
			d = R11;
		else
			src = R11;
		break;
	case K_ALU_RMW:
		/* R11 = the host address, the operand read into RSI; then as a
		 * register operation, and RSI stored back before the flags'
		 * record is (which may use R11). */
		emit_access(e, r, i, r->long64);
		emit_lea(e, true, R11, r->mem_base, r->mem_index, 0, r->mem_disp);   /* LEA r11, [host address] */
		rex(e, s == 8, RSI, R11);                     /* MOV rsi, [r11] */
		byte(e, 0x8b);
		byte(e, (RSI & 7) << 3 | (R11 & 7));
		d = RSI;
		break;
	default:
		break;
	}
	/* Flags that nothing reads, of an instruction with no other effect. */
	if (flags_only && !final && !cf && !r->read[i])
		return;
	/* L: R10 takes the first source (the value before the operation), and
	 * for CMP and TEST becomes their result. */
	if (final)
		zext(e, s, R10, d);
	unsigned target = flags_only && final ? R10 : d;
	bool carry_in_stored = false;
	switch (o->kind) {
	case K_ALU:
	case K_TEST:
	case K_ALU_MEM:
	case K_ALU_RMW: {
		/* Into R10: SUB for CMP, AND for TEST; into d: the operation
		 * itself (CMP and TEST leave d as it is). */
		unsigned alu = o->kind == K_TEST || (o->kind == K_ALU_MEM && o->mem_first && o->op == H_AND) ? H_AND
															 : o->op;
		bool test = alu == H_AND && flags_only;
		if (target == R10 && alu == H_CMP)
			alu = H_SUB;
		if (src == 0xff && test && target != R10) {
			sized(e, s, 0, target);        /* TEST target, imm: F7 /0 (F6 /0) */
			byte(e, s == 1 ? 0xf6 : 0xf7);
			byte(e, 0xc0 | (target & 7));
			imm_sized(e, s, (uint32_t)o->imm);
		} else if (src == 0xff)
			ri(e, alu, s, target, (uint32_t)o->imm);
		else if (test && target != R10)
			rr(e, 0x85, s, target, src);
		else
			rr(e, alu * 8 + 1, s, target, src);
		break;
	}
	case K_ADC:
		/* Before any setter of the run: the carry in is the CF the run
		 * began with, into the host's CF. */
		if (r->entry_carry_read[i]) {
			rex(e, true, 0, RDI);      /* BT qword [rdi + jit.carry], 0 */
			byte(e, 0x0f);
			byte(e, 0xba);
			byte(e, 0x80 | 4 << 3 | (RDI & 7));
			u32(e, (uint32_t)CPU(jit.carry));
			byte(e, 0);
		}
		/* The record's aux: the carry in, read before the host's ADC/SBB
		 * consumes it (emu/alu.c alu_compute). */
		if (final) {
			store_imm(e, LAZY(aux), 0);
			byte(e, 0x0f);     /* SETC byte [rdi + aux] */
			byte(e, 0x92);
			byte(e, 0x80 | (RDI & 7));
			u32(e, (uint32_t)LAZY(aux));
			carry_in_stored = true;
		}
		if (src == 0xff)
			ri(e, o->op ? 3 : 2, s, d, (uint32_t)o->imm);   /* 81 /2 ADC, /3 SBB */
		else
			rr(e, o->op ? 0x19 : 0x11, s, d, src);
		break;
	case K_IMUL:
		if (src == 0xff)
			src = d;
		if (o->op) {               /* IMUL d, src, imm32 */
			rex(e, s == 8, d, src);
			byte(e, 0x69);
			byte(e, 0xc0 | (d & 7) << 3 | (src & 7));
			u32(e, (uint32_t)o->imm);
		} else {                   /* IMUL d, src */
			rex(e, s == 8, d, src);
			byte(e, 0x0f);
			byte(e, 0xaf);
			byte(e, 0xc0 | (d & 7) << 3 | (src & 7));
		}
		return;                    /* its flags are dead (plan_flags) */
	case K_NEG:
		rex(e, s == 8, 0, d);
		byte(e, 0xf7);
		byte(e, 0xd8 | (d & 7));
		break;
	case K_INCDEC:
		rex(e, s == 8, 0, d);
		byte(e, 0xff);
		byte(e, 0xc0 | (o->op ? 1u : 0u) << 3 | (d & 7));
		break;
	default: /* K_SHIFT */
		sized(e, s, 0, d);
		byte(e, s == 1 ? 0xc0 : 0xc1);
		byte(e, 0xc0 | (unsigned)o->op << 3 | (d & 7));
		byte(e, (uint8_t)o->imm);
		break;
	}
	if (o->kind == K_ALU_RMW) {
		rex(e, s == 8, RSI, R11);                     /* MOV [r11], rsi */
		byte(e, 0x89);
		byte(e, (RSI & 7) << 3 | (R11 & 7));
	}
	/* S: its CF is what the run's last INC/DEC keeps (MOV and the stores
	 * below leave the host's flags alone; S is never L's INC/DEC, nor an
	 * ADC/SBB: plan_flags). */
	if (cf && !carry_in_stored) {
		store_imm(e, LAZY(aux), 0);
		byte(e, 0x0f);     /* SETC byte [rdi + aux] */
		byte(e, 0x92);
		byte(e, 0x80 | (RDI & 7));
		u32(e, (uint32_t)LAZY(aux));
	}
	if (!final)
		return;
	/* op and size, adjacent bytes: one word. */
	_Static_assert(offsetof(struct lazy_flags, size) == offsetof(struct lazy_flags, op) + 1, "jit: op, size");
	byte(e, 0x66);             /* MOV word [op], imm16 */
	cpu_field(e, false, 0xc7, 0, LAZY(op));
	byte(e, lazy_kind(o));
	byte(e, log2_size(s));
	if (target == R10) {
		/* CMP, TEST: R10 holds the result, d the first source. */
		store(e, R10, LAZY(result));
		store_masked(e, d, s, LAZY(src1));
	} else {
		if (s < 4)
			store_masked(e, d, s, LAZY(result));
		else
			store(e, d, LAZY(result));   /* written with the operand size */
		store(e, R10, LAZY(src1));
	}
	if (r->entry_carry_aux[i]) {
		load(e, RSI, CPU(jit.carry));   /* its CF: the run's first (RSI free here) */
		store(e, RSI, LAZY(aux));
	}
	if (o->kind == K_INCDEC)
		store_imm(e, LAZY(src2), 1);
	else if (o->kind == K_NEG)
		store_imm(e, LAZY(src2), 0);
	else if (o->kind == K_SHIFT || src == 0xff)
		store_u64(e, LAZY(src2), o->imm);
	else if (src == d)
		store_masked(e, target == R10 ? d : R10, s, LAZY(src2));
	else
		store_masked(e, src, s, LAZY(src2));
}

/* The loop a block closes on itself: the run is every instruction but the
 * last, a JZ/JNZ back to the block's start whose condition is the run's last
 * flag-setting instruction's ZF (the host's, from the same operation: "result
 * is 0" for every record kind, emu/flags.h). Each taken round does what
 * emu/run.c thread_next_block does before running the block again that a
 * round can change: no attention, the round within the deadline; then the
 * round's time counted. Its other two tests hold by themselves: the host's
 * stack is where it was a round before, and the block is still cached (a
 * store into code never hits the TLB inline, whose write grants leave out
 * pages with code, emu/memory.c tlb_fill: it leaves the run for its handler;
 * nothing else runs between two rounds).
 * Where one fails, the code goes on with rIP at the block's start to the
 * block change (emit_next_block), which decides as thread_next_block would. */
struct loop {
	bool on;
	bool exit_if_zero;         /* JNZ: the loop ends on ZF = 1 */
	unsigned count;            /* instructions per round */
	uint32_t fall_offset;      /* bytes from the block's start to after the Jcc */
};

/* One more side exit (jit_side_exits), through RSI: free at every exit. */
static void count_side_exit(struct emit *e, const struct run *r)
{
	byte(e, 0x48);             /* MOV rsi, imm64; INC qword [rsi] */
	byte(e, 0xbe);
	u64(e, (uint64_t)(uintptr_t)r->side_exits);
	byte(e, 0x48);
	byte(e, 0xff);
	byte(e, 0x06);
}

/* The registers the run wrote stored: the guest's registers as the thread
 * forms would leave them (the pool's still hold them). */
static void emit_store_written(struct emit *e, const struct run *r)
{
	for (unsigned g = 0; g < 16; g++)
		if (r->host[g] != 0xff && r->written[g])
			store(e, r->host[g], REG(g));
}

/* The pushed registers popped: the stack as the run was entered. */
static void emit_pops(struct emit *e, const struct run *r)
{
	for (unsigned k = POOL_CALLER_SAVED + r->pushes; k-- > POOL_CALLER_SAVED;)
		host_pop(e, pool[k]);
}

/* Both: the guest's state as the thread forms would leave it, every host
 * register but RDI free. */
static void emit_release(struct emit *e, const struct run *r)
{
	emit_store_written(e, r);
	emit_pops(e, r);
}

/* On to the thread handler of next, or to handler (next's own, where its
 * thread pointer is now the run's code), everything released. */
static void emit_to_thread(struct emit *e, const struct insn *next, insn_handler handler)
{
	byte(e, 0x48);             /* MOV rsi, imm64: the next instruction */
	byte(e, 0xbe);
	u64(e, (uint64_t)(uintptr_t)next);
	if (handler) {
		uint64_t to;
		memcpy(&to, &handler, sizeof(to));
		byte(e, 0x49);     /* MOV r11, imm64; JMP r11 */
		byte(e, 0xbb);
		u64(e, to);
		byte(e, 0x41);
		byte(e, 0xff);
		byte(e, 0xe3);
		return;
	}
	byte(e, 0xff);             /* JMP [rsi + offsetof(thread)] */
	byte(e, 0x66);
	byte(e, (uint8_t)offsetof(struct insn, thread));
}

/* Leave the run: released, on to next's thread handler or to handler. */
static void emit_leave(struct emit *e, const struct run *r, const struct insn *next, insn_handler handler)
{
	emit_release(e, r);
	emit_to_thread(e, next, handler);
}
_Static_assert(offsetof(struct insn, thread) < 128, "jit: the thread pointer within a disp8");

/* Where a run's block-end branch j goes on in its own thread form: through
 * its thread pointer, unless the run is j alone (a lone CALL, RET or JMP),
 * whose thread pointer is the run's own code by then: its handler as it is
 * while the run is made. */
static insn_handler branch_handler(const struct run *r, const struct insn *j)
{
	return r->n == 0 ? j->thread : NULL;
}

/* A run that reaches its block's end goes on to the next block itself: the
 * block's branch (a Jcc on the host's flags of the run's own last setter, a
 * JMP rel) or its fall-through sets rIP, and what emu/run.c
 * thread_next_block does follows inline, with a jump of this block's own to
 * the next block's first handler (one indirect jump per block predicts far
 * better than the one that all blocks share in thread_next_block). Every
 * check that function makes is made here, in its order; where one fails,
 * thread_next_block itself runs (rIP stored), and where the taken branch's
 * target would fault, the branch's own thread handler (emu/branch.c). */
struct block_end {
	enum { END_NONE, END_FALL, END_BRANCH, END_CALL, END_RET } kind;
	const struct block *b;
	const struct insn *branch;  /* END_BRANCH: the Jcc or JMP; END_CALL, END_RET: the
				       CALL or RET (ops[n] of the run: K_CALL, K_RET) */
	bool conditional;
	bool cond_at_entry;        /* the run sets no flags: its Jcc's condition is the one
				      before it, taken as the run begins (emit_cond_in) */
	unsigned cc;
	uint32_t fall_offset;      /* bytes from the block's start to after it */
};

/* MOV r, imm64. */
static void mov_imm64(struct emit *e, unsigned h, uint64_t v)
{
	byte(e, 0x48 | (h >= 8 ? 1 : 0));
	byte(e, 0xb8 + (h & 7));
	u64(e, v);
}

/* JMP to a C function by its address, through RAX (free by then; R11 holds
 * rIP). */
static void jump_to(struct emit *e, insn_handler handler)
{
	uint64_t to;
	memcpy(&to, &handler, sizeof(to));
	mov_imm64(e, RAX, to);
	byte(e, 0xff);             /* JMP rax */
	byte(e, 0xe0);
}


#define BLOCK(field) offsetof(struct block, field)
#define LINK(field) offsetof(struct block_link, field)

/* The test of the link at [rsi + at] (emu/run.c follow_link): the same rIP
 * (R11) and link context (EAX), the target's generation unchanged; RDX = the
 * target. null_to: an entry never written may be there (the jump cache's),
 * its target tested too. Its jumps for a miss go to miss[]; returns how
 * many. The generation's own miss goes to *gen_miss, with RCX = the
 * target's generation: a link to a page-crossing instruction fails there
 * (LINK_SECOND_PAGE) and may still hold (emit_second_page). */
static unsigned emit_link_test(struct emit *e, uint32_t at, bool null_to, uint8_t *miss[3], uint8_t **gen_miss)
{
	unsigned n = 0;
	byte(e, 0x4c); byte(e, 0x3b); byte(e, 0x9e); u32(e, at + (uint32_t)LINK(rip));       /* CMP r11, [rsi + rip] */
	miss[n++] = jump(e, CC_NZ);
	byte(e, 0x3b); byte(e, 0x86); u32(e, at + (uint32_t)LINK(context));                 /* CMP eax, [rsi + context] */
	miss[n++] = jump(e, CC_NZ);
	byte(e, 0x48); byte(e, 0x8b); byte(e, 0x96); u32(e, at + (uint32_t)LINK(to));       /* MOV rdx, [rsi + to] */
	if (null_to) {
		byte(e, 0x48); byte(e, 0x85); byte(e, 0xd2);                                 /* TEST rdx, rdx */
		miss[n++] = jump(e, CC_Z);
	}
	byte(e, 0x48); byte(e, 0x8b); byte(e, 0x8a); u32(e, (uint32_t)BLOCK(gen));          /* MOV rcx, [rdx + gen] */
	byte(e, 0x48); byte(e, 0x3b); byte(e, 0x8e); u32(e, at + (uint32_t)LINK(gen));      /* CMP rcx, [rsi + gen] */
	*gen_miss = jump(e, CC_NZ);
	return n;
}

/* A link to a page-crossing instruction (emu/run.c link_holds) holds when
 * its generation is the target's with LINK_SECOND_PAGE and the target's
 * bytes on its second page are still the ones decoded (SDM Vol.3 11.6; the
 * page's frame is the link context's, as the first page's is). The test,
 * emitted where emit_link_test's generation jump gen_miss goes (RCX = the
 * target's generation, RDX the target, RSI the link's base, every guest
 * register stored and the stack as the run was entered): where it holds,
 * back to found with RDX the target and R11 rIP again; else the returned
 * jump to the next try, to patch, with EAX the context id again. */
static uint8_t *emit_second_page(struct emit *e, uint32_t at, uint8_t *gen_miss, const uint8_t *found)
{
	patch(e, gen_miss, e->p);
	byte(e, 0x48); byte(e, 0x0f); byte(e, 0xba); byte(e, 0xe9); byte(e, 63);           /* BTS rcx, 63 */
	_Static_assert(LINK_SECOND_PAGE == 1ull << 63, "jit: LINK_SECOND_PAGE is bit 63");
	byte(e, 0x48); byte(e, 0x3b); byte(e, 0x8e); u32(e, at + (uint32_t)LINK(gen));      /* CMP rcx, [rsi + gen] */
	uint8_t *not_crosser = jump(e, CC_NZ);
	/* Three pushes: the call's stack 16-byte aligned, as at the run's entry
	 * (emit_flags_call). */
	byte(e, 0x57); byte(e, 0x52); byte(e, 0x56);              /* PUSH rdi; PUSH rdx; PUSH rsi */
	byte(e, 0x48); byte(e, 0x89); byte(e, 0xd6);              /* MOV rsi, rdx */
	bool (*hold)(const struct cpu *, const struct block *) = block_second_bytes_hold;
	uint64_t to;
	memcpy(&to, &hold, sizeof(to));
	mov_imm64(e, RAX, to);
	byte(e, 0xff); byte(e, 0xd0);                             /* CALL rax */
	byte(e, 0x5e); byte(e, 0x5a); byte(e, 0x5f);              /* POP rsi; POP rdx; POP rdi */
	load(e, R11, CPU(rip));
	byte(e, 0x84); byte(e, 0xc0);                             /* TEST al, al */
	patch(e, jump(e, CC_NZ), found);
	patch(e, not_crosser, e->p);
	cpu_field(e, false, 0x8b, RAX, CPU(link_contexts[0].id));   /* MOV eax, [context id] */
	return jump(e, 0xe9);
}

/* A direct link (emit_direct): the same tests as a link's, with what they
 * compare written into the code by jit_link_direct, and a jump of its own
 * to the next block's translated code. Its fields, by their offset: */
enum {
	DIRECT_RIP = 2,            /* MOV r10, rIP */
	DIRECT_CONTEXT = 25,       /* CMP dword [rdi + link context id], context */
	DIRECT_TO = 37,            /* MOV rsi, the next block */
	DIRECT_GEN = 47,           /* MOV r10, its generation */
	DIRECT_COUNTS = 78,        /* LEA rsi, [r10 + this block's count + its count] */
	DIRECT_JUMP = 117,         /* JMP rel32: its code, or a hand-over (link_hand_over) */
	DIRECT_BYTES = 121,
};

/* Direct link i of b's end (its link i once written by jit_link_direct;
 * until then a rIP no code has, so that it never holds): rIP (R11) and the
 * link context as the link's, the next block's generation as then, the
 * deadline beyond both blocks' instructions, as emu/run.c
 * thread_next_block; then icount and block_ip as it leaves them, and on
 * into the next block's code after its pushes, for which this run's stand
 * (PUSHES_LINKED). The next block's heat needs no test: it has code, so it
 * is 0 for as long as its generation holds. Only R10, RSI and R11 change:
 * the pool's registers still hold the guest's. A test that fails goes on to
 * the next (*next); the deadline's jump, to patch, is returned. */
static uint8_t *emit_direct(struct emit *e, const struct block *b, uint8_t **next)
{
	uint8_t *at = e->p;
	byte(e, 0x49); byte(e, 0xba); u64(e, 1ull << 63);                        /* MOV r10, rIP */
	byte(e, 0x4d); byte(e, 0x39); byte(e, 0xd3);                             /* CMP r11, r10 */
	next[0] = jump(e, CC_NZ);
	byte(e, 0x81); byte(e, 0xbf); u32(e, (uint32_t)CPU(link_contexts[0].id)); u32(e, 0);   /* CMP dword [id], context */
	next[1] = jump(e, CC_NZ);
	byte(e, 0x48); byte(e, 0xbe); u64(e, (uint64_t)(uintptr_t)b);           /* MOV rsi, to */
	byte(e, 0x49); byte(e, 0xba); u64(e, ~0ull);                             /* MOV r10, gen */
	byte(e, 0x4c); byte(e, 0x39); byte(e, 0x96); u32(e, (uint32_t)BLOCK(gen));   /* CMP [rsi + gen], r10 */
	next[2] = jump(e, CC_NZ);
	byte(e, 0x4c); byte(e, 0x8b); byte(e, 0x97); u32(e, (uint32_t)CPU(icount));  /* MOV r10, [icount] */
	byte(e, 0x49); byte(e, 0x8d); byte(e, 0xb2); u32(e, 0);                  /* LEA rsi, [r10 + counts] */
	byte(e, 0x48); byte(e, 0x3b); byte(e, 0xb7); u32(e, (uint32_t)CPU(deadline));   /* CMP rsi, [deadline] */
	uint8_t *late = jump(e, CC_A);
	byte(e, 0x49); byte(e, 0x81); byte(e, 0xc2); u32(e, b->count);          /* ADD r10, count */
	byte(e, 0x4c); byte(e, 0x89); byte(e, 0x97); u32(e, (uint32_t)CPU(icount));  /* MOV [icount], r10 */
	byte(e, 0x4c); byte(e, 0x89); byte(e, 0x9f); u32(e, (uint32_t)CPU(block_ip));    /* MOV [block_ip], r11 */
	byte(e, 0xe9); u32(e, 0);                                                /* JMP on */
	if (e->p <= e->end && e->p - at != DIRECT_BYTES)
		e->p = e->end + 1;     /* not the layout jit_link_direct writes: not installed */
	return late;
}

/* After link i's test held (RDX = the next block, R11 = rIP, the pushes
 * popped): where the next block has code for a direct link to go into,
 * write direct link i (at) from link i, once: from then on it holds
 * wherever link i would. map: the guest registers' host registers at the
 * direct link (the run's, 16 bytes). */
static void emit_direct_write(struct emit *e, const struct block *b, unsigned i, const uint8_t *at, const uint8_t *map)
{
	byte(e, 0x48); byte(e, 0x83); byte(e, 0xba); u32(e, (uint32_t)BLOCK(jit_inner)); byte(e, 0);   /* CMP qword [rdx + jit_inner], 0 */
	uint8_t *none = jump(e, CC_Z);
	/* Three pushes: the call's stack 16-byte aligned, as at the run's entry. */
	byte(e, 0x57); byte(e, 0x52); byte(e, 0x41); byte(e, 0x53);     /* PUSH rdi; PUSH rdx; PUSH r11 */
	mov_imm64(e, RSI, (uint64_t)(uintptr_t)b);
	byte(e, 0xba); u32(e, i);                                   /* MOV edx, i */
	mov_imm64(e, RCX, (uint64_t)(uintptr_t)at);
	mov_imm64(e, R8, (uint64_t)(uintptr_t)map);
	void (*write)(struct cpu *, const struct block *, unsigned, uint8_t *, const uint8_t *) = jit_link_direct;
	uint64_t to;
	memcpy(&to, &write, sizeof(to));
	mov_imm64(e, RAX, to);
	byte(e, 0xff); byte(e, 0xd0);                               /* CALL rax */
	byte(e, 0x41); byte(e, 0x5b); byte(e, 0x5a); byte(e, 0x5f); /* POP r11; POP rdx; POP rdi */
	patch(e, none, e->p);
}

/* The hand-over of a direct link into to's code (into e): the registers to's
 * first run would load moved there from where the run left (from[g]: a host
 * register, else 0xff: memory, which holds every register then), as one
 * parallel move (a cycle through R10), then on after its loads. */
static void link_hand_over(struct emit *e, const uint8_t *from, const struct block *to)
{
	uint8_t src[16], dst[16];
	unsigned n = 0;
	for (unsigned g = 0; g < 16; g++)
		if (to->jit_host[g] != 0xff && from[g] != 0xff && from[g] != to->jit_host[g]) {
			src[n] = from[g];
			dst[n] = to->jit_host[g];
			n++;
		}
	while (n) {
		unsigned k = 0, j;
		/* A move whose destination no other still reads. */
		for (k = 0; k < n; k++) {
			for (j = 0; j < n && src[j] != dst[k]; j++)
				;
			if (j == n)
				break;
		}
		if (k == n) {
			/* A cycle: set its first destination aside in R10. */
			rr(e, 0x89, 8, R10, dst[0]);     /* MOV r10, dst */
			for (j = 0; j < n; j++)
				if (src[j] == dst[0])
					src[j] = R10;
			k = 0;
		}
		rr(e, 0x89, 8, dst[k], src[k]);          /* MOV dst, src */
		src[k] = src[n - 1];
		dst[k] = dst[n - 1];
		n--;
	}
	for (unsigned g = 0; g < 16; g++)
		if (to->jit_host[g] != 0xff && from[g] == 0xff)
			load(e, to->jit_host[g], REG(g));
	patch(e, jump(e, 0xe9), to->jit_loaded);
}

/* A hand-over's host code at most (16 moves and loads, a cycle's move, the
 * jump). */
#define HAND_OVER_BYTES 160

void jit_link_direct(struct cpu *cpu, const struct block *b, unsigned i, uint8_t *at, const uint8_t *map)
{
	struct icache *ic = cpu->icache;
	const struct block_link *l = &b->links[i];
	const struct block *to = l->to;
	if (!to || !to->jit_inner || l->gen != to->gen || l->context != cpu->link_contexts[0].id)
		return;
	memcpy(at + DIRECT_RIP, &l->rip, 8);
	memcpy(at + DIRECT_CONTEXT, &l->context, 4);
	ic->jit_direct_links++;
	/* The same target as before, in another link context (a new TLB
	 * epoch, CR3): its jump still holds. */
	const struct block *was;
	uint64_t was_gen;
	memcpy(&was, at + DIRECT_TO, 8);
	memcpy(&was_gen, at + DIRECT_GEN, 8);
	if (was == to && was_gen == to->gen)
		return;
	/* Into its code after the pushes, or through a hand-over put after
	 * the translated blocks, where there is room. */
	const uint8_t *into = to->jit_inner;
	if (to->jit_loaded && ic->jit_used + HAND_OVER_BYTES <= JIT_HOT_BYTES) {
		struct emit e = { ic->jit_code + ic->jit_used, NULL, NULL, NULL };
		e.end = e.p + HAND_OVER_BYTES;
		link_hand_over(&e, map, to);
		if (e.p <= e.end) {
			into = ic->jit_code + ic->jit_used;
			ic->jit_used = ((size_t)(e.p - ic->jit_code) + 15) & ~(size_t)15;
		}
	}
	uint32_t counts = (uint32_t)b->count + to->count;
	_Static_assert(DIRECT_JUMP + 4 == DIRECT_BYTES, "jit: the direct link's jump ends it");
	memcpy(at + DIRECT_TO, &to, 8);
	memcpy(at + DIRECT_GEN, &to->gen, 8);
	memcpy(at + DIRECT_COUNTS, &counts, 4);
	put_rel32(at + DIRECT_JUMP, into);
}

/* With rIP in R11 (and stored), the written registers stored, the pushes
 * not yet popped: thread_next_block(cpu, end) inline; its test for a loop
 * back to b's own start only where the end may go there (may_be_self), its
 * look into the jump cache only where given (jumps: a RET, whose return
 * sites b's two links would not hold). Where the end's targets are fixed
 * (no jumps), each link first has a direct one (emit_direct). */
static void emit_next_block(struct emit *e, const struct run *r, const struct block *b, bool may_be_self,
			    const struct block_link *jumps)
{
	const struct insn *end = &b->insns[b->count];
	uint8_t *slow[12], *late[3];
	unsigned n_slow = 0, n_late = 0;
	uint8_t *direct[2] = { NULL, NULL };
	const uint8_t *map = NULL;
	if (!jumps && r->pushes == PUSHES_LINKED) {
		cpu_field(e, false, 0x83, 7, CPU(attention));       /* CMP dword [attention], 0 */
		byte(e, 0);
		late[n_late++] = jump(e, CC_NZ);
		uint8_t *next[3];
		for (unsigned i = 0; i < 2; i++) {
			if (i == 1)
				for (unsigned k = 0; k < 3; k++)
					patch(e, next[k], e->p);
			direct[i] = e->p;
			late[n_late++] = emit_direct(e, b, next);
		}
		/* The rest is the cold code's: where neither holds. First the
		 * run's registers' host registers, the hand-overs' source. */
		struct emit *c = cold_of(e);
		map = c->p;
		for (unsigned g = 0; g < 16; g++)
			byte(c, r->host[g]);
		for (unsigned k = 0; k < 3; k++)
			patch(e, next[k], c->p);
		e = c;
	}
	emit_pops(e, r);
	if (!direct[0]) {          /* else tested before them, and nothing changed it since */
		cpu_field(e, false, 0x83, 7, CPU(attention));       /* CMP dword [attention], 0 */
		byte(e, 0);
		slow[n_slow++] = jump(e, CC_NZ);
	}
	cpu_field(e, true, 0x3b, RSP, CPU(chain_stack_floor));   /* CMP rsp, [chain_stack_floor] */
	slow[n_slow++] = jump(e, CC_B);
	/* Back to its own start, b still cached: b; never a page-crossing b,
	 * whose second page is compared at each entry (thread_next_block takes
	 * no such loop either). */
	uint8_t *found_self = NULL;
	if (may_be_self && !b->second_len) {
		cpu_field(e, true, 0x3b, R11, CPU(block_ip));       /* CMP r11, [block_ip] */
		uint8_t *not_self = jump(e, CC_NZ);
		mov_imm64(e, RDX, (uint64_t)(uintptr_t)b);
		byte(e, 0x48); byte(e, 0x83); byte(e, 0x3a); byte(e, 0xff);   /* CMP qword [rdx + pa], -1 */
		_Static_assert(offsetof(struct block, pa) == 0, "jit: pa first");
		uint8_t *self_gone = jump(e, CC_Z);
		found_self = jump(e, 0xe9);
		patch(e, not_self, e->p);
		patch(e, self_gone, e->p);
	}
	/* Its links: the same rIP, link context and target generation
	 * (emu/run.c follow_link); the first link's hit falls through to the
	 * next block, every other way there jumps back to it. */
	mov_imm64(e, RSI, (uint64_t)(uintptr_t)b);
	cpu_field(e, false, 0x8b, RAX, CPU(link_contexts[0].id));   /* MOV eax, [context id] */
	uint8_t *next_try[2][4], *gen_miss[2];
	unsigned n_next[2];
	n_next[0] = emit_link_test(e, (uint32_t)BLOCK(links), false, next_try[0], &gen_miss[0]);
	if (direct[0])
		emit_direct_write(e, b, 0, direct[0], map);
	/* RDX = next: within the deadline, not about to become hot. */
	uint8_t *found = e->p;
	if (found_self)
		patch(e, found_self, found);
	load(e, RAX, CPU(icount));
	byte(e, 0x48); byte(e, 0x05); u32(e, b->count);                        /* ADD rax, count */
	byte(e, 0x0f); byte(e, 0xb6); byte(e, 0x8a); u32(e, (uint32_t)BLOCK(count));   /* MOVZX ecx, byte [rdx + count] */
	byte(e, 0x48); byte(e, 0x01); byte(e, 0xc1);                           /* ADD rcx, rax */
	cpu_field(e, true, 0x3b, RCX, CPU(deadline));                          /* CMP rcx, [deadline] */
	slow[n_slow++] = jump(e, CC_A);
	byte(e, 0x80); byte(e, 0xba); u32(e, (uint32_t)BLOCK(heat)); byte(e, 0);        /* CMP byte [rdx + heat], 0 */
	slow[n_slow++] = jump(e, CC_NZ);
	/* Not cur_insn, which thread_next_block sets to end: nothing reads it
	 * before the next block sets it again (a step handler, or
	 * thread_next_block before any way back to the run loop); nor
	 * insn_start, which each step handler sets and cpu_run at a boundary. */
	store(e, RAX, CPU(icount));
	store(e, R11, CPU(block_ip));
	byte(e, 0x48); byte(e, 0x8d); byte(e, 0xb2); u32(e, (uint32_t)BLOCK(insns));   /* LEA rsi, [rdx + insns]: its first */
	byte(e, 0xff); byte(e, 0xa2); u32(e, (uint32_t)BLOCK(entry));                  /* JMP [rdx + entry] */
	/* The first link's page-crossing case, then the second link. */
	for (unsigned i = 0; i < 2; i++) {
		uint32_t at = (uint32_t)(BLOCK(links) + i * sizeof(struct block_link));
		if (i == 1) {
			n_next[1] = emit_link_test(e, at, false, next_try[1], &gen_miss[1]);
			if (direct[1])
				emit_direct_write(e, b, 1, direct[1], map);
			patch(e, jump(e, 0xe9), found);
		}
		next_try[i][n_next[i]++] = emit_second_page(e, at, gen_miss[i], found);
		for (unsigned k = 0; k < n_next[i]; k++)
			patch(e, next_try[i][k], e->p);
	}
	if (jumps) {
		/* RSI = the entry of rIP (emu/icache.h icache_jump), then the
		 * link's test as above; RAX still the context id. */
		_Static_assert(sizeof(struct block_link) == 32 && JUMP_CACHE_BITS == 12, "jit: the jump cache's hash");
		byte(e, 0x4c); byte(e, 0x89); byte(e, 0xd9);               /* MOV rcx, r11 */
		byte(e, 0x48); byte(e, 0xc1); byte(e, 0xe9); byte(e, 12);  /* SHR rcx, 12 */
		byte(e, 0x4c); byte(e, 0x31); byte(e, 0xd9);               /* XOR rcx, r11 */
		byte(e, 0x81); byte(e, 0xe1); u32(e, 0xfff);               /* AND ecx, 0FFFH */
		byte(e, 0xc1); byte(e, 0xe1); byte(e, 5);                  /* SHL ecx, 5 */
		mov_imm64(e, RSI, (uint64_t)(uintptr_t)jumps);
		byte(e, 0x48); byte(e, 0x01); byte(e, 0xce);               /* ADD rsi, rcx */
		uint8_t *jump_gen_miss;
		n_slow += emit_link_test(e, 0, true, &slow[n_slow], &jump_gen_miss);
		patch(e, jump(e, 0xe9), found);
		slow[n_slow++] = emit_second_page(e, 0, jump_gen_miss, found);
	}
	/* Anything else: thread_next_block(cpu, end). */
	uint8_t *to_slow = e->p;
	for (unsigned k = 0; k < n_slow; k++)
		patch(e, slow[k], to_slow);
	mov_imm64(e, RSI, (uint64_t)(uintptr_t)end);
	jump_to(e, thread_next_block);
	if (n_late) {
		/* Attention, or the deadline, before a direct link: the same,
		 * once popped. */
		for (unsigned k = 0; k < n_late; k++)
			patch(e, late[k], e->p);
		emit_pops(e, r);
		patch(e, jump(e, 0xe9), to_slow);
	}
}

/* May the block end be go back to its own block's start? A relative branch
 * or CALL whose displacement undoes the block's length at its operand size
 * (a 16-bit one: always, its target wraps at 64 KiB); never the fall-through,
 * which lies 1 to 4096 bytes on. */
static bool be_may_be_self(const struct block_end *be)
{
	if (be->kind == END_FALL)
		return false;
	const struct insn *j = be->branch;
	uint64_t back = be->fall_offset + j->imm;
	return j->osize == 2 || (j->osize == 8 ? back == 0 : (uint32_t)back == 0);
}

/* Is the 64-bit value in host register v canonical at 48 bits? Leaves ZF
 * clear where not (t: a scratch register). */
static void canonical48(struct emit *e, unsigned t, unsigned v)
{
	rr(e, 0x89, 8, t, v);                                     /* MOV t, v */
	rex(e, true, 0, t); byte(e, 0xc1); byte(e, 0xe0 | (t & 7)); byte(e, 16);   /* SHL t, 16 */
	rex(e, true, 0, t); byte(e, 0xc1); byte(e, 0xf8 | (t & 7)); byte(e, 16);   /* SAR t, 16 */
	rr(e, 0x39, 8, t, v);                                     /* CMP t, v */
}

/* A block's CALL rel32 or RET in 64-bit code after its run, as emu/branch.c
 * thr_call and thr_ret do it: a canonical target (48 bits here) and the stack
 * slot a TLB hit, else every check in the order of the SDM by their own
 * handler (a side exit, before anything has changed); then rIP, rSP and the
 * slot, and on to the next block. */
static void emit_call_ret(struct emit *e, struct run *r, const struct block_end *be)
{
	const struct insn *j = be->branch;
	unsigned n = r->n, sp = r->host[R_SP];
	if (be->kind == END_CALL) {
		/* The target first: R10 = the next rIP + rel. */
		load(e, R10, CPU(block_ip));
		emit_lea(e, true, R10, R10, 0xff, 0, (int32_t)be->fall_offset);
		emit_lea(e, true, R10, R10, 0xff, 0, (int32_t)j->imm);
		canonical48(e, RSI, R10);
		exit_jump(e, r, n, CC_NZ);
		emit_access(e, r, n, true);                     /* [rSP - 8], a write */
		load(e, RSI, CPU(block_ip));
		emit_lea(e, true, RSI, RSI, 0xff, 0, (int32_t)be->fall_offset);   /* the return address */
		host_mem(e, r, false, true, 0x89, RSI);            /* MOV [rSP - 8], rsi */
		emit_lea(e, true, sp, sp, 0xff, 0, -8);
		emit_lea(e, true, R11, RSI, 0xff, 0, (int32_t)j->imm);            /* rIP = the target */
	} else {
		emit_access(e, r, n, true);                     /* [rSP], a read */
		host_mem(e, r, false, true, 0x8b, RSI);            /* MOV rsi, [rSP] */
		canonical48(e, R10, RSI);
		exit_jump(e, r, n, CC_NZ);
		emit_lea(e, true, sp, sp, 0xff, 0, 8);
		rr(e, 0x89, 8, R11, RSI);                       /* rIP = the address popped */
	}
	emit_store_written(e, r);
	store(e, R11, CPU(rip));
	emit_next_block(e, r, be->b, be->kind == END_RET || be_may_be_self(be), be->kind == END_RET ? r->jumps : NULL);
	/* Its side exits: its own handler, the run's registers stored. */
	struct emit *c = cold_of(e);
	emit_global(c, r, n);
	uint8_t *own = c->p;
	for (unsigned x = 0; x < r->n_exits; x++)
		if (r->exits[x].op == n)
			patch(c, r->exits[x].at, own);
	count_side_exit(c, r);
	emit_leave(c, r, j, branch_handler(r, j));
}

/* R11 = the block's start + be's fall_offset at the code's width (emu/threaded.h
 * insn_next_ip; 64-bit code: block_ip_mask is all ones). */
static void emit_block_rip(struct emit *e, const struct block_end *be)
{
	load(e, R11, CPU(block_ip));
	emit_lea(e, true, R11, R11, 0xff, 0, (int32_t)be->fall_offset);
	if (be->b->code_size != 64)
		cpu_field(e, true, 0x23, R11, CPU(block_ip_mask));          /* AND r11, [block_ip_mask] */
}

/* The end of a run that reaches its block's end (above). */
static void emit_block_end(struct emit *e, struct run *r, const struct block_end *be)
{
	if (be->kind == END_CALL || be->kind == END_RET) {
		emit_call_ret(e, r, be);
		return;
	}
	uint8_t *taken = NULL;
	if (be->kind == END_BRANCH && be->cond_at_entry) {
		cpu_field(e, false, 0x80, 7, CPU(jit.cond));   /* CMP byte [jit.cond], 0 */
		byte(e, 0);
		taken = jump(e, CC_NZ);
	} else if (be->kind == END_BRANCH && be->conditional) {
		taken = jump(e, be->cc);   /* the host's flags are the setter's */
	}
	/* Not taken, or the fall-through: rIP = the block's start + offset. */
	emit_block_rip(e, be);
	uint8_t *have_rip = NULL, *bad_target = NULL;
	if (be->kind == END_BRANCH) {
		const struct insn *j = be->branch;
		if (taken) {
			have_rip = jump(e, 0xe9);
			patch(e, taken, e->p);
			emit_block_rip(e, be);
		}
		/* The target: the next rIP + rel at the operand size; then
		 * emu/branch.c near_target_ok: canonical (48 bits here; the
		 * thread form decides the rest) in 64-bit mode, within CS's
		 * limit otherwise. */
		byte(e, 0x49); byte(e, 0x81); byte(e, 0xc3); u32(e, (uint32_t)j->imm);   /* ADD r11, rel (sign-extended) */
		if (j->osize == 4)
			rr(e, 0x89, 4, R11, R11);                      /* MOV r11d, r11d */
		else if (j->osize == 2) {
			byte(e, 0x45); byte(e, 0x0f); byte(e, 0xb7); byte(e, 0xdb);   /* MOVZX r11d, r11w */
		}
		if (be->b->code_size == 64) {
			/* RSI: the guest's registers are still in the pool's. */
			byte(e, 0x4c); byte(e, 0x89); byte(e, 0xde);               /* MOV rsi, r11 */
			byte(e, 0x48); byte(e, 0xc1); byte(e, 0xe6); byte(e, 16);  /* SHL rsi, 16 */
			byte(e, 0x48); byte(e, 0xc1); byte(e, 0xfe); byte(e, 16);  /* SAR rsi, 16 */
			byte(e, 0x4c); byte(e, 0x39); byte(e, 0xde);               /* CMP rsi, r11 */
			bad_target = jump(e, CC_NZ);
		} else {
			size_t lim = CPU(seg) + SR_CS * sizeof(struct segment) + offsetof(struct segment, limit);
			cpu_field(e, false, 0x3b, R11, lim);           /* CMP r11d, [limit] */
			bad_target = jump(e, CC_A);
		}
	}
	if (have_rip)
		patch(e, have_rip, e->p);
	emit_store_written(e, r);
	store(e, R11, CPU(rip));
	emit_next_block(e, r, be->b, be_may_be_self(be), NULL);
	if (bad_target) {
		/* The branch's own handler decides (it faults, or LA57 allows
		 * the target): the flags record was stored by the setter. */
		struct emit *c = cold_of(e);
		patch(c, bad_target, c->p);
		emit_leave(c, r, be->branch, branch_handler(r, be->branch));
	}
}

/* cpu->jit field = what a function of the guest's flags (fn: emu/flags.c,
 * its second argument already in ESI where it has one) returns as the run
 * begins, called before anything is loaded (every caller-saved register
 * free, RDI kept; entered as a function is, after the run's pushes: the
 * stack is 16-byte aligned after an odd number of pushes in all). */
static void emit_flags_call(struct emit *e, const struct run *r, uint64_t fn, size_t field)
{
	bool odd = r->pushes & 1;  /* the run's pushes: one more keeps the alignment */
	byte(e, 0x57);             /* PUSH rdi */
	if (odd)
		byte(e, 0x57);
	mov_imm64(e, RAX, fn);
	byte(e, 0xff);             /* CALL rax */
	byte(e, 0xd0);
	if (odd)
		byte(e, 0x5f);
	byte(e, 0x5f);             /* POP rdi */
	byte(e, 0x0f);             /* MOVZX eax, al: a bool's upper bits are the callee's */
	byte(e, 0xb6);
	byte(e, 0xc0);
	store(e, RAX, field);
}

/* cpu->jit.carry = the guest's CF as the run begins (flags_cf). */
static void emit_carry_in(struct emit *e, const struct run *r)
{
	bool (*cf)(struct cpu *) = flags_cf;
	uint64_t to;
	memcpy(&to, &cf, sizeof(to));
	emit_flags_call(e, r, to, CPU(jit.carry));
}

/* cpu->jit.cond = condition cc of the guest's flags as the run begins
 * (flags_cond_slow), for a run that sets none. */
static void emit_cond_in(struct emit *e, const struct run *r, unsigned cc)
{
	bool (*cond)(struct cpu *, unsigned) = flags_cond_slow;
	uint64_t to;
	memcpy(&to, &cond, sizeof(to));
	byte(e, 0xbe);             /* MOV esi, cc */
	u32(e, cc);
	emit_flags_call(e, r, to, CPU(jit.cond));
}

/* Write the code of the run of insns at e; next: the instruction after it
 * (with a loop, the block's end slot). Every register the run uses is loaded
 * first, so that any exit may store every one it writes: one not yet
 * written by then holds what memory does. */
static void emit_run(struct emit *e, struct run *r, const struct insn *insns, const struct insn *next,
		     const struct loop *lp, const struct block_end *be)
{
	u32(e, 0xfa1e0ff3);        /* ENDBR64: a target of indirect branches */
	for (unsigned k = POOL_CALLER_SAVED; k < POOL_CALLER_SAVED + r->pushes; k++)
		host_push(e, pool[k]);
	/* A direct link from another run comes in here, its six pushes
	 * standing for these (PUSHES_LINKED). The calls below keep the stack's
	 * alignment at the entry's: an even number of pushes there. */
	r->inner = e->p;
	if (r->entry_carry)
		emit_carry_in(e, r);
	if (be->kind == END_BRANCH && be->cond_at_entry)
		emit_cond_in(e, r, be->cc);
	for (unsigned g = 0; g < 16; g++)
		if (r->host[g] != 0xff)
			load(e, r->host[g], REG(g));
	/* A direct link that hands the registers over comes in here; not
	 * where a call above would clobber what it hands over. */
	r->loaded = r->entry_carry || (be->kind == END_BRANCH && be->cond_at_entry) ? NULL : e->p;
	/* What every access would look at again, once: the CPL's kind (the
	 * TLB bank, mem_fast's alignment rule at CPL 3) is the one the run was
	 * made for, else it leaves; the TLB context's set hash (mmu/tlb.h
	 * tlb_set_of): neither changes within a run. */
	uint8_t *user = NULL;
	if (r->accesses) {
		cpu_field(e, false, 0x80, 7, CPU(cpl));      /* CMP byte [cpl], 3 */
		byte(e, 3);
		user = jump(e, r->user ? CC_NZ : CC_Z);
		if (r->set_hash != 0xff)
			emit_set_hash(e, r->set_hash, TLB(cur));
	}
	uint8_t *top = e->p;
	for (unsigned i = 0; i < r->n; i++)
		emit_op(e, r, i);
	if (lp->on) {
		uint8_t *to_fall = jump(e, lp->exit_if_zero ? CC_Z : CC_NZ);
		cpu_field(e, false, 0x83, 7, CPU(attention));       /* CMP dword [attention], 0 */
		byte(e, 0);
		uint8_t *busy = jump(e, CC_NZ);
		load(e, R11, CPU(icount));
		byte(e, 0x4d);                                      /* LEA r10, [r11 + 2 rounds] */
		byte(e, 0x8d);
		byte(e, 0x93);
		u32(e, 2 * lp->count);
		cpu_field(e, true, 0x3b, R10, CPU(deadline));       /* CMP r10, [deadline] */
		uint8_t *late = jump(e, CC_A);
		byte(e, 0x49);                                      /* ADD r11, count */
		byte(e, 0x81);
		byte(e, 0xc3);
		u32(e, lp->count);
		store(e, R11, CPU(icount));
		patch(e, jump(e, 0xe9), top);
		/* Taken, but the interpreter would stop here: rIP = the start. */
		uint8_t *taken = e->p;
		patch(e, busy, taken);
		patch(e, late, taken);
		load(e, R11, CPU(block_ip));
		uint8_t *to_exit = jump(e, 0xe9);
		/* Not taken: rIP = after the Jcc. */
		patch(e, to_fall, e->p);
		load(e, R11, CPU(block_ip));
		byte(e, 0x49);                                      /* ADD r11, fall_offset */
		byte(e, 0x81);
		byte(e, 0xc3);
		u32(e, lp->fall_offset);
		cpu_field(e, true, 0x23, R11, CPU(block_ip_mask));  /* AND r11, [block_ip_mask] */
		patch(e, to_exit, e->p);
		store(e, R11, CPU(rip));
	}
	if (be->kind != END_NONE) {
		emit_block_end(e, r, be);
	} else if (lp->on) {
		/* Out of the loop (rIP stored): on to the next block, or back
		 * to this one's start where a round could not go on. */
		emit_store_written(e, r);
		emit_next_block(e, r, be->b, true, NULL);
	} else if (next == &be->b->insns[be->b->count]) {
		emit_leave(e, r, next, thread_end_fallthrough);   /* rIP: the block's end (above) */
	} else {
		emit_store_written(e, r);
		r->onward = e->p;
		emit_pops(e, r);
		emit_to_thread(e, next, NULL);
	}
	/* The side exits: before op i (an access, a time read...), on to its
	 * own handler (the first instruction's is the one this code replaces). */
	struct emit *c = cold_of(e);
	for (unsigned i = 0; i < r->n; i++) {
		if (!leaves_at(r, i))
			continue;
		emit_global(c, r, i);
		for (unsigned x = 0; x < r->n_exits; x++)
			if (r->exits[x].op == i)
				patch(c, r->exits[x].at, c->p);
		count_side_exit(c, r);
		emit_leave(c, r, &insns[i], i == 0 ? insns[0].thread : NULL);
	}
	if (user) {
		patch(c, user, c->p);
		emit_leave(c, r, &insns[0], insns[0].thread);
	}
}

/* A run that leaves for the next instruction's thread form (at onward, the
 * bytes up to end) where that instruction begins the run to (made next):
 * from then on it goes into to's code after to's pushes (to->inner)
 * instead, its own pushes popped or pushed to as many (the pool's in the
 * same order: the stack as to's entry would leave it, each callee-saved
 * register's value saved once). Two runs of one block, the first ended by
 * the pool's size (or before the block's end, which a run of its own
 * takes): this spares the pops, the pushes and the indirect jump between
 * them. Not written where it would not fit. */
static bool join_runs(uint8_t *onward, const uint8_t *end, unsigned from_pushes, const struct run *to)
{
	uint8_t code[32];          /* an overflow leaves p at end + 1: still in code */
	struct emit j = { code, code + sizeof(code) - 1, NULL, NULL };
	for (unsigned k = POOL_CALLER_SAVED + from_pushes; k-- > POOL_CALLER_SAVED + to->pushes;)
		host_pop(&j, pool[k]);
	for (unsigned k = POOL_CALLER_SAVED + from_pushes; k < POOL_CALLER_SAVED + to->pushes; k++)
		host_push(&j, pool[k]);
	size_t len = (size_t)(j.p - code) + 5;
	if (j.p > j.end || len > (size_t)(end - onward))
		return false;
	byte(&j, 0xe9);
	u32(&j, 0);
	memcpy(onward, code, len);
	put_rel32(onward + len - 4, to->inner);
	return true;
}

/* Does b close a loop on itself that the run ops[0..n) can take (above)? */
static struct loop loop_of(const struct block *b, const struct run *r, unsigned n)
{
	struct loop lp = { .on = false };
	/* (A round's first CF is the last round's, not the one taken as the
	 * run began: no loop with entry_carry.) */
	if (n + 1 != b->count || r->last_setter < 0 || r->exit_after_last_setter || r->entry_carry || !b->chains ||
	    b->code_size < 32 ||
	    !(host_exact(&r->ops[r->last_setter]) & F_ZF))
		return lp;
	const struct insn *j = &b->insns[n];
	unsigned cc = j->opcode & 15;
	if (j->exec != op_jcc || (cc != CC_Z && cc != CC_NZ))
		return lp;
	/* The target is the block's start wherever the block is (its rIP + its
	 * own offsets): rel + offset + length wraps to 0 at the operand size
	 * (emu/branch.c thr_branch_to); a 32-bit one only where rIP is 32 bits. */
	uint64_t back = j->imm + j->offset + j->len;
	if (!(j->osize == 8 ? back == 0 : j->osize == 4 && b->code_size == 32 && (uint32_t)back == 0))
		return lp;
	lp = (struct loop){ .on = true, .exit_if_zero = cc == CC_NZ, .count = b->count,
			    .fall_offset = (uint32_t)(j->offset + j->len) };
	return lp;
}

/* How a run ending before instruction `upto` of b may end (struct
 * block_end): at the block's end, with b chaining, the last instruction
 * pure (END_FALL), or before a JMP rel or a Jcc whose condition the host's
 * flags hold (END_BRANCH); else END_NONE. */
static bool assign(struct run *r, const struct op *o);

static struct block_end end_of(const struct block *b, struct run *r, struct op *ops, unsigned upto)
{
	struct block_end be = { .kind = END_NONE, .b = b };
	if (!b->chains)
		return be;
	/* Every instruction a run holds falls through; its thread form may be a
	 * step (a rIP-relative LEA), after which the end slot would take rIP as
	 * the step left it: the run sets it. */
	if (upto == b->count) {
		be.kind = END_FALL;
		be.fall_offset = b->insns[b->count].offset;
		return be;
	}
	const struct insn *j = &b->insns[b->count - 1];
	if (upto + 1 != b->count)
		return be;
	/* CALL rel32 and RET (C3) in 64-bit code: an op of their own after the
	 * run's (ops[n]), rSP in a host register. */
	bool call = j->exec == op_call && j->opcode == 0xe8, ret = j->exec == op_ret && j->opcode == 0xc3;
	if ((call || ret) && b->code_size == 64 && j->osize == 8) {
		ops[r->n] = (struct op){ .kind = call ? K_CALL : K_RET, .size = 8, .msize = 8, .dst = REG_NONE,
					 .src = REG_NONE, .base = R_SP, .index = REG_NONE, .seg = SR_SS };
		if (!assign(r, &ops[r->n]))
			return be;
		be.kind = call ? END_CALL : END_RET;
		be.branch = j;
		be.fall_offset = (uint32_t)(j->offset + j->len);
		return be;
	}
	if ((j->exec != op_jcc && j->exec != op_jmp) || j->osize == 2)
		return be;
	be.conditional = j->exec == op_jcc;
	be.cc = j->opcode & 15;
	if (be.conditional && r->last_setter >= 0 &&
	    (r->exit_after_last_setter || (cond_reads(be.cc) & ~host_exact(&r->ops[r->last_setter])) != 0))
		return be;
	be.cond_at_entry = be.conditional && r->last_setter < 0;
	be.kind = END_BRANCH;
	be.branch = j;
	be.fall_offset = (uint32_t)(j->offset + j->len);
	return be;
}

/* The guest registers op o writes (bit g: register g). */
static unsigned regs_written(const struct op *o)
{
	unsigned w = 0;
	if (o->kind == K_PUSH || o->kind == K_POP || o->kind == K_CALL || o->kind == K_RET)
		w |= 1u << R_SP;
	if (o->dst != REG_NONE && o->kind != K_STORE && o->kind != K_PUSH && !op_flags_only(o))
		w |= 1u << o->dst;
	if (o->kind == K_RDTSC)
		w |= 1u << R_AX | 1u << R_DX | (o->op ? 1u << R_CX : 0);
	return w;
}

/* Gives op o's registers host registers; false when the pool is exhausted. */
static bool assign(struct run *r, const struct op *o)
{
	uint8_t regs[4] = { o->dst, o->src, o->base, o->index };
	if (o->kind == K_RDTSC) {
		/* EDX:EAX, RDTSCP's ECX: written, none read. */
		regs[0] = R_AX;
		regs[1] = R_DX;
		regs[2] = o->op ? R_CX : REG_NONE;
	}
	unsigned need = 0;
	for (unsigned k = 0; k < 4; k++) {
		bool seen = regs[k] == REG_NONE || r->host[regs[k]] != 0xff;
		for (unsigned j = 0; j < k; j++)
			seen = seen || regs[j] == regs[k];
		need += !seen;
	}
	if (r->used + need > POOL)
		return false;
	for (unsigned k = 0; k < 4; k++)
		if (regs[k] != REG_NONE && r->host[regs[k]] == 0xff)
			r->host[regs[k]] = pool[r->used++];
	unsigned w = regs_written(o);
	for (unsigned g = 0; g < 16; g++)
		r->written[g] = r->written[g] || (w >> g & 1);
	return true;
}

/* Where op o writes guest register g by a constant (64 bits: ADD/SUB of an
 * immediate, INC/DEC, LEA g, [g + disp], rSP by PUSH/POP/CALL/RET), that
 * constant into *step. */
static bool steps_by(const struct op *o, unsigned g, int64_t *step)
{
	if ((o->kind == K_PUSH || o->kind == K_CALL) && g == R_SP) {
		*step = -8;
		return true;
	}
	if ((o->kind == K_POP || o->kind == K_RET) && g == R_SP && o->dst != R_SP) {
		*step = 8;
		return true;
	}
	if (o->dst != g || o->size != 8)
		return false;
	switch (o->kind) {
	case K_ALU:
		if (o->src != REG_NONE || (o->op != H_ADD && o->op != H_SUB))
			return false;
		*step = o->op == H_ADD ? (int64_t)o->imm : -(int64_t)o->imm;
		return true;
	case K_INCDEC:
		*step = o->op ? -1 : 1;
		return true;
	case K_LEA:
		if (o->rip_rel || o->base != g || o->index != REG_NONE || o->asize != 8)
			return false;
		*step = o->disp;
		return true;
	default:
		return false;
	}
}

/* Which accesses of the run (ops[0..count)) look the TLB up, and for which
 * bytes. In 64-bit code, accesses through the same base and index (the
 * stack's PUSH, POP, CALL and RET through rSP), with no FS/GS base, whose
 * bytes lie within 128 of each other, form a group while the index stays
 * and the base changes only by constants (steps_by), which the bytes'
 * places count in: the group's first access looks up the page of its
 * lowest byte and that of its highest (one page: mmu/tlb.h's set of the
 * one, the tag of the other, as for an access that crosses a page), for a
 * write if any of them writes (a translation that allows the write allows
 * the read); the rest take host - linear from a host register that keeps
 * it. Nothing between them can change the TLB: translated code only reads
 * it, and a store into a page with code or a watch never hits. Groups that
 * find no free host register look up each access. */
static void plan_shared_lookups(struct run *r, unsigned count)
{
	/* Per group, by its first access: its bytes and how far its base has
	 * moved since that access, both from the base's value there. */
	int64_t lo[BLOCK_MAX_INSNS + 1], hi[BLOCK_MAX_INSNS + 1], moved[BLOCK_MAX_INSNS + 1];
	unsigned members[BLOCK_MAX_INSNS + 1];
	unsigned open[BLOCK_MAX_INSNS + 1];        /* groups still open: their first access */
	unsigned n_open = 0;
	for (unsigned i = 0; i < count; i++) {
		const struct op *o = &r->ops[i];
		r->answered_by[i] = (uint8_t)i;
		r->keeps[i] = 0xff;
		r->look_lo[i] = 0;
		r->look_hi[i] = (int8_t)(o->msize - 1);
		r->look_write[i] = op_writes(o);
		members[i] = 1;
		bool shares = r->long64 && touches_memory(o->kind) && !o->rip_rel && o->base != REG_NONE &&
			      o->seg != SR_FS && o->seg != SR_GS;
		if (shares) {
			for (unsigned k = 0; k < n_open; k++) {
				unsigned f = open[k];
				const struct op *g = &r->ops[f];
				if (g->base != o->base || g->index != o->index || g->scale != o->scale)
					continue;
				int64_t first = moved[f] + access_disp(o), last = first + o->msize - 1;
				int64_t l = first < lo[f] ? first : lo[f], h = last > hi[f] ? last : hi[f];
				if (h - l < 128) {
					r->answered_by[i] = (uint8_t)f;
					lo[f] = l;
					hi[f] = h;
					members[f]++;
					r->look_write[f] = r->look_write[f] || op_writes(o);
				} else {
					open[k] = open[--n_open];   /* a new group from here */
				}
				break;
			}
			if (r->answered_by[i] == i) {
				lo[i] = access_disp(o);
				hi[i] = lo[i] + o->msize - 1;
				moved[i] = 0;
				open[n_open++] = i;
			}
		}
		/* A group ends where its index is written, or its base other
		 * than by a constant. */
		unsigned w = regs_written(o);
		for (unsigned k = 0; k < n_open;) {
			unsigned f = open[k];
			const struct op *g = &r->ops[f];
			int64_t step = 0;
			bool index_written = g->index != REG_NONE && (w >> g->index & 1);
			if (index_written || ((w >> g->base & 1) && !steps_by(o, g->base, &step))) {
				open[k] = open[--n_open];
				continue;
			}
			moved[f] += step;
			k++;
		}
	}
	for (unsigned i = 0; i < count; i++) {
		if (r->answered_by[i] != i || members[i] < 2)
			continue;
		if (r->used < POOL) {
			r->keeps[i] = pool[r->used++];
			r->look_lo[i] = (int8_t)(lo[i] - access_disp(&r->ops[i]));
			r->look_hi[i] = (int8_t)(hi[i] - access_disp(&r->ops[i]));
			continue;
		}
		r->look_write[i] = op_writes(&r->ops[i]);   /* no register: each looks itself */
		for (unsigned k = i + 1; k < count; k++)
			if (r->answered_by[k] == i)
				r->answered_by[k] = (uint8_t)k;
	}
}

/* The flags plan of ops[0..n) (above), for a run of at most n: which setters
 * store the record, which store their CF, which compute their flags for a
 * reader. Returns the run's length, cut before the first instruction that
 * cannot be planned: an INC/DEC whose CF would come from before the run, from
 * an IMUL (whose host flags are not the model's) or from an ADC/SBB (whose
 * record's aux is its carry in), unless that CF is dead: another setter
 * replaces it before anything reads CF or the run can leave (an access, its
 * end), as in a loop's "inc edx; inc rdi; cmp eax, edx"; a reader whose
 * flags come from before the run, through a memory access's host code, or
 * from a setter whose host instruction does not leave the flags it reads as
 * the model defines them; an IMUL whose flags are read at an exit. (An S
 * stores its CF as it runs: where the aux it stores is read, at an exit whose
 * last setter is an INC/DEC, no other S can lie between that INC/DEC's S and
 * the exit.) */
static unsigned plan_flags(struct run *r, const struct op *ops, unsigned n)
{
	int cf_of[BLOCK_MAX_INSNS];    /* an INC/DEC's CF: its S, ENTRY_CF or -1: unknown */
	enum { ENTRY_CF = -2 };
	for (;;) {
		int setter = -1;       /* the last setter but INC/DEC */
		int host = -1;         /* the setter whose flags the host's are, or -1 */
		int unknown_cf = -1;   /* the first INC/DEC since setter whose CF is unknown */
		bool any_setter = false;
		memset(r->read, 0, sizeof(r->read));
		memset(r->entry_carry_read, 0, sizeof(r->entry_carry_read));
		for (unsigned i = 0; i < n; i++) {
			const struct op *o = &ops[i];
			if (may_leave(o->kind)) {
				host = -1;
				if (unknown_cf >= 0)
					break;         /* a side exit would need that CF */
			}
			if (o->reads_flags && o->kind == K_ADC && !any_setter) {
				r->entry_carry_read[i] = true;   /* CF from where the run began */
			} else if (o->reads_flags) {
				if (host < 0 || (cond_reads(o->cc) & ~host_exact(&ops[host])) != 0) {
					n = i;
					break;
				}
				if (unknown_cf >= 0 && (cond_reads(o->cc) & F_CF))
					break;
				r->read[host] = true;
			}
			if (o->kind == K_INCDEC) {
				bool known = setter >= 0 && ops[setter].kind != K_IMUL && ops[setter].kind != K_ADC;
				cf_of[i] = setter < 0 ? ENTRY_CF : known ? setter : -1;
				if (cf_of[i] == -1 && unknown_cf < 0)
					unknown_cf = (int)i;
			} else if (o->sets_flags) {
				setter = (int)i;
				unknown_cf = -1;
			}
			if (o->sets_flags) {
				host = (int)i;
				any_setter = true;
			}
		}
		/* An unknown CF still live where the run could leave (or read):
		 * end the run before its INC/DEC, and plan again. */
		if (unknown_cf >= 0 && (unsigned)unknown_cf < n) {
			n = (unsigned)unknown_cf;
			continue;
		}
		memset(r->final, 0, sizeof(r->final));
		memset(r->cf_source, 0, sizeof(r->cf_source));
		memset(r->entry_carry_aux, 0, sizeof(r->entry_carry_aux));
		int last = -1, last_incdec = -1;
		r->exit_after_last_setter = false;
		for (unsigned i = 0; i <= n; i++) {
			bool exit_point = i == n || may_leave(ops[i].kind);
			if (exit_point) {
				if (last >= 0)
					r->final[last] = true;
				if (last_incdec >= 0 && cf_of[last_incdec] == ENTRY_CF)
					r->entry_carry_aux[last_incdec] = true;
				else if (last_incdec >= 0)
					r->cf_source[cf_of[last_incdec]] = true;
				if (i < n)
					r->exit_after_last_setter = true;
			}
			if (i == n)
				break;
			if (ops[i].sets_flags) {
				last = (int)i;
				r->exit_after_last_setter = false;
			}
			if (ops[i].kind == K_INCDEC)
				last_incdec = (int)i;
			else if (ops[i].sets_flags)
				last_incdec = -1;      /* its CF is no longer the flags' */
		}
		r->last_setter = last;
		unsigned cut = n;
		for (unsigned i = 0; i < n; i++)
			if (ops[i].kind == K_IMUL && (r->final[i] || r->cf_source[i] || r->read[i]) && cut == n)
				cut = i;
		if (cut == n) {
			r->entry_carry = false;
			for (unsigned i = 0; i < n; i++)
				r->entry_carry = r->entry_carry || r->entry_carry_aux[i] || r->entry_carry_read[i];
			return n;
		}
		n = cut;
	}
}

/* ---- the code area ---- */

static uint8_t *code_area(struct icache *ic)
{
	if (ic->jit_code || ic->jit_failed)
		return ic->jit_code;
	void *m = mmap(NULL, JIT_CODE_BYTES, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	if (m == MAP_FAILED) {
		ic->jit_failed = true;
		return NULL;
	}
	if (ic->huge_pages)
		(void)madvise(m, JIT_CODE_BYTES, MADV_HUGEPAGE);   /* written in order, run all over */
	ic->jit_code = m;
	return ic->jit_code;
}

void jit_translate_block(struct icache *ic, struct block *b, bool user)
{
	uint8_t *area = code_area(ic);
	/* 16-bit code: its 32-bit forms are rare, and its addresses wrap at 64 KiB.
	 * (A page-crossing instruction is translated as any block: every way
	 * into it compares its second page, its lookup and the links followed,
	 * in C and in translated code: LINK_SECOND_PAGE.) */
	if (!area || b < ic->blocks || b >= ic->blocks + ICACHE_BLOCKS || b->code_size == 16)
		return;
	if (ic->jit_used + JIT_SLOT_BYTES > JIT_HOT_BYTES || ic->jit_cold_used + JIT_SLOT_BYTES > JIT_CODE_BYTES - JIT_HOT_BYTES) {
		ic->jit_full = true;   /* cpu_run empties the cache */
		return;
	}
	uint8_t *cold_area = area + JIT_HOT_BYTES;
	struct emit e = { area + ic->jit_used, NULL, NULL, NULL };
	struct emit cold = { cold_area + ic->jit_cold_used, NULL, NULL, &e };
	e.end = e.p + JIT_SLOT_BYTES;
	cold.end = cold.p + JIT_SLOT_BYTES;
	e.cold = &cold;
	e.peer = &cold;
	uint8_t *installed = e.p;   /* the end of the code installed so far */
	uint8_t *cold_installed = cold.p;
	struct op ops[BLOCK_MAX_INSNS];
	unsigned i = 0;
	/* The last run installed, where it leaves for instruction i's thread
	 * form (join_runs): NULL where it does not. */
	uint8_t *onward = NULL;
	unsigned onward_pushes = 0;
	while (i < b->count) {
		unsigned n = 0;
		while (i + n < b->count && classify(&b->insns[i + n], b->code_size == 64, &ops[n]))
			n++;
		struct run r = { .ops = ops, .long64 = b->code_size == 64, .set_hash = 0xff, .user = user,
				 .side_exits = &ic->jit_side_exits, .jumps = ic->jumps };
		memset(r.host, 0xff, sizeof(r.host));
		n = plan_flags(&r, ops, n);
		unsigned fit = 0;
		while (fit < n && assign(&r, &ops[fit]))
			fit++;
		if (fit < n) {
			/* The flags plan of the shorter run. */
			n = plan_flags(&r, ops, fit);
		}
		r.n = n;
		struct loop lp = i == 0 && n ? loop_of(b, &r, n) : (struct loop){ .on = false };
		struct block_end be = lp.on ? (struct block_end){ .kind = END_NONE, .b = b } : end_of(b, &r, ops, i + n);
		/* One instruction alone is worth it only with the block's end;
		 * the end alone (a CALL, RET or JMP that a jump lands on, a call
		 * site's next call) spares its handler and the lookup of the
		 * next block in C. */
		if (n < 2 && be.kind == END_NONE) {
			i += n ? n : 1;
			onward = NULL;
			continue;
		}
		r.accesses = be.kind == END_CALL || be.kind == END_RET;
		for (unsigned k = 0; k < n; k++)
			r.accesses = r.accesses || touches_memory(ops[k].kind);
		if (r.accesses && r.used < POOL)
			r.set_hash = pool[r.used++];
		plan_shared_lookups(&r, n + (be.kind == END_CALL || be.kind == END_RET));
		drop_unread_records(&r);
		/* Direct links come into a block's first run and leave from its end. */
		if (i == 0 || be.kind != END_NONE || lp.on)
			r.pushes = PUSHES_LINKED;
		else
			r.pushes = r.used > POOL_CALLER_SAVED ? r.used - POOL_CALLER_SAVED : 0;
		uint8_t *start = e.p;
		emit_run(&e, &r, &b->insns[i], lp.on ? &b->insns[b->count] : &b->insns[i + n], &lp, &be);
		if (e.p > e.end || cold.p > cold.end)
			break;             /* no room: the rest stays as it is */
		if (onward && join_runs(onward, start, onward_pushes, &r))
			ic->jit_joined_runs++;
		onward = r.onward;
		onward_pushes = r.pushes;
		installed = e.p;
		cold_installed = cold.p;
		insn_handler h;
		memcpy(&h, &start, sizeof(h));  /* the code as a function */
		if (i == 0) {
			block_set_entry(b, h);
			b->jit_inner = r.inner;
			b->jit_loaded = r.loaded;
			memcpy(b->jit_host, r.host, sizeof(b->jit_host));
		} else
			b->insns[i].thread = h;
		ic->jit_runs++;
		if (be.kind != END_NONE || lp.on)
			break;             /* the run holds the block's end (a loop: its Jcc too) */
		i += n;                    /* n >= 2 here */
	}
	ic->jit_used = ((size_t)(installed - area) + 15) & ~(size_t)15;
	ic->jit_cold_used = ((size_t)(cold_installed - cold_area) + 15) & ~(size_t)15;
}

void jit_flush(struct icache *ic)
{
	ic->jit_used = 0;
	ic->jit_cold_used = 0;
	ic->jit_full = false;
}

void jit_release(struct icache *ic)
{
	if (ic->jit_code)
		munmap(ic->jit_code, JIT_CODE_BYTES);
	ic->jit_code = NULL;
}

#else

void jit_translate_block(struct icache *ic, struct block *b, bool user)
{
	(void)ic;
	(void)b;
	(void)user;
}

void jit_flush(struct icache *ic)
{
	(void)ic;
}

void jit_release(struct icache *ic)
{
	(void)ic;
}

#endif

unsigned long jit_runs_translated(const struct icache *ic)
{
	return ic->jit_runs;
}

unsigned long jit_side_exits(const struct icache *ic)
{
	return ic->jit_side_exits;
}

unsigned long jit_direct_links(const struct icache *ic)
{
	return ic->jit_direct_links;
}

unsigned long jit_joined_runs(const struct icache *ic)
{
	return ic->jit_joined_runs;
}
