/* Decode-time choice of register-form handlers (see fast_forms.h). */
#include "emu/fast_forms.h"
#include "emu/threaded.h"
#include "isa_handlers.h"

static const struct fast_form {
	insn_handler generic;      /* the row's handler */
	insn_handler reg32, reg64; /* for a register E operand of 4 / 8 bytes */
	insn_handler mem32, mem64; /* for a memory E operand of 4 / 8 bytes, or NULL */
} fast_forms[] = {
#define FORM(name) { op_##name, op_##name##_r32, op_##name##_r64, NULL, NULL }
#define FORM_MEM(name) { op_##name, op_##name##_r32, op_##name##_r64, op_##name##_m32, op_##name##_m64 }
	FORM(add_EG), FORM(add_GE), FORM(add_EI),
	FORM(or_EG),  FORM(or_GE),  FORM(or_EI),
	FORM(and_EG), FORM(and_GE), FORM(and_EI),
	FORM(sub_EG), FORM(sub_GE), FORM(sub_EI),
	FORM(xor_EG), FORM(xor_GE), FORM(xor_EI),
	FORM(cmp_EG), FORM(cmp_GE), FORM(cmp_EI),
	FORM(test_EG),
	FORM(inc), FORM(dec),
	FORM_MEM(mov_EG), FORM_MEM(mov_GE),
	FORM(shl), FORM(shr), FORM(sar),
	/* 40+r / 48+r: no 64-bit form (REX prefixes in 64-bit mode). */
	{ op_inc_r, op_inc_r_r32, NULL, NULL, NULL }, { op_dec_r, op_dec_r_r32, NULL, NULL, NULL },
#undef FORM
#undef FORM_MEM
};

insn_handler insn_fast_form(const struct insn *in)
{
	/* LOCK with a register destination is #UD (the decoder has made it so). */
	if (in->lock || (in->size != 4 && in->size != 8))
		return in->exec;
	for (unsigned i = 0; i < sizeof(fast_forms) / sizeof(fast_forms[0]); i++) {
		const struct fast_form *f = &fast_forms[i];
		if (f->generic != in->exec)
			continue;
		if (in->mem)
			return (in->size == 4 ? f->mem32 : f->mem64) ? (in->size == 4 ? f->mem32 : f->mem64) : in->exec;
		insn_handler reg = in->size == 4 ? f->reg32 : f->reg64;
		return reg ? reg : in->exec;
	}
	return in->exec;
}

/* Handlers with a thread handler of their own (emu/threaded.h). */
static const struct thread_form {
	insn_handler exec, thread;
	bool pure;                 /* pure, or pure on its fast path: it may leave rIP
				      unset, for the block's end to set (emu/threaded.h) */
} thread_forms[] = {
#define PURE(name) { op_##name, thr_##name, true }
#define PURE_REG(name) PURE(name##_r32), PURE(name##_r64)
#define STEP(name) { op_##name, thr_##name, false }
	PURE_REG(add_EG), PURE_REG(add_GE), PURE_REG(add_EI),
	PURE_REG(or_EG),  PURE_REG(or_GE),  PURE_REG(or_EI),
	PURE_REG(and_EG), PURE_REG(and_GE), PURE_REG(and_EI),
	PURE_REG(sub_EG), PURE_REG(sub_GE), PURE_REG(sub_EI),
	PURE_REG(xor_EG), PURE_REG(xor_GE), PURE_REG(xor_EI),
	PURE_REG(cmp_EG), PURE_REG(cmp_GE), PURE_REG(cmp_EI),
	PURE_REG(test_EG),
	PURE_REG(inc), PURE_REG(dec),
	PURE_REG(mov_EG), PURE_REG(mov_GE),
	PURE_REG(shl), PURE_REG(shr), PURE_REG(sar),
	PURE(mov_ZI), PURE(inc_r), PURE(dec_r), PURE(inc_r_r32), PURE(dec_r_r32), PURE(lea), PURE(nop),
	/* Pure on a TLB hit, a step otherwise: as a block's last, rIP may be
	 * unset, as after a pure one (emu/datamove.c). */
	PURE(mov_GE_m32), PURE(mov_GE_m64), PURE(mov_EG_m32), PURE(mov_EG_m64),
	STEP(jcc), STEP(jmp),
#undef PURE
#undef PURE_REG
#undef STEP
};

insn_handler insn_thread_form(const struct insn *in, bool *pure)
{
	*pure = false;
	/* A RIP-relative address reads rIP, which a pure handler may not. */
	if (in->exec == op_lea && in->base == REG_RIP)
		return thread_step;
	for (unsigned i = 0; i < sizeof(thread_forms) / sizeof(thread_forms[0]); i++) {
		if (thread_forms[i].exec == in->exec) {
			*pure = thread_forms[i].pure;
			return thread_forms[i].thread;
		}
	}
	return thread_step;
}
