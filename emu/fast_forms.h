/* Register forms resolved at decode time: for the most frequent instructions
 * with 32- or 64-bit register operands the decoder picks a handler in which
 * the width and register-versus-memory are constants (CONVENTIONS, lesson 4).
 * The generic handler of the row stays correct for every form; these variants
 * only drop its tests. The table of variants is emu/fast_forms.c. MOV also
 * has memory forms of those widths, the commonest memory accesses. */
#ifndef HVEMU_EMU_FAST_FORMS_H
#define HVEMU_EMU_FAST_FORMS_H

#include "emu/insn.h"

/* The handler to run for a decoded instruction: a fast form of its row's
 * handler, or that handler. */
insn_handler insn_fast_form(const struct insn *in);

/* What a thread form does to the status flags. */
enum flags_written {
	FLAGS_UNKNOWN,             /* may read or keep any (not a fast register form) */
	FLAGS_NONE,                /* neither reads nor writes them */
	FLAGS_SOME,                /* writes some, keeps or reads others */
	FLAGS_ALL,                 /* replaces all six, reading none */
	FLAGS_BY_COUNT,            /* a shift: FLAGS_ALL when its count is an immediate
				      that is not 0 after masking, else FLAGS_SOME */
};

struct thread_form_info {
	bool pure;                 /* it may leave rIP unset (a pure form, or one that
				      is pure on its fast path) */
	insn_handler flagless;     /* its twin without the status flags, or NULL */
	enum flags_written flags;  /* never FLAGS_BY_COUNT here */
};

/* The thread handler (emu/threaded.h) of a decoded instruction whose exec is
 * final (after insn_gate()): its own, or thread_step; and *info about it. */
insn_handler insn_thread_form(const struct insn *in, struct thread_form_info *info);

/* Decode-time dead-flag elimination over a block's count instructions (info:
 * insn_thread_form's for each): an instruction's thread form drops its status
 * flags when the next one is a pure register form that replaces all six
 * without reading any. Nothing can look at them in between: a pure form
 * neither faults nor stops the run, and single steps, tracing and deadlines
 * inside a block run the exec forms. */
void insns_drop_dead_flags(struct insn *insns, const struct thread_form_info *info, unsigned count);

/* The variants (emu/alu.c, emu/datamove.c). */
#define FAST_FORMS_OF(name)                                                     \
	status_t op_##name##_r32(struct cpu *cpu, const struct insn *in);       \
	status_t op_##name##_r64(struct cpu *cpu, const struct insn *in);       \
	status_t thr_##name##_r32(struct cpu *cpu, const struct insn *in);      \
	status_t thr_##name##_r64(struct cpu *cpu, const struct insn *in);
FAST_FORMS_OF(add_EG) FAST_FORMS_OF(add_GE) FAST_FORMS_OF(add_EI)
FAST_FORMS_OF(or_EG)  FAST_FORMS_OF(or_GE)  FAST_FORMS_OF(or_EI)
FAST_FORMS_OF(and_EG) FAST_FORMS_OF(and_GE) FAST_FORMS_OF(and_EI)
FAST_FORMS_OF(sub_EG) FAST_FORMS_OF(sub_GE) FAST_FORMS_OF(sub_EI)
FAST_FORMS_OF(xor_EG) FAST_FORMS_OF(xor_GE) FAST_FORMS_OF(xor_EI)
FAST_FORMS_OF(cmp_EG) FAST_FORMS_OF(cmp_GE) FAST_FORMS_OF(cmp_EI)
FAST_FORMS_OF(test_EG)
FAST_FORMS_OF(inc) FAST_FORMS_OF(dec)
FAST_FORMS_OF(mov_EG) FAST_FORMS_OF(mov_GE)
FAST_FORMS_OF(shl) FAST_FORMS_OF(shr) FAST_FORMS_OF(sar)
FAST_FORMS_OF(adc_EG) FAST_FORMS_OF(adc_GE) FAST_FORMS_OF(adc_EI)
FAST_FORMS_OF(sbb_EG) FAST_FORMS_OF(sbb_GE) FAST_FORMS_OF(sbb_EI)
FAST_FORMS_OF(imul_GE) FAST_FORMS_OF(movsxd)
#undef FAST_FORMS_OF
/* ALU with a 32- or 64-bit memory operand (emu/alu.c). */
#define MEM_FORMS_OF(name)                                                      \
	status_t op_##name##_m32(struct cpu *cpu, const struct insn *in);       \
	status_t op_##name##_m64(struct cpu *cpu, const struct insn *in);       \
	status_t thr_##name##_m32(struct cpu *cpu, const struct insn *in);      \
	status_t thr_##name##_m64(struct cpu *cpu, const struct insn *in);
#define ALU_MEM_FORMS_OF(name) MEM_FORMS_OF(name##_EG) MEM_FORMS_OF(name##_GE) MEM_FORMS_OF(name##_EI)
ALU_MEM_FORMS_OF(add) ALU_MEM_FORMS_OF(or) ALU_MEM_FORMS_OF(adc) ALU_MEM_FORMS_OF(sbb)
ALU_MEM_FORMS_OF(and) ALU_MEM_FORMS_OF(sub) ALU_MEM_FORMS_OF(xor) ALU_MEM_FORMS_OF(cmp)
#undef ALU_MEM_FORMS_OF
#undef MEM_FORMS_OF
/* MOV with a 32- or 64-bit memory operand: the access's size is a constant,
 * so its TLB-hit path is inline (emu/operand.h mem_read/mem_write). */
status_t op_mov_GE_m32(struct cpu *cpu, const struct insn *in);
status_t op_mov_GE_m64(struct cpu *cpu, const struct insn *in);
status_t op_mov_EG_m32(struct cpu *cpu, const struct insn *in);
status_t op_mov_EG_m64(struct cpu *cpu, const struct insn *in);
/* Thread forms without flags (emu/alu.c, emu/shift.c): for an instruction
 * whose status flags the next one replaces before anything can read them. */
#define FLAGLESS_FORMS_OF(name)                                                 \
	status_t thr_##name##_r32_nf(struct cpu *cpu, const struct insn *in);   \
	status_t thr_##name##_r64_nf(struct cpu *cpu, const struct insn *in);
FLAGLESS_FORMS_OF(add_EG) FLAGLESS_FORMS_OF(add_GE) FLAGLESS_FORMS_OF(add_EI)
FLAGLESS_FORMS_OF(or_EG)  FLAGLESS_FORMS_OF(or_GE)  FLAGLESS_FORMS_OF(or_EI)
FLAGLESS_FORMS_OF(and_EG) FLAGLESS_FORMS_OF(and_GE) FLAGLESS_FORMS_OF(and_EI)
FLAGLESS_FORMS_OF(sub_EG) FLAGLESS_FORMS_OF(sub_GE) FLAGLESS_FORMS_OF(sub_EI)
FLAGLESS_FORMS_OF(xor_EG) FLAGLESS_FORMS_OF(xor_GE) FLAGLESS_FORMS_OF(xor_EI)
FLAGLESS_FORMS_OF(cmp_EG) FLAGLESS_FORMS_OF(cmp_GE) FLAGLESS_FORMS_OF(cmp_EI)
FLAGLESS_FORMS_OF(test_EG) FLAGLESS_FORMS_OF(inc) FLAGLESS_FORMS_OF(dec)
FLAGLESS_FORMS_OF(shl) FLAGLESS_FORMS_OF(shr) FLAGLESS_FORMS_OF(sar)
#undef FLAGLESS_FORMS_OF
status_t thr_inc_r_r32_nf(struct cpu *cpu, const struct insn *in);
status_t thr_dec_r_r32_nf(struct cpu *cpu, const struct insn *in);
/* Does a group-2 shift write every status flag (emu/shift.c)? */
bool shift_writes_flags(const struct insn *in);

/* INC/DEC 40+r / 48+r (outside 64-bit mode) with a 32-bit register. */
status_t op_inc_r_r32(struct cpu *cpu, const struct insn *in);
status_t op_dec_r_r32(struct cpu *cpu, const struct insn *in);

/* Thread handlers of other rows (emu/threaded.h): pure ones (register MOV
 * of an immediate, INC/DEC 40+r, LEA, NOP), MOV with memory (any size) and
 * PUSH/POP of a register (pure on a TLB hit) and step ones for the near branches (CALL and
 * RET with their common case inline). */
#define THREAD_FORM_OF(name) status_t thr_##name(struct cpu *cpu, const struct insn *in);
THREAD_FORM_OF(mov_ZI) THREAD_FORM_OF(inc_r) THREAD_FORM_OF(dec_r) THREAD_FORM_OF(lea)
THREAD_FORM_OF(inc_r_r32) THREAD_FORM_OF(dec_r_r32)
THREAD_FORM_OF(nop)
THREAD_FORM_OF(mov_GE_m32) THREAD_FORM_OF(mov_GE_m64) THREAD_FORM_OF(mov_EG_m32) THREAD_FORM_OF(mov_EG_m64)
THREAD_FORM_OF(mov_EG) THREAD_FORM_OF(mov_GE) THREAD_FORM_OF(mov_EI)
THREAD_FORM_OF(jmp)
/* Jcc's thread form for each condition (the opcode's low four bits). */
extern const insn_handler thr_jcc_by_cc[16];
THREAD_FORM_OF(push_Z) THREAD_FORM_OF(pop_Z) THREAD_FORM_OF(call) THREAD_FORM_OF(ret)
/* Pure with a register operand, a step with memory (THREADED_PURE_REG). */
#define ALU_THREAD_FORMS_OF(name) THREAD_FORM_OF(name##_EG) THREAD_FORM_OF(name##_GE) \
	THREAD_FORM_OF(name##_EI) THREAD_FORM_OF(name##_AI)
ALU_THREAD_FORMS_OF(add) ALU_THREAD_FORMS_OF(or) ALU_THREAD_FORMS_OF(adc) ALU_THREAD_FORMS_OF(sbb)
ALU_THREAD_FORMS_OF(and) ALU_THREAD_FORMS_OF(sub) ALU_THREAD_FORMS_OF(xor) ALU_THREAD_FORMS_OF(cmp)
#undef ALU_THREAD_FORMS_OF
THREAD_FORM_OF(test_EG) THREAD_FORM_OF(test_EI) THREAD_FORM_OF(test_AI) THREAD_FORM_OF(not) THREAD_FORM_OF(neg)
THREAD_FORM_OF(imul_GE) THREAD_FORM_OF(imul_GEI) THREAD_FORM_OF(movsxd)
THREAD_FORM_OF(movzx) THREAD_FORM_OF(movsx) THREAD_FORM_OF(setcc) THREAD_FORM_OF(cmovcc)
THREAD_FORM_OF(rol) THREAD_FORM_OF(ror)
#undef THREAD_FORM_OF

#endif
