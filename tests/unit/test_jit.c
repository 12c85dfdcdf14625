/* The translator (emu/jit.h) against the interpreter: random programs run
 * once as blocks (translated runs) and once one instruction at a time (the
 * exec forms, never translated). Registers, the flags as the SDM defines
 * them (the lazy record materialized), memory (the data and the code's two
 * pages), rIP, time and the exception that stops a program must agree, in
 * 32-bit protected mode (data segments with limits, expand-down, read-only,
 * a wrap at 4 GiB) and in 64-bit mode (a sparse page table).
 *
 * The programs' instructions (insn_of, the forms a run may hold and a
 * shift by CL, which ends one): MOV, ADD/OR/AND/SUB/XOR/CMP, TEST, ADC/SBB
 * between registers, ADD..CMP with an immediate; INC/DEC, NOT/NEG; SHL/SHR/
 * SAR by 1 or an immediate that may mask to 0; MOV of an immediate; SETcc and
 * CMOVcc (they read the flags an earlier instruction left); LEA; MOV loads
 * and stores of 8, 16, 32 and 64 bits (AH-BH without REX, SPL-DIL with
 * one); MOVZX/MOVSX/MOVSXD; IMUL r, r/m (, imm); ADD..CMP r, m, CMP m, r,
 * TEST m, r; ADD..XOR m, r and m, imm (read-modify-write); PUSH/POP r; MOV m, imm (C6 ib, 66 C7 iw, C7 id, REX.W C7 id);
 * NOP (90 with 66H or REX, 0F 1F /0 with a register or a memory operand of
 * any shape, never accessed, even in the programs that may not access
 * memory) and 90+r with REX.B or r not 0 (XCHG r, rAX: 41 90 is no NOP);
 * the accumulator with an immediate (04/05, 0C/0D, 24/25, 2C/2D, 34/35,
 * 3C/3D, A8/A9; the byte and word forms too); bytes and words between
 * registers and with an immediate (ALU, TEST, shifts by 1 or an immediate:
 * AH-BH without REX, SPL-DIL with one); CMP m, imm and TEST m, imm (81
 * /7, 83 /7, F7 /0; 80 /7, F6 /0 now and then). After the accumulator forms
 * and CMP/TEST m, imm, one time in two, a SETcc, CMOVcc or ADC/SBB reads
 * their flags. A memory operand has every address shape: base +
 * disp8/disp32, base + index * scale + disp (SIB), a displacement alone,
 * rIP-relative (aimed at the data mostly; else loads at anywhere in the
 * code's pages, the program's own bytes included, stores at the end of the
 * second page, where no program is but a page of decoded code may be, or, in
 * the straight-line programs, at the bytes already run: self-modifying code;
 * or anywhere); 67H sometimes (32-bit addresses in 64-bit code, 16-bit ones
 * in 32-bit code), a segment override sometimes. 66H and REX (W, R, X, B, a
 * bare 40H) at random. Bases and indexes are mostly registers known to hold
 * a data address and a small value: most accesses hit the TLB, the others
 * cross a page or a limit, leave RAM, are non-canonical, and fault (side
 * exits and faults compared too).
 *
 *   random_programs_32 / _64   3,000 programs of 40 instructions each
 *   runs_translated            the programs above did run translated code
 *   loop_starting_with_inc     a loop block that starts with INC, whose CF
 *                              (from before the run) the CMP after it
 *                              replaces, runs translated; the CF after the
 *                              loop is the CMP's, as ADC reads it
 *   loop_with_carry_chain      an INC/DEC keeps the CF of the run's earlier
 *                              instruction (SDM Vol.2 INC, DEC), read by ADC
 *                              after the run, in a loop that chains
 *   block_translated_when_hot  a block runs as its thread forms until its
 *                              jit_hot-th entry, translated from then on, the
 *                              same machine every time
 *   access_crossing_into_absent_page  a translated load and store whose
 *                              last bytes lie in a page not present: the
 *                              #PF at that page, as the interpreter's
 *   sib_access_crossing_into_absent_page  the same where index * scale takes
 *                              the access across
 *   compare_with_memory_source  a translated CMP r32, m32 whose flags
 *                              are read after the run: CF from the memory
 *                              operand, as the interpreter's
 *   user_access_to_supervisor_page  at CPL 3 a translated load of a
 *                              supervisor page that the supervisor bank
 *                              holds is the interpreter's #PF with U
 *   global_translation_hits_in_runs  loads and stores of a global page
 *                              (CR4.PGE, PTE.G) in a translated loop: the
 *                              interpreter's results, and no side exit once
 *                              the TLB holds the page under the global id;
 *                              a store to a read-only one: #PF
 *   older_way_hits_in_runs     a loop loading from two pages whose
 *                              translations share a TLB set, the older in
 *                              way 1: the interpreter's results, and no side
 *                              exit
 *   code_area_full_starts_again  a translation that finds the code area
 *                              full is not made; the run loop empties the
 *                              cache and the area, and translates anew
 *   access_beyond_segment_limit  a translated 32-bit load past DS's limit
 *                              whose page is cached (base + disp, and SIB
 *                              with and without a base): the interpreter's #GP
 *   push_to_absent_page        a PUSH at CPL 0 whose stack page is not
 *                              present (or whose first bytes are not): #PF,
 *                              rSP as before it, as the interpreter's
 *   run_of_many_accesses       a run of 18 loads whose last is past DS's
 *                              limit: every check of every access can leave
 *   loop_reads_flags_from_before  a loop block that sets no flag is not
 *                              closed in host code: its JNZ reads flags
 *                              from before the block
 *   loop_with_store_after_its_flags  a store between the loop's last flag
 *                              setter and its JNZ: the loop is not closed on
 *                              the host's flags, which the store's TLB
 *                              lookup changes
 *   random_loops_32 / _64      blocks that close a loop on themselves (a
 *                              body of the forms a run may hold, JNZ or JZ
 *                              back to the start: the loop runs inside the
 *                              host code), run to their end and stopped by an
 *                              instruction limit at a random point:
 *                              registers, flags, memory, rIP and time as the
 *                              single steps leave them
 *
 * A translated run that reaches its block's end takes the block's Jcc, JMP
 * rel or fall-through itself and goes on to the next block with
 * thread_next_block's checks inline (emu/jit.c emit_block_end,
 * emit_next_block):
 *   random_branchy_programs_32 / _64  2,500 programs each of segments (1-8
 *                              instructions of the forms a run may hold; now
 *                              and then more than 32: a block ends by its
 *                              count) joined by Jcc of every condition and
 *                              JMP, rel8 and rel32, forward one or two
 *                              segments, or falling into the next; loops back
 *                              counted down in a register the instructions
 *                              leave alone; some across the page boundary at
 *                              41000H, most ending exactly there; run to the
 *                              HLT or stopped by an instruction limit inside
 *                              the chain, as blocks twice (the second run
 *                              follows the links the first made): the next
 *                              block is the one the target, fall-through or
 *                              own start names, within the deadline exactly;
 *                              one forward Jcc in three right after a
 *                              CMP/TEST m, imm or an accumulator form (its
 *                              condition on their flags, the host's)
 *   random_call_programs_64    2,000 programs of a main and 1-5 subroutines:
 *                              CALL rel32 and RET (C3) at the ends of
 *                              translated runs, nested, recursive, CALL $+5,
 *                              frames (PUSH/POP, SUB/ADD RSP, LEA RSP) in the
 *                              RET's run, return addresses replaced (non-
 *                              canonical: #GP(0) at the RET), CALLs past the
 *                              program; RSP aligned, at and across page
 *                              boundaries, by the absent page below the data
 *                              (#PF, RSP kept), in a page of decoded code,
 *                              non-canonical (#SS); instruction limits inside
 *                              the chains; run_linked as above
 *   fall_through_after_step_form  a block that ends by its count or at the
 *                              page boundary after an instruction whose
 *                              thread handler is a step (NOP, LEA rip-
 *                              relative): rIP after it, not what the
 *                              translated run left
 *   branch_target_beyond_cs_limit  32-bit code: a taken JNZ or JMP (rel8,
 *                              rel32) after a run, its target one past CS's
 *                              limit: #GP(0) at the branch (SDM Vol.2 Jcc,
 *                              JMP); a target at the limit, or not taken: no
 *                              fault
 *   chain_stops_at_deadline    a chain of linked translated blocks (JMP, Jcc
 *                              taken and not, a block ended by its count)
 *                              under every instruction limit: the next block
 *                              starts only when its end is within the
 *                              deadline (at a block boundary it stops; one
 *                              past it, one instruction runs)
 *   chain_link_retargeted      a link to a block whose bytes were then
 *                              rewritten (the same page or the next) is not
 *                              followed: the slot's generation changed
 *   chain_link_remapped        64-bit: a link to a block whose page was then
 *                              remapped (INVLPG) is not followed: the link
 *                              context changed with the TLB epoch
 *   next_block_translated_when_hot  a block reached by a link from a
 *                              translated block's end counts that entry and
 *                              is translated on its jit_hot-th
 *   inc_then_jb_not_from_host  conditions the host's flags do not give as
 *                              the model defines them: JB/JAE/JBE/JA after an
 *                              INC/DEC (CF from before it, with and without
 *                              a load between), JO/JNO/JL/JGE/JLE/JG after a
 *                              shift by 2-31 (OF), JO/JB/JZ/JS/JP after IMUL
 *
 * The forms emu/jit.c took in 44e8880, directed (each in a run the
 * translator takes: its block's first instruction translated code), in
 * 32-bit and 64-bit code where they exist, as the single steps and, where
 * the SDM says what comes out, as it says:
 *   store_immediate_to_memory  MOV m, imm in its four forms through ten
 *                              address shapes (SIB, REX.X/B, rIP-relative,
 *                              [disp32], FS/GS bases, ES's wrap, SS; GS
 *                              read-only: #GP(0)): the bytes stored, the
 *                              immediate sign-extended, the neighbours kept
 *   movnti_in_runs             MOVNTI m64 and m32 at a loop's start: a store
 *   nop_forms                  90, 66 90, REX.W 90, 0F 1F /0 at non-canonical,
 *                              unmapped and out-of-limit addresses (no
 *                              fault), with registers; 41 90, 49 90, 66 41 90,
 *                              41 97, 91, 66 92 are XCHG; every limit
 *   accumulator_immediate_forms  04/05 ... A8/A9 at 8, 16, 32 and 64 bits,
 *                              then SETcc, CMOVcc, ADC and a Jcc: the flags
 *                              as SDM Vol.1 3.4.3.1 defines them
 *   compare_memory_with_immediate  CMP/TEST m, imm (81 /7, 83 /7, F7 /0,
 *                              66H, REX.W; 80 /7, F6 /0) then SETcc, CMOVcc or
 *                              ADC and a Jcc of every condition
 *   rip_relative_operands      64-bit loads, stores, ADD r, m, CMP/TEST m,
 *                              imm, MOV m, imm, LEA rIP-relative, into the
 *                              data, the block's own bytes, with FS and GS
 *   stores_into_own_code       a translated store into the next instruction
 *                              of its own block, into the next block and into
 *                              bytes already run (rIP-relative; ES in 32-bit
 *                              code): the new bytes run (SDM Vol.3 11.6)
 *   call_and_ret_64            CALL rel32 and RET ending translated runs:
 *                              RSP aligned, at, across and by page boundaries,
 *                              in a page of decoded code (no fault; the return
 *                              address stored), with the slot absent (#PF,
 *                              RSP kept), non-canonical (#SS(0)); a return
 *                              address replaced by a non-canonical one (#GP(0)
 *                              at the RET, RSP kept), an unmapped one, the HLT;
 *                              RSP written in the runs (PUSH/POP, SUB/ADD)
 *   nested_calls_under_limits  nested and recursive CALL/RET under every
 *                              instruction limit, linked; CALLs past the
 *                              program (zeros, unmapped, 2 GiB below)
 *   branch_past_canonical_top_64  from the last canonical page below the
 *                              hole, CALL, JMP and Jcc rel32 to a non-canonical
 *                              target: #GP(0) at the branch, RSP kept; to a
 *                              target in the page; a fall-through onto the
 *                              first non-canonical address
 *
 * Code at CPL 3: a block is translated for the CPL's kind (3 or not) it
 * became hot at (emu/jit.h jit_enter); a run made for the one leaves at its
 * start under the other; a user run looks the TLB up in the user bank and
 * leaves before an access not aligned to its size (emu/operand.h mem_fast:
 * the slow path raises #AC, SDM Vol.3 6.15, or does the access). The machine
 * is switched by the test (enter_cpl: CS and SS of DPL 3, RPL 3, cpu->cpl);
 * 64-bit: the sparse table's code and data pages user, but one supervisor-
 * only data page and one read-only (long_mode_user), FS's base misaligned;
 * 32-bit (paging off: both banks translate alike): protected_segments' data
 * segments at DPL 3, GS based one byte above the data. Whether a translated
 * run did an access in host code or left before it is seen through a spy in
 * place of the accessing instruction's thread handler (spy_on):
 *   random_programs_user_64 / _32  1,500 random programs each (insn_of,
 *                              every form) at CPL 3, the supervisor bank
 *                              holding every data page for reads and writes
 *                              (a user run that looked there would read the
 *                              supervisor page and write the read-only one);
 *                              CR0.AM and EFLAGS.AC both set in a third, one
 *                              of them in a third, neither in the rest; half
 *                              the data addresses aligned to 8: #AC(0) only
 *                              with both, every #PF with U (SDM Vol.3 4.7);
 *                              translated runs made, and a user run's aligned
 *                              load done in host code, a misaligned one not
 *   block_hot_at_user_run_at_supervisor  a block made hot at CPL 3 then run
 *                              at CPL 0 (64-bit, 32-bit): a user page, the
 *                              supervisor page, a misaligned load under
 *                              CR0.AM and EFLAGS.AC (no #AC at CPL 0); with
 *                              CR4.SMAP ("skylake-lite") a user page that the
 *                              user bank holds: #PF with P only; the run
 *                              leaves at its start; as the single steps
 *   block_hot_at_supervisor_run_at_user  a block made hot at CPL 0 (its
 *                              pages in the supervisor bank) then run at CPL
 *                              3: the supervisor page #PF with P and U, the
 *                              read-only page's store #PF with P, W and U, a
 *                              misaligned load under CR0.AM and EFLAGS.AC
 *                              #AC(0), a user page the HLT's #GP(0); the run
 *                              leaves at its start; as the single steps
 *   user_misaligned_access     at CPL 3, 2-, 4- and 8-byte loads, stores of a
 *                              register and an immediate, ALU/CMP/TEST with
 *                              memory, PUSH, POP, CALL and RET (64-bit), FS
 *                              and GS overrides, at every offset from one
 *                              aligned address to the next, under each of
 *                              CR0.AM and EFLAGS.AC on and off: #AC(0) at a
 *                              misaligned one with both (SDM Vol.3 6.15,
 *                              Table 6-7), else the access done (value, bytes,
 *                              return address checked); the translated run
 *                              does an aligned one in host code and leaves
 *                              before a misaligned one; as the single steps
 */
#include <check.h>
#include <string.h>

#include "emu/flags.h"
#include "emu/fpu.h"
#include "emu/hv.h"
#include "emu/icache.h"
#include "emu/jit.h"
#include "emu/operand.h"
#include "mmu/paging.h"
#include "machine_fixture.h"
#include "suite_runner.h"

static struct test_machine m;

static void setup(void)
{
	machine_init(&m, "core2");
}

static void teardown(void)
{
	machine_free(&m);
}

/* xorshift64 for the programs: the same every run. */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* The programs' code: two pages at 40000H (in 64-bit code the sparse page
 * table maps both), rewritten before each run. */
#define CODE 0x40000u
#define CODE_SIZE (2 * PAGE_SIZE)

/* A program: its bytes from 40000H (zeros before entry), rIP at 40000H +
 * entry, or at base + entry where the bytes are mapped there too. */
struct program {
	uint8_t bytes[CODE_SIZE];
	unsigned len, entry;
	uint64_t base;             /* the linear address of bytes[0]; 0: 40000H */
};

static void b(struct program *p, unsigned v)
{
	p->bytes[p->len++] = (uint8_t)v;
}

/* Bytes appended to p. */
static void put(struct program *p, const uint8_t *bytes, unsigned len)
{
	memcpy(p->bytes + p->len, bytes, len);
	p->len += len;
}
#define PUT(p, ...) put((p), (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

/* A 64-bit value appended (an imm64, a return address). */
static void put_u64(struct program *p, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		b(p, (unsigned)(v >> (8 * i)));
}

/* The data the programs' memory accesses reach: 60000H-6FFFFH (in 32-bit
 * code, offsets 0-FFFFH of DS and SS; protected_segments). */
#define DATA 0x60000u
#define DATA_SIZE 0x10000u

/* ---- the random instructions ---- */

/* One instruction in parts, in the order SDM Vol.2 2.1 puts them: legacy
 * prefixes, REX, opcode, ModRM, SIB, displacement, immediate. */
struct parts {
	uint8_t seg;               /* a segment override prefix; 0: none */
	bool opsize;               /* 66H: 16-bit operands (REX.W wins, 2.2.1.2) */
	bool addrsize;             /* 67H: 32-bit addresses in 64-bit code, 16-bit ones in 32-bit code */
	unsigned rex;              /* 64-bit code: REX_W, REX_R, REX_X, REX_B */
	bool bare_rex;             /* a REX prefix (40H) even with no bit set */
	uint8_t op[2];
	unsigned op_len;
	uint8_t ea[7];             /* ModRM, SIB, displacement */
	unsigned ea_len;
	bool sib;                  /* ea has a SIB byte, whose index REX.X extends */
	uint64_t imm;              /* imm_len bytes of it */
	unsigned imm_len;
	uint8_t dst;               /* the register it writes, REG_NONE: none */
	bool dst_byte;             /* dst is a byte register: 4-7 without REX are AH CH DH BH */
	unsigned also_writes;      /* registers it writes besides dst (bit r: register r) */
	bool store;                /* its memory operand is written (set before mem_operand) */
	uint8_t rip_aim;           /* [rIP + disp32]: what the displacement aims at (enum
				      rip_aim), made by emit() once the length is known */
	uint64_t rip_pick;         /* a random number: where in that aim */
	bool then_read_flags;      /* a flag reader follows one time in two (insn_by) */
};

/* Where a [rIP + disp32] operand of 64-bit code goes (SDM Vol.2 2.2.1.6: from
 * the next instruction's address): RIP_FAR keeps the random displacement. */
enum rip_aim {
	RIP_FAR,
	RIP_DATA,                  /* the data, or across its first or last byte */
	RIP_CODE,                  /* loads: anywhere in the programs' two pages (their
				      own bytes too); stores: the last 2 KiB, which no
				      program reaches but whose page may hold decoded code */
	RIP_BEHIND,                /* a store into the bytes the program has run, up to
				      its own end (straight-line programs: self-modifying
				      code that never runs again) */
};

enum { REX_B = 1, REX_X = 2, REX_R = 4, REX_W = 8 };

static void opcode(struct parts *x, unsigned op)
{
	x->op[x->op_len++] = (uint8_t)op;
}

static void ea_bytes(struct parts *x, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		x->ea[x->ea_len++] = (uint8_t)(v >> (8 * i));
}

static void immediate(struct parts *x, uint64_t v, unsigned len)
{
	x->imm = v;
	x->imm_len = len;
}

/* A general register: 0-15 in 64-bit code (bit 3 goes to a REX bit), 0-7
 * in 32-bit code. */
static unsigned any_reg(bool long_mode)
{
	return (unsigned)(rnd() & (long_mode ? 15 : 7));
}

/* 64-bit code: REX.W at random (64-bit operands). */
static void maybe_w(struct parts *x, bool long_mode)
{
	if (long_mode && (rnd() & 1))
		x->rex |= REX_W;
}

/* 66H one time in eight: 16-bit operands. */
static void maybe_16(struct parts *x)
{
	x->opsize = rnd() % 8 == 0;
}

/* What the generator knows of the registers where an instruction goes:
 * those that still hold what random_regs gave them, an address in the data
 * (in 32-bit code: its offset in DS) or a small value (bit r: register r). */
struct reg_kinds {
	unsigned address, small;
};

/* What an instruction is drawn for. */
struct draw {
	bool long_mode;
	bool no_access;            /* an E operand is a register, never memory */
	bool ran_once;             /* the bytes before `at` never run again (a store may
				      aim at them: RIP_BEHIND) */
	unsigned at;               /* its offset in the program (RIP-relative targets) */
	struct reg_kinds known;
};

/* A register of set seven times in eight when set has one, else any. */
static unsigned addr_reg(unsigned set, bool long_mode)
{
	set &= long_mode ? 0xffff : 0xff;
	if (set == 0 || rnd() % 8 == 0)
		return any_reg(long_mode);
	unsigned k = (unsigned)(rnd() % (unsigned)__builtin_popcount(set)), r = 0;
	for (;; r++)
		if ((set >> r & 1) && k-- == 0)
			return r;
}

/* A 32-bit displacement next to a base register: near it mostly, else
 * anything. */
static uint32_t disp_near(void)
{
	return rnd() % 8 ? (uint32_t)(rnd() % 0x1000) - 0x800 : (uint32_t)rnd();
}

/* A displacement that is the whole address but an index: in the data (an
 * offset of the data segments in 32-bit code) mostly, else anything. */
static uint32_t disp_alone(bool long_mode)
{
	return rnd() % 8 ? (long_mode ? DATA : 0) + (uint32_t)(rnd() % DATA_SIZE) : (uint32_t)rnd();
}

/* ModRM.reg reg and a memory operand of a random shape (SDM Vol.2 2.1.5,
 * Tables 2-1 to 2-3): [base + disp8], [base + disp32], [base], [base +
 * index * scale + disp8/disp32/0] (SIB; index 4 without REX.X: none; base 5
 * with mod 0: no base, disp32), and [rIP + disp32] in 64-bit code (2.2.1.6,
 * aimed at the data mostly, else at the code: enum rip_aim; x->store set
 * before says which) or [disp32] in 32-bit code; the address size
 * overridden (67H) one time in addrsize_1_in: 32-bit addresses in 64-bit code,
 * 16-bit ones (Table 2-1) in 32-bit code; a segment override one time in four
 * (each segment is its own in either mode: long_mode_sparse,
 * protected_segments). Bases and indexes are mostly registers still known to
 * hold a data address and a small value (addr_reg), else any: the accesses
 * reach the data, a page end, a limit, or fault. */
static void mem_operand(struct parts *x, unsigned reg, const struct draw *d, unsigned addrsize_1_in)
{
	static const uint8_t overrides[] = { 0x64, 0x65, 0x26, 0x36, 0x2e };
	if (rnd() % 4 == 0)
		x->seg = overrides[rnd() % sizeof(overrides)];
	x->addrsize = rnd() % addrsize_1_in == 0;
	x->rex |= reg & 8 ? REX_R : 0;
	reg &= 7;
	if (x->addrsize && !d->long_mode) {
		/* [BX+SI] ... [BX], each with no, an 8- or a 16-bit
		 * displacement; mod 0 r/m 6: disp16 alone. */
		unsigned mod = (unsigned)(rnd() % 3), rm = (unsigned)(rnd() & 7);
		ea_bytes(x, mod << 6 | reg << 3 | rm, 1);
		if (mod == 1)
			ea_bytes(x, rnd(), 1);
		else if (mod == 2 || rm == 6)
			ea_bytes(x, rnd(), 2);
		return;
	}
	unsigned shape = (unsigned)(rnd() % 8);
	if (shape == 7) {
		ea_bytes(x, reg << 3 | 5, 1);
		ea_bytes(x, d->long_mode ? (uint32_t)rnd() : disp_alone(false), 4);
		if (d->long_mode) {
			unsigned k = (unsigned)(rnd() % 8);
			x->rip_aim = k < 5 ? RIP_DATA : k == 5 || (k == 6 && (!x->store || !d->ran_once)) ? RIP_CODE
			           : k == 6 ? RIP_BEHIND : RIP_FAR;
			x->rip_pick = rnd();
		}
		return;
	}
	unsigned base = addr_reg(d->known.address, d->long_mode);
	x->rex |= base & 8 ? REX_B : 0;
	if (shape < 4) {
		/* [base] with base 5 is [base + 0] (mod 0 would be shape 7). */
		unsigned mod = shape < 2 || (shape == 3 && (base & 7) == 5) ? 1 : shape == 2 ? 2 : 0;
		ea_bytes(x, mod << 6 | reg << 3 | (base & 7), 1);
		x->sib = (base & 7) == 4;
		if (x->sib)
			ea_bytes(x, 0x24, 1);            /* SIB: the base alone */
		if (mod == 1)
			ea_bytes(x, shape == 3 ? 0 : rnd(), 1);
		else if (mod == 2)
			ea_bytes(x, disp_near(), 4);
		return;
	}
	unsigned mod = (unsigned)(rnd() % 3), index = addr_reg(d->known.small, d->long_mode), scale = (unsigned)(rnd() & 3);
	x->rex |= index & 8 ? REX_X : 0;
	x->sib = true;
	ea_bytes(x, mod << 6 | reg << 3 | 4, 1);
	ea_bytes(x, scale << 6 | (index & 7) << 3 | (base & 7), 1);
	if (mod == 1)
		ea_bytes(x, rnd(), 1);
	else if (mod == 2)
		ea_bytes(x, disp_near(), 4);
	else if ((base & 7) == 5)
		ea_bytes(x, disp_alone(d->long_mode), 4);
}

/* ModRM.reg reg and the E operand: memory (mem_operand) or a register,
 * returned (REG_NONE for memory); a register where d says no access. */
static unsigned e_operand(struct parts *x, unsigned reg, const struct draw *d, bool mem)
{
	if (mem && !d->no_access) {
		mem_operand(x, reg, d, 8);
		return REG_NONE;
	}
	unsigned rm = any_reg(d->long_mode);
	x->rex |= (reg & 8 ? REX_R : 0) | (rm & 8 ? REX_B : 0);
	ea_bytes(x, 0xc0 | (reg & 7) << 3 | (rm & 7), 1);
	return rm;
}

/* ADD OR AND SUB XOR CMP, TEST, MOV between registers (01-3B, 85, 89, 8B /r). */
static void gen_alu_rr(struct parts *x, const struct draw *d)
{
	static const uint8_t ops[] = { 0x01, 0x09, 0x21, 0x29, 0x31, 0x39, 0x03, 0x0b, 0x23, 0x2b, 0x33, 0x3b,
				       0x85, 0x89, 0x8b };
	unsigned op = ops[rnd() % sizeof(ops)], reg = any_reg(d->long_mode);
	maybe_w(x, d->long_mode);
	opcode(x, op);
	unsigned rm = e_operand(x, reg, d, false);
	x->dst = op == 0x39 || op == 0x3b || op == 0x85 ? REG_NONE : op & 2 ? reg : rm;
}

/* ADD OR AND SUB XOR CMP with an immediate: 83 /n ib, 81 /n id. */
static void gen_alu_ri(struct parts *x, const struct draw *d)
{
	static const uint8_t ext[] = { 0, 1, 4, 5, 6, 7 };
	unsigned e = ext[rnd() % sizeof(ext)];
	bool ib = rnd() % 3 != 0;
	maybe_w(x, d->long_mode);
	opcode(x, ib ? 0x83 : 0x81);
	unsigned rm = e_operand(x, e, d, false);
	immediate(x, rnd(), ib ? 1 : 4);
	x->dst = e == 7 ? REG_NONE : rm;
}

/* ADC, SBB between registers (11, 13, 19, 1B /r): they read CF. */
static void gen_adc_sbb(struct parts *x, const struct draw *d)
{
	static const uint8_t ops[] = { 0x11, 0x13, 0x19, 0x1b };
	unsigned op = ops[rnd() % sizeof(ops)], reg = any_reg(d->long_mode);
	maybe_w(x, d->long_mode);
	opcode(x, op);
	unsigned rm = e_operand(x, reg, d, false);
	x->dst = op & 2 ? reg : rm;
}

/* INC, DEC: FF /0, /1; in 32-bit code 40+r, 48+r too. */
static void gen_inc_dec(struct parts *x, const struct draw *d)
{
	if (!d->long_mode && rnd() % 3 == 0) {
		unsigned op = 0x40 + (unsigned)(rnd() & 15);
		opcode(x, op);
		x->dst = op & 7;
		return;
	}
	maybe_w(x, d->long_mode);
	opcode(x, 0xff);
	x->dst = (uint8_t)e_operand(x, (unsigned)(rnd() & 1), d, false);
}

/* SHL SHR SAR by 1 (D1 /n) or an immediate (C1 /n ib: 0, 32, 64 and counts
 * that mask to 0 too). */
static void gen_shift_imm(struct parts *x, const struct draw *d)
{
	static const uint8_t ext[] = { 4, 5, 7 };
	bool by_1 = rnd() % 3 == 0;
	maybe_w(x, d->long_mode);
	opcode(x, by_1 ? 0xd1 : 0xc1);
	x->dst = (uint8_t)e_operand(x, ext[rnd() % sizeof(ext)], d, false);
	if (!by_1) {
		unsigned c = (unsigned)(rnd() % 8);
		immediate(x, c == 0 ? 0 : c == 1 ? 32 : c == 2 ? 64 : rnd() % 70, 1);
	}
}

/* SHL SHR SAR by CL (D3 /n): not translated, a run ends there. */
static void gen_shift_cl(struct parts *x, const struct draw *d)
{
	static const uint8_t ext[] = { 4, 5, 7 };
	maybe_w(x, d->long_mode);
	opcode(x, 0xd3);
	x->dst = (uint8_t)e_operand(x, ext[rnd() % sizeof(ext)], d, false);
}

/* Bytes and words between registers or with an immediate: ADD OR AND SUB
 * XOR CMP r/m, r and r, r/m (00-3B), TEST (84/85), 80 /n ib, 81 /n iw, 83 /n
 * ib, F6/F7 /0, and SHL SHR SAR by 1 or an immediate (D0/D1, C0/C1: 0, 1 to
 * the width and beyond, that may mask to 0); the byte ones on AH-BH without
 * a REX (a run ends there) or SPL-DIL with one; a flag reader after it one
 * time in two. */
static void gen_alu_narrow(struct parts *x, const struct draw *d)
{
	static const uint8_t rr_ops[] = { 0x01, 0x09, 0x21, 0x29, 0x31, 0x39, 0x03, 0x0b, 0x23, 0x2b, 0x33, 0x3b, 0x85 };
	static const uint8_t ext[] = { 0, 1, 4, 5, 6, 7 }, shifts[] = { 4, 5, 7 };
	bool word = rnd() & 1;
	x->opsize = word;
	x->dst_byte = !word;
	unsigned kind = (unsigned)(rnd() % 4), reg = any_reg(d->long_mode), rm;
	if (kind == 0) {
		unsigned op = rr_ops[rnd() % sizeof(rr_ops)];
		opcode(x, word ? op : op - 1);
		rm = e_operand(x, reg, d, false);
		x->dst = op == 0x39 || op == 0x3b || op == 0x85 ? REG_NONE : op & 2 ? reg : rm;
	} else if (kind == 1) {
		unsigned e = ext[rnd() % sizeof(ext)];
		bool ib = !word || rnd() % 2;
		opcode(x, !word ? 0x80 : ib ? 0x83 : 0x81);
		rm = e_operand(x, e, d, false);
		immediate(x, rnd(), ib ? 1 : 2);
		x->dst = e == 7 ? REG_NONE : rm;
	} else if (kind == 2) {
		opcode(x, word ? 0xf7 : 0xf6);
		(void)e_operand(x, 0, d, false);
		immediate(x, rnd(), word ? 2 : 1);
		x->dst = REG_NONE;
	} else {
		bool by_1 = rnd() % 3 == 0;
		opcode(x, (by_1 ? 0xd0 : 0xc0) + (word ? 1 : 0));
		x->dst = (uint8_t)e_operand(x, shifts[rnd() % sizeof(shifts)], d, false);
		if (!by_1) {
			unsigned c = (unsigned)(rnd() % 8);
			immediate(x, c == 0 ? 0 : c == 1 ? 8 : c == 2 ? 16 : c == 3 ? 32 : rnd() % 40, 1);
		}
	}
	x->then_read_flags = true;
}

/* MOV r, imm (B8+r; imm64 with REX.W) and MOV r/m, imm32 (C7 /0, register). */
static void gen_mov_imm(struct parts *x, const struct draw *d)
{
	maybe_w(x, d->long_mode);
	if (rnd() & 1) {
		unsigned r = any_reg(d->long_mode);
		x->rex |= r & 8 ? REX_B : 0;
		opcode(x, 0xb8 + (r & 7));
		immediate(x, rnd(), x->rex & REX_W ? 8 : 4);
		x->dst = (uint8_t)r;
		return;
	}
	opcode(x, 0xc7);
	x->dst = (uint8_t)e_operand(x, 0, d, false);
	immediate(x, rnd(), 4);
}

/* NOT, NEG of a register (F7 /2, /3). */
static void gen_not_neg(struct parts *x, const struct draw *d)
{
	maybe_w(x, d->long_mode);
	opcode(x, 0xf7);
	x->dst = (uint8_t)e_operand(x, 2 + (unsigned)(rnd() & 1), d, false);
}

/* SETcc r8 (0F 90+cc): reads the flags. */
static void gen_setcc(struct parts *x, const struct draw *d)
{
	opcode(x, 0x0f);
	opcode(x, 0x90 + (unsigned)(rnd() & 15));
	x->dst = (uint8_t)e_operand(x, 0, d, false);
	x->dst_byte = true;
}

/* CMOVcc r, r/m (0F 40+cc /r): reads the flags; a memory source is read,
 * and a 32-bit destination written, whatever the condition (SDM Vol.2
 * CMOVcc). */
static void gen_cmov(struct parts *x, const struct draw *d)
{
	unsigned reg = any_reg(d->long_mode);
	maybe_w(x, d->long_mode);
	maybe_16(x);
	opcode(x, 0x0f);
	opcode(x, 0x40 + (unsigned)(rnd() & 15));
	e_operand(x, reg, d, rnd() & 1);
	x->dst = (uint8_t)reg;
}

/* MOV r, m and MOV m, r of 32 or 64 bits (8B, 89 /r). */
static void gen_mov_mem(struct parts *x, const struct draw *d)
{
	bool load = rnd() & 1;
	unsigned reg = any_reg(d->long_mode);
	maybe_w(x, d->long_mode);
	opcode(x, load ? 0x8b : 0x89);
	x->store = !load;
	mem_operand(x, reg, d, 8);
	x->dst = load ? (uint8_t)reg : REG_NONE;
}

/* MOV of bytes (88, 8A /r) and words (66 89, 66 8B /r), to or from memory
 * mostly, else between registers. */
static void gen_mov_narrow(struct parts *x, const struct draw *d)
{
	bool word = rnd() & 1, load = rnd() & 1, mem = rnd() % 4 != 0;
	unsigned reg = any_reg(d->long_mode);
	x->opsize = word;
	opcode(x, (word ? 0x89 : 0x88) | (load ? 2 : 0));
	x->store = !load;
	unsigned rm = e_operand(x, reg, d, mem);
	x->dst = (uint8_t)(load ? reg : rm);
	x->dst_byte = !word;
}

/* LEA r, m (8D /r): every address shape, 67H one time in three; it reads
 * no memory. */
static void gen_lea(struct parts *x, const struct draw *d)
{
	unsigned reg = any_reg(d->long_mode);
	maybe_w(x, d->long_mode);
	maybe_16(x);
	opcode(x, 0x8d);
	mem_operand(x, reg, d, 3);
	x->dst = (uint8_t)reg;
}

/* MOVZX, MOVSX r, r/m8 and r/m16 (0F B6, B7, BE, BF); in 64-bit code also
 * MOVSXD r, r/m32 (63 /r: REX.W r64; without it r32, r/m32). */
static void gen_movx(struct parts *x, const struct draw *d)
{
	static const uint8_t ops[] = { 0xb6, 0xb7, 0xbe, 0xbf };
	unsigned reg = any_reg(d->long_mode);
	if (d->long_mode && rnd() % 5 == 0) {
		if (rnd() % 4)
			x->rex |= REX_W;
		opcode(x, 0x63);
	} else {
		maybe_w(x, d->long_mode);
		maybe_16(x);
		opcode(x, 0x0f);
		opcode(x, ops[rnd() % sizeof(ops)]);
	}
	e_operand(x, reg, d, rnd() & 1);
	x->dst = (uint8_t)reg;
}

/* IMUL r, r/m (0F AF /r), IMUL r, r/m, imm8 (6B /r ib) and imm32 (69 /r id;
 * iw with 66H). */
static void gen_imul(struct parts *x, const struct draw *d)
{
	unsigned reg = any_reg(d->long_mode), form = (unsigned)(rnd() % 3);
	maybe_w(x, d->long_mode);
	maybe_16(x);
	if (form == 0)
		opcode(x, 0x0f);
	opcode(x, form == 0 ? 0xaf : form == 1 ? 0x6b : 0x69);
	e_operand(x, reg, d, rnd() & 1);
	if (form)
		immediate(x, rnd(), form == 1 ? 1 : x->opsize && !(x->rex & REX_W) ? 2 : 4);
	x->dst = (uint8_t)reg;
}

/* ADD OR AND SUB XOR CMP r, m (03-3B /r), CMP m, r (39), TEST m, r (85). */
static void gen_alu_mem(struct parts *x, const struct draw *d)
{
	static const uint8_t ops[] = { 0x03, 0x0b, 0x23, 0x2b, 0x33, 0x3b, 0x39, 0x85 };
	unsigned op = ops[rnd() % sizeof(ops)], reg = any_reg(d->long_mode);
	maybe_w(x, d->long_mode);
	maybe_16(x);
	opcode(x, op);
	mem_operand(x, reg, d, 8);
	x->dst = op == 0x39 || op == 0x3b || op == 0x85 ? REG_NONE : (uint8_t)reg;
}

/* PUSH r, POP r (50+r, 58+r; REX.B: R8-R15): 64 bits in 64-bit code
 * whatever REX.W, 16 with 66H one time in sixteen; POP rSP too (it takes
 * the popped value, SDM Vol.2 POP). */
static void gen_push_pop(struct parts *x, const struct draw *d)
{
	unsigned r = any_reg(d->long_mode);
	bool pop = rnd() & 1;
	x->rex |= r & 8 ? REX_B : 0;
	if (d->long_mode && rnd() % 4 == 0)
		x->rex |= REX_W;
	x->opsize = rnd() % 16 == 0;
	opcode(x, (pop ? 0x58 : 0x50) + (r & 7));
	x->dst = pop ? (uint8_t)r : REG_NONE;
	x->also_writes = 1u << R_SP;
}

/* An immediate for an ALU form: one time in four a small one (the registers
 * often hold one: equal operands, ZF), else any. */
static uint64_t alu_imm(void)
{
	return rnd() % 4 ? rnd() : rnd() & 0xff;
}

/* MOV m, imm (SDM Vol.2 MOV): C6 /0 ib, 66 C7 /0 iw, C7 /0 id and in 64-bit
 * code REX.W C7 /0 id (sign-extended to 64 bits; now and then with 66H too,
 * which REX.W overrides: still id), every address shape (mem_operand). */
static void gen_mov_mem_imm(struct parts *x, const struct draw *d)
{
	unsigned size = 1u << (rnd() % (d->long_mode ? 4 : 3));
	x->opsize = size == 2 || (size == 8 && rnd() % 8 == 0);
	x->rex |= size == 8 ? REX_W : 0;
	x->store = true;
	opcode(x, size == 1 ? 0xc6 : 0xc7);
	mem_operand(x, 0, d, 8);
	immediate(x, rnd(), size == 1 ? 1 : size == 2 ? 2 : 4);
}

/* NOP (SDM Vol.2 NOP): 90 (with 66H or REX.W at random, a bare REX from
 * insn_of), 0F 1F /0 with a memory operand of any shape, also where the
 * program may not access memory (it is never accessed: an address that
 * would fault does not), or with a register; one time in four 90+r with r
 * not 0 or with REX.B, which is XCHG r, rAX (41 90: XCHG r8d, eax, both
 * zero-extended), no NOP. */
static void gen_nop(struct parts *x, const struct draw *d)
{
	unsigned k = (unsigned)(rnd() % 8);
	maybe_w(x, d->long_mode);
	maybe_16(x);
	if (k < 2) {
		opcode(x, 0x90);
	} else if (k < 6) {
		opcode(x, 0x0f);
		opcode(x, 0x1f);
		if (k < 5)
			mem_operand(x, 0, d, 4);
		else
			e_operand(x, 0, d, false);
	} else {
		unsigned r = d->long_mode && (rnd() & 1) ? 8 + (unsigned)(rnd() & 7) : any_reg(d->long_mode);
		x->rex |= r & 8 ? REX_B : 0;
		opcode(x, 0x90 + (r & 7));
		x->dst = (uint8_t)r;
		x->also_writes = 1u << R_AX;
	}
}

/* ADD OR AND SUB XOR m, r (01-31 /r) and m, imm (81 /n id, 83 /n ib): a
 * read-modify-write of memory (a write access, every address shape, to the
 * code's bytes too); a flag reader after it one time in two. */
static void gen_alu_rmw(struct parts *x, const struct draw *d)
{
	static const uint8_t ops[] = { 0x01, 0x09, 0x21, 0x29, 0x31 }, ext[] = { 0, 1, 4, 5, 6 };
	unsigned k = (unsigned)(rnd() % sizeof(ops));
	bool imm = rnd() & 1, ib = rnd() & 1;
	maybe_w(x, d->long_mode);
	maybe_16(x);
	opcode(x, imm ? (ib ? 0x83 : 0x81) : ops[k]);
	x->store = true;
	mem_operand(x, imm ? ext[k] : any_reg(d->long_mode), d, 8);
	if (imm)
		immediate(x, alu_imm(), ib ? 1 : x->opsize && !(x->rex & REX_W) ? 2 : 4);
	x->then_read_flags = true;
}

/* ADD OR AND SUB XOR CMP and TEST of the accumulator with an immediate: 04/05,
 * 0C/0D, 24/25, 2C/2D, 34/35, 3C/3D, A8/A9 (the byte forms one time in
 * four; 66H and REX.W at random: iw, id sign-extended);
 * a flag reader after it one time in two. */
static void gen_alu_acc(struct parts *x, const struct draw *d)
{
	static const uint8_t ops[] = { 0x04, 0x0c, 0x24, 0x2c, 0x34, 0x3c, 0xa8 };
	unsigned op = ops[rnd() % sizeof(ops)];
	bool byte = rnd() % 4 == 0;
	maybe_w(x, d->long_mode);
	maybe_16(x);
	opcode(x, op + (byte ? 0 : 1));
	immediate(x, alu_imm(), byte ? 1 : x->opsize && !(x->rex & REX_W) ? 2 : 4);
	x->dst = op == 0x3c || op == 0xa8 ? REG_NONE : R_AX;
	x->then_read_flags = true;
}

/* CMP m, imm and TEST m, imm: 81 /7 id, 83 /7 ib, F7 /0 id (iw with 66H;
 * REX.W at random), now and then the byte forms 80 /7 ib, F6 /0 ib; a flag
 * reader after it one time in two. */
static void gen_cmp_test_mem_imm(struct parts *x, const struct draw *d)
{
	static const struct {
		uint8_t op, ext;
	} forms[] = { { 0x81, 7 }, { 0x83, 7 }, { 0xf7, 0 }, { 0x81, 7 }, { 0x83, 7 }, { 0xf7, 0 },
		      { 0x80, 7 }, { 0xf6, 0 } };
	unsigned f = (unsigned)(rnd() % (sizeof(forms) / sizeof(forms[0])));
	bool ib = forms[f].op != 0x81 && forms[f].op != 0xf7;
	maybe_w(x, d->long_mode);
	maybe_16(x);
	opcode(x, forms[f].op);
	mem_operand(x, forms[f].ext, d, 8);
	immediate(x, alu_imm(), ib ? 1 : x->opsize && !(x->rex & REX_W) ? 2 : 4);
	x->then_read_flags = true;
}

/* RDTSC (0F 31), PAUSE (F3 90) and the fences (0F AE E8-FF: LFENCE,
 * MFENCE, SFENCE): the time (start() gives each run the same) and two
 * instructions that change nothing where nothing intercepts them. */
static void gen_time(struct parts *x, const struct draw *d)
{
	(void)d;
	switch (rnd() % 3) {
	case 0:
		opcode(x, 0x0f);
		opcode(x, 0x31);
		x->also_writes = 1u << R_AX | 1u << R_DX;
		break;
	case 1:
		x->bare_rex = false;       /* the REX before F3 is no REX (SDM Vol.2 2.2.1) */
		opcode(x, 0xf3);
		opcode(x, 0x90);
		break;
	default:
		opcode(x, 0x0f);
		opcode(x, 0xae);
		ea_bytes(x, 0xe8 + rnd() % 24, 1);
		break;
	}
}

/* The forms and how often each comes. in_runs: one of the forms a run may
 * hold (emu/jit.c): the loops' bodies are of these only; accesses: it
 * always reads or writes memory. */
typedef void generate(struct parts *x, const struct draw *d);
static const struct generator {
	generate *gen;
	unsigned weight;
	bool in_runs, accesses;
} generators[] = {
	{ gen_alu_rr, 6, true, false },
	{ gen_alu_ri, 3, true, false },
	{ gen_alu_narrow, 3, true, false },
	{ gen_inc_dec, 2, true, false },
	{ gen_shift_imm, 3, true, false },
	{ gen_mov_imm, 2, true, false },
	{ gen_not_neg, 1, true, false },
	{ gen_adc_sbb, 2, true, false },
	{ gen_setcc, 1, true, false },
	{ gen_cmov, 2, true, false },
	{ gen_shift_cl, 1, false, false },
	{ gen_mov_mem, 4, true, true },
	{ gen_mov_narrow, 3, true, false },
	{ gen_lea, 3, true, false },
	{ gen_movx, 3, true, false },
	{ gen_imul, 2, true, false },
	{ gen_alu_mem, 3, true, true },
	{ gen_alu_rmw, 3, true, true },
	{ gen_push_pop, 2, true, true },
	{ gen_mov_mem_imm, 3, true, true },
	{ gen_nop, 2, true, false },
	{ gen_alu_acc, 3, true, false },
	{ gen_cmp_test_mem_imm, 3, true, true },
	{ gen_time, 1, true, false },
};

/* What may follow a flag setter whose then_read_flags is set: a SETcc, a
 * CMOVcc or an ADC/SBB, which read the flags it left. */
static generate *const flag_readers[] = { gen_setcc, gen_cmov, gen_adc_sbb };

/* Which forms insn_of draws: any (the straight-line programs only: their
 * stores may aim at the bytes already run, RIP_BEHIND), IN_RUNS (in_runs),
 * NO_ACCESS too (in_runs, never touching memory: no fault can stop a program
 * of them). */
enum forms { ANY_FORM, IN_RUNS, NO_ACCESS };

static bool drawn(const struct generator *g, enum forms forms)
{
	return forms == ANY_FORM || (g->in_runs && (forms == IN_RUNS || !g->accesses));
}
#define GENERATORS (sizeof(generators) / sizeof(generators[0]))

/* Append x; returns the registers it writes (bit r: register r; AH-BH count
 * as their register 0-3). */
static unsigned emit(struct program *p, const struct parts *x, bool long_mode)
{
	unsigned at = p->len;
	ck_assert(long_mode || x->rex == 0);
	if (x->seg)
		b(p, x->seg);
	if (x->opsize)
		b(p, 0x66);
	if (x->addrsize)
		b(p, 0x67);
	bool has_rex = long_mode && (x->rex != 0 || x->bare_rex);
	if (has_rex)
		b(p, 0x40 | x->rex);
	for (unsigned i = 0; i < x->op_len; i++)
		b(p, x->op[i]);
	unsigned ea_at = p->len;
	for (unsigned i = 0; i < x->ea_len; i++)
		b(p, x->ea[i]);
	for (unsigned i = 0; i < x->imm_len; i++)
		b(p, (unsigned)(x->imm >> (8 * i)));
	ck_assert_uint_le(p->len - at, INSN_MAX_LEN);
	if (x->rip_aim != RIP_FAR) {
		/* ModRM, then the displacement from the next instruction. */
		uint64_t end = p->len, tail = CODE_SIZE - 0x800 + x->rip_pick % 0x800, to;
		switch (x->rip_aim) {
		case RIP_DATA: to = DATA - 8 + x->rip_pick % (DATA_SIZE + 16); break;
		case RIP_CODE: to = CODE + (x->store ? tail : x->rip_pick % CODE_SIZE); break;
		default: to = CODE + (end >= 8 ? x->rip_pick % (end - 7) : tail); break;
		}
		uint32_t disp = (uint32_t)(to - (CODE + end));
		for (unsigned i = 0; i < 4; i++)
			p->bytes[ea_at + 1 + i] = (uint8_t)(disp >> (8 * i));
	}
	unsigned writes = x->also_writes;
	if (x->dst != REG_NONE)
		writes |= 1u << (x->dst_byte && !has_rex && x->dst >= 4 ? x->dst - 4 : x->dst);
	return writes;
}

/* An instruction of generator gen at the end of p (forms: what the program
 * may hold); known: what is known of the registers there, updated past it;
 * then, where gen says so and `reader` allows, a flag reader one time in
 * two. Returns the registers they write (emit). */
static unsigned insn_by(struct program *p, bool long_mode, enum forms forms, struct reg_kinds *known, generate *gen,
			bool reader)
{
	struct parts x = { .dst = REG_NONE, .bare_rex = (rnd() & 3) == 0 };
	struct draw d = { .long_mode = long_mode, .no_access = forms == NO_ACCESS, .ran_once = forms == ANY_FORM,
			  .at = p->len, .known = *known };
	gen(&x, &d);
	/* Without a SIB byte REX.X is ignored (SDM Vol.2 2.2.1.2). */
	if (long_mode && !x.sib && rnd() % 8 == 0)
		x.rex |= REX_X;
	unsigned writes = emit(p, &x, long_mode);
	known->address &= ~writes;
	known->small &= ~writes;
	if (x.then_read_flags && reader && (rnd() & 1))
		writes |= insn_by(p, long_mode, forms, known, flag_readers[rnd() % 3], false);
	return writes;
}

/* One random instruction of the forms `forms` at the end of p (insn_by). */
static unsigned insn_of(struct program *p, bool long_mode, enum forms forms, struct reg_kinds *known)
{
	unsigned total = 0;
	for (unsigned g = 0; g < GENERATORS; g++)
		total += drawn(&generators[g], forms) ? generators[g].weight : 0;
	unsigned pick = (unsigned)(rnd() % total), g = 0;
	for (;; g++) {
		unsigned w = drawn(&generators[g], forms) ? generators[g].weight : 0;
		if (pick < w)
			break;
		pick -= w;
	}
	return insn_by(p, long_mode, forms, known, generators[g].gen, true);
}

/* insn_of(p, long_mode, forms, known), or with gen not NULL insn_by(..., gen,
 * false), drawn again while it writes a register of keep (bit r: register r). */
static void insn_keeping_by(struct program *p, bool long_mode, enum forms forms, unsigned keep, struct reg_kinds *known,
			    generate *gen)
{
	unsigned at = p->len;
	struct reg_kinds before = *known;
	while ((gen ? insn_by(p, long_mode, forms, known, gen, false) : insn_of(p, long_mode, forms, known)) & keep) {
		p->len = at;
		*known = before;
	}
}

static void insn_keeping(struct program *p, bool long_mode, enum forms forms, unsigned keep, struct reg_kinds *known)
{
	insn_keeping_by(p, long_mode, forms, keep, known, NULL);
}

/* ---- running a program both ways ---- */

/* The state each run starts from, the code in place: regs, rIP at the
 * program, and an arbitrary lazy record (what it leaves behind must not
 * matter but through CF). */
/* The TSC where each run starts: both runs of a program read the same time,
 * its high half not 0. */
#define TSC_AT_START 0x123456789abcdef0ull

static void start(const uint64_t regs[16])
{
	memcpy(m.cpu.regs, regs, sizeof(m.cpu.regs));
	m.cpu.tsc_offset = TSC_AT_START - m.cpu.icount;
	m.cpu.lazy = (struct lazy_flags){ .op = LAZY_ADD, .size = 2, .result = 1, .src1 = 0xffffffff, .src2 = 2 };
	m.cpu.rip = 0x40000;
	m.cpu.halted = false;
}

/* start() at p's entry. */
static void begin(const struct program *p, const uint64_t regs[16])
{
	start(regs);
	m.cpu.rip = (p->base ? p->base : CODE) + p->entry;
}

/* The program at 40000H, then begin(): its pages rewritten, so that the
 * blocks decoded from them before are dropped. */
static void load(const struct program *p, const uint64_t regs[16])
{
	/* The whole pages: a store of the last program may have changed any of them. */
	static const uint8_t zero[CODE_SIZE];
	physmem_write_bytes(&m.pm, CODE, zero, sizeof(zero));
	physmem_write_bytes(&m.pm, CODE, p->bytes, p->len);
	cpu_notify_phys_write(&m.cpu, CODE, CODE_SIZE);
	begin(p, regs);
}

struct outcome {
	status_t status;
	uint64_t regs[16], rflags, time, rip;
	struct event seen;
	uint8_t data[DATA_SIZE];
	uint8_t code[CODE_SIZE];   /* the programs' pages: stores into code too */
};

static struct outcome blocks, steps;
static struct event seen;

static void finish(struct outcome *o, status_t st, uint64_t t0)
{
	flags_materialize(&m.cpu);
	o->status = st;
	memcpy(o->regs, m.cpu.regs, sizeof(o->regs));
	o->rflags = m.cpu.rflags;
	o->time = m.cpu.icount - t0;
	o->rip = m.cpu.rip;
	o->seen = seen;
	physmem_read_bytes(&m.pm, DATA, o->data, DATA_SIZE);
	physmem_read_bytes(&m.pm, CODE, o->code, CODE_SIZE);
}

/* Registers for a program: addresses in the data (some unaligned, some by a
 * page end), random values (outside RAM, non-canonical), small ones; returns
 * which are which. */
static struct reg_kinds random_regs(uint64_t regs[16], bool long_mode)
{
	uint64_t at = long_mode ? DATA : 0;      /* 32-bit: offsets in the segments */
	struct reg_kinds kinds = { 0, 0 };
	for (unsigned r = 0; r < 16; r++) {
		unsigned k = rnd() % 7;
		regs[r] = k < 3 ? at + 0x100 + rnd() % (DATA_SIZE - 0x200) : k == 3 ? at + 0x1000 * (1 + rnd() % 16) - 4
			: k == 4 ? rnd() & 0xff : k == 5 && !long_mode ? 0xc0000 + rnd() % DATA_SIZE : rnd();
		kinds.address |= (k < 4) << r;
		kinds.small |= (k == 4) << r;
	}
	return kinds;
}

/* From the state start() left, as blocks (translated runs): to the HLT, an
 * exception (stop_at_events) or limit instructions; into `blocks`. */
static void run_blocks(uint64_t limit)
{
	seen = (struct event){ .vector = 0xff };
	uint64_t t0 = m.cpu.icount;
	m.cpu.icount_limit = t0 + limit;
	status_t st = cpu_run(&m.cpu);
	ck_assert(st == ST_HALT || st == ST_STOP);
	finish(&blocks, st, t0);
	/* An instruction limit stops the run exactly there. */
	if (st == ST_STOP && blocks.seen.vector == 0xff)
		ck_assert_uint_eq(blocks.time, limit);
}

/* The same one instruction at a time (the exec forms, never translated);
 * into `steps`. */
static void run_steps(uint64_t limit)
{
	seen = (struct event){ .vector = 0xff };
	uint64_t t0 = m.cpu.icount;
	status_t st;
	do {
		m.cpu.icount_limit = m.cpu.icount + 1;
		st = cpu_run(&m.cpu);
	} while (st == ST_STOP && seen.vector == 0xff && m.cpu.icount - t0 < limit);
	finish(&steps, st, t0);
}

/* A run as blocks of program n (o) left the machine the single steps did. */
static void assert_same_as(const struct outcome *o, unsigned n)
{
	ck_assert_msg(o->status == steps.status, "program %u: status blocks %d, steps %d (rip blocks %llx, steps %llx)",
		      n, (int)o->status, (int)steps.status, (unsigned long long)o->rip, (unsigned long long)steps.rip);
	for (unsigned r = 0; r < 16; r++)
		ck_assert_msg(o->regs[r] == steps.regs[r], "program %u: register %u: blocks %llx, steps %llx", n, r,
			      (unsigned long long)o->regs[r], (unsigned long long)steps.regs[r]);
	ck_assert_msg(o->rflags == steps.rflags, "program %u: rflags blocks %llx, steps %llx", n,
		      (unsigned long long)o->rflags, (unsigned long long)steps.rflags);
	ck_assert_msg(o->time == steps.time, "program %u: time blocks %llu, steps %llu", n,
		      (unsigned long long)o->time, (unsigned long long)steps.time);
	ck_assert_msg(o->rip == steps.rip, "program %u: rip blocks %llx, steps %llx", n,
		      (unsigned long long)o->rip, (unsigned long long)steps.rip);
	ck_assert_uint_eq(o->seen.vector, steps.seen.vector);
	ck_assert_uint_eq(o->seen.error_code, steps.seen.error_code);
	ck_assert_uint_eq(o->seen.cr2, steps.seen.cr2);
	ck_assert_msg(!memcmp(o->data, steps.data, DATA_SIZE), "program %u: memory differs", n);
	ck_assert_msg(!memcmp(o->code, steps.code, CODE_SIZE), "program %u: code differs", n);
}

/* The two runs of program n left the same machine. */
static void assert_same(unsigned n)
{
	assert_same_as(&blocks, n);
}

/* Run the program as blocks, then again one instruction at a time, each
 * from the same registers and random data, and compare. */
static uint8_t data0[DATA_SIZE];

static void random_data(void)
{
	for (unsigned i = 0; i < DATA_SIZE; i += 8) {
		uint64_t v = rnd();
		memcpy(data0 + i, &v, 8);
	}
}

/* run_both in two halves: the blocks' run from new random data... */
static void run_blocks_of(const struct program *p, const uint64_t regs[16], uint64_t limit)
{
	random_data();
	physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
	load(p, regs);
	run_blocks(limit);
}

/* ...and the single steps' from the same, compared with it. */
static void run_steps_of(const struct program *p, const uint64_t regs[16], uint64_t limit, unsigned n)
{
	physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
	load(p, regs);
	run_steps(limit);
	assert_same(n);
}

static void run_both(const struct program *p, const uint64_t regs[16], uint64_t limit, unsigned n)
{
	run_blocks_of(p, regs, limit);
	run_steps_of(p, regs, limit, n);
}

/* On an x86-64 host, the block cached at physical address pa (after a run
 * of blocks) began with translated code: its first instruction's thread
 * handler lies in the translator's code area. */
static void assert_translated_at(uint64_t pa, unsigned n)
{
#if defined(__x86_64__)
	const struct icache *ic = m.cpu.icache;
	const struct block *blk = icache_find(m.cpu.icache, pa);
	ck_assert_ptr_nonnull(blk);
	uintptr_t h;
	memcpy(&h, &blk->insns[0].thread, sizeof(h));
	ck_assert_msg(blk->pa == pa && ic->jit_code && h >= (uintptr_t)ic->jit_code &&
			      h < (uintptr_t)ic->jit_code + ic->jit_used,
		      "program %u: the block at %llx did not run translated", n, (unsigned long long)pa);
#else
	(void)pa;
	(void)n;
#endif
}

/* run_both; the block at pa ran translated (assert_translated_at). */
static void run_both_translated(const struct program *p, const uint64_t regs[16], uint64_t limit, unsigned n,
				uint64_t pa)
{
	run_blocks_of(p, regs, limit);
	assert_translated_at(pa, n);
	run_steps_of(p, regs, limit, n);
}

/* Did a run store into p's pages (its bytes, or the zeros load() put after
 * them)? */
static bool code_changed(const struct program *p)
{
	static const uint8_t zero[CODE_SIZE];
	static uint8_t now[CODE_SIZE];
	physmem_read_bytes(&m.pm, CODE, now, CODE_SIZE);
	return memcmp(now, p->bytes, p->len) != 0 || memcmp(now + p->len, zero, CODE_SIZE - p->len) != 0;
}

/* run_both with the blocks run twice from the same state: the first run
 * links the blocks, the second follows the links in the translated code's
 * own checks (emu/jit.c emit_next_block: a translated run that reaches its
 * block's end goes on to the next block by a link); both must leave the
 * single steps' machine. The second runs over the blocks the first left,
 * unless it stored into its own code. */
static void run_linked(const struct program *p, const uint64_t regs[16], uint64_t limit, unsigned n)
{
	static struct outcome first;
	random_data();
	physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
	load(p, regs);
	run_blocks(limit);
	first = blocks;
	physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
	if (code_changed(p))
		load(p, regs);
	else
		begin(p, regs);
	run_blocks(limit);
	physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
	load(p, regs);
	run_steps(limit);
	assert_same_as(&first, n);
	assert_same(n);
}

/* 64-bit mode with only the program's pages and the data mapped (4 KiB pages
 * in a page table at 13000H; the rest not present): a store can reach
 * nothing the next run would see but those, which each run rewrites, and
 * stray accesses are page faults (side exits too). */
#define PT 0x13000u
static void long_mode_sparse(void)
{
	activate(&m);
	to64(&m);
	static const uint8_t zero[PAGE_SIZE];
	physmem_write_bytes(&m.pm, PT, zero, sizeof(zero));
	for (uint32_t pa = CODE; pa < CODE + CODE_SIZE; pa += PAGE_SIZE)
		physmem_write(&m.pm, PT + (pa >> 12) * 8, 8, pa | 3);
	for (uint32_t pa = DATA; pa < DATA + DATA_SIZE; pa += PAGE_SIZE)
		physmem_write(&m.pm, PT + (pa >> 12) * 8, 8, pa | 3);
	physmem_write(&m.pm, PD, 8, PT | 3);
	for (unsigned i = 1; i < 512; i++)
		physmem_write(&m.pm, PD + i * 8, 8, 0);
	tlb_flush_all(&m.cpu.tlb);
	m.cpu.seg[SR_FS].base = 0x800;
	m.cpu.seg[SR_GS].base = 0x40;
}

/* 32-bit code (paging off) whose data segments reach only the data or read
 * low memory: DS and SS based at the data with a limit (FFFAh) inside a page,
 * ES based so high that base + offset wraps at 4 GiB into the data (offsets
 * C0000H-CFFFFH), FS expand-down 1000H above it (offsets 8000H-FFFFH valid),
 * GS read-only, CS (flat, execute/read) reading low memory: out-of-limit
 * accesses and stores through GS or CS are #GP/#SS (SDM Vol.3 5.3), side
 * exits too; the wrap is SDM Vol.3 3.4's 32-bit linear address. */
static void protected_segments(void)
{
	struct cpu *c = &m.cpu;
	seg_load_descriptor(&c->seg[SR_DS], SEL_DATA, make_desc(DATA, 0xfffa, 0x93, 0x4));
	seg_load_descriptor(&c->seg[SR_SS], SEL_DATA, make_desc(DATA, 0xfffa, 0x93, 0x4));
	seg_load_descriptor(&c->seg[SR_ES], SEL_DATA, make_desc(DATA - 0xc0000, 0xcffff, 0x93, 0x4));
	seg_load_descriptor(&c->seg[SR_FS], SEL_DATA, make_desc(DATA - 0x7000, 0x7fff, 0x97, 0x0));
	seg_load_descriptor(&c->seg[SR_GS], SEL_DATA, make_desc(DATA, 0xffff, 0x91, 0x4));
}

/* The random programs' machine: 64-bit with the sparse page table, or 32-bit
 * with the data segments above; every exception stops the run. */
static void random_machine(bool long_mode)
{
	if (long_mode)
		long_mode_sparse();
	else
		protected_segments();
	stop_at_events(&m, &seen);
}

static void random_programs(bool long_mode)
{
	random_machine(long_mode);
	for (unsigned n = 0; n < 3000; n++) {
		uint64_t regs[16];
		struct reg_kinds known = random_regs(regs, long_mode);
		struct program p = { .len = 0 };
		for (unsigned i = 0; i < 40; i++)
			insn_of(&p, long_mode, ANY_FORM, &known);
		b(&p, 0xf4);
		run_both(&p, regs, 1000, n);
	}
}

/* On an x86-64 host the programs must have met the translator, or the
 * comparisons above checked the thread forms only. */
static void assert_translated(void)
{
#if defined(__x86_64__)
	ck_assert_uint_gt(jit_runs_translated(m.cpu.icache), 1000);
#endif
}

START_TEST(random_programs_32)
{
	random_programs(false);
	assert_translated();
}
END_TEST

START_TEST(random_programs_64)
{
	random_programs(true);
	assert_translated();
}
END_TEST

/* stc; L: inc edx; inc esi; cmp eax, edx; jne L; adc ebx, 0; hlt: the
 * INCs' CF would come from before the loop's run (the STC's, the CMP's of
 * the last iteration), which plan_flags cannot know, but the CMP replaces it
 * before anything reads it: the loop's block is translated. */
START_TEST(loop_starting_with_inc)
{
	static const uint8_t code[] = { 0xf9, 0xff, 0xc2, 0xff, 0xc6, 0x39, 0xd0, 0x75, 0xf8,
					0x83, 0xd3, 0x00, 0xf4 };
	physmem_write_bytes(&m.pm, 0x40000, code, sizeof(code));
	m.cpu.regs[R_AX] = 50;
	m.cpu.regs[R_BX] = 7;
	m.cpu.regs[R_DX] = 0;
	m.cpu.regs[R_SI] = 0xfffffff0u;
	m.cpu.rip = 0x40000;
	m.cpu.icount_limit = m.cpu.icount + 1000;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(m.cpu.regs[R_DX], 50);
	ck_assert_uint_eq(m.cpu.regs[R_SI], 0x22);          /* wrapped, CF untouched */
	ck_assert_uint_eq(m.cpu.regs[R_BX], 7);             /* the last CMP: equal, CF 0 */
	ck_assert_uint_eq(m.cpu.rip, 0x40000 + sizeof(code));
#if defined(__x86_64__)
	/* The loop's block enters translated code. */
	const struct icache *ic = m.cpu.icache;
	const struct block *loop = icache_find(m.cpu.icache, 0x40001);
	ck_assert_ptr_nonnull(loop);
	const uint8_t *entry = (const uint8_t *)(uintptr_t)loop->insns[0].thread;
	ck_assert(ic->jit_code && entry >= ic->jit_code && entry < ic->jit_code + ic->jit_used);
	/* The loop's run holds its JNE: no run of the JNE alone behind it. */
	const uint8_t *jne = (const uint8_t *)(uintptr_t)loop->insns[3].thread;
	ck_assert(!(jne >= ic->jit_code && jne < ic->jit_code + ic->jit_used));
#endif
}
END_TEST

/* 1: add eax, ebx; shl ebx, 1; dec ecx; mov edx, eax; adc esi, 0; test ecx, ecx; jnz 1b; hlt:
 * the run is ADD..MOV: the DEC keeps the SHL's CF, which ADC adds. */
START_TEST(loop_with_carry_chain)
{
	static const uint8_t code[] = { 0x01, 0xd8, 0xd1, 0xe3, 0xff, 0xc9, 0x89, 0xc2, 0x83, 0xd6, 0x00,
					0x85, 0xc9, 0x75, 0xf1, 0xf4 };
	physmem_write_bytes(&m.pm, 0x40000, code, sizeof(code));
	m.cpu.regs[R_AX] = 0;
	m.cpu.regs[R_BX] = 0x80000001u;
	m.cpu.regs[R_CX] = 40;
	m.cpu.regs[R_SI] = 0;
	m.cpu.rip = 0x40000;
	unsigned long before = jit_runs_translated(m.cpu.icache);
	m.cpu.icount_limit = m.cpu.icount + 1000;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	/* EBX: 80000001h, 2, 4, ... 2^31, then 0: the SHL carries out twice,
	 * at 80000001h and at 2^31; EAX sums them modulo 2^32. */
	ck_assert_uint_eq(m.cpu.regs[R_SI], 2);
	ck_assert_uint_eq(m.cpu.regs[R_BX], 0);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 0x7fffffff);
	ck_assert_uint_eq(m.cpu.regs[R_DX], m.cpu.regs[R_AX]);
#if defined(__x86_64__)
	ck_assert_uint_gt(jit_runs_translated(m.cpu.icache), before);
#else
	(void)before;
#endif
}
END_TEST

/* add eax, ebx; shl ecx, 5; hlt, run three times from 40000H with jit_hot
 * = 3: a block runs as its thread forms until its jit_hot-th entry, which
 * translates it (emu/jit.h jit_enter): the count of translated runs stays
 * after the first and second runs and grows at the third; each run leaves
 * the machine the single steps do. */
/* ---- time and hints in runs ---- */

/* Xen's delay loop (__udelay), 32-bit: rdtsc; mov ecx, eax; 1: pause;
 * lfence; rdtsc; sub eax, ecx; cmp eax, ebx; jb 1b; hlt. The loop's block
 * starts at the PAUSE. */
static const uint8_t delay_loop[] = { 0x0f, 0x31, 0x89, 0xc1, 0xf3, 0x90, 0x0f, 0xae, 0xe8, 0x0f, 0x31,
				      0x29, 0xc8, 0x39, 0xd8, 0x72, 0xf3, 0xf4 };
#define DELAY_LOOP_AT 4u
/* Rounds of 6 instructions, the loop's RDTSC the third: from a TSC of t at
 * the first RDTSC, round k reads t + 4 + 6k; the loop ends at the first
 * k with 4 + 6k >= ticks. */
#define DELAY_TICKS 3000u
#define DELAY_ROUNDS ((DELAY_TICKS - 4 + 5) / 6 + 1)

/* Run the delay loop from a TSC whose low half wraps during it. */
static status_t run_delay_loop(void)
{
	physmem_write_bytes(&m.pm, CODE, delay_loop, sizeof(delay_loop));
	cpu_notify_phys_write(&m.cpu, CODE, sizeof(delay_loop));
	m.cpu.regs[R_BX] = DELAY_TICKS;
	m.cpu.rip = CODE;
	m.cpu.halted = false;
	m.cpu.tsc_offset = 0x00000007fffff800ull - m.cpu.icount;
	m.cpu.icount_limit = m.cpu.icount + 100000;
	return cpu_run(&m.cpu);
}

/* What the loop leaves: EAX the last round's ticks, EDX the high half
 * after the wrap (SDM Vol.2 RDTSC: EDX:EAX), ECX the first read's low
 * half; the time to the HLT. */
static void assert_delay_loop_done(uint64_t t0)
{
	ck_assert_uint_eq(m.cpu.regs[R_AX], 4 + 6 * (DELAY_ROUNDS - 1));
	ck_assert_uint_eq(m.cpu.regs[R_DX], 8);
	ck_assert_uint_eq(m.cpu.regs[R_CX], 0xfffff800u);
	ck_assert_uint_eq(m.cpu.icount - t0, 2 + 6 * DELAY_ROUNDS + 1);
}

/* The loop runs translated from its 16th round (the block's RDTSC reads
 * the block's count plus its place, plus the offset) to the result the
 * exec forms give, with no side exit. */
START_TEST(delay_loop_in_runs)
{
	uint64_t t0 = m.cpu.icount;
	unsigned long before = jit_side_exits(m.cpu.icache);
	ck_assert_int_eq(run_delay_loop(), ST_HALT);
	assert_delay_loop_done(t0);
	assert_translated_at(CODE + DELAY_LOOP_AT, 0);
#if defined(__x86_64__)
	ck_assert_uint_eq(jit_side_exits(m.cpu.icache) - before, 0);
#else
	(void)before;
#endif
}
END_TEST

/* With CR4.TSD set the RDTSC's handler decides (a #GP(0) at CPL > 0, SDM
 * Vol.2 RDTSC): every translated round leaves for it, at CPL 0 to the same
 * result. */
START_TEST(delay_loop_with_tsd_leaves_for_the_handler)
{
	ck_assert_int_eq(run_delay_loop(), ST_HALT);   /* translated now */
	m.cpu.cr4 |= CR4_TSD;
	uint64_t t0 = m.cpu.icount;
	unsigned long before = jit_side_exits(m.cpu.icache);
	ck_assert_int_eq(run_delay_loop(), ST_HALT);
	assert_delay_loop_done(t0);
#if defined(__x86_64__)
	ck_assert_uint_eq(jit_side_exits(m.cpu.icache) - before, DELAY_ROUNDS);
#else
	(void)before;
#endif
}
END_TEST

/* A hypervisor model that counts the RDTSC and PAUSE intercepts it is
 * asked, and intercepts nothing. */
struct asked {
	unsigned rdtsc, pause;
};

static status_t count_time_intercepts(void *ctx, struct cpu *cpu, struct exit_record *rec)
{
	(void)cpu;
	struct asked *a = ctx;
	a->rdtsc += rec->kind == IK_RDTSC;
	a->pause += rec->kind == IK_PAUSE;
	return ST_OK;
}

/* In a guest, each RDTSC and PAUSE is asked of the hypervisor (APM2 15.9,
 * 15.14.4; SDM Vol.3 25.1.3), translated or not. */
START_TEST(delay_loop_in_a_guest_asks_each_round)
{
	ck_assert_int_eq(run_delay_loop(), ST_HALT);   /* translated now */
	static const struct hv_model model = { .name = "count-time", .intercept = count_time_intercepts };
	struct asked asked = { 0, 0 };
	m.cpu.hv = &model;
	m.cpu.hv_ctx = &asked;
	m.cpu.in_guest = true;
	uint64_t t0 = m.cpu.icount;
	ck_assert_int_eq(run_delay_loop(), ST_HALT);
	assert_delay_loop_done(t0);
	ck_assert_uint_eq(asked.rdtsc, 1 + DELAY_ROUNDS);
	ck_assert_uint_eq(asked.pause, DELAY_ROUNDS);
}
END_TEST

/* 1: lfence; dec ecx; jnz 1b; hlt. Translated, then CPUID loses SSE2: the
 * next LFENCE is #UD (SDM Vol.2 LFENCE). */
START_TEST(fence_without_sse2_is_ud_in_runs)
{
	static const uint8_t code[] = { 0x0f, 0xae, 0xe8, 0xff, 0xc9, 0x75, 0xf9, 0xf4 };
	stop_at_events(&m, &seen);
	physmem_write_bytes(&m.pm, CODE, code, sizeof(code));
	m.cpu.regs[R_CX] = 100;
	m.cpu.rip = CODE;
	m.cpu.icount_limit = m.cpu.icount + 100000;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(m.cpu.regs[R_CX], 0);
	m.cpu.leaf1_edx &= ~(1u << CPUID_SSE2);
	m.cpu.regs[R_CX] = 100;
	m.cpu.rip = CODE;
	m.cpu.halted = false;
	seen = (struct event){ .vector = 0xff };
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_uint_eq(seen.vector, EXC_UD);
	ck_assert_uint_eq(m.cpu.regs[R_CX], 100);
}
END_TEST

/* 1: pause; dec ecx; jnz 1b; hlt. Translated, then CPUs take turns: the
 * first PAUSE ends this CPU's turn (emu/wait.c op_pause), the DEC after it
 * not run. */
START_TEST(pause_ends_the_turn_in_runs)
{
	static const uint8_t code[] = { 0xf3, 0x90, 0xff, 0xc9, 0x75, 0xfa, 0xf4 };
	physmem_write_bytes(&m.pm, CODE, code, sizeof(code));
	m.cpu.regs[R_CX] = 100;
	m.cpu.rip = CODE;
	m.cpu.icount_limit = m.cpu.icount + 100000;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	m.cpu.halt_yields = true;
	m.cpu.regs[R_CX] = 100;
	m.cpu.rip = CODE;
	m.cpu.halted = false;
	uint64_t t0 = m.cpu.icount;
	m.cpu.icount_limit = t0 + 100000;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert(m.cpu.turn_yielded);
	ck_assert_uint_eq(m.cpu.icount - t0, 1);
	ck_assert_uint_eq(m.cpu.regs[R_CX], 100);
}
END_TEST

START_TEST(block_translated_when_hot)
{
	static const uint8_t code[] = { 0x01, 0xd8, 0xc1, 0xe1, 0x05, 0xf4 };
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	uint64_t regs[16] = { [R_AX] = 0x7fffffff, [R_BX] = 1, [R_CX] = 0x0c000001 };
	m.cpu.icache->jit_hot = 3;
	/* The single steps enter the block at 40000H too: rewriting the page
	 * after them drops it, and the first run below decodes it anew. */
	load(&p, regs);
	run_steps(100);
	ck_assert_int_eq(steps.status, ST_HALT);
	ck_assert_uint_eq(steps.regs[R_AX], 0x80000000u);
	ck_assert_uint_eq(steps.regs[R_CX], 0x80000020u);
	load(&p, regs);
	for (unsigned k = 1; k <= 3; k++) {
		unsigned long before = jit_runs_translated(m.cpu.icache);
		start(regs);
		run_blocks(100);
		assert_same(k);
#if defined(__x86_64__)
		if (k < 3)
			ck_assert_uint_eq(jit_runs_translated(m.cpu.icache), before);
		else
			ck_assert_uint_gt(jit_runs_translated(m.cpu.icache), before);
#else
		(void)before;
#endif
	}
	/* The fixture's setup sets 1 again for each case (machine_init_bare);
	 * this leaves no other value behind all the same. */
	m.cpu.icache->jit_hot = 1;
}
END_TEST

/* Two blocks in a loop, each ending in a branch to the other:
 *   A: add eax, ecx; xor edx, eax; mov [ebx], edx; dec esi; jz out
 *   B: add ecx, imm8; add eax, ecx; mov edi, edx; jmp A
 *   out: hlt
 * A's run holds EAX, ECX, EDX, EBX, ESI in the host's pool in that order,
 * B's ECX, EAX, EDI, EDX: a direct link from A into B hands ECX and EAX over
 * in a cycle, EDX along a chain, and EDI from memory (emu/jit.c
 * link_hand_over). The immediate of B's ADD is at B_IMM. */
#define TWO_BLOCKS_ROUNDS 300
#define B_IMM 0x0c
static struct program two_blocks(uint8_t imm)
{
	static const uint8_t code[] = { 0x01, 0xc8, 0x31, 0xc2, 0x89, 0x13, 0xff, 0xce, 0x74, 0x09,
					0x83, 0xc1, 0x03, 0x01, 0xc8, 0x89, 0xd7, 0xeb, 0xed, 0xf4 };
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	p.bytes[B_IMM] = imm;
	return p;
}

static void two_blocks_regs(uint64_t regs[16], bool long_mode)
{
	memset(regs, 0, 16 * sizeof(regs[0]));
	regs[R_AX] = 0x12345678;
	regs[R_CX] = 0x9abcdef;
	regs[R_DX] = 0x55;
	regs[R_BX] = long_mode ? DATA + 0x100 : 0x100;
	regs[R_SI] = TWO_BLOCKS_ROUNDS;
	regs[R_DI] = 0x77;
}

/* The loop's blocks, translated (jit_hot 1), link to each other directly
 * once their links have held in translated code: two direct links, written
 * once, after which the rounds take them and the machine is the single
 * steps'; a second run from the start writes none again. */
static void direct_links_between_blocks(bool long_mode)
{
	random_machine(long_mode);
	struct program p = two_blocks(3);
	uint64_t regs[16];
	two_blocks_regs(regs, long_mode);
	unsigned long before = jit_direct_links(m.cpu.icache);
	run_blocks_of(&p, regs, 10 * TWO_BLOCKS_ROUNDS);
	ck_assert_int_eq(blocks.status, ST_HALT);
	assert_translated_at(CODE, 0);
	assert_translated_at(CODE + 0x0a, 0);
#if defined(__x86_64__)
	unsigned long written = jit_direct_links(m.cpu.icache) - before;
	ck_assert_uint_ge(written, 2);
	ck_assert_uint_le(written, 3);      /* A -> B, B -> A; A -> out at most */
#endif
	static struct outcome first;
	first = blocks;
	physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
	begin(&p, regs);
	run_blocks(10 * TWO_BLOCKS_ROUNDS);
#if defined(__x86_64__)
	ck_assert_uint_eq(jit_direct_links(m.cpu.icache) - before, written);
#endif
	run_steps_of(&p, regs, 10 * TWO_BLOCKS_ROUNDS, 1);
	assert_same_as(&first, 0);
	/* The loop did its rounds: ECX grew by 3 each. */
	ck_assert_uint_eq(steps.regs[R_CX], 0x9abcdef + 3 * (TWO_BLOCKS_ROUNDS - 1));
}

START_TEST(direct_links_between_blocks_32)
{
	direct_links_between_blocks(false);
}
END_TEST

START_TEST(direct_links_between_blocks_64)
{
	direct_links_between_blocks(true);
}
END_TEST

/* A loop whose block names more registers than the host's pool holds (11):
 * its first run ends where the pool is full and goes straight into the
 * next run after that one's pushes (emu/jit.c join_runs), with as many
 * pushes (the block's end: all six) or, before an instruction no run
 * holds (XCHG rBX, rAX), with fewer (its pops first). Each round as the
 * single steps leave it, the host's callee-saved registers as they were.
 *   1: add rax, rbx; add rcx, rdx; add rsi, rdi; add r8, r9; add r10, r11;
 *      add r12, r13; add r14, r15; xor rax, r14; imul rbx, rcx;
 *      [add rax, 1; add rbx, 2; xchg rbx, rax; add rcx, 3;]
 *      sub rbp, 1; jnz 1b
 *   hlt */
static void runs_joined(bool fewer_pushes)
{
	random_machine(true);
	struct program p = { .len = 0 };
	PUT(&p, 0x48, 0x01, 0xd8, 0x48, 0x01, 0xd1, 0x48, 0x01, 0xfe, 0x4d, 0x01, 0xc8, 0x4d, 0x01, 0xda,
	    0x4d, 0x01, 0xec, 0x4d, 0x01, 0xfe, 0x4c, 0x31, 0xf0, 0x48, 0x0f, 0xaf, 0xd9);
	if (fewer_pushes)
		PUT(&p, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xc3, 0x02, 0x48, 0x93, 0x48, 0x83, 0xc1, 0x03);
	PUT(&p, 0x48, 0x83, 0xed, 0x01, 0x75, (uint8_t)(0x100 - (p.len + 6)), 0xf4);
	uint64_t regs[16];
	for (unsigned g = 0; g < 16; g++)
		regs[g] = rnd();
	regs[R_SP] = DATA + 0x800;
	regs[R_BP] = 200;
	unsigned long before = jit_joined_runs(m.cpu.icache);
	run_both_translated(&p, regs, 100000, 0, CODE);
	ck_assert_int_eq(blocks.status, ST_HALT);
	ck_assert_uint_eq(steps.regs[R_BP], 0);
#if defined(__x86_64__)
	ck_assert_uint_ge(jit_joined_runs(m.cpu.icache) - before, 1);
#endif
}

START_TEST(runs_joined_with_as_many_pushes)
{
	runs_joined(false);
}
END_TEST

START_TEST(runs_joined_with_fewer_pushes)
{
	runs_joined(true);
}
END_TEST

/* A direct link into a block whose code has changed since (a store of the
 * machine's, which drops the block: a new generation) is not taken: the
 * next round runs the new code, B's new immediate (SDM Vol.3 11.6), as the
 * single steps of the new program do. */
START_TEST(direct_link_to_a_changed_block)
{
	random_machine(true);
	struct program p = two_blocks(3), changed = two_blocks(5);
	uint64_t regs[16];
	two_blocks_regs(regs, true);
	run_blocks_of(&p, regs, 10 * TWO_BLOCKS_ROUNDS);
	ck_assert_int_eq(blocks.status, ST_HALT);
	/* Only B's byte: A, its code and its direct links stay. */
	physmem_write_bytes(&m.pm, CODE + B_IMM, &changed.bytes[B_IMM], 1);
	cpu_notify_phys_write(&m.cpu, CODE + B_IMM, 1);
	ck_assert_ptr_nonnull(icache_find(m.cpu.icache, CODE));
	physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
	begin(&changed, regs);
	run_blocks(10 * TWO_BLOCKS_ROUNDS);
	run_steps_of(&changed, regs, 10 * TWO_BLOCKS_ROUNDS, 0);
	ck_assert_uint_eq(steps.regs[R_CX], 0x9abcdef + 5 * (TWO_BLOCKS_ROUNDS - 1));
}
END_TEST

/* Instruction limits that end a run between two directly linked blocks or
 * within one: the direct link tests the deadline beyond both blocks' ends
 * (as thread_next_block), so the run stops at the limit exactly, with the
 * single steps' machine. */
START_TEST(direct_links_stop_at_the_limit)
{
	random_machine(true);
	struct program p = two_blocks(3);
	uint64_t regs[16];
	two_blocks_regs(regs, true);
	run_blocks_of(&p, regs, 10 * TWO_BLOCKS_ROUNDS);
	for (uint64_t limit = 200; limit < 230; limit++) {
		physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
		begin(&p, regs);
		run_blocks(limit);
		ck_assert_int_eq(blocks.status, ST_STOP);
		run_steps_of(&p, regs, limit, (unsigned)limit);
	}
}
END_TEST

/* The code area full: a block about to be translated finds no room, stays
 * as its thread forms, and the run loop empties the decoded cache and the
 * area where no block runs (emu/run.c cpu_run); the next blocks are decoded
 * and translated anew, the machine as the single steps leave it. */
START_TEST(code_area_full_starts_again)
{
	static const uint8_t code[] = { 0x01, 0xd8, 0xc1, 0xe1, 0x05, 0xeb, 0x00, 0x01, 0xd8, 0x29, 0xc1, 0xf4 };
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	uint64_t regs[16] = { [R_AX] = 0x7fffffff, [R_BX] = 1, [R_CX] = 0x0c000001 };
	load(&p, regs);
	run_steps(100);
	ck_assert_int_eq(steps.status, ST_HALT);
#if defined(__x86_64__)
	/* A first translation maps the area; then it is "full". */
	load(&p, regs);
	run_blocks(100);
	assert_same(0);
	ck_assert_ptr_nonnull(m.cpu.icache->jit_code);
	m.cpu.icache->jit_used = (size_t)1 << 40;
	load(&p, regs);
	unsigned long before = jit_runs_translated(m.cpu.icache);
	run_blocks(100);
	assert_same(1);
	/* The first block found no room; the flush came before the second,
	 * which was translated into the emptied area. */
	ck_assert(!m.cpu.icache->jit_full);
	ck_assert_uint_lt(m.cpu.icache->jit_used, 4096);
	ck_assert_uint_gt(jit_runs_translated(m.cpu.icache), before);
	load(&p, regs);
	run_blocks(100);
	assert_same(2);
#endif
}
END_TEST

/* A loop closing its own block: a body of the forms a run may hold that
 * leave ECX alone (insn_of says which registers each writes: redrawn if
 * ECX, CL or CH), at most LOOP_BODY_MAX bytes so that the rel8 back reaches,
 * then DEC ECX; JNZ, or DEC ECX; MOV EDX, ECX; SHR EDX, 31; JZ (the loop
 * runs while ECX >= 0); then HLT. */
#define LOOP_BODY_MAX 112
static void loop_program(struct program *p, bool long_mode, bool jz, struct reg_kinds known)
{
	unsigned body = 1 + (unsigned)(rnd() % 12);
	for (unsigned i = 0; i < body; i++) {
		unsigned at = p->len;
		insn_keeping(p, long_mode, IN_RUNS, 1u << R_CX, &known);
		if (p->len > LOOP_BODY_MAX) {
			p->len = at;
			break;
		}
	}
	b(p, 0xff);
	b(p, 0xc9);                        /* dec ecx */
	if (jz) {
		static const uint8_t tail[] = { 0x89, 0xca, 0xc1, 0xea, 0x1f };   /* mov edx, ecx; shr edx, 31 */
		memcpy(p->bytes + p->len, tail, sizeof(tail));
		p->len += sizeof(tail);
	}
	b(p, jz ? 0x74 : 0x75);
	b(p, (uint8_t)-(int)(p->len + 1));
	b(p, 0xf4);
}

static void random_loops(bool long_mode)
{
	random_machine(long_mode);
	for (unsigned n = 0; n < 600; n++) {
		uint64_t regs[16];
		struct reg_kinds known = random_regs(regs, long_mode);
		regs[R_CX] = 1 + rnd() % 300;
		known.address &= ~(1u << R_CX);
		known.small &= ~(1u << R_CX);
		struct program p = { .len = 0 };
		loop_program(&p, long_mode, n & 1, known);
		/* To the end, or to a limit somewhere inside. */
		run_both(&p, regs, (n & 2) ? 1 + rnd() % 2000 : 100000, n);
	}
}

/* random_loops, and the translator met them (> 500 runs translated). */
static void random_loops_translated(bool long_mode)
{
	unsigned long before = jit_runs_translated(m.cpu.icache);
	random_loops(long_mode);
#if defined(__x86_64__)
	ck_assert_uint_gt(jit_runs_translated(m.cpu.icache) - before, 500);
#else
	(void)before;
#endif
}

START_TEST(random_loops_32)
{
	random_loops_translated(false);
}
END_TEST

START_TEST(random_loops_64)
{
	random_loops_translated(true);
}
END_TEST

/* ---- programs whose blocks branch to each other ---- */

/* A branchy program: segments, each 1-8 instructions of the forms a run may
 * hold (in two programs in three none that touches memory: nothing faults,
 * the program runs its whole chain; one program in eight has a segment of
 * 33-62: a block that ends by its count and falls through), then one of:
 * nothing (the next segment follows), a Jcc rel8 of any condition (70-7F)
 * or a JMP rel8 (EB) to the start of the next segment or of the one after
 * it (the next where rel8 does not reach), their rel32 forms (0F 80-8F, E9)
 * one time in four; in a program with a loop counter (one in three),
 * sometimes DEC or SUB 1 of the counter and JG or JNS back to the start of
 * this segment or an earlier one (JNZ where it is the program's only such
 * branch). The counter (1-8) only goes down, at one width per program: once
 * JG or JNS falls through, every later one does, and the program ends. Then
 * HLT. One program in four starts shortly before the page boundary at
 * 41000H and runs on into the second page, mostly with register
 * instructions of known lengths that end exactly at the boundary (a block
 * ends there and falls through), else with whatever instruction comes (one
 * may cross it). */
#define SEGMENTS_MAX 10

struct branchy {
	struct program p;
	bool long_mode;
	enum forms forms;          /* IN_RUNS or NO_ACCESS */
	bool to_boundary;          /* instructions end exactly at 41000H */
	unsigned counter;          /* the loops' counter register (the random
				      instructions leave it alone), or REG_NONE */
	const uint8_t *count_down; /* its DEC or SUB 1, one width per program */
	unsigned count_down_len;
	unsigned loops_left;       /* backward branches still to come at most */
	bool jnz;                  /* the only one takes JNZ */
	struct reg_kinds known;
	unsigned start[SEGMENTS_MAX + 1];   /* segment offsets; [n]: the HLT */
	struct {
		unsigned at, width, seg;   /* a displacement to patch: segment seg's start */
	} fix[SEGMENTS_MAX];
	unsigned n_fix;
};

/* Register instructions of known lengths up to the page boundary at
 * 41000H: MOV r32, r32 (89 /r, 2 bytes), ADD..CMP r32, imm8 (83 /n ib, 3),
 * in 32-bit code INC r32 (40+r, 1); none writes ESP or EBP. */
static void fill_to_boundary(struct branchy *g)
{
	static const uint8_t dsts[] = { R_AX, R_CX, R_DX, R_BX, R_SI, R_DI };
	static const uint8_t ext[] = { 0, 1, 4, 5, 6, 7 };
	while (g->p.len < PAGE_SIZE) {
		unsigned left = PAGE_SIZE - g->p.len, d = dsts[rnd() % sizeof(dsts)];
		if (left == 1) {
			ck_assert(!g->long_mode);
			b(&g->p, 0x40 + d);
		} else if (left == 3 || (left > 4 && (rnd() & 1))) {
			b(&g->p, 0x83);
			b(&g->p, 0xc0 | (unsigned)ext[rnd() % sizeof(ext)] << 3 | d);
			b(&g->p, (unsigned)rnd());
		} else {
			b(&g->p, 0x89);
			b(&g->p, 0xc0 | (unsigned)(rnd() & 7) << 3 | d);
		}
		g->known.address &= ~(1u << d);
		g->known.small &= ~(1u << d);
	}
}

/* count instructions of the forms a run may hold, none writing the counter;
 * where the boundary is near (less than the longest instruction), the
 * filler up to it first. */
static void segment_body(struct branchy *g, unsigned count)
{
	unsigned keep = g->counter == REG_NONE ? 0 : 1u << g->counter;
	for (unsigned i = 0; i < count; i++) {
		unsigned left = g->p.len < PAGE_SIZE ? PAGE_SIZE - g->p.len : 0;
		if (g->to_boundary && left > 0 && left <= INSN_MAX_LEN + 1 && (left > 1 || !g->long_mode))
			fill_to_boundary(g);
		insn_keeping(&g->p, g->long_mode, g->forms, keep, &g->known);
	}
}

/* A Jcc (a random condition) or JMP, rel8 or rel32, to segment seg's start:
 * its displacement patched once that is known (patch_forward). */
static void branch_forward(struct branchy *g, bool jcc, bool rel32, unsigned seg)
{
	unsigned cc = (unsigned)(rnd() & 15);
	if (rel32 && jcc) {
		b(&g->p, 0x0f);
		b(&g->p, 0x80 | cc);
	} else {
		b(&g->p, rel32 ? 0xe9 : jcc ? 0x70 | cc : 0xeb);
	}
	unsigned width = rel32 ? 4 : 1;
	g->fix[g->n_fix].at = g->p.len;
	g->fix[g->n_fix].width = width;
	g->fix[g->n_fix++].seg = seg;
	for (unsigned k = 0; k < width; k++)
		b(&g->p, 0);
}

/* The counter counted down, then JG, JNS or JNZ (rel8 mostly where it
 * reaches, else rel32) back to segment seg's start. */
static void branch_back(struct branchy *g, unsigned seg)
{
	for (unsigned k = 0; k < g->count_down_len; k++)
		b(&g->p, g->count_down[k]);
	unsigned cc = g->jnz ? 0x5 : rnd() & 1 ? 0xf : 0x9;
	int64_t rel = (int64_t)g->start[seg] - (g->p.len + 2);
	if (rel >= -128 && rnd() % 4) {
		b(&g->p, 0x70 | cc);
		b(&g->p, (unsigned)rel);
	} else {
		rel = (int64_t)g->start[seg] - (g->p.len + 6);
		b(&g->p, 0x0f);
		b(&g->p, 0x80 | cc);
		for (unsigned k = 0; k < 4; k++)
			b(&g->p, (unsigned)(rel >> (8 * k)));
	}
	g->loops_left--;
}

/* The forward displacements: rel8 that does not reach the segment after
 * next goes to the next, which starts right after the branch (rel 0). */
static void patch_forward(struct branchy *g)
{
	for (unsigned i = 0; i < g->n_fix; i++) {
		unsigned at = g->fix[i].at, width = g->fix[i].width;
		int64_t rel = (int64_t)g->start[g->fix[i].seg] - (at + width);
		if (width == 1 && rel > 127)
			rel = 0;
		for (unsigned k = 0; k < width; k++)
			g->p.bytes[at + k] = (uint8_t)(rel >> (8 * k));
	}
}

/* A branchy program (above) and the registers it starts with (random_regs;
 * the counter 1-8). */
static void branchy_program(struct branchy *g, bool long_mode, uint64_t regs[16])
{
	/* DEC EBP (4D, FF /1), SUB EBP, 1; DEC R15, R15D; SUB R15, R15D, 1. */
	static const uint8_t down32[3][3] = { { 0x4d }, { 0xff, 0xcd }, { 0x83, 0xed, 0x01 } };
	static const uint8_t down64[4][4] = { { 0x49, 0xff, 0xcf }, { 0x41, 0xff, 0xcf },
					      { 0x49, 0x83, 0xef, 0x01 }, { 0x41, 0x83, 0xef, 0x01 } };
	memset(g, 0, sizeof(*g));
	g->long_mode = long_mode;
	g->forms = rnd() % 3 == 0 ? IN_RUNS : NO_ACCESS;
	g->known = random_regs(regs, long_mode);
	g->counter = REG_NONE;
	if (rnd() % 3 == 0) {
		g->counter = long_mode ? R_R15 : R_BP;
		regs[g->counter] = 1 + rnd() % 8;
		g->known.address &= ~(1u << g->counter);
		g->known.small &= ~(1u << g->counter);
		unsigned form = (unsigned)(rnd() % (long_mode ? 4 : 3));
		g->count_down = long_mode ? down64[form] : down32[form];
		g->count_down_len = long_mode ? 3 + form / 2 : 1 + form;
		g->jnz = rnd() % 3 == 0;
		g->loops_left = g->jnz ? 1 : 3;
	}
	if (rnd() % 4 == 0) {
		g->p.entry = g->p.len = PAGE_SIZE - 8 - (unsigned)(rnd() % 120);
		g->to_boundary = rnd() % 4 != 0;
	}
	unsigned n = 2 + (unsigned)(rnd() % (SEGMENTS_MAX - 1));
	unsigned long_one = rnd() % 8 == 0 ? (unsigned)(rnd() % n) : n;
	for (unsigned i = 0; i < n; i++) {
		g->start[i] = g->p.len;
		segment_body(g, i == long_one ? 33 + (unsigned)(rnd() % 30) : 1 + (unsigned)(rnd() % 8));
		if (g->loops_left && rnd() % 3 == 0) {
			branch_back(g, (unsigned)(rnd() % (i + 1)));
			continue;
		}
		unsigned kind = (unsigned)(rnd() % 8), to = i + 1 + (unsigned)(rnd() & 1);
		/* A Jcc right after a CMP/TEST m, imm or an accumulator form,
		 * one time in three: its condition from their flags. */
		if (kind >= 2 && kind < 5 && rnd() % 3 == 0) {
			unsigned keep = g->counter == REG_NONE ? 0 : 1u << g->counter;
			insn_keeping_by(&g->p, long_mode, g->forms, keep, &g->known,
					g->forms == IN_RUNS && (rnd() & 1) ? gen_cmp_test_mem_imm : gen_alu_acc);
		}
		if (kind >= 2)
			branch_forward(g, kind < 5, rnd() % 4 == 0, to < n ? to : n);
	}
	g->start[n] = g->p.len;
	b(&g->p, 0xf4);
	ck_assert_uint_lt(g->p.len, CODE_SIZE);
	patch_forward(g);
}

/* Branchy programs, each run to its HLT (or a fault) or stopped by a random
 * instruction limit within its chain, as blocks twice (run_linked) and in
 * single steps. */
static void random_branchy_programs(bool long_mode)
{
	static struct branchy g;
	random_machine(long_mode);
	unsigned long before = jit_runs_translated(m.cpu.icache);
	for (unsigned n = 0; n < 2500; n++) {
		uint64_t regs[16];
		branchy_program(&g, long_mode, regs);
		run_linked(&g.p, regs, n % 3 == 0 ? 1 + rnd() % 40 : 100000, n);
	}
#if defined(__x86_64__)
	ck_assert_uint_gt(jit_runs_translated(m.cpu.icache) - before, 10000);
#else
	(void)before;
#endif
}

START_TEST(random_branchy_programs_32)
{
	random_branchy_programs(false);
}
END_TEST

START_TEST(random_branchy_programs_64)
{
	random_branchy_programs(true);
}
END_TEST

/* ---- programs with subroutines (64-bit code) ---- */

/* A call program: main, from 0 (one in four from shortly before the page
 * boundary at 41000H, into the second page), of 1-4 call sites, each 0-5
 * instructions of the forms a run may hold (none touching memory in two
 * programs in three) and a CALL rel32 (E8) to one of 1-5 subroutines (PUSH
 * RBX before it and POP RBX after it one time in four), or one time in
 * sixteen past the program: into the zeros at 41700H (ADD [rAX], AL up to
 * the HLTs at 417FEH), beyond the mapped pages or 2 GiB below (#PF at the
 * fetch); then 0-3 instructions, one time in ten a RET of main's own (it
 * pops whatever RSP points at), HLT. The subroutines follow (one time in
 * four on the second page), each:
 *   a frame opened three times in five (struct frame);
 *   0-5 instructions;
 *   a CALL of a later subroutine (nested) one time in three; in the
 *   recursive one (one program in three) DEC R15; JLE 1f; 0-2 instructions;
 *   CALL itself; 1: (R15 1-8 at the start: at most eight deep); without a
 *   frame, a CALL $+5 one time in ten (the rest runs twice: its first RET
 *   returns into it);
 *   0-3 instructions; the frame closed;
 *   one time in ten MOV RAX, imm64; MOV [RSP], RAX: the return address
 *   replaced by a non-canonical one (#GP(0) at the RET, RSP as before it:
 *   SDM Vol.2 RET), a canonical one not mapped (#PF at its fetch) or main's
 *   HLT;
 *   RET (C3).
 * No other instruction writes RSP or R15 (insn_keeping). */
#define SUBS_MAX 5
#define ZEROS_AT 0x1700u           /* a CALL's target past the program */

struct call_program {
	struct program p;
	enum forms forms;
	struct reg_kinds known;
	unsigned n_subs, sub[SUBS_MAX], halt;
	struct {
		unsigned at, sub;  /* a CALL's place and its subroutine, to patch */
	} fix[2 * SUBS_MAX];
	unsigned n_fix;
};

static void call_body(struct call_program *g, unsigned count)
{
	for (unsigned i = 0; i < count; i++)
		insn_keeping(&g->p, true, g->forms, 1u << R_SP | 1u << R_R15, &g->known);
}

/* CALL rel32 (E8) to offset `to` of p. */
static void call_rel32(struct program *p, uint64_t to)
{
	uint32_t rel = (uint32_t)(to - (p->len + 5));
	b(p, 0xe8);
	for (unsigned k = 0; k < 4; k++)
		b(p, rel >> (8 * k));
}

/* CALL rel32 to subroutine s, patched once s has its place. */
static void call_sub(struct call_program *g, unsigned s)
{
	ck_assert_uint_lt(g->n_fix, sizeof(g->fix) / sizeof(g->fix[0]));
	g->fix[g->n_fix].at = g->p.len;
	g->fix[g->n_fix++].sub = s;
	call_rel32(&g->p, g->p.len + 5);
}

/* Where RSP starts (pushes go below it): 16-byte aligned in the data mostly;
 * at a page boundary of the data (the first slot: a page's last 8 bytes), 8
 * below or above one, 4 above one (the slot crosses it); 0-3 slots above the
 * data's start (a nested CALL's slot lies in the absent page below: #PF, RSP
 * as before the CALL) or 4 above it (the slot crosses into that page); at
 * the end of the code's second page, above anything that runs (in half the
 * programs a page of decoded code: its stores never hit the TLB);
 * non-canonical (#SS(0), SDM Vol.2 CALL); unaligned in the data, or
 * anywhere. */
static uint64_t call_stack(void)
{
	static const int8_t near_page[] = { 0, 0, -8, 8, 4 };
	unsigned k = (unsigned)(rnd() % 16);
	if (k < 8)
		return DATA + 0x100 + 16 * (rnd() % ((DATA_SIZE - 0x200) / 16));
	if (k < 11)
		return DATA + 0x1000 * (1 + rnd() % 15) + (uint64_t)(int64_t)near_page[rnd() % sizeof(near_page)];
	if (k < 13)
		return DATA + (rnd() % 4 ? 8 * (rnd() % 4) : 4);
	if (k == 13)
		return CODE + CODE_SIZE - 16 * (rnd() % 16);
	if (k == 14)
		return 0x8000000000000000ull | (rnd() & 0xfffff0);
	return rnd() & 1 ? DATA + 0x100 + rnd() % (DATA_SIZE - 0x200) : rnd();
}

/* A subroutine's frame: PUSH of 1-2 of RBX RBP R12 R13, SUB RSP, 8-40h or
 * LEA RSP, [RSP - 8-40h] (frame_open, at its start), undone in reverse
 * (frame_close, just before its RET, in the RET's run). */
struct frame {
	unsigned kind, n, regs[2], bytes;
};

static void frame_open(struct program *p, struct frame *f)
{
	static const uint8_t saved[] = { R_BX, R_BP, R_R12, R_R13 };
	*f = (struct frame){ .kind = (unsigned)(rnd() % 5), .n = 1 + (unsigned)(rnd() & 1),
			     .bytes = 8 * (1 + (unsigned)(rnd() % 8)) };
	if (f->kind == 0) {
		for (unsigned i = 0; i < f->n; i++) {
			f->regs[i] = saved[rnd() % sizeof(saved)];
			if (f->regs[i] & 8)
				b(p, 0x41);
			b(p, 0x50 + (f->regs[i] & 7));   /* push r */
		}
	} else if (f->kind == 1) {
		PUT(p, 0x48, 0x83, 0xec, f->bytes);     /* sub rsp, imm8 */
	} else if (f->kind == 2) {
		PUT(p, 0x48, 0x8d, 0x64, 0x24, (uint8_t)-(int)f->bytes);   /* lea rsp, [rsp - imm8] */
	}
}

static void frame_close(struct program *p, const struct frame *f)
{
	if (f->kind == 0) {
		for (unsigned i = f->n; i-- > 0;) {
			if (f->regs[i] & 8)
				b(p, 0x41);
			b(p, 0x58 + (f->regs[i] & 7));   /* pop r */
		}
	} else if (f->kind == 1) {
		PUT(p, 0x48, 0x83, 0xc4, f->bytes);     /* add rsp, imm8 */
	} else if (f->kind == 2) {
		PUT(p, 0x48, 0x8d, 0x64, 0x24, f->bytes);   /* lea rsp, [rsp + imm8] */
	}
}

static void call_program(struct call_program *g, uint64_t regs[16])
{
	memset(g, 0, sizeof(*g));
	struct program *p = &g->p;
	g->forms = rnd() % 3 == 0 ? IN_RUNS : NO_ACCESS;
	g->known = random_regs(regs, true);
	regs[R_SP] = call_stack();
	regs[R_R15] = 1 + rnd() % 8;
	g->known.address &= ~(1u << R_SP | 1u << R_R15);
	g->known.small &= ~(1u << R_SP | 1u << R_R15);
	if (regs[R_SP] - DATA < DATA_SIZE)
		g->known.address |= 1u << R_SP;
	g->n_subs = 1 + (unsigned)(rnd() % SUBS_MAX);
	unsigned recursive = rnd() % 3 == 0 ? (unsigned)(rnd() % g->n_subs) : SUBS_MAX;
	if (rnd() % 4 == 0)
		p->entry = p->len = PAGE_SIZE - 16 - (unsigned)(rnd() % 48);
	bool zeros = false;
	for (unsigned c = 1 + (unsigned)(rnd() % 4); c > 0; c--) {
		call_body(g, (unsigned)(rnd() % 6));
		if (rnd() % 16) {
			bool push = rnd() % 4 == 0;
			if (push)
				b(p, 0x53);            /* push rbx, popped after the return */
			call_sub(g, (unsigned)(rnd() % g->n_subs));
			if (push)
				b(p, 0x5b);
			continue;
		}
		unsigned k = (unsigned)(rnd() % 3);
		zeros = zeros || k == 0;
		call_rel32(p, k == 0 ? ZEROS_AT + rnd() % 0xf0 : k == 1 ? CODE_SIZE + rnd() % PAGE_SIZE
									 : p->len - 0x80000000u + rnd() % 0x1000);
	}
	call_body(g, (unsigned)(rnd() % 4));
	if (rnd() % 10 == 0)
		b(p, 0xc3);
	g->halt = p->len;
	b(p, 0xf4);
	if (p->len < PAGE_SIZE && rnd() % 4 == 0)
		p->len = PAGE_SIZE + (unsigned)(rnd() % 64);
	for (unsigned s = 0; s < g->n_subs; s++) {
		g->sub[s] = p->len;
		struct frame fr;
		frame_open(p, &fr);
		call_body(g, (unsigned)(rnd() % 6));
		if (s == recursive) {
			static const uint8_t dec_jle[] = { 0x49, 0xff, 0xcf, 0x7e, 0x00 };   /* dec r15; jle 1f */
			put(p, dec_jle, sizeof(dec_jle));
			unsigned from = p->len;
			call_body(g, (unsigned)(rnd() % 3));
			call_sub(g, s);
			p->bytes[from - 1] = (uint8_t)(p->len - from);                 /* 1: */
		} else if (s + 1 < g->n_subs && rnd() % 3 == 0) {
			call_sub(g, s + 1 + (unsigned)(rnd() % (g->n_subs - s - 1)));
		} else if (fr.kind >= 3 && rnd() % 10 == 0) {
			call_rel32(p, p->len + 5);
		}
		call_body(g, (unsigned)(rnd() % 4));
		frame_close(p, &fr);
		if (rnd() % 10 == 0) {
			unsigned k = (unsigned)(rnd() % 3);
			uint64_t to = k == 0 ? (rnd() & 0x7fffffffffffull) | 0x800000000000ull
				    : k == 1 ? 0xffff800000000000ull | (rnd() & 0xfffff000) : CODE + g->halt;
			PUT(p, 0x48, 0xb8);            /* mov rax, imm64 */
			put_u64(p, to);
			PUT(p, 0x48, 0x89, 0x04, 0x24);  /* mov [rsp], rax */
		}
		b(p, 0xc3);
	}
	ck_assert_uint_lt(p->len, ZEROS_AT);
	for (unsigned i = 0; i < g->n_fix; i++) {
		uint32_t rel = g->sub[g->fix[i].sub] - (g->fix[i].at + 5);
		memcpy(p->bytes + g->fix[i].at + 1, &rel, 4);
	}
	if (zeros) {
		p->bytes[ZEROS_AT + 0xfe] = p->bytes[ZEROS_AT + 0xff] = 0xf4;
		p->len = ZEROS_AT + 0x100;
	}
}

/* Call programs (above), each run to its HLT (or a fault) or stopped by an
 * instruction limit inside its chain, as blocks twice (run_linked: the
 * second follows the links the first made, a RET's to its callers) and in
 * single steps. */
START_TEST(random_call_programs_64)
{
	static struct call_program g;
	random_machine(true);
	unsigned long before = jit_runs_translated(m.cpu.icache);
	for (unsigned n = 0; n < 2000; n++) {
		uint64_t regs[16];
		call_program(&g, regs);
		run_linked(&g.p, regs, n % 3 == 0 ? 1 + rnd() % 60 : 100000, n);
	}
#if defined(__x86_64__)
	ck_assert_uint_gt(jit_runs_translated(m.cpu.icache) - before, 3000);
#else
	(void)before;
#endif
}
END_TEST

/* dec ecx (ZF = 1); jmp 1f; 1: mov eax, ebx; mov edx, eax; jnz 1b; hlt: the
 * loop's block sets no flag, so its JNZ reads the DEC's (taken never): not a
 * loop the translator closes in host code (no host flags to test). */
START_TEST(loop_reads_flags_from_before)
{
	static const uint8_t code[] = { 0xff, 0xc9, 0xeb, 0x00, 0x89, 0xd8, 0x89, 0xc2, 0x75, 0xfa, 0xf4 };
	physmem_write_bytes(&m.pm, 0x40000, code, sizeof(code));
	m.cpu.regs[R_BX] = 7;
	m.cpu.regs[R_CX] = 1;
	m.cpu.rip = 0x40000;
	uint64_t t0 = m.cpu.icount;
	m.cpu.icount_limit = t0 + 1000;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(m.cpu.icount - t0, 6);
	ck_assert_uint_eq(m.cpu.regs[R_DX], 7);
}
END_TEST

/* 1: add eax, 1; dec ecx; mov [rbx], eax; jnz 1b; hlt (64-bit): the store's
 * host code comes between the DEC and the JNZ, so the loop is not closed in
 * host code on the host's flags; it still runs as many rounds. */
START_TEST(loop_with_store_after_its_flags)
{
	long_mode_sparse();
	static const uint8_t code[] = { 0x83, 0xc0, 0x01, 0xff, 0xc9, 0x89, 0x03, 0x75, 0xf7, 0xf4 };
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	uint64_t regs[16] = { [R_CX] = 50, [R_BX] = DATA + 0x100 };
	load(&p, regs);
	m.cpu.icount_limit = m.cpu.icount + 1000;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 50);
	ck_assert_uint_eq(m.cpu.regs[R_CX], 0);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA + 0x100, 4), 50);
}
END_TEST

/* mov rdx, [rbx - 8]; jmp $+2; add ecx, 1; mov rax, [rbx]; hlt (and the same
 * with mov [rbx], eax) with the access's last bytes in the page after the
 * data, not present, and its first page in the TLB (the first load filled
 * it): the translated run leaves before the access (mmu/tlb.h: the page of
 * the last byte is looked for) and the #PF names that page (SDM Vol.3 4.7),
 * as the interpreter's. */
START_TEST(access_crossing_into_absent_page)
{
	long_mode_sparse();
	stop_at_events(&m, &seen);
	static const uint8_t load_code[] = { 0x48, 0x8b, 0x53, 0xf8, 0xeb, 0x00, 0x83, 0xc1, 0x01, 0x48, 0x8b, 0x03, 0xf4 };
	static const uint8_t store_code[] = { 0x48, 0x8b, 0x53, 0xf8, 0xeb, 0x00, 0x83, 0xc1, 0x01, 0x89, 0x03, 0xf4 };
	const uint8_t *codes[2] = { load_code, store_code };
	unsigned lens[2] = { sizeof(load_code), sizeof(store_code) };
	for (unsigned k = 0; k < 2; k++) {
		struct program p = { .len = lens[k] };
		memcpy(p.bytes, codes[k], lens[k]);
		uint64_t regs[16] = { [R_BX] = DATA + DATA_SIZE - (k ? 2 : 4) };
		run_both(&p, regs, 100, k);
		ck_assert_uint_eq(blocks.seen.vector, EXC_PF);
		ck_assert_uint_eq(blocks.seen.cr2, DATA + DATA_SIZE);
		ck_assert_uint_eq(blocks.regs[R_CX], 1);
	}
}
END_TEST

/* Program code (len bytes) from regs, translated, against single steps:
 * it faults, #PF at cr2, with rdx rounds left in RDX. */
static void shared_lookup_faults(const uint8_t *code, unsigned len, const uint64_t regs[16], unsigned n,
				 uint64_t cr2, uint64_t rdx)
{
	struct program p = { .len = len };
	memcpy(p.bytes, code, len);
	run_both_translated(&p, regs, 10000, n, CODE);
	ck_assert_uint_eq(blocks.seen.vector, EXC_PF);
	ck_assert_uint_eq(blocks.seen.cr2, cr2);
	ck_assert_uint_eq(blocks.regs[R_DX], rdx);
}

/* 1: mov rax, [rbx]; mov rcx, [rbx + 16]; add rbx, 8; dec edx; jnz 1b; hlt,
 * and the same downwards: 1: mov rax, [rbx + 16]; mov rcx, [rbx]; sub rbx,
 * 8; ... The two loads share the first one's lookup (emu/jit.c
 * plan_shared_lookups), which covers the second's bytes too, above or
 * below its own: when those reach the absent page after or before the
 * data, the lookup misses and the second load faults there (#PF, CR2 its
 * first byte), as in single steps. */
START_TEST(shared_lookup_stops_at_the_page_end)
{
	long_mode_sparse();
	stop_at_events(&m, &seen);
	static const uint8_t up[] = { 0x48, 0x8b, 0x03, 0x48, 0x8b, 0x4b, 0x10, 0x48, 0x83, 0xc3, 0x08,
				      0xff, 0xca, 0x75, 0xf1, 0xf4 };
	static const uint8_t down[] = { 0x48, 0x8b, 0x43, 0x10, 0x48, 0x8b, 0x0b, 0x48, 0x83, 0xeb, 0x08,
					0xff, 0xca, 0x75, 0xf1, 0xf4 };
	const uint64_t from_end[16] = { [R_BX] = DATA + DATA_SIZE - 0x200, [R_DX] = 100 };
	const uint64_t from_start[16] = { [R_BX] = DATA + 0x1f0, [R_DX] = 100 };
	shared_lookup_faults(up, sizeof(up), from_end, 0, DATA + DATA_SIZE, 100 - 0x1f0 / 8);
	shared_lookup_faults(down, sizeof(down), from_start, 1, DATA - 8, 100 - 0x1f8 / 8);
}
END_TEST

/* The same where the base moves between the two: 1: mov rax, [rbx]; add
 * rbx, 64; mov rcx, [rbx + 48]; dec edx; jnz 1b; hlt (the second's bytes
 * 112 past the first's: in round 31, RBX the end - 40H, it reads 30H past
 * the end), and on the stack: 1: push rax; push rcx; pop rcx; pop rax; sub
 * rsp, 8; dec edx; jnz 1b; hlt (the second PUSH 8 below the first). */
START_TEST(shared_lookup_counts_the_base_moving)
{
	long_mode_sparse();
	stop_at_events(&m, &seen);
	static const uint8_t moving[] = { 0x48, 0x8b, 0x03, 0x48, 0x83, 0xc3, 0x40, 0x48, 0x8b, 0x4b, 0x30,
					  0xff, 0xca, 0x75, 0xf1, 0xf4 };
	static const uint8_t stack[] = { 0x50, 0x51, 0x59, 0x58, 0x48, 0x83, 0xec, 0x08, 0xff, 0xca, 0x75, 0xf4, 0xf4 };
	const uint64_t base_regs[16] = { [R_BX] = DATA + DATA_SIZE - 0x800, [R_DX] = 100 };
	const uint64_t stack_regs[16] = { [R_SP] = DATA + 0x200, [R_DX] = 100, [R_AX] = 1, [R_CX] = 2 };
	shared_lookup_faults(moving, sizeof(moving), base_regs, 0, DATA + DATA_SIZE + 0x30, 100 - 31);
	shared_lookup_faults(stack, sizeof(stack), stack_regs, 1, DATA - 8, 100 - (0x200 - 8) / 8);
}
END_TEST

/* A loop of accesses through RBX and the stack whose bases move by
 * constants: MOV r64 loads and stores and byte stores at [rbx + disp8],
 * loads at [rsp + disp8], ADD/SUB rbx, imm8, INC/DEC rbx, LEA rbx, [rbx +
 * disp8], PUSH and POP (POP RSP too); then dec edx; jnz; hlt. */
static void shared_lookup_program(struct program *p)
{
	static const uint8_t regs[] = { 0, 1, 6, 7 };   /* RAX, RCX, RSI, RDI */
	unsigned n = 2 + (unsigned)(rnd() % 12);
	for (unsigned i = 0; i < n; i++) {
		unsigned r = regs[rnd() % 4];
		uint8_t d = (uint8_t)(rnd() & 1 ? rnd() : rnd() % 16 - 8);
		switch (rnd() % 10) {
		case 0: case 1: b(p, 0x48); b(p, 0x8b); b(p, 0x43 | r << 3); b(p, d); break;   /* mov r, [rbx + d] */
		case 2: b(p, 0x48); b(p, 0x89); b(p, 0x43 | r << 3); b(p, d); break;           /* mov [rbx + d], r */
		case 3: b(p, 0x88); b(p, 0x43 | r << 3); b(p, d); break;                       /* mov [rbx + d], r8 */
		case 4: b(p, 0x48); b(p, 0x83); b(p, rnd() & 1 ? 0xc3 : 0xeb); b(p, d); break; /* add/sub rbx, d */
		case 5: b(p, 0x48); b(p, 0xff); b(p, rnd() & 1 ? 0xc3 : 0xcb); break;          /* inc/dec rbx */
		case 6: b(p, 0x48); b(p, 0x8d); b(p, 0x5b); b(p, d); break;                    /* lea rbx, [rbx + d] */
		case 7: b(p, 0x50 + r); break;                                                 /* push r */
		case 8: b(p, 0x58 + (rnd() % 8 ? r : 4)); break;                               /* pop r, now and then pop rsp */
		default: b(p, 0x48); b(p, 0x8b); b(p, 0x44 | r << 3); b(p, 0x24); b(p, d); break;   /* mov r, [rsp + d] */
		}
	}
	b(p, 0xff);
	b(p, 0xca);                        /* dec edx */
	b(p, 0x75);
	b(p, (uint8_t)-(int)(p->len + 1)); /* jnz to the start */
	b(p, 0xf4);
}

/* An address by one end of the data, whose neighbouring pages are absent:
 * one time in two within 16 bytes of it. */
static uint64_t by_data_end(void)
{
	uint64_t near = rnd() & 1 ? rnd() % 16 : rnd() % 0x400;
	return rnd() & 1 ? DATA + DATA_SIZE - near : DATA + near;
}

/* Such loops with RBX and RSP by the ends of the data: the blocks fault
 * where the single steps do, the accesses whose lookup an earlier one
 * shares included. */
START_TEST(random_shared_lookups_64)
{
	long_mode_sparse();
	stop_at_events(&m, &seen);
	for (unsigned n = 0; n < 1000; n++) {
		struct program p = { .len = 0 };
		shared_lookup_program(&p);
		uint64_t regs[16];
		for (unsigned r = 0; r < 16; r++)
			regs[r] = rnd();
		regs[R_BX] = by_data_end();
		regs[R_SP] = by_data_end();
		regs[R_DX] = 1 + rnd() % 200;
		run_both(&p, regs, 100000, n);
	}
}
END_TEST

/* 1: mov rax, [rbx]; mov [rbx + 8], rcx; dec edx; jnz 1b; hlt, translated;
 * then the page's dirty flag cleared, the TLB flushed and the page read
 * once: its translation now allows reads only. The shared lookup asks for
 * the write the group makes, misses, and the store sets the dirty flag
 * (SDM Vol.3 4.8) through its handler. */
START_TEST(shared_lookup_asks_for_the_write)
{
	long_mode_sparse();
	static const uint8_t code[] = { 0x48, 0x8b, 0x03, 0x48, 0x89, 0x4b, 0x08, 0xff, 0xca, 0x75, 0xf5, 0xf4 };
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	uint64_t regs[16] = { [R_BX] = DATA + 0x100, [R_CX] = 0x1234, [R_DX] = 40 };
	load(&p, regs);
	run_blocks(10000);
	ck_assert_int_eq(blocks.status, ST_HALT);
	assert_translated_at(CODE, 0);
	const uint64_t pte = PT + (DATA >> 12) * 8;
	physmem_write(&m.pm, pte, 8, DATA | 3);
	tlb_flush_all(&m.cpu.tlb);
	uint64_t v;
	ck_assert_int_eq(mem_read(&m.cpu, SR_DS, DATA + 0x100, 8, &v), ST_OK);
	ck_assert_uint_eq(physmem_read(&m.pm, pte, 8) & PTE_D, 0);
	regs[R_CX] = 0x5678;
	start(regs);
	run_blocks(10000);
	ck_assert_int_eq(blocks.status, ST_HALT);
	ck_assert_uint_ne(physmem_read(&m.pm, pte, 8) & PTE_D, 0);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA + 0x108, 8), 0x5678);
}
END_TEST

/* mov rdx, [rbx]; jmp $+2; add ecx, 1; mov rax, [rbx + rsi*8] (and the
 * same with mov rdx, [r12] and mov [r12 + r9*4 + 10h], eax: REX.X, REX.B)
 * in 64-bit code, the base in the data's last page, its page in the TLB, and
 * index * scale taking the access's last bytes into the page after the data,
 * not present: the #PF names that page (SDM Vol.3 4.7), as the
 * interpreter's, at the access, after the ADD. */
START_TEST(sib_access_crossing_into_absent_page)
{
	long_mode_sparse();
	stop_at_events(&m, &seen);
	static const uint8_t load_code[] = { 0x48, 0x8b, 0x13, 0xeb, 0x00, 0x83, 0xc1, 0x01,
					     0x48, 0x8b, 0x04, 0xf3, 0xf4 };
	static const uint8_t store_code[] = { 0x49, 0x8b, 0x14, 0x24, 0xeb, 0x00, 0x83, 0xc1, 0x01,
					      0x43, 0x89, 0x44, 0x8c, 0x10, 0xf4 };
	const uint8_t *codes[2] = { load_code, store_code };
	unsigned lens[2] = { sizeof(load_code), sizeof(store_code) };
	/* 8 bytes at the data's end - 4; 4 bytes at its end - 2. */
	uint64_t load_regs[16] = { [R_BX] = DATA + DATA_SIZE - 0x44, [R_SI] = 8 };
	uint64_t store_regs[16] = { [R_R12] = DATA + DATA_SIZE - 0x3e, [R_R9] = 11 };
	const uint64_t *regs[2] = { load_regs, store_regs };
	for (unsigned k = 0; k < 2; k++) {
		struct program p = { .len = lens[k] };
		memcpy(p.bytes, codes[k], lens[k]);
		run_both(&p, regs[k], 100, k);
		ck_assert_uint_eq(blocks.seen.vector, EXC_PF);
		ck_assert_uint_eq(blocks.seen.cr2, DATA + DATA_SIZE);
		ck_assert_uint_eq(blocks.seen.error_code, k ? PFEC_W : 0);
		ck_assert_uint_eq(blocks.rip, 0x40000 + lens[k] - (k ? 6 : 5));
		ck_assert_uint_eq(blocks.regs[R_CX], 1);
	}
}
END_TEST

/* mov [ebx], ecx; mov edx, [ebx]; jmp $+2; cmp eax, [ebx]; mov edx, eax;
 * hlt with EAX = 1, ECX = 2, in 32-bit and in 64-bit code (32-bit operands):
 * the CMP with a memory source, its page in the TLB, is the last flag setter
 * of its run, and the record the run leaves must have the memory operand as
 * its second source: CF = 1 (SDM Vol.2 CMP: the flags of EAX - m32, a
 * borrow), as the interpreter's. The random programs found a translator
 * whose record had EAX there (CF = 0; JB, ADC, SETcc or CMOVcc after the run
 * read it). */
START_TEST(compare_with_memory_source)
{
	static const uint8_t code[] = { 0x89, 0x0b, 0x8b, 0x13, 0xeb, 0x00, 0x3b, 0x03, 0x89, 0xc2, 0xf4 };
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	for (unsigned k = 0; k < 2; k++) {
		random_machine(k == 1);
		uint64_t regs[16] = { [R_AX] = 1, [R_CX] = 2, [R_BX] = k ? DATA + 0x100 : 0x100 };
		run_both(&p, regs, 100, k);
		ck_assert_int_eq(blocks.status, ST_HALT);
		ck_assert_uint_eq(blocks.rflags & FLAG_CF, FLAG_CF);
		ck_assert_uint_eq(blocks.regs[R_DX], 1);
	}
}
END_TEST

/* At CPL 3 a translated run looks the TLB up in the user bank: a load from
 * a supervisor page, whose translation the supervisor bank holds from a CPL
 * 0 run just before (the block then decoded and translated again at CPL 3),
 * is a #PF with U/S (SDM Vol.3 4.6), as the interpreter's. */
START_TEST(user_access_to_supervisor_page)
{
	long_mode_sparse();
	stop_at_events(&m, &seen);
	/* The program's page user-accessible; the data supervisor-only. */
	physmem_write(&m.pm, PT + (0x40000 >> 12) * 8, 8, 0x40000 | 7);
	physmem_write(&m.pm, PML4, 8, PDPT | 7);
	physmem_write(&m.pm, PDPT, 8, PD | 7);
	physmem_write(&m.pm, PD, 8, PT | 7);
	tlb_flush_all(&m.cpu.tlb);
	static const uint8_t code[] = { 0x83, 0xc1, 0x01, 0x48, 0x8b, 0x03, 0xf4 };  /* add ecx, 1; mov rax, [rbx] */
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	uint64_t regs[16] = { [R_BX] = DATA + 0x100 };
	run_both(&p, regs, 100, 0);
	ck_assert_uint_eq(blocks.seen.vector, 0xff);             /* CPL 0: read */
	ck_assert_ptr_nonnull(tlb_lookup(&m.cpu.tlb, TLB_SUPERVISOR, TLB_READ, DATA + 0x100, 8));
	m.cpu.cpl = 3;
	m.cpu.seg[SR_CS].selector |= 3;
	run_both(&p, regs, 100, 1);
	ck_assert_uint_eq(blocks.seen.vector, EXC_PF);
	ck_assert_uint_eq(blocks.seen.error_code, PFEC_P | PFEC_U);
	ck_assert_uint_eq(blocks.seen.cr2, DATA + 0x100);
	ck_assert_uint_eq(blocks.rip, 0x40003);                  /* the load, after the ADD */
}
END_TEST

/* A loop counted down in EDX, its pages in the TLB: a thousand rounds from
 * regs to the HLT with no side exit (the x86-64 host's translated code). */
static void rounds_without_side_exit(uint64_t regs[16])
{
	regs[R_DX] = 1000;
	start(regs);
	unsigned long before = jit_side_exits(m.cpu.icache);
	run_blocks(10000);
	ck_assert_int_eq(blocks.status, ST_HALT);
	ck_assert_uint_eq(blocks.regs[R_DX], 0);
#if defined(__x86_64__)
	ck_assert_uint_eq(jit_side_exits(m.cpu.icache) - before, 0);
#else
	(void)before;
#endif
}

/* Two pages whose translations share a set (their page numbers equal in the
 * set's bits, mmu/tlb.h tlb_set_of): the one filled last in way 0, the other
 * in way 1 (tlb_victim), where a translated access finds it too rather than
 * leaving its run each round. The second page is linear
 * DATA + 1 MiB, mapped to DATA + 1000H.
 *   40000: mov rax, [rbx]; mov rcx, [rsi]; add rax, rcx; dec edx; jnz 40000
 *   4000d: hlt */
START_TEST(older_way_hits_in_runs)
{
	static const uint8_t code[] = { 0x48, 0x8b, 0x03, 0x48, 0x8b, 0x0e, 0x48, 0x01, 0xc8,
					0xff, 0xca, 0x75, 0xf3, 0xf4 };
	const uint64_t other = DATA + ((uint64_t)TLB_SETS << PAGE_SHIFT);
	long_mode_sparse();
	stop_at_events(&m, &seen);
	physmem_write(&m.pm, PT + (other >> 12) * 8, 8, (DATA + PAGE_SIZE) | 3);
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	uint64_t regs[16] = { [R_BX] = DATA + 0x100, [R_SI] = other + 0x200, [R_DX] = 20 };
	run_both(&p, regs, 1000, 0);
	ck_assert_int_eq(blocks.status, ST_HALT);
	/* Both in the set, one of them in way 1. */
	struct tlb *t = &m.cpu.tlb;
	struct tlb_entry *set = tlb_set_of(t, TLB_SUPERVISOR, DATA, t->cur);
	ck_assert_ptr_eq(set, tlb_set_of(t, TLB_SUPERVISOR, other, t->cur));
	ck_assert(tlb_set_find(set, TLB_READ, DATA | t->cur) && tlb_set_find(set, TLB_READ, other | t->cur));
	rounds_without_side_exit(regs);
}
END_TEST

/* A global translation (CR4.PGE and PTE.G: SDM Vol.3 4.10.2.4, used whatever
 * the PCID) lives under the space's global id, not the current context's
 * (mmu/tlb.h): a translated access finds it there as tlb_lookup does, rather
 * than leaving its run at every access. A loop that loads from and stores to
 * a global page, then to one that is not: the machine as the single steps
 * leave it, and once the page is in the TLB, a thousand rounds with no side
 * exit.
 *   40000: mov rax, [rbx]; add rax, rcx; mov [rbx + 8], rax; dec edx;
 *          jnz 40000; hlt */
START_TEST(global_translation_hits_in_runs)
{
	static const uint8_t code[] = { 0x48, 0x8b, 0x03, 0x48, 0x01, 0xc8, 0x48, 0x89, 0x43,
					0x08, 0xff, 0xca, 0x75, 0xf2, 0xf4 };
	long_mode_sparse();
	stop_at_events(&m, &seen);
	m.cpu.cr4 |= CR4_PGE;
	for (int global = 1; global >= 0; global--) {
		physmem_write(&m.pm, PT + (DATA >> 12) * 8, 8, DATA | 3 | (global ? 0x100 : 0));
		tlb_flush_all(&m.cpu.tlb);
		struct program p = { .len = sizeof(code) };
		memcpy(p.bytes, code, sizeof(code));
		uint64_t regs[16] = { [R_BX] = DATA + 0x100, [R_CX] = 5, [R_DX] = 20 };
		run_both(&p, regs, 1000, (unsigned)global);
		ck_assert_int_eq(blocks.status, ST_HALT);
		/* Under the global id only, or under the current context's. */
		struct tlb *t = &m.cpu.tlb;
		bool in_cur = tlb_set_find(tlb_set_of(t, TLB_SUPERVISOR, DATA, t->cur), TLB_READ, DATA | t->cur) != NULL;
		ck_assert(in_cur == !global);
		ck_assert_ptr_nonnull(tlb_lookup(t, TLB_SUPERVISOR, TLB_WRITE, DATA + 0x108, 8));
		rounds_without_side_exit(regs);
	}
	/* A global page that is read-only, its read in the TLB: a store
	 * through the global id needs its write, which it has not: #PF with
	 * W (SDM Vol.3 4.6.1: CR0.WP set), as the interpreter's.
	 *   add ecx, 1; mov [rbx], rcx; hlt */
	m.cpu.cr0 |= CR0_WP;
	physmem_write(&m.pm, PT + (DATA >> 12) * 8, 8, DATA | 1 | 0x100);
	tlb_flush_all(&m.cpu.tlb);
	uint64_t regs[16] = { [R_BX] = DATA + 0x100 };
	uint64_t value;
	ck_assert_int_eq(mem_read(&m.cpu, SR_DS, DATA + 0x100, 8, &value), ST_OK);
	static const uint8_t store[] = { 0x83, 0xc1, 0x01, 0x48, 0x89, 0x0b, 0xf4 };
	struct program p = { .len = sizeof(store) };
	memcpy(p.bytes, store, sizeof(store));
	run_both(&p, regs, 100, 2);
	ck_assert_uint_eq(blocks.seen.vector, EXC_PF);
	ck_assert_uint_eq(blocks.seen.error_code, PFEC_P | PFEC_W);
}
END_TEST

/* The global lookup of an access goes through that access's own address:
 * two global pages, the first read through a base and an index (its
 * address computed), the second through a base alone (addressed where it
 * is, linear_in_place); the second page's frame is elsewhere, so a lookup
 * of the first access that took the second's address would find the
 * second's translation and read the wrong frame.
 *   40000: mov rax, [rsi + rdi]; mov rcx, [rbx]; add rax, rcx; dec edx;
 *          jnz 40000; hlt */
START_TEST(global_lookup_at_each_access_own_address)
{
	static const uint8_t code[] = { 0x48, 0x8b, 0x04, 0x3e, 0x48, 0x8b, 0x0b, 0x48, 0x01, 0xc8,
					0xff, 0xca, 0x75, 0xf2, 0xf4 };
	const uint64_t second = DATA + PAGE_SIZE, frame = DATA + 0x8000;
	long_mode_sparse();
	stop_at_events(&m, &seen);
	m.cpu.cr4 |= CR4_PGE;
	physmem_write(&m.pm, PT + (DATA >> 12) * 8, 8, DATA | 3 | 0x100);
	physmem_write(&m.pm, PT + (second >> 12) * 8, 8, frame | 3 | 0x100);
	tlb_flush_all(&m.cpu.tlb);
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	uint64_t regs[16] = { [R_SI] = DATA + 0x100, [R_BX] = second + 0x100, [R_DX] = 20 };
	run_both(&p, regs, 1000, 0);   /* random data: the two frames' bytes differ */
	ck_assert_int_eq(blocks.status, ST_HALT);
	struct tlb *t = &m.cpu.tlb;
	ck_assert_ptr_null(tlb_set_find(tlb_set_of(t, TLB_SUPERVISOR, DATA, t->cur), TLB_READ, DATA | t->cur));
	rounds_without_side_exit(regs);
	ck_assert_uint_eq(blocks.regs[R_AX], physmem_read(&m.pm, DATA + 0x100, 8) + physmem_read(&m.pm, frame + 0x100, 8));
}
END_TEST

/* mov edx, [ebx - 10h]; jmp $+2; add ecx, 1; then a load whose last byte is
 * past DS's limit (FFFAh) though its page is cached, in 32-bit code: mov eax,
 * [ebx] (EBX = FFF8h), mov eax, [ebx + esi*4 + 8] (EBX = FFE0h, ESI = 6: the
 * index takes it past) and mov eax, [esi*8 + 0] (mod 0, SIB base 5: no base;
 * ESI = 1FFFh): #GP(0) at the load (SDM Vol.3 5.3), as the interpreter's. */
START_TEST(access_beyond_segment_limit)
{
	protected_segments();
	stop_at_events(&m, &seen);
	static const struct {
		uint8_t load[7];
		unsigned len;
		uint64_t bx, si;
	} loads[] = {
		{ { 0x8b, 0x03 }, 2, 0xfff8, 0 },
		{ { 0x8b, 0x44, 0xb3, 0x08 }, 4, 0xffe0, 6 },
		{ { 0x8b, 0x04, 0xf5, 0x00, 0x00, 0x00, 0x00 }, 7, 0xffe0, 0x1fff },
	};
	static const uint8_t head[] = { 0x8b, 0x53, 0xf0, 0xeb, 0x00, 0x83, 0xc1, 0x01 };
	for (unsigned k = 0; k < sizeof(loads) / sizeof(loads[0]); k++) {
		struct program p = { .len = 0 };
		memcpy(p.bytes, head, sizeof(head));
		memcpy(p.bytes + sizeof(head), loads[k].load, loads[k].len);
		p.len = (unsigned)sizeof(head) + loads[k].len;
		p.bytes[p.len++] = 0xf4;
		uint64_t regs[16] = { [R_BX] = loads[k].bx, [R_SI] = loads[k].si };
		run_both(&p, regs, 100, k);
		ck_assert_uint_eq(blocks.seen.vector, EXC_GP);
		ck_assert_uint_eq(blocks.seen.error_code, 0);
		ck_assert_uint_eq(blocks.rip, 0x40008);
		ck_assert_uint_eq(blocks.regs[R_CX], 1);
	}
}
END_TEST

/* add ecx, 1; push rbx; push r9; hlt in 64-bit code at CPL 0, RSP = the
 * data's start + 8 (the second push's page, below the data, is not present)
 * or + 12 (its first 4 bytes are in that page): #PF with W (SDM Vol.3 4.7) at
 * the first absent byte, RSP as after the first push (a fault leaves the
 * state from before the faulting instruction, SDM Vol.3 6.5), as the
 * interpreter's; the first push's value in the data. */
START_TEST(push_to_absent_page)
{
	long_mode_sparse();
	stop_at_events(&m, &seen);
	static const uint8_t code[] = { 0x83, 0xc1, 0x01, 0x53, 0x41, 0x51, 0xf4 };
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	for (unsigned k = 0; k < 2; k++) {
		uint64_t regs[16] = { [R_SP] = DATA + (k ? 12 : 8), [R_BX] = 0x1122334455667788ull, [R_R9] = 9 };
		run_both(&p, regs, 100, k);
		ck_assert_uint_eq(blocks.seen.vector, EXC_PF);
		ck_assert_uint_eq(blocks.seen.error_code, PFEC_W);
		ck_assert_uint_eq(blocks.seen.cr2, DATA - (k ? 4 : 8));
		ck_assert_uint_eq(blocks.rip, 0x40004);
		ck_assert_uint_eq(blocks.regs[R_SP], DATA + (k ? 4 : 0));
		ck_assert_uint_eq(blocks.regs[R_CX], 1);
		uint64_t pushed;
		memcpy(&pushed, blocks.data + (k ? 4 : 0), 8);
		ck_assert_uint_eq(pushed, 0x1122334455667788ull);
	}
}
END_TEST

/* mov edx, [ebx - 10h]; jmp $+2; then 17 x mov eax, [ebx]; mov eax, [ecx];
 * hlt in 32-bit code, ECX = FFF8h: a run of 18 accesses (as many as its
 * slot holds), each with six checks that may leave it, and the last load
 * past DS's limit: #GP(0) there, as the interpreter's. */
START_TEST(run_of_many_accesses)
{
	protected_segments();
	stop_at_events(&m, &seen);
	struct program p = { .len = 0 };
	static const uint8_t head[] = { 0x8b, 0x53, 0xf0, 0xeb, 0x00 };
	memcpy(p.bytes, head, sizeof(head));
	p.len = sizeof(head);
	for (unsigned i = 0; i < 17; i++) {
		b(&p, 0x8b);
		b(&p, 0x03);
	}
	b(&p, 0x8b);
	b(&p, 0x01);
	b(&p, 0xf4);
	uint64_t regs[16] = { [R_BX] = 0x100, [R_CX] = 0xfff8 };
	run_both(&p, regs, 100, 0);
	ck_assert_uint_eq(blocks.seen.vector, EXC_GP);
	ck_assert_uint_eq(blocks.rip, 0x40000 + sizeof(head) + 2 * 17);
}
END_TEST

/* A block that ends by its count (31 x add eax, ebx, then one more) or at
 * the page boundary (8 x add eax, ebx from 40FEFH, then one more ending at
 * 41000H), then HLT, the last instruction one whose thread handler is a step
 * (emu/fast_forms.c insn_thread_form: not pure, so the block's end slot is
 * thread_end, which takes rIP as that handler left it): NOP (90H) in 32-bit
 * and 64-bit code, LEA r9, [rip + 100h] in 64-bit code. The run that
 * reaches the block's end must leave rIP after that instruction: the HLT
 * runs, as in the single steps. */
START_TEST(fall_through_after_step_form)
{
	static const uint8_t nop[] = { 0x90 };
	static const uint8_t lea_rip[] = { 0x4c, 0x8d, 0x0d, 0x00, 0x01, 0x00, 0x00 };
	for (unsigned k = 0; k < 8; k++) {
		bool long_mode = k & 1, by_count = k & 2, lea = k & 4;
		if (lea && !long_mode)
			continue;
		random_machine(long_mode);
		const uint8_t *last = lea ? lea_rip : nop;
		unsigned last_len = lea ? sizeof(lea_rip) : sizeof(nop), adds = by_count ? 31 : 8;
		struct program p = { .len = 0 };
		if (!by_count)
			p.entry = p.len = PAGE_SIZE - 2 * adds - last_len;
		for (unsigned i = 0; i < adds; i++) {
			b(&p, 0x01);
			b(&p, 0xd8);
		}
		memcpy(p.bytes + p.len, last, last_len);
		p.len += last_len;
		b(&p, 0xf4);
		uint64_t regs[16] = { [R_BX] = 3 };
		run_linked(&p, regs, 100, k);
		ck_assert_int_eq(blocks.status, ST_HALT);
		ck_assert_uint_eq(blocks.rip, CODE + p.len);
		ck_assert_uint_eq(blocks.regs[R_AX], 3 * adds);
	}
}
END_TEST

/* In 32-bit code whose CS limit is the program's last byte, its HLT: add
 * esi, 1; add edi, esi; jmp $+2, then a block of two instructions of a run
 * and a branch past the limit (rel 1: the byte after the HLT) or to the HLT
 * (rel 0): JNZ rel8 and rel32 after sub ecx, 1 (ECX 5: taken; 1: not), JMP
 * rel8 and rel32 after mov edx, eax. Taken past the limit: #GP(0) at the
 * branch (SDM Vol.2 Jcc, JMP: "If the target operand is beyond the code
 * segment limits", #GP(0)), rIP the branch, the run's registers written;
 * to the HLT, or not taken: the HLT. As the interpreter's, with the blocks
 * run twice (run_linked: the second enters the branch's block by a link). */
START_TEST(branch_target_beyond_cs_limit)
{
	static const uint8_t head[] = { 0x83, 0xc6, 0x01, 0x01, 0xf7, 0xeb, 0x00 };
	static const struct {
		uint8_t code[11];
		unsigned len, branch, rel;     /* the branch's offset, its displacement's */
		bool jcc;
	} rows[] = {
		{ { 0x01, 0xd8, 0x83, 0xe9, 0x01, 0x75, 0x00 }, 7, 5, 6, true },
		{ { 0x01, 0xd8, 0x83, 0xe9, 0x01, 0x0f, 0x85, 0, 0, 0, 0 }, 11, 5, 7, true },
		{ { 0x01, 0xd8, 0x89, 0xc2, 0xeb, 0x00 }, 6, 4, 5, false },
		{ { 0x01, 0xd8, 0x89, 0xc2, 0xe9, 0, 0, 0, 0 }, 9, 4, 5, false },
	};
	protected_segments();
	stop_at_events(&m, &seen);
	unsigned long before = jit_runs_translated(m.cpu.icache);
	for (unsigned k = 0; k < 4 * sizeof(rows) / sizeof(rows[0]); k++) {
		unsigned row = k / 4, rel = k & 1, ecx = k & 2 ? 1 : 5;
		struct program p = { .len = 0 };
		memcpy(p.bytes, head, sizeof(head));
		memcpy(p.bytes + sizeof(head), rows[row].code, rows[row].len);
		p.len = sizeof(head) + rows[row].len;
		p.bytes[sizeof(head) + rows[row].rel] = (uint8_t)rel;
		b(&p, 0xf4);
		seg_load_descriptor(&m.cpu.seg[SR_CS], SEL_CODE32, make_desc(0, CODE + p.len - 1, 0x9b, 0x4));
		uint64_t regs[16] = { [R_AX] = 0x1234, [R_BX] = 0x10, [R_CX] = ecx };
		run_linked(&p, regs, 100, k);
		bool taken = !rows[row].jcc || ecx != 1;
		if (taken && rel) {
			ck_assert_uint_eq(blocks.seen.vector, EXC_GP);
			ck_assert_uint_eq(blocks.seen.error_code, 0);
			ck_assert_uint_eq(blocks.rip, CODE + sizeof(head) + rows[row].branch);
		} else {
			ck_assert_int_eq(blocks.status, ST_HALT);
			ck_assert_uint_eq(blocks.rip, CODE + p.len);
		}
		ck_assert_uint_eq(blocks.regs[R_AX], 0x1244);
		ck_assert_uint_eq(blocks.regs[R_DI], 1);
	}
#if defined(__x86_64__)
	ck_assert_uint_gt(jit_runs_translated(m.cpu.icache), before);
#else
	(void)before;
#endif
}
END_TEST

/* A chain of translated blocks (each run reaches its block's end):
 *   A: add eax, ebx; add ecx, 1; jmp $+2                    3 instructions
 *   B: mov edx, eax; or edx, 1; jnz $+3 (taken); hlt        3 (the HLT skipped)
 *   C: 32 x add esi, edx: a block ends by its count          32
 *   D: add edi, esi; sub ebp, ebp; jnz $+3 (not taken)       3
 *   E: add eax, ecx; add eax, edx; hlt                       3
 * linked by a run to the HLT, then run with every instruction limit up to
 * past the HLT, in 32-bit and in 64-bit code: at A + B (6), the next block
 * does not fit the deadline and must not start; at 7, one instruction of C
 * runs (emu/run.c thread_next_block: the next block only when its end is
 * within the deadline). Time, rIP and registers as the single steps'. */
START_TEST(chain_stops_at_deadline)
{
	static const uint8_t a[] = { 0x01, 0xd8, 0x83, 0xc1, 0x01, 0xeb, 0x00 };
	static const uint8_t bb[] = { 0x89, 0xc2, 0x83, 0xca, 0x01, 0x75, 0x01, 0xf4 };
	static const uint8_t d[] = { 0x01, 0xf7, 0x29, 0xed, 0x75, 0x01 };
	static const uint8_t e[] = { 0x01, 0xc8, 0x01, 0xd0, 0xf4 };
	struct program p = { .len = 0 };
	memcpy(p.bytes, a, sizeof(a));
	memcpy(p.bytes + sizeof(a), bb, sizeof(bb));
	p.len = sizeof(a) + sizeof(bb);
	for (unsigned i = 0; i < 32; i++) {
		b(&p, 0x01);
		b(&p, 0xd6);
	}
	memcpy(p.bytes + p.len, d, sizeof(d));
	p.len += sizeof(d);
	memcpy(p.bytes + p.len, e, sizeof(e));
	p.len += sizeof(e);
	const unsigned total = 3 + 3 + 32 + 3 + 3;      /* to the HLT, which counts */
	uint64_t regs[16] = { [R_AX] = 5, [R_BX] = 7, [R_CX] = 1, [R_BP] = 9 };
	for (unsigned k = 0; k < 2; k++) {
		random_machine(k == 1);
		for (unsigned limit = 1; limit <= total + 1; limit++) {
			load(&p, regs);
			run_steps(limit);
			/* The blocks the steps decoded (translated), linked by a run to
			 * the HLT; then the run with the limit follows the links. */
			begin(&p, regs);
			run_blocks(1000);
			ck_assert_int_eq(blocks.status, ST_HALT);
			begin(&p, regs);
			run_blocks(limit);
			assert_same(limit);
			ck_assert_uint_eq(blocks.time, limit < total ? limit : total);
		}
	}
}
END_TEST

/* Block A (mov eax, 1; add eax, ebx; jmp rel32 or jnz rel32 to B) and B
 * (add eax, 2; mov edx, eax; hlt) 100H after it in the same page, or in the
 * next page; 32-bit and 64-bit code. Two runs: the first links A to B, the
 * second follows the link from A's translated code. Then B's bytes, and
 * only those, are rewritten (add eax, 40h; sub edx, eax; add ecx, 3; hlt),
 * as a DMA write would (cpu_notify_phys_write): B is dropped, A stays
 * (emu/icache.h: a write drops the blocks it overlaps), its link to B's
 * slot made for the slot's old generation. Two runs again: the new B's
 * effect, as the single steps of the new program (SDM Vol.3 11.6: a write
 * to code is seen when it next runs); the link must not be followed. */
START_TEST(chain_link_retargeted)
{
	static const uint8_t old_b[] = { 0x83, 0xc0, 0x02, 0x89, 0xc2, 0xf4 };
	static const uint8_t new_b[] = { 0x83, 0xc0, 0x40, 0x29, 0xc2, 0x83, 0xc1, 0x03, 0xf4 };
	static struct outcome after;
	for (unsigned k = 0; k < 8; k++) {
		bool long_mode = k & 1, jcc = k & 2;
		unsigned at_b = k & 4 ? PAGE_SIZE : 0x100;
		random_machine(long_mode);
		struct program p = { .len = 0 };
		static const uint8_t a[] = { 0xb8, 0x01, 0x00, 0x00, 0x00, 0x01, 0xd8 };
		memcpy(p.bytes, a, sizeof(a));
		p.len = sizeof(a);
		if (jcc)
			b(&p, 0x0f);
		b(&p, jcc ? 0x85 : 0xe9);
		uint32_t rel = at_b - (p.len + 4);
		for (unsigned i = 0; i < 4; i++)
			b(&p, (uint8_t)(rel >> (8 * i)));
		struct program q = p;
		memcpy(p.bytes + at_b, old_b, sizeof(old_b));
		p.len = at_b + sizeof(old_b);
		memcpy(q.bytes + at_b, new_b, sizeof(new_b));
		q.len = at_b + sizeof(new_b);
		uint64_t regs[16] = { [R_BX] = 1 };

		load(&p, regs);
		run_steps(100);
		load(&p, regs);
		run_blocks(100);
		assert_same(k);
		struct block *blk_a = icache_find(m.cpu.icache, CODE), *blk_b = icache_find(m.cpu.icache, CODE + at_b);
		ck_assert_ptr_nonnull(blk_a);
		ck_assert_ptr_nonnull(blk_b);
		ck_assert(blk_a->links[0].to == blk_b || blk_a->links[1].to == blk_b);
		begin(&p, regs);
		run_blocks(100);
		assert_same(k);
		ck_assert_uint_eq(blocks.regs[R_DX], 4);

		physmem_write_bytes(&m.pm, CODE + at_b, new_b, sizeof(new_b));
		cpu_notify_phys_write(&m.cpu, CODE + at_b, sizeof(new_b));
		ck_assert_uint_eq(blk_a->pa, CODE);
		ck_assert_uint_eq(blk_b->pa, BLOCK_INVALID);
		begin(&p, regs);
		run_blocks(100);
		after = blocks;
		begin(&p, regs);
		run_blocks(100);
		load(&q, regs);
		run_steps(100);
		assert_same_as(&after, k);
		assert_same(k);
		ck_assert_uint_eq(blocks.regs[R_AX], 0x42);
		ck_assert_uint_eq(blocks.regs[R_CX], 3);
	}
}
END_TEST

/* 64-bit code: block A (mov eax, 1; add eax, ebx; jmp rel32) at 40000H
 * goes to B (add eax, 2; mov edx, eax; hlt) at 41000H, mapped to physical
 * 41000H. Two runs: the first links A to B, the second follows the link
 * from A's translated code. Then the page table maps 41000H to physical
 * 42000H, which holds another B (add eax, 40h; sub edx, eax; add ecx, 3;
 * hlt), and INVLPG's TLB flush of the page follows (tlb_flush_page): a new
 * TLB epoch, a new link context (emu/run.c). No byte of code changed, no
 * block was dropped: only the link's context tells that B is not what a
 * lookup now finds (SDM Vol.3 4.10.4.1: after INVLPG the fetch uses the new
 * translation). Two runs again: the other B's effect, as the single steps'. */
START_TEST(chain_link_remapped)
{
	static const uint8_t a[] = { 0xb8, 0x01, 0x00, 0x00, 0x00, 0x01, 0xd8, 0xe9, 0xf4, 0x0f, 0x00, 0x00 };
	static const uint8_t old_b[] = { 0x83, 0xc0, 0x02, 0x89, 0xc2, 0xf4 };
	static const uint8_t new_b[] = { 0x83, 0xc0, 0x40, 0x29, 0xc2, 0x83, 0xc1, 0x03, 0xf4 };
	static struct outcome after;
	random_machine(true);
	struct program p = { .len = 0 };
	memcpy(p.bytes, a, sizeof(a));
	memcpy(p.bytes + PAGE_SIZE, old_b, sizeof(old_b));
	p.len = PAGE_SIZE + sizeof(old_b);
	physmem_write_bytes(&m.pm, CODE + CODE_SIZE, new_b, sizeof(new_b));
	uint64_t regs[16] = { [R_BX] = 1 };
	load(&p, regs);
	run_steps(100);
	ck_assert_uint_eq(steps.regs[R_DX], 4);
	load(&p, regs);
	run_blocks(100);
	assert_same(0);
	begin(&p, regs);
	run_blocks(100);
	assert_same(1);
	struct block *blk_a = icache_find(m.cpu.icache, CODE), *blk_b = icache_find(m.cpu.icache, CODE + PAGE_SIZE);
	ck_assert(blk_a && blk_b);
	ck_assert(blk_a->links[0].to == blk_b || blk_a->links[1].to == blk_b);

	physmem_write(&m.pm, PT + ((CODE + PAGE_SIZE) >> 12) * 8, 8, (CODE + CODE_SIZE) | 3);
	tlb_flush_page(&m.cpu.tlb, CODE + PAGE_SIZE);
	ck_assert_uint_eq(blk_b->pa, CODE + PAGE_SIZE);     /* still cached */
	begin(&p, regs);
	run_blocks(100);
	after = blocks;
	begin(&p, regs);
	run_blocks(100);
	begin(&p, regs);
	run_steps(100);
	assert_same_as(&after, 2);
	assert_same(3);
	ck_assert_uint_eq(blocks.regs[R_AX], 0x42);
	ck_assert_uint_eq(blocks.regs[R_CX], 3);
}
END_TEST

/* A: mov edx, eax; sub edx, ecx; jz B; C: add esi, edx; add edi, esi; hlt;
 * B: add eax, 7; mov edi, eax; hlt (each a run), with jit_hot = 2, run five
 * times: twice with EAX != ECX (A, C), which translates A and C on their
 * second entry; then three times with EAX = ECX (A, B): the first enters B
 * (and links A to it), the second reaches B from A's translated code by the
 * link: B's second entry, which must be counted (emu/run.c
 * thread_next_block: jit_enter) and translates it; the third translates
 * nothing. Each run leaves the single steps' machine. */
START_TEST(next_block_translated_when_hot)
{
	static const uint8_t code[] = { 0x89, 0xc2, 0x29, 0xca, 0x74, 0x05, 0x01, 0xd6, 0x01, 0xf7, 0xf4,
					0x83, 0xc0, 0x07, 0x89, 0xc7, 0xf4 };
	static struct outcome expected[2];
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	uint64_t regs[2][16] = { { [R_AX] = 6, [R_CX] = 5, [R_SI] = 1 }, { [R_AX] = 5, [R_CX] = 5, [R_SI] = 1 } };
	m.cpu.icache->jit_hot = 2;
	for (unsigned k = 0; k < 2; k++) {
		load(&p, regs[k]);
		run_steps(100);
		expected[k] = steps;
	}
	/* The single steps entered the blocks too: drop them. */
	load(&p, regs[0]);
	static const unsigned translated[5] = { 0, 2, 0, 1, 0 };
	for (unsigned n = 0; n < 5; n++) {
		unsigned k = n >= 2;
		unsigned long before = jit_runs_translated(m.cpu.icache);
		begin(&p, regs[k]);
		run_blocks(100);
		steps = expected[k];
		assert_same(n);
		if (n >= 2) {
			const struct block *blk_b = icache_find(m.cpu.icache, CODE + 11);
			ck_assert_ptr_nonnull(blk_b);
			ck_assert_uint_eq(blk_b->heat, n == 2 ? 1 : 0);
		}
#if defined(__x86_64__)
		ck_assert_uint_eq(jit_runs_translated(m.cpu.icache) - before, translated[n]);
#else
		(void)before;
		(void)translated;
#endif
	}
	m.cpu.icache->jit_hot = 1;
}
END_TEST

/* Conditions a Jcc after a translated run may not take from the host's
 * flags, each after a run that reaches the Jcc (the taken path sets EDI 2,
 * the other 1), in 32-bit and 64-bit code, as the single steps:
 *   mov edx, [ebx]; jmp $+2 (the access's page into the TLB), then
 *   add eax, ecx; mov edx, [ebx] or mov edx, eax; inc esi or dec esi;
 *   jb, jae, jbe or ja: CF is the ADD's (SDM Vol.2 INC, DEC: "The CF flag
 *   is not affected"), which the host's flags do not hold after the load's
 *   TLB lookup; EAX FFFFFFFFh or 1 (+ ECX 1: CF 1 or 0), ESI such that
 *   the INC/DEC leaves ZF 1 or 0;
 *   add eax, ecx; shl/shr/sar edx, 2-31; jo, jno, jl, jge, jle, jg: a
 *   shift's OF for a count above 1 (SDM Vol.2 SAL/SAR/SHL/SHR: undefined;
 *   the model's, emu/shift.c, is the reference), random EDX;
 *   add eax, ecx; imul edx, esi; jo, jb, jz, js, jp: IMUL's flags (SF, ZF,
 *   PF undefined, SDM Vol.2 IMUL) are never the host's. */
START_TEST(inc_then_jb_not_from_host)
{
	static const uint8_t warm[] = { 0x8b, 0x13, 0xeb, 0x00 };
	static const uint8_t tail[] = { 0xbf, 0x01, 0x00, 0x00, 0x00, 0xf4, 0xbf, 0x02, 0x00, 0x00, 0x00, 0xf4 };
	unsigned n = 0;
	for (unsigned k = 0; k < 2; k++) {
		random_machine(k == 1);
		uint64_t bx = k ? DATA + 0x100 : 0x100;
		/* INC/DEC then a condition that reads CF. */
		static const uint8_t cf_ccs[] = { 0x2, 0x3, 0x6, 0x7 };
		for (unsigned v = 0; v < 64; v++) {
			bool mem = v & 1, dec = v & 2, cf = v & 4, zf = v & 8;
			unsigned cc = cf_ccs[v >> 4];
			struct program p = { .len = 0 };
			memcpy(p.bytes, warm, sizeof(warm));
			p.len = sizeof(warm);
			b(&p, 0x01);
			b(&p, 0xc8);
			b(&p, mem ? 0x8b : 0x89);
			b(&p, mem ? 0x13 : 0xc2);
			b(&p, 0xff);
			b(&p, dec ? 0xce : 0xc6);
			b(&p, 0x70 | cc);
			b(&p, 6);
			memcpy(p.bytes + p.len, tail, sizeof(tail));
			p.len += sizeof(tail);
			uint64_t regs[16] = { [R_AX] = cf ? 0xffffffff : 1, [R_CX] = 1, [R_BX] = bx,
					      [R_SI] = zf ? (dec ? 1 : 0xffffffff) : 7 };
			run_both(&p, regs, 100, n++);
			bool taken = cc == 0x2 ? cf : cc == 0x3 ? !cf : cc == 0x6 ? cf || zf : !cf && !zf;
			ck_assert_int_eq(blocks.status, ST_HALT);
			ck_assert_uint_eq(blocks.regs[R_DI], taken ? 2 : 1);
		}
		/* A shift by 2-31, then a condition that reads OF. */
		static const uint8_t of_ccs[] = { 0x0, 0x1, 0xc, 0xd, 0xe, 0xf };
		static const uint8_t shifts[] = { 0xe2, 0xea, 0xfa };   /* C1 /4, /5, /7 EDX */
		for (unsigned v = 0; v < 3 * 6 * 8; v++) {
			struct program p = { .len = 0 };
			b(&p, 0x01);
			b(&p, 0xc8);
			b(&p, 0xc1);
			b(&p, shifts[v % 3]);
			b(&p, 2 + (unsigned)(rnd() % 30));
			b(&p, 0x70 | of_ccs[v / 3 % 6]);
			b(&p, 6);
			memcpy(p.bytes + p.len, tail, sizeof(tail));
			p.len += sizeof(tail);
			uint64_t regs[16] = { [R_AX] = rnd(), [R_CX] = rnd(), [R_DX] = rnd() };
			run_both(&p, regs, 100, n++);
			ck_assert_int_eq(blocks.status, ST_HALT);
		}
		/* IMUL, then a condition on any of its flags. */
		static const uint8_t imul_ccs[] = { 0x0, 0x2, 0x4, 0x8, 0xa };
		for (unsigned v = 0; v < 5 * 8; v++) {
			struct program p = { .len = 0 };
			static const uint8_t body[] = { 0x01, 0xc8, 0x0f, 0xaf, 0xd6 };
			memcpy(p.bytes, body, sizeof(body));
			p.len = sizeof(body);
			b(&p, 0x70 | imul_ccs[v % 5]);
			b(&p, 6);
			memcpy(p.bytes + p.len, tail, sizeof(tail));
			p.len += sizeof(tail);
			uint64_t regs[16] = { [R_AX] = rnd(), [R_CX] = rnd(), [R_DX] = rnd() & (v & 8 ? 0xff : ~0ull),
					      [R_SI] = v & 16 ? 0 : rnd() };
			run_both(&p, regs, 100, n++);
			ck_assert_int_eq(blocks.status, ST_HALT);
		}
	}
}
END_TEST

/* ---- MOV m, imm, NOP, the accumulator forms, CMP/TEST m, imm, rIP-relative
 * operands, CALL and RET, directed ---- */

/* [rIP + disp32] ending at p's end (the instruction just appended), its
 * displacement (4 bytes at offset at) made to reach linear address to. */
static void aim(struct program *p, unsigned at, uint64_t to)
{
	uint32_t disp = (uint32_t)(to - (CODE + p->len));
	memcpy(p->bytes + at, &disp, 4);
}

/* The directed tests' memory operands (SDM Vol.2 2.1.5) with the registers
 * of shape_regs(): ModRM (reg 0), SIB and displacement, the segment override
 * and REX bits each needs, and the data offset each reaches; rip: [rIP +
 * disp32] in 64-bit code (its displacement made to reach that offset),
 * [disp32] in 32-bit code (protected_segments, long_mode_sparse: FS and GS
 * bases). */
#define GP_FAULT 0xffffffffu
static const struct shape {
	unsigned code;             /* 32 or 64: the code it is for; 0: both */
	uint8_t seg, rex;
	uint8_t ea[6];
	unsigned ea_len;
	bool rip;
	uint32_t at;               /* the data offset it reaches, or GP_FAULT */
} shapes[] = {
	{ 0, 0, 0, { 0x43, 0x10 }, 2, false, 0x1110 },                          /* [rbx + 10h] */
	{ 0, 0, 0, { 0x84, 0xb3, 0x00, 0x01, 0x00, 0x00 }, 6, false, 0x120c },  /* [rbx + rsi*4 + 100h] */
	{ 0, 0, 0, { 0x05, 0x30, 0x12, 0x00, 0x00 }, 5, true, 0x1230 },         /* [rip + disp32], [disp32] */
	{ 64, 0, REX_X | REX_B, { 0x44, 0xcc, 0xf8 }, 3, false, 0x1220 },       /* [r12 + r9*8 - 8] */
	{ 64, 0x64, 0, { 0x43, 0x40 }, 2, false, 0x1940 },                      /* fs:[rbx + 40h]: base 800h */
	{ 64, 0x65, 0, { 0x43, 0x50 }, 2, false, 0x1190 },                      /* gs:[rbx + 50h]: base 40h */
	{ 64, 0x26, 0, { 0x43, 0x10 }, 2, false, 0x1110 },                      /* es:[rbx + 10h]: no base */
	{ 32, 0x26, 0, { 0x83, 0x40, 0x01, 0x0c, 0x00 }, 5, false, 0x1240 },    /* es:[ebx + 0C0140h]: wraps */
	{ 32, 0x36, 0, { 0x84, 0xb3, 0x00, 0x01, 0x00, 0x00 }, 6, false, 0x120c }, /* ss:[ebx + esi*4 + 100h] */
	{ 32, 0x65, 0, { 0x43, 0x50 }, 2, false, GP_FAULT },                    /* gs:[ebx + 50h]: read-only */
};
#define SHAPES (sizeof(shapes) / sizeof(shapes[0]))

static bool shape_in(const struct shape *sh, bool long_mode)
{
	return !sh->code || sh->code == (long_mode ? 64u : 32u);
}

static void shape_regs(uint64_t regs[16], bool long_mode)
{
	uint64_t base = long_mode ? DATA : 0;
	regs[R_BX] = base + 0x1100;
	regs[R_SI] = 3;
	regs[R_R12] = base + 0x1200;
	regs[R_R9] = 5;
}

/* An instruction with shape sh's memory operand appended: 66H where asked,
 * REX (W where asked, and sh's bits), the opcode (0F xx as 0x0fxx), ModRM.reg
 * reg, imm_len bytes of imm. */
static void mem_insn(struct program *p, bool long_mode, const struct shape *sh, bool p66, bool w, unsigned op,
		     unsigned reg, uint64_t imm, unsigned imm_len)
{
	if (sh->seg)
		b(p, sh->seg);
	if (p66)
		b(p, 0x66);
	unsigned rex = sh->rex | (w ? REX_W : 0) | (reg & 8 ? REX_R : 0);
	if (rex)
		b(p, 0x40 | rex);
	if (op > 0xff)
		b(p, op >> 8);
	b(p, op & 0xff);
	unsigned ea_at = p->len;
	for (unsigned i = 0; i < sh->ea_len; i++)
		b(p, i == 0 ? sh->ea[0] | (reg & 7) << 3 : sh->ea[i]);
	for (unsigned i = 0; i < imm_len; i++)
		b(p, (unsigned)(imm >> (8 * i)));
	if (sh->rip && long_mode)
		aim(p, ea_at + 1, DATA + sh->at);
}

/* MOV m, imm in each of its forms (C6 /0 ib, 66 C7 /0 iw, C7 /0 id, REX.W C7
 * /0 id: the immediate sign-extended to 64 bits, SDM Vol.2 MOV) through each
 * shape above, in 32-bit and 64-bit code, an immediate with its sign bits
 * clear and one with them set: mov [m], edx; jmp $+2 (the page's write
 * translation into the TLB; a load where the segment is read-only), then
 * add ecx, 1; MOV m, imm; add ecx, 1; hlt, a run the translator takes. The
 * bytes stored are the immediate's, their neighbours as they were, all as
 * the single steps leave them; through GS in 32-bit code (read-only)
 * #GP(0) at the store, after the ADD. (The translator once took MOV m, imm
 * for a register MOV of an immediate: the host crashed, and no test had
 * one.) */
START_TEST(store_immediate_to_memory)
{
	static const struct {
		uint8_t op;
		bool p66, w;
		unsigned size, imm_len;
	} forms[] = { { 0xc6, false, false, 1, 1 }, { 0xc7, true, false, 2, 2 }, { 0xc7, false, false, 4, 4 },
		      { 0xc7, false, true, 8, 4 } };
	unsigned n = 0;
	for (unsigned k = 0; k < 2; k++) {
		bool long_mode = k == 1;
		random_machine(long_mode);
		for (unsigned s = 0; s < SHAPES; s++) {
			const struct shape *sh = &shapes[s];
			if (!shape_in(sh, long_mode))
				continue;
			for (unsigned v = 0; v < 8; v++) {
				unsigned f = v / 2, size = forms[f].size;
				if (forms[f].w && !long_mode)
					continue;
				uint64_t imm = v & 1 ? rnd() | 0x8080808080808080ull : rnd() & 0x7f7f7f7f7f7f7f7full;
				struct program p = { .len = 0 };
				mem_insn(&p, long_mode, sh, false, false, sh->at == GP_FAULT ? 0x8b : 0x89, R_DX, 0, 0);
				PUT(&p, 0xeb, 0x00);
				unsigned block = p.len;
				PUT(&p, 0x83, 0xc1, 0x01);
				mem_insn(&p, long_mode, sh, forms[f].p66, forms[f].w, forms[f].op, 0, imm, forms[f].imm_len);
				PUT(&p, 0x83, 0xc1, 0x01, 0xf4);
				uint64_t regs[16] = { [R_DX] = rnd() };
				shape_regs(regs, long_mode);
				run_both_translated(&p, regs, 100, n++, CODE + block);
				if (sh->at == GP_FAULT) {
					ck_assert_uint_eq(blocks.seen.vector, EXC_GP);
					ck_assert_uint_eq(blocks.seen.error_code, 0);
					ck_assert_uint_eq(blocks.rip, CODE + block + 3);
					ck_assert_uint_eq(blocks.regs[R_CX], 1);
					continue;
				}
				ck_assert_int_eq(blocks.status, ST_HALT);
				ck_assert_uint_eq(blocks.regs[R_CX], 2);
				uint64_t stored = 0, want = size == 8 ? (uint64_t)(int64_t)(int32_t)imm
								      : imm & ((1ull << (8 * size)) - 1);
				memcpy(&stored, blocks.data + sh->at, size);
				ck_assert_uint_eq(stored, want);
				ck_assert_uint_eq(blocks.data[sh->at - 1], data0[sh->at - 1]);
				unsigned after = sh->at + (size > 4 ? size : 4);   /* past the warm-up's store too */
				ck_assert_uint_eq(blocks.data[after], data0[after]);
			}
		}
	}
}
END_TEST

/* MOVNTI (0F C3) runs in translated code as the store it is (its
 * non-temporal hint changes no result, SDM Vol.2 MOVNTI): a loop that begins
 * with two, 64-bit and 32-bit, starts translated, and leaves the machine the
 * single steps do.
 *   40000: movnti [rbx], rax; movnti [rbx + 8], esi; add rax, rcx;
 *          add rsi, rax; dec edx; jnz 40000; hlt */
START_TEST(movnti_in_runs)
{
	static const uint8_t code[] = { 0x48, 0x0f, 0xc3, 0x03, 0x0f, 0xc3, 0x73, 0x08, 0x48, 0x01, 0xc8,
					0x48, 0x01, 0xc6, 0xff, 0xca, 0x75, 0xee, 0xf4 };
	long_mode_sparse();
	stop_at_events(&m, &seen);
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	uint64_t regs[16] = { [R_AX] = 0x8877665544332211ull, [R_CX] = 0x0101010101010101ull,
			      [R_BX] = DATA + 0x100, [R_SI] = 0xfedcba9876543210ull, [R_DX] = 20 };
	run_both_translated(&p, regs, 1000, 0, CODE);
	ck_assert_int_eq(blocks.status, ST_HALT);
	uint64_t rax = regs[R_AX], rsi = regs[R_SI], stored_rax = 0, stored_esi = 0;
	for (unsigned k = 0; k < 20; k++) {
		stored_rax = rax;
		stored_esi = (uint32_t)rsi;
		rax += regs[R_CX];
		rsi += rax;
	}
	uint64_t q = 0;
	uint32_t d = 0;
	physmem_read_bytes(&m.pm, DATA + 0x100, &q, 8);
	physmem_read_bytes(&m.pm, DATA + 0x108, &d, 4);
	ck_assert_uint_eq(q, stored_rax);
	ck_assert_uint_eq(d, stored_esi);
}
END_TEST

/* NOP (SDM Vol.2 NOP: 90, 0F 1F /0 "Ev", whose operand is never accessed)
 * in runs, in 64-bit code: add ecx, 1; 90; 66 90; REX.W 90; REX 90; NOP
 * [rax] (RAX non-canonical); NOP [rax + rax]; 66 NOP [rax + rax]; NOP [rip +
 * 7FFF0000h] (not mapped); NOP fs:[rbx] (not mapped); NOP eax; NOP r8; add
 * ecx, 1; then 90 with REX.B, which is XCHG (no NOP: the translator must
 * leave it): 41 90 (xchg r8d, eax: both zero-extended), add ecx, 1; 49 90
 * (xchg r8, rax); 66 41 90 (xchg r8w, ax); 41 97 (xchg r15d, eax); add ecx,
 * 1; hlt. In 32-bit code: add ecx, 1; 90; 66 90; NOP [eax], NOP [0FFFF0000h]
 * (past DS's limit); NOP gs:[ebx + 10h]; NOP fs:[esp] (below FS's
 * expand-down range); 67 NOP [bx]; NOP ebx; add ecx, 1; xchg ecx, eax (91);
 * xchg dx, ax (66 92); add ecx, 1; hlt. No fault; the registers as the SDM's
 * XCHG leaves them; as the single steps under every instruction limit; the
 * first run translated. */
START_TEST(nop_forms)
{
	static const uint8_t code64[] = {
		0x83, 0xc1, 0x01, 0x90, 0x66, 0x90, 0x48, 0x90, 0x40, 0x90,
		0x0f, 0x1f, 0x00, 0x0f, 0x1f, 0x44, 0x00, 0x00, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00,
		0x0f, 0x1f, 0x05, 0x00, 0x00, 0xff, 0x7f, 0x64, 0x0f, 0x1f, 0x03,
		0x0f, 0x1f, 0xc0, 0x49, 0x0f, 0x1f, 0xc0, 0x83, 0xc1, 0x01,
		0x41, 0x90, 0x83, 0xc1, 0x01, 0x49, 0x90, 0x66, 0x41, 0x90, 0x41, 0x97, 0x83, 0xc1, 0x01, 0xf4,
	};
	static const uint8_t code32[] = {
		0x83, 0xc1, 0x01, 0x90, 0x66, 0x90,
		0x0f, 0x1f, 0x00, 0x0f, 0x1f, 0x05, 0x00, 0x00, 0xff, 0xff, 0x65, 0x0f, 0x1f, 0x43, 0x10,
		0x64, 0x0f, 0x1f, 0x04, 0x24, 0x67, 0x0f, 0x1f, 0x07, 0x0f, 0x1f, 0xc3, 0x83, 0xc1, 0x01,
		0x91, 0x66, 0x92, 0x83, 0xc1, 0x01, 0xf4,
	};
	for (unsigned k = 0; k < 2; k++) {
		bool long_mode = k == 1;
		random_machine(long_mode);
		struct program p = { .len = 0 };
		if (long_mode)
			put(&p, code64, sizeof(code64));
		else
			put(&p, code32, sizeof(code32));
		uint64_t regs64[16] = { [R_AX] = 0x8000000011112222ull, [R_R8] = 0x3333333344445555ull,
					[R_R15] = 0x6666666677778888ull };
		uint64_t regs32[16] = { [R_AX] = 0xfffffff0, [R_DX] = 0x12345678, [R_SP] = 0x10, [R_BX] = 0x100 };
		const uint64_t *regs = long_mode ? regs64 : regs32;
		unsigned total = long_mode ? 20 : 14;
		for (unsigned limit = 1; limit <= total + 1; limit++) {
			if (limit > total)
				run_both_translated(&p, regs, 100, limit, CODE);
			else
				run_both(&p, regs, limit, limit);
			ck_assert_uint_eq(blocks.seen.vector, 0xff);
		}
		ck_assert_int_eq(blocks.status, ST_HALT);
		ck_assert_uint_eq(blocks.time, total);
		if (long_mode) {
			ck_assert_uint_eq(blocks.regs[R_CX], 4);
			ck_assert_uint_eq(blocks.regs[R_AX], 0x77778888);
			ck_assert_uint_eq(blocks.regs[R_R8], 0x44442222);
			ck_assert_uint_eq(blocks.regs[R_R15], 0x11115555);
		} else {
			ck_assert_uint_eq(blocks.regs[R_CX], 0xfffffff1);
			ck_assert_uint_eq(blocks.regs[R_AX], 0x5678);
			ck_assert_uint_eq(blocks.regs[R_DX], 0x12340002);
		}
	}
}
END_TEST

/* The status flags of an ALU operation (SDM Vol.1 3.4.3.1, Vol.2 ADD, OR,
 * AND, SUB, XOR, CMP, TEST), the directed tests' own oracle: op the
 * operation's /digit in 80-83 (0 ADD, 1 OR, 4 AND, 5 SUB, 6 XOR, 7 CMP) or 8
 * for TEST, a and b its operands, size bytes. */
struct status_flags {
	bool cf, pf, zf, sf, of;
};

static struct status_flags alu_flags_of(unsigned op, uint64_t a, uint64_t b, unsigned size)
{
	uint64_t mask = size == 8 ? ~0ull : (1ull << (8 * size)) - 1, top = 1ull << (8 * size - 1), r;
	struct status_flags f = { .cf = false };
	a &= mask;
	b &= mask;
	switch (op) {
	case 0:
		r = (a + b) & mask;
		f.cf = r < a;
		f.of = ((a ^ r) & (b ^ r) & top) != 0;
		break;
	case 5:
	case 7:
		r = (a - b) & mask;
		f.cf = a < b;
		f.of = ((a ^ b) & (a ^ r) & top) != 0;
		break;
	case 1: r = a | b; break;
	case 6: r = a ^ b; break;
	default: r = a & b; break;
	}
	f.zf = r == 0;
	f.sf = (r & top) != 0;
	f.pf = (__builtin_popcount((unsigned)(r & 0xff)) & 1) == 0;
	return f;
}

/* Does condition cc (the low four bits of 70-7F, SDM Vol.1 Table B-1) hold? */
static bool cond_of(unsigned cc, struct status_flags f)
{
	bool v;
	switch (cc >> 1) {
	case 0: v = f.of; break;
	case 1: v = f.cf; break;
	case 2: v = f.zf; break;
	case 3: v = f.cf || f.zf; break;
	case 4: v = f.sf; break;
	case 5: v = f.pf; break;
	case 6: v = f.sf != f.of; break;
	default: v = f.zf || f.sf != f.of; break;
	}
	return (cc & 1) ? !v : v;
}

/* An operand for an ALU test against imm (already sign-extended to the
 * operand size): kind 0 equal to it, 1 one more, 2 the sign bit alone, 3
 * random. */
static uint64_t operand_near(unsigned kind, uint64_t imm, unsigned size)
{
	return kind == 0 ? imm : kind == 1 ? imm + 1 : kind == 2 ? 1ull << (8 * size - 1) : rnd();
}

/* The immediate of size imm_len sign-extended to an operand of size bytes,
 * masked to it. */
static uint64_t imm_of(uint64_t imm, unsigned imm_len, unsigned size)
{
	uint64_t v = imm_len == 1 ? (uint64_t)(int64_t)(int8_t)imm : imm_len == 2 ? (uint64_t)(int64_t)(int16_t)imm
										: (uint64_t)(int64_t)(int32_t)imm;
	return size == 8 ? v : v & ((1ull << (8 * size)) - 1);
}

/* Jcc rel8 (70+cc) over mov edi, 1; hlt to mov edi, 2; hlt. */
static void jcc_to_two(struct program *p, unsigned cc)
{
	PUT(p, 0x70 | cc, 6, 0xbf, 0x01, 0x00, 0x00, 0x00, 0xf4, 0xbf, 0x02, 0x00, 0x00, 0x00, 0xf4);
}

/* The accumulator with an immediate (04/05 ADD, 0C/0D OR, 24/25 AND, 2C/2D
 * SUB, 34/35 XOR, 3C/3D CMP, A8/A9 TEST) in 32-bit and 64-bit code at every
 * size: the byte forms and 66H's word forms, 32 bits, REX.W (the imm32
 * sign-extended), rAX equal to
 * the immediate, one more, the sign bit, or random (its other bits random):
 * mov edx, ebx; OP; setz cl; sets dl; cmovo esi, edi (and in every other
 * case adc ebp, 0); then a Jcc of a condition that changes from case to case
 * to mov edi, 2; hlt past mov edi, 1; hlt. As the single steps; CL, DL and
 * (where the Jcc reads OP's flags) the branch as the SDM defines the flags
 * (alu_flags_of); every form in the run from mov edx, ebx. */
START_TEST(accumulator_immediate_forms)
{
	static const uint8_t ops[] = { 0x04, 0x0c, 0x24, 0x2c, 0x34, 0x3c, 0xa8 };
	static const uint8_t digit[] = { 0, 1, 4, 5, 6, 7, 8 };
	unsigned n = 0;
	for (unsigned k = 0; k < 2; k++) {
		bool long_mode = k == 1;
		random_machine(long_mode);
		for (unsigned o = 0; o < sizeof(ops); o++) {
			for (unsigned size = 1; size <= (long_mode ? 8u : 4u); size *= 2) {
				for (unsigned v = 0; v < 8; v++) {
					unsigned imm_len = size == 8 ? 4 : size, cc = 2 * v + (v & 1);
					bool adc = v & 1;
					uint64_t imm = rnd() % 4 ? rnd() : 0x80ull << (8 * (imm_len - 1));
					uint64_t mask = size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
					uint64_t a = operand_near(v % 4, imm_of(imm, imm_len, size), size) & mask;
					struct program p = { .len = 0 };
					PUT(&p, 0x89, 0xda);
					if (size == 2)
						b(&p, 0x66);
					if (size == 8)
						b(&p, 0x48);
					b(&p, ops[o] + (size > 1));
					for (unsigned i = 0; i < imm_len; i++)
						b(&p, (unsigned)(imm >> (8 * i)));
					PUT(&p, 0x0f, 0x94, 0xc1, 0x0f, 0x98, 0xc2, 0x0f, 0x40, 0xf7);
					if (adc)
						PUT(&p, 0x83, 0xd5, 0x00);
					jcc_to_two(&p, cc);
					uint64_t regs[16] = { [R_AX] = (rnd() & ~mask) | a, [R_BX] = rnd(), [R_CX] = rnd(),
							      [R_DX] = rnd(), [R_SI] = rnd(), [R_DI] = rnd(), [R_BP] = rnd() };
					if (size >= 4)
						run_both_translated(&p, regs, 100, n++, CODE);
					else
						run_both(&p, regs, 100, n++);
					ck_assert_int_eq(blocks.status, ST_HALT);
					struct status_flags f = alu_flags_of(digit[o], a, imm_of(imm, imm_len, size), size);
					ck_assert_uint_eq(blocks.regs[R_CX] & 0xff, f.zf);
					ck_assert_uint_eq(blocks.regs[R_DX] & 0xff, f.sf);
					if (!adc)
						ck_assert_uint_eq(blocks.regs[R_DI], cond_of(cc, f) ? 2 : 1);
				}
			}
		}
	}
}
END_TEST

/* CMP m, imm (81 /7 id, 83 /7 ib) and TEST m, imm (F7 /0 id), with 66H (iw)
 * and, in 64-bit code, with REX.W (sign-extended), in 32-bit and 64-bit
 * code: mov [rbx + 8], rax (the memory operand); mov edx, [rbx + 8]; jmp
 * $+2 (its page in the TLB), then mov edx, ebx; OP [rbx + 8], imm; a reader
 * of its flags (SETcc cl, CMOVcc esi, edi of the Jcc's condition, or adc
 * ebp, 0); Jcc (every condition) to mov edi, 2; hlt past mov edi, 1; hlt;
 * the memory equal to the immediate, one more, the sign bit, or random. As
 * the single steps; the branch and SETcc as the SDM defines the flags
 * (alu_flags_of; after the ADC they are its own); without 66H, the run from
 * mov edx, ebx holds the compare (then the reader and a Jcc on the host's
 * flags, emu/jit.c end_of). */
START_TEST(compare_memory_with_immediate)
{
	static const struct {
		uint8_t op, modrm, digit;
		unsigned imm_len;         /* with 66H: 2 but for 83 */
		bool byte;                /* 80 /7 and F6 /0: a byte whatever the prefixes */
	} forms[] = { { 0x81, 0x7b, 7, 4, false }, { 0x83, 0x7b, 7, 1, false }, { 0xf7, 0x43, 8, 4, false },
		      { 0x80, 0x7b, 7, 1, true }, { 0xf6, 0x43, 8, 1, true } };
	unsigned n = 0;
	for (unsigned k = 0; k < 2; k++) {
		bool long_mode = k == 1;
		random_machine(long_mode);
		uint64_t bx = long_mode ? DATA + 0x100 : 0x100;
		for (unsigned f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
			for (unsigned w = 0; w < (long_mode ? 4u : 2u); w++) {
				bool p66 = w & 1, rex_w = w & 2;
				unsigned size = forms[f].byte ? 1 : rex_w ? 8 : p66 ? 2 : 4;
				unsigned imm_len = forms[f].imm_len == 1 ? 1 : p66 && !rex_w ? 2 : 4;
				for (unsigned cc = 0; cc < 16; cc++) {
					unsigned reader = (cc + f) % 3;   /* SETcc, CMOVcc, ADC */
					uint64_t imm = rnd() % 4 ? rnd() : 0x80ull << (8 * (imm_len - 1));
					uint64_t a = operand_near((cc + w) % 4, imm_of(imm, imm_len, size), size);
					if (forms[f].digit == 8 && (cc & 4))
						a = ~imm_of(imm, imm_len, size) & rnd();   /* TEST: ZF = 1 */
					struct program p = { .len = 0 };
					if (long_mode)
						b(&p, 0x48);
					PUT(&p, 0x89, 0x43, 0x08, 0x8b, 0x53, 0x08, 0xeb, 0x00);
					unsigned block = p.len;
					PUT(&p, 0x89, 0xda);
					if (p66)
						b(&p, 0x66);
					if (rex_w)
						b(&p, 0x48);
					PUT(&p, forms[f].op, forms[f].modrm, 0x08);
					for (unsigned i = 0; i < imm_len; i++)
						b(&p, (unsigned)(imm >> (8 * i)));
					if (reader == 0)
						PUT(&p, 0x0f, 0x90 | cc, 0xc1);
					else if (reader == 1)
						PUT(&p, 0x0f, 0x40 | cc, 0xf7);
					else
						PUT(&p, 0x83, 0xd5, 0x00);
					jcc_to_two(&p, cc);
					uint64_t regs[16] = { [R_AX] = a, [R_BX] = bx, [R_CX] = rnd(), [R_SI] = rnd(),
							      [R_DI] = rnd(), [R_BP] = rnd() };
					run_both_translated(&p, regs, 100, n++, CODE + block);
					ck_assert_int_eq(blocks.status, ST_HALT);
					struct status_flags fl = alu_flags_of(forms[f].digit, a, imm_of(imm, imm_len, size), size);
					if (reader == 0)
						ck_assert_uint_eq(blocks.regs[R_CX] & 0xff, cond_of(cc, fl));
					if (reader != 2)
						ck_assert_uint_eq(blocks.regs[R_DI], cond_of(cc, fl) ? 2 : 1);
				}
			}
		}
	}
}
END_TEST

/* rIP-relative operands in a run of 64-bit code (SDM Vol.2 2.2.1.6: from the
 * next instruction's address; the translator takes it from the block's
 * start): mov [rip → D], rdx; mov rdx, [rip → 40000H] (the data's and the
 * code's pages into the TLB); jmp $+2; then add ecx, 1; mov rax, [rip → D];
 * add eax, [rip → D + 4]; mov [rip → D + 10h], rax; cmp qword [rip → D],
 * imm32 (equal, sign-extended); setz bl; mov qword [rip → D + 18h], -5; mov
 * rsi, [rip → the block's own first bytes]; mov edi, fs:[rip → D - 800h]
 * (+ FS's base: D); test dword gs:[rip → D - 40h], imm32; setnz bpl; lea
 * r9, [rip → the block]; add ecx, 1; hlt (D: the data + 300h). Every value
 * as the SDM defines it, and as the single steps; the run translated. */
START_TEST(rip_relative_operands)
{
	random_machine(true);
	const uint64_t d = DATA + 0x300, rdx = 0xffffffff80001234ull;
	struct program p = { .len = 0 };
	PUT(&p, 0x48, 0x89, 0x15, 0, 0, 0, 0);
	aim(&p, p.len - 4, d);
	PUT(&p, 0x48, 0x8b, 0x15, 0, 0, 0, 0);
	aim(&p, p.len - 4, CODE);
	PUT(&p, 0xeb, 0x00);
	unsigned block = p.len;
	PUT(&p, 0x83, 0xc1, 0x01, 0x48, 0x8b, 0x05, 0, 0, 0, 0);
	aim(&p, p.len - 4, d);
	PUT(&p, 0x03, 0x05, 0, 0, 0, 0);
	aim(&p, p.len - 4, d + 4);
	PUT(&p, 0x48, 0x89, 0x05, 0, 0, 0, 0);
	aim(&p, p.len - 4, d + 0x10);
	PUT(&p, 0x48, 0x81, 0x3d, 0, 0, 0, 0, 0x34, 0x12, 0x00, 0x80);
	aim(&p, p.len - 8, d);
	PUT(&p, 0x0f, 0x94, 0xc3, 0x48, 0xc7, 0x05, 0, 0, 0, 0, 0xfb, 0xff, 0xff, 0xff);
	aim(&p, p.len - 8, d + 0x18);
	PUT(&p, 0x48, 0x8b, 0x35, 0, 0, 0, 0);
	aim(&p, p.len - 4, CODE + block);
	PUT(&p, 0x64, 0x8b, 0x3d, 0, 0, 0, 0);
	aim(&p, p.len - 4, d - 0x800);
	PUT(&p, 0x65, 0xf7, 0x05, 0, 0, 0, 0, 0x00, 0x00, 0x00, 0x80);
	aim(&p, p.len - 8, d - 0x40);
	PUT(&p, 0x40, 0x0f, 0x95, 0xc5, 0x4c, 0x8d, 0x0d, 0, 0, 0, 0);
	aim(&p, p.len - 4, CODE + block);
	PUT(&p, 0x83, 0xc1, 0x01, 0xf4);
	uint64_t regs[16] = { [R_DX] = rdx, [R_BX] = rnd(), [R_BP] = rnd() };
	run_both_translated(&p, regs, 100, 0, CODE + block);
	ck_assert_int_eq(blocks.status, ST_HALT);
	ck_assert_uint_eq(blocks.regs[R_CX], 2);
	ck_assert_uint_eq(blocks.regs[R_AX], (uint32_t)(rdx + (rdx >> 32)));
	ck_assert_uint_eq(blocks.regs[R_BX] & 0xff, 1);
	uint64_t own, at10, at18;
	memcpy(&own, p.bytes + block, 8);
	ck_assert_uint_eq(blocks.regs[R_SI], own);
	ck_assert_uint_eq(blocks.regs[R_DI], (uint32_t)rdx);
	ck_assert_uint_eq(blocks.regs[R_BP] & 0xff, 1);
	ck_assert_uint_eq(blocks.regs[R_R9], CODE + block);
	memcpy(&at10, blocks.data + 0x310, 8);
	memcpy(&at18, blocks.data + 0x318, 8);
	ck_assert_uint_eq(at10, blocks.regs[R_AX]);
	ck_assert_uint_eq(at18, (uint64_t)-5);
}
END_TEST

/* A translated run's stores into code (SDM Vol.3 11.6: a write to an
 * instruction that has been fetched is seen when it runs), in 64-bit code
 * (rIP-relative) and in 32-bit code (ES, whose base wraps to the code at
 * offset 0A0000H + the code's offset): mov [D], edx; jmp $+2; then add ecx,
 * 1; mov dword [T], 12345678h (T: the imm32 of the mov eax, 11111111h two
 * instructions on, in the same block); add ecx, 1; mov eax, 11111111h; mov
 * dword [U], 9ABCDEF0h (U: the imm32 of the mov ebx, 22222222h of the next
 * block); mov byte [the block's first byte], 90h (already run); jmp $+2;
 * mov ebx, 22222222h; add ecx, 1; hlt. EAX 12345678h, EBX 9ABCDEF0h, the
 * code and everything else as the single steps leave them; the run was
 * translated (the block itself is dropped by its own store). */
START_TEST(stores_into_own_code)
{
	for (unsigned k = 0; k < 2; k++) {
		bool long_mode = k == 1;
		random_machine(long_mode);
		struct program p = { .len = 0 };
		PUT(&p, 0x89, 0x15, 0x00, 0x03, 0x00, 0x00);       /* mov [D], edx */
		if (long_mode)
			aim(&p, p.len - 4, DATA + 0x300);
		PUT(&p, 0xeb, 0x00);
		unsigned block = p.len;
		PUT(&p, 0x83, 0xc1, 0x01);
		unsigned store_t = p.len;
		if (!long_mode)
			b(&p, 0x26);
		PUT(&p, 0xc7, 0x05, 0, 0, 0, 0, 0x78, 0x56, 0x34, 0x12);
		unsigned end_t = p.len;
		PUT(&p, 0x83, 0xc1, 0x01, 0xb8, 0x11, 0x11, 0x11, 0x11);
		unsigned t = p.len - 4;
		unsigned store_u = p.len;
		if (!long_mode)
			b(&p, 0x26);
		PUT(&p, 0xc7, 0x05, 0, 0, 0, 0, 0xf0, 0xde, 0xbc, 0x9a);
		unsigned end_u = p.len;
		unsigned store_v = p.len;
		if (!long_mode)
			b(&p, 0x26);
		PUT(&p, 0xc6, 0x05, 0, 0, 0, 0, 0x90);
		unsigned end_v = p.len;
		PUT(&p, 0xeb, 0x00, 0xbb, 0x22, 0x22, 0x22, 0x22);
		unsigned u = p.len - 4;
		PUT(&p, 0x83, 0xc1, 0x01, 0xf4);
		/* The displacements: from each store's end, or ES offsets. */
		const unsigned stores[3][3] = { { store_t, end_t, t }, { store_u, end_u, u }, { store_v, end_v, block } };
		for (unsigned i = 0; i < 3; i++) {
			unsigned disp_at = stores[i][0] + (long_mode ? 2 : 3);
			uint32_t disp = long_mode ? (uint32_t)(stores[i][2] - stores[i][1]) : 0xa0000 + stores[i][2];
			memcpy(p.bytes + disp_at, &disp, 4);
		}
		uint64_t regs[16] = { [R_DX] = rnd() };
		unsigned long before = jit_runs_translated(m.cpu.icache);
		run_blocks_of(&p, regs, 100);
#if defined(__x86_64__)
		ck_assert_uint_gt(jit_runs_translated(m.cpu.icache), before);
#else
		(void)before;
#endif
		run_steps_of(&p, regs, 100, k);
		ck_assert_int_eq(blocks.status, ST_HALT);
		ck_assert_uint_eq(blocks.regs[R_AX], 0x12345678);
		ck_assert_uint_eq(blocks.regs[R_BX], 0x9abcdef0);
		ck_assert_uint_eq(blocks.regs[R_CX], 3);
		ck_assert_uint_eq(blocks.code[block], 0x90);
	}
}
END_TEST

/* The qword an outcome holds at linear address a (the data, or the code's
 * pages). */
static uint64_t qword_in(const struct outcome *o, uint64_t a)
{
	uint64_t v;
	memcpy(&v, a >= DATA ? o->data + (a - DATA) : o->code + (a - CODE), 8);
	return v;
}

/* CALL rel32 and RET (C3) ending translated runs in 64-bit code (emu/jit.c
 * emit_call_ret, SDM Vol.2 CALL, RET):
 *   add ecx, 1; call S; add ecx, 2; hlt; S: add esi, 1; mov edx, esi; ret
 * with RSP 16-byte aligned in the data, at a page boundary (the slot the
 * last 8 bytes of the page below it), 8 above one, 4 above one (the slot
 * across it), in the program's own page (a store into a page of decoded
 * code: never a TLB hit): the return address (the ADD after the CALL) in
 * the slot, RSP back, the HLT; at the data's start or 4 above it (the slot
 * in or into the absent page below): #PF with W at the CALL, CR2 its first
 * absent byte; non-canonical: #SS(0) at the CALL; RSP as it was in each. As
 * the single steps, and again from the links the first run made; both
 * blocks translated.
 *   add ecx, 1; call S; add ecx, 2; hlt; S: mov rax, imm64; mov [rsp], rax;
 * ret: the return address replaced: non-canonical (bit 47 set with 63:48
 * clear, and the reverse): #GP(0) at the RET, RSP still at the slot; not
 * mapped: the RET's, then #PF at the fetch there; the HLT: the HLT.
 *   sub rsp, 8; call S; add rsp, 8; hlt; S: push rbx; mov ebx, 7; add esi,
 * ebx; pop rbx; ret: rSP written in the runs before the CALL and the RET.
 *   add ecx, 1; ret, RSP at the data's end or 4 below it (the slot in or
 * into the absent page above): #PF (a read) at the RET, CR2 the data's end;
 * non-canonical: #SS(0); RSP as it was. */
START_TEST(call_and_ret_64)
{
	static const uint8_t call_code[] = { 0x83, 0xc1, 0x01, 0xe8, 0x04, 0x00, 0x00, 0x00, 0x83, 0xc1, 0x02, 0xf4,
					     0x83, 0xc6, 0x01, 0x89, 0xf2, 0xc3 };
	static const struct {
		uint64_t rsp;
		uint8_t vector;            /* 0xff: none */
		uint64_t cr2;
	} stacks[] = {
		{ DATA + 0x800, 0xff, 0 }, { DATA + 0x1000, 0xff, 0 }, { DATA + 0x1008, 0xff, 0 },
		{ DATA + 0x1004, 0xff, 0 }, { CODE + 0x800, 0xff, 0 }, { DATA, EXC_PF, DATA - 8 },
		{ DATA + 4, EXC_PF, DATA - 4 }, { 0x8000000000000800ull, EXC_SS, 0 },
	};
	random_machine(true);
	struct program p = { .len = 0 };
	put(&p, call_code, sizeof(call_code));
	unsigned n = 0;
	for (unsigned k = 0; k < sizeof(stacks) / sizeof(stacks[0]); k++, n++) {
		uint64_t rsp = stacks[k].rsp, regs[16] = { [R_SP] = rsp, [R_SI] = 0, [R_CX] = 0 };
		run_blocks_of(&p, regs, 100);
		assert_translated_at(CODE, n);
		if (stacks[k].vector == 0xff)
			assert_translated_at(CODE + 12, n);
		run_steps_of(&p, regs, 100, n);
		ck_assert_uint_eq(blocks.regs[R_SP], rsp);
		if (stacks[k].vector == 0xff) {
			ck_assert_int_eq(blocks.status, ST_HALT);
			ck_assert_uint_eq(blocks.regs[R_CX], 3);
			ck_assert_uint_eq(blocks.regs[R_DX], 1);
			ck_assert_uint_eq(qword_in(&blocks, rsp - 8), CODE + 8);
		} else {
			ck_assert_uint_eq(blocks.seen.vector, stacks[k].vector);
			ck_assert_uint_eq(blocks.seen.error_code, stacks[k].vector == EXC_PF ? PFEC_W : 0);
			if (stacks[k].vector == EXC_PF)
				ck_assert_uint_eq(blocks.seen.cr2, stacks[k].cr2);
			ck_assert_uint_eq(blocks.rip, CODE + 3);
			ck_assert_uint_eq(blocks.regs[R_CX], 1);
		}
		run_linked(&p, regs, 100, n);
	}

	static const uint64_t returns[] = { 0x0000800000000000ull, 0xffff7fffffffff00ull, 0xffff800000000000ull,
					    CODE + 11 };
	for (unsigned k = 0; k < sizeof(returns) / sizeof(returns[0]); k++, n++) {
		struct program q = { .len = 0 };
		put(&q, call_code, 12);
		PUT(&q, 0x48, 0xb8);
		put_u64(&q, returns[k]);
		PUT(&q, 0x48, 0x89, 0x04, 0x24, 0xc3);
		uint64_t regs[16] = { [R_SP] = DATA + 0x800 };
		run_blocks_of(&q, regs, 100);
		assert_translated_at(CODE, n);
		assert_translated_at(CODE + 12, n);
		run_steps_of(&q, regs, 100, n);
		if (k < 2) {
			ck_assert_uint_eq(blocks.seen.vector, EXC_GP);
			ck_assert_uint_eq(blocks.seen.error_code, 0);
			ck_assert_uint_eq(blocks.rip, CODE + 26);
			ck_assert_uint_eq(blocks.regs[R_SP], DATA + 0x800 - 8);
		} else if (k == 2) {
			ck_assert_uint_eq(blocks.seen.vector, EXC_PF);
			ck_assert_uint_eq(blocks.seen.cr2, returns[k]);
			ck_assert_uint_eq(blocks.rip, returns[k]);
			ck_assert_uint_eq(blocks.regs[R_SP], DATA + 0x800);
		} else {
			ck_assert_int_eq(blocks.status, ST_HALT);
			ck_assert_uint_eq(blocks.rip, CODE + 12);
			ck_assert_uint_eq(blocks.regs[R_CX], 1);
			ck_assert_uint_eq(blocks.regs[R_SP], DATA + 0x800);
		}
		run_linked(&q, regs, 100, n);
	}

	/* RSP written by the runs the CALL and the RET end. */
	struct program fr = { .len = 0 };
	PUT(&fr, 0x48, 0x83, 0xec, 0x08, 0xe8, 0x05, 0x00, 0x00, 0x00, 0x48, 0x83, 0xc4, 0x08, 0xf4,
	    0x53, 0xbb, 0x07, 0x00, 0x00, 0x00, 0x01, 0xde, 0x5b, 0xc3);
	uint64_t fr_regs[16] = { [R_SP] = DATA + 0x800, [R_BX] = 0x1122334455667788ull };
	run_blocks_of(&fr, fr_regs, 100);
	assert_translated_at(CODE, n);
	assert_translated_at(CODE + 14, n);
	run_steps_of(&fr, fr_regs, 100, n);
	ck_assert_int_eq(blocks.status, ST_HALT);
	ck_assert_uint_eq(blocks.regs[R_SP], DATA + 0x800);
	ck_assert_uint_eq(blocks.regs[R_BX], 0x1122334455667788ull);
	ck_assert_uint_eq(blocks.regs[R_SI], 7);
	ck_assert_uint_eq(qword_in(&blocks, DATA + 0x800 - 16), CODE + 9);
	ck_assert_uint_eq(qword_in(&blocks, DATA + 0x800 - 24), 0x1122334455667788ull);
	run_linked(&fr, fr_regs, 100, n++);

	static const uint64_t ret_stacks[] = { DATA + DATA_SIZE, DATA + DATA_SIZE - 4, 0x8000000000000000ull };
	for (unsigned k = 0; k < sizeof(ret_stacks) / sizeof(ret_stacks[0]); k++, n++) {
		struct program q = { .len = 0 };
		PUT(&q, 0x83, 0xc1, 0x01, 0xc3);
		uint64_t regs[16] = { [R_SP] = ret_stacks[k] };
		run_both_translated(&q, regs, 100, n, CODE);
		ck_assert_uint_eq(blocks.seen.vector, k < 2 ? EXC_PF : EXC_SS);
		ck_assert_uint_eq(blocks.seen.error_code, 0);
		if (k < 2)
			ck_assert_uint_eq(blocks.seen.cr2, DATA + DATA_SIZE);
		ck_assert_uint_eq(blocks.rip, CODE + 3);
		ck_assert_uint_eq(blocks.regs[R_SP], ret_stacks[k]);
		ck_assert_uint_eq(blocks.regs[R_CX], 1);
	}
}
END_TEST

/* Runs that begin with the CF of the code before them: an ADC whose carry
 * in is STC's and a DEC that keeps the ADC's carry out (SDM Vol.2 ADC: DEST
 * + SRC + CF; DEC: "The CF flag is not affected"), each the first setter of
 * a translated run of its own:
 *   stc; jmp 3; 3: adc eax, ebx; mov edx, eax; jmp 9; 9: dec ecx; jmp 13; 13: hlt
 * with EAX FFFFFFFFH, EBX 0 and ECX 5: EAX 0, CF 1 through the DEC, ECX 4;
 * then with ECX 0 and EBX 1 (ADC: 1, CF 1), and EAX 0 (ADC: 1, CF 0). */
START_TEST(runs_take_cf_from_before)
{
	static const uint8_t code[] = { 0xf9, 0xeb, 0x00, 0x11, 0xd8, 0x89, 0xc2, 0xeb, 0x00,
					0xff, 0xc9, 0xeb, 0x00, 0xf4 };
	static const struct {
		uint32_t ax, bx, cx, result, cf;
	} cases[] = { { 0xffffffffu, 0, 5, 0, 1 }, { 0xffffffffu, 1, 0, 1, 1 }, { 0, 0, 1, 1, 0 } };
	random_machine(true);
	struct program p = { .len = 0 };
	put(&p, code, sizeof(code));
	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		uint64_t regs[16] = { [R_SP] = DATA + 0x800, [R_AX] = cases[k].ax, [R_BX] = cases[k].bx,
				      [R_CX] = cases[k].cx };
		run_linked(&p, regs, 100, k);
		assert_translated_at(CODE + 3, k);
		assert_translated_at(CODE + 9, k);
		ck_assert_int_eq(blocks.status, ST_HALT);
		ck_assert_uint_eq(blocks.regs[R_AX], cases[k].result);
		ck_assert_uint_eq(blocks.regs[R_DX], cases[k].result);
		ck_assert_uint_eq(blocks.regs[R_CX], (uint32_t)(cases[k].cx - 1));
		ck_assert_uint_eq(blocks.rflags & FLAG_CF, cases[k].cf);
	}
}
END_TEST

/* A Jcc after a run that sets no flags takes its condition from the flags
 * as they were before the run (SDM Vol.1 Appendix B: the flags the last
 * setter left), in 64-bit code, for each of the 16 conditions:
 *   setter; jmp 4; 4: mov edx, ecx or mov edx, [rsi] or nothing (the Jcc
 *   alone); jcc +6; mov edi, 1; hlt; +6: mov edi, 2; hlt
 * with CMP EAX, EBX, INC EAX or TEST EAX, EBX as the setter and operands
 * that make each flag both 0 and 1; the run at 4 translated, as the
 * single steps leave it; then the load's #PF with the flags unchanged. */
START_TEST(jcc_on_flags_from_before)
{
	static const uint8_t setters[3][2] = { { 0x39, 0xd8 }, { 0xff, 0xc0 }, { 0x85, 0xd8 } };
	static const uint32_t values[][2] = { { 5, 5 }, { 5, 6 }, { 6, 5 }, { 0x80000000u, 1 },
					      { 0x7fffffffu, 0xffffffffu }, { 0, 0x80000000u }, { 0xffffffffu, 3 } };
	random_machine(true);
	unsigned n = 0;
	for (unsigned form = 0; form < 3; form++)
		for (unsigned st = 0; st < 3; st++)
			for (unsigned cc = 0; cc < 16; cc++)
				for (unsigned v = 0; v < sizeof(values) / sizeof(values[0]); v++, n++) {
					struct program p = { .len = 0 };
					put(&p, setters[st], 2);
					PUT(&p, 0xeb, 0x00);
					if (form == 0)
						PUT(&p, 0x89, 0xca);
					else if (form == 1)
						PUT(&p, 0x8b, 0x16);
					PUT(&p, (uint8_t)(0x70 | cc), 0x06);
					PUT(&p, 0xbf, 0x01, 0x00, 0x00, 0x00, 0xf4, 0xbf, 0x02, 0x00, 0x00, 0x00, 0xf4);
					uint64_t regs[16] = { [R_SP] = DATA + 0x800, [R_AX] = values[v][0],
							      [R_BX] = values[v][1], [R_CX] = 7, [R_SI] = DATA + 0x40 };
					run_linked(&p, regs, 100, n);
					assert_translated_at(CODE + 4, n);
					ck_assert_int_eq(blocks.status, ST_HALT);
					ck_assert(blocks.regs[R_DI] == 1 || blocks.regs[R_DI] == 2);
				}
	/* The load of the run faults: #PF at it, the setter's flags kept. */
	for (unsigned cc = 0; cc < 16; cc++, n++) {
		struct program p = { .len = 0 };
		PUT(&p, 0x39, 0xd8, 0xeb, 0x00, 0x8b, 0x16, (uint8_t)(0x70 | cc), 0x06, 0xbf, 0x01, 0x00, 0x00, 0x00,
		    0xf4, 0xbf, 0x02, 0x00, 0x00, 0x00, 0xf4);
		uint64_t regs[16] = { [R_SP] = DATA + 0x800, [R_AX] = 3, [R_BX] = 9, [R_SI] = DATA - 0x1000 };
		run_linked(&p, regs, 100, n);
		ck_assert_uint_eq(blocks.seen.vector, EXC_PF);
		ck_assert_uint_eq(blocks.rip, CODE + 4);
		ck_assert_uint_eq(blocks.rflags & (FLAG_CF | FLAG_ZF | FLAG_SF), FLAG_CF | FLAG_SF);
	}
}
END_TEST

/* A RET to more return sites than its block has links goes on by the jump
 * cache (emu/icache.h jumps[]), which must let go of a block that a store
 * changed (SDM Vol.3 11.6): in 64-bit code, twice,
 *   call F; add ecx, 1; call F; add ecx, 2; call F; add ecx, 4;
 *   mov byte [rip - 16], 8 (the 2 of "add ecx, 2"); dec edx; jnz 0; hlt
 *   F: add esi, 1; ret
 * ECX 1 + 2 + 4, then 1 + 8 + 4: 20. */
START_TEST(jump_cache_after_store_into_code)
{
	static const uint8_t code[] = {
		0xe8, 0x1f, 0x00, 0x00, 0x00, 0x83, 0xc1, 0x01, 0xe8, 0x17, 0x00, 0x00, 0x00, 0x83, 0xc1, 0x02,
		0xe8, 0x0f, 0x00, 0x00, 0x00, 0x83, 0xc1, 0x04, 0xc6, 0x05, 0xf0, 0xff, 0xff, 0xff, 0x08,
		0xff, 0xca, 0x75, 0xdd, 0xf4, 0x83, 0xc6, 0x01, 0xc3,
	};
	random_machine(true);
	struct program p = { .len = 0 };
	put(&p, code, sizeof(code));
	uint64_t regs[16] = { [R_SP] = DATA + 0x800, [R_DX] = 2 };
	run_linked(&p, regs, 1000, 0);
	ck_assert_int_eq(blocks.status, ST_HALT);
	ck_assert_uint_eq(blocks.regs[R_CX], 20);
	ck_assert_uint_eq(blocks.regs[R_SI], 6);
	assert_translated_at(CODE + 36, 0);
}
END_TEST

/* A block that is its CALL, RET or JMP alone (a jump's target, the return
 * site of a call that is followed by another) runs as translated code of
 * its own: in 64-bit code,
 *   0: jmp 2; 2: call F; 7: call G; 12: jmp 15; 14: hlt; 15: add ecx, 1; hlt
 *   F (19): add esi, 1; jmp 24; 24: ret;  G (25): ret
 * each of the blocks at 2, 7, 12, 24 and 25 translated, as the single steps
 * leave it, under every instruction limit. Then their faults, at the
 * branch with nothing changed (its own handler): the lone CALL's push to an
 * absent page (#PF, CR2 the slot) or a non-canonical stack (#SS), the lone
 * RET's non-canonical return address (#GP(0), SDM Vol.2 RET: "If the
 * return instruction pointer is non-canonical"). */
START_TEST(lone_branch_blocks_64)
{
	static const uint8_t code[] = {
		0xeb, 0x00, 0xe8, 0x0c, 0x00, 0x00, 0x00, 0xe8, 0x0d, 0x00, 0x00, 0x00, 0xeb, 0x01, 0xf4,
		0x83, 0xc1, 0x01, 0xf4, 0x83, 0xc6, 0x01, 0xeb, 0x00, 0xc3, 0xc3,
	};
	random_machine(true);
	struct program p = { .len = 0 };
	put(&p, code, sizeof(code));
	uint64_t regs[16] = { [R_SP] = DATA + 0x800 };
	const unsigned total = 10;
	for (unsigned limit = 1; limit <= total + 1; limit++) {
		run_linked(&p, regs, limit, limit);
		ck_assert_uint_eq(blocks.time, limit < total ? limit : total);
	}
	ck_assert_int_eq(blocks.status, ST_HALT);
	ck_assert_uint_eq(blocks.rip, CODE + 19);
	ck_assert_uint_eq(blocks.regs[R_CX], 1);
	ck_assert_uint_eq(blocks.regs[R_SI], 1);
	ck_assert_uint_eq(blocks.regs[R_SP], DATA + 0x800);
	static const unsigned lone[] = { 2, 7, 12, 24, 25 };
	for (unsigned k = 0; k < sizeof(lone) / sizeof(lone[0]); k++)
		assert_translated_at(CODE + lone[k], k);

	static const struct {
		uint64_t rsp;
		uint8_t vector;
	} stacks[] = { { DATA, EXC_PF }, { 0x8000000000000800ull, EXC_SS } };
	for (unsigned k = 0; k < 2; k++) {
		uint64_t sregs[16] = { [R_SP] = stacks[k].rsp };
		run_linked(&p, sregs, 100, 100 + k);
		ck_assert_uint_eq(blocks.seen.vector, stacks[k].vector);
		ck_assert_uint_eq(blocks.seen.error_code, stacks[k].vector == EXC_PF ? PFEC_W : 0);
		if (stacks[k].vector == EXC_PF)
			ck_assert_uint_eq(blocks.seen.cr2, DATA - 8);
		ck_assert_uint_eq(blocks.rip, CODE + 2);
		ck_assert_uint_eq(blocks.regs[R_SP], stacks[k].rsp);
		assert_translated_at(CODE + 2, 100 + k);
	}

	/* mov rax, imm64; mov [rsp], rax; jmp +0; ret */
	static const uint64_t returns[] = { 0x0000800000000000ull, 0xffff7fffffffff00ull };
	for (unsigned k = 0; k < 2; k++) {
		struct program q = { .len = 0 };
		PUT(&q, 0x48, 0xb8);
		put_u64(&q, returns[k]);
		PUT(&q, 0x48, 0x89, 0x04, 0x24, 0xeb, 0x00, 0xc3);
		uint64_t qregs[16] = { [R_SP] = DATA + 0x800 };
		run_linked(&q, qregs, 100, 200 + k);
		assert_translated_at(CODE + 16, 200 + k);
		ck_assert_uint_eq(blocks.seen.vector, EXC_GP);
		ck_assert_uint_eq(blocks.seen.error_code, 0);
		ck_assert_uint_eq(blocks.rip, CODE + 16);
		ck_assert_uint_eq(blocks.regs[R_SP], DATA + 0x800);
	}
}
END_TEST

/* Nested and recursive calls in 64-bit code under every instruction limit:
 *   add ecx, 1; call A; add ecx, 2; hlt
 *   A: add esi, 1; call B; add esi, 2; ret
 *   B: add edi, 1; dec r15; jle 1f; add ebp, 1; call B;
 *      1: add edi, 2; mov edx, edi; ret
 * with R15 4 (B runs four times, three of them called by itself): run as
 * blocks twice (the second follows the links: a RET's go to two callers) and
 * in single steps, stopped after 1, 2, ... 38 instructions and at the HLT;
 * every CALL and RET at the end of a translated run.
 * Then CALLs past the program: into the zeroed second page (ADD [rax], AL
 * eight times, RAX in the data, then a HLT), to beyond the mapped pages and
 * to 2 GiB below (#PF at the fetch there, the return address pushed). */
START_TEST(nested_calls_under_limits)
{
	static const uint8_t code[] = {
		0x83, 0xc1, 0x01, 0xe8, 0x04, 0x00, 0x00, 0x00, 0x83, 0xc1, 0x02, 0xf4,       /* main: 0 */
		0x83, 0xc6, 0x01, 0xe8, 0x04, 0x00, 0x00, 0x00, 0x83, 0xc6, 0x02, 0xc3,       /* A: 12 */
		0x83, 0xc7, 0x01, 0x49, 0xff, 0xcf, 0x7e, 0x08, 0x83, 0xc5, 0x01,             /* B: 24 */
		0xe8, 0xf0, 0xff, 0xff, 0xff, 0x83, 0xc7, 0x02, 0x89, 0xfa, 0xc3,
	};
	random_machine(true);
	struct program p = { .len = 0 };
	put(&p, code, sizeof(code));
	const unsigned total = 38;
	uint64_t regs[16] = { [R_SP] = DATA + 0x800, [R_R15] = 4 };
	for (unsigned limit = 1; limit <= total + 1; limit++) {
		run_linked(&p, regs, limit, limit);
		ck_assert_uint_eq(blocks.time, limit < total ? limit : total);
	}
	ck_assert_int_eq(blocks.status, ST_HALT);
	ck_assert_uint_eq(blocks.regs[R_CX], 3);
	ck_assert_uint_eq(blocks.regs[R_SI], 3);
	ck_assert_uint_eq(blocks.regs[R_DI], 12);
	ck_assert_uint_eq(blocks.regs[R_BP], 3);
	ck_assert_uint_eq(blocks.regs[R_SP], DATA + 0x800);
	assert_translated_at(CODE, 0);
	assert_translated_at(CODE + 12, 0);
	assert_translated_at(CODE + 20, 0);
	assert_translated_at(CODE + 32, 0);
	assert_translated_at(CODE + 40, 0);

	static const uint64_t targets[] = { CODE + PAGE_SIZE, CODE + CODE_SIZE + 0x10, CODE + 8 - 0x80000000ull };
	for (unsigned k = 0; k < 3; k++) {
		struct program q = { .len = 0 };
		PUT(&q, 0x83, 0xc1, 0x01, 0xe8);
		uint32_t rel = (uint32_t)(targets[k] - (CODE + 8));
		put(&q, (const uint8_t *)&rel, 4);
		b(&q, 0xf4);
		if (k == 0) {
			q.len = PAGE_SIZE + 0x11;
			q.bytes[PAGE_SIZE + 0x10] = 0xf4;
		}
		uint64_t qregs[16] = { [R_SP] = DATA + 0x800, [R_AX] = DATA + 0x123 };
		run_linked(&q, qregs, 100, k);
		ck_assert_uint_eq(blocks.regs[R_SP], DATA + 0x800 - 8);
		ck_assert_uint_eq(qword_in(&blocks, DATA + 0x800 - 8), CODE + 8);
		if (k == 0) {
			ck_assert_int_eq(blocks.status, ST_HALT);
			ck_assert_uint_eq(blocks.rip, CODE + PAGE_SIZE + 0x11);
			ck_assert_uint_eq(blocks.data[0x123], (uint8_t)(data0[0x123] + 8 * 0x23));
		} else {
			ck_assert_uint_eq(blocks.seen.vector, EXC_PF);
			ck_assert_uint_eq(blocks.rip, targets[k]);
			ck_assert_uint_eq(blocks.seen.cr2, targets[k]);
		}
	}
}
END_TEST

/* 64-bit code at the top of the lower canonical half: linear 7FFFFFFFF000H
 * (the last page below the non-canonical hole, SDM Vol.1 3.3.7.1) mapped by
 * page tables of its own at 14000H-16FFFH to the code's second page: mov
 * [rsp - 8], rax; jmp $+2 (the stack's page into the TLB), then from
 * 7FFFFFFFFFC0H: add ecx, 1; then CALL rel32, JMP rel32, JNZ rel32 (taken)
 * or JZ rel32 (not taken), each ending its block after a translated run;
 * hlt. Their target past 7FFFFFFFFFFFH (non-canonical): #GP(0) at the
 * branch, RSP and the stack as before it (SDM Vol.2 CALL, JMP, Jcc: "If the
 * target address is not canonical"), the not-taken JZ on to its HLT; their
 * target in the page (add edx, 1; hlt at 7FFFFFFFFF00H): that HLT, the
 * return address pushed. Then a run whose last instruction ends at
 * 800000000000H and falls through: whatever the fetch there does, as the
 * single steps. */
START_TEST(branch_past_canonical_top_64)
{
	static const uint8_t branches[4][2] = { { 0xe8 }, { 0xe9 }, { 0x0f, 0x85 }, { 0x0f, 0x84 } };
	static const uint8_t zero[PAGE_SIZE];
	const uint64_t top = 0x00007ffffffff000ull, entry = 0xfc0, inside = 0xf00;
	random_machine(true);
	for (uint64_t t = 0x14000; t <= 0x16000; t += PAGE_SIZE)
		physmem_write_bytes(&m.pm, t, zero, sizeof(zero));
	physmem_write(&m.pm, PML4 + 255 * 8, 8, 0x14000 | 3);
	physmem_write(&m.pm, 0x14000 + 511 * 8, 8, 0x15000 | 3);
	physmem_write(&m.pm, 0x15000 + 511 * 8, 8, 0x16000 | 3);
	physmem_write(&m.pm, 0x16000 + 511 * 8, 8, (CODE + PAGE_SIZE) | 3);
	tlb_flush_all(&m.cpu.tlb);
	unsigned n = 0;
	for (unsigned k = 0; k < 8; k++, n++) {
		unsigned kind = k % 4, len = kind < 2 ? 1 : 2;
		bool far = k < 4;
		struct program p = { .base = top - PAGE_SIZE, .entry = PAGE_SIZE + entry - 7 };
		p.len = PAGE_SIZE + inside;
		PUT(&p, 0x83, 0xc2, 0x01, 0xf4);
		p.len = p.entry;
		PUT(&p, 0x48, 0x89, 0x44, 0x24, 0xf8, 0xeb, 0x00);   /* mov [rsp - 8], rax; jmp $+2 */
		PUT(&p, 0x83, 0xc1, 0x01);
		put(&p, branches[kind], len);
		uint64_t next = top + entry + 3 + len + 4, to = far ? 0x0000800000000010ull : top + inside;
		uint32_t rel = (uint32_t)(to - next);
		put(&p, (const uint8_t *)&rel, 4);
		b(&p, 0xf4);
		uint64_t regs[16] = { [R_SP] = DATA + 0x800 };
		run_blocks_of(&p, regs, 100);
		assert_translated_at(CODE + PAGE_SIZE + entry, n);
		run_steps_of(&p, regs, 100, n);
		ck_assert_uint_eq(blocks.regs[R_CX], 1);
		bool taken = kind != 3;
		ck_assert_uint_eq(blocks.regs[R_SP], DATA + 0x800 - (kind == 0 && !far ? 8 : 0));
		if (far && taken) {
			ck_assert_uint_eq(blocks.seen.vector, EXC_GP);
			ck_assert_uint_eq(blocks.seen.error_code, 0);
			ck_assert_uint_eq(blocks.rip, top + entry + 3);
		} else {
			ck_assert_int_eq(blocks.status, ST_HALT);
			ck_assert_uint_eq(blocks.regs[R_DX], taken ? 1 : 0);
		}
	}
	/* Two ADDs ending at 800000000000H: a block ended by the page, run to its end. */
	struct program p = { .base = top - PAGE_SIZE, .entry = 2 * PAGE_SIZE - 6 };
	p.len = p.entry;
	PUT(&p, 0x83, 0xc1, 0x01, 0x83, 0xc1, 0x01);
	uint64_t regs[16] = { [R_SP] = DATA + 0x800 };
	run_both_translated(&p, regs, 100, n, CODE + p.entry);
	ck_assert_uint_eq(blocks.regs[R_CX], 2);
	ck_assert_uint_ne(blocks.seen.vector, 0xff);
}
END_TEST

/* ---- code at CPL 3 ----
 *
 * A block is translated for the CPL's kind it became hot at (emu/jit.h
 * jit_enter): a user run looks the TLB up in the user bank and leaves
 * before an access that is not aligned to its size (emu/operand.h mem_fast:
 * the slow path raises #AC or does the access); a run made for the other
 * kind leaves at its start. */

/* 64-bit code at CPL 3 (long_mode_user): every level of the sparse table and
 * the code's pages user (U/S = 1, SDM Vol.3 4.6.1), the data's pages user and
 * writable but SUPER_PAGE (supervisor-only: any user access #PF with P and
 * U, 4.7) and RO_PAGE (read-only: a user store #PF with P, W and U; CR0.WP
 * is 0, so a supervisor store is not). */
#define SUPER_PAGE (DATA + 0xa000u)
#define RO_PAGE (DATA + 0x5000u)

/* long_mode_sparse with the user pages above, FS's base misaligned (803H): an
 * offset's alignment is not its linear address's, which the alignment check
 * looks at (emu/memory.c misaligned_user_access, mem_fast). */
static void long_mode_user(void)
{
	long_mode_sparse();
	physmem_write(&m.pm, PML4, 8, PDPT | 7);
	physmem_write(&m.pm, PDPT, 8, PD | 7);
	physmem_write(&m.pm, PD, 8, PT | 7);
	for (uint32_t pa = CODE; pa < CODE + CODE_SIZE; pa += PAGE_SIZE)
		physmem_write(&m.pm, PT + (pa >> 12) * 8, 8, pa | 7);
	for (uint32_t pa = DATA; pa < DATA + DATA_SIZE; pa += PAGE_SIZE)
		physmem_write(&m.pm, PT + (pa >> 12) * 8, 8, pa | (pa == SUPER_PAGE ? 3 : pa == RO_PAGE ? 5 : 7));
	m.cpu.seg[SR_FS].base = 0x803;
	tlb_flush_all(&m.cpu.tlb);
}

/* protected_segments with DS, ES, FS and GS of DPL 3 (at CPL 3 a data segment
 * of DPL < 3 is not usable, SDM Vol.3 5.7), GS based one byte above the
 * data (limit FFFEh, still inside it): its offsets' alignment is not its
 * linear addresses' (above). Paging is off: the TLB's banks hold the same
 * translations (emu/memory.c translate, tlb_fill), filled by each CPL's
 * accesses. CS and SS: enter_cpl. */
static void protected_user_segments(void)
{
	struct cpu *c = &m.cpu;
	seg_load_descriptor(&c->seg[SR_DS], SEL_DATA | 3, make_desc(DATA, 0xfffa, 0xf3, 0x4));
	seg_load_descriptor(&c->seg[SR_ES], SEL_DATA | 3, make_desc(DATA - 0xc0000, 0xcffff, 0xf3, 0x4));
	seg_load_descriptor(&c->seg[SR_FS], SEL_DATA | 3, make_desc(DATA - 0x7000, 0x7fff, 0xf7, 0x0));
	seg_load_descriptor(&c->seg[SR_GS], SEL_DATA | 3, make_desc(DATA + 1, 0xfffe, 0xf1, 0x4));
}

/* The test's own switch to CPL cpl between runs (as an IRET or SYSRET would
 * leave it): CS a code segment and SS a writable data segment of DPL cpl,
 * their selectors' RPL cpl (SDM Vol.3 5.5: the CPL is CS's RPL; SS's DPL
 * equals it); in 32-bit code SS keeps protected_segments' base and limit. */
static void enter_cpl(bool long_mode, unsigned cpl)
{
	struct cpu *c = &m.cpu;
	uint8_t dpl = (uint8_t)(cpl << 5);
	if (long_mode) {
		seg_load_descriptor(&c->seg[SR_CS], (uint16_t)(SEL_CODE64 | cpl),
				    make_desc(0, 0xfffff, 0x9b | dpl, 0xa));
		seg_load_descriptor(&c->seg[SR_SS], (uint16_t)(SEL_DATA | cpl), make_desc(0, 0xfffff, 0x93 | dpl, 0xc));
	} else {
		seg_load_descriptor(&c->seg[SR_CS], (uint16_t)(SEL_CODE32 | cpl),
				    make_desc(0, 0xfffff, 0x9b | dpl, 0xc));
		seg_load_descriptor(&c->seg[SR_SS], (uint16_t)(SEL_DATA | cpl),
				    make_desc(DATA, 0xfffa, 0x93 | dpl, 0x4));
	}
	c->cpl = cpl;
	cpu_update_mode(c);
}

/* The user machine of long_mode (long_mode_user or protected_user_segments)
 * at CPL 3; every exception stops the run. Set up at CPL 0 (activate's MOV
 * CRn), from 32-bit code to 64-bit code only. */
static void user_machine(bool long_mode)
{
	enter_cpl(m.cpu.mode == MODE_LONG64, 0);
	if (long_mode)
		long_mode_user();
	else
		protected_user_segments();
	stop_at_events(&m, &seen);
	enter_cpl(long_mode, 3);
}

/* CR0.AM and EFLAGS.AC (SDM Vol.3 6.15 "Interrupt 17": alignment checking
 * needs both, at CPL 3). Neither changes a translation or a decoded block. */
static void alignment_check(bool am, bool ac)
{
	m.cpu.cr0 = am ? m.cpu.cr0 | CR0_AM : m.cpu.cr0 & ~(uint64_t)CR0_AM;
	m.cpu.rflags = ac ? m.cpu.rflags | FLAG_AC : m.cpu.rflags & ~(uint64_t)FLAG_AC;
}

/* Every data page in the supervisor bank, for reads and writes (implicit
 * supervisor accesses, SDM Vol.3 4.6.1; the read-only page too, CR0.WP being
 * 0): what a kernel leaves there when it returns to user code. A user access
 * that looked there would find SUPER_PAGE and write RO_PAGE. */
static void fill_supervisor_bank(void)
{
	for (uint64_t lin = DATA; lin < DATA + DATA_SIZE; lin += PAGE_SIZE) {
		uint64_t v = 0;
		ck_assert_int_eq(lin_read_sys(&m.cpu, lin, 1, &v), ST_OK);
		ck_assert_int_eq(lin_write_sys(&m.cpu, lin, 1, v), ST_OK);
	}
	ck_assert_ptr_nonnull(tlb_lookup(&m.cpu.tlb, TLB_SUPERVISOR, TLB_WRITE, SUPER_PAGE, 8));
}

/* A spy in place of an instruction's thread handler: counts its entries,
 * then runs it. A translated run enters it when it leaves before that
 * instruction (a side exit; at its start, for the other CPL's kind: the
 * first instruction's handler goes on to it), never when it does the
 * instruction in host code (emu/jit.c emit_leave: the side exit of an
 * instruction past the run's first jumps through its thread pointer). */
static insn_handler spied_handler;
static unsigned spied;

static status_t spy(struct cpu *cpu, const struct insn *in)
{
	spied++;
	return spied_handler(cpu, in);
}

/* Spy on instruction k of the block cached at pa; returns the block. */
static struct block *spy_on(uint64_t pa, unsigned k)
{
	struct block *blk = icache_find(m.cpu.icache, pa);
	ck_assert(blk && blk->count > k);
	spied_handler = blk->insns[k].thread;
	blk->insns[k].thread = spy;
	spied = 0;
	return blk;
}

/* The spy still in place after a run: the block it ran is the one spied on
 * (not decoded again). */
static void assert_spied_block(const struct block *blk, unsigned k, unsigned n)
{
	ck_assert_msg(blk->insns[k].thread == spy, "case %u: the block spied on was decoded again", n);
}

/* Random programs at CPL 3 (random_programs' machines made user ones,
 * user_machine): the supervisor bank filled before each (fill_supervisor_bank);
 * alignment checking on (CR0.AM and EFLAGS.AC) in a third of them, one of
 * the two in a third (no #AC), neither in the rest; half of the data
 * addresses aligned to 8, so that with the displacements' low bits accesses
 * aligned to their size come as well as the others. As the single steps;
 * #AC(0) only where both are set and often there, every #PF with U (SDM
 * Vol.3 4.7), in 64-bit code protection faults (SUPER_PAGE, RO_PAGE) too.
 * Returns the translated runs made. */
#define USER_PROGRAMS 1500
static unsigned long random_user_programs(bool long_mode)
{
	user_machine(long_mode);
	unsigned long before = jit_runs_translated(m.cpu.icache);
	unsigned ac_faults = 0, protection_faults = 0;
	for (unsigned n = 0; n < USER_PROGRAMS; n++) {
		uint64_t regs[16];
		struct reg_kinds known = random_regs(regs, long_mode);
		for (unsigned r = 0; r < 16; r++)
			if ((known.address >> r & 1) && (rnd() & 1))
				regs[r] &= ~7ull;
		struct program p = { .len = 0 };
		for (unsigned i = 0; i < 40; i++)
			insn_of(&p, long_mode, ANY_FORM, &known);
		b(&p, 0xf4);
		unsigned third = n % 3;
		bool one = (n / 3) & 1;
		alignment_check(third == 0 || (third == 1 && one), third == 0 || (third == 1 && !one));
		fill_supervisor_bank();
		run_both(&p, regs, 1000, n);
		if (steps.seen.vector == EXC_AC) {
			ck_assert_msg(third == 0, "program %u: #AC without CR0.AM and EFLAGS.AC both", n);
			ck_assert_uint_eq(steps.seen.error_code, 0);
			ac_faults++;
		}
		if (steps.seen.vector == EXC_PF) {
			ck_assert_msg(steps.seen.error_code & PFEC_U, "program %u: #PF without U at CPL 3", n);
			protection_faults += steps.seen.error_code & PFEC_P;
		}
	}
	ck_assert_uint_gt(ac_faults, USER_PROGRAMS / 6);
	if (long_mode)
		ck_assert_uint_gt(protection_faults, USER_PROGRAMS / 50);
	alignment_check(false, false);
	return jit_runs_translated(m.cpu.icache) - before;
}

/* Program p at CPL 3 from regs: as blocks (translated on its first entry,
 * its pages then in the user bank), then as blocks again with a spy on the
 * block's instruction 1 (spy_on), then as single steps, compared with the
 * second. Returns the times the second run left before instruction 1. The
 * data from data0 each time. */
static unsigned run_user_spied(const struct program *p, const uint64_t regs[16], unsigned n)
{
	physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
	load(p, regs);
	run_blocks(100);
	assert_translated_at(CODE, n);
	struct block *blk = spy_on(CODE, 1);
	physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
	begin(p, regs);
	run_blocks(100);
	assert_spied_block(blk, 1, n);
	unsigned left = spied;
	run_steps_of(p, regs, 100, n);
	return left;
}

/* add ecx, 1; mov eax, [rbx] (EBX in 32-bit code); hlt at CPL 3, the load's
 * page in the user bank: the block made at CPL 3 does the load in host code
 * (the spy on it is not entered); at an address not aligned to 4 it leaves
 * before it, alignment checking off. As the single steps; the HLT #GP(0)
 * (SDM Vol.2 HLT: CPL 3). */
static void assert_user_access_translated(bool long_mode, unsigned n)
{
	static const uint8_t code[] = { 0x83, 0xc1, 0x01, 0x8b, 0x03, 0xf4 };
	struct program p = { .len = sizeof(code) };
	memcpy(p.bytes, code, sizeof(code));
	for (unsigned off = 0; off < 2; off++) {
		uint64_t regs[16] = { [R_BX] = (long_mode ? DATA : 0) + 0x400 + off };
		random_data();
		unsigned left = run_user_spied(&p, regs, n);
		ck_assert_uint_eq(blocks.seen.vector, EXC_GP);
		ck_assert_uint_eq(blocks.rip, CODE + 5);
#if defined(__x86_64__)
		ck_assert_msg(off ? left > 0 : left == 0, "case %u: offset %u: the user run left %u times", n, off,
			      left);
#else
		(void)left;
#endif
	}
}

START_TEST(random_programs_user_64)
{
	unsigned long made = random_user_programs(true);
#if defined(__x86_64__)
	ck_assert_uint_gt(made, 1000);
#else
	(void)made;
#endif
	assert_user_access_translated(true, 0);
}
END_TEST

START_TEST(random_programs_user_32)
{
	unsigned long made = random_user_programs(false);
#if defined(__x86_64__)
	ck_assert_uint_gt(made, 1000);
#else
	(void)made;
#endif
	assert_user_access_translated(false, 0);
}
END_TEST

/* The CPL-switch program: add ecx, 1; mov rax, [rbx]; mov [rbx + 8], rax;
 * hlt (32-bit code: the same with EAX, EBX an offset in DS). */
static void cpl_program(struct program *p, bool long_mode)
{
	*p = (struct program){ .len = 0 };
	PUT(p, 0x83, 0xc1, 0x01);
	if (long_mode)
		b(p, 0x48);
	PUT(p, 0x8b, 0x03);
	if (long_mode)
		b(p, 0x48);
	PUT(p, 0x89, 0x43, 0x08, 0xf4);
}

/* Where the CPL-switch program's instructions are. */
static uint64_t cpl_load_rip(void)
{
	return CODE + 3;
}

static uint64_t cpl_store_rip(bool long_mode)
{
	return CODE + (long_mode ? 6 : 5);
}

static uint64_t cpl_hlt_rip(bool long_mode)
{
	return CODE + (long_mode ? 10 : 8);
}

/* The CPL-switch program made hot (translated) at CPL `made` with RBX =
 * made_bx, its TLB entries filled, run again there (returned in *made_left:
 * the times that run left before the load, spy_on); then the test switches
 * to CPL `runs` (enter_cpl) and runs the same block with RBX = bx: it leaves
 * at its start (the spy entered), and the machine is what the single steps
 * leave at `runs` (in `blocks` and `steps`). */
static void made_at_then_run_at(bool long_mode, unsigned made, uint64_t made_bx, unsigned runs, uint64_t bx,
				unsigned n, unsigned *made_left)
{
	struct program p;
	cpl_program(&p, long_mode);
	uint64_t regs[16] = { [R_BX] = made_bx, [R_AX] = 0x1111, [R_DX] = 5 };
	random_data();
	enter_cpl(long_mode, made);
	physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
	load(&p, regs);
	run_blocks(100);
	assert_translated_at(CODE, n);
	struct block *blk = spy_on(CODE, 1);
	physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
	begin(&p, regs);
	run_blocks(100);
	ck_assert_uint_eq(blocks.rip, made == 3 ? cpl_hlt_rip(long_mode) : cpl_hlt_rip(long_mode) + 1);
	*made_left = spied;
	enter_cpl(long_mode, runs);
	spied = 0;
	regs[R_BX] = bx;
	physmem_write_bytes(&m.pm, DATA, data0, DATA_SIZE);
	begin(&p, regs);
	run_blocks(100);
	assert_spied_block(blk, 1, n);
#if defined(__x86_64__)
	ck_assert_msg(spied > 0, "case %u: the run made at CPL %u did not leave at CPL %u", n, made, runs);
#endif
	run_steps_of(&p, regs, 100, n);
}

/* The data's qword at linear address a, as data0 holds it (64-bit: the
 * data's own addresses; 32-bit: DS offsets). */
static uint64_t data0_qword(bool long_mode, uint64_t a)
{
	uint64_t v;
	memcpy(&v, data0 + (a - (long_mode ? DATA : 0)), 8);
	return v;
}

/* The CPL-switch program made hot at CPL 3, run at CPL 0 (32-bit code, and
 * 64-bit code on a part with SMAP, "skylake-lite"): with RBX in a user page,
 * the load and store done, then the HLT; in SUPER_PAGE, the same (a
 * supervisor access may, SDM Vol.3 4.6.1); at an address not aligned to the
 * access's size with CR0.AM and EFLAGS.AC set, no #AC (CPL 0, SDM Vol.3
 * 6.15). With CR4.SMAP set, a load from the user page that the user bank
 * holds from the runs at CPL 3: #PF with P only (a supervisor read, 4.6.1
 * "SMAP"; EFLAGS.AC clear) at the load. The run made at CPL 3 does the load
 * in host code there, leaves at once at CPL 0; as the single steps each
 * time. */
START_TEST(block_hot_at_user_run_at_supervisor)
{
	machine_free(&m);
	machine_init(&m, "skylake-lite");
	unsigned n = 0, left;
	for (unsigned mode = 0; mode < 2; mode++) {
		bool long_mode = mode == 1;
		uint64_t user = (long_mode ? DATA : 0) + 0x100, mask = long_mode ? ~0ull : 0xffffffffull;
		user_machine(long_mode);
		made_at_then_run_at(long_mode, 3, user, 0, user, n++, &left);
		ck_assert_int_eq(blocks.status, ST_HALT);
		ck_assert_uint_eq(blocks.regs[R_AX], data0_qword(long_mode, user) & mask);
#if defined(__x86_64__)
		ck_assert_uint_eq(left, 0);
#endif
		if (long_mode) {
			made_at_then_run_at(long_mode, 3, user, 0, SUPER_PAGE + 0x100, n++, &left);
			ck_assert_int_eq(blocks.status, ST_HALT);
			ck_assert_uint_eq(blocks.regs[R_AX], data0_qword(true, SUPER_PAGE + 0x100));
		}
		alignment_check(true, true);
		made_at_then_run_at(long_mode, 3, user, 0, user + 3, n++, &left);
		ck_assert_int_eq(blocks.status, ST_HALT);
		ck_assert_uint_eq(blocks.regs[R_AX], data0_qword(long_mode, user + 3) & mask);
		alignment_check(false, false);
	}
	/* SMAP: set at CPL 0 (MOV CR4, which flushes the TLB), then the CPL 3
	 * runs fill the user bank. */
	enter_cpl(true, 0);
	ck_assert_int_eq(mov_cr(&m, 4, m.cpu.cr4 | CR4_SMAP), ST_OK);
	made_at_then_run_at(true, 3, DATA + 0x100, 0, DATA + 0x100, n++, &left);
	ck_assert_uint_eq(blocks.seen.vector, EXC_PF);
	ck_assert_uint_eq(blocks.seen.error_code, PFEC_P);
	ck_assert_uint_eq(blocks.seen.cr2, DATA + 0x100);
	ck_assert_uint_eq(blocks.rip, cpl_load_rip());
	ck_assert_uint_eq(blocks.regs[R_CX], 1);
}
END_TEST

/* The CPL-switch program made hot at CPL 0, the supervisor bank holding its
 * pages, run at CPL 3 (64-bit and 32-bit code): with RBX in SUPER_PAGE, #PF
 * with P and U at the load (SDM Vol.3 4.6.1, 4.7), CR2 its address; in
 * RO_PAGE (written at CPL 0, CR0.WP = 0), the load done and #PF with P, W and
 * U at the store; at an address not aligned to the access's size with CR0.AM
 * and EFLAGS.AC set (the run made at CPL 0 loaded it in host code, no check
 * of alignment), #AC(0) at the load (SDM Vol.3 6.15); in a user page,
 * aligned: the accesses done, then #GP(0) at the HLT (SDM Vol.2 HLT: CPL 3).
 * The run made at CPL 0 leaves at once at CPL 3; as the single steps each
 * time. */
START_TEST(block_hot_at_supervisor_run_at_user)
{
	unsigned n = 0, left;
	for (unsigned mode = 0; mode < 2; mode++) {
		bool long_mode = mode == 1;
		uint64_t user = (long_mode ? DATA : 0) + 0x100, mask = long_mode ? ~0ull : 0xffffffffull;
		user_machine(long_mode);
		if (long_mode) {
			made_at_then_run_at(true, 0, SUPER_PAGE + 0x100, 3, SUPER_PAGE + 0x100, n++, &left);
			ck_assert_uint_eq(blocks.seen.vector, EXC_PF);
			ck_assert_uint_eq(blocks.seen.error_code, PFEC_P | PFEC_U);
			ck_assert_uint_eq(blocks.seen.cr2, SUPER_PAGE + 0x100);
			ck_assert_uint_eq(blocks.rip, cpl_load_rip());
			ck_assert_uint_eq(blocks.regs[R_CX], 1);
#if defined(__x86_64__)
			ck_assert_uint_eq(left, 0);
#endif
			made_at_then_run_at(true, 0, RO_PAGE + 0x100, 3, RO_PAGE + 0x100, n++, &left);
			ck_assert_uint_eq(blocks.seen.vector, EXC_PF);
			ck_assert_uint_eq(blocks.seen.error_code, PFEC_P | PFEC_W | PFEC_U);
			ck_assert_uint_eq(blocks.seen.cr2, RO_PAGE + 0x108);
			ck_assert_uint_eq(blocks.rip, cpl_store_rip(true));
			ck_assert_uint_eq(blocks.regs[R_AX], data0_qword(true, RO_PAGE + 0x100));
		}
		alignment_check(true, true);
		made_at_then_run_at(long_mode, 0, user + 3, 3, user + 3, n++, &left);
		ck_assert_uint_eq(blocks.seen.vector, EXC_AC);
		ck_assert_uint_eq(blocks.seen.error_code, 0);
		ck_assert_uint_eq(blocks.rip, cpl_load_rip());
		ck_assert_uint_eq(blocks.regs[R_CX], 1);
#if defined(__x86_64__)
		ck_assert_uint_eq(left, 0);
#endif
		alignment_check(false, false);
		made_at_then_run_at(long_mode, 0, user, 3, user, n++, &left);
		ck_assert_uint_eq(blocks.seen.vector, EXC_GP);
		ck_assert_uint_eq(blocks.seen.error_code, 0);
		ck_assert_uint_eq(blocks.rip, cpl_hlt_rip(long_mode));
		uint64_t stored;
		memcpy(&stored, blocks.data + (user - (long_mode ? DATA : 0)) + 8, 8);
		ck_assert_uint_eq(stored & mask, data0_qword(long_mode, user) & mask);
	}
}
END_TEST

/* At CPL 3, each access a run may hold, last in a run (add ecx, 1; the
 * access; hlt), at an address aligned to its size and at every offset up to
 * the next aligned one: loads, stores (of a register, of an immediate),
 * ALU, CMP and TEST with memory of 2, 4 and 8 bytes; in 64-bit code PUSH,
 * POP, and CALL rel32 and RET ending the run (their stack slot), an FS
 * override (base 803H: the model checks the linear address's alignment,
 * emu/memory.c misaligned_user_access); in 32-bit code a GS override (base
 * one above the data). With CR0.AM and EFLAGS.AC both set, a misaligned
 * access is #AC(0) at it, nothing done (SDM Vol.3 6.15 "Interrupt 17", Table
 * 6-7: a word at an odd address, a doubleword not at a multiple of 4, a
 * quadword not at a multiple of 8); with one of them or neither, the access
 * done (the value loaded, the bytes stored, the return address pushed or
 * taken), then #GP(0) at the HLT. As the single steps; the translated run
 * does an aligned access in host code (after a first run filled the TLB)
 * and leaves before a misaligned one (run_user_spied). */
enum user_access_kind { UA_LOAD, UA_STORE, UA_ALU, UA_PUSH, UA_POP, UA_CALL, UA_RET };

static const struct user_access {
	const char *what;
	uint8_t bytes[8];
	unsigned len, size;
	bool long_mode;
	uint8_t kind;              /* enum user_access_kind */
	uint8_t reg;               /* UA_LOAD, UA_POP: the register loaded; UA_STORE,
				      UA_PUSH: stored (REG_NONE: imm) */
	uint64_t imm;
	uint32_t seg_base;         /* the linear address of its segment's offset 0 */
} user_accesses[] = {
	{ "movzx eax, word [rbx]", { 0x0f, 0xb7, 0x03 }, 3, 2, true, UA_LOAD, R_AX, 0, 0 },
	{ "mov eax, [rbx]", { 0x8b, 0x03 }, 2, 4, true, UA_LOAD, R_AX, 0, 0 },
	{ "mov rax, [rbx]", { 0x48, 0x8b, 0x03 }, 3, 8, true, UA_LOAD, R_AX, 0, 0 },
	{ "mov rax, fs:[rbx]", { 0x64, 0x48, 0x8b, 0x03 }, 4, 8, true, UA_LOAD, R_AX, 0, 0x803 },
	{ "mov [rbx], dx", { 0x66, 0x89, 0x13 }, 3, 2, true, UA_STORE, R_DX, 0, 0 },
	{ "mov [rbx], edx", { 0x89, 0x13 }, 2, 4, true, UA_STORE, R_DX, 0, 0 },
	{ "mov [rbx], rdx", { 0x48, 0x89, 0x13 }, 3, 8, true, UA_STORE, R_DX, 0, 0 },
	{ "mov word [rbx], 1234h", { 0x66, 0xc7, 0x03, 0x34, 0x12 }, 5, 2, true, UA_STORE, REG_NONE, 0x1234, 0 },
	{ "mov qword [rbx], -2", { 0x48, 0xc7, 0x03, 0xfe, 0xff, 0xff, 0xff }, 7, 8, true, UA_STORE, REG_NONE,
	  ~1ull, 0 },
	{ "add eax, [rbx]", { 0x03, 0x03 }, 2, 4, true, UA_ALU, 0, 0, 0 },
	{ "sub rax, [rbx]", { 0x48, 0x2b, 0x03 }, 3, 8, true, UA_ALU, 0, 0, 0 },
	{ "cmp [rbx], rdx", { 0x48, 0x39, 0x13 }, 3, 8, true, UA_ALU, 0, 0, 0 },
	{ "test [rbx], edx", { 0x85, 0x13 }, 2, 4, true, UA_ALU, 0, 0, 0 },
	{ "cmp dword [rbx], 7", { 0x83, 0x3b, 0x07 }, 3, 4, true, UA_ALU, 0, 0, 0 },
	{ "push rdx", { 0x52 }, 1, 8, true, UA_PUSH, R_DX, 0, 0 },
	{ "pop rdx", { 0x5a }, 1, 8, true, UA_POP, R_DX, 0, 0 },
	{ "call $+6", { 0xe8, 0x01, 0x00, 0x00, 0x00 }, 5, 8, true, UA_CALL, 0, 0, 0 },
	{ "ret", { 0xc3 }, 1, 8, true, UA_RET, 0, 0, 0 },
	{ "movzx eax, word [ebx]", { 0x0f, 0xb7, 0x03 }, 3, 2, false, UA_LOAD, R_AX, 0, DATA },
	{ "mov eax, [ebx]", { 0x8b, 0x03 }, 2, 4, false, UA_LOAD, R_AX, 0, DATA },
	{ "mov eax, gs:[ebx]", { 0x65, 0x8b, 0x03 }, 3, 4, false, UA_LOAD, R_AX, 0, DATA + 1 },
	{ "mov [ebx], dx", { 0x66, 0x89, 0x13 }, 3, 2, false, UA_STORE, R_DX, 0, DATA },
	{ "mov [ebx], edx", { 0x89, 0x13 }, 2, 4, false, UA_STORE, R_DX, 0, DATA },
	{ "mov dword [ebx], 12345678h", { 0xc7, 0x03, 0x78, 0x56, 0x34, 0x12 }, 6, 4, false, UA_STORE, REG_NONE,
	  0x12345678, DATA },
	{ "add eax, [ebx]", { 0x03, 0x03 }, 2, 4, false, UA_ALU, 0, 0, DATA },
	{ "cmp dword [ebx], 7", { 0x83, 0x3b, 0x07 }, 3, 4, false, UA_ALU, 0, 0, DATA },
};

/* One case of user_misaligned_access: access u at linear address lin, with
 * CR0.AM = am and EFLAGS.AC = ac. */
static void user_access_case(const struct user_access *u, uint64_t lin, bool am, bool ac, unsigned n)
{
	struct program p = { .len = 0 };
	PUT(&p, 0x83, 0xc1, 0x01);
	put(&p, u->bytes, u->len);
	unsigned access_end = p.len;
	PUT(&p, 0xf4, 0xf4);
	/* Where it ends: the HLT after it; a CALL's target, the second; a
	 * RET's, the first (the address at its slot). */
	uint64_t hlt = CODE + access_end + (u->kind == UA_CALL ? 1 : 0);
	uint64_t mask = u->size == 8 ? ~0ull : (1ull << (8 * u->size)) - 1;
	bool misaligned = lin % u->size != 0;
	uint64_t regs[16] = { [R_AX] = 0x0123456789abcdefull, [R_DX] = 0xfedcba9876543210ull,
			      [R_BX] = lin - u->seg_base, [R_SP] = 0x800 };
	if (u->kind == UA_PUSH || u->kind == UA_CALL)
		regs[R_SP] = lin + 8;
	else if (u->kind == UA_POP || u->kind == UA_RET)
		regs[R_SP] = lin;
	random_data();
	if (u->kind == UA_RET) {
		uint64_t to = CODE + access_end;
		memcpy(data0 + (lin - DATA), &to, 8);
	}
	alignment_check(am, ac);
	unsigned left = run_user_spied(&p, regs, n);
	ck_assert_uint_eq(blocks.seen.error_code, 0);
	ck_assert_uint_eq(blocks.regs[R_CX], 1);
	uint64_t old, now;
	memcpy(&old, data0 + (lin - DATA), 8);
	memcpy(&now, blocks.data + (lin - DATA), 8);
	if (misaligned && am && ac) {
		ck_assert_msg(blocks.seen.vector == EXC_AC, "%s at %llx: vector %u, not #AC", u->what,
			      (unsigned long long)lin, blocks.seen.vector);
		ck_assert_uint_eq(blocks.rip, CODE + 3);
		ck_assert_uint_eq(blocks.regs[R_SP], regs[R_SP]);
		ck_assert_uint_eq(now, old);
	} else {
		ck_assert_msg(blocks.seen.vector == EXC_GP, "%s at %llx: vector %u, not the HLT's #GP", u->what,
			      (unsigned long long)lin, blocks.seen.vector);
		ck_assert_uint_eq(blocks.rip, u->kind == UA_RET ? CODE + access_end : hlt);
		if (u->kind == UA_LOAD || u->kind == UA_POP)
			ck_assert_uint_eq(blocks.regs[u->reg] & mask, old & mask);
		if (u->kind == UA_STORE || u->kind == UA_PUSH)
			ck_assert_uint_eq(now & mask, (u->reg == REG_NONE ? u->imm : regs[u->reg]) & mask);
		if (u->kind == UA_CALL)
			ck_assert_uint_eq(now, CODE + access_end);
	}
#if defined(__x86_64__)
	ck_assert_msg(misaligned ? left > 0 : left == 0, "%s at %llx: the user run left %u times before it", u->what,
		      (unsigned long long)lin, left);
#else
	(void)left;
#endif
}

START_TEST(user_misaligned_access)
{
	const uint64_t at = DATA + 0x200;   /* an address aligned to 8 */
	unsigned n = 0;
	for (unsigned mode = 0; mode < 2; mode++) {
		bool long_mode = mode == 1;
		user_machine(long_mode);
		for (size_t k = 0; k < sizeof(user_accesses) / sizeof(user_accesses[0]); k++) {
			const struct user_access *u = &user_accesses[k];
			if (u->long_mode != long_mode)
				continue;
			for (unsigned off = 0; off <= u->size; off++)
				for (unsigned checks = 0; checks < 4; checks++)
					user_access_case(u, at + off, checks < 2, checks % 2 == 0, n++);
		}
		alignment_check(false, false);
	}
}
END_TEST

static Suite *jit_suite(void)
{
	Suite *s = suite_create("jit");
	TCase *t = tcase_create("differential");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 120);
	tcase_add_test(t, random_programs_32);
	tcase_add_test(t, random_programs_64);
	tcase_add_test(t, loop_starting_with_inc);
	tcase_add_test(t, loop_with_carry_chain);
	tcase_add_test(t, block_translated_when_hot);
	tcase_add_test(t, delay_loop_in_runs);
	tcase_add_test(t, delay_loop_with_tsd_leaves_for_the_handler);
	tcase_add_test(t, delay_loop_in_a_guest_asks_each_round);
	tcase_add_test(t, fence_without_sse2_is_ud_in_runs);
	tcase_add_test(t, pause_ends_the_turn_in_runs);
	tcase_add_test(t, access_crossing_into_absent_page);
	tcase_add_test(t, sib_access_crossing_into_absent_page);
	tcase_add_test(t, shared_lookup_stops_at_the_page_end);
	tcase_add_test(t, shared_lookup_asks_for_the_write);
	tcase_add_test(t, shared_lookup_counts_the_base_moving);
	tcase_add_test(t, random_shared_lookups_64);
	tcase_add_test(t, compare_with_memory_source);
	tcase_add_test(t, user_access_to_supervisor_page);
	tcase_add_test(t, global_translation_hits_in_runs);
	tcase_add_test(t, global_lookup_at_each_access_own_address);
	tcase_add_test(t, older_way_hits_in_runs);
	tcase_add_test(t, access_beyond_segment_limit);
	tcase_add_test(t, code_area_full_starts_again);
	tcase_add_test(t, push_to_absent_page);
	tcase_add_test(t, run_of_many_accesses);
	tcase_add_test(t, loop_reads_flags_from_before);
	tcase_add_test(t, loop_with_store_after_its_flags);
	tcase_add_test(t, random_loops_32);
	tcase_add_test(t, random_loops_64);
	tcase_add_test(t, random_branchy_programs_32);
	tcase_add_test(t, random_branchy_programs_64);
	tcase_add_test(t, random_call_programs_64);
	tcase_add_test(t, fall_through_after_step_form);
	tcase_add_test(t, branch_target_beyond_cs_limit);
	tcase_add_test(t, chain_stops_at_deadline);
	tcase_add_test(t, chain_link_retargeted);
	tcase_add_test(t, chain_link_remapped);
	tcase_add_test(t, next_block_translated_when_hot);
	tcase_add_test(t, inc_then_jb_not_from_host);
	tcase_add_test(t, store_immediate_to_memory);
	tcase_add_test(t, movnti_in_runs);
	tcase_add_test(t, nop_forms);
	tcase_add_test(t, accumulator_immediate_forms);
	tcase_add_test(t, compare_memory_with_immediate);
	tcase_add_test(t, rip_relative_operands);
	tcase_add_test(t, stores_into_own_code);
	tcase_add_test(t, call_and_ret_64);
	tcase_add_test(t, nested_calls_under_limits);
	tcase_add_test(t, lone_branch_blocks_64);
	tcase_add_test(t, runs_take_cf_from_before);
	tcase_add_test(t, jcc_on_flags_from_before);
	tcase_add_test(t, jump_cache_after_store_into_code);
	tcase_add_test(t, branch_past_canonical_top_64);
	tcase_add_test(t, random_programs_user_64);
	tcase_add_test(t, random_programs_user_32);
	tcase_add_test(t, block_hot_at_user_run_at_supervisor);
	tcase_add_test(t, block_hot_at_supervisor_run_at_user);
	tcase_add_test(t, user_misaligned_access);
	tcase_add_test(t, direct_links_between_blocks_32);
	tcase_add_test(t, direct_links_between_blocks_64);
	tcase_add_test(t, runs_joined_with_as_many_pushes);
	tcase_add_test(t, runs_joined_with_fewer_pushes);
	tcase_add_test(t, direct_link_to_a_changed_block);
	tcase_add_test(t, direct_links_stop_at_the_limit);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(jit_suite());
}
