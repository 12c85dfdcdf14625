/* Decode-time choice of register-form handlers (see fast_forms.h). */
#include "emu/fast_forms.h"
#include "emu/threaded.h"
#include "isa_handlers.h"

/* A decode-time variant of a row's handler and its thread form
 * (emu/threaded.h), pure for every variant here (the memory ones on a TLB hit). */
struct variant {
	insn_handler exec, thread;
	insn_handler flagless;     /* the thread form without the status flags, or NULL
				      (fast_forms.h insns_drop_dead_flags) */
};

static const struct fast_form {
	insn_handler generic;      /* the row's handler */
	enum flags_written flags;  /* what its register forms do to the status flags */
	struct variant v[4];       /* by variant_index(): a register E operand of 4 / 8
				      bytes, a memory one of 4 / 8 bytes; NULL: none */
} fast_forms[] = {
#define V(name) { op_##name, thr_##name, NULL }
#define VNF(name) { op_##name, thr_##name, thr_##name##_nf }
#define FORM(name, fl) { op_##name, fl, { V(name##_r32), V(name##_r64) } }
#define FORM_NF(name, fl) { op_##name, fl, { VNF(name##_r32), VNF(name##_r64) } }
#define FORM_MEM(name, fl) { op_##name, fl, { V(name##_r32), V(name##_r64), V(name##_m32), V(name##_m64) } }
#define FORM_MEM_NF(name) { op_##name, FLAGS_ALL, { VNF(name##_r32), VNF(name##_r64), V(name##_m32), V(name##_m64) } }
	FORM_MEM_NF(add_EG), FORM_MEM_NF(add_GE), FORM_MEM_NF(add_EI),
	FORM_MEM_NF(or_EG),  FORM_MEM_NF(or_GE),  FORM_MEM_NF(or_EI),
	FORM_MEM_NF(and_EG), FORM_MEM_NF(and_GE), FORM_MEM_NF(and_EI),
	FORM_MEM_NF(sub_EG), FORM_MEM_NF(sub_GE), FORM_MEM_NF(sub_EI),
	FORM_MEM_NF(xor_EG), FORM_MEM_NF(xor_GE), FORM_MEM_NF(xor_EI),
	FORM_MEM_NF(cmp_EG), FORM_MEM_NF(cmp_GE), FORM_MEM_NF(cmp_EI),
	FORM_NF(test_EG, FLAGS_ALL),
	/* SDM Vol.2 INC/DEC: CF is not affected. */
	FORM_NF(inc, FLAGS_SOME), FORM_NF(dec, FLAGS_SOME),
	FORM_MEM(mov_EG, FLAGS_NONE), FORM_MEM(mov_GE, FLAGS_NONE),
	FORM_NF(shl, FLAGS_BY_COUNT), FORM_NF(shr, FLAGS_BY_COUNT), FORM_NF(sar, FLAGS_BY_COUNT),
	/* ADC/SBB read CF: never flagless, and not counted as writers either. */
	FORM_MEM(adc_EG, FLAGS_SOME), FORM_MEM(adc_GE, FLAGS_SOME), FORM_MEM(adc_EI, FLAGS_SOME),
	FORM_MEM(sbb_EG, FLAGS_SOME), FORM_MEM(sbb_GE, FLAGS_SOME), FORM_MEM(sbb_EI, FLAGS_SOME),
	FORM(imul_GE, FLAGS_SOME), FORM(movsxd, FLAGS_NONE),
	/* 40+r / 48+r: no 64-bit form (REX prefixes in 64-bit mode). */
	{ op_inc_r, FLAGS_SOME, { VNF(inc_r_r32) } }, { op_dec_r, FLAGS_SOME, { VNF(dec_r_r32) } },
#undef V
#undef VNF
#undef FORM
#undef FORM_NF
#undef FORM_MEM
#undef FORM_MEM_NF
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
	PURE(mov_ZI), PURE(mov_EG), PURE(mov_GE), PURE(mov_EI), PURE(inc_r), PURE(dec_r), PURE(lea), PURE(nop),
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
	/* Jcc: thr_jcc_by_cc[] by its condition (insn_thread_form). */
	{ op_jcc, NULL, false }, STEP(jmp), STEP(call), STEP(ret),
#undef PURE
#undef STEP
};

insn_handler insn_thread_form(const struct insn *in, struct thread_form_info *info)
{
	*info = (struct thread_form_info){ .flags = FLAGS_UNKNOWN };
	/* A RIP-relative address reads rIP, which a pure handler may not. */
	if (in->exec == op_lea && in->base == REG_RIP)
		return thread_step;
	for (unsigned i = 0; i < sizeof(fast_forms) / sizeof(fast_forms[0]); i++) {
		const struct variant *v = &fast_forms[i].v[variant_index(in)];
		if (v->exec && v->exec == in->exec) {
			info->pure = true;
			info->flagless = v->flagless;
			/* Only the register forms (those with a flagless twin) are pure
			 * unconditionally: a memory form may fault before it writes. */
			if (v->flagless)
				info->flags = fast_forms[i].flags == FLAGS_BY_COUNT
						      ? (shift_writes_flags(in) ? FLAGS_ALL : FLAGS_SOME)
						      : fast_forms[i].flags;
			return v->thread;
		}
	}
	for (unsigned i = 0; i < sizeof(thread_forms) / sizeof(thread_forms[0]); i++) {
		if (thread_forms[i].exec == in->exec) {
			info->pure = thread_forms[i].pure;
			if (in->exec == op_jcc)
				return thr_jcc_by_cc[in->opcode & 15];
			return thread_forms[i].thread;
		}
	}
	return thread_step;
}


void insns_drop_dead_flags(struct insn *insns, const struct thread_form_info *info, unsigned count)
{
	for (unsigned i = 0; i + 1 < count; i++)
		if (info[i].flagless && info[i + 1].flags == FLAGS_ALL)
			insns[i].thread = info[i].flagless;
}
