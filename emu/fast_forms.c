/* Decode-time choice of register-form handlers (see fast_forms.h). */
#include "emu/fast_forms.h"
#include "emu/threaded.h"
#include "isa_handlers.h"

/* A decode-time variant of a row's handler and its thread form
 * (emu/threaded.h), pure for every variant here (the memory ones on a TLB hit). */
struct variant {
	insn_handler exec, thread;
};

static const struct fast_form {
	insn_handler generic;      /* the row's handler */
	struct variant v[4];       /* by variant_index(): a register E operand of 4 / 8
				      bytes, a memory one of 4 / 8 bytes; NULL: none */
} fast_forms[] = {
#define V(name) { op_##name, thr_##name }
#define FORM(name) { op_##name, { V(name##_r32), V(name##_r64) } }
#define FORM_MEM(name) { op_##name, { V(name##_r32), V(name##_r64), V(name##_m32), V(name##_m64) } }
	FORM_MEM(add_EG), FORM_MEM(add_GE), FORM_MEM(add_EI),
	FORM_MEM(or_EG),  FORM_MEM(or_GE),  FORM_MEM(or_EI),
	FORM_MEM(and_EG), FORM_MEM(and_GE), FORM_MEM(and_EI),
	FORM_MEM(sub_EG), FORM_MEM(sub_GE), FORM_MEM(sub_EI),
	FORM_MEM(xor_EG), FORM_MEM(xor_GE), FORM_MEM(xor_EI),
	FORM_MEM(cmp_EG), FORM_MEM(cmp_GE), FORM_MEM(cmp_EI),
	FORM(test_EG),
	FORM(inc), FORM(dec),
	FORM_MEM(mov_EG), FORM_MEM(mov_GE),
	FORM(shl), FORM(shr), FORM(sar),
	FORM_MEM(adc_EG), FORM_MEM(adc_GE), FORM_MEM(adc_EI),
	FORM_MEM(sbb_EG), FORM_MEM(sbb_GE), FORM_MEM(sbb_EI),
	FORM(imul_GE), FORM(movsxd),
	/* 40+r / 48+r: no 64-bit form (REX prefixes in 64-bit mode). */
	{ op_inc_r, { V(inc_r_r32) } }, { op_dec_r, { V(dec_r_r32) } },
#undef V
#undef FORM
#undef FORM_MEM
};

static unsigned variant_index(const struct insn *in)
{
	return (in->mem ? 2u : 0u) + (in->size == 8);
}

insn_handler insn_fast_form(const struct insn *in)
{
	/* LOCK with a register destination is #UD (the decoder has made it so). */
	if (in->lock || (in->size != 4 && in->size != 8))
		return in->exec;
	for (unsigned i = 0; i < sizeof(fast_forms) / sizeof(fast_forms[0]); i++) {
		if (fast_forms[i].generic != in->exec)
			continue;
		insn_handler h = fast_forms[i].v[variant_index(in)].exec;
		return h ? h : in->exec;
	}
	return in->exec;
}

/* Other rows' handlers with a thread form of their own (emu/threaded.h). */
static const struct thread_form {
	insn_handler exec, thread;
	bool pure;                 /* pure, or pure on its fast path: it may leave rIP
				      unset, for the block's end to set (emu/threaded.h) */
} thread_forms[] = {
#define PURE(name) { op_##name, thr_##name, true }
#define STEP(name) { op_##name, thr_##name, false }
	PURE(mov_ZI), PURE(inc_r), PURE(dec_r), PURE(lea), PURE(nop),
	PURE(push_Z), PURE(pop_Z),
	/* Pure with a register operand (THREADED_PURE_REG), a step with memory:
	 * the sizes and forms the variants above leave to the row's handler. */
#define ALU_ROWS(name) PURE(name##_EG), PURE(name##_GE), PURE(name##_EI), PURE(name##_AI)
	ALU_ROWS(add), ALU_ROWS(or), ALU_ROWS(adc), ALU_ROWS(sbb),
	ALU_ROWS(and), ALU_ROWS(sub), ALU_ROWS(xor), ALU_ROWS(cmp),
#undef ALU_ROWS
	PURE(test_EG), PURE(test_EI), PURE(test_AI), PURE(not), PURE(neg),
	PURE(imul_GE), PURE(imul_GEI), PURE(movsxd), PURE(movzx), PURE(movsx),
	PURE(setcc), PURE(cmovcc), PURE(rol), PURE(ror),
	STEP(jcc), STEP(jmp), STEP(call), STEP(ret),
#undef PURE
#undef STEP
};

insn_handler insn_thread_form(const struct insn *in, bool *pure)
{
	*pure = false;
	/* A RIP-relative address reads rIP, which a pure handler may not. */
	if (in->exec == op_lea && in->base == REG_RIP)
		return thread_step;
	for (unsigned i = 0; i < sizeof(fast_forms) / sizeof(fast_forms[0]); i++) {
		const struct variant *v = &fast_forms[i].v[variant_index(in)];
		if (v->exec && v->exec == in->exec) {
			*pure = true;
			return v->thread;
		}
	}
	for (unsigned i = 0; i < sizeof(thread_forms) / sizeof(thread_forms[0]); i++) {
		if (thread_forms[i].exec == in->exec) {
			*pure = thread_forms[i].pure;
			return thread_forms[i].thread;
		}
	}
	return thread_step;
}
